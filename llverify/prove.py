"""prove_equal: is a layout equal to a reference (formulas, a callable, or a layout)?

Three methods, each sound on its own; ``method="auto"`` picks the cheapest that applies
and the verdict names the one that decided:

* ``linear``: a LinearLayout is GF(2)-linear, so once the reference is proven GF(2)-affine
  (by Z3, for every input at once, or trivially when it is itself a layout) the two are
  equal iff they agree on 0 and on every basis input, which is checked concretely.  A
  reference proven *not* affine is refuted by a point of the non-affinity witness.
* ``exhaustive``: every input evaluated with numpy (default up to 2**22 inputs).
* ``z3``: one query "some input where they differ", unsatisfiable means proved.

Every counterexample is replayed with exact Python ints before it is reported; a solver
answer that does not replay, a timeout or a resource limit gives "unknown", never "proved".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from llverify.bits import as_int, check_timeout
from llverify.cute.layout import is_layout
from llverify.cute.linear import reference_for
from llverify.errors import DimensionError, LayoutError, LayoutTypeError, shown
from llverify.evaluate import evaluate_all
from llverify.layout import LinearLayout, _require_layout
from llverify.ops import IntOps, NumpyOps
from llverify.proof.family import LayoutFamily
from llverify.proof.formula import Formula, FormulaError, Interval, check_param
from llverify.proof.verdict import Status, Verdict, VerdictClock

METHODS = ("auto", "linear", "exhaustive", "z3")
#: Below this many inputs "auto" simply evaluates them all.
SMALL_DOMAIN = 1 << 10
#: Width used for callables written against Ops (their overflow is checked, not assumed).
CALLABLE_WIDTH = 64

_INT = IntOps()


@dataclass(frozen=True)
class _Reference:
    """A reference normalized to one evaluation interface."""

    description: str
    out_dims: tuple[str, ...]
    formulas: dict[str, Formula] | None
    function: Callable[..., Any] | None
    layout: LinearLayout | None
    params: dict[str, int]
    #: a table-read reference (a non-linear CuTe layout): decided by enumeration only
    tabulated: bool = False

    def evaluate(
        self, ops: Any, env: Mapping[str, Any], bounds: Mapping[int, Interval] | None = None
    ) -> dict[str, Any]:
        if self.layout is not None:  # only exact ints reach here (replays, basis inputs)
            return self.layout.apply({d: int(env[d]) for d in self.layout.get_in_dim_names()})
        full = {**{k: ops.const(v) for k, v in self.params.items()}, **env}
        if self.formulas is not None:
            return {d: f.evaluate(ops, full, bounds) for d, f in self.formulas.items()}
        assert self.function is not None
        result = self.function(ops, **full)
        if isinstance(result, Mapping):
            values = dict(result)
        else:
            try:
                values = dict(zip(self.out_dims, result, strict=True))
            except (TypeError, ValueError):
                raise LayoutTypeError(
                    f"the reference callable must return a mapping out dim -> value or a "
                    f"sequence of {len(self.out_dims)} values, not {shown(result)}."
                ) from None
        if set(values) != set(self.out_dims):
            raise DimensionError(
                f"the reference callable returned out dims {sorted(values)}, expected "
                f"{list(self.out_dims)}."
            )
        return values

    @property
    def claim(self) -> str:
        """What a verdict against this reference claims."""
        return f"layout == reference ({self.description})"


def _normalize(
    layout: LinearLayout, reference: Any, params: Mapping[str, int] | None
) -> _Reference:
    """The reference, checked against the layout, behind one evaluation interface."""
    checked = _checked_params(layout, params)
    outs = tuple(layout.get_out_dim_names())
    if isinstance(reference, LinearLayout):
        _check_layout_reference(layout, reference)
        return _Reference("a LinearLayout", outs, None, None, reference, checked)
    if is_layout(reference):  # a CuTe layout (callable, so before the callable case)
        view, equal, table = reference_for(layout, reference)
        described = f"the CuTe layout {reference} ({view} view)"
        if equal is not None:
            return _Reference(described, outs, None, None, equal, checked)
        return _Reference(described, outs, None, table, None, checked, tabulated=True)
    if isinstance(reference, Mapping):
        formulas = _reference_formulas(layout, reference, checked)
        described = "; ".join(f"{d} = {f.text}" for d, f in formulas.items())
        return _Reference(described, outs, formulas, None, None, checked)
    if callable(reference):
        name = getattr(reference, "__name__", type(reference).__name__)
        return _Reference(f"callable {name}", outs, None, reference, None, checked)
    raise LayoutTypeError(
        f"Argument 'reference' must be a mapping out dim -> formula, a callable or a "
        f"LinearLayout, not {type(reference).__name__}."
    )


def _checked_params(layout: LinearLayout, params: Mapping[str, int] | None) -> dict[str, int]:
    """``params`` as a dict of ints, none named like an in dim of the layout."""
    if params is not None and not isinstance(params, Mapping):
        raise LayoutTypeError(
            f"Argument 'params' must map parameter names to ints, not "
            f"{type(params).__name__} {shown(params)}."
        )
    checked = dict(params or {})
    ins = set(layout.get_in_dim_names())
    for name, value in checked.items():
        check_param(name, value)
        if name in ins:
            raise DimensionError(f"parameter '{name}' has the name of an in dim of the layout.")
    return checked


def _check_layout_reference(layout: LinearLayout, reference: LinearLayout) -> None:
    """A reference layout has the layout's out dims and in dims (names and sizes)."""
    outs = layout.get_out_dim_names()
    if set(reference.get_out_dim_names()) != set(outs):
        raise DimensionError(
            f"the reference layout's out dims {reference.get_out_dim_names()} must be "
            f"the layout's {list(outs)}."
        )
    if dict(reference.in_dims) != dict(layout.in_dims):
        raise DimensionError(
            f"the reference layout's in dims {reference.in_dims} must be the layout's "
            f"{layout.in_dims} (names and sizes)."
        )


