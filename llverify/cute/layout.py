"""CuTe's value types: IntTuple shapes and strides, Layout, Swizzle and ComposedLayout.

A CuTe layout is a pair of congruent IntTuples (an int, or a tuple of IntTuples): a *shape*
and a *stride*.  It maps a coordinate to an index: a natural coordinate (one int per leaf
of the shape) to the inner product with the strides, and a flat int ``i`` in
``[0, size)`` first to the natural coordinate it names colexicographically (leftmost leaf
fastest).  The default stride is the compact column-major one (CuTe's ``LayoutLeft``).

Printing follows CUTLASS's Python package ``pycute`` exactly (``str`` gives
``"(4, 8):(1, 4)"``, ``repr`` gives ``"Layout((4, 8),(1, 4))"``); :meth:`Layout.cute_str`
gives CuTe C++'s spelling ``"(4,8):(1,4)"``.  :func:`parse` reads both, C++'s static
marks (``_4``) and swizzles (``SW_3_4_3``, ``Sw<3,4,3>``) included.

Differences from pycute, all refusals of input pycute accepts or asserts on: shapes are ints
>= 1 and strides ints, congruent to the shape (checked at construction); a coordinate
outside the layout's domain is refused (pycute extrapolates along the last mode).

Examples:
    >>> layout = Layout((4, 8), (1, 4))
    >>> print(layout, layout.size(), layout.cosize(), layout(5), layout(1, 2))
    (4, 8):(1, 4) 32 32 5 9
    >>> parse("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)")
    ComposedLayout(Swizzle(3,4,3),0,Layout((8, 64),(64, 1)))
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from llverify.errors import LayoutError, LayoutTypeError, ParseError, shown

#: An IntTuple: an int or a (nested) tuple of ints.
IntTuple = int | tuple[Any, ...]

__all__ = [
    "ComposedLayout",
    "IntTuple",
    "Layout",
    "Swizzle",
    "crd2idx",
    "flatten",
    "idx2crd",
    "is_layout",
    "make_layout",
    "parse",
    "prefix_product",
    "product",
]


# ---------------------------------------------------------------------- IntTuple helpers


def _int_tuple(value: Any, name: str, *, positive: bool) -> IntTuple:
    """``value`` as an IntTuple (lists become tuples), ints >= 1 when ``positive``."""
    if isinstance(value, (tuple, list)):
        return tuple(_int_tuple(v, f"{name}[{i}]", positive=positive) for i, v in enumerate(value))
    if isinstance(value, bool) or not isinstance(value, int):
        raise LayoutTypeError(
            f"Argument '{name}' must be an int or a tuple of IntTuples, not "
            f"{type(value).__name__} {shown(value)}."
        )
    if positive and value < 1:
        raise LayoutError(f"Argument '{name}' must be a shape of ints >= 1, not {value}.")
    return int(value)


def flatten(value: IntTuple) -> tuple[int, ...]:
    """The leaves of an IntTuple, left to right.

    Examples:
        >>> flatten(((2, 3), 4)), flatten(5), flatten(())
        ((2, 3, 4), (5,), ())
    """
    if isinstance(value, tuple):
        return tuple(leaf for item in value for leaf in flatten(item))
    return (value,)


def product(value: IntTuple) -> int:
    """The product of an IntTuple's leaves (1 for the empty tuple).

    Examples:
        >>> product(((2, 3), 4)), product(())
        (24, 1)
    """
    result = 1
    for leaf in flatten(value):
        result *= leaf
    return result


def prefix_product(shape: IntTuple, start: int = 1) -> IntTuple:
    """The exclusive prefix product of ``shape``, congruent to it: the compact column-major
    (``LayoutLeft``) strides.

    Examples:
        >>> prefix_product(((2, 3), 4))
        ((1, 2), 6)
    """
    if not isinstance(shape, tuple):
        return start
    strides = []
    for item in shape:
        strides.append(prefix_product(item, start))
        start *= product(item)
    return tuple(strides)


def _congruent(shape: IntTuple, stride: IntTuple) -> bool:
    if isinstance(shape, tuple) != isinstance(stride, tuple):
        return False
    if not isinstance(shape, tuple):
        return True
    assert isinstance(stride, tuple)
    return len(shape) == len(stride) and all(map(_congruent, shape, stride))


def idx2crd(index: int, shape: IntTuple) -> IntTuple:
    """The natural coordinate (congruent to ``shape``) of the flat index ``index``,
    colexicographic: the leftmost leaf varies fastest.

    Examples:
        >>> idx2crd(7, ((2, 3), 4))
        ((1, 0), 1)
    """
    if not isinstance(shape, tuple):
        return index
    coords = []
    for item in shape:
        size = product(item)
        coords.append(idx2crd(index % size, item))
        index //= size
    return tuple(coords)


def crd2idx(coord: Any, shape: IntTuple, stride: IntTuple) -> int:
    """The index of ``coord`` (an int, or a tuple congruent to a prefix of the modes, each
    entry itself an int or a tuple) under ``shape``:``stride``; no bounds check.

    Examples:
        >>> crd2idx(5, (4, 8), (1, 4)), crd2idx((1, 2), (4, 8), (1, 4))
        (5, 9)
    """
    if isinstance(coord, tuple):
        if not isinstance(shape, tuple) or len(coord) != len(shape):
            raise LayoutError(
                f"Argument 'coord' {shown(coord)} must be an int or congruent to the shape {shape}."
            )
        assert isinstance(stride, tuple)
        return sum(crd2idx(c, s, d) for c, s, d in zip(coord, shape, stride))
    if not isinstance(shape, tuple):
        assert not isinstance(stride, tuple)
        return coord * stride
    assert isinstance(stride, tuple)
    total = 0
    for item, item_stride in zip(shape[:-1], stride[:-1]):
        size = product(item)
        total += crd2idx(coord % size, item, item_stride)
        coord //= size
    return total + (crd2idx(coord, shape[-1], stride[-1]) if shape else 0)


# ---------------------------------------------------------------------- Layout


class Layout:
    """A CuTe layout ``shape:stride``: coordinates to indices.

    Args:
        shape: an IntTuple of ints >= 1 (lists are read as tuples).
        stride: an IntTuple congruent to ``shape``; default the compact column-major one.

    Examples:
        >>> Layout((2, (2, 2)), (4, (1, 2)))(5)
        6
        >>> Layout((4, 8), (1,))
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'stride' (1,) must be congruent to the shape (4, 8) (the same nesting of tuples and ints).
    """  # noqa: E501

    __slots__ = ("shape", "stride")

    shape: IntTuple
    stride: IntTuple

    def __init__(self, shape: Any, stride: Any = None) -> None:
        checked_shape = _int_tuple(shape, "shape", positive=True)
        if stride is None:
            checked_stride = prefix_product(checked_shape)
        else:
            checked_stride = _int_tuple(stride, "stride", positive=False)
            if not _congruent(checked_shape, checked_stride):
                raise LayoutError(
                    f"Argument 'stride' {checked_stride} must be congruent to the shape "
                    f"{checked_shape} (the same nesting of tuples and ints)."
                )
        object.__setattr__(self, "shape", checked_shape)
        object.__setattr__(self, "stride", checked_stride)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Layout is immutable: cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        return self.shape == other.shape and self.stride == other.stride

    def __hash__(self) -> int:
        return hash((self.shape, self.stride))

    def __len__(self) -> int:
        """The rank: the number of top-level modes (1 for an int shape)."""
        return len(self.shape) if isinstance(self.shape, tuple) else 1

    def __iter__(self) -> Iterator[Layout]:
        return (self[i] for i in range(len(self)))

    def __getitem__(self, mode: int) -> Layout:
        """Top-level mode ``mode`` as a layout.

        Examples:
            >>> Layout(((2, 4), 8), ((1, 16), 2))[0]
            Layout((2, 4),(1, 16))
        """
        if isinstance(mode, bool) or not isinstance(mode, int):
            raise LayoutTypeError(f"Argument 'mode' must be an int, not {shown(mode)}.")
        if not isinstance(self.shape, tuple):
            if mode not in (0, -1):
                raise LayoutError(f"Argument 'mode' must be 0 for a rank-1 layout, not {mode}.")
            return self
        if not -len(self.shape) <= mode < len(self.shape):
            raise LayoutError(
                f"Argument 'mode' must be in [0, {len(self.shape)}) for {self}, not {mode}."
            )
        assert isinstance(self.stride, tuple)
        return Layout(self.shape[mode], self.stride[mode])

    def size(self) -> int:
        """The domain's size: the product of the shape."""
        return product(self.shape)

    def cosize(self) -> int:
        """The codomain's size, CuTe's ``cosize``: ``L(size - 1) + 1``.

        Examples:
            >>> Layout((4, 2), (2, 1)).cosize()
            8
        """
        return self._index(self.size() - 1) + 1

    def _index(self, coord: Any) -> int:
        """``crd2idx`` without the domain check (CuTe's own extrapolating semantics)."""
        return crd2idx(coord, self.shape, self.stride)

    def __call__(self, *coord: Any) -> Any:
        """The index of a coordinate: a flat int, a natural coordinate, or one int (or
        tuple) per mode; ``None`` in a coordinate slices (the sublayout of its modes).

        Examples:
            >>> L = Layout((4, 8), (1, 4))
            >>> L(31), L((3, 7)), L(3, 7), L(2, None)
            (31, 31, 31, Layout((8,),(4,)))
            >>> L(32)
            Traceback (most recent call last):
            ...
            llverify.errors.LayoutError: Argument 'coord' 32 is outside the domain [0, 32) of (4, 8):(1, 4).
        """  # noqa: E501
        value: Any = coord[0] if len(coord) == 1 else tuple(coord)
        if not coord:
            raise LayoutTypeError("Argument 'coord' is missing: give an int or a tuple.")
        if _has_none(value):
            return self._slice(value)
        self._check_coord(value, self.shape, value)
        return self._index(value)

    def _check_coord(self, coord: Any, shape: IntTuple, whole: Any) -> None:
        if isinstance(coord, tuple):
            if not isinstance(shape, tuple) or len(coord) != len(shape):
                raise LayoutError(
                    f"Argument 'coord' {shown(whole)} must be an int or congruent to the "
                    f"shape {self.shape} of {self}."
                )
            for c, s in zip(coord, shape):
                self._check_coord(c, s, whole)
            return
        if isinstance(coord, bool) or not isinstance(coord, int):
            raise LayoutTypeError(
                f"Argument 'coord' must hold ints, not {type(coord).__name__} {shown(coord)}."
            )
        if not 0 <= coord < product(shape):
            raise LayoutError(
                f"Argument 'coord' {shown(whole)} is outside the domain [0, {product(shape)}) "
                f"of {self}."
            )

    def _slice(self, coord: Any) -> Layout:
        shape = _sliced(coord, self.shape, "coord")
        stride = _sliced(coord, self.stride, "coord")
        return Layout(shape, stride)

    def __str__(self) -> str:
        return f"{self.shape}:{self.stride}"

    def __repr__(self) -> str:
        return f"Layout({self.shape},{self.stride})"

    def cute_str(self) -> str:
        """CuTe C++'s spelling (no spaces): ``(4,8):(1,4)``.

        Examples:
            >>> Layout(((2, 4), 8), ((1, 16), 2)).cute_str()
            '((2,4),8):((1,16),2)'
        """
        return f"{_cute_tuple(self.shape)}:{_cute_tuple(self.stride)}"


