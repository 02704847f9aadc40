"""Error messages of the command line as one line on stderr (docs/cli.md: exit 2, one line),
the exit codes and the help layout: what ``llverify --help`` needs, nothing heavier."""

from __future__ import annotations

import argparse
import os
import sys

from llverify.errors import escaped

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNKNOWN = 3

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


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, except that a paragraph of a description or epilog with lines
    indented by two spaces (the examples) is printed as written; the others are wrapped.  The
    width is argparse's (the terminal's columns less 2), found without importing ``shutil``
    (which imports the compression modules: a fifth of ``llverify --help``)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = text.split("\n\n")
        return "\n\n".join(
            "\n".join(indent + line for line in paragraph.splitlines())
            if "\n  " in paragraph
            else super(HelpFormatter, self)._fill_text(paragraph, width, indent)
            for paragraph in paragraphs
        )


def terminal_columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size().columns`` gives it: ``$COLUMNS``
    when a positive int, else the width of the terminal on standard output, else 80.

    Examples:
        >>> import os, shutil
        >>> terminal_columns() == shutil.get_terminal_size().columns
        True
    """
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80
