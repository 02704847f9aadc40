"""SIMT control flow: the kernel's blocks walked once for all threads of the CTA.

A branch every active thread takes the same way is followed; a divergent branch runs each
side under its thread mask and the two meet again at the branch's immediate post-dominator
(phis pick each thread's incoming value by the block it came from).  Loops with uniform trip
counts run as they are; a run of more than :data:`MAX_STEPS` instructions is declared
non-terminating.  A barrier needs every thread of the CTA there.

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
from dataclasses import dataclass

import numpy as np

from llverify.emitted.sim.llvm_ir import Block, Function, Instruction, Value
from llverify.emitted.sim.memory import SharedMemory
from llverify.emitted.sim.symbolic import Unmodelled, Val

__all__ = ["MAX_STEPS", "ControlFlow", "UnmodelledAt", "post_dominators"]

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
    threads: int
    ctas: int
    steps: int
    shared: SharedMemory

    @abstractmethod
    def _execute(self, instruction: Instruction, mask: np.ndarray) -> None:
        """Execute the non-terminator ``instruction`` in the threads of ``mask``."""

    @abstractmethod
    def _start_cta(self, cta: int) -> None:
        """Make CTA ``cta`` of the cluster the one that runs next."""

    @abstractmethod
    def value(self, operand: Value) -> Val:
        """The value of ``operand`` in every thread."""

    def _start_control(self) -> None:
        """No thread has returned or come from any block."""
        self.block_ids = {block.label: k for k, block in enumerate(self.function.blocks)}
        self.came_from = np.full(self.threads, -1, dtype=np.int64)
        self.finished = np.zeros(self.threads, dtype=bool)
        self._ipdom = post_dominators(self.function)

    def _restart_control(self) -> None:
        """A new CTA: its threads are at the entry."""
        self.came_from[:] = -1
        self.finished[:] = False

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
        return mask & (self.came_from == self.block_ids[label])

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
        for instruction in block.instructions:
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise UnmodelledAt(
                    f"more than {MAX_STEPS} instructions executed (a non-uniform or "
                    "unbounded loop?)",
                    instruction,
                )
            opcode = instruction.opcode
            if opcode == "br":
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

    def _branch(
        self, block: Block, instruction: Instruction, mask: np.ndarray, stop: str | None
    ) -> str | None:
        targets = instruction.extra["targets"]
        assert isinstance(targets, tuple)
        here = self.block_ids[block.label]
        if len(targets) == 1:
            self.came_from[mask] = here
            return str(targets[0])
        try:
            condition = (
                self.value(instruction.operands[0]).integers(mask, "branch condition").astype(bool)
            )
        except Unmodelled as exc:
            raise UnmodelledAt(str(exc), instruction) from None
        taken = mask & condition
        not_taken = mask & ~condition
        self.came_from[mask] = here
        if not not_taken.any():
            return str(targets[0])
        if not taken.any():
            return str(targets[1])
        join = self._ipdom.get(block.label)
        self._run_from(str(targets[0]), taken, join)
        self._run_from(str(targets[1]), not_taken, join)
        return join


def post_dominators(function: Function) -> dict[str, str | None]:
    """Immediate post-dominator of each block (None: the exit)."""
    labels = [b.label for b in function.blocks]
    successors: dict[str, list[str]] = {}
    for block in function.blocks:
        last = block.instructions[-1]
        targets = last.extra.get("targets", ()) if last.opcode == "br" else ()
        assert isinstance(targets, tuple)
        successors[block.label] = [str(t) for t in targets]
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
