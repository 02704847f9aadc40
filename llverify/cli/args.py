"""Command-line arguments shared by the subcommands: exit codes, input files (bounded, UTF-8),
time budgets, shapes, element types and targets (their choices from :mod:`llverify.hardware`)
and layout arguments (files, directories, Triton's text, JSON, TTGIR attribute text)."""

from __future__ import annotations

import argparse
import errno
import os
import select
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llverify.bits import MAX_INPUT_BYTES, MAX_TIMEOUT_S, check_timeout
from llverify.cli.message import EXIT_FAILED as EXIT_FAILED
from llverify.cli.message import EXIT_OK as EXIT_OK
from llverify.cli.message import EXIT_UNKNOWN as EXIT_UNKNOWN
from llverify.cli.message import EXIT_USAGE as EXIT_USAGE
from llverify.cli.message import HelpFormatter as HelpFormatter
from llverify.cli.output import check_target
from llverify.errors import LLVerifyError
from llverify.hardware import (
    BANK_MODELS,
    DTYPE_BITS,
    DTYPE_NAMES,
    DTYPE_WIDTHS,
    TARGETS,
    dtype_bits,
)

if TYPE_CHECKING:
    from llverify.encodings.padded import PaddedLayout
    from llverify.layout import LinearLayout

# The layout machinery (llverify.arguments, numpy) is imported in the functions that read
# layouts, so that the parser and ``--help`` stay light (benchmarks/bench_import.py).

# The exit codes and the help layout live in .message (what --help needs, light); they are
# imported from here by the subcommands.

#: Layouts of the examples in the subcommands' help (tests run every example).
ROW = (
    "'#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>'"
)
COL = (
    "'#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>'"
)
SWIZZLED = "'#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>'"
#: the folder ``llverify examples`` writes (the example inputs shipped with llverify), which
#: the help examples of ``audit`` and ``validate`` name
EXAMPLES_DIR = "llverify-examples"
KERNEL = f"{EXAMPLES_DIR}/matmul_fp16_sm80.ttgir"
#: what the help of a subcommand whose examples read :data:`EXAMPLES_DIR` says of it
EXAMPLES_NOTE = (
    f" The examples read ./{EXAMPLES_DIR}: 'llverify examples' writes it (the example "
    "modules and kernels shipped with llverify)."
)

#: How long a pipe (a FIFO, ``<(...)``) may give no data before its read is abandoned.
PIPE_TIMEOUT_S = 30.0

_LAYOUT_SUFFIXES = (".json", ".txt", ".ll")


def examples(*commands: str) -> str:
    """The ``Examples:`` epilog of a subcommand's help: one command a line (a trailing
    ``# exit N`` comment says the exit code when it is not 0; tests run every one).

    Examples:
        >>> print(examples("llverify prove --quiet"))
        Examples:
          llverify prove --quiet
    """
    return "Examples:\n" + "\n".join(f"  {command}" for command in commands)


def non_empty(text: str) -> str:
    """argparse type of file and layout arguments: an empty or blank one is refused (it
    would name the current directory).

    Examples:
        >>> non_empty("kernel.ttgir")
        'kernel.ttgir'
        >>> non_empty(" ")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must not be empty (give a file or a layout), not ' '
    """
    if not text.strip():
        raise argparse.ArgumentTypeError(
            f"must not be empty (give a file or a layout), not {text!r}"
        )
    return text


def output_file(text: str) -> str:
    """argparse type of files llverify writes (``--record``, ``--junit``, ``-o``): refused
    before anything runs when it is empty, a directory, in a directory that does not exist
    (no directory is created: every output option refuses alike, so a typo in a path costs
    no run) or that llverify may not write, so that a run's result is never lost at the end; also when something other than a regular file is
    there (a FIFO, a device), a symlink loop, or a target that cannot be written
    (:func:`llverify.cli.output.check_target`).

    Examples:
        >>> output_file("records.json")
        'records.json'
        >>> output_file("/")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: '/' is a directory, not a file to write
        >>> output_file("no-such-dir/records.json")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: cannot write 'no-such-dir/records.json': the directory 'no-such-dir' does not exist (create it first)
    """  # noqa: E501
    non_empty(text)
    path = Path(text)
    try:
        if path.is_dir():
            raise argparse.ArgumentTypeError(f"{text!r} is a directory, not a file to write")
        parent = path.parent
        if not parent.exists():
            raise argparse.ArgumentTypeError(
                f"cannot write {text!r}: the directory {str(parent)!r} does not exist "
                "(create it first)"
            )
        if not parent.is_dir():
            raise argparse.ArgumentTypeError(
                f"cannot write {text!r}: {str(parent)!r} is not a directory"
            )
    except OSError as error:  # a symlink loop, a name too long
        raise argparse.ArgumentTypeError(
            f"cannot write {text!r}: {error.strerror or error}"
        ) from None
    problem = check_target(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


#: the environment variable that allows what ``--allow-code`` allows (``1`` allows, ``0``
#: or unset does not): running Python a command would otherwise refuse to run
ALLOW_CODE_VARIABLE = "LLVERIFY_ALLOW_CODE"
_ALLOW = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False, "": False}


