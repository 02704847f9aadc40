"""The one-warp bank query from a CuTe TV layout and a smem layout, llverify against
tensor-layouts, in one process.

Each pattern is a CuTe thread-value layout ``(thread, value) -> tile index`` (column-major
over an R x C tile of 16-bit elements) and a smem layout ``tile index -> offset``: thread
``t`` reads ``V`` consecutive elements of one row (``V`` = 1, 2, 4, 8: 16- to 128-bit
accesses), from a row-major tile, a padded one and XOR-swizzled ones (CuTe ``Swizzle<B,M,S>``
on element offsets), and the A operand TV layout of the sm80 ``mma.sync`` m16n8k16 f16 atom
(its first register, 32 bits: tensor-layouts gets that one value pair, since it counts every
value of a TV layout as one access) on the same smem layouts.  Both libraries get the same text,
parsed once.  Per pattern and in the same run this times

* tensor-layouts 0.3.2: ``bank_conflicts(compose(smem, tv), element_bytes=2)``, with the
  composition timed ("compose + query") and precomputed ("query");
* llverify: ``warp_bank_conflicts(lane_addresses(tv, smem, vector=V), 16 * V)``
  (:func:`llverify.cute.lane_addresses` then :func:`llverify.warp_bank_conflicts`).

and prints where the two disagree.  llverify's count is the hardware's (docs/hardware.md: a
64-bit access runs in passes of 16 lanes, a 128-bit one in passes of 8; checked on an H100);
tensor-layouts counts the distinct 32-bit words per bank over all 32 threads and all their
values at once.  llverify's count is also checked against the address simulator
(:func:`llverify.simulate_bank_conflicts` is what ``warp_bank_conflicts`` equals; here the
addresses are recomputed by evaluating the two CuTe layouts element by element).

Figures: the median over interleaved samples of the time per query, then the median over the
patterns; process CPU time by default (``--clock wall`` for wall time).

Run: ``python benchmarks/bench_bank_query_tv.py [--samples N] [--calls N] [--clock process|wall]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from llverify import cute, warp_bank_conflicts

try:
    import tensor_layouts
    from tensor_layouts import ComposedLayout, Layout, Swizzle, compose
    from tensor_layouts.analysis import bank_conflicts as tl_bank_conflicts
except ImportError:  # the peer is optional (pip install '.[bench]')
    tl_bank_conflicts = None

LANES = 32
ELEMENT_BITS = 16
CLOCKS = {"process": time.process_time, "wall": time.perf_counter}


@dataclass
class Pattern:
    """A TV layout and a smem layout as CuTe text, and the vector width each thread reads."""

    name: str
    tv: str
    smem: str
    vector: int
    peer_tv: str = ""  # the TV layout of the one vector read (tensor-layouts reads every value)


def _smem_layouts(rows: int, cols: int) -> list[tuple[str, str]]:
    """(name, CuTe text) of the smem layouts of an R x C row-major tile: plain, padded by 8
    elements (16 bytes) a row, and XOR-swizzled on 16-byte chunks."""
    plain = f"({rows},{cols}):({cols},1)"
    out = [("row-major", plain), ("padded+8", f"({rows},{cols}):({cols + 8},1)")]
    for bits in (1, 2, 3):
        if 8 << bits <= cols * rows:
            out.append((f"Sw<{bits},3,3>", f"Sw<{bits},3,3> o 0 o {plain}"))
    return out


def patterns() -> list[Pattern]:
    """Row-vector reads of 8 tiles (4 vector widths) and the sm80 A operand, on every smem
    layout of their tile."""
    out = []
    for rows, cols in ((32, 16), (16, 32), (8, 64), (4, 128)):
        for vector in (1, 2, 4, 8):
            per_row = cols // vector
            if per_row > LANES or LANES % per_row:
                continue
            # thread t: row t // per_row, columns vector * (t % per_row) + v
            tv = f"(({per_row},{LANES // per_row}),{vector}):(({rows * vector},1),{rows})"
            for name, smem in _smem_layouts(rows, cols):
                out.append(Pattern(f"{rows}x{cols} v{vector} {name}", tv, smem, vector))
    # the m16n8k16 f16 A fragment (CuTe's ALayout over the 16 x 16 tile), 2 elements per read
    a_tv = "((4,8),(2,2,2)):((32,1),(16,8,128))"
    for name, smem in _smem_layouts(16, 16):
        out.append(Pattern(f"mma A 16x16 {name}", a_tv, smem, 2, "((4,8),2):((32,1),16)"))
    return out


def _peer(text: str) -> Any:
    """A CuTe text (``shape:stride`` or ``Sw<B,M,S> o 0 o shape:stride``) as tensor-layouts'
    value."""
    layout = cute.parse(text)
    if isinstance(layout, cute.Layout):
        return Layout(layout.shape, layout.stride)
    inner, sw = layout.inner, layout.outer
    return ComposedLayout(Swizzle(sw.bits, sw.base, sw.shift), Layout(inner.shape, inner.stride))


def _peer_tv(p: Pattern) -> Any:
    """tensor-layouts' TV layout of the one vector read: tensor-layouts counts every value of
    its TV layout as one access, so it gets only the values ``0 .. V - 1`` (the whole TV
    layout of a row-vector pattern; the first register pair of the mma A fragment)."""
    tv = cute.parse(p.peer_tv or p.tv)
    return Layout(tv.shape, tv.stride)


def per_call(fn: Callable[[], Any], calls: int, clock: Callable[[], float]) -> float:
    """Microseconds per call of ``fn`` over ``calls`` calls, timed with ``clock``."""
    start = clock()
    for _ in range(calls):
        fn()
    return (clock() - start) / calls * 1e6


def replayed_addresses(tv: Any, smem: Any, vector: int) -> list[int]:
    """The lanes' vector addresses, recomputed element by element from the two layouts."""
    return [smem._index(tv((lane, 0))) // vector for lane in range(LANES)]


def measure(
    p: Pattern, samples: int, calls: int, clock: Callable[[], float]
) -> tuple[int, Any, dict[str, float]]:
    """tensor-layouts' conflicts, llverify's count (checked against the element-by-element
    addresses) and the median microseconds per query of each method (interleaved samples)."""
    tv, smem = cute.parse(p.tv), cute.parse(p.smem)
    peer_tv, peer_smem = _peer_tv(p), _peer(p.smem)
    composed = compose(peer_smem, peer_tv)
    bits = ELEMENT_BITS * p.vector
    mine = warp_bank_conflicts(cute.lane_addresses(tv, smem, vector=p.vector), bits)
    again = warp_bank_conflicts(replayed_addresses(tv, smem, p.vector), bits)
    assert (mine.conflicts, mine.wavefronts) == (again.conflicts, again.wavefronts), p
    peer = tl_bank_conflicts(composed, element_bytes=ELEMENT_BITS // 8)["max_ways"] - 1
    methods: dict[str, Callable[[], Any]] = {
        "tensor-layouts compose + query": lambda: tl_bank_conflicts(
            compose(peer_smem, peer_tv), element_bytes=ELEMENT_BITS // 8
        ),
        "tensor-layouts query": lambda: tl_bank_conflicts(
            composed, element_bytes=ELEMENT_BITS // 8
        ),
        "llverify TV + smem": lambda: warp_bank_conflicts(
            cute.lane_addresses(tv, smem, vector=p.vector), bits
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in methods}
    for _ in range(samples):
        for name, fn in methods.items():
            times[name].append(per_call(fn, calls, clock))
    return peer, mine, {name: statistics.median(t) for name, t in times.items()}


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
    clock = CLOCKS[args.clock]
    pats = patterns()
    print(
        f"{len(pats)} one-warp TV + smem patterns (16-bit elements, 16- to 128-bit reads); "
        f"tensor-layouts {tensor_layouts.__version__}; median of {args.samples} interleaved "
        f"samples of {args.calls} calls, {args.clock} clock"
    )
    medians: dict[str, list[float]] = {}
    disagreements = []
    for p in pats:
        peer, mine, timed = measure(p, args.samples, args.calls, clock)
        if peer != mine.conflicts:
            disagreements.append((p, peer, mine))
        for name, us in timed.items():
            medians.setdefault(name, []).append(us)
    peer_us = statistics.median(medians["tensor-layouts query"])
    print(f"{'method':<32}{'patterns':>9}{'us/pattern':>12}{'/ peer query':>14}")
    for name, values in medians.items():
        us = statistics.median(values)
        print(f"{name:<32}{len(values):>9}{us:>12.1f}{us / peer_us:>14.2f}")
    print(
        f"\nwhere they disagree ({len(disagreements)} of {len(pats)}; conflicts = extra "
        "wavefronts per pass):"
    )
    print(f"{'pattern':<28}{'bits':>5}{'tensor-layouts':>16}{'llverify':>10}  hardware")
    for p, peer, mine in disagreements:
        print(
            f"{p.name:<28}{ELEMENT_BITS * p.vector:>5}{peer:>16}{mine.conflicts:>10}  "
            f"{mine.min_wavefronts} passes, {mine.wavefronts} wavefronts"
        )


if __name__ == "__main__":
    main()
