"""Layout conversions: proofs, coverage, Triton's classification, warp-shuffle plans."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cases.conversion_zoo import ZOO
from llverify import LinearLayout
from llverify.conversion import (
    KINDS,
    Conversion,
    conversion,
    cvt_needs_shared_memory,
    cvt_needs_warp_shuffle,
    mixed_transpositions,
    warp_bits_read_from_lanes,
)
from llverify.encodings import (
    BlockedLayout,
    NVMMADistributedLayout,
    to_linear_layout,
)

LEGACY = ("dot", "slice")  # MMA input, Sliced<MMA>, Sliced<MMA input>


def _per_unit_sets(layout: LinearLayout, keep: tuple[str, ...]) -> np.ndarray:
    """The distinct (values of the in dims in ``keep``, element) pairs, sorted."""
    ins = dict(layout.in_dims)
    grids = np.meshgrid(*[np.arange(n) for n in ins.values()], indexing="ij")
    names = list(ins)
    values = layout.apply_array(dict(zip(names, (g.ravel() for g in grids))))
    packed = np.zeros(grids[0].size, dtype=np.int64)
    offset = 0
    for name, size in layout.out_dims:
        packed |= np.asarray(values[name]).astype(np.int64) << offset
        offset += size.bit_length() - 1
    key = np.zeros(grids[0].size, dtype=np.int64)
    for k in keep:
        if k in ins:
            key = key * ins[k] + grids[names.index(k)].ravel()
    return np.unique(np.stack([key, packed], axis=1), axis=0)


def test_zoo_size_and_legacy_categories() -> None:
    assert len(ZOO) >= 1000
    names = " ".join(n for _, n, _, _ in ZOO)
    for needle in (
        "dot0_k",
        "dot1_k",
        "slice0<mma",
        "slice1<dot0",
        "slice0<slice0",
        "mfma32_True",
        "wmma2",
        "mma3",
    ):
        assert needle in names, needle


def test_zoo_every_conversion_proved_and_covered() -> None:
    kinds: dict[str, int] = dict.fromkeys(KINDS, 0)
    for group, name, src, dst in ZOO:
        c = Conversion(src, dst)
        assert c.verify().proved, (group, name)
        assert c.verify_gather().proved, (group, name)
        assert c.coverage().proved, (group, name)
        assert c.kind in KINDS
        kinds[c.kind] += 1
    assert all(kinds[k] > 0 for k in KINDS), kinds


def test_zoo_legacy_categories_proved() -> None:
    legacy = [(g, n, s, d) for g, n, s, d in ZOO if any(k in n for k in LEGACY)]
    assert len(legacy) >= 300
    for group, name, src, dst in legacy:
        assert Conversion(src, dst).verify().proved, (group, name)


def test_zoo_classification_sanity() -> None:
    for group, name, src, dst in ZOO[::15]:
        c = Conversion(src, dst)
        if src == dst:
            assert c.kind == "no-op", (group, name)
        if c.kind == "no-op":
            assert c.minimal.get_in_dim_names() == []
            if src.in_dims == dst.in_dims:
                assert src == dst, (group, name)
        if c.kind in ("no-op", "register permutation"):
            assert not c.needs_shared_memory
            keep: tuple[str, ...] = ("lane", "warp", "block")
            assert np.array_equal(_per_unit_sets(src, keep), _per_unit_sets(dst, keep)), (
                group,
                name,
            )
        if c.kind == "warp shuffle":
            assert c.needs_warp_shuffle and not c.needs_shared_memory
            keep = ("warp", "block")
            if c.warp_local:
                assert np.array_equal(_per_unit_sets(src, keep), _per_unit_sets(dst, keep)), (
                    group,
                    name,
                )
            else:  # shuffles across folded warps: each warp already holds what it needs
                have = {tuple(r) for r in _per_unit_sets(src, keep)}
                want = {tuple(r) for r in _per_unit_sets(dst, keep)}
                assert want <= have, (group, name)
                assert warp_bits_read_from_lanes(src, dst), (group, name)
        if c.kind == "shared memory":
            assert c.needs_shared_memory


def test_zoo_shuffle_plans() -> None:
    checked = 0
    for group, name, src, dst in ZOO:
        c = Conversion(src, dst)
        if not c.warp_local or c.kind != "warp shuffle" or dict(src.in_dims)["lane"] != 32:
            continue
        for bits in (8, 16, 32):
            plan = c.shuffle_plan(bits)
            assert plan.vector_elements * bits <= 32 or plan.vector == ()
            assert len(plan.rounds) >= plan.ideal_rounds
            assert plan.verify_plan().proved, (group, name, bits)
        checked += 1
        if checked >= 60:
            break
    assert checked >= 10


# ---------------------------------------------------------------------- hand-built cases


def _ll(reg: list[list[int]], lane: list[list[int]], warp: list[list[int]] | None = None) -> Any:
    return LinearLayout.from_bases(
        [("register", reg), ("lane", lane), ("warp", warp or []), ("block", [])], ["dim0"]
    )


LANES = [[4], [8], [16], [32], [64]]


def test_identical_is_noop() -> None:
    a = _ll([[1], [2]], LANES)
    assert conversion(a, a).kind == "no-op"


def test_register_permutation() -> None:
    a = _ll([[1], [2]], LANES)
    b = _ll([[2], [1]], LANES)
    c = conversion(a, b)
    assert c.kind == "register permutation"
    assert c.minimal.get_out_dim_names() == ["register"]
    assert c.verify().proved


def test_one_mixed_transposition_is_warp_shuffle() -> None:
    a = _ll([[1], [2]], LANES)
    b = _ll([[4], [2]], [[1], [8], [16], [32], [64]])
    c = conversion(a, b)
    assert len(mixed_transpositions(a, b)) == 1
    assert c.kind == "warp shuffle" and cvt_needs_warp_shuffle(a, b)
    plan = c.shuffle_plan(32)
    assert plan.verify_plan().proved
    assert len(plan.rounds) == plan.ideal_rounds == 4


def test_two_mixed_transpositions_need_shared_memory() -> None:
    a = _ll([[1], [2]], LANES)
    b = _ll([[4], [8]], [[1], [2], [16], [32], [64]])
    c = conversion(a, b)
    assert len(mixed_transpositions(a, b)) == 2
    assert c.kind == "shared memory" and cvt_needs_shared_memory(a, b)
    assert c.warp_local
    assert c.shuffle_plan(16).verify_plan().proved  # still executable with shuffles


def test_across_warps_needs_shared_memory() -> None:
    a = _ll([[1]], [[2], [4], [8], [16], [32]], [[64]])
    b = _ll([[64]], [[2], [4], [8], [16], [32]], [[1]])
    c = conversion(a, b)
    assert c.kind == "shared memory"
    assert "warp" in c.minimal.get_in_dim_names()
    with pytest.raises(ValueError, match="not only within a warp"):
        c.shuffle_plan()


def test_vectorised_plan_uses_common_register_bases() -> None:
    a = _ll([[1], [2], [4]], [[8], [16], [32], [64], [128]])
    b = _ll([[1], [8], [4]], [[2], [16], [32], [64], [128]])
    plan = conversion(a, b).shuffle_plan(16)
    assert plan.vector == ((0, 0),)  # 2 x 16 bits: register bit 0 of both
    assert len(plan.rounds) == plan.ideal_rounds == 4
    assert plan.verify_plan().proved


def test_ttgir_and_broadcast_representative() -> None:
    text = (
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], "
        "order = [0, 1]}>"
    )
    c = conversion(text, BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0]), [16, 4])
    assert c.verify().proved and c.coverage().proved
    masks = c.broadcast["src"]
    assert masks["lane"] == 16  # 32 lanes over 16 rows: lane bit 4 only copies
    element = {"dim0": 5, "dim1": 3}
    rep = c.store_representative(element)
    assert c.src.apply(rep) == element
    assert all(rep[d] & m == 0 for d, m in masks.items())


# ---------------------------------------------------------------------- negative controls


def test_wrong_basis_refuted_with_counterexample() -> None:
    src = to_linear_layout(NVMMADistributedLayout([2, 0], [4, 1], [16, 8]), [64, 64])
    dst = to_linear_layout(BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]), [64, 64])
    good = Conversion(src, dst)
    assert good.cvt is not None and good.verify().proved
    bases = good.cvt.bases
    lane = dict(bases)["lane"]
    lane[1], lane[2] = lane[2], lane[1]  # two lane bits swapped
    bad_cvt = LinearLayout.from_bases(
        bases, good.cvt.get_out_dim_names(), good.cvt.get_out_dim_sizes(), require_surjective=False
    )
    verdict = Conversion(src, dst, bad_cvt).verify()
    assert verdict.refuted
    point = verdict.counterexample
    assert point is not None and point["lane"] in (2, 4)
    moved = bad_cvt.apply(point)
    assert dst.apply({d: moved[d] for d in dst.get_in_dim_names()}) != src.apply(point)
    assert verdict.actual != verdict.expected


def test_uncovered_destination_element_reported() -> None:
    src = LinearLayout.from_bases(
        [("register", [[1]]), ("lane", [[2], [0]]), ("warp", []), ("block", [])],
        ["dim0"],
        [16],
        require_surjective=False,
    )
    dst = _ll([[1], [2]], [[4], [8]])
    c = Conversion(src, dst)
    cov = c.coverage()
    assert cov.refuted and cov.counterexample is not None and cov.expected is not None
    element = dst.apply(cov.counterexample)
    assert element == cov.expected and element["dim0"] >= 4
    assert all(
        src.apply(p)["dim0"] != element["dim0"]
        for p in (
            {"register": r, "lane": lane, "warp": 0, "block": 0}
            for r in range(2)
            for lane in range(4)
        )
    )
    assert not c.verify_gather().proved
    # the other direction still holds: every source element reaches the destination
    assert c.verify().proved


def test_broken_plan_refuted() -> None:
    a = _ll([[1], [2]], LANES)
    b = _ll([[4], [2]], [[1], [8], [16], [32], [64]])
    plan = conversion(a, b).shuffle_plan(32)
    first = plan.rounds[0]
    broken = type(first)(first.src_lane[1:] + first.src_lane[:1], first.send_reg, first.recv_reg)
    bad = type(plan)(
        plan.src,
        plan.dst,
        plan.vector,
        plan.element_bits,
        (broken, *plan.rounds[1:]),
        plan.ideal_rounds,
        plan.min_rounds,
    )
    verdict = bad.verify_plan()
    assert verdict.refuted and verdict.counterexample is not None


def test_shuffles_across_folded_warps_as_triton() -> None:
    """Pairs 240 and 135 of the Triton oracle: the same shape of gather (warp bit 2 of the
    destination reads a source lane; the source is broadcast over it), Triton 3.9 shuffles
    the first and goes through shared memory for the second (2 mixed transpositions)."""
    shuffled = Conversion(
        BlockedLayout([2, 4], [4, 8], [8, 1], [0, 1]).to_linear_layout([16, 128]),
        BlockedLayout([2, 2], [4, 8], [4, 2], [0, 1]).to_linear_layout([16, 128]),
    )
    assert warp_bits_read_from_lanes(shuffled.src, shuffled.dst) == [2]
    assert not shuffled.warp_local
    assert shuffled.kind == "warp shuffle" and shuffled.needs_warp_shuffle
    assert shuffled.verify().proved and shuffled.coverage().proved
    # the plan runs one row per value of warp bit 2; the readers of a warp use only half
    # of the source lanes, so every sender ships twice the paper's 2^|R| vectors
    for bits in (8, 16, 32, 64):
        plan = shuffled.shuffle_plan(bits)
        assert plan.warp_bits == (2,)
        assert plan.min_rounds == 2 * plan.ideal_rounds
        assert len(plan.rounds) == plan.min_rounds
        assert plan.verify_plan().proved

    stays_shared = Conversion(
        BlockedLayout([4, 4], [4, 8], [4, 2], [0, 1]).to_linear_layout([32, 32]),
        BlockedLayout([4, 1], [4, 8], [4, 2], [0, 1]).to_linear_layout([32, 32]),
    )
    assert warp_bits_read_from_lanes(stays_shared.src, stays_shared.dst) == [2]
    assert stays_shared.kind == "shared memory" and stays_shared.needs_shared_memory


# ---------------------------------------------------------------------- one kernel

FOUR_WARPS = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])


@pytest.mark.parametrize(
    ("dst", "counts"),
    [
        (BlockedLayout([1, 8], [4, 8], [1, 8], [1, 0]), "lane=32, warp=8, block=1"),
        (BlockedLayout([1, 8], [4, 8], [2, 1], [1, 0]), "lane=32, warp=2, block=1"),
        (BlockedLayout([1, 8], [4, 4], [4, 1], [1, 0]), "lane=16, warp=4, block=1"),
        (BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0], [[0, 1]]), "lane=32, warp=4, block=2"),
    ],
)
def test_conversion_between_two_kernels_is_refused(dst: BlockedLayout, counts: str) -> None:
    """A 4-warp source and an 8-warp destination (or other lanes or CTAs) are not one
    kernel's: refused, never "proved" (issue 18)."""
    with pytest.raises(ValueError, match="one kernel") as info:
        conversion(FOUR_WARPS, dst, [64, 64])
    message = str(info.value)
    assert "'src'" in message and "'dst'" in message
    assert "lane=32, warp=4, block=1 ('src')" in message and f"{counts} ('dst')" in message
    src_ll, dst_ll = to_linear_layout(FOUR_WARPS, [64, 64]), to_linear_layout(dst, [64, 64])
    with pytest.raises(ValueError, match="one kernel"):
        Conversion(src_ll, dst_ll)
    with pytest.raises(ValueError, match="one kernel"):
        conversion(dst, FOUR_WARPS, [64, 64])


def test_absent_in_dims_count_as_size_1() -> None:
    bare = LinearLayout.from_bases([("register", [[1], [2]]), ("lane", LANES)], ["dim0"])
    assert conversion(bare, _ll([[2], [1]], LANES)).verify().proved
    with pytest.raises(ValueError, match="warp=2"):
        conversion(bare, _ll([[2]], LANES, [[1]]))
