"""The Ops backends agree: IntOps (the reference), NumpyOps and Z3Ops compute Python's semantics.

Every operation of the protocol is checked on random operands, negative ones included where
the semantics are Python's (floored ``//`` and ``%``, floored ``>>``), against Python's own
operators.  The ``nonneg=True`` variants are checked on non-negative operands (value backends
ignore the flag, so they are also checked on negative ones).  CheckedNumpyOps must flag every
int64 overflow and division by zero, and must stay silent when the exact result fits;
Z3Ops(checked=True) must record conditions that hold exactly when an operation overflows.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llverify.ops import CheckedNumpyOps, IntOps, NumpyOps
from llverify.smt.ops import Z3Ops

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

INT64_MIN = int(np.iinfo(np.int64).min)
INT64_MAX = int(np.iinfo(np.int64).max)

#: Operands stay below 2**30 in magnitude and shifts below 31, so every exact result fits
#: in 62 bits (numpy is exact) and in Z3_WIDTH bits (nothing wraps).
LIMIT = 1 << 30
Z3_WIDTH = 96

INT = IntOps()
NP = NumpyOps()

# Small values hit the sign and rounding corners, large ones the carries.
operands = st.one_of(st.integers(-20, 20), st.integers(-LIMIT, LIMIT))
nonneg_operands = st.one_of(st.integers(0, 20), st.integers(0, LIMIT))
nonzero_operands = operands.filter(bool)
shift_amounts = st.integers(0, 30)


def z3_int(expr: Any) -> int:
    value = z3.simplify(expr)
    assert z3.is_bv_value(value), value
    return value.as_signed_long()


def z3_bool(expr: Any) -> bool:
    value = z3.simplify(expr)
    assert z3.is_true(value) or z3.is_false(value), value
    return z3.is_true(value)


def z3_const(value: int, width: int = Z3_WIDTH) -> Any:
    return z3.BitVecVal(value, width)


# name -> (Python's operator, operand strategy for the right-hand side)
INTEGER_BINARY: dict[str, tuple[Callable[[int, int], int], st.SearchStrategy[int]]] = {
    "add": (operator.add, operands),
    "sub": (operator.sub, operands),
    "mul": (operator.mul, operands),
    "floordiv": (operator.floordiv, nonzero_operands),
    "mod": (operator.mod, nonzero_operands),
    "and_": (operator.and_, operands),
    "or_": (operator.or_, operands),
    "xor": (operator.xor, operands),
    "shl": (operator.lshift, shift_amounts),
    "shr": (operator.rshift, shift_amounts),
    "min": (min, operands),
    "max": (max, operands),
}
CONDITION_BINARY: dict[str, Callable[[int, int], bool]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
}
#: Operations that take ``nonneg``.
NONNEG_OPS = ("floordiv", "mod", "shr", "lt", "le", "min", "max")


def _call(ops: Any, name: str, a: Any, b: Any, nonneg: bool | None) -> Any:
    method = getattr(ops, name)
    return method(a, b) if nonneg is None else method(a, b, nonneg=nonneg)


def _check_integer_op(name: str, pairs: list[tuple[int, int]], nonneg: bool | None) -> None:
    python = INTEGER_BINARY[name][0]
    expected = [python(a, b) for a, b in pairs]
    z3_ops = Z3Ops(Z3_WIDTH)
    for (a, b), want in zip(pairs, expected):
        assert _call(INT, name, INT.const(a), INT.const(b), nonneg) == want, (a, b)
        assert _call(INT, name, a, b, nonneg) == want, (a, b)
        assert z3_int(_call(z3_ops, name, z3_ops.const(a), z3_ops.const(b), nonneg)) == want
        scalar = _call(NP, name, NP.const(a), NP.const(b), nonneg)
        assert int(scalar) == want, (a, b)
    lefts = np.array([a for a, _ in pairs], dtype=np.int64)
    rights = np.array([b for _, b in pairs], dtype=np.int64)
    vector = _call(NP, name, lefts, rights, nonneg)
    assert vector.dtype == np.int64
    assert vector.tolist() == expected


def _check_condition_op(name: str, pairs: list[tuple[int, int]], nonneg: bool | None) -> None:
    python = CONDITION_BINARY[name]
    expected = [python(a, b) for a, b in pairs]
    z3_ops = Z3Ops(Z3_WIDTH)
    for (a, b), want in zip(pairs, expected):
        assert _call(INT, name, a, b, nonneg) is want, (a, b)
        assert z3_bool(_call(z3_ops, name, z3_ops.const(a), z3_ops.const(b), nonneg)) is want
        assert bool(_call(NP, name, NP.const(a), NP.const(b), nonneg)) is want
    lefts = np.array([a for a, _ in pairs], dtype=np.int64)
    rights = np.array([b for _, b in pairs], dtype=np.int64)
    assert _call(NP, name, lefts, rights, nonneg).tolist() == expected


@st.composite
def operand_pairs(draw: Any, name: str, nonneg: bool = False) -> list[tuple[int, int]]:
    left = nonneg_operands if nonneg else operands
    right = INTEGER_BINARY[name][1] if name in INTEGER_BINARY else operands
    if nonneg:
        right = right.filter(lambda v: v >= 0) if name in ("shl", "shr") else nonneg_operands
        if name in ("floordiv", "mod"):
            right = st.integers(1, LIMIT) | st.integers(1, 20)
    pairs = draw(st.lists(st.tuples(left, right), min_size=1, max_size=6))
    # Equal operands matter for comparisons and min/max.
    first = pairs[0][0]
    if (
        draw(st.booleans())
        and name not in ("shl", "shr")
        and (first or name not in ("floordiv", "mod"))
    ):
        pairs.append((first, first))
    return pairs


# ---------------------------------------------------------------------- integer ops


@pytest.mark.parametrize("name", sorted(INTEGER_BINARY))
@SETTINGS
@given(data=st.data())
def test_integer_binary_ops_agree(name: str, data: st.DataObject) -> None:
    """IntOps == NumpyOps == Z3Ops == Python, negative operands included."""
    pairs = data.draw(operand_pairs(name))
    _check_integer_op(name, pairs, None)


@pytest.mark.parametrize("name", sorted(CONDITION_BINARY))
@SETTINGS
@given(data=st.data())
def test_comparisons_agree(name: str, data: st.DataObject) -> None:
    pairs = data.draw(operand_pairs(name))
    _check_condition_op(name, pairs, None)


@pytest.mark.parametrize("name", NONNEG_OPS)
@SETTINGS
@given(data=st.data())
def test_nonneg_variants_agree_on_nonneg_operands(name: str, data: st.DataObject) -> None:
    """With nonneg=True (unsigned ops in Z3) every backend still computes Python's result."""
    pairs = data.draw(operand_pairs(name, nonneg=True))
    for nonneg in (False, True):
        if name in CONDITION_BINARY:
            _check_condition_op(name, pairs, nonneg)
        else:
            _check_integer_op(name, pairs, nonneg)


