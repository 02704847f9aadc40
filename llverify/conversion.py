"""Layout conversions (``ttg.convert_layout``): the conversion map, its proofs, its kind.

``conversion(src, dst, shape)`` builds a :class:`Conversion`:

* ``cvt = src.invert_and_compose(dst)``: for every source hardware index (register, lane,
  warp, block) the destination hardware index that receives its element, so that
  ``dst(cvt(x)) == src(x)``; ``gather = dst.invert_and_compose(src)`` is the direction Triton
  lowers with (each destination slot reads ``src(gather(y)) == dst(y)``);
* ``minimal``: Triton 3.9's ``minimalCvtLayout`` (``gather`` with the common slowest in dims
  quotiented out, ``block`` first, while the map is trivial over them);
* ``kind``: "no-op", "register permutation", "warp shuffle" or "shared memory", decided as
  Triton's ``ConvertLayoutOpToLLVM`` does with ``cvtNeedsWarpShuffle`` (warp-local conversions
  whose register/lane permutation has at most one mixed register-lane transposition, and, as
  Triton 3.9's LLVM shows, conversions that only read a source broadcast over warps through
  lanes: :func:`cvt_shuffles_across_folded_warps`) and
  ``cvtNeedsSharedMemory`` (power-of-2 shapes only: llverify layouts are GF(2)-linear);
* ``verify()`` / ``coverage()``: GF(2) proofs (the maps are linear, so agreeing on 0 and on
  every basis input is agreeing everywhere); counterexamples are replayed with ``apply``;
* ``shuffle_plan()``: the Linear Layouts paper's warp-shuffle plan (section 5.4): vector
  ``V`` (register bases common to both layouts, at most 32 bits), ``2^|R|`` rounds (``R``: the
  other destination register bits), and per round which lane sends which register to which
  lane; ``verify_plan()`` executes it with numpy on every hardware index.  A plan lists every
  register of every lane, so building and executing it are refused beyond the enumeration
  budget (:func:`llverify.evaluate.check_enumeration`); the proofs and the kind are algebra
  and have no limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from llverify import gf2
from llverify.arguments import check_one_kernel, layout_argument
from llverify.errors import LayoutTypeError, NotInvertibleError
from llverify.evaluate import check_enumeration
from llverify.layout import LinearLayout
from llverify.proof.verdict import Status, Verdict, VerdictClock

__all__ = [
    "KINDS",
    "Conversion",
    "ShufflePlan",
    "ShuffleRound",
    "conversion",
    "cvt_needs_shared_memory",
    "cvt_needs_warp_shuffle",
    "cvt_reorders_registers",
    "cvt_shuffles_across_folded_warps",
    "minimal_cvt_layout",
    "mixed_transpositions",
    "warp_bits_read_from_lanes",
]

KINDS = ("no-op", "register permutation", "warp shuffle", "shared memory")
_REG, _LANE, _WARP, _BLOCK = "register", "lane", "warp", "block"
_PLAN_SEARCH_BUDGET = 4096  # (h, kappa) column candidates tried before the greedy fallback
# Peak bytes (ru_maxrss) per (destination register, virtual lane) of a plan (its source
# table and rounds are Python tuples) and per hardware index of ``verify_plan`` (numpy).
_PLAN_BYTES_PER_SLOT = 240
_VERIFY_BYTES_PER_INDEX = 128
_PLAN_REMEDY = "use a smaller tensor shape (--shape)"


# ---------------------------------------------------------------------- helpers


def _in_point(layout: LinearLayout, dim: str, bit: int) -> dict[str, int]:
    return {d: (1 << bit if d == dim else 0) for d in layout.get_in_dim_names()}


def _basis_inputs(layout: LinearLayout) -> list[dict[str, int]]:
    """0 and every single-bit input: enough to decide an identity between linear maps."""
    points = [{d: 0 for d in layout.get_in_dim_names()}]
    for dim, size in layout.in_dims:
        points.extend(_in_point(layout, dim, b) for b in range(size.bit_length() - 1))
    return points


def _pack(values: dict[str, int], dims: Sequence[tuple[str, int]]) -> int:
    packed, offset = 0, 0
    for name, size in dims:
        packed |= values[name] << offset
        offset += size.bit_length() - 1
    return packed


def _unpack(packed: int, dims: Sequence[tuple[str, int]]) -> dict[str, int]:
    out, offset = {}, 0
    for name, size in dims:
        bits = size.bit_length() - 1
        out[name] = (packed >> offset) & ((1 << bits) - 1)
        offset += bits
    return out


def _common_out_dims(a: LinearLayout, b: LinearLayout) -> list[tuple[str, int]]:
    sizes = dict(b.out_dims)
    return [(name, max(size, sizes.get(name, 1))) for name, size in a.out_dims]


# ---------------------------------------------------------------------- Triton's rules


@lru_cache(maxsize=4096)
def minimal_cvt_layout(src: LinearLayout, dst: LinearLayout) -> LinearLayout:
    """Triton's ``minimalCvtLayout``: ``dst.invert_and_compose(src)`` with the common
    trailing in dims (``block``, then ``warp``, ...) quotiented out while it is trivial
    over them.

    Examples:
        >>> a = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2]])], ["dim0"])
        >>> minimal_cvt_layout(a, a).get_in_dim_names()
        []
    """
    s_dims, d_dims = src.get_in_dim_names(), dst.get_in_dim_names()
    dims = []
    for s, d in zip(reversed(s_dims), reversed(d_dims)):
        if s != d:
            break
        dims.append(s)
    comp = dst.invert_and_compose(src)
    for dim in dims:
        quotient = comp.quotient([dim])
        if quotient is None:
            break
        comp = quotient
    return comp


def cvt_reorders_registers(src: LinearLayout, dst: LinearLayout) -> bool:
    """Triton's ``cvtReordersRegisters``: the minimal conversion touches registers only."""
    outs = minimal_cvt_layout(src, dst).get_out_dim_names()
    return outs in ([], [_REG])


