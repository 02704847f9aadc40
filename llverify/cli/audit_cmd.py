"""``llverify audit KERNEL.ttgir``: every layout operation of a TTGIR module, verified and
costed, sorted by cost; rule options make it a CI gate."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from llverify.bits import counted
from llverify.cli.args import (
    EXAMPLES_DIR,
    EXAMPLES_NOTE,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNKNOWN,
    KERNEL,
    HelpFormatter,
    add_gpu_target_option,
    add_timeout_option,
    examples,
    non_empty,
    non_negative_int,
    read_text_file,
)
from llverify.cli.output import to_json
from llverify.cli.validate_cmd import (
    add_compile_options,
    add_max_ops_option,
    print_report,
    run_validation,
    triton_checked,
)
from llverify.errors import LLVerifyError
from llverify.hardware import TARGETS
from llverify.proof.verdict import Status

#: what ``audit --target`` says of its choices (those of validate; some have no bank model)
TARGET_HELP = (
    "override the module's ttg.target: this target's shared-memory bank model (and, with "
    "--emitted, its Triton target; default: the module's); the targets of 'validate "
    "--target', but "
    + ", ".join(name for name, t in TARGETS.items() if t.bank_model is None)
    + " exits 2: llverify has no shared-memory bank model for it"
)


def violations(report: Any, max_conflicts: int | None) -> list[str]:
    """The findings that fail the audit, one line each: a refuted conversion, an error, and
    an access above ``max_conflicts`` (when given)."""
    found = []
    for f in report.sorted():
        where = f"{f.location or 'line ' + str(f.line)} {f.op} [{f.rule}]"
        if max_conflicts is not None and f.conflicts > max_conflicts:
            found.append(
                f"{where}: {counted(f.conflicts, 'bank conflict')} > --max-bank-conflicts "
                f"{max_conflicts}"
            )
        if f.status in (Status.REFUTED, Status.ERROR):
            found.append(f"{where}: {f.summary}")
    return found


def print_coverage(coverage: dict[str, Any]) -> None:
    """The coverage summary: the layout-sensitive operations checked, per rule, and the
    unchecked ones grouped by operation and reason."""
    rules = ", ".join(f"{rule} {count}" for rule, count in coverage["by_rule"].items())
    print(
        f"coverage: {coverage['checked']} of {coverage['layout_ops']} layout-sensitive "
        f"operations checked by the rules ({rules or 'no rule ran'})"
    )
    groups: dict[tuple[str, str], list[str]] = {}
    for op in coverage["unchecked"]:
        where = op["location"].rsplit("/", 1)[-1] or f"line {op['line']}"
        groups.setdefault((op["op"], op["reason"]), []).append(where)
    for (name, reason), places in groups.items():
        shown = ", ".join(dict.fromkeys(places))
        print(f"  not checked: {name} x{len(places)} ({shown}): {reason}")


def exit_code(report: Any, broken: list[str], require_proofs: bool) -> int:
    """1 when something fails (``broken``), else 3 when ``require_proofs`` and a check is
    unknown (the solver ran out of time), else 0.

    Examples:
        >>> from types import SimpleNamespace
        >>> unknown = SimpleNamespace(findings=[SimpleNamespace(status=Status.UNKNOWN)])
        >>> exit_code(unknown, [], False), exit_code(unknown, [], True), exit_code(unknown, ["x"], True)
        (0, 3, 1)
    """  # noqa: E501
    if broken:
        return EXIT_FAILED
    unknown = any(f.status == Status.UNKNOWN for f in report.findings)
    return EXIT_UNKNOWN if unknown and require_proofs else EXIT_OK


def _check_rules(names: list[str] | None) -> None:
    """Refuse unknown ``--rule`` names before the module is read."""
    if names is None:
        return
    from llverify.audit.analyze import select_rules

    try:
        select_rules(names)
    except ValueError as error:
        raise LLVerifyError(f"--rule: {str(error).split(': ', 1)[1]}") from None


def _audit_file(args: argparse.Namespace) -> Any:
    """The audit report of the KERNEL file; a malformed or ill-formed module (or one that
    Triton's own parser refuses) is ``FILE:LINE:COLUMN: ...``."""
    from llverify.audit.analyze import audit
    from llverify.ttgir import ModuleError

    text = read_text_file(args.kernel)
    progress = None if args.json or args.quiet else (lambda m: print(f"... {m}", file=sys.stderr))
    try:
        with triton_checked(text, args.kernel):
            return audit(
                text,
                args.target,
                timeout_s=args.timeout,
                rules=args.rule,
                progress=progress,
                check=True,
            )
    except ModuleError as error:  # FILE:LINE[:COLUMN]: what is malformed
        column = "" if error.column is None else f":{error.column}"
        raise LLVerifyError(f"{args.kernel}:{error.line}{column}: {error.detail}") from None
    except LLVerifyError as error:
        raise LLVerifyError(f"{args.kernel}: {error}") from None


def _with_emitted(args: argparse.Namespace, report: Any, emitted: Any, broken: list[str]) -> int:
    """The exit code once the emitted code's refuted ops join ``broken`` (in place)."""
    broken += [
        f"{v.location or 'line ' + str(v.op_line)} {v.op}: emitted code refuted: {v.reason}"
        for v in emitted.verdicts
        if v.status is Status.REFUTED
    ]
    code = exit_code(report, broken, args.require_proofs)
    if code == EXIT_OK and args.require_proofs and emitted.status is Status.UNKNOWN:
        code = EXIT_UNKNOWN
    return code


def print_audit(kernel: str, report: Any, emitted: Any, broken: list[str]) -> None:
    """The findings table, coverage, operations no rule applies to, the emitted code's
    verdicts (``--emitted``) and the violations."""
    print(f"{kernel}: {report.lines} lines, target {report.target}, {report.seconds:.2f} s")
    if report.refused:
        print(f"REFUSED: {report.refused}")
    print(f"{'cost':>8}  {'status':8}  {'op':22}  {'rule':20}  {'location':28}  summary")
    for f in report.sorted():
        location = f.location.rsplit("/", 1)[-1] or f"line {f.line}"
        print(f"{f.cost:>8}  {f.status:8}  {f.op:22}  {f.rule:20}  {location:28}  {f.summary}")
    print_coverage(report.coverage())
    if report.skipped:
        names = ", ".join(f"{k} x{v}" for k, v in sorted(report.skipped.items()))
        print(f"operations no rule applies to: {names}")
    if emitted is not None:
        print("emitted code (llverify validate):")
        print_report(emitted)
    for line in broken:
        print(f"VIOLATION {line}")


def _cmd_audit(args: argparse.Namespace) -> int:
    _check_rules(args.rule)
    if not args.emitted and (args.release or args.python):
        option = "--release" if args.release else "--python"
        raise LLVerifyError(
            f"{option} chooses the Triton that compiles the module for --emitted; without "
            f"--emitted the audit compiles nothing (add --emitted, or leave {option} out)."
        )
    report = _audit_file(args)
    broken = violations(report, args.max_bank_conflicts)
    code = exit_code(report, broken, args.require_proofs)
    emitted = _validate_emitted(args) if args.emitted else None
    if emitted is not None:
        code = _with_emitted(args, report, emitted, broken)
    if args.json:
        extra = {} if emitted is None else {"emitted": emitted.to_dict()}
        print(to_json({**report.to_dict(), **extra, "violations": broken, "exit_code": code}))
        return code
    print_audit(args.kernel, report, emitted, broken)
    return code


def _validate_emitted(args: argparse.Namespace) -> Any:
    """Validate the code Triton emits for the module's ops (``--emitted``)."""
    namespace = argparse.Namespace(
        target=args.target,
        python=args.python,
        release=args.release,
        json=args.json,
        quiet=args.quiet,
        timeout=300.0,
        function=None,
        max_ops=args.max_ops,
    )
    return run_validation(namespace, args.kernel)


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """What is printed, and which rules run."""
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress lines on stderr (a long audit prints them; --json never does)",
    )
    parser.add_argument(
        "--rule",
        action="append",
        metavar="NAME",
        help="run only this rule (repeatable; module-consistency always runs; the rules are "
        "listed in docs/audit.md, e.g. convert-layout, shared-access)",
    )


