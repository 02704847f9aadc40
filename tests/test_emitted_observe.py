"""observe_accesses: observed shared-memory instructions, wavefronts and bytes against
shared_memory.predict / shared_memory.lowering (issue 19 part 6).  One sweep case is compiled
once."""

from __future__ import annotations

import numpy as np
import pytest

from cases.emitted_sweep import sweep_cases
from cases.scripts import load_script
from cases.triton import require_triton
from llverify.shared_memory.wavefronts import count_wavefronts

observe = load_script("scripts/observe_accesses.py")
Comparison = observe.Comparison
_vectorise = observe._vectorise
compare_module = observe.compare_module
observe_records = observe.observe_records
predict_access = observe.predict_access
ptx_shared_instructions = observe.ptx_shared_instructions

# stored with st.shared.v4 (128 bits), loaded with ldmatrix.x4: both kinds in one compile
CASE = "blocked-convert-f16-w2x1-cuda90-v1"


@pytest.fixture(scope="module")
def rows() -> list[Comparison]:
    require_triton()
    case = next(c for c in sweep_cases() if c.name == CASE)
    return compare_module(case.text)


def test_the_sweep_case_agrees_in_instruction_count_wavefronts_and_bytes(
    rows: list[Comparison],
) -> None:
    by_direction = {row.direction: row for row in rows}
    assert set(by_direction) == {"store", "load"}
    store, load = by_direction["store"], by_direction["load"]
    assert store.observed.instruction == "st.shared (128 bits per lane)"
    assert load.observed.instruction == "ldmatrix.x4"
    for row in rows:
        assert row.agree, row.disagreements
        assert row.predicted is not None
        assert row.observed.addresses == row.predicted.addresses
        assert any(row.observed.addresses)


def test_a_wrong_prediction_is_reported_with_the_threads_that_differ(
    rows: list[Comparison],
) -> None:
    _differences = observe._differences

    store = next(row for row in rows if row.direction == "store")
    case = next(c for c in sweep_cases() if c.name == CASE)
    blocked = case.text.split("\n")[0].split(" = ", 1)[1]
    plain = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
    wrong = predict_access(blocked, plain, [32, 64], 16, "store")
    found = _differences(store.observed, wrong)
    assert any("bytes touched differ" in d for d in found), found


def _ldst(direction: str, nbytes: int, addresses: np.ndarray) -> tuple:
    threads = np.arange(addresses.size)
    return (direction, 3, nbytes, threads, addresses.astype(np.int64), "x")


@pytest.mark.parametrize("nbytes", [4, 8, 16])
def test_full_warp_ld_st_wavefronts_equal_the_simulator(nbytes: int) -> None:
    rng = np.random.default_rng(nbytes)
    starts = rng.integers(0, 256, size=64) * nbytes  # 2 warps of 32 lanes
    observed = observe_records([_ldst("store", nbytes, starts)], "store", 64, 32)
    grid = (starts[:, None] + np.arange(nbytes)[None, :]).reshape(2, 32, nbytes)
    per_pass = 32 // max(1, nbytes // 4)
    lanes = [1 << i for i in range(per_pass.bit_length() - 1)]
    assert observed.wavefronts == count_wavefronts(grid, nbytes, 8, 32, lanes).wavefronts
    assert observed.instructions == 2
    assert observed.instruction == f"st.shared ({8 * nbytes} bits per lane)"


def test_a_128_bit_load_with_lane_0_broadcast_takes_half_the_passes() -> None:
    starts = (np.arange(32) // 2) * 16  # lanes l and l ^ 1 read one address
    load = observe_records([_ldst("load", 16, starts)], "load", 32, 32)
    store = observe_records([_ldst("store", 16, starts)], "store", 32, 32)
    assert (load.wavefronts, store.wavefronts) == (2, 4)


def test_ldmatrix_costs_distinct_rows_per_bank_group_and_yields_the_fragment_bytes() -> None:
    lanes = np.arange(32)
    free = ("ldmatrix.x4", 3, 16, lanes, lanes * 16, "x")  # 32 rows, 4 per bank group
    clash = ("ldmatrix.x4", 3, 16, lanes, lanes * 128, "x")  # every row in group 0
    assert observe_records([free], "load", 32, 32).wavefronts == 4
    assert observe_records([clash], "load", 32, 32).wavefronts == 32
    access = observe_records([free], "load", 32, 32)
    # lane 5, register 0: row 1 of matrix 0, bytes 4..7 of it; register 1: matrix 1
    assert sorted(access.addresses[5])[:8] == [20, 21, 22, 23, 148, 149, 150, 151]
    trans = ("ldmatrix.x1.trans", 3, 4, lanes, lanes * 16, "x")
    # transposed: lane 5 holds element 1 (bytes 2-3) of rows 2 and 3
    assert sorted(observe_records([trans], "load", 32, 32).addresses[5]) == [34, 35, 50, 51]


def test_adjacent_accesses_merge_only_when_aligned_to_the_merged_size() -> None:
    threads = np.arange(32)
    low = ("load", 3, 4, threads, threads * 8, "a")
    high = ("load", 3, 4, threads, threads * 8 + 4, "b")
    assert [r[2] for r in _vectorise([(low, 8), (high, 4)])] == [8]
    odd = ("load", 3, 4, threads, threads * 8 + 4, "a")  # 4-aligned only
    next_odd = ("load", 3, 4, threads, threads * 8 + 8, "b")
    assert [r[2] for r in _vectorise([(odd, 4), (next_odd, 4)])] == [4, 4]
    assert [r[2] for r in _vectorise([(low, 4), (high, 4)])] == [8]  # every address 8-aligned
    apart = ("load", 3, 4, threads, threads * 8 + 5, "c")
    assert [r[2] for r in _vectorise([(low, 8), (apart, 4)])] == [4, 4]


def test_ptx_instructions_are_named_like_the_trace() -> None:
    text = (
        "\t.loc\t1 7 3\n\tst.shared.v4.b32 \t[%r1], {%r2, %r3, %r4, %r5};\n"
        "\t@%p1 ld.shared.b16 %rs1, [%r1];\n"
        "\t.loc\t2 9 0\n\tldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r1, %r2}, [%r3];\n"
    )
    found = ptx_shared_instructions(text)
    assert dict(found[(7, 3)]) == {
        "st.shared (128 bits per lane)": 1,
        "ld.shared (16 bits per lane)": 1,
    }
    assert dict(found[(9, 0)]) == {"ldmatrix.x2.trans": 1}


def test_no_records_is_no_shared_memory_like_a_shuffle_prediction() -> None:
    access = observe_records([], "load", 64, 32)
    assert (access.instruction, access.instructions, access.wavefronts) == ("none", 0, 0)
    assert not any(access.addresses)
