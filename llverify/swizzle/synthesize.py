"""Optimal shared-memory layouts by constraint solving, with certificates.

The unknown is the memory layout itself: an invertible GF(2) matrix ``P`` from tensor
elements (the flattened tensor index, ``n`` bits) to shared-memory offsets.  Everything the
cost model of :mod:`llverify.access` needs is a Boolean function of ``P``:

* **vector width** (Triton's ``largestVectorisation``): ``src`` stores ``2^k`` elements per
  lane access iff offsets ``1, 2, ..., 2^(k-1)`` are images of ``src`` register bases and no
  other ``src`` basis (register, lane, warp) touches the low ``k`` offset bits;
* **bank conflicts** (hardware-exact, paper Lemma 9.4 without the within-word bits): with
  ``T`` the span of the elements that the lanes of one pass access, the conflicts are
  ``2^(dim(T ∩ Z) - dim(T ∩ Q)) - 1``, ``Z`` = elements whose word lands in bank 0's
  row-relative position (bank bits of the word address zero), ``Q`` = elements inside the
  word of element 0; the dimensions are counted over the ``2^dim T - 1`` non-zero
  combinations of a basis of ``T``;
* **wavefronts** of a side with ``2^k``-element vectors and conflict exponent ``c``:
  ``warps x (registers / 2^k) x passes(k) x 2^c``.

The synthesizer (Z3 bit-vectors) first fixes the vector widths (the widest symmetric width,
optionally widened per side, or the caller's minimum), starts from the constructive
algorithm's layout when it meets them, and asks repeatedly for a layout with at least those
widths and strictly fewer total wavefronts.  Each SAT answer is rebuilt as a layout and
re-measured with :func:`llverify.swizzle.cost.swizzle_cost` (the access analysis, which the
brute-force simulator confirms); the final UNSAT answer is the **certificate**: no memory
layout with at least these vector widths has fewer wavefronts.  It is kept as SMT-LIB text
and can be re-checked (:meth:`Certificate.recheck`).  A timeout leaves the certificate
"unknown", never "proved".

Examples:
    >>> from llverify.encodings import BlockedLayout
    >>> rows = BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0])  # lane = column
    >>> cols = BlockedLayout([1, 1], [32, 1], [1, 1], [0, 1])  # lane = row
    >>> result = synthesize_swizzle(rows, cols, [32, 32], 32)
    >>> result.cost.store_conflicts, result.cost.load_conflicts, result.certificate.status
    (0, 0, 'bound')
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

from llverify import gf2
from llverify.errors import LayoutError
from llverify.hardware import ANY_ELEMENT_BITS, Target, resolve_target
from llverify.layout import LinearLayout
from llverify.layout_utils import action_remove_broadcasted_regs
from llverify.swizzle.constructive import constructive_swizzle
from llverify.swizzle.cost import SwizzleCost, swizzle_cost
from llverify.swizzle.legacy import LegacyResult, best_padded_shared
from llverify.wavefront_count import pass_count, total_wavefronts

__all__ = ["Certificate", "SwizzleResult", "synthesize_swizzle"]

_REG, _LANE, _WARP = "register", "lane", "warp"
_COUNT_BITS = 16  # wide enough for 2^c * (1 + 2^t) with t <= 7 lane bits
_ONE, _ZERO = z3.BitVecVal(1, _COUNT_BITS), z3.BitVecVal(0, _COUNT_BITS)


# ---------------------------------------------------------------------- the problem


@dataclass(frozen=True)
class _Side:
    """One direction (store of src or load of dst) as flat element bases."""

    regs: tuple[int, ...]  # non-broadcast register bases (flat element indices)
    lanes: tuple[int, ...]  # lane bases (0 = broadcast lane)
    warps: tuple[int, ...]
    tile: tuple[int, ...] | None  # explicit lane indices of one pass (ldmatrix-style)

    @property
    def others(self) -> tuple[int, ...]:
        return tuple(b for b in self.lanes + self.warps if b)

    def element_of_lane(self, lane: int) -> int:
        value = 0
        for i, basis in enumerate(self.lanes):
            if lane >> i & 1:
                value ^= basis
        return value


def _flat_side(layout: LinearLayout, tile: Sequence[int] | None) -> _Side:
    flat = action_remove_broadcasted_regs(layout).apply(layout).flatten_outs()

    def column(dim: str) -> tuple[int, ...]:
        if not flat.has_in_dim(dim):
            return ()
        return tuple(flat.get_basis(dim, i)[0] for i in range(flat.get_in_dim_size_log2(dim)))

    return _Side(column(_REG), column(_LANE), column(_WARP), None if tile is None else tuple(tile))


@dataclass(frozen=True)
class _Geometry:
    """How offsets map to 32-bit words and banks for one element size and target."""

    n: int  # bits of the flattened tensor index
    element_bits: int
    target: Target

    @property
    def word_shift(self) -> int:
        """word address = offset >> shift (negative: offset << -shift)."""
        return (
            (32 // self.element_bits).bit_length() - 1
            if self.element_bits < 32
            else -((self.element_bits // 32).bit_length() - 1)
        )

    def word_mask(self) -> int:
        """Offset bits that are part of the word address."""
        full = (1 << self.n) - 1
        return full & ~((1 << self.word_shift) - 1) if self.word_shift > 0 else full

    def bank_mask(self) -> int:
        """Offset bits that select the bank (word address bits below log2(banks))."""
        bank_bits = self.target.banks.bit_length() - 1
        shift = self.word_shift
        lo, hi = (shift, shift + bank_bits) if shift >= 0 else (0, bank_bits + shift)
        hi = min(hi, self.n)
        return ((1 << hi) - 1) & ~((1 << lo) - 1) if hi > lo else 0

    def max_vec_log2(self) -> int:
        return min((128 // self.element_bits).bit_length() - 1, self.n)

    def words_per_lane(self, k: int) -> int:
        return max(1, ((1 << k) * self.element_bits) // 32)

    def pass_tile(self, side: _Side, k: int) -> list[int]:
        """A basis of the span of the elements one pass accesses (vector base elements)."""
        if side.tile is not None:
            lanes = [1 << i for i in side.tile]
        else:
            lanes = self.target.pass_lanes(self.words_per_lane(k))
        basis = gf2.EchelonBasis()
        out = []
        for lane in lanes:
            element = side.element_of_lane(lane)
            if element and basis.insert(element):
                out.append(element)
        return out

    def passes(self, side: _Side, k: int) -> int:
        return pass_count(self.target.lanes, self.target.pass_lanes(self.words_per_lane(k)))

    def wavefronts(self, side: _Side, k: int, c: int) -> int:
        instructions = (1 << len(side.warps)) * ((1 << len(side.regs)) >> k)
        return total_wavefronts(instructions, self.passes(side, k), (1 << c) - 1)


# ---------------------------------------------------------------------- results


@dataclass(frozen=True)
class Certificate:
    """The evidence that nothing with at least the result's vector widths is cheaper.

    ``status``: "proved" (the solver answered UNSAT to the strictly-better query),
    "unknown" (timeout: the result may not be optimal), or "bound" (no query was needed:
    the result meets the trivial lower bound, every side conflict-free at its widths).
    ``query`` is the strictly-better query in SMT-LIB 2 (empty for "bound").
    """

    status: str
    claim: str
    solver: str
    query: str
    seconds: float
    lower_bound: int  # wavefronts no layout with these widths can go below

    @property
    def proved(self) -> bool:
        return self.status in ("proved", "bound")

    def recheck(self, timeout_ms: int = 60_000) -> str:
        """Re-solve the stored query from its text: "unsat" confirms the certificate."""
        if self.status == "bound":
            return "unsat"
        solver = z3.Solver()
        solver.set("timeout", timeout_ms)
        solver.from_string(self.query)
        return str(solver.check())


@dataclass(frozen=True)
class SwizzleResult:
    """A synthesized shared-memory layout with its cost and certificate."""

    layout: LinearLayout  # offset -> tensor coordinates (Gluon's SharedLinearLayout)
    cost: SwizzleCost
    certificate: Certificate
    shape: tuple[int, ...]
    element_bits: int
    target: str
    baseline: SwizzleCost | None  # the constructive algorithm's cost, when it ran
    iterations: list[dict[str, Any]] = field(default_factory=list)
    padded: LegacyResult | None = None  # the padded family searched (``padding=True``)
    padded_encoding: Any = None  # the chosen PaddedSharedLayout, when padding won

    @property
    def is_padded(self) -> bool:
        """A padded layout won (``padding=True``): ``layout`` is its linear component and
        ``encoding()`` the ``PaddedSharedLayout``."""
        return self.padded_encoding is not None

    @property
    def offset_bases(self) -> list[list[int]]:
        """The offset bases, as ``SharedLinearLayout(offset_bases=...)`` takes them."""
        return [list(b) for b in self.layout.bases[0][1]]

    def encoding(self) -> Any:
        """The layout as an encoding: a :class:`~llverify.encodings.SharedLinearLayout`,
        or the padded family's ``PaddedSharedLayout`` when :attr:`is_padded`."""
        if self.is_padded:
            return self.padded_encoding
        from llverify.encodings import SharedLinearLayout

        return SharedLinearLayout(self.offset_bases)

    def gluon(self) -> str:
        """Gluon code constructing the layout."""
        if self.is_padded:
            enc = self.padded_encoding
            pairs = [list(pair) for pair in enc.interval_padding_pairs]
            return (
                f"ttgl.PaddedSharedLayout.with_identity_for({pairs}, {list(enc.shape)}, "
                f"{list(enc.order)})"
            )
        return f"ttgl.SharedLinearLayout(offset_bases={self.offset_bases})"

    def ttgir(self) -> str:
        """The TTGIR attribute text of the layout (``#ttg.shared_linear``)."""
        return str(self.encoding().ttgir())


