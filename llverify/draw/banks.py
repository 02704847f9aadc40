"""The bank map of a shared layout: 32-bit words in rows of ``banks`` banks (32, or 64 on
gfx950), each word labelled with the tensor elements stored in it, and optionally the first
wavefront of a register layout's access with its bank conflicts.

The wavefront is the one :func:`llverify.shared_memory.access.simulate_bank_conflicts` counts first
(counted by :mod:`llverify.shared_memory.wavefronts`):
warp 0, the first ld/st.shared instruction (registers ``0 .. elems_per_vec - 1`` of the
analysis' vector-permuted conversion) and the first pass (the lanes spanned by
``AccessAnalysis.pass_lanes``).  Its words are bucketed by bank exactly as the simulator
does (distinct 32-bit words; identical words broadcast): a bank with ``n > 1`` distinct
words costs ``n - 1`` extra wavefronts, and those words are the conflicting accesses.

Examples:
    >>> from llverify import LinearLayout
    >>> shared = LinearLayout.from_bases([("offset", [[0, 1], [0, 2], [1, 0]])], ["dim0", "dim1"])
    >>> model = bank_model(shared, 16, "nvidia")
    >>> model.words, model.rows, model.word_elements(1)
    (4, 1, [2, 3])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llverify.arguments import layout_argument, shared_layout_argument
from llverify.draw import style
from llverify.draw.grid import (
    BYTES_PER_ELEMENT,
    REMEDY,
    Panel,
    aggregation,
    check_max_cells,
    check_window,
    panel_header,
)
from llverify.draw.scene import DrawError, Group, Item, Rect, Text, text_width
from llverify.encodings.padded import PaddedLayout
from llverify.evaluate import check_enumeration, evaluate_all
from llverify.hardware import ANY_ELEMENT_BITS, PADDED_ELEMENT_BITS, Target, resolve_target
from llverify.layout import LinearLayout
from llverify.shared_memory.wavefronts import (
    bank_words,
    instruction_addresses,
    pass_conflicts,
    pass_span,
    word_bounds,
)

__all__ = ["BankModel", "Wavefront", "bank_model", "bank_panel", "wavefront"]


def _coord_text(coords: Sequence[int]) -> str:
    return "(" + ",".join(str(int(v)) for v in coords) + ")"


@dataclass(frozen=True)
class BankModel:
    """Where each element of a shared buffer lives: physical slots (element-sized, padding
    included), 32-bit words, banks and bank rows."""

    layout: LinearLayout  # offset -> tensor coordinates (block 0)
    element_bits: int
    target: Target
    shape: tuple[int, ...]
    slot_coords: np.ndarray  # [slots, rank]; -1 rows for padding
    slot_offset: np.ndarray  # logical offset of each slot; -1 for padding
    offset_slot: np.ndarray  # physical slot of each logical offset
    padded: bool
    blocks: int  # CTAs of the layout (block 0 is drawn)
    shared: LinearLayout | PaddedLayout  # the shared layout argument, normalised

    @property
    def banks(self) -> int:
        return self.target.banks

    @property
    def slots(self) -> int:
        return len(self.slot_offset)

    @property
    def words(self) -> int:
        return -(-self.slots * self.element_bits // 32)

    @property
    def rows(self) -> int:
        return -(-self.words // self.banks)

    def word_elements(self, word: int) -> list[int]:
        """Slots whose bits overlap 32-bit word ``word``."""
        b = self.element_bits
        first = (word * 32) // b
        last = ((word + 1) * 32 - 1) // b
        return [s for s in range(first, min(last, self.slots - 1) + 1)]

    def slot_text(self, slot: int, word: int) -> str:
        if self.slot_offset[slot] < 0:
            return "pad"
        text = _coord_text(self.slot_coords[slot])
        if self.element_bits > 32:
            half = word - (slot * self.element_bits) // 32
            text += ".lo" if half == 0 else ".hi"
        return text

    def slot_words(self, slot: int) -> range:
        first, last = word_bounds(slot, self.element_bits)
        return range(first, last + 1)


def _check_slots(slots: int) -> int:
    return check_enumeration(
        slots, BYTES_PER_ELEMENT, "drawing the shared buffer (every physical slot)", REMEDY
    )


def bank_model(
    shared_layout: Any, element_bits: int, target: str | Target = "nvidia", shape: Any = None
) -> BankModel:
    """The :class:`BankModel` of a shared layout (a LinearLayout with an ``offset`` in dim,
    a shared encoding or TTGIR text with ``shape``, or a padded shared layout)."""
    bits = ANY_ELEMENT_BITS.check(element_bits, error=DrawError)
    tgt = resolve_target(target, DrawError)
    model = shared_layout_argument(shared_layout, shape)
    if isinstance(model, PaddedLayout):
        PADDED_ELEMENT_BITS.check(bits, error=DrawError)
        linear = model.linear
        layout = linear.sublayout(["offset"], linear.get_out_dim_names())
        slots = _check_slots(int(model.padded_size))
        table = np.asarray(model.physical_table(), dtype=np.int64)
        blocks = model.num_blocks
    else:
        full = model
        extra = [d for d in full.get_in_dim_names() if d not in ("offset", "block")]
        if not full.has_in_dim("offset") or extra:
            raise DrawError(
                "Argument 'shared_layout' must be a shared layout (in dims 'offset' and "
                f"optionally 'block'), not one with in dims {full.get_in_dim_names()}."
            )
        blocks = full.get_in_dim_size("block") if full.has_in_dim("block") else 1
        layout = full.sublayout(["offset"], full.get_out_dim_names())
        slots = _check_slots(layout.get_in_dim_size("offset"))
        table = np.arange(slots, dtype=np.int64)
    values = evaluate_all(layout)
    coords = np.stack(
        [np.asarray(values[d], dtype=np.int64) for d in layout.get_out_dim_names()], axis=1
    )
    slot_coords = np.full((slots, coords.shape[1]), -1, dtype=np.int64)
    slot_offset = np.full(slots, -1, dtype=np.int64)
    slot_coords[table] = coords
    slot_offset[table] = np.arange(len(table))
    return BankModel(
        layout, bits, tgt, tuple(layout.get_out_dim_sizes()), slot_coords, slot_offset,
        table, isinstance(model, PaddedLayout), blocks, model,
    )  # fmt: skip


# ---------------------------------------------------------------------- the wavefront


@dataclass(frozen=True)
class Access:
    lane: int
    register: int  # the register layout's own register index
    offset: int  # logical offset
    slot: int  # physical element address
    coords: tuple[int, ...]
    words: tuple[int, ...]


@dataclass(frozen=True)
class Wavefront:
    """The first wavefront of a register layout's shared-memory access."""

    analysis: Any  # llverify.shared_memory.access.AccessAnalysis
    lanes: tuple[int, ...]
    registers: tuple[int, ...]  # register-layout registers of the first instruction (lane 0)
    accesses: tuple[Access, ...]
    bank_words: dict[int, tuple[int, ...]]  # bank -> distinct words accessed

    @property
    def conflicts(self) -> int:
        """Extra wavefronts of this pass: the largest bank's distinct words minus 1."""
        return pass_conflicts(self.bank_words)

    @property
    def conflicting_banks(self) -> list[int]:
        return sorted(b for b, w in self.bank_words.items() if len(w) > 1)

    def word_lanes(self) -> dict[int, set[int]]:
        out: dict[int, set[int]] = {}
        for a in self.accesses:
            for w in a.words:
                out.setdefault(w, set()).add(a.lane)
        return out


