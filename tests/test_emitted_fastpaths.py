"""The simulator's array-speed paths give exactly what their one-at-a-time definitions give:
DAG nodes of every thread made in bulk (issue 26), the global regions' interval index, the
reduce check's direct walk of a one-op combine and matching without search."""

from __future__ import annotations

from types import SimpleNamespace as Ns

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.emitted.checks import _expand, _NotCombined, combine_template, expand_combine
from llverify.emitted.sim import symbolic
from llverify.emitted.sim.memory import GlobalMemory
from llverify.emitted.sim.rewrite import _matches, match
from llverify.emitted.sim.symbolic import Dag, Val, canonical_op, unique_rows


class _OneByOne(Dag):
    """The definitions: :meth:`Dag.op` and :meth:`Dag.from_symbols` row by row."""

    def nodes_of(self, value: Val) -> np.ndarray:
        unique, inverse = np.unique(value.byte_symbols(), axis=0, return_inverse=True)
        made = [self.from_symbols(tuple(int(s) for s in row)) for row in unique]
        return np.array(made, dtype=np.int64)[inverse.reshape(-1)]

    def op_rows(self, name: str, rows: np.ndarray, nbytes: int) -> np.ndarray:
        made = [self.op(name, tuple(int(x) for x in row), nbytes) for row in rows]
        return np.array(made, dtype=np.int64)

    def _plain_rows(self, name: str, columns: list[np.ndarray], nbytes: int) -> None:
        return None  # every op through the distinct rows and op_rows

    def _fresh_rows(self, name: str, columns: list[np.ndarray], nbytes: int) -> None:
        return None  # looked up, even where an operand is no operation's operand yet


_NAMES = ("fadd", "fsub", "add", "sub", "mul", "sdiv", "and", "icmp.slt", "icmp.eq", "fcmp.olt")


def _program(seed: int, dag: Dag) -> list[object]:
    """A random sequence of data ops on values mixing whole nodes, pieces of nodes (bytes
    nodes), constant bytes (with the odd -257), undefined bytes and concrete values; what
    each op gives in every thread."""
    rng = np.random.default_rng(seed)
    for k in range(6):
        dag.leaf(0, k, 4)
    for k in range(3):
        dag.leaf(1, k, 1)

    def value(nbytes: int) -> Val:
        if rng.random() < 0.25:
            return Val(8 * nbytes, ints=rng.integers(0, 3, 8).astype(np.uint64))
        rows = []
        for _ in range(8):
            pick = rng.random()
            node = int(rng.integers(len(dag.nodes)))
            if pick < 0.3:
                rows.append([-1 - int(b) for b in rng.integers(0, 3, nbytes)])
            elif pick < 0.8 and dag.width[node] == nbytes:
                rows.append([node * 16 + b for b in range(nbytes)])
            else:
                symbols = [-257, -1000, -5, 17, 33, 1, node * 16]
                rows.append([symbols[int(i)] for i in rng.integers(0, len(symbols), nbytes)])
        return Val(8 * nbytes, syms=np.array(rows, dtype=np.int64))

    results: list[object] = []
    for _ in range(20):
        nbytes = int(rng.choice([1, 2, 4, 4, 8, 12]))
        if rng.random() < 0.2:
            name, operands, out = "select", [value(1), value(nbytes), value(nbytes)], nbytes
        else:
            name = str(rng.choice(_NAMES))
            operands = [value(nbytes), value(nbytes)]
            out = 1 if "cmp" in name else nbytes
        try:
            got = dag.apply(name, operands, out)
        except symbolic.Unmodelled as exc:
            results.append(str(exc))
            continue
        results.append((None if got.ints is None else got.ints.tolist(), got.syms is None))
        if got.syms is not None:
            results.append(got.syms.tolist())
    return results


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 1024]))
def test_nodes_made_in_bulk_are_the_nodes_made_one_by_one(seed: int, plain: int) -> None:
    """Same values in every thread, and the same nodes made in the same order (the node
    numbers are the byte symbols); with the plain ops' rows made in Python (``plain``
    threads at most) or all through numpy's distinct rows."""
    fast, slow = Dag(), _OneByOne()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbolic, "_PLAIN_ROWS", plain)
        assert _program(seed, fast) == _program(seed, slow)
    assert fast.nodes == slow.nodes and fast.width == slow.width


