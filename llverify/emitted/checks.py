"""The exact checks of one executed harness: each output element against its op's meaning.

* **move** (convert_layout, local_alloc/local_store/local_load and views, gather, shape ops):
  every element of the output buffer holds exactly the tagged input element the op's
  semantics names (its bytes are that element's bytes, in order).
* **reduce / scan**: each output element's DAG is decomposed into applications of the op's
  combine region (matched node by node, modulo only the primitive ops' real commutativity),
  which gives the exact sequence of input elements it combines.  A reduction must combine
  each element of its row exactly once; a scan must combine its prefix in order (the combine
  is associative, not commutative).  A DAG that is not built from the region is *unknown*
  (LLVM may have rewritten the region), never a pass.
* **counts** (histogram): the output equals the expected concrete counts.
* **memory**: uninitialised shared reads, out-of-bounds accesses, races between barriers and
  conflicting global stores found while executing (:mod:`llverify.emitted.sim.memory`).

Every refutation carries a :class:`Counterexample` (thread, address, expected element, what
was found), replayed by evaluating the found value and the expected one on concrete inputs.

Examples:
    >>> from types import SimpleNamespace as NS
    >>> add = NS(params=("%a", "%b"), param_types=("f32", "f32"), returns=("%s",),
    ...          ops=(NS(results=("%s",), name="arith.addf", operands=("%a", "%b"),
    ...                  attributes="", result_types=("f32",)),))
    >>> dag = Dag()
    >>> x = [dag.leaf(0, i, 4) for i in range(3)]
    >>> node = dag.op("fadd", (dag.op("fadd", (x[2], x[0]), 4), x[1]), 4)
    >>> sorted(expand_combine(dag, node, 0, combine_template(add, dag), [0]))
    [0, 1, 2]
    >>> is_commutative(add, dag)
    True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

import numpy as np

from llverify.emitted.settle import settle_violations
from llverify.emitted.sim.executor import Execution
from llverify.emitted.sim.memory import Region, Violation
from llverify.emitted.sim.replay import NotEvaluable, depends_on
from llverify.emitted.sim.rewrite import match, same_bool_rows, simpler_step, simplified
from llverify.emitted.sim.symbolic import UNDEFINED, Dag, node_and_byte, symbols_of, unique_rows
from llverify.proof.verdict import Status, Verdict

__all__ = [
    "CaseVerdict",
    "Counterexample",
    "Site",
    "check_case",
    "combine_template",
    "describe_violation",
    "expand_combine",
    "is_commutative",
    "mirrored_orders",
    "open_values",
    "unused_reads",
]

METHOD = "execution"  # how the verdicts are decided: every thread of the emitted code executed

_REGION_OPS = {
    "arith.addf": "fadd", "arith.subf": "fsub", "arith.mulf": "fmul", "arith.divf": "fdiv",
    "arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul", "arith.andi": "and",
    "arith.ori": "or", "arith.xori": "xor", "arith.maxnumf": "maxnum", "arith.minnumf": "minnum",
    "arith.maximumf": "maximum", "arith.minimumf": "minimum", "arith.maxsi": "smax",
    "arith.minsi": "smin", "arith.maxui": "umax", "arith.minui": "umin", "arith.select": "select",
}  # fmt: skip
_PREDICATES = {
    "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge", "eq", "ne", "olt", "ole", "ogt",
    "oge", "oeq", "one", "ord", "uno", "ueq", "une",
}  # fmt: skip


@dataclass(frozen=True)
class Counterexample:
    """Where the emitted code is wrong: the output element (index and address), the thread that
    wrote it and the store instruction, what it should hold and what it holds."""

    output: str
    element: tuple[int, ...]
    address: int | None
    thread: int | None
    store: str
    expected: str
    got: str
    replay: str

    def point(self) -> dict[str, int]:
        """The failing point as a :class:`~llverify.proof.verdict.Verdict` counterexample: the
        output element's coordinates (``dim0``, ...), its address and the thread that wrote it.

        >>> Counterexample("y", (2, 5), 96, 7, "", "x[5, 2]", "x[2, 5]", "").point()
        {'dim0': 2, 'dim1': 5, 'address': 96, 'thread': 7}
        """
        point = {f"dim{k}": index for k, index in enumerate(self.element)}
        if self.address is not None:
            point["address"] = self.address
        if self.thread is not None:
            point["thread"] = self.thread
        return point

    def to_dict(self) -> dict[str, Any]:
        return {
            "output": self.output,
            "element": list(self.element),
            "address": self.address,
            "thread": self.thread,
            "store": self.store,
            "expected": self.expected,
            "got": self.got,
            "replay": self.replay,
        }


@dataclass(frozen=True)
class Site:
    """The operation a verdict is about: its index among the module's ops, name, line, location
    and a description."""

    index: int
    op: str
    op_line: int
    location: str
    description: str

    @classmethod
    def of_case(cls, case: Any) -> Site:
        """The site of a harness case."""
        return cls(case.index, case.op.name, case.op_line, case.location, case.description)


def _violation_point(violation: Violation) -> dict[str, int]:
    point = {"thread": violation.thread, "address": violation.address}
    if violation.other_thread is not None:
        point["other_thread"] = violation.other_thread
    return point


@dataclass(frozen=True)
class CaseVerdict:
    """The verdict on one operation of the module: a :class:`~llverify.proof.verdict.Verdict`
    (status, claim, method, time, reason; refuted: the failing point) about the op at ``site``,
    with the output element found wrong (``counterexample``) or the memory check that failed
    (``violation``, its kind), and notes (e.g. an uninitialised shared read whose value is never
    used).

    >>> site = Site(0, "ttg.convert_layout", 12, "k.py:3", "a convert")
    >>> verdict = CaseVerdict.decided(site, Status.PROVED, "every element checked")
    >>> verdict.status.value, verdict.op_line, verdict.verdict.method
    ('proved', 12, 'execution')
    """

    site: Site
    verdict: Verdict
    counterexample: Counterexample | None = None
    violation: str = ""
    notes: tuple[str, ...] = ()

    @classmethod
    def decided(
        cls,
        site: Site,
        status: Status,
        claim: str,
        *,
        reason: str = "",
        counterexample: Counterexample | None = None,
        violation: Violation | None = None,
        time_s: float = 0.0,
    ) -> CaseVerdict:
        """The verdict ``status`` on ``site``: refuted ones carry the wrong output element
        (``counterexample``) or the failed memory check (``violation``)."""
        point = None
        if status is Status.REFUTED and counterexample is not None:
            point = counterexample.point()
        elif status is Status.REFUTED and violation is not None:
            point = _violation_point(violation)
        verdict = Verdict(status, claim, METHOD, time_s, point, reason=reason)
        kind = violation.kind if violation is not None else ""
        return cls(site, verdict, counterexample, kind)

    @property
    def index(self) -> int:
        return self.site.index

    @property
    def op(self) -> str:
        return self.site.op

    @property
    def op_line(self) -> int:
        return self.site.op_line

    @property
    def location(self) -> str:
        return self.site.location

    @property
    def description(self) -> str:
        return self.site.description

    @property
    def status(self) -> Status:
        return self.verdict.status

    @property
    def claim(self) -> str:
        return self.verdict.claim

    @property
    def reason(self) -> str:
        return self.verdict.reason

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "op": self.op,
            "line": self.op_line,
            "location": self.location,
            "description": self.description,
            "status": self.status.value,
            "claim": self.claim,
            "reason": self.reason,
            "violation": self.violation,
            "notes": list(self.notes),
            "counterexample": None
            if self.counterexample is None
            else self.counterexample.to_dict(),
        }


# -- combine regions --------------------------------------------------------------------------
def combine_template(region: Any, dag: Dag) -> list[int]:
    """The region's results as nodes of ``dag`` over placeholders (:meth:`Dag.placeholder`),
    one per block argument; constants become constant nodes."""
    env: dict[str, int] = {}
    for k, (name, ty) in enumerate(zip(region.params, region.param_types)):
        env[name] = dag.placeholder(k, _type_bytes(ty))
    for op in region.ops:
        width = _type_bytes(op.result_types[0]) if op.result_types else 4
        if op.name == "arith.constant":
            ty = op.result_types[0] if op.result_types else "f32"
            env[op.results[0]] = dag.const(_constant_value(op.attributes, ty), width)
            continue
        if op.name in ("arith.cmpf", "arith.cmpi"):
            predicate = next(
                (
                    w
                    for w in op.attributes.replace(",", " ")
                    .replace("<", " ")
                    .replace(">", " ")
                    .replace("=", " ")
                    .split()
                    if w in _PREDICATES
                ),
                None,
            )
            if predicate is None:
                raise ValueError(
                    f"combine region: cannot read the predicate of {op.name} {op.attributes!r}"
                )
            prefix = "fcmp" if op.name == "arith.cmpf" else "icmp"
            name = f"{prefix}.{predicate}"
            width = 1
        elif op.name in _REGION_OPS:
            name = _REGION_OPS[op.name]
        else:
            raise ValueError(f"combine region: operation {op.name} is not modelled")
        env[op.results[0]] = dag.op(name, tuple(env[o] for o in op.operands), width)
    return [env[r] for r in region.returns]


def _type_bytes(ty: str) -> int:
    digits = "".join(c for c in ty if "0" <= c <= "9")
    return max(1, int(digits) // 8) if digits else 4


def _constant_value(attributes: str, ty: str = "f32") -> int:
    """The bit pattern of a region constant (``0.000000e+00``, ``true``, ``0x7FC00000``, ``16``)
    of type ``ty`` (a float literal is rounded to ``ty``: f16, bf16, f32 or f64)."""
    words = attributes.replace(":", " ").split()
    for word in words:
        if word in ("true", "false"):
            return int(word == "true")
        if word.lower().startswith(("0x", "-0x")):
            return int(word, 16) & ((1 << (8 * _type_bytes(ty))) - 1)
        try:
            value = float(word)
        except ValueError:
            continue
        if "." in word or "e" in word or word.lower() in ("inf", "-inf", "nan"):
            if ty == "f64":
                return int(np.array([value], dtype=np.float64).view(np.uint64)[0])
            if ty == "f16":
                return int(np.array([value], dtype=np.float16).view(np.uint16)[0])
            bits = int(np.array([value], dtype=np.float32).view(np.uint32)[0])
            if ty == "bf16":  # round to nearest even (the literal is exact in bf16 as printed)
                return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
            return bits
        return int(value) & ((1 << (8 * _type_bytes(ty))) - 1)
    raise ValueError(f"combine region: cannot read the constant {attributes!r}")


def is_commutative(region: Any, dag: Dag) -> bool:
    """Whether the combine is commutative by the primitive ops' own commutativity: its
    results, built with the two sides swapped, are the same hash-consed nodes."""
    count = len(region.params) // 2
    swapped = SimpleNamespace(
        params=region.params[count:] + region.params[:count],
        param_types=region.param_types,
        ops=region.ops,
        returns=region.returns,
    )
    return combine_template(region, dag) == combine_template(swapped, dag)


class _NotCombined(Exception):  # noqa: N818 - a control-flow signal, not an error
    pass


def expand_combine(
    dag: Dag,
    node: int,
    result: int,
    templates: list[int],
    inputs: list[int],
    memo: dict[tuple[int, int], tuple[int, ...]] | None = None,
) -> tuple[int, ...]:
    """The input element indices (in order) that ``node`` (result ``result`` of the combine)
    combines; ``inputs[k]`` is the DAG buffer id of operand k.  Raises ``_NotCombined``."""
    memo = {} if memo is None else memo
    if len(inputs) == 1 and result == 0:
        steps = _one_op(dag, templates[0])
        if steps is not None:
            return _expand_one_op(dag, node, steps, templates, inputs, memo)
    return _expand(dag, node, result, templates, inputs, memo)


def _expand(
    dag: Dag,
    node: int,
    result: int,
    templates: list[int],
    inputs: list[int],
    memo: dict[tuple[int, int], tuple[int, ...]],
) -> tuple[int, ...]:
    """:func:`expand_combine` by matching ``node`` against the template."""
    node = simplified(dag, node)
    cached = memo.get((node, result))
    if cached is not None:
        return cached
    leaf = dag.leaf_of(node)
    if leaf is not None:
        if leaf[0] != inputs[result]:
            raise _NotCombined(f"{dag.describe(node)} is not an element of operand {result}")
        memo[(node, result)] = (leaf[1],)
        return (leaf[1],)
    bindings: dict[int, int] = {}
    if not match(dag, templates[result], node, bindings):
        raise _NotCombined(f"{dag.describe(node, 3)} is not an application of the combine region")
    count = len(inputs)
    sides = []
    for side in (range(count), range(count, 2 * count)):
        sequences = {
            expand_combine(dag, bindings[k], k % count, templates, inputs, memo)
            for k in side
            if k in bindings
        }
        if len(sequences) != 1:
            raise _NotCombined(
                "the operands of one combine step hold different elements"
                if sequences
                else "a combine step ignores one side"
            )
        sides.append(sequences.pop())
    out = sides[0] + sides[1]
    memo[(node, result)] = out
    return out


def _one_op(dag: Dag, template: int) -> tuple[str, bool] | None:
    """``(op, swapped)`` when ``template`` is one binary op over the two placeholders of a
    one-operand combine (``fadd(a, b)``; ``swapped``: its first operand is ``b``), else
    None."""
    key = dag.nodes[template]
    if len(key) != 3 or key[0] in ("const", "leaf", "bytes"):
        return None
    indices = [dag.placeholder_index(o) for o in key[1:]]
    if sorted(i for i in indices if i is not None) != [0, 1]:
        return None
    return key[0], indices[0] == 1


def _expand_one_op(
    dag: Dag,
    node: int,
    steps: tuple[str, bool],
    templates: list[int],
    inputs: list[int],
    memo: dict[tuple[int, int], tuple[int, ...]],
) -> tuple[int, ...]:
    """:func:`expand_combine` of a one-operand combine of one op (:func:`_one_op`), each
    application of the op taken apart directly (what matching finds first: the op's operands
    simplified, bound in the template's order); any other node goes to the general
    matching."""
    name, swapped = steps
    nodes, buffer = dag.nodes, inputs[0]
    simplified(dag, node)  # (makes simplified's memo, looked up in line below)
    simple = dag.memo["simplified"]

    def walk(given: int) -> tuple[int, ...]:
        key = nodes[given]
        if key[0] == "leaf" and key[1] == buffer:  # (a leaf is its own simplified form)
            return (int(key[2]),)
        node = simple.get(given)
        if node is None:  # most nodes are their own simplified form: told without the memo
            node = given if simpler_step(dag, given) is None else simplified(dag, given)
        cached = memo.get((node, 0))
        if cached is not None:
            return cached
        key = nodes[node]
        if key[0] == "leaf" and key[1] == buffer:
            element: tuple[int, ...] = (int(key[2]),)
            memo[(node, 0)] = element
            return element
        if key[0] != name or len(key) != 3:
            return _expand(dag, given, 0, templates, inputs, memo)
        first, second = (key[2], key[1]) if swapped else (key[1], key[2])
        out = walk(first) + walk(second)  # (walk simplifies what it is given)
        memo[(node, 0)] = out
        return out

    return walk(node)


# -- checking one case ---------------------------------------------------------------------------
_Finding = tuple[Status, str, Counterexample | None]


@dataclass(frozen=True)
class _Output:
    """One expectation of a case with the output buffer the run left."""

    case: Any
    run: Execution
    expectation: Any
    spec: Any  # the output's buffer spec
    region: Region
    buffer_ids: dict[str, int]

    @property
    def element_bytes(self) -> int:
        return max(1, self.spec.element_bits // 8)

    @property
    def rows(self) -> np.ndarray:
        """The byte symbols of each output element, shape (elements, element bytes)."""
        return self.region.data.reshape(-1, self.element_bytes)

    def element(self, flat: int) -> tuple[int, ...]:
        return _element(self.spec, flat)

    def store_of(self, flat: int) -> tuple[int | None, str, int]:
        """The thread that stored output element ``flat``, the store, and its address."""
        offset = flat * self.element_bytes
        writer = int(self.region.writer[offset])
        site = int(self.region.site[offset])
        where = self.run.memory.sites[site] if site >= 0 else "never stored"
        return (writer if writer >= 0 else None), where, self.region.base + offset

    def counterexample(self, flat: int, expected: str, got: str, replay: str) -> Counterexample:
        thread, store, address = self.store_of(flat)
        return Counterexample(
            self.spec.name, self.element(flat), address, thread, store, expected, got, replay
        )


def check_case(
    case: Any,
    run: Execution,
    regions: dict[str, Region],
    buffer_ids: dict[str, int],
    claim: str,
    violations: list[Violation],
) -> CaseVerdict:
    """Check every expectation of ``case`` on the executed ``run``, then the memory checks
    (``violations``, the ones found in the case's code)."""
    started = time.perf_counter()
    site = Site.of_case(case)
    undecided: _Finding | None = None  # an unknown waits: a refutation anywhere wins
    for expectation in case.expectations:
        spec = next(b for b in case.buffers if b.name == expectation.output)
        output = _Output(case, run, expectation, spec, regions[expectation.output], buffer_ids)
        check = _CHECKS.get(expectation.kind)
        found = (
            check(output)
            if check is not None
            else (Status.UNKNOWN, f"expectation kind {expectation.kind!r}", None)
        )
        if found is not None and found[0] is Status.REFUTED:
            return _decided(site, claim, found, started)
        undecided = undecided or found
    memory = _memory_verdict(case, run, buffer_ids, site, claim, violations, started)
    if memory is not None:
        return memory
    if undecided is not None:
        return _decided(site, claim, undecided, started)
    return CaseVerdict.decided(site, Status.PROVED, claim, time_s=time.perf_counter() - started)


def _decided(site: Site, claim: str, found: _Finding, started: float) -> CaseVerdict:
    status, reason, counterexample = found
    return CaseVerdict.decided(
        site,
        status,
        claim,
        reason=reason,
        counterexample=counterexample,
        time_s=time.perf_counter() - started,
    )


def _memory_verdict(
    case: Any,
    run: Execution,
    buffer_ids: dict[str, int],
    site: Site,
    claim: str,
    violations: list[Violation],
    started: float,
) -> CaseVerdict | None:
    """The verdict of the memory checks, None when none failed.  Violations about different
    values are settled first (:mod:`llverify.emitted.settle`): proved equal, dropped; replayed
    different, refuted; neither, unknown.  Threads storing one combine of the same elements in
    two orders (``f(x, y)``, ``f(y, x)``) to one address are refuted as an *order race* when
    the replay shows the two differ (the result depends on which thread wins, as
    triton-lang/triton#11614's unpredicated store makes it), unknown otherwise."""
    stand, open_ = settle_violations(run.dag, violations, _float_types(case))
    mirrored = [
        v
        for v in stand + open_
        if mirrored_orders(case, run.dag, buffer_ids, v) or _masked_reorder(case, run.dag, v)
    ]
    races = [v for v in stand if v in mirrored and v.kind in _STORED_BY_BOTH]
    plain = [v for v in stand if v not in mirrored]
    open_ += [v for v in stand if v in mirrored and v.kind not in _STORED_BY_BOTH]
    if plain:
        first, status, reason = plain[0], Status.REFUTED, describe_violation(plain[0])
    elif races:
        first, status, reason = (
            replace(races[0], kind="order race"),
            Status.REFUTED,
            _order_race(races[0]),
        )
    elif open_:
        first, status = open_[0], Status.UNKNOWN
        reason = _mirrored_open(first) if first in mirrored else open_values(first)
    else:
        return None
    return CaseVerdict.decided(
        site,
        status,
        claim,
        reason=reason,
        violation=first,
        time_s=time.perf_counter() - started,
    )


def _masked_reorder(case: Any, dag: Dag, violation: Violation) -> bool:
    """A reduce's masked duplicate copy that combines exactly the elements of the stored copy
    (the same leaves), only not as the same expression: another order of the combine, which
    the region matching cannot always name (LLVM rewrites ``ogt(a, b)`` as ``olt(b, a)``).
    Never stored, so no wrong value is written; not proved either."""
    if case.op.name != "tt.reduce" or violation.kind != "inconsistent copies":
        return False
    for pair in violation.values:
        first, second = (node_and_byte(symbol) for symbol in pair)
        if first is None or second is None:
            return False
        if set(dag.leaves(first[0])) != set(dag.leaves(second[0])):
            return False
    return bool(violation.values)


#: violations where both threads' values are stored (a masked duplicate copy is not)
_STORED_BY_BOTH = ("nondeterministic store", "race", "conflicting store")


def _float_types(case: Any) -> tuple[str, ...]:
    """How 2-byte floats of ``case`` read: its one 2-byte float type, else both."""
    floats = {spec.element for spec in case.buffers} & {"f16", "bf16"}
    return tuple(floats) if len(floats) == 1 else ("f16", "bf16")


def _order_race(violation: Violation) -> str:
    return (
        f"order race in {violation.space} memory at address {violation.address}: threads "
        f"{violation.thread} and {violation.other_thread} hold the combine of the same "
        "elements in two orders and both store it, so the value kept depends on which "
        f"thread wins ({violation.kind}); {violation.detail}; at {violation.where}"
    )


def _mirrored_open(violation: Violation) -> str:
    if violation.kind == "inconsistent copies":
        return (
            f"thread {violation.thread}'s masked duplicate copy combines the elements of the "
            f"copy thread {violation.other_thread} stores in another order ({violation.detail}); "
            "it is never stored, so no wrong value is written, but the copies are not one "
            "value: tl.reduce assumes a bitwise commutative combine (triton-lang/triton#4962); "
            f"at {violation.where}"
        )
    return (
        "the combine is not commutative, which tl.reduce assumes "
        f"(triton-lang/triton#4962): threads {violation.thread} and "
        f"{violation.other_thread} hold the combine of the same elements in different orders "
        f"and both store it to {violation.space} address {violation.address} "
        f"({violation.kind}); no input was found on which the two differ; at {violation.where}"
    )


def open_values(violation: Violation) -> str:
    """Why ``violation`` leaves a verdict unknown: its two stored values were neither proved
    equal nor replayed different (:mod:`llverify.emitted.settle`)."""
    return (
        f"{describe_violation(violation)}; the two values are different expressions, "
        "neither proved equal nor found different on concrete inputs"
    )


def unused_reads(reads: list[Violation], limit: int = 3) -> tuple[str, ...]:
    """Notes on shared reads of bytes no thread wrote whose values reach no output (an
    ``ldmatrix`` or load whose registers go unused): seen, so reported, and a verdict that
    carries one is not plainly proved (``--require-proofs`` fails).  The first ``limit``, and
    how many more."""
    notes = [
        f"reads shared byte {read.address} (thread {read.thread}) that no thread wrote, at "
        f"{read.where}; its value reaches no output (else it is refuted)"
        for read in reads[:limit]
    ]
    if len(reads) > limit:
        notes.append(f"and {len(reads) - limit} more reads of unwritten shared bytes")
    return tuple(notes)


def describe_violation(violation: Violation) -> str:
    """One line: what, where in memory, which threads, and the instruction."""
    other = violation.other_thread
    return (
        f"{violation.kind} in {violation.space} memory at address {violation.address} by "
        f"thread {violation.thread}"
        + (f" (and thread {other})" if other is not None else "")
        + f": {violation.detail}; at {violation.where}"
    )


def mirrored_orders(case: Any, dag: Dag, buffer_ids: dict[str, int], violation: Violation) -> bool:
    """Whether every pair of values ``violation`` found different is one combine, not
    commutative, of the same elements in two orders (``f(x, y)`` against ``f(y, x)``): a use
    of the combine outside what Triton assumes, not a wrong element."""
    if not violation.values or case.op.name != "tt.reduce":
        return False  # a scan must combine in order (tl.associative_scan: associative only)
    for expectation in case.expectations:
        if expectation.kind != "reduce":
            continue
        if is_commutative(expectation.combine, dag):
            continue
        templates = combine_template(expectation.combine, dag)
        inputs = [buffer_ids[name] for name in expectation.inputs]
        memo: dict[tuple[int, int], tuple[int, ...]] = {}
        if all(_same_elements(dag, pair, templates, inputs, memo) for pair in violation.values):
            return True
    return False


def _same_elements(
    dag: Dag,
    pair: tuple[int, int],
    templates: list[int],
    inputs: list[int],
    memo: dict[tuple[int, int], tuple[int, ...]],
) -> bool:
    first, second = (node_and_byte(symbol) for symbol in pair)
    if first is None or second is None or first[1] != second[1]:
        return False
    for result in range(len(templates)):
        try:
            a = expand_combine(dag, first[0], result, templates, inputs, memo)
            b = expand_combine(dag, second[0], result, templates, inputs, memo)
        except _NotCombined:
            continue
        if a != b and sorted(a) == sorted(b):
            return True
    return False


def _element(spec: Any, flat: int) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, spec.shape)) if spec.shape else ()


