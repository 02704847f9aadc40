"""The swizzle synthesis problem for Z3: the memory layout as bit-vector unknowns, and the
width and strictly-better queries of :mod:`llverify.shared_memory.swizzle.synthesize` decided by
:func:`llverify.smt.solver.decide_smtlib`.

The unknown is an invertible GF(2) matrix ``P`` from tensor elements (``n`` bits) to
offsets: ``p[j]`` is the offset of element ``2^j`` and ``m[i]`` the element at offset
``2^i`` (invertibility is ``P(m[i]) = 2^i``).  Vector widths, bank conflicts and wavefronts
are Boolean functions of ``P`` (docs/swizzle.md gives the formulas).  Every query is pure
bit-vector arithmetic (:data:`LOGIC`).

The queries are written as SMT-LIB 2 text (shared subterms as ``define-fun``), which Z3
parses into the encoding's own context: building them through Z3's Python API took longer
than solving them, and the text solved is exactly the certificate's ``query``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import z3

from llverify.proof.verdict import Status
from llverify.smt.solver import decide_smtlib, model_value

__all__ = ["Geometry", "Search", "Side", "SwizzleEncoding"]

#: Every query here fits QF_BV: its terms are bit-vector variables and constants, extract,
#: bitwise operations, ite, bit-vector sums and unsigned comparisons, joined by and/or/not
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
    """The SMT-LIB terms of one synthesis problem, solved in a Z3 context of its own: its
    queries' answers and times do not depend on what was solved before in the process.

    Terms are SMT-LIB 2 strings over the declared ``p``/``m`` variables and the named
    subterms defined so far; :meth:`query` writes a whole query, :meth:`terms` parses one
    into the context.

    Examples:
        >>> from llverify.hardware import BANK_MODELS
        >>> from llverify.shared_memory.swizzle.synthesize import _Geometry, _Side
        >>> side = _Side((1,), (2, 4), (), None)  # 1 register, 2 lanes over 8 elements
        >>> enc = SwizzleEncoding(side, side, _Geometry(3, 32, BANK_MODELS["nvidia"]))
        >>> enc.widths_unreachable(1, 1, 1000).status
        <Status.REFUTED: 'refuted'>
        >>> enc.widths_unreachable(2, 2, 1000).status  # one register basis: at most 2
        <Status.PROVED: 'proved'>
        >>> enc.offset(3)
        '(bvxor p0 p1)'
    """

    def __init__(self, src: Side, dst: Side, geo: Geometry) -> None:
        self.src, self.dst, self.geo = src, dst, geo
        self.ctx = z3.Context()
        n = geo.n
        self.sort = f"(_ BitVec {n})"
        self.zero = self.const(0)
        self.m = [z3.BitVec(f"m{i}", n, self.ctx) for i in range(n)]  # element at offset 2^i
        self._definitions: dict[str, str] = {}  # name -> define-fun command, in order
        self._offsets: dict[int, str] = {}
        self._tiles: dict[tuple[int, ...], _Tile] = {}
        declare = [f"(declare-fun {v}{i} () {self.sort})" for v in "pm" for i in range(n)]
        self._declarations = "\n".join(declare)
        #: invertibility: P(m[i]) = 2^i
        self.base = [f"(= {self.apply(f'm{i}')} {self.const(1 << i)})" for i in range(n)]

    # ------------------------------------------------------------------ building terms

    def const(self, value: int, bits: int | None = None) -> str:
        """A bit-vector constant (``n`` bits unless ``bits``)."""
        return f"(_ bv{value} {self.geo.n if bits is None else bits})"

    def _define(self, name: str, sort: str, term: str) -> str:
        if name not in self._definitions:
            self._definitions[name] = f"(define-fun {name} () {sort} {term})"
        return name

    def _name(self, side: Side) -> str:
        if side is self.src:
            return "s"
        if side is self.dst:
            return "d"
        raise ValueError("Argument 'side' must be the encoding's src or dst side.")

    def offset(self, element: int) -> str:
        """Offset of a constant element."""
        out = self._offsets.get(element)
        if out is None:
            terms = [f"p{j}" for j in range(self.geo.n) if element >> j & 1]
            out = _apply("bvxor", terms, self.zero)
            self._offsets[element] = out
        return out

    def apply(self, element: str) -> str:
        """Offset of a variable element (a bit-vector term)."""
        terms = [
            f"(ite (= ((_ extract {j} {j}) {element}) #b1) p{j} {self.zero})"
            for j in range(self.geo.n)
        ]
        return _apply("bvxor", terms, self.zero)

    def vector_at_least(self, side: Side, k: int) -> str:
        """``side`` vectorises at least ``2^k`` elements (largestVectorisation)."""
        if k == 0:
            return "true"
        name = f"vec_{self._name(side)}{k}"
        if name in self._definitions:
            return name
        low = self.const((1 << k) - 1)
        units = [self.const(1 << i) for i in range(k)]
        conds = []
        for unit in units:
            conds.append(_or([f"(= {self.offset(r)} {unit})" for r in side.regs]))
        for r in side.regs:
            off = self.offset(r)
            is_unit = [f"(= {off} {u})" for u in units]
            conds.append(_or([*is_unit, f"(= (bvand {off} {low}) {self.zero})"]))
        for b in side.others:
            conds.append(f"(= (bvand {self.offset(b)} {low}) {self.zero})")
        return self._define(name, "Bool", _and(conds))

    def vector_exactly(self, side: Side, k: int) -> str:
        if k >= self.geo.max_vec_log2():
            return self.vector_at_least(side, k)
        return _and([self.vector_at_least(side, k), f"(not {self.vector_at_least(side, k + 1)})"])

    def _tile(self, tile: tuple[int, ...]) -> _Tile:
        """The non-zero combinations of a pass tile's basis (built once per tile): for each,
        "its offset is in bank 0's position" (``Z``) and "in element 0's word" (``Q``), and
        ``1 +`` the number of each as 16-bit sums."""
        built = self._tiles.get(tile)
        if built is None:
            index = len(self._tiles)
            offs = [self.offset(t) for t in tile]
            bank, word = self.const(self.geo.bank_mask()), self.const(self.geo.word_mask())
            one, zero = self.const(1, _COUNT_BITS), self.const(0, _COUNT_BITS)
            sort = f"(_ BitVec {_COUNT_BITS})"
            combos = [self.zero]  # combos[c]: the XOR of the offsets in c
            in_z, in_q = [], []
            for combo in range(1, 1 << len(offs)):
                low = combo & -combo
                o = offs[low.bit_length() - 1]
                if combo != low:
                    o = self._define(
                        f"t{index}_{combo}", self.sort, f"(bvxor {combos[combo ^ low]} {o})"
                    )
                combos.append(o)
                in_z.append(f"(= (bvand {o} {bank}) {self.zero})")
                in_q.append(f"(= (bvand {o} {word}) {self.zero})")
            # bit-vector counts (the query stays pure bit-vector): at most 2^6 combos
            count_z = [one, *(f"(ite {z} {one} {zero})" for z in in_z)]
            count_q = [one, *(f"(ite {q} {one} {zero})" for q in in_q)]
            built = _Tile(
                self._define(f"z{index}", sort, _apply("bvadd", count_z, one)),
                self._define(f"q{index}", sort, _apply("bvadd", count_q, one)),
                _and([f"(=> {z} {q})" for z, q in zip(in_z, in_q)]),
            )
            self._tiles[tile] = built
        return built

    def conflicts_at_most(self, side: Side, k: int, c: int) -> str:
        """Conflict exponent of ``side`` at width ``2^k`` is at most ``c``:
        ``|T ∩ Z| <= 2^c |T ∩ Q|``.  For ``c = 0`` that is ``T ∩ Z ⊆ T ∩ Q`` (``Q ⊆ Z``:
        bank bits are word bits), written combination by combination without counting
        (an equivalent formula that Z3 decides with less work)."""
        tile = tuple(self.geo.pass_tile(side, k))
        if c >= len(tile):
            return "true"
        built = self._tile(tile)
        if c == 0:
            return built.conflict_free
        return f"(bvule {built.in_z} (bvmul {self.const(1 << c, _COUNT_BITS)} {built.in_q}))"

    def triton_lowers_correctly(self, side: Side, k: int) -> str:
        """Triton's ld/st lowering computes the right addresses (shared_memory.lowering): no
        register basis it applies with ADD (outside the vector, disjoint from every lane and
        warp offset) shares a bit with one it applies with XOR."""
        units = [self.const(1 << i) for i in range(k)]
        addr_bits = _apply("bvor", [self.offset(b) for b in side.others], self.zero)
        offs = [self.offset(r) for r in side.regs]
        in_vec = [_or([f"(= {o} {u})" for u in units]) for o in offs]
        additive = [
            _and([f"(not {v})", f"(= (bvand {o} {addr_bits}) {self.zero})"])
            for o, v in zip(offs, in_vec)
        ]
        conds = []
        for i, oi in enumerate(offs):
            for j, oj in enumerate(offs):
                if i == j:
                    continue
                xor_j = _and([f"(not {in_vec[j]})", f"(not {additive[j]})"])
                shares = f"(not (= (bvand {oi} {oj}) {self.zero}))"
                conds.append(f"(not {_and([additive[i], xor_j, shares])})")
        return _and(conds)

    def cheaper_than(
        self, widths: Sequence[tuple[int, int]], bound: int | None, triton_safe: bool = False
    ) -> str:
        """Some layout with one of the (store, load) log2 width pairs and total wavefronts
        < ``bound`` (any wavefronts for None; with ``triton_safe``, one Triton's ld/st
        lowering addresses correctly both ways)."""
        geo, src, dst = self.geo, self.src, self.dst
        options = []
        for ks, kl in widths:
            width = [self.vector_exactly(src, ks), self.vector_exactly(dst, kl)]
            if triton_safe:
                width += [
                    self.triton_lowers_correctly(src, ks),
                    self.triton_lowers_correctly(dst, kl),
                ]
            if bound is None:
                options.append(_and(width))
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
                        _and(
                            [
                                self.conflicts_at_most(src, ks, a),
                                self.conflicts_at_most(dst, kl, best_b),
                            ]
                        )
                    )
            if stairs:
                options.append(_and([*width, _or(stairs)]))
        return _or(options)

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
        rlimit: int | None = None,
        seed: int = 0,
    ) -> Search:
        """Decide "no layout is :meth:`cheaper_than` ``bound``"; a refutation is a cheaper
        layout and a proof is the certificate (its query kept as SMT-LIB text).  ``rlimit``
        bounds Z3's work (deterministic, unlike the time limit) and ``seed`` varies its
        search, for retries."""
        requirements = [self.cheaper_than(widths, bound, triton_safe)]
        return self._search(requirements, timeout_ms, rlimit, seed)

    def query(self, requirements: Sequence[str]) -> str:
        """The satisfiability query of the base constraints and ``requirements`` as
        SMT-LIB 2 text (with the definitions made so far and ``(check-sat)``)."""
        asserts = [f"(assert {term})" for term in (*self.base, *requirements)]
        return "\n".join(
            [f"(set-logic {LOGIC})", self._declarations, *self._definitions.values(),
             *asserts, "(check-sat)", ""]
        )  # fmt: skip

    def terms(self, requirements: Sequence[str]) -> list[Any]:
        """The assertions of :meth:`query`, parsed into the encoding's Z3 context."""
        return list(z3.parse_smt2_string(self.query(requirements), ctx=self.ctx))

    def _search(
        self,
        requirements: Sequence[str],
        timeout_ms: int,
        rlimit: int | None = None,
        seed: int = 0,
    ) -> Search:
        """No time left (``timeout_ms <= 0``) is UNKNOWN without asking the solver."""
        text = self.query(requirements)
        if timeout_ms <= 0:
            return Search(Status.UNKNOWN, None, text, "time budget spent", 0.0)
        decision = decide_smtlib(text, timeout_ms, rlimit, logic=LOGIC, ctx=self.ctx, seed=seed)
        if decision.status is Status.REFUTED:
            columns = [model_value(decision.model, m) for m in self.m]
            return Search(decision.status, columns, "", "", decision.time_s)
        return Search(decision.status, None, text, decision.reason, decision.time_s)


@dataclass(frozen=True)
class _Tile:
    """A pass tile's terms: ``1 +`` the combinations in ``Z`` and in ``Q`` (named sums) and
    "every combination in ``Z`` is in ``Q``" (conflict-free)."""

    in_z: str
    in_q: str
    conflict_free: str


def _apply(operator: str, terms: Sequence[str], empty: str) -> str:
    """``(operator terms...)``; the one term alone, or ``empty`` for none."""
    if len(terms) <= 1:
        return terms[0] if terms else empty
    return f"({operator} {' '.join(terms)})"


def _and(terms: Sequence[str]) -> str:
    return _apply("and", terms, "true")


def _or(terms: Sequence[str]) -> str:
    return _apply("or", terms, "false")
