"""PaddedShared (``#ttg.padded_shared``): shared memory with padding, modeled exactly.

Triton 3.9's ``PaddedSharedEncodingAttr`` (include/triton/Dialect/TritonGPU/IR/
TritonGPUAttrDefs.td) stores a tensor in shared memory in two steps:

1. a *linear component*, a LinearLayout ``offset, block -> dim0..dimN-1``: logical offset
   ``o`` of a CTA's buffer (and the CTA, ``block``) holds the tensor element ``L(o, block)``;
   each basis moves in one dim by a power of 2, and ``offset`` is injective (no broadcast);
2. *padding*: "We insert a padding of <pad_i> elements after every <interval_i> elements
   ... they compose in an additive manner", i.e. the element at logical offset ``o`` lives
   at the physical (element) offset

       physical(o) = o + sum_i (o >> log2(interval_i)) << log2(pad_i)

   exactly as Triton's lowering computes it (``applyPadding`` / ``getPaddedSharedShifts``
   in lib/Conversion/TritonGPUToLLVM/Utility.cpp: ``pad += (off >> log2 I) << log2 P`` over
   all pairs, in bytes with both scaled by the element size, which is the same for the
   power-of-2 sizes Triton accepts), and the buffer holds ``getPaddedSize`` elements (no
   padding after the last element).  A multi-buffered allocation ``B x shape`` is padded
   as one flat array of ``B * N`` elements (``memdesc_index`` pads the buffer's base
   offset too).

Padding is not GF(2)-linear, so Triton's ``toLinearLayout`` aborts on this encoding
(:meth:`PaddedSharedLayout.to_linear_layout` raises instead); :meth:`linear_component`
gives the linear part (Triton's ``paddedLinearLayout``) and :class:`PaddedLayout` the
exact model: tensor coordinate <-> physical address, with Python ints (exact, one at a
time) and numpy (vectorized over every offset).  The padding formula is written once, on
the :class:`~llverify.ops.Ops` protocol (:func:`apply_padding`, :func:`flat_offset`), and
evaluated by ints, numpy and Z3: the Z3 encoding and ``prove_padded_equal`` are in
:mod:`llverify.smt.padded`.

:class:`PaddedSharedLayout` is named and parametrized as Gluon's
``ttgl.PaddedSharedLayout(interval_padding_pairs, offset_bases, cga_layout, shape)``: the
linear component is ``LinearLayout({offset: offset_bases}) * LinearLayout({block:
cga_layout})`` over dim0..dimN-1 with inferred (surjective) sizes, so the CGA bases are in
units of the CTA tile (Gluon's ``get_padded_shared_layout`` binding); ``shape`` is kept as
given (Triton only uses its rank) and checked against the linear component where a shape
is used (``MemDescType``'s verifier: "Mismatch in expected shape for dimension d").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from llverify.bits import as_shape, is_power_of_2
from llverify.encodings.base import (
    Encoding,
    EncodingError,
    bases_list,
    bases_text,
    int_list,
    list_text,
)
from llverify.encodings.gluon import register_gluon
from llverify.encodings.ttgir import Attribute, TTGIRError, _Parser, register
from llverify.errors import LayoutError, LayoutTypeError, LLVerifyError, shown
from llverify.layout import LinearLayout
from llverify.layout_utils import standard_out_dim_names
from llverify.ops import IntOps, NumpyOps, Ops
from llverify.ttgir import ModuleError, balanced_end, parse_type
from llverify.ttgir.syntax import split_spans

ENCODING = "PaddedSharedLayout"
_OFFSET, _BLOCK = "offset", "block"
_SHARED_MEMORY = "#ttg.shared_memory"  # the memory space of a padded_shared memdesc
_INT = IntOps()
_NUMPY: NumpyOps[Any] = NumpyOps()

T = TypeVar("T")

__all__ = [
    "PaddedLayout",
    "PaddedSharedLayout",
    "apply_padding",
    "flat_offset",
    "padded_offset",
    "padded_size",
    "padding_shifts",
    "parse_padded_shared",
]


# ---------------------------------------------------------------------- the padding function


def _pairs(value: Any) -> tuple[tuple[int, int], ...]:
    """``interval_padding_pairs`` as int pairs (each must have 2 entries, as Gluon asserts)."""
    pairs = bases_list(value, "interval_padding_pairs", ENCODING)
    for i, pair in enumerate(pairs):
        if len(pair) != 2:
            raise EncodingError(
                f"{ENCODING}: each interval-padding pair must be [interval, padding], but "
                f"interval_padding_pairs[{i}] = {list(pair)}."
            )
    return tuple((pair[0], pair[1]) for pair in pairs)


def _check_pairs(pairs: Sequence[tuple[int, int]]) -> None:
    """Triton's PaddedSharedEncodingAttr::verify rules on the pairs, in its order."""
    if not pairs:
        raise EncodingError(f"{ENCODING}: must have at least one interval-padding pair.")
    for i, (interval, _) in enumerate(pairs):
        if not is_power_of_2(interval):
            raise EncodingError(
                f"{ENCODING}: interval values must all be power of two, but "
                f"interval_padding_pairs[{i}] has interval {interval}."
            )
    for i, (_, padding) in enumerate(pairs):
        if not is_power_of_2(padding):
            raise EncodingError(
                f"{ENCODING}: padding values must all be power of two, but "
                f"interval_padding_pairs[{i}] has padding {padding}."
            )
    intervals = [interval for interval, _ in pairs]
    if len(set(intervals)) != len(intervals):
        raise EncodingError(
            f"{ENCODING}: interval values cannot have duplicates, but the intervals are "
            f"{intervals}."
        )


