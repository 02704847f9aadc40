"""The LinearLayout value type: an exact GF(2)-linear map between named bit spaces.

Semantics follow Triton 3.9's C++ ``LinearLayout`` (``include/triton/Tools/LinearLayout.h``)
bit for bit; where Triton aborts or silently truncates, llverify raises an error that
subclasses ``ValueError`` or ``TypeError``.

Internally each input bit is one *column*: an int packing the output coordinates, output
dim ``k`` occupying bits ``[offset_k, offset_k + log2(size_k))``.  Everything else (the
nested ``bases`` view, apply tables, the rank) is derived lazily and cached.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import reduce
from itertools import accumulate, chain
from operator import or_
from typing import Any

import numpy as np

from llverify import gf2
from llverify.bits import (
    MAX_DIM_LOG2,
    MAX_TOTAL_BITS,
    as_bool,
    as_int,
    check_size,
    is_power_of_2,
    log2_exact,
)
from llverify.errors import (
    DimensionError,
    LayoutError,
    LayoutTypeError,
    LLVerifyError,
    NotInvertibleError,
    ParseError,
    shown,
)
from llverify.text_format import (
    LayoutParts,
    layout_object,
    parse_layout_json,
    parse_layout_text,
)

Bases = list[tuple[str, list[list[int]]]]

_APPLY_CHUNK = 8  # bits per lookup table used by apply() and apply_array()
#: apply_all refuses layouts with more inputs than this unless told otherwise.
DEFAULT_MAX_INPUTS = 1 << 26
_SEQUENCES = (list, tuple)
_MAX_DIM_SIZE = 1 << MAX_DIM_LOG2
_SEQUENCE_TYPES = {list, tuple}
_BASES_CONTAINERS = (list, tuple, dict)
_RANK, _HASH, _NESTED, _TABLES, _IN_INDEX, _OUT_INDEX = range(6)
_STR_TYPE = {str}
#: refused where a sequence is expected: strings and bytes are read per character, sets
#: have no order
_UNORDERED = (str, bytes, AbstractSet)
_INT_TYPE = {int}


def _check_name(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise LayoutTypeError(
            f"Argument '{name}' must be a str (a dimension name), not "
            f"{type(value).__name__} {shown(value)}."
        )
    return value


def _check_names(values: Any, name: str) -> tuple[str, ...]:
    if isinstance(values, (*_UNORDERED, Mapping)) or not isinstance(values, Iterable):
        raise LayoutTypeError(
            f"Argument '{name}' must be a sequence of dimension names, not "
            f"{type(values).__name__} {shown(values)}."
        )
    names = tuple(_check_name(v, f"{name}[{i}]") for i, v in enumerate(values))
    if len(set(names)) != len(names):
        duplicates = sorted({n for n in names if names.count(n) > 1})
        raise DimensionError(
            f"Argument '{name}' must not repeat a dimension, but {duplicates} appear twice "
            f"in {list(names)}."
        )
    return names


def _next_power_of_2_above(value: int) -> int:
    """Smallest power of two strictly greater than value (llvm::NextPowerOf2)."""
    return 1 << value.bit_length()


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

    _ins: tuple[str, ...]
    _cols: tuple[tuple[int, ...], ...]
    _outs: tuple[str, ...]
    _out_log2: tuple[int, ...]
    _out_offsets: tuple[int, ...]
    # Derived data, filled on first use: [rank, hash, nested bases, apply tables,
    # in-dim index, out-dim index] (see the _RANK ... _OUT_INDEX positions).
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
        if bases.__class__ not in _BASES_CONTAINERS:
            # Read a one-shot iterable once, so the fast and the thorough path see it all.
            if isinstance(bases, Mapping):
                bases = dict(bases)
            elif isinstance(bases, Iterable) and not isinstance(bases, (str, bytes)):
                bases = list(bases)
        if _fast_init(self, bases, out_dim_names, out_dim_sizes, require_surjective) is None:
            parts = _validated_columns(bases, out_dim_names, out_dim_sizes, require_surjective)
            _init(self, *parts)
            _check_totals(self)
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
            and bases.__class__ in _BASES_CONTAINERS
            and require_surjective.__class__ is bool
        ):
            # The common case without the constructor's dispatch (same checks, same result).
            layout = _new_layout(cls)
            rank = _fast_init(layout, bases, out_dim_names, out_dim_sizes, require_surjective)
            if rank is not None and (not require_surjective or rank == sum(layout._out_log2)):
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
        _check_name(in_dim, "in_dim")
        _check_name(out_dim, "out_dim")
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
        _check_name(in_dim, "in_dim")
        _check_name(out_dim, "out_dim")
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
        per_dim, fields = self._cache[_TABLES] or self._build_tables()
        if ins.__class__ is not dict or ins.keys() != per_dim.keys():
            ins = self._checked_ins(ins)
        packed = 0
        for name, value in ins.items():
            size, table, chunks = per_dim[name]
            if value.__class__ is not int or not 0 <= value < size:
                value = as_int(value, f"ins['{name}']")
                if not 0 <= value < size:
                    raise LayoutError(
                        f"Argument 'ins['{name}']' must be in [0, {size}), not {value}."
                    )
            if table is not None:
                packed ^= table[value]
            else:
                for chunk in chunks:
                    packed ^= chunk[value & 0xFF]
                    value >>= _APPLY_CHUNK
        return {name: (packed >> offset) & mask for name, offset, mask in fields}

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
        inner_out = inner._out_idx()
        outer_out = outer._out_idx()
        out_log2 = tuple(
            (inner._out_log2[inner_out[d]] if d in inner_out else 0)
            + (outer._out_log2[outer_out[d]] if d in outer_out else 0)
            for d in outs
        )
        offsets = _offsets(out_log2)
        inner_map = [
            (inner._out_offsets[k], inner._out_log2[k], offsets[outs.index(d)])
            for k, d in enumerate(inner._outs)
        ]
        outer_map = [
            (
                outer._out_offsets[k],
                outer._out_log2[k],
                offsets[outs.index(d)] + (inner._out_log2[inner_out[d]] if d in inner_out else 0),
            )
            for k, d in enumerate(outer._outs)
        ]
        inner_in = inner._in_idx()
        outer_in = outer._in_idx()
        move_inner = _mover(inner_map)
        move_outer = _mover(outer_map)
        cols = []
        for d in ins:
            new: list[int] = []
            if d in inner_in:
                new.extend(map(move_inner, inner._cols[inner_in[d]]))
            if d in outer_in:
                new.extend(map(move_outer, outer._cols[outer_in[d]]))
            cols.append(tuple(new))
        result = _make(tuple(ins), tuple(cols), tuple(outs), out_log2)
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
        if set(self._outs) != set(outer._ins) or len(self._outs) != len(outer._ins):
            raise DimensionError(
                f"compose: this layout's out dims {list(self._outs)} must equal the outer "
                f"layout's in dims {list(outer._ins)} (ignoring order)."
            )
        outer_in = outer._in_idx()
        bit_cols: list[int] = []
        for name, log2 in zip(self._outs, self._out_log2):
            outer_cols = outer._cols[outer_in[name]]
            if log2 > len(outer_cols):
                raise LayoutError(
                    f"compose: this layout's out dim '{name}' has size {1 << log2}, larger "
                    f"than the outer layout's in dim '{name}' of size {1 << len(outer_cols)}."
                )
            bit_cols.extend(outer_cols[:log2])
        by_low_bit = {1 << i: c for i, c in enumerate(bit_cols)}
        cols = []
        for in_cols in self._cols:
            new = []
            for column in in_cols:
                image = 0
                while column:
                    low = column & -column
                    image ^= by_low_bit[low]
                    column ^= low
                new.append(image)
            cols.append(tuple(new))
        return _make(self._ins, tuple(cols), outer._outs, outer._out_log2)

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
        outer_t = outer if outer._outs == outs else outer.transpose_outs(outs)
        for name, mine, theirs in zip(outs, self._out_log2, outer_t._out_log2):
            if mine > theirs:
                raise NotInvertibleError(
                    f"invert_and_compose: out dim '{name}' has size {1 << mine} here but "
                    f"only {1 << theirs} in the outer layout, so the outer layout cannot "
                    f"cover this layout's image."
                )
        # self's columns re-packed with the outer's (larger or equal) field offsets.
        if self._out_offsets == outer_t._out_offsets:
            repacked = self._cols
        else:
            fields = [
                (self._out_offsets[k], self._out_log2[k], outer_t._out_offsets[k])
                for k in range(len(outs))
            ]
            repacked = tuple(tuple(_remap(c, fields) for c in cols) for cols in self._cols)
        # Triton 3.9's heuristic: an in dim maps to itself when it has the same bases in
        # both layouts and, in each layout, touches no output bit that another in dim
        # touches (found by differential testing against libtriton).
        self_in = self._in_idx()
        outer_ins = outer_t._ins
        outer_disjoint = _disjoint_in_dims(outer_t._cols)
        self_disjoint = _disjoint_in_dims(self._cols)
        identity = [
            d in self_in
            and outer_disjoint[i]
            and self_disjoint[self_in[d]]
            and outer_t._cols[i] == repacked[self_in[d]]
            for i, d in enumerate(outer_ins)
        ]
        identity_names = {d for d, same in zip(outer_ins, identity) if same}
        # The result maps self's in dims to outer's in dims (out sizes = outer's in sizes).
        result_log2 = tuple(len(cols) for cols in outer_t._cols)
        result_offsets = _offsets(result_log2)
        a_cols: list[int] = []
        fields = []
        for i, cols in enumerate(outer_t._cols):
            if not identity[i]:
                fields.append((len(a_cols), len(cols), result_offsets[i]))
                a_cols.extend(cols)
        basis = gf2.EchelonBasis()
        for c in a_cols:
            basis.insert(c)
        result_cols = []
        for i, d in enumerate(self._ins):
            if d in identity_names:
                base = result_offsets[outer_t._in_idx()[d]]
                result_cols.append(tuple(1 << (base + j) for j in range(len(self._cols[i]))))
                continue
            solved = []
            for bit, target in enumerate(repacked[i]):
                expression = basis.express(target)
                if expression is None:
                    raise NotInvertibleError(
                        f"invert_and_compose: the outer layout does not cover this "
                        f"layout's image: {d}={1 << bit} -> "
                        f"{_coords(self._cols[i][bit], self._out_offsets, self._out_log2)} is "
                        f"not the image of any outer input.{outer.to_string()}"
                    )
                solved.append(_remap(expression, fields))
            result_cols.append(tuple(solved))
        return _make(self._ins, tuple(result_cols), outer_ins, result_log2)

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
        identity_cols = tuple(
            tuple(1 << (offset + j) for j in range(log2))
            for offset, log2 in zip(self._out_offsets, self._out_log2)
        )
        identity = _make(self._outs, identity_cols, self._outs, self._out_log2)
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
        offsets = _offsets(out_log2)
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
            _check_name(d, "dim_names")
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
        _check_name(dim, "dim")
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
        offsets = _offsets(out_log2)
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
        return _make(self._ins, _pack(nested, out_log2), self._outs, out_log2)

    def rename_in_dim(self, old_name: str, new_name: str) -> LinearLayout:
        """Rename one in dim, keeping its position.

        Examples:
            >>> LinearLayout.identity_1d(2, "i", "o").rename_in_dim("i", "lane").get_in_dim_names()
            ['lane']
        """
        index = self._require_in(old_name, "old_name")
        _check_name(new_name, "new_name")
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
        """Parse Triton's ``toString()`` text (see :func:`llverify.text.parse_layout`).

        Examples:
            >>> ll = LinearLayout.identity_1d(4, "lane", "dim0")
            >>> LinearLayout.from_string(str(ll)) == ll
            True
        """
        return _layout_from_parts(parse_layout_text(text), "the text describes an invalid layout")

    def to_json(self) -> str:
        """JSON text ``{"bases": {...}, "out_dims": {...}}`` (see :mod:`llverify.text`).

        Examples:
            >>> LinearLayout.identity_1d(2, "lane", "dim0").to_json()
            '{"bases": {"lane": [[1]]}, "out_dims": {"dim0": 2}}'
        """
        return json.dumps(layout_object(self.bases, self.out_dims))

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
        _check_name(name, argument)
        index = self._in_idx().get(name)
        if index is None:
            raise DimensionError(
                f"Argument '{argument}' must be an in dim of the layout {list(self._ins)}, "
                f"not '{name}'."
            )
        return index

    def _require_out(self, name: str, argument: str) -> int:
        _check_name(name, argument)
        index = self._out_idx().get(name)
        if index is None:
            raise DimensionError(
                f"Argument '{argument}' must be an out dim of the layout {list(self._outs)}, "
                f"not '{name}'."
            )
        return index

    def _subset(self, names: Iterable[str], argument: str, index: dict[str, int]) -> set[str]:
        chosen = set(_check_names(names, argument))
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
        order = _check_names(names, argument)
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
        elif isinstance(dims, Iterable) and not isinstance(dims, _UNORDERED):
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
            names.append(_check_name(item[0], f"{argument}[{i}][0]"))
            log2s.append(log2_exact(check_size(item[1], f"{argument}[{i}][1]")))
        _check_names(names, argument)
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
        r = self._cache[_RANK]
        if r < 0:
            r = gf2.rank(self._flat_cols())
            self._cache[_RANK] = r
        return r

    def _flat_cols(self) -> list[int]:
        return [c for cols in self._cols for c in cols]

    def _nested_bases(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
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
        """apply()'s lookup tables: per in dim XOR tables of 8-bit chunks, and out fields."""
        per_dim = {}
        for name, cols in zip(self._ins, self._cols):
            chunks = []
            for start in range(0, max(len(cols), 1), _APPLY_CHUNK):
                table = [0]
                for c in cols[start : start + _APPLY_CHUNK]:
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


