"""Intel XPU encodings (llverify/encodings/intel_dpas.py): ``#ttig.dpas``, its dot operands,
slices and block scales, ``#ttig.subgroup_2d_block`` and ``#ttig.warp``.

Oracle: the backend's own unit tests, ported with their expected bases (no Intel Triton
wheel exposes its converters on the CPU here: the newest one on PyPI, triton-xpu 3.3.0b1,
has no LinearLayout binding in Python, and pytorch-triton-xpu is published on PyTorch's
own index, which this machine cannot reach).  The closed-form references of one DPAS
instruction are proved in tests/test_specs_intel_dpas.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from llverify import prove_equal
from llverify.encodings import (
    DotOperandLayout,
    DpasLayout,
    EncodingError,
    IntelWarpLayout,
    SliceLayout,
    Subgroup2DBlockLayout,
    TTGIRError,
    parse_encoding,
    to_linear_layout,
)
from llverify.errors import LayoutTypeError
from llverify.specs import intel_dpas as spec


def _bases(layout: Any) -> dict[str, list[list[int]]]:
    return {name: [list(b) for b in values] for name, values in layout.bases}


# ---------------------------------------------------------------------- ported cases
# intel/intel-xpu-backend-for-triton v3.7.2 (933a4302),
# third_party/intel/unittest/Dialect/TritonIntelGPU/DPAStoLinearLayoutTest.cpp: every
# EXPECT_EQ.  The fixture's dpas(warps, repeatCount, systolicDepth, executionSize,
# opsPerChannel, repCluster, threadsPerWarp[, fp4KPack]); operand 0-2 is
# DPAStoLinearLayout's opIdx (2 by default), 3-4 BlockScaledDPAStoLinearLayout's scales.
# Every expected layout has no block bases.


def _case(name, dpas, operand, shape, register, lane, warp):
    return pytest.param(dpas, operand, shape, register, lane, warp, id=f"{name}-{operand}-{shape}")


PORTED = [
    _case(
        "DPAS_perInst",
        ([1, 1], 8, 8, 16, 2, [1, 1], 32, None),
        2,
        [8, 16],
        [[2, 0], [4, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]],
        [],
    ),
    _case(
        "DPAS_perInst",
        ([1, 1], 8, 8, 16, 1, [1, 1], 16, None),
        2,
        [8, 16],
        [[1, 0], [2, 0], [4, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8]],
        [],
    ),
    _case(
        "DPAS_perInst",
        ([1, 1], 8, 8, 16, 4, [1, 1], 32, None),
        0,
        [8, 32],
        [[0, 1], [2, 0], [4, 0]],
        [[0, 2], [0, 4], [0, 8], [0, 16], [1, 0]],
        [],
    ),
    _case(
        "DPAS_perInst",
        ([1, 1], 8, 8, 16, 2, [1, 1], 32, None),
        0,
        [8, 16],
        [[2, 0], [4, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]],
        [],
    ),
    _case(
        "DPAS_perInst",
        ([1, 1], 8, 8, 16, 1, [1, 1], 32, None),
        0,
        [8, 8],
        [[4, 0]],
        [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]],
        [],
    ),
    _case(
        "DPAS_perInst",
        ([1, 1], 8, 8, 16, 4, [1, 1], 32, None),
        1,
        [32, 16],
        [[1, 0], [2, 0], [8, 0], [16, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0]],
        [],
    ),
    _case(
        "DPAS_perInst",
        ([1, 1], 8, 8, 16, 2, [1, 1], 32, None),
        1,
        [16, 16],
        [[1, 0], [4, 0], [8, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [2, 0]],
        [],
    ),
    _case(
        "DPAS_perInst",
        ([1, 1], 8, 8, 16, 1, [1, 1], 32, None),
        1,
        [8, 16],
        [[2, 0], [4, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]],
        [],
    ),
    _case(
        "DPAS_withRepCluster",
        ([1, 1], 8, 8, 16, 2, [4, 2], 16, None),
        2,
        [32, 32],
        [[1, 0], [2, 0], [4, 0], [0, 16], [8, 0], [16, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8]],
        [],
    ),
    _case(
        "DPAS_withRepCluster",
        ([1, 1], 8, 8, 16, 2, [4, 2], 32, None),
        0,
        [32, 16],
        [[2, 0], [4, 0], [8, 0], [16, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]],
        [],
    ),
    _case(
        "DPAS_withRepCluster",
        ([1, 1], 8, 8, 16, 2, [4, 2], 32, None),
        1,
        [16, 32],
        [[1, 0], [4, 0], [8, 0], [0, 16]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [2, 0]],
        [],
    ),
    _case(
        "DPAS_withRepCluster",
        ([1, 1], 8, 8, 16, 1, [4, 2], 16, None),
        2,
        [32, 32],
        [[1, 0], [2, 0], [4, 0], [0, 16], [8, 0], [16, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8]],
        [],
    ),
    _case(
        "DPAS_withWarp",
        ([4, 1], 8, 8, 16, 2, [1, 2], 16, None),
        2,
        [32, 32],
        [[1, 0], [2, 0], [4, 0], [0, 16]],
        [[0, 1], [0, 2], [0, 4], [0, 8]],
        [[8, 0], [16, 0]],
    ),
    _case(
        "DPAS_withWarp",
        ([2, 2], 8, 8, 16, 1, [4, 2], 32, None),
        2,
        [64, 64],
        [[2, 0], [4, 0], [0, 16], [8, 0], [16, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]],
        [[0, 32], [32, 0]],
    ),
    _case(
        "DPAS_withWarpOperandA",
        ([2, 2], 8, 8, 16, 2, [4, 2], 32, None),
        0,
        [64, 64],
        [[2, 0], [4, 0], [8, 0], [16, 0], [0, 16], [0, 32]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]],
        [[0, 0], [32, 0]],
    ),
    _case(
        "DPAS_withWarpOperandB",
        ([2, 2], 8, 8, 16, 2, [4, 2], 32, None),
        1,
        [64, 64],
        [[1, 0], [4, 0], [8, 0], [0, 16], [16, 0], [32, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [2, 0]],
        [[0, 32], [0, 0]],
    ),
    _case(
        "DPAS_OperandScaleA",
        ([2, 2], 8, 8, 16, 4, [4, 2], 32, None),
        3,
        [128, 2],
        [[8, 0], [16, 0], [0, 1], [64, 0]],
        [[1, 0], [2, 0], [4, 0], [0, 0], [0, 0]],
        [[0, 0], [32, 0]],
    ),
    _case(
        "DPAS_OperandScaleA",
        ([2, 2], 8, 8, 16, 4, [4, 2], 32, 2),
        3,
        [128, 4],
        [[0, 1], [8, 0], [16, 0], [0, 2], [64, 0]],
        [[1, 0], [2, 0], [4, 0], [0, 0], [0, 0]],
        [[0, 0], [32, 0]],
    ),
    _case(
        "DPAS_OperandScaleA",
        ([2, 2], 8, 8, 16, 4, [4, 2], 16, None),
        3,
        [128, 2],
        [[8, 0], [16, 0], [0, 1], [64, 0]],
        [[1, 0], [2, 0], [4, 0], [0, 0]],
        [[0, 0], [32, 0]],
    ),
    _case(
        "DPAS_OperandScaleA",
        ([2, 2], 8, 8, 16, 4, [4, 2], 16, 2),
        3,
        [128, 4],
        [[0, 1], [8, 0], [16, 0], [0, 2], [64, 0]],
        [[1, 0], [2, 0], [4, 0], [0, 0]],
        [[0, 0], [32, 0]],
    ),
    _case(
        "DPAS_OperandScaleA",
        ([1, 2, 2], 8, 8, 16, 4, [1, 4, 2], 16, None),
        3,
        [1, 128, 4],
        [[0, 8, 0], [0, 16, 0], [0, 0, 1], [0, 0, 2], [0, 64, 0]],
        [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 0, 0]],
        [[0, 0, 0], [0, 32, 0]],
    ),
    _case(
        "DPAS_OperandScaleA",
        ([2, 1, 2], 8, 8, 16, 4, [1, 4, 2], 16, 2),
        4,
        [16, 128, 4],
        [[0, 0, 1], [0, 16, 0], [0, 0, 2], [0, 64, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0]],
        [[0, 1, 0], [0, 2, 0], [0, 4, 0], [0, 8, 0]],
        [[0, 32, 0], [1, 0, 0]],
    ),
    _case(
        "DPAS_OperandScaleB",
        ([2, 2], 8, 8, 16, 4, [4, 2], 32, None),
        4,
        [128, 2],
        [[16, 0], [0, 1], [64, 0]],
        [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]],
        [[32, 0], [0, 0]],
    ),
    _case(
        "DPAS_OperandScaleB",
        ([2, 2], 8, 8, 16, 4, [4, 2], 16, None),
        4,
        [128, 2],
        [[16, 0], [0, 1], [64, 0]],
        [[1, 0], [2, 0], [4, 0], [8, 0]],
        [[32, 0], [0, 0]],
    ),
    _case(
        "DPAS_OperandScaleB",
        ([2, 2], 8, 8, 16, 4, [4, 2], 32, 2),
        4,
        [128, 4],
        [[0, 1], [16, 0], [0, 2], [64, 0]],
        [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]],
        [[32, 0], [0, 0]],
    ),
    _case(
        "DPAS_OperandScaleB",
        ([2, 2], 8, 8, 16, 4, [4, 2], 16, 2),
        4,
        [128, 4],
        [[0, 1], [16, 0], [0, 2], [64, 0]],
        [[1, 0], [2, 0], [4, 0], [8, 0]],
        [[32, 0], [0, 0]],
    ),
    _case(
        "DPAS_withDPASRepetitions",
        ([2, 1], 8, 8, 16, 2, [4, 2], 32, None),
        2,
        [64, 64],
        [[2, 0], [4, 0], [0, 16], [8, 0], [16, 0], [0, 32]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]],
        [[32, 0]],
    ),
    _case(
        "DPAS_withDPASRepetitions",
        ([2, 2], 8, 8, 16, 2, [2, 2], 32, None),
        2,
        [128, 128],
        [[2, 0], [4, 0], [0, 16], [8, 0], [0, 64], [32, 0], [64, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]],
        [[0, 32], [16, 0]],
    ),
]


@pytest.mark.parametrize(("dpas", "operand", "shape", "register", "lane", "warp"), PORTED)
def test_backend_unittest_cases(dpas, operand, shape, register, lane, warp):
    layout = DpasLayout(*dpas[1:5], dpas[0], *dpas[5:]).scale_layout(operand, shape)
    assert _bases(layout) == {"register": register, "lane": lane, "warp": warp, "block": []}
    assert layout.get_out_dim_names() == [f"dim{i}" for i in range(len(shape))]
    assert layout.get_out_dim_sizes() == list(shape)


@pytest.mark.parametrize(
    ("dpas", "operand", "shape", "register", "lane", "warp"),
    [case for case in PORTED if case.values[1] <= 2],  # scales have no encoding of their own
)
def test_backend_unittest_cases_through_ttgir(dpas, operand, shape, register, lane, warp):
    """The same cases through the TTGIR text the backend prints (a dot operand with the kWidth
    the backend's verifier requires)."""
    parent = DpasLayout(*dpas[1:5], dpas[0], *dpas[5:])
    text = parent.ttgir()
    if operand < 2:
        ops = parent.ops_per_channel
        k_width = (1 if ops == 1 else ops // 2) if operand == 0 else ops
        text = f"#ttg.dot_op<{{opIdx = {operand}, parent = {text}, kWidth = {k_width}}}>"
    expected = {"register": register, "lane": lane, "warp": warp, "block": []}
    assert _bases(to_linear_layout(text, shape)) == expected


# third_party/intel/unittest/Dialect/TritonIntelGPU/LinearLayoutConversionsTest.cpp (v3.7.2):
# every EXPECT_EQ.  sdb(instrShape, numBlocks, kWidth, warpsPerCTA, ..., opIdx): order is
# getOrderForDotOperand(opIdx, 2, kContig) and threadsPerWarp 16.


def _sdb_case(name, sdb, shape, register, lane, warp):
    return pytest.param(sdb, shape, register, lane, warp, id=name)


PORTED_2D_BLOCK = [
    _sdb_case(
        "FP32_32x8x2_M256_N128_K32_A",
        ([32, 8], 2, 4, [8, 4], 0),
        [256, 32],
        [[2, 0], [4, 0], [8, 0], [16, 0], [0, 8], [0, 16]],
        [[0, 1], [0, 2], [0, 4], [1, 0]],
        [[0, 0], [0, 0], [32, 0], [64, 0], [128, 0]],
    ),
    _sdb_case(
        "FP32_32x16x1_M256_N128_K32_B",
        ([32, 16], 1, 4, [8, 4], 1),
        [32, 128],
        [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 64]],
        [[0, 1], [0, 2], [0, 4], [0, 8]],
        [[0, 16], [0, 32], [0, 0], [0, 0], [0, 0]],
    ),
    _sdb_case(
        "FP16_32x32x1_M256_N32_K32_A",
        ([32, 32], 1, 2, [8, 4], 0),
        [256, 32],
        [[0, 1], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
        [[0, 2], [0, 4], [0, 8], [0, 16]],
        [[0, 0], [0, 0], [32, 0], [64, 0], [128, 0]],
    ),
    _sdb_case(
        "FP16_32x16x2_M256_N32_K32_A",
        ([32, 16], 2, 2, [8, 4], 0),
        [256, 32],
        [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 16]],
        [[0, 1], [0, 2], [0, 4], [0, 8]],
        [[0, 0], [0, 0], [32, 0], [64, 0], [128, 0]],
    ),
    _sdb_case(
        "FP16_32x16x2_M256_N32_K32_B",
        ([32, 16], 2, 2, [8, 4], 1),
        [32, 256],
        [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 16], [0, 128]],
        [[0, 1], [0, 2], [0, 4], [0, 8]],
        [[0, 32], [0, 64], [0, 0], [0, 0], [0, 0]],
    ),
    _sdb_case(
        "FP16_16x16x2_M256_N32_K32_B",
        ([16, 16], 2, 2, [8, 4], 1),
        [32, 256],
        [[1, 0], [2, 0], [4, 0], [8, 0], [0, 16], [16, 0], [0, 128]],
        [[0, 1], [0, 2], [0, 4], [0, 8]],
        [[0, 32], [0, 64], [0, 0], [0, 0], [0, 0]],
    ),
    _sdb_case(
        "I8_16x32x1_M64_N128_K32_A",
        ([16, 32], 1, 1, [4, 8], 0),
        [64, 32],
        [[0, 1], [1, 0], [2, 0], [4, 0], [8, 0]],
        [[0, 2], [0, 4], [0, 8], [0, 16]],
        [[0, 0], [0, 0], [0, 0], [16, 0], [32, 0]],
    ),
    _sdb_case(
        "I8_32x32x1_M64_N128_K32_B",
        ([32, 16], 1, 1, [4, 8], 1),
        [32, 128],
        [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
        [[0, 1], [0, 2], [0, 4], [0, 8]],
        [[0, 16], [0, 32], [0, 64], [0, 0], [0, 0]],
    ),
]


@pytest.mark.parametrize(("sdb", "shape", "register", "lane", "warp"), PORTED_2D_BLOCK)
def test_backend_subgroup_2d_block_cases(sdb, shape, register, lane, warp):
    instr, blocks, k_width, warps, operand = sdb
    order = [1, 0] if operand == 0 else [0, 1]
    encoding = Subgroup2DBlockLayout(warps, instr, blocks, order, k_width, 16)
    expected = {"register": register, "lane": lane, "warp": warp, "block": []}
    assert _bases(encoding.to_linear_layout(shape)) == expected
    assert _bases(to_linear_layout(encoding.ttgir(), shape)) == expected


def test_ported_case_count():
    assert len(PORTED) == 28  # every EXPECT_EQ of DPAStoLinearLayoutTest.cpp
    assert len(PORTED_2D_BLOCK) == 8  # every EXPECT_EQ of LinearLayoutConversionsTest.cpp


# ---------------------------------------------------------------------- dot operands, slices

_DPAS_TEXT = (
    "#ttig.dpas<{repeatCount = 8, systolicDepth = 8, executionSize = 16, opsPerChan = 2, "
    "threadsPerWarp = 16, warpsPerCTA = [4, 2], repCluster = [1, 1], A = [8, 16], "
    "B = [16, 16], C = [8, 16]}>"
)


def test_ttgir_round_trip_of_backend_text():
    """The alias most used in the backend's lit tests (test/TritonIntelGPU/*.mlir, v3.7.2)
    reads and prints back unchanged; so does one with fp4KPack and a rank-3 one."""
    dpas, shape = parse_encoding(_DPAS_TEXT)
    assert shape is None and dpas == DpasLayout(8, 8, 16, 2, [4, 2], [1, 1], 16)
    assert dpas.ttgir() == _DPAS_TEXT
    for encoding in (
        DpasLayout(8, 8, 16, 4, [2, 2], [4, 2], 16, 2),
        DpasLayout(8, 8, 16, 1, [2, 1, 2], [1, 4, 2], 32),
    ):
        assert parse_encoding(encoding.ttgir())[0] == encoding
    text = "#ttig.warp<{sizePerThread = [1, 4], threadsPerWarp = [8, 2], order = [1, 0]}>"
    assert parse_encoding(text)[0].ttgir() == text


def test_ttgir_fields_backend_accepts_without_the_printed_shapes():
    """A, B and C are printed, not needed (the backend's parser ignores them)."""
    text = _DPAS_TEXT.split(", A = ")[0] + "}>"
    assert parse_encoding(text)[0] == DpasLayout(8, 8, 16, 2, [4, 2], [1, 1], 16)


def test_tensor_type_and_dot_operand_text():
    text = f"tensor<64x32xf16, #ttg.dot_op<{{opIdx = 0, parent = {_DPAS_TEXT}, kWidth = 1}}>>"
    layout = to_linear_layout(text)
    parent = DpasLayout(8, 8, 16, 2, [4, 2], [1, 1], 16)
    assert layout == parent.operand_layout(0, [64, 32])
    assert _bases(layout)["warp"] == [[0, 0], [8, 0], [16, 0]]  # broadcast along K


def test_slices_of_dpas_and_of_its_operands():
    """A slice drops the sliced dim from its parent's layout (SliceEncodingAttr): the
    accumulator sliced along N keeps one lane per row group; the lanes and warps that
    walked N become broadcasts."""
    parent = DpasLayout(8, 8, 16, 2, [2, 2], [1, 1], 16)
    rows = SliceLayout(1, parent).to_linear_layout([16])
    assert _bases(rows) == {
        "register": [[1], [2], [4]],
        "lane": [[0], [0], [0], [0]],
        "warp": [[0], [8]],
        "block": [],
    }
    columns = SliceLayout(0, DotOperandLayout(1, parent, 2)).to_linear_layout([32])
    assert _bases(columns) == {
        "register": [],
        "lane": [[1], [2], [4], [8]],
        "warp": [[16], [0]],
        "block": [],
    }
    text = f"#ttg.slice<{{dim = 1, parent = {_DPAS_TEXT}}}>"
    assert to_linear_layout(text, [32]) == SliceLayout(
        1, DpasLayout(8, 8, 16, 2, [4, 2], [1, 1], 16)
    ).to_linear_layout([32])


def test_shapes_below_the_tile_broadcast():
    """A tensor smaller than the per-warp tile: the bases beyond it become zeros."""
    dpas = DpasLayout(8, 8, 16, 2, [2, 2], [2, 2], 16)
    layout = dpas.to_linear_layout([8, 16])
    assert _bases(layout)["register"] == [[1, 0], [2, 0], [4, 0], [0, 0], [0, 0]]
    assert _bases(layout)["warp"] == [[0, 0], [0, 0]]


# ---------------------------------------------------------------------- verifier rules

_GOOD = {
    "repeat_count": 8,
    "systolic_depth": 8,
    "execution_size": 16,
    "ops_per_channel": 2,
    "warps_per_cta": [1, 1],
    "rep_cluster": [1, 1],
    "threads_per_warp": 16,
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"repeat_count": 9}, "repeatCount must be in the range"),
        ({"repeat_count": 0}, "repeatCount must be in the range"),
        ({"repeat_count": 3}, "must be a power of 2"),
        ({"ops_per_channel": 8}, "opsPerChannel must be 1, 2 or 4"),
        ({"systolic_depth": 4}, "systolicDepth must be 8"),
        ({"rep_cluster": [1]}, "expected rank 2 or 3 of repCluster"),
        ({"threads_per_warp": 8}, "could not be smaller than the execution size"),
        ({"fp4_k_pack": 4, "ops_per_channel": 4}, "fp4KPack must be 2"),
        ({"fp4_k_pack": 2}, "opsPerChannel must be 4 for the fp4 type"),
        ({"warps_per_cta": [1, 1, 1]}, "must have one rank"),
        ({"warps_per_cta": [3, 1]}, "power of two"),
        ({"execution_size": 12, "threads_per_warp": 16}, "must be a power of 2"),
        ({"threads_per_warp": 24}, "must be a power of 2"),
        ({"repeat_count": -1}, "unsigned"),
    ],
)
def test_verifier_rules(change, message):
    with pytest.raises(EncodingError, match=message):
        DpasLayout(**{**_GOOD, **change})


