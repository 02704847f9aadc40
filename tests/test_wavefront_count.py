"""Unit tests of llverify.shared_memory.wavefronts, the one owner of wavefront counting.

The vectorised simulator (``count_wavefronts``) is checked against a per-pass count built
from the module's own pieces (``pass_span``, ``word_bounds``, ``bank_words``,
``pass_conflicts``: what the bank map draws), and against the algebraic counts on linear
lane addresses, where Lemma 9.4 makes them exact.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from llverify import LinearLayout
from llverify.errors import LayoutError
from llverify.shared_memory.wavefronts import (
    access_addresses,
    bank_words,
    count_wavefronts,
    hardware_conflicts,
    instruction_addresses,
    linear_matrix_wavefronts,
    linear_wavefronts,
    matrix_wavefronts,
    pass_conflicts,
    pass_count,
    pass_span,
    total_wavefronts,
    triton_conflicts,
    word_bounds,
)

PASS_BASES = ([1, 2, 4, 8, 16], [1, 2, 4, 8], [1, 2, 4], [1, 2], [1, 2, 4 ^ 16])


def _per_pass(
    addresses: np.ndarray, vec: int, bits: int, banks: int, basis: list[int]
) -> list[int]:
    """Wavefronts of every (warp, instruction, pass), one pass at a time."""
    warps, lanes, registers = addresses.shape
    first_pass = pass_span(basis)
    cosets = sorted({min(lane ^ s for s in first_pass) for lane in range(lanes)})
    out = []
    for warp in range(warps):
        for instr in range(registers // vec):
            for rep in cosets:
                words = []
                for lane in (rep ^ s for s in first_pass):
                    for r in range(instr * vec, (instr + 1) * vec):
                        first, last = word_bounds(int(addresses[warp, lane, r]), bits)
                        words += range(first, last + 1)
                out.append(1 + pass_conflicts(bank_words(words, banks)))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_simulator_equals_per_pass_count(seed: int) -> None:
    rng = random.Random(seed)
    bits = rng.choice([8, 16, 32, 64])
    vec = rng.choice([v for v in (1, 2, 4, 8) if v * bits <= 128])
    banks = rng.choice([32, 64])
    basis = rng.choice(PASS_BASES)
    warps, registers = rng.choice([1, 2]), vec * rng.choice([1, 2])
    addresses = np.array(
        [rng.randrange(4096) for _ in range(warps * 32 * registers)], dtype=np.int64
    ).reshape(warps, 32, registers)
    count = count_wavefronts(addresses, vec, bits, banks, basis)
    expected = _per_pass(addresses, vec, bits, banks, basis)
    assert count.wavefronts == sum(expected)
    assert count.max_per_pass == max(expected)
    assert count.min_wavefronts == len(expected)
    assert count.homogeneous == (len(set(expected)) == 1)
    assert len(expected) == warps * (registers // vec) * pass_count(32, basis)


@pytest.mark.parametrize("seed", range(40))
def test_algebra_equals_simulator_on_linear_addresses(seed: int) -> None:
    """32-bit elements, one per lane, addresses linear (XOR) in the lane: the hardware count
    of the pass lanes' offsets is the simulator's, and Triton's agrees (whole words)."""
    rng = random.Random(seed)
    lane_bases = [rng.choice([0, rng.randrange(1 << 12)]) for _ in range(5)]  # 0: broadcast
    addresses = np.zeros(32, dtype=np.int64)
    for lane in range(32):
        for i, b in enumerate(lane_bases):
            if lane >> i & 1:
                addresses[lane] ^= b
    count = count_wavefronts(addresses.reshape(1, 32, 1), 1, 32, 32, [1, 2, 4, 8, 16])
    assert count.conflicts == hardware_conflicts(lane_bases, 32)
    assert hardware_conflicts(lane_bases, 32) == triton_conflicts(lane_bases, 32)


def test_pieces() -> None:
    assert pass_span([1, 2]) == (0, 1, 2, 3)
    assert pass_count(64, [1, 2, 4 ^ 8, 4 ^ 16]) == 4
    assert total_wavefronts(3, 4, 0) == 12 and total_wavefronts(1, 1, 7) == 8
    first, last = word_bounds(np.array([0, 1, 2, 3]), 8)
    assert first.tolist() == last.tolist() == [0, 0, 0, 0]
    assert word_bounds(5, 64) == (10, 11)
    assert bank_words([], 32) == {} and pass_conflicts({}) == 0
    assert bank_words([64, 0, 0, 33], 32) == {0: (0, 64), 1: (33,)}


