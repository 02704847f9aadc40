"""The reduce/scan matching's shortcuts and memo (issue 26: validation speed): a shared memo, a
warm simplification memo and the one-op walk give what fresh, general matching gives, and a
wrong combine is still told apart."""

from __future__ import annotations

import random
from types import SimpleNamespace as Ns

import pytest

from llverify.emitted.checks import (
    _expand,
    _expand_one_op,
    _NotCombined,
    _one_op,
    combine_template,
    expand_combine,
)
from llverify.emitted.sim.rewrite import _simplify, simpler_step, simplified
from llverify.emitted.sim.symbolic import Dag

FADD = Ns(
    params=("%a", "%b"),
    param_types=("f32", "f32"),
    returns=("%s",),
    ops=(Ns(results=("%s",), name="arith.addf", operands=("%a", "%b"), attributes="",
            result_types=("f32",)),),
)  # fmt: skip
NEG_ZERO = 1 << 31  # -0.0, the identity of IEEE addition


def _sum(dag: Dag, leaves: list[int], rng: random.Random) -> int:
    """A random combine tree over ``leaves`` in order, with identity steps sprinkled in."""
    if len(leaves) == 1:
        node = leaves[0]
    else:
        cut = rng.randrange(1, len(leaves))
        node = dag.op("fadd", (_sum(dag, leaves[:cut], rng), _sum(dag, leaves[cut:], rng)), 4)
    if rng.random() < 0.2:
        node = dag.op("fadd", (node, dag.const(NEG_ZERO, 4)), 4)
    return node


def _scan(dag: Dag, rows: int, length: int) -> list[int]:
    """Prefix sums of each row: element k of a row is element k-1's node plus leaf k (nodes
    shared between the outputs, as the memo expects)."""
    out = []
    for row in range(rows):
        acc = dag.leaf(0, row * length, 4)
        out.append(acc)
        for k in range(1, length):
            acc = dag.op("fadd", (acc, dag.leaf(0, row * length + k, 4)), 4)
            out.append(acc)
    return out


def _built(seed: int) -> tuple[Dag, list[int]]:
    rng = random.Random(seed)
    dag = Dag()
    leaves = [dag.leaf(0, k, 4) for k in range(64)]
    return dag, [_sum(dag, leaves[8 * r : 8 * r + 8], rng) for r in range(8)] + _scan(dag, 2, 16)


@pytest.mark.parametrize("seed", range(6))
def test_shared_memo_and_walk_give_what_fresh_general_matching_gives(seed: int) -> None:
    """The reference: general matching, a fresh memo per node, in a DAG of its own (built
    alike: the same node numbers) whose simplification memo starts empty for each node."""
    dag, nodes = _built(seed)
    templates = combine_template(FADD, dag)
    steps = _one_op(dag, templates[0])
    assert steps is not None
    shared: dict[tuple[int, int], tuple[int, ...]] = {}
    for node in nodes:
        alike, same_nodes = _built(seed)
        assert same_nodes == nodes
        reference = _expand(alike, node, 0, combine_template(FADD, alike), [0], {})
        assert expand_combine(dag, node, 0, templates, [0], shared) == reference
        assert _expand_one_op(dag, node, steps, templates, [0], {}) == reference
    assert shared  # the memo was used


def test_a_foreign_element_is_still_refused_with_a_warm_memo() -> None:
    """Negative control: an element of another buffer in the tree is no combine of the input,
    also after the tree's other parts were matched and memoised."""
    dag = Dag()
    x, y, other = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4), dag.leaf(1, 0, 4)
    templates = combine_template(FADD, dag)
    memo: dict[tuple[int, int], tuple[int, ...]] = {}
    good = dag.op("fadd", (x, y), 4)
    assert expand_combine(dag, good, 0, templates, [0], memo) == (0, 1)
    bad = dag.op("fadd", (good, other), 4)
    with pytest.raises(_NotCombined):
        expand_combine(dag, bad, 0, templates, [0], memo)
    twice = dag.op("fadd", (good, x), 4)  # element 0 twice: matched, and then refuted by count
    assert sorted(expand_combine(dag, twice, 0, templates, [0], memo)) == [0, 0, 1]


def test_simpler_step_is_one_step_of_simplified() -> None:
    dag = Dag()
    x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    zero, neg_zero = dag.const(0, 4), dag.const(NEG_ZERO, 4)
    cases = [
        x,
        dag.op("fadd", (x, y), 4),
        dag.op("fadd", (x, neg_zero), 4),
        dag.op("fadd", (neg_zero, neg_zero), 4),  # both identities: kept as it is
        dag.op("fadd", (x, zero), 4),  # +0.0 is no identity of IEEE addition
        dag.op("add", (dag.op("or", (x, zero), 4), zero), 4),
        dag.op("select", (dag.const(0, 1), x, y), 4),
        dag.op("select", (dag.op("fcmp.olt", (x, y), 1), x, y), 4),
    ]
    for node in cases:
        step = simpler_step(dag, node)
        assert (step is None) == (_simplify(dag, node) == node)
        assert simplified(dag, node) == (node if step is None else simplified(dag, step))


def test_differing_inputs_share_one_memo_and_replay_fresh() -> None:
    """The two values of a pair are evaluated with one memo per try (they share most of their
    nodes): the witness found replays with fresh evaluations of each; a pair that is the same
    value stays without one (negative control)."""
    from llverify.emitted.sim.replay import differing_inputs, evaluate

    dag = Dag()
    xs = [dag.leaf(0, k, 4) for k in range(6)]

    def nan_max(a: int, b: int) -> int:  # Inductor's maximum: a if a > b or a is NaN, else b
        keep = dag.op("or", (dag.op("fcmp.ogt", (a, b), 1), dag.op("fcmp.uno", (a, a), 1)), 1)
        return dag.op("select", (keep, a, b), 4)

    def fold(order: list[int]) -> int:
        acc = xs[order[0]]
        for k in order[1:]:
            acc = nan_max(acc, xs[k])
        return acc

    forward, backward = fold([0, 1, 2, 3, 4, 5]), fold([5, 4, 3, 2, 1, 0])
    for byte in range(4):
        found = differing_inputs(dag, (forward, byte), (backward, byte))
        if found is None:
            continue
        values, a, b = found
        assert a != b
        assert evaluate(dag, forward, values) >> 8 * byte & 0xFF == a
        assert evaluate(dag, backward, values) >> 8 * byte & 0xFF == b
    assert differing_inputs(dag, (forward, 3), (backward, 3)) is not None  # -0 against +0
    total = dag.op("fadd", (dag.op("fadd", (xs[0], xs[1]), 4), xs[2]), 4)
    assert differing_inputs(dag, (total, 0), (total, 0)) is None
