"""The bank-conflict query per access pattern, llverify against tensor-layouts, in one process.

The patterns are tensor-layouts' kind: one warp of 32 threads, thread ``t`` accessing the one
element at offset ``layout(t)`` of a CuTe layout (strided, 2-D thread tiles with and without
padding, XOR-swizzled), each as 32-bit and as 128-bit elements (``element_bytes`` 4 and 16).
Per pattern and in the same run, this times

* tensor-layouts 0.3.2: ``tensor_layouts.analysis.bank_conflicts(layout, element_bytes=...)``
  (the peer, installed by the ``bench`` extra);
* llverify on the addresses: :func:`llverify.warp_bank_conflicts` ``(addresses, bits)``, the
  addresses being the layout's values for the 32 threads (any pattern, linear or not);
* llverify on layouts: :func:`llverify.bank_conflicts` ``(register layout, shared layout,
  shape, bits)``, for the patterns that are GF(2)-linear in the thread (lane) index, so
  that a LinearLayout can express them: the query Triton users make, conversion and
  vectorisation included.

and prints where the two libraries disagree.  tensor-layouts counts the distinct 32-bit words
per bank over all 32 threads and over the first word of each element only; the hardware
splits a 64-bit access into passes of 16 lanes and a 128-bit one into passes of 8 (docs/
hardware.md), so its counts are wrong for wide accesses.  llverify's two queries must agree
with each other on every linear pattern (checked here).

Each figure is the median over interleaved samples (the three methods alternate, so machine
drift hits all alike) of the time per query, then the median over the patterns; samples are
timed with the process's CPU time by default (on a machine shared with other work, waiting
for a core is not counted), ``--clock wall`` for wall time.

Run: ``python benchmarks/bench_bank_query.py [--samples N] [--clock process|wall]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from llverify import LinearLayout, bank_conflicts, warp_bank_conflicts

try:
    from tensor_layouts import ComposedLayout, Layout, Swizzle
    from tensor_layouts.analysis import bank_conflicts as tl_bank_conflicts
except ImportError:  # the peer is optional (pip install '.[bench]')
    tl_bank_conflicts = None

LANES = 32
ELEMENT_BITS = (32, 128)

#: The clocks a sample can be timed with: the process's CPU time (the default) or wall time.
CLOCKS = {"process": time.process_time, "wall": time.perf_counter}


@dataclass
class Pattern:
    """One warp's access pattern: the CuTe layout, its 32 offsets, and (when linear) the
    LinearLayouts llverify's layout query takes."""

    name: str
    layout: Any
    offsets: list[int]
    layouts: tuple[LinearLayout, LinearLayout, list[int]] | None


def cute_patterns() -> list[tuple[str, Any]]:
    """(name, CuTe layout of 32 threads) for the benchmark."""
    out = [(f"{LANES}:{s}", Layout(LANES, s)) for s in (0, 1, 2, 3, 4, 8, 9, 16, 17, 32, 33, 64)]
    for cols in (4, 8, 16):
        rows = LANES // cols
        for ld in (cols, 32, 64, 2 * cols + 1, 64 + 4):
            # A 2-D thread tile (one mode of 32 threads, so that tensor-layouts reads it as 32
            # threads of one value): thread t at row t // cols, column t % cols of a
            # row-major tile with leading dimension ld, and its transpose.
            out.append((f"(({cols},{rows})):((1,{ld}))", Layout(((cols, rows),), ((1, ld),))))
            out.append((f"(({cols},{rows})):(({ld},1))", Layout(((cols, rows),), ((ld, 1),))))
    for bits, base, shift in ((3, 0, 3), (2, 0, 3), (3, 1, 3), (2, 2, 3), (3, 0, 4)):
        for inner in (
            Layout(((8, 4),), ((8, 64),)),
            Layout(((4, 8),), ((64, 8),)),
            Layout(32, 8),
        ):
            layout = ComposedLayout(Swizzle(bits, base, shift), inner)
            out.append((f"Sw<{bits},{base},{shift}> o {inner}", layout))
    return out


def linear_layouts(offsets: Sequence[int]) -> tuple[LinearLayout, LinearLayout, list[int]] | None:
    """The (register layout, shared layout, shape) of one warp whose lane ``l`` holds the one
    element ``offsets[l]`` of a 1-D tensor, when the offsets are GF(2)-linear in the lane
    (else None): the lane bases are the offsets of lanes 1, 2, 4, 8, 16; the shared layout
    is the identity, offset ``i`` holding element ``i``."""
    bases = [offsets[1 << i] for i in range(LANES.bit_length() - 1)]
    for lane, offset in enumerate(offsets):
        value = 0
        for i, basis in enumerate(bases):
            if lane >> i & 1:
                value ^= basis
        if value != offset:
            return None
    size = 1 << max(offsets).bit_length()
    reg = LinearLayout.from_bases(
        [("register", []), ("lane", [[b] for b in bases]), ("warp", [])],
        ["dim0"],
        [size],
        require_surjective=False,
    )
    return reg, LinearLayout.identity_1d(size, "offset", "dim0"), [size]