# -- move ------------------------------------------------------------------------------------------
def _check_move(output: _Output) -> _Finding | None:
    """Every output element holds exactly the bytes of the input element the op names."""
    case, run = output.case, output.run
    source_buffer = np.asarray(output.expectation.source_buffer).reshape(-1)
    source_index = np.asarray(output.expectation.source_index).reshape(-1)
    rows = output.rows
    expected = _expected_bytes(output, source_buffer, source_index)
    wrong = np.flatnonzero((rows != expected).any(axis=1))
    if output.spec.element == "i1" and wrong.size:
        wrong = wrong[~_same_bools(run.dag, rows[wrong], expected[wrong])]
    if wrong.size == 0:
        return None
    flat = int(wrong[0])
    got_node = run.dag.from_symbols(_symbols(rows[flat]))
    got = (
        "nothing (never written)" if (rows[flat] == UNDEFINED).all() else run.dag.describe(got_node)
    )
    source_spec = case.buffers[int(source_buffer[flat])]
    coordinates = ", ".join(map(str, _element(source_spec, int(source_index[flat]))))
    want = f"{source_spec.name}[{coordinates}]"
    replay = _replay_move(rows[flat], expected[flat])
    return (
        Status.REFUTED,
        f"{wrong.size} of {rows.shape[0]} output elements are wrong",
        output.counterexample(flat, want, got, replay),
    )


