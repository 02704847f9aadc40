"""Warp-shuffle plans use exactly the paper's 2^|R| rounds (section 5.4), proved by exact
simulation on the conversion zoo of test_conversion; corrupted plans are refuted."""

from __future__ import annotations

import dataclasses

from cases.conversion_zoo import ZOO
from llverify.conversion import Conversion, ShufflePlan

STRIDE = 8  # every 8th zoo pair: 351 warp-shuffle conversions


def _shuffles(local: bool = True) -> list[Conversion]:
    out = []
    for _, _, src, dst in ZOO[::STRIDE]:
        c = Conversion(src, dst)
        if c.kind == "warp shuffle" and c.warp_local == local:
            out.append(c)
    return out


SHUFFLES = _shuffles()


def test_rounds_equal_ideal_and_plan_proved() -> None:
    assert len(SHUFFLES) >= 300
    for c in SHUFFLES:
        for bits in (8, 16, 32, 64):
            plan = c.shuffle_plan(bits)
            assert plan.vector_elements * bits <= 32 or plan.vector == ()
            n_reg = c.dst.get_in_dim_size_log2("register")
            assert plan.ideal_rounds == 1 << (n_reg - len(plan.vector))  # 2^|R|
            assert len(plan.rounds) == plan.ideal_rounds, (c.src, c.dst, bits)
            verdict = plan.verify_plan()
            assert verdict.proved, (c.src, c.dst, bits, verdict)


def test_every_zoo_plan_has_the_ideal_round_count() -> None:
    """The whole zoo (not the 1/8 sample): every warp-local plan has 2^|R| rounds and every
    plan across folded warps meets its lower bound (no plan needs the greedy fallback)."""
    plans = folded = above_ideal = 0
    for _, _, src, dst in ZOO:
        c = Conversion(src, dst)
        if c.kind != "warp shuffle":
            continue
        for bits in (8, 16, 32, 64):
            plan = c.shuffle_plan(bits)
            plans += 1
            assert len(plan.rounds) == plan.min_rounds, (c.src, c.dst, bits)
            if c.warp_local:
                assert plan.min_rounds == plan.ideal_rounds and plan.warp_bits == ()
            else:
                folded += 1
                assert plan.warp_bits
                above_ideal += plan.min_rounds > plan.ideal_rounds
    assert plans >= 4 * 2800, plans
    assert folded >= 4 * 1000 and above_ideal > 0, (folded, above_ideal)


def test_folded_warp_plans_proved() -> None:
    """Shuffles across warps of a broadcast source: each warp runs its own row of the plan;
    executing it on every hardware index gives the destination layout."""
    folded = _shuffles(local=False)
    assert len(folded) >= 100
    for c in folded:
        for bits in (16, 64):
            plan = c.shuffle_plan(bits)
            assert plan.verify_plan().proved, (c.src, c.dst, bits)
        bad = _corrupt(plan, "drop")
        assert bad.verify_plan().refuted


def _corrupt(plan: ShufflePlan, how: str) -> ShufflePlan:
    rounds = list(plan.rounds)
    first = rounds[0]
    if how == "lane":
        lanes = first.src_lane
        rounds[0] = dataclasses.replace(first, src_lane=lanes[1:] + lanes[:1])
    elif how == "drop":
        rounds = rounds[1:]
    else:  # receive register moved
        recv = list(first.recv_reg)
        recv[0] = recv[0] ^ 1 if recv[0] >= 0 else 0
        rounds[0] = dataclasses.replace(first, recv_reg=tuple(recv))
    return dataclasses.replace(plan, rounds=tuple(rounds))


def test_corrupted_plans_refuted() -> None:
    refuted = 0
    for c in SHUFFLES[:40]:
        plan = c.shuffle_plan(32)
        if plan.ideal_rounds < 2:
            continue
        for how in ("lane", "drop", "reg"):
            bad = _corrupt(plan, how)
            if bad.rounds == plan.rounds:
                continue
            verdict = bad.verify_plan()
            if how == "drop":
                assert verdict.refuted  # a slot is never written
            if verdict.refuted:
                refuted += 1
                assert verdict.counterexample is not None
                assert verdict.actual != verdict.expected
    assert refuted >= 40
