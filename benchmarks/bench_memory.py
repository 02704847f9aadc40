"""Peak memory and time of each ``llverify`` subcommand at the largest shape it accepts.

Each command runs in a child process; its peak memory is the child's own ``ru_maxrss``
(``os.wait4``), its time the wall clock.  The baseline is the same command at 1024x1024, or,
with ``--baseline-tree DIR`` (an older checkout, e.g. ``git archive fc6f5da | tar -x -C
DIR``), the same command and shape run on that tree's code.  Prints a Markdown table
(docs/performance.md records one).

Run: ``python benchmarks/bench_memory.py [--baseline-tree DIR] [--only NAME]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the shared cases package

from cases.large_shapes import BLOCKED, BLOCKED_T, MMA, NVMMA, SHUFFLE_DST, SHUFFLE_SRC, SWIZZLED  # noqa: E402


def _padded(n: int) -> str:
    return f"#ttg.padded_shared<[64:+4] {{order = [1, 0], shape = [{n}, {n}]}}>"


@dataclass(frozen=True)
class Case:
    """One subcommand; ``args(n)`` its arguments at ``n x n``; ``largest`` the largest ``n``
    accepted (algebraic counts: 8192; enumerations: what the enumeration budget allows)."""

    name: str
    largest: int
    what: str  # "algebra" or what is enumerated

    def args(self, n: int, out: Path) -> list[str]:
        shape = ["--shape", f"{n}x{n}"]
        return {
            "bank-conflicts blocked f16": ["bank-conflicts", BLOCKED, SWIZZLED, *shape],
            "bank-conflicts blocked f32": [
                "bank-conflicts", BLOCKED_T, SWIZZLED, *shape, "--dtype", "f32"
            ],
            "bank-conflicts mma (stmatrix)": ["bank-conflicts", MMA, NVMMA, *shape],
            "convert (shared memory)": ["convert", BLOCKED, BLOCKED_T, *shape],
            "swizzle": ["swizzle", BLOCKED, BLOCKED_T, *shape],
            "swizzle mma f32": ["swizzle", MMA, BLOCKED, *shape, "--dtype", "f32"],
            "layout": ["layout", BLOCKED, *shape],
            "bank-conflicts padded": ["bank-conflicts", BLOCKED, _padded(n), *shape],
            "convert (warp shuffle)": ["convert", SHUFFLE_SRC, SHUFFLE_DST, *shape],
            "draw grid": ["draw", BLOCKED, *shape, "-o", str(out / "grid.svg")],
            "draw bank map": [
                "draw", SWIZZLED, "--register", BLOCKED, *shape, "-o", str(out / "banks.svg")
            ],
        }[self.name]  # fmt: skip


CASES = (
    Case("bank-conflicts blocked f16", 8192, "algebra"),
    Case("bank-conflicts blocked f32", 8192, "algebra"),
    Case("bank-conflicts mma (stmatrix)", 8192, "algebra"),
    Case("convert (shared memory)", 8192, "algebra"),
    Case("swizzle", 8192, "algebra"),
    Case("swizzle mma f32", 8192, "algebra"),
    Case("layout", 8192, "algebra (views refused above 2^20 elements)"),
    Case("bank-conflicts padded", 2048, "every physical address"),
    Case("convert (warp shuffle)", 2048, "the shuffle plan"),
    Case("draw grid", 2048, "every element"),
    Case("draw bank map", 2048, "every slot"),
)


@dataclass(frozen=True)
class Run:
    code: int
    seconds: float
    peak_mib: float


def run(tree: Path, args: list[str]) -> Run:
    """``llverify ARGS`` with ``tree``'s package, in a child: exit code, seconds, peak MiB."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "llverify.cli", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return Run(child.returncode, time.perf_counter() - start, usage.ru_maxrss / 1024)


def _cell(r: Run) -> str:
    return f"{r.peak_mib:,.0f} MiB, {r.seconds:.1f} s" + ("" if r.code == 0 else f", exit {r.code}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline-tree", type=Path, help="older checkout to compare with")
    parser.add_argument("--only", help="run only the case with this name")
    options = parser.parse_args()
    out = Path(os.environ.get("TMPDIR", "/tmp")) / "llverify_bench_memory"
    out.mkdir(exist_ok=True)
    label = "baseline (same shape, old tree)" if options.baseline_tree else "baseline (1024x1024)"
    print(f"| subcommand | enumerates | largest accepted shape | peak, time | {label} |")
    print("|---|---|---|---|---|")
    for case in CASES:
        if options.only and case.name != options.only:
            continue
        now = run(ROOT, case.args(case.largest, out))
        if options.baseline_tree:
            base = run(options.baseline_tree, case.args(case.largest, out))
        else:
            base = run(ROOT, case.args(1024, out))
        n = case.largest
        print(f"| {case.name} | {case.what} | {n}x{n} | {_cell(now)} | {_cell(base)} |", flush=True)


if __name__ == "__main__":
    main()