def test_type_errors_name_the_argument():
    with pytest.raises(LayoutTypeError, match="'repeat_count' must be an int"):
        DpasLayout(**{**_GOOD, "repeat_count": 8.0})
    with pytest.raises(LayoutTypeError, match="'k_width' must be an int"):
        DotOperandLayout(0, DpasLayout(**_GOOD), "1")
    with pytest.raises(EncodingError, match="'operand' must be 0"):
        DpasLayout(**_GOOD).operand_layout(3, [8, 16])


@pytest.mark.parametrize(
    ("ops", "operand", "k_width", "ok"),
    [
        (2, 0, 1, True),
        (2, 0, 2, False),
        (4, 0, 2, True),
        (1, 0, 1, True),
        (1, 0, 0, False),
        (2, 1, 2, True),
        (2, 1, 1, False),
        (4, 1, 4, True),
        (1, 1, 1, True),
    ],
)
def test_dot_operand_k_width_rule(ops, operand, k_width, ok):
    parent = DpasLayout(**{**_GOOD, "ops_per_channel": ops})
    if ok:
        DotOperandLayout(operand, parent, k_width)
    else:
        with pytest.raises(EncodingError, match="must match the parent's opsPerChannel"):
            DotOperandLayout(operand, parent, k_width)


def test_dot_operand_a_must_fill_the_sub_group():
    """repeatCount 1 with tf32 A: 8 packed elements per row cannot feed 16 lanes."""
    parent = DpasLayout(**{**_GOOD, "repeat_count": 1, "ops_per_channel": 1})
    with pytest.raises(EncodingError, match="invalid layout for the A operand"):
        DotOperandLayout(0, parent, 1)
    DotOperandLayout(1, parent, 1)  # B is fine