# ---------------------------------------------------------------------- encoding


class _Encoding:
    """Z3 variables and constraints for one synthesis problem."""

    def __init__(self, src: _Side, dst: _Side, geo: _Geometry) -> None:
        self.src, self.dst, self.geo = src, dst, geo
        n = geo.n
        self.p = [z3.BitVec(f"p{j}", n) for j in range(n)]  # offset of element 2^j
        self.m = [z3.BitVec(f"m{i}", n) for i in range(n)]  # element at offset 2^i
        self.base: list[Any] = [self.apply(self.m[i]) == (1 << i) for i in range(n)]

    def offset(self, element: int) -> Any:
        """Offset of a constant element."""
        terms = [self.p[j] for j in range(self.geo.n) if element >> j & 1]
        if not terms:
            return z3.BitVecVal(0, self.geo.n)
        out = terms[0]
        for t in terms[1:]:
            out = out ^ t
        return out

    def apply(self, element: Any) -> Any:
        """Offset of a variable element."""
        n = self.geo.n
        out = z3.BitVecVal(0, n)
        for j in range(n):
            bit = z3.Extract(j, j, element) == 1
            out = out ^ z3.If(bit, self.p[j], z3.BitVecVal(0, n))
        return out

    def vector_at_least(self, side: _Side, k: int) -> Any:
        """``side`` vectorises at least ``2^k`` elements (largestVectorisation)."""
        if k == 0:
            return z3.BoolVal(True)
        low = (1 << k) - 1
        units = [1 << i for i in range(k)]
        conds = []
        for i in range(k):
            conds.append(z3.Or([self.offset(r) == units[i] for r in side.regs] or [False]))
        for r in side.regs:
            off = self.offset(r)
            conds.append(z3.Or([off == u for u in units] + [(off & low) == 0]))
        for b in side.others:
            conds.append((self.offset(b) & low) == 0)
        return z3.And(conds)

    def vector_exactly(self, side: _Side, k: int) -> Any:
        if k >= self.geo.max_vec_log2():
            return self.vector_at_least(side, k)
        return z3.And(self.vector_at_least(side, k), z3.Not(self.vector_at_least(side, k + 1)))

    def conflicts_at_most(self, side: _Side, k: int, c: int) -> Any:
        """Conflict exponent of ``side`` at width ``2^k`` is at most ``c``."""
        tile = self.geo.pass_tile(side, k)
        if c >= len(tile):
            return z3.BoolVal(True)
        offs = [self.offset(t) for t in tile]
        bank, word = self.geo.bank_mask(), self.geo.word_mask()
        in_z, in_q = [], []
        for combo in range(1, 1 << len(tile)):
            o: Any = z3.BitVecVal(0, self.geo.n)
            for i, off in enumerate(offs):
                if combo >> i & 1:
                    o = o ^ off
            in_z.append(z3.If((o & bank) == 0, _ONE, _ZERO))
            in_q.append(z3.If((o & word) == 0, _ONE, _ZERO))
        # bit-vector counts (the QF_BV solver takes no integer terms): at most 2^6 combos
        return z3.ULE(_ONE + z3.Sum(in_z), (1 << c) * (_ONE + z3.Sum(in_q)))

    def triton_lowers_correctly(self, side: _Side, k: int) -> Any:
        """Triton's ld/st lowering computes the right addresses (llverify.lowering): no
        register basis it applies with ADD (outside the vector, disjoint from every lane and
        warp offset) shares a bit with one it applies with XOR."""
        units = [1 << i for i in range(k)]
        addr_bits: Any = z3.BitVecVal(0, self.geo.n)
        for b in side.others:
            addr_bits = addr_bits | self.offset(b)
        offs = [self.offset(r) for r in side.regs]
        in_vec = [z3.Or([o == u for u in units]) if units else z3.BoolVal(False) for o in offs]
        additive = [z3.And(z3.Not(v), (o & addr_bits) == 0) for o, v in zip(offs, in_vec)]
        conds = []
        for i, oi in enumerate(offs):
            for j, oj in enumerate(offs):
                if i == j:
                    continue
                xor_j = z3.And(z3.Not(in_vec[j]), z3.Not(additive[j]))
                conds.append(z3.Not(z3.And(additive[i], xor_j, (oi & oj) != 0)))
        return z3.And(conds) if conds else z3.BoolVal(True)

    def layout_from(self, model: Any) -> list[int]:
        """Element at each offset bit."""
        return [model.eval(m, model_completion=True).as_long() for m in self.m]


