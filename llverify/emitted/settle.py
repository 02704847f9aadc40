"""Memory violations about *different values* settled by proof or by concrete replay.

The memory checks (:mod:`llverify.emitted.sim.memory`) compare the values two threads store to
one byte by their byte symbols: different DAG nodes there are different expressions, not yet
different values.  Before such a violation (a nondeterministic store, a race of two writes, a
conflicting global store, an inconsistent duplicate copy) is reported, each pair of values is
settled:

* **equal**: Z3 proves the two bytes equal on every input (:func:`llverify.smt.values.bytes_equal`:
  an ``i1`` behind ``trunc``/``zext`` wrappers against the bare bit, say).  The pair is no
  violation, and a violation all of whose pairs are equal is dropped;
* **different**: concrete leaf values on which the two bytes differ, found by evaluation
  (:func:`llverify.emitted.sim.replay.differing_inputs`), with exact semantics only (no NaN
  from arithmetic, no ``maxnum`` of signed zeros).  The violation is refuted with that replay;
* **open**: neither.  The violation makes the verdict unknown, never refuted.

Examples:
    >>> from llverify.emitted.sim.symbolic import Dag
    >>> dag = Dag()
    >>> x = dag.leaf(0, 0, 1)
    >>> wrapped = dag.op("zext.1.8", (dag.op("trunc.8.1", (x,), 1),), 1)
    >>> masked = dag.op("and", (x, dag.const(1, 1)), 1)
    >>> settle_pair(dag, (wrapped * 16, masked * 16)).outcome
    'equal'
    >>> settle_pair(dag, (wrapped * 16, x * 16)).outcome   # differs when x = 2
    'different'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from llverify.emitted.sim.memory import Violation
from llverify.emitted.sim.replay import Batches, differing_inputs
from llverify.emitted.sim.symbolic import Dag, node_and_byte

__all__ = ["Settled", "settle_pair", "settle_violations"]

#: at most this many value pairs are settled per violation (the rest make it open unless one
#: settled pair already differs)
_PAIRS = 4


@dataclass(frozen=True)
class Settled:
    """One pair of byte symbols settled: ``outcome`` is equal, different or open; ``replay``
    says on which leaf values the bytes differ (different only)."""

    outcome: str
    replay: str = ""


def settle_pair(
    dag: Dag,
    pair: tuple[int, int],
    float_types: tuple[str, ...] = ("f16", "bf16"),
    facts: tuple[tuple[int, bool], ...] = (),
    *,
    equal: Callable[[tuple[int, int], tuple[int, int]], bool] | None = None,
    memo: dict[tuple, Batches] | None = None,
) -> Settled:
    """Settle the byte symbols ``pair``: proved equal, replayed different (on inputs where the
    ``facts``, the run's assumptions, hold), or open.  ``equal``: the proof of two bytes
    equal (by default :func:`llverify.smt.values.bytes_equal` on ``dag``; one
    :class:`~llverify.smt.values.BytesEqual` shares its encoding between pairs); ``memo``:
    the replays' batches, shared between pairs (:func:`differing_inputs`).  (Z3 is imported
    here, when a pair is settled: the executor and its checks import without it.)"""
    first, second = (_symbol(dag, s) for s in pair)
    if first is None or second is None:  # an undefined byte: any value, so one that differs
        return Settled("different", "one of the bytes is undefined (any value)")
    if equal is None:
        from llverify.smt.values import BytesEqual

        equal = BytesEqual(dag)
    if equal(first, second):
        return Settled("equal")
    found = differing_inputs(dag, first, second, float_types=float_types, facts=facts, memo=memo)
    if found is None:
        return Settled("open")
    values, a, b = found
    return Settled(
        "different", f"replayed: with {_shown(dag, values)} the bytes are {a:#04x} and {b:#04x}"
    )


def _shown(dag: Dag, values: dict[int, int], limit: int = 6) -> str:
    """The leaf values of a replay, the ones that stand out first: when most leaves share one
    value (a sparse try), "every other element <that value>"."""
    if not values:
        return "no input element (both values are constants)"
    counts: dict[int, int] = {}
    for value in values.values():
        counts[value] = counts.get(value, 0) + 1
    common = max(counts, key=lambda v: counts[v])
    if counts[common] < 3:
        shown = ", ".join(f"{dag.describe(k)}={hex(v)}" for k, v in list(values.items())[:limit])
        return shown + (", ..." if len(values) > limit else "")
    rare = [(k, v) for k, v in values.items() if v != common][:limit]
    parts = [f"{dag.describe(k)}={hex(v)}" for k, v in rare]
    return ", ".join(parts + [f"every other element {hex(common)}"])


def _symbol(dag: Dag, symbol: int) -> tuple[int, int] | None:
    """(node, byte) of a byte symbol; a constant byte as a one-byte constant node."""
    found = node_and_byte(symbol)
    if found is not None:
        return found
    if symbol >= -256:
        return dag.const(-1 - symbol, 1), 0
    return None


def settle_violations(
    dag: Dag,
    violations: list[Violation],
    float_types: tuple[str, ...] = ("f16", "bf16"),
    facts: tuple[tuple[int, bool], ...] = (),
) -> tuple[list[Violation], list[Violation]]:
    """``violations`` after settling their value pairs: (the ones that stand, each different
    pair's replay added to its detail; the open ones).  A violation whose pairs are all equal
    is dropped; one without value pairs stands as it is.  ``facts``: the run's assumptions
    (device asserts' conditions), which a replay must satisfy.  The pairs share one encoding
    for Z3 and the replays' evaluations (the bytes of one pair of values are settled on the
    same tries)."""
    stand: list[Violation] = []
    equal = None
    memo: dict[tuple, Batches] = {}
    open_: list[Violation] = []
    for violation in violations:
        if not violation.values:
            stand.append(violation)
            continue
        if equal is None:
            from llverify.smt.values import BytesEqual

            equal = BytesEqual(dag)
        outcomes = [
            settle_pair(dag, pair, float_types, facts, equal=equal, memo=memo)
            for pair in violation.values[:_PAIRS]
        ]
        different = next((s for s in outcomes if s.outcome == "different"), None)
        if different is not None:
            stand.append(replace(violation, detail=f"{violation.detail}; {different.replay}"))
        elif len(violation.values) > _PAIRS or any(s.outcome == "open" for s in outcomes):
            open_.append(violation)
    return stand, open_
