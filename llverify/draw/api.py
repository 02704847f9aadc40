"""The public drawing functions: pictures of distributed layouts, bank maps and
conversions, saved as SVG, HTML or PNG.

Examples:
    >>> from llverify.encodings import BlockedLayout
    >>> svg = distributed_svg(BlockedLayout([1, 2], [4, 8], [1, 1], [1, 0]), [4, 16])
    >>> "T0:r0" in svg and svg.count('class="cell"')
    64
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from llverify.arguments import check_one_kernel, layout_argument, layout_value
from llverify.bits import check_timeout
from llverify.draw import style
from llverify.draw.banks import (
    BankModel,
    Wavefront,
    bank_model,
    bank_panel,
    plan_banks,
    wavefront,
    wavefront_summary,
)
from llverify.draw.grid import (
    Hardware,
    Panel,
    evaluate_distributed,
    figure_heading,
    grid_panel,
    mark_elements,
    plan_grid,
    text_lines,
)
from llverify.draw.scene import DrawError, Item, Line, Rect, Scene, Text, shifted, text_width
from llverify.encodings.padded import PaddedLayout
from llverify.hardware import ANY_ELEMENT_BITS, resolve_target
from llverify.layout import LinearLayout
from llverify.shared_memory.swizzle import synthesize_swizzle

__all__ = [
    "DEFAULT_MAX_CELLS",
    "Picture",
    "bank_map_picture",
    "bank_map_svg",
    "conversion_picture",
    "swizzle_comparison_picture",
    "conversion_svg",
    "distributed_picture",
    "distributed_svg",
    "draw",
]

#: cells drawn per panel before aggregation starts
DEFAULT_MAX_CELLS = 1024
_MARGIN = 16.0
_GAP = 40.0
_FORMATS = {".svg": "svg", ".html": "html", ".htm": "html", ".png": "png"}


@dataclass
class Picture:
    """A drawn picture: the scene and what was drawn (``info``: kind, cells, aggregation,
    window, conflicts, ...)."""

    scene: Scene
    info: dict[str, Any] = field(default_factory=dict)

    def svg(self) -> str:
        """The SVG document (valid XML)."""
        return self.scene.svg()

    def html(self) -> str:
        """A self-contained HTML page with the SVG inline and a tooltip per cell."""
        return self.scene.html()

    def png(self, path: str | Path | BinaryIO, scale: float = 1.0) -> None:
        """Write a PNG (needs matplotlib: ``pip install 'llverify[draw]'``)."""
        self.scene.png(path, scale)

    def data(self, fmt: str) -> bytes:
        """The file contents of the picture in the format ``fmt`` ("svg", "html" or "png",
        as :func:`output_format` names them), for a caller that writes the file itself.

        Examples:
            >>> from llverify import LinearLayout
            >>> distributed_picture(LinearLayout.identity_1d(4, "lane", "dim0")).data("svg")[:5]
            b'<?xml'
        """
        if fmt == "png":
            buffer = io.BytesIO()
            self.png(buffer)
            return buffer.getvalue()
        return (self.svg() if fmt == "svg" else self.html()).encode("utf-8")

    def save(self, path: str | Path) -> dict[str, Any]:
        """Write the picture in the format its suffix names (.svg, .html, .png); returns
        :attr:`info` with ``file`` and ``format``."""
        path = Path(path)
        fmt = output_format(path)
        data = self.data(fmt)
        try:
            path.write_bytes(data)
        except OSError as error:
            raise DrawError(f"cannot write {str(path)!r}: {error.strerror or error}") from None
        return {**self.info, "file": str(path), "format": fmt}


def output_format(output: str | Path) -> str:
    """The format ("svg", "html" or "png") that the suffix of the file name ``output`` names.

    Examples:
        >>> output_format("banks.HTML")
        'html'
        >>> output_format("banks.pdf")
        Traceback (most recent call last):
        ...
        llverify.draw.scene.DrawError: Argument 'output' must end in .svg, .html or .png, not 'banks.pdf'.
    """  # noqa: E501 - a doctest output line
    fmt = _FORMATS.get(Path(output).suffix.lower())
    if fmt is None:
        raise DrawError(
            f"Argument 'output' must end in .svg, .html or .png, not {Path(output).name!r}."
        )
    return fmt


# ---------------------------------------------------------------------- composition


def _describe(value: Any, layout: LinearLayout | None) -> str:
    if isinstance(value, LinearLayout):
        layout = value
    elif isinstance(value, str):
        return " ".join(value.split())
    if hasattr(value, "ttgir") and callable(value.ttgir):
        try:
            return str(value.ttgir())
        except Exception:  # noqa: BLE001 - a description must never fail the drawing
            pass
    if layout is not None:
        ins = ", ".join(f"{d} {s}" for d, s in layout.in_dims)
        outs = ", ".join(f"{d} {s}" for d, s in layout.out_dims)
        return f"linear layout ({ins} -> {outs})"
    return type(value).__name__


def _stack(panels: Sequence[Panel], horizontal: bool, gap: float = _GAP) -> Panel:
    items: list[Item] = []
    pos = 0.0
    width = height = 0.0
    for p in panels:
        if horizontal:
            items += shifted(p.items, pos, 0)
            pos += p.width + gap
            width, height = pos - gap, max(height, p.height)
        else:
            items += shifted(p.items, 0, pos)
            pos += p.height + gap
            width, height = max(width, p.width), pos - gap
    return Panel(items, width, height, {})


def _legend(entries: Sequence[tuple[str, str, str]], width: float) -> tuple[list[Item], float]:
    """``(kind, colour, label)`` entries flowing in rows: kind ``fill`` (a swatch),
    ``outline`` (an outlined white swatch) or ``stripes`` (two warp colours)."""
    items: list[Item] = []
    x = y = 0.0
    size = style.NOTE_FONT
    row_h = 20.0
    for kind, colour, label in entries:
        w = 19 + text_width(label, size) + 18
        if x > 0 and x + w > width:
            x, y = 0.0, y + row_h
        if kind == "fill":
            items.append(Rect(x, y, 14, 14, colour, "#888888", 0.8, "legend-swatch"))
        elif kind == "outline":
            items.append(Rect(x + 1, y + 1, 12, 12, "#FFFFFF", colour, 2.5, "legend-swatch"))
        else:
            items.append(Rect(x, y, 14, 14, style.MIXED, "#888888", 0.8, "legend-swatch"))
            items.append(Rect(x + 1, y + 9, 6, 4, style.WARP_PALETTE[0], cls="legend-swatch"))
            items.append(Rect(x + 7, y + 9, 6, 4, style.WARP_PALETTE[1], cls="legend-swatch"))
        items.append(Text(x + 19, y + 11, label, size, "start"))
        x += w
    return items, (y + row_h if entries else 0.0)


def _figure(
    title: str,
    notes: Sequence[str],
    body: Panel,
    legend: Sequence[tuple[str, str, str]],
    footnotes: Sequence[str] = (),
) -> Scene:
    width = max(body.width, 640.0)
    chars = max(40, int(width / text_width("x", style.TITLE_FONT)))
    title_lines = style.wrap(title, chars)
    chars = max(40, int(width / text_width("x", style.NOTE_FONT)))
    note_lines = [line for note in notes for line in style.wrap(note, chars)]
    items, y = figure_heading(title_lines, note_lines, _MARGIN)
    y += 12
    items += shifted(body.items, _MARGIN, y)
    y += body.height + 14
    legend_items, legend_h = _legend(legend, width)
    if legend_items:
        items.append(Line(_MARGIN, y - 6, _MARGIN + width, y - 6, "#DDDDDD", 1))
        items += shifted(legend_items, _MARGIN, y)
        y += legend_h
    foot = [line for note in footnotes for line in style.wrap(note, chars)]
    foot_items, y = text_lines(foot, _MARGIN, y, style.NOTE_FONT, fill=style.MUTED, cls="note")
    return Scene(width + 2 * _MARGIN, y + _MARGIN, items + foot_items, title)


def _grid_legend(
    hw_list: Sequence[Hardware], panels: Sequence[Panel]
) -> list[tuple[str, str, str]]:
    warps = sorted({w for p in panels for w in p.info["warps"]})  # type: ignore[attr-defined]
    lanes = hw_list[0].lanes
    entries = []
    for w in warps[: len(style.WARP_PALETTE)]:
        threads = f"T{w * lanes}-{w * lanes + lanes - 1}"
        entries.append(("fill", style.warp_colour(w), f"warp {w} ({threads})"))
    if len(warps) > len(style.WARP_PALETTE):
        entries.append(("fill", "#FFFFFF", f"colours repeat every {len(style.WARP_PALETTE)} warps"))
    if any(_has_class(p.items, "stripe") for p in panels):
        if any(p.info.get("aggregation") for p in panels):
            text = "white with a bar: the cell's elements belong to the warps of the bar"
        else:
            text = "white with a bar: held by several warps (broadcast; the bar's colours)"
        entries.append(("stripes", "", text))
    return entries


def _has_class(items: Sequence[Item], cls: str) -> bool:
    from llverify.draw.scene import Group

    for item in items:
        if isinstance(item, Group):
            if _has_class(item.children, cls):
                return True
        elif isinstance(item, Rect | Text) and item.cls == cls:
            return True
    return False


def _cell_note(aggregated: bool) -> str:
    if aggregated:
        return (
            "cell: w<warps> / L<lanes> holding its block of elements (a..b (n): n values from "
            "a to b); colour = warp (hover for the rows, registers, threads)"
        )
    return (
        "cell: T<thread>:r<register> of the first holder (thread = warp x lanes + lane, as in "
        "Triton's tensor view); +n = n more broadcast copies (hover for all); colour = warp"
    )


def _shape_text(shape: Sequence[int]) -> str:
    return "x".join(map(str, shape))


# ---------------------------------------------------------------------- distributed


def distributed_picture(
    layout: Any,
    shape: Sequence[int] | None = None,
    *,
    window: Any = None,
    max_cells: int = DEFAULT_MAX_CELLS,
    leading: Sequence[int] | None = None,
    title: str | None = None,
) -> Picture:
    """A distributed layout (in dims register/lane/warp/block) as its tensor grid.

    Args:
        layout: a LinearLayout, an encoding, TTGIR text or a Gluon layout (with ``shape``).
        shape: the tensor shape (not needed for LinearLayouts and ``tensor<...>`` text).
        window: ``((r0, r1), (c0, c1))`` or ``"r0:r1,c0:c1"``: half-open rows and columns
            of the 2-D grid to draw (a 1-D tensor is drawn in rows of 32 elements; a
            rank 3+ tensor as 2-D slices of its last two dims).
        max_cells: at most this many cells; beyond, each cell summarizes a block.
        leading: for rank 3+ tensors, the leading indices of the one slice to draw
            (default: every slice, at most 16).
        title: replaces the first title line.
    """
    ll = layout_argument(layout, shape, "layout")
    hw = evaluate_distributed(ll, "layout")
    plan = plan_grid(hw.shape, window, max_cells, leading)
    panel = grid_panel(hw, plan)
    head = title or f"Distributed layout, tensor {_shape_text(hw.shape)}: {plan.describe()}"
    notes = [_describe(layout, ll), _cell_note(plan.aggregated)]
    scene = _figure(head, notes, panel, _grid_legend([hw], [panel]))
    info = {"kind": "distributed", "title": head, **panel.info}
    info.pop("marked_cells", None)
    return Picture(scene, info)


def distributed_svg(layout: Any, shape: Sequence[int] | None = None, **options: Any) -> str:
    """:func:`distributed_picture` as an SVG document."""
    return distributed_picture(layout, shape, **options).svg()


# ---------------------------------------------------------------------- bank maps


def _bank_parts(
    shared_layout: Any,
    element_bits: int,
    target: Any,
    register_layout: Any,
    shape: Sequence[int] | None,
    window: Any,
    max_cells: int,
    who: str,
    caption: Sequence[str] = (),
) -> tuple[BankModel, Wavefront | None, Panel, list[str]]:
    model = bank_model(shared_layout, element_bits, target, shape)
    full_shape = list(model.shape) if shape is None else list(shape)
    wave = None
    notes: list[str] = []
    if register_layout is not None:
        wave = wavefront(register_layout, model, full_shape)
        notes = wavefront_summary(wave, who)
    plan = plan_banks(model, window, max_cells)
    panel = bank_panel(model, plan, wave, caption)
    outside = panel.info.get("words_outside_window", 0)
    if outside:
        notes.append(
            f"{outside} word(s) of this wavefront lie outside the drawn bank rows (the counts "
            "under the map include them)"
        )
    return model, wave, panel, notes


def _bank_legend(model: BankModel, wave: Wavefront | None) -> list[tuple[str, str, str]]:
    entries = [("fill", style.BANK_EMPTY, "4-byte word: the elements stored in it")]
    if wave is not None:
        entries.append(("fill", style.WAVEFRONT, "word accessed by the wavefront (L = lanes)"))
        entries.append(("outline", style.CONFLICT, "conflict: its bank has several distinct words"))
    if model.padded:
        entries.append(("fill", style.PADDING, "padding"))
    return entries


def bank_map_picture(
    shared_layout: Any,
    element_bits: int,
    target: Any = "nvidia",
    register_layout: Any = None,
    shape: Sequence[int] | None = None,
    *,
    window: Any = None,
    max_cells: int = DEFAULT_MAX_CELLS,
    title: str | None = None,
) -> Picture:
    """A shared layout as a bank map; with ``register_layout``, its first wavefront
    highlighted and its bank conflicts outlined in red (see :mod:`llverify.draw.banks`).

    Args:
        shared_layout: a LinearLayout with an ``offset`` in dim, a shared encoding / TTGIR
            text (with ``shape``), or a padded shared layout.
        element_bits: bits per element (1..64).
        target: "nvidia" (32 banks), "gfx942" (32 banks, wave64) or "gfx950" (64 banks).
        register_layout: the distributed layout stored to / loaded from it.
        window: ``((row0, row1), (bank0, bank1))`` or ``"r0:r1,b0:b1"``: bank rows and banks.
        max_cells: at most this many cells; beyond, each cell covers several bank rows.
    """
    bits = ANY_ELEMENT_BITS.check(element_bits, error=DrawError)
    tgt = resolve_target(target, DrawError)
    model, wave, panel, notes = _bank_parts(
        shared_layout, bits, tgt, register_layout, shape, window, max_cells, "the register layout"
    )
    head = title or f"Bank map ({tgt.name}): {panel.info['shown']}"
    notes = [f"shared layout: {_describe(shared_layout, model.layout)}"] + (
        [f"register layout: {_describe(register_layout, None)}"] if register_layout is not None
        else []
    ) + notes  # fmt: skip
    scene = _figure(head, notes, panel, _bank_legend(model, wave))
    info = {"kind": "bank map", "title": head, "target": tgt.name, "element_bits": bits,
            **panel.info}  # fmt: skip
    return Picture(scene, info)


def bank_map_svg(
    shared_layout: Any,
    element_bits: int,
    target: Any = "nvidia",
    register_layout: Any = None,
    shape: Sequence[int] | None = None,
    **options: Any,
) -> str:
    """:func:`bank_map_picture` as an SVG document."""
    return bank_map_picture(
        shared_layout, element_bits, target, register_layout, shape, **options
    ).svg()


def swizzle_comparison_picture(
    before: Any,
    after: Any,
    element_bits: int,
    target: Any = "nvidia",
    register_layout: Any = None,
    shape: Sequence[int] | None = None,
    *,
    window: Any = None,
    max_cells: int = DEFAULT_MAX_CELLS,
    title: str | None = None,
) -> Picture:
    """Two bank maps side by side: the shared layout ``before`` (say, unswizzled) and
    ``after`` (swizzled), each with ``register_layout``'s first wavefront and its bank
    conflicts, so that what the swizzle changes is seen at a glance.

    Arguments as for :func:`bank_map_picture`; both layouts must cover the same tensor.

    Examples:
        >>> from llverify.layout import LinearLayout
        >>> from llverify.layout_utils import identity_standard_nd
        >>> plain = identity_standard_nd("offset", [8, 8], [1, 0]).transpose_outs(["dim0", "dim1"])
        >>> swz = LinearLayout.from_bases(
        ...     [("offset", [[0, 1], [0, 2], [0, 4], [1, 1], [2, 2], [4, 4]])], ["dim0", "dim1"])
        >>> column = LinearLayout.from_bases(
        ...     [("register", []), ("lane", [[1, 0], [2, 0], [4, 0], [0, 1], [0, 2]])],
        ...     ["dim0", "dim1"], [8, 8], require_surjective=False)
        >>> pic = swizzle_comparison_picture(plain, swz, 32, "nvidia", column)
        >>> pic.info["conflicts"]
        {'before': 1, 'after': 0}
    """
    bits = ANY_ELEMENT_BITS.check(element_bits, error=DrawError)
    tgt = resolve_target(target, DrawError)
    parts = []
    for label, shared in (("before", before), ("after", after)):
        parts.append(
            _bank_parts(shared, bits, tgt, register_layout, shape, window, max_cells,
                        "the register layout", [f"{label}: {_describe(shared, None)}"])
        )  # fmt: skip
    (m_before, w_before, p_before, n_before), (m_after, w_after, p_after, n_after) = parts
    if list(m_before.shape) != list(m_after.shape):
        raise DrawError(
            "Arguments 'before' and 'after' must cover the same tensor, not "
            f"{list(m_before.shape)} and {list(m_after.shape)}."
        )
    head = title or f"Swizzle before / after ({tgt.name}, {bits}-bit): {p_after.info['shown']}"
    notes = [f"before: {_describe(before, m_before.layout)}",
             f"after: {_describe(after, m_after.layout)}"]  # fmt: skip
    if register_layout is not None:
        notes.append(f"register layout: {_describe(register_layout, None)}")
    foot = ["before: " + line for line in n_before] + ["after: " + line for line in n_after]
    body = _stack([p_before, p_after], horizontal=True)
    scene = _figure(head, notes, body, _bank_legend(m_after, w_after), foot)
    info: dict[str, Any] = {
        "kind": "swizzle comparison",
        "title": head,
        "target": tgt.name,
        "element_bits": bits,
        "cells": int(p_before.info["cells"]) + int(p_after.info["cells"]),  # type: ignore[call-overload]
    }
    if w_before is not None and w_after is not None:
        info["conflicts"] = {"before": w_before.conflicts, "after": w_after.conflicts}
    return Picture(scene, info)


# ---------------------------------------------------------------------- conversions


class _ConversionDrawing:
    """The steps of :func:`conversion_picture`, in order: the checked arguments (here),
    :meth:`choose_shared`, :meth:`draw_banks`, :meth:`draw_grids`, :meth:`picture`."""

    def __init__(
        self,
        src: Any,
        dst: Any,
        shape: Sequence[int] | None,
        element_bits: int | None,
        target: Any,
        timeout_s: float,
    ) -> None:
        if element_bits is None:
            raise DrawError("Argument 'element_bits' is needed to draw a conversion (e.g. 16).")
        check_timeout(timeout_s, "timeout_s")
        self.src, self.dst = src, dst
        self.bits = ANY_ELEMENT_BITS.check(element_bits, error=DrawError)
        self.tgt = resolve_target(target, DrawError)
        self.src_ll = layout_argument(src, shape, "src")
        self.dst_ll = layout_argument(dst, shape, "dst")
        if self.src_ll.out_dims != self.dst_ll.out_dims:
            raise DrawError(
                f"Arguments 'src' and 'dst' must cover the same tensor, not "
                f"{self.src_ll.out_dims} and {self.dst_ll.out_dims}."
            )
        check_one_kernel(self.src_ll, self.dst_ll)
        self.shape = list(self.src_ll.get_out_dim_sizes())

    def choose_shared(self, shared: Any, timeout_s: float) -> None:
        """The given shared layout, else the synthesized one; and the note describing it."""
        if shared is not None:
            self.shared, self.shared_note = shared, _describe(shared, None)
            return
        result = synthesize_swizzle(
            self.src_ll, self.dst_ll, self.shape, self.bits, self.tgt, timeout_s=timeout_s
        )
        self.shared = result.layout
        self.shared_note = (
            f"synthesized (shared_memory.swizzle, certificate: {result.certificate.status}; "
            f"{result.ttgir()})"
        )

    def draw_banks(self, window: Any, max_cells: int) -> None:
        """Both layouts' registers, then the bank maps of the store's (source's) and the
        load's (destination's) first wavefronts."""
        self.src_hw = evaluate_distributed(self.src_ll, "src")
        self.dst_hw = evaluate_distributed(self.dst_ll, "dst")
        banks = (self.shared, self.bits, self.tgt)
        self.model, store, self.store_panel, self.store_notes = _bank_parts(
            *banks, self.src_ll, self.shape, window, max_cells, "the store (source)",
            ["shared memory: store of the source, first wavefront"],
        )  # fmt: skip
        _, load, self.load_panel, self.load_notes = _bank_parts(
            *banks, self.dst_ll, self.shape, window, max_cells, "the load (destination)",
            ["shared memory: load of the destination, first wavefront"],
        )  # fmt: skip
        assert store is not None and load is not None
        self.store, self.load = store, load

    def draw_grids(self, window: Any, max_cells: int, leading: Sequence[int] | None) -> None:
        """Both tensor grids, each wavefront's elements outlined, each element's places in
        shared memory in its tooltip."""
        where = _element_places(self.model)

        def extra(flat: int) -> list[str]:
            return where.get(flat, ["not stored in shared memory"])

        self.src_plan = plan_grid(self.src_hw.shape, window, max_cells, leading)
        self.dst_plan = plan_grid(self.dst_hw.shape, window, max_cells, leading)
        src_marked = mark_elements(self.shape, np.array([a.coords for a in self.store.accesses]))
        dst_marked = mark_elements(self.shape, np.array([a.coords for a in self.load.accesses]))
        self.src_panel = grid_panel(
            self.src_hw, self.src_plan, ["source registers (outlined: the store wavefront)"],
            src_marked, extra,
        )  # fmt: skip
        self.dst_panel = grid_panel(
            self.dst_hw, self.dst_plan, ["destination registers (outlined: the load wavefront)"],
            dst_marked, extra,
        )  # fmt: skip

    def picture(self, title: str | None) -> Picture:
        """The four panels side by side under the title and notes, with the legend and the
        wavefronts' footnotes."""
        head = title or (
            f"Conversion through shared memory, tensor {_shape_text(self.shape)} x "
            f"{self.bits}-bit, {self.tgt.name}: grids {self.src_plan.describe()}; banks "
            f"{self.store_panel.info['shown']}"
        )
        middle = _stack([self.store_panel, self.load_panel], horizontal=False)
        body = _stack([self.src_panel, middle, self.dst_panel], horizontal=True)
        legend = _grid_legend([self.src_hw, self.dst_hw], [self.src_panel, self.dst_panel])
        legend.append(("outline", style.WAVEFRONT_EDGE, "element of the first wavefront"))
        legend += _bank_legend(self.model, self.store)[1:]
        foot = ["store: " + line for line in self.store_notes]
        foot += ["load: " + line for line in self.load_notes]
        scene = _figure(head, self.notes(), body, legend, foot)
        return Picture(scene, self.info(head))

    def notes(self) -> list[str]:
        """The lines under the title: the three layouts and both wavefronts' figures."""
        a_st, a_ld = self.store.analysis, self.load.analysis
        return [
            f"source: {_describe(self.src, self.src_ll)}",
            f"destination: {_describe(self.dst, self.dst_ll)}",
            f"shared layout: {self.shared_note}",
            f"store: {a_st.access_bits}-bit vectors, {a_st.hardware_conflicts} conflict(s) per "
            f"wavefront, {a_st.store_wavefronts} wavefronts; load: {a_ld.access_bits}-bit "
            f"vectors, {a_ld.hardware_conflicts} conflict(s) per wavefront, "
            f"{a_ld.load_wavefronts} wavefronts",
            _cell_note(self.src_plan.aggregated or self.dst_plan.aggregated),
        ]

    def info(self, head: str) -> dict[str, Any]:
        """What was drawn, as :attr:`Picture.info`."""
        panels = {"source": self.src_panel, "store": self.store_panel, "load": self.load_panel,
                  "destination": self.dst_panel}  # fmt: skip
        return {
            "kind": "conversion",
            "title": head,
            "target": self.tgt.name,
            "element_bits": self.bits,
            "cells": sum(int(p.info["cells"]) for p in panels.values()),  # type: ignore[call-overload]
            "aggregation": self.src_panel.info["aggregation"],
            "panels": {name: p.info for name, p in panels.items()},
            "shared": (
                self.model.layout.to_string()
                if not self.model.padded
                else _describe(self.shared, None)
            ),
        }