def test_block_scale_rules():
    dpas = DpasLayout(**{**_GOOD, "ops_per_channel": 4})
    with pytest.raises(EncodingError, match="block-scaled operand must be"):
        dpas.scale_layout(5, [8, 2])
    with pytest.raises(EncodingError, match="the last dim"):
        dpas.scale_layout(3, [8, 2], scale_k_index=0)
    with pytest.raises(EncodingError, match="repeatCount 8"):
        DpasLayout(**{**_GOOD, "repeat_count": 4}).scale_layout(3, [8, 2])
    with pytest.raises(EncodingError, match="opsPerChannel"):
        DpasLayout(**{**_GOOD, "ops_per_channel": 1}).scale_layout(3, [8, 2])
    assert dpas.scale_layout(0, [8, 32]) == dpas.operand_layout(0, [8, 32])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"instr_shape": [8, 8, 8]}, "instrShape must be rank 2"),
        ({"order": [0]}, "order must be rank 2"),
        ({"warps_per_cta": [4]}, "warpsPerCTA must be rank 2"),
        ({"k_width": 3}, "kWidth must be 1, 2 or 4"),
        ({"threads_per_warp": 32}, "threadsPerWarp must be 16"),
        ({"order": [1, 1]}, "permutation"),
        ({"num_blocks": 3}, "power of two"),
    ],
)
def test_subgroup_2d_block_rules(change, message):
    good = {
        "warps_per_cta": [8, 4],
        "instr_shape": [32, 16],
        "num_blocks": 1,
        "order": [1, 0],
        "k_width": 2,
        "threads_per_warp": 16,
    }
    with pytest.raises(EncodingError, match=message):
        Subgroup2DBlockLayout(**{**good, **change})