def _reference_formulas(
    layout: LinearLayout, reference: Mapping[str, Any], params: Mapping[str, int]
) -> dict[str, Formula]:
    """One formula per out dim (in the layout's order), over its in dims and ``params``."""
    outs = layout.get_out_dim_names()
    if set(reference) != set(outs):
        raise DimensionError(
            f"Argument 'reference' must give a formula for each out dim {list(outs)}, "
            f"not for {list(reference)}."
        )
    ins = set(layout.get_in_dim_names())
    formulas = {}
    for name in outs:
        text = reference[name]
        try:
            formula = text if isinstance(text, Formula) else Formula(text)
        except FormulaError as error:
            raise FormulaError(f"formula for '{name}': {error}") from None
        unknown = sorted(formula.variables - ins - set(params))
        if unknown:
            raise FormulaError(
                f"formula for '{name}' uses {unknown}, which are neither in dims of the "
                f"layout {sorted(ins)} nor given params {sorted(params)}",
                formula.text,
            )
        formulas[name] = formula
    return formulas


def _ranges(layout: LinearLayout, ref: _Reference) -> dict[str, Interval]:
    ranges: dict[str, Interval] = {name: (0, size - 1) for name, size in layout.in_dims}
    ranges.update({k: (v, v) for k, v in ref.params.items()})
    return ranges


def _replay(
    layout: LinearLayout, ref: _Reference, point: Mapping[str, int]
) -> tuple[dict[str, int], dict[str, int], bool]:
    """Both outputs at ``point`` with exact ints, and whether they differ."""
    actual = layout.apply(dict(point))
    expected = ref.evaluate(_INT, dict(point))
    expected = {d: int(expected[d]) for d in layout.get_out_dim_names()}
    return actual, expected, any(actual[d] != expected[d] for d in actual)


def _refuted(
    method: str,
    clock: VerdictClock,
    layout: LinearLayout,
    ref: _Reference,
    point: Mapping[str, int],
    reason: str = "",
) -> Verdict | None:
    """A refuted verdict if ``point`` really is a counterexample, else None."""
    actual, expected, differs = _replay(layout, ref, point)
    if not differs:
        return None
    return clock.verdict(Status.REFUTED, ref.claim, method, dict(point), actual, expected, reason)


# ---------------------------------------------------------------------- the methods


def _basis_points(layout: LinearLayout) -> list[dict[str, int]]:
    names = layout.get_in_dim_names()
    points = [dict.fromkeys(names, 0)]
    for name, size in layout.in_dims:
        for i in range(size.bit_length() - 1):
            point = dict.fromkeys(names, 0)
            point[name] = 1 << i
            points.append(point)
    return points


