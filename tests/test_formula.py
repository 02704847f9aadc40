"""The formula language: three backends agree with Python, bounds are sound, bad text is refused.

Random well-typed formula TEXT over ``a``, ``b``, ``c`` is generated here and evaluated by
IntOps, NumpyOps and Z3Ops (at ``Formula.width``, with and without the bounds that switch on
the unsigned fast paths); the oracle is Python's own ``eval`` of the same text, used only in
this test and only on text this test generated (or that ``Formula`` accepted, with no
builtins but ``min`` and ``max``).
"""

from __future__ import annotations

import operator
import re
import string
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
import z3
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from llverify.ops import CheckedNumpyOps, IntOps, NumpyOps
from llverify.proof.formula import (
    MAX_BITS,
    Binary,
    Call,
    Compare,
    Const,
    Formula,
    FormulaError,
    IfElse,
    Logical,
    Node,
    Not,
    Unary,
    Var,
)
from llverify.smt.ops import Z3Ops

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

Ranges = dict[str, tuple[int, int]]
VARIABLES = ("a", "b", "c")
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def python_eval(text: str, env: Mapping[str, int]) -> Any:
    """The oracle: Python itself, with no builtins but min and max."""
    namespace: dict[str, Any] = {"__builtins__": {}, "min": min, "max": max}
    return eval(text, namespace, dict(env))  # noqa: S307 - test oracle on controlled text


# ---------------------------------------------------------------------- strategies


@st.composite
def ranges_strategy(draw: Any) -> Ranges:
    """Ranges of a and b (any sign, maybe one point, maybe wide); c never contains 0."""
    scale = draw(st.sampled_from([8, 60, 1 << 12, 1 << 20]))

    def interval() -> tuple[int, int]:
        lo = draw(st.integers(-scale, scale))
        return lo, lo + draw(st.integers(0, scale))

    c_lo = draw(st.integers(1, 30))
    c = (c_lo, c_lo + draw(st.integers(0, 40)))
    if draw(st.booleans()):
        c = (-c[1], -c[0])
    return {"a": interval(), "b": interval(), "c": c}


def literal(draw: Any) -> str:
    value = draw(st.one_of(st.integers(-30, 30), st.sampled_from([1 << 20, 1 << 33, -(1 << 24)])))
    return f"({value})" if value < 0 else str(value)


@st.composite
def integer_text(draw: Any, depth: int, safe: bool = True) -> str:
    """An integer-valued formula.  With ``safe`` every divisor is non-zero and every shift
    amount in [0, 8] (<<) or [0, 69] (>>) by construction; otherwise they are arbitrary."""
    if depth <= 0 or draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(VARIABLES)) if draw(st.booleans()) else literal(draw)
    sub = integer_text(depth - 1, safe)
    kind = draw(
        st.sampled_from(["arith", "arith", "bitwise", "div", "shl", "shr", "unary", "ite", "call"])
    )
    if kind == "arith":
        op = draw(st.sampled_from(["+", "-", "*"]))
        return f"({draw(sub)} {op} {draw(sub)})"
    if kind == "bitwise":
        op = draw(st.sampled_from(["&", "|", "^"]))
        return f"({draw(sub)} {op} {draw(sub)})"
    if kind == "div":
        op = draw(st.sampled_from(["//", "%"]))
        divisor = draw(divisor_text(depth - 1)) if safe or draw(st.booleans()) else draw(sub)
        return f"({draw(sub)} {op} {divisor})"
    if kind in ("shl", "shr"):
        op = "<<" if kind == "shl" else ">>"
        limit = 8 if kind == "shl" else 69
        amount = draw(shift_text(depth - 1, limit)) if safe or draw(st.booleans()) else draw(sub)
        return f"({draw(sub)} {op} {amount})"
    if kind == "unary":
        op = draw(st.sampled_from(["~", "-", "+"]))
        return f"({op}{draw(sub)})"
    if kind == "ite":
        condition = draw(condition_text(depth - 1, safe))
        return f"({draw(sub)} if {condition} else {draw(sub)})"
    function = draw(st.sampled_from(["min", "max"]))
    args = [draw(sub) for _ in range(draw(st.integers(2, 3)))]
    return f"{function}({', '.join(args)})"


