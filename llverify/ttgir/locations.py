"""Source locations in TTGIR: an operation's trailing ``loc(...)``, resolved through the
``#loc`` aliases to the user's file and line, and the text with its locations replaced.

Examples:
    >>> aliases = {"#loc1": 'loc("lib.py":9:4)', "#loc2": 'loc("k.py":12:5)',
    ...            "#loc3": "loc(callsite(#loc1 at #loc2))"}
    >>> inner = trailing_location("%0 = tt.foo %x : i32 loc(#loc3)")
    >>> inner, user_location(inner, aliases), first_file_location(inner, aliases)
    ('#loc3', 'k.py:12', FileLocation(file='lib.py', line=9, column=4))
    >>> replace_locations('%0 = tt.foo %x : i32 loc(#loc3)', 'loc("h.ttgir":1:0)')
    '%0 = tt.foo %x : i32 loc("h.ttgir":1:0)'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

from llverify.ttgir.syntax import balanced_end

__all__ = [
    "FileLocation",
    "first_file_location",
    "replace_locations",
    "trailing_location",
    "trailing_location_span",
    "user_location",
]

_FILE_LOC = re.compile(r'"([^"]*)":(\d+):(\d+)')
_LOC = re.compile(r"\bloc\(")
_ALIAS_LOC = re.compile(r"loc\(#[\w$.-]*\)")  # a location that is an alias (no brackets)
_REF = re.compile(r"#[\w$-]+")
_MAX_DEPTH = 16  # location aliases refer to each other a few levels deep


class FileLocation(NamedTuple):
    """A ``"file":line:column`` location."""

    file: str
    line: int
    column: int


def trailing_location_span(text: str) -> tuple[int, int] | None:
    """The offsets in ``text`` of the ``loc(...)`` that ends its last line, or None.

    >>> trailing_location_span('%y = tt.foo %x loc("k.py":3:1)\\n')
    (15, 30)
    """
    end = len(text.rstrip())
    start = text.rfind("\n", 0, end) + 1
    for match in _LOC.finditer(text, start, end):
        try:
            close = balanced_end(text, match.end() - 1)
        except ValueError:
            return None
        if close == end:
            return match.start(), end
    return None


def trailing_location(text: str) -> str:
    """The inside of the ``loc(...)`` that ends ``text``'s last line, or "" when it has none.

    >>> trailing_location('%y = tt.foo %x loc("k.py":3:1)\\n'), trailing_location("} {")
    ('"k.py":3:1', '')
    """
    span = trailing_location_span(text)
    return "" if span is None else text[span[0] + 4 : span[1] - 1]


def user_location(text: str, aliases: Mapping[str, str], depth: int = 0) -> str:
    """The ``file:line`` a location (the inside of a ``loc(...)``) resolves to, through
    aliases; for an inlined call (``callsite(callee at caller)``) the caller's line, the
    user's; "" when it names no file."""
    if "callsite(" in text and " at " in text:
        found = user_location(text.rsplit(" at ", 1)[1], aliases, depth + 1)
        if found:
            return found
    match = _FILE_LOC.search(text)
    if match:
        return f"{match.group(1)}:{match.group(2)}"
    if depth > _MAX_DEPTH:
        return ""
    for ref in _REF.findall(text):
        if ref in aliases and aliases[ref].startswith("loc("):
            found = user_location(aliases[ref], aliases, depth + 1)
            if found:
                return found
    return ""


def first_file_location(text: str, aliases: Mapping[str, str]) -> FileLocation | None:
    """The first ``"file":line:column`` a location (the inside of a ``loc(...)``) reaches,
    breadth first through its aliases (for a call site, the callee's), or None."""
    seen: set[str] = set()
    pending = [text] if text else []
    while pending:
        current = pending.pop(0)
        direct = _FILE_LOC.search(current)
        if direct:
            return FileLocation(direct.group(1), int(direct.group(2)), int(direct.group(3)))
        for ref in _REF.findall(current):
            if ref in aliases and ref not in seen:
                seen.add(ref)
                pending.append(aliases[ref])
    return None


def replace_locations(text: str, loc: str) -> str:
    """``text`` with every ``loc(...)`` replaced by ``loc`` ("" removes them with the blanks
    before them)."""
    if not loc:
        # the common case at once: every location an alias (``loc(#loc12)``, at a word
        # boundary), removed with the blanks before it; any other keeps its ``loc(`` and is
        # read below, from the start
        pieces = _ALIAS_LOC.split(text)
        if not any(piece[-1:].isalnum() or piece[-1:] == "_" for piece in pieces[:-1]):
            removed = "".join([piece.rstrip(" ") for piece in pieces[:-1]] + pieces[-1:])
            if "loc(" not in removed:
                return removed
    return _replaced(text, loc)


def _replaced(text: str, loc: str) -> str:
    """:func:`replace_locations`, each location read to its closing bracket."""
    out, i = [], 0
    for match in _LOC.finditer(text):
        if match.start() < i:
            continue  # inside a location already replaced
        end = balanced_end(text, match.end() - 1)
        out.append(text[i : match.start()].rstrip(" ") + (" " + loc if loc else ""))
        i = end
    out.append(text[i:])
    return "".join(out)