def test_access_addresses_evaluate_the_conversion() -> None:
    cvt = LinearLayout.from_bases(
        [("register", [[1], [64]]), ("lane", [[2], [4], [8], [16], [32]]), ("warp", [[128]])],
        ["offset"],
    )
    addresses = access_addresses(cvt)
    assert addresses.shape == (2, 32, 4)
    for warp, lane, reg in [(0, 0, 0), (1, 5, 3), (0, 31, 2), (1, 17, 1)]:
        expected = cvt.apply({"register": reg, "lane": lane, "warp": warp})["offset"]
        assert addresses[warp, lane, reg] == expected


def test_matrix_wavefronts_rows_per_bank_group() -> None:
    # 16-bit, 8 registers per matrix: lane l reads row l (16 bytes): 32 rows, 4 per group.
    rows = (np.arange(32)[:, None] * 8 + np.arange(8)).reshape(1, 32, 8)
    assert matrix_wavefronts(rows, 16, 8) == 4
    # every lane reads the same row: one wavefront per matrix
    same = np.tile(np.arange(8), (32, 1)).reshape(1, 32, 8)
    assert matrix_wavefronts(same, 16, 8) == 1
    # 32-bit, 4 registers per matrix, two matrices (the same rows) and two warps
    words = np.arange(32)[:, None] * 4 + np.arange(4)
    two = np.tile(words.reshape(1, 32, 4), (2, 1, 2))
    assert matrix_wavefronts(two, 32, 4) == 2 * 2 * 4


def _random_cvt(rng: random.Random, reg_bits: int, warp_bits: int) -> LinearLayout:
    """A random linear access (register, lane, warp) -> offset: any bases, zero (broadcast)
    ones included, not necessarily contiguous vectors."""

    def bases(n: int) -> list[list[int]]:
        return [[rng.choice([0, 1 << rng.randrange(12), rng.randrange(1 << 12)])] for _ in range(n)]

    return LinearLayout.from_bases(
        [("register", bases(reg_bits)), ("lane", bases(5)), ("warp", bases(warp_bits))],
        ["offset"],
        [1 << 12],
        require_surjective=False,
    )


@pytest.mark.parametrize("seed", range(80))
def test_linear_count_equals_the_simulator(seed: int) -> None:
    """The first pass group, scaled, is the brute force over every address, field for field
    (the colliding lanes included), lane tiles (``l & mask``) included."""
    rng = random.Random(seed)
    bits = rng.choice([4, 8, 16, 32, 64])
    vec = rng.choice([v for v in (1, 2, 4, 8) if v * bits <= 128])
    banks = rng.choice([32, 64])
    basis = rng.choice(PASS_BASES)
    cvt = _random_cvt(rng, vec.bit_length() - 1 + rng.randrange(3), rng.randrange(3))
    lanes = None
    addresses = access_addresses(cvt)
    if rng.random() < 0.3:
        lanes = np.arange(32) & sum(1 << i for i in rng.sample(range(5), 3))
        addresses = addresses[:, lanes, :]
    expected = count_wavefronts(addresses, vec, bits, banks, basis)
    assert linear_wavefronts(cvt, vec, bits, banks, basis, lanes) == expected


@pytest.mark.parametrize("seed", range(40))
def test_linear_matrix_count_equals_every_matrix(seed: int) -> None:
    rng = random.Random(seed)
    bits = rng.choice([8, 16, 32])
    per_matrix = 32 // bits
    cvt = _random_cvt(rng, per_matrix.bit_length() - 1 + rng.randrange(3), rng.randrange(3))
    expected = matrix_wavefronts(access_addresses(cvt), bits, per_matrix)
    assert linear_matrix_wavefronts(cvt, bits, per_matrix) == expected


def test_instruction_addresses_are_the_first_registers_of_warp_0() -> None:
    cvt = _random_cvt(random.Random(3), 3, 2)
    assert (instruction_addresses(cvt, 4) == access_addresses(cvt)[:1, :, :4]).all()


def test_linear_count_needs_power_of_2_element_bits() -> None:
    cvt = _random_cvt(random.Random(1), 1, 0)
    with pytest.raises(LayoutError, match="'element_bits' must be a power of 2, not 24"):
        linear_wavefronts(cvt, 1, 24, 32, [1, 2, 4, 8, 16])
