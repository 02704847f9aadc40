"""Audit rule ``async-copy``: the vector width Triton 3.9 picks for each
``ttg.async_copy_global_to_local`` (cp.async on NVIDIA, direct-to-LDS loads on AMD), the
copies per thread, and the cost of their shared-memory writes.

How Triton 3.9 chooses the width (NVIDIA: ``AsyncCopyGlobalToLocalOpConversion`` in
third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/LoadStoreOpToLLVM.cpp; checked against the PTX
Triton 3.9 emits, tests/test_audit_async_copy.py):

* ``maxVec = max(min(contiguity(ptr), maskAlignment(mask)), contiguity attribute)``, capped
  at 128 bits; the first two come from Triton's axis analysis, which the TTGIR text does not
  record.  With the attribute this rule takes ``maxVec`` = the attribute (the pipeliner's
  proof; Triton's analysis may prove more), without it the 128-bit cap (the widest the
  analysis could prove); ``width_exact`` in the finding's data says whether the text settles
  the width (the narrowest and widest choices agree).
* ``maxVec`` below 4 bytes: Triton refuses the op ("cp.async does not support transfers
  smaller than 4 bytes").
* the width is the largest ``v <= maxVec`` with ``identity(v): register -> offset`` a left
  factor of ``pointer layout o shared layout^-1`` (``largestVectorisation`` with a cap: no
  register permutation), through ``lowerLdSt``.  A width below 4 bytes there (the layout
  allows less than ``maxVec``) makes Triton 3.9 abort on the assertion
  ``nBytes == 16 || nBytes == 8 || nBytes == 4``.  16-byte copies are ``cp.async.cg``, 4-
  and 8-byte ones ``cp.async.ca``.

AMD (``AsyncCopyGlobalToLocalOpConversion`` in third_party/amd/lib/TritonAMDGPUToLLVM/
LoadStoreOpToLLVM.cpp, checked on gfx950): the width is the shared layout's contiguity
(the same largest vectorisation); a smaller ``maxVec`` is refused (strided LDS writes), and
so is a width the target has no direct-to-LDS load for (gfx942: 8/16/32 bits; gfx950 adds
96 and 128).  That each warp writes one contiguous LDS range is not checked here.

The writes are costed at that width exactly (every lane address, :mod:`~llverify.shared_memory.access`'s
bank model): instructions, bank conflicts per wavefront, wavefronts (the cost).

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... #s = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ... #smem = #ttg.shared_memory
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
    ...   %t = ttg.async_copy_global_to_local %p, %m {contiguity = 8 : i32} : tensor<64x64x!tt.ptr<f16>, #b> -> <64x64xf16, #s, #smem, mutable>
    ... }'''
    >>> f = audit(text).findings[0]
    >>> f.rule, str(f.status), f.data["vector_bytes"], f.data["copies_per_thread"], f.data["conflicts"]
    ('async-copy', 'ok', 16, 4, 0)
"""  # noqa: E501

from __future__ import annotations

from typing import Any

from llverify.audit.context import AuditContext, Rule, Severity
from llverify.bits import counted
from llverify.proof.verdict import Status
from llverify.ttgir import Operation, Type

__all__ = ["RULES", "copy_width"]

NAME = "async-copy"
_OPS = frozenset({"ttg.async_copy_global_to_local"})
#: direct-to-LDS load widths (bits) per AMD target (global_load_lds_{ubyte,ushort,dword} on
#: CDNA3; CDNA4 adds dwordx3 and dwordx4)
_AMD_BITS = {"gfx942": (8, 16, 32), "gfx950": (8, 16, 32, 96, 128)}


def copy_width(
    cvt: Any, bits: int, contiguity: int | None, max_vector: int | None = None
) -> dict[str, Any]:
    """Triton 3.9's ``maxVec`` and width (elements) for an async copy whose
    ``register -> offset`` map is ``cvt``, and the widest the layout allows.

    ``contiguity``: the op's attribute (None when absent); ``max_vector``: a padded shared
    layout's physically contiguous and aligned run (None for linear layouts).

    >>> from llverify import LinearLayout
    >>> cvt = LinearLayout.from_bases([("register", [[1], [2], [4]]),
    ...     ("lane", [[8], [16], [32], [64], [128]])], ["offset"])
    >>> copy_width(cvt, 16, 2)
    {'max_vec': 2, 'vec': 2, 'layout_vec': 8, 'exact': False}
    """
    cap = 128 // bits
    max_vec = cap if contiguity is None else max(1, min(contiguity, cap))
    found = _vectorisations(cvt, bits, (cap, max_vec, min(max_vec, contiguity or 1)))
    layout_vec, vec, least = found[cap], found[max_vec], found[min(max_vec, contiguity or 1)]
    if max_vector is not None:
        layout_vec, vec, least = (min(v, max_vector) for v in (layout_vec, vec, least))
    return {"max_vec": max_vec, "vec": vec, "layout_vec": layout_vec, "exact": least == layout_vec}


