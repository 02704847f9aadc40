"""The one place where Z3 is asked anything: satisfiability with a time limit, answered in
the solver's words (:func:`check`) or as a verdict status (:func:`decide`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import z3

from llverify.proof.verdict import Status


@dataclass(frozen=True)
class SolverResult:
    """``status`` is "sat", "unsat" or "unknown"; ``model`` is set for "sat"."""

    status: str
    model: Any
    reason: str
    time_s: float


@dataclass(frozen=True)
class Decision:
    """Whether a claim is valid, decided from a search for a violation of it.

    ``status``: :attr:`Status.PROVED` (no violation exists), :attr:`Status.REFUTED`
    (``model`` is a violation, still to be replayed by the caller) or
    :attr:`Status.UNKNOWN` (``reason`` says why: timeout, resource limit, ...).
    """

    status: Status
    model: Any
    reason: str
    time_s: float


def _context(constraints: Sequence[Any]) -> Any:
    """The one Z3 context the constraints live in (None, z3's global one, for plain values)."""
    contexts = {c.ctx for c in constraints if isinstance(c, z3.AstRef)}
    if len(contexts) > 1:
        raise ValueError("Argument 'constraints' must live in one Z3 context, not several.")
    return contexts.pop() if contexts else None


def _solver(
    timeout_ms: int, rlimit: int | None, logic: str | None, ctx: Any = None, seed: int = 0
) -> Any:
    # The general solver by default: it picks the bit-vector tactic for pure bit-vector
    # queries, and stays sound if a query mixes in another theory (SolverFor("QF_BV") would
    # silently treat integer arithmetic as uninterpreted functions).  A restricted `logic`
    # only for queries that provably fit it (the caller says why).
    solver = z3.SolverFor(logic, ctx=ctx) if logic is not None else z3.Solver(ctx=ctx)
    solver.set("timeout", max(1, int(timeout_ms)))
    if rlimit is not None:
        solver.set("rlimit", int(rlimit))
    if seed:
        solver.set("random_seed", int(seed))
    return solver


#: What Z3 says of a query that Ctrl-C stopped: during ``check()`` Z3 takes SIGINT itself (it
#: cancels the search and answers unknown), so Python never sees the interrupt.
KEYBOARD_INTERRUPT_REASON = "interrupted from keyboard"


def check_answer(solver: Any) -> Any:
    """``solver.check()``, except that a check that Ctrl-C stopped raises KeyboardInterrupt
    instead of answering unknown (an interrupted run must not read as a solver timeout).

    Examples:
        >>> check_answer(z3.Solver())
        sat
    """
    answer = solver.check()
    if answer == z3.unknown and solver.reason_unknown() == KEYBOARD_INTERRUPT_REASON:
        raise KeyboardInterrupt
    return answer


def _run(solver: Any) -> SolverResult:
    start = time.perf_counter()
    try:
        answer = check_answer(solver)
    except z3.Z3Exception as error:  # e.g. cancelled
        return SolverResult("unknown", None, f"z3 error: {error}", time.perf_counter() - start)
    elapsed = time.perf_counter() - start
    if answer == z3.sat:
        return SolverResult("sat", solver.model(), "", elapsed)
    if answer == z3.unsat:
        return SolverResult("unsat", None, "", elapsed)
    return SolverResult("unknown", None, solver.reason_unknown() or "unknown", elapsed)


def check(
    constraints: Sequence[Any],
    timeout_ms: int,
    rlimit: int | None = None,
    logic: str | None = None,
) -> SolverResult:
    """Is the conjunction of ``constraints`` satisfiable?  Bounded by ``timeout_ms`` (and
    ``rlimit``, z3's deterministic resource limit, when given); ``logic`` (e.g. "QF_BV")
    restricts the solver, for queries that provably fit that logic only.  The solver lives
    in the constraints' Z3 context (a caller that wants a query free of any other query's
    history builds its constraints in a ``z3.Context()`` of its own).

    Examples:
        >>> x = z3.BitVec("x", 8)
        >>> check([x * 2 == 3], 1000).status
        'unsat'
        >>> result = check([x * 3 == 7], 1000)
        >>> result.status, model_value(result.model, x) * 3 % 256
        ('sat', 7)
    """
    solver = _solver(timeout_ms, rlimit, logic, _context(constraints))
    solver.add(*constraints)
    return _run(solver)


def _decision(result: SolverResult) -> Decision:
    status = {"sat": Status.REFUTED, "unsat": Status.PROVED}.get(result.status, Status.UNKNOWN)
    return Decision(status, result.model, result.reason, result.time_s)


def decide(
    violation: Sequence[Any],
    timeout_ms: int,
    rlimit: int | None = None,
    logic: str | None = None,
) -> Decision:
    """Is a claim valid?  ``violation``: constraints that hold exactly where the claim fails
    (the limits and ``logic`` as for :func:`check`).  Unsatisfiable: PROVED; satisfiable:
    REFUTED with the model; otherwise UNKNOWN.

    Examples:
        >>> a, b = z3.BitVecs("a b", 8)
        >>> decide([a & b == 0, a + b != a ^ b], 1000).status
        <Status.PROVED: 'proved'>
        >>> refuted = decide([a + b != a ^ b], 1000)
        >>> refuted.status, model_value(refuted.model, a) & model_value(refuted.model, b) != 0
        (<Status.REFUTED: 'refuted'>, True)
    """
    return _decision(check(violation, timeout_ms, rlimit, logic))


def smtlib(constraints: Sequence[Any], logic: str | None = None) -> str:
    """The satisfiability query of ``constraints`` as SMT-LIB 2 text (with ``(check-sat)``),
    as the solver of :func:`check` with this ``logic`` writes it.

    Examples:
        >>> "(check-sat)" in smtlib([z3.BitVec("x", 4) == 3])
        True
    """
    solver = _solver(1, None, logic, _context(constraints))
    solver.add(*constraints)
    return str(solver.to_smt2())


def decide_smtlib(
    text: str,
    timeout_ms: int,
    rlimit: int | None = None,
    *,
    logic: str | None = None,
    ctx: Any = None,
    seed: int = 0,
) -> Decision:
    """:func:`decide` for a violation query given as SMT-LIB 2 text (from :func:`smtlib` or
    written directly), solved in the Z3 context ``ctx``: by default a context of its own
    (the answer does not depend on earlier queries); a caller passes its own to read the
    model with its variables (``logic`` as for :func:`check`; ``seed``: the solver's random
    seed, for a retry that searches differently).

    Examples:
        >>> x = z3.BitVec("x", 8)
        >>> decide_smtlib(smtlib([x * 2 == 3]), 1000).status
        <Status.PROVED: 'proved'>
        >>> ctx = z3.Context()
        >>> text = "(declare-fun y () (_ BitVec 8)) (assert (= (bvmul y #x03) #x07))"
        >>> found = decide_smtlib(text, 1000, logic="QF_BV", ctx=ctx)
        >>> model_value(found.model, z3.BitVec("y", 8, ctx)) * 3 % 256
        7
    """
    solver = _solver(timeout_ms, rlimit, logic, z3.Context() if ctx is None else ctx, seed)
    try:
        solver.from_string(text)
    except z3.Z3Exception as error:
        raise ValueError(
            f"Argument 'text' must be an SMT-LIB 2 query, not {text[:60]!r}: {error}"
        ) from None
    return _decision(_run(solver))


def model_value(model: Any, variable: Any) -> int:
    """The model's value of a bit-vector variable (0 when the model leaves it free).

    Examples:
        >>> x, y = z3.BitVecs("x y", 4)
        >>> model = check([x == 5], 1000).model
        >>> model_value(model, x), model_value(model, y)
        (5, 0)
    """
    value = model.eval(variable, model_completion=True)
    return int(value.as_long())
