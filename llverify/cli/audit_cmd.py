"""``llverify audit KERNEL.ttgir``: every layout operation of a TTGIR module, verified and
costed, sorted by cost; rule options make it a CI gate."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from llverify.cli.access_cmd import conflict_limit
from llverify.cli.args import EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN
from llverify.errors import LLVerifyError
from llverify.verdict import Status


def violations(report: Any, max_conflicts: int | None, require_proofs: bool) -> list[str]:
    """The rule violations of an audit report, one line each."""
    found = []
    for f in report.sorted():
        where = f"{f.location or 'line ' + str(f.line)} {f.op}"
        if max_conflicts is not None and f.conflicts > max_conflicts:
            found.append(
                f"{where}: {f.conflicts} bank conflicts > --max-bank-conflicts {max_conflicts}"
            )
        if require_proofs and f.op == "ttg.convert_layout" and f.status != Status.PROVED:
            found.append(f"{where}: conversion {f.status}")
        if f.status == Status.ERROR:
            found.append(f"{where}: {f.summary}")
    return found


def _cmd_audit(args: argparse.Namespace) -> int:
    from llverify.audit.analyze import audit

    path = Path(args.kernel)
    try:
        text = path.read_text()
    except OSError as error:
        raise LLVerifyError(f"cannot read {args.kernel}: {error.strerror}") from None
    try:
        report = audit(text, args.target, timeout_s=args.timeout)
    except LLVerifyError as error:
        raise LLVerifyError(f"{args.kernel}: {error}") from None
    broken = violations(report, args.max_bank_conflicts, args.require_proofs)
    unknown = any(f.status == Status.UNKNOWN for f in report.findings)
    code = EXIT_FAILED if broken else EXIT_UNKNOWN if unknown and args.require_proofs else EXIT_OK
    if args.json:
        print(json.dumps({**report.to_dict(), "violations": broken, "exit_code": code}, indent=2))
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
    )
    parser.add_argument("kernel", metavar="KERNEL.ttgir", help="the TTGIR module")
    parser.add_argument(
        "--target",
        choices=["sm80", "sm86", "sm89", "sm90", "sm100", "sm120", "gfx942", "gfx950"],
        help="override the module's ttg.target",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--max-bank-conflicts",
        type=conflict_limit,
        metavar="N",
        help="exit 1 when an access has more than N conflicts per wavefront",
    )
    parser.add_argument(
        "--require-proofs",
        action="store_true",
        help="exit 1 when a convert_layout is not proved (3 when unknown)",
    )
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="solver budget per synthesis, seconds"
    )
    parser.set_defaults(handler=_cmd_audit)
