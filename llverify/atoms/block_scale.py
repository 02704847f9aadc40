"""The sm120 block-scaled MMA atoms (``mma.sync ... .block_scale``, kinds mxf8f6f4, mxf4 and
mxf4nvf4, ``scale_vec`` 1X/2X/4X): A, B and C/D, and the scale-factor fragments SF_A and SF_B
with the thread-ID selectors.

The fragments are CUTLASS's CuTe TV layouts (``mma_traits_sm120.hpp``:
``SM120_16x8x32_TN_VS`` takes A/B/C from the sm80 m16n8k32 8-bit atom, ``SM120_16x8x64_TN_VS``
states them; ``SFALayout``/``SFBLayout`` give the scale of each element of A and B, value k
being the scale of K position k).  A, B and C/D are proved against the PTX ISA's dense
m16n8k32 (8-bit and the .e4m3 ... .e2m1 types) and m16n8k64 (.e2m1) fragments; SF_A and SF_B
against the PTX ISA's "Block Scaling" section: a thread pair of each quad holds SF_A (either
pair: ``thread-id-a``), one thread of each quad SF_B (any: ``thread-id-b``), so the fragments
must not depend on the selector bits of the lane.

Examples:
    >>> found = atoms()
    >>> [op.role for op in found[0].operands]
    ['A', 'B', 'C', 'SFA', 'SFB']
    >>> found[0].operand("SFA").layout().apply({"register": 5, "lane": 9})
    {'dim0': 10, 'dim1': 5}
"""

from __future__ import annotations

from llverify.atoms.catalogue import Atom, Operand

__all__ = ["atoms"]

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
    operands = (
        Operand("A", (16, k), a_ref, a_tv),
        Operand("B", (k, 8), b_ref, b_tv),
        Operand("C", (16, 8), "mma.m16n8k16.CD", _C16),
        Operand("SFA", (16, k), "mma.block_scale.SFA", f"((2,2,8),{k}):((8,0,1),16)"),
        Operand("SFB", (k, 8), "mma.block_scale.SFB", f"((4,8),{k}):((0,1),8)"),
    )
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
