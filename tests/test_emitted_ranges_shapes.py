"""Ranges memoised by shape (llverify.emitted.sim.ranges): ``interval_by_cases`` and ``under``
share results between nodes of one shape (another thread's address, another thread's guard),
and only there: every memoised result equals the one computed afresh."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.emitted.sim.guarded import low_zero_bits
from llverify.emitted.sim.ranges import Interval, Ranges, closed
from llverify.emitted.sim.symbolic import Dag

_HUGE = 0x47CE4780  # 105615.0, libdevice's bound of the fast sine and cosine path
_INF = 0x7F800000


def _dag() -> Dag:
    """A DAG holding the constants of :func:`_guard` and :func:`_address` before any leaf
    (as a kernel's constants are made before its threads' nodes: one order of operands)."""
    dag = Dag()
    for value, nbytes in [(1, 1), (_HUGE, 4), (0x7E800000, 4), (_INF, 4), (23, 4), (224, 4)]:
        dag.const(value, nbytes)
    for value, nbytes in [(2**32 - 128, 4), (5, 4), (6, 4), (4, 8), (0x8000000000001A4, 8)]:
        dag.const(value, nbytes)
    return dag


def _guard(dag: Dag, x: int, bound: int = _HUGE) -> int:
    """``!(|x| < bound) && !(|x| == inf)``: the slow path of libdevice's ``sinf``."""
    magnitude = dag.op("nvvm.fabs", (x,), 4)
    one = dag.const(1, 1)
    small = dag.op("xor", (dag.op("fcmp.ult", (magnitude, dag.const(bound, 4)), 1), one), 1)
    finite = dag.op("xor", (one, dag.op("fcmp.oeq", (magnitude, dag.const(_INF, 4)), 1)), 1)
    return dag.op("and", (small, finite), 1)


def _address(dag: Dag, x: int, top: int = 6) -> int:
    """The private address of ``result[top - ((x >> 23 & 224) - 128) / 32]`` (an i32
    array at 0x1a4 of the private window), as libdevice's Payne-Hanek reduction reads it."""
    exponent = dag.op("and", (dag.op("lshr", (x, dag.const(23, 4)), 4), dag.const(224, 4)), 4)
    biased = dag.op("add", (exponent, dag.const(2**32 - 128, 4)), 4)
    index = dag.op("sub", (dag.const(top, 4), dag.op("lshr", (biased, dag.const(5, 4)), 4)), 4)
    offset = dag.op("mul", (dag.op("sext.32.64", (index,), 8), dag.const(4, 8)), 8)
    return dag.op("add", (offset, dag.const(0x8000000000001A4, 8)), 8)


def _afresh(
    dag: Dag, facts: list[tuple[int, bool]], node: int, *more: tuple[int, bool]
) -> Interval:
    """``interval_by_cases`` of ``node`` under ``facts``, then each of ``more`` in turn,
    computed with nothing memoised."""
    ranges = Ranges(dag)
    ranges.assume_all(facts)
    for condition, holds in more:
        ranges.assume(condition, holds)
    return ranges._by_cases(ranges.canonical(node))


def test_the_same_address_of_two_threads_shares_one_interval_and_one_guard() -> None:
    dag = _dag()
    xs = [dag.leaf(0, t, 4) for t in range(2)]
    guards = [_guard(dag, x) for x in xs]
    addresses = [_address(dag, x) for x in xs]
    ranges = Ranges(dag)
    under = [ranges.under([(g, True)]) for g in guards]
    assert len(ranges._added) == 1  # the second guard's bounds replayed, not derived
    for u, g in zip(under, guards):
        fresh = ranges._copy()
        fresh.assume_all([(g, True)])
        assert (u.facts, u._bounds, u._pieces) == (fresh.facts, fresh._bounds, fresh._pieces)
    found = [u.interval_by_cases(a) for u, a in zip(under, addresses)]
    assert len(ranges._by_shape) == 1
    # |x| >= 105615.0: exponent bits 0x8f..0xfe, so (x >> 23 & 224) is 128..224, index 3..6
    assert found == [(0x8000000000001A4 + 12, 0x8000000000001A4 + 24)] * 2
    assert found[0] == _afresh(dag, [(guards[0], True)], addresses[0])
    plain = under[0].unsigned(addresses[0])  # the cover of |x|'s two pieces: wider
    assert plain[0] < found[0][0] and plain[1] >= found[0][1]


