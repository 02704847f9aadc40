"""Vendor fragment formulas that only the atom catalogue (:mod:`llverify.atoms`) is proved
against: the MMA and ldmatrix fragments no Triton converter produces (sm70 quad pairs, sm75
m8n8k16, int4 and b1 shapes, stacked ldmatrix matrices, AMD K-packing 2, gfx950 f8f6f4 and
i8 MFMA with the f8f6f4 scale factors, multi-block MFMA, WMMA B operands).

The fragments the converters share live in their spec modules
(:mod:`llverify.specs.nvidia_mma`, :mod:`~llverify.specs.amd_mfma`,
:mod:`~llverify.specs.amd_wmma`); :func:`reference` looks a name up in all of them.

Notation as in :mod:`llverify.specs.nvidia_mma`: ``register`` is the element index ``i`` in
the thread's fragment, ``lane`` the hardware lane (``%laneid``), ``groupID = lane >> 2``,
``threadID_in_group = lane % 4``; ``dim0``/``dim1`` are the fragment's rows and columns:
(M, K) for A, (K, N) for B, (M, N) for C/D.  The sm70 formulas are written over the hardware
lane of quad pair 0 (lanes 0-3 and 16-19), as the PTX ISA writes them; the catalogue maps its
8 logical threads onto those lanes.

Examples:
    >>> sorted(reference("mma.m8n8k16.b8.A").formulas)
    ['dim0', 'dim1']
    >>> reference("mma.m16n8k16.CD").source.startswith("NVIDIA PTX ISA")
    True
    >>> reference("no.such.fragment")
    Traceback (most recent call last):
    ...
    llverify.errors.LLVerifyError: unknown fragment reference 'no.such.fragment'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from llverify.errors import LLVerifyError

__all__ = ["FRAGMENTS", "FragmentReference", "reference"]


@dataclass(frozen=True)
class FragmentReference:
    """A vendor closed form: ``formulas[out_dim]`` over ``register``/``lane``/``warp``."""

    name: str
    formulas: Mapping[str, str]
    source: str


_G = "(lane >> 2)"
_Q = "(lane % 4)"
_PTX = "NVIDIA PTX ISA 8.x"
_QP_HIGH = "lane >= 16"  # the second quad of a quad pair (lanes 16-19)


def _ptx(section: str, what: str) -> str:
    return f"{_PTX}, '{section}', {what}"


_M8N8K4 = "Matrix Fragments for mma.m8n8k4 with .f16 floating point type"
_M16N8K4 = "Matrix Fragments for mma.m16n8k4"
_M8N8K16 = "Matrix Fragments for mma.m8n8k16"
_M16N8K16_INT = "Matrix Fragments for mma.m16n8k16 with integer type"
_M16N8K32_INT = "Matrix Fragments for mma.m16n8k32"
_M16N8K64 = "Matrix Fragments for mma.m16n8k64"
_M8N8K128 = "Matrix Fragments for mma.m8n8k128"
_M16N8K256 = "Matrix Fragments for mma.m16n8k256"
_LDMATRIX = "Warp-level matrix load instruction: ldmatrix"
_STMATRIX = "Warp-level matrix store instruction: stmatrix"
_CALC = "AMD Matrix Instruction Calculator, --register-layout"
_SP_16816 = "Matrix Fragments for sparse mma.m16n8k16 with .f16 and .bf16 types"
_SP_16832 = "Matrix Fragments for sparse mma.m16n8k32 with .f16 and .bf16 types"
_SP_1688 = "Matrix Fragments for sparse mma.m16n8k8 with .tf32 floating point type"
_SP_16832_B8 = "Matrix Fragments for sparse mma.m16n8k32 with .u8/.s8 integer type"
_SP_16816_TF32 = "Matrix Fragments for sparse mma.m16n8k16 with .tf32 floating point type"
_SP_16864_B8 = "Matrix Fragments for sparse mma.m16n8k64 with .u8/.s8/.e4m3/.e5m2 type"
_SP_16864_B4 = "Matrix Fragments for sparse mma.m16n8k64 with .u4/.s4 integer type"
_SP_168128_B4 = "Matrix Fragments for sparse mma.m16n8k128 with .u4/.s4 integer type"
_CK_MX = "AMD Composable Kernel test/mx_mfma_op/mx_mfma_op.hpp"


def _ck_table(shape: str, role: str, fmt: str) -> str:
    """Where :data:`_CK_MX` states the ``fmt`` operand ``role`` of the gfx950 ``shape``."""
    m, _, k = shape.split("x")
    if role == "A":
        return f"load_A_row_major, 'Register Mapping for {m}x{k} for {fmt.upper()}'"
    if fmt == "fp4":
        return f"load_B_col_major, 'Register Mapping for {k}x{m} for FP4'"
    return "load_B_col_major (FP6/4: lane j + N b starts at K row 32 b, 32 elements)"


_FP6_FACTS = (
    "16 elements per 96-bit VGPR triple (v0-2: K 32 b + 0..15, v3-5: K 32 b + 16..31), 6 VGPRs "
    "per operand (LLVM AMDGPU gfx950 MC tests: cbsz/blgp 2, 3 take v[0:5])"
)
_FP4_FACTS = (
    "two elements per byte, consecutive K (low nibble first), 4 VGPRs per operand (LLVM AMDGPU "
    "gfx950 MC tests: cbsz/blgp 4 take v[0:3]); the same layout in AMD's ROCm blog 'Matrix Core "
    "Programming on AMD CDNA3 and CDNA4 architecture' (mfma_fp32_32x32x64_fp4_fp4: lane t loads "
    "bytes 16 (t / 32) .. of row t % 32 of A)"
)
_LAB_NOTES = "AMD lab notes 'AMD matrix cores' (amd/amd-lab-notes matrix-cores/README.md)"
_F64_PROBE = (
    "a hardware probe on MI350 (an fpsan test's LayoutMatchesHardware for "
    "__builtin_amdgcn_mfma_f64_4x4x4f64: A[i][k] of block b at lane 16k+4b+i, B[k][j] at "
    "16k+4b+j, D[i][j] at 16i+4b+j)"
)
_CK_SCALE = (
    "AMD Composable Kernel test/mx_mfma_op/ (a gfx950 probe of v_mfma_scale_f32_*_f8f6f4: which "
    "lane's scale each byte of A takes)"
)
_MX_RULE = (
    "one E8M0 scale per 32 consecutive K, lane i + M b giving row i's block b (Triton "
    "accelerate-amd-matmul-mfma-gfx950.mlir scale layout; tt.dot_scaled fp8 operands kWidth 16); "
    "order inside a 32-K block by lane half then byte (not observable: one scale, one sum)"
)
_CK_XDL = (
    "AMD Composable Kernel include/ck/tensor_operation/gpu/warp/xdlops_gemm.hpp mfma_type "
    "(a k-reduction instruction: lane blk_td + threads * blk_id holds K blk_id * k_per_blk + "
    "0 .. k_per_blk - 1)"
)
_BLOCK_SCALE = "Warp-level matrix multiply-accumulate: Block Scaling"
_CP_ASYNC = "Data Movement and Conversion Instructions: cp.async"
_SHFL = "Data Movement and Conversion Instructions: shfl.sync"

_LIST = [
    # sm70 mma.m8n8k4 (.f16 multiplicands; one 8x8x4 product per quad pair) ---------------
    FragmentReference(
        "mma.m8n8k4.f16.A.row",
        # row = %laneid % 4 (lanes < 16), %laneid % 4 + 4 otherwise; col = i
        {"dim0": "lane % 4 if lane < 16 else lane % 4 + 4", "dim1": "register"},
        _ptx(_M8N8K4, "multiplicand A, .row, a0..a3"),
    ),
    FragmentReference(
        "mma.m8n8k4.f16.A.col",
        # row = i % 4 (lanes < 16), i % 4 + 4 otherwise; col = %laneid % 4
        {"dim0": "register % 4 if lane < 16 else register % 4 + 4", "dim1": "lane % 4"},
        _ptx(_M8N8K4, "multiplicand A, .col, a0..a3"),
    ),
    FragmentReference(
        "mma.m8n8k4.f16.B.col",
        # row = i; col = %laneid % 4 (lanes < 16), %laneid % 4 + 4 otherwise
        {"dim0": "register", "dim1": "lane % 4 if lane < 16 else lane % 4 + 4"},
        _ptx(_M8N8K4, "multiplicand B, .col, b0..b3"),
    ),
    FragmentReference(
        "mma.m8n8k4.f16.B.row",
        # row = %laneid % 4; col = i % 4 (lanes < 16), i % 4 + 4 otherwise
        {"dim0": "lane % 4", "dim1": "register % 4 if lane < 16 else register % 4 + 4"},
        _ptx(_M8N8K4, "multiplicand B, .row, b0..b3"),
    ),
    FragmentReference(
        "mma.m8n8k4.f16.CD",
        # .f16 accumulators: row = %laneid % 4 (+ 4 for lanes >= 16); col = i
        {"dim0": "lane % 4 if lane < 16 else lane % 4 + 4", "dim1": "register"},
        _ptx(_M8N8K4, "accumulators C/D of type .f16, c0..c7"),
    ),
    FragmentReference(
        "mma.m8n8k4.f32.CD",
        # .f32 accumulators: row = (%laneid & 1) + (i & 2) (+ 4 for lanes >= 16);
        # col = (i & 4) + (%laneid & 2) + (i & 1)
        {
            "dim0": f"(lane & 1) + (register & 2) + (4 if {_QP_HIGH} else 0)",
            "dim1": "(register & 4) + (lane & 2) + (register & 1)",
        },
        _ptx(_M8N8K4, "accumulators C/D of type .f32, c0..c7"),
    ),
    # sm80 m16n8k4 .tf32 --------------------------------------------------------------------
    FragmentReference(
        "mma.m16n8k4.tf32.A",
        # row = groupID (a0), groupID + 8 (a1); col = threadID_in_group
        {"dim0": f"{_G} + 8 * register", "dim1": _Q},
        _ptx(_M16N8K4, "multiplicand A (.tf32; .f64 on sm90), a0..a1"),
    ),
    FragmentReference(
        "mma.m16n8k4.tf32.B",
        {"dim0": _Q, "dim1": _G},  # b0: row = threadID_in_group, col = groupID
        _ptx(_M16N8K4, "multiplicand B (.tf32; .f64 on sm90), b0"),
    ),
    # sm75 m8n8k16 (.s8/.u8) -----------------------------------------------------------------
    FragmentReference(
        "mma.m8n8k16.b8.A",
        {"dim0": _G, "dim1": f"{_Q} * 4 + register"},  # row = groupID; col = tig * 4 + i
        _ptx(_M8N8K16, "multiplicand A (.s8/.u8), a0..a3"),
    ),
    FragmentReference(
        "mma.m8n8k16.b8.B",
        {"dim0": f"{_Q} * 4 + register", "dim1": _G},  # row = tig * 4 + i; col = groupID
        _ptx(_M8N8K16, "multiplicand B (.s8/.u8), b0..b3"),
    ),
    FragmentReference(
        "mma.m8n8.s32.CD",
        # c0, c1: row = groupID, col = threadID_in_group * 2 + i
        {"dim0": _G, "dim1": f"{_Q} * 2 + register"},
        _ptx(_M8N8K16, "accumulators C/D (.s32), c0..c1; m8n8k32 and m8n8k128 share them"),
    ),
    # sm80 m16n8k16 (.s8/.u8) ----------------------------------------------------------------
    FragmentReference(
        "mma.m16n8k16.b8.A",
        # row = groupID for a0..a3, groupID + 8 for a4..a7; col = tig * 4 + (i & 3)
        {"dim0": f"{_G} if register < 4 else {_G} + 8", "dim1": f"{_Q} * 4 + (register & 3)"},
        _ptx(_M16N8K16_INT, "multiplicand A (.s8/.u8), a0..a7"),
    ),
    FragmentReference(
        "mma.m16n8k16.b8.B",
        {"dim0": f"{_Q} * 4 + register", "dim1": _G},  # row = tig * 4 + i; col = groupID
        _ptx(_M16N8K16_INT, "multiplicand B (.s8/.u8), b0..b3"),
    ),
    # sm80 m16n8k32 (.s4/.u4) ----------------------------------------------------------------
    FragmentReference(
        "mma.m16n8k32.b4.A",
        # row = groupID for a0..a7, groupID + 8 for a8..a15; col = tig * 8 + (i & 7)
        {"dim0": f"{_G} if register < 8 else {_G} + 8", "dim1": f"{_Q} * 8 + (register & 7)"},
        _ptx(_M16N8K32_INT, "multiplicand A (.s4/.u4), a0..a15"),
    ),
    FragmentReference(
        "mma.m16n8k32.b4.B",
        {"dim0": f"{_Q} * 8 + register", "dim1": _G},  # row = tig * 8 + i; col = groupID
        _ptx(_M16N8K32_INT, "multiplicand B (.s4/.u4), b0..b7"),
    ),
    # sm80 m16n8k64 (.s4/.u4) ----------------------------------------------------------------
    FragmentReference(
        "mma.m16n8k64.b4.A",
        # row = groupID for i < 8 or 16 <= i < 24, groupID + 8 otherwise;
        # col = tig * 8 + (i & 7) for i < 16, + 32 for i >= 16
        {
            "dim0": f"{_G} if (register < 8 or (16 <= register and register < 24)) else {_G} + 8",
            "dim1": f"{_Q} * 8 + (register & 7) if register < 16 "
            f"else {_Q} * 8 + (register & 7) + 32",
        },
        _ptx(_M16N8K64, "multiplicand A (.s4/.u4), a0..a31"),
    ),
    FragmentReference(
        "mma.m16n8k64.b4.B",
        # row = tig * 8 + (i & 7) for i < 8, + 32 for i >= 8; col = groupID
        {
            "dim0": f"{_Q} * 8 + (register & 7) if register < 8 "
            f"else {_Q} * 8 + (register & 7) + 32",
            "dim1": _G,
        },
        _ptx(_M16N8K64, "multiplicand B (.s4/.u4), b0..b15"),
    ),
    # sm80 m8n8k128 / m16n8k256 (.b1) --------------------------------------------------------
    FragmentReference(
        "mma.m8n8k128.b1.A",
        {"dim0": _G, "dim1": f"{_Q} * 32 + register"},  # row = groupID; col = tig * 32 + i
        _ptx(_M8N8K128, "multiplicand A (.b1), a0..a31"),
    ),
    FragmentReference(
        "mma.m8n8k128.b1.B",
        {"dim0": f"{_Q} * 32 + register", "dim1": _G},  # row = tig * 32 + i; col = groupID
        _ptx(_M8N8K128, "multiplicand B (.b1), b0..b31"),
    ),
    FragmentReference(
        "mma.m16n8k256.b1.A",
        # row = groupID for i < 32 or 64 <= i < 96, groupID + 8 otherwise;
        # col = tig * 32 + (i & 31) for i < 64, + 128 for i >= 64
        {
            "dim0": f"{_G} if (register < 32 or (64 <= register and register < 96)) else {_G} + 8",
            "dim1": f"{_Q} * 32 + (register & 31) if register < 64 "
            f"else {_Q} * 32 + (register & 31) + 128",
        },
        _ptx(_M16N8K256, "multiplicand A (.b1), a0..a127"),
    ),
    FragmentReference(
        "mma.m16n8k256.b1.B",
        # row = tig * 32 + (i & 31) for i < 32, + 128 for i >= 32; col = groupID
        {
            "dim0": f"{_Q} * 32 + (register & 31) if register < 32 "
            f"else {_Q} * 32 + (register & 31) + 128",
            "dim1": _G,
        },
        _ptx(_M16N8K256, "multiplicand B (.b1), b0..b63"),
    ),
    # ldmatrix / stmatrix, matrices stacked along the rows (matrix k = rows 8k..8k+7) --------
    FragmentReference(
        "ldmatrix.b16.stacked",
        # d_k holds matrix k; lane l receives (row l / 4, col 2 (l % 4) + e), e = i & 1
        {"dim0": "(lane >> 2) + 8 * (register >> 1)", "dim1": "2 * (lane & 3) + (register & 1)"},
        _ptx(_LDMATRIX, ".b16 without .trans, matrix k = register >> 1 stacked at rows 8k.."),
    ),
    FragmentReference(
        "ldmatrix.b16.trans.stacked",
        # with .trans lane l receives (row 2 (l % 4) + e, col l / 4) of matrix k
        {"dim0": "2 * (lane & 3) + (register & 1) + 8 * (register >> 1)", "dim1": "lane >> 2"},
        _ptx(_LDMATRIX, ".b16 .trans, matrix k = register >> 1 stacked at rows 8k.."),
    ),
    # sm100/sm120 8-bit ldmatrix / stmatrix: dim0 the shared-memory row (the row whose start
    # address thread dim0 supplies), dim1 the 8-bit element in it, register the byte of the
    # thread's registers (register r / 4, byte r % 4); the matrices stacked along the rows
    FragmentReference(
        "ldmatrix.m8n16.b8x16.stacked",
        # "a group of four consecutive and aligned threads" loads a row, "each thread ... 4
        # consecutive columns", thread 0 the first: row l / 4, columns 4 (l % 4) + byte;
        # matrix k (register k) at rows 8k..
        {"dim0": "(lane >> 2) + 8 * (register >> 2)", "dim1": "4 * (lane & 3) + (register & 3)"},
        _ptx(_LDMATRIX, ".m8n16 .b8x16 (.b6x16_p32, .b4x16_p64), Figure 106"),
    ),
    FragmentReference(
        "ldmatrix.m16n16.b8.trans.stacked",
        # "each thread ... loads 4 consecutive columns across 2 rows", four consecutive threads
        # a row: in the loaded (transposed, .trans mandatory) matrix thread l holds rows l / 4
        # (r0) and l / 4 + 8 (r1), columns 4 (l % 4) + byte, i.e. shared-memory row
        # 4 (l % 4) + byte, element l / 4 + 8 (r0 or r1); matrix k (r2k, r2k+1) at rows 16k..
        {
            "dim0": "4 * (lane & 3) + (register & 3) + 16 * (register >> 3)",
            "dim1": "(lane >> 2) + 8 * ((register >> 2) & 1)",
        },
        _ptx(_LDMATRIX, ".m16n16 .trans .b8, Figure 105 (rows l / 4 and l / 4 + 8)"),
    ),
    FragmentReference(
        "stmatrix.m16n8.b8.trans.stacked",
        # "each of the 32 threads ... provides four elements" e0..e3 of a .b32 register per
        # 16x8 matrix, stored transposed (.trans mandatory): e_i of thread l is element
        # (l / 4 + 8 (i / 2), 2 (l % 4) + i % 2) of the 16x8 matrix (the m16n8 C/D placement),
        # i.e. shared-memory row 2 (l % 4) + i % 2, element l / 4 + 8 (i / 2); matrix k
        # (register k) at rows 8k..
        {
            "dim0": "2 * (lane & 3) + (register & 1) + 8 * (register >> 2)",
            "dim1": "(lane >> 2) + 8 * ((register >> 1) & 1)",
        },
        _ptx(_STMATRIX, ".m16n8 .trans .b8, Figure 108 (as the m16n8 C/D fragment)"),
    ),
    # sm80 mma.sp: A packed to M x K/2 (the non-zeros of each chunk, in order) -------------
    FragmentReference(
        "mma.sp.m16n8k16.f16.A",
        # row = groupID for a0, a1, groupID + 8 for a2, a3; a register holds the two non-zeros
        # of the 4-wide chunk at firstcol = threadID_in_group * 4: packed cols 2 tig, 2 tig + 1
        {"dim0": f"{_G} + 8 * (register >> 1)", "dim1": f"2 * {_Q} + (register & 1)"},
        _ptx(_SP_16816, "multiplicand A (.f16/.bf16), a0..a3, packed columns"),
    ),
    FragmentReference(
        "mma.sp.m16n8k32.f16.A",
        # row = groupID for a0, a1, a4, a5, groupID + 8 otherwise; chunk firstcol = tig * 4
        # (+ 16 for i >= 4), two non-zeros each: packed cols 2 tig + (i & 1) (+ 8 for i >= 4)
        {
            "dim0": f"{_G} + 8 * ((register >> 1) & 1)",
            "dim1": f"2 * {_Q} + (register & 1) + 8 * (register >> 2)",
        },
        _ptx(_SP_16832, "multiplicand A (.f16/.bf16), a0..a7, packed columns"),
    ),
    FragmentReference(
        "mma.sp.m16n8k8.tf32.A",
        # row = groupID for a0, groupID + 8 for a1; one non-zero of the 2-wide chunk at
        # firstcol = tig * 2: packed col tig
        {"dim0": f"{_G} + 8 * register", "dim1": _Q},
        _ptx(_SP_1688, "multiplicand A (.tf32), a0..a1, packed columns"),
    ),
    FragmentReference(
        "mma.sp.m16n8k32.b8.A",
        # row = groupID for a0..a3, groupID + 8 otherwise; four non-zeros of the 8-wide chunk
        # at firstcol = tig * 8: packed cols 4 tig + (i & 3)
        {"dim0": f"{_G} + 8 * (register >> 2)", "dim1": f"4 * {_Q} + (register & 3)"},
        _ptx(_SP_16832_B8, "multiplicand A (.u8/.s8), a0..a7, packed columns"),
    ),
    FragmentReference(
        "mma.sp.m16n8k16.tf32.A",
        # row = groupID for a0, a2, groupID + 8 for a1, a3; one non-zero of the 2-wide chunk
        # at firstcol = tig * 2 (a0, a1), tig * 2 + 8 (a2, a3): packed col tig (+ 4 for a2, a3)
        {"dim0": f"{_G} + 8 * (register & 1)", "dim1": f"{_Q} + 4 * (register >> 1)"},
        _ptx(_SP_16816_TF32, "multiplicand A (.tf32), a0..a3, packed columns"),
    ),
    FragmentReference(
        "mma.sp.m16n8k64.b8.A",
        # row = groupID for 0 <= i < 4 or 8 <= i < 12, groupID + 8 otherwise; four non-zeros
        # of the 8-wide chunk at firstcol = tig * 8 (+ 32 for i >= 8): packed cols
        # 4 tig + (i & 3) (+ 16 for i >= 8)
        {
            "dim0": f"{_G} + 8 * ((register >> 2) & 1)",
            "dim1": f"4 * {_Q} + (register & 3) + 16 * (register >> 3)",
        },
        _ptx(_SP_16864_B8, "multiplicand A (.u8/.s8; .e4m3/.e5m2 ...), a0..a15, packed columns"),
    ),
    FragmentReference(
        "mma.sp.m16n8k64.b4.A",
        # row = groupID for 0 <= i < 8, groupID + 8 otherwise; eight non-zeros of the 16-wide
        # chunk at firstcol = tig * 16: packed cols 8 tig + (i & 7)
        {"dim0": f"{_G} + 8 * (register >> 3)", "dim1": f"8 * {_Q} + (register & 7)"},
        _ptx(_SP_16864_B4, "multiplicand A (.u4/.s4), a0..a15, packed columns"),
    ),
    FragmentReference(
        "mma.sp.m16n8k128.b4.A",
        # row = groupID for 0 <= i < 8 or 16 <= i < 24, groupID + 8 otherwise; eight
        # non-zeros of the 16-wide chunk at firstcol = tig * 16 (+ 64 for i >= 16): packed
        # cols 8 tig + (i & 7) (+ 32 for i >= 16)
        {
            "dim0": f"{_G} + 8 * ((register >> 3) & 1)",
            "dim1": f"8 * {_Q} + (register & 7) + 32 * (register >> 4)",
        },
        _ptx(_SP_168128_B4, "multiplicand A (.u4/.s4; .e2m1), a0..a31, packed columns"),
    ),
    # sm120 mma.sync ... .block_scale: the scale factors' threads ---------------------------
    FragmentReference(
        "mma.block_scale.SFA",
        # SF_A of A[m][k]: a thread pair of each quad (thread-id-a: lanes % 4 in {0, 1} or
        # {2, 3}, either pair) holds rows groupID (the pair's lower lane) and groupID + 8
        # (its upper lane, Figure 43); value k is the scale of column k's K block
        {"dim0": f"{_G} + 8 * (lane & 1)", "dim1": "register"},
        _ptx(_BLOCK_SCALE, "SF_A, thread-id-a selection (Figure 43)"),
    ),
    FragmentReference(
        "mma.block_scale.SFB",
        # SF_B of B[k][n]: one thread of each quad (%laneid % 4 == thread-id-b, any of 0..3)
        # holds column n = groupID (Figure 44); value k is the scale of row k's K block
        {"dim0": "register", "dim1": _G},
        _ptx(_BLOCK_SCALE, "SF_B, thread-id-b selection (Figure 44)"),
    ),
    FragmentReference(
        "mma.block_scale.SFA.bytes",
        # scale_A (M x SFA_N) in scale-a-data: the thread pair of Figure 43 as above; value j
        # (byte byte-id + j, "byte-id" selection) is the scale of row m's K chunk j
        {"dim0": f"{_G} + 8 * (lane & 1)", "dim1": "register"},
        _ptx(_BLOCK_SCALE, "SF_A: thread-id-a (Figure 43) and byte-id-a selection"),
    ),
    FragmentReference(
        "mma.block_scale.SFB.bytes",
        # scale_B (SFB_M x N) in scale-b-data: column groupID (Figure 44); value j (byte
        # byte-id + j) is the scale of column n's K chunk j
        {"dim0": "register", "dim1": _G},
        _ptx(_BLOCK_SCALE, "SF_B: thread-id-b (Figure 44) and byte-id-b selection"),
    ),
    # cp.async: one thread copies cp-size (4, 8 or 16) bytes ----------------------------------
    FragmentReference(
        "cp.async.bytes",
        # byte i of the thread's cp-size chunk is byte i of the copied tile (one row of bytes)
        {"dim0": "0", "dim1": "register"},
        _ptx(_CP_ASYNC, "cp-size bytes from src to dst, in order; .ca: 4, 8, 16; .cg: 16"),
    ),
    # AMD MFMA with two elements per lane and K block (K-packing 2) ---------------------------
    FragmentReference(
        "mfma.32x32.kpack2.A",
        # A[i][k] in lane i + 32 * (k / 2), register k % 2
        {"dim0": "lane & 31", "dim1": "2 * (lane >> 5) + register"},
        f"{_CALC} v_mfma_f32_32x32x4bf16 (CDNA1), v_mfma_f32_32x32x4_xf32 (CDNA3); CDNA3 ISA ch. 7",
    ),
    FragmentReference(
        "mfma.32x32.kpack2.B",
        {"dim0": "2 * (lane >> 5) + register", "dim1": "lane & 31"},
        f"{_CALC} v_mfma_f32_32x32x4bf16 (CDNA1), v_mfma_f32_32x32x4_xf32 (CDNA3)",
    ),
    FragmentReference(
        "mfma.16x16.kpack2.A",
        # A[i][k] in lane i + 16 * (k / 2), register k % 2
        {"dim0": "lane & 15", "dim1": "2 * (lane >> 4) + register"},
        f"{_CALC} v_mfma_f32_16x16x8bf16 (CDNA1), v_mfma_f32_16x16x8_xf32 (CDNA3); CDNA3 ISA ch. 7",
    ),
    FragmentReference(
        "mfma.16x16.kpack2.B",
        {"dim0": "2 * (lane >> 4) + register", "dim1": "lane & 15"},
        f"{_CALC} v_mfma_f32_16x16x8bf16 (CDNA1), v_mfma_f32_16x16x8_xf32 (CDNA3)",
    ),
    # gfx950 (CDNA4) f8f6f4 MFMA, 8-bit A/B formats: 32 bytes of K per lane as two 16-byte
    # chunks, the second a whole K half (32x32x64) or quarter pair (16x16x128) later ----------
    FragmentReference(
        "v_mfma_f32_32x32x64_f8f6f4 A",
        # A[i][k] in lane i + 32 * ((k / 16) % 2), byte 16 * (k / 32) + k % 16
        {"dim0": "lane & 31", "dim1": "32 * (register >> 4) + 16 * (lane >> 5) + (register & 15)"},
        f"{_CK_SCALE} scale_mapping_32x32x64.txt; {_MX_RULE}",
    ),
    FragmentReference(
        "v_mfma_f32_32x32x64_f8f6f4 B",
        {"dim0": "32 * (register >> 4) + 16 * (lane >> 5) + (register & 15)", "dim1": "lane & 31"},
        f"{_CK_SCALE} scale_mapping_32x32x64.txt (B mirrors A); {_MX_RULE}",
    ),
    FragmentReference(
        "v_mfma_f32_16x16x128_f8f6f4 A",
        # A[i][k] in lane i + 16 * ((k / 16) % 4), byte 16 * (k / 64) + k % 16
        {"dim0": "lane & 15", "dim1": "64 * (register >> 4) + 16 * (lane >> 4) + (register & 15)"},
        f"{_CK_SCALE} scale_mapping_16x16x128.txt; {_MX_RULE}",
    ),
    FragmentReference(
        "v_mfma_f32_16x16x128_f8f6f4 B",
        {"dim0": "64 * (register >> 4) + 16 * (lane >> 4) + (register & 15)", "dim1": "lane & 15"},
        f"{_CK_SCALE} scale_mapping_16x16x128.txt (B mirrors A); {_MX_RULE}",
    ),
    # gfx950 v_mfma_scale_*_f8f6f4: the scale of each element (one E8M0 per 32 K) ------------
    FragmentReference(
        "v_mfma_scale_f32_32x32x64_f8f6f4 SFA",
        # A[i][k]'s scale in lane i + 32 * (k / 32); register: the element k % 32 it scales
        {"dim0": "lane & 31", "dim1": "32 * (lane >> 5) + register"},
        f"{_CK_SCALE} scale_mapping_32x32x64.txt; {_MX_RULE}",
    ),
    FragmentReference(
        "v_mfma_scale_f32_32x32x64_f8f6f4 SFB",
        {"dim0": "32 * (lane >> 5) + register", "dim1": "lane & 31"},
        f"{_CK_SCALE} scale_mapping_32x32x64.txt (b(k, j)); {_MX_RULE}",
    ),
    FragmentReference(
        "v_mfma_scale_f32_16x16x128_f8f6f4 SFA",
        {"dim0": "lane & 15", "dim1": "32 * (lane >> 4) + register"},
        f"{_CK_SCALE} scale_mapping_16x16x128.txt; {_MX_RULE}",
    ),
    FragmentReference(
        "v_mfma_scale_f32_16x16x128_f8f6f4 SFB",
        {"dim0": "32 * (lane >> 4) + register", "dim1": "lane & 15"},
        f"{_CK_SCALE} scale_mapping_16x16x128.txt (b(k, j)); {_MX_RULE}",
    ),
    # gfx950 f8f6f4 MFMA with 6-bit (fp6 e2m3, bf6 e3m2: CBSZ/BLGP 2, 3) and 4-bit (fp4 e2m1:
    # CBSZ/BLGP 4) A/B formats, over elements: a lane holds 32 consecutive K, one scale block
    # (register = the element's index in the lane's packed data) -----------------------------
    *[
        FragmentReference(
            f"v_mfma_f32_{shape}_f8f6f4 {role} ({fmt})",
            # A[i][k] in lane i + M * (k / 32), element k % 32; B[k][j] mirrors it
            dict(
                zip(
                    ("dim0", "dim1") if role == "A" else ("dim1", "dim0"),
                    (f"lane & {m - 1}", f"32 * (lane >> {m.bit_length() - 1}) + register"),
                )
            ),
            f"{_CK_MX} {_ck_table(shape, role, fmt)}; {source}",
        )
        for shape, m in (("32x32x64", 32), ("16x16x128", 16))
        for role in ("A", "B")
        for fmt, source in (("fp6", _FP6_FACTS), ("fp4", _FP4_FACTS))
    ],
    # gfx950 i8 MFMA: 16 consecutive K per lane -------------------------------------------------
    FragmentReference(
        "v_mfma_i32_32x32x32_i8 A",
        # A[i][k] in lane i + 32 * (k / 16), byte k % 16 of the lane's 4 VGPRs
        {"dim0": "lane & 31", "dim1": "16 * (lane >> 5) + register"},
        f"{_CK_XDL} mfma_i32_32x32x32i8 (k_per_blk 16, num_input_blks 2, is_k_reduction)",
    ),
    FragmentReference(
        "v_mfma_i32_32x32x32_i8 B",
        {"dim0": "16 * (lane >> 5) + register", "dim1": "lane & 31"},
        f"{_CK_XDL} mfma_i32_32x32x32i8, B (mirrors A)",
    ),
    FragmentReference(
        "v_mfma_i32_16x16x64_i8 A",
        # A[i][k] in lane i + 16 * (k / 16), byte k % 16 of the lane's 4 VGPRs
        {"dim0": "lane & 15", "dim1": "16 * (lane >> 4) + register"},
        f"{_CK_XDL} mfma_i32_16x16x64i8 (k_per_blk 16, num_input_blks 4, is_k_reduction)",
    ),
    FragmentReference(
        "v_mfma_i32_16x16x64_i8 B",
        {"dim0": "16 * (lane >> 4) + register", "dim1": "lane & 15"},
        f"{_CK_XDL} mfma_i32_16x16x64i8, B (mirrors A)",
    ),
    # AMD multi-block MFMA (CDNA1-3): B blocks of an M x N x K product in one instruction;
    # block b's A at rows M b.., its B and D at columns N b.. (D_b = A_b B_b) ---------------
    FragmentReference(
        "mfma.blocks.A",
        # block b's A[i][k] in lane i + M * b, register k: the stacked row M b + i is the lane
        {"dim0": "lane", "dim1": "register"},
        f"{_CALC} v_mfma_f32_32x32x1_2b_f32, _16x16x1_4b_f32, _4x4x1_16b_f32, the _f16, _bf16 "
        "and _i8 2b/4b/16b forms; CDNA3 ISA ch. 7 (multiple blocks)",
    ),
    FragmentReference(
        "mfma.blocks.B",
        # block b's B[k][j] in lane j + N * b, register k
        {"dim0": "register", "dim1": "lane"},
        f"{_CALC} the same instructions, B",
    ),
    FragmentReference(
        "mfma.32x32.2b.D",
        # block b's D[i][j]: lane j + 32 * ((i / 4) % 2), register 16 b + 4 * (i / 8) + i % 4
        {
            "dim0": "8 * ((register >> 2) & 3) + 4 * (lane >> 5) + (register & 3)",
            "dim1": "(lane & 31) + 32 * (register >> 4)",
        },
        f"{_CALC} v_mfma_f32_32x32x1_2b_f32, v_mfma_f32_32x32x4_2b_f16 (2 blocks), D",
    ),
    FragmentReference(
        "mfma.16x16.4b.D",
        # block b's D[i][j]: lane j + 16 * (i / 4), register 4 b + i % 4
        {"dim0": "4 * (lane >> 4) + (register & 3)", "dim1": "(lane & 15) + 16 * (register >> 2)"},
        f"{_CALC} v_mfma_f32_16x16x1_4b_f32, v_mfma_f32_16x16x4_4b_f16 (4 blocks), D",
    ),
    FragmentReference(
        "mfma.4x4.16b.D",
        # block b's D[i][j]: lane j + 4 * b, register i
        {"dim0": "register", "dim1": "lane"},
        f"{_CALC} v_mfma_f32_4x4x1_16b_f32, v_mfma_f32_4x4x4_16b_f16 (16 blocks), D",
    ),
    # v_mfma_f64_4x4x4_4b_f64 (CDNA2 v_mfma_f64_4x4x4f64): 4 blocks of 4x4x4, one double per
    # lane; K runs across lanes, not registers.  Stacked as above: A (16 x 4) at rows 4 b ..,
    # B and D (4 x 16) at columns 4 b ..
    FragmentReference(
        "mfma.f64.4x4x4.4b.A",
        # block b's A[i][k] in lane 16 k + 4 b + i
        {"dim0": "4 * ((lane >> 2) & 3) + (lane & 3)", "dim1": "lane >> 4"},
        f"{_LAB_NOTES} 'Example 3 - V_MFMA_F64_4x4x4F64', figure "
        "v_mfma_f64_4x4x4f64_lane_layout (A layout: lane l holds (l % 4, l / 16), coloured by "
        f"block (l / 4) % 4); {_F64_PROBE}",
    ),
    FragmentReference(
        "mfma.f64.4x4x4.4b.B",
        # block b's B[k][j] in lane 16 k + 4 b + j
        {"dim0": "lane >> 4", "dim1": "4 * ((lane >> 2) & 3) + (lane & 3)"},
        f"{_LAB_NOTES} figure v_mfma_f64_4x4x4f64_lane_layout (B layout); {_F64_PROBE}",
    ),
    FragmentReference(
        "mfma.f64.4x4x4.4b.D",
        # block b's D[i][j] in lane 16 i + 4 b + j ("the layout for output D and input C is the
        # same as the layout for input B")
        {"dim0": "lane >> 4", "dim1": "4 * ((lane >> 2) & 3) + (lane & 3)"},
        f"{_LAB_NOTES} 'Example 3' text: D and C laid out as B; {_F64_PROBE}",
    ),
    # RDNA3 16-bit accumulators (v_wmma_f16_16x16x16_f16, v_wmma_bf16_16x16x16_bf16, wave32):
    # a lane holds 8 values, value v in one 16-bit half of VGPR v (OPSEL[2] = 0: bits 15:0,
    # 1: bits 31:16; the other half is left alone); ``register`` counts the values -------------
    FragmentReference(
        "rdna3_acc_16bit",
        # D[i][j] in the 16-bit slot 2 (i / 2) + OPSEL of lane 16 (i % 2) + j: value i / 2
        {"dim0": "2 * register + (lane >> 4)", "dim1": "lane & 15"},
        f"{_CALC} InstCalcGfx11.__get_output_reg_lanes with a 16-bit output (regno = 2 (i / 2) "
        "+ OPSEL[2] in 16-bit slots, lane 16 (i % 2) + j, wave32); GPUOpen 'How to accelerate "
        "AI applications on RDNA 3 using WMMA' (GPUOpen-LibrariesAndSDKs/Orochi "
        "Test/WMMA/wmma_test_kernel.h: c_frag[2 ele], or c_frag[2 ele + 1] with OPSEL, holds "
        "D[2 ele + lane / 16][lane % 16])",
    ),
    # AMD WMMA B operands the converter obligations do not name ----------------------------
    FragmentReference(
        "rdna4_b_4bit_k32",
        # B[k][j]: VGPR (k // 8) % 2, nibble k % 8, lane 16 (k // 16) + j (B mirrors A)
        {"dim0": "register + 16 * (lane >> 4)", "dim1": "lane & 15"},
        "AMD RDNA4 ISA 7.9 'WMMA' as encoded in the AMD Matrix Instruction Calculator "
        "(InstCalcGfx12), v_wmma_i32_16x16x32_iu4, B",
    ),
    FragmentReference(
        "gfx1250_b_k32_kwidth8",
        # B of a K = 32 instruction: two RDNA4-style 16-deep K halves, the second in the next
        # 8 registers (B mirrors A)
        {"dim0": "(register & 7) + 8 * (lane >> 4) + 16 * (register >> 3)", "dim1": "lane & 15"},
        "Triton 3.9 TritonGPUAttrDefs.td AMDWmmaEncodingAttr (version 3), B mirrors A "
        "(secondary source: the gfx1250 ISA tables were not available)",
    ),
]

# shfl.sync: the source lane j of each lane, over the operands b (lane or offset) and c
# (clamp value c[4:0], segment mask c[12:8]); a lane whose j is out of range reads itself.
_SEG = "((c >> 8) & 31)"
_MAX_LANE = f"((lane & {_SEG}) | ((c & 31) & ~{_SEG}))"
_MIN_LANE = f"(lane & {_SEG})"
_B = "(b & 31)"
_SHFL_SOURCES = {
    "up": f"lane - {_B} if lane - {_B} >= {_MAX_LANE} else lane",
    "down": f"lane + {_B} if lane + {_B} <= {_MAX_LANE} else lane",
    "bfly": f"lane ^ {_B} if (lane ^ {_B}) <= {_MAX_LANE} else lane",
    "idx": f"{_MIN_LANE} | ({_B} & ~{_SEG}) if ({_MIN_LANE} | ({_B} & ~{_SEG})) <= {_MAX_LANE} "
    "else lane",
}
_LIST += [
    FragmentReference(
        f"shfl.sync.{mode}",
        {"source_lane": text},
        _ptx(_SHFL, f"Semantics, .{mode}: j and pval over lane, bval = b[4:0], c"),
    )
    for mode, text in _SHFL_SOURCES.items()
]

_REGISTER = re.compile(r"\bregister\b")
_SPLIT = re.compile(r"tcgen05\.16x32bx2\.off(\d+)(\.pack16b)?")


def _sixteen_x32bx2(name: str, split: int, packed: bool) -> FragmentReference:
    """``tcgen05.16x32bx2.off<S>[.pack16b]``: the PTX ISA's tcgen05.ld/st text for shape
    .16x32bx2 with ``immHalfSplitoff = S``.

    "The shape .16x32bx2 performs two accesses into Tensor Memory of the shape .16x32b. The
    base address of the first access is specified by taddr and the base address of the second
    access is specified by taddr+immHalfSplitoff"; a Tensor Memory address holds the lane in
    bits 31..16 and the column in bits 15..0 ("Tensor Memory Addressing"), so the second
    access is ``S`` columns to the right, on the same 16 lanes.  A .16x32b access (16 lanes,
    32 * .num bits each, one register per column) is the .32x32b fragment (Figure 183:
    thread l on TMEM lane l, register r on column r) on 16 lanes; threads 0-15 make the first
    access, threads 16-31 the second (Figure 187 is an image, not transcribed: this
    thread-to-half assignment is Triton's ``getTileLayout`` for 16x32bx2 and the SASS
    ``LDTM.16dp32bit_t0_t15`` / ``_t16_t31`` split).  With .pack::16b the 16-bit element
    ``2 i + h`` is column ``2 i + h`` from the access's base (the tcgen05 "Packing and
    Unpacking" rule); ``S`` stays in columns.

    Examples:
        >>> reference("tcgen05.16x32bx2.off4").formulas["dim1"]
        'register + 4 * (lane >> 4)'
    """
    column = "2 * (register >> 1) + (register & 1)" if packed else "register"
    return FragmentReference(
        name,
        {"dim0": "lane & 15", "dim1": f"{column} + {split} * (lane >> 4)"},
        _ptx(
            "Tensorcore 5th Generation Instructions: tcgen05.ld",
            f"shape .16x32bx2: two .16x32b accesses, the second at taddr + immHalfSplitoff "
            f"(= {split} columns); 'Tensor Memory Addressing' (column in bits 15..0)"
            + ("; .pack::16b: two 16-bit elements from adjacent columns" if packed else ""),
        ),
    )


#: name -> reference, for the fragments above.
FRAGMENTS: dict[str, FragmentReference] = {r.name: r for r in _LIST}


def reference(name: str) -> FragmentReference:
    """The vendor closed form named ``name``: one of :data:`FRAGMENTS`, a
    :mod:`~llverify.specs.nvidia_mma` reference, ``tcgen05.<shape>`` (a
    :mod:`~llverify.specs.tmem` message; ``tcgen05.<shape>.pack16b`` the same with
    ``.pack::16b``, ``register`` counting 16-bit elements), an AMD MFMA fragment (its
    ``name``), an AMD WMMA reference or an Intel DPAS reference (its key)."""
    if name in FRAGMENTS:
        return FRAGMENTS[name]
    from llverify.specs import amd_mfma, amd_wmma, intel_dpas, nvidia_mma, tmem

    split = _SPLIT.fullmatch(name)
    if split is not None:
        return _sixteen_x32bx2(name, int(split.group(1)), split.group(2) is not None)
    shape = name.removeprefix("tcgen05.")
    if shape.endswith(".pack16b") and shape.removesuffix(".pack16b") in tmem.MESSAGE_REFERENCES:
        # .pack::16b / .unpack::16b: "two 16-bit elements from adjacent columns" in one 32-bit
        # register: the 16-bit element e = 2 i + h of register i is column 2 c(i) + h, where
        # c(i) is the column register i has without packing (same TMEM lane)
        rows_cols = tmem.MESSAGE_REFERENCES[shape.removesuffix(".pack16b")]
        row = _REGISTER.sub("(register >> 1)", rows_cols["row"])
        col = _REGISTER.sub("(register >> 1)", rows_cols["col"])
        return FragmentReference(
            name,
            {"dim0": row, "dim1": f"2 * ({col}) + (register & 1)"},
            _ptx(
                "Matrix fragments for shape ." + shape.removesuffix(".pack16b"),
                "Figures 183-186 with .pack::16b / .unpack::16b (tcgen05.ld / tcgen05.st: two "
                "16-bit elements from adjacent columns per 32-bit register)",
            ),
        )
    if shape in tmem.MESSAGE_REFERENCES:  # TMEM lane (row) -> dim0, column -> dim1
        rows_cols = tmem.MESSAGE_REFERENCES[shape]
        return FragmentReference(
            name,
            {"dim0": rows_cols["row"], "dim1": rows_cols["col"]},
            _ptx("Matrix fragments for shape ." + shape, "Figures 183-186 (llverify.specs.tmem)"),
        )

    if name in nvidia_mma.REFERENCES:
        ref = nvidia_mma.REFERENCES[name]
        return FragmentReference(name, ref.formulas, ref.source)
    for fragment in amd_mfma.FRAGMENTS:
        if fragment.name == name:
            return FragmentReference(name, fragment.formulas(), fragment.source)
    if name in amd_wmma.REFERENCES:
        return FragmentReference(
            name,
            amd_wmma.REFERENCES[name],
            "AMD RDNA3/RDNA4 ISA 7.9 'WMMA' via the Matrix Instruction Calculator; gfx1250 "
            "via Triton's AMDWmmaEncodingAttr documentation (see llverify.specs.amd_wmma)",
        )
    if name in intel_dpas.REFERENCES:
        return FragmentReference(
            name,
            intel_dpas.REFERENCES[name],
            "SPV_INTEL_subgroup_matrix_multiply_accumulate, 'Mapping Matrix Data to "
            "Invocations'; tf32: cl_intel_subgroup_matrix_multiply_accumulate_tf32 (see "
            "llverify.specs.intel_dpas)",
        )
    raise LLVerifyError(f"unknown fragment reference {name!r}")
