"""Shared-memory wavefronts as Nsight Compute counts them for Triton's NVIDIA lowering.

:func:`llverify.shared_memory.access.access_analysis` models what Triton's ``ld/st.shared``
lowering emits
and its bank conflicts (one number for loads and stores).  This module predicts what the
hardware executes for one direction of one ``local_store`` / ``local_load`` on sm_90, and
was fitted and checked on an H100 (``benchmarks/gpu/bank_check.py``, docs/hardware.md):

* **Which instruction.**  Triton tries ``stmatrix`` / ``ldmatrix`` first (non-transposed,
  then transposed), exactly as ``lowerLdStMatrix`` does: the non-transposed tile is
  ``32/bits`` registers times lanes 0-1 walking one contiguous 16-byte row (any element
  width up to 32 bits); the transposed one (16-bit only on sm_90) needs lanes 2-4 to walk a
  16-byte row and at least two registers.  Otherwise ``ld/st.shared`` with Triton's vector
  width (``largestVectorisation``).
* **ld/st.shared.**  A warp instruction is split into passes of ``32 / words`` consecutive
  lanes (words = 32-bit words per lane); each pass costs the largest number of distinct
  32-bit words that fall into one bank (identical words broadcast).  Measured exception: a
  64- or 128-bit **load** whose lanes ``l`` and ``l ^ 1``, or ``l`` and ``l ^ 2``, read the
  same address (lane basis 0 or 1 maps to offset 0) is split into half as many passes:
  64-bit loads become one pass, 128-bit loads two.  Broadcast in higher lane bits, two lane
  bits with one equal non-zero offset, and stores are not merged (all probed on the H100).
* **ldmatrix / stmatrix.**  Each 8x8 matrix of an instruction is 8 rows of 16 bytes; it costs
  the largest number of distinct rows that fall into one group of four banks (at least one).
* **At an offset** (``offset``, :mod:`llverify.shared_memory.offsets`): ldmatrix/stmatrix
  only while every 16-byte row stays whole (its count is then unchanged), else ld/st.shared;
  the vector halved until the offset keeps it aligned; the count unchanged by an XOR or an
  add of whole words, simulated on the shifted addresses for an add inside a word.

Examples:
    >>> from llverify import LinearLayout
    >>> reg = LinearLayout.from_bases([("register", [[1]]), ("lane", [[0], [2], [4], [8],
    ...     [16]]), ("warp", [])], ["dim0"])
    >>> shared = LinearLayout.from_bases([("offset", [[1], [2], [4], [8], [16]])], ["dim0"])
    >>> p = predict_wavefronts(reg, shared, [32], 64, "load")
    >>> p.instruction, p.instructions, p.wavefronts
    ('ld.shared (128 bits per lane)', 1, 2)
    >>> predict_wavefronts(reg, shared, [32], 64, "store").wavefronts
    4
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llverify.bits import check_size
from llverify.column_action import ColumnAction
from llverify.errors import LayoutError, shown
from llverify.hardware import VECTOR_ELEMENT_BITS
from llverify.layout import LinearLayout
from llverify.layout_utils import divide_left, reg_perm_for_divide
from llverify.shared_memory.access import simulate_bank_conflicts
from llverify.shared_memory.offsets import (
    AffineOffset,
    offset_argument,
    row_elements,
    shifted_address_map,
)
from llverify.shared_memory.register_to_offset import conversion_layout
from llverify.shared_memory.wavefronts import linear_matrix_wavefronts

__all__ = ["WavefrontPrediction", "matrix_lowering", "predict_wavefronts"]

DIRECTIONS = ("load", "store")
INSTRUCTIONS = ("auto", "ld/st.shared", "matrix", "matrix.trans")


@dataclass(frozen=True)
class WavefrontPrediction:
    """Predicted instructions and wavefronts of one shared-memory load or store."""

    direction: str  # "load" or "store"
    instruction: str  # e.g. "ld.shared (128 bits per lane)", "stmatrix.x4.trans"
    instructions: int  # warp instructions over all warps
    wavefronts: int  # over all warps and instructions
    rule: str  # which rule produced the count


@dataclass(frozen=True)
class MatrixLowering:
    """How ``lowerLdStMatrix`` would move a conversion: transposed or not, matrices per
    instruction (x1/x2/x4) and the conversion with its registers permuted so that registers
    ``[m * regs_per_matrix, (m + 1) * regs_per_matrix)`` fill matrix ``m``."""

    transposed: bool
    matrices_per_instruction: int
    regs_per_matrix: int
    conversion: LinearLayout


def matrix_lowering(
    cvt: LinearLayout,
    element_bits: int,
    transposed: bool | None = None,
    reps: int = 1,
) -> MatrixLowering | None:
    """``ldmatrix``/``stmatrix`` for ``cvt`` ((register, lane, warp) -> offset, broadcast
    registers removed) as Triton's NVIDIA ``lowerLdStMatrix`` chooses it on sm_90 (the same
    for ldmatrix and stmatrix), or None.
    ``transposed`` None tries the plain form, then the transposed one (``local_load`` /
    ``local_store``); True or False only that form (``convert_layout``'s chosen tile).
    ``reps``: the register tile is repeated ``reps`` times (``convert_layout``), which
    bounds the matrices per instruction.

    Examples:
        >>> cvt = LinearLayout.from_bases([("register", [[1], [8]]), ("lane", [[2], [4],
        ...     [16], [32], [64]]), ("warp", [])], ["offset"])
        >>> m = matrix_lowering(cvt, 16)
        >>> m.transposed, m.matrices_per_instruction
        (False, 2)
    """
    if not cvt.has_in_dim("lane") or cvt.get_in_dim_size("lane") != 32 or element_bits < 8:
        return None
    regs = cvt.get_in_dim_size("register") // reps
    if element_bits <= 32 and not transposed:
        per_matrix = 32 // element_bits
        tile = LinearLayout.identity_1d(per_matrix, "register", "offset") * (
            LinearLayout.identity_1d(4, "lane", "offset")
        )
        found = _divide(cvt, tile)
        if found is not None:
            return MatrixLowering(False, _vec(regs, element_bits, per_matrix), per_matrix, found)
    if element_bits == 16 and regs >= 2 and transposed is not False:
        lanes = ColumnAction([2, 3, 4, 0, 1], "lane", 5)
        tile = LinearLayout.identity_1d(1, "register", "offset") * (
            LinearLayout.identity_1d(8, "lane", "offset")
        )
        found = _divide(lanes.apply(cvt), tile)
        if found is not None:
            found = lanes.inverse().apply(found)
            return MatrixLowering(True, _vec(regs, element_bits, 2), 2, found)
    return None


def _divide(cvt: LinearLayout, tile: LinearLayout) -> LinearLayout | None:
    permutation = reg_perm_for_divide(cvt, tile, left=True)
    if permutation is None:
        return None
    permuted = permutation.apply(cvt)
    return permuted if divide_left(permuted, tile) is not None else None


def _vec(regs: int, element_bits: int, per_matrix: int) -> int:
    return min(128 // element_bits, regs) // per_matrix


def predict_wavefronts(
    register_layout: Any,
    shared_layout: Any,
    shape: Sequence[int],
    element_bits: int,
    direction: str,
    *,
    instruction: str = "auto",
    reps: int = 1,
    offset: AffineOffset | int = 0,
) -> WavefrontPrediction:
    """Instructions and wavefronts of storing (``direction="store"``) or loading
    (``"load"``) ``register_layout`` to/from ``shared_layout`` on sm_90 (one CTA).

    ``instruction``: ``"auto"`` decides like ``local_store``/``local_load`` (ldmatrix/stmatrix
    where they apply, else ``ld/st.shared``); ``"ld/st.shared"``, ``"matrix"`` or
    ``"matrix.trans"`` force the kind (``convert_layout`` picks it with its swizzle, see
    :func:`llverify.shared_memory.swizzle.convert_layout_swizzle`, whose ``reps`` goes in ``reps``).
    ``offset``: a constant element offset of the access (an
    :class:`~llverify.shared_memory.offsets.AffineOffset`; an int is an XOR, as Triton
    applies a subslice's).

    Examples:
        >>> reg = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4], [8], [16],
        ...     [32]]), ("warp", [])], ["dim0"])
        >>> shared = LinearLayout.identity_1d(64, "offset", "dim0")
        >>> [predict_wavefronts(reg, shared, [64], 16, "load", offset=o).instruction
        ...  for o in (0, 8, 4)]
        ['ldmatrix.x1', 'ldmatrix.x1', 'ld.shared (32 bits per lane)']
    """
    _check_choices(direction, instruction)
    element_bits = VECTOR_ELEMENT_BITS.check(element_bits)
    reps = check_size(reps, "reps")
    shift = offset_argument(offset)
    cvt, elems = _warp_conversion(register_layout, shared_layout, shape, element_bits, reps)
    warps = cvt.get_in_dim_size("warp")
    lowering = None
    if instruction != "ld/st.shared":
        transposed = {"auto": None, "matrix": False, "matrix.trans": True}[instruction]
        lowering = matrix_lowering(cvt, element_bits, transposed, reps)
        if lowering is None and instruction != "auto":
            raise LayoutError(
                f"Argument 'instruction' is {shown(instruction)}, but Triton's ldmatrix/stmatrix "
                "tile does not divide this access."
            )
        if lowering is not None and not shift.keeps_aligned(row_elements(element_bits)):
            if instruction != "auto":
                raise LayoutError(
                    f"Argument 'offset' is {shift}, which splits the 16-byte rows that "
                    f"instruction {shown(instruction)} needs whole."
                )
            lowering = None
    if lowering is not None:
        return _matrix_prediction(lowering, element_bits, direction, warps)
    return _ld_st_prediction(cvt, elems, element_bits, direction, warps, shift)


def _check_choices(direction: Any, instruction: Any) -> None:
    """``direction`` is one of :data:`DIRECTIONS`, ``instruction`` of :data:`INSTRUCTIONS`."""
    if direction not in DIRECTIONS:
        raise LayoutError(
            f"Argument 'direction' must be 'load' or 'store', not {shown(direction)}."
        )
    if instruction not in INSTRUCTIONS:
        raise LayoutError(
            f"Argument 'instruction' must be one of {list(INSTRUCTIONS)}, not {shown(instruction)}."
        )


def _warp_conversion(
    register_layout: Any, shared_layout: Any, shape: Sequence[int], element_bits: int, reps: int
) -> tuple[LinearLayout, int]:
    """The conversion ``register, lane, warp -> offset`` (every in dim present) and its
    vector width; ``reps`` at most its registers."""
    cvt, elems = conversion_layout(register_layout, shared_layout, shape, element_bits)
    if reps > cvt.get_in_dim_size("register"):
        raise LayoutError(
            f"Argument 'reps' must be at most the {cvt.get_in_dim_size('register')} registers "
            f"of the conversion (the register tile is repeated reps times), not {reps}."
        )
    for dim in ("lane", "warp"):
        if not cvt.has_in_dim(dim):
            cvt = cvt * LinearLayout.zeros_1d(1, dim, "offset")
    return cvt.sublayout(["register", "lane", "warp"], ["offset"]), elems


def _ld_st_prediction(
    cvt: LinearLayout,
    elems: int,
    element_bits: int,
    direction: str,
    warps: int,
    shift: AffineOffset,
) -> WavefrontPrediction:
    """ld/st.shared with ``elems``-element vectors (halved until ``shift`` keeps them
    aligned): passes of ``32 / words`` lanes, twice that for a 64/128-bit load broadcast in
    lane 0 or 1 (measured on the H100)."""
    while elems > 1 and not shift.keeps_aligned(elems):
        elems //= 2
    # an XOR or an add of whole words changes no count; an add inside a word is simulated
    table = None if shift.words_kept(element_bits) else shifted_address_map(cvt, shift)
    bits = elems * element_bits
    words = max(1, bits // 32)
    per_pass = 32 // words
    lane0, lane1 = (basis[0] for basis in dict(cvt.bases)["lane"][:2])
    rule = f"ld/st.shared: passes of {per_pass} lanes"
    if direction == "load" and words >= 2 and 0 in (lane0, lane1):
        per_pass *= 2
        rule = f"ld.shared: lane 0 or 1 broadcast, passes of {per_pass} lanes"
    sim = simulate_bank_conflicts(
        cvt,
        elems,
        element_bits,
        address_map=table,
        pass_lanes=[1 << i for i in range(per_pass.bit_length() - 1)],
    )
    op = "ld" if direction == "load" else "st"
    return WavefrontPrediction(
        direction=direction,
        instruction=f"{op}.shared ({bits} bits per lane)",
        instructions=cvt.get_in_dim_size("register") // elems * warps,
        wavefronts=sim.wavefronts,
        rule=rule,
    )


def _matrix_prediction(
    lowering: MatrixLowering, element_bits: int, direction: str, warps: int
) -> WavefrontPrediction:
    cvt = lowering.conversion
    matrices = cvt.get_in_dim_size("register") // lowering.regs_per_matrix
    total = linear_matrix_wavefronts(cvt, element_bits, lowering.regs_per_matrix)
    name = "ldmatrix" if direction == "load" else "stmatrix"
    vec = lowering.matrices_per_instruction
    trans = ".trans" if lowering.transposed else ""
    return WavefrontPrediction(
        direction=direction,
        instruction=f"{name}.x{vec}{trans}",
        instructions=matrices // vec * warps,
        wavefronts=total,
        rule=f"{name}: per 8x8 matrix the most distinct 16-byte rows in one group of 4 banks",
    )
