"""The atom catalogue as obligations of ``llverify prove``'s built-in library (its group
``atoms``, :mod:`llverify.proof.library`): every atom of :mod:`llverify.atoms` (its register
fragments against the vendor formulas of :mod:`llverify.specs.fragments` and the spec modules
it names; a shuffle's lane map against the PTX ISA's ``shfl.sync``), one obligation per atom,
and negative controls: perturbed fragments and wrong vendor formulas that must be refuted.

Examples:
    >>> from llverify.proof.library import run_obligation
    >>> from llverify.atoms.registry import names
    >>> len(LIBRARY) == len(CONTROLS) + len(names())
    True
    >>> first = LIBRARY[0]
    >>> first.kind, first.name
    ('library atom', 'atoms: SM70_8x8x4_F16F16F16F16_TN (mma.sync)')
    >>> run_obligation(first).status
    <Status.PROVED: 'proved'>
    >>> outcome = run_obligation(LIBRARY[-1])
    >>> outcome.status, outcome.passed
    (<Status.REFUTED: 'refuted'>, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from llverify.proof.obligation import Call, Obligation, Ruling
from llverify.proof.verdict import Status

__all__ = ["ATOM", "CONTROLS", "LIBRARY", "atom_equal", "atom_references", "perturbed"]

#: The reported kind of these obligations.
ATOM = "library atom"

_SOURCE = "atoms/library.py"


def atom_references(atom: Any) -> dict[str, str]:
    """What each fragment of ``atom`` is proved against: role -> vendor reference name
    (``lanes`` -> ``shfl.sync.MODE`` for a shuffle).

    Examples:
        >>> from llverify.atoms.registry import get
        >>> atom_references(get("SM80_16x8x8_F16F16F16F16_TN"))["C"]
        'mma.m16n8k16.CD'
    """
    if atom.shuffle is not None:
        return {"lanes": f"shfl.sync.{atom.shuffle}"}
    return {op.role: op.reference for op in atom.operands}


def perturbed(name: str, role: str, tv_text: str) -> Any:
    """The atom ``name`` with the CuTe TV layout of its ``role`` fragment replaced by
    ``tv_text`` (a negative control's subject)."""
    from llverify.atoms.registry import get

    atom = get(name)
    operands = tuple(
        replace(op, tv_text=tv_text) if op.role == role else op for op in atom.operands
    )
    return replace(atom, operands=operands)


def _method(verdicts: Mapping[str, Any]) -> str:
    return "+".join(sorted({str(v.method) for v in verdicts.values()}))


def atom_equal(atom: Any, reference: Mapping[str, str], timeout_s: float) -> Ruling:
    """Every fragment of ``atom`` equal to the vendor formula ``reference[role]`` names; the
    status is the weakest of the operands', the message the first failing operand's verdict.

    Examples:
        >>> from llverify.atoms.registry import get
        >>> atom = get("SM80_16x8x8_F16F16F16F16_TN")
        >>> refs = atom_references(atom)
        >>> atom_equal(atom, refs, 10.0).status
        <Status.PROVED: 'proved'>
        >>> wrong = {**refs, "C": "mma.m16n8k8.f16.B"}  # C against the B formula
        >>> ruling = atom_equal(atom, wrong, 10.0)
        >>> ruling.status, ruling.details["role"], ruling.message.startswith("refuted by ")
        (<Status.REFUTED: 'refuted'>, 'C', True)
    """
    from llverify.atoms.proof import prove_operand
    from llverify.atoms.shuffle import prove_shuffle
    from llverify.specs.claims import _json_ready

    timeout_ms = max(1, int(timeout_s * 1000))
    verdicts: dict[str, Any] = {}
    if atom.shuffle is not None:
        verdicts["lanes"] = prove_shuffle(reference["lanes"].removeprefix("shfl.sync."))
    else:
        for op in atom.operands:
            verdicts[op.role] = prove_operand(replace(op, reference=reference[op.role]), timeout_ms)
    status = Status.weakest(v.status for v in verdicts.values())
    details: dict[str, Any] = {
        "method": _method(verdicts),
        "operands": {role: v.to_dict() for role, v in verdicts.items()},
    }
    failing = [(role, v) for role, v in verdicts.items() if v.status != Status.PROVED]
    if failing:
        role, verdict = failing[0]
        message = f"{verdict} (operand {role})"
        details.update(role=role, verdict=verdict.to_dict())
    else:
        message = "; ".join(f"{role} {v}" for role, v in verdicts.items())
    return Ruling(status, message, _json_ready(details))


def _obligation(name: str, build: Any, reference: Mapping[str, str], expect: Status) -> Obligation:
    return Obligation(name, ATOM, build, dict(reference), atom_equal, expect, _SOURCE)


#: Negative controls: (atom, what is wrong, the role, a perturbed TV layout or None, the
#: wrong reference name or None).  Each must be refuted.
CONTROLS: tuple[tuple[str, str, str, str | None, str | None], ...] = (
    ("SM80_16x8x8_F16F16F16F16_TN", "C values swapped", "C",
     "((4,8),(2,2)):((32,1),(8,16))", None),
    ("SM80_16x8x16_F32F16F16F32_TN", "A thread modes swapped", "A",
     "((8,4),(2,2,2)):((1,32),(16,8,128))", None),
    ("SM75_U32x4_LDSM_N", "ldmatrix.x4 against the .trans formula", "fragment", None,
     "ldmatrix.b16.trans.stacked"),
    ("v_mfma_f32_32x32x8_f16", "A (kWidth 4) against the K-packing-8 formula", "A", None,
     "v_mfma_f32_32x32x16_f16 A"),
    ("v_mfma_f32_32x32x4_bf16", "A (K-packing 2) against the 32x32x2 f32 formula", "A", None,
     "v_mfma_f32_32x32x2_f32 A"),
    ("v_wmma_f32_16x16x16_f16_gfx12", "RDNA4 A against the RDNA3 formula", "A", None,
     "rdna3_a"),
    ("SM90_64x24x16_F32F16F16_RS", "D (enumerated) with its column blocks' stride doubled",
     "C", "((4,8,4),(2,2,3)):((128,1,16),(64,8,1024))", None),
    ("mma.block_scale.m16n8k32.mxf8f6f4.1X", "SF_A held by the wrong lane of the pair", "SFA",
     "((2,2,8),32):((0,8,1),16)", None),
    ("SM100_TMEM_LOAD_16dp64b1x", "16x64b against the 16x128b message", "fragment", None,
     "tcgen05.16x128b"),
    ("v_mfma_f32_32x32x1_2b_f32", "2-block D against one 32x32 instruction's D", "C", None,
     "v_mfma_f32_32x32x8_f16 D"),
    ("SM100_TMEM_LOAD_32dp32b2x_16b", "packed halves and registers exchanged", "fragment",
     "(32,(2,2)):(4,(2,1))", None),
    ("SM100_TMEM_LOAD_16dp32b4x_16b", "packed 16x32bx2 read with the unpacked "
     "immHalfSplitoff (.num columns, not 2 .num)", "fragment", None,
     "tcgen05.16x32bx2.off4.pack16b"),
    ("SM100_U8x8_LDSM_T", "CuTe's byte-shuffled registers taken as ldmatrix.m16n16's",
     "fragment", "((2,2,2,2,2),(2,2,2)):((64,128,1,2,4),(16,8,32))", None),
    ("mma.block_scale.m16n8k64.mxf4nvf4.4X", "scale_B's K blocks 1 and 2 exchanged in "
     "scale-b-data's bytes", "SFB.bytes", "((4,8),(2,2)):((0,1),(16,8))", None),
    ("v_mfma_i32_32x32x32_i8", "gfx950 A (16 bytes of K per lane) against the 8-per-lane "
     "formula", "A", None, "v_mfma_f32_32x32x16_f16 A"),
    ("v_mfma_f32_16x16x128_f8f6f4", "gfx950 A (two 16-byte K chunks per lane) against the "
     "16-byte i8 formula", "A", None, "v_mfma_i32_16x16x64_i8 A"),
    ("v_mfma_scale_f32_32x32x64_f8f6f4", "SF_A against the A data formula (a lane's 32 bytes "
     "span two scale blocks)", "SFA", None, "v_mfma_f32_32x32x64_f8f6f4 A"),
    ("mma.sp.m16n8k64.s32.s4.s4.s32", "B with each 8x8 block transposed", "B",
     "((4,8),(8,2)):((64,8),(1,256))", None),
    ("mma.sp.m16n8k64.s32.u4.u4.s32", "B against the dense B of half the K (m16n8k32)", "B",
     None, "mma.m16n8k32.b4.B"),
    ("v_mfma_f64_4x4x4_4b_f64", "A (K across the lanes) against the other multi-block "
     "instructions' layout (K in registers)", "A", None, "mfma.blocks.A"),
    ("v_mfma_f32_16x16x128_f8f6f4_f4f4", "fp4 A (32 consecutive K per lane) against the "
     "8-bit formats' two 16-element chunks", "A", None, "v_mfma_f32_16x16x128_f8f6f4 A"),
    ("v_wmma_f16_16x16x16_f16_gfx11", "RDNA3 16-bit D against RDNA4's accumulator", "C",
     None, "rdna4_acc"),
)  # fmt: skip


def _library() -> tuple[Obligation, ...]:
    from llverify.atoms.registry import atoms, get

    result = [
        _obligation(
            f"atoms: {atom.name} ({atom.family})",
            Call(get, atom.name),
            atom_references(atom),
            Status.PROVED,
        )
        for atom in atoms()
    ]
    for name, what, role, tv_text, wrong_reference in CONTROLS:
        references = atom_references(get(name))
        build = Call(get, name) if tv_text is None else Call(perturbed, name, role, tv_text)
        if wrong_reference is not None:
            references[role] = wrong_reference
        result.append(
            _obligation(
                f"atoms: {name}, {what} (negative control)", build, references, Status.REFUTED
            )
        )
    return tuple(result)


#: The module's obligations in the built-in library: every atom, then the controls.
LIBRARY = _library()
