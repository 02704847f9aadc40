"""Hopper's warpgroup matrix multiply (``wgmma``): descriptors, operand layouts, groups.

``wgmma.mma_async.sync.aligned.m64nNkK.D.A.B`` is issued by a warpgroup (4 consecutive warps,
128 threads, all of them: ``.sync.aligned``) and computes ``D = A * B + D * scale-d`` for a
64 x N tile: A (64 x K) comes from shared memory through a *matrix descriptor* or from the
threads' registers, B (K x N) from shared memory through a descriptor.  The operands are read
*asynchronously*: at some time between the issue and the ``wgmma.wait_group`` that retires
the op's *wgmma-group* (``wgmma.commit_group`` closes a group).  The facts used (NVIDIA PTX
ISA, section 9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"):

* **Matrix descriptor** (64 bits): bits 0-13 the start address, 16-29 the leading dimension
  byte offset (LBO), 32-45 the stride dimension byte offset (SBO), each encoded as
  ``(x & 0x3FFFF) >> 4``; bits 49-51 the base offset (0 when the swizzle pattern starts at
  its repeat boundary: 1024/512/256 bytes for the 128/64/32-byte swizzles; any other value
  is not modelled here); bits 62-63 the swizzle mode: 0 none, 1 128-byte, 2 64-byte,
  3 32-byte.
* **Canonical layouts**, with rows of 16-byte units.  The operand is seen as an MN x K matrix
  (A: M x K; B transposed: N x K).  *K-major* (``imm-trans`` 0): each MN row holds its K
  elements contiguously.  Without swizzle, a *core matrix* is 8 rows x 16 bytes stored as
  128 contiguous bytes; LBO is the distance between core matrices adjacent in K, SBO between
  core matrices adjacent in MN.  With a swizzle of W bytes, row ``r`` of a group of 8 lies at
  ``r * W``, the next 8 rows SBO further (LBO unused): K spans 32 bytes of the W-byte row.
  *MN-major* (``imm-trans`` 1, 16-bit types only): each K row holds MN elements contiguously.
  Without swizzle a core matrix is 8 K-rows x 16 bytes of MN; SBO separates core matrices
  adjacent in MN, LBO those adjacent in K.  With a W-byte swizzle, K row ``k`` of a group of
  8 lies at ``k * W`` and holds W bytes of MN; the next W bytes of MN are LBO further, the
  next 8 K rows SBO further.  (CUTLASS's ``make_gmma_desc`` canonical layouts, e.g.
  ``((8,m),(T,2k)):((8T,SBO),(1,T))`` for K-major 128-byte swizzle, say the same.)
* **Swizzle**: the 16-byte unit index (address bits 4..) is XORed with the address bits from
  7 on: 3 bits for 128-byte, 2 for 64-byte, 1 for 32-byte (CuTe's ``Swizzle<3,4,3>``,
  ``<2,4,3>``, ``<1,4,3>`` on byte addresses; Triton's NVMMA shared layout, REFERENCES.md
  section 3, is the same map relative to its 1024-byte-aligned buffer).
* **Fragments** (thread ``t`` of the warpgroup, ``w = t // 32``, ``g = (t % 32) // 4``,
  ``q = t % 4``): accumulator element ``i`` is ``D[16 w + g + 8 ((i >> 1) & 1)]
  [8 (i >> 2) + 2 q + (i & 1)]`` (N/2 elements; an ``.f16`` D packs two per 32-bit
  register, the lower index in the low half); a 16-bit A in registers (4 registers, 8
  elements) holds ``A[16 w + g + 8 ((i >> 1) & 1)][2 q + (i & 1) + 8 (i >> 2)]``.
* K is 32 bytes of elements: k16 for ``.f16``/``.bf16``, k8 for ``.tf32``, k32 for the 8-bit
  types.  ``imm-scale-a``/``-b`` (1 or -1) negate A or B.

What the executor checks: every operand byte lies in the CTA's shared memory (else *out of
bounds*); a byte no one wrote is an *uninitialised read*, and every D element computed from
one is undefined (a violation when it reaches a global store); a write (by any thread,
``cp.async`` included, from its issue) to a byte a wgmma reads before the ``wait_group`` that
retires it, a wgmma reading a byte a ``cp.async`` not yet waited for writes, a byte written in
the issue's barrier interval by a warp of another warpgroup, or a byte written by another
warpgroup in the barrier interval where its wgmma read was retired: *races*.  Each D element
is one DAG node ``wgmma.<D>.<A>.<B>(D in, row m of A, column n of B)`` (without ``D in`` when
scale-d is false), rows and columns being the nodes of their K elements' bytes in K order, so
equal computations are equal nodes, whatever the shared layouts.  Not checked: that the
accumulator and A registers are not touched between issue and retirement, ``wgmma.fence``
before the first op, and ``fence.proxy.async`` between generic writes and the wgmma's reads.

Examples:
    >>> d = Descriptor.decode((1 << 62) | (64 << 32) | (0x2000 >> 4))
    >>> d.start, d.stride, d.swizzle
    (8192, 1024, 128)
    >>> offsets = operand_offsets(d, rows=64, element_bytes=2, mn_major=False)
    >>> offsets[1, :3].tolist()   # row 1: its 16-byte units XOR 1
    [8336, 8338, 8340]
    >>> rows, cols = accumulator_coordinates(8)
    >>> rows[37].tolist(), cols[37].tolist()   # thread 37: warp 1, g 1, q 1
    ([17, 17, 25, 25], [2, 3, 2, 3])
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from llverify.emitted.sim.memory import SharedMemory, Violation
from llverify.emitted.sim.symbolic import UNDEFINED, Dag, Unmodelled, Val, symbols_of, unique_rows

__all__ = [
    "WARPGROUP",
    "Descriptor",
    "WarpgroupMMA",
    "a_fragment_coordinates",
    "accumulator_coordinates",
    "operand_offsets",
]

WARPGROUP = 128  # threads of a warpgroup: 4 warps of 32
_K_BYTES = 32  # bytes of K in every wgmma operand row
_SWIZZLES = {0: 0, 1: 128, 2: 64, 3: 32}  # descriptor mode -> swizzle width in bytes
_ELEMENT_BYTES = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1}
_ACCUMULATOR_BYTES = {"f32": 4, "f16": 2, "s32": 4}
_MMA = re.compile(
    r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k(\d+)(\.satfinite)?\.(f32|f16|s32)\.(\w+)\.(\w+)\Z"
)
#: (A type family) -> the types D may have, and whether A and B must be the same type
_FAMILIES = {
    "f16": ({"f32", "f16"}, True),
    "bf16": ({"f32"}, True),
    "tf32": ({"f32"}, True),
    "e4m3": ({"f32", "f16"}, False),
    "e5m2": ({"f32", "f16"}, False),
    "s8": ({"s32"}, False),
    "u8": ({"s32"}, False),
}
_FAMILY_OF = {
    "f16": "16", "bf16": "16", "tf32": "tf32", "e4m3": "f8", "e5m2": "f8", "s8": "i8", "u8": "i8",
}  # fmt: skip


@dataclass(frozen=True)
class Descriptor:
    """A decoded wgmma matrix descriptor: byte addresses and offsets, the base offset field,
    the swizzle width in bytes (0: none)."""

    start: int
    leading: int
    stride: int
    base_offset: int
    swizzle: int

    @classmethod
    def decode(cls, value: int) -> Descriptor:
        """The fields of the 64-bit descriptor ``value`` (PTX "Matrix Descriptor Format").

        >>> Descriptor.decode(0x8000002000000400)
        Descriptor(start=16384, leading=0, stride=512, base_offset=0, swizzle=64)
        """
        if not 0 <= value < 1 << 64:
            raise ValueError(f"value: expected a 64-bit descriptor, got {value}")
        return cls(
            start=(value & 0x3FFF) << 4,
            leading=((value >> 16) & 0x3FFF) << 4,
            stride=((value >> 32) & 0x3FFF) << 4,
            base_offset=(value >> 49) & 0x7,
            swizzle=_SWIZZLES[value >> 62],
        )


def operand_offsets(
    descriptor: Descriptor, *, rows: int, element_bytes: int, mn_major: bool
) -> np.ndarray:
    """The shared-memory byte address of the first byte of each element ``[mn, k]`` of an
    operand of ``rows`` MN rows described by ``descriptor``: shape (rows, 32 / element_bytes).
    A non-zero base offset, or MN-major elements of other than 2 bytes, are unmodelled.

    >>> d = Descriptor(start=0, leading=256, stride=128, base_offset=0, swizzle=0)
    >>> operand_offsets(d, rows=16, element_bytes=2, mn_major=False)[9, [0, 7, 8]].tolist()
    [144, 158, 400]
    """
    if descriptor.base_offset:
        raise Unmodelled(f"a wgmma descriptor with base offset {descriptor.base_offset}")
    if mn_major and element_bytes != 2:
        raise Unmodelled("an MN-major (transposed) wgmma operand of other than 16-bit elements")
    mn = np.arange(rows, dtype=np.int64)[:, None]
    k = np.arange(_K_BYTES // element_bytes, dtype=np.int64)[None, :]
    width, lead, stride = descriptor.swizzle, descriptor.leading, descriptor.stride
    if not mn_major:
        kb = k * element_bytes
        if width == 0:
            offset = (mn % 8) * 16 + (mn // 8) * stride + kb % 16 + (kb // 16) * lead
        else:
            offset = (mn % 8) * width + (mn // 8) * stride + kb
    else:
        mb = mn * element_bytes
        if width == 0:
            offset = mb % 16 + (mb // 16) * stride + (k % 8) * 16 + (k // 8) * lead
        else:
            offset = mb % width + (mb // width) * lead + (k % 8) * width + (k // 8) * stride
    address = descriptor.start + offset
    if width:
        address = address ^ (((address >> 7) & (width // 16 - 1)) << 4)
    return address


def accumulator_coordinates(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of D element ``i`` of warpgroup thread ``t``: two (128, n / 2) arrays."""
    t = np.arange(WARPGROUP, dtype=np.int64)[:, None]
    i = np.arange(n // 2, dtype=np.int64)[None, :]
    warp, group, quad = t // 32, (t % 32) // 4, t % 4
    rows = 16 * warp + group + 8 * ((i >> 1) & 1)
    cols = 8 * (i >> 2) + 2 * quad + (i & 1)
    return np.broadcast_to(rows, (WARPGROUP, n // 2)), np.broadcast_to(cols, (WARPGROUP, n // 2))


def a_fragment_coordinates() -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of element ``i`` (0..7) of a 16-bit A held in registers by warpgroup
    thread ``t``: two (128, 8) arrays.

    >>> rows, cols = a_fragment_coordinates()
    >>> rows[5].tolist(), cols[5].tolist()
    ([1, 1, 9, 9, 1, 1, 9, 9], [2, 3, 2, 3, 10, 11, 10, 11])
    """
    t = np.arange(WARPGROUP, dtype=np.int64)[:, None]
    i = np.arange(8, dtype=np.int64)[None, :]
    warp, group, quad = t // 32, (t % 32) // 4, t % 4
    rows = 16 * warp + group + 8 * ((i >> 1) & 1)
    cols = 2 * quad + (i & 1) + 8 * (i >> 2)
    return rows, cols


@dataclass
class _Reads:
    """The shared bytes (distinct addresses) one wgmma of one warpgroup reads."""

    addresses: np.ndarray
    thread: int  # the warpgroup's first thread, named in reports
    where: str


@dataclass
class _Shape:
    """What an ``mma_async`` opcode says: N, the types, the operand counts."""

    n: int
    d: str
    a: str
    b: str
    satfinite: bool
    element_bytes: int = field(init=False)
    family: str = field(init=False)

    def __post_init__(self) -> None:
        self.element_bytes = _ELEMENT_BYTES[self.a]
        self.family = _FAMILY_OF[self.a]

    @property
    def accumulator_bytes(self) -> int:
        return _ACCUMULATOR_BYTES[self.d]

    @property
    def registers(self) -> int:
        """32-bit D registers per thread."""
        return self.n // 2 * self.accumulator_bytes // 4

    @property
    def name(self) -> str:
        return f"wgmma.{self.d}.{self.a}.{self.b}" + (".satfinite" if self.satfinite else "")


def _shape(opcode: str) -> _Shape:
    """The shape and types of an ``mma_async`` opcode; unmodelled ones (sparse ``.sp``,
    ``.b1``, a K that is not 32 bytes, a type combination PTX does not define)."""
    found = _MMA.match(opcode)
    if found is None:
        raise Unmodelled(f"PTX {opcode}")
    n, k, satfinite, d, a, b = found.groups()
    if a not in _FAMILIES or b not in _FAMILIES or _FAMILY_OF[a] != _FAMILY_OF[b]:
        raise Unmodelled(f"PTX {opcode} (operand types)")
    allowed, same = _FAMILIES[a]
    if d not in allowed or (same and a != b) or (satfinite and d != "s32"):
        raise Unmodelled(f"PTX {opcode} (types)")
    shape = _Shape(int(n), d, a, b, bool(satfinite))
    if int(k) * shape.element_bytes != _K_BYTES or not (8 <= shape.n <= 256 and shape.n % 8 == 0):
        raise Unmodelled(f"PTX {opcode} (shape)")
    return shape


# A reader of the instruction's operands: (operand text, bits) -> the value in every thread
Reader = Callable[[str, int], Val]


class WarpgroupMMA:
    """The wgmma state of one CTA: each warpgroup's wgmma-groups (the open one last) and, per
    shared byte, the reads in flight and the retired reads of the current barrier interval.
    A wgmma reading bytes a ``cp.async`` not yet waited for writes is the race
    :class:`~llverify.emitted.sim.memory.SharedMemory` reports for every read.  Its
    :meth:`check_write` is called for every shared-memory write; the per-byte state is made
    at the first wgmma, so a kernel without one pays nothing."""

    def __init__(
        self,
        shared: SharedMemory,
        dag: Dag,
        threads: int,
        warp_size: int,
    ) -> None:
        self.shared, self.dag = shared, dag
        self.threads, self.warp_size = threads, warp_size
        self.groups: dict[int, list[list[_Reads]]] = {}
        self.issued = False
        empty = np.zeros(0, dtype=np.int64)
        self.pending, self.read_interval, self.reader_groups = empty, empty, empty

    def _start(self) -> None:
        """The per-byte state, at the first wgmma: reads in flight, the barrier interval of
        the last retired reads, the warpgroups (bits) that read in it."""
        if not self.issued:
            size = self.shared.size
            self.pending = np.zeros(size, dtype=np.int64)
            self.read_interval = np.full(size, -1, dtype=np.int64)
            self.reader_groups = np.zeros(size, dtype=np.int64)
            self.issued = True

    # -- the warpgroups -----------------------------------------------------------------------
    def warpgroups(self, mask: np.ndarray, what: str) -> list[int]:
        """The warpgroups that execute ``what`` under ``mask``: each wholly (a warpgroup
        partly active, or threads that are not whole warpgroups of 32-lane warps, are
        unmodelled)."""
        if self.warp_size != 32 or self.threads % WARPGROUP:
            raise Unmodelled(f"{what} outside whole warpgroups of 4 warps of 32 threads")
        active = mask.reshape(-1, WARPGROUP)
        whole = active.all(axis=1)
        if (active.any(axis=1) & ~whole).any():
            raise Unmodelled(f"{what} executed by part of a warpgroup (it must be converged)")
        return [int(g) for g in np.flatnonzero(whole)]

    def fence(self, mask: np.ndarray) -> None:
        """``wgmma.fence.sync.aligned``: orders register accesses; nothing for memory."""
        self.warpgroups(mask, "wgmma.fence")

    def commit(self, mask: np.ndarray) -> None:
        """``wgmma.commit_group.sync.aligned``: each warpgroup's uncommitted ops form a group
        (an empty one when there are none)."""
        for group in self.warpgroups(mask, "wgmma.commit_group"):
            self.groups.setdefault(group, [[]]).append([])

    def wait(self, mask: np.ndarray, keep: int) -> None:
        """``wgmma.wait_group.sync.aligned keep``: every committed group of each warpgroup but
        the newest ``keep`` is complete; its reads are retired (recorded as reads of the
        warpgroup in the current barrier interval)."""
        if keep < 0:
            raise Unmodelled(f"wgmma.wait_group {keep}")
        interval = self.shared.interval
        for group in self.warpgroups(mask, "wgmma.wait_group"):
            groups = self.groups.setdefault(group, [[]])
            committed = groups[:-1]
            done = committed[: max(0, len(committed) - keep)]
            for reads in done:
                for read in reads:
                    flat = read.addresses
                    self.pending[flat] -= 1
                    fresh = self.read_interval[flat] != interval
                    self.reader_groups[flat[fresh]] = 0
                    self.read_interval[flat] = interval
                    self.reader_groups[flat] |= np.int64(1) << np.int64(group)
            self.groups[group] = committed[len(done) :] + [groups[-1]]

    # -- writes ---------------------------------------------------------------------------------
    def copy_started(self, addresses: np.ndarray, threads: np.ndarray, where: str) -> None:
        """A ``cp.async`` by ``threads`` (n,) to the shared bytes ``addresses`` (n, nbytes) is
        issued: it may write them at any time until its group is waited for."""
        if not self.issued:
            return
        ok = (addresses >= 0) & (addresses < self.shared.size)
        who = np.broadcast_to(threads[:, None], addresses.shape)[ok]
        self.shared.violations.extend(self.check_write(addresses[ok], who, where))

    def check_write(
        self, addresses: np.ndarray, threads: np.ndarray, where: str
    ) -> list[Violation]:
        """The races of a write of the shared bytes ``addresses`` (flat, in bounds) by
        ``threads`` (flat): a byte a wgmma reads and no wait has retired yet, or a byte a
        wgmma of another warpgroup read, retired in this barrier interval."""
        found: list[Violation] = []
        if not self.issued:
            return found
        pending = self.pending[addresses] > 0
        if pending.any():
            i = int(np.argmax(pending))
            read = self._pending_read(int(addresses[i]))
            found.append(
                Violation(
                    "race",
                    "shared",
                    int(threads[i]),
                    read.thread,
                    int(addresses[i]),
                    where,
                    f"write of a byte that the wgmma.mma_async at {read.where} reads "
                    "asynchronously: no wgmma.wait_group retired it before the write",
                )
            )
        own = np.left_shift(np.int64(1), threads // WARPGROUP).astype(np.int64)
        late = (self.read_interval[addresses] == self.shared.interval) & (
            (self.reader_groups[addresses] & ~own) != 0
        )
        if late.any():
            i = int(np.argmax(late))
            readers = int(self.reader_groups[addresses[i]] & ~own[i])
            other = (readers & -readers).bit_length() - 1
            found.append(
                Violation(
                    "race",
                    "shared",
                    int(threads[i]),
                    other * WARPGROUP,
                    int(addresses[i]),
                    where,
                    f"write of a byte a wgmma.mma_async of warpgroup {other} read, retired by its "
                    "wgmma.wait_group in the same barrier interval (no barrier orders the two)",
                )
            )
        return found

    def _pending_read(self, address: int) -> _Reads:
        for groups in self.groups.values():
            for reads in groups:
                for read in reads:
                    if address in read.addresses:
                        return read
        raise AssertionError(f"no pending wgmma read of shared byte {address}")

    # -- the reads of one wgmma ---------------------------------------------------------------
    def read_operand(self, group: int, grid: np.ndarray, where: str) -> np.ndarray:
        """The byte symbols at ``grid`` (rows, nbytes) that warpgroup ``group``'s wgmma reads,
        checked (bounds, uninitialised, copies in flight, races with earlier writes) and
        recorded in its open wgmma-group."""
        self._start()
        shared = self.shared
        first = group * WARPGROUP
        threads = np.full(grid.shape[0], first, dtype=np.int64)
        values = shared.read(grid, threads, where, atomic=True)  # bounds, uninitialised
        flat = np.unique(grid[(grid >= 0) & (grid < shared.size)])
        own = np.int64(0xF) << np.int64(4 * group)
        written = (shared.written_interval[flat] == shared.interval) & (
            (shared.writer_warps[flat] & ~own) != 0
        )
        if written.any():
            address = int(flat[int(np.argmax(written))])
            shared.violations.append(
                Violation(
                    "race",
                    "shared",
                    first,
                    int(shared.writer[address]),
                    address,
                    where,
                    "wgmma.mma_async reads a byte a warp of another warpgroup writes in the same "
                    "barrier interval",
                )
            )
        self.pending[flat] += 1
        self.groups.setdefault(group, [[]])[-1].append(_Reads(flat, first, where))
        return values

    def mma_async(
        self, opcode: str, operands: list[str], read: Reader, mask: np.ndarray, where: str
    ) -> Val:
        """``wgmma.mma_async``: the D registers of every thread (those of inactive warpgroups
        undefined), each element a DAG node of its inputs."""
        shape = _shape(opcode)
        groups = self.warpgroups(mask, "wgmma.mma_async")
        immediates = _immediates(shape, operands)
        destination = operands[0].strip()
        if len(destination.strip("{} ").split(",")) != shape.registers:
            raise Unmodelled(f"PTX {opcode} with {destination!r} (expected {shape.registers} D)")
        scale_a, scale_b, trans_a, trans_b = immediates
        name = shape.name + (".neg_a" if scale_a < 0 else "") + (".neg_b" if scale_b < 0 else "")
        rows, cols = accumulator_coordinates(shape.n)
        width = shape.accumulator_bytes
        out = np.full((self.threads, shape.n // 2 * width), UNDEFINED, dtype=np.int64)
        for group in groups:
            threads = slice(group * WARPGROUP, (group + 1) * WARPGROUP)
            scale_d = _uniform(read(operands[3], 1), mask, group, "wgmma scale-d") & 1
            a = self._a_operand(shape, operands[1], read, mask, group, trans_a, where)
            b_descriptor = Descriptor.decode(_uniform(read(operands[2], 64), mask, group, "desc"))
            b_offsets = operand_offsets(
                b_descriptor, rows=shape.n, element_bytes=shape.element_bytes, mn_major=trans_b
            )
            b = self.read_operand(group, _byte_grid(b_offsets, shape.element_bytes), where)
            accumulator = None
            if scale_d:
                syms = read(destination, 32 * shape.registers).byte_symbols()[threads]
                accumulator = syms.reshape(WARPGROUP, shape.n // 2, width)
            out[threads] = self._products(name, width, a, b, accumulator, rows, cols)
        return Val(32 * shape.registers, syms=out)

    def _a_operand(
        self,
        shape: _Shape,
        operand: str,
        read: Reader,
        mask: np.ndarray,
        group: int,
        transposed: bool,
        where: str,
    ) -> np.ndarray:
        """The bytes of A (64, 32) of warpgroup ``group``: through its descriptor, or gathered
        from the threads' registers (16-bit types: 4 registers)."""
        if not operand.strip().startswith("{"):
            descriptor = Descriptor.decode(_uniform(read(operand, 64), mask, group, "desc"))
            offsets = operand_offsets(
                descriptor, rows=64, element_bytes=shape.element_bytes, mn_major=transposed
            )
            return self.read_operand(group, _byte_grid(offsets, shape.element_bytes), where)
        if shape.family != "16" or len(operand.strip("{} ").split(",")) != 4:
            raise Unmodelled(f"wgmma A in registers {operand!r} for .{shape.a}")
        registers = read(operand, 128).byte_symbols()[group * WARPGROUP : (group + 1) * WARPGROUP]
        rows, cols = a_fragment_coordinates()
        a = np.full((64, 16, 2), UNDEFINED, dtype=np.int64)
        a[rows, cols] = registers.reshape(WARPGROUP, 8, 2)
        return a.reshape(64, _K_BYTES)

    def _products(
        self,
        name: str,
        width: int,
        a: np.ndarray,
        b: np.ndarray,
        accumulator: np.ndarray | None,
        rows: np.ndarray,
        cols: np.ndarray,
    ) -> np.ndarray:
        """The D bytes (128, N/2 * width) of one warpgroup: element (t, i) is the node
        ``name(accumulator[t, i], A row, B column)``; undefined where an input byte is."""
        dag = self.dag
        a_nodes, a_undefined = _row_nodes(dag, a)
        b_nodes, b_undefined = _row_nodes(dag, b)
        undefined = a_undefined[rows] | b_undefined[cols]
        columns = [a_nodes[rows].reshape(-1), b_nodes[cols].reshape(-1)]
        if accumulator is not None:
            flat = accumulator.reshape(-1, width)
            undefined |= (flat == UNDEFINED).any(axis=1).reshape(rows.shape)
            columns.insert(0, _value_nodes(dag, flat))
        operands, inverse = unique_rows(np.stack(columns, axis=1))
        nodes = dag.op_rows(name, operands, width)
        symbols = symbols_of(nodes[inverse], width).reshape(WARPGROUP, -1, width)
        symbols[undefined] = UNDEFINED
        return symbols.reshape(WARPGROUP, -1)


def _byte_grid(offsets: np.ndarray, element_bytes: int) -> np.ndarray:
    """The byte addresses (rows, 32) of the elements starting at ``offsets`` (rows, K)."""
    grid = offsets[:, :, None] + np.arange(element_bytes, dtype=np.int64)[None, None, :]
    return grid.reshape(offsets.shape[0], _K_BYTES)


def _row_nodes(dag: Dag, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The node of each row of byte symbols (its K elements, in order), and which rows hold
    an undefined byte (no node: -1)."""
    undefined = (rows == UNDEFINED).any(axis=1)
    nodes = np.array(
        [-1 if bad else dag.from_symbols(tuple(row)) for row, bad in
         zip(rows.tolist(), undefined.tolist())],
        dtype=np.int64,
    )  # fmt: skip
    return nodes, undefined


def _value_nodes(dag: Dag, values: np.ndarray) -> np.ndarray:
    """The node of each row of byte symbols ``values`` (n, width), as
    :meth:`~llverify.emitted.sim.symbolic.Dag.from_symbols` gives it: a row holding the
    bytes of one ``width``-byte node in order (the previous wgmma's D, the common case) is
    that node, found at array speed; the other rows one call per distinct row."""
    width = values.shape[1]
    first = values[:, 0]
    whole = (first >= 0) & (first % 16 == 0)
    whole &= (values == first[:, None] + np.arange(width, dtype=np.int64)[None, :]).all(axis=1)
    nodes = np.where(whole, first // 16, -1)
    candidates = np.unique(nodes[whole])
    wide = [n for n in candidates.tolist() if dag.width[n] != width]
    whole &= ~np.isin(nodes, wide)
    rest = np.flatnonzero(~whole)
    if rest.size:
        unique, inverse = unique_rows(values[rest])
        made = np.array([dag.from_symbols(tuple(row)) for row in unique.tolist()])
        nodes[rest] = made[inverse]
    return nodes


def _uniform(value: Val, mask: np.ndarray, group: int, what: str) -> int:
    """The one concrete value ``value`` has in the threads of warpgroup ``group``."""
    threads = slice(group * WARPGROUP, (group + 1) * WARPGROUP)
    values = value.integers(mask, what)[threads]
    if (values != values[0]).any():
        raise Unmodelled(f"a {what} that differs between the threads of a warpgroup")
    return int(values[0])


def _immediates(shape: _Shape, operands: list[str]) -> tuple[int, int, bool, bool]:
    """(imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b) of the operand list, whose form
    depends on the types and on A's source (PTX's ``wgmma.mma_async`` syntax)."""
    registers_a = operands[1].strip().startswith("{")
    names: tuple[str, ...]
    if shape.family == "16":
        names = ("scale-a", "scale-b") + (("trans-b",) if registers_a else ("trans-a", "trans-b"))
    elif shape.family in ("tf32", "f8"):
        names = ("scale-a", "scale-b")
    else:
        names = ()
    if len(operands) != 4 + len(names):
        raise Unmodelled(f"wgmma.mma_async with operands {operands}")
    given = {}
    for name, text in zip(names, operands[4:]):
        if not re.fullmatch(r"-?\d+", text.strip()):
            raise Unmodelled(f"wgmma.mma_async imm-{name} {text!r} (not an immediate)")
        given[name] = int(text)
    scale_a, scale_b = given.get("scale-a", 1), given.get("scale-b", 1)
    trans_a, trans_b = given.get("trans-a", 0), given.get("trans-b", 0)
    if scale_a not in (1, -1) or scale_b not in (1, -1) or {trans_a, trans_b} - {0, 1}:
        raise Unmodelled(f"wgmma.mma_async immediates {operands[4:]}")
    return scale_a, scale_b, bool(trans_a), bool(trans_b)