def add_allow_code_option(parser: argparse.ArgumentParser, what: str) -> None:
    """The ``--allow-code`` flag, one meaning in every subcommand: allow llverify to import
    and run the user's Python (``what`` says which); ``LLVERIFY_ALLOW_CODE=1`` does the same
    (:func:`code_allowed`)."""
    parser.add_argument(
        "--allow-code",
        action="store_true",
        help=f"allow {what} (imports and runs it); or set {ALLOW_CODE_VARIABLE}=1",
    )


def code_allowed(args: argparse.Namespace) -> bool:
    """True when ``--allow-code`` is given or ``LLVERIFY_ALLOW_CODE`` is 1 (true, yes); a
    value other than those and 0 (false, no, empty) is refused rather than guessed.

    Examples:
        >>> os.environ.pop(ALLOW_CODE_VARIABLE, None) and None
        >>> code_allowed(argparse.Namespace(allow_code=False))
        False
        >>> os.environ[ALLOW_CODE_VARIABLE] = "maybe"
        >>> code_allowed(argparse.Namespace(allow_code=False))
        Traceback (most recent call last):
        ...
        llverify.errors.LLVerifyError: LLVERIFY_ALLOW_CODE must be 1 (allow running code) or 0, not 'maybe'.
        >>> del os.environ[ALLOW_CODE_VARIABLE]
    """  # noqa: E501
    value = os.environ.get(ALLOW_CODE_VARIABLE, "")
    allowed = _ALLOW.get(value.strip().lower())
    if allowed is None:
        raise LLVerifyError(
            f"{ALLOW_CODE_VARIABLE} must be 1 (allow running code) or 0, not {value!r}."
        )
    return bool(getattr(args, "allow_code", False)) or allowed


def non_negative_int(text: str, unit: str = "") -> int:
    """argparse type of counts and limits (``--max-conflicts N``): an int >= 0; the error
    names the ``unit`` when given (``functools.partial(non_negative_int, unit="bytes")``).

    Examples:
        >>> non_negative_int("0")
        0
        >>> non_negative_int("-1")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be an int >= 0, not '-1'
        >>> non_negative_int("x", "bytes")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be an int >= 0 (bytes), not 'x'
    """
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        of = f" ({unit})" if unit else ""
        raise argparse.ArgumentTypeError(f"must be an int >= 0{of}, not {text!r}")
    return value


#: what ``--max-cells 0`` passes to an API that wants a number: more cells than any tensor has
EVERY_CELL = 1 << 62


def add_max_cells_option(parser: argparse.ArgumentParser, default: int, what: str) -> None:
    """The ``--max-cells N`` option, one meaning in every subcommand (``layout``, ``draw``):
    at most N cells shown, ``what`` says how the rest is summarised; 0 shows every cell."""
    parser.add_argument(
        "--max-cells",
        type=non_negative_int,
        default=default,
        metavar="N",
        help=f"{what}; 0 shows every cell (default %(default)s)",
    )


def parse_timeout(text: str) -> float:
    """argparse type of every ``--timeout``: seconds, by :func:`llverify.bits.check_timeout`'s
    rule (finite, > 0, at most a day).

    Examples:
        >>> parse_timeout("2.5")
        2.5
        >>> parse_timeout("nan")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be a finite number of seconds > 0 and <= 86400, not 'nan'
    """
    expected = f"must be a finite number of seconds > 0 and <= {MAX_TIMEOUT_S}, not {text!r}"
    try:
        return check_timeout(float(text), "--timeout")
    except ValueError:  # not a number, or refused by check_timeout (a LayoutError)
        raise argparse.ArgumentTypeError(expected) from None