@st.composite
def divisor_text(draw: Any, depth: int) -> str:
    """Divisors whose range excludes 0 under any reasonable interval analysis."""
    sub = integer_text(depth, True)
    kind = draw(st.integers(0, 5))
    k = draw(st.integers(1, 9))
    if kind == 0:
        return str(k) if draw(st.booleans()) else f"({-k})"
    if kind == 1:
        return "c"
    if kind == 2:
        return f"(({draw(sub)} % {k}) + {draw(st.integers(1, 3))})"
    if kind == 3:
        return f"(-(({draw(sub)} % {k}) + 1))"
    if kind == 4:
        return f"max({draw(sub)}, {k})"
    return f"min({draw(sub)}, {-k})"


@st.composite
def shift_text(draw: Any, depth: int, limit: int) -> str:
    """Shift amounts in [0, limit] under any reasonable interval analysis."""
    sub = integer_text(depth, True)
    kind = draw(st.integers(0, 2))
    if kind == 0:
        return str(draw(st.integers(0, limit)))
    if kind == 1:
        return f"({draw(sub)} % {draw(st.integers(1, limit + 1))})"
    return f"min(max({draw(sub)}, 0), {draw(st.integers(0, limit))})"


@st.composite
def condition_text(draw: Any, depth: int, safe: bool = True) -> str:
    kind = draw(st.integers(0, 3)) if depth > 0 else 0
    if kind <= 1:
        count = draw(st.integers(2, 3))
        operands = [draw(integer_text(depth - 1, safe)) for _ in range(count)]
        text = operands[0]
        for operand in operands[1:]:
            text += f" {draw(st.sampled_from(COMPARISONS))} {operand}"
        return f"({text})"
    if kind == 2:
        op = draw(st.sampled_from(["and", "or"]))
        parts = [draw(condition_text(depth - 1, safe)) for _ in range(draw(st.integers(2, 3)))]
        return "(" + f" {op} ".join(parts) + ")"
    return f"(not {draw(condition_text(depth - 1, safe))})"


@st.composite
def inputs_strategy(draw: Any, ranges: Ranges, count: int = 6) -> list[dict[str, int]]:
    def point(lo: int, hi: int) -> Any:
        return st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi]))

    rows = draw(
        st.lists(
            st.fixed_dictionaries({name: point(*ranges[name]) for name in VARIABLES}),
            min_size=1,
            max_size=count,
        )
    )
    return rows


def checked_bounds(formula: Formula, ranges: Ranges) -> dict[int, tuple[int, int]]:
    """bounds(), skipping the (rare) formulas whose values may pass 2**MAX_BITS."""
    try:
        return formula.bounds(ranges)
    except FormulaError as error:
        assume(f"2**{MAX_BITS}" not in str(error))
        raise


# ---------------------------------------------------------------------- backends agree


def _z3_values(expr: Any, symbols: Mapping[str, Any], rows: list[dict[str, int]]) -> list[int]:
    width = expr.size()
    values = []
    for row in rows:
        pairs = [(symbols[n], z3.BitVecVal(row[n], width)) for n in VARIABLES]
        value = z3.simplify(z3.substitute(expr, *pairs))
        assert z3.is_bv_value(value), value
        values.append(value.as_signed_long())
    return values