def padding_shifts(pairs: Sequence[Sequence[int]]) -> tuple[tuple[int, int], ...]:
    """``(log2 interval, log2 padding)`` per pair (Triton's ``getPaddedSharedShifts`` in
    elements).

    Examples:
        >>> padding_shifts([[64, 4], [8, 1]])
        ((6, 2), (3, 0))
    """
    try:
        key = tuple(tuple(pair) for pair in pairs)
        hash(key)
    except TypeError:
        key = _pairs(pairs)  # words the error
    return _shifts(key)


@lru_cache(maxsize=1024)
def _shifts(pairs: tuple[tuple[Any, ...], ...]) -> tuple[tuple[int, int], ...]:
    checked = _pairs(pairs)
    _check_pairs(checked)
    return tuple((i.bit_length() - 1, p.bit_length() - 1) for i, p in checked)


def apply_padding(ops: Ops[T, Any], flat: T, shifts: Sequence[tuple[int, int]]) -> T:
    """Triton's ``applyPadding`` of a flat logical offset, ``flat + sum((flat >> i) << p)``
    over the ``(log2 interval, log2 padding)`` ``shifts`` (:func:`padding_shifts`), on any
    :class:`~llverify.ops.Ops` backend: the one padding formula, evaluated on ints
    (:func:`padded_offset`, :meth:`PaddedLayout.physical`), numpy arrays
    (:meth:`PaddedLayout.physical_array`) and Z3 bit-vectors (:mod:`llverify.smt.padded`).
    ``flat`` is non-negative, so shifts may be logical.

    Examples:
        >>> apply_padding(IntOps(), 7, ((1, 0), (2, 1)))
        12
        >>> apply_padding(NumpyOps(), np.arange(4), ((1, 0),)).tolist()
        [0, 1, 3, 4]
    """
    pad = ops.const(0)
    for i, p in shifts:
        pad = ops.add(pad, ops.shl(ops.shr(flat, ops.const(i), nonneg=True), ops.const(p)))
    return ops.add(flat, pad)


def flat_offset(ops: Ops[T, Any], offset: T, buffer: T, offset_bits: int) -> T:
    """The flat logical offset ``offset + (buffer << offset_bits)`` of ``offset`` in buffer
    ``buffer`` of a multi-buffered allocation (buffers of ``2**offset_bits`` elements are
    padded as one flat array), on any :class:`~llverify.ops.Ops` backend.

    Examples:
        >>> flat_offset(IntOps(), 3, 2, 4)
        35
    """
    return ops.add(offset, ops.shl(buffer, ops.const(offset_bits)))


def padded_offset(offset: int, pairs: Sequence[Sequence[int]]) -> int:
    """The physical element offset of logical offset ``offset`` (Triton's ``applyPadding``):
    ``offset + sum((offset >> log2 I) << log2 P)``.

    Examples:
        >>> [padded_offset(o, [[2, 1], [4, 2]]) for o in range(8)]
        [0, 1, 3, 4, 8, 9, 11, 12]
    """
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise LayoutTypeError(f"Argument 'offset' must be a non-negative int, not {shown(offset)}.")
    return apply_padding(_INT, offset, padding_shifts(pairs))


def padded_size(num_elements: int, pairs: Sequence[Sequence[int]]) -> int:
    """Elements a buffer of ``num_elements`` takes with padding (Triton's
    ``PaddedSharedEncodingAttr::getPaddedSize``: no padding after the last element).

    Examples:
        >>> padded_size(16 * 256, [[64, 2], [128, 4], [256, 8]])  # test-allocation.mlir
        4466
    """
    if isinstance(num_elements, bool) or not isinstance(num_elements, int) or num_elements < 1:
        raise LayoutTypeError(
            f"Argument 'num_elements' must be a positive int, not {shown(num_elements)}."
        )
    size = num_elements
    for (interval, padding), (i, p) in zip(_pairs(pairs), padding_shifts(pairs)):
        size += (num_elements >> i) << p
        if num_elements % interval == 0:
            size -= padding
    return size


# ---------------------------------------------------------------------- the encoding


def _basis_rank(bases: Sequence[Sequence[int]], name: str, rank: int) -> None:
    for i, basis in enumerate(bases):
        if len(basis) != rank:
            raise EncodingError(
                f"{ENCODING}: {name}[{i}] = {list(basis)} must have {rank} coordinates (the rank)."
            )
        if any(v < 0 for v in basis):
            raise EncodingError(
                f"{ENCODING}: basis values must be non-negative, but {name}[{i}] = "
                f"{list(basis)} (Triton 3.9 aborts: 'Invalid bases passed to LinearLayout')."
            )


def _surjective(in_dim: str, bases: Sequence[Sequence[int]], rank: int, name: str) -> LinearLayout:
    """``LinearLayout({in_dim: bases}, dims)`` with inferred sizes, as Triton's constructor:
    it must be surjective onto them."""
    try:
        return LinearLayout.from_bases(
            [(in_dim, [list(b) for b in bases])], standard_out_dim_names(rank)
        )
    except LayoutError:
        raise EncodingError(
            f"{ENCODING}: the {name} {[list(b) for b in bases]} must map onto every "
            f"coordinate below the sizes they span (Triton 3.9 aborts: 'Layout is expected "
            f"to be surjective')."
        ) from None


