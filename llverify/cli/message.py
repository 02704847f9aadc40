"""Error messages of the command line as one line on stderr (docs/cli.md: exit 2, one line)."""

from __future__ import annotations

from llverify.errors import escaped

MAX_CHARS = 1000


def one_line(message: str, limit: int = MAX_CHARS) -> str:
    """``message`` on one line of at most ``limit`` characters (plus a count of the rest):
    line breaks become ``' | '``, lines holding only a ``^`` pointer are dropped (the
    message says the position), other non-printable characters (NUL, a terminal escape)
    are written as escapes (:func:`llverify.errors.escaped`), a longer message is cut and
    says how much was left out.

    Examples:
        >>> one_line("expected '=' (at position 4)\\n  #ttg\\n      ^")
        "expected '=' (at position 4) | #ttg"
        >>> one_line("'" + "x" * 30 + "' is not a file", limit=20)
        "'xxxxxxxxxxxxxxxxxxx... (26 more characters)"
        >>> print(one_line("bad name 'a\\x1b[2J'"))
        bad name 'a\\x1b[2J'
    """
    parts = [escaped(line.strip()) for line in message.splitlines() if line.strip(" \t^~")]
    text = " | ".join(parts)
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text) - limit} more characters)"
    return text
