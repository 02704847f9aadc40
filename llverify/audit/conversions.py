"""Audit rule ``convert-layout``: a ``ttg.convert_layout`` proved correct and complete, its
kind as Triton 3.9 lowers it, and its cost (certified optimal swizzle, or shuffle rounds).

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... #c = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    ...   %1 = ttg.convert_layout %0 : tensor<128x64xf16, #b> -> tensor<128x64xf16, #c>
    ... }'''
    >>> f = audit(text).findings[0]
    >>> f.rule, str(f.status), f.data["kind"], f.data["swizzle"]["load_conflicts"]
    ('convert-layout', 'proved', 'shared memory', 0)
"""  # noqa: E501

from __future__ import annotations

import copy
from typing import Any

from llverify.audit.context import AuditContext, Rule
from llverify.proof.verdict import Status
from llverify.ttgir import Operation, Type

__all__ = ["RULES"]

NAME = "convert-layout"


def check_conversion(ctx: AuditContext, op: Operation) -> None:
    """Prove ``dst(cvt(x)) == src(x)`` and coverage; cost the lowering Triton picks."""
    tensors = [t for t in op.types if t.kind == "tensor"]
    if len(tensors) < 2:
        ctx.skip(op, NAME, "could not read a source and a result tensor type")
        return
    src, dst = tensors[0], tensors[-1]
    # the finding depends on the two types and the target only: each distinct pair is
    # proved and costed once per audit (a module of unrolled steps repeats a few pairs)
    known = ctx.state.setdefault(f"{NAME} by types", {})
    key = (src.text, dst.text)
    if key not in known:
        known[key] = _checked(ctx, src, dst)
    status, summary, cost, data = known[key]
    ctx.finding(op, status, summary, rule=NAME, cost=cost, data=copy.deepcopy(data))


def _checked(ctx: AuditContext, src: Type, dst: Type) -> tuple[Status, str, int, dict[str, Any]]:
    """The status, summary, cost and data of the conversion from ``src`` to ``dst``."""
    from llverify.conversion import Conversion

    conv = Conversion(ctx.layout(src), ctx.layout(dst))
    verify, coverage = conv.verify(), conv.coverage()
    status = Status.weakest([verify.status, coverage.status])
    data: dict[str, Any] = {"kind": conv.kind, "verify": str(verify), "coverage": str(coverage)}
    cost = 0
    summary = f"{conv.kind}; correct and complete: {status}"
    failed = [v for v in (verify, coverage) if not v.proved]
    if failed:  # why: the claim and its counterexample (or the solver's answer)
        summary += f" ({failed[0].claim}: {failed[0]})"
    bits, target = src.bits, ctx.target
    if conv.kind == "shared memory" and target is None:
        summary += f"; swizzle not costed: {ctx.no_bank_model}"
    elif conv.kind == "shared memory" and status is Status.PROVED and bits and target:
        cost, detail, certified = _swizzle(ctx, conv, src, bits, target, data)
        summary += detail
        if not certified:
            status = Status.UNKNOWN
    elif conv.kind == "warp shuffle" and bits:
        plan = conv.shuffle_plan(bits)
        cost = len(plan.rounds)
        data["shuffle_rounds"] = cost
        summary += f"; {cost} shuffle rounds"
    return status, summary, cost, data


def _swizzle(
    ctx: AuditContext, conv: Any, src: Type, bits: int, target: str, data: dict[str, Any]
) -> tuple[int, str, bool]:
    """Cost a conversion through shared memory with the certified optimal swizzle: its
    wavefronts, the summary's words, and whether the certificate is not unknown (``data``
    gets the swizzle)."""
    from llverify.shared_memory.swizzle import synthesize_swizzle

    result = synthesize_swizzle(
        conv.src, conv.dst, list(src.shape), bits, target, timeout_s=ctx.timeout_s
    )
    c = result.cost
    data["swizzle"] = {
        "store_vector_bits": c.vector_bits[0],
        "load_vector_bits": c.vector_bits[1],
        "store_conflicts": c.store_conflicts,
        "load_conflicts": c.load_conflicts,
        "wavefronts": c.total_wavefronts,
        "certificate": result.certificate.status,
        "offset_bases": result.offset_bases,
    }
    detail = (
        f"; optimal swizzle: {c.vector_bits[0]}/{c.vector_bits[1]}-bit vectors, "
        f"{c.store_conflicts}/{c.load_conflicts} conflicts, {c.total_wavefronts} wavefronts "
        f"(certificate {result.certificate.status})"
    )
    return c.total_wavefronts, detail, result.certificate.status != Status.UNKNOWN


RULES = (
    Rule(
        NAME,
        frozenset({"ttg.convert_layout"}),
        check_conversion,
        "dst(cvt(x)) == src(x) and coverage proved; lowering kind; swizzle or shuffle cost",
    ),
)
