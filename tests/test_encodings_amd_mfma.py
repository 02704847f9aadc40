"""Tests of the AMD MFMA encodings (``llverify.encodings.amd_mfma``).

(a) Triton's ``unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp`` MFMA and MFMA
dot-operand cases, ported with their expected bases; (b) a differential test against
Triton 3.9 (``tests/cases/triton.py``) on seeded valid parameter sets, with the
encoding given as TTGIR text and as a Gluon object; (c) the references of
``specs/amd_mfma.py`` proved equal to the converter; (d) negative controls shaped like
historical bugs, each refuted with a register/lane/warp counterexample; (e) one error per
verifier rule and malformed TTGIR.
"""

from __future__ import annotations

import random

import pytest

import llverify.encodings.amd_mfma  # noqa: F401 - registers the TTGIR builder and Gluon converter
from llverify import LinearLayout, prove_equal, prove_family_equal
from llverify.encodings import (
    DotOperandLayout,
    EncodingError,
    TTGIRError,
    from_gluon,
    parse_encoding,
    to_linear_layout,
)
from llverify.encodings.amd_mfma import MFMA_INSTR_SHAPES, AMDMFMALayout
from llverify.errors import LayoutTypeError
from llverify.specs import amd_mfma as spec

SEED = 20250917
#: Generated parameter sets per family in the differential test.
DIFF_CASES = 320


def _mfma(version, warps, instr, transposed, tiles=None, bitwidth=None):
    """Argument order of the C++ test helper ``mfma(version, warps, instrShape, isTransposed,
    tilesPerWarp, elementBitWidth)`` (0 / empty mean the defaults)."""
    return AMDMFMALayout(version, instr, transposed, warps, bitwidth, tiles or None)


def _dot(parent, operand_index, k_width):
    return DotOperandLayout(operand_index, parent, k_width)


def _bases(layout: LinearLayout) -> dict:
    return {name: [list(b) for b in bases] for name, bases in layout.bases}


# ---------------------------------------------------------------------- (a) ported cases