def wavefront(register_layout: Any, model: BankModel, shape: Sequence[int]) -> Wavefront:
    """Analyse ``register_layout`` against the model's shared layout and take its first
    wavefront."""
    from llverify.shared_memory.access import analyse_access

    reg = layout_argument(register_layout, shape, "register_layout")
    analysis = analyse_access(reg, model.shared, model.element_bits, model.target)
    offsets = instruction_addresses(analysis.conversion, analysis.elems_per_vec)
    lanes = pass_span(analysis.pass_lanes)
    # the register layout's own register of each (lane, element) of warp 0
    own: dict[tuple[int, tuple[int, ...]], int] = {}
    reg_full = reg
    out0 = reg.get_out_dim_names()[0]
    for d in ("register", "lane", "warp", "block"):
        if not reg_full.has_in_dim(d):
            reg_full = reg_full * LinearLayout.zeros_1d(1, d, out0)
    reg_full = reg_full.transpose_ins(["register", "lane", "warp", "block"])
    n_reg = reg_full.get_in_dim_size("register")
    n_lane = reg_full.get_in_dim_size("lane")
    values = evaluate_all(reg_full)
    outs = reg.get_out_dim_names()
    for i in range(n_reg * n_lane):  # warp 0, block 0 come first
        r, lane = i % n_reg, i // n_reg
        key = (lane, tuple(int(values[o][i]) for o in outs))
        own.setdefault(key, r)
    accesses = []
    for lane in lanes:
        for k in range(analysis.elems_per_vec):
            offset = int(offsets[0, lane, k])
            slot = int(model.offset_slot[offset])
            coords = tuple(int(v) for v in model.slot_coords[slot])
            accesses.append(
                Access(lane, own.get((lane, coords), -1), offset, slot, coords,
                       tuple(model.slot_words(slot)))
            )  # fmt: skip
    registers = tuple(a.register for a in accesses if a.lane == lanes[0])
    words = bank_words((w for a in accesses for w in a.words), model.banks)
    return Wavefront(analysis, lanes, registers, tuple(accesses), words)