def _verify_linear_component(ll: LinearLayout) -> None:
    """Triton's PaddedSharedEncodingAttr::verify rules on the linear component."""
    offsets = ll.sublayout([_OFFSET], ll.get_out_dim_names())
    if not offsets.is_injective():
        raise EncodingError(
            f"{ENCODING}: Broadcasting in offset dimension is not supported (the offset "
            f"bases {dict(offsets.bases)[_OFFSET]} are not injective)."
        )
    for in_dim, bases in ll.bases:
        for i, basis in enumerate(bases):
            if sum(1 for v in basis if v) > 1:
                raise EncodingError(
                    f"{ENCODING}: Each offset basis must move in at most one dimension, but "
                    f"{in_dim} basis {i} is {basis}."
                )
            if any(v and not is_power_of_2(v) for v in basis):
                raise EncodingError(
                    f"{ENCODING}: Each offset basis must be 0 or a power of two, but "
                    f"{in_dim} basis {i} is {basis}."
                )


def _check_cga_factor(cga: Sequence[Sequence[int]]) -> None:
    """Triton asserts the linear component factors into a CTA and a CGA layout whose block
    part, after removing broadcast (zero) bases, is a permutation matrix."""
    seen: set[tuple[int, ...]] = set()
    for i, basis in enumerate(cga):
        if not any(basis):
            continue
        if tuple(basis) in seen:
            raise EncodingError(
                f"{ENCODING}: after removing broadcast (zero) bases the CGA layout must be a "
                f"permutation matrix, but cga_layout[{i}] = {list(basis)} repeats a basis "
                f"(Triton 3.9 aborts: 'layout must factor into CTA and CGA layouts')."
            )
        seen.add(tuple(basis))


def _order_per_dim(bases: Sequence[Sequence[int]], default: Sequence[int]) -> tuple[int, ...]:
    """Triton's ``orderPerDimImpl``: dims in order of their first moving basis, then the
    missing ones in ``default`` order."""
    order: list[int] = []
    for basis in bases:
        for d, v in enumerate(basis):
            if v:
                if d not in order:
                    order.append(d)
                break
    order.extend(d for d in default if d not in order)
    return tuple(order)


def _identity_bases(shape: Sequence[int], order: Sequence[int]) -> list[list[int]]:
    """The offset bases of ``identityStandardND(offset, shape, order)``."""
    rank = len(shape)
    return [
        [1 << j if d == dim else 0 for d in range(rank)]
        for dim in order
        for j in range(shape[dim].bit_length() - 1)
    ]


def _long_form_component(
    offsets: Sequence[Sequence[int]], blocks: Sequence[Sequence[int]]
) -> LinearLayout:
    """The linear component of TTGIR's long form, ``offset, block -> dim0..`` (its rank
    that of the bases); surjective, as Triton 3.9 requires."""
    every = [*offsets, *blocks]
    if not every:
        raise EncodingError(f"{ENCODING}: Empty Layout not supported (no basis gives a rank).")
    rank = len(every[0])
    if rank == 0:
        raise EncodingError(f"{ENCODING}: the bases must have at least one coordinate.")
    _basis_rank(offsets, "offset", rank)
    _basis_rank(blocks, "block", rank)
    dims = standard_out_dim_names(rank)
    try:
        return LinearLayout.from_bases(
            [(_OFFSET, [list(b) for b in offsets]), (_BLOCK, [list(b) for b in blocks])], dims
        )
    except LayoutError:
        raise EncodingError(
            f"{ENCODING}: the linear component (offset {[list(b) for b in offsets]}, block "
            f"{[list(b) for b in blocks]}) must map onto every coordinate below the sizes "
            f"it spans (Triton 3.9 aborts: 'Layout is expected to be surjective')."
        ) from None