def _cute_tuple(value: IntTuple) -> str:
    if isinstance(value, tuple):
        return "(" + ",".join(_cute_tuple(v) for v in value) + ")"
    return str(value)


def _has_none(value: Any) -> bool:
    if isinstance(value, tuple):
        return any(_has_none(v) for v in value)
    return value is None


def _sliced(coord: Any, target: IntTuple, name: str) -> IntTuple:
    """The parts of ``target`` where ``coord`` holds None (CuTe's ``slice``), flattened into
    one tuple as CuTe's ``filter_tuple`` does."""
    if isinstance(coord, tuple):
        if not isinstance(target, tuple) or len(coord) != len(target):
            raise LayoutError(f"Argument '{name}' {shown(coord)} must be congruent to {target}.")
        parts: list[Any] = []
        for c, t in zip(coord, target):
            kept = _sliced(c, t, name)
            if kept != ():
                assert isinstance(kept, tuple)
                parts.extend(kept)
        return tuple(parts)
    if coord is None:
        return (target,)
    return ()


def is_layout(value: Any) -> bool:
    """Whether ``value`` is a CuTe :class:`Layout` or :class:`ComposedLayout`.

    Examples:
        >>> is_layout(Layout(4)), is_layout((4,))
        (True, False)
    """
    return isinstance(value, (Layout, ComposedLayout))


