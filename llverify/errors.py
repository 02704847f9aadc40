"""The exception hierarchy: every error llverify raises on bad input."""

from __future__ import annotations

import reprlib


class LLVerifyError(Exception):
    """Base class of every error raised by llverify."""


class LayoutError(LLVerifyError, ValueError):
    """A layout, a dimension or an argument has a bad value.

    Examples:
        >>> from llverify import LinearLayout
        >>> LinearLayout.identity_1d(3, "register", "dim0")
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'size' must be 0 or a power of 2, not 3.
    """


class LayoutTypeError(LLVerifyError, TypeError):
    """An argument has the wrong type (a float where an int is needed, ...)."""


class DimensionError(LayoutError):
    """Dimension names do not match (unknown dim, mismatch between two layouts)."""


class NotInvertibleError(LayoutError):
    """The layout cannot be inverted, or the outer layout does not cover the image."""


class ParseError(LLVerifyError, ValueError):
    """Text (Triton's layout text, JSON) could not be parsed.

    Attributes:
        line: 1-based line number of the offending line, or None.
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(message if line is None else f"line {line}: {message}")


_SHOWN = reprlib.Repr()
_SHOWN.maxlevel = 3
_SHOWN.maxstring = _SHOWN.maxother = _SHOWN.maxlong = 60
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = _SHOWN.maxset = 8


def escaped(text: str) -> str:
    """``text`` with every character that is not printable (control, format and separator
    characters: NUL, a terminal escape, a bidi override, a line separator) written as a Python
    escape, so that a message quoting user text cannot reach the terminal raw.

    Examples:
        >>> print(escaped("lane\\x1b[31m\\x00ℓ"))
        lane\\x1b[31m\\x00ℓ
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def shown(value: object) -> str:
    """``repr(value)`` for an error message: bounded in length and nesting, never raising.

    Examples:
        >>> print(shown([[[[[1]]]]]), shown(list(range(100))), len(shown("x" * 1000)))
        [[[[...]]]] [0, 1, 2, 3, 4, 5, 6, 7, ...] 60
    """
    return _SHOWN.repr(value)