def _vectorisations(cvt: Any, bits: int, caps: tuple[int, ...]) -> dict[int, int]:
    """``largest_vectorisation(cvt, bits, cap)[0]`` for each of ``caps``, searched once per
    distinct cap, widest first.  Its search tries ``cap``, ``cap / 2``, ... and stops at
    the first that divides: when a cap ``c`` is a wider one ``w`` halved some times and
    ``w``'s answer ``v`` is at most ``c``, every width the search from ``c`` tries before
    ``v`` failed in ``w``'s search, so ``c``'s answer is ``v`` too.

    >>> from llverify import LinearLayout
    >>> cvt = LinearLayout.from_bases([("register", [[1], [2], [8]]), ("lane", [[4]])],
    ...                               ["offset"])
    >>> _vectorisations(cvt, 16, (8, 8, 1))
    {8: 4, 1: 1}
    """
    from llverify.layout_utils import largest_vectorisation

    found: dict[int, int] = {}
    for cap in sorted(set(caps), reverse=True):
        for wider, v in found.items():
            halvings = wider // cap if cap > 0 and wider % cap == 0 else 0
            if v <= cap and halvings & (halvings - 1) == 0 and halvings:
                found[cap] = v
                break
        else:
            found[cap] = largest_vectorisation(cvt, bits, cap)[0]
    return found


def _conversion(reg: Any, shared: Any) -> tuple[Any, Any, int | None]:
    """``(register, lane, warp) -> offset`` without register permutation, the physical
    address table of a padded layout (else None) and its contiguous run."""
    from llverify.encodings.padded import PaddedLayout
    from llverify.errors import LayoutError
    from llverify.layout_utils import action_remove_broadcasted_regs

    table, run = None, None
    if isinstance(shared, PaddedLayout):
        table, run = shared.physical_table(), shared.max_vector
        linear = shared.linear
        shared = linear.sublayout(["offset"], linear.get_out_dim_names())
    reg = action_remove_broadcasted_regs(reg).apply(reg)
    cvt = reg.invert_and_compose(shared)
    if cvt.has_in_dim("block") and cvt.get_in_dim_size("block") > 1:
        raise LayoutError("async copies across CTAs: Triton rejects a non-trivial block dim")
    ins = [d for d in ("register", "lane", "warp") if cvt.has_in_dim(d)]
    return cvt.sublayout(ins, ["offset"]), table, run


def _refusal(target: str, width: dict[str, Any], bits: int) -> str | None:
    """Why Triton 3.9 cannot lower the copy at this width, or None."""
    if target == "nvidia":
        if width["max_vec"] * bits < 32:
            return (
                f"Triton 3.9 refuses it: 'cp.async does not support transfers smaller than 4 "
                f"bytes; calculated this as {width['max_vec'] * bits // 8} bytes' (maxVec = "
                f"{width['max_vec']} from the contiguity)"
            )
        if width["vec"] * bits < 32:
            return (
                f"the pointer -> shared mapping allows {width['vec']} element(s) "
                f"({width['vec'] * bits // 8} bytes) per copy, below cp.async's 4: Triton 3.9 "
                "aborts on its assertion nBytes == 16 || nBytes == 8 || nBytes == 4"
            )
        return None
    if min(width["max_vec"], width["layout_vec"]) < width["layout_vec"]:
        return (
            f"Triton 3.9 refuses it: the global vectorization ({width['max_vec']}) is "
            f"smaller than the shared memory contiguity ({width['layout_vec']}): strided LDS "
            "writes"
        )
    if width["layout_vec"] * bits not in _AMD_BITS.get(target, ()):
        return (
            f"Triton 3.9 refuses it: no {width['layout_vec'] * bits}-bit direct-to-LDS load "
            f"on {target}"
        )
    return None


def check_async_copy(ctx: AuditContext, op: Operation) -> None:
    """The width Triton picks, the copies per thread, and the shared writes' cost (worked
    out once per distinct operation signature in an audit; an op whose
    :attr:`~llverify.ttgir.Operation.pattern` an earlier op had gets that op's outcome
    without reading its attributes)."""
    cache = ctx.state.setdefault(NAME, {})
    pattern = op.pattern
    outcome = None if pattern is None else cache.get(pattern)
    if outcome is None:
        key = (
            tuple((t.kind, t.encoding, t.shape, t.element) for t in op.types),
            op.attributes.get("contiguity"),
        )
        if key not in cache:
            cache[key] = _outcome(ctx, op)
        outcome = cache[key]
        if pattern is not None:
            cache[pattern] = outcome
    if isinstance(outcome, str):
        ctx.skip(op, NAME, outcome)
        return
    status, summary, cost, conflicts, data = outcome
    ctx.finding(op, status, summary, rule=NAME, cost=cost, conflicts=conflicts, data=dict(data))


