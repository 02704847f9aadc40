"""Audit rule ``copies``: which registers, lanes and warps of a ``tt.reduce``, ``tt.scan`` or
``tt.histogram`` hold copies of one element, how Triton 3.9 treats them, and whether the
store or reduction that consumes the result sees duplicated values.

Copies are the free variables of the operand's layout (:func:`~llverify.audit.stores.writers`;
register copies included).  What Triton 3.9 does with them (its C++ in
lib/Conversion/TritonGPUToLLVM/, and translation validation of its emitted code,
``llverify.emitted``, on hand-written layouts with register, lane and warp copies: proved):

* ``tt.reduce`` (ReduceOpToLLVM.cpp): register copies are dropped before combining
  (``actionRemoveBroadcastedRegs``), and lanes and warps are combined only along the bases
  that move along the axis (the butterfly's lane mask; warps through a conversion to a
  temporary layout): each element is combined once, the copies compute the same result.
* ``tt.scan`` (ScanOpToLLVM.cpp): lane and warp copies scan the same elements and hold the
  same prefixes.
* ``tt.histogram`` (HistogramOpToLLVM.cpp): register copies are unpacked once and threads
  holding copies are predicated off (``emitRedundantThreadPredicate``): each element is
  counted once.
* ``tt.store``, ``tt.atomic_rmw``, ``tt.atomic_cas``: only the representative copy writes
  (rule ``store-writer`` states the predicate).

So copies are never double counted by Triton 3.9; the rule reports them (status ``ok``) and
follows each result through elementwise operations and ``ttg.convert_layout`` to the stores,
atomics, reductions, scans and histograms that consume it, saying how many copies of each
value each consumer sees.  Anything else (``tt.splat``, ``tt.expand_dims``, loop-carried
values) ends the walk and is listed.

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    ...   %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({
    ...   ^bb0(%a: f32, %b: f32):
    ...     %s = arith.addf %a, %b : f32
    ...     tt.reduce.return %s : f32
    ...   }) : (tensor<2x8xf32, #b>) -> tensor<2xf32, #ttg.slice<{dim = 1, parent = #b}>>
    ... }'''
    >>> f = audit(text).findings[0]
    >>> f.rule, str(f.status), f.data["operand"], f.data["result"]
    ('copies', 'ok', {'lane': 16, 'warp': 3}, {'lane': 23, 'warp': 3})
"""  # noqa: E501

from __future__ import annotations

from typing import Any

from llverify.audit.context import AuditContext, Rule, Severity
from llverify.audit.stores import Writers, describe_copies, writers
from llverify.ttgir import Operation, Type

__all__ = ["CONSUMERS", "RULES"]

NAME = "copies"

#: operations that consume a value with copies, and how Triton 3.9 treats the copies
CONSUMERS = {
    "tt.reduce": "each element combined once",
    "tt.scan": "the copies scan the same elements",
    "tt.histogram": "each element counted once",
    "tt.store": "written once",
    "tt.atomic_rmw": "applied once",
    "tt.atomic_cas": "applied once",
}

#: how the rule's own operations treat their operand's copies (module docstring)
HANDLING = {
    "tt.reduce": "Triton 3.9 combines each element once (register copies dropped, lanes "
    "and warps combined only along the axis)",
    "tt.scan": "Triton 3.9's copies scan the same elements",
    "tt.histogram": "Triton 3.9 counts each element once (copies predicated off)",
}

#: elementwise operations a value keeps its copies through (besides arith.* and math.*)
_ELEMENTWISE = frozenset(
    {
        "tt.addptr", "tt.bitcast", "tt.fp_to_fp", "tt.int_to_ptr", "tt.ptr_to_int",
        "tt.precise_sqrt", "tt.precise_divf", "tt.clampf", "tt.mulhiui",
        "tt.extern_elementwise",
    }
)  # fmt: skip

#: the most uses one walk visits (a bound on the time per operation)
MAX_USES = 256


def _writers(ctx: AuditContext, tensor: Type) -> Writers:
    cache = ctx.state.setdefault(NAME, {})
    key = (tensor.encoding, tensor.shape)
    if key not in cache:
        cache[key] = writers(ctx.layout(tensor))
    found: Writers = cache[key]
    return found


def _passes(op: Operation) -> bool:
    """Whether a value's copies flow unchanged (or, for a conversion, re-laid out) through
    ``op`` to its results."""
    if op.name == "ttg.convert_layout":
        return True
    if not (op.name.startswith(("arith.", "math.")) or op.name in _ELEMENTWISE):
        return False
    return len({(t.encoding, t.shape) for t in op.types if t.kind == "tensor"}) <= 1


def _consumers(ctx: AuditContext, op: Operation) -> tuple[list[dict[str, Any]], list[str]]:
    """The consumers reached from ``op``'s results, and the operations the walk stopped at."""
    found: list[dict[str, Any]] = []
    stopped: dict[str, None] = {}
    frontier, seen, visited = list(op.results), set(op.results), 0
    while frontier and visited < MAX_USES:
        value = frontier.pop(0)
        for user in ctx.uses.get(value, []):
            visited += 1
            if user.name in CONSUMERS:
                tensor = next((t for t in user.types if t.kind == "tensor" and t.encoding), None)
                entry: dict[str, Any] = {"op": user.name, "line": user.line}
                if tensor is None:
                    entry.update(copies=None, free={}, sees="a scalar, written by thread 0")
                else:
                    w = _writers(ctx, tensor)
                    entry.update(copies=w.copies, free=w.free, predicate=w.predicate)
                    entry["sees"] = (
                        f"each value {w.copies} times ({describe_copies(w.free)}), "
                        f"{CONSUMERS[user.name]}"
                        if w.copies > 1
                        else "no duplicated values"
                    )
                found.append(entry)
            elif _passes(user):
                for result in user.results:
                    if result not in seen:
                        seen.add(result)
                        frontier.append(result)
            else:
                stopped[user.name] = None
    if frontier:
        stopped[f"more than {MAX_USES} uses"] = None
    return found, list(stopped)


def check_copies(ctx: AuditContext, op: Operation) -> None:
    """List the operand's and the result's copies and what the consumers of the result see."""
    tensors = [t for t in op.types if t.kind == "tensor" and t.encoding]
    if not tensors:
        ctx.skip(op, NAME, "no distributed tensor operand")
        return
    operand = _writers(ctx, tensors[0])
    data: dict[str, Any] = {"operand": operand.free, "operand_copies": operand.copies}
    if operand.witness is not None:
        data["witness"] = operand.witness
    summary = f"operand copies: {describe_copies(operand.free)}"
    if operand.copies > 1:
        summary += f" (each element held {operand.copies} times): {HANDLING[op.name]}"
    result_types = op.types[len(op.operands) :]
    result = next((t for t in result_types if t.kind == "tensor" and t.encoding), None)
    if result is not None:
        held = _writers(ctx, result)
        data.update(result=held.free, result_copies=held.copies)
        summary += f"; result copies: {describe_copies(held.free)}"
    elif op.results:
        data.update(result="scalar", result_copies=None)
        summary += "; the result is a scalar every thread holds"
    consumers, stopped = _consumers(ctx, op)
    data.update(consumers=consumers, not_followed=stopped)
    for entry in consumers:
        summary += f"; {entry['op']} (line {entry['line']}) sees {entry['sees']}"
    ctx.finding(op, Severity.OK, summary, rule=NAME, data=data)


RULES = (
    Rule(
        NAME,
        frozenset({"tt.reduce", "tt.scan", "tt.histogram"}),
        check_copies,
        "copies held by reduce/scan/histogram operands and results, and what consumers see",
    ),
)
