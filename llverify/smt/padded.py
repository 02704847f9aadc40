"""Padded shared layouts in Z3, and proofs about their exact addresses.

The physical element offset of a padded layout (:mod:`llverify.encodings.padded`) is
``flat + sum_i (flat >> log2 I_i) << log2 P_i`` of the flat logical offset ``flat = buffer *
num_offsets + offset``; here it is a Z3 bit-vector function of symbolic ``offset``,
``block`` and ``buffer`` variables, next to the tensor coordinates ``dim0..`` that the
linear component gives them (:func:`encode_padded`).  The width is chosen so that no value
wraps: every address is below ``padded_size``.

:func:`prove_padded_equal` proves a closed form of the address, written in the formula
language (:mod:`llverify.proof.formula`) over ``offset``, ``block``, ``buffer``, the coordinates
``dim0..`` and parameters, for every element at once::

    model = PaddedSharedLayout.with_identity_for([[64, 4]], [32, 64], [1, 0]).padded_layout()
    prove_padded_equal(model, "dim0 * (C + P) + dim1", params={"C": 64, "P": 4})  # proved

``observe=`` proves a function of the address instead (e.g. its bank, ``"address % 32"``).
Methods: ``exhaustive`` (numpy over every input, when every value fits in 63 bits), ``z3``
(one query: an input where they differ; unsat means proved) and ``auto`` (exhaustive up to
``max_exhaustive`` inputs, else z3).  Every counterexample is replayed with exact ints
(:meth:`PaddedLayout.physical`, :meth:`PaddedLayout.coords`, the formula on ``IntOps``)
before it is reported; a solver answer that does not replay is "unknown".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import z3

from llverify.bits import check_timeout
from llverify.encodings.padded import PaddedLayout, apply_padding, flat_offset
from llverify.errors import LayoutTypeError
from llverify.ops import IntOps, NumpyOps
from llverify.proof.formula import Formula, FormulaError, Interval, check_param
from llverify.proof.verdict import Status, Verdict, VerdictClock
from llverify.smt.encode import encode_layout, input_variables, widen
from llverify.smt.ops import Z3Ops
from llverify.smt.solver import decide, model_value

__all__ = [
    "PaddedEncoding",
    "encode_padded",
    "evaluate_address",
    "padded_offset_expr",
    "prove_padded_equal",
    "prove_padded_property",
]

METHODS = ("auto", "exhaustive", "z3")
PROPERTIES = ("injective", "in_bounds", "increasing")
_INT = IntOps()


def padded_offset_expr(flat: Any, shifts: tuple[tuple[int, int], ...]) -> Any:
    """:func:`~llverify.encodings.padded.apply_padding` on a bit-vector (logical shifts; the
    caller picks a width where no address wraps).

    Examples:
        >>> x = z3.BitVecVal(7, 8)
        >>> z3.simplify(padded_offset_expr(x, ((1, 0), (2, 1))))
        12
    """
    width = flat.size()
    # Shift amounts are taken modulo 2**width by z3: a term shifted past the width is 0 on
    # every input whose address fits (the caller's width), so it is left out.
    live = tuple((i, p) for i, p in shifts if i < width and p < width)
    return apply_padding(Z3Ops(width), flat, live)


@dataclass(frozen=True)
class PaddedEncoding:
    """A padded layout as Z3 terms of ``width`` bits.

    Attributes:
        variables: the raw inputs ``offset``, ``block``, ``buffer`` (None for a size-1 one).
        env: every name a formula may use (``offset``, ``block``, ``buffer``, ``dim0..``,
            ``address``) as a ``width``-bit term.
        address: the physical element offset.
        constraints: the input ranges every query must assume (``buffer < num_buffers``
            when that is not a power of 2).
    """

    width: int
    variables: dict[str, Any]
    env: dict[str, Any]
    address: Any
    constraints: list[Any]


def address_bits(padded: PaddedLayout) -> int:
    """Bits of the largest physical address (``padded_size - 1``)."""
    return max(1, (padded.padded_size - 1).bit_length())


def _input_bits(padded: PaddedLayout) -> int:
    sizes = [padded.num_offsets, padded.num_blocks, padded.num_buffers, *padded.shape]
    return max(1, *(max(1, s - 1).bit_length() for s in sizes))


def encode_padded(
    padded: PaddedLayout, width: int | None = None, prefix: str = ""
) -> PaddedEncoding:
    """The address and the coordinates of a padded layout as functions of symbolic
    ``offset``, ``block`` and ``buffer`` (default width: one bit more than any value).

    Examples:
        >>> from llverify.encodings.padded import PaddedSharedLayout
        >>> model = PaddedSharedLayout.with_identity_for([[4, 1]], [4, 4], [1, 0]).padded_layout()
        >>> enc = encode_padded(model)
        >>> o = enc.variables["offset"]
        >>> z3.simplify(z3.substitute(enc.address, (o, z3.BitVecVal(9, o.size()))))
        11
    """
    if not isinstance(padded, PaddedLayout):
        raise LayoutTypeError(f"Argument 'padded' must be a PaddedLayout, not {padded!r}.")
    least = max(address_bits(padded), _input_bits(padded)) + 1
    width = least if width is None else width
    if width < least:
        raise LayoutTypeError(f"Argument 'width' must be at least {least}, not {width}.")
    raw = input_variables(padded.linear, prefix)
    buffer_bits = (padded.num_buffers - 1).bit_length()
    raw["buffer"] = z3.BitVec(prefix + "buffer", buffer_bits) if padded.num_buffers > 1 else None
    env = {name: widen(var, width) for name, var in raw.items()}
    env.update(encode_layout(padded.linear, raw, width))
    flat = flat_offset(Z3Ops(width), env["offset"], env["buffer"], padded.offset_bits)
    address = padded_offset_expr(flat, padded.shifts)
    env["address"] = address
    constraints = []
    if raw["buffer"] is not None and padded.num_buffers != 1 << buffer_bits:
        constraints.append(z3.ULT(raw["buffer"], z3.BitVecVal(padded.num_buffers, buffer_bits)))
    return PaddedEncoding(width, raw, env, address, constraints)


def evaluate_address(padded: PaddedLayout, offset: int, buffer: int = 0) -> int:
    """The Z3 encoding's address at concrete inputs (by substitution and simplification)."""
    encoding = encode_padded(padded)
    pairs = []
    for name, value in (("offset", offset), ("buffer", buffer)):
        var = encoding.variables[name]
        if var is not None:
            pairs.append((var, z3.BitVecVal(value, var.size())))
    value = z3.simplify(z3.substitute(encoding.address, *pairs) if pairs else encoding.address)
    return int(value.as_long())


