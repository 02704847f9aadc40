"""The LinearLayout value type: an exact GF(2)-linear map between named bit spaces.

What a linear layout is
=======================

A linear layout says which logical tensor element sits at each hardware location.  It maps
named *in dims* (for a tensor in registers: ``register``, ``lane``, ``warp``, ``block``; for
shared memory: ``offset``, ``block``) to named *out dims* (the tensor's ``dim0``, ``dim1``,
...).  Every dim has a power-of-2 size, and the map is fixed by its *bases*: for each in dim
and each bit ``i`` of it, the out coordinates of the input ``in_dim = 2**i`` (every other in
dim 0).  The image of any input is the XOR of the bases of its set bits, across all in dims.

Worked example: Triton's ``#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8],
warpsPerCTA = [2, 1], order = [1, 0]}>`` on an 8x16 tensor is the layout with these bases,
each written ``(dim0, dim1)``::

    register=1 -> (0, 1)     a thread's two registers hold neighbours along dim1
    lane=1     -> (0, 2)     lanes 0..7 walk along dim1 first (order = [1, 0]),
    lane=2     -> (0, 4)     two elements apart
    lane=4     -> (0, 8)
    lane=8     -> (1, 0)     lanes 8..31 move down the rows
    lane=16    -> (2, 0)
    warp=1     -> (4, 0)     warp 1 holds rows 4..7
    block                    one CTA: a size-1 dim, no bases

Register 1 of lane 9 (= 8 + 1) in warp 1 therefore holds element
``L(register=1) ^ L(lane=1) ^ L(lane=8) ^ L(warp=1) = (0, 1) ^ (0, 2) ^ (1, 0) ^ (4, 0) = (5, 3)``:

    >>> blocked = LinearLayout.from_bases(
    ...     [
    ...         ("register", [[0, 1]]),
    ...         ("lane", [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]]),
    ...         ("warp", [[4, 0]]),
    ...         ("block", []),
    ...     ],
    ...     ["dim0", "dim1"],
    ... )
    >>> blocked.out_dims  # inferred: the next power of 2 above each out dim's largest coordinate
    [('dim0', 8), ('dim1', 16)]
    >>> blocked.apply({"register": 1, "lane": 9, "warp": 1, "block": 0})
    {'dim0': 5, 'dim1': 3}

No two of these bases share a bit, so XOR gives what ``+`` would.  Swizzles are where they
differ: this 4x4 shared layout stores row ``r``, column ``c`` at offset ``4 * r + (c ^ r)``,
so offset 5 = 4 + 1 holds ``(1, 1) ^ (0, 1) = (1, 0)``, not ``(1, 2)``:

    >>> swizzled = LinearLayout.from_bases(
    ...     [("offset", [[0, 1], [0, 2], [1, 1], [2, 2]])], ["dim0", "dim1"]
    ... )
    >>> swizzled.apply({"offset": 5})
    {'dim0': 1, 'dim1': 0}

GF(2) is the field of two elements, bits, where addition is XOR and multiplication is AND.
A layout is a matrix over GF(2), one column per input bit (its basis, the coordinates' bits
stacked) and one row per output bit, acting on the bits of the input indices: ``apply`` is a
matrix-vector product, ``compose`` a matrix product, ``invert_and_compose`` solves a linear
system, and surjective / injective mean full row / column rank.

Triton's class, and what llverify does instead of aborting
==========================================================

Semantics follow Triton 3.9's C++ ``LinearLayout`` (``include/triton/Tools/LinearLayout.h``,
``lib/Tools/LinearLayout.cpp``) bit for bit: the same out sizes inferred from the bases, the
same ``*``, ``compose``, preimage in ``invert_and_compose``, ``toString`` text and ``==``
(dim names, their order, bases and out sizes).  Triton checks its invariants with
``llvm::report_fatal_error`` or ``assert``, which abort the whole process (and with asserts
compiled out, carry on with a broken layout), when:

* a basis has a negative coordinate, or not one coordinate per out dim;
* an out size is not a power of 2, or a coordinate is not below its out dim's size;
* the layout is not surjective although surjectivity is required (always, when the out
  sizes are inferred);
* an operation names a dim the layout lacks, or gets dims that must match and do not:
  ``compose`` (this layout's out dims against the outer's in dims), ``invertAndCompose``
  (both layouts' out dims), ``concatIns/Outs``, ``transposeIns/Outs``, ``sublayout``, and
  ``operator*`` when dims common to both factors come in different relative orders;
* ``compose`` meets an out dim larger than the outer layout's in dim, ``invertAndCompose``
  one larger than the outer layout's out dim or an outer layout that cannot cover this
  layout's image, a reshape the wrong total size;
* the GF(2) matrix would exceed 64 rows or columns (its rows are ``uint64_t``).

Triton's ``apply`` silently ignores input bits above an in dim's size.  llverify refuses all
of these with an exception instead, always an :mod:`llverify.errors` class: ``LayoutError``
(a ``ValueError``) for bad values; its subclasses ``DimensionError`` for unknown or
mismatched dims and ``NotInvertibleError`` when there is nothing to invert or the image is
not covered; ``LayoutTypeError`` (a ``TypeError``) for an argument of the wrong type.  Sizes
are capped like Triton's int32 sizes (2**30 per dim) and uint64 matrix rows (64 bits per side).

This module holds the class and its algebra; ``layout_construct.py`` turns user bases into
the packed representation (described above ``class LinearLayout``) and words their errors.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from typing import Any

import numpy as np

from llverify import gf2
from llverify.bits import as_bool, as_int, check_size, is_power_of_2, log2_exact
from llverify.errors import (
    DimensionError,
    LayoutError,
    LayoutTypeError,
    LLVerifyError,
    NotInvertibleError,
    ParseError,
    shown,
)
from llverify.layout_construct import (
    BASES_CONTAINERS,
    UNORDERED,
    Columns,
    TemplateReader,
    check_caps,
    check_dim_name,
    check_dim_names,
    fast_columns,
    field_offsets,
    make_template,
    pack_columns,
    validated_columns,
)
from llverify.text_format import (
    LayoutParts,
    layout_object,
    parse_layout_json,
    parse_layout_object,
    parse_layout_text,
)

Bases = list[tuple[str, list[list[int]]]]

#: Bits per lookup table of apply() and apply_array(): an in dim of n bits gets ceil(n / 8)
#: tables of 2**8 entries each (see LinearLayout._build_tables).
_APPLY_CHUNK = 8
#: apply_all refuses layouts with more inputs than this unless told otherwise.
DEFAULT_MAX_INPUTS = 1 << 26
# from_bases's memo: layouts it built on the fast tier or read with a template, keyed on
# the marshal serialisation (version 0, no back-references) of all four arguments.  marshal
# writes only exact builtin types, each with its own type code (an int subclass, a str
# subclass or a list subclass cannot be written; a bool is not written as an int, nor a
# float), so equal keys mean arguments of the same exact types and values, hence the same
# layout.  Only inputs the fast tier accepted are stored (exact lists, tuples, dicts, strs
# and ints): an input marshal writes as bytes (a numpy array, say) never matches one of
# them.  Layouts are immutable, so a hit returns the same object.  A full memo is emptied
# (evicting the oldest entry one at a time would scan the dict's deleted slots).
_FROM_BASES: dict[bytes, LinearLayout] = {}
_MAX_MEMO = 4096
_MAX_MEMO_KEY = 1024  # bytes; larger arguments are built every time
_marshal_dumps: Any = marshal.dumps  # Any: it takes any object, raising ValueError


# Templates of argument structures (layout_construct.make_template): readers that take a
# first-time key of a structure seen before straight to its columns.  Per key length, the
# newest few; made on the second fast-tier build of a structure (_note_structure), so a
# one-off structure costs no template.  The layouts a template reads are memoised when
# the same key is read twice in a row (_LAST_READ).
_TEMPLATES: dict[int, tuple[TemplateReader, ...]] = {}
_SEEN_STRUCTURES: set[tuple[Any, ...]] = set()
_LAST_READ: list[bytes] = [b""]  # the key a template read last
_MAX_TEMPLATES = 256  # key lengths with templates; the dict is emptied when full
_TEMPLATES_PER_LENGTH = 4
_MAX_TEMPLATE_KEY = 8192  # bytes


def clear_from_bases_memo() -> None:
    """Forget the layouts ``LinearLayout.from_bases`` memoised and the argument structures it
    made templates of (benchmarks of cold construction call it).

    Examples:
        >>> clear_from_bases_memo()
    """
    _FROM_BASES.clear()
    _TEMPLATES.clear()
    _SEEN_STRUCTURES.clear()
    _LAST_READ[0] = b""


# Positions in LinearLayout._cache, the per-instance list of lazily derived data.
_RANK, _HASH, _NESTED, _TABLES, _IN_INDEX, _OUT_INDEX = range(6)


def supremum(x: Sequence[str], y: Sequence[str]) -> list[str]:
    """The shortest list containing both x and y as subsequences, biased towards x.

    Raises DimensionError when x and y order a common element differently.

    Examples:
        >>> supremum(["a", "b"], ["a", "c"])
        ['a', 'b', 'c']
        >>> supremum(["a", "c"], ["b", "c"])
        ['a', 'b', 'c']
    """
    if list(x) == list(y) or not y:
        return list(x)
    if not x:
        return list(y)
    pos_x = {d: i for i, d in enumerate(x)}
    pos_y = {d: i for i, d in enumerate(y)}
    common_x = [d for d in x if d in pos_y]
    common_y = [d for d in y if d in pos_x]
    if common_x != common_y:
        raise DimensionError(
            f"the dims common to {list(x)} and {list(y)} appear in different relative "
            f"orders ({common_x} vs {common_y}), so no supremum exists."
        )
    result: list[str] = []
    i = j = 0
    while i < len(x) or j < len(y):
        # Emit everything that precedes the next common element, x's part first.
        while i < len(x) and x[i] not in pos_y:
            result.append(x[i])
            i += 1
        while j < len(y) and y[j] not in pos_x:
            result.append(y[j])
            j += 1
        if i < len(x) and j < len(y):
            result.append(x[i])  # x[i] == y[j]: the next common element of both
            i += 1
            j += 1
    return result


# The representation
# ------------------
# A layout stores, per in dim, one *packed column* per input bit: the basis of that bit as
# one int, out dim k in bits [offset_k, offset_k + log2(size_k)), the offsets accumulating
# in out-dim order (_out_offsets, layout_construct.field_offsets).  In the blocked example
# of the module docstring, dim0 (size 8) takes bits 0-2 and dim1 (size 16) bits 3-6:
#
#     register=1 -> (0, 1) -> 0b0001_000 = 8      lane=1 -> (0, 2) -> 0b0010_000 = 16
#     lane=8     -> (1, 0) -> 0b0000_001 = 1      warp=1 -> (4, 0) -> 0b0000_100 = 4
#
# XOR has no carries, so XOR-ing packed columns XORs each out dim's field on its own:
# 8 ^ 16 ^ 1 ^ 4 = 29 = 0b0011_101, that is dim0 = 29 & 7 = 5 and dim1 = 29 >> 3 = 3, the
# element found above.  The packed columns are the columns of the GF(2) matrix (bit r is
# row r: get_matrix_view), so rank, solving, composing and applying are a few int
# operations per column, with no per-coordinate lists.  The columns alone do not fix a
# layout: the out sizes (_out_log2) say how wide each field is, and a field may have bits
# that no column reaches (a layout that is not surjective).
#
# Instances are immutable: __setattr__ refuses, construction writes the slots through their
# descriptors (_fill) or through a _Writable instance retagged LinearLayout (_built), and
# nothing rewrites them afterwards; only the entries of the _cache list fill in.  Methods
# build results directly as packed columns and wrap them with _make (no re-validation); the
# user-facing constructor goes through layout_construct, which checks everything.


class LinearLayout:
    """A linear layout: a GF(2)-linear map from named input dims to named output dims.

    ``bases[in_dim][i]`` is the image of ``in_dim = 2**i`` (all other inputs 0); the
    image of any input is the XOR of the bases selected by its set bits.  Instances
    are immutable and hashable; ``==`` compares dim names, their order, bases and out
    sizes, exactly like Triton's ``operator==``.

    Args:
        bases: ``[(in_dim, [[coord per out dim], ...]), ...]`` or a dict of the same.
        out_dim_names: the output dims, minor to major.
        out_dim_sizes: explicit out sizes (powers of 2); inferred when None as the
            smallest power of 2 above every coordinate (the layout must then be
            surjective).
        require_surjective: raise unless every output value is reached.

    Examples:
        >>> ll = LinearLayout.from_bases(
        ...     [("register", [[0, 1], [0, 2]]), ("lane", [[1, 0], [2, 0]])], ["dim0", "dim1"])
        >>> ll.apply({"register": 3, "lane": 1})
        {'dim0': 1, 'dim1': 3}
        >>> ll.out_dims
        [('dim0', 4), ('dim1', 4)]
    """

    __slots__ = ("_ins", "_cols", "_outs", "_out_log2", "_out_offsets", "_cache")

    # The fields: ==, hash and pickling use the first four (_out_offsets follows from them).
    _ins: tuple[str, ...]  # in-dim names, minor to major
    _cols: tuple[tuple[int, ...], ...]  # per in dim, one packed column per bit (log2 size)
    _outs: tuple[str, ...]  # out-dim names, minor to major
    _out_log2: tuple[int, ...]  # per out dim, log2 of its size: the width of its field
    _out_offsets: tuple[int, ...]  # per out dim, where its field starts (from _out_log2)
    # Lazily derived data: a list made at construction whose entries fill on first use (the
    # slot itself is never reassigned, so the instance stays immutable):
    #   [_RANK]      the rank, or -1 until computed (the fast constructor often knows it);
    #   [_HASH]      the hash, or -1 until computed (hash() never returns -1 in CPython);
    #   [_NESTED]    the bases as nested tuples (the `bases` view, _nested_bases), or None;
    #   [_TABLES]    apply()'s lookup tables and out fields (_build_tables), or None;
    #   [_IN_INDEX]  {in-dim name: position}, or None;
    #   [_OUT_INDEX] {out-dim name: position}, or None.
    # __reduce__ pickles the defining fields only; an unpickled copy rebuilds its cache.
    _cache: list[Any]

    # ------------------------------------------------------------------ construction

    def __init__(
        self,
        bases: Any,
        out_dim_names: Sequence[str],
        out_dim_sizes: Sequence[int] | None = None,
        require_surjective: bool = True,
    ) -> None:
        as_bool(require_surjective, "require_surjective")
        if bases.__class__ not in BASES_CONTAINERS:
            # Read a one-shot iterable once, so the fast and the thorough path see it all.
            if isinstance(bases, Mapping):
                bases = dict(bases)
            elif isinstance(bases, Iterable) and not isinstance(bases, (str, bytes)):
                bases = list(bases)
        # Two tiers (layout_construct): the bulk check for plain lists of ints, else the
        # per-coordinate one, which raises the precise error or accepts the unusual input.
        parts = fast_columns(bases, out_dim_names, out_dim_sizes, require_surjective)
        if parts is None:
            parts = validated_columns(bases, out_dim_names, out_dim_sizes, require_surjective)
        _fill(self, *parts)
        # Surjective iff the rank is the number of out bits (full row rank), as in Triton.
        if require_surjective and self._get_rank() != sum(self._out_log2):
            raise LayoutError(
                "Argument 'bases' must give a surjective layout (every output value "
                f"reached by some input) when require_surjective is True, but the rank is "
                f"{self._get_rank()} < {sum(self._out_log2)} output bits:{self.to_string()}"
            )

    @classmethod
    def from_bases(
        cls,
        bases: Any,
        out_dim_names: Sequence[str],
        out_dim_sizes: Sequence[int] | None = None,
        require_surjective: bool = True,
    ) -> LinearLayout:
        """Build a layout from bases (Triton's Python binding ``from_bases``).

        Examples:
            >>> LinearLayout.from_bases({"offset": [[1], [4], [2]]}, ["dim0"]).out_dims
            [('dim0', 8)]
        """
        if (
            cls is LinearLayout
            and bases.__class__ in BASES_CONTAINERS
            and require_surjective.__class__ is bool
        ):
            # Arguments built before are one look-up (_FROM_BASES explains the key).
            key: bytes | None
            try:
                key = _marshal_dumps((bases, out_dim_names, out_dim_sizes, require_surjective), 0)
            except ValueError:  # not plain data (numpy, a subclass, ...): no memo
                key = None
            if key is not None:
                layout = _FROM_BASES.get(key)
                if layout is not None:
                    return layout
                # A structure seen before (_TEMPLATES): the columns from the key's bytes.
                for read in _TEMPLATES.get(len(key), ()):
                    parts = read(key)
                    if parts is not None:
                        # _built written out: the path benchmarked against Triton, where
                        # the call cost several per cent (bench_core, first construction).
                        layout = _new_layout(_Writable)
                        (
                            layout._ins,
                            layout._cols,
                            layout._outs,
                            layout._out_log2,
                            layout._out_offsets,
                            rank,
                        ) = parts
                        layout._cache = [rank, -1, None, None, None, None]
                        layout.__class__ = LinearLayout  # type: ignore[assignment]
                        # Memoised when asked for twice in a row: storing costs a sixth of
                        # this path, and layouts built once each (a converter's cold run)
                        # would fill the memo for nothing.
                        if key == _LAST_READ[0] and len(key) <= _MAX_MEMO_KEY:
                            if len(_FROM_BASES) >= _MAX_MEMO:
                                _FROM_BASES.clear()
                            _FROM_BASES[key] = layout
                        _LAST_READ[0] = key
                        return layout
            # The common case without the constructor's dispatch (same checks, same result):
            # bulk-checked columns, with a known full rank when surjectivity is required.
            # Anything else (None from the fast tier, a rank unknown or short) goes through
            # the constructor, which decides and words the error.
            found = fast_columns(bases, out_dim_names, out_dim_sizes, require_surjective)
            if found is None:
                return cls(bases, out_dim_names, out_dim_sizes, require_surjective)
            if require_surjective and found[5] != sum(found[3]):
                # The rank was not cheap (a swizzle's columns share bits): eliminate here
                # rather than check everything again in the constructor.
                rank = found[5] if found[5] >= 0 else gf2.rank(list(chain.from_iterable(found[1])))
                if rank != sum(found[3]):
                    return cls(bases, out_dim_names, out_dim_sizes, require_surjective)
                found = (*found[:5], rank)
            if key is not None and out_dim_sizes is None and len(key) <= _MAX_TEMPLATE_KEY:
                _note_structure(bases, out_dim_names, key, found)
            layout = _new_layout(cls)
            _fill(layout, *found)
            if key is not None and len(key) <= _MAX_MEMO_KEY:
                if len(_FROM_BASES) >= _MAX_MEMO:
                    _FROM_BASES.clear()  # a new generation (a FIFO eviction scans)
                _FROM_BASES[key] = layout
            return layout
        return cls(bases, out_dim_names, out_dim_sizes, require_surjective)

    @classmethod
    def empty(cls) -> LinearLayout:
        """The 0-dimensional layout (identity of ``*``).

        Examples:
            >>> str(LinearLayout.empty())
            '\\n(empty layout)'
        """
        return _make((), (), (), ())

    @classmethod
    def strided_1d(cls, size: int, stride: int, in_dim: str, out_dim: str) -> LinearLayout:
        """L(x) = stride * x for x in [0, size); out size is stride * size.

        Examples:
            >>> LinearLayout.strided_1d(4, 2, "i", "o").bases
            [('i', [[2], [4]])]
        """
        size = check_size(size, "size", allow_zero=True)
        stride = as_int(stride, "stride")
        check_dim_name(in_dim, "in_dim")
        check_dim_name(out_dim, "out_dim")
        if size == 0:
            return cls.empty()
        if not is_power_of_2(stride):
            raise LayoutError(
                f"Argument 'stride' must be a power of 2 (the out size stride * size must "
                f"be a power of 2), not {stride}."
            )
        out_size = check_size(stride * size, "stride * size")
        shift = log2_exact(stride)
        cols = tuple(1 << (shift + i) for i in range(log2_exact(size)))
        return _make((in_dim,), (cols,), (out_dim,), (log2_exact(out_size),))

    @classmethod
    def identity_1d(cls, size: int, in_dim: str, out_dim: str) -> LinearLayout:
        """L(x) = x for x in [0, size).

        Examples:
            >>> LinearLayout.identity_1d(8, "lane", "dim0").bases
            [('lane', [[1], [2], [4]])]
        """
        return cls.strided_1d(size, 1, in_dim, out_dim)

    @classmethod
    def zeros_1d(cls, size: int, in_dim: str, out_dim: str, out_dim_size: int = 1) -> LinearLayout:
        """L(x) = 0 for x in [0, size); surjective only when out_dim_size is 1.

        Examples:
            >>> LinearLayout.zeros_1d(4, "warp", "dim0").bases
            [('warp', [[0], [0]])]
        """
        size = check_size(size, "size", allow_zero=True)
        out_dim_size = check_size(out_dim_size, "out_dim_size")
        check_dim_name(in_dim, "in_dim")
        check_dim_name(out_dim, "out_dim")
        if size == 0:
            return cls.empty()
        cols = (0,) * log2_exact(size)
        return _make((in_dim,), (cols,), (out_dim,), (log2_exact(out_dim_size),))

    # ------------------------------------------------------------------ basic queries

    @property
    def bases(self) -> Bases:
        """The bases as Triton's binding returns them: ``[(in_dim, [[...], ...]), ...]``."""
        return [
            (name, [list(basis) for basis in in_bases])
            for name, in_bases in zip(self._ins, self._nested_bases())
        ]

    @property
    def out_dims(self) -> list[tuple[str, int]]:
        """``[(out_dim, size), ...]`` in order."""
        return [(name, 1 << k) for name, k in zip(self._outs, self._out_log2)]

    @property
    def in_dims(self) -> list[tuple[str, int]]:
        """``[(in_dim, size), ...]`` in order (Triton's ``getInDims``)."""
        return [(name, 1 << len(cols)) for name, cols in zip(self._ins, self._cols)]

    def get_in_dim_names(self) -> list[str]:
        """In-dim names, minor to major."""
        return list(self._ins)

    def get_out_dim_names(self) -> list[str]:
        """Out-dim names, minor to major."""
        return list(self._outs)

    def get_out_dim_sizes(self) -> list[int]:
        """Out-dim sizes in order."""
        return [1 << k for k in self._out_log2]

    @property
    def num_in_dims(self) -> int:
        """Number of input dims."""
        return len(self._ins)

    @property
    def num_out_dims(self) -> int:
        """Number of output dims."""
        return len(self._outs)

    def has_in_dim(self, name: str) -> bool:
        """True when ``name`` is an input dim."""
        return name in self._in_idx()

    def has_out_dim(self, name: str) -> bool:
        """True when ``name`` is an output dim."""
        return name in self._out_idx()

    def get_out_dim_index(self, out_dim: str) -> int:
        """Position of ``out_dim`` among the out dims."""
        return self._require_out(out_dim, "out_dim")

    def get_in_dim_size_log2(self, in_dim: str) -> int:
        """log2 of the size of an input dim."""
        return len(self._cols[self._require_in(in_dim, "in_dim")])

    def get_in_dim_size(self, in_dim: str) -> int:
        """Size of an input dim."""
        return 1 << self.get_in_dim_size_log2(in_dim)

    def get_out_dim_size_log2(self, out_dim: str) -> int:
        """log2 of the size of an output dim."""
        return self._out_log2[self._require_out(out_dim, "out_dim")]

    def get_out_dim_size(self, out_dim: str) -> int:
        """Size of an output dim."""
        return 1 << self.get_out_dim_size_log2(out_dim)

    def get_total_in_dim_size_log2(self) -> int:
        """Total number of input bits."""
        return sum(len(c) for c in self._cols)

    def get_total_in_dim_size(self) -> int:
        """Number of distinct inputs (product of in sizes)."""
        return 1 << self.get_total_in_dim_size_log2()

    def get_total_out_dim_size_log2(self) -> int:
        """Total number of output bits."""
        return sum(self._out_log2)

    def get_total_out_dim_size(self) -> int:
        """Product of the out sizes."""
        return 1 << self.get_total_out_dim_size_log2()

    def get_basis(self, in_dim: str, pos: int, out_dim: str | None = None) -> Any:
        """``L(in_dim = 2**pos)``: a list of coords, or one coord when out_dim is given.

        Examples:
            >>> LinearLayout.identity_1d(4, "i", "o").get_basis("i", 1)
            [2]
        """
        index = self._require_in(in_dim, "in_dim")
        pos = as_int(pos, "pos")
        in_bases = self._nested_bases()[index]
        if not 0 <= pos < len(in_bases):
            raise LayoutError(
                f"Argument 'pos' must be in [0, {len(in_bases)}) for in-dim '{in_dim}', not {pos}."
            )
        if out_dim is None:
            return list(in_bases[pos])
        return in_bases[pos][self._require_out(out_dim, "out_dim")]

    def rank(self) -> int:
        """Rank of the layout's GF(2) matrix (number of independent bases)."""
        return self._get_rank()

    def is_surjective(self) -> bool:
        """Every output value is reached (rank == total out bits)."""
        return self._get_rank() == sum(self._out_log2)

    def is_injective(self) -> bool:
        """No two inputs share an output (rank == total in bits)."""
        return self._get_rank() == self.get_total_in_dim_size_log2()

    def is_invertible(self) -> bool:
        """Surjective and as many input bits as output bits."""
        return self.is_surjective() and self.get_total_in_dim_size_log2() == sum(self._out_log2)

    def get_matrix_view(self) -> list[list[int]]:
        """Dense 0/1 matrix: one row per output bit, one column per input bit.

        Examples:
            >>> LinearLayout.from_bases([("i", [[0, 1], [1, 0]])], ["a", "b"]).get_matrix_view()
            [[0, 1], [1, 0]]
        """
        return gf2.matrix_rows(self._flat_cols(), sum(self._out_log2))

    # ------------------------------------------------------------------ evaluation

    def apply(self, ins: Mapping[str, int]) -> dict[str, int]:
        """Evaluate the layout at one input: ``{in_dim: value}`` -> ``{out_dim: value}``.

        Every in dim must be given, each value in ``[0, size)`` (Triton would silently
        drop high bits; llverify raises).

        Examples:
            >>> LinearLayout.identity_1d(8, "lane", "dim0").apply({"lane": 5})
            {'dim0': 5}
        """
        # The image is the XOR of the columns of the input's set bits.  Instead of a loop
        # over bits, each in dim looks its value up in precomputed XOR tables (built on first
        # use, _build_tables), 8 bits per lookup, and one packed int is unpacked at the end.
        per_dim, fields = self._cache[_TABLES] or self._build_tables()
        # A plain dict with as many keys as there are in dims skips the argument checks: its
        # keys are distinct, so they are exactly the in dims unless one is unknown, which the
        # look-up below finds (KeyError).
        if ins.__class__ is not dict or len(ins) != len(per_dim):
            ins = self._checked_ins(ins)
        packed = 0
        try:
            for name, value in ins.items():
                size, table, chunks = per_dim[name]
                # Triton ignores the bits of a value at or above the size; llverify refuses it.
                if value.__class__ is int and 0 <= value < size and table is not None:
                    packed ^= table[value]  # at most 8 bits: one lookup (the common case)
                    continue
                value = as_int(value, f"ins['{name}']")
                if not 0 <= value < size:
                    raise LayoutError(
                        f"Argument 'ins['{name}']' must be in [0, {size}), not {value}."
                    )
                for chunk in chunks:  # chunk k covers bits [8k, 8k + 8) of the value
                    packed ^= chunk[value & 0xFF]  # 0xFF: the low _APPLY_CHUNK bits
                    value >>= _APPLY_CHUNK
        except KeyError:
            self._checked_ins(ins)  # raises: a key is not an in dim
            raise
        # A loop rather than a dict comprehension: no comprehension frame (Python 3.11).
        result = {}
        for name, offset, mask in fields:
            result[name] = (packed >> offset) & mask
        return result

    def _checked_ins(self, ins: Any) -> dict[str, Any]:
        if not isinstance(ins, Mapping):
            raise LayoutTypeError(
                f"Argument 'ins' must be a mapping from in-dim name to int, not "
                f"{type(ins).__name__} {shown(ins)}."
            )
        if set(ins) != set(self._ins) or len(ins) != len(self._ins):
            raise DimensionError(
                f"Argument 'ins' must give exactly the in dims {list(self._ins)} (any "
                f"order), not {list(ins)}."
            )
        return dict(ins)

    # ------------------------------------------------------------------ algebra

    def __mul__(self, outer: LinearLayout) -> LinearLayout:
        """Ordered direct product ``inner * outer`` (Triton's ``operator*``).

        Shared in dims: inner's bits low, outer's appended.  Shared out dims: outer's
        coordinates shifted above inner's.  Dim orders merge by ``supremum``; a
        conflicting relative order raises DimensionError.

        Examples:
            >>> a = LinearLayout.identity_1d(4, "i", "o")
            >>> (a * LinearLayout.zeros_1d(2, "i", "o")).bases
            [('i', [[1], [2], [0]])]
        """
        if not isinstance(outer, LinearLayout):
            return NotImplemented
        # empty() is the identity of `*` on either side.
        if not outer._ins and not outer._outs:
            return self
        if not self._ins and not self._outs:
            return outer
        inner = self
        try:
            ins = supremum(inner._ins, outer._ins)
            outs = supremum(inner._outs, outer._outs)
        except DimensionError as error:
            raise DimensionError(
                f"Cannot multiply layouts with in dims {list(inner._ins)} * "
                f"{list(outer._ins)} and out dims {list(inner._outs)} * "
                f"{list(outer._outs)}: {error}"
            ) from None
        # As a matrix, the product is block-diagonal: inner acts on its input bits, outer on
        # its own, and their images land in disjoint output bits.  A shared out dim holds
        # inner's coordinate in its low bits and outer's above, so its size is the product
        # of both sizes (a dim that one factor lacks counts as size 1 there).
        inner_out = inner._out_idx()
        outer_out = outer._out_idx()
        out_log2 = tuple(
            (inner._out_log2[inner_out[d]] if d in inner_out else 0)
            + (outer._out_log2[outer_out[d]] if d in outer_out else 0)
            for d in outs
        )
        cols = _product_columns(inner, outer, ins, outs, out_log2)
        # Triton's product is surjective when both factors are; llverify checks only the
        # caps (64 bits per side, 2**30 per dim), which a product can outgrow.
        result = _make(tuple(ins), cols, tuple(outs), out_log2)
        _check_totals(result)
        return result

    def compose(self, outer: LinearLayout) -> LinearLayout:
        """``outer(self(x))``: self's out dims must be outer's in dims (any order).

        Examples:
            >>> l1 = LinearLayout.from_bases([("i", [[2], [1]])], ["o"])
            >>> l1.compose(LinearLayout.from_bases([("o", [[0, 1], [1, 0]])], ["p", "q"])).bases
            [('i', [[1, 0], [0, 1]])]
        """
        _require_layout(outer, "outer")
        if self._outs != outer._ins and (
            set(self._outs) != set(outer._ins) or len(self._outs) != len(outer._ins)
        ):
            raise DimensionError(
                f"compose: this layout's out dims {list(self._outs)} must equal the outer "
                f"layout's in dims {list(outer._ins)} (ignoring order)."
            )
        # The matrix product outer @ self, column by column.  Bit j of self's packed output
        # is bit b of one out dim d (self's fields in self's out order), that is the outer
        # input d = 2**b, whose image is outer's column b of in dim d.  images[j + 1] is that
        # image (images[0] = 0); the image of a self column is the XOR of the images of its
        # set bits: images[c.bit_length()] for a column of at most one bit, the common case.
        # Outer's bits of d from log2(size of d) up are never reached: self's coordinates
        # stay below its out sizes.
        outer_in = outer._in_idx()
        images = [0]
        for name, log2 in zip(self._outs, self._out_log2):
            outer_cols = outer._cols[outer_in[name]]
            if log2 > len(outer_cols):
                raise LayoutError(
                    f"compose: this layout's out dim '{name}' has size {1 << log2}, larger "
                    f"than the outer layout's in dim '{name}' of size {1 << len(outer_cols)}."
                )
            images += outer_cols[:log2]
        cols = tuple(
            tuple(
                [
                    _image(column, images) if column & (column - 1) else images[column.bit_length()]
                    for column in in_cols
                ]
            )
            for in_cols in self._cols
        )
        # self's in dims, outer's out dims and sizes.  Not required to be surjective (Triton
        # requires it only when both are and every size matches, when it then holds).
        return _built(self._ins, cols, outer._outs, outer._out_log2, outer._out_offsets, -1)

    def invert_and_compose(self, outer: LinearLayout) -> LinearLayout:
        """C with ``self(x) == outer(C(x))`` for every x, chosen exactly as Triton does.

        In dims whose bases are the same in both layouts map to themselves (identity);
        the rest are solved by GF(2) least squares, free variables 0 (the smallest
        preimage).  Raises NotInvertibleError if outer's image misses self's.

        Examples:
            >>> l1 = LinearLayout.from_bases([("in1", [[2], [1], [4]])], ["out"])
            >>> l2 = LinearLayout.from_bases([("in2", [[4], [1], [2]])], ["out"])
            >>> l1.invert_and_compose(l2).bases
            [('in1', [[4], [2], [1]])]
        """
        _require_layout(outer, "outer")
        outs = self._outs
        if set(outs) != set(outer._outs) or len(outs) != len(outer._outs):
            raise DimensionError(
                f"invert_and_compose: the out dims of this layout {list(outs)} and of the "
                f"outer layout {list(outer._outs)} must be the same (any order)."
            )
        # Typical use: self maps registers to tensor elements, outer maps shared-memory
        # offsets to tensor elements; C then maps each register to an offset holding its
        # element.  Work in self's out-dim order, where outer's fields are at least as wide.
        outer_t = outer if outer._outs == outs else outer.transpose_outs(outs)
        for name, mine, theirs in zip(outs, self._out_log2, outer_t._out_log2):
            if mine > theirs:
                raise NotInvertibleError(
                    f"invert_and_compose: out dim '{name}' has size {1 << mine} here but "
                    f"only {1 << theirs} in the outer layout, so the outer layout cannot "
                    f"cover this layout's image."
                )
        repacked = _repacked_cols(self, outer_t)
        identity = _self_mapped_in_dims(self, outer_t, repacked)
        # C maps self's in dims to outer's in dims, whose sizes are its out sizes.
        result_log2 = tuple(map(len, outer_t._cols))
        result_cols = _preimage_cols(self, outer_t, repacked, identity, result_log2, outer)
        return _make(self._ins, result_cols, outer_t._ins, result_log2)

    def pseudoinvert(self) -> LinearLayout:
        """A right inverse P with ``self(P(y)) == y`` (Triton's ``pseudoinvert``).

        Requires a surjective layout.

        Examples:
            >>> LinearLayout.from_bases([("i", [[0], [1]])], ["o"]).pseudoinvert().bases
            [('o', [[2]])]
        """
        if not self.is_surjective():
            raise NotInvertibleError(
                f"pseudoinvert requires a surjective layout (rank {self._get_rank()} < "
                f"{sum(self._out_log2)} output bits):{self.to_string()}"
            )
        # P = identity.invert_and_compose(self), the construction Triton uses: C with
        # identity(y) == self(C(y)) is exactly a right inverse, and surjectivity gives every y
        # a preimage.  Each P(y) is the one invert_and_compose picks: an out dim that self
        # maps to identically from the in dim of the same name, apart from its other dims,
        # maps to itself; the rest get the smallest preimage.
        identity_cols = tuple(
            tuple([1 << (offset + j) for j in range(log2)])
            for offset, log2 in zip(self._out_offsets, self._out_log2)
        )
        identity = _built(
            self._outs, identity_cols, self._outs, self._out_log2, self._out_offsets, -1
        )
        return identity.invert_and_compose(self)

    def invert(self) -> LinearLayout:
        """The inverse of an invertible layout.

        Examples:
            >>> LinearLayout.from_bases([("i", [[2], [1]])], ["o"]).invert().bases
            [('o', [[2], [1]])]
        """
        if not self.is_invertible():
            raise NotInvertibleError(
                f"invert requires an invertible layout (surjective, with as many input "
                f"bits as output bits: here rank {self._get_rank()}, "
                f"{self.get_total_in_dim_size_log2()} input bits, {sum(self._out_log2)} "
                f"output bits):{self.to_string()}"
            )
        return self.pseudoinvert()

    def divide_left(self, divisor: LinearLayout) -> LinearLayout | None:
        """C with ``self == divisor * C``, or None (see :func:`llverify.divide_left`).

        Examples:
            >>> a = LinearLayout.identity_1d(4, "r", "o") * LinearLayout.identity_1d(2, "l", "o")
            >>> a.divide_left(LinearLayout.identity_1d(4, "r", "o")).bases
            [('r', []), ('l', [[1]])]
        """
        _require_layout(divisor, "divisor")
        return _divide(self, divisor, left=True)

    def divide_right(self, divisor: LinearLayout) -> LinearLayout | None:
        """C with ``self == C * divisor``, or None (see :func:`llverify.divide_right`)."""
        _require_layout(divisor, "divisor")
        return _divide(self, divisor, left=False)

    # ------------------------------------------------------------------ structure

    def get_free_variable_masks(self) -> dict[str, int]:
        """Per in dim, the bitmask of input bits that are free (non-pivot) variables.

        Examples:
            >>> LinearLayout.from_bases([("i", [[1], [0], [1]])], ["o"]).get_free_variable_masks()
            {'i': 6}
        """
        # Pivot columns are the earliest independent ones in flat order (gf2.pivot_mask): the
        # leading columns of the RREF that Triton's f2reduce computes.  The rest are free.
        pivots = gf2.pivot_mask(self._flat_cols())
        result = {}
        position = 0
        for name, cols in zip(self._ins, self._cols):
            n = len(cols)
            result[name] = ~(pivots >> position) & ((1 << n) - 1)
            position += n
        return result

    free_variable_masks = get_free_variable_masks

    def num_consecutive_in_out(self) -> int:
        """Largest V with ``L == identity_1d(V, in0, out0) * C`` on the first in/out dims.

        Examples:
            >>> ll = LinearLayout.from_bases([("r", [[1], [2], [8]]), ("l", [[4]])], ["o"])
            >>> ll.num_consecutive_in_out()
            4
        """
        if not self._ins or not self._outs:
            return 1
        # Triton's getNumConsecutiveInOut: the run of leading bases of in dim 0 that are
        # exactly (2**i, 0, ...), cut at the lowest bit of out dim 0 that any other basis
        # sets (from there the other inputs overlap the run's bits, and V consecutive inputs
        # would no longer land on V consecutive elements).
        first = self._nested_bases()
        consec = 0
        for basis in first[0]:
            if basis[0] != 1 << consec or any(basis[1:]):
                break
            consec += 1
        other_bits = 0
        for i, in_bases in enumerate(first):
            for j, basis in enumerate(in_bases):
                if i != 0 or j >= consec:
                    other_bits |= basis[0]
        trailing = (other_bits & -other_bits).bit_length() - 1 if other_bits else 31
        return 1 << min(consec, trailing)

    get_num_consecutive_in_out = num_consecutive_in_out

    def contiguous_elems_along_output_dim(self, out_dim: str) -> int:
        """Largest 2**k such that every value in [0, 2**k) of ``out_dim`` is in the image.

        Examples:
            >>> ll = LinearLayout.from_bases(
            ...     [("i", [[1, 0], [0, 1], [4, 0]])], ["a", "b"], [8, 2], False
            ... )
            >>> ll.contiguous_elems_along_output_dim("a")
            2
        """
        k = self._require_out(out_dim, "out_dim")
        offset, log2 = self._out_offsets[k], self._out_log2[k]
        mask = (1 << log2) - 1
        # The image's projection onto out_dim is the span of the projected columns, and a
        # span (closed under XOR) holds all of [0, 2**k) iff it holds 1, 2, ..., 2**(k-1).
        basis = gf2.EchelonBasis()
        for c in self._flat_cols():
            basis.insert((c >> offset) & mask)
        count = 0
        while count < log2 and basis.express(1 << count) is not None:
            count += 1
        return 1 << count

    def sublayout(self, in_dim_names: Iterable[str], out_dim_names: Iterable[str]) -> LinearLayout:
        """The layout restricted to some in dims (others set to 0) and out dims.

        Dim order follows this layout, not the arguments; out sizes are kept and the
        result need not be surjective.

        Examples:
            >>> ll = LinearLayout.from_bases(
            ...     [("i", [[1, 1]]), ("j", [[0, 2]])], ["a", "b"], [2, 4], False
            ... )
            >>> ll.sublayout(["j"], ["b"]).bases
            [('j', [[2]])]
        """
        in_keep = self._subset(in_dim_names, "in_dim_names", self._in_idx())
        out_keep = self._subset(out_dim_names, "out_dim_names", self._out_idx())
        ins = tuple(d for d in self._ins if d in in_keep)
        outs = tuple(d for d in self._outs if d in out_keep)
        kept = [k for k, d in enumerate(self._outs) if d in out_keep]
        out_log2 = tuple(self._out_log2[k] for k in kept)
        offsets = field_offsets(out_log2)
        # Keep the chosen out dims' fields, closed up; dropped in dims simply lose their columns.
        fields = [(self._out_offsets[k], self._out_log2[k], offsets[j]) for j, k in enumerate(kept)]
        index = self._in_idx()
        cols = tuple(tuple(_remap(c, fields) for c in self._cols[index[d]]) for d in ins)
        return _make(ins, cols, outs, out_log2)

    def sublayout_is_zero(self, in_dim_names: Iterable[str], out_dim_names: Iterable[str]) -> bool:
        """True when the sublayout on these dims maps everything to 0."""
        sub = self.sublayout(in_dim_names, out_dim_names)
        return not any(c for cols in sub._cols for c in cols)

    def square_sublayout_is_identity(self, dim_names: Iterable[str]) -> bool:
        """True when the sublayout dims -> same dims is the identity (sizes equal too)."""
        names = list(dim_names)
        if not names:
            return True
        for d in names:
            if self.get_in_dim_size(d) != self.get_out_dim_size(d):
                return False
        flat = self.sublayout(names, names).flatten_ins().flatten_outs()
        return all(c == 1 << i for i, c in enumerate(flat._cols[0]))

    def is_trivial_over(self, dim_names: Iterable[str]) -> bool:
        """True when the layout acts as the identity on ``dim_names`` and does not mix them
        with the other dims (each name must be both an in and an out dim).

        Examples:
            >>> ll = LinearLayout.identity_1d(4, "a", "a") * LinearLayout.identity_1d(2, "b", "b")
            >>> ll.is_trivial_over(["b"])
            True
        """
        names = list(dim_names)
        for d in names:
            check_dim_name(d, "dim_names")
            if d not in self._in_idx() or d not in self._out_idx():
                raise DimensionError(
                    f"Argument 'dim_names' contains '{d}', which must be both an in dim "
                    f"{list(self._ins)} and an out dim {list(self._outs)}."
                )
        rest_in = [d for d in self._ins if d not in names]
        rest_out = [d for d in self._outs if d not in names]
        return (
            self.square_sublayout_is_identity(names)
            and self.sublayout_is_zero(rest_in, names)
            and self.sublayout_is_zero(names, rest_out)
        )

    def is_identity_on_out_dim(self, dim: str) -> bool:
        """True when out dim ``dim`` equals in dim ``dim`` and no other in dim reaches it.

        Examples:
            >>> ll = LinearLayout.from_bases(
            ...     [("block", [[1, 1]])], ["offset", "block"], [2, 2], False
            ... )
            >>> ll.is_identity_on_out_dim("block")
            True
        """
        check_dim_name(dim, "dim")
        if not self.has_in_dim(dim) or not self.has_out_dim(dim):
            return False
        others = [d for d in self._ins if d != dim]
        return self.square_sublayout_is_identity([dim]) and self.sublayout_is_zero(others, [dim])

    def quotient(self, dim_names: Iterable[str]) -> LinearLayout | None:
        """The layout on the remaining dims if it is trivial over ``dim_names``, else None.

        Examples:
            >>> ll = LinearLayout.identity_1d(4, "a", "a") * LinearLayout.identity_1d(2, "b", "b")
            >>> ll.quotient(["b"]).bases
            [('a', [[1], [2]])]
        """
        names = list(dim_names)
        if any(not self.has_in_dim(d) for d in names):
            return None
        if any(not self.has_out_dim(d) for d in names):
            return None
        if not self.is_trivial_over(names):
            return None
        return self.sublayout(
            [d for d in self._ins if d not in names], [d for d in self._outs if d not in names]
        )

    def equal_ignoring_out_dim_sizes(self, other: LinearLayout) -> bool:
        """``==`` except that out sizes may differ."""
        _require_layout(other, "other")
        return (
            self._ins == other._ins
            and self._outs == other._outs
            and self._nested_bases() == other._nested_bases()
        )

    # ------------------------------------------------------------------ reshaping

    def transpose_ins(self, new_order: Iterable[str]) -> LinearLayout:
        """Reorder the in dims (affects reshape and ``==``).

        Examples:
            >>> ll = LinearLayout.identity_1d(2, "a", "o") * LinearLayout.identity_1d(2, "b", "o")
            >>> ll.transpose_ins(["b", "a"]).get_in_dim_names()
            ['b', 'a']
        """
        order = self._permutation(new_order, "new_order", self._ins)
        return _make(
            tuple(self._ins[i] for i in order),
            tuple(self._cols[i] for i in order),
            self._outs,
            self._out_log2,
        )

    def transpose_outs(self, new_order: Iterable[str]) -> LinearLayout:
        """Reorder the out dims (bases are permuted accordingly).

        Examples:
            >>> ll = LinearLayout.from_bases([("i", [[1, 0], [0, 1]])], ["a", "b"])
            >>> ll.transpose_outs(["b", "a"]).bases
            [('i', [[0, 1], [1, 0]])]
        """
        order = self._permutation(new_order, "new_order", self._outs)
        out_log2 = tuple(self._out_log2[k] for k in order)
        offsets = field_offsets(out_log2)
        fields = [
            (self._out_offsets[k], self._out_log2[k], offsets[j]) for j, k in enumerate(order)
        ]
        cols = tuple(tuple(_remap(c, fields) for c in cols) for cols in self._cols)
        return _make(self._ins, cols, tuple(self._outs[k] for k in order), out_log2)

    def reshape_ins(self, new_in_dims: Iterable[tuple[str, int]]) -> LinearLayout:
        """Flatten the in dims (in order) and split them into ``[(name, size), ...]``.

        Examples:
            >>> ll = LinearLayout.from_bases([("a", [[1], [4], [8]]), ("b", [[2]])], ["o"])
            >>> ll.reshape_ins([("c", 2), ("d", 8)]).bases
            [('c', [[1]]), ('d', [[4], [8], [2]])]
        """
        names, log2s = self._new_dims(new_in_dims, "new_in_dims")
        if sum(log2s) != self.get_total_in_dim_size_log2():
            raise LayoutError(
                f"Argument 'new_in_dims' must have total size {self.get_total_in_dim_size()} "
                f"(the layout's total in size), not {1 << sum(log2s)}."
            )
        # The flat column list is the flattened input; re-cutting it is the whole reshape.
        flat = self._flat_cols()
        cols = []
        position = 0
        for n in log2s:
            cols.append(tuple(flat[position : position + n]))
            position += n
        return _make(names, tuple(cols), self._outs, self._out_log2)

    def reshape_outs(self, new_out_dims: Iterable[tuple[str, int]]) -> LinearLayout:
        """Flatten the out dims (in order) and split them into ``[(name, size), ...]``.

        Examples:
            >>> ll = LinearLayout.from_bases([("a", [[1], [4], [8]]), ("b", [[3]])], ["o"])
            >>> ll.reshape_outs([("p", 2), ("q", 8)]).bases
            [('a', [[1, 0], [0, 2], [0, 4]]), ('b', [[1, 1]])]
        """
        names, log2s = self._new_dims(new_out_dims, "new_out_dims")
        if sum(log2s) != sum(self._out_log2):
            raise LayoutError(
                f"Argument 'new_out_dims' must have total size {self.get_total_out_dim_size()} "
                f"(the layout's total out size), not {1 << sum(log2s)}."
            )
        # A packed column already is the flattened output (first out dim lowest, Triton's
        # order), so the columns stay as they are; only the field boundaries move.
        return _make(self._ins, self._cols, names, log2s)

    def flatten_ins(self) -> LinearLayout:
        """One in dim named like the first, of the total in size."""
        if not self._ins:
            return self
        return self.reshape_ins([(self._ins[0], self.get_total_in_dim_size())])

    def flatten_outs(self) -> LinearLayout:
        """One out dim named like the first, of the total out size."""
        if not self._outs:
            return self
        return self.reshape_outs([(self._outs[0], self.get_total_out_dim_size())])

    def resize_in_dim(self, in_dim: str, new_size: int) -> LinearLayout:
        """Shrink (drop the top bases) or grow (append zero bases) an in dim.

        Examples:
            >>> LinearLayout.identity_1d(4, "i", "o").resize_in_dim("i", 8).bases
            [('i', [[1], [2], [0]])]
        """
        index = self._require_in(in_dim, "in_dim")
        new_log2 = log2_exact(check_size(new_size, "new_size"))
        old = self._cols[index]
        new = old[:new_log2] + (0,) * (new_log2 - len(old))
        cols = self._cols[:index] + (new,) + self._cols[index + 1 :]
        result = _make(self._ins, cols, self._outs, self._out_log2)
        _check_totals(result)
        return result

    def resize_out_dim(self, out_dim: str, new_size: int) -> LinearLayout:
        """Shrink an out dim; coordinates >= new_size become 0 (broadcast).

        Examples:
            >>> LinearLayout.identity_1d(8, "i", "o").resize_out_dim("o", 2).bases
            [('i', [[1], [0], [0]])]
        """
        k = self._require_out(out_dim, "out_dim")
        new_log2 = log2_exact(check_size(new_size, "new_size"))
        if new_log2 > self._out_log2[k]:
            raise LayoutError(
                f"Argument 'new_size' must not exceed the size {1 << self._out_log2[k]} of "
                f"out dim '{out_dim}' (resize_out_dim only shrinks), not {new_size}."
            )
        nested = [
            [tuple(0 if j == k and v >= new_size else v for j, v in enumerate(b)) for b in bs]
            for bs in self._nested_bases()
        ]
        out_log2 = self._out_log2[:k] + (new_log2,) + self._out_log2[k + 1 :]
        return _make(self._ins, pack_columns(nested, out_log2), self._outs, out_log2)

    def rename_in_dim(self, old_name: str, new_name: str) -> LinearLayout:
        """Rename one in dim, keeping its position.

        Examples:
            >>> LinearLayout.identity_1d(2, "i", "o").rename_in_dim("i", "lane").get_in_dim_names()
            ['lane']
        """
        index = self._require_in(old_name, "old_name")
        check_dim_name(new_name, "new_name")
        if new_name != old_name and new_name in self._in_idx():
            raise DimensionError(
                f"Argument 'new_name' must not be an existing in dim {list(self._ins)}, "
                f"not '{new_name}'."
            )
        ins = self._ins[:index] + (new_name,) + self._ins[index + 1 :]
        return _make(ins, self._cols, self._outs, self._out_log2)

    def concat_ins(self, other: LinearLayout) -> LinearLayout:
        """Put other's in dims after this one's; out dims and sizes must be equal.

        Examples:
            >>> a = LinearLayout.identity_1d(2, "i", "o")
            >>> a.concat_ins(LinearLayout.zeros_1d(2, "j", "o", 2)).bases
            [('i', [[1]]), ('j', [[0]])]
        """
        _require_layout(other, "other")
        if self.out_dims != other.out_dims:
            raise DimensionError(
                f"concat_ins: both layouts must have the same out dims and sizes, not "
                f"{self.out_dims} and {other.out_dims}."
            )
        clash = [d for d in other._ins if d in self._in_idx()]
        if clash:
            raise DimensionError(f"concat_ins: in dims {clash} appear in both layouts.")
        result = _make(self._ins + other._ins, self._cols + other._cols, self._outs, self._out_log2)
        _check_totals(result)
        return result

    def concat_outs(self, other: LinearLayout) -> LinearLayout:
        """Put other's out dims after this one's; in dims and sizes must be equal.

        Examples:
            >>> a = LinearLayout.identity_1d(2, "i", "o")
            >>> a.concat_outs(LinearLayout.identity_1d(2, "i", "p")).bases
            [('i', [[1, 1]])]
        """
        _require_layout(other, "other")
        if self.in_dims != other.in_dims:
            raise DimensionError(
                f"concat_outs: both layouts must have the same in dims and sizes, not "
                f"{self.in_dims} and {other.in_dims}."
            )
        clash = [d for d in other._outs if d in self._out_idx()]
        if clash:
            raise DimensionError(f"concat_outs: out dims {clash} appear in both layouts.")
        # other's fields go above all of this layout's: one shift by its total out bits.
        shift = sum(self._out_log2)
        cols = tuple(
            tuple(a | (b << shift) for a, b in zip(mine, theirs))
            for mine, theirs in zip(self._cols, other._cols)
        )
        result = _make(self._ins, cols, self._outs + other._outs, self._out_log2 + other._out_log2)
        _check_totals(result)
        return result

    def squeeze_ins(self, dim: str) -> LinearLayout:
        """Remove an in dim of size 1."""
        index = self._require_in(dim, "dim")
        if self._cols[index]:
            raise LayoutError(
                f"Argument 'dim' must name an in dim of size 1, but '{dim}' has size "
                f"{1 << len(self._cols[index])}."
            )
        return _make(
            self._ins[:index] + self._ins[index + 1 :],
            self._cols[:index] + self._cols[index + 1 :],
            self._outs,
            self._out_log2,
        )

    def squeeze_outs(self, dim: str) -> LinearLayout:
        """Remove an out dim of size 1."""
        k = self._require_out(dim, "dim")
        if self._out_log2[k]:
            raise LayoutError(
                f"Argument 'dim' must name an out dim of size 1, but '{dim}' has size "
                f"{1 << self._out_log2[k]}."
            )
        return _make(
            self._ins,
            self._cols,
            self._outs[:k] + self._outs[k + 1 :],
            self._out_log2[:k] + self._out_log2[k + 1 :],
        )

    def remove_zero_bases_along_dim(self, strip_dim: str) -> LinearLayout:
        """Drop the zero (broadcast) bases of one in dim.

        Examples:
            >>> ll = LinearLayout.from_bases([("r", [[1], [0], [2]])], ["o"])
            >>> ll.remove_zero_bases_along_dim("r").bases
            [('r', [[1], [2]])]
        """
        index = self._require_in(strip_dim, "strip_dim")
        kept = tuple(c for c in self._cols[index] if c)
        cols = self._cols[:index] + (kept,) + self._cols[index + 1 :]
        return _make(self._ins, cols, self._outs, self._out_log2)

    # ------------------------------------------------------------------ text, dunders

    def to_string(self) -> str:
        """Triton's ``toString()`` text, byte for byte (it starts with a newline).

        Examples:
            >>> print(LinearLayout.identity_1d(2, "lane", "dim0").to_string())
            <BLANKLINE>
             - lane=1 -> (1)
            where out dims are: [dim0 (size 2)]
        """
        outs = "[" + ", ".join(f"{n} (size {s})" for n, s in self.out_dims) + "]"
        if not self._ins:
            if not self._outs:
                return "\n(empty layout)"
            return f"\n(empty layout with out-dims {outs})"
        parts = ["\n"]
        for name, in_bases in zip(self._ins, self._nested_bases()):
            if not in_bases:
                parts.append(f" - {name} is a size 1 dimension\n")
                continue
            lines = [
                f"{name}={1 << i} -> (" + ", ".join(map(str, b)) + ")"
                for i, b in enumerate(in_bases)
            ]
            parts.append(" - " + "\n   ".join(lines) + "\n")
        parts.append(f"where out dims are: {outs}")
        return "".join(parts)

    @classmethod
    def from_string(cls, text: str) -> LinearLayout:
        """Parse Triton's ``toString()`` text (``str(layout)``) back to a layout.

        The text may be pasted with a compiler error message around it (see
        :func:`llverify.text_format.parse_layout_text`).

        Examples:
            >>> ll = LinearLayout.identity_1d(4, "lane", "dim0")
            >>> LinearLayout.from_string(str(ll)) == ll
            True
        """
        return _layout_from_parts(parse_layout_text(text), "the text describes an invalid layout")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``{"bases": {in_dim: [[...]]}, "out_dims": {out_dim: size}}``.

        Examples:
            >>> LinearLayout.identity_1d(2, "lane", "dim0").to_dict()
            {'bases': {'lane': [[1]]}, 'out_dims': {'dim0': 2}}
        """
        return layout_object(self.bases, self.out_dims)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LinearLayout:
        """Inverse of :meth:`to_dict`; ``bases``/``out_dims`` may also be lists of pairs.

        Examples:
            >>> LinearLayout.from_dict({"bases": {"lane": [[1]]}, "out_dims": {"dim0": 2}}).out_dims
            [('dim0', 2)]
        """
        return _layout_from_parts(parse_layout_object(data), "invalid layout")

    def to_json(self) -> str:
        """JSON text ``{"bases": {...}, "out_dims": {...}}``: :meth:`to_dict` as a string.

        Examples:
            >>> LinearLayout.identity_1d(2, "lane", "dim0").to_json()
            '{"bases": {"lane": [[1]]}, "out_dims": {"dim0": 2}}'
        """
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> LinearLayout:
        """Inverse of :meth:`to_json`.

        Examples:
            >>> LinearLayout.from_json('{"bases": {"i": [[1]]}, "out_dims": {"o": 2}}').bases
            [('i', [[1]])]
        """
        return _layout_from_parts(parse_layout_json(text), "invalid layout")

    def apply_all(self, max_inputs: int = DEFAULT_MAX_INPUTS) -> dict[str, np.ndarray]:
        """Every output for every input, as one int64 numpy array per out dim.

        Entry ``i`` is the image of the input whose flat index is ``i``: the in dims in
        order, the first one least significant (Triton's flattening).  Layouts with more
        than ``max_inputs`` inputs are refused.

        Examples:
            >>> ll = LinearLayout.from_bases([("i", [[0, 1], [1, 0]])], ["a", "b"])
            >>> {k: v.tolist() for k, v in ll.apply_all().items()}
            {'a': [0, 0, 1, 1], 'b': [0, 1, 0, 1]}
        """
        total = self.get_total_in_dim_size()
        if total > max_inputs:
            raise LayoutError(
                f"evaluate_all: the layout has {total} inputs, more than "
                f"max_inputs={max_inputs}; pass a larger max_inputs or evaluate chosen inputs "
                f"with evaluate()."
            )
        # Doubling: after k columns, packed[:2**k] holds the images of the inputs below 2**k;
        # inputs 2**k .. 2**(k+1) - 1 are those with bit k set, so their images are the
        # first half XOR column k.  uint64 holds any packed output (at most 64 bits).
        packed = np.zeros(total, dtype=np.uint64)
        filled = 1
        for column in self._flat_cols():
            np.bitwise_xor(packed[:filled], np.uint64(column), out=packed[filled : 2 * filled])
            filled *= 2
        return self._unpack_array(packed)

    def apply_array(self, ins: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """Outputs for numpy arrays of inputs (broadcast together), one int64 array per out dim.

        Examples:
            >>> ll = LinearLayout.identity_1d(8, "lane", "dim0")
            >>> ll.apply_array({"lane": [1, 5, 7]})["dim0"].tolist()
            [1, 5, 7]
        """
        names, arrays = self._checked_arrays(ins)
        packed = np.zeros(arrays[0].shape if arrays else (), dtype=np.uint64)
        index = self._in_idx()
        for name, array in zip(names, arrays):
            cols = self._cols[index[name]]
            size = 1 << len(cols)
            if array.size and (array.min() < 0 or array.max() >= size):
                bad = array[(array < 0) | (array >= size)].flat[0]
                raise LayoutError(f"Argument 'ins['{name}']' must be in [0, {size}), not {bad}.")
            values = array.astype(np.uint64)
            # apply()'s chunked tables as numpy arrays (built per call: one fancy-indexing
            # lookup per 8 bits of the dim over the whole array).
            for start in range(0, len(cols), _APPLY_CHUNK):
                table = np.zeros(1, dtype=np.uint64)
                for column in cols[start : start + _APPLY_CHUNK]:
                    table = np.concatenate([table, table ^ np.uint64(column)])
                chunk = (values >> np.uint64(start)) & np.uint64(len(table) - 1)
                packed ^= table[chunk.astype(np.intp)]
        return self._unpack_array(packed)

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return (
            f"LinearLayout.from_bases({self.bases!r}, {list(self._outs)!r}, "
            f"{self.get_out_dim_sizes()!r}, require_surjective=False)"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinearLayout):
            return NotImplemented
        # Same out sizes mean the same packing, so equal columns mean equal bases.
        return (
            self._ins == other._ins
            and self._outs == other._outs
            and self._out_log2 == other._out_log2
            and self._cols == other._cols
        )

    def __hash__(self) -> int:
        h = self._cache[_HASH]
        if h == -1:
            h = hash((self._ins, self._cols, self._outs, self._out_log2))
            self._cache[_HASH] = h
        return h

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"LinearLayout is immutable; cannot set '{name}'.")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"LinearLayout is immutable; cannot delete '{name}'.")

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle the defining fields only: the copy starts with an empty cache.
        return (_make, (self._ins, self._cols, self._outs, self._out_log2))

    # ------------------------------------------------------------------ internals

    def _in_idx(self) -> dict[str, int]:
        index = self._cache[_IN_INDEX]
        if index is None:
            index = {d: i for i, d in enumerate(self._ins)}
            self._cache[_IN_INDEX] = index
        return index

    def _out_idx(self) -> dict[str, int]:
        index = self._cache[_OUT_INDEX]
        if index is None:
            index = {d: i for i, d in enumerate(self._outs)}
            self._cache[_OUT_INDEX] = index
        return index

    def _require_in(self, name: str, argument: str) -> int:
        check_dim_name(name, argument)
        index = self._in_idx().get(name)
        if index is None:
            raise DimensionError(
                f"Argument '{argument}' must be an in dim of the layout {list(self._ins)}, "
                f"not '{name}'."
            )
        return index

    def _require_out(self, name: str, argument: str) -> int:
        check_dim_name(name, argument)
        index = self._out_idx().get(name)
        if index is None:
            raise DimensionError(
                f"Argument '{argument}' must be an out dim of the layout {list(self._outs)}, "
                f"not '{name}'."
            )
        return index

    def _subset(self, names: Iterable[str], argument: str, index: dict[str, int]) -> set[str]:
        chosen = set(check_dim_names(names, argument))
        unknown = sorted(chosen - index.keys())
        if unknown:
            kind = "in" if index is self._in_idx() else "out"
            raise DimensionError(
                f"Argument '{argument}' names {unknown}, which are not {kind} dims of the "
                f"layout {list(index)}."
            )
        return chosen

    def _permutation(
        self, names: Iterable[str], argument: str, current: tuple[str, ...]
    ) -> list[int]:
        order = check_dim_names(names, argument)
        if set(order) != set(current) or len(order) != len(current):
            raise DimensionError(
                f"Argument '{argument}' must be a permutation of {list(current)}, not "
                f"{list(order)}."
            )
        return [current.index(d) for d in order]

    @staticmethod
    def _new_dims(
        dims: Iterable[tuple[str, int]], argument: str
    ) -> tuple[tuple[str, ...], tuple[int, ...]]:
        if isinstance(dims, Mapping):
            items = list(dims.items())
        elif isinstance(dims, Iterable) and not isinstance(dims, UNORDERED):
            items = list(dims)
        else:
            raise LayoutTypeError(
                f"Argument '{argument}' must be a list of (name, size) pairs, not "
                f"{type(dims).__name__} {shown(dims)}."
            )
        names = []
        log2s = []
        for i, item in enumerate(items):
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise LayoutTypeError(
                    f"Argument '{argument}[{i}]' must be a (name, size) pair, not {shown(item)}."
                )
            names.append(check_dim_name(item[0], f"{argument}[{i}][0]"))
            log2s.append(log2_exact(check_size(item[1], f"{argument}[{i}][1]")))
        check_dim_names(names, argument)
        return tuple(names), tuple(log2s)

    def _checked_arrays(self, ins: Any) -> tuple[list[str], list[np.ndarray]]:
        """apply_array's inputs: integer arrays for exactly the in dims, broadcast together."""
        if not isinstance(ins, Mapping):
            raise LayoutTypeError(
                f"Argument 'ins' must be a mapping in dim -> array, not {type(ins).__name__}."
            )
        if set(ins) != set(self._ins) or len(ins) != len(self._ins):
            raise DimensionError(
                f"Argument 'ins' must give exactly the in dims {list(self._ins)}, not {list(ins)}."
            )
        names = list(ins)
        arrays = []
        for name in names:
            array = np.asarray(ins[name])
            if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
                raise LayoutTypeError(
                    f"Argument 'ins['{name}']' must hold integers, not dtype {array.dtype}."
                )
            arrays.append(array)
        try:
            return names, list(np.broadcast_arrays(*arrays))
        except ValueError:
            raise LayoutError(
                f"Argument 'ins' arrays must broadcast together, not shapes "
                f"{[a.shape for a in arrays]}."
            ) from None

    def _unpack_array(self, packed: np.ndarray) -> dict[str, np.ndarray]:
        """Packed output columns (uint64) -> one int64 array per out dim."""
        result = {}
        for name, offset, log2 in zip(self._outs, self._out_offsets, self._out_log2):
            mask = np.uint64((1 << log2) - 1)
            result[name] = ((packed >> np.uint64(offset)) & mask).astype(np.int64)
        return result

    def _get_rank(self) -> int:
        """The rank of the matrix (cached; -1 in the cache means not computed yet)."""
        r = self._cache[_RANK]
        if r < 0:
            r = gf2.rank(self._flat_cols())
            self._cache[_RANK] = r
        return r

    def _flat_cols(self) -> list[int]:
        """All packed columns, in dim by in dim (the matrix's columns, Triton's flat order)."""
        return [c for cols in self._cols for c in cols]

    def _nested_bases(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """The bases unpacked, per in dim per bit one coordinate per out dim (cached)."""
        nested = self._cache[_NESTED]
        if nested is None:
            fields = list(zip(self._out_offsets, self._out_log2))
            nested = tuple(
                tuple(tuple((c >> off) & ((1 << n) - 1) for off, n in fields) for c in cols)
                for cols in self._cols
            )
            self._cache[_NESTED] = nested
        return nested

    def _build_tables(self) -> tuple[dict[str, tuple[int, Any, tuple[list[int], ...]]], Any]:
        """apply()'s lookup tables: per in dim XOR tables of 8-bit chunks, and out fields.

        ``per_dim[name] = (size, single, chunks)``: chunk ``k`` is a list with
        ``chunk[v]`` = the XOR of the columns of bits ``8k + j`` for the set bits ``j`` of
        ``v`` (``v < 2**8``); ``single`` is the only chunk of a dim of at most 8 bits, else
        None.  A 30-bit dim takes 4 chunks of at most 256 ints.  ``fields`` lists
        ``(out name, offset, mask)`` to unpack the XOR of the lookups.
        """
        per_dim = {}
        for name, cols in zip(self._ins, self._cols):
            chunks = []
            # max(..., 1): a size-1 dim still gets one table, [0].
            for start in range(0, max(len(cols), 1), _APPLY_CHUNK):
                table = [0]
                for c in cols[start : start + _APPLY_CHUNK]:
                    # Doubling, as in apply_all: the new upper half is the old table XOR c.
                    table += [t ^ c for t in table]
                chunks.append(table)
            single = chunks[0] if len(chunks) == 1 else None
            per_dim[name] = (1 << len(cols), single, tuple(chunks))
        fields = tuple(
            (name, offset, (1 << log2) - 1)
            for name, offset, log2 in zip(self._outs, self._out_offsets, self._out_log2)
        )
        result = (per_dim, fields)
        self._cache[_TABLES] = result
        return result


# ---------------------------------------------------------------------- module helpers


# An instance without __init__: from_bases, _fill and _built fill the slots themselves.
_new_layout = object.__new__

# The slots' own setters: LinearLayout.__setattr__ refuses assignment (immutability), so
# construction writes the slots through their descriptors (faster than object.__setattr__).
_set_ins = LinearLayout._ins.__set__  # type: ignore[misc, attr-defined]
_set_cols = LinearLayout._cols.__set__  # type: ignore[misc, attr-defined]
_set_outs = LinearLayout._outs.__set__  # type: ignore[misc, attr-defined]
_set_out_log2 = LinearLayout._out_log2.__set__  # type: ignore[misc, attr-defined]
_set_out_offsets = LinearLayout._out_offsets.__set__  # type: ignore[misc, attr-defined]
_set_cache = LinearLayout._cache.__set__  # type: ignore[misc, attr-defined]


def _fill(
    layout: LinearLayout,
    ins: tuple[str, ...],
    cols: tuple[tuple[int, ...], ...],
    outs: tuple[str, ...],
    out_log2: tuple[int, ...],
    offsets: tuple[int, ...],
    rank: int,
) -> None:
    """Write the slots of a new instance (the fields of a layout_construct ``Columns``)."""
    _set_ins(layout, ins)
    _set_cols(layout, cols)
    _set_outs(layout, outs)
    _set_out_log2(layout, out_log2)
    _set_out_offsets(layout, offsets)
    _set_cache(layout, [rank, -1, None, None, None, None])  # see _cache in the class


class _Writable(LinearLayout):
    """A LinearLayout under construction: the same slots, stored by plain assignment (a
    specialised slot store, about half the cost of calling the descriptors' setters);
    construction then sets its ``__class__`` to LinearLayout, whose ``__setattr__`` refuses.
    Never handed out: only :func:`_built` (and from_bases' template path, which writes it out)
    makes one, and retags it at once.

    Examples:
        >>> layout = _new_layout(_Writable)
        >>> layout._ins, layout._cols, layout._outs = ("i",), ((1,),), ("o",)
        >>> layout._out_log2, layout._out_offsets, layout._cache = (1,), (0,), [1] + [None] * 5
        >>> layout.__class__ = LinearLayout
        >>> layout == LinearLayout.identity_1d(2, "i", "o")
        True
    """

    __slots__ = ()
    # Both: CPython has one slot for setting and deleting, and a Python-level __delattr__
    # left from LinearLayout would route every store through a generic wrapper.
    __setattr__ = object.__setattr__  # type: ignore[assignment]
    __delattr__ = object.__delattr__


def _make(
    ins: tuple[str, ...],
    cols: tuple[tuple[int, ...], ...],
    outs: tuple[str, ...],
    out_log2: tuple[int, ...],
) -> LinearLayout:
    """Build from already-valid packed columns (no checks: internal use only)."""
    return _built(ins, cols, outs, out_log2, field_offsets(out_log2), -1)


def _built(
    ins: tuple[str, ...],
    cols: tuple[tuple[int, ...], ...],
    outs: tuple[str, ...],
    out_log2: tuple[int, ...],
    offsets: tuple[int, ...],
    rank: int,
) -> LinearLayout:
    """A new LinearLayout of these slots (the fields of a layout_construct ``Columns``),
    stored through a :class:`_Writable` instance (what :func:`_fill` does through the
    descriptors, for an instance of a given class, at about half its cost)."""
    layout = _new_layout(_Writable)
    layout._ins = ins
    layout._cols = cols
    layout._outs = outs
    layout._out_log2 = out_log2
    layout._out_offsets = offsets
    layout._cache = [rank, -1, None, None, None, None]  # see _cache in the class
    layout.__class__ = LinearLayout  # type: ignore[assignment]
    return layout


def _note_structure(bases: Any, out_dim_names: Any, key: bytes, parts: Columns) -> None:
    """Make a template of this call's structure the second time the fast tier builds it (its
    key's length, dim names and counts of bases: so structures built once each cost no
    template).  ``parts`` has full rank (from_bases notes only surjective layouts of inferred
    sizes): the template reads keys of its structure with the same out sizes."""
    structure = (len(key), parts[0], tuple(map(len, parts[1])), parts[2])
    if structure not in _SEEN_STRUCTURES:
        if len(_SEEN_STRUCTURES) >= _MAX_MEMO:
            _SEEN_STRUCTURES.clear()
        _SEEN_STRUCTURES.add(structure)
        return
    template = make_template(bases, out_dim_names, key, parts)
    if template is not None:
        if len(_TEMPLATES) >= _MAX_TEMPLATES:
            _TEMPLATES.clear()
        length = len(key)
        _TEMPLATES[length] = (template, *_TEMPLATES.get(length, ())[: _TEMPLATES_PER_LENGTH - 1])


def _image(column: int, images: Sequence[int]) -> int:
    """XOR of ``images[b + 1]`` over the set bits ``b`` of ``column`` (compose's image)."""
    image = 0
    while column:  # one set bit at a time, lowest first
        low = column & -column
        image ^= images[low.bit_length()]
        column ^= low
    return image


def _mover(fields: Sequence[tuple[int, int, int]]) -> Any:
    """A function moving the bit fields ``(src_offset, width, dst_offset)`` of packed
    columns; the identity or one shift when every field moves by the same amount.

    The shortcut assumes the fields cover every bit a column can have (as for all of a
    factor's out dims in ``*``); _remap, the general case, drops bits outside them.
    """
    shifts = {dst - src for src, width, dst in fields if width}
    if not shifts:
        return lambda column: 0
    if len(shifts) == 1:
        shift = shifts.pop()
        if shift == 0:
            return lambda column: column
        if shift > 0:
            return lambda column: column << shift
        return lambda column: column >> -shift
    frozen = tuple(fields)
    return lambda column: _remap(column, frozen)


def _remap(column: int, fields: Iterable[tuple[int, int, int]]) -> int:
    """Move bit fields ``(src_offset, width, dst_offset)`` of a packed column."""
    result = 0
    for src, width, dst in fields:
        result |= ((column >> src) & ((1 << width) - 1)) << dst
    return result


def _product_columns(
    inner: LinearLayout,
    outer: LinearLayout,
    ins: Sequence[str],
    outs: Sequence[str],
    out_log2: tuple[int, ...],
) -> tuple[tuple[int, ...], ...]:
    """The packed columns of ``inner * outer``, whose out dims are ``outs`` (log2 sizes
    ``out_log2``) and in dims ``ins``."""
    offsets = field_offsets(out_log2)
    position = {d: k for k, d in enumerate(outs)}
    inner_out = inner._out_idx()
    # Each factor's field of out dim d moves to d's field in the product: inner's to its
    # start, outer's above inner's bits of d (at d's offset plus inner's width of d).
    move_inner = _mover(
        [
            (inner._out_offsets[k], inner._out_log2[k], offsets[position[d]])
            for k, d in enumerate(inner._outs)
        ]
    )
    move_outer = _mover(
        [
            (
                outer._out_offsets[k],
                outer._out_log2[k],
                offsets[position[d]] + (inner._out_log2[inner_out[d]] if d in inner_out else 0),
            )
            for k, d in enumerate(outer._outs)
        ]
    )
    inner_in = inner._in_idx()
    outer_in = outer._in_idx()
    cols = []
    for d in ins:
        # A shared in dim: inner's bits are the low ones, outer's follow.
        new: list[int] = []
        if d in inner_in:
            new.extend(map(move_inner, inner._cols[inner_in[d]]))
        if d in outer_in:
            new.extend(map(move_outer, outer._cols[outer_in[d]]))
        cols.append(tuple(new))
    return tuple(cols)


def _repacked_cols(layout: LinearLayout, outer_t: LinearLayout) -> tuple[tuple[int, ...], ...]:
    """``layout``'s columns with its fields moved to ``outer_t``'s offsets (same out dims, same
    order, ``outer_t``'s fields at least as wide), so both are columns of one matrix."""
    if layout._out_offsets == outer_t._out_offsets:
        return layout._cols
    fields = [
        (layout._out_offsets[k], layout._out_log2[k], outer_t._out_offsets[k])
        for k in range(len(layout._outs))
    ]
    return tuple(tuple(_remap(c, fields) for c in cols) for cols in layout._cols)


def _self_mapped_in_dims(
    layout: LinearLayout, outer_t: LinearLayout, repacked: tuple[tuple[int, ...], ...]
) -> list[bool]:
    """Per in dim of ``outer_t``: True when invert_and_compose maps it to itself.

    Triton 3.9's rule (found by differential testing against libtriton): an in dim maps to
    itself when both layouts have it with the same bases and, in each layout, it touches no
    output bit that another in dim touches.  The identity is then a valid choice, and it
    keeps, e.g., a conversion between layouts that agree on their ``block`` dim from moving
    data between CTAs, where the smallest preimage might.
    """
    self_in = layout._in_idx()
    outer_disjoint = _disjoint_in_dims(outer_t._cols)
    self_disjoint = _disjoint_in_dims(layout._cols)
    return [
        d in self_in
        and outer_disjoint[i]
        and self_disjoint[self_in[d]]
        and outer_t._cols[i] == repacked[self_in[d]]
        for i, d in enumerate(outer_t._ins)
    ]


def _preimage_cols(
    layout: LinearLayout,
    outer_t: LinearLayout,
    repacked: tuple[tuple[int, ...], ...],
    identity: list[bool],
    result_log2: tuple[int, ...],
    outer: LinearLayout,
) -> tuple[tuple[int, ...], ...]:
    """invert_and_compose's columns: per input bit of ``layout``, the outer input it maps to.

    ``identity`` marks outer's in dims that map to themselves (_self_mapped_in_dims); every
    other bit is solved for over outer's remaining columns.
    """
    result_offsets = field_offsets(result_log2)
    # Eliminate over outer's columns minus the self-mapped in dims (nothing is lost: no other
    # in dim of either layout touches their output bits), in outer's order.  `fields` moves
    # each in dim's bits from its position among those columns to its field in the result
    # (nothing to move when no in dim is self-mapped: the positions are the fields).
    basis = gf2.EchelonBasis()
    fields = []
    position = 0
    for i, cols in enumerate(outer_t._cols):
        if not identity[i]:
            fields.append((position, len(cols), result_offsets[i]))
            position += len(cols)
            basis.extend(cols)
    moved = any(identity)
    identity_names = {d for d, same in zip(outer_t._ins, identity) if same}
    outer_in = outer_t._in_idx()
    result_cols = []
    for i, d in enumerate(layout._ins):
        if d in identity_names:  # bit j of d goes to bit j of the same dim
            base = result_offsets[outer_in[d]]
            result_cols.append(tuple(1 << (base + j) for j in range(len(layout._cols[i]))))
            continue
        # The expressions use the pivot columns only (the earliest independent ones; free
        # variables 0): the RREF solution of Triton's f2reduce, and the smallest preimage as
        # a flat index (any other adds a kernel vector, whose highest bit is a free column, 0
        # in this one).
        solved = basis.express_all(repacked[i])
        if None in solved:
            bit = solved.index(None)
            raise NotInvertibleError(
                f"invert_and_compose: the outer layout does not cover this "
                f"layout's image: {d}={1 << bit} -> "
                f"{_coords(layout._cols[i][bit], layout._out_offsets, layout._out_log2)} "
                f"is not the image of any outer input.{outer.to_string()}"
            )
        if moved:
            result_cols.append(tuple([_remap(e, fields) for e in solved]))  # type: ignore[arg-type]
        else:
            result_cols.append(tuple(solved))  # type: ignore[arg-type]
    return tuple(result_cols)


def _disjoint_in_dims(cols: tuple[tuple[int, ...], ...]) -> list[bool]:
    """Per in dim: True when its bases share no output bit with any other in dim's."""
    masks = []
    for in_cols in cols:
        mask = 0
        for c in in_cols:
            mask |= c
        masks.append(mask)
    result = []
    for i, mask in enumerate(masks):
        others = 0
        for j, other in enumerate(masks):
            if j != i:
                others |= other
        result.append(not mask & others)
    return result


def _coords(column: int, offsets: Sequence[int], log2s: Sequence[int]) -> tuple[int, ...]:
    return tuple((column >> off) & ((1 << n) - 1) for off, n in zip(offsets, log2s))


def _check_totals(layout: LinearLayout) -> None:
    """Refuse a result that grew past the caps (products, concatenations, resizes)."""
    check_caps(layout._ins, layout._cols, layout._outs, layout._out_log2)


def _layout_from_parts(parts: LayoutParts, problem: str) -> LinearLayout:
    """The layout a text form describes; an invalid one raises ParseError (``problem: ...``)."""
    try:
        return LinearLayout(parts.bases, parts.out_names, parts.out_sizes, require_surjective=False)
    except LLVerifyError as error:
        raise ParseError(f"{problem}: {error}", parts.line) from None


def _require_layout(value: Any, name: str) -> None:
    if not isinstance(value, LinearLayout):
        raise LayoutTypeError(
            f"Argument '{name}' must be a LinearLayout, not {type(value).__name__}."
        )


def _divide(a: LinearLayout, b: LinearLayout, *, left: bool) -> LinearLayout | None:
    """C with ``a == b * c`` (left) or ``a == c * b``, or None (Triton's divideLeft/Right).

    C has a's in and out dims; a dim that b lacks counts as size 1 in b.  C is read off the
    product's block structure one in dim at a time (_quotient_bases), then the product is
    rebuilt and compared with a, which settles what the pieces do not (dim orders, the
    coordinates of c's bases fitting c's sizes).
    """
    a_in, a_out = a._in_idx(), a._out_idx()
    if any(d not in a_in for d in b._ins) or any(d not in a_out for d in b._outs):
        return None
    b_in, b_out = b._in_idx(), b._out_idx()
    # Per out dim of a: b's width there (0 where b lacks it) and what is left for c.
    b_log2 = [b._out_log2[b_out[d]] if d in b_out else 0 for d in a._outs]
    if any(nb > na for nb, na in zip(b_log2, a._out_log2)):
        return None
    c_log2 = tuple(na - nb for na, nb in zip(a._out_log2, b_log2))
    a_nested = a._nested_bases()
    b_nested = b._nested_bases()
    c_bases = []
    for i, d in enumerate(a._ins):
        in_b = len(b_nested[b_in[d]]) if d in b_in else 0
        if in_b > len(a_nested[i]):
            return None
        # b's bases of d written over a's out dims (0 in the dims b lacks).
        b_part = [
            tuple(b_nested[b_in[d]][j][b_out[o]] if o in b_out else 0 for o in a._outs)
            for j in range(in_b)
        ]
        bases = _quotient_bases(a_nested[i], b_part, b_log2, c_log2, left)
        if bases is None:
            return None
        c_bases.append(bases)
    try:
        c = LinearLayout(
            list(zip(a._ins, c_bases)), a._outs, [1 << n for n in c_log2], require_surjective=False
        )
        product = b * c if left else c * b
    except LayoutError:
        return None
    return c if product == a else None


def _quotient_bases(
    a_bases: Sequence[tuple[int, ...]],
    b_part: list[tuple[int, ...]],
    b_log2: list[int],
    c_log2: tuple[int, ...],
    left: bool,
) -> list[list[int]] | None:
    """One in dim's bases of the quotient C (see _divide), or None if that dim rules it out."""
    in_b = len(b_part)
    if left:
        # a == b * c: b's bases come first, as they are; c's follow, each coordinate above
        # b's bits of its out dim (so its low b_log2 bits are 0), and shift down into C.
        if list(a_bases[:in_b]) != b_part:
            return None
        rest = a_bases[in_b:]
        if any(v % (1 << s) for basis in rest for v, s in zip(basis, b_log2)):
            return None
        return [[v >> s for v, s in zip(basis, b_log2)] for basis in rest]
    # a == c * b: c's bases come first, as they are; b's are the last ones, each coordinate
    # shifted above c's bits of its out dim.
    in_c = len(a_bases) - in_b
    scaled = [tuple(v << s for v, s in zip(basis, c_log2)) for basis in b_part]
    if list(a_bases[in_c:]) != scaled:
        return None
    return [list(basis) for basis in a_bases[:in_c]]
