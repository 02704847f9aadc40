"""How the spec modules' obligations are decided: a layout or a family equal to its closed
form, a padded model equal to its address formula, each giving a :class:`Ruling`."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from llverify.proof.obligation import Call, Obligation, Ruling
from llverify.proof.verdict import Status

__all__ = [
    "EQUIVALENCE",
    "FAMILY",
    "control",
    "equal",
    "equal_on_domain",
    "equivalence",
    "family",
    "family_equal",
    "padded_equal",
]

#: The reported kinds of the spec modules' obligations.
EQUIVALENCE = "library equivalence"
FAMILY = "library family"


def _timeout_ms(timeout_s: float) -> int:
    return max(1, int(timeout_s * 1000))


def _json_ready(value: Any) -> Any:
    """``value`` with every leaf JSON cannot hold turned into its ``str``."""
    return json.loads(json.dumps(value, default=str))


def _ruling(verdict: Any, **details: Any) -> Ruling:
    """A Verdict as a Ruling: its status, ``str``, method and fields."""
    found = {"method": verdict.method, "verdict": verdict.to_dict(), **details}
    return Ruling(Status(verdict.status), str(verdict), _json_ready(found))


def equal(layout: Any, reference: Any, timeout_s: float, **options: Any) -> Ruling:
    """``prove_equal(layout, reference, **options)`` with each solver query bounded.

    Examples:
        >>> from llverify.layout import LinearLayout
        >>> layout = LinearLayout.identity_1d(4, "lane", "dim0")
        >>> equal(layout, {"dim0": "lane ^ 1"}, 10.0).message  # doctest: +ELLIPSIS
        'refuted by exhaustive in ... ms: lane=0 -> 0, reference says 1'
    """
    from llverify.prove import prove_equal

    return _ruling(prove_equal(layout, reference, timeout_ms=_timeout_ms(timeout_s), **options))


def equal_on_domain(
    layout: Any, reference: tuple[Mapping[str, int], Any], timeout_s: float
) -> Ruling:
    """``reference = (domain, formulas)``: the layout's in dims must be ``domain`` (part of
    the claim), then :func:`equal`.

    Examples:
        >>> from llverify.layout import LinearLayout
        >>> layout = LinearLayout.identity_1d(4, "lane", "dim0")
        >>> equal_on_domain(layout, ({"lane": 8}, {"dim0": "lane"}), 10.0).message
        "refuted by domain: the layout's in dims are {'lane': 4}, the closed form's {'lane': 8}"
    """
    domain, formulas = reference
    if dict(layout.in_dims) != dict(domain):
        return Ruling(
            Status.REFUTED,
            f"refuted by domain: the layout's in dims are {dict(layout.in_dims)}, the closed "
            f"form's {dict(domain)}",
            {"method": "domain"},
        )
    return equal(layout, formulas, timeout_s)


def control(layout: Any, reference: tuple[Any, Any], timeout_s: float) -> Ruling:
    """A negative control ``reference = (right, wrong)``: only where the right closed form is
    proved on the layout does the wrong one's verdict mean something.

    Examples:
        >>> from llverify.layout import LinearLayout
        >>> layout = LinearLayout.identity_1d(4, "lane", "dim0")
        >>> control(layout, ({"dim0": "lane"}, {"dim0": "lane ^ 1"}), 10.0).status
        <Status.REFUTED: 'refuted'>
        >>> control(layout, ({"dim0": "lane ^ 2"}, {"dim0": "lane"}), 10.0).status
        <Status.ERROR: 'error'>
    """
    from llverify.prove import prove_equal

    right, wrong = reference
    proved = prove_equal(layout, right, timeout_ms=_timeout_ms(timeout_s))
    if not proved.proved:
        return Ruling(
            Status.UNKNOWN if proved.unknown else Status.ERROR,
            f"error: the correct closed form is not proved on this instance: {proved}",
            _json_ready({"method": proved.method, "correct_form": proved.to_dict()}),
        )
    found = equal(layout, wrong, timeout_s)
    found.details["correct_form"] = _json_ready(proved.to_dict())
    return found


def family_equal(family: Any, reference: Any, timeout_s: float) -> Ruling:
    """``prove_family_equal(family, reference)``: every member at once.

    Examples:
        >>> from llverify.proof.family import swizzled_shared_2d, SWIZZLED_REFERENCE
        >>> family_equal(swizzled_shared_2d(8, 2), SWIZZLED_REFERENCE, 60.0).status
        <Status.PROVED: 'proved'>
    """
    from llverify.prove import prove_family_equal

    verdict = prove_family_equal(family, reference, timeout_ms=_timeout_ms(timeout_s))
    params = {key: list(value) for key, value in family.params.items()}
    return _ruling(verdict, family=family.name, params=params)


def padded_equal(model: Any, reference: str, timeout_s: float, **options: Any) -> Ruling:
    """``prove_padded_equal(model, reference, **options)`` (``observe``, ``params``,
    ``method``).

    Examples:
        >>> from llverify.encodings.padded import PaddedSharedLayout
        >>> model = PaddedSharedLayout.with_identity_for([[4, 1]], [16], [0]).padded_layout()
        >>> padded_equal(model, "offset + offset // 4", 10.0).status
        <Status.PROVED: 'proved'>
    """
    from llverify.smt.padded import prove_padded_equal

    verdict = prove_padded_equal(model, reference, timeout_ms=_timeout_ms(timeout_s), **options)
    return _ruling(verdict)


def equivalence(
    name: str,
    source: str,
    build: Callable[[], Any],
    reference: Any,
    *,
    expect: Status = Status.PROVED,
    decide: Callable[..., Ruling] = equal,
    **options: Any,
) -> Obligation:
    """A "library equivalence" obligation of a spec module: ``decide(build(), reference)``
    (``options`` go to ``decide``).

    Examples:
        >>> from llverify.layout import LinearLayout
        >>> build = Call(LinearLayout.identity_1d, 4, "lane", "dim0")
        >>> ob = equivalence("lanes", "specs/x.py", build, {"dim0": "lane"}, method="linear")
        >>> ob.kind, ob.decide(ob.build(), ob.reference, 1.0).details["method"]
        ('library equivalence', 'linear')
    """
    decider = Call(decide, **options) if options else decide
    return Obligation(name, EQUIVALENCE, build, reference, decider, expect, source)


def family(
    name: str,
    source: str,
    build: Callable[[], Any],
    reference: Any,
    *,
    expect: Status = Status.PROVED,
) -> Obligation:
    """A "library family" obligation: ``build()`` is a LayoutFamily proved equal to
    ``reference`` for every parameter value at once.

    Examples:
        >>> from llverify.proof.family import swizzled_shared_2d, SWIZZLED_REFERENCE
        >>> ob = family("f", "specs/x.py", swizzled_shared_2d, SWIZZLED_REFERENCE)
        >>> ob.kind, ob.expect
        ('library family', <Status.PROVED: 'proved'>)
    """
    return Obligation(name, FAMILY, build, reference, family_equal, expect, source)
