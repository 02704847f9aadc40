"""Blocked, Slice, Linear and DotOperand encodings (Triton's LinearLayoutConversions.cpp).

Parent encodings of a DotOperand (Blocked here; NVIDIA MMA and AMD MFMA/WMMA in their own
modules) implement ``dot_operand_layout(operand_index, k_width, shape)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from llverify.bits import is_power_of_2
from llverify.encodings.base import (
    Encoding,
    EncodingError,
    bases_list,
    bases_text,
    cga_from_split_params,
    cga_linear_layout,
    check_shape,
    combine_cta_cga_with_shape,
    dot_operand_cga_layout,
    int_list,
    list_text,
    require_permutation,
    require_powers_of_2,
    require_same_rank,
)
from llverify.encodings.builder import LayoutBuilder, NotCoveredError, cga_builder, slice_layout
from llverify.encodings.ttgir import register
from llverify.errors import LayoutError, LayoutTypeError, shown
from llverify.layout import LinearLayout
from llverify.layout_utils import (
    ensure_layout_not_larger_than,
    ensure_layout_not_smaller_than,
    identity_standard_nd,
    remove_standard_dim,
    standard_out_dim_names,
)


def broadcasted_dot_operand_layout(
    shape: Sequence[int], order: Sequence[int], k_dim: int, in_dim: str
) -> LinearLayout:
    """Identity along every dim but ``k_dim``, which is broadcast (zeros), in ``order``.

    Examples:
        >>> broadcasted_dot_operand_layout([2, 2], [1, 0], 1, "warp").bases
        [('warp', [[0, 0], [0, 1]])]
    """
    names = standard_out_dim_names(len(shape))
    layout = LinearLayout.empty()
    for d in order:
        if d == k_dim:
            layout = layout * LinearLayout.zeros_1d(shape[d], in_dim, names[d])
        else:
            layout = layout * LinearLayout.identity_1d(shape[d], in_dim, names[d])
    return layout


def permute_dim_names(order: Sequence[int]) -> list[str]:
    """``[dim{order[0]}, dim{order[1]}, ...]``."""
    return [f"dim{d}" for d in order]


@dataclass(frozen=True)
class BlockedLayout(Encoding):
    """``#ttg.blocked``: each thread holds a block of ``size_per_thread`` elements.

    Examples:
        >>> enc = BlockedLayout([1, 4], [8, 4], [2, 1], [1, 0])
        >>> enc.to_linear_layout([16, 16]).bases[:2]
        [('register', [[0, 1], [0, 2]]), ('lane', [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]])]
    """

    size_per_thread: Sequence[int]
    threads_per_warp: Sequence[int]
    warps_per_cta: Sequence[int]
    order: Sequence[int]
    cga_layout: Sequence[Sequence[int]] = field(default_factory=tuple)

    mnemonic = "blocked"

    def __post_init__(self) -> None:
        name = "BlockedLayout"
        spt = int_list(self.size_per_thread, "size_per_thread", name)
        tpw = int_list(self.threads_per_warp, "threads_per_warp", name)
        wpc = int_list(self.warps_per_cta, "warps_per_cta", name)
        order = int_list(self.order, "order", name)
        cga = bases_list(self.cga_layout, "cga_layout", name)
        rank = require_same_rank(
            name, size_per_thread=spt, threads_per_warp=tpw, warps_per_cta=wpc, order=order
        )
        require_powers_of_2(spt, "size_per_thread", name)
        require_powers_of_2(tpw, "threads_per_warp", name)
        require_powers_of_2(wpc, "warps_per_cta", name)
        require_permutation(order, "order", name)
        cga_linear_layout(cga, rank, name)
        for attr, value in (
            ("size_per_thread", spt),
            ("threads_per_warp", tpw),
            ("warps_per_cta", wpc),
            ("order", order),
            ("cga_layout", cga),
        ):
            object.__setattr__(self, attr, value)

    @property
    def rank(self) -> int:
        return len(self.order)

    def cta_layout(self) -> LinearLayout:
        """The layout of one CTA, before fitting to a shape."""
        return (
            identity_standard_nd("register", self.size_per_thread, self.order)
            * identity_standard_nd("lane", self.threads_per_warp, self.order)
            * identity_standard_nd("warp", self.warps_per_cta, self.order)
        )

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        dims = check_shape(shape, self.rank, "BlockedLayout")
        try:
            return self._built(dims)
        except NotCoveredError:
            pass  # the reference path below decides
        cga = cga_linear_layout(self.cga_layout, self.rank, "BlockedLayout")
        # Triton 3.9 drops the register bases that fall outside the shape (lanes and warps
        # broadcast); found by the differential tests.
        return combine_cta_cga_with_shape(self.cta_layout(), cga, dims, broadcast_registers=False)

    def _built(self, dims: Sequence[int]) -> LinearLayout:
        """to_linear_layout's fast path (``LayoutBuilder``), the same steps."""
        builder = LayoutBuilder(self.rank)
        for in_dim, sizes in (
            ("register", self.size_per_thread),
            ("lane", self.threads_per_warp),
            ("warp", self.warps_per_cta),
        ):
            builder.identity_standard(in_dim, sizes, self.order)
        cga = cga_builder(self.cga_layout, self.rank)
        return builder.combine(cga, dims, broadcast_registers=False)

    def dot_operand_layout(
        self, operand_index: int, k_width: int, shape: Sequence[int]
    ) -> LinearLayout:
        """The FMA dot operand: registers cover all of K, lanes and warps broadcast along K."""
        if k_width != 0:
            raise EncodingError(
                "DotOperandLayout: k_width is not supported when the parent is a blocked "
                f"layout (must be 0, not {k_width})."
            )
        rank = self.rank
        if rank < 2:
            raise EncodingError(
                f"DotOperandLayout: the parent must have rank >= 2 (M/N and K), not {rank}."
            )
        dims = check_shape(shape, rank, "DotOperandLayout")
        k_dim = rank - 1 if operand_index == 0 else rank - 2
        try:
            return self._built_dot_operand(k_dim, dims)
        except NotCoveredError:
            pass  # the reference path below decides
        thread_size = list(self.size_per_thread)
        thread_size[k_dim] = dims[k_dim]
        rep_names = permute_dim_names(self.order)
        registers = identity_standard_nd("register", thread_size, self.order)
        lanes = broadcasted_dot_operand_layout(self.threads_per_warp, self.order, k_dim, "lane")
        warps = broadcasted_dot_operand_layout(self.warps_per_cta, self.order, k_dim, "warp")
        cta = (
            registers.transpose_outs(rep_names)
            * lanes.transpose_outs(rep_names)
            * warps.transpose_outs(rep_names)
        )
        cga = dot_operand_cga_layout(self.cga_layout, rank, operand_index, "DotOperandLayout")
        return combine_cta_cga_with_shape(cta, cga, dims)

    def _built_dot_operand(self, k_dim: int, dims: Sequence[int]) -> LinearLayout:
        """dot_operand_layout's fast path (``LayoutBuilder``), the same steps."""
        builder = LayoutBuilder(self.rank)
        for d in self.order:
            builder.identity(dims[d] if d == k_dim else self.size_per_thread[d], "register", d)
        for in_dim, sizes in (("lane", self.threads_per_warp), ("warp", self.warps_per_cta)):
            for d in self.order:
                if d == k_dim:
                    builder.zeros(sizes[d], in_dim, d)
                else:
                    builder.identity(sizes[d], in_dim, d)
        return builder.combine(cga_builder(self.cga_layout, self.rank, k_dim), dims)

    def ttgir(self) -> str:
        text = (
            f"#ttg.blocked<{{sizePerThread = {list_text(self.size_per_thread)}, "
            f"threadsPerWarp = {list_text(self.threads_per_warp)}, "
            f"warpsPerCTA = {list_text(self.warps_per_cta)}, order = {list_text(self.order)}"
        )
        if self.cga_layout:
            text += f", CGALayout = {bases_text(self.cga_layout)}"
        return text + "}>"


