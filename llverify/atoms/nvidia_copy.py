"""The NVIDIA copy atoms beyond ldmatrix/stmatrix: ``cp.async`` (CuTe's
``SM80_CP_ASYNC_CACHEALWAYS``/``CACHEGLOBAL`` and their ``_ZFILL`` forms: one thread copies 4,
8 or 16 bytes) and the warp shuffles ``shfl.sync`` idx/up/down/bfly (lane maps with
parameters, :mod:`llverify.atoms.shuffle`).

A cp.async fragment is CuTe's thread-value layout (``copy_traits_sm80.hpp``: one thread,
``sizeof_bits`` values, in bits, upcast here to bytes) over the copied chunk, a 1 x cp-size
row of bytes; it is proved against the PTX ISA's ``cp.async`` (cp-size bytes, in order).

Examples:
    >>> found = atoms()
    >>> [a.name for a in found if a.family == "cp.async"][:3]
    ['SM80_CP_ASYNC_CACHEALWAYS_U32', 'SM80_CP_ASYNC_CACHEALWAYS_U64', 'SM80_CP_ASYNC_CACHEALWAYS_U128']
    >>> str(found[2].operand("fragment").tv())
    '(1, 16):(0, 1)'
"""  # noqa: E501 - the doctest's output is one line

from __future__ import annotations

from llverify.atoms.catalogue import Atom, Operand
from llverify.atoms.shuffle import INTRINSICS, MODES

__all__ = ["atoms"]

_CP_ASYNC = "CUTLASS include/cute/atom/copy_traits_sm80.hpp (SrcLayout/DstLayout in bits, " \
    "upcast to bytes; ThrID one thread)"  # fmt: skip
_GUIDE = "CUDA C++ Programming Guide, 'Warp Shuffle Functions'"


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
    """The cp.async and shuffle atoms, in catalogue order."""
    return [*_cp_async(), *_shuffles()]
