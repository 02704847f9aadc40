"""``llverify examples [DIR]``: copy the example inputs shipped with llverify (TTGIR modules,
dumped kernels) to DIR, so that the help examples of ``audit`` and ``validate`` run from an
installed package, with no checkout of the repository."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from llverify.cli.args import EXAMPLES_DIR, EXIT_OK, HelpFormatter, examples, non_empty
from llverify.errors import LLVerifyError

#: where the example inputs live in the package (``pyproject.toml``'s package data)
SHIPPED = Path(__file__).resolve().with_name("examples")


def shipped_files() -> list[Path]:
    """The example files, relative to :data:`SHIPPED`, sorted.

    Examples:
        >>> Path("matmul_fp16_sm80.ttgir") in shipped_files()
        True
    """
    return sorted(p.relative_to(SHIPPED) for p in SHIPPED.rglob("*") if p.is_file())


def copy_examples(directory: Path) -> tuple[list[Path], list[Path]]:
    """Copy the example files into ``directory`` (created if missing); returns (written,
    already there). A file of another content where an example goes is never overwritten:
    nothing is written and an LLVerifyError names it."""
    if directory.exists() and not directory.is_dir():
        raise LLVerifyError(f"'{directory}' is not a directory.")
    written, present, conflicts = [], [], []
    for name in shipped_files():
        target = directory / name
        if target.is_file() and target.read_bytes() == (SHIPPED / name).read_bytes():
            present.append(name)
        elif target.exists() or target.is_symlink():
            conflicts.append(str(target))
        else:
            written.append(name)
    if conflicts:
        raise LLVerifyError(
            f"'{directory}' already holds other files where the examples go: "
            f"{', '.join(conflicts[:5])}; nothing was written (give another DIR)."
        )
    try:
        for name in written:
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            (directory / name).write_bytes((SHIPPED / name).read_bytes())
    except OSError as error:
        raise LLVerifyError(f"cannot write to '{directory}': {error.strerror or error}") from None
    return written, present


def _cmd_examples(args: argparse.Namespace) -> int:
    directory = Path(args.directory)
    written, present = copy_examples(directory)
    print(
        f"{directory}: {len(written)} example files written"
        + (f", {len(present)} already there" if present else "")
    )
    print(f"  {directory}/matmul_fp16_sm80.ttgir, matmul_int8_sm90.ttgir: TTGIR modules")
    print(f"  {directory}/kernels: dumped kernels (.llir, .ttgir, .json) with launches.json")
    print(f"try: llverify audit {directory}/matmul_fp16_sm80.ttgir")
    print(f"     llverify validate {directory}/kernels --whole-only")
    return EXIT_OK


def register(commands: Any) -> None:
    """Add the ``examples`` subcommand."""
    parser = commands.add_parser(
        "examples",
        help="copy the example TTGIR modules and dumped kernels the help examples use",
        description=(
            "Copy the example inputs shipped with llverify to DIR (created if missing): TTGIR "
            "modules compiled by Triton 3.9 and a folder of kernels torch.compile dumped "
            "(Triton 3.6, sm_90). The examples of 'llverify audit --help' and 'llverify "
            "validate --help' name them under ./llverify-examples. A file of DIR with another "
            "content where an example goes is never overwritten (exit 2, nothing written); "
            "files already there with the same content are left as they are."
        ),
        epilog=examples(
            "llverify examples",
            "llverify examples my-examples",
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "directory",
        metavar="DIR",
        nargs="?",
        type=non_empty,
        default=EXAMPLES_DIR,
        help="where to copy them (default %(default)s)",
    )
    parser.set_defaults(handler=_cmd_examples)
