"""Sound ranges of DAG nodes, narrowed by the run's assumptions: where a gathered address lies.

A range is a *wrapped interval* ``(lo, hi)`` of integers with ``0 <= hi - lo < 2**bits``: the
bit patterns ``v mod 2**bits`` of the integers ``lo <= v <= hi``, for a node of ``bits`` bits
(its bytes times 8).  One interval is thus an unsigned range, a signed one, or one that wraps
past ``2**bits``.  Addition, subtraction and multiplication are congruences, so they work on
any representative; an operation whose result would span ``2**bits`` values or more gives the
full range (a wrap-around is never assumed away).  Each node's range is computed bottom-up from
its operation (constants exact, input elements and anything not modelled here full), then
narrowed by the constraints that *assumptions* put on it (:meth:`Ranges.assume`: the
condition of a device assert, which holds on every input the kernel does not abort on; a fact
``icmp ult N, 4096`` bounds node ``N``).  The result over-approximates the values the node
takes on every such input, and nothing is ever refuted on a range.

Nodes of one byte are ``i1`` or ``i8`` (the executor does not tell them apart): for them only
operations that mean the same on both are computed (compares, bitwise ops, ``select``, casts,
which name their bit widths), anything else is the full byte.  An operation whose range does
not follow from its operands' (float arithmetic, calls, loads) is full, and the nodes below it
are not visited.

A float compare with a normal constant bounds the bit pattern of what it compares: ``fcmp oge
x, C`` holding puts ``x`` in ``[bits(C), bits(+inf)]``, and ``fcmp ult (fabs x), C`` failing puts
``x`` in *two* pieces (``|x| >= C`` of either sign).  A bound of several pieces is kept as
their cover, and :meth:`Ranges.interval_by_cases` splits on it: the range of a node is the union
of its ranges with each piece in turn (so ``(x >> 23) & 224`` of such an ``x`` stays exact).
:meth:`Ranges.under` gives the ranges under further conditions (a path condition) without
changing these.

Both are memoised by *shape*: the nodes a result is computed from, renamed by the order they
are visited in, each with its kind, width, constant, bytes or operands and the bounds and
pieces on it.  Every thread of a kernel builds its own nodes for one address or one path
condition, alike: one shape, computed once (a result depends on nothing a shape leaves out,
so the memoised one is the one computed afresh; the nodes :meth:`Ranges.canonical` makes
are made as before).

Examples:
    >>> dag = Dag()
    >>> ranges = Ranges(dag)
    >>> x = dag.leaf(0, 0, 8)  # an i64 index loaded from memory
    >>> address = dag.op("add", (dag.const(1 << 40, 8), dag.op("shl", (x, dag.const(2, 8)), 8)), 8)
    >>> ranges.unsigned(address) == (0, 2**64 - 1)  # any index: any address
    True
    >>> ranges.assume(dag.op("icmp.ult", (x, dag.const(512, 8)), 1), True)
    True
    >>> [hex(v) for v in ranges.unsigned(address)]
    ['0x10000000000', '0x100000007fc']
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from llverify.emitted.sim.symbolic import SWAPPED, Dag

__all__ = [
    "Interval",
    "Ranges",
    "bound_of",
    "closed",
    "cover",
    "float_bound",
    "intersect",
    "signed",
    "unsigned",
]

#: a wrapped interval ``(lo, hi)``: the bit patterns of the integers from lo to hi
Interval = tuple[int, int]
#: :meth:`Ranges._shape` of a node that is not canonical
_REBUILT: tuple = ("rebuilt",)
#: what :meth:`Ranges.under` adds, by place in a shape: facts, bounds and pieces
_Added = tuple[
    tuple[tuple[int, bool], ...],
    tuple[tuple[int, tuple[Interval, ...]], ...],
    tuple[tuple[int, tuple[Interval, ...]], ...],
]

_NEGATED = {
    "eq": "ne", "ne": "eq", "ult": "uge", "uge": "ult", "ule": "ugt", "ugt": "ule",
    "slt": "sge", "sge": "slt", "sle": "sgt", "sgt": "sle",
}  # fmt: skip
#: the float predicate that holds exactly when the other does not (NaN flips ordered/unordered)
_FLOAT_NEGATED = {
    "oeq": "une", "une": "oeq", "one": "ueq", "ueq": "one", "olt": "uge", "uge": "olt",
    "ole": "ugt", "ugt": "ole", "ogt": "ule", "ule": "ogt", "oge": "ult", "ult": "oge",
    "ord": "uno", "uno": "ord",
}  # fmt: skip
#: the absolute-value operations on a float's bits (``fabs`` clears the sign bit; the ``.ftz``
#: forms, spelt the same in the DAG, flush a subnormal to zero first)
_FABS = frozenset({"fabs", "nvvm.fabs"})
#: bits of the mantissa of the floats a compare bounds, by bytes (f32, f64)
_MANTISSA = {4: 23, 8: 52}
#: values of an operand an ``and``/``or``/``xor`` with a constant enumerates (exact results)
_ENUMERATED = 1 << 12
#: combinations of pieces :meth:`Ranges.interval_by_cases` tries
_CASES = 16
#: nodes at most in an assumption :meth:`Ranges.under` memoises the effect of (by its shape)
_SHAPED = 256
#: operations that mean the same on an i1 and an i8 held in one byte (casts name their bit widths)
_ONE_BYTE = frozenset({"and", "or", "xor", "select", "icmp", "zext", "sext", "trunc"})
#: the predicate of each pair of inverse compares that a canonical ``select`` does not test
_TURNED = frozenset({"ne", "uge", "ugt", "sge", "sgt"})
#: operations whose range is computed from their operands' (the others' is full or fixed)
_COMPUTED = frozenset(
    {"add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "umax", "umin", "udiv",
     "urem", "smax", "smin", "sdiv", "srem", "select", "icmp", "zext", "sext", "trunc"}
)  # fmt: skip


_BITWISE_OPS = {"and": int.__and__, "or": int.__or__, "xor": int.__xor__}


def _full(bits: int) -> Interval:
    return 0, (1 << bits) - 1


def _fit(interval: Interval, bits: int) -> Interval:
    """``interval`` with ``lo`` moved into ``[0, 2**bits)`` (the same bit patterns), or the
    full range when it spans ``2**bits`` values or more."""
    lo, hi = interval
    size = 1 << bits
    if hi - lo + 1 >= size:
        return _full(bits)
    shift = (lo >> bits) << bits
    return lo - shift, hi - shift


def unsigned(interval: Interval, bits: int) -> Interval:
    """The unsigned range of ``interval``'s bit patterns (full when they wrap past 2**bits).

    >>> unsigned((-1, 3), 8), unsigned((256, 300), 8)
    ((0, 255), (0, 44))
    """
    lo, hi = _fit(interval, bits)
    return (lo, hi) if hi < 1 << bits else _full(bits)


def signed(interval: Interval, bits: int) -> Interval:
    """The signed range of ``interval``'s bit patterns (full when they wrap past the largest
    signed value).

    >>> signed((250, 260), 8), signed((100, 200), 8)
    ((-6, 4), (-128, 127))
    """
    lo, hi = _fit(interval, bits)
    half, size = 1 << (bits - 1), 1 << bits
    if hi < half:
        return lo, hi
    if lo >= half and hi < size + half:
        return lo - size, hi - size
    return -half, half - 1


def _pieces(interval: Interval, bits: int) -> list[Interval]:
    """The unsigned intervals whose union is ``interval``'s bit patterns (one or two)."""
    lo, hi = _fit(interval, bits)
    size = 1 << bits
    return [(lo, hi)] if hi < size else [(lo, size - 1), (0, hi - size)]


