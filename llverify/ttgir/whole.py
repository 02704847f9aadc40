"""Whether TTGIR text is a whole module: balanced, closed, every alias it uses defined.

Examples:
    >>> check_whole('#loc = loc("k.py":1:1)\\nmodule {\\n} loc(#loc)\\n')
    >>> check_whole('module {\\n  %0 = arith.constant 0 : i3')
    Traceback (most recent call last):
    ...
    llverify.ttgir.syntax.ModuleError: line 1, column 8: '{' is never closed: the text ends at line 2 (truncated?).
"""  # noqa: E501

from __future__ import annotations

import re

from llverify.ttgir.syntax import ModuleError

__all__ = ["check_whole"]

# the text's tokens: a string, an unterminated one, a comment, the arrows and comparisons that
# are no brackets, a bracket, an alias use, a line break (the lookahead: the characters a token
# starts with, so that the other positions fail at once)
_TOKEN = re.compile(
    r'(?=["/\-<>{}\[\]()#\n])(?:'
    r'(?P<string>"(?:[^"\\\n]|\\.)*")|(?P<open_string>")|(?P<comment>//[^\n]*)|->|>=|'
    r"(?P<bracket>[{}\[\]()<>])|(?<![\w%#.$-])(?P<alias>#[A-Za-z_][\w$-]*)(?![\w.$-])|"
    r"(?P<newline>\n))"
)
_CLOSING = {"}": "{", "]": "[", ")": "(", ">": "<"}
# a whole top-level line defining a location alias: its tokens the alias, '(', a string, ')'
_LOCATION_LINE = re.compile(r'(#[A-Za-z_][\w$-]*) = loc\("[^"\\\n]*"(?::\d+)*\)\n')
_TOP_ALIAS = re.compile(r"^[#!][A-Za-z_][\w$-]*\s*=\s*(?P<value>.*)$")
# an alias value: a dialect attribute or type (``#ttg.shared_memory``, ``#ttg.blocked<...>``)
# or a builtin with its brackets (``loc(...)``, ``affine_map<...>``)
_ALIAS_VALUE = re.compile(r"^(?:[#!][A-Za-z_][\w.$-]*(?:<.*>)?|[A-Za-z_]\w*[<(\[].*[>)\]])$")


def check_whole(text: str) -> None:
    r"""Raise :class:`ModuleError` unless ``text`` is a whole module: strings end on their line,
    brackets (``{[(<``, not the ``->`` arrow) are balanced and matched, the top level holds
    only comments, alias definitions (``#name = value`` / ``!name = value`` with a complete
    value) and ``module`` operations (at least one), each closed, with nothing but its
    ``loc(...)`` after its closing brace, and every alias used (``#loc3``) is defined.  A file
    cut anywhere (at a line break or inside a line) fails one of these.

    Examples:
        >>> check_whole('module {\n} loc(#loc)\n')
        Traceback (most recent call last):
        ...
        llverify.ttgir.syntax.ModuleError: line 2, column 7: attribute alias #loc is used but never defined (misspelt, or a truncated file?).
    """  # noqa: E501
    _Wholeness(text).check()


def _line_from(text: str, start: int) -> str:
    """``text`` from ``start`` to the end of its line, stripped."""
    end = text.find("\n", start)
    return text[start : len(text) if end < 0 else end].strip()


def _check_top_line(text: str, start: int, line: int) -> int:
    """Check the top-level line starting at ``start``: blank, a comment, a complete alias
    definition, file metadata (``{-#``) or a ``module``; ``line`` for a module, else 0."""
    stripped = _line_from(text, start)
    if stripped.startswith("module"):
        return line
    if not stripped or stripped.startswith(("//", "{-#")):
        return 0
    alias = _TOP_ALIAS.match(stripped)
    if alias is None:
        raise ModuleError(
            f"expected an alias definition or a module at the top level, not {stripped[:40]!r}.",
            line,
        )
    if not _ALIAS_VALUE.match(alias.group("value").strip()):
        raise ModuleError(
            f"the alias definition {stripped[:60]!r} has no complete value (truncated?).", line
        )
    return 0