@pytest.mark.parametrize("name", NONNEG_OPS)
@SETTINGS
@given(data=st.data())
def test_value_backends_ignore_nonneg(name: str, data: st.DataObject) -> None:
    """IntOps and NumpyOps ignore the hint even when it is wrong (negative operands)."""
    pairs = data.draw(operand_pairs(name))
    python: Callable[[int, int], Any] = (
        CONDITION_BINARY[name] if name in CONDITION_BINARY else INTEGER_BINARY[name][0]
    )
    lefts = np.array([a for a, _ in pairs], dtype=np.int64)
    rights = np.array([b for _, b in pairs], dtype=np.int64)
    expected = [python(a, b) for a, b in pairs]
    assert [_call(INT, name, a, b, True) for a, b in pairs] == expected
    assert _call(NP, name, lefts, rights, True).tolist() == expected


def test_python_semantics_corners() -> None:
    """The corners that differ from C: floored division, modulo and arithmetic shift."""
    cases = [(7, 2), (-7, 2), (7, -2), (-7, -2), (-1, 3), (1, -3), (-6, 3), (6, -3), (0, -5)]
    for name in ("floordiv", "mod"):
        _check_integer_op(name, cases, None)
    shifts = [(-1, 0), (-1, 1), (-1, 30), (-5, 1), (-8, 2), (-9, 2), (-(1 << 29), 30), (5, 3)]
    _check_integer_op("shr", shifts, None)
    _check_integer_op("shl", [(-3, 5), (-1, 30), (0, 30)], None)


