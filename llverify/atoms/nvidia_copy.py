"""The NVIDIA copy atoms beyond the sm75/sm90 ldmatrix/stmatrix .b16: the sm100/sm120 8-bit
``ldmatrix``/``stmatrix`` forms (CuTe's ``SM100_*_LDSM_*`` and ``SM100_*_STSM_T``),
``cp.async`` (CuTe's ``SM80_CP_ASYNC_CACHEALWAYS``/``CACHEGLOBAL`` and their ``_ZFILL`` forms:
one thread copies 4, 8 or 16 bytes) and the warp shuffles ``shfl.sync`` idx/up/down/bfly (lane
maps with parameters, :mod:`llverify.atoms.shuffle`).

A cp.async fragment is CuTe's thread-value layout (``copy_traits_sm80.hpp``: one thread,
``sizeof_bits`` values, in bits, upcast here to bytes) over the copied chunk, a 1 x cp-size
row of bytes; it is proved against the PTX ISA's ``cp.async`` (cp-size bytes, in order).

An 8-bit ldmatrix/stmatrix fragment is stated in the instruction's own terms: ``dim0`` the
shared-memory row (the row whose start address thread ``dim0`` supplies, the PTX ISA's
address table), ``dim1`` the 8-bit element in that row, ``register`` the byte of the
thread's registers (register ``r / 4``, byte ``r % 4``); the matrices stacked along the rows.
It comes from CuTe's ``copy_traits_sm100.hpp``: the element a destination (thread, value)
holds is found in the source layout (which thread's row, which byte of it), and for
``SM100_U8x8_LDSM_T``/``SM100_U8x16_LDSM_T`` CuTe's byte shuffle after the instruction
(``copy_sm100.hpp``: ``dst0 = {tmp0.x, tmp0.y, tmp1.x, tmp1.y}``, ...) is undone, so the
fragment is the raw instruction's.

Examples:
    >>> found = [a for a in atoms() if a.family == "cp.async"]
    >>> [a.name for a in found][:3]
    ['SM80_CP_ASYNC_CACHEALWAYS_U32', 'SM80_CP_ASYNC_CACHEALWAYS_U64', 'SM80_CP_ASYNC_CACHEALWAYS_U128']
    >>> str(found[2].operand("fragment").tv())
    '(1, 16):(0, 1)'
    >>> ld = [a for a in _b8_matrices() if a.name == "SM100_U8x8_LDSM_T"][0]
    >>> ld.instruction, ld.operand("fragment").shape
    ('ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8', (16, 16))
    >>> ld.operand("fragment").layout().apply({"register": 5, "lane": 6})  # r1 byte 1
    {'dim0': 9, 'dim1': 9}
"""  # noqa: E501 - the doctest's output is one line

from __future__ import annotations

from typing import Any

from llverify.atoms.catalogue import Atom, Operand
from llverify.atoms.shuffle import INTRINSICS, MODES

__all__ = ["atoms"]

_CP_ASYNC = "CUTLASS include/cute/atom/copy_traits_sm80.hpp (SrcLayout/DstLayout in bits, " \
    "upcast to bytes; ThrID one thread)"  # fmt: skip
_GUIDE = "CUDA C++ Programming Guide, 'Warp Shuffle Functions'"


_LDSM_B8 = "CUTLASS include/cute/atom/copy_traits_sm100.hpp (SrcLayout, DstLayout in bits: the " \
    "shared-memory row and byte of each register byte){}"  # fmt: skip
_SHUFFLE = "; the byte shuffle of include/cute/arch/copy_sm100.hpp undone"
#: CuTe's SM100_U8x*_LDSM_T copy op permutes the bytes after ldmatrix: its value ``v`` (byte
#: ``v % 8`` of register pair ``v / 8``) is the instruction's byte ``_UNSHUFFLE[v % 8]``.
_UNSHUFFLE = (0, 1, 4, 5, 2, 3, 6, 7)
#: name -> (PTX instruction, family, reference, rows, the shared-memory side (ldmatrix's
#: SrcLayout, stmatrix's DstLayout), the register side (DstLayout, SrcLayout), shuffled)
_B8 = {
    "SM100_U8x8_LDSM_T": (
        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8", "ldmatrix",
        "ldmatrix.m16n16.b8.trans.stacked", 16,
        "((2,2,4,2),128):((128,1024,256,0),1)",
        "((4,8),(8,2,2,2)):((256,8),(1,128,64,1024))", True),
    "SM100_U8x16_LDSM_T": (
        "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8", "ldmatrix",
        "ldmatrix.m16n16.b8.trans.stacked", 32,
        "((2,2,4,2),128):((128,1024,256,2048),1)",
        "((4,8),(8,2,2,4)):((256,8),(1,128,64,1024))", True),
    **{
        f"SM100_SU{bits}_DU8x16_x{n}_LDSM_N": (
            f"ldmatrix.sync.aligned.m8n16.x{n}.shared.b8x16.{fmt}", "ldmatrix",
            "ldmatrix.m8n16.b8x16.stacked", 8 * n,
            f"(({8 * n},{4 // n}),128):((128,0),1)" if n < 4 else "(32,128):(128,1)",
            "(32,32):(32,1)" if n == 1 else f"(32,(32,{n})):(32,(1,1024))", False)
        for n in (1, 2, 4)
        for bits, fmt in ((4, "b4x16_p64"), (6, "b6x16_p32"))
    },
    "SM100_U8x4_STSM_T": (
        "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8", "stmatrix",
        "stmatrix.m16n8.b8.trans.stacked", 8,
        "((8,4),128):((128,0),1)", "((4,8),(8,2,2)):((256,8),(1,128,64))", False),
    "SM100_U8x8_STSM_T": (
        "stmatrix.sync.aligned.m16n8.x2.trans.shared.b8", "stmatrix",
        "stmatrix.m16n8.b8.trans.stacked", 16,
        "((16,2),128):((128,0),1)", "((4,8),(8,2,2,2)):((256,8),(1,128,64,1024))", False),
    "SM100_U8x16_STSM_T": (
        "stmatrix.sync.aligned.m16n8.x4.trans.shared.b8", "stmatrix",
        "stmatrix.m16n8.b8.trans.stacked", 32,
        "(32,128):(128,1)", "((4,8),(8,2,2,4)):((256,8),(1,128,64,1024))", False),
}  # fmt: skip


