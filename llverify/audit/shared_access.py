"""Audit rule ``shared-access``: every register <-> shared-memory access (``local_alloc``
with a value, ``local_store``, ``local_load``) costed exactly, and for a buffer stored from
and loaded to registers the certified optimal shared layout of that pair.

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... #s = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ... #smem = #ttg.shared_memory
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    ...   %1 = ttg.local_alloc %0 : (tensor<64x64xf16, #b>) -> !ttg.memdesc<64x64xf16, #s, #smem>
    ... }'''
    >>> f = audit(text).findings[0]
    >>> f.rule, str(f.status), f.data["access_bits"], f.data["conflicts"]
    ('shared-access', 'ok', 128, 0)
"""  # noqa: E501

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from llverify.audit.context import AuditContext, Rule, Severity
from llverify.bits import counted
from llverify.errors import LLVerifyError
from llverify.proof.verdict import Status
from llverify.ttgir import Operation, Type

if TYPE_CHECKING:
    from llverify.shared_memory.access import AccessAnalysis

__all__ = ["RULES", "buffer_of"]

NAME = "shared-access"
_OPS = frozenset({"ttg.local_alloc", "ttg.local_store", "ttg.local_load"})


def buffer_of(ctx: AuditContext, value: str) -> str:
    """The allocation a memdesc value views (through ``ttg.memdesc_*`` view operations)."""
    seen = set()
    while value not in seen:
        seen.add(value)
        op = ctx.definitions.get(value)
        if op is None or not op.name.startswith("ttg.memdesc") or not op.operands:
            break
        value = op.operands[0]
    return value


def check_access(ctx: AuditContext, op: Operation) -> None:
    """Cost one access: vector width, instructions, conflicts (hardware and Triton's),
    wavefronts, ldmatrix applicability, and Triton's address miscompile when it applies."""
    tensors = [t for t in op.types if t.kind == "tensor"]
    memdescs = [t for t in op.types if t.kind == "memdesc"]
    if op.name == "ttg.local_alloc" and memdescs and not tensors:
        return  # an allocation without a value: no access (not layout-sensitive)
    target = ctx.target
    if target is None:
        ctx.skip(op, NAME, f"not costed: {ctx.no_bank_model}")
        return
    if not tensors or not memdescs:
        ctx.skip(op, NAME, "could not read the tensor and memdesc types")
        return
    if op.name == "ttg.local_load":
        tensor, direction, buffer = tensors[-1], "load", buffer_of(ctx, op.operands[0])
    else:
        value = op.results[0] if op.name == "ttg.local_alloc" else op.operands[-1]
        tensor, direction, buffer = tensors[0], "store", buffer_of(ctx, value)
    memdesc = memdescs[0]
    a, measured = _analysis(ctx, target, tensor, memdesc)
    data = {"direction": direction, "buffer": buffer, **measured}
    status, summary = _verdict(a, direction, ctx.target, data)
    wavefronts, conflicts = a.store_wavefronts, a.bank_conflicts.conflicts
    ctx.finding(op, status, summary, rule=NAME, cost=wavefronts, conflicts=conflicts, data=data)
    books = ctx.state.setdefault(NAME, {"store": {}, "load": {}})
    books[direction].setdefault(buffer, []).append((op, tensor, memdesc))


def _analysis(
    ctx: AuditContext, target: str, tensor: Type, memdesc: Type
) -> tuple[AccessAnalysis, dict[str, Any]]:
    """The access of ``tensor`` to ``memdesc`` (a subslice through its allocation's layout)
    and the finding's data on it: analysed once per audit for each distinct pair of types
    (a module of unrolled steps repeats a few)."""
    known = ctx.state.setdefault(f"{NAME} by types", {})
    key = (target, tensor.text, memdesc.text)
    if key not in known:
        known[key] = _analysed(ctx, target, tensor, memdesc)
    a, data = known[key]
    return a, copy.deepcopy(data)


