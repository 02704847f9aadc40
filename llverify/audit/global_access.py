"""Audit rule ``global-coalescing``: the sectors, lines, vector width and efficiency of every
``tt.load`` and ``tt.store`` whose addresses the module's pointer arithmetic fixes.

The offsets come from :mod:`~llverify.audit.pointers` (``tt.splat`` of an argument, then
``tt.addptr`` with constant-stride integer arithmetic); the cost from
:func:`llverify.global_memory.sectors` on the pointer tensor's layout.  The base address is
known only up to its alignment: the argument's ``tt.divisibility`` (else the element's size),
combined with the step of the unknown uniform part (a program id times a constant).  Every
base position that alignment allows within a 128-byte line is evaluated: the finding gives
the figures for a line-aligned base and the worst, and the vector width every allowed base
admits.  Masks are ignored: every element is taken as accessed.

An access is a warning (never an error) when, even from a line-aligned base, its requests touch
at least :data:`POOR_RATIO` times the sectors their distinct bytes need (a request of 32 lanes
each reading 4 bytes at a 128-byte stride touches 32 sectors where 4 would do); a request
that asks for little (one broadcast scalar) is not poorly coalesced, however low its
efficiency.  Only NVIDIA targets are
costed (AMD's transactions are not modelled, docs/coalescing.md); others are skipped.

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... #s0 = #ttg.slice<{dim = 1, parent = #b}>
    ... #s1 = #ttg.slice<{dim = 0, parent = #b}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    ...   tt.func public @k(%in: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    ...     %c = arith.constant dense<1024> : tensor<1x32xi32, #b>
    ...     %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #s0>
    ...     %l = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #s1>
    ...     %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #s0> -> tensor<32x1xi32, #b>
    ...     %l2 = tt.expand_dims %l {axis = 0 : i32} : tensor<32xi32, #s1> -> tensor<1x32xi32, #b>
    ...     %cols = arith.muli %l2, %c : tensor<1x32xi32, #b>
    ...     %rb = tt.broadcast %r2 : tensor<32x1xi32, #b> -> tensor<32x32xi32, #b>
    ...     %cb = tt.broadcast %cols : tensor<1x32xi32, #b> -> tensor<32x32xi32, #b>
    ...     %o = arith.addi %rb, %cb : tensor<32x32xi32, #b>
    ...     %p = tt.splat %in : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #b>
    ...     %q = tt.addptr %p, %o : tensor<32x32x!tt.ptr<f32>, #b>, tensor<32x32xi32, #b>
    ...     %v = tt.load %q : tensor<32x32x!tt.ptr<f32>, #b>
    ...   }
    ... }'''
    >>> f = [f for f in audit(text, rules=["global-coalescing"]).findings if f.rule == "global-coalescing"][0]
    >>> str(f.status), f.data["sectors_per_request"], f.data["efficiency"], f.data["strides"]
    ('warning', 32.0, 0.125, [1, 1024])
"""  # noqa: E501

from __future__ import annotations

from typing import Any

import numpy as np

from llverify.audit.context import AuditContext, Rule, Severity
from llverify.audit.pointers import Evaluator, NotConstantError, offsets_of
from llverify.errors import LLVerifyError
from llverify.global_memory.sectors import (
    COALESCING_ELEMENT_BITS,
    GLOBAL_TARGETS,
    Coalescing,
    coalescing_at_bases,
)
from llverify.ttgir import Operation, Type

__all__ = ["POOR_RATIO", "RULES"]

NAME = "global-coalescing"

#: an access touching this many times its ideal sectors (line-aligned base) is a warning
POOR_RATIO = 2


def _evaluator(ctx: AuditContext) -> Evaluator:
    state = ctx.state.setdefault(NAME, {})
    if "evaluator" not in state:
        state["evaluator"] = Evaluator(ctx.module)
    found: Evaluator = state["evaluator"]
    return found


def _strides(offsets: np.ndarray) -> list[int] | None:
    """The strides of ``offsets`` when it is strided (offset = origin + sum i_d * s_d)."""
    origin = int(offsets.reshape(-1)[0])
    strides = []
    for d, size in enumerate(offsets.shape):
        step = [0] * offsets.ndim
        if size > 1:
            step[d] = 1
        strides.append(int(offsets[tuple(step)]) - origin if size > 1 else 0)
    grid = np.indices(offsets.shape, dtype=np.int64)
    rebuilt = origin + np.tensordot(np.asarray(strides, dtype=np.int64), grid, axes=1)
    return strides if (rebuilt == offsets).all() else None


