"""Range analysis of DAG nodes (llverify.emitted.sim.ranges): each rule by hand, the
assumptions of device asserts, and soundness checked against concrete evaluation."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.emitted.sim.ranges import Ranges, intersect, signed, unsigned
from llverify.emitted.sim.replay import NotEvaluable, evaluate
from llverify.emitted.sim.symbolic import Dag


def setup(width: int = 8) -> tuple[Dag, Ranges, int]:
    dag = Dag()
    return dag, Ranges(dag), dag.leaf(0, 0, width)


def c(dag: Dag, value: int, width: int = 8) -> int:
    return dag.const(value & ((1 << (8 * width)) - 1), width)


# -- rules ------------------------------------------------------------------------------------
def test_an_input_element_may_be_anything_and_a_constant_is_itself() -> None:
    dag, ranges, x = setup()
    assert ranges.unsigned(x) == (0, 2**64 - 1)
    assert ranges.unsigned(c(dag, 7)) == (7, 7)


def test_an_addition_that_may_overflow_is_the_full_range() -> None:
    dag, ranges, x = setup()
    masked = dag.op("and", (x, c(dag, 0xFF)), 8)
    assert ranges.unsigned(dag.op("add", (masked, c(dag, 10)), 8)) == (10, 265)
    big = dag.op("shl", (masked, c(dag, 60)), 8)  # up to 255 << 60: wraps round 2**64
    assert ranges.unsigned(big) == (0, 2**64 - 1)
    assert ranges.unsigned(dag.op("mul", (masked, c(dag, 1 << 56)), 8)) == (0, 255 << 56)


def test_a_shift_right_and_a_mask_bound_an_input() -> None:
    dag, ranges, x = setup()
    assert ranges.unsigned(dag.op("lshr", (x, c(dag, 51)), 8)) == (0, 8191)
    assert ranges.unsigned(dag.op("and", (x, c(dag, 4096)), 8)) == (0, 4096)
    assert ranges.signed(dag.op("ashr", (x, c(dag, 63)), 8)) == (-1, 0)
    assert ranges.unsigned(dag.op("urem", (x, c(dag, 10)), 8)) == (0, 9)
    assert ranges.unsigned(dag.op("udiv", (x, c(dag, 1 << 60)), 8)) == (0, 15)


def test_a_negative_range_survives_sign_extension_and_not_zero_extension() -> None:
    dag, ranges, x = setup(4)
    small = dag.op("srem", (x, c(dag, 5, 4)), 4)  # -4 .. 4
    assert ranges.signed(small) == (-4, 4)
    assert ranges.signed(dag.op("sext.32.64", (small,), 8)) == (-4, 4)
    assert ranges.unsigned(dag.op("zext.32.64", (small,), 8)) == (0, 2**32 - 1)
    # the executor's sext of whole bytes: the low bytes the value's own, the high ones a node
    high = dag.op("sext.32.64", (small,), 8)
    pieces = tuple(int(s) for s in dag.symbols(small)) + tuple(high * 16 + k for k in range(4, 8))
    assert ranges.signed(dag.from_symbols(pieces)) == (-4, 4)


def test_a_select_is_the_union_of_its_ways_or_the_way_its_condition_decides() -> None:
    dag, ranges, x = setup()
    low = dag.op("and", (x, c(dag, 3)), 8)
    condition = dag.op("icmp.ult", (x, c(dag, 100)), 1)
    chosen = dag.op("select", (condition, low, c(dag, 1000)), 8)
    assert ranges.unsigned(chosen) == (0, 1000)
    decided = dag.op("icmp.ult", (low, c(dag, 4)), 1)  # always true
    assert ranges.truth(decided) is True
    assert ranges.unsigned(dag.op("select", (decided, low, c(dag, 1000)), 8)) == (0, 3)


def test_a_byte_holding_an_i1_or_an_i8_gets_no_arithmetic() -> None:
    dag, ranges, b = setup(1)
    one = c(dag, 1, 1)
    # i1: 1 - 1 ... and 0 - 1 is 1, an i8's 255: only the full byte is sound for both
    assert ranges.unsigned(dag.op("sub", (c(dag, 0, 1), one), 1)) == (0, 255)
    assert ranges.unsigned(dag.op("and", (b, one), 1)) == (0, 1)


def test_wrapped_intervals_meet_and_turn_into_views() -> None:
    assert intersect((250, 260), (0, 3), 8) == (0, 3)
    assert intersect((250, 260), (100, 120), 8) is None
    assert unsigned((250, 260), 8) == (0, 255) and signed((250, 260), 8) == (-6, 4)


# -- assumptions --------------------------------------------------------------------------------
def test_an_assumed_compare_bounds_the_node_it_compares() -> None:
    dag, ranges, x = setup()
    index = dag.op(
        "add", (dag.op("and", (dag.op("lshr", (x, c(dag, 51)), 8), c(dag, 4096)), 8), x), 8
    )
    assert ranges.unsigned(index) == (0, 2**64 - 1)
    fails = dag.op("icmp.ugt", (index, c(dag, 4095)), 1)
    assert ranges.assume(fails, False)  # assert(!(index > 4095))
    assert ranges.unsigned(index) == (0, 4095)
    assert ranges.unsigned(dag.op("shl", (index, c(dag, 10)), 8)) == (0, 4095 << 10)


def test_an_assumption_through_and_or_and_negation() -> None:
    dag, ranges, x = setup()
    y = dag.leaf(0, 1, 8)
    both = dag.op(
        "and",
        (dag.op("icmp.sge", (x, c(dag, 0)), 1), dag.op("icmp.slt", (x, c(dag, 512)), 1)),
        1,
    )
    assert ranges.assume(both, True)
    assert ranges.unsigned(x) == (0, 511)
    # and(true, a) fails: a fails; not(b) holds: b fails
    masked = dag.op("and", (c(dag, 1, 1), dag.op("icmp.uge", (y, c(dag, 64)), 1)), 1)
    assert ranges.assume(masked, False)
    assert ranges.unsigned(y) == (0, 63)


def test_merged_asserts_bound_each_operand_of_an_or() -> None:
    dag, ranges, x = setup()
    y = dag.leaf(0, 1, 8)
    assert ranges.assume(dag.op("icmp.ult", (dag.op("or", (x, y), 8), c(dag, 4096)), 1), True)
    assert ranges.unsigned(x) == (0, 4095) and ranges.unsigned(y) == (0, 4095)


def test_a_bound_by_another_node_and_an_assumption_known_false() -> None:
    dag, ranges, x = setup(4)
    n = dag.op("and", (dag.leaf(1, 0, 4), c(dag, 1023, 4)), 4)  # a size up to 1023
    assert ranges.assume(dag.op("icmp.ult", (x, n), 1), True)
    assert ranges.unsigned(x) == (0, 1022)
    never = dag.op("icmp.ugt", (n, c(dag, 5000, 4)), 1)
    assert ranges.assume(never, True) is False


# -- soundness against evaluation ---------------------------------------------------------------
_BINARY = ("add", "sub", "mul", "and", "or", "xor", "smax", "smin", "umax", "umin")
_PREDICATES = ("eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge")


def _random_dag(seed: int) -> tuple[Dag, list[int], list[int], list[tuple[int, bool]]]:
    """A random DAG over two 2-byte leaves: (dag, leaves, nodes, facts)."""
    rng = random.Random(seed)
    dag = Dag()
    leaves = [dag.leaf(0, 0, 2), dag.leaf(0, 1, 2)]
    nodes = list(leaves)

    def constant() -> int:
        return dag.const(rng.choice([0, 1, 2, 3, 7, 255, 256, 4095, 0x7FFF, 0x8000, 0xFFFF]), 2)

    for _ in range(rng.randint(2, 8)):
        kind = rng.random()
        a = rng.choice(nodes)
        if kind < 0.45:
            b = rng.choice(nodes + [constant()])
            node = dag.op(rng.choice(_BINARY), (a, b), 2)
        elif kind < 0.65:
            node = dag.op(
                rng.choice(("shl", "lshr", "ashr")), (a, dag.const(rng.randrange(16), 2)), 2
            )
        elif kind < 0.8:
            condition = dag.op(f"icmp.{rng.choice(_PREDICATES)}", (a, constant()), 1)
            node = dag.op("select", (condition, a, rng.choice(nodes + [constant()])), 2)
        else:
            wide = dag.op(rng.choice(("zext.16.32", "sext.16.32")), (a,), 4)
            node = dag.op("trunc.32.16", (dag.op("add", (wide, dag.const(3, 4)), 4),), 2)
        nodes.append(node)
    facts = []
    for _ in range(rng.randint(0, 2)):
        subject = rng.choice(nodes)
        facts.append((dag.op(f"icmp.{rng.choice(_PREDICATES)}", (subject, constant()), 1), True))
    return dag, leaves, nodes, facts


def _inside(value: int, interval: tuple[int, int], bits: int) -> bool:
    lo, hi = interval
    return (value - lo) % (1 << bits) <= hi - lo


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10**9))
def test_every_value_on_inputs_meeting_the_assumptions_lies_in_its_range(seed: int) -> None:
    dag, leaves, nodes, facts = _random_dag(seed)
    ranges = Ranges(dag)
    for node, holds in facts:
        ranges.assume(node, holds)
    intervals = {n: ranges.interval(n) for n in nodes}
    rng = random.Random(seed)
    edges = [0, 1, 2, 0x7FFF, 0x8000, 0xFFFF, 0xFFFE, 4095, 4096]
    for _ in range(300):
        values = {
            leaf: rng.choice(edges) if rng.random() < 0.3 else rng.randrange(1 << 16)
            for leaf in leaves
        }
        try:
            if not all(evaluate(dag, n, values) & 1 == holds for n, holds in facts):
                continue
            for n in nodes:
                value = evaluate(dag, n, values)
                assert _inside(value, intervals[n], 8 * dag.width[n]), (dag.describe(n), value)
        except NotEvaluable:
            continue