@SETTINGS
@given(data=st.data())
def test_backends_agree_with_python_eval(data: st.DataObject) -> None:
    ranges = data.draw(ranges_strategy(), label="ranges")
    text = data.draw(integer_text(3), label="text")
    rows = data.draw(inputs_strategy(ranges), label="rows")
    formula = Formula(text)
    assert formula.variables <= set(VARIABLES)
    bounds = checked_bounds(formula, ranges)  # safe divisors and shifts are accepted
    width = formula.width(ranges)
    expected = [python_eval(text, row) for row in rows]
    assert all(type(v) is int for v in expected)

    # IntOps, with and without bounds.
    assert [formula.evaluate(IntOps(), row) for row in rows] == expected
    assert [formula.evaluate(IntOps(), row, bounds) for row in rows] == expected

    # NumpyOps (and CheckedNumpyOps, which must stay silent), vectorized, where int64 holds.
    if width <= 62:
        env = {n: np.array([row[n] for row in rows], dtype=np.int64) for n in VARIABLES}
        for ops in (NumpyOps(), CheckedNumpyOps()):
            result = formula.evaluate(ops, env, bounds if len(rows) % 2 else None)
            assert np.broadcast_to(result, (len(rows),)).tolist() == expected, ops.name
            assert not getattr(ops, "overflowed", False)

    # Z3Ops at exactly formula.width bits, symbolic inputs substituted afterwards.
    symbols = {n: z3.BitVec(n, width) for n in VARIABLES}
    with_bounds = formula.evaluate(Z3Ops(width), symbols, bounds)
    assert _z3_values(with_bounds, symbols, rows) == expected
    without_bounds = formula.evaluate(Z3Ops(width), symbols)
    assert _z3_values(without_bounds, symbols, rows) == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_condition_formulas_agree_with_python_eval(data: st.DataObject) -> None:
    """Formula(text, condition=True): a condition at the top, evaluated by every backend."""
    ranges = data.draw(ranges_strategy(), label="ranges")
    text = data.draw(condition_text(3), label="text")
    rows = data.draw(inputs_strategy(ranges), label="rows")
    formula = Formula(text, condition=True)
    with pytest.raises(FormulaError):
        Formula(text)  # a condition is not a number
    bounds = checked_bounds(formula, ranges)
    width = formula.width(ranges)
    expected = [python_eval(text, row) for row in rows]
    assert all(type(v) is bool for v in expected)
    assert [bool(formula.evaluate(IntOps(), row)) for row in rows] == expected
    if width <= 62:
        env = {n: np.array([row[n] for row in rows], dtype=np.int64) for n in VARIABLES}
        result = formula.evaluate(NumpyOps(), env, bounds)
        assert np.broadcast_to(result, (len(rows),)).tolist() == expected
    symbols = {n: z3.BitVec(n, width) for n in VARIABLES}
    for bounds_or_none in (bounds, None):
        expr = formula.evaluate(Z3Ops(width), symbols, bounds_or_none)
        for row, want in zip(rows, expected):
            pairs = [(symbols[n], z3.BitVecVal(row[n], width)) for n in VARIABLES]
            value = z3.simplify(z3.substitute(expr, *pairs))
            assert z3.is_true(value) is want, (row, value)


