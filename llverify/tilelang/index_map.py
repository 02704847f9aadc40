"""TileLang index maps as text: a ``lambda`` or a ``def`` read safely (``ast``, never eval).

TileLang writes its layouts as Python functions of the iteration variables: ``T.Layout(shape,
forward_fn)`` and ``T.Fragment(shape, forward_fn=..., forward_thread_fn=...,
forward_index_fn=..., replicate=...)``, and its MMA/MFMA macros use maps such as::

    def shared_16x16_to_local_64x4_layout_A(i, j):
        thread_id = i + 16 * (j // 4)
        local = j % 4
        return thread_id, local

:func:`parse_index_map` reads that text: a ``lambda params: expr`` (or a tuple of
expressions), or a ``def`` whose body holds only a docstring, assignments to names and one
final ``return``.  Assigned names are substituted, TVM's spellings ``floordiv(a, b)``,
``floormod(a, b)`` (also as ``T.``/``tir.``/``tvm.tir.`` attributes) become ``//`` and ``%``,
and ``const(x)``/``convert(x)`` are ``x``; every result is then a
:class:`~llverify.proof.formula.Formula` (integers, ``+ - * // % & | ^ << >> ~``, ``min``,
``max``, conditionals).  Anything else is refused with the construct and its line: there is
no eval, no attribute access, no other call.

Examples:
    >>> m = parse_index_map("lambda i, j: (i + 16 * (j // 4), j % 4)")
    >>> m.params, [str(f) for f in m.outputs]
    (('i', 'j'), ['i + 16 * (j // 4)', 'j % 4'])
"""

from __future__ import annotations

import ast
import copy
import textwrap
from dataclasses import dataclass

from llverify.errors import LayoutTypeError, ParseError, shown
from llverify.proof.formula import Formula, FormulaError

__all__ = ["IndexMap", "parse_index_map"]

#: The longest index-map text read (TileLang's maps are a few lines).
MAX_TEXT = 20_000
#: Calls that are the identity on their one argument (TVM's literal wrappers).
_IDENTITY = ("const", "convert", "int32", "int64")
#: Calls that are a binary operator.
_OPERATORS: dict[str, ast.operator] = {"floordiv": ast.FloorDiv(), "floormod": ast.Mod()}
#: Module prefixes TVM's functions are spelt with.
_PREFIXES = ("T", "tir", "tirx", "tvm", "te")


@dataclass(frozen=True)
class IndexMap:
    """A parsed index map: parameter names and one formula per result.

    Attributes:
        params: the parameters, in order (TileLang's iteration variables, then ``rep``).
        outputs: the results, in order, each a formula of ``params``.
        name: the ``def``'s name, or ``"lambda"``.
    """

    params: tuple[str, ...]
    outputs: tuple[Formula, ...]
    name: str = "lambda"


def _fail(message: str, node: ast.AST | None = None) -> ParseError:
    line = getattr(node, "lineno", None)
    where = f" (line {line})" if line is not None else ""
    return ParseError(f"index map rejected: {message}{where}.")


def _callee(func: ast.expr) -> str | None:
    """The function name of a call: ``f`` or ``T.f``/``tvm.tir.f``; None for other forms."""
    if isinstance(func, ast.Name):
        return func.id
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in _PREFIXES:
        return None
    if any(p not in _PREFIXES for p in parts[1:]):
        return None
    return parts[0]


