"""The light bank-conflict queries (issue 26): ``bank_conflicts`` without the rest of the
access analysis, ``warp_bank_conflicts`` on one warp's addresses, the pure-Python warp count
and the column-read vectorisation must give exactly what the full analysis, the array
simulator and Triton's ``largestVectorisation`` give; plus the hardware facts that
tensor-layouts gets wrong (passes of 64/128-bit accesses) and the argument checks."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cases.access import random_pair, reg_layout, shared_from_bases
from llverify import LinearLayout, bank_conflicts, warp_bank_conflicts
from llverify.errors import LayoutError, LayoutTypeError
from llverify.hardware import BANK_MODELS
from llverify.layout_utils import largest_vectorisation
from llverify.shared_memory.access import access_analysis
from llverify.shared_memory.register_to_offset import _offset_vectorisation
from llverify.shared_memory.wavefronts import count_wavefronts, warp_wavefronts

TARGETS = ("nvidia", "gfx942", "gfx950")


def _scalar_pattern(offsets: list[int]) -> tuple[LinearLayout, LinearLayout, list[int]]:
    """(register layout, shared layout, shape): lane ``l`` holds element ``offsets[l]`` of
    a 1-D tensor stored at offset = element (``offsets`` linear in the lane)."""
    size = 1 << max(offsets).bit_length()
    lanes = [[offsets[1 << i]] for i in range(len(offsets).bit_length() - 1)]
    reg = LinearLayout.from_bases(
        [("register", []), ("lane", lanes), ("warp", [])], ["dim0"], [size], False
    )
    return reg, LinearLayout.identity_1d(size, "offset", "dim0"), [size]


# ---------------------------------------------------------------- same results as before


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rows=st.integers(1, 6),
    cols=st.integers(1, 6),
    bits=st.sampled_from([8, 16, 32, 64, 128]),
)
def test_bank_conflicts_is_the_full_analysis_answer(
    seed: int, rows: int, cols: int, bits: int
) -> None:
    if rows + cols < 5:
        rows = 5 - cols
    reg, offset, shape = random_pair(random.Random(seed), rows, cols)
    args = (reg_layout(reg, shape), shared_from_bases(offset, shape), shape, bits)
    assert bank_conflicts(*args) == access_analysis(*args).bank_conflicts


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_bank_conflicts_is_the_full_analysis_answer_wave64(target: str) -> None:
    rng = random.Random(3)
    for _ in range(40):
        units = [[1 << i, 0] for i in range(6)] + [[0, 1 << i] for i in range(6)]
        rng.shuffle(units)
        reg = {"reg": units[:4], "lane": units[4:10], "warp": units[10:]}
        offset = [[1 << i, 0] for i in range(6)] + [[i & 7, 1 << i] for i in range(6)]
        args = (reg_layout(reg, [64, 64]), shared_from_bases(offset, [64, 64]), [64, 64], 16)
        assert bank_conflicts(*args, target) == access_analysis(*args, target).bank_conflicts


def test_bank_conflicts_of_a_padded_layout_is_the_simulator() -> None:
    reg = (
        "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
        "order = [0, 1]}>"
    )
    padded = "#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [128, 64]}>"
    got = bank_conflicts(reg, padded, [128, 64], 16)
    assert got == access_analysis(reg, padded, [128, 64], 16).bank_conflicts
    assert got.source == "simulator" and got.triton is None


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    bits=st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128]),
    out_log2=st.integers(0, 10),
)
def test_offset_vectorisation_is_largest_vectorisation(seed: int, bits: int, out_log2: int) -> None:
    """Registers holding 1, 2, 4.. in any order, duplicated, zero or odd, and lanes that are
    multiples of the vector or not: the column read equals Triton's division."""
    rng = random.Random(seed)
    size = 1 << out_log2
    pool = [0, 1, 2, 4, 8, 16, 3, 6, size - 1] + [rng.randrange(size) for _ in range(4)]
    regs = [[rng.choice(pool) % size] for _ in range(rng.randint(0, 7))]
    lanes = [[rng.choice(pool) % size & ~rng.choice([0, 1, 3, 7])] for _ in range(5)]
    cvt = LinearLayout.from_bases(
        [("register", regs), ("lane", lanes), ("warp", [[rng.randrange(size)]])],
        ["offset"],
        [size],
        require_surjective=False,
    )
    assert _offset_vectorisation(cvt, bits) == largest_vectorisation(cvt, bits)


