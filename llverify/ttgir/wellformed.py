"""Whether a whole TTGIR module is well formed: SSA values defined once before their uses and
used inside the region that defines them, each use of the type its definition gave, and each
alias defined once.

These are the rules of MLIR's core parser and dominance check that every Triton release
shares; :func:`check_wellformed` applies them to the text (one pass over its lines), so that
a module Triton would refuse gets no verdict even where Triton is not installed.  Names are
scoped as MLIR scopes them: a region sees the values of the regions around it, its own values
go out of scope where it closes, and a value may not be defined again while it is in scope.
A region of several blocks (``cf`` branches) may use a value before its definition in the
text (dominance there follows the branches): such a use is only required to be defined
somewhere in its function.

Types are compared where the operation's printed form states them unambiguously: the operand
and result types of ``"generic"(...) : (A, B) -> C`` forms, of ``A -> B`` and ``A to B``
conversions (``ttg.convert_layout``, ``tt.splat``, casts, ...), of same-type arithmetic
(``arith.addf ... : T``), of ``tt.dot``'s ``A * B -> C``, of loads, stores, ``tt.addptr``,
``scf.yield`` and ``tt.return``, and of the values that functions, blocks and ``scf.for``/
``scf.if``/``scf.while`` define.  Other operations' types are not compared (they are read as
written).  Two types are the same when their texts agree with every alias expanded and blanks
removed.

Examples:
    >>> text = '''module {
    ...   tt.func @k(%x: i32) {
    ...     %y = arith.addi %x, %x : i32
    ...     tt.return
    ...   }
    ... }'''
    >>> check_wellformed(text)
    >>> check_wellformed(text.replace("%x, %x", "%x, %z"))
    Traceback (most recent call last):
    ...
    llverify.ttgir.syntax.ModuleError: line 3, column 25: %z is used but never defined.
    >>> check_wellformed(text.replace("%x, %x : i32", "%x, %x : i64"))
    Traceback (most recent call last):
    ...
    llverify.ttgir.syntax.ModuleError: line 3, column 21: %x is used as i64 here, but it is i32 where line 2 defines it.
"""  # noqa: E501

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from llverify.ttgir.syntax import ModuleError, balanced_end, split_top, top_level_find
from llverify.ttgir.types import expand_aliases

__all__ = ["blank_locations", "check_wellformed"]

_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_PLAIN = re.compile(r'"[\w.$-]*"')
_USE = re.compile(r"%([\w$.-]+)(?:#(\d+))?")
_OP_HEAD = re.compile(
    r'^(\s*)(?:((?:%[\w$.-]+(?::\d+)?\s*,\s*)*%[\w$.-]+(?::\d+)?)\s*=\s*)?"?([a-z_]\w*(?:\.[\w.]+)?)"?'
)
_RESULT = re.compile(r"%([\w$.-]+)(?::(\d+))?")
_LABEL = re.compile(r"^\s*\^[\w$.-]+")
_BRACKETS = re.compile(r"[{}()\[\]<>]|->")
_OPEN = {"{": "}", "(": ")", "[": "]", "<": ">"}
_TYPED_ARG = re.compile(r"^\s*%([\w$.-]+)\s*:\s*(.*)$", re.S)
_BOUND = re.compile(r"^\s*%([\w$.-]+)\s*=\s*(%[\w$.-]+(?:#\d+)?)\s*$")
_FOR = re.compile(r"\bscf\.for\s+%([\w$.-]+)\s*=")
_LOC_SPAN = re.compile(r"\bloc\(")

