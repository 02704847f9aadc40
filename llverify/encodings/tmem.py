"""Blackwell tensor memory (TMEM): the memory encodings and the tcgen05.ld/st register layouts.

Two layers, as in Triton 3.9:

* the TMEM encodings ``#ttng.tensor_memory_encoding`` (:class:`TensorMemoryLayout`) and
  ``#ttng.tensor_memory_scales_encoding`` (:class:`TensorMemoryScalesLayout`), whose linear
  layout maps TMEM ``row, col`` (and ``block``) to the tensor (Triton's
  ``tensorMemoryToLinearLayout`` / ``tensorMemoryScalesToLinearLayout``);
* :func:`tmem_register_layout`: the distributed register layout that one tcgen05.ld/st
  message shape (``32x32b``, ``16x64b``, ``16x128b``, ``16x256b``, and Gluon's
  ``32x32b_splitn``) gives for a TMEM buffer: what Gluon's
  ``tensor_memory_descriptor_type.get_reg_layout`` (``gluon_ir.compute_tmem_reg_layout``,
  C++ ``getDistributedLayoutForTmemLdSt`` in lib/Dialect/TritonNvidiaGPU/IR/Dialect.cpp)
  returns, ``None`` where Triton has no layout.

A message tile maps ``register, lane`` of one warp to TMEM ``row, col`` (32-bit columns).
Warp ``w`` of a warpgroup may only access TMEM lanes (rows) ``32 * (w % 4) ...``, which is
why warps 1 and 2 always map to rows 32 and 64 (PTX ISA, "Tensor Memory" / "tcgen05.ld").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from llverify.bits import as_shape, is_power_of_2
from llverify.encodings.base import (
    Encoding,
    EncodingError,
    bases_list,
    bases_text,
    cga_linear_layout,
    cta_split_num,
    int_list,
    shape_per_cta,
)
from llverify.encodings.blocked import DistributedLinearLayout
from llverify.encodings.gluon import register_gluon
from llverify.encodings.ttgir import register
from llverify.errors import LayoutTypeError, shown
from llverify.hardware import GLUON_DTYPE_BITS
from llverify.layout import LinearLayout
from llverify.layout_utils import divide_left, ensure_layout_not_larger_than

#: The tcgen05.ld/st message shapes Triton builds register layouts for.
ATOMS = ("32x32b", "16x64b", "16x128b", "16x256b")
#: What Gluon's ``get_reg_layout(instr_variant=...)`` accepts: the atoms and the 32x32b
#: variant whose last register splits N in halves (``32x32b_splitn``).
INSTR_VARIANTS = (*ATOMS, "32x32b_splitn")
_ROW, _COL, _BLOCK = "row", "col", "block"
_DIMS = ["dim0", "dim1"]


def _m64_in_quarters(tile: LinearLayout, per_cta: Sequence[int], block_n: int) -> LinearLayout:
    """blockM = 64 on one CTA: ``tile`` (16 rows) spread over the four 16-row quarters of
    the 128 lanes, the upper half of each quarter holding the next M tile, else the next N
    tile, else nothing."""
    bases = _nested(tile)
    outs = tile.get_out_dim_names()
    if per_cta[0] > 64:
        extra = {"dim0": 64, "dim1": 0}
    elif per_cta[1] > block_n:
        extra = {"dim0": 0, "dim1": block_n}
    else:
        extra = {"dim0": 0, "dim1": 0}  # rows 16..31 of each quarter are undefined
    bases[_ROW].append([extra[o] for o in outs])
    bases[_ROW].append([16 if o == "dim0" else 0 for o in outs])
    bases[_ROW].append([32 if o == "dim0" else 0 for o in outs])
    return LinearLayout.from_bases(list(bases.items()), outs)


def _top_column_bit_to_row_64(tile: LinearLayout) -> LinearLayout:
    """Two CTAs with blockM = 64: the tile's top column bit moves to TMEM row 64."""
    bases = _nested(tile)
    if not bases[_COL]:
        raise EncodingError(
            "TensorMemoryLayout: two CTAs with blockM = 64 need at least 2 columns per CTA."
        )
    bases[_ROW].append(bases[_COL].pop())
    return LinearLayout(
        list(bases.items()),
        tile.get_out_dim_names(),
        tile.get_out_dim_sizes(),
        require_surjective=tile.is_surjective(),
    )


