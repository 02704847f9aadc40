"""The memory path's shortcuts (issue 26) find exactly what the full checks find: shared
reads and writes of the common case, global stores without the sort, shadow stores looked at
together, byte grids made by repeating; and the violations they must not hide (races,
nondeterministic stores, out-of-bounds and uninitialised accesses, cp.async in flight,
conflicting stores, inconsistent copies) are still reported, with the same thread, address
and message."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.emitted.sim.access import _byte_grid
from llverify.emitted.sim.memory import GlobalMemory, SharedMemory, Violation
from llverify.emitted.sim.symbolic import UNDEFINED

_SIZE, _THREADS, _WARP = 24, 8, 2  # 4 warps of 2 threads


class _FullShared(SharedMemory):
    """Shared memory without the shortcuts: every access through the full checks."""

    def _read_fast(
        self, addresses: np.ndarray, threads: np.ndarray, atomic: bool
    ) -> np.ndarray | None:
        return None

    def _write_fast(
        self,
        addresses: np.ndarray,
        values: np.ndarray,
        threads: np.ndarray,
        where: str,
        atomic: bool,
    ) -> bool:
        return False


class _FullGlobal(GlobalMemory):
    """Global memory without the shortcuts: stores sorted, shadows looked at one by one."""

    @staticmethod
    def _stored_once(*_: object) -> bool:
        return False

    def _shadows_may_differ(self) -> bool:
        return True


def _shared_state(shared: SharedMemory) -> list[object]:
    arrays = [getattr(shared, name).tolist() for name, _, _ in SharedMemory._FRESH]
    return [
        arrays,
        shared.held,
        shared.violations,
        shared.uninitialised,
        shared.accessed_bytes,
    ]


_ROW = st.tuples(
    st.integers(0, _THREADS - 1),  # thread
    st.integers(-2, _SIZE + 1),  # first byte (some out of bounds)
    st.lists(st.sampled_from([-1, -2, -3, 5, UNDEFINED]), min_size=4, max_size=4),
)
_ACCESS = st.tuples(
    st.sampled_from(["read", "write"]),
    st.integers(1, 4),  # bytes per thread
    st.lists(_ROW, min_size=1, max_size=6, unique_by=lambda row: row[0]),
    st.booleans(),  # atomic
)
_OP = st.one_of(
    _ACCESS,
    st.just(("barrier",)),
    st.tuples(st.just("copy"), st.integers(0, _SIZE - 1)),  # a cp.async in flight to a byte
    st.just(("land",)),  # every copy landed
    st.tuples(st.just("fill"), st.integers(0, _THREADS - 1)),  # every byte written, a barrier
)


def _apply(shared: SharedMemory, op: tuple, step: int, log: list) -> None:
    if op[0] == "barrier":
        shared.barrier()
    elif op[0] == "copy":
        shared.hold(np.array([op[1]]))
        shared.copies_in_flight[op[1]] += 1
        shared.bytes_in_flight += 1
    elif op[0] == "land":
        shared.copies_in_flight[:] = 0
        shared.bytes_in_flight = 0
    elif op[0] == "fill":
        every = np.arange(_SIZE, dtype=np.int64)[None, :]
        shared.write(every, -1 - every % 3, np.array([op[1]]), f"fill{step}")
        shared.barrier()
    else:
        kind, nbytes, rows, atomic = op
        threads = np.array([row[0] for row in rows], dtype=np.int64)
        grid = np.array([row[1] for row in rows], dtype=np.int64)[:, None] + np.arange(nbytes)
        values = np.array([row[2][:nbytes] for row in rows], dtype=np.int64)
        if kind == "read":
            log.append(shared.read(grid, threads, f"ld{step}", atomic=atomic).tolist())
        else:
            shared.write(grid, values, threads, f"st{step}", atomic=atomic)


def _watching(shared: SharedMemory, log: list) -> SharedMemory:
    """``shared`` with a watch that logs every write it sees and reports a write of byte 3."""

    def watch(addresses: np.ndarray, threads: np.ndarray, where: str) -> list[Violation]:
        log.append((addresses.tolist(), threads.tolist(), where))
        hit = np.flatnonzero(addresses == 3)
        if not hit.size:
            return []
        i = int(hit[0])
        return [Violation("race", "shared", int(threads[i]), None, 3, where, "watched")]

    shared.watch = watch
    return shared


@settings(max_examples=300, deadline=None)
@given(st.lists(_OP, max_size=16))
def test_shared_shortcuts_match_the_full_checks(ops: list[tuple]) -> None:
    """Random reads, writes (atomic or not, of several warps, some out of bounds, some of
    one byte by several threads), barriers and cp.async copies in flight: the same values
    read, the same per-byte state, the same violations in the same order."""
    fast_log: list = []
    full_log: list = []
    fast = _watching(SharedMemory(_SIZE, threads=_THREADS, warp_size=_WARP), fast_log)
    full = _watching(_FullShared(_SIZE, threads=_THREADS, warp_size=_WARP), full_log)
    for step, op in enumerate(ops):
        _apply(fast, op, step, fast_log)
        _apply(full, op, step, full_log)
        assert fast_log == full_log
        assert _shared_state(fast) == _shared_state(full)


def _write(shared: SharedMemory, rows: list[tuple[int, int, int]], where: str) -> None:
    """Threads ``t`` each store the byte value ``v`` at ``a``: rows ``(t, a, v)``."""
    shared.write(
        np.array([[a] for _, a, _ in rows]),
        np.array([[v] for _, _, v in rows]),
        np.array([t for t, _, _ in rows]),
        where,
    )


def _read(shared: SharedMemory, rows: list[tuple[int, int]], where: str) -> list[list[int]]:
    return shared.read(
        np.array([[a] for _, a in rows]), np.array([t for t, _ in rows]), where
    ).tolist()


def _seen(shared: SharedMemory) -> list[tuple]:
    return [(v.kind, v.thread, v.other_thread, v.address, v.where) for v in shared.violations]


@pytest.mark.parametrize("kind", [SharedMemory, _FullShared])
def test_shared_violations_are_still_found(kind: type[SharedMemory]) -> None:
    """Negative controls, each next to a clean access the shortcut takes: a read of another
    warp's write, a write of a byte another warp read, two warps writing different values,
    one instruction's threads writing different values, an out-of-bounds write and an
    uninitialised read, an access of a byte a cp.async in flight writes."""
    shared = kind(16, threads=8, warp_size=2)
    _write(shared, [(0, 0, -1), (2, 1, -2)], "st clean")  # warps 0 and 1, distinct bytes
    assert _seen(shared) == []
    assert _read(shared, [(1, 0), (3, 1)], "ld own warp") == [[-1], [-2]]
    assert _read(shared, [(2, 0)], "ld race") == [[-1]]  # warp 1 reads warp 0's byte
    _write(shared, [(4, 1, -5)], "st race read")  # warp 2: a byte warp 1 read and wrote
    _write(shared, [(6, 0, -1)], "st same value")  # warp 3: the value written, but read
    _write(shared, [(6, 2, -7)], "st other value")  # clean: byte 2 untouched
    _write(shared, [(0, 2, -8)], "st race write")  # warp 0 overwrites warp 3's value
    shared.barrier()
    _write(shared, [(0, 5, -1), (2, 5, -2)], "st nondeterministic")
    _write(shared, [(0, 6, -1), (2, 6, -1)], "st same byte same value")  # no violation
    _write(shared, [(1, 7, -1), (3, 16, -1)], "st out of bounds")
    assert _read(shared, [(1, 9)], "ld uninitialised") == [[UNDEFINED]]
    shared.hold(np.array([10]))
    shared.copies_in_flight[10] += 1
    shared.bytes_in_flight += 1
    _write(shared, [(1, 10, -1)], "st in flight")
    assert _seen(shared) == [
        ("race", 2, 0, 0, "ld race"),
        ("race", 4, 3, 1, "st race read"),
        ("race", 4, 2, 1, "st race read"),
        ("race", 6, 2, 0, "st same value"),
        ("race", 0, 6, 2, "st race write"),
        ("nondeterministic store", 0, 2, 5, "st nondeterministic"),
        ("out of bounds", 3, None, 16, "st out of bounds"),
        ("race", 1, None, 10, "st in flight"),
    ]
    assert [v.values for v in shared.violations if v.values] == [
        ((-2, -5),),
        ((-7, -8),),
        ((-2, -1),),
    ]
    assert [(v.kind, v.thread, v.address) for v in shared.uninitialised] == [
        ("uninitialised read", 1, 9)
    ]


def test_shared_reads_of_one_byte_by_many_warps_are_all_recorded() -> None:
    """Bytes several warps read in one instruction (ldmatrix of a shared tile): every
    reader's warp is kept, so a later write by any other warp races."""
    for kind in (SharedMemory, _FullShared):
        shared = kind(8, threads=8, warp_size=2)
        _write(shared, [(0, 0, -1)], "st")
        shared.barrier()
        assert _read(shared, [(0, 0), (2, 0), (4, 0)], "ld") == [[-1]] * 3
        assert int(shared.reader_warps[0]) == 0b111
        _write(shared, [(4, 0, -1)], "st again")
        assert _seen(shared) == [("race", 4, 4, 0, "st again")]


