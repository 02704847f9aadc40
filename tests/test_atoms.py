"""The atom catalogue (llverify.atoms): proof counts per family against the vendor ISA
formulas, negative controls (perturbed atoms and a historical CUTLASS bug refuted, each
counterexample replayed), the LinearLayout / CuTe TV views agreeing, Triton 3.9 as an oracle
for the atoms it also has, look-up and refusals, pictures and the ``llverify atoms`` CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from llverify import atoms
from llverify.atoms.catalogue import AtomError
from llverify.atoms.proof import operand_formulas, prove_operand
from llverify.cute import parse, tv_to_linear_layout
from llverify.ops import IntOps
from llverify.proof.formula import Formula
from llverify.prove import prove_equal

ROOT = Path(__file__).resolve().parents[1]

#: The number of atoms per family; every one is proved.
EXPECTED = {"mma.sync": 50, "mma.sp": 12, "mma.block_scale": 4, "wgmma": 96, "ldmatrix": 14,
            "stmatrix": 9, "cp.async": 8, "shfl": 4, "tcgen05.ld": 74, "tcgen05.st": 74,
            "mfma": 57, "wmma": 16, "dpas": 27}  # fmt: skip


# ---------------------------------------------------------------------- proofs


@pytest.mark.parametrize("family", list(EXPECTED))
def test_every_atom_of_the_family_is_proved(family: str) -> None:
    counts = atoms.proof_counts([family])[family]
    assert counts == {"atoms": EXPECTED[family], "proved": EXPECTED[family], "refuted": 0,
                      "unknown": 0}  # fmt: skip


def test_families_cover_the_catalogue() -> None:
    assert tuple(EXPECTED) == atoms.FAMILIES
    assert len(atoms.names()) == sum(EXPECTED.values()) == 445


def test_wgmma_has_every_n_for_each_type() -> None:
    names = set(atoms.names("wgmma"))
    for n in range(8, 257, 8):
        assert {f"SM90_64x{n}x16_F32F16F16_RS", f"SM90_64x{n}x8_F32TF32TF32_RS_TN",
                f"SM90_64x{n}x32_F32E4M3E4M3_RS_TN"} <= names  # fmt: skip


def test_non_power_of_2_n_is_enumerated_and_has_no_linear_layout() -> None:
    c = atoms.get("SM90_64x24x16_F32F16F16_RS").operand("C")
    assert not c.linear and (c.threads, c.values) == (128, 12)
    verdict = prove_operand(c)
    assert verdict.proved and verdict.method == "enumeration"
    with pytest.raises(AtomError, match="12 values per thread, not a power of 2"):
        c.layout()


def _replayed(operand, verdict) -> None:
    """A refutation's counterexample, evaluated again: the fragment's element and the
    formula's differ there."""
    point = verdict.counterexample
    assert verdict.refuted and point is not None
    formulas = operand_formulas(operand)
    env = {"register": point.get("register", 0), "lane": point.get("lane", 0),
           "warp": point.get("warp", 0)}  # fmt: skip
    expected = {d: int(Formula(t).evaluate(IntOps(), env)) for d, t in formulas.items()}
    assert expected == verdict.expected
    if operand.linear:
        try:
            assert operand.layout().apply(point) == verdict.actual
            return
        except Exception:  # noqa: BLE001 - a non-linear TV layout: read it directly
            pass
    thread = env["lane"] + operand.lanes * env["warp"]
    index = operand.tv()._index((thread, env["register"]))
    rows = operand.cute_tile()[0]
    first, second = index % rows, index // rows
    actual = (second, first) if operand.transposed else (first, second)
    assert actual == (verdict.actual["dim0"], verdict.actual["dim1"])
    assert verdict.actual != verdict.expected


def test_cutlass_int4_b_layout_before_the_fix_is_refuted() -> None:
    """CUTLASS's SM80_16x8x32_S32S4S4S32_TN BLayout wrote stride 32 for the thread's 4
    (fixed to 64 by NVIDIA/cutlass PR #3140): not injective, so not linear; enumeration
    refutes it against the PTX m16n8k32 .s4 B fragment."""
    b = atoms.get("SM80_16x8x32_S32S4S4S32_TN").operand("B")
    assert b.tv_text == "((4,8),8):((64,1),8)" and prove_operand(b).proved
    old = replace(b, tv_text="((4,8),8):((32,1),8)")
    verdict = prove_operand(old)
    assert verdict.method == "enumeration"
    _replayed(old, verdict)


@pytest.mark.parametrize(
    ("name", "role", "wrong"),
    [
        # the lanes walk the rows first (groupID and threadID_in_group exchanged)
        ("SM80_16x8x16_F32F16F16F32_TN", "A", "((8,4),(2,2,2)):((1,32),(16,8,128))"),
        # the value modes of C exchanged
        ("SM80_16x8x8_F16F16F16F16_TN", "C", "((4,8),(2,2)):((32,1),(8,16))"),
        # B read as if it were (K, N): transposed the wrong way
        ("SM80_16x8x16_F32F16F16F32_TN", "B", "((4,8),(2,2)):((2,16),(1,8))"),
        # wgmma D with the warps along N instead of M
        ("SM90_64x64x16_F32F16F16_RS", "C", "((4,8,4),(2,2,8)):((128,1,1024),(64,8,512))"),
        # a non-power-of-2 N with two value modes exchanged (enumerated)
        ("SM90_64x24x16_F32F16F16_RS", "C", "((4,8,4),(2,2,3)):((128,1,16),(8,64,512))"),
        # the sm70 quad pair read with the .col A fragment
        ("SM70_8x8x4_F16F16F16F16_TN", "A", "((4,2),4):((8,4),1)"),
        # ldmatrix x4 without the matrix order (matrix k at columns instead of rows)
        ("SM75_U32x4_LDSM_N", "fragment", "(32,(2,4)):(2,(1,8))"),
        # mma.sp packed A with the register pair's row and column steps exchanged
        ("mma.sp.m16n8k16.f32.f16.f16.f32", "A", "((4,8),(2,2)):((32,1),(8,16))"),
        # mma.sp .s8 packed A with the chunk's four non-zeros strided as rows (overlapping)
        ("mma.sp.m16n8k32.s32.s8.s8.s32", "A", "((4,8),(4,2)):((64,1),(8,16))"),
        # SF_A's rows chosen by the thread-id-a bit instead of the pair's lane
        ("SM120_16x8x32_TN_VS32", "SFA", "((2,2,8),32):((0,8,1),16)"),
        # SF_B's column by the lane within the quad (a thread-id-b dependence)
        ("SM120_16x8x64_TN_VS16", "SFB", "((4,8),64):((1,0),8)"),
        # tcgen05.ld 16x64b read as two threads per TMEM lane, left to right
        ("SM100_TMEM_LOAD_16dp64b1x", "fragment", "((2,16),1):((1,2),0)"),
        # tcgen05.st 16x256b with the register bits for column and row exchanged
        ("SM100_TMEM_STORE_16dp256b1x", "fragment", "((4,8),(2,2)):((2,8),(64,1))"),
        # cp.async 16 bytes copied with the byte pairs interleaved
        ("SM80_CP_ASYNC_CACHEGLOBAL_U128", "fragment", "(1,(2,8)):(0,(8,1))"),
    ],
)
def test_perturbed_atom_is_refuted(name: str, role: str, wrong: str) -> None:
    operand = atoms.get(name).operand(role)
    assert prove_operand(operand).proved
    bad = replace(operand, tv_text=wrong)
    _replayed(bad, prove_operand(bad))


def test_amd_fragment_against_the_other_generation_is_refuted() -> None:
    """RDNA3's accumulator (every other row per register) is not RDNA4's."""
    c = atoms.get("v_wmma_f32_16x16x16_f16_gfx11").operand("C")
    assert prove_operand(c).proved
    rdna4 = replace(c, reference="rdna4_acc")
    _replayed(rdna4, prove_operand(rdna4))
    # K-packing 2 (CDNA1 bf16) read as K-packing 1 (32x32x2 f32): the register is ignored
    a = atoms.get("v_mfma_f32_32x32x4_bf16").operand("A")
    assert prove_operand(a).proved
    wrong = replace(a, reference="v_mfma_f32_32x32x2_f32 A")
    _replayed(wrong, prove_operand(wrong))


def test_gfx950_k_packing_16_and_32_atoms() -> None:
    """The gfx950 MFMA shapes with 32 bytes of K per lane (f8f6f4, 8-bit formats: two 16-byte
    chunks, fixed through the block scales) and 16 bytes (i8, consecutive K)."""
    names = ["v_mfma_f32_32x32x64_f8f6f4", "v_mfma_f32_16x16x128_f8f6f4",
             "v_mfma_i32_32x32x32_i8", "v_mfma_i32_16x16x64_i8"]  # fmt: skip
    for name in names:
        atom = atoms.get(name)
        assert atom.arch == ("gfx950",) and atoms.prove_atom(atom).status.value == "proved"
    a = atoms.get("v_mfma_f32_32x32x64_f8f6f4").operand("A")
    assert (a.threads, a.values, a.shape) == (64, 32, (32, 64))
    # lane 33, byte 5: row 1, K 16 + 5; byte 21: K 48 + 5 (the second chunk, the next block)
    assert a.layout().apply({"register": 5, "lane": 33}) == {"dim0": 1, "dim1": 21}
    assert a.layout().apply({"register": 21, "lane": 33}) == {"dim0": 1, "dim1": 53}
    b = atoms.get("v_mfma_i32_16x16x64_i8").operand("B")
    assert b.layout().apply({"register": 15, "lane": 63}) == {"dim0": 63, "dim1": 15}


