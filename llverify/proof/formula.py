"""A small, safe formula language for reference layouts, evaluated by any Ops backend.

Formulas are integer and bitwise expressions over named inputs and parameters::

    (offset & 63) ^ (((offset >> 6) & 7) << 3)

with ``+ - * // % & | ^ << >> ~``, unary ``-``, comparisons (chained too), ``and``, ``or``,
``not``, ``a if c else b``, ``min(...)`` and ``max(...)``, and integer literals.  The text is
parsed with Python's ``ast`` and every node is checked against that list: there is no
``eval``, no attribute access, no other call, no ``**``.  The semantics are Python's on
unbounded integers; :meth:`Formula.bounds` computes the range of every subexpression from
the ranges of the variables, which gives the bit-width at which a bounded backend (numpy,
Z3) is exact, and rejects formulas that could divide by zero or shift by a negative amount.
"""

from __future__ import annotations

import ast
import functools
import unicodedata
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from llverify.bits import as_bool
from llverify.errors import LayoutTypeError, LLVerifyError, escaped, shown
from llverify.ops import IntOps, Ops

#: Values beyond 2**MAX_BITS (in magnitude) are refused: a formula this large is a mistake.
MAX_BITS = 256
#: Literals must be below 2**MAX_LITERAL_BITS.
MAX_LITERAL_BITS = 64
#: Deepest nesting of a formula (the checks and evaluators recurse over the tree).
MAX_DEPTH = 200
_TOO_DEEP = f"formula rejected: nested deeper than {MAX_DEPTH} levels"


@functools.lru_cache(maxsize=4096)
def _parse(text: str, condition: bool) -> tuple[str, Node, frozenset[str]]:
    """Parse and check a formula's text once (nodes are immutable, so parses are shared):
    its one-line text, root node and variable names."""
    if len(text) > 10_000:
        raise FormulaError("formula rejected: longer than 10000 characters.")
    stripped = " ".join(text.split())  # one line, so error carets line up
    if not stripped:
        raise FormulaError("formula rejected: the text is empty.")
    _check_characters(text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. SyntaxWarning on "1if": we report
            tree = ast.parse(stripped, mode="eval")
    except SyntaxError as error:
        column = (error.offset - 1) if error.offset else None
        if column is not None:
            column = min(column, len(stripped))
        reason = (
            f"nested deeper than {MAX_DEPTH} levels"  # Python's limit is MAX_DEPTH too
            if error.msg == "too many nested parentheses"
            else f"syntax error: {error.msg}"
        )
        raise FormulaError(f"formula rejected: {reason}", stripped, column) from None
    except (RecursionError, MemoryError):  # Python's parser stack overflowed
        raise FormulaError(_TOO_DEEP, stripped) from None
    except ValueError as error:
        raise FormulaError(f"formula rejected: {error}", stripped) from None
    if _depth(tree) > MAX_DEPTH:
        raise FormulaError(_TOO_DEEP, stripped)
    converter = _Converter(stripped)
    try:
        root = converter.condition(tree.body) if condition else converter.integer(tree.body)
    except RecursionError:
        raise FormulaError(_TOO_DEEP, stripped) from None
    names: set[str] = set()
    _collect_names(root, names)
    return stripped, root, frozenset(names)


def _check_characters(text: str) -> None:
    """Refuse a formula with a non-printable character other than ordinary white space (NUL,
    a terminal escape, a line separator: never echoed raw) or one not in NFKC normal form:
    Python reads identifiers in NFKC form (``ℓane`` as ``lane``), so the formula would name
    a variable other than the one written. Dim names follow the same rule
    (:func:`llverify.bits.name_problem`), so every name a formula can write is a dim name,
    spelt alike.

    Examples:
        >>> _check_characters("ℓane >> 1")
        Traceback (most recent call last):
        ...
        llverify.proof.formula.FormulaError: formula rejected: 'ℓ' (U+2113) is not in Unicode NFKC normal form, which Python would read as 'l' (at column 1)
          ℓane >> 1
          ^
    """  # noqa: E501
    if text.isascii() and text.isprintable():
        return
    for offset, char in enumerate(text):
        if not char.isprintable() and char not in _WHITE_SPACE:
            raise FormulaError(
                f"formula rejected: the non-printable character U+{ord(char):04X} at "
                f"character {offset + 1}",
                escaped(" ".join(text.split())),
            )
    if not unicodedata.is_normalized("NFKC", text):
        line = " ".join(text.split())
        column = next(
            (i for i, c in enumerate(line) if unicodedata.normalize("NFKC", c) != c), None
        )
        where = "the text " if column is None else f"'{line[column]}' (U+{ord(line[column]):04X}) "
        normal = unicodedata.normalize("NFKC", line if column is None else line[column])
        raise FormulaError(
            f"formula rejected: {where}is not in Unicode NFKC normal form, which Python would "
            f"read as '{escaped(normal)}'",
            line,
            column,
        )


#: the white space a formula may hold (spec files' multi-line formulas): read as one space
_WHITE_SPACE = " \t\n\r\f\v"


class FormulaError(LLVerifyError, ValueError):
    """A formula is malformed, uses a forbidden construct, or is ill-defined on its domain.

    Attributes:
        text: the formula text.
        column: 0-based column of the offending part, or None.
    """

    def __init__(self, message: str, text: str = "", column: int | None = None) -> None:
        self.text = text
        self.column = column
        if text and column is not None:
            message = f"{message} (at column {column + 1})\n  {text}\n  {' ' * column}^"
        elif text:
            message = f"{message}\n  in formula: {text}"
        super().__init__(message)


def check_param(name: Any, value: Any) -> None:
    """Refuse a formula parameter other than a str name bound to an int (bools refused).

    Examples:
        >>> check_param("k", 4)
        >>> check_param("k", True)
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutTypeError: Argument 'params' must map names to ints, not 'k': True.
    """
    if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, int):
        raise LayoutTypeError(
            f"Argument 'params' must map names to ints, not {shown(name)}: {shown(value)}."
        )