_new_layout = object.__new__

# The slots' own setters: LinearLayout.__setattr__ refuses assignment (immutability), so
# construction writes the slots through their descriptors (faster than object.__setattr__).
_set_ins = LinearLayout._ins.__set__  # type: ignore[misc, attr-defined]
_set_cols = LinearLayout._cols.__set__  # type: ignore[misc, attr-defined]
_set_outs = LinearLayout._outs.__set__  # type: ignore[misc, attr-defined]
_set_out_log2 = LinearLayout._out_log2.__set__  # type: ignore[misc, attr-defined]
_set_out_offsets = LinearLayout._out_offsets.__set__  # type: ignore[misc, attr-defined]
_set_cache = LinearLayout._cache.__set__  # type: ignore[misc, attr-defined]


def _init(
    layout: LinearLayout,
    ins: tuple[str, ...],
    cols: tuple[tuple[int, ...], ...],
    outs: tuple[str, ...],
    out_log2: tuple[int, ...],
    rank: int = -1,
) -> None:
    _set_ins(layout, ins)
    _set_cols(layout, cols)
    _set_outs(layout, outs)
    _set_out_log2(layout, out_log2)
    _set_out_offsets(layout, tuple(accumulate(out_log2[:-1], initial=0)) if out_log2 else ())
    _set_cache(layout, [rank, -1, None, None, None, None])