@SETTINGS
@given(values=st.lists(operands, min_size=1, max_size=8))
def test_unary_ops_and_const_agree(values: list[int]) -> None:
    z3_ops = Z3Ops(Z3_WIDTH)
    array = np.array(values, dtype=np.int64)
    for name, python in (("invert", operator.invert), ("neg", operator.neg)):
        expected = [python(v) for v in values]
        assert [getattr(INT, name)(v) for v in values] == expected
        assert getattr(NP, name)(array).tolist() == expected
        assert [int(getattr(NP, name)(NP.const(v))) for v in values] == expected
        assert [z3_int(getattr(z3_ops, name)(z3_ops.const(v))) for v in values] == expected
    for v in values:
        assert INT.const(v) == v and type(INT.const(v)) is int
        assert NP.const(v) == v and NP.const(v).dtype == np.int64
        assert z3_int(z3_ops.const(v)) == v


@SETTINGS
@given(value=st.integers(-(1 << 200), 1 << 200))
def test_wide_z3_consts_and_invert(value: int) -> None:
    z3_ops = Z3Ops(256)
    assert z3_int(z3_ops.const(value)) == value
    assert z3_int(z3_ops.invert(z3_ops.const(value))) == ~value
    assert z3_int(z3_ops.neg(z3_ops.const(value))) == -value


def _z3_conditions(z3_ops: Any, values: list[bool]) -> list[Any]:
    # Conditions built from comparisons, as a formula would build them.
    return [z3_ops.eq(z3_ops.const(0), z3_ops.const(0 if v else 1)) for v in values]


@SETTINGS
@given(
    conditions=st.lists(st.booleans(), min_size=1, max_size=5),
    rows=st.integers(1, 4),
)
def test_logical_ops_agree(conditions: list[bool], rows: int) -> None:
    z3_ops = Z3Ops(8)
    z3_conditions = _z3_conditions(z3_ops, conditions)
    for name, python in (("logical_and", all), ("logical_or", any)):
        want = python(conditions)
        assert getattr(INT, name)(conditions) is want
        assert z3_bool(getattr(z3_ops, name)(z3_conditions)) is want
        assert bool(getattr(NP, name)([np.bool_(c) for c in conditions])) is want
        # Vectorized: row i of each condition array is the condition flipped i times.
        arrays = [np.array([c ^ (i % 2 == 1) for i in range(rows)]) for c in conditions]
        got = getattr(NP, name)(arrays)
        assert np.asarray(got).tolist() == [
            python(c ^ (i % 2 == 1) for c in conditions) for i in range(rows)
        ]
    for c, zc in zip(conditions, z3_conditions):
        assert INT.logical_not(c) is (not c)
        assert z3_bool(z3_ops.logical_not(zc)) is (not c)
        assert bool(NP.logical_not(np.bool_(c))) is (not c)
    array = np.array(conditions)
    assert NP.logical_not(array).tolist() == [not c for c in conditions]


