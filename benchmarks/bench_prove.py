"""Proof benchmark: how long llverify takes to prove layouts equal to closed forms.

Run: python benchmarks/bench_prove.py [--repeat N] [--naive]

Exit status: 0 when every verdict is right and every target met, 3 (``TARGET_MISSED``) when
the verdicts are right but a time target is missed, 1 on a wrong verdict or an error.

1. A concrete 20-input-bit SwizzledShared layout (1024 x 1024, vec 8, perPhase 1,
   maxPhase 8) against its closed form: median time of prove_equal per method, and the
   Z3 solver time alone for the direct query.  Target: <= 10 ms median ("auto").
2. The parametric SwizzledShared family (every power-of-2 vec/perPhase/maxPhase up to 128,
   every R x C shape up to 2**20 elements) against its closed form, and the closed form
   without its final wrap (must be refuted).  Target: <= 1 s.  With --naive, also the
   direct Z3 encoding (an XOR over all 20 input bits of symbolic bases) as the baseline.
There is no Triton counterpart: Triton proves nothing, it only builds layouts.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from llverify import LinearLayout, prove_equal, prove_family_equal, swizzled_shared_2d
from llverify.proof.family import SWIZZLED_REFERENCE, SWIZZLED_REFERENCE_WITHOUT_WRAP

#: the exit status when every verdict is right but a time target was missed
TARGET_MISSED = 3


def swizzled_layout(lc: int, lr: int, vec: int, per_phase: int, max_phase: int) -> LinearLayout:
    """Triton's SwizzledShared offset bases for a (2**lr) x (2**lc) tile, order [1, 0]."""
    cols = 1 << lc
    bases = [[0, 1 << j] for j in range(lc)]
    for i in range(lr):
        row = 1 << i
        bases.append([row, (vec * ((row // per_phase) % max_phase)) % cols])
    return LinearLayout.from_bases([("offset", bases)], ["dim0", "dim1"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21, help="samples per measurement")
    parser.add_argument("--naive", action="store_true", help="also time the naive encoding")
    args = parser.parse_args(argv)

    lc, lr, vec, per_phase, max_phase = 10, 10, 8, 1, 8
    layout = swizzled_layout(lc, lr, vec, per_phase, max_phase)
    params = {"lc": lc, "lv": 3, "lp": 0, "lm": 3}
    prove_equal(layout, SWIZZLED_REFERENCE, params=params, method="z3")  # warm z3 up
    print("Concrete 20-input-bit SwizzledShared layout vs its closed form")
    print(f"{'method':<12} {'verdict':<9} {'median ms':>10} {'z3 solver ms':>13}")
    ok, fast = True, True
    for method in ("auto", "linear", "z3", "exhaustive"):
        times, solver = [], []
        for _ in range(args.repeat):
            verdict = prove_equal(layout, SWIZZLED_REFERENCE, params=params, method=method)
            times.append(verdict.time_s * 1000)
            if "solver_s" in verdict.details:
                solver.append(verdict.details["solver_s"] * 1000)
        median = statistics.median(times)
        solver_text = f"{statistics.median(solver):13.2f}" if solver else f"{'-':>13}"
        print(f"{method:<12} {verdict.status:<9} {median:>10.2f} {solver_text}")
        ok &= verdict.proved
        if method == "auto":
            auto_ms = median
            auto_method = verdict.method
    print(f"auto decided by '{auto_method}': {auto_ms:.2f} ms (target <= 10 ms)")
    fast &= auto_ms <= 10

    family = swizzled_shared_2d()
    print(
        f"\nParametric SwizzledShared family: {family.domain_size()} parameter assignments "
        f"(lc + lr <= 20, vec/perPhase/maxPhase in 1..128)"
    )
    print(f"{'reference':<22} {'method':<18} {'verdict':<9} {'seconds':>8}")
    rows = [("closed form", SWIZZLED_REFERENCE, "parametric-linear")]
    rows.append(("without final wrap", SWIZZLED_REFERENCE_WITHOUT_WRAP, "parametric-linear"))
    if args.naive:
        rows.append(("closed form", SWIZZLED_REFERENCE, "z3"))
    for label, reference, method in rows:
        samples = 3 if method == "parametric-linear" else 1
        times = []
        for _ in range(samples):
            start = time.perf_counter()
            verdict = prove_family_equal(family, reference, method=method, timeout_ms=600_000)
            times.append(time.perf_counter() - start)
        seconds = statistics.median(times)
        print(f"{label:<22} {method:<18} {verdict.status:<9} {seconds:>8.2f}")
        if label == "without final wrap":
            print(f"  counterexample: {verdict}")
            ok &= verdict.refuted
        else:
            ok &= verdict.proved
            if method == "parametric-linear":
                fast &= seconds <= 1.0
                print(f"  parametric proof: {seconds:.2f} s (target <= 1 s)")
    if not ok:
        return 1  # a wrong verdict
    return 0 if fast else TARGET_MISSED


if __name__ == "__main__":
    sys.exit(main())
