"""Swizzle synthesis time on the sweep of tests/cases/swizzle_sweep.py: the solver (synthesis +
certificate) beside Triton's constructive algorithm (llverify's port; Triton 3.9 has no
Python binding for its ``optimalSwizzlingLdSt``, so its own C++ cannot be timed alone).

Run: ``python benchmarks/bench_swizzle.py [--cases N] [--list]`` (``--list``: the cases
where the solver is strictly better than the constructive layout, for docs/swizzle.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cases.swizzle_sweep import sweep_cases  # noqa: E402
from llverify.shared_memory.swizzle import constructive_swizzle, synthesize_swizzle  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000, help="sweep size (default 1000)")
    parser.add_argument("--list", action="store_true", help="list strictly better cases")
    args = parser.parse_args()
    cases = sweep_cases(args.cases)
    solve_s, cert_s, base_s = [], [], []
    status: dict[str, int] = {}
    better = []
    for i, c in enumerate(cases):
        args_ = (c["src"], c["dst"], c["shape"], c["bits"], c["target"])
        t0 = time.perf_counter()
        constructive_swizzle(*args_)
        base_s.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        r = synthesize_swizzle(*args_, timeout_s=60)
        solve_s.append(time.perf_counter() - t0)
        cert_s.append(r.certificate.seconds)
        status[r.certificate.status] = status.get(r.certificate.status, 0) + 1
        b = r.baseline
        if b and b.vectors_at_least(r.cost) and r.cost.total_wavefronts < b.total_wavefronts:
            better.append((c, b, r.cost))
        if (i + 1) % 100 == 0:
            print(f"  {i + 1}/{len(cases)} cases", file=sys.stderr, flush=True)
    print(f"swizzle sweep: {len(cases)} cases (8/16/32/64-bit; nvidia, gfx942, gfx950)")
    print(f"{'':28} {'median':>10} {'p95':>10} {'max':>10}")
    for name, vals in (
        ("synthesis + certificate", solve_s),
        ("  of which the UNSAT query", cert_s),
        ("constructive (baseline)", base_s),
    ):
        print(
            f"{name:28} {statistics.median(vals) * 1e3:8.1f}ms {_pct(vals, 0.95) * 1e3:8.1f}ms"
            f" {max(vals) * 1e3:8.1f}ms"
        )
    ratio = statistics.median(solve_s) / statistics.median(base_s)
    print(f"median ratio synthesis / constructive: {ratio:.1f}x")
    print(f"certificates: {status}")
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
