"""The swizzle synthesis problem in Z3: the memory layout as bit-vector unknowns, and the
width and strictly-better queries of :mod:`llverify.shared_memory.swizzle.synthesize` decided by
:func:`llverify.smt.solver.decide`.

The unknown is an invertible GF(2) matrix ``P`` from tensor elements (``n`` bits) to
offsets: ``p[j]`` is the offset of element ``2^j`` and ``m[i]`` the element at offset
``2^i`` (invertibility is ``P(m[i]) = 2^i``).  Vector widths, bank conflicts and wavefronts
are Boolean functions of ``P`` (docs/swizzle.md gives the formulas).  Every query is pure
bit-vector arithmetic (:data:`LOGIC`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import z3

from llverify.proof.verdict import Status
from llverify.smt.solver import decide, model_value, smtlib

__all__ = ["Geometry", "Search", "Side", "SwizzleEncoding"]

#: Every query here fits QF_BV: its terms are bit-vector variables and constants, Extract,
#: bitwise operations, If, bit-vector sums and unsigned comparisons, joined by And/Or/Not
#: (the conflict counts are bit-vector sums, never integers; tests/test_swizzle_synthesize.py
#: walks a query to check every subterm's sort).  It is the solver the synthesizer always
#: used, and the faster one here (150 sweep cases: 18 s against 21 s with the general one).
LOGIC = "QF_BV"
_COUNT_BITS = 16  # wide enough for 2^c * (1 + 2^t) with t <= 7 lane bits


class Side(Protocol):
    """One direction (store of src or load of dst) as flat element bases."""

    @property
    def regs(self) -> tuple[int, ...]:
        """Non-broadcast register bases (flat element indices)."""

    @property
    def others(self) -> tuple[int, ...]:
        """Non-zero lane and warp bases."""


class Geometry(Protocol):
    """How offsets map to words and banks, and what a side's wavefronts are."""

    @property
    def n(self) -> int:
        """Bits of the flattened tensor index."""

    def word_mask(self) -> int: ...

    def bank_mask(self) -> int: ...

    def max_vec_log2(self) -> int: ...

    def pass_tile(self, side: Any, k: int) -> list[int]: ...

    def wavefronts(self, side: Any, k: int, c: int) -> int: ...


@dataclass(frozen=True)
class Search:
    """The answer to "no layout meets these requirements": ``status`` PROVED (none does),
    REFUTED (``columns``: one that does, the element at each offset bit) or UNKNOWN
    (``reason``); ``query`` is the SMT-LIB text for PROVED and UNKNOWN answers."""

    status: Status
    columns: list[int] | None
    query: str
    reason: str
    time_s: float


