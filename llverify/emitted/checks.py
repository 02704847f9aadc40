"""The exact checks of one executed harness: each output element against its op's meaning.

* **move** (convert_layout, local_alloc/local_store/local_load and views, gather, shape ops):
  every element of the output buffer holds exactly the tagged input element the op's
  semantics names (its bytes are that element's bytes, in order).
* **reduce / scan**: each output element's DAG is decomposed into applications of the op's
  combine region (matched node by node, modulo only the primitive ops' real commutativity),
  which gives the exact sequence of input elements it combines.  A reduction must combine
  each element of its row exactly once; a scan must combine its prefix in order (the combine
  is associative, not commutative).  A DAG that is not built from the region is *unknown*
  (LLVM may have rewritten the region), never a pass.
* **counts** (histogram): the output equals the expected concrete counts.
* **memory**: uninitialised shared reads, out-of-bounds accesses, races between barriers and
  conflicting global stores found while executing (:mod:`llverify.emitted.sim.memory`).

Every refutation carries a :class:`Counterexample` (thread, address, expected element, what
was found), replayed by evaluating the found value and the expected one on concrete inputs.

Examples:
    >>> from types import SimpleNamespace as NS
    >>> add = NS(params=("%a", "%b"), param_types=("f32", "f32"), returns=("%s",),
    ...          ops=(NS(results=("%s",), name="arith.addf", operands=("%a", "%b"),
    ...                  attributes="", result_types=("f32",)),))
    >>> dag = Dag()
    >>> x = [dag.leaf(0, i, 4) for i in range(3)]
    >>> node = dag.op("fadd", (dag.op("fadd", (x[2], x[0]), 4), x[1]), 4)
    >>> sorted(expand_combine(dag, node, 0, combine_template(add, dag), [0]))
    [0, 1, 2]
    >>> is_commutative(add, dag)
    True
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from llverify.emitted.sim.replay import NotEvaluable, depends_on
from llverify.emitted.sim.symbolic import COMMUTATIVE, SWAPPED, UNDEFINED, Dag
from llverify.proof.verdict import Status

__all__ = [
    "CaseVerdict",
    "Counterexample",
    "check_case",
    "combine_template",
    "expand_combine",
    "is_commutative",
]

_REGION_OPS = {
    "arith.addf": "fadd", "arith.subf": "fsub", "arith.mulf": "fmul", "arith.divf": "fdiv",
    "arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul", "arith.andi": "and",
    "arith.ori": "or", "arith.xori": "xor", "arith.maxnumf": "maxnum", "arith.minnumf": "minnum",
    "arith.maximumf": "maximum", "arith.minimumf": "minimum", "arith.maxsi": "smax",
    "arith.minsi": "smin", "arith.maxui": "umax", "arith.minui": "umin", "arith.select": "select",
}  # fmt: skip
_PREDICATES = {
    "slt",
    "sle",
    "sgt",
    "sge",
    "ult",
    "ule",
    "ugt",
    "uge",
    "eq",
    "ne",
    "olt",
    "ole",
    "ogt",
    "oge",
    "oeq",
    "one",
    "ord",
    "uno",
    "ueq",
    "une",
}


@dataclass(frozen=True)
class Counterexample:
    """Where the emitted code is wrong: the output element (index and address), the thread that
    wrote it and the store instruction, what it should hold and what it holds."""

    output: str
    element: tuple[int, ...]
    address: int | None
    thread: int | None
    store: str
    expected: str
    got: str
    replay: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "output": self.output,
            "element": list(self.element),
            "address": self.address,
            "thread": self.thread,
            "store": self.store,
            "expected": self.expected,
            "got": self.got,
            "replay": self.replay,
        }


@dataclass(frozen=True)
class CaseVerdict:
    """The verdict on one operation of the module."""

    index: int
    op: str
    op_line: int
    location: str
    description: str
    status: Status
    claim: str
    reason: str = ""
    counterexample: Counterexample | None = None
    violation: str = ""
    notes: tuple[str, ...] = ()  # e.g. an uninitialised shared read whose value is never used

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "op": self.op,
            "line": self.op_line,
            "location": self.location,
            "description": self.description,
            "status": self.status.value,
            "claim": self.claim,
            "reason": self.reason,
            "violation": self.violation,
            "notes": list(self.notes),
            "counterexample": None
            if self.counterexample is None
            else self.counterexample.to_dict(),
        }


# -- combine regions --------------------------------------------------------------------------
def combine_template(region: Any, dag: Dag) -> list[int]:
    """The region's results as nodes of ``dag`` over placeholder leaves ``("leaf", -1, k)``,
    one per block argument; constants become constant nodes."""
    env: dict[str, int] = {}
    for k, (name, ty) in enumerate(zip(region.params, region.param_types)):
        env[name] = dag.leaf(-1, k, _type_bytes(ty))
    for op in region.ops:
        width = _type_bytes(op.result_types[0]) if op.result_types else 4
        if op.name == "arith.constant":
            env[op.results[0]] = dag.const(_constant_value(op.attributes), width)
            continue
        if op.name in ("arith.cmpf", "arith.cmpi"):
            predicate = next(
                (
                    w
                    for w in op.attributes.replace(",", " ")
                    .replace("<", " ")
                    .replace(">", " ")
                    .replace("=", " ")
                    .split()
                    if w in _PREDICATES
                ),
                None,
            )
            if predicate is None:
                raise ValueError(
                    f"combine region: cannot read the predicate of {op.name} {op.attributes!r}"
                )
            prefix = "fcmp" if op.name == "arith.cmpf" else "icmp"
            name = f"{prefix}.{predicate}"
            width = 1
        elif op.name in _REGION_OPS:
            name = _REGION_OPS[op.name]
        else:
            raise ValueError(f"combine region: operation {op.name} is not modelled")
        env[op.results[0]] = dag.op(name, tuple(env[o] for o in op.operands), width)
    return [env[r] for r in region.returns]


def _type_bytes(ty: str) -> int:
    digits = "".join(c for c in ty if "0" <= c <= "9")
    return max(1, int(digits) // 8) if digits else 4


def _constant_value(attributes: str) -> int:
    words = attributes.replace(":", " ").split()
    for word in words:
        try:
            value = float(word)
        except ValueError:
            continue
        if "." in word or "e" in word:
            return int(np.array([value], dtype=np.float32).view(np.uint32)[0])
        return int(value)
    raise ValueError(f"combine region: cannot read the constant {attributes!r}")


def is_commutative(region: Any, dag: Dag) -> bool:
    """Whether the combine is commutative by the primitive ops' own commutativity: its
    results, built with the two sides swapped, are the same hash-consed nodes."""
    count = len(region.params) // 2
    swapped = SimpleNamespace(
        params=region.params[count:] + region.params[:count],
        param_types=region.param_types,
        ops=region.ops,
        returns=region.returns,
    )
    return combine_template(region, dag) == combine_template(swapped, dag)


_INVERSE = {
    "fcmp.oeq": "fcmp.une", "fcmp.one": "fcmp.ueq", "fcmp.olt": "fcmp.uge", "fcmp.ole": "fcmp.ugt",
    "fcmp.ogt": "fcmp.ule", "fcmp.oge": "fcmp.ult", "fcmp.ord": "fcmp.uno", "icmp.eq": "icmp.ne",
    "icmp.slt": "icmp.sge", "icmp.sle": "icmp.sgt", "icmp.ult": "icmp.uge", "icmp.ule": "icmp.ugt",
}  # fmt: skip
_INVERSE.update({v: k for k, v in list(_INVERSE.items())})


def _simplified(dag: Dag, node: int) -> int:
    """``node`` without identity steps, each exact for every input: ``select`` on a constant
    condition is the chosen operand; ``x + 0``, ``x | 0``, ``x ^ 0`` (integers) and ``x + -0.0``
    (floats, -0.0 being the identity of IEEE addition: ``+0.0 + -0.0`` is ``+0.0``) are ``x``.

    >>> dag = Dag()
    >>> x = dag.leaf(0, 3, 4)
    >>> node = dag.op("select", (dag.const(1, 1), dag.op("add", (x, dag.const(0, 4)), 4), x), 4)
    >>> _simplified(dag, node) == x
    True
    """
    for _ in range(64):
        key = dag.nodes[node]
        if key[0] == "select" and dag.nodes[key[1]][0] == "const":
            node = key[2] if dag.nodes[key[1]][1] & 1 else key[3]
            continue
        if key[0] in ("add", "or", "xor", "fadd") and len(key) == 3:
            width = dag.width[node]
            identity = ("const", 1 << (8 * width - 1) if key[0] == "fadd" else 0)
            kept = [o for o in key[1:] if dag.nodes[o] != identity]
            if len(kept) == 1:
                node = kept[0]
                continue
        return node
    return node


def _equivalents(dag: Dag, node: int) -> list[int]:
    """``node`` and the nodes equal to it by rewrites LLVM makes of a combine region, each a
    law of the primitive ops on every input (NaNs included):

    * ``icmp eq/ne (and X, 0x7f..f), 0`` is ``fcmp oeq/une X, 0.0`` for an IEEE float ``X``
      (its magnitude bits are zero exactly when it is +0 or -0; a NaN's are not);
    * ``select(c, x, y)`` is ``select(not c, y, x)``, ``not`` of a compare being the compare
      of the inverse predicate (``olt`` and ``uge``, ``eq`` and ``ne``, ...).

    >>> dag = Dag()
    >>> x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    >>> zero, mask = dag.const(0, 4), dag.const(0x7FFFFFFF, 4)
    >>> test = dag.op("icmp.eq", (dag.op("and", (x, mask), 4), zero), 1)
    >>> node = dag.op("select", (test, y, x), 4)
    >>> dag.op("select", (dag.op("fcmp.une", (x, zero), 1), x, y), 4) in _equivalents(dag, node)
    True
    """
    node = _simplified(dag, node)
    out = [node]
    key = dag.nodes[node]
    if key[0] == "bytes":  # bytes of one select: the select of those bytes of each side
        chosen = {s // 16 for s in key[1]}
        picked = dag.nodes[chosen.pop()] if len(chosen) == 1 and min(key[1]) >= 0 else ()
        if picked and picked[0] == "select":
            sides = [
                dag.from_symbols(tuple(_byte_of(dag, side * 16 + s % 16) for s in key[1]))
                for side in picked[2:]
            ]
            out.append(dag.op("select", (picked[1], *sides), len(key[1])))
            key = dag.nodes[out[-1]]
    if key[0] in ("icmp.eq", "icmp.ne") and len(key) == 3:
        narrow = [_zero_extended(dag, o) for o in key[1:]]
        if any(n is not None for n in narrow) and ("const", 0) in [dag.nodes[o] for o in key[1:]]:
            value = next(n for n in narrow if n is not None)  # zext(a) == 0 is a == 0
            out.append(dag.op(key[0], (value, dag.const(0, dag.width[value])), 1))
        zero = [o for o in key[1:] if dag.nodes[o] == ("const", 0)]
        other = [o for o in key[1:] if o not in zero] or zero[1:]
        masked = dag.nodes[other[0]] if zero and other else ()
        if masked and masked[0] == "and" and len(masked) == 3:
            for value, mask in ((masked[1], masked[2]), (masked[2], masked[1])):
                width = dag.width[value]
                if width in (2, 4, 8) and dag.nodes[mask] == ("const", (1 << (8 * width - 1)) - 1):
                    name = "fcmp.oeq" if key[0] == "icmp.eq" else "fcmp.une"
                    out.append(dag.op(name, (value, dag.const(0, width)), 1))
    if key[0] == "select" and len(key) == 4:
        for condition in _equivalents(dag, key[1]):
            found = dag.nodes[condition]
            if found[0] in _INVERSE and len(found) == 3:
                negated = dag.op(_INVERSE[found[0]], found[1:], 1)
                out.append(dag.op("select", (negated, key[3], key[2]), dag.width[node]))
    narrow = [_bf16_in_f32(dag, candidate) for candidate in out]
    return out + [n for n in narrow if n is not None]


def _bf16_in_f32(dag: Dag, node: int) -> int | None:
    """``fadd``/``fsub`` of two bf16 ``a``, ``b`` when ``node`` computes it as Triton's AMD
    backend does: widen both to f32 (``bits << 16``), add in f32, round to nearest even back to
    bf16 (``(s + 0x7fff + ((s >> 16) & 1)) >> 16``), a NaN sum giving a bf16 NaN.  That is how
    the target lowers an LLVM ``fadd bfloat`` too (the same f32 adder), and with IEEE f32 it is
    the correctly rounded bf16 sum (f32's 24 bits >= 2 * 8 + 2: the double rounding is
    innocuous; both formats have the same exponent range)."""
    key = dag.nodes[node]
    if key[0] != "select" or len(key) != 4 or dag.width[node] != 2:
        return None
    test, nan, rounded = (dag.nodes[o] for o in key[1:])
    if test[0] != "fcmp.uno" or nan[0] != "const" or nan[1] & 0x7F80 != 0x7F80 or not nan[1] & 0x7F:
        return None
    wide = [o for o in test[1:] if dag.nodes[o] != ("const", 0)]
    if len(wide) != 1 or dag.nodes[wide[0]][0] not in ("fadd", "fsub"):
        return None
    total = wide[0]
    if rounded[0] != "bytes" or len(rounded[1]) != 2 or rounded[1][0] % 16 != 2:
        return None
    word = rounded[1][0] // 16
    if rounded[1][1] != word * 16 + 3 or dag.width[word] != 4:
        return None
    high = dag.from_symbols((total * 16 + 2, total * 16 + 3, -1, -1))
    odd = dag.op("and", (high, dag.const(1, 4)), 4)
    if sorted(_add_terms(dag, word)) != sorted([total, dag.const(0x7FFF, 4), odd]):
        return None
    narrow = []
    for operand in dag.nodes[total][1:]:
        parts = dag.nodes[operand]
        if parts[0] != "bytes" or parts[1][:2] != (-1, -1) or parts[1][2] % 16:
            return None
        value = parts[1][2] // 16
        if parts[1][3] != value * 16 + 1 or dag.width[value] != 2:
            return None
        narrow.append(value)
    return dag.op(dag.nodes[total][0], tuple(narrow), 2)


def _byte_of(dag: Dag, symbol: int) -> int:
    """The byte symbol ``symbol`` stands for, through ``bytes`` nodes (a byte of a value
    assembled from pieces is that piece's byte) and shifts right by whole bytes (byte k of
    ``x >> 8 j`` is byte k + j of ``x`` while that is a byte of ``x``)."""
    while symbol >= 0:
        key, offset = dag.nodes[symbol // 16], symbol % 16
        if key[0] == "bytes":
            symbol = key[1][offset]
            continue
        shift = dag.nodes[key[2]] if key[0] in ("lshr", "ashr") and len(key) == 3 else ()
        if shift and shift[0] == "const" and shift[1] % 8 == 0:  # low bytes of x >> 8k
            moved = offset + shift[1] // 8
            if moved < dag.width[key[1]]:
                symbol = key[1] * 16 + moved
                continue
        return symbol
    return symbol


def _zero_extended(dag: Dag, node: int) -> int | None:
    """The node whose zero extension ``node`` is (its bytes, then zero bytes), or None."""
    key = dag.nodes[node]
    if key[0] != "bytes" or key[1][0] < 0 or key[1][0] % 16:
        return None
    inner = key[1][0] // 16
    width = dag.width[inner]
    if width >= len(key[1]) or key[1][:width] != tuple(inner * 16 + k for k in range(width)):
        return None
    return inner if all(s == -1 for s in key[1][width:]) else None


def _add_terms(dag: Dag, node: int) -> list[int]:
    """The terms of a tree of 32-bit integer ``add`` (associative and commutative mod 2**32)."""
    key = dag.nodes[node]
    if key[0] == "add" and dag.width[node] == 4:
        return [t for operand in key[1:] for t in _add_terms(dag, operand)]
    return [node]


def _match(dag: Dag, template: int, actual: int, bindings: dict[int, int]) -> bool:
    """Whether ``actual`` is the template node ``template`` applied to some nodes; on success
    ``bindings`` maps each placeholder to its node (the first way found, with backtracking
    over every alternative of every operand)."""
    for found in _matches(dag, template, actual, dict(bindings)):
        bindings.clear()
        bindings.update(found)
        return True
    return False


def _matches(
    dag: Dag, template: int, actual: int, bindings: dict[int, int]
) -> Iterator[dict[int, int]]:
    """Every way ``actual`` matches ``template`` extending ``bindings`` (each a new dict)."""
    key = dag.nodes[template]
    if key[0] == "leaf" and key[1] == -1:
        actual = _simplified(dag, actual)
        bound = bindings.get(key[2])
        if bound is None:
            yield {**bindings, key[2]: actual}
        elif bound == actual:
            yield bindings
        return
    if key[0] == "const":
        if dag.nodes[actual] == key:
            yield bindings
        return
    operands_t = key[1:]
    for candidate in _equivalents(dag, actual):
        found = dag.nodes[candidate]
        if len(found) != len(key):
            continue
        operands_a = found[1:]
        orders = []
        if found[0] == key[0]:
            orders.append(operands_a)
            if len(operands_t) == 2 and key[0] in COMMUTATIVE:  # sorted: try the other order
                orders.append(operands_a[::-1])
        elif len(operands_t) == 2 and found[0] == _swapped(key[0]):  # a < b is b > a
            orders.append(operands_a[::-1])
        for order in orders:
            yield from _match_all(dag, operands_t, order, bindings)


def _match_all(
    dag: Dag, templates: tuple[int, ...], actuals: tuple[int, ...], bindings: dict[int, int]
) -> Iterator[dict[int, int]]:
    if not templates:
        yield bindings
        return
    for first in _matches(dag, templates[0], actuals[0], bindings):
        yield from _match_all(dag, templates[1:], actuals[1:], first)


def _swapped(name: str) -> str:
    """The compare with its operands swapped (``fcmp.olt`` -> ``fcmp.ogt``), or ``""``."""
    if name[:5] not in ("fcmp.", "icmp."):
        return ""
    swapped = SWAPPED.get(name[5:])
    return name[:5] + swapped if swapped else ""


class _NotCombined(Exception):  # noqa: N818 - a control-flow signal, not an error
    pass


def expand_combine(
    dag: Dag,
    node: int,
    result: int,
    templates: list[int],
    inputs: list[int],
    memo: dict[tuple[int, int], tuple[int, ...]] | None = None,
) -> tuple[int, ...]:
    """The input element indices (in order) that ``node`` (result ``result`` of the combine)
    combines; ``inputs[k]`` is the DAG buffer id of operand k.  Raises ``_NotCombined``."""
    memo = {} if memo is None else memo
    node = _simplified(dag, node)
    cached = memo.get((node, result))
    if cached is not None:
        return cached
    key = dag.nodes[node]
    if key[0] == "leaf":
        if key[1] != inputs[result]:
            raise _NotCombined(f"{dag.describe(node)} is not an element of operand {result}")
        out: tuple[int, ...] = (key[2],)
        memo[(node, result)] = out
        return out
    bindings: dict[int, int] = {}
    if not _match(dag, templates[result], node, bindings):
        raise _NotCombined(f"{dag.describe(node, 3)} is not an application of the combine region")
    count = len(inputs)
    sides = []
    for side in (range(count), range(count, 2 * count)):
        sequences = {
            expand_combine(dag, bindings[k], k % count, templates, inputs, memo)
            for k in side
            if k in bindings
        }
        if len(sequences) != 1:
            raise _NotCombined(
                "the operands of one combine step hold different elements"
                if sequences
                else "a combine step ignores one side"
            )
        sides.append(sequences.pop())
    out = sides[0] + sides[1]
    memo[(node, result)] = out
    return out


# -- checking one case ---------------------------------------------------------------------------
def check_case(
    case: Any,
    run: Any,
    regions: dict[str, Any],
    buffer_ids: dict[str, int],
    claim: str,
    violations: list[Any],
) -> CaseVerdict:
    """Check every expectation of ``case`` on the executed ``run``."""
    op_name = case.op.name
    base = dict(
        index=case.index,
        op=op_name,
        op_line=case.op_line,
        location=case.location,
        description=case.description,
        claim=claim,
    )
    undecided: CaseVerdict | None = None  # an unknown waits: a refutation anywhere wins
    for expectation in case.expectations:
        region = regions[expectation.output]
        spec = next(b for b in case.buffers if b.name == expectation.output)
        element_bytes = max(1, spec.element_bits // 8)
        rows = region.data.reshape(-1, element_bytes)
        if expectation.kind == "move":
            verdict = _check_move(
                case, run, expectation, spec, rows, region, buffer_ids, element_bytes
            )
        elif expectation.kind == "counts":
            verdict = _check_counts(expectation, spec, rows, region, element_bytes)
        elif expectation.kind in ("reduce", "scan"):
            verdict = _check_combine(case, run, expectation, spec, rows, region, buffer_ids)
        else:
            verdict = (Status.UNKNOWN, f"expectation kind {expectation.kind!r}", None)
        if verdict is not None:
            status, reason, counterexample = verdict
            found = CaseVerdict(status=status, reason=reason, counterexample=counterexample, **base)
            if status is Status.REFUTED:
                return found
            undecided = undecided or found
    mirrored = [v for v in violations if mirrored_orders(case, run, buffer_ids, v)]
    violations = [v for v in violations if v not in mirrored]
    if mirrored and not violations:
        first = mirrored[0]
        return CaseVerdict(
            status=Status.UNKNOWN,
            reason=(
                f"the combine is not commutative, which tl.reduce assumes "
                "(triton-lang/triton#4962): threads "
                f"{first.thread} and {first.other_thread} hold the combine of the same "
                f"elements in different orders and both store it to {first.space} address "
                f"{first.address} ({first.kind}); at {first.where}"
            ),
            violation=first.kind,
            **base,
        )
    if violations:
        first = violations[0]
        detail = describe_violation(first)
        return CaseVerdict(status=Status.REFUTED, reason=detail, violation=first.kind, **base)
    return undecided or CaseVerdict(status=Status.PROVED, **base)


def describe_violation(violation: Any) -> str:
    """One line: what, where in memory, which threads, and the instruction."""
    other = violation.other_thread
    return (
        f"{violation.kind} in {violation.space} memory at address {violation.address} by "
        f"thread {violation.thread}"
        + (f" (and thread {other})" if other is not None else "")
        + f": {violation.detail}; at {violation.where}"
    )


def mirrored_orders(case: Any, run: Any, buffer_ids: dict[str, int], violation: Any) -> bool:
    """Whether every pair of values ``violation`` found different is one combine, not
    commutative, of the same elements in two orders (``f(x, y)`` against ``f(y, x)``): a use
    of the combine outside what Triton assumes, not a wrong element."""
    if not violation.values or case.op.name != "tt.reduce":
        return False  # a scan must combine in order (tl.associative_scan: associative only)
    for expectation in case.expectations:
        if expectation.kind != "reduce":
            continue
        if is_commutative(expectation.combine, run.dag):
            continue
        templates = combine_template(expectation.combine, run.dag)
        inputs = [buffer_ids[name] for name in expectation.inputs]
        memo: dict[tuple[int, int], tuple[int, ...]] = {}
        if all(_same_elements(run.dag, pair, templates, inputs, memo) for pair in violation.values):
            return True
    return False


def _same_elements(
    dag: Dag,
    pair: tuple[int, int],
    templates: list[int],
    inputs: list[int],
    memo: dict[tuple[int, int], tuple[int, ...]],
) -> bool:
    first, second = pair
    if first < 0 or second < 0 or first % 16 != second % 16:
        return False
    for result in range(len(templates)):
        try:
            a = expand_combine(dag, first // 16, result, templates, inputs, memo)
            b = expand_combine(dag, second // 16, result, templates, inputs, memo)
        except _NotCombined:
            continue
        if a != b and sorted(a) == sorted(b):
            return True
    return False


def _element(spec: Any, flat: int) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, spec.shape)) if spec.shape else ()


def _store_of(run: Any, region: Any, flat: int, element_bytes: int) -> tuple[int | None, str, int]:
    offset = flat * element_bytes
    writer = int(region.writer[offset])
    site = int(region.site[offset])
    where = run.memory.sites[site] if site >= 0 else "never stored"
    return (writer if writer >= 0 else None), where, region.base + offset


def _check_move(case, run, expectation, spec, rows, region, buffer_ids, element_bytes):
    source_buffer = np.asarray(expectation.source_buffer).reshape(-1)
    source_index = np.asarray(expectation.source_index).reshape(-1)
    names = [case.buffers[int(b)].name for b in source_buffer]
    expected = np.empty_like(rows)
    offsets = np.arange(element_bytes, dtype=np.int64)
    values_cache: dict[str, np.ndarray] = {}
    for k, (name, index) in enumerate(zip(names, source_index)):
        buffer = next(b for b in case.buffers if b.name == name)
        if buffer.role == "values":
            data = values_cache.setdefault(name, run.memory.regions[buffer_ids[name]].data)
            expected[k] = data[int(index) * element_bytes : (int(index) + 1) * element_bytes]
        else:
            node = run.dag.leaf(buffer_ids[name], int(index), element_bytes)
            expected[k] = node * 16 + offsets
    wrong = np.flatnonzero((rows != expected).any(axis=1))
    if spec.element == "i1" and wrong.size:
        wrong = np.array(
            [k for k in wrong if not _same_bool(run.dag, rows[k], expected[k])], dtype=np.int64
        )
    if wrong.size == 0:
        return None
    flat = int(wrong[0])
    thread, store, address = _store_of(run, region, flat, element_bytes)
    got_node = run.dag.from_symbols(tuple(int(s) for s in rows[flat]))
    got = (
        "nothing (never written)" if (rows[flat] == UNDEFINED).all() else run.dag.describe(got_node)
    )
    source_spec = next(b for b in case.buffers if b.name == names[flat])
    coordinates = ", ".join(map(str, _element(source_spec, int(source_index[flat]))))
    want = f"{names[flat]}[{coordinates}]"
    replay = _replay_move(run, rows[flat], expected[flat])
    return (
        Status.REFUTED,
        f"{wrong.size} of {rows.shape[0]} output elements are wrong",
        Counterexample(spec.name, _element(spec, flat), address, thread, store, want, got, replay),
    )


_BOOL_WRAPPERS = ("zext.1.8", "trunc.8.1", "and", "icmp.ne")


def _same_bool(dag: Dag, got: np.ndarray, expected: np.ndarray) -> bool:
    """Whether a stored i1 byte is the expected bool: Triton keeps i1 in memory as a byte 0 or 1
    and re-normalises it on the way (``and x, 1``, ``zext(trunc x)``), which is the identity on
    such bytes."""
    node = dag.from_symbols(tuple(int(s) for s in got))
    want = dag.from_symbols(tuple(int(s) for s in expected))
    for _ in range(16):
        if node == want:
            return True
        key = dag.nodes[node]
        if key[0] not in _BOOL_WRAPPERS:
            return False
        inner = [o for o in key[1:] if dag.nodes[o][0] != "const"]
        constants = [dag.nodes[o][1] for o in key[1:] if dag.nodes[o][0] == "const"]
        if (
            len(inner) != 1
            or (key[0] == "and" and constants != [1])
            or (key[0] == "icmp.ne" and constants != [0])
        ):
            return False
        node = inner[0]
    return False


def _replay_move(run: Any, got: np.ndarray, expected: np.ndarray) -> str:
    """Concrete replay: give every input element a distinct value (its node number) and compare."""
    got_values = [int(s) // 16 if s >= 0 else s for s in got]
    want_values = [int(s) // 16 if s >= 0 else s for s in expected]
    same = got_values == want_values
    return (
        "replayed: with each input element holding its own distinct value, the element holds "
        f"{got_values[0]} where {want_values[0]} is expected"
        if not same
        else "not replayed"
    )


def _check_counts(expectation, spec, rows, region, element_bytes):
    values = np.asarray(expectation.values).reshape(-1).astype(np.uint64)
    shifts = (np.arange(element_bytes, dtype=np.uint64) * np.uint64(8))[None, :]
    expected = -1 - ((values[:, None] >> shifts) & np.uint64(0xFF)).astype(np.int64)
    wrong = np.flatnonzero((rows != expected).any(axis=1))
    if wrong.size == 0:
        return None
    flat = int(wrong[0])
    got_bytes = rows[flat]
    got = (
        "nothing (never written)"
        if (got_bytes == UNDEFINED).all()
        else str(sum((-1 - int(b)) << (8 * k) for k, b in enumerate(got_bytes)))
        if (got_bytes < 0).all() and (got_bytes >= -256).all()
        else "a tagged value"
    )
    writer = int(region.writer[flat * element_bytes])
    return (
        Status.REFUTED,
        f"{wrong.size} of {rows.shape[0]} counts are wrong",
        Counterexample(
            spec.name,
            _element(spec, flat),
            region.base + flat * element_bytes,
            writer if writer >= 0 else None,
            "",
            str(int(values[flat])),
            got,
            "replayed: the counts are concrete integers",
        ),
    )


def _check_combine(case, run, expectation, spec, rows, region, buffer_ids):
    inputs = [buffer_ids[name] for name in expectation.inputs]
    input_spec = next(b for b in case.buffers if b.name == expectation.inputs[0])
    shape = input_spec.shape
    axis = expectation.axis
    templates = combine_template(expectation.combine, run.dag)
    # associative (as the language requires) and commutative: any order is the same value
    commutative = is_commutative(expectation.combine, run.dag)
    memo: dict[tuple[int, int], tuple[int, ...]] = {}
    flat_inputs = np.arange(int(np.prod(shape))).reshape(shape)
    moved = np.moveaxis(flat_inputs, axis, -1)
    for flat in range(rows.shape[0]):
        row = rows[flat]
        if (row == UNDEFINED).any():
            thread, store, address = _store_of(run, region, flat, row.shape[0])
            return (
                Status.REFUTED,
                "an output element is never written",
                Counterexample(
                    spec.name,
                    _element(spec, flat),
                    address,
                    thread,
                    store,
                    "a combined value",
                    "nothing (never written)",
                    "replayed: the element's bytes are never stored",
                ),
            )
        if expectation.kind == "reduce":
            position = np.unravel_index(flat, moved.shape[:-1])
            want = tuple(int(i) for i in moved[position])
        else:
            position = np.unravel_index(flat, shape)
            line = np.moveaxis(flat_inputs, axis, -1)[
                tuple(p for d, p in enumerate(position) if d != axis)
            ]
            k = position[axis]
            want = tuple(
                int(i) for i in (line[: k + 1] if not expectation.reverse else line[k:][::-1])
            )
        node = run.dag.from_symbols(tuple(int(s) for s in row))
        try:
            got = expand_combine(run.dag, node, expectation.result, templates, inputs, memo)
        except _NotCombined as exc:
            foreign = _foreign_dependence(run, node, want, inputs, input_spec)
            if foreign is not None:
                thread, store, address = _store_of(run, region, flat, row.shape[0])
                leaf, replay = foreign
                return (
                    Status.REFUTED,
                    f"{expectation.kind} reads an element outside its row",
                    (
                        Counterexample(
                            spec.name,
                            _element(spec, flat),
                            address,
                            thread,
                            store,
                            f"combine of {expectation.inputs[0]} elements {_listed(want)}",
                            f"a value that depends on {_leaf_name(run, leaf, input_spec)}",
                            replay,
                        )
                    ),
                )
            return (
                Status.UNKNOWN,
                (
                    f"output {spec.name}{list(_element(spec, flat))}: {exc} (the "
                    "emitted combine could not be matched to the region)"
                ),
                None,
            )
        any_order = expectation.kind == "reduce" or commutative
        ok = sorted(got) == sorted(want) if any_order else got == want
        if not ok:
            thread, store, address = _store_of(run, region, flat, row.shape[0])
            missing = sorted(set(want) - set(got))
            extra = [i for i in set(got) if got.count(i) > 1 or i not in want]
            detail = (f"missing {missing[:4]}" if missing else "") + (
                f" repeated/foreign {sorted(extra)[:4]}" if extra else ""
            )
            order = "" if sorted(got) != sorted(want) else "the right elements in the wrong order"
            return (
                Status.REFUTED,
                f"{expectation.kind} combines the wrong elements",
                Counterexample(
                    spec.name,
                    _element(spec, flat),
                    address,
                    thread,
                    store,
                    f"combine of {expectation.inputs[0]} elements {_listed(want)}",
                    f"combine of elements {_listed(got)} {detail or order}".strip(),
                    _replay_combine(got, want),
                ),
            )
    return None


def _leaf_name(run: Any, leaf: int, spec: Any) -> str:
    """``name[i, j]`` of an input leaf (coordinates in ``spec``'s shape when it is that buffer)."""
    _, buffer, index = run.dag.nodes[leaf]
    name = run.dag.buffer_names.get(buffer, f"in{buffer}")
    if name == spec.name:
        return f"{name}[{', '.join(map(str, _element(spec, index)))}]"
    return f"{name}[{index}]"


def _foreign_dependence(
    run: Any, node: int, want: tuple[int, ...], inputs: list[int], input_spec: Any
) -> tuple[int, str] | None:
    """A leaf outside the row that ``node``'s value provably depends on, with the replay."""
    dag = run.dag
    leaves = sorted(set(dag.leaves(node)))
    allowed = set(want)
    foreign = [
        leaf
        for leaf in leaves
        if dag.nodes[leaf][1] not in inputs or dag.nodes[leaf][2] not in allowed
    ]
    element = input_spec.element
    float_type = "bf16" if element == "bf16" else "int" if element.startswith("i") else "f16"
    for leaf in foreign[:8]:
        try:
            witness = depends_on(dag, node, leaf, leaves, float_type=float_type)
        except NotEvaluable:
            return None
        if witness is not None:
            values, other, first, second = witness
            shown = ", ".join(f"{dag.describe(k)}={hex(v)}" for k, v in list(values.items())[:6])
            return leaf, (
                f"replayed: with {shown}{', ...' if len(values) > 6 else ''} the "
                f"result is {hex(first)}; changing {dag.describe(leaf)} from "
                f"{hex(values[leaf])} to {hex(other)} changes it to {hex(second)}"
            )
    return None


def _listed(elements: tuple[int, ...]) -> str:
    return f"{list(elements)[:8]}{'...' if len(elements) > 8 else ''}"


def _replay_combine(got: tuple[int, ...], want: tuple[int, ...]) -> str:
    """Concrete replay: element i holds 2**i (exact in integers); the sums of the two element
    lists differ exactly when the multisets differ (for order-only differences, the sequences)."""
    got_sum = sum(1 << i for i in got)
    want_sum = sum(1 << i for i in want)
    if got_sum != want_sum:
        return (
            f"replayed: with element i = 2**i, the sum of the combined elements is {got_sum}, "
            f"expected {want_sum}"
        )
    return f"replayed: the combined sequence {list(got)[:8]} differs from {list(want)[:8]} in order"