def test_a_thread_whose_data_is_bounded_otherwise_gets_its_own_interval() -> None:
    dag = _dag()
    xs = [dag.leaf(0, t, 4) for t in range(2)]
    guards = [_guard(dag, x) for x in xs]
    addresses = [_address(dag, x) for x in xs]
    ranges = Ranges(dag)
    # a device assert bounds thread 1's float to exponents below 0xc0 (|x| < 2**65)
    ranges.assume(dag.op("icmp.ult", (xs[1], dag.const(0x60000000, 4)), 1), True)
    under = [ranges.under([(g, True)]) for g in guards]
    assert len(ranges._added) == 2  # the bound on x1 makes the guards' shapes differ
    found = [u.interval_by_cases(a) for u, a in zip(under, addresses)]
    assert len(ranges._by_shape) == 2
    facts = ranges.facts
    assert found[0] == _afresh(dag, facts, addresses[0], (guards[0], True))
    assert found[1] == _afresh(dag, facts, addresses[1], (guards[1], True))
    assert found[0] != found[1]  # one shared would be wrong for one of them


def test_a_guard_on_another_bound_gives_other_pieces_and_its_own_interval() -> None:
    dag = _dag()
    xs = [dag.leaf(0, t, 4) for t in range(2)]
    guards = [_guard(dag, xs[0]), _guard(dag, xs[1], bound=0x7E800000)]  # |x| >= 2**126
    addresses = [_address(dag, x) for x in xs]
    ranges = Ranges(dag)
    under = [ranges.under([(g, True)]) for g in guards]
    found = [u.interval_by_cases(a) for u, a in zip(under, addresses)]
    assert len(ranges._added) == 2 and len(ranges._by_shape) == 2
    assert found[1] == _afresh(dag, [(guards[1], True)], addresses[1])
    assert found[1] == (0x8000000000001A4 + 12, 0x8000000000001A4 + 12)  # exponent 0xfd, 0xfe


def test_a_node_used_twice_is_not_two_nodes_of_one_shape() -> None:
    """``x - x`` splits on the pieces of one node, ``x - y`` on those of two: one shape as
    trees, not as DAGs."""
    dag = _dag()
    x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    ranges = Ranges(dag)
    for leaf in (x, y):
        ranges.assume(_guard(dag, leaf), True)
    exponent = [dag.op("lshr", (leaf, dag.const(30, 4)), 4) for leaf in (x, y)]
    twice = dag.op("sub", (exponent[0], exponent[0]), 4)
    both = dag.op("sub", (exponent[0], exponent[1]), 4)
    assert ranges._shape(twice) != ranges._shape(both)
    got = [ranges.interval_by_cases(n) for n in (twice, both)]
    assert got == [_afresh(dag, [], n, *ranges.facts) for n in (twice, both)]
    assert got == [(0, 0), (2**32 - 2, 2**32 + 2)]  # x >> 30 is 1 or 3: x - x is 0, x - y -2..2


def test_a_turned_select_is_made_canonical_as_before() -> None:
    """A ``select`` on ``icmp ne`` below the address has another canonical form: the nodes
    made for it are the ones made when nothing is memoised, in the same order."""

    def build(dag: Dag) -> tuple[int, int]:
        x = dag.leaf(0, 0, 8)
        minus = dag.const(2**64 - 100, 8)
        safe = dag.op("select", (dag.op("icmp.ne", (x, minus), 1), x, dag.const(0, 8)), 8)
        assert_holds = dag.op("icmp.ult", (safe, dag.const(64, 8)), 1)
        return dag.op("add", (dag.op("shl", (safe, dag.const(2, 8)), 8), dag.const(64, 8)), 8), (
            assert_holds
        )

    mine, reference = Dag(), Dag()
    (address, holds), (address_ref, holds_ref) = build(mine), build(reference)
    ranges = Ranges(mine)
    ranges.assume(holds, True)
    got = ranges.interval_by_cases(address)
    want = _afresh(reference, [(holds_ref, True)], address_ref)
    assert got == want == (64, 64 + 63 * 4)
    assert mine.nodes == reference.nodes  # the same nodes made, in the same order


# -- every memoised result is the one computed afresh ----------------------------------------
_BINARY = ("add", "sub", "mul", "and", "or", "xor", "umax", "umin", "lshr")
_PREDICATES = ("eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge")
_FLOATS = (0x3F800000, 0x47CE4780, 0x7E800000, 0xBF800000)