def _globals(seed: int) -> tuple[GlobalMemory, GlobalMemory]:
    rng = np.random.default_rng(seed)
    memories = (GlobalMemory(), _FullGlobal())
    base = 64
    for k in range(int(rng.integers(1, 4))):
        size = int(rng.integers(4, 24))
        kind = str(rng.choice(["input", "output", "output", "scratch"]))
        data = (
            np.full(size, UNDEFINED, np.int64)
            if kind in ("output", "scratch")
            else -1 - rng.integers(0, 256, size)
        )
        for memory in memories:
            memory.add(f"b{k}", base, data.copy(), kind)
        base += size + int(rng.integers(0, 3))
    return memories


def _global_state(memory: GlobalMemory) -> list[object]:
    regions = [(r.data.tolist(), r.writer.tolist(), r.site.tolist()) for r in memory.regions]
    return [regions, memory.violations, memory.sites]


@pytest.mark.parametrize("seed", range(80))
def test_global_shortcuts_match_the_full_checks(seed: int) -> None:
    """Random stores (threads storing one byte with equal or different values, over their
    own or another thread's bytes) and shadow stores, then the check of the shadows: the
    same bytes, writers and sites stored, the same violations in the same order."""
    fast, full = _globals(seed)
    rng = np.random.default_rng(2000 + seed)
    top = max(r.base + r.size for r in fast.regions) + 2
    key = "store"
    for step in range(10):
        rows, cols = int(rng.integers(1, 6)), int(rng.integers(1, 4))
        grid = rng.integers(62, top, rows)[:, None] + np.arange(cols)[None, :]
        threads = rng.permutation(8)[:rows]
        values = -1 - rng.integers(0, 3, (rows, cols))
        store = rng.random() < 0.6
        noted = np.where(rng.random(8) < 0.9, grid[0, 0], -1)
        for memory in (fast, full):
            if store:
                memory.note_addresses(key, noted)
                memory.write(grid, values, threads, f"st{step}")
            else:
                memory.shadow(grid, values, threads, f"shadow{step}", key)
        assert _global_state(fast) == _global_state(full)
    fast.check_shadows()
    full.check_shadows()
    assert _global_state(fast) == _global_state(full)


