"""llverify.wavefronts: the hardware wavefront model, against the recorded H100 run.

The recorded run (benchmarks/gpu/results/h100, Nsight Compute on an H100 with Triton 3.6) is
replayed here without a GPU: every prediction is recomputed from the layouts and compared with
the measured hardware counters of that run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from llverify import LinearLayout
from llverify.errors import LayoutError
from llverify.swizzle import constructive_swizzle
from llverify.wavefronts import matrix_lowering, predict_wavefronts

ROOT = Path(__file__).resolve().parents[1]
GPU = ROOT / "benchmarks" / "gpu"
CASES = json.loads((GPU / "results" / "bank_cases.json").read_text())


def layout(bases: dict, n: int) -> LinearLayout:
    return LinearLayout.from_bases(list(bases.items()), ["dim0"], [n], require_surjective=False)


def identity(n: int) -> LinearLayout:
    return LinearLayout.from_bases(
        [("offset", [[1 << i] for i in range(n.bit_length() - 1)])], ["dim0"]
    )


def lanes_layout(lanes: list[int], regs: list[int]) -> LinearLayout:
    return LinearLayout.from_bases(
        [("register", [[r] for r in regs]), ("lane", [[x] for x in lanes]), ("warp", [])],
        ["dim0"],
    )


def test_lane_pair_broadcast_halves_load_passes_not_store_passes() -> None:
    # f64, one element per lane, lanes 0 and 1 read the same address: 16 distinct words
    reg = lanes_layout([0, 1, 2, 4, 8], [])
    shared = identity(16)
    assert predict_wavefronts(reg, shared, [16], 64, "load").wavefronts == 1
    assert predict_wavefronts(reg, shared, [16], 64, "store").wavefronts == 2
    # broadcast in lane bit 1 merges too; in lane bit 2 it does not
    assert (
        predict_wavefronts(lanes_layout([1, 0, 2, 4, 8], []), shared, [16], 64, "load").wavefronts
        == 1
    )
    assert (
        predict_wavefronts(lanes_layout([1, 2, 0, 4, 8], []), shared, [16], 64, "load").wavefronts
        == 2
    )
    # negative control: two lane bits with one equal non-zero offset do not merge
    equal = lanes_layout([1, 1, 2, 4, 8], [16])
    assert predict_wavefronts(equal, identity(32), [32], 64, "load").wavefronts == 4


def test_128_bit_column_reads_conflict_within_each_quarter_warp_pass() -> None:
    # each lane reads 4 f32 of its own 128-byte row: every row starts in bank 0, so each
    # pass of 8 lanes needs 8 wavefronts; 4 passes per instruction, 8 instructions
    rows = lanes_layout([32, 64, 128, 256, 512], [1, 2, 4, 8, 16])
    prediction = predict_wavefronts(rows, identity(1024), [1024], 32, "load", matrix=False)
    assert prediction.instruction == "ld.shared (128 bits per lane)"
    assert (prediction.instructions, prediction.wavefronts) == (8, 8 * 4 * 8)


def test_ldmatrix_is_chosen_like_triton_and_costs_one_wavefront_per_matrix() -> None:
    # mma-like f16 fragment: 2 contiguous elements per register, lanes 0-1 walk 16 bytes
    cvt = LinearLayout.from_bases(
        [("register", [[1], [64]]), ("lane", [[2], [4], [8], [16], [32]]), ("warp", [])],
        ["offset"],
    )
    lowering = matrix_lowering(cvt, 16, "load")
    assert lowering is not None and not lowering.transposed
    reg = LinearLayout.from_bases(
        [("register", [[1], [64]]), ("lane", [[2], [4], [8], [16], [32]]), ("warp", [])],
        ["dim0"],
    )
    p = predict_wavefronts(reg, identity(128), [128], 16, "load")
    assert (p.instruction, p.instructions, p.wavefronts) == ("ldmatrix.x2", 1, 2)
    # transposed: lanes 2-4 walk a 16-byte row, lanes 0-1 broadcast (Triton still uses it)
    trans = LinearLayout.from_bases(
        [("register", [[8], [16], [32]]), ("lane", [[0], [0], [1], [2], [4]]), ("warp", [])],
        ["dim0"],
    )
    p = predict_wavefronts(trans, identity(64), [64], 16, "store")
    assert (p.instruction, p.instructions, p.wavefronts) == ("stmatrix.x4.trans", 1, 4)
    assert predict_wavefronts(trans, identity(64), [64], 16, "store", matrix=False).instruction == (
        "st.shared (16 bits per lane)"
    )
    # 64-bit elements never use ldmatrix
    assert matrix_lowering(cvt, 64, "load") is None


def test_bad_direction_is_a_clear_error() -> None:
    reg = lanes_layout([1, 2, 4, 8, 16], [])
    with pytest.raises(LayoutError, match="'direction'"):
        predict_wavefronts(reg, identity(32), [32], 32, "sideways")
    assert issubclass(LayoutError, ValueError)


def measured() -> list[tuple[dict, str, dict]]:
    sys.path.insert(0, str(GPU))
    try:
        from analyze_bank_results import table
    finally:
        sys.path.remove(str(GPU))
    rows = table(GPU / "results" / "h100")
    return [(CASES[r["case"]], r["variant"], r) for r in rows]


def test_recorded_h100_run_equals_the_predictions_recomputed_now() -> None:
    """Every unswizzled, llverify-swizzled and probe kernel of the H100 run: predicted store
    and load wavefronts and instructions (recomputed from the layouts) == measured."""
    rows = measured()
    explicit = [(case, variant, row) for case, variant, row in rows if variant != "triton"]
    assert len(explicit) == 60 + 90
    for case, variant, row in explicit:
        n, bits = case["n"], case["bits"]
        shared = LinearLayout.from_bases(
            [("offset", case["variants"][variant]["offset_bases"])], ["dim0"]
        )
        store = predict_wavefronts(layout(case["src"], n), shared, [n], bits, "store")
        load = predict_wavefronts(layout(case["dst"], n), shared, [n], bits, "load")
        got = (store.wavefronts, store.instructions, load.wavefronts, load.instructions)
        assert got == (row["st"], row["st_instr"], row["ld"], row["ld_instr"]), (
            case["name"],
            variant,
        )
        assert row["roundtrip"]


def test_recorded_triton_default_kernels_match_where_triton_used_plain_ld_st() -> None:
    """convert_layout: predicted on the port of Triton's ld/st swizzle.  Triton 3.6 picked
    ldmatrix/stmatrix tile pairs (not ported) in exactly five kernels; all others agree."""
    mismatched = []
    for case, variant, row in measured():
        if variant != "triton":
            continue
        n, bits = case["n"], case["bits"]
        src, dst = layout(case["src"], n), layout(case["dst"], n)
        shared = constructive_swizzle(src, dst, [n], bits)
        store = predict_wavefronts(src, shared, [n], bits, "store")
        load = predict_wavefronts(dst, shared, [n], bits, "load")
        got = (store.wavefronts, store.instructions, load.wavefronts, load.instructions)
        if got != (row["st"], row["st_instr"], row["ld"], row["ld_instr"]):
            mismatched.append(case["case"])
    assert mismatched == [0, 2, 5, 12, 19]