#: operations whose operands and result all have the one type they print (``: T``)
_SAME = frozenset(
    [
        *(
            f"arith.{n}"
            for n in "addf subf mulf divf remf negf addi subi muli divsi divui remsi remui "
            "andi ori xori shli shrsi shrui maxsi minsi maxui minui maximumf minimumf maxnumf "
            "minnumf ceildivsi floordivsi".split()
        ),
        *(
            f"math.{n}"
            for n in "exp exp2 expm1 log log2 log10 log1p sqrt rsqrt absf absi sin cos tan tanh "
            "floor ceil round roundeven trunc erf fma copysign atan atan2 ctpop ctlz cttz".split()
        ),
        "tt.precise_sqrt",
        "tt.precise_divf",
        "tt.mulhiui",
        "tt.clampf",
    ]
)
#: operations ``OP %x ... : A -> B`` (or ``A to B``): operand 0 of type A, result of type B
_UNARY = frozenset(
    [
        "ttg.convert_layout",
        "tt.splat",
        "tt.broadcast",
        "tt.expand_dims",
        "tt.trans",
        "tt.reshape",
        "tt.fp_to_fp",
        "tt.bitcast",
        "tt.int_to_ptr",
        "tt.ptr_to_int",
        "tt.histogram",
        "ttg.local_load",
        "ttg.memdesc_index",
        "ttg.memdesc_trans",
        "ttg.memdesc_reshape",
        "ttg.memdesc_subslice",
        "ttg.memdesc_reinterpret",
        *(
            f"arith.{n}"
            for n in "extf truncf extsi extui trunci sitofp uitofp fptosi fptoui bitcast "
            "index_cast index_castui".split()
        ),
    ]
)
#: operations that list one type per operand (``: A, B``); results are not typed by it
_POSITIONAL = frozenset(["scf.yield", "tt.return", "tt.reduce.return", "tt.scan.return"])
#: operations that define results only: ``: T`` is the result's type
_RESULT_ONLY = frozenset(["arith.constant", "tt.make_range", "tt.get_program_id"])
#: operations whose operand types are the ones their results get (``: A, B``)
_PASS_THROUGH = frozenset(["ttng.warp_group_dot_wait"])


@dataclass
class _Value:
    """A defined SSA name: where, how many results, and their types (keys; None: unknown)."""

    line: int
    column: int
    count: int
    types: list[tuple[str, str] | None]  # (key, text as written) per result


@dataclass
class _Region:
    """An open region: the operation it belongs to and the names it defined."""

    owner: _Owner
    names: list[str] = field(default_factory=list)
    blocks: int = 0


@dataclass
class _Owner:
    """An operation with regions, until its last region closes: its results, defined then."""

    name: str
    line: int
    results: list[tuple[str, int, int, int]]  # (name, count, line, column)
    result_types: list[tuple[str, str] | None]
    operands: list[tuple[str, int | None, int, int]]  # (name, result, line, column) of generic
    isolated: bool = False
    done: bool = False  # its results are defined


@dataclass
class _Function:
    """What a function (an isolated region) remembers for the uses it may resolve later."""

    multi_block: bool = False
    pending: list[tuple[str, int, int]] = field(default_factory=list)  # (name, line, column)
    defined: dict[str, int] = field(default_factory=dict)  # every name defined in it: line


def check_wellformed(text: str, aliases: Mapping[str, str] | None = None) -> None:
    """Raise :class:`ModuleError` (line and column) at the first place where the whole module
    ``text`` breaks one of the rules of the module docstring: an SSA value used but never
    defined, used before its definition or outside the region that defines it, defined again
    while in scope, or used as a type other than its definition's; a result number beyond
    the results of its definition; an alias defined twice.  ``aliases``: the module's alias
    definitions (to compare types with their aliases expanded)."""
    _Checker(text, aliases or {}).run()


def _blank_strings(line: str) -> str:
    """``line`` with the inside of every string that is not a plain name (a generic
    operation's ``"tt.reduce"``) replaced by blanks (columns kept)."""
    if '"' not in line:
        return line
    return _STRING.sub(
        lambda m: (
            m.group() if _PLAIN.fullmatch(m.group()) else '"' + " " * (len(m.group()) - 2) + '"'
        ),
        line,
    )