def test_gfx950_scaled_mfma_atoms() -> None:
    """v_mfma_scale_*_f8f6f4: the unscaled instruction's A, B, D and the scale of each element
    (lane row + M block, register the element of the block); SF_A is not the A data layout
    (a lane's 32 bytes span two scale blocks): refuted, replayed."""
    for name, m in (("v_mfma_scale_f32_32x32x64_f8f6f4", 32),
                    ("v_mfma_scale_f32_16x16x128_f8f6f4", 16)):  # fmt: skip
        atom = atoms.get(name)
        assert [op.role for op in atom.operands] == ["A", "B", "C", "SFA", "SFB"]
        assert atoms.prove_atom(atom).status.value == "proved"
        sfa = atom.operand("SFA").layout()
        for lane in range(64):
            point = sfa.apply({"register": 7, "lane": lane})
            assert point == {"dim0": lane % m, "dim1": 32 * (lane // m) + 7}
    sfa = atoms.get("v_mfma_scale_f32_32x32x64_f8f6f4").operand("SFA")
    wrong = replace(sfa, reference="v_mfma_f32_32x32x64_f8f6f4 A")
    _replayed(wrong, prove_operand(wrong))


def _ck_probe_thread(m: int, row: int, label_k: int) -> int:
    """The lane whose scale Composable Kernel's gfx950 probe saw on A element (row, label_k)
    (``test/mx_mfma_op/scale_mapping_32x32x64.txt`` / ``_16x16x128.txt``, read here for
    a(0..5, *), a(0..2, *) and b(*, 30..31)): its elements are labelled by CK's load_A order,
    lane ``row + M (label_k / 32)``, byte ``label_k % 32``."""
    if m == 32:
        return row + 32 * ((label_k >> 4) & 1)
    return row + 16 * (2 * ((label_k >> 4) & 1) + (label_k >> 6))


def _scale_lane_of_label(a_layout, m: int, k: int, row: int, label_k: int) -> int:
    """Where the atom's A fragment puts CK's labelled byte, and the lane the MX rule (one scale
    per 32 consecutive K, lane ``row + M b`` for block ``b``) takes its scale from."""
    lane, byte = row + m * (label_k // 32), label_k % 32
    point = a_layout.apply({"register": byte, "lane": lane})
    assert point["dim0"] == row
    return row + m * (point["dim1"] // 32)


@pytest.mark.parametrize("name", ["v_mfma_f32_32x32x64_f8f6f4", "v_mfma_f32_16x16x128_f8f6f4"])
def test_gfx950_f8f6f4_matches_ck_scale_probe(name: str) -> None:
    """CK's hardware probe of v_mfma_scale_*: with the atom's A fragment and the MX rule,
    every labelled element takes the scale lane the probe saw; CK's own consecutive-K
    labelling (kWidth 32) does not."""
    from llverify.atoms.amd import _Build
    from llverify.encodings.amd_mfma import AMDMFMALayout
    from llverify.encodings.blocked import DotOperandLayout

    atom = atoms.get(name)
    m, _, k = atom.mnk
    ours = atom.operand("A").layout()
    parent = AMDMFMALayout(4, [m, m, k], False, [1, 1], 32, None)
    build = _Build(DotOperandLayout(0, parent, 32), (m, k))
    consecutive = replace(atom.operand("A"), encoding=build).layout()
    misses = 0
    for row in range(m):
        for label_k in range(k):
            seen = _ck_probe_thread(m, row, label_k)
            assert _scale_lane_of_label(ours, m, k, row, label_k) == seen, (row, label_k)
            misses += _scale_lane_of_label(consecutive, m, k, row, label_k) != seen
    # consecutive K gives the wrong scale lane to 1/2 (32x32) and 3/4 (16x16) of the elements
    assert misses == {32: 1024, 16: 1536}[m]


@pytest.mark.parametrize(
    ("name", "role", "k_width"),
    [
        # 32 consecutive K per lane (kWidth 32, CK's load_A labelling): lane 0's bytes 16-31
        # would share block 0's scale, which CK's gfx950 scale probe contradicts
        ("v_mfma_f32_32x32x64_f8f6f4", "A", 32),
        ("v_mfma_f32_16x16x128_f8f6f4", "B", 32),
        # the i8 32x32x32 with 8 bytes per chunk (the CDNA3 32x32x16 packing, repeated)
        ("v_mfma_i32_32x32x32_i8", "A", 8),
    ],
)
def test_gfx950_wrong_k_packing_is_refuted(name: str, role: str, k_width: int) -> None:
    from llverify.atoms.amd import _Build
    from llverify.encodings.amd_mfma import AMDMFMALayout
    from llverify.encodings.blocked import DotOperandLayout

    operand = atoms.get(name).operand(role)
    m, n, k = atoms.get(name).mnk
    parent = AMDMFMALayout(4, [m, n, k], False, [1, 1], 32, None)
    index = 0 if role == "A" else 1
    wrong = replace(operand, encoding=_Build(DotOperandLayout(index, parent, k_width),
                                             operand.shape))  # fmt: skip
    _replayed(wrong, prove_operand(wrong))


_NARROW = [f"v_mfma{kind}_f32_{shape}_f8f6f4_{fmt}" for kind in ("", "_scale")
           for shape in ("32x32x64", "16x16x128") for fmt in ("f6f6", "f4f4")]  # fmt: skip


def test_gfx950_narrow_format_atoms() -> None:
    """gfx950 f8f6f4 with 6-bit and 4-bit A and B (fp6/bf6: 6 VGPRs, fp4: 4 VGPRs per
    operand): 32 consecutive K per lane, counted as elements (register = element index in the
    lane's packed data), as CK's mx_mfma_op register tables list them."""
    for name in _NARROW:
        atom = atoms.get(name)
        assert atom.arch == ("gfx950",) and atoms.prove_atom(atom).proved
        assert atom.instruction == name.rsplit("_", 1)[0]
        assert [op.role for op in atom.operands][:3] == ["A", "B", "C"]
    a = atoms.get("v_mfma_f32_16x16x128_f8f6f4_f4f4").operand("A")
    assert (a.threads, a.values, a.shape) == (64, 32, (16, 128))
    # CK 'Register Mapping for 16x128 for FP4': lane 48, Reg 3 [24:31] = K126K127 (elements
    # 30, 31); lane 16, Reg 0 [0:7] = K32K33
    assert a.layout().apply({"register": 31, "lane": 48}) == {"dim0": 0, "dim1": 127}
    assert a.layout().apply({"register": 1, "lane": 17}) == {"dim0": 1, "dim1": 33}
    # CK 'Register Mapping for 32x64 for FP6': lane 32's Reg 3-5 hold K 48-63 (elements 16-31)
    a6 = atoms.get("v_mfma_f32_32x32x64_f8f6f4_f6f6").operand("A")
    assert a6.layout().apply({"register": 16, "lane": 32}) == {"dim0": 0, "dim1": 48}
    b = atoms.get("v_mfma_f32_32x32x64_f8f6f4_f4f4").operand("B")
    assert b.layout().apply({"register": 3, "lane": 40}) == {"dim0": 35, "dim1": 8}


@pytest.mark.parametrize("name", [n for n in _NARROW if "scale" in n])
def test_gfx950_narrow_formats_hold_one_scale_block_per_lane(name: str) -> None:
    """With 6-bit and 4-bit formats a lane's 32 elements are exactly the block its scale
    covers (A's fragment is SF_A's); with 8-bit formats they are not (two blocks per lane)."""
    atom = atoms.get(name)
    assert atom.operand("A").layout() == atom.operand("SFA").layout()
    assert atom.operand("B").layout() == atom.operand("SFB").layout()
    eight_bit = atoms.get(name.rsplit("_", 1)[0])
    assert eight_bit.operand("A").layout() != eight_bit.operand("SFA").layout()


@pytest.mark.parametrize(
    ("name", "role", "wrong"),
    [
        # fp4 / fp6 read with the 8-bit formats' two 16-element chunks per lane
        ("v_mfma_f32_16x16x128_f8f6f4_f4f4", "A", "v_mfma_f32_16x16x128_f8f6f4 A"),
        ("v_mfma_scale_f32_32x32x64_f8f6f4_f6f6", "B", "v_mfma_f32_32x32x64_f8f6f4 B"),
        # and the 8-bit layout read as fp4's 32 consecutive K
        ("v_mfma_f32_32x32x64_f8f6f4", "A", "v_mfma_f32_32x32x64_f8f6f4 A (fp4)"),
        # the 32x32x64 fp6 A read with the 16x16x128 formula
        ("v_mfma_f32_32x32x64_f8f6f4_f6f6", "A", "v_mfma_f32_16x16x128_f8f6f4 A (fp6)"),
    ],
)
def test_gfx950_narrow_wrong_formula_is_refuted(name: str, role: str, wrong: str) -> None:
    operand = atoms.get(name).operand(role)
    assert prove_operand(operand).proved
    bad = replace(operand, reference=wrong)
    _replayed(bad, prove_operand(bad))


@pytest.mark.parametrize("name", ["v_mfma_f32_32x32x64_f8f6f4_f4f4",
                                  "v_mfma_f32_16x16x128_f8f6f4_f6f6"])  # fmt: skip
def test_gfx950_narrow_with_8_bit_packing_is_refuted(name: str) -> None:
    """The fp4 / fp6 A fragment built with the 8-bit packing (kWidth 16) is refuted against
    the CK table's 32 consecutive K."""
    from llverify.atoms.amd import _Build
    from llverify.encodings.amd_mfma import AMDMFMALayout
    from llverify.encodings.blocked import DotOperandLayout

    operand = atoms.get(name).operand("A")
    m, n, k = atoms.get(name).mnk
    parent = AMDMFMALayout(4, [m, n, k], False, [1, 1], 32, None)
    wrong = replace(operand, encoding=_Build(DotOperandLayout(0, parent, 16), operand.shape))
    _replayed(wrong, prove_operand(wrong))


@pytest.mark.parametrize("name", ["v_wmma_f16_16x16x16_f16_gfx11",
                                  "v_wmma_bf16_16x16x16_bf16_gfx11"])  # fmt: skip
def test_rdna3_16_bit_accumulator_atoms(name: str) -> None:
    """RDNA3 f16/bf16 accumulators: 8 values per lane (value v in the OPSEL half of VGPR v),
    on the rows of the 32-bit accumulator; A and B as the other RDNA3 atoms."""
    atom = atoms.get(name)
    assert atom.arch == ("gfx11",) and atoms.prove_atom(atom).proved
    c = atom.operand("C")
    assert (c.threads, c.values, c.shape) == (32, 8, (16, 16))
    # GPUOpen's kernel: c_frag[2 ele] of lane 17 is D[2 ele + 1][1]; ele = 3
    assert c.layout().apply({"register": 3, "lane": 17}) == {"dim0": 7, "dim1": 1}
    f32 = atoms.get("v_wmma_f32_16x16x16_f16_gfx11")
    assert c.layout() == f32.operand("C").layout()
    assert atom.operand("A").layout() == f32.operand("A").layout()


@pytest.mark.parametrize(
    "wrong",
    [
        "rdna4_acc",  # RDNA4's accumulator (rows i + 8 (lane / 16))
        "rdna3_acc_transposed",  # rows and columns exchanged (the transposed accumulator)
    ],
)
def test_rdna3_16_bit_accumulator_wrong_formula_is_refuted(wrong: str) -> None:
    operand = atoms.get("v_wmma_f16_16x16x16_f16_gfx11").operand("C")
    bad = replace(operand, reference=wrong)
    _replayed(bad, prove_operand(bad))


def test_rdna3_16_bit_accumulator_packed_two_per_vgpr_is_refuted() -> None:
    """Reading the 16-bit D as packed (two rows per VGPR, 16 halves a lane) is refuted
    against the calculator / GPUOpen formula, whose values skip the other half."""
    from llverify.layout import LinearLayout

    operand = atoms.get("v_wmma_f16_16x16x16_f16_gfx11").operand("C")
    register = [[1, 0], [2, 0], [4, 0], [8, 0]]  # the 16-bit slot counts rows
    lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0]]
    packed = LinearLayout.from_bases(
        [("register", register), ("lane", lane)], ["dim0", "dim1"], [16, 16]
    )
    verdict = prove_equal(packed, operand_formulas(operand))
    assert verdict.refuted
    at = verdict.counterexample
    expected = {d: Formula(f).evaluate(IntOps(), at) for d, f in operand_formulas(operand).items()}
    assert packed.apply(at) != expected


# ---------------------------------------------------------------------- views


def _all_operands():
    for atom in atoms.atoms():
        for op in atom.operands:
            yield atom, op


def test_linear_layout_and_cute_tv_views_agree() -> None:
    """Each linear fragment's LinearLayout equals its CuTe TV layout (prove_equal with a
    CuTe reference, after putting B back in CuTe's (N, K))."""
    from llverify.atoms.catalogue import _swap_outs

    checked = 0
    for atom, op in _all_operands():
        if not op.linear or op.lanes == 8:
            continue
        ll = op.layout()
        cute_view = _swap_outs(ll) if op.transposed else ll
        assert prove_equal(cute_view, op.tv()).proved, (atom.name, op.role)
        checked += 1
    assert checked > 300


def test_tv_layouts_are_cutlass_text() -> None:
    atom = atoms.get("SM90_64x256x16_F32F16F16_RS")
    assert str(atom.operand("C").tv()) == "((4, 8, 4), (2, 2, 32)):((128, 1, 16), (64, 8, 512))"
    assert str(atom.operand("A").tv()) == str(parse("((4,8,4),(2,2,2)):((128,1,16),(64,8,512))"))
    ld = atoms.get("ldmatrix.x4.trans")
    assert ld.name == "SM75_U16x8_LDSM_T" and ld.operand("fragment").shape == (32, 8)


def test_amd_atoms_have_cute_views() -> None:
    a = atoms.get("v_mfma_f32_32x32x8f16").operand("A")
    tv = a.tv()
    assert (tv[0].size(), tv[1].size()) == (64, 4)
    assert tv_to_linear_layout(tv, a.cute_tile(), 64).sublayout(
        ["register", "lane"], ["dim0", "dim1"]
    ) == a.layout().sublayout(["register", "lane"], ["dim0", "dim1"])


# ---------------------------------------------------------------------- Triton oracle


def _triton_cases():
    """(atom, role, Gluon expression, shape) for atoms Triton 3.9 also lays out."""
    ampere = "ttgl.NVMMADistributedLayout([2, 0], [1, 1], [16, 8])"
    ampere8 = "ttgl.NVMMADistributedLayout([2, 0], [1, 1], [8, 8])"
    cases = [
        ("SM80_16x8x16_F32F16F16F32_TN", "A", f"ttgl.DotOperandLayout(0, {ampere}, 2)", [16, 16]),
        ("SM80_16x8x16_F32F16F16F32_TN", "B", f"ttgl.DotOperandLayout(1, {ampere}, 2)", [16, 8]),
        ("SM80_16x8x16_F32F16F16F32_TN", "C", ampere, [16, 8]),
        ("SM80_16x8x8_F32TF32TF32F32_TN", "A", f"ttgl.DotOperandLayout(0, {ampere}, 1)", [16, 8]),
        ("SM80_16x8x8_F32TF32TF32F32_TN", "B", f"ttgl.DotOperandLayout(1, {ampere}, 1)", [8, 8]),
        ("SM80_16x8x32_S32S8S8S32_TN", "A", f"ttgl.DotOperandLayout(0, {ampere}, 4)", [16, 32]),
        ("SM80_16x8x32_S32S8S8S32_TN", "B", f"ttgl.DotOperandLayout(1, {ampere}, 4)", [32, 8]),
        ("SM80_8x8x4_F64F64F64F64_TN", "C", ampere8, [8, 8]),
    ]
    for n in (8, 16, 32, 64, 128, 256):
        hopper = f"ttgl.NVMMADistributedLayout([3, 0], [4, 1], [16, {n}, 16])"
        cases.append((f"SM90_64x{n}x16_F32F16F16_RS", "C", hopper, [64, n]))
    hopper = "ttgl.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16])"
    cases.append(
        ("SM90_64x64x16_F32F16F16_RS", "A", f"ttgl.DotOperandLayout(0, {hopper}, 2)", [64, 16])
    )
    for atom in atoms.atoms("mfma"):
        if not atom.source.startswith("Triton converter"):  # multi-block: its own tests below
            continue
        m, n, k = atom.mnk
        bits = 64 if "f64" in atom.name else 32
        version = 4 if atom.arch == ("gfx950",) else 3
        parent = f"amd.AMDMFMALayout({version}, [{m}, {n}, {k}], False, [1, 1], {bits})"
        k_width = atom.operand("A").encoding.encoding.k_width  # the converter instance's
        cases += [
            (atom.name, "A", f"ttgl.DotOperandLayout(0, {parent}, {k_width})", [m, k]),
            (atom.name, "B", f"ttgl.DotOperandLayout(1, {parent}, {k_width})", [k, n]),
            (atom.name, "C", parent, [m, n]),
        ]
    return cases


def _bases(ll) -> dict:
    return {name: [list(b) for b in basis] for name, basis in ll.bases}


@pytest.mark.triton
def test_atoms_equal_triton_layouts() -> None:
    """Triton 3.9's converter gives the same fragment as the atom (CuTe's TV layout for
    NVIDIA, the instruction's MFMA instance for AMD): register, lane and warp bases."""
    from cases.triton import triton_layouts

    cases = _triton_cases()
    results = triton_layouts([{"layout": expr, "shape": shape} for _, _, expr, shape in cases])
    for (name, role, expr, _), result in zip(cases, results):
        assert "bases" in result, (name, role, expr, result)
        ours = _bases(atoms.get(name).operand(role).layout())
        theirs = {d: b for d, b in result["bases"].items() if b}
        assert {d: b for d, b in ours.items() if b} == theirs, (name, role)
    assert len(cases) >= 90


# ---------------------------------------------------------------------- look-up


def test_get_by_alias_and_case() -> None:
    assert atoms.get("v_mfma_f32_32x32x8f16").name == "v_mfma_f32_32x32x8_f16"
    assert atoms.get("sm80_16x8x16_f32f16f16f32_tn").name == "SM80_16x8x16_F32F16F16F32_TN"
    assert atoms.get("stmatrix.x2").name == "SM90_U32x2_STSM_N"


def test_unknown_names_and_bad_arguments_are_refused() -> None:
    with pytest.raises(AtomError, match="close matches: v_mfma_f32_32x32x8_f16"):
        atoms.get("v_mfma_f32_32x32x8_f17")
    with pytest.raises(AtomError, match="see 'llverify atoms list'"):
        atoms.get("zzz")
    with pytest.raises(AtomError, match="Argument 'name' must be an atom name"):
        atoms.get(3)  # type: ignore[arg-type]
    with pytest.raises(AtomError, match="Argument 'family' must be one of"):
        atoms.atoms("mma")
    with pytest.raises(AtomError, match="Argument 'role' must be one of"):
        atoms.get("SM75_U32x1_LDSM_N").operand("A")
    assert issubclass(AtomError, ValueError)


# ---------------------------------------------------------------------- pictures


def test_atom_picture_labels_every_operand() -> None:
    from llverify.atoms.picture import atom_picture

    picture = atom_picture(atoms.get("SM80_16x8x16_F32F16F16F32_TN"))
    svg = picture.svg()
    assert svg.count('class="tv-cell"') == 16 * 16 + 16 * 8 + 16 * 8
    for label in ("A (M x K): 16 x 16", "B (K x N): 16 x 8", "C (M x N): 16 x 8", "T31", "V7"):
        assert label in svg
    # the PTX figure: a4 of thread 0 is A[0][8]; b2 of thread 0 is B[8][0]
    assert "(0, 8): thread 0 (lane 0, warp 0) value 4" in svg
    assert "(8, 0): thread 0 (lane 0, warp 0) value 2" in svg
    html = picture.html()
    assert "<svg" in html and "SM80_16x8x16_F32F16F16F32_TN" in html


def test_large_and_non_linear_pictures() -> None:
    from llverify.atoms.picture import atom_picture
    from llverify.draw import tv_picture

    big = atom_picture(atoms.get("SM90_64x24x16_F32F16F16_RS"))
    assert big.info["panels"]["C (M x N)"] == {"rows": 64, "cols": 24, "cells": 1536, "empty": 0}
    cropped = atom_picture(atoms.get("SM90_64x256x16_F32F16F16_RS"), max_cells=512)
    assert "shown" in cropped.svg() and cropped.info["panels"]["C (M x N)"]["cells"] <= 512
    padded = tv_picture("(4,2):(2,1)", (4, 4))  # only 8 of 16 cells held: grey
    assert padded.info["panels"]["TV layout"]["empty"] == 8


def test_tv_picture_refuses_bad_arguments() -> None:
    from llverify.draw import DrawError, tv_picture

    with pytest.raises(DrawError, match="Argument 'tile'"):
        tv_picture("(4,2):(2,1)", (4,))
    with pytest.raises(DrawError, match="outside the 2x2 tile"):
        tv_picture("(4,2):(2,1)", (2, 2))
    with pytest.raises(DrawError, match="Argument 'tv'"):
        tv_picture(3.5, (2, 2))


def test_swizzle_before_after_counts_conflicts_on_both_maps() -> None:
    from llverify.draw import swizzle_comparison_picture
    from llverify.layout import LinearLayout
    from llverify.layout_utils import identity_standard_nd

    plain = identity_standard_nd("offset", [32, 32], [1, 0]).transpose_outs(["dim0", "dim1"])
    xor = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 1], [2, 2], [4, 4], [8, 8], [16, 16]]
    swizzled = LinearLayout.from_bases([("offset", xor)], ["dim0", "dim1"])
    column = LinearLayout.from_bases(
        [("register", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]),
         ("lane", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]])],
        ["dim0", "dim1"],
    )  # fmt: skip
    picture = swizzle_comparison_picture(plain, swizzled, 32, "nvidia", column)
    # 128-bit vectors (4 registers along a row): a pass is 8 lanes, 8 rows of one bank
    assert picture.info["conflicts"] == {"before": 7, "after": 0}
    svg = picture.svg()
    assert "before: linear layout" in svg and "after: linear layout" in svg


