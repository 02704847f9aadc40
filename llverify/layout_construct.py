"""A LinearLayout's packed columns from user bases: a fast bulk check, else a precise one.

``LinearLayout(bases, out_dim_names, out_dim_sizes, require_surjective)`` hands its arguments
here and gets back plain data, a :data:`Columns` tuple; ``llverify/layout.py`` fills the new
instance's slots from it.  This module sits one layer below ``layout`` and never imports it.

The packed form (``layout.py`` explains it at length): per in dim, one int per input bit (its
basis), out dim ``k`` occupying bits ``[offset_k, offset_k + log2(size_k))``, the offsets
accumulating in out-dim order.

Two tiers build it:

* :func:`fast_columns`, for the common input (lists, tuples or a dict of plain ints, str names),
  checks everything in bulk with C-level passes (``zip``, ``map``, ``max``, ``set``) and returns
  None, having built nothing, whenever anything is unusual;
* :func:`validated_columns` then checks coordinate by coordinate: it raises the error that names
  the bad argument, or accepts what the fast path left to it (numpy ints or arrays, a
  subclass of list or str, ...).

Both enforce every invariant (Triton's, and llverify's caps) except surjectivity, which needs
the rank and is the caller's check.  ``tests/test_layout_construction.py`` checks that the fast
tier accepts only what the thorough one accepts, with the same columns.

Examples:
    >>> bases = [("register", [[0, 1]]), ("lane", [[0, 2], [1, 0]])]
    >>> fast_columns(bases, ["dim0", "dim1"], None, True)
    (('register', 'lane'), ((2,), (4, 1)), ('dim0', 'dim1'), (1, 2), (0, 1), 3)
    >>> validated_columns(bases, ["dim0", "dim1"], None, True)
    (('register', 'lane'), ((2,), (4, 1)), ('dim0', 'dim1'), (1, 2), (0, 1), -1)
    >>> fast_columns({"lane": [[1], [-2]]}, ["dim0"], None, True) is None
    True
    >>> validated_columns({"lane": [[1], [-2]]}, ["dim0"], None, True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llverify.errors.LayoutError: Argument 'bases': basis 1 of in-dim 'lane' must have non-neg...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import reduce
from itertools import accumulate, chain
from marshal import dumps as _marshal_dumps
from operator import itemgetter, or_
from struct import Struct
from typing import Any

from llverify.bits import (
    MAX_DIM_LOG2,
    MAX_TOTAL_BITS,
    as_int,
    check_name,
    check_size,
    log2_exact,
)
from llverify.errors import DimensionError, LayoutError, LayoutTypeError, shown
from llverify.gf2 import dual_rows, rank_beside_units

#: What both tiers return: the in-dim names; per in dim, its packed columns; the out-dim names;
#: the out sizes' log2; the out offsets (where each out dim's field starts); and the rank, or
#: -1 when it is not known cheaply (``LinearLayout`` computes it on demand).
Columns = tuple[
    tuple[str, ...],
    tuple[tuple[int, ...], ...],
    tuple[str, ...],
    tuple[int, ...],
    tuple[int, ...],
    int,
]

#: The containers ``bases`` may come in for the fast path (an exact class test: a subclass of
#: them, or any other mapping or iterable, takes the thorough path).
BASES_CONTAINERS = (list, tuple, dict)
#: refused where a sequence is expected: strings and bytes are read per character, sets
#: have no order
UNORDERED = (str, bytes, AbstractSet)

# The fast path's exact-type tests: `set(map(type, values)) <= _INT_TYPE` checks every value
# in one C-level pass, and refuses bool (a subclass of int) and numpy ints alike.
_SEQUENCES = (list, tuple)
_SEQUENCE_TYPES = {list, tuple}
_STR_TYPE = {str}
_INT_TYPE = {int}
_MAX_DIM_SIZE = 1 << MAX_DIM_LOG2


# ---------------------------------------------------------------------- names and packing


def check_dim_name(value: Any, name: str) -> str:
    """``value`` if it is a str (a dimension name), else LayoutTypeError naming ``name``; a
    LayoutError when it is not printable or not in NFKC normal form
    (:func:`llverify.bits.name_problem` says why such names are refused).

    Examples:
        >>> check_dim_name("ℓane", "bases[1][0]")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'bases[1][0]' must be a dimension name ...'lane'.
    """
    if not isinstance(value, str):
        raise LayoutTypeError(
            f"Argument '{name}' must be a str (a dimension name), not "
            f"{type(value).__name__} {shown(value)}."
        )
    return check_name(value, name, "a dimension name")


def check_dim_names(values: Any, name: str) -> tuple[str, ...]:
    """A sequence of distinct dimension names, as a tuple.

    Examples:
        >>> check_dim_names(["lane", "warp"], "in_dims")
        ('lane', 'warp')
    """
    if isinstance(values, (*UNORDERED, Mapping)) or not isinstance(values, Iterable):
        raise LayoutTypeError(
            f"Argument '{name}' must be a sequence of dimension names, not "
            f"{type(values).__name__} {shown(values)}."
        )
    names = tuple(check_dim_name(v, f"{name}[{i}]") for i, v in enumerate(values))
    if len(set(names)) != len(names):
        duplicates = sorted({n for n in names if names.count(n) > 1})
        raise DimensionError(
            f"Argument '{name}' must not repeat a dimension, but {duplicates} appear twice "
            f"in {list(names)}."
        )
    return names


def field_offsets(log2s: Sequence[int]) -> tuple[int, ...]:
    """Where each out dim's field starts in a packed column: the running sum of the log2 sizes.

    Examples:
        >>> field_offsets((3, 4, 0, 1))
        (0, 3, 7, 7)
    """
    return tuple(accumulate(log2s[:-1], initial=0)) if log2s else ()


def pack_columns(
    nested: Sequence[Sequence[Sequence[int]]], out_log2: Sequence[int]
) -> tuple[tuple[int, ...], ...]:
    """Per in dim, each basis (one coordinate per out dim) packed into one int.

    The coordinates must fit their fields (each below its out size): ``+`` then equals ``|``.

    Examples:
        >>> pack_columns([[(1, 0), (0, 3)]], (1, 2))  # dim0 in bit 0, dim1 in bits 1-2
        ((1, 6),)
    """
    offsets = field_offsets(out_log2)
    return tuple(
        tuple(sum(v << off for v, off in zip(basis, offsets)) for basis in in_bases)
        for in_bases in nested
    )


def check_caps(
    ins: Sequence[str],
    cols: Sequence[Sequence[int]],
    outs: Sequence[str],
    out_log2: Sequence[int],
) -> None:
    """Refuse a layout past llverify's caps (Triton's int32 sizes, its 64-bit matrix rows)."""
    for name, in_cols in zip(ins, cols):
        if len(in_cols) > MAX_DIM_LOG2:
            raise LayoutError(
                f"In dim '{name}' would have size 2**{len(in_cols)}; llverify caps a dimension "
                f"at 2**{MAX_DIM_LOG2} (Triton's int32 sizes)."
            )
    for name, n in zip(outs, out_log2):
        if n > MAX_DIM_LOG2:
            raise LayoutError(
                f"Out dim '{name}' would have size 2**{n}; llverify caps a dimension at "
                f"2**{MAX_DIM_LOG2} (Triton's int32 sizes)."
            )
    total_in = sum(map(len, cols))
    total_out = sum(out_log2)
    if total_in > MAX_TOTAL_BITS or total_out > MAX_TOTAL_BITS:
        raise LayoutError(
            f"The layout would have {total_in} input bits and {total_out} output bits; "
            f"llverify, like Triton, caps each at {MAX_TOTAL_BITS}."
        )


# ---------------------------------------------------------------------- the fast tier


def fast_columns(
    bases: Any, out_dim_names: Any, out_dim_sizes: Any, require_surjective: bool
) -> Columns | None:
    """The columns for the constructor's common case (lists of plain ints), checked in bulk.

    Returns None whenever anything is unusual or wrong (the caller then runs the thorough
    :func:`validated_columns`, which raises the precise error or accepts the input).  What it
    returns satisfies every invariant, the 2**30 and 64-bit caps included.  Surjectivity is
    the caller's check; the rank comes back when it is cheap, else -1.

    Examples:
        >>> fast_columns({"i": [[1], [2]]}, ["o"], [8], False)
        (('i',), ((1, 2),), ('o',), (3,), (0,), 2)
    """
    try:
        dims = _fast_dims(bases, out_dim_names)
        if dims is None:
            return None
        names, groups, outs = dims
        counts = list(map(len, groups))  # bases per in dim (each in dim's size log2)
        flat = list(chain.from_iterable(groups))  # every basis, in-dim by in-dim
        if counts and (max(counts) > MAX_DIM_LOG2 or len(flat) > MAX_TOTAL_BITS):
            return None
        num_outs = len(outs)
        if out_dim_sizes is None:
            if not require_surjective:
                return None  # an error: sizes are inferred only for surjective layouts
        elif not _fast_sizes_fit(out_dim_sizes, num_outs):
            return None
        packer = _FAST_PACKERS[num_outs] if num_outs < 3 else _fast_pack_many
        packing = packer(flat, num_outs, out_dim_sizes)
    except (TypeError, ValueError, AttributeError, IndexError):
        return None  # e.g. a basis that is an int, of the wrong length, or lists mixed with tuples
    if packing is None:
        return None
    packed, out_log2, offsets, union = packing
    if len(packed) != len(flat) or (packed and min(packed) < 0):
        return None  # a non-int coordinate was filtered out, or one was negative
    cols = []
    position = 0
    for count in counts:
        cols.append(tuple(packed[position : position + count]))
        position += count
    # The rank, when no two columns share a bit (sum == OR): then the non-zero columns
    # are independent.  Cheap here, and true of most distributed layouts.
    rank = len(packed) - packed.count(0) if sum(packed) == union else -1
    return names, tuple(cols), outs, out_log2, offsets, rank


def _fast_dims(
    bases: Any, out_dim_names: Any
) -> tuple[tuple[str, ...], tuple[Any, ...], tuple[str, ...]] | None:
    """In-dim names, their bases lists and out-dim names, when all are plain and distinct."""
    if bases.__class__ not in BASES_CONTAINERS or out_dim_names.__class__ not in _SEQUENCES:
        return None  # e.g. None, whose falsiness must not read as "no in dims"
    items = bases.items() if bases.__class__ is dict else bases
    outs = tuple(out_dim_names)
    # zip(*items) raises ValueError for an item that is not a pair: the caller's except.
    names, groups = zip(*items) if items else ((), ())
    if (
        not {*map(type, names), *map(type, outs)} <= _STR_TYPE
        or not _plain_text("".join(names) + "".join(outs))
        or not set(map(type, groups)) <= _SEQUENCE_TYPES
        or len(set(names)) != len(names)
        or len(set(outs)) != len(outs)
    ):
        return None
    return names, groups, outs


def _plain_text(text: str) -> bool:
    """True when ``text`` (all the names, joined) is printable ASCII: names the thorough
    tier's :func:`check_dim_name` accepts as they are."""
    return text.isascii() and text.isprintable()


