"""``llverify prove [PATH ...]``: run the checks of TOML spec files (docs/specs.md), for CI.

Exit codes: 0 every check got what it expects, 1 some check did not (its message is printed),
2 a spec file is malformed (``FILE:LINE: ...``), an obligation's inputs were rejected, or bad
usage, 3 some check is unknown (a solver ran out of time) and none failed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llverify.cli.args import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_USAGE,
    HelpFormatter,
    add_allow_code_option,
    add_timeout_option,
    code_allowed,
    examples,
    non_empty,
    output_file,
    read_text_file,
)
from llverify.cli.junit import clean, write_xml
from llverify.cli.message import one_line
from llverify.cli.output import to_json, write_output
from llverify.errors import LLVerifyError
from llverify.proof.verdict import Status

_clean = clean


class _JUnitSuites:
    """The testcases of a JUnit report, one testsuite per spec file, with their tallies."""

    def __init__(self) -> None:
        self.suites: dict[str, list[ET.Element]] = {}
        self.counts: dict[str, dict[str, float]] = {}

    def case(self, file: str, name: str, line: int, time_s: float) -> ET.Element:
        """A new testcase of ``file``'s suite, counted."""
        element = ET.Element(
            "testcase",
            name=_clean(name),
            classname=_clean(Path(file).with_suffix("").as_posix().replace("/", ".")),
            file=_clean(file),
            line=str(line),
            time=f"{time_s:.3f}",
        )
        self.suites.setdefault(file, []).append(element)
        tally = self.counts.setdefault(file, {"tests": 0, "failures": 0, "errors": 0, "time": 0.0})
        tally["tests"] += 1
        tally["time"] += time_s
        return element

    def spec_error(self, error: Any) -> None:
        """A malformed spec file: one <error> testcase."""
        element = self.case(error.file, "spec file", error.line, 0.0)
        text = _clean(str(error))
        ET.SubElement(element, "error", type="SpecError", message=text).text = text
        self.counts[error.file]["errors"] += 1

    def outcome(self, outcome: Any) -> None:
        """One obligation: unknown and rejected inputs are <error>s, a verdict other than the
        expected one a <failure>; a pass keeps its message as <system-out>."""
        element = self.case(outcome.file, outcome.name, outcome.line, outcome.seconds)
        headline = f"expected {outcome.expected}, got {outcome.status}"
        if outcome.status in (Status.UNKNOWN, Status.ERROR):
            child = ET.SubElement(element, "error", type=str(outcome.status))
            self.counts[outcome.file]["errors"] += 1
        elif not outcome.passed:
            child = ET.SubElement(element, "failure", type=str(outcome.status))
            self.counts[outcome.file]["failures"] += 1
        else:
            ET.SubElement(element, "system-out").text = _clean(outcome.message)
            return
        child.set("message", _clean(f"{headline}: {outcome.message}"))
        child.text = _clean(f"{outcome.location}: {headline}\n{outcome.message}")

    def tree(self, seconds: float) -> ET.Element:
        """The <testsuites> root: every suite with its tallies, and the totals."""
        root = ET.Element("testsuites", name="llverify prove", time=f"{seconds:.3f}")
        totals = {"tests": 0.0, "failures": 0.0, "errors": 0.0}
        for file, cases in self.suites.items():
            tally = self.counts[file]
            suite = ET.SubElement(
                root,
                "testsuite",
                name=_clean(file),
                tests=str(int(tally["tests"])),
                failures=str(int(tally["failures"])),
                errors=str(int(tally["errors"])),
                skipped="0",
                time=f"{tally['time']:.3f}",
            )
            suite.extend(cases)
            for key in totals:
                totals[key] += tally[key]
        for key, value in totals.items():
            root.set(key, str(int(value)))
        return root


def write_junit(
    path: str, outcomes: Sequence[Any], spec_errors: Sequence[Any], seconds: float
) -> None:
    """JUnit XML: one testsuite per spec file, one testcase per obligation; refuted or proved
    against the expectation is a <failure>, unknown and rejected inputs are <error>s, and a
    malformed spec file is one <error> testcase."""
    suites = _JUnitSuites()
    for error in spec_errors:
        suites.spec_error(error)
    for outcome in outcomes:
        suites.outcome(outcome)
    write_xml(path, suites.tree(seconds))


