"""Swizzle cases: Triton's SwizzleTest.cpp ld/st pairs (``SWIZZLE_TEST_CASES``) and the
16x32 f32 transpose (``STORE_16x32``, ``LOAD_16x32``).  Shared by test_swizzle_constructive,
test_swizzle_synthesize, benchmarks/gpu/bank_check.py and scripts/build_spec_library.py."""

from __future__ import annotations

from typing import Any

from llverify import LinearLayout
from llverify.encodings import BlockedLayout, DotOperandLayout, NVMMADistributedLayout
from llverify.layout_utils import transpose_linear_layout


def ll(reg: list, lane: list, warp: list, shape: list[int]) -> LinearLayout:
    """A layout as SwizzleTest.cpp writes it (register, lane, warp, an empty block)."""
    return LinearLayout.from_bases(
        [("register", reg), ("lane", lane), ("warp", warp), ("block", [])],
        ["dim0", "dim1"],
        shape,
    )


# ---------------------------------------------------------------------- SwizzleTest.cpp

_F8 = ll(
    [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0]],
    [[0, 16], [0, 32], [0, 64], [4, 0], [8, 0]],
    [[16, 0], [32, 0], [64, 0]],
    [128, 128],
)
_SRC_64X128 = ll(
    [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]],
    [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0], [2, 0]],
    [[4, 0], [8, 0]],
    [64, 128],
)

# name: (src, dst, shape, bits, keyword arguments, (store_vec, load_vec)).  The widths are
# those the construction gives: 2^(common registers) capped at 128 bits; below 32 bits a
# vector filled with the other side's warps (f16 transpose: src register [2, 0] + dst warp
# [2, 0]) widens only that side's accesses.
SWIZZLE_TEST_CASES: dict[str, tuple[Any, Any, list[int], int, dict[str, Any], tuple[int, int]]] = {
    "Test128x128Float8Transpose": (
        _F8,
        transpose_linear_layout(_F8, [1, 0]),
        [128, 128],
        8,
        {},
        (16, 16),
    ),
    "Test16x16Bf16BlockedMma": (
        ll([[0, 1], [0, 2], [0, 4]], [[0, 8], [1, 0], [2, 0], [4, 0], [8, 0]], [], [16, 16]),
        ll([[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [], [16, 16]),
        [16, 16],
        16,
        {},
        (2, 2),
    ),
    "F64MmaV2BSharedLayout": (
        BlockedLayout([1, 1], [2, 16], [4, 1], [1, 0]),
        DotOperandLayout(1, NVMMADistributedLayout([2, 0], [4, 1], [8, 8]), 1),
        [4, 16],
        64,
        {},
        (1, 1),
    ),
    "Test16x256U4Mma": (
        ll(
            [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0], [8, 0]],
            [[0, 32], [0, 64], [0, 128], [1, 0], [2, 0]],
            [],
            [16, 256],
        ),
        ll(
            [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32], [0, 64], [0, 128]],
            [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]],
            [],
            [16, 256],
        ),
        [16, 256],
        4,
        {},
        (16, 16),
    ),
    "Test32x16F32Transpose": (
        ll([[4, 0], [8, 0], [16, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], [[2, 0]], [32, 16]),
        ll([[0, 2], [0, 4], [0, 8]], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [[0, 1]], [32, 16]),
        [32, 16],
        32,
        {},
        (1, 1),
    ),
    "Test128x128F16Transpose": (
        ll(
            [[1, 0], [2, 0], [4, 0], [0, 32], [0, 64]],
            [[8, 0], [16, 0], [32, 0], [64, 0], [0, 1]],
            [[0, 2], [0, 4], [0, 8], [0, 16]],
            [128, 128],
        ),
        ll(
            [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]],
            [[0, 8], [0, 16], [0, 32], [0, 64], [1, 0]],
            [[2, 0], [4, 0], [8, 0], [16, 0]],
            [128, 128],
        ),
        [128, 128],
        16,
        {},
        (2, 1),
    ),
    # 64 lanes and 32 banks, dst read with ds_read_b128 lane tile {0, 1, 4}: gfx942.
    "Test64x128F16BlockedLinear32Bank": (
        _SRC_64X128,
        ll(
            [[0, 1], [0, 2], [0, 8], [0, 16], [0, 32], [0, 64], [32, 0]],
            [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            [[0, 0], [0, 0]],
            [64, 128],
        ),
        [64, 128],
        16,
        {"target": "gfx942", "dst_tile": [0, 1, 4]},
        (8, 8),
    ),
    # 64 lanes and 64 banks, dst lane tile {0, 1, 3, 4}: gfx950.
    "Test64x128F16BlockedMfma64Bank": (
        _SRC_64X128,
        ll(
            [[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [0, 64], [32, 0]],
            [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 8]],
            [[0, 0], [0, 0]],
            [64, 128],
        ),
        [64, 128],
        16,
        {"target": "gfx950", "dst_tile": [0, 1, 3, 4]},
        (8, 8),
    ),
}


# ---------------------------------------------------------------------- 16x32 f32 transpose

SHAPE_16x32 = [16, 32]
# one warp; thread t owns column t (stored row by row), read as column pairs
STORE_16x32 = LinearLayout.from_bases(
    [("register", [[1, 0], [2, 0], [4, 0], [8, 0]]),
     ("lane", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]), ("warp", [])],
    ["dim0", "dim1"],
)  # fmt: skip
LOAD_16x32 = LinearLayout.from_bases(
    [("register", [[0, 1], [0, 4], [0, 8], [0, 16]]),
     ("lane", [[1, 0], [2, 0], [4, 0], [8, 0], [0, 2]]), ("warp", [])],
    ["dim0", "dim1"],
)  # fmt: skip
