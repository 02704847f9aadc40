"""Time ``llverify audit`` on the kernels of tests/data/ttgir (compiled by Triton 3.9 on the
CPU; big_2000.ttgir is the 2,710-line module of the <= 2 s target), and what the static rules
of issue 20 add to it.

Per kernel, median of ``--repeat`` runs (default 5), all measured in the same run:

* baseline: parsing plus the rules the audit had before them (``convert-layout``,
  ``shared-access``, ``dot-operand-encoding``), in a fresh context;
* added: the other rules of ``RULES`` (module-consistency, copies, and the rules of issue 20),
  run right after in the same context, so they reuse the layouts the baseline built exactly
  as they do inside ``audit()``; ratio = (baseline + added) / baseline (target: <= 1.20 on
  the sum over the fixtures);
* audit: ``audit()`` end to end, every rule (a separate run: its difference from
  baseline + added is noise, mostly the swizzle certificate's solver on transpose_fp16_gfx942).

What "in the same context" charges to whom: the baseline pays for parsing the module (the
operations' names, operands, types and locations) and for every layout its three rules ask
for; the added rules pay for everything else they ask for: the layouts and shared layouts
only they need, and the parts of an operation read on demand (attributes, signature,
regions), which the baseline's rules never read.  Inside ``audit()`` module-consistency runs
first and builds the layouts the baseline then reuses; here the baseline runs first, so the
layouts both need are charged to the baseline, which needed them before the added rules
existed.  Process-wide caches (encoding converters, ``from_bases``, parsed encodings) are
warm for both after the first repeat; the first repeat (all caches cold) gives the same
ratio within a few percent (docs/performance.md).

Run: ``python benchmarks/bench_audit.py [--repeat N] [--clock wall|process]``; the load
average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from llverify.audit.analyze import RULES, audit, run_rules, target_of
from llverify.audit.context import AuditContext
from llverify.ttgir import parse_module

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "ttgir"
BASELINE = ("convert-layout", "shared-access", "dot-operand-encoding")
TARGET_RATIO = 1.20
#: wall: the wall clock (the default, as documented); process: this process's CPU time, which
#: counts no time other processes hold the cores (robust on a loaded machine)
CLOCKS = {"wall": time.perf_counter, "process": time.process_time}
clock = CLOCKS["wall"]


def _baseline_then_added(text: str) -> tuple[float, float]:
    start = clock()
    module = parse_module(text)
    ctx = AuditContext(module, target_of(module), 30.0)
    run_rules(ctx, tuple(rule for rule in RULES if rule.name in BASELINE))
    middle = clock()
    run_rules(ctx, tuple(rule for rule in RULES if rule.name not in BASELINE))
    return middle - start, clock() - middle


def _audit(text: str) -> tuple[float, int]:
    start = clock()
    report = audit(text)
    return clock() - start, len(report.findings)


def _load() -> str:
    return ", ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per kernel and timing")
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="wall", help="wall clock or CPU time"
    )
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    print(f"{args.clock} clock; load average (1, 5, 15 min) before: {_load()}")
    added_rules = [rule.name for rule in RULES if rule.name not in BASELINE]
    print(f"baseline rules: {', '.join(BASELINE)}; added rules: {', '.join(added_rules)}")
    print(
        f"{'kernel':30} {'lines':>6} {'findings':>8} {'baseline s':>10} {'added s':>8} "
        f"{'ratio':>6} {'audit s':>8}"
    )
    total_base = total_added = total_audit = 0.0
    ratios = []
    rest_base = rest_added = 0.0  # the kernels whose time is not the swizzle solver's
    for kernel in sorted(DATA.glob("*.ttgir")):
        text = kernel.read_text()
        base, added, whole, findings = [], [], [], 0
        for _ in range(args.repeat):
            b, a = _baseline_then_added(text)
            base.append(b)
            added.append(a)
            seconds, findings = _audit(text)
            whole.append(seconds)
        b, a, w = statistics.median(base), statistics.median(added), statistics.median(whole)
        total_base += b
        total_added += a
        total_audit += w
        lines = text.count("\n")
        ratios.append((b + a) / b)
        if not kernel.stem.startswith("transpose"):
            rest_base += b
            rest_added += a
        print(
            f"{kernel.stem:30} {lines:>6} {findings:>8} {b:>10.3f} {a:>8.3f} "
            f"{(b + a) / b:>6.2f} {w:>8.3f}"
        )
    ratio = (total_base + total_added) / total_base
    verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
    print(
        f"{'total':30} {'':>6} {'':>8} {total_base:>10.3f} {total_added:>8.3f} {ratio:>6.2f} "
        f"{total_audit:>8.3f}  ({verdict} the <= {TARGET_RATIO:.2f} target)"
    )
    print(
        f"per-kernel ratio: median {statistics.median(ratios):.2f}, max {max(ratios):.2f}; "
        f"without the two transposes (whose time is the swizzle solver's): "
        f"{(rest_base + rest_added) / rest_base:.2f} ({rest_added:.3f} s added to "
        f"{rest_base:.3f} s)"
    )
    print(f"load average after: {_load()}")


if __name__ == "__main__":
    main()
