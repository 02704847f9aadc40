"""Pictures (llverify.draw, ``llverify draw``): the SVG's structure parsed with
xml.etree (cells, labels, warp colours, tooltips), bank-conflict marks exactly where the
access analysis finds conflicts, aggregation and windows said in the title, self-contained
HTML, PNG through matplotlib, the command line in subprocesses."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from llverify import LinearLayout
from llverify.draw import (
    DrawError,
    bank_map_picture,
    bank_map_svg,
    conversion_picture,
    conversion_svg,
    distributed_picture,
    distributed_svg,
    draw,
)
from llverify.draw.style import WARP_PALETTE
from llverify.encodings import BlockedLayout, SwizzledSharedLayout
from llverify.shared_memory.access import access_analysis, simulate_bank_conflicts

NS = "{http://www.w3.org/2000/svg}"
HAS_MPL = importlib.util.find_spec("matplotlib") is not None

B_SMALL = BlockedLayout([1, 2], [4, 8], [1, 1], [1, 0])  # 4x16: T0:r0, T0:r1, T1:r0, ...
B_TWO_WARPS = BlockedLayout([1, 2], [4, 8], [2, 1], [1, 0])  # 8x16, warps split the rows
B_ROW = (
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
B_COL = (
    "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>"
)
SWIZZLED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"

# 32x32 f32: lane i -> row i, warp j -> column j (no registers: nothing to vectorise), so
# one instruction of warp 0 reads column 0: with a row-major buffer all 32 lanes hit bank 0.
COLUMN_READER = LinearLayout.from_bases(
    [
        ("register", []),
        ("lane", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]),
        ("warp", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]),
    ],
    ["dim0", "dim1"],
)
ROW_MAJOR = LinearLayout.from_bases(
    [("offset", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0],
                 [16, 0]])],
    ["dim0", "dim1"],
)  # fmt: skip
XOR_SWIZZLE = SwizzledSharedLayout(1, 1, 32, [1, 0])  # column c of row r at c ^ r


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode())


def by_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(NS + tag) if cls in (e.get("class") or "").split()]


def cell_groups(root: ET.Element) -> list[ET.Element]:
    """The tooltip groups that hold a cell rect (grid cells), in drawing order."""
    return [g for g in by_class(root, "g", "tip") if by_class(g, "rect", "cell")]


def texts(element: ET.Element, cls: str | None = None) -> list[str]:
    return [t.text or "" for t in element.iter(NS + "text") if cls is None or t.get("class") == cls]


def title_text(root: ET.Element) -> str:
    return " ".join(texts(root, "title"))


# ---------------------------------------------------------------------- distributed


def test_distributed_grid_cells_labels_and_tooltips() -> None:
    root = parse(distributed_svg(B_SMALL, [4, 16]))
    cells = cell_groups(root)
    assert len(cells) == 64 == len(by_class(root, "rect", "cell"))
    # row-major: the top-left cell is thread 0's register 0, then its register 1
    assert texts(cells[0], "label") == ["T0:r0"]
    assert texts(cells[1], "label") == ["T0:r1"]
    assert texts(cells[2], "label") == ["T1:r0"]
    assert texts(cells[16], "label") == ["T8:r0"]  # lane 8 starts row 1
    tip = cells[16].find(NS + "title")
    assert tip is not None and tip.text is not None
    assert "element (1, 0)" in tip.text
    assert "block 0, warp 0, lane 8, register 0" in tip.text
    assert "one cell per element" in title_text(root)


def test_warp_colours_are_distinct_and_from_the_palette() -> None:
    root = parse(distributed_svg(B_TWO_WARPS, [8, 16]))
    fills = [r.get("fill") for r in by_class(root, "rect", "cell")]
    assert len(fills) == 128
    top, bottom = set(fills[:64]), set(fills[64:])  # warp 0 holds rows 0-3, warp 1 rows 4-7
    assert len(top) == 1 and len(bottom) == 1 and top != bottom
    assert top | bottom <= set(WARP_PALETTE)
    legend = " ".join(texts(root))
    assert "warp 0 (T0-31)" in legend and "warp 1 (T32-63)" in legend


def test_broadcast_copies_are_counted_and_listed() -> None:
    # 32 lanes on a 4x4 tensor: every element held by two lanes
    layout = LinearLayout.from_bases(
        [("register", []), ("lane", [[0, 1], [0, 2], [1, 0], [2, 0], [0, 0]]), ("warp", [])],
        ["dim0", "dim1"],
    )
    root = parse(distributed_svg(layout))
    cells = cell_groups(root)
    assert texts(cells[0], "label") == ["T0:r0 +1"]
    tip = cells[0].find(NS + "title")
    assert tip is not None and "2 broadcast copies" in (tip.text or "")
    assert "lane 16" in (tip.text or "")


def test_multi_warp_broadcast_is_striped() -> None:
    layout = LinearLayout.from_bases(
        [("register", []), ("lane", [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]]),
         ("warp", [[0, 0]])],
        ["dim0", "dim1"],
    )  # fmt: skip
    root = parse(distributed_svg(layout))
    assert len(by_class(root, "rect", "stripe")) == 2 * 32


def test_aggregation_256x256_stays_within_max_cells_and_says_so() -> None:
    for max_cells, block in ((1024, "8x8"), (100, "32x32")):
        picture = distributed_picture(B_ROW, [256, 256], max_cells=max_cells)
        root = parse(picture.svg())
        n = len(by_class(root, "rect", "cell"))
        assert n <= max_cells and n == picture.info["cells"]
        title = title_text(root)
        assert f"each cell = {block} elements" in title, title
        assert picture.info["aggregation"] is not None
        # an aggregated cell names its warps and lanes
        first = texts(cell_groups(root)[0], "label")
        assert first[0].startswith("w") and first[1].startswith("L")


def test_window_is_said_in_the_title() -> None:
    picture = distributed_picture(B_ROW, [256, 256], window="16:32,0:32")
    root = parse(picture.svg())
    assert len(by_class(root, "rect", "cell")) == 16 * 32
    assert "window rows 16-31, cols 0-31 of 256x256" in title_text(root)
    cells = cell_groups(root)
    tip = cells[0].find(NS + "title")
    assert tip is not None and "element (16, 0)" in (tip.text or "")


def test_one_dimensional_and_rank_three() -> None:
    picture = distributed_picture(BlockedLayout([2], [32], [2], [0]), [256])
    root = parse(picture.svg())
    assert len(by_class(root, "rect", "cell")) == 256
    assert "256 elements in rows of 32" in title_text(root)
    rank3 = BlockedLayout([1, 2, 2], [2, 4, 4], [2, 1, 2], [2, 1, 0])
    root = parse(distributed_svg(rank3, [4, 8, 8]))
    assert len(by_class(root, "rect", "cell")) == 4 * 64
    assert {"dim0 = 0", "dim0 = 3"} <= set(texts(root))
    root = parse(distributed_svg(rank3, [4, 8, 8], leading=[2]))
    assert len(by_class(root, "rect", "cell")) == 64
    with pytest.raises(DrawError, match="leading"):
        distributed_svg(BlockedLayout([1, 1, 1], [1, 4, 8], [1, 1, 1], [2, 1, 0]), [32, 4, 8])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: distributed_svg(B_SMALL, [4, 16], window="0:5,0:4"), "within the 4x16 grid"),
        (lambda: distributed_svg(B_SMALL, [4, 16], max_cells=0), "max_cells"),
        (lambda: distributed_svg(ROW_MAJOR), "distributed layout"),
        (lambda: bank_map_svg(COLUMN_READER, 32), "shared layout"),
        (lambda: bank_map_svg(ROW_MAJOR, 12), "element_bits"),
        (lambda: bank_map_svg(ROW_MAJOR, 32, "sm90"), "target"),
        (lambda: bank_map_svg(ROW_MAJOR, 32, max_cells=8), "at least the banks"),
        (lambda: draw(B_SMALL, [4, 16], "out.txt"), r"\.svg, \.html or \.png"),
        (lambda: draw(ROW_MAJOR, None, "out.svg"), "element_bits"),
        (lambda: draw(B_SMALL, [4, 16], "out.svg", register=B_SMALL), "do not apply"),
        (lambda: conversion_svg(B_SMALL, B_SMALL, None, [4, 16]), "element_bits"),
    ],
)
def test_bad_input_raises_a_clear_error(call, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DrawError, match=message):
        call()


# ---------------------------------------------------------------------- bank maps


def _bank_cells(root: ET.Element) -> list[ET.Element]:
    return [g for g in by_class(root, "g", "tip") if by_class(g, "rect", "bank")]


def _bank_of(group: ET.Element) -> int:
    title = group.find(NS + "title")
    assert title is not None and title.text is not None
    match = re.match(r"bank (\d+), row (\d+)", title.text)
    assert match
    return int(match.group(1))


def test_bank_map_labels_the_coordinates_in_each_word() -> None:
    root = parse(bank_map_svg(ROW_MAJOR, 32))
    cells = _bank_cells(root)
    assert len(cells) == 32 * 32
    assert texts(cells[0], "coord") == ["(0,0)"]
    assert texts(cells[32 + 5], "coord") == ["(1,5)"]  # row 1, bank 5
    # 16-bit elements: two per 4-byte bank word
    root = parse(bank_map_svg(ROW_MAJOR, 16))
    cells = _bank_cells(root)
    assert len(cells) == 16 * 32
    assert texts(cells[0], "coord") == ["(0,0)", "(0,1)"]
    assert texts(cells[16], "coord") == ["(1,0)", "(1,1)"]
    assert "2 elements per 4-byte bank word" in title_text(root)


def test_32_way_conflict_marks_every_lane_in_bank_0() -> None:
    picture = bank_map_picture(ROW_MAJOR, 32, "nvidia", COLUMN_READER)
    root = parse(picture.svg())
    analysis = access_analysis(COLUMN_READER, ROW_MAJOR, [32, 32], 32)
    assert analysis.hardware_conflicts == 31 and analysis.colliding_lanes == tuple(range(32))
    marks = [g for g in _bank_cells(root) if by_class(g, "rect", "conflict")]
    assert len(marks) == 32
    assert {_bank_of(g) for g in marks} == {0}
    lanes = sorted(int(t[1:]) for g in marks for t in texts(g, "lanes"))
    assert lanes == list(analysis.colliding_lanes)
    counts = by_class(root, "text", "conflict-count")
    assert [c.text for c in counts] == ["x32"]
    assert picture.info["conflicting_banks"] == [0]
    assert picture.info["wavefront_conflicts"] == analysis.simulated_conflicts == 31
    assert "32 distinct words in one bank" in " ".join(texts(root))


def test_conflict_free_swizzle_has_no_marks() -> None:
    picture = bank_map_picture(XOR_SWIZZLE, 32, "nvidia", COLUMN_READER, [32, 32])
    root = parse(picture.svg())
    assert access_analysis(COLUMN_READER, XOR_SWIZZLE, [32, 32], 32).hardware_conflicts == 0
    assert by_class(root, "rect", "conflict") == []
    assert by_class(root, "text", "conflict-count") == []
    # the wavefront is there: one word in each of the 32 banks, lane i in bank i
    highlighted = [g for g in _bank_cells(root) if texts(g, "lanes")]
    assert sorted(_bank_of(g) for g in highlighted) == list(range(32))
    assert len(by_class(root, "text", "bank-count")) == 32


def _first_wavefront_banks(reg, shared, shape, bits):  # type: ignore[no-untyped-def]
    """Independent brute force: the distinct words per bank of warp 0's first instruction
    and first pass, from the analysis' conversion and pass lanes."""
    a = access_analysis(reg, shared, shape, bits)
    span = [0]
    for basis in a.pass_lanes:
        span += [s ^ basis for s in span]
    words: dict[int, set[int]] = {}
    for lane in span:
        for r in range(a.elems_per_vec):
            offset = a.conversion.apply({"register": r, "lane": lane, "warp": 0})["offset"]
            first, last = (offset * bits) >> 5, ((offset + 1) * bits - 1) >> 5
            for w in range(first, last + 1):
                words.setdefault(w % 32, set()).add(w)
    return a, {b: len(w) for b, w in words.items()}


