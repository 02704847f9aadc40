r"""Validate an artifact Triton dumped: LLVM IR, or PTX/AMDGCN with the LLVM IR beside them.

Triton's cache and dump directories hold one kernel's stages side by side (``k.ttgir``,
``k.llir``, ``k.ptx``/``k.amdgcn``, ``k.json``).  For LLVM IR, the kernel itself is executed
over every thread of CTA 0: its pointer arguments point at buffers of unknown size whose bytes
are tagged when first read, scalar arguments take the values given (or stay tagged: a branch
or address that depends on one is unknown).  What is proved there is *memory safety of that
CTA*: no uninitialised shared read, no shared access out of the allocation, no race between
barriers, no two threads storing different values to one global byte.  The data semantics of
each op need the TTGIR: when it lies beside the artifact it is validated too (one harness per
module, as :func:`~llverify.emitted.validate.validate_module`).  PTX and AMDGCN are not
executed: they are validated through the LLVM IR they were generated from, which must lie
beside them.

Examples:
    >>> text = '''define ptx_kernel void @k(ptr addrspace(1) %0) #0 {
    ...   %2 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
    ...   %3 = getelementptr float, ptr addrspace(1) %0, i32 %2
    ...   %4 = load float, ptr addrspace(1) %3, align 4
    ...   %5 = getelementptr float, ptr addrspace(3) @global_smem, i32 %2
    ...   store float %4, ptr addrspace(3) %5, align 4
    ...   %6 = xor i32 %2, 32
    ...   %7 = getelementptr float, ptr addrspace(3) @global_smem, i32 %6
    ...   %8 = load float, ptr addrspace(3) %7, align 4
    ...   store float %8, ptr addrspace(1) %3, align 4
    ...   ret void
    ... }
    ... attributes #0 = { "nvvm.reqntid"="64" }'''
    >>> report = validate_llvm_ir(text, shared_bytes=256)
    >>> report.status.value, report.verdicts[0].violation   # warp 1 reads warp 0's write
    ('refuted', 'race')
    >>> fixed = text.replace("%6 = xor", "call void @llvm.nvvm.barrier0()\n  %6 = xor")
    >>> validate_llvm_ir(fixed, shared_bytes=256).status.value
    'proved'
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from pathlib import Path
from typing import Any

from llverify.emitted.checks import (
    CaseVerdict,
    Site,
    describe_violation,
    open_values,
    unused_reads,
)
from llverify.emitted.provenance import Checker, choose_checker, read_dump_release
from llverify.emitted.settle import settle_violations
from llverify.emitted.sim import Execution, LLVMModule, LLVMParseError, UnmodelledAt, parse_llvm_ir
from llverify.emitted.sim.memory import Violation
from llverify.emitted.sim.replay import assumptions_witness
from llverify.emitted.sim.symbolic import without_cyclic_collection
from llverify.emitted.validate import ValidationReport, validate_module
from llverify.errors import ParseError
from llverify.proof.verdict import Status
from llverify.triton.workers import worker_for

__all__ = [
    "ASSERTS_ASSUMED",
    "DumpError",
    "LLVMIRError",
    "validate_artifact",
    "validate_llvm_ir",
    "validate_ttgir_beside",
]

_REQNTID = re.compile(r'"nvvm\.reqntid"="(\d+)')
_AMD_GROUP = re.compile(r'"amdgpu-flat-work-group-size"="\d+,(\d+)"')
_AMD_TARGET = re.compile(r'"target-cpu"="(gfx\w+)"')
_EXECUTED = (".llir", ".ll")
#: data semantics, not memory safety: a masked copy that differs from the stored one is a
#: defect only when the mask is a duplicate-copy mask, which the harness's stores guarantee
#: per op; in a kernel's own code the mask may be its bounds mask (Inductor's combo kernels
#: store one address from every thread under ``xindex < 1``: the masked threads hold no
#: element).  The masked store writes nothing, so the whole kernel's claim (memory safety)
#: stands, and the report says what was seen and that the TTGIR decides it per op
_PER_OP_ONLY = ("inconsistent copies",)
_GENERATED = (".ptx", ".amdgcn", ".cubin", ".hsaco")
#: what a whole-kernel claim adds when the kernel's device asserts were assumed
ASSERTS_ASSUMED = "for every input on which no device assert fails"


class DumpError(ValueError):
    """An artifact that cannot be validated as given (names the file and what is missing)."""


class LLVMIRError(ParseError):
    """Dumped LLVM IR that cannot be read: the simulator's
    :class:`~llverify.emitted.sim.llvm_ir.LLVMParseError`, at ``line`` (1-based)."""

    def __init__(self, error: LLVMParseError) -> None:
        super().__init__(str(error))
        self.line = error.line


def validate_llvm_ir(
    text: str,
    *,
    source: str = "<llvm-ir>",
    kernel: str | None = None,
    threads: int | None = None,
    warp_size: int | None = None,
    shared_bytes: int | None = None,
    arguments: dict[str, int] | None = None,
) -> ValidationReport:
    """Execute the dumped LLVM IR ``text`` over every thread of CTA 0 and check its memory
    accesses.  ``threads`` defaults to the kernel's ``nvvm.reqntid`` / AMD work-group size;
    ``shared_bytes`` to none known (shared accesses are then not bounds-checked, and the claim
    says so); ``arguments`` gives scalar arguments by name (``%3``) or position (``"3"``).
    Raises :class:`LLVMIRError` on text that is not LLVM IR it can read."""
    with without_cyclic_collection():  # the parsed program and the DAG hold no cycle
        return _validate_llvm_ir(text, source, kernel, threads, warp_size, shared_bytes, arguments)


def _validate_llvm_ir(
    text: str,
    source: str,
    kernel: str | None,
    threads: int | None,
    warp_size: int | None,
    shared_bytes: int | None,
    arguments: dict[str, int] | None,
) -> ValidationReport:
    started = time.perf_counter()
    try:
        module = parse_llvm_ir(text)
    except LLVMParseError as error:
        raise LLVMIRError(error) from None
    name = _kernel_of(module, kernel, source)
    amd = _AMD_TARGET.search(text)
    warp = warp_size or (64 if amd and not amd.group(1).startswith("gfx1") else 32)
    count = _thread_count(text, threads, warp, source)
    run = Execution(
        module,
        name,
        threads=count,
        warp_size=warp,
        shared_bytes=shared_bytes if shared_bytes is not None else 1 << 20,
    )
    tagged = _bind_arguments(run, name, arguments or {})
    bounded = shared_bytes is not None
    claim = (
        f"memory safety over all {count} threads of CTA 0 of this compiled kernel"
        + ("" if bounded else "; shared accesses not bounds-checked (no allocation size)")
        + "; data semantics not checked (needs the TTGIR)"
    )
    report = ValidationReport(source, "cuda" if not amd else f"hip:{amd.group(1)}", "", count)
    site = Site(0, "kernel", 0, name, f"{name}: the emitted kernel itself")
    report.verdicts = [_memory_safety(run, site, claim, tagged, started)]
    report.instructions = run.steps
    report.timings = {"total": time.perf_counter() - started}
    return report


def _kernel_of(module: LLVMModule, kernel: str | None, source: str) -> str:
    """The kernel to run: ``kernel``, else the module's first function."""
    name = kernel or next(iter(module.functions))
    if name not in module.functions:
        raise DumpError(
            f"kernel: {name!r} is not defined in {source} (it defines {sorted(module.functions)})"
        )
    return name


