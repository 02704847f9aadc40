"""Validate real torch.compile kernels at corpus scale: kernels per minute, and the verdicts.

The stored corpus (tests/data/inductor: 1,374 kernels Inductor generated on an H200 with
Triton 3.6) is unpacked to a temporary folder; a deterministic sample (every ``--every``-th
kernel, by path) is validated as ``llverify validate DIR`` does it (the recorded launch
arguments bound), whole kernel only unless ``--per-op``.  Baseline measured in the same run:
the same sample with one process; the table gives kernels per minute with 1 and ``--jobs``
processes and their ratio, then the verdict shares and the top reasons for unknown.

Run: ``python benchmarks/bench_corpus.py [--every 10] [--jobs 2] [--per-op]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from llverify.emitted.batch import (
    BatchOptions,
    find_kernels,
    format_summary,
    load_launches,
    run_batch,
    summarize,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from inductor_corpus import extract  # noqa: E402


def _measure(paths: list[Path], root: Path, options: BatchOptions, jobs: int) -> tuple[float, dict]:
    table = load_launches(root)
    started = time.perf_counter()
    records = run_batch(paths, root, table, options, jobs=jobs)
    seconds = time.perf_counter() - started
    return seconds, summarize(records, seconds, jobs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--every", type=int, default=10, help="every N-th kernel (default 10)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--per-op", action="store_true", help="also the per-op part")
    parser.add_argument("--kernel-timeout", type=float, default=60.0)
    args = parser.parse_args()
    options = BatchOptions(whole_only=not args.per_op, kernel_timeout=args.kernel_timeout)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        extract(ROOT / "tests" / "data" / "inductor", root)
        paths = find_kernels(root)[:: args.every]
        print(f"{len(paths)} kernels (every {args.every}th of the stored corpus)")
        rows = []
        for jobs in sorted({1, args.jobs}):
            seconds, summary = _measure(paths, root, options, jobs)
            rows.append((jobs, seconds, len(paths) / seconds * 60, summary))
    print(f"\n{'processes':>10} {'seconds':>9} {'kernels/min':>12} {'ratio':>7}")
    base = rows[0][2]
    for jobs, seconds, rate, _ in rows:
        print(f"{jobs:>10} {seconds:>9.1f} {rate:>12.1f} {rate / base:>7.2f}")
    print()
    print(format_summary(rows[-1][3]))


if __name__ == "__main__":
    main()