@pytest.mark.parametrize(
    ("reg", "shared", "shape", "bits"),
    [
        (B_ROW, SWIZZLED, [64, 64], 16),
        (B_COL, SWIZZLED, [64, 64], 16),
        (B_COL, "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
         [64, 64], 16),
        (B_COL, "#ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
         [32, 32], 8),
    ],
)  # fmt: skip
def test_conflict_marks_match_the_brute_force(reg, shared, shape, bits) -> None:  # type: ignore[no-untyped-def]
    picture = bank_map_picture(shared, bits, "nvidia", reg, shape, max_cells=1 << 14)
    root = parse(picture.svg())
    analysis, per_bank = _first_wavefront_banks(reg, shared, shape, bits)
    conflicting = {b for b, n in per_bank.items() if n > 1}
    marks = [g for g in _bank_cells(root) if by_class(g, "rect", "conflict")]
    assert {_bank_of(g) for g in marks} == conflicting
    assert len(marks) == sum(per_bank[b] for b in conflicting)  # one per conflicting word
    assert picture.info["words_per_bank"] == {str(b): n for b, n in sorted(per_bank.items())}
    assert picture.info["wavefront_conflicts"] == max(per_bank.values()) - 1
    sim = simulate_bank_conflicts(analysis.conversion, analysis.elems_per_vec, bits)
    if sim.homogeneous:
        assert picture.info["wavefront_conflicts"] == analysis.hardware_conflicts