# ---------------------------------------------------------------------- CLI


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "llverify", *args], capture_output=True, text=True, env=env,
        cwd=ROOT, timeout=300,
    )  # fmt: skip


def test_cli_list_show_prove() -> None:
    listed = _cli("atoms", "list", "--family", "ldmatrix", "--json")
    assert listed.returncode == 0
    assert [row["name"] for row in json.loads(listed.stdout)][0] == "SM75_U32x1_LDSM_N"
    shown = _cli("atoms", "show", "SM80_16x8x8_F16F16F16F16_TN")
    assert shown.returncode == 0
    assert "CuTe TV layout: ((4, 8), (2, 2)):((32, 1), (16, 8)) over [16, 8]" in shown.stdout
    assert shown.stdout.count("proved") == 3
    proved = _cli("atoms", "prove", "--family", "stmatrix", "--json")
    assert proved.returncode == 0
    assert json.loads(proved.stdout) == {"stmatrix": {"atoms": 9, "proved": 9, "refuted": 0,
                                                      "unknown": 0}}  # fmt: skip


def test_cli_show_sparse_metadata() -> None:
    shown = _cli("atoms", "show", "mma.sp.m16n8k32.s32.s8.s8.s32", "--json")
    assert shown.returncode == 0
    facts = json.loads(shown.stdout)["metadata"]
    assert facts["selector_lanes"] == {
        "0": [4 * q + t for q in range(8) for t in (0, 1)],
        "1": [4 * q + t for q in range(8) for t in (2, 3)],
    }
    assert (facts["chunk"], facts["nonzeros"], facts["index_bits"]) == (4, 2, 2)
    assert facts["ordered_valid_indices"] == [4, 8, 9, 12, 13, 14]
    assert "Figure 129" in facts["figures_only"]
    text = _cli("atoms", "show", "mma.sp.m16n8k8.f32.tf32.tf32.f32")
    assert text.returncode == 0
    assert "      3: lanes 3, 7, 11, 15, 19, 23, 27, 31" in text.stdout
    assert "(not modelled)" in text.stdout
    dense = _cli("atoms", "show", "SM80_16x8x8_F16F16F16F16_TN", "--json")
    assert "metadata" not in json.loads(dense.stdout)  # a dense atom has no metadata operand


