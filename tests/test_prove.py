"""prove_equal: proofs, refutations with replayed counterexamples, agreement of methods.

Every counterexample the library reports is re-checked here independently: the layout is
evaluated with ``LinearLayout.apply`` and the reference with plain Python ints (formula
texts are valid Python expressions, so they are evaluated with ``eval`` over ints; callables
with :class:`~llverify.ops.IntOps`; layout references with ``apply``).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.strategies import all_inputs, layouts
from llverify import (
    DimensionError,
    FormulaError,
    IntOps,
    LayoutTypeError,
    LinearLayout,
    ProofFailure,
    Verdict,
    prove_equal,
)

METHODS = ("linear", "exhaustive", "z3")
ALL_METHODS = (*METHODS, "auto")

CROSS_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


# ---------------------------------------------------------------------- helpers


def log2(n: int) -> int:
    assert n > 0 and n & (n - 1) == 0, n
    return n.bit_length() - 1


def py_eval(
    reference: Any,
    point: Mapping[str, int],
    params: Mapping[str, int] | None = None,
    out_dims: list[str] | None = None,
) -> dict[str, int]:
    """The reference at one point, computed with exact Python ints (independent of llverify
    for formula texts).  ``out_dims`` names the values of a callable returning a sequence."""
    env = {**(params or {}), **point}
    if isinstance(reference, LinearLayout):
        return reference.apply({d: env[d] for d in reference.get_in_dim_names()})
    if isinstance(reference, Mapping):
        scope = {"__builtins__": {}, "min": min, "max": max}
        return {d: eval(text, scope, dict(env)) for d, text in reference.items()}  # noqa: S307
    assert callable(reference)
    ops = IntOps()
    result = reference(ops, **{k: ops.const(v) for k, v in env.items()})
    if not isinstance(result, Mapping):
        assert out_dims is not None
        result = dict(zip(out_dims, result, strict=True))
    return {d: int(v) for d, v in result.items()}


def check_counterexample(
    verdict: Verdict,
    layout: LinearLayout,
    reference: Any,
    params: Mapping[str, int] | None = None,
) -> None:
    """A refuted verdict's counterexample is real, and actual/expected are its values."""
    assert verdict.status == "refuted", verdict
    assert verdict.refuted and not verdict.proved and not verdict.unknown
    cex = verdict.counterexample
    assert cex is not None
    ins = layout.get_in_dim_names()
    assert set(ins) <= set(cex), (cex, ins)
    for extra in set(cex) - set(ins):  # only parameters, with their given values
        assert params is not None and cex[extra] == params[extra], cex
    point = {d: cex[d] for d in ins}
    for name, size in layout.in_dims:
        assert 0 <= point[name] < size, (point, layout.in_dims)
    actual = layout.apply(point)
    expected = py_eval(reference, point, params, layout.get_out_dim_names())
    assert {d: expected[d] for d in actual} != actual, (verdict, actual, expected)
    assert verdict.actual == actual, (verdict.actual, actual)
    assert verdict.expected == {d: expected[d] for d in actual}, (verdict.expected, expected)


def assert_proved(verdict: Verdict, method: str) -> None:
    assert verdict.status == "proved", str(verdict)
    assert verdict.proved and verdict.counterexample is None
    if method == "auto":
        assert verdict.method in METHODS, verdict.method
    else:
        assert verdict.method == method, verdict.method
    assert verdict.time_s >= 0


def assert_method(verdict: Verdict, method: str) -> None:
    if method == "auto":
        assert verdict.method in METHODS, verdict.method
    else:
        assert verdict.method == method, verdict.method


# ---------------------------------------------------------------------- layouts