def test_bank_map_rows_aggregate_and_window() -> None:
    picture = bank_map_picture(SWIZZLED, 16, "nvidia", B_ROW, [128, 64])
    assert picture.info["rows"] == 128
    assert picture.info["cells"] <= 1024
    root = parse(picture.svg())
    assert "each cell = 4 consecutive rows of one bank" in title_text(root)
    picture = bank_map_picture(SWIZZLED, 16, "nvidia", None, [128, 64], window="8:16,0:32")
    root = parse(picture.svg())
    assert len(_bank_cells(root)) == 8 * 32
    assert "window: bank rows 8-15, banks 0-31" in title_text(root)


def test_gfx950_has_64_banks_and_padded_layouts_show_padding() -> None:
    picture = bank_map_picture(ROW_MAJOR, 32, "gfx950")
    assert picture.info["banks"] == 64 and picture.info["rows"] == 16
    padded = "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [32, 32]}>"
    reg = BlockedLayout([1, 1], [32, 1], [1, 4], [0, 1])
    picture = bank_map_picture(padded, 16, "nvidia", reg, [32, 32])
    root = parse(picture.svg())
    assert "pad" in texts(root, "coord")
    analysis = access_analysis(reg, padded, [32, 32], 16)
    assert picture.info["wavefront_conflicts"] == analysis.hardware_conflicts == 1