def test_subgroup_2d_block_legacy_cga_text():
    text = (
        "#ttig.subgroup_2d_block<{warpsPerCTA = [8, 4], CTAsPerCGA = [1, 1], CTASplitNum = "
        "[1, 1], CTAOrder = [1, 0], instrShape = [32, 16], numBlocks=1, order=[0, 1], "
        "kWidth=4, threadsPerWarp=16}>"
    )
    encoding = parse_encoding(text)[0]
    assert encoding == Subgroup2DBlockLayout([8, 4], [32, 16], 1, [0, 1], 4, 16, [])
    with pytest.raises(TTGIRError, match="must all be present"):
        parse_encoding(text.replace("CTASplitNum = [1, 1], ", ""))


def test_intel_warp_layout_has_no_linear_layout():
    """The backend's WarpEncodingAttr::toLinearLayout is NYI: llverify refuses, never guesses."""
    with pytest.raises(EncodingError, match="no linear layout"):
        to_linear_layout(
            "#ttig.warp<{sizePerThread = [1, 4], threadsPerWarp = [8, 2], order = [1, 0]}>",
            [16, 16],
        )
    assert IntelWarpLayout([1, 4], [8, 2], [1, 0]).rank == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_DPAS_TEXT.replace("A = [8, 16]", "A = [16, 16]"), "A = \\[16, 16\\] disagrees"),
        (_DPAS_TEXT.replace("repeatCount = 8, ", ""), "missing field 'repeatCount'"),
        (_DPAS_TEXT.replace("C = [8, 16]", "C = [8, 16], D = 1"), "unknown field 'D'"),
        (_DPAS_TEXT.replace("systolicDepth = 8", "systolicDepth = 4"), "systolicDepth must be 8"),
    ],
)
def test_malformed_ttgir(text, message):
    with pytest.raises(TTGIRError, match=message):
        parse_encoding(text)