def swizzled(vec: int, per_phase: int, max_phase: int, rows: int, cols: int) -> LinearLayout:
    """Triton's swizzled shared layout: offset -> (row, col), col ^= phase(row) * vec."""
    column_bits = [[0, 1 << j] for j in range(log2(cols))]
    row_bits = [
        [1 << i, (vec * (((1 << i) // per_phase) % max_phase)) % cols] for i in range(log2(rows))
    ]
    return LinearLayout.from_bases(
        [("offset", column_bits + row_bits)], ["dim0", "dim1"], [rows, cols]
    )


SWIZZLE_FORMULA = {
    "dim0": "offset >> lc",
    "dim1": "(offset & (C-1)) ^ ((((offset >> lc) >> lp) & (M-1)) << lv) & (C-1)",
}


def swizzle_params(vec: int, per_phase: int, max_phase: int, rows: int, cols: int):
    return {"lc": log2(cols), "lp": log2(per_phase), "lv": log2(vec), "M": max_phase, "C": cols}


def swizzle_literal(vec: int, per_phase: int, max_phase: int, rows: int, cols: int):
    """The closed form with the parameters written in as literals."""
    p = swizzle_params(vec, per_phase, max_phase, rows, cols)
    return {
        "dim0": f"offset >> {p['lc']}",
        "dim1": (
            f"(offset & {cols - 1}) ^ ((((offset >> {p['lc']}) >> {p['lp']}) & {max_phase - 1})"
            f" << {p['lv']}) & {cols - 1}"
        ),
    }


SWIZZLES = [  # (vec, perPhase, maxPhase, rows, cols)
    (8, 1, 8, 64, 64),
    (4, 2, 4, 32, 32),
    (1, 1, 8, 16, 8),
    (2, 4, 8, 128, 32),
    (4, 1, 4, 16, 8),  # vec * maxPhase > cols: the final "& (C-1)" matters
    (16, 1, 4, 16, 64),
    (8, 1, 8, 1 << 14, 64),  # 2**20 offsets: auto cannot just enumerate cheaply
]

# mma.m16n8k16 C fragment for one warp: row = g + 8*((i>>1)&1), col = 2q + (i&1).
MMA_ONE_WARP = LinearLayout.from_bases(
    [
        ("register", [[0, 1], [8, 0]]),
        ("lane", [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]),
    ],
    ["dim0", "dim1"],
)
MMA_ONE_WARP_FORMULA = {
    "dim0": "(lane >> 2) + 8 * ((register >> 1) & 1)",
    "dim1": "2 * (lane & 3) + (register & 1)",
}

# The same fragment repeated along n by a third register bit, 2x2 warps (32 x 32 tile).
MMA = LinearLayout.from_bases(
    [
        ("register", [[0, 1], [8, 0], [0, 8]]),
        ("lane", [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]),
        ("warp", [[16, 0], [0, 16]]),
    ],
    ["dim0", "dim1"],
)
MMA_FORMULA = {
    "dim0": "(lane >> 2) + 8 * ((register >> 1) & 1) + 16 * (warp & 1)",
    "dim1": "2 * (lane & 3) + (register & 1) + 8 * (register >> 2) + 16 * (warp >> 1)",
}

# Blocked: sizePerThread [1, 4], threadsPerWarp [4, 8], warpsPerCTA [2, 2], order [1, 0],
# tensor 16 x 64 (the register repeats along rows).
BLOCKED = LinearLayout.from_bases(
    [
        ("register", [[0, 1], [0, 2], [8, 0]]),
        ("lane", [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]]),
        ("warp", [[0, 32], [4, 0]]),
    ],
    ["dim0", "dim1"],
)
BLOCKED_FORMULA = {
    "dim0": "(lane >> 3) + 4 * (warp >> 1) + 8 * (register >> 2)",
    "dim1": "(register & 3) + 4 * (lane & 7) + 32 * (warp & 1)",
}

# The same blocked layout on a 4 x 64 tensor: the second warp bit is broadcast (zero basis).
BLOCKED_BROADCAST = LinearLayout.from_bases(
    [
        ("register", [[0, 1], [0, 2]]),
        ("lane", [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]]),
        ("warp", [[0, 32], [0, 0]]),
    ],
    ["dim0", "dim1"],
)
BLOCKED_BROADCAST_FORMULA = {
    "dim0": "lane >> 3",
    "dim1": "(register & 3) | ((lane & 7) << 2) | ((warp & 1) << 5)",
}

DISTRIBUTED = {
    "mma_one_warp": (MMA_ONE_WARP, MMA_ONE_WARP_FORMULA),
    "mma": (MMA, MMA_FORMULA),
    "blocked": (BLOCKED, BLOCKED_FORMULA),
    "blocked_broadcast": (BLOCKED_BROADCAST, BLOCKED_BROADCAST_FORMULA),
}


def with_basis(layout: LinearLayout, in_dim: str, pos: int, basis: list[int]) -> LinearLayout:
    """A copy of ``layout`` with one basis vector replaced."""
    bases = [(d, [list(b) for b in bs]) for d, bs in layout.bases]
    for d, bs in bases:
        if d == in_dim:
            bs[pos] = list(basis)
    return LinearLayout.from_bases(
        bases,
        layout.get_out_dim_names(),
        layout.get_out_dim_sizes(),
        require_surjective=False,
    )


# ---------------------------------------------------------------------- positive proofs


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("config", SWIZZLES, ids=lambda c: "v{}p{}m{}_{}x{}".format(*c))
def test_swizzle_closed_form_is_proved_with_params(config, method):
    layout = swizzled(*config)
    verdict = prove_equal(layout, SWIZZLE_FORMULA, method=method, params=swizzle_params(*config))
    assert_proved(verdict, method)


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("config", SWIZZLES[:4], ids=lambda c: "v{}p{}m{}_{}x{}".format(*c))
def test_swizzle_closed_form_is_proved_with_literals(config, method):
    verdict = prove_equal(swizzled(*config), swizzle_literal(*config), method=method)
    assert_proved(verdict, method)


def test_swizzle_closed_form_matches_brute_force():
    """Sanity of the test's own closed form: Python ints agree with apply everywhere."""
    for config in SWIZZLES[:6]:
        layout, params = swizzled(*config), swizzle_params(*config)
        for point in all_inputs(layout):
            assert layout.apply(point) == py_eval(SWIZZLE_FORMULA, point, params)


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("name", sorted(DISTRIBUTED))
def test_distributed_layout_closed_form_is_proved(name, method):
    layout, formula = DISTRIBUTED[name]
    for point in all_inputs(layout):  # the closed form really is the layout
        assert layout.apply(point) == py_eval(formula, point)
    assert_proved(prove_equal(layout, formula, method=method), method)


def test_auto_names_the_method_that_decided():
    small = prove_equal(MMA_ONE_WARP, MMA_ONE_WARP_FORMULA)
    big_config = SWIZZLES[-1]
    big = prove_equal(swizzled(*big_config), SWIZZLE_FORMULA, params=swizzle_params(*big_config))
    for verdict in (small, big):
        assert verdict.proved and verdict.method in METHODS
        assert verdict.method in str(verdict)


# ---------------------------------------------------------------------- negative controls


NEGATIVE_CASES: dict[str, tuple[LinearLayout, dict[str, str], dict[str, int] | None]] = {}


def _negative_cases() -> None:
    config = (8, 1, 8, 64, 64)
    layout, params = swizzled(*config), swizzle_params(*config)
    # One bit of one basis flipped.
    row2 = [4, (8 * 4) % 64 ^ 1]
    NEGATIVE_CASES["bit_flipped_basis"] = (
        with_basis(layout, "offset", 6 + 2, row2),
        SWIZZLE_FORMULA,
        params,
    )
    # Off by one in the row shift: ">> 5" instead of ">> 6".
    NEGATIVE_CASES["off_by_one_shift"] = (
        layout,
        {**swizzle_literal(*config), "dim0": "offset >> 5"},
        None,
    )
    # Swapped lane bits 0 and 1 (col 2 <-> col 4) against the mma closed form.
    lane = [list(b) for b in dict(MMA.bases)["lane"]]
    lane[0], lane[1] = lane[1], lane[0]
    swapped = LinearLayout.from_bases(
        [
            ("register", dict(MMA.bases)["register"]),
            ("lane", lane),
            ("warp", dict(MMA.bases)["warp"]),
        ],
        ["dim0", "dim1"],
    )
    NEGATIVE_CASES["swapped_lane_bits"] = (swapped, MMA_FORMULA, None)
    # Swizzle XORed with the wrong row bits: perPhase ignored (perPhase = 2 here).
    config2 = (4, 2, 4, 32, 32)
    NEGATIVE_CASES["swizzle_wrong_row_bits"] = (
        swizzled(*config2),
        {
            "dim0": "offset >> lc",
            "dim1": "(offset & (C-1)) ^ (((offset >> lc) & (M-1)) << lv) & (C-1)",
        },
        swizzle_params(*config2),
    )
    # Rows of the next phase group: (row >> (lp + 1)) instead of (row >> lp).
    NEGATIVE_CASES["swizzle_row_shift_off_by_one"] = (
        swizzled(*config2),
        {
            "dim0": "offset >> lc",
            "dim1": "(offset & (C-1)) ^ ((((offset >> lc) >> (lp + 1)) & (M-1)) << lv) & (C-1)",
        },
        swizzle_params(*config2),
    )
    # The closed form without the final "& (C-1)" where vec * maxPhase > C.
    config3 = (4, 1, 4, 16, 8)
    assert config3[0] * config3[2] > config3[4]
    NEGATIVE_CASES["swizzle_without_final_mask"] = (
        swizzled(*config3),
        {
            "dim0": "offset >> lc",
            "dim1": "(offset & (C-1)) ^ ((((offset >> lc) >> lp) & (M-1)) << lv)",
        },
        swizzle_params(*config3),
    )
    # Same with literals and a 2**20-offset layout (auto goes through the linear method).
    config4 = (16, 1, 8, 1 << 14, 64)
    NEGATIVE_CASES["big_swizzle_without_final_mask"] = (
        swizzled(*config4),
        {
            "dim0": "offset >> 6",
            "dim1": "(offset & 63) ^ ((((offset >> 6) >> 0) & 7) << 4)",
        },
        None,
    )
    # The blocked layout with a carry-free formula that is wrong in one warp bit.
    NEGATIVE_CASES["blocked_wrong_warp"] = (
        BLOCKED,
        {**BLOCKED_FORMULA, "dim0": "(lane >> 3) + 4 * (warp & 1) + 8 * (register >> 2)"},
        None,
    )
    # Not GF(2)-affine (carries), yet agreeing with the layout on 0 and every basis input:
    # only the affinity check (linear) or a full search can refute it.
    xor_layout = LinearLayout.from_bases([("register", [[1], [2]]), ("lane", [[1], [2]])], ["dim0"])
    NEGATIVE_CASES["carries_agree_on_basis"] = (
        xor_layout,
        {"dim0": "(lane + register) & 3"},
        None,
    )
    identity = LinearLayout.identity_1d(16, "lane", "dim0")
    NEGATIVE_CASES["one_point_off"] = (identity, {"dim0": "lane if lane != 11 else 3"}, None)


_negative_cases()


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("case", sorted(NEGATIVE_CASES))
def test_negative_control_is_refuted_with_a_real_counterexample(case, method):
    layout, reference, params = NEGATIVE_CASES[case]
    verdict = prove_equal(layout, reference, method=method, params=params)
    assert_method(verdict, method)
    check_counterexample(verdict, layout, reference, params)


def test_swizzle_without_final_mask_is_fine_when_it_cannot_overflow():
    """Control for the case above: with vec * maxPhase <= C the mask is redundant."""
    config = (8, 1, 8, 64, 64)
    formula = {
        "dim0": "offset >> lc",
        "dim1": "(offset & (C-1)) ^ ((((offset >> lc) >> lp) & (M-1)) << lv)",
    }
    for method in ALL_METHODS:
        verdict = prove_equal(
            swizzled(*config), formula, method=method, params=swizzle_params(*config)
        )
        assert_proved(verdict, method)


@pytest.mark.parametrize(
    "formula",
    [
        {"dim0": "(lane + register) & 3"},
        {"dim0": "(lane | register)"},
        {"dim0": "(lane * register) ^ lane ^ register"},
        {"dim0": "lane ^ register ^ (1 if lane == 3 and register == 3 else 0)"},
    ],
    ids=["plus", "or", "times", "ite"],
)
def test_non_affine_reference_refuted_by_linear_method(formula):
    layout = NEGATIVE_CASES["carries_agree_on_basis"][0]
    for point in layout.get_in_dim_names():  # agrees on 0 and every basis input
        for i in range(2):
            x = {d: 0 for d in layout.get_in_dim_names()}
            x[point] = 1 << i
            assert layout.apply(x) == py_eval(formula, x)
    verdict = prove_equal(layout, formula, method="linear")
    assert verdict.method == "linear"
    check_counterexample(verdict, layout, formula)


# ---------------------------------------------------------------------- cross-method agreement


def _terms(layout: LinearLayout, out_dim: str) -> list[tuple[str, int, int]]:
    """(in dim, mask, shift) terms whose XOR is the layout's ``out_dim``: input bit i of
    ``d`` reaches output bit k = i + shift, grouped by shift."""
    index = layout.get_out_dim_names().index(out_dim)
    terms = []
    for name, bases in layout.bases:
        by_shift: dict[int, int] = defaultdict(int)
        for i, basis in enumerate(bases):
            value = basis[index]
            for k in range(value.bit_length()):
                if value >> k & 1:
                    by_shift[k - i] |= 1 << i
        terms.extend((name, mask, shift) for shift, mask in sorted(by_shift.items()))
    return terms


def _render(terms: list[tuple[str, int, int]], joins: list[str] | None = None) -> str:
    parts = []
    for name, mask, shift in terms:
        text = f"({name} & {mask})"
        if shift > 0:
            text = f"({text} << {shift})"
        elif shift < 0:
            text = f"({text} >> {-shift})"
        parts.append(text)
    if not parts:
        return "0"
    joins = joins or [" ^ "] * (len(parts) - 1)
    text = parts[0]
    for join, part in zip(joins, parts[1:]):
        text = f"({text}{join}{part})"
    return text


def formulas_of(layout: LinearLayout) -> dict[str, str]:
    return {d: _render(_terms(layout, d)) for d in layout.get_out_dim_names()}


@st.composite
def mutated_reference(draw: Any, layout: LinearLayout) -> dict[str, str]:
    """The layout's own formulas with one mutation in one out dim."""
    outs = layout.get_out_dim_names()
    out = draw(st.sampled_from(outs))
    terms = _terms(layout, out)
    ins = layout.get_in_dim_names()
    kinds = ["xor_const", "add_term"]
    if terms:
        kinds += ["flip_mask", "shift", "rename", "drop"]
    if len(terms) >= 2:
        kinds += ["plus", "or"]
    kind = draw(st.sampled_from(kinds))
    joins = None
    text = None
    if kind == "xor_const":
        text = f"({_render(terms)}) ^ {draw(st.integers(1, 16))}"
    elif kind == "add_term":
        terms.append(
            (draw(st.sampled_from(ins)), draw(st.integers(1, 15)), draw(st.integers(-3, 3)))
        )
    else:
        if kind in ("plus", "or"):
            joins = [" ^ "] * (len(terms) - 1)
            joins[draw(st.integers(0, len(joins) - 1))] = " + " if kind == "plus" else " | "
        else:
            k = draw(st.integers(0, len(terms) - 1))
            name, mask, shift = terms[k]
            if kind == "flip_mask":
                terms[k] = (name, mask ^ (1 << draw(st.integers(0, 3))), shift)
            elif kind == "shift":
                terms[k] = (name, mask, shift + draw(st.sampled_from([-1, 1])))
            elif kind == "rename":
                terms[k] = (draw(st.sampled_from(ins)), mask, shift)
            else:
                del terms[k]
    reference = formulas_of(layout)
    reference[out] = text if text is not None else _render(terms, joins)
    return reference


def brute_force_equal(layout: LinearLayout, reference: Mapping[str, str]) -> bool:
    scope = {"__builtins__": {}}
    code = {d: compile(t, "<formula>", "eval") for d, t in reference.items()}
    for point in all_inputs(layout):
        actual = layout.apply(point)
        for d, c in code.items():
            if eval(c, scope, dict(point)) != actual[d]:  # noqa: S307
                return False
    return True


@CROSS_SETTINGS
@given(layouts(max_in_bits=3))
def test_cross_method_own_formulas_are_proved(layout):
    reference = formulas_of(layout)
    assert brute_force_equal(layout, reference)
    for method in ALL_METHODS:
        assert_proved(prove_equal(layout, reference, method=method), method)


@CROSS_SETTINGS
@given(st.data())
def test_cross_method_mutated_formulas_agree(data):
    layout = data.draw(layouts(max_in_bits=3))
    reference = data.draw(mutated_reference(layout))
    truth = "proved" if brute_force_equal(layout, reference) else "refuted"
    verdicts = {m: prove_equal(layout, reference, method=m) for m in ALL_METHODS}
    statuses = {m: v.status for m, v in verdicts.items()}
    assert set(statuses.values()) == {truth}, (reference, statuses)
    for method, verdict in verdicts.items():
        assert_method(verdict, method)
        if verdict.refuted:
            check_counterexample(verdict, layout, reference)


@CROSS_SETTINGS
@given(st.data())
def test_cross_method_layout_references_agree(data):
    layout = data.draw(layouts(max_in_bits=3))
    if data.draw(st.booleans()):
        other = layout
    else:  # one basis changed (maybe to an equal value)
        sizes = [s for _, s in layout.out_dims]
        name = data.draw(st.sampled_from(layout.get_in_dim_names()))
        count = len(dict(layout.bases)[name])
        if count == 0:
            other = layout
        else:
            pos = data.draw(st.integers(0, count - 1))
            basis = [data.draw(st.integers(0, s - 1)) for s in sizes]
            other = with_basis(layout, name, pos, basis)
    order = data.draw(st.permutations(layout.get_in_dim_names()))
    reference = other.transpose_ins(order)
    truth = "proved" if other == layout else "refuted"
    for method in ALL_METHODS:
        verdict = prove_equal(layout, reference, method=method)
        assert verdict.status == truth, (method, verdict)
        assert_method(verdict, method)
        if verdict.refuted:
            check_counterexample(verdict, layout, reference)


# ---------------------------------------------------------------------- callables, layouts


def mma_callable(ops, register, lane, warp):
    one, two, three = ops.const(1), ops.const(2), ops.const(3)
    g = ops.shr(lane, two, True)
    q = ops.and_(lane, three)
    row = ops.xor(g, ops.shl(ops.and_(ops.shr(register, one, True), one), three))
    row = ops.or_(row, ops.shl(ops.and_(warp, one), ops.const(4)))
    col = ops.xor(ops.shl(q, one), ops.and_(register, one))
    col = ops.xor(col, ops.shl(ops.shr(register, two, True), three))
    col = ops.xor(col, ops.shl(ops.shr(warp, one, True), ops.const(4)))
    return {"dim0": row, "dim1": col}


def swizzle_callable(ops, offset, lc, lp, lv, M, C):  # noqa: N803 - the formula's names
    one = ops.const(1)
    row = ops.shr(offset, lc, True)
    col = ops.and_(offset, ops.sub(C, one))
    phase = ops.and_(ops.shr(row, lp, True), ops.sub(M, one))
    col = ops.and_(ops.xor(col, ops.shl(phase, lv)), ops.sub(C, one))
    return (row, col)  # a sequence, in out-dim order


@pytest.mark.parametrize("method", ALL_METHODS)
def test_callable_references(method):
    assert_proved(prove_equal(MMA, mma_callable, method=method), method)
    config = (4, 2, 4, 32, 32)
    params = swizzle_params(*config)
    verdict = prove_equal(swizzled(*config), swizzle_callable, method=method, params=params)
    assert_proved(verdict, method)
    # The swapped-lane layout is refuted by the callable too.
    swapped = NEGATIVE_CASES["swapped_lane_bits"][0]
    verdict = prove_equal(swapped, mma_callable, method=method)
    check_counterexample(verdict, swapped, mma_callable)
    # And a callable with a wrong parameter.
    wrong = {**params, "lv": params["lv"] + 1}
    verdict = prove_equal(swizzled(*config), swizzle_callable, method=method, params=wrong)
    check_counterexample(verdict, swizzled(*config), swizzle_callable, wrong)


def test_callable_returning_bad_values_is_rejected():
    def missing(ops, offset):
        return {"dim0": offset}

    def scalar(ops, offset):
        return offset

    layout = swizzled(8, 1, 8, 64, 64)
    with pytest.raises(DimensionError):
        prove_equal(layout, missing, method="exhaustive")
    with pytest.raises(LayoutTypeError):
        prove_equal(layout, scalar, method="exhaustive")


def mma_by_products() -> LinearLayout:
    """The MMA layout built another way: out dims (dim1, dim0), a different construction."""
    one = LinearLayout.identity_1d
    return (
        one(2, "register", "dim1")
        * one(4, "lane", "dim1")
        * one(8, "lane", "dim0")
        * one(2, "register", "dim0")
        * one(2, "register", "dim1")
        * one(2, "warp", "dim0")
        * one(2, "warp", "dim1")
    )


@pytest.mark.parametrize("method", ALL_METHODS)
def test_layout_reference_equal_and_one_basis_off(method):
    reference = mma_by_products()
    assert reference.get_out_dim_names() == ["dim1", "dim0"]
    assert_proved(prove_equal(MMA, reference, method=method), method)
    reordered = reference.transpose_ins(["warp", "lane", "register"])
    assert_proved(prove_equal(MMA, reordered, method=method), method)
    # One basis differs: lane bit 3 -> (dim1=0, dim0=4) becomes (dim1=1, dim0=2).
    bases = dict(reference.bases)
    assert bases["lane"][3] == [0, 2]
    off = with_basis(reference, "lane", 3, [1, 2])
    verdict = prove_equal(MMA, off, method=method)
    check_counterexample(verdict, MMA, off)
    # The counterexample must set lane bit 3 (the only difference).
    assert verdict.counterexample is not None and verdict.counterexample["lane"] >> 3 & 1


@pytest.mark.parametrize("method", ALL_METHODS)
def test_layout_reference_with_out_dims_in_another_order(method):
    other_outs = MMA_ONE_WARP.transpose_outs(["dim1", "dim0"])
    assert_proved(prove_equal(MMA_ONE_WARP, other_outs, method=method), method)


def test_layout_reference_with_other_dims_is_rejected():
    other_sizes = LinearLayout.from_bases(
        [("register", [[0, 1], [8, 0]]), ("lane", [[0, 2], [0, 4], [1, 0], [2, 0]])],
        ["dim0", "dim1"],
        [16, 8],
        require_surjective=False,
    )
    with pytest.raises(DimensionError):
        prove_equal(MMA_ONE_WARP, other_sizes)
    renamed = LinearLayout.from_bases([(d, bs) for d, bs in MMA_ONE_WARP.bases], ["dim0", "dim2"])
    with pytest.raises(DimensionError):
        prove_equal(MMA_ONE_WARP, renamed)


# ---------------------------------------------------------------------- params and errors


def test_params_are_used_and_checked():
    config = (8, 1, 8, 64, 64)
    layout, params = swizzled(*config), swizzle_params(*config)
    assert prove_equal(layout, SWIZZLE_FORMULA, params=params).proved
    # The same formula with other parameter values describes another layout.
    wrong = {**params, "lv": 2}
    verdict = prove_equal(layout, SWIZZLE_FORMULA, params=wrong, method="z3")
    check_counterexample(verdict, layout, SWIZZLE_FORMULA, wrong)
    # Missing parameter: an unknown variable, named in the error.
    with pytest.raises(FormulaError, match="lv"):
        prove_equal(layout, SWIZZLE_FORMULA, params={k: v for k, v in params.items() if k != "lv"})
    # A parameter that shadows an in dim.
    with pytest.raises(DimensionError):
        prove_equal(layout, SWIZZLE_FORMULA, params={**params, "offset": 3})
    # A parameter that is not an int.
    with pytest.raises(LayoutTypeError):
        prove_equal(layout, SWIZZLE_FORMULA, params={**params, "lv": 3.0})
    with pytest.raises(LayoutTypeError):
        prove_equal(layout, SWIZZLE_FORMULA, params={**params, "lv": True})


@pytest.mark.parametrize("method", ALL_METHODS)
def test_unknown_variable_is_a_formula_error_naming_it(method):
    with pytest.raises(FormulaError) as error:
        prove_equal(MMA, {**MMA_FORMULA, "dim1": "lanes & 3"}, method=method)
    assert "lanes" in str(error.value)
    assert error.value.text == "lanes & 3"


def test_out_dim_mismatch_is_a_dimension_error():
    with pytest.raises(DimensionError):
        prove_equal(MMA, {"dim0": MMA_FORMULA["dim0"]})
    with pytest.raises(DimensionError):
        prove_equal(MMA, {**MMA_FORMULA, "dim2": "0"})
    with pytest.raises(DimensionError):
        prove_equal(MMA, {"dim0": MMA_FORMULA["dim0"], "dim2": MMA_FORMULA["dim1"]})


@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "smt"},
        {"method": "Z3"},
        {"method": None},
        {"timeout_ms": 2.5},
        {"timeout_ms": "100"},
    ],
)
def test_bad_method_or_timeout_is_a_type_error(kwargs):
    with pytest.raises(TypeError) as error:
        prove_equal(MMA, MMA_FORMULA, **kwargs)
    assert isinstance(error.value, LayoutTypeError)


