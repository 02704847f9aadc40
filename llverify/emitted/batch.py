"""Validate every kernel of a directory (a Triton cache, a dump, an Inductor cache): discovery,
a process pool, per-kernel time limits, progress and the summary.

A kernel is a ``NAME.llir`` with Triton's ``NAME.json`` beside it (``__grp__*.json`` are
Triton's group files, not kernels).  Each is validated as ``llverify validate NAME.llir``
does (:func:`~llverify.emitted.dumped.validate_artifact`): the kernel itself executed for
memory safety, once per distinct set of recorded launch arguments
(:mod:`llverify.emitted.launches`), and, unless ``whole_only``, the TTGIR beside it per op.

Examples:
    >>> normalise_reason("tagged data at %123 decides a branch in block 45 (0x1f)")
    'tagged data at %_ decides a branch in block N (N)'
    >>> shard_of("gpt2/triton/ABC/k.llir", 4) in range(4)
    True
"""

from __future__ import annotations

import hashlib
import re
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from llverify.emitted.launches import (
    LAUNCH_FILES,
    LaunchTable,
    bind_scalars,
    kernel_source_file,
    read_launches_file,
    read_output_code,
)

__all__ = [
    "BatchOptions",
    "NoKernelsError",
    "Progress",
    "find_kernels",
    "format_summary",
    "load_launches",
    "normalise_reason",
    "run_batch",
    "select_shard",
    "shard_of",
    "summarize",
    "validate_kernel_dir",
]

#: the order of badness of a status; the worst of several verdicts is the kernel's
_RANK = {"proved": 0, "none": 0, "unknown": 1, "refuted": 2}


class NoKernelsError(ValueError):
    """A directory that holds no kernel (no ``.llir`` with Triton's ``.json`` beside it)."""


class KernelTimeout(BaseException):
    """A kernel ran past its time limit (a BaseException, so the validators' own
    ``except Exception`` does not turn it into another verdict)."""


@dataclass(frozen=True)
class BatchOptions:
    """How each kernel is validated (picklable: it travels to the worker processes)."""

    whole_only: bool = False
    kernel_timeout: float | None = None
    python: str | None = None
    max_launch_sets: int = 4
    threads: int | None = None
    shared_bytes: int | None = None


def find_kernels(root: str | Path) -> list[Path]:
    """Every kernel under ``root`` (a ``.llir`` with a ``.json`` of the same stem beside it),
    sorted.  Raises :class:`NoKernelsError` naming ``root`` when there is none, and
    NotADirectoryError when ``root`` is not a directory."""
    base = Path(root)
    if not base.is_dir():
        raise NotADirectoryError(f"{str(root)!r}: expected a directory of kernels")
    found = sorted(
        path
        for path in base.rglob("*.llir")
        if path.is_file()
        and not path.name.startswith("__grp__")
        and path.with_suffix(".json").is_file()
    )
    if not found:
        raise NoKernelsError(
            f"{str(root)!r}: no kernel found (expected NAME.llir with Triton's NAME.json "
            "beside it, as in a Triton cache ~/.triton/cache/<HASH>/, a TRITON_DUMP_DIR or "
            "an Inductor cache's triton/ folder)"
        )
    return found


def shard_of(relative: str, count: int) -> int:
    """The shard (0-based, of ``count``) of a kernel: a hash of its path relative to the
    validated directory, so every machine of a CI matrix splits the same way."""
    digest = hashlib.sha256(relative.replace("\\", "/").encode()).digest()
    return int.from_bytes(digest[:8], "big") % count


def select_shard(paths: list[Path], root: str | Path, shard: tuple[int, int] | None) -> list[Path]:
    """The kernels of shard ``(K, N)`` (K from 1 to N); all of them when ``shard`` is None."""
    if shard is None:
        return paths
    index, count = shard
    return [p for p in paths if shard_of(p.relative_to(root).as_posix(), count) == index - 1]


