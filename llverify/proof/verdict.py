"""Verdicts: the outcome of a proof attempt, as data (proved, refuted, unknown)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from llverify.errors import LLVerifyError


class Status(str, Enum):
    """What a check found: the one status vocabulary of llverify.

    A ``Status`` is also a ``str`` (``Status.PROVED == "proved"``), so JSON output, spec-file
    records and ``--json`` keep the words users read.  The three verdicts:

    * ``PROVED``: a proof went through (over what, the verdict's claim says);
    * ``REFUTED``: a counterexample was found and replayed concretely;
    * ``UNKNOWN``: no decision (solver timeout or "unknown", resource limit, unmodelled case).
      Never a pass.

    Two documented extensions, never produced by a proof method:

    * ``BOUND`` (swizzle certificates only): the result meets a lower bound that holds for
      every layout, so optimality needed no solver query.  Counts as proved.
    * ``ERROR`` (spec outcomes, audit findings, the CLI): the obligation could not be built or
      its input was refused; there is no verdict.

    Examples:
        >>> Status.PROVED == "proved", str(Status.REFUTED), Status("unknown")
        (True, 'refuted', <Status.UNKNOWN: 'unknown'>)
        >>> Status.weakest([Status.PROVED, Status.UNKNOWN, Status.PROVED])
        <Status.UNKNOWN: 'unknown'>
        >>> Status.BOUND.holds, Status.UNKNOWN.holds
        (True, False)
    """

    PROVED = "proved"
    REFUTED = "refuted"
    UNKNOWN = "unknown"
    BOUND = "bound"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value

    @property
    def holds(self) -> bool:
        """True for a claim that was established (proved, or certified by a bound)."""
        return self in (Status.PROVED, Status.BOUND)

    @property
    def rank(self) -> int:
        """Order for combining: ERROR < REFUTED < UNKNOWN < BOUND, PROVED."""
        return _RANK[self]

    @classmethod
    def weakest(cls, statuses: Iterable[Status | str]) -> Status:
        """The status of a conjunction of claims: the lowest :attr:`rank` (PROVED if empty)."""
        return min((cls(s) for s in statuses), key=_RANK.__getitem__, default=cls.PROVED)


_RANK = {Status.ERROR: 0, Status.REFUTED: 1, Status.UNKNOWN: 2, Status.BOUND: 3, Status.PROVED: 3}

#: The statuses a :class:`Verdict` may have.
VERDICT_STATUSES = (Status.PROVED, Status.REFUTED, Status.UNKNOWN)


class ProofFailure(LLVerifyError, AssertionError):  # noqa: N818 - the name says what failed
    """Raised by :meth:`Verdict.assert_proved` when a verdict is not "proved"."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        super().__init__(str(verdict))


def _format_point(point: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items())


def _format_values(values: Mapping[str, int]) -> str:
    items = list(values.values())
    return f"({', '.join(map(str, items))})" if len(items) != 1 else str(items[0])


@dataclass(frozen=True)
class Verdict:
    """The result of checking one claim.

    Attributes:
        status: :attr:`Status.PROVED`, ``REFUTED`` or ``UNKNOWN`` (a plain string is accepted).
        claim: what was checked, in words.
        method: how it was decided ("gf2", "linear", "exhaustive", "z3", ...).
        time_s: wall time spent.
        counterexample: for "refuted": the inputs (in dim, and parameter, -> int) where the
            claim fails; replayed concretely before the verdict was returned.
        actual / expected: the layout's and the reference's outputs there.
        reason: for "unknown", why (solver timeout, resource limit, ...); otherwise a note.
        details: extra data (solver statistics, the query size, ...).

    Examples:
        >>> v = Verdict("refuted", "layout == reference", "z3", 0.002, {"register": 3, "lane": 17},
        ...             {"dim0": 5, "dim1": 12}, {"dim0": 5, "dim1": 4})
        >>> print(v)
        refuted by z3 in 2.0 ms: register=3, lane=17 -> (5, 12), reference says (5, 4)
    """

    status: Status
    claim: str
    method: str
    time_s: float
    counterexample: dict[str, int] | None = None
    actual: dict[str, int] | None = None
    expected: dict[str, int] | None = None
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def timed() -> VerdictClock:
        """Start timing a check: the clock's :meth:`~VerdictClock.verdict` takes the fields
        of a verdict but ``time_s``, which is the wall time since this call.

        Examples:
            >>> clock = Verdict.timed()
            >>> verdict = clock.verdict(Status.PROVED, "1 + 1 == 2", "arithmetic", reason="by hand")
            >>> verdict.proved, verdict.time_s >= 0, verdict.reason
            (True, True, 'by hand')
        """
        return VerdictClock()

    def __post_init__(self) -> None:
        if self.status not in VERDICT_STATUSES:
            raise ValueError(
                f"Argument 'status' of Verdict must be one of proved, refuted, unknown, "
                f"not {self.status!r}."
            )
        object.__setattr__(self, "status", Status(self.status))
        if self.status is Status.REFUTED and self.counterexample is None:
            raise ValueError("a refuted Verdict needs a counterexample.")

    @property
    def proved(self) -> bool:
        """True only for a proof that went through."""
        return self.status is Status.PROVED

    @property
    def refuted(self) -> bool:
        return self.status is Status.REFUTED

    @property
    def unknown(self) -> bool:
        return self.status is Status.UNKNOWN

    def assert_proved(self) -> Verdict:
        """Return self if proved, else raise :class:`ProofFailure`."""
        if not self.proved:
            raise ProofFailure(self)
        return self

    def __str__(self) -> str:
        head = f"{self.status} by {self.method} in {self.time_s * 1000:.1f} ms"
        if self.status is Status.REFUTED and self.counterexample is not None:
            text = f"{head}: {_format_point(self.counterexample)}"
            if self.actual is not None and self.expected is not None:
                text += (
                    f" -> {_format_values(self.actual)}, reference says "
                    f"{_format_values(self.expected)}"
                )
            return text + (f" ({self.reason})" if self.reason else "")
        return f"{head}: {self.reason}" if self.reason else head

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "status": self.status.value,
            "claim": self.claim,
            "method": self.method,
            "time_s": self.time_s,
            "counterexample": self.counterexample,
            "actual": self.actual,
            "expected": self.expected,
            "reason": self.reason,
            "details": self.details,
        }


class VerdictClock:
    """A clock started by :meth:`Verdict.timed`; :meth:`verdict` stamps the time spent."""

    __slots__ = ("start",)

    def __init__(self) -> None:
        self.start = time.perf_counter()

    @property
    def seconds(self) -> float:
        """Wall time since the clock started."""
        return time.perf_counter() - self.start

    def verdict(
        self,
        status: Status,
        claim: str,
        method: str,
        counterexample: dict[str, int] | None = None,
        actual: dict[str, int] | None = None,
        expected: dict[str, int] | None = None,
        reason: str = "",
        details: dict[str, Any] | None = None,
    ) -> Verdict:
        """A :class:`Verdict` of these fields whose ``time_s`` is :attr:`seconds`."""
        return Verdict(
            status,
            claim,
            method,
            self.seconds,
            counterexample,
            actual,
            expected,
            reason,
            {} if details is None else details,
        )