@pytest.mark.parametrize("timeout_ms", [0, -5, 10**12])
def test_timeout_out_of_range_is_a_value_error(timeout_ms):
    with pytest.raises(ValueError, match="Argument 'timeout_ms'"):
        prove_equal(MMA, MMA_FORMULA, timeout_ms=timeout_ms)


def test_negative_max_exhaustive_is_a_value_error():
    with pytest.raises(ValueError, match="Argument 'max_exhaustive' must be an int >= 0"):
        prove_equal(MMA, MMA_FORMULA, max_exhaustive=-1)


def test_rejected_formula_text_names_its_out_dim():
    reference = {**MMA_FORMULA, "dim0": "(" * 6000 + "lane" + ")" * 6000}
    with pytest.raises(FormulaError, match="formula for 'dim0': formula rejected"):
        prove_equal(MMA, reference)


def test_bad_reference_or_layout_is_a_type_error():
    with pytest.raises(LayoutTypeError):
        prove_equal(MMA, 42)
    with pytest.raises(LayoutTypeError):
        prove_equal(MMA_FORMULA, MMA)


# ---------------------------------------------------------------------- unknown


def _forty_bit_layout() -> LinearLayout:
    return LinearLayout.from_bases(
        [
            ("register", [[1 << i, 0] for i in range(10)]),
            ("lane", [[1 << (10 + i), 0] for i in range(10)]),
            ("warp", [[0, 1 << i] for i in range(10)]),
            ("block", [[0, 1 << (10 + i)] for i in range(10)]),
        ],
        ["dim0", "dim1"],
    )