def _by_linear(
    layout: LinearLayout, ref: _Reference, clock: VerdictClock, timeout_ms: int
) -> Verdict:
    if ref.layout is None:
        affine = _prove_affine(layout, ref, clock, timeout_ms)
        if affine is not None:
            return affine  # refuted (non-affine witness) or unknown
    for point in _basis_points(layout):
        refuted = _refuted("linear", clock, layout, ref, point)
        if refuted is not None:
            return refuted
    why = (
        "both are GF(2)-linear"
        if ref.layout is not None
        else "the reference is GF(2)-affine (proved by z3)"
    )
    count = layout.get_total_in_dim_size_log2() + 1
    return clock.verdict(
        Status.PROVED, ref.claim, "linear", reason=f"{why} and they agree on {count} basis inputs"
    )


def _prove_affine(
    layout: LinearLayout, ref: _Reference, clock: VerdictClock, timeout_ms: int
) -> Verdict | None:
    """None when z3 proves the reference affine; otherwise a refuted/unknown verdict."""
    from llverify.smt.prove import decide_affine

    width, bounds, checked = _working_width(layout, ref)
    decision, points = decide_affine(layout, ref, width, bounds, checked, timeout_ms)
    if decision.status is Status.PROVED:
        return None
    if decision.status is Status.UNKNOWN:
        return clock.verdict(Status.UNKNOWN, ref.claim, "linear", reason=f"z3: {decision.reason}")
    for point in points:
        refuted = _refuted(
            "linear",
            clock,
            layout,
            ref,
            point,
            "the reference is not GF(2)-affine (or overflows the working width), so it cannot "
            "equal a linear layout",
        )
        if refuted is not None:
            return refuted
    return clock.verdict(
        Status.UNKNOWN,
        ref.claim,
        "linear",
        reason="z3's non-affinity witness did not replay with exact ints (overflow at the working "
        "width?); try method='exhaustive' or a larger width",
    )


def _working_width(layout: LinearLayout, ref: _Reference) -> tuple[int, dict[int, Interval], bool]:
    """The bit width of the solver's arithmetic, the formulas' subterm bounds, and whether
    overflow must be checked (a callable's; formulas get a width at which none happens)."""
    in_bits = max([size.bit_length() for _, size in layout.in_dims] + [1])
    out_bits = max([size.bit_length() for _, size in layout.out_dims] + [1])
    bounds: dict[int, Interval] = {}
    if ref.formulas is not None:
        ranges = _ranges(layout, ref)
        width = max([in_bits + 1, out_bits + 1] + [f.width(ranges) for f in ref.formulas.values()])
        for formula in ref.formulas.values():
            bounds.update(formula.bounds(ranges))
        return width, bounds, False
    width = max(CALLABLE_WIDTH, in_bits + 1, out_bits + 1)
    return width, bounds, ref.function is not None


def _by_z3(layout: LinearLayout, ref: _Reference, clock: VerdictClock, timeout_ms: int) -> Verdict:
    from llverify.smt.prove import decide_equal

    width, bounds, checked = _working_width(layout, ref)
    decision, point = decide_equal(layout, ref, width, bounds, checked, timeout_ms)
    if decision.status is Status.PROVED:
        return clock.verdict(
            Status.PROVED,
            ref.claim,
            "z3",
            reason="no input makes them differ (unsat)",
            details={"solver_s": decision.time_s, "width": width},
        )
    if point is None:
        return clock.verdict(
            Status.UNKNOWN,
            ref.claim,
            "z3",
            reason=f"z3: {decision.reason}",
            details={"solver_s": decision.time_s, "width": width},
        )
    refuted = _refuted("z3", clock, layout, ref, point)
    if refuted is not None:
        return refuted
    return clock.verdict(
        Status.UNKNOWN,
        ref.claim,
        "z3",
        reason=f"z3's counterexample {point} did not replay with exact ints (the reference may "
        f"overflow {width}-bit arithmetic)",
    )


def _by_exhaustive(layout: LinearLayout, ref: _Reference, clock: VerdictClock) -> Verdict | None:
    """None when the numpy backend cannot be exact for this reference."""
    from llverify.ops import CheckedNumpyOps

    total = layout.get_total_in_dim_size()
    index = np.arange(total, dtype=np.int64)
    env: dict[str, Any] = {}
    position = 0
    for name, size in layout.in_dims:
        bits = size.bit_length() - 1
        env[name] = (index >> position) & (size - 1)
        position += bits
    mine = evaluate_all(layout, max_inputs=total)
    if ref.layout is not None:
        theirs: dict[str, Any] = evaluate_all(ref.layout.transpose_ins(layout.get_in_dim_names()))
    elif ref.formulas is not None:
        ranges = _ranges(layout, ref)
        if max(f.width(ranges) for f in ref.formulas.values()) > 63:
            return None
        theirs = ref.evaluate(NumpyOps(), env)
    else:
        checked: CheckedNumpyOps[Any] = CheckedNumpyOps()
        theirs = ref.evaluate(checked, env)
        if checked.overflowed:
            return None
    differs = np.zeros(total, dtype=bool)
    for name in layout.get_out_dim_names():
        differs |= np.broadcast_to(np.asarray(theirs[name]), (total,)) != mine[name]
    if not differs.any():
        return clock.verdict(
            Status.PROVED, ref.claim, "exhaustive", reason=f"all {total} inputs agree"
        )
    first = int(np.argmax(differs))
    point = {name: int(values[first]) for name, values in env.items()}
    refuted = _refuted("exhaustive", clock, layout, ref, point)
    if refuted is not None:
        return refuted
    return clock.verdict(  # pragma: no cover - numpy and ints disagreeing would be a backend bug
        Status.UNKNOWN, ref.claim, "exhaustive", reason=f"numpy and exact ints disagree at {point}"
    )