def make_layout(*layouts: Any) -> Layout:
    """The layout whose modes are ``layouts`` (or the one iterable of layouts given).

    Examples:
        >>> make_layout(Layout(4, 1), Layout(8, 4))
        Layout((4, 8),(1, 4))
    """
    items = (
        list(layouts[0]) if len(layouts) == 1 and not isinstance(layouts[0], Layout) else layouts
    )
    for i, item in enumerate(items):
        if not isinstance(item, Layout):
            raise LayoutTypeError(
                f"Argument 'layouts[{i}]' must be a Layout, not {type(item).__name__}."
            )
    return Layout(tuple(a.shape for a in items), tuple(a.stride for a in items))


# ---------------------------------------------------------------------- Swizzle


class Swizzle:
    """CuTe's ``Swizzle<B, M, S>``: ``x ^ ((x & yyy) >> S)`` where ``yyy`` is the ``B``
    bits starting at bit ``M + max(0, S)`` (a negative ``S`` shifts left).  It is
    GF(2)-linear and its own inverse.

    Examples:
        >>> sw = Swizzle(3, 3, 3)
        >>> sw(0b1000_000), sw(sw(77)) == 77, str(sw), sw.size()
        (72, True, 'SW_3_3_3', 512)
        >>> Swizzle(3, 3, 2)
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'shift' must satisfy |shift| >= bits (3), not 2.
    """

    __slots__ = ("bits", "base", "shift", "yyy_mask", "zzz_mask")

    bits: int
    base: int
    shift: int
    yyy_mask: int
    zzz_mask: int

    def __init__(self, bits: int, base: int, shift: int) -> None:
        values = {}
        for name, value in (("bits", bits), ("base", base), ("shift", shift)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise LayoutTypeError(f"Argument '{name}' must be an int, not {shown(value)}.")
            values[name] = int(value)
        if values["bits"] < 0 or values["base"] < 0:
            raise LayoutError(
                f"Arguments 'bits' and 'base' must be >= 0, not {values['bits']} and "
                f"{values['base']}."
            )
        if abs(values["shift"]) < values["bits"]:
            raise LayoutError(
                f"Argument 'shift' must satisfy |shift| >= bits ({values['bits']}), not "
                f"{values['shift']}."
            )
        for name, value in values.items():
            object.__setattr__(self, name, value)
        mask = (1 << bits) - 1
        object.__setattr__(self, "yyy_mask", mask << (base + max(0, shift)))
        object.__setattr__(self, "zzz_mask", mask << (base - min(0, shift)))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Swizzle is immutable: cannot set {name!r}")

    def __call__(self, offset: int) -> int:
        moved = offset & self.yyy_mask
        return offset ^ (moved >> self.shift if self.shift >= 0 else moved << -self.shift)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Swizzle):
            return NotImplemented
        return (self.bits, self.base, self.shift) == (other.bits, other.base, other.shift)

    def __hash__(self) -> int:
        return hash((self.bits, self.base, self.shift))

    def size(self) -> int:
        """The domain size CuTe gives a swizzle: ``2**(B + M + |S|)``."""
        return 1 << (self.bits + self.base + abs(self.shift))

    def cosize(self) -> int:
        """The codomain size (the domain size: a swizzle is a permutation)."""
        return self.size()

    def __str__(self) -> str:
        return f"SW_{self.bits}_{self.base}_{self.shift}"

    def __repr__(self) -> str:
        return f"Swizzle({self.bits},{self.base},{self.shift})"

    def cute_str(self) -> str:
        """CuTe C++'s spelling: ``Sw<3,4,3>``."""
        return f"Sw<{self.bits},{self.base},{self.shift}>"