def _thread_count(text: str, threads: int | None, warp: int, source: str) -> int:
    """``threads``, else the thread count the kernel states; a multiple of the warp size."""
    count = threads or _threads_of(text)
    if count is None:
        raise DumpError(
            f"{source}: the kernel states no thread count (nvvm.reqntid or "
            "amdgpu-flat-work-group-size): give threads="
        )
    if count <= 0 or count % warp:
        raise DumpError(
            f"threads: expected a positive multiple of the warp size {warp}, got {count}"
        )
    return count


def _bind_arguments(run: Execution, kernel: str, arguments: dict[str, int]) -> list[str]:
    """Open buffers for the pointer arguments, the given values (by name or position) for
    the scalar ones; the scalar arguments left tagged, described."""
    given = dict(arguments)
    tagged = []
    for k, (ty, ssa) in enumerate(run.function.arguments):
        if ty.kind == "ptr":
            run.add_open(k, f"arg{k}")
            continue
        value = given.pop(ssa, given.pop(str(k), None))
        if value is None:
            tagged.append(f"{ssa} ({ty})")
        run.set_argument(k, value, ssa)
    if given:
        raise DumpError(f"arguments: {sorted(given)} are not scalar arguments of {kernel}")
    return tagged


def _memory_safety(
    run: Execution, site: Site, claim: str, tagged: list[str], started: float
) -> CaseVerdict:
    """Run the kernel: proved when no memory check fails (two stored values are settled
    first: proved equal, no violation; replayed different, a violation; neither, unknown),
    refuted by the first that does,
    unknown when the code is not modelled (pointing at the tagged scalar arguments when a
    value depends on one)."""
    try:
        run.run()
        claim += _assumed(run)
    except UnmodelledAt as exc:
        reason = str(exc)
        if tagged and "tagged data" in reason:
            reason += (
                f"; the scalar arguments without a value are tagged ({', '.join(tagged)}):"
                " give them values (arguments= / --arg NAME=VALUE)"
            )
        elapsed = time.perf_counter() - started
        return CaseVerdict.decided(site, Status.UNKNOWN, claim, reason=reason, time_s=elapsed)
    facts = tuple(run.ranges.facts)
    stand, open_ = settle_violations(run.dag, run.violations, facts=facts)
    elapsed = time.perf_counter() - started
    copies = [v for v in stand + open_ if v.kind in _PER_OP_ONLY]
    stand = [v for v in stand if v.kind not in _PER_OP_ONLY]
    open_ = [v for v in open_ if v.kind not in _PER_OP_ONLY]
    if stand and assumptions_witness(run.dag, facts) is None:
        reason = (
            f"{describe_violation(stand[0])}; but no input was found on which every device "
            "assert passes (the claim covers only those inputs)"
        )
        return CaseVerdict.decided(site, Status.UNKNOWN, claim, reason=reason, time_s=elapsed)
    if stand:
        first = stand[0]
        return CaseVerdict.decided(
            site,
            Status.REFUTED,
            claim,
            reason=describe_violation(first),
            violation=first,
            time_s=elapsed,
        )
    if open_:
        return CaseVerdict.decided(
            site,
            Status.UNKNOWN,
            claim,
            reason=open_values(open_[0]),
            violation=open_[0],
            time_s=elapsed,
        )
    reason = _masked_copies(copies[0], len(copies)) if copies else ""
    proved = CaseVerdict.decided(site, Status.PROVED, claim, reason=reason, time_s=elapsed)
    notes = unused_reads(run.uninitialised) + tuple(
        f"the device assert at {where} fails in thread {thread} on every input: the kernel "
        "aborts whenever it gets there"
        for thread, where in run.aborted
    )
    return dataclasses.replace(proved, notes=notes)


