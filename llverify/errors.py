"""The exception hierarchy: every error llverify raises on bad input."""

from __future__ import annotations


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
