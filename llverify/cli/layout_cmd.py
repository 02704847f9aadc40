"""``llverify layout``: print layouts in Triton's text with their properties."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from llverify.cli.args import (
    EXIT_OK,
    ROW,
    HelpFormatter,
    add_max_cells_option,
    examples,
    load_layouts,
    non_empty,
    parse_shape,
)
from llverify.cli.output import to_json
from llverify.errors import DimensionError

if TYPE_CHECKING:
    from llverify.layout import LinearLayout

#: Views print at most this many cells by default (a 128x128 tile prints whole).
DEFAULT_MAX_CELLS = 16384


def vector_width(layout: LinearLayout) -> dict[str, int] | None:
    """Contiguous elements per thread: the longest run of register bases ``1, 2, 4, ...``
    along one out dim (the register dim's leading bases), as ``{dim: elements}``; None for
    layouts without registers.

    Examples:
        >>> from llverify import LinearLayout
        >>> vector_width(LinearLayout.from_bases([("register", [[0, 1], [0, 2], [1, 0]])],
        ...     ["dim0", "dim1"]))
        {'dim1': 4}
    """
    if not layout.has_in_dim("register"):
        return None
    outs = layout.get_out_dim_names()
    best = (outs[0], 1) if outs else ("", 1)
    for d, out in enumerate(outs):
        run = 0
        for basis in layout.bases[layout.get_in_dim_names().index("register")][1]:
            expected = [1 << run if i == d else 0 for i in range(len(outs))]
            if list(basis) != expected:
                break
            run += 1
        if (1 << run) > best[1]:
            best = (out, 1 << run)
    return {best[0]: best[1]} if outs else None


def describe_layout(layout: LinearLayout) -> dict[str, Any]:
    """The properties ``llverify layout`` reports, as JSON-ready data.

    Examples:
        >>> from llverify import LinearLayout
        >>> describe_layout(LinearLayout.identity_1d(4, "lane", "dim0"))["injective"]
        True
    """
    from llverify.proof.explain import explain

    masks = layout.get_free_variable_masks()
    return {
        **layout.to_dict(),
        "text": layout.to_string(),
        "in_dims": dict(layout.in_dims),
        "rank": layout.rank(),
        "surjective": layout.is_surjective(),
        "injective": layout.is_injective(),
        "invertible": layout.is_invertible(),
        "free_variable_masks": masks,
        "broadcast_dims": [d for d, m in masks.items() if m],
        "num_consecutive_in_out": layout.num_consecutive_in_out(),
        "vector_width": vector_width(layout),
        "closed_form": {name: str(formula) for name, formula in explain(layout).items()},
    }


def _cmd_layout(args: argparse.Namespace) -> int:
    from llverify.views import layout_view

    layouts = load_layouts(args.layout, parse_shape(args.shape))
    reports = [{"source": label, **describe_layout(ll)} for label, ll in layouts]
    for report, (_, ll) in zip(reports, layouts):
        views = {"tensor": False, "hardware": True}
        for name, hardware in views.items():
            if args.view in (name, "both"):
                try:
                    report[f"{name}_view"] = layout_view(ll, hardware, args.max_cells or None)
                except DimensionError as error:
                    report[f"{name}_view"] = f"(no view: {error})"
    if args.json:
        print(to_json(reports if len(reports) > 1 else reports[0]))
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
        if report["vector_width"]:
            ((dim, width),) = report["vector_width"].items()
            print(f"vector width: {width} contiguous elements per thread along {dim}")
        print("closed form:")
        for name, text in report["closed_form"].items():
            print(f"  {name} = {text}")
        for name in ("tensor", "hardware"):
            if f"{name}_view" in report:
                print(
                    f"{name} view (Triton's {'hardware' if name == 'hardware' else 'tensor'} "
                    "point of view):"
                )
                view = report[f"{name}_view"]
                print(view, end="")
                if view.startswith("... ") or "\n... " in view:
                    print(f"(--max-cells {args.max_cells}: pass --max-cells 0 to print every cell)")
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
        epilog=examples(
            f"llverify layout {ROW} --shape 128x64 --view none",
            f"llverify layout 'tensor<32x32xf16, {ROW[1:-1]}>' --view hardware",
            "llverify layout specs/layouts --json --view none   # every file of a directory",
        ),
        formatter_class=HelpFormatter,
    )
    layout.add_argument(
        "layout",
        nargs="+",
        type=non_empty,
        help="file, directory, inline layout text, or an encoding as TTGIR attribute text "
        "(e.g. '#ttg.blocked<{...}>') or a 'tensor<128x64xf16, #ttg...>' type",
    )
    layout.add_argument("--shape", help="tensor shape for an encoding, e.g. 128x64")
    layout.add_argument("--json", action="store_true", help="print JSON instead of text")
    layout.add_argument(
        "--view",
        choices=["none", "tensor", "hardware", "both"],
        default="both",
        help="Triton's layout views to print: the tensor (who holds each element) and the "
        "hardware (what each register/lane/offset holds) point of view (default %(default)s)",
    )
    add_max_cells_option(
        layout,
        DEFAULT_MAX_CELLS,
        "views of more than N cells print the whole lines holding the first N cells and "
        "say how many were left out",
    )
    layout.set_defaults(handler=_cmd_layout)
