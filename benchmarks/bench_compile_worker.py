"""Time ``validate`` of the matmul against Triton's own compile of it, and the compile step
of corpus kernels with and without the persistent worker (issue 26).

The module is tests/data/ttgir/matmul_fp16_sm80.ttgir (sm_80; bench_validate.py and
docs/performance.md call it the 4-warp matmul; its ``ttg.num-warps`` is 8).  Measured in the
same run, interleaved so that a shared machine's load hits both alike:

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

With ``--corpus DIR --kernels N``: the compile step alone, on the harnesses of N kernels spread
over an unpacked torch.compile corpus (those with ops to validate), each compiled three ways,
interleaved: Triton in this process (the peer: ``triton.compile`` with an empty cache, no
process start), one fresh worker process per compile (the design before the persistent
worker: ``compile_worker.py`` run for one request, every stage; ``--one-shot-worker`` a
baseline checkout's script), and ``compile_ttgir`` through the persistent worker as
``validate`` calls it (``until="llir"``).

Run: ``PYTHONPATH=$PWD python benchmarks/bench_compile_worker.py [--repeat 5] [--cold 3]
[--corpus DIR --kernels 20]`` (``PYTHONPATH`` another checkout to time that tree's
``validate`` with the same peer).
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

from llverify.emitted.harness import Harness, build_harness
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


def _corpus_harnesses(corpus: Path, count: int) -> list[tuple[str, Harness]]:
    """The harnesses of ``count`` kernels spread evenly over ``corpus`` (by path), among
    those whose TTGIR has ops to validate."""
    found = []
    for path in sorted(corpus.rglob("*.ttgir")):
        try:
            harness = build_harness(parse_module(path.read_text()))
        except ValueError:
            continue
        if harness.cases:
            found.append((path.relative_to(corpus).as_posix(), harness))
    step = max(1, len(found) // count)
    return found[::step][:count]


def _one_shot(harness: Harness, script: Path) -> float:
    """One compile in a fresh process running the worker ``script`` (the design before the
    persistent worker)."""
    from llverify.triton import protocol
    from llverify.triton.compile import _retarget, parse_target
    from llverify.triton.workers import worker_environment

    target = harness.target
    request = {
        "kind": "ttgir",
        "text": _retarget(harness.text, target),
        "target": parse_target(target),
    }
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(script)],
        input=protocol.request_text(request),
        capture_output=True,
        text=True,
        env=worker_environment(),
        check=False,
    )
    elapsed = time.perf_counter() - start
    assert protocol.answers(done.stdout)[-1]["ok"], done.stderr[-2000:]
    return elapsed


def _persistent(harness: Harness) -> float:
    from llverify.triton.compile import compile_ttgir

    start = time.perf_counter()
    compile_ttgir(harness.text, harness.target, until="llir")
    return time.perf_counter() - start


def _compile_step(corpus: Path, count: int, script: Path) -> None:
    """The compile step of corpus kernels three ways (see the module docstring)."""
    harnesses = _corpus_harnesses(corpus, count)
    archs = {h.target: int(h.target.partition(":")[2]) for _, h in harnesses}
    _persistent(harnesses[0][1])  # the worker started and warm, as in a pool process
    times: dict[str, list[float]] = {"triton in-process": [], "fresh process": [], "worker": []}
    for _, harness in harnesses:
        text, target = harness.text, harness.target
        times["triton in-process"].append(_triton_compile(text, archs[target])())
        times["fresh process"].append(_one_shot(harness, script))
        times["worker"].append(_persistent(harness))
    peer = sum(times["triton in-process"])
    print(f"\ncompile step of {len(harnesses)} corpus harnesses from {corpus} (interleaved)")
    print(f"{'seconds per harness':55}" + "".join(f"{name:>18}" for name in times))
    for k, (name, harness) in enumerate(harnesses):
        label = f"{name.split('/')[0]}/{Path(name).stem[:30]} ({len(harness.cases)} ops)"
        print(f"{label:55}" + "".join(f"{times[n][k]:>18.2f}" for n in times))
    print(f"{'total':55}" + "".join(f"{sum(v):>18.2f}" for v in times.values()))
    print(f"{'median':55}" + "".join(f"{statistics.median(v):>18.2f}" for v in times.values()))
    print(
        f"{'total / triton in-process':55}"
        + "".join(f"{sum(v) / peer:>18.2f}" for v in times.values())
    )


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def _matmul(repeat: int, cold_runs: int) -> None:
    """validate of the matmul against Triton's compile of it, warm and cold."""
    text = MODULE.read_text()
    target, arch = _target(text)
    harness = build_harness(parse_module(text))
    tree = Path(validate_module.__code__.co_filename).parents[2]
    warps = parse_module(text).num_warps
    print(f"{MODULE.name} ({target}, {warps} warps); llverify from {tree}")
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
    for _ in range(repeat):
        for name, run in runs.items():
            times[name].append(run())
    peer = statistics.median(times["triton.compile(module)"])
    print(f"\nwarm (median of {repeat}, interleaved)")
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
    if cold_runs:
        cold: dict[str, list[float]] = {
            "python -c triton.compile(module)": [],
            "llverify validate": [],
        }
        for _ in range(cold_runs):
            cold["python -c triton.compile(module)"].append(
                _fresh_process([sys.executable, "-c", PEER, str(MODULE), str(arch)])
            )
            cold["llverify validate"].append(
                _fresh_process([sys.executable, "-m", "llverify", "validate", str(MODULE)])
            )
        base = statistics.median(cold["python -c triton.compile(module)"])
        print(f"\ncold: a fresh process per run (median of {cold_runs}, interleaved)")
        for name, samples in cold.items():
            median = statistics.median(samples)
            print(f"{name:34}{median:>9.2f}{median / base:>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="warm runs of each (0: no matmul)")
    parser.add_argument("--cold", type=int, default=3, help="fresh-process runs of each")
    parser.add_argument("--corpus", type=Path, help="an unpacked corpus: time its compile step")
    parser.add_argument("--kernels", type=int, default=20, help="corpus kernels (with --corpus)")
    parser.add_argument(
        "--one-shot-worker",
        type=Path,
        help="the compile_worker.py run once per compile (default: this checkout's; give a "
        "baseline checkout's for the design before the persistent worker exactly)",
    )
    args = parser.parse_args()
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    print(f"load average at start: {_load()}  ({os.cpu_count()} cores)")
    if args.repeat > 0:
        _matmul(args.repeat, args.cold)
    if args.corpus:
        from llverify.triton.compile import WORKER

        _compile_step(args.corpus, args.kernels, args.one_shot_worker or WORKER)
    print(f"\nload average at the end: {_load()}")


if __name__ == "__main__":
    main()