@pytest.mark.parametrize(
    "text, env, expected",
    [
        ("a + b * c - 7 // 2 % 3", {"a": 1, "b": 2, "c": 3}, 1 + 2 * 3 - 7 // 2 % 3),
        ("a & b | c ^ 6 << 1 >> 1", {"a": 5, "b": 6, "c": 3}, 5 & 6 | 3 ^ 6 << 1 >> 1),
        ("-a % 5", {"a": 7}, -7 % 5),
        ("~a + -b", {"a": 4, "b": -3}, ~4 + 3),
        ("a if 0 < a < 10 != b else b", {"a": 5, "b": 10}, 10),
        ("a if 0 < a < 10 != b else b", {"a": 5, "b": 11}, 5),
        ("a if a > b >= 3 == 3 else -1", {"a": 5, "b": 3}, 5),
        ("1 if not a == b and a <= b or b > 9 else 0", {"a": 1, "b": 2}, 1),
        ("1 if not (a == b and a <= b or b > 9) else 0", {"a": 1, "b": 2}, 1),
        ("min(a, b) + max(a, b, 3) - min(1, a, b)", {"a": -4, "b": 2}, -4 + 3 + 4),
        ("(-7) // 2 + (-7) % 2 + 7 // -2 + 7 % -2", {}, -4 + 1 - 4 - 1),
        ("-9 >> 2", {}, -3),
        ("0x1F + 0o17 + 0b101 + 1_000", {}, 31 + 15 + 5 + 1000),
        ("18446744073709551615 - a", {"a": 1}, (1 << 64) - 2),
    ],
)
def test_operator_precedence_and_literals(text: str, env: dict[str, int], expected: int) -> None:
    formula = Formula(text)
    assert expected == python_eval(text, env)
    assert formula.evaluate(IntOps(), env) == expected
    ranges = {name: (value, value) for name, value in env.items()}
    width = formula.width(ranges)
    bounds = formula.bounds(ranges)
    ops = Z3Ops(width)
    z3_env = {name: ops.const(value) for name, value in env.items()}
    assert z3.simplify(formula.evaluate(ops, z3_env, bounds)).as_signed_long() == expected
    if width <= 62:
        numpy_env = {name: np.array([value]) for name, value in env.items()}
        assert np.asarray(formula.evaluate(NumpyOps(), numpy_env)).ravel().tolist() == [expected]


# ---------------------------------------------------------------------- bounds soundness


def subtree_value(node: Node, env: Mapping[str, int]) -> int:
    """An independent evaluator of the syntax tree (Python semantics; bools as 0/1)."""
    if isinstance(node, Const):
        return node.value
    if isinstance(node, Var):
        return env[node.name]
    if isinstance(node, Unary):
        value = subtree_value(node.operand, env)
        return ~value if node.op == "~" else -value
    if isinstance(node, Binary):
        left, right = subtree_value(node.left, env), subtree_value(node.right, env)
        return BINARY[node.op](left, right)
    if isinstance(node, Compare):
        values = [subtree_value(o, env) for o in node.operands]
        return int(all(COMPARE[op](x, y) for op, x, y in zip(node.ops, values, values[1:])))
    if isinstance(node, Logical):
        values = [subtree_value(v, env) for v in node.values]
        return int(all(values) if node.op == "and" else any(values))
    if isinstance(node, Not):
        return int(not subtree_value(node.operand, env))
    if isinstance(node, IfElse):
        condition = subtree_value(node.condition, env)
        return subtree_value(node.then if condition else node.otherwise, env)
    assert isinstance(node, Call), node
    values = [subtree_value(a, env) for a in node.args]
    return min(values) if node.function == "min" else max(values)


BINARY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
}
COMPARE = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def all_nodes(node: Node) -> list[Node]:
    children: list[Node] = []
    for value in vars(node).values() if hasattr(node, "__dict__") else []:
        if isinstance(value, Node):
            children.append(value)
        elif isinstance(value, tuple):
            children.extend(v for v in value if isinstance(v, Node))
    result = [node]
    for child in children:
        result.extend(all_nodes(child))
    return result


@SETTINGS
@given(data=st.data())
def test_bounds_are_sound_and_width_holds_every_value(data: st.DataObject) -> None:
    ranges = data.draw(ranges_strategy(), label="ranges")
    safe = data.draw(st.booleans(), label="safe")
    text = data.draw(integer_text(3, safe), label="text")
    formula = Formula(text)
    try:
        bounds = formula.bounds(ranges)
    except FormulaError as error:
        assume(False)
        raise AssertionError from error  # pragma: no cover
    width = formula.width(ranges)
    nodes = all_nodes(formula.root)
    assert {id(n) for n in nodes} <= set(bounds)
    limit = 1 << (width - 1)
    for lo, hi in [*bounds.values(), *(ranges[n] for n in formula.variables)]:
        assert -limit <= lo <= hi < limit
    for row in data.draw(inputs_strategy(ranges, 8), label="rows"):
        for node in nodes:
            value = subtree_value(node, row)  # a ZeroDivisionError here: unsound bounds
            lo, hi = bounds[id(node)]
            assert lo <= value <= hi, (node, value, (lo, hi))
            assert -limit <= value < limit
        assert subtree_value(formula.root, row) == python_eval(formula.text, row)