def load_launches(root: str | Path, explicit: list[str] | None = None) -> LaunchTable:
    """The launch arguments recorded for the kernels under ``root``: the launches files given,
    else those named ``launches.json``/``llverify-launches.json`` under it, and the Inductor
    output code under it."""
    table = LaunchTable()
    base = Path(root)
    files = explicit if explicit else [str(p) for n in LAUNCH_FILES for p in base.rglob(n)]
    for name in sorted(files):
        read_launches_file(name, table)
    for path in sorted(base.rglob("*.py")):
        if path.is_file() and path.stat().st_size < 16 << 20:
            read_output_code(path, table)
    return table


def normalise_reason(reason: str) -> str:
    """A reason with what differs between kernels (SSA names, numbers, quoted names, block
    and kernel names) replaced, so that like reasons group; at most 160 characters."""
    text = re.sub(r"%[\w.$-]+", "%_", reason)
    text = re.sub(r"@[\w.$\"-]+", "@_", text)
    text = re.sub(r"'[^']*'", "'_'", text)
    text = re.sub(r"\b0x[0-9a-fA-F]+\b|\b\d+(\.\d+)?\b", "N", text)
    text = re.sub(r"\btriton_\w+", "KERNEL", text)
    text = " ".join(text.split())
    return text if len(text) <= 160 else text[:157] + "..."


#: whether the running kernel's time limit has expired: the timer's exception can surface as
#: another one (numpy turns an exception raised inside a comparison into a TypeError), which
#: must still read as the time-out it is
_EXPIRED = [False]


@contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`KernelTimeout` in this thread after ``seconds`` (a real-time timer: only
    in the main thread of a process, where signals are delivered; elsewhere no limit)."""
    import threading

    _EXPIRED[0] = False
    usable = seconds and hasattr(signal, "setitimer")
    if not usable or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        _EXPIRED[0] = True
        raise KernelTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))  # type: ignore[arg-type]
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _part(status: str, reason: str = "", time_s: float = 0.0, **extra: Any) -> dict[str, Any]:
    return {"status": status, "reason": reason, "time_s": round(time_s, 3), **extra}


def _whole_part(report: Any, scalars: dict[str, int] | None) -> dict[str, Any]:
    """One whole-kernel run's part: status, reason, time, the arguments, and whether its
    claim holds only for the inputs on which no device assert fails (``asserts_assumed``)."""
    from llverify.emitted.dumped import ASSERTS_ASSUMED

    verdict = report.verdicts[0]
    elapsed = report.timings.get("total", 0.0)
    assumed = ASSERTS_ASSUMED in verdict.claim
    return _part(
        verdict.status.value,
        verdict.reason or "",
        elapsed,
        arguments=scalars,
        **({"asserts_assumed": True} if assumed else {}),
    )


def _per_op_part(report: Any) -> dict[str, Any]:
    counts = report.counts()
    elapsed = report.timings.get("total", 0.0)
    if not report.verdicts:
        return _part("none", "no op of the TTGIR needs validation", elapsed, counts=counts)
    worst = next((v for v in report.verdicts if v.status is report.status), report.verdicts[0])
    reason = "" if report.status.value == "proved" else worst.reason or ""
    return _part(report.status.value, reason, elapsed, counts=counts)


def _launch_plan(
    path: Path, sets: list[dict[str, int]], source: str, limit: int
) -> tuple[list[tuple[dict[str, int] | None, dict[str, int]]], dict[str, Any]]:
    """The whole-kernel runs to make, as (scalars by name, bound by position); and what
    was recorded and used.  No usable set: one run with the scalars tagged."""
    info: dict[str, Any] = {"source": source or None, "distinct": len(sets), "not_used": []}
    tt_file = next(
        (f for f in (path.with_suffix(s) for s in (".ttir", ".ttgir", ".source")) if f.is_file()),
        None,
    )
    runs: list[tuple[dict[str, int] | None, dict[str, int]]] = []
    if sets and tt_file is None:
        info["not_used"].append("no TTIR/TTGIR beside the kernel names its arguments")
    elif sets:
        tt_text, llir_text = tt_file.read_text(), path.read_text()  # type: ignore[union-attr]
        for scalars in sets:
            bound, reason = bind_scalars(scalars, tt_text, llir_text)
            if reason:
                info["not_used"].append(reason)
            elif len(runs) < limit:
                runs.append((scalars, bound))
    if len(runs) < len(sets) - len(info["not_used"]):
        info["not_used"].append(f"only the first {limit} distinct sets are validated")
    info["used"] = len(runs)
    return runs or [(None, {})], info


def _one_line(error: BaseException) -> str:
    return f"{type(error).__name__}: {' '.join(str(error).split()) or 'no message'}"


def _kernel_name(path: Path) -> str:
    import json

    try:
        name = json.loads(path.with_suffix(".json").read_text()).get("name")
    except (OSError, ValueError, AttributeError):
        name = None
    return name if isinstance(name, str) else path.stem


def _whole_run(
    path: Path, scalars: dict[str, int] | None, bound: dict[str, int], options: BatchOptions
) -> dict[str, Any]:
    """The kernel executed once with the scalar arguments ``bound`` (by LLVM position)."""
    from llverify.emitted.dumped import validate_artifact

    started = time.perf_counter()
    try:
        reports = validate_artifact(
            str(path),
            arguments=bound,
            threads=options.threads,
            shared_bytes=options.shared_bytes,
            per_op=False,
        )
    except Exception as error:  # a kernel that cannot be run is unknown, not fatal
        if _EXPIRED[0]:  # the time-out, surfacing as another exception
            raise KernelTimeout() from error
        elapsed = time.perf_counter() - started
        return _part("unknown", f"not validated: {_one_line(error)}", elapsed, arguments=scalars)
    return _whole_part(reports[0], scalars)


def _per_op_run(path: Path, options: BatchOptions) -> dict[str, Any]:
    """The TTGIR beside the kernel validated per op."""
    from llverify.emitted.dumped import validate_ttgir_beside

    return _per_op_part(validate_ttgir_beside(path, options.python))


def validate_kernel_dir(
    path: Path, root: Path, sets: list[dict[str, int]], source: str, options: BatchOptions
) -> dict[str, Any]:
    """One kernel's record: the whole kernel under each usable launch set (the worst
    verdict counts), and per op unless ``options.whole_only``.  Never raises for a kernel:
    what fails or runs past ``options.kernel_timeout`` is unknown with the reason."""
    started = time.perf_counter()
    runs, launches = _launch_plan(path, sets, source, options.max_launch_sets)
    whole: list[dict[str, Any]] = []
    per_op: dict[str, Any] | None = None
    want_per_op = not options.whole_only and path.with_suffix(".ttgir").is_file()
    try:
        with _time_limit(options.kernel_timeout):
            for scalars, bound in runs:
                whole.append(_whole_run(path, scalars, bound, options))
            if want_per_op:
                per_op = _per_op_run(path, options)
    except KernelTimeout:
        limit = f"timed out after {options.kernel_timeout:g} s"
        if len(whole) < len(runs):
            whole.append(_part("unknown", limit, options.kernel_timeout or 0.0))
        if want_per_op and per_op is None:
            per_op = _part("unknown", limit)
    if _EXPIRED[0] and per_op is not None and per_op["status"] == "unknown":
        # the time-out raised inside the per-op validation and was reported as its failure
        per_op = _part("unknown", f"timed out after {options.kernel_timeout:g} s")
    return _record(path, root, whole, per_op, launches, time.perf_counter() - started)


def _record(
    path: Path,
    root: Path,
    whole_runs: list[dict[str, Any]],
    per_op: dict[str, Any] | None,
    launches: dict[str, Any],
    elapsed: float,
) -> dict[str, Any]:
    """The record of one kernel: the worst whole-kernel run stands for the kernel."""
    worst = max(whole_runs, key=lambda run: _RANK[run["status"]])
    whole = {**worst, "runs": whole_runs} if len(whole_runs) > 1 else worst
    parts = [whole["status"]] + ([per_op["status"]] if per_op else [])
    return {
        "path": path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path),
        "kernel": _kernel_name(path),
        "status": max(parts, key=lambda s: _RANK[s]).replace("none", "proved"),
        "whole": whole,
        "per_op": per_op,
        "launches": launches,
        "time_s": round(elapsed, 3),
    }


class Progress:
    """Progress on ``stream``: one line rewritten in place on a terminal, a line every tenth
    of the kernels (or every ``every_s`` seconds) otherwise; nothing when not ``enabled``."""

    def __init__(
        self, total: int, stream: TextIO | None = None, enabled: bool = True, every_s: float = 30.0
    ) -> None:
        self.total, self.enabled, self.every_s = total, enabled, every_s
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.done = 0
        self.counts: Counter[str] = Counter()
        self.started = self.last = time.monotonic()

    def _line(self, name: str) -> str:
        elapsed = int(time.monotonic() - self.started)
        share = 100 * self.done // max(1, self.total)
        return (
            f"[{self.done}/{self.total}] {share}%  proved {self.counts['proved']}  refuted "
            f"{self.counts['refuted']}  unknown {self.counts['unknown']}  "
            f"{elapsed // 60}:{elapsed % 60:02d}  {name}"
        )

    def update(self, record: dict[str, Any]) -> None:
        """Count one finished kernel and show it when it is time to."""
        self.done += 1
        self.counts[record["status"]] += 1
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            width = 118
            self.stream.write("\r" + self._line(record["kernel"])[:width] + "\x1b[K")
        elif self.done % max(1, self.total // 10) == 0 or now - self.last >= self.every_s:
            self.stream.write(self._line(record["path"]) + "\n")
            self.last = now
        else:
            return
        self.stream.flush()

    def close(self) -> None:
        """End the line in place on a terminal."""
        if self.enabled and self.tty and self.done:
            self.stream.write("\n")
            self.stream.flush()


_Task = tuple[Path, list[dict[str, int]], str]  # a kernel, its launch sets, where they are from


def _tasks(paths: list[Path], table: LaunchTable) -> Iterator[_Task]:
    """Each kernel with the launch sets recorded for it and where they come from."""
    for path in paths:
        source_file = None
        if table.by_source:
            tt = next(
                (path.with_suffix(s) for s in (".ttir", ".ttgir") if path.with_suffix(s).is_file()),
                None,
            )
            source_file = kernel_source_file(tt.read_text()) if tt else None
        sets, source = table.sets_for(path.parent.name, source_file)
        yield path, sets, source


def longest_first(tasks: list[_Task]) -> list[_Task]:
    """``tasks`` with the kernels of the largest LLVM IR first (stably; one that cannot be
    read last), so that with several workers a long kernel does not start last and leave
    the others idle: the file size stands for the time, which grows with the instructions.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     small, big = Path(root, "a.llir"), Path(root, "b.llir")
    ...     _ = small.write_text("x"), big.write_text("xxxx")
    ...     [p.name for p, _, _ in longest_first([(small, [], ""), (big, [], "")])]
    ['b.llir', 'a.llir']
    """

    def size(task: _Task) -> int:
        try:
            return task[0].stat().st_size
        except OSError:
            return -1

    return sorted(tasks, key=size, reverse=True)


def _lost(path: Path, root: Path, error: BaseException) -> dict[str, Any]:
    """The record of a kernel whose worker process died."""
    whole = _part("unknown", f"the worker process died: {_one_line(error)}")
    return _record(path, root, [whole], None, {"source": None, "distinct": 0, "used": 0}, 0.0)


def run_batch(
    paths: list[Path],
    root: str | Path,
    table: LaunchTable,
    options: BatchOptions,
    jobs: int = 1,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Validate ``paths`` (``jobs`` worker processes; in this process when 1); the records
    in the order of ``paths``.  ``progress`` is called with each record as it finishes."""
    base = Path(root)
    tasks = list(_tasks(paths, table))
    records: dict[Path, dict[str, Any]] = {}
    if jobs <= 1:
        for path, sets, source in tasks:
            records[path] = validate_kernel_dir(path, base, sets, source, options)
            if progress:
                progress(records[path])
        return [records[p] for p in paths]
    with _pool(jobs) as pool:
        futures: dict[Future[dict[str, Any]], Path] = {
            pool.submit(validate_kernel_dir, path, base, sets, source, options): path
            for path, sets, source in longest_first(tasks)
        }
        for future in as_completed(futures):
            path = futures[future]
            try:
                records[path] = future.result()
            except BrokenProcessPool as error:
                records[path] = _lost(path, base, error)
            if progress:
                progress(records[path])
    return [records[p] for p in paths]


