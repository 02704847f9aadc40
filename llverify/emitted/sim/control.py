"""SIMT control flow: the kernel's blocks walked once for all threads of the CTA.

A branch every active thread takes the same way is followed; a divergent branch runs each
side under its thread mask and the two meet again at the branch's immediate post-dominator
(phis pick each thread's incoming value by the block it came from).  Loops with uniform trip
counts run as they are; a run of more than :data:`MAX_STEPS` instructions is declared
non-terminating.  A barrier needs every thread of the CTA there.  A device assert (a branch
to a block that only calls ``__assertfail``) is an assumption: its condition holds on every
input the claim covers (:meth:`ControlFlow._assume`).

Examples:
    >>> from llverify.emitted.sim.llvm_ir import parse_llvm_ir
    >>> text = '''define void @k(i1 %0) {
    ...   br i1 %0, label %2, label %3
    ... 2:
    ...   br label %3
    ... 3:
    ...   ret void
    ... }'''
    >>> post_dominators(parse_llvm_ir(text).functions["k"])
    {'%1': '%3', '%2': '%3', '%3': None}
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from llverify.emitted.sim.instructions import HANDLERS, merge
from llverify.emitted.sim.intrinsics import pure_call
from llverify.emitted.sim.llvm_ir import Block, Function, Instruction, LLVMModule, Value
from llverify.emitted.sim.memory import SharedMemory
from llverify.emitted.sim.ranges import Ranges
from llverify.emitted.sim.symbolic import Dag, Unmodelled, Val

__all__ = [
    "MAX_STEPS",
    "ControlFlow",
    "UnmodelledAt",
    "aborts",
    "branch_targets",
    "post_dominators",
    "region_of",
]

MAX_STEPS = 5_000_000  # instructions executed before the run is declared non-terminating


@dataclass
class UnmodelledAt(Exception):  # noqa: N818 - the verdict is unknown, not an error
    """An :class:`Unmodelled` construct, with the instruction it came from."""

    reason: str
    instruction: Instruction | None

    def __str__(self) -> str:
        where = ""
        if self.instruction is not None:
            where = f" (LLVM IR line {self.instruction.text_line}"
            if self.instruction.line is not None:
                where += f", source line {self.instruction.line}"
            where += ")"
        return self.reason + where


class ControlFlow(ABC):
    """The walk of the kernel's blocks by every thread of each CTA of the cluster (a part of
    the :class:`~llverify.emitted.sim.executor.Execution`): which threads run which block,
    where each came from, which have returned."""

    function: Function
    module: LLVMModule
    threads: int
    ctas: int
    steps: int
    shared: SharedMemory
    dag: Dag
    ranges: Ranges

    @abstractmethod
    def _execute(self, instruction: Instruction, mask: np.ndarray) -> None:
        """Execute the non-terminator ``instruction`` in the threads of ``mask``."""

    @abstractmethod
    def _execute_run(
        self, block: Block, start: int, run: tuple[int, int | None], mask: np.ndarray
    ) -> int:
        """Execute at once as many as it can of ``block``'s instructions from ``start``, in
        a run of math calls to ``run[0]`` (chained through operand ``run[1]``,
        :func:`~llverify.emitted.sim.intrinsics.math_runs`) in the threads of ``mask``,
        each counted; how many (0: none)."""

    @abstractmethod
    def _math_runs(self, block: Block) -> dict[int, tuple[int, int | None]]:
        """:func:`~llverify.emitted.sim.intrinsics.math_runs` of ``block``'s instructions."""

    @abstractmethod
    def _start_cta(self, cta: int) -> None:
        """Make CTA ``cta`` of the cluster the one that runs next."""

    @abstractmethod
    def value(self, operand: Value) -> Val:
        """The value of ``operand`` in every thread."""

    @abstractmethod
    def assign(self, instruction: Instruction, value: Val, mask: np.ndarray) -> None:
        """``instruction``'s result is ``value`` in the threads of ``mask``."""

    def _start_control(self) -> None:
        """No thread has returned or come from any block."""
        self.block_ids = {block.label: k for k, block in enumerate(self.function.blocks)}
        self.came_from = np.full(self.threads, -1, dtype=np.int64)
        self.finished = np.zeros(self.threads, dtype=bool)
        self._ipdom = post_dominators(self.function)
        #: the joins whose phis a region on tagged data has set, with the threads it set
        #: them in (the others, arriving by other ways, evaluate them as usual)
        self._phis_done: dict[str, np.ndarray] = {}
        #: (thread, where) of the first thread each device assert fails in on every input
        self.aborted: list[tuple[int, str]] = []
        self.asserts = 0  # device asserts executed (each an assumption)

    def _restart_control(self) -> None:
        """A new CTA: its threads are at the entry."""
        self.came_from[:] = -1
        self.finished[:] = False
        self._phis_done = {}

    def _run_cluster(self) -> None:
        """Run every CTA of the cluster, one after the other, from the entry block."""
        if self.ctas < 1:
            raise ValueError(f"ctas: expected at least 1 CTA, got {self.ctas}")
        for cta in range(self.ctas):
            if cta:
                self._start_cta(cta)
            self._run_from(self.function.blocks[0].label, np.ones(self.threads, dtype=bool), None)

    def arrived_from(self, label: str, mask: np.ndarray) -> np.ndarray:
        """The threads of ``mask`` that entered the current block from block ``label``."""
        return mask & (self.came_from == self.block_ids.get(label, -2))

    def barrier(self, mask: np.ndarray, scope: str = "CTA", *, wait: bool = True) -> None:
        """A barrier of ``scope`` reached by the threads of ``mask``: every thread of the CTA
        must be there (none diverged, none returned); ``wait`` starts the next barrier
        interval of shared memory."""
        if not mask.all() or self.finished.any():
            raise Unmodelled(f"a {scope} barrier reached by only some threads")
        if wait:
            self.shared.barrier()

    def _run_from(self, label: str | None, mask: np.ndarray, stop: str | None) -> None:
        while label is not None and label != stop:
            mask = mask & ~self.finished
            if not mask.any():
                return
            block = self.function.block(label)
            label = self._run_block(block, mask, stop)

    def _run_block(self, block: Block, mask: np.ndarray, stop: str | None) -> str | None:
        """Run ``block`` in the threads of ``mask``; the label to go on with (None: done)."""
        instructions = block.instructions
        done = self._phis_done.pop(block.label, None)
        if done is not None:  # a region on tagged data has set them in the threads of done
            phis = [i for i in instructions if i.opcode == "phi"]
            instructions = [i for i in instructions if i.opcode != "phi"]
            if (mask & ~done).any():
                for phi in phis:
                    self._count(phi)
                    try:
                        self._execute(phi, mask & ~done)
                    except Unmodelled as exc:
                        raise UnmodelledAt(str(exc), phi) from None
        runs, skipped = self._math_runs(block), len(block.instructions) - len(instructions)
        position = 0
        while position < len(instructions):
            run = runs.get(position + skipped)
            if run is not None:
                made = self._execute_run(block, position + skipped, run, mask)
                if made:
                    position += made
                    continue
            instruction = instructions[position]
            position += 1
            self._count(instruction)
            opcode = instruction.opcode
            if opcode in ("br", "switch"):
                return self._branch(block, instruction, mask, stop)
            if opcode == "ret":
                self.finished |= mask
                return None
            if opcode == "unreachable":
                raise UnmodelledAt("the kernel reaches 'unreachable'", instruction)
            try:
                self._execute(instruction, mask)
            except Unmodelled as exc:
                raise UnmodelledAt(str(exc), instruction) from None
        raise UnmodelledAt(f"block {block.label} has no terminator", None)

    def _count(self, instruction: Instruction) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise UnmodelledAt(
                f"more than {MAX_STEPS} instructions executed (a non-uniform or unbounded loop?)",
                instruction,
            )

    def _branch(
        self, block: Block, instruction: Instruction, mask: np.ndarray, stop: str | None
    ) -> str | None:
        """A ``br`` or ``switch``: followed when every active thread goes one way; divergent
        threads run each way under their mask up to the immediate post-dominator; a condition
        on tagged data goes to :meth:`_branch_on_data`."""
        targets = branch_targets(instruction)
        here = self.block_ids[block.label]
        if len(targets) == 1:
            self.came_from[mask] = here
            return targets[0]
        if instruction.opcode == "br" and self._aborting(targets[0]) != self._aborting(targets[1]):
            self.came_from[mask] = here
            return self._assume(instruction, mask, targets)
        try:
            ways = self._ways(instruction, mask)
        except Unmodelled as exc:
            return self._branch_on_data(block, instruction, mask, str(exc))
        self.came_from[mask] = here
        taken = [(label, way) for label, way in ways if way.any()]
        if len(taken) == 1:
            return taken[0][0]
        join = self._ipdom.get(block.label)
        for label, way in taken:
            self._run_from(label, way, join)
        return join

    def _ways(self, instruction: Instruction, mask: np.ndarray) -> list[tuple[str, np.ndarray]]:
        """Each distinct target of a terminator with the threads of ``mask`` that go there
        (a ``br``: the true target first)."""
        targets = branch_targets(instruction)
        value = self.value(instruction.operands[0]).integers(mask, "branch condition")
        if instruction.opcode == "br":
            condition = value.astype(bool)
            return [(targets[0], mask & condition), (targets[1], mask & ~condition)]
        cases = instruction.extra["cases"]
        assert isinstance(cases, tuple)
        bits = instruction.operands[0].type.bits
        value = value & np.uint64((1 << bits) - 1 if bits < 64 else 0xFFFFFFFFFFFFFFFF)
        unmatched = mask.copy()
        ways: dict[str, np.ndarray] = {}
        for case, label in zip(cases, targets[1:]):
            hit = mask & (value == np.uint64(case))
            unmatched &= ~hit
            ways[label] = ways.get(label, np.zeros_like(mask)) | hit
        ways[targets[0]] = ways.get(targets[0], np.zeros_like(mask)) | unmatched
        return list(ways.items())

    # -- device asserts -----------------------------------------------------------------------
    def _aborting(self, label: str) -> bool:
        """Whether block ``label`` is a device assert's failure: a call of ``__assertfail``
        and ``unreachable``, nothing else (:func:`aborts`)."""
        return aborts(self.function.block(label))

    def _assume(self, instruction: Instruction, mask: np.ndarray, targets: list[str]) -> str:
        """A device assert: ``br i1 %ok, label %go_on, label %fail`` (or the ways swapped)
        where ``%fail`` only calls ``__assertfail``.  A failing assert traps the whole grid, so
        the claim is made for the inputs on which none fails: a thread whose condition is a
        concrete failure ends there (every input aborts: noted in ``aborted``), and a
        condition on tagged data is assumed to hold (:meth:`Ranges.assume`, one fact per
        distinct node; a fact the ranges show false ends its threads as well).  The others
        go on to ``%go_on``."""
        self.asserts += 1
        ok_way = 0 if self._aborting(targets[1]) else 1
        condition = self.value(instruction.operands[0])
        symbols = condition.byte_symbols()
        concrete = np.asarray(((symbols < 0) & (symbols >= -256)).all(axis=1), dtype=bool)
        values = np.where(concrete[:, None], symbols, -1)[:, 0]
        holds = ((-1 - values) & 1).astype(bool) == (ok_way == 0)
        failing = mask & concrete & ~holds
        tagged = mask & ~concrete
        if tagged.any():
            nodes = self.dag.nodes_of(condition)
            distinct = [int(node) for node in np.unique(nodes[tagged])]
            outcomes = self.ranges.assume_all([(node, ok_way == 0) for node in distinct])
            for node, possible in zip(distinct, outcomes):
                if not possible:
                    failing |= tagged & (nodes == node)
        if failing.any():
            self.aborted.append((int(np.flatnonzero(failing)[0]), instruction.where))
            self.finished |= failing
        return targets[ok_way]

    # -- if-conversion of branches on tagged data ---------------------------------------------
    def _branch_on_data(
        self, block: Block, instruction: Instruction, mask: np.ndarray, why: str
    ) -> str:
        """A branch on tagged data (``why`` says which value): if-converted
        (:meth:`_if_convert`), else unmodelled."""
        try:
            return self._if_convert(block, instruction, mask)
        except Unmodelled as region:
            raise UnmodelledAt(f"{why}; not if-converted: {region}", instruction) from None

    def _if_convert(self, block: Block, instruction: Instruction, mask: np.ndarray) -> str:
        """A branch on tagged data whose region (the blocks between it and its immediate
        post-dominator) touches no memory, synchronises nothing and calls only pure functions
        (:func:`region_of`): every thread runs every block of the region, in topological order;
        a phi becomes a ``select`` on the conditions of the edges it comes by (exactly one edge
        holds in each thread), also at the join, where the walk goes on.  Sound for memory
        safety and for the values: no memory is touched in the region."""
        join = self._ipdom.get(block.label)
        if join is None:
            raise Unmodelled("the branch has no join (its ways end the kernel)")
        order = region_of(self.function, block.label, join, self._pure)
        true = Val.concrete(1, 1, self.threads)
        edges: dict[tuple[str, str], Val] = {}
        for target, condition in self._edge_conditions(instruction, true):
            self._add_edge(edges, block.label, target, condition)
        for label in order:
            region_block = self.function.block(label)
            self._select_phis(region_block, edges, mask)
            reach: Val | None = None
            for (_, to), condition in edges.items():
                if to == label:
                    reach = condition if reach is None else self._apply("or", [reach, condition])
            assert reach is not None
            for ins in region_block.instructions:
                self._count(ins)
                if ins.opcode == "phi":
                    continue
                if ins.opcode in ("br", "switch"):
                    for target, condition in self._edge_conditions(ins, reach):
                        self._add_edge(edges, label, target, condition)
                    break
                try:
                    self._execute(ins, mask)
                except Unmodelled as exc:
                    raise UnmodelledAt(str(exc), ins) from None
        join_block = self.function.block(join)
        self._select_phis(join_block, edges, mask)
        self._phis_set(join, mask)
        return join

    def _phis_set(self, join: str, mask: np.ndarray) -> None:
        """The phis of block ``join`` are set in the threads of ``mask``: the walk does not
        evaluate them there again."""
        done = self._phis_done.get(join)
        self._phis_done[join] = mask.copy() if done is None else done | mask

    def _add_edge(
        self, edges: dict[tuple[str, str], Val], source: str, target: str, condition: Val
    ) -> None:
        key = (source, target)
        edges[key] = condition if key not in edges else self._apply("or", [edges[key], condition])

    def _edge_conditions(
        self, instruction: Instruction, reach: Val, value: Val | None = None
    ) -> list[tuple[str, Val]]:
        """Each target of a terminator with the condition (an i1 per thread) that a thread
        reaching it with ``reach`` goes there (``value``: the terminator's operand, when
        the caller has it)."""
        targets = branch_targets(instruction)
        if len(targets) == 1:
            return [(targets[0], reach)]
        if value is None:
            value = self.value(instruction.operands[0])
        if instruction.opcode == "br":
            negated = self._apply("xor", [value, Val.concrete(1, 1, self.threads)])
            return [
                (targets[0], self._apply("and", [reach, value])),
                (targets[1], self._apply("and", [reach, negated])),
            ]
        cases = instruction.extra["cases"]
        assert isinstance(cases, tuple)
        bits = instruction.operands[0].type.bits
        out = []
        unmatched = reach
        for case, label in zip(cases, targets[1:]):
            hit = self._apply("icmp.eq", [value, Val.concrete(case, bits, self.threads)])
            out.append((label, self._apply("and", [reach, hit])))
            missed = self._apply("xor", [hit, Val.concrete(1, 1, self.threads)])
            unmatched = self._apply("and", [unmatched, missed])
        out.append((targets[0], unmatched))
        return out

    def _select_phis(
        self, block: Block, edges: dict[tuple[str, str], Val], mask: np.ndarray
    ) -> None:
        """Set the phis of ``block`` from the edges into it: ``select(e1, v1, select(e2, v2,
        ... vn))`` over the incoming edges the region took."""
        for phi in block.instructions:
            if phi.opcode != "phi":
                break
            blocks = phi.extra["blocks"]
            assert isinstance(blocks, tuple)
            incoming = [
                (edges[(str(source), block.label)], operand)
                for operand, source in zip(phi.operands, blocks)
                if (str(source), block.label) in edges
            ]
            if not incoming:
                raise UnmodelledAt("a phi reached from a block it does not list", phi)
            try:
                result = self.value(incoming[-1][1])
                for condition, operand in reversed(incoming[:-1]):
                    result = self._pick(condition, self.value(operand), result)
            except Unmodelled as exc:
                raise UnmodelledAt(str(exc), phi) from None
            self.assign(phi, result, mask)

    def _pick(self, condition: Val, a: Val, b: Val) -> Val:
        """``a`` where ``condition`` holds, else ``b``: per thread when it is concrete, else a
        ``select`` node."""
        if condition.is_concrete():
            return merge(condition.normalised().integers().astype(bool), a, b)
        if a.nbytes > 16:
            raise Unmodelled(f"a {a.bits}-bit phi after a branch on tagged data")
        return self._apply("select", [condition, a, b], a.nbytes)

    def _apply(self, name: str, operands: list[Val], nbytes: int = 1) -> Val:
        """``name`` of ``operands`` in every thread; ``and``/``or`` of i1 conditions drop a
        constant operand that leaves the other unchanged (true for ``and``, false for ``or``)."""
        if name in ("and", "or") and len(operands) == 2:
            neutral = 1 if name == "and" else 0
            a, b = operands
            for one, other in ((a, b), (b, a)):
                if (
                    one.is_concrete()
                    and (one.normalised().integers() & np.uint64(1) == neutral).all()
                ):
                    return other
        return self.dag.apply(name, operands, nbytes).normalised()

    def _pure(self, instruction: Instruction) -> bool:
        """Whether ``instruction`` computes only values (no memory, no synchronisation)."""
        if instruction.opcode == "call":
            callee = str(instruction.extra.get("callee", ""))
            if callee == "asm":
                return _pure_asm(instruction)
            return pure_call(callee, instruction, self.module)
        return instruction.opcode in _PURE_OPCODES


