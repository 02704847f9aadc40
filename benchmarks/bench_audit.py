"""Time ``llverify audit`` on the kernels of tests/data/ttgir (compiled by Triton 3.9 on the
CPU; big_2000.ttgir is the 2,710-line module of the <= 2 s target). Median of 5 runs each,
cold caches for the first.

Run: ``python benchmarks/bench_audit.py``.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from llverify.audit.analyze import audit

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "ttgir"


def main() -> None:
    print(f"{'kernel':34} {'lines':>6} {'findings':>8} {'first s':>8} {'median s':>9}")
    for kernel in sorted(DATA.glob("*.ttgir")):
        text = kernel.read_text()
        times = []
        for _ in range(5):
            start = time.perf_counter()
            report = audit(text)
            times.append(time.perf_counter() - start)
        print(
            f"{kernel.stem:34} {report.lines:>6} {len(report.findings):>8} {times[0]:>8.2f} "
            f"{statistics.median(times):>9.2f}"
        )


if __name__ == "__main__":
    main()
