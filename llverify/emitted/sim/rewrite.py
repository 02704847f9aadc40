"""The DAG's rewriting: forms of one value LLVM may emit, and matching a template against a node.

LLVM rewrites what it compiles: identity steps appear (``x + 0``, a ``select`` on a constant
condition), compares come with their operands swapped or their predicate inverted under a
swapped ``select``, a float's zero test becomes an integer mask test, a value travels in the
low bytes of a wider register.  Each rewrite here is a law of the primitive operations on
every input (NaNs and -0.0 included), so a node and its :func:`equivalents` are the same
value.  :func:`match` decides whether a node is a template (a graph over placeholders, see
:meth:`~llverify.emitted.sim.symbolic.Dag.placeholder`) applied to some nodes, modulo these
laws and the primitive ops' real commutativity only (nothing is reassociated).

Examples:
    >>> dag = Dag()
    >>> x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    >>> template = dag.op("fadd", (dag.placeholder(0, 4), dag.placeholder(1, 4)), 4)
    >>> bindings: dict[int, int] = {}
    >>> match(dag, template, dag.op("fadd", (y, dag.op("add", (x, dag.const(0, 4)), 4)), 4),
    ...       bindings)
    True
    >>> sorted(bindings.values()) == [x, y]
    True
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from llverify.emitted.sim.symbolic import COMMUTATIVE, SWAPPED, Dag

__all__ = [
    "byte_of",
    "equivalents",
    "match",
    "same_bool",
    "same_bool_node",
    "same_bool_rows",
    "simplified",
    "simpler_step",
]

_SLOTS = 16  # byte slots per node (a byte symbol is node * 16 + byte)

_INVERSE = {
    "fcmp.oeq": "fcmp.une", "fcmp.one": "fcmp.ueq", "fcmp.olt": "fcmp.uge", "fcmp.ole": "fcmp.ugt",
    "fcmp.ogt": "fcmp.ule", "fcmp.oge": "fcmp.ult", "fcmp.ord": "fcmp.uno", "icmp.eq": "icmp.ne",
    "icmp.slt": "icmp.sge", "icmp.sle": "icmp.sgt", "icmp.ult": "icmp.uge", "icmp.ule": "icmp.ugt",
}  # fmt: skip
_INVERSE.update({v: k for k, v in list(_INVERSE.items())})


def simplified(dag: Dag, node: int) -> int:
    """``node`` without identity steps, each exact for every input: ``select`` on a constant
    condition is the chosen operand; ``x + 0``, ``x | 0``, ``x ^ 0`` (integers) and ``x + -0.0``
    (floats, -0.0 being the identity of IEEE addition: ``+0.0 + -0.0`` is ``+0.0``) are ``x``.

    >>> dag = Dag()
    >>> x = dag.leaf(0, 3, 4)
    >>> node = dag.op("select", (dag.const(1, 1), dag.op("add", (x, dag.const(0, 4)), 4), x), 4)
    >>> simplified(dag, node) == x
    True
    """
    memo = dag.memo.get("simplified")
    if memo is None:  # a node never changes once made: neither does its simplified form
        memo = dag.memo["simplified"] = {}
    found = memo.get(node)
    if found is None:
        found = memo[node] = _simplify(dag, node)
    return found


def _simplify(dag: Dag, node: int) -> int:
    for _ in range(64):
        simpler = simpler_step(dag, node)
        if simpler is None:
            return node
        node = simpler
    return node


def simpler_step(dag: Dag, node: int) -> int | None:
    """One identity step of :func:`simplified` away from ``node``, or None when none applies
    (``node`` is its own simplified form: what most nodes are, told without the memo).

    >>> dag = Dag()
    >>> x = dag.leaf(0, 3, 4)
    >>> simpler_step(dag, dag.op("add", (x, dag.const(0, 4)), 4)) == x, simpler_step(dag, x)
    (True, None)
    """
    nodes = dag.nodes
    key = nodes[node]
    kind = key[0]
    if kind == "select":
        condition = nodes[key[1]]
        if condition[0] == "const":
            return key[2] if condition[1] & 1 else key[3]
        return None
    if kind in ("add", "or", "xor", "fadd") and len(key) == 3:
        width = dag.width[node]
        identity = ("const", 1 << (8 * width - 1) if kind == "fadd" else 0)
        first, second = key[1], key[2]
        if nodes[first] == identity:  # (both identities: no single operand is kept)
            return second if nodes[second] != identity else None
        if nodes[second] == identity:
            return first
    return None


def equivalents(dag: Dag, node: int) -> list[int]:
    """``node`` (simplified) and the nodes equal to it by rewrites LLVM makes, each a law of
    the primitive ops on every input (NaNs included):

    * the low bytes of ``select(c, x, y)`` are ``select`` of those bytes of ``x`` and ``y``;
    * ``icmp eq/ne (zext a), 0`` is ``icmp eq/ne a, 0``;
    * ``icmp eq/ne (and X, 0x7f..f), 0`` is ``fcmp oeq/une X, 0.0`` for an IEEE float ``X``
      (its magnitude bits are zero exactly when it is +0 or -0; a NaN's are not);
    * ``select(c, x, y)`` is ``select(not c, y, x)``, ``not`` of a compare being the compare
      of the inverse predicate (``olt`` and ``uge``, ``eq`` and ``ne``, ...);
    * a bf16 ``fadd``/``fsub`` computed in f32 and rounded to nearest even is that bf16 op.

    >>> dag = Dag()
    >>> x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    >>> zero, mask = dag.const(0, 4), dag.const(0x7FFFFFFF, 4)
    >>> test = dag.op("icmp.eq", (dag.op("and", (x, mask), 4), zero), 1)
    >>> node = dag.op("select", (test, y, x), 4)
    >>> dag.op("select", (dag.op("fcmp.une", (x, zero), 1), x, y), 4) in equivalents(dag, node)
    True
    """
    node = simplified(dag, node)
    out = [node]
    kind = dag.nodes[node][0]
    if kind == "bytes":
        selected = _select_of_bytes(dag, node)
        if selected is not None:
            out.append(selected)
            kind = "select"
    if kind in ("icmp.eq", "icmp.ne"):
        out += _zero_tests(dag, out[-1])
    elif kind == "select":
        out += _inverted_selects(dag, out[-1], dag.width[node])
    narrow = [_bf16_in_f32(dag, candidate) for candidate in out]
    return out + [n for n in narrow if n is not None]


def _select_of_bytes(dag: Dag, node: int) -> int | None:
    """The bytes of one ``select`` as the ``select`` of those bytes of each side (gfx942
    selects bf16 in 32-bit registers and keeps the low half), or None."""
    key = dag.nodes[node]
    if key[0] != "bytes":
        return None
    chosen = {s // _SLOTS for s in key[1]}
    picked = dag.nodes[chosen.pop()] if len(chosen) == 1 and min(key[1]) >= 0 else ()
    if not picked or picked[0] != "select":
        return None
    sides = [
        dag.from_symbols(tuple(byte_of(dag, side * _SLOTS + s % _SLOTS) for s in key[1]))
        for side in picked[2:]
    ]
    return dag.op("select", (picked[1], *sides), len(key[1]))


def _zero_tests(dag: Dag, node: int) -> list[int]:
    """The other forms of a zero test ``icmp eq/ne v, 0``: of the value a zero extension
    extends, and of a float whose magnitude bits ``v`` masks."""
    key = dag.nodes[node]
    if key[0] not in ("icmp.eq", "icmp.ne") or len(key) != 3:
        return []
    out = []
    narrow = [_zero_extended(dag, o) for o in key[1:]]
    if any(n is not None for n in narrow) and ("const", 0) in [dag.nodes[o] for o in key[1:]]:
        value = next(n for n in narrow if n is not None)  # zext(a) == 0 is a == 0
        out.append(dag.op(key[0], (value, dag.const(0, dag.width[value])), 1))
    zero = [o for o in key[1:] if dag.nodes[o] == ("const", 0)]
    other = [o for o in key[1:] if o not in zero] or zero[1:]
    masked = dag.nodes[other[0]] if zero and other else ()
    if masked and masked[0] == "and" and len(masked) == 3:
        for value, mask in ((masked[1], masked[2]), (masked[2], masked[1])):
            width = dag.width[value]
            if width in (2, 4, 8) and dag.nodes[mask] == ("const", (1 << (8 * width - 1)) - 1):
                name = "fcmp.oeq" if key[0] == "icmp.eq" else "fcmp.une"
                out.append(dag.op(name, (value, dag.const(0, width)), 1))
    return out


def _inverted_selects(dag: Dag, node: int, width: int) -> list[int]:
    """``select(not c, y, x)`` for ``select(c, x, y)``, one per form of ``c`` that is a
    compare with an inverse predicate."""
    key = dag.nodes[node]
    if key[0] != "select" or len(key) != 4:
        return []
    out = []
    for condition in equivalents(dag, key[1]):
        found = dag.nodes[condition]
        if found[0] in _INVERSE and len(found) == 3:
            negated = dag.op(_INVERSE[found[0]], found[1:], 1)
            out.append(dag.op("select", (negated, key[3], key[2]), width))
    return out


def _bf16_in_f32(dag: Dag, node: int) -> int | None:
    """``fadd``/``fsub`` of two bf16 ``a``, ``b`` when ``node`` computes it as Triton's AMD
    backend does: widen both to f32 (``bits << 16``), add in f32, round to nearest even back to
    bf16 (``(s + 0x7fff + ((s >> 16) & 1)) >> 16``), a NaN sum giving a bf16 NaN.  That is how
    the target lowers an LLVM ``fadd bfloat`` too (the same f32 adder), and with IEEE f32 it is
    the correctly rounded bf16 sum (f32's 24 bits >= 2 * 8 + 2: the double rounding is
    innocuous; both formats have the same exponent range)."""
    total = _rounded_f32_sum(dag, node)
    if total is None:
        return None
    narrow = []
    for operand in dag.nodes[total][1:]:
        parts = dag.nodes[operand]
        if parts[0] != "bytes" or parts[1][:2] != (-1, -1) or parts[1][2] % _SLOTS:
            return None
        value = parts[1][2] // _SLOTS
        if parts[1][3] != value * _SLOTS + 1 or dag.width[value] != 2:
            return None
        narrow.append(value)
    return dag.op(dag.nodes[total][0], tuple(narrow), 2)


def _rounded_f32_sum(dag: Dag, node: int) -> int | None:
    """The f32 ``fadd``/``fsub`` node that ``node`` rounds to bf16 (nearest even, NaN kept a
    NaN), or None when ``node`` is not that rounding."""
    key = dag.nodes[node]
    if key[0] != "select" or len(key) != 4 or dag.width[node] != 2:
        return None
    test, nan, rounded = (dag.nodes[o] for o in key[1:])
    if test[0] != "fcmp.uno" or nan[0] != "const" or nan[1] & 0x7F80 != 0x7F80 or not nan[1] & 0x7F:
        return None
    wide = [o for o in test[1:] if dag.nodes[o] != ("const", 0)]
    if len(wide) != 1 or dag.nodes[wide[0]][0] not in ("fadd", "fsub"):
        return None
    total = wide[0]
    if rounded[0] != "bytes" or len(rounded[1]) != 2 or rounded[1][0] % _SLOTS != 2:
        return None
    word = rounded[1][0] // _SLOTS
    if rounded[1][1] != word * _SLOTS + 3 or dag.width[word] != 4:
        return None
    high = dag.from_symbols((total * _SLOTS + 2, total * _SLOTS + 3, -1, -1))
    odd = dag.op("and", (high, dag.const(1, 4)), 4)
    if sorted(_add_terms(dag, word)) != sorted([total, dag.const(0x7FFF, 4), odd]):
        return None
    return total


def byte_of(dag: Dag, symbol: int) -> int:
    """The byte symbol ``symbol`` stands for, through ``bytes`` nodes (a byte of a value
    assembled from pieces is that piece's byte) and shifts right by whole bytes (byte k of
    ``x >> 8 j`` is byte k + j of ``x`` while that is a byte of ``x``).

    >>> dag = Dag()
    >>> x = dag.leaf(0, 0, 4)
    >>> shifted = dag.op("ashr", (x, dag.const(16, 4)), 4)
    >>> [byte_of(dag, shifted * 16 + k) - x * 16 for k in (0, 1)]
    [2, 3]
    """
    while symbol >= 0:
        key, offset = dag.nodes[symbol // _SLOTS], symbol % _SLOTS
        if key[0] == "bytes":
            symbol = key[1][offset]
            continue
        shift = dag.nodes[key[2]] if key[0] in ("lshr", "ashr") and len(key) == 3 else ()
        if shift and shift[0] == "const" and shift[1] % 8 == 0:  # low bytes of x >> 8k
            moved = offset + shift[1] // 8
            if moved < dag.width[key[1]]:
                symbol = key[1] * _SLOTS + moved
                continue
        return symbol
    return symbol


def _zero_extended(dag: Dag, node: int) -> int | None:
    """The node whose zero extension ``node`` is (its bytes, then zero bytes), or None."""
    key = dag.nodes[node]
    if key[0] != "bytes" or key[1][0] < 0 or key[1][0] % _SLOTS:
        return None
    inner = key[1][0] // _SLOTS
    width = dag.width[inner]
    if width >= len(key[1]) or key[1][:width] != tuple(inner * _SLOTS + k for k in range(width)):
        return None
    return inner if all(s == -1 for s in key[1][width:]) else None


def _add_terms(dag: Dag, node: int) -> list[int]:
    """The terms of a tree of 32-bit integer ``add`` (associative and commutative mod 2**32)."""
    key = dag.nodes[node]
    if key[0] == "add" and dag.width[node] == 4:
        return [t for operand in key[1:] for t in _add_terms(dag, operand)]
    return [node]


def match(dag: Dag, template: int, actual: int, bindings: dict[int, int]) -> bool:
    """Whether ``actual`` is the template node ``template`` applied to some nodes; on success
    ``bindings`` maps each placeholder's index to its node (the first way found, with
    backtracking over every alternative of every operand)."""
    direct = _direct_match(dag, template, actual, bindings)
    if direct is not None:
        bindings.update(direct)
        return True
    for found in _matches(dag, template, actual, dict(bindings)):
        bindings.clear()
        bindings.update(found)
        return True
    return False


def _direct_match(
    dag: Dag, template: int, actual: int, bindings: dict[int, int]
) -> dict[int, int] | None:
    """The first way :func:`_matches` finds when it is found without search, else None: a
    template that is one op over distinct placeholders not yet bound (a combine region of
    one op, ``fadd(a, b)``) matches an ``actual`` that is, simplified, that op, binding each
    placeholder to its operand simplified (the first candidate and order tried)."""
    key = dag.nodes[template]
    shapes = dag.memo.get("placeholders")
    if shapes is None:
        shapes = dag.memo["placeholders"] = {}
    indices = shapes.get(template)
    if indices is None:
        if key[0] in ("const", "leaf", "bytes"):
            indices = ()
        else:
            indices = tuple(dag.placeholder_index(o) for o in key[1:])
            if None in indices or len(set(indices)) != len(indices):
                indices = ()
        shapes[template] = indices
    if not indices or not bindings.keys().isdisjoint(indices):
        return None
    found = dag.nodes[simplified(dag, actual)]
    if found[0] != key[0] or len(found) != len(key):
        return None
    return {index: simplified(dag, operand) for index, operand in zip(indices, found[1:])}


def _matches(
    dag: Dag, template: int, actual: int, bindings: dict[int, int]
) -> Iterator[dict[int, int]]:
    """Every way ``actual`` matches ``template`` extending ``bindings`` (each a new dict)."""
    key = dag.nodes[template]
    index = dag.placeholder_index(template) if key[0] == "leaf" else None
    if index is not None:  # binds ``actual``, or matches it when already bound to it
        actual = simplified(dag, actual)
        bound = bindings.get(index)
        if bound is None:
            yield {**bindings, index: actual}
        elif bound == actual:
            yield bindings
        return
    if key[0] in ("const", "leaf"):  # a constant (or an input element) matches itself
        if dag.nodes[actual] == key:
            yield bindings
        return
    operands_t = key[1:]
    for candidate in equivalents(dag, actual):
        found = dag.nodes[candidate]
        if len(found) != len(key):
            continue
        operands_a = found[1:]
        orders = []
        if found[0] == key[0]:
            orders.append(operands_a)
            if len(operands_t) == 2 and key[0] in COMMUTATIVE:  # sorted: try the other order
                orders.append(operands_a[::-1])
        elif len(operands_t) == 2 and found[0] == _swapped(key[0]):  # a < b is b > a
            orders.append(operands_a[::-1])
        for order in orders:
            yield from _match_all(dag, operands_t, order, bindings)


def _match_all(
    dag: Dag, templates: tuple[int, ...], actuals: tuple[int, ...], bindings: dict[int, int]
) -> Iterator[dict[int, int]]:
    if not templates:
        yield bindings
        return
    for first in _matches(dag, templates[0], actuals[0], bindings):
        yield from _match_all(dag, templates[1:], actuals[1:], first)


def _swapped(name: str) -> str:
    """The compare with its operands swapped (``fcmp.olt`` -> ``fcmp.ogt``), or ``""``."""
    if name[:5] not in ("fcmp.", "icmp."):
        return ""
    swapped = SWAPPED.get(name[5:])
    return name[:5] + swapped if swapped else ""


_BOOL_WRAPPERS = ("zext.1.8", "trunc.8.1", "and", "icmp.ne")


def same_bool(dag: Dag, got: tuple[int, ...], expected: tuple[int, ...]) -> bool:
    """Whether the stored i1 byte symbols ``got`` are the bool ``expected``: Triton keeps i1 in
    memory as a byte 0 or 1 and re-normalises it on the way (``and x, 1``, ``zext(trunc x)``,
    ``icmp ne x, 0``), which is the identity on such bytes.

    >>> dag = Dag()
    >>> b = dag.leaf(0, 0, 1)
    >>> same_bool(dag, (dag.op("and", (b, dag.const(1, 1)), 1) * 16,), (b * 16,))
    True
    """
    return same_bool_node(dag, dag.from_symbols(got), dag.from_symbols(expected))


def same_bool_rows(dag: Dag, got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """:func:`same_bool` of each row pair of ``got`` and ``expected`` (byte symbols, shape
    (n, nbytes)); one-byte rows whose bytes are each the one byte of a node are decided on
    those nodes, without reading the bytes back into nodes one row at a time.

    >>> dag = Dag()
    >>> b, c = dag.leaf(0, 0, 1), dag.leaf(0, 1, 1)
    >>> masked = dag.op("and", (b, dag.const(1, 1)), 1)
    >>> same_bool_rows(dag, np.array([[masked * 16], [c * 16]]), np.array([[b * 16], [b * 16]]))
    array([ True, False])
    """
    both = np.concatenate([got, expected], axis=1)
    if got.shape[1] == 1 and both.size and (both >= 0).all() and not (both % _SLOTS).any():
        nodes = (both // _SLOTS).tolist()
        if all(dag.width[g] == 1 and dag.width[e] == 1 for g, e in nodes):
            return np.array([same_bool_node(dag, g, e) for g, e in nodes], dtype=bool)
    return np.array(
        [
            same_bool(dag, tuple(int(s) for s in a), tuple(int(s) for s in b))
            for a, b in zip(got, expected)
        ],
        dtype=bool,
    )


def same_bool_node(dag: Dag, node: int, want: int) -> bool:
    """:func:`same_bool` of the nodes whose bytes were given.

    >>> dag = Dag()
    >>> b, c = dag.leaf(0, 0, 1), dag.leaf(0, 1, 1)
    >>> same_bool_node(dag, dag.op("and", (b, dag.const(1, 1)), 1), b)
    True
    >>> same_bool_node(dag, dag.op("and", (b, dag.const(3, 1)), 1), b)  # not a bool's mask
    False
    >>> same_bool_node(dag, dag.op("and", (c, dag.const(1, 1)), 1), b)  # another element
    False
    """
    for _ in range(16):
        if node == want:
            return True
        key = dag.nodes[node]
        if key[0] not in _BOOL_WRAPPERS:
            return False
        inner = [o for o in key[1:] if dag.nodes[o][0] != "const"]
        constants = [dag.nodes[o][1] for o in key[1:] if dag.nodes[o][0] == "const"]
        if (
            len(inner) != 1
            or (key[0] == "and" and constants != [1])
            or (key[0] == "icmp.ne" and constants != [0])
        ):
            return False
        node = inner[0]
    return False
