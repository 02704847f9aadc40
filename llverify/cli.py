"""The ``llverify`` command line.

Exit codes: 0 all good, 1 a check refuted or failed, 2 bad usage or bad input,
3 unknown/timeout.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llverify import __version__
from llverify.errors import LLVerifyError
from llverify.explain import explain
from llverify.layout import LinearLayout
from llverify.text import layout_to_dict, read_layout

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNKNOWN = 3

_LAYOUT_SUFFIXES = (".json", ".txt", ".ll")


def parse_shape(text: str | None) -> list[int] | None:
    """``"128x64"`` -> ``[128, 64]`` (None stays None).

    Examples:
        >>> parse_shape("128x64")
        [128, 64]
    """
    if text is None:
        return None
    try:
        shape = [int(part) for part in text.lower().split("x")]
    except ValueError:
        raise LLVerifyError(f"--shape must look like 128x64, not {text!r}.") from None
    if not shape or any(d <= 0 for d in shape):
        raise LLVerifyError(f"--shape must be positive sizes like 128x64, not {text!r}.")
    return shape


def _load_layouts(
    sources: Sequence[str], shape: list[int] | None = None
) -> list[tuple[str, LinearLayout]]:
    """(label, layout) for each source: a file, a directory of files, inline layout text, or
    an encoding (TTGIR attribute text, with a shape)."""
    from llverify.encodings import to_linear_layout

    loaded = []
    for source in sources:
        stripped = source.lstrip()
        if stripped.startswith(("#", "tensor<")):
            if shape is None and not stripped.startswith("tensor<"):
                raise LLVerifyError(f"an encoding needs --shape (e.g. --shape 128x64): {source}")
            loaded.append((stripped, to_linear_layout(stripped, shape)))
            continue
        path = Path(source)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix in _LAYOUT_SUFFIXES)
            if not files:
                raise LLVerifyError(f"directory '{source}' holds no {_LAYOUT_SUFFIXES} files.")
        elif path.is_file():
            files = [path]
        else:
            if "->" not in source and not source.lstrip().startswith("{"):
                raise LLVerifyError(
                    f"'{source}' is neither a file, a directory, nor layout text (Triton's "
                    f"'- register=1 -> (0, 1) ...' or JSON)."
                )
            loaded.append(("<text>", read_layout(source)))
            continue
        for file in files:
            try:
                loaded.append((str(file), read_layout(file.read_text())))
            except LLVerifyError as error:
                raise LLVerifyError(f"{file}: {error}") from None
    return loaded


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
    layouts = _load_layouts(args.layout, parse_shape(args.shape))
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for the docs and tests)."""
    parser = argparse.ArgumentParser(
        prog="llverify",
        description="Verify and synthesize GPU tensor layouts (Triton linear layouts).",
    )
    parser.add_argument("--version", action="version", version=f"llverify {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``llverify`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.handler(args))
    except LLVerifyError as error:
        print(f"llverify: error: {error}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
