"""Audit rule ``gather-warp-local``: the path Triton 3.9 lowers a ``tt.gather`` with (warp
shuffles or shared memory), decided by its warp-local precondition on the layouts, and the
shuffles it emits.

Triton 3.9's ``GatherLoweringHelper::isWarpLocal`` (lib/Analysis/Utility.cpp) takes the
shuffle path when, with ``dimA`` the gather axis and ``cols`` the other dims,

1. no block or warp basis of the source or the index layout moves along ``dimA`` (a zero
   basis, i.e. broadcast, does not move);
2. the block and warp bases map to the same ``cols`` in both layouts;
3. the lane bases map to the same ``cols`` in both layouts.

Otherwise it writes the whole source tensor to shared memory, synchronises the CTA and reads
the gathered elements back (``emitGatherInShared`` in
lib/Conversion/TritonGPUToLLVM/GatherOpToLLVM.cpp).  The shuffle path
(``emitWarpLocalGather``) emits, for each index register, one index shuffle per source
register of its column: ``K`` shuffles per index register, ``K`` being 2 to the number of
source register bits the pseudo-inverse of the source layout sends along ``dimA``.  Index
registers that are copies (free register bits) emit identical shuffles, which LLVM merges;
an element wider than 32 bits takes one shuffle per 32-bit word.  Checked against Triton
3.9's emitted LLVM IR (``shfl.sync.idx`` calls) on nine layouts, f16/f32/f64/i8.

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
    ...   %2 = tt.gather %0[%1] {axis = 0 : i32, efficient_layout} : (tensor<32x64xf32, #b>, tensor<32x64xi32, #b>) -> tensor<32x64xf32, #b>
    ... }'''
    >>> f = audit(text).findings[0]
    >>> f.rule, str(f.status), f.data["path"], f.data["shuffles"]
    ('gather-warp-local', 'proved', 'warp shuffles', 16)
"""  # noqa: E501

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llverify.audit.context import AuditContext, Rule, Severity
from llverify.errors import LLVerifyError
from llverify.layout import LinearLayout
from llverify.proof.verdict import Status
from llverify.ttgir import Operation

__all__ = ["RULES", "GatherPath", "gather_path"]

NAME = "gather-warp-local"