# ---------------------------------------------------------------------- synthesis


def _layout_of(columns: Sequence[int], out_dims: Sequence[tuple[str, int]]) -> LinearLayout:
    n = len(columns)
    first = out_dims[0][0] if out_dims else "dim0"
    flat = LinearLayout.from_bases(
        [("offset", [[c] for c in columns]), ("block", [])], [first], [1 << n]
    )
    return flat.reshape_outs(out_dims)


def _flat_columns(layout: LinearLayout) -> list[int]:
    flat = layout.flatten_outs()
    return [flat.get_basis("offset", i)[0] for i in range(flat.get_in_dim_size_log2("offset"))]


def _width_log2(elements: int) -> int:
    return elements.bit_length() - 1


def synthesize_swizzle(
    src: Any,
    dst: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | Target = "nvidia",
    *,
    vector: str = "symmetric",
    min_vector: tuple[int, int] | None = None,
    src_tile: Sequence[int] | None = None,
    dst_tile: Sequence[int] | None = None,
    start: Any = None,
    padding: bool = False,
    triton_safe: bool = False,
    timeout_s: float = 60.0,
) -> SwizzleResult:
    """The shared-memory layout for ``src -> shared -> dst`` with the widest vectors, then
    the fewest store + load wavefronts, with a certificate of optimality.

    Args:
        src, dst: the register layouts (LinearLayouts, encodings, TTGIR text; see
            :func:`llverify.arguments.layout_argument`).
        shape: the tensor shape.
        element_bits: bits per element (1..64, dividing 128).
        target: "nvidia", "gfx942", "gfx950" or a :class:`~llverify.hardware.Target`.
        vector: "symmetric" (default: the widest width both sides reach) or "asymmetric"
            (then each side as wide as it can get, store first, keeping the other's).
        min_vector: (store, load) minimum elements per access instead of ``vector``.
        src_tile, dst_tile: lane indices of one pass (ldmatrix/stmatrix tiles, AMD phases).
        start: a shared layout to start from (default: the constructive algorithm's).
        padding: also search padded layouts (:func:`~llverify.swizzle.legacy.
            best_padded_shared`: every order and one (interval, padding) pair, certified
            by enumeration) and return the padded member with at least the required vector
            widths and the fewest wavefronts when it has strictly fewer wavefronts than
            the certified linear optimum.
        triton_safe: only layouts that Triton's ld/st lowering addresses correctly for both
            directions (:mod:`llverify.lowering`: no ADD-applied register stride may share
            a bit with an XOR-applied one); the certificate is then relative to those.
        timeout_s: the solver's budget in all; past it the certificate is "unknown".
    """
    from llverify.arguments import layout_argument

    started = time.perf_counter()
    bits = ANY_ELEMENT_BITS.check(element_bits)
    tgt = resolve_target(target)
    if vector not in ("symmetric", "asymmetric"):
        raise LayoutError(f"Argument 'vector' must be 'symmetric' or 'asymmetric', not {vector!r}.")
    src_ll = layout_argument(src, shape, "src")
    dst_ll = layout_argument(dst, shape, "dst")
    if src_ll.out_dims != dst_ll.out_dims:
        raise LayoutError(
            f"Arguments 'src' and 'dst' must cover the same tensor, not {src_ll.out_dims} "
            f"and {dst_ll.out_dims}."
        )
    for name, ll in (("src", src_ll), ("dst", dst_ll)):
        lanes = ll.get_in_dim_size(_LANE) if ll.has_in_dim(_LANE) else 1
        if lanes != tgt.lanes:
            raise LayoutError(
                f"Argument {name!r} has {lanes} lanes, but target {tgt.name} has {tgt.lanes}."
            )
        if ll.has_in_dim("block") and ll.get_in_dim_size("block") > 1:
            raise LayoutError(f"Argument {name!r} spans several CTAs; one CTA is supported.")
    out_dims = list(src_ll.out_dims)
    n = src_ll.get_total_out_dim_size().bit_length() - 1
    geo = _Geometry(n, bits, tgt)
    s_side, d_side = _flat_side(src_ll, src_tile), _flat_side(dst_ll, dst_tile)
    enc = _Encoding(s_side, d_side, geo)
    deadline = started + timeout_s

    def solve(extra: Sequence[Any]) -> tuple[str, Any, str]:
        solver = z3.SolverFor("QF_BV")
        left = max(1, int((deadline - time.perf_counter()) * 1000))
        solver.set("timeout", left)
        solver.add(*enc.base, *extra)
        answer = solver.check()
        model = solver.model() if answer == z3.sat else None
        return str(answer), model, solver.to_smt2()

    def cost_of(columns: Sequence[int]) -> SwizzleCost:
        return swizzle_cost(
            src_ll, dst_ll, _layout_of(columns, out_dims), shape, bits, tgt, src_tile, dst_tile
        )

    def miscompile_free(columns: Sequence[int]) -> bool:
        from llverify.access import access_analysis

        layout = _layout_of(columns, out_dims)
        return all(
            access_analysis(side, layout, shape, bits, tgt).triton_miscompile is None
            for side in (src_ll, dst_ll)
        )

    # 1. the starting point: the constructive layout (or the caller's)
    best_cols: list[int] | None = None
    best: SwizzleCost | None = None
    iterations: list[dict[str, Any]] = []
    start_layout = start
    if start_layout is None:
        start_layout = constructive_swizzle(src_ll, dst_ll, shape, bits, tgt, src_tile, dst_tile)
    start_cols = _flat_columns(layout_argument(start_layout, shape, "start"))
    if len(start_cols) != n or gf2.rank(start_cols) != n:
        raise LayoutError(
            f"Argument 'start' must be a bijective memory layout of the tensor ({n} offset "
            f"bits), not one with offset bases {start_cols}."
        )
    baseline = cost_of(start_cols)

    # 2. vector widths (the start's widths spare the solver when they meet the upper bound)
    need = _required_widths(enc, geo, vector, min_vector, solve, baseline)
    if _meets(baseline, need) and (not triton_safe or miscompile_free(start_cols)):
        best_cols, best = start_cols, baseline
        iterations.append({"source": "start", "wavefronts": baseline.total_wavefronts})

    # 3. improve until UNSAT
    widths = _width_pairs(geo, need)
    lower = min(geo.wavefronts(s_side, ks, 0) + geo.wavefronts(d_side, kl, 0) for ks, kl in widths)
    certificate: Certificate | None = None
    while True:
        bound = best.total_wavefronts if best is not None else None
        if bound is not None and bound <= lower:
            certificate = Certificate(
                "bound",
                _claim(need, bits, bound),
                "none",
                "",
                0.0,
                lower,
            )
            break
        query = _cheaper_than(enc, geo, widths, bound, triton_safe)
        t0 = time.perf_counter()
        answer, model, smt2 = solve([query])
        dt = time.perf_counter() - t0
        if answer == "unsat":
            assert bound is not None
            certificate = Certificate("proved", _claim(need, bits, bound), "z3", smt2, dt, bound)
            break
        if answer != "sat":
            certificate = Certificate(
                "unknown",
                _claim(need, bits, bound if bound is not None else -1),
                "z3",
                smt2,
                dt,
                lower,
            )
            break
        cols = enc.layout_from(model)
        found = cost_of(cols)
        iterations.append({"source": "z3", "wavefronts": found.total_wavefronts, "s": dt})
        wrong_address = triton_safe and not miscompile_free(cols)
        if (
            not _meets(found, need)
            or (bound is not None and found.total_wavefronts >= bound)
            or wrong_address
        ):
            raise AssertionError(  # the encoding disagrees with the access analysis
                f"synthesize_swizzle: internal model mismatch: solver layout {cols} measures "
                f"{found} (bound {bound}, widths {need})."
            )
        best_cols, best = cols, found
    padded: LegacyResult | None = None
    if padding:
        if src_tile is not None or dst_tile is not None:
            raise LayoutError(
                "synthesize_swizzle: 'padding' cannot be combined with 'src_tile'/'dst_tile' "
                "(the padded family is measured with the target's own passes)."
            )
        padded = best_padded_shared(src_ll, dst_ll, shape, bits, tgt)
    if best_cols is None or best is None:
        raise LayoutError(
            "synthesize_swizzle: the solver found no layout within the time budget "
            f"({timeout_s} s); raise 'timeout_s'."
        )
    choice = None if padded is None else _padded_choice(padded, need, best.total_wavefronts)
    if choice is not None:
        encoding, cost = choice
        return SwizzleResult(
            layout=encoding.linear_component(shape),
            cost=cost,
            certificate=certificate,
            shape=tuple(shape),
            element_bits=bits,
            target=tgt.name,
            baseline=baseline,
            iterations=iterations,
            padded=padded,
            padded_encoding=encoding,
        )
    return SwizzleResult(
        layout=_layout_of(best_cols, out_dims),
        cost=best,
        certificate=certificate,
        shape=tuple(shape),
        element_bits=bits,
        target=tgt.name,
        baseline=baseline,
        iterations=iterations,
        padded=padded,
    )


