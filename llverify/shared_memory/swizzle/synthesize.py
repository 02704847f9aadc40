"""Optimal shared-memory layouts by constraint solving, with certificates of optimality.

The unknown is the memory layout itself (an invertible GF(2) matrix from tensor elements to
offsets); vector widths, bank conflicts and wavefronts are functions of it, encoded in
:mod:`llverify.smt.swizzle`.  docs/swizzle.md describes the model, the search and the
certificates.

Examples:
    >>> from llverify.encodings import BlockedLayout
    >>> rows = BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0])  # lane = column
    >>> cols = BlockedLayout([1, 1], [32, 1], [1, 1], [0, 1])  # lane = row
    >>> result = synthesize_swizzle(rows, cols, [32, 32], 32)
    >>> result.cost.store_conflicts, result.cost.load_conflicts, str(result.certificate.status)
    (0, 0, 'bound')
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from llverify import gf2
from llverify.arguments import check_one_kernel, layout_argument
from llverify.bits import as_bool, check_timeout
from llverify.errors import LayoutError, shown
from llverify.hardware import ANY_ELEMENT_BITS, Target, resolve_target
from llverify.layout import LinearLayout
from llverify.layout_utils import action_remove_broadcasted_regs
from llverify.proof.verdict import Status
from llverify.shared_memory.access import analyse_access
from llverify.shared_memory.swizzle.constructive import constructive_layout
from llverify.shared_memory.swizzle.cost import SwizzleCost, cost_of
from llverify.shared_memory.swizzle.legacy import LegacyResult, search_family
from llverify.shared_memory.swizzle.starts import CostModel, best_construction, improve
from llverify.shared_memory.wavefronts import pass_count, total_wavefronts

if TYPE_CHECKING:
    from llverify.smt.swizzle import Search, SwizzleEncoding

__all__ = ["Certificate", "SwizzleResult", "synthesize_swizzle"]

_REG, _LANE, _WARP = "register", "lane", "warp"
#: Z3's resource limit (deterministic work units) for the first try of a strictly-better
#: query, about 0.2 s: every UNSAT query of the 1,000-case sweep needs under 175,000.  A
#: query left undecided is retried with twice the limit and another seed (satisfiable ones
#: vary by orders of magnitude between seeds), after a local search, until the budget ends.
_RLIMIT = 250_000


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

    ``status``: :attr:`Status.PROVED` (the solver found the strictly-better query
    unsatisfiable), :attr:`Status.UNKNOWN` (the budget ran out: the result may not be
    optimal, or may not meet the required widths, as ``claim`` says) or :attr:`Status.BOUND`
    (no query was needed: the result meets the trivial lower bound, every side conflict-free
    at its widths).  ``query`` is the strictly-better query in SMT-LIB 2 (empty for BOUND).
    """

    status: Status
    claim: str
    solver: str
    query: str
    seconds: float
    lower_bound: int  # wavefronts no layout with these widths can go below

    @property
    def proved(self) -> bool:
        return self.status.holds

    def recheck(self, timeout_ms: int = 60_000) -> Status:
        """Re-solve the stored query from its text: PROVED confirms the certificate (BOUND
        needs no query), REFUTED contradicts it, UNKNOWN decides nothing."""
        check_timeout(timeout_ms, "timeout_ms", milliseconds=True)
        if self.status is Status.BOUND:
            return Status.PROVED
        from llverify.smt.solver import decide_smtlib

        return decide_smtlib(self.query, timeout_ms).status


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
    #: the steps: {"source": "start" | "construction" | "z3" | "local search", "wavefronts"}
    #: (and "s", the solving time, for "z3")
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
        start: a shared layout to start from (default: the constructive algorithm's, or
            the construction with the hardware's pass tiles where that is cheaper:
            :mod:`~llverify.shared_memory.swizzle.starts`).
        padding: also search padded layouts (:func:`~llverify.shared_memory.swizzle.legacy.
            best_padded_shared`: every order and one (interval, padding) pair, certified
            by enumeration) and return the padded member with at least the required vector
            widths and the fewest wavefronts when it has strictly fewer wavefronts than
            the certified linear optimum.
        triton_safe: only layouts that Triton's ld/st lowering addresses correctly for both
            directions (:mod:`llverify.shared_memory.lowering`: no ADD-applied register stride
            may share a bit with an XOR-applied one); the certificate is then relative to those.
        timeout_s: the solver's budget in all; past it the certificate is "unknown" and the
            result is the best layout found so far (the start layout if none met the
            required widths, which the certificate's claim then says).
    """
    tiles = (src_tile, dst_tile)
    bits, tgt, deadline = _checked_options(
        timeout_s, element_bits, target, vector, min_vector, padding, triton_safe, tiles
    )
    src_ll, dst_ll, start_ll = _checked_layouts(src, dst, start, shape, tgt)
    run = _Synthesis(src_ll, dst_ll, shape, bits, tgt, tiles, triton_safe, deadline)
    return run.result(start_ll, vector, min_vector, padding)


def _checked_options(
    timeout_s: float,
    element_bits: int,
    target: str | Target,
    vector: str,
    min_vector: tuple[int, int] | None,
    padding: bool,
    triton_safe: bool,
    tiles: tuple[Sequence[int] | None, Sequence[int] | None],
) -> tuple[int, Target, float]:
    """:func:`synthesize_swizzle`'s options checked, in order; returns the element bits, the
    target and the solver's deadline (``timeout_s`` from now, the call's start)."""
    started = time.perf_counter()
    check_timeout(timeout_s, "timeout_s")
    bits = ANY_ELEMENT_BITS.check(element_bits)
    tgt = resolve_target(target)
    if vector not in ("symmetric", "asymmetric"):
        raise LayoutError(
            f"Argument 'vector' must be 'symmetric' or 'asymmetric', not {shown(vector)}."
        )
    _check_min_vector(min_vector)
    as_bool(padding, "padding")
    as_bool(triton_safe, "triton_safe")
    if padding and (tiles[0] is not None or tiles[1] is not None):
        raise LayoutError(
            "synthesize_swizzle: 'padding' cannot be combined with 'src_tile'/'dst_tile' "
            "(the padded family is measured with the target's own passes)."
        )
    return bits, tgt, started + timeout_s


def _checked_layouts(
    src: Any, dst: Any, start: Any, shape: Sequence[int], tgt: Target
) -> tuple[LinearLayout, LinearLayout, LinearLayout | None]:
    """The register layouts (checked as a pair) and the start layout, as LinearLayouts."""
    src_ll = layout_argument(src, shape, "src")
    dst_ll = layout_argument(dst, shape, "dst")
    start_ll = None if start is None else layout_argument(start, shape, "start")
    _check_pair(src_ll, dst_ll, tgt)
    return src_ll, dst_ll, start_ll


def _check_pair(src: LinearLayout, dst: LinearLayout, tgt: Target) -> None:
    """Both register layouts cover the same tensor, with the target's lanes, in one CTA,
    with the same warps."""
    if src.out_dims != dst.out_dims:
        raise LayoutError(
            f"Arguments 'src' and 'dst' must cover the same tensor, not {src.out_dims} "
            f"and {dst.out_dims}."
        )
    for name, ll in (("src", src), ("dst", dst)):
        lanes = ll.get_in_dim_size(_LANE) if ll.has_in_dim(_LANE) else 1
        if lanes != tgt.lanes:
            raise LayoutError(
                f"Argument {shown(name)} has {lanes} lanes, but target {tgt.name} has {tgt.lanes}."
            )
        if ll.has_in_dim("block") and ll.get_in_dim_size("block") > 1:
            raise LayoutError(f"Argument {shown(name)} spans several CTAs; one CTA is supported.")
    check_one_kernel(src, dst)


def _check_min_vector(min_vector: Any) -> None:
    if min_vector is not None and (
        not isinstance(min_vector, tuple)
        or len(min_vector) != 2
        or any(not isinstance(v, int) or v < 1 or v & (v - 1) for v in min_vector)
    ):
        raise LayoutError(
            "Argument 'min_vector' must be a (store, load) pair of powers of two, not "
            f"{shown(min_vector)}."
        )


class _Synthesis:
    """One synthesis run: the problem as flat sides, the solver budget, the steps taken."""

    def __init__(
        self,
        src: LinearLayout,
        dst: LinearLayout,
        shape: Sequence[int],
        bits: int,
        tgt: Target,
        tiles: tuple[Sequence[int] | None, Sequence[int] | None],
        triton_safe: bool,
        deadline: float,
    ) -> None:
        self.src_ll, self.dst_ll, self.shape, self.bits, self.tgt = src, dst, shape, bits, tgt
        self.tiles = tiles
        self.triton_safe = triton_safe
        self.deadline = deadline
        self.out_dims = list(src.out_dims)
        self.geo = _Geometry(src.get_total_out_dim_size().bit_length() - 1, bits, tgt)
        self.src, self.dst = _flat_side(src, tiles[0]), _flat_side(dst, tiles[1])
        self.iterations: list[dict[str, Any]] = []

    def result(
        self,
        start: LinearLayout | None,
        vector: str,
        min_vector: tuple[int, int] | None,
        padding: bool,
    ) -> SwizzleResult:
        """The run from ``start``: the required widths, the certified optimum and, with
        ``padding``, the padded member instead where it needs strictly fewer wavefronts."""
        start_cols = self.start_columns(start)
        baseline = self.cost_of(start_cols)
        need = self.required_widths(vector, min_vector, baseline)
        first = (start_cols, baseline, "start")
        if start is None:
            first = self.constructed_start(need, start_cols, baseline)
        best_cols, best, certificate = self.optimize(need, *first)
        padded = None
        if padding:
            padded = search_family(
                "padded_shared", self.src_ll, self.dst_ll, self.shape, self.bits, self.tgt
            )
        choice = None if padded is None else _padded_choice(padded, need, best.total_wavefronts)
        if choice is not None:
            layout, cost, encoding = choice[0].linear_component(self.shape), choice[1], choice[0]
        else:
            layout, cost, encoding = _layout_of(best_cols, self.out_dims), best, None
        return SwizzleResult(
            layout=layout,
            cost=cost,
            certificate=certificate,
            shape=tuple(self.shape),
            element_bits=self.bits,
            target=self.tgt.name,
            baseline=baseline,
            iterations=self.iterations,
            padded=padded,
            padded_encoding=encoding,
        )

    @cached_property
    def encoding(self) -> SwizzleEncoding:
        """The Z3 encoding, built on the first solver query (none when the bound is met)."""
        from llverify.smt.swizzle import SwizzleEncoding

        return SwizzleEncoding(self.src, self.dst, self.geo)

    def budget_ms(self) -> int:
        """What is left of the solver budget (0 or less: spent)."""
        return int((self.deadline - time.perf_counter()) * 1000)

    def cost_of(self, columns: Sequence[int]) -> SwizzleCost:
        layout = _layout_of(columns, self.out_dims)
        return cost_of(self.src_ll, self.dst_ll, layout, self.bits, self.tgt, *self.tiles)

    def acceptable(self, columns: Sequence[int]) -> bool:
        """With ``triton_safe``: Triton's ld/st lowering addresses the layout correctly both
        ways; otherwise always."""
        if not self.triton_safe:
            return True
        layout = _layout_of(columns, self.out_dims)
        return all(
            analyse_access(side, layout, self.bits, self.tgt).triton_miscompile is None
            for side in (self.src_ll, self.dst_ll)
        )

    def start_columns(self, start: LinearLayout | None) -> list[int]:
        """The starting layout's offset columns: the caller's, or the constructive one."""
        if start is None:
            start = constructive_layout(
                self.src_ll, self.dst_ll, self.shape, self.bits, self.tgt, *self.tiles
            )
        columns = _flat_columns(start)
        n = self.geo.n
        if len(columns) != n or gf2.rank(columns) != n:
            raise LayoutError(
                f"Argument 'start' must be a bijective memory layout of the tensor ({n} offset "
                f"bits), not one with offset bases {columns}."
            )
        return columns

    def reachable(self, ks: int, kl: int) -> Status:
        """Can a layout vectorise the store by ``2^ks`` and the load by ``2^kl`` elements?
        REFUTED (of "no layout can"): yes; PROVED: no; UNKNOWN: the solver did not say.
        A construction for these widths that the access analysis measures at least as wide
        is the witness of a yes, without the solver."""
        found = best_construction(self.geo, self.src, self.dst, [(ks, kl)], self.bits, self.tgt)
        if found is not None:
            cost = self.cost_of(found[0])
            if cost.store_vec >= 1 << ks and cost.load_vec >= 1 << kl:
                return Status.REFUTED
        return self.encoding.widths_unreachable(ks, kl, self.budget_ms()).status

    def required_widths(
        self, vector: str, min_vector: tuple[int, int] | None, start: SwizzleCost
    ) -> tuple[int, int]:
        """(store, load) minimum elements per access.

        A symmetric width ``2^k`` needs ``k`` register bases common to both sides at offsets
        ``1, ..., 2^(k-1)``, so ``k <= |regs(src) ∩ regs(dst)|`` (capped at 128 bits); a side
        alone needs ``k <= |regs|``.  A start layout that reaches a bound proves it feasible
        without the solver; an unknown answer counts as not reachable."""
        if min_vector is not None:
            ks, kl = _width_log2(min_vector[0]), _width_log2(min_vector[1])
            if self.reachable(ks, kl) is Status.PROVED:
                raise LayoutError(
                    f"Argument 'min_vector' {min_vector} cannot be met by any memory layout."
                )
            return min_vector
        top = self.geo.max_vec_log2()
        k = min(top, len(set(self.src.regs) & set(self.dst.regs)))
        if min(start.store_vec, start.load_vec) < 1 << k:
            while k > 0 and self.reachable(k, k) is not Status.REFUTED:
                k -= 1
        ks = kl = k
        if vector == "asymmetric":
            if start.load_vec >= 1 << kl:
                ks = max(ks, min(_width_log2(start.store_vec), top))
            while ks < min(top, len(self.src.regs)) and self.reachable(ks + 1, kl) is (
                Status.REFUTED
            ):
                ks += 1
            if start.store_vec >= 1 << ks:
                kl = max(kl, min(_width_log2(start.load_vec), top))
            while kl < min(top, len(self.dst.regs)) and self.reachable(ks, kl + 1) is (
                Status.REFUTED
            ):
                kl += 1
        return 1 << ks, 1 << kl

    def lower_bound(self, widths: Sequence[tuple[int, int]]) -> int:
        """Wavefronts no layout with one of the log2 width pairs ``widths`` goes below (both
        sides conflict-free)."""
        return min(
            self.geo.wavefronts(self.src, ks, 0) + self.geo.wavefronts(self.dst, kl, 0)
            for ks, kl in widths
        )

    def constructed_start(
        self, need: tuple[int, int], columns: list[int], cost: SwizzleCost
    ) -> tuple[list[int], SwizzleCost, str]:
        """The start: the constructive layout, or the cheapest construction with the
        hardware's pass tiles (:func:`~llverify.shared_memory.swizzle.starts.
        best_construction`) where, re-measured, it meets ``need`` with fewer wavefronts
        (and, with ``triton_safe``, Triton lowers it correctly)."""
        widths = _width_pairs(self.geo, need)
        if _meets(cost, need) and cost.total_wavefronts <= self.lower_bound(widths):
            return columns, cost, "start"
        found = best_construction(self.geo, self.src, self.dst, widths, self.bits, self.tgt)
        if found is None or (_meets(cost, need) and found[1] >= cost.total_wavefronts):
            return columns, cost, "start"  # not cheaper, by the model: not measured
        other = self.cost_of(found[0])
        cheaper = not _meets(cost, need) or other.total_wavefronts < cost.total_wavefronts
        if cheaper and _meets(other, need) and self.acceptable(found[0]):
            return found[0], other, "construction"
        return columns, cost, "start"

    def optimize(
        self,
        need: tuple[int, int],
        start_columns: list[int],
        start: SwizzleCost,
        source: str = "start",
    ) -> tuple[list[int], SwizzleCost, Certificate]:
        """Improve on the start until the solver proves that nothing with at least the
        widths ``need`` is cheaper, the trivial lower bound is met, or the budget runs out
        (``source`` names the start in :attr:`SwizzleResult.iterations`)."""
        best: tuple[list[int], SwizzleCost] | None = None
        first = (start_columns, start)
        if _meets(start, need) and self.acceptable(start_columns):
            best = (start_columns, start)
            self.iterations.append({"source": source, "wavefronts": start.total_wavefronts})
        widths = _width_pairs(self.geo, need)
        lower = self.lower_bound(widths)
        model = CostModel(self.geo, self.src, self.dst)
        attempt, searched = 0, False  # retries of this bound; local search from this best
        while True:
            if best is not None and best[1].total_wavefronts <= lower:
                claim = _claim(need, self.bits, best[1].total_wavefronts)
                return (*best, Certificate(Status.BOUND, claim, "none", "", 0.0, lower))
            bound = None if best is None else best[1].total_wavefronts
            search = self.encoding.none_cheaper(
                widths, bound, self.triton_safe, self.budget_ms(), _RLIMIT << attempt, attempt
            )
            if search.status is Status.REFUTED:
                best = self._accept(search.columns, need, bound, search.time_s)
                best = self._improved(model, *best, need) or best
                attempt, searched = 0, True
                continue
            if search.status is Status.UNKNOWN and self.budget_ms() > 0:
                found = None if searched else self._improved(model, *(best or first), need)
                searched = True
                if found is not None:
                    best, attempt = found, 0
                else:
                    attempt += 1
                continue
            if best is None:
                return self._nothing_found(need, search, start_columns, start, lower)
            bound = best[1].total_wavefronts
            floor = bound if search.status is Status.PROVED else lower
            claim = _claim(need, self.bits, bound)
            certificate = Certificate(
                search.status, claim, "z3", search.query, search.time_s, floor
            )
            return (*best, certificate)

    def _improved(
        self, model: CostModel, columns: list[int], cost: SwizzleCost, need: tuple[int, int]
    ) -> tuple[list[int], SwizzleCost] | None:
        """A cheaper layout than ``columns`` (measured ``cost``) by local search on the cost
        model (:func:`~llverify.shared_memory.swizzle.starts.improve`, within the budget),
        re-measured: kept only if it meets ``need``, with fewer wavefronts where ``cost``
        meets it too (and, with ``triton_safe``, Triton lowers it correctly)."""
        need_log2 = (_width_log2(need[0]), _width_log2(need[1]))
        found = improve(model, columns, need_log2, self.deadline)
        if found is None:
            return None
        other = self.cost_of(found[0])
        if not _meets(other, need) or not self.acceptable(found[0]):
            return None
        if _meets(cost, need) and other.total_wavefronts >= cost.total_wavefronts:
            return None
        self.iterations.append({"source": "local search", "wavefronts": other.total_wavefronts})
        return found[0], other

    def _accept(
        self, columns: list[int] | None, need: tuple[int, int], bound: int | None, seconds: float
    ) -> tuple[list[int], SwizzleCost]:
        """The solver's layout, re-measured: it must meet what the query asked for."""
        assert columns is not None
        found = self.cost_of(columns)
        self.iterations.append({"source": "z3", "wavefronts": found.total_wavefronts, "s": seconds})
        if (
            not _meets(found, need)
            or (bound is not None and found.total_wavefronts >= bound)
            or not self.acceptable(columns)
        ):
            raise AssertionError(  # the encoding disagrees with the access analysis
                f"synthesize_swizzle: internal model mismatch: solver layout {columns} measures "
                f"{found} (bound {bound}, widths {need})."
            )
        return columns, found

    def _nothing_found(
        self,
        need: tuple[int, int],
        search: Search,
        start_columns: list[int],
        start: SwizzleCost,
        lower: int,
    ) -> tuple[list[int], SwizzleCost, Certificate]:
        """No layout met the requirements: proved impossible (an error in the arguments), or
        unknown (the start layout comes back with an "unknown" certificate saying so)."""
        widths = (
            f"store vectors >= {need[0] * self.bits} bits and load vectors >= "
            f"{need[1] * self.bits} bits"
        )
        if self.triton_safe:
            widths += " that Triton's ld/st lowering addresses correctly"
        if search.status is Status.PROVED:
            raise LayoutError(f"synthesize_swizzle: no memory layout has {widths}.")
        claim = f"some memory layout has {widths} (the start layout returned does not)"
        certificate = Certificate(Status.UNKNOWN, claim, "z3", search.query, search.time_s, lower)
        return start_columns, start, certificate


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