def add_timeout_option(parser: argparse.ArgumentParser, what: str, default: float = 60.0) -> None:
    """The ``--timeout SECONDS`` option of every subcommand (:func:`parse_timeout`); ``what``
    says what the budget limits.

    Examples:
        >>> parser = argparse.ArgumentParser()
        >>> add_timeout_option(parser, "solver budget", 30.0)
        >>> parser.parse_args([]).timeout, parser.parse_args(["--timeout", "2"]).timeout
        (30.0, 2.0)
    """
    parser.add_argument(
        "--timeout",
        type=parse_timeout,
        default=default,
        metavar="SECONDS",
        help=f"{what} (default %(default)s)",
    )


def read_text_file(path: str | Path) -> str:
    """The text of the file ``path`` names: a regular file or a pipe of at most
    :data:`MAX_INPUT_BYTES` bytes of UTF-8 text. A directory, a device (``/dev/zero`` is never
    read), a symlink loop, a larger file, a NUL byte or bytes that are not UTF-8 raise an
    LLVerifyError naming the file (and the byte offset); so does a pipe (a FIFO, ``<(...)``)
    that gives no data for :data:`PIPE_TIMEOUT_S` seconds and is not closed (its writer keeps
    it open, or none ever opens it).

    Examples:
        >>> read_text_file("/dev/zero")
        Traceback (most recent call last):
        ...
        llverify.errors.LLVerifyError: '/dev/zero' is a device or a socket, not a file.
    """
    try:
        info = os.stat(path)
    except (OSError, ValueError) as error:
        raise LLVerifyError(f"cannot read '{path}': {_reason(error)}.") from None
    if stat.S_ISDIR(info.st_mode):
        raise LLVerifyError(f"'{path}' is a directory, not a file.")
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
        raise LLVerifyError(f"'{path}' is a device or a socket, not a file.")
    too_large = f"'{path}' is larger than {MAX_INPUT_BYTES} bytes, the most llverify reads."
    if info.st_size > MAX_INPUT_BYTES:
        raise LLVerifyError(too_large)
    try:
        # A named pipe is opened without waiting for a writer (an open FIFO nobody writes to
        # would block forever) and read with a time limit; a regular file is read at once.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            if stat.S_ISFIFO(info.st_mode):
                data = _read_pipe(descriptor, path)
            else:
                os.set_blocking(descriptor, True)
                data = _read_at_most(descriptor, MAX_INPUT_BYTES + 1)
        finally:
            os.close(descriptor)
    except OSError as error:
        raise LLVerifyError(f"cannot read '{path}': {_reason(error)}.") from None
    if len(data) > MAX_INPUT_BYTES:
        raise LLVerifyError(too_large)
    nul = data.find(b"\0")
    if nul >= 0:
        raise LLVerifyError(f"'{path}' is a binary file, not text: a NUL byte at offset {nul}.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise LLVerifyError(
            f"'{path}' is not UTF-8 text: byte 0x{data[error.start]:02x} at offset {error.start}."
        ) from None


def regular_file(path: str | Path, what: str = "file") -> Path:
    """``path`` as a Path when it names a regular file (after symlinks), for files that are
    not read here but handed on (a Python kernel file, imported by the compile worker):
    anything else raises an LLVerifyError naming ``what`` and the path, so that nothing
    blocks on a named pipe or follows a symlink loop.

    Examples:
        >>> regular_file("/dev/null", "kernel file")
        Traceback (most recent call last):
        ...
        llverify.errors.LLVerifyError: the kernel file '/dev/null' is a device or a socket, not a regular file.
    """  # noqa: E501 - a doctest output line
    try:
        info = os.stat(path)
    except (OSError, ValueError) as error:
        raise LLVerifyError(f"cannot read the {what} '{path}': {_reason(error)}.") from None
    if not stat.S_ISREG(info.st_mode):
        kind = (
            "a directory"
            if stat.S_ISDIR(info.st_mode)
            else "a named pipe"
            if stat.S_ISFIFO(info.st_mode)
            else "a device or a socket"
        )
        raise LLVerifyError(f"the {what} '{path}' is {kind}, not a regular file.")
    return Path(path)


def _reason(error: OSError | ValueError) -> str:
    """Why a file could not be opened, in words (a symlink loop said as such)."""
    if isinstance(error, OSError) and error.errno == errno.ELOOP:
        return "a symlink loop (too many levels of symbolic links)"
    return getattr(error, "strerror", None) or str(error)