# Plain instructions that touch no memory (terminators are checked by the region's walk)
_PURE_OPCODES = frozenset(set(HANDLERS) - {"load", "store", "atomicrmw", "fence", "alloca"})


# PTX instructions that compute registers from registers (no memory, no other lane, no
# synchronisation): inline assembly made only of these, without ``sideeffect``, is pure
_PURE_PTX = frozenset(
    {
        "rcp", "sqrt", "rsqrt", "ex2", "lg2", "tanh", "sin", "cos", "mov", "cvt", "add", "sub",
        "mul", "mad", "madc", "fma", "min", "max", "neg", "abs", "and", "or", "xor", "not",
        "shl", "shr", "selp", "setp", "div", "rem", "copysign", "testp", "mul24", "mad24",
        "addc", "subc", "popc", "clz", "brev", "bfe", "bfi", "lop3", "cvta", "prmt",
    }
)  # fmt: skip


def _pure_asm(instruction: Instruction) -> bool:
    """Inline assembly that only computes: no ``sideeffect``, every statement's mnemonic in
    :data:`_PURE_PTX` (braces, declarations of registers and labels allowed), no predicate
    guard on a statement that is not."""
    flags = instruction.extra.get("asm_flags", ())
    assert isinstance(flags, tuple)
    if "sideeffect" in flags:
        return False
    text = str(instruction.extra.get("asm", ""))
    for statement in text.replace("\n", ";").split(";"):
        words = statement.strip().strip("{}").strip().split()
        if not words or words[0].startswith(".reg"):
            continue
        if words[0].startswith("@"):
            words = words[1:]
        if not words or words[0].split(".")[0] not in _PURE_PTX:
            return False
    return True


