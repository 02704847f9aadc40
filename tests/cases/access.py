"""Triton's SwizzleTest.cpp NVIDIA bank-conflict cases, layouts from their bases, random
(register, shared) pairs, and the bank-conflict oracle (tests/oracle/bank_oracle.py).

``NVIDIA_CASES`` was generated from Triton 3.9 (``to_linear_layout`` of the encodings named in
``desc`` and ``get_shared_bank_conflicts``, the C++ behind ``ttgl.bank_conflicts``), so tests
that use it run without Triton.  Shared by test_access, test_audit, test_lowering,
benchmarks/bench_access.py and scripts/build_spec_library.py.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from cases.triton import require_triton
from llverify import LinearLayout

NVIDIA_CASES: list[dict[str, Any]] = [
    {
        "bits": 32,
        "desc": "Blocked(size_per_thread=[1], threads_per_warp=[32], warps_per_cta=[4], order=[0], "
        "cga_layout=[]) / SwizzledSharedLayout(vec=1, per_phase=1, max_phase=1, order=[0], "
        "cga_layout=[])",
        "reg": {"lane": [[1], [2], [4], [8], [16]], "reg": [], "warp": [[0], [0]]},
        "shape": [32],
        "shared": [[1], [2], [4], [8], [16]],
        "triton": 0,
    },
    {
        "bits": 16,
        "desc": "Blocked(size_per_thread=[1], threads_per_warp=[32], warps_per_cta=[4], order=[0], "
        "cga_layout=[]) / SwizzledSharedLayout(vec=1, per_phase=1, max_phase=1, order=[0], "
        "cga_layout=[])",
        "reg": {"lane": [[1], [2], [4], [8], [16]], "reg": [], "warp": [[0], [0]]},
        "shape": [32],
        "shared": [[1], [2], [4], [8], [16]],
        "triton": 0,
    },
    {
        "bits": 16,
        "desc": "NVMMADistributed(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 32, 16], "
        "cga_layout=[]) / NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2, "
        "transposed=False, fp4_padded=False, cga_layout=[])",
        "reg": {
            "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
            "reg": [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [64, 0]],
            "warp": [[16, 0], [32, 0]],
        },
        "shape": [128, 128],
        "shared": [
            [0, 1],
            [0, 2],
            [0, 4],
            [0, 8],
            [0, 16],
            [0, 32],
            [1, 8],
            [2, 16],
            [4, 32],
            [8, 0],
            [16, 0],
            [32, 0],
            [64, 0],
            [0, 64],
        ],
        "triton": 0,
    },
    {
        "bits": 16,
        "desc": "DotOperand(operand_index=1, parent=NVMMADistributedLayout(version=[2, 0], "
        "warps_per_cta=[1, 4], instr_shape=[16, 8], cga_layout=[]), k_width=2) / "
        "NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=16, rank=2, transposed=False, "
        "fp4_padded=False, cga_layout=[])",
        "reg": {
            "lane": [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]],
            "reg": [[1, 0], [8, 0], [16, 0], [32, 0]],
            "warp": [[0, 8], [0, 16]],
        },
        "shape": [64, 32],
        "shared": [
            [0, 1],
            [0, 2],
            [0, 4],
            [0, 8],
            [0, 16],
            [1, 0],
            [2, 8],
            [4, 16],
            [8, 0],
            [16, 0],
            [32, 0],
        ],
        "triton": 0,
    },
    {
        "bits": 16,
        "desc": "DotOperand(operand_index=0, parent=NVMMADistributedLayout(version=[2, 0], "
        "warps_per_cta=[1, 4], instr_shape=[16, 8], cga_layout=[]), k_width=2) / "
        "NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=16, rank=2, transposed=True, "
        "fp4_padded=False, cga_layout=[])",
        "reg": {
            "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
            "reg": [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [16, 0]],
            "warp": [[0, 0], [0, 0]],
        },
        "shape": [32, 64],
        "shared": [
            [1, 0],
            [2, 0],
            [4, 0],
            [8, 0],
            [16, 0],
            [0, 1],
            [8, 2],
            [16, 4],
            [0, 8],
            [0, 16],
            [0, 32],
        ],
        "triton": 0,
    },
    {
        "bits": 8,
        "desc": "DotOperand(operand_index=1, parent=NVMMADistributedLayout(version=[2, 0], "
        "warps_per_cta=[1, 4], instr_shape=[16, 8], cga_layout=[]), k_width=1) / "
        "NVMMASharedLayout(swizzle_byte_width=32, element_bitwidth=8, rank=2, transposed=False, "
        "fp4_padded=False, cga_layout=[])",
        "reg": {
            "lane": [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]],
            "reg": [[4, 0]],
            "warp": [[0, 8], [0, 16]],
        },
        "shape": [8, 32],
        "shared": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 16]],
        "triton": 0,
    },
    {
        "bits": 16,
        "desc": "NVMMADistributed(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8], "
        "cga_layout=[]) / NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=16, rank=2, "
        "transposed=True, fp4_padded=False, cga_layout=[])",
        "reg": {
            "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
            "reg": [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]],
            "warp": [[16, 0], [32, 0]],
        },
        "shape": [64, 64],
        "shared": [
            [1, 0],
            [2, 0],
            [4, 0],
            [8, 0],
            [16, 0],
            [0, 1],
            [8, 2],
            [16, 4],
            [0, 8],
            [0, 16],
            [0, 32],
            [32, 0],
        ],
        "triton": 0,
    },
    {
        "bits": 16,
        "desc": "NVMMADistributed(version=[3, 0], warps_per_cta=[2, 2], instr_shape=[16, 32, 16], "
        "cga_layout=[]) / NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=16, rank=2, "
        "transposed=False, fp4_padded=False, cga_layout=[])",
        "reg": {
            "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
            "reg": [[0, 1], [8, 0], [0, 8], [0, 16], [32, 0]],
            "warp": [[16, 0], [0, 0]],
        },
        "shape": [64, 32],
        "shared": [
            [0, 1],
            [0, 2],
            [0, 4],
            [0, 8],
            [0, 16],
            [1, 0],
            [2, 8],
            [4, 16],
            [8, 0],
            [16, 0],
            [32, 0],
        ],
        "triton": 0,
    },
    {
        "bits": 8,
        "desc": "NVMMADistributed(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8], "
        "cga_layout=[]) / NVMMASharedLayout(swizzle_byte_width=32, element_bitwidth=8, rank=2, "
        "transposed=False, fp4_padded=False, cga_layout=[])",
        "reg": {
            "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
            "reg": [[0, 1], [8, 0], [0, 8], [0, 16]],
            "warp": [[16, 0], [0, 0]],
        },
        "shape": [32, 32],
        "shared": [
            [0, 1],
            [0, 2],
            [0, 4],
            [0, 8],
            [0, 16],
            [1, 0],
            [2, 0],
            [4, 16],
            [8, 0],
            [16, 0],
        ],
        "triton": 0,
    },
    {
        "bits": 16,
        "desc": "DotOperand(operand_index=1, parent=NVMMADistributedLayout(version=[2, 0], "
        "warps_per_cta=[2, 4], instr_shape=[16, 8], cga_layout=[]), k_width=2) / "
        "NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=16, rank=2, transposed=False, "
        "fp4_padded=False, cga_layout=[])",
        "reg": {
            "lane": [[2, 0], [0, 0], [0, 1], [0, 2], [0, 4]],
            "reg": [[1, 0], [0, 0], [0, 32]],
            "warp": [[0, 8], [0, 16], [0, 0]],
        },
        "shape": [4, 64],
        "shared": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0]],
        "triton": 1,
    },
    {
        "bits": 32,
        "desc": "NVMMADistributed(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 32, 16], "
        "cga_layout=[]) / NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=32, rank=2, "
        "transposed=False, fp4_padded=False, cga_layout=[])",
        "reg": {
            "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
            "reg": [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]],
            "warp": [[16, 0], [32, 0]],
        },
        "shape": [128, 64],
        "shared": [
            [0, 1],
            [0, 2],
            [0, 4],
            [0, 8],
            [0, 16],
            [1, 4],
            [2, 8],
            [4, 16],
            [8, 0],
            [16, 0],
            [32, 0],
            [64, 0],
            [0, 32],
        ],
        "triton": 1,
    },
]


def dims(rank: int) -> list[str]:
    """Out dim names dim0..dim{rank-1}."""
    return [f"dim{i}" for i in range(rank)]


def reg_layout(r: dict[str, Any], shape: list[int]) -> LinearLayout:
    """A register layout from ``{"reg": .., "lane": .., "warp": ..}`` bases (an empty block)."""
    return LinearLayout.from_bases(
        [("register", r["reg"]), ("lane", r["lane"]), ("warp", r["warp"]), ("block", [])],
        dims(len(shape)),
        shape,
    )


def shared_from_bases(offset: list[list[int]], shape: list[int]) -> LinearLayout:
    """A shared layout from its offset bases (an empty block)."""
    return LinearLayout.from_bases([("offset", offset), ("block", [])], dims(len(shape)), shape)


def random_pair(rng: random.Random, rows_log2: int, cols_log2: int) -> tuple[Any, Any, list[int]]:
    """A random register layout (register/lane/warp bits a permutation of the tensor bits,
    maybe a broadcast register) and a random invertible XOR-swizzled shared layout."""
    shape = [1 << rows_log2, 1 << cols_log2]
    units = [[1 << i, 0] for i in range(rows_log2)] + [[0, 1 << i] for i in range(cols_log2)]
    perm = units[:]
    rng.shuffle(perm)
    n_warp = rng.randint(0, min(2, len(units) - 5))
    n_reg = len(units) - 5 - n_warp
    regs, lanes, warps = perm[:n_reg], perm[n_reg : n_reg + 5], perm[n_reg + 5 :]
    if rng.random() < 0.2:
        regs = regs + [[0, 0]]
    # shared: offsets over the row-major (or column-major) bits, then triangular XORs.
    order = units[rows_log2:] + units[:rows_log2] if rng.random() < 0.7 else units
    offset = [list(b) for b in order]
    for j in range(len(offset)):
        for i in range(j):
            if rng.random() < 0.15:
                offset[j] = [offset[j][0] ^ offset[i][0], offset[j][1] ^ offset[i][1]]
    reg = {"reg": regs, "lane": lanes, "warp": warps}
    return reg, offset, shape


WORKER = Path(__file__).resolve().parents[1] / "oracle" / "bank_oracle.py"


def run_bank_oracle(cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Triton 3.9's bank-conflict count for each case, by id (the worker's protocol); a case
    that aborts Triton is recorded as ``{"error": "abort"}`` and the worker restarted after it."""
    require_triton()
    done: dict[str, dict[str, Any]] = {}
    remaining = cases
    while remaining:
        proc = subprocess.run(
            [sys.executable, str(WORKER)],
            input=json.dumps(remaining),
            capture_output=True,
            text=True,
        )
        for line in proc.stdout.splitlines():
            if line.startswith("@@ "):
                record = json.loads(line[3:])
                done[record["id"]] = record
        remaining = [c for c in remaining if c["id"] not in done]
        if remaining:  # Triton aborted on the first remaining case
            done[remaining[0]["id"]] = {"id": remaining[0]["id"], "error": "abort"}
            remaining = remaining[1:]
    return done


def differential_cases(count: int) -> list[dict[str, Any]]:
    """``count`` seeded oracle cases: random pairs with offset, swizzled or NVMMA shared sides."""
    rng = random.Random(20240917)
    cases = []
    for i in range(count):
        rows, cols = rng.randint(1, 7), rng.randint(1, 7)
        if rows + cols < 5:
            cols = 5 - rows
        reg, offset, shape = random_pair(rng, rows, cols)
        bits = rng.choice([8, 16, 32, 64])
        kind = rng.random()
        if kind < 0.6 or min(shape) < 8:
            shared: dict[str, Any] = {"offset": offset}
        elif kind < 0.8:
            vec = rng.choice([1, 2, 4, 8])
            shared = {"swizzled": [vec, rng.choice([1, 2, 4]), rng.choice([1, 2, 4, 8]), [1, 0]]}
        else:
            swizzle = rng.choice([0, 32, 64, 128])
            ok = swizzle == 0 or shape[1] * bits >= swizzle * 8
            shared = {"nvmma": [swizzle, bits, False]} if ok and bits <= 32 else {"offset": offset}
        cases.append({"id": str(i), "reg": reg, "shared": shared, "shape": shape, "bits": bits})
    return cases