# ---------------------------------------------------------------------- entry point


def prove_equal(
    layout: LinearLayout,
    reference: Any,
    *,
    method: str = "auto",
    params: Mapping[str, int] | None = None,
    timeout_ms: int = 10_000,
    max_exhaustive: int = 1 << 22,
) -> Verdict:
    """Prove ``layout(x) == reference(x)`` for every input x of the layout.

    Args:
        layout: the layout.
        reference: ``{out_dim: formula text}`` over the in dims (and ``params``), a callable
            ``reference(ops, **inputs) -> {out_dim: value}`` written against
            :class:`~llverify.ops.Ops`, another LinearLayout, or a CuTe layout
            (:mod:`llverify.cute`: a thread-value layout for a register layout, a
            shared-memory layout ``coordinates -> offset`` for a layout of ``offset``, else
            one mode per in dim; see :func:`llverify.cute.linear.reference_for`); one that
            is not GF(2)-linear is decided by enumerating every input.
        method: "auto", "linear", "exhaustive" or "z3".
        params: values of parameters the formulas use.
        timeout_ms: limit for each solver query; a timeout gives "unknown".
        max_exhaustive: "auto" evaluates every input only up to this many.

    Returns:
        A :class:`~llverify.proof.verdict.Verdict` ("proved", "refuted" with a replayed
        counterexample, or "unknown"), naming the method that decided.

    Examples:
        >>> ll = LinearLayout.from_bases([("offset", [[0, 1], [0, 2], [1, 0], [2, 2]])],
        ...                              ["dim0", "dim1"])
        >>> prove_equal(ll, {"dim0": "offset >> 2",
        ...                  "dim1": "(offset & 3) ^ (((offset >> 3) & 1) << 1)"}).status
        <Status.PROVED: 'proved'>
        >>> v = prove_equal(ll, {"dim0": "offset >> 2", "dim1": "offset & 3"})
        >>> v.status, v.counterexample
        (<Status.REFUTED: 'refuted'>, {'offset': 8})
    """
    max_exhaustive = _checked_arguments(layout, method, timeout_ms, max_exhaustive)
    clock = Verdict.timed()
    ref = _normalize(layout, reference, params)
    if ref.tabulated:  # a non-linear CuTe layout: only its table can be evaluated
        return _by_exhaustive_only(layout, ref, clock)
    if method == "auto":
        return _by_auto(layout, ref, clock, timeout_ms, max_exhaustive)
    if method == "exhaustive":
        return _by_exhaustive_only(layout, ref, clock)
    by_method = _by_linear if method == "linear" else _by_z3
    return by_method(layout, ref, clock, timeout_ms)


def _checked_arguments(
    layout: LinearLayout, method: str, timeout_ms: int, max_exhaustive: int
) -> int:
    """Refuse a bad argument of :func:`prove_equal`; ``max_exhaustive`` as an int."""
    _require_layout(layout, "layout")
    if method not in METHODS:
        raise LayoutTypeError(f"Argument 'method' must be one of {METHODS}, not {shown(method)}.")
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int):
        raise LayoutTypeError(
            f"Argument 'timeout_ms' must be a positive int, not {shown(timeout_ms)}."
        )
    check_timeout(timeout_ms, "timeout_ms", milliseconds=True)
    max_exhaustive = as_int(max_exhaustive, "max_exhaustive")
    if max_exhaustive < 0:
        raise LayoutError(
            f"Argument 'max_exhaustive' must be an int >= 0 (inputs to enumerate), "
            f"not {max_exhaustive}."
        )
    return max_exhaustive