@settings(max_examples=150, deadline=None)
@given(
    op=st.sampled_from(["//", "%", "<<", ">>"]),
    a=st.tuples(st.integers(-50, 50), st.integers(0, 50)).map(lambda t: (t[0], t[0] + t[1])),
    b=st.tuples(st.integers(-10, 10), st.integers(0, 10)).map(lambda t: (t[0], t[0] + t[1])),
)
def test_bounds_reject_exactly_zero_divisors_and_negative_shifts(
    op: str, a: tuple[int, int], b: tuple[int, int]
) -> None:
    formula = Formula(f"x {op} y")
    bad = b[0] <= 0 <= b[1] if op in ("//", "%") else b[0] < 0
    if bad:
        with pytest.raises(FormulaError) as info:
            formula.bounds({"x": a, "y": b})
        assert info.value.column == 2  # the operator
        assert_caret(info.value, 2)
    else:
        bounds = formula.bounds({"x": a, "y": b})
        lo, hi = bounds[id(formula.root)]
        for x in range(a[0], a[1] + 1):
            for y in range(b[0], b[1] + 1):
                assert lo <= BINARY[op](x, y) <= hi


def test_bounds_need_every_variable_and_width_is_tight_for_examples() -> None:
    with pytest.raises(FormulaError):
        Formula("a + b").bounds({"a": (0, 1)})
    assert Formula("a").width({"a": (0, 1)}) == 2
    assert Formula("a").width({"a": (0, 255)}) == 9
    assert Formula("a").width({"a": (-128, 127)}) == 8
    assert Formula("a * a").width({"a": (0, 15)}) == 9
    assert Formula("(a & 63) ^ (((a >> 6) & 7) << 3)").width({"a": (0, (1 << 14) - 1)}) == 15


# ---------------------------------------------------------------------- rejection


def assert_caret(error: FormulaError, column: int) -> None:
    """The message shows the text and a caret under ``column``."""
    lines = str(error).splitlines()
    assert lines[-2] == "  " + error.text, lines
    assert lines[-1] == "  " + " " * column + "^", lines


# (text, columns where the caret may point: the start of the offending construct)
REJECTED_WITH_COLUMN = [
    ("x.__class__", {0, 1}),
    ("1 + x.__class__", {4, 5}),
    ("().__class__.__bases__", {0, 2, 12}),
    ("().__class__.__bases__[0].__subclasses__()", {0, 2, 12, 25}),
    ("__import__('os')", {0}),
    ("__import__('os').system('ls')", {0}),
    ("open('f')", {0}),
    ("a + open('f')", {4}),
    ("eval('1')", {0}),
    ("exec('import os')", {0}),
    ("getattr(a, 'b')", {0}),
    ("(lambda: 0)()", {0, 1}),
    ("lambda: 0", {0}),
    ("1 + (lambda: 0)", {5}),
    ("a[0]", {0}),
    ("a + b[0:1]", {4}),
    ("[x for x in a]", {0}),
    ("a + sum(x for x in b)", {4}),
    ("{a: b}", {0}),
    ("{a}", {0}),
    ("(a, b)", {0, 1}),
    ("a ** 2", {2}),
    ("2**10**10", {1}),
    ("a + 2 ** 10 ** 10", {6}),
    ("a @ b", {2}),
    ("a / b", {2}),
    ("1.5", {0}),
    ("a + 1.5", {4}),
    ("1e9 + a", {0}),
    ("1j", {0}),
    ("'s'", {0}),
    ("a + 'x' * 3", {4}),
    ("b'x'", {0}),
    ("True", {0}),
    ("a + False", {4}),
    ("None", {0}),
    ("...", {0}),
    ("f'{a}'", {0}),
    ("a + f'{a.__class__}'", {4}),
    ("(x := 1)", {1}),
    ("a + (y := 2)", {5}),
    ("min(*a, b)", {0, 4}),
    ("max(a, *b)", {0, 7}),
    ("min(a)", {0}),
    ("max()", {0}),
    ("min(a, b, key=c)", {0, 10}),
    ("max(a=1, b=2)", {0, 4}),
    ("min(**a)", {0, 4}),
    ("min", {0}),
    ("a + max", {4}),
    ("_x + 1", {0}),
    ("a + _b", {4}),
    ("a + __builtins__", {4}),
    ("x if y else 1", {5}),
    ("(a < b) + 1", {1}),
    ("a + (b < c)", {5}),
    ("-(a < b)", {2}),
    ("~(a == b)", {2}),
    ("min(a, b > 1)", {7}),
    ("not a", {4}),
    ("1 if a else 2", {5}),
    ("1 if a < b and c else 2", {15}),
    ("a < b", {0}),
    ("a in b", {0, 2}),
    ("a is b", {0, 2}),
    ("a not in b", {0, 2}),
    ("await a", {0}),
    ("(yield a)", {1}),
    ("a if b < c else (d for d in e)", {16}),
]


