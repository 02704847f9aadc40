"""Time ``llverify validate`` (translation validation, issue 19) against compiling alone.

For each module: the whole validation (parse, harness, compile with the installed Triton on the
CPU, load, execute every thread, check), and, measured in the same run, the baseline: one
compile of the same harness through every stage (``compile_ttgir``, the worker process
included; ``triton.compile`` alone is the worker's own clock).  The ratio is validation over
that compile (issue 26's target for the 4-warp matmul: <= 1.3).

Both sides are timed in the same state, samples alternating (validate first in the first
sample, compile first in the next, ...), medians of ``--repeat``:

* warm (the default): the compile worker is started before the first sample and serves both
  sides, as in any process that compiles or validates more than one kernel;
* ``--cold`` adds a second reading where each side starts a fresh worker (a fresh interpreter
  that imports Triton), as one ``llverify validate`` or one compile in a fresh process does.

(Before 2026-11-29 the script timed the first validation with a cold worker against a compile
with the warm one; that charged the worker's start, about 0.5-1 s, to the validation.)

Cost per instruction (issue 26): execute + check over the LLVM instructions executed, each
module against the first one's (the peer: ``matmul_fp16_sm80`` by default), measured in the
same run; target: big_2000 within 1.5x of the matmul's, and its execute + check under 10 s.
"cpu s" is this process's CPU time for the whole validation (the compile worker excluded),
steadier than wall time on a shared machine.

Run: ``python benchmarks/bench_validate.py [--repeat N] [--cold] [MODULE ...]`` (modules by
stem, from tests/data/ttgir; default: the seven below).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from llverify.emitted.harness import build_harness
from llverify.emitted.validate import ValidationReport, validate_module
from llverify.triton.compile import compile_ttgir
from llverify.triton.workers import close_workers, worker_for
from llverify.ttgir import parse_module

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "ttgir"
MODULES = (
    "matmul_fp16_sm80",
    "attn_fwd_fp16_sm80",
    "softmax_fp32_sm80",
    "transpose_fp16_gfx942",
    "matmul_fp16_gfx950",
    "matmul_fp8e4m3_gfx950",
    "big_2000",
)
PHASES = ("parse", "harness", "compile", "load", "execute", "check", "relayout")


def _compile_baseline(text: str, timeout_s: float) -> tuple[float, float]:
    """Wall seconds of one compile of the module's full harness, and triton.compile's own."""
    harness = build_harness(parse_module(text))
    start = time.perf_counter()
    compiled = compile_ttgir(harness.text, harness.target, timeout_s=timeout_s)
    return time.perf_counter() - start, compiled.seconds


def _kinds(report: ValidationReport) -> str:
    per_kind: dict[str, Counter[str]] = {}
    for verdict in report.verdicts:
        per_kind.setdefault(verdict.op, Counter())[verdict.status.value] += 1
    return ", ".join(
        f"{op} {'/'.join(str(c[s]) for s in ('proved', 'refuted', 'unknown'))}"
        for op, c in sorted(per_kind.items())
    )


def _per_instruction(rows: list[tuple[str, ValidationReport, float]]) -> None:
    """Execute + check per instruction executed, and each module's over the first's (the
    peer's, measured in the same run)."""
    print(
        f"{'module':24} {'exec+check s':>12} {'instrs':>7} {'us/instr':>8} "
        f"{'x ' + rows[0][0][:14]:>16} {'cpu s':>6} {'cpu us/instr':>12}"
    )
    peer = peer_cpu = 0.0
    for k, (stem, report, cpu) in enumerate(rows):
        spent = report.timings.get("execute", 0.0) + report.timings.get("check", 0.0)
        each = 1e6 * spent / max(1, report.instructions)
        cpu_each = 1e6 * cpu / max(1, report.instructions)
        if k == 0:
            peer, peer_cpu = each, cpu_each
        print(
            f"{stem:24} {spent:>12.2f} {report.instructions:>7} {each:>8.1f} "
            f"{each / peer:>16.2f} {cpu:>6.2f} {cpu_each:>12.1f}"
        )
    print(f"(peer: {rows[0][0]}, {peer:.1f} us per instruction, {peer_cpu:.1f} cpu us)")


def _validate_once(text: str, stem: str, timeout_s: float) -> tuple[float, float, ValidationReport]:
    """Wall and CPU seconds of one whole validation, and its report."""
    start, cpu = time.perf_counter(), time.process_time()
    report = validate_module(text, source=stem, timeout_s=timeout_s)
    return time.perf_counter() - start, time.process_time() - cpu, report


def _measure(stem: str, text: str, repeat: int, timeout_s: float, cold: bool) -> dict[str, Any]:
    """Medians over ``repeat`` alternating samples of validation and compile, both warm (the
    worker already running) or both ``cold`` (a fresh worker for each call)."""
    walls, cpus, compiles, tritons = [], [], [], []
    report = None
    for k in range(repeat):
        for side in ("validate", "compile") if k % 2 == 0 else ("compile", "validate"):
            if cold:
                close_workers()
            if side == "validate":
                wall, cpu, report = _validate_once(text, stem, timeout_s)
                walls.append(wall)
                cpus.append(cpu)
            else:
                compile_wall, triton_seconds = _compile_baseline(text, timeout_s)
                compiles.append(compile_wall)
                tritons.append(triton_seconds)
    assert report is not None
    return {
        "report": report,
        "validate": statistics.median(walls),
        "cpu": statistics.median(cpus),
        "compile": statistics.median(compiles),
        "triton": statistics.median(tritons),
    }


def _print_ratios(title: str, rows: list[tuple[str, str, dict[str, Any]]]) -> None:
    print(title)
    print(
        f"{'module':24} {'lines':>5} {'ops':>4} {'p/r/u':>9} {'validate s':>10} "
        f"{'compile s':>9} {'triton s':>8} {'ratio':>6}"
    )
    for stem, text, row in rows:
        report = row["report"]
        counts = report.counts()
        print(
            f"{stem:24} {len(text.splitlines()):>5} {len(report.verdicts):>4} "
            f"{counts['proved']:>3}/{counts['refuted']}/{counts['unknown']:<3} "
            f"{row['validate']:>10.2f} {row['compile']:>9.2f} {row['triton']:>8.2f} "
            f"{row['validate'] / row['compile']:>6.2f}"
        )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", default=list(MODULES))
    parser.add_argument(
        "--repeat", type=int, default=3, help="samples of each side per module (median)"
    )
    parser.add_argument(
        "--cold", action="store_true", help="also time both sides with a fresh worker each"
    )
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="time limit of each compile (s)"
    )
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat {args.repeat}: expected a positive count")
    worker_for().version()  # the warm reading's worker, started before the first sample
    warm, rows = [], []
    for stem in args.modules:
        text = (DATA / f"{stem}.ttgir").read_text()
        row = _measure(stem, text, args.repeat, args.timeout, cold=False)
        warm.append((stem, text, row))
        rows.append((stem, row["report"], row["cpu"]))
    _print_ratios("warm worker (both sides):", warm)
    if args.cold:
        cold = [
            (stem, text, _measure(stem, text, args.repeat, args.timeout, cold=True))
            for stem, text, _ in warm
        ]
        _print_ratios("cold worker (a fresh one for each call, both sides):", cold)
    print(f"{'module':24} " + " ".join(f"{p:>8}" for p in PHASES) + f" {'instrs':>9}")
    for stem, report, _ in rows:
        print(
            f"{stem:24} "
            + " ".join(f"{report.timings.get(p, 0.0):>8.2f}" for p in PHASES)
            + f" {report.instructions:>9}"
        )
    print()
    _per_instruction(rows)
    print()
    print("verdicts per op kind (proved/refuted/unknown):")
    for stem, report, _ in rows:
        print(f"  {stem}: {_kinds(report)}; skipped {len(report.skipped)} ops")


if __name__ == "__main__":
    main()