def _blank_locations(line: str) -> str:
    """``line`` with every ``loc(...)`` replaced by blanks (columns kept)."""
    if "loc(" not in line:
        return line
    out = line
    for match in _LOC_SPAN.finditer(line):
        try:
            end = balanced_end(line, match.end() - 1)
        except ModuleError:
            return out
        out = out[: match.start()] + " " * (end - match.start()) + out[end:]
    return out


def _named_pieces(
    line: str, start: int, end: int, pattern: re.Pattern[str]
) -> Iterator[tuple[re.Match[str], int]]:
    """The matches of ``pattern`` (group 1: a value's name) among the top-level pieces of
    the parenthesised list ``line[start:end]``, each with the 1-based column of that
    ``%name``.

    Examples:
        >>> line = "scf.while (%a = %x, %b = %y#1)"
        >>> [(m.group(1), column) for m, column in _named_pieces(line, 10, len(line), _BOUND)]
        [('a', 12), ('b', 21)]
    """
    offset = start + 1
    for piece in split_top(line[start + 1 : end - 1]):
        found = pattern.match(piece)
        if found is None:
            continue
        column = line.find("%" + found.group(1), offset) + 1
        offset = max(offset, column)
        yield found, column


def _unmatched(line: str) -> tuple[int, int]:
    """How many region braces ``line`` closes before anything it opens, and how many it
    leaves open at its end (brackets balanced on the line are dictionaries and types)."""
    stack: list[str] = []
    closes = 0
    for match in _BRACKETS.finditer(line):
        char = match.group()
        if char == "->":
            continue
        if char in _OPEN:
            stack.append(char)
        elif stack and _OPEN[stack[-1]] == char:
            stack.pop()
        elif not stack and char == "}":
            closes += 1
    return closes, stack.count("{")