def _padded_choice(
    padded: LegacyResult, need: tuple[int, int], bound: int
) -> tuple[Any, SwizzleCost] | None:
    """The padded member with at least the required widths and the fewest wavefronts (then
    the smallest allocation, then table order), if it beats ``bound`` (the certified linear
    optimum's wavefronts)."""
    from llverify.encodings import PaddedSharedLayout

    best: tuple[tuple[int, int, int], dict[str, Any], SwizzleCost] | None = None
    for index, ((params, cost), size) in enumerate(zip(padded.table, padded.padded_sizes)):
        if not isinstance(cost, SwizzleCost) or not _meets(cost, need):
            continue
        key = (cost.total_wavefronts, size, index)
        if cost.total_wavefronts < bound and (best is None or key < best[0]):
            best = (key, dict(params), cost)
    if best is None:
        return None
    return PaddedSharedLayout.with_identity_for(**best[1]), best[2]


def _claim(need: tuple[int, int], bits: int, bound: int) -> str:
    return (
        f"no memory layout with store vectors >= {need[0] * bits} bits and load vectors >= "
        f"{need[1] * bits} bits needs fewer than {bound} wavefronts (store + load)"
    )


def _meets(cost: SwizzleCost, need: tuple[int, int]) -> bool:
    return cost.store_vec >= need[0] and cost.load_vec >= need[1]