def conversion_picture(
    src: Any,
    dst: Any,
    shared: Any = None,
    shape: Sequence[int] | None = None,
    element_bits: int | None = None,
    target: Any = "nvidia",
    *,
    window: Any = None,
    bank_window: Any = None,
    max_cells: int = DEFAULT_MAX_CELLS,
    leading: Sequence[int] | None = None,
    timeout_s: float = 60.0,
    title: str | None = None,
) -> Picture:
    """A conversion through shared memory, side by side: the source grid, the bank maps of
    the store (source's first wavefront) and the load (destination's), the destination grid.
    The wavefronts' elements are outlined in the grids.

    ``shared`` defaults to the synthesized optimal layout
    (:func:`llverify.shared_memory.swizzle.synthesize_swizzle`, within ``timeout_s``). ``window``
    applies to both tensor grids, ``bank_window`` to the bank maps, ``max_cells`` to each
    panel.
    """
    drawing = _ConversionDrawing(src, dst, shape, element_bits, target, timeout_s)
    drawing.choose_shared(shared, timeout_s)
    drawing.draw_banks(bank_window, max_cells)
    drawing.draw_grids(window, max_cells, leading)
    return drawing.picture(title)


def _element_places(model: BankModel) -> dict[int, list[str]]:
    """Tooltip lines per tensor element (row-major index): shared offset, word, bank."""
    strides = np.cumprod((list(model.shape[1:]) + [1])[::-1])[::-1]
    out: dict[int, list[str]] = {}
    for slot in range(model.slots):
        offset = int(model.slot_offset[slot])
        if offset < 0:
            continue
        flat = int(np.dot(model.slot_coords[slot], strides))
        words = list(model.slot_words(slot))
        banks = sorted({w % model.banks for w in words})
        where = f"slot {slot} (offset {offset})" if model.padded else f"offset {offset}"
        out.setdefault(flat, []).append(
            f"shared: {where}, word {words[0]}, bank {','.join(map(str, banks))}, "
            f"row {words[0] // model.banks}"
        )
    return out