def _same_bools(dag: Dag, got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """:func:`~llverify.emitted.sim.rewrite.same_bool` of each row pair of ``got`` and
    ``expected`` (shape (n, nbytes)), decided once per distinct pair (a broadcast repeats
    each of its few input elements many times)."""
    pairs, inverse = unique_rows(np.concatenate([got, expected], axis=1))
    width = got.shape[1]
    return same_bool_rows(dag, pairs[:, :width], pairs[:, width:])[inverse.reshape(-1)]


def _expected_bytes(
    output: _Output, source_buffer: np.ndarray, source_index: np.ndarray
) -> np.ndarray:
    """The byte symbols each output element must hold: its source element's (a tagged leaf,
    or the concrete bytes of a values buffer), looked up for all elements of a buffer at once
    (``source_buffer``: indices into the case's buffers)."""
    run, element_bytes = output.run, output.element_bytes
    expected = np.empty_like(output.rows)
    offsets = np.arange(element_bytes, dtype=np.int64)[None, :]
    for b in np.unique(source_buffer):
        spec = output.case.buffers[int(b)]
        here = source_buffer == b
        indices = source_index[here].astype(np.int64)
        if spec.role == "values":
            region = run.memory.regions[output.buffer_ids[spec.name]]
            assert isinstance(region, Region)  # a harness's buffers all have a size
            expected[here] = region.data[indices[:, None] * element_bytes + offsets]
            continue
        leaves = run.dag.leaves_of(output.buffer_ids[spec.name], indices, element_bytes)
        expected[here] = symbols_of(leaves, element_bytes)
    return expected


def _symbols(row: np.ndarray) -> tuple[int, ...]:
    return tuple(int(s) for s in row)


def _replay_move(got: np.ndarray, expected: np.ndarray) -> str:
    """Concrete replay: give every input element a distinct value (its node number) and compare."""
    got_values = [_distinct_value(int(s)) for s in got]
    want_values = [_distinct_value(int(s)) for s in expected]
    same = got_values == want_values
    return (
        "replayed: with each input element holding its own distinct value, the element holds "
        f"{got_values[0]} where {want_values[0]} is expected"
        if not same
        else "not replayed"
    )


def _distinct_value(symbol: int) -> int:
    """The byte's value when each input element holds its own node number: that number for a
    byte of a node, the symbol itself for constant and undefined bytes."""
    located = node_and_byte(symbol)
    return symbol if located is None else located[0]


# -- counts ----------------------------------------------------------------------------------------
def _check_counts(output: _Output) -> _Finding | None:
    """The output holds the expected concrete counts."""
    element_bytes, rows = output.element_bytes, output.rows
    values = np.asarray(output.expectation.values).reshape(-1).astype(np.uint64)
    shifts = (np.arange(element_bytes, dtype=np.uint64) * np.uint64(8))[None, :]
    expected = -1 - ((values[:, None] >> shifts) & np.uint64(0xFF)).astype(np.int64)
    wrong = np.flatnonzero((rows != expected).any(axis=1))
    if wrong.size == 0:
        return None
    flat = int(wrong[0])
    got_bytes = rows[flat]
    got = (
        "nothing (never written)"
        if (got_bytes == UNDEFINED).all()
        else str(sum((-1 - int(b)) << (8 * k) for k, b in enumerate(got_bytes)))
        if (got_bytes < 0).all() and (got_bytes >= -256).all()
        else "a tagged value"
    )
    writer = int(output.region.writer[flat * element_bytes])
    return (
        Status.REFUTED,
        f"{wrong.size} of {rows.shape[0]} counts are wrong",
        Counterexample(
            output.spec.name,
            output.element(flat),
            output.region.base + flat * element_bytes,
            writer if writer >= 0 else None,
            "",
            str(int(values[flat])),
            got,
            "replayed: the counts are concrete integers",
        ),
    )


# -- reduce and scan -------------------------------------------------------------------------------
@dataclass
class _Combine:
    """What a reduce or scan output element must combine, and how to read what it does."""

    output: _Output
    inputs: list[int]  # the DAG buffer id of each operand
    input_spec: Any
    templates: list[int]
    commutative: bool  # associative (as the language requires) and commutative: any order
    lines: np.ndarray  # the input's element indices, the combined axis last
    memo: dict[tuple[int, int], tuple[int, ...]]

    @classmethod
    def of(cls, output: _Output) -> _Combine:
        expectation, dag = output.expectation, output.run.dag
        input_spec = next(b for b in output.case.buffers if b.name == expectation.inputs[0])
        shape = input_spec.shape
        flat_inputs = np.arange(int(np.prod(shape))).reshape(shape)
        return cls(
            output,
            [output.buffer_ids[name] for name in expectation.inputs],
            input_spec,
            combine_template(expectation.combine, dag),
            is_commutative(expectation.combine, dag),
            np.moveaxis(flat_inputs, expectation.axis, -1),
            {},
        )

    def wanted(self, flat: int) -> tuple[int, ...]:
        """The input elements output element ``flat`` combines, in order: its row (reduce),
        or its prefix along the axis (scan; the suffix, last first, when reversed)."""
        expectation, lines = self.output.expectation, self.lines
        if expectation.kind == "reduce":  # (row ``flat`` of the lines in C order)
            return tuple(lines.reshape(-1, lines.shape[-1])[flat].tolist())
        axis = expectation.axis
        position = np.unravel_index(flat, self.input_spec.shape)
        line = lines[tuple(p for d, p in enumerate(position) if d != axis)]
        k = position[axis]
        return tuple(int(i) for i in (line[: k + 1] if not expectation.reverse else line[k:][::-1]))

    def check(self, flat: int, row: np.ndarray) -> _Finding | None:
        """The finding on output element ``flat`` holding ``row``, None when it is right."""
        output = self.output
        if (row == UNDEFINED).any():
            return (
                Status.REFUTED,
                "an output element is never written",
                output.counterexample(
                    flat,
                    "a combined value",
                    "nothing (never written)",
                    "replayed: the element's bytes are never stored",
                ),
            )
        want = self.wanted(flat)
        node = output.run.dag.from_symbols(_symbols(row))
        try:
            got = expand_combine(
                output.run.dag,
                node,
                output.expectation.result,
                self.templates,
                self.inputs,
                self.memo,
            )
        except _NotCombined as exc:
            return self._not_combined(flat, node, want, exc)
        return self._compared(flat, got, want)

    def _not_combined(
        self, flat: int, node: int, want: tuple[int, ...], exc: _NotCombined
    ) -> _Finding:
        """A value not built from the region: refuted when it provably depends on an element
        outside its row, else unknown."""
        output = self.output
        foreign = _foreign_dependence(output.run.dag, node, want, self.inputs, self.input_spec)
        if foreign is None:
            return (
                Status.UNKNOWN,
                (
                    f"output {output.spec.name}{list(output.element(flat))}: {exc} (the "
                    "emitted combine could not be matched to the region)"
                ),
                None,
            )
        leaf, replay = foreign
        kind, first_input = output.expectation.kind, output.expectation.inputs[0]
        return (
            Status.REFUTED,
            f"{kind} reads an element outside its row",
            output.counterexample(
                flat,
                f"combine of {first_input} elements {_listed(want)}",
                f"a value that depends on {_leaf_name(output.run.dag, leaf, self.input_spec)}",
                replay,
            ),
        )

    def _compared(self, flat: int, got: tuple[int, ...], want: tuple[int, ...]) -> _Finding | None:
        """Refuted when the elements combined are not the wanted ones (in order, for a scan of
        a combine that is not commutative)."""
        expectation = self.output.expectation
        any_order = expectation.kind == "reduce" or self.commutative
        if (sorted(got) == sorted(want)) if any_order else (got == want):
            return None
        missing = sorted(set(want) - set(got))
        extra = [i for i in set(got) if got.count(i) > 1 or i not in want]
        detail = (f"missing {missing[:4]}" if missing else "") + (
            f" repeated/foreign {sorted(extra)[:4]}" if extra else ""
        )
        order = "" if sorted(got) != sorted(want) else "the right elements in the wrong order"
        return (
            Status.REFUTED,
            f"{expectation.kind} combines the wrong elements",
            self.output.counterexample(
                flat,
                f"combine of {expectation.inputs[0]} elements {_listed(want)}",
                f"combine of elements {_listed(got)} {detail or order}".strip(),
                _replay_combine(got, want),
            ),
        )


def _check_combine(output: _Output) -> _Finding | None:
    """Each output element combines exactly the elements its op names (the first element
    that does not decides)."""
    combine = _Combine.of(output)
    for flat, row in enumerate(output.rows):
        found = combine.check(flat, row)
        if found is not None:
            return found
    return None


_CHECKS: dict[str, Callable[[_Output], _Finding | None]] = {
    "move": _check_move,
    "counts": _check_counts,
    "reduce": _check_combine,
    "scan": _check_combine,
}


def _leaf_name(dag: Dag, leaf: int, spec: Any) -> str:
    """``name[i, j]`` of an input leaf (coordinates in ``spec``'s shape when it is that buffer)."""
    where = dag.leaf_of(leaf)
    assert where is not None
    buffer, index = where
    name = dag.buffer_name(buffer)
    if name == spec.name:
        return f"{name}[{', '.join(map(str, _element(spec, index)))}]"
    return f"{name}[{index}]"


def _foreign_dependence(
    dag: Dag, node: int, want: tuple[int, ...], inputs: list[int], input_spec: Any
) -> tuple[int, str] | None:
    """A leaf outside the row that ``node``'s value provably depends on, with the replay."""
    leaves = sorted(set(dag.leaves(node)))
    allowed = {(buffer, index) for buffer in inputs for index in want}
    foreign = [leaf for leaf in leaves if dag.leaf_of(leaf) not in allowed]
    element = input_spec.element
    float_type = "bf16" if element == "bf16" else "int" if element.startswith("i") else "f16"
    for leaf in foreign[:8]:
        try:
            witness = depends_on(dag, node, leaf, leaves, float_type=float_type)
        except NotEvaluable:
            return None
        if witness is not None:
            values, other, first, second = witness
            shown = ", ".join(f"{dag.describe(k)}={hex(v)}" for k, v in list(values.items())[:6])
            return leaf, (
                f"replayed: with {shown}{', ...' if len(values) > 6 else ''} the "
                f"result is {hex(first)}; changing {dag.describe(leaf)} from "
                f"{hex(values[leaf])} to {hex(other)} changes it to {hex(second)}"
            )
    return None


def _listed(elements: tuple[int, ...]) -> str:
    return f"{list(elements)[:8]}{'...' if len(elements) > 8 else ''}"


def _replay_combine(got: tuple[int, ...], want: tuple[int, ...]) -> str:
    """Concrete replay: element i holds 2**i (exact in integers); the sums of the two element
    lists differ exactly when the multisets differ (for order-only differences, the sequences)."""
    got_sum = sum(1 << i for i in got)
    want_sum = sum(1 << i for i in want)
    if got_sum != want_sum:
        return (
            f"replayed: with element i = 2**i, the sum of the combined elements is {got_sum}, "
            f"expected {want_sum}"
        )
    return f"replayed: the combined sequence {list(got)[:8]} differs from {list(want)[:8]} in order"
