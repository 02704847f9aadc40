"""The Blackwell tcgen05 register views: ``tcgen05.ld``/``tcgen05.st`` with the shapes
32x32b, 16x64b, 16x128b, 16x256b and 16x32bx2 and every ``.num`` (CuTe's ``SM100_TMEM_LOAD_*``
and ``SM100_TMEM_STORE_*``): which TMEM lane (row) and 32-bit column each thread's registers
hold.

The fragment is CuTe's thread-value layout (``copy_traits_sm100.hpp``: the load's
``DstLayout``, the store's ``SrcLayout``, in bits over the ``lane x size`` message, upcast here
to 32-bit registers); the reference is the PTX ISA's "Matrix fragments for shape .32x32b /
.16x64b / .16x128b / .16x256b" (Figures 183-186) as :mod:`llverify.specs.tmem` reads them
(``dim0`` the TMEM lane of the warp's 32-lane (or 16-lane) slice, ``dim1`` the column).

``.16x32bx2`` (CuTe's ``16dp32b``) is two ``.16x32b`` accesses, the second at ``taddr +
immHalfSplitoff`` (a column offset): CuTe issues it with ``immHalfSplitoff = .num`` (``2 .num``
with ``.pack::16b``), so its message is ``2 .num`` contiguous columns of 16 lanes, threads
16-31 holding the second half; the reference is the tcgen05.ld text with that offset
(``tcgen05.16x32bx2.off<S>`` in :mod:`llverify.specs.fragments`).

Examples:
    >>> atom = [a for a in atoms() if a.name == "SM100_TMEM_LOAD_16dp64b2x"][0]
    >>> atom.operand("fragment").shape, str(atom.operand("fragment").tv())
    ((16, 4), '((2, 2, 8), (1, 2)):((32, 1, 4), (1, 2))')
    >>> atom.operand("fragment").layout().apply({"register": 1, "lane": 1})
    {'dim0': 8, 'dim1': 2}
    >>> split = [a for a in atoms() if a.name == "SM100_TMEM_LOAD_16dp32b2x"][0]
    >>> split.instruction, split.operand("fragment").reference
    ('tcgen05.ld.sync.aligned.16x32bx2.x2.b32 r, [taddr], 2', 'tcgen05.16x32bx2.off2')
    >>> split.operand("fragment").layout().apply({"register": 1, "lane": 17})
    {'dim0': 1, 'dim1': 3}
"""

from __future__ import annotations

from llverify.atoms.catalogue import Atom, Operand

__all__ = ["atoms"]

_NUMS = (1, 2, 4, 8, 16, 32, 64, 128)

_SOURCE = "CUTLASS include/cute/atom/copy_traits_sm100.hpp ({}; in bits, upcast to b32)"

#: CuTe's SM100_TMEM_LOAD_<shape><num>x DstLayout (thread, bit) -> bit of the message
#: (``lane x size``, the bits of one TMEM lane first), = the store's SrcLayout.
_TV_BITS = {
    "32dp32b1x": "(32,32):(32,1)",
    "32dp32b2x": "(32,64):(64,1)",
    "32dp32b4x": "(32,128):(128,1)",
    "32dp32b8x": "(32,256):(256,1)",
    "32dp32b16x": "(32,512):(512,1)",
    "32dp32b32x": "(32,1024):(1024,1)",
    "32dp32b64x": "(32,2048):(2048,1)",
    "32dp32b128x": "(32,4096):(4096,1)",
    "16dp64b1x": "((2,2,8),32):((512,32,64),1)",
    "16dp64b2x": "((2,2,8),(32,2)):((1024,32,128),(1,64))",
    "16dp64b4x": "((2,2,8),(32,4)):((2048,32,256),(1,64))",
    "16dp64b8x": "((2,2,8),(32,8)):((4096,32,512),(1,64))",
    "16dp64b16x": "((2,2,8),(32,16)):((8192,32,1024),(1,64))",
    "16dp64b32x": "((2,2,8),(32,32)):((16384,32,2048),(1,64))",
    "16dp64b64x": "((2,2,8),(32,64)):((32768,32,4096),(1,64))",
    "16dp64b128x": "((2,2,8),(32,128)):((65536,32,8192),(1,64))",
    "16dp128b1x": "((4,8),(32,2)):((32,128),(1,1024))",
    "16dp128b2x": "((4,8),(32,2,2)):((32,256),(1,2048,128))",
    "16dp128b4x": "((4,8),(32,2,4)):((32,512),(1,4096,128))",
    "16dp128b8x": "((4,8),(32,2,8)):((32,1024),(1,8192,128))",
    "16dp128b16x": "((4,8),(32,2,16)):((32,2048),(1,16384,128))",
    "16dp128b32x": "((4,8),(32,2,32)):((32,4096),(1,32768,128))",
    "16dp128b64x": "((4,8),(32,2,64)):((32,8192),(1,65536,128))",
    "16dp256b1x": "((4,8),(64,2)):((64,256),(1,2048))",
    "16dp256b2x": "((4,8),(64,2,2)):((64,512),(1,4096,256))",
    "16dp256b4x": "((4,8),(64,2,4)):((64,1024),(1,8192,256))",
    "16dp256b8x": "((4,8),(64,2,8)):((64,2048),(1,16384,256))",
    "16dp256b16x": "((4,8),(64,2,16)):((64,4096),(1,32768,256))",
    "16dp256b32x": "((4,8),(64,2,32)):((64,8192),(1,65536,256))",
    # 16x32bx2: two 16x32b accesses; threads 16-31 take the second, CuTe's message puts it
    # right after the first (immHalfSplitoff = .num columns, 2 .num with .pack::16b)
    **{f"16dp32b{n}x": f"((16,2),{32 * n}):(({64 * n},{32 * n}),1)" for n in _NUMS},
}