def wavefront_summary(wave: Wavefront, who: str) -> list[str]:
    """Title lines: which wavefront is highlighted and what the analysis says."""
    a = wave.analysis
    own = [r for r in wave.registers if r >= 0]
    regs = ("register " if len(own) == 1 else "registers ") + style.ranges(own)
    lines = [
        f"highlighted: the first wavefront of {who}: warp 0, instruction 0 "
        f"({a.access_bits}-bit vectors, {regs} of lane {wave.lanes[0]}), pass 0 of "
        f"{a.passes} = lanes {style.ranges(wave.lanes)}",
    ]
    if wave.conflicts:
        worst = max(wave.bank_words.values(), key=len)
        banks = style.ranges(wave.conflicting_banks)
        plural = "s" if len(wave.conflicting_banks) > 1 else ""
        lines.append(
            f"this wavefront: {len(worst)} distinct words in one bank -> {wave.conflicts} "
            f"conflict(s) (the accesses to bank{plural} {banks} outlined in red)"
        )
    else:
        lines.append("this wavefront: no bank conflict (every bank at most one distinct word)")
    triton = "n/a" if a.triton_conflicts is None else a.triton_conflicts
    lines.append(
        f"analysis over every wavefront: {a.hardware_conflicts} conflict(s) per wavefront "
        f"(hardware), Triton's count {triton}; {a.store_wavefronts} wavefronts in all"
    )
    if wave.conflicts != a.simulated_conflicts:
        lines.append(
            f"note: the passes differ; the worst pass has {a.simulated_conflicts} conflict(s) "
            f"(lanes {style.ranges(a.colliding_lanes)})"
        )
    return lines


# ---------------------------------------------------------------------- the panel


