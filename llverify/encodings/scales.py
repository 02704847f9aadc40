"""Block-scale scale-factor layouts: which thread holds the scale of each block of A or B.

Three converters, as Triton 3.9 builds them (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp):

* :func:`sm120_scale_layout` (``getSM120DotScaledScaleLayout``): the register layout of the
  scale tensor of a ``tt.dot_scaled`` lowered to sm_120 ``mma.sync ... .block_scale``
  (scale_vec::1X, ``thread-id-a = thread-id-b = 0``, ``byte-id = 0``).  For A (scale shape
  ``[M, K / group]``) lane bit 0 gives row + 8, lane bit 1 is the ``thread-id-a`` pair
  selector (broadcast), lanes 4, 8, 16 give rows 1, 2, 4; for B (``[N, K / group]``) lane
  bits 0 and 1 are broadcast (any thread of the quad, ``thread-id-b``) and lanes 4, 8, 16
  give columns 1, 2, 4 of N.  Every scale of a row sits in registers.  Warps tile M (A) or N
  (B) and are broadcast along the other MMA dim, as for the dot operands.
* :func:`mfma_scale_layout` (``chooseScaledMfmaScaleLayout``, Gluon's
  ``amd.cdna4.get_mfma_scale_layout`` / ``gluon_ir.get_amd_mfma_scale_layout``): the scale
  tensor of a CDNA4 ``v_mfma_scale_f32_{32x32x64,16x16x128}_f8f6f4``.  Lane ``l`` holds the
  scale of row ``l % mdim`` and K block ``l // mdim`` of the instruction (one scale per block
  of 32 consecutive K of a row; which lanes hold that block's 8-bit data is the atoms'
  business: see the gfx950 atoms of :mod:`llverify.atoms.amd`); further K blocks and the
  second tile per warp
  (``tiles_per_warp``) go to registers.

* :func:`wmma_scale_layout` (``chooseScaledWmmaScaleLayout``, Gluon's
  ``amd.gfx1250.get_wmma_scale_layout`` / ``gluon_ir.get_amd_wmma_scale_layout``): the scale
  tensor of gfx1250 scaled WMMA.  Facts from the converter (triton-lang/triton
  LinearLayoutConversions.cpp, as carried by facebookexperimental/triton at db4666f, whose
  Gluon binding has 3.9's signature): lane ``l < nonKDim`` holds row ``l`` of A (column of
  B), the upper lanes (``32 / nonKDim`` of them per row) broadcast it; each lane keeps 4
  (scale factor 32) or 8 (scale factor 16) consecutive K-block scales in registers, then
  the rest of K.  The WMMA parent's ``ctaLayout`` (its ``reg_bases`` and ``warp_bases``, in
  tiles; B's transposed to ``[N, K]``) supplies the repetitions and warps with its K part
  dropped (zero register bases removed).  For ``nonKDim`` the operand's M or N
  (``AMDWmmaEncodingAttr::getOperandNonKDim``: swapped for a transposed 32x16).  With a
  16-row instruction (``M = 16``) the first M/N repetition register moves to lane bit 4, so
  that the otherwise broadcast upper 16 lanes hold the next tile's scales.

All return a :class:`~llverify.encodings.blocked.DistributedLinearLayout` on ``shape`` (the
scale tensor's shape), like Gluon's helpers.  The sm_120 and MFMA ones are proved against the
vendor fragments in ``llverify/specs/scales.py``; the WMMA one is checked against Triton 3.9
only (no public gfx1250 scaled-WMMA scale fragment was found).

Examples:
    >>> mfma_scale_layout(0, [64, 8], 32, [1, 1], [2, 2]).lane_bases[-1]
    (0, 1)
    >>> sm120_scale_layout([16, 4], 0, [1, 1]).lane_bases
    ((8, 0), (0, 0), (1, 0), (2, 0), (4, 0))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llverify.bits import is_power_of_2
from llverify.encodings.base import (
    EncodingError,
    bases_list,
    cga_linear_layout,
    check_shape,
    combine_cta_cga_with_shape,
    int_list,
)
from llverify.encodings.blocked import DistributedLinearLayout, broadcasted_dot_operand_layout
from llverify.layout import LinearLayout
from llverify.layout_utils import action_remove_broadcasted_regs, identity_standard_nd

__all__ = ["mfma_scale_layout", "sm120_scale_layout", "wmma_scale_layout"]

_DIMS = ["dim0", "dim1"]


def _as_distributed(layout: LinearLayout) -> DistributedLinearLayout:
    bases = dict(layout.bases)
    return DistributedLinearLayout(
        bases["register"],
        bases["lane"],
        bases["warp"],
        bases.get("block", []),
        [size for _, size in layout.out_dims],
    )


def _op_idx(value: Any, name: str) -> int:
    if isinstance(value, bool) or value not in (0, 1):
        raise EncodingError(f"{name}: Argument 'op_idx' must be 0 (A) or 1 (B), not {value!r}.")
    return int(value)


def _powers_of_2(value: Any, arg: str, name: str, length: int) -> tuple[int, ...]:
    values = int_list(value, arg, name)
    if len(values) != length or not all(is_power_of_2(v) for v in values):
        raise EncodingError(
            f"{name}: Argument '{arg}' must be {length} positive powers of 2, not {list(values)}."
        )
    return values


def sm120_scale_layout(
    shape: Sequence[int],
    op_idx: int,
    warps_per_cta: Sequence[int],
    cga_layout: Sequence[Sequence[int]] = (),
) -> DistributedLinearLayout:
    """The scale layout of sm_120 ``dot_scaled`` (Triton's ``getSM120DotScaledScaleLayout``).

    Args:
        shape: the scale tensor's ``[M, K / group]`` (A) or ``[N, K / group]`` (B).
        op_idx: 0 for A's scales, 1 for B's.
        warps_per_cta: the MMA's ``[warps along M, warps along N]``.
        cga_layout: the scale tensor's CGA block bases (default: one CTA).

    Examples:
        >>> enc = sm120_scale_layout([32, 2], 1, [2, 2])
        >>> enc.reg_bases, enc.warp_bases
        (((0, 1), (16, 0)), ((8, 0), (0, 0)))
    """
    name = "sm120_scale_layout"
    dims = check_shape(shape, 2, name)
    op = _op_idx(op_idx, name)
    warps = _powers_of_2(warps_per_cta, "warps_per_cta", name, 2)
    lanes = [[8, 0], [0, 0], [1, 0], [2, 0], [4, 0]] if op == 0 else [[0, 0], [0, 0]]
    if op == 1:
        lanes += [[1, 0], [2, 0], [4, 0]]
    # The MMA's warp grid seen from the operand: A tiles M and broadcasts along N, B the
    # converse; K (dim1 here) is the broadcast dim in both.
    mma_warps, order = ((warps[0], warps[1]), (1, 0)) if op == 0 else ((warps[1], warps[0]), (0, 1))
    # Out dims kept in one order (dim0, dim1): Triton's product merges the warp part's
    # (dim1, dim0) into the lanes' order; only M is ever grown, so the order is immaterial.
    cta = (
        LinearLayout.identity_1d(dims[1], "register", _DIMS[1])
        * LinearLayout.from_bases([("lane", lanes)], _DIMS)
        * broadcasted_dot_operand_layout(mma_warps, order, 1, "warp").transpose_outs(_DIMS)
    )
    cga = cga_linear_layout(cga_layout, 2, name)
    return _as_distributed(combine_cta_cga_with_shape(cta, cga, dims))


def mfma_scale_layout(
    op_idx: int,
    shape: Sequence[int],
    mdim: int,
    tiles_per_warp: Sequence[int],
    warps_per_cta: Sequence[int],
) -> DistributedLinearLayout:
    """The scale layout of CDNA4 scaled MFMA (Gluon's ``get_amd_mfma_scale_layout``, Triton's
    ``chooseScaledMfmaScaleLayout``), arguments in Gluon's order.

    Args:
        op_idx: 0 for A's scales, 1 for B's.
        shape: the scale tensor's ``[M, K / 32]`` (A) or ``[N, K / 32]`` (B).
        mdim: the MFMA's M (= N) instruction size, 32 or 16.
        tiles_per_warp: the MFMA parent's tilesPerWarp (1 or 2 along this operand's M/N).
        warps_per_cta: the MFMA parent's ``[warps along M, warps along N]``.

    Examples:
        >>> mfma_scale_layout(1, [128, 8], 16, [2, 2], [2, 2]).reg_bases
        ((0, 4), (16, 0), (64, 0))
    """
    name = "mfma_scale_layout"
    op = _op_idx(op_idx, name)
    dims = check_shape(shape, 2, name)
    if mdim not in (16, 32) or isinstance(mdim, bool):
        raise EncodingError(f"{name}: Argument 'mdim' must be 16 or 32, not {mdim!r}.")
    tiles = _powers_of_2(tiles_per_warp, "tiles_per_warp", name, 2)
    warps = _powers_of_2(warps_per_cta, "warps_per_cta", name, 2)
    tiles_mn = tiles[op]
    if tiles_mn > 2:
        raise EncodingError(f"{name}: tiles_per_warp[{op}] must be 1 or 2, not {tiles_mn}.")
    # Bases are written (K, MN): K is dim1 of the scale tensor, MN dim0.
    lanes_k = 64 // mdim
    regs = [[k, 0] for k in _doubling(lanes_k, dims[1])]
    regs += [[0, mn] for mn in _doubling(mdim, tiles_mn * mdim)]
    lanes = [[0, 1 << i] for i in range(mdim.bit_length() - 1)]
    lanes += [[1 << i, 0] for i in range(lanes_k.bit_length() - 1)]
    tile = LinearLayout.from_bases([("register", regs), ("lane", lanes)], ["dim1", "dim0"])
    grid, order = ((warps[0], warps[1]), (1, 0)) if op == 0 else ((warps[1], warps[0]), (0, 1))
    warp = identity_standard_nd("warp", grid, order)
    cta = tile.transpose_outs(_DIMS) * warp.transpose_outs(_DIMS)
    return _as_distributed(combine_cta_cga_with_shape(cta, cga_linear_layout((), 2, name), dims))


def _doubling(start: int, stop: int) -> list[int]:
    """``start, 2 * start, ...`` below ``stop``."""
    values = []
    value = start
    while value < stop:
        values.append(value)
        value *= 2
    return values


def wmma_scale_layout(
    op_idx: int,
    shape: Sequence[int],
    mdim: int,
    ndim: int,
    transposed: bool,
    scale_factor: int,
    reg_bases: Sequence[Sequence[int]],
    warp_bases: Sequence[Sequence[int]],
    cga_bases: Sequence[Sequence[int]] = (),
) -> DistributedLinearLayout:
    """The scale layout of gfx1250 scaled WMMA (Gluon's ``get_amd_wmma_scale_layout``,
    Triton's ``chooseScaledWmmaScaleLayout``), arguments in the binding's order.

    Args:
        op_idx: 0 for A's scales, 1 for B's.
        shape: the scale tensor's ``[M, K / scale_factor]`` (A) or ``[N, K / scale_factor]``
            (rank 2 only: Triton's batched rank-3 form is not modelled).
        mdim, ndim: the WMMA parent's instruction M and N (16x16 or 32x16).
        transposed: the WMMA parent's ``transposed``.
        scale_factor: operand elements per scale, 32 or 16.
        reg_bases, warp_bases: the WMMA parent's ctaLayout bases (``[M, N]`` tiles).
        cga_bases: the dot operand's CGA block bases (default: one CTA); B's are in its
            ``[K, N]`` order.

    Examples:
        >>> enc = wmma_scale_layout(0, [64, 8], 16, 16, False, 32, [[1, 0]], [[2, 0]])
        >>> enc.reg_bases, enc.lane_bases[4], enc.warp_bases
        (((0, 1), (0, 2), (0, 4)), (16, 0), ((32, 0),))
    """
    name = "wmma_scale_layout"
    op = _op_idx(op_idx, name)
    dims = check_shape(shape, 2, name)
    if isinstance(mdim, bool) or isinstance(ndim, bool) or (mdim, ndim) not in ((16, 16), (32, 16)):
        raise EncodingError(
            f"{name}: Arguments 'mdim', 'ndim' must be 16, 16 or 32, 16 (gfx1250 WMMA), "
            f"not {mdim!r}, {ndim!r}."
        )
    if not isinstance(transposed, bool):
        raise EncodingError(f"{name}: Argument 'transposed' must be a bool, not {transposed!r}.")
    if isinstance(scale_factor, bool) or scale_factor not in (16, 32):
        raise EncodingError(
            f"{name}: Argument 'scale_factor' must be 16 or 32, not {scale_factor!r}."
        )
    parent = [
        (arg, [list(b) for b in bases_list(value, arg, name)])
        for arg, value in (("reg_bases", reg_bases), ("warp_bases", warp_bases))
    ]
    for arg, bases in parent:
        if any(len(b) != 2 or min(b) < 0 for b in bases):
            raise EncodingError(
                f"{name}: Argument '{arg}' must be pairs of non-negative tile indices, not {bases}."
            )
    # The operand's non-K instruction size: M for A, N for B, swapped for a transposed
    # 32x16 (getOperandNonKDim).
    eff = 1 - op if transposed and mdim != ndim else op
    non_k = mdim if eff == 0 else ndim
    k_width = 4 if scale_factor == 32 else 8
    # Tile (bases (K, nonK)): k_width K blocks per lane in registers, lanes 0..nonK-1 on
    # rows, the upper lanes broadcast, then the rest of K in registers.
    n_regs = (k_width - 1).bit_length() + (max(1, dims[1] // k_width) - 1).bit_length()
    regs = [[1 << i, 0] for i in range(n_regs)]
    lanes = [[0, 1 << i] for i in range((non_k - 1).bit_length())]
    lanes += [[0, 0]] * (5 - len(lanes))
    tile = LinearLayout.from_bases([("register", regs), ("lane", lanes)], ["dim1", "dim0"])
    # The parent's ctaLayout, B's transposed to [N, K], its K part projected away.
    # (Coordinate ``op`` of a parent basis is the operand's M or N.)
    cta_bases = [
        (in_dim, [[b[op], 0] for b in bases])
        for in_dim, (_, bases) in zip(("register", "warp"), parent)
    ]
    cta = LinearLayout.from_bases(cta_bases, _DIMS)
    cta = action_remove_broadcasted_regs(cta).apply(cta)
    # The CGA bases are the dot operand's: B's ([K, N]) are transposed to the scale's [N, K]
    # as well (observed on Triton 3.9's binding, test_wmma_scale_layout_matches_triton).
    blocks = [
        list(b)[::-1] if op == 1 else list(b) for b in bases_list(cga_bases, "cga_bases", name)
    ]
    whole = combine_cta_cga_with_shape(
        tile.transpose_outs(_DIMS) * cta, cga_linear_layout(blocks, 2, name), dims
    )
    first_rep = len(regs)
    layout_bases = dict(whole.bases)
    registers = layout_bases["register"]
    if mdim > 16 or len(registers) <= first_rep:
        return _as_distributed(whole)
    # 16-row instruction: the first M/N repetition moves to lane bit 4, whose lanes would
    # otherwise broadcast the same scales.
    lane_bases = list(layout_bases["lane"])
    lane_bases[4] = registers[first_rep]
    return DistributedLinearLayout(
        registers[:first_rep] + registers[first_rep + 1 :],
        lane_bases,
        layout_bases["warp"],
        layout_bases.get("block", []),
        [size for _, size in whole.out_dims],
    )