def _in_rows(memory_bits: str, register_bits: str, rows: int, shuffled: bool) -> str:
    """CuTe's register-side layout (bits) as a TV layout over the shared-memory tile
    (``byte + 16 * row``, the row being the thread whose address starts it): each register
    byte's CuTe index is looked up in the memory-side layout (the lowest thread that owns
    it); ``shuffled``: the register bytes in the instruction's order, not CuTe's."""
    from llverify.cute import parse

    memory, registers = parse(memory_bits), parse(register_bits)
    owner: dict[int, int] = {}
    for thread in range(memory[0].size()):
        for bit in range(0, memory[1].size(), 8):
            owner.setdefault(memory(thread, bit), 16 * thread + bit // 8)
    threads, values = registers[0].size(), registers[1].size() // 8

    def tile(thread: int, value: int) -> int:
        if shuffled:  # the instruction's byte ``value`` is CuTe's value ``cute``
            cute = 8 * (value // 8) + _UNSHUFFLE.index(value % 8)
        else:
            cute = value
        return owner[registers(thread, 8 * cute)]

    def strides(size: int, at: Any) -> list[int]:
        return [at(1 << bit) for bit in range(size.bit_length() - 1)]

    thread_strides = strides(threads, lambda t: tile(t, 0) - tile(0, 0))
    value_strides = strides(values, lambda v: tile(0, v) - tile(0, 0))
    assert tile(0, 0) == 0 and rows * 16 == threads * values
    for thread in range(threads):  # a sum of bit strides everywhere: a CuTe layout
        for value in range(values):
            expected = sum(s for b, s in enumerate(thread_strides) if thread >> b & 1)
            expected += sum(s for b, s in enumerate(value_strides) if value >> b & 1)
            assert tile(thread, value) == expected, (thread, value)
    shape = ",".join("2" for _ in thread_strides), ",".join("2" for _ in value_strides)
    return (
        f"(({shape[0]}),({shape[1]})):(({','.join(map(str, thread_strides))}),"
        f"({','.join(map(str, value_strides))}))"
    )


def _b8_matrices() -> list[Atom]:
    """The 8-bit ldmatrix (m16n16 .trans .b8, m8n16 .b8x16 with 4- and 6-bit sources) and
    stmatrix (m16n8 .trans .b8) atoms of sm100/sm120."""
    result = []
    for name, (instruction, family, reference, rows, memory, registers, shuffled) in _B8.items():
        tv = _in_rows(memory, registers, rows, shuffled)
        alias = instruction.replace(".sync.aligned", "").replace(".shared", "")
        result.append(
            Atom(
                name,
                family,
                instruction,
                ("sm100a", "sm120a"),
                None,
                (Operand("fragment", (rows, 16), reference, tv),),
                _LDSM_B8.format(_SHUFFLE if shuffled else ""),
                (alias,),
            )
        )
    return result


def _cp_async() -> list[Atom]:
    """cp.async.ca (4, 8, 16 bytes) and cp.async.cg (16 bytes), with and without zero-fill."""
    from llverify.cute import parse, upcast

    result = []
    for cache, ptx, sizes in (("CACHEALWAYS", "ca", (4, 8, 16)), ("CACHEGLOBAL", "cg", (16,))):
        for zfill in (False, True):
            for size in sizes:
                tv = str(upcast(parse(f"(1,{8 * size}):(0,1)"), 8))
                fragment = Operand("fragment", (1, size), "cp.async.bytes", tv)
                suffix = "_ZFILL" if zfill else ""
                src = ", src-size" if zfill else ""
                result.append(
                    Atom(
                        f"SM80_CP_ASYNC_{cache}{suffix}_U{8 * size}",
                        "cp.async",
                        f"cp.async.{ptx}.shared.global [dst], [src], {size}{src}",
                        ("sm80",),
                        None,
                        (fragment,),
                        _CP_ASYNC,
                        (f"cp.async.{ptx}.{size}{'.zfill' if zfill else ''}",),
                    )
                )
    return result


def _shuffles() -> list[Atom]:
    """One atom per shfl.sync mode; b and width are parameters (:mod:`~.shuffle`)."""
    return [
        Atom(
            f"shfl.sync.{mode}",
            "shfl",
            f"shfl.sync.{mode}.b32 d, a, b, c, membermask",
            ("sm30",),
            None,
            (),
            f"{_GUIDE} ({INTRINSICS[mode]})",
            (INTRINSICS[mode],),
            mode,
        )
        for mode in MODES
    ]


def atoms() -> list[Atom]:
    """The 8-bit ldmatrix/stmatrix, cp.async and shuffle atoms, in catalogue order."""
    return [*_b8_matrices(), *_cp_async(), *_shuffles()]
