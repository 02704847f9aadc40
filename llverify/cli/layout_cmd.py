"""``llverify layout``: print layouts in Triton's text with their properties."""

from __future__ import annotations

import argparse
import json
from typing import Any

from llverify.cli.args import EXIT_OK, load_layouts, parse_shape
from llverify.explain import explain
from llverify.layout import LinearLayout
from llverify.text import layout_to_dict

_LAYOUT_SUFFIXES = (".json", ".txt", ".ll")


def describe_layout(layout: LinearLayout) -> dict[str, Any]:
    """The properties ``llverify layout`` reports, as JSON-ready data.

    Examples:
        >>> describe_layout(LinearLayout.identity_1d(4, "lane", "dim0"))["injective"]
        True
    """
    masks = layout.get_free_variable_masks()
    return {
        **layout_to_dict(layout),
        "text": layout.to_string(),
        "in_dims": dict(layout.in_dims),
        "rank": layout.rank(),
        "surjective": layout.is_surjective(),
        "injective": layout.is_injective(),
        "invertible": layout.is_invertible(),
        "free_variable_masks": masks,
        "broadcast_dims": [d for d, m in masks.items() if m],
        "num_consecutive_in_out": layout.num_consecutive_in_out(),
        "closed_form": {name: str(formula) for name, formula in explain(layout).items()},
    }


def _cmd_layout(args: argparse.Namespace) -> int:
    layouts = load_layouts(args.layout, parse_shape(args.shape))
    reports = [{"source": label, **describe_layout(ll)} for label, ll in layouts]
    if args.json:
        print(json.dumps(reports if len(reports) > 1 else reports[0], indent=2))
        return EXIT_OK
    for report in reports:
        print(f"== {report['source']}")
        print(report["text"].lstrip("\n"))
        dims = ", ".join(f"{d}={s}" for d, s in report["in_dims"].items())
        print(f"in dims: {dims or '(none)'}")
        print(
            f"rank {report['rank']}; surjective={report['surjective']} "
            f"injective={report['injective']} invertible={report['invertible']}"
        )
        if report["broadcast_dims"]:
            masks = ", ".join(f"{d}=0b{m:b}" for d, m in report["free_variable_masks"].items() if m)
            print(f"broadcast (free) bits: {masks}")
        else:
            print("broadcast (free) bits: none")
        print(f"consecutive elements along the first dims: {report['num_consecutive_in_out']}")
        print("closed form:")
        for name, text in report["closed_form"].items():
            print(f"  {name} = {text}")
        print()
    return EXIT_OK


def register(commands: Any) -> None:
    """Add the ``layout`` subcommand."""
    layout = commands.add_parser(
        "layout",
        help="print a layout in Triton's text with its properties",
        description=(
            "Read layouts (Triton's LinearLayout text as printed in compiler errors, JSON "
            '{"bases": ..., "out_dims": ...}, or a Triton encoding as TTGIR attribute text '
            "with --shape) from files, directories or inline text, and print them with "
            "their properties and closed form."
        ),
    )
    layout.add_argument(
        "layout",
        nargs="+",
        help="file, directory, inline layout text, or an encoding as TTGIR attribute text "
        "(e.g. '#ttg.blocked<{...}>') or a 'tensor<128x64xf16, #ttg...>' type",
    )
    layout.add_argument("--shape", help="tensor shape for an encoding, e.g. 128x64")
    layout.add_argument("--json", action="store_true", help="print JSON instead of text")
    layout.set_defaults(handler=_cmd_layout)