def summarize(outcomes: Sequence[Any]) -> dict[str, dict[str, int]]:
    """Per kind (and "total"): count, passed, failed (verdict differs from the expectation),
    unknown, error."""
    table: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        for key in (outcome.kind, "total"):
            row = table.setdefault(
                key, {"count": 0, "passed": 0, "failed": 0, "unknown": 0, "error": 0}
            )
            row["count"] += 1
            if outcome.passed:
                row["passed"] += 1
            elif outcome.status in (Status.UNKNOWN, Status.ERROR):
                row[Status(outcome.status).value] += 1
            else:
                row["failed"] += 1
    if "total" in table:
        table["total"] = table.pop("total")  # last
    return table


def _print_table(table: dict[str, dict[str, int]]) -> None:
    columns = ["count", "passed", "failed", "unknown"]
    if table.get("total", {}).get("error"):
        columns.append("error")
    width = max([len("kind"), *map(len, table)])
    print(f"{'kind':<{width}}  " + "  ".join(f"{c:>7}" for c in columns))
    for kind, row in table.items():
        print(f"{kind:<{width}}  " + "  ".join(f"{row[c]:>7}" for c in columns))


def exit_code(outcomes: Sequence[Any], spec_errors: Sequence[Any] = ()) -> int:
    """2 for spec errors or rejected inputs, 1 for a verdict other than the expected one,
    3 for unknown, 0 when everything passed."""
    if spec_errors or any(o.status == Status.ERROR for o in outcomes):
        return EXIT_USAGE
    if any(not o.passed and o.status != Status.UNKNOWN for o in outcomes):
        return EXIT_FAILED
    if any(o.status == Status.UNKNOWN for o in outcomes):
        return EXIT_UNKNOWN
    return EXIT_OK


def _progress(done: int, total: int, outcome: Any) -> None:
    mark = ""
    if not outcome.passed:
        mark = (
            " UNKNOWN"
            if outcome.status == Status.UNKNOWN
            else f" FAILED (expected {outcome.expected})"
        )
        if outcome.status == Status.ERROR:
            mark = " ERROR"
    print(
        f"[{done}/{total}] {outcome.name} ... {outcome.status} ({outcome.seconds:.2f} s){mark}",
        file=sys.stderr,
        flush=True,
    )


def _obligations(args: argparse.Namespace) -> tuple[list[Any], list[Any], list[Any]]:
    """(files, obligations, spec errors) of the PATHs, or of the built-in library without
    PATH: every obligation of the llverify.specs modules and of its spec files."""
    from llverify.checkfiles import SpecError, parse, spec_files
    from llverify.proof.library import builtin_spec_files, library_obligations, source_name

    builtin = not args.paths
    files = builtin_spec_files() if builtin else spec_files(args.paths)
    obligations: list[Any] = list(library_obligations()) if builtin else []
    spec_errors: list[SpecError] = []
    for file in files:
        source = source_name(file) if builtin else None  # records name built-ins "specs/..."
        try:
            obligations.extend(parse(file, allow_code=code_allowed(args), source=source))
        except SpecError as error:
            spec_errors.append(error)
    if not spec_errors and not obligations:
        raise LLVerifyError(
            f"the spec files hold no [[check]] tables: {', '.join(map(str, files))}."
        )
    return files, obligations, spec_errors


def _json_report(
    files: Sequence[Any],
    outcomes: Sequence[Any],
    spec_errors: Sequence[Any],
    seconds: float,
    regressions: list[str],
    code: int,
) -> dict[str, Any]:
    """The ``--json`` report."""
    return {
        "files": [str(f) for f in files],
        "outcomes": [o.to_dict() for o in outcomes],
        "summary": summarize(outcomes),
        "spec_errors": [{"file": e.file, "line": e.line, "message": e.reason} for e in spec_errors],
        "seconds": seconds,
        "record_regressions": regressions,
        "exit_code": code,
    }


