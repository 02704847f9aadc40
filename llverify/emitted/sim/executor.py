"""Run an emitted LLVM IR kernel over every thread of one CTA at once, on tagged values.

:class:`Execution` is the running kernel, composed of one part per concern: the SIMT walk
of its blocks (:mod:`~llverify.emitted.sim.control`, with the regions of branches on tagged
data run under a guard, :mod:`~llverify.emitted.sim.guarded`), its threads' values
(:mod:`~llverify.emitted.sim.registers`), memory by address space and ``cp.async`` groups
(:mod:`~llverify.emitted.sim.access`, over :mod:`~llverify.emitted.sim.memory`) and its
arguments (:mod:`~llverify.emitted.sim.buffers`).  Each instruction goes to its handler by
opcode: plain instructions to :mod:`~llverify.emitted.sim.instructions`, intrinsic calls to
:mod:`~llverify.emitted.sim.intrinsics`, inline assembly to :mod:`~llverify.emitted.sim.ptx`;
a handler sees the execution as a :class:`~llverify.emitted.sim.machine.Machine`.  Anything
not modelled raises :class:`~llverify.emitted.sim.control.UnmodelledAt` with the instruction:
the caller's verdict becomes unknown, never a pass.

Examples:
    >>> from llverify.emitted.sim.llvm_ir import parse_llvm_ir
    >>> text = '''define void @k(ptr addrspace(1) %0, ptr addrspace(1) %1) {
    ...   %3 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
    ...   %4 = xor i32 %3, 1
    ...   %5 = getelementptr float, ptr addrspace(1) %0, i32 %4
    ...   %6 = load float, ptr addrspace(1) %5, align 4
    ...   %7 = getelementptr float, ptr addrspace(1) %1, i32 %3
    ...   store float %6, ptr addrspace(1) %7, align 4
    ...   ret void
    ... }'''
    >>> run = Execution(parse_llvm_ir(text), "k", threads=4, warp_size=4, shared_bytes=0)
    >>> inp = run.add_input(0, "x", element_bytes=4, count=4)
    >>> out = run.add_output(1, "y", element_bytes=4, count=4)
    >>> run.run()
    >>> [run.dag.describe(n) for n in run.output_nodes(out, 4)]
    ['x[1]', 'x[0]', 'x[3]', 'x[2]']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from llverify.emitted.sim import instructions, intrinsics, ptx
from llverify.emitted.sim.access import AccessRecord, AsyncCopies, MemoryAccess
from llverify.emitted.sim.buffers import Buffers
from llverify.emitted.sim.guarded import GuardedControl
from llverify.emitted.sim.llvm_ir import Block, Instruction, LLVMModule
from llverify.emitted.sim.machine import Machine
from llverify.emitted.sim.ranges import Ranges
from llverify.emitted.sim.registers import Registers
from llverify.emitted.sim.symbolic import Dag, Unmodelled, Val, without_cyclic_collection

__all__ = ["Execution"]


_WINDOW = 256  # the most calls of a run of math calls made at once


@dataclass(repr=False)
class Execution(Registers, GuardedControl, MemoryAccess, AsyncCopies, Buffers):
    """One run of ``kernel`` of ``module`` by ``threads`` threads in each of ``ctas`` CTAs (a
    cluster: the CTAs run one after the other, each with its own shared memory, all sharing
    global memory; ``%ctaid.x`` and ``%cluster_ctarank`` are the CTA's index).  ``trace``,
    when a list, receives every memory access (:data:`~llverify.emitted.sim.access.AccessRecord`);
    ``executed`` counts the instructions run by opcode."""

    module: LLVMModule
    kernel: str
    threads: int
    warp_size: int
    shared_bytes: int
    dag: Dag = field(default_factory=Dag)
    steps: int = 0
    executed: dict[str, int] = field(default_factory=dict)
    trace: list[AccessRecord] | None = None
    ctas: int = 1

    def __post_init__(self) -> None:
        if self.kernel not in self.module.functions:
            raise ValueError(
                f"kernel: {self.kernel!r} is not a function of the module "
                f"(it has {sorted(self.module.functions)})"
            )
        self.function = self.module.functions[self.kernel]
        self.cta = 0
        self.env: dict[str, Val] = {}
        #: math_runs of each block, by its id
        self._runs: dict[int, dict[int, tuple[int, int | None]]] = {}
        self._run_misses: set[tuple[int, int]] = set()  # (block id, position): none made
        self._window = _WINDOW  # the calls of a run _execute_run tries next
        self.ranges = Ranges(self.dag)
        self._start_registers()
        self._start_memory()
        self._start_copies()
        self._start_control()
        self._start_arguments()

    def __repr__(self) -> str:
        return f"Execution({self.kernel!r}, threads={self.threads}, steps={self.steps})"

    def run(self) -> None:
        """Execute the kernel in every CTA, then check the stores predicates kept from being
        made; raises :class:`~llverify.emitted.sim.control.UnmodelledAt` on anything not
        modelled."""
        with without_cyclic_collection():  # millions of DAG nodes, none in a cycle
            self._run_cluster()
        self.memory.check_shadows()

    def _start_cta(self, cta: int) -> None:
        """The next CTA of the cluster: fresh shared memory and registers, same arguments."""
        self.cta = cta
        arguments = {name for _, name in self.function.arguments}
        self.env = {name: value for name, value in self.env.items() if name in arguments}
        self._next_shared()
        self._restart_control()
        self._start_copies()

    def _execute(self, instruction: Instruction, mask: np.ndarray) -> None:
        opcode = instruction.opcode
        self.executed[opcode] = self.executed.get(opcode, 0) + 1
        handler = _HANDLERS.get(opcode)
        if handler is None:
            raise Unmodelled(f"instruction {opcode!r}")
        result = handler(self, instruction, mask)
        if result is not None:
            self.assign(instruction, result, mask)

    def _math_runs(self, block: Block) -> dict[int, tuple[int, int | None]]:
        runs = self._runs.get(id(block))
        if runs is None:
            runs = self._runs[id(block)] = intrinsics.math_runs(block.instructions)
        return runs

    def _execute_run(
        self, block: Block, start: int, run: tuple[int, int | None], mask: np.ndarray
    ) -> int:
        """The run's calls from ``start`` as far as their operands' nodes are made already
        and :meth:`Dag.apply_run` makes them, each counted, executed and assigned as
        :meth:`_execute` would; how many (none where fewer than two calls would be
        gathered: the call that makes an operand's nodes is executed alone, and the
        batch goes on after it).  At most :attr:`_window` calls are gathered (doubled
        while whole windows are made, two after one is cut), and no batch is tried
        again from a position where none was made (one at a time is cheaper than
        trying)."""
        end, chain = run
        if end - start < 2 or (id(block), start) in self._run_misses:
            return 0  # one call: at a time
        calls = block.instructions[start : min(end, start + self._window)]
        columns: list[list[np.ndarray | None]] = []
        for k, instruction in enumerate(calls):
            nodes = self._operand_nodes(instruction, chain if k else None)
            if nodes is None:
                break
            columns.append(nodes)
        if len(columns) < 2:  # the next call makes an operand's nodes: it goes alone
            return 0
        callee = str(calls[0].extra["callee"]).lstrip("@")
        values = self.dag.apply_run(callee, columns, instructions.nbytes_of(calls[0].type), chain)
        if not values:
            self._run_misses.add((id(block), start))
            return 0
        for instruction, value in zip(calls, values):
            self._count(instruction)
            self.executed["call"] = self.executed.get("call", 0) + 1
            self.assign(instruction, value, mask)
        whole = len(values) == len(calls)
        self._window = min(2 * self._window, _WINDOW) if whole else 2
        return len(values)

    def _operand_nodes(
        self, instruction: Instruction, skip: int | None
    ) -> list[np.ndarray | None] | None:
        """The nodes of ``instruction``'s operands (None for operand ``skip``), where each
        is made already; None where one is not (or is not defined)."""
        out: list[np.ndarray | None] = []
        for k, operand in enumerate(instruction.operands):
            if k == skip:
                out.append(None)
                continue
            try:
                value = self.value(operand)
            except Unmodelled:  # run one at a time, where it is reported
                return None
            nodes = self.dag.nodes_without_making(value)
            if nodes is None:
                return None
            out.append(nodes)
        return out

    def _global_table(self, name: str) -> Val | None:
        return Buffers._global_table(self, name)

    def _evaluate(self, instruction: Instruction) -> Val:
        result = _HANDLERS[instruction.opcode](self, instruction, np.ones(self.threads, dtype=bool))
        assert result is not None
        return result


def _call(machine: Machine, instruction: Instruction, mask: np.ndarray) -> Val | None:
    if instruction.extra.get("callee") == "asm":
        return ptx.run_inline_asm(machine, instruction, mask)
    return intrinsics.call(machine, instruction, mask)


_Handler = Callable[[Machine, Instruction, np.ndarray], "Val | None"]
_HANDLERS: dict[str, _Handler] = {**instructions.HANDLERS, "call": _call}