def _fast_sizes_fit(sizes: Any, num_outs: int) -> bool:
    """True when ``sizes`` is a list/tuple of ``num_outs`` powers of 2 in [1, 2**30]."""
    return (
        sizes.__class__ in _SEQUENCES
        and len(sizes) == num_outs
        and set(map(type, sizes)) <= _INT_TYPE
        and min(sizes, default=1) > 0
        and max(sizes, default=1) <= _MAX_DIM_SIZE
        and not any(size & (size - 1) for size in sizes)
    )


def _fast_out_log2(tops: Sequence[int], sizes: Sequence[int] | None) -> tuple[int, ...] | None:
    """The out sizes' log2: given (each top must fit) or inferred from the tops (within the
    2**30 cap); None when a coordinate does not fit.  A top is the largest coordinate of its
    out dim or the OR of them all: both have the same bit length."""
    if sizes is None:
        if tops and max(tops) >> MAX_DIM_LOG2:
            return None
        # Triton infers NextPowerOf2(largest coordinate): 2**bit_length (1 for no coordinate).
        return tuple(map(int.bit_length, tops))
    if any(top >= size for top, size in zip(tops, sizes)):
        return None
    return tuple([size.bit_length() - 1 for size in sizes])


# The packed columns, the out sizes' log2, the out offsets, and the OR of the columns.
_Packing = tuple[list[int], tuple[int, ...], tuple[int, ...], int]

