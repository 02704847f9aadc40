"""Intel XPU encodings (``#ttig.dpas``, its dot operands and scales, ``#ttig.subgroup_2d_block``,
``#ttig.warp``) as intel-xpu-backend-for-triton builds them.

Facts transcribed (never code) from intel/intel-xpu-backend-for-triton at its newest release
tag, v3.7.2 (commit 933a430299f705a1834670495060016ebd34fd83):

* third_party/intel/lib/Dialect/TritonIntelGPU/IR/LinearLayoutConversions.cpp:
  ``DPASRegBasesA/B/C``, ``DPASLaneBasesA/B/C``, ``DPAStoLinearLayout`` (operands A = 0,
  B = 1, C = 2), ``BlockScaledDPAStoLinearLayout`` (scales of A = 3 and B = 4),
  ``subgroup2DBlockToLinearLayout``;
* third_party/intel/lib/Dialect/TritonIntelGPU/IR/Dialect.cpp: ``DpasEncodingAttr::verify``,
  ``parse`` / ``print`` (``A``, ``B``, ``C`` are printed, and ignored when parsed),
  ``Subgroup2DBlockEncodingAttr::verify`` / ``parse`` / ``print``, ``WarpEncodingAttr``
  (whose ``toLinearLayout`` is "NYI": it has no linear layout);
* third_party/intel/lib/TritonIntelGPUTransforms/Utility.cpp: ``calculateDPASInstShapeA/B/C``,
  ``calculateShapeA/B/C`` and ``calculateDPASRepetitions``;
* lib/Dialect/TritonGPU/IR/Dialect.cpp, ``DotOperandEncodingAttr::verify``: the kWidth of a
  DPAS parent's operands; lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp: a dot operand
  with a DPAS parent is ``DPAStoLinearLayout(shape, parent, opIdx)`` (kWidth plays no part).

One DPAS instruction multiplies an ``M x K`` A by a ``K x N`` B into an ``M x N`` C with
``M = repeatCount``, ``N = executionSize`` and ``K = systolicDepth * opsPerChan``; a sub-group
(Triton's warp) of ``threadsPerWarp`` lanes holds each operand row-major, one lane per
column, 8-bit A values packed in pairs per lane.  ``repCluster``
repeats the instruction tile in registers (A along M, B along N, C along both), the warps
tile the result (operands broadcast along K), and registers repeat the whole to the shape,
K first.  The closed forms of one instruction, from Intel's SPIR-V and OpenCL documents,
are in :mod:`llverify.specs.intel_dpas`.

Deliberate differences from the backend (each raises an ``EncodingError`` naming the rule):
parameters that must be powers of 2 for a linear layout (repeatCount, executionSize,
threadsPerWarp, warpsPerCTA, repCluster), repCluster of the layout's rank, the fields the
parser would default to 0 are required, and printed ``A``/``B``/``C`` shapes that disagree
with the other fields are refused (the backend ignores them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from llverify.bits import is_power_of_2
from llverify.encodings.base import (
    Encoding,
    EncodingError,
    cga_from_split_params,
    cga_linear_layout,
    check_shape,
    combine_cta_cga_with_shape,
    int_list,
    list_text,
    require_permutation,
    require_powers_of_2,
)
from llverify.encodings.blocked import broadcasted_dot_operand_layout
from llverify.encodings.gluon import register_gluon
from llverify.encodings.ttgir import register
from llverify.errors import LayoutTypeError, shown
from llverify.layout import LinearLayout
from llverify.layout_utils import standard_out_dim_names

__all__ = [
    "DpasLayout",
    "IntelWarpLayout",
    "Subgroup2DBlockLayout",
    "dpas_repetitions",
]

_NAME = "DpasLayout"
#: ``DpasEncodingAttr::verify``: the only systolic depth.
SYSTOLIC_DEPTH = 8
#: ``DpasEncodingAttr::verify``: opsPerChan values (32-bit, 16-bit, 8-bit A/B elements).
OPS_PER_CHANNEL = (1, 2, 4)

Bases = list[list[int]]


def _identity(size: int, in_dim: str, out_dim: str) -> LinearLayout:
    return LinearLayout.identity_1d(size, in_dim, out_dim)


def _uint(value: Any, name: str, encoding: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LayoutTypeError(f"{encoding}: '{name}' must be an int, not {shown(value)}.")
    if value < 0:
        raise EncodingError(f"{encoding}: '{name}' is unsigned and cannot be {value}.")
    return value


# ---------------------------------------------------------------------- instruction tiles
# Bases are (row, column) of the last two dims, as in the backend's DPASRegBases* helpers.


def _tile_a(ops: int, repeat: int, threads: int, depth: int) -> tuple[Bases, Bases]:
    """``DPASRegBasesA`` / ``DPASLaneBasesA``: 8-bit values packed in pairs per lane, the
    packed columns of a row over the lanes, then further rows over the lanes and registers."""
    packed = 2 if ops == 4 else 1
    columns = depth * ops // packed
    rows_per_warp = -(-threads // columns)
    registers = [[0, opc] for opc in _powers(1, packed)]
    registers += [[w * rows_per_warp, 0] for w in _powers(1, repeat // rows_per_warp)]
    lanes = [[0, packed * t] for t in _powers(1, columns)]
    lanes += [[t // columns, 0] for t in _powers(columns, threads)]
    return registers, lanes


def _tile_b(ops: int, execution: int, threads: int, depth: int) -> tuple[Bases, Bases]:
    """``DPASRegBasesB`` / ``DPASLaneBasesB``: opsPerChan rows in registers (the packed
    "VNNI" column), one lane per column, lanes beyond executionSize on the next rows."""
    rows_per_warp = threads // execution
    registers = [[opc, 0] for opc in _powers(1, ops)]
    registers += [[rid * ops, 0] for rid in _powers(rows_per_warp, depth)]
    lanes = [[0, t] for t in _powers(1, execution)]
    lanes += [[row * ops, 0] for row in _powers(1, rows_per_warp)]
    return registers, lanes


def _tile_c(repeat: int, execution: int, threads: int) -> tuple[Bases, Bases]:
    """``DPASRegBasesC`` / ``DPASLaneBasesC``: one lane per column, lanes beyond
    executionSize on the next rows, the remaining rows in registers."""
    rows_per_warp = threads // execution
    registers = [[rid, 0] for rid in _powers(rows_per_warp, repeat)]
    lanes = [[0, t] for t in _powers(1, execution)]
    lanes += [[row, 0] for row in _powers(1, rows_per_warp)]
    return registers, lanes


def _powers(start: int, stop: int) -> list[int]:
    """``start, 2 start, 4 start, ...`` below ``stop`` (the backend's ``for (x = start;
    x < stop; x *= 2)`` loops).

    >>> _powers(1, 8), _powers(2, 8), _powers(16, 16)
    ([1, 2, 4], [2, 4], [])
    """
    values = []
    while start < stop:
        values.append(start)
        start *= 2
    return values


def dpas_repetitions(
    shape: Sequence[int], operand: int, warps: Sequence[int], shape_per_warp: Sequence[int]
) -> list[int]:
    """``calculateDPASRepetitions``: ``[batch, rows, columns]`` repetitions of the per-warp
    tile ``shape_per_warp`` (``calculateShapeA/B/C``) to cover ``shape``, at least 1; the
    warps divide every dim but K (A's columns, B's rows).

    Examples:
        >>> dpas_repetitions([64, 64], 0, [2, 2], [32, 16])
        [1, 1, 4]
        >>> dpas_repetitions([2, 64, 64], 2, [2, 2, 2], [1, 16, 16])
        [1, 2, 2]
    """
    rank = len(shape)
    row_warps = 1 if operand == 1 else warps[rank - 2]
    column_warps = 1 if operand == 0 else warps[rank - 1]
    batch = max(1, shape[0] // (shape_per_warp[0] * warps[0])) if rank == 3 else 1
    return [
        batch,
        max(1, shape[rank - 2] // (shape_per_warp[rank - 2] * row_warps)),
        max(1, shape[rank - 1] // (shape_per_warp[rank - 1] * column_warps)),
    ]


# ---------------------------------------------------------------------- the encoding


@dataclass(frozen=True)
class DpasLayout(Encoding):
    """``#ttig.dpas``: the C/D (accumulator) layout of Intel DPAS (XMX) instructions; the
    parent of the A and B dot operands.

    Args:
        repeat_count: M of one instruction, in [1, 8].
        systolic_depth: 8 (the only depth the backend accepts).
        execution_size: N of one instruction (16 on Xe-HPC and Xe2, 8 on Xe-HPG).
        ops_per_channel: 4, 2 or 1 for 8-, 16- or 32-bit A/B elements (K = depth * ops).
        warps_per_cta: warps per dim (rank 2, or 3 with a batch dim).
        rep_cluster: instruction tiles a warp repeats per dim, clustered.
        threads_per_warp: the sub-group size, at least ``execution_size``.
        fp4_k_pack: 2 when fp4 values are packed in pairs along K (needs ops 4); else None.

    Examples:
        >>> dpas = DpasLayout(8, 8, 16, 2, [1, 1], [1, 1], 16)
        >>> dict(dpas.to_linear_layout([8, 16]).bases)["lane"]
        [[0, 1], [0, 2], [0, 4], [0, 8]]
        >>> dpas.ttgir()  # doctest: +NORMALIZE_WHITESPACE
        '#ttig.dpas<{repeatCount = 8, systolicDepth = 8, executionSize = 16, opsPerChan = 2,
        threadsPerWarp = 16, warpsPerCTA = [1, 1], repCluster = [1, 1], A = [8, 16],
        B = [16, 16], C = [8, 16]}>'
    """

    repeat_count: int
    systolic_depth: int
    execution_size: int
    ops_per_channel: int
    warps_per_cta: Sequence[int]
    rep_cluster: Sequence[int]
    threads_per_warp: int
    fp4_k_pack: int | None = None

    mnemonic = "dpas"

    def __post_init__(self) -> None:
        for name in ("repeat_count", "systolic_depth", "execution_size", "ops_per_channel"):
            _uint(getattr(self, name), name, _NAME)
        threads = _uint(self.threads_per_warp, "threads_per_warp", _NAME)
        warps = int_list(self.warps_per_cta, "warps_per_cta", _NAME)
        cluster = int_list(self.rep_cluster, "rep_cluster", _NAME)
        # DpasEncodingAttr::verify, in its order.
        if not 1 <= self.repeat_count <= 8:
            raise EncodingError(
                f"{_NAME}: repeatCount must be in the range [1, 8], but was {self.repeat_count}."
            )
        if self.ops_per_channel not in OPS_PER_CHANNEL:
            raise EncodingError(
                f"{_NAME}: opsPerChannel must be 1, 2 or 4, but was {self.ops_per_channel}."
            )
        if self.systolic_depth != SYSTOLIC_DEPTH:
            raise EncodingError(f"{_NAME}: systolicDepth must be 8, but was {self.systolic_depth}.")
        if len(cluster) not in (2, 3):
            raise EncodingError(
                f"{_NAME}: expected rank 2 or 3 of repCluster, but the rank is {len(cluster)}."
            )
        if threads < self.execution_size:
            raise EncodingError(
                f"{_NAME}: threadsPerWarp could not be smaller than the execution size, got "
                f"threadsPerWarp {threads} and executionSize {self.execution_size}."
            )
        if self.fp4_k_pack is not None:
            pack = _uint(self.fp4_k_pack, "fp4_k_pack", _NAME)
            if pack != 2:
                raise EncodingError(f"{_NAME}: fp4KPack must be 2, but was {pack}.")
            if self.ops_per_channel != 4:
                raise EncodingError(
                    f"{_NAME}: opsPerChannel must be 4 for the fp4 type, but was "
                    f"{self.ops_per_channel}."
                )
        self._check_linear(warps, cluster)
        object.__setattr__(self, "warps_per_cta", warps)
        object.__setattr__(self, "rep_cluster", cluster)

    def _check_linear(self, warps: Sequence[int], cluster: Sequence[int]) -> None:
        """What a linear layout needs beyond the verifier: DPAStoLinearLayout asserts the
        ranks, identity1D powers of 2."""
        if len(warps) != len(cluster):
            raise EncodingError(
                f"{_NAME}: warps_per_cta {list(warps)} and rep_cluster {list(cluster)} must "
                f"have one rank (DPAStoLinearLayout asserts it)."
            )
        for name, value in (
            ("repeat_count", self.repeat_count),
            ("execution_size", self.execution_size),
            ("threads_per_warp", self.threads_per_warp),
        ):
            if not is_power_of_2(value):
                raise EncodingError(
                    f"{_NAME}: '{name}' = {value} must be a power of 2 for a linear layout."
                )
        require_powers_of_2(warps, "warps_per_cta", _NAME)
        require_powers_of_2(cluster, "rep_cluster", _NAME)

    @property
    def rank(self) -> int:
        return len(self.warps_per_cta)

    # ------------------------------------------------------------------ shapes

    @property
    def instruction_k(self) -> int:
        """K of one instruction: ``systolicDepth * opsPerChan``."""
        return self.systolic_depth * self.ops_per_channel

    def instruction_shape(self, operand: int) -> tuple[int, int]:
        """``getDPASInstShapeA/B/C`` (operand 0, 1, 2): ``(M, K)``, ``(K, N)``, ``(M, N)``.

        Examples:
            >>> DpasLayout(8, 8, 16, 4, [1, 1], [1, 1], 16).instruction_shape(0)
            (8, 32)
        """
        m, n, k = self.repeat_count, self.execution_size, self.instruction_k
        return ((m, k), (k, n), (m, n))[_operand(operand, 2)]

    def shape_per_warp(self, operand: int) -> list[int]:
        """``getShapeA/B/C``: the instruction shape times the operand's repCluster
        (A along M, B along N, C along both), 1 on the batch dim."""
        rows, columns = self.instruction_shape(operand)
        rank = self.rank
        result = [1] * rank
        result[rank - 2] = rows * (self.rep_cluster[rank - 2] if operand != 1 else 1)
        result[rank - 1] = columns * (self.rep_cluster[rank - 1] if operand != 0 else 1)
        return result

    # ------------------------------------------------------------------ layouts

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        return self.operand_layout(2, shape)

    def operand_layout(self, operand: int, shape: Sequence[int]) -> LinearLayout:
        """``DPAStoLinearLayout(shape, dpas, operand)``: operand 0 (A), 1 (B) or 2 (C).

        Examples:
            >>> dpas = DpasLayout(8, 8, 16, 2, [1, 1], [1, 1], 32)
            >>> dict(dpas.operand_layout(1, [16, 16]).bases)["register"]
            [[1, 0], [4, 0], [8, 0]]
        """
        operand = _operand(operand, 2)
        rank = self.rank
        dims = check_shape(shape, rank, _NAME)
        names = standard_out_dim_names(rank)
        threads = self.threads_per_warp
        warps, cluster = self.warps_per_cta, self.rep_cluster
        row, column = rank - 2, rank - 1
        if operand == 0:
            bases = _tile_a(self.ops_per_channel, self.repeat_count, threads, self.systolic_depth)
        elif operand == 1:
            bases = _tile_b(self.ops_per_channel, self.execution_size, threads, self.systolic_depth)
        else:
            bases = _tile_c(self.repeat_count, self.execution_size, threads)
        tile = LinearLayout.from_bases([("register", bases[0]), ("lane", bases[1])], names[row:])
        if operand == 0:  # A repeats along M only; the warps along N share A
            k_dim, non_k = column, row
            tile = tile * _identity(cluster[non_k], "register", names[non_k])
            tile = tile * LinearLayout.zeros_1d(warps[k_dim], "warp", names[k_dim])
            tile = tile * _identity(warps[non_k], "warp", names[non_k])
        elif operand == 1:  # B repeats along N only; the warps along M share B
            k_dim, non_k = row, column
            tile = tile * _identity(cluster[non_k], "register", names[non_k])
            tile = tile * _identity(warps[non_k], "warp", names[non_k])
            tile = tile * LinearLayout.zeros_1d(warps[k_dim], "warp", names[k_dim])
        else:  # C repeats along N, then M; warps N first
            k_dim, non_k = column, row
            tile = tile * _identity(cluster[k_dim], "register", names[k_dim])
            tile = tile * _identity(cluster[non_k], "register", names[non_k])
            tile = tile * _identity(warps[k_dim], "warp", names[k_dim])
            tile = tile * _identity(warps[non_k], "warp", names[non_k])
        if rank == 3:
            tile = tile * _identity(warps[0], "warp", names[0])
        reps = dpas_repetitions(dims, operand, warps, self.shape_per_warp(operand))
        tile = tile * _identity(reps[k_dim - rank + 3], "register", names[k_dim])
        tile = tile * _identity(reps[non_k - rank + 3], "register", names[non_k])
        if rank == 3:
            tile = tile * _identity(reps[0], "register", names[0])
        return combine_cta_cga_with_shape(tile, cga_linear_layout([], rank, _NAME), dims)

    def scale_layout(
        self, operand: int, shape: Sequence[int], scale_k_index: int = -1
    ) -> LinearLayout:
        """``BlockScaledDPAStoLinearLayout``: operands 0-2 as :meth:`operand_layout`; 3 and
        4 the scales of A and B of a block-scaled DPAS (repeatCount 8, executionSize 16,
        the K dim of the scale tensor last): one scale per row of A (per column of B) and K
        block, 8 (16) lanes, the other lanes duplicates, a second K block in a register when
        opsPerChan (times fp4KPack) is 8.

        Examples:
            >>> dpas = DpasLayout(8, 8, 16, 4, [2, 2], [4, 2], 16)
            >>> dict(dpas.scale_layout(4, [128, 2]).bases)["register"]
            [[16, 0], [0, 1], [64, 0]]
        """
        self._check_scale(operand, scale_k_index)
        if operand < 3:
            return self.operand_layout(operand, shape)
        rank = self.rank
        dims = check_shape(shape, rank, _NAME)
        names = standard_out_dim_names(rank)
        ops = self.ops_per_channel * (self.fp4_k_pack or 1)
        scale_k, scale_non_k = rank - 1, rank - 2
        registers = [[0, 1]] if ops == 8 else []
        extent = self.repeat_count if operand == 3 else self.execution_size
        lanes = [[t, 0] for t in _powers(1, extent)]
        lanes += [[0, 0] for _ in _powers(max(extent, 1), self.threads_per_warp)]
        tile = LinearLayout.from_bases([("register", registers), ("lane", lanes)], names[-2:])
        warps, cluster = self.warps_per_cta, self.rep_cluster
        if operand == 3:  # the DPAS non-K dim is M (rank - 2), K is rank - 1
            tile = tile * _identity(cluster[rank - 2], "register", names[scale_non_k])
            tile = tile * LinearLayout.zeros_1d(warps[rank - 1], "warp", names[scale_k])
            tile = tile * _identity(warps[rank - 2], "warp", names[scale_non_k])
        else:  # the DPAS non-K dim is N (rank - 1), K is rank - 2
            tile = tile * _identity(cluster[rank - 1], "register", names[scale_non_k])
            tile = tile * _identity(warps[rank - 1], "warp", names[scale_non_k])
            tile = tile * LinearLayout.zeros_1d(warps[rank - 2], "warp", names[scale_k])
        if rank == 3:
            tile = tile * _identity(warps[0], "warp", names[0])
        reps = [-(-d // tile.get_out_dim_size(names[i])) for i, d in enumerate(dims)]
        tile = tile * _identity(reps[scale_k], "register", names[scale_k])
        tile = tile * _identity(reps[scale_non_k], "register", names[scale_non_k])
        if rank == 3:
            tile = tile * _identity(reps[0], "register", names[0])
        return combine_cta_cga_with_shape(tile, cga_linear_layout([], rank, _NAME), dims)

    def _check_scale(self, operand: Any, scale_k_index: Any) -> None:
        """``BlockScaledDPAStoLinearLayout``'s assertions, in its order."""
        if isinstance(operand, bool) or operand not in (0, 1, 2, 3, 4):
            raise EncodingError(
                f"{_NAME}: block-scaled operand must be 0 (A), 1 (B), 2 (C), 3 (scale A) or "
                f"4 (scale B), not {shown(operand)}."
            )
        if self.repeat_count != 8:
            raise EncodingError(
                f"{_NAME}: block-scaled DPAS only supports repeatCount 8, not {self.repeat_count}."
            )
        if operand < 3:
            return
        ops = self.ops_per_channel * (self.fp4_k_pack or 1)
        if ops not in (2, 4, 8):
            raise EncodingError(
                f"{_NAME}: block-scaled DPAS supports opsPerChannel (times fp4KPack) 2, 4 or "
                f"8, not {ops}."
            )
        if scale_k_index not in (-1, self.rank - 1):
            raise EncodingError(
                f"{_NAME}: the K dim of a block scale must be the last dim ({self.rank - 1} "
                f"or -1), not {shown(scale_k_index)}."
            )
        if operand == 4 and self.execution_size != 16:
            raise EncodingError(
                f"{_NAME}: block-scaled DPAS only supports executionSize 16 for the scale "
                f"of B, not {self.execution_size}."
            )

    # ------------------------------------------------------------------ dot operands

    def validate_dot_operand(self, operand_index: int, k_width: int) -> None:
        """``DotOperandEncodingAttr::verify`` for a DPAS parent: A's kWidth is opsPerChan / 2
        (1 for opsPerChan 1) and its rows must fill the sub-group; B's kWidth is
        opsPerChan."""
        if isinstance(k_width, bool) or not isinstance(k_width, int):
            raise LayoutTypeError(
                f"DotOperandLayout: 'k_width' must be an int, not {shown(k_width)}."
            )
        ops = self.ops_per_channel
        expected = (1 if ops == 1 else ops // 2) if operand_index == 0 else ops
        if k_width != expected:
            raise EncodingError(
                f"DotOperandLayout: ttg.dot_op kWidth parameter must match the parent's "
                f"opsPerChannel: kWidth {expected} for operand {operand_index} with "
                f"opsPerChan {ops}, not {k_width}."
            )
        if operand_index == 0:
            packed_per_row = self.systolic_depth if ops == 1 else self.systolic_depth * 2
            if self.repeat_count * packed_per_row < self.threads_per_warp:
                raise EncodingError(
                    f"DotOperandLayout: the DPAS encoding implies an invalid layout for the A "
                    f"operand: repeatCount {self.repeat_count} x {packed_per_row} packed "
                    f"elements per row is less than threadsPerWarp {self.threads_per_warp}."
                )

    def dot_operand_layout(
        self, operand_index: int, k_width: int, shape: Sequence[int]
    ) -> LinearLayout:
        """``dotOperandDpasToLinearLayout``: :meth:`operand_layout` of the operand."""
        return self.operand_layout(operand_index, shape)

    # ------------------------------------------------------------------ text

    def ttgir(self) -> str:
        a, b, c = (list_text(self.shape_per_warp(op)) for op in (0, 1, 2))
        pack = f"fp4KPack = {self.fp4_k_pack}, " if self.fp4_k_pack is not None else ""
        return (
            f"#ttig.dpas<{{repeatCount = {self.repeat_count}, systolicDepth = "
            f"{self.systolic_depth}, executionSize = {self.execution_size}, opsPerChan = "
            f"{self.ops_per_channel}, {pack}threadsPerWarp = {self.threads_per_warp}, "
            f"warpsPerCTA = {list_text(self.warps_per_cta)}, repCluster = "
            f"{list_text(self.rep_cluster)}, A = {a}, B = {b}, C = {c}}}>"
        )


def _operand(operand: Any, highest: int) -> int:
    if isinstance(operand, bool) or operand not in range(highest + 1):
        names = "0 (A), 1 (B) or 2 (C)"
        raise EncodingError(f"{_NAME}: 'operand' must be {names}, not {shown(operand)}.")
    return int(operand)


# ---------------------------------------------------------------------- 2D block IO


_SDB = "Subgroup2DBlockLayout"


@dataclass(frozen=True)
class Subgroup2DBlockLayout(Encoding):
    """``#ttig.subgroup_2d_block``: a tensor loaded by Intel's sub-group 2D block reads
    (SPV_INTEL_2d_block_io): ``num_blocks`` blocks of ``instr_shape`` (height, width) per
    read, row-major over the lanes, the warps broadcast along ``order[0]``.

    Examples:
        >>> sdb = Subgroup2DBlockLayout([8, 4], [32, 16], 1, [0, 1], 4, 16)
        >>> dict(sdb.to_linear_layout([32, 128]).bases)["warp"]
        [[0, 16], [0, 32], [0, 0], [0, 0], [0, 0]]
    """

    warps_per_cta: Sequence[int]
    instr_shape: Sequence[int]
    num_blocks: int
    order: Sequence[int]
    k_width: int
    threads_per_warp: int
    cga_layout: Sequence[Sequence[int]] = field(default_factory=tuple)

    mnemonic = "subgroup_2d_block"

    def __post_init__(self) -> None:
        warps = int_list(self.warps_per_cta, "warps_per_cta", _SDB)
        instr = int_list(self.instr_shape, "instr_shape", _SDB)
        order = int_list(self.order, "order", _SDB)
        blocks = _uint(self.num_blocks, "num_blocks", _SDB)
        k_width = _uint(self.k_width, "k_width", _SDB)
        threads = _uint(self.threads_per_warp, "threads_per_warp", _SDB)
        # Subgroup2DBlockEncodingAttr::verify, in its order.
        for name, value in (("instrShape", instr), ("order", order), ("warpsPerCTA", warps)):
            if len(value) != 2:
                raise EncodingError(f"{_SDB}: {name} must be rank 2 but was {len(value)}.")
        if k_width not in (1, 2, 4):
            raise EncodingError(f"{_SDB}: kWidth must be 1, 2 or 4, but was {k_width}.")
        if threads != 16:
            raise EncodingError(f"{_SDB}: threadsPerWarp must be 16, but was {threads}.")
        require_permutation(order, "order", _SDB)
        require_powers_of_2(warps, "warps_per_cta", _SDB)
        require_powers_of_2(instr, "instr_shape", _SDB)
        require_powers_of_2([blocks], "num_blocks", _SDB)
        cga_linear_layout(self.cga_layout, 2, _SDB)
        for name, value in (("warps_per_cta", warps), ("instr_shape", instr), ("order", order)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "cga_layout", tuple(tuple(b) for b in self.cga_layout))

    @property
    def rank(self) -> int:
        return 2

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """``subgroup2DBlockToLinearLayout``: the block's rows over registers and lanes
        (``createRegisterLaneBases``), the blocks along dim 1, warps broadcast along
        ``order[0]``."""
        dims = check_shape(shape, 2, _SDB)
        height, width = self.instr_shape
        threads = self.threads_per_warp
        per_lane = -(-width // threads)
        lanes = [[0, i] for i in _powers(per_lane, width)]
        rows_per_warp = -(-threads // (1 << len(lanes)))
        lanes += [[i, 0] for i in _powers(1, rows_per_warp)]
        registers = [[0, i] for i in _powers(1, per_lane)]
        registers += [[i * rows_per_warp, 0] for i in _powers(1, height // rows_per_warp)]
        names = standard_out_dim_names(2)
        tile = LinearLayout.from_bases([("register", registers), ("lane", lanes)], names)
        tile = tile * _identity(self.num_blocks, "register", names[1])
        warps = broadcasted_dot_operand_layout(self.warps_per_cta, [1, 0], self.order[0], "warp")
        tile = tile * warps.transpose_outs(tile.get_out_dim_names())
        cga = cga_linear_layout(self.cga_layout, 2, _SDB)
        return combine_cta_cga_with_shape(tile, cga, dims)

    def ttgir(self) -> str:
        if any(any(b) for b in self.cga_layout):
            raise EncodingError(
                f"{_SDB}: the TTGIR text of a multi-CTA layout (CTAsPerCGA, CTASplitNum, "
                f"CTAOrder) is not printed by llverify."
            )
        return (
            f"#ttig.subgroup_2d_block<{{warpsPerCTA = {list_text(self.warps_per_cta)}, "
            f"instrShape = {list_text(self.instr_shape)}, numBlocks={self.num_blocks}, "
            f"order={list_text(self.order)}, kWidth={self.k_width}, "
            f"threadsPerWarp={self.threads_per_warp}}}>"
        )


# ---------------------------------------------------------------------- #ttig.warp


_WARP = "IntelWarpLayout"


@dataclass(frozen=True)
class IntelWarpLayout(Encoding):
    """``#ttig.warp``: sizePerThread, threadsPerWarp and order of one warp.  The backend
    has no linear layout for it (``WarpEncodingAttr::toLinearLayout`` is "NYI"), so
    :meth:`to_linear_layout` raises: anything built on it stays unknown.

    Examples:
        >>> IntelWarpLayout([1, 4], [8, 2], [1, 0]).ttgir()
        '#ttig.warp<{sizePerThread = [1, 4], threadsPerWarp = [8, 2], order = [1, 0]}>'
    """

    size_per_thread: Sequence[int]
    threads_per_warp: Sequence[int]
    order: Sequence[int]

    mnemonic = "warp"

    def __post_init__(self) -> None:
        for name in ("size_per_thread", "threads_per_warp", "order"):
            object.__setattr__(self, name, int_list(getattr(self, name), name, _WARP))

    @property
    def rank(self) -> int:
        return len(self.size_per_thread)

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        raise EncodingError(
            f"{_WARP}: the backend has no linear layout for #ttig.warp "
            f"(WarpEncodingAttr::toLinearLayout is 'NYI' in intel-xpu-backend-for-triton v3.7.2)."
        )

    def ttgir(self) -> str:
        return (
            f"#ttig.warp<{{sizePerThread = {list_text(self.size_per_thread)}, threadsPerWarp = "
            f"{list_text(self.threads_per_warp)}, order = {list_text(self.order)}}}>"
        )


# ---------------------------------------------------------------------- TTGIR


def _dpas_from_ttgir(fields: dict[str, Any], attribute: Any) -> DpasLayout:
    dpas = DpasLayout(
        attribute.take("repeatCount"),
        attribute.take("systolicDepth"),
        attribute.take("executionSize"),
        attribute.take("opsPerChan"),
        attribute.take("warpsPerCTA"),
        attribute.take("repCluster"),
        attribute.take("threadsPerWarp"),
        attribute.take("fp4KPack", None),
    )
    # The backend prints A, B and C (the per-warp operand shapes) and ignores them when it
    # parses; printed text always agrees with the other fields, so a disagreement is an error.
    for operand, key in enumerate("ABC"):
        printed = attribute.take(key, None)
        if printed is not None and list(printed) != dpas.shape_per_warp(operand):
            raise attribute.error(
                f"{key} = {list(printed)} disagrees with the other fields, which give "
                f"{dpas.shape_per_warp(operand)}",
                key,
            )
    return dpas


def _sdb_from_ttgir(fields: dict[str, Any], attribute: Any) -> Subgroup2DBlockLayout:
    warps = attribute.take("warpsPerCTA")
    legacy_keys = ("CTAsPerCGA", "CTASplitNum", "CTAOrder")
    legacy = [attribute.take(k, None) for k in legacy_keys]
    given = [v is not None for v in legacy]
    if any(given) and not all(given):
        raise attribute.error("CTAsPerCGA, CTASplitNum, and CTAOrder must all be present or absent")
    cga = cga_from_split_params(*legacy) if all(given) else []
    return Subgroup2DBlockLayout(
        warps,
        attribute.take("instrShape"),
        attribute.take("numBlocks"),
        attribute.take("order"),
        attribute.take("kWidth"),
        attribute.take("threadsPerWarp"),
        cga,
    )


def _warp_from_ttgir(fields: dict[str, Any], attribute: Any) -> IntelWarpLayout:
    return IntelWarpLayout(
        attribute.take("sizePerThread"), attribute.take("threadsPerWarp"), attribute.take("order")
    )


def _dpas_from_gluon(layout: Any) -> DpasLayout:
    """The backend's Gluon ``ttgl.intel.IntelDPASLayout`` (python/triton/experimental/gluon/
    language/intel/_layouts.py, v3.7.2: no fp4KPack)."""
    return DpasLayout(
        layout.repeatCount,
        layout.systolic_depth,
        layout.execution_size,
        layout.ops_per_chan,
        layout.warps_per_cta,
        layout.rep_cluster,
        layout.threads_per_warp,
    )


register("dpas", _dpas_from_ttgir)
register_gluon("IntelDPASLayout", _dpas_from_gluon)
register("subgroup_2d_block", _sdb_from_ttgir)
register("warp", _warp_from_ttgir)