def cover(pieces: list[Interval], bits: int) -> Interval | None:
    """The smallest wrapped interval holding every unsigned interval of ``pieces`` (None
    when there is none): it leaves out the largest gap between them, going round.

    >>> cover([(0, 3), (250, 255)], 8), cover([(0, 3), (100, 110)], 8), cover([], 8)
    ((250, 259), (0, 110), None)
    """
    if not pieces:
        return None
    merged: list[list[int]] = []
    for lo, hi in sorted(pieces):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    size = 1 << bits
    # the gap after piece k runs to piece k + 1 (the last one's to the first, round 2**bits)
    gaps = [merged[k + 1][0] - merged[k][1] for k in range(len(merged) - 1)]
    gaps.append(merged[0][0] + size - merged[-1][1])
    widest = max(range(len(gaps)), key=lambda k: gaps[k])
    start = merged[(widest + 1) % len(merged)][0]
    end = merged[widest][1]
    return (start, end) if end >= start else (start, end + size)


def intersect(first: Interval, second: Interval, bits: int) -> Interval | None:
    """A wrapped interval holding the bit patterns in both (None: none is in both).

    >>> intersect((-5, 10), (0, 4095), 64), intersect((0, 3), (5, 9), 8)
    ((0, 10), None)
    """
    found = [
        (max(a, c), min(b, d))
        for a, b in _pieces(first, bits)
        for c, d in _pieces(second, bits)
        if max(a, c) <= min(b, d)
    ]
    return cover(found, bits)


def _union(first: Interval, second: Interval, bits: int) -> Interval:
    found = cover(_pieces(first, bits) + _pieces(second, bits), bits)
    assert found is not None
    return found


def bound_of(predicate: str, value: int, bits: int) -> Interval | None:
    """The wrapped interval of the ``x`` with ``icmp predicate x, value`` true (``value`` a
    bit pattern); None when no ``x`` has it.

    >>> bound_of("ult", 4096, 64), bound_of("sge", 0, 32), bound_of("ult", 0, 8)
    ((0, 4095), (0, 2147483647), None)
    """
    size, half = 1 << bits, 1 << (bits - 1)
    value &= size - 1
    as_signed = value - size if value >= half else value
    bounds: dict[str, Interval | None] = {
        "eq": (value, value),
        "ne": (value + 1, value + size - 1) if bits > 0 and size > 1 else None,
        "ult": (0, value - 1) if value > 0 else None,
        "ule": (0, value),
        "ugt": (value + 1, size - 1) if value < size - 1 else None,
        "uge": (value, size - 1),
        "slt": (-half, as_signed - 1) if as_signed > -half else None,
        "sle": (-half, as_signed),
        "sgt": (as_signed + 1, half - 1) if as_signed < half - 1 else None,
        "sge": (as_signed, half - 1),
    }
    return bounds.get(predicate)


def float_bound(
    predicate: str, constant: int, nbytes: int, magnitude: bool = False
) -> list[Interval] | None:
    """The unsigned pieces of the bit patterns ``x`` of an ``nbytes`` float (f32, f64) for
    which ``fcmp predicate x, C`` holds, or with ``magnitude`` ``fcmp predicate |x|, C``
    (``C`` the constant's bit pattern); None when no bound is known: an unordered predicate
    (it holds on NaN), ``one``, or a constant that is not a normal finite number (then a
    subnormal flushed to zero may fall on either side; with a normal ``C`` it does not).

    >>> [tuple(map(hex, p)) for p in float_bound("oge", 0x47CE4780, 4, magnitude=True)]
    [('0x47ce4780', '0x7f800000'), ('0xc7ce4780', '0xff800000')]
    >>> [tuple(map(hex, p)) for p in float_bound("olt", 0xBF800000, 4)]  # x < -1.0
    [('0xbf800001', '0xff800000')]
    >>> float_bound("ult", 0x47CE4780, 4) is None
    True
    """
    mantissa = _MANTISSA.get(nbytes)
    if mantissa is None:
        return None
    bits = 8 * nbytes
    sign = 1 << (bits - 1)
    infinity = ((1 << (bits - 1 - mantissa)) - 1) << mantissa
    size = constant & (sign - 1)
    negative = bool(constant & sign)
    if not (1 << mantissa) <= size < infinity or (magnitude and negative):
        return None
    if magnitude or not negative:  # a non-negative x (or |x|) against C = size
        non_negative = {
            "oeq": (size, size), "oge": (size, infinity), "ogt": (size + 1, infinity),
            "ole": (0, size), "olt": (0, size - 1),
        }.get(predicate)  # fmt: skip
        if non_negative is None:
            return None
        lo, hi = non_negative
        if magnitude:
            return [(lo, hi), (lo | sign, hi | sign)]
        if predicate in ("ole", "olt"):  # every negative x as well
            return [(lo, hi), (sign, sign | infinity)]
        return [(lo, hi)]
    # a negative C: more negative is a larger bit pattern, from -0 (sign) to -inf
    pieces: dict[str, list[Interval]] = {
        "oeq": [(constant, constant)],
        "ole": [(constant, sign | infinity)],
        "olt": [(constant + 1, sign | infinity)],
        "oge": [(0, infinity), (sign, constant)],
        "ogt": [(0, infinity), (sign, constant - 1)],
    }
    return pieces.get(predicate)