def _chains(seed: int, dag: Dag) -> list[list[int]]:
    """Random accumulator chains over 8 threads, as a matmul's fmuladds make them: each op
    reads the last result in some threads and older nodes (leaves, earlier results, a
    constant) in others, some ops commutative with operands in both orders, some repeated
    (found again); the nodes of each result."""
    rng = np.random.default_rng(seed)
    leaves = dag.new_leaves(0, 6, 4).tolist()
    acc = np.array(leaves[:1] * 8, dtype=np.int64)
    made: list[list[int]] = []
    for _ in range(30):
        name = str(rng.choice(["fadd", "fsub", "fmuladd", "fmul", "fcmp.olt", "maxnum"]))
        arity = 3 if name == "fmuladd" else 2
        older = [*leaves, dag.const(int(rng.integers(3)), 4), *sum(made[-4:], [])]
        columns = [np.array(rng.choice(older, 8), dtype=np.int64) for _ in range(arity)]
        chained = rng.random(8) < rng.choice([0.5, 1.0])
        columns[int(rng.integers(arity))][chained] = acc[chained]
        if rng.random() < 0.3:
            columns = columns[::-1]
        value = dag.apply(name, [Val(32, syms=symbolic.symbols_of(c, 4)) for c in columns], 4)
        nodes = dag.nodes_of(value)
        made.append(nodes.tolist())
        if name != "fcmp.olt":
            acc = nodes
    return made


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_chains_made_without_lookup_are_the_nodes_made_one_by_one(seed: int) -> None:
    """Ops where every thread reads a node that is no operation's operand yet are made
    without looking them up (Dag._fresh_rows): the same nodes in the same order as looked up
    one by one, and found again by a later lookup."""
    fast, slow = Dag(), _OneByOne()
    assert _chains(seed, fast) == _chains(seed, slow)
    assert fast.nodes == slow.nodes and fast.width == slow.width
    for node, key in enumerate(fast.nodes):  # every operation node is found again
        if key[0] not in ("leaf", "const", "bytes"):
            assert fast.op(key[0], tuple(key[1:]), fast.width[node]) == node


def test_a_fresh_chain_is_made_without_lookup_and_a_repeat_is_found() -> None:
    """The fast path is taken on an accumulator chain (a negative control: not when every
    thread's operands are operands already), and its nodes are found afterwards."""
    dag = Dag()
    a = dag.new_leaves(0, 4, 4)
    acc = dag.nodes_of(dag.apply("fmul", [Val(32, syms=symbolic.symbols_of(a, 4))] * 2, 4))
    first = len(dag.nodes)
    made = dag._fresh_rows("fmuladd", [a, a[::-1], acc], 4)
    assert made is not None and made.tolist() == [first, first + 1, first + 2, first + 3]
    assert dag._fresh_rows("fmuladd", [a, a[::-1], acc], 4) is None  # all operands now
    assert dag.op("fmuladd", (int(a[3]), int(a[0]), int(acc[3])), 4) == first + 3
    assert len(dag.nodes) == first + 4


