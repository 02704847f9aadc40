"""Verdicts: the outcome of a proof attempt, as data (proved, refuted, unknown)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from llverify.errors import LLVerifyError


class Status(IntEnum):
    """Ordered so that combining verdicts is ``min``: REFUTED < UNKNOWN < PROVED."""

    REFUTED = 0
    UNKNOWN = 1
    PROVED = 2

    def __str__(self) -> str:
        return self.name.lower()


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
        status: "proved", "refuted" or "unknown" (see :attr:`level` for ordering).
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

    status: str
    claim: str
    method: str
    time_s: float
    counterexample: dict[str, int] | None = None
    actual: dict[str, int] | None = None
    expected: dict[str, int] | None = None
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in ("proved", "refuted", "unknown"):
            raise ValueError(f"Verdict status must be proved/refuted/unknown, not {self.status!r}.")
        if self.status == "refuted" and self.counterexample is None:
            raise ValueError("a refuted Verdict needs a counterexample.")

    @property
    def level(self) -> Status:
        """The status as an ordered enum."""
        return Status[self.status.upper()]

    @property
    def proved(self) -> bool:
        """True only for a proof that went through."""
        return self.status == "proved"

    @property
    def refuted(self) -> bool:
        return self.status == "refuted"

    @property
    def unknown(self) -> bool:
        return self.status == "unknown"

    def assert_proved(self) -> Verdict:
        """Return self if proved, else raise :class:`ProofFailure`."""
        if not self.proved:
            raise ProofFailure(self)
        return self

    def __str__(self) -> str:
        head = f"{self.status} by {self.method} in {self.time_s * 1000:.1f} ms"
        if self.status == "refuted" and self.counterexample is not None:
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
            "status": self.status,
            "claim": self.claim,
            "method": self.method,
            "time_s": self.time_s,
            "counterexample": self.counterexample,
            "actual": self.actual,
            "expected": self.expected,
            "reason": self.reason,
            "details": self.details,
        }