@pytest.mark.parametrize("text, columns", REJECTED_WITH_COLUMN)
def test_rejected_with_caret(text: str, columns: set[int]) -> None:
    with pytest.raises(FormulaError) as info:
        Formula(text)
    error = info.value
    assert error.text == text
    assert error.column in columns, (error.column, str(error))
    assert_caret(error, error.column)


SYNTAX_ERRORS = [
    "import os",
    "x = 1",
    "a +",
    "(a",
    "a b",
    "a)",
    "del a",
    "a; b",
    "if a: b",
    "a +* b",
    "min(a,, b)",
    "a if b",
    "\\",
    "a\x00",
    "1" * 5000,
    "a $ b",
    "`a`",
    "a <> b",
    "a ? b : c",
]


@pytest.mark.parametrize("text", SYNTAX_ERRORS)
def test_syntax_errors_are_formula_errors(text: str) -> None:
    with pytest.raises(FormulaError) as info:
        Formula(text)
    error = info.value
    if error.column is not None:
        assert 0 <= error.column <= len(error.text)
        assert_caret(error, error.column)


def test_column_of_a_syntax_error() -> None:
    with pytest.raises(FormulaError) as info:
        Formula("x = 1")
    assert info.value.column == 2
    with pytest.raises(FormulaError) as info:
        Formula("a + b )")
    assert info.value.column == 6
    assert_caret(info.value, 6)


@pytest.mark.parametrize("text", ["", " ", "\n\t  \n", "\r\n"])
def test_empty_text(text: str) -> None:
    with pytest.raises(FormulaError, match="empty"):
        Formula(text)


@pytest.mark.parametrize("value", [None, 1, b"a", ["a"], Formula("a")])
def test_non_str_is_rejected(value: Any) -> None:
    with pytest.raises(FormulaError):
        Formula(value)


def test_very_long_text() -> None:
    assert Formula("max(" + ", ".join(["a"] * 3000) + ")").variables == {"a"}  # 8999 chars
    with pytest.raises(FormulaError, match="10000"):
        Formula("+".join(["a"] * 5001))
    with pytest.raises(FormulaError, match="10000"):
        Formula("a" + " " * 10_000)


DEEP = [
    "(" * 5000 + "x" + ")" * 5000,
    "(" * 4000 + "x" + ")" * 4000,
    "(" * 300 + "x" + ")" * 300,
    "-" * 9000 + "x",
    "~" * 5000 + "x",
    "-(" * 3000 + "x" + ")" * 3000,
    "not " * 2400 + "a < b",
    "1+" * 4999 + "1",
    "a if " + "b < c if " * 1000 + "x",
    "min(a, " * 1200 + "b" + ")" * 1200,
    "[" * 3000 + "]" * 3000,
    "a." + ".".join(["b"] * 4000),
    "a" + "(b)" * 3000,
    "a" + "[0]" * 3000,
    "x" + " < x" * 2400,
    "1 if " + " and ".join(["(a < b)"] * 800) + " else 0",
]


@pytest.mark.parametrize("text", DEEP, ids=lambda t: f"{t[:12]}...{len(t)}")
def test_deep_or_huge_text_raises_formula_error_only(text: str) -> None:
    try:
        formula = Formula(text)
    except FormulaError:
        return
    # Accepted (not deep enough to refuse): analysis and evaluation must work too.
    ranges = {name: (0, 3) for name in formula.variables}
    formula.bounds(ranges)
    formula.evaluate(IntOps(), {name: 1 for name in formula.variables})
    hash(formula)
    assert formula == formula


