"""Exact conversion between CuTe layouts and LinearLayouts, where the map is GF(2)-linear.

CuTe -> LinearLayout (:func:`to_linear_layout`).  Each top-level mode becomes an in dim; a
mode's flat index must be a bit field (its size a power of 2).  A layout maps a coordinate
to ``sum(c_k * d_k)``: an integer sum of the images ``b_j`` of the input bits, which equals
their XOR (what a LinearLayout computes) for every input exactly when no two non-zero
images share a bit and none is negative.  That is the test, so the conversion is exact both
ways: a layout it refuses is not GF(2)-linear, and :class:`NotLinearError` names the mode,
its shape and stride and the two images that carry.  A :class:`~llverify.cute.layout.Swizzle`
(XOR-linear) or linear outer layout composes in; a non-zero offset is refused (affine).

LinearLayout -> CuTe (:func:`from_linear_layout`): the in dims become modes, each bit a
``2:b_j`` mode, coalesced; where the images share bits, the first
``Swizzle<B,M,S>`` (``B`` smallest, then ``M``, then ``S``) that makes them disjoint
gives ``Sw o 0 o layout`` (a swizzle is its own inverse); else refused with the reason.

Views (which in dims mean what):

* a *thread-value* (TV) layout ``(thread, value) -> m + M * n`` in a tile ``(M, N, ...)``
  is the register layout ``(register, lane, warp) -> (dim0, dim1, ...)``
  (:func:`tv_to_linear_layout`, :func:`linear_layout_to_tv`);
* a shared-memory layout ``(m, n, ...) -> offset`` is the inverse of Triton's shared layout
  ``offset -> (dim0, dim1, ...)`` (:func:`to_shared_layout`, :func:`smem_from_linear_layout`);
* :func:`lane_addresses`: one warp's element (or vector) addresses for
  :func:`llverify.warp_bank_conflicts`, for any layouts, linear or not.

Examples:
    >>> from llverify.cute.layout import Layout
    >>> to_linear_layout(Layout((4, 8), (8, 1))).bases
    [('dim0', [[8], [16]]), ('dim1', [[1], [2], [4]])]
    >>> to_linear_layout(Layout((4, 8), (1, 5)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llverify.cute.linear.NotLinearError: ... (shape 8, stride 5) the images 1 and 5 share bits ...
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llverify.bits import is_power_of_2
from llverify.cute.algebra import coalesce
from llverify.cute.layout import ComposedLayout, Layout, Swizzle, flatten, make_layout, product
from llverify.errors import LayoutError, LayoutTypeError, shown
from llverify.layout import LinearLayout

__all__ = [
    "NotLinearError",
    "from_linear_layout",
    "lane_addresses",
    "linear_layout_to_tv",
    "reference_for",
    "smem_from_linear_layout",
    "to_linear_layout",
    "to_shared_layout",
    "tv_to_linear_layout",
]

#: The in dims of a register (distributed) layout, in Triton's order.
HARDWARE_DIMS = ("register", "lane", "warp", "block")
#: The most inputs a non-linear CuTe reference is tabulated for (prove_equal).
MAX_TABLE = 1 << 22


class NotLinearError(LayoutError):
    """A CuTe layout (or LinearLayout) has no exact counterpart on the other side.

    Attributes:
        mode: the top-level mode at fault (an int), or None.
        stride: the stride at fault, or None.
    """

    def __init__(self, message: str, mode: int | None = None, stride: int | None = None) -> None:
        self.mode = mode
        self.stride = stride
        super().__init__(message)


@dataclass(frozen=True)
class _Bit:
    """One input bit of a CuTe layout: its mode, the leaf it falls in, its image."""

    mode: int
    shape: int
    stride: int
    image: int


def _cute(value: Any, name: str) -> Layout | ComposedLayout:
    if isinstance(value, (Layout, ComposedLayout)):
        return value
    raise LayoutTypeError(
        f"Argument '{name}' must be a CuTe Layout or ComposedLayout, not "
        f"{type(value).__name__} {shown(value)}."
    )


def _mode_bits(layout: Layout, what: str) -> list[list[_Bit]]:
    """Per top-level mode, its input bits with their images under ``layout``."""
    result = []
    for mode_index, mode in enumerate(layout):
        size = mode.size()
        if not is_power_of_2(size):
            raise NotLinearError(
                f"{what} is not GF(2)-linear: mode {mode_index} has shape {mode.shape} "
                f"(size {size}, not a power of 2), so its coordinates are not bit fields.",
                mode_index,
            )
        bits: list[_Bit] = []
        for shape, stride in zip(flatten(mode.shape), flatten(mode.stride)):
            if stride < 0 and shape > 1:
                raise NotLinearError(
                    f"{what} is not GF(2)-linear: mode {mode_index} (shape {shape}, stride "
                    f"{stride}) has a negative stride.",
                    mode_index,
                    stride,
                )
            bits.extend(
                _Bit(mode_index, shape, stride, stride << j) for j in range(shape.bit_length() - 1)
            )
        result.append(bits)
    return result


def _check_disjoint(bits: Sequence[_Bit], what: str) -> None:
    """Raise NotLinearError naming the first two images that share a bit."""
    seen: list[_Bit] = []
    for bit in bits:
        for other in seen:
            if bit.image & other.image:
                where = f"mode {bit.mode} (shape {bit.shape}, stride {bit.stride})"
                if (other.mode, other.shape, other.stride) != (bit.mode, bit.shape, bit.stride):
                    where = (
                        f"mode {other.mode} (shape {other.shape}, stride {other.stride}) and "
                        + where
                    )
                raise NotLinearError(
                    f"{what} is not GF(2)-linear: in {where} the images {other.image} and "
                    f"{bit.image} share bits ({other.image} & {bit.image} = "
                    f"{other.image & bit.image}), so adding them carries where XOR would not.",
                    bit.mode,
                    bit.stride,
                )
        if bit.image:
            seen.append(bit)


def _outer_images(layout: ComposedLayout, what: str) -> Callable[[int], int]:
    """The outer function of a ComposedLayout as a GF(2)-linear map on ints."""
    if layout.offset:
        raise NotLinearError(
            f"{what} is not GF(2)-linear: its offset {layout.offset} adds a constant "
            "(an affine map, not a linear one)."
        )
    outer = layout.outer
    if isinstance(outer, Swizzle):
        return outer
    if not isinstance(outer.shape, int):
        outer = make_layout([coalesce(outer)])
    [bits] = _mode_bits(make_layout([outer]), f"the outer layout {outer} of {what}")
    _check_disjoint(bits, f"the outer layout {outer} of {what}")
    images = [bit.image for bit in bits]
    size = outer.size()

    def apply(value: int) -> int:
        if value >= size:
            raise NotLinearError(
                f"{what}: the inner layout reaches {value}, outside the outer layout's "
                f"domain [0, {size})."
            )
        result = 0
        for j, image in enumerate(images):
            if value >> j & 1:
                result ^= image
        return result

    return apply


def _images(layout: Layout | ComposedLayout) -> list[list[int]]:
    """Per top-level mode, the image of each input bit; NotLinearError if not linear."""
    what = f"the CuTe layout {layout}"
    inner = layout.inner if isinstance(layout, ComposedLayout) else layout
    per_mode = _mode_bits(inner, what)
    _check_disjoint([bit for bits in per_mode for bit in bits], what)
    images = [[bit.image for bit in bits] for bits in per_mode]
    if isinstance(layout, ComposedLayout):
        outer = _outer_images(layout, what)
        images = [[outer(image) for image in mode] for mode in images]
    return images


def _out_fields(out_dims: Any, images: list[list[int]]) -> tuple[list[str], list[int]]:
    reach = 0
    for mode in images:
        for image in mode:
            reach |= image
    if out_dims is None:
        return ["offset"], [1 << reach.bit_length()]
    names, sizes = [], []
    for item in out_dims:
        try:
            name, size = item
        except (TypeError, ValueError):
            raise LayoutTypeError(
                f"Argument 'out_dims' must hold (name, size) pairs, not {shown(item)}."
            ) from None
        if isinstance(size, bool) or not isinstance(size, int) or not is_power_of_2(size):
            raise LayoutError(
                f"Argument 'out_dims': the size of {name!r} must be a power of 2, not "
                f"{shown(size)}."
            )
        names.append(name)
        sizes.append(size)
    total = product(tuple(sizes))
    if reach >= total:
        raise LayoutError(
            f"Argument 'out_dims' {shown(list(out_dims))} covers indices [0, {total}), but the "
            f"layout reaches index bits {reach:#x}."
        )
    return names, sizes


def _split(image: int, sizes: Sequence[int]) -> list[int]:
    coords = []
    for size in sizes:
        coords.append(image & (size - 1))
        image >>= size.bit_length() - 1
    return coords


def to_linear_layout(
    layout: Any, in_dims: Sequence[str] | None = None, out_dims: Any = None
) -> LinearLayout:
    """The LinearLayout equal to a CuTe layout: in dim ``k`` is top-level mode ``k`` (named
    ``in_dims[k]``, default ``dim<k>``: a shared-memory layout's coordinates), the output
    index split colexicographically over ``out_dims`` (``[(name, size), ...]``, default one
    dim ``offset`` just large enough).  Raises :class:`NotLinearError` where no LinearLayout
    is equal to it.

    Examples:
        >>> from llverify.cute.layout import parse
        >>> to_linear_layout(parse("Sw<1,0,2> o 0 o (4,4):(4,1)")).bases
        [('dim0', [[5], [8]]), ('dim1', [[1], [2]])]
        >>> to_linear_layout(parse("(2,4):(4,1)"), ["t", "v"], [("m", 4), ("n", 2)]).bases
        [('t', [[0, 1]]), ('v', [[1, 0], [2, 0]])]
    """
    layout = _cute(layout, "layout")
    images = _images(layout)
    rank = len(images)
    names = [f"dim{k}" for k in range(rank)] if in_dims is None else list(in_dims)
    if len(names) != rank or not all(isinstance(n, str) for n in names):
        raise LayoutError(
            f"Argument 'in_dims' must name the {rank} top-level modes of {layout}, not "
            f"{shown(in_dims)}."
        )
    out_names, out_sizes = _out_fields(out_dims, images)
    bases = [
        (name, [_split(image, out_sizes) for image in mode]) for name, mode in zip(names, images)
    ]
    return LinearLayout.from_bases(bases, out_names, out_sizes, require_surjective=False)


def _flat_images(ll: LinearLayout) -> list[tuple[str, list[int]]]:
    """Per in dim, each basis as one int: the out coords concatenated (dim0 lowest)."""
    shifts = []
    position = 0
    for _, size in ll.out_dims:
        shifts.append(position)
        position += size.bit_length() - 1
    return [
        (name, [sum(c << s for c, s in zip(basis, shifts)) for basis in vectors])
        for name, vectors in ll.bases
    ]


def _disjoint(images: Sequence[int]) -> bool:
    seen = 0
    for image in images:
        if image & seen:
            return False
        seen |= image
    return True


def _modes(per_dim: Sequence[Sequence[int]]) -> Layout:
    modes = []
    for images in per_dim:
        if not images:
            modes.append(Layout(1, 0))
        else:
            modes.append(coalesce(Layout((2,) * len(images), tuple(images))))
    if len(modes) == 1 and not isinstance(modes[0].shape, tuple):
        return modes[0]
    return make_layout(modes)


def _swizzles(bits: int) -> Any:
    for b in range(1, bits + 1):
        for m in range(bits + 1):
            for s in range(b, bits + 1):
                if b + m + s > bits:
                    break
                yield Swizzle(b, m, s)
                yield Swizzle(b, m, -s)


def from_linear_layout(ll: LinearLayout) -> Layout | ComposedLayout:
    """The CuTe layout equal to a LinearLayout: in dim ``k`` becomes top-level mode ``k``
    (an int-shaped layout for a single in dim whose mode is one leaf), the out dims one
    index, colexicographic (``dim0`` fastest); XOR mixing becomes ``Swizzle o 0 o layout``
    where a swizzle undoes it.  Raises :class:`NotLinearError` otherwise.

    Examples:
        >>> sh = LinearLayout.from_bases([('dim0', [[5], [8]]), ('dim1', [[1], [2]])],
        ...                              ["offset"])
        >>> print(from_linear_layout(sh))
        SW_1_0_2 o 0 o (4, 4):(4, 1)
    """
    if not isinstance(ll, LinearLayout):
        raise LayoutTypeError(f"Argument 'll' must be a LinearLayout, not {type(ll).__name__}.")
    per_dim = [images for _, images in _flat_images(ll)]
    flat = [image for images in per_dim for image in images]
    if _disjoint(flat):
        return _modes(per_dim)
    out_bits = ll.get_total_out_dim_size_log2()
    for swizzle in _swizzles(out_bits):
        if _disjoint([swizzle(image) for image in flat]):
            inner = _modes([[swizzle(image) for image in images] for images in per_dim])
            return ComposedLayout(swizzle, 0, inner)
    raise NotLinearError(
        "the LinearLayout is no CuTe layout: its bases mix bits by XOR in a way no "
        f"Swizzle<B,M,S> (B + M + |S| <= {out_bits}) undoes; the images (out coordinates "
        f"as one index) are {shown(per_dim)}."
    )


# ---------------------------------------------------------------------- views


def _tile(tile_shape: Any) -> list[int]:
    if isinstance(tile_shape, int) and not isinstance(tile_shape, bool):
        tile_shape = (tile_shape,)
    if not isinstance(tile_shape, (tuple, list)) or not tile_shape:
        raise LayoutTypeError(
            f"Argument 'tile_shape' must be a tuple of powers of 2, not {shown(tile_shape)}."
        )
    for size in tile_shape:
        if isinstance(size, bool) or not isinstance(size, int) or not is_power_of_2(size):
            raise LayoutError(
                f"Argument 'tile_shape' must hold powers of 2, not {shown(tile_shape)}."
            )
    return list(tile_shape)


def _lanes(lanes: Any) -> int:
    if isinstance(lanes, bool) or not isinstance(lanes, int) or not is_power_of_2(lanes):
        raise LayoutError(f"Argument 'lanes' must be a power of 2 (32, 64), not {shown(lanes)}.")
    return lanes


def tv_to_linear_layout(tv: Any, tile_shape: Any, lanes: int = 32) -> LinearLayout:
    """A CuTe thread-value layout ``(thread, value) -> m + M * n`` over the tile
    ``tile_shape`` as the register layout ``(register, lane, warp, block) -> (dim0, dim1,
    ...)``: value = register, thread = lane + lanes * warp, one CTA (block of size 1).

    Examples:
        >>> from llverify.cute.layout import parse
        >>> tv = parse("((4,8),(2,2)):((32,1),(16,8))")  # SM80 m16n8 C fragment
        >>> ll = tv_to_linear_layout(tv, (16, 8))
        >>> ll.apply({"register": 3, "lane": 5, "warp": 0, "block": 0})
        {'dim0': 9, 'dim1': 3}
    """
    tv = _cute(tv, "tv")
    lanes = _lanes(lanes)
    if len(tv) != 2:
        raise LayoutError(f"Argument 'tv' must have two modes (thread, value), not {tv}.")
    tile = _tile(tile_shape)
    ll = to_linear_layout(tv, ["thread", "register"], [(f"dim{k}", s) for k, s in enumerate(tile)])
    threads = ll.get_in_dim_size("thread")
    values = ll.get_in_dim_size("register")
    return ll.transpose_ins(["register", "thread"]).reshape_ins(
        [
            ("register", values),
            ("lane", min(threads, lanes)),
            ("warp", max(1, threads // lanes)),
            ("block", 1),
        ]
    )


def linear_layout_to_tv(ll: LinearLayout) -> tuple[tuple[int, ...], Layout | ComposedLayout]:
    """A register layout ``(register, lane, warp[, block]) -> (dim0, ...)`` as the tile
    shape and the CuTe thread-value layout (thread = lane + lanes * (warp + warps * block)).

    Examples:
        >>> from llverify.cute.layout import parse
        >>> ll = tv_to_linear_layout(parse("((4,8),(2,2)):((32,1),(16,8))"), (16, 8))
        >>> tile, tv = linear_layout_to_tv(ll)
        >>> tile, str(tv)
        ((16, 8), '((4, 8), (2, 2)):((32, 1), (16, 8))')
    """
    if not isinstance(ll, LinearLayout):
        raise LayoutTypeError(f"Argument 'll' must be a LinearLayout, not {type(ll).__name__}.")
    names = ll.get_in_dim_names()
    unknown = [n for n in names if n not in HARDWARE_DIMS]
    if unknown:
        raise LayoutError(
            f"Argument 'll' must have in dims among {list(HARDWARE_DIMS)}, not {unknown}."
        )
    order = [n for n in ("lane", "warp", "block", "register") if n in names]
    threads = product(tuple(ll.get_in_dim_size(n) for n in order if n != "register"))
    values = ll.get_in_dim_size("register") if "register" in names else 1
    flat = ll.transpose_ins(order).reshape_ins([("thread", threads), ("value", values)])
    tile = tuple(size for _, size in ll.out_dims)
    return tile, from_linear_layout(flat)


def to_shared_layout(smem: Any) -> LinearLayout:
    """A CuTe shared-memory layout ``(m, n, ...) -> offset`` as Triton's shared layout
    ``offset -> (dim0, dim1, ...)`` (its inverse); it must be a bijection onto
    ``[0, size)``.

    Examples:
        >>> from llverify.cute.layout import parse
        >>> to_shared_layout(parse("Sw<1,0,2> o 0 o (4,4):(4,1)")).bases
        [('offset', [[0, 1], [0, 2], [1, 1], [2, 0]])]
    """
    smem = _cute(smem, "smem")
    forward = to_linear_layout(smem)
    size = smem.size()
    if forward.get_out_dim_size("offset") != size or not forward.is_invertible():
        raise LayoutError(
            f"Argument 'smem' {smem} must map its {size} coordinates one-to-one onto the "
            f"offsets [0, {size}) (a Triton shared layout is a bijection)."
        )
    return forward.invert()


def smem_from_linear_layout(shared: LinearLayout) -> Layout | ComposedLayout:
    """Triton's shared layout ``offset -> (dim0, ...)`` as a CuTe shared-memory layout
    ``(m, n, ...) -> offset``; the inverse of :func:`to_shared_layout`.

    Examples:
        >>> sh = LinearLayout.from_bases([("offset", [[0, 1], [0, 2], [1, 1], [2, 0]])],
        ...                              ["dim0", "dim1"])
        >>> print(smem_from_linear_layout(sh))
        SW_1_0_2 o 0 o (4, 4):(4, 1)
    """
    if not isinstance(shared, LinearLayout):
        raise LayoutTypeError(
            f"Argument 'shared' must be a LinearLayout, not {type(shared).__name__}."
        )
    if _real_ins(shared) != ["offset"] or not shared.is_invertible():
        raise LayoutError(
            "Argument 'shared' must be an invertible layout with the one in dim 'offset' "
            f"(and size-1 dims), not in dims {shared.in_dims}."
        )
    return from_linear_layout(shared.sublayout(["offset"], shared.get_out_dim_names()).invert())


def _real_ins(ll: LinearLayout) -> list[str]:
    """The in dims of size > 1, and 'offset' (a shared layout's 'block' is often size 1)."""
    return [n for n, s in ll.in_dims if s > 1 or n == "offset"]


def _with_ins_of(layout: LinearLayout, ll: LinearLayout) -> LinearLayout:
    """``layout`` with ll's in dims: its own, plus ll's missing size-1 dims, in ll's order."""
    bases = dict(layout.bases)
    ordered = [(name, bases.get(name, [])) for name in ll.get_in_dim_names()]
    return LinearLayout.from_bases(
        ordered, layout.get_out_dim_names(), layout.get_out_dim_sizes(), require_surjective=False
    )


def _colex(layout: Layout | ComposedLayout) -> Callable[[int], int]:
    """``layout``'s value at a flat (colexicographic) index inside its domain, as a plain
    function of the flattened shape and stride: what ``layout._index(i)`` gives, without
    its per-call tuple walk."""
    if isinstance(layout, ComposedLayout):  # the outer layout may extrapolate: its own call
        outer = layout.outer if isinstance(layout.outer, Swizzle) else layout.outer._index
        inner, base = _colex(layout.inner), layout.offset
        return lambda i: outer(base + inner(i))
    modes = list(zip(flatten(layout.shape), flatten(layout.stride)))

    def index(i: int) -> int:
        total = 0
        for size, stride in modes:
            total += i % size * stride
            i //= size
        return total

    return index


def lane_addresses(
    tv: Any, smem: Any, *, value: int = 0, warp: int = 0, vector: int = 1, lanes: int = 32
) -> list[int]:
    """One warp's shared-memory addresses for :func:`llverify.warp_bank_conflicts`: lane
    ``l`` (thread ``warp * lanes + l`` of the TV layout ``tv``) accesses its values
    ``value .. value + vector - 1``, stored at ``smem(tv(thread, v))``.  With ``vector > 1``
    they must be contiguous and aligned, and the address is in units of the vector.  Any
    layouts, linear or not (padded ones included).

    Examples:
        >>> from llverify.cute.layout import Layout
        >>> tv = Layout((32, 4), (4, 1))  # each lane holds 4 consecutive elements of a row
        >>> lane_addresses(tv, Layout(128, 1), vector=4)[:4]
        [0, 1, 2, 3]
        >>> lane_addresses(tv, Layout(128, 1), value=1, vector=2)
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: lane 0 value 1: its 2 elements start at offset 1, not a multiple of 2 (a vector access must be aligned).
    """  # noqa: E501
    tv = _cute(tv, "tv")
    smem = _cute(smem, "smem")
    lanes = _lanes(lanes)
    for name, number in (("value", value), ("warp", warp), ("vector", vector)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise LayoutTypeError(f"Argument '{name}' must be an int >= 0, not {shown(number)}.")
    if len(tv) != 2:
        raise LayoutError(f"Argument 'tv' must have two modes (thread, value), not {tv}.")
    threads, values = tv[0].size(), tv[1].size()
    if vector < 1 or value + vector > values:
        raise LayoutError(
            f"Arguments 'value' {value} and 'vector' {vector} must pick values inside the "
            f"{values} of each thread."
        )
    if (warp + 1) * lanes > threads:
        raise LayoutError(
            f"Argument 'warp' {warp}: the TV layout has {threads} threads, fewer than "
            f"{(warp + 1) * lanes}."
        )
    size = smem.size()
    if isinstance(tv, Layout):  # (thread, value) -> thread mode's index + value mode's
        thread_mode, value_mode = _colex(tv[0]), _colex(tv[1])
        values_at = [value_mode(value + k) for k in range(vector)]

        def tile_index(thread: int, k: int) -> int:
            return thread_mode(thread) + values_at[k]

    else:

        def tile_index(thread: int, k: int) -> int:
            return int(tv((thread, value + k)))

    offset_of = _colex(smem)
    addresses = []
    for lane in range(lanes):
        thread = warp * lanes + lane
        offsets = []
        for k in range(vector):
            index = tile_index(thread, k)
            if not 0 <= index < size:
                raise LayoutError(
                    f"lane {lane} value {value + k}: the TV layout gives tile index {index}, "
                    f"outside the smem layout's domain [0, {size})."
                )
            offsets.append(offset_of(index))
        start = offsets[0]
        if offsets != list(range(start, start + vector)):
            raise LayoutError(
                f"lane {lane} values {value}..{value + vector - 1}: offsets {offsets} are not "
                "contiguous, so they are no vector access."
            )
        if start % vector:
            raise LayoutError(
                f"lane {lane} value {value}: its {vector} elements start at offset {start}, "
                f"not a multiple of {vector} (a vector access must be aligned)."
            )
        addresses.append(start // vector)
    return addresses


# ---------------------------------------------------------------------- prove_equal


def _mapping(ll: LinearLayout, cute: Layout | ComposedLayout) -> str:
    """Which view compares ``cute`` with ``ll``: "shared", "tv" or "modes"."""
    names = ll.get_in_dim_names()
    if _real_ins(ll) == ["offset"]:
        return "shared"
    if len(cute) == 2 and "lane" in names and set(names) <= set(HARDWARE_DIMS):
        return "tv"
    return "modes"


def _check_sizes(ll: LinearLayout, cute: Layout | ComposedLayout, view: str) -> None:
    if view == "tv":
        threads = product(tuple(s for n, s in ll.in_dims if n != "register"))
        values = ll.get_in_dim_size("register") if ll.has_in_dim("register") else 1
        expected = [threads, values]
        what = "(threads, values)"
    elif view == "shared":
        expected = list(ll.get_out_dim_sizes())
        what = "the out dims' sizes"
        if len(cute) != ll.num_out_dims:
            raise LayoutError(
                f"the CuTe reference {cute} has {len(cute)} modes; the shared layout has "
                f"{ll.num_out_dims} out dims {ll.get_out_dim_names()} (one mode each)."
            )
    else:
        expected = [s for _, s in ll.in_dims]
        what = "the in dims' sizes"
        if len(cute) != ll.num_in_dims:
            raise LayoutError(
                f"the CuTe reference {cute} has {len(cute)} modes; the layout has "
                f"{ll.num_in_dims} in dims {ll.get_in_dim_names()} (one mode each, or "
                "(thread, value) for register/lane/warp, or a shared layout's coordinates)."
            )
    actual = [mode.size() for mode in (cute.inner if isinstance(cute, ComposedLayout) else cute)]
    if actual != expected:
        raise LayoutError(
            f"the CuTe reference {cute} has mode sizes {actual}, not {what} {expected} of "
            "the layout."
        )


def reference_for(ll: LinearLayout, cute: Any) -> tuple[str, LinearLayout | None, Any]:
    """How :func:`llverify.prove_equal` compares the LinearLayout ``ll`` with the CuTe
    layout ``cute``: (the view, the equal LinearLayout or None, a table function).

    The view: ``"tv"`` for a register layout (in dims among register/lane/warp/block) and
    a rank-2 CuTe layout, ``"shared"`` for a layout with the one in dim ``offset`` (the CuTe
    layout maps coordinates to offsets, so its inverse is compared), else ``"modes"`` (in
    dim k is mode k).  The output index is split over ``ll``'s out dims colexicographically.
    Where the CuTe layout is not GF(2)-linear, the function evaluates it from a table over
    ll's inputs (IntOps and numpy only), and prove_equal enumerates.

    Examples:
        >>> from llverify.cute.layout import parse
        >>> ll = tv_to_linear_layout(parse("((4,8),(2,2)):((32,1),(16,8))"), (16, 8))
        >>> view, ref, _ = reference_for(ll, parse("((4,8),(2,2)):((32,1),(16,8))"))
        >>> view, ref == ll
        ('tv', True)
    """
    cute = _cute(cute, "reference")
    view = _mapping(ll, cute)
    _check_sizes(ll, cute, view)
    outs = list(ll.out_dims)
    try:
        if view == "shared":
            forward = to_linear_layout(
                cute, ll.get_out_dim_names(), [("offset", ll.get_in_dim_size("offset"))]
            )
            if not forward.is_invertible():
                raise LayoutError(
                    f"the CuTe reference {cute} must map its coordinates one-to-one onto the "
                    f"{ll.get_in_dim_size('offset')} offsets of the shared layout."
                )
            inverse = forward.invert().transpose_outs(ll.get_out_dim_names())
            return view, _with_ins_of(inverse, ll), None
        if view == "tv":
            tv = to_linear_layout(cute, ["thread", "register"], outs)
            return view, _tv_dims(tv, ll), None
        names = ll.get_in_dim_names()
        return view, to_linear_layout(cute, names, outs), None
    except NotLinearError:
        return view, None, _table(ll, cute, view)


def _tv_dims(tv: LinearLayout, ll: LinearLayout) -> LinearLayout:
    """``(thread, register)`` split into ll's hardware dims, in ll's order."""
    order = [n for n in ("lane", "warp", "block") if ll.has_in_dim(n)]
    dims = [("register", tv.get_in_dim_size("register"))]
    dims += [(n, ll.get_in_dim_size(n)) for n in order]
    flat = tv.transpose_ins(["register", "thread"]).reshape_ins(dims)
    if not ll.has_in_dim("register"):
        flat = flat.squeeze_ins("register") if flat.get_in_dim_size("register") == 1 else flat
    return flat.transpose_ins(ll.get_in_dim_names())


def _table(ll: LinearLayout, cute: Layout | ComposedLayout, view: str) -> Any:
    """A reference function ``(ops, **inputs) -> {out dim: value}`` read from a table of the
    CuTe layout over ll's inputs (exact ints; numpy arrays broadcast)."""
    total = ll.get_total_in_dim_size()
    if total > MAX_TABLE:
        raise LayoutError(
            f"the CuTe reference {cute} is not GF(2)-linear, and tabulating it over the "
            f"layout's {total} inputs exceeds {MAX_TABLE}."
        )
    sizes = [s for _, s in ll.out_dims]
    names = ll.get_in_dim_names()
    if view == "shared":
        offsets = ll.get_in_dim_size("offset")
        table = np.full((offsets, len(sizes)), -1, dtype=np.int64)
        for index in range(cute.size()):
            offset = cute._index(index)
            if not 0 <= offset < offsets or table[offset, 0] >= 0:
                raise LayoutError(
                    f"the CuTe reference {cute} must map its coordinates one-to-one onto the "
                    f"{offsets} offsets of the shared layout (index {index} -> {offset})."
                )
            table[offset] = _index_coords(index, sizes)

        def shared(ops: Any, **inputs: Any) -> dict[str, Any]:
            rows = table[np.asarray(inputs["offset"])]
            return {d: rows[..., k] for k, d in enumerate(ll.get_out_dim_names())}

        return shared
    log2s = [s.bit_length() - 1 for _, s in ll.in_dims]
    table = np.zeros((total, len(sizes)), dtype=np.int64)
    for flat in range(total):
        point, rest = {}, flat
        for name, log2 in zip(names, log2s):
            point[name] = rest & ((1 << log2) - 1)
            rest >>= log2
        table[flat] = _index_coords(_cute_index(ll, cute, view, point), sizes)

    def modes(ops: Any, **inputs: Any) -> dict[str, Any]:
        flat_index: Any = 0
        shift = 0
        for name, log2 in zip(names, log2s):
            flat_index = flat_index + (np.asarray(inputs[name], dtype=np.int64) << shift)
            shift += log2
        rows = table[flat_index]
        return {d: rows[..., k] for k, d in enumerate(ll.get_out_dim_names())}

    return modes


def _index_coords(index: int, sizes: Sequence[int]) -> list[int]:
    coords = []
    for size in sizes[:-1]:
        coords.append(index % size)
        index //= size
    return [*coords, index]


def _cute_index(
    ll: LinearLayout, cute: Layout | ComposedLayout, view: str, point: dict[str, int]
) -> int:
    if view == "tv":
        thread, scale = 0, 1
        for name in ("lane", "warp", "block"):
            if ll.has_in_dim(name):
                thread += point[name] * scale
                scale *= ll.get_in_dim_size(name)
        return int(cute._index((thread, point.get("register", 0))))
    return int(cute._index(tuple(point[n] for n in ll.get_in_dim_names())))