def _read_at_most(descriptor: int, limit: int) -> bytes:
    """Up to ``limit`` bytes of a blocking descriptor, until its end."""
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(descriptor, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _read_pipe(descriptor: int, path: str | Path) -> bytes:
    """Up to :data:`MAX_INPUT_BYTES` + 1 bytes of a non-blocking pipe, until its writer closes
    it; a wait of :data:`PIPE_TIMEOUT_S` seconds without data is an LLVerifyError."""
    chunks, size = [], 0
    while size <= MAX_INPUT_BYTES:
        ready, _, _ = select.select([descriptor], [], [], PIPE_TIMEOUT_S)
        if not ready:
            raise LLVerifyError(
                f"'{path}' is a pipe that gave no data for {PIPE_TIMEOUT_S:g} s and was not "
                "closed (its writer keeps it open, or none opened it); write the input to a "
                "file."
            )
        try:
            chunk = os.read(descriptor, min(1 << 20, MAX_INPUT_BYTES + 1 - size))
        except BlockingIOError:  # readiness without data: wait again
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _existing_path(source: str) -> Path | None:
    """The path ``source`` names if it names something that exists; None when it names
    nothing or cannot be a path (a newline or NUL in it, a name too long: any OSError)."""
    if "\n" in source or "\0" in source:  # Triton's multi-line text is never stat'ed
        return None
    path = Path(source)
    try:
        path.stat()
    except (OSError, ValueError):
        return None
    return path


def _dangling_link(source: str) -> bool:
    """True when ``source`` names a symbolic link that leads nowhere (a loop, a missing
    target): a path the user meant, never layout text."""
    if "\n" in source or "\0" in source:
        return False
    try:
        return os.path.islink(source)
    except (OSError, ValueError):
        return False


#: the bit counts ``--dtype`` takes, as help texts and messages write them ("4/8/16/32/64")
BIT_COUNTS = "/".join(map(str, DTYPE_WIDTHS))


def parse_dtype(text: str) -> int:
    """Element bits of a dtype name (``f16`` -> 16) or a plain bit count (``"16"``).

    Examples:
        >>> parse_dtype("bf16"), parse_dtype("e4m3"), parse_dtype("32")
        (16, 8, 32)
    """
    bits = dtype_bits(text)
    if bits is None:
        raise LLVerifyError(
            f"--dtype must be one of {sorted(DTYPE_BITS)} or a bit count {BIT_COUNTS}, "
            f"not {text!r}."
        )
    return bits


def add_dtype_option(parser: argparse.ArgumentParser, what: str = "element type") -> None:
    """The ``--dtype`` option (:func:`parse_dtype` reads it): the dtype names of
    :data:`llverify.hardware.DTYPES` or a bit count; default f16."""
    parser.add_argument(
        "--dtype",
        default="f16",
        help=f"{what}: {', '.join(DTYPE_NAMES)} (aliases such as fp16, float16: "
        f"llverify.hardware.DTYPE_BITS) or a bit count {BIT_COUNTS} (default %(default)s)",
    )


def add_gpu_target_option(parser: argparse.ArgumentParser, text: str) -> None:
    """The ``--target`` option of ``audit`` and ``validate``: a name in
    :data:`llverify.hardware.TARGETS` (the same choices for both; ``text`` says what the
    command does with it and what it refuses)."""
    parser.add_argument("--target", choices=list(TARGETS), help=text)


def add_bank_model_option(parser: argparse.ArgumentParser) -> None:
    """The ``--target`` option of the shared-memory analyses: a bank model of
    :data:`llverify.hardware.BANK_MODELS`; default nvidia."""
    parser.add_argument(
        "--target",
        default="nvidia",
        choices=list(BANK_MODELS),
        help="shared-memory target (default %(default)s)",
    )


def parse_shape(text: str | None) -> list[int] | None:
    """``"128x64"`` -> ``[128, 64]`` (None stays None).

    Examples:
        >>> parse_shape("128x64")
        [128, 64]
    """
    if text is None:
        return None
    try:
        shape = [int(part) for part in text.lower().split("x")]
    except ValueError:
        raise LLVerifyError(f"--shape must look like 128x64, not {text!r}.") from None
    if not shape or any(d <= 0 for d in shape):
        raise LLVerifyError(f"--shape must be positive sizes like 128x64, not {text!r}.")
    return shape


def read_layouts(
    source: str, shape: list[int] | None, name: str = "LAYOUT"
) -> list[tuple[str, LinearLayout | PaddedLayout]]:
    """(label, value) for one command-line layout argument: TTGIR text (with ``shape`` unless
    it is a type), a file, a directory of files, or inline Triton text or JSON; the values are
    :func:`llverify.arguments.layout_value`'s (a PaddedLayout for padded shared layouts).
    Text that cannot be a path (multi-line, longer than a file name may be) is read as text."""
    from llverify.arguments import LayoutTextError, is_encoding_text

    if not source.strip():
        raise LLVerifyError(f"{name} must not be empty (give a file or a layout), not {source!r}.")
    stripped = source.lstrip()
    if is_encoding_text(stripped):
        if shape is None and stripped.startswith("#"):  # an attribute carries no shape
            raise LLVerifyError(f"an encoding needs --shape (e.g. --shape 128x64): {source}")
        return [(stripped, _read(stripped, source, shape, name))]
    path = _existing_path(source)
    if path is None and _dangling_link(source):
        read_text_file(source)  # a symlink loop, a link to nothing: the one-line reason
    if path is None:
        try:
            return [("<text>", _read(source, source, shape, name))]
        except LayoutTextError:
            shown = source if len(source) <= 60 else source[:57] + "..."
            raise LLVerifyError(
                f"{shown!r} is neither a file, a directory, nor layout text (Triton's "
                f"'- register=1 -> (0, 1) ...' or JSON)."
            ) from None
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in _LAYOUT_SUFFIXES)
        if not files:
            raise LLVerifyError(f"directory '{source}' holds no {_LAYOUT_SUFFIXES} files.")
    else:
        files = [path]
    loaded = []
    for file in files:
        text = read_text_file(file)
        try:
            loaded.append((str(file), _read(text, source, shape, name)))
        except LLVerifyError as error:
            raise LLVerifyError(f"{file}: {error}") from None
    return loaded