def _make(
    ins: tuple[str, ...],
    cols: tuple[tuple[int, ...], ...],
    outs: tuple[str, ...],
    out_log2: tuple[int, ...],
) -> LinearLayout:
    """Build from already-valid packed columns (no checks: internal use only)."""
    layout = LinearLayout.__new__(LinearLayout)
    _init(layout, ins, cols, outs, out_log2)
    return layout


def _offsets(log2s: Sequence[int]) -> tuple[int, ...]:
    offsets = []
    position = 0
    for n in log2s:
        offsets.append(position)
        position += n
    return tuple(offsets)


def _pack(
    nested: Sequence[Sequence[Sequence[int]]], out_log2: Sequence[int]
) -> tuple[tuple[int, ...], ...]:
    offsets = _offsets(out_log2)
    return tuple(
        tuple(sum(v << off for v, off in zip(basis, offsets)) for basis in in_bases)
        for in_bases in nested
    )


def _mover(fields: Sequence[tuple[int, int, int]]) -> Any:
    """A function moving the bit fields ``(src_offset, width, dst_offset)`` of packed
    columns; the identity or one shift when every field moves by the same amount."""
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
    total_in = layout.get_total_in_dim_size_log2()
    total_out = sum(layout._out_log2)
    for name, cols in zip(layout._ins, layout._cols):
        if len(cols) > MAX_DIM_LOG2:
            raise LayoutError(
                f"In dim '{name}' would have size 2**{len(cols)}; llverify caps a dimension "
                f"at 2**{MAX_DIM_LOG2} (Triton's int32 sizes)."
            )
    for name, n in zip(layout._outs, layout._out_log2):
        if n > MAX_DIM_LOG2:
            raise LayoutError(
                f"Out dim '{name}' would have size 2**{n}; llverify caps a dimension at "
                f"2**{MAX_DIM_LOG2} (Triton's int32 sizes)."
            )
    if total_in > MAX_TOTAL_BITS or total_out > MAX_TOTAL_BITS:
        raise LayoutError(
            f"The layout would have {total_in} input bits and {total_out} output bits; "
            f"llverify, like Triton, caps each at {MAX_TOTAL_BITS}."
        )


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