def test_64_bit_elements_span_two_banks() -> None:
    root = parse(bank_map_svg(ROW_MAJOR, 64, max_cells=4096))
    cells = _bank_cells(root)
    assert texts(cells[0], "coord") == ["(0,0).lo"]
    assert texts(cells[1], "coord") == ["(0,0).hi"]


# ---------------------------------------------------------------------- conversions


def test_conversion_side_by_side() -> None:
    src = BlockedLayout([1, 4], [8, 4], [1, 1], [1, 0])
    dst = BlockedLayout([4, 1], [4, 8], [1, 1], [0, 1])
    picture = conversion_picture(src, dst, None, [16, 16], 16)
    root = parse(picture.svg())
    panels = picture.info["panels"]
    assert set(panels) == {"source", "store", "load", "destination"}
    assert len(by_class(root, "rect", "cell")) == 2 * 256
    assert len(_bank_cells(root)) == 2 * 4 * 32  # 512 bytes: 4 rows of 32 banks, twice
    assert "synthesized" in " ".join(texts(root))
    # the synthesized layout is conflict-free on both sides
    assert by_class(root, "rect", "conflict") == []
    # the wavefront's elements are outlined in the grids
    assert panels["source"]["marked_cells"] > 0 and panels["destination"]["marked_cells"] > 0
    assert len(by_class(root, "rect", "wavefront")) == (
        panels["source"]["marked_cells"] + panels["destination"]["marked_cells"]
    )
    # grid tooltips say where an element lives in shared memory
    tip = cell_groups(root)[0].find(NS + "title")
    assert tip is not None and re.search(r"shared: offset \d+, word \d+, bank \d+", tip.text or "")


def test_conversion_with_a_given_shared_layout() -> None:
    picture = conversion_picture(
        COLUMN_READER.transpose_outs(["dim0", "dim1"]), COLUMN_READER, ROW_MAJOR, None, 32
    )
    assert picture.info["panels"]["load"]["conflicting_banks"] == [0]


# ---------------------------------------------------------------------- formats


def test_svg_is_valid_xml_with_a_title() -> None:
    svg = distributed_svg(B_SMALL, [4, 16])
    assert svg.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    root = parse(svg)
    assert root.tag == NS + "svg"
    assert root.find(NS + "title") is not None


def test_html_is_self_contained_with_tooltips(tmp_path: Path) -> None:
    out = tmp_path / "conflict.html"
    info = draw(ROW_MAJOR, None, out, element_bits=32, register=COLUMN_READER)
    html = out.read_text()
    assert info["format"] == "html" and info["kind"] == "bank map"
    assert "http" not in html and "<script" not in html and "<link" not in html
    assert "url(" not in html
    svg = html[html.index("<svg") : html.index("</svg>") + len("</svg>")]
    root = ET.fromstring(svg)  # inline SVG: no namespace needed in HTML
    tips = [g for g in root.iter("g") if g.find("title") is not None]
    assert len(tips) >= 32 * 32
    first = tips[0].find("title")
    assert first is not None and "bank 0, row 0: word 0, bytes 0-3" in (first.text or "")
    assert "accessed by lane 0" in (first.text or "")