# True for every input ((a * b) // b == a), but hard for a bit-vector solver.
HARD_REFERENCE = {
    "dim0": "((register * (lane + 1)) // (lane + 1)) ^ (lane << 10)",
    "dim1": "((warp * (block + 1)) // (block + 1)) ^ (block << 10)",
}


def test_hard_query_under_tiny_timeout_is_unknown():
    layout = _forty_bit_layout()
    assert layout.get_total_in_dim_size_log2() == 40
    start = time.perf_counter()
    verdict = prove_equal(layout, HARD_REFERENCE, method="z3", timeout_ms=1)
    assert time.perf_counter() - start < 5
    assert verdict.status == "unknown", str(verdict)
    assert verdict.unknown and not verdict.proved and verdict.counterexample is None
    assert verdict.method == "z3"
    assert "z3" in verdict.reason.lower() or "solver" in verdict.reason.lower()
    with pytest.raises(ProofFailure):
        verdict.assert_proved()


@pytest.mark.parametrize("method", ["linear", "auto"])
def test_hard_query_never_proved_by_other_methods_under_tiny_timeout(method):
    """The linear method must prove affinity with z3 first; it cannot within 1 ms."""
    verdict = prove_equal(
        _forty_bit_layout(), HARD_REFERENCE, method=method, timeout_ms=1, max_exhaustive=1 << 10
    )
    assert verdict.status == "unknown", str(verdict)
    assert "z3" in verdict.reason.lower()