def _costs(
    ctx: AuditContext, tensor: Type, offsets: np.ndarray, bits: int, alignment: int
) -> tuple[tuple[Coalescing, ...], list[int] | None]:
    """The costs at every base position ``alignment`` allows within a line, and the strides
    of ``offsets``, memoised per layout, element width, alignment and offsets up to whole
    lines: a module repeats one access pattern across its loads and stores, at origins that
    differ by whole lines.

    Moving every address by a multiple of the 128-byte line moves every sector, line and
    aligned vector run by whole units, so the figures the rule reads (vector widths,
    requests, sectors, lines, distinct bytes) are the same; the offsets are moved so that
    their origin lies in the first line (only ``vector_limit``'s byte numbers, which the rule
    does not show, are of the moved addresses).
    """
    per_line = GLOBAL_TARGETS["nvidia"].line_bytes * 8 // bits  # elements per line
    origin = int(offsets.reshape(-1)[0])
    moved = offsets - (origin - origin % per_line)
    memo = ctx.state.setdefault(NAME, {}).setdefault("costs", {})
    key = (tensor.encoding, tensor.shape, moved.shape, moved.tobytes(), bits, alignment)
    if key not in memo:
        bases = range(0, GLOBAL_TARGETS["nvidia"].line_bytes, alignment)
        memo[key] = (
            coalescing_at_bases(ctx.layout(tensor), moved, None, bits, base_addresses=bases),
            _strides(moved),
        )
    found: tuple[tuple[Coalescing, ...], list[int] | None] = memo[key]
    return found


def check_access(ctx: AuditContext, op: Operation) -> None:
    """Cost one global load or store from its pointer arithmetic."""
    if not (ctx.module.target or "").startswith("cuda"):
        ctx.skip(op, NAME, "global-memory coalescing is modelled for NVIDIA targets only")
        return
    tensor = next((t for t in op.types if t.kind == "tensor" and t.encoding), None)
    if tensor is None or not op.operands:
        ctx.skip(op, NAME, "not a distributed tensor of pointers (a scalar or descriptor access)")
        return
    try:
        pointer = _evaluator(ctx).pointer(op.operands[0])
    except NotConstantError as why:
        ctx.skip(op, NAME, f"addresses not constant: {why}")
        return
    except RecursionError:
        ctx.skip(op, NAME, "addresses not constant: the pointer arithmetic is too deep")
        return
    try:
        bits = COALESCING_ELEMENT_BITS.check(pointer.element_bits)
    except LLVerifyError as why:
        ctx.skip(op, NAME, str(why))
        return
    nbytes = bits // 8
    offsets = offsets_of(pointer, tensor.shape)
    line = GLOBAL_TARGETS["nvidia"].line_bytes
    step_bytes = pointer.offset.step * nbytes
    alignment = min(
        np.gcd(pointer.alignment, step_bytes) if step_bytes else pointer.alignment, line
    )
    alignment = max(int(alignment), nbytes)
    results, strides = _costs(ctx, tensor, offsets, bits, alignment)
    aligned = results[0]
    worst = max(results, key=lambda c: (c.sectors, -c.vector_width))
    vector = min(c.vector_width for c in results)
    data: dict[str, Any] = {
        "element_bits": bits,
        "base": pointer.base,
        "base_alignment": alignment,
        "strides": strides,
        "vector_width": vector,
        "max_vector_width": aligned.max_vector_width,
        "requests": aligned.requests,
        "sectors_per_request": aligned.sectors_per_request,
        "ideal_sectors_per_request": aligned.ideal_sectors / aligned.requests,
        "lines_per_request": aligned.lines_per_request,
        "efficiency": aligned.efficiency,
        "worst_sectors_per_request": worst.sectors_per_request,
        "worst_efficiency": worst.efficiency,
        "masked": len(op.operands) > (1 if op.name == "tt.load" else 2),
    }
    summary = (
        f"{vector * bits}-bit vectors ({vector} of at most {aligned.max_vector_width} "
        f"elements), {aligned.sectors_per_request:g} sectors per request (ideal "
        f"{data['ideal_sectors_per_request']:g}), efficiency {100 * aligned.efficiency:.1f}%"
    )
    if len(results) > 1 and worst.sectors != aligned.sectors:
        summary += (
            f"; from a base aligned to {alignment} bytes only: {worst.sectors_per_request:g} "
            f"sectors per request, {100 * worst.efficiency:.1f}%"
        )
    poor = aligned.sectors >= POOR_RATIO * aligned.ideal_sectors
    if poor:
        summary = f"poorly coalesced: {summary}"
    ctx.finding(op, Severity.WARNING if poor else Severity.OK, summary, rule=NAME, data=data)


RULES = (
    Rule(
        NAME,
        frozenset({"tt.load", "tt.store"}),
        check_access,
        "sectors, lines, vector width and efficiency of global loads and stores whose "
        "addresses the pointer arithmetic fixes",
    ),
)