@SETTINGS
@given(rows=st.lists(st.tuples(st.booleans(), operands, operands), min_size=1, max_size=6))
def test_ite_agrees(rows: list[tuple[bool, int, int]]) -> None:
    z3_ops = Z3Ops(Z3_WIDTH)
    expected = [a if c else b for c, a, b in rows]
    assert [INT.ite(c, a, b) for c, a, b in rows] == expected
    (z3_condition,) = _z3_conditions(z3_ops, [True])
    for c, a, b in rows:
        condition = z3_condition if c else z3_ops.logical_not(z3_condition)
        assert z3_int(z3_ops.ite(condition, z3_ops.const(a), z3_ops.const(b))) == (a if c else b)
    conditions = np.array([c for c, _, _ in rows])
    lefts = np.array([a for _, a, _ in rows], dtype=np.int64)
    rights = np.array([b for _, _, b in rows], dtype=np.int64)
    assert NP.ite(conditions, lefts, rights).tolist() == expected
    assert NP.ite(conditions, NP.const(1), rights).tolist() == [1 if c else b for c, _, b in rows]


# ---------------------------------------------------------------------- CheckedNumpyOps

near_limits = st.one_of(
    st.integers(INT64_MAX - 1000, INT64_MAX),
    st.integers(INT64_MIN, INT64_MIN + 1000),
    st.integers(-1000, 1000),
    st.integers(INT64_MIN, INT64_MAX),
    st.sampled_from([INT64_MIN, INT64_MAX, -1, 0, 1, 1 << 62, -(1 << 62), 1 << 31, -(1 << 31)]),
)


