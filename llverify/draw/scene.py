"""A small retained drawing (rectangles, text, lines, tooltip groups) and its three
renderers: SVG (pure string building), self-contained HTML (the SVG inline) and PNG
(matplotlib, imported only when asked for).

Coordinates are pixels, y downwards; a :class:`Text`'s ``y`` is its baseline.  All text is
monospace so that widths are known without a font engine (:func:`text_width`).

Examples:
    >>> scene = Scene(60, 30, [Group([Rect(5, 5, 50, 20, fill="#77AADD", cls="cell"),
    ...     Text(30, 19, "T0:r0")], tooltip="(0, 0)")], title="demo")
    >>> svg = scene.svg()
    >>> svg.startswith("<?xml") and "<title>(0, 0)</title>" in svg
    True
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO
from xml.sax.saxutils import escape, quoteattr

from llverify.errors import LLVerifyError

if TYPE_CHECKING:  # matplotlib is imported only when a PNG is asked for
    from matplotlib.axes import Axes
    from matplotlib.collections import PatchCollection
    from matplotlib.figure import Figure

__all__ = [
    "FONT",
    "DrawError",
    "Group",
    "Line",
    "Rect",
    "Scene",
    "Text",
    "text_width",
]

#: the one font family (monospace: widths are predictable); matplotlib ships DejaVu Sans Mono
FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
_CHAR = 0.64  # advance of a monospace glyph in font sizes (DejaVu Sans Mono: 0.602; Agg
# rounds it to whole pixels, up to 0.64 at the sizes used)
_PT_PER_PX = 0.72  # the PNG renderer draws 100 scene pixels per inch


class DrawError(LLVerifyError, ValueError):
    """Something cannot be drawn (bad option, missing optional dependency); a tensor too
    large to draw is an :class:`llverify.evaluate.EnumerationLimitError`."""


def text_width(text: str, size: float) -> float:
    """Width in pixels of ``text`` in the monospace font at ``size`` pixels.

    Examples:
        >>> text_width("abcd", 10)
        25.6
    """
    return round(len(text) * _CHAR * size, 6)


@dataclass
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str = "none"
    stroke: str | None = None
    stroke_width: float = 1.0
    cls: str | None = None
    dash: str | None = None  # SVG stroke-dasharray, e.g. "4 2"


@dataclass
class Text:
    x: float
    y: float  # baseline
    text: str
    size: float = 11.0
    anchor: str = "middle"  # start | middle | end
    weight: str = "normal"
    fill: str = "#000000"
    cls: str | None = None


@dataclass
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str = "#000000"
    width: float = 1.0


@dataclass
class Group:
    """Items drawn together; ``tooltip`` becomes the group's SVG ``<title>`` (the browser
    shows it on hover)."""

    children: list[Item]
    tooltip: str | None = None
    cls: str | None = None


Item = Rect | Text | Line | Group


def shifted(items: Sequence[Item], dx: float, dy: float) -> list[Item]:
    """Copies of ``items`` moved by ``(dx, dy)``."""
    out: list[Item] = []
    for item in items:
        if isinstance(item, Group):
            out.append(Group(shifted(item.children, dx, dy), item.tooltip, item.cls))
        elif isinstance(item, Rect):
            out.append(
                Rect(item.x + dx, item.y + dy, item.w, item.h, item.fill, item.stroke,
                     item.stroke_width, item.cls, item.dash)
            )  # fmt: skip
        elif isinstance(item, Text):
            out.append(
                Text(item.x + dx, item.y + dy, item.text, item.size, item.anchor, item.weight,
                     item.fill, item.cls)
            )  # fmt: skip
        else:
            out.append(Line(item.x1 + dx, item.y1 + dy, item.x2 + dx, item.y2 + dy,
                            item.stroke, item.width))  # fmt: skip
    return out


def _flat(items: Sequence[Item]) -> Iterator[Rect | Text | Line]:
    for item in items:
        if isinstance(item, Group):
            yield from _flat(item.children)
        else:
            yield item


def _num(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _svg_item(item: Item, out: list[str], indent: str) -> None:
    if isinstance(item, Group):
        cls = f" class={quoteattr(item.cls)}" if item.cls else ""
        out.append(f"{indent}<g{cls}>")
        if item.tooltip is not None:
            out.append(f"{indent}  <title>{escape(item.tooltip)}</title>")
        for child in item.children:
            _svg_item(child, out, indent + "  ")
        out.append(f"{indent}</g>")
    elif isinstance(item, Rect):
        attrs = [
            f'x="{_num(item.x)}" y="{_num(item.y)}" width="{_num(item.w)}" '
            f'height="{_num(item.h)}" fill="{item.fill}"'
        ]
        if item.stroke:
            attrs.append(f'stroke="{item.stroke}" stroke-width="{_num(item.stroke_width)}"')
        if item.dash:
            attrs.append(f'stroke-dasharray="{item.dash}"')
        if item.cls:
            attrs.append(f"class={quoteattr(item.cls)}")
        out.append(f"{indent}<rect {' '.join(attrs)}/>")
    elif isinstance(item, Text):
        attrs = [f'x="{_num(item.x)}" y="{_num(item.y)}" font-size="{_num(item.size)}"']
        if item.anchor != "start":
            attrs.append(f'text-anchor="{item.anchor}"')
        if item.weight != "normal":
            attrs.append(f'font-weight="{item.weight}"')
        if item.fill != "#000000":
            attrs.append(f'fill="{item.fill}"')
        if item.cls:
            attrs.append(f"class={quoteattr(item.cls)}")
        out.append(f"{indent}<text {' '.join(attrs)}>{escape(item.text)}</text>")
    else:
        out.append(
            f'{indent}<line x1="{_num(item.x1)}" y1="{_num(item.y1)}" x2="{_num(item.x2)}" '
            f'y2="{_num(item.y2)}" stroke="{item.stroke}" stroke-width="{_num(item.width)}"/>'
        )


@dataclass
class Scene:
    """A finished picture: its size, its items and a one-line title (SVG ``<title>``, the
    HTML page's title)."""

    width: float
    height: float
    items: list[Item]
    title: str = ""

    def svg(self, standalone: bool = True) -> str:
        """The SVG document (``standalone=False``: the ``<svg>`` element for inline HTML,
        without the namespace declaration, which HTML does not need)."""
        w, h = _num(self.width), _num(self.height)
        ns = ' xmlns="http://www.w3.org/2000/svg"' if standalone else ""
        out = [
            f'<svg{ns} width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
            f'font-family="{FONT}" role="img">'
        ]
        if self.title:
            out.append(f"  <title>{escape(self.title)}</title>")
        out.append(f'  <rect x="0" y="0" width="{w}" height="{h}" fill="#FFFFFF"/>')
        for item in self.items:
            _svg_item(item, out, "  ")
        out.append("</svg>")
        text = "\n".join(out) + "\n"
        return ('<?xml version="1.0" encoding="UTF-8"?>\n' + text) if standalone else text

    def html(self) -> str:
        """A self-contained HTML page: the SVG inline, tooltips on hover, no scripts, no
        external resources."""
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{escape(self.title)}</title>\n"
            "<style>\n"
            "body { font-family: " + FONT + "; margin: 16px; background: #FFFFFF; }\n"
            "p { margin: 4px 0; font-size: 13px; }\n"
            "g.tip:hover > rect.cell, g.tip:hover > rect.bank { stroke: #000000; "
            "stroke-width: 2.5; }\n"
            "svg { display: block; margin-top: 8px; }\n"
            "</style>\n</head>\n<body>\n"
            "<p>Hover over a cell for its details.</p>\n"
            f"{self.svg(standalone=False)}"
            "</body>\n</html>\n"
        )

    def png(self, path: str | Path | BinaryIO, scale: float = 1.0) -> None:
        """Render with matplotlib (Agg, no pyplot state) to a PNG file (or a binary stream)."""
        try:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure
        except ImportError as error:
            raise DrawError(
                "PNG output needs matplotlib: pip install 'llverify[draw]' (or write .svg or "
                ".html, which need nothing)."
            ) from error
        pixels = self.width * self.height * scale * scale
        if pixels > 120e6:  # keep PNGs within what viewers open; SVG has no such limit
            scale = (120e6 / (self.width * self.height)) ** 0.5
        dpi = 100.0 * scale
        fig = Figure(figsize=(self.width / 100.0, self.height / 100.0), dpi=dpi)
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        ax.set_xlim(0, self.width)
        ax.set_ylim(self.height, 0)
        ax.set_axis_off()
        items = list(_flat(self.items))
        # rectangles first (in order), then lines and text above them
        ax.add_collection(_png_rectangles(items))
        _png_lines_and_text(ax, items)
        _write_png(fig, dpi, path)