# From LinearLayoutConversionsTest.cpp: MFMA32_2x4Warps_tpw_2_2 .. MFMA16_dot_op_rhs_kwidth4
# (every EXPECT_EQ with explicit bases).  The *_trans_fp4_mn_packed tests exercise
# chooseDotDsReadTrLayout (an LDS-transpose load layout, not an encoding) and
# NpotMfmaUsesModularIdentity needs non-power-of-2 shapes (absent from Triton 3.9).
PORTED_CASES = [
    (
        "MFMA32_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [32, 32, 8], False, [2, 2]),
        [32, 32],
        {
            "register": [[1, 0], [2, 0], [8, 0], [16, 0], [0, 0], [0, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [32, 32, 8], False, [2, 2]),
        [128, 128],
        {
            "register": [[1, 0], [2, 0], [8, 0], [16, 0], [0, 32], [32, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
            "warp": [[0, 64], [0, 0], [64, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [32, 32, 8], False, [2, 2]),
        [256, 256],
        {
            "register": [[1, 0], [2, 0], [8, 0], [16, 0], [0, 32], [32, 0], [128, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
            "warp": [[0, 64], [0, 128], [64, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [32, 32, 8], True, [2, 2]),
        [32, 32],
        {
            "register": [[0, 1], [0, 2], [0, 8], [0, 16], [0, 0], [0, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [32, 32, 8], True, [2, 2]),
        [128, 128],
        {
            "register": [[0, 1], [0, 2], [0, 8], [0, 16], [0, 32], [32, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            "warp": [[0, 64], [0, 0], [64, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [32, 32, 8], True, [2, 2]),
        [256, 256],
        {
            "register": [[0, 1], [0, 2], [0, 8], [0, 16], [0, 32], [32, 0], [128, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            "warp": [[0, 64], [0, 128], [64, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [16, 16, 16], False, [2, 2]),
        [32, 32],
        {
            "register": [[1, 0], [2, 0], [0, 16], [16, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [16, 16, 16], False, [2, 2]),
        [128, 128],
        {
            "register": [[1, 0], [2, 0], [0, 16], [16, 0], [64, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
            "warp": [[0, 32], [0, 64], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [16, 16, 16], False, [2, 2]),
        [256, 256],
        {
            "register": [[1, 0], [2, 0], [0, 16], [0, 128], [16, 0], [64, 0], [128, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
            "warp": [[0, 32], [0, 64], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [16, 16, 16], True, [2, 2]),
        [32, 32],
        {
            "register": [[0, 1], [0, 2], [0, 16], [16, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [16, 16, 16], True, [2, 2]),
        [128, 128],
        {
            "register": [[0, 1], [0, 2], [0, 16], [16, 0], [64, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]],
            "warp": [[0, 32], [0, 64], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_2x4Warps_tpw_2_2",
        _mfma(3, [2, 4], [16, 16, 16], True, [2, 2]),
        [256, 256],
        {
            "register": [[0, 1], [0, 2], [0, 16], [0, 128], [16, 0], [64, 0], [128, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]],
            "warp": [[0, 32], [0, 64], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4Warps",
        _mfma(3, [2, 4], [32, 32, 8], False),
        [32, 32],
        {
            "register": [[1, 0], [2, 0], [8, 0], [16, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4Warps",
        _mfma(3, [2, 4], [32, 32, 8], False),
        [64, 32],
        {
            "register": [[1, 0], [2, 0], [8, 0], [16, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
            "warp": [[0, 0], [0, 0], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4Warps",
        _mfma(3, [2, 4], [32, 32, 8], False),
        [128, 128],
        {
            "register": [[1, 0], [2, 0], [8, 0], [16, 0], [64, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
            "warp": [[0, 32], [0, 64], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4Warps",
        _mfma(3, [2, 4], [32, 32, 8], True),
        [32, 32],
        {
            "register": [[0, 1], [0, 2], [0, 8], [0, 16]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4Warps",
        _mfma(3, [2, 4], [32, 32, 8], True),
        [64, 32],
        {
            "register": [[0, 1], [0, 2], [0, 8], [0, 16]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            "warp": [[0, 0], [0, 0], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4Warps",
        _mfma(3, [2, 4], [32, 32, 8], True),
        [128, 128],
        {
            "register": [[0, 1], [0, 2], [0, 8], [0, 16], [64, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            "warp": [[0, 32], [0, 64], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_2x4Warps",
        _mfma(3, [2, 4], [16, 16, 16], False),
        [16, 16],
        {
            "register": [[1, 0], [2, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_2x4Warps_F64",
        _mfma(3, [2, 4], [16, 16, 4], False, None, 64),
        [16, 16],
        {
            "register": [[4, 0], [8, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4x1Warps",
        _mfma(3, [2, 4, 1], [32, 32, 8], False),
        [1, 128, 128],
        {
            "register": [[0, 1, 0], [0, 2, 0], [0, 8, 0], [0, 16, 0], [0, 0, 32], [0, 0, 64]],
            "lane": [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 0, 16], [0, 4, 0]],
            "warp": [[0, 32, 0], [0, 64, 0], [0, 0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4x1Warps",
        _mfma(3, [2, 4, 1], [32, 32, 8], False),
        [2, 32, 32],
        {
            "register": [[0, 1, 0], [0, 2, 0], [0, 8, 0], [0, 16, 0]],
            "lane": [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 0, 16], [0, 4, 0]],
            "warp": [[0, 0, 0], [0, 0, 0], [1, 0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4x1Warps",
        _mfma(3, [2, 4, 1], [32, 32, 8], False),
        [2, 64, 32],
        {
            "register": [[0, 1, 0], [0, 2, 0], [0, 8, 0], [0, 16, 0]],
            "lane": [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 0, 16], [0, 4, 0]],
            "warp": [[0, 32, 0], [0, 0, 0], [1, 0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4x1Warps",
        _mfma(3, [2, 4, 1], [32, 32, 8], True),
        [1, 128, 128],
        {
            "register": [[0, 0, 1], [0, 0, 2], [0, 0, 8], [0, 0, 16], [0, 0, 32], [0, 0, 64]],
            "lane": [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 16, 0], [0, 0, 4]],
            "warp": [[0, 32, 0], [0, 64, 0], [0, 0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4x1Warps",
        _mfma(3, [2, 4, 1], [32, 32, 8], True),
        [2, 32, 32],
        {
            "register": [[0, 0, 1], [0, 0, 2], [0, 0, 8], [0, 0, 16]],
            "lane": [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 16, 0], [0, 0, 4]],
            "warp": [[0, 0, 0], [0, 0, 0], [1, 0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_2x4x1Warps",
        _mfma(3, [2, 4, 1], [32, 32, 8], True),
        [2, 64, 32],
        {
            "register": [[0, 0, 1], [0, 0, 2], [0, 0, 8], [0, 0, 16]],
            "lane": [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 16, 0], [0, 0, 4]],
            "warp": [[0, 32, 0], [0, 0, 0], [1, 0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 8], [32, 32, 8], False), 0, 8),
        [128, 128],
        {
            "register": [[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [0, 64], [32, 0], [64, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 8]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 8], [32, 32, 8], False), 0, 8),
        [128, 256],
        {
            "register": [
                [0, 1],
                [0, 2],
                [0, 4],
                [0, 16],
                [0, 32],
                [0, 64],
                [0, 128],
                [32, 0],
                [64, 0],
            ],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 8]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 8], [32, 32, 8], False), 0, 8),
        [32, 64],
        {
            "register": [[0, 1], [0, 2], [0, 4], [0, 16], [0, 32]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 8]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 8], [32, 32, 8], False), 0, 8),
        [256, 256],
        {
            "register": [
                [0, 1],
                [0, 2],
                [0, 4],
                [0, 16],
                [0, 32],
                [0, 64],
                [0, 128],
                [32, 0],
                [64, 0],
                [128, 0],
            ],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 8]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 8], [32, 32, 8], False), 0, 8),
        [16, 16],
        {
            "register": [[0, 1], [0, 2], [0, 4]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [0, 8]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 8], [32, 32, 8], False), 1, 8),
        [128, 128],
        {
            "register": [[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [64, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [8, 0]],
            "warp": [[0, 32], [0, 64], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 8], [32, 32, 8], False), 1, 8),
        [128, 256],
        {
            "register": [[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [64, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [8, 0]],
            "warp": [[0, 32], [0, 64], [0, 128]],
            "block": [],
        },
    ),
    (
        "MFMA32_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 8], [32, 32, 8], False), 1, 8),
        [32, 64],
        {
            "register": [[1, 0], [2, 0], [4, 0], [16, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [8, 0]],
            "warp": [[0, 32], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 8], [32, 32, 8], False), 1, 8),
        [256, 256],
        {
            "register": [[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [64, 0], [128, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [8, 0]],
            "warp": [[0, 32], [0, 64], [0, 128]],
            "block": [],
        },
    ),
    (
        "MFMA32_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 8], [32, 32, 8], False), 1, 8),
        [16, 16],
        {
            "register": [[1, 0], [2, 0], [4, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0], [8, 0]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 4], [32, 32, 8], False), 1, 8),
        [256, 256],
        {
            "register": [[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [64, 0], [128, 0], [0, 128]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [8, 0]],
            "warp": [[0, 32], [0, 64]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 4], [16, 16, 16], False), 0, 8),
        [128, 128],
        {
            "register": [[0, 1], [0, 2], [0, 4], [0, 32], [0, 64], [16, 0], [32, 0], [64, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]],
            "warp": [[0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 4], [16, 16, 16], False), 0, 8),
        [1, 128],
        {
            "register": [[0, 1], [0, 2], [0, 4], [0, 32], [0, 64]],
            "lane": [[0, 0], [0, 0], [0, 0], [0, 0], [0, 8], [0, 16]],
            "warp": [[0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 4], [16, 16, 16], False), 0, 8),
        [128, 1],
        {
            "register": [[0, 0], [0, 0], [0, 0], [16, 0], [32, 0], [64, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [0, 0]],
            "warp": [[0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 4], [16, 16, 16], False), 0, 8),
        [256, 256],
        {
            "register": [
                [0, 1],
                [0, 2],
                [0, 4],
                [0, 32],
                [0, 64],
                [0, 128],
                [16, 0],
                [32, 0],
                [64, 0],
                [128, 0],
            ],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]],
            "warp": [[0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 4], [16, 16, 16], False), 0, 8),
        [16, 16],
        {
            "register": [[0, 1], [0, 2], [0, 4]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 0]],
            "warp": [[0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 8], [16, 16, 16], False), 0, 8),
        [256, 256],
        {
            "register": [
                [0, 1],
                [0, 2],
                [0, 4],
                [0, 32],
                [0, 64],
                [0, 128],
                [16, 0],
                [32, 0],
                [64, 0],
                [128, 0],
            ],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_lhs_kwidth8",
        _dot(_mfma(3, [1, 1, 8], [16, 16, 16], False), 0, 8),
        [1, 256, 256],
        {
            "register": [
                [0, 0, 1],
                [0, 0, 2],
                [0, 0, 4],
                [0, 0, 32],
                [0, 0, 64],
                [0, 0, 128],
                [0, 16, 0],
                [0, 32, 0],
                [0, 64, 0],
                [0, 128, 0],
            ],
            "lane": [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0], [0, 0, 8], [0, 0, 16]],
            "warp": [[0, 0, 0], [0, 0, 0], [0, 0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 4], [16, 16, 16], False), 1, 8),
        [128, 128],
        {
            "register": [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [0, 64]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [16, 0]],
            "warp": [[0, 16], [0, 32]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 4], [16, 16, 16], False), 1, 8),
        [1, 128],
        {
            "register": [[0, 0], [0, 0], [0, 0], [0, 64]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0], [0, 0]],
            "warp": [[0, 16], [0, 32]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 4], [16, 16, 16], False), 1, 8),
        [128, 1],
        {
            "register": [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0]],
            "lane": [[0, 0], [0, 0], [0, 0], [0, 0], [8, 0], [16, 0]],
            "warp": [[0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 4], [16, 16, 16], False), 1, 8),
        [256, 256],
        {
            "register": [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [128, 0], [0, 64], [0, 128]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [16, 0]],
            "warp": [[0, 16], [0, 32]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 4], [16, 16, 16], False), 1, 8),
        [16, 16],
        {
            "register": [[1, 0], [2, 0], [4, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [0, 0]],
            "warp": [[0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 8], [16, 16, 16], False), 1, 8),
        [256, 256],
        {
            "register": [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [128, 0], [0, 128]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [16, 0]],
            "warp": [[0, 16], [0, 32], [0, 64]],
            "block": [],
        },
    ),
    (
        "MFMA16_warp1onK_rhs_kwidth8",
        _dot(_mfma(3, [1, 1, 8], [16, 16, 16], False), 1, 8),
        [1, 256, 256],
        {
            "register": [
                [0, 1, 0],
                [0, 2, 0],
                [0, 4, 0],
                [0, 32, 0],
                [0, 64, 0],
                [0, 128, 0],
                [0, 0, 128],
            ],
            "lane": [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 8, 0], [0, 16, 0]],
            "warp": [[0, 0, 16], [0, 0, 32], [0, 0, 64]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 0, 4),
        [64, 32],
        {
            "register": [[0, 1], [0, 2], [0, 8], [0, 16], [32, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 0, 4),
        [128, 128],
        {
            "register": [[0, 1], [0, 2], [0, 8], [0, 16], [0, 32], [0, 64], [32, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            "warp": [[0, 0], [0, 0], [64, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 0, 4),
        [256, 256],
        {
            "register": [
                [0, 1],
                [0, 2],
                [0, 8],
                [0, 16],
                [0, 32],
                [0, 64],
                [0, 128],
                [32, 0],
                [128, 0],
            ],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            "warp": [[0, 0], [0, 0], [64, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 0, 4),
        [64, 32],
        {
            "register": [[0, 1], [0, 2], [0, 16], [16, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]],
            "warp": [[0, 0], [0, 0], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 0, 4),
        [128, 128],
        {
            "register": [[0, 1], [0, 2], [0, 16], [0, 32], [0, 64], [16, 0], [64, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]],
            "warp": [[0, 0], [0, 0], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 0, 4),
        [256, 256],
        {
            "register": [
                [0, 1],
                [0, 2],
                [0, 16],
                [0, 32],
                [0, 64],
                [0, 128],
                [16, 0],
                [64, 0],
                [128, 0],
            ],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]],
            "warp": [[0, 0], [0, 0], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 0, 4),
        [128, 128],
        {
            "register": [[0, 1], [0, 2], [0, 8], [0, 16], [0, 32], [0, 64], [64, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            "warp": [[0, 0], [0, 0], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 0, 4),
        [64, 32],
        {
            "register": [[0, 1], [0, 2], [0, 8], [0, 16]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]],
            "warp": [[0, 0], [0, 0], [32, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 0, 4),
        [16, 16],
        {
            "register": [[0, 1], [0, 2], [0, 8]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [0, 4]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 0, 4),
        [128, 128],
        {
            "register": [[0, 1], [0, 2], [0, 16], [0, 32], [0, 64], [32, 0], [64, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]],
            "warp": [[0, 0], [0, 0], [16, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 0, 4),
        [64, 32],
        {
            "register": [[0, 1], [0, 2], [0, 16], [32, 0]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]],
            "warp": [[0, 0], [0, 0], [16, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 0, 4),
        [16, 16],
        {
            "register": [[0, 1], [0, 2]],
            "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 1, 4),
        [32, 64],
        {
            "register": [[1, 0], [2, 0], [8, 0], [16, 0], [0, 32]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 1, 4),
        [128, 128],
        {
            "register": [[1, 0], [2, 0], [8, 0], [16, 0], [32, 0], [64, 0], [0, 32]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
            "warp": [[0, 64], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 1, 4),
        [256, 256],
        {
            "register": [[1, 0], [2, 0], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0], [0, 32]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
            "warp": [[0, 64], [0, 128], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 1, 4),
        [32, 64],
        {
            "register": [[1, 0], [2, 0], [16, 0], [0, 16]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
            "warp": [[0, 32], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 1, 4),
        [128, 128],
        {
            "register": [[1, 0], [2, 0], [16, 0], [32, 0], [64, 0], [0, 16]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
            "warp": [[0, 32], [0, 64], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 1, 4),
        [256, 256],
        {
            "register": [[1, 0], [2, 0], [16, 0], [32, 0], [64, 0], [128, 0], [0, 16], [0, 128]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
            "warp": [[0, 32], [0, 64], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 1, 4),
        [128, 128],
        {
            "register": [[1, 0], [2, 0], [8, 0], [16, 0], [32, 0], [64, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
            "warp": [[0, 32], [0, 64], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 1, 4),
        [32, 64],
        {
            "register": [[1, 0], [2, 0], [8, 0], [16, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]],
            "warp": [[0, 32], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA32_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 1, 4),
        [16, 16],
        {
            "register": [[1, 0], [2, 0], [8, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0], [4, 0]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 1, 4),
        [128, 128],
        {
            "register": [[1, 0], [2, 0], [16, 0], [32, 0], [64, 0], [0, 64]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
            "warp": [[0, 16], [0, 32], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 1, 4),
        [32, 64],
        {
            "register": [[1, 0], [2, 0], [16, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
            "warp": [[0, 16], [0, 32], [0, 0]],
            "block": [],
        },
    ),
    (
        "MFMA16_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 1, 4),
        [16, 16],
        {
            "register": [[1, 0], [2, 0]],
            "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]],
            "warp": [[0, 0], [0, 0], [0, 0]],
            "block": [],
        },
    ),
]

PORTED_EQUALITIES = [
    (
        "MFMA32_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True, [2, 2]), 0, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 0, 4),
        [64, 32],
    ),
    (
        "MFMA32_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True, [2, 2]), 0, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 0, 4),
        [128, 128],
    ),
    (
        "MFMA32_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True, [2, 2]), 0, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 0, 4),
        [256, 256],
    ),
    (
        "MFMA16_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True, [2, 2]), 0, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 0, 4),
        [64, 32],
    ),
    (
        "MFMA16_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True, [2, 2]), 0, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 0, 4),
        [128, 128],
    ),
    (
        "MFMA16_dot_op_lhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True, [2, 2]), 0, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 0, 4),
        [128, 128],
    ),
    (
        "MFMA32_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True), 0, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 0, 4),
        [128, 128],
    ),
    (
        "MFMA32_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True), 0, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 0, 4),
        [64, 32],
    ),
    (
        "MFMA32_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True), 0, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 0, 4),
        [16, 16],
    ),
    (
        "MFMA16_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True), 0, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 0, 4),
        [128, 128],
    ),
    (
        "MFMA16_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True), 0, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 0, 4),
        [64, 32],
    ),
    (
        "MFMA16_dot_op_lhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True), 0, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 0, 4),
        [16, 16],
    ),
    (
        "MFMA32_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True, [2, 2]), 1, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 1, 4),
        [128, 128],
    ),
    (
        "MFMA32_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True, [2, 2]), 1, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 1, 4),
        [32, 64],
    ),
    (
        "MFMA32_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True, [2, 2]), 1, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False, [2, 2]), 1, 4),
        [256, 256],
    ),
    (
        "MFMA16_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True, [2, 2]), 1, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 1, 4),
        [32, 64],
    ),
    (
        "MFMA16_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True, [2, 2]), 1, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 1, 4),
        [128, 128],
    ),
    (
        "MFMA16_dot_op_rhs_tpw_2_2",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True, [2, 2]), 1, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False, [2, 2]), 1, 4),
        [256, 256],
    ),
    (
        "MFMA32_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True), 1, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 1, 4),
        [128, 128],
    ),
    (
        "MFMA32_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True), 1, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 1, 4),
        [64, 32],
    ),
    (
        "MFMA32_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [32, 32, 8], True), 1, 4),
        _dot(_mfma(3, [2, 4], [32, 32, 8], False), 1, 4),
        [16, 16],
    ),
    (
        "MFMA16_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True), 1, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 1, 4),
        [128, 128],
    ),
    (
        "MFMA16_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True), 1, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 1, 4),
        [64, 32],
    ),
    (
        "MFMA16_dot_op_rhs_kwidth4",
        _dot(_mfma(3, [2, 4], [16, 16, 16], True), 1, 4),
        _dot(_mfma(3, [2, 4], [16, 16, 16], False), 1, 4),
        [16, 16],
    ),
]


@pytest.mark.parametrize(
    "encoding, shape, expected",
    [case[1:] for case in PORTED_CASES],
    ids=[f"{case[0]}-{'x'.join(map(str, case[2]))}" for case in PORTED_CASES],
)
def test_ported_case(encoding, shape, expected):
    layout = encoding.to_linear_layout(shape)
    assert _bases(layout) == expected
    assert layout.get_out_dim_sizes() == shape


@pytest.mark.parametrize(
    "encoding, same_as, shape",
    [case[1:] for case in PORTED_EQUALITIES],
    ids=[f"{case[0]}-{'x'.join(map(str, case[3]))}" for case in PORTED_EQUALITIES],
)
def test_ported_transposed_parent_gives_same_operand(encoding, same_as, shape):
    assert encoding.to_linear_layout(shape) == same_as.to_linear_layout(shape)


def test_ported_case_count():
    assert len(PORTED_CASES) == 75 and len(PORTED_EQUALITIES) == 24


# ---------------------------------------------------------------------- (b) differential


def _pow2(rng: random.Random, low: int, high: int) -> int:
    return 1 << rng.randint(low, high)


def _cga(rng: random.Random, rank: int) -> list[list[int]]:
    """Random valid CGA bases: per dim consecutive powers of 2, interleaved, plus zeros."""
    dims = [rng.randrange(rank) for _ in range(rng.choice([0, 0, 1, 2, 3]))]
    next_power = [1] * rank
    bases = []
    for d in dims:
        basis = [0] * rank
        basis[d] = next_power[d]
        next_power[d] *= 2
        bases.append(basis)
    if bases and rng.random() < 0.3:
        bases.insert(rng.randrange(len(bases) + 1), [0] * rank)
    return bases


def _random_mfma(rng: random.Random, accumulator: bool) -> tuple[str, list[int]]:
    """A Gluon expression of a valid AMDMFMALayout and a shape for it."""
    rank = rng.choice([2, 2, 2, 3])
    m, n = rng.choice(MFMA_INSTR_SHAPES)
    k = rng.choice([0, 1, 2, 4, 8, 16, 32, 64])
    transposed = True if (accumulator and (m, n) == (64, 4)) else rng.random() < 0.5
    warps = [_pow2(rng, 0, 2) for _ in range(rank)]
    args = [str(rng.randint(1, 4)), str([m, n, k]), str(transposed), str(warps)]
    keywords = []
    if rng.random() < 0.5:
        keywords.append(f"element_bitwidth={rng.choice([32, 64])}")
    if rng.random() < 0.5:
        keywords.append(f"tiles_per_warp={[_pow2(rng, 0, 2) for _ in range(rank)]}")
    cga = _cga(rng, rank)
    if cga:
        keywords.append(f"cga_layout={cga}")
    shape = [_pow2(rng, 0, 3)] if rank == 3 else []
    shape += [_pow2(rng, 0, 9), _pow2(rng, 0, 9)]
    expression = f"amd.AMDMFMALayout({', '.join(args + keywords)})"
    return expression, shape


def _generated_cases() -> list[dict]:
    rng = random.Random(SEED)
    cases = []
    for _ in range(DIFF_CASES):
        expression, shape = _random_mfma(rng, accumulator=True)
        cases.append({"layout": expression, "shape": shape, "family": "mfma"})
    for _ in range(DIFF_CASES):
        expression, shape = _random_mfma(rng, accumulator=False)
        operand = rng.randint(0, 1)
        k_width = _pow2(rng, 0, 6)
        cases.append(
            {
                "layout": f"ttgl.DotOperandLayout({operand}, {expression}, {k_width})",
                "shape": shape,
                "family": "dot",
            }
        )
    return cases


def _gluon_scope() -> dict:
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language import amd

    return {"ttgl": ttgl, "amd": amd}


@pytest.fixture(scope="module")
def oracle():
    """Triton 3.9's bases and TTGIR text for the generated cases and the ported cases."""
    from cases.triton import triton_layouts

    generated = _generated_cases()
    ported = [
        {"layout": _gluon_text(encoding), "shape": shape} for _, encoding, shape, _ in PORTED_CASES
    ]
    results = triton_layouts(
        [{"layout": c["layout"], "shape": c["shape"]} for c in generated + ported]
    )
    return generated, results[: len(generated)], ported, results[len(generated) :]


def _gluon_text(encoding) -> str:
    """A Gluon expression for an llverify MFMA encoding (or MFMA dot operand)."""
    if isinstance(encoding, DotOperandLayout):
        parent = _gluon_text(encoding.parent)
        return f"ttgl.DotOperandLayout({encoding.operand_index}, {parent}, {encoding.k_width})"
    return (
        f"amd.AMDMFMALayout({encoding.version}, {list(encoding.instr_shape)}, "
        f"{encoding.transposed}, {list(encoding.warps_per_cta)}, {encoding.element_bitwidth}, "
        f"{list(encoding.tiles_per_warp)}, {[list(b) for b in encoding.cga_layout]})"
    )


@pytest.mark.triton
def test_differential_against_triton(oracle):
    generated, results, _, _ = oracle
    scope = _gluon_scope()
    counts = {"mfma": 0, "dot": 0}
    mismatches = []
    for case, result in zip(generated, results):
        assert "bases" in result, f"Triton refused a generated valid case {case}: {result}"
        gluon = eval(case["layout"], scope)  # noqa: S307 - expressions built above
        from_object = from_gluon(gluon)
        from_text, _ = parse_encoding(result["ttgir"])
        expected = result["bases"]
        for label, encoding in (("gluon", from_object), ("ttgir", from_text)):
            if _bases(to_linear_layout(encoding, case["shape"])) != expected:
                mismatches.append((label, case))
        if from_object.ttgir() != result["ttgir"] or from_text.ttgir() != result["ttgir"]:
            mismatches.append(("ttgir text", case, from_object.ttgir(), result["ttgir"]))
        if from_object != from_text:
            mismatches.append(("gluon != ttgir object", case))
        counts[case["family"]] += 1
    assert mismatches == []
    assert counts["mfma"] >= 300 and counts["dot"] >= 300


@pytest.mark.triton
def test_ported_cases_agree_with_triton(oracle):
    _, _, ported, results = oracle
    for (name, _, shape, expected), case, result in zip(PORTED_CASES, ported, results):
        assert result.get("bases") == expected, (name, shape, case, result)


# ---------------------------------------------------------------------- (c) proofs


@pytest.mark.parametrize("obligation", spec.OBLIGATIONS, ids=[o.name for o in spec.OBLIGATIONS])
def test_obligation(obligation):
    layout = obligation.encoding.to_linear_layout(obligation.shape)
    verdict = prove_equal(layout, dict(obligation.reference))
    assert verdict.status == obligation.expect, str(verdict)
    if verdict.refuted:
        point = verdict.counterexample
        assert {"register", "lane", "warp"} <= set(point)
        assert layout.apply(point) == verdict.actual != verdict.expected


def test_obligation_counts():
    assert len(spec.TILE_OBLIGATIONS) == len(spec.FRAGMENTS) + 1  # 16x16x4 A for f32 and f64
    assert len(spec.TENSOR_OBLIGATIONS) >= 15
    assert all(o.expect == spec.REFUTED for o in spec.NEGATIVE_CONTROLS)


def test_family_members_equal_the_converter():
    family = spec.mfma32_accumulator_family()
    count = 0
    for member in family.members():
        encoding, shape = spec.mfma32_family_member(**member)
        assert family.instance(**member) == encoding.to_linear_layout(shape), member
        count += 1
    assert count == 512


def test_family_proved_against_reference():
    family = spec.mfma32_accumulator_family()
    assert prove_family_equal(family, spec.MFMA32_FAMILY_REFERENCE).status == "proved"


def test_family_warps_m_first_refuted():
    family = spec.mfma32_accumulator_family()
    verdict = prove_family_equal(family, spec.MFMA32_FAMILY_REFERENCE_WARPS_M_FIRST)
    assert verdict.refuted
    point = verdict.counterexample
    params = {k: point[k] for k in family.params}
    encoding, shape = spec.mfma32_family_member(**params)
    layout = encoding.to_linear_layout(shape)
    ins = {d: point[d] for d in layout.get_in_dim_names()}
    assert point["warp"] != 0
    assert layout.apply(ins) == verdict.actual != verdict.expected


# ---------------------------------------------------------------------- (d) negative controls


def _swap_bases(layout: LinearLayout, in_dim: str, i: int, j: int) -> LinearLayout:
    bases = []
    for name, values in layout.bases:
        values = [list(v) for v in values]
        if name == in_dim:
            values[i], values[j] = values[j], values[i]
        bases.append((name, values))
    return LinearLayout(bases, layout.get_out_dim_names(), layout.get_out_dim_sizes())


def test_tile_with_two_lane_bits_swapped_is_refuted():
    layout = AMDMFMALayout(3, [32, 32, 8], False, [1, 1]).to_linear_layout([32, 32])
    buggy = _swap_bases(layout, "lane", 1, 5)
    verdict = prove_equal(buggy, spec.D_32X32.formulas())
    assert verdict.refuted
    assert verdict.counterexample["lane"] & 0b100010
    assert buggy.apply(verdict.counterexample) == verdict.actual != verdict.expected


def test_wrong_kwidth_repetition_is_refuted():
    # kWidth 8 on a 16-wide K: the operand of v_mfma_f32_32x32x16, not of 32x32x8 (kWidth 4)
    layout = DotOperandLayout(0, AMDMFMALayout(3, [32, 32, 8], False, [1, 1]), 8)
    verdict = prove_equal(
        layout.to_linear_layout([32, 16]),
        spec.operand_reference(spec.A_32X32X8_F16, 0, [1, 1], [1, 1], [32, 16]),
    )
    assert verdict.refuted
    assert verdict.counterexample["register"] >= 4  # a register of the second K group


def test_transposed_the_wrong_way_is_refuted():
    layout = AMDMFMALayout(3, [16, 16, 16], True, [2, 2]).to_linear_layout([64, 64])
    verdict = prove_equal(
        layout, spec.accumulator_reference(spec.D_16X16, [2, 2], [1, 1], [64, 64])
    )
    assert verdict.refuted
    assert {"register", "lane", "warp"} <= set(verdict.counterexample)


def test_warps_swapped_between_operands_is_refuted():
    # Operand B must broadcast over the M warps; a B layout built with A's warp roles is wrong.
    parent = AMDMFMALayout(3, [32, 32, 8], False, [2, 2])
    layout = DotOperandLayout(1, parent, 4).to_linear_layout([64, 64])
    wrong = spec.tiled_reference(
        spec.B_32X32X8_F16,
        register=[("k_reps", 8)],
        warp=[("k_warps", 2), ("n_warps", 2)],
        dims={"dim0": ["k_reps"], "dim1": ["n_warps"]},
    )
    verdict = prove_equal(layout, wrong)
    assert verdict.refuted and verdict.counterexample["warp"] != 0


# ---------------------------------------------------------------------- (e) errors


@pytest.mark.parametrize(
    "kwargs, rule",
    [
        ({"version": 0}, "version must be in the [1, 4] range"),
        ({"version": 5}, "version must be in the [1, 4] range"),
        ({"instr_shape": [32, 32]}, "(M, N, K) format"),
        ({"instr_shape": [32, 32, 8, 1]}, "(M, N, K) format"),
        ({"instr_shape": [8, 8, 8]}, "invalid (mDim, nDim) combination"),
        ({"instr_shape": [32, 16, 8]}, "invalid (mDim, nDim) combination"),
        ({"instr_shape": [32, 32, -1]}, "K must be non-negative"),
        ({"warps_per_cta": [4]}, "rank 2 or 3"),
        ({"warps_per_cta": [1, 1, 1, 4]}, "rank 2 or 3"),
        ({"warps_per_cta": [3, 2]}, "'warps_per_cta' must be a positive power of two"),
        ({"warps_per_cta": [0, 2]}, "'warps_per_cta' must be a positive power of two"),
        ({"element_bitwidth": 16}, "elementBitWidth must be 32 or 64"),
        ({"tiles_per_warp": [2]}, "tiles_per_warp must have length 2"),
        ({"tiles_per_warp": [2, 2, 1]}, "tiles_per_warp must have length 2"),
        ({"tiles_per_warp": [3, 1]}, "'tiles_per_warp' must be a positive power of two"),
        ({"cga_layout": [[1, 0, 0]]}, "must have 2 coordinates"),
        ({"cga_layout": [[1, 0], [1, 0]]}, "permutation matrix"),
        ({"cga_layout": [[1, 1]]}, "permutation matrix"),
    ],
)
def test_verifier_rule(kwargs, rule):
    params = {"version": 3, "instr_shape": [32, 32, 8], "transposed": True, "warps_per_cta": [2, 2]}
    with pytest.raises(EncodingError) as error:
        AMDMFMALayout(**{**params, **kwargs})
    assert rule in str(error.value)


def test_transposed_must_be_a_bool():
    with pytest.raises(LayoutTypeError, match="'transposed' must be a bool"):
        AMDMFMALayout(3, [32, 32, 8], 1, [2, 2])


def test_64x4_accumulator_must_be_transposed():
    encoding = AMDMFMALayout(4, [64, 4, 4], False, [1, 1])  # Triton builds it, then asserts
    with pytest.raises(EncodingError, match="64x4 mfma must be transposed"):
        encoding.to_linear_layout([64, 4])
    # its dot operands do not need the accumulator layout
    assert DotOperandLayout(0, encoding, 4).to_linear_layout([64, 64]).get_out_dim_sizes()


@pytest.mark.parametrize("shape, rule", [([64], "rank 2"), ([64, 48], "powers of 2")])
def test_shape_rules(shape, rule):
    with pytest.raises(EncodingError, match=rule):
        AMDMFMALayout(3, [32, 32, 8], True, [2, 2]).to_linear_layout(shape)


@pytest.mark.parametrize(
    "operand_index, k_width, rule",
    [
        (0, 0, "kWidth parameter is mandatory for MFMA parent"),
        (1, 3, "must be a positive power of 2"),
        (0, -4, "must be a positive power of 2"),
        (2, 4, "can be 0 or 1"),
    ],
)
def test_dot_operand_rules(operand_index, k_width, rule):
    with pytest.raises(EncodingError) as error:
        DotOperandLayout(operand_index, AMDMFMALayout(3, [32, 32, 8], True, [2, 2]), k_width)
    assert rule in str(error.value)


def test_ttgir_round_trip_and_defaults():
    text = (
        "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], "
        "isTransposed = false, CGALayout = [[1, 0]], tilesPerWarp = [2, 1], "
        "elementBitWidth = 64}>"
    )
    encoding, _ = parse_encoding(text)
    assert encoding == AMDMFMALayout(3, [32, 32, 8], False, [2, 2], 64, [2, 1], [[1, 0]])
    assert encoding.ttgir() == text
    plain, _ = parse_encoding(
        "#ttg.amd_mfma<{version = 4, warpsPerCTA = [4, 1], instrShape = [16, 16, 32], "
        "isTransposed = true, tilesPerWarp = [1, 1]}>"
    )
    assert plain.element_bitwidth == 32 and plain.tiles_per_warp == (1, 1)
    assert "tilesPerWarp" not in plain.ttgir() and "elementBitWidth" not in plain.ttgir()
    dot = f"#ttg.dot_op<{{opIdx = 1, parent = {plain.ttgir()}, kWidth = 8}}>"
    operand, _ = parse_encoding(dot)
    assert operand.ttgir() == dot
    layout = to_linear_layout(f"tensor<64x32xf16, {dot}>")
    assert layout == DotOperandLayout(1, plain, 8).to_linear_layout([64, 32])


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8]}>",
            "missing field 'isTransposed'",
        ),
        (
            "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], "
            "isTransposed = true, kWidth = 4}>",
            "unknown field 'kWidth'",
        ),
        (
            "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [8, 8, 8], "
            "isTransposed = true}>",
            "invalid (mDim, nDim) combination",
        ),
        (
            "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2] instrShape = [32, 32, 8], "
            "isTransposed = true}>",
            "expected '}'",
        ),
        (
            "#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], "
            "instrShape = [32, 32, 8], isTransposed = true}>}>",
            "kWidth parameter is mandatory",
        ),
    ],
)
def test_malformed_ttgir(text, message):
    with pytest.raises(TTGIRError) as error:
        parse_encoding(text)
    assert message in str(error.value)


def test_gluon_like_object_converts():
    class AMDMFMALayoutStandIn:  # from_gluon dispatches on the class name only
        version, instr_shape, transposed, warps_per_cta = 3, [16, 16, 16], False, [2, 2]
        element_bitwidth, tiles_per_warp, cga_layout = 32, [1, 1], []

    AMDMFMALayoutStandIn.__name__ = "AMDMFMALayout"
    encoding = from_gluon(AMDMFMALayoutStandIn())
    assert encoding == AMDMFMALayout(3, [16, 16, 16], False, [2, 2])


def test_generated_cases_include_shapes_below_the_tile() -> None:
    """Issue 29 item 5: the Triton differential runs tensors smaller than the instruction
    tile (dim -2 below M or dim -1 below N) too (453 of 640 cases)."""
    import re

    def below(case: dict) -> bool:
        m, n, _ = map(int, re.search(r"\[(\d+), (\d+), (\d+)\]", case["layout"]).groups())
        return case["shape"][-2] < m or case["shape"][-1] < n

    cases = _generated_cases()
    assert sum(below(c) for c in cases if c["family"] == "mfma") >= 150
    assert sum(below(c) for c in cases if c["family"] == "dot") >= 150