def _width_pairs(geo: _Geometry, need: tuple[int, int]) -> list[tuple[int, int]]:
    top = geo.max_vec_log2()
    lo_s, lo_l = _width_log2(need[0]), _width_log2(need[1])
    return [(ks, kl) for ks in range(lo_s, top + 1) for kl in range(lo_l, top + 1)]


def _required_widths(
    enc: _Encoding,
    geo: _Geometry,
    vector: str,
    min_vector: tuple[int, int] | None,
    solve: Any,
    start: SwizzleCost,
) -> tuple[int, int]:
    """(store, load) minimum elements per access.

    A symmetric width ``2^k`` needs ``k`` register bases common to both sides at offsets
    ``1, ..., 2^(k-1)``, so ``k <= |regs(src) ∩ regs(dst)|`` (capped at 128 bits); a side
    alone needs ``k <= |regs|``.  A start layout that reaches a bound proves it feasible
    without the solver."""
    if min_vector is not None:
        if (
            not isinstance(min_vector, tuple)
            or len(min_vector) != 2
            or any(not isinstance(v, int) or v < 1 or v & (v - 1) for v in min_vector)
        ):
            raise LayoutError(
                "Argument 'min_vector' must be a (store, load) pair of powers of two, not "
                f"{min_vector!r}."
            )
        ks, kl = _width_log2(min_vector[0]), _width_log2(min_vector[1])
        answer, _, _ = solve([enc.vector_at_least(enc.src, ks), enc.vector_at_least(enc.dst, kl)])
        if answer != "sat":
            raise LayoutError(
                f"Argument 'min_vector' {min_vector} cannot be met by any memory layout "
                f"(solver: {answer})."
            )
        return min_vector
    top = geo.max_vec_log2()
    k = min(top, len(set(enc.src.regs) & set(enc.dst.regs)))
    if min(start.store_vec, start.load_vec) < 1 << k:
        while k > 0:
            answer, _, _ = solve([enc.vector_at_least(enc.src, k), enc.vector_at_least(enc.dst, k)])
            if answer == "sat":
                break
            k -= 1
    ks = kl = k
    if vector == "asymmetric":
        if start.load_vec >= 1 << kl:
            ks = max(ks, min(_width_log2(start.store_vec), top))
        while ks < min(top, len(enc.src.regs)):
            answer, _, _ = solve(
                [enc.vector_at_least(enc.src, ks + 1), enc.vector_at_least(enc.dst, kl)]
            )
            if answer != "sat":
                break
            ks += 1
        if start.store_vec >= 1 << ks:
            kl = max(kl, min(_width_log2(start.load_vec), top))
        while kl < min(top, len(enc.dst.regs)):
            answer, _, _ = solve(
                [enc.vector_at_least(enc.src, ks), enc.vector_at_least(enc.dst, kl + 1)]
            )
            if answer != "sat":
                break
            kl += 1
    return 1 << ks, 1 << kl