# ---------------------------------------------------------------------- references


@pytest.mark.parametrize("obligation", spec.OBLIGATIONS, ids=lambda o: o.name)
def test_reference_proved(obligation):
    verdict = prove_equal(spec.layout(obligation.instance), obligation.formulas())
    assert verdict.status == "proved", str(verdict)


def test_every_reference_has_an_obligation():
    used = {o.reference for o in (*spec.OBLIGATIONS, *spec.FINDINGS)}
    assert used == set(spec.REFERENCES)
    assert {o.reference for o in spec.NEGATIVE_CONTROLS} == set(spec.WRONG_REFERENCES)


def test_reference_coverage():
    """Sub-group 16: A for 3 element sizes x 4 M less tf32 M 1, B for 3 sizes, C for 4 M;
    sub-group 8: B for 2 sizes, C for 4 M; 3 whole tensors of the [TD] example."""
    assert len(spec.OBLIGATIONS) == 11 + 3 + 4 + 2 + 4 + 3


@pytest.mark.parametrize(
    "obligation", spec.NEGATIVE_CONTROLS, ids=lambda o: f"{o.name}-{o.reference}"
)
def test_negative_control_refuted(obligation):
    layout = spec.layout(obligation.instance)
    verdict = prove_equal(layout, obligation.formulas())
    assert verdict.status == "refuted", str(verdict)
    point = verdict.counterexample
    assert point is not None and any(point.get(d) for d in ("register", "lane", "warp"))
    assert verdict.actual != verdict.expected
    assert layout.apply(point) == verdict.actual


def test_negative_control_counterexamples():
    """The counterexamples point at the bug: the byte packing at register 1, the row
    interleave at register 1, the VNNI packing at register 1, the lane bits at lane 1, the
    transposition at register 1, the warp order at warp 1."""
    found = {}
    for obligation in spec.NEGATIVE_CONTROLS:
        point = prove_equal(spec.layout(obligation.instance), obligation.formulas())
        assert point.counterexample is not None
        found[obligation.reference] = {k: v for k, v in point.counterexample.items() if v}
    assert found == {
        "sg16_a_8bit_not_packed": {"register": 1},
        "sg16_a_tf32_halves_not_interleaved": {"register": 1},
        "sg16_b_16bit_not_vnni": {"register": 1},
        "sg16_c_lane_bits_swapped": {"lane": 1},
        "sg16_c_transposed": {"register": 1},
        "td_c_warps_m_first": {"warp": 1},
    }


