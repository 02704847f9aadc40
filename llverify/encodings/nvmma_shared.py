"""NVMMAShared: the shared-memory encoding of TMA copies and wgmma/tcgen05 operands.

``#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>``
(Gluon ``ttgl.NVMMASharedLayout``) maps shared-memory element offsets (``offset``, and the
CTA ``block``) to tensor coordinates as Triton 3.9's ``nvmmaSharedToLinearLayout`` does
(lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp, TMA "tiled" mode):

* the TMA box (``getTMABlockShape``): every dim of the shape per CTA clamped to 256; the
  contiguous dim (the last one, the first when ``transposed``) set to ``8 * swizzle /
  bitwidth`` elements, i.e. exactly one swizzle width of bytes (fp4-padded: counted in
  padded bytes, then halved);
* inside a box, 8-row core matrices (``getCoreMatrixLinearLayout``): the columns of a row
  first, then the rows, 16-byte chunk ``c`` of row ``r`` stored at chunk ``c XOR ((r /
  perPhase) % maxPhase)`` with ``vec = 128 / bitwidth`` elements (16 bytes) per chunk,
  ``perPhase = 128 / swizzle`` and ``maxPhase = swizzle / 16`` (the CUDA TMA swizzle
  modes ``CU_TENSOR_MAP_SWIZZLE_32B/64B/128B``); fp4-padded rows hold 8 real bytes in
  every 16, the padding offsets mapping to the real ones (a zero basis);
* the box fills the collapsed shape (all outer dims flattened into rows), is reshaped to
  the N-d box, and further boxes are the outermost offset bits;
* ``swizzle_byte_width = 0``: no swizzle, the box is the clamped shape stored row-major.

Verifier rules (each refusal is an :class:`~llverify.encodings.base.EncodingError` naming
it): Triton's ``swizzlingByteWidth must be 0, 32, 64, or 128``; Gluon's
``element_bitwidth in [8, 16, 32, 64]``, ``fp4_padded only supports 128 byte swizzling``
and ``fp4_padded is only supported for element_bitwidth=8``; the CGA permutation rule; and
per shape the TMA rules ``block shape along the contiguous dimension is too small for the
swizzle byte size`` and ``Illegal shared layout; expected collapsed shapePerCTA to be at
least [8, ...]`` (where Triton aborts), a swizzled layout of rank >= 2, and shapes of
positive powers of 2 of the encoding's rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import prod
from typing import Any

from llverify.encodings.base import (
    Encoding,
    EncodingError,
    bases_list,
    bases_text,
    cga_linear_layout,
    check_shape,
    combine_cta_cga_with_shape,
    shape_per_cta,
)
from llverify.encodings.gluon import register_gluon
from llverify.encodings.ttgir import register
from llverify.errors import LayoutTypeError, shown
from llverify.layout import LinearLayout
from llverify.layout_utils import (
    ensure_layout_not_smaller_than,
    reshape_layout,
    standard_out_dim_names,
    transpose_linear_layout,
)

NAME = "NVMMASharedLayout"
#: Swizzle widths in bytes (Triton's verifier; 0 means no swizzle).
SWIZZLE_BYTE_WIDTHS = (0, 32, 64, 128)
#: Element bit widths Gluon's NVMMASharedLayout accepts.
ELEMENT_BITWIDTHS = (8, 16, 32, 64)
#: TMA tiled mode: every box dim is at most 256 elements (CUDA cuTensorMapEncodeTiled
#: ``boxDim[i] <= 256``).
TMA_MAX_BOX_DIM = 256
_OFFSET = "offset"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class NVMMASharedLayout(Encoding):
    """``#ttg.nvmma_shared``: Gluon's ``NVMMASharedLayout(swizzle_byte_width,
    element_bitwidth, rank=2, transposed=False, fp4_padded=False, cga_layout=[])``.

    Examples:
        >>> enc = NVMMASharedLayout(128, 16)
        >>> enc.ttgir()
        '#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>'
        >>> enc.to_linear_layout([8, 64]).bases[0][1][6:]
        [[1, 8], [2, 16], [4, 32]]
    """

    swizzle_byte_width: int
    element_bitwidth: int
    rank: int = 2  # Gluon's field; overrides the Encoding.rank property
    transposed: bool = False
    fp4_padded: bool = False
    cga_layout: Sequence[Sequence[int]] = field(default_factory=tuple)

    mnemonic = "nvmma_shared"

    def __post_init__(self) -> None:
        for key in ("swizzle_byte_width", "element_bitwidth", "rank"):
            if not _is_int(getattr(self, key)):
                raise LayoutTypeError(
                    f"{NAME}: '{key}' must be an int, not {shown(getattr(self, key))}."
                )
        for key in ("transposed", "fp4_padded"):
            if not isinstance(getattr(self, key), bool):
                raise LayoutTypeError(
                    f"{NAME}: '{key}' must be a bool, not {shown(getattr(self, key))}."
                )
        if self.swizzle_byte_width not in SWIZZLE_BYTE_WIDTHS:
            raise EncodingError(
                f"{NAME}: swizzlingByteWidth must be 0, 32, 64, or 128, not "
                f"{self.swizzle_byte_width}."
            )
        if self.element_bitwidth not in ELEMENT_BITWIDTHS:
            raise EncodingError(
                f"{NAME}: element_bitwidth must be one of [8, 16, 32, 64] (Gluon; Triton's "
                f"verifier: elementBitWidth must be non-zero), not {self.element_bitwidth}."
            )
        if self.fp4_padded and self.swizzle_byte_width != 128:
            raise EncodingError(
                f"{NAME}: fp4_padded only supports 128 byte swizzling, not "
                f"{self.swizzle_byte_width}."
            )
        if self.fp4_padded and self.element_bitwidth != 8:
            raise EncodingError(
                f"{NAME}: fp4_padded is only supported for element_bitwidth=8, not "
                f"{self.element_bitwidth}."
            )
        if self.rank < 1:
            raise EncodingError(f"{NAME}: the rank must be at least 1, not {self.rank}.")
        cga = bases_list(() if self.cga_layout is None else self.cga_layout, "cga_layout", NAME)
        cga_linear_layout(cga, self.rank, NAME)  # rank-long bases, a permutation
        object.__setattr__(self, "cga_layout", cga)

    # ------------------------------------------------------------------ derived values

    @property
    def vec(self) -> int:
        """Elements per 16-byte chunk (Triton's getVec; 1 without swizzle)."""
        return 128 // self.element_bitwidth if self.swizzle_byte_width else 1

    @property
    def per_phase(self) -> int:
        """Rows sharing one swizzle phase (Triton's getPerPhase)."""
        return 128 // self.swizzle_byte_width if self.swizzle_byte_width else 1

    @property
    def max_phase(self) -> int:
        """Number of distinct phases (Triton's getMaxPhase)."""
        return self.swizzle_byte_width // 16 if self.swizzle_byte_width else 1

    @property
    def contig_dim(self) -> int:
        """The contiguous dim: the last one, the first when transposed."""
        return 0 if self.transposed else self.rank - 1

    def cta_split(self) -> list[int]:
        """Triton's CTASplitNum: CTAs along each dim (broadcast bases do not split)."""
        cga = cga_linear_layout(self.cga_layout, self.rank, NAME)
        return [cga.get_out_dim_size(d) for d in standard_out_dim_names(self.rank)]

    def shape_per_cta(self, shape: Sequence[int]) -> list[int]:
        """Triton's getShapePerCTA: ``shape[d] / min(shape[d], split[d])``."""
        return shape_per_cta(check_shape(shape, self.rank, NAME), self.cta_split())

    def tma_block_shape(self, shape_per_cta: Sequence[int]) -> list[int]:
        """Triton's ``getTMABlockShape`` (tiled mode, packed size): the TMA box."""
        block = list(shape_per_cta)
        contig = self.contig_dim
        if self.fp4_padded:
            block[contig] *= 2
        block = [min(size, TMA_MAX_BOX_DIM) for size in block]
        if self.swizzle_byte_width:
            need = 8 * self.swizzle_byte_width // self.element_bitwidth
            if block[contig] < need:
                raise EncodingError(
                    f"{NAME}: block shape along the contiguous dimension {contig} is too "
                    f"small for the swizzle byte size {self.swizzle_byte_width} in an "
                    f"NVMMASharedLayout, got {block[contig]} but expected at least {need} "
                    f"(the shape per CTA is {list(shape_per_cta)})."
                )
            block[contig] = need
        if self.fp4_padded:
            block[contig] //= 2
        return block

    def core_matrix(self) -> LinearLayout:
        """Triton's ``getCoreMatrixLinearLayout``: one 8-row swizzle atom, ``offset ->
        dim0 (row), dim1 (column)``."""
        tile_cols = 8 * max(16, self.swizzle_byte_width) // self.element_bitwidth
        vec, per_phase, max_phase = self.vec, self.per_phase, self.max_phase
        bases: list[list[int]] = []
        col = 1
        while col < tile_cols:
            # fp4-padded: 8 real and 8 padding offsets per 16; padding maps to the real ones.
            bases.append([0, col // 16 * 8 + col % 8 if self.fp4_padded else col])
            col *= 2
        for row in (1, 2, 4):
            swizzled = vec * ((row // per_phase) % max_phase)
            if self.fp4_padded:
                swizzled = swizzled // 16 * 8 + swizzled % 8
            bases.append([row, swizzled])
        return LinearLayout.from_bases([(_OFFSET, bases)], standard_out_dim_names(2))

    # ------------------------------------------------------------------ the layout

    def _rotated(self, tma: Sequence[int]) -> list[int]:
        """The box with its first (contiguous, when transposed) dim moved last."""
        return [*tma[1:], tma[0]] if self.transposed else list(tma)

    def _untranspose(self, layout: LinearLayout) -> LinearLayout:
        """Move the last coordinate to the front (Triton's transposeLinearLayout with
        order [rank - 1, 0, 1, ...])."""
        if not self.transposed:
            return layout
        rank = self.rank
        return transpose_linear_layout(layout, [rank - 1, *range(rank - 1)])

    def cta_layout(self, shape: Sequence[int]) -> LinearLayout:
        """``offset -> dim0..`` of one CTA's share of ``shape`` (before the CGA part)."""
        rank = self.rank
        per_cta = self.shape_per_cta(shape)
        names = standard_out_dim_names(rank)
        tma = self.tma_block_shape(per_cta)
        rotated = self._rotated(tma)
        if not self.swizzle_byte_width:
            layout = LinearLayout.identity_1d(rotated[-1], _OFFSET, names[-1])
            for d in range(rank - 2, -1, -1):
                layout = layout * LinearLayout.identity_1d(rotated[d], _OFFSET, names[d])
            layout = self._untranspose(layout)
            return ensure_layout_not_smaller_than(layout, dict(zip(names, per_cta)))
        if rank < 2:
            raise EncodingError(
                f"{NAME}: a swizzled layout (swizzle_byte_width = {self.swizzle_byte_width}) "
                f"needs rank >= 2, not {rank} (Triton asserts rank >= 2)."
            )
        collapsed = [prod(tma[:-1]), tma[-1]]
        if self.transposed:
            collapsed.reverse()
        tile = self.core_matrix()
        tile_rows, tile_cols = tile.get_out_dim_size("dim0"), tile.get_out_dim_size("dim1")
        packing = 2 if self.fp4_padded else 1
        if collapsed[1] * packing < tile_cols or collapsed[0] < tile_rows:
            raise EncodingError(
                f"{NAME}: Illegal shared layout; expected collapsed shapePerCTA to be at least "
                f"[{tile_rows}, {tile_cols // packing}], collapsedTmaShape: {collapsed} (the "
                f"outer dims of the box {tma} must hold at least {tile_rows} rows)."
            )
        layout = ensure_layout_not_smaller_than(tile, {"dim0": collapsed[0], "dim1": collapsed[1]})
        if layout.get_total_out_dim_size() != prod(rotated):  # pragma: no cover - fp4 guard
            raise EncodingError(
                f"{NAME}: Illegal shared layout; the core-matrix tiling does not fit the box "
                f"{rotated}."
            )
        layout = self._untranspose(reshape_layout(layout, rotated))
        return ensure_layout_not_smaller_than(layout, dict(zip(names, per_cta)))

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """``offset, block -> dim0..`` (Triton 3.9's ``nvmmaSharedToLinearLayout``)."""
        dims = check_shape(shape, self.rank, NAME)
        cga = cga_linear_layout(self.cga_layout, self.rank, NAME)
        return combine_cta_cga_with_shape(self.cta_layout(dims), cga, dims)

    def ttgir(self) -> str:
        text = (
            f"#ttg.nvmma_shared<{{swizzlingByteWidth = {self.swizzle_byte_width}, "
            f"transposed = {str(self.transposed).lower()}, "
            f"elementBitWidth = {self.element_bitwidth}"
        )
        if self.fp4_padded:
            text += ", fp4Padded = true"
        if self.cga_layout:
            text += f", CGALayout = {bases_text(self.cga_layout)}"
        elif self.rank != 2:
            text += f", rank = {self.rank}"
        return text + "}>"


def _from_ttgir(fields: dict[str, Any], attribute: Any) -> NVMMASharedLayout:
    """Triton's NVMMASharedEncodingAttr::parse: the rank is ``rank``, else the length of
    the first CGALayout basis, else 2."""
    swizzle = attribute.take("swizzlingByteWidth")
    transposed = attribute.take("transposed", False)
    bitwidth = attribute.take("elementBitWidth")
    fp4_padded = attribute.take("fp4Padded", False)
    cga = attribute.take("CGALayout", [])
    rank = attribute.take("rank", None)
    if rank is None:
        first = cga[0] if isinstance(cga, list) and cga else None
        rank = len(first) if isinstance(first, list) else 2
    for key, value in (("transposed", transposed), ("fp4Padded", fp4_padded)):
        if not isinstance(value, bool):
            raise attribute.error(f"'{key}' must be true or false, not {shown(value)}", key)
    for key, value in (
        ("swizzlingByteWidth", swizzle),
        ("elementBitWidth", bitwidth),
        ("rank", rank),
    ):
        if not _is_int(value) or value < 0:
            raise attribute.error(f"'{key}' must be an unsigned integer, not {shown(value)}", key)
    return NVMMASharedLayout(swizzle, bitwidth, rank, transposed, fp4_padded, cga)


def _from_gluon(layout: Any) -> NVMMASharedLayout:
    return NVMMASharedLayout(
        layout.swizzle_byte_width,
        layout.element_bitwidth,
        layout.rank,
        layout.transposed,
        layout.fp4_padded,
        layout.cga_layout,
    )


register("nvmma_shared", _from_ttgir)
register_gluon("NVMMASharedLayout", _from_gluon)
