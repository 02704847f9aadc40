"""llverify.shared_memory.predict: the hardware wavefront model, against the recorded H100 run.

The recorded run (benchmarks/gpu/results/h100, Nsight Compute on an H100 with Triton 3.6) is
replayed here without a GPU: every prediction is recomputed from the layouts and compared with
the measured hardware counters of that run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cases.scripts import load_script
from llverify import LinearLayout, gf2
from llverify.errors import LayoutError
from llverify.shared_memory.predict import matrix_lowering, predict_wavefronts
from llverify.shared_memory.swizzle import convert_layout_swizzle

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
    prediction = predict_wavefronts(
        rows, identity(1024), [1024], 32, "load", instruction="ld/st.shared"
    )
    assert prediction.instruction == "ld.shared (128 bits per lane)"
    assert (prediction.instructions, prediction.wavefronts) == (8, 8 * 4 * 8)


def test_ldmatrix_is_chosen_like_triton_and_costs_one_wavefront_per_matrix() -> None:
    # mma-like f16 fragment: 2 contiguous elements per register, lanes 0-1 walk 16 bytes
    cvt = LinearLayout.from_bases(
        [("register", [[1], [64]]), ("lane", [[2], [4], [8], [16], [32]]), ("warp", [])],
        ["offset"],
    )
    lowering = matrix_lowering(cvt, 16)
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
    assert predict_wavefronts(
        trans, identity(64), [64], 16, "store", instruction="ld/st.shared"
    ).instruction == ("st.shared (16 bits per lane)")
    # 64-bit elements never use ldmatrix
    assert matrix_lowering(cvt, 64) is None


def test_bad_direction_is_a_clear_error() -> None:
    reg = lanes_layout([1, 2, 4, 8, 16], [])
    with pytest.raises(LayoutError, match="'direction'"):
        predict_wavefronts(reg, identity(32), [32], 32, "sideways")
    assert issubclass(LayoutError, ValueError)


def test_reps_must_be_a_power_of_2_within_the_registers() -> None:
    reg = lanes_layout([1, 2, 4, 8, 16], [32, 64])  # 4 registers
    cases = ((3, "power of 2"), (8, "at most the 4 registers"), (2**4000, "2\\*\\*30"))
    for reps, expected in cases:
        with pytest.raises(LayoutError, match=f"'reps' must be.*{expected}"):
            predict_wavefronts(reg, identity(128), [128], 32, "store", reps=reps)
    with pytest.raises(LayoutError, match="'element_bits' must be one of"):
        predict_wavefronts(reg, identity(128), [128], 0, "store")


RUNS = {
    "h100": ("bank_cases.json", 60 + 90 + 30),
    "h100_heldout": ("bank_cases_heldout.json", 64 + 32),
    "h200": ("bank_cases.json", 60 + 90 + 30),
}


def measured(run: str = "h100") -> list[tuple[dict, str, dict]]:
    table = load_script("benchmarks/gpu/analyze_bank_results.py").table
    cases_file, _ = RUNS[run]
    cases = json.loads((GPU / "results" / cases_file).read_text())
    rows = table(GPU / "results" / run, GPU / "results" / cases_file)
    return [(cases[r["case"]], r["variant"], r) for r in rows]


@pytest.mark.parametrize("run", sorted(RUNS))
def test_recorded_h100_runs_equal_the_predictions_recomputed_now(run: str) -> None:
    """Every kernel of the H100 runs (unswizzled, llverify-swizzled, probes, and Triton's
    convert_layout on :func:`convert_layout_swizzle`'s layout and instructions): predicted
    store and load wavefronts and instructions, recomputed from the layouts, == measured.
    ``h100_heldout`` was predicted and committed before it was measured."""
    rows = measured(run)
    assert len(rows) == RUNS[run][1]
    for case, variant, row in rows:
        n, bits = case["n"], case["bits"]
        src, dst = layout(case["src"], n), layout(case["dst"], n)
        if variant == "triton":
            choice = convert_layout_swizzle(src, dst, [n], bits)
            shared, kinds, reps = choice.layout, (choice.store, choice.load), choice.reps
        else:
            bases = case["variants"][variant]["offset_bases"]
            shared = LinearLayout.from_bases([("offset", bases)], ["dim0"])
            kinds, reps = ("auto", "auto"), 1
        store = predict_wavefronts(src, shared, [n], bits, "store", instruction=kinds[0], reps=reps)
        load = predict_wavefronts(dst, shared, [n], bits, "load", instruction=kinds[1], reps=reps)
        got = (store.wavefronts, store.instructions, load.wavefronts, load.instructions)
        assert got == (row["st"], row["st_instr"], row["ld"], row["ld_instr"]), (
            case["name"],
            variant,
        )
        assert row["roundtrip"]


def test_recorded_triton_kernels_include_ldmatrix_and_stmatrix_tile_pairs() -> None:
    """The convert_layout kernels exercise the tile-pair path: 8 of the 30 (h100) use
    ldmatrix/stmatrix, and the SASS says so."""
    matrix = []
    for case, variant, row in measured():
        if variant == "triton" and "matrix" in row["st_instruction"] + row["ld_instruction"]:
            matrix.append(case["case"])
    assert matrix == [0, 2, 5, 11, 12, 16, 19, 28]


def test_convert_layout_instruction_choice_equals_triton_39_ptx(tmp_path: Path) -> None:
    """benchmarks/gpu/convert_check.py on the CPU: for 60 seeded sweep pairs, the kinds and
    numbers of shared-memory instructions in Triton 3.9's PTX for convert_layout equal
    llverify's prediction (st.shared / stmatrix / stmatrix.trans and the loads)."""
    import os
    import subprocess

    from cases.triton import require_triton

    require_triton()
    out = tmp_path / "convert.json"
    env = {**os.environ, "TRITON_DEFAULT_FP_FUSION": "1"}
    run = subprocess.run(
        [sys.executable, str(GPU / "convert_check.py"), "--pairs", "60", "--out", str(out)],
        capture_output=True, text=True, timeout=900, env=env,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    summary = json.loads(out.read_text())["summary"]
    assert summary["triton"].startswith("3.9")
    assert summary["pairs"] == summary["agree"] == 60
    assert summary["matrix_pairs"] >= 10  # the tile-pair path is exercised


def test_convert_layout_swizzle_checks_its_arguments_and_never_uses_matrices_for_f64() -> None:
    src = lanes_layout([1, 2, 4, 8, 16], [32])
    dst = lanes_layout([2, 4, 8, 16, 32], [1])
    with pytest.raises(LayoutError, match="element_bits"):
        convert_layout_swizzle(src, dst, [64], 12)
    with pytest.raises(LayoutError, match="shape"):
        convert_layout_swizzle(src, dst, [32], 32)
    choice = convert_layout_swizzle(src, dst, [64], 64)
    assert (choice.store, choice.load) == ("ld/st.shared", "ld/st.shared")
    offsets = [b[0] for b in choice.layout.bases[0][1]]
    assert len(offsets) == 6 and gf2.rank(offsets) == 6  # a bijection of the 64 elements
