"""Line numbers of the tables and keys of a TOML spec file, for ``FILE:LINE`` errors.

The TOML decoder gives plain dicts without positions, so this module scans the source text
once: it knows TOML's strings (basic, literal, multi-line), arrays and inline tables spanning
lines, and comments, and records where each ``[[check]]`` header and each key of a check
starts. It only runs on text the decoder accepted; on anything it does not understand it
stops and the lookups fall back to the check's header, then to line 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


@dataclass
class _Check:
    header: int
    keys: dict[tuple[str, ...], int] = field(default_factory=dict)


@dataclass
class LineIndex:
    """Where things are in a spec file's text.

    Examples:
        >>> index = LineIndex.of('[[check]]\\nname = "a"\\n[check.grid]\\nn = [1, 2]\\n')
        >>> index.check(0), index.check(0, "name"), index.check(0, "grid", "n")
        (1, 2, 4)
        >>> index.check(5, "name"), index.top("check")
        (1, 1)
    """

    checks: list[_Check] = field(default_factory=list)
    top_keys: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, text: str) -> LineIndex:
        index = cls()
        try:
            _Scanner(text, index).run()
        except (IndexError, ValueError):  # pragma: no cover - the decoder accepted the text
            pass
        return index

    def top(self, key: str) -> int:
        """Line of a top-level key or table (1 when unknown)."""
        return self.top_keys.get(key, 1)

    def check(self, number: int, *path: str) -> int:
        """Line of key ``path`` of the ``number``-th check (0-based); the longest known prefix
        of the path, then the check's header, then the ``check`` key, then 1."""
        if 0 <= number < len(self.checks):
            entry = self.checks[number]
            for end in range(len(path), 0, -1):
                line = entry.keys.get(tuple(path[:end]))
                if line is not None:
                    return line
            return entry.header
        return self.top("check")


class _Scanner:
    def __init__(self, text: str, index: LineIndex) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.index = index
        self.prefix: tuple[str, ...] | None = ()  # key path of the current table; None: ignore
        self.in_check = False

    # ------------------------------------------------------------------ characters

    def peek(self, offset: int = 0) -> str:
        at = self.pos + offset
        return self.text[at] if at < len(self.text) else ""

    def advance(self, count: int = 1) -> None:
        for _ in range(count):
            if self.pos < len(self.text):
                if self.text[self.pos] == "\n":
                    self.line += 1
                self.pos += 1

    def skip_blank(self, newlines: bool) -> None:
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char in " \t\r" or (newlines and char == "\n"):
                self.advance()
            elif char == "#":
                while self.pos < len(self.text) and self.text[self.pos] != "\n":
                    self.advance()
            else:
                return

    # ------------------------------------------------------------------ structure

    def run(self) -> None:
        while True:
            self.skip_blank(newlines=True)
            if self.pos >= len(self.text):
                return
            start = self.pos
            if self.peek() == "[":
                self.header()
            else:
                self.key_value()
            if self.pos == start:  # never loop on something unexpected
                return

    def header(self) -> None:
        line = self.line
        array = self.peek(1) == "["
        self.advance(2 if array else 1)
        self.skip_blank(newlines=False)
        path = self.key()
        self.skip_blank(newlines=False)
        self.advance(2 if array else 1)
        self.record_header(line, array, path)

    def record_header(self, line: int, array: bool, path: tuple[str, ...]) -> None:
        if not path:
            self.prefix = None
            return
        self.index.top_keys.setdefault(path[0], line)
        if path == ("check",) and array:
            self.index.checks.append(_Check(line))
            self.prefix = ()
        elif path[0] == "check" and len(path) > 1 and self.index.checks and not array:
            self.prefix = path[1:]
            self.record_key(line, self.prefix)
        else:
            self.prefix = None

    def record_key(self, line: int, path: tuple[str, ...]) -> None:
        if self.prefix is None or not self.index.checks:
            return
        keys = self.index.checks[-1].keys
        for end in range(1, len(path) + 1):
            keys.setdefault(path[:end], line)

    def key_value(self) -> None:
        line = self.line
        path = self.key()
        if not path:
            raise ValueError("not a key")
        self.skip_blank(newlines=False)
        if self.peek() != "=":
            raise ValueError("expected '='")
        self.advance()
        self.skip_blank(newlines=False)
        if self.prefix == () and not self.index.checks:
            self.index.top_keys.setdefault(path[0], line)
        elif self.prefix is not None:
            self.record_key(line, self.prefix + path)
        self.value()

    def key(self) -> tuple[str, ...]:
        parts: list[str] = []
        while True:
            self.skip_blank(newlines=False)
            char = self.peek()
            if char in ('"', "'"):
                parts.append(self.string())
            else:
                start = self.pos
                while self.peek() and self.peek() in _BARE:
                    self.advance()
                if self.pos == start:
                    return tuple(parts)
                parts.append(self.text[start : self.pos])
            self.skip_blank(newlines=False)
            if self.peek() != ".":
                return tuple(parts)
            self.advance()

    def string(self) -> str:
        """A string token (any of the four kinds); returns its raw body."""
        quote = self.peek()
        if self.text.startswith(quote * 3, self.pos):
            self.advance(3)
            end = self.pos
            while self.pos < len(self.text):
                if quote == '"' and self.peek() == "\\":
                    self.advance(2)
                    continue
                if self.text.startswith(quote * 3, self.pos):
                    end = self.pos
                    self.advance(3)
                    while self.peek() == quote:  # up to two quotes may close the body
                        self.advance()
                    return self.text[end : self.pos]
                self.advance()
            return ""
        self.advance()
        start = self.pos
        while self.pos < len(self.text) and self.peek() not in (quote, "\n"):
            if quote == '"' and self.peek() == "\\":
                self.advance()
            self.advance()
        body = self.text[start : self.pos]
        self.advance()
        return body

    def value(self) -> None:
        """Skip one value: scalars up to the end of the line, arrays and inline tables to
        their closing bracket (arrays may span lines)."""
        depth = 0
        while self.pos < len(self.text):
            char = self.peek()
            if char in ('"', "'"):
                self.string()
            elif char in "[{":
                depth += 1
                self.advance()
            elif char in "]}":
                depth -= 1
                self.advance()
            elif char == "#":
                self.skip_blank(newlines=False)
            elif char == "\n":
                if depth <= 0:
                    return
                self.advance()
            else:
                self.advance()