def conversion_svg(
    src: Any,
    dst: Any,
    shared: Any = None,
    shape: Sequence[int] | None = None,
    element_bits: int | None = None,
    target: Any = "nvidia",
    **options: Any,
) -> str:
    """:func:`conversion_picture` as an SVG document."""
    return conversion_picture(src, dst, shared, shape, element_bits, target, **options).svg()


# ---------------------------------------------------------------------- dispatch

_GRID_OPTIONS = {"window", "max_cells", "leading", "title"}
_BANK_OPTIONS = {"element_bits", "target", "register", "window", "max_cells", "title", "before"}
_CONV_OPTIONS = {
    "to", "shared", "element_bits", "target", "window", "bank_window", "max_cells", "leading",
    "timeout_s", "title",
}  # fmt: skip


def picture(value: Any, shape: Sequence[int] | None = None, **options: Any) -> Picture:
    """The picture :func:`draw` saves: a conversion when ``to=`` names a destination, a
    bank map for a shared layout, a tensor grid for a distributed one."""
    if "to" in options:
        _check_options(options, _CONV_OPTIONS, "a conversion")
        opts = dict(options)
        dst = opts.pop("to")
        return conversion_picture(
            value, dst, opts.pop("shared", None), shape, opts.pop("element_bits", None),
            opts.pop("target", "nvidia"), **opts,
        )  # fmt: skip
    layout = layout_value(value, shape, "value")
    if isinstance(layout, PaddedLayout) or layout.has_in_dim("offset"):
        _check_options(options, _BANK_OPTIONS, "a shared layout (bank map)")
        opts = dict(options)
        if opts.get("element_bits") is None:
            raise DrawError(
                "Drawing a shared layout as a bank map needs element_bits (e.g. element_bits=16)."
            )
        if "before" in opts:
            return swizzle_comparison_picture(
                opts.pop("before"), value, opts.pop("element_bits"), opts.pop("target", "nvidia"),
                opts.pop("register", None), shape, **opts,
            )  # fmt: skip
        return bank_map_picture(
            value, opts.pop("element_bits"), opts.pop("target", "nvidia"),
            opts.pop("register", None), shape, **opts,
        )  # fmt: skip
    _check_options(options, _GRID_OPTIONS, "a distributed layout")
    return distributed_picture(value, shape, **options)


