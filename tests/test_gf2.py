"""llverify.gf2 against brute force over small matrices: rank is log2 of the span's size,
pivot columns are the columns outside the span of those before them, ``solve`` solutions
really solve and use pivot columns only (free variables 0), and unsolvable targets are
reported as None; plus the edge cases (no columns, zero columns, duplicates, no targets)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from functools import reduce

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify import gf2

MAX_ROWS = 6


@st.composite
def matrices(draw: st.DrawFn, max_columns: int = 8) -> tuple[int, list[int]]:
    """(rows, columns): up to ``max_columns`` columns of ``rows`` <= 6 bits each, biased
    towards repeats, zero columns and one-hot columns (the rank fast path)."""
    rows = draw(st.integers(0, MAX_ROWS))
    pool = st.integers(0, (1 << rows) - 1)
    if rows:
        pool = pool | st.sampled_from([1 << r for r in range(rows)])
    columns = draw(st.lists(pool, max_size=max_columns))
    if columns and draw(st.booleans()):
        columns.append(draw(st.sampled_from(columns)))  # a repeated column
    return rows, columns


def xor_of(columns: Sequence[int], mask: int) -> int:
    """XOR of the columns selected by the bitmask ``mask``."""
    chosen = (column for c, column in enumerate(columns) if mask >> c & 1)
    return reduce(operator.xor, chosen, 0)


def span(columns: Sequence[int]) -> set[int]:
    """Every XOR of a subset of the columns, by enumeration."""
    return {xor_of(columns, mask) for mask in range(1 << len(columns))}


def brute_rank(columns: Sequence[int]) -> int:
    size = len(span(columns))
    assert size & (size - 1) == 0  # a subspace of GF(2)^n has 2^rank elements
    return size.bit_length() - 1


def brute_pivots(columns: Sequence[int]) -> int:
    """Bit c set when column c is outside the span of the columns before it."""
    return sum(1 << c for c, column in enumerate(columns) if column not in span(columns[:c]))


# ---------------------------------------------------------------------- rank and pivots


@settings(max_examples=300, deadline=None)
@given(matrices())
def test_rank_is_the_log2_of_the_span_size(matrix: tuple[int, list[int]]) -> None:
    _, columns = matrix
    assert gf2.rank(columns) == brute_rank(columns)


@settings(max_examples=100, deadline=None)
@given(st.permutations(range(MAX_ROWS)), st.integers(0, MAX_ROWS), st.integers(0, 3))
def test_rank_of_one_hot_columns_with_zeros(order: list[int], count: int, zeros: int) -> None:
    """The fast path (distinct one-hot columns), with zero columns mixed in."""
    columns = [1 << r for r in order[:count]] + [0] * zeros
    assert gf2.rank(columns) == count == brute_rank(columns)


@settings(max_examples=400, deadline=None)
@given(matrices(), st.integers(0, (1 << MAX_ROWS) - 1))
def test_rank_beside_units_is_the_rank_with_the_unit_columns(
    matrix: tuple[int, list[int]], units: int
) -> None:
    """The rank of the unit vectors of ``units`` with the columns, whether the columns reduce
    to single bits beside them (a swizzle's), need elimination, or are dependent."""
    rows, columns = matrix
    units &= (1 << rows) - 1
    unit_columns = [1 << r for r in range(rows) if units >> r & 1]
    assert gf2.rank_beside_units(units, columns) == brute_rank(unit_columns + columns)


def test_rank_beside_units_of_a_swizzle_and_a_dependent_column() -> None:
    # The 128-byte swizzle's columns (1, 8), (2, 16), (4, 32) of a 128x128 f16 tile reduce to
    # single bits beside its unit columns: rank 14.  A negative control: the XOR of two
    # swizzled columns in place of the third leaves the rank at 13.
    units = sum(1 << b for b in range(3, 14))  # dim0 bits 3-6, dim1 bits 0-6 at offset 7
    swizzled = [1 | 8 << 7, 2 | 16 << 7, 4 | 32 << 7]
    assert gf2.rank_beside_units(units, swizzled) == 14
    dependent = [swizzled[0], swizzled[1], swizzled[0] ^ swizzled[1]]
    assert gf2.rank_beside_units(units, dependent) == 13
    assert gf2.rank_beside_units(0, [3, 5, 6]) == 2 == brute_rank([3, 5, 6])


@settings(max_examples=400, deadline=None)
@given(matrices(max_columns=10), st.integers(0, 2))
def test_dual_rows_are_the_rows_of_the_inverse_of_a_basis(
    matrix: tuple[int, list[int]], extra_width: int
) -> None:
    # None exactly when the columns do not span the `width`-bit space (a width past the
    # columns' rows, or a rank short of it: negative controls); else a basis of pivot
    # columns whose dual rows give every vector's coordinates in it.
    rows, columns = matrix
    width = rows + extra_width if extra_width < 2 else max(rows - 1, 0)
    duals = gf2.dual_rows(columns, width)
    fits = all(column < 1 << width for column in columns)
    if not fits or brute_rank(columns) != width:
        assert duals is None
        return
    assert duals is not None
    basis = list(duals)
    assert len(basis) == width and set(basis) <= set(columns) and brute_rank(basis) == width
    for p in basis:
        assert [(q & duals[p]).bit_count() & 1 for q in basis] == [int(q == p) for q in basis]
    for x in range(1 << width):  # x is the XOR of the basis columns of coordinate 1
        coordinates = [(x & duals[p]).bit_count() & 1 for p in basis]
        assert reduce(operator.xor, (p for p, c in zip(basis, coordinates) if c), 0) == x


def test_dual_rows_of_a_swizzle_and_refusals() -> None:
    swizzle = [0b0010, 0b0100, 0b1001, 0b1000]  # 0b0001 only as 0b1001 ^ 0b1000
    duals = gf2.dual_rows(swizzle, 4)
    assert duals is not None and set(duals) == set(swizzle)
    assert [(0b0001 & duals[p]).bit_count() & 1 for p in swizzle] == [0, 0, 1, 1]
    assert gf2.dual_rows([0b01, 0b10, 0b11], 2) == {1: 1, 2: 2}  # 0b11 is no pivot
    assert gf2.dual_rows([0b01, 0b01, 0b00], 2) is None  # rank 1 < 2
    assert gf2.dual_rows([0b01, 0b110], 2) is None  # a column past the width
    assert gf2.dual_rows([], 0) == {}


@settings(max_examples=300, deadline=None)
@given(matrices())
def test_pivot_columns_are_outside_the_span_of_the_earlier_columns(
    matrix: tuple[int, list[int]],
) -> None:
    _, columns = matrix
    mask = gf2.pivot_mask(columns)
    assert mask == brute_pivots(columns)
    assert mask.bit_count() == gf2.rank(columns)


@settings(max_examples=300, deadline=None)
@given(matrices())
def test_echelon_basis_insert_rank_and_express(matrix: tuple[int, list[int]]) -> None:
    rows, columns = matrix
    basis = gf2.EchelonBasis()
    pivots = [basis.insert(column) for column in columns]
    assert sum(1 << c for c, pivot in enumerate(pivots) if pivot) == brute_pivots(columns)
    assert basis.rank == brute_rank(columns)
    reachable = span(columns)
    for target in range(1 << rows):
        expression = basis.express(target)
        if target not in reachable:
            assert expression is None
            continue
        assert expression is not None
        assert xor_of(columns, expression) == target
        assert expression & ~gf2.pivot_mask(columns) == 0  # pivot columns only


# ---------------------------------------------------------------------- solve


@settings(max_examples=300, deadline=None)
@given(matrices(), st.data())
def test_solve_round_trips_with_free_variables_zero(
    matrix: tuple[int, list[int]], data: st.DataObject
) -> None:
    _, columns = matrix
    reachable = sorted(span(columns))
    targets = data.draw(st.lists(st.sampled_from(reachable), max_size=5))
    solution = gf2.solve(columns, targets)
    assert solution is not None and len(solution) == len(targets)
    pivots = gf2.pivot_mask(columns)
    for target, x in zip(targets, solution):
        assert xor_of(columns, x) == target  # the solution really solves
        assert x & ~pivots == 0  # free variables are 0
        # ... which makes it the only solution over the pivot columns
        assert [m for m in range(1 << len(columns)) if m & ~pivots == 0
                and xor_of(columns, m) == target] == [x]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(matrices(), st.data())
def test_solve_reports_a_target_outside_the_span(
    matrix: tuple[int, list[int]], data: st.DataObject
) -> None:
    rows, columns = matrix
    reachable = span(columns)
    outside = [t for t in range(1 << (rows + 1)) if t not in reachable]
    bad = data.draw(st.sampled_from(outside))  # rows + 1 bits: never all reachable
    good = data.draw(st.lists(st.sampled_from(sorted(reachable)), max_size=3))
    position = data.draw(st.integers(0, len(good)))
    assert gf2.solve(columns, [*good[:position], bad, *good[position:]]) is None


def test_solve_edge_cases() -> None:
    assert gf2.solve([], []) == []
    assert gf2.solve([], [0]) == [0]  # the empty XOR
    assert gf2.solve([], [1]) is None
    assert gf2.solve([0, 0], [0]) == [0]
    assert gf2.solve([0, 1], [1]) == [0b10]  # a zero column is never a pivot
    assert gf2.solve([1, 1, 1], [1]) == [0b1]  # the first of equal columns is the pivot
    assert gf2.solve([1, 2, 3], [3]) == [0b11]  # column 2 is free: 0, not the lone column 3
    assert gf2.solve([3, 1], [2]) == [0b11]


# ---------------------------------------------------------------------- other helpers


@settings(max_examples=200, deadline=None)
@given(matrices())
def test_kernel_vector_exists_exactly_for_dependent_columns(
    matrix: tuple[int, list[int]],
) -> None:
    _, columns = matrix
    x = gf2.kernel_vector(columns)
    if gf2.rank(columns) == len(columns):
        assert x is None
    else:
        assert x is not None and x != 0
        assert x < 1 << len(columns) and xor_of(columns, x) == 0


@settings(max_examples=200, deadline=None)
@given(matrices())
def test_matrix_rows_and_transpose_agree(matrix: tuple[int, list[int]]) -> None:
    rows, columns = matrix
    dense = gf2.matrix_rows(columns, rows)
    assert len(dense) == rows and all(len(row) == len(columns) for row in dense)
    packed = gf2.transpose(columns, rows)
    assert packed == [sum(bit << c for c, bit in enumerate(row)) for row in dense]
    assert gf2.transpose(packed, len(columns)) == columns  # transposing twice
    assert gf2.rank(packed) == gf2.rank(columns)  # row rank == column rank


@pytest.mark.parametrize(
    ("columns", "rank", "pivots"),
    [
        ([], 0, 0),
        ([0], 0, 0),
        ([0, 0, 0], 0, 0),
        ([1], 1, 0b1),
        ([5, 5], 1, 0b1),
        ([0, 4, 2, 1], 3, 0b1110),
        ([1, 2, 3, 4], 3, 0b1011),
        ([1 << 40, 1 << 40 | 1, 1], 2, 0b011),  # wide columns: no fixed width
    ],
)
def test_edge_case_ranks_and_pivots(columns: list[int], rank: int, pivots: int) -> None:
    assert gf2.rank(columns) == rank
    assert gf2.pivot_mask(columns) == pivots


def test_empty_basis() -> None:
    basis = gf2.EchelonBasis()
    assert basis.rank == 0
    assert basis.express(0) == 0
    assert basis.express(1) is None
    assert basis.insert(0) is False  # a zero column is dependent
    assert basis.rank == 0


@settings(max_examples=300, deadline=None)
@given(matrices(), st.lists(st.integers(0, (1 << MAX_ROWS) - 1), max_size=6))
def test_batch_methods_equal_one_call_per_column(matrix, targets) -> None:
    # EchelonBasis.extend / express_all (invert_and_compose's inner loops) against insert /
    # express one at a time, unsolvable targets (None) included.
    _, columns = matrix
    one, batch = gf2.EchelonBasis(), gf2.EchelonBasis()
    for column in columns:
        one.insert(column)
    batch.extend(columns)
    assert batch.rank == one.rank
    assert batch.express_all(targets) == [one.express(t) for t in targets]
    batch.extend([1])  # the count of inserted columns carries on
    one.insert(1)
    assert batch.express_all([1]) == [one.express(1)]