def _validated_columns(
    bases: Any,
    out_dim_names: Sequence[str],
    out_dim_sizes: Sequence[int] | None,
    require_surjective: bool,
) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...], tuple[str, ...], tuple[int, ...]]:
    """Check every argument of the constructor thoroughly; raise a precise error."""
    in_names, nested = _normalize_bases(bases)
    outs = _check_names(out_dim_names, "out_dim_names")
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
    if out_dim_sizes is None:
        if not require_surjective:
            raise LayoutError(
                "Argument 'out_dim_sizes' must be given when require_surjective is "
                "False (sizes are only inferred for surjective layouts)."
            )
        sizes = [1] * num_outs
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
    else:
        if isinstance(out_dim_sizes, (str, bytes)) or not isinstance(out_dim_sizes, Iterable):
            raise LayoutTypeError(
                f"Argument 'out_dim_sizes' must be a sequence of ints, not "
                f"{type(out_dim_sizes).__name__} {shown(out_dim_sizes)}."
            )
        sizes = [check_size(s, f"out_dim_sizes[{k}]") for k, s in enumerate(out_dim_sizes)]
        if len(sizes) != num_outs:
            raise LayoutError(
                f"Argument 'out_dim_sizes' must have one size per out dim "
                f"({num_outs}: {list(outs)}), not {len(sizes)}: {sizes}."
            )
        for in_dim, in_bases in zip(in_names, nested):
            for i, basis in enumerate(in_bases):
                for k, coord in enumerate(basis):
                    if coord >= sizes[k]:
                        raise LayoutError(
                            f"Argument 'bases': basis {i} of in-dim '{in_dim}' has "
                            f"coordinate {coord} for out-dim '{outs[k]}', which must "
                            f"be less than its size {sizes[k]}."
                        )
    out_log2 = tuple(log2_exact(s) for s in sizes)
    return in_names, _pack(nested, out_log2), outs, out_log2


