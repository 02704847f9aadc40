"""Number and argument helpers: bits, ints, bools, shapes, size caps, time budgets, plurals."""

from __future__ import annotations

import math
import operator
import unicodedata
from collections.abc import Sequence
from typing import Any

from llverify.errors import LayoutError, LayoutTypeError, escaped, shown

#: Triton stores dimension sizes as int32: the largest size is 2**30.
MAX_DIM_LOG2 = 30
#: Triton packs a layout's matrix rows/columns in uint64: at most 64 bits in and out.
MAX_TOTAL_BITS = 64
#: The longest solver budget accepted (a day): a larger one is a typo, not a budget.
MAX_TIMEOUT_S = 86_400
#: The largest input file read (layouts, TTGIR modules, records, spec files): 16 MiB.
MAX_INPUT_BYTES = 16 << 20


def is_power_of_2(value: int) -> bool:
    """True when ``value`` is a positive power of two.

    Examples:
        >>> is_power_of_2(8), is_power_of_2(6), is_power_of_2(0)
        (True, False, False)
    """
    return value > 0 and value & (value - 1) == 0


def log2_exact(value: int) -> int:
    """log2 of a power of two (the caller has checked it is one).

    Examples:
        >>> log2_exact(64)
        6
    """
    return value.bit_length() - 1


def as_int(value: Any, name: str) -> int:
    """``value`` as a Python int (bool and float are refused), else LayoutTypeError.

    Examples:
        >>> as_int(3, "size")
        3
    """
    if isinstance(value, bool):
        raise LayoutTypeError(f"Argument '{name}' must be an int, not bool {shown(value)}.")
    try:
        return operator.index(value)
    except TypeError:
        raise LayoutTypeError(
            f"Argument '{name}' must be an int, not {type(value).__name__} {shown(value)}."
        ) from None


def as_bool(value: Any, name: str) -> bool:
    """``value`` when it is a bool; anything else (a truthy string, 1, None) LayoutTypeError.

    Examples:
        >>> as_bool(True, "padding")
        True
        >>> as_bool("no", "padding")
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutTypeError: Argument 'padding' must be a bool (True or False), not str 'no'.
    """  # noqa: E501
    if value.__class__ is not bool:
        raise LayoutTypeError(
            f"Argument '{name}' must be a bool (True or False), not "
            f"{type(value).__name__} {shown(value)}."
        )
    return value


_PLAIN_SEQUENCES = (list, tuple)
_INT_TYPE = {int}


def as_shape(value: Any, name: str = "shape") -> tuple[int, ...]:
    """A tensor shape as a tuple of ints: a sequence of ints (never a str, which would be
    read one character at a time), else LayoutTypeError.  The sizes are the caller's to
    check (rank, powers of 2).

    Examples:
        >>> as_shape([128, 64])
        (128, 64)
        >>> as_shape("128x64")
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutTypeError: Argument 'shape' must be a sequence of ints such as [128, 64], not str '128x64'.
    """  # noqa: E501
    if value.__class__ in _PLAIN_SEQUENCES:
        dims = tuple(value)
        if set(map(type, dims)) <= _INT_TYPE:  # plain ints: nothing to convert
            return dims
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise LayoutTypeError(
            f"Argument '{name}' must be a sequence of ints such as [128, 64], not "
            f"{type(value).__name__} {shown(value)}."
        )
    return tuple(as_int(d, f"{name}[{i}]") for i, d in enumerate(value))


def check_size(value: Any, name: str, *, allow_zero: bool = False) -> int:
    """Validate a dimension size: an int power of two (or 0 if allowed), at most 2**30.

    Examples:
        >>> check_size(16, "size")
        16
    """
    size = as_int(value, name)
    if allow_zero and size == 0:
        return 0
    if not is_power_of_2(size):
        expected = "0 or a power of 2" if allow_zero else "a power of 2"
        raise LayoutError(f"Argument '{name}' must be {expected}, not {size}.")
    if size > 1 << MAX_DIM_LOG2:
        raise LayoutError(
            f"Argument '{name}' must be at most 2**{MAX_DIM_LOG2}, not {size}: llverify caps "
            f"dimension sizes at 2**{MAX_DIM_LOG2} (Triton stores sizes as int32)."
        )
    return size