def _add_gate_options(parser: argparse.ArgumentParser) -> None:
    """What fails the audit, and the solver's budget."""
    parser.add_argument(
        "--max-bank-conflicts",
        type=non_negative_int,
        metavar="N",
        help="exit 1 when an access has more than N conflicts per wavefront",
    )
    parser.add_argument(
        "--require-proofs",
        action="store_true",
        help="exit 3 when a check is unknown (the solver ran out of time); a refuted "
        "conversion exits 1 with or without it",
    )
    add_timeout_option(parser, "solver budget per synthesis", 30.0)


def register(commands: Any) -> None:
    """Add the ``audit`` subcommand."""
    parser = commands.add_parser(
        "audit",
        help="audit a TTGIR module: every layout operation verified and costed",
        description=(
            "Read a TTGIR module as Triton prints it (compiled.asm['ttgir'] or an IR dump) and "
            "check every layout-carrying operation with the audit's named rules: encodings "
            "against the module (an inconsistent module is refused), convert_layout (proved, "
            "kind, optimal swizzle), local_alloc/store/load (vectors, bank conflicts, a "
            "certified better shared layout), dot operands, reductions/stores over duplicated "
            "data, and more (docs/audit.md), sorted by cost, with a coverage report. Exit 1 "
            "when the module is refused, a conversion is refuted, a rule finds an error or a "
            "rule option is violated; 2 when the module is malformed, truncated or invalid (an "
            "SSA value undefined, redefined or used as another type, an alias defined twice; "
            "where Triton is installed, its own parser and verifier also run, and their "
            "refusal is the error)." + EXAMPLES_NOTE
        ),
        epilog=examples(
            f"llverify audit {KERNEL}",
            f"llverify audit {KERNEL} --json --require-proofs",
            f"llverify audit {EXAMPLES_DIR}/matmul_int8_sm90.ttgir --max-bank-conflicts 0   "
            "# exit 1: a store has 7 conflicts",
            f"llverify audit {KERNEL} --emitted   # also prove the code Triton emits per op",
            f"llverify audit {KERNEL} --rule convert-layout --rule shared-access",
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("kernel", metavar="KERNEL.ttgir", type=non_empty, help="the TTGIR module")
    add_gpu_target_option(parser, TARGET_HELP)
    _add_output_options(parser)
    _add_gate_options(parser)
    parser.add_argument(
        "--emitted",
        action="store_true",
        help="also compile the module with the installed Triton and prove the emitted code of "
        "each op (as 'llverify validate'); a refuted op exits 1",
    )
    add_compile_options(parser)
    add_max_ops_option(parser)
    parser.set_defaults(handler=_cmd_audit)
