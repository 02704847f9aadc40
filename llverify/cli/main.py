"""The ``llverify`` command: the parser and the dispatch to the subcommands.

Exit codes: 0 all good, 1 a check refuted or failed, 2 bad usage or bad input,
3 unknown/timeout, 130 interrupted (Ctrl-C: one line, nothing recorded, no answer printed),
141 the output's reader went away (``llverify ... | head``), as for a program that SIGPIPE
ends.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from llverify import __version__
from llverify.cli.message import EXIT_USAGE, HelpFormatter, one_line
from llverify.errors import LLVerifyError

#: The subcommands in the order ``llverify --help`` lists them: (name, its module in
#: llverify.cli, its one-line help).  The help line is repeated here so that the parser of
#: one command imports that command's module only (``llverify --help``: none);
#: tests/test_imports_lazy.py checks that each line is what the module registers.
COMMANDS = (
    ("layout", "layout_cmd", "print a layout in Triton's text with its properties"),
    (
        "convert",
        "convert_cmd",
        "prove a layout conversion and say how Triton lowers it and what it costs",
    ),
    (
        "bank-conflicts",
        "access_cmd",
        "bank conflicts of a register layout stored to / loaded from a shared layout",
    ),
    (
        "lds-partitions",
        "partitions_cmd",
        "gfx1250 LDS partition conflicts of a register layout and a shared layout",
    ),
    (
        "swizzle",
        "swizzle_cmd",
        "synthesize the optimal shared-memory layout for a conversion, certified",
    ),
    (
        "coalescing",
        "coalescing_cmd",
        "global-memory sectors, lines, vector width and efficiency of a register layout",
    ),
    (
        "triton-check",
        "triton_cmd",
        "check the installed Triton's layout converters against llverify's",
    ),
    ("audit", "audit_cmd", "audit a TTGIR module: every layout operation verified and costed"),
    (
        "prove",
        "prove_cmd",
        "run the checks of TOML spec files (CI): equivalences, conversions, bank "
        "conflicts, vectorization, swizzles",
    ),
    ("draw", "draw_cmd", "draw a layout, a bank map or a conversion (SVG, HTML, PNG)"),
    ("atoms", "atoms_cmd", "the MMA and copy atom catalogue: list, show, prove, draw"),
    (
        "validate",
        "validate_cmd",
        "prove the code Triton emits for each layout op (translation validation)",
    ),
    (
        "examples",
        "examples_cmd",
        "copy the example TTGIR modules and dumped kernels the help examples use",
    ),
)


class _Parser(argparse.ArgumentParser):
    """argparse, but bad usage raises instead of exiting, so that :func:`main` returns 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


#: The exit code when the reader of the output closed it early: 128 + SIGPIPE, what a shell
#: reports for a program that the signal ends.
EXIT_BROKEN_PIPE = 141

#: The exit code of a run that Ctrl-C stopped: 128 + SIGINT, as a shell reports it.
EXIT_INTERRUPTED = 130


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (exposed for the docs and tests): every subcommand's, or with
    ``command``, that one's only (the others are listed with their help line, without their
    arguments, and their modules are not imported).

    Examples:
        >>> build_parser("layout").parse_args(["layout", "x.json"]).command
        'layout'
    """
    parser = _Parser(
        prog="llverify",
        description="Verify and synthesize GPU tensor layouts (Triton linear layouts).",
        epilog="Exit codes: 0 all good, 1 a check refuted or failed, 2 bad usage or bad "
        "input, 3 unknown (solver timeout), 130 interrupted (Ctrl-C). Each subcommand's "
        "--help shows examples.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"llverify {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module, help_line in COMMANDS:
        if command is None or name == command:
            importlib.import_module(f"llverify.cli.{module}").register(commands)
        else:
            commands.add_parser(name, help=help_line, formatter_class=HelpFormatter)
    return parser


def _command(argv: Sequence[str]) -> str:
    """The subcommand ``argv`` names: its first word that is not an option (the top-level
    options take no value), or "" when there is none."""
    return next((word for word in argv if not word.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``llverify`` console script; returns the exit code. When the
    output's reader goes away (``llverify ... | head``) it stops quietly with
    :data:`EXIT_BROKEN_PIPE`, no traceback; Ctrl-C (KeyboardInterrupt, raised also by an
    interrupted solver query) stops it with one line and :data:`EXIT_INTERRUPTED`: what was
    still running is abandoned, its workers ended, and no output file is written."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # a closed pipe shows here, while it can still be caught
    except KeyboardInterrupt:
        print("llverify: interrupted", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Python would flush stdout again at exit and report the same error: point stdout at
        # the null device first (the pattern of the Python docs, 'Note on SIGPIPE').
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE
    return code


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser(_command(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version: printed; main() flushes the output
        return int(done.code or 0)
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