def _cga_in_tiles(
    offsets: Sequence[Sequence[int]], blocks: Sequence[Sequence[int]], rank: int
) -> list[list[int]]:
    """The block bases in units of the CTA tile the offsets span (Triton's
    linearToCGAEncodingAttr / Gluon's divideLeft; Triton asserts the factoring exists)."""
    tile = [1] * rank
    for basis in offsets:
        for d, v in enumerate(basis):
            tile[d] = max(tile[d], 2 * v)
    cga: list[list[int]] = []
    for i, basis in enumerate(blocks):
        if any(v % tile[d] for d, v in enumerate(basis)):
            raise EncodingError(
                f"{ENCODING}: the layout must factor into CTA and CGA layouts, but block "
                f"basis {i} = {list(basis)} falls inside the CTA tile {tile} spanned by the "
                f"offsets (Triton 3.9 asserts 'layout must factor into CTA and CGA "
                f"layouts')."
            )
        cga.append([v // tile[d] for d, v in enumerate(basis)])
    return cga


@dataclass(frozen=True)
class PaddedSharedLayout(Encoding):
    """``#ttg.padded_shared``: a linear remapping of the offsets, then padding.

    Fields as Gluon's ``ttgl.PaddedSharedLayout``: ``interval_padding_pairs`` (``[interval,
    padding]``, powers of 2, distinct intervals), ``offset_bases`` (``offset -> dims``),
    ``cga_layout`` (``block -> dims`` in units of the CTA tile) and ``shape``.

    Examples:
        >>> enc = PaddedSharedLayout.with_identity_for([[32, 4]], [16, 32], [1, 0])
        >>> enc.ttgir()
        '#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [16, 32]}>'
        >>> enc.padded_layout().address([1, 0])
        36
    """

    interval_padding_pairs: Sequence[Sequence[int]]
    offset_bases: Sequence[Sequence[int]]
    cga_layout: Sequence[Sequence[int]]
    shape: Sequence[int]
    _linear: LinearLayout = field(init=False, repr=False, compare=False)

    mnemonic = "padded_shared"

    def __post_init__(self) -> None:
        pairs = _pairs(self.interval_padding_pairs)
        offsets = bases_list(self.offset_bases, "offset_bases", ENCODING)
        cga = bases_list(self.cga_layout, "cga_layout", ENCODING)
        shape = int_list(self.shape, "shape", ENCODING)
        rank = len(shape)
        if rank == 0:
            raise EncodingError(f"{ENCODING}: the shape must not be empty (rank >= 1).")
        _basis_rank(offsets, "offset_bases", rank)
        _basis_rank(cga, "cga_layout", rank)
        _check_pairs(pairs)
        # Gluon's binding: LinearLayout({offset}) * LinearLayout({block}), inferred sizes.
        linear = _surjective(_OFFSET, offsets, rank, "offset bases") * _surjective(
            _BLOCK, cga, rank, "cga_layout bases"
        )
        _verify_linear_component(linear)
        _check_cga_factor(cga)
        for name, value in (
            ("interval_padding_pairs", pairs),
            ("offset_bases", offsets),
            ("cga_layout", cga),
            ("shape", shape),
            ("_linear", linear),
        ):
            object.__setattr__(self, name, value)

    # ------------------------------------------------------------------ construction

    @classmethod
    def with_identity_for(
        cls,
        interval_padding_pairs: Sequence[Sequence[int]],
        shape: Sequence[int],
        order: Sequence[int],
        cga_layout: Sequence[Sequence[int]] = (),
    ) -> PaddedSharedLayout:
        """The identity linear component of ``shape`` in ``order`` (Gluon's
        ``PaddedSharedLayout.with_identity_for``; the C++ builder from order and shape).

        Examples:
            >>> PaddedSharedLayout.with_identity_for([[4, 1]], [4, 2], [0, 1]).offset_bases
            ((1, 0), (2, 0), (0, 1))
        """
        dims = int_list(shape, "shape", ENCODING)
        order_ = int_list(order, "order", ENCODING)
        cga = bases_list(cga_layout, "cga_layout", ENCODING)
        if len(order_) != len(dims):
            raise EncodingError(
                f"{ENCODING}: Mismatch of shape and order ranks in padded layout (shape "
                f"{list(dims)}, order {list(order_)})."
            )
        if sorted(order_) != list(range(len(dims))):
            raise EncodingError(
                f"{ENCODING}: order must be a permutation of 0..{len(dims) - 1}, not "
                f"{list(order_)}."
            )
        for i, d in enumerate(dims):
            if not is_power_of_2(d):
                raise EncodingError(
                    f"{ENCODING}: shape[{i}] = {d}; shapes must be positive powers of 2."
                )
        per_cta = list(dims)
        if cga:
            _basis_rank(cga, "cga_layout", len(dims))
            for d in range(len(dims)):
                # Gluon's _get_shape_per_cta: the largest stride * 2 (1 if always zero).
                largest = max(b[d] for b in cga)
                split = 2 * largest if largest else 1
                if per_cta[d] % split:
                    raise EncodingError(
                        f"{ENCODING}: shape {list(dims)} is not divisible by the CGA layout "
                        f"{[list(b) for b in cga]}."
                    )
                per_cta[d] //= split
        offsets = _identity_bases(per_cta, order_)
        return cls(interval_padding_pairs, offsets, cga, dims)

    @classmethod
    def from_linear_component(
        cls,
        interval_padding_pairs: Sequence[Sequence[int]],
        offset: Sequence[Sequence[int]],
        block: Sequence[Sequence[int]],
    ) -> PaddedSharedLayout:
        """The encoding of TTGIR's long form ``{offset = [...], block = [...]}``: bases in
        tensor coordinates (the whole linear component), as Triton's ``parseLinearLayout``
        reads them, factored into Gluon's CTA offsets and CGA tiles.

        Examples:
            >>> enc = PaddedSharedLayout.from_linear_component([[4, 1]], [[0, 1], [1, 0]],
            ...                                                [[0, 2]])
            >>> enc.cga_layout, enc.shape
            (((0, 1),), (2, 4))
        """
        pairs = _pairs(interval_padding_pairs)
        offsets = bases_list(offset, "offset", ENCODING)
        blocks = bases_list(block, "block", ENCODING)
        linear = _long_form_component(offsets, blocks)
        _check_pairs(pairs)
        _verify_linear_component(linear)
        cga = _cga_in_tiles(offsets, blocks, linear.num_out_dims)
        try:
            encoding = cls(pairs, offsets, cga, linear.get_out_dim_sizes())
        except EncodingError as error:
            raise EncodingError(
                f"{ENCODING}: the layout must factor into CTA and CGA layouts (Triton 3.9 "
                f"asserts 'layout must factor into CTA and CGA layouts'): {error}"
            ) from None
        if encoding.linear_component() != linear:
            raise EncodingError(
                f"{ENCODING}: the layout must factor into CTA and CGA layouts (Triton 3.9 "
                f"asserts 'layout must factor into CTA and CGA layouts')."
            )
        return encoding

    # ------------------------------------------------------------------ queries

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def intervals(self) -> tuple[int, ...]:
        return tuple(i for i, _ in self.interval_padding_pairs)

    @property
    def paddings(self) -> tuple[int, ...]:
        return tuple(p for _, p in self.interval_padding_pairs)

    @property
    def min_interval(self) -> int:
        """Triton's ``getMinInterval``: Triton's cap on the vector width of padded shared
        accesses (alignment needs the paddings too: :attr:`PaddedLayout.max_vector`)."""
        return min(self.intervals)

    @property
    def order(self) -> tuple[int, ...]:
        """Triton's ``getOrder``: dims by first moving offset basis, then rank-1..0."""
        return _order_per_dim(self.offset_bases, range(self.rank - 1, -1, -1))

    @property
    def num_ctas(self) -> int:
        """CTAs per CGA (``2 ** len(cga_layout)``, broadcast bases included)."""
        return 1 << len(self.cga_layout)

    def _shape_of(self, shape: Sequence[int] | None) -> tuple[int, ...]:
        sizes = tuple(self._linear.get_out_dim_sizes())
        if shape is None:
            shape = self.shape
        dims = as_shape(shape)
        if len(dims) != self.rank:
            raise EncodingError(
                f"{ENCODING}: the shape {list(dims)} must have the encoding's rank {self.rank}."
            )
        for d, (expected, got) in enumerate(zip(dims, sizes)):
            if expected != got:
                raise EncodingError(
                    f"{ENCODING}: Mismatch in expected shape for dimension {d}. Expected: "
                    f"{expected}, got: {got} (the linear component spans {list(sizes)})."
                )
        return dims

    def linear_component(self, shape: Sequence[int] | None = None) -> LinearLayout:
        """The linear part ``offset, block -> dim0..`` (Triton's ``getLinearComponent`` /
        ``paddedLinearLayout``); a given ``shape`` must be its size (MemDescType's rule).

        Examples:
            >>> PaddedSharedLayout([[2, 2]], [[2], [1]], [], [4]).linear_component().bases
            [('offset', [[2], [1]]), ('block', [])]
        """
        if shape is not None:
            self._shape_of(shape)
        return self._linear

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Padding is not linear: Triton 3.9 aborts here, llverify raises EncodingError."""
        raise EncodingError(
            f"{ENCODING}: padding is not linear, so there is no LinearLayout (Triton 3.9's "
            f"toLinearLayout aborts on padded layouts); use linear_component(shape) for the "
            f"linear part or padded_layout(shape) for the exact address map."
        )

    def padded_layout(
        self, shape: Sequence[int] | None = None, num_buffers: int | None = None
    ) -> PaddedLayout:
        """The exact model for a buffer of ``shape`` (the encoding's shape, or ``B x
        shape`` for ``B`` buffers, as a memdesc allocation shape)."""
        dims = tuple(int_list(self.shape if shape is None else shape, "shape", ENCODING))
        if len(dims) not in (self.rank, self.rank + 1):
            raise EncodingError(
                f"{ENCODING}: rank must be equal to or one less than the shape size. Got "
                f"{self.rank} and {len(dims)} (MemDescType's rule)."
            )
        buffers = 1 if num_buffers is None else num_buffers
        if len(dims) == self.rank + 1:
            if num_buffers is not None:
                raise EncodingError(
                    f"{ENCODING}: give the number of buffers once (a leading shape dim or "
                    f"num_buffers), not both."
                )
            buffers, dims = dims[0], dims[1:]
        return PaddedLayout(self, self._shape_of(dims), buffers)

    def ttgir(self) -> str:
        pairs = ", ".join(f"{i}:+{p}" for i, p in self.interval_padding_pairs)
        sizes = self._linear.get_out_dim_sizes()
        order = self.order
        if not self.cga_layout and [list(b) for b in self.offset_bases] == _identity_bases(
            sizes, order
        ):
            body = f"order = {list_text(order)}, shape = {list_text(sizes)}"
        else:
            block = dict(self._linear.bases)[_BLOCK]
            body = f"offset = {bases_text(self.offset_bases)}, block = {bases_text(block)}"
        return f"#ttg.padded_shared<[{pairs}] {{{body}}}>"


# ---------------------------------------------------------------------- the exact model


@dataclass(frozen=True)
class PaddedLayout:
    """The exact map of a padded shared buffer: tensor coordinate <-> physical address.

    Addresses are element offsets within one CTA's allocation of ``num_buffers`` buffers of
    ``shape`` (multiply by the element size for bytes).  ``offset`` is the logical offset
    in a buffer (the linear component's in dim), ``block`` the CTA.

    Examples:
        >>> model = PaddedSharedLayout.with_identity_for([[4, 1]], [2, 4], [1, 0]).padded_layout()
        >>> model.address([1, 2]), model.element_at(4), model.padded_size
        (7, None, 9)
    """

    encoding: PaddedSharedLayout
    shape: tuple[int, ...]
    num_buffers: int = 1
    linear: LinearLayout = field(init=False, repr=False, compare=False)
    shifts: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)
    # (dim, bit) -> (in dim, bit): where each coordinate bit comes from.
    _sources: tuple[tuple[tuple[str, int], ...], ...] = field(init=False, repr=False, compare=False)
    offset_bits: int = field(init=False, repr=False, compare=False)
    num_offsets: int = field(init=False, repr=False, compare=False)
    num_blocks: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.encoding, PaddedSharedLayout):
            raise LayoutTypeError(
                f"PaddedLayout: 'encoding' must be a PaddedSharedLayout, "
                f"not {shown(self.encoding)}."
            )
        if (
            isinstance(self.num_buffers, bool)
            or not isinstance(self.num_buffers, int)
            or self.num_buffers < 1
        ):
            raise LayoutTypeError(
                "PaddedLayout: 'num_buffers' must be a positive int, "
                f"not {shown(self.num_buffers)}."
            )
        shape = self.encoding._shape_of(self.shape)
        linear = self.encoding.linear_component(shape)
        sources: list[list[tuple[str, int] | None]] = [[None] * (s.bit_length() - 1) for s in shape]
        for in_dim, bases in linear.bases:
            for j, basis in enumerate(bases):
                for d, v in enumerate(basis):
                    if v:
                        k = v.bit_length() - 1
                        assert sources[d][k] is None, "validated layouts are bit permutations"
                        sources[d][k] = (in_dim, j)
        assert all(s is not None for bits in sources for s in bits)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "linear", linear)
        # offset_bits / num_offsets: one buffer of one CTA (the ``offset`` in dim's size)
        object.__setattr__(self, "offset_bits", linear.get_in_dim_size_log2(_OFFSET))
        object.__setattr__(self, "num_offsets", linear.get_in_dim_size(_OFFSET))
        object.__setattr__(self, "num_blocks", linear.get_in_dim_size(_BLOCK))
        object.__setattr__(self, "shifts", padding_shifts(self.encoding.interval_padding_pairs))
        object.__setattr__(
            self, "_sources", tuple(tuple(s for s in bits if s is not None) for bits in sources)
        )

    # ------------------------------------------------------------------ sizes

    @property
    def num_logical(self) -> int:
        """Logical offsets of the whole allocation (``num_buffers * num_offsets``)."""
        return self.num_buffers * self.num_offsets

    @property
    def padded_size(self) -> int:
        """Elements the allocation takes (Triton's ``getPaddedSize`` of the alloc shape)."""
        return padded_size(self.num_logical, self.encoding.interval_padding_pairs)

    @property
    def max_vector(self) -> int:
        """The widest power-of-2 vector ``v`` for which every ``v`` logical offsets from a
        multiple of ``v`` lie contiguously at a ``v``-aligned address: ``v`` must divide
        the interval and the padding of every pair whose padding occurs in the buffer.
        (Triton caps vectors at ``getMinInterval`` only, so paddings smaller than the
        vector give misaligned ``ld/st.shared.v2/v4``.)

        Examples:
            >>> enc = PaddedSharedLayout.with_identity_for([[512, 1], [64, 4]], [64, 64], [1, 0])
            >>> enc.min_interval, enc.padded_layout().max_vector
            (64, 1)
        """
        vector = self.num_logical
        for interval, padding in self.encoding.interval_padding_pairs:
            if interval < self.num_logical:
                vector = min(vector, interval, padding)
        return vector

    # ------------------------------------------------------------------ exact ints

    def _flat(self, offset: int, buffer: int) -> int:
        for name, value, bound in (
            ("offset", offset, self.num_offsets),
            ("buffer", buffer, self.num_buffers),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise LayoutTypeError(f"PaddedLayout: '{name}' must be an int, not {shown(value)}.")
            if not 0 <= value < bound:
                raise LayoutError(f"PaddedLayout: {name} = {value} is outside [0, {bound}).")
        return flat_offset(_INT, int(offset), int(buffer), self.offset_bits)

    def physical(self, offset: int, buffer: int = 0) -> int:
        """Physical element offset of logical ``offset`` of ``buffer`` (``applyPadding`` of
        the flat logical offset)."""
        return apply_padding(_INT, self._flat(offset, buffer), self.shifts)

    def logical(self, physical: int) -> tuple[int, int] | None:
        """``(buffer, offset)`` stored at ``physical``; None for a padding slot (or past
        the end).  Exact inverse of :meth:`physical` (which is strictly increasing)."""
        if isinstance(physical, bool) or not isinstance(physical, (int, np.integer)):
            raise LayoutTypeError(
                f"PaddedLayout: 'physical' must be an int, not {shown(physical)}."
            )
        physical = int(physical)
        low, high = 0, self.num_logical - 1
        while low <= high:
            middle = (low + high) // 2
            value = self.physical(middle % self.num_offsets, middle // self.num_offsets)
            if value == physical:
                return divmod(middle, self.num_offsets)
            if value < physical:
                low = middle + 1
            else:
                high = middle - 1
        return None

    def coords(self, offset: int, block: int = 0) -> tuple[int, ...]:
        """The tensor element at logical ``offset`` of CTA ``block`` (the linear component)."""
        if not 0 <= block < self.num_blocks:
            raise LayoutError(f"PaddedLayout: block = {block} is outside [0, {self.num_blocks}).")
        self._flat(offset, 0)
        out = self.linear.apply({_OFFSET: int(offset), _BLOCK: int(block)})
        return tuple(out[f"dim{d}"] for d in range(len(self.shape)))

    def locate(self, coords: Sequence[int]) -> tuple[int, int]:
        """``(offset, block)`` holding tensor element ``coords`` (the CTA with its broadcast
        block bits zero, as Triton's pseudo-inverse picks)."""
        if isinstance(coords, np.ndarray):
            coords = coords.tolist()
        values = int_list(coords, "coords", "PaddedLayout")
        if len(values) != len(self.shape):
            raise LayoutError(
                f"PaddedLayout: coords {list(values)} must have {len(self.shape)} entries."
            )
        ins = {_OFFSET: 0, _BLOCK: 0}
        for d, (value, size, bits) in enumerate(zip(values, self.shape, self._sources)):
            if not 0 <= value < size:
                raise LayoutError(f"PaddedLayout: coords[{d}] = {value} is outside [0, {size}).")
            for k, (in_dim, j) in enumerate(bits):
                ins[in_dim] |= ((value >> k) & 1) << j
        return ins[_OFFSET], ins[_BLOCK]

    def address(self, coords: Sequence[int], buffer: int = 0) -> int:
        """Physical element offset of tensor element ``coords`` of ``buffer`` in the
        allocation of the CTA that holds it."""
        offset, _ = self.locate(coords)
        return self.physical(offset, buffer)

    def element_at(self, physical: int, block: int = 0) -> tuple[int, tuple[int, ...]] | None:
        """``(buffer, coords)`` stored at ``physical`` in CTA ``block``; None for padding."""
        found = self.logical(physical)
        if found is None:
            return None
        buffer, offset = found
        return buffer, self.coords(offset, block)

    # ------------------------------------------------------------------ numpy

    def physical_array(self, offsets: Any, buffers: Any = 0) -> np.ndarray:
        """:meth:`physical` for arrays of offsets (and buffers), as int64."""
        offs = np.asarray(offsets, dtype=np.int64)
        bufs = np.asarray(buffers, dtype=np.int64)
        if offs.size and (offs.min() < 0 or offs.max() >= self.num_offsets):
            raise LayoutError(f"PaddedLayout: offsets outside [0, {self.num_offsets}).")
        if bufs.size and (bufs.min() < 0 or bufs.max() >= self.num_buffers):
            raise LayoutError(f"PaddedLayout: buffers outside [0, {self.num_buffers}).")
        flat = flat_offset(_NUMPY, offs, bufs, self.offset_bits)
        result: np.ndarray = apply_padding(_NUMPY, flat, self.shifts)
        return result

    def physical_table(self) -> np.ndarray:
        """Physical offset of every logical flat offset ``buffer * num_offsets + offset``."""
        flat = np.arange(self.num_logical, dtype=np.int64)
        return self.physical_array(flat % self.num_offsets, flat // self.num_offsets)

    def offset_table(self) -> tuple[np.ndarray, np.ndarray]:
        """``(offset, block)`` arrays of ``shape``: where each tensor element lives."""
        grids = np.indices(self.shape, dtype=np.int64)
        offset = np.zeros(self.shape, dtype=np.int64)
        block = np.zeros(self.shape, dtype=np.int64)
        for d, bits in enumerate(self._sources):
            for k, (in_dim, j) in enumerate(bits):
                bit = ((grids[d] >> np.int64(k)) & 1) << np.int64(j)
                if in_dim == _OFFSET:
                    offset |= bit
                else:
                    block |= bit
        return offset, block

    def address_table(self, buffer: int = 0) -> np.ndarray:
        """Physical address of every tensor element (an array of ``shape``)."""
        offset, _ = self.offset_table()
        return self.physical_array(offset, np.full_like(offset, buffer))

    def element_table(self, block: int = 0) -> dict[str, np.ndarray]:
        """For every physical slot ``0 .. padded_size - 1``: ``valid`` (False for padding),
        ``buffer``, ``offset`` and ``dim0..`` (meaningful where valid) of CTA ``block``."""
        table = self.physical_table()
        slots = np.arange(self.padded_size, dtype=np.int64)
        index = np.searchsorted(table, slots)
        index = np.minimum(index, self.num_logical - 1)
        valid = table[index] == slots
        offset = index % self.num_offsets
        result: dict[str, np.ndarray] = {
            "valid": valid,
            "buffer": index // self.num_offsets,
            "offset": offset,
        }
        dims = self.linear.apply_array({_OFFSET: offset, _BLOCK: np.full_like(offset, block)})
        result.update({d: np.asarray(v, dtype=np.int64) for d, v in dims.items()})
        return result

    def bank_table(
        self, element_bits: int, num_banks: int = 32, bank_bits: int = 32, buffer: int = 0
    ) -> np.ndarray:
        """Shared-memory bank of (the first byte of) every tensor element: ``(address *
        element_bytes // bank_bytes) % num_banks`` (NVIDIA: 32 banks of 4 bytes)."""
        if element_bits % 8 or element_bits <= 0:
            raise LayoutError(
                f"PaddedLayout: padding needs whole-byte elements (Triton asserts), not "
                f"{element_bits} bits."
            )
        return (self.address_table(buffer) * (element_bits // 8) // (bank_bits // 8)) % num_banks


# ---------------------------------------------------------------------- TTGIR and Gluon


def _build(fields: dict[str, Any], attribute: Attribute) -> PaddedSharedLayout:
    """Builder for ``#ttg.padded_shared<[I:+P, ...] {...}>``; the parser delivers the pairs
    as the field ``interval_padding_pairs``."""
    pairs = attribute.take("interval_padding_pairs")
    if _OFFSET in fields or _BLOCK in fields:
        for key in (_OFFSET, _BLOCK):
            if key not in fields:
                raise attribute.error(f"Expected basis of '{key}' not found")
        offset = attribute.take(_OFFSET)
        block = attribute.take(_BLOCK)
        for key in fields:
            raise attribute.error(f'Unexpected attribute "{key}" found', key)
        return PaddedSharedLayout.from_linear_component(pairs, offset, block)
    order = attribute.take("order", [])
    shape = attribute.take("shape", [])
    for key in fields:
        raise attribute.error(f'Unexpected attribute "{key}" found', key)
    if len(order) != len(shape):
        raise attribute.error("Mismatch of shape and order ranks in padded layout")
    if not shape:
        raise attribute.error("linearComponent must have [offset, block] as input dims")
    return PaddedSharedLayout.with_identity_for(pairs, shape, order)


def _pair_list(parser: _Parser) -> list[list[int]]:
    """``[I:+P, ...]`` (MLIR tokens: whitespace allowed between them; at least one pair)."""
    number = re.compile(r"\d+")

    def integer() -> int:
        parser.skip()
        match = number.match(parser.text, parser.pos)
        if match is None:
            raise parser.error("expected integer value")
        parser.pos = match.end()
        return int(match.group())

    parser.expect("[")
    pairs: list[list[int]] = []
    while True:
        interval = integer()
        parser.expect(":")
        parser.expect("+")
        pairs.append([interval, integer()])
        if parser.peek() == ",":
            parser.pos += 1
            continue
        parser.expect("]")
        return pairs


def _attribute(parser: _Parser) -> PaddedSharedLayout:
    parser.skip()
    start = parser.pos
    parser.expect("#")
    dialect = parser.identifier()
    parser.expect(".")
    mnemonic = parser.identifier()
    if (dialect, mnemonic) != ("ttg", "padded_shared"):
        raise TTGIRError(
            f"expected '#ttg.padded_shared', found '#{dialect}.{mnemonic}'", parser.text, start
        )
    parser.expect("<")
    positions = {"interval_padding_pairs": parser.pos}
    fields: dict[str, Any] = {"interval_padding_pairs": _pair_list(parser)}
    body_start = parser.pos
    body = parser.dict_value()
    for key in body:
        positions[key] = parser.text.find(key, body_start)
    fields.update(body)
    parser.expect(">")
    attribute = Attribute(dialect, mnemonic, fields, start, positions, parser.text)
    try:
        result = _build(fields, attribute)
    except TTGIRError:
        raise
    except LLVerifyError as error:
        raise TTGIRError(f"#{dialect}.{mnemonic}: {error}", parser.text, start) from None
    attribute.finish()
    return result


def parse_padded_shared(
    text: str, name: str = "text"
) -> tuple[PaddedSharedLayout, list[int] | None]:
    """A PaddedSharedLayout (and the shape, for a memdesc type) from TTGIR text as Triton
    3.9 prints it: ``#ttg.padded_shared<[I:+P, ...] {order = [..], shape = [..]}>`` or
    ``{offset = [..], block = [..]}``, optionally as ``#alias = ...`` or inside
    ``!ttg.memdesc<AxBxf16, #ttg.padded_shared<...>, #ttg.shared_memory, mutable>`` (the
    returned shape then is the memdesc's, a leading dim counting buffers).  ``name`` is the
    argument's name for error messages.

    Examples:
        >>> enc, shape = parse_padded_shared(
        ...     "!ttg.memdesc<2x16x32xf16, #ttg.padded_shared<[32:+4] {order = [1, 0], "
        ...     "shape = [16, 32]}>, #ttg.shared_memory, mutable>")
        >>> enc.interval_padding_pairs, shape, enc.padded_layout(shape).padded_size
        (((32, 4),), [2, 16, 32], 1148)
    """
    if not isinstance(text, str):
        raise LayoutTypeError(
            f"Argument '{name}' must be TTGIR text (a str), not {type(text).__name__}."
        )
    parser = _Parser(text, name)
    parser.after_alias()
    if not text.startswith("!ttg.memdesc", parser.pos):
        encoding = _attribute(parser)
        parser.end()
        return encoding, None
    start = parser.pos
    shape = parser.read_dims("!ttg.memdesc", min_rank=1)
    encoding = _attribute(parser)
    if parser.peek() == ",":
        _memdesc_fields(parser, start)
    parser.expect(">")
    parser.end()
    return encoding, list(shape)


def _memdesc_fields(parser: _Parser, start: int) -> None:
    """Check the fields after the encoding of the memdesc type at ``start`` (the parser at
    the comma before them), as the TTGIR reader takes them: the memory space
    ``#ttg.shared_memory`` first, ``mutable``, and the allocation shape last; the parser
    moves to the type's ``>``."""
    text = parser.text
    opening = text.index("<", start)
    try:
        end = balanced_end(text, opening)
    except ModuleError:
        raise parser.error("'!ttg.memdesc<' is never closed", opening) from None
    memdesc = parse_type("!ttg.memdesc" + text[opening:end])
    fields = split_spans(text, ",", parser.pos + 1, end - 1)
    for k, (first, last) in enumerate(fields):
        written = text[first:last].strip()
        known = (
            written == "mutable"
            or (k == 0 and written == _SHARED_MEMORY == memdesc.memory_space)
            or (k == len(fields) - 1 and bool(memdesc.alloc_dims))
        )
        if not known:
            parser.pos = first
            parser.skip()
            raise parser.error("expected '#ttg.shared_memory', 'mutable' or a shape")
    parser.pos = end - 1


def _from_gluon(g: Any) -> PaddedSharedLayout:
    return PaddedSharedLayout(g.interval_padding_pairs, g.offset_bases, g.cga_layout, g.shape)


register("padded_shared", _build)
register_gluon("PaddedSharedLayout", _from_gluon)