# ---------------------------------------------------------------------- ComposedLayout


class ComposedLayout:
    """CuTe's ``ComposedLayout``: ``outer(offset + inner(coord))``, typically a swizzled
    shared-memory layout ``Swizzle o 0 o Layout``.  The argument order is pycute's.

    Examples:
        >>> smem = ComposedLayout(Swizzle(1, 0, 2), 0, Layout((4, 4), (4, 1)))
        >>> [smem(r, 0) for r in range(4)], str(smem)
        ([0, 5, 8, 13], 'SW_1_0_2 o 0 o (4, 4):(4, 1)')
    """

    __slots__ = ("outer", "offset", "inner")

    outer: Swizzle | Layout
    offset: int
    inner: Layout

    def __init__(self, outer: Swizzle | Layout, offset: int, inner: Layout) -> None:
        if not isinstance(outer, (Swizzle, Layout)):
            raise LayoutTypeError(
                f"Argument 'outer' must be a Swizzle or a Layout, not {type(outer).__name__}."
            )
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise LayoutTypeError(f"Argument 'offset' must be an int, not {shown(offset)}.")
        if not isinstance(inner, Layout):
            raise LayoutTypeError(f"Argument 'inner' must be a Layout, not {type(inner).__name__}.")
        object.__setattr__(self, "outer", outer)
        object.__setattr__(self, "offset", int(offset))
        object.__setattr__(self, "inner", inner)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"ComposedLayout is immutable: cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ComposedLayout):
            return NotImplemented
        return (self.outer, self.offset, self.inner) == (other.outer, other.offset, other.inner)

    def __hash__(self) -> int:
        return hash((self.outer, self.offset, self.inner))

    def __len__(self) -> int:
        return len(self.inner)

    def __getitem__(self, mode: int) -> ComposedLayout:
        return ComposedLayout(self.outer, self.offset, self.inner[mode])

    def __call__(self, *coord: Any) -> Any:
        inner = self.inner(*coord)
        if isinstance(inner, Layout):
            return ComposedLayout(self.outer, self.offset, inner)
        return self._outer(self.offset + inner)

    def _index(self, coord: Any) -> int:
        return self._outer(self.offset + self.inner._index(coord))

    def _outer(self, value: int) -> int:
        if isinstance(self.outer, Swizzle):
            return self.outer(value)
        return self.outer._index(value)

    @property
    def shape(self) -> IntTuple:
        """The domain's shape (the inner layout's)."""
        return self.inner.shape

    def size(self) -> int:
        """The domain's size (the inner layout's)."""
        return self.inner.size()

    def cosize(self) -> int:
        """The codomain's size (the outer function's, as CuTe defines it)."""
        return self.outer.cosize()

    def __str__(self) -> str:
        return f"{self.outer} o {self.offset} o {self.inner}"

    def __repr__(self) -> str:
        return f"ComposedLayout({self.outer!r},{self.offset!r},{self.inner!r})"

    def cute_str(self) -> str:
        """CuTe C++'s spelling: ``Sw<3,4,3> o 0 o (8,64):(64,1)``."""
        return f"{self.outer.cute_str()} o {self.offset} o {self.inner.cute_str()}"


