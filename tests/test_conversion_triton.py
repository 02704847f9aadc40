"""``conversion(a, b, shape).kind`` against Triton 3.9's own ``ConvertLayoutOpToLLVM``.

Oracle: Triton 3.9 (``tests/oracle/convert_oracle.py``, run in a subprocess): a Gluon kernel
load -> ``ttgl.convert_layout`` -> store is compiled for ``GPUTarget("cuda", 90, 32)`` on the
CPU, stopped right after ``allocate_shared_memory_nv`` + ``to_llvmir``, and the lowering is
read off the module: scratch shared memory -> "shared memory", ``nvvm.shfl.sync`` -> "warp
shuffle", ops on the ``convert_layout`` line -> "register permutation", else "no-op".

Generated pairs (seeded): blocked <-> blocked, blocked <-> mma (v2 and v3), mma <-> dot
operand, dot <-> dot, and 1-D slices of blocked/mma layouts.  Every pair must agree.

Skipped when Triton is not importable; set ``LLVERIFY_REQUIRE_TRITON=1`` to make that a
failure (CI).
"""

from __future__ import annotations

import functools
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cases.triton import triton_missing
from llverify.conversion import conversion
from llverify.encodings import (
    BlockedLayout,
    DotOperandLayout,
    NVMMADistributedLayout,
    SliceLayout,
)

pytestmark = pytest.mark.triton

WORKER = Path(__file__).parent / "oracle" / "convert_oracle.py"
SEED = 20250917
N_CASES = int(os.environ.get("LLVERIFY_CVT_CASES", "500"))

Spec = dict[str, Any]