def test_offset_vectorisation_leaves_other_layouts_to_largest_vectorisation() -> None:
    cvt = LinearLayout.from_bases([("register", [[1, 0]]), ("lane", [[0, 1]])], ["offset", "x"])
    assert _offset_vectorisation(cvt, 16) == largest_vectorisation(cvt, 16)
    one = LinearLayout.from_bases([("register", [[1]])], ["offset"])
    with pytest.raises(LayoutError, match="must divide 128"):
        _offset_vectorisation(one, 48)


@pytest.mark.parametrize("seed", range(60))
def test_warp_count_equals_the_array_simulator(seed: int) -> None:
    """Addresses at random (not linear, repeats for broadcast), every element width the
    simulator takes (24 and 48 bits: elements straddling words), every pass shape."""
    rng = random.Random(seed)
    bits = rng.choice([1, 4, 8, 16, 24, 32, 48, 64, 128])
    lanes = rng.choice([32, 64])
    banks = rng.choice([32, 64])
    passes = rng.choice([[1, 2, 4, 8, 16], [1, 2, 4, 8], [1, 2, 4], [1, 2], [1, 2, 4 ^ 16]])
    addresses = [rng.randrange(rng.choice([4, 64, 4096])) for _ in range(lanes)]
    expected = count_wavefronts(np.array(addresses).reshape(1, lanes, 1), 1, bits, banks, passes)
    assert warp_wavefronts(addresses, bits, banks, passes) == expected


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("bits", [8, 16, 32, 64, 128])
def test_warp_query_equals_the_layout_query_on_linear_patterns(target: str, bits: int) -> None:
    rng = random.Random(bits)
    lanes = BANK_MODELS[target].lanes
    for _ in range(30):
        bases = [rng.choice([0, 1 << rng.randrange(12), rng.randrange(4096)]) for _ in range(6)]
        offsets = [0] * lanes
        for lane in range(lanes):
            for i, basis in enumerate(bases):
                if lane >> i & 1:
                    offsets[lane] ^= basis
        if not any(offsets):
            continue
        got = warp_bank_conflicts(offsets, bits, target)
        assert got.homogeneous
        assert got.conflicts == bank_conflicts(*_scalar_pattern(offsets), bits, target).conflicts


# ---------------------------------------------------------------- hardware facts


def test_wide_accesses_run_in_passes() -> None:
    """The facts tensor-layouts gets wrong: 128-bit accesses of consecutive lanes take 4
    passes of 8 lanes and no conflict (it reports 4-way); 64-bit, 2 passes of 16."""
    assert warp_bank_conflicts(list(range(32)), 128).wavefronts == 4
    assert warp_bank_conflicts(list(range(32)), 128).conflicts == 0
    assert warp_bank_conflicts(list(range(32)), 64).wavefronts == 2
    stride2 = warp_bank_conflicts([2 * lane for lane in range(32)], 128)
    assert (stride2.conflicts, stride2.wavefronts, stride2.colliding_lanes) == (1, 8, (0, 4))


def test_negative_controls_are_counted() -> None:
    """Every lane in bank 0 (32-bit, stride 32) is 32-way; a broadcast is free; a padded
    stride (33) is conflict-free; a non-linear pattern with one collision is found."""
    same_bank = warp_bank_conflicts([32 * lane for lane in range(32)], 32)
    assert (same_bank.conflicts, same_bank.colliding_lanes) == (31, tuple(range(32)))
    assert warp_bank_conflicts([0] * 32, 32).conflicts == 0
    assert warp_bank_conflicts([33 * lane for lane in range(32)], 32).conflicts == 0
    offsets = [3 * lane for lane in range(32)]
    offsets[5] = 32 + 3  # lane 5 now shares bank 3 with lane 1 (word 3), another word
    one = warp_bank_conflicts(offsets, 32)
    assert (one.conflicts, one.colliding_lanes) == (1, (1, 5))


def test_warp_query_checks_its_arguments() -> None:
    with pytest.raises(LayoutError, match="one address per lane"):
        warp_bank_conflicts(list(range(64)), 32)
    with pytest.raises(LayoutError, match=">= 0"):
        warp_bank_conflicts([-1] + list(range(31)), 32)
    with pytest.raises(LayoutTypeError, match=r"addresses\[3\]"):
        warp_bank_conflicts([0, 1, 2, 3.0] + list(range(28)), 32)
    with pytest.raises(LayoutTypeError, match="'addresses'"):
        warp_bank_conflicts("0123", 32)
    with pytest.raises(LayoutError, match="element_bits"):
        warp_bank_conflicts(list(range(32)), 256)
    with pytest.raises(LayoutError, match="target"):
        warp_bank_conflicts(list(range(32)), 32, "sm90")
    assert warp_bank_conflicts(np.arange(64), 32, "gfx942").conflicts == 0
