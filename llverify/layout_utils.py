"""Triton's LayoutUtils helpers (include/triton/Tools/LayoutUtils.h) on LinearLayout.

Free functions that build, reshape, divide and solve layouts; the encoding converters
are written with them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from llverify import gf2
from llverify.bits import as_int, as_shape, check_size, is_power_of_2
from llverify.column_action import ColumnAction
from llverify.errors import DimensionError, LayoutError, LayoutTypeError
from llverify.layout import LinearLayout, _make, _remap, _require_layout
from llverify.layout import supremum as supremum  # Triton's LayoutUtils name, defined for `*`


def standard_out_dim_names(rank: int) -> list[str]:
    """``["dim0", ..., "dim{rank-1}"]``.

    Examples:
        >>> standard_out_dim_names(2)
        ['dim0', 'dim1']
    """
    return [f"dim{i}" for i in range(as_int(rank, "rank"))]


def standard_out_dim_pairs(shape: Sequence[int]) -> list[tuple[str, int]]:
    """``[("dim0", shape[0]), ...]``."""
    return list(zip(standard_out_dim_names(len(shape)), shape))


def identity_standard_nd(in_dim: str, shape: Sequence[int], order: Sequence[int]) -> LinearLayout:
    """Identity from ``in_dim`` onto dim0..dimN-1, filling dims in ``order`` (minor first).

    The out dims come in ``order``'s order, exactly as in Triton.

    Examples:
        >>> identity_standard_nd("register", [2, 4], [1, 0]).bases
        [('register', [[1, 0], [2, 0], [0, 1]])]
        >>> identity_standard_nd("register", [2, 4], [1, 0]).get_out_dim_names()
        ['dim1', 'dim0']
    """
    shape = [check_size(s, f"shape[{i}]") for i, s in enumerate(as_shape(shape))]
    order = [as_int(o, f"order[{i}]") for i, o in enumerate(order)]
    if sorted(order) != list(range(len(shape))):
        raise LayoutError(
            f"Argument 'order' must be a permutation of 0..{len(shape) - 1} (one entry per "
            f"dim of shape {shape}), not {order}."
        )
    if not isinstance(in_dim, str):
        raise LayoutTypeError(f"Argument 'in_dim' must be a str, not {in_dim!r}.")
    # Built directly (this is on every encoding's path): dims in `order`, bits in order.
    log2s = tuple(shape[dim].bit_length() - 1 for dim in order)
    columns: list[int] = []
    offset = 0
    for bits in log2s:
        columns.extend(1 << (offset + b) for b in range(bits))
        offset += bits
    return _make((in_dim,), (tuple(columns),), tuple(f"dim{d}" for d in order), log2s)


def zeros_like(layout: LinearLayout) -> LinearLayout:
    """Same dims and sizes, every basis zero.

    Examples:
        >>> zeros_like(LinearLayout.identity_1d(4, "i", "o")).bases
        [('i', [[0], [0]])]
    """
    _require_layout(layout, "layout")
    return _make(
        layout._ins, tuple((0,) * len(c) for c in layout._cols), layout._outs, layout._out_log2
    )


def square_sublayout_is_identity(layout: LinearLayout, dim_names: Iterable[str]) -> bool:
    """True when the sublayout ``dims -> same dims`` is the identity with equal sizes.

    Examples:
        >>> square_sublayout_is_identity(LinearLayout.identity_1d(4, "a", "a"), ["a"])
        True
    """
    _require_layout(layout, "layout")
    return layout.square_sublayout_is_identity(dim_names)


def _shape_map(layout: LinearLayout, shape: Any) -> dict[str, int]:
    if isinstance(shape, Mapping):
        items = dict(shape)
    elif isinstance(shape, Iterable) and not isinstance(shape, (str, bytes)):
        values = list(shape)
        if len(values) != layout.num_out_dims:
            raise LayoutError(
                f"Argument 'shape' must have one size per out dim {layout.get_out_dim_names()}, "
                f"not {values}."
            )
        items = dict(zip(layout.get_out_dim_names(), values))
    else:
        raise LayoutTypeError(
            f"Argument 'shape' must be a mapping out dim -> size, not {type(shape).__name__}."
        )
    if set(items) != set(layout.get_out_dim_names()):
        raise DimensionError(
            f"Argument 'shape' must give exactly the out dims {layout.get_out_dim_names()}, "
            f"not {list(items)}."
        )
    return {d: check_size(s, f"shape['{d}']") for d, s in items.items()}


def ensure_layout_not_smaller_than(layout: LinearLayout, shape: Any) -> LinearLayout:
    """Grow out dims smaller than ``shape`` by appending identity bases on the first in dim.

    Out dims are visited in the layout's order (minor to major).

    Examples:
        >>> ll = LinearLayout.identity_1d(2, "register", "dim0")
        >>> ensure_layout_not_smaller_than(ll, {"dim0": 8}).bases
        [('register', [[1], [2], [4]])]
    """
    _require_layout(layout, "layout")
    sizes = _shape_map(layout, shape)
    if not sizes:
        return layout
    if not layout.num_in_dims:
        raise LayoutError("Argument 'layout' must have an in dim to grow along, but has none.")
    first = layout.get_in_dim_names()[0]
    result = layout
    for d in layout.get_out_dim_names():
        actual = layout.get_out_dim_size(d)
        if actual < sizes[d]:
            result = result * LinearLayout.identity_1d(sizes[d] // actual, first, d)
    return result


def _coordinates_along(
    nested: list[list[list[int]]], ins: list[str], k: int, out_dim: str
) -> list[tuple[int, int, int]]:
    """The non-zero coordinates along out dim ``k`` as ``(value, in dim index, basis
    index)``, largest first; each must be a power of 2."""
    found = []
    for i, bs in enumerate(nested):
        for j, basis in enumerate(bs):
            value = basis[k]
            if value == 0:
                continue
            if not is_power_of_2(value):
                raise LayoutError(
                    f"ensure_layout_not_larger_than: basis {j} of in dim '{ins[i]}' has "
                    f"coordinate {value} along '{out_dim}'; only powers of 2 (distributed "
                    f"layouts) can be shrunk."
                )
            found.append((value, i, j))
    found.sort(key=lambda t: -t[0])
    return found


def _zero_largest(
    nested: list[list[list[int]]],
    ins: list[str],
    k: int,
    found: list[tuple[int, int, int]],
    span: int,
    target: int,
    broadcast_registers: bool,
) -> set[int]:
    """Zero, in place, the coordinates along out dim ``k`` of ``found``'s largest values
    (every basis of one value at once, each value halving the span) until the span is at most
    ``target``; without ``broadcast_registers`` the register bases are returned (by index)
    to remove instead."""
    removed: set[int] = set()
    position = 0
    while position < len(found) and span > target:
        value = found[position][0]
        while position < len(found) and found[position][0] == value:
            _, i, j = found[position]
            position += 1
            if not broadcast_registers and ins[i] == "register":
                removed.add(j)
            else:
                nested[i][j][k] = 0
        span >>= 1
    return removed


def ensure_layout_not_larger_than(
    layout: LinearLayout, shape: Any, broadcast_registers: bool = True
) -> LinearLayout:
    """Shrink out dims larger than ``shape`` by zeroing the largest bases (broadcast).

    With ``broadcast_registers=False`` such register bases are removed instead.  Every
    non-zero coordinate along a shrunk dim must be a power of 2 (distributed layouts).

    Examples:
        >>> bases = [("register", [[8], [4], [1]]), ("lane", [[2], [16]])]
        >>> ll = LinearLayout.from_bases(bases, ["dim0"])
        >>> ensure_layout_not_larger_than(ll, {"dim0": 8}).bases
        [('register', [[0], [4], [1]]), ('lane', [[2], [0]])]
    """
    _require_layout(layout, "layout")
    sizes = _shape_map(layout, shape)
    if not sizes or all(layout.get_out_dim_size(d) <= sizes[d] for d in sizes):
        return layout
    nested = [[list(b) for b in bs] for bs in layout._nested_bases()]
    ins = layout.get_in_dim_names()
    removed_registers: set[int] = set()
    for k, d in enumerate(layout.get_out_dim_names()):
        span = layout.get_out_dim_size(d)
        if span <= sizes[d]:
            continue
        found = _coordinates_along(nested, ins, k, d)
        removed_registers |= _zero_largest(
            nested, ins, k, found, span, sizes[d], broadcast_registers
        )
    if removed_registers:
        r = ins.index("register")
        nested[r] = [b for j, b in enumerate(nested[r]) if j not in removed_registers]
    return LinearLayout(
        list(zip(ins, nested)),
        layout.get_out_dim_names(),
        [min(s, sizes[d]) for d, s in layout.out_dims],
        require_surjective=False,
    )


def lstsq(a: LinearLayout, b: LinearLayout) -> LinearLayout | None:
    """X with ``X.compose(a) == b`` (a(X(x)) == b(x)), free variables 0; None if none.

    X's in dims are b's, its out dims are a's in dims.  None when the out dims differ,
    when one of b's out sizes exceeds a's, or when b's image is not in a's image.

    Examples:
        >>> a = LinearLayout.from_bases([("s", [[2], [1]])], ["o"])
        >>> lstsq(a, LinearLayout.identity_1d(4, "r", "o")).bases
        [('r', [[2], [1]])]
    """
    _require_layout(a, "a")
    _require_layout(b, "b")
    if set(a._outs) != set(b._outs) or len(a._outs) != len(b._outs):
        return None
    a_t = a.transpose_outs(b._outs) if a._outs != b._outs else a
    if any(mine > theirs for mine, theirs in zip(b._out_log2, a_t._out_log2)):
        return None
    fields = [(b._out_offsets[k], b._out_log2[k], a_t._out_offsets[k]) for k in range(len(b._outs))]
    targets = [_remap(c, fields) for cols in b._cols for c in cols]
    solution = gf2.solve(a_t._flat_cols(), targets)
    if solution is None:
        return None
    split = []
    position = 0
    for cols in b._cols:
        split.append(tuple(solution[position : position + len(cols)]))
        position += len(cols)
    return _make(b._ins, tuple(split), a._ins, tuple(len(c) for c in a._cols))


def divide_left(a: LinearLayout, b: LinearLayout) -> LinearLayout | None:
    """C with ``a == b * c``, or None (Triton's ``divideLeft``).

    C has a's in and out dims; b's dims must all be in a.

    Examples:
        >>> a = LinearLayout.identity_1d(4, "r", "o") * LinearLayout.identity_1d(8, "l", "o")
        >>> divide_left(a, LinearLayout.identity_1d(4, "r", "o")).bases
        [('r', []), ('l', [[1], [2], [4]])]
    """
    _require_layout(a, "a")
    _require_layout(b, "b")
    return a.divide_left(b)


def divide_right(a: LinearLayout, b: LinearLayout) -> LinearLayout | None:
    """C with ``a == c * b``, or None (Triton's ``divideRight``).

    Examples:
        >>> a = LinearLayout.identity_1d(4, "r", "o") * LinearLayout.identity_1d(8, "l", "o")
        >>> divide_right(a, LinearLayout.identity_1d(8, "l", "o")).bases
        [('r', [[1], [2]]), ('l', [])]
    """
    _require_layout(a, "a")
    _require_layout(b, "b")
    return a.divide_right(b)


def get_output_basis_mask(layout: LinearLayout, in_dims: Iterable[str], out_dim: str) -> int:
    """OR of the ``out_dim`` coordinates of every basis of ``in_dims``.

    Examples:
        >>> ll = LinearLayout.from_bases([("r", [[1], [4]]), ("l", [[2]])], ["o"])
        >>> get_output_basis_mask(ll, ["r"], "o")
        5
    """
    sub = layout.sublayout(in_dims, [out_dim])
    mask = 0
    for cols in sub._cols:
        for c in cols:
            mask |= c
    return mask


def get_input_basis_mask(layout: LinearLayout, in_dim: str, out_dims: Iterable[str]) -> int:
    """Bit i set when basis i of ``in_dim`` is non-zero along some of ``out_dims``.

    Examples:
        >>> ll = LinearLayout.from_bases([("r", [[1, 0], [0, 1], [0, 0]])], ["a", "b"])
        >>> get_input_basis_mask(ll, "r", ["b"])
        2
    """
    sub = layout.sublayout([in_dim], out_dims)
    return sum(1 << i for i, c in enumerate(sub._cols[0]) if c)


def reshape_layout(layout: LinearLayout, shape: Sequence[int]) -> LinearLayout:
    """Reshape a layout onto dim0..dimN-1 of ``shape`` (row-major, like Triton).

    Examples:
        >>> ll = LinearLayout.identity_1d(8, "register", "dim0")
        >>> reshape_layout(ll, [2, 4]).bases
        [('register', [[0, 1], [0, 2], [1, 0]])]
    """
    src = list(reversed(layout.get_out_dim_names()))
    new = list(reversed(standard_out_dim_pairs([check_size(s, "shape") for s in as_shape(shape)])))
    return (
        layout.transpose_outs(src)
        .reshape_outs(new)
        .transpose_outs(standard_out_dim_names(len(shape)))
    )


def transpose_linear_layout(layout: LinearLayout, order: Sequence[int]) -> LinearLayout:
    """Permute the coordinates of every basis (new coord i = old coord order[i]).

    The out names stay; sizes are re-inferred, so the result must be surjective.

    Examples:
        >>> ll = LinearLayout.from_bases([("r", [[1, 0], [0, 1], [0, 2]])], ["dim0", "dim1"])
        >>> transpose_linear_layout(ll, [1, 0]).bases
        [('r', [[0, 1], [1, 0], [2, 0]])]
    """
    order = [as_int(o, "order") for o in order]
    if sorted(order) != list(range(layout.num_out_dims)):
        raise LayoutError(
            f"Argument 'order' must be a permutation of 0..{layout.num_out_dims - 1}, not {order}."
        )
    bases = [(d, [[b[i] for i in order] for b in bs]) for d, bs in layout.bases]
    return LinearLayout(bases, layout.get_out_dim_names())


def remove_standard_dim(layout: LinearLayout, dim: int) -> LinearLayout:
    """Drop out dim ``dim{dim}`` of a dim0..dimN-1 layout and renumber the rest.

    Examples:
        >>> ll = LinearLayout.from_bases([("r", [[1, 0], [0, 1]])], ["dim0", "dim1"])
        >>> remove_standard_dim(ll, 0).bases
        [('r', [[0], [1]])]
    """
    rank = layout.num_out_dims
    dim = as_int(dim, "dim")
    if layout.get_out_dim_names() != standard_out_dim_names(rank):
        raise DimensionError(
            f"Argument 'layout' must have out dims dim0..dim{rank - 1}, not "
            f"{layout.get_out_dim_names()}."
        )
    if not 0 <= dim < rank:
        raise LayoutError(f"Argument 'dim' must be in [0, {rank}), not {dim}.")
    names = layout.get_out_dim_names()
    sub = layout.sublayout(layout.get_in_dim_names(), names[:dim] + names[dim + 1 :])
    return _make(sub._ins, sub._cols, tuple(standard_out_dim_names(rank - 1)), sub._out_log2)


def rename_linear_layout_dims(
    layout: LinearLayout,
    in_dim_renames: Iterable[tuple[str, str]] = (),
    out_dim_renames: Iterable[tuple[str, str]] = (),
) -> LinearLayout:
    """Rename in and out dims at once, keeping their order.

    Examples:
        >>> ll = LinearLayout.identity_1d(2, "i", "o")
        >>> rename_linear_layout_dims(ll, [("i", "lane")], [("o", "dim0")]).bases
        [('lane', [[1]])]
    """
    _require_layout(layout, "layout")

    def renamed(
        current: tuple[str, ...], renames: Iterable[tuple[str, str]], kind: str
    ) -> tuple[str, ...]:
        mapping = dict(renames)
        unknown = [d for d in mapping if d not in current]
        if unknown:
            raise DimensionError(f"cannot rename {unknown}: not {kind} dims of {list(current)}.")
        names = tuple(mapping.get(d, d) for d in current)
        if len(set(names)) != len(names):
            raise DimensionError(
                f"renaming {kind} dims {list(current)} gives duplicates {list(names)}."
            )
        return names

    return _make(
        renamed(layout._ins, in_dim_renames, "in"),
        layout._cols,
        renamed(layout._outs, out_dim_renames, "out"),
        layout._out_log2,
    )


def action_remove_broadcasted_regs(layout: LinearLayout) -> ColumnAction:
    """The ColumnAction on ``register`` that drops its zero bases.

    Examples:
        >>> ll = LinearLayout.from_bases([("register", [[1], [0], [2]])], ["o"])
        >>> action_remove_broadcasted_regs(ll)
        ColumnAction([0, 2], register, 3)
    """
    register = _first_register(layout)
    cols = layout._cols[0]
    return ColumnAction([i for i, c in enumerate(cols) if c], register, len(cols))


def reg_perm_for_divide(a: LinearLayout, b: LinearLayout, left: bool) -> ColumnAction | None:
    """A register permutation of ``a`` after which ``b`` may divide it (Triton's
    ``regPermForDivide``), or None if b's register bases are not all in a.

    Examples:
        >>> a = LinearLayout.from_bases([("register", [[2], [1]])], ["offset"])
        >>> reg_perm_for_divide(a, LinearLayout.identity_1d(2, "register", "offset"), True)
        ColumnAction([1, 0], register, 2)
    """
    register = _first_register(a)
    if not b.num_in_dims or b.get_in_dim_names()[0] != register:
        raise DimensionError(
            f"Argument 'b' must have 'register' as its first in dim, not {b.get_in_dim_names()}."
        )
    broadcast = LinearLayout.empty()
    for out in a.get_out_dim_names():
        broadcast = broadcast * LinearLayout.identity_1d(1, register, out)
    b_full = broadcast * b
    quotient_log2 = {}
    for out in a.get_out_dim_names():
        diff = a.get_out_dim_size_log2(out) - (
            b_full.get_out_dim_size_log2(out) if b_full.has_out_dim(out) else 0
        )
        if diff < 0:
            return None
        quotient_log2[out] = diff
    a_regs = a._nested_bases()[0]
    b_regs = b_full.transpose_outs(
        [d for d in a.get_out_dim_names() if b_full.has_out_dim(d)]
        + [d for d in b_full.get_out_dim_names() if not a.has_out_dim(d)]
    )
    if b_regs.get_out_dim_names() != a.get_out_dim_names():
        return None
    used = [False] * len(a_regs)
    chosen = []
    for basis in b_regs._nested_bases()[0]:
        wanted = basis
        if not left:
            wanted = tuple(v << quotient_log2[d] for v, d in zip(basis, a.get_out_dim_names()))
        for j, candidate in enumerate(a_regs):
            if not used[j] and candidate == wanted:
                used[j] = True
                chosen.append(j)
                break
        else:
            return None
    rest = [j for j in range(len(a_regs)) if not used[j]]
    return ColumnAction(chosen + rest if left else rest + chosen, register, len(a_regs))


def largest_vectorisation(
    cvt: LinearLayout, bitwidth: int, max_vec_elems: int | None = None
) -> tuple[int, ColumnAction]:
    """Largest v with identity_1d(v, register, offset) dividing ``cvt`` on the left,
    and the register permutation that exposes it (Triton's ``largestVectorisation``).

    Without ``max_vec_elems`` the cap is 128 bits and a permutation is allowed; with it,
    only the identity permutation.

    Examples:
        >>> bases = [("register", [[1], [2], [8]]), ("lane", [[4]])]
        >>> cvt = LinearLayout.from_bases(bases, ["offset"])
        >>> largest_vectorisation(cvt, 16)
        (4, ColumnAction([0, 1, 2], register, 3))
    """
    bitwidth = as_int(bitwidth, "bitwidth")
    if bitwidth <= 0 or 128 % bitwidth:
        raise LayoutError(f"Argument 'bitwidth' must divide 128, not {bitwidth}.")
    allow_permutation = max_vec_elems is None
    v = 128 // bitwidth if max_vec_elems is None else as_int(max_vec_elems, "max_vec_elems")
    while v >= 1:
        tile = LinearLayout.identity_1d(v, "register", "offset")
        permutation = reg_perm_for_divide(cvt, tile, left=True)
        if permutation is not None and (allow_permutation or permutation.is_identity()):
            if divide_left(permutation.apply(cvt), tile) is not None:
                return v, permutation
        v //= 2
    raise LayoutError(
        "largest_vectorisation: not even one register divides the layout; the layout "
        "must map registers to 'offset'."
    )


def _first_register(layout: LinearLayout) -> str:
    _require_layout(layout, "layout")
    if not layout.num_in_dims or layout.get_in_dim_names()[0] != "register":
        raise DimensionError(
            f"Argument 'layout' must have 'register' as its first in dim, not "
            f"{layout.get_in_dim_names()}."
        )
    return "register"


def factor_maximal_identity_prefix(
    layout: LinearLayout, in_dim: str, out_dim: str, max_size: int
) -> tuple[int, LinearLayout]:
    """Largest identity_1d(size, in_dim, out_dim) left factor (size <= max_size) and the
    quotient.

    Examples:
        >>> ll = LinearLayout.from_bases(
        ...     [("register", [[1], [2], [8]]), ("lane", [[4]])], ["offset"]
        ... )
        >>> factor_maximal_identity_prefix(ll, "register", "offset", 16)[0]
        4
    """
    size = check_size(max_size, "max_size")
    while size >= 1:
        tile = LinearLayout.identity_1d(size, in_dim, out_dim)
        quotient = divide_left(layout, tile)
        if quotient is not None:
            return size, quotient
        size //= 2
    raise LayoutError("factor_maximal_identity_prefix: no identity prefix divides the layout.")


def get_reps(cvt: LinearLayout, tile: LinearLayout) -> LinearLayout | None:
    """The repetitions of ``tile`` inside ``cvt`` (Triton's ``getReps``), or None.

    Like ``zeros_like(tile) * divide_left(cvt, tile)`` but more general: the first
    bases of each in dim must equal the tile's, and every later basis must avoid the
    bits the tile touches in each out dim; those later bases are kept as they are and
    the tile's positions become zero.

    Examples:
        >>> cvt = LinearLayout.from_bases(
        ...     [("register", [[1], [4], [8]]), ("lane", [[2]])], ["offset"]
        ... )
        >>> get_reps(cvt, LinearLayout.identity_1d(2, "register", "offset")).bases
        [('register', [[0], [4], [8]]), ('lane', [[2]])]
    """
    _require_layout(cvt, "cvt")
    _require_layout(tile, "tile")
    missing = [d for d in tile.get_out_dim_names() if not cvt.has_out_dim(d)]
    if missing:
        raise DimensionError(
            f"Argument 'tile' has out dims {missing} that 'cvt' lacks {cvt.get_out_dim_names()}."
        )
    outs = cvt.get_out_dim_names()
    tile_mask = {d: 0 for d in outs}
    for _, bases in tile.bases:
        for basis in bases:
            for d, value in zip(tile.get_out_dim_names(), basis):
                tile_mask[d] |= value
    nested = []
    for d, bases in cvt.bases:
        tile_bases = (
            [
                [b[tile.get_out_dim_index(o)] if tile.has_out_dim(o) else 0 for o in outs]
                for b in tile.bases[tile.get_in_dim_names().index(d)][1]
            ]
            if tile.has_in_dim(d)
            else []
        )
        if len(tile_bases) > len(bases) or bases[: len(tile_bases)] != tile_bases:
            return None
        rest = bases[len(tile_bases) :]
        if any(b[k] & tile_mask[o] for b in rest for k, o in enumerate(outs)):
            return None
        nested.append((d, [[0] * len(outs) for _ in tile_bases] + rest))
    return LinearLayout(nested, outs, cvt.get_out_dim_sizes(), require_surjective=False)