# ---------------------------------------------------------------------- proofs


def _formula(value: Any, name: str) -> Formula:
    if isinstance(value, Formula):
        return value
    if isinstance(value, str):
        return Formula(value)
    raise LayoutTypeError(f"Argument '{name}' must be formula text or a Formula, not {value!r}.")


def _ranges(padded: PaddedLayout, params: Mapping[str, int]) -> dict[str, Interval]:
    ranges: dict[str, Interval] = {
        "offset": (0, padded.num_offsets - 1),
        "block": (0, padded.num_blocks - 1),
        "buffer": (0, padded.num_buffers - 1),
        "address": (0, padded.padded_size - 1),
    }
    ranges.update({f"dim{d}": (0, s - 1) for d, s in enumerate(padded.shape)})
    for name, value in params.items():
        check_param(name, value)
        if name in ranges:
            raise FormulaError(f"parameter '{name}' has the name of a layout input.")
        ranges[name] = (value, value)
    return ranges


@dataclass(frozen=True)
class _Claim:
    padded: PaddedLayout
    observe: Formula
    reference: Formula
    params: dict[str, int]
    ranges: dict[str, Interval]

    @property
    def label(self) -> str:
        return "address" if self.observe.text == "address" else self.observe.text

    @property
    def description(self) -> str:
        return f"padded {self.label} == {self.reference.text}"

    @classmethod
    def of(
        cls,
        padded: PaddedLayout,
        observe: str | Formula,
        reference: str | Formula,
        params: Mapping[str, int] | None,
    ) -> _Claim:
        """The claim ``observe == reference``, each formula over the padded layout's inputs
        and ``params`` (only ``observe`` may use ``address``)."""
        params = dict(params or {})
        ranges = _ranges(padded, params)
        observed, expected = _formula(observe, "observe"), _formula(reference, "reference")
        allowed = set(ranges)
        for formula, names in ((observed, allowed), (expected, allowed - {"address"})):
            unknown = sorted(formula.variables - names)
            if unknown:
                raise FormulaError(
                    f"the formula uses {unknown}, which are neither inputs of the padded "
                    f"layout {sorted(names - set(params))} nor given params {sorted(params)}",
                    formula.text,
                )
        return cls(padded, observed, expected, params, ranges)

    def width(self) -> int:
        return max(
            self.observe.width(self.ranges),
            self.reference.width(self.ranges),
            address_bits(self.padded) + 1,
            _input_bits(self.padded) + 1,
        )

    def point(self, offset: int, block: int, buffer: int) -> dict[str, int]:
        """The counterexample as reported: the inputs and the coordinates they give."""
        point = {"offset": offset}
        if self.padded.num_blocks > 1:
            point["block"] = block
        if self.padded.num_buffers > 1:
            point["buffer"] = buffer
        coords = self.padded.coords(offset, block)
        point.update({f"dim{d}": c for d, c in enumerate(coords)})
        return point

    def replay(self, offset: int, block: int, buffer: int) -> tuple[int, int]:
        """Both sides with exact ints."""
        env = dict(self.params)
        env.update(offset=offset, block=block, buffer=buffer)
        env.update({f"dim{d}": c for d, c in enumerate(self.padded.coords(offset, block))})
        env["address"] = self.padded.physical(offset, buffer)
        return (
            int(self.observe.evaluate(_INT, env)),
            int(self.reference.evaluate(_INT, env)),
        )

    def refuted(
        self,
        clock: VerdictClock,
        method: str,
        inputs: tuple[int, int, int],
        details: dict[str, Any] | None = None,
    ) -> Verdict:
        """The refutation at ``inputs`` (offset, block, buffer): the reported point and both
        sides replayed with exact ints."""
        mine, theirs = self.replay(*inputs)
        return clock.verdict(
            Status.REFUTED,
            self.description,
            method,
            self.point(*inputs),
            {self.label: mine},
            {self.label: theirs},
            details=details,
        )


