"""llverify.smt.solver: the one time-limited check, in the solver's words and as a Status."""

from __future__ import annotations

import pytest
import z3

from llverify.proof.verdict import Status
from llverify.smt.solver import check, decide, decide_smtlib, model_value, smtlib

X, Y = z3.BitVecs("x y", 32)
#: Factoring a 64-bit semiprime: far beyond a resource limit of 1.
HARD = [
    z3.ZeroExt(32, X) * z3.ZeroExt(32, Y) == 0xFFFFFFFB * 0xFFFFFFBF,
    z3.UGT(X, 1),
    z3.UGT(Y, 1),
]


def test_sat_with_a_model() -> None:
    result = check([X + 1 == 10], 10_000)
    assert result.status == "sat" and result.reason == ""
    assert model_value(result.model, X) == 9 and result.time_s >= 0


def test_unsat() -> None:
    result = check([X * 2 == 3], 10_000)
    assert (result.status, result.model) == ("unsat", None)


def test_unknown_under_a_tiny_resource_limit() -> None:
    result = check(HARD, 10_000, rlimit=1)
    assert result.status == "unknown" and result.model is None
    assert result.reason  # z3's reason, e.g. "max. resource limit exceeded"


def test_unknown_under_a_tiny_timeout() -> None:
    result = check(HARD, 1)
    assert result.status == "unknown" and result.model is None and result.reason


def test_decide_answers_in_status_terms() -> None:
    proved = decide([(X & Y) == 0, X + Y != X ^ Y], 10_000)
    assert proved.status is Status.PROVED and proved.model is None
    refuted = decide([X + Y != X ^ Y], 10_000)
    assert refuted.status is Status.REFUTED
    x, y = model_value(refuted.model, X), model_value(refuted.model, Y)
    assert (x + y) % 2**32 != x ^ y  # the model is a real violation
    unknown = decide(HARD, 10_000, rlimit=1)
    assert unknown.status is Status.UNKNOWN and unknown.model is None and unknown.reason


def test_general_solver_keeps_other_theories_sound() -> None:
    # an integer term next to bit-vectors: the general solver decides it (a QF_BV solver
    # would not know integer arithmetic)
    i = z3.Int("i")
    assert check([2 * i == 3], 10_000).status == "unsat"
    assert decide([z3.BV2Int(X) == i, i > 2**32], 10_000).status is Status.PROVED


def test_model_value_of_a_free_variable_is_zero() -> None:
    model = check([X == 5], 10_000).model
    assert (model_value(model, X), model_value(model, Y)) == (5, 0)


def test_smtlib_text_round_trips() -> None:
    text = smtlib([X * 2 == 3])
    assert "(check-sat)" in text and "declare-fun x" in text
    assert decide_smtlib(text, 10_000).status is Status.PROVED
    assert decide_smtlib(smtlib([X == 3]), 10_000).status is Status.REFUTED
    assert decide_smtlib(smtlib(HARD), 10_000, rlimit=1).status is Status.UNKNOWN


def test_decide_smtlib_rejects_bad_text() -> None:
    with pytest.raises(ValueError, match="text"):
        decide_smtlib("(assert (= x", 1000)


def test_queries_in_a_context_of_their_own() -> None:
    """Constraints built in a ``z3.Context()`` are checked, decided and written in that
    context; ``decide_smtlib`` solves in a fresh one unless given one (then the model is
    read with that context's variables), with a seed for retries."""
    ctx = z3.Context()
    a = z3.BitVec("a", 8, ctx)
    result = check([a * 3 == 7], 10_000, logic="QF_BV")
    assert result.status == "sat" and model_value(result.model, a) * 3 % 256 == 7
    assert result.model.ctx is ctx
    assert decide([a * 2 == 3], 10_000).status is Status.PROVED
    text = smtlib([a * 3 == 7])
    for seed in (0, 1):
        found = decide_smtlib(text, 10_000, logic="QF_BV", ctx=ctx, seed=seed)
        assert found.status is Status.REFUTED and model_value(found.model, a) * 3 % 256 == 7
    fresh = decide_smtlib(text, 10_000)
    assert fresh.status is Status.REFUTED and fresh.model.ctx not in (ctx, z3.main_ctx())
    with pytest.raises(ValueError, match="constraints"):  # one query, one context
        check([a == 1, X == 1], 10_000)
