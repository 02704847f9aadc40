"""Encoding converter benchmark: llverify.to_linear_layout vs Triton 3.9's, same run.

Run: python benchmarks/bench_encodings.py [--repeat N]

Exit status: 0 when every target is met, 3 (``TARGET_MISSED``) when a time target is
missed, 1 on an error.

For each encoding family: the median time of a cached conversion (the same encoding and
shape again; both libraries cache) and of a cold one (a new encoding/shape each call; caches
cleared or avoided), and the ratio llverify / Triton; then the machine's load average before
and after.  Target (docs/performance.md): every ratio <= 1.0.  Proof times of the reference
obligations in specs/ are printed when those modules exist.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from llverify.encodings import clear_cache, from_gluon, to_linear_layout

#: The clocks a sample can be timed with: the process's CPU time (the default: on a machine
#: shared with other work, time spent waiting for a core is not counted) or wall time.
CLOCKS = {"process": time.process_time, "wall": time.perf_counter}
CLOCK = "process"
CLOCK_HELP = "process: CPU time of this process (default; robust on a loaded machine); wall"


#: the exit status when the run worked but a time target was missed
TARGET_MISSED = 3


def _gluon_cases() -> dict[str, list[tuple[Any, list[int]]]]:
    """Distinct (Gluon layout, shape) pairs per family, all valid for Triton 3.9."""
    from triton.experimental.gluon import language as ttgl

    blocked = []
    for spt in ([1, 1], [1, 2], [1, 4], [2, 2], [1, 8], [4, 1]):
        for tpw in ([4, 8], [8, 4], [2, 16], [32, 1]):
            for wpc, order in (([4, 1], [1, 0]), ([2, 2], [0, 1]), ([1, 4], [1, 0])):
                blocked.append((ttgl.BlockedLayout(spt, tpw, wpc, order), [128, 128]))
    parent = ttgl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    slices = [
        (ttgl.SliceLayout(d, ttgl.BlockedLayout(spt, tpw, wpc, o)), [256])
        for (b, _), d in zip(blocked, [0, 1] * 100)
        for spt, tpw, wpc, o in [(b.size_per_thread, b.threads_per_warp, b.warps_per_cta, b.order)]
    ]
    fma = [
        (
            ttgl.DotOperandLayout(
                i,
                ttgl.BlockedLayout(b.size_per_thread, b.threads_per_warp, b.warps_per_cta, b.order),
                0,
            ),
            [64, 64],
        )
        for (b, _), i in zip(blocked, [0, 1] * 100)
    ]
    del parent
    from triton.experimental.gluon.language import amd

    mma = [
        (ttgl.NVMMADistributedLayout([2, 0], w, [16, 8]), [128, 128])
        for w in ([1, 1], [2, 2], [4, 1], [1, 4], [2, 4], [4, 2], [8, 1], [1, 8])
    ]
    mma += [
        (ttgl.NVMMADistributedLayout([3, 0], w, [16, n, 16]), [128, 256])
        for w in ([4, 1], [8, 1])
        for n in (8, 16, 32, 64, 128, 256)
    ]
    mma_dot = [
        (ttgl.DotOperandLayout(i, ttgl.NVMMADistributedLayout([2, 0], w, [16, 8]), k), [128, 128])
        for i in (0, 1)
        for w in ([1, 1], [2, 2], [4, 1])
        for k in (1, 2, 4, 8)
    ]
    mfma = [
        (amd.AMDMFMALayout(v, s, t, w), [128, 128])
        for v in (2, 3, 4)
        for s in ([32, 32, 8], [16, 16, 16])
        for t in (False, True)
        for w in ([1, 1], [2, 2], [4, 1], [1, 4])
    ]
    mfma_dot = [
        (ttgl.DotOperandLayout(i, amd.AMDMFMALayout(3, s, True, w), k), [128, 128])
        for i in (0, 1)
        for s in ([32, 32, 8], [16, 16, 16])
        for w in ([2, 2], [4, 1])
        for k in (4, 8)
    ]
    wmma = [
        (amd.AMDWMMALayout(v, t, wb), [64, 64])
        for v in (1, 2)
        for t in (False, True)
        for wb in ([], [[0, 1]], [[1, 0], [0, 1]], [[1, 0], [2, 0]])
    ]
    return {
        "blocked": blocked,
        "slice": slices,
        "fma dot": fma,
        "nvidia mma": mma,
        "mma dot": mma_dot,
        "amd mfma": mfma,
        "mfma dot": mfma_dot,
        "amd wmma": wmma,
    }


def _median(fn: Callable[[], object], repeat: int, number: int) -> float:
    samples = []
    for _ in range(repeat):
        start = CLOCKS[CLOCK]()
        for _ in range(number):
            fn()
        samples.append((CLOCKS[CLOCK]() - start) / number * 1e6)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="process", help=CLOCK_HELP)
    parser.add_argument(
        "--no-proofs", action="store_true", help="skip the proof times of the obligations"
    )
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = args.clock
    try:
        from triton._C.libtriton import gluon_ir, ir
    except ImportError:
        print("Triton 3.9 is needed as the baseline: pip install '.[triton]'", file=sys.stderr)
        return 2
    import triton

    load_before = os.getloadavg()
    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    print(
        f"{time.strftime('%Y-%m-%d %H:%M')}, Python {platform.python_version()}, "
        f"Triton {triton.__version__}, {os.cpu_count()} CPUs, {args.repeat} samples, "
        f"{CLOCK} clock"
    )
    print(
        f"{'family':<10} {'cases':>5} {'triton cached us':>17} {'llverify cached us':>19} "
        f"{'ratio':>6} {'triton cold us':>15} {'llverify cold us':>17} {'ratio':>6}"
    )
    worst = 0.0
    for family, cases in _gluon_cases().items():
        attrs = [(g._to_ir(builder), shape) for g, shape in cases]
        mine = [(from_gluon(g), shape) for g, shape in cases]
        for (attr, shape), (enc, _) in zip(attrs, mine):  # same answer before timing
            theirs = builder.to_linear_layout(attr, shape)
            ours = dict(to_linear_layout(enc, shape).bases)
            assert ours["register"] == theirs.reg_bases and ours["lane"] == theirs.lane_bases
        attr0, shape0 = attrs[0]
        enc0, _ = mine[0]
        t_cached = _median(
            lambda a=attr0, s=shape0: builder.to_linear_layout(a, s), args.repeat, 200
        )
        m_cached = _median(lambda e=enc0, s=shape0: to_linear_layout(e, s), args.repeat, 200)
        # Cold: Triton's dialect cache is per context, so convert in a fresh context each
        # sample (its creation is timed separately and subtracted); llverify's cache is cleared.
        cold_t, cold_m = [], []
        for _ in range(args.repeat):
            fresh = ir.context()
            ir.load_dialects(fresh)
            fresh_builder = gluon_ir.GluonOpBuilder(fresh)
            fresh_attrs = [(g._to_ir(fresh_builder), shape) for g, shape in cases]
            start = CLOCKS[CLOCK]()
            for attr, shape in fresh_attrs:
                fresh_builder.to_linear_layout(attr, shape)
            cold_t.append((CLOCKS[CLOCK]() - start) / len(cases) * 1e6)
            clear_cache()
            start = CLOCKS[CLOCK]()
            for enc, shape in mine:
                to_linear_layout(enc, shape)
            cold_m.append((CLOCKS[CLOCK]() - start) / len(cases) * 1e6)
        t_cold, m_cold = statistics.median(cold_t), statistics.median(cold_m)
        worst = max(worst, m_cached / t_cached, m_cold / t_cold)
        print(
            f"{family:<10} {len(cases):>5} {t_cached:>17.2f} {m_cached:>19.2f} "
            f"{m_cached / t_cached:>6.2f} {t_cold:>15.2f} {m_cold:>17.2f} {m_cold / t_cold:>6.2f}"
        )
    print(f"\nworst ratio llverify/triton: {worst:.2f} (target <= 1.00)")
    load_after = os.getloadavg()
    print(
        "load average (1, 5, 15 min) before: "
        + ", ".join(f"{v:.2f}" for v in load_before)
        + "; after: "
        + ", ".join(f"{v:.2f}" for v in load_after)
    )
    if not args.no_proofs:
        _proof_times()
    return 0 if worst <= 1.0 else TARGET_MISSED


def _obligations() -> list[tuple[str, str, Any, dict[str, str], dict[str, int], str]]:
    """(family, name, layout, reference formulas, params, expected status) from specs/."""
    from llverify.specs import amd_mfma, amd_wmma, nvidia_mma

    rows = []
    for ob in [*nvidia_mma.OBLIGATIONS, *nvidia_mma.CLOSED_FORM_OBLIGATIONS]:
        layout = to_linear_layout(ob.encoding, list(ob.shape))
        formulas = dict(nvidia_mma.REFERENCES[ob.reference].formulas)
        rows.append(("nvidia_mma", ob.name, layout, formulas, dict(ob.params), "proved"))
    for ob in amd_mfma.OBLIGATIONS:
        layout = ob.encoding.to_linear_layout(list(ob.shape))
        rows.append(("amd_mfma", ob.name, layout, dict(ob.reference), {}, ob.expect))
    for ob in [*amd_wmma.OBLIGATIONS, *amd_wmma.NEGATIVE_CONTROLS]:
        layout = to_linear_layout(amd_wmma.encoding(ob.instance), list(ob.shape))
        rows.append(("amd_wmma", ob.name, layout, ob.formulas(), {}, ob.expect))
    return rows


def _proof_times() -> None:
    """Median proof time per family over the specs/ obligations (auto method)."""
    from llverify import prove_equal

    by_family: dict[str, list[float]] = {}
    methods: dict[str, dict[str, int]] = {}
    wrong = 0
    for family, _name, layout, formulas, params, expect in _obligations():
        verdict = prove_equal(layout, formulas, params=params)
        wrong += verdict.status != expect
        by_family.setdefault(family, []).append(verdict.time_s * 1000)
        methods.setdefault(family, {}).setdefault(verdict.method, 0)
        methods[family][verdict.method] += 1
    print(f"\n{'obligations':<12} {'count':>5} {'median ms':>10} {'max ms':>8}  methods")
    for family, times in by_family.items():
        used = ", ".join(f"{m} {n}" for m, n in sorted(methods[family].items()))
        print(
            f"{family:<12} {len(times):>5} {statistics.median(times):>10.2f} "
            f"{max(times):>8.2f}  {used}"
        )
    print(f"verdicts different from the expected status: {wrong}")


if __name__ == "__main__":
    sys.exit(main())