def _runs(seed: int, dag: Dag, batched: bool) -> list[list[int]]:
    """Random runs of fmuladd/fsub calls over 8 threads, independent or chained through one
    operand, on operands drawn from leaves, constants and earlier results (some duplicated
    across threads, some repeated): made by Dag.apply_run as far as it goes (``batched``)
    and the rest one call at a time, or all one at a time; the nodes of each result."""
    rng = np.random.default_rng(seed)
    pool = [dag.new_leaves(0, 8, 4), dag.new_leaves(1, 8, 4)]
    pool.append(np.array([dag.const(int(v), 4) for v in rng.integers(0, 2, 8)]))
    made: list[list[int]] = []
    for _ in range(8):
        name = str(rng.choice(["llvm.fmuladd.f32", "fsub"]))
        arity = 3 if "fmuladd" in name else 2
        chain = None if rng.random() < 0.4 else int(rng.integers(arity))
        length = int(rng.integers(2, 7))
        columns: list[list[np.ndarray | None]] = []
        for k in range(length):
            row: list[np.ndarray | None] = []
            for j in range(arity):
                if chain is not None and k and j == chain:
                    row.append(None)
                    continue
                picked = pool[int(rng.integers(len(pool)))].copy()
                if rng.random() < 0.3:
                    picked[rng.integers(8)] = picked[rng.integers(8)]
                row.append(picked)
            columns.append(row)
        done = dag.apply_run(name, columns, 4, chain) if batched else []
        results = [dag.nodes_of(v) for v in done]
        for k in range(len(done), length):
            operands = [
                results[-1] if c is None else c
                for c in columns[k]  # type: ignore[misc]
            ]
            if k == len(done) and k and chain is not None and not done:
                operands[chain] = results[-1]
            value = dag.apply(name, [Val(32, syms=symbolic.symbols_of(o, 4)) for o in operands], 4)
            results.append(dag.nodes_of(value))
        made.extend(r.tolist() for r in results)
        pool.extend(results[-2:])
    return made


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_runs_made_at_once_are_the_nodes_made_one_by_one(seed: int) -> None:
    """Dag.apply_run makes, for as many calls of a run as it takes, the nodes the calls
    make one at a time, in the same order; the rest are then made one at a time."""
    fast, slow = Dag(), Dag()
    assert _runs(seed, fast, True) == _runs(seed, slow, False)
    assert fast.nodes == slow.nodes and fast.width == slow.width


def test_a_run_is_cut_where_a_call_would_not_be_made_fresh() -> None:
    """Negative controls: apply_run makes none of a run whose first call reads only
    operands already, none of a chain whose first call has two threads on one row, none
    of a commutative op, and stops an independent run at the first call that is not
    fresh."""
    dag = Dag()
    a, b, c, d, e = (dag.new_leaves(k, 4, 4) for k in range(5))
    assert len(dag.apply_run("fsub", [[a, b], [c, c]], 4)) == 2
    assert dag.apply_run("fsub", [[a, b], [d, d]], 4) == []  # a, b are operands now
    assert dag.apply_run("fadd", [[d, d], [d, e]], 4) == []  # commutative
    twice = d.copy()
    twice[1] = twice[0]
    assert dag.apply_run("llvm.fmuladd.f32", [[twice] * 3, [a, b, None]], 4, 2) == []
    assert len(dag.apply_run("fsub", [[d, a], [e, a], [c, d]], 4)) == 2  # the third: no


def test_a_value_remembers_its_nodes_in_one_dag_and_its_bytes_stay_put() -> None:
    """nodes_of remembers a value's nodes, per DAG, and makes its byte symbols read-only so
    they cannot drift from them; a view of another array's bytes is not remembered."""
    dag, other = Dag(), Dag()
    leaves = dag.new_leaves(0, 4, 4)
    value = dag.apply("fadd", [Val(32, syms=leaves[:, None] * 16 + np.arange(4))] * 2, 4)
    assert value.known_nodes is not None and value.known_nodes[0] is dag
    assert dag.nodes_of(value) is value.known_nodes[1]
    with pytest.raises(ValueError):
        value.syms[0, 0] = -1  # type: ignore[index]
    _ = other.new_leaves(0, 8, 8)  # in the other DAG the same numbers are wider nodes
    assert other.nodes_of(value).tolist() != dag.nodes_of(value).tolist()
    base = np.concatenate([leaves[:, None] * 16 + np.arange(4)] * 2, axis=1)
    view = Val(32, syms=base[:, :4])
    assert dag.nodes_of(view).tolist() == leaves.tolist() and view.known_nodes is None
    base[:, :4] = -1  # what the view shows changes with its base: nothing stale remembered
    assert dag.nodes_of(view).tolist() == [dag.const(0, 4)] * 4  # bytes -1: constant 0