def _pieces_meet(first: list[Interval], second: list[Interval]) -> list[Interval]:
    """The unsigned intervals in both lists of unsigned intervals."""
    return [(max(a, c), min(b, d)) for a, b in first for c, d in second if max(a, c) <= min(b, d)]


def _smallest(interval: Interval, bits: int) -> Interval:
    """The representative of ``interval`` nearest zero (a small negative range stays one)."""
    lo, hi = _fit(interval, bits)
    size = 1 << bits
    lower = (lo - size, hi - size)
    return lower if max(-lower[0], abs(lower[1])) < max(abs(lo), abs(hi)) else (lo, hi)


def closed(shape: tuple) -> bool:
    """Whether ``shape`` (:meth:`Ranges.shaped_interval`) holds every node below its node:
    no operation in it has operands it leaves out (one whose range is fixed whatever they
    are: floats, loads, calls).

    >>> dag = Dag()
    >>> x = dag.leaf(0, 0, 4)
    >>> ranges = Ranges(dag)
    >>> float_bits = dag.op("fadd", (x, x), 4)
    >>> [closed(ranges.shaped_interval(dag.op("and", (v, dag.const(12, 4)), 4))[1])
    ...  for v in (x, float_bits)]
    [True, False]
    """
    return all(entry[2] is not None or entry[0] == "leaf" for entry in shape)