def popcount(value: int) -> int:
    """Number of set bits.

    Examples:
        >>> popcount(0b1011)
        3
    """
    return bin(value).count("1")


def name_problem(text: str) -> str | None:
    """Why ``text`` cannot be a name (of a dimension or a check), or None when it can.

    A name must be printable (no NUL, control, terminal escape, format or line-separator
    character: Python's ``str.isprintable``) and in Unicode NFKC normal form. Python reads a
    formula's identifiers in NFKC form (``ℓane`` is ``lane``), so a dim name that NFKC would
    change could never be named by a formula, and two names NFKC folds together (``lane``,
    ``ℓane``) would be one variable to a formula but two dims to a layout: such names are
    refused rather than normalised, so that every name llverify prints is the one written.

    Examples:
        >>> name_problem("lane"), name_problem("ширина")
        (None, None)
        >>> print(name_problem("ℓane"))
        'ℓane' is not in Unicode NFKC normal form, as Python reads formula identifiers: it would read as 'lane'
        >>> print(name_problem("d\\x1b[31m"))
        'd\\x1b[31m' holds the non-printable character U+001B
    """  # noqa: E501
    if text.isascii() and text.isprintable():
        return None
    bad = next((c for c in text if not c.isprintable()), None)
    if bad is not None:
        return f"'{escaped(text)}' holds the non-printable character U+{ord(bad):04X}"
    if not unicodedata.is_normalized("NFKC", text):
        normal = unicodedata.normalize("NFKC", text)
        return (
            f"'{text}' is not in Unicode NFKC normal form, as Python reads formula "
            f"identifiers: it would read as '{escaped(normal)}'"
        )
    return None


def check_name(value: str, name: str, what: str = "name") -> str:
    """``value`` if :func:`name_problem` finds nothing, else a LayoutError naming the argument
    ``name``.

    Examples:
        >>> check_name("warp", "in_dim")
        'warp'
        >>> check_name("wa\\x00rp", "in_dim", "a dimension name")
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'in_dim' must be a dimension name of printable characters in NFKC normal form, but 'wa\\x00rp' holds the non-printable character U+0000.
    """  # noqa: E501
    problem = name_problem(value)
    if problem is not None:
        raise LayoutError(
            f"Argument '{name}' must be {what} of printable characters in NFKC normal form, "
            f"but {problem}."
        )
    return value


def check_timeout(value: Any, name: str, *, milliseconds: bool = False) -> float:
    """Validate a time budget: a finite number > 0, at most :data:`MAX_TIMEOUT_S` seconds
    (``value`` in milliseconds when ``milliseconds``); returns it as a float in its own unit.
    bool, str and other non-numbers are a LayoutTypeError, NaN, infinities, 0, negative and
    too large values a LayoutError, both naming the argument.

    Examples:
        >>> check_timeout(60, "timeout_s"), check_timeout(500, "timeout_ms", milliseconds=True)
        (60.0, 500.0)
        >>> check_timeout(float("nan"), "timeout_s")
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'timeout_s' must be a finite number of seconds > 0 and <= 86400, not nan.
    """  # noqa: E501
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LayoutTypeError(
            f"Argument '{name}' must be a number, not {type(value).__name__} {value!r}."
        )
    unit, scale = ("milliseconds", 1000) if milliseconds else ("seconds", 1)
    limit = MAX_TIMEOUT_S * scale
    if not (math.isfinite(value) and 0 < value <= limit):
        raise LayoutError(
            f"Argument '{name}' must be a finite number of {unit} > 0 and <= {limit}, "
            f"not {value!r}."
        )
    return float(value)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun`` in agreement: the plural (``noun + "s"`` unless given) for any
    count but 1.

    Examples:
        >>> counted(1, "conflict"), counted(7, "conflict"), counted(1, "pass", "passes")
        ('1 conflict', '7 conflicts', '1 pass')
    """
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