def _remove_broadcast_regs(layout: LinearLayout) -> LinearLayout:
    bases = [(dim, [b for b in bs if any(b)] if dim == _REG else bs) for dim, bs in layout.bases]
    return LinearLayout.from_bases(
        bases, layout.get_out_dim_names(), layout.get_out_dim_sizes(), require_surjective=False
    )


def mixed_transpositions(src: LinearLayout, dst: LinearLayout) -> list[tuple[int, int]]:
    """The mixed register-lane transpositions ``(r_i, l_j)`` of Triton's
    ``getWarpLayoutConvertDecomposition`` (the cycle walk of the register/lane permutation
    ``P``, broadcast registers removed, smaller dims padded with zeros).

    Only their number matters for the classification; the byte-permute selectors Triton
    attaches to them do not change it.
    """
    permutation = _register_lane_permutation(
        _remove_broadcast_regs(src), _remove_broadcast_regs(dst)
    )
    return permutation.mixed_transpositions()


_REG_LANE = (_REG, _LANE)


@dataclass(frozen=True)
class _RegisterLanePermutation:
    """The permutation ``P`` of register and lane bits: ``bases[dim][i]`` is the image of
    bit ``i`` of ``dim`` as one-hot (register, lane) values; ``sizes`` the bits per dim."""

    bases: dict[str, list[list[int]]]
    sizes: dict[str, int]

    def flat(self, dim: str, idx: int) -> int:
        """Bit ``idx`` of ``dim`` numbered over register bits, then lane bits."""
        return idx if dim == _REG else self.sizes[_REG] + idx

    def image(self, dim: str, idx: int) -> tuple[str, int]:
        image = (dim, idx)
        for k, val in enumerate(self.bases[dim][idx]):
            if val:
                image = (_REG_LANE[k], val.bit_length() - 1)
        return image

    def mixed_transpositions(self) -> list[tuple[int, int]]:
        """The cycles' mixed transpositions, cycles taken from register bit 0 on."""
        visited = [False] * sum(self.sizes.values())
        result: list[tuple[int, int]] = []
        for dim in _REG_LANE:
            for i in range(self.sizes[dim]):
                if not visited[self.flat(dim, i)]:
                    result += self._cycle(dim, i, visited)
        return result

    def _cycle(self, dim: str, i: int, visited: list[bool]) -> list[tuple[int, int]]:
        """Walk the cycle through bit ``i`` of ``dim`` (marking its bits visited): a
        ``(r, l)`` pair each time it returns from lane bits to register bit ``r`` after
        entering lane bit ``l`` (``-1`` if it started among lane bits)."""
        entry = self.flat(dim, i)
        current = (dim, i)
        lane_start = reg_end = -1
        result = []
        for _ in range(len(visited) + 1):
            visited[self.flat(*current)] = True
            following = self.image(*current)
            if current[0] == _REG and following[0] == _LANE:
                lane_start = following[1]
            elif current[0] == _LANE and following[0] == _REG:
                reg_end = following[1]
            if reg_end >= 0:
                result.append((reg_end, lane_start))
                lane_start = reg_end = -1
            current = following
            if self.flat(*current) == entry:
                return result
        raise ValueError(
            "mixed_transpositions: the register/lane conversion is not a permutation "
            "(the conversion is not warp-local)."
        )


def _register_lane_permutation(src: LinearLayout, dst: LinearLayout) -> _RegisterLanePermutation:
    """``P = src^-1 o dst`` on register and lane bits (the smaller dims padded with zero
    bases), with the bits that neither layout uses fixed and the free bits of the source
    paired in order with those of the destination."""
    outs = src.get_out_dim_names()
    sizes = {d: max(src.get_in_dim_size_log2(d), dst.get_in_dim_size_log2(d)) for d in _REG_LANE}

    def padded(layout: LinearLayout) -> LinearLayout:
        sub = layout.sublayout(list(_REG_LANE), outs)
        bases = [(dim, bs + [[0] * len(outs)] * (sizes[dim] - len(bs))) for dim, bs in sub.bases]
        return LinearLayout.from_bases(bases, outs, sub.get_out_dim_sizes(), False)

    s_ll, t_ll = padded(src), padded(dst)
    p_bases = {dim: [list(b) for b in bs] for dim, bs in s_ll.invert_and_compose(t_ll).bases}
    s_flat, t_flat = s_ll.flatten_outs(), t_ll.flatten_outs()
    src_free: list[tuple[int, int]] = []
    dst_free: list[tuple[int, int]] = []
    for dim_idx, dim in enumerate(_REG_LANE):
        for i in range(sizes[dim]):
            s_val = s_flat.get_basis(dim, i)[0]
            t_val = t_flat.get_basis(dim, i)[0]
            if s_val == 0 and t_val == 0:
                p_bases[dim][i][dim_idx] = 1 << i
            elif s_val == 0:
                src_free.append((dim_idx, i))
            elif t_val == 0:
                dst_free.append((dim_idx, i))
    for (s_dim, s_idx), (d_dim, d_idx) in zip(src_free, dst_free):
        p_bases[_REG_LANE[s_dim]][s_idx][d_dim] = 1 << d_idx
    return _RegisterLanePermutation(p_bases, sizes)


