"""Validate every TTGIR fixture (tests/data/ttgir) with the installed Triton and print the
results table of docs/validation.md, then every op that is not proved.

Usage: ``PYTHONPATH=. python scripts/validate_fixtures.py [--only SUBSTRING] [--json OUT]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from llverify.emitted.validate import validate_module

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "data" / "ttgir"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="validate only fixtures whose name has this")
    parser.add_argument("--json", metavar="OUT", help="also write the reports as JSON")
    args = parser.parse_args(argv)
    rows, others, reports = [], [], {}
    totals = {"proved": 0, "refuted": 0, "unknown": 0}
    for path in sorted(FIXTURES.glob("*.ttgir")):
        if args.only not in path.name:
            continue
        print(f"... {path.name}", file=sys.stderr, flush=True)
        started = time.perf_counter()
        report = validate_module(path.read_text(), source=path.name)
        seconds = time.perf_counter() - started
        counts = report.counts()
        for key in totals:
            totals[key] += counts[key]
        rows.append(
            f"| {path.stem} | {report.status.value} | {counts['proved']}/"
            f"{counts['refuted']}/{counts['unknown']} | {len(report.skipped)} | "
            f"{seconds:.1f} |"
        )
        others += [
            f"* {path.stem} line {v.op_line} `{v.op}`: {v.status.value}: {v.reason}"
            for v in report.verdicts
            if v.status.value != "proved"
        ]
        reports[path.name] = report.to_dict()
    print("| module | verdict | proved/refuted/unknown | skipped | time s |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print(
        f"\nTotal: {totals['proved']} ops proved, {totals['refuted']} refuted, "
        f"{totals['unknown']} unknown.\n"
    )
    print("\n".join(others) or "Every op proved.")
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
