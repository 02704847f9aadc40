"""Audit rule ``module-consistency``: every encoding agrees with its module and its type.

As Triton's verifier does, each distributed encoding's warps, threads per warp and CTAs must
equal the module's ``ttg.num-warps``, ``ttg.threads-per-warp`` (default 32) and
``ttg.num-ctas`` (default 1), and every encoding (distributed or shared) must have the rank
of the tensor or memdesc type it annotates and build for its shape.  A module that breaks
this is refused: the audit reports these errors and proves nothing else (exit 1).

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#b4 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... #b8 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    ...   %1 = ttg.convert_layout %0 : tensor<64x64xf16, #b4> -> tensor<64x64xf16, #b8>
    ... }'''
    >>> report = audit(text)
    >>> report.refused is not None, [(f.rule, str(f.status)) for f in report.findings]
    (True, [('module-consistency', 'error')])
    >>> report.findings[0].summary
    'type 1 (tensor<64x64xf16, #ttg.blocked<...>>): the encoding has 8 warps, the module ttg.num-warps = 4'
"""  # noqa: E501

from __future__ import annotations

from llverify.audit.context import AuditContext, Rule
from llverify.errors import LLVerifyError
from llverify.proof.verdict import Status
from llverify.ttgir import Operation, Type

__all__ = ["NAME", "RULES", "check_consistency"]

NAME = "module-consistency"
#: in-dimension of a distributed layout -> (module attribute, its default when absent)
_COUNTS = {
    "warp": ("ttg.num-warps", None),
    "lane": ("ttg.threads-per-warp", 32),
    "block": ("ttg.num-ctas", 1),
}


def _module_counts(ctx: AuditContext) -> dict[str, int | None]:
    m = ctx.module
    declared = {"warp": m.num_warps, "lane": m.threads_per_warp, "block": m.num_ctas}
    return {
        dim: declared[dim] if declared[dim] is not None else d for dim, (_, d) in _COUNTS.items()
    }


def _short(info: Type) -> str:
    encoding = info.encoding.split("<", 1)[0] + "<...>" if "<" in info.encoding else info.encoding
    dims = "".join(f"{s}x" for s in info.shape)
    if info.kind == "memdesc":
        return f"!ttg.memdesc<{dims}{info.element}, {encoding}>"
    return f"tensor<{dims}{info.element}, {encoding}>"


def _shared_fits(ctx: AuditContext, info: Type) -> None:
    """Build a memdesc's shared layout: on its whole shape, or on its trailing dimensions
    when the leading ones count buffers (a multi-buffered allocation, ``3x128x64``); raise
    the whole shape's error when neither builds."""
    try:
        ctx.shared_layout(info.encoding, info.shape)
    except (LLVerifyError, ValueError, TypeError) as error:
        for rank in range(len(info.shape) - 1, 0, -1):
            try:
                ctx.shared_layout(info.encoding, info.shape[-rank:])
                return
            except (LLVerifyError, ValueError, TypeError):
                continue
        raise error


def _problems(ctx: AuditContext, op: Operation, info: Type) -> list[str]:
    """What is wrong with one annotated type of ``op`` (empty when it is consistent)."""
    try:
        if info.kind == "memdesc":
            _shared_fits(ctx, info)
            return []
        layout = ctx.layout(info)
    except (LLVerifyError, ValueError, TypeError) as error:
        return [f"the encoding does not fit the type: {error}"]
    found = []
    for dim, declared in _module_counts(ctx).items():
        attribute = _COUNTS[dim][0]
        size = layout.get_in_dim_size(dim) if dim in layout.get_in_dim_names() else 1
        if declared is None:
            if dim == "warp":
                found.append(
                    f"the module has no {attribute} to check the encoding's {size} against"
                )
            continue
        if size != declared:
            noun = {"warp": "warps", "lane": "threads per warp", "block": "CTAs"}[dim]
            found.append(f"the encoding has {size} {noun}, the module {attribute} = {declared}")
    return found


def check_consistency(ctx: AuditContext, op: Operation) -> None:
    """Check every encoded type ``op`` mentions against the module and its own shape (an
    op that mentions none, i.e. carries no layout, is not checked)."""
    problems: list[str] = []
    cache = ctx.state.setdefault(NAME, {})  # a type's verdict, once per audit
    carries = False  # op.types holds tensors and memdescs only: carries_layout(op) at the end
    for index, info in enumerate(op.types):
        if info.kind == "tensor" and not info.encoding:
            continue
        carries = True
        key = (info.kind, info.encoding, info.shape)
        found = cache.get(key)
        if found is None:
            found = cache[key] = _problems(ctx, op, info)
        for problem in found:
            problems.append(f"type {index} ({_short(info)}): {problem}")
    if not carries:
        return
    if problems:
        ctx.finding(op, Status.ERROR, "; ".join(problems), rule=NAME, data={"problems": problems})
    else:  # consistent: counted in the coverage report, no row of its own
        ctx.passed(op, NAME)


RULES = (
    Rule(
        NAME,
        frozenset(),  # every operation that carries a layout
        check_consistency,
        "each encoding's warps, threads per warp and CTAs equal the module's; its rank and "
        "shape fit the type",
    ),
)
