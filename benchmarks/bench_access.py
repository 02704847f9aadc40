"""Time the bank-conflict analyses on a zoo of (register layout, shared layout) pairs:
the brute-force simulator, the algebraic hardware count, and Triton 3.9's own count
(``get_shared_bank_conflicts``, the C++ behind ``ttgl.bank_conflicts``; needs triton).

Run: ``python benchmarks/bench_access.py`` (``--cases N``: the first N generated cases, of
which those with a shared layout given by offset bases are timed; default 400).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cases.access import (  # noqa: E402
    WORKER,
    differential_cases,
    reg_layout,
    shared_from_bases,
)
from llverify.hardware import BANK_MODELS  # noqa: E402
from llverify.shared_memory.access import (  # noqa: E402  # noqa: E402
    simulate_bank_conflicts,
)
from llverify.shared_memory.register_to_offset import conversion_layout  # noqa: E402
from llverify.shared_memory.wavefronts import (  # noqa: E402
    hardware_conflicts,
    lane_offsets,
    triton_conflicts,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=400, help="generated cases (default 400)")
    args = parser.parse_args()
    if args.cases < 1:
        parser.error(f"--cases must be at least 1, got {args.cases}")
    cases = [c for c in differential_cases(args.cases) if "offset" in c["shared"]]
    pairs = []
    for c in cases:
        shape = c["shape"]
        pairs.append(
            (
                reg_layout(c["reg"], shape),
                shared_from_bases(c["shared"]["offset"], shape),
                shape,
                c["bits"],
            )
        )
    start = time.perf_counter()
    prepared = [(conversion_layout(r, s, shape, bits), bits) for r, s, shape, bits in pairs]
    t_prep = time.perf_counter() - start
    nvidia = BANK_MODELS["nvidia"]
    start = time.perf_counter()
    for (cvt, elems), bits in prepared:
        simulate_bank_conflicts(cvt, elems, bits, exhaustive=True)
    t_sim = time.perf_counter() - start
    start = time.perf_counter()
    for (cvt, elems), bits in prepared:
        words = max(1, -(-elems * bits // 32))
        lanes = lane_offsets(cvt, nvidia.pass_lanes(words))
        hardware_conflicts(lanes, bits)
        triton_conflicts(lanes, bits)
    t_alg = time.perf_counter() - start
    t_triton = float("nan")
    try:
        oracle_cases = [dict(c, id=str(i)) for i, c in enumerate(cases)]
        start = time.perf_counter()
        subprocess.run([sys.executable, str(WORKER)], input=json.dumps(oracle_cases),
                       capture_output=True, text=True, check=True)  # fmt: skip
        t_triton = time.perf_counter() - start
    except (subprocess.CalledProcessError, OSError):
        pass
    n = len(prepared)
    print(f"{n} pairs (register layout, shared layout, 8..64-bit), one warp group each")
    print(f"{'method':<44}{'total s':>10}{'us/pair':>10}")
    rows = [
        ("conversion + largest_vectorisation (shared)", t_prep),
        ("brute-force wavefront simulator (numpy)", t_sim),
        ("algebraic (hardware + Triton count)", t_alg),
        ("Triton 3.9 get_shared_bank_conflicts*", t_triton),
    ]
    for name, t in rows:
        print(f"{name:<44}{t:>10.3f}{t / n * 1e6:>10.0f}")
    print("* one subprocess including Triton import and conversion; nan when triton is missing")


if __name__ == "__main__":
    main()
