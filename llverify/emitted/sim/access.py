"""Memory as the kernel addresses it: address spaces, the access trace, async-copy and wgmma groups.

A load or store names an address space: 3 is shared memory (32-bit addresses), 1 global
memory, 0 generic (shared where the address lies in the window at
:data:`~llverify.emitted.sim.instructions.SHARED_WINDOW`, else global).  Each CTA of a cluster
has its own shared memory; global memory is the cluster's.  ``cp.async`` copies read their
source when issued and land in shared memory only at a ``wait_group``/``wait_all`` that
covers their group (never before).  Hopper's ``wgmma`` groups
(:class:`~llverify.emitted.sim.wgmma.WarpgroupMMA`) are the other asynchronous operations of a
CTA: a copy may write its destination at any time from its issue to its wait, so a copy to a
byte a wgmma reads in flight, or a wgmma reading a byte a copy in flight writes, is a race.

Examples:
    >>> from llverify.emitted.sim.memory import SharedMemory
    >>> from llverify.emitted.sim.symbolic import Dag
    >>> copies = AsyncCopies()
    >>> copies.shared = SharedMemory(8, threads=1, warp_size=32)
    >>> copies.dag, copies.threads, copies.warp_size = Dag(), 1, 32
    >>> copies._start_copies()
    >>> copies.start_async_copy(np.array([4], dtype=np.uint64), np.array([[-8]]),
    ...                         np.array([True]), "cp.async")
    >>> copies.commit_async_copies()
    >>> int(copies.shared.data[4]) == -8   # not landed before the wait
    False
    >>> copies.wait_async_copies(0)
    >>> int(copies.shared.data[4])
    -8
"""

from __future__ import annotations

import numpy as np

from llverify.emitted.sim.instructions import PRIVATE_WINDOW, SHARED_WINDOW
from llverify.emitted.sim.llvm_ir import Instruction
from llverify.emitted.sim.memory import GlobalMemory, PrivateMemory, SharedMemory, Violation
from llverify.emitted.sim.ranges import Ranges
from llverify.emitted.sim.symbolic import UNDEFINED, Dag, Unmodelled, Val, symbols_of
from llverify.emitted.sim.wgmma import WarpgroupMMA

__all__ = ["AccessRecord", "AsyncCopies", "MemoryAccess"]

#: One traced access: (kind, space, bytes per thread, threads, byte addresses, where).
AccessRecord = tuple[str, int, int, np.ndarray, np.ndarray, str]
_Copy = tuple[np.ndarray, np.ndarray, np.ndarray, str]  # destinations, data, mask, where