def _by_exhaustive(claim: _Claim, clock: VerdictClock) -> Verdict | None:
    padded = claim.padded
    if max(claim.observe.width(claim.ranges), claim.reference.width(claim.ranges)) > 63:
        return None
    total = padded.num_logical * padded.num_blocks
    index = np.arange(total, dtype=np.int64)
    offset = index % padded.num_offsets
    block = (index // padded.num_offsets) % padded.num_blocks
    buffer = index // (padded.num_offsets * padded.num_blocks)
    ops: NumpyOps[Any] = NumpyOps()
    env: dict[str, Any] = {k: ops.const(v) for k, v in claim.params.items()}
    env.update(offset=offset, block=block, buffer=buffer)
    coords = padded.linear.apply_array({"offset": offset, "block": block})
    env.update({d: np.asarray(v, dtype=np.int64) for d, v in coords.items()})
    env["address"] = padded.physical_array(offset, buffer)
    mine = np.broadcast_to(np.asarray(claim.observe.evaluate(ops, env)), (total,))
    theirs = np.broadcast_to(np.asarray(claim.reference.evaluate(ops, env)), (total,))
    differs = mine != theirs
    if not differs.any():
        reason = f"all {total} inputs agree"
        return clock.verdict(Status.PROVED, claim.description, "exhaustive", reason=reason)
    first = int(np.argmax(differs))
    inputs = (int(offset[first]), int(block[first]), int(buffer[first]))
    observed, expected = claim.replay(*inputs)
    if observed == expected:  # pragma: no cover - numpy and ints disagreeing is a bug
        reason = f"numpy and ints disagree at {inputs}"
        return clock.verdict(Status.UNKNOWN, claim.description, "exhaustive", reason=reason)
    return claim.refuted(clock, "exhaustive", inputs)


def _by_z3(claim: _Claim, clock: VerdictClock, timeout_ms: int) -> Verdict:
    width = claim.width() + 1
    encoding = encode_padded(claim.padded, width)
    ops = Z3Ops(width)
    env = {k: ops.const(v) for k, v in claim.params.items()}
    env.update(encoding.env)
    bounds = {**claim.observe.bounds(claim.ranges), **claim.reference.bounds(claim.ranges)}
    mine = claim.observe.evaluate(ops, env, bounds)
    theirs = claim.reference.evaluate(ops, env, bounds)
    result = decide([*encoding.constraints, mine != theirs], timeout_ms)
    if result.status == Status.PROVED:
        return clock.verdict(
            Status.PROVED,
            claim.description,
            "z3",
            reason="no input makes them differ (unsat)",
            details={"solver_s": result.time_s, "width": width},
        )
    if result.status == Status.UNKNOWN:
        reason = f"z3: {result.reason}"
        return clock.verdict(
            Status.UNKNOWN, claim.description, "z3", reason=reason, details={"width": width}
        )
    values = {
        name: 0 if var is None else model_value(result.model, var)
        for name, var in encoding.variables.items()
    }
    inputs = (values["offset"], values["block"], values["buffer"])
    observed, expected = claim.replay(*inputs)
    if observed == expected:
        reason = f"z3's counterexample {values} did not replay with exact ints"
        return clock.verdict(Status.UNKNOWN, claim.description, "z3", reason=reason)
    return claim.refuted(clock, "z3", inputs, {"width": width})


def prove_padded_equal(
    padded: PaddedLayout,
    reference: str | Formula,
    *,
    observe: str | Formula = "address",
    params: Mapping[str, int] | None = None,
    method: str = "auto",
    timeout_ms: int = 10_000,
    max_exhaustive: int = 1 << 22,
) -> Verdict:
    """Prove ``observe == reference`` for every element of a padded layout.

    Args:
        padded: the exact model (:meth:`PaddedSharedLayout.padded_layout`).
        reference: formula text over ``offset`` (logical offset in the buffer), ``block``,
            ``buffer``, the tensor coordinates ``dim0..`` and ``params``.
        observe: what is compared, a formula over the same names and ``address`` (the
            physical element offset); default the address itself.
        params: values of the parameters the formulas use.
        method: "auto", "exhaustive" or "z3".
        timeout_ms: limit of the solver query ("unknown" when reached).
        max_exhaustive: "auto" evaluates every input only up to this many.

    Returns:
        A Verdict: "proved", "refuted" with a counterexample ``{offset, [block], [buffer],
        dim0, ...}`` replayed with exact ints, or "unknown".

    Examples:
        >>> from llverify.encodings.padded import PaddedSharedLayout
        >>> model = PaddedSharedLayout.with_identity_for([[16, 2]], [8, 16], [1, 0]).padded_layout()
        >>> prove_padded_equal(model, "dim0 * 18 + dim1", method="z3").status
        <Status.PROVED: 'proved'>
        >>> v = prove_padded_equal(model, "dim0 * 17 + dim1")
        >>> str(v.status), v.counterexample, v.actual, v.expected
        ('refuted', {'offset': 16, 'dim0': 1, 'dim1': 0}, {'address': 18}, {'address': 17})
    """
    _check_arguments(padded, method, timeout_ms)
    clock = Verdict.timed()
    claim = _Claim.of(padded, observe, reference, params)
    if method == "exhaustive":
        return _by_exhaustive_only(claim, clock)
    if method == "auto" and padded.num_logical * padded.num_blocks <= max_exhaustive:
        verdict = _by_exhaustive(claim, clock)
        if verdict is not None:
            return verdict
    return _by_z3(claim, clock, timeout_ms)


def _check_arguments(padded: PaddedLayout, method: str, timeout_ms: int) -> None:
    if not isinstance(padded, PaddedLayout):
        raise LayoutTypeError(f"Argument 'padded' must be a PaddedLayout, not {padded!r}.")
    if method not in METHODS:
        raise LayoutTypeError(f"Argument 'method' must be one of {METHODS}, not {method!r}.")
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int):
        raise LayoutTypeError(f"Argument 'timeout_ms' must be a positive int, not {timeout_ms!r}.")
    check_timeout(timeout_ms, "timeout_ms", milliseconds=True)


