"""``llverify swizzle SRC DST``: the certified optimal shared layout for a conversion."""

from __future__ import annotations

import argparse
from typing import Any

from llverify.cli.args import (
    COL,
    EXIT_OK,
    EXIT_UNKNOWN,
    ROW,
    HelpFormatter,
    add_timeout_option,
    examples,
    non_empty,
)
from llverify.cli.convert_cmd import (
    add_common,
    conversion_arguments,
    print_swizzle,
    swizzle_summary,
)
from llverify.cli.output import to_json
from llverify.proof.verdict import Status


def _cmd_swizzle(args: argparse.Namespace) -> int:
    from llverify.shared_memory.swizzle import synthesize_swizzle

    shape, bits, src, dst = conversion_arguments(args)
    result = synthesize_swizzle(
        src,
        dst,
        shape,
        bits,
        args.target,
        vector=args.vector,
        padding=args.padding,
        timeout_s=args.timeout,
    )
    summary = swizzle_summary(result)
    code = EXIT_UNKNOWN if result.certificate.status == Status.UNKNOWN else EXIT_OK
    if args.json:
        print(to_json(summary))
        return code
    print("synthesized shared layout:")
    print_swizzle(summary)
    return code


def register(commands: Any) -> None:
    """Add the ``swizzle`` subcommand."""
    parser = commands.add_parser(
        "swizzle",
        help="synthesize the optimal shared-memory layout for a conversion, certified",
        description=(
            "The shared layout with the widest vectors, then the fewest store + load "
            "wavefronts, found by constraint solving, with a certificate that nothing with "
            "at least the same widths is cheaper; prints the bases, costs, Gluon code and "
            "TTGIR text. Exit 3 when the solver ran out of time (certificate unknown)."
        ),
        epilog=examples(
            f"llverify swizzle {ROW} {COL} --shape 128x64 --dtype f16",
            f"llverify swizzle {ROW} {COL} --shape 128x64 --dtype bf16 --json",
            f"llverify swizzle {ROW} {COL} --shape 128x64 --vector asymmetric --padding",
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("src", metavar="SRC", type=non_empty, help="source (stored) layout")
    parser.add_argument("dst", metavar="DST", type=non_empty, help="destination (loaded) layout")
    add_common(parser)
    parser.add_argument(
        "--vector",
        default="symmetric",
        choices=["symmetric", "asymmetric"],
        help="vector widths: the widest common width, or each side as wide as possible "
        "(default %(default)s)",
    )
    parser.add_argument(
        "--padding",
        action="store_true",
        help="also search padded layouts (one interval/padding pair, every order)",
    )
    add_timeout_option(parser, "solver budget in seconds")
    parser.set_defaults(handler=_cmd_swizzle)