# One packer per number of out dims (0, 1, 2, many), since the first three are the common
# cases and each gets a single list comprehension.  A packer drops (one/two) or refuses
# (none/many) non-int coordinates; fast_columns notices a dropped one by the count.


def _fast_pack_none(flat: list[Any], num_outs: int, sizes: Any) -> _Packing | None:
    """No out dims: every basis must be empty (packed to 0)."""
    if flat and set(map(len, flat)) != {0}:
        return None
    return [0] * len(flat), (), (), 0


def _fast_pack_one(flat: list[Any], num_outs: int, sizes: Any) -> _Packing | None:
    """One out dim: the column is the coordinate (non-int coordinates are dropped)."""
    packed = [a for (a,) in flat if a.__class__ is int]
    union = reduce(or_, packed, 0)
    out_log2 = _fast_out_log2([union], sizes)
    return None if out_log2 is None else (packed, out_log2, (0,), union)


def _fast_pack_two(flat: list[Any], num_outs: int, sizes: Any) -> _Packing | None:
    """Two out dims: dim1's coordinate shifted above dim0's (non-int pairs are dropped)."""
    # Lists compare lexicographically: max(flat)[0] is the largest dim0 coordinate, so
    # dim0 fits below `shift` and dim1's coordinates OR to union >> shift.
    top0 = max(flat)[0] if flat else 0
    shift = top0.bit_length() if sizes is None else sizes[0].bit_length() - 1
    packed = [a | (b << shift) for a, b in flat if a.__class__ is b.__class__ is int]
    union = reduce(or_, packed, 0)
    out_log2 = _fast_out_log2([top0, union >> shift], sizes)
    return None if out_log2 is None else (packed, out_log2, (0, shift), union)


def _fast_pack_many(flat: list[Any], num_outs: int, sizes: Any) -> _Packing | None:
    """Three or more out dims: pack coordinate by coordinate (all must be ints)."""
    if flat and set(map(len, flat)) != {num_outs}:
        return None
    coords = list(zip(*flat)) if flat else [()] * num_outs  # one tuple per out dim
    if not set(map(type, chain.from_iterable(coords))) <= _INT_TYPE:
        return None
    out_log2 = _fast_out_log2([max(column, default=0) for column in coords], sizes)
    if out_log2 is None or sum(out_log2) > MAX_TOTAL_BITS:
        return None
    offsets = field_offsets(out_log2)
    packed = list(coords[0])
    for offset, column in zip(offsets[1:], coords[1:]):
        packed = [p | (v << offset) for p, v in zip(packed, column)]
    return packed, out_log2, offsets, reduce(or_, packed, 0)


_FAST_PACKERS = (_fast_pack_none, _fast_pack_one, _fast_pack_two)


