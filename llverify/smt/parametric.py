"""Parametric proofs: a LayoutFamily equal to a reference for every parameter value at once.

Method ``parametric-linear`` (the fast one): every member of a family is GF(2)-linear, so
the family equals the reference iff (1) the reference is GF(2)-affine in the inputs for all
parameters, (2) it maps 0 to 0, and (3) it maps each basis input ``in_dim = 2**i`` to the
family's basis ``i``, for all parameters and all ``i`` at once: three small Z3 queries in
which the bit index is a symbolic variable instead of an unrolled XOR over all input bits.
Method ``z3`` is the direct encoding (the XOR over all input bits of symbolic bases), kept
as a cross-check.  (:func:`llverify.prove.prove_family_equal` adds ``enumerate``.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import z3

from llverify.ops import IntOps
from llverify.proof.family import BIT, LayoutFamily
from llverify.proof.formula import Formula, FormulaError, Interval
from llverify.proof.verdict import Status, Verdict, VerdictClock
from llverify.smt.ops import Z3Ops
from llverify.smt.solver import Decision, decide, model_value

_INT = IntOps()
METHODS = ("auto", "parametric-linear", "z3")


class _Setup:
    """Symbols, ranges and the working width shared by the queries about one family."""

    def __init__(self, family: LayoutFamily, reference: Mapping[str, Formula]) -> None:
        self.family = family
        self.reference = reference
        self.max_in = _tight_max_log2(family)
        ref_ranges: dict[str, Interval] = dict(family.params)
        for d, bits in self.max_in.items():
            ref_ranges[d] = (0, (1 << bits) - 1)
        basis_ranges: dict[str, Interval] = dict(family.params)
        basis_ranges[BIT] = (0, max([0, *self.max_in.values()]))
        widths = [f.width(ref_ranges) for f in reference.values()]
        widths += [
            f.width(basis_ranges) for per_out in family.bases.values() for f in per_out.values()
        ]
        widths += [f.width(dict(family.params)) for f in family.in_dims.values()]
        widths += [bits + 2 for bits in self.max_in.values()]
        self.width = max(widths)
        self.ops = Z3Ops(self.width)
        self.ref_bounds: dict[int, Interval] = {}
        for f in reference.values():
            self.ref_bounds.update(f.bounds(ref_ranges))
        self.basis_bounds: dict[int, Interval] = {}
        for per_out in family.bases.values():
            for f in per_out.values():
                self.basis_bounds.update(f.bounds(basis_ranges))
        self.size_bounds: dict[int, Interval] = {}
        for f in [*family.in_dims.values(), *family.out_dims.values()]:
            self.size_bounds.update(f.bounds(dict(family.params)))
        if family.constraint is not None:
            self.size_bounds.update(family.constraint.bounds(dict(family.params)))
        self.params = {
            name: z3.BitVec(f"p!{name}", max(1, high.bit_length()))
            for name, (_, high) in family.params.items()
        }
        self.param_env = {n: z3.ZeroExt(self.width - v.size(), v) for n, v in self.params.items()}

    def domain(self) -> list[Any]:
        """Constraints: every parameter in range and the family's constraint."""
        ops = self.ops
        parts = []
        for name, (low, high) in self.family.params.items():
            value = self.param_env[name]
            parts.append(z3.And(z3.UGE(value, low), z3.ULE(value, high)))
        if self.family.constraint is not None:
            parts.append(self.family.constraint.evaluate(ops, self.param_env, self.size_bounds))
        return parts

    def in_log2(self, dim: str) -> Any:
        return self.family.in_dims[dim].evaluate(self.ops, self.param_env, self.size_bounds)

    def inputs(self, prefix: str) -> tuple[dict[str, Any], dict[str, Any], list[Any]]:
        """Raw input variables, their widened values, and range constraints x < 2**n(p)."""
        raw: dict[str, Any] = {}
        env: dict[str, Any] = {}
        ranges: list[Any] = []
        for d, bits in self.max_in.items():
            if bits == 0:
                raw[d] = None
                env[d] = self.ops.const(0)
                continue
            variable = z3.BitVec(f"{prefix}{d}", bits)
            raw[d] = variable
            wide = z3.ZeroExt(self.width - bits, variable)
            env[d] = wide
            ranges.append(z3.LShR(wide, self.in_log2(d)) == 0)
        return raw, env, ranges

    def reference_at(self, env: Mapping[str, Any]) -> dict[str, Any]:
        full = {**self.param_env, **env}
        return {o: f.evaluate(self.ops, full, self.ref_bounds) for o, f in self.reference.items()}

    def basis_at(self, dim: str, index: Any) -> dict[str, Any]:
        env = {**self.param_env, BIT: index}
        return {
            o: f.evaluate(self.ops, env, self.basis_bounds)
            for o, f in self.family.bases[dim].items()
        }

    def layout_at(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The member's output at raw inputs: the XOR over every possible input bit of its
        symbolic basis (the direct encoding; bits beyond a dim's size are 0 by range)."""
        zero = self.ops.const(0)
        value = {o: zero for o in self.family.out_dims}
        for dim, max_bits in self.max_in.items():
            for bit in range(max_bits):
                basis = self.basis_at(dim, self.ops.const(bit))
                selected = z3.Extract(bit, bit, raw[dim]) == 1
                for o in value:
                    value[o] = value[o] ^ z3.If(selected, basis[o], zero)
        return value

    def params_from(self, model: Any) -> dict[str, int]:
        return {name: model_value(model, v) for name, v in self.params.items()}


def _tight_max_log2(family: LayoutFamily, timeout_ms: int = 10_000) -> dict[str, int]:
    """The largest log2 size of each in dim over the valid parameters (the interval bound
    tightened by the constraint, found by binary search with z3)."""
    loose = family.max_log2("in")
    if family.constraint is None:
        return loose
    ranges: dict[str, Interval] = dict(family.params)
    width = (
        max([family.constraint.width(ranges)] + [f.width(ranges) for f in family.in_dims.values()])
        + 1
    )
    ops = Z3Ops(width)
    params = {n: z3.BitVec(f"q!{n}", width) for n in family.params}
    domain = [
        z3.And(z3.UGE(v, family.params[n][0]), z3.ULE(v, family.params[n][1]))
        for n, v in params.items()
    ]
    domain.append(family.constraint.evaluate(ops, params, family.constraint.bounds(ranges)))
    tight = {}
    for dim, formula in family.in_dims.items():
        size = formula.evaluate(ops, params, formula.bounds(ranges))
        low, high = 0, loose[dim]  # invariant: some member reaches `low`; none exceeds `high`
        while low < high:
            middle = (low + high + 1) // 2
            # the claim "no member reaches 2^middle": violated where one does
            reached = decide([*domain, z3.UGE(size, middle)], timeout_ms).status
            if reached == Status.REFUTED:
                low = middle
            elif reached == Status.PROVED:
                high = middle - 1
            else:
                return loose  # keep the sound loose bound
        tight[dim] = low
    return tight


def require_members(family: LayoutFamily, timeout_ms: int) -> None:
    """Refuse a family whose constraint no parameter value satisfies (a vacuous proof)."""
    from llverify.errors import LayoutError

    if family.constraint is None:
        return
    setup = _Setup(family, {})
    if decide(setup.domain(), timeout_ms).status == Status.PROVED:  # "no member": valid
        raise LayoutError(
            f"family '{family.name}' has no member: no parameter values in range satisfy "
            f"its constraint {family.constraint.text}."
        )


def normalize_reference(family: LayoutFamily, reference: Mapping[str, Any]) -> dict[str, Formula]:
    if set(reference) != set(family.out_dims):
        raise FormulaError(
            f"the reference must give a formula for each out dim {list(family.out_dims)}, "
            f"not for {list(reference)}"
        )
    allowed = set(family.params) | set(family.in_dims)
    result = {}
    for out, text in reference.items():
        formula = text if isinstance(text, Formula) else Formula(text)
        unknown = sorted(formula.variables - allowed)
        if unknown:
            raise FormulaError(
                f"formula for '{out}' uses {unknown}, which are neither in dims "
                f"{sorted(family.in_dims)} nor parameters {sorted(family.params)}",
                formula.text,
            )
        result[out] = formula
    return result


def family_claim(family: LayoutFamily, reference: Mapping[str, Formula]) -> str:
    text = "; ".join(f"{o} = {f.text}" for o, f in reference.items())
    return f"family {family.name} == reference ({text}) for all parameters"


def _replayed(
    family: LayoutFamily,
    reference: Mapping[str, Formula],
    params: Mapping[str, int],
    point: Mapping[str, int],
) -> tuple[dict[str, int], dict[str, int]] | None:
    """(actual, expected) if the concrete member differs from the reference at ``point``."""
    if not family.is_member(**params):
        return None
    layout = family.instance(**params)
    sizes = dict(layout.in_dims)
    if any(not 0 <= point[d] < sizes[d] for d in point):
        return None
    actual = layout.apply(dict(point))
    env = {**params, **point}
    expected = {o: int(f.evaluate(_INT, env)) for o, f in reference.items()}
    if actual == expected:
        return None
    return actual, expected


def _model_point(model: Any, raw: Mapping[str, Any]) -> dict[str, int]:
    """The model's value of each raw input variable (0 for a size-1 dim's None)."""
    return {d: 0 if v is None else model_value(model, v) for d, v in raw.items()}


class _FamilyProof:
    """One proof that every member of a family equals a reference: the claim, the queries'
    :class:`_Setup`, the clock, and how a step ends other than proved (unknown, or a
    refutation replayed on the concrete member)."""

    method = ""

    def __init__(
        self,
        family: LayoutFamily,
        reference: dict[str, Formula],
        clock: VerdictClock,
        timeout_ms: int,
    ) -> None:
        self.family = family
        self.reference = reference
        self.clock = clock
        self.timeout_ms = timeout_ms
        self.claim = family_claim(family, reference)
        self.setup = _Setup(family, reference)
        self.domain = self.setup.domain()
        self.timings: dict[str, Any] = {}  # solver seconds of each query, by name

    def unknown(self, reason: str) -> Verdict:
        return self.clock.verdict(Status.UNKNOWN, self.claim, self.method, reason=reason)

    def undecided(self, result: Decision, what: str) -> Verdict:
        """The verdict of a query the solver did not decide."""
        return self.unknown(f"z3 ({what}): {result.reason}")

    def refuted(
        self,
        params: dict[str, int],
        point: dict[str, int],
        reason: str = "",
        details: dict[str, Any] | None = None,
    ) -> Verdict | None:
        """Refuted at ``params`` and ``point`` if the concrete member differs there."""
        replay = _replayed(self.family, self.reference, params, point)
        if replay is None:
            return None
        actual, expected = replay
        where = {**params, **point}
        return self.clock.verdict(
            Status.REFUTED, self.claim, self.method, where, actual, expected, reason, details
        )

    def refuted_or_unknown(self, model: Any, point: dict[str, int]) -> Verdict:
        """The refutation at the model's parameters and ``point``, or unknown if it does
        not replay."""
        verdict = self.refuted(self.setup.params_from(model), point)
        return verdict if verdict is not None else self.unknown("counterexample did not replay")


class _LinearProof(_FamilyProof):
    """``parametric-linear``: the module docstring's three queries, one step each (the
    third once per in dim); a step gives None when it holds, else the verdict."""

    method = "parametric-linear"

    def run(self) -> Verdict:
        dims = [dim for dim, max_bits in self.setup.max_in.items() if max_bits]
        steps: list[Callable[[], Verdict | None]] = [self.affine, self.zero_to_zero]
        steps += [partial(self.bases, dim) for dim in dims]
        for step in steps:
            verdict = step()
            if verdict is not None:
                return verdict
        return self.clock.verdict(
            Status.PROVED,
            self.claim,
            self.method,
            reason="the reference is GF(2)-affine, maps 0 to 0 and every basis input to the "
            "family's basis, for all parameters (z3)",
            details={"width": self.setup.width, **self.timings},
        )

    def _decide(self, timing: str, constraints: list[Any]) -> Decision:
        """A query over the parameter domain; its solver time is kept as ``timing``."""
        result = decide([*self.domain, *constraints], self.timeout_ms)
        self.timings[timing] = result.time_s
        return result

    def affine(self) -> Verdict | None:
        """(1) The reference is GF(2)-affine in the inputs, for every parameter value."""
        setup = self.setup
        raw_x, env_x, range_x = setup.inputs("x!")
        raw_y, env_y, range_y = setup.inputs("y!")
        env_xy = {d: env_x[d] ^ env_y[d] for d in env_x}
        zero = {d: setup.ops.const(0) for d in env_x}
        r_x, r_y = setup.reference_at(env_x), setup.reference_at(env_y)
        r_xy, r_0 = setup.reference_at(env_xy), setup.reference_at(zero)
        not_affine = z3.Or(*[r_xy[o] != (r_x[o] ^ r_y[o] ^ r_0[o]) for o in self.reference])
        result = self._decide("affine_s", [*range_x, *range_y, not_affine])
        if result.status is Status.UNKNOWN:
            return self.undecided(result, "affinity")
        if result.status is Status.PROVED:
            return None
        params = setup.params_from(result.model)
        x, y = _model_point(result.model, raw_x), _model_point(result.model, raw_y)
        reason = "the reference is not GF(2)-affine for these parameters"
        for point in (x, y, {d: x[d] ^ y[d] for d in x}, dict.fromkeys(x, 0)):
            verdict = self.refuted(params, point, reason, dict(self.timings))
            if verdict is not None:
                return verdict
        return self.unknown("non-affinity witness did not replay")

    def zero_to_zero(self) -> Verdict | None:
        """(2) The reference maps input 0 to 0, for every parameter value."""
        zero = {d: self.setup.ops.const(0) for d in self.setup.max_in}
        r_0 = self.setup.reference_at(zero)
        result = self._decide("zero_s", [z3.Or(*[r_0[o] != 0 for o in self.reference])])
        if result.status is Status.UNKNOWN:
            return self.undecided(result, "zero")
        if result.status is Status.PROVED:
            return None
        return self.refuted_or_unknown(result.model, dict.fromkeys(self.family.in_dims, 0))

    def bases(self, dim: str) -> Verdict | None:
        """(3) Each basis input of ``dim`` maps to the family's basis, for all parameters
        and bit indices at once (the index is a symbolic variable)."""
        setup = self.setup
        index_bits = max(1, max(setup.max_in.values(), default=0).bit_length())
        index = z3.BitVec(f"i!{dim}", index_bits)
        wide_index = z3.ZeroExt(setup.width - index_bits, index)
        unit = {d: setup.ops.const(0) for d in self.family.in_dims}
        unit[dim] = setup.ops.const(1) << wide_index
        r_e = setup.reference_at(unit)
        b_e = setup.basis_at(dim, wide_index)
        in_range = z3.ULT(wide_index, setup.in_log2(dim))
        differs = z3.Or(*[r_e[o] != b_e[o] for o in self.reference])
        result = self._decide(f"basis_{dim}_s", [in_range, differs])
        if result.status is Status.UNKNOWN:
            return self.undecided(result, f"bases of {dim}")
        if result.status is Status.PROVED:
            return None
        point = dict.fromkeys(self.family.in_dims, 0)
        point[dim] = 1 << model_value(result.model, index)
        return self.refuted_or_unknown(result.model, point)


class _DirectProof(_FamilyProof):
    """Method ``z3``, the naive encoding: the layout as an XOR over all input bits of
    symbolic bases, in one query."""

    method = "z3"

    def run(self) -> Verdict:
        setup = self.setup
        raw, env, ranges = setup.inputs("x!")
        layout_value = setup.layout_at(raw)
        r_x = setup.reference_at(env)
        differs = z3.Or(*[layout_value[o] != r_x[o] for o in self.family.out_dims])
        result = decide([*self.domain, *ranges, differs], self.timeout_ms)
        if result.status is Status.UNKNOWN:
            return self.undecided(result, "direct")
        if result.status is Status.PROVED:
            return self.clock.verdict(
                Status.PROVED,
                self.claim,
                self.method,
                reason="no parameters and input make them differ",
                details={"width": setup.width, "solver_s": result.time_s},
            )
        return self.refuted_or_unknown(result.model, _model_point(result.model, raw))


def prove_family_equal(
    family: LayoutFamily,
    reference: Mapping[str, Any],
    *,
    method: str = "auto",
    timeout_ms: int = 60_000,
) -> Verdict:
    """Prove every member of ``family`` equal to ``reference`` (formulas over the family's
    in dims and parameters) with ``method`` "parametric-linear" (``"auto"``) or "z3" (the
    public :func:`llverify.prove.prove_family_equal` adds "enumerate").  A refutation names
    the parameters and the input.

    Examples:
        >>> from llverify.proof.family import swizzled_shared_2d, SWIZZLED_REFERENCE
        >>> prove_family_equal(swizzled_shared_2d(8, 3), SWIZZLED_REFERENCE).status
        <Status.PROVED: 'proved'>
    """
    if method not in METHODS:
        raise ValueError(f"Argument 'method' must be one of {METHODS}, not {method!r}.")
    clock = Verdict.timed()
    formulas = normalize_reference(family, reference)
    require_members(family, timeout_ms)
    proof = _DirectProof if method == "z3" else _LinearProof
    return proof(family, formulas, clock, timeout_ms).run()


PROPERTIES = ("injective", "surjective", "no_broadcast", "distributed", "memory")


def _bits_set(value: Any, bits: int) -> Any:
    """Number of set bits among the low ``bits`` bits, as a small bit-vector sum."""
    width = value.size()
    total = z3.BitVecVal(0, width)
    for b in range(bits):
        total = total + z3.ZeroExt(width - 1, z3.Extract(b, b, value))
    return total


def _parity(value: Any, bits: int) -> Any:
    if bits == 0:
        return z3.BitVecVal(0, 1)
    result = z3.Extract(0, 0, value)
    for b in range(1, bits):
        result = result ^ z3.Extract(b, b, value)
    return result


def _columns(setup: _Setup) -> list[tuple[str, int, Any, dict[str, Any]]]:
    """(in dim, bit, guard "bit < size", basis coords) for every possible basis, unrolled."""
    columns = []
    for dim, max_bits in setup.max_in.items():
        size = setup.in_log2(dim)
        for bit in range(max_bits):
            constant = setup.ops.const(bit)
            columns.append((dim, bit, z3.ULT(constant, size), setup.basis_at(dim, constant)))
    return columns


class _Violations:
    """Constraints satisfiable exactly when some member of the family violates a property:
    :meth:`of` a name of :data:`PROPERTIES`, one method each."""

    def __init__(self, setup: _Setup) -> None:
        self.setup = setup
        self.ops = setup.ops
        self.outs = list(setup.family.out_dims)
        self.columns = _columns(setup)
        self.max_out = _tight_max_log2_out(setup.family)
        self.out_size = {
            o: setup.family.out_dims[o].evaluate(self.ops, setup.param_env, setup.size_bounds)
            for o in self.outs
        }
        self.zero = self.ops.const(0)

    def of(self, prop: str) -> list[Any]:
        handlers = {
            "no_broadcast": self.no_broadcast,
            "injective": self.injective,
            "surjective": self.surjective,
            "distributed": self.distributed,
            "memory": self.memory,
        }
        if prop not in handlers:
            raise ValueError(f"Argument 'property' must be one of {PROPERTIES}, not {prop!r}.")
        return handlers[prop]()

    def _nonzero(self, coords: dict[str, Any]) -> Any:
        outs = self.outs
        return z3.Or(*[coords[o] != self.zero for o in outs]) if outs else z3.BoolVal(False)

    def no_broadcast(self) -> list[Any]:
        """Some basis in range is zero."""
        return [
            z3.Or(*[z3.And(guard, z3.Not(self._nonzero(c))) for _, _, guard, c in self.columns])
        ]

    def injective(self) -> list[Any]:
        """Some non-zero input maps to 0 (a linear map is injective iff its kernel is 0)."""
        raw, env, ranges = self.setup.inputs("x!")
        value = self.setup.layout_at(raw)
        zero = self.zero
        some_input = z3.Or(*[env[d] != zero for d in env]) if env else z3.BoolVal(False)
        return [*ranges, some_input, z3.And(*[value[o] == zero for o in self.outs])]

    def surjective(self) -> list[Any]:
        """A non-zero functional on the output bits (a parity of some of them) that every
        basis in range keeps even: then no input reaches an output where it is odd."""
        functional = {}
        constraints = []
        for o in self.outs:
            bits = self.max_out[o]
            f = z3.BitVec(f"f!{o}", max(1, bits))
            functional[o] = (f, bits)
            wide = z3.ZeroExt(self.setup.width - f.size(), f)
            constraints.append(z3.LShR(wide, self.out_size[o]) == 0)
        constraints.append(
            z3.Or(*[f != 0 for f, _ in functional.values()]) if self.outs else z3.BoolVal(False)
        )
        for _, _, guard, coords in self.columns:
            parity = z3.BitVecVal(0, 1)
            for o in self.outs:
                f, bits = functional[o]
                if bits:
                    parity = parity ^ _parity(z3.Extract(bits - 1, 0, coords[o]) & f, bits)
            constraints.append(z3.Implies(guard, parity == 0))
        return constraints

    def distributed(self) -> list[Any]:
        """A basis in range that is not one-hot, or two non-zero bases in range that are
        equal (surjectivity is a separate query)."""
        ops, outs, zero, columns = self.ops, self.outs, self.zero, self.columns
        violations = []
        for _, _, guard, coords in columns:
            count = sum((z3.If(coords[o] != zero, ops.const(1), zero) for o in outs), zero)
            not_one_hot = z3.Or(
                z3.UGT(count, 1), *[(coords[o] & (coords[o] - 1)) != zero for o in outs]
            )
            violations.append(z3.And(guard, not_one_hot))
        for a in range(len(columns)):
            for b in range(a + 1, len(columns)):
                _, _, guard_a, ca = columns[a]
                _, _, guard_b, cb = columns[b]
                same = z3.And(*[ca[o] == cb[o] for o in outs])
                violations.append(z3.And(guard_a, guard_b, self._nonzero(ca), same))
        return [z3.Or(*violations)]

    def memory(self) -> list[Any]:
        """A basis in range with 0 or more than 2 bits set, or as many input bits as
        output bits not given (injectivity is a separate query)."""
        outs, zero = self.outs, self.zero
        violations = []
        for _, _, guard, coords in self.columns:
            count = sum(
                (_bits_set(coords[o], self.max_out[o]) for o in outs),
                z3.BitVecVal(0, self.setup.width),
            )
            violations.append(z3.And(guard, z3.Or(count == 0, z3.UGT(count, 2))))
        in_total = sum((self.setup.in_log2(d) for d in self.setup.family.in_dims), zero)
        out_total = sum((self.out_size[o] for o in outs), zero)
        violations.append(in_total != out_total)
        return [z3.Or(*violations)]


def _tight_max_log2_out(family: LayoutFamily) -> dict[str, int]:
    swapped = LayoutFamily(
        family.name,
        family.params,
        family.out_dims,
        family.out_dims,
        {o: {p: "0" for p in family.out_dims} for o in family.out_dims},
        family.constraint,
    )
    return _tight_max_log2(swapped)


#: Properties decided by two queries, the second (the named one) once the first holds:
#: bits and squareness first, then invertibility of a square layout is injectivity; one-hot
#: distinct bases first, then surjectivity.
_THEN = {"memory": "injective", "distributed": "surjective"}


def _search_violation(setup: _Setup, prop: str, timeout_ms: int) -> Decision:
    """Search for a member of the family that violates ``prop`` (in two queries for the
    properties of :data:`_THEN`)."""
    violations = _Violations(setup)
    result = decide([*setup.domain(), *violations.of(prop)], timeout_ms)
    if prop in _THEN and result.status is Status.PROVED:
        result = decide([*setup.domain(), *violations.of(_THEN[prop])], timeout_ms)
    return result


def _check_no_broadcast(layout: Any) -> Verdict:
    from llverify.proof.structure import broadcast_bits

    clock = Verdict.timed()
    bits = broadcast_bits(layout)
    for name, mask in bits.items():
        if mask:
            point = dict.fromkeys(bits, 0)
            point[name] = mask & -mask
            return clock.verdict(
                Status.REFUTED,
                "no zero basis",
                "gf2",
                point,
                layout.apply(point),
                reason=f"basis {name}={point[name]} is zero",
            )
    return clock.verdict(Status.PROVED, "no zero basis", "gf2")


def _concrete_check(prop: str) -> Callable[[Any], Verdict]:
    """The check of ``prop`` on one concrete layout (:mod:`llverify.proof.structure`)."""
    from llverify.proof import structure

    checks: dict[str, Callable[[Any], Verdict]] = {
        "injective": structure.check_injective,
        "surjective": structure.check_surjective,
        "distributed": structure.check_distributed,
        "memory": structure.check_memory_layout,
        "no_broadcast": _check_no_broadcast,
    }
    return checks[prop]


def prove_family_property(family: LayoutFamily, prop: str, *, timeout_ms: int = 60_000) -> Verdict:
    """Prove a structural property for every member: "injective", "surjective",
    "no_broadcast" (no zero basis), "distributed" or "memory" (the paper's definitions).

    A refutation names the parameters and carries the member's concrete witness (from
    :mod:`llverify.proof.structure`), so it is replayed exactly.

    Examples:
        >>> from llverify.proof.family import swizzled_shared_2d
        >>> prove_family_property(swizzled_shared_2d(8, 3), "memory").status
        <Status.PROVED: 'proved'>
    """
    if prop not in PROPERTIES:
        raise ValueError(f"Argument 'prop' must be one of {PROPERTIES}, not {prop!r}.")
    clock = Verdict.timed()
    claim = f"every member of family {family.name} is {prop.replace('_', ' ')}"
    require_members(family, timeout_ms)
    setup = _Setup(family, {})
    result = _search_violation(setup, prop, timeout_ms)
    if result.status is Status.UNKNOWN:
        return clock.verdict(Status.UNKNOWN, claim, "z3", reason=f"z3: {result.reason}")
    if result.status is Status.PROVED:
        return clock.verdict(Status.PROVED, claim, "z3", reason="no parameter values violate it")
    params = setup.params_from(result.model)
    if family.is_member(**params):
        concrete = _concrete_check(prop)(family.instance(**params))
        if concrete.refuted:
            assert concrete.counterexample is not None
            return clock.verdict(
                Status.REFUTED,
                claim,
                "z3",
                {**params, **concrete.counterexample},
                concrete.actual,
                concrete.expected,
                f"{params}: {concrete.reason}",
                concrete.details,
            )
    return clock.verdict(
        Status.UNKNOWN, claim, "z3", reason=f"z3's witness {params} did not replay"
    )
