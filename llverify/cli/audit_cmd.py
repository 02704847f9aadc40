"""``llverify audit KERNEL.ttgir``: every layout operation of a TTGIR module, verified and
costed, sorted by cost; rule options make it a CI gate."""

from __future__ import annotations

import argparse
from typing import Any

from llverify.bits import counted
from llverify.cli.args import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNKNOWN,
    KERNEL,
    HelpFormatter,
    examples,
    non_empty,
    parse_timeout,
    read_text_file,
)
from llverify.cli.output import to_json
from llverify.errors import LLVerifyError
from llverify.verdict import Status


def violations(report: Any, max_conflicts: int | None, require_proofs: bool) -> list[str]:
    """The rule violations of an audit report, one line each."""
    found = []
    for f in report.sorted():
        where = f"{f.location or 'line ' + str(f.line)} {f.op}"
        if max_conflicts is not None and f.conflicts > max_conflicts:
            found.append(
                f"{where}: {counted(f.conflicts, 'bank conflict')} > --max-bank-conflicts "
                f"{max_conflicts}"
            )
        if require_proofs and f.op == "ttg.convert_layout" and f.status != Status.PROVED:
            found.append(f"{where}: conversion {f.status}")
        if f.status == Status.ERROR:
            found.append(f"{where}: {f.summary}")
    return found


def _cmd_audit(args: argparse.Namespace) -> int:
    from llverify.audit.analyze import audit

    text = read_text_file(args.kernel)
    try:
        report = audit(text, args.target, timeout_s=args.timeout)
    except LLVerifyError as error:
        raise LLVerifyError(f"{args.kernel}: {error}") from None
    broken = violations(report, args.max_bank_conflicts, args.require_proofs)
    unknown = any(f.status == Status.UNKNOWN for f in report.findings)
    code = EXIT_FAILED if broken else EXIT_UNKNOWN if unknown and args.require_proofs else EXIT_OK
    if args.json:
        print(to_json({**report.to_dict(), "violations": broken, "exit_code": code}))
        return code
    print(f"{args.kernel}: {report.lines} lines, target {report.target}, {report.seconds:.2f} s")
    print(f"{'cost':>8}  {'status':8}  {'op':22}  {'location':28}  summary")
    for f in report.sorted():
        location = f.location.rsplit("/", 1)[-1] or f"line {f.line}"
        print(f"{f.cost:>8}  {f.status:8}  {f.op:22}  {location:28}  {f.summary}")
    if report.skipped:
        names = ", ".join(f"{k} x{v}" for k, v in sorted(report.skipped.items()))
        print(f"skipped (no layout semantics audited): {names}")
    for line in broken:
        print(f"VIOLATION {line}")
    return code


def register(commands: Any) -> None:
    """Add the ``audit`` subcommand."""
    parser = commands.add_parser(
        "audit",
        help="audit a TTGIR module: every layout operation verified and costed",
        description=(
            "Read a TTGIR module as Triton prints it (compiled.asm['ttgir'] or an IR dump) and "
            "report every convert_layout (proved, kind, optimal swizzle), local_alloc/store/"
            "load (vectors, bank conflicts, a certified better shared layout), dot operand "
            "consistency, and reductions/stores over duplicated data, sorted by cost. Unknown "
            "ops are listed as skipped. Exit 1 when a rule option is violated."
        ),
        epilog=examples(
            f"llverify audit {KERNEL}",
            f"llverify audit {KERNEL} --json --require-proofs",
            f"llverify audit {KERNEL} --max-bank-conflicts 0   # exit 1: a load has 1 conflict",
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("kernel", metavar="KERNEL.ttgir", type=non_empty, help="the TTGIR module")
    parser.add_argument(
        "--target",
        choices=["sm80", "sm86", "sm89", "sm90", "sm100", "sm120", "gfx942", "gfx950"],
        help="override the module's ttg.target (default: the module's)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--max-bank-conflicts",
        type=int,
        metavar="N",
        help="exit 1 when an access has more than N conflicts per wavefront",
    )
    parser.add_argument(
        "--require-proofs",
        action="store_true",
        help="exit 1 when a convert_layout is not proved (3 when unknown)",
    )
    parser.add_argument(
        "--timeout",
        type=parse_timeout,
        default=30.0,
        metavar="SECONDS",
        help="solver budget per synthesis (default %(default)s)",
    )
    parser.set_defaults(handler=_cmd_audit)