class MemoryAccess:
    """Loads and stores by address space (a part of the
    :class:`~llverify.emitted.sim.executor.Execution`), each recorded in ``trace`` when the
    run keeps one; the shared memories of the CTAs run so far and their violations."""

    threads: int
    warp_size: int
    shared_bytes: int
    trace: list[AccessRecord] | None
    dag: Dag
    ranges: Ranges
    shared: SharedMemory
    memory: GlobalMemory
    private: PrivateMemory
    _finished_shared: list[SharedMemory]
    _finished_private: list[PrivateMemory]

    def _start_memory(self) -> None:
        """Empty global memory and the first CTA's shared memory."""
        self.memory = GlobalMemory()
        self._finished_shared = []
        self._finished_private = []
        self.shared = self._fresh_shared()
        self.private = PrivateMemory(self.threads)
        self.memory.undefined_origin = lambda: self.uninitialised[0] if self.uninitialised else None
        self._atomic_results = 0  # old values of atomics made so far (each its own node)

    def _next_shared(self) -> None:
        """The next CTA's own shared memory (the last one's is kept for its violations)."""
        self._finished_shared.append(self.shared)
        self.shared = self._fresh_shared()
        self._finished_private.append(self.private)
        self.private = PrivateMemory(self.threads)

    def _fresh_shared(self) -> SharedMemory:
        return SharedMemory(
            max(self.shared_bytes, 0), threads=self.threads, warp_size=self.warp_size
        )

    @property
    def violations(self) -> list[Violation]:
        """Every failed memory check, in every CTA run so far."""
        earlier = [v for shared in self._finished_shared for v in shared.violations]
        earlier += [v for private in self._finished_private for v in private.violations]
        return earlier + self.shared.violations + self.private.violations + self.memory.violations

    @property
    def uninitialised(self) -> list[Violation]:
        """Every read of a shared byte no thread wrote (or of a private byte its thread did
        not write), in every CTA run so far."""
        earlier = [v for shared in self._finished_shared for v in shared.uninitialised]
        earlier += [v for private in self._finished_private for v in private.uninitialised]
        return earlier + self.shared.uninitialised + self.private.uninitialised

    def allocate_private(self, instruction: Instruction, size: int, align: int) -> int:
        """The address (the same in every thread: each has its own bytes there) of the
        private allocation of ``size`` bytes that the alloca ``instruction`` makes."""
        offset = self.private.allocate(instruction.text_line, size, align)
        if instruction.type.space == 5:
            return offset
        return PRIVATE_WINDOW + offset

    def record(
        self,
        kind: str,
        space: int,
        nbytes: int,
        threads: np.ndarray,
        addresses: np.ndarray,
        where: str,
    ) -> None:
        """Add an access to the trace, when the run keeps one."""
        if self.trace is not None:
            self.trace.append((kind, space, nbytes, threads, addresses, where))

    def load_bytes(
        self,
        space: int,
        addresses: np.ndarray,
        nbytes: int,
        mask: np.ndarray,
        instruction: Instruction,
    ) -> np.ndarray:
        """Byte symbols (T, nbytes) read at ``addresses`` (uint64, shape (T,)) by active threads."""
        out = np.full((self.threads, nbytes), UNDEFINED, dtype=np.int64)
        threads = np.flatnonzero(mask)
        if threads.size == 0:
            return out
        space, base = _space(space, addresses[threads])
        grid = base[:, None] + np.arange(nbytes, dtype=np.int64)[None, :]
        where = instruction.where
        self.record("load", space, nbytes, threads, base, where)
        if space == 3:
            out[threads] = self.shared.read(grid, threads, where)
        elif space == 5:
            out[threads] = self.private.read(grid, threads, where)
        else:
            out[threads] = self.memory.read(grid, threads, where)
        return out

    def load_at(
        self,
        space: int,
        address: Val,
        nbytes: int,
        element_bytes: int,
        mask: np.ndarray,
        instruction: Instruction,
    ) -> np.ndarray:
        """Byte symbols (T, nbytes) the threads of ``mask`` read at ``address`` (a pointer
        value): :meth:`load_bytes` where it is concrete; where it depends on tagged data, a
        *gather* (:meth:`_gather`)."""
        tagged = mask & _tagged_rows(address)
        plain = mask & ~tagged
        out = self.load_bytes(
            space, address.integers(plain, "load address"), nbytes, plain, instruction
        )
        if tagged.any():
            out[tagged] = self._gather(space, address, nbytes, element_bytes, tagged)[tagged]
        return out

    def _gather(
        self, space: int, address: Val, nbytes: int, element_bytes: int, tagged: np.ndarray
    ) -> np.ndarray:
        """The loads of the threads of ``tagged``, whose addresses depend on tagged data.
        Each distinct address node's range (:class:`~llverify.emitted.sim.ranges.Ranges`,
        under the run's assumptions) must lie, with the access's bytes, inside one input
        buffer that nothing wrote there (:meth:`GlobalMemory.check_gather`), else the load is
        unmodelled naming the range; each ``element_bytes`` element read is the node
        ``gather.<buffer>(address, offset)``: one per address, so equal addresses give equal
        values.  Shared and private memory are unmodelled (which bytes are initialised is not
        known)."""
        if space not in (0, 1):
            where = "shared" if space == 3 else "private"
            raise Unmodelled(f"a {where}-memory load at an address that depends on tagged data")
        nodes = self.dag.nodes_of(address)
        out = np.full((self.threads, nbytes), UNDEFINED, dtype=np.int64)
        for node in np.unique(nodes[tagged]):
            k, start, end = self._span(int(node), nbytes, "load")
            self.memory.check_gather(k, start, end)
            offsets = range(0, nbytes, element_bytes)
            elements = np.array(
                [
                    self.dag.op(f"gather.{k}", (int(node), self.dag.const(j, 8)), element_bytes)
                    for j in offsets
                ],
                dtype=np.int64,
            )
            out[tagged & (nodes == node)] = symbols_of(elements, element_bytes).reshape(-1)
        return out

    def _span(self, node: int, nbytes: int, what: str) -> tuple[int, int, int]:
        """(region, start, end): the global buffer holding every byte an access of ``nbytes``
        at address ``node`` may touch, and those bytes' span; unmodelled (naming the span)
        when no one buffer holds them all."""
        lo, hi = self.ranges.unsigned(node)
        start, end = lo, hi + nbytes
        k = self.memory.region_spanning(start, end)
        if k is None:
            raise Unmodelled(
                f"the {what} address depends on tagged data; its range, "
                f"{self.memory.describe_span(start, end)}, is not within one buffer "
                f"(address {self.dag.describe(node, depth=4)})"
            )
        return k, start, end

    def atomic_at(
        self,
        space: int,
        address: Val,
        nbytes: int,
        element_bytes: int,
        mask: np.ndarray,
        instruction: Instruction,
    ) -> np.ndarray:
        """Atomic read-modify-writes of ``nbytes`` at ``address`` in global memory by the
        threads of ``mask`` (the address concrete or depending on tagged data, checked as a
        gather's): their spans are recorded (:meth:`GlobalMemory.atomic`,
        :meth:`GlobalMemory.atomic_span`); the old values (T, nbytes), which depend on the
        order of the atomics, are new nodes, one per thread and element."""
        if element_bytes > 16 or nbytes % element_bytes:
            raise Unmodelled(f"an atomic on {nbytes} bytes in {element_bytes}")
        tagged = mask & _tagged_rows(address)
        plain = np.flatnonzero(mask & ~tagged)
        if plain.size:
            where, base = _space(space, address.integers(mask & ~tagged, "atomic address")[plain])
            if where != 1:
                raise Unmodelled("an atomic on shared or private memory through inline assembly")
            grid = base[:, None] + np.arange(nbytes, dtype=np.int64)[None, :]
            self.memory.atomic(grid, plain, instruction.where)
        if tagged.any():
            if space not in (0, 1):
                raise Unmodelled("an atomic on shared memory at an address of tagged data")
            nodes = self.dag.nodes_of(address)
            for node in np.unique(nodes[tagged]):
                self.memory.atomic_span(*self._span(int(node), nbytes, "atomic"))
        out = np.full((self.threads, nbytes), UNDEFINED, dtype=np.int64)
        for t in np.flatnonzero(mask):
            made = []
            for _ in range(nbytes // element_bytes):
                self._atomic_results += 1
                serial = self.dag.const(self._atomic_results, 8)
                made.append(self.dag.op("atomic.old", (serial,), element_bytes))
            out[t] = symbols_of(np.array(made, dtype=np.int64), element_bytes).reshape(-1)
        return out

    def store_bytes(
        self,
        space: int,
        addresses: np.ndarray,
        values: np.ndarray,
        mask: np.ndarray,
        instruction: Instruction,
    ) -> None:
        """The active threads store byte symbols ``values`` (T, nbytes) at ``addresses``."""
        threads = np.flatnonzero(mask)
        if threads.size == 0:
            return
        space, base = _space(space, addresses[threads])
        grid = base[:, None] + np.arange(values.shape[1], dtype=np.int64)[None, :]
        where = instruction.where
        self.record("store", space, values.shape[1], threads, base, where)
        if space == 3:
            self.shared.write(grid, values[threads], threads, where)
        elif space == 5:
            self.private.write(grid, values[threads], threads, where)
        else:
            self.memory.write(grid, values[threads], threads, where)

    def shadow_store(
        self,
        addresses: np.ndarray,
        values: np.ndarray,
        mask: np.ndarray,
        instruction: Instruction,
        known: np.ndarray | None = None,
    ) -> None:
        """A global store the threads of ``mask`` would have made (their predicate was off);
        the addresses of the ``known`` threads are noted under the store's source location
        (the instructions of one ``tt.store``)."""
        key = (
            (instruction.line, instruction.column or 0)
            if instruction.line is not None
            else (-1, instruction.text_line)
        )
        if known is not None:
            self.memory.note_addresses(key, np.where(known, addresses.astype(np.int64), -1))
        threads = np.flatnonzero(mask)
        if threads.size == 0:
            return
        base = addresses[threads].astype(np.int64)
        grid = base[:, None] + np.arange(values.shape[1], dtype=np.int64)[None, :]
        self.memory.shadow(grid, values[threads], threads, instruction.where, key)


def _tagged_rows(value: Val) -> np.ndarray:
    """The threads whose ``value`` depends on tagged data (a byte that is no constant)."""
    if value.ints is not None:
        return np.zeros(value.ints.shape[0], dtype=bool)
    assert value.syms is not None
    return np.asarray(((value.syms >= 0) | (value.syms < -256)).any(axis=1), dtype=bool)


def _space(space: int, addresses: np.ndarray) -> tuple[int, np.ndarray]:
    """The address space (3 shared, 5 private or 1 global) and the byte addresses in it of an
    access to ``space`` (generic addresses: by window)."""
    if space == 3:
        return 3, (addresses & np.uint64(0xFFFFFFFF)).astype(np.int64)
    if space == 5:
        return 5, (addresses & np.uint64(0xFFFFFFFF)).astype(np.int64)
    if space in (1, 0):
        if space == 0:
            shared = addresses >= np.uint64(SHARED_WINDOW)
            private = ~shared & (addresses >= np.uint64(PRIVATE_WINDOW))
            if shared.any() or private.any():
                if shared.all():
                    return 3, (addresses - np.uint64(SHARED_WINDOW)).astype(np.int64)
                if private.all():
                    return 5, (addresses - np.uint64(PRIVATE_WINDOW)).astype(np.int64)
                raise Unmodelled("a generic access mixing shared, private and global addresses")
        return 1, addresses.astype(np.int64)
    raise Unmodelled(f"memory in address space {space}")


class AsyncCopies:
    """The ``cp.async`` groups of a CTA (a part of the
    :class:`~llverify.emitted.sim.executor.Execution`): copies issued, committed in groups,
    landing in shared memory when waited for; and its ``wgmma`` state."""

    shared: SharedMemory
    dag: Dag
    threads: int
    warp_size: int
    async_groups: list[list[_Copy]]
    wgmma: WarpgroupMMA

    def _start_copies(self) -> None:
        """No copy issued: one open group; no wgmma issued (the state watches the writes of
        the CTA's shared memory)."""
        self.async_groups = [[]]
        self.wgmma = WarpgroupMMA(
            self.shared, self.dag, self.threads, self.warp_size, self._copies_in_flight
        )
        self.shared.watch = self.wgmma.check_write

    def _copies_in_flight(self) -> np.ndarray:
        """The shared bytes the copies issued and not yet landed write (flat, repeated)."""
        grids = [
            _grid(addresses, np.flatnonzero(mask), data.shape[1]).reshape(-1)
            for group in self.async_groups
            for addresses, data, mask, _ in group
        ]
        return np.concatenate(grids) if grids else np.zeros(0, dtype=np.int64)

    def start_async_copy(
        self, destination: np.ndarray, data: np.ndarray, mask: np.ndarray, where: str
    ) -> None:
        """A copy of ``data`` (T, nbytes) to shared ``destination`` by the threads of ``mask``."""
        threads = np.flatnonzero(mask)
        self.wgmma.copy_started(_grid(destination, threads, data.shape[1]), threads, where)
        self.async_groups[-1].append((destination.copy(), data, mask.copy(), where))

    def commit_async_copies(self) -> None:
        """``cp.async.commit_group``: the open group is committed, a new one opens."""
        self.async_groups.append([])

    def wait_async_copies(self, keep: int = 0) -> None:
        """``cp.async.wait_group keep``: land every committed group but the newest ``keep``."""
        committed = self.async_groups[:-1]
        landing = committed[: max(0, len(committed) - keep)]
        for group in landing:
            for addresses, data, mask, where in group:
                threads = np.flatnonzero(mask)
                grid = _grid(addresses, threads, data.shape[1])
                self.shared.write(grid, data[threads], threads, where)
        self.async_groups = committed[len(landing) :] + [self.async_groups[-1]]


def _grid(destination: np.ndarray, threads: np.ndarray, nbytes: int) -> np.ndarray:
    """The shared byte addresses (n, nbytes) a copy of ``nbytes`` to ``destination`` (T,)
    writes in each of ``threads`` (n,)."""
    base = (destination[threads] & np.uint64(0xFFFFFFFF)).astype(np.int64)
    return base[:, None] + np.arange(nbytes, dtype=np.int64)[None, :]
