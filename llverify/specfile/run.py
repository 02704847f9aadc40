"""Running obligations: :func:`run_obligation` decides one, :func:`run_all` many (in a
process pool with ``jobs > 1``).

An :class:`Outcome` says what was found ("proved", "refuted", "unknown", or "error" when the
inputs were rejected while running), what the spec expected, whether they agree, and a
message with the evidence (the counterexample of a refuted proof, the colliding lanes of a
bank conflict, the certificate of a swizzle).
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any

from llverify.errors import LayoutError, LLVerifyError
from llverify.specfile.parse import Obligation, build_layout, is_padded

__all__ = ["STATUSES", "Outcome", "run_all", "run_obligation"]

#: what running an obligation can find
STATUSES = ("proved", "refuted", "unknown", "error")

Progress = Callable[[int, int, "Outcome"], None]


@dataclass(frozen=True)
class Outcome:
    """The result of one obligation.

    Attributes:
        status: "proved", "refuted", "unknown" (a solver ran out of time) or "error" (the
            inputs were rejected while running; the message says why).
        expected: what the spec expects ("proved" or "refuted").
        passed: ``status == expected``.
        message: the evidence, e.g. ``refuted by linear in 1.2 ms: register=3, lane=17 ->
            (5, 12), reference says (5, 4)``.
        seconds: wall time.
        details: JSON-ready numbers behind the message.
    """

    name: str
    kind: str
    file: str
    line: int
    status: str
    expected: str
    passed: bool
    message: str
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def run_obligation(obligation: Any, timeout_s: float = 60.0) -> Outcome:
    """Decide one obligation (a spec file's, or a built-in
    :class:`~llverify.library.LibraryObligation`); ``timeout_s`` is the solver budget (Z3
    queries, swizzle synthesis). Never raises for bad inputs: they give status "error"."""
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or timeout_s <= 0:
        raise LLVerifyError(f"Argument 'timeout_s' must be a positive number, not {timeout_s!r}.")
    if not isinstance(obligation, Obligation):
        return _run_library(obligation, float(timeout_s))
    start = time.perf_counter()
    details: dict[str, Any] = {}
    try:
        runner = _RUNNERS[obligation.kind]
        status, message, details = runner(obligation, float(timeout_s))
    except LLVerifyError as error:
        status, message = "error", f"{obligation.location}: {error}"
    except RecursionError:
        status, message = "error", f"{obligation.location}: nested too deeply"
    except Exception as error:  # an obligation must never take the whole run down
        status = "error"
        message = f"{obligation.location}: internal error ({type(error).__name__}: {error})"
    return Outcome(
        name=obligation.name,
        kind=obligation.kind,
        file=obligation.file,
        line=obligation.line,
        status=status,
        expected=obligation.expect,
        passed=status == obligation.expect,
        message=message,
        seconds=time.perf_counter() - start,
        details=details,
    )


def _run_library(obligation: Any, timeout_s: float) -> Outcome:
    """A built-in library obligation, reported like a spec file's (file: its specs module)."""
    result = obligation.run(timeout_s)
    return Outcome(
        name=result.name,
        kind=f"library {result.kind}",
        file=f"specs/{result.group}.py",
        line=0,
        status=result.status,
        expected=result.expected,
        passed=result.passed,
        message=result.message,
        seconds=result.seconds,
        details={"method": result.method, **result.details},
    )


def run_all(
    obligations: Iterable[Any],
    jobs: int = 1,
    timeout_s: float = 60.0,
    progress: Progress | None = None,
) -> list[Outcome]:
    """Run every obligation; outcomes come back in the order of ``obligations``.

    ``jobs > 1`` runs them in a ``ProcessPoolExecutor`` of that many workers.
    ``progress(done, total, outcome)`` is called as each one finishes.
    """
    items = list(obligations)
    total = len(items)
    results: list[Outcome | None] = [None] * total
    if jobs <= 1 or total <= 1:
        for i, obligation in enumerate(items):
            results[i] = run_obligation(obligation, timeout_s)
            if progress is not None:
                progress(i + 1, total, results[i])  # type: ignore[arg-type]
        return [r for r in results if r is not None]
    with ProcessPoolExecutor(max_workers=min(jobs, total)) as pool:
        futures = {pool.submit(run_obligation, ob, timeout_s): i for i, ob in enumerate(items)}
        for done, future in enumerate(as_completed(futures), start=1):
            i = futures[future]
            try:
                outcome = future.result()
            except Exception as error:  # a worker died (memory, a signal): report, go on
                outcome = _failed(items[i], f"the worker process failed: {error!r}")
            results[i] = outcome
            if progress is not None:
                progress(done, total, outcome)
    return [r for r in results if r is not None]