@dataclass(frozen=True)
class SliceLayout(Encoding):
    """``#ttg.slice``: the parent layout with dimension ``dim`` removed.

    Examples:
        >>> parent = BlockedLayout([1, 4], [8, 4], [2, 1], [1, 0])
        >>> SliceLayout(1, parent).to_linear_layout([16]).bases[:2]
        [('register', []), ('lane', [[0], [0], [1], [2], [4]])]
    """

    dim: int
    parent: Encoding

    mnemonic = "slice"

    def __post_init__(self) -> None:
        if not isinstance(self.parent, Encoding) or not hasattr(self.parent, "rank"):
            raise LayoutTypeError(
                f"SliceLayout: 'parent' must be a distributed encoding, not {shown(self.parent)}."
            )
        if self.parent.rank < 2:
            raise EncodingError(
                f"SliceLayout: the parent layout must have at least rank >= 2, not "
                f"{self.parent.rank}."
            )
        if not 0 <= int(self.dim) < self.parent.rank:
            raise EncodingError(
                f"SliceLayout: 'dim' must be in [0, {self.parent.rank}) (the parent's rank), "
                f"not {self.dim}."
            )

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        dims = list(check_shape(shape, self.rank, "SliceLayout"))
        parent_shape = dims[: self.dim] + [1] + dims[self.dim :]
        parent = self.parent.to_linear_layout(parent_shape)
        try:
            return slice_layout(parent, self.dim)
        except NotCoveredError:
            pass  # the reference path below decides
        sliced = remove_standard_dim(parent, self.dim)
        bases = [
            (name, [b for b in values if any(b)] if name == "register" else values)
            for name, values in sliced.bases
        ]
        return LinearLayout(bases, sliced.get_out_dim_names(), sliced.get_out_dim_sizes())

    def ttgir(self) -> str:
        return f"#ttg.slice<{{dim = {self.dim}, parent = {self.parent.ttgir()}}}>"


