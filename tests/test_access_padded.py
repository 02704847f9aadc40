"""Shared-memory access analysis on padded shared layouts (``#ttg.padded_shared``).

Padding is not linear: llverify.shared_memory.access simulates the exact physical addresses of
:class:`PaddedLayout`, caps the vector width so vectors are physically contiguous and
aligned (Triton only caps at ``getMinInterval``: specs/padded.py, ALIGNMENT), and reports
``source == "simulator"`` with no Triton/algebraic count.  The random test compares with an
independent brute force over ``PaddedLayout.physical``/``address_table`` in plain Python.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify import LinearLayout
from llverify.encodings.padded import PaddedLayout, PaddedSharedLayout
from llverify.errors import LayoutError
from llverify.shared_memory.access import AccessAnalysis, access_analysis, bank_conflicts
from llverify.shared_memory.register_to_offset import conversion_layout

COLS = (  # lane i reads row i, one column per register: a column read
    "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>"
)
PLAIN = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"


def rows_blocked(vec: int) -> str:
    return (
        f"#ttg.blocked<{{sizePerThread = [1, {vec}], threadsPerWarp = [4, 8], "
        "warpsPerCTA = [4, 1], order = [1, 0]}>"
    )


def padded(pairs: list[list[int]], shape: list[int] = [64, 64]) -> PaddedSharedLayout:  # noqa: B006
    return PaddedSharedLayout.with_identity_for(pairs, shape, [1, 0])


# ---------------------------------------------------------------------- classic cases


def test_f32_column_read_unpadded_32_way_padded_conflict_free() -> None:
    unpadded = bank_conflicts(COLS, PLAIN, [64, 64], 32)
    assert (unpadded.conflicts, unpadded.triton, unpadded.source) == (31, 31, "algebra")
    result = bank_conflicts(COLS, padded([[64, 1]]), [64, 64], 32)
    assert result.conflicts == 0
    assert result.triton is None and result.source == "simulator" and not result.differs
    assert "simulator" in result.reason
    a = access_analysis(COLS, padded([[64, 1]]), [64, 64], 32)
    assert a.padded and a.source == "simulator" and a.triton_conflicts is None
    assert a.elems_per_vec == 1 and a.instructions == 128 and a.homogeneous
    assert a.lane_offsets == (65, 130, 260, 520, 1040)  # rows 1, 2, 4, 8, 16 physically


def test_ttgir_text_and_objects_agree() -> None:
    enc = padded([[64, 1]])
    text = enc.ttgir()
    assert text == "#ttg.padded_shared<[64:+1] {order = [1, 0], shape = [64, 64]}>"
    memdesc = f"!ttg.memdesc<64x64xf32, {text}, #ttg.shared_memory, mutable>"
    for shared in (enc, text, memdesc, enc.padded_layout()):
        a = access_analysis(COLS, shared, [64, 64], 32)
        assert (a.hardware_conflicts, a.source, a.elems_per_vec) == (0, "simulator", 1)


@pytest.mark.parametrize(
    ("pairs", "conflicts"),
    [
        (None, 31),  # 128-byte rows: every lane in bank 0
        ([[64, 2]], 0),  # +4 bytes per row: word 33 i
        ([[64, 1]], 1),  # +2 bytes per row: word (65 i) // 2, two lanes per bank
        ([[64, 4]], 1),  # +8 bytes per row: bank 2 i % 32
        ([[128, 2]], 1),  # +4 bytes every 2 rows
    ],
)
def test_f16_column_read(pairs: list[list[int]] | None, conflicts: int) -> None:
    shared = PLAIN if pairs is None else padded(pairs)
    assert bank_conflicts(COLS, shared, [64, 64], 16).conflicts == conflicts


def test_vector_width_respects_padding() -> None:
    """8 x f16 per thread along a row: [64:+4] keeps only 4-element (8-byte) vectors
    aligned, Triton would emit v4.b32 (min interval 64) at misaligned addresses."""
    enc = padded([[64, 4]])
    assert enc.padded_layout().max_vector == 4
    a = access_analysis(rows_blocked(8), enc, [64, 64], 16)
    assert (a.elems_per_vec, a.triton_elems_per_vec, a.access_bits) == (4, 8, 64)
    assert a.instructions_per_warp == 8  # 32 registers (16x64 tile, 4 times) by 4
    # [64:+8] keeps 8-element vectors; [64:+1] only scalars
    b = access_analysis(rows_blocked(8), padded([[64, 8]]), [64, 64], 16)
    assert (b.elems_per_vec, b.access_bits, b.hardware_conflicts) == (8, 128, 0)
    c = access_analysis(rows_blocked(8), padded([[64, 1]]), [64, 64], 16)
    assert (c.elems_per_vec, c.triton_elems_per_vec) == (1, 8)
    # f32 row stores of 4: [64:+4] 4-wide, 4 passes of 8 lanes, one row each: conflict-free
    d = access_analysis(rows_blocked(4), enc, [64, 64], 32)
    assert (d.elems_per_vec, d.passes, d.hardware_conflicts) == (4, 4, 0)


def test_padding_beyond_the_buffer_does_not_limit_vectors() -> None:
    """An interval as large as the buffer never pads inside it (max_vector ignores it)."""
    enc = padded([[64 * 64, 1]])
    a = access_analysis(rows_blocked(8), enc, [64, 64], 16)
    assert a.elems_per_vec == 8
    plain = access_analysis(rows_blocked(8), PLAIN, [64, 64], 16)
    assert a.hardware_conflicts == plain.hardware_conflicts


def test_unpadded_behaviour_unchanged() -> None:
    a = access_analysis(COLS, PLAIN, [64, 64], 32)
    assert (a.source, a.padded, a.triton_conflicts, a.triton_elems_per_vec) == (
        "algebra",
        False,
        31,
        None,
    )


def test_errors() -> None:
    with pytest.raises(LayoutError, match="whole-byte"):
        access_analysis(COLS, padded([[64, 1]]), [64, 64], 4)
    with pytest.raises(LayoutError):
        access_analysis(COLS, padded([[64, 1]]), [32, 64], 32)  # shape mismatch
    cga = PaddedSharedLayout.with_identity_for([[64, 1]], [128, 64], [1, 0], [[1, 0]])
    with pytest.raises(LayoutError, match="one CTA"):
        access_analysis(COLS, cga, [128, 64], 32)


# ---------------------------------------------------------------------- random vs brute force


def random_case(
    rng: random.Random, rows: int, cols: int
) -> tuple[LinearLayout, PaddedSharedLayout, list[int]]:
    shape = [1 << rows, 1 << cols]
    units = [[1 << i, 0] for i in range(rows)] + [[0, 1 << i] for i in range(cols)]
    offsets = units[:]
    if rng.random() < 0.5:
        offsets = units[rows:] + units[:rows]  # row-major
    else:
        rng.shuffle(offsets)
    n = rows + cols
    intervals = rng.sample([1 << k for k in range(1, n + 1)], rng.randint(1, min(3, n)))
    pairs = [[i, rng.choice([1, 2, 4, 8, 16])] for i in intervals]
    enc = PaddedSharedLayout(pairs, offsets, [], shape)
    perm = units[:]
    rng.shuffle(perm)
    n_warp = rng.randint(0, min(2, n - 5))
    n_reg = n - 5 - n_warp
    regs, lanes, warps = perm[:n_reg], perm[n_reg : n_reg + 5], perm[n_reg + 5 :]
    if rng.random() < 0.2:
        regs = [*regs, [0, 0]]
    reg = LinearLayout.from_bases(
        [("register", regs), ("lane", lanes), ("warp", warps), ("block", [])],
        ["dim0", "dim1"],
        shape,
    )
    return reg, enc, shape


def brute_force(a: AccessAnalysis, model: PaddedLayout, bits: int) -> tuple[int, int]:
    """(wavefronts, groups) from PaddedLayout.physical, one element at a time."""
    cvt = a.conversion
    n_reg = cvt.get_in_dim_size("register")
    n_warp = cvt.get_in_dim_size("warp") if cvt.has_in_dim("warp") else 1
    vec = a.elems_per_vec
    span = [0]
    for basis in a.pass_lanes:
        span += [s ^ basis for s in span]
    passes: dict[int, list[int]] = {}
    for lane in range(32):
        passes.setdefault(min(lane ^ s for s in span), []).append(lane)
    total = groups = 0
    for warp in range(n_warp):
        for first in range(0, n_reg, vec):
            for lanes in passes.values():
                words: set[int] = set()
                for lane in lanes:
                    phys = []
                    for r in range(first, first + vec):
                        ins = {"register": r, "lane": lane, "warp": warp}
                        ins = {k: v for k, v in ins.items() if cvt.has_in_dim(k)}
                        phys.append(model.physical(cvt.apply(ins)["offset"]))
                    # the vector is contiguous and aligned in physical addresses
                    assert phys == list(range(phys[0], phys[0] + vec))
                    assert phys[0] % vec == 0
                    for p in phys:
                        words.update(range(p * bits // 32, ((p + 1) * bits - 1) // 32 + 1))
                total += max(Counter(w % 32 for w in words).values())
                groups += 1
    return total, groups


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rows=st.integers(1, 5),
    cols=st.integers(1, 5),
    bits=st.sampled_from([8, 16, 32, 64]),
)
def test_simulator_equals_physical_brute_force(seed: int, rows: int, cols: int, bits: int) -> None:
    if rows + cols < 5:
        rows = 5 - cols
    reg, enc, shape = random_case(random.Random(seed), rows, cols)
    model = enc.padded_layout(shape)
    a = access_analysis(reg, enc, shape, bits)
    assert a.source == "simulator" and a.triton_conflicts is None
    # the conversion holds the register layout's elements (up to a register permutation)
    cvt = a.conversion
    lin = model.linear
    for lane in range(32):
        mine = set()
        for r in range(cvt.get_in_dim_size("register")):
            off = cvt.apply({"register": r, "lane": lane, "warp": 0})["offset"]
            out = lin.apply({"offset": off, "block": 0})
            mine.add((out["dim0"], out["dim1"]))
        theirs = set()
        for r in range(reg.get_in_dim_size("register")):
            out = reg.apply({"register": r, "lane": lane, "warp": 0, "block": 0})
            theirs.add((out["dim0"], out["dim1"]))
        assert mine == theirs
    # the width: Triton's (uncapped) width capped by max_vector
    _, elems = conversion_layout(reg, lin.sublayout(["offset"], ["dim0", "dim1"]), shape, bits)
    assert a.elems_per_vec == min(elems, model.max_vector)
    assert a.triton_elems_per_vec == min(elems, enc.min_interval)
    total, groups = brute_force(a, model, bits)
    assert a.simulated_conflicts == a.hardware_conflicts == total // groups - 1
    assert a.instructions * a.passes == groups
    # address_table agrees with physical(locate(...)) for the lanes' addresses
    table = model.address_table()
    assert int(table[1 % shape[0], 0]) == model.address([1 % shape[0], 0])
    assert np.all(np.diff(np.sort(table.ravel())) >= 1)
