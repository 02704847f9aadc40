"""Command-line arguments shared by the subcommands: exit codes, shapes, element types and
layout arguments (files, directories, Triton's text, JSON, TTGIR attribute text)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from llverify.errors import LLVerifyError
from llverify.hardware import DTYPE_BITS, dtype_bits
from llverify.layout import LinearLayout
from llverify.text import read_layout

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNKNOWN = 3

_LAYOUT_SUFFIXES = (".json", ".txt", ".ll")

def parse_dtype(text: str) -> int:
    """Element bits of a dtype name (``f16`` -> 16) or a plain bit count (``"16"``).

    Examples:
        >>> parse_dtype("bf16"), parse_dtype("e4m3"), parse_dtype("32")
        (16, 8, 32)
    """
    bits = dtype_bits(text)
    if bits is None:
        raise LLVerifyError(
            f"--dtype must be one of {sorted(DTYPE_BITS)} or a bit count 4/8/16/32/64, "
            f"not {text!r}."
        )
    return bits


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


def load_layouts(
    sources: Sequence[str], shape: list[int] | None = None
) -> list[tuple[str, LinearLayout]]:
    """(label, layout) for each source: a file, a directory of files, inline layout text, or
    an encoding (TTGIR attribute text, with a shape)."""
    from llverify.encodings import to_linear_layout

    loaded = []
    for source in sources:
        stripped = source.lstrip()
        if stripped.startswith(("#", "tensor<")):
            if shape is None and not stripped.startswith("tensor<"):
                raise LLVerifyError(f"an encoding needs --shape (e.g. --shape 128x64): {source}")
            loaded.append((stripped, to_linear_layout(stripped, shape)))
            continue
        path = Path(source)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix in _LAYOUT_SUFFIXES)
            if not files:
                raise LLVerifyError(f"directory '{source}' holds no {_LAYOUT_SUFFIXES} files.")
        elif path.is_file():
            files = [path]
        else:
            if "->" not in source and not source.lstrip().startswith("{"):
                raise LLVerifyError(
                    f"'{source}' is neither a file, a directory, nor layout text (Triton's "
                    f"'- register=1 -> (0, 1) ...' or JSON)."
                )
            loaded.append(("<text>", read_layout(source)))
            continue
        for file in files:
            try:
                loaded.append((str(file), read_layout(file.read_text())))
            except LLVerifyError as error:
                raise LLVerifyError(f"{file}: {error}") from None
    return loaded


def layout_argument(source: str, shape: list[int] | None, name: str) -> LinearLayout:
    """One layout from a command-line argument: a file (JSON or Triton's text), inline
    Triton text or JSON, or an encoding as TTGIR attribute text (needs ``shape``)."""
    if Path(source).is_dir():
        raise LLVerifyError(f"{name}: '{source}' is a directory; give one layout file.")
    try:
        layouts = load_layouts([source], shape)
    except LLVerifyError as error:
        raise LLVerifyError(f"{name}: {error}") from None
    return layouts[0][1]