def wraps_to_equal(ops, lane):
    """(lane << 60) >> 60 == lane on integers, but not in 64-bit two's complement."""
    return {"dim0": ops.shr(ops.shl(lane, ops.const(60)), ops.const(60))}


def wrap_hides_difference(ops, lane):
    """lane + 2**64: differs from lane everywhere, equal to it modulo 2**64."""
    return {"dim0": ops.add(lane, ops.shl(ops.const(1), ops.const(64)))}


def product_hides_difference(ops, lane):
    """lane + 2**32 * 2**32: the multiplication wraps to 0 at 64 bits."""
    big = ops.const(1 << 32)
    return {"dim0": ops.add(lane, ops.mul(big, big))}


@pytest.mark.parametrize(
    "reference", [wraps_to_equal, wrap_hides_difference, product_hides_difference]
)
def test_overflowing_callable_is_never_proved_by_z3(reference):
    layout = LinearLayout.identity_1d(16, "lane", "dim0")
    verdict = prove_equal(layout, reference, method="z3")
    assert verdict.status in ("unknown", "refuted"), str(verdict)
    if verdict.refuted:
        check_counterexample(verdict, layout, reference)


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("reference", [wrap_hides_difference, product_hides_difference])
def test_overflow_hiding_a_difference_is_never_proved(reference, method):
    layout = LinearLayout.identity_1d(16, "lane", "dim0")
    verdict = prove_equal(layout, reference, method=method)
    assert verdict.status in ("unknown", "refuted"), str(verdict)
    if verdict.refuted:
        check_counterexample(verdict, layout, reference)


