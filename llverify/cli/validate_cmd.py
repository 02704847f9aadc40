"""``llverify validate``: prove the code an installed Triton emits for each layout-carrying op
of a TTGIR module or a Triton/Gluon kernel (translation validation)."""

from __future__ import annotations

import argparse
import ast
import contextlib
import os
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from llverify.cli.args import (
    EXAMPLES_DIR,
    EXAMPLES_NOTE,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNKNOWN,
    KERNEL,
    HelpFormatter,
    add_allow_code_option,
    add_gpu_target_option,
    add_timeout_option,
    code_allowed,
    examples,
    non_empty,
    output_file,
    parse_timeout,
    read_text_file,
)
from llverify.cli.junit import clean, write_xml
from llverify.cli.output import to_json
from llverify.errors import LLVerifyError
from llverify.hardware import TARGETS
from llverify.proof.verdict import Status

#: what ``validate --target`` says of its choices (all of llverify.hardware.TARGETS)
TARGET_HELP = (
    "compile for this target's Triton target ("
    + ", ".join(f"{t.name}: {t.triton}" for t in TARGETS.values())
    + "); the targets of 'audit --target': Triton compiles each on the CPU (default: the "
    "module's ttg.target; sm90 for Python kernels)"
)


def exit_code(status: Status, require_proofs: bool, noted: bool = False) -> int:
    """1 when an op is refuted; 3 when one is unknown, or ``noted`` (a verdict carries a note:
    something seen, such as a read of unwritten shared memory whose value goes unused), and
    ``require_proofs``; else 0.

    Examples:
        >>> exit_code(Status.REFUTED, False), exit_code(Status.UNKNOWN, False), exit_code(Status.UNKNOWN, True)
        (1, 0, 3)
        >>> exit_code(Status.PROVED, False, noted=True), exit_code(Status.PROVED, True, noted=True)
        (0, 3)
    """  # noqa: E501
    if status is Status.REFUTED:
        return EXIT_FAILED
    if (status is Status.UNKNOWN or noted) and require_proofs:
        return EXIT_UNKNOWN
    return EXIT_OK


#: the element types of a ``--signature`` (Triton's ``type_canonicalisation_dict``, 2.1 to
#: 3.9: the names and their aliases), with ``*`` before them for a pointer
SIGNATURE_DTYPES = (
    "i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64",
    "fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16",
    "int1", "int8", "int16", "int32", "int64", "uint1", "uint8", "uint16", "uint32", "uint64",
    "bool", "int", "float", "double", "half", "float16", "bfloat16", "float32", "float64",
    "float8e4nv", "float8e5", "float8e4b15", "float8e4b8", "float8e5b16", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "fp8e4", "fp8e4b15x4",
)  # fmt: skip
#: signature types that are not element types (passed to Triton as written)
_OTHER_TYPES = ("constexpr", "nvTmaDesc")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _parse_signature(text: str) -> dict[str, str]:
    """``--signature NAME:TYPE,...`` as a dict; an element type Triton does not know (a plain
    word, after the ``*`` of a pointer and the ``k`` of a constant one) is refused with the
    known ones, before anything is compiled. Other types (``tensordesc<...>``) pass as written.

    Examples:
        >>> _parse_signature("x_ptr:*fp32, n:i32")
        {'x_ptr': '*fp32', 'n': 'i32'}
        >>> _parse_signature("x:*fp99")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llverify.errors.LLVerifyError: --signature: argument 'x' has the unknown type '*fp99'; ...
    """
    signature = {}
    for part in text.split(","):
        name, sep, ty = part.partition(":")
        if not sep or not name.strip() or not ty.strip():
            raise LLVerifyError(
                f"--signature: expected NAME:TYPE[,NAME:TYPE...] (e.g. "
                f"'x_ptr:*fp32,n:i32'), got {text!r}"
            )
        name, ty = name.strip(), ty.strip()
        element = ty.lstrip("*")
        if element != ty and element.startswith("k") and element[1:] in SIGNATURE_DTYPES:
            element = element[1:]  # *kfp16: a pointer to constant fp16
        if (
            _WORD.fullmatch(element)
            and element not in SIGNATURE_DTYPES
            and element not in _OTHER_TYPES
        ):
            raise LLVerifyError(
                f"--signature: argument {name!r} has the unknown type {ty!r}; expected a "
                f"Triton element type, '*' before it for a pointer: "
                f"{', '.join(SIGNATURE_DTYPES[:19])} (or an alias such as float32), or "
                f"{' or '.join(_OTHER_TYPES)}"
            )
        signature[name] = ty
    return signature