def _failed(obligation: Any, reason: str) -> Outcome:
    if not isinstance(obligation, Obligation):  # a built-in library obligation
        where = f"specs/{obligation.group}.py"
        return Outcome(
            obligation.name,
            f"library {obligation.kind}",
            where,
            0,
            "error",
            obligation.expect,
            False,
            f"{where}: {reason}",
            0.0,
        )
    return Outcome(
        obligation.name,
        obligation.kind,
        obligation.file,
        obligation.line,
        "error",
        obligation.expect,
        False,
        f"{obligation.location}: {reason}",
        0.0,
    )


# ---------------------------------------------------------------------- the kinds

_Result = tuple[str, str, dict[str, Any]]


def _verdict_data(verdict: Any) -> dict[str, Any]:
    return {
        "status": verdict.status,
        "claim": verdict.claim,
        "method": verdict.method,
        "time_s": verdict.time_s,
        "counterexample": verdict.counterexample,
        "actual": verdict.actual,
        "expected": verdict.expected,
        "reason": verdict.reason,
    }


def _load_function(obligation: Obligation) -> Callable[..., Any]:
    """Import ``package.module:function`` (only for obligations parsed with allow_code)."""
    if not obligation.code_allowed or obligation.reference_function is None:
        raise LLVerifyError("'reference_function' runs Python code and needs --allow-code.")
    module_name, _, attribute = obligation.reference_function.partition(":")
    cwd = os.getcwd()
    if cwd not in sys.path:  # the console script does not put the project on sys.path
        sys.path.append(cwd)
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise LLVerifyError(f"reference_function: cannot import '{module_name}': {error}") from None
    function = getattr(module, attribute, None)
    if not callable(function):
        raise LLVerifyError(f"reference_function: '{module_name}' has no function '{attribute}'.")
    return function


def _equivalence(ob: Obligation, timeout_s: float) -> _Result:
    from llverify.prove import prove_equal

    assert ob.layout is not None
    layout = build_layout(ob.layout, ob.shape)
    reference: Any
    if ob.reference is not None:
        reference = dict(ob.reference)
    elif ob.reference_layout is not None:
        reference = build_layout(ob.reference_layout, ob.shape)
    else:
        reference = _load_function(ob)
    timeout_ms = max(1, int(timeout_s * 1000))
    verdict = prove_equal(layout, reference, method=ob.method, timeout_ms=timeout_ms)
    return verdict.status, str(verdict), {"verdict": _verdict_data(verdict)}


def _conversion(ob: Obligation, timeout_s: float) -> _Result:
    from llverify.conversion import Conversion

    assert ob.src is not None and ob.dst is not None
    conv = Conversion(build_layout(ob.src, ob.shape), build_layout(ob.dst, ob.shape))
    verify, coverage = conv.verify(), conv.coverage()
    try:
        kind: str | None = conv.kind
    except LLVerifyError:
        kind = None
    levels = {"refuted": 0, "unknown": 1, "proved": 2}
    status = min(verify.status, coverage.status, key=levels.__getitem__)
    parts = [
        f"dst(cvt(x)) == src(x): {verify}",
        f"every destination element has a source: {coverage}",
        f"lowered as '{kind}'",
    ]
    if ob.lowering is not None and kind != ob.lowering:
        parts.insert(0, f"Triton lowers it as '{kind}', the spec requires '{ob.lowering}'")
        status = "refuted"
    details = {
        "verify": _verdict_data(verify),
        "coverage": _verdict_data(coverage),
        "lowering": kind,
    }
    return status, "; ".join(parts), details


