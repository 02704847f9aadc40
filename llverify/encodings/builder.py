"""The converters' fast path: a layout built directly from its bases, without generic products.

Triton's converters assemble a layout from many small ones: ``identity1D`` and ``zeros1D``
factors multiplied together, a transpose of the out dims, then ``combineCtaCgaWithShape``
(grow to the shape, shrink by broadcasting, multiply by the CGA part).  The reference
converters in this package do exactly that with :class:`~llverify.LinearLayout` operations,
each of which validates its arguments and repacks every column.  :class:`LayoutBuilder` does
the same steps on one mutable, unvalidated state and packs the columns once at the end.

Its columns are *wide*: out dim ``dim{k}`` always occupies bits ``[32 k, 32 k + 30)`` of a
column, whatever the order of the out dims, so a transpose costs nothing and an identity
factor is one shifted bit per input bit; :meth:`LayoutBuilder.layout` moves the fields to
the packed form of ``layout.py`` (out dims in their order, each field as wide as its size).

Every step is exact only on the inputs it recognises (sizes that are powers of 2 within the
caps, coordinates that are powers of 2 where a dim shrinks, ...); on anything else it raises
:class:`NotCoveredError`, and the converter then runs its reference path, which produces the same
layout or raises the precise error.  The two paths are checked against each other by
``tests/test_encodings_builder.py`` (and both against Triton by the differential tests).

Examples:
    >>> b = LayoutBuilder(2)
    >>> b.identity(2, "register", 1)  # register bit 0 -> dim1 = 1
    >>> b.identity(4, "lane", 1)
    >>> b.identity(2, "lane", 0)
    >>> b.layout().get_out_dim_names()  # in order of appearance, as Triton's product orders them
    ['dim1', 'dim0']
    >>> b.layout().bases  # coordinates (dim1, dim0)
    [('register', [[1, 0]]), ('lane', [[2, 0], [4, 0], [0, 1]])]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import itemgetter, lshift
from typing import Any

from llverify import gf2
from llverify.bits import MAX_DIM_LOG2, MAX_TOTAL_BITS
from llverify.errors import DimensionError
from llverify.layout import LinearLayout, _make, supremum
from llverify.layout_construct import field_offsets

#: Bits of a wide column reserved for each out dim (coordinates stay below 2**30).
_WIDTH = 32
_FIELD = (1 << _WIDTH) - 1
_BY_VALUE = itemgetter(0)


class NotCoveredError(Exception):
    """The builder does not cover this input: the caller runs its reference path instead."""


def _log2_size(size: int) -> int:
    """log2 of a size the generic factors accept without an error (a power of 2 at most
    2**30), else NotCoveredError."""
    if size.__class__ is not int or size <= 0 or size & (size - 1) or size >> MAX_DIM_LOG2 > 1:
        raise NotCoveredError
    return size.bit_length() - 1


def _merged(x: list[Any], y: list[Any]) -> list[Any]:
    """``supremum(x, y)``, the dim order of a product; NotCoveredError when there is none."""
    if x == y or not y:
        return x
    if not any(d in x for d in y):
        return x + y
    try:
        return supremum(x, y)
    except DimensionError:
        raise NotCoveredError from None


def _moved(column: int, shifts: Sequence[int]) -> int:
    """A wide column with field k moved by ``shifts[k]`` bits (left if positive)."""
    if not column & (column - 1):  # zero or one bit: the common case
        if not column:
            return 0
        shift = shifts[(column.bit_length() - 1) // _WIDTH]
        return column << shift if shift >= 0 else column >> -shift
    result = 0
    for k, shift in enumerate(shifts):
        field = column & (_FIELD << (k * _WIDTH))
        if field:
            result |= field << shift if shift >= 0 else field >> -shift
    return result


class LayoutBuilder:
    """A layout under construction: ``dim0..dim{rank-1}`` out dims, steps applied in place.

    Each method does what the named LinearLayout operation does to the layout built so far
    (``identity``: ``self * identity_1d``; ``times``: ``self * other``; ``grow`` and
    ``shrink``: ``ensure_layout_not_smaller_than`` / ``..._larger_than``), or raises
    :class:`NotCoveredError`.  Out dims are named by their index ``k`` (``dim{k}``).

    Examples:
        >>> b = LayoutBuilder(1)
        >>> b.identity(8, "register", 0)
        >>> b.shrink([2], broadcast_registers=True)
        >>> b.layout().bases
        [('register', [[1], [0], [0]])]
    """

    __slots__ = ("_rank", "_ins", "_cols", "_outs", "_log2")

    def __init__(self, rank: int) -> None:
        self._rank = rank
        self._ins: list[str] = []  # in dims, in order
        self._cols: dict[str, list[int]] = {}  # per in dim, its wide columns
        self._outs: list[int] = []  # out dims present (indices), in order
        self._log2 = [0] * rank  # per out dim index: log2 of its size (0 when absent)

    @classmethod
    def from_bases(
        cls, rank: int, bases: Iterable[tuple[str, Sequence[Sequence[int]]]], outs: Sequence[int]
    ) -> LayoutBuilder:
        """``LinearLayout.from_bases(bases, [dim{k} for k in outs])`` (sizes inferred; the
        layout must be surjective), for coordinates already checked to be ints.

        Examples:
            >>> LayoutBuilder.from_bases(2, [("block", [[0, 1]])], [0, 1]).layout().out_dims
            [('dim0', 1), ('dim1', 2)]
        """
        builder = cls(rank)
        builder._outs = list(outs)
        shifts = [k * _WIDTH for k in outs]
        count = len(shifts)
        union = 0
        for in_dim, values in bases:
            if in_dim in builder._cols or len(values) > MAX_DIM_LOG2:
                raise NotCoveredError
            cols = []
            for basis in values:
                if len(basis) != count or (
                    count and (min(basis) < 0 or max(basis) >> MAX_DIM_LOG2)
                ):
                    raise NotCoveredError
                cols.append(sum(map(lshift, basis, shifts)))  # fields apart: + is |
            builder._ins.append(in_dim)
            builder._cols[in_dim] = cols
            for column in cols:
                union |= column
        for k in outs:  # inferred sizes: the next power of 2 above each coordinate
            builder._log2[k] = ((union >> (k * _WIDTH)) & _FIELD).bit_length()
        builder._require_surjective()  # from_bases refuses a layout that is not
        return builder

    # ------------------------------------------------------------------ factors

    def _columns(self, in_dim: str, out: int) -> list[int]:
        """The columns of ``in_dim`` (appended if new), with ``out`` appended to the out dims
        if new: the dim orders of a product with a one-dim factor (``supremum``)."""
        cols = self._cols.get(in_dim)
        if cols is None:
            self._ins.append(in_dim)
            cols = self._cols[in_dim] = []
        if out not in self._outs:
            self._outs.append(out)
        return cols

    def identity(self, size: int, in_dim: str, out: int) -> None:
        """``self * identity_1d(size, in_dim, dim{out})`` (size 0: the empty layout, no
        change)."""
        if size <= 0 or size & (size - 1):
            if size == 0:
                return
            raise NotCoveredError
        bits = size.bit_length() - 1
        # _columns written out: this is the builder's most frequent step.
        cols = self._cols.get(in_dim)
        if cols is None:
            self._ins.append(in_dim)
            cols = self._cols[in_dim] = []
        if out not in self._outs:
            self._outs.append(out)
        start = self._log2[out]
        if start + bits > MAX_DIM_LOG2 or len(cols) + bits > MAX_DIM_LOG2:
            raise NotCoveredError
        base = out * _WIDTH + start
        cols += [1 << (base + b) for b in range(bits)]
        self._log2[out] = start + bits

    def identity_standard(self, in_dim: str, sizes: Sequence[int], order: Sequence[int]) -> None:
        """``self * identity_standard_nd(in_dim, sizes, order)``: an identity factor per out
        dim, in ``order``."""
        for out in order:
            self.identity(sizes[out], in_dim, out)

    def zeros(self, size: int, in_dim: str, out: int) -> None:
        """``self * zeros_1d(size, in_dim, dim{out})`` (out size 1; size 0: no change)."""
        if size == 0:
            return
        bits = _log2_size(size)
        cols = self._columns(in_dim, out)
        if len(cols) + bits > MAX_DIM_LOG2:
            raise NotCoveredError
        cols += [0] * bits

    def times(self, other: LayoutBuilder) -> None:
        """``self * other``: other's bits of a shared in dim after self's, its coordinates
        of a shared out dim above self's."""
        ins = _merged(self._ins, other._ins)
        outs = _merged(self._outs, other._outs)
        shifts = self._log2
        for in_dim in other._ins:
            cols = self._cols.setdefault(in_dim, [])
            cols += [_moved(c, shifts) for c in other._cols[in_dim]]
            if len(cols) > MAX_DIM_LOG2:
                raise NotCoveredError
        for k in other._outs:
            self._log2[k] += other._log2[k]
            if self._log2[k] > MAX_DIM_LOG2:
                raise NotCoveredError
        self._ins = ins
        self._outs = outs

    def transpose_outs(self, order: Sequence[int]) -> None:
        """``transpose_outs``: the out dims reordered (a permutation of the present ones)."""
        if sorted(order) != sorted(self._outs):
            raise NotCoveredError
        self._outs = list(order)

    def remove_zero_registers(self) -> None:
        """Drop the zero bases of the first in dim, ``register`` (Triton's
        ``actionRemoveBroadcastedRegs`` applied)."""
        if not self._ins or self._ins[0] != "register":
            raise NotCoveredError
        self._cols["register"] = [c for c in self._cols["register"] if c]

    def project_away(self, out: int) -> None:
        """Zero every coordinate along ``dim{out}`` and make its size 1, the layout staying
        surjective (the CGA and CTA parts of a dot operand: K broadcast)."""
        keep = ~(_FIELD << (out * _WIDTH))
        for in_dim in self._ins:
            self._cols[in_dim] = [c & keep for c in self._cols[in_dim]]
        self._log2[out] = 0
        self._require_surjective()

    def _require_surjective(self) -> None:
        """NotCoveredError unless every output value is reached (the reference checks it)."""
        flat = [c for d in self._ins for c in self._cols[d]]
        if gf2.rank(flat) != sum(self._log2[k] for k in self._outs):
            raise NotCoveredError

    # ------------------------------------------------------------------ fitting to a shape

    def grow(self, sizes: Sequence[int]) -> None:
        """``ensure_layout_not_smaller_than``: out dim k below ``sizes[k]`` is extended by
        identity bases of the first in dim, in out-dim order."""
        if not self._outs:
            return
        if not self._ins:
            raise NotCoveredError
        first = self._ins[0]
        for k in list(self._outs):
            actual = 1 << self._log2[k]
            if actual < sizes[k]:
                self.identity(sizes[k] // actual, first, k)

    def shrink(self, sizes: Sequence[int], broadcast_registers: bool) -> None:
        """``ensure_layout_not_larger_than``: along each out dim k above ``sizes[k]`` the
        largest coordinates are zeroed (register bases removed instead when not
        ``broadcast_registers``), one value at a time, until the span fits."""
        removed: set[int] = set()
        for k in self._outs:
            target = sizes[k]
            _log2_size(target)
            span = 1 << self._log2[k]
            if span <= target:
                continue
            slot = k * _WIDTH
            found = []
            for i, in_dim in enumerate(self._ins):
                for j, column in enumerate(self._cols[in_dim]):
                    value = (column >> slot) & _FIELD
                    if value:
                        if value & (value - 1):
                            raise NotCoveredError  # only powers of 2 shrink; the reference says so
                        found.append((value, i, j))
            found.sort(key=_BY_VALUE, reverse=True)  # stable: ties keep their order
            position = 0
            while position < len(found) and span > target:
                value = found[position][0]
                while position < len(found) and found[position][0] == value:
                    _, i, j = found[position]
                    position += 1
                    in_dim = self._ins[i]
                    if not broadcast_registers and in_dim == "register":
                        removed.add(j)
                    else:
                        self._cols[in_dim][j] ^= value << slot
                span >>= 1
        if removed:
            cols = self._cols["register"]
            self._cols["register"] = [c for j, c in enumerate(cols) if j not in removed]
        for k in self._outs:
            self._log2[k] = min(self._log2[k], sizes[k].bit_length() - 1)

    def combine(
        self, cga: LayoutBuilder, shape: Sequence[int], broadcast_registers: bool = True
    ) -> LinearLayout:
        """``combine_cta_cga_with_shape(self, cga, shape, broadcast_registers)`` (this
        builder is the CTA part and is used up), out dims in standard order.

        Examples:
            >>> cta = LayoutBuilder(1)
            >>> cta.identity(2, "register", 0)
            >>> cta.identity(2, "lane", 0)
            >>> cga = LayoutBuilder.from_bases(1, [("block", [])], [0])
            >>> cta.combine(cga, [8]).bases
            [('register', [[1], [4]]), ('lane', [[2]]), ('block', [])]
        """
        rank = self._rank
        if len(shape) != rank or sorted(self._outs) != list(range(rank)):
            raise NotCoveredError
        for size in shape:
            _log2_size(size)
        cga.shrink(shape, True)
        cga.transpose_outs(self._outs)
        cta_shape = [max(1, shape[k] >> cga._log2[k]) for k in range(rank)]
        self.grow(cta_shape)
        self.shrink(cta_shape, broadcast_registers)
        self.times(cga)
        self._outs = list(range(rank))
        if any(1 << self._log2[k] != shape[k] for k in range(rank)):
            raise NotCoveredError  # the reference asserts this
        return self.layout()

    # ------------------------------------------------------------------ the result

    def layout(self) -> LinearLayout:
        """The LinearLayout built: fields packed in out-dim order, as wide as their sizes."""
        log2s = tuple(self._log2[k] for k in self._outs)
        shifts = [0] * self._rank
        for k, offset in zip(self._outs, field_offsets(log2s)):
            shifts[k] = offset - k * _WIDTH
        # A column of at most one bit (the common case) moves by its field's shift, done as
        # a left shift by shift + bias and a right shift by bias (bias >= every -shift); a
        # zero column stays 0 whichever field it picks (index -1).
        bias = self._rank * _WIDTH
        biased = [shift + bias for shift in shifts]
        cols = tuple(
            tuple(
                [
                    _moved(c, shifts)
                    if c & (c - 1)
                    else (c << biased[(c.bit_length() - 1) // _WIDTH]) >> bias
                    for c in self._cols[d]
                ]
            )
            for d in self._ins
        )
        if sum(log2s) > MAX_TOTAL_BITS or sum(map(len, cols)) > MAX_TOTAL_BITS:
            raise NotCoveredError
        names = tuple(f"dim{k}" for k in self._outs)
        return _make(tuple(self._ins), cols, names, log2s)


def cga_builder(
    cga_layout: Sequence[Sequence[int]], rank: int, k_dim: int | None = None
) -> LayoutBuilder:
    """The CGA part ``block -> dim0..`` of an encoding whose ``cga_layout`` its constructor
    validated (``cga_linear_layout``); with ``k_dim``, that dim projected away (a dot
    operand's CGA part, ``dot_operand_cga_layout``).

    Examples:
        >>> cga_builder([[0, 1]], 2).layout().bases
        [('block', [[0, 1]])]
        >>> cga_builder([[0, 1]], 2, k_dim=1).layout().out_dims
        [('dim0', 1), ('dim1', 1)]
    """
    if not cga_layout:  # one CTA: the common case, built directly
        builder = LayoutBuilder(rank)
        builder._ins.append("block")
        builder._cols["block"] = []
        builder._outs = list(range(rank))
        return builder
    builder = LayoutBuilder.from_bases(rank, [("block", cga_layout)], range(rank))
    if k_dim is not None:
        builder.project_away(k_dim)
    return builder


def slice_layout(parent: LinearLayout, dim: int) -> LinearLayout:
    """The layout of ``SliceLayout(dim, parent)`` from the parent's layout on the shape with
    a size-1 ``dim{dim}``: that dim removed, the later ones renumbered, the zero register
    bases dropped (as the reference path does with ``remove_standard_dim``).

    Examples:
        >>> parent = LinearLayout.from_bases([("register", [[0, 1], [0, 2]])], ["dim0", "dim1"])
        >>> slice_layout(parent, 0).bases
        [('register', [[1], [2]])]
    """
    rank = parent.num_out_dims
    names = parent.get_out_dim_names()
    if names != [f"dim{k}" for k in range(rank)] or parent.get_out_dim_size(names[dim]) != 1:
        raise NotCoveredError
    # A size-1 out dim has a field of width 0: the packed columns do not change.
    cols = tuple(
        tuple(c for c in in_cols if c) if in_dim == "register" else in_cols
        for in_dim, in_cols in zip(parent._ins, parent._cols)
    )
    log2s = parent._out_log2[:dim] + parent._out_log2[dim + 1 :]
    result = _make(parent._ins, cols, tuple(names[: rank - 1]), log2s)
    if not result.is_surjective():
        raise NotCoveredError
    return result