def _check_options(options: dict[str, Any], allowed: set[str], what: str) -> None:
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise DrawError(f"Option(s) {unknown} do not apply to {what}; it takes {sorted(allowed)}.")


def draw(
    value: Any, shape: Sequence[int] | None = None, output: str | Path = "out.svg", **options: Any
) -> dict[str, Any]:
    """Draw ``value`` to ``output`` (.svg, .html or .png) and return what was drawn.

    ``value``: a LinearLayout, an encoding, TTGIR text or a Gluon layout. Options:

    * distributed layouts: ``window``, ``max_cells``, ``leading``, ``title``;
    * shared layouts (bank maps): ``element_bits`` (required), ``target``, ``register``
      (a register layout: its first wavefront and conflicts), ``window``, ``max_cells``,
      ``before`` (another shared layout: both bank maps side by side, before and after);
    * conversions: ``to`` (the destination layout), ``element_bits`` (required),
      ``shared`` (default: synthesized), ``target``, ``window``, ``bank_window``,
      ``max_cells``, ``leading``, ``timeout_s``.

    Returns:
        ``{"kind", "file", "format", "title", "cells", "aggregation", "window", ...}``.
    """
    output_format(output)  # a bad suffix is refused before anything is drawn
    return picture(value, shape, **options).save(output)
