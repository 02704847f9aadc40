"""The sm80 sparse MMA atoms (``mma.sp``, 2:4 structured sparsity; 1:2 for .tf32): A packed to
M x K/2, B and C/D as the dense instruction's.

The PTX ISA states the packed A fragment of each sparse shape in its own section ("Matrix
Fragments for sparse mma.m16n8k16 ...": row by register, and the K-chunk whose non-zeros a
register holds); the fragment here is an independent statement of it: CUTLASS's dense CuTe
TV layout of half the K (``mma_traits_sm80.hpp``) over the packed tile.  B and C/D are the
dense layouts, as the PTX ISA says ("the same as in case of Matrix Fragments for
mma.m16n8k16"), proved against the dense formulas.

Examples:
    >>> found = atoms()
    >>> found[0].name, found[0].operand("A").shape
    ('mma.sp.m16n8k16.f16.f16.f16.f16', (16, 8))
    >>> from llverify.atoms.proof import prove_atom
    >>> prove_atom(found[0]).status
    <Status.PROVED: 'proved'>
"""

from __future__ import annotations

from llverify.atoms.catalogue import Atom, Operand

__all__ = ["atoms"]

_SOURCE = (
    "CUTLASS include/cute/atom/mma_traits_sm80.hpp: the dense A TV layout of K/2 over the "
    "packed M x K/2 tile; B and C/D the dense m16n8kK layouts"
)
_C16 = ("((4,8),(2,2)):((32,1),(16,8))", "mma.m16n8k16.CD")
#: shape -> (packed A (TV, reference), B (TV, reference))
_SHAPES = {
    "m16n8k16.f16": (("((4,8),(2,2)):((32,1),(16,8))", "mma.sp.m16n8k16.f16.A"),
                     ("((4,8),(2,2)):((16,1),(8,64))", "mma.m16n8k16.f16.B")),
    "m16n8k8.tf32": (("((4,8),2):((16,1),8)", "mma.sp.m16n8k8.tf32.A"),
                     ("((4,8),2):((8,1),32)", "mma.m16n8k8.tf32.B")),
    "m16n8k32.b8": (("((4,8),(4,2)):((64,1),(16,8))", "mma.sp.m16n8k32.b8.A"),
                    ("((4,8),(4,2)):((32,1),(8,128))", "mma.m16n8k32.b8.B")),
}  # fmt: skip


def _atom(shape: str, types: str) -> Atom:
    (a_tv, a_ref), (b_tv, b_ref) = _SHAPES[shape]
    geometry = shape.split(".")[0]
    k = int(geometry.split("k")[1])
    return Atom(
        f"mma.sp.{geometry}.{types}",
        "mma.sp",
        f"mma.sp.sync.aligned.{geometry}.row.col.{types} d, a, b, c, e, f",
        ("sm80",),
        (16, 8, k),
        (
            Operand("A", (16, k // 2), a_ref, a_tv),
            Operand("B", (k, 8), b_ref, b_tv),
            Operand("C", (16, 8), _C16[1], _C16[0]),
        ),
        _SOURCE,
    )


def atoms() -> list[Atom]:
    """The mma.sp atoms whose every fragment the PTX ISA states in text, in catalogue order."""
    result = [
        _atom("m16n8k16.f16", types)
        for types in ("f16.f16.f16.f16", "f32.f16.f16.f32", "f32.bf16.bf16.f32")
    ]
    result.append(_atom("m16n8k8.tf32", "f32.tf32.tf32.f32"))
    for a, b in (("s8", "s8"), ("s8", "u8"), ("u8", "s8"), ("u8", "u8")):
        result.append(_atom("m16n8k32.b8", f"s32.{a}.{b}.s32"))
    return result
