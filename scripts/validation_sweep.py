"""Write the generated validation sweep (cases.emitted_sweep) and compile it with Triton.

Run (from the repository root, with Triton 3.9 installed):

    TRITON_DEFAULT_FP_FUSION=1 python scripts/validation_sweep.py [--quick] [--out DIR]
        [--jobs N] [--only SUBSTR] [--json FILE]

Each case is written to ``DIR/<name>.ttgir`` and compiled with ``triton.compile(path,
target=GPUTarget(...))`` for its module's target, on the CPU.  Triton aborts the process on
some invalid input, so compilation runs in worker processes (``--jobs``, default 2) that are
restarted when one dies; each case's C++ diagnostics are captured from the worker's stderr.
Triton's cache is a fresh temporary folder, so every case really compiles.  The report is a
table family x op of generated / compiled / failed cases, then each failure with its first
error line, then the timing; the exit status is 1 when any case fails.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the cases package (the generated sweep)

from cases.emitted_sweep import FAMILIES, OPS, SweepCase, sweep_cases  # noqa: E402

MARK = "@@ "
_FLAGGED = re.compile(r"error|Assertion|LLVM ERROR", re.IGNORECASE)


def worker() -> None:
    """Compile the cases named on stdin (``path<TAB>target`` lines), one result line each."""
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import triton
    from triton.backends.compiler import GPUTarget

    out = os.fdopen(os.dup(1), "w")
    for line in sys.stdin:
        path, target = line.rstrip("\n").split("\t")
        backend, arch = target.split(":")
        gpu = (
            GPUTarget("cuda", int(arch), 32)
            if backend == "cuda"
            else GPUTarget("hip", arch, 64 if arch.startswith("gfx9") else 32)
        )
        with tempfile.TemporaryFile(mode="w+") as errors:
            saved = os.dup(2)
            os.dup2(errors.fileno(), 2)
            start = time.perf_counter()
            try:
                compiled = triton.compile(path, target=gpu)
                result = {"ok": True, "stages": sorted(compiled.asm)}
            except Exception as error:  # a Python-level refusal, reported per case
                result = {"ok": False, "error": f"{type(error).__name__}: {error}"}
            result["seconds"] = time.perf_counter() - start
            os.dup2(saved, 2)
            os.close(saved)
            errors.seek(0)
            text = errors.read()
            flagged = [line for line in text.splitlines() if _FLAGGED.search(line)]
            result["stderr"] = "\n".join(flagged[:20])[:4000] + "\n" + text[-2000:]
        out.write(MARK + json.dumps(result) + "\n")
        out.flush()


class _Worker:
    """One worker process; restarted when Triton aborts it."""

    def __init__(self, cache: str) -> None:
        self.cache = cache
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> subprocess.Popen[str]:
        env = dict(os.environ, TRITON_CACHE_DIR=self.cache, PYTHONPATH=str(ROOT))
        env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
        return subprocess.Popen(
            [sys.executable, __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )

    def compile(self, path: Path, target: str) -> dict[str, object]:
        if self.process is None or self.process.poll() is not None:
            self.process = self.start()
        assert self.process.stdin is not None and self.process.stdout is not None
        start = time.perf_counter()
        self.process.stdin.write(f"{path}\t{target}\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith(MARK):
                result: dict[str, object] = json.loads(line[len(MARK) :])
                return result
        # the worker died (Triton aborted): its stderr says why
        self.process.wait()
        assert self.process.stderr is not None
        text = self.process.stderr.read()
        flagged = [line for line in text.splitlines() if _FLAGGED.search(line)]
        tail = "\n".join(flagged[:20])[:4000] + "\n" + text[-2000:]
        code = self.process.returncode
        self.process = None
        return {
            "ok": False,
            "error": f"worker died (exit {code})",
            "stderr": tail,
            "seconds": time.perf_counter() - start,
        }

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait()


def compile_all(cases: list[SweepCase], out: Path, jobs: int) -> dict[str, dict[str, object]]:
    """Write every case under ``out`` and compile it; the results by case name."""
    out.mkdir(parents=True, exist_ok=True)
    for case in cases:
        (out / f"{case.name}.ttgir").write_text(case.text)
    results: dict[str, dict[str, object]] = {}
    pending = list(cases)
    lock = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="llverify-sweep-cache-") as cache:

        def run() -> None:
            worker_ = _Worker(cache)
            try:
                while True:
                    with lock:
                        if not pending:
                            return
                        case = pending.pop(0)
                    result = worker_.compile(out / f"{case.name}.ttgir", case.target)
                    with lock:
                        results[case.name] = result
                        done = len(results)
                    if not result["ok"] or done % 50 == 0:
                        status = "ok" if result["ok"] else "FAILED"
                        print(f"[{done}/{len(cases)}] {case.name}: {status}", flush=True)
            finally:
                worker_.close()

        threads = [threading.Thread(target=run) for _ in range(max(1, jobs))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return results


def first_error(result: dict[str, object]) -> str:
    """The first line of a failure's diagnostics that says what went wrong."""
    lines = [
        line.strip()
        for line in f"{result.get('stderr', '')}\n{result.get('error', '')}".splitlines()
        if line.strip()
    ]
    for words in (("Assertion", "LLVM ERROR"), ("error:",), ("error", "Error")):
        for line in lines:
            if any(word in line for word in words) and "Failures have been" not in line:
                if "signal was caught" not in line:
                    return line[:300]
    return lines[0][:300] if lines else "(no diagnostics)"