class _Wholeness:
    """One pass over the tokens of a text, with a handler per token kind that matters."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.defined: set[str] = set()
        self.uses: list[tuple[str, int, int]] = []
        self.stack: list[tuple[str, int, int]] = []  # open brackets: (bracket, line, column)
        self.in_region = False  # the outermost open bracket is a module's region
        self.line, self.line_start, self.modules = 1, 0, 0
        self.module_line = 0  # the line of a module not yet closed, or 0

    def check(self) -> None:
        """The pass: inside a bracket (most of a module), what the handlers would do is done
        in line (a bracket opened or closed, a line counted, an alias use noted); anything
        else, at the top level or wrong, goes to its handler."""
        self.module_line = _check_top_line(self.text, 0, 1)
        start = 0
        while start >= 0:
            start = self._pass(start)
        self._finish()

    def _pass(self, start: int) -> int:
        """The pass from ``start`` up to a run of location lines (:meth:`_locations`): where
        to go on after them, or -1 at the end of the text."""
        stack, uses = self.stack, self.uses
        for token in _TOKEN.finditer(self.text, start):
            kind = token.lastgroup
            if kind == "bracket":
                char = token.group()
                if stack and char not in _CLOSING:
                    stack.append((char, self.line, token.start() - self.line_start + 1))
                elif len(stack) > 1 and stack[-1][0] == _CLOSING[char]:
                    stack.pop()
                else:
                    self._bracket(token)
            elif kind == "newline":
                if stack:
                    self.line, self.line_start = self.line + 1, token.start() + 1
                else:
                    self._newline(token)
                    if self._locations():
                        return self.line_start
            elif kind == "alias":
                if stack:
                    uses.append((token.group(), self.line, token.start() - self.line_start + 1))
                else:
                    self._alias(token)
            elif kind == "open_string":
                self._open_string(token)
        return -1

    def _locations(self) -> bool:
        """Skip the top-level location lines (``#loc7 = loc("k.py":12:5)``, as MLIR prints
        them, half the lines of a compiled module) from the line starting now: each defines
        its alias and holds one bracket pair and a string, which the pass would open, read and
        close on the line; whether any was skipped."""
        text, skipped = self.text, False
        while (line := _LOCATION_LINE.match(text, self.line_start)) is not None:
            self.defined.add(line.group(1))
            self.line, self.line_start = self.line + 1, line.end()
            skipped = True
        if skipped:  # (a location line passes the top-line check)
            self.module_line = _check_top_line(text, self.line_start, self.line) or self.module_line
        return skipped

    def _column(self, token: re.Match[str]) -> int:
        return token.start() - self.line_start + 1

    def _newline(self, token: re.Match[str]) -> None:
        self.line, self.line_start = self.line + 1, token.start() + 1
        if not self.stack:
            self.module_line = (
                _check_top_line(self.text, self.line_start, self.line) or self.module_line
            )

    def _open_string(self, token: re.Match[str]) -> None:
        raise ModuleError(
            "unterminated string (no closing '\"' on its line).", self.line, self._column(token)
        )

    def _alias(self, token: re.Match[str]) -> None:
        name = token.group("alias")
        if not self.stack and not self.text[self.line_start : token.start()].strip():
            self.defined.add(name)  # a top-level line starting with #name is its definition
        else:
            self.uses.append((name, self.line, self._column(token)))

    def _bracket(self, token: re.Match[str]) -> None:
        char, column = token.group("bracket"), self._column(token)
        if char not in _CLOSING:
            if not self.stack and char == "{" and self.module_line:
                if not self.text[: token.start()].rstrip().endswith("attributes"):
                    self.in_region = True  # not the module's attribute dictionary
            self.stack.append((char, self.line, column))
            return
        if not self.stack:
            raise ModuleError(f"unbalanced '{char}' (it closes nothing).", self.line, column)
        if self.stack[-1][0] != _CLOSING[char]:
            opening, at_line, at_column = self.stack[-1]
            raise ModuleError(
                f"unbalanced '{opening}' (line {self.line}, column {column} closes it with "
                f"'{char}').",
                at_line,
                at_column,
            )
        self.stack.pop()
        if not self.stack and self.in_region:
            self._close_module(token, column)

    def _close_module(self, token: re.Match[str], column: int) -> None:
        rest = _line_from(self.text, token.end())
        if rest and not rest.startswith("loc("):
            raise ModuleError(
                f"unexpected {rest[:40]!r} after the closing brace of the module of line "
                f"{self.module_line}.",
                self.line,
                column + 1,
            )
        self.modules, self.module_line, self.in_region = self.modules + 1, 0, False

    def _finish(self) -> None:
        last = self.line - 1 if self.text.endswith("\n") else self.line
        if self.stack:
            char, at_line, at_column = self.stack[-1]
            raise ModuleError(
                f"'{char}' is never closed: the text ends at line {last} (truncated?).",
                at_line,
                at_column,
            )
        if self.module_line:
            raise ModuleError("the module has no region '{ ... }' (truncated?).", self.module_line)
        if not self.modules:
            raise ModuleError("the text has no 'module' operation (truncated?).", last)
        for name, at_line, at_column in self.uses:
            if name not in self.defined:
                raise ModuleError(
                    f"attribute alias {name} is used but never defined (misspelt, or a "
                    "truncated file?).",
                    at_line,
                    at_column,
                )
