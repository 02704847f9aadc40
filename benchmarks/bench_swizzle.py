"""Swizzle synthesis time on the sweep of tests/cases/swizzle_sweep.py: the solver (synthesis +
certificate) beside Triton's constructive algorithm (llverify's port; Triton 3.9 has no
Python binding for its ``optimalSwizzlingLdSt``, so its own C++ cannot be timed alone), in
the same run, case by case; and the certified optima checked against the reference of
tests/data/swizzle/sweep_reference.json (the optima before issue 26's speed-up).

Run: ``python benchmarks/bench_swizzle.py [--cases N] [--list]`` (``--list``: the cases
where the solver is strictly better than the constructive layout, for docs/swizzle.md).
The first five cases run once untimed first (importing Z3, once per process, with the
first that needs a solver query).  Wall-clock times, and the process's CPU time beside
them: on a shared machine the wall clock also counts the time other processes hold the
cores.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cases.swizzle_sweep import reference_mismatch, sweep_cases, sweep_reference  # noqa: E402
from llverify.shared_memory.swizzle import constructive_swizzle, synthesize_swizzle  # noqa: E402

#: issue 26's targets on the 1,000-case sweep (wall clock)
MAX_TARGET_S, P95_TARGET_S = 1.0, 0.050
#: cases synthesized once, untimed, before the timed run (the first needing a solver query
#: imports Z3, once per process)
WARM_UP = 5


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _row(name: str, values: list[float]) -> str:
    return (
        f"{name:28} {statistics.median(values) * 1e3:8.1f}ms {_pct(values, 0.95) * 1e3:8.1f}ms"
        f" {max(values) * 1e3:8.1f}ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000, help="sweep size (default 1000)")
    parser.add_argument("--list", action="store_true", help="list strictly better cases")
    args = parser.parse_args()
    cases = sweep_cases(args.cases)
    reference = sweep_reference()
    for c in cases[:WARM_UP]:  # imports Z3 and runs its first contexts and queries
        synthesize_swizzle(c["src"], c["dst"], c["shape"], c["bits"], c["target"])
    solve_s, cpu_s, cert_s, base_s = [], [], [], []
    status: dict[str, int] = {}
    better, mismatches, slowest = [], [], []
    started = time.perf_counter()
    for i, c in enumerate(cases):
        args_ = (c["src"], c["dst"], c["shape"], c["bits"], c["target"])
        t0 = time.perf_counter()
        constructive_swizzle(*args_)
        base_s.append(time.perf_counter() - t0)
        t0, c0 = time.perf_counter(), time.process_time()
        r = synthesize_swizzle(*args_, timeout_s=60)
        solve_s.append(time.perf_counter() - t0)
        cpu_s.append(time.process_time() - c0)
        cert_s.append(r.certificate.seconds)
        slowest.append((solve_s[-1], i, c["name"], c["bits"], c["target"]))
        status[str(r.certificate.status)] = status.get(str(r.certificate.status), 0) + 1
        mismatch = reference_mismatch(c, reference[i], r) if i < len(reference) else "no row"
        if mismatch is not None:
            mismatches.append(mismatch)
        b = r.baseline
        if b and b.vectors_at_least(r.cost) and r.cost.total_wavefronts < b.total_wavefronts:
            better.append((c, b, r.cost))
        if (i + 1) % 100 == 0:
            print(f"  {i + 1}/{len(cases)} cases", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    print(f"swizzle sweep: {len(cases)} cases (8/16/32/64-bit; nvidia, gfx942, gfx950)")
    print(f"{'':28} {'median':>10} {'p95':>10} {'max':>10}")
    print(_row("synthesis + certificate", solve_s))
    print(_row("  CPU time of the process", cpu_s))
    print(_row("  of which the UNSAT query", cert_s))
    print(_row("constructive (baseline)", base_s))
    ratio = statistics.median(solve_s) / statistics.median(base_s)
    print(f"median ratio synthesis / constructive: {ratio:.1f}x")
    print(
        f"in all: {sum(solve_s):.1f} s of synthesis, {sum(cpu_s):.1f} s of it on the CPU; "
        f"the run {elapsed:.1f} s"
    )
    for name, value, target in (
        ("max", max(solve_s), MAX_TARGET_S),
        ("p95", _pct(solve_s, 0.95), P95_TARGET_S),
    ):
        verdict = "met" if value < target else "MISSED"
        print(f"target {name} < {target * 1e3:.0f} ms: {verdict} ({value * 1e3:.1f} ms)")
    top = sorted(slowest, reverse=True)[:5]
    print("slowest:", ", ".join(f"{s * 1e3:.0f} ms #{i} {b}-bit {t}" for s, i, _, b, t in top))
    print(f"certificates: {status}")
    compared = min(len(cases), len(reference))
    print(
        f"certified optima equal to the reference (status, widths, wavefronts): "
        f"{compared - len(mismatches)}/{compared}"
    )
    for mismatch in mismatches:
        print(f"  differs: {mismatch}")
    print(f"strictly fewer wavefronts than the constructive layout: {len(better)} cases")
    if args.list:
        print("| case | bits | target | constructive (st/ld vec, wavefronts) | solver |")
        print("|---|---|---|---|---|")
        for c, b, o in better:
            print(
                f"| {c['name']} {c['shape']} | {c['bits']} | {c['target']} | "
                f"{b.store_vec}/{b.load_vec}, {b.total_wavefronts} | "
                f"{o.store_vec}/{o.load_vec}, {o.total_wavefronts} |"
            )


if __name__ == "__main__":
    main()