@dataclass(frozen=True)
class GatherPath:
    """How Triton 3.9 lowers one gather.

    ``warp_local``: the shuffle path is taken.  Else ``broken`` says which condition fails
    and ``counterexample`` names the basis: ``{"tensor": "src" | "idx" | "src vs idx",
    "dim": in dim, "basis": bit index, ...}`` with the values replayed from the layouts.
    ``index_registers``: distinct index registers per thread (copies removed);
    ``registers_per_column``: source registers per thread of one gather column (``K``).
    """

    warp_local: bool
    broken: str
    counterexample: dict[str, Any] | None
    index_registers: int
    registers_per_column: int

    def shuffles(self, bits: int) -> int:
        """Index shuffles per thread on the warp-local path for ``bits``-wide elements (0 on
        the shared-memory path).

        >>> GatherPath(True, "", None, 16, 2).shuffles(64)
        64
        """
        if not self.warp_local:
            return 0
        return self.index_registers * self.registers_per_column * max(1, -(-bits // 32))


def _dims(layout: LinearLayout, names: tuple[str, ...]) -> list[str]:
    return [d for d in names if layout.has_in_dim(d)]


def _moving_basis(layout: LinearLayout, dims: list[str], axis: str) -> tuple[str, int] | None:
    """The first (dim, bit) among ``dims`` whose basis moves along ``axis``."""
    index = layout.get_out_dim_index(axis)
    for dim in dims:
        for bit in range(layout.get_in_dim_size_log2(dim)):
            if layout.get_basis(dim, bit)[index]:
                return dim, bit
    return None


def _differing_basis(
    src: LinearLayout, idx: LinearLayout, dims: list[str], cols: list[str]
) -> tuple[str, int, dict[str, int], dict[str, int]] | None:
    """The first (dim, bit) whose basis maps to different ``cols`` in src and idx."""
    for dim in dims:
        for bit in range(min(src.get_in_dim_size_log2(dim), idx.get_in_dim_size_log2(dim))):
            a = _column(src, dim, 1 << bit, cols)
            b = _column(idx, dim, 1 << bit, cols)
            if a != b:
                return dim, bit, a, b
    return None


def _column(layout: LinearLayout, dim: str, value: int, cols: list[str]) -> dict[str, int]:
    """Replay: the ``cols`` coordinates of the element at input ``dim = value``."""
    ins = {d: 0 for d in layout.get_in_dim_names()}
    ins[dim] = value
    out = layout.apply(ins)
    return {c: out[c] for c in cols}


def gather_path(src: LinearLayout, idx: LinearLayout, axis: int) -> GatherPath:
    """Which path Triton 3.9 takes for a gather along ``axis`` of ``src`` by ``idx``.

    >>> from llverify.encodings import to_linear_layout
    >>> enc = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], order = [0, 1]}>"
    >>> p = gather_path(to_linear_layout(enc, [64, 64]), to_linear_layout(enc, [64, 64]), 0)
    >>> p.warp_local, p.counterexample
    (False, {'tensor': 'src', 'dim': 'warp', 'basis': 0, 'value': {'dim0': 32, 'dim1': 0}})
    """  # noqa: E501
    for name, layout in (("src", src), ("idx", idx)):
        if not isinstance(layout, LinearLayout):
            raise TypeError(f"{name}: expected a LinearLayout, got {type(layout).__name__}")
    outs = src.get_out_dim_names()
    if not isinstance(axis, int) or not 0 <= axis < len(outs):
        raise ValueError(f"axis: expected an int in [0, {len(outs)}), got {axis!r}")
    if idx.get_out_dim_names() != outs:
        raise ValueError(f"idx: expected the out dims of src {outs}, got {idx.get_out_dim_names()}")
    gather_dim = outs[axis]
    cols = [d for d in outs if d != gather_dim]
    broken, counterexample = _moving_warps(src, idx, gather_dim)
    if counterexample is None:
        broken, counterexample = _different_columns(src, idx, cols)
    index_registers = (
        idx.get_in_dim_size("register")
        >> idx.get_free_variable_masks().get("register", 0).bit_count()
    )
    per_column = 1
    if counterexample is None:
        # as emitWarpLocalGather: the source registers of one column are the nonzero bases
        # of the pseudo-inverse's register part along the gather dim
        inverse = src.pseudoinvert().sublayout(outs, ["register"])
        per_column = inverse.remove_zero_bases_along_dim(gather_dim).get_in_dim_size(gather_dim)
    return GatherPath(counterexample is None, broken, counterexample, index_registers, per_column)


def _moving_warps(
    src: LinearLayout, idx: LinearLayout, gather_dim: str
) -> tuple[str, dict[str, Any] | None]:
    """Condition 1: the first block or warp basis of src, then of idx, that moves along the
    gather dim ("" and None when none does)."""
    for name, layout in (("src", src), ("idx", idx)):
        moving = _moving_basis(layout, _dims(layout, ("block", "warp")), gather_dim)
        if moving is not None:
            dim, bit = moving
            value = layout.apply({**{d: 0 for d in layout.get_in_dim_names()}, dim: 1 << bit})
            broken = f"{name}'s {dim} basis {bit} moves along {gather_dim}: {value}"
            return broken, {"tensor": name, "dim": dim, "basis": bit, "value": value}
    return "", None


def _different_columns(
    src: LinearLayout, idx: LinearLayout, cols: list[str]
) -> tuple[str, dict[str, Any] | None]:
    """Conditions 2 and 3: the block/warp bases, then the lane bases, reach the same
    columns in src and idx ("" and None when they do)."""
    checks = (("block/warp", _dims(src, ("block", "warp"))), ("lane", _dims(src, ("lane",))))
    for what, dims in checks:
        same_sizes = all(
            idx.has_in_dim(d) and idx.get_in_dim_size(d) == src.get_in_dim_size(d) for d in dims
        )
        if not same_sizes:
            return f"src and idx have different {what} sizes", {"tensor": "src vs idx", "dim": what}
        if src.sublayout(dims, cols) == idx.sublayout(dims, cols):
            continue
        differing = _differing_basis(src, idx, dims, cols)
        if differing is None:  # equal bases but different out sizes of the columns
            broken = f"src and idx {what} sublayouts differ in their column sizes"
            return broken, {"tensor": "src vs idx", "dim": what}
        dim, bit, a, b = differing
        broken = f"{dim} basis {bit} reaches column {a} in src but {b} in idx"
        return broken, {"tensor": "src vs idx", "dim": dim, "basis": bit, "src": a, "idx": b}
    return "", None


def check_gather(ctx: AuditContext, op: Operation) -> None:
    """Decide Triton 3.9's lowering path for ``op``; name the basis that breaks warp-locality."""
    tensors = [t for t in op.types if t.kind == "tensor" and t.encoding]
    axis = op.attributes.integer("axis")
    if len(tensors) < 2 or axis is None or axis < 0:
        ctx.skip(op, NAME, "could not read the source and index types and the axis")
        return
    src, idx = tensors[0], tensors[1]
    if axis >= len(src.shape):
        raise LLVerifyError(f"axis {axis} is out of range for the source shape {src.shape}")
    path = gather_path(ctx.layout(src), ctx.layout(idx), axis)
    marked = op.flag("efficient_layout")
    data: dict[str, Any] = {
        "axis": axis,
        "efficient_layout": marked,
        "index_registers": path.index_registers,
    }
    if path.warp_local:
        shuffles = path.shuffles(src.bits or 32)
        data.update(
            path="warp shuffles", registers_per_column=path.registers_per_column, shuffles=shuffles
        )
        summary = (
            f"warp-local (proved over every basis of src and idx): Triton 3.9 lowers it with "
            f"{shuffles} index shuffles per thread ({path.index_registers} index registers x "
            f"{path.registers_per_column} source registers per column), no shared memory"
        )
        ctx.finding(op, Status.PROVED, summary, rule=NAME, cost=shuffles, data=data)
        return
    scratch = -(-(src.bits or 32) // 8) * _product(src.shape)
    data.update(path="shared memory", scratch_bytes=scratch, counterexample=path.counterexample)
    summary = (
        f"not warp-local{' although marked efficient_layout' if marked else ''}: "
        f"{path.broken}; Triton 3.9 writes the whole source ({scratch} bytes) to shared "
        "memory and synchronises the CTA instead of shuffling"
    )
    ctx.finding(op, Severity.WARNING, summary, rule=NAME, data=data)


def _product(shape: tuple[int, ...]) -> int:
    total = 1
    for size in shape:
        total *= size
    return total


RULES = (
    Rule(
        NAME,
        frozenset({"tt.gather"}),
        check_gather,
        "tt.gather: Triton's warp-local precondition, its lowering path and shuffle count",
    ),
)
