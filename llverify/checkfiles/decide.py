"""How each kind of spec-file check is decided (equivalence, conversion, bank_conflicts,
vectorization, swizzle): the ``decide`` functions and claims of the obligations that
:mod:`llverify.checkfiles.parse` compiles spec files to.

Each ``decide(subject, reference, timeout_s)`` gets what the obligation's ``build()`` made
(layouts, built where the obligation runs) and gives a :class:`~llverify.proof.obligation.Ruling`:
the status, the evidence (the counterexample of a refuted proof, the colliding lanes of a bank
conflict, the certificate of a swizzle) and the numbers behind it.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from llverify.bits import counted
from llverify.errors import LLVerifyError
from llverify.proof.obligation import Ruling
from llverify.proof.verdict import Status

__all__ = [
    "AccessClaim",
    "SwizzleGoal",
    "access",
    "bank_conflicts",
    "conversion",
    "equivalence",
    "load_function",
    "pair",
    "swizzle",
    "vectorization",
]


@dataclass(frozen=True)
class AccessClaim:
    """A bank_conflicts (``bound`` = max conflicts) or vectorization (``bound`` = min bits)
    check of registers stored to shared memory: the tensor ``shape``, element bits, target."""

    bound: int
    shape: tuple[int, ...]
    element_bits: int
    target: str = "nvidia"


@dataclass(frozen=True)
class SwizzleGoal:
    """A swizzle check: synthesize the optimal shared layout between ``src`` and ``dst``
    (the subject) on ``shape``; refuted when it needs more than ``max_wavefronts``."""

    shape: tuple[int, ...]
    element_bits: int
    target: str = "nvidia"
    vector: str = "symmetric"
    max_wavefronts: int | None = None


def pair(first: Callable[[], Any], second: Callable[[], Any]) -> tuple[Any, Any]:
    """``(first(), second())``: a subject of two layouts (a conversion's, a swizzle's, a
    store's registers and shared layout).

    Examples:
        >>> pair(lambda: 1, lambda: "two")
        (1, 'two')
    """
    return first(), second()


def load_function(name: str) -> Callable[..., Any]:
    """Import ``package.module:function`` (a ``reference_function``, only in obligations
    parsed with ``allow_code``); the working directory is importable.

    Examples:
        >>> load_function("math:gcd")(12, 18)
        6
        >>> load_function("math:nothing")
        Traceback (most recent call last):
        ...
        llverify.errors.LLVerifyError: reference_function: 'math' has no function 'nothing'.
    """
    module_name, _, attribute = name.partition(":")
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


def equivalence(layout: Any, reference: Any, timeout_s: float, method: str = "auto") -> Ruling:
    """``layout`` equals ``reference``: ``(out dim, formula)`` pairs, or a zero-argument
    callable that builds it (a reference layout, an imported reference function).

    Examples:
        >>> from llverify.layout import LinearLayout
        >>> layout = LinearLayout.identity_1d(4, "lane", "dim0")
        >>> equivalence(layout, (("dim0", "lane"),), 10.0).status
        <Status.PROVED: 'proved'>
    """
    from llverify.prove import prove_equal

    target = reference() if callable(reference) else dict(reference)
    timeout_ms = max(1, int(timeout_s * 1000))
    verdict = prove_equal(layout, target, method=method, timeout_ms=timeout_ms)
    return Ruling(Status(verdict.status), str(verdict), {"verdict": _verdict_data(verdict)})


def conversion(layouts: tuple[Any, Any], lowering: str | None, timeout_s: float) -> Ruling:
    """``layouts = (src, dst)``: the conversion is correct and complete, and (when
    ``lowering`` is given) Triton lowers it that way."""
    from llverify.conversion import Conversion

    conv = Conversion(*layouts)
    verify, coverage = conv.verify(), conv.coverage()
    try:
        kind: str | None = conv.kind
    except LLVerifyError:
        kind = None
    status = Status.weakest([verify.status, coverage.status])
    parts = [
        f"dst(cvt(x)) == src(x): {verify}",
        f"every destination element has a source: {coverage}",
        f"lowered as '{kind}'",
    ]
    if lowering is not None and kind != lowering:
        parts.insert(0, f"Triton lowers it as '{kind}', the spec requires '{lowering}'")
        status = Status.REFUTED
    details = {
        "verify": _verdict_data(verify),
        "coverage": _verdict_data(coverage),
        "lowering": kind,
    }
    return Ruling(status, "; ".join(parts), details)


def access(layouts: tuple[Any, Any], claim: AccessClaim) -> Any:
    """The access analysis of ``layouts = (registers, shared)`` (shared: a LinearLayout or
    a PaddedLayout) under ``claim``."""
    from llverify.shared_memory.access import access_analysis

    register, shared = layouts
    return access_analysis(register, shared, list(claim.shape), claim.element_bits, claim.target)


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


def bank_conflicts(layouts: tuple[Any, Any], claim: AccessClaim, timeout_s: float) -> Ruling:
    """At most ``claim.bound`` bank conflicts per wavefront."""
    a = access(layouts, claim)
    conflicts = a.hardware_conflicts
    where = f"{a.access_bits}-bit accesses, {a.store_wavefronts} wavefronts"
    if conflicts <= claim.bound:
        return Ruling(
            Status.PROVED,
            f"{counted(conflicts, 'bank conflict')} per wavefront <= max {claim.bound} ({where})",
            _access_details(a),
        )
    lanes = ", ".join(map(str, a.colliding_lanes)) or "?"
    triton = "" if a.triton_conflicts is None else f"; Triton counts {a.triton_conflicts}"
    return Ruling(
        Status.REFUTED,
        f"{counted(conflicts, 'bank conflict')} per wavefront > max {claim.bound}: lanes {lanes} "
        "access "
        f"the same bank in one wavefront ({where}{triton})",
        _access_details(a),
    )


def vectorization(layouts: tuple[Any, Any], claim: AccessClaim, timeout_s: float) -> Ruling:
    """Accesses at least ``claim.bound`` bits wide."""
    a = access(layouts, claim)
    what = (
        f"{a.access_bits}-bit accesses ({a.elems_per_vec} x {claim.element_bits}-bit "
        "elements per lane)"
    )
    if a.access_bits >= claim.bound:
        return Ruling(Status.PROVED, f"{what} >= min_bits {claim.bound}", _access_details(a))
    return Ruling(Status.REFUTED, f"{what} < min_bits {claim.bound}", _access_details(a))


def swizzle(layouts: tuple[Any, Any], goal: SwizzleGoal, timeout_s: float) -> Ruling:
    """The optimal swizzle between ``layouts = (src, dst)``, certified within ``timeout_s``,
    and within ``goal.max_wavefronts``."""
    from llverify.shared_memory.swizzle import synthesize_swizzle

    src, dst = layouts
    result = synthesize_swizzle(
        src,
        dst,
        list(goal.shape),
        goal.element_bits,
        goal.target,
        vector=goal.vector,
        timeout_s=timeout_s,
    )
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
    if cert.status == Status.UNKNOWN:
        return Ruling(
            Status.UNKNOWN,
            f"certificate unknown: the solver budget ({timeout_s:g} s) ran out before "
            f"optimality was proved; best layout found: {found}",
            details,
        )
    if goal.max_wavefronts is not None and cost.total_wavefronts > goal.max_wavefronts:
        return Ruling(
            Status.REFUTED,
            f"the optimal layout needs {cost.total_wavefronts} wavefronts > max_wavefronts "
            f"{goal.max_wavefronts} (certificate {cert.status}: {cert.claim}); {found}",
            details,
        )
    return Ruling(Status.PROVED, f"certificate {cert.status}: {cert.claim}; {found}", details)
