"""Time whole-kernel validation of named corpus kernels against a baseline tree and the limit.

Issue 25: 43 of the 1,374 stored torch.compile kernels (mostly max-autotune matmul templates
with K loops, ``mm_autotune``) ran past the 30 s per-kernel limit of ``llverify validate DIR
--whole-only --kernel-timeout 30``.  Each kernel named here is validated as that command does
(whole kernel, its recorded launch arguments bound) in a child process of its own, with this
tree and, in the same run and alternating with it, with ``--baseline-tree DIR`` (an older
checkout: ``git archive 260b453 | tar -x -C DIR``).  Per kernel: the verdict, wall seconds and
the child's CPU seconds (steadier than wall time on a shared machine), the CPU ratio, and
whether the wall time is within ``--limit``.

Run: ``python benchmarks/bench_kernels.py [--baseline-tree DIR] [--corpus DIR] [--repeat N]
[HASH ...]`` (``--repeat``: N alternating runs per kernel, the run of median CPU shown)
(kernels by the prefix of their cache folder; default: seven slow non-wgmma ``mm_autotune``
kernels; ``--corpus`` an unpacked workload, else the stored one is unpacked).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from inductor_corpus import extract  # noqa: E402

#: slow max-autotune matmul templates without wgmma (438 to 14,837 LLVM IR lines)
KERNELS = (
    "2R2WN36577",
    "36BTLV7IWY",
    "7CFSSLWJHL",
    "3GVL4CZDGF",
    "J2IABSDZXP",
    "4S3F5BYW6K",
    "4SFRR4WRET",
)

_CHILD = """
import json, sys, time
from pathlib import Path
from llverify.emitted import batch
path, root = Path(sys.argv[1]), Path(sys.argv[2])
(task,) = batch._tasks([path], batch.load_launches(root))
options = batch.BatchOptions(whole_only=True, kernel_timeout=float(sys.argv[3]))
wall, cpu = time.perf_counter(), time.process_time()
record = batch.validate_kernel_dir(task[0], root, task[1], task[2], options)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"status": record["status"], "wall": wall, "cpu": cpu}))
"""


def _run(tree: Path, kernel: Path, root: Path, timeout: float) -> dict:
    """One validation of ``kernel`` with the llverify of ``tree``, in a child process."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(kernel), str(root), str(timeout)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(runs: list[dict]) -> dict:
    """The run of median CPU time among ``runs`` of one tree (alternating with the other's)."""
    return sorted(runs, key=lambda run: run["cpu"])[len(runs) // 2]


def _kernel(root: Path, prefix: str) -> Path:
    found = [
        p for p in sorted(root.glob(f"triton/{prefix}*/*.llir")) if not p.name.startswith("__grp__")
    ]
    if not found:
        raise SystemExit(f"{prefix}: no kernel under {root}/triton")
    return found[0]


def _table(root: Path, args: argparse.Namespace) -> None:
    trees = ([args.baseline_tree] if args.baseline_tree else []) + [ROOT]
    head = f"{'kernel':12} {'lines':>6}"
    if args.baseline_tree:
        head += f" {'baseline':>9} {'wall s':>7} {'cpu s':>7}"
    print(head + f" {'this tree':>9} {'wall s':>7} {'cpu s':>7} {'cpu ratio':>9} {'limit':>6}")
    for prefix in args.kernels:
        kernel = _kernel(root, prefix)
        rounds = [
            [_run(tree, kernel, root, args.timeout) for tree in trees] for _ in range(args.repeat)
        ]
        runs = [_median(list(column)) for column in zip(*rounds)]
        line = f"{prefix:12} {len(kernel.read_text().splitlines()):>6}"
        for run in runs:
            line += f" {run['status']:>9} {run['wall']:>7.1f} {run['cpu']:>7.1f}"
        ratio = runs[0]["cpu"] / runs[-1]["cpu"] if len(runs) > 1 else 1.0
        within = "ok" if runs[-1]["wall"] <= args.limit else "over"
        print(line + f" {ratio:>9.2f} {within:>6}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kernels", nargs="*", default=list(KERNELS))
    parser.add_argument("--baseline-tree", type=Path, help="an older checkout to compare")
    parser.add_argument("--corpus", type=Path, help="the unpacked workload (has triton/)")
    parser.add_argument("--workload", default="mm_autotune")
    parser.add_argument(
        "--repeat", type=int, default=1, help="alternating runs per kernel (the median shown)"
    )
    parser.add_argument("--limit", type=float, default=30.0, help="the per-kernel limit (s)")
    parser.add_argument(
        "--timeout", type=float, default=3000.0, help="stop a kernel after this long (s)"
    )
    args = parser.parse_args()
    if args.corpus is not None:
        _table(args.corpus, args)
        return
    with tempfile.TemporaryDirectory() as folder:
        (root,) = extract(ROOT / "tests" / "data" / "inductor", Path(folder), [args.workload])
        _table(root, args)


if __name__ == "__main__":
    main()