# ---------------------------------------------------------------------- the thorough tier


def validated_columns(
    bases: Any,
    out_dim_names: Sequence[str],
    out_dim_sizes: Sequence[int] | None,
    require_surjective: bool,
) -> Columns:
    """Check every argument of the constructor thoroughly; raise a precise error.

    The checks run in the order a user fixes them: the bases' structure, names, coordinates
    (per in dim: count, length, sign), the out sizes, then the caps.  Surjectivity is the
    caller's check; the rank comes back unknown (-1).

    Examples:
        >>> validated_columns({"i": [[1], [2]]}, ("o",), (8,), False)
        (('i',), ((1, 2),), ('o',), (3,), (0,), -1)
    """
    in_names, nested = _normalize_bases(bases)
    outs = check_dim_names(out_dim_names, "out_dim_names")
    _check_coordinates(in_names, nested, outs)
    if out_dim_sizes is None:
        if not require_surjective:
            raise LayoutError(
                "Argument 'out_dim_sizes' must be given when require_surjective is "
                "False (sizes are only inferred for surjective layouts)."
            )
        sizes = _inferred_sizes(nested, outs)
    else:
        sizes = _given_sizes(out_dim_sizes, outs)
        _check_coordinates_fit(in_names, nested, outs, sizes)
    out_log2 = tuple(log2_exact(s) for s in sizes)
    cols = pack_columns(nested, out_log2)
    check_caps(in_names, cols, outs, out_log2)
    return in_names, cols, outs, out_log2, field_offsets(out_log2), -1


def _check_coordinates(
    in_names: tuple[str, ...],
    nested: tuple[tuple[tuple[int, ...], ...], ...],
    outs: tuple[str, ...],
) -> None:
    """Per in dim: at most 30 bases, each with one non-negative coordinate per out dim."""
    num_outs = len(outs)
    for in_dim, in_bases in zip(in_names, nested):
        if len(in_bases) > MAX_DIM_LOG2:
            raise LayoutError(
                f"Argument 'bases' has {len(in_bases)} bases for in-dim '{in_dim}'; "
                f"llverify caps an in-dim at {MAX_DIM_LOG2} bases (size 2**{MAX_DIM_LOG2}, "
                f"Triton's int32 sizes)."
            )
        for i, basis in enumerate(in_bases):
            if len(basis) != num_outs:
                raise LayoutError(
                    f"Argument 'bases': basis {i} of in-dim '{in_dim}' must have "
                    f"{num_outs} coordinates (one per out dim {list(outs)}), not "
                    f"{len(basis)}: {list(basis)}."
                )
            for k, coord in enumerate(basis):
                if coord < 0:
                    raise LayoutError(
                        f"Argument 'bases': basis {i} of in-dim '{in_dim}' must have "
                        f"non-negative coordinates, not {coord} for out-dim '{outs[k]}'."
                    )


def _inferred_sizes(
    nested: tuple[tuple[tuple[int, ...], ...], ...], outs: tuple[str, ...]
) -> list[int]:
    """Triton's inferred out sizes: the smallest power of 2 above each out dim's coordinates."""
    sizes = [1] * len(outs)
    for in_bases in nested:
        for basis in in_bases:
            for k, coord in enumerate(basis):
                if coord >= sizes[k]:
                    sizes[k] = _next_power_of_2_above(coord)
    for k, size in enumerate(sizes):
        if size > 1 << MAX_DIM_LOG2:
            raise LayoutError(
                f"Argument 'bases' implies out-dim '{outs[k]}' of size {size}; "
                f"llverify caps a dimension at 2**{MAX_DIM_LOG2} (Triton's int32 sizes)."
            )
    return sizes


def _given_sizes(out_dim_sizes: Any, outs: tuple[str, ...]) -> list[int]:
    """The given out sizes: one power of 2 (at most 2**30) per out dim."""
    if isinstance(out_dim_sizes, (str, bytes)) or not isinstance(out_dim_sizes, Iterable):
        raise LayoutTypeError(
            f"Argument 'out_dim_sizes' must be a sequence of ints, not "
            f"{type(out_dim_sizes).__name__} {shown(out_dim_sizes)}."
        )
    sizes = [check_size(s, f"out_dim_sizes[{k}]") for k, s in enumerate(out_dim_sizes)]
    if len(sizes) != len(outs):
        raise LayoutError(
            f"Argument 'out_dim_sizes' must have one size per out dim "
            f"({len(outs)}: {list(outs)}), not {len(sizes)}: {sizes}."
        )
    return sizes


def _check_coordinates_fit(
    in_names: tuple[str, ...],
    nested: tuple[tuple[tuple[int, ...], ...], ...],
    outs: tuple[str, ...],
    sizes: list[int],
) -> None:
    """Every coordinate is below its out dim's given size (Triton aborts otherwise)."""
    for in_dim, in_bases in zip(in_names, nested):
        for i, basis in enumerate(in_bases):
            for k, coord in enumerate(basis):
                if coord >= sizes[k]:
                    raise LayoutError(
                        f"Argument 'bases': basis {i} of in-dim '{in_dim}' has "
                        f"coordinate {coord} for out-dim '{outs[k]}', which must "
                        f"be less than its size {sizes[k]}."
                    )