def _fast_init(
    layout: LinearLayout,
    bases: Any,
    out_dim_names: Any,
    out_dim_sizes: Any,
    require_surjective: bool,
) -> int | None:
    """Initialize ``layout`` for the constructor's common case (lists of plain ints).

    Every check is done in bulk.  Returns the rank if it is known cheaply (else -1), or
    None, touching nothing, whenever anything is unusual; the caller then runs the
    thorough ``_validated_columns``, which either raises the precise error or accepts the
    input.  On success every invariant holds, the 2**30 and 64-bit caps included.
    """
    try:
        dims = _fast_dims(bases, out_dim_names)
        if dims is None:
            return None
        names, groups, outs = dims
        counts = list(map(len, groups))
        flat = list(chain.from_iterable(groups))
        if counts and (max(counts) > MAX_DIM_LOG2 or len(flat) > MAX_TOTAL_BITS):
            return None
        num_outs = len(outs)
        if out_dim_sizes is None:
            if not require_surjective:
                return None
        elif not _fast_sizes_fit(out_dim_sizes, num_outs):
            return None
        packer = _FAST_PACKERS[num_outs] if num_outs < 3 else _fast_pack_many
        packing = packer(flat, num_outs, out_dim_sizes)
    except (TypeError, ValueError, AttributeError, IndexError):
        return None
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
    _set_ins(layout, names)
    _set_cols(layout, tuple(cols))
    _set_outs(layout, outs)
    _set_out_log2(layout, out_log2)
    _set_out_offsets(layout, offsets)
    _set_cache(layout, [rank, -1, None, None, None, None])
    return rank


