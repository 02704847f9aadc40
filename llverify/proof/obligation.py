"""The one obligation type: a named claim, how to build its subject, its reference, the verdict
expected and where it comes from; spec modules and spec files both produce it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from llverify.errors import LayoutError, LayoutTypeError
from llverify.proof.verdict import Status

__all__ = ["EXPECTS", "Call", "Decide", "Obligation", "Ruling"]

#: What an obligation may expect: a proof, or (a negative control) a refutation.
EXPECTS = (Status.PROVED, Status.REFUTED)


class Call(partial):
    """A ``functools.partial`` that compares by its function and arguments, so that
    obligations built from one (and their pickled copies) compare equal.

    Examples:
        >>> import pickle
        >>> call = Call(divmod, 7)
        >>> call(2), pickle.loads(pickle.dumps(call)) == call, call == Call(divmod, 8)
        ((3, 1), True, False)
    """

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Call)
        mine = (self.func, self.args, self.keywords)
        return mine == (other.func, other.args, other.keywords)

    def __hash__(self) -> int:
        return hash(self.func)


@dataclass(frozen=True)
class Ruling:
    """What deciding an obligation found (what a :data:`Decide` gives).

    Attributes:
        status: PROVED, REFUTED, UNKNOWN (a solver ran out of time or resources) or ERROR
            (a plain string is accepted).
        message: the evidence in words, e.g. ``refuted by linear in 1.2 ms: register=3,
            lane=17 -> (5, 12), reference says (5, 4)``.
        details: JSON-ready numbers behind the message.

    Examples:
        >>> Ruling("refuted", "2 bank conflicts > 0").status
        <Status.REFUTED: 'refuted'>
    """

    status: Status
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))


#: ``decide(subject, reference, timeout_s)``: the subject (what ``build()`` gave) against the
#: reference, each solver query bounded by ``timeout_s`` seconds.
Decide = Callable[[Any, Any, float], Ruling]


@dataclass(frozen=True)
class Obligation:
    """One claim to decide, as picklable data (``build`` and ``decide`` are module-level
    functions or a :class:`Call` of one over plain data, so a process pool can take it).

    Attributes:
        name: unique in its source, human readable.
        kind: how it is reported: "library equivalence", "library family" (spec modules),
            or a spec file's kind ("equivalence", "conversion", "bank_conflicts", ...).
        build: ``build()`` gives the subject: a layout, a family, a padded model, ...
        reference: what the subject must meet: formulas, a layout, a closed form, a bound.
        decide: decides the subject against the reference (:data:`Decide`).
        expect: :attr:`Status.PROVED`, or :attr:`Status.REFUTED` for a negative control.
        source: where it comes from, relative to the package for the built-in library
            ("specs/blocked.py", "specs/library/conversions.toml") or a spec file's path;
            ``source::name`` is its key in ``proofs/records.json``.
        line: the spec file's line (0 for a spec module).

    Examples:
        >>> from llverify.layout import LinearLayout
        >>> from llverify.specs.claims import equal
        >>> ob = Obligation(
        ...     "lane is dim0", "library equivalence",
        ...     Call(LinearLayout.identity_1d, 4, "lane", "dim0"), {"dim0": "lane"}, equal,
        ...     source="example.py",
        ... )
        >>> ruling = ob.decide(ob.build(), ob.reference, 10.0)
        >>> ruling.status, ob.expect, ob.location
        (<Status.PROVED: 'proved'>, <Status.PROVED: 'proved'>, 'example.py')
        >>> Obligation("x", "library equivalence", list, {}, equal, expect="maybe")
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'expect' must be 'proved' or 'refuted', not 'maybe'.
    """  # noqa: E501 - the doctest's output is one line

    name: str
    kind: str
    build: Callable[[], Any]
    reference: Any
    decide: Decide
    expect: Status = Status.PROVED
    source: str = "<obligation>"
    line: int = 0

    def __post_init__(self) -> None:
        for key in ("name", "kind", "source"):
            value = getattr(self, key)
            if not isinstance(value, str) or not value:
                raise LayoutTypeError(
                    f"Argument '{key}' must be a non-empty string, not {value!r}."
                )
        for key in ("build", "decide"):
            if not callable(getattr(self, key)):
                raise LayoutTypeError(
                    f"Argument '{key}' must be callable, not {getattr(self, key)!r}."
                )
        if self.expect not in EXPECTS:
            raise LayoutError(
                f"Argument 'expect' must be 'proved' or 'refuted', not {self.expect!r}."
            )
        object.__setattr__(self, "expect", Status(self.expect))
        if isinstance(self.line, bool) or not isinstance(self.line, int) or self.line < 0:
            raise LayoutTypeError(f"Argument 'line' must be an int >= 0, not {self.line!r}.")

    @property
    def location(self) -> str:
        """``source:line``, or ``source`` for a spec module."""
        return f"{self.source}:{self.line}" if self.line else self.source