def test_global_violations_are_still_found() -> None:
    """Negative controls: two threads of one store writing different values to one byte,
    a store over another thread's different value, a store into an input, and a duplicate
    copy (a predicated-off thread aiming at the same element) that differs from the stored
    one."""
    for kind in (GlobalMemory, _FullGlobal):
        memory = kind()
        memory.add("x", 100, np.full(8, -1), "input")
        memory.add("y", 200, np.full(16, UNDEFINED), "output")
        memory.write(np.array([[200, 201], [202, 203]]), np.full((2, 2), -2), np.array([0, 1]), "a")
        memory.write(np.array([[204], [204]]), np.array([[-2], [-3]]), np.array([2, 3]), "b")
        memory.write(np.array([[206], [206]]), np.array([[-4], [-4]]), np.array([5, 6]), "same")
        assert int(memory.regions[1].writer[6]) == 6  # the last of the two, as a plain store
        memory.write(np.array([[200]]), np.array([[-5]]), np.array([4]), "c")
        memory.write(np.array([[101, 102]]), np.array([[-2, -2]]), np.array([7]), "d")
        memory.note_addresses("k", np.array([208, 208, -1, -1, -1, -1, -1, -1]))
        memory.write(np.array([[208]]), np.array([[-9]]), np.array([0]), "e")
        memory.shadow(np.array([[208]]), np.array([[-8]]), np.array([1]), "e", "k")
        memory.check_shadows()
        assert [
            (v.kind, v.thread, v.other_thread, v.address, v.where) for v in memory.violations
        ] == [
            ("conflicting store", 2, 3, 204, "b"),
            ("conflicting store", 4, 0, 200, "c"),
            ("out of bounds", 7, None, 101, "d"),
            ("inconsistent copies", 1, 0, 208, "e"),
        ]


def test_shadows_in_a_buffer_of_unknown_size_are_read_in_order() -> None:
    """Shadow stores into a dumped kernel's buffer (tagged as first read) are looked at one
    by one, as before: their bytes are tagged in the same order."""
    tagged: list[list[int]] = []

    def fresh(offsets: np.ndarray) -> np.ndarray:
        tagged.append([int(offsets[0]), int(offsets.size)])
        return np.arange(offsets.size, dtype=np.int64)

    memory = GlobalMemory()
    memory.add_open("arg0", 1 << 20, 1 << 16, fresh)
    memory.shadow(np.array([[(1 << 20) + 8192]]), np.array([[-1]]), np.array([0]), "s", "k")
    memory.shadow(np.array([[1 << 20]]), np.array([[-1]]), np.array([0]), "s", "k")
    memory.check_shadows()
    assert tagged == [[8192, 4096], [0, 4096]]
    assert memory.violations == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=40), st.integers(1, 17))
def test_byte_grid_is_the_broadcast(base: list[int], nbytes: int) -> None:
    starts = np.array(base, dtype=np.int64)
    expected = starts[:, None] + np.arange(nbytes, dtype=np.int64)[None, :]
    made = _byte_grid(starts, nbytes)
    assert made.dtype == np.int64 and made.tolist() == expected.tolist()
    made[0, 0] += 1  # a fresh array each time: the tiles it is made from stay as they were
    assert _byte_grid(starts, nbytes).tolist() == expected.tolist()
    unsigned = starts.astype(np.uint64) & np.uint64(0xFFFF)
    assert (
        _byte_grid(unsigned, nbytes).tolist()
        == (unsigned.astype(np.int64)[:, None] + np.arange(nbytes)).tolist()
    )
