"""Shared-memory encodings: swizzled, AMD rotating, linear and partitioned.

Each maps shared-memory element offsets (``offset``, and the CTA ``block``) to tensor
coordinates ``dim0..`` exactly as Triton 3.9 does (lib/Dialect/TritonGPU/IR/
LinearLayoutConversions.cpp and Dialect.cpp):

* :class:`SwizzledSharedLayout` (``#ttg.swizzled_shared``, Gluon ``ttgl.SwizzledSharedLayout``;
  ``swizzledSharedToLinearLayout``): on the two fastest dims of ``order`` (columns =
  ``order[0]``, rows = ``order[1]``) the column bits come first, then each row bit ``r``
  (a power of 2) maps to ``(r, (vec * ((r / perPhase) % maxPhase)) % numCols)``; the other
  dims follow as identities in ``order``; sizes are per CTA, and the CGA is combined with
  ``combineCtaCgaWithShape``.  As offsets are XOR-combined this is the closed form
  ``col = c XOR ((vec * ((row / perPhase) % maxPhase)) % numCols)`` for power-of-2
  parameters (specs/shared.py proves it).
* :class:`AMDRotatingSharedLayout` (``#ttg.amd_rotating_shared``, no Gluon class;
  ``sharedToLinearLayoutAMDRotating``): the same with the phase
  ``((r / perPhase) % maxPhase) XOR ((r / maxPhase / perPhase) % maxPhase)``, and (a Triton
  quirk kept here) the swizzle computed on the whole shape rather than the CTA's share, the
  CGA then shrinking it.
* :class:`SharedLinearLayout` (``#ttg.shared_linear``, Gluon ``ttgl.SharedLinearLayout``):
  explicit ``offset`` / ``block`` bases; Triton 3.9 requires the shape to be the layout's.
* :class:`PartitionedSharedLayout` (``#ttg.partitioned_shared``, Gluon
  ``amd.cdna5.PartitionedSharedLayout``; ``partitionedSharedToLinearLayout``): the tensor
  cut along ``partition_dim`` into ``num_partitions * num_groups`` pieces laid out by
  ``partition_layout``; the result has a third in dim ``partition`` (which buffer) after
  ``offset, block``, and ``num_groups`` more offset bits.  (Gluon's ``to_linear_layout``
  returns only the offset and block bases of it.)

Verifier rules (each refusal is an :class:`~llverify.encodings.base.EncodingError` whose
message names the rule): Triton's ``order must be a permutation of 0..(rank-1)``, ``order
size must match CGALayout rank``, the CGA permutation-matrix rule, SharedLinear's
``alignment must be a positive power of two``, ``The layout must be surjective``, ``After
removing the zero bases the layout must be bijective``, ``Empty Layout not supported``,
Partitioned's ``numPartitions must be a power of 2 and at least 2``, ``numGroups must be a
power of 2 and greater than 0``, ``partitionDim must be less than the layout rank``,
``partitionLayout must be a SharedEncodingTrait``, ``layout must factor into CTA and CGA
layouts`` (a SharedLinear piece; Triton asserts it when it builds the memdesc type); and
where Triton 3.9 has no rule but crashes (a division by zero, an assertion) or overflows a
C++ int, llverify refuses with the reason: ``perPhase``/``maxPhase`` of 0, parameters or
``vec * phase`` of 2**31 or more, ranks other than the shape's, a partition piece smaller
than one element, a SharedLinear shape other than the layout's, partitioned padded
layouts, a rotating swizzle that the CGA cannot shrink.  Like Triton, ``vec``,
``perPhase`` and ``maxPhase`` need not be powers of 2 (``vec = 0`` disables the swizzle).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from llverify.bits import as_int, is_power_of_2
from llverify.encodings.base import (
    Encoding,
    EncodingError,
    bases_list,
    bases_text,
    cga_linear_layout,
    check_shape,
    combine_cta_cga_with_shape,
    cta_split_num,
    int_list,
    list_text,
    require_permutation,
    shape_per_cta,
)
from llverify.encodings.gluon import from_gluon, register_gluon
from llverify.encodings.ttgir import register
from llverify.errors import LayoutError
from llverify.layout import LinearLayout
from llverify.layout_utils import standard_out_dim_names

__all__ = [
    "SHARED_MNEMONICS",
    "AMDRotatingSharedLayout",
    "PartitionedSharedLayout",
    "SharedLinearLayout",
    "SwizzledSharedLayout",
]

#: Mnemonics of Triton's shared encodings (``SharedEncodingTrait``), the layouts a
#: PartitionedSharedLayout may wrap.
SHARED_MNEMONICS = frozenset(
    {
        "swizzled_shared",
        "amd_rotating_shared",
        "shared_linear",
        "partitioned_shared",
        "nvmma_shared",
        "padded_shared",
    }
)

_OFFSET, _BLOCK, _PARTITION = "offset", "block", "partition"
#: Triton computes swizzles in C++ ``int``.
_INT_LIMIT = 1 << 31


def _unsigned(value: Any, name: str, encoding: str) -> int:
    """An ``unsigned`` attribute parameter that also fits the C++ ``int`` Triton uses."""
    number = as_int(value, name)
    if not 0 <= number < _INT_LIMIT:
        raise EncodingError(
            f"{encoding}: '{name}' must be an unsigned integer below 2**31 (Triton computes "
            f"with it in a C++ int), not {number}."
        )
    return number


# ------------------------------------------------------------------ swizzled / rotating


@dataclass(frozen=True)
class _SwizzledBase(Encoding):
    """vec / perPhase / maxPhase / order / CGA, shared by the swizzled and rotating forms."""

    vec: int
    per_phase: int
    max_phase: int
    order: Sequence[int]
    cga_layout: Sequence[Sequence[int]] = field(default_factory=tuple)

    #: The class name used in messages.
    kind: ClassVar[str] = ""

    def __post_init__(self) -> None:
        name = self.kind
        vec = _unsigned(self.vec, "vec", name)
        per_phase = _unsigned(self.per_phase, "per_phase", name)
        max_phase = _unsigned(self.max_phase, "max_phase", name)
        order = int_list(self.order, "order", name)
        cga = bases_list(self.cga_layout, "cga_layout", name)
        require_permutation(order, "order", name)
        if not order:
            raise EncodingError(f"{name}: 'order' must not be empty (rank 0 is not allowed).")
        if cga and len(cga[0]) != len(order):
            raise EncodingError(
                f"{name}: order size ({len(order)}) must match CGALayout rank ({len(cga[0])})."
            )
        cga_linear_layout(cga, len(order), name)  # entries of the rank, a permutation
        for key, value in (("perPhase", per_phase), ("maxPhase", max_phase)):
            if value == 0:
                raise EncodingError(
                    f"{name}: {key} must be at least 1 (Triton 3.9 has no verifier rule for "
                    f"it but divides by it, crashing on any tensor with more than one row)."
                )
        object.__setattr__(self, "vec", vec)
        object.__setattr__(self, "per_phase", per_phase)
        object.__setattr__(self, "max_phase", max_phase)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "cga_layout", cga)

    @property
    def rank(self) -> int:
        return len(self.order)

    @abstractmethod
    def phase(self, row: int) -> int:
        """The XOR applied (in units of ``vec``) to the columns of ``row``."""

    def _swizzled_column(self, row: int, num_cols: int) -> int:
        value = self.vec * self.phase(row)
        if value >= _INT_LIMIT:
            raise EncodingError(
                f"{self.kind}: vec * phase = {value} overflows the C++ int Triton 3.9 "
                f"computes it in (row {row})."
            )
        return value % num_cols

    def _cta_shape(self, shape: Sequence[int], per_cta: Sequence[int]) -> Sequence[int]:
        """The sizes the 2-D swizzle and the other dims are built on."""
        return per_cta

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """``offset, block -> dim0..``: column bits, then swizzled row bits, then the other
        dims in ``order``, combined with the CGA."""
        name = self.kind
        dims = check_shape(shape, self.rank, name)
        cga = cga_linear_layout(self.cga_layout, self.rank, name)
        per_cta = shape_per_cta(dims, cta_split_num(self.cga_layout, self.rank))
        names = standard_out_dim_names(self.rank)
        if self.rank == 1:
            cta = LinearLayout.identity_1d(per_cta[0], _OFFSET, names[0])
        else:
            sizes = self._cta_shape(dims, per_cta)
            col, row = self.order[0], self.order[1]
            num_cols, num_rows = sizes[col], sizes[row]
            bases = [[0, 1 << i] for i in range(num_cols.bit_length() - 1)]
            bases += [
                [1 << i, self._swizzled_column(1 << i, num_cols)]
                for i in range(num_rows.bit_length() - 1)
            ]
            cta = LinearLayout.from_bases([(_OFFSET, bases)], [names[row], names[col]])
            for d in self.order[2:]:
                cta = cta * LinearLayout.identity_1d(sizes[d], _OFFSET, names[d])
        try:
            return combine_cta_cga_with_shape(cta, cga, dims)
        except LayoutError as error:
            raise EncodingError(
                f"{name}: the CGA layout cannot shrink this layout to the CTA's share of "
                f"{list(dims)} (Triton 3.9 asserts in ensureLayoutNotLargerThan): {error}"
            ) from None

    def ttgir(self) -> str:
        text = (
            f"#ttg.{self.mnemonic}<{{vec = {self.vec}, perPhase = {self.per_phase}, "
            f"maxPhase = {self.max_phase}, order = {list_text(self.order)}"
        )
        if self.cga_layout:
            text += f", CGALayout = {bases_text(self.cga_layout)}"
        return text + "}>"


@dataclass(frozen=True)
class SwizzledSharedLayout(_SwizzledBase):
    """``#ttg.swizzled_shared``: rows of ``order[1]`` XOR their columns (in groups of
    ``vec``) with the phase ``(row / per_phase) % max_phase``.

    Examples:
        >>> SwizzledSharedLayout(2, 1, 4, [1, 0]).to_linear_layout([4, 8]).bases[0]
        ('offset', [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]])
        >>> SwizzledSharedLayout(8, 1, 8, [1, 0]).ttgir()
        '#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>'
    """

    mnemonic = "swizzled_shared"
    kind = "SwizzledSharedLayout"

    def phase(self, row: int) -> int:
        return (row // self.per_phase) % self.max_phase


@dataclass(frozen=True)
class AMDRotatingSharedLayout(_SwizzledBase):
    """``#ttg.amd_rotating_shared``: the swizzled pattern, but each block of ``per_phase *
    max_phase`` rows XORs its phase with the block number (mod ``max_phase``), so the
    pattern changes ``max_phase`` times before repeating.

    Examples:
        >>> AMDRotatingSharedLayout(2, 2, 2, [1, 0]).to_linear_layout([8, 16]).bases[0][1][4:]
        [[1, 0], [2, 2], [4, 2]]
    """

    mnemonic = "amd_rotating_shared"
    kind = "AMDRotatingSharedLayout"

    def phase(self, row: int) -> int:
        phase = (row // self.per_phase) % self.max_phase
        block = row // self.max_phase // self.per_phase % self.max_phase
        return phase ^ block

    def _cta_shape(self, shape: Sequence[int], per_cta: Sequence[int]) -> Sequence[int]:
        # sharedToLinearLayoutAMDRotating uses the whole shape (not shapePerCTA) for
        # rank >= 2; combineCtaCgaWithShape then zeroes what is beyond the CTA's share.
        return shape


# ------------------------------------------------------------------ shared linear


@dataclass(frozen=True)
class SharedLinearLayout(Encoding):
    """``#ttg.shared_linear``: explicit bases of ``offset`` (and ``block``).

    Examples:
        >>> enc = SharedLinearLayout([[0, 1], [0, 2], [1, 0]])
        >>> enc.to_linear_layout([2, 4]).bases
        [('offset', [[0, 1], [0, 2], [1, 0]]), ('block', [])]
        >>> enc.ttgir()
        '#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0]]}, alignment = 16>'
    """

    offset_bases: Sequence[Sequence[int]]
    block_bases: Sequence[Sequence[int]] = field(default_factory=tuple)
    alignment: int = 16
    _layout: LinearLayout = field(init=False, repr=False, compare=False)

    mnemonic = "shared_linear"

    def __post_init__(self) -> None:
        name = "SharedLinearLayout"
        offset = bases_list(self.offset_bases, "offset_bases", name)
        block = bases_list(self.block_bases, "block_bases", name)
        alignment = as_int(self.alignment, "alignment")
        if not is_power_of_2(alignment):
            raise EncodingError(
                f"{name}: alignment must be a positive power of two, not {alignment}."
            )
        everything = offset + block
        if not everything or not everything[0]:
            raise EncodingError(f"{name}: Empty Layout not supported (no basis gives the rank).")
        rank = len(everything[0])
        for label, values in (("offset_bases", offset), ("block_bases", block)):
            for i, basis in enumerate(values):
                if len(basis) != rank:
                    raise EncodingError(
                        f"{name}: every basis must have {rank} coordinates (the rank), but "
                        f"{label}[{i}] = {list(basis)}."
                    )
                if any(v < 0 for v in basis):
                    raise EncodingError(
                        f"{name}: basis coordinates must be non-negative, but {label}[{i}] "
                        f"= {list(basis)}."
                    )
        try:
            layout = LinearLayout.from_bases(
                [(_OFFSET, [list(b) for b in offset]), (_BLOCK, [list(b) for b in block])],
                standard_out_dim_names(rank),
            )
        except LayoutError as error:
            raise EncodingError(f"{name}: The layout must be surjective: {error}") from None
        stripped = layout.remove_zero_bases_along_dim(_OFFSET).remove_zero_bases_along_dim(_BLOCK)
        if not stripped.is_invertible():
            raise EncodingError(
                f"{name}: After removing the zero bases the layout must be bijective "
                f"(offset {[list(b) for b in offset]}, block {[list(b) for b in block]})."
            )
        object.__setattr__(self, "offset_bases", offset)
        object.__setattr__(self, "block_bases", block)
        object.__setattr__(self, "alignment", alignment)
        object.__setattr__(self, "_layout", layout)

    @property
    def rank(self) -> int:
        return len((tuple(self.offset_bases) + tuple(self.block_bases))[0])

    @property
    def shape(self) -> list[int]:
        """The tensor shape the bases cover (the only shape Triton 3.9 converts at)."""
        return self._layout.get_out_dim_sizes()

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        name = "SharedLinearLayout"
        dims = check_shape(shape, self.rank, name)
        if list(dims) != self.shape:
            raise EncodingError(
                f"{name}: the shape {list(dims)} must be the layout's shape {self.shape} "
                f"(Triton 3.9's SharedLinearEncodingAttr::toLinearLayout asserts size == "
                f"llSize)."
            )
        return self._layout

    def ttgir(self) -> str:
        text = f"#ttg.shared_linear<{{offset = {bases_text(self.offset_bases)}"
        if self.block_bases:
            text += f", block = {bases_text(self.block_bases)}"
        return text + f"}}, alignment = {self.alignment}>"


def _cga_factor_problem(enc: SharedLinearLayout) -> str | None:
    """Why ``enc`` is not ``cta * cga`` with the offsets inside one CTA and a CGA that is a
    permutation matrix (Triton's ``linearToCGAEncodingAttr``), or None."""
    rank = enc.rank
    split = [1] * rank
    for basis in enc.block_bases:  # basesPerDim(block): each basis counts on its first dim
        first = next((d for d, v in enumerate(basis) if v), None)
        if first is not None:
            split[first] *= 2
    sizes = enc.shape
    if any(k > s for k, s in zip(split, sizes)):
        return f"the block bases split the shape {sizes} into more than it holds"
    per_cta = [s // k for s, k in zip(sizes, split)]
    for i, basis in enumerate(enc.offset_bases):
        if any(v >= p for v, p in zip(basis, per_cta)):
            return f"offset basis {i} = {list(basis)} leaves the CTA's share {per_cta}"
    names = standard_out_dim_names(rank)
    offsets = [list(b) for b in enc.offset_bases]
    cta = LinearLayout([(_OFFSET, offsets)], names, per_cta, require_surjective=False)
    quotient = enc.to_linear_layout(sizes).divide_left(cta)
    if quotient is None:
        return "the block bases are not multiples of the CTA's share"
    seen = set()
    for basis in dict(quotient.bases)[_BLOCK]:
        nonzero = [v for v in basis if v]
        if not nonzero:
            continue
        if len(nonzero) != 1 or not is_power_of_2(nonzero[0]) or tuple(basis) in seen:
            return "the CGA part is not a permutation matrix"
        seen.add(tuple(basis))
    return None


# ------------------------------------------------------------------ partitioned


@dataclass(frozen=True)
class PartitionedSharedLayout(Encoding):
    """``#ttg.partitioned_shared``: ``partition_layout`` pieces in ``num_partitions``
    separate buffers.

    The tensor is cut along ``partition_dim`` into ``num_partitions * num_groups`` pieces;
    piece ``k`` goes to buffer ``k % num_partitions`` at position ``k / num_partitions``.
    The layout's in dims are ``offset`` (within a buffer: the piece's offsets, then the
    group), ``block`` and ``partition`` (which buffer).

    Examples:
        >>> inner = SwizzledSharedLayout(1, 1, 1, [1, 0])
        >>> ll = PartitionedSharedLayout(2, 4, 0, inner).to_linear_layout([128, 32])
        >>> ll.bases[0][1][5:], ll.bases[2]
        ([[1, 0], [2, 0], [4, 0], [8, 0], [32, 0], [64, 0]], ('partition', [[16, 0]]))
    """

    num_partitions: int
    num_groups: int
    partition_dim: int
    partition_layout: Encoding

    mnemonic = "partitioned_shared"

    def __post_init__(self) -> None:
        name = "PartitionedSharedLayout"
        partitions = _unsigned(self.num_partitions, "num_partitions", name)
        groups = _unsigned(self.num_groups, "num_groups", name)
        dim = _unsigned(self.partition_dim, "partition_dim", name)
        inner = self.partition_layout
        if not isinstance(inner, Encoding) or inner.mnemonic not in SHARED_MNEMONICS:
            raise EncodingError(
                f"{name}: partitionLayout must be a SharedEncodingTrait (a shared-memory "
                f"encoding), not {type(inner).__name__}."
            )
        if partitions < 2 or not is_power_of_2(partitions):
            raise EncodingError(
                f"{name}: numPartitions must be a power of 2 and at least 2, not {partitions}."
            )
        if not is_power_of_2(groups):
            raise EncodingError(
                f"{name}: numGroups must be a power of 2 and greater than 0, not {groups}."
            )
        if dim >= inner.rank:
            raise EncodingError(
                f"{name}: partitionDim ({dim}) must be less than the layout rank ({inner.rank})."
            )
        if isinstance(inner, SharedLinearLayout):
            problem = _cga_factor_problem(inner)
            if problem:
                raise EncodingError(
                    f"{name}: the partition layout must factor into CTA and CGA layouts "
                    f"({problem}; Triton 3.9's linearToCGAEncodingAttr asserts this when the "
                    f"memdesc type is built)."
                )
        object.__setattr__(self, "num_partitions", partitions)
        object.__setattr__(self, "num_groups", groups)
        object.__setattr__(self, "partition_dim", dim)

    @property
    def rank(self) -> int:
        return self.partition_layout.rank

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """``partition_layout`` on one piece, times ``partition -> partition_dim``, times
        ``num_groups`` more offset bits along it (Triton's partitionedSharedToLinearLayout)."""
        name = "PartitionedSharedLayout"
        dims = check_shape(shape, self.rank, name)
        if self.partition_layout.mnemonic == "padded_shared":
            raise EncodingError(
                f"{name}: toLinearLayout does not support partitioned layouts wrapping "
                f"padded layouts (padding is not linear; Triton 3.9 aborts)."
            )
        pieces = self.num_partitions * self.num_groups
        dim = self.partition_dim
        if dims[dim] < pieces:
            raise EncodingError(
                f"{name}: shape[{dim}] = {dims[dim]} must be at least numPartitions * "
                f"numGroups = {pieces} (a piece must hold one element; Triton 3.9 asserts "
                f"the piece's shape is a positive power of 2)."
            )
        piece_shape = list(dims)
        piece_shape[dim] = dims[dim] // pieces
        base = self.partition_layout.to_linear_layout(piece_shape)
        names = standard_out_dim_names(base.num_out_dims)
        return (
            base
            * LinearLayout.identity_1d(self.num_partitions, _PARTITION, names[dim])
            * LinearLayout.identity_1d(self.num_groups, _OFFSET, names[dim])
        )

    def ttgir(self) -> str:
        return (
            f"#ttg.partitioned_shared<{{numPartitions = {self.num_partitions}, numGroups = "
            f"{self.num_groups}, partitionDim = {self.partition_dim}, partitionLayout = "
            f"{self.partition_layout.ttgir()}}}>"
        )


# ---------------------------------------------------------------------- registrations


def _swizzled_fields(attribute: Any) -> tuple[Any, ...]:
    # Triton's parseSwizzledEncoding: a missing vec/perPhase/maxPhase is 0, order [].
    return (
        attribute.take("vec", 0),
        attribute.take("perPhase", 0),
        attribute.take("maxPhase", 0),
        attribute.take("order", []),
        attribute.take("CGALayout", []),
    )


def _swizzled_from_ttgir(fields: dict[str, Any], attribute: Any) -> SwizzledSharedLayout:
    return SwizzledSharedLayout(*_swizzled_fields(attribute))


def _rotating_from_ttgir(fields: dict[str, Any], attribute: Any) -> AMDRotatingSharedLayout:
    return AMDRotatingSharedLayout(*_swizzled_fields(attribute))


def _shared_linear_from_ttgir(fields: dict[str, Any], attribute: Any) -> SharedLinearLayout:
    """``#ttg.shared_linear<{offset = [..], block = [..]}, alignment = N>``."""
    trailing = getattr(attribute, "trailing", None)  # keys written after the braces
    if trailing is not None and "alignment" in fields and "alignment" not in trailing:
        raise attribute.error(
            "alignment must be specified outside of the linear layout braces", "alignment"
        )
    if "offset" not in fields:
        raise attribute.error("Expected basis of 'offset' not found")
    return SharedLinearLayout(
        attribute.take("offset"), attribute.take("block", []), attribute.take("alignment")
    )


def _partitioned_from_ttgir(fields: dict[str, Any], attribute: Any) -> PartitionedSharedLayout:
    if "partitionLayout" not in fields:
        raise attribute.error("missing partitionLayout")
    return PartitionedSharedLayout(
        attribute.take("numPartitions", 0),
        attribute.take("numGroups", 0),
        attribute.take("partitionDim", 0),
        attribute.take("partitionLayout"),
    )


register("swizzled_shared", _swizzled_from_ttgir)
register("amd_rotating_shared", _rotating_from_ttgir)
register("shared_linear", _shared_linear_from_ttgir)
register("partitioned_shared", _partitioned_from_ttgir)
register_gluon(
    "SwizzledSharedLayout",
    lambda g: SwizzledSharedLayout(g.vec, g.per_phase, g.max_phase, g.order, g.cga_layout),
)
register_gluon(
    "SharedLinearLayout",
    lambda g: SharedLinearLayout(g.offset_bases, g.block_bases, g.alignment),
)
register_gluon(
    "PartitionedSharedLayout",
    lambda g: PartitionedSharedLayout(
        g.num_partitions, g.num_groups, g.partition_dim, from_gluon(g.partition_layout)
    ),
)