Outcome = tuple[Status | Severity, str, int, int, dict[str, Any]]


def _outcome(ctx: AuditContext, op: Operation) -> str | Outcome:
    """Why ``op`` is not checked, or its finding (status, summary, cost, conflicts, data)."""
    operands = _operands(ctx, op)
    if isinstance(operands, str):
        return operands
    tensor, memdesc, bits, target = operands
    contiguity = op.attributes.integer("contiguity")
    shared = ctx.shared_layout(memdesc.encoding, tensor.shape)
    cvt, table, run = _conversion(ctx.layout(tensor), shared)
    width = copy_width(cvt, bits, contiguity, run)
    vec = width["vec"] if target == "nvidia" else width["layout_vec"]
    data: dict[str, Any] = {
        "contiguity": contiguity,
        "max_vec": width["max_vec"],
        "layout_vec": width["layout_vec"],
        "width_exact": width["exact"],
        "vector_elems": vec,
        "vector_bytes": vec * bits // 8,
    }
    refusal = _refusal(target, width, bits)
    if refusal is not None:
        return Status.ERROR, refusal, 0, 0, data
    count = _cost(cvt, vec, bits, target, table, data)
    return _summary(target, vec, bits, width, contiguity, count, data)


def _operands(ctx: AuditContext, op: Operation) -> str | tuple[Type, Type, int, str]:
    """The pointer tensor, the destination memdesc, its element bits and the bank model's
    target, or why the copy is not costed."""
    tensors = [t for t in op.types if t.kind == "tensor"]
    memdescs = [t for t in op.types if t.kind == "memdesc"]
    if not tensors or not memdescs:
        return "could not read the pointer tensor and memdesc types"
    target = ctx.target
    if target is None:
        return f"not costed: {ctx.no_bank_model}"
    tensor, memdesc = tensors[0], memdescs[0]
    alloc = memdesc.alloc_shape[len(memdesc.alloc_shape) - len(tensor.shape) :]
    if alloc != tensor.shape or not memdesc.bits:
        return "the destination is a subslice view or has no element width"
    return tensor, memdesc, memdesc.bits, target


def _cost(cvt: Any, vec: int, bits: int, target: str, table: Any, data: dict[str, Any]) -> Any:
    """The bank conflicts of the copies' shared writes at width ``vec``; ``data`` gets the
    copies per thread, instructions, passes, conflicts and wavefronts."""
    from llverify.hardware import resolve_target
    from llverify.shared_memory.access import simulate_bank_conflicts
    from llverify.shared_memory.wavefronts import pass_count

    tgt = resolve_target(target)
    count = simulate_bank_conflicts(cvt, vec, bits, tgt, address_map=table)
    per_thread = cvt.get_in_dim_size("register") // vec
    words = max(1, -(-vec * bits // 32))
    warps = cvt.get_in_dim_size("warp") if cvt.has_in_dim("warp") else 1
    data.update(
        copies_per_thread=per_thread,
        instructions=per_thread * warps,
        passes=pass_count(tgt.lanes, tgt.pass_lanes(words)),
        conflicts=count.conflicts,
        wavefronts=count.wavefronts,
    )
    return count


def _summary(
    target: str,
    vec: int,
    bits: int,
    width: dict[str, Any],
    contiguity: int | None,
    count: Any,
    data: dict[str, Any],
) -> Outcome:
    """The finding of a copy Triton lowers: a warning for conflicts or a capped width."""
    kind = "cp.async." + ("cg" if vec * bits == 128 else "ca") if target == "nvidia" else ""
    summary = (
        f"{kind or 'direct-to-LDS'} {vec * bits // 8} bytes x {data['copies_per_thread']} per "
        f"thread, {counted(count.conflicts, 'conflict')}, {count.wavefronts} wavefronts"
    )
    status: Severity = Severity.WARNING if count.conflicts else Severity.OK
    if vec < width["layout_vec"]:
        status = Severity.WARNING
        summary += (
            f"; the layout allows {width['layout_vec'] * bits // 8} bytes but the contiguity "
            f"attribute ({contiguity}) caps the copy at {width['max_vec'] * bits // 8}"
        )
    if contiguity is None and not width["exact"]:
        summary += (
            "; no contiguity attribute: the width assumes Triton's axis analysis proves the "
            "pointer and mask contiguous over it"
        )
    return status, summary, count.wavefronts, count.conflicts, data


RULES = (
    Rule(
        NAME,
        _OPS,
        check_async_copy,
        "the vector width Triton picks for each async global-to-shared copy (or why it "
        "refuses it), the copies per thread and the shared writes' conflicts and wavefronts",
    ),
)