def _fits(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def _checked(name: str, a: int, b: int | None = None) -> tuple[bool, Any]:
    ops = CheckedNumpyOps()
    left = np.array([a], dtype=np.int64)
    args = (left,) if b is None else (left, np.array([b], dtype=np.int64))
    with np.errstate(all="ignore"):
        result = getattr(ops, name)(*args)
    return ops.overflowed, result


@settings(max_examples=150, deadline=None)
@given(a=near_limits, b=near_limits)
def test_checked_numpy_add_sub_flag_exactly_on_overflow(a: int, b: int) -> None:
    for name, python in (("add", operator.add), ("sub", operator.sub)):
        exact = python(a, b)
        flagged, result = _checked(name, a, b)
        assert flagged is (not _fits(exact)), (name, a, b)
        if not flagged:
            assert result.tolist() == [exact]


@settings(max_examples=150, deadline=None)
@given(a=near_limits, b=near_limits)
def test_checked_numpy_mul_flags_every_overflow(a: int, b: int) -> None:
    exact = a * b
    flagged, result = _checked("mul", a, b)
    if not _fits(exact):
        assert flagged, (a, b)
    if abs(exact) <= 1 << 61:  # well inside int64: no false alarm (the check is by float)
        assert not flagged, (a, b)
    if not flagged:
        assert result.tolist() == [exact]


@SETTINGS
@given(a=st.integers(-(1 << 31), 1 << 31), b=st.integers(-(1 << 30), 1 << 30))
def test_checked_numpy_mul_silent_when_small(a: int, b: int) -> None:
    flagged, result = _checked("mul", a, b)
    assert not flagged and result.tolist() == [a * b]


@settings(max_examples=100, deadline=None)
@given(a=near_limits)
def test_checked_numpy_neg_flags_exactly_int64_min(a: int) -> None:
    flagged, result = _checked("neg", a)
    assert flagged is (a == INT64_MIN)
    if not flagged:
        assert result.tolist() == [-a]


@settings(max_examples=150, deadline=None)
@given(
    a=st.one_of(near_limits, st.integers(-(1 << 40), 1 << 40)),
    b=st.integers(0, 62),
)
def test_checked_numpy_shl_flags_exactly_on_overflow(a: int, b: int) -> None:
    exact = a << b
    flagged, result = _checked("shl", a, b)
    assert flagged is (not _fits(exact)), (a, b)
    if not flagged:
        assert result.tolist() == [exact]


@pytest.mark.parametrize("a", [1, -1, 3, INT64_MAX, INT64_MIN])
@pytest.mark.parametrize("b", [63, 64, 100, -1, -63])
def test_checked_numpy_shl_flags_out_of_range_amounts(a: int, b: int) -> None:
    # a << 63 overflows for every a here except -1 (whose result is INT64_MIN, a
    # conservative flag), and Python rejects negative shift amounts.
    flagged, _ = _checked("shl", a, b)
    assert flagged


@settings(max_examples=150, deadline=None)
@given(a=near_limits, b=near_limits)
def test_checked_numpy_division(a: int, b: int) -> None:
    for name, python in (("floordiv", operator.floordiv), ("mod", operator.mod)):
        flagged, result = _checked(name, a, b)
        if b == 0:
            assert flagged, (name, a, b)
            continue
        if (a, b) == (INT64_MIN, -1):
            continue  # test_checked_numpy_floordiv_overflow_int64_min_by_minus_one
        exact = python(a, b)
        assert flagged is (not _fits(exact)), (name, a, b)
        if not flagged:
            assert result.tolist() == [exact]


def test_checked_numpy_floordiv_overflow_int64_min_by_minus_one() -> None:
    """INT64_MIN // -1 == 2**63 does not fit in int64: an overflow to flag."""
    flagged, _ = _checked("floordiv", INT64_MIN, -1)
    assert flagged
    flagged, result = _checked("mod", INT64_MIN, -1)
    assert not flagged and result.tolist() == [0]


def test_checked_numpy_division_by_zero_in_array_and_scalars() -> None:
    ops = CheckedNumpyOps()
    result = ops.floordiv(np.array([6, 7, 8]), np.array([3, 0, 2]))
    assert ops.overflowed
    assert result[0] == 2 and result[2] == 4  # the defined lanes are still right
    ops = CheckedNumpyOps()
    ops.mod(ops.const(5), ops.const(0))
    assert ops.overflowed
    ops = CheckedNumpyOps()
    assert ops.floordiv(np.array([-7, 7]), np.array([2, -2])).tolist() == [-4, -4]
    assert ops.mod(np.array([-7, 7]), np.array([2, -2])).tolist() == [1, -1]
    assert not ops.overflowed


def test_checked_numpy_flag_is_sticky_and_vectorized() -> None:
    ops = CheckedNumpyOps()
    ops.add(np.array([1, INT64_MAX]), np.array([1, 1]))  # one lane overflows
    assert ops.overflowed
    ops.add(np.array([1]), np.array([1]))
    assert ops.overflowed  # stays set
    ops = CheckedNumpyOps()
    values = np.array([INT64_MAX - 1, INT64_MIN + 1, 0])
    ops.add(values, np.array([1, -1, 5]))
    ops.sub(values, np.array([-1, 1, 5]))
    ops.mul(np.array([1 << 30, -(1 << 30)]), np.array([1 << 30, 1 << 30]))
    ops.shl(np.array([1, -1]), ops.const(61))
    ops.neg(values)
    ops.invert(values)
    ops.shr(values, ops.const(3))
    assert not ops.overflowed


# ---------------------------------------------------------------------- Z3Ops(checked=True)


def _z3_checked_single(name: str, width: int, a: int, b: int | None) -> tuple[Any, list[Any]]:
    ops = Z3Ops(width, checked=True)
    args = [ops.const(a)] if b is None else [ops.const(a), ops.const(b)]
    result = getattr(ops, name)(*args)
    return result, ops.overflow_conditions


def _in_width(value: int, width: int) -> bool:
    return -(1 << (width - 1)) <= value < (1 << (width - 1))


@st.composite
def width_and_operands(draw: Any) -> tuple[int, int, int]:
    width = draw(st.integers(2, 12))
    values = st.integers(-(1 << (width - 1)), (1 << (width - 1)) - 1)
    return width, draw(values), draw(values)


@settings(max_examples=150, deadline=None)
@given(case=width_and_operands())
def test_z3_checked_conditions_hold_exactly_on_overflow(case: tuple[int, int, int]) -> None:
    width, a, b = case
    for name, python in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul)):
        result, conditions = _z3_checked_single(name, width, a, b)
        overflow = not _in_width(python(a, b), width)
        assert len(conditions) == 1
        assert z3_bool(conditions[0]) is overflow, (name, width, a, b)
        if not overflow:
            assert z3_int(result) == python(a, b)
    result, conditions = _z3_checked_single("neg", width, a, None)
    assert z3_bool(z3.Or(*conditions)) is (not _in_width(-a, width)), ("neg", width, a)
    shift = b % width  # amounts below the width: the condition is exactly "a << s wraps"
    result, conditions = _z3_checked_single("shl", width, a, shift)
    overflow = not _in_width(a << shift, width)
    assert z3_bool(z3.Or(*conditions)) is overflow, ("shl", width, a, shift)
    if not overflow:
        assert z3_int(result) == a << shift


