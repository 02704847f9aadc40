"""Check shared_memory.lowering / shared_memory.predict predictions against the executor on the
sweep.

Run (from the repository root, with Triton 3.9 installed):

    python scripts/check_predictions.py [--quick] [--only SUBSTR] [--json FILE]

For every generated sweep case (cases.emitted_sweep) whose op moves data through shared
memory (``local_load``, ``local_store``, ``dot_operand_load``, ``convert``) on cuda:80 and
cuda:90, the harness is compiled and executed with the access trace on
(observe_accesses.compare_module), and each op's observed shared-memory store and load
(instruction kind and width, warp instructions, wavefronts, bytes each thread touches) is set
against the prediction.  Prints one line per (case, op, direction): ``agree``, ``DISAGREE``
with the reasons, or ``-`` where llverify makes no prediction; then the totals.  The exit
status is 0 (disagreements are findings to triage, docs/validation.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the cases package (the generated sweep)

from observe_accesses import compare_module  # noqa: E402

from cases.emitted_sweep import sweep_cases  # noqa: E402
from llverify.emitted.sim import UnmodelledAt  # noqa: E402
from llverify.triton.compile import CompileError  # noqa: E402

OPS = ("local_load", "local_store", "dot_operand_load", "convert")
TARGETS = ("cuda:80", "cuda:90")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the sweep's quick subset")
    parser.add_argument("--only", default="", help="only cases whose name contains this")
    parser.add_argument("--json", help="write every comparison to this file")
    args = parser.parse_args(argv)
    cases = [
        c
        for c in sweep_cases(quick=args.quick)
        if c.op in OPS and c.target in TARGETS and args.only in c.name
    ]
    started = time.perf_counter()
    tally: Counter[str] = Counter()
    out = []
    for case in cases:
        try:
            rows = compare_module(case.text)
        except (CompileError, UnmodelledAt) as error:
            print(f"{case.name}: not run ({str(error).splitlines()[0]})")
            tally["not run"] += 1
            continue
        for row in rows:
            obs, pred = row.observed, row.predicted
            seen = f"{obs.instruction} x{obs.instructions} {obs.wavefronts} wf"
            if pred is None:
                verdict, said = "-", row.note
            else:
                verdict = "agree" if row.agree else "DISAGREE"
                said = f"predicted {pred.instruction} x{pred.instructions} {pred.wavefronts} wf"
                if row.disagreements:
                    said += ": " + "; ".join(row.disagreements)
                if row.note:
                    said += f" [{row.note}]"
            tally[verdict] += 1
            print(f"{case.name} | {row.case} | {row.direction} | {seen} | {verdict} | {said}")
            out.append({"name": case.name, "family": case.family, "op": case.op,
                        "target": case.target, "dtype": case.dtype, **row.to_dict()})  # fmt: skip
    seconds = time.perf_counter() - started
    print(f"{len(cases)} cases, {sum(tally.values())} rows: {dict(sorted(tally.items()))}, "
          f"{seconds:.0f} s")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
