"""Kernels per minute of ``llverify validate DIR`` on real torch.compile kernels, against a
baseline checkout, in the same run (issue 26).

A sample of ``--sample N`` kernels spread evenly over an unpacked corpus (``CORPUS/<workload>/``
as scripts/inductor_corpus.py unpacks tests/data/inductor: ``triton/<HASH>/<name>.*``, the
workload's ``launches.json`` and Inductor output code) is linked into a temporary folder
(real folders, linked files: the directory walk does not follow linked folders).  Then
``python -m llverify validate SAMPLE --shard K/S --jobs J`` (default mode: whole kernel and
per op; ``--kernel-timeout``) runs for each shard K with this checkout's llverify and with
the baseline's (``--baseline-tree``), alternating which goes first, so that a shared
machine's load hits both alike.  Printed: per tree, the kernels, the batch seconds (the
summary's, as ``validate DIR`` prints them), the wall seconds of the commands (start-up and
discovery included), kernels per minute, the CPU seconds of the commands and their children
(the pool, the compile workers: the load-independent cost), the verdicts (which must
agree), and the load average before and after.  Target: 200 kernels per minute on 2 cores
with ``--jobs 2``.

Run: ``PYTHONPATH=$PWD python benchmarks/bench_validate_dir.py CORPUS --baseline-tree OTHER
[--sample 500] [--shards 10] [--jobs 2] [--kernel-timeout 60]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def link_sample(corpus: Path, folder: Path, count: int) -> Counter[str]:
    """Link ``count`` kernels spread evenly over ``corpus`` (sorted by path) into ``folder``,
    with every launches file and output-code file of their workloads; the kernels per
    workload."""
    kernels = sorted(
        p
        for p in corpus.rglob("*.llir")
        if not p.name.startswith("__grp__") and p.with_suffix(".json").is_file()
    )
    if count > len(kernels):
        raise ValueError(f"--sample {count}: the corpus holds {len(kernels)} kernels")
    step = (len(kernels) - 1) / max(1, count - 1)
    picked = [kernels[round(k * step)] for k in range(count)]

    def link(path: Path) -> None:
        target = folder / path.relative_to(corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.symlink_to(path)

    for kernel in picked:
        for path in kernel.parent.iterdir():
            if path.is_file():
                link(path)
    workloads = Counter(k.relative_to(corpus).parts[0] for k in picked)
    for workload in workloads:
        for path in (corpus / workload).rglob("*"):
            if path.is_file() and (path.name.endswith("launches.json") or path.suffix == ".py"):
                link(path)
    return workloads


def run_shard(tree: Path, sample: Path, shard: str, args: argparse.Namespace) -> dict:
    """One ``validate DIR`` of a shard with the llverify of ``tree``: its summary, wall time
    and the load averages around it."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    command = [
        sys.executable, "-m", "llverify", "validate", str(sample), "--shard", shard,
        "--jobs", str(args.jobs), "--kernel-timeout", str(args.kernel_timeout),
        "--json", "--quiet",
    ]  # fmt: skip
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1, 3):
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    summary = json.loads(done.stdout)["summary"]
    return {"summary": summary, "wall": wall, "cpu": cpu, "load": (load, os.getloadavg()[0])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="the unpacked corpus (CORPUS/<workload>/)")
    parser.add_argument("--baseline-tree", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=500)
    parser.add_argument("--shards", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--kernel-timeout", type=float, default=60.0)
    args = parser.parse_args()
    trees = {"this": ROOT, "baseline": args.baseline_tree.resolve()}
    totals = {name: {"kernels": 0, "seconds": 0.0, "wall": 0.0, "cpu": 0.0, "status": Counter(),
                     "whole": Counter(), "per_op": Counter(), "ops": Counter(), "loads": []}
              for name in trees}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-validate-dir-") as folder:
        sample = Path(folder)
        workloads = link_sample(args.corpus, sample, args.sample)
        print(f"{args.sample} kernels from {args.corpus}: {dict(workloads.most_common())}")
        print(
            f"{os.cpu_count()} cores; --jobs {args.jobs} --kernel-timeout {args.kernel_timeout:g}"
        )
        for k in range(1, args.shards + 1):
            order = list(trees) if k % 2 else list(reversed(trees))
            for name in order:
                result = run_shard(trees[name], sample, f"{k}/{args.shards}", args)
                summary, total = result["summary"], totals[name]
                total["kernels"] += summary["kernels"]
                total["seconds"] += summary["seconds"]
                total["wall"] += result["wall"]
                total["cpu"] += result["cpu"]
                total["loads"] += list(result["load"])
                for key in ("status", "whole", "per_op", "ops"):
                    total[key].update(summary[key])
                print(
                    f"shard {k}/{args.shards} {name:8} {summary['kernels']:4d} kernels "
                    f"{summary['seconds']:7.1f} s batch {result['wall']:7.1f} s wall "
                    f"{result['cpu']:7.1f} s CPU  "
                    f"load {result['load'][0]:.1f} -> {result['load'][1]:.1f}",
                    flush=True,
                )
    print(f"\n{'tree':10}{'kernels':>8}{'batch s':>9}{'wall s':>9}{'kernels/min':>12}"
          f"{'(wall)':>8}{'CPU s':>8}{'CPU s/kernel':>13}{'mean load':>10}")  # fmt: skip
    rates = {}
    for name, total in totals.items():
        rates[name] = 60 * total["kernels"] / total["seconds"]
        wall_rate = 60 * total["kernels"] / total["wall"]
        load = sum(total["loads"]) / len(total["loads"])
        print(
            f"{name:10}{total['kernels']:>8}{total['seconds']:>9.1f}{total['wall']:>9.1f}"
            f"{rates[name]:>12.1f}{wall_rate:>8.1f}{total['cpu']:>8.1f}"
            f"{total['cpu'] / total['kernels']:>13.2f}{load:>10.1f}"
        )
    print(f"this / baseline: {rates['this'] / rates['baseline']:.2f}x kernels per minute")
    for name, total in totals.items():
        print(
            f"{name}: kernels {dict(total['status'])}; whole {dict(total['whole'])}; "
            f"per op {dict(total['per_op'])}; ops {dict(total['ops'])}"
        )


if __name__ == "__main__":
    main()
