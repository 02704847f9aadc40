"""The NVIDIA atoms: ``mma.sync`` (sm70 to sm90), ``wgmma`` with A in registers (every N),
``ldmatrix`` and ``stmatrix``.  Each fragment is CUTLASS's CuTe TV layout (the file named in
the atom's ``source``), and the vendor formula it is proved against is a PTX ISA fragment
(:mod:`llverify.specs.fragments`).

Examples:
    >>> from llverify.atoms.nvidia import atoms
    >>> found = atoms()
    >>> sum(a.family == "wgmma" for a in found), found[0].name
    (96, 'SM70_8x8x4_F16F16F16F16_TN')
"""

from __future__ import annotations

from llverify.atoms.catalogue import Atom, Operand

__all__ = ["atoms"]

# ---------------------------------------------------------------------- CuTe TV layouts
# (thread, value) -> m + M * n over the atom's tile, as CUTLASS's include/cute/atom/
# mma_traits_sm70/sm75/sm80/sm89/sm90.hpp, mma_traits_sm90_gmma.hpp and copy_traits_sm75/
# sm90.hpp state them (names as there; B tiles are (N, K)).

SM80_8x4 = "((4,8),1):((8,1),0)"
SM80_8x8_ROW = "((4,8),2):((16,1),8)"
SM80_8x16_ROW = "((4,8),4):((32,1),8)"
SM80_16x8_ROW = "((4,8),(2,2)):((32,1),(16,8))"
_A_16X16_F16 = "((4,8),(2,2,2)):((32,1),(16,8,128))"
_B_8X16_F16 = "((4,8),(2,2)):((16,1),(8,64))"
_A_16X4_TF32 = "((4,8),2):((16,1),8)"
_A_16X8_TF32 = "((4,8),(2,2)):((16,1),(8,64))"
_B_8X8_TF32 = "((4,8),2):((8,1),32)"
_A_16X16_F64 = "((4,8),(2,4)):((16,1),(8,64))"
_B_8X16_F64 = "((4,8),4):((8,1),32)"
_A_16X16_S8 = "((4,8),(4,2)):((64,1),(16,8))"
_A_16X32_S8 = "((4,8),(4,2,2)):((64,1),(16,8,256))"
_B_8X32_S8 = "((4,8),(4,2)):((32,1),(8,128))"
_A_16X32_S4 = "((4,8),(8,2)):((128,1),(16,8))"
#: CUTLASS before PR #3140 (merged 2026-04) wrote stride 32 for the thread's 4 in this B
#: layout: 256 elements, but indices overlap and K rows 20..31 are never held.  The
#: corrected stride is 64 (llverify's proof refutes the old one: tests/test_atoms.py).
_B_8X32_S4 = "((4,8),8):((64,1),8)"
_A_16X64_S4 = "((4,8),(8,2,2)):((128,1),(16,8,512))"
_B_8X64_S4 = "((4,8),(8,2)):((64,1),(8,256))"
_AB_8X128_B1 = "((4,8),32):((256,1),8)"
_A_16X256_B1 = "((4,8),(32,2,2)):((512,1),(16,8,2048))"
_B_8X256_B1 = "((4,8),(32,2)):((256,1),(8,1024))"
SM70_8x4_ROW = "(8,4):(1,8)"
SM70_8x4_COL = "((4,2),4):((8,4),1)"
SM70_8x8_16B = "(8,8):(1,8)"
SM70_8x8_32B = "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))"
#: GMMA::ALayout_64x8 / 64x16 / 64x32 (register-sourced A: 32-, 16-, 8-bit values)
_GMMA_A = {
    8: "((4,8,4),(2,2)):((64,1,16),(8,256))",
    16: "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))",
    32: "((4,8,4),(4,2,2)):((256,1,16),(64,8,1024))",
}

#: SM70_QuadPair: logical thread t of a quad pair is lane (t % 4) + 16 (t / 4)
_QUAD_PAIR = "(lane & 3) + 16 * (lane >> 2)"

_SM70 = "CUTLASS include/cute/atom/mma_traits_sm70.hpp"
_SM75 = "CUTLASS include/cute/atom/mma_traits_sm75.hpp"
_SM80 = "CUTLASS include/cute/atom/mma_traits_sm80.hpp"
_SM89 = "CUTLASS include/cute/atom/mma_traits_sm89.hpp"
_SM90 = "CUTLASS include/cute/atom/mma_traits_sm90.hpp"
_GMMA = "CUTLASS include/cute/atom/mma_traits_sm90_gmma.hpp (ALayout_64xK, CLayout_64xN)"
_LDSM = "CUTLASS include/cute/atom/copy_traits_sm75.hpp (DstLayout, in bits, upcast to b16)"
_STSM = "CUTLASS include/cute/atom/copy_traits_sm90.hpp (SrcLayout = the LDSM DstLayout)"