def _print_outcomes(outcomes: Sequence[Any], regressions: list[str], seconds: float) -> None:
    """Each obligation that did not pass, the record regressions, the table and the totals."""
    for outcome in outcomes:
        if outcome.passed:
            continue
        label = {Status.UNKNOWN: "UNKNOWN", Status.ERROR: "ERROR"}.get(outcome.status, "FAILED")
        print(
            f"{label} {outcome.name} ({outcome.location}): expected {outcome.expected}, "
            f"got {outcome.status}"
        )
        print(f"  {outcome.message}")
    if any(not o.passed for o in outcomes):
        print()
    for regression in regressions:
        print(f"REGRESSION {regression}")
    table = summarize(outcomes)
    _print_table(table)
    total = table["total"]
    print(
        f"{total['passed']} passed, {total['failed']} failed, {total['unknown']} unknown"
        + (f", {total['error']} error(s)" if total["error"] else "")
        + f" in {seconds:.2f} s"
    )


def _print_spec_errors(spec_errors: Sequence[Any]) -> None:
    """One line each on stderr, the last one with the count."""
    lines = [one_line(str(spec_error)) for spec_error in spec_errors]
    lines[-1] += f" ({len(spec_errors)} malformed spec file(s); nothing was run)"
    print("\n".join(lines), file=sys.stderr)


def _cmd_prove(args: argparse.Namespace) -> int:
    from llverify.proof.library import run_all

    if args.jobs < 0:
        raise LLVerifyError(f"--jobs must be >= 0 (0: one per CPU), not {args.jobs}.")
    jobs = args.jobs or os.cpu_count() or 1
    # Read the records first: a bad records file is refused before anything runs or is written.
    recorded = load_records(args.check_records) if args.check_records else None
    started = time.perf_counter()
    files, obligations, spec_errors = _obligations(args)
    outcomes = []
    if not spec_errors:
        progress = None if args.quiet else _progress
        outcomes = run_all(obligations, jobs=jobs, timeout_s=args.timeout, progress=progress)
    seconds = time.perf_counter() - started
    code = exit_code(outcomes, spec_errors)
    regressions: list[str] = []
    if args.record and not spec_errors:
        write_records(args.record, outcomes)
    if recorded is not None and not spec_errors:
        regressions = check_records(recorded, outcomes)
        if regressions and code in (EXIT_OK, EXIT_UNKNOWN):
            code = EXIT_FAILED
    if args.junit:
        write_junit(args.junit, outcomes, spec_errors, seconds)
    if args.json:
        report = _json_report(files, outcomes, spec_errors, seconds, regressions, code)
        print(to_json(report, default=str))
    elif spec_errors:
        _print_spec_errors(spec_errors)
    else:
        _print_outcomes(outcomes, regressions, seconds)
    return code


def _record_key(outcome: Any) -> str:
    """``FILE::NAME`` with FILE relative to the working directory (records are committed)."""
    file = Path(outcome.file)
    try:
        file = file.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        pass
    return f"{file.as_posix()}::{outcome.name}"


def _record_of(outcome: Any) -> dict[str, Any]:
    """What is recorded per obligation: the verdict, how it was decided, and a swizzle's
    certificate (no timings, so that the committed records only change with verdicts)."""
    record: dict[str, Any] = {"status": str(outcome.status), "expected": str(outcome.expected)}
    method = outcome.details.get("method") or outcome.details.get("verdict", {}).get("method")
    if method:
        record["method"] = method
    certificate = outcome.details.get("certificate")
    if isinstance(certificate, str):  # a swizzle: the certificate and its claim
        record["certificate"] = {"status": str(certificate), "evidence": outcome.message}
    return record


def write_records(path: str, outcomes: Sequence[Any]) -> None:
    """Write the verdicts (and certificates) of ``outcomes`` to ``path`` as JSON, atomically
    (:func:`llverify.cli.output.write_output`: a failed write leaves the old records)."""
    records = {_record_key(o): _record_of(o) for o in outcomes}
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)  # --record makes its folder
    except OSError as error:
        raise LLVerifyError(f"--record: cannot write '{path}': {error.strerror or error}") from None
    write_output(path, json.dumps(records, indent=1, sort_keys=True) + "\n", "--record")