def test_findings_sub_group_8_a_is_not_the_spirv_mapping():
    """Finding: for threadsPerWarp = executionSize = 8 (Xe-HPG, which the backend's
    AccelerateMatmul produces: test/TritonIntelGPU/accelerate-matmul-ats.mlir), the A layout
    is not SPV_INTEL_subgroup_matrix_multiply_accumulate's mapping, and its lane dim has 16
    positions for an 8-lane sub-group (DPASLaneBasesA loops to the 16 packed columns)."""
    for obligation in spec.FINDINGS:
        layout = spec.layout(obligation.instance)
        verdict = prove_equal(layout, obligation.formulas())
        assert verdict.status == "refuted", str(verdict)
        assert layout.apply(verdict.counterexample) == verdict.actual
        assert layout.get_in_dim_size("lane") == 16 > obligation.instance.threads_per_warp
    # B and C of the same layouts are the mapping (proved above); so are A's on 16 lanes.
    assert {o.reference for o in spec.OBLIGATIONS} >= {"sg8_b_16bit", "sg8_c", "sg16_a_16bit"}


def test_library_entries():
    names = [ob.name for ob in spec.LIBRARY]
    assert len(names) == len(spec.OBLIGATIONS) + len(spec.NEGATIVE_CONTROLS) + 5
    assert all(n.startswith("intel_dpas: ") for n in names)
    assert sum("(negative control)" in n for n in names) == len(spec.NEGATIVE_CONTROLS) + 2


def test_accumulator_family_members_equal_the_converter():
    """The family is a transcription of the converter's bases: every one of its 2,916
    members (repeatCount 1-8, repCluster, warps and repetitions up to 4 per dim) is checked
    equal to DpasLayout's layout."""
    from llverify.prove import prove_family_equal

    family = spec.accumulator_family()
    count = 0
    for member in family.members():
        encoding, shape = spec.accumulator_family_member(**member)
        assert family.instance(**member) == encoding.to_linear_layout(list(shape)), member
        count += 1
    assert count == 4 * 3**6
    verdict = prove_family_equal(family, spec.ACCUMULATOR_FAMILY_REFERENCE)
    assert verdict.status == "proved" and "parametric" in str(verdict)


@pytest.mark.parametrize(
    ("family", "member", "reference", "count"),
    [
        ("operand_a_family", "operand_a_family_member", "OPERAND_A_FAMILY_REFERENCE", 2 * 4 * 3**5),
        ("operand_b_family", "operand_b_family_member", "OPERAND_B_FAMILY_REFERENCE", 2 * 3**5),
    ],
)
def test_operand_families_equal_the_converter_and_are_proved(family, member, reference, count):
    """The A and B dot operands (16- and 8-bit) as families: every member checked equal to
    the converter's DotOperandLayout, then proved against the tiled SPIR-V fragment."""
    from llverify.prove import prove_family_equal

    fam = getattr(spec, family)()
    build = getattr(spec, member)
    seen = 0
    for values in fam.members():
        encoding, shape = build(**values)
        assert fam.instance(**values) == encoding.to_linear_layout(list(shape)), values
        seen += 1
    assert seen == count
    verdict = prove_family_equal(fam, getattr(spec, reference))
    assert verdict.status == "proved", str(verdict)


def test_operand_a_family_control_refuted_and_replayed():
    """A's repetitions read M first: refuted, the member and input replayed."""
    from llverify.prove import prove_family_equal

    family = spec.operand_a_family()
    verdict = prove_family_equal(family, spec.OPERAND_A_FAMILY_REFERENCE_M_REPS_FIRST)
    assert verdict.refuted
    point = verdict.counterexample
    encoding, shape = spec.operand_a_family_member(**{k: point[k] for k in family.params})
    layout = encoding.to_linear_layout(list(shape))
    ins = {d: point[d] for d in layout.get_in_dim_names()}
    assert layout.apply(ins) == verdict.actual != verdict.expected


def test_accumulator_family_control_refuted_and_replayed():
    from llverify.prove import prove_family_equal

    family = spec.accumulator_family()
    verdict = prove_family_equal(family, spec.ACCUMULATOR_FAMILY_REFERENCE_CLUSTER_M_FIRST)
    assert verdict.refuted
    point = verdict.counterexample
    encoding, shape = spec.accumulator_family_member(**{k: point[k] for k in family.params})
    layout = encoding.to_linear_layout(list(shape))
    ins = {d: point[d] for d in layout.get_in_dim_names()}
    assert point["register"] != 0
    assert layout.apply(ins) == verdict.actual != verdict.expected


# ---------------------------------------------------------------------- Gluon, triton-check


class IntelDPASLayout:
    """The shape of the backend's ``ttgl.intel.IntelDPASLayout`` (v3.7.2): its keywords."""

    def __init__(self, **kwargs):
        for name in ("repeatCount", "systolic_depth", "execution_size", "ops_per_chan",
                     "warps_per_cta", "rep_cluster", "threads_per_warp"):  # fmt: skip
            setattr(self, name, kwargs[name])


def test_from_gluon_reads_the_backend_gluon_class():
    from llverify.encodings.gluon import from_gluon

    gluon = IntelDPASLayout(
        repeatCount=8, systolic_depth=8, execution_size=16, ops_per_chan=2,
        warps_per_cta=[2, 2], rep_cluster=[4, 2], threads_per_warp=16,
    )  # fmt: skip
    assert from_gluon(gluon) == DpasLayout(8, 8, 16, 2, [2, 2], [4, 2], 16)


