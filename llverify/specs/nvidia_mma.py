"""References for the NVIDIA MMA encodings: the hardware fragment layouts of ``mma.sync``
(Ampere) and ``wgmma`` (Hopper) as closed forms, whole-tensor closed forms of Triton's
converters, parametric families, and the obligations that tie llverify's converters
(``llverify.encodings.nvidia_mma``) to them.

Formulas are llverify formula-language text over the layout's in dims ``register``, ``lane``,
``warp`` (and named parameters); out dims are ``dim0`` (rows: M, or K for operand B) and
``dim1`` (columns). PTX notation: ``groupID = lane >> 2`` (written ``lane >> 2``),
``threadID_in_group = lane % 4``, ``i`` = the element index in the thread's fragment, which
is Triton's ``register`` index for one warp and one instruction tile.

Primary source for every fragment: NVIDIA, *Parallel Thread Execution ISA* (PTX ISA 8.x),
chapter "Instructions" > "Warp Level Matrix Multiply-Accumulate Instructions" > "Matrix
shape" / "Matrix Data-types" > the section named in each entry ("Matrix Fragments for
mma.m16n8k16 with floating point type", ...), and "Asynchronous Warpgroup Level Matrix
Multiply-Accumulate Instructions" > "Register Fragments and Shared Memory Matrix Layouts" for
wgmma. Section titles are cited, not numbers (the numbering moves between PTX versions).
REFERENCES.md section 4 summarizes them.

Everything here is data: ``REFERENCES`` (name -> Reference), ``OBLIGATIONS`` (encoding TTGIR
text + shape + reference [+ params]), ``CLOSED_FORM_OBLIGATIONS`` and the parametric
families (``wgmma_accumulator_family``, ``mma_accumulator_family``,
``mma_dot_a_family``, ``mma_dot_b_family``) with the closed forms they are proved against.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from llverify.encodings import to_linear_layout
from llverify.proof.family import LayoutFamily
from llverify.proof.obligation import Call
from llverify.proof.obligation import Obligation as LibraryObligation
from llverify.specs import claims


@dataclass(frozen=True)
class Reference:
    """A closed-form layout: ``formulas[out_dim]`` over register/lane/warp and ``params``."""

    name: str
    formulas: Mapping[str, str]
    source: str
    params: tuple[str, ...] = ()


@dataclass(frozen=True)
class Obligation:
    """``to_linear_layout(encoding, shape)`` must equal ``reference`` (with ``params``)."""

    name: str
    encoding: str
    shape: tuple[int, ...]
    reference: str
    params: Mapping[str, int] = field(default_factory=dict)
    note: str = ""


# ---------------------------------------------------------------------- TTGIR helpers


def _list(values: tuple[int, ...] | list[int]) -> str:
    return "[" + ", ".join(map(str, values)) + "]"


def mma_text(version: int, warps: list[int], instr: list[int]) -> str:
    """TTGIR text of ``#ttg.nvidia_mma`` (version [version, 0], one CTA)."""
    return (
        f"#ttg.nvidia_mma<{{versionMajor = {version}, versionMinor = 0, warpsPerCTA = "
        f"{_list(warps)}, instrShape = {_list(instr)}}}>"
    )


def dot_text(operand: int, parent: str, k_width: int) -> str:
    """TTGIR text of ``#ttg.dot_op`` with an MMA parent."""
    return f"#ttg.dot_op<{{opIdx = {operand}, parent = {parent}, kWidth = {k_width}}}>"


AMPERE_1W = mma_text(2, [1, 1], [16, 8])  # one warp, mma.m16n8kK
AMPERE_F64_1W = mma_text(2, [1, 1], [8, 8])  # one warp, fp64 mma.m8n8k4 (instrM == 8)


def hopper_4w(n: int) -> str:
    """One warpgroup (4 warps along M), wgmma.m64nNk16 (instr [16, N, 16])."""
    return mma_text(3, [4, 1], [16, n, 16])


# ---------------------------------------------------------------------- fragment formulas

_G = "(lane >> 2)"  # groupID
_Q = "(lane % 4)"  # threadID_in_group
_B8_COL_A = f"{_Q} * 4 + (register & 3) if register < 8 else {_Q} * 4 + (register & 3) + 16"
_B8_ROW_B = f"{_Q} * 4 + (register & 3) if register < 4 else {_Q} * 4 + (register & 3) + 16"

_PTX = "NVIDIA PTX ISA 8.x"