@dataclass(frozen=True)
class DistributedLinearLayout(Encoding):
    """``#ttg.linear``: a distributed layout given by its bases.

    Rule (Triton's verifier): after removing zero (broadcast) bases it is a permutation (each
    basis a distinct power-of-2 unit vector).  At another shape it is grown with register
    bases and shrunk by broadcasting lanes/warps/blocks and dropping registers, as Triton's
    ``LinearEncodingTrait::toLinearLayout`` does.

    Examples:
        >>> enc = DistributedLinearLayout([[0, 1]], [[1, 0]], [], [], [2, 2])
        >>> enc.to_linear_layout([2, 2]).bases
        [('register', [[0, 1]]), ('lane', [[1, 0]]), ('warp', []), ('block', [])]
    """

    reg_bases: Sequence[Sequence[int]]
    lane_bases: Sequence[Sequence[int]]
    warp_bases: Sequence[Sequence[int]]
    block_bases: Sequence[Sequence[int]]
    shape: Sequence[int] | None = None

    mnemonic = "linear"

    def __post_init__(self) -> None:
        name = "DistributedLinearLayout"
        for attr in ("reg_bases", "lane_bases", "warp_bases", "block_bases"):
            object.__setattr__(self, attr, bases_list(getattr(self, attr), attr, name))
        if self.shape is not None:
            object.__setattr__(self, "shape", check_shape(self.shape, None, name))
        lengths = {len(b) for _, values in self._named_bases() for b in values}
        if self.shape is not None:
            lengths.add(len(self.shape))
        if len(lengths) > 1:
            raise EncodingError(
                f"{name}: every basis must have one coordinate per dim (the rank); found "
                f"lengths {sorted(lengths)}."
            )
        seen: set[tuple[int, ...]] = set()
        for in_dim, values in self._named_bases():
            for i, basis in enumerate(values):
                nonzero = [v for v in basis if v]
                if not nonzero:
                    continue
                if len(nonzero) != 1 or not is_power_of_2(nonzero[0]) or tuple(basis) in seen:
                    raise EncodingError(
                        f"{name}: after removing broadcast (zero) bases the layout must be a "
                        f"permutation matrix, but {in_dim} basis {i} = {list(basis)} is not a "
                        f"new power-of-2 unit vector."
                    )
                seen.add(tuple(basis))
        own = self._own_layout()  # without a shape, Triton's constructor (sizes inferred)
        if not own.is_surjective():  # aborts on uncovered bits: refuse them here
            where = "its out dims" if self.shape is None else f"the shape {list(self.shape)}"
            raise EncodingError(f"{name}: the bases must cover {where}.")

    def _named_bases(self) -> list[tuple[str, Sequence[Sequence[int]]]]:
        return [
            ("register", self.reg_bases),
            ("lane", self.lane_bases),
            ("warp", self.warp_bases),
            ("block", self.block_bases),
        ]

    def _own_layout(self, rank: int | None = None) -> LinearLayout:
        """The layout on its own shape (or, without one, the smallest shape it covers)."""
        rank = self.rank if rank is None else rank
        names = standard_out_dim_names(rank)
        bases = [(n, [list(b) for b in v]) for n, v in self._named_bases()]
        try:
            if self.shape is not None:
                return LinearLayout(bases, names, list(self.shape), require_surjective=False)
            return LinearLayout(bases, names)
        except LayoutError as error:
            raise EncodingError(f"DistributedLinearLayout: {error}") from None

    @property
    def rank(self) -> int:
        if self.shape is not None:
            return len(self.shape)
        for _, values in self._named_bases():
            for basis in values:
                return len(basis)
        return 0  # no bases and no shape: any rank, every size 1 (see to_linear_layout)

    def register_order(self, rank: int) -> list[int]:
        """Dims by first appearance in the register bases, then the rest from the last."""
        order: list[int] = []
        for basis in self.reg_bases:
            for d, v in enumerate(basis):
                if v and d not in order:
                    order.append(d)
        return order + [d for d in reversed(range(rank)) if d not in order]

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        rank = self.rank
        dims = check_shape(shape, rank if rank else None, "DistributedLinearLayout")
        layout = self._own_layout(len(dims))
        names = standard_out_dim_names(len(dims))
        order = [names[d] for d in self.register_order(len(dims))]
        target = {names[d]: size for d, size in enumerate(dims)}
        fitted = ensure_layout_not_smaller_than(layout.transpose_outs(order), target)
        fitted = ensure_layout_not_larger_than(fitted, target, broadcast_registers=False)
        return fitted.transpose_outs(names)

    def ttgir(self) -> str:
        return (
            f"#ttg.linear<{{register = {bases_text(self.reg_bases)}, lane = "
            f"{bases_text(self.lane_bases)}, warp = {bases_text(self.warp_bases)}, block = "
            f"{bases_text(self.block_bases)}}}>"
        )


