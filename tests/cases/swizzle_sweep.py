"""The swizzle sweep: seeded (src, dst, shape, element bits, target) cases from the
conversion zoo (cases/conversion_zoo.py: blocked, slices, MMA v2/v3, dot operands, MFMA, WMMA),
the pairs Triton lowers through shared memory, 8/16/32/64-bit elements; wave64 pairs on
gfx942 or gfx950.  Shared by test_swizzle_sweep, test_lowering, benchmarks/bench_swizzle.py
and benchmarks/gpu (bank_check.py, convert_check.py)."""

from __future__ import annotations

import random
from typing import Any

from cases.conversion_zoo import ZOO
from llverify.conversion import Conversion


def sweep_cases(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """The first ``count`` shared-memory pairs of the zoo in a ``seed``-shuffled order, each
    with random element bits and a target matching its lanes."""
    rng = random.Random(seed)
    pairs = [p for p in ZOO if Conversion(p[2], p[3]).kind == "shared memory"]
    rng.shuffle(pairs)
    cases = []
    for group, name, src, dst in pairs[:count]:
        lanes = src.get_in_dim_size("lane")
        cases.append(
            {
                "name": f"{group}:{name}",
                "src": src,
                "dst": dst,
                "shape": [size for _, size in src.out_dims],
                "bits": rng.choice([8, 16, 32, 64]),
                "target": "nvidia" if lanes == 32 else rng.choice(["gfx942", "gfx950"]),
            }
        )
    return cases
