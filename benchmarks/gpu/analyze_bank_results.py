"""Compare a GPU run of ``bank_check.py`` with llverify's predictions and print the table.

Reads ``bank_cases.json`` (layouts + predictions) and a results folder (``ncu.csv`` with the
hardware counters, ``launches.json``, ``source.json`` with per-instruction counters,
``times.json``/``times2.json`` with ns per conversion).  Prints one row per kernel of the 30
cases (Markdown), the probe summary and the timing ratio of llverify's swizzle to Triton's
``convert_layout``; writes ``table.json`` into the folder.  Exit status 1 when a prediction
for an explicit shared layout (unswizzled, llverify's, a probe) differs from the hardware.

Run: ``python benchmarks/gpu/analyze_bank_results.py [RESULTS_FOLDER [CASES_JSON]]``
(default: ``benchmarks/gpu/results/h100`` and ``results/bank_cases.json``).
"""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

CASES = Path(__file__).parent / "results" / "bank_cases.json"
HW = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{}.sum"
CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{}.sum"


def ncu_kernels(path: Path) -> list[dict[str, float]]:
    """Metric values of every through_shared/triton_default kernel, in launch order."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    kernels: dict[str, dict[str, float]] = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        if not any(k in row["Kernel Name"] for k in ("through_shared", "triton_default")):
            continue
        value = row["Metric Value"].replace(",", "") or "0"
        kernels.setdefault(row["ID"], {})[row["Metric Name"]] = float(value)
    return list(kernels.values())


def source_totals(kernel: dict[str, Any]) -> dict[str, list[int]]:
    """[wavefronts, warp instructions] of the kernel's shared stores and loads (SASS)."""
    out = {"store": [0, 0], "load": [0, 0]}
    for ins in kernel["instructions"]:
        direction = "store" if ins["sass"].split()[0].startswith("ST") else "load"
        out[direction][0] += int(ins["counters"].get("memory_l1_wavefronts_shared", 0))
        out[direction][1] += int(ins["counters"].get("inst_executed", 0))
    return out


def table(folder: Path, cases_path: Path = CASES) -> list[dict[str, Any]]:
    """One row per launched kernel: prediction, hardware counters, time."""
    cases = json.loads(cases_path.read_text())
    launches = json.loads((folder / "launches.json").read_text())["launches"]
    ncu = ncu_kernels(folder / "ncu.csv")
    source = json.loads((folder / "source.json").read_text())
    if not len(launches) == len(ncu) == len(source):
        raise SystemExit(f"{len(launches)} launches, {len(ncu)} ncu rows, {len(source)} sources")
    runs = [
        {(c, v): t for c, v, t in json.loads(p.read_text())["times"]}
        for p in sorted(folder.glob("times*.json"))
    ]
    rows = []
    for (case, variant, exact), counters, kernel in zip(launches, ncu, source):
        entry = cases[case]
        predicted = entry["predicted"][variant]
        sass = source_totals(kernel)
        row: dict[str, Any] = {
            "case": case, "name": entry["name"], "bits": entry["bits"], "variant": variant,
            "probe": bool(entry.get("probe")), "roundtrip": exact,
        }  # fmt: skip
        for d, op in (("store", "st"), ("load", "ld")):
            row[f"pred_{op}"] = predicted[d]["wavefronts"]
            row[f"pred_{op}_instr"] = predicted[d]["instructions"]
            row[f"{op}_instruction"] = predicted[d]["instruction"]
            row[op] = int(counters[HW.format(op)])
            row[f"{op}_conflicts"] = int(counters[CONFLICTS.format(op)])
            row[f"{op}_instr"] = sass[d][1]
            row[f"{op}_sass_wavefronts"] = sass[d][0]
        predicted_four = (
            row["pred_st"],
            row["pred_ld"],
            row["pred_st_instr"],
            row["pred_ld_instr"],
        )
        row["match"] = predicted_four == (row["st"], row["ld"], row["st_instr"], row["ld_instr"])
        times = [r[(case, variant)] for r in runs if (case, variant) in r]
        row["ns"] = statistics.mean(times) if times else None
        rows.append(row)
    return rows


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "results" / "h100")
    rows = table(folder, Path(sys.argv[2]) if len(sys.argv) > 2 else CASES)
    (folder / "table.json").write_text(json.dumps(rows, indent=1))
    print("| case | bits | variant | store: predicted / measured | load: predicted / measured "
          "| bank-conflict counter st/ld | ns per conversion |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if r["probe"]:
            continue
        mark = "" if r["match"] else " **differs**"
        ns = f"{r['ns']:.0f}" if r["ns"] is not None else "-"
        print(f"| {r['case']} {r['name']} | {r['bits']} | {r['variant']}{mark} "
              f"| {r['pred_st']} / {r['st']} ({r['st_instruction']}, {r['st_instr']} instr) "
              f"| {r['pred_ld']} / {r['ld']} ({r['ld_instruction']}, {r['ld_instr']} instr) "
              f"| {r['st_conflicts']} / {r['ld_conflicts']} | {ns} |")  # fmt: skip
    explicit = [r for r in rows if r["variant"] != "triton"]
    bad = [r for r in explicit if not r["match"]]
    print()
    for label, group in (
        ("unswizzled + llverify kernels", [r for r in explicit if not r["probe"]]),
        ("probe kernels", [r for r in explicit if r["probe"]]),
        ("Triton convert_layout kernels", [r for r in rows if r["variant"] == "triton"]),
    ):
        hits = sum(r["match"] for r in group)
        print(f"{label}: prediction == measured (wavefronts and instructions, store and load) "
              f"in {hits} of {len(group)}")  # fmt: skip
    consistent = all(
        r["st"] == r["st_sass_wavefronts"] and r["ld"] == r["ld_sass_wavefronts"] for r in rows
    )
    print(f"hardware counters == sum of per-instruction counters: {consistent}")
    print(f"round trips exact: {sum(r['roundtrip'] for r in rows)} of {len(rows)}")
    for label, floor in (("all cases", 0.0), ("cases where Triton takes >= 200 ns", 200.0)):
        ratios = []
        for r in rows:
            if r["variant"] == "llverify" and r["ns"]:
                t = next(t for t in rows if t["case"] == r["case"] and t["variant"] == "triton")
                if t["ns"] and t["ns"] >= floor:
                    ratios.append(r["ns"] / t["ns"])
        if ratios:
            geo = math.exp(statistics.mean(math.log(x) for x in ratios))
            print(f"time llverify / Triton default, {label} ({len(ratios)}): geometric mean "
                  f"{geo:.3f}, median {statistics.median(ratios):.3f}, "
                  f"min {min(ratios):.3f}, max {max(ratios):.3f}")  # fmt: skip
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
