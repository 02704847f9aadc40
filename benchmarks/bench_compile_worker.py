"""Time ``validate`` of the 4-warp matmul against Triton's own compile of it (issue 26).

The module is tests/data/ttgir/matmul_fp16_sm80.ttgir (4 warps, sm_80: the 4-warp matmul of
bench_validate.py).  Measured in the same run, interleaved so that a shared machine's load
hits both alike:

* the peer, Triton 3.9 in this process: ``triton.compile`` of the module itself, and of the
  harness llverify builds around its ops (what ``validate`` compiles), each with an empty
  Triton cache (``TRITON_CACHE_DIR`` a new folder per compile, as llverify's worker does);
* llverify: ``validate_module`` of the module (parse, harness, compile in the compile worker,
  load, execute every thread, check).

Warm: one untimed run of each first (Triton's import and first-compile setup in this process,
the worker's start for llverify), then ``--repeat`` runs of each, medians.  Cold (``--cold
N``): a fresh process per run, ``python -m llverify validate MODULE`` against ``python -c
'import triton; triton.compile(MODULE)'``, medians of N.  The ratio is llverify over Triton's
compile of the module; target: validate within 1.3x of it.  The load average is printed at
the start and the end (the development machine is shared).

Run: ``PYTHONPATH=$PWD python benchmarks/bench_compile_worker.py [--repeat 5] [--cold 3]``
(``PYTHONPATH`` another checkout to time that tree's llverify with the same peer).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from llverify.emitted.harness import build_harness
from llverify.emitted.validate import validate_module
from llverify.ttgir import parse_module

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "tests" / "data" / "ttgir" / "matmul_fp16_sm80.ttgir"

PEER = """
import sys, triton
from triton.backends.compiler import GPUTarget
triton.compile(sys.argv[1], target=GPUTarget("cuda", int(sys.argv[2]), 32))
"""


def _target(text: str) -> tuple[str, int]:
    """The module's target, e.g. ``("cuda:80", 80)``."""
    target = parse_module(text).target or "cuda:80"
    return target, int(target.partition(":")[2])


def _triton_compile(text: str, arch: int) -> Callable[[], float]:
    """A function timing one in-process ``triton.compile`` of ``text`` with an empty cache."""
    import triton
    from triton.backends.compiler import GPUTarget

    def run() -> float:
        with tempfile.TemporaryDirectory(prefix="bench-peer-") as folder:
            os.environ["TRITON_CACHE_DIR"] = os.path.join(folder, "cache")
            path = os.path.join(folder, "module.ttgir")
            Path(path).write_text(text)
            start = time.perf_counter()
            triton.compile(path, target=GPUTarget("cuda", arch, 32))
            return time.perf_counter() - start

    return run


def _validate(text: str, phases: list[dict[str, float]]) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        report = validate_module(text, source=MODULE.stem)
        elapsed = time.perf_counter() - start
        assert report.status.value == "proved", report.counts()
        phases.append(report.timings)
        return elapsed

    return run


def _fresh_process(command: list[str]) -> float:
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as folder:
        env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(folder, "cache"))
        env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
        start = time.perf_counter()
        subprocess.run(command, check=True, env=env, capture_output=True)
        return time.perf_counter() - start


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="warm runs of each (median)")
    parser.add_argument("--cold", type=int, default=3, help="fresh-process runs of each")
    args = parser.parse_args()
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    text = MODULE.read_text()
    target, arch = _target(text)
    harness = build_harness(parse_module(text))
    tree = Path(validate_module.__code__.co_filename).parents[2]
    print(f"{MODULE.name} ({target}, 4 warps); llverify from {tree}")
    print(f"load average at start: {_load()}  ({os.cpu_count()} cores)")
    phases: list[dict[str, float]] = []
    runs = {
        "triton.compile(module)": _triton_compile(text, arch),
        "triton.compile(harness)": _triton_compile(harness.text, arch),
        "llverify validate": _validate(text, phases),
    }
    for run in runs.values():  # warm up: imports, first-compile setup, the worker's start
        run()
    phases.clear()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeat):
        for name, run in runs.items():
            times[name].append(run())
    peer = statistics.median(times["triton.compile(module)"])
    print(f"\nwarm (median of {args.repeat}, interleaved)")
    print(f"{'':26}{'seconds':>9}{'min':>8}{'max':>8}{'/ triton(module)':>18}")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(
            f"{name:26}{median:>9.2f}{min(samples):>8.2f}{max(samples):>8.2f}{median / peer:>18.2f}"
        )
    keys = ("parse", "harness", "compile", "load", "execute", "check")
    print(
        "validate phases (median s): "
        + ", ".join(f"{k} {statistics.median(p.get(k, 0.0) for p in phases):.2f}" for k in keys)
    )
    if args.cold:
        cold: dict[str, list[float]] = {
            "python -c triton.compile(module)": [],
            "llverify validate": [],
        }
        for _ in range(args.cold):
            cold["python -c triton.compile(module)"].append(
                _fresh_process([sys.executable, "-c", PEER, str(MODULE), str(arch)])
            )
            cold["llverify validate"].append(
                _fresh_process([sys.executable, "-m", "llverify", "validate", str(MODULE)])
            )
        base = statistics.median(cold["python -c triton.compile(module)"])
        print(f"\ncold: a fresh process per run (median of {args.cold}, interleaved)")
        for name, samples in cold.items():
            median = statistics.median(samples)
            print(f"{name:34}{median:>9.2f}{median / base:>8.2f}")
    print(f"\nload average at the end: {_load()}")


if __name__ == "__main__":
    main()