def test_deepest_accepted_formulas_support_everything() -> None:
    for op in ("-", "~", "not "):
        depth, formula = 0, None
        for n in (50, 100, 200, 300, 400, 450, 480, 490, 495, 500, 600):
            text = op * n + ("x" if op != "not " else "(a < b)")
            if op == "not ":
                text = f"1 if {text} else 0"
            try:
                formula = Formula(text)
                depth = n
            except FormulaError:
                break
        assert formula is not None and depth >= 100
        other = Formula(formula.text)
        ranges = {name: (0, 3) for name in formula.variables}
        formula.bounds(ranges)
        formula.evaluate(IntOps(), {name: 1 for name in formula.variables})
        assert hash(formula) == hash(other) and formula == other


def test_huge_shifts_rejected_by_bounds_and_evaluation() -> None:
    formula = Formula("1 << 100000")
    with pytest.raises(FormulaError) as info:
        formula.bounds({})
    assert info.value.column == 2
    assert_caret(info.value, 2)
    with pytest.raises(FormulaError) as info:
        formula.evaluate(IntOps(), {})
    assert info.value.column == 2
    formula = Formula("x << y")
    with pytest.raises(FormulaError) as info:
        formula.bounds({"x": (0, 1), "y": (0, 10**6)})
    assert info.value.column == 2
    formula.bounds({"x": (0, 1), "y": (0, 200)})  # 201 bits: allowed
    with pytest.raises(FormulaError):
        Formula("x << 300").bounds({"x": (0, 0)})
    with pytest.raises(FormulaError):  # literals are below 2**64
        Formula(str(1 << 64))
    Formula(str((1 << 64) - 1))
    with pytest.raises(FormulaError):  # products past 2**256
        Formula("a * a * a * a * a").bounds({"a": (0, 1 << 60)})


def test_negative_shift_amounts_rejected() -> None:
    for text, column in (("a << -1", 2), ("a >> (b - 5)", 2), ("1 + (a << (b - 1))", 7)):
        formula = Formula(text)
        with pytest.raises(FormulaError) as info:
            formula.bounds({"a": (0, 10), "b": (0, 3)})
        assert info.value.column == column
        assert_caret(info.value, column)


def test_division_by_a_range_containing_zero_rejected() -> None:
    for text, column in (("a // b", 2), ("a % (b - 1)", 2), ("a + 3 // (a - b)", 6)):
        with pytest.raises(FormulaError) as info:
            Formula(text).bounds({"a": (0, 10), "b": (0, 3)})
        assert info.value.column == column
        assert_caret(info.value, column)


# ---------------------------------------------------------------------- IntOps errors


@pytest.mark.parametrize(
    "text, env, column",
    [
        ("a // b", {"a": 1, "b": 0}, 2),
        ("a % b", {"a": 1, "b": 0}, 2),
        ("a + 7 // (b - 1)", {"a": 1, "b": 1}, 6),
        ("a << b", {"a": 1, "b": -1}, 2),
        ("a >> b", {"a": 1, "b": -3}, 2),
        ("a << b", {"a": 1, "b": 10**9}, 2),
        ("a << b", {"a": 0, "b": 10**30}, 2),
        ("1 << 100000", {}, 2),
        ("1 >> -1", {}, 2),
        ("min(a, b) << -a", {"a": 2, "b": 3}, 10),
    ],
)
def test_intops_evaluation_errors_are_formula_errors(
    text: str, env: dict[str, int], column: int
) -> None:
    with pytest.raises(FormulaError) as info:
        Formula(text).evaluate(IntOps(), env)
    assert info.value.column == column
    assert_caret(info.value, column)


def test_huge_right_shift_is_fine_in_python_semantics() -> None:
    formula = Formula("a >> b")
    assert formula.evaluate(IntOps(), {"a": -5, "b": 10**30}) == -1
    assert formula.evaluate(IntOps(), {"a": 5, "b": 10**30}) == 0


