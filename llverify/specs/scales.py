"""References for the block-scale scale-factor layouts (:mod:`llverify.encodings.scales`).

Sources and what they say, per instruction:

* **sm_120 ``mma.sync ... .block_scale``** (NVIDIA PTX ISA 8.7+, section 9.7.14.4
  "Warp-level matrix multiply-accumulate: Block Scaling", Figures 43-44, as
  ``llverify.specs.fragments`` transcribes them for the atom catalogue,
  ``mma.block_scale.SFA`` / ``.SFB``): with ``scale_vec::1X`` one scale per row of A and K
  block (m16n8k32: the K of one instruction is one block of 32).  SF_A of row ``m`` comes from
  the thread pair of quad ``m % 8`` that ``thread-id-a`` selects (lanes ``% 4`` in {0, 1} or
  {2, 3}), its lower lane holding row ``groupID``, its upper lane row ``groupID + 8``; SF_B
  of column ``n`` from the thread of quad ``n`` that ``thread-id-b`` selects.  Triton passes
  ``thread-id = 0`` and ``byte-id = 0`` and keeps one K block per register (the scale of
  the instruction issued for that K step), so its tile must equal the SF_A fragment with
  ``dim1 = register`` (the K block), and the transposed SF_B fragment; the selector bits
  (lane bit 1 for A, lane bits 0-1 for B) must not move the element (broadcast).
* **CDNA4 ``v_mfma_scale_f32_32x32x64_f8f6f4`` / ``16x16x128``** (AMD Instinct CDNA4 ISA
  reference guide, chapter 7 "Matrix Arithmetic Instructions", the scaled MFMA; operand
  layouts as the AMD Matrix Instruction Calculator prints them for these opcodes): lane
  ``l`` supplies the 32 consecutive K values ``32 * (l // M) ...`` of row ``l % M`` of A
  (of column ``l % N`` of B), and one 8-bit E8M0 scale (the byte its scale VGPR's OPSEL
  picks) applies to those 32 values.  So the scale of (row ``i``, K block ``b``) of one
  instruction sits in lane ``i + M * b``: ``dim0 = lane % M``, ``dim1 = lane // M``;
  further K blocks (the next instructions along K) go to registers, ``64 // M`` blocks per
  instruction.

* **tcgen05 block-scale factors in Tensor Memory** (``TensorMemoryScalesLayout``, in dims
  TMEM ``row`` = lane 0-127 and ``col`` = 8-bit column, four per 32-bit word).  PTX ISA
  section 9.7.16.10.7 "Block Scaling": the scale factors "need to be duplicated to all 32
  lane partitions of tensor memory" (rows 32, 64 broadcast); ``scale_vec::1X`` reads one byte
  (``SFA_ID`` = byte offset in the word), ``2X`` a half word, ``4X`` the whole word.  The
  word itself, from CUTLASS (include/cutlass/detail/sm100_blockscaled_layout.hpp,
  ``Sm1xxBlockScaledBasicChunk::SfKMajorAtom`` = ``((32, 4), (SFVec, 4)) : ((16, 4), (0,
  1))``, "4 scale factors of 128 rows ... consecutive 32 bits of data have scale factors for
  only a single row ... the TMEM word size"): the 128 x 4 block puts (mn, k) at byte
  ``16 * (mn % 32) + 4 * (mn // 32) + k``, and ``tcgen05.cp .32x128b .warpx4`` copies its
  sixteen-byte row ``r`` into TMEM lane ``r`` (4 words), replicated over the four 32-lane
  partitions.  So the scale of (mn, k) lies in lane ``mn % 32`` (of each partition), word
  ``mn // 32``, byte ``k``: ``dim0 = (row % 32) + 32 * (col // 4) % 4``, ``dim1 = col % 4``.
  Further 128 x 4 blocks follow along the columns, 16 bytes each, in Triton's order (M/N
  blocks first, ``mnThenK``): Triton's convention, not a vendor rule; the closed form
  :func:`tmem_scales_closed_form` states it.

Declarative: tests/test_encodings_scales.py proves each obligation with ``prove_equal`` and
refutes the negative controls, each shaped like a plausible bug.

Examples:
    >>> SM120_TILE_A["dim0"]
    '(lane >> 2) + 8 * (lane & 1)'
    >>> [o.name for o in SCALE_OBLIGATIONS][:2]
    ['sm120/A/tile/k4', 'sm120/A/16x1']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llverify.specs.fragments import reference

__all__ = [
    "NEGATIVE_CONTROLS",
    "SCALE_OBLIGATIONS",
    "SM120_TILE_A",
    "SM120_TILE_B",
    "ScaleObligation",
    "TMEM_SCALES_BLOCK",
    "TMEM_SCALES_NEGATIVE",
    "mfma_closed_form",
    "sm120_closed_form",
    "tmem_scales_closed_form",
]

_SFA = reference("mma.block_scale.SFA").formulas
_SFB = reference("mma.block_scale.SFB").formulas
#: Triton's sm_120 A-scale tile [16, KB] over one warp: PTX SF_A, K block = register.
SM120_TILE_A: dict[str, str] = {"dim0": _SFA["dim0"], "dim1": _SFA["dim1"]}
#: Triton's B-scale tile [8, KB] ([N, K block]): PTX SF_B transposed (its dim1 is N).
SM120_TILE_B: dict[str, str] = {"dim0": _SFB["dim1"], "dim1": _SFB["dim0"]}


@dataclass(frozen=True)
class ScaleObligation:
    """``function(**args)`` on its own shape equals ``reference`` (formulas over register,
    lane, warp)."""

    name: str
    function: str  # "sm120" or "mfma"
    args: dict[str, Any]
    reference: dict[str, str]


def _sm120(name: str, shape: list[int], op: int, warps: list[int], ref: dict[str, str]) -> Any:
    return ScaleObligation(
        name, "sm120", {"shape": shape, "op_idx": op, "warps_per_cta": warps}, ref
    )


def _mfma(
    name: str, op: int, shape: list[int], mdim: int, tiles: list[int], warps: list[int],
    ref: dict[str, str],
) -> ScaleObligation:  # fmt: skip
    args = {
        "op_idx": op, "shape": shape, "mdim": mdim, "tiles_per_warp": tiles,
        "warps_per_cta": warps,
    }  # fmt: skip
    return ScaleObligation(name, "mfma", args, ref)


#: One scaled MFMA: the scale of (row i, K block b) in lane i + M * b.
_MFMA32 = {"dim0": "lane & 31", "dim1": "lane >> 5"}
_MFMA16 = {"dim0": "lane & 15", "dim1": "lane >> 4"}

SCALE_OBLIGATIONS: tuple[ScaleObligation, ...] = (
    # sm_120, one warp, one 16-row A tile, 4 K blocks: exactly the PTX SF_A fragment.
    _sm120("sm120/A/tile/k4", [16, 4], 0, [1, 1], SM120_TILE_A),
    _sm120("sm120/A/16x1", [16, 1], 0, [1, 1], SM120_TILE_A),
    # B: 8 columns of N per warp, SF_B's column = groupID; lanes of a quad broadcast.
    _sm120("sm120/B/tile/k4", [8, 4], 1, [1, 1], SM120_TILE_B),
    # Whole tensors: A's warps tile M (N-warps broadcast, the low warp bits: Ampere's
    # row-major warp order), then registers repeat the 16 * wM rows.
    _sm120(
        "sm120/A/128x4/w2x2",
        [128, 4],
        0,
        [2, 2],
        {
            "dim0": f"{_SFA['dim0']} + 16 * (warp >> 1) + 32 * (register >> 2)",
            "dim1": "register & 3",
        },
    ),
    _sm120(
        "sm120/B/64x2/w2x4",
        [64, 2],
        1,
        [2, 4],
        {"dim0": f"{_SFB['dim1']} + 8 * (warp & 3) + 32 * (register >> 1)", "dim1": "register & 1"},
    ),
    # CDNA4 scaled MFMA, one instruction: scale (i, b) in lane i + M * b.
    _mfma("mfma32/A/tile", 0, [32, 2], 32, [1, 1], [1, 1], _MFMA32),
    _mfma("mfma32/B/tile", 1, [32, 2], 32, [1, 1], [1, 1], _MFMA32),
    _mfma("mfma16/A/tile", 0, [16, 4], 16, [1, 1], [1, 1], _MFMA16),
    _mfma("mfma16/B/tile", 1, [16, 4], 16, [1, 1], [1, 1], _MFMA16),
    # K beyond one instruction: the next instruction's blocks in registers.
    _mfma(
        "mfma32/A/32x8", 0, [32, 8], 32, [1, 1], [1, 1],
        {"dim0": "lane & 31", "dim1": "(lane >> 5) + 2 * register"},
    ),
    _mfma(
        "mfma16/A/16x16", 0, [16, 16], 16, [1, 1], [1, 1],
        {"dim0": "lane & 15", "dim1": "(lane >> 4) + 4 * register"},
    ),
    # Two tiles per warp along M (tilesPerWarp = 2): the second tile's rows in a register
    # bit above the K registers; warps then tile M (A: N-warps broadcast, the low bits).
    _mfma(
        "mfma16/A/128x8/tpw2/w2x2", 0, [128, 8], 16, [2, 2], [2, 2],
        {
            "dim0": "(lane & 15) + 16 * ((register >> 1) & 1) + 32 * (warp >> 1) "
            "+ 64 * (register >> 2)",
            "dim1": "(lane >> 4) + 4 * (register & 1)",
        },
    ),
    # B: warps tile N with the low warp bits (M-warps broadcast).
    _mfma(
        "mfma32/B/128x4/w2x4", 1, [128, 4], 32, [1, 1], [2, 4],
        {
            "dim0": "(lane & 31) + 32 * (warp & 3)",
            "dim1": "(lane >> 5) + 2 * register",
        },
    ),
)  # fmt: skip

#: Each (obligation name, wrong reference): must be refuted.
NEGATIVE_CONTROLS: tuple[tuple[str, dict[str, str]], ...] = (
    # SF_A rows chosen by the thread-id-a selector bit (lane bit 1) instead of lane bit 0.
    ("sm120/A/tile/k4", {"dim0": "(lane >> 2) + 8 * ((lane >> 1) & 1)", "dim1": "register"}),
    # SF_B's column taken from the lane within the quad (the selector), not the quad.
    ("sm120/B/tile/k4", {"dim0": "(lane & 3) + 4 * ((lane >> 2) & 1)", "dim1": "register"}),
    # The 32x32 scale read as if lanes 32-63 held the next 32 rows (the 16x16 misreading).
    ("mfma32/A/tile", {"dim0": "lane & 31", "dim1": "0"}),
    # 16x16x128: K block from lane bit 5 only (as if 2 blocks per instruction, like 32x32).
    ("mfma16/A/tile", {"dim0": "lane & 15", "dim1": "(lane >> 5) + 2 * ((lane >> 4) & 1)"}),
    # A's warps taken along M with the high bit (MFMA's column-major warp order).
    (
        "mfma16/A/128x8/tpw2/w2x2",
        {
            "dim0": "(lane & 15) + 16 * ((register >> 1) & 1) + 32 * (warp & 1) "
            "+ 64 * (register >> 2)",
            "dim1": "(lane >> 4) + 4 * (register & 1)",
        },
    ),
)


# ------------------------------------------------------------------ whole-tensor closed forms


def sm120_closed_form(op_idx: int, warps: tuple[int, int], k_blocks: int) -> dict[str, str]:
    """Triton's sm_120 scale layout on a tensor of ``16 * wM * reps`` (A) or ``8 * wN * reps``
    (B) rows and ``k_blocks`` scale columns: the PTX fragment (SF_A row ``groupID + 8 *
    (lane & 1)``, SF_B column ``groupID``), one K block per register, then the MMA's warps
    (Ampere order: N-warps are the low warp bits; A broadcasts them, B broadcasts the
    M-warps) and the remaining repetitions in registers.

    Examples:
        >>> sm120_closed_form(1, (2, 4), 2)["dim0"]
        '(lane >> 2) + 8 * (warp % 4) + 32 * (register // 2)'
    """
    wm, wn = warps
    if op_idx == 0:
        row = (
            f"(lane >> 2) + 8 * (lane & 1) + 16 * (warp // {wn}) + "
            f"{16 * wm} * (register // {k_blocks})"
        )
    else:
        row = f"(lane >> 2) + 8 * (warp % {wn}) + {8 * wn} * (register // {k_blocks})"
    return {"dim0": row, "dim1": f"register % {k_blocks}"}


def mfma_closed_form(
    op_idx: int, mdim: int, tiles: int, warps: tuple[int, int], k_regs: int
) -> dict[str, str]:
    """Triton's CDNA4 scaled-MFMA scale layout on a tensor whose K/32 is ``(64 // mdim) *
    k_regs`` and whose M/N is a multiple of ``mdim * tiles * (warps along it)``: the CDNA4
    lane formula (row ``lane % mdim``, K block ``lane // mdim``), the next instructions' K
    blocks in the first ``k_regs`` registers, the second tile per warp next, then the warps
    (A: the low ``wN`` warp bits broadcast; B: the low ``wN`` bits along N, the rest
    broadcast) and the remaining repetitions in registers.

    Examples:
        >>> mfma_closed_form(0, 32, 1, (1, 1), 4)["dim1"]
        '(lane // 32) + 2 * (register % 4)'
    """
    wm, wn = warps
    tile = mdim * tiles
    if op_idx == 0:
        warp_term, rep = f"{tile} * (warp // {wn})", tile * wm
    else:
        warp_term, rep = f"{tile} * (warp % {wn})", tile * wn
    row = (
        f"(lane % {mdim}) + {mdim} * ((register // {k_regs}) % {tiles}) + {warp_term} + "
        f"{rep} * (register // {k_regs * tiles})"
    )
    return {"dim0": row, "dim1": f"(lane // {mdim}) + {64 // mdim} * (register % {k_regs})"}


#: One 128 x 4 tcgen05 scale block in TMEM (PTX lane-partition duplication + CUTLASS's atom
#: through tcgen05.cp 32x128b.warpx4): the scale of (mn, k) in lane mn % 32, byte 4 * (mn //
#: 32) + k; lanes 32-127 repeat lanes 0-31.
TMEM_SCALES_BLOCK: dict[str, str] = {"dim0": "(row & 31) + 32 * (col >> 2)", "dim1": "col & 3"}

#: Wrong readings of that block, each refuted: the K index and the 32-row group exchanged
#: in the word (an MN-major atom read as K-major); the 128 rows on 128 lanes (no lane
#: partition duplication, the accumulator's own layout) with the 4 K blocks in the bytes.
TMEM_SCALES_NEGATIVE: tuple[dict[str, str], ...] = (
    {"dim0": "(row & 31) + 32 * (col & 3)", "dim1": "col >> 2"},
    {"dim0": "row", "dim1": "col & 3"},
)


def tmem_scales_closed_form(reps_mn: int, reps_k: int) -> dict[str, str]:
    """Triton's ``TensorMemoryScalesLayout`` on a ``[128 * reps_mn, 4 * reps_k]`` scale
    tensor: the PTX/CUTLASS block (:data:`TMEM_SCALES_BLOCK`) and then the blocks along the
    columns, 16 bytes each, M/N blocks before K blocks.

    Examples:
        >>> tmem_scales_closed_form(2, 2)["dim1"]
        '(col % 4) + 4 * ((col // 16) // 2)'
    """
    return {
        "dim0": f"(row % 32) + 32 * ((col // 4) % 4) + 128 * ((col // 16) % {reps_mn})",
        "dim1": f"(col % 4) + 4 * ((col // 16) // {reps_mn})",
    }