_BINARY = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
}
_COMPARE = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}
_FUNCTIONS = ("min", "max")


# ---------------------------------------------------------------------- the syntax tree


@dataclass(frozen=True)
class Node:
    """A formula node; ``column`` points into the source text for error messages."""

    column: int = field(compare=False)


@dataclass(frozen=True)
class Const(Node):
    value: int


@dataclass(frozen=True)
class Var(Node):
    name: str


@dataclass(frozen=True)
class Unary(Node):
    op: str  # "~" or "-"
    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Compare(Node):
    ops: tuple[str, ...]
    operands: tuple[Node, ...]


@dataclass(frozen=True)
class Logical(Node):
    op: str  # "and", "or"
    values: tuple[Node, ...]


@dataclass(frozen=True)
class Not(Node):
    operand: Node


@dataclass(frozen=True)
class IfElse(Node):
    condition: Node
    then: Node
    otherwise: Node


@dataclass(frozen=True)
class Call(Node):
    function: str  # "min" or "max"
    args: tuple[Node, ...]


_BOOL_NODES = (Compare, Logical, Not)


def _is_bool(node: Node) -> bool:
    return isinstance(node, _BOOL_NODES)


# ---------------------------------------------------------------------- parsing


def _depth(tree: ast.AST) -> int:
    """Nesting depth of an ast, computed without recursion."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


class _Converter:
    def __init__(self, text: str) -> None:
        self.text = text
        self.encoded = text.encode()

    def char_column(self, byte_offset: int | None) -> int | None:
        """ast offsets count UTF-8 bytes; error carets need characters."""
        if byte_offset is None:
            return None
        return len(self.encoded[:byte_offset].decode(errors="ignore"))

    def fail(self, message: str, node: ast.AST | None) -> FormulaError:
        column = self.operator_column(node) if isinstance(node, ast.BinOp) else None
        if column is None:
            column = self.char_column(getattr(node, "col_offset", None))
        return FormulaError(f"formula rejected: {message}", self.text, column)

    def operator_column(self, node: ast.BinOp) -> int | None:
        """Column of a binary operator: the first non-blank, non-')' after the left operand."""
        start = self.char_column(getattr(node.left, "end_col_offset", None))
        end = self.char_column(getattr(node.right, "col_offset", None))
        if start is None:
            return None
        for column in range(start, min(len(self.text), end if end is not None else len(self.text))):
            if self.text[column] not in " )":
                return column
        return None

    def integer(self, node: ast.AST) -> Node:
        result = self.convert(node)
        if _is_bool(result):
            raise self.fail("a condition is used where a number is needed", node)
        return result

    def condition(self, node: ast.AST) -> Node:
        result = self.convert(node)
        if not _is_bool(result):
            raise self.fail(
                "a number is used where a condition is needed (compare it, e.g. 'x != 0')",
                node,
            )
        return result

    def convert(self, node: ast.AST) -> Node:
        handler = self._HANDLERS.get(type(node))
        if handler is None:
            refused = _REFUSED.get(type(node), f"{type(node).__name__} is not allowed in a formula")
            raise self.fail(refused, node)
        return handler(self, node, self.char_column(getattr(node, "col_offset", 0)) or 0)

    def _constant(self, node: ast.Constant, column: int) -> Node:
        if isinstance(node.value, bool) or not isinstance(node.value, int):
            raise self.fail(f"only integer literals are allowed, not {shown(node.value)}", node)
        if node.value >= 1 << MAX_LITERAL_BITS:
            raise self.fail(f"literals must be below 2**{MAX_LITERAL_BITS}", node)
        return Const(column, node.value)

    def _name(self, node: ast.Name, column: int) -> Node:
        if node.id in _FUNCTIONS:
            raise self.fail(f"'{node.id}' must be called, e.g. {node.id}(a, b)", node)
        if node.id.startswith("_"):
            raise self.fail(f"names may not start with '_' ('{node.id}')", node)
        return Var(column, node.id)

    def _binary(self, node: ast.BinOp, column: int) -> Node:
        op = _BINARY.get(type(node.op))
        if op is None:
            symbol = "**" if isinstance(node.op, ast.Pow) else type(node.op).__name__
            raise self.fail(f"operator {symbol} is not allowed", node)
        where = self.operator_column(node)
        return Binary(
            column if where is None else where,
            op,
            self.integer(node.left),
            self.integer(node.right),
        )

    def _unary(self, node: ast.UnaryOp, column: int) -> Node:
        if isinstance(node.op, ast.Invert):
            return Unary(column, "~", self.integer(node.operand))
        if isinstance(node.op, ast.USub):
            return Unary(column, "-", self.integer(node.operand))
        if isinstance(node.op, ast.UAdd):
            return self.integer(node.operand)
        if isinstance(node.op, ast.Not):
            return Not(column, self.condition(node.operand))
        raise self.fail(f"{type(node).__name__} is not allowed in a formula", node)

    def _compare(self, node: ast.Compare, column: int) -> Node:
        symbols = []
        for comparison in node.ops:
            found = _COMPARE.get(type(comparison))
            if found is None:
                raise self.fail(f"comparison {type(comparison).__name__} is not allowed", node)
            symbols.append(found)
        operands = tuple(self.integer(o) for o in [node.left, *node.comparators])
        return Compare(column, tuple(symbols), operands)

    def _logical(self, node: ast.BoolOp, column: int) -> Node:
        op = "and" if isinstance(node.op, ast.And) else "or"
        return Logical(column, op, tuple(self.condition(v) for v in node.values))

    def _if_else(self, node: ast.IfExp, column: int) -> Node:
        return IfElse(
            column,
            self.condition(node.test),
            self.integer(node.body),
            self.integer(node.orelse),
        )

    def _call(self, node: ast.Call, column: int) -> Node:
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            raise self.fail("only min(...) and max(...) may be called", node)
        if node.keywords or len(node.args) < 2:
            raise self.fail(f"{node.func.id}() takes two or more positional arguments", node)
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail("starred arguments are not allowed", node)
        return Call(column, node.func.id, tuple(self.integer(a) for a in node.args))

    #: The converter of each allowed kind of ``ast`` node.
    _HANDLERS: ClassVar[dict[type[ast.AST], Callable[[Any, Any, int], Node]]] = {
        ast.Constant: _constant,
        ast.Name: _name,
        ast.BinOp: _binary,
        ast.UnaryOp: _unary,
        ast.Compare: _compare,
        ast.BoolOp: _logical,
        ast.IfExp: _if_else,
        ast.Call: _call,
    }


#: Why some other kinds of ``ast`` node are refused (the rest: "... is not allowed").
_REFUSED: dict[type[ast.AST], str] = {
    ast.Attribute: "attribute access is not allowed",
    ast.Subscript: "subscripts are not allowed",
}


# ---------------------------------------------------------------------- intervals


Interval = tuple[int, int]


def _signed_bits(interval: Interval) -> int:
    lo, hi = interval
    magnitude = max(hi.bit_length(), (-lo - 1).bit_length() if lo < 0 else 0)
    return magnitude + 1


def _bitwise_interval(op: str, a: Interval, b: Interval) -> Interval:
    if a[0] >= 0 and b[0] >= 0:
        if op == "&":
            return (0, min(a[1], b[1]))
        return (0, (1 << max(a[1], b[1]).bit_length()) - 1)
    bits = max(_signed_bits(a), _signed_bits(b))
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


# ---------------------------------------------------------------------- the formula


class Formula:
    """A parsed formula: immutable, hashable, evaluable by any :class:`~llverify.ops.Ops`.

    Examples:
        >>> f = Formula("(offset & 63) ^ (((offset >> 6) & 7) << 3)")
        >>> sorted(f.variables)
        ['offset']
        >>> f.evaluate(IntOps(), {"offset": 200})
        16
        >>> f.width({"offset": (0, (1 << 14) - 1)})
        15
    """

    __slots__ = ("text", "root", "variables", "is_condition")

    text: str
    root: Node
    variables: frozenset[str]
    is_condition: bool

    def __init__(self, text: str, condition: bool = False) -> None:
        if not isinstance(text, str):
            raise FormulaError(f"a formula must be a str, not {type(text).__name__}.")
        as_bool(condition, "condition")
        stripped, root, names = _parse(text, condition)
        object.__setattr__(self, "text", stripped)
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "variables", names)
        object.__setattr__(self, "is_condition", condition)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Formula is immutable; cannot set '{name}'.")

    def __repr__(self) -> str:
        if self.is_condition:
            return f"Formula({self.text!r}, condition=True)"
        return f"Formula({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Formula) and self.root == other.root

    def __hash__(self) -> int:
        return hash(self.root)

    # ------------------------------------------------------------------ analysis

    def bounds(self, ranges: Mapping[str, Interval]) -> dict[int, Interval]:
        """The range of every subexpression (keyed by ``id(node)``) given variable ranges.

        Raises FormulaError when a variable has no range, a divisor may be zero, a shift
        amount may be negative, or a value may pass 2**MAX_BITS.
        """
        missing = sorted(self.variables - set(ranges))
        if missing:
            raise FormulaError(f"no range given for variables {missing}", self.text)
        result: dict[int, Interval] = {}
        _Intervals(ranges, result, self.text).of(self.root)
        return result

    def width(self, ranges: Mapping[str, Interval]) -> int:
        """Bits of a two's complement word that holds every intermediate value exactly."""
        intervals = self.bounds(ranges).values()
        variable_bits = [_signed_bits(ranges[name]) for name in self.variables]
        return max([2, *variable_bits, *(_signed_bits(i) for i in intervals)])

    # ------------------------------------------------------------------ evaluation

    def evaluate(
        self,
        ops: Ops[Any, Any],
        env: Mapping[str, Any],
        bounds: Mapping[int, Interval] | None = None,
    ) -> Any:
        """Evaluate with ``ops``; ``env`` maps every variable to a backend value.

        ``bounds`` (from :meth:`bounds`) lets solver backends use unsigned operations
        where operands are known to be non-negative.
        """
        missing = sorted(self.variables - set(env))
        if missing:
            raise FormulaError(f"no value given for variables {missing}", self.text)
        return _Evaluator(ops, env, bounds or {}, self.text).run(self.root)