def _parse_constexprs(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise LLVerifyError(f"--constexpr: expected NAME=VALUE (e.g. BLOCK=128), got {item!r}")
        try:
            out[name] = int(value, 0)
        except ValueError:
            out[name] = value
    return out


def _release_python(args: argparse.Namespace) -> str | None:
    """The interpreter of ``--python``, or of the ``--release`` virtualenv, or None."""
    from llverify.triton.releases import release_python

    if args.python:
        return str(args.python)
    if args.release:
        return release_python(args.release)
    return None


_ARTIFACTS = (".llir", ".ll", ".ptx", ".amdgcn", ".cubin", ".hsaco")


def _parse_arguments(items: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            out[name.strip()] = int(value, 0)
        except ValueError:
            raise LLVerifyError(
                f"--arg: expected NAME=INTEGER (e.g. %3=1024), got {item!r}"
            ) from None
        if not sep or not name.strip():
            raise LLVerifyError(f"--arg: expected NAME=INTEGER (e.g. %3=1024), got {item!r}")
    return out


def run_artifact(args: argparse.Namespace, source: str) -> list[Any]:
    """Validate a dumped artifact (LLVM IR executed; the TTGIR beside it per op)."""
    from llverify.emitted.dumped import DumpError, LLVMIRError, validate_artifact

    if not Path(source).is_file():
        read_text_file(source)  # the usual one-line error for a missing or unreadable file
    try:
        return validate_artifact(
            source,
            arguments=_parse_arguments(args.arg or []),
            threads=args.threads,
            shared_bytes=args.shared_bytes,
            python=str(args.python) if args.python else None,
            per_op=not args.whole_only,
            release=args.release,
        )
    except (DumpError, LLVMIRError) as error:
        raise LLVerifyError(f"{source}: {error}") from None


#: the most characters of Triton's diagnostic an error line repeats
MAX_DIAGNOSTIC = 400


@contextlib.contextmanager
def triton_checked(text: str, source: str) -> Iterator[None]:
    """Run the body while Triton's own parser and verifier check the module ``text`` (where
    Triton is installed, :mod:`llverify.triton.verify`); their refusal replaces whatever the
    body gave or raised (a ``ModuleError`` at its line and column: ``SOURCE:LINE:COL: Triton
    V refuses the module: ...`` once the caller names the file).  Triton's
    other answers leave the body's outcome as it is (llverify's own checks then stand)."""
    from llverify.triton.verify import start_triton_check

    check = start_triton_check(text)
    try:
        try:
            yield
        except Exception:
            _raise_refusal(check.result(), source)
            raise
        _raise_refusal(check.result(), source)
    finally:
        check.close()


def _raise_refusal(verdict: Any, source: str) -> None:
    """Raise Triton's refusal as a ``ModuleError`` at its line and column, if it refused."""
    from llverify.ttgir import ModuleError

    if verdict.status != "refused":
        return
    detail = verdict.detail
    if len(detail) > MAX_DIAGNOSTIC:
        detail = detail[:MAX_DIAGNOSTIC] + "..."
    raise ModuleError(
        f"Triton {verdict.version} refuses the module: {detail}", verdict.line, verdict.column
    )


def run_validation(args: argparse.Namespace, source: str) -> Any:
    """Validate ``source`` (a TTGIR file or a Python kernel file) as the options say."""
    from llverify.triton.workers import worker_for

    if source.endswith(".py"):
        check_kernel_file(args, source)  # before any worker starts: a refusal costs nothing
    python = _release_python(args)
    worker_for(python).start()  # Triton imports there while llverify imports and parses here

    from llverify.emitted.validate import MAX_OPS, validate_kernel, validate_module
    from llverify.triton.compile import CompileError
    from llverify.ttgir import ModuleError

    progress = None if args.json or args.quiet else (lambda m: print(f"... {m}", file=sys.stderr))
    target = TARGETS[args.target].triton if args.target else None
    try:
        if source.endswith(".py"):
            return validate_kernel(
                source,
                args.function,
                signature=_parse_signature(args.signature or ""),
                constexprs=_parse_constexprs(args.constexpr or []),
                target=target or "cuda:90",
                num_warps=args.num_warps,
                python=python,
                timeout_s=args.timeout,
                progress=progress,
            )
        text = read_text_file(source)
        with triton_checked(text, source):
            return validate_module(
                text,
                source=source,
                target=target,
                python=python,
                timeout_s=args.timeout,
                progress=progress,
                max_ops=getattr(args, "max_ops", None) or MAX_OPS,
                check=True,
            )
    except ModuleError as error:
        column = "" if error.column is None else f":{error.column}"
        raise LLVerifyError(f"{source}:{error.line}{column}: {error.detail}") from None
    except CompileError as error:
        raise LLVerifyError(f"{source}: {error}") from None


#: why ``validate KERNEL.py`` asks for ``--allow-code`` (its error and its help say it)
RUNS_CODE = (
    "validating a Python kernel imports the file, running its top-level code (in a separate "
    "worker process, with your permissions), then compiles the function"
)


def check_kernel_file(args: argparse.Namespace, source: str) -> None:
    """What ``validate KERNEL.py`` checks before any of the file's code runs: the file is a
    regular file (the worker imports it by its path: a pipe or a device is refused, a missing
    file or a symlink loop is the one-line error of any input), ``--function`` is given,
    running code is allowed (``--allow-code`` or LLVERIFY_ALLOW_CODE=1), the file parses as
    Python and binds ``--function`` at its top level (read with ``ast``, not run)."""
    try:
        info = os.stat(source)
    except (OSError, ValueError):
        info = None  # read_text_file says why, as for any input
    if info is not None and not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode):
        raise LLVerifyError(
            f"'{source}' is not a regular file: a Python kernel is imported by its path, so it "
            "must be a file (not a pipe or a device)."
        )
    text = read_text_file(source)
    if not args.function:
        raise LLVerifyError(f"{source}: a Python kernel needs --function NAME")
    if not code_allowed(args):
        raise LLVerifyError(
            f"{source}: {RUNS_CODE}; pass --allow-code (or set LLVERIFY_ALLOW_CODE=1) to allow "
            "it, or validate the kernel's TTGIR or its dumped LLVM IR, which run no code of yours"
        )
    names = top_level_names(text, source)
    if names is not None and args.function not in names:
        functions = ", ".join(sorted(names)[:20]) or "none"
        raise LLVerifyError(
            f"{source}: --function {args.function!r} is not defined at the file's top level "
            f"(its top-level names: {functions}); nothing was run"
        )


#: names whose use may bind module names that ``ast`` cannot see
_DYNAMIC = ("globals", "vars", "exec", "eval", "setattr", "__dict__", "modules")


def top_level_names(text: str, source: str) -> set[str] | None:
    """The names the Python ``text`` binds at its top level (functions, classes,
    assignments, imports, in any ``if``/``try``/``with``/``for`` there), read with ``ast``
    without running it; None when it cannot tell (a ``from m import *``, a ``globals()``
    call). A syntax error is an LLVerifyError ``FILE:LINE:COL: ...``.

    Examples:
        >>> sorted(top_level_names("import triton\\n@triton.jit\\ndef k(x): pass\\nN = 4", "k.py"))
        ['N', 'k', 'triton']
        >>> top_level_names("from m import *", "k.py") is None
        True
    """
    try:
        tree = ast.parse(text, filename=source)
    except SyntaxError as error:
        where = f"{source}:{error.lineno or 1}:{error.offset or 1}"
        raise LLVerifyError(f"{where}: not valid Python: {error.msg}; nothing was run") from None
    except (RecursionError, MemoryError, ValueError) as error:
        raise LLVerifyError(f"{source}: not valid Python ({type(error).__name__})") from None
    names: set[str] = set()
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return None
                names.add(alias.asname or alias.name.split(".")[0])
            continue
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
            elif (isinstance(child, ast.Name) and child.id in _DYNAMIC) or (
                isinstance(child, ast.Attribute) and child.attr in _DYNAMIC
            ):
                return None  # binds names ast cannot see
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(child.name)  # under an if/try/with: may be top-level
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                statements.append(child)
    return None if "__getattr__" in names else names  # a module __getattr__ answers any name


def print_report(report: Any) -> None:
    """The verdict table of a validation report."""
    print(
        f"{report.source}: {len(report.verdicts)} ops validated on {report.target} "
        f"(Triton {report.triton_version or 'of the dump'}, {report.threads} threads), "
        f"{report.timings.get('total', 0.0):.2f} s"
    )
    for note in report.notes:
        print(f"note: {note}")
    print(f"{'status':8}  {'op':22}  {'location':28}  detail")
    for verdict in report.verdicts:
        location = (
            verdict.location.rsplit("/", 1)[-1] if verdict.location else f"line {verdict.op_line}"
        )
        detail = verdict.description
        if verdict.status is not Status.PROVED:
            detail = verdict.reason or detail
        print(f"{verdict.status.value:8}  {verdict.op:22}  {location:28}  {detail}")
        for note in verdict.notes:
            print(f"{'':10}note: {note}")
        example = verdict.counterexample
        if example is not None:
            print(
                f"{'':10}counterexample: {example.output}{list(example.element)} at address "
                f"{example.address} written by thread {example.thread} ({example.store}): expected "
                f"{example.expected}, got {example.got}; {example.replay}"
            )
    if report.verdicts:
        print(f"claim: {report.verdicts[0].claim}")
    counts = report.counts()
    print(
        f"{counts['proved']} proved, {counts['refuted']} refuted, {counts['unknown']} unknown; "
        f"{len(report.skipped)} ops need no validation or are not layout ops"
    )


def _cmd_validate(args: argparse.Namespace) -> int:
    if Path(args.source).is_dir():
        return run_directory(args)
    if args.source.endswith(_ARTIFACTS):
        reports = run_artifact(args, args.source)
    elif args.whole_only:
        raise LLVerifyError(
            f"--whole-only: validates a dumped kernel's LLVM IR (a .llir, or a DIR of them) "
            f"whole; {args.source!r} has no LLVM IR to run (validate it per op without "
            "--whole-only)"
        )
    else:
        reports = [run_validation(args, args.source)]
    codes = [exit_code(r.status, args.require_proofs, r.noted) for r in reports]
    code = EXIT_FAILED if EXIT_FAILED in codes else max(codes)
    if args.json:
        body = [report.to_dict() for report in reports]
        print(
            to_json(
                {**body[0], "exit_code": code}
                if len(body) == 1
                else {"reports": body, "exit_code": code}
            )
        )
    else:
        for report in reports:
            print_report(report)
    return code


#: the directory form of ``validate``, as its description says it
DIRECTORY_HELP = (
    "A directory: every kernel under it (NAME.llir with Triton's NAME.json beside it, as in a "
    "Triton cache, a TRITON_DUMP_DIR or an Inductor cache), each validated as one dumped "
    "kernel is, with the launch arguments recorded in a launches file (launches.json or "
    "llverify-launches.json under it, or --launches) or in Inductor's output code; then a "
    "summary table (kernels proved, refuted, unknown, whole and per op; the top reasons for "
    "unknown; the refuted kernels). --jobs N runs N processes, --kernel-timeout limits each "
    "kernel, --whole-only skips the per-op part, --shard K/N validates one shard of a CI "
    "matrix, --junit FILE writes JUnit XML."
)

SMALL = f"{EXAMPLES_DIR}/kernels"
DIRECTORY_EXAMPLES = (
    f"llverify validate {SMALL} --whole-only",
    f"llverify validate {SMALL} --whole-only --jobs 2 --json --junit kernels.xml --quiet",
    f"llverify validate {SMALL} --whole-only --shard 1/2   # machine 1 of a CI matrix of 2",
)


def parse_shard(text: str) -> tuple[int, int]:
    """argparse type of ``--shard K/N``: shard K (1 to N) of N.

    Examples:
        >>> parse_shard("2/4")
        (2, 4)
        >>> parse_shard("5/4")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: expected K/N with 1 <= K <= N (e.g. 1/4), got '5/4'
    """
    index, sep, count = text.partition("/")
    try:
        shard = (int(index), int(count))
    except ValueError:
        shard = (0, 0)
    if not sep or not 1 <= shard[0] <= shard[1]:
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N (e.g. 1/4), got {text!r}")
    return shard


def positive_int(text: str) -> int:
    """argparse type of ``--jobs`` and ``--max-launch-sets``: an int >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _junit_tree(records: list[dict[str, Any]], summary: dict[str, Any], strict: bool) -> Any:
    """One testcase per kernel: refuted a <failure>; unknown <skipped>, or a <failure> when
    ``strict`` (--require-proofs)."""
    import xml.etree.ElementTree as ET

    suite = ET.Element("testsuite", name="llverify validate", time=f"{summary['seconds']:.3f}")
    tally = {"tests": 0, "failures": 0, "skipped": 0}
    for record in records:
        case = ET.SubElement(
            suite,
            "testcase",
            name=clean(record["path"]),
            classname=clean(record["kernel"]),
            time=f"{record['time_s']:.3f}",
        )
        tally["tests"] += 1
        status = record["status"]
        if status == "proved":
            continue
        parts = [p for p in (record["whole"], record["per_op"]) if p and p["status"] == status]
        message = clean("; ".join(" ".join(p["reason"].split()) for p in parts))
        tag = "failure" if status == "refuted" or strict else "skipped"
        ET.SubElement(case, tag, type=status, message=message).text = message
        tally["failures" if tag == "failure" else "skipped"] += 1
    for key, value in tally.items():
        suite.set(key, str(value))
    root = ET.Element("testsuites", name="llverify validate", time=suite.get("time", "0"))
    root.append(suite)
    return root


def _directory_inputs(args: argparse.Namespace) -> tuple[Path, list[Path], Any]:
    """The directory, its kernels (of the shard) and the launch arguments recorded."""
    from llverify.emitted.batch import NoKernelsError, find_kernels, load_launches, select_shard
    from llverify.emitted.launches import LaunchTable

    if args.arg:
        raise LLVerifyError(
            f"--arg: a directory's kernels take their arguments from the launches recorded "
            f"(--launches FILE), not --arg; got {args.arg}"
        )
    root = Path(args.source)
    try:
        paths = select_shard(find_kernels(root), root, args.shard)
        table = LaunchTable() if args.no_launches else load_launches(root, args.launches)
    except (NoKernelsError, NotADirectoryError, ValueError, OSError) as error:
        raise LLVerifyError(str(error)) from None
    return root, paths, table


def run_directory(args: argparse.Namespace) -> int:
    """``validate DIR``: every kernel under DIR, the summary table (or JSON), JUnit XML."""
    from llverify.emitted.batch import (
        BatchOptions,
        batch_exit_code,
        batch_report,
        format_summary,
        run_summarized,
    )

    root, paths, table = _directory_inputs(args)
    options = BatchOptions(
        whole_only=args.whole_only,
        kernel_timeout=args.kernel_timeout,
        python=_release_python(args),
        max_launch_sets=args.max_launch_sets,
        threads=args.threads,
        shared_bytes=args.shared_bytes,
    )
    records, summary = run_summarized(paths, root, table, options, args.jobs, args.quiet)
    code = batch_exit_code(records, args.require_proofs)
    if args.junit:
        write_xml(args.junit, _junit_tree(records, summary, args.require_proofs))
    if args.json:
        shard = None if args.shard is None else "/".join(map(str, args.shard))
        report = batch_report(root, records, summary, shard=shard, launch_files=table.files)
        print(to_json({**report, "exit_code": code}))
    else:
        print(format_summary(summary))
    return code


def _add_launch_options(group: Any) -> None:
    """Where a directory's launch arguments come from."""
    group.add_argument(
        "--launches",
        action="append",
        metavar="FILE",
        type=non_empty,
        help="a launches file (JSON list of {cache_hash, scalars}); repeatable "
        "(default: launches.json and llverify-launches.json under DIR)",
    )
    group.add_argument(
        "--no-launches",
        action="store_true",
        help="use no recorded launch arguments (every scalar argument tagged)",
    )
    group.add_argument(
        "--max-launch-sets",
        type=positive_int,
        default=4,
        metavar="N",
        help="validate a kernel whole under at most its first N distinct sets "
        "of launch arguments (default %(default)s)",
    )


def add_directory_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``validate DIR``."""
    group = parser.add_argument_group("directories (validate DIR)")
    group.add_argument(
        "--jobs",
        type=positive_int,
        default=1,
        metavar="N",
        help="validate N kernels at a time, in N processes (default %(default)s)",
    )
    group.add_argument(
        "--kernel-timeout",
        type=parse_timeout,
        default=600.0,
        metavar="SECONDS",
        help="time limit of each kernel; one past it is unknown, 'timed out "
        "after S s' (default %(default)s)",
    )
    group.add_argument(
        "--whole-only",
        action="store_true",
        help="validate each kernel whole only (memory safety of the LLVM IR); "
        "skip the per-op part, which compiles harnesses with Triton and is slow "
        "(a DIR, or one dumped KERNEL.llir)",
    )
    _add_launch_options(group)
    group.add_argument(
        "--shard",
        type=parse_shard,
        metavar="K/N",
        help="validate shard K of N only (kernels split by a hash of their "
        "path: for a CI matrix of N machines)",
    )
    group.add_argument(
        "--junit",
        type=output_file,
        metavar="FILE",
        help="also write JUnit XML: a testcase per kernel, refuted a failure, "
        "unknown skipped (a failure with --require-proofs)",
    )


def add_compile_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose the Triton that compiles (shared with ``audit --emitted``)."""
    parser.add_argument(
        "--python",
        metavar="PYTHON",
        help="the interpreter of a virtualenv holding the Triton release to use "
        "(default: the Triton installed with llverify)",
    )
    parser.add_argument(
        "--release",
        metavar="VERSION",
        help="a Triton release (e.g. 3.2.0): the virtualenv VERSION/bin/python in the folder "
        "$LLVERIFY_TRITON_RELEASES, by default the per-user cache folder "
        "$XDG_CACHE_HOME/llverify/triton-releases (~/.cache/llverify/triton-releases); "
        "scripts/triton_releases.py makes them",
    )


def _add_kernel_options(parser: argparse.ArgumentParser) -> None:
    """What is compiled: the source, its target, and a Python kernel's function and arguments."""
    parser.add_argument(
        "source",
        metavar="KERNEL.ttgir|KERNEL.py|KERNEL.llir|DIR",
        type=non_empty,
        help="a TTGIR module, a Python file with a @triton.jit/@gluon.jit kernel, a dumped "
        "kernel (.llir, or .ptx/.amdgcn with the .llir beside it), or a directory: every "
        "kernel of a Triton cache, a TRITON_DUMP_DIR or an Inductor cache under it",
    )
    add_gpu_target_option(parser, TARGET_HELP)
    parser.add_argument("--function", metavar="NAME", help="the kernel function of a Python file")
    add_allow_code_option(
        parser,
        "validating a Python kernel: the file is imported, its top-level code run, in a "
        "separate worker process (TTGIR, LLVM IR and dumps never run code of yours)",
    )
    parser.add_argument(
        "--signature",
        metavar="NAME:TYPE,...",
        help="the kernel's argument types, e.g. 'x:*fp32,n:i32' (Python kernels)",
    )
    parser.add_argument(
        "--constexpr",
        action="append",
        metavar="NAME=VALUE",
        help="a constexpr argument (repeatable; Python kernels)",
    )
    parser.add_argument(
        "--num-warps",
        type=int,
        default=4,
        choices=[1, 2, 4, 8, 16],
        help="warps per CTA for Python kernels (default %(default)s)",
    )


def _add_dump_options(parser: argparse.ArgumentParser) -> None:
    """What a dumped kernel (LLVM IR or PTX) does not say itself."""
    parser.add_argument(
        "--arg",
        action="append",
        metavar="NAME=VALUE",
        help="a scalar argument of a dumped kernel, by LLVM name or position "
        "(e.g. %%3=1024; repeatable; arguments left out stay tagged)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="threads per CTA of a dumped kernel (default: its nvvm.reqntid / "
        "work-group size, or num_warps in the Triton .json beside it)",
    )
    parser.add_argument(
        "--shared-bytes",
        type=int,
        metavar="N",
        help="the shared allocation of a dumped kernel (default: 'shared' in the "
        "Triton .json beside it; unknown = shared accesses not bounds-checked)",
    )


#: the default of --max-ops: llverify.emitted.validate.MAX_OPS (not imported here: the CLI
#: starts without the executor; a test checks that they agree)
DEFAULT_MAX_OPS = 4_000


def add_max_ops_option(parser: Any) -> None:
    """``--max-ops``: how many ops one run validates each on its own (issue 27)."""
    parser.add_argument(
        "--max-ops",
        type=positive_int,
        metavar="N",
        help="a module with more than N ops to validate validates each distinct op once "
        "(an op whose harness code is an earlier op's, names and locations aside, takes "
        "that op's proof and says so); distinct ops past the first N are unknown "
        f"(default {DEFAULT_MAX_OPS}; docs/validation.md, 'Large modules')",
    )


def _add_report_options(parser: argparse.ArgumentParser) -> None:
    """How the verdicts are reported, when unknown fails, and the compile time limit."""
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--require-proofs", action="store_true", help="exit 3 when an op is unknown (the CI gate)"
    )
    add_timeout_option(parser, "time limit of each compilation", 300.0)


def register(commands: Any) -> None:
    """Add the ``validate`` subcommand."""
    parser = commands.add_parser(
        "validate",
        help="prove the code Triton emits for each layout op (translation validation)",
        description=(
            "Compile a TTGIR module (or a Triton/Gluon kernel) with the installed Triton on the "
            "CPU, run the emitted LLVM IR over every thread of the CTA on tagged inputs, and "
            "check each layout-carrying op exactly: data movement (convert_layout, local_alloc/"
            "load/store and views, gather, trans/reshape/join/split), reduce/scan (each element "
            "combined once, scans in order), histogram counts, and memory safety (uninitialised "
            "shared reads, out-of-bounds accesses, races between barriers, conflicting global "
            "stores). Verdicts are per op: proved (over all threads of this compiled instance), "
            "refuted (with a counterexample) or unknown (with the reason). Exit 0 when nothing "
            "is refuted, 1 when an op is refuted, 2 on bad input (a TTGIR module that is "
            "malformed or invalid, as 'llverify audit' says) or a failed compile, 3 with "
            "--require-proofs when an op is unknown. Another release: --release 3.2.0 (a "
            "virtualenv in $LLVERIFY_TRITON_RELEASES, default ~/.cache/llverify/"
            "triton-releases). A Python kernel: kernel.py --allow-code --function "
            "NAME --signature 'x:*fp32,y:*fp32' --constexpr BLOCK=128 --target sm90: the file "
            "is imported, running its top-level code, in a separate worker process, so it "
            "needs --allow-code (or LLVERIFY_ALLOW_CODE=1); without it, or when the file does "
            "not define --function at its top level (read with ast), nothing of it runs. "
            "TTGIR, LLVM IR and dumps are read, never run as Python. A dumped "
            "kernel: k.llir (or k.ptx with k.llir beside it) --arg %3=1024: the kernel itself is "
            "executed for memory safety, and k.ttgir beside it is validated per op. "
            + DIRECTORY_HELP
            + EXAMPLES_NOTE
        ),
        epilog=examples(
            f"llverify validate {KERNEL}",
            f"llverify validate {KERNEL} --json --require-proofs   # the CI gate",
            *DIRECTORY_EXAMPLES,
        ),
        formatter_class=HelpFormatter,
    )
    _add_kernel_options(parser)
    _add_dump_options(parser)
    add_compile_options(parser)
    _add_report_options(parser)
    add_max_ops_option(parser)
    add_directory_options(parser)
    parser.set_defaults(handler=_cmd_validate)