def report(cases: list[SweepCase], results: dict[str, dict[str, object]], seconds: float) -> str:
    """The table family x op (generated/compiled, failures marked), failures, counts, timing."""
    generated: dict[tuple[str, str], int] = defaultdict(int)
    compiled: dict[tuple[str, str], int] = defaultdict(int)
    for case in cases:
        generated[case.family, case.op] += 1
        compiled[case.family, case.op] += bool(results[case.name]["ok"])
    ops = [op for op in OPS if any(op == o for _, o in generated)]
    width = max(len(f) for f in FAMILIES)
    lines = ["generated/compiled per family x op ('!' marks failures)", ""]
    lines.append(" " * width + " " + " ".join(f"{op[:12]:>12}" for op in ops))
    for family in FAMILIES:
        cells = []
        for op in ops:
            total = generated.get((family, op), 0)
            good = compiled.get((family, op), 0)
            cell = "" if not total else f"{total}/{good}" + ("!" if good < total else "")
            cells.append(f"{cell:>12}")
        lines.append(f"{family:<{width}} " + " ".join(cells))
    failures = [case for case in cases if not results[case.name]["ok"]]
    lines += [
        "",
        f"{len(cases)} generated, {len(cases) - len(failures)} compiled, {len(failures)} failed",
    ]
    for case in failures:
        lines.append(f"  FAILED {case.name}: {first_error(results[case.name])}")
    for key in ("dtype", "num_warps", "target"):
        counts: dict[object, int] = defaultdict(int)
        for case in cases:
            counts[getattr(case, key)] += 1
        lines.append(
            f"per {key}: "
            + ", ".join(
                f"{k}={v}" for k, v in sorted(counts.items(), key=lambda item: str(item[0]))
            )
        )
    times = sorted(float(str(r["seconds"])) for r in results.values())
    if times:
        lines.append(
            f"time: {seconds:.1f} s wall; per case median {times[len(times) // 2]:.2f} s, "
            f"max {times[-1]:.2f} s, sum {sum(times):.1f} s"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the ~30-case CI subset")
    parser.add_argument("--out", type=Path, default=None, help="where the .ttgir files go")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--only", default="", help="only cases whose name contains this")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return 0
    cases = [case for case in sweep_cases(quick=args.quick) if args.only in case.name]
    out = args.out or Path(tempfile.mkdtemp(prefix="llverify-sweep-"))
    start = time.perf_counter()
    results = compile_all(cases, out, args.jobs)
    seconds = time.perf_counter() - start
    print(f"modules in {out}")
    print(report(cases, results, seconds))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True))
    return 0 if all(result["ok"] for result in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
