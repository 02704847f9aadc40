"""Time ``llverify validate`` (translation validation, issue 19) against compiling alone.

For each module: the whole validation (parse, harness, compile with the installed Triton on the
CPU, load, execute every thread, check), and, measured in the same run, the baseline: one
compile of the same harness (``compile_ttgir``, the worker process included; ``triton.compile``
alone is the worker's own clock).  The ratio is validation over that compile: what validating
costs beyond compiling.  Then a per-phase breakdown (``ValidationReport.timings``) and the
verdicts per op kind.  Targets: a 4-warp matmul <= 10 s, an 8-warp gfx950 matmul (ds.read.tr
dot-operand loads, 512 threads) < 10 s, big_2000.ttgir (2,710 lines) <= 60 s, on the 2-core
development machine.

Cost per instruction (issue 26): execute + check over the LLVM instructions executed, each
module against the first one's (the peer: ``matmul_fp16_sm80`` by default), measured in the
same run; target: big_2000 within 1.5x of the matmul's, and its execute + check under 10 s.
"cpu s" is this process's CPU time for the whole validation (the compile worker excluded),
steadier than wall time on a shared machine.

Run: ``python benchmarks/bench_validate.py [--repeat N] [MODULE ...]`` (modules by stem, from
tests/data/ttgir; default: the seven below).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from pathlib import Path

from llverify.emitted.harness import build_harness
from llverify.emitted.validate import ValidationReport, validate_module
from llverify.triton.compile import compile_ttgir
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", default=list(MODULES))
    parser.add_argument("--repeat", type=int, default=1, help="validations per module (median)")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="time limit of each compile (s)"
    )
    args = parser.parse_args()
    rows = []
    print(
        f"{'module':24} {'lines':>5} {'ops':>4} {'p/r/u':>9} {'validate s':>10} "
        f"{'compile s':>9} {'triton s':>8} {'ratio':>6}"
    )
    for stem in args.modules:
        text = (DATA / f"{stem}.ttgir").read_text()
        times, cpus, report = [], [], None
        for _ in range(args.repeat):
            start, cpu = time.perf_counter(), time.process_time()
            report = validate_module(text, source=stem, timeout_s=args.timeout)
            times.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
        assert report is not None
        compile_wall, triton_seconds = _compile_baseline(text, args.timeout)
        counts = report.counts()
        total = statistics.median(times)
        print(
            f"{stem:24} {len(text.splitlines()):>5} {len(report.verdicts):>4} "
            f"{counts['proved']:>3}/{counts['refuted']}/{counts['unknown']:<3} {total:>10.2f} "
            f"{compile_wall:>9.2f} {triton_seconds:>8.2f} {total / compile_wall:>6.2f}"
        )
        rows.append((stem, report, statistics.median(cpus)))
    print()
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