@lru_cache(maxsize=4096)
def cvt_needs_warp_shuffle(src: LinearLayout, dst: LinearLayout) -> bool:
    """Triton's ``cvtNeedsWarpShuffle``: the minimal conversion's out dims are exactly
    (register, lane) and the permutation has fewer than two mixed transpositions."""
    if minimal_cvt_layout(src, dst).get_out_dim_names() != [_REG, _LANE]:
        return False
    return len(mixed_transpositions(src, dst)) < 2


def warp_bits_read_from_lanes(src: LinearLayout, dst: LinearLayout) -> list[int]:
    """The destination warp bits that Triton 3.9 folds into the shuffle's lane index.

    A warp bit qualifies when the gather ``dst.invert_and_compose(src)`` sends it into the
    source lane dim only and the source is broadcast over it (every warp holds the data);
    all other warp bits must be zero or the identity.  Returns ``[]`` when the pattern does
    not apply.  Found empirically: it reproduces Triton 3.9's lowering on all 500 pairs of
    tests/test_conversion_triton.py (Triton's LLVM computes the shuffle's source lane from
    ``lane | warp_id << 5``); the C++ rule that selects it has not been located.
    """
    if not (src.has_in_dim(_WARP) and dst.has_in_dim(_WARP)):
        return []
    gather = dst.invert_and_compose(src)
    outs = gather.get_out_dim_names()
    free = src.get_free_variable_masks().get(_WARP, 0)
    bits = []
    for i in range(gather.get_in_dim_size_log2(_WARP)):
        image = dict(zip(outs, gather.get_basis(_WARP, i)))
        moved = {dim for dim, value in image.items() if value}
        if not moved or (moved == {_WARP} and image[_WARP] == 1 << i):
            continue  # broadcast in the destination, or the same warp
        if moved != {_LANE} or not free >> i & 1:
            return []
        bits.append(i)
    return bits


def _fold_warp_into_lanes(layout: LinearLayout, bits: Sequence[int]) -> LinearLayout:
    """``layout`` with the warp bases ``bits`` moved to the end of the lane bases."""
    table = dict(layout.bases)
    lane = list(table[_LANE]) + [table[_WARP][b] for b in bits]
    warp = [w for i, w in enumerate(table[_WARP]) if i not in bits]
    bases = [
        (dim, lane if dim == _LANE else warp if dim == _WARP else bs) for dim, bs in layout.bases
    ]
    return LinearLayout.from_bases(
        bases, layout.get_out_dim_names(), layout.get_out_dim_sizes(), require_surjective=False
    )


@lru_cache(maxsize=4096)
def cvt_shuffles_across_folded_warps(src: LinearLayout, dst: LinearLayout) -> bool:
    """Triton 3.9 lowers a conversion whose only cross-warp movement is reading a source
    that is broadcast over warps (:func:`warp_bits_read_from_lanes`) with warp shuffles
    when, with those warp bits folded into the lane bits, the register/lane permutation
    has fewer than two mixed transpositions."""
    bits = warp_bits_read_from_lanes(src, dst)
    if not bits:
        return False
    try:
        folded = mixed_transpositions(
            _fold_warp_into_lanes(src, bits), _fold_warp_into_lanes(dst, bits)
        )
    except ValueError:  # not a permutation of the folded register/lane space
        return False
    return len(folded) < 2


def cvt_needs_shared_memory(src: LinearLayout, dst: LinearLayout) -> bool:
    """Triton's ``cvtNeedsSharedMemory`` (power-of-2 shapes)."""
    return not cvt_reorders_registers(src, dst) and not cvt_needs_warp_shuffle(src, dst)


def classify(src: LinearLayout, dst: LinearLayout) -> str:
    """The lowering ``ConvertLayoutOpToLLVM`` picks, as one of :data:`KINDS`."""
    dims = minimal_cvt_layout(src, dst).get_in_dim_names()
    if _BLOCK in dims:
        return "shared memory"
    if _WARP in dims:
        return "warp shuffle" if cvt_shuffles_across_folded_warps(src, dst) else "shared memory"
    if _LANE in dims:
        return "warp shuffle" if cvt_needs_warp_shuffle(src, dst) else "shared memory"
    if _REG in dims:
        return "register permutation"
    return "no-op"


# ---------------------------------------------------------------------- warp shuffles


@dataclass(frozen=True)
class ShuffleRound:
    """One ``shfl.sync.idx`` of a vector: destination lane ``l`` reads the vector that lane
    ``src_lane[l]`` sends (lane ``j`` sends its vector at base register ``send_reg[j]``) and
    writes it at base register ``recv_reg[l]``.  ``send_reg[j] == -1``: lane j sends nothing.

    When the plan folds warp bits (:attr:`ShufflePlan.warp_bits`), the tuples are indexed by
    the *virtual* lane ``lane | f << lane_bits``, ``f`` the warp id's folded bits packed in
    order: each warp runs its own row of the plan, and ``src_lane`` holds real lanes of the
    reader's own warp."""

    src_lane: tuple[int, ...]
    send_reg: tuple[int, ...]
    recv_reg: tuple[int, ...]