def _next_power_of_2_above(value: int) -> int:
    """Smallest power of two strictly greater than value (llvm::NextPowerOf2)."""
    return 1 << value.bit_length()


def _normalize_bases(
    bases: Any,
) -> tuple[tuple[str, ...], tuple[tuple[tuple[int, ...], ...], ...]]:
    """Accept ``[(name, [[...], ...]), ...]`` or ``{name: [[...], ...]}``; return tuples."""
    if isinstance(bases, Mapping):
        items = list(bases.items())
    elif isinstance(bases, UNORDERED) or not isinstance(bases, Iterable):
        raise LayoutTypeError(
            f"Argument 'bases' must be a list of (in_dim, bases) pairs or a dict, not "
            f"{type(bases).__name__} {shown(bases)}."
        )
    else:
        items = []
        for i, item in enumerate(bases):
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise LayoutTypeError(
                    f"Argument 'bases[{i}]' must be an (in_dim, bases) pair, not {shown(item)}."
                )
            items.append((item[0], item[1]))
    names = []
    nested = []
    for i, (name, in_bases) in enumerate(items):
        names.append(check_dim_name(name, f"bases[{i}][0]"))
        nested.append(_normalize_in_bases(name, in_bases))
    in_names = check_dim_names(names, "bases")
    return in_names, tuple(nested)


def _normalize_in_bases(name: str, in_bases: Any) -> tuple[tuple[int, ...], ...]:
    """One in dim's bases as tuples of ints (``as_int``: numpy ints pass, floats do not)."""
    if isinstance(in_bases, UNORDERED) or not isinstance(in_bases, Iterable):
        raise LayoutTypeError(
            f"Argument 'bases' for in-dim '{name}' must be a list of bases, not "
            f"{type(in_bases).__name__} {shown(in_bases)}."
        )
    converted = []
    for j, basis in enumerate(in_bases):
        if j == MAX_DIM_LOG2:  # checked here too: in_bases may be an endless iterator
            raise LayoutError(
                f"Argument 'bases' has {j + 1} or more bases for in-dim '{name}'; "
                f"llverify caps an in-dim at {MAX_DIM_LOG2} bases (size 2**{MAX_DIM_LOG2}, "
                "Triton's int32 sizes)."
            )
        if isinstance(basis, UNORDERED) or not isinstance(basis, Iterable):
            raise LayoutTypeError(
                f"Argument 'bases': basis {j} of in-dim '{name}' must be a list of "
                f"ints, not {type(basis).__name__} {shown(basis)}."
            )
        converted.append(
            tuple(
                v if v.__class__ is int else as_int(v, f"bases['{name}'][{j}][{k}]")
                for k, v in enumerate(basis)
            )
        )
    return tuple(converted)


# ---------------------------------------------------------------------- the template tier
#
# ``LinearLayout.from_bases`` serialises its arguments with ``marshal`` (version 0, no
# back-references) as the key of its memo.  That serialisation is a prefix code: an int in the
# int32 range is the byte ``i`` and four little-endian payload bytes whatever its value, and
# every other object is written with its exact type code (marshal refuses subclasses; a bool is
# ``T`` or ``F``, never ``i``; a str is ``u``, its length and its bytes).  Two argument tuples
# whose serialisations agree on every byte outside the int payloads therefore have the same
# exact types, containers, dim names, counts of bases, out dims, out sizes and flag, and differ
# only in the values of their coordinates.  A *template* (:func:`make_template`) keeps the
# serialisation of arguments that passed the fast tier, with the payloads zeroed, and the out
# widths Triton inferred for them.  A later key of the same length that matches it outside the
# payloads, with every coordinate below its out dim's size (the payload bits from the width up
# clear), has passed every check of its structure already; the template then packs its
# columns from the key's bytes read as one big int (a few big-int operations and one
# ``struct`` call, no Python loop over the bases) and accepts them when they have full rank
# (surjective, so the widths are also the inferred ones): at once when the columns are the
# unit vectors once each (blocked, MMA and most distributed layouts) or when they include a
# basis the template took from its own columns (a swizzle's shuffles), else by their
# coordinates in that basis along the basis columns they lack (``gf2.dual_rows``: one column
# XORed into another costs a popcount).

#: A template: the columns of the arguments serialised as the given key, or None when the key
#: lacks the template's structure, a coordinate reaches past the template's out sizes, or the
#: columns do not have full rank.
TemplateReader = Callable[[bytes], "Columns | None"]


