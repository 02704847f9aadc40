"""``llverify draw``: pictures of a distributed layout (tensor grid), a shared layout (bank
map, optionally with a register layout's first wavefront and its conflicts) or a conversion
(source grid, bank maps, destination grid) as SVG, HTML or PNG (docs/drawing.md)."""

from __future__ import annotations

import argparse
from typing import Any

from llverify.cli.args import (
    COL,
    EVERY_CELL,
    EXIT_OK,
    ROW,
    SWIZZLED,
    HelpFormatter,
    add_bank_model_option,
    add_dtype_option,
    add_max_cells_option,
    add_timeout_option,
    examples,
    non_empty,
    output_file,
    parse_dtype,
    parse_shape,
    shared_argument,
)
from llverify.cli.output import to_json, write_output
from llverify.errors import LLVerifyError


def _argument(source: str, shape: list[int] | None, name: str) -> tuple[Any, Any]:
    """``(value to draw, its LinearLayout)``: TTGIR text stays text (the picture quotes it;
    padded shared layouts are not linear: no LinearLayout), anything else is read here."""
    from llverify.arguments import is_encoding_text
    from llverify.encodings.padded import PaddedLayout

    label, layout = shared_argument(source, shape, name)
    value = label if is_encoding_text(label) else layout
    return value, None if isinstance(layout, PaddedLayout) else layout