@functools.lru_cache(maxsize=1)
def _triton_problem() -> str | None:
    proc = subprocess.run(
        [sys.executable, "-c", "import triton, triton.experimental.gluon"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode != 0:
        return f"triton is not importable in {sys.executable}: {proc.stderr.strip()[-300:]}"
    return None


def _require_triton() -> None:
    problem = _triton_problem()
    if problem is not None:
        triton_missing(problem)


def run_oracle(cases: list[dict[str, Any]], tmp: Path) -> dict[str, dict[str, Any]]:
    """Run the worker on ``cases``; a case that aborts Triton is recorded as ``aborted``
    and the worker restarted after it."""
    results: dict[str, dict[str, Any]] = {}
    env = {**os.environ, "TRITON_CACHE_DIR": str(tmp / "triton-cache")}
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    todo = list(cases)
    while todo:
        proc = subprocess.run(
            [sys.executable, str(WORKER)],
            input=json.dumps(todo),
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        done = False
        for line in proc.stdout.splitlines():
            if line.startswith("@@DONE"):
                done = True
            elif line.startswith("@@ "):
                row = json.loads(line[3:])
                results[row["id"]] = row
        todo = [c for c in todo if c["id"] not in results]
        if done or not todo:
            break
        results[todo[0]["id"]] = {"id": todo[0]["id"], "aborted": proc.stderr[-400:]}
        todo = todo[1:]
    return results


# ---------------------------------------------------------------------- generators


def _split(rng: random.Random, total_log2: int, rank: int) -> list[int]:
    parts = [0] * rank
    for _ in range(total_log2):
        parts[rng.randrange(rank)] += 1
    return [1 << p for p in parts]


def _blocked(rng: random.Random, rank: int, warps: int) -> Spec:
    return {
        "t": "blocked",
        "spt": [1 << rng.randrange(3) for _ in range(rank)],
        "tpw": _split(rng, 5, rank),
        "wpc": _split(rng, warps.bit_length() - 1, rank),
        "order": rng.sample(range(rank), rank),
    }


def _mma(rng: random.Random, warps: int) -> Spec:
    if warps >= 4 and rng.random() < 0.4:
        rest = _split(rng, warps.bit_length() - 3, 2)
        return {
            "t": "mma",
            "version": [3, 0],
            "wpc": [4 * rest[0], rest[1]],
            "instr": [16, rng.choice([8, 16, 32, 64]), 16],
        }
    return {
        "t": "mma",
        "version": [2, 0],
        "wpc": _split(rng, warps.bit_length() - 1, 2),
        "instr": [16, 8],
    }


def _dot(rng: random.Random, parent: Spec) -> Spec:
    idx = 0 if parent["version"][0] == 3 else rng.randrange(2)
    return {"t": "dot", "idx": idx, "parent": parent, "kw": 2}


def _pair(rng: random.Random, family: str) -> dict[str, Any]:
    warps = rng.choice([1, 2, 4, 8]) if family != "mma-dot" else rng.choice([1, 2, 4, 8])
    shape = [1 << rng.randint(4, 7), 1 << rng.randint(4, 7)]
    if family == "blocked-blocked":
        a, b = _blocked(rng, 2, warps), _blocked(rng, 2, warps)
    elif family == "blocked-mma":
        a, b = _blocked(rng, 2, warps), _mma(rng, warps)
        if rng.random() < 0.5:
            a, b = b, a
    elif family == "mma-dot":
        m = _mma(rng, warps)
        other = m if rng.random() < 0.6 else _mma(rng, warps)
        a, b = m, _dot(rng, other)
        if rng.random() < 0.3:
            a, b = b, a
    elif family == "dot-dot":
        m = _mma(rng, warps)
        a, b = _dot(rng, m), _dot(rng, _mma(rng, warps) if rng.random() < 0.5 else m)
    else:  # slices: 1-D
        shape = [1 << rng.randint(4, 9)]

        def one() -> Spec:
            roll = rng.random()
            if roll < 0.3:
                return _blocked(rng, 1, warps)
            parent = _blocked(rng, 2, warps) if roll < 0.7 else _mma(rng, warps)
            return {"t": "slice", "dim": rng.randrange(2), "parent": parent}

        a, b = one(), one()
    return {"a": a, "b": b, "shape": shape, "num_warps": warps, "family": family}


FAMILIES = ("blocked-blocked", "blocked-mma", "mma-dot", "dot-dot", "slice")


def generate(n: int, seed: int = SEED) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        case = _pair(rng, FAMILIES[i % len(FAMILIES)])
        case["id"] = str(i)
        cases.append(case)
    return cases


def to_encoding(spec: Spec) -> Any:
    t = spec["t"]
    if t == "blocked":
        return BlockedLayout(spec["spt"], spec["tpw"], spec["wpc"], spec["order"])
    if t == "mma":
        return NVMMADistributedLayout(spec["version"], spec["wpc"], spec["instr"])
    if t == "dot":
        return DotOperandLayout(spec["idx"], to_encoding(spec["parent"]), spec["kw"])
    return SliceLayout(spec["dim"], to_encoding(spec["parent"]))


# ---------------------------------------------------------------------- the test


def _known_divergence(case: dict[str, Any], conv: Any, ours: str, theirs: str) -> bool:
    """KNOWN DIVERGENCE (open; narrowed to the exact pattern verified with the oracle on the
    500 seeded pairs, ids 402 and 462).

    (Fixed: 9 pairs with a source broadcast over warps that Triton 3.9 lowers with warp
    shuffles, the warp id folded into the source lane, are now classified by
    :func:`llverify.conversion.cvt_shuffles_across_folded_warps`.)

    (2) llverify "register permutation", Triton "no-op": mma v3 -> dot operand 0 of the same
    parent with instr N > tensor N (source registers broadcast).  Triton replaces the op by
    its operand (nothing on the convert_layout line, no shared memory, no shuffle).  Cause:
    Triton's NVIDIA lowering short-circuits MMA v3 -> dot operand 0 of the same parent
    (``matchMmaV3AndDotOperandLayout``; 16-bit elements: ``replaceOp(op, src)``) before the
    linear-layout classification.  When instr N <= tensor N both layouts are the same linear
    layout, so both say no-op; only when instr N > tensor N does the accumulator have a
    broadcast register bit, the linear layouts differ, and the shortcut hides a real register
    permutation (for shape [128, 16], destination register 8 is source register 16)."""
    if ours == "register permutation" and theirs == "no-op":
        a, b = case["a"], case["b"]
        return (
            a["t"] == "mma"
            and a["version"][0] == 3
            and b["t"] == "dot"
            and b["idx"] == 0
            and b["parent"] == a
            and a["instr"][1] > case["shape"][1]
        )
    return False


def test_conversion_kind_matches_triton(tmp_path: Path) -> None:
    _require_triton()
    cases = generate(N_CASES)
    start = time.perf_counter()
    oracle = run_oracle(cases, tmp_path)
    oracle_s = time.perf_counter() - start
    compared = 0
    skipped: list[str] = []
    mismatches: list[str] = []
    by_kind: dict[str, int] = {}
    known: list[str] = []
    for case in cases:
        row = oracle[case["id"]]
        if "kind" not in row:
            skipped.append(f"{case['id']}: {row.get('error') or row.get('aborted')}"[:300])
            continue
        ours = conversion(to_encoding(case["a"]), to_encoding(case["b"]), case["shape"]).kind
        compared += 1
        by_kind[row["kind"]] = by_kind.get(row["kind"], 0) + 1
        if ours != row["kind"]:
            conv = conversion(to_encoding(case["a"]), to_encoding(case["b"]), case["shape"])
            if _known_divergence(case, conv, ours, row["kind"]):
                known.append(case["id"])
                continue
            mismatches.append(
                f"{case['family']} shape={case['shape']} warps={case['num_warps']} "
                f"a={case['a']} b={case['b']}: llverify {ours!r}, triton {row['kind']!r}"
            )
    total_s = time.perf_counter() - start
    print(
        f"\nconvert_layout kinds vs Triton 3.9: {compared} compared, {len(mismatches)} "
        f"mismatches, {len(known)} known divergences, {len(skipped)} rejected by Triton; "
        f"triton kinds {by_kind}; "
        f"oracle {oracle_s:.1f}s, total {total_s:.1f}s"
    )
    # Triton rejecting a generated layout is fine (verifier), but most must compile.
    assert compared >= 0.8 * len(cases), skipped[:5]
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:10])