# ---------------------------------------------------------------------- verdict data


def test_verdict_text_shows_counterexample_and_reference_values():
    layout = LinearLayout.from_bases(
        [("register", [[1, 0], [2, 0]]), ("lane", [[0, 1]])], ["dim0", "dim1"]
    )
    reference = {"dim0": "register if register != 3 else 0", "dim1": "lane"}
    for method in ALL_METHODS:
        verdict = prove_equal(layout, reference, method=method)
        check_counterexample(verdict, layout, reference)
        assert verdict.counterexample is not None
        assert verdict.counterexample["register"] == 3
        text = str(verdict)
        lane = verdict.counterexample["lane"]
        assert text.startswith(f"refuted by {verdict.method} in ")
        assert f"register=3, lane={lane}" in text
        assert f"-> (3, {lane}), reference says (0, {lane})" in text
        assert "reference says" in text


def test_verdict_assert_proved_and_to_dict():
    layout, reference, params = NEGATIVE_CASES["swizzle_without_final_mask"]
    refuted = prove_equal(layout, reference, params=params)
    with pytest.raises(ProofFailure) as error:
        refuted.assert_proved()
    assert isinstance(error.value, AssertionError)
    assert error.value.verdict is refuted
    assert "reference says" in str(error.value)
    with pytest.raises(AssertionError):
        refuted.assert_proved()

    proved = prove_equal(MMA, MMA_FORMULA, method="z3")
    assert proved.assert_proved() is proved

    for verdict in (refuted, proved):
        data = verdict.to_dict()
        assert set(data) == {
            "status",
            "claim",
            "method",
            "time_s",
            "counterexample",
            "actual",
            "expected",
            "reason",
            "details",
        }
        assert Verdict(**data) == verdict
        assert Verdict(**json.loads(json.dumps(data))) == verdict
        for key, value in data.items():
            assert getattr(verdict, key) == value
    assert refuted.to_dict()["counterexample"] == refuted.counterexample
    assert proved.to_dict()["details"]["width"] >= 2


def test_verdict_constructed_by_hand():
    verdict = Verdict(
        "refuted",
        "layout == reference",
        "z3",
        0.002,
        {"register": 3, "lane": 17},
        {"dim0": 5, "dim1": 12},
        {"dim0": 5, "dim1": 4},
    )
    assert (
        str(verdict)
        == "refuted by z3 in 2.0 ms: register=3, lane=17 -> (5, 12), reference says (5, 4)"
    )
    with pytest.raises(ValueError):
        Verdict("refuted", "claim", "z3", 0.0)
    with pytest.raises(ValueError):
        Verdict("maybe", "claim", "z3", 0.0)
