"""One place where Z3 is asked anything: satisfiability with a time limit, never trusted
beyond what it says (an "unknown" stays unknown)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import z3


@dataclass(frozen=True)
class SolverResult:
    """``status`` is "sat", "unsat" or "unknown"; ``model`` is set for "sat"."""

    status: str
    model: Any
    reason: str
    time_s: float


def check(constraints: Sequence[Any], timeout_ms: int, rlimit: int | None = None) -> SolverResult:
    """Is the conjunction of ``constraints`` satisfiable?  Bounded by ``timeout_ms``.

    Examples:
        >>> x = z3.BitVec("x", 8)
        >>> check([x * 2 == 3], 1000).status
        'unsat'
    """
    # The general solver: it picks the bit-vector tactic for pure bit-vector queries, and
    # stays sound if a query mixes in another theory (SolverFor("QF_BV") would silently
    # treat integer arithmetic as uninterpreted functions).
    solver = z3.Solver()
    solver.set("timeout", max(1, int(timeout_ms)))
    if rlimit is not None:
        solver.set("rlimit", int(rlimit))
    solver.add(*constraints)
    start = time.perf_counter()
    try:
        answer = solver.check()
    except z3.Z3Exception as error:  # e.g. cancelled
        return SolverResult("unknown", None, f"z3 error: {error}", time.perf_counter() - start)
    elapsed = time.perf_counter() - start
    if answer == z3.sat:
        return SolverResult("sat", solver.model(), "", elapsed)
    if answer == z3.unsat:
        return SolverResult("unsat", None, "", elapsed)
    return SolverResult("unknown", None, solver.reason_unknown() or "unknown", elapsed)


def model_value(model: Any, variable: Any) -> int:
    """The model's value of a bit-vector variable (0 when the model leaves it free)."""
    value = model.eval(variable, model_completion=True)
    return int(value.as_long())