@dataclass(frozen=True)
class ShufflePlan:
    """A conversion as warp shuffles (the same plan in every block).

    Attributes:
        vector: pairs ``(dst register bit, src register bit)`` moved together in one shuffle
            (``V``: common register bases, at most 32 bits in all).
        element_bits: bits per element.
        rounds: the shuffles, in order.
        ideal_rounds: ``2**|R|``: destination registers per thread divided by the vector size.
        min_rounds: a lower bound for any plan with this vector: ``ideal_rounds`` (a lane
            receives one vector per round) or, if larger, the vectors that a group of lanes
            holding the same data must send, divided by the group's size (a lane sends one
            vector per round).  Equal to ``ideal_rounds`` for warp-local conversions; larger
            when the lanes of a warp read only part of a broadcast source's lanes.
        warp_bits: the warp id bits folded into the lane index (shuffles across warps of a
            source broadcast over them, :func:`cvt_shuffles_across_folded_warps`); ``()``
            for warp-local conversions, where every warp runs the same plan.
    """

    src: LinearLayout
    dst: LinearLayout
    vector: tuple[tuple[int, int], ...]
    element_bits: int
    rounds: tuple[ShuffleRound, ...]
    ideal_rounds: int
    min_rounds: int
    warp_bits: tuple[int, ...] = ()

    @property
    def vector_elements(self) -> int:
        return 1 << len(self.vector)

    def verify_plan(self) -> Verdict:
        """Execute the plan with numpy on every (block, warp, lane, register) and compare the
        destination registers with the destination layout's elements."""
        clock = Verdict.timed()
        claim = "executing the shuffle plan yields the destination layout"
        check_enumeration(
            self.src.get_total_in_dim_size() + self.dst.get_total_in_dim_size(),
            _VERIFY_BYTES_PER_INDEX,
            "executing the warp-shuffle plan on every hardware index",
            _PLAN_REMEDY,
        )
        outs = _common_out_dims(self.src, self.dst)
        src_vals = _register_file(self.src, outs)
        dst_vals = _register_file(self.dst, outs)
        got = self._execute(src_vals, dst_vals.shape)
        bad = np.argwhere(got != dst_vals)
        if len(bad) == 0:
            return clock.verdict(
                Status.PROVED,
                claim,
                "gf2",
                reason=f"{len(self.rounds)} rounds simulated",
                details={"slots": int(dst_vals.size)},
            )
        block, warp, lane, reg = (int(v) for v in bad[0])
        point = {_REG: reg, _LANE: lane, _WARP: warp, _BLOCK: block}
        point = {k: point[k] for k in self.dst.get_in_dim_names()}
        expected = self.dst.apply(point)
        value = int(got[block, warp, lane, reg])
        actual = _unpack(value, outs) if value >= 0 else {k: -1 for k in expected}
        return clock.verdict(
            Status.REFUTED,
            claim,
            "gf2",
            counterexample=point,
            actual=actual,
            expected=expected,
            reason="destination slot written wrongly or never",
        )

    def _execute(self, src_vals: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """The destination register file (``shape``: block, warp, lane, register) after
        the rounds, from the source's ``src_vals``; -1 where no round writes."""
        got = np.full(shape, -1, dtype=np.int64)
        s_off = np.array(_span([1 << s for _, s in self.vector]), dtype=np.int64)
        d_off = np.array(_span([1 << d for d, _ in self.vector]), dtype=np.int64)
        n_lanes, n_src_lanes = shape[2], src_vals.shape[2]
        lanes = np.arange(n_lanes)
        for warp in range(shape[1]):
            fold = sum((warp >> b & 1) << i for i, b in enumerate(self.warp_bits))
            for rnd in self.rounds:
                j = np.array(rnd.src_lane[fold * n_lanes : (fold + 1) * n_lanes])
                d = np.array(rnd.recv_reg[fold * n_lanes : (fold + 1) * n_lanes])
                s = np.array(rnd.send_reg[fold * n_src_lanes : (fold + 1) * n_src_lanes])[j]
                ok = (d >= 0) & (s >= 0)
                rows, cols = lanes[ok][:, None], (d[ok][:, None] ^ d_off[None, :])
                got[:, warp, rows, cols] = src_vals[:, warp, j[ok][:, None], s[ok][:, None] ^ s_off]
        return got


def _span(columns: Sequence[int]) -> list[int]:
    values = [0]
    for c in columns:
        values += [v ^ c for v in values]
    return values


def _register_file(layout: LinearLayout, outs: Sequence[tuple[str, int]]) -> np.ndarray:
    """``[block, warp, lane, register] -> packed element`` for every hardware index."""
    sizes = dict(layout.in_dims)
    shape = [sizes.get(d, 1) for d in (_BLOCK, _WARP, _LANE, _REG)]
    grids = np.meshgrid(*[np.arange(n, dtype=np.int64) for n in shape], indexing="ij")
    ins = {d: g.ravel() for d, g in zip((_BLOCK, _WARP, _LANE, _REG), grids) if d in sizes}
    values = layout.apply_array(ins)
    packed = np.zeros(grids[0].size, dtype=np.int64)
    offset = 0
    for name, size in outs:
        if name in values:
            packed |= np.asarray(values[name], dtype=np.int64) << offset
        offset += size.bit_length() - 1
    return packed.reshape(shape)


@dataclass(frozen=True)
class _ShuffleProblem:
    """What every round of a plan is built from.

    Attributes:
        sources: ``[reg][lane]`` -> (source register, sending virtual lane) that destination
            register ``reg`` of (virtual) lane ``lane`` reads.
        bases: the destination base registers, one vector each (registers outside ``V``).
        r_bits: the destination register bits outside ``V`` (``R``).
        src_kernel: the real source lanes holding lane 0's data (``K``).
        n_lane_bits: (virtual) destination lane bits.
        n_src_lanes: senders, by virtual lane.
        real_src_lanes: real source lanes per warp.
    """

    sources: list[list[tuple[int, int]]]
    bases: list[int]
    r_bits: list[int]
    src_kernel: list[int]
    n_lane_bits: int
    n_src_lanes: int
    real_src_lanes: int


def _build_plan(
    src: LinearLayout, dst: LinearLayout, element_bits: int, warp_bits: Sequence[int] = ()
) -> ShufflePlan:
    """The paper's construction (section 5.4): ``V`` = common register bases within 32 bits,
    ``R`` = the other destination register bits, and ``2^|R|`` rounds.  Round ``t`` (an
    element of ``span R``) has destination lane ``l`` receive its base register
    ``t ^ h(l)`` for a linear ``h: lane -> span R`` and reads the copy ``j ^ kappa(l)`` of
    its source lane ``j`` (``kappa: lane -> K`` linear, ``K`` the source lanes holding lane
    0's data), ``h`` and ``kappa`` chosen so that lanes reading the same source lane read
    the same source register.  ``h`` and ``kappa`` are searched for (zero first, then a
    bounded depth-first search); if none is found the greedy round filling is the fallback
    (then ``len(rounds)`` may exceed ``ideal_rounds``; on the test zoo it never does).

    ``warp_bits`` (shuffles across folded warps): those warp bits become extra *virtual*
    lane bits of both layouts; a virtual lane reads real lanes of its own warp, which hold
    the data the gather names because the source is broadcast over the folded bits."""
    check_enumeration(
        dst.get_in_dim_size(_REG) * (dst.get_in_dim_size(_LANE) << len(warp_bits)),
        _PLAN_BYTES_PER_SLOT,
        "a warp-shuffle plan (a register of every lane in every round)",
        _PLAN_REMEDY,
    )
    folded_src, folded_dst = src, dst
    if warp_bits:
        folded_src = _fold_warp_into_lanes(src, warp_bits)
        folded_dst = _fold_warp_into_lanes(dst, warp_bits)
    gather = folded_dst.invert_and_compose(folded_src)  # dst hw -> src hw
    reg_cols, lane_cols = _gather_columns(gather, folded_dst)
    vector = _shuffle_vector(folded_dst, gather, reg_cols, element_bits)
    problem = _shuffle_problem(src, dst, reg_cols, lane_cols, vector, len(warp_bits))
    n_lane_bits = problem.n_lane_bits
    rounds = _linear_rounds(problem, [0] * n_lane_bits, [0] * n_lane_bits)  # the common case
    if rounds is None and n_lane_bits:
        options = [(hc, kc) for hc in _span(problem.r_bits) for kc in problem.src_kernel]
        rounds, _ = _search_rounds(problem, options, [], [], _PLAN_SEARCH_BUDGET)
    if rounds is None:
        rounds = _greedy_rounds(problem)
    return ShufflePlan(
        src,
        dst,
        tuple(vector),
        element_bits,
        tuple(rounds),
        len(problem.bases),
        _min_rounds(problem),
        tuple(warp_bits),
    )


def _gather_columns(
    gather: LinearLayout, dst: LinearLayout
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(source register, source lane) that each destination register bit and each
    destination lane bit reads, by ``gather``."""
    zero = {d: 0 for d in dst.get_in_dim_names()}
    n_reg, n_lane = dst.get_in_dim_size_log2(_REG), dst.get_in_dim_size_log2(_LANE)
    points = [(1 << i, 0) for i in range(n_reg)] + [(0, 1 << i) for i in range(n_lane)]
    images = [gather.apply({**zero, _REG: reg, _LANE: lane}) for reg, lane in points]
    cols = [(out.get(_REG, 0), out.get(_LANE, 0)) for out in images]
    return cols[:n_reg], cols[n_reg:]


def _shuffle_vector(
    dst: LinearLayout,
    gather: LinearLayout,
    reg_cols: Sequence[tuple[int, int]],
    element_bits: int,
) -> list[tuple[int, int]]:
    """``V``: (destination, source) register bits whose element sits one source register bit
    away in the same lane (a common register basis), at most 32 bits per shuffled vector."""
    zero = {d: 0 for d in dst.get_in_dim_names()}
    vector: list[tuple[int, int]] = []
    max_vec = max(1, 32 // element_bits)
    used_src = 0
    for i, (s, _) in enumerate(reg_cols):
        if (2 << len(vector)) > max_vec:
            break
        if not any(dst.get_basis(_REG, i)):
            continue
        out = gather.apply({**zero, _REG: 1 << i})
        if (
            s
            and s & (s - 1) == 0
            and not s & used_src
            and all(v == 0 for k, v in out.items() if k != _REG)
        ):
            vector.append((i, s.bit_length() - 1))
            used_src |= s
    return vector


def _shuffle_problem(
    src: LinearLayout,
    dst: LinearLayout,
    reg_cols: Sequence[tuple[int, int]],
    lane_cols: Sequence[tuple[int, int]],
    vector: Sequence[tuple[int, int]],
    n_folded: int,
) -> _ShuffleProblem:
    """The rounds' inputs for the (unfolded) ``src -> dst`` with ``n_folded`` warp bits
    folded into the lanes of the gather columns."""
    real_src_lanes = src.get_in_dim_size(_LANE)
    v_dst = sum(1 << d for d, _ in vector)
    n_dst_reg = len(reg_cols)
    src_zero = {d: 0 for d in src.get_in_dim_names()}
    return _ShuffleProblem(
        sources=_source_table(reg_cols, lane_cols, real_src_lanes, dst.get_in_dim_size(_LANE)),
        bases=[r for r in range(1 << n_dst_reg) if not r & v_dst],
        r_bits=[1 << i for i in range(n_dst_reg) if not v_dst >> i & 1],
        # K: real source lanes holding the same data as lane 0 (the source's lane kernel);
        # a lane may read any copy, j ^ k for k in K.
        src_kernel=[
            k
            for k in range(real_src_lanes)
            if all(v == 0 for v in src.apply({**src_zero, _LANE: k}).values())
        ],
        n_lane_bits=len(lane_cols),
        n_src_lanes=real_src_lanes << n_folded,
        real_src_lanes=real_src_lanes,
    )


def _source_table(
    reg_cols: Sequence[tuple[int, int]],
    lane_cols: Sequence[tuple[int, int]],
    real_src_lanes: int,
    real_dst_lanes: int,
) -> list[list[tuple[int, int]]]:
    """``[reg][lane]`` -> (source register, sending virtual lane): the sender is a real lane
    of the reader's warp (the source is broadcast over the folded warp bits, so every warp
    holds what the gather names)."""
    reg_span = _span([s | j << 32 for s, j in reg_cols])
    lane_span = _span([s | j << 32 for s, j in lane_cols])
    table = []
    for r in reg_span:
        row = []
        for lane, v in enumerate(lane_span):
            both = r ^ v
            j = (both >> 32) % real_src_lanes + (lane // real_dst_lanes) * real_src_lanes
            row.append((both & 0xFFFFFFFF, j))
        table.append(row)
    return table


def _min_rounds(problem: _ShuffleProblem) -> int:
    """A lower bound on the rounds: one vector received per lane and round, and lanes
    ``j ^ K`` (which hold the same data) together send ``|K|`` vectors a round."""
    kernel = problem.src_kernel
    group_of = [min(j ^ k for k in kernel) for j in range(problem.n_src_lanes)]
    needed: dict[int, set[int]] = {}
    for reg in problem.bases:
        for s_reg, s_lane in problem.sources[reg]:
            needed.setdefault(group_of[s_lane], set()).add(s_reg)
    return max([len(problem.bases)] + [-(-len(regs) // len(kernel)) for regs in needed.values()])


def _linear_rounds(
    problem: _ShuffleProblem, h_cols: Sequence[int], k_cols: Sequence[int]
) -> list[ShuffleRound] | None:
    """The rounds for linear ``h``/``kappa`` given on the first ``len(h_cols)`` lane bits,
    over the lanes they span; None if two readers ask a sender for different vectors."""
    h = _span(h_cols)  # h[l] for every lane l (span enumerates in lane-bit order)
    kappa = _span(k_cols)
    n_lanes = 1 << problem.n_lane_bits
    rounds = []
    for t in problem.bases:
        send = [-1] * problem.n_src_lanes
        read = [0] * n_lanes
        recv = [-1] * n_lanes
        for lane in range(len(h)):
            reg = t ^ h[lane]
            s_reg, s_lane = problem.sources[reg][lane]
            s_lane ^= kappa[lane]
            if send[s_lane] not in (-1, s_reg):
                return None
            send[s_lane] = s_reg
            read[lane], recv[lane] = s_lane % problem.real_src_lanes, reg
        rounds.append(ShuffleRound(tuple(read), tuple(send), tuple(recv)))
    return rounds


def _search_rounds(
    problem: _ShuffleProblem,
    options: Sequence[tuple[int, int]],
    h_cols: list[int],
    k_cols: list[int],
    budget: int,
) -> tuple[list[ShuffleRound] | None, int]:
    """Depth-first search over the columns ``options`` of h and kappa, lane bit by lane bit
    (a prefix is checked on the lanes it spans), zero columns first, extending the prefix
    ``h_cols``/``k_cols``; each candidate tried spends one of ``budget``.  Returns the rounds
    (None if none found within the budget) and the budget left."""
    for hc, kc in options:
        budget -= 1
        if budget < 0:
            return None, budget
        h_next, k_next = h_cols + [hc], k_cols + [kc]
        found = _linear_rounds(problem, h_next, k_next)
        if found is None:
            continue
        if len(h_next) == problem.n_lane_bits:
            return found, budget
        deeper, budget = _search_rounds(problem, options, h_next, k_next, budget)
        if deeper is not None or budget < 0:
            return deeper, budget
    return None, budget


def _greedy_rounds(problem: _ShuffleProblem) -> list[ShuffleRound]:
    """Rounds filled greedily: each lane takes its first pending register whose sender is
    still free this round."""
    n_lanes = 1 << problem.n_lane_bits
    pending = {lane: list(problem.bases) for lane in range(n_lanes)}
    rounds: list[ShuffleRound] = []
    while any(pending.values()):
        send = [-1] * problem.n_src_lanes
        read = [0] * n_lanes
        recv = [-1] * n_lanes
        for lane in range(n_lanes):
            for k, reg in enumerate(pending[lane]):
                s_reg, s_lane = problem.sources[reg][lane]
                if send[s_lane] in (-1, s_reg):
                    send[s_lane] = s_reg
                    read[lane], recv[lane] = s_lane % problem.real_src_lanes, reg
                    del pending[lane][k]
                    break
        rounds.append(ShuffleRound(tuple(read), tuple(send), tuple(recv)))
    return rounds


# ---------------------------------------------------------------------- the result object


@dataclass(frozen=True)
class Conversion:
    """A layout conversion ``src -> dst`` (see the module docstring), between two layouts of
    one kernel (the same lanes, warps and CTAs: :func:`llverify.arguments.check_one_kernel`).

    ``cvt`` may be given explicitly (to check a hand-written or corrupted conversion);
    otherwise it is ``src.invert_and_compose(dst)``, or None when the destination does not
    hold every source element (then :meth:`verify` is refuted).
    """

    src: LinearLayout
    dst: LinearLayout
    cvt: LinearLayout | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_one_kernel(self.src, self.dst)
        if self.cvt is None:
            try:
                object.__setattr__(self, "cvt", self.src.invert_and_compose(self.dst))
            except NotInvertibleError:
                pass

    # --- Triton's view -------------------------------------------------------------

    @property
    def gather(self) -> LinearLayout:
        """``dst.invert_and_compose(src)``: the source slot each destination slot reads."""
        if "gather" not in self._cache:
            self._cache["gather"] = self.dst.invert_and_compose(self.src)
        return self._cache["gather"]

    @property
    def minimal(self) -> LinearLayout:
        """Triton's ``minimalCvtLayout``."""
        if "minimal" not in self._cache:
            self._cache["minimal"] = minimal_cvt_layout(self.src, self.dst)
        return self._cache["minimal"]

    @property
    def kind(self) -> str:
        """One of :data:`KINDS`, as Triton 3.9 lowers the conversion."""
        if "kind" not in self._cache:
            self._cache["kind"] = classify(self.src, self.dst)
        return self._cache["kind"]

    @property
    def needs_shared_memory(self) -> bool:
        """Triton's lowering goes through shared memory (``kind == "shared memory"``)."""
        return self.kind == "shared memory"

    @property
    def needs_warp_shuffle(self) -> bool:
        """Triton's lowering uses warp shuffles (``kind == "warp shuffle"``), including the
        shuffles across warps of a broadcast source (:func:`cvt_shuffles_across_folded_warps`)."""
        return self.kind == "warp shuffle"

    @property
    def broadcast(self) -> dict[str, dict[str, int]]:
        """Per layout, per in dim, the free-variable (redundant copy) bits: inputs that only
        hold duplicates of elements held with those bits zero."""
        return {
            "src": self.src.get_free_variable_masks(),
            "dst": self.dst.get_free_variable_masks(),
        }

    def store_representative(self, element: dict[str, int]) -> dict[str, int]:
        """The source hardware index that stores ``element`` when going through shared
        memory: the one whose broadcast (free-variable) bits are all zero."""
        return self.src.pseudoinvert().apply(element)

    # --- proofs --------------------------------------------------------------------

    def verify(self) -> Verdict:
        """Prove ``dst(cvt(x)) == src(x)`` for every source hardware index ``x``."""
        clock = Verdict.timed()
        claim = "dst(cvt(x)) == src(x) for every hardware index x"
        if self.cvt is None:
            miss = _uncovered(self.dst, self.src)
            assert miss is not None
            return _uncovered_verdict(
                clock, claim, miss, "no destination slot holds this source element"
            )
        mismatch = _basis_mismatch(self.src, self.cvt, self.dst)
        if mismatch is not None:
            point, target, actual, expected = mismatch
            return clock.verdict(
                Status.REFUTED,
                claim,
                "gf2",
                counterexample=point,
                actual=actual,
                expected=expected,
                reason=f"cvt sends it to {target}",
            )
        return clock.verdict(
            Status.PROVED, claim, "gf2", reason="linear maps agreeing on 0 and every basis input"
        )

    def verify_gather(self) -> Verdict:
        """Prove ``src(gather(y)) == dst(y)`` for every destination hardware index ``y``
        (the direction Triton's lowering reads in)."""
        clock = Verdict.timed()
        claim = "src(gather(y)) == dst(y) for every hardware index y"
        try:
            gather = self.gather
        except NotInvertibleError:
            return self.coverage()
        mismatch = _basis_mismatch(self.dst, gather, self.src)
        if mismatch is not None:
            point, _, actual, expected = mismatch
            return clock.verdict(
                Status.REFUTED, claim, "gf2", counterexample=point, actual=actual, expected=expected
            )
        return clock.verdict(
            Status.PROVED, claim, "gf2", reason="linear maps agreeing on 0 and every basis input"
        )

    def coverage(self) -> Verdict:
        """Prove that every destination element has a source (image(dst) within image(src));
        a refutation names the destination hardware index and its uncovered element."""
        clock = Verdict.timed()
        claim = "every destination element is held by some source hardware index"
        miss = _uncovered(self.src, self.dst)
        if miss is None:
            return clock.verdict(Status.PROVED, claim, "gf2", reason="image(dst) is in span(src)")
        return _uncovered_verdict(clock, claim, miss, f"no source holds element {miss[1]}")

    # --- warp shuffles -------------------------------------------------------------

    @property
    def warp_local(self) -> bool:
        """No data crosses warps or blocks (the minimal conversion touches only
        register and lane)."""
        return set(self.minimal.get_out_dim_names()) <= {_REG, _LANE}

    def shuffle_plan(self, element_bits: int = 32) -> ShufflePlan:
        """A warp-shuffle plan: for warp-local conversions, and for shuffles across warps
        of a broadcast source (the plan then has ``warp_bits``: one row per warp)."""
        if not self.warp_local and self.kind == "warp shuffle":
            bits = warp_bits_read_from_lanes(self.src, self.dst)
            return _build_plan(self.src, self.dst, element_bits, bits)
        if not self.warp_local:
            raise ValueError(
                f"shuffle_plan: the conversion moves data across "
                f"{sorted(set(self.minimal.get_out_dim_names()) - {_REG, _LANE})}, not only "
                f"within a warp (kind: {self.kind})."
            )
        return _build_plan(self.src, self.dst, element_bits)


def _basis_mismatch(
    first: LinearLayout, move: LinearLayout, then: LinearLayout
) -> tuple[dict[str, int], dict[str, int], dict[str, int], dict[str, int]] | None:
    """The first basis input ``x`` of ``first`` with ``then(move(x)) != first(x)``, as
    ``(x, move(x), then(move(x)), first(x))``; None when the linear maps agree (they then
    agree everywhere: 0 and every single-bit input decide an identity).

    Examples:
        >>> one = LinearLayout.from_bases([("register", [[1]])], ["dim0"])
        >>> same = LinearLayout.identity_1d(2, "register", "register")
        >>> zero = LinearLayout.from_bases([("register", [[0]])], ["register"], [2], False)
        >>> _basis_mismatch(one, same, one) is None
        True
        >>> _basis_mismatch(one, zero, one)
        ({'register': 1}, {'register': 0}, {'dim0': 0}, {'dim0': 1})
    """
    for point in _basis_inputs(first):
        expected = first.apply(point)
        moved = move.apply({d: point.get(d, 0) for d in move.get_in_dim_names()})
        target = {d: moved.get(d, 0) for d in then.get_in_dim_names()}
        actual = then.apply(target)
        if any(actual.get(k, 0) != v for k, v in expected.items()):
            return point, target, actual, expected
    return None


def _uncovered_verdict(
    clock: VerdictClock, claim: str, miss: tuple[dict[str, int], dict[str, int]], reason: str
) -> Verdict:
    """The refutation of ``claim`` by :func:`_uncovered`'s ``(input, element)``: that input's
    element has no counterpart (no actual value)."""
    point, element = miss
    return clock.verdict(
        Status.REFUTED,
        claim,
        "gf2",
        counterexample=point,
        actual=None,
        expected=element,
        reason=reason,
    )


def _uncovered(
    have: LinearLayout, want: LinearLayout
) -> tuple[dict[str, int], dict[str, int]] | None:
    """A basis input of ``want`` whose element ``have`` never produces, or None.

    (Linear images: one uncovered element implies an uncovered basis image.)"""
    outs = _common_out_dims(want, have)
    if {n for n, _ in have.out_dims} != {n for n, _ in outs}:
        raise LayoutTypeError(
            f"the layouts have different out dims: {have.get_out_dim_names()} and "
            f"{want.get_out_dim_names()}."
        )
    span = gf2.EchelonBasis()
    for point in _basis_inputs(have)[1:]:
        span.insert(_pack(have.apply(point), outs))
    for point in _basis_inputs(want)[1:]:
        element = want.apply(point)
        if span.express(_pack(element, outs)) is None:
            return point, element
    return None


def conversion(src: Any, dst: Any, shape: Sequence[int] | None = None) -> Conversion:
    """The conversion ``src -> dst``: layouts, llverify encodings, TTGIR text or Gluon objects
    (``shape`` needed for encodings unless given by a ``tensor<...>`` type).

    Examples:
        >>> from llverify.encodings import BlockedLayout
        >>> a = BlockedLayout([1, 4], [8, 4], [2, 1], [1, 0])
        >>> b = BlockedLayout([4, 1], [4, 8], [1, 2], [0, 1])
        >>> c = conversion(a, b, [32, 32])
        >>> c.kind, c.verify().proved, c.coverage().proved
        ('shared memory', True, True)
        >>> conversion(a, BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1]), [32, 32])
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Arguments 'src' and 'dst' must be layouts of one kernel: the same lanes per warp, warps per CTA and CTAs (in dim sizes lane, warp, block), not lane=32, warp=2, block=1 ('src') and lane=32, warp=4, block=1 ('dst').
    """  # noqa: E501
    return Conversion(layout_argument(src, shape, "src"), layout_argument(dst, shape, "dst"))
