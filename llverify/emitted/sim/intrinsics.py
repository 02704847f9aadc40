"""The NVIDIA and AMD intrinsics Triton's kernels call: ids, barriers, shuffles, ldmatrix, math.

Semantics are the vendors' (PTX ISA ``shfl.sync``, ``ldmatrix``, ``stmatrix``; the AMDGPU
backend's ``ds_bpermute``, ``readlane``, DPP), applied to every thread at once.  A callee
belongs to a *family* (:data:`_FAMILIES`: a pattern of names and its handler, the first
that matches decides); a call of no family raises
:class:`~llverify.emitted.sim.symbolic.Unmodelled`.

Examples:
    >>> lanes = np.arange(8, dtype=np.int64)
    >>> shuffle_sources("bfly", lanes, np.full(8, 1), np.full(8, 0x1F), 8).tolist()
    [1, 0, 3, 2, 5, 4, 7, 6]
    >>> shuffle_sources("up", lanes, np.full(8, 2), np.full(8, 0), 8).tolist()
    [0, 1, 0, 1, 2, 3, 4, 5]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cache

import numpy as np

from llverify.emitted.sim.instructions import bits_of, nbytes_of
from llverify.emitted.sim.llvm_ir import Instruction, Value
from llverify.emitted.sim.machine import Machine
from llverify.emitted.sim.symbolic import COMMUTATIVE, UNDEFINED, Unmodelled, Val, canonical_op

__all__ = [
    "call",
    "ldmatrix",
    "prmt_selectors",
    "pure_call",
    "scalar_callee",
    "shuffle",
    "shuffle_sources",
    "stmatrix",
    "transposed_read_sources",
]


def shuffle_sources(
    mode: str, lane: np.ndarray, b: np.ndarray, c: np.ndarray, warp_size: int
) -> np.ndarray:
    """The source lane of each lane of a PTX ``shfl.sync`` (``b`` the lane/offset operand, ``c``
    the packed clamp and segment mask); a lane whose source is out of range reads itself."""
    lane = lane.astype(np.int64)
    b = np.asarray(b, dtype=np.int64) & 0x1F
    c = np.asarray(c, dtype=np.int64)
    clamp = c & 0x1F
    segmask = (c >> 8) & 0x1F
    max_lane = (lane & segmask) | (clamp & ~segmask)
    min_lane = lane & segmask
    if mode == "up":
        j = lane - b
        valid = j >= max_lane
    elif mode == "down":
        j = lane + b
        valid = j <= max_lane
    elif mode == "bfly":
        j = lane ^ b
        valid = j <= max_lane
    elif mode == "idx":
        j = min_lane | (b & ~segmask)
        valid = j <= max_lane
    else:
        raise Unmodelled(f"shfl mode {mode}")
    return np.where(valid, j, lane)


def shuffle(
    machine: Machine,
    mode: str,
    value: Val,
    b: np.ndarray,
    c: np.ndarray,
    member: np.ndarray,
    mask: np.ndarray,
) -> Val:
    """``shfl.sync.mode`` of ``value`` in every warp (the executor's warp size is 32 here)."""
    warp = machine.warp_size
    tid = np.arange(machine.threads, dtype=np.int64)
    lane = tid % warp
    source_lane = shuffle_sources(mode, lane, b, c, warp)
    source = tid - lane + source_lane
    active = np.flatnonzero(mask)
    member = member.astype(np.int64) & 0xFFFFFFFF
    if ((member[active] >> lane[active]) & 1 == 0).any():
        raise Unmodelled("shfl.sync executed by a thread outside its member mask")
    syms = value.byte_symbols()
    out = syms[source].copy()
    inactive_source = ~mask[source]
    out[inactive_source] = UNDEFINED
    return Val(value.bits, syms=out).normalised()


@cache
def _matrix_lanes(
    threads: int, count: int, transposed: bool
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Where each thread's bytes of an ``ldmatrix``/``stmatrix`` of ``count`` 8x8 matrices
    lie: byte ``j`` of matrix ``i`` of thread ``t`` is at the address of thread
    ``lanes[i, t, j]`` plus ``offsets[t, j]``; and whether every such thread is one of the
    ``threads`` (read-only arrays, one set per shape).

    Row ``r`` of matrix ``i`` is at the address of lane ``8 * i + r``; without ``.trans``
    thread ``t`` holds 4 bytes of row ``lane // 4``, from byte ``4 * (lane % 4)``; with it,
    2 bytes of rows ``2 * (lane % 4)`` and the next one, from byte ``2 * (lane // 4)``.

    >>> lanes, offsets, inside = _matrix_lanes(32, 1, False)
    >>> lanes[0, 5].tolist(), offsets[5].tolist(), inside
    ([1, 1, 1, 1], [4, 5, 6, 7], True)
    >>> lanes, offsets, _ = _matrix_lanes(32, 2, True)
    >>> lanes[1, 5].tolist(), offsets[5].tolist()
    ([10, 10, 11, 11], [2, 3, 2, 3])
    """
    tid = np.arange(threads, dtype=np.int64)
    lane = tid % 32
    first = (tid - lane)[None, :] + 8 * np.arange(count, dtype=np.int64)[:, None]
    if not transposed:
        lanes = np.repeat((first + lane // 4)[:, :, None], 4, axis=2)
        offsets = (4 * (lane % 4))[:, None] + np.arange(4, dtype=np.int64)[None, :]
    else:
        low = first + 2 * (lane % 4)
        lanes = np.stack([low, low, low + 1, low + 1], axis=2)
        offsets = (2 * (lane // 4))[:, None] + np.array([0, 1, 0, 1], dtype=np.int64)[None, :]
    lanes.flags.writeable = False
    offsets.flags.writeable = False
    return lanes, offsets, bool(lanes.size == 0 or lanes.max() < threads)


def _matrix_grids(
    addresses: np.ndarray, threads: int, count: int, transposed: bool
) -> Iterator[np.ndarray]:
    """The byte addresses (T, 4) of each of the ``count`` matrices of an ``ldmatrix`` or
    ``stmatrix`` of ``threads`` threads at the row ``addresses`` (T,) (int64), in order; all
    at once where every lane they name is a thread, else one matrix at a time (a lane out of
    range raises at its matrix)."""
    lanes, offsets, inside = _matrix_lanes(threads, count, transposed)
    if inside:
        yield from addresses[lanes] + offsets
        return
    tid = np.arange(threads, dtype=np.int64)
    lane = tid % 32
    warp_base = tid - lane
    for i in range(count):
        if not transposed:
            provider = warp_base + 8 * i + lane // 4
            base = addresses[provider] + 4 * (lane % 4)
            yield base[:, None] + np.arange(4)[None, :]
        else:
            first = warp_base + 8 * i + 2 * (lane % 4)
            column = 2 * (lane // 4)
            low = addresses[first] + column
            high = addresses[first + 1] + column
            yield np.stack([low, low + 1, high, high + 1], axis=1)


def ldmatrix(
    machine: Machine,
    addresses: np.ndarray,
    count: int,
    transposed: bool,
    mask: np.ndarray,
    where: str,
) -> list[np.ndarray]:
    """``ldmatrix.sync.aligned.m8n8.x{count}[.trans].b16``: ``count`` registers (byte symbols,
    shape (T, 4)) per thread; row r of matrix i is at the address of lane ``8 * i + r``."""
    if not mask.all():
        raise Unmodelled("ldmatrix in divergent code")
    threads = machine.threads
    kind = f"ldmatrix.x{count}" + (".trans" if transposed else "")
    tid = np.arange(threads, dtype=np.int64)
    wide = addresses.astype(np.int64)
    machine.record(kind, 3, 4 * count, tid, wide, where)
    return [
        machine.shared.read(grid, tid, where)
        for grid in _matrix_grids(wide, threads, count, transposed)
    ]


def stmatrix(
    machine: Machine,
    addresses: np.ndarray,
    registers: list[np.ndarray],
    transposed: bool,
    mask: np.ndarray,
    where: str,
) -> None:
    """``stmatrix.sync.aligned.m8n8.x{n}[.trans].b16``: the inverse of :func:`ldmatrix`."""
    if not mask.all():
        raise Unmodelled("stmatrix in divergent code")
    tid = np.arange(machine.threads, dtype=np.int64)
    kind = f"stmatrix.x{len(registers)}" + (".trans" if transposed else "")
    wide = addresses.astype(np.int64)
    machine.record(kind, 3, 4 * len(registers), tid, wide, where)
    grids = _matrix_grids(wide, machine.threads, len(registers), transposed)
    for register, grid in zip(registers, grids):
        machine.shared.write(grid, register, tid, where)


# A family's handler: (machine, call, the callee's match of the family's pattern, mask).
_Intrinsic = Callable[[Machine, Instruction, re.Match[str], np.ndarray], "Val | None"]


def call(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val | None:
    """Execute the intrinsic call ``ins`` by the handler of its callee's family; the vector
    form of an element-wise intrinsic (``llvm.maxnum.v2f32``) as one scalar call per element."""
    callee = str(ins.extra["callee"]).lstrip("@")
    scalar = scalar_callee(callee)
    if scalar is not None and ins.type.kind == "vector":
        family = _family(scalar)
        if family is not None and family[0] in _ELEMENTWISE:
            return _per_element(machine, ins, scalar, mask)
    family = _family(callee)
    if family is None:
        raise Unmodelled(f"call to {callee}")
    handler, found = family
    return handler(machine, ins, found, mask)


@cache
def _family(callee: str) -> tuple[_Intrinsic, re.Match[str]] | None:
    """The handler of the first family whose pattern matches ``callee``, with the match."""
    for pattern, handler in _FAMILIES:
        found = pattern.match(callee)
        if found is not None:
            return handler, found
    return None


_VECTOR_SUFFIX = re.compile(r"\.v\d+((?:i|f|bf)\d+)(?=\.|\Z)")


@cache
def scalar_callee(callee: str) -> str | None:
    """The scalar intrinsic a vector-overloaded ``callee`` applies to each element (each
    ``.vN<type>`` suffix made ``.<type>``), or None if no suffix is a vector's (or ``callee``
    is an ``llvm.vector.*`` intrinsic, which works on the vector as a whole).

    >>> scalar_callee("llvm.maxnum.v2f32"), scalar_callee("llvm.smin.v4i16")
    ('llvm.maxnum.f32', 'llvm.smin.i16')
    >>> scalar_callee("llvm.maxnum.f32"), scalar_callee("llvm.vector.reduce.fmax.v2f32")
    (None, None)
    """
    if callee.startswith("llvm.vector."):
        return None
    scalar, replaced = _VECTOR_SUFFIX.subn(r".\1", callee)
    return scalar if replaced else None


def _per_element(machine: Machine, ins: Instruction, scalar: str, mask: np.ndarray) -> Val:
    """The vector call ``ins`` as the call of ``scalar`` on element k of every vector operand
    (a scalar operand, such as ``llvm.abs``'s poison flag, goes to every call), for each k."""
    element = ins.type.element
    assert element is not None
    family = _family(scalar)
    if family is not None and family[0] is _math:
        return _math_per_element(machine, ins, scalar)
    values = [machine.value(o) for o in ins.operands]
    names = [f"%__element{j}" for j in range(len(values))]
    types = [o.type.element or o.type for o in ins.operands]
    parts = []
    for k in range(ins.type.count):
        for operand, value, name, part in zip(ins.operands, values, names, types):
            if operand.type.kind == "vector":
                width = nbytes_of(part)
                piece = value.byte_symbols()[:, k * width : (k + 1) * width]
                value = Val(bits_of(part), syms=piece).normalised()
            machine.define(name, value)
        operands = [Value(part, name) for part, name in zip(types, names)]
        extra = {**ins.extra, "callee": "@" + scalar}
        try:
            result = call(machine, replace(ins, type=element, operands=operands, extra=extra), mask)
        finally:
            for name in names:
                machine.forget(name)
        assert result is not None
        parts.append(result.byte_symbols())
    return Val(bits_of(ins.type), syms=np.concatenate(parts, axis=1)).normalised()


def _math_per_element(machine: Machine, ins: Instruction, scalar: str) -> Val:
    """A vector call of per-thread float math (``llvm.fmuladd.v32f32``): the node of
    ``scalar`` on element k of every vector operand, made for every thread and element in one
    :meth:`~llverify.emitted.sim.machine.Machine.data_op` over (threads x elements) rows, the
    same nodes as one scalar call per element."""
    count = ins.type.count
    rows = []
    for operand in ins.operands:
        symbols = machine.value(operand).byte_symbols()
        part = operand.type.element or operand.type
        if operand.type.kind == "vector":
            symbols = symbols.reshape(-1, nbytes_of(part))  # row t * count + k
        else:
            symbols = np.repeat(symbols, count, axis=0)
        rows.append(Val(bits_of(part), syms=symbols).normalised())
    assert ins.type.element is not None
    result = machine.data_op(scalar, rows, nbytes_of(ins.type.element)).byte_symbols()
    return Val(bits_of(ins.type), syms=result.reshape(machine.threads, -1)).normalised()


def _tid(machine: Machine) -> np.ndarray:
    return np.arange(machine.threads, dtype=np.uint64)


# -- ids -------------------------------------------------------------------------------------------
_SPECIAL_REGISTERS: dict[str, Callable[[Machine, str], np.ndarray | int]] = {
    "tid": lambda machine, axis: _tid(machine) if axis == "x" else 0,
    "ntid": lambda machine, axis: machine.threads if axis == "x" else 1,
    "ctaid": lambda machine, axis: machine.cta if axis == "x" else 0,
    "nctaid": lambda machine, axis: machine.ctas if axis == "x" else 1,
    "laneid": lambda machine, axis: _tid(machine) % np.uint64(machine.warp_size),
    "warpid": lambda machine, axis: _tid(machine) // np.uint64(machine.warp_size),
    "clusterid": lambda machine, axis: 0,
    "nclusterid": lambda machine, axis: 1,
    "cluster_ctaid": lambda machine, axis: machine.cta if axis == "x" else 0,
    "cluster_nctaid": lambda machine, axis: machine.ctas if axis == "x" else 1,
    "cluster_ctarank": lambda machine, axis: machine.cta,
    "cluster_nctarank": lambda machine, axis: machine.ctas,
}


def _special_register(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> Val:
    """``llvm.nvvm.read.ptx.sreg.NAME[.AXIS]``: the CTA is one-dimensional (x), its cluster
    the CTAs run so far."""
    name, axis = found.group(1).replace(".", "_"), found.group(2) or "x"
    read = _SPECIAL_REGISTERS.get(name)
    if read is None:
        raise Unmodelled(f"special register {name}")
    return Val.concrete(read(machine, axis), ins.type.bits, machine.threads)


def _workitem_x(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """``llvm.amdgcn.workitem.id.x``: the thread's index."""
    return Val.concrete(_tid(machine), 32, machine.threads)


def _workgroup_x(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """``llvm.amdgcn.workgroup.id.x``: the CTA's index."""
    return Val.concrete(machine.cta, 32, machine.threads)


def _zero_id(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """The y and z ids of a one-dimensional launch."""
    return Val.concrete(0, 32, machine.threads)


# -- synchronisation -------------------------------------------------------------------------------
def _cta_barrier(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> None:
    """A CTA barrier (``bar.sync``, ``barrier0``, ``s_barrier``); a named barrier with a
    thread count is not modelled."""
    if len(ins.operands) > 1 and found.group(0) in ("llvm.nvvm.barrier.sync", "llvm.nvvm.bar.sync"):
        raise Unmodelled("a named barrier with a thread count")
    machine.barrier(mask)


def _cluster_barrier(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> None:
    """``llvm.nvvm.barrier.cluster.arrive/wait``: arrive does nothing yet; wait: every thread
    of the cluster (so of this CTA) arrived, with release/acquire order.  The CTAs run one
    after the other and share no shared memory (distributed shared memory is not modelled),
    so for this CTA it is a CTA barrier."""
    machine.barrier(mask, "cluster", wait=".wait" in found.string)


def _no_op(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> None:
    """Hints, fences, scheduling and warp barriers: nothing to do for a CTA run in lockstep."""


# -- data exchange between lanes -------------------------------------------------------------------
def _shuffle(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """``llvm.nvvm.shfl.sync.MODE.TYPE`` (the variant with a predicate result: unmodelled)."""
    member, value, b, c = (machine.value(o) for o in ins.operands)
    result = shuffle(
        machine,
        found.group(1),
        value,
        b.integers(mask, "shuffle lane").astype(np.int64),
        c.integers(mask, "shuffle clamp").astype(np.int64),
        member.integers(mask, "member mask"),
        mask,
    )
    if found.group(3):
        raise Unmodelled("shfl.sync with a predicate result")
    return result


def _ldmatrix(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    addresses = machine.value(ins.operands[0]).integers(mask, "ldmatrix address") & np.uint64(
        0xFFFFFFFF
    )
    registers = ldmatrix(
        machine, addresses, int(found.group(1)), bool(found.group(2)), mask, ins.where
    )
    return Val(32 * len(registers), syms=np.concatenate(registers, axis=1)).normalised()


def _stmatrix(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> None:
    addresses = machine.value(ins.operands[0]).integers(mask, "stmatrix address") & np.uint64(
        0xFFFFFFFF
    )
    registers = [machine.value(o).byte_symbols() for o in ins.operands[1:]]
    stmatrix(machine, addresses, registers, bool(found.group(2)), mask, ins.where)


def _prmt(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """``llvm.nvvm.prmt``: the default mode (``.b4e``, ``.ecl``, ... stay unmodelled)."""
    a, b, selector = (machine.value(o) for o in ins.operands)
    values = selector.integers(mask, "prmt selector")
    chosen = values[mask] if mask.any() else values
    if (chosen != chosen[0]).any():
        raise Unmodelled("prmt with a per-thread selector")
    both = np.concatenate([a.byte_symbols(), b.byte_symbols()], axis=1)
    return Val(32, syms=both[:, prmt_selectors(int(chosen[0]))].copy()).normalised()


# -- wgmma ----------------------------------------------------------------------------------------
def _wgmma(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> None:
    """``llvm.nvvm.wgmma.fence``/``commit_group``/``wait_group(N)`` ``.sync.aligned``
    (:class:`~llverify.emitted.sim.wgmma.WarpgroupMMA`)."""
    kind = found.group(1)
    if kind == "fence":
        machine.wgmma.fence(mask)
    elif kind == "commit_group":
        machine.wgmma.commit(mask)
    else:
        keep = machine.value(ins.operands[0]).integers(mask, "wait count")
        machine.wgmma.wait(mask, int(keep[np.flatnonzero(mask)[0]]))


# -- cp.async --------------------------------------------------------------------------------------
def _cp_async_commit(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> None:
    machine.commit_async_copies()


def _cp_async_wait(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> None:
    """``wait.group N`` lands all but the newest N committed groups; ``wait.all`` all."""
    keep = 0 if found.group(1) == "all" else int(machine.value(ins.operands[0]).integers()[0])
    machine.wait_async_copies(keep)


def _cp_async_copy(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> None:
    """``llvm.nvvm.cp.async.{ca,cg}.shared.global.N[.s]``: the source is read now, the copy
    lands at a wait (never before); ``.s`` copies ``src_size`` bytes, zero-filling the rest."""
    size = int(found.group(2))
    destination = machine.value(ins.operands[0]).integers(mask, "copy destination")
    source = machine.value(ins.operands[1]).integers(mask, "copy source")
    source_size = np.full(machine.threads, size, dtype=np.int64)
    if found.group(3):
        source_size = machine.value(ins.operands[2]).integers(mask, "copy size").astype(np.int64)
    reading = mask & (source_size > 0)
    data = machine.load_bytes(1, source, size, reading, ins)
    columns = np.arange(size)[None, :]
    data = np.where(columns < source_size[:, None], data, -1)  # the rest is zero-filled
    machine.start_async_copy(destination, data, mask, ins.where)


# -- reductions ------------------------------------------------------------------------------------
_REASSOCIATING = {"reassoc", "fast"}


def _vector_reduce(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> Val:
    """``llvm.vector.reduce.*``: fadd/fmul fold the start value then the elements in order
    (LangRef: ordered unless the call may reassociate, which is not modelled); the others are
    associative and commutative and fold in order too."""
    operation = found.group(1)
    flags = ins.extra.get("flags", ())
    assert isinstance(flags, tuple)
    if _REASSOCIATING & set(flags):
        raise Unmodelled(
            f"llvm.vector.reduce.{operation} with reassociation allowed (order unspecified)"
        )
    operands = [machine.value(o) for o in ins.operands]
    vector_type = ins.operands[-1].type
    assert vector_type.element is not None
    width = nbytes_of(vector_type.element)
    syms = operands[-1].byte_symbols()
    elements = [
        Val(width * 8, syms=syms[:, k * width : (k + 1) * width]).normalised()
        for k in range(vector_type.count)
    ]
    name = {"fmax": "maxnum", "fmin": "minnum"}.get(operation, operation)
    integer = {
        "add": np.add,
        "mul": np.multiply,
        "and": np.bitwise_and,
        "or": np.bitwise_or,
        "xor": np.bitwise_xor,
        "umax": np.maximum,
        "umin": np.minimum,
    }
    if operation in integer and all(e.is_concrete() for e in elements):
        bits = vector_type.element.bits
        with np.errstate(all="ignore"):
            total = integer[operation].reduce(
                np.stack([e.normalised().integers() for e in elements]), axis=0
            )
        return Val.concrete(total, bits, machine.threads)
    if operation in ("fadd", "fmul"):
        accumulator = operands[0]
        rest = elements
    else:
        accumulator, rest = elements[0], elements[1:]
    for element in rest:
        accumulator = machine.data_op(name, [accumulator, element], width)
    return accumulator


def _redux(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """``redux.sync.op`` over a full warp: every lane gets the combine of all 32 lanes' values.
    The integer ops are associative and commutative, so folding in lane order is the value."""
    operation = found.group(1)
    if machine.warp_size != 32 or machine.threads % 32 or not mask.all():
        raise Unmodelled("redux.sync in divergent code or outside 32-lane warps")
    value, member = (machine.value(o) for o in ins.operands)
    if (member.integers(mask, "member mask") & np.uint64(0xFFFFFFFF) != 0xFFFFFFFF).any():
        raise Unmodelled("redux.sync with a partial member mask")
    name = {"min": "smin", "max": "smax"}.get(operation, operation)
    syms = value.byte_symbols()
    base = np.arange(machine.threads) - np.arange(machine.threads) % 32
    accumulator = Val(value.bits, syms=syms[base].copy()).normalised()
    for lane in range(1, 32):
        element = Val(value.bits, syms=syms[base + lane].copy()).normalised()
        accumulator = machine.data_op(name, [accumulator, element], nbytes_of(ins.type))
    return accumulator


def prmt_selectors(selector: int) -> list[int]:
    """Byte sources (0-7 over the two operands) of ``prmt.b32`` in its default mode.

    >>> prmt_selectors(0x3276)
    [6, 7, 2, 3]
    """
    picks = []
    for k in range(4):
        nibble = (selector >> (4 * k)) & 0xF
        if nibble & 0x8:
            raise Unmodelled("prmt with sign replication")
        picks.append(nibble & 0x7)
    return picks


def _bit_op(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """``llvm.bitreverse.iN`` / ``llvm.ctpop.iN`` of a concrete value (index arithmetic: Triton
    reverses the lane bits of a linear layout's index, counts ballot bits in histograms); of
    tagged data, a node."""
    name, bits = found.group(1), int(found.group(2))
    if bits > 64:
        raise Unmodelled(f"llvm.{name}.i{bits}")
    operand = machine.value(ins.operands[0])
    if not operand.is_concrete():
        return machine.data_op(f"{name}.i{bits}", [operand], nbytes_of(ins.type))
    values = machine.value(ins.operands[0]).integers(mask, f"{name} operand")
    out = np.zeros_like(values)
    for k in range(bits):
        bit = (values >> np.uint64(k)) & np.uint64(1)
        out = out + bit if name == "ctpop" else out | (bit << np.uint64(bits - 1 - k))
    return Val.concrete(out, bits, machine.threads)


def _int_minmax(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """``llvm.{s,u}{max,min}.iN`` (exact on concrete values) and ``llvm.abs.iN`` (a node)."""
    name, bits = found.group(1), int(found.group(2))
    operands = [machine.value(o) for o in ins.operands]
    if not all(o.is_concrete() for o in operands) or name == "abs":
        return machine.data_op(
            name, operands[:2] if name != "abs" else operands[:1], nbytes_of(ins.type)
        )
    a, b = (o.normalised().integers() for o in operands)
    if name.startswith("s"):
        sign = np.int64(1 << (bits - 1))
        sa = (a.astype(np.int64) ^ sign) - sign
        sb = (b.astype(np.int64) ^ sign) - sign
        pick_a = sa >= sb if name == "smax" else sa <= sb
    else:
        pick_a = a >= b if name == "umax" else a <= b
    return Val.concrete(np.where(pick_a, a, b), bits, machine.threads)


def _funnel_shift(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> Val:
    """``llvm.fshl.iN`` / ``llvm.fshr.iN`` (LangRef): the concatenation ``a:b`` (``a`` high)
    shifted left (``fshl``: its high half) or right (``fshr``: its low half) by the amount
    modulo N; exact on concrete values, a node of tagged data."""
    name, bits = found.group(1), int(found.group(2))
    operands = [machine.value(o) for o in ins.operands]
    if bits > 64 or not all(o.is_concrete() for o in operands):
        return machine.data_op(name, operands, nbytes_of(ins.type))
    a, b, amount = (o.normalised().integers() for o in operands)
    out = []
    for x, y, z in zip(a.tolist(), b.tolist(), amount.tolist()):
        joined = (int(x) << bits) | int(y)
        shift = int(z) % bits
        if name == "fshl":
            out.append((joined << shift) >> bits)
        else:
            out.append(joined >> shift)
    values = np.array([v & ((1 << bits) - 1) for v in out], dtype=np.uint64)
    return Val.concrete(values, bits, machine.threads)


# The values ``__nvvm_reflect`` folds to (LLVM's NVVMReflect pass): the argument names a
# module flag; a name of none of these is unmodelled.
_REFLECT_FLAGS = {"__CUDA_FTZ": "nvvm-reflect-ftz", "__CUDA_PREC_SQRT": "nvvm-reflect-prec-sqrt"}


def _reflect(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """``__nvvm_reflect("NAME")`` / ``llvm.nvvm.reflect``, as LLVM's NVVMReflect pass folds
    it before code generation: ``__CUDA_FTZ`` is the module flag ``nvvm-reflect-ftz`` (0 when
    the module has none), ``__CUDA_PREC_SQRT`` the flag ``nvvm-reflect-prec-sqrt`` (unmodelled
    when absent: its default differs between LLVM releases), ``__CUDA_ARCH`` the SM version
    times 10 from the module's ``"target-cpu"="sm_XX"`` (unmodelled when the module does not
    name it).  Any other name is unmodelled (a value given on LLVM's command line)."""
    module = machine.module
    name = _reflected_name(ins.operands[0] if ins.operands else None, module.strings)
    if name == "__CUDA_FTZ":
        value = module.flags.get("nvvm-reflect-ftz", 0)
    elif name == "__CUDA_PREC_SQRT" and "nvvm-reflect-prec-sqrt" in module.flags:
        value = module.flags["nvvm-reflect-prec-sqrt"]
    elif name == "__CUDA_ARCH" and module.target_cpu.startswith("sm_"):
        value = int(re.sub(r"\D", "", module.target_cpu)) * 10
    else:
        raise Unmodelled(f"__nvvm_reflect of {name!r} (not folded by a known rule)")
    return Val.concrete(value & 0xFFFFFFFF, bits_of(ins.type), machine.threads)


def _reflected_name(operand: Value | None, strings: dict[str, bytes]) -> str | None:
    """The string a reflect argument points at: a constant global's ``c"..."`` bytes up to
    the NUL, through address-space casts and a zero ``getelementptr``; None when it is not."""
    while operand is not None and operand.text in ("addrspacecast", "bitcast", "gep"):
        if operand.text == "gep":
            if any(e.text not in ("0",) for e in operand.elements[2:]):
                return None
            operand = operand.elements[1]
        else:
            operand = operand.elements[0]
    if operand is None or operand.text not in strings:
        return None
    return strings[operand.text].split(b"\0", 1)[0].decode("latin-1")


def _pure_external(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> Val:
    """A call of a pure function the module only declares (libdevice's ``__nv_*`` math of
    scalars, not inlined): an uninterpreted function of its operands, one node per thread.
    A callee the module defines, a void one, or one taking a pointer (``__nv_sincosf``,
    ``__nv_frexpf`` write through it) is unmodelled."""
    callee = found.string
    if callee in machine.module.functions or ins.type.kind in ("void", "ptr"):
        raise Unmodelled(f"call to {callee}")
    if any(o.type.kind == "ptr" for o in ins.operands):
        raise Unmodelled(f"call to {callee} (a pointer operand)")
    operands = [machine.value(o) for o in ins.operands]
    return machine.data_op(callee, operands, nbytes_of(ins.type))


def math_runs(instructions: list[Instruction]) -> dict[int, tuple[int, int | None]]:
    """The runs of ``instructions`` (a block's) that :meth:`Dag.apply_run
    <llverify.emitted.sim.symbolic.Dag.apply_run>` may make at once: consecutive scalar
    calls of one non-commutative per-thread math intrinsic (``llvm.fmuladd.f32``, a
    matmul's inner loop), at least two, either none reading a result of another or a
    chain, each after the first reading the one before's result as its operand ``p``
    and no other result of the run; each member's position, to the end of its run and
    ``p`` (None for independent calls).

    >>> from llverify.emitted.sim.llvm_ir import parse_llvm_ir
    >>> text = '''define void @k(float %a, float %b) {
    ...   %1 = call float @llvm.fmuladd.f32(float %a, float %b, float %a)
    ...   %2 = call float @llvm.fmuladd.f32(float %b, float %a, float %b)
    ...   %3 = call float @llvm.fmuladd.f32(float %a, float %b, float %2)
    ...   %4 = call float @llvm.fmuladd.f32(float %a, float %b, float %3)
    ...   ret void
    ... }'''
    >>> math_runs(parse_llvm_ir(text).functions["k"].blocks[0].instructions)
    {0: (2, None), 1: (2, None), 2: (4, 2), 3: (4, 2)}
    """
    runs: dict[int, tuple[int, int | None]] = {}
    start, callee = 0, None
    kind: int | None = -1  # -1: one call so far
    made: set[str | None] = set()
    for position, instruction in enumerate([*instructions, None]):
        name = None if instruction is None else _run_callee(instruction)
        if instruction is not None and name is not None and name == callee:
            reads = [k for k, o in enumerate(instruction.operands) if o.text in made]
            previous = instructions[position - 1].result
            chained = len(reads) == 1 and instruction.operands[reads[0]].text == previous
            step = None if not reads else reads[0] if chained else -2
            if step != -2 and kind in (-1, step):
                kind = step
                made.add(instruction.result)
                continue
        if position - start >= 2:
            runs.update(dict.fromkeys(range(start, position), (position, kind)))
        start, callee, kind = position, name, -1
        made = {instruction.result} if instruction is not None and name is not None else set()
    return runs


def _run_callee(ins: Instruction) -> str | None:
    """The callee of ``ins`` when it is a scalar call of a non-commutative per-thread math
    intrinsic (a member of a :func:`math_runs` run), else None."""
    callee = ins.extra.get("callee") if ins.opcode == "call" else None
    if not isinstance(callee, str) or ins.result is None or ins.type.kind != "float":
        return None
    callee = callee.lstrip("@")
    family = _family(callee)
    if family is None or family[0] is not _math or canonical_op(callee) in COMMUTATIVE:
        return None
    if not ins.operands or any(o.type.kind != "float" for o in ins.operands):
        return None
    return callee


def _math(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """Per-thread float math (``llvm.fma``, ``llvm.maxnum``, ``llvm.nvvm.*`` math...): a node."""
    operands = [machine.value(o) for o in ins.operands]
    return machine.data_op(found.string, operands, nbytes_of(ins.type))


# -- AMD lanes -------------------------------------------------------------------------------------
def _lanes(machine: Machine) -> tuple[np.ndarray, np.ndarray]:
    """Each thread's lane, and the first thread of its wave."""
    tid = np.arange(machine.threads, dtype=np.int64)
    lane = tid % machine.warp_size
    return lane, tid - lane


def _operands(machine: Machine, ins: Instruction) -> list[Val]:
    return [machine.value(o) for o in ins.operands]


def _readfirstlane(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> Val:
    """Every lane gets the value of the first active lane of its wave."""
    operands = _operands(machine, ins)
    _, base = _lanes(machine)
    syms = operands[0].byte_symbols()
    first = np.array(
        [np.flatnonzero(mask[b : b + machine.warp_size])[:1] for b in base], dtype=object
    )
    source = np.array([b + (f[0] if len(f) else 0) for b, f in zip(base, first)], dtype=np.int64)
    return Val(operands[0].bits, syms=syms[source].copy()).normalised()


def _readlane(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    operands = _operands(machine, ins)
    _, base = _lanes(machine)
    which = operands[1].integers(mask, "readlane lane").astype(np.int64) % machine.warp_size
    syms = operands[0].byte_symbols()
    return Val(operands[0].bits, syms=syms[base + which].copy()).normalised()


def _bpermute(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """``ds_bpermute``: each lane reads the lane its byte address names (an inactive one:
    undefined)."""
    operands = _operands(machine, ins)
    _, base = _lanes(machine)
    address = operands[0].integers(mask, "bpermute address").astype(np.int64)
    source = base + (address // 4) % machine.warp_size
    syms = operands[1].byte_symbols()
    out = syms[source].copy()
    out[~mask[source]] = UNDEFINED
    return Val(operands[1].bits, syms=out).normalised()


def _dpp(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """``update.dpp`` (with ``old``) and ``mov.dpp``: the lane the control word names, where
    the row and bank masks enable the lane; ``bound_ctrl`` reads 0 from a lane with no source."""
    operands = _operands(machine, ins)
    lane, base = _lanes(machine)
    if found.group(1) == "update":
        old, src = operands[0], operands[1]
        control, row_mask, bank_mask, bound = (int(o.integers()[0]) for o in operands[2:6])
    else:
        src = operands[0]
        old = Val(src.bits, syms=np.full_like(src.byte_symbols(), UNDEFINED))
        control, row_mask, bank_mask, bound = (int(o.integers()[0]) for o in operands[1:5])
    source_lane = _dpp_sources(control, lane)
    row_enabled = ((row_mask >> ((lane // 16) % 4)) & 1).astype(bool)
    bank_enabled = ((bank_mask >> ((lane % 16) // 4)) & 1).astype(bool)
    written = row_enabled & bank_enabled
    valid = (source_lane >= 0) & (source_lane < machine.warp_size)
    source = base + np.clip(source_lane, 0, machine.warp_size - 1)
    valid &= mask[source]
    syms = src.byte_symbols()
    fallback = np.full_like(syms, -1) if bound else old.byte_symbols()  # bound_ctrl: read 0
    fetched = np.where(valid[:, None], syms[source], fallback)
    out = np.where(written[:, None], fetched, old.byte_symbols())
    return Val(src.bits, syms=out).normalised()


def _ballot(machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray) -> Val:
    """Every lane gets the wave's mask of active lanes whose predicate is set."""
    operands = _operands(machine, ins)
    lane, _ = _lanes(machine)
    predicate = operands[0].integers(mask, "ballot predicate") & np.uint64(1)
    taken = np.where(mask, predicate, np.uint64(0)) << lane.astype(np.uint64)
    words = np.bitwise_or.reduce(taken.reshape(-1, machine.warp_size), axis=1)
    return Val.concrete(np.repeat(words, machine.warp_size), ins.type.bits, machine.threads)


def _permlanex16_call(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> Val:
    lane, base = _lanes(machine)
    return _permlanex16(_operands(machine, ins), lane, base, mask)


def _permlane32_swap_call(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> Val:
    lane, base = _lanes(machine)
    return _permlane32_swap(_operands(machine, ins), lane, base, mask, machine.warp_size)


def _dpp_sources(control: int, lane: np.ndarray) -> np.ndarray:
    """Source lane of each lane for a DPP control word (-1: no source, the lane keeps ``old``)."""
    row_base = lane - lane % 16
    in_row = lane % 16
    if control <= 0xFF:  # quad_perm
        quad = lane % 4
        selector = (control >> (2 * quad)) & 3
        return lane - quad + selector
    if 0x101 <= control <= 0x10F:  # row_shl
        shift = control - 0x100
        return np.where(in_row + shift < 16, lane + shift, -1)
    if 0x111 <= control <= 0x11F:  # row_shr
        shift = control - 0x110
        return np.where(in_row - shift >= 0, lane - shift, -1)
    if 0x121 <= control <= 0x12F:  # row_ror
        shift = control - 0x120
        return row_base + (in_row - shift) % 16
    if control == 0x140:  # row_mirror
        return row_base + 15 - in_row
    if control == 0x141:  # row_half_mirror
        return lane - lane % 8 + 7 - lane % 8
    if control == 0x142:  # row_bcast:15: the last lane of the previous row
        return np.where(lane >= 16, row_base - 1, -1)
    if control == 0x143:  # row_bcast:31
        return np.where(lane >= 32, 31, -1)
    if 0x150 <= control <= 0x15F:  # row_share:n (GFX10+): every lane reads lane n of its row
        return row_base + (control - 0x150)
    if 0x160 <= control <= 0x16F:  # row_xmask:n (GFX10+): lane i of a row reads lane i ^ n
        return row_base + (in_row ^ (control - 0x160))
    raise Unmodelled(f"DPP control 0x{control:x}")


def _permlanex16(operands: list[Val], lane: np.ndarray, base: np.ndarray, mask: np.ndarray) -> Val:
    """``v_permlanex16_b32`` (RDNA ISA): lane ``16 r + i`` reads lane ``lanesel[i]`` of the
    other row of its pair (``16 (r ^ 1)``), ``lanesel`` being the 4-bit fields of the 64-bit
    ``{src2, src1}``.  A read of an inactive lane is unmodelled (it depends on ``fi`` and
    ``bound_ctrl``)."""
    old, src = operands[0], operands[1]
    low = operands[2].integers(mask, "permlanex16 lane select")
    high = operands[3].integers(mask, "permlanex16 lane select")
    select = (high.astype(np.uint64) << np.uint64(32)) | low.astype(np.uint64)
    field = (select >> ((lane % 16) * 4).astype(np.uint64)) & np.uint64(0xF)
    source = base + ((lane // 16) ^ 1) * 16 + field.astype(np.int64)
    if (mask & ~mask[source]).any():
        raise Unmodelled("permlanex16 reading an inactive lane")
    out = np.where(mask[:, None], src.byte_symbols()[source], old.byte_symbols())
    return Val(src.bits, syms=out).normalised()


def _permlane32_swap(
    operands: list[Val], lane: np.ndarray, base: np.ndarray, mask: np.ndarray, warp: int
) -> Val:
    """``v_permlane32_swap_b32`` (CDNA4 ISA): lanes 32-63 of ``vdst`` and lanes 0-31 of
    ``src0`` swap; the result is ``{new vdst, new src0}``.  Inactive lanes: unmodelled."""
    if warp != 64 or not mask.all():
        raise Unmodelled("permlane32.swap outside a full 64-lane wave")
    vdst, src0 = operands[0].byte_symbols(), operands[1].byte_symbols()
    upper = lane >= 32
    new_vdst = np.where(upper[:, None], src0[base + lane - 32 * upper], vdst)
    new_src0 = np.where(upper[:, None], src0, vdst[base + (lane + 32) % 64])
    bits = operands[0].bits + operands[1].bits
    return Val(bits, syms=np.concatenate([new_vdst, new_src0], axis=1))


def _permlane16_swap_call(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> Val:
    lane, base = _lanes(machine)
    return _permlane16_swap(_operands(machine, ins), lane, base, mask, machine.warp_size)


def _permlane16_swap(
    operands: list[Val], lane: np.ndarray, base: np.ndarray, mask: np.ndarray, warp: int
) -> Val:
    """``v_permlane16_swap_b32`` (CDNA4): the odd rows of ``vdst`` swap with the even rows of
    ``src0`` (a row is 16 lanes), lane for lane: lane ``16 (2 p + 1) + i`` of ``vdst`` and
    lane ``16 (2 p) + i`` of ``src0`` exchange their values; the even rows of ``vdst`` and
    the odd rows of ``src0`` stay.  The result is ``{new vdst, new src0}``.

    Source: LLVM's ``llvm.amdgcn.permlane16.swap`` (IntrinsicsAMDGPU.td, the text Rust's
    ``core::arch::amdgpu::permlane16_swap`` repeats): "Odd rows of the first operand are
    swapped with even rows of the second operand (one row is 16 lanes).  Returns a pair for
    the swapped registers.  The first element of the return corresponds to the swapped
    element of the first argument."  The sibling ``permlane32.swap`` (rows 2, 3 of the
    first with rows 0, 1 of the second) pairs its rows lane for lane the same way.
    Inactive lanes (the EXEC mask is not all ones) and waves of other than 64 lanes stay
    unmodelled.

    >>> lane, base = np.arange(64), np.zeros(64, dtype=np.int64)
    >>> vdst = Val(32, syms=np.repeat(np.arange(64)[:, None], 4, axis=1))  # lane t: t
    >>> src0 = Val(32, syms=np.repeat(100 + np.arange(64)[:, None], 4, axis=1))  # 100 + t
    >>> out = _permlane16_swap([vdst, src0], lane, base, np.ones(64, bool), 64).byte_symbols()
    >>> [int(out[t, 0]) for t in (0, 16, 32, 48)], [int(out[t, 4]) for t in (0, 16, 32, 48)]
    ([0, 100, 32, 132], [16, 116, 48, 148])
    """
    if warp != 64 or not mask.all():
        raise Unmodelled("permlane16.swap outside a full 64-lane wave")
    vdst, src0 = operands[0].byte_symbols(), operands[1].byte_symbols()
    odd = (lane // 16) % 2 == 1
    new_vdst = np.where(odd[:, None], src0[base + lane - 16 * odd], vdst)
    new_src0 = np.where(odd[:, None], src0, vdst[base + np.where(odd, lane, lane + 16)])
    bits = operands[0].bits + operands[1].bits
    return Val(bits, syms=np.concatenate([new_vdst, new_src0], axis=1))


# -- CDNA4 transposed LDS reads --------------------------------------------------------------------
def transposed_read_sources(lane: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """For a CDNA4 ``ds_read_b64_tr_b<bits>`` (``bits`` 8 or 16), element ``j`` of the result of
    each thread of ``lane`` (thread ids, waves of 64 in order): the thread whose 64-bit read
    supplies it, and which element of that read it is; both of shape (T, 64 // bits).

    The 16 lanes of a block (lanes ``16 g .. 16 g + 15``) each read 64 bits, ``n = 64 / bits``
    elements, at their own address.  Laid end to end in lane order the 16 reads are an
    ``n x 16`` matrix ``M`` (row ``k`` is elements ``16 k .. 16 k + 15``: lane ``s`` holds
    ``M[s // (16 / n)][n (s % (16 / n)) ..]``), and the instruction transposes it: lane ``r``
    of the block receives column ``r`` of ``M``, so its element ``j`` is ``M[j][r]``, element
    ``(16 j + r) % n`` of lane ``16 g + (16 j + r) // n``.  For b16: lane ``16 g + 4 j + r // 4``,
    element ``r % 4``; for b8: lane ``16 g + 2 j + r // 8``, element ``r % 8``.

    Sources.  AMD CDNA4 ISA, section 11.4 "MFMA Transpose Load from LDS" (as quoted in
    public kernel sources): "Read N bits of data per lane from data share.  Interpret the
    data as a matrix with 16 bit elements and transpose the matrix"; DS_READ_B64_TR_B16
    loads "column major matrix A or row major matrix B ... Each lane (one VGPR) holds 4
    consecutive M or N values", the first of two instructions K = 0..3 and 8..11.  AMD's
    ROCm reference for ``__builtin_amdgcn_ds_read_tr*`` ("CDNA4 MFMA transpose load
    intrinsics"): B is stored row-major in LDS and the load "distributes each column to
    the corresponding lane's VGPRs", with the same K split (tr8: 0..7, 16..23, ...).  These
    fix that a 16-lane block's reads are one matrix whose columns go to the lanes; the
    order of the rows among the source lanes (row ``k`` from lanes ``16 k / n ..``, the
    16 lanes covering ``M`` in lane order) is the one Modular's documentation of the same
    intrinsics states ("each 16-lane row loads a 4x16 tile ... each lane gets a column";
    tr8: "16x8 bytes ... two interleaved 8x8 byte transposes", which this mapping is, with
    even lanes reading columns 0-7 and odd lanes 8-15) and a public gfx950 kernel whose
    comment says it was measured (``lane * 4`` base addresses: lane ``r`` of block ``g``
    gets ``tile[(4 g + i) * 16 + r]``); the AMD texts found do not spell the row order
    out.  The validation of Triton 3.9's gfx950 matmuls cross-checks it: with this mapping
    their dot-operand loads are proved; with the rows taken in the other order (lane
    ``16 g + j + n (r // n)``), or the 16 x n reads transposed and dealt out n per lane,
    they are refuted.

    >>> lane = np.arange(16)
    >>> lanes, elements = transposed_read_sources(lane, 16)
    >>> lanes[5].tolist(), elements[5].tolist()  # lane 5: column 5 = lane 1, 5, 9, 13, element 1
    ([1, 5, 9, 13], [1, 1, 1, 1])
    >>> lanes, elements = transposed_read_sources(lane, 8)
    >>> lanes[9].tolist(), elements[9].tolist()
    ([1, 3, 5, 7, 9, 11, 13, 15], [1, 1, 1, 1, 1, 1, 1, 1])
    """
    if bits not in (8, 16):
        raise ValueError(f"transposed read element bits: got {bits}, expected 8 or 16")
    n = 64 // bits
    lane = np.asarray(lane, dtype=np.int64)
    flat = 16 * np.arange(n, dtype=np.int64)[None, :] + (lane % 16)[:, None]
    return (lane - lane % 16)[:, None] + flat // n, flat % n


def _transposed_read(
    machine: Machine, ins: Instruction, found: re.Match[str], mask: np.ndarray
) -> Val:
    """``llvm.amdgcn.ds.read.tr{8,16}.b64`` (CDNA4 ``ds_read_b64_tr_b8/b16``): every lane reads
    8 bytes of shared memory at its address, and each 16-lane block transposes the 16 reads
    (:func:`transposed_read_sources`).  The ISA requires EXEC to be all ones: a read in
    divergent code, or in a wave of other than 64 lanes, is unmodelled; so are ``tr4`` and
    ``tr6`` (4- and 6-bit elements, below the executor's byte granularity)."""
    bits = int(found.group(1))
    if bits not in (8, 16):
        raise Unmodelled(f"ds.read.tr{bits} (sub-byte elements)")
    if machine.warp_size != 64 or not mask.all():
        raise Unmodelled(f"ds.read.tr{bits}.b64 outside a full 64-lane wave")
    addresses = machine.value(ins.operands[0]).integers(mask, "ds.read.tr address")
    read = machine.load_bytes(3, addresses, 8, mask, ins)
    source, element = transposed_read_sources(np.arange(machine.threads), bits)
    width = bits // 8
    byte = (element * width)[:, :, None] + np.arange(width)[None, None, :]
    rows = np.broadcast_to(source[:, :, None], byte.shape)
    out = read[rows, byte].reshape(machine.threads, 8)
    return Val(64, syms=out).normalised()


def pure_call(callee: str, ins: Instruction, module: object) -> bool:
    """Whether a call of ``callee`` only computes its result from its operands (no memory,
    no other lane, no synchronisation): the math, bit and reflect families, special
    registers, ``llvm.assume`` and declared libdevice functions of scalars."""
    found = _family(callee.lstrip("@"))
    if found is None:
        return False
    handler = found[0]
    if handler is _pure_external:
        defined = getattr(module, "functions", {})
        return (
            callee.lstrip("@") not in defined
            and ins.type.kind not in ("void", "ptr")
            and not any(o.type.kind == "ptr" for o in ins.operands)
        )
    return handler in _PURE or callee.lstrip("@") == "llvm.assume"


# -- the families ----------------------------------------------------------------------------------
def _names(*names: str) -> str:
    """A pattern matching exactly one of ``names``."""
    return "(?:" + "|".join(re.escape(name) for name in names) + r")\Z"


def _prefixes(*prefixes: str) -> str:
    """A pattern matching every name that starts with one of ``prefixes``."""
    return "(?:" + "|".join(re.escape(prefix) for prefix in prefixes) + ")"


# NVVM intrinsics that exchange data between lanes or touch memory: never per-thread math
_NOT_MATH = (
    r"llvm\.nvvm\.(?:\w+\.sync|vote|match|redux|shfl|ld|st|cp\.|mbarrier|wgmma|"
    r"tcgen05|mapa|prmt|atom|bar|fence|elect|cluster|getctarank|isspacep|cvta)"
)
_MATH = (
    r"(?!llvm\.nvvm\.read)(?!" + _NOT_MATH + r")llvm\.(maxnum|minnum|maximum|minimum|fma|fmuladd|"
    r"fabs|sqrt|exp2|log2|nvvm\.\w+|copysign|floor|ceil|trunc|round|rint|canonicalize)\b"
)

# Families whose vector forms are their scalar semantics on each element
_ELEMENTWISE = frozenset({_bit_op, _int_minmax, _math, _funnel_shift})

# Families that compute their result from their operands alone
_PURE = frozenset(
    {_math, _reflect, _funnel_shift, _bit_op, _int_minmax, _special_register, _vector_reduce}
)

# The families in order: the first whose pattern matches the callee (from its start) decides.
_FAMILIES: tuple[tuple[re.Pattern[str], _Intrinsic], ...] = tuple(
    (re.compile(pattern), handler)
    for pattern, handler in (
        (r"llvm\.nvvm\.read\.ptx\.sreg\.([\w.]+?)(?:\.([xyz]))?\Z", _special_register),
        (_names("llvm.amdgcn.workitem.id.x"), _workitem_x),
        (_names("llvm.amdgcn.workgroup.id.x"), _workgroup_x),
        (
            _names("llvm.amdgcn.workitem.id.y", "llvm.amdgcn.workitem.id.z")
            + "|"
            + _prefixes("llvm.amdgcn.workgroup.id."),
            _zero_id,
        ),
        (
            _names(
                "llvm.nvvm.barrier0",
                "llvm.nvvm.barrier.cta.sync.aligned.all",
                "llvm.nvvm.barrier.cta.sync.aligned",
                "llvm.nvvm.bar.sync",
                "llvm.nvvm.barrier.sync",
                "llvm.amdgcn.s.barrier",
            ),
            _cta_barrier,
        ),
        (_prefixes("llvm.nvvm.barrier.cluster."), _cluster_barrier),
        (
            _prefixes(
                "llvm.assume",
                "llvm.amdgcn.wave.barrier",
                "llvm.lifetime.",
                "llvm.nvvm.fence.",
                "llvm.nvvm.membar",
                "llvm.nvvm.bar.warp.sync",
                "llvm.amdgcn.s.waitcnt",
                "llvm.amdgcn.sched.",
                "llvm.amdgcn.s.setprio",
                "llvm.amdgcn.fence",
                "llvm.experimental.noalias",
                "llvm.dbg.",
            ),
            _no_op,
        ),
        (r"llvm\.nvvm\.shfl\.sync\.(idx|up|down|bfly)\.(i32|f32)(p?)\Z", _shuffle),
        (r"llvm\.nvvm\.ldmatrix\.sync\.aligned\.m8n8\.x(\d)(\.trans)?\.b16", _ldmatrix),
        (r"llvm\.nvvm\.stmatrix\.sync\.aligned\.m8n8\.x(\d)(\.trans)?\.b16", _stmatrix),
        (r"llvm\.nvvm\.wgmma\.(fence|commit_group|wait_group)\.sync\.aligned\Z", _wgmma),
        (_names("llvm.nvvm.cp.async.commit.group"), _cp_async_commit),
        (r"llvm\.nvvm\.cp\.async\.wait\.(group|all)\Z", _cp_async_wait),
        (r"llvm\.nvvm\.cp\.async\.(ca|cg)\.shared\.global\.(\d+)(\.s)?\Z", _cp_async_copy),
        (
            r"llvm\.vector\.reduce\.(fadd|fmul|add|mul|and|or|xor|smax|smin|umax|umin|fmax|fmin|"
            r"fmaximum|fminimum)\.v\d+\w+\Z",
            _vector_reduce,
        ),
        (_names("llvm.nvvm.prmt"), _prmt),
        (r"llvm\.(bitreverse|ctpop)\.i(\d+)\Z", _bit_op),
        (r"llvm\.(smax|smin|umax|umin|abs)\.i(\d+)", _int_minmax),
        (_prefixes("llvm.amdgcn.readfirstlane"), _readfirstlane),
        (_prefixes("llvm.amdgcn.readlane"), _readlane),
        (_prefixes("llvm.amdgcn.ds.bpermute"), _bpermute),
        (r"llvm\.amdgcn\.(update|mov)\.dpp", _dpp),
        (_prefixes("llvm.amdgcn.ballot"), _ballot),
        (_prefixes("llvm.amdgcn.permlanex16"), _permlanex16_call),
        (_prefixes("llvm.amdgcn.permlane32.swap"), _permlane32_swap_call),
        (_prefixes("llvm.amdgcn.permlane16.swap"), _permlane16_swap_call),
        (r"llvm\.amdgcn\.ds\.read\.tr(\d+)\.b\d+", _transposed_read),
        (r"llvm\.nvvm\.redux\.sync\.(add|min|max|umin|umax|and|or|xor)\Z", _redux),
        (_names("__nvvm_reflect", "llvm.nvvm.reflect"), _reflect),
        (_MATH, _math),
        (r"llvm\.(fshl|fshr)\.i(\d+)\Z", _funnel_shift),
        (r"__nv_[a-z0-9_]+\Z", _pure_external),
    )
)
