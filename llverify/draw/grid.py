"""The tensor grid of a distributed layout: who holds each element, windows, aggregation,
and the panel that draws it.

A tensor is drawn as 2-D grids: a 2-D tensor as itself, a 1-D tensor in rows of ``wrap``
elements, a tensor of rank 3+ as one 2-D slice (its last two dims) per leading index.
When a window holds more cells than ``max_cells``, each drawn cell summarizes a
``br x bc`` block of elements (powers of 2, as square as possible).

Examples:
    >>> plan = plan_grid((256, 256), None, 1024)
    >>> plan.block, plan.drawn
    ((8, 8), (32, 32))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llverify.draw import style
from llverify.draw.scene import DrawError, Group, Item, Rect, Text, text_width
from llverify.evaluate import check_enumeration, evaluate_all
from llverify.layout import LinearLayout

__all__ = ["Hardware", "GridPlan", "evaluate_distributed", "grid_panel", "plan_grid"]

DISTRIBUTED_DIMS = ("register", "lane", "warp", "block")
#: Peak bytes per element or hardware index of a drawing (ru_maxrss of ``llverify draw`` at
#: 2048x2048: the evaluated indices, the cell plan and the marks), for the enumeration
#: budget (:func:`llverify.evaluate.check_enumeration`).
BYTES_PER_ELEMENT = 128
REMEDY = "draw a smaller tensor shape (--shape), which shows the same layout's pattern"
MAX_SLICES = 16
WRAP = 32  # elements per drawn row of a 1-D tensor
_BAR = 5.0  # height of the warp-colour bar of cells held by several warps

Window = tuple[tuple[int, int], tuple[int, int]]


# ---------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class Hardware:
    """Every hardware index of a distributed layout and the element it holds; input ``i``
    enumerates register fastest, then lane, warp, block (Triton's tensor-view order)."""

    shape: tuple[int, ...]
    register: np.ndarray
    lane: np.ndarray
    warp: np.ndarray
    block: np.ndarray
    flat: np.ndarray  # row-major element index of each input
    sizes: dict[str, int]

    @property
    def lanes(self) -> int:
        return self.sizes["lane"]

    def thread(self, i: int) -> int:
        """Triton's thread number: ``lane + warp * lanes``."""
        return int(self.lane[i]) + int(self.warp[i]) * self.lanes

    def name(self, i: int) -> str:
        """``T<thread>:r<register>`` (``B<block>:`` first when there are several CTAs)."""
        prefix = f"B{int(self.block[i])}:" if self.sizes["block"] > 1 else ""
        return f"{prefix}T{self.thread(i)}:r{int(self.register[i])}"

    def describe(self, i: int) -> str:
        return (
            f"{self.name(i)} = block {int(self.block[i])}, warp {int(self.warp[i])}, "
            f"lane {int(self.lane[i])}, register {int(self.register[i])}"
        )


def check_distributed(layout: LinearLayout, name: str) -> None:
    extra = [d for d in layout.get_in_dim_names() if d not in DISTRIBUTED_DIMS]
    if extra:
        raise DrawError(
            f"Argument '{name}' must be a distributed layout (in dims within "
            f"{list(DISTRIBUTED_DIMS)}), not one with in dims {layout.get_in_dim_names()}."
        )
    if layout.num_out_dims == 0:
        raise DrawError(f"Argument '{name}' has no out dims: there is no tensor to draw.")
    check_enumeration(
        max(layout.get_total_out_dim_size(), layout.get_total_in_dim_size()),
        BYTES_PER_ELEMENT,
        f"drawing '{name}' (every element and hardware index)",
        REMEDY,
    )


def evaluate_distributed(layout: LinearLayout, name: str = "layout") -> Hardware:
    """Evaluate every hardware index of ``layout``."""
    check_distributed(layout, name)
    full = layout
    out0 = layout.get_out_dim_names()[0]
    for d in DISTRIBUTED_DIMS:
        if not full.has_in_dim(d):
            full = full * LinearLayout.zeros_1d(1, d, out0)
    full = full.transpose_ins(list(DISTRIBUTED_DIMS))
    values = evaluate_all(full, max_inputs=full.get_total_in_dim_size())
    sizes = {d: full.get_in_dim_size(d) for d in DISTRIBUTED_DIMS}
    index = np.arange(full.get_total_in_dim_size(), dtype=np.int64)
    parts = {}
    rest = index
    for d in DISTRIBUTED_DIMS:
        parts[d] = rest % sizes[d]
        rest = rest // sizes[d]
    shape = tuple(layout.get_out_dim_sizes())
    flat = np.zeros_like(index)
    for out, size in zip(layout.get_out_dim_names(), shape):
        flat = flat * size + np.asarray(values[out], dtype=np.int64)
    return Hardware(
        shape, parts["register"], parts["lane"], parts["warp"], parts["block"], flat, sizes
    )


# ---------------------------------------------------------------------- geometry


@dataclass(frozen=True)
class GridPlan:
    """Which part of a tensor is drawn, and how: slices, window, aggregation block."""

    shape: tuple[int, ...]
    rows: int  # of one 2-D slice
    cols: int
    wrap: int | None  # 1-D tensors: elements per drawn row
    slices: tuple[int, ...]  # flat leading index of each drawn slice
    window: Window
    block: tuple[int, int]  # elements per drawn cell (rows, cols)

    @property
    def drawn(self) -> tuple[int, int]:
        """Drawn cells per slice: (rows, cols)."""
        (r0, r1), (c0, c1) = self.window
        br, bc = self.block
        return -(-(r1 - r0) // br), -(-(c1 - c0) // bc)

    @property
    def cells(self) -> int:
        r, c = self.drawn
        return r * c * len(self.slices)

    @property
    def aggregated(self) -> bool:
        return self.block != (1, 1)

    @property
    def full_window(self) -> bool:
        return self.window == ((0, self.rows), (0, self.cols))

    def slice_name(self, s: int) -> str:
        """``dim0=1`` / ``(dim0,dim1)=(1,2)`` for a slice of a rank 3+ tensor."""
        lead = self.shape[:-2]
        idx = np.unravel_index(s, lead)
        if len(lead) == 1:
            return f"dim0 = {int(idx[0])}"
        names = ",".join(f"dim{i}" for i in range(len(lead)))
        return f"({names}) = ({','.join(str(int(v)) for v in idx)})"

    def coords(self, flat: int) -> tuple[int, ...]:
        return tuple(int(v) for v in np.unravel_index(flat, self.shape))

    def flat(self, s: int, row: int, col: int) -> int:
        return (s * self.rows + row) * self.cols + col

    def describe(self) -> str:
        """What is shown, in words (for titles: nothing is truncated silently)."""
        shape = "x".join(map(str, self.shape))
        (r0, r1), (c0, c1) = self.window
        parts = []
        if len(self.shape) == 1:
            parts.append(f"{shape} elements in rows of {self.wrap}")
        if len(self.shape) >= 3:
            total = int(np.prod(self.shape[:-2]))
            which = "all" if len(self.slices) == total else f"{len(self.slices)} of"
            parts.append(f"{which} {total} slices over the leading dims")
        if self.full_window:
            parts.append(f"all {r1 * c1 if len(self.shape) != 1 else self.shape[0]} elements"
                         + (" per slice" if len(self.shape) >= 3 else ""))  # fmt: skip
        else:
            grid = f"{self.rows}x{self.cols}"
            parts.append(f"window rows {r0}-{r1 - 1}, cols {c0}-{c1 - 1} of {grid}")
        if self.aggregated:
            br, bc = self.block
            dr, dc = self.drawn
            parts.append(f"each cell = {br}x{bc} elements ({dr}x{dc} cells)")
        else:
            parts.append("one cell per element")
        return "; ".join(parts)


def parse_window(text: str) -> Window:
    """``"r0:r1,c0:c1"`` (half-open ranges; an empty side means all) -> window.

    Examples:
        >>> parse_window("0:16,8:24")
        ((0, 16), (8, 24))
    """
    try:
        rows, cols = text.split(",")
        (a, b), (c, d) = rows.split(":"), cols.split(":")
        return ((int(a), int(b)), (int(c), int(d)))
    except ValueError:
        raise DrawError(
            f"--window must look like r0:r1,c0:c1 (e.g. 0:16,0:32), not {text!r}."
        ) from None


def check_window(window: Any, rows: int, cols: int) -> Window:
    """The drawn window ``((r0, r1), (c0, c1))`` of a ``rows x cols`` grid: all of it for
    None, else ``window`` (pairs, or ``"r0:r1,c0:c1"`` text) checked to lie inside the grid.

    Examples:
        >>> check_window("0:2,4:8", 16, 32)
        ((0, 2), (4, 8))
    """
    if window is None:
        return ((0, rows), (0, cols))
    if isinstance(window, str):
        window = parse_window(window)
    try:
        rows_range, cols_range = window
        r0, r1 = (int(v) for v in rows_range)
        c0, c1 = (int(v) for v in cols_range)
    except (TypeError, ValueError):
        raise DrawError(
            f"Argument 'window' must be ((r0, r1), (c0, c1)) or 'r0:r1,c0:c1', not {window!r}."
        ) from None
    if not (0 <= r0 < r1 <= rows and 0 <= c0 < c1 <= cols):
        raise DrawError(
            f"Argument 'window' must lie within the {rows}x{cols} grid with r0 < r1 and "
            f"c0 < c1 (half-open ranges), not rows {r0}:{r1}, cols {c0}:{c1}."
        )
    return ((r0, r1), (c0, c1))


def check_max_cells(max_cells: object) -> int:
    if isinstance(max_cells, bool) or not isinstance(max_cells, int) or max_cells < 1:
        raise DrawError(f"Argument 'max_cells' must be a positive int, not {max_cells!r}.")
    return max_cells


def aggregation(rows: int, cols: int, budget: int) -> tuple[int, int]:
    """The smallest power-of-2 block (as square as possible in drawn cells) that draws a
    ``rows x cols`` window in at most ``budget`` cells.

    Examples:
        >>> aggregation(256, 256, 1024), aggregation(8, 512, 64)
        ((8, 8), (1, 64))
    """
    br = bc = 1
    while -(-rows // br) * -(-cols // bc) > budget:
        dr, dc = -(-rows // br), -(-cols // bc)
        if (dr > dc or dc == 1) and dr > 1:
            br *= 2
        else:
            bc *= 2
    return br, bc


def plan_grid(
    shape: Sequence[int],
    window: Any,
    max_cells: int,
    leading: Sequence[int] | None = None,
    wrap: int = WRAP,
) -> GridPlan:
    """Decide what of a tensor of ``shape`` is drawn (see the module docstring)."""
    shape = tuple(int(s) for s in shape)
    max_cells = check_max_cells(max_cells)
    wrap_width: int | None = None
    if len(shape) == 1:
        wrap_width = min(shape[0], wrap)
        rows, cols = shape[0] // wrap_width, wrap_width
    else:
        rows, cols = shape[-2], shape[-1]
    lead = shape[:-2]
    total = int(np.prod(lead)) if lead else 1
    if leading is not None:
        if not lead:
            raise DrawError(
                f"Argument 'leading' selects a slice of a rank 3+ tensor; this one has shape "
                f"{list(shape)}."
            )
        index = tuple(int(v) for v in leading)
        if len(index) != len(lead) or any(not 0 <= v < s for v, s in zip(index, lead)):
            raise DrawError(
                f"Argument 'leading' must give {len(lead)} index(es) within {list(lead)} (the "
                f"leading dims of {list(shape)}), not {list(index)}."
            )
        slices: tuple[int, ...] = (int(np.ravel_multi_index(index, lead)),)
    else:
        if total > MAX_SLICES:
            raise DrawError(
                f"The tensor {list(shape)} has {total} 2-D slices over its leading dims; at "
                f"most {MAX_SLICES} are drawn at once. Pick one with leading=(i, ...) "
                f"(command line: --slice i,...)."
            )
        slices = tuple(range(total))
    win = check_window(window, rows, cols)
    budget = max_cells // len(slices)
    if budget < 1:
        raise DrawError(
            f"Argument 'max_cells' ({max_cells}) is smaller than the {len(slices)} slices drawn."
        )
    (r0, r1), (c0, c1) = win
    block = aggregation(r1 - r0, c1 - c0, budget)
    return GridPlan(shape, rows, cols, wrap_width, slices, win, block)


# ---------------------------------------------------------------------- the panel


@dataclass
class GridCellInfo:
    slice: int
    row: int  # drawn row / col
    col: int
    holders: np.ndarray  # input indices, Triton's order


def group_cells(hw: Hardware, plan: GridPlan) -> list[GridCellInfo]:
    """The drawn cells (slice-major, row-major) with the inputs that hold their elements."""
    per = plan.rows * plan.cols
    s = hw.flat // per
    rem = hw.flat % per
    row, col = rem // plan.cols, rem % plan.cols
    (r0, r1), (c0, c1) = plan.window
    br, bc = plan.block
    dr, dc = plan.drawn
    position = np.full(int(np.prod(plan.shape[:-2])) if len(plan.shape) > 2 else 1, -1)
    for p, sl in enumerate(plan.slices):
        position[sl] = p
    pos = position[s]
    inside = (pos >= 0) & (row >= r0) & (row < r1) & (col >= c0) & (col < c1)
    cell = np.where(inside, pos * (dr * dc) + ((row - r0) // br) * dc + (col - c0) // bc, -1)
    order = np.argsort(cell, kind="stable")
    sorted_cells = cell[order]
    n = len(plan.slices) * dr * dc
    starts = np.searchsorted(sorted_cells, np.arange(n), side="left")
    ends = np.searchsorted(sorted_cells, np.arange(n), side="right")
    out = []
    for k in range(n):
        p, rest = divmod(k, dr * dc)
        out.append(GridCellInfo(p, rest // dc, rest % dc, order[starts[k] : ends[k]]))
    return out


def _coord_text(coords: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, coords)) + ")"


def _range_text(a: int, b: int) -> str:
    return str(a) if b - a == 1 else f"{a}-{b - 1}"


@dataclass
class Panel:
    items: list[Item]
    width: float
    height: float
    info: dict[str, object]


@dataclass(frozen=True)
class _GridSizes:
    """Cell sizes, label column, row and column labels of a grid panel."""

    cell_w: float
    cell_h: float
    label_w: float
    row_labels: list[str]
    col_texts: list[str]
    col_step: int  # every col_step-th column is labelled (labels wider than cells)


def _cell_labels(hw: Hardware, plan: GridPlan, cells: list[GridCellInfo]) -> list[list[str]]:
    """The text of each cell: its holder (``+n`` more), or its warps and lanes when
    aggregated; ``-`` for no holder."""
    labels: list[list[str]] = []
    for cell in cells:
        h = cell.holders
        if not plan.aggregated:
            if len(h) == 0:
                labels.append(["-"])
            else:
                more = f" +{len(h) - 1}" if len(h) > 1 else ""
                labels.append([hw.name(int(h[0])) + more])
        elif len(h) == 0:
            labels.append(["-", ""])
        else:
            labels.append(
                ["w" + style.short_ranges(hw.warp[h], 11), "L" + style.short_ranges(hw.lane[h], 11)]
            )
    return labels


def _grid_row_label(plan: GridPlan, i: int) -> str:
    (r0, r1), _ = plan.window
    br = plan.block[0]
    r = r0 + i * br
    if plan.wrap is not None:
        return str(r * plan.wrap)
    return str(r) if br == 1 else f"{r}-{min(r + br, r1) - 1}"


def _grid_col_label(plan: GridPlan, j: int) -> str:
    c = plan.window[1][0] + j * plan.block[1]
    return f"+{c}" if plan.wrap is not None else str(c)


def _grid_sizes(plan: GridPlan, labels: list[list[str]]) -> _GridSizes:
    """Cell width and height from the longest label; which columns get a label."""
    dr, dc = plan.drawn
    n_lines = 1 if not plan.aggregated else 2
    longest = max((text_width(t, style.CELL_FONT) for lab in labels for t in lab), default=0)
    cw = max(30.0, longest + 2 * style.PAD + 2)
    row_labels = [_grid_row_label(plan, i) for i in range(dr)]
    col_texts = [_grid_col_label(plan, j) for j in range(dc)]
    col_w = max(text_width(t, style.SMALL_FONT) for t in col_texts) + 4
    col_step = 1
    while col_step * cw < col_w:
        col_step *= 2
    return _GridSizes(
        cell_w=cw,
        cell_h=n_lines * style.CELL_FONT * style.LINE_GAP + 2 * style.PAD + 2 + _BAR / 2,
        label_w=max(text_width(t, style.SMALL_FONT) for t in row_labels) + 8,
        row_labels=row_labels,
        col_texts=col_texts,
        col_step=col_step,
    )


def text_lines(
    lines: Iterable[str], x: float, y: float, size: float, **attrs: Any
) -> tuple[list[Item], float]:
    """``lines`` as left-aligned text at ``x``, one line height (``size * LINE_GAP``) apart
    below ``y``, with the :class:`Text` attributes ``attrs``; returns the items and the last
    baseline (``y`` when there are no lines).

    Examples:
        >>> items, y = text_lines(["one", "two"], 16, 16.0, 10.0, cls="note")
        >>> [(item.text, item.y, item.cls) for item in items], y
        ([('one', 29.0, 'note'), ('two', 42.0, 'note')], 42.0)
    """
    items: list[Item] = []
    for line in lines:
        y += size * style.LINE_GAP
        items.append(Text(x, y, line, size, "start", **attrs))
    return items, y


def figure_heading(
    title_lines: Sequence[str], note_lines: Sequence[str], margin: float
) -> tuple[list[Item], float]:
    """A figure's bold title lines, then its note lines, at ``margin`` from the top left;
    returns the items and the last baseline.

    Examples:
        >>> items, y = figure_heading(["Title"], ["a note"], 16.0)
        >>> [(item.text, item.cls) for item in items], round(y, 1)
        ([('Title', 'title'), ('a note', 'note')], 48.5)
    """
    items, y = text_lines(title_lines, margin, margin, style.TITLE_FONT, weight="bold", cls="title")
    notes, y = text_lines(note_lines, margin, y, style.NOTE_FONT, cls="note")
    return items + notes, y


def panel_header(caption: Sequence[str], label_w: float, axis: str) -> tuple[list[Item], float]:
    """A panel's bold caption lines, then its muted axis line at ``label_w`` (what the
    columns and rows are); returns the items and their height.

    Examples:
        >>> items, height = panel_header(["a caption"], 20.0, "columns: dim1, rows: dim0")
        >>> [item.text for item in items], round(height, 1)
        (['a caption', 'columns: dim1, rows: dim0'], 30.0)
    """
    items, y = text_lines(caption, 0, 0.0, style.NOTE_FONT, weight="bold")
    if caption:
        y += 4
    y += style.SMALL_FONT * style.LINE_GAP
    items.append(Text(label_w, y, axis, style.SMALL_FONT, "start", fill=style.MUTED))
    return items, y


def _grid_header(
    plan: GridPlan, sizes: _GridSizes, caption: Sequence[str]
) -> tuple[list[Item], float]:
    """The caption and the axis line; returns the items and their height."""
    axis_rows = (
        f"dim0 in steps of {plan.wrap}" if plan.wrap is not None else f"dim{len(plan.shape) - 2}"
    )
    axis_cols = "offset in row" if plan.wrap is not None else f"dim{len(plan.shape) - 1}"
    return panel_header(
        caption, sizes.label_w, f"columns: {axis_cols} \u2192, rows: {axis_rows} \u2193"
    )


def _warp_boxes(warps: list[int], x0: float, y0: float, cw: float, ch: float) -> list[Item]:
    """A cell's box in its one warp's colour; with no holder or several warps, white with a
    bar of the warps' colours."""
    if len(warps) == 1:
        fill = style.warp_colour(warps[0])
        return [Rect(x0, y0, cw, ch, fill, style.CELL_BORDER, 1.0, "cell")]
    boxes: list[Item] = [Rect(x0, y0, cw, ch, style.MIXED, "#BBBBBB", 0.6, "cell")]
    if len(warps) > 1:
        shown = warps[: len(style.WARP_PALETTE)]
        sw = (cw - 2) / len(shown)
        for n, w in enumerate(shown):
            boxes.append(Rect(x0 + 1 + n * sw, y0 + ch - _BAR - 1, sw, _BAR,
                              style.warp_colour(w), cls="stripe"))  # fmt: skip
    return boxes


def _cell_extent(plan: GridPlan, cell: GridCellInfo) -> tuple[tuple[int, int], tuple[int, int]]:
    """The half-open rows and columns of the slice's elements a drawn cell covers."""
    (r0, r1), (c0, c1) = plan.window
    br, bc = plan.block
    er0 = r0 + cell.row * br
    ec0 = c0 + cell.col * bc
    return (er0, min(er0 + br, r1)), (ec0, min(ec0 + bc, c1))


def _grid_cell(
    hw: Hardware,
    plan: GridPlan,
    sl: int,
    cell: GridCellInfo,
    label: list[str],
    origin: tuple[float, float],
    sizes: _GridSizes,
    marked: np.ndarray | None,
    extra: Callable[[int], list[str]] | None,
) -> tuple[Group, bool]:
    """One cell of slice ``sl`` at ``origin``: warp colour (or stripes), the wavefront mark,
    its label and tooltip; returns the group and whether it is marked."""
    x0, y0 = origin
    cw, ch = sizes.cell_w, sizes.cell_h
    h = cell.holders
    warps = sorted({int(w) for w in hw.warp[h]}) if len(h) else []
    children = _warp_boxes(warps, x0, y0, cw, ch)
    (er0, er1), (ec0, ec1) = _cell_extent(plan, cell)
    is_marked = False
    if marked is not None:
        grid = marked.reshape(-1, plan.rows, plan.cols)[sl]
        is_marked = bool(grid[er0:er1, ec0:ec1].any())
    if is_marked:
        children.append(
            Rect(x0 + 1.5, y0 + 1.5, cw - 3, ch - 3, "none", style.WAVEFRONT_EDGE, 2.5,
                 "wavefront")
        )  # fmt: skip
    base = y0 + style.PAD + 1 + style.CELL_FONT * 0.95
    for n, text in enumerate(label):
        children.append(
            Text(x0 + cw / 2, base + n * style.CELL_FONT * style.LINE_GAP, text,
                 style.CELL_FONT, cls="label")
        )  # fmt: skip
    tooltip = _tooltip(hw, plan, sl, (er0, er1), (ec0, ec1), h, extra)
    return Group(children, tooltip, "tip"), is_marked


def grid_panel(
    hw: Hardware,
    plan: GridPlan,
    caption: Sequence[str] = (),
    marked: np.ndarray | None = None,
    extra: Callable[[int], list[str]] | None = None,
) -> Panel:
    """Draw the planned grid.  ``marked`` (bool per tensor element) outlines elements (a
    wavefront); ``extra(flat)`` adds tooltip lines (shared offset, bank)."""
    cells = group_cells(hw, plan)
    labels = _cell_labels(hw, plan, cells)
    sizes = _grid_sizes(plan, labels)
    cw, ch = sizes.cell_w, sizes.cell_h
    dr, dc = plan.drawn
    items, y = _grid_header(plan, sizes, caption)
    info_marked = 0
    for p, sl in enumerate(plan.slices):
        if len(plan.shape) >= 3:
            y += style.NOTE_FONT * style.LINE_GAP + 2
            items.append(Text(0, y, plan.slice_name(sl), style.NOTE_FONT, "start", weight="bold"))
        y += style.SMALL_FONT * style.LINE_GAP
        for j in range(0, dc, sizes.col_step):
            items.append(Text(sizes.label_w + (j + 0.5) * cw, y, sizes.col_texts[j],
                              style.SMALL_FONT, fill=style.MUTED))  # fmt: skip
        top = y + 3
        for i in range(dr):
            items.append(
                Text(sizes.label_w - 4, top + (i + 0.5) * ch + 0.35 * style.SMALL_FONT,
                     sizes.row_labels[i], style.SMALL_FONT, "end", fill=style.MUTED)
            )  # fmt: skip
        for k in range(p * dr * dc, (p + 1) * dr * dc):
            origin = (sizes.label_w + cells[k].col * cw, top + cells[k].row * ch)
            group, is_marked = _grid_cell(
                hw, plan, sl, cells[k], labels[k], origin, sizes, marked, extra
            )
            info_marked += is_marked
            items.append(group)
        y = top + dr * ch
    info: dict[str, object] = {
        "cells": plan.cells,
        "shown": plan.describe(),
        "window": [list(plan.window[0]), list(plan.window[1])],
        "aggregation": None
        if not plan.aggregated
        else {"rows": plan.block[0], "cols": plan.block[1]},
        "slices": len(plan.slices),
        "marked_cells": info_marked,
        "warps": sorted({int(w) for w in np.unique(hw.warp)}),
    }
    return Panel(items, sizes.label_w + dc * cw, y, info)


def _tooltip(
    hw: Hardware,
    plan: GridPlan,
    sl: int,
    rows: tuple[int, int],
    cols: tuple[int, int],
    holders: np.ndarray,
    extra: Callable[[int], list[str]] | None,
) -> str:
    (er0, er1), (ec0, ec1) = rows, cols
    first = plan.flat(sl, er0, ec0)
    lines: list[str] = []
    if not plan.aggregated:
        lines.append(f"element {_coord_text(plan.coords(first))}")
        if len(holders) == 0:
            lines.append("held by no thread")
        else:
            copies = f" ({len(holders)} broadcast copies)" if len(holders) > 1 else ""
            lines.append("held by" + copies + ":")
            lines += ["  " + hw.describe(int(i)) for i in holders]
        if extra is not None:
            lines += extra(first)
        return "\n".join(lines)
    last = plan.flat(sl, er1 - 1, ec1 - 1)
    n = (er1 - er0) * (ec1 - ec0)
    lines.append(
        f"{n} elements {_coord_text(plan.coords(first))} to {_coord_text(plan.coords(last))}"
        f" (grid rows {_range_text(er0, er1)}, cols {_range_text(ec0, ec1)})"
    )
    if len(holders) == 0:
        lines.append("held by no thread")
        return "\n".join(lines)
    lines.append(f"blocks: {style.ranges(hw.block[holders])}")
    lines.append(f"warps: {style.ranges(hw.warp[holders])}")
    lines.append(f"lanes: {style.ranges(hw.lane[holders])}")
    lines.append(f"registers: {style.ranges(hw.register[holders])}")
    threads = hw.lane[holders] + hw.warp[holders] * hw.lanes
    lines.append(f"threads: {style.ranges(threads)}")
    if len(holders) > n:
        lines.append(f"{len(holders)} hardware indices (broadcast copies)")
    return "\n".join(lines)


def warp_legend(warps: Sequence[int], lanes: int, x: float, y: float) -> tuple[list[Item], float]:
    """Swatches ``warp k (T..-..)`` in rows; returns the items and the height used."""
    items: list[Item] = []
    shown = sorted(set(warps))[: len(style.WARP_PALETTE)]
    sx = x
    size = style.NOTE_FONT
    for w in shown:
        label = f"warp {w} (T{w * lanes}-{w * lanes + lanes - 1})"
        items.append(Rect(sx, y, 14, 14, style.warp_colour(w), "#888888", 0.8, "legend-swatch"))
        items.append(Text(sx + 19, y + 11, label, size, "start"))
        sx += 19 + text_width(label, size) + 16
    height = 18.0
    if len(set(warps)) > len(style.WARP_PALETTE):
        items.append(
            Text(x, y + 30, f"{len(set(warps))} warps: colours repeat every "
                 f"{len(style.WARP_PALETTE)} warps (the thread number T tells them apart)",
                 size, "start")
        )  # fmt: skip
        height += 18
    return items, height


def mark_elements(shape: Sequence[int], coords: np.ndarray) -> np.ndarray:
    """A bool per tensor element (row-major), True at ``coords`` (``[n, rank]``)."""
    marked = np.zeros(int(np.prod(shape)), dtype=bool)
    if len(coords):
        marked[np.ravel_multi_index(tuple(np.asarray(coords).T), tuple(shape))] = True
    return marked
