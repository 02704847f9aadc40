"""AMD MFMA encodings (``#ttg.amd_mfma``) and their dot operands, as Triton 3.9 converts them.

The converters follow Triton's ``AMDMfmaEncodingAttr::toLinearLayout`` and
``mfmaDotToLinearLayout`` (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp); the
verifier rules are those of ``AMDMfmaEncodingAttr::verify`` (Dialect.cpp), Gluon's
``amd.AMDMFMALayout.verify`` and ``DotOperandEncodingAttr::verify`` for an MFMA parent.

One MFMA tile is computed by a wave of 64 lanes.  For the accumulator (not transposed):
``height`` (4, or 1 for 64-bit elements) consecutive rows per register group, lanes along N
first, the remaining ``64 / N`` lanes along M, then register groups along M.  Transposed
swaps the roles of M and N inside the tile.  Tiles then repeat along N (tiles per warp, warps,
the rest of N) before M, so consecutive tiles are N-contiguous across the whole tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    int_list,
    list_text,
)
from llverify.encodings.builder import LayoutBuilder, NotCoveredError, cga_builder
from llverify.encodings.gluon import register_gluon
from llverify.encodings.ttgir import register
from llverify.errors import LayoutTypeError, shown
from llverify.layout import LinearLayout
from llverify.layout_utils import identity_standard_nd, standard_out_dim_names

__all__ = ["MFMA_INSTR_SHAPES", "WAVE_SIZE", "AMDMFMALayout"]

#: MFMA always runs on 64-lane waves.
WAVE_SIZE = 64
#: The (M, N) instruction shapes Triton's verifier accepts.
MFMA_INSTR_SHAPES = ((32, 32), (16, 16), (64, 4), (4, 64))

_NAME = "AMDMFMALayout"


def _identity(size: int, in_dim: str, out_dim: str) -> LinearLayout:
    return LinearLayout.identity_1d(size, in_dim, out_dim)


def _require_positive_powers_of_2(values: Sequence[int], name: str) -> None:
    for i, v in enumerate(values):
        if not is_power_of_2(v):
            raise EncodingError(
                f"{_NAME}: every element of '{name}' must be a positive power of two, but "
                f"{name}[{i}] = {v}."
            )


def _checked_version(value: Any) -> int:
    """The MFMA generation, 1..4."""
    version = int_list([value], "version", _NAME)[0]
    if not 1 <= version <= 4:
        # Gluon's rule; the C++ verifier also lets version 0 through.
        raise EncodingError(f"{_NAME}: version must be in the [1, 4] range, not {version}.")
    return version


def _checked_instr_shape(value: Any) -> tuple[int, ...]:
    """``(M, N, K)`` with (M, N) one of :data:`MFMA_INSTR_SHAPES` and K >= 0."""
    instr = int_list(value, "instr_shape", _NAME)
    if len(instr) != 3:
        raise EncodingError(
            f"{_NAME}: instr_shape must follow the (M, N, K) format (3 ints), not {list(instr)}."
        )
    if (instr[0], instr[1]) not in MFMA_INSTR_SHAPES:
        raise EncodingError(
            f"{_NAME}: invalid (mDim, nDim) combination: ({instr[0]}, {instr[1]}); "
            f"valid: 32x32, 16x16, 64x4, 4x64."
        )
    if instr[2] < 0:
        raise EncodingError(f"{_NAME}: instr_shape K must be non-negative, not {instr[2]}.")
    return instr


def _checked_warps(value: Any) -> tuple[int, ...]:
    """The warp grid: rank 2 or 3, powers of 2."""
    warps = int_list(value, "warps_per_cta", _NAME)
    if len(warps) not in (2, 3):
        raise EncodingError(
            f"{_NAME}: warps_per_cta must have rank 2 or 3 ([batch,] M, N), not {len(warps)}."
        )
    _require_positive_powers_of_2(warps, "warps_per_cta")
    return warps


def _checked_bitwidth(value: Any) -> int:
    """The accumulator element's bits: 32 (the default, ``None``) or 64."""
    bitwidth = 32 if value is None else value
    bitwidth = int_list([bitwidth], "element_bitwidth", _NAME)[0]
    if bitwidth not in (32, 64):
        raise EncodingError(f"{_NAME}: elementBitWidth must be 32 or 64, not {bitwidth}.")
    return bitwidth


def _checked_tiles_per_warp(value: Any, rank: int) -> tuple[int, ...]:
    """Powers of 2, one per dim; ``None``: all 1."""
    tiles = (1,) * rank if value is None else int_list(value, "tiles_per_warp", _NAME)
    if len(tiles) != rank:
        raise EncodingError(
            f"{_NAME}: tiles_per_warp must have length {rank} (the rank), not {len(tiles)}."
        )
    _require_positive_powers_of_2(tiles, "tiles_per_warp")
    return tiles