@dataclass(frozen=True)
class DotOperandLayout(Encoding):
    """``#ttg.dot_op``: operand ``operand_index`` (0 = A, 1 = B) of a dot with ``parent``.

    Examples:
        >>> parent = BlockedLayout([1, 1], [4, 8], [1, 1], [1, 0])
        >>> DotOperandLayout(0, parent, 0).to_linear_layout([4, 2]).bases[0]
        ('register', [[0, 1]])
    """

    operand_index: int
    parent: Encoding
    k_width: int = 0

    mnemonic = "dot_op"

    def __post_init__(self) -> None:
        if self.operand_index not in (0, 1):
            raise EncodingError(
                f"DotOperandLayout: 'operand_index' (opIdx) can be 0 or 1, not "
                f"{shown(self.operand_index)}."
            )
        if not hasattr(self.parent, "dot_operand_layout"):
            raise EncodingError(
                f"DotOperandLayout: unexpected parent layout {shown(self.parent)} (expected a "
                f"blocked, NVIDIA MMA, AMD MFMA or AMD WMMA layout)."
            )
        validate = getattr(self.parent, "validate_dot_operand", None)
        if validate is not None:
            validate(self.operand_index, self.k_width)
        elif self.k_width != 0:
            raise EncodingError(
                "DotOperandLayout: k_width is not supported when the parent is a blocked "
                f"layout (must be 0, not {self.k_width})."
            )

    @property
    def rank(self) -> int:
        return self.parent.rank

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        parent: Any = self.parent
        result: LinearLayout = parent.dot_operand_layout(self.operand_index, self.k_width, shape)
        return result

    def ttgir(self) -> str:
        text = f"#ttg.dot_op<{{opIdx = {self.operand_index}, parent = {self.parent.ttgir()}"
        return text + (f", kWidth = {self.k_width}}}>" if self.k_width else "}>")


# ---------------------------------------------------------------------- TTGIR builders


def _blocked_from_ttgir(fields: dict[str, Any], attribute: Any) -> BlockedLayout:
    size_per_thread = attribute.take("sizePerThread")
    threads_per_warp = attribute.take("threadsPerWarp")
    warps_per_cta = attribute.take("warpsPerCTA")
    order = attribute.take("order")
    cga = attribute.take("CGALayout", None)
    legacy_keys = ("CTAsPerCGA", "CTASplitNum", "CTAOrder")
    legacy = [attribute.take(k, None) for k in legacy_keys]
    given = [k for k, v in zip(legacy_keys, legacy) if v is not None]
    if given and len(given) != len(legacy_keys):
        missing = [k for k in legacy_keys if k not in given]
        raise attribute.error(
            f"legacy CGA fields need all of {list(legacy_keys)}; missing {missing}"
        )
    if cga is None:
        cga = cga_from_split_params(*legacy) if given else []
    return BlockedLayout(size_per_thread, threads_per_warp, warps_per_cta, order, cga)


def _slice_from_ttgir(fields: dict[str, Any], attribute: Any) -> SliceLayout:
    return SliceLayout(attribute.take("dim"), attribute.take("parent"))


def _dot_from_ttgir(fields: dict[str, Any], attribute: Any) -> DotOperandLayout:
    return DotOperandLayout(
        attribute.take("opIdx"), attribute.take("parent"), attribute.take("kWidth", 0)
    )


def _linear_from_ttgir(fields: dict[str, Any], attribute: Any) -> DistributedLinearLayout:
    return DistributedLinearLayout(
        attribute.take("register"),
        attribute.take("lane"),
        attribute.take("warp"),
        attribute.take("block"),
    )


register("blocked", _blocked_from_ttgir)
register("slice", _slice_from_ttgir)
register("dot_op", _dot_from_ttgir)
register("linear", _linear_from_ttgir)