def run_summarized(
    paths: list[Path],
    root: str | Path,
    table: LaunchTable,
    options: BatchOptions,
    jobs: int = 1,
    quiet: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """:func:`run_batch` with the progress bar on stderr (unless ``quiet``), timed: the
    records and their :func:`summarize` summary (``validate DIR`` and the hook)."""
    progress = Progress(len(paths), enabled=not quiet)
    started = time.perf_counter()
    records = run_batch(paths, root, table, options, jobs, progress.update)
    progress.close()
    return records, summarize(records, time.perf_counter() - started, jobs)


def _pool(jobs: int) -> AbstractContextManager[ProcessPoolExecutor]:
    """A pool of ``jobs`` processes, forked where the platform can (the workers then need
    not re-import the program that runs them, e.g. under :mod:`llverify.hook`), that Ctrl-C
    stops at once (:func:`llverify.proof.pool.process_pool`)."""
    import multiprocessing

    from llverify.proof.pool import process_pool

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    return process_pool(jobs, context)


def _top(reasons: Counter[str], count: int = 8) -> list[dict[str, Any]]:
    return [{"reason": r, "kernels": n} for r, n in reasons.most_common(count)]


@dataclass
class _Tally:
    """The counts of a summary, gathered kernel by kernel."""

    whole: Counter[str] = field(default_factory=Counter)
    per_op: Counter[str] = field(default_factory=Counter)
    ops: Counter[str] = field(default_factory=Counter)
    overall: Counter[str] = field(default_factory=Counter)
    launches: Counter[str] = field(default_factory=Counter)
    whole_reasons: Counter[str] = field(default_factory=Counter)
    per_op_reasons: Counter[str] = field(default_factory=Counter)
    refuted: list[dict[str, str]] = field(default_factory=list)
    assumed: int = 0

    def add(self, record: dict[str, Any]) -> None:
        """Count one kernel's record."""
        whole, per_op = record["whole"], record["per_op"]
        self.overall[record["status"]] += 1
        self.whole[whole["status"]] += 1
        runs = whole.get("runs", [whole])
        if whole["status"] == "proved" and any(r.get("asserts_assumed") for r in runs):
            self.assumed += 1
        self.launches[record["launches"].get("source") or "none"] += 1
        if whole["status"] == "unknown":
            self.whole_reasons[normalise_reason(whole["reason"])] += 1
        if whole["status"] == "refuted":
            self.refuted.append(
                {"path": record["path"], "part": "whole", "reason": whole["reason"]}
            )
        if per_op is None:
            self.per_op["not run"] += 1
            return
        self.per_op[per_op["status"]] += 1
        self.ops.update(per_op.get("counts", {}))
        if per_op["status"] == "unknown":
            self.per_op_reasons[normalise_reason(per_op["reason"])] += 1
        if per_op["status"] == "refuted":
            self.refuted.append(
                {"path": record["path"], "part": "per op", "reason": per_op["reason"]}
            )


def summarize(records: list[dict[str, Any]], seconds: float, jobs: int = 1) -> dict[str, Any]:
    """The summary of a batch: kernels proved / refuted / unknown, whole and per op, the top
    reasons for unknown (normalised), the refuted kernels, and the speed."""
    tally = _Tally()
    for record in records:
        tally.add(record)
    statuses = ("proved", "refuted", "unknown")
    return {
        "kernels": len(records),
        "status": {s: tally.overall[s] for s in statuses},
        "whole": {s: tally.whole[s] for s in statuses},
        "whole_proved_assuming_asserts": tally.assumed,
        "per_op": {s: tally.per_op[s] for s in (*statuses, "none", "not run")},
        "ops": {s: tally.ops[s] for s in statuses},
        "launch_arguments": dict(sorted(tally.launches.items())),
        "unknown_reasons": {
            "whole": _top(tally.whole_reasons),
            "per_op": _top(tally.per_op_reasons),
        },
        "refuted": tally.refuted,
        "seconds": round(seconds, 2),
        "jobs": jobs,
        "kernels_per_minute": round(60 * len(records) / seconds, 1) if seconds > 0 else None,
    }


def _share(count: int, total: int) -> str:
    return f"{count:5d} ({100 * count / total:5.1f}%)" if total else f"{count:5d}"


def format_summary(summary: dict[str, Any]) -> str:
    """The summary as the table ``llverify validate DIR`` prints."""
    total = summary["kernels"]
    lines = [
        f"{total} kernels validated in {summary['seconds']:.1f} s "
        f"({summary['kernels_per_minute']} kernels/min, {summary['jobs']} jobs)"
    ]
    lines.append(f"{'':22}{'proved':>15}{'refuted':>15}{'unknown':>15}")
    for label, key in (
        ("whole kernel", "whole"),
        ("per op (kernels)", "per_op"),
        ("kernel (both parts)", "status"),
    ):
        row = summary[key]
        lines.append(
            f"{label:22}"
            + "".join(f"{_share(row[s], total):>15}" for s in ("proved", "refuted", "unknown"))
        )
    assumed = summary.get("whole_proved_assuming_asserts", 0)
    if assumed:
        lines.append(
            f"whole kernel: {assumed} of the kernels proved are proved for the inputs on which "
            "no device assert fails (each assert's condition assumed: a failing one aborts "
            "the kernel)"
        )
    per_op = summary["per_op"]
    if per_op["none"] or per_op["not run"]:
        lines.append(
            f"per op: {per_op['none']} kernels have no op to validate, "
            f"{per_op['not run']} not run (--whole-only or no TTGIR)"
        )
    ops = summary["ops"]
    if any(ops.values()):
        lines.append(
            f"ops: {ops['proved']} proved, {ops['refuted']} refuted, {ops['unknown']} unknown"
        )
    launch = summary["launch_arguments"]
    given = total - launch.get("none", 0)
    sources = ", ".join(f"{k} {v}" for k, v in launch.items() if k != "none")
    lines.append(
        f"whole-kernel verdicts hold for CTA 0 under the recorded launch arguments ({given} "
        f"kernels{': ' + sources if sources else ''}), for every value of the scalar "
        f"arguments ({launch.get('none', 0)} kernels)"
    )
    for part in ("whole", "per_op"):
        reasons = summary["unknown_reasons"][part]
        if reasons:
            lines.append(f"top reasons for unknown ({part.replace('_', ' ')}):")
            lines += [f"  {r['kernels']:5d}  {r['reason']}" for r in reasons]
    if summary["refuted"]:
        lines.append("refuted:")
        lines += [
            f"  {r['path']} ({r['part']}): {' '.join(r['reason'].split())[:200]}"
            for r in summary["refuted"]
        ]
    return "\n".join(lines)


def batch_exit_code(records: list[dict[str, Any]], require_proofs: bool = False) -> int:
    """As for one file: 1 when a kernel is refuted (whole or per op), 3 with
    ``require_proofs`` when one is unknown, else 0."""
    statuses = {record["status"] for record in records}
    if "refuted" in statuses:
        return 1
    return 3 if require_proofs and "unknown" in statuses else 0


def batch_report(
    root: str | Path, records: list[dict[str, Any]], summary: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    """The JSON report of a batch (``validate DIR --json``, :mod:`llverify.hook`)."""
    return {"root": str(root), **extra, "summary": summary, "kernels": records}
