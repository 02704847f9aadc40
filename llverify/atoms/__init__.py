"""A named catalogue of MMA and copy atoms (NVIDIA mma.sync, mma.sp, block-scaled mma,
wgmma, ldmatrix, stmatrix, cp.async, shfl.sync, tcgen05.ld/st; AMD MFMA, WMMA; Intel DPAS),
each register fragment proved against the vendor ISA formula, available as a LinearLayout,
as a CuTe TV layout and as a picture (see docs/atoms.md).

Modules: :mod:`~llverify.atoms.catalogue` (the value types), :mod:`~llverify.atoms.nvidia`,
:mod:`~llverify.atoms.amd` and :mod:`~llverify.atoms.intel` (the atoms),
:mod:`~llverify.atoms.sparse` (mma.sp), :mod:`~llverify.atoms.block_scale` (sm120
block-scaled), :mod:`~llverify.atoms.nvidia_copy` (8-bit ldmatrix/stmatrix, cp.async, shuffles),
:mod:`~llverify.atoms.shuffle` (shuffles as lane maps), :mod:`~llverify.atoms.tcgen05` (TMEM
register views), :mod:`~llverify.atoms.registry` (the look-up), :mod:`~llverify.atoms.proof`
(proving them), :mod:`~llverify.atoms.library` (them as obligations of ``llverify prove``),
:mod:`~llverify.atoms.picture` (their figures).

Examples:
    >>> from llverify import atoms
    >>> atom = atoms.get("SM80_16x8x16_F32F16F16F32_TN")
    >>> atom.instruction
    'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32'
    >>> str(atom.operand("A").tv())
    '((4, 8), (2, 2, 2)):((32, 1), (16, 8, 128))'
    >>> atoms.prove_atom(atom).status
    <Status.PROVED: 'proved'>
"""

from __future__ import annotations

from llverify.atoms.catalogue import FAMILIES, Atom, AtomError, Operand
from llverify.atoms.proof import AtomProof, proof_counts, prove_atom, prove_operand
from llverify.atoms.registry import atoms, get, names

__all__ = [
    "FAMILIES",
    "Atom",
    "AtomError",
    "AtomProof",
    "Operand",
    "atoms",
    "get",
    "names",
    "proof_counts",
    "prove_atom",
    "prove_operand",
]