def test_cli_family_names_and_bad_family() -> None:
    from llverify.cli.atoms_cmd import FAMILY_NAMES

    assert tuple(FAMILY_NAMES.split(", ")) == atoms.FAMILIES
    for action in ("list", "prove"):
        done = _cli("atoms", action, "--family", "mma")
        assert done.returncode == 2 and "Argument 'family' must be one of" in done.stderr


def test_cli_unknown_atom_exits_2_with_close_matches(tmp_path: Path) -> None:
    for action in ("show", "draw"):
        extra = ["-o", str(tmp_path / "x.svg")] if action == "draw" else []
        done = _cli("atoms", action, "SM80_16x8x16_F32F16F16F32", *extra)
        assert done.returncode == 2 and done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in done.stderr
        assert "close matches: SM80_16x8x16_F32F16F16F32_TN" in lines[0]


def test_cli_draw_atom_and_swizzle_before_after(tmp_path: Path) -> None:
    out = tmp_path / "mma.svg"
    done = _cli("atoms", "draw", "SM70_8x8x4_F32F16F16F32_TN", "-o", str(out), "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["atom"] == "SM70_8x8x4_F32F16F16F32_TN" and info["cells"] == 32 + 32 + 64
    assert "thread t is lane (lane &amp; 3) + 16 * (lane &gt;&gt; 2)" in out.read_text()
    shared = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
    row = ("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
           "order = [1, 0]}>")  # fmt: skip
    both = tmp_path / "banks.svg"
    done = _cli("draw", shared, "--shape", "128x64", "--register", row, "--before", "unswizzled",
                "-o", str(both), "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["kind"] == "swizzle comparison" and set(info["conflicts"]) == {"before", "after"}
    text = both.read_text()
    assert re.search(r"before: ", text) and "after: " in text
    refused = _cli("draw", row, "--shape", "128x64", "--before", "unswizzled", "-o", str(both))
    assert refused.returncode == 2 and "--before applies to a shared LAYOUT" in refused.stderr


# ---------------------------------------------------------------------- cp.async, shuffles


def test_cp_async_sizes_follow_the_ptx_table() -> None:
    """.ca copies 4, 8 or 16 bytes, .cg only 16; each thread's chunk is one row of bytes."""
    sizes = {a.name: a.operand("fragment").values for a in atoms.atoms("cp.async")}
    assert sizes["SM80_CP_ASYNC_CACHEALWAYS_U32"] == 4
    assert sizes["SM80_CP_ASYNC_CACHEALWAYS_ZFILL_U64"] == 8
    assert {v for k, v in sizes.items() if "CACHEGLOBAL" in k} == {16}
    atom = atoms.get("cp.async.cg.16.zfill")
    assert atom.name == "SM80_CP_ASYNC_CACHEGLOBAL_ZFILL_U128" and atom.threads == 1
    assert atom.operand("fragment").layout().apply({"register": 9, "lane": 0}) == {
        "dim0": 0, "dim1": 9}  # fmt: skip


def test_shuffles_agree_with_the_simulator_and_the_reference() -> None:
    """Three statements agree: the CUDA definition (the atom), the PTX formula (the reference)
    and the emitted-code simulator's shfl.sync, on every lane, b and width."""
    import numpy as np

    from llverify.atoms.shuffle import MODES, WIDTHS, Shuffle, operand_c
    from llverify.emitted.sim.intrinsics import shuffle_sources

    lanes = np.arange(32)
    for mode in MODES:
        for width in WIDTHS:
            for b in range(32):
                sim = shuffle_sources(
                    mode, lanes, np.int64(b), np.int64(operand_c(mode, width)), 32
                )
                assert Shuffle(mode, b, width).sources() == [int(x) for x in sim], (mode, b, width)


def test_shuffle_negative_controls_are_refuted_and_replayed() -> None:
    from llverify.atoms.shuffle import cuda_source_lane, operand_c, prove_shuffle

    def replay(mode: str, verdict) -> None:
        at = verdict.counterexample
        env = {"lane": at["lane"], "b": at["b"], "c": operand_c(mode, at["width"])}
        text = operand_formulas_of(f"shfl.sync.{mode}")["source_lane"]
        assert Formula(text).evaluate(IntOps(), env) == verdict.expected["source_lane"]
        assert verdict.actual != verdict.expected

    def operand_formulas_of(name: str) -> dict:
        from llverify.specs.fragments import reference

        return dict(reference(name).formulas)

    # __shfl_xor_sync without segments: lane ^ b even into a later segment
    no_segments = prove_shuffle("bfly", lambda mode, lane, b, width: lane ^ b)
    assert no_segments.status.value == "refuted"
    replay("bfly", no_segments)

    # __shfl_up_sync clamped at the warp, not the segment
    def up_warp(mode: str, lane: int, b: int, width: int) -> int:
        return lane - b if lane >= b else lane

    up = prove_shuffle("up", up_warp)
    assert up.status.value == "refuted" and up.counterexample["width"] < 32
    replay("up", up)
    # down and up exchanged
    swapped = prove_shuffle("down", lambda mode, lane, b, width: cuda_source_lane(
        "up", lane, b, width))  # fmt: skip
    replay("down", swapped)


def test_shuffle_views_and_refusals() -> None:
    from llverify.atoms.shuffle import Shuffle, prove_shuffle

    broadcast = Shuffle("idx", 16, width=16).layout()  # the first lane of each 16-lane half
    assert [broadcast.apply({"lane": lane})["source_lane"] for lane in (5, 21)] == [0, 16]
    assert Shuffle("bfly", 0).layout().apply({"lane": 7}) == {"source_lane": 7}
    with pytest.raises(AtomError, match="lane 0 reads lane 4, not 0 .the map is affine"):
        Shuffle("bfly", 4).layout()
    with pytest.raises(AtomError, match="lane 3 reads lane 2, but the XOR of its bits.* is 1"):
        Shuffle("up", 1).layout()  # clamped at lane 0
    for args, match in (
        (("rotate", 1), "Argument 'mode'"),
        (("idx", 32), "Argument 'b'"),
        (("idx", 1, 3), "Argument 'width'"),
    ):
        with pytest.raises(AtomError, match=match):
            Shuffle(*args)
    with pytest.raises(AtomError, match="Argument 'mode'"):
        prove_shuffle("xor")
    atom = atoms.get("__shfl_down_sync")
    assert atom.name == "shfl.sync.down" and atom.shuffle == "down" and atom.threads == 32


def test_cli_shuffle_show_and_draw_refusal(tmp_path: Path) -> None:
    shown = _cli("atoms", "show", "__shfl_xor_sync", "--json")
    assert shown.returncode == 0
    summary = json.loads(shown.stdout)
    assert summary["status"] == "proved" and summary["lanes"].startswith("proved by enumeration")
    drawn = _cli("atoms", "draw", "shfl.sync.idx", "-o", str(tmp_path / "s.svg"))
    assert drawn.returncode == 2 and "is a lane map" in drawn.stderr


# ---------------------------------------------------------------------- mma.sp


def test_sparse_packed_a_is_the_dense_a_of_half_the_k() -> None:
    """The PTX sparse sections' packed A (row by register, the K-chunk a register holds)
    equals the dense A fragment of K/2, for every catalogued shape and for the four shapes
    whose atoms are not catalogued (m16n8k32 .f16, m16n8k16 .tf32, m16n8k64 .s8, m16n8k128
    .s4: their B is only a figure in the PTX ISA)."""
    from llverify.atoms.catalogue import Operand

    packed = Operand("A", (16, 16), "mma.sp.m16n8k32.f16.A", "((4,8),(2,2,2)):((32,1),(16,8,128))")
    assert prove_operand(packed).proved
    from llverify.specs.fragments import reference

    dense = {"mma.sp.m16n8k16.f16.A": ("mma.m16n8k8.f16.A", 4),
             "mma.sp.m16n8k32.f16.A": ("mma.m16n8k16.f16.A", 8),
             "mma.sp.m16n8k8.tf32.A": ("mma.m16n8k4.tf32.A", 2),
             "mma.sp.m16n8k16.tf32.A": ("mma.m16n8k8.tf32.A", 4),
             "mma.sp.m16n8k32.b8.A": ("mma.m16n8k16.b8.A", 8),
             "mma.sp.m16n8k64.b8.A": ("mma.m16n8k32.b8.A", 16),
             "mma.sp.m16n8k64.b4.A": ("mma.m16n8k32.b4.A", 16),
             "mma.sp.m16n8k128.b4.A": ("mma.m16n8k64.b4.A", 32)}  # fmt: skip
    for name, (dense_name, values) in dense.items():
        ours, theirs = reference(name).formulas, reference(dense_name).formulas
        for register in range(values):
            for lane in range(32):
                env = {"register": register, "lane": lane}
                assert {d: Formula(t).evaluate(IntOps(), env) for d, t in ours.items()} == {
                    d: Formula(t).evaluate(IntOps(), env) for d, t in theirs.items()
                }, name
    for atom in atoms.atoms("mma.sp"):
        a = atom.operand("A")
        assert a.shape == (16, atom.mnk[2] // 2) and a.reference in dense
        assert atom.operand("B").shape == (atom.mnk[2], 8)


def test_sparse_atoms_look_up_and_unpacked_columns_are_refuted() -> None:
    """A packed A read with the chunk's own columns (firstcol = 4 tig, not packed) is
    refuted, the counterexample replayed on the LinearLayout."""
    atom = atoms.get("MMA.SP.M16N8K16.F32.BF16.BF16.F32")
    assert atom.family == "mma.sp" and atom.mnk == (16, 8, 16)
    layout = atom.operand("A").layout()
    unpacked = {
        "dim0": "(lane >> 2) + 8 * (register >> 1)",
        "dim1": "4 * (lane % 4) + (register & 1)",
    }
    verdict = prove_equal(layout, unpacked)
    assert verdict.status.value == "refuted"
    point = {"register": verdict.counterexample["register"], "lane": verdict.counterexample["lane"]}
    assert layout.apply(point) == verdict.actual
    expected = {d: Formula(t).evaluate(IntOps(), point) for d, t in unpacked.items()}
    assert expected == verdict.expected != verdict.actual


#: LLVM's sparse selector ranges (llvm/test/CodeGen/NVPTX/wmma.py sp_selector_gen and
#: IntrinsicsNVVM.td NVVM_MMA_SP num_threads, after llvm/llvm-project PR #154984): an
#: independent statement of which selector values each sparse shape accepts.
_LLVM_RANGE_01 = {
    ("m16n8k32", "f16"),
    ("m16n8k32", "bf16"),
    ("m16n8k16", "tf32"),
    ("m16n8k32", "s8"),
    ("m16n8k32", "u8"),
    ("m16n8k64", "s4"),
    ("m16n8k64", "u4"),
}
_LLVM_RANGE_0 = {("m16n8k64", "s8"), ("m16n8k64", "u8"), ("m16n8k128", "s4"),
                 ("m16n8k128", "u4")}  # fmt: skip
#: Before PR #154984 LLVM's table left m16n8k32 .f16 and m16n8k128 .s4/.u4 at 0..3.
_LLVM_OLD_RANGE_01 = _LLVM_RANGE_01 - {("m16n8k32", "f16")}
_LLVM_OLD_RANGE_0 = _LLVM_RANGE_0 - {("m16n8k128", "s4"), ("m16n8k128", "u4")}


def _llvm_selectors(geometry: str, ptx_type: str, range_01: set, range_0: set) -> list[int]:
    if (geometry, ptx_type) in range_01:
        return [0, 1]
    return [0] if (geometry, ptx_type) in range_0 else [0, 1, 2, 3]


_PTX_TYPES = {"f16": ("f16", "bf16"), "tf32": ("tf32",), "b8": ("s8", "u8"), "b4": ("s4", "u4")}


def test_sparse_selectors_agree_with_llvm_and_refute_its_old_table() -> None:
    """The selector values the PTX text allows per shape are LLVM's ranges; LLVM's table
    before PR #154984 (selectors 2, 3 for m16n8k32 .f16, 1..3 for m16n8k128 .s4/.u4) is
    refuted on exactly those shapes."""
    from llverify.atoms.sparse import METADATA

    wrong = set()
    for key, meta in METADATA.items():
        geometry, kind = key.split(".")
        for ptx_type in _PTX_TYPES[kind]:
            ours = sorted(meta.threads)
            assert ours == _llvm_selectors(geometry, ptx_type, _LLVM_RANGE_01, _LLVM_RANGE_0)
            if ours != _llvm_selectors(geometry, ptx_type, _LLVM_OLD_RANGE_01, _LLVM_OLD_RANGE_0):
                wrong.add((geometry, ptx_type))
    assert wrong == {("m16n8k32", "f16"), ("m16n8k128", "s4"), ("m16n8k128", "u4")}


#: CUTLASS include/cutlass/arch/mma_sparse_sm80.h SparseMma<...>: (kMaxID2, the number of
#: selector values it issues; kMetaSizeInBits, the index width) for the shapes it has.
_CUTLASS_SPARSE = {"m16n8k32.f16": (2, 2), "m16n8k16.tf32": (2, 4), "m16n8k64.b8": (1, 2),
                   "m16n8k128.b4": (1, 2)}  # fmt: skip


def test_sparse_selectors_and_index_widths_agree_with_cutlass() -> None:
    from llverify.atoms.sparse import METADATA

    for key, (max_id2, meta_bits) in _CUTLASS_SPARSE.items():
        assert (len(METADATA[key].threads), METADATA[key].index_bits) == (max_id2, meta_bits)
    assert {m.index_bits for m in METADATA.values()} == {2, 4}


def _quad_chunks(meta: object, quad: int) -> set[tuple[int, int]]:
    """The (row, chunk) pairs quad ``quad``'s packed A holds, by the PTX A formula."""
    from llverify.specs.fragments import reference

    formulas = reference(meta.a_reference).formulas  # type: ignore[attr-defined]
    held = set()
    for register in range(meta.k // 4):  # type: ignore[attr-defined]
        for lane in range(4 * quad, 4 * quad + 4):
            env = {"register": register, "lane": lane}
            row = Formula(formulas["dim0"]).evaluate(IntOps(), env)
            packed = Formula(formulas["dim1"]).evaluate(IntOps(), env)
            held.add((row, packed // meta.nonzeros))  # type: ignore[attr-defined]
    return held


def _metadata_bits_agree(meta: object) -> bool:
    """Whether the contributing threads' 32-bit registers hold exactly the metadata of the
    chunks their quad's A covers, for every selector."""
    for quad in range(8):
        chunks = _quad_chunks(meta, quad)
        if {row for row, _ in chunks} != {quad, quad + 8}:
            return False
        if len(chunks) != meta.quad_chunks():  # type: ignore[attr-defined]
            return False
        for threads in meta.threads.values():  # type: ignore[attr-defined]
            if 32 * len(threads) != len(chunks) * meta.chunk_bits:  # type: ignore[attr-defined]
                return False
    return True


def test_sparse_metadata_threads_hold_their_quads_chunks() -> None:
    """The selector text (one thread, a pair or all four contribute), the index widths and
    the packed A formulas agree: the contributing threads' registers hold exactly the
    metadata of the chunks of their quad's rows; one thread where a pair is needed is
    refuted."""
    from llverify.atoms.sparse import METADATA

    for meta in METADATA.values():
        assert _metadata_bits_agree(meta), meta.key
    one_thread = replace(METADATA["m16n8k32.f16"], threads={s: (s,) for s in range(4)})
    assert not _metadata_bits_agree(one_thread)
    assert not _metadata_bits_agree(replace(METADATA["m16n8k128.b4"], threads={0: (0, 1)}))


def test_sparse_metadata_lanes_and_bad_selectors() -> None:
    from llverify.atoms.sparse import METADATA, metadata

    assert metadata("m16n8k16.f16").lanes(3) == tuple(range(3, 32, 4))
    assert metadata("mma.sp.m16n8k32.s32.u8.s8.s32").lanes(1)[:4] == (2, 3, 6, 7)
    assert metadata("m16n8k64.b8").lanes(0) == tuple(range(32))
    for key, bad in (("m16n8k32.f16", 2), ("m16n8k16.tf32", 3), ("m16n8k64.b4", 2),
                     ("m16n8k64.b8", 1), ("m16n8k128.b4", 1), ("m16n8k16.f16", 4),
                     ("m16n8k8.tf32", -1)):  # fmt: skip
        with pytest.raises(ValueError, match=rf"Argument 'selector' must be one of .*, not {bad}"):
            METADATA[key].lanes(bad)
    with pytest.raises(ValueError, match="not True"):
        METADATA["m16n8k16.f16"].selector_threads(True)
    for bad in ("SM80_16x8x16_F32F16F16F32_TN", "m16n8k48.f16", "mma.sp.m16n8k48.f32.f16.f16.f32",
                "mma.sp.m16n8k16.f32.f16.f16", "mma.sp.m16n8k32.s32.s8.s4.s32", None):  # fmt: skip
        with pytest.raises(ValueError, match="Argument 'name' must be an mma.sp instruction"):
            metadata(bad)  # type: ignore[arg-type]
    for atom in atoms.atoms("mma.sp"):  # every atom's name and alias resolves to its shape
        assert metadata(atom.name) is metadata(atom.aliases[0])
        assert metadata(atom.name).k == atom.mnk[2]


def test_sparse_ordered_metadata_indices_and_aliases() -> None:
    """mma.sp::ordered_metadata: the same atoms (aliases), the six meaningful index values
    the PTX text lists (increasing positions), against the twelve of mma.sp (any two
    different positions: 0b0000, 0b0101, 0b1010, 0b1111 undefined)."""
    from llverify.atoms.sparse import METADATA

    text_ordered = (0b0100, 0b1000, 0b1001, 0b1100, 0b1101, 0b1110)
    for key in ("m16n8k16.f16", "m16n8k32.b8", "m16n8k64.b4"):
        assert METADATA[key].valid_indices(ordered=True) == text_ordered
        unordered = METADATA[key].valid_indices()
        assert len(unordered) == 12 and not {0b0000, 0b0101, 0b1010, 0b1111} & set(unordered)
    assert METADATA["m16n8k8.tf32"].valid_indices() == (0b0100, 0b1110)
    for atom in atoms.atoms("mma.sp"):
        ordered = atom.name.replace("mma.sp.", "mma.sp::ordered_metadata.", 1)
        assert atoms.get(ordered) is atom


def test_sparse_b_transposed_and_half_k_b_are_refuted() -> None:
    """Negative controls on the m16n8k64 .s4 atom: B with each 8x8 block transposed, and B
    against the dense B of half the K; each counterexample replayed on the layout."""
    from llverify.atoms.library import perturbed

    transposed = perturbed("mma.sp.m16n8k64.s32.s4.s4.s32", "B", "((4,8),(8,2)):((64,8),(1,256))")
    b = transposed.operand("B")
    for operand, formulas in (
        (b, operand_formulas(b)),
        (atoms.get("mma.sp.m16n8k64.s32.s4.s4.s32").operand("B"),
         operand_formulas(replace(b, reference="mma.m16n8k32.b4.B"))),
    ):  # fmt: skip
        layout = operand.layout()
        verdict = prove_equal(layout, formulas)
        assert verdict.status.value == "refuted"
        point = dict(verdict.counterexample)
        assert layout.apply(point) == verdict.actual != verdict.expected


# ---------------------------------------------------------------------- block-scaled mma


def test_block_scale_factors_do_not_depend_on_the_thread_selectors() -> None:
    """SF_A is held by either thread pair of a quad (thread-id-a 0 or 1), SF_B by any thread
    of it (thread-id-b 0..3): the lane bits the selectors choose have zero bases."""
    for atom in atoms.atoms("mma.block_scale"):
        k = atom.mnk[2]
        sfa, sfb = atom.operand("SFA").layout(), atom.operand("SFB").layout()
        lane_a, lane_b = dict(sfa.bases)["lane"], dict(sfb.bases)["lane"]
        assert lane_a[1] == [0, 0] and lane_a[0] == [8, 0]  # bit 1: thread-id-a
        assert lane_b[0] == lane_b[1] == [0, 0]  # bits 0, 1: thread-id-b
        assert (atom.operand("SFA").values, atom.operand("SFB").values) == (k, k)
    names = {a.name for a in atoms.atoms("mma.block_scale")}
    assert atoms.get("SM120_16x8x64_TN_VS16").name in names
    assert "scale_vec::4X" in atoms.get("SM120_16x8x64_TN_VS16").instruction


def test_block_scale_picture_has_the_scale_panels() -> None:
    from llverify.atoms.picture import atom_picture

    info = atom_picture(atoms.get("SM120_16x8x32_TN_VS32")).info
    assert info["panels"]["SFA (scale of A, M x K)"] == {"rows": 16, "cols": 32, "cells": 512,
                                                         "empty": 0}  # fmt: skip


# ---------------------------------------------------------------------- tcgen05


def test_tcgen05_atoms_equal_the_triton_message_tiles() -> None:
    """Triton 3.9's tcgen05.ld/st message tile (getTileLayout, llverify.encodings.tmem), a
    third statement, gives the same bases as the CuTe atom of .num 1; stores mirror loads."""
    from llverify.encodings.tmem import message_tile

    for shape, key in (("32x32b", "32dp32b1x"), ("16x64b", "16dp64b1x"),
                       ("16x128b", "16dp128b1x"), ("16x256b", "16dp256b1x")):  # fmt: skip
        ours = atoms.get(f"SM100_TMEM_LOAD_{key}").operand("fragment").layout()
        theirs = message_tile(shape)
        assert _bases(ours) == _bases(theirs), shape
        store = atoms.get(f"tcgen05.st.{shape}.x1").operand("fragment").layout()
        assert _bases(store) == _bases(ours)
    wide = atoms.get("tcgen05.ld.16x256b.x32")
    assert wide.name == "SM100_TMEM_LOAD_16dp256b32x"
    assert wide.operand("fragment").shape == (16, 256) and wide.operand("fragment").values == 128


# ---------------------------------------------------------------------- multi-block MFMA


def test_multi_block_mfma_atoms() -> None:
    """16 multi-block MFMA atoms (2, 4 and 16 blocks; f32, f16, bf16_1k, i8 and CDNA1 bf16;
    f64 4x4x4 with 4 blocks): the blocks stacked (A's along the rows, B's and D's along the
    columns)."""
    names = [a.name for a in atoms.atoms("mfma") if "b_" in a.name or "x2bf16" in a.name]
    assert len(names) == 16
    atom = atoms.get("v_mfma_f32_32x32x1f32")  # the CDNA1 spelling is an alias
    assert atom.name == "v_mfma_f32_32x32x1_2b_f32" and atom.mnk == (32, 32, 1)
    c = atom.operand("C")
    assert c.shape == (32, 64) and (c.threads, c.values) == (64, 32)
    # block 1's D[5][1] (register 16 + 4 * (5 // 8) + 5 % 4, lane 1 + 32 * ((5 // 4) % 2))
    assert c.layout().apply({"register": 17, "lane": 33}) == {"dim0": 5, "dim1": 33}
    assert atoms.get("v_mfma_f32_4x4x4_16b_f16").operand("A").shape == (64, 4)


def _squeezed(layout):
    for name, size in layout.in_dims:
        if size == 1 and name not in ("register", "lane"):
            layout = layout.squeeze_ins(name)
    return layout


def test_multi_block_mfma_agrees_with_triton() -> None:
    """Triton 3.9 as a third statement: its 4x64 MFMA instruction shape is the 16-block
    4x4x4 D, and block 0 of the 2-block 32x32 D (its first 16 registers) is Triton's 32x32
    accumulator."""
    from llverify.encodings.amd_mfma import AMDMFMALayout

    triton_4x64 = AMDMFMALayout(3, [4, 64, 4], False, [1, 1], 32, None).to_linear_layout([4, 64])
    assert atoms.get("v_mfma_f32_4x4x4_16b_f16").operand("C").layout() == _squeezed(triton_4x64)
    d = atoms.get("v_mfma_f32_32x32x1_2b_f32").operand("C").layout()
    triton_32 = _squeezed(
        AMDMFMALayout(3, [32, 32, 8], False, [1, 1], 32, None).to_linear_layout([32, 32])
    )
    assert d.bases[0][1][:4] == triton_32.bases[0][1] and d.bases[1] == triton_32.bases[1]


@pytest.mark.parametrize(
    ("name", "role", "wrong"),
    [
        # the 2 blocks read as one 32x32 instruction's D (registers 16..31 are block 1)
        ("v_mfma_f32_32x32x1_2b_f32", "C", "v_mfma_f32_32x32x8_f16 D"),
        # the 4 blocks' D read as the 2-block layout
        ("v_mfma_f32_16x16x4_4b_f16", "C", "mfma.32x32.2b.D"),
        # A read as B (the blocks along the columns)
        ("v_mfma_i32_4x4x4_16b_i8", "A", "mfma.blocks.B"),
    ],
)
def test_multi_block_mfma_wrong_formula_is_refuted(name: str, role: str, wrong: str) -> None:
    operand = atoms.get(name).operand(role)
    assert prove_operand(operand).proved
    bad = replace(operand, reference=wrong)
    _replayed(bad, prove_operand(bad))


def test_f64_4x4x4_four_block_atom() -> None:
    """``v_mfma_f64_4x4x4_4b_f64`` (CDNA2 ``v_mfma_f64_4x4x4f64``): one double per lane, K
    across the lanes (block b's A[i][k] in lane 16 k + 4 b + i; B[k][j] and D[i][j] in lane
    16 k|i + 4 b + j), unlike the other multi-block instructions, whose K is in registers."""
    atom = atoms.get("v_mfma_f64_4x4x4f64")
    assert atom.name == "v_mfma_f64_4x4x4_4b_f64" and atom.arch == ("gfx90a", "gfx942", "gfx950")
    assert atoms.prove_atom(atom).proved
    a, b, c = (atom.operand(role) for role in ("A", "B", "C"))
    assert (a.shape, b.shape, c.shape) == ((16, 4), (4, 16), (4, 16))
    assert (a.threads, a.values, c.values) == (64, 1, 1)
    # lane 16 * 3 + 4 * 2 + 1: block 2's A[1][3] (stacked row 9), B[3][1] and D[3][1] (column 9)
    assert a.layout().apply({"register": 0, "lane": 57}) == {"dim0": 9, "dim1": 3}
    assert b.layout().apply({"register": 0, "lane": 57}) == {"dim0": 3, "dim1": 9}
    assert c.layout().apply({"register": 0, "lane": 57}) == {"dim0": 3, "dim1": 9}


@pytest.mark.parametrize(
    ("role", "wrong"),
    [
        # K in registers and the stacked row in the lane, as the other multi-block atoms
        ("A", "mfma.blocks.A"),
        # A read as B (the blocks along the columns)
        ("A", "mfma.f64.4x4x4.4b.B"),
        # D read as the 16-block 4x4 instructions' D (rows in registers)
        ("C", "mfma.4x4.16b.D"),
    ],
)
def test_f64_4x4x4_wrong_formula_is_refuted(role: str, wrong: str) -> None:
    operand = atoms.get("v_mfma_f64_4x4x4_4b_f64").operand(role)
    bad = replace(operand, reference=wrong)
    _replayed(bad, prove_operand(bad))


def test_f64_4x4x4_perturbed_fragment_is_refuted() -> None:
    """The A fragment with its block and row lane bits exchanged (lane 4 b + i read as
    4 i + b) is refuted against the lab-notes formula, and the counterexample replays."""
    from llverify.layout import LinearLayout

    operand = atoms.get("v_mfma_f64_4x4x4_4b_f64").operand("A")
    lane = [[4, 0], [8, 0], [1, 0], [2, 0], [0, 1], [0, 2]]
    wrong = LinearLayout.from_bases([("register", []), ("lane", lane)], ["dim0", "dim1"], [16, 4])
    verdict = prove_equal(wrong, operand_formulas(operand))
    assert verdict.refuted
    at = verdict.counterexample
    expected = {d: Formula(f).evaluate(IntOps(), at) for d, f in operand_formulas(operand).items()}
    assert wrong.apply(at) != expected


# ---------------------------------------------------------------------- closed forms in pictures


def test_atom_picture_captions_carry_the_closed_forms() -> None:
    """Each linear fragment's closed form (explain, LaTeX) is in the picture's caption and
    info; the formula it prints is the one proved equal to the vendor reference."""
    from llverify.atoms.picture import atom_picture
    from llverify.proof.explain import explain

    atom = atoms.get("SM80_16x8x16_F32F16F16F32_TN")
    picture = atom_picture(atom)
    svg = picture.svg()
    for op in atom.operands:
        latex = explain(op.layout(), "latex")
        assert picture.info["latex"][op.role] == latex
        # the printed formula is the fragment, which is the vendor formula
        assert prove_equal(op.layout(), explain(op.layout())).proved
        assert prove_operand(op).proved
    assert "m = $" in svg and "\\bmod" in svg
    # a non-power-of-2 fragment has no closed form, and says so
    wide = atom_picture(atoms.get("SM90_64x24x16_F32F16F16_RS"))
    assert wide.info["latex"]["C"] is None and "no closed form" in wide.svg()


def test_tv_picture_caption_has_the_closed_form_or_why_not() -> None:
    from llverify.draw import tv_picture

    linear = tv_picture(parse("((4,8),(2,2)):((32,1),(16,8))"), (16, 8))
    assert set(linear.info["latex"]) == {"dim0", "dim1"} and "(m, n) of CuTe" in linear.svg()
    three = tv_picture(parse("(32,3):(3,1)"), (96, 1))
    assert three.info["latex"] is None and "no closed form" in three.svg()


# ---------------------------------------------------------------------- tcgen05 .pack::16b


def test_packed_tcgen05_atoms() -> None:
    """The 74 `_16b` atoms (.pack::16b loads, .unpack::16b stores): in 16-bit elements, element
    2 i + h of a thread is column 2 c(i) + h of the TMEM lane the unpacked register i reads,
    so the message covers twice the columns."""
    packed = [a for a in atoms.atoms() if a.name.endswith("_16b")]
    assert len(packed) == 74 and all(atoms.prove_atom(a).proved for a in packed)
    atom = atoms.get("tcgen05.ld.16x256b.x1.pack::16b")
    assert atom.name == "SM100_TMEM_LOAD_16dp256b1x_16b"
    fragment = atom.operand("fragment")
    assert fragment.shape == (16, 16) and fragment.values == 8  # 4 registers, 8 halves
    plain = atoms.get("SM100_TMEM_LOAD_16dp256b1x").operand("fragment").layout()
    ll = fragment.layout()
    for i in range(4):
        for h in range(2):
            for lane in (0, 5, 31):
                unpacked = plain.apply({"register": i, "lane": lane})
                got = ll.apply({"register": 2 * i + h, "lane": lane})
                assert got == {"dim0": unpacked["dim0"], "dim1": 2 * unpacked["dim1"] + h}


@pytest.mark.parametrize(
    ("name", "wrong_tv", "wrong_reference"),
    [
        # the half and the register exchanged: h picks the column pair, i the column in it
        ("SM100_TMEM_LOAD_32dp32b2x_16b", "(32,(2,2)):(4,(2,1))", None),
        # the packed message read as the unpacked .x2 one (columns c(i) of registers 0..2n-1)
        ("SM100_TMEM_LOAD_16dp256b1x_16b", None, "tcgen05.16x256b"),
        # a 16x128b store read with the 16x64b shape's packed formula
        ("SM100_TMEM_STORE_16dp128b1x_16b", None, "tcgen05.16x64b.pack16b"),
    ],
)
def test_packed_tcgen05_wrong_fragment_is_refuted(
    name: str, wrong_tv: str | None, wrong_reference: str | None
) -> None:
    operand = atoms.get(name).operand("fragment")
    assert prove_operand(operand).proved
    bad = replace(operand, tv_text=wrong_tv) if wrong_tv else replace(
        operand, reference=str(wrong_reference))  # fmt: skip
    _replayed(bad, prove_operand(bad))


# ---------------------------------------------------------------------- tcgen05 .16x32bx2


def test_16x32bx2_atoms_are_two_16x32b_halves() -> None:
    """The 32 `16dp32b` atoms (.16x32bx2, .x1-.x128, packed or not, load and store): thread
    t holds TMEM lane t % 16; threads 16-31 the second access, immHalfSplitoff columns to the
    right (CuTe passes .num, 2 .num packed), so the message is 2 .num contiguous columns."""
    split = [a for a in atoms.atoms() if "_16dp32b" in a.name]
    assert len(split) == 32 and all(atoms.prove_atom(a).proved for a in split)
    atom = atoms.get("tcgen05.ld.16x32bx2.x8")
    assert atom.name == "SM100_TMEM_LOAD_16dp32b8x"
    assert atom.instruction.endswith("16x32bx2.x8.b32 r, [taddr], 8")
    assert atoms.get("SM100_TMEM_STORE_16dp32b8x_16b").instruction.endswith(
        ".x8.unpack::16b.b32 [taddr], 16, r"
    )
    fragment = atom.operand("fragment")
    assert fragment.shape == (16, 16) and fragment.values == 8
    ll = fragment.layout()
    for lane in range(32):
        for register in range(8):
            got = ll.apply({"register": register, "lane": lane})
            assert got == {"dim0": lane % 16, "dim1": register + 8 * (lane // 16)}
    packed = atoms.get("SM100_TMEM_LOAD_16dp32b8x_16b").operand("fragment")
    assert packed.shape == (16, 32) and packed.values == 16
    # 16-bit element 2 i + h: column 2 i + h of the half, the second half at column 16
    assert packed.layout().apply({"register": 5, "lane": 20}) == {"dim0": 4, "dim1": 21}


def test_16x32bx2_equals_triton_block_m64_layout() -> None:
    """Triton 3.9's blockM = 64 TMEM register layout (a 32x32b load of a 16-row slab: lanes
    16-31 take the other half of the columns with 16x32bx2), a third statement: warp 0's
    registers and lanes are the CuTe atom SM100_TMEM_LOAD_16dp32b32x."""
    from llverify.encodings.tmem import TensorMemoryLayout, tmem_register_layout

    triton = tmem_register_layout(32, (64, 64), TensorMemoryLayout((64, 64), 1), 4, "32x32b")
    assert triton is not None
    ours = atoms.get("SM100_TMEM_LOAD_16dp32b32x").operand("fragment").layout()
    assert [list(b) for b in triton.reg_bases] == [list(b) for b in ours.bases[0][1]]
    assert [list(b) for b in triton.lane_bases] == [list(b) for b in ours.bases[1][1]]


@pytest.mark.parametrize(
    ("name", "wrong_tv", "wrong_reference"),
    [
        # the halves chosen by lane bit 0 instead of bit 4 (thread pairs sharing a lane)
        ("SM100_TMEM_LOAD_16dp32b2x", "((2,16),2):((2,4),1)", None),
        # both halves at the base address (immHalfSplitoff = 0)
        ("SM100_TMEM_STORE_16dp32b4x", None, "tcgen05.16x32bx2.off0"),
        # a packed load read with the unpacked offset (.num instead of 2 .num columns)
        ("SM100_TMEM_LOAD_16dp32b4x_16b", None, "tcgen05.16x32bx2.off4.pack16b"),
        # the 16x32bx2 message read as the 16x64b one
        ("SM100_TMEM_LOAD_16dp32b1x", None, "tcgen05.16x64b"),
    ],
)
def test_16x32bx2_wrong_fragment_is_refuted(
    name: str, wrong_tv: str | None, wrong_reference: str | None
) -> None:
    operand = atoms.get(name).operand("fragment")
    assert prove_operand(operand).proved
    bad = replace(operand, tv_text=wrong_tv) if wrong_tv else replace(
        operand, reference=str(wrong_reference))  # fmt: skip
    _replayed(bad, prove_operand(bad))


# ---------------------------------------------------------------------- 8-bit ldmatrix/stmatrix


def _cute_in_rows(memory: str, registers: str, shuffle: tuple[int, ...] | None) -> dict:
    """CuTe's Src/Dst layouts (bits) read point by point, independently of the catalogue's
    conversion: (lane, byte) -> (row of the address-supplying thread, byte in the row)."""
    src, dst = parse(memory), parse(registers)
    owner = {}
    for thread in reversed(range(src[0].size())):  # the lowest owning thread wins
        for bit in range(0, src[1].size(), 8):
            owner[src(thread, bit)] = (thread, bit // 8)
    result = {}
    for lane in range(32):
        for byte in range(dst[1].size() // 8):
            cute = byte if shuffle is None else 8 * (byte // 8) + shuffle.index(byte % 8)
            result[lane, byte] = owner[dst(lane, 8 * cute)]
    return result


def test_b8_matrix_atoms() -> None:
    """The 11 sm100/sm120 8-bit atoms: ldmatrix m16n16 .trans .b8 (x1, x2), m8n16 .b8x16 from
    4- and 6-bit sources (x1, x2, x4), stmatrix m16n8 .trans .b8 (x1, x2, x4); each fragment
    is CuTe's, read in shared-memory rows (and with CuTe's byte shuffle undone for m16n16)."""
    from llverify.atoms.nvidia_copy import _B8, _UNSHUFFLE

    b8 = [a for a in atoms.atoms() if a.name.startswith("SM100_") and "SM_T" in a.name
          or "_LDSM_N" in a.name and a.name.startswith("SM100_")]  # fmt: skip
    assert len(b8) == 11 and all(atoms.prove_atom(a).proved for a in b8)
    for name, (_, _, _, _, memory, registers, shuffled) in _B8.items():
        ll = atoms.get(name).operand("fragment").layout()
        expected = _cute_in_rows(memory, registers, _UNSHUFFLE if shuffled else None)
        for (lane, byte), (row, col) in expected.items():
            assert ll.apply({"register": byte, "lane": lane}) == {"dim0": row, "dim1": col}
    # m16n16 .trans: thread l holds rows l / 4 and l / 4 + 8 of the loaded matrix (r0, r1),
    # 4 consecutive columns 4 (l % 4) ..: shared-memory rows 4 (l % 4) + byte
    ld = atoms.get("ldmatrix.m16n16.x2.trans.b8").operand("fragment").layout()
    assert ld.apply({"register": 6, "lane": 9}) == {"dim0": 6, "dim1": 10}
    assert ld.apply({"register": 13, "lane": 9}) == {"dim0": 16 + 5, "dim1": 10}  # matrix 1, r3
    # CuTe's copy op reorders the bytes: its register 0 is not the instruction's
    cute = atoms.get("SM100_U8x8_LDSM_T").source
    assert "byte shuffle" in cute and "undone" in cute


@pytest.mark.parametrize(
    ("name", "wrong_tv", "wrong_reference"),
    [
        # CuTe's post-shuffle registers taken as the instruction's (byte order not undone)
        ("SM100_U8x8_LDSM_T", "((2,2,2,2,2),(2,2,2)):((64,128,1,2,4),(16,8,32))", None),
        # CuTe's DstLayout read in its own row labels, not the address-supplying thread's
        ("SM100_U8x8_LDSM_T", "((4,8),(1,2,2,2)):((32,1),(1,16,8,128))", None),
        # stmatrix m16n8 with a register byte's row and element steps exchanged
        ("SM100_U8x4_STSM_T", "((2,2,2,2,2),(2,2)):((32,64,1,2,4),(8,16))", None),
        # m8n16 (four 8-bit elements a thread) read with the m8n8 .b16 formula
        ("SM100_SU4_DU8x16_x2_LDSM_N", None, "ldmatrix.b16.stacked"),
        # m16n16 .trans read as the m8n16 (untransposed) formula
        ("SM100_U8x16_LDSM_T", None, "ldmatrix.m8n16.b8x16.stacked"),
    ],
)
def test_b8_matrix_wrong_fragment_is_refuted(
    name: str, wrong_tv: str | None, wrong_reference: str | None
) -> None:
    operand = atoms.get(name).operand("fragment")
    assert prove_operand(operand).proved
    bad = replace(operand, tv_text=wrong_tv) if wrong_tv else replace(
        operand, reference=str(wrong_reference))  # fmt: skip
    _replayed(bad, prove_operand(bad))


# ---------------------------------------------------------------------- block-scale bytes


def test_block_scale_byte_view() -> None:
    """SFA.bytes / SFB.bytes, the scale matrices as scale-a-data / scale-b-data hold them (one
    value per K block), are the element-wise SF_A / SF_B fragments at block granularity: the
    VS values of block j are value j, held by the same thread."""
    for atom in atoms.atoms("mma.block_scale"):
        assert atoms.prove_atom(atom).proved
        k, blocks = atom.mnk[2], atom.operand("SFA.bytes").shape[1]
        vs = k // blocks
        for role, k_dim in (("SFA", "dim1"), ("SFB", "dim0")):
            element, byte = atom.operand(role).layout(), atom.operand(f"{role}.bytes").layout()
            for lane in range(32):
                for j in range(blocks):
                    got = byte.apply({"register": j, "lane": lane})
                    for kk in range(j * vs, (j + 1) * vs):
                        want = element.apply({"register": kk, "lane": lane})
                        assert want[k_dim] == kk and want[k_dim] // vs == got[k_dim] == j
                        other = "dim0" if k_dim == "dim1" else "dim1"
                        assert want[other] == got[other]


def test_block_scale_byte_view_equals_triton_sm120_scale_layout() -> None:
    """Triton 3.9's sm_120 dot_scaled scale layout (byte-id 0, thread-id 0; registers = K
    blocks), a third statement, gives the bases of SFA.bytes and (transposed: Triton's B
    scales are [N, K / group]) SFB.bytes."""
    from llverify.encodings.scales import sm120_scale_layout

    atom = atoms.get("mma.block_scale.m16n8k64.mxf4nvf4.4X")
    a = atom.operand("SFA.bytes").layout()
    triton_a = sm120_scale_layout([16, 4], 0, [1, 1])
    assert [list(b) for b in triton_a.reg_bases] == [list(b) for b in a.bases[0][1]]
    assert [list(b) for b in triton_a.lane_bases] == [list(b) for b in a.bases[1][1]]
    b = atom.operand("SFB.bytes").layout()
    triton_b = sm120_scale_layout([8, 4], 1, [1, 1])
    assert [list(x)[::-1] for x in triton_b.reg_bases] == [list(x) for x in b.bases[0][1]]
    assert [list(x)[::-1] for x in triton_b.lane_bases] == [list(x) for x in b.bases[1][1]]


def test_scale_bytes_follow_the_ptx_selectors() -> None:
    from llverify.atoms.block_scale import scale_bytes

    assert [scale_bytes("1X", b) for b in range(4)] == [(0,), (1,), (2,), (3,)]
    assert scale_bytes("2X", 0) == (0, 1) and scale_bytes("2X", 2) == (2, 3)
    assert scale_bytes("4X", 0) == (0, 1, 2, 3)


@pytest.mark.parametrize(
    ("scale_vec", "byte_id", "message"),
    [
        ("2X", 1, "must be one of (0, 2)"),  # undefined: a pair straddling the halves
        ("4X", 2, "must be one of (0,)"),
        ("1X", 4, "must be one of (0, 1, 2, 3)"),
        ("1X", True, "not True"),
        ("3X", 0, "'scale_vec' must be one of"),
    ],
)
def test_scale_bytes_refuses_undefined_selectors(
    scale_vec: str, byte_id: int, message: str
) -> None:
    from llverify.atoms.block_scale import scale_bytes

    with pytest.raises(AtomError, match=re.escape(message)):
        scale_bytes(scale_vec, byte_id)


@pytest.mark.parametrize(
    ("name", "role", "wrong"),
    [
        # scale_B's blocks 1 and 2 exchanged in the register's bytes
        ("SM120_16x8x64_TN_VS16", "SFB.bytes", "((4,8),(2,2)):((0,1),(16,8))"),
        # scale_A's block read from the thread-id-a lane bit (a selector dependence)
        ("SM120_16x8x64_TN_VS32", "SFA.bytes", "((2,2,8),2):((8,16,1),0)"),
    ],
)
def test_block_scale_wrong_byte_view_is_refuted(name: str, role: str, wrong: str) -> None:
    operand = atoms.get(name).operand(role)
    assert prove_operand(operand).proved
    bad = replace(operand, tv_text=wrong)
    _replayed(bad, prove_operand(bad))
