"""Triton's constructive ld/st swizzle (llverify.shared_memory.swizzle.constructive).

* Triton's ``unittest/Dialect/TritonGPU/SwizzleTest.cpp`` cases that call
  ``optimalSwizzlingLdSt`` on power-of-2 tensors, with Triton's assertion (0 read and 0 write
  conflicts by ``bankConflictsLdSt``, here ``triton_conflicts``) and the access analysis'
  exact counts and vector widths (``swizzle_cost``);
* bases traced by hand through the C++ for three small cases;
* a seeded sweep over blocked / MMA / dot-operand / MFMA encodings: the result is a bijective
  shared layout of the tensor that ``SharedLinearLayout`` accepts and ``swizzle_cost`` can
  price, and the common-register vector is realised on both sides;
* argument errors.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from cases.swizzle import SWIZZLE_TEST_CASES, ll
from llverify import LinearLayout
from llverify.encodings import (
    AMDMFMALayout,
    BlockedLayout,
    DotOperandLayout,
    EncodingError,
    NVMMADistributedLayout,
    SharedLinearLayout,
    to_linear_layout,
)
from llverify.errors import DimensionError, LayoutError, LayoutTypeError
from llverify.hardware import Target
from llverify.layout_utils import action_remove_broadcasted_regs
from llverify.shared_memory.access import access_analysis
from llverify.shared_memory.swizzle.constructive import constructive_swizzle
from llverify.shared_memory.swizzle.cost import swizzle_cost

# ---------------------------------------------------------------------- SwizzleTest.cpp


@pytest.mark.parametrize("name", list(SWIZZLE_TEST_CASES))
def test_swizzle_test_cpp(name: str) -> None:
    src, dst, shape, bits, kwargs, widths = SWIZZLE_TEST_CASES[name]
    smem = constructive_swizzle(src, dst, shape, bits, **kwargs)
    assert smem.is_invertible()
    target = kwargs.get("target", "nvidia")
    # Triton's assertion: bankConflictsLdSt gives 0 read and 0 write conflicts.
    store = access_analysis(src, smem, shape, bits, target, lane_tile=kwargs.get("src_tile"))
    load = access_analysis(dst, smem, shape, bits, target, lane_tile=kwargs.get("dst_tile"))
    assert (store.triton_conflicts, load.triton_conflicts) == (0, 0)
    # The exact counts (the simulator's with the lane tile where one is given).
    cost = swizzle_cost(src, dst, smem, shape, bits, **kwargs)
    assert (cost.store_conflicts, cost.load_conflicts) == (0, 0)
    assert (cost.store_vec, cost.load_vec) == widths


# Traced by hand through GenericSwizzling.cpp (SwizzleTest.cpp asserts no bases for these).
HAND_TRACED = {
    # vector [16]; tiles src {128, 1, 2, 4, 8}, dst {32, 64, 1, 2, 4}; no free unit, so the
    # segment pairs 8 ^ 32, 128 ^ 64; bank = complement {1, 2, 4, 32, 128}, dst's register
    # 128 first.
    "Test16x16Bf16BlockedMma": [
        [0, 1],
        [0, 8],
        [1, 0],
        [2, 0],
        [4, 0],
        [0, 2],
        [8, 2],
        [0, 12],
    ],  # fmt: skip
    # no vector; segment 32 ^ 2, 64 ^ 4, 128 ^ 8, 256 ^ 16; dst's registers lead the bank.
    "Test32x16F32Transpose": [
        [0, 2],
        [0, 4],
        [0, 8],
        [1, 0],
        [0, 1],
        [2, 1],
        [4, 2],
        [8, 4],
        [16, 8],
    ],  # fmt: skip
    # one 64-bit element per vector (2 phases: 16 lanes); segment 16 ^ 1, 32 ^ 2; bank
    # {4, 8, 16, 32} with dst's register 32 first.
    "F64MmaV2BSharedLayout": [[0, 8], [0, 1], [0, 2], [0, 4], [1, 4], [2, 8]],
}


@pytest.mark.parametrize("name", list(HAND_TRACED))
def test_hand_traced_bases(name: str) -> None:
    src, dst, shape, bits, kwargs, _ = SWIZZLE_TEST_CASES[name]
    smem = constructive_swizzle(src, dst, shape, bits, **kwargs)
    assert smem.bases == [("offset", HAND_TRACED[name])]
    assert smem.out_dims == [("dim0", shape[0]), ("dim1", shape[1])]


def test_same_layout_keeps_registers_as_vector() -> None:
    # src == dst: the common registers (capped at 128 bits) are the vector, in src's order.
    src = ll(
        [[0, 1], [0, 2], [0, 4], [1, 0]], [[0, 8], [0, 16], [2, 0], [4, 0], [8, 0]], [], [16, 32]
    )
    smem = constructive_swizzle(src, src, [16, 32], 16)
    assert smem.bases[0][1][:3] == [[0, 1], [0, 2], [0, 4]]
    smem = constructive_swizzle(src, src, [16, 32], 32)
    assert smem.bases[0][1][:2] == [[0, 1], [0, 2]]


def test_broadcast_registers_are_dropped() -> None:
    src = ll([[0, 1], [0, 0], [0, 2]], [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], [], [4, 32])
    plain = ll([[0, 1], [0, 2]], [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], [], [4, 32])
    assert constructive_swizzle(src, src, [4, 32], 16) == constructive_swizzle(
        plain, plain, [4, 32], 16
    )


# ---------------------------------------------------------------------- sweep


def _blocked(rng: random.Random, lanes: int, warps: int) -> BlockedLayout:
    t0 = 1 << rng.randrange(lanes.bit_length())
    w0 = 1 << rng.randrange(warps.bit_length())
    spt = [1 << rng.randrange(4), 1 << rng.randrange(4)]
    return BlockedLayout(spt, [t0, lanes // t0], [w0, warps // w0], rng.choice([[1, 0], [0, 1]]))


def _nvidia_mma(rng: random.Random, bits: int) -> Any:
    warps = rng.choice([[4, 1], [2, 2], [1, 4]])
    if rng.random() < 0.3:
        parent: Any = NVMMADistributedLayout([3, 0], [4, 1], [16, rng.choice([16, 32, 64]), 16])
        if rng.random() < 0.5:
            return parent
        return DotOperandLayout(0, parent, max(1, 32 // bits))
    parent = NVMMADistributedLayout([2, 0], warps, [16, 8])
    if rng.random() < 0.3:
        return parent
    return DotOperandLayout(rng.randrange(2), parent, max(1, 32 // bits))


def _amd_mfma(rng: random.Random) -> Any:
    m = rng.choice([16, 32])
    parent = AMDMFMALayout(3, [m, m, 16 if m == 16 else 8], rng.random() < 0.5, [2, 2])
    if rng.random() < 0.3:
        return parent
    return DotOperandLayout(rng.randrange(2), parent, rng.choice([4, 8]))


def sweep_pairs(count: int, seed: int = 20260822) -> list[tuple[Any, Any, list[int], int, str]]:
    """``count`` seeded (src, dst, shape, bits, target) whose encodings convert."""
    rng = random.Random(seed)
    pairs: list[tuple[Any, Any, list[int], int, str]] = []
    while len(pairs) < count:
        target = rng.choice(["nvidia", "nvidia", "gfx942", "gfx950"])
        lanes = 32 if target == "nvidia" else 64
        bits = rng.choice([8, 16, 32, 64])
        shape = [1 << rng.randrange(3, 8), 1 << rng.randrange(3, 8)]
        encodings = []
        for _ in range(2):
            if rng.random() < 0.5:
                encodings.append(_blocked(rng, lanes, 4))
            elif target == "nvidia":
                encodings.append(_nvidia_mma(rng, bits))
            else:
                encodings.append(_amd_mfma(rng))
        try:
            src, dst = (to_linear_layout(e, shape) for e in encodings)
        except EncodingError:
            continue  # a parameter combination the encoding rejects (Triton does too)
        pairs.append((src, dst, shape, bits, target))
    return pairs


def _leading_common_registers(src: LinearLayout, dst: LinearLayout, smem: LinearLayout) -> int:
    """How many leading offset bases are registers of both src and dst."""
    regs = []
    for layout in (src, dst):
        layout = action_remove_broadcasted_regs(layout).apply(layout)
        regs.append({tuple(b) for b in layout.bases[0][1]})
    count = 0
    for basis in smem.bases[0][1]:
        if tuple(basis) not in regs[0] or tuple(basis) not in regs[1]:
            break
        count += 1
    return count


@pytest.mark.parametrize("chunk", range(4))
def test_sweep(chunk: int) -> None:
    pairs = sweep_pairs(240)
    for src, dst, shape, bits, target in pairs[chunk::4]:
        smem = constructive_swizzle(src, dst, shape, bits, target)
        total = shape[0] * shape[1]
        assert smem.in_dims == [("offset", total)]
        assert smem.out_dims == src.out_dims == [("dim0", shape[0]), ("dim1", shape[1])]
        assert smem.is_invertible()
        shared = SharedLinearLayout(smem.bases[0][1]).to_linear_layout(shape)
        assert shared.sublayout(["offset"], ["dim0", "dim1"]) == smem
        cost = swizzle_cost(src, dst, smem, shape, bits, target)
        # The vector's common registers are unit vectors that no other basis of src or dst
        # touches in the offset (every other basis is a unit outside the vector, and the
        # bank and segment span exactly those), so both sides vectorise over them.
        common = min(_leading_common_registers(src, dst, smem), (128 // bits).bit_length() - 1)
        assert cost.store_vec >= 1 << common
        assert cost.load_vec >= 1 << common


def test_sweep_is_varied() -> None:
    pairs = sweep_pairs(240)
    assert {p[3] for p in pairs} == {8, 16, 32, 64}
    assert {p[4] for p in pairs} == {"nvidia", "gfx942", "gfx950"}


# ---------------------------------------------------------------------- errors

_SRC = ll([[0, 1], [0, 2]], [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], [], [4, 32])


@pytest.mark.parametrize("bits", [0, 3, 256, -8])
def test_bad_element_bits(bits: int) -> None:
    with pytest.raises(LayoutError, match="element_bits"):
        constructive_swizzle(_SRC, _SRC, [4, 32], bits)


def test_bool_element_bits() -> None:
    with pytest.raises(LayoutTypeError, match="element_bits"):
        constructive_swizzle(_SRC, _SRC, [4, 32], True)


def test_mismatched_shape_and_out_dims() -> None:
    with pytest.raises(DimensionError, match="'src'.*shape"):
        constructive_swizzle(_SRC, _SRC, [8, 16], 16)
    renamed = LinearLayout.from_bases(_SRC.bases, ["row", "col"], [4, 32])
    with pytest.raises(DimensionError, match="'dst'.*out dims"):
        constructive_swizzle(_SRC, renamed, [4, 32], 16)
    with pytest.raises(LayoutTypeError, match="shape"):
        constructive_swizzle(_SRC, _SRC, 128, 16)  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match="shape"):
        constructive_swizzle(_SRC, _SRC, [], 16)


@pytest.mark.parametrize("shape", [[1, 1], [64], [2, 4, 16]])
def test_other_ranks(shape: list[int]) -> None:
    rank = len(shape)
    enc = BlockedLayout(
        [1] * rank, [32] + [1] * (rank - 1), [2] + [1] * (rank - 1), [0, 1, 2][:rank]
    )
    smem = constructive_swizzle(enc, enc, shape, 16)
    assert smem.is_invertible()
    assert smem.out_dims == [(f"dim{i}", s) for i, s in enumerate(shape)]


def test_lanes_must_match_target() -> None:
    with pytest.raises(LayoutError, match="'src' must have 64 lanes"):
        constructive_swizzle(_SRC, _SRC, [4, 32], 16, "gfx942")
    with pytest.raises(LayoutError, match="target"):
        constructive_swizzle(_SRC, _SRC, [4, 32], 16, "sm90")
    with pytest.raises(LayoutError, match="target"):
        constructive_swizzle(_SRC, _SRC, [4, 32], 16, Target("odd", 32, 24))


def test_one_cta_and_distributed_dims() -> None:
    multi = _SRC * LinearLayout.zeros_1d(2, "block", "dim0")
    with pytest.raises(LayoutError, match="block size 1"):
        constructive_swizzle(multi, _SRC, [4, 32], 16)
    shared = LinearLayout.from_bases(
        [("offset", _SRC.bases[0][1] + _SRC.bases[1][1])], ["dim0", "dim1"]
    )
    with pytest.raises(DimensionError, match="'dst' must have the in dims"):
        constructive_swizzle(_SRC, shared, [4, 32], 16)
    partial = LinearLayout.from_bases(
        [("register", [[0, 1], [0, 1]]), ("lane", _SRC.bases[1][1])],
        ["dim0", "dim1"],
        [4, 32],
        require_surjective=False,
    )
    with pytest.raises(LayoutError, match="surjective"):
        constructive_swizzle(_SRC, partial, [4, 32], 16)


def test_bad_lane_tile() -> None:
    # 16-bit, two common registers: a 64-bit vector, 2 phases of 16 lanes: 4 lane indices.
    assert constructive_swizzle(_SRC, _SRC, [4, 32], 16, src_tile=[0, 1, 2, 3]).is_invertible()
    with pytest.raises(LayoutError, match="'src_tile' must list 4 distinct"):
        constructive_swizzle(_SRC, _SRC, [4, 32], 16, src_tile=[0, 1, 2])
    with pytest.raises(LayoutError, match="'dst_tile' must list 4 distinct"):
        constructive_swizzle(_SRC, _SRC, [4, 32], 16, dst_tile=[0, 1, 1, 2])
    with pytest.raises(LayoutError, match=r"'dst_tile' must hold lane indices in \[0, 5\)"):
        constructive_swizzle(_SRC, _SRC, [4, 32], 16, dst_tile=[0, 1, 2, 7])
    with pytest.raises(LayoutTypeError, match="'src_tile'"):
        constructive_swizzle(_SRC, _SRC, [4, 32], 16, src_tile=3)  # type: ignore[arg-type]


def test_xor_bases_that_break_the_construction() -> None:
    # src lane [3, 0] (= [1, 0] ^ [2, 0]) makes the segment's pair 3 ^ 2 equal the vector's
    # basis 1: Triton's construction is not a bijection (Triton asserts); llverify raises.
    src = ll([[1, 0], [0, 2]], [[0, 8], [3, 0], [0, 16], [0, 1], [0, 4]], [], [4, 32])
    dst = ll([[0, 4], [1, 0]], [[0, 1], [0, 2], [0, 8], [2, 0], [0, 16]], [], [4, 32])
    with pytest.raises(LayoutError, match="bijection"):
        constructive_swizzle(src, dst, [4, 32], 16)


def test_encodings_are_accepted() -> None:
    mma = NVMMADistributedLayout([2, 0], [4, 1], [16, 8])
    blocked = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    smem = constructive_swizzle(mma, blocked, [64, 64], 16)
    assert smem == constructive_swizzle(
        to_linear_layout(mma, [64, 64]), to_linear_layout(blocked, [64, 64]), [64, 64], 16
    )
    text = (
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
        "order = [1, 0]}>"
    )
    assert constructive_swizzle(mma, text, [64, 64], 16) == smem