def _split(key: str) -> tuple[int, int, int]:
    """'16dp64b2x' -> (16 lanes, 64 bits, num 2); '16dp32b2x' (16x32bx2) -> (16, 32, 2)."""
    lanes, rest = key.split("dp")
    bits, num = rest.rstrip("x").split("b")
    return int(lanes), int(bits), int(num)


def atoms() -> list[Atom]:
    """tcgen05.ld then tcgen05.st, each shape and .num, unpacked then packed, in catalogue
    order."""

    result = []
    for family, cute, verb, layout, pack in (
        ("tcgen05.ld", "LOAD", "ld", "DstLayout", "pack"),
        ("tcgen05.st", "STORE", "st", "SrcLayout", "unpack"),
    ):
        for packed in (False, True):
            for key, bits_tv in _TV_BITS.items():
                result.append(_atom(family, cute, verb, layout, pack, packed, key, bits_tv))
    return result


def _atom(
    family: str, cute: str, verb: str, layout: str, pack: str, packed: bool, key: str,
    bits_tv: str,
) -> Atom:  # fmt: skip
    """One tcgen05 atom; ``packed``: its ``_16b`` variant (``.pack::16b`` / ``.unpack::16b``),
    whose register-side layout is the unpacked one's and whose ``ValID`` takes the low 16 bits
    of each TMEM column (``((16, C), L):((1, 32), DP_b)``): in 16-bit elements, element ``u``
    of a TMEM lane's message is column ``u``."""
    from llverify.cute import parse, upcast

    lanes, bits, num = _split(key)
    unit = 16 if packed else 32
    tv = str(upcast(parse(bits_tv), unit))
    split = None
    if lanes == 16 and bits == 32:  # 16x32bx2: the halves at columns 0 and immHalfSplitoff
        shape, split = "16x32bx2", num * 32 // unit
        reference = f"tcgen05.{shape}.off{split}"
        message = 2 * bits * num
    else:
        shape, reference, message = f"{lanes}x{bits}b", f"tcgen05.{lanes}x{bits}b", bits * num
    if packed:
        reference += ".pack16b"
    fragment = Operand("fragment", (lanes, message // unit), reference, tv)
    suffix, qualifier = ("_16b", f".{pack}::16b") if packed else ("", "")
    name = f"SM100_TMEM_{cute}_{key}{suffix}"
    source = _SOURCE.format(f"{name} {layout}")
    if packed:
        source = source.replace("upcast to b32", "upcast to 16-bit elements; ValID: low halves")
    instruction = f"tcgen05.{verb}.sync.aligned.{shape}.x{num}{qualifier}.b32"
    if split is not None:  # CuTe's immHalfSplitoff: the second half right after the first
        operands = f"r, [taddr], {split}" if verb == "ld" else f"[taddr], {split}, r"
        instruction = f"{instruction} {operands}"
    return Atom(
        name,
        family,
        instruction,
        ("sm100a",),
        None,
        (fragment,),
        source,
        (f"tcgen05.{verb}.{shape}.x{num}{qualifier}",),
    )