def _png_rectangles(items: Sequence[Rect | Text | Line]) -> PatchCollection:
    """The rectangles among ``items``, in order, as one matplotlib collection."""
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    rects: list[Rectangle] = []
    for z, item in enumerate(items, start=1):
        if isinstance(item, Rect):
            rects.append(
                Rectangle(
                    (item.x, item.y),
                    item.w,
                    item.h,
                    facecolor="none" if item.fill == "none" else item.fill,
                    edgecolor=item.stroke or "none",
                    linewidth=item.stroke_width * _PT_PER_PX if item.stroke else 0.0,
                    linestyle=(0, (4, 2)) if item.dash else "solid",
                    zorder=z,
                )
            )
    return PatchCollection(rects, match_original=True, zorder=1)


def _png_lines_and_text(ax: Axes, items: Sequence[Rect | Text | Line]) -> None:
    """Draw the lines (above the rectangles) and the text (above all) among ``items``."""
    for item in items:
        if isinstance(item, Line):
            ax.plot(
                [item.x1, item.x2],
                [item.y1, item.y2],
                color=item.stroke,
                linewidth=item.width * _PT_PER_PX,
                zorder=2,
                solid_capstyle="butt",
            )
        elif isinstance(item, Text):
            ax.text(
                item.x,
                item.y,
                item.text,
                fontsize=item.size * _PT_PER_PX,
                family="DejaVu Sans Mono",
                ha={"start": "left", "middle": "center", "end": "right"}[item.anchor],
                va="baseline",
                color=item.fill,
                fontweight=item.weight,
                zorder=3,
            )


def _write_png(fig: Figure, dpi: float, path: str | Path | BinaryIO) -> None:
    """Save ``fig`` to ``path`` (a file name or a binary stream), as a palette image where
    Pillow is there."""
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=dpi, format="png", facecolor="#FFFFFF")
    try:  # a palette image is ~3x smaller; Pillow comes with matplotlib
        from PIL import Image

        buffer.seek(0)
        with Image.open(buffer) as image:
            target = path if hasattr(path, "write") else str(path)
            image.convert("RGB").quantize(colors=256).save(target, format="PNG", optimize=True)
    except ImportError:  # pragma: no cover - matplotlib always brings Pillow
        if hasattr(path, "write"):
            path.write(buffer.getvalue())
        else:
            Path(path).write_bytes(buffer.getvalue())