def _slice(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise LLVerifyError(
            f"--slice must look like 0 or 1,2 (leading indices), not {text!r}."
        ) from None


def _conversion_options(args: argparse.Namespace, shape: list[int] | None) -> dict[str, Any]:
    """The options of a conversion picture (``LAYOUT --to DST``)."""
    from llverify.draw.grid import parse_window

    if args.register is not None:
        raise LLVerifyError("--register applies to a shared LAYOUT, not to --to conversions.")
    options: dict[str, Any] = {
        "to": _argument(args.to, shape, "--to")[0],
        "element_bits": parse_dtype(args.dtype),
        "target": args.target,
        "timeout_s": args.timeout,
    }
    if args.shared is not None:
        options["shared"] = _argument(args.shared, shape, "--shared")[0]
    if args.bank_window is not None:
        options["bank_window"] = parse_window(args.bank_window)
    if args.slice is not None:
        options["leading"] = _slice(args.slice)
    return options


def _unswizzled(layout: Any) -> Any:
    """The row-major shared layout of ``layout``'s tensor (offset -> row-major index)."""
    from llverify.layout_utils import identity_standard_nd

    if layout is None:
        raise LLVerifyError(
            "--before unswizzled needs a linear shared LAYOUT (its tensor's shape)."
        )
    names = layout.get_out_dim_names()
    order = list(range(len(names)))[::-1]
    return identity_standard_nd("offset", layout.get_out_dim_sizes(), order).transpose_outs(names)


def _bank_map_options(
    args: argparse.Namespace, shape: list[int] | None, layout: Any
) -> dict[str, Any]:
    """The options of a shared LAYOUT's bank map (and of a before/after comparison)."""
    options: dict[str, Any] = {"element_bits": parse_dtype(args.dtype), "target": args.target}
    if args.register is not None:
        options["register"] = _argument(args.register, shape, "--register")[0]
    if args.before is not None:
        options["before"] = (
            _unswizzled(layout)
            if args.before == "unswizzled"
            else _argument(args.before, shape, "--before")[0]
        )
    if args.slice is not None:
        raise LLVerifyError("--slice applies to distributed layouts, not bank maps.")
    return options


def _grid_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of a distributed LAYOUT's tensor grid."""
    if args.register is not None:
        raise LLVerifyError(
            "--register applies to a shared LAYOUT (a bank map); LAYOUT is distributed."
        )
    return {} if args.slice is None else {"leading": _slice(args.slice)}


def _cmd_draw(args: argparse.Namespace) -> int:
    from llverify.draw import picture
    from llverify.draw.api import output_format
    from llverify.draw.grid import parse_window

    fmt = output_format(args.output)  # a bad suffix is refused before anything is drawn
    shape = parse_shape(args.shape)
    options: dict[str, Any] = {"max_cells": args.max_cells or EVERY_CELL}
    if args.window is not None:
        options["window"] = parse_window(args.window)
    value, layout = _argument(args.layout, shape, "LAYOUT")
    if shape is None and layout is not None:
        shape = [size for _, size in layout.out_dims]
    if args.to is not None:
        options.update(_conversion_options(args, shape))
    elif args.shared is not None or args.bank_window is not None:
        raise LLVerifyError("--shared and --bank-window apply to conversions (with --to).")
    elif layout is None or layout.has_in_dim("offset"):
        options.update(_bank_map_options(args, shape, layout))
    else:
        if args.before is not None:
            raise LLVerifyError("--before applies to a shared LAYOUT (a bank map).")
        options.update(_grid_options(args))
    drawn = picture(value, shape, **options)
    write_output(args.output, drawn.data(fmt), "-o")  # atomically: a failure keeps the old
    info = {**drawn.info, "file": args.output, "format": fmt}
    if args.json:
        print(to_json(info))
        return EXIT_OK
    line = f"wrote {info['file']}: {info['kind']}, {info['cells']} cells"
    print(line)
    print(f"  {info['title']}")
    return EXIT_OK


def _add_inputs(parser: argparse.ArgumentParser) -> None:
    """What is drawn: the layout, the output file, a conversion's other layouts, the shape."""
    parser.add_argument(
        "layout", metavar="LAYOUT", type=non_empty, help="the layout (or conversion source)"
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        type=output_file,
        help="output file: .svg, .html or .png",
    )
    parser.add_argument(
        "--to", metavar="DST", type=non_empty, help="draw the conversion LAYOUT -> DST"
    )
    parser.add_argument(
        "--shared",
        metavar="SHARED",
        type=non_empty,
        help="the conversion's shared layout (default synthesized)",
    )
    parser.add_argument(
        "--register",
        metavar="REG",
        type=non_empty,
        help="register layout accessing a shared LAYOUT",
    )
    parser.add_argument(
        "--before",
        metavar="SHARED",
        type=non_empty,
        help="a shared LAYOUT's bank map side by side with this one's (before the swizzle; "
        "'unswizzled' = row-major)",
    )
    parser.add_argument("--shape", help="tensor shape, e.g. 128x64 (needed for encodings)")


def _add_view_options(parser: argparse.ArgumentParser) -> None:
    """How it is drawn: bank maps' dtype and target, windows, cells, slices, the budget."""
    add_dtype_option(parser, "element type for bank maps")
    add_bank_model_option(parser)
    parser.add_argument(
        "--window",
        metavar="R0:R1,C0:C1",
        help="draw only these rows and columns (half-open) of the tensor grid, or of the bank "
        "map (bank rows, banks) for a shared LAYOUT",
    )
    parser.add_argument(
        "--bank-window", metavar="R0:R1,B0:B1", help="bank rows and banks of a conversion's maps"
    )
    add_max_cells_option(parser, 1024, "at most N cells per panel; beyond, cells summarize blocks")
    parser.add_argument(
        "--slice", metavar="I[,J...]", help="rank 3+ tensors: the leading indices of one slice"
    )
    add_timeout_option(parser, "swizzle synthesis budget")


def register(commands: Any) -> None:
    """Add the ``draw`` subcommand."""
    parser = commands.add_parser(
        "draw",
        help="draw a layout, a bank map or a conversion (SVG, HTML, PNG)",
        description=(
            "Draw a distributed LAYOUT as its tensor grid (who holds each element, colour by "
            "warp), a shared LAYOUT as a bank map (with --register: the register layout's "
            "first wavefront and its bank conflicts; with --before: another shared layout's "
            "bank map beside it, before and after a swizzle), or the conversion LAYOUT --to DST "
            "through shared memory (source grid, store and load bank maps, destination grid; "
            "the shared layout defaults to the synthesized one). The output's suffix picks "
            "the format: .svg, .html (self-contained, tooltips per cell) or .png (needs "
            "matplotlib: pip install 'llverify[draw]'). Large tensors are aggregated (each "
            "cell a block of elements) beyond --max-cells; the title says what is shown."
        ),
        epilog=examples(
            f"llverify draw {ROW} --shape 32x64 -o blocked.svg",
            f"llverify draw {SWIZZLED} --shape 128x64 --register {COL} -o banks.html",
            f"llverify draw {SWIZZLED} --shape 128x64 --register {COL} --before unswizzled "
            "-o before_after.svg",
            f"llverify draw {ROW} --to {COL} --shape 128x64 -o conversion.svg --json",
        ),
        formatter_class=HelpFormatter,
    )
    _add_inputs(parser)
    _add_view_options(parser)
    parser.add_argument("--json", action="store_true", help="print what was drawn as JSON")
    parser.set_defaults(handler=_cmd_draw)