def _mma(
    name: str,
    instruction: str,
    arch: str,
    mnk: tuple[int, int, int],
    a: tuple[str, str],
    b: tuple[str, str],
    c: tuple[str, str],
    source: str,
) -> Atom:
    """An mma.sync atom: (tv_text, reference) of A (M x K), B (K x N) and C (M x N)."""
    m, n, k = mnk
    return Atom(
        name,
        "mma.sync",
        instruction,
        (arch,),
        mnk,
        (
            Operand("A", (m, k), a[1], a[0]),
            Operand("B", (k, n), b[1], b[0]),
            Operand("C", (m, n), c[1], c[0]),
        ),
        source,
    )


def _sm70() -> list[Atom]:
    """sm70 mma.m8n8k4 (f16 multiplicands): 8 threads of a quad pair, 4 layouts x 2
    accumulator types."""
    result = []
    a_forms = {"T": (SM70_8x4_ROW, "row"), "N": (SM70_8x4_COL, "col")}
    b_forms = {"N": (SM70_8x4_ROW, "col"), "T": (SM70_8x4_COL, "row")}
    for acc, c_tv, c_ref, types in (
        ("f16", SM70_8x8_16B, "mma.m8n8k4.f16.CD", "F16F16F16F16"),
        ("f32", SM70_8x8_32B, "mma.m8n8k4.f32.CD", "F32F16F16F32"),
    ):
        for layout in ("TN", "NT", "NN", "TT"):
            a_tv, a_major = a_forms[layout[0]]
            b_tv, b_major = b_forms[layout[1]]
            ops = (
                Operand("A", (8, 4), f"mma.m8n8k4.f16.A.{a_major}", a_tv, None, 8, _QUAD_PAIR),
                Operand("B", (4, 8), f"mma.m8n8k4.f16.B.{b_major}", b_tv, None, 8, _QUAD_PAIR),
                Operand("C", (8, 8), c_ref, c_tv, None, 8, _QUAD_PAIR),
            )
            instruction = f"mma.sync.aligned.m8n8k4.{a_major}.{b_major}.{acc}.f16.f16.{acc}"
            result.append(
                Atom(
                    f"SM70_8x8x4_{types}_{layout}",
                    "mma.sync",
                    instruction,
                    ("sm70",),
                    (8, 8, 4),
                    ops,
                    f"{_SM70} (ThrID SM70_QuadPair: the 8 threads of quad pair 0)",
                )
            )
    return result


_C16 = (SM80_16x8_ROW, "mma.m16n8k16.CD")
_C8 = (SM80_8x8_ROW, "mma.m8n8.s32.CD")


