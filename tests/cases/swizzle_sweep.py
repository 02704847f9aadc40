"""The swizzle sweep: seeded (src, dst, shape, element bits, target) cases from the
conversion zoo (cases/conversion_zoo.py: blocked, slices, MMA v2/v3, dot operands, MFMA, WMMA),
the pairs Triton lowers through shared memory, 8/16/32/64-bit elements; wave64 pairs on
gfx942 or gfx950.  Shared by test_swizzle_sweep, test_lowering, benchmarks/bench_swizzle.py
and benchmarks/gpu (bank_check.py, convert_check.py)."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any

from cases.conversion_zoo import ZOO
from llverify.conversion import Conversion


@functools.cache
def _shared_memory_pairs() -> tuple[Any, ...]:
    """The zoo pairs that Triton lowers through shared memory (classifying every pair takes
    seconds: once per process)."""
    return tuple(p for p in ZOO if Conversion(p[2], p[3]).kind == "shared memory")


def sweep_cases(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """The first ``count`` shared-memory pairs of the zoo in a ``seed``-shuffled order, each
    with random element bits and a target matching its lanes."""
    rng = random.Random(seed)
    pairs = list(_shared_memory_pairs())
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


#: The sweep's certified optima before issue 26's speed-up, one row per case of
#: ``sweep_cases(1000)``: element bits, target, certificate status, the required store and
#: load vector bits and the certified total wavefronts (the claim "no memory layout with store
#: vectors >= S bits and load vectors >= L bits needs fewer than W wavefronts" in numbers).
REFERENCE = Path(__file__).resolve().parent.parent / "data" / "swizzle" / "sweep_reference.json"


def sweep_reference() -> list[list[Any]]:
    """The rows of :data:`REFERENCE`, in sweep order."""
    return json.loads(REFERENCE.read_text())


def reference_mismatch(case: dict[str, Any], row: list[Any], result: Any) -> str | None:
    """How a synthesis ``result`` of ``case`` differs from its reference ``row`` (None: the
    same certificate status, required widths and certified wavefronts)."""
    bits, target, status, store_bits, load_bits, wavefronts = row
    if (case["bits"], case["target"]) != (bits, target):
        return f"{case['name']}: the sweep is not the reference's ({bits}-bit, {target})"
    certificate = result.certificate
    claim = (
        f"no memory layout with store vectors >= {store_bits} bits and load vectors >= "
        f"{load_bits} bits needs fewer than {wavefronts} wavefronts (store + load)"
    )
    got = (str(certificate.status), result.cost.total_wavefronts, certificate.claim)
    if got != (status, wavefronts, claim):
        return f"{case['name']}: {got}, reference {(status, wavefronts, claim)}"
    return None
