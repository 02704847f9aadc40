"""AMD MFMA references: closed forms of the MFMA register fragments (wave64) and the
obligations that tie llverify's ``AMDMFMALayout`` and MFMA dot-operand converters to them.

Sources of the fragment formulas:

* AMD Instinct MI300 "CDNA3" Instruction Set Architecture, chapter 7 (Matrix Arithmetic
  Instructions), and the CDNA4 ISA for the gfx950 shapes;
* the AMD Matrix Instruction Calculator (github.com/ROCm/amd_matrix_instruction_calculator,
  ``--detail-instruction --register-layout``), which prints for each instruction which lane
  and register hold ``A[i][k]``, ``B[k][j]`` and ``D[i][j]``.

Notation in the formulas: ``lane`` is the lane id (0..63) and ``register`` the index of the
element within the thread's fragment (Triton counts elements, so a packed 4 x f16 operand is
4 registers and a 64-bit accumulator element is 1).  ``dim0``/``dim1`` are the rows/columns
of the fragment: (M, K) for A, (K, N) for B, (M, N) for D.

Whole tensors: Triton tiles instructions N-contiguously (the comment in
``AMDMfmaEncodingAttr::toLinearLayout``): along N the fragment, then tilesPerWarp[N] register
groups, warpsPerCTA[N] warps, then the remaining repetitions; M likewise after N.  Dot
operands cover K with registers (kWidth per instruction, then K repetitions) and broadcast
over the warps along K.  :func:`tiled_reference` writes such a tiling as one closed form.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from llverify.encodings.amd_mfma import AMDMFMALayout
from llverify.encodings.base import Encoding
from llverify.encodings.blocked import DotOperandLayout
from llverify.layout import LinearLayout
from llverify.proof.family import LayoutFamily
from llverify.proof.obligation import Call
from llverify.proof.obligation import Obligation as LibraryObligation
from llverify.proof.verdict import Status
from llverify.specs import claims

PROVED = Status.PROVED
REFUTED = Status.REFUTED


@dataclass(frozen=True)
class Fragment:
    """One instruction's fragment: ``dim0``/``dim1`` as formulas of ``register`` (index in
    the fragment, ``registers`` of them) and ``lane``; ``shape`` is its (rows, cols)."""

    name: str
    rows: str
    cols: str
    shape: tuple[int, int]
    registers: int
    source: str

    def formulas(self) -> dict[str, str]:
        return {"dim0": self.rows, "dim1": self.cols}


_CALC = "AMD Matrix Instruction Calculator, --register-layout"

# ----------------------------------------------------------------- accumulators (D)

# v_mfma_f32_32x32x8_f16 (also 32x32x2_f32, 32x32x16_f16, 32x32x16_fp8, ...): D[i][j] is in
# lane j + 32 * ((i / 4) % 2), register 4 * (i / 8) + i % 4 (CDNA3 ISA ch. 7; calculator).
D_32X32 = Fragment(
    "v_mfma_f32_32x32x8_f16 D",
    rows="8 * (register >> 2) + 4 * (lane >> 5) + (register & 3)",
    cols="lane & 31",
    shape=(32, 32),
    registers=16,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f32_32x32x8_f16",
)
# v_mfma_f32_16x16x16_f16 (also 16x16x4_f32, 16x16x32_f16, ...): D[i][j] in lane
# j + 16 * (i / 4), register i % 4.
D_16X16 = Fragment(
    "v_mfma_f32_16x16x16_f16 D",
    rows="4 * (lane >> 4) + register",
    cols="lane & 15",
    shape=(16, 16),
    registers=4,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f32_16x16x16_f16",
)
# v_mfma_f64_16x16x4_f64: D[i][j] in lane j + 16 * (i % 4), 64-bit register i / 4.
D_16X16_F64 = Fragment(
    "v_mfma_f64_16x16x4_f64 D",
    rows="4 * register + (lane >> 4)",
    cols="lane & 15",
    shape=(16, 16),
    registers=4,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f64_16x16x4_f64",
)
# v_mfma_f32_4x4x4_16b_f16 (16 blocks): block b's D[i][j] in lane j + 4 * b, register i.
# Triton's 4x64 instrShape puts block b at columns 4b..4b+3: a 4 x 64 tile.
D_4X64 = Fragment(
    "v_mfma_f32_4x4x4_16b_f16 D as 4x64",
    rows="register",
    cols="lane",
    shape=(4, 64),
    registers=4,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f32_4x4x4_16b_f16",
)
# Triton's 64x4 instrShape is the 4x64 instruction with A and B swapped: it computes D^T,
# a 64 x 4 tile (Triton requires isTransposed for it).
D_64X4 = Fragment(
    "v_mfma_f32_4x4x4_16b_f16 D^T as 64x4",
    rows="lane",
    cols="register",
    shape=(64, 4),
    registers=4,
    source=f"{_CALC} v_mfma_f32_4x4x4_16b_f16, A and B swapped (D^T = B^T A^T)",
)
# isTransposed: Triton swaps the operands, so a lane holds D^T's column = D's row.
D_32X32_T = Fragment(
    "v_mfma_f32_32x32x8_f16 D^T",
    rows="lane & 31",
    cols="8 * (register >> 2) + 4 * (lane >> 5) + (register & 3)",
    shape=(32, 32),
    registers=16,
    source=f"{_CALC} v_mfma_f32_32x32x8_f16, A and B swapped (D^T = B^T A^T)",
)
D_16X16_T = Fragment(
    "v_mfma_f32_16x16x16_f16 D^T",
    rows="lane & 15",
    cols="4 * (lane >> 4) + register",
    shape=(16, 16),
    registers=4,
    source=f"{_CALC} v_mfma_f32_16x16x16_f16, A and B swapped (D^T = B^T A^T)",
)

# ----------------------------------------------------------------- operands (A, B)

# v_mfma_f32_32x32x8_f16: A[i][k] in lane i + 32 * (k / 4), register k % 4 (4 x f16 packed);
# B[k][j] in lane j + 32 * (k / 4), register k % 4.  Triton: kWidth = 4.
A_32X32X8_F16 = Fragment(
    "v_mfma_f32_32x32x8_f16 A",
    rows="lane & 31",
    cols="4 * (lane >> 5) + register",
    shape=(32, 8),
    registers=4,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f32_32x32x8_f16",
)
B_32X32X8_F16 = Fragment(
    "v_mfma_f32_32x32x8_f16 B",
    rows="4 * (lane >> 5) + register",
    cols="lane & 31",
    shape=(8, 32),
    registers=4,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f32_32x32x8_f16",
)
# v_mfma_f32_16x16x16_f16: A[i][k] in lane i + 16 * (k / 4), register k % 4.  kWidth = 4.
A_16X16X16_F16 = Fragment(
    "v_mfma_f32_16x16x16_f16 A",
    rows="lane & 15",
    cols="4 * (lane >> 4) + register",
    shape=(16, 16),
    registers=4,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f32_16x16x16_f16",
)
B_16X16X16_F16 = Fragment(
    "v_mfma_f32_16x16x16_f16 B",
    rows="4 * (lane >> 4) + register",
    cols="lane & 15",
    shape=(16, 16),
    registers=4,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f32_16x16x16_f16",
)
# v_mfma_f32_32x32x2_f32: A[i][k] in lane i + 32 * k (one f32 register).  kWidth = 1.
A_32X32X2_F32 = Fragment(
    "v_mfma_f32_32x32x2_f32 A",
    rows="lane & 31",
    cols="lane >> 5",
    shape=(32, 2),
    registers=1,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f32_32x32x2_f32",
)
B_32X32X2_F32 = Fragment(
    "v_mfma_f32_32x32x2_f32 B",
    rows="lane >> 5",
    cols="lane & 31",
    shape=(2, 32),
    registers=1,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f32_32x32x2_f32",
)
# v_mfma_f32_16x16x4_f32 and v_mfma_f64_16x16x4_f64: A[i][k] in lane i + 16 * k.  kWidth = 1.
A_16X16X4 = Fragment(
    "v_mfma_f32_16x16x4_f32 / v_mfma_f64_16x16x4_f64 A",
    rows="lane & 15",
    cols="lane >> 4",
    shape=(16, 4),
    registers=1,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f32_16x16x4_f32, v_mfma_f64_16x16x4_f64",
)
B_16X16X4 = Fragment(
    "v_mfma_f32_16x16x4_f32 / v_mfma_f64_16x16x4_f64 B",
    rows="lane >> 4",
    cols="lane & 15",
    shape=(4, 16),
    registers=1,
    source=f"CDNA3 ISA ch. 7; {_CALC} v_mfma_f32_16x16x4_f32, v_mfma_f64_16x16x4_f64",
)
# gfx950 v_mfma_f32_32x32x16_f16 (and gfx942 v_mfma_f32_32x32x16_fp8 / _i8): A[i][k] in lane
# i + 32 * (k / 8), register k % 8.  kWidth = 8.
A_32X32X16 = Fragment(
    "v_mfma_f32_32x32x16_f16 A",
    rows="lane & 31",
    cols="8 * (lane >> 5) + register",
    shape=(32, 16),
    registers=8,
    source=f"CDNA4 ISA ch. 7; {_CALC} v_mfma_f32_32x32x16_f16 (also CDNA3 _fp8_fp8, _i8)",
)
B_32X32X16 = Fragment(
    "v_mfma_f32_32x32x16_f16 B",
    rows="8 * (lane >> 5) + register",
    cols="lane & 31",
    shape=(16, 32),
    registers=8,
    source=f"CDNA4 ISA ch. 7; {_CALC} v_mfma_f32_32x32x16_f16",
)
# gfx950 v_mfma_f32_16x16x32_f16 (and gfx942 v_mfma_f32_16x16x32_fp8): A[i][k] in lane
# i + 16 * (k / 8), register k % 8.  kWidth = 8.
A_16X16X32 = Fragment(
    "v_mfma_f32_16x16x32_f16 A",
    rows="lane & 15",
    cols="8 * (lane >> 4) + register",
    shape=(16, 32),
    registers=8,
    source=f"CDNA4 ISA ch. 7; {_CALC} v_mfma_f32_16x16x32_f16 (also CDNA3 _fp8_fp8)",
)
B_16X16X32 = Fragment(
    "v_mfma_f32_16x16x32_f16 B",
    rows="8 * (lane >> 4) + register",
    cols="lane & 15",
    shape=(32, 16),
    registers=8,
    source=f"CDNA4 ISA ch. 7; {_CALC} v_mfma_f32_16x16x32_f16",
)
# v_mfma_f32_4x4x4_16b_f16: block b's A[i][k] in lane i + 4 * b, register k (4 x f16).
# Triton's 4x64 operand A stacks block b's K slice at k = 4b..4b+3: a 4 x 64 tile.
A_4X64 = Fragment(
    "v_mfma_f32_4x4x4_16b_f16 A as 4x64",
    rows="lane & 3",
    cols="4 * (lane >> 2) + register",
    shape=(4, 64),
    registers=4,
    source=f"{_CALC} v_mfma_f32_4x4x4_16b_f16",
)
# Its B: block b's B[k][j] in lane j + 4 * b, register k; the 64 columns are the blocks
# side by side, and Triton issues 16 instructions (broadcasting A's block r with the
# CBSZ/ABID fields) over 16 register groups, so register r holds k = r: a 64 x 64 tile.
B_4X64 = Fragment(
    "v_mfma_f32_4x4x4_16b_f16 B as 4x64, 16 instructions",
    rows="register",
    cols="lane",
    shape=(64, 64),
    registers=64,
    source=f"{_CALC} v_mfma_f32_4x4x4_16b_f16 (16 blocks, A broadcast by CBSZ/ABID)",
)
# The 64x4 shape is the same instruction with the operands swapped.
A_64X4 = Fragment(
    "v_mfma_f32_4x4x4_16b_f16 (swapped) A as 64x4, 16 instructions",
    rows="lane",
    cols="register",
    shape=(64, 64),
    registers=64,
    source=f"{_CALC} v_mfma_f32_4x4x4_16b_f16, operands swapped",
)
B_64X4 = Fragment(
    "v_mfma_f32_4x4x4_16b_f16 (swapped) B as 64x4",
    rows="4 * (lane >> 2) + register",
    cols="lane & 3",
    shape=(64, 4),
    registers=4,
    source=f"{_CALC} v_mfma_f32_4x4x4_16b_f16, operands swapped",
)

FRAGMENTS: tuple[Fragment, ...] = (
    D_32X32,
    D_16X16,
    D_16X16_F64,
    D_4X64,
    D_64X4,
    D_32X32_T,
    D_16X16_T,
    A_32X32X8_F16,
    B_32X32X8_F16,
    A_16X16X16_F16,
    B_16X16X16_F16,
    A_32X32X2_F32,
    B_32X32X2_F32,
    A_16X16X4,
    B_16X16X4,
    A_32X32X16,
    B_32X32X16,
    A_16X16X32,
    B_16X16X32,
    A_4X64,
    B_4X64,
    A_64X4,
    B_64X4,
)


# ----------------------------------------------------------------- tiling


def _log2(value: int) -> int:
    if value < 1 or value & (value - 1):
        raise ValueError(f"{value} is not a positive power of 2")
    return value.bit_length() - 1


def tiled_reference(
    fragment: Fragment,
    *,
    register: Sequence[tuple[str, int]] = (),
    warp: Sequence[tuple[str, int]] = (),
    dims: Mapping[str, Sequence[str]] = {},  # noqa: B006 - read only
    rank: int = 2,
) -> dict[str, str]:
    """The closed form of a tensor tiled with ``fragment``.

    ``register``/``warp`` are named fields of the in dims, (name, count) from the low bits
    up (the register fields sit above the fragment's own register bits).  ``dims`` lists,
    for each out dim, its fields from minor to major: coordinate = fragment coordinate +
    extent * (f1 + c1 * (f2 + c2 * ...)).  A field no out dim lists is broadcast.  The
    fragment's rows/cols are the last two dims; a batch dim (rank 3) has extent 1.
    """
    fields: dict[str, tuple[str, int, int]] = {}
    offset = {"register": _log2(fragment.registers), "warp": 0}
    for in_dim, spec in (("register", register), ("warp", warp)):
        for name, count in spec:
            fields[name] = (in_dim, offset[in_dim], count)
            offset[in_dim] += _log2(count)
    mask = fragment.registers - 1
    local = re.compile(r"\bregister\b")
    names = [f"dim{d}" for d in range(rank)]
    base = {
        names[-2]: (local.sub(f"(register & {mask})", fragment.rows), fragment.shape[0]),
        names[-1]: (local.sub(f"(register & {mask})", fragment.cols), fragment.shape[1]),
    }
    result = {}
    for out in names:
        text, scale = base.get(out, ("0", 1))
        terms = [f"({text})"]
        for name in dims.get(out, ()):
            in_dim, shift, count = fields[name]
            if count > 1:
                terms.append(f"{scale} * ((({in_dim}) >> {shift}) & {count - 1})")
            scale *= count
        result[out] = " + ".join(terms)
    return result


def accumulator_reference(
    fragment: Fragment,
    warps_per_cta: Sequence[int],
    tiles_per_warp: Sequence[int],
    shape: Sequence[int],
) -> dict[str, str]:
    """The D closed form of an MFMA tensor (shape >= one CTA tile along M and N): along N
    the fragment, tiles per warp, warps, repetitions; then M likewise; then the batch."""
    rows, cols = fragment.shape
    *batch, wm, wn = warps_per_cta
    tm, tn = tiles_per_warp[-2:]
    m, n = shape[-2:]
    register = [
        ("n_tiles", tn),
        ("n_reps", n // (cols * wn * tn)),
        ("m_tiles", tm),
        ("m_reps", m // (rows * wm * tm)),
    ]
    warp = [("n_warps", wn), ("m_warps", wm)]
    dims = {
        f"dim{len(shape) - 2}": ["m_tiles", "m_warps", "m_reps"],
        f"dim{len(shape) - 1}": ["n_tiles", "n_warps", "n_reps"],
    }
    if batch:
        warp.append(("b_warps", batch[0]))
        register.append(("b_reps", max(1, shape[0] // batch[0])))
        dims["dim0"] = ["b_warps", "b_reps"]
    return tiled_reference(fragment, register=register, warp=warp, dims=dims, rank=len(shape))


def operand_reference(
    fragment: Fragment,
    operand_index: int,
    warps_per_cta: Sequence[int],
    tiles_per_warp: Sequence[int],
    shape: Sequence[int],
) -> dict[str, str]:
    """The closed form of MFMA dot operand A (0) or B (1) on a 2-D ``shape`` (>= one CTA
    tile along the non-K dim): K by registers (fragment, then repetitions), the non-K dim
    like the accumulator's, warps along K broadcast."""
    wm, wn = warps_per_cta
    tm, tn = tiles_per_warp
    if operand_index == 0:
        non_k_extent, k_extent = fragment.shape
        non_k, k = shape
        tiles, warps, other = tm, wm, wn
    else:
        k_extent, non_k_extent = fragment.shape
        k, non_k = shape
        tiles, warps, other = tn, wn, wm
    register = [
        ("k_reps", max(1, k // k_extent)),
        ("nk_tiles", tiles),
        ("nk_reps", non_k // (non_k_extent * warps * tiles)),
    ]
    # Warps come row-major over (M, N): N's warps are the low warp bits.
    if operand_index == 0:
        warp = [("k_warps", other), ("nk_warps", warps)]
        k_dim, non_k_dim = "dim1", "dim0"
    else:
        warp = [("nk_warps", warps), ("k_warps", other)]
        k_dim, non_k_dim = "dim0", "dim1"
    return tiled_reference(
        fragment,
        register=register,
        warp=warp,
        dims={non_k_dim: ["nk_tiles", "nk_warps", "nk_reps"], k_dim: ["k_reps"]},
    )


# ----------------------------------------------------------------- obligations


@dataclass(frozen=True)
class Obligation:
    """``encoding.to_linear_layout(shape)`` must equal ``reference`` (``expect`` says
    whether the prover must prove or refute it: refuted rows are negative controls)."""

    name: str
    encoding: Encoding
    shape: tuple[int, ...]
    reference: Mapping[str, str]
    expect: Status = PROVED
    source: str = ""
    note: str = field(default="", compare=False)


def _mfma(
    instr: Sequence[int],
    transposed: bool,
    warps: Sequence[int],
    tiles: Sequence[int] | None = None,
    bitwidth: int = 32,
    version: int = 3,
) -> AMDMFMALayout:
    return AMDMFMALayout(version, list(instr), transposed, list(warps), bitwidth, tiles)


def _swap_lane_bits(formulas: Mapping[str, str], low: int, high: int) -> dict[str, str]:
    """The formulas with lane bits ``low`` and ``high`` exchanged (a classic layout bug)."""
    swapped = (
        f"((lane & {63 ^ (1 << low) ^ (1 << high)}) | (((lane >> {low}) & 1) << {high}) | "
        f"(((lane >> {high}) & 1) << {low}))"
    )
    pattern = re.compile(r"\blane\b")
    return {d: pattern.sub(swapped, text) for d, text in formulas.items()}


def _tile(name: str, encoding: Encoding, fragment: Fragment) -> Obligation:
    """One warp, one instruction tile: the converter equals the fragment formula."""
    return Obligation(name, encoding, fragment.shape, fragment.formulas(), source=fragment.source)


_DOT = DotOperandLayout

#: One warp, one tile: each fragment against the converter.
TILE_OBLIGATIONS: tuple[Obligation, ...] = (
    _tile("mfma/32x32x8_f16/D", _mfma([32, 32, 8], False, [1, 1]), D_32X32),
    _tile("mfma/16x16x16_f16/D", _mfma([16, 16, 16], False, [1, 1]), D_16X16),
    _tile("mfma/16x16x4_f64/D", _mfma([16, 16, 4], False, [1, 1], bitwidth=64), D_16X16_F64),
    _tile("mfma/4x4x4_16b/D-4x64", _mfma([4, 64, 4], False, [1, 1], version=4), D_4X64),
    _tile("mfma/4x4x4_16b/D-64x4-transposed", _mfma([64, 4, 4], True, [1, 1]), D_64X4),
    _tile("mfma/32x32x8_f16/D-transposed", _mfma([32, 32, 8], True, [1, 1]), D_32X32_T),
    _tile("mfma/16x16x16_f16/D-transposed", _mfma([16, 16, 16], True, [1, 1]), D_16X16_T),
    _tile("mfma/32x32x8_f16/A", _DOT(0, _mfma([32, 32, 8], False, [1, 1]), 4), A_32X32X8_F16),
    _tile("mfma/32x32x8_f16/B", _DOT(1, _mfma([32, 32, 8], False, [1, 1]), 4), B_32X32X8_F16),
    _tile("mfma/16x16x16_f16/A", _DOT(0, _mfma([16, 16, 16], True, [1, 1]), 4), A_16X16X16_F16),
    _tile("mfma/16x16x16_f16/B", _DOT(1, _mfma([16, 16, 16], True, [1, 1]), 4), B_16X16X16_F16),
    _tile("mfma/32x32x2_f32/A", _DOT(0, _mfma([32, 32, 2], False, [1, 1]), 1), A_32X32X2_F32),
    _tile("mfma/32x32x2_f32/B", _DOT(1, _mfma([32, 32, 2], False, [1, 1]), 1), B_32X32X2_F32),
    _tile("mfma/16x16x4_f32/A", _DOT(0, _mfma([16, 16, 4], False, [1, 1]), 1), A_16X16X4),
    _tile("mfma/16x16x4_f32/B", _DOT(1, _mfma([16, 16, 4], False, [1, 1]), 1), B_16X16X4),
    _tile(
        "mfma/16x16x4_f64/A",
        _DOT(0, _mfma([16, 16, 4], False, [1, 1], bitwidth=64), 1),
        A_16X16X4,
    ),
    _tile(
        "mfma/32x32x16_f16/A",
        _DOT(0, _mfma([32, 32, 16], False, [1, 1], version=4), 8),
        A_32X32X16,
    ),
    _tile(
        "mfma/32x32x16_f16/B",
        _DOT(1, _mfma([32, 32, 16], False, [1, 1], version=4), 8),
        B_32X32X16,
    ),
    _tile(
        "mfma/16x16x32_f16/A",
        _DOT(0, _mfma([16, 16, 32], False, [1, 1], version=4), 8),
        A_16X16X32,
    ),
    _tile(
        "mfma/16x16x32_f16/B",
        _DOT(1, _mfma([16, 16, 32], False, [1, 1], version=4), 8),
        B_16X16X32,
    ),
    _tile("mfma/4x4x4_16b/A-4x64", _DOT(0, _mfma([4, 64, 4], False, [1, 1]), 4), A_4X64),
    _tile("mfma/4x4x4_16b/B-4x64", _DOT(1, _mfma([4, 64, 4], False, [1, 1]), 4), B_4X64),
    _tile("mfma/4x4x4_16b/A-64x4", _DOT(0, _mfma([64, 4, 4], True, [1, 1]), 4), A_64X4),
    _tile("mfma/4x4x4_16b/B-64x4", _DOT(1, _mfma([64, 4, 4], True, [1, 1]), 4), B_64X4),
)


def _acc(
    name: str,
    fragment: Fragment,
    encoding: AMDMFMALayout,
    shape: Sequence[int],
) -> Obligation:
    assert encoding.tiles_per_warp is not None
    reference = accumulator_reference(
        fragment, encoding.warps_per_cta, encoding.tiles_per_warp, shape
    )
    return Obligation(name, encoding, tuple(shape), reference, source=fragment.source)


def _operand(
    name: str, fragment: Fragment, encoding: DotOperandLayout, shape: Sequence[int]
) -> Obligation:
    parent = encoding.parent
    assert isinstance(parent, AMDMFMALayout) and parent.tiles_per_warp is not None
    reference = operand_reference(
        fragment, encoding.operand_index, parent.warps_per_cta, parent.tiles_per_warp, shape
    )
    return Obligation(name, encoding, tuple(shape), reference, source=fragment.source)


#: Several warps, tiles per warp and repetitions over whole tensors.
TENSOR_OBLIGATIONS: tuple[Obligation, ...] = (
    _acc("mfma/32x32/D/w2x4/128x256", D_32X32, _mfma([32, 32, 8], False, [2, 4]), [128, 256]),
    _acc(
        "mfma/32x32/D-transposed/w4x2/tpw2x2/256x256",
        D_32X32_T,
        _mfma([32, 32, 8], True, [4, 2], [2, 2]),
        [256, 256],
    ),
    _acc(
        "mfma/16x16/D/w2x2/tpw2x1/64x128",
        D_16X16,
        _mfma([16, 16, 16], False, [2, 2], [2, 1]),
        [64, 128],
    ),
    _acc(
        "mfma/16x16/D-transposed/w1x4/tpw1x2/32x256",
        D_16X16_T,
        _mfma([16, 16, 16], True, [1, 4], [1, 2]),
        [32, 256],
    ),
    _acc(
        "mfma/16x16_f64/D/w1x4/32x128",
        D_16X16_F64,
        _mfma([16, 16, 4], False, [1, 4], bitwidth=64),
        [32, 128],
    ),
    _acc("mfma/4x64/D/w2x2/16x256", D_4X64, _mfma([4, 64, 4], False, [2, 2]), [16, 256]),
    _acc("mfma/64x4/D/w2x1/256x8", D_64X4, _mfma([64, 4, 4], True, [2, 1]), [256, 8]),
    _acc(
        "mfma/32x32/D/w2x2x1/batch4/4x64x64",
        D_32X32,
        _mfma([32, 32, 8], False, [2, 2, 1], [1, 1, 1]),
        [4, 64, 64],
    ),
    _operand(
        "mfma/32x32x8_f16/A/w2x4/128x64",
        A_32X32X8_F16,
        _DOT(0, _mfma([32, 32, 8], False, [2, 4]), 4),
        [128, 64],
    ),
    _operand(
        "mfma/32x32x8_f16/B/w2x4/tpw1x2/64x512",
        B_32X32X8_F16,
        _DOT(1, _mfma([32, 32, 8], True, [2, 4], [1, 2]), 4),
        [64, 512],
    ),
    _operand(
        "mfma/16x16x16_f16/A/w4x1/tpw2x1/256x64",
        A_16X16X16_F16,
        _DOT(0, _mfma([16, 16, 16], False, [4, 1], [2, 1]), 4),
        [256, 64],
    ),
    _operand(
        "mfma/16x16x16_f16/B/w2x2/64x128",
        B_16X16X16_F16,
        _DOT(1, _mfma([16, 16, 16], False, [2, 2]), 4),
        [64, 128],
    ),
    _operand(
        "mfma/32x32x16_f16/A/w2x2/tpw2x2/256x128",
        A_32X32X16,
        _DOT(0, _mfma([32, 32, 16], False, [2, 2], [2, 2], version=4), 8),
        [256, 128],
    ),
    _operand(
        "mfma/16x16x32_f16/B/w1x8/128x256",
        B_16X16X32,
        _DOT(1, _mfma([16, 16, 32], False, [1, 8], version=4), 8),
        [128, 256],
    ),
    _operand(
        "mfma/16x16x4_f64/B/w2x2/16x64",
        B_16X16X4,
        _DOT(1, _mfma([16, 16, 4], False, [2, 2], bitwidth=64), 1),
        [16, 64],
    ),
    _operand(
        "mfma/4x64/B/w1x4/128x512",
        B_4X64,
        _DOT(1, _mfma([4, 64, 4], False, [1, 4]), 4),
        [128, 512],
    ),
    _operand(
        "mfma/64x4/A/w2x1/256x64",
        A_64X4,
        _DOT(0, _mfma([64, 4, 4], True, [2, 1]), 4),
        [256, 64],
    ),
)

#: Negative controls shaped like historical layout bugs: the prover must refute each one.
NEGATIVE_CONTROLS: tuple[Obligation, ...] = (
    Obligation(
        "mfma/32x32/D/transposed-the-wrong-way (negative control)",
        _mfma([32, 32, 8], True, [1, 1]),
        (32, 32),
        D_32X32.formulas(),
        REFUTED,
        note="the non-transposed fragment checked against an isTransposed layout",
    ),
    Obligation(
        "mfma/32x32x8_f16/A/wrong-kwidth (negative control)",
        _DOT(0, _mfma([32, 32, 8], False, [2, 1]), 8),
        (64, 64),
        operand_reference(A_32X32X8_F16, 0, [2, 1], [1, 1], [64, 64]),
        REFUTED,
        note="kWidth 4 (K repeats every 8) checked against a kWidth-8 operand",
    ),
    Obligation(
        "mfma/16x16/D/lane-bits-2-4-swapped (negative control)",
        _mfma([16, 16, 16], False, [2, 2]),
        (32, 32),
        _swap_lane_bits(accumulator_reference(D_16X16, [2, 2], [1, 1], [32, 32]), 2, 4),
        REFUTED,
        note="a tile whose lane bits 2 and 4 are exchanged",
    ),
    Obligation(
        "mfma/32x32/D/warps-M-first (negative control)",
        _mfma([32, 32, 8], False, [2, 2]),
        (64, 64),
        tiled_reference(
            D_32X32,
            warp=[("m_warps", 2), ("n_warps", 2)],
            dims={"dim0": ["m_warps"], "dim1": ["n_warps"]},
        ),
        REFUTED,
        note="warps ordered M first (column-major) instead of N first",
    ),
)

OBLIGATIONS: tuple[Obligation, ...] = TILE_OBLIGATIONS + TENSOR_OBLIGATIONS + NEGATIVE_CONTROLS


# ----------------------------------------------------------------- parametric family


def mfma32_accumulator_family(max_log2: int = 3) -> LayoutFamily:
    """Triton's 32x32 MFMA accumulator (tilesPerWarp 1, 32-bit) on every warp grid
    ``2**lwm x 2**lwn`` and shape ``(32 * 2**(lwm + lrm), 32 * 2**(lwn + lrn))``, transposed
    or not (``tr``), transcribed from ``AMDMfmaEncodingAttr::toLinearLayout``'s bases:
    register bits 0-3 the tile, then ``lrn`` bits of N repetitions, then ``lrm`` of M.

    Members equal the converter (see the tests) and :data:`MFMA32_FAMILY_REFERENCE`.
    """
    tile = "((1 << i) if i < 2 else (8 << max(i - 2, 0)))"
    n_rep = "(32 << max(lwn + i - 4, 0))"
    m_rep = "(32 << max(lwm + i - 4 - lrn, 0))"
    lane_n = "((1 << i) if i < 5 else 0)"
    lane_m = "(4 if i == 5 else 0)"
    return LayoutFamily(
        name="mfma32_accumulator",
        params={
            "lwm": (0, max_log2),
            "lwn": (0, max_log2),
            "lrm": (0, max_log2),
            "lrn": (0, max_log2),
            "tr": (0, 1),
        },
        in_dims={"register": "4 + lrn + lrm", "lane": "6", "warp": "lwm + lwn", "block": "0"},
        out_dims={"dim0": "5 + lwm + lrm", "dim1": "5 + lwn + lrn"},
        bases={
            "register": {
                "dim0": f"({tile} if tr == 0 else 0) if i < 4 else (0 if i < 4 + lrn else {m_rep})",
                "dim1": f"(0 if tr == 0 else {tile}) if i < 4 else ({n_rep} if i < 4 + lrn else 0)",
            },
            "lane": {
                "dim0": f"{lane_m} if tr == 0 else {lane_n}",
                "dim1": f"{lane_n} if tr == 0 else {lane_m}",
            },
            "warp": {
                "dim0": "0 if i < lwn else (32 << max(i - lwn, 0))",
                "dim1": "(32 << i) if i < lwn else 0",
            },
            "block": {"dim0": "0", "dim1": "0"},
        },
    )


def mfma32_family_member(
    lwm: int, lwn: int, lrm: int, lrn: int, tr: int
) -> tuple[AMDMFMALayout, tuple[int, int]]:
    """The converter instance (encoding, shape) of one member of
    :func:`mfma32_accumulator_family`."""
    shape = (32 << (lwm + lrm), 32 << (lwn + lrn))
    return _mfma([32, 32, 8], bool(tr), [1 << lwm, 1 << lwn]), shape


_ROW = "(8 * ((register >> 2) & 3) + 4 * (lane >> 5) + (register & 3))"
_COL = "(lane & 31)"
#: The 32x32 D fragment (:data:`D_32X32`), warps N-first, then N and M repetitions.
MFMA32_FAMILY_REFERENCE = {
    "dim0": f"({_ROW} if tr == 0 else {_COL}) + 32 * (warp >> lwn) + "
    "(32 << lwm) * (register >> (4 + lrn))",
    "dim1": f"({_COL} if tr == 0 else {_ROW}) + 32 * (warp & ((1 << lwn) - 1)) + "
    "(32 << lwn) * ((register >> 4) & ((1 << lrn) - 1))",
}
#: Negative control: warps M-first (column-major), as on NVIDIA Hopper.
MFMA32_FAMILY_REFERENCE_WARPS_M_FIRST = {
    "dim0": f"({_ROW} if tr == 0 else {_COL}) + 32 * (warp & ((1 << lwm) - 1)) + "
    "(32 << lwm) * (register >> (4 + lrn))",
    "dim1": f"({_COL} if tr == 0 else {_ROW}) + 32 * (warp >> lwm) + "
    "(32 << lwn) * ((register >> 4) & ((1 << lrn) - 1))",
}


# ----------------------------------------------------------------- the library

_SOURCE = "specs/amd_mfma.py"


def layout(ob: Obligation) -> LinearLayout:
    """Triton's converter on ``ob``: ``ob.encoding.to_linear_layout(ob.shape)``."""
    return ob.encoding.to_linear_layout(list(ob.shape))


def _name(ob: Obligation) -> str:
    if ob.expect == REFUTED:
        name = ob.name.replace(" (negative control)", "")
        return f"amd_mfma: {name} on {list(ob.shape)} vs reference (negative control)"
    return f"amd_mfma: {ob.name} on {list(ob.shape)} == reference"


def _library() -> tuple[LibraryObligation, ...]:
    result = [
        claims.equivalence(
            _name(ob),
            _SOURCE,
            Call(layout, ob),
            dict(ob.reference),
            expect=Status(ob.expect),
        )
        for ob in OBLIGATIONS
    ]
    scope = "every warp grid and repetition <= 8 per dim, transposed or not"
    result.append(
        claims.family(
            f"amd_mfma: 32x32 accumulator family, {scope}, == MFMA32_FAMILY_REFERENCE",
            _SOURCE,
            mfma32_accumulator_family,
            MFMA32_FAMILY_REFERENCE,
        )
    )
    result.append(
        claims.family(
            f"amd_mfma: 32x32 accumulator family, {scope}, vs "
            "MFMA32_FAMILY_REFERENCE_WARPS_M_FIRST (negative control)",
            _SOURCE,
            mfma32_accumulator_family,
            MFMA32_FAMILY_REFERENCE_WARPS_M_FIRST,
            expect=Status.REFUTED,
        )
    )
    return tuple(result)


#: The module's obligations in the built-in library: :data:`OBLIGATIONS`, then the family
#: and its control.
LIBRARY = _library()