def _assumed(run: Execution) -> str:
    """What a whole-kernel claim adds for the device asserts ``run`` met: it holds for the
    inputs on which none fails (a failing assert traps the grid), each condition assumed."""
    if not run.asserts:
        return ""
    return (
        f"; {ASSERTS_ASSUMED} (each executed assert's condition is assumed: a failing one "
        "aborts the kernel)"
    )


def _masked_copies(violation: Violation, count: int) -> str:
    """What a proved kernel's report says of masked copies that differ from the stored ones:
    no memory-safety question (a masked store writes nothing), a data-semantics one that the
    TTGIR decides per op."""
    more = f" ({count} such copies)" if count > 1 else ""
    return (
        f"memory safety holds; seen, not a memory-safety question: {describe_violation(violation)}"
        f"{more}; a masked store writes nothing, and whether its mask is a duplicate-copy mask "
        "(a data defect) or the kernel's own bounds mask (the masked thread holds no element) "
        "is decided per op with the TTGIR"
    )


def _threads_of(text: str) -> int | None:
    for pattern in (_REQNTID, _AMD_GROUP):
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def validate_artifact(
    path: str,
    *,
    arguments: dict[str, int] | None = None,
    threads: int | None = None,
    shared_bytes: int | None = None,
    python: str | None = None,
    per_op: bool = True,
    release: str | None = None,
) -> list[ValidationReport]:
    """Validate a dumped artifact: its LLVM IR (executed) and, unless ``per_op`` is false,
    the TTGIR beside it (per op).

    ``path`` is a ``.llir``/``.ll`` file, or a ``.ptx``/``.amdgcn``/``.cubin``/``.hsaco`` whose
    ``.llir`` lies beside it.  Triton's ``.json`` metadata beside it gives the shared size and
    thread count when the arguments do not.  The TTGIR is validated with the dump's own release
    where it is known and installed (:mod:`~llverify.emitted.provenance`; ``release`` or
    ``python`` choose one), else with the installed Triton, and the per-op report then says
    that it checks that release's lowering, not the dump's (its note, its claims, its
    ``release`` record).
    """
    artifact = Path(path)
    suffix = artifact.suffix
    if suffix in _GENERATED:
        llir = artifact.with_suffix(".llir")
        if not llir.is_file():
            raise DumpError(
                f"{path}: {suffix[1:].upper()} is not executed; validation runs the LLVM "
                f"IR it was generated from, and {llir.name} is not beside it (Triton's "
                "cache and dump directories keep the stages together)"
            )
        artifact = llir
    elif suffix not in _EXECUTED:
        raise DumpError(f"{path}: expected a .llir/.ll, .ptx, .amdgcn, .cubin or .hsaco file")
    metadata = _metadata(artifact)
    shared = shared_bytes if shared_bytes is not None else metadata.get("shared")
    count = threads
    if count is None and "num_warps" in metadata:
        count = int(metadata["num_warps"]) * int(metadata.get("warp_size", 32))
    checker = None
    if per_op and artifact.with_suffix(".ttgir").is_file():
        checker = _checker(artifact, metadata, python, release)
        worker_for(checker.python).start()  # it imports Triton while the kernel runs
    reports = [
        validate_llvm_ir(
            artifact.read_text(),
            source=str(artifact),
            threads=count,
            shared_bytes=shared,
            arguments=arguments,
        )
    ]
    if checker is not None:
        reports.append(_with_release(_per_op(artifact.with_suffix(".ttgir"), checker), checker))
    return reports


