"""Validate the generated sweep (cases.emitted_sweep) with the installed Triton.

Run (from the repository root, with Triton 3.9 installed):

    python scripts/validate_sweep.py [--quick] [--only SUBSTR] [--jobs N] [--out DIR]
        [--release PYTHON] [--list STATUS]

Each case goes through ``validate_module`` (compile, execute every thread, check every op) in
one of ``--jobs`` worker processes.  Each case's report is written to ``DIR/<name>.json`` as
soon as it is done, and a case whose report is already there is not validated again, so an
interrupted run resumes; delete the folder (or a file) to redo.  A case that raises (or whose
worker died) is recorded with the exception as ``error`` and validated again on the next run.
The report is a table family x op of proved / refuted / unknown ops and seconds, then every
refuted or unknown op (``--list`` picks which), with its reason.  The exit status is 1 when
any op is refuted or any case fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the cases package (the generated sweep)

from cases.emitted_sweep import FAMILIES, OPS, SweepCase, sweep_cases  # noqa: E402

STATUSES = ("proved", "refuted", "unknown")


def validate_case(case: SweepCase, out: Path, python: str | None) -> dict[str, Any]:
    """Validate one case, write its report to ``out/<name>.json`` and return it."""
    from llverify.emitted.validate import validate_module

    start = time.perf_counter()
    try:
        report = validate_module(case.text, source=f"{case.name}.ttgir", python=python)
        result: dict[str, Any] = report.to_dict()
    except Exception as error:  # recorded per case; the sweep goes on
        result = {
            "status": "error",
            "error": f"{type(error).__name__}: {error}",
            "traceback": traceback.format_exc()[-3000:],
            "ops": [],
        }
    result.update(
        name=case.name,
        family=case.family,
        op=case.op,
        dtype=case.dtype,
        num_warps=case.num_warps,
        case_target=case.target,
        seconds=time.perf_counter() - start,
    )
    (out / f"{case.name}.json").write_text(json.dumps(result, indent=1))
    return result


def _done(path: Path) -> bool:
    """Whether ``path`` holds a case's report (one that raised is validated again)."""
    return path.exists() and json.loads(path.read_text()).get("status") != "error"


def run_all(cases: list[SweepCase], out: Path, jobs: int, python: str | None) -> None:
    """Validate every case of ``cases`` without a report under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    todo = [case for case in cases if not _done(out / f"{case.name}.json")]
    print(f"{len(cases) - len(todo)} cases already done, {len(todo)} to validate", flush=True)
    done = 0
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(validate_case, case, out, python): case for case in todo}
        for future in as_completed(futures):
            case = futures[future]
            done += 1
            try:
                result = future.result()
                counts = result.get("counts", {})
                summary = result["status"] + " " + json.dumps(counts)
            except Exception as error:  # a worker died: record it, go on
                summary = f"worker failed: {type(error).__name__}: {error}"
                (out / f"{case.name}.json").write_text(
                    json.dumps(
                        {
                            "name": case.name,
                            "family": case.family,
                            "op": case.op,
                            "status": "error",
                            "error": summary,
                            "ops": [],
                        }
                    )
                )
            print(f"[{done}/{len(todo)}] {case.name}: {summary}", flush=True)


def report(cases: list[SweepCase], out: Path, listed: set[str]) -> int:
    """Print the family x op table and the listed ops; the exit status."""
    table: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    findings: list[str] = []
    errors: list[str] = []
    for case in cases:
        path = out / f"{case.name}.json"
        if not path.exists():
            continue
        result = json.loads(path.read_text())
        cell = table[(case.family, case.op)]
        cell["cases"] += 1
        cell["seconds"] += result.get("seconds", 0.0)
        if result["status"] == "error":
            cell["error"] += 1
            errors.append(f"{case.name}: {result['error']}")
            continue
        for op in result["ops"]:
            cell[op["status"]] += 1
            if op["status"] in listed:
                why = op["violation"] or op["reason"]
                findings.append(
                    f"{op['status']:8} {case.name} {op['op']} line {op['line']}: {why[:400]}"
                )
    header = f"{'family':16} {'op':18} {'cases':>5} " + " ".join(f"{s:>8}" for s in STATUSES)
    print(header + f" {'error':>5} {'seconds':>8}")
    totals: dict[str, float] = defaultdict(float)
    for family in FAMILIES:
        for op in OPS:
            cell = table.get((family, op))
            if not cell:
                continue
            for key, value in cell.items():
                totals[key] += value
            row = " ".join(f"{int(cell[s]):8d}" for s in STATUSES)
            print(
                f"{family:16} {op:18} {int(cell['cases']):5d} {row} {int(cell['error']):5d}"
                f" {cell['seconds']:8.1f}"
            )
    row = " ".join(f"{int(totals[s]):8d}" for s in STATUSES)
    print(
        f"{'total':16} {'':18} {int(totals['cases']):5d} {row} {int(totals['error']):5d}"
        f" {totals['seconds']:8.1f}"
    )
    for line in findings + errors:
        print(line)
    return 1 if totals["refuted"] or totals["error"] else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the covering subset (~30 cases)")
    parser.add_argument("--only", default="", help="only cases whose name contains this")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--out", default="sweep-validation", help="folder of per-case reports")
    parser.add_argument("--release", default=None, help="python of another Triton release")
    parser.add_argument(
        "--list",
        default="refuted,unknown",
        help="comma-separated statuses whose ops are listed (default refuted,unknown)",
    )
    parser.add_argument("--report-only", action="store_true", help="validate nothing new")
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error(f"--jobs: expected a positive number of workers, got {args.jobs}")
    cases = [case for case in sweep_cases(quick=args.quick) if args.only in case.name]
    out = Path(args.out)
    start = time.perf_counter()
    if not args.report_only:
        run_all(cases, out, args.jobs, args.release)
    status = report(cases, out, {s for s in args.list.split(",") if s})
    print(f"wall time {time.perf_counter() - start:.1f} s for {len(cases)} cases")
    return status


if __name__ == "__main__":
    sys.exit(main())