def _sm75_sm80() -> list[Atom]:
    """sm75 and sm80 mma.sync atoms (f16/bf16, tf32, f64, s8/u8, s4/u4, b1)."""
    f16_k8 = ((SM80_16x8_ROW, "mma.m16n8k8.f16.A"), (SM80_8x8_ROW, "mma.m16n8k8.f16.B"))
    f16_k16 = ((_A_16X16_F16, "mma.m16n8k16.f16.A"), (_B_8X16_F16, "mma.m16n8k16.f16.B"))
    result = [
        _mma("SM75_16x8x8_F32F16F16F32_TN", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
             "sm75", (16, 8, 8), *f16_k8, _C16, _SM75),
        _mma("SM75_8x8x16_S32S8S8S32_TN", "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32",
             "sm75", (8, 8, 16), (SM80_8x16_ROW, "mma.m8n8k16.b8.A"),
             (SM80_8x16_ROW, "mma.m8n8k16.b8.B"), _C8, _SM75),
    ]  # fmt: skip
    for types, ptx in (
        ("F16F16F16F16", "f16.f16.f16.f16"),
        ("F32F16F16F32", "f32.f16.f16.f32"),
        ("F32BF16BF16F32", "f32.bf16.bf16.f32"),
    ):
        for k, (a, b) in ((8, f16_k8), (16, f16_k16)):
            result.append(
                _mma(f"SM80_16x8x{k}_{types}_TN", f"mma.sync.aligned.m16n8k{k}.row.col.{ptx}",
                     "sm80", (16, 8, k), a, b, _C16, _SM80)
            )  # fmt: skip
    result += [
        _mma("SM80_16x8x4_F32TF32TF32F32_TN", "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",
             "sm80", (16, 8, 4), (_A_16X4_TF32, "mma.m16n8k4.tf32.A"),
             (SM80_8x4, "mma.m16n8k4.tf32.B"), _C16, _SM80),
        _mma("SM80_16x8x8_F32TF32TF32F32_TN", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
             "sm80", (16, 8, 8), (_A_16X8_TF32, "mma.m16n8k8.tf32.A"),
             (_B_8X8_TF32, "mma.m16n8k8.tf32.B"), _C16, _SM80),
        _mma("SM80_8x8x4_F64F64F64F64_TN", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
             "sm80", (8, 8, 4), (SM80_8x4, "mma.m8n8k4.f64.A"), (SM80_8x4, "mma.m8n8k4.f64.B"),
             (SM80_8x8_ROW, "mma.m8n8k4.f64.CD"), _SM80),
    ]  # fmt: skip
    signs = (("S8S8", "s8.s8"), ("S8U8", "s8.u8"), ("U8S8", "u8.s8"), ("U8U8", "u8.u8"))
    for types, ptx in signs:
        result += [
            _mma(f"SM80_8x8x16_S32{types}S32_TN", f"mma.sync.aligned.m8n8k16.row.col.s32.{ptx}.s32",
                 "sm80", (8, 8, 16), (SM80_8x16_ROW, "mma.m8n8k16.b8.A"),
                 (SM80_8x16_ROW, "mma.m8n8k16.b8.B"), _C8, _SM80),
            _mma(f"SM80_16x8x16_S32{types}S32_TN",
                 f"mma.sync.aligned.m16n8k16.row.col.s32.{ptx}.s32", "sm80", (16, 8, 16),
                 (_A_16X16_S8, "mma.m16n8k16.b8.A"), (SM80_8x16_ROW, "mma.m16n8k16.b8.B"), _C16,
                 _SM80),
            _mma(f"SM80_16x8x32_S32{types}S32_TN",
                 f"mma.sync.aligned.m16n8k32.row.col.s32.{ptx}.s32", "sm80", (16, 8, 32),
                 (_A_16X32_S8, "mma.m16n8k32.b8.A"), (_B_8X32_S8, "mma.m16n8k32.b8.B"), _C16,
                 _SM80),
        ]  # fmt: skip
    for types, ptx in (("S4S4", "s4.s4"), ("S4U4", "s4.u4"), ("U4S4", "u4.s4"), ("U4U4", "u4.u4")):
        result += [
            _mma(f"SM80_16x8x32_S32{types}S32_TN",
                 f"mma.sync.aligned.m16n8k32.row.col.s32.{ptx}.s32", "sm80", (16, 8, 32),
                 (_A_16X32_S4, "mma.m16n8k32.b4.A"), (_B_8X32_S4, "mma.m16n8k32.b4.B"), _C16,
                 _SM80),
            _mma(f"SM80_16x8x64_S32{types}S32_TN",
                 f"mma.sync.aligned.m16n8k64.row.col.s32.{ptx}.s32", "sm80", (16, 8, 64),
                 (_A_16X64_S4, "mma.m16n8k64.b4.A"), (_B_8X64_S4, "mma.m16n8k64.b4.B"), _C16,
                 _SM80),
        ]  # fmt: skip
    for op in ("XOR", "AND"):
        result += [
            _mma(f"SM80_8x8x128_S32U1U1S32_TN_{op}POPC",
                 f"mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.{op.lower()}.popc", "sm80",
                 (8, 8, 128), (_AB_8X128_B1, "mma.m8n8k128.b1.A"),
                 (_AB_8X128_B1, "mma.m8n8k128.b1.B"), _C8, _SM80),
            _mma(f"SM80_16x8x256_S32U1U1S32_TN_{op}POPC",
                 f"mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.{op.lower()}.popc", "sm80",
                 (16, 8, 256), (_A_16X256_B1, "mma.m16n8k256.b1.A"),
                 (_B_8X256_B1, "mma.m16n8k256.b1.B"), _C16, _SM80),
        ]  # fmt: skip
    return result