def _check_shape_2d(shape: Any, encoding: str) -> list[int]:
    dims = list(as_shape(shape))
    if len(dims) != 2:
        raise EncodingError(f"{encoding}: the shape {dims} must be 2-D (TMEM is rows x columns).")
    for i, d in enumerate(dims):
        if not is_power_of_2(d):
            raise EncodingError(
                f"{encoding}: shape[{i}] = {d}; shapes must be positive powers of 2 (Triton 3.9)."
            )
    return dims


@dataclass(frozen=True)
class TensorMemoryLayout(Encoding):
    """``#ttng.tensor_memory_encoding``: a ``block = (blockM, blockN)`` TMEM tile.

    ``col_stride`` is the number of 32-bit columns between logically adjacent columns
    (1 packed; ``32 / bitwidth`` unpacked); ``fp4_padded`` reserves a byte per fp4 element.

    Examples:
        >>> TensorMemoryLayout((64, 32), 1).to_linear_layout([128, 32]).bases[1]
        ('row', [[1, 0], [2, 0], [4, 0], [8, 0], [64, 0], [16, 0], [32, 0]])
    """

    block: Sequence[int]
    col_stride: int
    cga_layout: Sequence[Sequence[int]] = field(default_factory=tuple)
    two_ctas: bool = False
    fp4_padded: bool = False

    mnemonic = "tensor_memory_encoding"

    def __post_init__(self) -> None:
        name = "TensorMemoryLayout"
        block = int_list(self.block, "block", name)
        cga = bases_list(self.cga_layout, "cga_layout", name)
        if len(block) != 2:
            raise EncodingError(f"{name}: 'block' must be (blockM, blockN), not {list(block)}.")
        for key in ("two_ctas", "fp4_padded"):
            if not isinstance(getattr(self, key), bool):
                raise LayoutTypeError(
                    f"{name}: '{key}' must be a bool, not {shown(getattr(self, key))}."
                )
        cga_linear_layout(cga, 2, name)  # rank 2, a permutation after broadcast removal
        block_m, block_n = block
        if self.two_ctas and (not cga or list(cga[0]) != [1, 0]):
            raise EncodingError(
                f"{name}: twoCTAs layout requires the first CGALayout block basis to be "
                f"[1, 0], not {[list(b) for b in cga]}."
            )
        if block_m not in (64, 128):
            raise EncodingError(f"{name}: blockM must be 64 or 128 but got {block_m}.")
        if not is_power_of_2(block_n):
            raise EncodingError(f"{name}: blockN must be a power of 2 but got {block_n}.")
        if block_n > 512:
            raise EncodingError(
                f"{name}: blockN must be less than or equal to 512 but got {block_n}."
            )
        if self.col_stride not in (1, 2, 4) or isinstance(self.col_stride, bool):
            raise EncodingError(f"{name}: colStride must be 1, 2, or 4 but got {self.col_stride}.")
        if self.fp4_padded and self.col_stride != 1:
            raise EncodingError(
                f"{name}: fp4Padded tensor memory layout requires colStride 1 but got "
                f"{self.col_stride}."
            )
        object.__setattr__(self, "block", block)
        object.__setattr__(self, "cga_layout", cga)

    @property
    def rank(self) -> int:
        return 2

    def check_memdesc(
        self, shape: Sequence[int], alloc_shape: Sequence[int], bitwidth: int
    ) -> None:
        """Triton's MemDescType rules for a TMEM buffer of this encoding (errors name them)."""
        name = "TensorMemoryLayout"
        if bitwidth * self.col_stride > 32:
            raise EncodingError(
                f"{name}: bitwidth * colStride must be less than or equal to 32. Got "
                f"{bitwidth} and {self.col_stride}."
            )
        split = cta_split_num(self.cga_layout, 2)
        block_n = min(self.block[1], shape[-1])
        need = [self.block[0] * split[0], block_n * split[1]]
        if shape[-2] < need[0] or shape[-1] < need[1]:
            raise EncodingError(
                f"{name}: the tensor shape must be at least {need[0]}x{need[1]}. Got "
                f"{shape[-2]}, {shape[-1]}."
            )

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """``row, col, block -> dim0, dim1`` (Triton's ``tensorMemoryToLinearLayout``).

        The CTA tile is ``blockM`` rows by ``min(blockN, N per CTA)`` columns, each logical
        column ``col_stride`` physical columns apart; further tiles of the CTA's share go to
        more columns, M first.  blockM = 64 without two CTAs puts the 64 rows in the 16-row
        quarters of the 128 lanes, the upper half of each holding the next M (or N) tile.
        """
        name = "TensorMemoryLayout"
        dims = _check_shape_2d(shape, name)
        per_cta = shape_per_cta(dims, cta_split_num(self.cga_layout, 2))
        tile = self._cta_tile(per_cta)
        reps_m = per_cta[0] // tile.get_out_dim_size(_DIMS[0])
        reps_n = per_cta[1] // tile.get_out_dim_size(_DIMS[1])
        if reps_m < 1 or reps_n < 1:
            raise EncodingError(
                f"{name}: the shape {dims} is smaller than the TMEM tile "
                f"{tile.get_out_dim_size('dim0')}x{tile.get_out_dim_size('dim1')} per CTA."
            )
        tile = (
            tile
            * LinearLayout.identity_1d(reps_m, _COL, _DIMS[0])
            * LinearLayout.identity_1d(reps_n, _COL, _DIMS[1])
        )
        tile = tile.transpose_outs(_DIMS)
        return tile * cga_linear_layout(self.cga_layout, 2, name)

    def _cta_tile(self, per_cta: Sequence[int]) -> LinearLayout:
        """One TMEM tile ``row, col -> dim1, dim0``: blockM rows by ``min(blockN, N per
        CTA)`` logical columns, each ``col_stride`` physical columns apart."""
        block_m = self.block[0]
        block_n = min(self.block[1], per_cta[1])
        tile = LinearLayout.zeros_1d(self.col_stride, _COL, _DIMS[1])
        columns = LinearLayout.empty()
        if self.fp4_padded:
            # The low physical column bit picks the real or the padded half.
            columns = columns * LinearLayout.zeros_1d(2, _COL, _DIMS[1])
        columns = columns * LinearLayout.identity_1d(block_n, _COL, _DIMS[1])
        if block_m == 64 and not self.two_ctas:
            tile = tile * LinearLayout.identity_1d(16, _ROW, _DIMS[0]) * columns
            return _m64_in_quarters(tile, per_cta, block_n)
        tile = tile * LinearLayout.identity_1d(block_m, _ROW, _DIMS[0]) * columns
        if block_m == 64:  # two CTAs, M = 64: the top column bit moves to row 64
            return _top_column_bit_to_row_64(tile)
        return tile

    def ttgir(self) -> str:
        text = (
            f"#ttng.tensor_memory_encoding<blockM = {self.block[0]}, blockN = {self.block[1]}, "
            f"colStride = {self.col_stride}"
        )
        if self.cga_layout:
            text += f", CGALayout = {bases_text(self.cga_layout)}"
        if self.two_ctas:
            text += ", twoCTAs = true"
        if self.fp4_padded:
            text += ", fp4Padded = true"
        return text + ">"


