"""The ``llverify`` command: the parser and the dispatch to the subcommands.

Exit codes: 0 all good, 1 a check refuted or failed, 2 bad usage or bad input,
3 unknown/timeout, 130 interrupted (Ctrl-C: one line, nothing recorded, no answer printed),
141 the output's reader went away (``llverify ... | head``), as for a program that SIGPIPE
ends.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from llverify import __version__
from llverify.cli import (
    access_cmd,
    atoms_cmd,
    audit_cmd,
    coalescing_cmd,
    convert_cmd,
    draw_cmd,
    examples_cmd,
    layout_cmd,
    partitions_cmd,
    prove_cmd,
    swizzle_cmd,
    triton_cmd,
    validate_cmd,
)
from llverify.cli.args import EXIT_USAGE, HelpFormatter
from llverify.cli.message import one_line
from llverify.errors import LLVerifyError


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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for the docs and tests)."""
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
    layout_cmd.register(commands)
    convert_cmd.register(commands)
    access_cmd.register(commands)
    partitions_cmd.register(commands)
    swizzle_cmd.register(commands)
    coalescing_cmd.register(commands)
    triton_cmd.register(commands)
    audit_cmd.register(commands)
    prove_cmd.register(commands)
    draw_cmd.register(commands)
    atoms_cmd.register(commands)
    validate_cmd.register(commands)
    examples_cmd.register(commands)
    return parser


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
    parser = build_parser()
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
