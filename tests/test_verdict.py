"""llverify.proof.verdict: the Status vocabulary (values, str behaviour, ranks, weakest, holds) and
Verdict (built from a str or a Status, refuted needs a counterexample, bad statuses named in
the error, timed by its clock, str() and to_dict, assert_proved and ProofFailure)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llverify.errors import LLVerifyError
from llverify.proof.verdict import VERDICT_STATUSES, ProofFailure, Status, Verdict

WORDS = {"proved", "refuted", "unknown", "bound", "error"}

# ---------------------------------------------------------------------- Status


def test_status_values_are_the_words_users_read() -> None:
    assert {s.value for s in Status} == WORDS
    for status in Status:
        assert status == status.value and isinstance(status, str)
        assert Status(status.value) is status
        assert str(status) == f"{status}" == status.value
        assert json.dumps(status) == json.dumps(status.value)
        assert {status.value: 1}[status] == 1  # hashes as its word
    assert set(VERDICT_STATUSES) == {Status.PROVED, Status.REFUTED, Status.UNKNOWN}


@pytest.mark.parametrize("word", ["Proved", "PROVED", "sat", "unsat", "timeout", ""])
def test_status_rejects_other_words(word: str) -> None:
    with pytest.raises(ValueError, match=repr(word)):
        Status(word)


def test_status_ranks_order_the_outcomes() -> None:
    order = [Status.ERROR, Status.REFUTED, Status.UNKNOWN, Status.PROVED]
    assert [s.rank for s in order] == sorted(s.rank for s in order)
    assert len({s.rank for s in order}) == len(order)
    assert Status.BOUND.rank == Status.PROVED.rank  # a bound certifies as a proof does


def test_holds_only_for_proved_and_bound() -> None:
    assert {s for s in Status if s.holds} == {Status.PROVED, Status.BOUND}


@given(st.lists(st.sampled_from(list(Status))), st.booleans())
def test_weakest_has_the_lowest_rank(statuses: list[Status], as_words: bool) -> None:
    given_ = [s.value for s in statuses] if as_words else statuses
    weakest = Status.weakest(given_)
    assert isinstance(weakest, Status)
    if not statuses:
        assert weakest is Status.PROVED  # the empty conjunction holds
        return
    assert weakest in statuses
    assert weakest.rank == min(s.rank for s in statuses)
    assert weakest.holds == all(s.holds for s in statuses)


def test_weakest_examples_and_bad_words() -> None:
    assert Status.weakest([]) is Status.PROVED
    assert Status.weakest(["proved", "unknown", "refuted"]) is Status.REFUTED
    assert Status.weakest(iter([Status.UNKNOWN, Status.ERROR])) is Status.ERROR
    assert Status.weakest([Status.BOUND]) is Status.BOUND
    with pytest.raises(ValueError, match="'maybe'"):
        Status.weakest(["proved", "maybe"])


# ---------------------------------------------------------------------- Verdict


def _verdict(status: Any, **kwargs: Any) -> Verdict:
    if status in ("refuted", Status.REFUTED):
        kwargs.setdefault("counterexample", {"lane": 3})
    return Verdict(status, "layout == reference", "z3", 0.0015, **kwargs)


@pytest.mark.parametrize("status", VERDICT_STATUSES)
@pytest.mark.parametrize("as_word", [True, False])
def test_verdict_from_word_or_status(status: Status, as_word: bool) -> None:
    v = _verdict(status.value if as_word else status)
    assert v.status is status and type(v.status) is Status
    assert (v.proved, v.refuted, v.unknown) == (
        status is Status.PROVED,
        status is Status.REFUTED,
        status is Status.UNKNOWN,
    )


@pytest.mark.parametrize(
    "bad", ["bound", "error", Status.BOUND, Status.ERROR, "PROVED", "sat", "", None, 1, True]
)
def test_bad_status_names_the_argument_and_the_value(bad: Any) -> None:
    with pytest.raises(ValueError) as info:
        Verdict(bad, "claim", "z3", 0.0)
    message = str(info.value)
    assert "'status'" in message and repr(bad) in message
    assert "proved, refuted, unknown" in message  # what was expected


def test_refuted_needs_a_counterexample() -> None:
    with pytest.raises(ValueError, match="counterexample"):
        Verdict("refuted", "claim", "z3", 0.0)
    with pytest.raises(ValueError, match="counterexample"):
        Verdict(Status.REFUTED, "claim", "z3", 0.0, reason="no point")
    assert Verdict("refuted", "claim", "z3", 0.0, counterexample={}).refuted  # the empty point


def test_timed_stamps_the_time_since_the_clock_started(monkeypatch: pytest.MonkeyPatch) -> None:
    now = iter([10.0, 10.25, 11.0])
    with monkeypatch.context() as patch:
        patch.setattr("llverify.proof.verdict.time.perf_counter", lambda: next(now))
        clock = Verdict.timed()
        assert clock.seconds == 0.25
        v = clock.verdict(
            Status.REFUTED, "claim", "gf2", {"lane": 1}, {"dim0": 1}, {"dim0": 0}, "why", {"n": 1}
        )
    assert v == Verdict("refuted", "claim", "gf2", 1.0, {"lane": 1}, {"dim0": 1}, {"dim0": 0},
                        "why", {"n": 1})  # fmt: skip
    assert Verdict.timed().verdict(Status.PROVED, "claim", "gf2").details == {}
    with pytest.raises(ValueError, match="counterexample"):  # checked as any verdict
        Verdict.timed().verdict(Status.REFUTED, "claim", "gf2")


def test_verdict_is_frozen() -> None:
    v = _verdict("proved")
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.status = Status.REFUTED  # type: ignore[misc]


def test_str() -> None:
    assert str(_verdict("proved")) == "proved by z3 in 1.5 ms"
    assert str(_verdict("unknown", reason="solver timeout")) == (
        "unknown by z3 in 1.5 ms: solver timeout"
    )
    assert str(_verdict("refuted")) == "refuted by z3 in 1.5 ms: lane=3"
    refuted = _verdict(
        "refuted",
        counterexample={"register": 3, "lane": 17},
        actual={"dim0": 5, "dim1": 12},
        expected={"dim0": 5, "dim1": 4},
        reason="overflow",
    )
    assert str(refuted) == (
        "refuted by z3 in 1.5 ms: register=3, lane=17 -> (5, 12), reference says (5, 4) (overflow)"
    )
    one = _verdict("refuted", actual={"offset": 7}, expected={"offset": 6})
    assert str(one) == "refuted by z3 in 1.5 ms: lane=3 -> 7, reference says 6"


verdicts = st.builds(
    Verdict,
    status=st.sampled_from([*VERDICT_STATUSES, *(s.value for s in VERDICT_STATUSES)]),
    claim=st.text(max_size=20),
    method=st.sampled_from(["gf2", "linear", "exhaustive", "z3"]),
    time_s=st.floats(0, 10, allow_nan=False),
    counterexample=st.dictionaries(st.sampled_from(["register", "lane", "warp"]), st.integers()),
    actual=st.none() | st.dictionaries(st.sampled_from(["dim0", "dim1"]), st.integers()),
    expected=st.none() | st.dictionaries(st.sampled_from(["dim0", "dim1"]), st.integers()),
    reason=st.text(max_size=20),
    details=st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5)),
)


@given(verdicts)
def test_to_dict_is_json_and_rebuilds_the_verdict(v: Verdict) -> None:
    data = v.to_dict()
    assert {f.name for f in dataclasses.fields(Verdict)} == set(data)
    assert type(data["status"]) is str and data["status"] == v.status.value
    assert Verdict(**json.loads(json.dumps(data))) == v
    assert str(v).startswith(f"{v.status.value} by {v.method} in ")


@given(verdicts)
def test_assert_proved(v: Verdict) -> None:
    if v.proved:
        assert v.assert_proved() is v
        return
    with pytest.raises(ProofFailure) as info:
        v.assert_proved()
    assert info.value.verdict is v
    assert str(info.value) == str(v)


def test_proof_failure_is_an_assertion_and_an_llverify_error() -> None:
    assert issubclass(ProofFailure, AssertionError)
    assert issubclass(ProofFailure, LLVerifyError)
    with pytest.raises(AssertionError, match="unknown by z3"):
        _verdict("unknown").assert_proved()