def _payload_starts(
    bases: Any, out_dim_names: Any, key_length: int, num_bases: int, num_outs: int
) -> tuple[int, list[int]] | None:
    """The key of ``bases`` with every coordinate 0 (as an int), and where each coordinate's
    4-byte payload starts in it, basis by basis and out dim by out dim: found by serialising
    the structure with every coordinate 0 and then 0x01010101 (the bytes that differ are the
    payloads).  None when the payloads are not where one ``i`` token per coordinate puts them.
    """
    zeros = _marshal_dumps((_probe(bases, 0), out_dim_names, None, True), 0)
    ones = _marshal_dumps((_probe(bases, 0x01010101), out_dim_names, None, True), 0)
    if not len(zeros) == len(ones) == key_length:
        return None
    expected = int.from_bytes(zeros, "little")
    diff = (expected ^ int.from_bytes(ones, "little")).to_bytes(key_length, "little")
    starts = []
    found = diff.find(b"\x01\x01\x01\x01")
    while found >= 0:
        starts.append(found)
        found = diff.find(b"\x01\x01\x01\x01", found + 4)
    if (
        len(starts) != num_bases * num_outs
        or diff.count(1) != 4 * len(starts)
        or any(p - starts[i - i % num_outs] != 5 * (i % num_outs) for i, p in enumerate(starts))
    ):
        return None
    return expected, starts


def make_template(
    bases: Any, out_dim_names: Any, key: bytes, parts: Columns
) -> TemplateReader | None:
    """The template of ``from_bases(bases, out_dim_names)`` (inferred sizes, surjective), whose
    key is ``key`` and whose fast-tier columns are ``parts`` (of full rank); None when its
    structure does not suit one (no out dims or no bases, or the key's payloads are not where
    a probe puts them).

    The payloads are found by serialising the same structure twice, every coordinate 0 and
    then 0x01010101 (both ``i`` tokens): the bytes that differ are exactly the payloads.

    Why a reader's result is right: the key matches the template outside the payloads, so the
    arguments have the template's structure, each coordinate an int; the bits the key must
    also have clear put out dim ``k``'s coordinates in ``[0, 2**w_k)``, ``w_k`` the template's
    width (log2 size) of it.  Every basis is packed with those widths (one shift per out dim
    moves its coordinate of every basis to its field) and the columns read by one ``struct``
    call.  They are accepted only when their rank is ``T = sum(w_k)``, the number of out bits:
    the layout is then surjective onto sizes ``2**w_k``, so some coordinate of every out dim
    has its top bit ``w_k - 1`` set and Triton's inferred sizes are those sizes.  The rank is
    ``T`` at once when the columns are the ``T`` unit vectors once each and zeros (``T`` bits
    in all, summing to ``2**T - 1``, ``T`` columns non-zero), or when they include a basis
    of ``T`` columns taken from the template's own (:func:`llverify.gf2.dual_rows`); else it
    is decided exactly from their coordinates in that basis (``_full_rank``).

    Examples:
        >>> from marshal import dumps
        >>> bases, outs = [("lane", [[0, 1], [1, 0]])], ["dim0", "dim1"]
        >>> key = dumps((bases, outs, None, True), 0)
        >>> read = make_template(bases, outs, key, fast_columns(bases, outs, None, True))
        >>> read(dumps(([("lane", [[1, 0], [0, 1]])], outs, None, True), 0))
        (('lane',), ((1, 2),), ('dim0', 'dim1'), (1, 1), (0, 1), 2)
        >>> read(dumps(([("lane", [[1, 1], [0, 1]])], outs, None, True), 0))  # a swizzle
        (('lane',), ((3, 2),), ('dim0', 'dim1'), (1, 1), (0, 1), 2)
        >>> read(dumps(([("lane", [[1, 1], [1, 1]])], outs, None, True), 0)) is None  # rank 1
        True
        >>> read(dumps(([("lane", [[1, 0], [0, -1]])], outs, None, True), 0)) is None
        True
    """
    ins, cols, outs, out_log2, offsets, _ = parts
    counts = [len(in_cols) for in_cols in cols]
    num_outs = len(outs)
    if not num_outs or not sum(counts):
        return None
    # A basis among the template's columns and its dual rows: a reader's rank test.
    rows = dual_rows(chain.from_iterable(cols), sum(out_log2))
    if rows is None:
        return None  # (not of full rank: a surjective layout's columns always are)
    probed = _payload_starts(bases, out_dim_names, len(key), sum(counts), num_outs)
    if probed is None:
        return None
    expected, starts = probed
    # Per out dim, the low w_k bits of its coordinate in every basis (the coordinates of one
    # basis are 40 bits apart, a 5-byte `i` token each).
    fields = [
        sum(((1 << width) - 1) << (8 * p) for p in starts[k::num_outs])
        for k, width in enumerate(out_log2)
    ]
    # The key's bits that must equal `expected`: all but those fields.
    check = ((1 << (8 * len(key))) - 1) ^ sum(fields)
    if int.from_bytes(key, "little") & check != expected:
        return None
    bounds = list(accumulate(counts, initial=0))
    slices = [slice(a, b) for a, b in zip(bounds, bounds[1:])]
    groups: Callable[[tuple[int, ...]], tuple[tuple[int, ...], ...]]
    if len(slices) == 1:
        groups = _one_group
    elif counts[1:] == [0]:  # a shared layout's offsets and its empty block dim
        groups = _first_of_two
    else:
        groups = itemgetter(*slices)
    total = sum(out_log2)
    # What a reader returns besides the columns, and what its unit-vector test compares:
    # the T unit vectors once each and the other columns 0 (sum 2**T - 1, no carry).
    shape = (ins, outs, out_log2, offsets, total)
    firsts = starts[::num_outs]  # every basis's first payload: where its column is read
    # each dual row in every column's slot (see _full_rank)
    ones = sum(1 << (8 * p) for p in firsts)
    spread = {column: row * ones for column, row in rows.items()}
    units = ((1 << total) - 1, sum(counts) - total, frozenset(rows), rows, spread)
    # A basis of ints is at least 10 bytes long (15 with two out dims): the slots read below
    # (and, in the narrow reader, what lands outside them) never overlap.  Checked all the same.
    gap = min((b - a for a, b in zip(firsts, firsts[1:])), default=15)
    if gap < 8 or (num_outs == 2 and gap < 15):
        return None
    if num_outs == 2 and total <= 32 and out_log2[0] <= 20:
        # 32 bits read at each: see _narrow_reader.
        unpack, nbytes = _slots(firsts, "I", 4, len(key))
        return _narrow_reader(
            check, expected, 40 - offsets[1], unpack, nbytes, groups, shape, units
        )
    # Field k moves down by 40k bits less its offset, next to the fields before it; 64 bits
    # read at each first payload (T <= 64 bits).
    moves = tuple(
        (field, 40 * k - offset) for k, (field, offset) in enumerate(zip(fields, offsets))
    )
    unpack, nbytes = _slots(firsts, "Q", 8, firsts[-1] + 8)
    return _reader(check, expected, moves, unpack, nbytes, groups, shape, units)