def _read(text: str, source: str, shape: list[int] | None, name: str) -> Any:
    """:func:`llverify.arguments.layout_value`, with the command line's missing-shape message."""
    from llverify.arguments import ShapeNeededError, layout_value

    try:
        return layout_value(text, shape, name)
    except ShapeNeededError:
        raise LLVerifyError(f"an encoding needs --shape (e.g. --shape 128x64): {source}") from None


def load_layouts(
    sources: Sequence[str], shape: list[int] | None = None
) -> list[tuple[str, LinearLayout]]:
    """(label, LinearLayout) for each source (:func:`read_layouts`)."""
    from llverify import arguments

    return [
        (label, arguments.layout_argument(value, shape, "LAYOUT"))
        for source in sources
        for label, value in read_layouts(source, shape)
    ]


def shared_argument(
    source: str, shape: list[int] | None, name: str
) -> tuple[str, LinearLayout | PaddedLayout]:
    """(label, value) of one layout from a command-line argument (a file, inline text,
    TTGIR text): a LinearLayout, or a PaddedLayout for a padded shared layout."""
    path = _existing_path(source)
    if path is not None and path.is_dir():
        raise LLVerifyError(f"{name}: '{source}' is a directory; give one layout file.")
    try:
        return read_layouts(source, shape, name)[0]
    except LLVerifyError as error:
        raise LLVerifyError(f"{name}: {error}") from None


def layout_argument(source: str, shape: list[int] | None, name: str) -> LinearLayout:
    """One LinearLayout from a command-line argument (:func:`shared_argument`)."""
    from llverify import arguments

    value = shared_argument(source, shape, name)[1]
    try:
        return arguments.layout_argument(value, shape, name)
    except LLVerifyError as error:
        raise LLVerifyError(f"{name}: {error}") from None


def register_and_shared(
    args: argparse.Namespace,
) -> tuple[list[int], int, LinearLayout, LinearLayout | PaddedLayout]:
    """The tensor shape (``--shape``, else REG's), ``--dtype``'s element bits, the register
    layout REG and the shared layout SHARED of a command with ``reg`` and ``shared``
    arguments (``bank-conflicts``, ``lds-partitions``).

    Examples:
        >>> args = argparse.Namespace(
        ...     shape="32x64", dtype="f16", reg=ROW.strip("'"), shared=SWIZZLED.strip("'"))
        >>> shape, bits, reg, shared = register_and_shared(args)
        >>> shape, bits, reg.get_in_dim_names(), shared.get_in_dim_names()
        ([32, 64], 16, ['register', 'lane', 'warp', 'block'], ['offset', 'block'])
    """
    shape = parse_shape(args.shape)
    bits = parse_dtype(args.dtype)
    reg = layout_argument(args.reg, shape, "REG")
    shape = shape or [size for _, size in reg.out_dims]
    return shape, bits, reg, shared_argument(args.shared, shape, "SHARED")[1]
