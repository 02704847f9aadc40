"""The sm120 block-scaled MMA atoms (``mma.sync ... .block_scale``, kinds mxf8f6f4, mxf4 and
mxf4nvf4, ``scale_vec`` 1X/2X/4X): A, B and C/D, the scale-factor fragments SF_A and SF_B with
the thread-ID selectors, and the byte view of ``scale-a-data``/``scale-b-data`` with the
byte-ID selectors.

The fragments are CUTLASS's CuTe TV layouts (``mma_traits_sm120.hpp``:
``SM120_16x8x32_TN_VS`` takes A/B/C from the sm80 m16n8k32 8-bit atom, ``SM120_16x8x64_TN_VS``
states them; ``SFALayout``/``SFBLayout`` give the scale of each element of A and B, value k
being the scale of K position k).  A, B and C/D are proved against the PTX ISA's dense
m16n8k32 (8-bit and the .e4m3 ... .e2m1 types) and m16n8k64 (.e2m1) fragments; SF_A and SF_B
against the PTX ISA's "Block Scaling" section: a thread pair of each quad holds SF_A (either
pair: ``thread-id-a``), one thread of each quad SF_B (any: ``thread-id-b``), so the fragments
must not depend on the selector bits of the lane.

``SFA.bytes`` and ``SFB.bytes`` are the scale matrices themselves (``scale_A`` M x SFA_N,
``scale_B`` SFB_M x N, SFA_N = SFB_M = 1, 2, 4 for 1X, 2X, 4X) as ``scale-a-data`` /
``scale-b-data`` hold them: value ``j`` is the scale of K block ``j``, in byte
``byte-id + j`` of the thread's 32-bit register (:func:`scale_bytes`: the PTX text's byte
selection, with the selector values its Table 37 allows).  Their fragment is CuTe's
``SFALayout``/``SFBLayout`` one value per block (CUTLASS recasts the block scales to one
``uint8/16/32`` register, block ``j`` in byte ``j``, and passes byte-id 0).

Examples:
    >>> found = atoms()
    >>> [op.role for op in found[0].operands]
    ['A', 'B', 'C', 'SFA', 'SFB', 'SFA.bytes', 'SFB.bytes']
    >>> found[0].operand("SFA").layout().apply({"register": 5, "lane": 9})
    {'dim0': 10, 'dim1': 5}
    >>> found[3].operand("SFB.bytes").layout().apply({"register": 3, "lane": 9})
    {'dim0': 3, 'dim1': 2}
    >>> scale_bytes("2X", 2)  # blocks 0 and 1 in the upper byte pair
    (2, 3)
"""

from __future__ import annotations

from llverify.atoms.catalogue import Atom, AtomError, Operand
from llverify.errors import shown

__all__ = ["atoms", "scale_bytes"]

#: PTX ISA "Block Scaling for mma.sync", Table 37: the byte-id values each scale vector allows.
BYTE_IDS = {"1X": (0, 1, 2, 3), "2X": (0, 2), "4X": (0,)}
_BLOCKS = {"1X": 1, "2X": 2, "4X": 4}


def scale_bytes(scale_vec: str, byte_id: int) -> tuple[int, ...]:
    """The bytes of ``scale-a-data`` (or ``scale-b-data``) that hold K blocks 0, 1, ... of a
    row of ``scale_A`` (a column of ``scale_B``) for the selector ``byte_id``: "one byte ...
    determined by byte-id" (1X), "one byte-pair ... 0 selects lower two bytes whereas value of
    2 selects upper two bytes" (2X), "all four bytes ... byte-id must be zero" (4X); any other
    value "results in an undefined behavior" (Table 37) and is refused.  Block ``j`` in byte
    ``byte_id + j`` (the lower byte first) is Figure 45's order, an image: as CUTLASS packs
    the scales (its SF register is the blocks recast, block ``j`` in byte ``j``).

    Examples:
        >>> scale_bytes("1X", 3), scale_bytes("4X", 0)
        ((3,), (0, 1, 2, 3))
        >>> scale_bytes("2X", 1)
        Traceback (most recent call last):
        ...
        llverify.atoms.catalogue.AtomError: Argument 'byte_id' must be one of (0, 2) for .scale_vec::2X (PTX ISA Table 37; others are undefined), not 1.
    """  # noqa: E501 - the doctest's output is one line
    if scale_vec not in BYTE_IDS:
        raise AtomError(
            f"Argument 'scale_vec' must be one of {list(BYTE_IDS)}, not {shown(scale_vec)}."
        )
    if isinstance(byte_id, bool) or byte_id not in BYTE_IDS[scale_vec]:
        raise AtomError(
            f"Argument 'byte_id' must be one of {BYTE_IDS[scale_vec]} for "
            f".scale_vec::{scale_vec} (PTX ISA Table 37; others are undefined), not "
            f"{shown(byte_id)}."
        )
    return tuple(byte_id + j for j in range(_BLOCKS[scale_vec]))