def _shape_entry(
    key: tuple,
    width: int,
    operands: Sequence[int],
    place: Callable[[int], int],
    bound: list[Interval] | None,
    split: list[Interval] | None,
) -> tuple:
    """One node's entry in a shape (:meth:`Ranges._shape`, :meth:`Ranges._conditions_shape`):
    its kind, width, constant, bytes or ``operands`` (the nodes below it the shape follows,
    by their ``place``; None for none), and the bounds and pieces on it."""
    kind = key[0]
    what: object
    if kind == "bytes":
        what = tuple((place(s // 16), s % 16) if s >= 0 else s for s in key[1])
    elif kind == "const":
        what = key[1]
    elif operands:
        what = tuple(map(place, operands))
    else:
        what = None  # a leaf, or an operation whose range is fixed
    return (kind, width, what, tuple(bound) if bound else (), tuple(split) if split else ())


def _turned(kind: str) -> bool:
    """Whether ``kind`` is a compare whose ``select`` :meth:`Ranges.canonical` turns round."""
    return kind[:5] == "icmp." and kind[5:] in _TURNED


def _truncated(quotient_of: int, divisor: int) -> int:
    """Division truncating towards zero, as ``sdiv``'s."""
    quotient = abs(quotient_of) // abs(divisor)
    return quotient if (quotient_of < 0) == (divisor < 0) else -quotient


class Ranges:
    """The ranges of one run's DAG nodes and the assumptions (``facts``) that narrow them.

    ``facts`` lists each assumed ``(condition node, holds)``: the device asserts' conditions,
    which hold on every input the claim covers.  Ranges are memoised until an assumption
    is added."""

    def __init__(self, dag: Dag, max_nodes: int = 200_000) -> None:
        self.dag = dag
        self.facts: list[tuple[int, bool]] = []
        self.max_nodes = max_nodes
        self._bounds: dict[int, list[Interval]] = {}  # by canonical node
        #: the nodes whose bound is several unsigned pieces (the cover is in ``_bounds``)
        self._pieces: dict[int, list[Interval]] = {}  # by canonical node
        self._memo: dict[int, Interval] = {}  # by canonical node
        self._canonical: dict[int, int] = {}
        #: the ranges of each combination of pieces :meth:`interval_by_cases` tried (their
        #: memos kept), and the nodes split below each node; both cleared with ``_memo``
        self._cases: dict[tuple[tuple[int, Interval], ...], Ranges] = {}
        self._split: dict[int, list[int]] = {}
        self._below_memo: dict[int, list[int]] = {}  # :meth:`_below`: the DAG's alone
        #: :meth:`interval_by_cases` by the shape of what it reads (:meth:`_shape`), shared
        #: by every copy: a shape holds all the result depends on, whatever the assumptions
        self._by_shape: dict[tuple, Interval] = {}
        self._by_node: dict[int, Interval] = {}  # these ranges' by canonical node, as _memo
        #: what :meth:`under` added for each shape of conditions (None: not memoised),
        #: shared by every copy
        self._added: dict[tuple, _Added | None] = {}

    def _copy(self) -> Ranges:
        """These ranges with the same assumptions, to assume more of (nothing memoised but
        the canonical forms, which depend on the DAG alone)."""
        other = Ranges(self.dag, self.max_nodes)
        other.facts = list(self.facts)
        other._bounds = {node: list(bounds) for node, bounds in self._bounds.items()}
        other._pieces = dict(self._pieces)
        other._canonical = self._canonical
        other._below_memo = self._below_memo
        other._by_shape = self._by_shape
        other._added = self._added
        return other

    def under(self, conditions: list[tuple[int, bool]]) -> Ranges:
        """The ranges when each ``(node, holds)`` of ``conditions`` holds as well as the
        assumptions made so far (a path condition: what holds where a branch went); these
        ranges are unchanged.

        >>> dag = Dag()
        >>> x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
        >>> ranges = Ranges(dag)
        >>> small = ranges.under([(dag.op("icmp.ult", (x, dag.const(10, 4)), 1), True)])
        >>> small.unsigned(x), ranges.unsigned(x) == (0, 2**32 - 1)
        ((0, 9), True)

        What the conditions add (facts, bounds, pieces) is memoised by their shape
        (:meth:`_conditions_shape`): conditions of the same shape on other nodes (another
        thread's data) add the same, at the places the shape names.

        >>> other = ranges.under([(dag.op("icmp.ult", (y, dag.const(10, 4)), 1), True)])
        >>> other.unsigned(y), other.unsigned(x) == (0, 2**32 - 1), len(ranges._added)
        ((0, 9), True, 1)
        """
        shaped = self._conditions_shape(conditions)
        if shaped is not None and shaped[0] in self._added:
            added = self._added[shaped[0]]
            if added is not None:
                return self._with(added, shaped[1])
        other = self._copy()
        other.assume_all(conditions)
        if shaped is not None:
            self._added[shaped[0]] = self._added_by(other, shaped[1])
        return other

    def _conditions_shape(
        self, conditions: list[tuple[int, bool]]
    ) -> tuple[tuple, list[int]] | None:
        """The shape of ``conditions`` for :meth:`under`, and its nodes in order: every node
        they are built from (all operands and bytes, at most :data:`_SHAPED`), renamed by
        first visit, each with its kind, width, constant, bytes or operands and the bounds
        and pieces on it; and each condition's place, whether it should hold and whether
        it is a fact.  That is all :meth:`assume_all` reads of them, so conditions of one
        shape add the same at the same places.  None when they are more nodes, or when a
        ``select`` among them has a canonical form of other nodes (:meth:`canonical` would
        make them: the nodes made must not depend on the memo)."""
        nodes, width, bounds, pieces = self.dag.nodes, self.dag.width, self._bounds, self._pieces
        order: dict[int, int] = {}
        stack = [node for node, _ in reversed(conditions)]
        while stack:
            n = stack.pop()
            if n in order:
                continue
            if len(order) >= _SHAPED:
                return None
            order[n] = len(order)
            key = nodes[n]
            kind = key[0]
            if kind == "bytes":
                stack.extend(s // 16 for s in key[1] if s >= 0)
            elif kind == "select" and _turned(nodes[key[1]][0]):
                return None
            elif kind not in ("leaf", "const"):
                stack.extend(key[1:])
        shape: list[object] = [
            (order[node], holds, (node, holds) in self.facts) for node, holds in conditions
        ]
        place = order.__getitem__
        for n in order:
            key = nodes[n]
            operands = key[1:] if key[0] not in ("leaf", "const", "bytes") else ()
            shape.append(_shape_entry(key, width[n], operands, place, bounds.get(n), pieces.get(n)))
        return tuple(shape), list(order)

    def _added_by(self, other: Ranges, nodes: list[int]) -> _Added | None:
        """What ``other`` (these ranges under conditions on ``nodes``) has that these do not:
        new facts, bounds and pieces, each at its node's place in ``nodes``; None when one
        is on a node outside them, or when there is no new bound (then ``other`` kept the
        intervals :meth:`assume_all` computed, which a copy made from this would not)."""
        place = {n: k for k, n in enumerate(nodes)}
        facts, bounds, pieces = [], [], []
        for node, holds in other.facts[len(self.facts) :]:
            if node not in place:
                return None
            facts.append((place[node], holds))
        for node, found in other._bounds.items():
            known = len(self._bounds.get(node, ()))
            if len(found) != known:
                if node not in place:
                    return None
                bounds.append((place[node], tuple(found[known:])))
        for node, split in other._pieces.items():
            if self._pieces.get(node) is not split:
                if node not in place:
                    return None
                pieces.append((place[node], tuple(split)))
        if not bounds:
            return None
        return tuple(facts), tuple(bounds), tuple(pieces)

    def _with(self, added: _Added, nodes: list[int]) -> Ranges:
        """These ranges with ``added`` (:meth:`_added_by`) at ``nodes``."""
        other = self._copy()
        facts, bounds, pieces = added
        other.facts.extend((nodes[k], holds) for k, holds in facts)
        for k, found in bounds:
            other._bounds.setdefault(nodes[k], []).extend(found)
        for k, split in pieces:
            other._pieces[nodes[k]] = list(split)
        return other

    def interval_by_cases(self, node: int) -> Interval:
        """:meth:`interval` of ``node``, split on the bounds of several pieces below it: the
        union of its intervals with each such node in one of its pieces (at most
        :data:`_CASES` combinations; the other nodes keep their cover).

        >>> dag = Dag()
        >>> x = dag.leaf(0, 0, 4)
        >>> magnitude = dag.op("nvvm.fabs", (x,), 4)
        >>> ranges = Ranges(dag)
        >>> ranges.assume(dag.op("fcmp.ult", (magnitude, dag.const(0x47CE4780, 4)), 1), False)
        True
        >>> exponent = dag.op("and", (dag.op("lshr", (x, dag.const(23, 4)), 4),
        ...                           dag.const(224, 4)), 4)
        >>> ranges.unsigned(exponent), ranges.interval_by_cases(exponent)
        ((0, 224), (128, 224))

        The result is memoised by the node's shape (:meth:`_shape`), so the same expression
        of another thread's data, bounded alike, is not computed again.
        """
        return self.shaped_interval(node)[0]

    def shaped_interval(self, node: int) -> tuple[Interval, tuple | None]:
        """:meth:`interval_by_cases` of ``node``, and the shape it was memoised by
        (:meth:`_shape`) when that is the shape of ``node`` itself (None when ``node`` is not
        canonical, the shape was not computed or is too large).  A function of the nodes'
        kinds, widths, constants, bytes and operands alone has one value on a shape that
        :func:`closed` says holds all the nodes below.

        >>> dag = Dag()
        >>> x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
        >>> twelve = dag.const(12, 4)
        >>> ranges = Ranges(dag)
        >>> (a, shape), (b, other) = (ranges.shaped_interval(dag.op("and", (v, twelve), 4))
        ...                           for v in (x, y))
        >>> a, b, shape == other, closed(shape)
        ((0, 12), (0, 12), True, True)
        """
        raw = node
        node = self._canonical.get(node, node)  # not canonical only if its shape says so
        found = self._by_node.get(node)
        if found is not None:
            return found, None
        shape = self._shape(node)
        if shape is _REBUILT:
            node = self.canonical(node)
            found = self._by_node.get(node)
            if found is not None:
                return found, None
            shape = self._shape(node)
        if shape is None:  # not memoised: a later call may cut short later
            return self._by_cases(node), None
        found = self._by_shape.get(shape)
        if found is None:
            found = self._by_shape[shape] = self._by_cases(node)
        self._by_node[node] = found
        return found, shape if node == raw else None

    def _shape(self, node: int) -> tuple | None:
        """Everything :meth:`interval_by_cases` of the canonical ``node`` reads, with the
        nodes renamed by their first visit (as :meth:`_split_below` visits them): for each
        node below it, its kind, width, constant, bytes or operands, and the bounds and pieces
        the assumptions put on it.  Two nodes of one shape have one result, whichever the
        node and the assumptions.  None when the nodes are more than ``max_nodes`` (whose
        intervals may be cut short, and are not memoised); :data:`_REBUILT` when ``node`` is
        not canonical (a ``select`` below it is turned round, :meth:`canonical`).

        >>> dag = Dag()
        >>> x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
        >>> ranges = Ranges(dag)
        >>> ranges.assume(dag.op("icmp.ult", (x, dag.const(9, 4)), 1), True)
        True
        >>> shifted = [dag.op("shl", (v, dag.const(2, 4)), 4) for v in (x, y)]
        >>> ranges._shape(shifted[0]) == ranges._shape(shifted[1])  # x is bounded, y is not
        False
        >>> ranges.assume(dag.op("icmp.ult", (y, dag.const(9, 4)), 1), True)
        True
        >>> ranges._shape(shifted[0]) == ranges._shape(shifted[1])
        True
        """
        nodes, width, bounds, pieces = self.dag.nodes, self.dag.width, self._bounds, self._pieces
        memo, below, limit = self._below_memo, self._below, self.max_nodes
        order: dict[int, int] = {}
        belows: list[list[int]] = []
        stack = [node]
        while stack:
            n = stack.pop()
            if n in order:
                continue
            order[n] = len(order)
            if len(order) > limit:
                return None
            found = memo.get(n)
            if found is None:
                found = below(n)
            key = nodes[n]
            if key[0] == "select" and _turned(nodes[key[1]][0]):
                return _REBUILT
            belows.append(found)
            stack.extend(found)
        place = order.__getitem__
        return tuple(
            _shape_entry(nodes[n], width[n], found, place, bounds.get(n), pieces.get(n))
            for n, found in zip(order, belows)
        )

    def _by_cases(self, node: int) -> Interval:
        """:meth:`interval_by_cases` of the canonical ``node``, computed."""
        split = self._split_below(node)
        kept: list[int] = []
        total = 1
        for below in split:
            if total * len(self._pieces[below]) > _CASES:
                break
            total *= len(self._pieces[below])
            kept.append(below)
        if not kept:
            return self.interval(node)
        bits = self.bits(node)
        result: Interval | None = None
        for combination in itertools.product(*(self._pieces[below] for below in kept)):
            key = tuple(zip(kept, combination))
            case = self._cases.get(key)
            if case is None:
                case = self._cases[key] = self._copy()
                for below, piece in key:
                    case._bounds.setdefault(below, []).append(piece)
            found = case.interval(node)
            result = found if result is None else _union(result, found, bits)
        assert result is not None
        return result

    def _split_below(self, node: int) -> list[int]:
        """The nodes at or below ``node`` (as its range is computed) bounded by several
        pieces, in first-visit order."""
        if not self._pieces:
            return []
        node = self.canonical(node)
        if node in self._split:
            return self._split[node]
        found: list[int] = []
        seen: set[int] = set()
        stack = [self.canonical(node)]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            if len(self._pieces.get(n, ())) > 1:
                found.append(n)
            stack.extend(self._below(n))  # the operands of a canonical node are canonical
        self._split[node] = found
        return found

    # -- reading ranges ------------------------------------------------------------------------
    def bits(self, node: int) -> int:
        """The width of ``node`` in bits (its bytes times 8)."""
        return 8 * self.dag.width[node]

    def unsigned(self, node: int) -> Interval:
        """The unsigned range of ``node``'s values."""
        return unsigned(self.interval(node), self.bits(node))

    def signed(self, node: int) -> Interval:
        """The signed range of ``node``'s values."""
        return signed(self.interval(node), self.bits(node))

    def truth(self, node: int) -> bool | None:
        """Whether the condition ``node`` is non-zero on every input (True), zero on every
        input (False), or either (None)."""
        lo, hi = self.unsigned(node)
        if lo > 0:
            return True
        return False if hi == 0 else None

    def interval(self, node: int) -> Interval:
        """The wrapped interval of ``node``'s values: that of its canonical form
        (:meth:`canonical`), bottom-up over the nodes below it, each once (more than
        ``max_nodes`` new ones give the full range)."""
        node = self.canonical(node)
        memo = self._memo
        if node in memo:
            return memo[node]
        stack = [node]
        computed = 0
        while stack:
            n = stack[-1]
            if n in memo:
                stack.pop()
                continue
            missing = [m for m in self._below(n) if m not in memo]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            computed += 1
            if computed > self.max_nodes:
                return _full(self.bits(node))
            memo[n] = self._narrowed(n, self._compute(n))
        return memo[node]

    def canonical(self, node: int) -> int:
        """The node of ``node``'s canonical form, equal to it on every input: below it, each
        ``select`` on a compare whose predicate is ``ne``, ``uge``, ``ugt``, ``sge`` or ``sgt``
        is the ``select`` on the inverse compare with its ways swapped (LLVM writes one value
        both ways: ``x == -100 ? 0 : x`` for an assert, ``x != -100 ? x : 0`` for the
        address).  Only the nodes ranges are computed from are rebuilt.

        >>> dag = Dag()
        >>> x, zero = dag.leaf(0, 0, 8), dag.const(0, 8)
        >>> minus = dag.const(2**64 - 100, 8)
        >>> a = dag.op("select", (dag.op("icmp.eq", (x, minus), 1), zero, x), 8)
        >>> b = dag.op("select", (dag.op("icmp.ne", (x, minus), 1), x, zero), 8)
        >>> ranges = Ranges(dag)
        >>> a != b and ranges.canonical(a) == ranges.canonical(b) == a
        True
        """
        memo = self._canonical
        if node in memo:
            return memo[node]
        stack = [node]
        while stack:
            n = stack[-1]
            if n in memo:
                stack.pop()
                continue
            missing = [m for m in self._below(n) if m not in memo]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            rebuilt = self._rebuilt(n)
            memo[n] = rebuilt
            memo.setdefault(rebuilt, rebuilt)
        return memo[node]

    def _rebuilt(self, node: int) -> int:
        """``node`` over the canonical forms of the nodes below it, a ``select`` on an
        inverted compare turned round."""
        dag, memo = self.dag, self._canonical
        pieces = dag.pieces(node)
        if pieces is not None:
            mapped = tuple(memo[s // 16] * 16 + s % 16 if s >= 0 else s for s in pieces)
            return node if mapped == pieces else dag.from_symbols(mapped)
        if not self._below(node):
            return node
        kind = dag.kind(node)
        operands = tuple(memo[o] for o in dag.operands(node))
        condition = dag.kind(operands[0]) if kind == "select" else ""
        if _turned(condition):
            inverse = "icmp." + _NEGATED[condition[5:]]
            turned = dag.op(inverse, dag.operands(operands[0]), 1)
            memo.setdefault(turned, turned)
            operands = (turned, operands[2], operands[1])
        if operands == dag.operands(node):
            return node
        return dag.op(kind, operands, dag.width[node])

    def _below(self, node: int) -> list[int]:
        """The nodes whose ranges ``node``'s is computed from (none for an operation whose
        range is full or fixed whatever its operands: floats, calls, loads...)."""
        found = self._below_memo.get(node)
        if found is not None:
            return found
        pieces = self.dag.pieces(node)
        family = self.dag.kind(node).split(".")[0]
        if pieces is not None:
            found = sorted({s // 16 for s in pieces if s >= 0})
        elif family not in _COMPUTED or self.dag.width[node] == 1 and family not in _ONE_BYTE:
            found = []
        else:
            found = list(self.dag.operands(node))
        self._below_memo[node] = found
        return found

    def _narrowed(self, node: int, interval: Interval) -> Interval:
        bits = self.bits(node)
        for bound in self._bounds.get(node, ()):
            narrowed = intersect(interval, bound, bits)
            if narrowed is not None:  # an empty one: the assumptions contradict, none is used
                interval = narrowed
        return interval

    # -- assumptions ---------------------------------------------------------------------------
    def assume(self, node: int, holds: bool) -> bool:
        """Assume the ``i1`` condition ``node`` is ``holds`` on every input the claim covers
        (a device assert's condition: the kernel aborts otherwise).  Conjunctions, negations
        and compares with a constant or a bounded node become constraints on the nodes they
        compare (all found first, on the ranges before this assumption, then added).  Returns
        False when the ranges show the condition never is ``holds`` (every input aborts)."""
        return self.assume_all([(node, holds)])[0]

    def assume_all(self, conditions: list[tuple[int, bool]]) -> list[bool]:
        """:meth:`assume` each ``(node, holds)`` of ``conditions`` (the threads of one assert),
        all on the ranges before any of them (the memoised ranges are cleared once)."""
        outcomes = []
        found: list[tuple[int, Interval]] = []
        pending: list[tuple[int, bool]] = []
        for node, holds in conditions:
            known = None if (node, holds) in self.facts else self.truth(node)
            if (node, holds) not in self.facts:
                self.facts.append((node, holds))
            outcomes.append(known is None or known == holds)
            if known is None:
                pending.append((node, holds))
        seen: set[tuple[int, bool]] = set()
        while pending:
            condition, want = pending.pop()
            if (condition, want) in seen:
                continue
            seen.add((condition, want))
            found.append((condition, (int(want), int(want))))
            pending.extend(self._implied(condition, want, found))
        for constrained, bound in found:
            self._constrain(constrained, bound)
        if found:
            self._memo.clear()
            self._cases.clear()
            self._split.clear()
            self._by_node.clear()
        return outcomes

    def _implied(
        self, condition: int, want: bool, found: list[tuple[int, Interval]]
    ) -> list[tuple[int, bool]]:
        """What ``condition`` being ``want`` says of its operands: conditions to follow, and
        the bounds of compared nodes (added to ``found``)."""
        kind, operands = self.dag.kind(condition), self.dag.operands(condition)
        if kind in ("and", "or") and len(operands) == 2:
            both = want if kind == "and" else not want
            if both:  # and(a, b) holds, or(a, b) fails: each operand does the same
                return [(o, want) for o in operands]
            for one, other in (operands, operands[::-1]):
                if self.truth(one) is (kind == "and"):  # the other one decides
                    return [(other, want)]
            return []
        if kind == "xor" and len(operands) == 2 and self.dag.width[condition] == 1:
            for one, other in (operands, operands[::-1]):
                if self.dag.constant_value(one) == 1:
                    return [(other, not want)]
            return []
        if kind.startswith("icmp.") and len(operands) == 2:
            predicate = kind[5:] if want else _NEGATED.get(kind[5:], "")
            found.extend(self._compared(predicate, operands[0], operands[1]))
            if predicate == "eq":
                return self._all_false(operands)
        if kind.startswith("fcmp.") and len(operands) == 2:
            predicate = kind[5:] if want else _FLOAT_NEGATED.get(kind[5:], "")
            found.extend(self._float_compared(predicate, operands[0], operands[1]))
        return []

    def _float_compared(
        self, predicate: str, first: int, second: int
    ) -> list[tuple[int, Interval]]:
        """The bounds ``fcmp predicate first, second`` holding puts on the bit pattern of the
        float compared with a constant, or of ``x`` where that float is ``fabs(x)``
        (:func:`float_bound`); a bound of two pieces is noted for
        :meth:`interval_by_cases`, its cover returned."""
        bounds = []
        for node, other, compare in (
            (first, second, predicate),
            (second, first, SWAPPED.get(predicate, predicate)),
        ):
            value = self.dag.constant_value(other)
            if value is None or self.dag.constant_value(node) is not None:
                continue
            nbytes = self.dag.width[node]
            operands = self.dag.operands(node)
            magnitude = self.dag.kind(node) in _FABS and len(operands) == 1
            target = operands[0] if magnitude else node
            pieces = float_bound(compare, value, nbytes, magnitude)
            if pieces is None or self.dag.width[target] != nbytes:
                continue
            bits = 8 * nbytes
            target = self.canonical(target)
            known = self._pieces.get(target)
            self._pieces[target] = pieces if known is None else _pieces_meet(known, pieces)
            bound = cover(pieces, bits)
            if bound is not None:
                bounds.append((target, bound))
        return bounds

    def _all_false(self, operands: tuple[int, ...]) -> list[tuple[int, bool]]:
        """When ``icmp eq`` of ``operands`` holds and they are 0 and a ``bitcast`` of an
        ``<N x i1>`` (LLVM tests ``any`` of a vector of asserts so): each element is false."""
        for one, other in (operands, operands[::-1]):
            kind = self.dag.kind(other)
            if self.dag.constant_value(one) != 0 or not kind.startswith("bitcast.<"):
                continue
            if " x i1>" not in kind or len(self.dag.operands(other)) != 1:
                continue
            vector = self.dag.operands(other)[0]
            pieces = self.dag.pieces(vector) or tuple(int(s) for s in self.dag.symbols(vector))
            return [
                (s // 16, False)
                for s in pieces
                if s >= 0 and s % 16 == 0 and self.dag.width[s // 16] == 1
            ]
        return []

    def _compared(self, predicate: str, first: int, second: int) -> list[tuple[int, Interval]]:
        """The bounds ``icmp predicate first, second`` holding puts on ``first`` and
        ``second``."""
        if predicate not in _NEGATED or self.dag.width[first] != self.dag.width[second]:
            return []
        bits = self.bits(first)
        if bits == 8 and predicate[0] == "s":
            return []  # an i1's sign bit is its only bit: not an i8's order
        swapped = SWAPPED.get(predicate, predicate)
        bounds = []
        for node, other, compare in ((first, second, predicate), (second, first, swapped)):
            value = self.dag.constant_value(other)
            if value is not None:
                bound = bound_of(compare, value, bits)
            else:
                bound = self._bounded_by(compare, other, bits)
            if bound is not None and self.dag.constant_value(node) is None:
                bounds.append((node, bound))
        return bounds

    def _bounded_by(self, predicate: str, other: int, bits: int) -> Interval | None:
        """The values ``x`` may take when ``icmp predicate x, other`` holds, from the range of
        ``other`` (None: no constraint)."""
        if predicate in ("eq",):
            return self.interval(other)
        view = self.signed(other) if predicate[0] == "s" else self.unsigned(other)
        if predicate in ("ult", "ule", "slt", "sle"):
            return bound_of(predicate, view[1], bits)
        if predicate in ("ugt", "uge", "sgt", "sge"):
            return bound_of(predicate, view[0], bits)
        return None

    def _constrain(self, node: int, bound: Interval) -> None:
        """``node``'s values lie in ``bound`` (memoised ranges are cleared by the caller); an
        unsigned upper bound of ``or(a, b)`` bounds ``a`` and ``b`` too (``a | b`` is at least
        each: LLVM merges ``a < 2**k && b < 2**k`` into ``(a | b) < 2**k``)."""
        node = self.canonical(node)
        self._bounds.setdefault(node, []).append(bound)
        bits = self.bits(node)
        lo, hi = _fit(bound, bits)
        operands = self.dag.operands(node)
        if self.dag.kind(node) == "or" and hi < 1 << bits and len(operands) == 2:
            for operand in operands:
                if self.dag.constant_value(operand) is None:
                    self._constrain(operand, (0, hi))

    # -- the range of one operation -------------------------------------------------------------
    def _compute(self, node: int) -> Interval:
        """``node``'s range from its operation and its operands' ranges."""
        dag = self.dag
        bits = self.bits(node)
        kind = dag.kind(node)
        family = kind.split(".")[0]
        if kind == "const":
            value = dag.constant_value(node)
            assert value is not None
            value &= (1 << bits) - 1
            return value, value
        if kind == "bytes":
            return self._bytes(node)
        if family in ("fcmp", "bit"):
            return 0, 1
        if family not in _COMPUTED or bits == 8 and family not in _ONE_BYTE:
            return _full(bits)
        operands = dag.operands(node)
        if family == "icmp":
            return self._compare(kind, operands)
        if family in ("zext", "sext", "trunc"):
            return self._cast(kind, operands, bits)
        if kind == "select" and len(operands) == 3:
            truth = self.truth(operands[0])
            if truth is not None:
                return self.interval(operands[1 if truth else 2])
            return _union(self.interval(operands[1]), self.interval(operands[2]), bits)
        if len(operands) != 2 or any(self.bits(o) != bits for o in operands):
            return _full(bits)
        return self._binary(kind, operands[0], operands[1], bits)

    def _binary(self, kind: str, a: int, b: int, bits: int) -> Interval:
        first, second = self.interval(a), self.interval(b)
        constant = self.dag.constant_value(b)
        if kind in ("add", "sub", "mul"):
            x, y = _smallest(first, bits), _smallest(second, bits)
            if kind == "add":
                return _fit((x[0] + y[0], x[1] + y[1]), bits)
            if kind == "sub":
                return _fit((x[0] - y[1], x[1] - y[0]), bits)
            products = [p * q for p in x for q in y]
            return _fit((min(products), max(products)), bits)
        if kind in ("shl", "lshr", "ashr"):
            if constant is None or constant >= bits:
                return _full(bits)
            if kind == "shl":
                return _fit((first[0] << constant, first[1] << constant), bits)
            view = unsigned(first, bits) if kind == "lshr" else signed(first, bits)
            return _fit((view[0] >> constant, view[1] >> constant), bits)
        if kind in ("and", "or", "xor", "umax", "umin", "udiv", "urem"):
            return self._unsigned_op(kind, unsigned(first, bits), unsigned(second, bits), bits)
        if kind in ("smax", "smin", "sdiv", "srem"):
            return self._signed_op(kind, signed(first, bits), signed(second, bits), bits)
        return _full(bits)

    def _unsigned_op(self, kind: str, x: Interval, y: Interval, bits: int) -> Interval:
        """Bitwise ops, unsigned min/max and division on unsigned ranges ``x``, ``y``; a
        bitwise op with a constant on at most :data:`_ENUMERATED` values is exact (each
        value computed)."""
        if kind in ("and", "or", "xor"):
            for value, other in ((x, y), (y, x)):
                if value[0] == value[1] and other[1] - other[0] < _ENUMERATED:
                    results = [
                        _BITWISE_OPS[kind](v, value[0]) for v in range(other[0], other[1] + 1)
                    ]
                    return min(results), max(results)
        if kind == "and":
            for value, other in ((x, y), (y, x)):
                if value[0] == value[1]:  # a constant mask keeping every bit ``other`` uses
                    used = (1 << other[1].bit_length()) - 1
                    if value[0] & used == used:
                        return other
            return 0, min(x[1], y[1])
        if kind in ("or", "xor"):
            if kind == "xor" and (x == (0, 0) or y == (0, 0)):
                return y if x == (0, 0) else x
            ceiling = (1 << max(x[1], y[1]).bit_length()) - 1
            if kind == "or":
                return max(x[0], y[0]), min(ceiling, x[1] + y[1])
            return 0, ceiling
        if kind in ("umax", "umin"):
            pick = max if kind == "umax" else min
            return pick(x[0], y[0]), pick(x[1], y[1])
        if y[0] == 0:  # a divisor that may be zero: poison
            return _full(bits)
        if kind == "udiv":
            return x[0] // y[1], x[1] // y[0]
        return x if x[1] < y[0] else (0, min(x[1], y[1] - 1))

    def _signed_op(self, kind: str, x: Interval, y: Interval, bits: int) -> Interval:
        """Signed min/max and division by a constant on signed ranges ``x``, ``y``."""
        if kind in ("smax", "smin"):
            pick = max if kind == "smax" else min
            return pick(x[0], y[0]), pick(x[1], y[1])
        if y[0] != y[1] or y[0] == 0:
            return _full(bits)
        divisor = y[0]
        if kind == "sdiv":
            ends = [_truncated(x[0], divisor), _truncated(x[1], divisor)]
            return _fit((min(ends), max(ends)), bits)
        limit = abs(divisor) - 1  # srem: the sign of the dividend, below the divisor
        if x[0] >= 0:
            return x if x[1] <= limit else (0, limit)
        if x[1] <= 0:
            return x if x[0] >= -limit else (-limit, 0)
        return max(x[0], -limit), min(x[1], limit)

    def _compare(self, kind: str, operands: tuple[int, ...]) -> Interval:
        """An ``icmp``: decided when the operands' ranges decide it, else ``(0, 1)``."""
        predicate = kind[5:]
        if len(operands) != 2 or predicate not in _NEGATED:
            return 0, 1
        a, b = operands
        bits = self.bits(a)
        if self.bits(b) != bits or (bits == 8 and predicate[0] == "s"):
            return 0, 1
        view = signed if predicate[0] == "s" else unsigned
        (x0, x1), (y0, y1) = view(self.interval(a), bits), view(self.interval(b), bits)
        decided = {
            "eq": (x0 == x1 == y0 == y1, x1 < y0 or y1 < x0),
            "ult": (x1 < y0, x0 >= y1), "ule": (x1 <= y0, x0 > y1),
            "ugt": (x0 > y1, x1 <= y0), "uge": (x0 >= y1, x1 < y0),
        }  # fmt: skip
        decided["ne"] = decided["eq"][::-1]
        for name in ("lt", "le", "gt", "ge"):
            decided["s" + name] = decided["u" + name]
        true, false = decided[predicate]
        return (1, 1) if true else (0, 0) if false else (0, 1)

    def _cast(self, kind: str, operands: tuple[int, ...], bits: int) -> Interval:
        """``zext.S.T``, ``sext.S.T``, ``trunc.S.T`` (bit widths S to T)."""
        parts = kind.split(".")
        if len(parts) != 3 or not (parts[1].isdigit() and parts[2].isdigit()) or not operands:
            return _full(bits)
        source, target = int(parts[1]), int(parts[2])
        if source > self.bits(operands[0]) or target > bits:
            return _full(bits)
        low = _fit(self.interval(operands[0]), min(source, target))  # the source's low bits
        if parts[0] == "sext" and target > source:
            return signed(low, source)
        return unsigned(low, min(source, target))

    def _bytes(self, node: int) -> Interval:
        """A value assembled from bytes of others: a sign extension (its low bytes a value's
        own, its high ones those of a ``sext`` node of that value) is that node's range; else
        each byte's range at its place."""
        pieces = self.dag.pieces(node)
        assert pieces is not None
        extended = self._sign_extension(pieces)
        if extended is not None:
            return self.interval(extended)
        lo = hi = 0
        for place, symbol in enumerate(pieces):
            low, high = self._byte(symbol)
            lo |= low << (8 * place)
            hi |= high << (8 * place)
        return lo, hi

    def _sign_extension(self, pieces: tuple[int, ...]) -> int | None:
        """The ``sext`` node ``pieces`` spell (low bytes of a value, then the high bytes of
        a ``sext`` node of that value), None when they spell none."""
        top = pieces[-1]
        if top < 0:
            return None
        extension, byte = divmod(top, 16)
        if not self.dag.kind(extension).startswith("sext.") or byte != len(pieces) - 1:
            return None
        operands = self.dag.operands(extension)
        if len(operands) != 1 or self.dag.width[extension] != len(pieces):
            return None
        source = operands[0]
        low = self.dag.pieces(source) or tuple(int(s) for s in self.dag.symbols(source))
        size = len(low)
        if tuple(pieces[:size]) != low:
            return None
        high = tuple(extension * 16 + k for k in range(size, len(pieces)))
        return extension if tuple(pieces[size:]) == high else None

    def _byte(self, symbol: int) -> Interval:
        """The range of one byte symbol: a constant, undefined (any), or byte k of a node
        (exact where the node's range lies in one aligned block of 2**(8(k+1)))."""
        if symbol < 0:
            return (-1 - symbol, -1 - symbol) if symbol >= -256 else (0, 255)
        node, k = divmod(symbol, 16)
        lo, hi = self.unsigned(node)
        if lo >> (8 * (k + 1)) != hi >> (8 * (k + 1)):
            return 0, 255
        return (lo >> (8 * k)) & 0xFF, (hi >> (8 * k)) & 0xFF