def _by_exhaustive_only(claim: _Claim, clock: VerdictClock) -> Verdict:
    """``method="exhaustive"``: unknown where numpy cannot be exact."""
    verdict = _by_exhaustive(claim, clock)
    if verdict is not None:
        return verdict
    return clock.verdict(
        Status.UNKNOWN,
        claim.description,
        "exhaustive",
        reason="a formula needs more than 63 bits somewhere: numpy cannot be exact",
    )


def _property_query(
    padded: PaddedLayout, prop: str, first: PaddedEncoding, second: PaddedEncoding
) -> list[Any]:
    """The negation of ``prop`` over two encoded inputs ``a`` and ``b``."""
    ops = Z3Ops(first.width)

    def flat(enc: PaddedEncoding) -> Any:
        return flat_offset(ops, enc.env["offset"], enc.env["buffer"], padded.offset_bits)

    if prop == "injective":
        return [flat(first) != flat(second), first.address == second.address]
    if prop == "increasing":
        return [z3.ULT(flat(first), flat(second)), z3.UGE(first.address, second.address)]
    return [z3.UGE(first.address, z3.BitVecVal(padded.padded_size, first.width))]


def _property_points(
    padded: PaddedLayout, prop: str, model: Any, encodings: tuple[PaddedEncoding, ...]
) -> tuple[list[tuple[str, dict[str, int], int]], bool]:
    """The solver's inputs ``(tag, values, exact address)`` and whether they violate
    ``prop`` when replayed with exact ints."""
    points = []
    for enc, tag in zip(encodings, "ab"):
        values = {
            name: 0 if var is None else model_value(model, var)
            for name, var in enc.variables.items()
            if name != "block"
        }
        physical = padded.physical(values["offset"], values["buffer"])
        points.append((tag, values, physical))
    flats = [v["buffer"] * padded.num_offsets + v["offset"] for _, v, _ in points]
    addresses = [a for _, _, a in points]
    replayed = {
        "injective": len(points) == 2 and flats[0] != flats[-1] and addresses[0] == addresses[-1],
        "increasing": len(points) == 2 and flats[0] < flats[-1] and addresses[0] >= addresses[-1],
        "in_bounds": addresses[0] >= padded.padded_size,
    }[prop]
    return points, replayed


