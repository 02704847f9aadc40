"""References for AMD WMMA layouts (``#ttg.amd_wmma`` and its dot operands), and the
obligations that tie llverify's converter (llverify/encodings/amd_wmma.py) to them.

Each reference is a closed form ``{out_dim: formula}`` in llverify's formula language over the
layout's in dims ``register``, ``lane``, ``warp`` (and ``block``).  Notation: a wave has 32
lanes; ``register`` is the index of the element within the lane's fragment, counting the
16-bit (8-bit) halves (bytes) of a VGPR as separate elements, low bits first.

Primary sources:

* [RDNA3] AMD "RDNA3" Instruction Set Architecture reference guide, section 7.9 "Wave Matrix
  Multiply Accumulate (WMMA)", as encoded in the AMD Matrix Instruction Calculator
  (github.com/ROCm/amd_matrix_instruction_calculator, ``InstCalcGfx11``:
  ``__get_input_reg_lanes`` / ``__get_output_reg_lanes``, wave32).
* [RDNA4] AMD "RDNA4" Instruction Set Architecture reference guide, section 7.9 "WMMA", as
  encoded in the same calculator (``InstCalcGfx12``: ``__get_input_reg``,
  ``__get_input_lane``, ``__get_output_reg_lanes``, wave32).
  Every [RDNA3]/[RDNA4] formula below was checked against the calculator (commit 2ef91896,
  every (element, lane) of v_wmma_f32_16x16x16_f16, v_wmma_i32_16x16x16_iu8,
  v_wmma_f32_16x16x16_fp8_fp8 and v_wmma_i32_16x16x32_iu4): 0 mismatches.
* [TTGIR-DOC] Triton 3.9 include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.td,
  ``AMDWmmaEncodingAttr`` description: the version 2/3 accumulator tables, the transposed
  table, and "Example 2" (ctaLayout: tiles computed by warps, swizzled warp layouts).
  This is Triton's own documentation, a *secondary* source: it is used for gfx1250
  (version 3), whose ISA tables were not available, and for the CTA (warp) arrangement,
  which is a software convention rather than a hardware fact.

Facts the references encode:

* Accumulator (C/D, 32-bit, 16x16): lane ``l`` holds column ``l % 16``.  RDNA3 puts element
  ``i`` on row ``2 i + l // 16`` (the registers skip every other row); RDNA4 on row
  ``i + 8 (l // 16)``.
* RDNA3 A/B inputs: lanes ``l`` and ``l + 16`` hold the same data (the K lanes are
  duplicated); element ``i`` is K = ``i``.
* RDNA4 A/B inputs: the two half-waves hold different K.  16-bit data: element ``i`` of lane
  ``l`` is K = ``(i % 4) + 4 (l // 16) + 8 (i // 4)`` (Triton's kWidth = 4).  8-bit data:
  K = ``i + 8 (l // 16)`` (kWidth = 8).  4-bit data with K = 32: K = ``i + 16 (l // 16)``.
* Transposed accumulators (``isTranspose``) are those of the swapped product
  ``C^T = B^T A^T``: the roles of rows and columns exchange.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llverify.proof.obligation import Call
from llverify.proof.obligation import Obligation as LibraryObligation
from llverify.proof.verdict import Status
from llverify.specs import claims

# ---------------------------------------------------------------------- references

#: name -> {out_dim: formula}.  Shapes are (M, N) for accumulators, (M, K) for operand A
#: and (K, N) for operand B.
REFERENCES: dict[str, dict[str, str]] = {
    # [RDNA3] v_wmma_f32_16x16x16_f16, D: element i (VGPR i) of lane l holds
    # D[2 i + l // 16][l % 16] (gfx11 __get_output_reg_lanes: row r lives in VGPR r // 2,
    # lane 16 (r % 2) + column).
    "rdna3_acc": {
        "dim0": "2 * register + (lane >> 4)",
        "dim1": "lane & 15",
    },
    # [RDNA3] + transposition: D^T of the swapped product.
    "rdna3_acc_transposed": {
        "dim0": "lane & 15",
        "dim1": "2 * register + (lane >> 4)",
    },
    # [RDNA3] v_wmma_*_16x16x16_{f16,bf16,iu8}, A: element k of lanes i and i + 16 holds
    # A[i][k] (gfx11 __get_input_reg_lanes returns both lanes: duplicated half-waves).
    "rdna3_a": {
        "dim0": "lane & 15",
        "dim1": "register",
    },
    # [RDNA3] B[k][j]: element k of lanes j and j + 16.
    "rdna3_b": {
        "dim0": "register",
        "dim1": "lane & 15",
    },
    # [RDNA4] v_wmma_f32_16x16x16_f16, D: register v(i % 8), lane 16 (i // 8) + j
    # (gfx12 __get_output_reg_lanes, wave32, 32-bit output).
    "rdna4_acc": {
        "dim0": "register + 8 * (lane >> 4)",
        "dim1": "lane & 15",
    },
    # [RDNA4] + transposition.  [TTGIR-DOC] draws the same table ("isTransposed = true").
    "rdna4_acc_transposed": {
        "dim0": "lane & 15",
        "dim1": "register + 8 * (lane >> 4)",
    },
    # [RDNA4] 16-bit A (v_wmma_f32_16x16x16_f16): VGPR 2 (k // 8) + (k // 2) % 2, half k % 2,
    # lane 16 ((k // 4) % 2) + i (gfx12 __get_input_reg / __get_input_lane).
    "rdna4_a_16bit": {
        "dim0": "lane & 15",
        "dim1": "(register & 3) + 4 * (lane >> 4) + 8 * (register >> 2)",
    },
    # [RDNA4] 16-bit B: the same with (K, N).
    "rdna4_b_16bit": {
        "dim0": "(register & 3) + 4 * (lane >> 4) + 8 * (register >> 2)",
        "dim1": "lane & 15",
    },
    # [RDNA4] 8-bit A (v_wmma_i32_16x16x16_iu8, *_fp8_fp8): VGPR (k // 4) % 2, byte k % 4,
    # lane 16 (k // 8) + i.
    "rdna4_a_8bit": {
        "dim0": "lane & 15",
        "dim1": "register + 8 * (lane >> 4)",
    },
    # [RDNA4] 8-bit B.
    "rdna4_b_8bit": {
        "dim0": "register + 8 * (lane >> 4)",
        "dim1": "lane & 15",
    },
    # [RDNA4] 4-bit A with K = 32 (v_wmma_i32_16x16x32_iu4): VGPR (k // 8) % 2, nibble k % 8,
    # lane 16 (k // 16) + i.
    "rdna4_a_4bit_k32": {
        "dim0": "lane & 15",
        "dim1": "register + 16 * (lane >> 4)",
    },
    # [TTGIR-DOC] version 3 (gfx1250) 16x16 accumulator: the "version = 2/3" table.
    "gfx1250_acc": {
        "dim0": "register + 8 * (lane >> 4)",
        "dim1": "lane & 15",
    },
    # [TTGIR-DOC] + Triton's getTileLayout comment: a 32x16 instruction is two 16x16
    # accumulators stacked along M, the second in the next 8 registers.
    "gfx1250_acc_32x16": {
        "dim0": "(register & 7) + 8 * (lane >> 4) + 16 * (register >> 3)",
        "dim1": "lane & 15",
    },
    # [TTGIR-DOC] version 3, operand A of a K = 32 instruction with 8 elements per K block
    # (kWidth = 8): two RDNA4-style 16-wide K halves, the second in the next 8 registers.
    "gfx1250_a_k32_kwidth8": {
        "dim0": "lane & 15",
        "dim1": "(register & 7) + 8 * (lane >> 4) + 16 * (register >> 3)",
    },
    # ---- several warps and repetitions ([RDNA4]/[RDNA3] tile, [TTGIR-DOC] CTA arrangement)
    # RDNA4 accumulator, 2x2 warps (warp bit 0 along N, bit 1 along M), 64x64: the 32x32
    # CTA tile repeats in registers, along N first (register bit 3), then M (bit 4).
    "rdna4_acc_2x2warps_64x64": {
        "dim0": "(register & 7) + 8 * (lane >> 4) + 16 * (warp >> 1) + 32 * (register >> 4)",
        "dim1": "(lane & 15) + 16 * (warp & 1) + 32 * ((register >> 3) & 1)",
    },
    # RDNA3 accumulator with the swizzled warp layout of [TTGIR-DOC] Example 2:
    # ctaLayout = {register = [[2, 0]], warp = [[2, 1], [1, 0]]} on 64x32 (4x2 tiles).
    # Warp 1 computes tile (2, 1) first and (0, 1) second: tile row = 2 (r ^ w0) + w1.
    "rdna3_acc_swizzled_warps_64x32": {
        "dim0": (
            "2 * (register & 7) + (lane >> 4) + 16 * (warp >> 1)"
            " + 32 * (((register >> 3) & 1) ^ (warp & 1))"
        ),
        "dim1": "(lane & 15) + 16 * (warp & 1)",
    },
    # RDNA4 8-bit A operand, 2x2 warps, 32x64 (M x K): the warps along N broadcast (they
    # share A), the K tile (16) repeats in registers.
    "rdna4_a_8bit_2x2warps_32x64": {
        "dim0": "(lane & 15) + 16 * (warp >> 1)",
        "dim1": "(register & 7) + 8 * (lane >> 4) + 16 * (register >> 3)",
    },
    # RDNA3 B operand, warps 2x4 (N bits 0, 1; M bit 2), 32x64 (K x N): the upper half-wave
    # and the warps along M broadcast; registers cover all of K.
    "rdna3_b_2x4warps_32x64": {
        "dim0": "register",
        "dim1": "(lane & 15) + 16 * (warp & 3)",
    },
    # RDNA4 accumulator with a batch dim: warps 2x2x2 (N, M, batch), 2x32x32.
    "rdna4_acc_batched_2x32x32": {
        "dim0": "warp >> 2",
        "dim1": "register + 8 * (lane >> 4) + 16 * ((warp >> 1) & 1)",
        "dim2": "(lane & 15) + 16 * (warp & 1)",
    },
    # RDNA4 accumulator split over 2 CTAs along M (CGALayout = [[1, 0]]), 32x16.
    "rdna4_acc_2ctas_32x16": {
        "dim0": "register + 8 * (lane >> 4) + 16 * block",
        "dim1": "lane & 15",
    },
}

#: Deliberately wrong references shaped like historical layout bugs: each must be refuted.
WRONG_REFERENCES: dict[str, dict[str, str]] = {
    # RDNA3 accumulator read with RDNA4's consecutive rows: the every-other-row register
    # placement of version 1 is missing.
    "rdna3_acc_without_row_gap": {
        "dim0": "register + 8 * (lane >> 4)",
        "dim1": "lane & 15",
    },
    # RDNA3 A operand (kWidth 8) as if the upper half-wave held the next K block: the K-lane
    # duplication of version 1 is missing.
    "rdna3_a_without_k_duplication": {
        "dim0": "lane & 15",
        "dim1": "register + 8 * (lane >> 4)",
    },
    # RDNA4 accumulator with lane bits 0 and 1 swapped.
    "rdna4_acc_lane_bits_swapped": {
        "dim0": "register + 8 * (lane >> 4)",
        "dim1": "((lane & 1) << 1) + ((lane >> 1) & 1) + (lane & 12)",
    },
    # The transposed RDNA4 accumulator read with the non-transposed form: transposed the
    # wrong way (rows and columns not exchanged).
    "rdna4_acc_transposed_wrong_way": {
        "dim0": "register + 8 * (lane >> 4)",
        "dim1": "lane & 15",
    },
    # RDNA4 16-bit A read with the 8-bit K order (kWidth 8 instead of 4): the wrong kWidth
    # repetition.
    "rdna4_a_16bit_wrong_kwidth": {
        "dim0": "lane & 15",
        "dim1": "register + 8 * (lane >> 4)",
    },
    # The 2x2-warp accumulator with the warp bits swapped (warps M-major instead of N-major).
    "rdna4_acc_2x2warps_swapped": {
        "dim0": "(register & 7) + 8 * (lane >> 4) + 16 * (warp & 1) + 32 * (register >> 4)",
        "dim1": "(lane & 15) + 16 * (warp >> 1) + 32 * ((register >> 3) & 1)",
    },
}

# ---------------------------------------------------------------------- obligations


@dataclass(frozen=True)
class Instance:
    """A converter instance: ``AMDWMMALayout`` parameters (Gluon's names) and, for a dot
    operand, ``operand = (operand_index, k_width)``."""

    version: int
    transposed: bool = False
    warp_bases: tuple[tuple[int, ...], ...] = ()
    reg_bases: tuple[tuple[int, ...], ...] = ()
    instr_shape: tuple[int, int, int] = (16, 16, 16)
    cga_layout: tuple[tuple[int, ...], ...] = ()
    rank: int = 2
    operand: tuple[int, int] | None = None


@dataclass(frozen=True)
class Obligation:
    """``instance`` on a tensor of ``shape`` must equal ``reference`` (``expect`` "proved"),
    or, for a negative control, differ from it (``expect`` "refuted")."""

    name: str
    instance: Instance
    shape: tuple[int, ...]
    reference: str
    expect: Status = Status.PROVED

    def formulas(self) -> dict[str, str]:
        table = REFERENCES if self.expect == Status.PROVED else WRONG_REFERENCES
        return table[self.reference]


_WARPS_2X2 = ((0, 1), (1, 0))  # chooseWmmaCTALinearLayout([2, 2]): N first, then M

OBLIGATIONS: tuple[Obligation, ...] = (
    # ---- one warp, one tile
    Obligation("v1 accumulator", Instance(1), (16, 16), "rdna3_acc"),
    Obligation("v1 accumulator, transposed", Instance(1, True), (16, 16), "rdna3_acc_transposed"),
    Obligation("v1 A, kWidth 16", Instance(1, operand=(0, 16)), (16, 16), "rdna3_a"),
    Obligation("v1 B, kWidth 16", Instance(1, operand=(1, 16)), (16, 16), "rdna3_b"),
    Obligation("v2 accumulator", Instance(2), (16, 16), "rdna4_acc"),
    Obligation(
        "v2 accumulator, K 32", Instance(2, instr_shape=(16, 16, 32)), (16, 16), "rdna4_acc"
    ),
    Obligation("v2 accumulator, transposed", Instance(2, True), (16, 16), "rdna4_acc_transposed"),
    Obligation("v2 A 16-bit, kWidth 4", Instance(2, operand=(0, 4)), (16, 16), "rdna4_a_16bit"),
    Obligation("v2 B 16-bit, kWidth 4", Instance(2, operand=(1, 4)), (16, 16), "rdna4_b_16bit"),
    Obligation("v2 A 8-bit, kWidth 8", Instance(2, operand=(0, 8)), (16, 16), "rdna4_a_8bit"),
    Obligation("v2 B 8-bit, kWidth 8", Instance(2, operand=(1, 8)), (16, 16), "rdna4_b_8bit"),
    Obligation(
        "v2 A 4-bit K 32, kWidth 16",
        Instance(2, instr_shape=(16, 16, 32), operand=(0, 16)),
        (16, 32),
        "rdna4_a_4bit_k32",
    ),
    Obligation(
        "v3 accumulator 16x16x32", Instance(3, instr_shape=(16, 16, 32)), (16, 16), "gfx1250_acc"
    ),
    Obligation(
        "v3 accumulator 32x16x64",
        Instance(3, instr_shape=(32, 16, 64)),
        (32, 16),
        "gfx1250_acc_32x16",
    ),
    Obligation(
        "v3 A 16x16x32, kWidth 8",
        Instance(3, instr_shape=(16, 16, 32), operand=(0, 8)),
        (16, 32),
        "gfx1250_a_k32_kwidth8",
    ),
    # ---- several warps, repetitions, batch, CTAs
    Obligation(
        "v2 accumulator, 2x2 warps, 64x64",
        Instance(2, warp_bases=_WARPS_2X2),
        (64, 64),
        "rdna4_acc_2x2warps_64x64",
    ),
    Obligation(
        "v1 accumulator, swizzled warps",
        Instance(1, warp_bases=((2, 1), (1, 0)), reg_bases=((2, 0),)),
        (64, 32),
        "rdna3_acc_swizzled_warps_64x32",
    ),
    Obligation(
        "v2 A 8-bit, 2x2 warps, 32x64",
        Instance(2, warp_bases=_WARPS_2X2, operand=(0, 8)),
        (32, 64),
        "rdna4_a_8bit_2x2warps_32x64",
    ),
    Obligation(
        "v1 B, 2x4 warps, 32x64",
        Instance(1, warp_bases=((0, 1), (0, 2), (1, 0)), operand=(1, 16)),
        (32, 64),
        "rdna3_b_2x4warps_32x64",
    ),
    Obligation(
        "v2 accumulator, batched 2x2x2 warps",
        Instance(2, warp_bases=((0, 0, 1), (0, 1, 0), (1, 0, 0)), rank=3),
        (2, 32, 32),
        "rdna4_acc_batched_2x32x32",
    ),
    Obligation(
        "v2 accumulator, 2 CTAs along M",
        Instance(2, cga_layout=((1, 0),)),
        (32, 16),
        "rdna4_acc_2ctas_32x16",
    ),
)

#: Negative controls: each must be refuted with a register/lane/warp counterexample.
NEGATIVE_CONTROLS: tuple[Obligation, ...] = (
    Obligation(
        "v1 accumulator", Instance(1), (16, 16), "rdna3_acc_without_row_gap", Status.REFUTED
    ),
    Obligation(
        "v1 A, kWidth 8",
        Instance(1, operand=(0, 8)),
        (16, 16),
        "rdna3_a_without_k_duplication",
        Status.REFUTED,
    ),
    Obligation(
        "v2 accumulator", Instance(2), (16, 16), "rdna4_acc_lane_bits_swapped", Status.REFUTED
    ),
    Obligation(
        "v2 accumulator, transposed",
        Instance(2, True),
        (16, 16),
        "rdna4_acc_transposed_wrong_way",
        Status.REFUTED,
    ),
    Obligation(
        "v2 A 16-bit, kWidth 4",
        Instance(2, operand=(0, 4)),
        (16, 16),
        "rdna4_a_16bit_wrong_kwidth",
        Status.REFUTED,
    ),
    Obligation(
        "v2 accumulator, 2x2 warps, 64x64",
        Instance(2, warp_bases=_WARPS_2X2),
        (64, 64),
        "rdna4_acc_2x2warps_swapped",
        Status.REFUTED,
    ),
)


def encoding(instance: Instance) -> Any:
    """The llverify encoding of ``instance`` (an ``AMDWMMALayout`` or a ``DotOperandLayout``)."""
    from llverify.encodings.amd_wmma import AMDWMMALayout
    from llverify.encodings.blocked import DotOperandLayout

    parent = AMDWMMALayout(
        instance.version,
        instance.transposed,
        instance.warp_bases,
        instance.reg_bases,
        instance.instr_shape,
        instance.cga_layout,
        instance.rank,
    )
    if instance.operand is None:
        return parent
    return DotOperandLayout(instance.operand[0], parent, instance.operand[1])


# ---------------------------------------------------------------------- the library

_SOURCE = "specs/amd_wmma.py"


def layout(instance: Instance, shape: tuple[int, ...]) -> Any:
    """The LinearLayout of ``instance`` on a tensor of ``shape``."""
    return encoding(instance).to_linear_layout(list(shape))


def _obligation(ob: Obligation) -> LibraryObligation:
    relation = "vs" if ob.expect == Status.REFUTED else "=="
    control = " (negative control)" if ob.expect == Status.REFUTED else ""
    return claims.equivalence(
        f"amd_wmma: {ob.name} on {list(ob.shape)} {relation} {ob.reference}{control}",
        _SOURCE,
        Call(layout, ob.instance, ob.shape),
        ob.formulas(),
        expect=Status(ob.expect),
    )


#: The module's obligations in the built-in library: :data:`OBLIGATIONS`, then
#: :data:`NEGATIVE_CONTROLS`.
LIBRARY = tuple(_obligation(ob) for ob in (*OBLIGATIONS, *NEGATIVE_CONTROLS))