def branch_targets(instruction: Instruction) -> list[str]:
    """The labels a ``br`` or ``switch`` may go to (a ``switch``: its default first)."""
    targets = instruction.extra.get("targets", ())
    assert isinstance(targets, tuple)
    return [str(t) for t in targets]


def region_of(
    function: Function, start: str, join: str, pure: Callable[[Instruction], bool]
) -> list[str]:
    """The blocks strictly between block ``start`` and its immediate post-dominator ``join``,
    in a topological order; unmodelled when they loop, end the kernel, or hold an
    instruction ``pure`` rejects (a memory access, a barrier, an impure call)."""
    successors = {
        b.label: branch_targets(b.instructions[-1]) if b.instructions[-1].opcode in ("br", "switch")
        else []
        for b in function.blocks
    }  # fmt: skip
    region: list[str] = []
    seen = {start, join}
    stack = [t for t in successors[start] if t not in seen]
    while stack:
        label = stack.pop()
        if label in seen:
            continue
        seen.add(label)
        region.append(label)
        block = function.block(label)
        last = block.instructions[-1]
        if last.opcode not in ("br", "switch"):
            raise Unmodelled(f"block {label} of the region ends with '{last.opcode}'")
        for ins in block.instructions[:-1]:
            if not pure(ins):
                raise Unmodelled(f"the region up to {join} has {ins.where}")
        stack.extend(t for t in successors[label] if t not in seen)
    if start in (t for label in [start, *region] for t in successors[label]):
        raise Unmodelled("the region loops back to the branch")
    # Kahn's order over the region's own edges; a cycle leaves blocks unplaced
    inside = set(region)
    indegree = {label: 0 for label in region}
    for label in region:
        for t in successors[label]:
            if t in inside:
                indegree[t] += 1
    ready = [label for label in region if indegree[label] == 0]
    order: list[str] = []
    while ready:
        label = ready.pop()
        order.append(label)
        for t in successors[label]:
            if t in inside:
                indegree[t] -= 1
                if indegree[t] == 0:
                    ready.append(t)
    if len(order) != len(region):
        raise Unmodelled("the region up to the join has a loop")
    return order


