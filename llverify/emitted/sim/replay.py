"""Concrete evaluation of DAG nodes: the replay of counterexamples on actual numbers.

A node of :class:`~llverify.emitted.sim.symbolic.Dag` is evaluated bottom-up on concrete values
of its leaves (bit patterns of the element width); float operations use numpy's IEEE types
(``float_type`` names what a 2-byte float is: f16 or bf16).  An operation this module does
not know raises :class:`NotEvaluable`, and no replay is claimed.

:func:`depends_on` is the replay of a *foreign element*: two evaluations that differ only in
one input element outside the op's row; different results prove the emitted value depends on
an element it must not depend on, whatever the combine and its order.

Examples:
    >>> dag = Dag()
    >>> a, b = dag.leaf(0, 0, 1), dag.leaf(0, 1, 1)
    >>> first = dag.op("select", (dag.op("icmp.ne", (a, dag.const(0, 1)), 1), a, b), 1)
    >>> evaluate(dag, first, {a: 0, b: 7}), evaluate(dag, first, {a: 3, b: 7})
    (7, 3)
    >>> depends_on(dag, first, b, [a, b]) is not None   # b matters when a == 0
    True
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import re
import time
from collections.abc import Callable, Iterator

import numpy as np

from llverify.emitted.sim.symbolic import Dag

__all__ = [
    "NotEvaluable",
    "assumptions_hold",
    "assumptions_witness",
    "carry_step",
    "depends_on",
    "differing_inputs",
    "evaluate",
    "evaluate_lanes",
    "Batches",
]


class NotEvaluable(Exception):  # noqa: N818 - no replay, not an error
    """A node whose operation has no concrete semantics here."""


_FLOATS = {4: np.float32, 8: np.float64}
_UINTS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _float(bits: int, width: int, float_type: str) -> float:
    if width == 2:
        if float_type == "bf16":
            return float(np.array([bits << 16], dtype=np.uint32).view(np.float32)[0])
        return float(np.array([bits], dtype=np.uint16).view(np.float16)[0])
    if width not in _FLOATS:
        raise NotEvaluable(f"a {width}-byte float")
    return float(np.array([bits], dtype=_UINTS[width]).view(_FLOATS[width])[0])


def _bits(value: float, width: int, float_type: str) -> int:
    with np.errstate(over="ignore"):  # a value past the format's range rounds to infinity
        if width == 2:
            if float_type == "bf16":
                raw = int(np.array([value], dtype=np.float32).view(np.uint32)[0])
                return (raw + 0x7FFF + ((raw >> 16) & 1)) >> 16 & 0xFFFF  # to nearest even
            return int(np.array([value], dtype=np.float16).view(np.uint16)[0])
        return int(np.array([value], dtype=_FLOATS[width]).view(_UINTS[width])[0])


def _signed(value: int, width: int) -> int:
    bits = 8 * width
    return value - (1 << bits) if value >> (bits - 1) else value


def _divide(x: float, y: float) -> float:
    """IEEE division: a zero divisor gives a signed infinity, or NaN for 0/0."""
    if y:
        return x / y
    if x == 0 or math.isnan(x):
        return math.nan
    return math.copysign(math.inf, x) * math.copysign(1.0, y)


def _max_min(pick: Callable[[float, float], float]) -> Callable[[float, float], float]:
    """IEEE 754-2008 maxNum/minNum, as ``llvm.maxnum``/``minnum`` define them: a NaN operand
    gives the other operand; two NaNs, or zeros of opposite signs, whose result the language
    leaves open, are not evaluated."""

    def apply(x: float, y: float) -> float:
        if math.isnan(x) and math.isnan(y):
            raise NotEvaluable("maxnum/minnum of two NaNs (the NaN returned is unspecified)")
        if math.isnan(x) or math.isnan(y):
            return y if math.isnan(x) else x
        if x == y == 0 and math.copysign(1, x) != math.copysign(1, y):
            raise NotEvaluable("maxnum/minnum of +0 and -0 (either may be returned)")
        return pick(x, y)

    return apply


_FLOAT_BINARY: dict[str, Callable[[float, float], float]] = {
    "fadd": lambda x, y: x + y,
    "fsub": lambda x, y: x - y,
    "fmul": lambda x, y: x * y,
    "fdiv": _divide,
    "maxnum": _max_min(max),
    "minnum": _max_min(min),
}
_INT_BINARY: dict[str, Callable[[int, int], int]] = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "and": lambda x, y: x & y,
    "or": lambda x, y: x | y,
    "xor": lambda x, y: x ^ y,
}
_FCMP: dict[str, Callable[[float, float], bool]] = {
    "oeq": lambda x, y: x == y,
    "one": lambda x, y: x != y and x == x and y == y,
    "olt": lambda x, y: x < y,
    "ole": lambda x, y: x <= y,
    "ogt": lambda x, y: x > y,
    "oge": lambda x, y: x >= y,
    "une": lambda x, y: not x == y,
    "ueq": lambda x, y: not x != y,
    "ult": lambda x, y: not x >= y,
    "ule": lambda x, y: not x > y,
    "ugt": lambda x, y: not x <= y,
    "uge": lambda x, y: not x < y,
    "uno": lambda x, y: x != x or y != y,
    "ord": lambda x, y: x == x and y == y,
}


def evaluate(
    dag: Dag,
    node: int,
    leaves: dict[int, int],
    *,
    float_type: str = "f16",
    memo: dict[int, int] | None = None,
) -> int:
    """The bit pattern of ``node`` when each leaf node holds ``leaves[leaf]`` (a bit pattern);
    ``memo`` keeps each node's pattern for these leaf values (pass one to share it between
    nodes evaluated on the same values)."""
    memo = {} if memo is None else memo
    nodes, widths = dag.nodes, dag.width

    def value(node: int) -> int:
        found = memo.get(node)
        if found is not None:
            return found
        key = nodes[node]
        width = widths[node]
        mask = (1 << (8 * width)) - 1
        kind = key[0]
        if kind == "leaf":
            if node not in leaves:
                raise NotEvaluable(f"no value for {dag.describe(node)}")
            result = leaves[node] & mask
        elif kind == "const":
            result = key[1] & mask
        elif kind == "bytes":
            result = 0
            for position, symbol in enumerate(key[1]):
                if symbol >= 0:
                    byte = (value(symbol // 16) >> (8 * (symbol % 16))) & 0xFF
                elif symbol >= -256:
                    byte = -1 - symbol
                else:
                    raise NotEvaluable("an undefined byte")
                result |= byte << (8 * position)
        else:
            operands = key[1:]
            args = [value(o) for o in operands]
            result = _apply(kind, args, [widths[o] for o in operands], width, float_type) & mask
        memo[node] = result
        return result

    return value(node)


def _apply(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    """Operation ``kind`` on the bit patterns ``args`` (of ``widths`` bytes), ``width`` bytes
    out: by its name, else by its family (``fcmp.``, ``icmp.``, ``zext.``...)."""
    apply = _OPERATIONS.get(kind)
    if apply is None and "." in kind:
        apply = _FAMILIES.get(kind.split(".")[0])
    if apply is None:
        raise NotEvaluable(f"operation {kind}")
    return apply(kind, args, widths, width, float_type)


def _select(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    return args[1] if args[0] & 1 else args[2]


def _float_binary(
    kind: str, args: list[int], widths: list[int], width: int, float_type: str
) -> int:
    """Arithmetic on floats.  A NaN result is not evaluated: which NaN bit pattern an
    operation returns differs between the GPU (a canonical NaN) and this host (the first
    operand's payload), so no replay may rest on one."""
    x, y = (_float(a, w, float_type) for a, w in zip(args, widths))
    try:
        result = _FLOAT_BINARY[kind](x, y)
    except (OverflowError, ZeroDivisionError):
        raise NotEvaluable(f"{kind} of {x} and {y}") from None
    if math.isnan(result) and kind not in ("maxnum", "minnum"):
        raise NotEvaluable(f"{kind} giving NaN (its bit pattern is the hardware's choice)")
    return _bits(result, width, float_type)


def _int_binary(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    return _INT_BINARY[kind](args[0], args[1])


def _shift(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    amount = args[1]
    if amount >= 8 * width:
        raise NotEvaluable(f"{kind} by {amount} (poison)")
    if kind == "shl":
        return args[0] << amount
    value = _signed(args[0], widths[0]) if kind == "ashr" else args[0]
    return value >> amount


def _fcmp(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    x, y = (_float(a, w, float_type) for a, w in zip(args, widths))
    predicate = kind[5:]
    if predicate not in _FCMP:
        raise NotEvaluable(kind)
    return int(bool(_FCMP[predicate](x, y)))


def _icmp(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    predicate = kind[5:]
    x, y = args
    if predicate[0] == "s":
        x, y = _signed(x, widths[0]), _signed(y, widths[1])
    compare = _ICMP.get(predicate)
    if compare is None:
        raise NotEvaluable(kind)
    return int(compare(x, y))


def _min_max(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    x, y = args
    if kind[0] == "s":
        x, y = _signed(x, widths[0]), _signed(y, widths[1])
    return (max if kind.endswith("max") else min)(x, y) & ((1 << (8 * width)) - 1)


def _extend(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    """``zext``/``trunc``/``sext`` at the bit widths the name gives (``trunc.8.1``: bit 0 of
    a byte; ``sext.1.8``: bit 0 repeated), else at the operands' byte widths."""
    parts = kind.split(".")
    source, target = (
        (int(parts[1]), int(parts[2])) if len(parts) == 3 else (8 * widths[0], 8 * width)
    )
    value = args[0] & ((1 << min(source, target)) - 1)
    if parts[0] == "sext" and args[0] >> (source - 1) & 1:
        value = args[0] - (1 << source)
    return value & ((1 << target) - 1)


def _bitcast(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    """``bitcast.<N x i1>.iN``: element ``k`` of the vector (byte ``k`` of the operand, one
    byte per ``i1``) is bit ``k`` of the integer (LLVM's LangRef)."""
    if not kind.startswith("bitcast.<") or " x i1>" not in kind:
        raise NotEvaluable(f"operation {kind}")
    return sum((args[0] >> (8 * k) & 1) << k for k in range(widths[0]))


def _bit(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    """``bit.j``: bit ``j`` of the operand (an ``<N x i1>`` element taken from a byte)."""
    return args[0] >> int(kind.split(".")[1]) & 1


def _fabs(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    """``llvm.fabs``: the sign bit cleared.  The ``nvvm`` forms, spelt ``nvvm.fabs`` whether
    they flush subnormals to zero or not, only where the two agree: on a zero, or on an f32
    or f64 that is normal or infinite (not a subnormal, nor a NaN, whose result PTX leaves
    open)."""
    sign = 1 << (8 * width - 1)
    magnitude = args[0] & (sign - 1)
    if kind == "nvvm.fabs" and magnitude:
        mantissa = {4: 23, 8: 52}.get(width)
        if mantissa is None:
            raise NotEvaluable(f"nvvm.fabs of a {width}-byte float")
        exponent = magnitude >> mantissa
        if exponent == 0 or (
            exponent == (sign - 1) >> mantissa and magnitude & ((1 << mantissa) - 1)
        ):
            raise NotEvaluable("nvvm.fabs of a subnormal or a NaN (flushed or not, payload)")
    return magnitude


def carry_step(
    mnemonic: str, half: str | None, signed: bool, bits: int, row: tuple[int, ...]
) -> tuple[int, int]:
    """``(d, carry out)`` of the PTX extended-precision instruction ``mnemonic`` (``mad``,
    ``madc``, ``add``, ``addc``) at ``bits`` on the bit patterns ``row`` (for ``madc`` and
    ``addc`` the carry in last): ``mad`` adds ``c`` to the ``half`` (``lo``/``hi``) of the
    full product ``a * b`` (signed for ``.s``), the ``c`` forms add the carry in too.

    >>> carry_step("mad", "lo", False, 32, (2**31, 4, 7))  # 2**33 + 7: low word 7
    (7, 0)
    >>> carry_step("madc", "hi", False, 32, (2**31, 4, 0, 1))  # high word 2, carry in 1
    (3, 0)
    """
    size = 1 << bits
    if mnemonic.startswith("mad"):
        a, b = row[0], row[1]
        if signed:
            a, b = (v - size if v >> (bits - 1) else v for v in (a, b))
        product = (a * b) % (size * size)
        first = product % size if half == "lo" else product // size
        addends = row[2:]
    else:
        first, addends = row[0], row[1:]
    total = first + sum(addends)
    return total % size, total // size & 1


_CARRY_NODE = re.compile(r"ptx\.(mad|madc|add|addc)\.([us])(32|64)\.(lo|hi|sum)(\.carry)?\Z")


def _carry_chain(kind: str, args: list[int], widths: list[int], width: int, float_type: str) -> int:
    """The nodes of :func:`carry_step`'s instructions (``ptx.mad.u32.lo``, ``ptx.add.u32.sum``)
    and of their carries out (``ptx.mad.u32.lo.carry``)."""
    found = _CARRY_NODE.match(kind)
    if found is None:
        raise NotEvaluable(f"operation {kind}")
    mnemonic, sign, bits, half, carry = found.groups()
    total, out = carry_step(mnemonic, half, sign == "s", int(bits), tuple(args))
    return out if carry else total


_ICMP: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda x, y: x == y,
    "ne": lambda x, y: x != y,
    "slt": lambda x, y: x < y,
    "sle": lambda x, y: x <= y,
    "sgt": lambda x, y: x > y,
    "sge": lambda x, y: x >= y,
    "ult": lambda x, y: x < y,
    "ule": lambda x, y: x <= y,
    "ugt": lambda x, y: x > y,
    "uge": lambda x, y: x >= y,
}
_Operation = Callable[[str, list[int], list[int], int, str], int]
_OPERATIONS: dict[str, _Operation] = {
    "select": _select,
    **{name: _float_binary for name in _FLOAT_BINARY},
    **{name: _int_binary for name in _INT_BINARY},
    **{name: _shift for name in ("shl", "lshr", "ashr")},
    **{name: _min_max for name in ("smax", "smin", "umax", "umin")},
    "fabs": _fabs,
    "nvvm.fabs": _fabs,
}
_FAMILIES: dict[str, _Operation] = {
    "ptx": _carry_chain,
    "fcmp": _fcmp,
    "icmp": _icmp,
    "zext": _extend,
    "trunc": _extend,
    "sext": _extend,
    "bit": _bit,
    "bitcast": _bitcast,
}


def depends_on(
    dag: Dag,
    node: int,
    foreign: int,
    leaves: list[int],
    *,
    float_type: str = "f16",
    trials: int = 64,
    seed: int = 0,
) -> tuple[dict[int, int], int, int, int] | None:
    """A witness that ``node`` depends on leaf ``foreign``: (values of ``leaves``, a second
    value of ``foreign``, the two results), or None if none is found in ``trials`` random
    tries (small integers and zeros, as bit patterns of the leaf's width).  Raises
    :class:`NotEvaluable` when the node cannot be evaluated."""
    generator = random.Random(seed)
    zero_rates = (0.0, 0.3, 0.7, 0.95, 1.0)

    def draw(leaf: int, zero_rate: float) -> int:
        width = dag.width[leaf]
        if generator.random() < zero_rate:
            return 0
        if width in (2, 4, 8) and float_type != "int":
            return _bits(float(generator.randint(-8, 8)), width, float_type)
        return generator.randrange(1 << (8 * width))

    for trial in range(trials):
        # from dense random inputs to all zeros but the foreign element: a combine such as
        # "first non-zero" or max shows a late element's influence only when others are quiet
        zero_rate = zero_rates[trial % len(zero_rates)]
        values = {leaf: draw(leaf, zero_rate) for leaf in leaves}
        values[foreign] = draw(foreign, 0.0)
        first = evaluate(dag, node, values, float_type=float_type)
        other = draw(foreign, 0.3)
        if other == values[foreign]:
            continue
        second = evaluate(dag, node, {**values, foreign: other}, float_type=float_type)
        if first != second:
            return values, other, first, second
    return None


#: float values tried first by :func:`differing_inputs`: signed zeros, infinities, NaNs with two
#: payloads, and small numbers (a combine's order shows on these where it shows at all)
_SPECIAL_FLOATS = (0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 3.0, math.inf, -math.inf)
_NAN_PAYLOADS = {4: (0x7FC00001, 0x7FC00002), 8: (0x7FF8000000000001, 0x7FF8000000000002)}


def assumptions_hold(
    dag: Dag,
    facts: list[tuple[int, bool]] | tuple[tuple[int, bool], ...],
    values: dict[int, int],
    *,
    float_types: tuple[str, ...] = ("f16",),
) -> dict[int, int] | None:
    """``values`` with every other leaf of the ``facts`` (condition node, holds) set to 0, when
    each fact's node evaluates to ``holds`` there under every reading of 2-byte floats; None
    when one does not, or cannot be evaluated (an input on which a device assert fails, or
    may: no replay may rest on it).

    >>> dag = Dag()
    >>> x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    >>> fact = (dag.op("icmp.ult", (x, dag.const(8, 4)), 1), True)
    >>> assumptions_hold(dag, [fact], {y: 5}), assumptions_hold(dag, [fact], {x: 9})
    ({1: 5, 0: 0}, None)
    """
    extended = dict(values)
    for node, _ in facts:
        for leaf in dag.leaves(node):
            extended.setdefault(leaf, 0)
    try:
        for node, holds in facts:
            for float_type in float_types:
                if bool(evaluate(dag, node, extended, float_type=float_type) & 1) != holds:
                    return None
    except NotEvaluable:
        return None
    return extended


def assumptions_witness(
    dag: Dag,
    facts: list[tuple[int, bool]] | tuple[tuple[int, bool], ...],
    *,
    trials: int = 64,
    seed: int = 0,
) -> dict[int, int] | None:
    """Leaf values on which every fact holds (:func:`assumptions_hold`): all zeros first, then
    small random numbers; None when no try finds one.  No facts: the empty assignment.

    >>> dag = Dag()
    >>> x = dag.leaf(0, 0, 4)
    >>> assumptions_witness(dag, [(dag.op("icmp.ult", (x, dag.const(8, 4)), 1), True)])
    {0: 0}
    >>> found = assumptions_witness(dag, [(dag.op("icmp.eq", (x, dag.const(0, 4)), 1), False),
    ...                                   (dag.op("icmp.ult", (x, dag.const(4, 4)), 1), True)])
    >>> found[x] in (1, 2, 3)
    True
    """
    generator = random.Random(seed)
    leaves = sorted({leaf for node, _ in facts for leaf in dag.leaves(node)})
    for trial in range(trials):
        values = {leaf: 0 if trial == 0 else generator.randrange(8) for leaf in leaves}
        found = assumptions_hold(dag, facts, values)
        if found is not None:
            return found
    return None


def differing_inputs(
    dag: Dag,
    first: tuple[int, int],
    second: tuple[int, int],
    *,
    float_types: tuple[str, ...] = ("f16",),
    trials: int = 256,
    seed: int = 0,
    seconds: float = 3.0,
    facts: list[tuple[int, bool]] | tuple[tuple[int, bool], ...] = (),
    memo: dict[tuple, Batches] | None = None,
) -> tuple[dict[int, int], int, int] | None:
    """Leaf values on which byte ``first[1]`` of node ``first[0]`` and byte ``second[1]`` of
    node ``second[0]`` differ, under every reading of 2-byte floats in ``float_types``:
    (leaf values, the two bytes), or None when the tries find none (at most ``trials`` of each
    kind, within about ``seconds``).  The tries: every combination of special floats when
    there are few leaves; *sparse* tries for many leaves (all leaves one value, -inf, +inf,
    -1 or 1, but two set to +0/-0, two NaN payloads or 1/2: how the order of a reduction of
    thousands of elements shows); random special floats; random small numbers.  A try whose
    evaluation is not defined here (an unknown operation, a NaN from arithmetic) is skipped,
    so a witness rests only on exact semantics.  With ``facts`` (the run's assumptions: device
    asserts' conditions), a try is used only where every fact holds
    (:func:`assumptions_hold`, the facts' other leaves 0), and the values returned include
    those leaves.

    The tries are evaluated on lanes (:func:`evaluate_lanes`), a batch at a time, the time
    limit checked before each batch; ``memo`` keeps the batches of each pair of nodes (pass
    one, for this ``dag`` only, to share them between the bytes of one pair: the same tries,
    evaluated once).  Where
    the lanes do not apply, or raise anything but :class:`NotEvaluable`, the tries are
    evaluated one by one, as :func:`evaluate` evaluates them.

    >>> dag = Dag()
    >>> x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    >>> def nan_max(a, b):  # Inductor's maximum: a if a > b or a is NaN, else b
    ...     keep = dag.op("or", (dag.op("fcmp.ogt", (a, b), 1), dag.op("fcmp.uno", (a, a), 1)), 1)
    ...     return dag.op("select", (keep, a, b), 4)
    >>> found = differing_inputs(dag, (nan_max(x, y), 3), (nan_max(y, x), 3))
    >>> found is not None   # max(+0, -0) = -0 but max(-0, +0) = +0: the sign byte differs
    True
    >>> differing_inputs(dag, (dag.op("fadd", (x, y), 4), 0), (dag.op("fadd", (y, x), 4), 0))
    """
    deadline = time.perf_counter() + seconds
    readings = _lanes_apply(dag, (first[0], second[0]), float_types)
    if readings is not None:
        key = (first[0], second[0], float_types, tuple(facts), trials, seed)
        try:
            return _differing_lanes(dag, first, second, deadline, key, readings, memo)
        except Exception:  # not NotEvaluable: the scalar code below says what it is
            if memo is not None:
                memo.pop(key, None)
    leaves = sorted(set(dag.leaves(first[0])) | set(dag.leaves(second[0])))
    generator = random.Random(seed)
    sides = _sides(dag, first[0], second[0])
    for values in _tries(dag, leaves, trials, generator, sides):
        if time.perf_counter() > deadline:
            return None
        if facts:
            admitted = assumptions_hold(dag, facts, values, float_types=float_types)
            if admitted is None:
                continue
            values = admitted
        outcomes = []
        try:
            for float_type in float_types:
                shared: dict[int, int] = {}  # the two values share most of their nodes
                a = evaluate(dag, first[0], values, float_type=float_type, memo=shared)
                b = evaluate(dag, second[0], values, float_type=float_type, memo=shared)
                outcomes.append((a >> 8 * first[1] & 0xFF, b >> 8 * second[1] & 0xFF))
        except NotEvaluable:
            continue
        if all(a != b for a, b in outcomes):
            return values, outcomes[0][0], outcomes[0][1]
    return None


#: the tries :func:`differing_inputs` evaluates on lanes at once, first (then twice as many
#: each time, the time limit checked before each batch)
_CHUNK = 64

#: a batch of :class:`Batches`: the admitted tries and, per reading of 2-byte floats, the two
#: nodes' lanes and where they are defined
_Batch = tuple[list[dict[int, int]], list[tuple[np.ndarray, np.ndarray, np.ndarray]]]


class Batches:
    """The tries of :func:`differing_inputs` for one pair of nodes, evaluated on lanes a batch
    at a time, and kept (the bytes of one pair share them).

    >>> dag = Dag()
    >>> x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    >>> batches = Batches(dag, (x, y), ("f16",), (), 4, 0, ("f16",))
    >>> tries, lanes = batches.batch(0)
    >>> len(tries), [len(a) for a in lanes[0]], batches.batch(1)
    (4, [4, 4, 4], None)
    """

    def __init__(
        self,
        dag: Dag,
        roots: tuple[int, int],
        float_types: tuple[str, ...],
        facts: tuple[tuple[int, bool], ...],
        trials: int,
        seed: int,
        readings: tuple[str, ...],
    ) -> None:
        leaves = sorted(set(dag.leaves(roots[0])) | set(dag.leaves(roots[1])))
        sides = _sides(dag, roots[0], roots[1])
        self._pending = _tries(dag, leaves, trials, random.Random(seed), sides)
        self._dag, self._roots, self._facts = dag, roots, facts
        self._float_types, self._readings = float_types, readings
        self._size = _CHUNK
        self._done: list[_Batch] = []

    def batch(self, index: int) -> _Batch | None:
        """Batch ``index`` (evaluated now if not yet): the admitted tries, and per reading
        (the first node's lanes, the second node's lanes, where both are defined); None past
        the last try."""
        while len(self._done) <= index:
            chunk = list(itertools.islice(self._pending, self._size))
            if not chunk:
                return None
            self._size *= 2
            dag, facts = self._dag, self._facts
            if facts:
                held = [
                    assumptions_hold(dag, facts, v, float_types=self._float_types) for v in chunk
                ]
                chunk = [v for v in held if v is not None]
            lanes = []
            for reading in self._readings:
                (a, b), defined = evaluate_lanes(dag, list(self._roots), chunk, float_type=reading)
                lanes.append((a, b, defined))
            self._done.append((chunk, lanes))
        return self._done[index]


def _differing_lanes(
    dag: Dag,
    first: tuple[int, int],
    second: tuple[int, int],
    deadline: float,
    key: tuple,
    readings: tuple[str, ...],
    memo: dict[tuple, Batches] | None,
) -> tuple[dict[int, int], int, int] | None:
    """:func:`differing_inputs` on lanes: the first try, batch by batch, on which the bytes
    differ under every reading (``key``: the pair's key in ``memo``, and
    :class:`Batches`' arguments)."""
    batches = memo.get(key) if memo is not None else None
    if batches is None:
        batches = Batches(dag, (first[0], second[0]), key[2], key[3], key[4], key[5], readings)
        if memo is not None:
            memo[key] = batches
    index = 0
    while time.perf_counter() <= deadline:
        found = batches.batch(index)
        if found is None:
            return None
        tries, lanes = found
        differ = np.ones(len(tries), dtype=bool)
        for a, b, defined in lanes:
            differ &= defined & (_byte(a, first[1]) != _byte(b, second[1]))
        hits = np.flatnonzero(differ)
        if hits.size:
            lane = int(hits[0])
            a, b, _ = lanes[0]
            return tries[lane], int(_byte(a, first[1])[lane]), int(_byte(b, second[1])[lane])
        index += 1
    return None


def _lanes_apply(
    dag: Dag, roots: tuple[int, int], float_types: tuple[str, ...]
) -> tuple[str, ...] | None:
    """The readings of 2-byte floats :func:`differing_inputs` evaluates on lanes: all of
    ``float_types``, or only the first where no float operation under ``roots`` reads or
    writes a 2-byte float (every reading gives the same bits); None where
    :func:`evaluate_lanes` does not apply (the tries are evaluated one by one)."""
    if not float_types:
        return None
    try:
        order = _post_order(dag, list(roots))
    except NotEvaluable:
        return None
    nodes, widths = dag.nodes, dag.width
    for node in order:
        kind = nodes[node][0]
        if kind in _FLOAT_BINARY or kind.startswith("fcmp."):
            if widths[node] == 2 or any(widths[o] == 2 for o in nodes[node][1:]):
                return float_types
    return float_types[:1]


def _byte(values: np.ndarray, byte: int) -> np.ndarray:
    """Byte ``byte`` of each lane (0 past the 8 bytes a lane holds)."""
    if byte >= 8:
        return np.zeros_like(values)
    return values >> np.uint64(8 * byte) & np.uint64(0xFF)


def _sides(dag: Dag, first: int, second: int) -> tuple[list[int], list[int]] | None:
    """Where two expressions part: follow the one operand in which they differ down to the
    first pair of nodes that differ in several operands (``f(x, y)`` against ``f(y, x)``),
    and return the leaves only under its first operand and those only under its second."""
    for _ in range(10_000):
        a, b = dag.nodes[first], dag.nodes[second]
        if a[0] in ("leaf", "const", "bytes") or a[0] != b[0] or len(a) != len(b):
            return None
        differ = [k for k in range(1, len(a)) if a[k] != b[k]]
        if len(differ) == 1:
            first, second = a[differ[0]], b[differ[0]]
            continue
        operands = [o for o in a[1:] if dag.width[o] == dag.width[first]] or list(a[1:])
        if len(operands) < 2:
            return None
        one, two = set(dag.leaves(operands[-2])), set(dag.leaves(operands[-1]))
        return sorted(one - two), sorted(two - one)
    return None


def _tries(
    dag: Dag,
    leaves: list[int],
    trials: int,
    generator: random.Random,
    sides: tuple[list[int], list[int]] | None,
) -> Iterator[dict[int, int]]:
    """The leaf assignments :func:`differing_inputs` tries, in order: sparse ones on the two
    sides of where the expressions part first, when that is known."""
    count = len(leaves)
    if sides is not None and sides[0] and sides[1] and count > 2:
        for trial in range(64):
            yield _sparse(dag, leaves, trial, generator, sides)
    # a leaf that is no float draws its bits the same way at every try (as _draw does)
    bounds = [None if dag.width[leaf] in (4, 8) else 1 << (8 * dag.width[leaf]) for leaf in leaves]
    randrange = generator.randrange
    for trial in range(trials):
        yield {
            leaf: _draw(dag, leaf, trial, generator, position, count)
            if bound is None
            else randrange(bound)
            for position, (leaf, bound) in enumerate(zip(leaves, bounds))
        }
        if trial >= 128 and count > 2:
            yield _sparse(dag, leaves, trial, generator, None)


_BASELINES = (-math.inf, math.inf, -1.0, 1.0)
#: the pairs two sparse leaves hold; None: two NaN payloads
_PAIRS: tuple[tuple[float, float] | None, ...] = ((0.0, -0.0), (-0.0, 0.0), (1.0, 2.0), None)


def _sparse(
    dag: Dag,
    leaves: list[int],
    trial: int,
    generator: random.Random,
    sides: tuple[list[int], list[int]] | None,
) -> dict[int, int]:
    """All float leaves one baseline value but two (one on each of ``sides`` when given),
    which hold a pair whose order shows."""
    baseline = _BASELINES[trial % len(_BASELINES)]
    pair = _PAIRS[trial // len(_BASELINES) % len(_PAIRS)]
    bits = {width: _bits(baseline, width, "f16") for width in (4, 8)}  # (once per try)
    values = {leaf: bits.get(dag.width[leaf], 0) for leaf in leaves}
    floats = [leaf for leaf in leaves if dag.width[leaf] in (4, 8)]
    if sides is not None:
        one, two = generator.choice(sides[0]), generator.choice(sides[1])
    elif len(floats) >= 2:
        one, two = generator.sample(floats, 2)
    else:
        return values
    if dag.width[one] in (4, 8) and dag.width[two] in (4, 8):
        if pair is None:
            values[one] = _NAN_PAYLOADS[dag.width[one]][0]
            values[two] = _NAN_PAYLOADS[dag.width[two]][1]
        else:
            values[one] = _bits(pair[0], dag.width[one], "f16")
            values[two] = _bits(pair[1], dag.width[two], "f16")
    return values


@functools.cache
def _special_bits(width: int) -> tuple[int, ...]:
    """The bit patterns of :data:`_SPECIAL_FLOATS` and the two NaN payloads, ``width`` bytes
    (made once per width: every try of every leaf draws from them)."""
    return tuple(_bits(v, width, "f16") for v in _SPECIAL_FLOATS) + _NAN_PAYLOADS[width]


def _draw(
    dag: Dag, leaf: int, trial: int, generator: random.Random, position: int, count: int
) -> int:
    """Leaf ``position`` of ``count``'s value for try ``trial``: every combination of special
    floats when there are few leaves (two leaves: 121 tries), random special floats when there
    are many, then random small numbers."""
    width = dag.width[leaf]
    if width not in (4, 8):
        return generator.randrange(1 << (8 * width))
    specials = _special_bits(width)
    combinations = len(specials) ** count
    if combinations <= 128 and trial < combinations:
        return specials[trial // len(specials) ** position % len(specials)]
    if trial < 128:
        return generator.choice(specials)
    return _bits(float(generator.randint(-8, 8)) / generator.choice((1, 2, 3)), width, "f16")


# ---------------------------------------------------------------------------------------------
# Evaluation over many tries at once: one numpy array per node, one lane per try


def evaluate_lanes(
    dag: Dag,
    roots: list[int],
    lanes: list[dict[int, int]],
    *,
    float_type: str = "f16",
) -> tuple[list[np.ndarray], np.ndarray]:
    """:func:`evaluate` of each of ``roots`` on each of the leaf assignments ``lanes`` at
    once, bit for bit: (the roots' bit patterns, an ``np.uint64`` array per root, one lane per
    assignment; whether the evaluation of all the roots is defined in each lane, where
    :func:`evaluate` of one of them raises :class:`NotEvaluable`).  A lane's bits mean nothing
    where it is not defined, and once no lane is left the evaluation stops.  The common
    operations are numpy operations on the lanes with the scalar code's semantics (floats
    through float64, rounded as :func:`_bits` rounds); any other runs :func:`_apply` lane by
    lane.  Raises :class:`NotEvaluable` where it does not apply: a node wider than 8 bytes, or
    a DAG deeper than :func:`evaluate` recurses safely.

    >>> dag = Dag()
    >>> x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    >>> total = dag.op("fadd", (x, y), 4)
    >>> one, inf, minus_inf = 0x3F800000, 0x7F800000, 0xFF800000
    >>> values, defined = evaluate_lanes(dag, [total], [{x: one, y: one}, {x: inf, y: minus_inf}])
    >>> hex(int(values[0][0])), defined.tolist()   # 1 + 1 = 2; inf - inf is NaN: not defined
    ('0x40000000', [True, False])
    """
    order = _post_order(dag, roots)
    count = len(lanes)
    defined = np.ones(count, dtype=bool)
    values: dict[int, np.ndarray] = {}
    nodes, widths = dag.nodes, dag.width
    with np.errstate(all="ignore"):
        for node in order:
            key, width = nodes[node], widths[node]
            mask = np.uint64((1 << (8 * width)) - 1)
            kind = key[0]
            if kind == "leaf":
                known = [lane.get(node) for lane in lanes]
                defined &= np.array([v is not None for v in known], dtype=bool)
                result = np.array([(v or 0) & int(mask) for v in known], dtype=np.uint64)
            elif kind == "const":
                result = np.full(count, key[1] & int(mask), dtype=np.uint64)
            elif kind == "bytes":
                result = np.zeros(count, dtype=np.uint64)
                for position, symbol in enumerate(key[1]):
                    if symbol >= 0:
                        shift = 8 * (symbol % 16)
                        if shift < 64:
                            byte = values[symbol // 16] >> np.uint64(shift) & np.uint64(0xFF)
                            result |= byte << np.uint64(8 * position)
                    elif symbol >= -256:
                        result |= np.uint64((-1 - symbol) << (8 * position))
                    else:
                        defined[:] = False
            else:
                operands = key[1:]
                args = [values[o] for o in operands]
                arg_widths = [widths[o] for o in operands]
                result = _apply_lanes(kind, args, arg_widths, width, float_type, defined) & mask
                if not defined.any():  # no lane left (an operation without semantics, say)
                    break
            values[node] = result
    unset = np.zeros(count, dtype=np.uint64)
    return [values.get(root, unset) for root in roots], defined


#: the deepest DAG :func:`evaluate_lanes` takes: :func:`evaluate` recurses (two frames a
#: level), so a deeper one may end in its RecursionError, which the lanes must not hide
_DEPTH = 200


def _post_order(dag: Dag, roots: list[int]) -> list[int]:
    """The nodes under ``roots``, each after its operands; raises :class:`NotEvaluable` for a
    node wider than 8 bytes (or ``bytes`` of another number of symbols than its width) or a
    DAG deeper than :data:`_DEPTH`."""
    nodes = dag.nodes
    depth: dict[int, int] = {}
    order: list[int] = []
    stack = list(roots)
    while stack:
        node = stack[-1]
        if node in depth:
            stack.pop()
            continue
        key = nodes[node]
        if key[0] in ("leaf", "const"):
            children: list[int] = []
        elif key[0] == "bytes":
            children = [s // 16 for s in key[1] if s >= 0]
        else:
            children = list(key[1:])
        missing = [c for c in children if c not in depth]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        if dag.width[node] > 8 or (key[0] == "bytes" and len(key[1]) != dag.width[node]):
            raise NotEvaluable(f"a {dag.width[node]}-byte node on lanes")
        depth[node] = 1 + max((depth[c] for c in children), default=0)
        if depth[node] > _DEPTH:
            raise NotEvaluable(f"a DAG deeper than {_DEPTH} levels on lanes")
        order.append(node)
    return order


def _apply_lanes(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    """:func:`_apply` on lanes: the result, and ``defined`` cleared where it raises."""
    vector = _LANE_OPERATIONS.get(kind)
    if vector is None and "." in kind:
        vector = _LANE_FAMILIES.get(kind.split(".")[0])
    if vector is not None:
        return vector(kind, args, widths, width, float_type, defined)
    if _OPERATIONS.get(kind) is None and _FAMILIES.get(kind.split(".")[0]) is None:
        defined[:] = False  # no semantics: every lane raises
        return np.zeros(len(defined), dtype=np.uint64)
    return _lane_by_lane(kind, args, widths, width, float_type, defined)


def _lane_by_lane(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    """:func:`_apply` itself on each defined lane (Python integers in and out)."""
    rows = [a.tolist() for a in args]
    out = [0] * len(defined)
    mask = (1 << (8 * width)) - 1
    for lane in np.flatnonzero(defined).tolist():
        try:
            out[lane] = _apply(kind, [r[lane] for r in rows], widths, width, float_type) & mask
        except NotEvaluable:
            defined[lane] = False
    return np.array(out, dtype=np.uint64)


def _floats(bits: np.ndarray, width: int, float_type: str) -> np.ndarray:
    """:func:`_float` on lanes: exact float64 values of the bit patterns."""
    if width == 2:
        if float_type == "bf16":
            return (bits << np.uint64(16)).astype(np.uint32).view(np.float32).astype(np.float64)
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if width not in _FLOATS:
        raise NotEvaluable(f"a {width}-byte float")
    return bits.astype(_UINTS[width]).view(_FLOATS[width]).astype(np.float64)


def _bits_lanes(values: np.ndarray, width: int, float_type: str) -> np.ndarray:
    """:func:`_bits` on lanes: float64 values rounded to the format, as bit patterns."""
    if width == 2:
        if float_type == "bf16":
            raw = values.astype(np.float32).view(np.uint32).astype(np.uint64)
            rounded = raw + np.uint64(0x7FFF) + (raw >> np.uint64(16) & np.uint64(1))
            return rounded >> np.uint64(16) & np.uint64(0xFFFF)
        return values.astype(np.float16).view(np.uint16).astype(np.uint64)
    if width not in _FLOATS:
        raise NotEvaluable(f"a {width}-byte float")
    return values.astype(_FLOATS[width]).view(_UINTS[width]).astype(np.uint64)


def _float_pair(
    args: list[np.ndarray], widths: list[int], float_type: str, defined: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """The two operands as floats; None (every lane cleared) where :func:`_float` raises."""
    try:
        x, y = (_floats(a, w, float_type) for a, w in zip(args, widths))
    except NotEvaluable:
        defined[:] = False
        return None
    return x, y


def _float_binary_lanes(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    """:func:`_float_binary` on lanes: a NaN result not defined; maxnum/minnum of two NaNs or
    of zeros of opposite signs not defined, else Python's ``max``/``min`` (the second operand
    only where it is strictly greater/less)."""
    pair = _float_pair(args, widths, float_type, defined)
    if pair is None:
        return np.zeros(len(defined), dtype=np.uint64)
    x, y = pair
    if kind in ("maxnum", "minnum"):
        x_nan, y_nan = np.isnan(x), np.isnan(y)
        zeros = (x == 0) & (y == 0) & (np.signbit(x) != np.signbit(y))
        defined &= ~((x_nan & y_nan) | zeros)
        second = (y > x) if kind == "maxnum" else (y < x)
        result = np.where(x_nan, y, np.where(y_nan | ~second, x, y))
        result = np.where(y_nan, x, result)
    else:
        result = {"fadd": np.add, "fsub": np.subtract, "fmul": np.multiply, "fdiv": np.divide}[
            kind
        ](x, y)
        defined &= ~np.isnan(result)
    try:
        return _bits_lanes(result, width, float_type)
    except NotEvaluable:
        defined[:] = False
        return np.zeros(len(defined), dtype=np.uint64)


_FCMP_LANES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "oeq": lambda x, y: x == y,
    "one": lambda x, y: (x != y) & (x == x) & (y == y),
    "olt": lambda x, y: x < y,
    "ole": lambda x, y: x <= y,
    "ogt": lambda x, y: x > y,
    "oge": lambda x, y: x >= y,
    "une": lambda x, y: ~(x == y),
    "ueq": lambda x, y: ~(x != y),
    "ult": lambda x, y: ~(x >= y),
    "ule": lambda x, y: ~(x > y),
    "ugt": lambda x, y: ~(x <= y),
    "uge": lambda x, y: ~(x < y),
    "uno": lambda x, y: (x != x) | (y != y),
    "ord": lambda x, y: (x == x) & (y == y),
}


def _fcmp_lanes(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    pair = _float_pair(args, widths, float_type, defined)
    predicate = _FCMP_LANES.get(kind[5:])
    if pair is None or predicate is None:
        defined[:] = False
        return np.zeros(len(defined), dtype=np.uint64)
    return predicate(*pair).astype(np.uint64)


def _signed_lanes(values: np.ndarray, width: int) -> np.ndarray:
    """:func:`_signed` on lanes (int64: the patterns are at most 8 bytes wide)."""
    if width >= 8:
        return values.view(np.int64)
    bits = 8 * width
    top = (values >> np.uint64(bits - 1) & np.uint64(1)).astype(np.int64)
    return values.astype(np.int64) - (top << np.int64(bits))


#: :data:`_ICMP` on lanes (signed or not by the operands' dtype)
_ICMP_LANES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "eq": np.equal,
    "ne": np.not_equal,
    **{sign + "lt": np.less for sign in "su"},
    **{sign + "le": np.less_equal for sign in "su"},
    **{sign + "gt": np.greater for sign in "su"},
    **{sign + "ge": np.greater_equal for sign in "su"},
}


def _icmp_lanes(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    predicate = kind[5:]
    x, y = args
    if predicate[0] == "s":
        x, y = _signed_lanes(x, widths[0]), _signed_lanes(y, widths[1])
    compare = _ICMP_LANES.get(predicate)
    if compare is None:
        defined[:] = False
        return np.zeros(len(defined), dtype=np.uint64)
    return compare(x, y).astype(np.uint64)


def _select_lanes(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    return np.where(args[0] & np.uint64(1) != 0, args[1], args[2])


_INT_LANES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}


def _int_binary_lanes(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    """Modulo 2**64 (the caller masks to the width: the same low bits as Python's)."""
    return _INT_LANES[kind](args[0], args[1])


def _shift_lanes(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    """:func:`_shift` on lanes: an amount of the width or more (poison) not defined."""
    poison = args[1] >= np.uint64(8 * width)
    defined &= ~poison
    amount = np.where(poison, np.uint64(0), args[1])
    if kind == "shl":
        return args[0] << amount
    if kind == "ashr":
        return (_signed_lanes(args[0], widths[0]) >> amount.astype(np.int64)).view(np.uint64)
    return args[0] >> amount


def _min_max_lanes(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    x, y = args
    if kind[0] == "s":
        x, y = _signed_lanes(x, widths[0]), _signed_lanes(y, widths[1])
    picked = np.maximum(x, y) if kind.endswith("max") else np.minimum(x, y)
    return picked.view(np.uint64) if picked.dtype == np.int64 else picked


def _low_mask(bits: int) -> np.uint64:
    """The mask of the low ``bits`` bits of a 64-bit lane (all of them from 64 up)."""
    return np.uint64((1 << min(bits, 64)) - 1)


def _extend_lanes(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    """:func:`_extend` on lanes, modulo 2**64 (every width involved divides it)."""
    parts = kind.split(".")
    source, target = (
        (int(parts[1]), int(parts[2])) if len(parts) == 3 else (8 * widths[0], 8 * width)
    )
    value = args[0] & _low_mask(min(source, target))
    if parts[0] == "sext" and source <= 64:
        negative = args[0] >> np.uint64(source - 1) & np.uint64(1) != 0
        offset = np.uint64(0) if source == 64 else np.uint64(1 << source)
        value = np.where(negative, args[0] - offset, value)
    return value & _low_mask(target)


def _bit_lanes(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    j = int(kind.split(".")[1])
    if j >= 64:
        return np.zeros(len(defined), dtype=np.uint64)
    return args[0] >> np.uint64(j) & np.uint64(1)


def _fabs_lanes(
    kind: str,
    args: list[np.ndarray],
    widths: list[int],
    width: int,
    float_type: str,
    defined: np.ndarray,
) -> np.ndarray:
    """:func:`_fabs` on lanes: the ``nvvm`` form not defined on a subnormal or a NaN."""
    sign = 1 << (8 * width - 1)
    magnitude = args[0] & np.uint64(sign - 1)
    if kind == "nvvm.fabs":
        mantissa = {4: 23, 8: 52}.get(width)
        nonzero = magnitude != 0
        if mantissa is None:
            defined &= ~nonzero
            return magnitude
        exponent = magnitude >> np.uint64(mantissa)
        fraction = magnitude & np.uint64((1 << mantissa) - 1)
        top = np.uint64((sign - 1) >> mantissa)
        defined &= ~(nonzero & ((exponent == 0) | ((exponent == top) & (fraction != 0))))
    return magnitude


_LaneOperation = Callable[[str, list[np.ndarray], list[int], int, str, np.ndarray], np.ndarray]
_LANE_OPERATIONS: dict[str, _LaneOperation] = {
    "select": _select_lanes,
    **{name: _float_binary_lanes for name in _FLOAT_BINARY},
    **{name: _int_binary_lanes for name in _INT_BINARY},
    **{name: _shift_lanes for name in ("shl", "lshr", "ashr")},
    **{name: _min_max_lanes for name in ("smax", "smin", "umax", "umin")},
    "fabs": _fabs_lanes,
    "nvvm.fabs": _fabs_lanes,
}
_LANE_FAMILIES: dict[str, _LaneOperation] = {
    "fcmp": _fcmp_lanes,
    "icmp": _icmp_lanes,
    "zext": _extend_lanes,
    "trunc": _extend_lanes,
    "sext": _extend_lanes,
    "bit": _bit_lanes,
}