_SOURCE = (
    "CUTLASS include/cute/atom/mma_traits_sm120.hpp (ALayout, BLayout, CLayout, SFALayout, "
    "SFBLayout; SM120_16x8x32_TN_VS uses the sm80 m16n8k32 8-bit layouts)"
)
_C16 = "((4,8),(2,2)):((32,1),(16,8))"
#: k -> (A TV, A reference, B TV, B reference)
_AB = {
    32: ("((4,8),(4,2,2)):((64,1),(16,8,256))", "mma.m16n8k32.b8.A",
         "((4,8),(4,2)):((32,1),(8,128))", "mma.m16n8k32.b8.B"),
    64: ("((4,8),(8,2,2)):((128,1),(16,8,512))", "mma.m16n8k64.b4.A",
         "((4,8),(8,2)):((64,1),(8,256))", "mma.m16n8k64.b4.B"),
}  # fmt: skip


def _atom(kind: str, scale_vec: str, k: int, types: str, stype: str, alias: str) -> Atom:
    a_tv, a_ref, b_tv, b_ref = _AB[k]
    blocks = _BLOCKS[scale_vec]
    operands = (
        Operand("A", (16, k), a_ref, a_tv),
        Operand("B", (k, 8), b_ref, b_tv),
        Operand("C", (16, 8), "mma.m16n8k16.CD", _C16),
        Operand("SFA", (16, k), "mma.block_scale.SFA", f"((2,2,8),{k}):((8,0,1),16)"),
        Operand("SFB", (k, 8), "mma.block_scale.SFB", f"((4,8),{k}):((0,1),8)"),
        # one value per K block: CuTe's SFALayout/SFBLayout with the block's VS values as one
        Operand("SFA.bytes", (16, blocks), "mma.block_scale.SFA.bytes",
                f"((2,2,8),{blocks}):((8,0,1),16)"),
        Operand("SFB.bytes", (blocks, 8), "mma.block_scale.SFB.bytes",
                f"((4,8),{blocks}):((0,1),8)"),
    )  # fmt: skip
    return Atom(
        f"mma.block_scale.m16n8k{k}.{kind}.{scale_vec}",
        "mma.block_scale",
        f"mma.sync.aligned.kind::{kind}.block_scale.scale_vec::{scale_vec}.m16n8k{k}.row.col."
        f"f32.{types}.f32.{stype} d, a, b, c, scale-a-data, {{byte-id-a, thread-id-a}}, "
        "scale-b-data, {byte-id-b, thread-id-b}",
        ("sm120a",),
        (16, 8, k),
        operands,
        _SOURCE,
        (alias,) if alias else (),
    )


def atoms() -> list[Atom]:
    """One atom per kind and scale vector size (the element types share the fragments)."""
    return [
        _atom("mxf8f6f4", "1X", 32, "e4m3.e4m3", "ue8m0", "SM120_16x8x32_TN_VS32"),
        _atom("mxf4", "2X", 64, "e2m1.e2m1", "ue8m0", "SM120_16x8x64_TN_VS32"),
        _atom("mxf4nvf4", "2X", 64, "e2m1.e2m1", "ue8m0", ""),
        _atom("mxf4nvf4", "4X", 64, "e2m1.e2m1", "ue4m3", "SM120_16x8x64_TN_VS16"),
    ]