def _slots(
    firsts: list[int], code: str, size: int, nbytes: int
) -> tuple[Callable[[bytes], tuple[int, ...]], int]:
    """A ``struct`` unpacker of one ``size``-byte unsigned int (``code``) at each offset of
    ``firsts`` in ``nbytes`` bytes, and ``nbytes``."""
    layout, end = ["<"], 0
    for p in firsts:
        layout.append(f"{p - end}x{code}")
        end = p + size
    layout.append(f"{nbytes - end}x")
    return Struct("".join(layout)).unpack, nbytes


#: What make_template hands its reader: the in-dim names, the out-dim names, the out sizes'
#: log2, the out offsets and T (their sum) (_Shape); 2**T - 1, the count of zero columns when
#: the columns are the unit vectors once each, a basis of T columns among the template's own
#: and their dual rows (``gf2.dual_rows``), and each dual row copied into every column's
#: slot of the packed int a reader unpacks (_Units, see _full_rank).
_Shape = tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...], tuple[int, ...], int]
_Units = tuple[int, int, frozenset[int], dict[int, int], dict[int, int]]


def _narrow_reader(
    check: int,
    expected: int,
    shift: int,
    unpack: Callable[[bytes], tuple[int, ...]],
    nbytes: int,
    groups: Callable[[tuple[int, ...]], tuple[tuple[int, ...], ...]],
    shape: _Shape,
    units: _Units,
) -> TemplateReader:
    """The reader of a template with two out dims, ``T <= 32`` and ``w_0 <= 20`` (the common
    case; make_template's argument), with fewer big-int operations.  ``check``: the key's
    bits outside both out dims' fields; ``shift = 40 - w_0``.

    The key XOR ``expected`` (the key with every coordinate 0) must have no bit in ``check``;
    it is then the coordinates' bits, each in its field (``fields``).  One shift of the
    coordinates moves every dim1 coordinate from bit ``8p + 40`` to ``8p + w_0``, above its
    dim0 coordinate at ``8p``: the 32 bits at ``8p`` are the column.  What else lands or
    stays is outside every such slot: a shifted dim0 coordinate below ``8p`` (``w_0 <= 20``;
    a basis's payloads are at least 15 bytes after the last one's), an unshifted dim1
    coordinate from ``8p + 40``.  The popcount of the coordinates is that of the columns."""
    from_bytes = int.from_bytes
    ins, outs, out_log2, offsets, total = shape
    full, zeros, pivots, rows, spread = units
    swizzled = pivots != frozenset(1 << b for b in range(total))

    def read(key: bytes) -> Columns | None:
        fields = from_bytes(key, "little") ^ expected
        if fields & check:
            return None
        packed = fields | (fields >> shift)
        flat = unpack(packed.to_bytes(nbytes, "little"))
        if swizzled or fields.bit_count() != total or sum(flat) != full or flat.count(0) != zeros:
            # Not the unit vectors once each (not tried when the template's basis is not
            # theirs): full rank when every column of the template's basis is among them,
            # else see _full_rank.
            missing = pivots.difference(flat)
            if missing:
                if len(missing) == 1:  # _full_rank's first test, inline
                    (column,) = missing
                    if (packed & spread[column]).bit_count() & 1:
                        return ins, groups(flat), outs, out_log2, offsets, total
                if not _full_rank(flat, missing, rows, packed, spread):
                    return None
        return ins, groups(flat), outs, out_log2, offsets, total

    return read