def _collect_names(node: Node, names: set[str]) -> None:
    if isinstance(node, Var):
        names.add(node.name)
    for child in _children(node):
        _collect_names(child, names)


def _children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Unary | Not):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, Compare):
        return node.operands
    if isinstance(node, Logical):
        return node.values
    if isinstance(node, IfElse):
        return (node.condition, node.then, node.otherwise)
    if isinstance(node, Call):
        return node.args
    return ()


def _product(a: Interval, b: Interval) -> Interval:
    corners = [x * y for x in a for y in b]
    return (min(corners), max(corners))


#: The range of ``a op b`` for the operators whose range needs no check.
_ARITHMETIC: dict[str, Callable[[Interval, Interval], Interval]] = {
    "+": lambda a, b: (a[0] + b[0], a[1] + b[1]),
    "-": lambda a, b: (a[0] - b[1], a[1] - b[0]),
    "*": _product,
    "&": functools.partial(_bitwise_interval, "&"),
    "|": functools.partial(_bitwise_interval, "|"),
    "^": functools.partial(_bitwise_interval, "^"),
}


class _Intervals:
    """The range of every subexpression of a formula (into ``out``, keyed by ``id(node)``)
    from the ranges of its variables, refusing a divisor that may be zero, a shift amount
    that may be negative and a value that may pass 2**MAX_BITS."""

    def __init__(self, ranges: Mapping[str, Interval], out: dict[int, Interval], text: str) -> None:
        self.ranges = ranges
        self.out = out
        self.text = text

    def fail(self, node: Node, message: str) -> FormulaError:
        return FormulaError(f"formula rejected: {message}", self.text, node.column)

    def of(self, node: Node) -> Interval:
        handler = self._HANDLERS.get(type(node))
        if handler is None:  # pragma: no cover - the parser builds no other node
            raise self.fail(node, f"unknown node {type(node).__name__}")
        result = handler(self, node)
        if max(abs(result[0]), abs(result[1])).bit_length() > MAX_BITS:
            raise self.fail(node, f"a value may pass 2**{MAX_BITS}")
        self.out[id(node)] = result
        return result

    def _const(self, node: Const) -> Interval:
        return (node.value, node.value)

    def _var(self, node: Var) -> Interval:
        lo, hi = self.ranges[node.name]
        return (int(lo), int(hi))

    def _unary(self, node: Unary) -> Interval:
        lo, hi = self.of(node.operand)
        return (-hi - 1, -lo - 1) if node.op == "~" else (-hi, -lo)

    def _binary(self, node: Binary) -> Interval:
        a = self.of(node.left)
        b = self.of(node.right)
        if node.op in ("//", "%"):
            return self._division(node, a, b)
        if node.op in ("<<", ">>"):
            return self._shift(node, a, b)
        return _ARITHMETIC[node.op](a, b)

    def _division(self, node: Binary, a: Interval, b: Interval) -> Interval:
        op = node.op
        if b[0] <= 0 <= b[1]:
            raise self.fail(node, f"the divisor of '{op}' may be zero (its range is {list(b)})")
        if op == "//":
            corners = [x // y for x in a for y in b]
            return (min(corners), max(corners))
        if b[0] > 0:
            return (0, min(b[1] - 1, a[1])) if a[0] >= 0 else (0, b[1] - 1)
        return (b[0] + 1, 0)

    def _shift(self, node: Binary, a: Interval, b: Interval) -> Interval:
        op = node.op
        if b[0] < 0:
            raise self.fail(node, f"the shift amount of '{op}' may be negative (range {list(b)})")
        if op == "<<" and max(abs(a[0]), abs(a[1])).bit_length() + b[1] > MAX_BITS:
            raise self.fail(node, f"'<<' may produce values beyond 2**{MAX_BITS}")
        shift: Callable[[int, int], int] = (
            (lambda x, y: x << y) if op == "<<" else (lambda x, y: x >> y)
        )
        corners = [shift(x, y) for x in a for y in (b[0], min(b[1], MAX_BITS + 1))]
        return (min(corners), max(corners))

    def _condition(self, node: Compare | Logical | Not) -> Interval:
        for child in _children(node):
            self.of(child)
        return (0, 1)

    def _if_else(self, node: IfElse) -> Interval:
        self.of(node.condition)
        a = self.of(node.then)
        b = self.of(node.otherwise)
        return (min(a[0], b[0]), max(a[1], b[1]))

    def _call(self, node: Call) -> Interval:
        args = [self.of(a) for a in node.args]
        if node.function == "min":
            return (min(a[0] for a in args), min(a[1] for a in args))
        return (max(a[0] for a in args), max(a[1] for a in args))

    _HANDLERS: ClassVar[dict[type[Node], Callable[[Any, Any], Interval]]] = {
        Const: _const,
        Var: _var,
        Unary: _unary,
        Binary: _binary,
        Compare: _condition,
        Logical: _condition,
        Not: _condition,
        IfElse: _if_else,
        Call: _call,
    }


class _Evaluator:
    def __init__(
        self, ops: Ops[Any, Any], env: Mapping[str, Any], bounds: Mapping[int, Interval], text: str
    ) -> None:
        self.ops = ops
        self.env = env
        self.bounds = bounds
        self.text = text
        self.concrete = isinstance(ops, IntOps)

    def nonneg(self, *nodes: Node) -> bool:
        for node in nodes:
            interval = self.bounds.get(id(node))
            if interval is None or interval[0] < 0:
                return False
        return True

    def run(self, node: Node) -> Any:
        handler = self._HANDLERS.get(type(node))
        if handler is None:  # pragma: no cover - the parser builds no other node
            raise FormulaError(f"unknown node {type(node).__name__}", self.text)
        return handler(self, node)

    def _const(self, node: Const) -> Any:
        return self.ops.const(node.value)

    def _var(self, node: Var) -> Any:
        return self.env[node.name]

    def _unary(self, node: Unary) -> Any:
        value = self.run(node.operand)
        return self.ops.invert(value) if node.op == "~" else self.ops.neg(value)

    def _binary(self, node: Binary) -> Any:
        a = self.run(node.left)
        b = self.run(node.right)
        op = node.op
        if op in ("//", "%"):
            return self._division(node, a, b)
        if op in ("<<", ">>"):
            return self._shift(node, a, b)
        return getattr(self.ops, _OPS_METHODS[op])(a, b)

    def _division(self, node: Binary, a: Any, b: Any) -> Any:
        op = node.op
        if self.concrete and b == 0:
            raise FormulaError(f"formula error: division by zero in '{op}'", self.text, node.column)
        nonneg = self.nonneg(node.left, node.right)
        return self.ops.floordiv(a, b, nonneg) if op == "//" else self.ops.mod(a, b, nonneg)

    def _shift(self, node: Binary, a: Any, b: Any) -> Any:
        op = node.op
        if self.concrete and (b < 0 or (op == "<<" and b > MAX_BITS)):
            raise FormulaError(
                f"formula error: shift amount {b} is out of range [0, {MAX_BITS}]",
                self.text,
                node.column,
            )
        if op == "<<":
            return self.ops.shl(a, b)
        return self.ops.shr(a, b, self.nonneg(node.left))

    def _compare(self, node: Compare) -> Any:
        values = [self.run(o) for o in node.operands]
        parts = [
            _COMPARISONS[op](self.ops, left, right, self.nonneg(ln, rn))
            for op, (left, right), (ln, rn) in zip(
                node.ops, zip(values, values[1:]), zip(node.operands, node.operands[1:])
            )
        ]
        return parts[0] if len(parts) == 1 else self.ops.logical_and(parts)

    def _logical(self, node: Logical) -> Any:
        values = [self.run(v) for v in node.values]
        return self.ops.logical_and(values) if node.op == "and" else self.ops.logical_or(values)

    def _not(self, node: Not) -> Any:
        return self.ops.logical_not(self.run(node.operand))

    def _if_else(self, node: IfElse) -> Any:
        return self.ops.ite(self.run(node.condition), self.run(node.then), self.run(node.otherwise))

    def _call(self, node: Call) -> Any:
        nonneg = self.nonneg(*node.args)
        values = [self.run(a) for a in node.args]
        pick = self.ops.min if node.function == "min" else self.ops.max
        result = values[0]
        for value in values[1:]:
            result = pick(result, value, nonneg)
        return result

    _HANDLERS: ClassVar[dict[type[Node], Callable[[Any, Any], Any]]] = {
        Const: _const,
        Var: _var,
        Unary: _unary,
        Binary: _binary,
        Compare: _compare,
        Logical: _logical,
        Not: _not,
        IfElse: _if_else,
        Call: _call,
    }


#: The ``Ops`` method of each binary operator that needs no check.
_OPS_METHODS = {"+": "add", "-": "sub", "*": "mul", "&": "and_", "|": "or_", "^": "xor"}

#: ``a op b`` of a comparison, with ``Ops``; ``nonneg``: both are known to be >= 0.
_COMPARISONS: dict[str, Callable[[Any, Any, Any, bool], Any]] = {
    "==": lambda ops, a, b, nonneg: ops.eq(a, b),
    "!=": lambda ops, a, b, nonneg: ops.ne(a, b),
    "<": lambda ops, a, b, nonneg: ops.lt(a, b, nonneg),
    "<=": lambda ops, a, b, nonneg: ops.le(a, b, nonneg),
    ">": lambda ops, a, b, nonneg: ops.lt(b, a, nonneg),
    ">=": lambda ops, a, b, nonneg: ops.le(b, a, nonneg),
}
