"""Thread-value pictures: a CuTe TV layout as its tile (each cell ``T<thread>`` over
``V<value>``, as CuTe's ``print_latex`` labels them), and several such panels side by side
(an MMA atom's A, B and C fragments).  Any TV layout is drawn, linear or not.

Examples:
    >>> from llverify.cute import parse
    >>> svg = tv_picture(parse("((4,8),(2,2)):((32,1),(16,8))"), (16, 8)).svg()
    >>> svg.count('class="tv-cell"'), "T0" in svg and "V3" in svg
    (128, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llverify.draw import style
from llverify.draw.grid import Panel, figure_heading
from llverify.draw.scene import DrawError, Group, Item, Rect, Scene, Text, shifted, text_width
from llverify.errors import shown

__all__ = ["TVPanel", "closed_form", "fragment_picture", "tv_panel", "tv_picture"]

_CELL_W = 34.0
_CELL_H = 28.0
_HEAD = 22.0  # caption line above the grid
_AXIS = 26.0  # row / column index labels
_GAP = 36.0
_MARGIN = 16.0
#: cells drawn per panel at most; larger tiles are cropped to their top-left corner
MAX_TV_CELLS = 4096


@dataclass(frozen=True)
class TVPanel:
    """One panel: ``tv`` over ``tile`` (CuTe's (rows, cols), column-major), drawn with rows
    and columns exchanged when ``transposed`` (CuTe's B is (N, K); it is drawn K x N)."""

    caption: str
    tv: Any
    tile: tuple[int, int]
    transposed: bool = False
    lanes: int = 32


def _check_tile(tile: Any) -> tuple[int, int]:
    if (
        not isinstance(tile, (tuple, list))
        or len(tile) != 2
        or any(isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in tile)
    ):
        raise DrawError(
            f"Argument 'tile' must be (rows, cols) of positive ints, not {shown(tile)}."
        )
    return int(tile[0]), int(tile[1])


def _tv(value: Any) -> Any:
    """A CuTe layout, or CuTe layout text parsed."""
    from llverify.cute import ComposedLayout, Layout, parse

    if isinstance(value, str):
        return parse(value)
    if not isinstance(value, (Layout, ComposedLayout)):
        raise DrawError(f"Argument 'tv' must be a CuTe layout or its text, not {shown(value)}.")
    return value


def _holders(spec: TVPanel) -> tuple[dict[tuple[int, int], list[tuple[int, int]]], int, int]:
    """(row, col) as drawn -> [(thread, value), ...], and the drawn rows and cols."""
    tv = _tv(spec.tv)
    if len(tv) != 2:
        raise DrawError(f"Argument 'tv' must have two modes (thread, value), not {tv}.")
    rows, cols = _check_tile(spec.tile)
    size = rows * cols
    cells: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for thread in range(tv[0].size()):
        for value in range(tv[1].size()):
            index = int(tv._index((thread, value)))
            if not 0 <= index < size:
                raise DrawError(
                    f"the TV layout {tv} sends thread {thread} value {value} to {index}, "
                    f"outside the {rows}x{cols} tile."
                )
            r, c = index % rows, index // rows
            where = (c, r) if spec.transposed else (r, c)
            cells.setdefault(where, []).append((thread, value))
    return cells, (cols if spec.transposed else rows), (rows if spec.transposed else cols)


def tv_panel(spec: TVPanel, max_cells: int = MAX_TV_CELLS) -> Panel:
    """The panel of one TV layout: a caption, column and row indices, one cell per element
    (``T<thread>`` / ``V<value>``, coloured by thread, a tooltip with lane and warp)."""
    cells, rows, cols = _holders(spec)
    shown_rows, shown_cols = rows, cols
    while shown_rows * shown_cols > max_cells:
        if shown_cols >= shown_rows and shown_cols > 1:
            shown_cols = (shown_cols + 1) // 2
        else:
            shown_rows = (shown_rows + 1) // 2
    caption = f"{spec.caption}: {rows} x {cols}"
    if (shown_rows, shown_cols) != (rows, cols):
        caption += f" (rows 0-{shown_rows - 1}, cols 0-{shown_cols - 1} shown)"
    items: list[Item] = [Text(0, 14, caption, style.NOTE_FONT, "start", weight="bold")]
    x0, y0 = _AXIS, _HEAD + _AXIS
    for c in range(shown_cols):
        items.append(Text(x0 + c * _CELL_W + _CELL_W / 2, y0 - 8, str(c), style.SMALL_FONT,
                          fill=style.MUTED))  # fmt: skip
    empty = 0
    for r in range(shown_rows):
        items.append(Text(x0 - 6, y0 + r * _CELL_H + _CELL_H / 2 + 3, str(r), style.SMALL_FONT,
                          "end", fill=style.MUTED))  # fmt: skip
        for c in range(shown_cols):
            x, y = x0 + c * _CELL_W, y0 + r * _CELL_H
            holders = cells.get((r, c), [])
            if not holders:
                empty += 1
                items.append(Rect(x, y, _CELL_W, _CELL_H, style.PADDING, style.CELL_BORDER, 1,
                                  "tv-cell"))  # fmt: skip
                continue
            thread, value = holders[0]
            more = f"+{len(holders) - 1}" if len(holders) > 1 else ""
            tip = "; ".join(
                f"thread {t} (lane {t % spec.lanes}, warp {t // spec.lanes}) value {v}"
                for t, v in holders[:8]
            )
            children: list[Item] = [
                Rect(x, y, _CELL_W, _CELL_H, style.warp_colour(thread), style.CELL_BORDER, 1,
                     "tv-cell"),
                Text(x + _CELL_W / 2, y + 12, f"T{thread}{more}", style.SMALL_FONT),
                Text(x + _CELL_W / 2, y + 23, f"V{value}", style.SMALL_FONT),
            ]  # fmt: skip
            items.append(Group(children, f"({r}, {c}): {tip}"))
    width = x0 + shown_cols * _CELL_W
    width = max(width, text_width(caption, style.NOTE_FONT))
    height = y0 + shown_rows * _CELL_H
    info: dict[str, object] = {
        "rows": rows,
        "cols": cols,
        "cells": shown_rows * shown_cols,
        "empty": empty,
    }
    return Panel(items, width, height, info)


def closed_form(layout: Any, names: Sequence[str]) -> tuple[str, dict[str, str]]:
    """A fragment's closed form for a caption: one line ``name = $LaTeX$`` per out dim of the
    LinearLayout ``layout`` (:func:`llverify.proof.explain.explain`, ``form="latex"``), the
    out dims called ``names``, and the LaTeX by out dim.

    Examples:
        >>> from llverify.layout import LinearLayout
        >>> ll = LinearLayout.from_bases([("lane", [[1, 0], [0, 1]])], ["dim0", "dim1"], [2, 2])
        >>> print(closed_form(ll, ["m", "k"])[0])
        m = $lane \\bmod 2$, k = $\\left\\lfloor{\\frac{lane}{2}}\\right\\rfloor$
    """
    from llverify.proof.explain import explain

    latex = explain(layout, "latex")
    line = ", ".join(f"{name} = ${latex[dim]}$" for name, dim in zip(names, latex))
    return line, dict(latex)


def fragment_picture(
    panels: Sequence[TVPanel],
    title: str,
    notes: Sequence[str] = (),
    max_cells: int = MAX_TV_CELLS,
) -> tuple[Scene, dict[str, Any]]:
    """``panels`` side by side under ``title`` and ``notes``; returns the scene and what was
    drawn (per panel: rows, cols, cells)."""
    if not panels:
        raise DrawError("Argument 'panels' must hold at least one TV panel.")
    drawn = [tv_panel(p, max_cells) for p in panels]
    note_lines = [line for note in notes for line in style.wrap(note, 140)]
    items, y = figure_heading([title], note_lines, _MARGIN)
    y += 12
    x = _MARGIN
    height = 0.0
    for panel in drawn:
        items += shifted(panel.items, x, y)
        x += panel.width + _GAP
        height = max(height, panel.height)
    legend = (
        "cell: T<thread> over V<value> (CuTe's TV coordinates); colour = thread mod 9; "
        "+n: n more holders; grey: held by no thread"
    )
    y += height + 20
    items.append(Text(_MARGIN, y, legend, style.NOTE_FONT, "start", fill=style.MUTED, cls="note"))
    width = max(x - _GAP + _MARGIN, text_width(title, style.TITLE_FONT) + 2 * _MARGIN, 640.0)
    info = {
        "kind": "tv",
        "title": title,
        "cells": sum(int(p.info["cells"]) for p in drawn),  # type: ignore[call-overload]
        "panels": {p.caption: d.info for p, d in zip(panels, drawn)},
    }
    return Scene(width, y + _MARGIN, items, title), info


def tv_picture(
    tv: Any,
    tile: Sequence[int],
    *,
    title: str | None = None,
    transposed: bool = False,
    lanes: int = 32,
    max_cells: int = MAX_TV_CELLS,
) -> Any:
    """A CuTe thread-value layout ``(thread, value) -> index`` over ``tile`` (column-major)
    as a picture (:class:`llverify.draw.Picture`)."""
    from llverify.cute import tv_to_linear_layout
    from llverify.draw.api import Picture
    from llverify.errors import LLVerifyError

    tile = _check_tile(tuple(tile))
    spec = TVPanel("TV layout", tv, tile, transposed, lanes)
    head = title or f"TV layout {spec.tv} over {tile[0]} x {tile[1]}"
    try:  # the closed form of (thread, value) -> (m, n), CuTe's tile coordinates
        layout = tv_to_linear_layout(_tv(tv), tile, lanes)
    except LLVerifyError as error:  # not GF(2)-linear: no closed form to print
        notes, latex = [f"no closed form: {error}"], None
    else:
        line, latex = closed_form(layout, ["m", "n"])
        notes = [f"(m, n) of CuTe's {tile[0]} x {tile[1]} tile: {line}"]
    scene, info = fragment_picture([spec], head, notes, max_cells=max_cells)
    return Picture(scene, {**info, "latex": latex})