def _analysis(ob: Obligation) -> Any:
    from llverify.access import access_analysis

    assert ob.register is not None and ob.shared is not None and ob.shape is not None
    assert ob.element_bits is not None
    register = build_layout(ob.register, ob.shape)
    shared: Any = ob.shared if is_padded(ob.shared) else build_layout(ob.shared, ob.shape)
    return access_analysis(register, shared, list(ob.shape), ob.element_bits, ob.target)


def _access_details(a: Any) -> dict[str, Any]:
    return {
        "target": a.target,
        "access_bits": a.access_bits,
        "elements_per_vector": a.elems_per_vec,
        "conflicts": a.hardware_conflicts,
        "triton_conflicts": a.triton_conflicts,
        "wavefronts": a.store_wavefronts,
        "colliding_lanes": list(a.colliding_lanes),
    }


def _bank_conflicts(ob: Obligation, timeout_s: float) -> _Result:
    a = _analysis(ob)
    limit = ob.max_conflicts or 0
    conflicts = a.hardware_conflicts
    where = f"{a.access_bits}-bit accesses, {a.store_wavefronts} wavefronts"
    if conflicts <= limit:
        return (
            "proved",
            f"{conflicts} bank conflicts per wavefront <= max {limit} ({where})",
            _access_details(a),
        )
    lanes = ", ".join(map(str, a.colliding_lanes)) or "?"
    triton = "" if a.triton_conflicts is None else f"; Triton counts {a.triton_conflicts}"
    return (
        "refuted",
        f"{conflicts} bank conflicts per wavefront > max {limit}: lanes {lanes} access the "
        f"same bank in one wavefront ({where}{triton})",
        _access_details(a),
    )


def _vectorization(ob: Obligation, timeout_s: float) -> _Result:
    a = _analysis(ob)
    need = ob.min_bits or 0
    what = (
        f"{a.access_bits}-bit accesses ({a.elems_per_vec} x {ob.element_bits}-bit elements "
        "per lane)"
    )
    if a.access_bits >= need:
        return "proved", f"{what} >= min_bits {need}", _access_details(a)
    return "refuted", f"{what} < min_bits {need}", _access_details(a)


def _swizzle(ob: Obligation, timeout_s: float) -> _Result:
    from llverify.swizzle import synthesize_swizzle

    assert ob.src is not None and ob.dst is not None and ob.shape is not None
    assert ob.element_bits is not None
    src = build_layout(ob.src, ob.shape)
    dst = build_layout(ob.dst, ob.shape)
    try:
        result = synthesize_swizzle(
            src,
            dst,
            list(ob.shape),
            ob.element_bits,
            ob.target,
            vector=ob.vector,
            timeout_s=timeout_s,
        )
    except LayoutError as error:
        if "time budget" in str(error):
            return "unknown", f"no layout found within the solver budget: {error}", {}
        raise
    cost, cert = result.cost, result.certificate
    found = (
        f"{cost.total_wavefronts} wavefronts (store {cost.vector_bits[0]}-bit vectors, "
        f"{cost.store_conflicts} conflicts; load {cost.vector_bits[1]}-bit vectors, "
        f"{cost.load_conflicts} conflicts)"
    )
    details = {
        "offset_bases": result.offset_bases,
        "wavefronts": cost.total_wavefronts,
        "certificate": cert.status,
        "claim": cert.claim,
        "gluon": result.gluon(),
        "ttgir": result.ttgir(),
    }
    if cert.status == "unknown":
        return (
            "unknown",
            f"certificate unknown: the solver budget ({timeout_s:g} s) ran out before "
            f"optimality was proved; best layout found: {found}",
            details,
        )
    if ob.max_wavefronts is not None and cost.total_wavefronts > ob.max_wavefronts:
        return (
            "refuted",
            f"the optimal layout needs {cost.total_wavefronts} wavefronts > max_wavefronts "
            f"{ob.max_wavefronts} (certificate {cert.status}: {cert.claim}); {found}",
            details,
        )
    return "proved", f"certificate {cert.status}: {cert.claim}; {found}", details


_RUNNERS: dict[str, Callable[[Obligation, float], _Result]] = {
    "equivalence": _equivalence,
    "conversion": _conversion,
    "bank_conflicts": _bank_conflicts,
    "vectorization": _vectorization,
    "swizzle": _swizzle,
}