def _cheaper_than(
    enc: _Encoding,
    geo: _Geometry,
    widths: Sequence[tuple[int, int]],
    bound: int | None,
    triton_safe: bool = False,
) -> Any:
    """Some layout with one of the width pairs and total wavefronts < bound (and, with
    ``triton_safe``, one Triton's ld/st lowering addresses correctly both ways)."""
    options = []
    for ks, kl in widths:
        width = z3.And(enc.vector_exactly(enc.src, ks), enc.vector_exactly(enc.dst, kl))
        if triton_safe:
            width = z3.And(
                width,
                enc.triton_lowers_correctly(enc.src, ks),
                enc.triton_lowers_correctly(enc.dst, kl),
            )
        if bound is None:
            options.append(width)
            continue
        t_s = len(geo.pass_tile(enc.src, ks))
        t_l = len(geo.pass_tile(enc.dst, kl))
        stairs = []
        for a in range(t_s + 1):
            store = geo.wavefronts(enc.src, ks, a)
            best_b = -1
            for b in range(t_l + 1):
                if store + geo.wavefronts(enc.dst, kl, b) < bound:
                    best_b = b
            if best_b >= 0:
                stairs.append(
                    z3.And(
                        enc.conflicts_at_most(enc.src, ks, a),
                        enc.conflicts_at_most(enc.dst, kl, best_b),
                    )
                )
        if stairs:
            options.append(z3.And(width, z3.Or(stairs)))
    return z3.Or(options) if options else z3.BoolVal(False)