@dataclass(frozen=True)
class AMDMFMALayout(Encoding):
    """``#ttg.amd_mfma``: the accumulator layout of AMD MFMA instructions (wave64).

    Args:
        version: the MFMA generation, 1 (gfx908), 2 (gfx90a), 3 (gfx942) or 4 (gfx950).
        instr_shape: ``(M, N, K)``; (M, N) is one of 32x32, 16x16, 64x4, 4x64.
        transposed: each lane holds consecutive elements of a row instead of a column.
        warps_per_cta: the warp grid, rank 2 or 3 (a leading batch dim).
        element_bitwidth: 32 (default) or 64 bits per accumulator element.
        tiles_per_warp: MFMA tiles per warp along each dim (default all 1).
        cga_layout: block bases of the CTA tiling.

    Examples:
        >>> enc = AMDMFMALayout(3, [32, 32, 8], False, [1, 1])
        >>> enc.to_linear_layout([32, 32]).bases[0]
        ('register', [[1, 0], [2, 0], [8, 0], [16, 0]])
    """

    version: int
    instr_shape: Sequence[int]
    transposed: bool
    warps_per_cta: Sequence[int]
    element_bitwidth: int | None = None
    tiles_per_warp: Sequence[int] | None = None
    cga_layout: Sequence[Sequence[int]] = field(default_factory=tuple)

    mnemonic = "amd_mfma"

    def __post_init__(self) -> None:
        version = _checked_version(self.version)
        instr = _checked_instr_shape(self.instr_shape)
        if not isinstance(self.transposed, bool):
            raise LayoutTypeError(
                f"{_NAME}: 'transposed' must be a bool, not {shown(self.transposed)}."
            )
        warps = _checked_warps(self.warps_per_cta)
        bitwidth = _checked_bitwidth(self.element_bitwidth)
        tiles = _checked_tiles_per_warp(self.tiles_per_warp, len(warps))
        cga = bases_list(self.cga_layout, "cga_layout", _NAME)
        cga_linear_layout(cga, len(warps), _NAME)
        for attr, value in (
            ("version", version),
            ("instr_shape", instr),
            ("warps_per_cta", warps),
            ("element_bitwidth", bitwidth),
            ("tiles_per_warp", tiles),
            ("cga_layout", cga),
        ):
            object.__setattr__(self, attr, value)

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    @property
    def _tiles(self) -> Sequence[int]:
        assert self.tiles_per_warp is not None  # filled in by __post_init__
        return self.tiles_per_warp

    @property
    def m_dim(self) -> int:
        return self.instr_shape[0]

    @property
    def n_dim(self) -> int:
        return self.instr_shape[1]

    def tile_layout(self) -> LinearLayout:
        """One rank-2 MFMA accumulator tile ``register, lane -> (dim1, dim0)`` (N, M), with
        the out dims N first as Triton builds it."""
        return self._tile_layout("dim0", "dim1")

    def _tile_layout(self, dim_m: str, dim_n: str) -> LinearLayout:
        m, n = self.m_dim, self.n_dim
        if (m, n) == (64, 4) and not self.transposed:
            # Triton asserts this in toLinearLayout (the 64x4 output is always computed as
            # a transposed 4x64 with A and B swapped).
            raise EncodingError(f"{_NAME}: 64x4 mfma must be transposed (transposed=True).")
        height = 1 if self.element_bitwidth == 64 else 4
        tiles = (m * n) // (WAVE_SIZE * height)
        if not self.transposed:
            tile = (
                _identity(height, "register", dim_m)
                * _identity(n, "lane", dim_n)
                * _identity(WAVE_SIZE // n, "lane", dim_m)
                * _identity(tiles, "register", dim_m)
            )
        else:
            tile = (
                _identity(height, "register", dim_n)
                * _identity(m, "lane", dim_m)
                * _identity(WAVE_SIZE // m, "lane", dim_n)
                * _identity(tiles, "register", dim_n)
            )
        return tile.transpose_outs([dim_n, dim_m])

    def _build_tile(self, builder: LayoutBuilder, m_index: int, n_index: int) -> None:
        """_tile_layout's steps on ``builder`` (M and N are ``dim{m_index}``,
        ``dim{n_index}``)."""
        m, n = self.m_dim, self.n_dim
        if (m, n) == (64, 4) and not self.transposed:
            raise NotCoveredError  # the reference raises the error
        height = 1 if self.element_bitwidth == 64 else 4
        tiles = (m * n) // (WAVE_SIZE * height)
        fast, slow = (m_index, n_index) if self.transposed else (n_index, m_index)
        lanes_fast = m if self.transposed else n
        builder.identity(height, "register", slow)
        builder.identity(lanes_fast, "lane", fast)
        builder.identity(WAVE_SIZE // lanes_fast, "lane", slow)
        builder.identity(tiles, "register", slow)
        builder.transpose_outs([n_index, m_index])

    def _built(self, dims: Sequence[int]) -> LinearLayout:
        """to_linear_layout's fast path (``LayoutBuilder``), the same steps."""
        rank = self.rank
        m_index, n_index = rank - 2, rank - 1
        builder = LayoutBuilder(rank)
        self._build_tile(builder, m_index, n_index)
        warps = self.warps_per_cta
        n_tile_size = self.n_dim * warps[n_index] * self._tiles[n_index]
        builder.identity(self._tiles[n_index], "register", n_index)
        builder.identity(warps[n_index], "warp", n_index)
        builder.identity(-(-dims[n_index] // n_tile_size), "register", n_index)
        builder.identity(self._tiles[m_index], "register", m_index)
        builder.identity(warps[m_index], "warp", m_index)
        if rank == 3:
            builder.identity(1, "register", 0)
            builder.identity(1, "lane", 0)
            builder.identity(warps[0], "warp", 0)
        return builder.combine(cga_builder(self.cga_layout, rank), dims)

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        dims = check_shape(shape, self.rank, _NAME)
        try:
            return self._built(dims)
        except NotCoveredError:
            pass  # the reference path below decides
        rank = self.rank
        names = standard_out_dim_names(rank)
        m_index, n_index = rank - 2, rank - 1
        dim_m, dim_n = names[m_index], names[n_index]
        tile = self._tile_layout(dim_m, dim_n)
        tiles_m, tiles_n = self._tiles[m_index], self._tiles[n_index]
        warps_m, warps_n = self.warps_per_cta[m_index], self.warps_per_cta[n_index]
        # N first: tiles per warp, warps, then the rest of the tensor's N; only then M.
        n_tile_size = self.n_dim * warps_n * tiles_n
        n_repeats = -(-dims[n_index] // n_tile_size)
        tile = (
            tile
            * _identity(tiles_n, "register", dim_n)
            * _identity(warps_n, "warp", dim_n)
            * _identity(n_repeats, "register", dim_n)
            * _identity(tiles_m, "register", dim_m)
            * _identity(warps_m, "warp", dim_m)
        )
        if rank == 3:
            tile = (
                tile
                * _identity(1, "register", names[0])
                * _identity(1, "lane", names[0])
                * _identity(self.warps_per_cta[0], "warp", names[0])
            )
        cga = cga_linear_layout(self.cga_layout, rank, _NAME)
        return combine_cta_cga_with_shape(tile, cga, dims)

    # ------------------------------------------------------------------ dot operands

    def validate_dot_operand(self, operand_index: int, k_width: int) -> None:
        """Triton's ``DotOperandEncodingAttr::verify`` for an MFMA parent: kWidth is
        mandatory; the converter also needs it to be a power of 2."""
        if isinstance(k_width, bool) or not isinstance(k_width, int):
            raise LayoutTypeError(
                f"DotOperandLayout: 'k_width' must be an int, not {shown(k_width)}."
            )
        if k_width == 0:
            raise EncodingError(
                "DotOperandLayout: kWidth parameter is mandatory for MFMA parent (must be a "
                "positive power of 2, not 0)."
            )
        if not is_power_of_2(k_width):
            raise EncodingError(
                f"DotOperandLayout: kWidth = {k_width} for an MFMA parent must be a positive "
                f"power of 2."
            )

    def dot_operand_layout(
        self, operand_index: int, k_width: int, shape: Sequence[int]
    ) -> LinearLayout:
        """Operand A (0) or B (1) of an MFMA dot: ``k_width`` consecutive K elements per
        register group, the non-K dim of the instruction across lanes, the remaining
        ``64 / nonK`` lanes along K; warps broadcast along K (Triton's
        ``mfmaDotToLinearLayout``)."""
        self.validate_dot_operand(operand_index, k_width)
        rank = self.rank
        dims = check_shape(shape, rank, "DotOperandLayout")
        try:
            return self._built_dot_operand(operand_index, k_width, dims)
        except NotCoveredError:
            pass  # the reference path below decides
        names = standard_out_dim_names(rank)
        k_index = rank - 1 if operand_index == 0 else rank - 2
        non_k_index = rank - 2 if operand_index == 0 else rank - 1
        dim_k, dim_non_k = names[k_index], names[non_k_index]
        m, n = self.m_dim, self.n_dim
        non_k = m if operand_index == 0 else n
        tile = (
            _identity(k_width, "register", dim_k)
            * _identity(non_k, "lane", dim_non_k)
            * _identity(WAVE_SIZE // non_k, "lane", dim_k)
        )
        k_tile = WAVE_SIZE // non_k * k_width
        if (m, n, operand_index) in ((64, 4, 0), (4, 64, 1)):
            # The 64-wide operand of a 64x4 / 4x64 MFMA repeats its tile 16 times along K.
            tile = tile * _identity(16, "register", dim_k)
            k_tile *= 16
        if dims[k_index] > k_tile:
            tile = tile * _identity(dims[k_index] // k_tile, "register", dim_k)
        tile = tile * _identity(self._tiles[non_k_index], "register", dim_non_k)
        tile = tile.transpose_outs([dim_k, dim_non_k])
        if rank == 3:
            tile = tile * _identity(1, "register", names[0]) * _identity(1, "lane", names[0])
        # Warps as in the accumulator grid (row-major over [batch,] M, N).  The tile already
        # covers all of K with registers, so the warps along K fall outside the shape and
        # combine_cta_cga_with_shape turns them into zero (broadcast) bases.
        warps = identity_standard_nd("warp", self.warps_per_cta, list(range(rank))[::-1])
        # Triton's supremum keeps the tile's out-dim order here; transposing first gives the
        # same product without relying on an order-conflicting supremum.
        cta = tile * warps.transpose_outs(tile.get_out_dim_names())
        cga = cga_linear_layout(self.cga_layout, rank, "DotOperandLayout")
        return combine_cta_cga_with_shape(cta, cga, dims).transpose_outs(names)

    def _built_dot_operand(
        self, operand_index: int, k_width: int, dims: Sequence[int]
    ) -> LinearLayout:
        """dot_operand_layout's fast path (``LayoutBuilder``), the same steps."""
        rank = self.rank
        k_index = rank - 1 if operand_index == 0 else rank - 2
        non_k_index = rank - 2 if operand_index == 0 else rank - 1
        m, n = self.m_dim, self.n_dim
        non_k = m if operand_index == 0 else n
        builder = LayoutBuilder(rank)
        builder.identity(k_width, "register", k_index)
        builder.identity(non_k, "lane", non_k_index)
        builder.identity(WAVE_SIZE // non_k, "lane", k_index)
        k_tile = WAVE_SIZE // non_k * k_width
        if (m, n, operand_index) in ((64, 4, 0), (4, 64, 1)):
            builder.identity(16, "register", k_index)
            k_tile *= 16
        if dims[k_index] > k_tile:
            builder.identity(dims[k_index] // k_tile, "register", k_index)
        builder.identity(self._tiles[non_k_index], "register", non_k_index)
        builder.transpose_outs([k_index, non_k_index])
        if rank == 3:
            builder.identity(1, "register", 0)
            builder.identity(1, "lane", 0)
        for d in reversed(range(rank)):
            builder.identity(self.warps_per_cta[d], "warp", d)
        return builder.combine(cga_builder(self.cga_layout, rank), dims)

    def ttgir(self) -> str:
        text = (
            f"#ttg.amd_mfma<{{version = {self.version}, warpsPerCTA = "
            f"{list_text(self.warps_per_cta)}, instrShape = {list_text(self.instr_shape)}, "
            f"isTransposed = {'true' if self.transposed else 'false'}"
        )
        if self.cga_layout:
            text += f", CGALayout = {bases_text(self.cga_layout)}"
        if any(t != 1 for t in self._tiles):
            text += f", tilesPerWarp = {list_text(self._tiles)}"
        if self.element_bitwidth != 32:
            text += f", elementBitWidth = {self.element_bitwidth}"
        return text + "}>"


# ---------------------------------------------------------------------- TTGIR and Gluon


def _mfma_from_ttgir(fields: dict[str, Any], attribute: Any) -> AMDMFMALayout:
    return AMDMFMALayout(
        version=attribute.take("version"),
        instr_shape=attribute.take("instrShape"),
        transposed=attribute.take("isTransposed"),
        warps_per_cta=attribute.take("warpsPerCTA"),
        element_bitwidth=attribute.take("elementBitWidth", 32),
        tiles_per_warp=attribute.take("tilesPerWarp", None),
        cga_layout=attribute.take("CGALayout", []),
    )


def _mfma_from_gluon(layout: Any) -> AMDMFMALayout:
    return AMDMFMALayout(
        layout.version,
        layout.instr_shape,
        layout.transposed,
        layout.warps_per_cta,
        layout.element_bitwidth,
        layout.tiles_per_warp,
        layout.cga_layout,
    )


register("amd_mfma", _mfma_from_ttgir)
register_gluon("AMDMFMALayout", _mfma_from_gluon)
