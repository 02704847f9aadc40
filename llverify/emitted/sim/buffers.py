"""The kernel's arguments: global buffers (tagged, concrete, outputs, open) and scalars.

Pointer argument ``k`` points at a buffer at its own base address, ``(k + 1)`` times
:data:`GLOBAL_STRIDE`; the module's constant tables (integer arrays and strings in global
memory) are buffers of their values, each at its own base address far above.  An *input*
holds tagged elements (leaves of the DAG: ``x[i]``), a *values* buffer concrete integers, an
*output* or *scratch* buffer undefined bytes until stored; an *open* buffer (a dumped
kernel's argument) has unknown size and contents, each byte tagged when first read.  A
scalar argument holds a concrete value, or a tagged one.
"""

from __future__ import annotations

import numpy as np

from llverify.emitted.sim.instructions import bits_of
from llverify.emitted.sim.llvm_ir import Function, LLVMModule
from llverify.emitted.sim.memory import GlobalMemory, OpenRegion, Region
from llverify.emitted.sim.symbolic import UNDEFINED, Dag, Val

__all__ = ["GLOBAL_STRIDE", "Buffers"]

GLOBAL_STRIDE = 1 << 40  # buffer k lives at (k + 1) * GLOBAL_STRIDE
_TABLES = 512  # the module's constant table k lives at (_TABLES + k) * GLOBAL_STRIDE


def _base(arg: int) -> int:
    return (arg + 1) * GLOBAL_STRIDE


class Buffers:
    """What the kernel's arguments hold (a part of the
    :class:`~llverify.emitted.sim.executor.Execution`), set before it runs."""

    threads: int
    function: Function
    module: LLVMModule
    dag: Dag
    memory: GlobalMemory
    env: dict[str, Val]

    def _start_arguments(self) -> None:
        """Every argument holds its buffer's base address."""
        for k, (_, name) in enumerate(self.function.arguments):
            self.env[name] = Val.concrete(_base(k), 64, self.threads)
        self._tables: dict[str, Region] = {}

    def _global_table(self, name: str) -> Val | None:
        """The address of the module's constant global ``name`` (an integer table or a
        string): a buffer of its concrete bytes, made on first use; None for another global."""
        data = self.module.tables.get(name) or self.module.strings.get(name)
        if not data:
            return None
        region = self._tables.get(name)
        if region is None:
            base = (_TABLES + len(self._tables)) * GLOBAL_STRIDE
            raw = -1 - np.frombuffer(data, dtype=np.uint8).astype(np.int64)
            region = self.memory.add(name, base, raw, "values")
            self.memory.tables.add(len(self.memory.regions) - 1)
            self._tables[name] = region
        return Val.concrete(region.base, 64, self.threads)

    def add_input(self, arg: int, name: str, *, element_bytes: int, count: int) -> Region:
        """Pointer argument ``arg`` points at ``count`` tagged elements (leaves of the DAG)."""
        buffer = len(self.memory.regions)
        self.dag.buffer_names[buffer] = name
        nodes = self.dag.new_leaves(buffer, count, element_bytes)  # a new buffer: new leaves
        data = (nodes[:, None] * 16 + np.arange(element_bytes)[None, :]).reshape(-1)
        return self.memory.add(name, _base(arg), data, "input")

    def add_values(self, arg: int, name: str, values: np.ndarray, *, element_bytes: int) -> Region:
        """Pointer argument ``arg`` points at concrete integers ``values``."""
        raw = np.asarray(values, dtype=np.int64).astype(np.uint64)
        shifts = (np.arange(element_bytes, dtype=np.uint64) * np.uint64(8))[None, :]
        data = -1 - ((raw[:, None] >> shifts) & np.uint64(0xFF)).astype(np.int64)
        return self.memory.add(name, _base(arg), data.reshape(-1), "values")

    def add_output(self, arg: int, name: str, *, element_bytes: int, count: int) -> Region:
        """Pointer argument ``arg`` points at ``count`` elements the kernel stores."""
        data = np.full(count * element_bytes, UNDEFINED, dtype=np.int64)
        return self.memory.add(name, _base(arg), data, "output")

    def add_scratch(self, arg: int, name: str, size: int) -> Region:
        """Pointer argument ``arg`` points at ``size`` bytes of scratch memory."""
        return self.memory.add(
            name, _base(arg), np.full(size, UNDEFINED, dtype=np.int64), "scratch"
        )

    def add_open(self, arg: int, name: str) -> OpenRegion:
        """Pointer argument ``arg`` points at a buffer of unknown size and contents: every byte
        read before it is written is a tagged leaf (``name[byte offset]``)."""
        buffer = len(self.memory.regions)
        self.dag.buffer_names[buffer] = name
        dag = self.dag  # not the run: memory holds this, and the run holds memory

        def fresh(offsets: np.ndarray) -> np.ndarray:
            return dag.leaves_of(buffer, offsets, 1) * 16

        return self.memory.add_open(name, _base(arg), GLOBAL_STRIDE // 2, fresh)

    def set_argument(self, arg: int, value: int | None, name: str = "") -> None:
        """Give scalar argument ``arg`` a concrete ``value`` (None: a tagged, unknown value)."""
        ty, ssa = self.function.arguments[arg]
        bits = bits_of(ty)
        if value is not None:
            self.env[ssa] = Val.concrete(value & ((1 << bits) - 1), bits, self.threads)
            return
        buffer = len(self.memory.regions) + 1000 + arg
        self.dag.buffer_names[buffer] = f"argument {name or ssa}"
        node = self.dag.leaf(buffer, 0, max(1, bits // 8))
        syms = np.broadcast_to(
            node * 16 + np.arange(max(1, bits // 8)), (self.threads, max(1, bits // 8))
        )
        self.env[ssa] = Val(bits, syms=syms.copy())

    def output_nodes(self, region: Region, element_bytes: int) -> list[int]:
        """The DAG node each element of output ``region`` holds (``bytes`` nodes for partial)."""
        rows = region.data.reshape(-1, element_bytes)
        return [self.dag.from_symbols(tuple(int(s) for s in row)) for row in rows]