def test_a_plain_op_on_constants_in_some_threads_still_folds_there() -> None:
    """Negative control of the Python path: a thread whose operands are all constants gets
    the folded constant (the op goes the general way), the others a node."""
    dag = Dag()
    x = dag.leaf(0, 0, 4)
    tagged = Val(32, syms=np.array([[x * 16 + b for b in range(4)], [-3, -1, -1, -1]]))
    total = dag.apply("add", [tagged, Val(32, syms=np.array([[-2, -1, -1, -1]] * 2))], 4)
    assert total.syms[1].tolist() == [-4, -1, -1, -1]  # type: ignore[index]
    assert dag.kind(int(total.syms[0, 0]) // 16) == "add"  # type: ignore[index]
    assert (
        dag._plain_rows("add", [np.array([x, x]), np.array([dag.const(2, 4)] * 2)], 4) is not None
    )
    assert (
        dag._plain_rows(
            "select", [np.array([dag.const(1, 1)]), np.array([x])] * 1 + [np.array([x])], 4
        )
        is None
    )


class _LeafByLeaf(Dag):
    """The definition of leaves: each one interned by its key, one at a time."""

    def leaf(self, buffer: int, index: int, nbytes: int) -> int:
        return self._intern(("leaf", buffer, index), nbytes)

    def leaves_of(self, buffer: int, indices: np.ndarray, nbytes: int) -> np.ndarray:
        return np.array([self.leaf(buffer, int(i), nbytes) for i in indices], dtype=np.int64)

    def new_leaves(self, buffer: int, count: int, nbytes: int) -> np.ndarray:
        if any(("leaf", buffer, i) in self._table(nbytes) for i in range(count)):
            raise ValueError(f"buffer {buffer}: a leaf of it made already")
        return self.leaves_of(buffer, np.arange(count), nbytes)


def _leaf_calls(seed: int, dag: Dag) -> list[object]:
    """A random sequence of :meth:`Dag.leaf`, :meth:`Dag.leaves_of` (consecutive ranges, as
    an open region's fresh pages, and scattered indices) and :meth:`Dag.new_leaves` over four
    buffers and two widths; what each gives."""
    rng = np.random.default_rng(seed)
    results: list[object] = []
    for _ in range(30):
        buffer, nbytes, pick = int(rng.integers(4)), int(rng.choice([1, 4])), rng.random()
        start = int(rng.integers(0, 40))
        if pick < 0.3:
            results.append(dag.leaf(buffer, start, nbytes))
        elif pick < 0.6:
            results.append(dag.leaves_of(buffer, np.arange(start, start + 8), nbytes).tolist())
        elif pick < 0.8:
            indices = rng.integers(0, 48, size=int(rng.integers(1, 6)))
            results.append(dag.leaves_of(buffer, indices, nbytes).tolist())
        else:
            try:
                results.append(dag.new_leaves(buffer, int(rng.integers(1, 9)), nbytes).tolist())
            except ValueError:
                results.append("made already")
        results.append(dag.op("fadd", (len(dag.nodes) - 1, 0), 4))  # other nodes in between
    return results


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_leaves_made_in_runs_are_the_leaves_made_one_by_one(seed: int) -> None:
    """Runs of leaves (made in bulk, not in the index tables) give the nodes, in the same
    order, that interning each leaf in turn gives; a leaf is never made twice, and
    ``new_leaves`` refuses a buffer with a leaf made already (the negative control)."""
    fast, slow = Dag(), _LeafByLeaf()
    assert _leaf_calls(seed, fast) == _leaf_calls(seed, slow)
    assert fast.nodes == slow.nodes and fast.width == slow.width
    assert len(set(zip(fast.nodes, fast.width))) == len(fast.nodes)  # no node twice


def test_new_leaves_refuse_a_buffer_with_a_leaf_in_a_run() -> None:
    dag = Dag()
    dag.leaves_of(3, np.arange(4, 8), 2)  # a run from index 4
    with pytest.raises(ValueError, match="buffer 3"):
        dag.new_leaves(3, 5, 2)
    assert dag.new_leaves(3, 4, 2).tolist() == [4, 5, 6, 7]  # indices 0-3 are free
    assert dag.leaves_of(3, np.array([7, 0]), 2).tolist() == [3, 4]


def test_without_cyclic_collection_turns_it_on_again_on_an_error() -> None:
    import gc

    assert gc.isenabled()
    with pytest.raises(RuntimeError), symbolic.without_cyclic_collection():
        assert not gc.isenabled()
        with symbolic.without_cyclic_collection():  # nested: still off when the inner ends
            pass
        assert not gc.isenabled()
        raise RuntimeError("stop")
    assert gc.isenabled()


def test_operands_in_canonical_order_are_one_node_made_once() -> None:
    """Threads holding ``a + b`` and ``b + a`` share one node; ``a < b`` and ``b > a`` too;
    a thread on constants folds to constant bytes, others stay tagged."""
    dag = Dag()
    a, b = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    x = Val(32, syms=symbolic.symbols_of(np.array([a, b, a]), 4))
    y = Val(32, syms=symbolic.symbols_of(np.array([b, a, a]), 4))
    total = dag.apply("fadd", [x, y], 4).syms
    assert total is not None and total[0, 0] == total[1, 0] != total[2, 0]
    less = dag.apply("icmp.slt", [x, y], 1).syms
    assert less is not None and dag.kind(int(less[1, 0]) // 16) == "icmp.sgt"
    mixed = dag.apply("add", [Val.concrete(np.array([2, 3, 4]), 32, 3), x], 4)
    constant = dag.apply("add", [Val.concrete(2, 32, 3), Val.concrete(5, 32, 3)], 4)
    assert mixed.syms is not None and constant.ints is not None
    assert constant.ints.tolist() == [7, 7, 7]


def test_rows_seen_again_give_the_same_nodes_and_make_none(monkeypatch) -> None:
    """nodes_of remembers rows by their bytes: asked again (after the memory is cleared,
    too) it gives the same nodes, makes no new one, and what it gives cannot be changed."""
    dag = Dag()
    a = dag.leaf(0, 0, 4)
    rows = np.array([[a * 16 + 1, a * 16, -1, -2], [-3, -1, -1, -1]], dtype=np.int64)
    first = dag.nodes_of(Val(32, syms=rows))
    made = len(dag.nodes)
    again = dag.nodes_of(Val(32, syms=rows.copy()))
    assert again.tolist() == first.tolist() and len(dag.nodes) == made
    with pytest.raises(ValueError):
        again[0] = 0
    monkeypatch.setattr(symbolic, "_ROWS_REMEMBERED", 1)
    other = np.array([[a * 16 + 2, a * 16, -1, -2], [-3, -1, -1, -1]], dtype=np.int64)
    dag.nodes_of(Val(32, syms=other))  # the memory is full: cleared
    assert dag.nodes_of(Val(32, syms=rows)).tolist() == first.tolist()
    assert dag.kind(int(first[0])) == "bytes" and dag.constant_value(int(first[1])) == 2


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(st.integers(1, 40), st.integers(1020, 1100)),
    st.integers(2, 4),
    st.integers(-(2**63), 2**63 - 1 - 2**62),
    st.integers(0, 62),
    st.integers(0, 2**32 - 1),
)
def test_packed_unique_rows_are_numpys(rows: int, cols: int, low: int, bits: int, seed: int):
    """One sort key per row (mixed radix) or numpy's own row sort when the digits do not fit:
    the same distinct rows, in the same order, and the same inverse."""
    rng = np.random.default_rng(seed)
    table = rng.integers(low, low + 2**bits, size=(rows, cols), dtype=np.int64, endpoint=True)
    unique, inverse = unique_rows(table)
    expected, expected_inverse = np.unique(table, axis=0, return_inverse=True)
    assert unique.tolist() == expected.tolist()
    assert inverse.tolist() == expected_inverse.reshape(-1).tolist()


def test_regions_added_after_accesses_are_found() -> None:
    """The interval index is rebuilt when a buffer is added: an address in it is in bounds
    once it exists, and out of bounds (a violation) before."""
    memory = GlobalMemory()
    memory.add("a", 1000, np.full(16, -1), "input")
    addresses, threads = np.array([[2000], [1004]]), np.array([0, 1])
    assert memory.read(addresses, threads, "ld").tolist() == [[symbolic.UNDEFINED], [-1]]
    assert [v.kind for v in memory.violations] == ["out of bounds"]
    memory.add("b", 1990, np.full(32, -3), "input")
    assert memory.read(addresses, threads, "ld").tolist() == [[-3], [-1]]
    assert len(memory.violations) == 1
    assert memory._region_indices(np.array([999, 1000, 1015, 1016, 2021, 2022])).tolist() == [
        -1,
        0,
        0,
        -1,
        1,
        -1,
    ]


def _add_region(name: str = "arith.addf") -> object:
    op = Ns(
        results=("%s",),
        name=name,
        operands=("%b", "%a"),
        attributes="",
        result_types=("f32",),
    )
    return Ns(params=("%a", "%b"), param_types=("f32", "f32"), returns=("%s",), ops=(op,))


def _general(dag: Dag, node: int, templates: list[int], inputs: list[int]) -> object:
    """expand_combine by matching alone (no direct walk), or the refusal's text."""
    try:
        return _expand(dag, node, 0, templates, inputs, {})
    except _NotCombined as exc:
        return str(exc)


def _walked(dag: Dag, node: int, templates: list[int], inputs: list[int]) -> object:
    """expand_combine as the checks call it, or the refusal's text."""
    try:
        return expand_combine(dag, node, 0, templates, inputs)
    except _NotCombined as exc:
        return str(exc)


@pytest.mark.parametrize("region, op", [("arith.addf", "fadd"), ("arith.subf", "fsub")])
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_walking_a_one_op_combine_is_matching_it(region: str, op: str, seed: int) -> None:
    """Trees of the combine's op over elements (``b - a``: its first operand is the second
    placeholder), with identity steps (``x + -0.0``, a select on a constant), elements of
    another buffer, other ops and constants: the direct walk finds what matching finds,
    refusals included."""
    rng = np.random.default_rng(seed)
    dag = Dag()
    templates = combine_template(_add_region(region), dag)
    pool = [dag.leaf(0, k, 4) for k in range(6)] + [dag.leaf(1, 0, 4)]
    for _ in range(30):
        a, b = (int(pool[int(i)]) for i in rng.integers(len(pool), size=2))
        pick = rng.random()
        if pick < 0.6:
            made = dag.op(op, (a, b), 4)
        elif pick < 0.7:
            made = dag.op("fadd", (a, dag.const(0x80000000, 4)), 4)
        elif pick < 0.8:
            made = dag.op("select", (dag.const(int(rng.integers(2)), 1), a, b), 4)
        elif pick < 0.9:
            made = dag.op("fmul", (a, b), 4)
        else:
            made = dag.const(int(rng.integers(4)), 4)
        pool.append(made)
    for node in pool:
        assert _walked(dag, node, templates, [0]) == _general(dag, node, templates, [0])


def test_walking_a_combine_refuses_what_matching_refuses() -> None:
    """Negative controls: an element of another operand and a foreign op are refused."""
    dag = Dag()
    templates = combine_template(_add_region(), dag)
    x, y, z = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4), dag.leaf(1, 0, 4)
    assert expand_combine(dag, dag.op("fadd", (y, x), 4), 0, templates, [0]) in ((0, 1), (1, 0))
    with pytest.raises(_NotCombined, match="not an element of operand 0"):
        expand_combine(dag, dag.op("fadd", (x, z), 4), 0, templates, [0])
    with pytest.raises(_NotCombined, match="not an application of the combine region"):
        expand_combine(dag, dag.op("fmul", (x, y), 4), 0, templates, [0])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_matching_without_search_binds_what_the_search_binds_first(seed: int) -> None:
    """``match`` on a one-op template over distinct placeholders takes the node apart
    directly; the bindings are the search's first, from empty and from partial bindings."""
    rng = np.random.default_rng(seed)
    dag = Dag()
    p, q = dag.placeholder(0, 4), dag.placeholder(1, 4)
    templates = [dag.op(canonical_op(n), (p, q), 4) for n in ("fadd", "fsub", "maxnum")]
    templates.append(dag.op("fsub", (q, p), 4))
    pool = [dag.leaf(0, k, 4) for k in range(4)]
    for _ in range(20):
        a, b = (int(pool[int(i)]) for i in rng.integers(len(pool), size=2))
        name = str(rng.choice(["fadd", "fsub", "maxnum", "fmul"]))
        pool.append(dag.op(name, (a, b), 4))
        if rng.random() < 0.3:
            pool.append(dag.op("fadd", (pool[-1], dag.const(0x80000000, 4)), 4))
    for template in templates:
        for node in pool:
            for start in ({}, {0: int(pool[0])}):
                bindings = dict(start)
                found = match(dag, template, node, bindings)
                first = next(iter(_matches(dag, template, node, dict(start))), None)
                assert found == (first is not None)
                assert bindings == (first if first is not None else start)
