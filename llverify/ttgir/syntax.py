"""The lexical layer of the TTGIR reader: its error, bracket matching and top-level splitting.

Every bracket kind (``< ( [ {``) nests alike, the arrow ``->`` is no bracket, and brackets
inside double-quoted strings do not count.  Malformed text raises :class:`ModuleError`, which
names the line and column.

Examples:
    >>> text = "tensor<64x!tt.ptr<f16>, #ttg.slice<{dim = 0, parent = #b}>> -> i32"
    >>> end = balanced_end(text, 6)
    >>> text[:end]
    'tensor<64x!tt.ptr<f16>, #ttg.slice<{dim = 0, parent = #b}>>'
    >>> split_top(text[7 : end - 1])
    ['64x!tt.ptr<f16>', '#ttg.slice<{dim = 0, parent = #b}>']
    >>> split_top(text, "->")
    ['tensor<64x!tt.ptr<f16>, #ttg.slice<{dim = 0, parent = #b}>>', 'i32']
"""

from __future__ import annotations

import re

from llverify.errors import ParseError

__all__ = [
    "SSA_NAME",
    "ModuleError",
    "balanced_end",
    "integer_literal",
    "position",
    "split_spans",
    "split_top",
    "top_level_find",
]

#: an SSA value: ``%x``, ``%arg0``, ``%x#1`` (result 1 of ``%x:2``)
SSA_NAME = re.compile(r"%[\w#.$-]+")
_OPENING = frozenset("<([{")
_CLOSING = frozenset(">)]}")


class ModuleError(ParseError):
    """Malformed or truncated TTGIR text, at ``line`` (1-based) and ``column`` (or None);
    ``detail`` is the message without the position."""

    def __init__(self, detail: str, line: int, column: int | None = None) -> None:
        self.detail = detail
        self.column = column
        where = f"line {line}" if column is None else f"line {line}, column {column}"
        super().__init__(f"{where}: {detail}")
        self.line = line


def integer_literal(text: str) -> int | None:
    """An integer literal (ASCII digits, an optional minus), else None.

    >>> integer_literal("-16"), integer_literal("²"), integer_literal("%c0")
    (-16, None, None)
    """
    digits = text[1:] if text.startswith("-") else text
    return int(text) if digits.isascii() and digits.isdigit() else None


def position(text: str, offset: int, line: int = 1) -> tuple[int, int]:
    """The (line, column), both 1-based, of ``offset`` in ``text`` whose first line is
    ``line``.

    >>> position("ab\\ncd", 4, line=10)
    (11, 2)
    """
    before = text.rfind("\n", 0, offset)
    return line + text.count("\n", 0, offset), offset - before


# what bracket matching looks at: a string (skipped whole), the arrow (no bracket), a bracket
_TOKEN = r'"(?:[^"\\]|\\.)*"?|->|[<(\[{>)\]}]'
_TOKENS = re.compile(_TOKEN)
# bracket matching with a separator first, compiled at import for those of types, signatures
# and dictionaries
_SEPARATED: dict[str, re.Pattern[str]] = {
    sep: re.compile(f"(?P<sep>{re.escape(sep)})|{_TOKEN}") for sep in (",", ":", "->")
}


def _separated(sep: str) -> re.Pattern[str]:
    """The tokens of bracket matching, ``sep`` first."""
    if sep not in _SEPARATED:
        _SEPARATED[sep] = re.compile(f"(?P<sep>{re.escape(sep)})|{_TOKEN}")
    return _SEPARATED[sep]


def balanced_end(text: str, start: int, line: int = 1) -> int:
    """The index just past the bracket that closes the one at ``start``; ``line`` is the line
    ``text`` starts at (for the error).

    >>> balanced_end('loc("a)b"(#loc)) x', 3)
    16
    >>> balanced_end("tensor<4xf16", 6)
    Traceback (most recent call last):
    ...
    llverify.ttgir.syntax.ModuleError: line 1, column 7: unbalanced '<' (nothing closes it) in 'tensor<4xf16'.
    """  # noqa: E501
    depth = 0
    for token in _TOKENS.finditer(text, start):
        char = token.group()
        if char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
            if depth <= 0:
                return token.end()
    at_line, column = position(text, start, line)
    raise ModuleError(
        f"unbalanced {text[start : start + 1]!r} (nothing closes it) in "
        f"{text[max(0, start - 20) : start + 40]!r}.",
        at_line,
        column,
    )


def top_level_find(text: str, token: str, start: int = 0) -> int:
    """The index of the first ``token`` at or after ``start`` outside brackets and strings,
    or -1 (text after an unmatched closing bracket is no longer top level).

    >>> top_level_find("{a = 1 : i32} : i32", ":")
    14
    """
    depth = 0
    for found in _separated(token).finditer(text, start):
        char = found.group()
        if found.lastgroup == "sep":
            if depth == 0:
                return found.start()
        elif char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
            if depth < 0:
                return -1
    return -1


def split_spans(
    text: str, sep: str = ",", start: int = 0, end: int | None = None
) -> list[tuple[int, int]]:
    """The (start, end) offsets of the pieces of ``text[start:end]`` between the ``sep`` that
    are outside brackets and strings (blank pieces included).

    >>> split_spans("a = [1, 2], b", start=0)
    [(0, 10), (11, 13)]
    """
    stop = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    depth, begin = 0, start
    for found in _separated(sep).finditer(text, start, stop):
        char = found.group()
        if found.lastgroup == "sep":
            if depth == 0:
                spans.append((begin, found.start()))
                begin = found.end()
        elif char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
    spans.append((begin, stop))
    return spans


def split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split on ``sep`` outside brackets and strings; the pieces stripped, blank ones
    dropped.

    >>> split_top('a, "b, c", [d, e],')
    ['a', '"b, c"', '[d, e]']
    """
    if sep == "," and not any(c in text for c in '"<([{'):
        pieces = text.split(",")
    else:
        pieces = [text[a:b] for a, b in split_spans(text, sep)]
    return [p.strip() for p in pieces if p.strip()]
