"""Shared and global memory of one executed CTA: byte symbols, writers, readers, violations.

Shared memory is an array of byte symbols (:mod:`llverify.emitted.sim.symbolic`) with, per byte,
the barrier interval and the warps that last wrote and read it.  Accesses are checked as they
happen:

* a read of a byte no one wrote is an *uninitialised read*: recorded when it happens, and a
  violation once an undefined byte reaches a global store (a read whose value is never used,
  as Triton 2.1's layernorm has, stays a note: the results are right);
* an address outside the allocation is *out of bounds*;
* within one barrier interval, a read of a byte another warp wrote, a write of a byte another
  warp read, or two writes of different values by different warps are *races*; one
  instruction whose threads write different values to one byte is a *nondeterministic store*.
  Accesses of one warp are ordered by program order (the executor runs a warp's threads in
  lockstep, as Triton's convergent code runs).  Several threads writing the *same* value is
  normal and never reported.

Global memory is the harness's buffers: inputs hold tagged or concrete elements, outputs
record every byte's value and writer; two threads storing different values to one output byte
is a violation at any time (the kernel's result would depend on scheduling).

Examples:
    >>> shared = SharedMemory(16, threads=64, warp_size=32)
    >>> addresses = np.array([[0], [0]]); threads = np.array([0, 40])
    >>> shared.write(addresses, np.array([[-1], [-1]]), threads, "st")
    >>> shared.read(np.array([[0]]), np.array([1]), "ld").tolist()   # warp 0 reads warp 1's write
    [[-1]]
    >>> [v.kind for v in shared.violations]
    ['race']
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from llverify.emitted.sim.symbolic import UNDEFINED, Unmodelled

__all__ = [
    "GlobalMemory",
    "OpenRegion",
    "PrivateMemory",
    "Region",
    "SharedMemory",
    "Spans",
    "Violation",
]


@dataclass(frozen=True)
class Violation:
    """One failed memory check: ``kind``, the thread(s), the address and where (``where``:
    the instruction's description, filled in by the executor)."""

    # uninitialised read | out of bounds | race | nondeterministic store | conflicting store
    kind: str
    space: str  # "shared", "global" or "private"
    thread: int
    other_thread: int | None
    address: int
    where: str
    detail: str = ""
    #: every distinct pair of different byte symbols the check found at one address
    values: tuple[tuple[int, int], ...] = ()


class SharedMemory:
    """The CTA's shared memory (``size`` bytes) with per-byte access tracking."""

    data: np.ndarray  # byte symbols
    written_interval: np.ndarray  # the barrier interval of each byte's last write, -1 none
    writer_warps: np.ndarray  # bit k: warp k wrote the byte in that interval
    writer: np.ndarray  # the thread that last wrote each byte, -1 none
    read_interval: np.ndarray  # the barrier interval of each byte's last read, -1 none
    reader_warps: np.ndarray  # bit k: warp k read the byte in that interval
    reader: np.ndarray  # the thread that last read each byte, -1 none
    copies_in_flight: np.ndarray
    #: the per-byte state of a fresh allocation: each array's value before any access
    _FRESH: tuple[tuple[str, int, type], ...] = (
        ("data", UNDEFINED, np.int64),
        ("written_interval", -1, np.int64),
        ("writer_warps", 0, np.int64),
        ("writer", -1, np.int64),
        ("read_interval", -1, np.int64),
        ("reader_warps", 0, np.int64),
        ("reader", -1, np.int64),
        ("copies_in_flight", 0, np.int32),
    )
    _FIRST_BYTES = 4096  # per-byte state held at first; grown as higher bytes are accessed

    def __init__(self, size: int, *, threads: int, warp_size: int) -> None:
        self.size = size
        self.warp_size = warp_size
        #: each thread's warp bit, as :meth:`read` and :meth:`write` compute it
        self._thread_bits = np.left_shift(1, np.arange(threads) // warp_size).astype(np.int64)
        #: bytes whose state the per-byte arrays hold: the allocation's first ones, grown
        #: as accesses reach higher bytes (a dumped kernel's allocation of unknown size is
        #: 1 MiB, of which kernels use a few KiB: no megabytes made and filled per kernel)
        self.held = min(size, self._FIRST_BYTES)
        for name, fill, dtype in self._FRESH:
            setattr(self, name, np.full(self.held, fill, dtype=dtype))
        self.interval = 0
        self.violations: list[Violation] = []
        self.uninitialised: list[Violation] = []  # reads of unwritten bytes, used or not
        self.accessed_bytes = 0
        #: called with the (flat) addresses and threads of every write, and where: the races
        #: it finds with asynchronous readers (wgmma operands in flight)
        self.watch: Callable[[np.ndarray, np.ndarray, str], list[Violation]] | None = None
        #: per byte, the ``cp.async`` copies issued and not yet waited for that write it (such
        #: a copy may land at any time before its wait: an access of the byte meanwhile races):
        #: ``copies_in_flight``, made above
        #: the sum of :attr:`copies_in_flight` (0: no access needs the per-byte check)
        self.bytes_in_flight = 0

    def barrier(self) -> None:
        """A CTA-wide barrier: the next barrier interval begins."""
        self.interval += 1

    def hold(self, addresses: np.ndarray) -> None:
        """Make the per-byte arrays hold the state of every one of ``addresses`` (in bounds:
        ``0 <= a < size``): grown, doubling at least, with fresh state for the new bytes.

        >>> shared = SharedMemory(1 << 20, threads=1, warp_size=32)
        >>> shared.held, shared.data.size
        (4096, 4096)
        >>> shared.hold(np.array([5000])); shared.held, int(shared.data[5000]) == UNDEFINED
        (8192, True)
        """
        if addresses.size:
            self._hold_to(int(addresses.max()))

    def _hold_to(self, high: int) -> None:
        """:meth:`hold` of the bytes up to ``high`` (``< size``)."""
        if high < self.held:
            return
        held = min(self.size, max(2 * self.held, high + 1))
        for name, fill, dtype in self._FRESH:
            grown: np.ndarray = np.full(held, fill, dtype=dtype)
            grown[: self.held] = getattr(self, name)
            setattr(self, name, grown)
        self.held = held

    def _in_bounds(self, addresses: np.ndarray, threads: np.ndarray, where: str) -> np.ndarray:
        ok = (addresses >= 0) & (addresses < self.size)
        if not ok.all():
            row, col = np.argwhere(~ok)[0]
            self.violations.append(
                Violation(
                    "out of bounds",
                    "shared",
                    int(threads[row]),
                    None,
                    int(addresses[row, col]),
                    where,
                    f"the allocation is {self.size} bytes",
                )
            )
        return ok

    def read(
        self, addresses: np.ndarray, threads: np.ndarray, where: str, *, atomic: bool = False
    ) -> np.ndarray:
        """The byte symbols at ``addresses`` (n, nbytes) read by ``threads`` (n,)."""
        values = self._read_fast(addresses, threads, atomic)
        if values is not None:
            return values
        ok = self._in_bounds(addresses, threads, where)
        safe = np.where(ok, addresses, 0)
        self.hold(safe)
        values = np.where(ok, self.data[safe], UNDEFINED)
        thread_of = np.broadcast_to(threads[:, None], addresses.shape)
        warp_bit = np.left_shift(1, thread_of // self.warp_size).astype(np.int64)
        unwritten = ok & (self.written_interval[safe] < 0)
        if unwritten.any():
            row, col = np.argwhere(unwritten)[0]
            self.uninitialised.append(
                Violation(
                    "uninitialised read",
                    "shared",
                    int(threads[row]),
                    None,
                    int(addresses[row, col]),
                    where,
                    "no thread wrote this byte before it is read",
                )
            )
        self._in_flight(ok, safe, threads, addresses, where, "read")
        if not atomic:
            raced = (
                ok
                & (self.written_interval[safe] == self.interval)
                & ((self.writer_warps[safe] & ~warp_bit) != 0)
            )
            if raced.any():
                row, col = np.argwhere(raced)[0]
                self.violations.append(
                    Violation(
                        "race",
                        "shared",
                        int(threads[row]),
                        int(self.writer[safe[row, col]]),
                        int(addresses[row, col]),
                        where,
                        "read of a byte another warp writes in the same barrier interval",
                    )
                )
            fresh = ok & (self.read_interval[safe] != self.interval)
            self.reader_warps[safe[fresh]] = 0
            self.read_interval[safe[ok]] = self.interval
            np.bitwise_or.at(self.reader_warps, safe[ok], warp_bit[ok])
            self.reader[safe[ok]] = thread_of[ok]
        self.accessed_bytes += int(ok.sum())
        return values

    def write(
        self,
        addresses: np.ndarray,
        values: np.ndarray,
        threads: np.ndarray,
        where: str,
        *,
        atomic: bool = False,
    ) -> None:
        """Store byte symbols ``values`` (shape (n, nbytes)) at ``addresses`` by ``threads``."""
        if self._write_fast(addresses, values, threads, where, atomic):
            return
        ok = self._in_bounds(addresses, threads, where)
        safe = np.where(ok, addresses, 0)
        self.hold(safe)
        self._in_flight(ok, safe, threads, addresses, where, "write")
        flat_addr = addresses[ok]
        flat_val = values[ok]
        thread_of = np.broadcast_to(threads[:, None], addresses.shape)[ok]
        self._same_instruction(flat_addr, flat_val, thread_of, where)
        warp_bit = np.left_shift(1, thread_of // self.warp_size).astype(np.int64)
        if not atomic and flat_addr.size:
            self._write_races(flat_addr, flat_val, thread_of, warp_bit, where)
        if self.watch is not None and flat_addr.size:
            self.violations.extend(self.watch(flat_addr, thread_of, where))
        fresh = self.written_interval[flat_addr] != self.interval
        self.writer_warps[flat_addr[fresh]] = 0
        self.written_interval[flat_addr] = self.interval
        np.bitwise_or.at(self.writer_warps, flat_addr, warp_bit)
        self.writer[flat_addr] = thread_of
        self.data[flat_addr] = flat_val
        self.accessed_bytes += int(flat_addr.size)

    def _plain(self, addresses: np.ndarray) -> np.ndarray | None:
        """The flat addresses of an access (n, nbytes) when it is the common case the fast
        paths take: not empty, int64, every byte in bounds (then held) and no ``cp.async``
        in flight; None otherwise."""
        if not addresses.size or self.bytes_in_flight or addresses.dtype != np.int64:
            return None
        flat = addresses.reshape(-1)
        high = int(flat.view(np.uint64).max())  # a negative address is above every other
        if high >= self.size:
            return None
        self._hold_to(high)
        return flat

    def _warp_bits(self, threads: np.ndarray) -> np.ndarray:
        """Each of ``threads``'s warp bit (``1 << warp``), as the full paths compute it."""
        if threads.dtype == np.int64 and threads.size:
            if int(threads.view(np.uint64).max()) < self._thread_bits.size:
                return self._thread_bits[threads]
        return np.left_shift(1, threads // self.warp_size).astype(np.int64)

    def _read_fast(
        self, addresses: np.ndarray, threads: np.ndarray, atomic: bool
    ) -> np.ndarray | None:
        """:meth:`read` of the common case (every byte in bounds and written before, no
        ``cp.async`` in flight, no byte another warp wrote in this interval: nothing to
        report), with the bytes' state updated as the full path updates it; None, with
        nothing done, where the full checks decide."""
        flat = self._plain(addresses)
        if flat is None:
            return None
        written = self.written_interval[flat]
        if int(written.min()) < 0:
            return None  # an uninitialised read: reported by the full path
        thread_of = threads.repeat(addresses.shape[1])
        warp_bit = self._warp_bits(thread_of)
        interval = self.interval
        if int(written.max()) == interval:  # the interval is the latest any byte has
            now = written == interval
            if ((self.writer_warps[flat] & ~warp_bit)[now] != 0).any():
                return None  # a race
        if not atomic:
            read = self.read_interval[flat]
            if int(read.min()) != interval:  # a byte read again gets the same value: exact
                self.reader_warps[flat] = np.where(read == interval, self.reader_warps[flat], 0)
            self.read_interval[flat] = interval
            np.bitwise_or.at(self.reader_warps, flat, warp_bit)
            self.reader[flat] = thread_of
        self.accessed_bytes += flat.size
        return self.data[flat].reshape(addresses.shape)

    def _write_fast(
        self,
        addresses: np.ndarray,
        values: np.ndarray,
        threads: np.ndarray,
        where: str,
        atomic: bool,
    ) -> bool:
        """:meth:`write` of the common case (every byte in bounds, no ``cp.async`` in
        flight, each byte written by one thread, none another warp read in this interval or
        wrote with a different value: nothing to report but what :attr:`watch` finds), with
        the bytes' state updated as the full path updates it (no address repeats, so plain
        assignment replaces ``np.bitwise_or.at``); False, with nothing done, where the full
        checks decide."""
        flat = self._plain(addresses)
        if flat is None:
            return False
        ordered = np.sort(flat)
        if (ordered[1:] == ordered[:-1]).any():
            return False  # threads writing one byte: the full path compares their values
        thread_of = threads.repeat(addresses.shape[1])
        warp_bit = self._warp_bits(thread_of)
        flat_val = values.reshape(-1)
        interval = self.interval
        written = self.written_interval[flat]
        now = None
        if int(written.max()) == interval:  # the interval is the latest any byte has
            now = written == interval
            if (
                not atomic
                and (
                    ((self.writer_warps[flat] & ~warp_bit) != 0)
                    & now
                    & (self.data[flat] != flat_val)
                ).any()
            ):
                return False  # a race
        if not atomic:
            read = self.read_interval[flat]
            if int(read.max()) == interval:
                if ((self.reader_warps[flat] & ~warp_bit)[read == interval] != 0).any():
                    return False  # a race
        if self.watch is not None:
            self.violations.extend(self.watch(flat, thread_of, where))
        if now is None:
            self.writer_warps[flat] = warp_bit
        else:
            self.writer_warps[flat] = np.where(now, self.writer_warps[flat], 0) | warp_bit
        self.written_interval[flat] = interval
        self.writer[flat] = thread_of
        self.data[flat] = flat_val
        self.accessed_bytes += flat.size
        return True

    def _in_flight(
        self,
        ok: np.ndarray,
        safe: np.ndarray,
        threads: np.ndarray,
        addresses: np.ndarray,
        where: str,
        access: str,
    ) -> None:
        """A race of an ordinary access (``access``: read or write) with a ``cp.async`` that
        writes the same byte and has not been waited for: the copy lands at an unknown time
        before its ``wait_group``, so the access may see (or overwrite) either value."""
        if not self.bytes_in_flight:
            return
        pending = ok & (self.copies_in_flight[safe] > 0)
        if pending.any():
            row, col = np.argwhere(pending)[0]
            self.violations.append(
                Violation(
                    "race",
                    "shared",
                    int(threads[row]),
                    None,
                    int(addresses[row, col]),
                    where,
                    f"{access} of a byte a cp.async in flight writes (no cp.async.wait_group "
                    "has retired the copy: it may land at any time before its wait)",
                )
            )

    def _write_races(
        self,
        addresses: np.ndarray,
        values: np.ndarray,
        threads: np.ndarray,
        warp_bit: np.ndarray,
        where: str,
    ) -> None:
        """Races of a write (flat ``addresses``, ``values``, ``threads``) in this barrier
        interval: a byte another warp read, or wrote with a different value."""
        read_by_other = (self.read_interval[addresses] == self.interval) & (
            (self.reader_warps[addresses] & ~warp_bit) != 0
        )
        if read_by_other.any():
            i = int(np.argmax(read_by_other))
            self.violations.append(
                Violation(
                    "race",
                    "shared",
                    int(threads[i]),
                    int(self.reader[addresses[i]]),
                    int(addresses[i]),
                    where,
                    "write of a byte another warp reads in the same barrier interval",
                )
            )
        differs = (
            (self.written_interval[addresses] == self.interval)
            & ((self.writer_warps[addresses] & ~warp_bit) != 0)
            & (self.data[addresses] != values)
        )
        if differs.any():
            i = int(np.argmax(differs))
            self.violations.append(
                Violation(
                    "race",
                    "shared",
                    int(threads[i]),
                    int(self.writer[addresses[i]]),
                    int(addresses[i]),
                    where,
                    "two warps write different values to one byte in the same barrier interval",
                    _pairs(self.data[addresses][differs], values[differs]),
                )
            )

    def _same_instruction(
        self, addresses: np.ndarray, values: np.ndarray, threads: np.ndarray, where: str
    ) -> None:
        if addresses.size < 2:
            return
        order = np.lexsort((values, addresses))
        a, v, t = addresses[order], values[order], threads[order]
        clash = (a[1:] == a[:-1]) & (v[1:] != v[:-1]) & (t[1:] != t[:-1])
        if clash.any():
            i = int(np.argmax(clash))
            self.violations.append(
                Violation(
                    "nondeterministic store",
                    "shared",
                    int(t[i + 1]),
                    int(t[i]),
                    int(a[i]),
                    where,
                    "threads of one instruction write different values to one byte",
                    _pairs(v[:-1][clash], v[1:][clash]),
                )
            )


@dataclass
class Region:
    """One global buffer: ``kind`` is input (tagged), values (concrete), output or scratch."""

    name: str
    base: int
    size: int
    kind: str
    data: np.ndarray  # byte symbols
    writer: np.ndarray  # thread that wrote each byte, -1 none
    site: np.ndarray  # index into GlobalMemory.sites of the store that wrote each byte, -1 none


class OpenRegion:
    """A global buffer of unknown size (a pointer argument of a dumped kernel): bytes are
    tagged on first read (``fresh(offsets)`` gives their byte symbols), writes are recorded
    sparsely in pages."""

    PAGE = 1 << 12

    def __init__(self, name: str, base: int, size: int, fresh: Callable[[np.ndarray], np.ndarray]):
        self.name, self.base, self.size, self.kind = name, base, size, "open"
        self._fresh = fresh
        self._pages: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def _page(self, number: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        page = self._pages.get(number)
        if page is None:
            offsets = number * self.PAGE + np.arange(self.PAGE, dtype=np.int64)
            page = (
                self._fresh(offsets),
                np.full(self.PAGE, -1, dtype=np.int64),
                np.full(self.PAGE, -1, dtype=np.int64),
            )
            self._pages[number] = page
        return page

    def get(self, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(byte symbols, writers) at ``offsets``."""
        data = np.empty(offsets.shape, dtype=np.int64)
        writer = np.empty(offsets.shape, dtype=np.int64)
        numbers = offsets // self.PAGE
        for number in np.unique(numbers):
            here = numbers == number
            page = self._page(int(number))
            data[here] = page[0][offsets[here] % self.PAGE]
            writer[here] = page[1][offsets[here] % self.PAGE]
        return data, writer

    def written_between(self, start: int, end: int) -> bool:
        """Whether a store wrote a byte at an offset in ``[start, end)``."""
        for number, page in self._pages.items():
            low, high = number * self.PAGE, (number + 1) * self.PAGE
            if high <= start or low >= end:
                continue
            written = page[1][max(start, low) - low : min(end, high) - low]
            if (written >= 0).any():
                return True
        return False

    def set(self, offsets: np.ndarray, values: np.ndarray, who: np.ndarray, site: int) -> None:
        numbers = offsets // self.PAGE
        for number in np.unique(numbers):
            here = numbers == number
            page = self._page(int(number))
            slots = offsets[here] % self.PAGE
            page[0][slots] = values[here]
            page[1][slots] = who[here]
            page[2][slots] = site


class PrivateMemory:
    """Each thread's private (local) memory: the kernel's ``alloca``s, every thread with its own
    bytes at the same offsets.  An access must lie inside one allocation (else out of bounds);
    a read of a byte the thread did not write is an uninitialised read; no two threads share
    a byte, so there are no races.

    A store made under a path condition on tagged data (a region run under a guard) leaves a
    byte it was the first to write *conditionally* written: ``condition`` holds the node of
    the condition under which it is (-1: the byte is written or not, as ``written`` says).
    Only a reader that knows the condition holds may read it (:meth:`read` with
    ``conditions_checked``); any other read of it is unmodelled."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.data = np.full((threads, 0), UNDEFINED, dtype=np.int64)
        self.written = np.zeros((threads, 0), dtype=bool)
        self.condition = np.full((threads, 0), -1, dtype=np.int64)
        self.owner = np.zeros(0, dtype=np.int64)  # the allocation of each offset (-1: padding)
        self.sites: dict[int, int] = {}  # the alloca (its LLVM IR line) -> its offset
        self.violations: list[Violation] = []
        self.uninitialised: list[Violation] = []

    def allocate(self, site: int, size: int, align: int) -> int:
        """The offset of the allocation of ``size`` bytes made by the alloca at ``site``."""
        if site in self.sites:
            raise Unmodelled("an alloca executed more than once (a dynamic allocation)")
        size = max(size, 1)
        align = max(align, 1)
        start = -(-self.owner.size // align) * align
        owner = np.full(start + size, -1, dtype=np.int64)
        owner[: self.owner.size] = self.owner
        owner[start:] = len(self.sites)
        self.owner = owner
        grow = owner.size - self.data.shape[1]
        pad = np.full((self.threads, grow), UNDEFINED, dtype=np.int64)
        self.data = np.concatenate([self.data, pad], axis=1)
        self.written = np.concatenate([self.written, np.zeros(pad.shape, dtype=bool)], axis=1)
        self.condition = np.concatenate(
            [self.condition, np.full(pad.shape, -1, dtype=np.int64)], axis=1
        )
        self.sites[site] = start
        return start

    def inside(self, offsets: np.ndarray) -> np.ndarray:
        """Whether the bytes of each row of ``offsets`` (n, nbytes) all lie in one allocation.

        >>> private = PrivateMemory(1)
        >>> private.allocate(7, 8, 4)
        0
        >>> private.inside(np.array([[4, 5, 6, 7], [6, 7, 8, 9]])).tolist()
        [True, False]
        """
        inside = (offsets >= 0) & (offsets < self.owner.size)
        owner = np.where(inside, self.owner[np.where(inside, offsets, 0)], -1)
        return np.asarray((owner >= 0).all(axis=1) & (owner == owner[:, :1]).all(axis=1))

    def _in_bounds(self, offsets: np.ndarray, threads: np.ndarray, where: str) -> np.ndarray:
        """Rows (accesses) whose bytes all lie in one allocation; a violation for the first
        other one."""
        ok = self.inside(offsets)
        if not ok.all():
            row = int(np.flatnonzero(~ok)[0])
            self.violations.append(
                Violation(
                    "out of bounds",
                    "private",
                    int(threads[row]),
                    None,
                    int(offsets[row, 0]),
                    where,
                    "outside the thread's allocation (alloca)",
                )
            )
        return ok

    def read(
        self,
        offsets: np.ndarray,
        threads: np.ndarray,
        where: str,
        *,
        conditions_checked: bool = False,
    ) -> np.ndarray:
        """The byte symbols at ``offsets`` (n, nbytes) of each of ``threads`` (n,).  A byte
        written only under a condition is unmodelled unless ``conditions_checked`` (the
        caller showed each such condition holds where the read is made)."""
        ok = self._in_bounds(offsets, threads, where)
        rows = threads[:, None]
        safe = np.where(ok[:, None], offsets, 0)
        values = np.where(ok[:, None], self.data[rows, safe], UNDEFINED)
        conditional = ok[:, None] & (self.condition[rows, safe] >= 0)
        if conditional.any() and not conditions_checked:
            raise Unmodelled(
                f"a read of private bytes a store wrote only under a condition on tagged data "
                f"({where})"
            )
        unwritten = ok[:, None] & ~self.written[rows, safe] & ~conditional
        if unwritten.any():
            row, col = np.argwhere(unwritten)[0]
            self.uninitialised.append(
                Violation(
                    "uninitialised read",
                    "private",
                    int(threads[row]),
                    None,
                    int(offsets[row, col]),
                    where,
                    "the thread did not write this byte of its allocation before it is read",
                )
            )
        return values

    def write(
        self, offsets: np.ndarray, values: np.ndarray, threads: np.ndarray, where: str
    ) -> None:
        """Store ``values`` (n, nbytes) at ``offsets`` of each of ``threads``."""
        ok = self._in_bounds(offsets, threads, where)
        rows = np.broadcast_to(threads[:, None], offsets.shape)[ok]
        self.data[rows, offsets[ok]] = values[ok]
        self.written[rows, offsets[ok]] = True
        self.condition[rows, offsets[ok]] = -1

    def store_under(
        self, offsets: np.ndarray, values: np.ndarray, threads: np.ndarray, conditions: np.ndarray
    ) -> None:
        """Each of ``threads`` (n,), distinct, stores its row of ``values`` (n, nbytes) at its
        row of ``offsets`` (n, nbytes), inside one allocation, under a path condition: each
        byte not written before becomes written under its node of ``conditions`` (n,
        nbytes); a written byte stays written (the caller merged its value).

        >>> private = PrivateMemory(2)
        >>> private.allocate(0, 4, 4)
        0
        >>> private.store_under(np.array([[0, 1]]), np.array([[-8, -1]]), np.array([1]),
        ...                     np.array([[7, 7]]))
        >>> private.data[1, :2].tolist(), private.condition[1, :3].tolist()
        ([-8, -1], [7, 7, -1])
        """
        rows = np.broadcast_to(threads[:, None], offsets.shape)
        self.data[rows, offsets] = values
        unwritten = ~self.written[rows, offsets]
        self.condition[rows[unwritten], offsets[unwritten]] = conditions[unwritten]


class Spans:
    """Byte ranges ``[start, end)`` (of one buffer), asked whether accesses overlap them.

    >>> spans = Spans()
    >>> spans.add(np.array([8, 32]), np.array([16, 40]))
    >>> spans.overlaps(np.array([0, 15, 16, 39]), np.array([8, 16, 32, 41])).tolist()
    [False, True, False, True]
    """

    def __init__(self) -> None:
        self._added: list[tuple[np.ndarray, np.ndarray]] = []
        self._starts = np.zeros(0, dtype=np.int64)
        self._ends = np.zeros(0, dtype=np.int64)

    def add(self, starts: np.ndarray, ends: np.ndarray) -> None:
        """Add the ranges ``[starts[i], ends[i])``."""
        self._added.append((np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)))

    def _merged(self) -> tuple[np.ndarray, np.ndarray]:
        if self._added:
            starts = np.concatenate([self._starts] + [a for a, _ in self._added])
            ends = np.concatenate([self._ends] + [b for _, b in self._added])
            self._added = []
            order = np.argsort(starts, kind="stable")
            starts, ends = starts[order], np.maximum.accumulate(ends[order])
            # a range that starts after every earlier one ends begins a new merged range
            first = np.ones(starts.size, dtype=bool)
            first[1:] = starts[1:] > ends[:-1]
            group = np.cumsum(first) - 1
            self._starts = starts[first]
            self._ends = np.zeros(self._starts.size, dtype=np.int64)
            np.maximum.at(self._ends, group, ends)
        return self._starts, self._ends

    def overlaps(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """Whether each access ``[starts[i], ends[i])`` shares a byte with a range."""
        merged_starts, merged_ends = self._merged()
        if merged_starts.size == 0:
            return np.zeros(np.shape(starts), dtype=bool)
        before = np.searchsorted(merged_starts, ends, side="left") - 1
        safe = np.clip(before, 0, None)
        return (before >= 0) & (merged_ends[safe] > starts)


class GlobalMemory:
    """The kernel's global buffers, each at its own base address.  Bytes an atomic
    read-modify-write may have updated (``atomics``: their spans, by region) hold a value that
    depends on the order of the atomics: a plain load or store of one is unmodelled."""

    def __init__(self) -> None:
        self.regions: list[Region | OpenRegion] = []
        #: the regions holding the module's constant tables (read-only, initialised)
        self.tables: set[int] = set()
        self.atomics: dict[int, Spans] = {}
        self.violations: list[Violation] = []
        self.sites: list[str] = []
        #: where undefined bytes come from (the executor points it at the first uninitialised
        #: shared read); a global store of undefined bytes reports it as a violation
        self.undefined_origin: Callable[[], Violation | None] = lambda: None
        self._reported_origin = False
        self._shadows: list[tuple[np.ndarray, np.ndarray, np.ndarray, str, object]] = []
        #: every thread's address (-1: none) of each execution of a global store, by the
        #: store's source location: the instructions of one ``tt.store``
        self._addresses: dict[object, list[np.ndarray]] = {}
        self._index_size = -1  # len(self.regions) when the interval index was built
        self._index = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
        self._index_lists: tuple[list[int], list[int], list[int]] = ([], [], [])

    def _undefined_stored(
        self, addresses: np.ndarray, values: np.ndarray, threads: np.ndarray, where: str
    ) -> None:
        """A global store of undefined bytes: the uninitialised read they come from (reported
        once), or, into a dumped kernel's buffer, the store itself."""
        origin = self.undefined_origin()
        if origin is not None:
            if not self._reported_origin:
                self._reported_origin = True
                self.violations.append(
                    Violation(
                        origin.kind,
                        origin.space,
                        origin.thread,
                        origin.other_thread,
                        origin.address,
                        origin.where,
                        f"{origin.detail}, and undefined bytes reach the global store at {where}",
                    )
                )
            return
        row, col = np.argwhere(values == UNDEFINED)[0]
        region_of = self._region_indices(addresses[row : row + 1, col : col + 1])
        if region_of[0, 0] >= 0 and isinstance(self.regions[int(region_of[0, 0])], OpenRegion):
            # a harness output's check names the wrong element itself; a dumped kernel's
            # buffer has no such check
            self.violations.append(
                Violation(
                    "undefined data stored",
                    "global",
                    int(threads[row]),
                    None,
                    int(addresses[row, col]),
                    where,
                    "a store of bytes no one defined (poison)",
                )
            )

    def shadow(
        self,
        addresses: np.ndarray,
        values: np.ndarray,
        threads: np.ndarray,
        where: str,
        key: object = None,
    ) -> None:
        """Remember a store that predicated-off ``threads`` would have made (checked at the end
        by :meth:`check_shadows`); ``key``: the store's source location."""
        self._shadows.append((addresses, values, threads, where, key))

    def note_addresses(self, key: object, addresses: np.ndarray) -> None:
        """Every thread's address (-1: none) of one execution of the global store at source
        location ``key``."""
        self._addresses.setdefault(key, []).append(addresses)

    def duplicates(self, key: object, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Whether threads ``first[i]`` and ``second[i]`` hold copies of the same elements in
        the store at ``key``: in every execution of its instructions where both have an
        address, the same address (a layout's free variables replicate a thread's whole
        register-to-element map; a thread the kernel's own bounds mask turned off aims at
        another element in some register, or at none).  False without such an execution."""
        records = self._addresses.get(key)
        if not records:
            return np.zeros(first.shape, dtype=bool)
        table = np.stack(records)
        a, b = table[:, first], table[:, second]
        both = (a >= 0) & (b >= 0)
        return both.any(axis=0) & ((a == b) | ~both).all(axis=0)

    def check_shadows(self) -> None:
        """Every duplicate copy a predicate kept from storing must equal what was stored at
        its address (values whose copies differ make results depend on the thread that reads
        them).  A masked thread is a duplicate copy of the writer only when the two aim at the
        same address in every instruction of the store (:meth:`duplicates`): a thread that
        the kernel's own mask (``xmask & r0_mask``) turned off holds no element, whatever its
        address aliases.  Copies aimed outside every output buffer, at bytes nobody stored, or
        holding undefined bytes are ignored: those threads store nothing."""
        if not self._shadows_may_differ():
            return
        for addresses, values, threads, where, key in self._shadows:
            region_of = self._region_indices(addresses)
            for k in np.unique(region_of[region_of >= 0]):
                region = self.regions[int(k)]
                here = region_of == k
                offsets = addresses[here] - region.base
                if isinstance(region, OpenRegion):
                    stored, writer = region.get(offsets)
                elif region.kind in ("output", "scratch"):
                    stored, writer = region.data[offsets], region.writer[offsets]
                else:
                    continue
                differs = (
                    (writer >= 0)
                    & (values[here] != stored)
                    & (values[here] != UNDEFINED)
                    & (stored != UNDEFINED)
                )
                copier = np.broadcast_to(threads[:, None], addresses.shape)[here]
                if differs.any():
                    copy = np.zeros_like(differs)
                    copy[differs] = self.duplicates(key, copier[differs], writer[differs])
                    differs &= copy
                if differs.any():
                    i = int(np.argmax(differs))
                    thread = int(copier[i])
                    self.violations.append(
                        Violation(
                            "inconsistent copies",
                            "global",
                            thread,
                            int(writer[i]),
                            int(region.base + offsets[i]),
                            where,
                            f"a duplicate copy of an element of {region.name} differs from the "
                            "copy stored (the store's predicate kept it from being written)",
                            _pairs(values[here][differs], stored[differs]),
                        )
                    )
                    return

    def _shadows_may_differ(self) -> bool:
        """Whether :meth:`check_shadows` must look at its shadow stores one by one: some byte
        of one differs from the defined byte stored at its address in an output, or there
        is a buffer of unknown size (whose bytes are tagged as first read: they are read in
        the order the one-by-one check reads them).  False when all of them, looked at
        together, match what was stored."""
        shadows = [(s[0].reshape(-1), s[1].reshape(-1)) for s in self._shadows if s[0].size]
        if not shadows:
            return False
        if any(isinstance(region, OpenRegion) for region in self.regions):
            return True
        sizes = np.array([flat.size for flat, _ in shadows])
        addresses = np.concatenate([flat for flat, _ in shadows])
        starts = np.cumsum(sizes) - sizes
        spans = self._regions_spanning(
            np.minimum.reduceat(addresses, starts), np.maximum.reduceat(addresses, starts)
        )
        pieces: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}  # by region
        mixed = []
        for (flat, values), k in zip(shadows, spans.tolist()):
            if k == -2:
                mixed.append((flat, values))
            else:
                pieces.setdefault(k, []).append((flat, values))
        if mixed:  # each address by itself
            flat, values = (np.concatenate(parts) for parts in zip(*mixed))
            region_of = self._region_indices(flat)
            for k in np.unique(region_of[region_of >= 0]).tolist():
                here = region_of == k
                pieces.setdefault(k, []).append((flat[here], values[here]))
        for k, parts in pieces.items():
            region = self.regions[k]
            if isinstance(region, OpenRegion) or region.kind not in ("output", "scratch"):
                continue  # (there is none of unknown size)
            flat, values = (np.concatenate(column) for column in zip(*parts))
            offsets = flat - region.base
            stored = region.data[offsets]
            if (
                (region.writer[offsets] >= 0)
                & (values != stored)
                & (values != UNDEFINED)
                & (stored != UNDEFINED)
            ).any():
                return True
        return False

    def _regions_spanning(self, lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
        """:meth:`_one_region` of many accesses at once, each given by its lowest and
        highest address: the region, or -2 where the per-address search decides.

        >>> memory = GlobalMemory()
        >>> _ = memory.add("a", 64, np.zeros(16, dtype=np.int64), "output")
        >>> _ = memory.add("b", 80, np.zeros(16, dtype=np.int64), "output")
        >>> memory._regions_spanning(np.array([64, 70, 90, 0]), np.array([79, 85, 95, 3]))
        array([ 0, -2,  1, -2])
        """
        bases, order, ends = self._interval_index()
        if not order.size:
            return np.full(lows.shape, -2, dtype=np.int64)
        slot = np.searchsorted(bases, lows, side="right") - 1
        safe = np.clip(slot, 0, None)
        following = np.append(bases[1:], np.iinfo(np.int64).max)  # the next region's base
        alone = (slot >= 0) & (highs < ends[safe]) & (following[safe] > highs)
        return np.where(alone, order[safe], -2)

    def add(self, name: str, base: int, data: np.ndarray, kind: str) -> Region:
        """A buffer of ``kind`` at ``base`` holding the byte symbols ``data``, which it owns
        from now on (an int64 array is kept, not copied: a scratch buffer is megabytes)."""
        region = Region(
            name,
            base,
            data.size,
            kind,
            data.astype(np.int64, copy=False),
            np.full(data.size, -1, dtype=np.int64),
            np.full(data.size, -1, dtype=np.int64),
        )
        self.regions.append(region)
        return region

    def add_open(
        self, name: str, base: int, size: int, fresh: Callable[[np.ndarray], np.ndarray]
    ) -> OpenRegion:
        """A buffer of unknown contents and size (at most ``size`` bytes), tagged lazily."""
        region = OpenRegion(name, base, size, fresh)
        self.regions.append(region)
        return region

    def _after_atomics(self, region_of: np.ndarray, addresses: np.ndarray, what: str) -> None:
        """Raise :class:`Unmodelled` when a plain access touches a byte an atomic updated."""
        for k, spans in self.atomics.items():
            here = region_of == k
            if here.any() and spans.overlaps(addresses[here], addresses[here] + 1).any():
                raise Unmodelled(
                    f"a {what} of bytes of {self.regions[k].name} that an atomic updated "
                    "(their value depends on the order of the atomics)"
                )

    def region_spanning(self, start: int, end: int) -> int | None:
        """The index of the region holding every byte of ``[start, end)``, None if none does."""
        if end <= start or start < 0 or end > 1 << 62:  # no buffer lies that high
            return None
        found = self._region_indices(np.array([start, end - 1], dtype=np.int64))
        first, last = int(found[0]), int(found[1])
        return first if first >= 0 and first == last else None

    def describe_span(self, start: int, end: int) -> str:
        """``[start, end)`` relative to the region holding ``start`` (or in absolute bytes)."""
        k = int(self._region_indices(np.array([min(start, 1 << 62)], dtype=np.int64))[0])
        if k < 0:
            return f"bytes [{start:#x}, {end:#x}) (outside every buffer at the start)"
        region = self.regions[k]
        size = "of unknown size" if isinstance(region, OpenRegion) else f"of {region.size} bytes"
        return (
            f"bytes [{start - region.base:#x}, {end - region.base:#x}) of {region.name} "
            f"(a buffer {size})"
        )

    def _written(self, k: int, start: int, end: int) -> bool:
        """Whether a store wrote a byte of ``[start, end)`` of region ``k``."""
        region = self.regions[k]
        if isinstance(region, OpenRegion):
            return region.written_between(start - region.base, end - region.base)
        return bool((region.writer[start - region.base : end - region.base] >= 0).any())

    def check_gather(self, k: int, start: int, end: int) -> None:
        """A load from somewhere in ``[start, end)`` of region ``k`` (an address that depends on
        tagged data) reads the buffer's input values: raise :class:`Unmodelled` unless the
        region is an input (tagged, concrete, or a dumped kernel's) whose bytes there neither a
        store nor an atomic wrote."""
        region = self.regions[k]
        if region.kind not in ("input", "values", "open"):
            raise Unmodelled(
                f"a load at an address that depends on tagged data from {region.name}, an "
                f"{region.kind} buffer (what it holds there is not known)"
            )
        span = self.describe_span(start, end)
        if self._written(k, start, end):
            raise Unmodelled(f"a data-dependent load from {span}, where the kernel stored")
        spans = self.atomics.get(k)
        if spans is not None and spans.overlaps(np.array([start]), np.array([end]))[0]:
            raise Unmodelled(f"a data-dependent load from {span}, where an atomic updated")

    def atomic_span(self, k: int, start: int, end: int) -> None:
        """An atomic read-modify-write somewhere in ``[start, end)`` of region ``k``: the region
        must be one the kernel may write (an input is unmodelled here) with no byte there a
        plain store wrote; the span is recorded."""
        region = self.regions[k]
        if region.kind in ("input", "values"):
            raise Unmodelled(
                f"an atomic at an address that depends on tagged data into the input {region.name}"
            )
        if self._written(k, start, end):
            raise Unmodelled(
                f"an atomic on {self.describe_span(start, end)}, where a plain store wrote"
            )
        self.atomics.setdefault(k, Spans()).add(np.array([start]), np.array([end]))

    def atomic(self, addresses: np.ndarray, threads: np.ndarray, where: str) -> None:
        """Atomic read-modify-writes of the bytes ``addresses`` (n, nbytes) by ``threads``: out
        of bounds outside every buffer, or into an input; unmodelled on a byte a plain store
        wrote; the spans are recorded."""
        region_of, ok = self._locate(addresses, threads, where)
        for k in np.unique(region_of[region_of >= 0]):
            region = self.regions[int(k)]
            rows = (region_of == k).all(axis=1)
            if region.kind in ("input", "values"):
                row = int(np.flatnonzero(region_of == k)[0] // addresses.shape[1])
                self.violations.append(
                    Violation(
                        "out of bounds",
                        "global",
                        int(threads[row]),
                        None,
                        int(addresses[row, 0]),
                        where,
                        f"an atomic update of the input buffer {region.name}",
                    )
                )
                continue
            starts, ends = addresses[rows, 0], addresses[rows, -1] + 1
            for start, end in zip(starts.tolist(), ends.tolist()):
                if self._written(int(k), start, end):
                    raise Unmodelled(
                        f"an atomic on {self.describe_span(start, end)}, where a plain store wrote"
                    )
            self.atomics.setdefault(int(k), Spans()).add(starts, ends)

    def _interval_index(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The regions' interval index: their bases sorted, the region of each, its end; built
        again only when regions were added since (a kernel has up to thousands of buffers
        and makes as many accesses).  The same as lists in ``_index_lists``."""
        if self._index_size != len(self.regions):
            bases = np.array([r.base for r in self.regions], dtype=np.int64)
            ends = np.array([r.base + r.size for r in self.regions], dtype=np.int64)
            order = np.argsort(bases, kind="stable")
            self._index = (bases[order], order, ends[order])
            self._index_lists = (bases[order].tolist(), order.tolist(), ends[order].tolist())
            self._index_size = len(self.regions)
        return self._index

    def _one_region(self, addresses: np.ndarray) -> int | None:
        """The region every one of ``addresses`` (non-empty) lies in, when one region holds
        them all and no other region begins among them (what :meth:`_region_indices` would
        give each of them, found from the lowest and highest alone); None otherwise.

        >>> memory = GlobalMemory()
        >>> _ = memory.add("a", 64, np.zeros(16, dtype=np.int64), "output")
        >>> memory._one_region(np.array([[70, 71], [64, 79]])), memory._one_region(np.array([80]))
        (0, None)
        """
        self._interval_index()
        bases, order, ends = self._index_lists
        low, high = int(addresses.min()), int(addresses.max())
        slot = bisect_right(bases, low) - 1
        if slot < 0 or high >= ends[slot]:
            return None
        if slot + 1 < len(bases) and bases[slot + 1] <= high:
            return None  # another region begins among them: the per-address search decides
        return order[slot]

    def _region_indices(self, addresses: np.ndarray) -> np.ndarray:
        """The index of the region holding each address, -1 for none (binary search)."""
        bases, order, ends = self._interval_index()
        if order.size:
            slot = np.searchsorted(bases, addresses, side="right") - 1
            clipped = np.clip(slot, 0, None)
            inside = (slot >= 0) & (addresses < ends[clipped])
            return np.where(inside, order[clipped], -1)
        return np.full(addresses.shape, -1, dtype=np.int64)

    def _locate(
        self, addresses: np.ndarray, threads: np.ndarray, where: str
    ) -> tuple[np.ndarray, np.ndarray]:
        region_of = self._region_indices(addresses)
        missing = region_of < 0
        if missing.any():
            row, col = np.argwhere(missing)[0]
            self.violations.append(
                Violation(
                    "out of bounds",
                    "global",
                    int(threads[row]),
                    None,
                    int(addresses[row, col]),
                    where,
                    "the address is in no buffer of the kernel",
                )
            )
        return region_of, ~missing

    def read(self, addresses: np.ndarray, threads: np.ndarray, where: str) -> np.ndarray:
        one = self._one_region(addresses) if addresses.size else None
        if one is not None and one not in self.atomics:  # the common case, at array speed
            region = self.regions[one]
            if isinstance(region, OpenRegion):
                return region.get(addresses - region.base)[0]
            return region.data[addresses - region.base]
        region_of, ok = self._locate(addresses, threads, where)
        self._after_atomics(region_of, addresses, "load")
        out = np.full(addresses.shape, UNDEFINED, dtype=np.int64)
        for k in np.unique(region_of[region_of >= 0]):
            region = self.regions[int(k)]
            here = region_of == k
            if isinstance(region, OpenRegion):
                out[here] = region.get(addresses[here] - region.base)[0]
            else:
                out[here] = region.data[addresses[here] - region.base]
        return out

    def write(
        self, addresses: np.ndarray, values: np.ndarray, threads: np.ndarray, where: str
    ) -> None:
        """Store byte symbols ``values`` (shape (n, nbytes)) at ``addresses`` by ``threads``:
        a store into an input is out of bounds; two threads storing different values to one
        byte (in this store or against an earlier one) conflict."""
        one = self._one_region(addresses) if addresses.size else None
        if one is not None and one not in self.atomics:  # the common case, at array speed
            if (values == UNDEFINED).any():
                self._undefined_stored(addresses, values, threads, where)
            if not self.sites or self.sites[-1] != where:
                self.sites.append(where)
            self._write_one(one, addresses, values, threads, where)
            return
        region_of, ok = self._locate(addresses, threads, where)
        self._after_atomics(region_of, addresses, "store")
        thread_of = np.broadcast_to(threads[:, None], addresses.shape)
        if (values == UNDEFINED).any():
            self._undefined_stored(addresses, values, threads, where)
        if not self.sites or self.sites[-1] != where:
            self.sites.append(where)
        for k in np.unique(region_of[region_of >= 0]):
            region = self.regions[int(k)]
            here = region_of == k
            if region.kind in ("input", "values"):
                row, col = np.argwhere(here)[0]
                self.violations.append(
                    Violation(
                        "out of bounds",
                        "global",
                        int(threads[row]),
                        None,
                        int(addresses[row, col]),
                        where,
                        f"a store into the input buffer {region.name}",
                    )
                )
                continue
            offsets = addresses[here] - region.base
            self._store(region, offsets, values[here], thread_of[here], where)

    def _write_one(
        self, k: int, addresses: np.ndarray, values: np.ndarray, threads: np.ndarray, where: str
    ) -> None:
        """:meth:`write` of bytes that all lie in region ``k`` (no atomic updated it)."""
        region = self.regions[k]
        if region.kind in ("input", "values"):
            self.violations.append(
                Violation(
                    "out of bounds",
                    "global",
                    int(threads[0]),
                    None,
                    int(addresses[0, 0]),
                    where,
                    f"a store into the input buffer {region.name}",
                )
            )
            return
        who = threads.repeat(addresses.shape[1])
        self._store(region, (addresses - region.base).reshape(-1), values.reshape(-1), who, where)

    def _store(
        self,
        region: Region | OpenRegion,
        offsets: np.ndarray,
        values: np.ndarray,
        who: np.ndarray,
        where: str,
    ) -> None:
        """Store ``values`` at ``offsets`` of an output ``region`` by threads ``who``."""
        if isinstance(region, OpenRegion):
            current, previous = region.get(offsets)
        else:
            current, previous = region.data[offsets], region.writer[offsets]
        if not self._stored_once(region, offsets, values, who, current, previous):
            self._conflicts(region, offsets, values, who, current, previous, where)
        if isinstance(region, OpenRegion):
            region.set(offsets, values, who, len(self.sites) - 1)
            return
        region.data[offsets] = values
        region.writer[offsets] = who
        region.site[offsets] = len(self.sites) - 1

    @staticmethod
    def _stored_once(
        region: Region | OpenRegion,
        offsets: np.ndarray,
        values: np.ndarray,
        who: np.ndarray,
        current: np.ndarray,
        previous: np.ndarray,
    ) -> bool:
        """Whether a store has nothing :meth:`_conflicts` reports, found without its sort:
        each byte stored by one thread, over no other thread's different value (False: the
        full check decides).  Into a :class:`Region`, the writers ``who`` are recorded to
        find out (as the store records them), and put back where two threads write one
        byte; into an :class:`OpenRegion` the offsets are sorted."""
        if _overwrites(current, previous, values, who):
            return False
        if isinstance(region, OpenRegion):
            ordered = np.sort(offsets)
            return bool((ordered[1:] != ordered[:-1]).all())
        region.writer[offsets] = who
        if (region.writer[offsets] == who).all():
            return True  # (a byte a thread writes twice: it is written by that one thread)
        region.writer[offsets] = previous  # as it was: the same value at a repeated offset
        return False

    def _conflicts(
        self,
        region: Region | OpenRegion,
        offsets: np.ndarray,
        values: np.ndarray,
        who: np.ndarray,
        current: np.ndarray,
        previous: np.ndarray,
        where: str,
    ) -> None:
        """A conflicting store: two threads of this store writing different values to one
        byte, or one overwriting another thread's different value (``current`` bytes, written
        by ``previous`` threads)."""
        order = np.lexsort((values, offsets))
        o, v, t = offsets[order], values[order], who[order]
        clash = (o[1:] == o[:-1]) & (v[1:] != v[:-1]) & (t[1:] != t[:-1])
        earlier = (previous >= 0) & (previous != who) & (current != values)
        if clash.any():
            i = int(np.argmax(clash))
            first, other, offset = int(t[i + 1]), int(t[i]), int(o[i])
            pairs = _pairs(
                np.concatenate([v[:-1][clash], current[earlier]]),
                np.concatenate([v[1:][clash], values[earlier]]),
            )
        elif earlier.any():
            i = int(np.argmax(earlier))
            first, other, offset = int(who[i]), int(previous[i]), int(offsets[i])
            pairs = _pairs(current[earlier], values[earlier])
        else:
            return
        self.violations.append(
            Violation(
                "conflicting store",
                "global",
                first,
                other,
                int(region.base + offset),
                where,
                f"two threads store different values to {region.name}",
                pairs,
            )
        )


def _overwrites(
    current: np.ndarray, previous: np.ndarray, values: np.ndarray, who: np.ndarray
) -> bool:
    """Whether a store of ``values`` by threads ``who`` overwrites a byte another thread
    (``previous``, -1 none) stored with a different value (``current``).

    >>> _overwrites(np.array([-2, -3]), np.array([-1, 4]), np.array([-5, -3]), np.array([4, 5]))
    False
    >>> _overwrites(np.array([-2, -3]), np.array([-1, 4]), np.array([-5, -4]), np.array([4, 5]))
    True
    """
    written = previous >= 0
    if not written.any():
        return False
    return bool((written & (previous != who) & (current != values)).any())


def _pairs(first: np.ndarray, second: np.ndarray) -> tuple[tuple[int, int], ...]:
    """The distinct pairs of byte symbols ``(first[i], second[i])``."""
    stacked = np.stack([first.reshape(-1), second.reshape(-1)], axis=1)
    return tuple((int(a), int(b)) for a, b in np.unique(stacked, axis=0))
