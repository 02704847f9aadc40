"""Memory as the kernel addresses it: address spaces, the access trace, async-copy and wgmma groups.

A load or store names an address space: 3 is shared memory (32-bit addresses), 1 global
memory, 0 generic (shared where the address lies in the window at
:data:`~llverify.emitted.sim.instructions.SHARED_WINDOW`, else global).  Each CTA of a cluster
has its own shared memory; global memory is the cluster's.  ``cp.async`` copies read their
source when issued and land in shared memory only at a ``wait_group``/``wait_all`` that
covers their group (never before); a read or write of a byte a copy in flight writes races with
it (:meth:`~llverify.emitted.sim.memory.SharedMemory.read`).  Hopper's ``wgmma`` groups
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

import weakref
from functools import partial

import numpy as np

from llverify.emitted.sim.guarded import implies, low_zero_bits
from llverify.emitted.sim.instructions import PRIVATE_WINDOW, SHARED_WINDOW
from llverify.emitted.sim.llvm_ir import Instruction
from llverify.emitted.sim.memory import GlobalMemory, PrivateMemory, SharedMemory, Violation
from llverify.emitted.sim.ranges import Ranges, closed, unsigned
from llverify.emitted.sim.symbolic import (
    UNDEFINED,
    Dag,
    Unmodelled,
    Val,
    const_bytes,
    symbols_of,
    unique_rows,
)
from llverify.emitted.sim.wgmma import WarpgroupMMA

__all__ = ["AccessRecord", "AsyncCopies", "MemoryAccess"]

#: One traced access: (kind, space, bytes per thread, threads, byte addresses, where).
AccessRecord = tuple[str, int, int, np.ndarray, np.ndarray, str]
_Copy = tuple[np.ndarray, np.ndarray, np.ndarray, str]  # destinations, data, mask, where
#: places a private load at an address of tagged data may read (a ``select`` over them)
_PLACES = 64


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
    #: the path condition of the threads running a region under a guard (None outside one,
    #: :class:`~llverify.emitted.sim.guarded.GuardedControl` sets it)
    guard: Val | None
    _finished_shared: list[SharedMemory]
    _finished_private: list[PrivateMemory]

    def _start_memory(self) -> None:
        """Empty global memory and the first CTA's shared memory."""
        self.memory = GlobalMemory()
        self._finished_shared = []
        self._finished_private = []
        self.shared = self._fresh_shared()
        self.private = PrivateMemory(self.threads)
        # weakly: a cycle through global memory would leave the run, DAG and all, to the
        # cyclic garbage collector (a pass over every node, after the validation)
        self.memory.undefined_origin = partial(_first_uninitialised, weakref.ref(self))
        self._atomic_results = 0  # old values of atomics made so far (each its own node)
        self.guard = None
        self._guard_ranges: dict[tuple[int, int], Ranges] = {}  # by (guard, facts assumed)
        self._implied: dict[tuple[int, int], bool] = {}  # memo of :func:`implies`
        self._zero_bits: dict[int, int] = {}  # memo of :func:`low_zero_bits`
        self._zeros_by_shape: dict[tuple, int] = {}  # and by shape (:meth:`_low_zero_bits`)

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
        threads = mask.nonzero()[0]  # (T,): flatnonzero without its wrapper
        everyone = threads.size == self.threads  # then the bytes read are all there is
        if threads.size == 0:
            return np.full((self.threads, nbytes), UNDEFINED, dtype=np.int64)
        space, base = _space(space, addresses if everyone else addresses[threads])
        grid = _byte_grid(base, nbytes)
        where = instruction.where
        guards = None if self.guard is None else self._guard_nodes(threads)
        if guards is not None and (guards >= 0).any() and space != 5:
            self._table_load(space, base[guards >= 0], nbytes)
        self.record("load", space, nbytes, threads, base, where)
        if space == 3:
            read = self.shared.read(grid, threads, where)
        elif space == 5:
            if guards is None:
                guards = self._guard_nodes(threads)
            read = self._private_read(grid, threads, guards, where)
        else:
            read = self.memory.read(grid, threads, where)
        if everyone:
            return read.astype(np.int64, copy=False)
        out = np.full((self.threads, nbytes), UNDEFINED, dtype=np.int64)
        out[threads] = read
        return out

    # -- under a guard (a region on tagged data, :mod:`~llverify.emitted.sim.guarded`) -------
    def _guard_nodes(self, threads: np.ndarray) -> np.ndarray:
        """The path condition node of each of ``threads``, -1 for one that runs whatever the
        data (no guard, or a guard that is concretely true in it)."""
        out = np.full(threads.size, -1, dtype=np.int64)
        guard = self.guard
        if guard is None or guard.ints is not None:
            return out
        tagged = _tagged_rows(guard)[threads]
        if tagged.any():
            out[tagged] = self.dag.nodes_of(guard)[threads[tagged]]
        return out

    def _ranges_under(self, guard: int) -> Ranges:
        """The ranges where path condition ``guard`` holds (-1: the run's own)."""
        if guard < 0:
            return self.ranges
        key = (guard, len(self.ranges.facts))
        found = self._guard_ranges.get(key)
        if found is None:
            found = self._guard_ranges[key] = self.ranges.under([(guard, True)])
        return found

    def _table_load(self, space: int, addresses: np.ndarray, nbytes: int) -> None:
        """Loads under a guard on tagged data at ``addresses`` (n,) of ``space``: each must
        lie inside one of the module's constant tables, else unmodelled (not refuted: the
        guard may hold on no input)."""
        if space == 3:
            raise Unmodelled("a shared-memory load under a guard on tagged data")
        for address in np.unique(addresses).tolist():
            k = self.memory.region_spanning(address, address + nbytes)
            if k is None or k not in self.memory.tables:
                raise Unmodelled(
                    "a global load under a guard on tagged data outside the module's constant "
                    f"tables ({self.memory.describe_span(address, address + nbytes)})"
                )

    def _conditions_hold(self, conditions: np.ndarray, guards: np.ndarray) -> None:
        """Reads of conditionally written private bytes: the condition of each byte of row
        ``r`` (``conditions`` (n, nbytes), -1 for none) must hold where the path condition
        ``guards[r]`` does (-1: everywhere; :func:`~llverify.emitted.sim.guarded.implies`),
        else unmodelled."""
        rows, _ = np.nonzero(conditions >= 0)
        if rows.size == 0:
            return
        pairs = set(zip(guards[rows].tolist(), conditions[conditions >= 0].tolist()))
        for guard, condition in pairs:
            if not implies(self.dag, guard, condition, self._implied):
                raise Unmodelled(
                    "a read of private bytes a store wrote only under a condition on tagged "
                    "data not known to hold here"
                )

    def _private_read(
        self, grid: np.ndarray, threads: np.ndarray, guards: np.ndarray, where: str
    ) -> np.ndarray:
        """Private bytes at ``grid`` (n, nbytes) read by ``threads`` with path conditions
        ``guards``: under a guard, inside an allocation and written before (unconditionally
        or under a condition the guard implies), else unmodelled."""
        guarded = guards >= 0
        if guarded.any():
            cells = grid[guarded]
            if not self.private.inside(cells).all():
                raise Unmodelled(
                    "a private access outside its allocation under a guard on tagged data (not "
                    "refuted: the guard may hold on no input)"
                )
            rows = threads[guarded][:, None]
            unwritten = ~self.private.written[rows, cells] & (
                self.private.condition[rows, cells] < 0
            )
            if unwritten.any():
                raise Unmodelled(
                    "a read of private bytes not written before, under a guard on tagged data "
                    "(not refuted: the guard may hold on no input)"
                )
        inside = self.private.inside(grid)
        safe = np.where(inside[:, None], grid, 0)
        conditions = np.where(inside[:, None], self.private.condition[threads[:, None], safe], -1)
        self._conditions_hold(conditions, guards)
        return self.private.read(grid, threads, where, conditions_checked=True)

    def _private_write(
        self,
        grid: np.ndarray,
        values: np.ndarray,
        threads: np.ndarray,
        guards: np.ndarray,
        where: str,
    ) -> None:
        """Private stores of ``values`` at ``grid`` (n, nbytes) by ``threads`` with path
        conditions ``guards``.  Under guard ``g``: bytes written before get ``select(g, new,
        old)``, bytes not written become written under ``g`` (under ``c or g`` when they were
        under ``c``); outside the allocation, or with undefined bytes, unmodelled."""
        guarded = guards >= 0
        if (~guarded).any():
            self.private.write(grid[~guarded], values[~guarded], threads[~guarded], where)
        if not guarded.any():
            return
        if not self.private.inside(grid[guarded]).all():
            raise Unmodelled(
                "a private store outside its allocation under a guard on tagged data (not "
                "refuted: the guard may hold on no input)"
            )
        nbytes = values.shape[1]
        private, dag = self.private, self.dag
        rows = np.flatnonzero(guarded)  # one thread each: read all first, then store all
        cells, new, under = grid[rows], values[rows], guards[rows]
        at = (threads[rows][:, None], cells)
        conditions = private.condition[at]
        unwritten = ~private.written[at] & (conditions < 0)
        old = np.where(unwritten, new, private.data[at])
        changed = (old != new).any(axis=1)
        if changed.any() and (
            nbytes > 16 or (new[changed] == UNDEFINED).any() or (old[changed] == UNDEFINED).any()
        ):
            raise Unmodelled(
                f"a private store of {nbytes} bytes under a guard on tagged data over "
                "written bytes (wider than 16, or undefined)"
            )
        stored = new.copy()
        under = np.repeat(under[:, None], nbytes, axis=1)  # for the bytes not written
        conditional = (conditions >= 0).any(axis=1)
        for row in np.flatnonzero(changed | conditional).tolist():
            guard = int(under[row, 0])
            if changed[row]:
                chosen = dag.op(
                    "select",
                    (
                        guard,
                        dag.from_symbols(tuple(new[row].tolist())),
                        dag.from_symbols(tuple(old[row].tolist())),
                    ),
                    nbytes,
                )
                stored[row] = dag.symbols(chosen)
            for k, condition in enumerate(conditions[row].tolist()):
                if condition >= 0 and not implies(dag, guard, condition, self._implied):
                    under[row, k] = dag.op("or", (condition, guard), 1)
                elif condition >= 0:
                    under[row, k] = condition
        private.store_under(cells, stored, threads[rows], under)

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
        if address.ints is not None:  # concrete in every thread
            return self.load_bytes(space, address.ints, nbytes, mask, instruction)
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
        under the run's assumptions and the thread's path condition) decides the load:

        * inside one input buffer (or, under a guard, one of the module's constant tables)
          that nothing wrote there (:meth:`GlobalMemory.check_gather`): each
          ``element_bytes`` element read is the node ``gather.<buffer>(address, offset)``,
          one per address, so equal addresses give equal values;
        * inside one private allocation: :meth:`_private_gather`;
        * else the load is unmodelled naming the range, as is a shared-memory one."""
        if space == 3:
            raise Unmodelled("a shared-memory load at an address that depends on tagged data")
        nodes = self.dag.nodes_of(address)
        guards = np.full(self.threads, -1, dtype=np.int64)
        guards[tagged] = self._guard_nodes(np.flatnonzero(tagged))
        out = np.full((self.threads, nbytes), UNDEFINED, dtype=np.int64)
        rows = np.flatnonzero(tagged)
        pairs, inverse = unique_rows(np.stack([nodes[rows], guards[rows]], axis=1))
        order = np.argsort(inverse, kind="stable")  # the threads of each pair, one run each
        runs = np.split(rows[order], np.flatnonzero(np.diff(inverse[order])) + 1)
        window = 0 if space == 5 else PRIVATE_WINDOW
        private: dict[tuple[int, int, int], list[np.ndarray]] = {}  # places: threads
        for (node, guard), who in zip(pairs.tolist(), runs):
            ranges = self._ranges_under(guard)
            interval, shape = ranges.shaped_interval(node)
            lo, hi = unsigned(interval, ranges.bits(node))
            if space == 5 or (space == 0 and PRIVATE_WINDOW <= lo and hi < SHARED_WINDOW):
                step = 1 << min(self._low_zero_bits(node, shape), 12)
                private.setdefault((lo - window, hi - window, step), []).append(who)
                continue
            k, start, end = self._span(node, (lo, hi), nbytes, "load")
            self.memory.check_gather(k, start, end)
            if guard >= 0 and k not in self.memory.tables:
                raise Unmodelled(
                    "a load at an address that depends on tagged data under a guard on tagged "
                    f"data from {self.memory.regions[k].name}, not one of the module's constant "
                    "tables"
                )
            offsets = range(0, nbytes, element_bytes)
            elements = np.array(
                [
                    self.dag.op(f"gather.{k}", (int(node), self.dag.const(j, 8)), element_bytes)
                    for j in offsets
                ],
                dtype=np.int64,
            )
            out[who] = symbols_of(elements, element_bytes).reshape(-1)
        for (lo, hi, step), members in private.items():
            who = np.zeros(self.threads, dtype=bool)
            who[np.concatenate(members)] = True
            self._private_gather((lo, hi), step, window, nbytes, who, nodes, guards, out)
        return out

    def _low_zero_bits(self, node: int, shape: tuple | None) -> int:
        """:func:`~llverify.emitted.sim.guarded.low_zero_bits` of ``node``, memoised by its
        shape (:meth:`~llverify.emitted.sim.ranges.Ranges.shaped_interval`) where that holds
        every node below it: the same address of another thread has as many."""
        zeros = self._zeros_by_shape.get(shape) if shape is not None else None
        if zeros is None:
            zeros = low_zero_bits(self.dag, node, self._zero_bits)
            if shape is not None and closed(shape):
                self._zeros_by_shape[shape] = zeros
        return zeros

    def _private_gather(
        self,
        interval: tuple[int, int],
        step: int,
        window: int,
        nbytes: int,
        who: np.ndarray,
        nodes: np.ndarray,
        guards: np.ndarray,
        out: np.ndarray,
    ) -> None:
        """Private loads of ``nbytes`` by the threads of ``who`` at address nodes ``nodes``
        (each thread's, under path condition ``guards``), whose offsets from ``window`` lie
        in ``interval`` at multiples of ``step`` (the addresses' alignment): every place they
        may read (:data:`_PLACES` at most) must lie inside one allocation and be written
        before (unconditionally or under a condition the guard implies), else unmodelled;
        each thread reads ``select(address == a1, its bytes at a1, select(address == a2,
        ...))`` over those places (the last one unconditionally: the address is one of
        them), into ``out`` (T, nbytes)."""
        dag = self.dag
        lo, hi = interval
        first = -(-lo // step) * step
        count = (hi - first) // step + 1 if first <= hi else 0
        place = f"bytes [{lo:#x}, {hi + nbytes:#x}) of private memory"
        if not 0 < count <= _PLACES or nbytes > 16:
            raise Unmodelled(
                f"a private load at an address that depends on tagged data, in {place}: "
                f"{count} places of {nbytes} bytes to choose from (at most {_PLACES} of at "
                "most 16 are)"
            )
        starts = [first + step * k for k in range(count)]
        cells = np.array(starts, dtype=np.int64)[:, None] + np.arange(nbytes, dtype=np.int64)
        threads = np.flatnonzero(who)
        if not self.private.inside(cells).all():
            node = int(nodes[threads[0]])
            raise Unmodelled(
                f"a private load at an address that depends on tagged data: {place} is not "
                f"within one allocation (address {dag.describe(node, depth=4)})"
            )
        rows = threads[:, None]
        flat = cells.reshape(-1)[None, :]
        written = self.private.written[rows, flat]
        conditions = np.where(written, -1, self.private.condition[rows, flat])
        data = self.private.data[rows, flat]
        if (~written & (conditions < 0)).any() or (data == UNDEFINED).any():
            raise Unmodelled(
                "a private load at an address that depends on tagged data may read bytes "
                f"not written before, in {place}"
            )
        self._conditions_hold(conditions, guards[threads])
        width = 8 * dag.width[int(nodes[threads[0]])]
        constants = [dag.const((a + window) % (1 << width), width // 8) for a in starts]
        each = data.reshape(threads.size, count, nbytes).tolist()
        values = []
        for node, slots in zip(nodes[threads].tolist(), each):
            value = dag.from_symbols(tuple(slots[-1]))
            for k in range(count - 2, -1, -1):
                hit = dag.op("icmp.eq", (node, constants[k]), 1)
                value = dag.op("select", (hit, dag.from_symbols(tuple(slots[k])), value), nbytes)
            values.append(value)
        out[threads] = symbols_of(np.array(values, dtype=np.int64), nbytes)
        for thread, value in zip(threads.tolist(), values):
            constant = dag.constant_value(value)
            if constant is not None:  # one place holding constant bytes
                out[thread] = const_bytes(np.array([constant], dtype=np.uint64), nbytes)[0]

    def _span(
        self, node: int, interval: tuple[int, int], nbytes: int, what: str
    ) -> tuple[int, int, int]:
        """(region, start, end): the global buffer holding every byte an access of ``nbytes``
        at address ``node``, whose unsigned range is ``interval``, may touch, and those
        bytes' span; unmodelled (naming the span) when no one buffer holds them all."""
        lo, hi = interval
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
            for node in np.unique(nodes[tagged]).tolist():
                interval = unsigned(self.ranges.interval_by_cases(node), self.ranges.bits(node))
                self.memory.atomic_span(*self._span(node, interval, nbytes, "atomic"))
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
        threads = mask.nonzero()[0]
        if threads.size == 0:
            return
        if threads.size != self.threads:  # else every row is an active thread's
            addresses, values = addresses[threads], values[threads]
        space, base = _space(space, addresses)
        grid = _byte_grid(base, values.shape[1])
        where = instruction.where
        guards = None if self.guard is None else self._guard_nodes(threads)
        if guards is not None and (guards >= 0).any() and space != 5:
            memory = "shared" if space == 3 else "global"
            raise Unmodelled(f"a store to {memory} memory under a guard on tagged data")
        self.record("store", space, values.shape[1], threads, base, where)
        if space == 3:
            self.shared.write(grid, values, threads, where)
        elif space == 5:
            if guards is None:
                guards = self._guard_nodes(threads)
            self._private_write(grid, values, threads, guards, where)
        else:
            self.memory.write(grid, values, threads, where)

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
        threads = mask.nonzero()[0]
        if threads.size == 0:
            return
        grid = _byte_grid(addresses[threads].astype(np.int64), values.shape[1])
        self.memory.shadow(grid, values[threads], threads, instruction.where, key)


def _byte_grid(base: np.ndarray, nbytes: int) -> np.ndarray:
    """The byte addresses (n, nbytes) of accesses of ``nbytes`` at ``base`` (n,), int64:
    ``base[:, None] + arange(nbytes)``, made by repeating (a broadcast add over rows of a
    few bytes costs more than the arrays it makes).

    >>> _byte_grid(np.array([8, 0]), 3).tolist()
    [[8, 9, 10], [0, 1, 2]]
    """
    key = (base.size, nbytes)
    offsets = _TILED_OFFSETS.get(key)
    if offsets is None:
        offsets = _TILED_OFFSETS[key] = np.tile(np.arange(nbytes, dtype=np.int64), base.size)
        offsets.flags.writeable = False
    return (base.astype(np.int64, copy=False).repeat(nbytes) + offsets).reshape(-1, nbytes)


#: ``arange(nbytes)`` repeated for ``n`` accesses, by (n, nbytes) (read only)
_TILED_OFFSETS: dict[tuple[int, int], np.ndarray] = {}


def _first_uninitialised(run: weakref.ref[MemoryAccess]) -> Violation | None:
    """The first uninitialised read of the run ``run`` refers to, if it is still alive."""
    alive = run()
    found = [] if alive is None else alive.uninitialised
    return found[0] if found else None


def _checked_write(
    wgmma: weakref.ref[WarpgroupMMA], addresses: np.ndarray, threads: np.ndarray, where: str
) -> list[Violation]:
    """:meth:`WarpgroupMMA.check_write` of the wgmma state ``wgmma`` refers to (weakly: it
    holds the shared memory that holds this), none once it is gone."""
    alive = wgmma()
    return [] if alive is None else alive.check_write(addresses, threads, where)


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
        self.wgmma = WarpgroupMMA(self.shared, self.dag, self.threads, self.warp_size)
        self.shared.watch = partial(_checked_write, weakref.ref(self.wgmma))  # no cycle

    def start_async_copy(
        self, destination: np.ndarray, data: np.ndarray, mask: np.ndarray, where: str
    ) -> None:
        """A copy of ``data`` (T, nbytes) to shared ``destination`` by the threads of ``mask``."""
        threads = np.flatnonzero(mask)
        grid = _grid(destination, threads, data.shape[1])
        self.wgmma.copy_started(grid, threads, where)
        inside = grid[(grid >= 0) & (grid < self.shared.size)]
        self.shared.hold(inside)
        np.add.at(self.shared.copies_in_flight, inside, 1)
        self.shared.bytes_in_flight += inside.size
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
                inside = grid[(grid >= 0) & (grid < self.shared.size)]
                np.subtract.at(self.shared.copies_in_flight, inside, 1)
                self.shared.bytes_in_flight -= inside.size
                self.shared.write(grid, data[threads], threads, where)
        self.async_groups = committed[len(landing) :] + [self.async_groups[-1]]


def _grid(destination: np.ndarray, threads: np.ndarray, nbytes: int) -> np.ndarray:
    """The shared byte addresses (n, nbytes) a copy of ``nbytes`` to ``destination`` (T,)
    writes in each of ``threads`` (n,)."""
    base = (destination[threads] & np.uint64(0xFFFFFFFF)).astype(np.int64)
    return base[:, None] + np.arange(nbytes, dtype=np.int64)[None, :]
