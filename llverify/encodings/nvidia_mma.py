"""NVIDIA MMA encodings: ``#ttg.nvidia_mma`` (Ampere mma.sync v2, Hopper wgmma v3) and the
DotOperand layouts with an NVIDIA MMA parent (Triton's LinearLayoutConversions.cpp:
``nvidiaMmaTile``, ``NvidiaMmaEncodingAttr::toLinearLayout``, ``nvidiaDotToLinearLayout``).

One tile of the accumulator (kWidth = 2) or of an operand is, from the fastest bits:
kWidth registers along the inner dim, 4 lanes along the inner dim, 8 lanes along the outer
dim, m / 8 registers along the outer dim, n / (4 * kWidth) registers along the inner dim.
Warps are laid out row-major (N first) on Ampere and column-major (M first) on Hopper; dot
operands broadcast warps along K.
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
    cga_from_split_params,
    cga_linear_layout,
    check_shape,
    combine_cta_cga_with_shape,
    dot_operand_cga_layout,
    int_list,
    list_text,
    require_powers_of_2,
)
from llverify.encodings.blocked import broadcasted_dot_operand_layout
from llverify.encodings.builder import LayoutBuilder, NotCoveredError, cga_builder
from llverify.encodings.gluon import register_gluon
from llverify.encodings.ttgir import register
from llverify.errors import shown
from llverify.layout import LinearLayout
from llverify.layout_utils import identity_standard_nd, standard_out_dim_names

_NAME = "NVMMADistributedLayout"


def matrix_order(rank: int, row_major: bool) -> list[int]:
    """Triton's ``getMatrixOrder``: ``[rank-1, ..., 0]``, first two swapped unless row-major.

    Examples:
        >>> matrix_order(3, True), matrix_order(3, False)
        ([2, 1, 0], [1, 2, 0])
    """
    order = list(range(rank - 1, -1, -1))
    if rank >= 2 and not row_major:
        order[0], order[1] = order[1], order[0]
    return order


def dot_operand_order(operand_index: int, rank: int, k_contig: bool) -> list[int]:
    """Triton's ``getOrderForDotOperand`` (operand 0 is [*, M, K], operand 1 [*, K, N]).

    Examples:
        >>> dot_operand_order(0, 2, True), dot_operand_order(1, 2, True)
        ([1, 0], [0, 1])
    """
    return matrix_order(rank, row_major=bool(operand_index) != k_contig)


def nvidia_mma_tile(
    tile_shape: Sequence[int], k_width: int, order: Sequence[int], rep_order: Sequence[int]
) -> LinearLayout:
    """Triton's ``nvidiaMmaTile``: one MMA tile of one warp, out dims in ``rep_order``.

    ``order[0]`` is the inner dim (n = tile_shape[inner]), ``order[1]`` the outer one (m).

    Examples:
        >>> tile = nvidia_mma_tile([16, 8], 2, [1, 0], [1, 0])
        >>> tile.get_out_dim_names()
        ['dim1', 'dim0']
        >>> tile.transpose_outs(["dim0", "dim1"]).bases
        [('register', [[0, 1], [8, 0]]), ('lane', [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]])]
    """
    rank = len(rep_order)
    names = standard_out_dim_names(rank)
    inner, outer = order[0], order[1]
    m, n = tile_shape[outer], tile_shape[inner]
    assert m % 8 == 0 and n % (k_width * 4) == 0, (tile_shape, k_width)
    return (
        identity_standard_nd("register", [1] * rank, rep_order)
        * LinearLayout.identity_1d(k_width, "register", names[inner])
        * LinearLayout.identity_1d(4, "lane", names[inner])
        * LinearLayout.identity_1d(8, "lane", names[outer])
        * LinearLayout.identity_1d(m // 8, "register", names[outer])
        * LinearLayout.identity_1d(n // (k_width * 4), "register", names[inner])
    )


def build_nvidia_mma_tile(
    builder: LayoutBuilder,
    tile_shape: Sequence[int],
    k_width: int,
    order: Sequence[int],
    rep_order: Sequence[int],
) -> None:
    """:func:`nvidia_mma_tile`'s steps on ``builder`` (the converters' fast path).

    Examples:
        >>> builder = LayoutBuilder(2)
        >>> build_nvidia_mma_tile(builder, [16, 8], 2, [1, 0], [1, 0])
        >>> builder.layout() == nvidia_mma_tile([16, 8], 2, [1, 0], [1, 0])
        True
    """
    inner, outer = order[0], order[1]
    m, n = tile_shape[outer], tile_shape[inner]
    if k_width <= 0 or m % 8 or n % (k_width * 4):
        raise NotCoveredError  # the reference asserts
    for d in rep_order:
        builder.identity(1, "register", d)
    builder.identity(k_width, "register", inner)
    builder.identity(4, "lane", inner)
    builder.identity(8, "lane", outer)
    builder.identity(m // 8, "register", outer)
    builder.identity(n // (k_width * 4), "register", inner)


def _multiple_of_8(value: int) -> bool:
    """Triton's tile assertions: ``v % 8 == 0`` and ``v / 8`` a power of 2 (or 0: empty)."""
    return value >= 0 and value % 8 == 0 and (value == 0 or is_power_of_2(value // 8))


def _checked_version(version: Sequence[int]) -> int:
    """``[major, minor]`` with major 2 (Ampere) or 3 (Hopper); returns the major."""
    if len(version) != 2:
        raise EncodingError(
            f"{_NAME}: 'version' must be [versionMajor, versionMinor], not {list(version)}."
        )
    major, minor = version
    if major == 1:
        raise EncodingError(
            f"{_NAME}: Volta (versionMajor = 1) is deprecated and no longer supported."
        )
    if major not in (2, 3):
        raise EncodingError(f"{_NAME}: versionMajor must be 2 (Ampere) or 3 (Hopper), got {major}.")
    if minor < 0:
        raise EncodingError(f"{_NAME}: versionMinor is unsigned, not {minor}.")
    return major


def _check_instr_shape(major: int, instr: Sequence[int], warps: Sequence[int]) -> None:
    """Ampere's ``instr_shape`` is the tile, one entry per dim; Hopper's is [M, N, K] of a
    2-D layout."""
    rank = len(warps)
    for i, v in enumerate(instr):
        if v < 0:
            raise EncodingError(f"{_NAME}: instr_shape[{i}] is unsigned, not {v}.")
    if major == 2 and len(instr) != rank:
        raise EncodingError(
            f"{_NAME}: on Ampere (version 2) 'instr_shape' is the tile [*batch, M, N] and "
            f"must have one entry per dim (rank {rank}), not {list(instr)}."
        )
    if major == 3:
        if rank != 2:
            raise EncodingError(
                f"{_NAME}: Hopper (version 3) MMA layouts are 2-D (the wgmma tile is "
                f"[M, N]), but warps_per_cta = {list(warps)} has rank {rank}."
            )
        if len(instr) < 2:
            raise EncodingError(
                f"{_NAME}: on Hopper (version 3) 'instr_shape' is [M, N, K], not {list(instr)}."
            )


@dataclass(frozen=True)
class NVMMADistributedLayout(Encoding):
    """``#ttg.nvidia_mma``: the accumulator of Ampere ``mma.sync`` (version [2, x]) or Hopper
    ``wgmma`` (version [3, x]); named and parametrized as Gluon's class.

    Args:
        version: [major, minor]; major 2 (Ampere, instr_shape [*batch, M, N]) or 3 (Hopper,
            instr_shape [M, N, K], rank 2).
        warps_per_cta: warps along each dim (powers of 2), rank >= 2.
        instr_shape: the instruction tile.
        cga_layout: block bases (multi-CTA), as in every distributed encoding.

    Examples:
        >>> enc = NVMMADistributedLayout([2, 0], [4, 1], [16, 8])
        >>> enc.to_linear_layout([64, 16]).bases[0]
        ('register', [[0, 1], [8, 0], [0, 8]])
        >>> print(enc.ttgir())  # doctest: +NORMALIZE_WHITESPACE
        #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1],
        instrShape = [16, 8]}>
    """

    version: Sequence[int]
    warps_per_cta: Sequence[int]
    instr_shape: Sequence[int]
    cga_layout: Sequence[Sequence[int]] = field(default_factory=tuple)

    mnemonic = "nvidia_mma"

    def __post_init__(self) -> None:
        version = int_list(self.version, "version", _NAME)
        warps = int_list(self.warps_per_cta, "warps_per_cta", _NAME)
        instr = int_list(self.instr_shape, "instr_shape", _NAME)
        cga = bases_list(self.cga_layout, "cga_layout", _NAME)
        major = _checked_version(version)
        rank = len(warps)
        if rank < 2:
            raise EncodingError(
                f"{_NAME}: MMA layouts need rank >= 2 (nvidiaMmaTile: rank >= 2), but "
                f"warps_per_cta = {list(warps)} has rank {rank}."
            )
        require_powers_of_2(warps, "warps_per_cta", _NAME)
        _check_instr_shape(major, instr, warps)
        tile = self._tile(major, instr, rank)
        for what, size in (("M", tile[rank - 2]), ("N", tile[rank - 1])):
            if not _multiple_of_8(size):
                raise EncodingError(
                    f"{_NAME}: the tile's {what} = {size} must be 8 times a power of 2 "
                    f"(nvidiaMmaTile: {what.lower()} % 8 == 0 and {what.lower()} / 8 a power "
                    f"of 2), instr_shape = {list(instr)}."
                )
        cga_linear_layout(cga, rank, _NAME)
        for attr, value in (
            ("version", version),
            ("warps_per_cta", warps),
            ("instr_shape", instr),
            ("cga_layout", cga),
        ):
            object.__setattr__(self, attr, value)

    @staticmethod
    def _tile(major: int, instr: Sequence[int], rank: int) -> list[int]:
        if major == 2:
            return list(instr)
        return [instr[0], instr[1]]

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    @property
    def version_major(self) -> int:
        return self.version[0]

    @property
    def version_minor(self) -> int:
        return self.version[1]

    def is_ampere(self) -> bool:
        return self.version_major == 2

    def is_hopper(self) -> bool:
        return self.version_major == 3

    def tile_shape(self) -> list[int]:
        """The accumulator tile of one warp: instr_shape on Ampere, [M, N] on Hopper."""
        return self._tile(self.version_major, self.instr_shape, self.rank)

    def warp_order(self) -> list[int]:
        """Row-major (N fastest) on Ampere, column-major (M fastest) on Hopper."""
        return matrix_order(self.rank, row_major=not self.is_hopper())

    def cta_layout(self) -> LinearLayout:
        """The accumulator layout of one CTA before it is fitted to a shape."""
        rep_order = matrix_order(self.rank, row_major=True)
        tile = nvidia_mma_tile(self.tile_shape(), 2, rep_order, rep_order)
        warps = identity_standard_nd("warp", self.warps_per_cta, self.warp_order())
        return tile * warps.transpose_outs(tile.get_out_dim_names())

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        dims = check_shape(shape, self.rank, _NAME)
        try:
            return self._built(dims)
        except NotCoveredError:
            pass  # the reference path below decides
        cga = cga_linear_layout(self.cga_layout, self.rank, _NAME)
        return combine_cta_cga_with_shape(self.cta_layout(), cga, dims)

    def _built(self, dims: Sequence[int]) -> LinearLayout:
        """to_linear_layout's fast path (``LayoutBuilder``), the same steps."""
        rep_order = matrix_order(self.rank, row_major=True)
        builder = LayoutBuilder(self.rank)
        build_nvidia_mma_tile(builder, self.tile_shape(), 2, rep_order, rep_order)
        for d in self.warp_order():
            builder.identity(self.warps_per_cta[d], "warp", d)
        return builder.combine(cga_builder(self.cga_layout, self.rank), dims)

    # ------------------------------------------------------------------ dot operands

    def validate_dot_operand(self, operand_index: int, k_width: int) -> None:
        """Triton's DotOperandEncodingAttr::verify for an NVIDIA MMA parent, plus the
        converter's precondition that kWidth is a power of 2."""
        if isinstance(k_width, bool) or not isinstance(k_width, int):
            raise EncodingError(
                f"DotOperandLayout: 'k_width' must be an int, not {shown(k_width)}."
            )
        if k_width == 0:
            raise EncodingError(
                "DotOperandLayout: k_width (kWidth) is mandatory (non-zero) for an Ampere or "
                "Hopper MMA parent."
            )
        if self.is_hopper() and operand_index != 0:
            raise EncodingError(
                "DotOperandLayout: operand_index (opIdx) must be 0 for a Hopper MMA parent, "
                "since Hopper WGMMA only allows the first operand to be in registers."
            )
        if not is_power_of_2(k_width):
            raise EncodingError(
                f"DotOperandLayout: k_width must be a power of 2 (nvidiaMmaTile puts kWidth "
                f"registers along K), not {k_width}."
            )

    def dot_operand_layout(
        self, operand_index: int, k_width: int, shape: Sequence[int]
    ) -> LinearLayout:
        """Triton's ``nvidiaDotToLinearLayout``: tile [instrM, kWidth * 8] for A and
        [kWidth * 8, 8] for B (4 instead of 8 when instrM == 8, the fp64 m8n8k4), warps
        broadcast along K, the CGA part with K zeroed."""
        self.validate_dot_operand(operand_index, k_width)
        rank = self.rank
        dims = check_shape(shape, rank, "DotOperandLayout")
        instr_m = self.instr_shape[rank - 2]
        k_tile = k_width * (4 if instr_m == 8 else 8)
        tile = [1] * rank
        if operand_index == 0:
            tile[rank - 2], tile[rank - 1] = instr_m, k_tile
        else:
            tile[rank - 2], tile[rank - 1] = k_tile, 8
        order = dot_operand_order(operand_index, rank, k_contig=True)
        k_dim = rank - 1 if operand_index == 0 else rank - 2
        try:
            return self._built_dot_operand(tile, k_width, order, k_dim, dims)
        except NotCoveredError:
            pass  # the reference path below decides
        cta = nvidia_mma_tile(tile, k_width, order, order)
        warps = broadcasted_dot_operand_layout(self.warps_per_cta, self.warp_order(), k_dim, "warp")
        cta = cta * warps.transpose_outs(cta.get_out_dim_names())
        cga = dot_operand_cga_layout(self.cga_layout, rank, operand_index, "DotOperandLayout")
        return combine_cta_cga_with_shape(cta, cga, dims)

    def _built_dot_operand(
        self,
        tile: Sequence[int],
        k_width: int,
        order: Sequence[int],
        k_dim: int,
        dims: Sequence[int],
    ) -> LinearLayout:
        """dot_operand_layout's fast path (``LayoutBuilder``), the same steps."""
        builder = LayoutBuilder(self.rank)
        build_nvidia_mma_tile(builder, tile, k_width, order, order)
        for d in self.warp_order():
            if d == k_dim:
                builder.zeros(self.warps_per_cta[d], "warp", d)
            else:
                builder.identity(self.warps_per_cta[d], "warp", d)
        return builder.combine(cga_builder(self.cga_layout, self.rank, k_dim), dims)

    # ------------------------------------------------------------------ text

    def ttgir(self) -> str:
        text = (
            f"#ttg.nvidia_mma<{{versionMajor = {self.version_major}, versionMinor = "
            f"{self.version_minor}, warpsPerCTA = {list_text(self.warps_per_cta)}"
        )
        if self.cga_layout:
            text += f", CGALayout = {bases_text(self.cga_layout)}"
        return text + f", instrShape = {list_text(self.instr_shape)}}}>"


def _nvidia_mma_from_ttgir(fields: dict[str, Any], attribute: Any) -> NVMMADistributedLayout:
    major = attribute.take("versionMajor")
    minor = attribute.take("versionMinor", 0)
    warps = attribute.take("warpsPerCTA")
    cga = attribute.take("CGALayout", None)
    legacy = [attribute.take(k, None) for k in ("CTAsPerCGA", "CTASplitNum", "CTAOrder")]
    instr = attribute.take("instrShape")
    if cga is None:
        cga = cga_from_split_params(*legacy) if all(v is not None for v in legacy) else []
    return NVMMADistributedLayout([major, minor], warps, instr, cga)


register("nvidia_mma", _nvidia_mma_from_ttgir)
register_gluon(
    "NVMMADistributedLayout",
    lambda g: NVMMADistributedLayout(g.version, g.warps_per_cta, g.instr_shape, g.cga_layout),
)