def prove_padded_property(padded: PaddedLayout, prop: str, *, timeout_ms: int = 10_000) -> Verdict:
    """Prove a property of the address map of every buffer with one Z3 query:

    * ``injective``: distinct logical offsets (of any buffers) get distinct addresses;
    * ``in_bounds``: every address is below ``padded_size`` (Triton's ``getPaddedSize``);
    * ``increasing``: a larger flat logical offset has a larger address.

    Examples:
        >>> from llverify.encodings.padded import PaddedSharedLayout
        >>> enc = PaddedSharedLayout.with_identity_for([[4, 1], [8, 2]], [16], [0])
        >>> prove_padded_property(enc.padded_layout(), "in_bounds").status
        <Status.PROVED: 'proved'>
    """
    if not isinstance(padded, PaddedLayout):
        raise LayoutTypeError(f"Argument 'padded' must be a PaddedLayout, not {padded!r}.")
    if prop not in PROPERTIES:
        raise LayoutTypeError(f"Argument 'prop' must be one of {PROPERTIES}, not {prop!r}.")
    check_timeout(timeout_ms, "timeout_ms", milliseconds=True)
    clock = Verdict.timed()
    first = encode_padded(padded, prefix="a!")
    second = encode_padded(padded, first.width, prefix="b!")
    query = _property_query(padded, prop, first, second)
    result = decide([*first.constraints, *second.constraints, *query], timeout_ms)
    claim = f"padded addresses are {prop}"
    if result.status == Status.PROVED:
        return clock.verdict(Status.PROVED, claim, "z3", reason="unsat")
    if result.status == Status.UNKNOWN:
        return clock.verdict(Status.UNKNOWN, claim, "z3", reason=f"z3: {result.reason}")
    encodings = (first,) if prop == "in_bounds" else (first, second)
    points, replayed = _property_points(padded, prop, result.model, encodings)
    counterexample = {f"{k}_{tag}": v for tag, values, _ in points for k, v in values.items()}
    if not replayed:
        return clock.verdict(
            Status.UNKNOWN,
            claim,
            "z3",
            reason=f"z3's counterexample {counterexample} did not replay with exact ints",
        )
    return clock.verdict(
        Status.REFUTED,
        claim,
        "z3",
        counterexample=counterexample,
        actual={f"address_{tag}": a for tag, _, a in points},
    )
