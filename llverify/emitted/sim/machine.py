"""What the semantics of instructions, intrinsics and inline PTX need from the executor.

The handlers of :mod:`~llverify.emitted.sim.instructions`, :mod:`~llverify.emitted.sim.intrinsics`
and :mod:`~llverify.emitted.sim.ptx` see the running kernel only through :class:`Machine`:
the CTA's shape, its threads' values, memory by address space (with the access trace), the
CTA's barrier, the ``cp.async`` groups and the ``wgmma`` state.
:class:`~llverify.emitted.sim.executor.Execution` is the machine.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from llverify.emitted.sim.llvm_ir import Instruction, LLVMModule, Value
from llverify.emitted.sim.memory import SharedMemory
from llverify.emitted.sim.symbolic import Val
from llverify.emitted.sim.wgmma import WarpgroupMMA

__all__ = ["Machine"]


class Machine(Protocol):
    """The executing CTA, as instruction semantics use it.  ``mask`` arguments are the
    threads (shape (T,), bool) that execute the instruction."""

    # -- the CTA ---------------------------------------------------------------------------
    @property
    def threads(self) -> int:
        """Threads of the CTA (T)."""

    @property
    def warp_size(self) -> int:
        """Lanes of a warp (32; AMD wavefronts 64 or 32): lane ``t % warp_size`` of warp
        ``t // warp_size``."""

    @property
    def cta(self) -> int:
        """The CTA's index in its cluster."""

    @property
    def ctas(self) -> int:
        """CTAs of the cluster."""

    @property
    def module(self) -> LLVMModule:
        """The module the kernel belongs to (its globals' strings, its module flags)."""

    # -- values ----------------------------------------------------------------------------
    def value(self, operand: Value) -> Val:
        """The value of ``operand`` (a local, a global's address or a constant) in every thread."""

    def define(self, name: str, value: Val) -> None:
        """Bind the local ``name`` to ``value`` in every thread (a temporary of a handler)."""

    def forget(self, name: str) -> None:
        """Unbind the local ``name``."""

    def data_op(self, name: str, operands: list[Val], out_bytes: int) -> Val:
        """A data-computing operation: one DAG node per thread over the operands' nodes."""

    def arrived_from(self, label: str, mask: np.ndarray) -> np.ndarray:
        """The threads of ``mask`` that entered the current block from block ``label``."""

    # -- memory ----------------------------------------------------------------------------
    @property
    def shared(self) -> SharedMemory:
        """The CTA's shared memory (direct access: ldmatrix, stmatrix, atomics)."""

    def load_bytes(
        self,
        space: int,
        addresses: np.ndarray,
        nbytes: int,
        mask: np.ndarray,
        instruction: Instruction,
    ) -> np.ndarray:
        """Byte symbols (T, nbytes) the threads of ``mask`` read at ``addresses`` (uint64, (T,))
        in address space ``space`` (0 generic, 1 global, 3 shared)."""

    def load_at(
        self,
        space: int,
        address: Val,
        nbytes: int,
        element_bytes: int,
        mask: np.ndarray,
        instruction: Instruction,
    ) -> np.ndarray:
        """Byte symbols (T, nbytes) the threads of ``mask`` read at the pointer ``address``,
        concrete or depending on tagged data (a gather: ``element_bytes`` per element)."""

    def atomic_at(
        self,
        space: int,
        address: Val,
        nbytes: int,
        element_bytes: int,
        mask: np.ndarray,
        instruction: Instruction,
    ) -> np.ndarray:
        """Atomic read-modify-writes of ``nbytes`` of global memory at the pointer ``address``
        by the threads of ``mask``; the old values (T, nbytes), each a new node."""

    def store_bytes(
        self,
        space: int,
        addresses: np.ndarray,
        values: np.ndarray,
        mask: np.ndarray,
        instruction: Instruction,
    ) -> None:
        """The threads of ``mask`` store byte symbols ``values`` (T, nbytes) at ``addresses``."""

    def allocate_private(self, instruction: Instruction, size: int, align: int) -> int:
        """The address of the private allocation (``size`` bytes, each thread its own) of the
        alloca ``instruction``."""

    def shadow_store(
        self,
        addresses: np.ndarray,
        values: np.ndarray,
        mask: np.ndarray,
        instruction: Instruction,
        known: np.ndarray | None = None,
    ) -> None:
        """A global store the threads of ``mask`` would have made (their predicate was off);
        ``known``: the threads whose ``addresses`` are those of this store (the active and the
        masked ones), noted to tell duplicate copies from other masked threads."""

    def record(
        self,
        kind: str,
        space: int,
        nbytes: int,
        threads: np.ndarray,
        addresses: np.ndarray,
        where: str,
    ) -> None:
        """Add an access to the trace, when the run keeps one (the loads and stores of
        :meth:`load_bytes` and :meth:`store_bytes` are recorded by them)."""

    # -- synchronisation -------------------------------------------------------------------
    def barrier(self, mask: np.ndarray, scope: str = "CTA", *, wait: bool = True) -> None:
        """A barrier of ``scope`` reached by the threads of ``mask`` (every thread must reach
        it); with ``wait``, the next barrier interval of shared memory begins."""

    def commit_async_copies(self) -> None:
        """``cp.async.commit_group``: the copies issued since the last commit form a group."""

    def start_async_copy(
        self, destination: np.ndarray, data: np.ndarray, mask: np.ndarray, where: str
    ) -> None:
        """``cp.async``: ``data`` (T, nbytes) lands at shared ``destination`` at a later wait."""

    def wait_async_copies(self, keep: int = 0) -> None:
        """``cp.async.wait_group keep``: land every committed group but the newest ``keep``."""

    @property
    def wgmma(self) -> WarpgroupMMA:
        """The CTA's ``wgmma`` state: wgmma-groups, operand reads in flight."""
