"""Hypothesis strategies and brute-force helpers for LinearLayout tests.

Everything here is independent of llverify's internals: layouts are built through
the public ``LinearLayout.from_bases`` and inspected through ``bases``, ``in_dims``,
``out_dims`` and ``apply`` only, so the brute-force reference definitions below can
check the library instead of repeating it.

Layouts are small on purpose (1-3 in dims of 0-4 bits, 1-3 out dims of 0-4 bits by
default, at most 2**12 inputs) so that laws can be checked over the WHOLE domain.

Dim names are drawn as *ordered* subsequences of fixed pools, so any two layouts
drawn from the same pool order their common dims the same way (``*`` is then always
defined); pass ``shuffle=True`` for an arbitrary order.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from llverify import LinearLayout

IN_POOL = ("register", "lane", "warp", "block")
OUT_POOL = ("dim0", "dim1", "dim2")
#: A pool used for both in and out dims (is_trivial_over / quotient need shared names).
SHARED_POOL = ("a", "b", "c", "d")

#: Settings for law tests: moderate example counts, no per-example deadline.
LAW_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
SMALL_SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


# ---------------------------------------------------------------------- packing helpers


def _offsets(log2s: Sequence[int]) -> list[int]:
    offsets, position = [], 0
    for n in log2s:
        offsets.append(position)
        position += n
    return offsets


def unpack(column: int, out_log2: Sequence[int]) -> list[int]:
    """Split a packed column (out dim k at bits [offset_k, offset_k + log2_k)) into coords."""
    return [(column >> off) & ((1 << n) - 1) for off, n in zip(_offsets(out_log2), out_log2)]


def pack(coords: Sequence[int], out_log2: Sequence[int]) -> int:
    return sum(c << off for c, off in zip(coords, _offsets(out_log2)))


def build_layout(
    in_names: Sequence[str],
    in_log2: Sequence[int],
    columns: Sequence[int],
    out_names: Sequence[str],
    out_log2: Sequence[int],
    *,
    require_surjective: bool = False,
) -> LinearLayout:
    """from_bases from packed columns listed in flat (in-dim, bit) order."""
    nested, position = [], 0
    for n in in_log2:
        nested.append([unpack(c, out_log2) for c in columns[position : position + n]])
        position += n
    return LinearLayout.from_bases(
        list(zip(in_names, nested)),
        list(out_names),
        [1 << n for n in out_log2],
        require_surjective=require_surjective,
    )


# ---------------------------------------------------------------------- basic draws


@st.composite
def dim_names(
    draw: Any, pool: Sequence[str], min_size: int, max_size: int, shuffle: bool = False
) -> list[str]:
    """Distinct names from ``pool``: an ordered subsequence (or any order if shuffle)."""
    max_size = min(max_size, len(pool))
    chosen = draw(
        st.lists(
            st.sampled_from(range(len(pool))), min_size=min_size, max_size=max_size, unique=True
        )
    )
    names = [pool[i] for i in sorted(chosen)]
    if shuffle:
        names = draw(st.permutations(names))
    return list(names)


@st.composite
def _column(draw: Any, total_bits: int, previous: Sequence[int]) -> int:
    """A packed column: zero, a duplicate of an earlier one, a unit vector, or random."""
    kinds = ["zero", "random"]
    if previous:
        kinds.append("duplicate")
    if total_bits:
        kinds.append("unit")
    kind = draw(st.sampled_from(kinds))
    if kind == "zero" or total_bits == 0:
        return 0
    if kind == "duplicate":
        return draw(st.sampled_from(list(previous)))
    if kind == "unit":
        return 1 << draw(st.integers(0, total_bits - 1))
    return draw(st.integers(0, (1 << total_bits) - 1))


@st.composite
def _random_columns(draw: Any, count: int, total_bits: int) -> list[int]:
    columns: list[int] = []
    for _ in range(count):
        columns.append(draw(_column(total_bits, columns)))
    return columns


@st.composite
def _surjective_columns(draw: Any, count: int, total_bits: int) -> list[int]:
    """``count`` columns spanning all ``total_bits`` bits (count >= total_bits).

    Unit vectors at random positions, other columns zero/duplicate/random, then a few
    elementary column operations (col_i ^= col_j, which keep the span).
    """
    assert count >= total_bits
    positions = draw(st.permutations(range(count)))
    columns = [0] * count
    for bit, position in enumerate(positions[:total_bits]):
        columns[position] = 1 << bit
    for position in positions[total_bits:]:
        columns[position] = draw(_column(total_bits, [c for c in columns if c]))
    if count >= 2:
        ops = draw(
            st.lists(st.tuples(st.integers(0, count - 1), st.integers(0, count - 1)), max_size=4)
        )
        for i, j in ops:
            if i != j:
                columns[i] ^= columns[j]
    return columns


@st.composite
def _sizes_with_total_at_most(draw: Any, count: int, limit: int, max_bits: int) -> list[int]:
    sizes = []
    for _ in range(count):
        n = draw(st.integers(0, max(0, min(max_bits, limit))))
        sizes.append(n)
        limit -= n
    return sizes


@st.composite
def _partition(draw: Any, total: int, count: int) -> list[int]:
    """``count`` non-negative ints summing to ``total``."""
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=count - 1, max_size=count - 1)))
    bounds = [0, *cuts, total]
    return [bounds[i + 1] - bounds[i] for i in range(count)]


# ---------------------------------------------------------------------- layouts


@st.composite
def layouts(
    draw: Any,
    *,
    kind: str = "any",
    in_names: Sequence[str] | None = None,
    in_log2: Sequence[int] | None = None,
    out_names: Sequence[str] | None = None,
    out_log2: Sequence[int] | None = None,
    min_in_dims: int = 1,
    max_in_dims: int = 3,
    max_in_bits: int = 4,
    min_out_dims: int = 1,
    max_out_dims: int = 3,
    max_out_bits: int = 4,
    in_pool: Sequence[str] = IN_POOL,
    out_pool: Sequence[str] = OUT_POOL,
    shuffle: bool = False,
) -> LinearLayout:
    """A small random layout.

    kind: "random" (arbitrary bases, usually not surjective), "surjective",
    "invertible", or "any" (one of the three).  Bases include zero and duplicate
    bases.  Fixed ``in_names``/``in_log2``/``out_names``/``out_log2`` are respected
    (for "surjective"/"invertible" the fixed sizes must allow it).
    """
    if kind == "any":
        kind = draw(st.sampled_from(["random", "random", "surjective", "invertible"]))
    if in_names is None:
        in_names = draw(dim_names(in_pool, min_in_dims, max_in_dims, shuffle))
    if in_log2 is None:
        in_log2 = draw(
            st.lists(st.integers(0, max_in_bits), min_size=len(in_names), max_size=len(in_names))
        )
    in_names, in_log2 = list(in_names), list(in_log2)
    n_in = sum(in_log2)
    if out_names is None:
        out_names = draw(dim_names(out_pool, min_out_dims, max_out_dims, shuffle))
    out_names = list(out_names)
    if out_log2 is None:
        if kind == "random":
            out_log2 = draw(
                st.lists(
                    st.integers(0, max_out_bits),
                    min_size=len(out_names),
                    max_size=len(out_names),
                )
            )
        elif kind == "surjective":
            out_log2 = draw(_sizes_with_total_at_most(len(out_names), n_in, max_out_bits))
        elif kind == "invertible":
            if not out_names:
                out_log2 = []
                kind = "surjective"  # no out dims: surjective, invertible only if n_in == 0
            else:
                out_log2 = draw(_partition(n_in, len(out_names)))
        else:
            raise ValueError(kind)
    out_log2 = list(out_log2)
    n_out = sum(out_log2)
    if kind == "random":
        columns = draw(_random_columns(n_in, n_out))
    else:
        if kind == "invertible":
            assert n_in == n_out, (in_log2, out_log2)
        assert n_out <= n_in, (in_log2, out_log2)
        columns = draw(_surjective_columns(n_in, n_out))
    require = kind != "random" and draw(st.booleans())
    return build_layout(in_names, in_log2, columns, out_names, out_log2, require_surjective=require)


def surjective_layouts(**kwargs: Any) -> st.SearchStrategy[LinearLayout]:
    return layouts(kind="surjective", **kwargs)


def invertible_layouts(**kwargs: Any) -> st.SearchStrategy[LinearLayout]:
    return layouts(kind="invertible", **kwargs)


def log2_sizes(pairs: Sequence[tuple[str, int]]) -> list[int]:
    return [size.bit_length() - 1 for _, size in pairs]


@st.composite
def composable_pairs(draw: Any) -> tuple[LinearLayout, LinearLayout]:
    """(a, b) with a's out dims == b's in dims (any order), b's in sizes >= a's out sizes."""
    a = draw(layouts())
    names = draw(st.permutations(a.get_out_dim_names()))
    log2 = {d: n for (d, _), n in zip(a.out_dims, log2_sizes(a.out_dims))}
    b_log2 = [min(4, log2[d] + draw(st.integers(0, 1))) for d in names]
    b_log2 = [max(b, log2[d]) for b, d in zip(b_log2, names)]
    b = draw(layouts(in_names=names, in_log2=b_log2, out_pool=("x", "y", "z")))
    return a, b


@st.composite
def invert_compose_pairs(draw: Any) -> tuple[LinearLayout, LinearLayout]:
    """(this, outer): outer's out dims are this's (any order, sizes >=) and outer's image
    contains this's image.

    Variants: outer surjective with fresh in dims; outer sharing some of this's in
    dims with identical bases (Triton's identity-dim shortcut) or with the same name
    but other bases; outer = a renamed copy of this; outer = this.
    """
    this = draw(layouts())
    variant = draw(st.sampled_from(["fresh", "fresh", "copy", "self"]))
    if variant == "self":
        return this, this
    outs = this.get_out_dim_names()
    this_log2 = dict(zip(outs, log2_sizes(this.out_dims)))
    order = draw(st.permutations(outs))
    if variant == "copy":
        out_log2 = [this_log2[d] for d in order]  # same sizes: the image is this's image
    else:
        out_log2 = [this_log2[d] + draw(st.integers(0, 1)) for d in order]
    position = {d: k for k, d in enumerate(order)}
    total = sum(out_log2)

    def reorder(basis: Sequence[int]) -> int:
        coords = [0] * len(order)
        for d, v in zip(outs, basis):
            coords[position[d]] = v
        return pack(coords, out_log2)

    this_bases = dict(this.bases)
    in_names: list[str] = []
    in_log2: list[int] = []
    columns: list[int] = []
    if variant == "copy":
        for d in this.get_in_dim_names():
            extra = draw(st.integers(0, 1))
            cols = [reorder(b) for b in this_bases[d]]
            cols += [draw(st.sampled_from(cols)) if cols else 0 for _ in range(extra)]
            in_names.append("copy_" + d)
            in_log2.append(len(cols))
            columns.extend(cols)
    else:
        copied = draw(st.lists(st.sampled_from(this.get_in_dim_names()), unique=True, max_size=2))
        reused = [d for d in this.get_in_dim_names() if d not in copied]
        for d in this.get_in_dim_names():
            if d in copied:
                in_names.append(d)
                in_log2.append(len(this_bases[d]))
                columns.extend(reorder(b) for b in this_bases[d])
        # Fresh dims covering everything: named "src*" or like one of this's other dims.
        fresh_total = total + draw(st.integers(0, 2))
        split = [fresh_total] if fresh_total < 2 else draw(_partition(fresh_total, 2))
        fresh_cols = draw(_surjective_columns(fresh_total, total))
        candidates = ["src0", "src1", *reused]
        names = draw(
            st.lists(
                st.sampled_from(candidates), unique=True, min_size=len(split), max_size=len(split)
            )
        )
        position_in = 0
        for name, n in zip(names, split):
            in_names.append(name)
            in_log2.append(n)
            columns.extend(fresh_cols[position_in : position_in + n])
            position_in += n
    outer = build_layout(in_names, in_log2, columns, order, out_log2)
    return this, outer


# ---------------------------------------------------------------------- brute force


def in_log2_of(layout: LinearLayout) -> dict[str, int]:
    return {d: s.bit_length() - 1 for d, s in layout.in_dims}


def out_log2_of(layout: LinearLayout) -> dict[str, int]:
    return {d: s.bit_length() - 1 for d, s in layout.out_dims}


def all_inputs(layout: LinearLayout) -> Iterator[dict[str, int]]:
    """Every input of the layout, as ``{in_dim: value}``."""
    names = [d for d, _ in layout.in_dims]
    for values in itertools.product(*(range(s) for _, s in layout.in_dims)):
        yield dict(zip(names, values))


def all_points(dims: Sequence[tuple[str, int]]) -> Iterator[dict[str, int]]:
    names = [d for d, _ in dims]
    for values in itertools.product(*(range(s) for _, s in dims)):
        yield dict(zip(names, values))


def ref_apply(layout: LinearLayout, x: dict[str, int]) -> dict[str, int]:
    """Reference evaluation: XOR of the bases selected by the set bits of x."""
    out = [0] * layout.num_out_dims
    for d, bases in layout.bases:
        value = x[d]
        for i, basis in enumerate(bases):
            if value >> i & 1:
                out = [o ^ c for o, c in zip(out, basis)]
    return dict(zip(layout.get_out_dim_names(), out))


def flat_in(layout: LinearLayout, x: dict[str, int]) -> int:
    """Flatten an input, first in dim least significant (Triton's flattenIns)."""
    result, shift = 0, 0
    for d, s in layout.in_dims:
        result |= x[d] << shift
        shift += s.bit_length() - 1
    return result


def flat_out(layout: LinearLayout, y: dict[str, int]) -> int:
    """Flatten an output, first out dim least significant (Triton's flattenOuts)."""
    result, shift = 0, 0
    for d, s in layout.out_dims:
        result |= y[d] << shift
        shift += s.bit_length() - 1
    return result


def unflatten(dims: Sequence[tuple[str, int]], value: int) -> dict[str, int]:
    result = {}
    for d, s in dims:
        n = s.bit_length() - 1
        result[d] = value & ((1 << n) - 1)
        value >>= n
    return result


def image(layout: LinearLayout) -> set[int]:
    """The set of flattened outputs over the whole domain."""
    return {flat_out(layout, layout.apply(x)) for x in all_inputs(layout)}