class _Substitute(ast.NodeTransformer):
    """Replace assigned names by their expressions and TVM calls by operators."""

    def __init__(self, env: dict[str, ast.expr], params: tuple[str, ...]) -> None:
        self.env = env
        self.params = params

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.env:
            return copy.deepcopy(self.env[node.id])
        if node.id not in self.params:
            raise _fail(f"the name '{node.id}' is neither a parameter nor assigned before", node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        name = _callee(node.func)
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise _fail("calls take positional arguments only", node)
        args = [self.visit(a) for a in node.args]
        if name in _IDENTITY and len(args) == 1:
            return args[0]
        if name in _OPERATORS and len(args) == 2:
            return ast.BinOp(left=args[0], op=_OPERATORS[name], right=args[1])
        if name in ("min", "max") and isinstance(node.func, ast.Name):
            return ast.Call(func=node.func, args=args, keywords=[])
        spelt = ast.unparse(node.func)
        raise _fail(
            f"the call {spelt}(...) is not allowed (only floordiv, floormod, const, convert, "
            "min, max)",
            node,
        )


def _params(arguments: ast.arguments, node: ast.AST) -> tuple[str, ...]:
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.defaults:
        raise _fail("parameters must be plain names (no defaults, *args or **kwargs)", node)
    names = tuple(a.arg for a in [*arguments.posonlyargs, *arguments.args])
    if len(set(names)) != len(names):
        raise _fail(f"repeated parameter names {list(names)}", node)
    return names


def _results(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, (ast.Tuple, ast.List)):
        return list(node.elts)
    return [node]


def _body(func: ast.FunctionDef, params: tuple[str, ...]) -> list[ast.expr]:
    """The returned expressions of a ``def``, with its assignments substituted."""
    env: dict[str, ast.expr] = {}
    statements = list(func.body)
    if (
        statements
        and isinstance(statements[0], ast.Expr)
        and isinstance(statements[0].value, ast.Constant)
        and isinstance(statements[0].value.value, str)
    ):
        statements = statements[1:]  # the docstring
    if not statements or not isinstance(statements[-1], ast.Return):
        raise _fail(f"the body of '{func.name}' must end with a return", func)
    for statement in statements[:-1]:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            raise _fail(
                f"only assignments to names may precede the return, not {type(statement).__name__}",
                statement,
            )
        target, value = statement.targets[0], statement.value
        pairs: list[tuple[ast.expr, ast.expr]]
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            if len(target.elts) != len(value.elts):
                raise _fail("a tuple assignment's sides differ in length", statement)
            pairs = list(zip(target.elts, value.elts))
        else:
            pairs = [(target, value)]
        substituted = [(t, _Substitute(env, params).visit(v)) for t, v in pairs]
        for target_part, expression in substituted:
            if not isinstance(target_part, ast.Name) or target_part.id in params:
                raise _fail("only names other than the parameters may be assigned", statement)
            env[target_part.id] = expression
    returned = statements[-1].value
    if returned is None:
        raise _fail(f"'{func.name}' returns nothing", statements[-1])
    return [_Substitute(env, params).visit(r) for r in _results(returned)]


def parse_index_map(text: str) -> IndexMap:
    """Read a TileLang index map (a ``lambda`` or a ``def``) as formulas of its parameters.

    Raises :class:`~llverify.errors.ParseError` (a ValueError) naming what is not allowed.

    Examples:
        >>> m = parse_index_map('''
        ... def thread_id_shared_access_64x4_to_16x16_layout_A(thread_id, local_id):
        ...     i = thread_id % 16
        ...     j = (thread_id // 16) * 4 + local_id
        ...     return i, j
        ... ''')
        >>> m.name, [str(f) for f in m.outputs]
        ('thread_id_shared_access_64x4_to_16x16_layout_A', ['thread_id % 16', 'thread_id // 16 * 4 + local_id'])
        >>> parse_index_map("lambda i: __import__('os')")
        Traceback (most recent call last):
        ...
        llverify.errors.ParseError: index map rejected: the call __import__(...) is not allowed (only floordiv, floormod, const, convert, min, max) (line 1).
    """  # noqa: E501
    if not isinstance(text, str):
        raise LayoutTypeError(f"Argument 'text' must be a str, not {type(text).__name__}.")
    if len(text) > MAX_TEXT:
        raise _fail(f"the text is longer than {MAX_TEXT} characters")
    try:
        tree = ast.parse(textwrap.dedent(text.strip("\n")))
    except SyntaxError as error:
        raise _fail(f"syntax error: {error.msg}") from None
    except (RecursionError, MemoryError, ValueError) as error:
        raise _fail(f"unreadable text ({type(error).__name__})") from None
    if len(tree.body) != 1:
        raise _fail(f"one lambda or def expected, found {len(tree.body)} statements")
    [statement] = tree.body
    try:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Lambda):
            func = statement.value
            params = _params(func.args, func)
            results = [_Substitute({}, params).visit(r) for r in _results(func.body)]
            name = "lambda"
        elif isinstance(statement, ast.FunctionDef):
            if statement.decorator_list or statement.returns:
                raise _fail("decorators and return annotations are not allowed", statement)
            params = _params(statement.args, statement)
            results = _body(statement, params)
            name = statement.name
        else:
            raise _fail(
                f"a lambda or a def expected, not {type(statement).__name__} "
                f"{shown(ast.unparse(statement)[:60])}",
                statement,
            )
        outputs = tuple(Formula(ast.unparse(r)) for r in results)
    except RecursionError:
        raise _fail("nested too deeply") from None
    except FormulaError as error:
        raise _fail(str(error).splitlines()[0]) from None
    return IndexMap(params, outputs, name)