@dataclass(frozen=True)
class TensorMemoryScalesLayout(Encoding):
    """``#ttng.tensor_memory_scales_encoding``: tcgen05.mma block-scale factors in TMEM.

    Args:
        cga_layout: CGA block bases.
        block_rep_order: the order of the repeated 128 x 4 blocks along the columns,
            ``"mnThenK"`` (default: M/N blocks first) or ``"kThenMn"`` (Triton 3.9's
            ``blockRepOrder``, Gluon's ``nvidia.rubin.TensorMemoryScalesLayout``).

    Examples:
        >>> TensorMemoryScalesLayout().to_linear_layout([128, 4]).bases[1]
        ('col', [[0, 1], [0, 2], [32, 0], [64, 0]])
        >>> TensorMemoryScalesLayout((), "kThenMn").to_linear_layout([256, 8]).bases[1][1][4:]
        [[0, 4], [128, 0]]
    """

    cga_layout: Sequence[Sequence[int]] = field(default_factory=tuple)
    block_rep_order: str = "mnThenK"

    mnemonic = "tensor_memory_scales_encoding"

    def __post_init__(self) -> None:
        cga = bases_list(self.cga_layout, "cga_layout", "TensorMemoryScalesLayout")
        cga_linear_layout(cga, 2, "TensorMemoryScalesLayout")
        object.__setattr__(self, "cga_layout", cga)
        if self.block_rep_order not in ("mnThenK", "kThenMn"):
            raise EncodingError(
                "TensorMemoryScalesLayout: Argument 'block_rep_order' must be 'mnThenK' or "
                f"'kThenMn', not {self.block_rep_order!r}."
            )

    @property
    def rank(self) -> int:
        return 2

    def check_memdesc(
        self, shape: Sequence[int], alloc_shape: Sequence[int], bitwidth: int
    ) -> None:
        """Triton's MemDescType rules for a scales buffer (8-bit elements)."""
        if len(alloc_shape) != 2:
            raise EncodingError(
                "TensorMemoryScalesLayout: Scales don't currently support multibuffering "
                f"(alloc shape {list(alloc_shape)})."
            )
        if bitwidth != 8:
            raise EncodingError(f"TensorMemoryScalesLayout: bitwidth must be 8, not {bitwidth}.")

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """32 lanes x 4 columns per 128 x 4 block (the 4 warps broadcast), blocks along the
        columns, MN first (PTX ISA "tcgen05 Matrix fragments: scale factor A/B")."""
        name = "TensorMemoryScalesLayout"
        dims = _check_shape_2d(shape, name)
        per_cta = shape_per_cta(dims, cta_split_num(self.cga_layout, 2))
        tile = (
            LinearLayout.identity_1d(32, _ROW, _DIMS[0])
            * LinearLayout.zeros_1d(4, _ROW, _DIMS[0])  # the 4 warps' lanes broadcast
            * LinearLayout.identity_1d(4, _COL, _DIMS[1])
            * LinearLayout.identity_1d(2, _COL, _DIMS[0])
        )
        reps_mn = -(-per_cta[0] // tile.get_out_dim_size(_DIMS[0]))
        reps_k = -(-per_cta[1] // tile.get_out_dim_size(_DIMS[1]))
        if reps_mn > 1:  # the two 64-row halves of a 128 x 4 block first
            tile *= LinearLayout.identity_1d(2, _COL, _DIMS[0])
            reps_mn //= 2
        mn = LinearLayout.identity_1d(reps_mn, _COL, _DIMS[0])
        k = LinearLayout.identity_1d(reps_k, _COL, _DIMS[1])
        reps = mn * k if self.block_rep_order == "mnThenK" else (k * mn).transpose_outs(_DIMS)
        tile = tile * reps * LinearLayout.identity_1d(1, _BLOCK, _DIMS[0])
        tile = ensure_layout_not_larger_than(tile, dict(zip(_DIMS, per_cta)))
        return tile * cga_linear_layout(self.cga_layout, 2, name)

    def ttgir(self) -> str:
        fields = []
        if self.cga_layout:
            fields.append(f"CGALayout = {bases_text(self.cga_layout)}")
        if self.block_rep_order != "mnThenK":
            fields.append(f"blockRepOrder = {self.block_rep_order}")
        return f"#ttng.tensor_memory_scales_encoding<{', '.join(fields)}>"


# ------------------------------------------------------------------ register layouts


def message_tile(atom: str) -> LinearLayout:
    """``register, lane -> row, col`` of one warp for one ``.x1`` tcgen05.ld/st message
    with 32-bit elements (Triton's ``getTileLayout``; PTX ISA 9.7.16.2.3.1 "Matrix
    fragments", lane ``l``, register ``r``; specs/tmem.py proves these):

    * 32x32b: row l, column r (one register per row);
    * 16x64b: row l / 4 + 8 (l % 2), column (l / 2) % 2;
    * 16x128b: row l / 4 + 8 (r % 2), column l % 4;
    * 16x256b: row l / 4 + 8 ((r / 2) % 2), column r % 2 + 2 (l % 4).
    ``16x32bx2`` (two 16-row halves) is used internally for the 32x32b atom.

    Examples:
        >>> message_tile("16x64b").bases
        [('register', []), ('lane', [[8, 0], [0, 1], [1, 0], [2, 0], [4, 0]])]
    """
    tile = LinearLayout.from_bases([("register", []), ("lane", [])], [_ROW, _COL])
    if atom == "32x32b":
        return tile * LinearLayout.identity_1d(32, "lane", _ROW)
    if atom == "16x32bx2":
        return tile * LinearLayout.identity_1d(16, "lane", _ROW)
    if atom == "16x64b":
        lanes = [[8, 0], [0, 1], [1, 0], [2, 0], [4, 0]]
        return tile * LinearLayout.from_bases([("lane", lanes)], [_ROW, _COL])
    if atom == "16x128b":
        return (
            tile
            * LinearLayout.identity_1d(4, "lane", _COL)
            * LinearLayout.identity_1d(8, "lane", _ROW)
            * LinearLayout.identity_1d(2, "register", _ROW)
        )
    if atom == "16x256b":
        return (
            tile
            * LinearLayout.identity_1d(2, "register", _COL)
            * LinearLayout.identity_1d(4, "lane", _COL)
            * LinearLayout.identity_1d(8, "lane", _ROW)
            * LinearLayout.identity_1d(2, "register", _ROW)
        )
    raise EncodingError(f"unknown TMEM access atom {shown(atom)} (known: {', '.join(ATOMS)}).")


def _nested(layout: LinearLayout) -> dict[str, list[list[int]]]:
    return {name: [list(b) for b in values] for name, values in layout.bases}


def _ld_st_layout(
    memory: LinearLayout, atom: str, num_warps: int, bitwidth: int
) -> LinearLayout | None:
    """Triton's ``getDistributedLayoutForTmemLdSt(ll, atom, numWarps, bitwidth)``."""
    if bitwidth != 32:
        return _ld_st_narrow(memory, atom, num_warps, bitwidth)
    tile = message_tile(atom)
    cols_missing = memory.get_in_dim_size(_COL) // tile.get_out_dim_size(_COL)
    if cols_missing == 0:
        return None
    instr_32_rows = atom == "32x32b"
    layout_16_rows = all(v == 0 for v in memory.get_basis(_ROW, 4))
    if not _message_fits(tile, memory, instr_32_rows):
        return None
    # Rows 16..31 of each warp: a warp bit (more than 4 warps) or a register bit.
    row16 = None
    if not instr_32_rows and not layout_16_rows:
        row16 = "warp" if num_warps > 4 else "register"
    warps_to_tile = num_warps // (8 if row16 == "warp" else 4)
    warp_broadcast = warps_to_tile // min(cols_missing, warps_to_tile)
    warps_to_tile //= warp_broadcast
    cols_missing //= warps_to_tile
    if cols_missing > 1:
        tile = _repeat_along_columns(tile, cols_missing, instr_32_rows and layout_16_rows)
    tile = _with_warps(tile, row16, warps_to_tile, warp_broadcast)
    tile = tile * LinearLayout.identity_1d(memory.get_in_dim_size(_BLOCK), _BLOCK, _BLOCK)
    assert tile.get_out_dim_size(_COL) == memory.get_in_dim_size(_COL)
    return tile.compose(memory)


def _ld_st_narrow(
    memory: LinearLayout, atom: str, num_warps: int, bitwidth: int
) -> LinearLayout | None:
    """:func:`_ld_st_layout` for elements narrower than 32 bits: packed into 32-bit
    registers where contiguous along the columns, else unpacked (16-bit) or padded in
    software; None where neither applies."""
    col, dim1 = _COL, memory.get_out_dim_names()[1]
    # Pack elements contiguous along the columns into 32-bit registers (b8/b16 -> b32).
    best, quotient, contig = 1, memory, 1
    while bitwidth * contig <= 32:
        divided = divide_left(memory, LinearLayout.identity_1d(contig, col, dim1))
        if divided is None:
            break
        best, quotient = contig, divided
        contig *= 2
    if best > 1:
        packed = _ld_st_layout(quotient, atom, num_warps, bitwidth * best)
        if packed is None:
            return None
        return LinearLayout.identity_1d(best, "register", dim1) * packed
    unpacked = divide_left(
        memory,
        LinearLayout.zeros_1d(32 // bitwidth, col, dim1) * LinearLayout.identity_1d(2, col, dim1),
    )
    if bitwidth == 16 and unpacked is not None:
        inner = _ld_st_layout(unpacked, atom, num_warps, 32)
        if inner is None:
            return None
        return LinearLayout.identity_1d(2, "register", dim1) * inner
    padded = divide_left(memory, LinearLayout.zeros_1d(32 // bitwidth, col, dim1))
    if padded is not None:  # software padding
        return _ld_st_layout(padded, atom, num_warps, 32)
    if memory.get_in_dim_size(col) == 1:
        return _ld_st_layout(memory, atom, num_warps, 32)
    return None  # e.g. fp4-padded layouts: no implicit (un)padding on load


def _message_fits(tile: LinearLayout, memory: LinearLayout, instr_32_rows: bool) -> bool:
    """Whether ``memory`` composed after the message tile is injective on the tile's
    registers and lanes (only lanes 0..15 for the 32x32b atom)."""
    # ll o tile must be left-divisible by the tile: no zero basis in register/lane.
    trivial_block = LinearLayout.identity_1d(1, _BLOCK, _BLOCK)
    composed = (
        (tile * trivial_block)
        .compose(memory)
        .sublayout(["register", "lane"], memory.get_out_dim_names())
    )
    if instr_32_rows:  # lane 16 will use the 16x32bx2 message
        composed = composed.resize_in_dim("lane", composed.get_in_dim_size("lane") // 2)
    return composed.is_injective()


def _repeat_along_columns(tile: LinearLayout, times: int, halve_rows: bool) -> LinearLayout:
    """The message tile repeated ``times`` along the columns in registers; ``halve_rows``
    (a 32x32b message of a 16-row layout): the 16x32bx2 message, lane 16 taking the other
    half of the columns."""
    if not halve_rows:
        return tile * LinearLayout.identity_1d(times, "register", _COL)
    # Lane 16 would load repeated rows: load the other half of N with 16x32bx2.
    halved = divide_left(tile, LinearLayout.identity_1d(2, "lane", _ROW))
    assert halved is not None
    return (
        halved
        * LinearLayout.identity_1d(times // 2, "register", _COL)
        * LinearLayout.identity_1d(2, "lane", _COL)
    )


def _with_warps(
    tile: LinearLayout, row16: str | None, warps_to_tile: int, warp_broadcast: int
) -> LinearLayout:
    """The warp-group tile ``register, lane, warp -> row, col``: warps 1 and 2 on rows 32
    and 64, rows 16..31 on ``row16`` (a warp or a register bit, if any), further warps along
    the columns, then broadcast."""
    tile = tile.transpose_outs([_ROW, _COL])
    bases = _nested(tile)
    bases.setdefault("warp", [])
    bases["warp"] += [[32, 0], [64, 0]]
    if row16 is not None:
        bases[row16].append([16, 0])
    tile = LinearLayout(
        list(bases.items()),
        [_ROW, _COL],
        [128, tile.get_out_dim_size(_COL)],
        require_surjective=False,
    )
    tile = tile * LinearLayout.identity_1d(warps_to_tile, "warp", _COL)
    return tile * LinearLayout.zeros_1d(warp_broadcast, "warp", _COL)


def _bitwidth(element: Any) -> int:
    if isinstance(element, int) and not isinstance(element, bool):
        return element
    if isinstance(element, str) and element in GLUON_DTYPE_BITS:
        return GLUON_DTYPE_BITS[element]
    width = getattr(element, "primitive_bitwidth", None)  # a Gluon dtype
    if isinstance(width, int):
        return width
    raise LayoutTypeError(
        f"Argument 'element' must be a bit width, a dtype name ({', '.join(GLUON_DTYPE_BITS)}) "
        f"or a Gluon dtype, not {shown(element)}."
    )


def _as_tmem_encoding(layout: Any) -> TensorMemoryLayout | TensorMemoryScalesLayout:
    if isinstance(layout, (TensorMemoryLayout, TensorMemoryScalesLayout)):
        return layout
    if type(layout).__name__ in ("TensorMemoryLayout", "TensorMemoryScalesLayout"):
        from llverify.encodings.gluon import from_gluon

        converted: TensorMemoryLayout | TensorMemoryScalesLayout = from_gluon(layout)
        return converted
    raise LayoutTypeError(
        f"Argument 'layout' must be a TensorMemoryLayout or TensorMemoryScalesLayout, not "
        f"{type(layout).__name__}."
    )


def _check_memdesc_shapes(shape: list[int], alloc: list[int]) -> None:
    """Triton's MemDescType rules on the shape and the allocation shape."""
    where = "tmem_register_layout"
    if len(shape) != 2:
        raise EncodingError(f"{where}: expected a 2D tensor, not shape {shape}.")
    if len(alloc) < len(shape):
        raise EncodingError(
            f"{where}: alloc shape must have at least as many dimensions as shape, got "
            f"{alloc} and {shape}."
        )
    for name, dims in (("shape", shape), ("alloc shape", alloc[-2:])):
        if not all(is_power_of_2(d) for d in dims):
            raise EncodingError(
                f"{where}: {name} must have power-of-2 and non-zero dimensions; got {dims}."
            )
    if any(s > a for s, a in zip(shape, alloc[-2:])):
        raise EncodingError(
            f"{where}: shape must be less than or equal to allocShape. shape = {shape}, "
            f"allocShape = {alloc}."
        )


def view_layout(
    encoding: TensorMemoryLayout | TensorMemoryScalesLayout,
    shape: Sequence[int],
    alloc_shape: Sequence[int],
) -> LinearLayout:
    """The TMEM layout of a ``shape`` view of an ``alloc_shape`` buffer: the allocation's
    layout with the coordinates beyond the view zeroed and the top column bits that then
    reach nothing dropped (a column subslice keeps its parent's column spacing).

    Examples:
        >>> enc = TensorMemoryLayout((128, 16), 1)
        >>> view_layout(enc, [256, 32], [512, 32]).bases[0]
        ('col', [[0, 1], [0, 2], [0, 4], [0, 8], [128, 0], [0, 0], [0, 16]])
    """
    memory = encoding.to_linear_layout(list(alloc_shape)[-2:])
    for out_dim, size in zip(_DIMS, shape):
        memory = memory.resize_out_dim(out_dim, size)
    columns = memory.get_in_dim_size(_COL)
    while columns > 1 and not any(memory.get_basis(_COL, columns.bit_length() - 2)):
        columns //= 2
    return memory.resize_in_dim(_COL, columns)


def tmem_register_layout(
    element: Any,
    shape: Sequence[int],
    layout: Any,
    num_warps: int,
    instr_variant: str = "32x32b",
    alloc_shape: Sequence[int] | None = None,
) -> DistributedLinearLayout | None:
    """The register layout of a tcgen05.ld/st of a TMEM buffer, as Gluon's
    ``get_reg_layout(num_warps, instr_variant)`` computes it, or None where Triton has none.

    Args:
        element: the element type: a bit width, a dtype name ("float16") or a Gluon dtype.
        shape: the buffer's [M, N].
        layout: a :class:`TensorMemoryLayout` / :class:`TensorMemoryScalesLayout` (or the
            Gluon object).
        num_warps: a power of 2, at least 4.
        instr_variant: "32x32b", "16x64b", "16x128b", "16x256b" or "32x32b_splitn".
        alloc_shape: the allocation shape (default ``shape``); a leading dim is a buffer count.

    Examples:
        >>> enc = TensorMemoryLayout((128, 64), 1)
        >>> reg = tmem_register_layout(32, [128, 64], enc, 4)
        >>> reg.lane_bases, reg.warp_bases, len(reg.reg_bases)
        (((1, 0), (2, 0), (4, 0), (8, 0), (16, 0)), ((32, 0), (64, 0)), 6)
    """
    encoding = _as_tmem_encoding(layout)
    _check_message(instr_variant, num_warps)
    bitwidth = _bitwidth(element)
    dims = list(int_list(shape, "shape", "tmem_register_layout"))
    if len(dims) != 2:
        raise EncodingError(f"tmem_register_layout: expected a 2D tensor, not shape {dims}.")
    alloc = dims if alloc_shape is None else list(int_list(alloc_shape, "alloc_shape", "TMEM"))
    _check_memdesc_shapes(dims, alloc)
    encoding.check_memdesc(dims, alloc, bitwidth)
    splitn = instr_variant == "32x32b_splitn"
    atom = "32x32b" if splitn else instr_variant
    memory = view_layout(encoding, dims, alloc)
    result = _ld_st_layout(memory, atom, num_warps, bitwidth)
    if result is None:
        return None
    bases = _nested(result)
    if splitn:
        _split_n(bases, dims[1], bitwidth)
    out_sizes = result.get_out_dim_sizes()
    return DistributedLinearLayout(
        bases["register"], bases["lane"], bases["warp"], bases["block"], out_sizes
    )


def _check_message(instr_variant: Any, num_warps: Any) -> None:
    """The message shape is one of :data:`INSTR_VARIANTS`; the warps a power of 2, >= 4."""
    if not isinstance(instr_variant, str) or instr_variant not in INSTR_VARIANTS:
        raise EncodingError(
            f"unknown instr_variant: {shown(instr_variant)} (known: {INSTR_VARIANTS})."
        )
    if (
        isinstance(num_warps, bool)
        or not isinstance(num_warps, int)
        or num_warps < 4
        or not is_power_of_2(num_warps)
    ):
        raise EncodingError(f"num_warps must be a power of two and >= 4, not {shown(num_warps)}.")


def _split_n(bases: dict[str, list[list[int]]], n: int, bitwidth: int) -> None:
    """Gluon's ``32x32b_splitn``: make the last register basis [0, N/2] (for tl.split)."""
    half = [0, n // 2]
    registers = bases["register"]
    if not registers:
        if bases["lane"][-1] != half:
            raise EncodingError(
                f"splitn with 1 register requires the last lane basis to be {half}, not "
                f"{bases['lane'][-1]}."
            )
        registers.append(half)
        bases["lane"][-1] = [0, 0]
        return
    if registers[-1] == half:
        return
    if 2 ** len(registers) <= 32 // bitwidth:
        raise EncodingError(
            f"To be able to `tmem.load` into `tl.split` you need to have more than "
            f"{32 // bitwidth} {bitwidth}-bit registers, as you need to use the instruction "
            f"32x32b.x1 twice."
        )
    for name in ("lane", "warp"):
        for i, basis in enumerate(bases[name]):
            if name == "warp" and i < 2:  # the first 4 warps have their own rows
                continue
            if basis == half:
                registers[-1], bases[name][i] = bases[name][i], registers[-1]
                return
    raise EncodingError(
        f"splitn requires at least one basis of the form {half} in the lane or warp[2:] bases."
    )


# ---------------------------------------------------------------------- registrations


def _tmem_from_ttgir(fields: dict[str, Any], attribute: Any) -> TensorMemoryLayout:
    block = [attribute.take("blockM"), attribute.take("blockN")]
    return TensorMemoryLayout(
        block,
        attribute.take("colStride", 1),
        attribute.take("CGALayout", []),
        attribute.take("twoCTAs", False),
        attribute.take("fp4Padded", False),
    )


def _scales_from_ttgir(fields: dict[str, Any], attribute: Any) -> TensorMemoryScalesLayout:
    return TensorMemoryScalesLayout(
        attribute.take("CGALayout", []), attribute.take("blockRepOrder", "mnThenK")
    )


register("tensor_memory_encoding", _tmem_from_ttgir)
register("tensor_memory_scales_encoding", _scales_from_ttgir)
register_gluon(
    "TensorMemoryLayout",
    lambda g: TensorMemoryLayout(
        tuple(g.block), g.col_stride, g.cga_layout, bool(g.two_ctas), bool(g.fp4_padded)
    ),
)
register_gluon(
    "TensorMemoryScalesLayout",
    lambda g: TensorMemoryScalesLayout(g.cga_layout, getattr(g, "block_rep_order", "mnThenK")),
)