def test_triton_check_grid_has_intel_cases_answered_by_an_intel_triton_only():
    """The grid's Intel cases build through a Gluon module named ``intel`` (an Intel
    Triton's ``ttgl.intel``); without one they are refused with a reason, never compared."""
    import types

    from llverify.errors import LLVerifyError
    from llverify.triton import check

    cases = [c for c in check.default_grid() if "IntelDPASLayout" in repr(c.spec)]
    assert len(cases) == 163  # 54 DPAS layouts, their A and B operands, one slice
    with pytest.raises(LLVerifyError, match="no Gluon intel layouts"):
        check.build_gluon(cases[0].spec, {"ttgl": None, "amd": None, "intel": None})

    class Dot:
        def __init__(self, operand_index, parent, k_width):
            self.operand_index, self.parent, self.k_width = operand_index, parent, k_width

    class Slice:
        def __init__(self, dim, parent):
            self.dim, self.parent = dim, parent

    Dot.__name__, Slice.__name__ = "DotOperandLayout", "SliceLayout"
    ttgl = types.SimpleNamespace(DotOperandLayout=Dot, SliceLayout=Slice)
    modules = {
        "ttgl": ttgl,
        "amd": None,
        "intel": types.SimpleNamespace(IntelDPASLayout=IntelDPASLayout),
    }
    for case in cases:
        bases = check._llverify_bases(case, modules)
        spec = case.spec if case.family == "IntelDPASLayout" else case.spec["kwargs"]["parent"]
        kwargs = spec["kwargs"]
        parent = DpasLayout(
            8, 8, 16, kwargs["ops_per_chan"], kwargs["warps_per_cta"], kwargs["rep_cluster"],
            kwargs["threads_per_warp"],
        )  # fmt: skip
        if case.family == "IntelDPASLayout":
            expected = parent.to_linear_layout(case.shape)
        elif case.family == "DotOperandLayout":
            expected = parent.operand_layout(case.spec["kwargs"]["operand_index"], case.shape)
        else:
            expected = SliceLayout(1, parent).to_linear_layout(case.shape)
        assert bases == _bases(expected)


# ---------------------------------------------------------------------- audit

_MODULE = """#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 16], warpsPerCTA = [2, 2], order = [1, 0]}>
#dpas = #ttig.dpas<{repeatCount = 8, systolicDepth = 8, executionSize = 16, opsPerChan = 2, threadsPerWarp = TPW, warpsPerCTA = [2, 2], repCluster = [2, 2], A = [16, 16], B = [16, 32], C = [16, 32]}>
#dot0 = #ttg.dot_op<{opIdx = 0, parent = #dpas, kWidth = 1}>
#dot1 = #ttg.dot_op<{opIdx = 1, parent = #dpas, kWidth = 2}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = TPW : i32} {
  tt.func public @k(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x128xf16, #blocked>, %c: tensor<64x128xf32, #dpas>) {
    %0 = ttg.convert_layout %a : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot0>
    %1 = ttg.convert_layout %b : tensor<32x128xf16, #blocked> -> tensor<32x128xf16, #dot1>
    %2 = tt.dot %0, %1, %c : tensor<64x32xf16, #dot0> * tensor<32x128xf16, #dot1> -> tensor<64x128xf32, #dpas>
    tt.return
  }
}"""  # noqa: E501


def _fragment_finding(text):
    from llverify.audit.analyze import audit

    findings = [f for f in audit(text).findings if f.rule == "dot-operand-fragment"]
    assert len(findings) == 1
    return findings[0]


def test_audit_proves_dpas_operands_against_the_spirv_fragments():
    finding = _fragment_finding(_MODULE.replace("TPW", "16"))
    assert str(finding.status) == "proved", finding.summary
    assert "dpas 8x16x16 (16-bit) A" in finding.summary
    assert "dpas 8x16x16 (16-bit) B" in finding.summary


def test_audit_leaves_sub_group_32_unknown():
    """No vendor mapping for 32 lanes: unknown, never proved (and never an error)."""
    text = _MODULE.replace("TPW", "32").replace("[1, 16], warpsPerCTA", "[1, 32], warpsPerCTA")
    finding = _fragment_finding(text)
    assert str(finding.status) == "unknown", finding.summary
    assert "sub-group-16 mapping only" in finding.summary


_GRID = (
    (8, (2, 2), (2, 1), 2),
    (4, (1, 4), (1, 2), 1),
    (2, (4, 1), (4, 2), 4),
    (8, (1, 1), (1, 1), 1),
)


def test_operand_instruction_tiles_prove_over_a_grid():
    """The audit's tiled DPAS references (sub-group 16) equal the converter for every
    element size, M, warp grid, repCluster and repetition count sampled here."""
    from llverify.audit.dot_operands import NoReference, operand_instruction

    proved = 0
    for ops, element in ((4, "i8"), (2, "bf16"), (1, "f32")):
        for m, warps, cluster, scale in _GRID:
            dpas = DpasLayout(m, 8, 16, ops, list(warps), list(cluster), 16)
            for index in (0, 1):
                k = 8 * ops
                if index == 0:
                    shape = (m * cluster[0] * warps[0] * scale, k * scale)
                else:
                    shape = (k * scale, 16 * cluster[1] * warps[1] * scale)
                instr = operand_instruction(dpas.ttgir(), element, index, shape)
                assert not isinstance(instr, NoReference), instr
                verdict = prove_equal(dpas.operand_layout(index, shape), dict(instr.formulas))
                assert verdict.status == "proved", (ops, m, warps, cluster, index, str(verdict))
                proved += 1
    assert proved == 24


def test_operand_instruction_negative_controls():
    """Another parent's tiling is refuted (repCluster 2 along M read as 1); an element the
    parent's opsPerChan does not take and tf32 A with M 1 have no reference."""
    from llverify.audit.dot_operands import NoReference, operand_instruction

    clustered = DpasLayout(8, 8, 16, 2, [2, 1], [2, 1], 16)
    plain = DpasLayout(8, 8, 16, 2, [2, 1], [1, 1], 16)
    instr = operand_instruction(plain.ttgir(), "f16", 0, (64, 32))
    verdict = prove_equal(clustered.operand_layout(0, [64, 32]), dict(instr.formulas))
    assert verdict.status == "refuted" and verdict.counterexample["register"] == 8
    assert isinstance(operand_instruction(plain.ttgir(), "i8", 0, (64, 32)), NoReference)
    tf32 = DpasLayout(1, 8, 16, 1, [1, 1], [1, 1], 16)
    assert "ignores lanes" in operand_instruction(tf32.ttgir(), "f32", 0, (8, 8)).reason
    small = operand_instruction(plain.ttgir(), "f16", 0, (8, 16))
    assert isinstance(small, NoReference) and "smaller than one CTA tile" in small.reason


