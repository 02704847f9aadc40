"""Triton's constructive optimal swizzle for a conversion ``src -> shared -> dst`` by ld/st.

A port of ``optimalSwizzlingLdSt`` (``lib/Tools/GenericSwizzling.cpp``, plain ld/st.shared)
and, in :func:`convert_layout_swizzle`, of ``optimalSwizzling`` over the sm_90 instruction
tiles (ld/st.shared, ldmatrix/stmatrix and their transposed forms), which is what
``convert_layout`` uses.  Tensor elements are bit vectors of the flattened tensor; broadcast
registers are dropped first.  The shared layout is built from four groups of bases:

1. **vector**: the register bases common to src and dst (in src's order), at most 128 bits;
   under 32 bits it is filled with src registers that are dst warps (or the reverse), then
   warps common to both, then warps of either, and trimmed to 32 bits;
2. **segment**: the bases that leave the bank row.  First the unit vectors that neither lane
   tile (the lanes of one wavefront, or an explicit ``laneAddr`` list) nor the vector uses;
   then ``a_i ^ b_i`` pairing src-only with dst-only tile bases (conflict-free both ways);
   only if still short, the bare ``a_i`` and ``b_i`` (conflicts);
3. **bank**: the complement of vector + segment (unit vectors of the non-pivot columns of
   their reduced row echelon form);
4. **reps**: the segment bases that are registers in both src and dst, moved last.

``offset`` runs over vector, bank, segment, reps.  Below 128-bit vectors the bank bases that
are registers of the side that filled the vector (else of the side with more of them) go
first, so that side may vectorise further.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llverify import gf2
from llverify.arguments import check_one_kernel, layout_argument
from llverify.bits import as_int, as_shape, is_power_of_2, log2_exact
from llverify.errors import DimensionError, LayoutError, LayoutTypeError, shown
from llverify.hardware import BANK_MODELS, VECTOR_ELEMENT_BITS, Target, resolve_target
from llverify.layout import LinearLayout
from llverify.layout_utils import action_remove_broadcasted_regs

__all__ = [
    "ConvertLayoutSwizzle",
    "constructive_layout",
    "constructive_swizzle",
    "convert_layout_swizzle",
    "pass_tile_layout",
]

_IN_DIMS = ("register", "lane", "warp", "block")


def constructive_swizzle(
    src: Any,
    dst: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | Target = "nvidia",
    src_tile: Sequence[int] | None = None,
    dst_tile: Sequence[int] | None = None,
) -> LinearLayout:
    """Triton's ``optimalSwizzlingLdSt``: the shared layout for storing ``src`` and loading
    ``dst`` with wide ld/st.shared accesses and no bank conflicts where it can.

    Args:
        src, dst: distributed layouts of the tensor (LinearLayouts or anything
            :func:`llverify.arguments.layout_argument` accepts) with in dims ``register``,
            ``lane`` and optionally ``warp`` and ``block`` (of size 1).
        shape: the tensor shape (the out dim sizes of both layouts).
        element_bits: bits per element, dividing 128.
        target: ``"nvidia"``, ``"gfx942"``, ``"gfx950"`` or a :class:`~llverify.hardware.Target`
            (lanes per warp and banks).
        src_tile, dst_tile: lane indices of one wavefront (Triton's ``LocalMemOpTile.laneAddr``),
            e.g. ``[0, 1, 4]`` for ldmatrix; by default the lanes below the top ``log2(phases)``.

    Returns:
        The bijective layout ``offset -> tensor`` with ``src``'s out dims, usable as the
        offset bases of a :class:`~llverify.encodings.SharedLinearLayout`.

    Examples:
        A 32x16 f32 transpose (Triton's ``Test32x16F32Transpose``): no common registers, so
        no vector; the segment pairs src lanes with dst lanes (``[2, 1]`` = ``[0, 1] ^ [2, 0]``,
        ...), and dst's registers lead the bank.

        >>> from llverify.shared_memory.swizzle import swizzle_cost
        >>> src = LinearLayout.from_bases([("register", [[4, 0], [8, 0], [16, 0]]),
        ...     ("lane", [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]]), ("warp", [[2, 0]])],
        ...     ["dim0", "dim1"])
        >>> dst = LinearLayout.from_bases([("register", [[0, 2], [0, 4], [0, 8]]),
        ...     ("lane", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]), ("warp", [[0, 1]])],
        ...     ["dim0", "dim1"])
        >>> smem = constructive_swizzle(src, dst, [32, 16], 32)
        >>> smem.bases
        [('offset', [[0, 2], [0, 4], [0, 8], [1, 0], [0, 1], [2, 1], [4, 2], [8, 4], [16, 8]])]
        >>> c = swizzle_cost(src, dst, smem, [32, 16], 32)
        >>> c.store_conflicts, c.load_conflicts
        (0, 0)
    """
    tgt, sizes = resolve_target(target), _shape(shape)
    src_ll, dst_ll = layout_argument(src, sizes, "src"), layout_argument(dst, sizes, "dst")
    return constructive_layout(src_ll, dst_ll, sizes, element_bits, tgt, src_tile, dst_tile)


def constructive_layout(
    src: LinearLayout,
    dst: LinearLayout,
    shape: Sequence[int],
    element_bits: int,
    tgt: Target,
    src_tile: Sequence[int] | None = None,
    dst_tile: Sequence[int] | None = None,
) -> LinearLayout:
    """:func:`constructive_swizzle` of layouts already normalised (the callers inside
    llverify).

    Examples:
        >>> src = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4], [8],
        ...     [16], [32]])], ["dim0"])
        >>> constructive_layout(src, src, [64], 32, BANK_MODELS["nvidia"]).bases
        [('offset', [[1], [2], [4], [8], [16], [32]])]
    """
    bits = VECTOR_ELEMENT_BITS.check(element_bits)
    sizes = _shape(shape)
    src_ll, dst_ll = _distributed_pair(src, dst, sizes, tgt)
    src_flat = src_ll.flatten_outs()
    dst_flat = dst_ll.flatten_outs()
    dim = src_flat.get_total_out_dim_size_log2()
    reg_src = _flat(src_flat, "register")
    reg_dst = _flat(dst_flat, "register")

    vector, src_fills_bank = _vector_basis(src_flat, dst_flat, bits, dim)
    vec_bits = (1 << len(vector)) * bits
    tile_src = _lane_tile(src_tile, _flat(src_flat, "lane"), vec_bits, tgt, "src_tile")
    tile_dst = _lane_tile(dst_tile, _flat(dst_flat, "lane"), vec_bits, tgt, "dst_tile")

    bank, segment, reps = _bank_segment_reps(
        vector, tile_src, tile_dst, set(reg_src) & set(reg_dst), dim, bits, tgt
    )
    if vec_bits < 128:  # Triton: log2(max(1, vec_bits / 32)) < 2
        bank = _bank_order(bank, reg_src, reg_dst, src_fills_bank)
    offsets = vector + bank + segment + reps
    if len(offsets) != dim or gf2.rank(offsets) != dim:
        raise LayoutError(
            f"Arguments 'src' and 'dst' must be layouts for which Triton's construction is a "
            f"bijection (Triton asserts; XOR bases or a basis repeated across in dims can break "
            f"it), but it gives offset bases {offsets} for a tensor of {dim} bits."
        )
    return _offset_layout(offsets, src_ll.out_dims, dim)


def _offset_layout(offsets: list[int], out_dims: list[tuple[str, int]], dim: int) -> LinearLayout:
    """``offset -> tensor`` from offset bases as bit vectors of the flattened tensor."""
    flat = LinearLayout.from_bases(
        [("offset", [[o] for o in offsets])], [out_dims[0][0]], [1 << dim]
    )
    return flat.reshape_outs(out_dims)


# ---------------------------------------------------------------------- argument checks


def _shape(shape: Any) -> list[int]:
    dims = list(as_shape(shape))
    if not dims:
        raise LayoutError("Argument 'shape' must have at least one dim, not [].")
    return dims


def _distributed(layout: LinearLayout, shape: list[int], name: str, tgt: Target) -> LinearLayout:
    """The argument as a layout with in dims (register, lane, warp), broadcast registers
    dropped, after checking it is a one-CTA distributed layout of ``shape`` on ``tgt``."""
    ins = layout.get_in_dim_names()
    if not {"register", "lane"} <= set(ins) <= set(_IN_DIMS):
        raise DimensionError(
            f"Argument '{name}' must have the in dims register, lane (warp, block optional), "
            f"not {ins}."
        )
    if "block" in ins and layout.get_in_dim_size("block") > 1:
        raise LayoutError(
            f"Argument '{name}' must have one CTA (block size 1), not "
            f"{layout.get_in_dim_size('block')}: multi-CTA swizzles are not supported."
        )
    if layout.get_out_dim_sizes() != shape:
        raise DimensionError(
            f"Argument '{name}' must have out dim sizes equal to shape {shape}, not "
            f"{layout.out_dims}."
        )
    if layout.get_in_dim_size("lane") != tgt.lanes:
        raise LayoutError(
            f"Argument '{name}' must have {tgt.lanes} lanes (target {tgt.name}), not "
            f"{layout.get_in_dim_size('lane')}."
        )
    if not layout.is_surjective():
        raise LayoutError(
            f"Argument '{name}' must cover every element of the tensor (a surjective layout), "
            f"not {layout.to_string()}"
        )
    kept = [d for d in _IN_DIMS[:3] if d in ins]  # the block dim has no bases
    layout = layout.sublayout(kept, layout.get_out_dim_names()).transpose_ins(kept)
    return action_remove_broadcasted_regs(layout).apply(layout)


def _distributed_pair(
    src: LinearLayout, dst: LinearLayout, shape: list[int], tgt: Target
) -> tuple[LinearLayout, LinearLayout]:
    """Both arguments as :func:`_distributed` layouts of one kernel, with the same out dims."""
    src_ll = _distributed(src, shape, "src", tgt)
    dst_ll = _distributed(dst, shape, "dst", tgt)
    check_one_kernel(src, dst)
    if src_ll.get_out_dim_names() != dst_ll.get_out_dim_names():
        raise DimensionError(
            f"Argument 'dst' must have the out dims of 'src' {src_ll.get_out_dim_names()}, not "
            f"{dst_ll.get_out_dim_names()}."
        )
    return src_ll, dst_ll


def _lane_tile(
    tile: Sequence[int] | None, lanes: list[int], vec_bits: int, tgt: Target, name: str
) -> list[int]:
    """Triton's ``getLaneTile``: the lane bases of one wavefront."""
    log2_vec = log2_exact(max(1, vec_bits // 32))
    log2_phase = max(0, log2_vec + len(lanes) - log2_exact(tgt.banks))
    size = max(0, len(lanes) - log2_phase)
    if tile is None:
        return lanes[:size]
    if isinstance(tile, (str, bytes)) or not isinstance(tile, Sequence):
        raise LayoutTypeError(
            f"Argument '{name}' must be a sequence of lane indices, not "
            f"{type(tile).__name__} {shown(tile)}."
        )
    indices = [as_int(i, name) for i in tile]
    if len(indices) != size or len(set(indices)) != size:
        raise LayoutError(
            f"Argument '{name}' must list {size} distinct lane indices (one wavefront of "
            f"{vec_bits}-bit accesses on {tgt.name}), not {list(tile)}."
        )
    if any(not 0 <= i < len(lanes) for i in indices):
        raise LayoutError(
            f"Argument '{name}' must hold lane indices in [0, {len(lanes)}), not {list(tile)}."
        )
    return [lanes[i] for i in indices]


# ---------------------------------------------------------------------- the construction


def _flat(layout: LinearLayout, in_dim: str) -> list[int]:
    """The bases of ``in_dim`` of a layout with one out dim, as ints ([] if absent)."""
    if not layout.has_in_dim(in_dim):
        return []
    return [basis[0] for basis in layout.bases[layout.get_in_dim_names().index(in_dim)][1]]


def _nullspace(vectors: Sequence[int], dim: int) -> list[int]:
    """Triton's ``nullspaceBasis``: {x : <v, x> = 0 for every v}, one vector per free column
    of the reduced row echelon form (lowest bit first), in column order."""
    columns = gf2.transpose(vectors, dim)  # column c: which vectors have bit c
    echelon = gf2.EchelonBasis()
    free = [c for c, column in enumerate(columns) if not echelon.insert(column)]
    basis = []
    for c in free:
        # Column c is the XOR of the pivot columns whose rows have a 1 in column c.
        pivots = echelon.express(columns[c])
        assert pivots is not None  # a free column is in the span of the pivot columns
        basis.append((1 << c) ^ pivots)
    return basis


def _intersection(b1: Sequence[int], b2: Sequence[int], dim: int) -> list[int]:
    """Triton's ``intersectionBasis``: for unit vectors, those of ``b1`` also in ``b2`` (b1's
    order); otherwise the nullspace of the joint nullspaces."""
    if all(is_power_of_2(b) for b in (*b1, *b2)):
        common = set(b2)
        return [b for b in b1 if b in common]
    return _nullspace(_nullspace(b1, dim) + _nullspace(b2, dim), dim)


def _complement(basis: Sequence[int], dim: int) -> list[int]:
    """Triton's ``complementBasis``: the unit vectors of the non-pivot columns."""
    pivots = gf2.pivot_mask(gf2.transpose(basis, dim))
    return [1 << c for c in range(dim) if not pivots >> c & 1]


def _vector_basis(
    src: LinearLayout, dst: LinearLayout, bits: int, dim: int
) -> tuple[list[int], bool | None]:
    """Triton's ``getVecBasisLdSt``: the vector bases and whether src's registers (True),
    dst's (False) or neither (None) filled it up to 32 bits."""
    reg_src = _flat(src, "register")
    reg_dst = _flat(dst, "register")
    vector = _intersection(reg_src, reg_dst, dim)[: log2_exact(128 // bits)]
    if (1 << len(vector)) * bits >= 32:
        return vector, None
    per_bank = log2_exact(32 // bits)
    warp_src = [w for w in _flat(src, "warp") if w]
    warp_dst = [w for w in _flat(dst, "warp") if w]
    src_to_warp = _intersection([r for r in reg_src if r not in vector], warp_dst, dim)
    dst_to_warp = _intersection([r for r in reg_dst if r not in vector], warp_src, dim)
    if src_to_warp and len(src_to_warp) == len(dst_to_warp):
        # Equal: the side with the lowest basis (fewer byte permutes, says Triton).
        src_fills = min(src_to_warp) < min(dst_to_warp)
    else:
        src_fills = len(src_to_warp) > len(dst_to_warp)
    vector += src_to_warp if src_fills else dst_to_warp
    if len(vector) < per_bank:
        vector += _intersection(warp_src, warp_dst, dim)
    i = 0
    while len(vector) < per_bank and (i < len(warp_src) or i < len(warp_dst)):
        # Warps of one side: conflict-free at least in that direction.
        if i < len(warp_src) and warp_src[i] not in vector:
            vector.append(warp_src[i])
        if len(vector) < per_bank and i < len(warp_dst) and warp_dst[i] not in vector:
            vector.append(warp_dst[i])
        i += 1
    return vector[:per_bank], src_fills


def _segment(bank_src: list[int], bank_dst: list[int], dim: int, length: int) -> list[int]:
    """Triton's ``computeSegment``: ``length`` bases leaving the bank row, conflict-free
    where the tiles allow."""
    set_src = set(bank_src) - {0}
    set_dst = set(bank_dst) - {0}
    segment = [1 << b for b in range(dim) if 1 << b not in set_src and 1 << b not in set_dst]
    if len(segment) >= length:
        return segment[:length]
    only_src = sorted(set_src - set_dst)
    only_dst = sorted(set_dst - set_src)
    a, b = (only_src, only_dst) if len(only_src) <= len(only_dst) else (only_dst, only_src)
    conflicts = min(max(0, length - len(a) - len(segment)), len(a))
    segment += [x ^ y for x, y in zip(a[conflicts:], b[conflicts:])]
    segment += a[:conflicts] + b[:conflicts]  # conflicts: the smaller side, then the other
    return segment[:length]


def _bank_segment_reps(
    vector: list[int], tile_src: list[int], tile_dst: list[int], both_regs: set[int],
    dim: int, bits: int, tgt: Target, leave_reps: int = 0,
) -> tuple[list[int], list[int], list[int]]:  # fmt: skip
    """The bank, segment and reps bases around ``vector`` (Triton's ``optimalSwizzling``
    body and ``buildReps``): a bank row holds banks * 32 bits, the bank bases address it, the
    segment leaves it; segment bases that are registers of both sides become reps, except the
    first ``leave_reps`` (kept so ldmatrix/stmatrix can use .x4)."""
    vec_bits = (1 << len(vector)) * bits
    len_bank = min(log2_exact(tgt.banks * 32 // vec_bits), dim - len(vector))
    segment = _segment(vector + tile_src, vector + tile_dst, dim, dim - len_bank - len(vector))
    bank = _complement(vector + segment, dim)
    kept, reps = [], []
    for base in segment:
        if base in both_regs and leave_reps > 0:
            leave_reps -= 1
            kept.append(base)
        elif base in both_regs:
            reps.append(base)
        else:
            kept.append(base)
    return bank, kept, reps


def _bank_order(
    bank: list[int], reg_src: list[int], reg_dst: list[int], src_fills: bool | None
) -> list[int]:
    """The bank bases that are registers of the side that filled the vector (else of the
    side with more of them) first."""
    in_src = [i for i, b in enumerate(bank) if b in reg_src]
    in_dst = [i for i, b in enumerate(bank) if b in reg_dst]
    if src_fills is None:
        first = in_src if len(in_src) > len(in_dst) else in_dst
    else:
        first = in_src if src_fills else in_dst
    order = first + [i for i in range(len(bank)) if i not in first]
    return [bank[i] for i in order]


def pass_tile_layout(
    vector: Sequence[int],
    tile_src: Sequence[int],
    tile_dst: Sequence[int],
    reg_src: Sequence[int],
    reg_dst: Sequence[int],
    dim: int,
    bits: int,
    tgt: Target,
    first: bool | None,
) -> list[int]:
    """The construction around ``vector`` for any pass tiles: offset bases (bit vectors of
    the flattened tensor) vector, bank, segment, reps.

    Triton's construction, generalised from its lane tiles (unit vectors, consecutive lanes)
    to the elements one pass really touches (``tile_src``/``tile_dst``: any GF(2) bases,
    e.g. the XOR phases of AMD's ds_read_b128), and used by the synthesiser for vectors of
    unequal widths too (``vector``: the wider side's register bases after the common ones).
    The segment (the bases above the bank row) avoids the span of vector + tile of each
    side, so that neither tile meets a bank twice where that is possible (:func:`_segment`
    for unit-vector tiles); ``first``: whose register bases lead the bank (src True, dst
    False, None: the side with more of them), so that side may vectorise further.

    Examples:
        :func:`constructive_swizzle`'s 32x16 f32 transpose (flattened, dim0 minor): the
        segment pairs a store-tile lane with a load-tile lane (``34 = 32 ^ 2``, ...), as
        Triton's, and dst's registers lead the bank:

        >>> pass_tile_layout([], [32, 64, 128, 256, 1], [1, 2, 4, 8, 16], [4, 8, 16],
        ...                  [64, 128, 256], 9, 32, BANK_MODELS["nvidia"], None)
        [64, 128, 256, 1, 32, 34, 68, 136, 272]
    """
    length = max(0, dim - log2_exact(tgt.banks * 32 // bits))
    segment = _avoiding_segment([*vector, *tile_src], [*vector, *tile_dst], dim, length)
    bank = _complement([*vector, *segment], dim)
    if (1 << len(vector)) * bits < 128:
        bank = _bank_order(bank, list(reg_src), list(reg_dst), first)
    both = set(reg_src) & set(reg_dst)
    kept = [b for b in segment if b not in both]
    return [*vector, *bank, *kept, *(b for b in segment if b in both)]


def _avoiding_segment(avoid_a: list[int], avoid_b: list[int], dim: int, length: int) -> list[int]:
    """``length`` independent bases whose span meets neither span(``avoid_a``) nor
    span(``avoid_b``) where possible (then one of them, then neither): unit vectors first,
    then sums of an ``a`` and a ``b`` basis, then sums of two unit vectors.  Two proper
    subspaces never hold every unit vector and every sum of two, so the first round only
    falls short when no such segment exists."""
    units = [1 << b for b in range(dim)]
    candidates = [
        *units,
        *(x ^ y for x in avoid_a for y in avoid_b if x != y),
        *(x ^ y for i, x in enumerate(units) for y in units[i + 1 :]),
    ]
    chosen, span_a, span_b = gf2.EchelonBasis(), gf2.EchelonBasis(), gf2.EchelonBasis()
    for vector in avoid_a:
        span_a.insert(vector)
    for vector in avoid_b:
        span_b.insert(vector)
    segment: list[int] = []
    for needed_outside in (2, 1, 0):
        for vector in candidates:
            if len(segment) == length:
                return segment
            outside = (span_a.express(vector) is None) + (span_b.express(vector) is None)
            if vector and outside >= needed_outside and chosen.express(vector) is None:
                segment.append(vector)
                for basis in (chosen, span_a, span_b):
                    basis.insert(vector)
    return segment


# ------------------------------------------------- convert_layout: instruction tile pairs

#: Triton's ``getSrcDstTiles`` on sm_90: (name, laneContig, laneAddr).
_LDST = ("ld/st.shared", (), (0, 1, 2))
_MATRIX = ("matrix", (0, 1), (2, 3, 4))
_MATRIX_TRANS = ("matrix.trans", (2, 3, 4), (0, 1))


@dataclass(frozen=True)
class ConvertLayoutSwizzle:
    """What Triton's NVIDIA ``convert_layout`` lowering picks for a conversion through shared
    memory: the shared layout (offset bases, reps last), the store and load instruction kinds
    (``"ld/st.shared"``, ``"matrix"`` for stmatrix/ldmatrix, ``"matrix.trans"``) and how
    many times the tile is stored and loaded (``reps``: the top ``log2(reps)`` offset bases
    are register bases of both layouts, rewritten into one smaller buffer)."""

    layout: LinearLayout
    store: str
    load: str
    reps: int


def convert_layout_swizzle(
    src: Any, dst: Any, shape: Sequence[int], element_bits: int
) -> ConvertLayoutSwizzle:
    """Triton's ``optimalSwizzling`` with the sm_90 instruction tiles (``getSrcDstTiles``):
    every pair of store/load tiles (ld/st.shared, stmatrix/ldmatrix, their transposed forms
    for 16-bit) that can be fully vectorised gets a swizzle; the pair with the fewest bank
    conflicts wins (ties: more reps).  Without such a pair it is
    :func:`constructive_swizzle` with plain ld/st.  One CTA, NVIDIA only.

    Examples:
        Triton's ``Test16x16Bf16BlockedMma``: stored with ld/st.shared, loaded with ldmatrix.

        >>> src = LinearLayout.from_bases([("register", [[0, 1], [0, 2], [0, 4]]),
        ...     ("lane", [[0, 8], [1, 0], [2, 0], [4, 0], [8, 0]])], ["dim0", "dim1"])
        >>> dst = LinearLayout.from_bases([("register", [[0, 1], [8, 0], [0, 8]]),
        ...     ("lane", [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]])], ["dim0", "dim1"])
        >>> choice = convert_layout_swizzle(src, dst, [16, 16], 16)
        >>> choice.store, choice.load, choice.reps
        ('ld/st.shared', 'matrix', 1)
        >>> choice.layout.bases
        [('offset', [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [0, 8], [8, 0], [4, 8]])]
    """
    bits = VECTOR_ELEMENT_BITS.check(element_bits)
    tgt = BANK_MODELS["nvidia"]
    sizes = _shape(shape)
    src_ll = _distributed(layout_argument(src, sizes, "src"), sizes, "src", tgt)
    dst_ll = _distributed(layout_argument(dst, sizes, "dst"), sizes, "dst", tgt)
    check_one_kernel(src_ll, dst_ll)
    pairs = _TilePairs(src_ll.flatten_outs(), dst_ll.flatten_outs(), bits, tgt)
    tiles = [_LDST] + ([_MATRIX] if bits <= 32 else []) + ([_MATRIX_TRANS] if bits == 16 else [])
    candidates = []
    for store in tiles:
        for load in tiles:
            candidate = pairs.swizzle(store, load)
            if candidate is not None:
                candidates.append(candidate)
    if not candidates:
        return ConvertLayoutSwizzle(
            constructive_layout(src_ll, dst_ll, sizes, bits, tgt), "ld/st.shared", "ld/st.shared", 1
        )
    # the fewest conflicts, then the most reps, then the first tried
    best = min(candidates, key=lambda c: (c.conflicts, -c.reps))
    if gf2.rank(best.offsets) != pairs.dim:
        raise LayoutError(
            f"Triton's tile construction is not a bijection here (offset bases {best.offsets})."
        )
    layout = _offset_layout(best.offsets, src_ll.out_dims, pairs.dim)
    return ConvertLayoutSwizzle(layout, best.store, best.load, 1 << best.reps)


_Tile = tuple[str, tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class _TileSwizzle:
    """The swizzle of one store/load tile pair: its offset bases (reps last) and what ranks
    it (bank conflicts of both tiles, reps)."""

    conflicts: int
    reps: int
    offsets: list[int]
    store: str
    load: str


class _TilePairs:
    """The swizzle of each store/load instruction tile pair of ``optimalSwizzling`` for a
    conversion ``src -> dst`` (flattened, broadcast registers dropped)."""

    def __init__(self, src: LinearLayout, dst: LinearLayout, bits: int, tgt: Target) -> None:
        self.src, self.dst, self.bits, self.tgt = src, dst, bits, tgt
        self.dim = src.get_total_out_dim_size_log2()
        self.total = log2_exact(128 // bits)  # register bases of a 128-bit vector
        self.reg_src, self.reg_dst = _flat(src, "register"), _flat(dst, "register")
        self.lane_src, self.lane_dst = _flat(src, "lane"), _flat(dst, "lane")
        self.both = set(self.reg_src) & set(self.reg_dst)

    def swizzle(self, store: _Tile, load: _Tile) -> _TileSwizzle | None:
        """The pair's swizzle, or None where the tiles cannot be fully vectorised."""
        dim = self.dim
        vector = _swizzling_tile(
            self.src, self.dst, self.total - len(store[1]), self.total - len(load[1]),
            store[1], load[1], dim,
        )  # fmt: skip
        if vector is None:
            return None
        tile_src = _instruction_tile(store, self.reg_src, self.lane_src, vector)
        tile_dst = _instruction_tile(load, self.reg_dst, self.lane_dst, vector)
        if tile_src is None or tile_dst is None:
            return None
        leave = min(len(store[1]) + len(store[2]) - 3, len(load[1]) + len(load[2]) - 3)
        bank, kept, reps = _bank_segment_reps(
            vector, tile_src, tile_dst, self.both, dim, self.bits, self.tgt, leave
        )
        conflicts = (1 << len(_intersection(kept, tile_src, dim))) + (
            1 << len(_intersection(kept, tile_dst, dim))
        )
        return _TileSwizzle(conflicts, len(reps), vector + bank + kept + reps, store[0], load[0])


def _swizzling_tile(
    a: LinearLayout, b: LinearLayout, n_reg_a: int, n_reg_b: int,
    contig_a: Sequence[int], contig_b: Sequence[int], dim: int,
) -> list[int] | None:  # fmt: skip
    """Triton's ``optimalSwizzlingTile``: the vector bases (common registers, then b's
    contiguous lanes) shared by a 128-bit tile of ``a``'s and ``b``'s instructions, or None."""
    if n_reg_a < n_reg_b:
        return _swizzling_tile(b, a, n_reg_b, n_reg_a, contig_b, contig_a, dim)
    cvt = b.invert_and_compose(a)  # b's hardware index -> a's
    reg_a, reg_b = _flat(a, "register"), _flat(b, "register")
    lane_a, lane_b = _flat(a, "lane"), _flat(b, "lane")
    vector = _intersection(reg_a, reg_b, dim)
    if len(vector) < n_reg_b:
        return None
    vector = vector[:n_reg_b]
    tile_a = [lane_a[i] for i in contig_a]
    tile_b = [lane_b[i] for i in contig_b]
    if 0 in tile_a or 0 in tile_b:
        return None
    lane_bases = cvt.bases[cvt.get_in_dim_names().index("lane")][1]
    out = cvt.get_out_dim_names()
    for i in range(n_reg_a - n_reg_b):  # b's first contiguous lanes are a's registers
        if lane_bases[contig_b[i]][out.index("register")] == 0:
            return None
    for index_a, index_b in zip(contig_a, list(contig_b)[len(contig_b) - len(contig_a) :]):
        if lane_bases[index_b][out.index("lane")] != 1 << index_a:
            return None
    return vector + tile_b


def _instruction_tile(
    tile: _Tile, regs: list[int], lanes: list[int], vector: list[int]
) -> list[int] | None:
    """The bases one instruction's wavefront spans: the first ``3 - len(laneAddr)``
    registers outside the vector, then the ``laneAddr`` lanes (Triton's ``getTile``)."""
    needed = 3 - len(tile[2])
    picked = [r for r in regs if r not in vector][:needed]
    if len(picked) < needed:
        return None
    return picked + [lanes[i] for i in tile[2]]