class _Checker:
    """One pass over the module's lines, with the scopes of MLIR's parser."""

    def __init__(self, text: str, aliases: Mapping[str, str]) -> None:
        self.text = text
        self.aliases = aliases
        self.visible: dict[str, _Value] = {}
        self.gone: dict[str, tuple[int, int]] = {}  # out of scope: (defined at, closed at)
        self.regions: list[_Region] = []
        self.function = _Function()
        self.errors: list[ModuleError] = []
        self.last_op: _Owner | None = None
        self.keys: dict[str, str] = {}
        self.signatures: dict[
            str, tuple[list[tuple[str, str] | None], list[tuple[str, str] | None]]
        ] = {}

    # ----------------------------------------------------------------------- the pass

    def run(self) -> None:
        self._aliases()
        for number, raw in enumerate(self.text.split("\n"), start=1):
            line = _blank_locations(_blank_strings(raw))
            stripped = line.strip()
            if not stripped or stripped.startswith("//") or stripped[0] in "#!":
                continue
            self._line(line, number)
            if self.errors:
                break
        if self.errors:
            raise min(self.errors, key=lambda e: (e.line, e.column or 0))

    def _aliases(self) -> None:
        """Each top-level alias (``#name = ...``/``!name = ...``) defined once."""
        first: dict[str, int] = {}
        depth = 0
        for number, raw in enumerate(self.text.split("\n"), start=1):
            if depth == 0 and raw[:1] in "#!":
                name = raw.split("=", 1)[0].strip()
                if "=" in raw and name in first:
                    raise ModuleError(
                        f"the alias {name} is defined twice (first at line {first[name]}).",
                        number,
                        1,
                    )
                first.setdefault(name, number)
            elif raw.lstrip().startswith("module"):
                return  # aliases precede the module; location aliases follow it (MLIR)
        return

    def _line(self, line: str, number: int) -> None:
        closes, opens = _unmatched(line)
        owner: _Owner | None = None
        for _ in range(closes):
            owner = self._close(line, number, last=opens == 0)
        if closes:
            if opens:
                assert owner is not None
                self._open(owner, line, number)
            return
        if _LABEL.match(line):
            self._label(line, number)
            return
        head = _OP_HEAD.match(line)
        if head is None or ("." not in head.group(3) and head.group(3) != "module"):
            if opens and self.last_op is not None:  # ``default {``, ``partition0(...) {``
                self._open(self.last_op, line, number)
            return
        self._operation(line, number, head, opens)

    # ----------------------------------------------------------------------- definitions

    def _define(
        self,
        name: str,
        number: int,
        column: int,
        count: int = 1,
        types: Sequence[tuple[str, str] | None] = (),
    ) -> None:
        previous = self.visible.get(name)
        if previous is not None:
            self._error(
                f"%{name} is defined again (first at line {previous.line}, column "
                f"{previous.column}, and still in scope).",
                number,
                column,
            )
            return
        padded = list(types)[:count] + [None] * (count - len(types))
        self.visible[name] = _Value(number, column, count, padded)
        self.gone.pop(name, None)
        self.function.defined[name] = number
        if self.regions:
            self.regions[-1].names.append(name)

    def _open(self, owner: _Owner, line: str, number: int) -> None:
        """A region of ``owner`` opens at the end of ``line``; typed arguments on the line
        (``partition0(%a: T)``) are its values."""
        if owner.isolated:
            self.function = _Function()
        self.regions.append(_Region(owner))
        if owner.name != "tt.func" and line.rstrip().endswith("{"):
            start = line.find("(", line.find("}") + 1 if line.lstrip().startswith("}") else 0)
            if start >= 0 and _OP_HEAD.match(line) is None:
                self._typed_arguments(line, start, number)

    def _close(self, line: str, number: int, last: bool) -> _Owner | None:
        """The innermost region closes; when ``last`` (nothing opens after it on the line)
        its operation ends and defines its results."""
        if not self.regions:
            return None
        region = self.regions.pop()
        for name in region.names:
            value = self.visible.pop(name, None)
            if value is not None:
                self.gone[name] = (value.line, number)
        owner = region.owner
        if owner.isolated:
            self._resolve_pending()
        if last:
            self._finish(owner, line, number)
        return owner

    def _finish(self, owner: _Owner, line: str, number: int) -> None:
        """``owner``'s last region closed on ``line``: a generic form's ``}) : (A) -> B``
        types its operands and results; then its results are defined."""
        result_types = owner.result_types
        if owner.operands:
            colon = top_level_find(line, ":", line.find(")") + 1)
            if colon >= 0:
                operands, results = self._signature(line[colon + 1 :])
                if len(operands) == len(owner.operands):
                    for (name, result, at, column), typ in zip(owner.operands, operands):
                        self._check_type(name, result, typ, at, column)
                if results:
                    result_types = results
        if owner.done:
            return
        owner.done = True
        index = 0
        for name, count, at, column in owner.results:
            self._define(name, at, column, count, result_types[index : index + count])
            index += count

    def _label(self, line: str, number: int) -> None:
        """A block label ``^bb0(%a: T, ...):``: a block of the innermost region."""
        if self.regions:
            region = self.regions[-1]
            region.blocks += 1
            if region.blocks > 1 or region.names:
                self.function.multi_block = True
        start = line.find("(")
        if start >= 0:
            self._typed_arguments(line, start, number)

    def _typed_arguments(self, line: str, start: int, number: int) -> None:
        """Define the ``%name: type`` arguments of the parenthesised list at ``start``."""
        try:
            end = balanced_end(line, start, number)
        except ModuleError:
            return
        for found, column in _named_pieces(line, start, end, _TYPED_ARG):
            typ = found.group(2)
            brace = top_level_find(typ, "{")
            typ = (typ[:brace] if brace >= 0 else typ).strip()
            self._define(found.group(1), number, column, 1, [self._key(typ)])

    # ----------------------------------------------------------------------- operations

    def _operation(self, line: str, number: int, head: re.Match[str], opens: int) -> None:
        name = head.group(3)
        results = [
            (m.group(1), int(m.group(2) or 1), number, head.start(2) + m.start() + 1)
            for m in _RESULT.finditer(head.group(2) or "")
        ]
        body_start = head.end()
        owner = _Owner(name, number, results, [], [], isolated=name in ("tt.func", "llvm.func"))
        self.last_op = owner
        if name in ("tt.func", "llvm.func"):
            if opens:
                self._open(owner, line, number)
                start = line.find("(", body_start)
                if start >= 0:
                    self._typed_arguments(line, start, number)
            return
        if name == "scf.for":
            self._for(line, number, owner, body_start)
            return
        if name == "scf.while":
            self._while(line, number, owner, body_start)
            return
        uses = self._uses(line, body_start, number)
        if line[head.start(3) - 1 : head.start(3)] == '"':  # the generic form
            owner.operands = uses
            if not opens:
                self._finish(owner, line, number)
            else:
                self._open(owner, line, number)
            return
        owner.result_types = self._typed(name, line, number, uses, body_start)
        if opens:
            self._open(owner, line, number)
        else:
            self._finish(owner, line, number)

    def _uses(
        self, line: str, start: int, number: int, stop: int | None = None
    ) -> list[tuple[str, int | None, int, int]]:
        """Check and list the SSA values used in ``line[start:stop]``."""
        uses = []
        for match in _USE.finditer(line, start, len(line) if stop is None else stop):
            result = None if match.group(2) is None else int(match.group(2))
            column = match.start() + 1
            self._use(match.group(1), result, number, column)
            uses.append((match.group(1), result, number, column))
        return uses

    def _use(self, name: str, result: int | None, number: int, column: int) -> None:
        value = self.visible.get(name)
        if value is None:
            self.function.pending.append((name, number, column))
            if not self.function.multi_block:
                self._resolve_pending()
            return
        if result is not None and result >= value.count:
            self._error(
                f"%{name}#{result}: the operation of line {value.line} defines "
                f"{value.count} result(s).",
                number,
                column,
            )

    def _resolve_pending(self) -> None:
        """The uses of values not defined before them: an error unless the function has
        several blocks and defines the value somewhere."""
        pending, self.function.pending = self.function.pending, []
        for name, number, column in pending:
            if self.function.multi_block and name in self.function.defined:
                continue
            if name in self.gone:
                at, closed = self.gone[name]
                detail = (
                    f"%{name} is used outside the region that defines it (line {at}; the "
                    f"region closes at line {closed})."
                )
            else:
                later = self._defined_later(name, number)
                detail = (
                    f"%{name} is used before its definition (line {later})."
                    if later
                    else f"%{name} is used but never defined."
                )
            self._error(detail, number, column)

    def _defined_later(self, name: str, number: int) -> int:
        """The line after ``number`` where ``%name`` is defined, or 0."""
        pattern = re.compile(rf"(?:^|[\s,(])%{re.escape(name)}(?::\d+)?\s*(?:=|,[^\n]*=|:\s)")
        for offset, raw in enumerate(self.text.split("\n")[number:], start=number + 1):
            if pattern.search(_blank_strings(raw)):
                return offset
        return 0

    def _for(self, line: str, number: int, owner: _Owner, start: int) -> None:
        """``scf.for %iv = %lb to %ub step %s iter_args(%a = %x) -> (T) : I {``."""
        induction = _FOR.search(line, start - len("scf.for"))
        body = line.index("=", induction.end() - 1) + 1 if induction else start
        iter_start = line.find("iter_args(", body)
        bounds_end = iter_start if iter_start >= 0 else len(line)
        bound_uses = self._uses(line, body, number, bounds_end)
        bound: list[tuple[str, int, str]] = []
        arrow_from = body
        if iter_start >= 0:
            bound, arrow_from = self._bound(line, iter_start + len("iter_args"), number)
        types = self._arrow_types(line, arrow_from)
        self._check_inits(bound, types, number)
        colon = top_level_find(line, ":", arrow_from)
        iv_type = line[colon + 1 :].strip().rstrip("{").strip() if colon >= 0 else "index"
        if bound_uses and iv_type:
            lower = bound_uses[0]
            self._check_type(lower[0], lower[1], self._key(iv_type), number, lower[3])
        owner.result_types = list(types)
        self._open(owner, line, number)
        if induction:
            self._define(induction.group(1), number, induction.start(1), 1, [self._key(iv_type)])
        for (name, column, _), typ in zip(bound, [*types, *[None] * len(bound)]):
            self._define(name, number, column, 1, [typ])

    def _bound(self, line: str, paren: int, number: int) -> tuple[list[tuple[str, int, str]], int]:
        """The bound arguments ``(%a = %x, ...)`` of the parenthesis at ``paren`` as
        ``(name, column, init value)``, each initial value's use checked; and the column
        after the closing parenthesis."""
        end = balanced_end(line, paren, number)
        bound: list[tuple[str, int, str]] = []
        for found, column in _named_pieces(line, paren, end, _BOUND):
            bound.append((found.group(1), column, found.group(2)))
            at = line.find(found.group(2), column)
            self._uses(line, at, number, at + len(found.group(2)))
        return bound, end

    def _check_inits(
        self,
        bound: list[tuple[str, int, str]],
        types: list[tuple[str, str] | None],
        number: int,
    ) -> None:
        """Check each bound argument's initial value against its declared type."""
        for (_, column, init), typ in zip(bound, types):
            init_name, _, result = init[1:].partition("#")
            self._check_type(init_name, int(result) if result else None, typ, number, column)

    def _while(self, line: str, number: int, owner: _Owner, start: int) -> None:
        """``scf.while (%a = %x) : (A) -> (B) {``: the before region's arguments."""
        paren = line.find("(", start)
        bound: list[tuple[str, int, str]] = []
        after = start
        if paren >= 0:
            bound, after = self._bound(line, paren, number)
        colon = top_level_find(line, ":", after)
        operand_types: list[tuple[str, str] | None] = []
        if colon >= 0:
            operand_types, owner.result_types = self._signature(line[colon + 1 :])
        self._check_inits(bound, operand_types, number)
        self._open(owner, line, number)
        for (name, column, _), typ in zip(bound, [*operand_types, *[None] * len(bound)]):
            self._define(name, number, column, 1, [typ])

    def _arrow_types(self, line: str, start: int) -> list[tuple[str, str] | None]:
        """The types of ``-> (A, B)`` (or ``-> A``) after ``start``, [] when none."""
        arrow = line.find("->", start)
        if arrow < 0:
            return []
        rest = line[arrow + 2 :].strip()
        if rest.startswith("("):
            try:
                end = balanced_end(rest, 0)
            except ModuleError:
                return []
            return [self._key(t) for t in split_top(rest[1 : end - 1])]
        colon = top_level_find(rest, ":")
        rest = rest[:colon] if colon >= 0 else rest
        return [self._key(rest.rstrip("{").strip())]

    def _typed(
        self,
        name: str,
        line: str,
        number: int,
        uses: list[tuple[str, int | None, int, int]],
        start: int,
    ) -> list[tuple[str, str] | None]:
        """Check the operand types that ``name``'s printed form states; its result types."""
        if name == "scf.if":
            return self._arrow_types(line, start)
        if not (
            name in _SAME
            or name in _UNARY
            or name in _POSITIONAL
            or name in _RESULT_ONLY
            or name in _PASS_THROUGH
            or name in ("arith.cmpi", "arith.cmpf", "arith.select", "tt.load", "tt.store")
            or name in ("tt.addptr", "tt.dot", "ttng.warp_group_dot", "tt.call")
            or name in ("ttg.local_alloc", "tt.join", "tt.cat", "ttg.local_dealloc")
            or name == "ttg.async_copy_global_to_local"
        ):
            return []
        colon = top_level_find(line, ":", start)
        if colon < 0:
            return []
        operands, results = self._signature(line[colon + 1 :])
        stated: dict[int, tuple[str, str] | None] = {}
        out: list[tuple[str, str] | None] = []
        if name in _SAME and len(operands) == 1 and not results:
            stated = dict.fromkeys(range(len(uses)), operands[0])
            out = [operands[0]]
        elif name in _UNARY and len(operands) == 1 and len(results) == 1:
            stated, out = {0: operands[0]}, results
        elif name in ("tt.join", "tt.cat") and len(operands) == 1 and len(results) == 1:
            stated, out = dict.fromkeys(range(len(uses)), operands[0]), results
        elif name in _RESULT_ONLY and len(operands) == 1 and not results:
            out = operands
        elif name in (*_POSITIONAL, *_PASS_THROUGH) and len(operands) == len(uses):
            stated = dict(enumerate(operands))
            out = operands if name in _PASS_THROUGH else []
        elif name in ("arith.cmpi", "arith.cmpf") and len(operands) == 1 and not results:
            stated = dict.fromkeys(range(len(uses)), operands[0])
            out = [self._predicate(operands[0])]
        elif name == "ttg.async_copy_global_to_local" and len(operands) == len(results) == 1:
            stated = {0: operands[0], 1: results[0]}  # the pointers and the buffer
            if " mask " in line and len(uses) > 2:
                stated[2] = self._predicate(operands[0])
        elif name == "ttg.local_dealloc" and len(operands) == 1 and not results:
            stated = {0: operands[0]}
        elif name == "arith.select" and len(uses) == 3 and not results:
            if len(operands) == 1:
                stated, out = {1: operands[0], 2: operands[0]}, operands
            elif len(operands) == 2:
                stated, out = {0: operands[0], 1: operands[1], 2: operands[1]}, operands[1:]
        elif name in ("tt.load", "tt.store") and len(operands) == 1 and not results:
            if operands[0] is None or "!tt.ptr<" not in operands[0][0]:
                return []  # Triton 2.x printed the value's type here, not the pointer's
            stated = {0: operands[0]}
            out = [self._pointee(operands[0])] if name == "tt.load" else []
        elif name == "tt.addptr" and len(operands) == 2 and len(uses) == 2:
            stated, out = {0: operands[0], 1: operands[1]}, operands[:1]
        elif name in ("tt.dot", "ttng.warp_group_dot") and len(operands) == 2 and results:
            stated, out = {0: operands[0], 1: operands[1], 2: results[0]}, results[:1]
        elif name in ("tt.call", "ttg.local_alloc") and len(operands) == len(uses):
            stated, out = dict(enumerate(operands)), results
        for index, typ in stated.items():
            if index < len(uses):
                used, result, at, column = uses[index]
                self._check_type(used, result, typ, at, column)
        return out

    # ----------------------------------------------------------------------- types

    def _key(self, text: str) -> tuple[str, str] | None:
        """(the comparable form, the text) of a type; None for what is no type."""
        text = text.strip()
        if not text:
            return None
        key = self.keys.get(text)
        if key is None:
            try:
                expanded = expand_aliases(text, self.aliases)
            except ModuleError:
                return None  # an undefined alias: reported by the whole-text check
            key = re.sub(r"\s+", "", expanded)
            if key.startswith("<"):
                key = "!ttg.memdesc" + key  # the memdesc printed without its prefix
            self.keys[text] = key
        return key, text

    def _predicate(self, typ: tuple[str, str] | None) -> tuple[str, str] | None:
        """The ``i1`` type of the shape and encoding of ``typ`` (a comparison's result, a
        mask's type), None when it cannot say."""
        if typ is None:
            return None
        text = typ[1]
        if not text.startswith("tensor<"):
            return None if "<" in text else self._key("i1")
        parts = split_top(text[len("tensor<") : -1])
        shape = re.match(r"(?:\d+x)+", parts[0]) if parts else None
        if shape is None:
            return None
        return self._key(f"tensor<{', '.join([shape.group() + 'i1', *parts[1:]])}>")

    def _pointee(self, typ: tuple[str, str] | None) -> tuple[str, str] | None:
        """The type a load of pointer type ``typ`` gives (``tensor<4x!tt.ptr<f16>, #b>`` ->
        ``tensor<4xf16, #b>``, ``!tt.ptr<T>`` -> T), None when it cannot say."""
        if typ is None:
            return None
        text = typ[1]
        found = re.fullmatch(r"tensor<((?:\d+x)+)!tt\.ptr<([^<>]+?)(?:,\s*\d+)?>(,.*)?>", text)
        if found:
            return self._key(f"tensor<{found.group(1)}{found.group(2)}{found.group(3) or ''}>")
        found = re.fullmatch(r"!tt\.ptr<(.+?)(?:,\s*\d+)?>", text)
        return self._key(found.group(1)) if found else None

    def _signature(
        self, text: str
    ) -> tuple[list[tuple[str, str] | None], list[tuple[str, str] | None]]:
        """The operand and result types of a signature ``A, B -> C`` (``(A) -> C``, ``A * B
        -> C``, ``A to B``); a trailing region brace is left out."""
        text = text.strip()
        if text.endswith("{"):
            text = text[:-1].strip()
        known = self.signatures.get(text)
        if known is None:
            known = self.signatures[text] = self._read_signature(text)
        return known

    def _read_signature(
        self, text: str
    ) -> tuple[list[tuple[str, str] | None], list[tuple[str, str] | None]]:
        try:
            sides = split_top(text, "->")
            if len(sides) == 1 and " to " in sides[0]:
                sides = split_top(sides[0], " to ")
            if not sides or len(sides) > 2:
                return [], []

            def types(side: str) -> list[tuple[str, str] | None]:
                if side.startswith("(") and balanced_end(side, 0) == len(side):
                    side = side[1:-1]
                pieces = [t for piece in split_top(side) for t in split_top(piece, " * ")]
                return [self._key(t) for t in pieces]

            return types(sides[0]), types(sides[1]) if len(sides) == 2 else []
        except ModuleError:
            return [], []

    def _check_type(
        self,
        name: str,
        result: int | None,
        typ: tuple[str, str] | None,
        number: int,
        column: int,
    ) -> None:
        value = self.visible.get(name)
        if value is None or typ is None:
            return
        index = result or 0
        known = value.types[index] if index < len(value.types) else None
        if known is None or known[0] == typ[0]:
            return
        shown = f"%{name}" if result is None else f"%{name}#{result}"
        self._error(
            f"{shown} is used as {typ[1]} here, but it is {known[1]} where line {value.line} "
            "defines it.",
            number,
            column,
        )

    def _error(self, detail: str, number: int, column: int) -> None:
        self.errors.append(ModuleError(detail, number, column))


def blank_locations(text: str) -> str:
    """``text`` with every ``loc(...)`` replaced by blanks and every location alias
    definition (``#loc3 = loc(...)``) by an empty line, lines and columns kept: a parser then
    places each operation at its line and column in the text, not at the source location it
    carries.

    >>> blank_locations('#loc = loc("k.py":1:1)\\n%0 = tt.foo %x loc(#loc)\\n')
    '\\n%0 = tt.foo %x          \\n'
    """
    out = []
    for line in text.split("\n"):
        head = line.split("=", 1)
        if line[:1] == "#" and len(head) == 2 and head[1].lstrip().startswith("loc("):
            out.append("")
        else:
            out.append(_blank_locations(line))
    return "\n".join(out)