# ---------------------------------------------------------------------- parsing

_TOKEN = re.compile(r"\s*(?:(-?_?-?\d+)|([(),:<>])|(SW_\d+_\d+_-?\d+)|(Sw)|(o)(?![\w]))")


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, expected: str) -> ParseError:
        near = self.text[self.pos : self.pos + 20] or "end of text"
        return ParseError(
            f"Argument 'text' {shown(self.text)}: expected {expected} at column {self.pos + 1} "
            f"(near {near!r}); a CuTe layout is written like '(4,8):(1,4)' or "
            "'Sw<3,4,3> o 0 o (8,64):(64,1)'."
        )

    def peek(self) -> str | None:
        match = _TOKEN.match(self.text, self.pos)
        return None if match is None else match.group(0).strip()

    def take(self, expected: str) -> str:
        match = _TOKEN.match(self.text, self.pos)
        if match is None:
            raise self.fail(expected)
        self.pos = match.end()
        return match.group(0).strip()

    def integer(self) -> int:
        token = self.take("an int")
        if not re.fullmatch(r"-?_?-?\d+", token):
            self.pos -= len(token)
            raise self.fail("an int")
        return int(token.replace("_", ""))

    def int_tuple(self) -> IntTuple:
        if self.peek() != "(":
            return self.integer()
        self.take("'('")
        items: list[IntTuple] = []
        while self.peek() != ")":
            items.append(self.int_tuple())
            if self.peek() == ",":
                self.take("','")
            elif self.peek() != ")":
                raise self.fail("',' or ')'")
        self.take("')'")
        return tuple(items)

    def layout(self) -> Layout:
        shape = self.int_tuple()
        if self.peek() != ":":
            return Layout(shape)
        self.take("':'")
        return Layout(shape, self.int_tuple())

    def swizzle(self) -> Swizzle:
        token = self.take("a swizzle")
        if token.startswith("SW_"):
            bits, base, shift = (int(v) for v in token[3:].split("_", 2))
            return Swizzle(bits, base, shift)
        self.take("'<'")
        bits = self.integer()
        self.take("','")
        base = self.integer()
        self.take("','")
        shift = self.integer()
        if self.take("'>'") != ">":
            raise self.fail("'>'")
        return Swizzle(bits, base, shift)

    def composed(self) -> Layout | ComposedLayout:
        token = self.peek()
        outer: Swizzle | Layout
        if token is not None and (token.startswith("SW_") or token == "Sw"):
            outer = self.swizzle()
        else:
            outer = self.layout()
            if self.peek() != "o":
                return outer
        self.expect_o()
        offset = self.integer()
        self.expect_o()
        return ComposedLayout(outer, offset, self.layout())

    def expect_o(self) -> None:
        if self.peek() != "o":
            raise self.fail("'o'")
        self.take("'o'")


def parse(text: str) -> Layout | ComposedLayout:
    """A CuTe layout from its text, as pycute or CuTe C++ print it.

    Examples:
        >>> parse("((2, 4), 8):((1, 16), 2)")
        Layout(((2, 4), 8),((1, 16), 2))
        >>> parse("SW_3_3_3 o 0 o (8,64):(64,1)").outer
        Swizzle(3,3,3)
        >>> parse("(4,8):(1,4")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llverify.errors.ParseError: Argument 'text' '(4,8):(1,4': expected ',' or ')' ...
    """
    if not isinstance(text, str):
        raise LayoutTypeError(f"Argument 'text' must be a str, not {type(text).__name__}.")
    reader = _Reader(text)
    try:
        result = reader.composed()
    except LayoutError as error:
        raise ParseError(f"Argument 'text' {shown(text)}: {error}") from None
    if text[reader.pos :].strip():
        raise reader.fail("the end of the layout")
    return result