# ---------------------------------------------------------------------- atoms


def test_dpas_atoms_are_proved_and_a_wrong_reference_refuted():
    """27 sub-group-16 DPAS atoms, each operand proved; a 16-bit A read as the 8-bit
    packed-pair mapping is refuted, its counterexample replayed on the fragment."""
    from dataclasses import replace

    from llverify import atoms
    from llverify.atoms.proof import prove_operand

    assert atoms.proof_counts(["dpas"])["dpas"] == {
        "atoms": 27, "proved": 27, "refuted": 0, "unknown": 0,
    }  # fmt: skip
    atom = atoms.get("intel_sub_group_bf16_bf16_matrix_mad_k16_m8")
    assert atom.arch == ("xe-hpc", "xe2") and atom.mnk == (8, 16, 16)
    a = atom.operand("A")
    assert a.threads == 16 and a.values == 8
    wrong = replace(a, reference="sg16_a_8bit")
    verdict = prove_operand(wrong)
    assert verdict.status.value == "refuted"
    assert a.layout().apply(verdict.counterexample) == verdict.actual
    names = atoms.names("dpas")
    assert "intel_sub_group_tf32_tf32_matrix_mad_k8_m1" not in names  # see llverify.atoms.intel
    assert "intel_sub_group_u8_i8_matrix_mad_k32_m1" in names


def test_audit_refuses_the_sub_group_8_a_operand_the_backend_builds():
    """Finding, seen by the audit: for threadsPerWarp = executionSize = 8 (the DPAS layout the
    backend's AccelerateMatmul makes for Xe-HPG, test/TritonIntelGPU/accelerate-matmul-ats.mlir
    v3.7.2, whose loops convert a dot result to an A operand of it), the backend's A layout
    has 16 lane positions: module-consistency says so; B and C are consistent."""
    from llverify.audit.analyze import audit

    text = (
        _MODULE.replace("TPW", "8")
        .replace("executionSize = 16", "executionSize = 8")
        .replace("[1, 16], warpsPerCTA = [2, 2]", "[1, 8], warpsPerCTA = [4, 1]")
        .replace(
            "warpsPerCTA = [2, 2], repCluster = [2, 2], A = [16, 16], B = [16, 32], C = [16, 32]",
            "warpsPerCTA = [4, 1], repCluster = [1, 1], A = [8, 16], B = [16, 8], C = [8, 8]",
        )  # fmt: skip
        .replace("32x128xf16", "16x8xf16")
        .replace("64x128xf32", "64x8xf32")
    )
    findings = [f for f in audit(text).findings if str(f.status) == "error"]
    assert findings and all(f.rule == "module-consistency" for f in findings)
    assert all("64x32xf16, #ttg.dot_op" in f.summary for f in findings)
    assert all("16 threads per warp" in f.summary and "= 8" in f.summary for f in findings)


# ---------------------------------------------------------------------- SLM bank model


def _row_major(rows, cols):
    from llverify.encodings import SwizzledSharedLayout

    return SwizzledSharedLayout(1, 1, 1, [1, 0]).to_linear_layout([rows, cols])


def test_slm_model_reproduces_the_guides_two_examples():
    """oneAPI GPU Optimization Guide, "Bank Conflicts": 16 work-items on ``slm[j * 16]``
    (ints) are 16-way serialized; on ``slm[j]`` conflict-free."""
    from llverify.encodings import BlockedLayout
    from llverify.shared_memory.intel_slm import slm_bank_conflicts

    shared = _row_major(16, 16)
    strided = BlockedLayout([1, 16], [16, 1], [1, 1], [1, 0])  # lane j: row j, all columns
    result = slm_bank_conflicts(strided, shared, [16, 16], 32)
    assert (result.ways, result.steps, result.accesses) == (16, 256, 16)
    assert result.worst == {"warp": 0, "register": 0, "bank": 0,
                            "words": [16 * j for j in range(16)]}  # fmt: skip
    contiguous = BlockedLayout([16, 1], [1, 16], [1, 1], [1, 0])  # lane j: column j
    result = slm_bank_conflicts(contiguous, shared, [16, 16], 32)
    assert (result.ways, result.steps, result.accesses, result.same_word) == (1, 16, 16, False)


def test_slm_model_on_dpas_accumulators():
    """The DPAS accumulator (lane = column) stored row-major is conflict-free; stored
    column-major (offset = column * 8 + row) its 16 lanes fall on 2 banks: 8 ways."""
    from llverify.encodings import SwizzledSharedLayout
    from llverify.shared_memory.intel_slm import slm_bank_conflicts

    dpas = DpasLayout(8, 8, 16, 2, [1, 1], [1, 1], 16)
    assert slm_bank_conflicts(dpas, _row_major(8, 16), [8, 16], 32).ways == 1
    column_major = SwizzledSharedLayout(1, 1, 1, [0, 1]).to_linear_layout([8, 16])
    result = slm_bank_conflicts(dpas, column_major, [8, 16], 32)
    assert result.ways == 8 and len(result.worst["words"]) == 8
    # 16-bit elements: two lanes per 4-byte word, counted once (8 words on 8 banks)
    half = slm_bank_conflicts(dpas, _row_major(8, 16), [8, 16], 16)
    assert half.ways == 1 and half.same_word


def test_slm_model_refuses_what_the_source_does_not_cover():
    from llverify.errors import LayoutError
    from llverify.shared_memory.intel_slm import slm_bank_conflicts

    dpas32 = DpasLayout(8, 8, 16, 2, [1, 1], [1, 1], 32)
    with pytest.raises(LayoutError, match="must have 16 lanes"):
        slm_bank_conflicts(dpas32, _row_major(8, 16), [8, 16], 32)
    dpas = DpasLayout(8, 8, 16, 2, [1, 1], [1, 1], 16)
    with pytest.raises(LayoutError, match="wider accesses are not in the source"):
        slm_bank_conflicts(dpas, _row_major(8, 16), [8, 16], 64)