def _fast_dims(
    bases: Any, out_dim_names: Any
) -> tuple[tuple[str, ...], tuple[Any, ...], tuple[str, ...]] | None:
    """In-dim names, their bases lists and out-dim names, when all are plain and distinct."""
    if bases.__class__ not in _BASES_CONTAINERS or out_dim_names.__class__ not in _SEQUENCES:
        return None  # e.g. None, whose falsiness must not read as "no in dims"
    items = bases.items() if bases.__class__ is dict else bases
    outs = tuple(out_dim_names)
    names, groups = zip(*items) if items else ((), ())
    if (
        not {*map(type, names), *map(type, outs)} <= _STR_TYPE
        or not set(map(type, groups)) <= _SEQUENCE_TYPES
        or len(set(names)) != len(names)
        or len(set(outs)) != len(outs)
    ):
        return None
    return names, groups, outs


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
        return tuple(map(int.bit_length, tops))
    if any(top >= size for top, size in zip(tops, sizes)):
        return None
    return tuple([size.bit_length() - 1 for size in sizes])


# The packed columns, the out sizes' log2, the out offsets, and the OR of the columns.
_Packing = tuple[list[int], tuple[int, ...], tuple[int, ...], int]


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
    coords = list(zip(*flat)) if flat else [()] * num_outs
    if not set(map(type, chain.from_iterable(coords))) <= _INT_TYPE:
        return None
    out_log2 = _fast_out_log2([max(column, default=0) for column in coords], sizes)
    if out_log2 is None or sum(out_log2) > MAX_TOTAL_BITS:
        return None
    offsets = tuple(accumulate(out_log2[:-1], initial=0))
    packed = list(coords[0])
    for offset, column in zip(offsets[1:], coords[1:]):
        packed = [p | (v << offset) for p, v in zip(packed, column)]
    return packed, out_log2, offsets, reduce(or_, packed, 0)


_FAST_PACKERS = (_fast_pack_none, _fast_pack_one, _fast_pack_two)


def _divide(a: LinearLayout, b: LinearLayout, *, left: bool) -> LinearLayout | None:
    """C with ``a == b * c`` (left) or ``a == c * b``, or None (Triton's divideLeft/Right)."""
    a_in, a_out = a._in_idx(), a._out_idx()
    if any(d not in a_in for d in b._ins) or any(d not in a_out for d in b._outs):
        return None
    b_in, b_out = b._in_idx(), b._out_idx()
    b_log2 = [b._out_log2[b_out[d]] if d in b_out else 0 for d in a._outs]
    if any(nb > na for nb, na in zip(b_log2, a._out_log2)):
        return None
    c_log2 = tuple(na - nb for na, nb in zip(a._out_log2, b_log2))
    a_nested = a._nested_bases()
    b_nested = b._nested_bases()
    c_bases = []
    for i, d in enumerate(a._ins):
        in_a = len(a_nested[i])
        in_b = len(b_nested[b_in[d]]) if d in b_in else 0
        if in_b > in_a:
            return None
        b_part = [
            tuple(b_nested[b_in[d]][j][b_out[o]] if o in b_out else 0 for o in a._outs)
            for j in range(in_b)
        ]
        if left:
            if list(a_nested[i][:in_b]) != b_part:
                return None
            rest = a_nested[i][in_b:]
            if any(v % (1 << s) for basis in rest for v, s in zip(basis, b_log2)):
                return None
            c_bases.append([[v >> s for v, s in zip(basis, b_log2)] for basis in rest])
        else:
            in_c = in_a - in_b
            scaled = [tuple(v << s for v, s in zip(basis, c_log2)) for basis in b_part]
            if list(a_nested[i][in_c:]) != scaled:
                return None
            c_bases.append([list(basis) for basis in a_nested[i][:in_c]])
    try:
        c = LinearLayout(
            list(zip(a._ins, c_bases)), a._outs, [1 << n for n in c_log2], require_surjective=False
        )
        product = b * c if left else c * b
    except LayoutError:
        return None
    return c if product == a else None


def _normalize_bases(
    bases: Any,
) -> tuple[tuple[str, ...], tuple[tuple[tuple[int, ...], ...], ...]]:
    """Accept ``[(name, [[...], ...]), ...]`` or ``{name: [[...], ...]}``; return tuples."""
    if isinstance(bases, Mapping):
        items = list(bases.items())
    elif isinstance(bases, _UNORDERED) or not isinstance(bases, Iterable):
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
        names.append(_check_name(name, f"bases[{i}][0]"))
        if isinstance(in_bases, _UNORDERED) or not isinstance(in_bases, Iterable):
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
            if isinstance(basis, _UNORDERED) or not isinstance(basis, Iterable):
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
        nested.append(tuple(converted))
    in_names = _check_names(names, "bases")
    return in_names, tuple(nested)