def _analysed(
    ctx: AuditContext, target: str, tensor: Type, memdesc: Type
) -> tuple[AccessAnalysis, dict[str, Any]]:
    from llverify.shared_memory.access import access_analysis

    if not tensor.bits:
        raise LLVerifyError(f"unknown element type {tensor.element!r}")
    shape = list(tensor.shape)
    alloc = memdesc.alloc_shape[len(memdesc.alloc_shape) - len(shape) :]
    if alloc == tensor.shape:
        shared = ctx.shared_layout(memdesc.encoding, tensor.shape)
        a = access_analysis(ctx.layout(tensor), shared, shape, tensor.bits, target)
        mask, rows = 0, None
    else:  # a subslice: the allocation's layout, at the view's offsets (view-layout)
        a, mask, rows = _subslice_access(ctx, target, tensor, memdesc, alloc, tensor.bits)
    bank = a.bank_conflicts
    data: dict[str, Any] = {
        "access_bits": a.access_bits,
        "instructions": a.instructions,
        "conflicts": bank.conflicts,
        "triton_conflicts": bank.triton,
        "differs_from_triton": bank.differs,
        "wavefronts": a.store_wavefronts,
        "ldmatrix": a.ldmatrix,
        "ldmatrix_trans": a.ldmatrix_trans,
    }
    if mask:
        data["subslice"] = {"alloc_shape": list(alloc), "offset_mask": mask}
        if rows is not None:
            data["subslice"]["ldmatrix_rows"] = rows
    return a, data


def _verdict(
    a: AccessAnalysis, direction: str, target: str | None, data: dict[str, Any]
) -> tuple[Status | Severity, str]:
    """The status and summary of an access: a warning for conflicts, an error for Triton's
    address miscompile (``data`` gets it)."""
    bank = a.bank_conflicts
    summary = (
        f"{direction} {a.access_bits}-bit x {a.instructions}, "
        f"{counted(bank.conflicts, 'conflict')}"
        + ("" if bank.triton is None else f" (Triton {bank.triton})")
        + f", {a.store_wavefronts} wavefronts"
    )
    if bank.differs:
        summary += f"; hardware differs from Triton: {bank.reason}"
    status: Status | Severity = Severity.WARNING if bank.conflicts else Severity.OK
    if a.triton_miscompile is not None:
        data["triton_miscompile"] = a.triton_miscompile
        summary += (
            f"; Triton's ld/st lowering computes a wrong address here (inputs "
            f"{a.triton_miscompile}: an added register stride carries into an XOR-applied "
            "one; llverify.shared_memory.lowering)"
        )
        status = Status.ERROR
    if direction == "load" and (a.ldmatrix or a.ldmatrix_trans) and target == "nvidia":
        summary += "; ldmatrix" + (".trans" if not a.ldmatrix else "") + " applies"
    rows = data.get("subslice", {}).get("ldmatrix_rows", {})
    if rows.get("ldmatrix_refused") and target == "nvidia":
        summary += (
            f"; ldmatrix/stmatrix refused: the subslice may set offset bits "
            f"{rows['touched_bits']:#x} inside a {rows['row_elements']}-element row"
        )
    return status, summary


