"""The executor's shortcuts (issue 26) give exactly what the general paths give: global
accesses inside one buffer, inline-assembly strings read once, concrete values made without
broadcasting, and comment stripping by one pattern."""

from __future__ import annotations

import random

import numpy as np
import pytest

from llverify.emitted.sim import ptx
from llverify.emitted.sim.llvm_ir import _strip_comment
from llverify.emitted.sim.memory import GlobalMemory
from llverify.emitted.sim.symbolic import UNDEFINED, Val


class _General(GlobalMemory):
    """Global memory without the one-buffer shortcut: every access located byte by byte."""

    def _one_region(self, addresses: np.ndarray) -> int | None:
        return None


def _memories(seed: int) -> tuple[GlobalMemory, GlobalMemory]:
    rng = np.random.default_rng(seed)
    memories = (GlobalMemory(), _General())
    base = 64
    for k in range(int(rng.integers(1, 5))):
        size = int(rng.integers(4, 40))
        kind = str(rng.choice(["input", "values", "output", "scratch"]))
        data = (
            np.full(size, UNDEFINED, np.int64)
            if kind in ("output", "scratch")
            else -1 - rng.integers(0, 256, size)
        )
        for memory in memories:
            memory.add(f"b{k}", base, data.copy(), kind)
        base += size + int(rng.integers(0, 3))  # adjacent buffers, or a gap between
    return memories


def _state(memory: GlobalMemory) -> list[object]:
    regions = [(r.data.tolist(), r.writer.tolist(), r.site.tolist()) for r in memory.regions]
    return [regions, memory.violations, memory.sites]


@pytest.mark.parametrize("seed", range(60))
def test_one_buffer_accesses_match_the_general_path(seed: int) -> None:
    """Random loads and stores, mostly inside one buffer, some across two or outside all:
    the same bytes read, the same bytes, writers and sites stored, the same violations."""
    fast, general = _memories(seed)
    rng = np.random.default_rng(1000 + seed)
    top = max(r.base + r.size for r in fast.regions) + 4
    for step in range(12):
        rows, cols = int(rng.integers(1, 6)), int(rng.integers(1, 5))
        start = rng.integers(60, top, rows)
        grid = start[:, None] + np.arange(cols)[None, :]
        threads = rng.permutation(8)[:rows]
        if rng.random() < 0.5:
            got = fast.read(grid, threads, f"ld{step}")
            assert got.tolist() == general.read(grid, threads, f"ld{step}").tolist()
        else:
            values = -1 - rng.integers(0, 3, (rows, cols))
            if rng.random() < 0.1:
                values[0, 0] = UNDEFINED
            fast.write(grid, values, threads, f"st{step}")
            general.write(grid, values, threads, f"st{step}")
        assert _state(fast) == _state(general)


def test_one_buffer_stores_still_report_violations() -> None:
    """Negative controls on the shortcut: two threads storing different values to one byte,
    a store overwriting another thread's value, and a store into an input are reported."""
    for memory in (GlobalMemory(), _General()):
        memory.add("x", 100, np.full(8, -1), "input")
        memory.add("y", 200, np.full(8, UNDEFINED), "output")
        memory.write(np.array([[200], [200]]), np.array([[-2], [-3]]), np.array([0, 1]), "st0")
        memory.write(np.array([[204]]), np.array([[-2]]), np.array([3]), "st1")
        memory.write(np.array([[204]]), np.array([[-4]]), np.array([5]), "st2")
        memory.write(np.array([[101, 102]]), np.array([[-2, -2]]), np.array([7]), "st3")
        assert [(v.kind, v.thread, v.other_thread, v.address) for v in memory.violations] == [
            ("conflicting store", 0, 1, 200),
            ("conflicting store", 5, 3, 204),
            ("out of bounds", 7, None, 101),
        ]


def test_one_region_needs_every_address_inside() -> None:
    memory = GlobalMemory()
    memory.add("a", 0, np.full(8, -1), "input")
    memory.add("b", 8, np.full(8, -1), "input")
    assert memory._one_region(np.array([0, 7])) == 0
    assert memory._one_region(np.array([9, 15])) == 1
    assert memory._one_region(np.array([7, 8])) is None  # across two buffers
    assert memory._one_region(np.array([15, 16])) is None  # past the last one


def test_asm_statements_read_once_are_the_parse() -> None:
    text = "{ .reg .pred p; setp.ne.b32 p, $1, 0; @p st.global.b32 [ $0 + 4 ], { $2 }; }"
    assert list(ptx._statements(text)) == ptx.parse_statements(text)
    assert ptx._statements(text) is ptx._statements(text)
    assert ptx._bindings("=r,=h,l,b,~{memory}") == ((32, 16), ("l", "b"))


@pytest.mark.parametrize("value", [0, 1, 255, 256, 2**31, 2**63, 2**64 - 1])
@pytest.mark.parametrize("bits", [1, 8, 16, 32, 64])
def test_concrete_of_an_int_is_the_broadcast(value: int, bits: int) -> None:
    made = Val.concrete(value, bits, 4)
    general = Val.concrete(np.array(value, dtype=np.uint64), bits, 4)
    assert made.ints is not None and general.ints is not None
    assert made.ints.dtype == general.ints.dtype and made.ints.tolist() == general.ints.tolist()


def test_is_concrete() -> None:
    assert Val(8, syms=np.zeros((0, 1), np.int64)).is_concrete()
    assert Val(16, syms=np.array([[-1, -256]])).is_concrete()
    assert not Val(16, syms=np.array([[-1, -257]])).is_concrete()  # undefined
    assert not Val(16, syms=np.array([[-1, 0]])).is_concrete()  # a node's byte


def _strip_by_hand(line: str) -> str:
    in_string = False
    for i, char in enumerate(line):
        if char == '"':
            in_string = not in_string
        elif char == ";" and not in_string:
            return line[:i]
    return line


def test_strip_comment_is_the_scan() -> None:
    rng = random.Random(7)
    for _ in range(20_000):
        line = "".join(rng.choice('ab";$ ') for _ in range(rng.randrange(0, 14)))
        assert _strip_comment(line) == _strip_by_hand(line), line