def load_records(path: str) -> dict[str, dict[str, Any]]:
    """The records file ``path`` (as ``--record`` writes it): a JSON object mapping each
    obligation to an object with string ``status`` and ``expected``; anything else is refused.

    Examples:
        >>> load_records("/dev/null")
        Traceback (most recent call last):
        ...
        llverify.errors.LLVerifyError: --check-records: cannot read /dev/null: '/dev/null' is a device or a socket, not a file.
    """  # noqa: E501 - a doctest output line
    try:
        records = json.loads(read_text_file(path))
    except (LLVerifyError, ValueError, RecursionError) as error:
        reason = "nested too deeply" if isinstance(error, RecursionError) else error
        raise LLVerifyError(f"--check-records: cannot read {path}: {reason}") from None
    if not isinstance(records, dict):
        raise LLVerifyError(f"--check-records: {path} must hold a JSON object of records.")
    for key, record in records.items():
        if not (
            isinstance(record, dict)
            and isinstance(record.get("status"), str)
            and isinstance(record.get("expected"), str)
        ):
            raise LLVerifyError(
                f"--check-records: {path}: the record of {key[:80]!r} must be an object with "
                "string 'status' and 'expected' (as --record writes it)."
            )
    return records


def check_records(records: dict[str, dict[str, Any]], outcomes: Sequence[Any]) -> list[str]:
    """Obligations recorded as passing (status == expected) that no longer pass, or that
    disappeared: each as one line of text."""
    now = {_record_key(o): o for o in outcomes}
    lost = []
    for key, record in sorted(records.items()):
        if record["status"] != record["expected"]:
            continue  # only what passed when recorded must keep passing
        outcome = now.get(key)
        if outcome is None:
            lost.append(f"{key}: recorded {record.get('status')}, no longer checked")
        elif not outcome.passed:
            lost.append(f"{key}: recorded {record.get('status')}, now {outcome.status}")
    return lost


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """How the obligations run: processes, the solver budget, code in spec files."""
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=1,
        metavar="N",
        help="run N obligations in parallel processes (0: one per CPU; default 1)",
    )
    add_timeout_option(
        parser,
        "solver budget: each Z3 query of an equivalence, a whole swizzle synthesis; past it "
        "a check is unknown",
    )
    add_allow_code_option(parser, "reference_function = 'package.module:function'")


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """What is written: JUnit XML, JSON, progress lines, the records and their check."""
    parser.add_argument(
        "--junit", metavar="FILE", type=output_file, help="also write JUnit XML to FILE"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--record",
        metavar="FILE",
        type=output_file,
        help="write every verdict (and swizzle certificate) to FILE as JSON (e.g. "
        "proofs/records.json)",
    )
    parser.add_argument(
        "--check-records",
        metavar="FILE",
        type=non_empty,
        help="exit 1 when an obligation recorded as passing in FILE no longer passes",
    )


def register(commands: Any) -> None:
    """Add the ``prove`` subcommand."""
    parser = commands.add_parser(
        "prove",
        help="run the checks of TOML spec files (CI): equivalences, conversions, bank "
        "conflicts, vectorization, swizzles",
        description=(
            "Run every [[check]] of the spec files (docs/specs.md) and compare each verdict "
            "with what the check expects. PATHs are spec files or directories searched for "
            "*.toml; without PATH, the built-in library: every obligation of the "
            "llverify.specs package and its specs/**/*.toml. Exit 0 all passed, 1 some "
            "verdict differs from its expectation, 2 malformed spec or bad usage, 3 some "
            "check unknown (solver timeout) and none failed."
        ),
        epilog=examples(
            "llverify prove --quiet --check-records proofs/records.json   # the built-in library",
            "llverify prove llverify/specs/examples --junit llverify.xml --quiet",
            "llverify prove llverify/specs/examples/tutorial.llverify.toml --json --quiet",
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", type=non_empty, help="spec files or directories"
    )
    _add_run_options(parser)
    _add_output_options(parser)
    parser.set_defaults(handler=_cmd_prove)
