"""CuTe's layout algebra: coalesce, composition, complement, inverses, divides and products.

Each operation is CuTe's (the definitions of CuTe C++ and CUTLASS's ``pycute``, which
tests/test_cute.py checks them against on generated cases), with the conditions CuTe
asserts checked up front and refused with a :class:`CuteAlgebraError` that names the
operation, the mode and the numbers:

* composition ``A o B`` needs, at each mode of ``coalesce(A)`` that B's stride walks past,
  the *stride divisibility* (the mode's size divides B's remaining stride or the other way
  round) and the *shape divisibility* (the part taken divides B's remaining shape); the
  result then satisfies ``R(i) == A(B(i))`` for every i in B's domain;
* complement needs non-negative strides whose sorted modes do not overlap: each stride at
  least the extent of the modes below it (pycute asserts a weaker bound and returns a
  layout with a shape of 0 for some overlapping layouts).

One deliberate difference: ``logical_product(A, n)`` with an int ``n`` is the product with
the layout ``n:1``, as in CuTe C++ (pycute's Python port calls the *divide* there).

Examples:
    >>> from llverify.cute.layout import Layout
    >>> print(composition(Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1))))
    ((2, 2), 3):((24, 2), 8)
    >>> print(complement(Layout(4, 2), 24))
    (2, 3):(1, 8)
    >>> print(logical_divide(Layout(16, 1), Layout(4, 2)))
    (4, (2, 2)):(2, (1, 8))
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any

from llverify.cute.layout import (
    ComposedLayout,
    IntTuple,
    Layout,
    flatten,
    make_layout,
    prefix_product,
    product,
)
from llverify.errors import LayoutError, LayoutTypeError, shown

__all__ = [
    "CuteAlgebraError",
    "blocked_product",
    "coalesce",
    "complement",
    "composition",
    "downcast",
    "filter_zeros",
    "left_inverse",
    "logical_divide",
    "logical_product",
    "make_layout_tv",
    "raked_product",
    "right_inverse",
    "tiled_divide",
    "tiled_product",
    "upcast",
    "with_shape",
    "zipped_divide",
    "zipped_product",
]


class CuteAlgebraError(LayoutError):
    """A CuTe operation's precondition does not hold (CuTe asserts it; pycute asserts or
    returns a wrong layout)."""


def _layout(value: Any, name: str) -> Layout:
    if isinstance(value, Layout):
        return value
    raise LayoutTypeError(
        f"Argument '{name}' must be a CuTe Layout, not {type(value).__name__} {shown(value)}."
    )


def _from_modes(shapes: list[int], strides: list[int]) -> Layout:
    """One mode as an int, several as a flat tuple (pycute's convention)."""
    if len(shapes) == 1:
        return Layout(shapes[0], strides[0])
    return Layout(tuple(shapes), tuple(strides))


# ---------------------------------------------------------------------- coalesce, filter


def coalesce(layout: Layout, profile: Any = None) -> Layout:
    """The flattest layout with the same int-to-int function: unit modes dropped and
    neighbouring modes with ``shape0 * stride0 == stride1`` merged.  A tuple ``profile``
    coalesces each of the first ``len(profile)`` modes on its own.

    Examples:
        >>> print(coalesce(Layout((2, (1, 4)), (1, (6, 2)))))
        8:1
        >>> print(coalesce(Layout(((2, 4), (4, 3)), ((1, 2), (8, 32))), (1, 1)))
        (8, 12):(1, 8)
    """
    layout = _layout(layout, "layout")
    if isinstance(profile, tuple):
        if len(layout) < len(profile):
            raise CuteAlgebraError(
                f"coalesce: Argument 'profile' {shown(profile)} has more modes than the "
                f"layout {layout} ({len(layout)})."
            )
        head = (coalesce(layout[i], profile[i]) for i in range(len(profile)))
        return make_layout(chain(head, (layout[i] for i in range(len(profile), len(layout)))))
    shapes = [1]
    strides = [0]
    for shape, stride in zip(flatten(layout.shape), flatten(layout.stride)):
        if shape == 1:
            continue
        if shapes[-1] == 1:
            shapes[-1], strides[-1] = shape, stride
        elif shapes[-1] * strides[-1] == stride:
            shapes[-1] *= shape
        else:
            shapes.append(shape)
            strides.append(stride)
    return _from_modes(shapes, strides)


def filter_zeros(layout: Layout, profile: Any = None) -> Layout:
    """CuTe's ``filter``: stride-0 and size-1 modes removed, then coalesced.

    Examples:
        >>> print(filter_zeros(Layout((4, 2, 8), (1, 0, 4))))
        32:1
    """
    layout = _layout(layout, "layout")
    if isinstance(profile, tuple):
        if len(layout) < len(profile):
            raise CuteAlgebraError(
                f"filter: Argument 'profile' {shown(profile)} has more modes than the "
                f"layout {layout} ({len(layout)})."
            )
        head = (filter_zeros(layout[i], profile[i]) for i in range(len(profile)))
        return make_layout(chain(head, (layout[i] for i in range(len(profile), len(layout)))))
    kept = [
        (s, d) for s, d in zip(flatten(layout.shape), flatten(layout.stride)) if s != 1 and d != 0
    ]
    if not kept:
        return Layout(1, 0)
    return coalesce(Layout(tuple(s for s, _ in kept), tuple(d for _, d in kept)))


# ---------------------------------------------------------------------- composition


def composition(a: Any, b: Any) -> Any:
    """``a o b``: the layout ``R`` with ``R(i) == a(b(i))`` over b's domain, shaped like b.

    ``b`` may be a Layout, an int ``n`` (the layout ``n:1``), None (a no-op) or a tuple of
    those, applied mode by mode (a *tiler*).  ``a`` may be a :class:`ComposedLayout`, whose
    inner layout is composed.

    Examples:
        >>> print(composition(Layout((4, 8), (8, 1)), Layout((2, 4), (1, 8))))
        (2, 4):(8, 2)
        >>> print(composition(Layout((4, 8), (1, 4)), (2, 4)))
        (2, 4):(1, 4)
        >>> composition(Layout((3, 4), (1, 5)), Layout(2, 2))
        Traceback (most recent call last):
        ...
        llverify.cute.algebra.CuteAlgebraError: composition: stride divisibility fails at mode 0 (shape 3) of coalesce(A) = (3, 4):(1, 5): neither of 3 and the remaining stride 2 divides the other.
    """  # noqa: E501
    if isinstance(a, ComposedLayout):
        return ComposedLayout(a.outer, a.offset, composition(a.inner, b))
    a = _layout(a, "a")
    if b is None:
        return a
    if isinstance(b, bool):
        raise LayoutTypeError(f"Argument 'b' must be a Layout, an int, None or a tuple, not {b}.")
    if isinstance(b, int):
        return composition(a, Layout(b))
    if isinstance(b, tuple):
        if len(a) < len(b):
            raise CuteAlgebraError(
                f"composition: the tiler {shown(b)} has {len(b)} modes, more than A = {a} "
                f"({len(a)})."
            )
        head = (composition(a[i], b[i]) for i in range(len(b)))
        return make_layout(chain(head, (a[i] for i in range(len(b), len(a)))))
    b = _layout(b, "b")
    if isinstance(b.shape, tuple):
        return make_layout(composition(a, mode) for mode in b)
    assert isinstance(b.stride, int)
    return _compose_mode(a, b.shape, b.stride)


def _compose_mode(a: Layout, shape: int, stride: int) -> Layout:
    """``a o shape:stride`` for one int mode."""
    if stride == 0:
        return Layout(shape, 0)
    if stride < 0:
        raise CuteAlgebraError(
            f"composition: the right-hand layout {shape}:{stride} has a negative stride; "
            "only strides >= 0 are supported."
        )
    flat = coalesce(a)
    a_shapes = flatten(flat.shape)
    a_strides = flatten(flat.stride)
    shapes: list[int] = []
    strides: list[int] = []
    rest_shape, rest_stride = shape, stride
    for mode, (a_shape, a_stride) in enumerate(zip(a_shapes[:-1], a_strides[:-1])):
        if a_shape % rest_stride and rest_stride % a_shape:
            raise CuteAlgebraError(
                f"composition: stride divisibility fails at mode {mode} (shape {a_shape}) of "
                f"coalesce(A) = {flat}: neither of {a_shape} and the remaining stride "
                f"{rest_stride} divides the other."
            )
        taken = min(max(1, a_shape // rest_stride), rest_shape)
        if rest_shape % taken:
            raise CuteAlgebraError(
                f"composition: shape divisibility fails at mode {mode} (shape {a_shape}) of "
                f"coalesce(A) = {flat}: {taken} elements fit in it, which does not divide "
                f"the remaining shape {rest_shape} of {shape}:{stride}."
            )
        if taken != 1:
            shapes.append(taken)
            strides.append(rest_stride * a_stride)
        rest_shape //= taken
        rest_stride = -(-rest_stride // a_shape)  # ceil division
    if rest_shape != 1 or not shapes:
        shapes.append(rest_shape)
        strides.append(rest_stride * a_strides[-1])
    return _from_modes(shapes, strides)


# ---------------------------------------------------------------------- complement, inverses


def complement(layout: Any, cotarget: int = 1) -> Layout:
    """The layout of the indices in ``[0, cotarget)`` that ``layout`` does not reach, ordered:
    ``make_layout(layout, complement(layout, n))`` is a bijection onto ``[0, n')`` for some
    ``n' >= n`` (for an injective ``layout``).

    Examples:
        >>> print(complement(Layout((2, 2), (1, 6)), 24))
        (3, 2):(2, 12)
        >>> complement(Layout((2, 2), (2, 3)))
        Traceback (most recent call last):
        ...
        llverify.cute.algebra.CuteAlgebraError: complement: the modes of (2, 2):(2, 3) overlap: stride 3 is below 4, the extent of the modes with smaller strides.
    """  # noqa: E501
    if isinstance(layout, int) and not isinstance(layout, bool):
        layout = Layout(layout)
    layout = _layout(layout, "layout")
    if isinstance(cotarget, bool) or not isinstance(cotarget, int) or cotarget < 1:
        raise LayoutTypeError(f"Argument 'cotarget' must be an int >= 1, not {shown(cotarget)}.")
    shapes: list[int] = []
    strides: list[int] = []
    current = 1
    for stride, shape in sorted(zip(flatten(layout.stride), flatten(layout.shape))):
        if stride < 0:
            raise CuteAlgebraError(
                f"complement: {layout} has the negative stride {stride}; complement needs "
                "strides >= 0."
            )
        if stride == 0 or shape == 1:
            continue
        if stride < current:
            raise CuteAlgebraError(
                f"complement: the modes of {layout} overlap: stride {stride} is below "
                f"{current}, the extent of the modes with smaller strides."
            )
        shapes.append(stride // current)
        strides.append(current)
        current = shape * stride
    shapes.append(-(-cotarget // current))
    strides.append(current)
    return coalesce(Layout(tuple(shapes), tuple(strides)))


def right_inverse(layout: Any) -> Layout:
    """A layout ``R`` with ``layout(R(i)) == i`` on R's domain (the largest prefix of
    indices ``0, 1, 2, ...`` that ``layout`` reaches contiguously).

    Examples:
        >>> print(right_inverse(Layout((4, 8), (8, 1))))
        (8, 4):(4, 1)
    """
    if isinstance(layout, int) and not isinstance(layout, bool):
        return Layout(layout)
    layout = _layout(layout, "layout")
    flat_shape = flatten(layout.shape)
    flat_stride = flatten(layout.stride)
    starts = flatten(prefix_product(flat_shape))
    shapes: list[int] = []
    strides: list[int] = []
    current = 1
    for stride, shape, start in sorted(zip(flat_stride, flat_shape, starts)):
        if shape == 1:
            continue
        if current != stride:
            break
        shapes.append(shape)
        strides.append(start)
        current = shape * stride
    return coalesce(Layout(tuple(shapes), tuple(strides)))


def left_inverse(layout: Any) -> Layout:
    """A layout ``L`` with ``L(layout(i)) == i`` for every i of an injective ``layout``.

    Examples:
        >>> print(left_inverse(Layout((4, 2), (2, 1))))
        (2, 4):(4, 1)
    """
    if isinstance(layout, int) and not isinstance(layout, bool):
        return Layout(layout)
    layout = _layout(layout, "layout")
    return right_inverse(make_layout(layout, complement(layout)))


# ---------------------------------------------------------------------- divides and products


def _by_mode(name: str, op: Any, a: Layout, b: tuple[Any, ...]) -> Layout:
    if len(a) < len(b):
        raise CuteAlgebraError(
            f"{name}: the tiler {shown(b)} has {len(b)} modes, more than A = {a} ({len(a)})."
        )
    head = (op(a[i], b[i]) for i in range(len(b)))
    return make_layout(chain(head, (a[i] for i in range(len(b), len(a)))))


def logical_divide(a: Any, b: Any) -> Any:
    """``a`` split by the tiler ``b``: ``a o (b, complement(b, size(a)))``; mode 0 is the
    tile, mode 1 the tiles.  ``b`` may be an int, None or a tuple of tilers (by mode).

    Examples:
        >>> print(logical_divide(Layout((4, 2, 3), (2, 1, 8)), Layout(4, 2)))
        ((2, 2), (2, 3)):((4, 1), (2, 8))
    """
    if b is None:
        return a
    if isinstance(b, int) and not isinstance(b, bool):
        return logical_divide(a, Layout(b))
    if isinstance(b, tuple):
        return _by_mode("logical_divide", logical_divide, _layout(a, "a"), b)
    b = _layout(b, "b")
    size = a.size() if isinstance(a, (Layout, ComposedLayout)) else _layout(a, "a").size()
    return composition(a, make_layout(b, complement(b, size)))


def logical_product(a: Any, b: Any) -> Layout:
    """``a`` repeated by ``b``: ``(a, complement(a, size(a) * cosize(b)) o b)``.

    Examples:
        >>> print(logical_product(Layout((2, 2), (4, 1)), Layout(6, 1)))
        ((2, 2), (2, 3)):((4, 1), (2, 8))
        >>> print(logical_product(Layout(4, 1), 3))
        (4, 3):(1, 4)
    """
    if b is None:
        return _layout(a, "a")
    if isinstance(b, int) and not isinstance(b, bool):
        return logical_product(a, Layout(b))
    a = _layout(a, "a")
    if isinstance(b, tuple):
        return _by_mode("logical_product", logical_product, a, b)
    b = _layout(b, "b")
    return make_layout(a, composition(complement(a, a.size() * b.cosize()), b))


def _unzip(splitter: Any, a: Layout, b: Any) -> Layout:
    """CuTe's ``hier_unzip``: split mode by mode, gather the tile parts into mode 0 and the
    rest (and a's modes beyond the tiler) into mode 1."""
    if b is None:
        return make_layout(Layout(1, 0), a)
    if isinstance(b, tuple):
        if len(a) < len(b):
            raise CuteAlgebraError(
                f"the tiler {shown(b)} has {len(b)} modes, more than A = {a} ({len(a)})."
            )
        split = [_unzip(splitter, a[i], b[i]) for i in range(len(b))]
        tiles = make_layout(part[0] for part in split)
        rests = make_layout(
            chain((part[1] for part in split), (a[i] for i in range(len(b), len(a))))
        )
        return make_layout(tiles, rests)
    result = splitter(a, b)
    assert isinstance(result, Layout)
    return result


def _promote_rest(zipped: Layout) -> Layout:
    """A zipped layout ``(tile, (rest...))`` as ``(tile, rest...)``: the rest's modes at the
    top level (the tiled forms of :func:`zipped_divide` and :func:`zipped_product`)."""
    return make_layout([zipped[0], *zipped[1]])


def zipped_divide(a: Any, b: Any) -> Layout:
    """:func:`logical_divide` by mode, the tiles gathered in mode 0 and the rest in mode 1.

    Examples:
        >>> print(zipped_divide(Layout((8, 8)), (Layout(2), Layout(4))))
        ((2, 4), (4, 2)):((1, 8), (2, 32))
    """
    return _unzip(logical_divide, _layout(a, "a"), b)


def tiled_divide(a: Any, b: Any) -> Layout:
    """:func:`zipped_divide` with the rest's modes promoted to the top level.

    Examples:
        >>> print(tiled_divide(Layout((8, 8)), (Layout(2), Layout(4))))
        ((2, 4), 4, 2):((1, 8), 2, 32)
    """
    return _promote_rest(zipped_divide(a, b))


def zipped_product(a: Any, b: Any) -> Layout:
    """:func:`logical_product` by mode, gathered like :func:`zipped_divide`.

    Examples:
        >>> print(zipped_product(Layout((2, 2)), (Layout(3), Layout(2))))
        ((2, 2), (3, 2)):((1, 2), (2, 1))
    """
    return _unzip(logical_product, _layout(a, "a"), b)


def tiled_product(a: Any, b: Any) -> Layout:
    """:func:`zipped_product` with the rest's modes promoted to the top level.

    Examples:
        >>> print(tiled_product(Layout((2, 2)), (Layout(3), Layout(2))))
        ((2, 2), 3, 2):((1, 2), 2, 1)
    """
    return _promote_rest(zipped_product(a, b))


def _append(layout: Layout, rank: int) -> Layout:
    """``layout`` padded with ``1:0`` modes to ``rank`` (CuTe's ``append<R>``)."""
    if len(layout) >= rank:
        return layout
    modes = list(layout) if isinstance(layout.shape, tuple) else [layout]
    return make_layout(modes + [Layout(1, 0)] * (rank - len(modes)))


def _product_zip(a: Any, b: Any, *, raked: bool) -> Layout:
    a, b = _layout(a, "a"), _layout(b, "b")
    rank = max(len(a), len(b))
    result = logical_product(_append(a, rank), _append(b, rank))
    block, tiles = result[0], result[1]
    if rank == 1:
        modes = [make_layout(tiles, block) if raked else make_layout(block, tiles)]
    else:
        pairs = zip(tiles, block) if raked else zip(block, tiles)
        modes = [make_layout(x, y) for x, y in pairs]
    return coalesce(make_layout(modes), (1,) * rank)


def blocked_product(a: Any, b: Any) -> Layout:
    """CuTe's ``blocked_product``: each mode of ``b`` repeats the whole corresponding mode
    of ``a`` (a's blocks stay contiguous).

    Examples:
        >>> print(blocked_product(Layout((2, 2)), Layout((2, 3))))
        ((2, 2), (2, 3)):((1, 4), (2, 8))
    """
    return _product_zip(a, b, raked=False)


def raked_product(a: Any, b: Any) -> Layout:
    """CuTe's ``raked_product``: like :func:`blocked_product` with ``b`` varying fastest, so
    a's elements are interleaved (raked) across b's repetitions.

    Examples:
        >>> print(raked_product(Layout((2, 2)), Layout((2, 3))))
        ((2, 2), (3, 2)):((4, 1), (8, 2))
    """
    return _product_zip(a, b, raked=True)


def with_shape(layout: Any, shape: IntTuple) -> Layout:
    """``layout`` re-indexed by ``shape`` (``layout o make_layout(shape)``).

    Examples:
        >>> print(with_shape(Layout(32, 1), (4, 8)))
        (4, 8):(1, 4)
    """
    result = composition(layout, Layout(shape))
    assert isinstance(result, Layout)
    return result


def make_layout_tv(thr_layout: Any, val_layout: Any) -> tuple[tuple[int, ...], Layout]:
    """CuTe's ``make_layout_tv``: the MN tile and the thread-value layout of threads
    arranged as ``thr_layout`` ((m, n) -> thread) each holding values arranged as
    ``val_layout`` ((m, n) -> value).  The TV layout maps (thread, value) to the index of an
    element of the tile (colexicographic: ``m + M * n``).

    Examples:
        >>> tile, tv = make_layout_tv(Layout((4, 8), (8, 1)), Layout((2, 1)))
        >>> tile, str(tv)
        ((8, 8), '((8, 4), 2):((8, 2), 1)')
    """
    thr_layout = _layout(thr_layout, "thr_layout")
    val_layout = _layout(val_layout, "val_layout")
    layout_mn = raked_product(thr_layout, val_layout)
    tile = (
        tuple(product(mode) for mode in layout_mn.shape)
        if isinstance(layout_mn.shape, tuple)
        else (layout_mn.shape,)
    )
    tv = with_shape(right_inverse(layout_mn), (thr_layout.size(), val_layout.size()))
    return tile, tv


# ---------------------------------------------------------------------- recasting


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise LayoutTypeError(f"Argument '{name}' must be an int >= 1, not {shown(value)}.")
    return int(value)


def _map_modes(layout: Layout, one: Callable[[int, int], tuple[int, int]]) -> Layout:
    """``layout`` with each leaf mode ``shape:stride`` replaced by ``one(shape, stride)``,
    the nesting kept.

    Examples:
        >>> print(_map_modes(Layout((2, (3, 4)), (1, (2, 6))), lambda s, d: (s, 2 * d)))
        (2, (3, 4)):(2, (4, 12))
    """

    def walk(shape: IntTuple, stride: IntTuple) -> tuple[IntTuple, IntTuple]:
        if isinstance(shape, tuple):
            assert isinstance(stride, tuple)
            pairs = [walk(s, d) for s, d in zip(shape, stride)]
            return tuple(s for s, _ in pairs), tuple(d for _, d in pairs)
        assert isinstance(stride, int)
        return one(shape, stride)

    shape, stride = walk(layout.shape, layout.stride)
    return Layout(shape, stride)


def upcast(layout: Any, n: int) -> Layout:
    """CuTe's ``upcast<N>``: the layout in units of ``n`` elements (as when reinterpreting
    16-bit elements as 64-bit ones, ``n = 4``): each stride divided by n (rounded up), each
    mode whose stride is below n shrunk by ``n / stride``; stride-0 modes unchanged.

    Examples:
        >>> print(upcast(Layout((8, 4), (1, 8)), 2))
        (4, 4):(1, 4)
        >>> upcast(Layout(4, 3), 2)
        Traceback (most recent call last):
        ...
        llverify.cute.algebra.CuteAlgebraError: upcast: stride 3 and 2 must divide one another.
    """
    layout = _layout(layout, "layout")
    n = _count(n, "n")

    def one(shape: int, stride: int) -> tuple[int, int]:
        if stride == 0:
            return shape, 0
        magnitude = abs(stride)
        if magnitude % n and n % magnitude:
            raise CuteAlgebraError(f"upcast: stride {stride} and {n} must divide one another.")
        shrink = -(-n // magnitude)
        sign = 1 if stride > 0 else -1
        return -(-shape // shrink), sign * -(-magnitude // n)

    return _map_modes(layout, one)


def downcast(layout: Any, n: int) -> Layout:
    """CuTe's ``downcast<N>``: the layout in units of ``1/n`` elements: stride-±1 modes
    grow n times, every other stride is multiplied by n.

    Examples:
        >>> print(downcast(Layout((4, 4), (1, 4)), 2))
        (8, 4):(1, 8)
    """
    layout = _layout(layout, "layout")
    n = _count(n, "n")

    def one(shape: int, stride: int) -> tuple[int, int]:
        if stride in (1, -1):
            return shape * n, stride
        return shape, stride * n

    return _map_modes(layout, one)