def patterns() -> list[Pattern]:
    """Every pattern with its offsets and, when linear, its layouts."""
    out = []
    for name, layout in cute_patterns():
        offsets = [int(layout(t)) for t in range(LANES)]
        out.append(Pattern(name, layout, offsets, linear_layouts(offsets)))
    return out


def per_call(fn: Callable[[], Any], calls: int, clock: Callable[[], float]) -> float:
    """Microseconds per call of ``fn`` over ``calls`` calls, timed with ``clock``."""
    start = clock()
    for _ in range(calls):
        fn()
    return (clock() - start) / calls * 1e6


def time_pattern(
    p: Pattern, bits: int, samples: int, calls: int, clock: Callable[[], float]
) -> dict[str, float]:
    """Median microseconds per query of each method on one pattern (interleaved samples)."""
    methods: dict[str, Callable[[], Any]] = {
        "tensor-layouts": lambda: tl_bank_conflicts(p.layout, element_bytes=bits // 8),
        "llverify addresses": lambda: warp_bank_conflicts(p.offsets, bits),
    }
    if p.layouts is not None:
        reg, shared, shape = p.layouts
        methods["llverify layouts"] = lambda: bank_conflicts(reg, shared, shape, bits)
    times: dict[str, list[float]] = {name: [] for name in methods}
    for fn in methods.values():
        fn()  # warm caches (llverify's pass table, tensor-layouts' nothing)
    for _ in range(samples):
        for name, fn in methods.items():
            times[name].append(per_call(fn, calls, clock))
    return {name: statistics.median(t) for name, t in times.items()}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=15, help="samples per pattern and method")
    parser.add_argument("--calls", type=int, default=20, help="calls per sample")
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="process", help="process (CPU) or wall time"
    )
    args = parser.parse_args(argv)
    if tl_bank_conflicts is None:
        print("skipped: tensor-layouts not installed (pip install '.[bench]')")
        return
    import tensor_layouts

    pats = patterns()
    linear = sum(p.layouts is not None for p in pats)
    print(
        f"{len(pats)} one-warp patterns ({linear} GF(2)-linear), 32-bit and 128-bit elements; "
        f"tensor-layouts {tensor_layouts.__version__}; median of {args.samples} interleaved "
        f"samples of {args.calls} calls, {args.clock} clock"
    )
    disagreements = []
    rows = []
    for bits in ELEMENT_BITS:
        medians: dict[str, list[float]] = {}
        for p in pats:
            peer = tl_bank_conflicts(p.layout, element_bytes=bits // 8)
            mine = warp_bank_conflicts(p.offsets, bits)
            if p.layouts is not None:
                by_layout = bank_conflicts(*p.layouts, bits)
                assert by_layout.conflicts == mine.conflicts, (p.name, bits, by_layout, mine)
            if peer["max_ways"] - 1 != mine.conflicts:
                disagreements.append((p.name, bits, peer["max_ways"] - 1, mine))
            timed = time_pattern(p, bits, args.samples, args.calls, CLOCKS[args.clock])
            for name, t in timed.items():
                medians.setdefault(name, []).append(t)
        peer_us = statistics.median(medians["tensor-layouts"])
        for name, values in medians.items():
            us = statistics.median(values)
            rows.append((bits, name, len(values), us, us / peer_us))
    print(f"{'bits':>4}  {'method':<20}{'patterns':>9}{'us/pattern':>12}{'/ peer':>8}")
    for bits, name, n, us, ratio in rows:
        print(f"{bits:>4}  {name:<20}{n:>9}{us:>12.1f}{ratio:>8.2f}")
    print(
        f"\nwhere they disagree ({len(disagreements)} of {2 * len(pats)}; conflicts = extra "
        "wavefronts per pass, Triton's ttgl.bank_conflicts definition):"
    )
    print(f"{'pattern':<34}{'bits':>5}{'tensor-layouts':>16}{'llverify':>10}  hardware passes")
    for name, bits, peer, mine in disagreements:
        print(
            f"{name:<34}{bits:>5}{peer:>16}{mine.conflicts:>10}  {mine.min_wavefronts} passes "
            f"of {LANES // mine.min_wavefronts} lanes, {mine.wavefronts} wavefronts"
        )
    if disagreements:
        print(
            "tensor-layouts treats the warp as one 32-lane group and counts only the first "
            "32-bit word of each element; a 128-bit access runs in passes of 8 lanes."
        )


if __name__ == "__main__":
    main()
