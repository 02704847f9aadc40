"""Colours, sizes and small text helpers shared by the pictures.

Warp colours are Paul Tol's "light" qualitative scheme: nine colours that stay distinct
for the common colour-vision deficiencies and keep black text readable.

Examples:
    >>> warp_colour(0), warp_colour(9) == warp_colour(0)
    ('#77AADD', True)
    >>> ranges([0, 1, 2, 3, 8, 9, 12])
    '0-3,8-9,12'
"""

from __future__ import annotations

from collections.abc import Iterable

#: Paul Tol's "light" scheme (colour-blind safe, for labelled cells)
WARP_PALETTE = (
    "#77AADD",  # light blue
    "#EE8866",  # orange
    "#EEDD88",  # light yellow
    "#FFAABB",  # pink
    "#99DDFF",  # light cyan
    "#44BB99",  # mint
    "#BBCC33",  # pear
    "#AAAA00",  # olive
    "#DDDDDD",  # pale grey
)
MIXED = "#FFFFFF"  # an aggregated cell holding more warps than its stripes can show
TEXT = "#000000"
MUTED = "#555555"
GRID_LINE = "#FFFFFF"
CELL_BORDER = "#FFFFFF"
BANK_EMPTY = "#F4F4F4"  # a bank cell outside the wavefront
BANK_BORDER = "#BBBBBB"
PADDING = "#D0D0D0"
WAVEFRONT = "#99DDFF"  # cells the highlighted wavefront accesses
WAVEFRONT_EDGE = "#004488"  # outline of wavefront elements in the tensor grids
CONFLICT = "#CC3311"  # Tol's vibrant red: conflicting accesses

CELL_FONT = 11.0
SMALL_FONT = 9.0
TITLE_FONT = 14.0
NOTE_FONT = 11.0
LINE_GAP = 1.3  # line height in font sizes
PAD = 4.0  # inner padding of a cell


def warp_colour(warp: int) -> str:
    """The background of cells held by ``warp`` (the palette repeats every 9 warps)."""
    return WARP_PALETTE[warp % len(WARP_PALETTE)]


def ranges(values: Iterable[int]) -> str:
    """Sorted distinct ints as compact ranges: ``0-3,8-9,12``."""
    items = sorted(set(int(v) for v in values))
    parts: list[str] = []
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        parts.append(str(items[i]) if i == j else f"{items[i]}-{items[j]}")
        i = j + 1
    return ",".join(parts)


def short_ranges(values: Iterable[int], limit: int = 9) -> str:
    """:func:`ranges`, or ``min..max (n)`` when that is longer than ``limit`` characters.

    Examples:
        >>> short_ranges([0, 2, 4, 6, 8, 10, 12])
        '0..12 (7)'
    """
    items = sorted(set(int(v) for v in values))
    text = ranges(items)
    if len(text) <= limit:
        return text
    return f"{items[0]}..{items[-1]} ({len(items)})"


def wrap(text: str, width: int) -> list[str]:
    """Greedy word wrap at ``width`` characters (long words stay whole).

    Examples:
        >>> wrap("one two three four", 9)
        ['one two', 'three', 'four']
    """
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines or [""]
