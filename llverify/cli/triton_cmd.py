"""``llverify triton-check``: the installed Triton's converters against llverify's."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from llverify.cli.args import EXIT_FAILED, EXIT_OK, HelpFormatter, add_timeout_option, examples
from llverify.cli.output import to_json


def _cmd_triton_check(args: argparse.Namespace) -> int:
    from llverify.triton.check import CheckResult, run_triton_check

    def progress(done: int, total: int, result: CheckResult) -> None:
        if not args.quiet and (result.status == "mismatch" or done % 50 == 0 or done == total):
            print(f"[{done}/{total}] {result.status}: {result.case.describe()}", file=sys.stderr)

    results = run_triton_check(progress=progress, timeout_s=args.timeout)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    bad = [r for r in results if r.status in ("mismatch", "error")]
    if args.json:
        print(
            to_json(
                {
                    "counts": counts,
                    "results": [
                        {
                            "layout": r.case.spec,
                            "shape": list(r.case.shape),
                            "status": r.status,
                            "detail": r.detail,
                        }
                        for r in results
                    ],
                }
            )
        )
    else:
        import triton

        print(f"triton {triton.__version__}: {len(results)} layouts checked")
        for family in sorted({r.case.family for r in results}):
            mine = [r for r in results if r.case.family == family]
            line = ", ".join(
                f"{status} {sum(r.status == status for r in mine)}"
                for status in ("match", "mismatch", "rejected", "error")
                if any(r.status == status for r in mine)
            )
            print(f"  {family:24} {line}")
        for r in bad:
            print(f"MISMATCH {r.case.describe()}: {r.detail}")
        print("all converters agree" if not bad else f"{len(bad)} layouts disagree")
    return EXIT_FAILED if bad else EXIT_OK


def register(commands: Any) -> None:
    """Add the ``triton-check`` subcommand."""
    parser = commands.add_parser(
        "triton-check",
        help="check the installed Triton's layout converters against llverify's",
        description=(
            "For a grid of Gluon layouts (blocked, slice, NVIDIA MMA v2/v3, dot operands, AMD "
            "MFMA/WMMA, swizzled and NVMMA shared), Triton's own toLinearLayout (in a "
            "subprocess) must give llverify's bases exactly. Layouts Triton refuses are "
            "reported as rejected, not failures. Exit 1 on any disagreement: the CI check "
            "for Triton forks."
        ),
        epilog=examples("llverify triton-check --quiet", "llverify triton-check --json --quiet"),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    add_timeout_option(parser, "budget for Triton's worker", 600.0)
    parser.set_defaults(handler=_cmd_triton_check)