class SwizzleEncoding:
    """Z3 variables and constraints for one synthesis problem, in a Z3 context of its own:
    its queries' answers and times do not depend on what was solved before in the process.

    Examples:
        >>> from types import SimpleNamespace as NS
        >>> from llverify.hardware import BANK_MODELS
        >>> from llverify.shared_memory.swizzle.synthesize import _Geometry, _Side
        >>> side = _Side((1,), (2, 4), (), None)  # 1 register, 2 lanes over 8 elements
        >>> enc = SwizzleEncoding(side, side, _Geometry(3, 32, BANK_MODELS["nvidia"]))
        >>> enc.widths_unreachable(1, 1, 1000).status
        <Status.REFUTED: 'refuted'>
        >>> enc.widths_unreachable(2, 2, 1000).status  # one register basis: at most 2
        <Status.PROVED: 'proved'>
    """

    def __init__(self, src: Side, dst: Side, geo: Geometry) -> None:
        self.src, self.dst, self.geo = src, dst, geo
        self.ctx = z3.Context()
        n = geo.n
        self.p = [z3.BitVec(f"p{j}", n, self.ctx) for j in range(n)]  # offset of element 2^j
        self.m = [z3.BitVec(f"m{i}", n, self.ctx) for i in range(n)]  # element at offset 2^i
        self.zero = z3.BitVecVal(0, n, self.ctx)
        self.one_count = z3.BitVecVal(1, _COUNT_BITS, self.ctx)
        self.zero_count = z3.BitVecVal(0, _COUNT_BITS, self.ctx)
        self._offsets: dict[int, Any] = {}
        self._vectors: dict[tuple[int, int], Any] = {}
        self._counts: dict[tuple[int, int], tuple[Any, Any] | None] = {}
        self.base: list[Any] = [self.apply(self.m[i]) == (1 << i) for i in range(n)]

    def _bool(self, value: bool) -> Any:
        return z3.BoolVal(value, self.ctx)

    def _and(self, terms: Sequence[Any]) -> Any:
        return z3.And(*terms) if terms else self._bool(True)

    def _or(self, terms: Sequence[Any]) -> Any:
        return z3.Or(*terms) if terms else self._bool(False)

    def offset(self, element: int) -> Any:
        """Offset of a constant element."""
        out = self._offsets.get(element)
        if out is None:
            terms = [self.p[j] for j in range(self.geo.n) if element >> j & 1]
            out = self.zero if not terms else terms[0]
            for t in terms[1:]:
                out = out ^ t
            self._offsets[element] = out
        return out

    def apply(self, element: Any) -> Any:
        """Offset of a variable element."""
        out = self.zero
        for j in range(self.geo.n):
            bit = z3.Extract(j, j, element) == 1
            out = out ^ z3.If(bit, self.p[j], self.zero)
        return out

    def vector_at_least(self, side: Side, k: int) -> Any:
        """``side`` vectorises at least ``2^k`` elements (largestVectorisation)."""
        key = (id(side), k)
        if key not in self._vectors:
            self._vectors[key] = self._vector_at_least(side, k)
        return self._vectors[key]

    def _vector_at_least(self, side: Side, k: int) -> Any:
        if k == 0:
            return self._bool(True)
        low = (1 << k) - 1
        units = [1 << i for i in range(k)]
        conds = []
        for i in range(k):
            conds.append(self._or([self.offset(r) == units[i] for r in side.regs]))
        for r in side.regs:
            off = self.offset(r)
            conds.append(z3.Or([off == u for u in units] + [(off & low) == 0]))
        for b in side.others:
            conds.append((self.offset(b) & low) == 0)
        return self._and(conds)

    def vector_exactly(self, side: Side, k: int) -> Any:
        if k >= self.geo.max_vec_log2():
            return self.vector_at_least(side, k)
        return z3.And(self.vector_at_least(side, k), z3.Not(self.vector_at_least(side, k + 1)))

    def _conflict_counts(self, side: Side, k: int) -> tuple[Any, Any]:
        """``1 +`` the number of non-zero combinations of the pass tile's basis in bank 0's
        position (``Z``) and in element 0's word (``Q``), as 16-bit sums (built once)."""
        key = (id(side), k)
        counts = self._counts.get(key)
        if counts is None:
            offs = [self.offset(t) for t in self.geo.pass_tile(side, k)]
            bank, word = self.geo.bank_mask(), self.geo.word_mask()
            one, zero = self.one_count, self.zero_count
            combos: list[Any] = [self.zero]  # combos[c]: the XOR of the offsets in c
            in_z, in_q = [], []
            for combo in range(1, 1 << len(offs)):
                low = combo & -combo
                o = offs[low.bit_length() - 1]
                if combo != low:
                    o = combos[combo ^ low] ^ o
                combos.append(o)
                in_z.append(z3.If((o & bank) == 0, one, zero))
                in_q.append(z3.If((o & word) == 0, one, zero))
            # bit-vector counts (the query stays pure bit-vector): at most 2^6 combos
            counts = (one + z3.Sum(in_z), one + z3.Sum(in_q))
            self._counts[key] = counts
        return counts

    def conflicts_at_most(self, side: Side, k: int, c: int) -> Any:
        """Conflict exponent of ``side`` at width ``2^k`` is at most ``c``."""
        if c >= len(self.geo.pass_tile(side, k)):
            return self._bool(True)
        in_z, in_q = self._conflict_counts(side, k)
        return z3.ULE(in_z, (1 << c) * in_q)

    def triton_lowers_correctly(self, side: Side, k: int) -> Any:
        """Triton's ld/st lowering computes the right addresses (shared_memory.lowering): no
        register basis it applies with ADD (outside the vector, disjoint from every lane and
        warp offset) shares a bit with one it applies with XOR."""
        units = [1 << i for i in range(k)]
        addr_bits: Any = self.zero
        for b in side.others:
            addr_bits = addr_bits | self.offset(b)
        offs = [self.offset(r) for r in side.regs]
        in_vec = [self._or([o == u for u in units]) for o in offs]
        additive = [z3.And(z3.Not(v), (o & addr_bits) == 0) for o, v in zip(offs, in_vec)]
        conds = []
        for i, oi in enumerate(offs):
            for j, oj in enumerate(offs):
                if i == j:
                    continue
                xor_j = z3.And(z3.Not(in_vec[j]), z3.Not(additive[j]))
                conds.append(z3.Not(z3.And(additive[i], xor_j, (oi & oj) != 0)))
        return self._and(conds)

    def cheaper_than(
        self, widths: Sequence[tuple[int, int]], bound: int | None, triton_safe: bool = False
    ) -> Any:
        """Some layout with one of the (store, load) log2 width pairs and total wavefronts
        < ``bound`` (any wavefronts for None; with ``triton_safe``, one Triton's ld/st
        lowering addresses correctly both ways)."""
        geo, src, dst = self.geo, self.src, self.dst
        options = []
        for ks, kl in widths:
            width = z3.And(self.vector_exactly(src, ks), self.vector_exactly(dst, kl))
            if triton_safe:
                width = z3.And(
                    width,
                    self.triton_lowers_correctly(src, ks),
                    self.triton_lowers_correctly(dst, kl),
                )
            if bound is None:
                options.append(width)
                continue
            t_s = len(geo.pass_tile(src, ks))
            t_l = len(geo.pass_tile(dst, kl))
            stairs = []
            for a in range(t_s + 1):
                store = geo.wavefronts(src, ks, a)
                best_b = -1
                for b in range(t_l + 1):
                    if store + geo.wavefronts(dst, kl, b) < bound:
                        best_b = b
                if best_b >= 0:
                    stairs.append(
                        z3.And(
                            self.conflicts_at_most(src, ks, a),
                            self.conflicts_at_most(dst, kl, best_b),
                        )
                    )
            if stairs:
                options.append(z3.And(width, self._or(stairs)))
        return self._or(options)

    def widths_unreachable(self, ks: int, kl: int, timeout_ms: int) -> Search:
        """Decide "no layout vectorises the store by ``2^ks`` and the load by ``2^kl``"."""
        return self._search(
            [self.vector_at_least(self.src, ks), self.vector_at_least(self.dst, kl)], timeout_ms
        )

    def none_cheaper(
        self,
        widths: Sequence[tuple[int, int]],
        bound: int | None,
        triton_safe: bool,
        timeout_ms: int,
    ) -> Search:
        """Decide "no layout is :meth:`cheaper_than` ``bound``"; a refutation is a cheaper
        layout and a proof is the certificate (its query kept as SMT-LIB text)."""
        return self._search([self.cheaper_than(widths, bound, triton_safe)], timeout_ms)

    def _search(self, requirements: Sequence[Any], timeout_ms: int) -> Search:
        """No time left (``timeout_ms <= 0``) is UNKNOWN without asking the solver."""
        constraints = [*self.base, *requirements]
        if timeout_ms <= 0:
            return Search(
                Status.UNKNOWN, None, smtlib(constraints, LOGIC), "time budget spent", 0.0
            )
        decision = decide(constraints, timeout_ms, logic=LOGIC)
        if decision.status is Status.REFUTED:
            columns = [model_value(decision.model, m) for m in self.m]
            return Search(decision.status, columns, "", "", decision.time_s)
        query = smtlib(constraints, LOGIC)
        return Search(decision.status, None, query, decision.reason, decision.time_s)