def validate_ttgir_beside(
    artifact: str | Path, python: str | None = None, release: str | None = None
) -> ValidationReport:
    """The per-op part of :func:`validate_artifact` alone: the TTGIR beside ``artifact``
    (a ``.llir`` or ``.ttgir`` path) validated per op, with the dump's release where it is
    known and installed; a failure is one unknown verdict."""
    llir = Path(artifact).with_suffix(".llir")
    return _ttgir_report(llir, _metadata(llir), python, release)


def _ttgir_report(
    artifact: Path, metadata: dict[str, Any], python: str | None, release: str | None
) -> ValidationReport:
    """The TTGIR beside ``artifact`` validated per op by the release
    :func:`~llverify.emitted.provenance.choose_checker` picks, the report saying which."""
    checker = _checker(artifact, metadata, python, release)
    return _with_release(_per_op(artifact.with_suffix(".ttgir"), checker), checker)


def _checker(
    artifact: Path, metadata: dict[str, Any], python: str | None, release: str | None
) -> Checker:
    """The release that validates the TTGIR beside ``artifact`` (the dump's own where it is
    known and installed, else as ``python``/``release`` say, else the installed one)."""
    try:
        text: str | None = artifact.with_suffix(".ttgir").read_text()
    except (OSError, UnicodeDecodeError):
        text = None  # _per_op reports the failure
    dump = read_dump_release(artifact, metadata, text)
    return choose_checker(dump, python=python, release=release)


def _with_release(report: ValidationReport, checker: Checker) -> ValidationReport:
    """``report`` saying which release it checked: its ``release`` record, the note when that
    is not the dump's release, and the same in every verdict's claim."""
    report.release = checker.to_dict()
    if checker.note:
        report.notes.append(checker.note)
    report.verdicts = [
        dataclasses.replace(
            v, verdict=dataclasses.replace(v.verdict, claim=f"{v.claim}; {checker.claim}")
        )
        for v in report.verdicts
    ]
    return report


def _per_op(ttgir: Path, checker: Checker) -> ValidationReport:
    """The TTGIR beside a dump validated per op with the release ``checker`` chose.  A failure
    to do so (a module that does not parse or compile, an error of the validator) is one
    unknown verdict giving the reason in one line: the dump's own verdict, already made,
    still stands."""
    started = time.perf_counter()
    try:
        return validate_module(ttgir.read_text(), source=str(ttgir), python=checker.python)
    except Exception as error:  # any failure of this part leaves it unknown, and only it
        detail = " ".join(str(error).split()) or "no message"
        reason = f"the TTGIR beside the dump was not validated: {type(error).__name__}: {detail}"
        site = Site(0, "module", 0, ttgir.name, f"{ttgir.name}: the TTGIR beside the dump")
        claim = "data semantics of every layout op of the TTGIR"
        elapsed = time.perf_counter() - started
        report = ValidationReport(str(ttgir), "unknown target", "", 0)
        report.verdicts = [
            CaseVerdict.decided(site, Status.UNKNOWN, claim, reason=reason, time_s=elapsed)
        ]
        report.timings = {"total": elapsed}
        return report


def _metadata(artifact: Path) -> dict[str, Any]:
    sidecar = artifact.with_suffix(".json")
    if not sidecar.is_file():
        return {}
    try:
        data = json.loads(sidecar.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