def _by_exhaustive_only(layout: LinearLayout, ref: _Reference, clock: VerdictClock) -> Verdict:
    """``method="exhaustive"``: unknown where numpy cannot be exact."""
    verdict = _by_exhaustive(layout, ref, clock)
    if verdict is not None:
        return verdict
    return clock.verdict(
        Status.UNKNOWN,
        ref.claim,
        "exhaustive",
        reason="the reference needs more than 63 bits somewhere: numpy cannot be exact",
    )


def _by_auto(
    layout: LinearLayout,
    ref: _Reference,
    clock: VerdictClock,
    timeout_ms: int,
    max_exhaustive: int,
) -> Verdict:
    """``method="auto"``: linear for a layout reference; else every input of a small
    domain, then linear, then (up to ``max_exhaustive`` inputs) every input, then z3."""
    if ref.layout is not None:
        return _by_linear(layout, ref, clock, timeout_ms)
    total = layout.get_total_in_dim_size()
    if total <= SMALL_DOMAIN:
        verdict = _by_exhaustive(layout, ref, clock)
        if verdict is not None:
            return verdict
    linear = _by_linear(layout, ref, clock, timeout_ms)
    if not linear.unknown:
        return linear
    if total <= max_exhaustive:
        exhaustive = _by_exhaustive(layout, ref, clock)
        if exhaustive is not None:
            return exhaustive
    return _by_z3(layout, ref, clock, timeout_ms)


FAMILY_METHODS = ("auto", "parametric-linear", "z3", "enumerate")


def prove_family_equal(
    family: LayoutFamily,
    reference: Mapping[str, Any],
    *,
    method: str = "auto",
    timeout_ms: int = 60_000,
) -> Verdict:
    """Prove every member of a :class:`~llverify.proof.family.LayoutFamily` equal to ``reference``
    (formulas over the family's in dims and parameters).  ``method``: "parametric-linear"
    (``"auto"``) and "z3" prove all members at once (:mod:`llverify.smt.parametric`),
    "enumerate" proves each member with :func:`prove_equal`.  A refutation names the
    parameters and the input.

    Examples:
        >>> from llverify.proof.family import swizzled_shared_2d, SWIZZLED_REFERENCE
        >>> family = swizzled_shared_2d(4, 2)
        >>> print(prove_family_equal(family, SWIZZLED_REFERENCE, method="enumerate"))
        ... # doctest: +ELLIPSIS
        proved by enumerate in ... ms: all ... members proved
    """
    from llverify.smt import parametric

    check_timeout(timeout_ms, "timeout_ms", milliseconds=True)
    if method not in FAMILY_METHODS:
        raise ValueError(f"Argument 'method' must be one of {FAMILY_METHODS}, not {shown(method)}.")
    if method != "enumerate":
        return parametric.prove_family_equal(
            family, reference, method=method, timeout_ms=timeout_ms
        )
    clock = Verdict.timed()
    formulas = parametric.normalize_reference(family, reference)
    parametric.require_members(family, timeout_ms)
    return _enumerate(
        family, formulas, parametric.family_claim(family, formulas), clock, timeout_ms
    )


def _enumerate(
    family: LayoutFamily,
    reference: Mapping[str, Formula],
    claim: str,
    clock: VerdictClock,
    timeout_ms: int,
) -> Verdict:
    """Every member instantiated and proved with the linear method."""
    count = 0
    for params in family.members():
        layout = family.instance(**params)
        verdict = prove_equal(
            layout, dict(reference), params=params, method="linear", timeout_ms=timeout_ms
        )
        count += 1
        if verdict.refuted:
            assert verdict.counterexample is not None
            return clock.verdict(
                Status.REFUTED,
                claim,
                "enumerate",
                {**params, **verdict.counterexample},
                verdict.actual,
                verdict.expected,
                f"member {params}",
            )
        if verdict.unknown:
            reason = f"member {params}: {verdict.reason}"
            return clock.verdict(Status.UNKNOWN, claim, "enumerate", reason=reason)
    return clock.verdict(
        Status.PROVED,
        claim,
        "enumerate",
        reason=f"all {count} members proved",
        details={"members": count},
    )


def prove_family_property(family: LayoutFamily, prop: str, **options: Any) -> Verdict:
    """Prove a structural property of every member of a family (see
    :func:`llverify.smt.parametric.prove_family_property`)."""
    from llverify.smt.parametric import prove_family_property as prove

    if "timeout_ms" in options:
        check_timeout(options["timeout_ms"], "timeout_ms", milliseconds=True)
    return prove(family, prop, **options)