def test_missing_values_are_formula_errors() -> None:
    with pytest.raises(FormulaError):
        Formula("a + b").evaluate(IntOps(), {"a": 1})


def test_non_ascii_names_parse_and_evaluate() -> None:
    """Identifiers may be any Python identifier; columns must not be byte offsets."""
    formula = Formula("ééééé + 1")
    assert formula.evaluate(IntOps(), {"ééééé": 2}) == 3
    formula = Formula("ééééé+1")
    assert formula.evaluate(IntOps(), {"ééééé": 2}) == 3


def test_caret_after_non_ascii_text() -> None:
    with pytest.raises(FormulaError) as info:
        Formula("é + x.y")
    assert info.value.column == 4
    assert_caret(info.value, 4)
    with pytest.raises(FormulaError) as info:
        Formula("ab + cé ** 2")
    assert info.value.column == 8
    assert_caret(info.value, 8)


# ---------------------------------------------------------------------- fuzzing

TOKENS = [
    *VARIABLES,
    "x",
    "_x",
    "é",
    "éééééé",
    "0",
    "1",
    "7",
    "255",
    "18446744073709551616",
    "1.5",
    "1e3",
    "'s'",
    "None",
    "True",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ".",
    "=",
    ":=",
    ";",
    "+",
    "-",
    "*",
    "**",
    "/",
    "//",
    "%",
    "&",
    "|",
    "^",
    "~",
    "<<",
    ">>",
    "<",
    "<=",
    "==",
    "!=",
    ">",
    ">=",
    "and",
    "or",
    "not",
    "in",
    "is",
    "if",
    "else",
    "for",
    "lambda",
    "min",
    "max",
    "__import__",
    "__class__",
    "import",
    "f'",
    "'",
    '"',
    "#",
    "\\",
    "\n",
    "\t",
    " ",
]

RENAMES = ["a", "b", "é" * 15, "ζ", "变量" * 4, "_a", "a.b", "a()", "a[0]", "min", "1.0", "(a,)"]


@st.composite
def mutated_formula(draw: Any) -> str:
    """A valid formula with names replaced and tokens spliced in: mostly parseable text."""
    text = draw(integer_text(2, safe=False))
    text = re.sub(r"\b[abc]\b", lambda _: draw(st.sampled_from(RENAMES)), text)
    for _ in range(draw(st.integers(0, 2))):
        position = draw(st.integers(0, len(text)))
        text = text[:position] + draw(st.sampled_from(TOKENS)) + text[position:]
    return text


fuzz_text = st.one_of(
    mutated_formula(),
    st.text(alphabet=string.printable, max_size=40),
    st.text(max_size=30),
    st.lists(st.sampled_from(TOKENS), max_size=25).map(" ".join),
    st.lists(st.sampled_from(TOKENS), max_size=25).map("".join),
)


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(text=fuzz_text, data=st.data())
def test_fuzz_only_formula_errors(text: str, data: st.DataObject) -> None:
    try:
        Formula(text, condition=True)
    except FormulaError as error:
        if error.column is not None:
            assert_caret(error, error.column)
    try:
        formula = Formula(text)
    except FormulaError as error:
        if error.column is not None:
            assert_caret(error, error.column)
        return
    ranges = {
        name: data.draw(st.sampled_from([(0, 7), (-8, 7), (1, 5), (-3, -1)]))
        for name in sorted(formula.variables)
    }
    env = {name: data.draw(st.integers(*ranges[name])) for name in sorted(formula.variables)}
    try:
        value = formula.evaluate(IntOps(), env)
    except FormulaError:
        value = None
    if value is not None:  # accepted text means the same as in Python
        assert value == python_eval(formula.text, env)
    try:
        bounds = formula.bounds(ranges)
    except FormulaError:
        return
    assert value is not None
    lo, hi = bounds[id(formula.root)]
    assert lo <= value <= hi
    width = formula.width(ranges)
    ops = Z3Ops(width)
    z3_env = {name: ops.const(v) for name, v in env.items()}
    assert z3.simplify(formula.evaluate(ops, z3_env, bounds)).as_signed_long() == value