def _sm89_sm90() -> list[Atom]:
    """sm89 fp8 mma.sync and sm90 f64 mma.sync."""
    result = []
    for a, b in (("E4M3", "e4m3"), ("E5M2", "e5m2")):
        for c, d in (("E4M3", "e4m3"), ("E5M2", "e5m2")):
            result.append(
                _mma(f"SM89_16x8x32_F32{a}{c}F32_TN",
                     f"mma.sync.aligned.m16n8k32.row.col.f32.{b}.{d}.f32", "sm89", (16, 8, 32),
                     (_A_16X32_S8, "mma.m16n8k32.b8.A"), (_B_8X32_S8, "mma.m16n8k32.b8.B"),
                     _C16, _SM89)
            )  # fmt: skip
    result += [
        _mma("SM90_16x8x4_F64F64F64F64_TN", "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64",
             "sm90", (16, 8, 4), (_A_16X4_TF32, "mma.m16n8k4.tf32.A"),
             (SM80_8x4, "mma.m16n8k4.tf32.B"), _C16, _SM90),
        _mma("SM90_16x8x8_F64F64F64F64_TN", "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64",
             "sm90", (16, 8, 8), (_A_16X8_TF32, "mma.m16n8k8.f64.A"),
             (_B_8X8_TF32, "mma.m16n8k8.f64.B"), _C16, _SM90),
        _mma("SM90_16x8x16_F64F64F64F64_TN", "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64",
             "sm90", (16, 8, 16), (_A_16X16_F64, "mma.m16n8k16.f64.A"),
             (_B_8X16_F64, "mma.m16n8k16.f64.B"), _C16, _SM90),
    ]  # fmt: skip
    return result


def _gmma_c(n: int) -> str:
    """GMMA::CLayout_64xN."""
    return f"((4,8,4),(2,2,{n // 8})):((128,1,16),(64,8,512))"


def _wgmma() -> list[Atom]:
    """wgmma.mma_async with A in registers, every N (8..256, step 8), f16 / tf32 / e4m3."""
    result = []
    for k, types, ptx, a_ref, suffix in (
        (16, "F32F16F16", "f32.f16.f16", "wgmma.m64nNk16.f16.A", "RS"),
        (8, "F32TF32TF32", "f32.tf32.tf32", "wgmma.m64nNk8.tf32.A", "RS_TN"),
        (32, "F32E4M3E4M3", "f32.e4m3.e4m3", "wgmma.m64nNk32.b8.A", "RS_TN"),
    ):
        for n in range(8, 257, 8):
            result.append(
                Atom(
                    f"SM90_64x{n}x{k}_{types}_{suffix}",
                    "wgmma",
                    f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{ptx} (A in registers)",
                    ("sm90a",),
                    (64, n, k),
                    (
                        Operand("A", (64, k), a_ref, _GMMA_A[k]),
                        Operand("C", (64, n), "wgmma.m64nNk16.D", _gmma_c(n)),
                    ),
                    _GMMA,
                )
            )
    return result


def _copies() -> list[Atom]:
    """ldmatrix / stmatrix .b16, x1/x2/x4, with and without .trans: the register fragment
    of the stacked 8x8 matrices (matrix k = rows 8k..8k+7)."""
    from llverify.cute import parse, upcast

    result = []
    for count, plain_bits, trans_bits in (
        (1, "(32,32):(32,1)", "((4,8),(16,2)):((256,16),(1,128))"),
        (2, "(32,(32,2)):(32,(1,1024))", "((4,8),(16,2,2)):((256,16),(1,128,1024))"),
        (4, "(32,(32,4)):(32,(1,1024))", "((4,8),(16,2,4)):((256,16),(1,128,1024))"),
    ):
        for trans, bits in ((False, plain_bits), (True, trans_bits)):
            tv = str(upcast(parse(bits), 16))
            reference = "ldmatrix.b16.trans.stacked" if trans else "ldmatrix.b16.stacked"
            fragment = Operand("fragment", (8 * count, 8), reference, tv)
            suffix = ".trans" if trans else ""
            mode = "T" if trans else "N"
            unit = f"U16x{2 * count}" if trans else f"U32x{count}"
            for family, arch, verb, name, source in (
                ("ldmatrix", "sm75", "ldmatrix.sync.aligned.m8n8", f"SM75_{unit}_LDSM_{mode}",
                 _LDSM),
                ("stmatrix", "sm90", "stmatrix.sync.aligned.m8n8", f"SM90_{unit}_STSM_{mode}",
                 _STSM),
            ):  # fmt: skip
                result.append(
                    Atom(
                        name,
                        family,
                        f"{verb}.x{count}{suffix}.shared.b16",
                        (arch,),
                        None,
                        (fragment,),
                        source,
                        (f"{family}.x{count}{suffix}",),
                    )
                )
    result.sort(key=lambda atom: atom.family)
    return result


def atoms() -> list[Atom]:
    """Every NVIDIA atom, in catalogue order."""
    return [*_sm70(), *_sm75_sm80(), *_sm89_sm90(), *_wgmma(), *_copies()]