def _expression(dag: Dag, rng: random.Random, leaf: int) -> tuple[int, int]:
    """A random expression over the 4-byte ``leaf`` and a guard on it, built by ``rng``."""
    nodes = [leaf]
    for _ in range(rng.randint(1, 6)):
        a = rng.choice(nodes)
        pick = rng.random()
        if pick < 0.5:
            constant = dag.const(rng.choice([1, 5, 23, 224, 255, 2**31, 2**32 - 128]), 4)
            b = rng.choice([constant, *nodes])
            node = dag.op(rng.choice(_BINARY), (a, b), 4)
        elif pick < 0.75:
            compare = dag.op(f"icmp.{rng.choice(_PREDICATES)}", (a, dag.const(7, 4)), 1)
            node = dag.op("select", (compare, a, dag.const(rng.randrange(9), 4)), 4)
        else:
            wide = dag.op(rng.choice(("zext.32.64", "sext.32.64")), (a,), 8)
            node = dag.op("trunc.64.32", (wide,), 4)
        nodes.append(node)
    magnitude = dag.op("nvvm.fabs", (leaf,), 4) if rng.random() < 0.7 else leaf
    predicate = rng.choice(("olt", "oge", "ult", "oeq"))
    guard = dag.op(f"fcmp.{predicate}", (magnitude, dag.const(rng.choice(_FLOATS), 4)), 1)
    if rng.random() < 0.5:
        limit = dag.const(rng.choice([2**30, 2**31, 0xC0000000]), 4)
        guard = dag.op("and", (guard, dag.op("icmp.ult", (leaf, limit), 1)), 1)
    return nodes[-1], guard


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 10**9))
def test_memoised_intervals_and_assumptions_equal_those_computed_afresh(seed: int) -> None:
    """Threads whose expressions are built alike (or not, when ``rng`` says so), some bounded
    by facts: each one's ``under`` and ``interval_by_cases`` through the memos equals what a
    fresh ``Ranges`` computes."""
    rng = random.Random(seed)
    dag = Dag()
    leaves = [dag.leaf(0, t, 4) for t in range(4)]
    shared = rng.randrange(10**9)
    built = [
        _expression(dag, random.Random(shared if rng.random() < 0.7 else rng.random()), x)
        for x in leaves
    ]
    ranges = Ranges(dag)
    facts = []
    for x in leaves:
        if rng.random() < 0.3:
            facts.append(
                (dag.op("icmp.ult", (x, dag.const(rng.choice([2**31, 2**30]), 4)), 1), True)
            )
    ranges.assume_all(facts)
    for (node, guard), holds in zip(built, [rng.random() < 0.8 for _ in built]):
        under = ranges.under([(guard, holds)])
        fresh = ranges._copy()
        fresh.assume_all([(guard, holds)])
        assert (under.facts, under._bounds, under._pieces) == (
            fresh.facts,
            fresh._bounds,
            fresh._pieces,
        )
        assert under.interval_by_cases(node) == _afresh(dag, facts, node, (guard, holds))
        assert ranges.interval_by_cases(node) == _afresh(dag, facts, node)


def test_a_shape_holds_the_alignment_only_where_it_holds_every_node_below() -> None:
    """One-byte arithmetic has no range of its own (an i1 or an i8), so a shape leaves out
    its operands: two addresses of one shape may differ in alignment below it, and are not
    :func:`closed`; an address of ``sext``, ``add`` and ``shl`` holds all of it."""
    dag = Dag()
    two, base = dag.const(2, 1), dag.const(0x1000, 8)
    a, b = dag.leaf(0, 0, 1), dag.leaf(0, 1, 1)
    aligned, plain = dag.op("shl", (a, two), 1), dag.op("add", (b, b), 1)
    offsets = [dag.op("add", (v, dag.op("shl", (a, two), 1)), 1) for v in (aligned, plain)]
    addresses = [dag.op("add", (base, dag.op("zext.8.64", (o,), 8)), 8) for o in offsets]
    ranges = Ranges(dag)
    (first, shape), (second, other) = (ranges.shaped_interval(n) for n in addresses)
    assert first == second == (0x1000, 0x10FF) and shape == other
    assert low_zero_bits(dag, addresses[0]) == 2 and low_zero_bits(dag, addresses[1]) == 0
    assert shape is not None and not closed(shape)
    wide = [dag.leaf(1, t, 4) for t in range(2)]
    scaled = [
        dag.op("add", (base, dag.op("shl", (dag.op("sext.32.64", (w,), 8), dag.const(3, 8)), 8)), 8)
        for w in wide
    ]
    (_, shape), (_, other) = (ranges.shaped_interval(n) for n in scaled)
    assert shape == other and shape is not None and closed(shape)
    assert low_zero_bits(dag, scaled[0]) == low_zero_bits(dag, scaled[1]) == 3


def test_a_condition_that_adds_no_bound_is_assumed_afresh_in_each_thread() -> None:
    """``(x & 7) < 8`` holds on every input: assuming it adds a fact and no bound, and the
    copy keeps the intervals it computed; a copy replayed from the memo would not, so it is
    not memoised (None), and every thread assumes it again."""
    dag = Dag()
    eight, seven = dag.const(8, 4), dag.const(7, 4)
    xs = [dag.leaf(0, t, 4) for t in range(2)]
    conditions = [dag.op("icmp.ult", (dag.op("and", (x, seven), 4), eight), 1) for x in xs]
    ranges = Ranges(dag)
    under = [ranges.under([(c, True)]) for c in conditions]
    assert list(ranges._added.values()) == [None]
    assert [u.facts for u in under] == [[(c, True)] for c in conditions]
    assert all(u._bounds == {} and u._memo for u in under)  # its intervals kept