@pytest.mark.parametrize("width", [4, 8, 16])
def test_z3_checked_shl_by_width_or_more_is_flagged(width: int) -> None:
    for a in (1, -1, 3):
        for b in (width, width + 1, 2 * width - 1):
            _, conditions = _z3_checked_single("shl", width, a, b)
            assert z3_bool(z3.Or(*conditions)), (a, b)
    # A negative amount (all ones unsigned) is an error in Python: flagged too.
    _, conditions = _z3_checked_single("shl", width, 1, -1)
    assert z3_bool(z3.Or(*conditions))


def test_z3_unchecked_records_nothing() -> None:
    ops = Z3Ops(8)
    ops.add(ops.const(127), ops.const(1))
    ops.mul(ops.const(127), ops.const(127))
    ops.neg(ops.const(-128))
    ops.shl(ops.const(1), ops.const(9))
    assert ops.overflow_conditions == []


@pytest.mark.parametrize(
    "name, python",
    [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul)],
)
def test_z3_checked_conditions_with_a_solver(name: str, python: Callable[[int, int], int]) -> None:
    """Symbolic operands: a model of the condition really overflows; a safe domain is unsat."""
    width = 10
    ops = Z3Ops(width, checked=True)
    x, y = z3.BitVecs("x y", width)
    getattr(ops, name)(x, y)
    (condition,) = ops.overflow_conditions
    solver = z3.Solver()
    solver.add(condition)
    assert solver.check() == z3.sat
    model = solver.model()
    a = model.eval(x, model_completion=True).as_signed_long()
    b = model.eval(y, model_completion=True).as_signed_long()
    assert not _in_width(python(a, b), width), (a, b)
    # Blocking every real overflow leaves no model: the condition implies overflow.
    wide_x, wide_y = z3.SignExt(width, x), z3.SignExt(width, y)
    wide = {"add": wide_x + wide_y, "sub": wide_x - wide_y, "mul": wide_x * wide_y}[name]
    limit = 1 << (width - 1)
    solver.add(wide >= -limit, wide < limit)
    assert solver.check() == z3.unsat
    # Operands of 4 bits (non-negative) cannot overflow add/sub/mul at 10 bits.
    safe = z3.Solver()
    safe.add(condition, z3.ULT(x, 16), z3.ULT(y, 16))
    assert safe.check() == z3.unsat


def test_z3_checked_floordiv_overflow_is_recorded() -> None:
    """-128 // -1 == 128 does not fit in 8 bits: Z3Ops(checked=True) must record it."""
    result, conditions = _z3_checked_single("floordiv", 8, -128, -1)
    assert z3_int(result) == -128  # wrapped
    assert conditions and z3_bool(z3.Or(*conditions))
    # ... and nothing is recorded where the quotient fits.
    _, conditions = _z3_checked_single("floordiv", 8, -127, -1)
    assert not conditions or not z3_bool(z3.Or(*conditions))