REFERENCE_LIST = [
    # mma.m16n8k16, .f16/.bf16 ------------------------------------------------------------
    Reference(
        "mma.m16n8k16.f16.A",
        {
            # row = groupID for a0, a1, a4, a5; groupID + 8 for a2, a3, a6, a7
            "dim0": f"{_G} if (register == 0 or register == 1 or register == 4 or "
            f"register == 5) else {_G} + 8",
            # col = threadID_in_group * 2 + (i & 0x1) for i < 4; + 8 for i >= 4
            "dim1": f"{_Q} * 2 + (register & 1) if register < 4 else {_Q} * 2 + (register & 1) + 8",
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k16 with floating point type', "
        "multiplicand A (.f16/.bf16), a0..a7",
    ),
    Reference(
        "mma.m16n8k16.f16.B",
        {
            # row = threadID_in_group * 2 + (i & 0x1) for b0, b1; + 8 for b2, b3
            "dim0": f"{_Q} * 2 + (register & 1) if register < 2 else {_Q} * 2 + (register & 1) + 8",
            # col = groupID
            "dim1": _G,
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k16 with floating point type', "
        "multiplicand B (.f16/.bf16), b0..b3",
    ),
    Reference(
        "mma.m16n8k16.CD",
        {
            # row = groupID for c0, c1; groupID + 8 for c2, c3
            "dim0": f"{_G} if register < 2 else {_G} + 8",
            # col = threadID_in_group * 2 + (i & 0x1)
            "dim1": f"{_Q} * 2 + (register & 1)",
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k16 with floating point type' (and "
        "'... with integer type': the same C/D layout for .f16/.f32/.s32), accumulators c0..c3; "
        "mma.m16n8k8 and mma.m16n8k32 share it",
    ),
    # mma.m16n8k8, .f16/.bf16 (Triton's kWidth-2 tile spans K = 16: see the obligations) --
    Reference(
        "mma.m16n8k8.f16.A",
        {
            # row = groupID for a0, a1; groupID + 8 for a2, a3   (i = register & 3)
            "dim0": f"{_G} if (register & 3) < 2 else {_G} + 8",
            # col = threadID_in_group * 2 + (i & 0x1)
            "dim1": f"{_Q} * 2 + (register & 1)",
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k8', .f16/.bf16 multiplicand A, a0..a3",
    ),
    Reference(
        "mma.m16n8k8.f16.B",
        {
            # row = threadID_in_group * 2 + i for b0, b1   (i = register & 1)
            "dim0": f"{_Q} * 2 + (register & 1)",
            "dim1": _G,  # col = groupID
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k8', .f16/.bf16 multiplicand B, b0..b1",
    ),
    # mma.m16n8k8, .tf32 and .f64 (same fragments) ------------------------------------------
    Reference(
        "mma.m16n8k8.tf32.A",
        {
            # row = groupID for a0, a2; groupID + 8 for a1, a3
            "dim0": f"{_G} if (register == 0 or register == 2) else {_G} + 8",
            # col = threadID_in_group for a0, a1; threadID_in_group + 4 for a2, a3
            "dim1": f"{_Q} if register < 2 else {_Q} + 4",
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k8', .tf32 multiplicand A, a0..a3",
    ),
    Reference(
        "mma.m16n8k8.tf32.B",
        {
            # row = threadID_in_group for b0; threadID_in_group + 4 for b1
            "dim0": f"{_Q} if register == 0 else {_Q} + 4",
            "dim1": _G,  # col = groupID
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k8', .tf32 multiplicand B, b0..b1",
    ),
    Reference(
        "mma.m16n8k8.f64.A",
        {
            "dim0": f"{_G} if (register == 0 or register == 2) else {_G} + 8",
            "dim1": f"{_Q} if register < 2 else {_Q} + 4",
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k8', .f64 multiplicand A, a0..a3 (sm_90)",
    ),
    Reference(
        "mma.m16n8k8.f64.B",
        {"dim0": f"{_Q} if register == 0 else {_Q} + 4", "dim1": _G},
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k8', .f64 multiplicand B, b0..b1 (sm_90)",
    ),
    # mma.m16n8k16, .f64 (sm_90) --------------------------------------------------------------
    Reference(
        "mma.m16n8k16.f64.A",
        {
            # row = groupID for i % 2 == 0; groupID + 8 for i % 2 == 1
            "dim0": f"{_G} if register % 2 == 0 else {_G} + 8",
            # col = i * 2 + threadID_in_group (i even); i * 2 - 2 + threadID_in_group (i odd)
            "dim1": f"register * 2 + {_Q} if register % 2 == 0 else register * 2 - 2 + {_Q}",
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k16 with floating point type', .f64 "
        "multiplicand A, a0..a7",
    ),
    Reference(
        "mma.m16n8k16.f64.B",
        {
            "dim0": f"{_Q} + 4 * register",  # row = threadID_in_group + 4 * i
            "dim1": _G,  # col = groupID
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k16 with floating point type', .f64 "
        "multiplicand B, b0..b3",
    ),
    # mma.m8n8k4, .f64 ------------------------------------------------------------------------
    Reference(
        "mma.m8n8k4.f64.A",
        {"dim0": _G, "dim1": _Q},  # a0: row = groupID, col = threadID_in_group
        f"{_PTX}, 'Matrix Fragments for mma.m8n8k4 with .f64 floating point type', A, a0",
    ),
    Reference(
        "mma.m8n8k4.f64.B",
        {"dim0": _Q, "dim1": _G},  # b0: row = threadID_in_group, col = groupID
        f"{_PTX}, 'Matrix Fragments for mma.m8n8k4 with .f64 floating point type', B, b0",
    ),
    Reference(
        "mma.m8n8k4.f64.CD",
        # c0, c1: row = groupID, col = threadID_in_group * 2 + i
        {"dim0": _G, "dim1": f"{_Q} * 2 + register"},
        f"{_PTX}, 'Matrix Fragments for mma.m8n8k4 with .f64 floating point type', C/D, c0..c1",
    ),
    # mma.m16n8k32, 8-bit (.s8/.u8/.e4m3/.e5m2) -------------------------------------------------
    Reference(
        "mma.m16n8k32.b8.A",
        {
            # row = groupID for 0 <= i < 4 or 8 <= i < 12; groupID + 8 otherwise
            "dim0": f"{_G} if (register < 4 or (8 <= register and register < 12)) else {_G} + 8",
            # col = threadID_in_group * 4 + (i & 0x3) for i < 8; + 16 for i >= 8
            "dim1": _B8_COL_A,
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k32', 8-bit integer / .e4m3 / .e5m2 "
        "multiplicand A, a0..a15",
    ),
    Reference(
        "mma.m16n8k32.b8.B",
        {
            # row = threadID_in_group * 4 + (i & 0x3) for i < 4; + 16 for i >= 4
            "dim0": _B8_ROW_B,
            "dim1": _G,  # col = groupID
        },
        f"{_PTX}, 'Matrix Fragments for mma.m16n8k32', 8-bit multiplicand B, b0..b7",
    ),
    # wgmma (Hopper), one warpgroup = 4 warps, warp w owns rows 16w..16w+15 ---------------------
    Reference(
        "wgmma.m64nNk16.D",
        {
            # row = 16 * warp + groupID + 8 * ((i % 4) / 2)
            "dim0": f"16 * warp + {_G} + 8 * ((register % 4) // 2)",
            # col = (i / 4) * 8 + threadID_in_group * 2 + (i % 2)
            "dim1": f"(register // 4) * 8 + {_Q} * 2 + (register % 2)",
        },
        f"{_PTX}, 'Register Fragments and Shared Memory Matrix Layouts' > 'Matrix Fragments "
        "for wgmma.mma_async.m64nNk16' (and m64nNk8/k32: the same D layout), accumulator D "
        "d0..d(N/2-1) of a warpgroup; equals CUTLASS CLayout_64xN",
    ),
    Reference(
        "wgmma.m64nNk16.f16.A",
        {
            # a0..a7 of warp w: as mma.m16n8k16 A, rows offset by 16 * w
            "dim0": f"16 * warp + ({_G} if (register == 0 or register == 1 or register == 4 or "
            f"register == 5) else {_G} + 8)",
            "dim1": f"{_Q} * 2 + (register & 1) if register < 4 else {_Q} * 2 + (register & 1) + 8",
        },
        f"{_PTX}, 'Register Fragments and Shared Memory Matrix Layouts' > 'Matrix Fragments "
        "for wgmma.mma_async.m64nNk16', multiplicand A in registers (.f16/.bf16)",
    ),
    Reference(
        "wgmma.m64nNk8.tf32.A",
        {
            "dim0": f"16 * warp + ({_G} if (register == 0 or register == 2) else {_G} + 8)",
            "dim1": f"{_Q} if register < 2 else {_Q} + 4",
        },
        f"{_PTX}, 'Register Fragments and Shared Memory Matrix Layouts' > 'Matrix Fragments "
        "for wgmma.mma_async.m64nNk8', multiplicand A in registers (.tf32)",
    ),
    Reference(
        "wgmma.m64nNk32.b8.A",
        {
            "dim0": f"16 * warp + ({_G} if (register < 4 or (8 <= register and register < 12)) "
            f"else {_G} + 8)",
            "dim1": _B8_COL_A,
        },
        f"{_PTX}, 'Register Fragments and Shared Memory Matrix Layouts' > 'Matrix Fragments "
        "for wgmma.mma_async.m64nNk32', multiplicand A in registers (8-bit)",
    ),
]

# ---------------------------------------------------------------------- whole-tensor closed forms
#
# Triton's converters (LinearLayoutConversions.cpp) on a 2-D tensor at least as large as the
# CTA tile, written as closed forms. Parameters are log2 values: lm8 = log2(instrM / 8),
# ln8 = log2(instrN / 8), lwm / lwn = log2 of warps_per_cta along M / N, lrm / lrn / lrk =
# log2 of the repetitions (register tiles) along M / N / K, lw = log2(kWidth), lmul = 1 for the
# usual K tile of 8 * kWidth and 0 for fp64 (instrM == 8: K tile 4 * kWidth), hopper = 1 for
# version 3 (warps column-major) and 0 for version 2 (warps row-major).
# Register bits, fastest first: the tile (see nvidia_mma.py), then repetitions along the
# fastest tensor dim (N for the accumulator, K for the operands), then along the other one.

_WARP_M = "((warp & ((1 << lwm) - 1)) if hopper == 1 else (warp >> lwn))"
_WARP_N = "((warp >> lwm) if hopper == 1 else (warp & ((1 << lwn) - 1)))"

REFERENCE_LIST += [
    Reference(
        "closed_form.accumulator",
        {
            "dim0": "(lane >> 2) + (((register >> 1) & ((1 << lm8) - 1)) << 3) + "
            f"({_WARP_M} << (3 + lm8)) + "
            "((register >> (1 + lm8 + ln8 + lrn)) << (3 + lm8 + lwm))",
            "dim1": "(register & 1) + ((lane & 3) << 1) + "
            "(((register >> (1 + lm8)) & ((1 << ln8) - 1)) << 3) + "
            f"({_WARP_N} << (3 + ln8)) + "
            "(((register >> (1 + lm8 + ln8)) & ((1 << lrn) - 1)) << (3 + ln8 + lwn))",
        },
        "Triton 3.9 NvidiaMmaEncodingAttr::toLinearLayout (nvidiaMmaTile with kWidth 2, "
        "warps via getMatrixOrder(rank, !isHopper), combineCtaCgaWithShape), written as a "
        "closed form; per warp and tile it is mma.m16n8k16.CD / wgmma.m64nNk16.D",
        ("hopper", "lm8", "ln8", "lwm", "lwn", "lrm", "lrn"),
    ),
    Reference(
        "closed_form.dot_a",
        {
            "dim0": "(lane >> 2) + (((register >> lw) & ((1 << lm8) - 1)) << 3) + "
            f"({_WARP_M} << (3 + lm8)) + "
            "((register >> (lw + lm8 + lmul + lrk)) << (3 + lm8 + lwm))",
            "dim1": "(register & ((1 << lw) - 1)) + ((lane & 3) << lw) + "
            "(((register >> (lw + lm8)) & ((1 << (lmul + lrk)) - 1)) << (lw + 2))",
        },
        "Triton 3.9 nvidiaDotToLinearLayout, operand A: tile [instrM, kWidth * (8 or 4)], "
        "warps broadcast along K, as a closed form",
        ("hopper", "lw", "lm8", "lmul", "lwm", "lwn", "lrk", "lrm"),
    ),
    Reference(
        "closed_form.dot_b",
        {
            "dim0": "(register & ((1 << lw) - 1)) + ((lane & 3) << lw) + "
            "(((register >> lw) & ((1 << (lmul + lrk)) - 1)) << (lw + 2))",
            "dim1": "(lane >> 2) + ((warp & ((1 << lwn) - 1)) << 3) + "
            "((register >> (lw + lmul + lrk)) << (3 + lwn))",
        },
        "Triton 3.9 nvidiaDotToLinearLayout, operand B (Ampere only): tile "
        "[kWidth * (8 or 4), 8], warps broadcast along K, as a closed form",
        ("lw", "lmul", "lwm", "lwn", "lrk", "lrn"),
    ),
]

REFERENCES: dict[str, Reference] = {r.name: r for r in REFERENCE_LIST}

# ---------------------------------------------------------------------- obligations

_K8 = (
    "Triton's kWidth-2 tile spans K = 16; on a K = 8 tensor its K-repetition register bit is "
    "a broadcast (zero) basis, so the upper half of the registers repeats the fragment"
)

OBLIGATIONS: list[Obligation] = [
    # Ampere, one warp, one instruction -----------------------------------------------------
    Obligation("m16n8k16 C/D", AMPERE_1W, (16, 8), "mma.m16n8k16.CD"),
    Obligation("m16n8k16 f16 A", dot_text(0, AMPERE_1W, 2), (16, 16), "mma.m16n8k16.f16.A"),
    Obligation("m16n8k16 f16 B", dot_text(1, AMPERE_1W, 2), (16, 8), "mma.m16n8k16.f16.B"),
    Obligation("m16n8k8 f16 A", dot_text(0, AMPERE_1W, 2), (16, 8), "mma.m16n8k8.f16.A", note=_K8),
    Obligation("m16n8k8 f16 B", dot_text(1, AMPERE_1W, 2), (8, 8), "mma.m16n8k8.f16.B", note=_K8),
    Obligation("m16n8k8 tf32 A", dot_text(0, AMPERE_1W, 1), (16, 8), "mma.m16n8k8.tf32.A"),
    Obligation("m16n8k8 tf32 B", dot_text(1, AMPERE_1W, 1), (8, 8), "mma.m16n8k8.tf32.B"),
    Obligation("m16n8k8 f64 A", dot_text(0, AMPERE_1W, 1), (16, 8), "mma.m16n8k8.f64.A"),
    Obligation("m16n8k8 f64 B", dot_text(1, AMPERE_1W, 1), (8, 8), "mma.m16n8k8.f64.B"),
    Obligation("m16n8k16 f64 A", dot_text(0, AMPERE_1W, 1), (16, 16), "mma.m16n8k16.f64.A"),
    Obligation("m16n8k16 f64 B", dot_text(1, AMPERE_1W, 1), (16, 8), "mma.m16n8k16.f64.B"),
    Obligation("m8n8k4 f64 A", dot_text(0, AMPERE_F64_1W, 1), (8, 4), "mma.m8n8k4.f64.A"),
    Obligation("m8n8k4 f64 B", dot_text(1, AMPERE_F64_1W, 1), (4, 8), "mma.m8n8k4.f64.B"),
    Obligation("m8n8k4 f64 C/D", AMPERE_F64_1W, (8, 8), "mma.m8n8k4.f64.CD"),
    Obligation("m16n8k32 b8 A", dot_text(0, AMPERE_1W, 4), (16, 32), "mma.m16n8k32.b8.A"),
    Obligation("m16n8k32 b8 B", dot_text(1, AMPERE_1W, 4), (32, 8), "mma.m16n8k32.b8.B"),
    Obligation("m16n8k32 s32 C/D", AMPERE_1W, (16, 8), "mma.m16n8k16.CD"),
    # Hopper, one warpgroup, one instruction: A from registers ------------------------------
    Obligation(
        "wgmma m64nNk16 f16 A", dot_text(0, hopper_4w(64), 2), (64, 16), "wgmma.m64nNk16.f16.A"
    ),
    Obligation(
        "wgmma m64nNk8 tf32 A", dot_text(0, hopper_4w(64), 1), (64, 8), "wgmma.m64nNk8.tf32.A"
    ),
    Obligation(
        "wgmma m64nNk32 b8 A", dot_text(0, hopper_4w(64), 4), (64, 32), "wgmma.m64nNk32.b8.A"
    ),
]

# wgmma accumulators, every N of the instruction (8..256, step 8). Triton 3.9 only represents
# power-of-2 N (its converter asserts on the others); the PTX formula does not depend on N, so
# the fragment of m64nNk16 is the restriction to registers < N / 2 of the fragment of m64nN'k16
# with N' the next power of 2, and the obligation is discharged on that instance.
for _n in range(8, 257, 8):
    _np2 = 1 << (_n - 1).bit_length()
    OBLIGATIONS.append(
        Obligation(
            f"wgmma m64n{_n}k16 D",
            hopper_4w(_np2),
            (64, _np2),
            "wgmma.m64nNk16.D",
            note=""
            if _np2 == _n
            else f"N = {_n} is not a power of 2: proved on N' = {_np2}, registers < {_n // 2}",
        )
    )


def _acc(hopper: int, lm8: int, ln8: int, lwm: int, lwn: int, lrm: int, lrn: int) -> Obligation:
    instr = [8 << lm8, 8 << ln8] + ([16] if hopper else [])
    shape = (1 << (3 + lm8 + lwm + lrm), 1 << (3 + ln8 + lwn + lrn))
    params = dict(hopper=hopper, lm8=lm8, ln8=ln8, lwm=lwm, lwn=lwn, lrm=lrm, lrn=lrn)
    text = mma_text(3 if hopper else 2, [1 << lwm, 1 << lwn], instr)
    return Obligation(f"accumulator {params}", text, shape, "closed_form.accumulator", params)


def _dot_a(hopper: int, lw: int, lm8: int, lwm: int, lwn: int, lrk: int, lrm: int) -> Obligation:
    lmul = min(lm8, 1)  # instrM == 8 (fp64) uses a K tile of 4 * kWidth
    instr = [8 << lm8, 8] + ([16] if hopper else [])
    parent = mma_text(3 if hopper else 2, [1 << lwm, 1 << lwn], instr)
    shape = (1 << (3 + lm8 + lwm + lrm), 1 << (lw + 2 + lmul + lrk))
    params = dict(hopper=hopper, lw=lw, lm8=lm8, lmul=lmul, lwm=lwm, lwn=lwn, lrk=lrk, lrm=lrm)
    return Obligation(
        f"dot A {params}", dot_text(0, parent, 1 << lw), shape, "closed_form.dot_a", params
    )


def _dot_b(lw: int, lm8: int, lwm: int, lwn: int, lrk: int, lrn: int) -> Obligation:
    lmul = min(lm8, 1)
    parent = mma_text(2, [1 << lwm, 1 << lwn], [8 << lm8, 8])
    shape = (1 << (lw + 2 + lmul + lrk), 1 << (3 + lwn + lrn))
    params = dict(lw=lw, lmul=lmul, lwm=lwm, lwn=lwn, lrk=lrk, lrn=lrn)
    return Obligation(
        f"dot B {params}", dot_text(1, parent, 1 << lw), shape, "closed_form.dot_b", params
    )


#: Whole tensors: several warps and repetitions along both dims.
CLOSED_FORM_OBLIGATIONS: list[Obligation] = [
    _acc(0, 1, 0, 2, 0, 1, 3),  # Ampere [4, 1] warps, 128 x 128 (the classic mma v2 layout)
    _acc(0, 1, 0, 1, 1, 2, 2),  # Ampere [2, 2] warps, 128 x 64
    _acc(0, 1, 0, 0, 2, 1, 1),  # Ampere [1, 4] warps
    _acc(0, 0, 0, 1, 1, 1, 1),  # Ampere fp64 instr [8, 8], [2, 2] warps
    _acc(0, 2, 1, 1, 2, 1, 0),  # Ampere instr [32, 16]
    _acc(1, 1, 3, 2, 0, 1, 1),  # Hopper m64n64, one warpgroup, 128 x 128
    _acc(1, 1, 4, 2, 1, 1, 1),  # Hopper m64n128, [4, 2] warps
    _acc(1, 1, 5, 3, 0, 0, 1),  # Hopper m64n256, [8, 1] warps
    _dot_a(0, 1, 1, 2, 0, 2, 1),  # Ampere A kWidth 2, [4, 1] warps
    _dot_a(0, 3, 1, 1, 1, 1, 1),  # Ampere A kWidth 8, [2, 2] warps
    _dot_a(0, 0, 1, 1, 1, 2, 1),  # Ampere A kWidth 1 (tf32 / fp64 m16n8k8)
    _dot_a(0, 2, 1, 0, 2, 1, 2),  # Ampere A kWidth 4 (8-bit), [1, 4] warps
    _dot_a(0, 4, 1, 1, 1, 1, 1),  # Ampere A kWidth 16
    _dot_a(0, 0, 0, 1, 1, 2, 1),  # Ampere fp64 m8n8k4 A (instrM 8, K tile 4)
    _dot_a(1, 1, 1, 2, 0, 2, 1),  # Hopper A kWidth 2, one warpgroup
    _dot_a(1, 2, 1, 2, 1, 1, 1),  # Hopper A kWidth 4, [4, 2] warps
    _dot_b(1, 1, 2, 0, 2, 2),  # Ampere B kWidth 2, [4, 1] warps
    _dot_b(3, 1, 2, 2, 1, 1),  # Ampere B kWidth 8, [4, 4] warps
    _dot_b(0, 1, 1, 1, 1, 2),  # Ampere B kWidth 1
    _dot_b(2, 1, 0, 2, 1, 1),  # Ampere B kWidth 4 (8-bit), [1, 4] warps
    _dot_b(0, 0, 1, 1, 2, 1),  # Ampere fp64 m8n8k4 B
]

# ---------------------------------------------------------------------- parametric families


def wgmma_accumulator_family() -> LayoutFamily:
    """Triton's Hopper accumulator NVMMADistributedLayout([3, 0], [4, 1], [16, N, 16]) on
    [64, N], for every power-of-2 N in 8..256 (``ln = log2 N``), transcribed from
    ``nvidiaMmaTile``: register bit 0 -> column 1, bit 1 -> row 8, bits 2.. -> columns 8,
    16, ...; lanes -> columns 2, 4, rows 1, 2, 4; warps -> rows 16, 32."""
    return LayoutFamily(
        name="wgmma_accumulator",
        params={"ln": (3, 8)},
        in_dims={"register": "ln - 1", "lane": "5", "warp": "2"},
        out_dims={"dim0": "6", "dim1": "ln"},
        bases={
            "register": {
                "dim0": "8 if i == 1 else 0",
                "dim1": "1 if i == 0 else (0 if i == 1 else (8 << max(i - 2, 0)))",
            },
            "lane": {
                "dim0": "0 if i < 2 else (1 << max(i - 2, 0))",
                "dim1": "(2 << i) if i < 2 else 0",
            },
            "warp": {"dim0": "16 << i", "dim1": "0"},
        },
    )


#: Family parameters -> the converter instance (see tests): Hopper instr [16, 2**ln, 16].
WGMMA_FAMILY_REFERENCE = "wgmma.m64nNk16.D"


def mma_accumulator_family(max_log2: int = 2) -> LayoutFamily:
    """Triton's NVIDIA MMA accumulator on 2-D tensors at least as large as the CTA tile, for
    Ampere (hopper = 0) and Hopper (hopper = 1), instrM = 8 * 2**lm8, instrN = 8 * 2**ln8
    (N up to 256), warps [2**lwm, 2**lwn] and repetitions [2**lrm, 2**lrn] (log2 values up
    to ``max_log2``), transcribed from ``nvidiaMmaTile`` + warps + ``combineCtaCgaWithShape``.
    """
    return LayoutFamily(
        name="mma_accumulator",
        params={
            "hopper": (0, 1),
            "lm8": (0, 2),
            "ln8": (0, 5),
            "lwm": (0, max_log2),
            "lwn": (0, max_log2),
            "lrm": (0, max_log2),
            "lrn": (0, max_log2),
        },
        in_dims={"register": "1 + lm8 + ln8 + lrn + lrm", "lane": "5", "warp": "lwm + lwn"},
        out_dims={"dim0": "3 + lm8 + lwm + lrm", "dim1": "3 + ln8 + lwn + lrn"},
        bases={
            "register": {
                # bit 0: column 1; bits 1..lm8: rows 8..; then ln8 tile columns 8..; then
                # lrn repetition columns (above the warps); then lrm repetition rows.
                "dim0": "0 if i == 0 else ((8 << max(i - 1, 0)) if i <= lm8 else "
                "(0 if i <= lm8 + ln8 + lrn else (8 << max(i - 1 - ln8 - lrn + lwm, 0))))",
                "dim1": "1 if i == 0 else (0 if i <= lm8 else ((8 << max(i - 1 - lm8, 0)) "
                "if i <= lm8 + ln8 else ((8 << max(i - 1 - lm8 + lwn, 0)) "
                "if i <= lm8 + ln8 + lrn else 0)))",
            },
            "lane": {
                "dim0": "0 if i < 2 else (1 << max(i - 2, 0))",
                "dim1": "(2 << i) if i < 2 else 0",
            },
            "warp": {
                "dim0": "(((8 << (lm8 + i)) if i < lwm else 0) if hopper == 1 else "
                "(0 if i < lwn else (8 << max(lm8 + i - lwn, 0))))",
                "dim1": "((0 if i < lwm else (8 << max(ln8 + i - lwm, 0))) if hopper == 1 else "
                "((8 << (ln8 + i)) if i < lwn else 0))",
            },
        },
    )


def mma_dot_a_family(max_log2: int = 2) -> LayoutFamily:
    """Triton's DotOperand(0, NVIDIA MMA, kWidth = 2**lw, 1..64) on 2-D tensors at least as large
    as the CTA tile: instrM = 8 * 2**lm8 (lm8 = 0 is the fp64 path with a K tile of
    4 * kWidth), warps [2**lwm, 2**lwn] (broadcast along K), repetitions [2**lrm, 2**lrk]."""
    lmul = "min(lm8, 1)"
    return LayoutFamily(
        name="mma_dot_a",
        params={
            "hopper": (0, 1),
            "lw": (0, 6),
            "lm8": (0, 2),
            "lwm": (0, max_log2),
            "lwn": (0, max_log2),
            "lrk": (0, max_log2),
            "lrm": (0, max_log2),
        },
        in_dims={
            "register": f"lw + lm8 + {lmul} + lrk + lrm",
            "lane": "5",
            "warp": "lwm + lwn",
        },
        out_dims={"dim0": "3 + lm8 + lwm + lrm", "dim1": f"lw + 2 + {lmul} + lrk"},
        bases={
            "register": {
                # kWidth K bits; lm8 rows 8..; K bits 4 * kWidth..; lrm repetition rows
                "dim0": "0 if i < lw else ((8 << max(i - lw, 0)) if i < lw + lm8 else "
                f"(0 if i < lw + lm8 + {lmul} + lrk else "
                f"(8 << max(i - lw - {lmul} - lrk + lwm, 0))))",
                "dim1": "(1 << i) if i < lw else (0 if i < lw + lm8 else "
                f"((4 << max(i - lm8, 0)) if i < lw + lm8 + {lmul} + lrk else 0))",
            },
            "lane": {
                "dim0": "0 if i < 2 else (1 << max(i - 2, 0))",
                "dim1": "(1 << (lw + i)) if i < 2 else 0",
            },
            "warp": {
                "dim0": "(((8 << (lm8 + i)) if i < lwm else 0) if hopper == 1 else "
                "(0 if i < lwn else (8 << max(lm8 + i - lwn, 0))))",
                "dim1": "0",
            },
        },
    )


def mma_dot_b_family(max_log2: int = 2) -> LayoutFamily:
    """Triton's DotOperand(1, Ampere MMA, kWidth = 2**lw, 1..64) on 2-D tensors at least as large as
    the CTA tile: K tile kWidth * (4 if instrM == 8 else 8), N tile 8, warps [2**lwm, 2**lwn]
    (broadcast along K), repetitions [2**lrk, 2**lrn]."""
    lmul = "min(lm8, 1)"
    return LayoutFamily(
        name="mma_dot_b",
        params={
            "lw": (0, 6),
            "lm8": (0, 2),
            "lwm": (0, max_log2),
            "lwn": (0, max_log2),
            "lrk": (0, max_log2),
            "lrn": (0, max_log2),
        },
        in_dims={"register": f"lw + {lmul} + lrk + lrn", "lane": "5", "warp": "lwm + lwn"},
        out_dims={"dim0": f"lw + 2 + {lmul} + lrk", "dim1": "3 + lwn + lrn"},
        bases={
            "register": {
                "dim0": f"(1 << i) if i < lw else ((4 << i) if i < lw + {lmul} + lrk else 0)",
                "dim1": f"0 if i < lw + {lmul} + lrk else "
                f"(8 << max(i - lw - {lmul} - lrk + lwn, 0))",
            },
            "lane": {
                "dim0": "(1 << (lw + i)) if i < 2 else 0",
                "dim1": "0 if i < 2 else (1 << max(i - 2, 0))",
            },
            "warp": {"dim0": "0", "dim1": "(8 << i) if i < lwn else 0"},
        },
    )


def family_reference(name: str) -> dict[str, str]:
    """The formulas of reference ``name`` over a family's parameters: the families derive
    ``lmul`` from ``lm8`` (fp64 when instrM == 8), so it is substituted."""
    return {d: f.replace("lmul", "min(lm8, 1)") for d, f in REFERENCES[name].formulas.items()}


#: Each family and the reference it is proved equal to (for every member at once).
FAMILY_PROOFS = [
    (wgmma_accumulator_family, "wgmma.m64nNk16.D"),
    (mma_accumulator_family, "closed_form.accumulator"),
    (mma_dot_a_family, "closed_form.dot_a"),
    (mma_dot_b_family, "closed_form.dot_b"),
]


# ---------------------------------------------------------------------- the library

_SOURCE = "specs/nvidia_mma.py"


def _library() -> tuple[LibraryObligation, ...]:
    result = [
        claims.equivalence(
            f"nvidia_mma: {ob.name} on {list(ob.shape)} == {ob.reference}",
            _SOURCE,
            Call(to_linear_layout, ob.encoding, list(ob.shape)),
            dict(REFERENCES[ob.reference].formulas),
            params=dict(ob.params),
        )
        for ob in [*OBLIGATIONS, *CLOSED_FORM_OBLIGATIONS]
    ]
    result += [
        claims.family(
            f"nvidia_mma: {factory.__name__}(), every member == {reference}",
            _SOURCE,
            factory,
            family_reference(reference),
        )
        for factory, reference in FAMILY_PROOFS
    ]
    return tuple(result)


#: The module's obligations in the built-in library (``llverify prove``): every fragment and
#: closed-form obligation, then every family proof.
LIBRARY = _library()