def _reader(
    check: int,
    expected: int,
    moves: tuple[tuple[int, int], ...],
    unpack: Callable[[bytes], tuple[int, ...]],
    nbytes: int,
    groups: Callable[[tuple[int, ...]], tuple[tuple[int, ...], ...]],
    shape: _Shape,
    units: _Units,
) -> TemplateReader:
    """The reader of a template of any number of out dims (see make_template): the fields
    moved next to each other one out dim at a time, 64 bits read per column."""
    from_bytes = int.from_bytes
    ins, outs, out_log2, offsets, total = shape
    full, zeros, pivots, rows, spread = units

    def read(key: bytes) -> Columns | None:
        fields = from_bytes(key, "little") ^ expected
        if fields & check:
            return None
        packed = 0
        for field, shift in moves:
            packed |= (fields & field) >> shift
        flat = unpack(packed.to_bytes(nbytes, "little"))
        if packed.bit_count() != total or sum(flat) != full or flat.count(0) != zeros:
            # Not the unit vectors once each: full rank when every column of the
            # template's basis is among them, else see _full_rank.
            missing = pivots.difference(flat)
            if missing and not _full_rank(flat, missing, rows, packed, spread):
                return None
        return ins, groups(flat), outs, out_log2, offsets, total

    return read


def _full_rank(
    flat: tuple[int, ...],
    missing: frozenset[int],
    rows: dict[int, int],
    packed: int,
    spread: dict[int, int],
) -> bool:
    """True when the columns ``flat``, each below ``2**T``, have rank ``T``; ``rows``: a basis
    of that space (the template's) mapped to its dual rows (``gf2.dual_rows``), ``missing``:
    the basis columns absent from ``flat`` (not empty); ``packed``: an int holding the
    columns in slots (nothing else in the slots, each at least T bits wide, disjoint), what
    the reader unpacked ``flat`` from; ``spread``: each dual row copied into every slot.

    In that basis, a column ``x``'s coordinate along basis column ``m`` is
    ``parity(x & rows[m])``.  The basis columns present span a space ``S``; modulo ``S`` the
    missing ones are a basis and ``x`` is the sum of those along which its coordinate is 1.
    So the rank is ``T`` exactly when the coordinates along the missing columns, a matrix of
    one row per missing column and one column per column of ``flat`` (the present basis
    columns give zero columns), have full row rank: Gaussian elimination on those rows, each
    a parity mask (a sum of rows is the XOR of their masks).  A swizzle's shuffles miss no
    basis column (the caller accepts them at once), one column XORed into another misses
    one: a column of coordinate 1 along it is found at once when the coordinates sum to an
    odd number (one popcount of ``packed`` masked by the dual row in every slot), else by a
    scan.  More than three missing: one elimination of the columns instead
    (``gf2.rank_beside_units``).

    Examples:
        >>> rows = {1: 1, 2: 2, 4: 4}  # the unit vectors: their own dual rows
        >>> def full_rank(flat, missing):  # the columns in 8-bit slots
        ...     packed = sum(c << (8 * i) for i, c in enumerate(flat))
        ...     ones = sum(1 << (8 * i) for i in range(len(flat)))
        ...     spread = {column: row * ones for column, row in rows.items()}
        ...     return _full_rank(flat, frozenset(missing), rows, packed, spread)
        >>> full_rank((1, 2, 6), {4})  # 6 = 2 ^ 4 covers 4
        True
        >>> full_rank((1, 2, 3, 0), {4})  # 3 = 1 ^ 2: rank 2
        False
        >>> full_rank((6, 2, 6, 1), {4})  # two columns of coordinate 1: found by the scan
        True
        >>> full_rank((1, 6, 3), {2, 4}), full_rank((1, 6, 6), {2, 4})  # rank 3, rank 2
        (True, False)
    """
    if len(missing) > 3:
        return rank_beside_units(0, {*flat}) == len(rows)
    if len(missing) == 1:
        (column,) = missing
        if (packed & spread[column]).bit_count() & 1:
            return True  # an odd number of columns of coordinate 1: one at least
    masks = list(map(rows.__getitem__, missing))
    while masks:
        mask = masks.pop()
        for column in flat:
            if (column & mask).bit_count() & 1:
                break
        else:
            return False  # this row (a sum of rows) is zero on every column
        # `column` is the pivot of this row: the other rows are taken modulo it.
        masks = [m ^ mask if (column & m).bit_count() & 1 else m for m in masks]
    return True


def _one_group(flat: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The columns of a layout of one in dim, split per in dim."""
    return (flat,)


def _first_of_two(flat: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The columns of a layout of two in dims, the second of size 1, split per in dim."""
    return (flat, ())


def _probe(bases: Any, value: int) -> Any:
    """``bases`` with every coordinate replaced by ``value``, every container of the same
    exact type (the fast tier accepted them: lists, tuples, a dict)."""
    if bases.__class__ is dict:
        return {name: _probe_group(group, value) for name, group in bases.items()}
    return bases.__class__(
        pair.__class__((pair[0], _probe_group(pair[1], value))) for pair in bases
    )


def _probe_group(group: Any, value: int) -> Any:
    """One in dim's bases with every coordinate replaced by ``value`` (see _probe)."""
    return group.__class__(basis.__class__([value] * len(basis)) for basis in group)
