"""Validate the code an installed Triton emits for each layout-carrying op of a module.

The steps: build one harness kernel around the module's ops (:mod:`~llverify.emitted.harness`),
compile it with the installed Triton (or a release's interpreter) on the CPU
(:mod:`~llverify.triton.compile`), read the LLVM IR, run it over every thread of the CTA on
tagged inputs (:mod:`~llverify.emitted.sim`) and check each op's outputs exactly
(:mod:`~llverify.emitted.checks`).  An op whose emitted code uses something the executor
does not model is taken out of the harness and reported unknown with the reason; the rest
are compiled and run again.

Examples:
    >>> report = validate_module(open("tests/data/ttgir/softmax_fp32_sm80.ttgir").read())
    >>> report.status.value, report.counts()
    ('proved', {'proved': 2, 'refuted': 0, 'unknown': 0})
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar, cast

from llverify.emitted.checks import CaseVerdict, Site, check_case, mirrored_orders, unused_reads
from llverify.emitted.harness import (
    POINTER_BYTES,
    Case,
    Harness,
    build_harness,
    parameter_bytes,
)
from llverify.emitted.relayout import Signature, harness_signatures, relaid_cases
from llverify.emitted.sim import (
    Execution,
    Instruction,
    LLVMParseError,
    Region,
    UnmodelledAt,
    Violation,
    parse_llvm_ir,
)
from llverify.emitted.sim.symbolic import without_cyclic_collection
from llverify.errors import LayoutError, shown
from llverify.proof.verdict import Status
from llverify.triton.compile import (
    CompiledKernel,
    CompileError,
    compile_python,
    compile_ttgir,
)
from llverify.ttgir import Operation, TTGIRModule, parse_module

__all__ = [
    "MAX_OPS",
    "HarnessCompileError",
    "ValidationReport",
    "validate_compiled",
    "validate_kernel",
    "validate_module",
]

MAX_REBUILDS = 16  # harness rebuilds after an op's code proves unmodelled
#: ops one run validates each on its own; a larger module validates each distinct op once
#: (twins take its proof), the first MAX_OPS distinct ones (``validate --max-ops``)
MAX_OPS = 4_000
#: the bytes of each scratch buffer Triton's extra pointer arguments point at (one byte where
#: no instruction reads the pointer: nothing can reach it)
SCRATCH_BYTES = 1 << 20
LONG_LINES = 20_000  # a module of this many lines or ops: a progress line before each step


class HarnessCompileError(CompileError):
    """Triton did not compile the harness kernel llverify built (not the user's module): the
    message says which ops it exercised and how many parameter bytes it declared."""


@dataclass
class ValidationReport:
    """The verdicts on every op of one module, with what was skipped and how long it took."""

    source: str
    target: str
    triton_version: str
    threads: int
    verdicts: list[CaseVerdict] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    instructions: int = 0
    notes: list[str] = field(default_factory=list)  # what the report as a whole must say
    release: dict[str, Any] = field(default_factory=dict)  # a dump's release and the one checked

    @property
    def status(self) -> Status:
        """Proved when every validated op is proved; refuted when any is; else unknown."""
        if not self.verdicts:
            return Status.UNKNOWN
        statuses = [v.status for v in self.verdicts]
        if Status.REFUTED in statuses:
            return Status.REFUTED
        if all(s is Status.PROVED for s in statuses):
            return Status.PROVED
        return Status.UNKNOWN

    @property
    def noted(self) -> bool:
        """Whether a verdict carries a note of something seen that is no refutation (a read
        of unwritten shared memory whose value goes unused): not plainly proved."""
        return any(v.notes for v in self.verdicts)

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in (Status.PROVED, Status.REFUTED, Status.UNKNOWN)}
        for verdict in self.verdicts:
            out[verdict.status.value] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.notes:
            extra["notes"] = list(self.notes)
        if self.release:
            extra["release"] = dict(self.release)
        return {
            "source": self.source,
            "target": self.target,
            "triton": self.triton_version,
            "threads": self.threads,
            "status": self.status.value,
            "counts": self.counts(),
            "noted": self.noted,
            "ops": [v.to_dict() for v in self.verdicts],
            "skipped": self.skipped,
            "timings_s": {k: round(v, 4) for k, v in self.timings.items()},
            "instructions_executed": self.instructions,
            **extra,
        }


def validate_module(
    text: str,
    *,
    source: str = "<module>",
    target: str | None = None,
    python: str | None = None,
    timeout_s: float = 300.0,
    ops: list[int] | None = None,
    progress: Callable[[str], None] | None = None,
    max_ops: int = MAX_OPS,
    check: bool = False,
) -> ValidationReport:
    """Validate every layout-carrying op of the TTGIR module ``text`` (``check``: refuse a
    module that is not well formed, :func:`~llverify.ttgir.wellformed.check_wellformed`,
    with a ``ModuleError``).

    ``target`` overrides the module's ``ttg.target``; ``python`` is the interpreter of a
    virtualenv holding another Triton release (default: the installed Triton).  An op whose
    code the executor does not model is reported unknown and the harness rebuilt without it
    (at most :data:`MAX_REBUILDS` times).  The ops are split over as many harness kernels as
    their buffers' pointers need (:func:`~llverify.emitted.harness.parameter_bytes`).  A
    module of more than ``max_ops`` exercised ops validates each distinct op once: an op
    whose harness code is that of an earlier one (its twin, :func:`~llverify.emitted.harness.
    twin_key`) takes the twin's proof, and the distinct ops past the first ``max_ops`` are
    unknown with the reason (see docs/validation.md, "Large modules").
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected the TTGIR module as a str, got {type(text).__name__}")
    if isinstance(max_ops, bool) or not isinstance(max_ops, int) or max_ops < 1:
        raise LayoutError(f"Argument 'max_ops' must be a positive int, not {shown(max_ops)}.")
    with without_cyclic_collection():  # the harness, the parsed LLVM IR, the DAG: no cycles to find
        return _validate_module(
            text,
            source,
            target,
            python,
            timeout_s,
            ops,
            progress or (lambda message: None),
            max_ops,
            check,
        )


def _validate_module(
    text: str,
    source: str,
    target: str | None,
    python: str | None,
    timeout_s: float,
    ops: list[int] | None,
    say: Callable[[str], None],
    max_ops: int,
    check: bool,
) -> ValidationReport:
    """:func:`validate_module` of checked arguments (``say``: the progress callback)."""
    started = time.perf_counter()
    if text.count("\n") >= LONG_LINES:
        say(f"reading the module ({text.count(chr(10)) + 1} lines)")
    module = parse_module(text, check=check)
    if target is not None:
        module.target = target
    timings: dict[str, float] = {"parse": time.perf_counter() - started}
    clock = time.perf_counter()
    if len(module.ops) >= LONG_LINES:
        say(f"building the harness cases of {len(module.ops)} ops")
    full = build_harness(module, ops=ops, progress=say)
    timings["harness"] = time.perf_counter() - clock
    report = _new_report(source, full)
    if not full.cases:
        return _finished(report, [], timings)
    plan = _plan(module, full, max_ops)
    if plan.twins or plan.over:
        say(
            f"{plan.ops} ops to validate, more than --max-ops {max_ops}: {len(plan.chosen)} "
            f"distinct ops validated, {len(plan.twins)} through a twin, {len(plan.over)} "
            "cases over the limit (unknown)"
        )
    parts = _parts(module, full, plan.chosen, parameter_bytes(full.target))
    verdicts: list[CaseVerdict] = []
    for k, part in enumerate(parts, 1):
        if len(parts) > 1:
            say(f"harness kernel {k} of {len(parts)} ({len(part)} ops)")
        # every op of the full harness in one kernel: that harness, not a second build
        whole = full if len(parts) == 1 and not (plan.twins or plan.over) else None
        verdicts += _validate_part(module, part, report, python, timeout_s, timings, say, whole)
    verdicts += _twin_verdicts(plan, verdicts) + _over_verdicts(plan, max_ops)
    if len(parts) > 1:
        report.notes.append(
            f"the ops were validated in {len(parts)} harness kernels (the buffers of one "
            f"kernel need at most {parameter_bytes(full.target)} bytes of parameters)"
        )
    timings["total"] = time.perf_counter() - started
    return _finished(report, verdicts, timings)


@dataclass
class _Plan:
    """Which ops of the full harness are compiled (``chosen``, positions in the module), which
    take a twin's verdict (``twins``: a case -> its twin's op line and position among that
    op's cases), and which cases are over the limit (``over``)."""

    ops: int
    chosen: list[int]
    twins: list[tuple[Case, int, int]] = field(default_factory=list)
    over: list[Case] = field(default_factory=list)


def _plan(module: TTGIRModule, full: Harness, max_ops: int) -> _Plan:
    """Every op of ``full`` when there are at most ``max_ops``; else each distinct op once
    (by its cases' twin keys), the first ``max_ops`` of them."""
    positions = {id(op): k for k, op in enumerate(module.ops)}
    by_op: dict[int, list[Case]] = {}
    for case in full.cases:
        by_op.setdefault(id(case.op), []).append(case)
    if len(by_op) <= max_ops:
        return _Plan(len(by_op), sorted(positions[op] for op in by_op))
    plan = _Plan(len(by_op), [])
    first: dict[tuple[str, ...], Case] = {}  # the ops' keys -> the first case of that op
    for cases in by_op.values():
        key = tuple(case.key for case in cases)
        twin = first.get(key)
        if twin is None and len(first) < max_ops:
            first[key] = cases[0]
            plan.chosen.append(positions[id(cases[0].op)])
        elif twin is None:
            plan.over += cases
        else:
            plan.twins += [(case, twin.op_line, k) for k, case in enumerate(cases)]
    plan.chosen.sort()
    return plan


def _parts(module: TTGIRModule, full: Harness, chosen: list[int], budget: int) -> list[list[int]]:
    """``chosen`` (positions in ``module``) split in module order into runs whose cases'
    buffers fit in ``budget`` bytes of kernel parameters (an op's cases stay together)."""
    buffers: dict[int, int] = {}
    for case in full.cases:
        buffers[id(case.op)] = buffers.get(id(case.op), 0) + len(case.buffers)
    parts: list[list[int]] = [[]]
    used = 0
    for position in chosen:
        size = buffers.get(id(module.ops[position]), 0) * POINTER_BYTES
        if parts[-1] and used + size > budget:
            parts.append([])
            used = 0
        parts[-1].append(position)
        used += size
    return parts


def _validate_part(
    module: TTGIRModule,
    chosen: list[int],
    report: ValidationReport,
    python: str | None,
    timeout_s: float,
    timings: dict[str, float],
    say: Callable[[str], None],
    built: Harness | None = None,
) -> list[CaseVerdict]:
    """The verdicts on the ops ``chosen`` (positions in ``module``), compiled as one harness
    kernel (``built``, when given, is that kernel); an op whose code the executor does not
    model is unknown and the kernel rebuilt without it (at most :data:`MAX_REBUILDS`
    times).  ``report`` gets the release, the notes and the instructions executed."""
    excluded: dict[int, CaseVerdict] = {}
    for _attempt in range(MAX_REBUILDS + 1):
        clock = time.perf_counter()
        harness = built or build_harness(module, ops=chosen)
        built = None
        timings["harness"] = timings.get("harness", 0.0) + time.perf_counter() - clock
        if not harness.cases:
            return list(excluded.values())
        wanted = _meanwhile(harness_signatures, harness)  # read while the compile runs
        compiled = _compile(harness, python, timeout_s, timings, say)
        if not report.triton_version:
            report.triton_version = compiled.triton_version
            report.notes += _spelling_notes(module, compiled.triton_version)
        say(f"executing {harness.num_warps * harness.threads_per_warp} threads")
        outcome = _execute(harness, compiled, timings)
        if not isinstance(outcome, UnmodelledAt):
            verdicts = _checked(report, harness, compiled, outcome, timings)
            applicable = _applicable(report, harness, compiled, verdicts, timings, wanted)
            return applicable + list(excluded.values())
        culprit = _case_at(harness, outcome)
        if culprit is None:
            verdicts = [_unknown(case, harness, compiled, str(outcome)) for case in harness.cases]
            return verdicts + list(excluded.values())
        excluded[id(culprit.op)] = _unknown(culprit, harness, compiled, str(outcome))
        say(f"op at line {culprit.op_line}: unmodelled ({outcome.reason}); rebuilding without it")
        chosen = _without(module, harness, culprit)
    return _gave_up(harness, compiled, excluded)


_T = TypeVar("_T")


def _meanwhile(work: Callable[..., _T], *args: Any) -> Callable[[], _T]:
    """``work(*args)`` started in a thread of its own now, while this thread waits for the
    compile worker's answer (another process: the wait holds no lock, so the work runs
    beside it); the function returned waits for its result (raising what it raised).  A
    thread per call, none kept: a process forked later (``--jobs``) inherits no thread it
    would wait for.

    >>> result = _meanwhile(sum, [1, 2, 3])
    >>> result()
    6
    """
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            outcome.append((True, work(*args)))
        except BaseException as error:  # noqa: BLE001 - handed to the caller of result()
            outcome.append((False, error))

    thread = threading.Thread(target=run, name="llverify-beside", daemon=True)
    thread.start()

    def result() -> _T:
        thread.join()
        done, value = outcome[0]
        if not done:
            raise value
        return cast(_T, value)

    return result


def _twin_verdicts(plan: _Plan, verdicts: list[CaseVerdict]) -> list[CaseVerdict]:
    """The verdict of each case of ``plan.twins``: its twin's proof (the claim says so); a
    twin's refutation or unknown leaves it unknown (no refutation without its own replay)."""
    by_line: dict[int, list[CaseVerdict]] = {}
    for verdict in sorted(verdicts, key=lambda v: v.index):
        by_line.setdefault(verdict.op_line, []).append(verdict)
    out = []
    for case, line, k in plan.twins:
        found = by_line.get(line, [])
        twin = found[k] if k < len(found) else None
        site = Site.of_case(case)
        same = f"its twin at line {line}: the same harness code, names and locations aside"
        if twin is not None and twin.status is Status.PROVED:
            claim = f"{twin.claim}; through {same}"
            out.append(dataclasses.replace(twin, site=site, verdict=_reclaimed(twin, claim)))
            continue
        why = "no verdict" if twin is None else f"{twin.status.value}: {twin.reason}"
        out.append(
            CaseVerdict.decided(
                site,
                Status.UNKNOWN,
                "" if twin is None else twin.claim,
                reason=f"not validated on its own; {same} ({why})",
            )
        )
    return out


def _reclaimed(verdict: CaseVerdict, claim: str) -> Any:
    """``verdict``'s verdict with the claim ``claim``."""
    return dataclasses.replace(verdict.verdict, claim=claim)


def _over_verdicts(plan: _Plan, max_ops: int) -> list[CaseVerdict]:
    """The cases over the limit: unknown, with the reason."""
    reason = (
        f"not validated: the module has {plan.ops} ops to validate, more than --max-ops "
        f"{max_ops}, and this op is none of the first {max_ops} distinct ones (raise "
        "--max-ops, or validate fewer ops)"
    )
    return [
        CaseVerdict.decided(Site.of_case(case), Status.UNKNOWN, "not executed", reason=reason)
        for case in plan.over
    ]


def _spelling_notes(module: TTGIRModule, version: str) -> list[str]:
    """What the report must say when the module is spelled for old releases (2.1-3.2, read in
    3.9's spelling) that exclude the compiling one: it checks that release's lowering of the
    module's layouts, not theirs."""
    if not module.normalised or module.spelling is None or not re.match(r"\d+\.\d+", version):
        return []  # 3.3+'s spelling is the input format of every release's harness
    (a, b), (c, d) = module.spelling
    major, minor = (int(x) for x in version.split(".")[:2])
    if (a, b) <= (major, minor) <= (c, d):
        return []
    written = f"{a}.{b}" + ("" if (a, b) == (c, d) else f"-{c}.{d}")
    return [
        f"the module is spelled for Triton {written} (read in 3.9's spelling); the per-op part "
        f"checks the lowering of Triton {version}, not of the release that wrote it: give "
        "--release X.Y.Z (a virtualenv of that release) to check its own"
    ]


def _gave_up(
    harness: Harness, compiled: CompiledKernel, excluded: dict[int, CaseVerdict]
) -> list[CaseVerdict]:
    """Too many rebuilds: the ops of the last harness not yet excluded are unknown too."""
    reason = f"not executed: {MAX_REBUILDS} ops in a row used code the executor does not model"
    verdicts = [
        _unknown(case, harness, compiled, reason)
        for case in harness.cases
        if id(case.op) not in excluded
    ]
    return verdicts + list(excluded.values())


def _without(module: TTGIRModule, harness: Harness, culprit: Any) -> list[int]:
    """The positions in ``module`` of the ops of ``harness``'s cases but ``culprit``'s."""
    positions = {id(op): k for k, op in enumerate(module.ops)}
    return [positions[id(c.op)] for c in harness.cases if c is not culprit]


def validate_compiled(
    module_text: str,
    compiled: CompiledKernel,
    *,
    source: str = "<module>",
    target: str | None = None,
    ops: list[int] | None = None,
) -> ValidationReport:
    """Validate ``compiled``, the harness of ``module_text`` (built with ``ops``) as some Triton
    release compiled it, without compiling anything: stored artifacts of old releases replay
    here.  One execution, no rebuild: when the code uses something the executor does not
    model, every op is unknown with that reason.

    >>> from llverify.triton.compile import compile_ttgir
    >>> text = open("tests/data/ttgir/softmax_fp32_sm80.ttgir").read()
    >>> harness = build_harness(parse_module(text))
    >>> compiled = compile_ttgir(harness.text, harness.target)
    >>> validate_compiled(text, compiled).counts()
    {'proved': 2, 'refuted': 0, 'unknown': 0}
    """
    if not isinstance(compiled, CompiledKernel):
        raise TypeError(f"compiled: expected a CompiledKernel, got {type(compiled).__name__}")
    if not isinstance(module_text, str):
        raise TypeError(
            f"module_text: expected the TTGIR module as a str, got {type(module_text).__name__}"
        )
    started = time.perf_counter()
    module = parse_module(module_text)
    if target is not None:
        module.target = target
    harness = build_harness(module, ops=ops)
    timings: dict[str, float] = {"harness": time.perf_counter() - started}
    report = _new_report(source, harness, compiled.triton_version)
    outcome = _execute(harness, compiled, timings)
    if isinstance(outcome, UnmodelledAt):
        verdicts = [_unknown(case, harness, compiled, str(outcome)) for case in harness.cases]
    else:
        verdicts = _checked(report, harness, compiled, outcome, timings)
    verdicts = _applicable(report, harness, compiled, verdicts, timings)
    timings["total"] = time.perf_counter() - started
    return _finished(report, verdicts, timings)


def _applicable(
    report: ValidationReport,
    harness: Harness,
    compiled: CompiledKernel,
    verdicts: list[CaseVerdict],
    timings: dict[str, float],
    wanted: Callable[[], Counter[Signature]] | None = None,
) -> list[CaseVerdict]:
    """``verdicts`` with those of the cases the release re-laid out before compiling
    (:func:`~llverify.emitted.relayout.relaid_cases`; ``wanted``: the harness's signatures
    read already) made unknown, "not applicable" (never proved, never refuted: the code run
    is another program's); the report notes how many, ``timings["relayout"]`` how long the
    comparison took."""
    clock = time.perf_counter()
    relaid = relaid_cases(harness, compiled.ttgir, compiled.triton_version, wanted)
    timings["relayout"] = timings.get("relayout", 0.0) + time.perf_counter() - clock
    if not relaid:
        return verdicts
    cases = {case.index: case for case in harness.cases}
    out = [
        _unknown(cases[v.index], harness, compiled, relaid[v.index]) if v.index in relaid else v
        for v in verdicts
    ]
    report.notes.append(
        f"{len(relaid)} of {len(harness.cases)} ops not applicable: Triton "
        f"{compiled.triton_version} re-laid out the harness before compiling it"
    )
    return out


def _new_report(source: str, harness: Harness, triton_version: str = "") -> ValidationReport:
    """An empty report on ``harness``, with the ops it skips."""
    report = ValidationReport(
        source, harness.target, triton_version, harness.num_warps * harness.threads_per_warp
    )
    report.skipped = [
        {"op": op.name, "line": op.line, "location": op.location, "reason": reason}
        for op, reason in harness.skipped
    ]
    return report


def _compile(
    harness: Harness,
    python: str | None,
    timeout_s: float,
    timings: dict[str, float],
    say: Callable[[str], None],
) -> CompiledKernel:
    say(f"compiling a harness of {len(harness.cases)} ops for {harness.target}")
    clock = time.perf_counter()
    try:
        compiled = compile_ttgir(
            harness.text, harness.target, python=python, timeout_s=timeout_s, until="llir"
        )  # the LLVM IR is what runs: no PTX/AMDGCN, no binary
    except CompileError as error:
        if " failed to compile for " not in str(error):
            raise  # no Triton to run, or no answer in time: not about the harness
        lines = sorted(case.op_line for case in harness.cases)
        raise HarnessCompileError(
            f"the harness kernel llverify built to exercise {len(harness.cases)} ops (from "
            f"lines {lines[0]}-{lines[-1]} of the module; {len(harness.buffers)} buffers, "
            f"{POINTER_BYTES * len(harness.buffers)} bytes of kernel parameters) did not "
            f"compile; this is llverify's harness, not a verdict on the module: {error}"
        ) from None
    timings["compile"] = timings.get("compile", 0.0) + time.perf_counter() - clock
    return compiled


def _checked(
    report: ValidationReport,
    harness: Harness,
    compiled: CompiledKernel,
    run: Execution,
    timings: dict[str, float],
) -> list[CaseVerdict]:
    """The verdicts of every case on the executed ``run`` (the instructions it ran go to
    ``report``)."""
    report.instructions += run.steps
    clock = time.perf_counter()
    with without_cyclic_collection():  # the check makes DAG nodes too
        verdicts = _check_all(harness, compiled, run)
    timings["check"] = timings.get("check", 0.0) + time.perf_counter() - clock
    return verdicts


def _finished(
    report: ValidationReport, verdicts: list[CaseVerdict], timings: dict[str, float]
) -> ValidationReport:
    """``report`` with ``verdicts`` in the module's order and the time each phase took."""
    report.verdicts = sorted(verdicts, key=lambda v: (v.op_line, v.index))
    report.timings = timings
    return report


def validate_kernel(
    path: str,
    function: str,
    *,
    signature: dict[str, str],
    constexprs: dict[str, Any] | None = None,
    target: str = "cuda:90",
    num_warps: int = 4,
    python: str | None = None,
    timeout_s: float = 300.0,
    progress: Callable[[str], None] | None = None,
) -> ValidationReport:
    """Compile the Triton/Gluon kernel ``function`` of the Python file ``path`` and validate
    the ops of the TTGIR it compiles to (locations point back into ``path``)."""
    compiled = compile_python(
        path,
        function,
        signature=signature,
        constexprs=constexprs or {},
        target=target,
        num_warps=num_warps,
        python=python,
        timeout_s=timeout_s,
        until="llir",
    )
    report = validate_module(
        compiled.ttgir,
        source=f"{path}:{function}",
        target=target,
        python=python,
        timeout_s=timeout_s,
        progress=progress,
    )
    report.timings["compile_kernel"] = compiled.seconds
    return report


def _claim(harness: Harness, compiled: CompiledKernel) -> str:
    threads = harness.num_warps * harness.threads_per_warp
    ctas = (
        "one CTA"
        if harness.num_ctas == 1
        else f"each of the {harness.num_ctas} CTAs of the cluster"
    )
    return (
        f"exhaustive over all {threads} threads of {ctas} of this compiled instance "
        f"({harness.target}, Triton {compiled.triton_version}), every input element tagged"
    )


def _unknown(case: Any, harness: Harness, compiled: CompiledKernel, reason: str) -> CaseVerdict:
    return CaseVerdict.decided(
        Site.of_case(case), Status.UNKNOWN, _claim(harness, compiled), reason=reason
    )


def _execute(
    harness: Harness, compiled: CompiledKernel, timings: dict[str, float], trace: bool = False
) -> Execution | UnmodelledAt:
    clock = time.perf_counter()
    try:
        module = parse_llvm_ir(compiled.llir)
    except LLVMParseError as exc:
        return UnmodelledAt(f"the emitted LLVM IR could not be read: {exc}", None)
    kernel = harness.kernel if harness.kernel in module.functions else next(iter(module.functions))
    threads = harness.num_warps * harness.threads_per_warp
    run = Execution(
        module,
        kernel,
        threads=threads,
        warp_size=harness.threads_per_warp,
        shared_bytes=compiled.shared_bytes,
        ctas=harness.num_ctas,
        trace=[] if trace else None,
    )
    for spec in harness.buffers:
        element_bytes = max(1, spec.element_bits // 8)
        count = 1
        for extent in spec.shape:
            count *= extent
        if spec.role == "input":
            run.add_input(spec.arg, spec.name, element_bytes=element_bytes, count=count)
        elif spec.role == "values":
            assert spec.values is not None
            run.add_values(
                spec.arg, spec.name, spec.values.reshape(-1), element_bytes=element_bytes
            )
        else:
            run.add_output(spec.arg, spec.name, element_bytes=element_bytes, count=count)
    for extra in range(len(harness.buffers), len(run.function.arguments)):
        # Triton's scratch pointers: a megabyte each, where the kernel reads the pointer
        used = run.function.reads(run.function.arguments[extra][1])
        run.add_scratch(extra, f"scratch{extra}", SCRATCH_BYTES if used else 1)
    timings["load"] = timings.get("load", 0.0) + time.perf_counter() - clock
    clock = time.perf_counter()
    try:
        run.run()
    except UnmodelledAt as exc:
        timings["execute"] = timings.get("execute", 0.0) + time.perf_counter() - clock
        return exc
    timings["execute"] = timings.get("execute", 0.0) + time.perf_counter() - clock
    return run


def _case_at(harness: Harness, failure: UnmodelledAt) -> Any:
    if failure.instruction is None:
        return None
    cases = _Sources(harness).cases_of(failure.instruction)
    return cases[0] if cases else None


_Position = tuple[int, int]  # (line, column) of a debug location


class _Sources:
    """The cases an instruction may come from, by its debug location (line, column), read
    from the harness module (parsed when first asked).

    The op under test carries a location of its own (the user's, or ``harness.ttgir:k:0``),
    whose line need not be a line of the harness; the harness's own ops, and ops of a copied
    region written without a location, are at their line and the column of their name.  A
    location that fits several cases names them all (sound: a violation there counts
    against each); the op's own location comes first."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness

    def cases_of(self, instruction: Instruction) -> list[Case]:
        """The cases ``instruction`` may come from (none without a debug location)."""
        if instruction.line is None:
            return []
        position = (instruction.line, instruction.column or 0)
        own = self._located.get(position, [])
        here = [k for k in self._placed.get(position, []) if k not in own]
        return [self.harness.cases[k] for k in own + here]

    def own_locations(self, case: Case) -> set[_Position]:
        """The locations (line, column) that the operations of ``case`` carry."""
        k = next(i for i, listed in enumerate(self.harness.cases) if listed is case)
        return {position for position, cases in self._located.items() if k in cases}

    @cached_property
    def _ops(self) -> list[tuple[int, Operation]]:
        """Each operation in the lines of a case, those of its regions included, with the
        case's position in ``harness.cases``."""
        cases = self.harness.cases
        firsts = [case.harness_lines[0] for case in cases]
        found = []
        for op in parse_module(self.harness.text).ops:
            k = bisect_right(firsts, op.line) - 1
            if k >= 0 and op.line <= cases[k].harness_lines[1]:
                found += [(k, nested) for nested in _with_regions(op)]
        return found

    @cached_property
    def _located(self) -> dict[_Position, list[int]]:
        """The cases by the locations their operations carry."""
        out: dict[_Position, list[int]] = {}
        for k, op in self._ops:
            location = op.file_location
            if location is not None:
                _add(out, (location.line, location.column), k)
        return out

    @cached_property
    def _placed(self) -> dict[_Position, list[int]]:
        """The cases by where their operations are written in the harness."""
        out: dict[_Position, list[int]] = {}
        for k, op in self._ops:
            _add(out, (op.line, op.column), k)
        return out


def _with_regions(op: Operation) -> Iterator[Operation]:
    """``op`` and the operations of its regions, nested ones included."""
    yield op
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                yield from _with_regions(inner)


def _add(cases_at: dict[_Position, list[int]], position: _Position, case: int) -> None:
    """Note the case at ``position`` (once; cases come in the harness's order)."""
    listed = cases_at.setdefault(position, [])
    if case not in listed:
        listed.append(case)


def _check_all(harness: Harness, compiled: CompiledKernel, run: Execution) -> list[CaseVerdict]:
    regions = {r.name: r for r in run.memory.regions if isinstance(r, Region)}
    buffer_ids = {region.name: k for k, region in enumerate(run.memory.regions)}
    claim = _claim(harness, compiled)
    by_case: dict[int, list[Violation]] = {case.index: [] for case in harness.cases}
    unattributed: list[Violation] = []
    by_text_line = {
        ins.text_line: ins for block in run.function.blocks for ins in block.instructions
    }
    sources = _Sources(harness)
    for violation in run.violations:
        cases = _case_of_where(sources, violation.where, by_text_line)
        if not cases:
            # no debug location (2.x code): a violation whose values are one non-commutative
            # reduce's combine in two orders belongs to that reduce; others count against all
            cases = [c for c in harness.cases if mirrored_orders(c, run.dag, buffer_ids, violation)]
        for case in cases:
            by_case[case.index].append(violation)
        if not cases:
            unattributed.append(violation)
    reads: dict[int, list[Violation]] = {case.index: [] for case in harness.cases}
    for read in run.uninitialised:
        # a read with no location (2.x code has no debug info) is noted on every op
        for case in _case_of_where(sources, read.where, by_text_line) or harness.cases:
            reads[case.index].append(read)
    verdicts = []
    for case in harness.cases:
        violations = by_case[case.index] + unattributed
        verdict = check_case(case, run, regions, buffer_ids, claim, violations)
        if reads[case.index]:
            verdict = dataclasses.replace(verdict, notes=unused_reads(reads[case.index]))
        verdicts.append(verdict)
    return verdicts


def _case_of_where(
    sources: _Sources, where: str, by_text_line: dict[int, Instruction]
) -> list[Case]:
    """The cases the instruction a message names (``at LLVM IR line N``) may come from."""
    match = re.search(r"at LLVM IR line (\d+)", where)
    instruction = by_text_line.get(int(match.group(1))) if match else None
    return sources.cases_of(instruction) if instruction is not None else []