def aborts(block: Block) -> bool:
    """Whether ``block`` is a device assert's failure, exactly: ``call void @__assertfail(...)``
    then ``unreachable``.

    >>> from llverify.emitted.sim.llvm_ir import parse_llvm_ir
    >>> text = '''define void @k(i1 %0) {
    ...   br i1 %0, label %3, label %2
    ... 2:
    ...   tail call void @__assertfail(ptr null, ptr null, i32 7, ptr null, i64 1)
    ...   unreachable
    ... 3:
    ...   ret void
    ... }'''
    >>> [aborts(b) for b in parse_llvm_ir(text).functions["k"].blocks]
    [False, True, False]
    """
    body = block.instructions
    return (
        len(body) == 2
        and body[0].opcode == "call"
        and body[0].type.kind == "void"
        and str(body[0].extra.get("callee", "")) == "@__assertfail"
        and body[1].opcode == "unreachable"
    )


def post_dominators(function: Function) -> dict[str, str | None]:
    """Immediate post-dominator of each block (None: the exit).  A device assert's failure
    block (:func:`aborts`) is no way out: the kernel aborts there, so the block that branches
    to it has the other way only."""
    labels = [b.label for b in function.blocks]
    successors: dict[str, list[str]] = {}
    failing = {b.label for b in function.blocks if aborts(b)}
    for block in function.blocks:
        last = block.instructions[-1]
        successors[block.label] = branch_targets(last) if last.opcode in ("br", "switch") else []
        if len(successors[block.label]) == 2 and len(failing & set(successors[block.label])) == 1:
            successors[block.label] = [t for t in successors[block.label] if t not in failing]
    exit_label = "<exit>"
    everything = set(labels) | {exit_label}
    post: dict[str, set[str]] = {label: set(everything) for label in labels}
    post[exit_label] = {exit_label}
    changed = True
    while changed:
        changed = False
        for label in reversed(labels):
            succ = successors[label] or [exit_label]
            new = set.intersection(*(post[s] for s in succ)) | {label}
            if new != post[label]:
                post[label] = new
                changed = True
    ipdom: dict[str, str | None] = {}
    for label in labels:
        strict = post[label] - {label}
        # the immediate one is the strict post-dominator that every other strict one post-dominates
        best = None
        for candidate in strict:
            if all(other in post[candidate] for other in strict):
                best = candidate
        ipdom[label] = None if best in (None, exit_label) else best
    return ipdom