def test_svg_and_html_outputs_of_draw(tmp_path: Path) -> None:
    info = draw(B_SMALL, [4, 16], tmp_path / "grid.svg")
    assert info["kind"] == "distributed" and info["cells"] == 64
    parse((tmp_path / "grid.svg").read_text())


NO_MPL = "matplotlib is not installed (pip install 'llverify[draw]')"


@pytest.mark.skipif(not HAS_MPL, reason=NO_MPL)
def test_png_output(tmp_path: Path) -> None:
    out = tmp_path / "grid.png"
    info = draw(B_TWO_WARPS, [8, 16], out)
    assert info["format"] == "png"
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width > 400 and height > 200


def test_png_without_matplotlib_names_the_extra(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from llverify.draw import draw, DrawError\n"
        "from llverify.encodings import BlockedLayout\n"
        "try:\n"
        f"    draw(BlockedLayout([1, 2], [4, 8], [1, 1], [1, 0]), [4, 16], {str(tmp_path / 'x.png')!r})\n"  # noqa: E501
        "except DrawError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "pip install 'llverify[draw]'" in out.stdout, out.stderr


def test_imports_without_matplotlib_z3_or_triton() -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None; sys.modules['z3'] = None; "
        "sys.modules['triton'] = None; import llverify.draw, llverify.cli.draw_cmd; "
        "from llverify.draw import distributed_svg, bank_map_svg; "
        "from llverify.encodings import BlockedLayout; "
        "distributed_svg(BlockedLayout([1, 2], [4, 8], [1, 1], [1, 0]), [4, 16])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


# ---------------------------------------------------------------------- command line


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "llverify.cli", *args], capture_output=True, text=True, timeout=300
    )


def test_cli_draws_grid_bank_map_and_conversion(tmp_path: Path) -> None:
    grid = tmp_path / "grid.svg"
    out = run("draw", B_ROW, "--shape", "64x64", "-o", str(grid), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["kind"] == "distributed" and report["file"] == str(grid)
    assert report["aggregation"] == {"rows": 2, "cols": 2} and report["cells"] == 1024
    assert len(by_class(parse(grid.read_text()), "rect", "cell")) == 1024

    banks = tmp_path / "banks.html"
    out = run("draw", SWIZZLED, "--shape", "64x64", "--register", B_COL, "--dtype", "f16",
              "-o", str(banks), "--window", "0:16,0:32", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["kind"] == "bank map" and report["cells"] == 16 * 32
    assert "wavefront_conflicts" in report and banks.read_text().startswith("<!DOCTYPE html>")

    conv = tmp_path / "conv.html"
    out = run("draw", B_ROW, "--to", B_COL, "--shape", "64x64", "--dtype", "f16", "-o",
              str(conv), "--max-cells", "256")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"wrote {conv}: conversion")
    assert conv.stat().st_size > 1000


@pytest.mark.parametrize(
    "args",
    [
        ["draw", B_ROW, "-o", "x.svg"],  # no shape for an encoding
        ["draw", B_ROW, "--shape", "64x64", "-o", "x.txt"],
        ["draw", B_ROW, "--shape", "64x64", "-o", "x.svg", "--window", "0:99,0:4"],
        ["draw", B_ROW, "--shape", "64x64", "-o", "x.svg", "--window", "rows"],
        ["draw", B_ROW, "--shape", "64x64", "-o", "x.svg", "--register", B_COL],
        ["draw", SWIZZLED, "--shape", "64x64", "-o", "x.svg", "--dtype", "f99"],
        ["draw", B_ROW, "--shape", "64x64", "-o", "/nonexistent/dir/x.svg"],
        ["draw", "not a layout", "-o", "x.svg"],
        ["draw", B_ROW, "--shape", "64x64"],  # no output
    ],
)
def test_cli_bad_input_exits_2_with_one_line(args: list[str], tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "llverify.cli", *args],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 2, out.stdout + out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert lines and lines[0].startswith(("llverify: error:", "llverify draw:"))
    assert "Traceback" not in out.stderr
    assert not list(tmp_path.iterdir())


def test_picture_cells_are_numpy_free_json(tmp_path: Path) -> None:
    info = draw(SWIZZLED, [64, 64], tmp_path / "b.svg", element_bits=16, register=B_ROW)
    json.dumps(info)  # every value is plain JSON (no numpy ints)


def test_conversion_of_two_kernels_is_refused() -> None:
    four = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    eight = BlockedLayout([1, 8], [4, 8], [1, 8], [1, 0])
    with pytest.raises(ValueError, match=r"one kernel.*warp=4.*'src'.*warp=8.*'dst'"):
        conversion_svg(four, eight, None, [64, 64], 16)
