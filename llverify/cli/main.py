"""The ``llverify`` command: the parser and the dispatch to the subcommands.

Exit codes: 0 all good, 1 a check refuted or failed, 2 bad usage or bad input,
3 unknown/timeout.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from llverify import __version__
from llverify.cli import (
    access_cmd,
    audit_cmd,
    convert_cmd,
    draw_cmd,
    layout_cmd,
    prove_cmd,
    swizzle_cmd,
    triton_cmd,
)
from llverify.cli.args import EXIT_USAGE
from llverify.cli.message import one_line
from llverify.errors import LLVerifyError


class _Parser(argparse.ArgumentParser):
    """argparse, but bad usage raises instead of exiting, so that :func:`main` returns 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for the docs and tests)."""
    parser = _Parser(
        prog="llverify",
        description="Verify and synthesize GPU tensor layouts (Triton linear layouts).",
        epilog="Exit codes: 0 all good, 1 a check refuted or failed, 2 bad usage or bad "
        "input, 3 unknown (solver timeout).",
    )
    parser.add_argument("--version", action="version", version=f"llverify {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    layout_cmd.register(commands)
    convert_cmd.register(commands)
    access_cmd.register(commands)
    swizzle_cmd.register(commands)
    triton_cmd.register(commands)
    audit_cmd.register(commands)
    prove_cmd.register(commands)
    draw_cmd.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``llverify`` console script; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as error:
        print(f"{one_line(str(error))} (usage: 'llverify --help')", file=sys.stderr)
        return EXIT_USAGE
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.handler(args))
    except LLVerifyError as error:
        print(f"llverify: error: {one_line(str(error))}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
