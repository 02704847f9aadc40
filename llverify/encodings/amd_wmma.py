"""AMD WMMA encodings (``#ttg.amd_wmma``) and their dot operands, as Triton 3.9 converts them.

The converters follow Triton's ``AMDWmmaEncodingAttr::getTileLayout`` / ``toLinearLayout`` and
``wmmaDotOperandToLinearLayout`` (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp); the
verifier rules are those of ``AMDWmmaEncodingAttr::verify`` (Dialect.cpp), Gluon's
``amd.AMDWMMALayout.verify`` and ``DotOperandEncodingAttr::verify`` for a WMMA parent.

WMMA runs on 32-lane waves.  One 16x16 accumulator tile (not transposed): lanes 0-15 walk the
16 columns (N); lane bit 4 and the 8 registers walk the rows (M).  Version 1 (RDNA3) puts the
registers on every other row (``row = 2 * register + lane // 16``); versions 2 (RDNA4) and
3 (gfx1250) put them on consecutive rows (``row = register + 8 * (lane // 16)``).  The
32x16 instruction shapes of version 3 stack two 16x16 tiles along M with a 4th register bit.
Transposed swaps the roles of M and N inside the tile.

Unlike the other MMA encodings, the warps and the per-warp repetitions are an explicit
linear layout ``ctaLayout: register, warp -> tile index`` (Gluon's ``reg_bases`` and
``warp_bases``), in units of tiles: the final layout is ``tile * ctaLayout`` fitted to the
shape.  Triton's own ``AMDWmmaEncodingAttr::verify`` does not require ``ctaLayout`` to be a
permutation (swizzled warp layouts are allowed), so neither does this module; Gluon's
``to_linear_layout`` goes through ``LinearEncodingAttr`` and refuses those.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from llverify.bits import is_power_of_2
from llverify.encodings.base import (
    Encoding,
    EncodingError,
    bases_list,
    bases_text,
    cga_linear_layout,
    check_shape,
    combine_cta_cga_with_shape,
    dot_operand_cga_layout,
    int_list,
    list_text,
)
from llverify.encodings.builder import LayoutBuilder, NotCoveredError, cga_builder
from llverify.encodings.gluon import register_gluon
from llverify.encodings.ttgir import register
from llverify.errors import LayoutError, LayoutTypeError, shown
from llverify.layout import LinearLayout
from llverify.layout_utils import action_remove_broadcasted_regs, standard_out_dim_names

__all__ = [
    "DEFAULT_INSTR_SHAPE",
    "VALID_INSTR_SHAPES",
    "WAVE_SIZE",
    "AMDWMMALayout",
    "choose_wmma_cta_bases",
    "matrix_order",
    "order_for_dot_operand",
]

#: WMMA layouts are defined for 32-lane waves only (wave32).
WAVE_SIZE = 32
#: ``AMDWmmaEncodingAttr::getDefaultInstrShape()``.
DEFAULT_INSTR_SHAPE = (16, 16, 16)
#: The (M, N, K) instruction shapes ``AMDWmmaEncodingAttr::verify`` accepts, per version.
VALID_INSTR_SHAPES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((16, 16, 16),),
    2: ((16, 16, 16), (16, 16, 32)),
    3: ((16, 16, 4), (16, 16, 32), (16, 16, 64), (16, 16, 128), (32, 16, 64), (32, 16, 128)),
}
#: ``DotOperandEncodingAttr::verify``: the kWidth values allowed per WMMA version
#: (None: any non-zero value).
_DOT_K_WIDTHS: dict[int, tuple[int, ...] | None] = {1: (8, 16), 2: (4, 8, 16), 3: None}
#: The M/N extent of one WMMA tile along lanes (``wmmaTileDim`` in Triton).
_TILE_DIM = 16

_NAME = "AMDWMMALayout"


def _identity(size: int, in_dim: str, out_dim: str) -> LinearLayout:
    return LinearLayout.identity_1d(size, in_dim, out_dim)


def matrix_order(rank: int, row_major: bool) -> list[int]:
    """Triton's ``getMatrixOrder``: ``[rank-1, ..., 0]``, the two minor dims swapped when
    not row-major.

    Examples:
        >>> matrix_order(3, True), matrix_order(2, False)
        ([2, 1, 0], [0, 1])
    """
    order = list(range(rank - 1, -1, -1))
    if rank >= 2 and not row_major:
        order[0], order[1] = order[1], order[0]
    return order


def order_for_dot_operand(operand_index: int, rank: int, k_contig: bool) -> list[int]:
    """Triton's ``getOrderForDotOperand``: operand 0 is ``[*batch, m, k]``, 1 is
    ``[*batch, k, n]``; ``k_contig`` puts K first.

    Examples:
        >>> order_for_dot_operand(0, 2, True), order_for_dot_operand(1, 3, True)
        ([1, 0], [1, 2, 0])
    """
    return matrix_order(rank, bool(operand_index) != k_contig)


def choose_wmma_cta_bases(
    warps_per_cta: Sequence[int], tiles_per_warp: Sequence[int] | None = None
) -> tuple[list[list[int]], list[list[int]]]:
    """``(reg_bases, warp_bases)`` of the legacy ``warpsPerCTA`` / ``tilesPerWarp``
    parameters (Triton's ``chooseWmmaCTALinearLayout``): per dim from the last (N) to the
    first, the tiles of a warp, then the warps.

    Examples:
        >>> choose_wmma_cta_bases([2, 4])
        ([], [[0, 1], [0, 2], [1, 0]])
        >>> choose_wmma_cta_bases([2, 2], [2, 2])
        ([[0, 1], [1, 0]], [[0, 2], [2, 0]])
    """
    warps = int_list(warps_per_cta, "warps_per_cta", _NAME)
    rank = len(warps)
    tiles = int_list(tiles_per_warp or [1] * rank, "tiles_per_warp", _NAME)
    if len(tiles) != rank:
        raise EncodingError(
            f"{_NAME}: warps_per_cta and tiles_per_warp must have one rank, not "
            f"{list(warps)} and {list(tiles)}."
        )
    for name, values in (("warps_per_cta", warps), ("tiles_per_warp", tiles)):
        for i, v in enumerate(values):
            if not is_power_of_2(v):
                raise EncodingError(
                    f"{_NAME}: every element of '{name}' must be a power of two, but "
                    f"{name}[{i}] = {v}."
                )
    names = standard_out_dim_names(rank)
    layout = LinearLayout.empty()
    for d in matrix_order(rank, True):
        layout = layout * _identity(tiles[d], "register", names[d])
        layout = layout * _identity(warps[d], "warp", names[d])
    bases = dict(layout.transpose_outs(names).bases)
    return [list(b) for b in bases["register"]], [list(b) for b in bases["warp"]]


def _check_bases(bases: Sequence[Sequence[int]], name: str, rank: int) -> None:
    for i, basis in enumerate(bases):
        if len(basis) != rank:
            raise EncodingError(
                f"{_NAME}: {name} basis rank mismatch: {name}[{i}] = {list(basis)} must have "
                f"{rank} coordinates (the rank)."
            )
        if any(v < 0 for v in basis):
            raise EncodingError(
                f"{_NAME}: basis values must be non-negative (LinearLayout), but {name}[{i}] "
                f"= {list(basis)}."
            )


@dataclass(frozen=True)
class AMDWMMALayout(Encoding):
    """``#ttg.amd_wmma``: the accumulator layout of AMD WMMA instructions (wave32).

    Args:
        version: 1 (RDNA3, gfx11), 2 (RDNA4, gfx12) or 3 (gfx1250).
        transposed: the result tensor is transposed (M and N swap roles in the tile).
        warp_bases: warp bases of the CTA layout, in units of WMMA tiles.
        reg_bases: repetition (register) bases of the CTA layout, in tiles (default none).
        instr_shape: ``(M, N, K)`` of one instruction (default ``(16, 16, 16)``).
        cga_layout: block bases of the CTA tiling.
        rank: rank of the bases, 2 or 3 (default 2).

    Examples:
        >>> enc = AMDWMMALayout(2, False, [[1, 0]])
        >>> layout = enc.to_linear_layout([32, 16])
        >>> dict(layout.bases)["register"], dict(layout.bases)["warp"]
        ([[1, 0], [2, 0], [4, 0]], [[16, 0]])
        >>> enc.ttgir()
        '#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = [[1, 0]]}}>'
    """

    version: int
    transposed: bool
    warp_bases: Sequence[Sequence[int]]
    reg_bases: Sequence[Sequence[int]] | None = None
    instr_shape: Sequence[int] | None = None
    cga_layout: Sequence[Sequence[int]] = field(default_factory=tuple)
    rank: int = None  # type: ignore[assignment]  # None means 2, as in Gluon

    mnemonic = "amd_wmma"

    def __post_init__(self) -> None:
        if isinstance(self.version, bool) or not isinstance(self.version, int):
            raise LayoutTypeError(f"{_NAME}: 'version' must be an int, not {shown(self.version)}.")
        if not 1 <= self.version <= 3:
            raise EncodingError(
                f"{_NAME}: WMMA version must be in the [1, 3] range, not {self.version}."
            )
        if not isinstance(self.transposed, bool):
            raise LayoutTypeError(
                f"{_NAME}: 'transposed' must be a bool, not {shown(self.transposed)}."
            )
        rank = 2 if self.rank is None else self.rank
        if isinstance(rank, bool) or not isinstance(rank, int):
            raise LayoutTypeError(f"{_NAME}: 'rank' must be an int, not {shown(rank)}.")
        if rank not in (2, 3):
            raise EncodingError(
                f"{_NAME}: WMMA layouts have rank 2 or 3 (a leading batch dim), not {rank}."
            )
        warp = bases_list(self.warp_bases, "warp_bases", _NAME)
        reg = bases_list(self.reg_bases or (), "reg_bases", _NAME)
        cga = bases_list(self.cga_layout, "cga_layout", _NAME)
        instr = int_list(
            DEFAULT_INSTR_SHAPE if self.instr_shape is None else self.instr_shape,
            "instr_shape",
            _NAME,
        )
        if instr not in VALID_INSTR_SHAPES[self.version]:
            valid = ", ".join(list_text(s) for s in VALID_INSTR_SHAPES[self.version])
            raise EncodingError(
                f"{_NAME}: invalid WMMA v{self.version} instruction shape {list(instr)} "
                f"(valid: {valid})."
            )
        _check_bases(warp, "warp_bases", rank)
        _check_bases(reg, "reg_bases", rank)
        _check_bases(cga, "cga_layout", rank)
        for attr, value in (
            ("warp_bases", warp),
            ("reg_bases", reg),
            ("instr_shape", instr),
            ("cga_layout", cga),
            ("rank", rank),
        ):
            object.__setattr__(self, attr, value)
        self.cta_layout()  # ctaLayout must be a valid (surjective) LinearLayout
        cga_linear_layout(cga, rank, _NAME)

    # ------------------------------------------------------------------ parts

    @property
    def m_dim(self) -> int:
        return self.instr_shape[0]  # type: ignore[index]

    @property
    def n_dim(self) -> int:
        return self.instr_shape[1]  # type: ignore[index]

    @property
    def k_dim(self) -> int:
        return self.instr_shape[2]  # type: ignore[index]

    def cta_layout(self) -> LinearLayout:
        """``ctaLayout``: ``register, warp -> tile index`` per dim, out sizes inferred.

        Rule (LinearLayout's constructor): every tile index must be reached (surjective).
        """
        names = standard_out_dim_names(self.rank)
        bases = [
            ("register", [list(b) for b in self.reg_bases or ()]),
            ("warp", [list(b) for b in self.warp_bases]),
        ]
        try:
            return LinearLayout.from_bases(bases, names)
        except LayoutError as error:
            raise EncodingError(
                f"{_NAME}: ctaLayout (reg_bases, warp_bases) is expected to be surjective, "
                f"i.e. every tile index is reached by some register or warp: {error}"
            ) from None

    def tile_layout(self) -> LinearLayout:
        """One WMMA accumulator tile, ``register, lane -> dim0..`` (``getTileLayout``)."""
        rank = self.rank
        names = standard_out_dim_names(rank)
        registers, lanes = self._tile_bases()
        thread_order = matrix_order(rank, not self.transposed)
        outs = [names[thread_order[0]], names[thread_order[1]]]
        tile = LinearLayout.from_bases([("register", registers), ("lane", lanes)], outs)
        if rank == 3:
            tile = tile * _identity(1, "register", names[0]) * _identity(1, "lane", names[0])
        return tile.transpose_outs(names)

    def _tile_bases(self) -> tuple[list[list[int]], list[list[int]]]:
        """The tile's register and lane bases, coordinates (fastest, slowest): (N, M), or
        (M, N) when transposed."""
        lanes = [[1, 0], [2, 0], [4, 0], [8, 0]]
        if self.version == 1:
            # RDNA3: the registers skip every other row; lane bit 4 is the row in between.
            registers = [[0, 2], [0, 4], [0, 8]]
            lanes.append([0, 1])
        elif (self.m_dim, self.n_dim) == (32, 16):
            # Two 16x16 tiles stacked along M, the second in extra registers.
            registers = [[0, 1], [0, 2], [0, 4], [0, 16]]
            lanes.append([0, 8])
        else:
            registers = [[0, 1], [0, 2], [0, 4]]
            lanes.append([0, 8])
        return registers, lanes

    def _cta_builder(self) -> LayoutBuilder:
        """cta_layout as a ``LayoutBuilder``."""
        bases = [("register", self.reg_bases or ()), ("warp", self.warp_bases)]
        return LayoutBuilder.from_bases(self.rank, bases, range(self.rank))

    def _built(self, dims: Sequence[int]) -> LinearLayout:
        """to_linear_layout's fast path (``LayoutBuilder``), the same steps."""
        rank = self.rank
        fast, slow = matrix_order(rank, not self.transposed)[:2]
        if self.version == 1 or (self.m_dim, self.n_dim) == (32, 16):
            registers, lanes = self._tile_bases()
            tile = LayoutBuilder.from_bases(
                rank, [("register", registers), ("lane", lanes)], [fast, slow]
            )
        else:  # _tile_bases's: registers on rows 0-7, lanes on columns 0-15, then row 8
            tile = LayoutBuilder(rank)
            tile.identity(8, "register", slow)
            tile.identity(16, "lane", fast)
            tile.identity(2, "lane", slow)
        if rank == 3:
            tile.identity(1, "register", 0)
            tile.identity(1, "lane", 0)
        tile.transpose_outs(range(rank))
        tile.times(self._cta_builder())
        tile.transpose_outs(matrix_order(rank, True))
        return tile.combine(cga_builder(self.cga_layout, rank), dims)

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        dims = check_shape(shape, self.rank, _NAME)
        try:
            return self._built(dims)
        except NotCoveredError:
            pass  # the reference path below decides
        names = standard_out_dim_names(self.rank)
        wmma = self.tile_layout() * self.cta_layout()
        rep_names = [names[d] for d in matrix_order(self.rank, True)]
        cga = cga_linear_layout(self.cga_layout, self.rank, _NAME)
        return combine_cta_cga_with_shape(wmma.transpose_outs(rep_names), cga, dims)

    # ------------------------------------------------------------------ dot operands

    def operand_non_k_dim(self, operand_index: int) -> int:
        """``getOperandNonKDim``: M for operand 0, N for 1, swapped when transposed and
        M != N (the operands are swapped for the asymmetric transposed instruction)."""
        flip = self.transposed and self.m_dim != self.n_dim
        effective = 1 - operand_index if flip else operand_index
        return self.m_dim if effective == 0 else self.n_dim

    def validate_dot_operand(self, operand_index: int, k_width: int) -> None:
        """``DotOperandEncodingAttr::verify`` for a WMMA parent."""
        if isinstance(k_width, bool) or not isinstance(k_width, int):
            raise LayoutTypeError(
                f"DotOperandLayout: 'k_width' must be an int, not {shown(k_width)}."
            )
        if k_width < 0:
            raise EncodingError(
                f"DotOperandLayout: kWidth is unsigned and cannot be {k_width} (negative)."
            )
        allowed = _DOT_K_WIDTHS[self.version]
        if allowed is None:
            if k_width == 0:
                raise EncodingError(
                    "DotOperandLayout: ttg.dot_op kWidth parameter is mandatory for WMMA v3."
                )
        elif k_width not in allowed:
            listed = "/".join(map(str, allowed))
            raise EncodingError(
                f"DotOperandLayout: ttg.dot_op kWidth parameter must be {listed} for WMMA "
                f"v{self.version}, not {k_width}."
            )

    def dot_cga_layout(self, operand_index: int) -> LinearLayout:
        """``DotOperandEncodingAttr::getCGALayout``: the parent's CGA with K broadcast."""
        return dot_operand_cga_layout(self.cga_layout, self.rank, operand_index, "DotOperandLayout")

    def dot_operand_layout(
        self, operand_index: int, k_width: int, shape: Sequence[int]
    ) -> LinearLayout:
        """``wmmaDotOperandToLinearLayout``: ``k_width`` registers along K, 16 lanes along
        the non-K dim, lane bit 4 along K (version 1: duplicated, a zero basis), the tile
        repeated along K to the instruction's K and, for 32-wide operands, along non-K;
        then the CTA layout with its K coordinates projected away."""
        rank = self.rank
        dims = check_shape(shape, rank, "DotOperandLayout")
        if not is_power_of_2(k_width):
            raise EncodingError(
                f"DotOperandLayout: kWidth = {k_width} must be a power of 2 for a WMMA "
                f"parent (Triton's identity1D asserts it)."
            )
        order = order_for_dot_operand(operand_index, rank, True)
        try:
            return self._built_dot_operand(operand_index, k_width, order, dims)
        except NotCoveredError:
            pass  # the reference path below decides
        names = standard_out_dim_names(rank)
        dim_k, dim_non_k = names[order[0]], names[order[1]]
        k_depth = WAVE_SIZE // _TILE_DIM
        tile = _identity(k_width, "register", dim_k) * _identity(_TILE_DIM, "lane", dim_non_k)
        if self.version == 1:
            tile = tile * LinearLayout.zeros_1d(k_depth, "lane", dim_k)
        else:
            tile = tile * _identity(k_depth, "lane", dim_k)
        tile = tile * _identity(self.k_dim // (k_depth * k_width), "register", dim_k)
        non_k_repeat = self.operand_non_k_dim(operand_index) // _TILE_DIM
        if non_k_repeat > 1:
            tile = tile * _identity(non_k_repeat, "register", dim_non_k)

        # The CTA layout with its K coordinates zeroed (projectAwayOutDim), without the
        # register bases that became zero (actionRemoveBroadcastedRegs).
        k_index = names.index(dim_k)
        projected = [
            (in_dim, [[0 if i == k_index else v for i, v in enumerate(b)] for b in values])
            for in_dim, values in self.cta_layout().bases
        ]
        cta = LinearLayout.from_bases(projected, names)
        cta = action_remove_broadcasted_regs(cta).apply(cta)
        # Triton's operator* merges the out-dim orders [k, nonK] and [dim0, ...] with its
        # lenient supremum; only the order differs, so put the CTA in the tile's order.
        rep_names = [names[d] for d in order]
        dot = tile * cta.transpose_outs(rep_names)
        return combine_cta_cga_with_shape(
            dot.transpose_outs(rep_names), self.dot_cga_layout(operand_index), dims
        )

    def _built_dot_operand(
        self, operand_index: int, k_width: int, order: Sequence[int], dims: Sequence[int]
    ) -> LinearLayout:
        """dot_operand_layout's fast path (``LayoutBuilder``), the same steps."""
        k_index, non_k_index = order[0], order[1]
        k_depth = WAVE_SIZE // _TILE_DIM
        tile = LayoutBuilder(self.rank)
        tile.identity(k_width, "register", k_index)
        tile.identity(_TILE_DIM, "lane", non_k_index)
        if self.version == 1:
            tile.zeros(k_depth, "lane", k_index)
        else:
            tile.identity(k_depth, "lane", k_index)
        tile.identity(self.k_dim // (k_depth * k_width), "register", k_index)
        non_k_repeat = self.operand_non_k_dim(operand_index) // _TILE_DIM
        if non_k_repeat > 1:
            tile.identity(non_k_repeat, "register", non_k_index)
        cta = self._cta_builder()
        cta.project_away(k_index)
        cta.remove_zero_registers()
        cta.transpose_outs(order)
        tile.times(cta)
        tile.transpose_outs(order)
        k_dim = self.rank - 1 if operand_index == 0 else self.rank - 2
        return tile.combine(cga_builder(self.cga_layout, self.rank, k_dim), dims)

    # ------------------------------------------------------------------ text

    def ttgir(self) -> str:
        parts = []
        if self.reg_bases:
            parts.append(f"register = {bases_text(self.reg_bases)}")
        if self.warp_bases:
            parts.append(f"warp = {bases_text(self.warp_bases)}")
        text = (
            f"#ttg.amd_wmma<{{version = {self.version}, isTranspose = "
            f"{'true' if self.transposed else 'false'}, ctaLayout = {{{', '.join(parts)}}}"
        )
        if self.cga_layout:
            text += f", CGALayout = {bases_text(self.cga_layout)}"
        if tuple(self.instr_shape or ()) != DEFAULT_INSTR_SHAPE:
            text += f", instrShape = {list_text(self.instr_shape or ())}"
        return text + "}>"


# ---------------------------------------------------------------------- TTGIR


def _infer_rank(*groups: Any) -> int:
    for group in groups:
        if isinstance(group, Sequence) and not isinstance(group, str):
            for basis in group:
                if isinstance(basis, Sequence) and not isinstance(basis, str):
                    return len(basis)
    return 2


def _wmma_from_ttgir(fields: dict[str, Any], attribute: Any) -> AMDWMMALayout:
    version = attribute.take("version")
    transposed = attribute.take("isTranspose", False)
    cta = attribute.take("ctaLayout")
    cga = attribute.take("CGALayout", [])
    instr_shape = attribute.take("instrShape", None)
    rank = attribute.take("rank", None)
    if not isinstance(cta, Mapping):
        raise attribute.error("expected dictionary value for 'ctaLayout'")
    unknown = sorted(set(cta) - {"register", "warp"})
    if unknown:
        raise attribute.error(
            f"ctaLayout has unknown in dim '{unknown[0]}' (expected register and warp)"
        )
    reg_bases = cta.get("register", [])
    warp_bases = cta.get("warp", [])
    if rank is None:
        # Triton prints no rank; a basis gives it (Triton's own parser assumes 2).
        rank = _infer_rank(reg_bases, warp_bases, cga)
    return AMDWMMALayout(version, transposed, warp_bases, reg_bases, instr_shape, cga, rank)


def _wmma_from_gluon(layout: Any) -> AMDWMMALayout:
    return AMDWMMALayout(
        layout.version,
        layout.transposed,
        layout.warp_bases,
        layout.reg_bases,
        layout.instr_shape,
        layout.cga_layout,
        layout.rank,
    )


register("amd_wmma", _wmma_from_ttgir)
register_gluon("AMDWMMALayout", _wmma_from_gluon)