def _subslice_access(
    ctx: AuditContext,
    target: str,
    tensor: Type,
    memdesc: Type,
    alloc: tuple[int, ...],
    bits: int,
) -> tuple[AccessAnalysis, int, dict[str, Any] | None]:
    """The access of a subslice view: the conversion to the allocation's shared layout
    (Triton's ``toLinearLayout`` of the memdesc), whose offset Triton XORs with the view's
    constant one (which changes no bank, word or wavefront: llverify.shared_memory.offsets;
    Triton's additive strides avoid the offset bits the view may set, so its address
    miscompile is re-checked with them), ldmatrix/stmatrix only when the offset bits the
    view may set (``subslice_mask``) leave every 16-byte row whole (``lowerLdStMatrix``,
    :class:`~llverify.shared_memory.offsets.RowRule`), and that rule's record (None outside
    8 to 32-bit elements)."""
    from dataclasses import replace

    from llverify.audit.memdesc_views import subslice_mask
    from llverify.hardware import resolve_target
    from llverify.shared_memory.access import analyse_access
    from llverify.shared_memory.offsets import RowRule

    shared = ctx.shared_layout(memdesc.encoding, alloc)
    a = analyse_access(ctx.layout(tensor), shared, bits, resolve_target(target))
    mask = subslice_mask(ctx, memdesc)
    if bits >= 8:  # Triton keeps the strides that meet the mask XOR-applied
        from llverify.shared_memory.lowering import lowering_of

        model = lowering_of(a.conversion, a.elems_per_vec, bits, mask=mask)
        a = replace(a, triton_miscompile=model.carry_counterexample())
    if bits not in (8, 16, 32):
        if mask & (max(1, 128 // bits) - 1):
            a = replace(a, ldmatrix=False, ldmatrix_trans=False)
        return a, mask, None
    rule = RowRule(mask, bits)
    rows: dict[str, Any] = {
        "row_elements": rule.row_elements,
        "touched_bits": rule.touched,
        "legal": rule.legal,
        "triton_before_10066": rule.triton_before_10066,
    }
    if not rule.legal:
        rows["ldmatrix_refused"] = a.ldmatrix or a.ldmatrix_trans
        a = replace(a, ldmatrix=False, ldmatrix_trans=False)
    return a, mask, rows


Books = dict[str, dict[str, list[tuple[Operation, Type, Type]]]]


def pair_buffers(ctx: AuditContext) -> None:
    """A buffer stored from and loaded to registers: the certified optimal layout for
    that pair, and the saving against the current one."""
    target = ctx.target
    if target is None:
        return  # no bank model: the accesses were not costed either
    books: Books = ctx.state.get(NAME, {"store": {}, "load": {}})
    for buffer, stores in books["store"].items():
        loads = books["load"].get(buffer)
        if not loads:
            continue  # read by an MMA instruction from shared memory: its layout is fixed
        if any(t.encoding_name == "ttg.dot_op" for _, t, _ in loads):
            continue  # a dot operand: Triton loads it with ldmatrix or MMA-specific code
        (store_op, s_tensor, _), (load_op, l_tensor, _) = stores[0], loads[0]
        bits = s_tensor.bits
        if s_tensor.shape != l_tensor.shape or not bits:
            continue
        mine = [
            f
            for f in ctx.findings
            if f.rule == NAME
            and f.data.get("buffer") == buffer
            and f.line in (store_op.line, load_op.line)
        ]
        _better_layout(ctx, target, (s_tensor, l_tensor), bits, mine)


def _better_layout(
    ctx: AuditContext, target: str, pair: tuple[Type, Type], bits: int, mine: list[Any]
) -> None:
    """Synthesize the optimal layout for a buffer stored from and loaded to ``pair``; its
    findings ``mine`` get it, and the saving when it beats theirs."""
    from llverify.shared_memory.swizzle import synthesize_swizzle

    stored, loaded = pair
    current = sum(f.cost for f in mine)
    result = synthesize_swizzle(
        ctx.layout(stored),
        ctx.layout(loaded),
        list(stored.shape),
        bits,
        target,
        timeout_s=ctx.timeout_s,
    )
    best = result.cost.total_wavefronts
    for f in mine:
        f.data["better_layout"] = {
            "current_wavefronts": current,
            "optimal_wavefronts": best,
            "saving": max(0, current - best),
            "certificate": result.certificate.status,
            "offset_bases": result.offset_bases,
            "store_vector_bits": result.cost.vector_bits[0],
            "load_vector_bits": result.cost.vector_bits[1],
        }
        if best < current:
            f.summary += (
                f"; a certified better shared layout saves {current - best} of "
                f"{current} wavefronts (store+load)"
            )


RULES = (
    Rule(
        NAME,
        _OPS,
        check_access,
        "vector width, instructions, bank conflicts and wavefronts of each shared access; "
        "the certified optimal layout of a stored-and-loaded buffer",
        finish=pair_buffers,
    ),
)