@dataclass(frozen=True)
class BankPlan:
    window: tuple[tuple[int, int], tuple[int, int]]  # bank rows, banks
    rows_per_cell: int

    @property
    def drawn(self) -> tuple[int, int]:
        (r0, r1), (c0, c1) = self.window
        return -(-(r1 - r0) // self.rows_per_cell), c1 - c0

    @property
    def cells(self) -> int:
        r, c = self.drawn
        return r * c


def plan_banks(model: BankModel, window: object, max_cells: int) -> BankPlan:
    max_cells = check_max_cells(max_cells)
    win = check_window(window, model.rows, model.banks)
    (r0, r1), (c0, c1) = win
    banks = c1 - c0
    if max_cells < banks:
        raise DrawError(
            f"Argument 'max_cells' ({max_cells}) must be at least the banks drawn ({banks}): "
            "bank maps aggregate rows, never banks; draw fewer banks with a window."
        )
    br, bc = aggregation(r1 - r0, 1, max_cells // banks)
    assert bc == 1
    return BankPlan(win, br)


def describe_banks(model: BankModel, plan: BankPlan) -> str:
    (r0, r1), (c0, c1) = plan.window
    shape = "x".join(map(str, model.shape))
    per = 32 // model.element_bits if model.element_bits < 32 else None
    if per:
        unit = f"{per} elements per 4-byte bank word"
    else:
        unit = "one element per word" if model.element_bits == 32 else "two words per element"
    parts = [
        f"{shape} x {model.element_bits}-bit = {model.slots * model.element_bits // 8} bytes"
        + (" (with padding)" if model.padded else "")
        + f", {model.rows} rows of {model.banks} banks, {unit}"
    ]
    if plan.window == ((0, model.rows), (0, model.banks)):
        parts.append("all rows shown")
    else:
        parts.append(f"window: bank rows {r0}-{r1 - 1}, banks {c0}-{c1 - 1}")
    if plan.rows_per_cell > 1:
        parts.append(f"each cell = {plan.rows_per_cell} consecutive rows of one bank")
    if model.blocks > 1:
        parts.append(f"CTA 0 of {model.blocks}")
    return "; ".join(parts)


@dataclass(frozen=True)
class _BankCell:
    """One drawn cell: grid position, the words it covers, its text lines and lanes."""

    row: int
    col: int
    words: list[int]
    lines: list[str]
    lanes: list[int]


@dataclass(frozen=True)
class _BankSizes:
    """Cell sizes, label column and row labels of a bank panel."""

    cell_w: float
    cell_h: float
    line_h: float
    n_lines: int
    label_w: float
    row_labels: list[str]


def _cell_lines(model: BankModel, words: list[int], rows_per_cell: int) -> list[str]:
    """The text of a cell: the elements of its word, or the first element and a count."""
    if not words:
        return []
    if rows_per_cell == 1:
        lines = [model.slot_text(s, words[0]) for s in model.word_elements(words[0])]
        return ["pad"] if all(text == "pad" for text in lines) else lines
    slots = [s for w in words for s in model.word_elements(w)]
    real = [s for s in slots if model.slot_offset[s] >= 0]
    return [model.slot_text(real[0], words[0]) if real else "pad", f"+{len(slots) - 1} more"]


def _bank_cells(model: BankModel, plan: BankPlan, wave: Wavefront | None) -> list[_BankCell]:
    """Every drawn cell, row by row: the words of its bank rows and the lanes accessing them."""
    (r0, r1), (c0, _) = plan.window
    k = plan.rows_per_cell
    dr, dc = plan.drawn
    lanes_of = wave.word_lanes() if wave is not None else {}
    cells = []
    for i in range(dr):
        for j in range(dc):
            bank = c0 + j
            rows = range(r0 + i * k, min(r0 + (i + 1) * k, r1))
            words = [r * model.banks + bank for r in rows if r * model.banks + bank < model.words]
            lanes = sorted({ln for w in words for ln in lanes_of.get(w, ())})
            cells.append(_BankCell(i, j, words, _cell_lines(model, words, k), lanes))
    return cells


def _bank_sizes(plan: BankPlan, cells: list[_BankCell], has_lanes: bool) -> _BankSizes:
    """Cell width and height from the longest text, and the row labels' column."""
    (r0, r1), _ = plan.window
    k = plan.rows_per_cell
    n_lines = max((len(c.lines) for c in cells), default=1)
    longest = max(
        [text_width(t, style.SMALL_FONT + 1) for c in cells for t in c.lines]
        + [text_width("L" + style.short_ranges(c.lanes, 10), style.SMALL_FONT + 1) for c in cells],
        default=20,
    )
    line_h = (style.SMALL_FONT + 1) * style.LINE_GAP
    row_labels = [
        str(r0 + i * k) if k == 1 else f"{r0 + i * k}-{min(r0 + (i + 1) * k, r1) - 1}"
        for i in range(plan.drawn[0])
    ]
    return _BankSizes(
        cell_w=max(34.0, longest + 2 * style.PAD + 2),
        cell_h=n_lines * line_h + (line_h if has_lanes else 0) + 2 * style.PAD + 2,
        line_h=line_h,
        n_lines=n_lines,
        label_w=max(text_width(t, style.SMALL_FONT) for t in row_labels + ["row"]) + 8,
        row_labels=row_labels,
    )


def _bank_header(
    model: BankModel, plan: BankPlan, sizes: _BankSizes, caption: Sequence[str]
) -> tuple[list[Item], float]:
    """The caption, the axis line and the bank numbers; returns the items and their height."""
    label_w, cw = sizes.label_w, sizes.cell_w
    items, y = panel_header(
        caption,
        label_w,
        f"columns: banks \u2192, rows: bank rows \u2193 (one row = {model.banks * 4} bytes)",
    )
    y += style.SMALL_FONT * style.LINE_GAP
    c0 = plan.window[1][0]
    for j in range(plan.drawn[1]):
        items.append(Text(label_w + (j + 0.5) * cw, y, str(c0 + j), style.SMALL_FONT,
                          fill=style.MUTED))  # fmt: skip
    items.append(Text(label_w - 4, y, "row", style.SMALL_FONT, "end", fill=style.MUTED))
    return items, y + 3


def _accesses_by_word(wave: Wavefront | None) -> dict[int, list[Access]]:
    """The wavefront's accesses touching each word (none without a wavefront)."""
    access_of: dict[int, list[Access]] = {}
    for a in wave.accesses if wave is not None else ():
        for w in a.words:
            access_of.setdefault(w, []).append(a)
    return access_of


def _bank_cell_children(
    model: BankModel,
    cell: _BankCell,
    sizes: _BankSizes,
    x0: float,
    y0: float,
    accessed: bool,
    conflict: bool,
) -> list[Item]:
    """One cell's drawing: its box (padding, accessed or idle), the conflict outline, its
    element lines and the lanes accessing it."""
    cw, ch, line_h = sizes.cell_w, sizes.cell_h, sizes.line_h
    is_pad = all(model.slot_offset[s] < 0 for w in cell.words for s in model.word_elements(w))
    fill = style.PADDING if is_pad else (style.WAVEFRONT if accessed else style.BANK_EMPTY)
    children: list[Item] = [Rect(x0, y0, cw, ch, fill, style.BANK_BORDER, 0.6, "bank")]
    if conflict:
        children.append(
            Rect(x0 + 1.25, y0 + 1.25, cw - 2.5, ch - 2.5, "none", style.CONFLICT, 2.5,
                 "conflict")
        )  # fmt: skip
    base = y0 + style.PAD + 1 + (style.SMALL_FONT + 1) * 0.95
    for n, text in enumerate(cell.lines):
        children.append(Text(x0 + cw / 2, base + n * line_h, text, style.SMALL_FONT + 1,
                             fill=style.MUTED if text == "pad" else style.TEXT,
                             cls="coord"))  # fmt: skip
    if cell.lanes:
        children.append(
            Text(x0 + cw / 2, base + sizes.n_lines * line_h,
                 "L" + style.short_ranges(cell.lanes, 10), style.SMALL_FONT + 1,
                 weight="bold", fill=style.WAVEFRONT_EDGE, cls="lanes")
        )  # fmt: skip
    return children


def _bank_cell_items(
    model: BankModel,
    plan: BankPlan,
    wave: Wavefront | None,
    cells: list[_BankCell],
    sizes: _BankSizes,
    top: float,
) -> tuple[list[Item], int]:
    """The row labels and the cells (with their tooltips); returns the items and the number
    of cells outlined as conflicts."""
    cw, ch = sizes.cell_w, sizes.cell_h
    lanes_of = wave.word_lanes() if wave is not None else {}
    conflicting = set(wave.conflicting_banks) if wave is not None else set()
    access_of = _accesses_by_word(wave)
    items: list[Item] = []
    conflict_cells = 0
    for cell in cells:
        x0 = sizes.label_w + cell.col * cw
        y0 = top + cell.row * ch
        if cell.col == 0:
            items.append(Text(sizes.label_w - 4, y0 + ch / 2 + 0.35 * style.SMALL_FONT,
                              sizes.row_labels[cell.row], style.SMALL_FONT, "end",
                              fill=style.MUTED))  # fmt: skip
        if not cell.words:
            continue
        bank = plan.window[1][0] + cell.col
        accessed = any(w in lanes_of for w in cell.words)
        # outlined: a cell of the wavefront whose bank serves several distinct words
        conflict = accessed and bank in conflicting
        conflict_cells += conflict
        children = _bank_cell_children(model, cell, sizes, x0, y0, accessed, conflict)
        tooltip = _bank_tooltip(model, cell.words, bank, access_of, conflicting)
        items.append(Group(children, tooltip, "tip"))
    return items, conflict_cells


def _bank_counts(
    plan: BankPlan, wave: Wavefront, sizes: _BankSizes, y: float
) -> tuple[list[Item], dict[str, int], float]:
    """The line under the map: distinct words per bank in the wavefront (red: conflicts);
    returns the items, the counts by bank and the new bottom."""
    y += 4
    line_y = y + style.SMALL_FONT * style.LINE_GAP
    items: list[Item] = [
        Text(sizes.label_w - 4, line_y, "words", style.SMALL_FONT, "end", fill=style.MUTED)
    ]
    counts: dict[str, int] = {}
    c0 = plan.window[1][0]
    for j in range(plan.drawn[1]):
        bank = c0 + j
        n = len(wave.bank_words.get(bank, ()))
        if n == 0:
            continue
        counts[str(bank)] = n
        red = n > 1
        items.append(
            Group(
                [Text(sizes.label_w + (j + 0.5) * sizes.cell_w, line_y,
                      str(n) if not red else f"x{n}",
                      style.SMALL_FONT + (1 if red else 0),
                      weight="bold" if red else "normal",
                      fill=style.CONFLICT if red else style.MUTED,
                      cls="conflict-count" if red else "bank-count")],
                f"bank {bank}: {n} distinct word(s) in this wavefront: "
                + ", ".join(str(w) for w in wave.bank_words[bank])
                + (f" -> {n - 1} extra wavefront(s)" if red else ""),
                "tip",
            )
        )  # fmt: skip
    return items, counts, line_y + 4


def _bank_info(
    model: BankModel,
    plan: BankPlan,
    wave: Wavefront | None,
    cells: list[_BankCell],
    conflict_cells: int,
    counts: dict[str, int],
) -> dict[str, object]:
    """The panel's ``info``: what is shown and, with a wavefront, its counts."""
    k = plan.rows_per_cell
    info: dict[str, object] = {
        "cells": plan.cells,
        "shown": describe_banks(model, plan),
        "window": [list(plan.window[0]), list(plan.window[1])],
        "aggregation": None if k == 1 else {"rows": k, "cols": 1},
        "rows": model.rows,
        "banks": model.banks,
    }
    if wave is not None:
        drawn_words = {w for c in cells for w in c.words}
        info.update(
            wavefront_lanes=list(wave.lanes),
            wavefront_conflicts=wave.conflicts,
            conflicting_banks=wave.conflicting_banks,
            conflict_cells=conflict_cells,
            words_per_bank=counts,
            words_outside_window=len({w for a in wave.accesses for w in a.words} - drawn_words),
            analysis_conflicts=wave.analysis.hardware_conflicts,
        )
    return info


def bank_panel(
    model: BankModel,
    plan: BankPlan,
    wave: Wavefront | None = None,
    caption: Sequence[str] = (),
) -> Panel:
    """Draw the bank map (see the module docstring): header, cells, and with a wavefront the
    distinct words per bank under the map."""
    cells = _bank_cells(model, plan, wave)
    sizes = _bank_sizes(plan, cells, wave is not None)
    items, top = _bank_header(model, plan, sizes, caption)
    cell_items, conflict_cells = _bank_cell_items(model, plan, wave, cells, sizes, top)
    items += cell_items
    y = top + plan.drawn[0] * sizes.cell_h
    counts: dict[str, int] = {}
    if wave is not None:
        count_items, counts, y = _bank_counts(plan, wave, sizes, y)
        items += count_items
    info = _bank_info(model, plan, wave, cells, conflict_cells, counts)
    return Panel(items, sizes.label_w + plan.drawn[1] * sizes.cell_w, y, info)


def _bank_tooltip(
    model: BankModel,
    words: list[int],
    bank: int,
    access_of: dict[int, list[Access]],
    conflicting: set[int],
) -> str:
    lines: list[str] = []
    per = 32 // model.element_bits if model.element_bits < 32 else 1
    for w in words[:64]:
        row = w // model.banks
        lines.append(f"bank {bank}, row {row}: word {w}, bytes {w * 4}-{w * 4 + 3}")
        for s in model.word_elements(w):
            if model.slot_offset[s] < 0:
                lines.append(f"  slot {s}: padding")
                continue
            where = f"slot {s} (offset {int(model.slot_offset[s])})" if model.padded else (
                f"offset {s}")  # fmt: skip
            part = ""
            if per > 1:
                lo = s * model.element_bits - w * 32
                part = f", bits {lo}-{lo + model.element_bits - 1}"
            elif model.element_bits > 32:
                part = " (low half)" if w == (s * model.element_bits) // 32 else " (high half)"
            lines.append(f"  {where}: element {_coord_text(model.slot_coords[s])}{part}")
        for a in access_of.get(w, ()):
            reg = f", register {a.register}" if a.register >= 0 else ""
            lines.append(f"  accessed by lane {a.lane}{reg} -> element {_coord_text(a.coords)}")
        if w in access_of and bank in conflicting:
            lines.append("  CONFLICT: this bank holds other words of the same wavefront")
    if len(words) > 64:
        lines.append(f"... and {len(words) - 64} more words (zoom in with a window)")
    return "\n".join(lines)
