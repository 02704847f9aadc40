"""Command-line arguments shared by the subcommands: exit codes, shapes, element types and
layout arguments (files, directories, Triton's text, JSON, TTGIR attribute text)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llverify import arguments
from llverify.arguments import LayoutTextError, ShapeNeededError, is_encoding_text, layout_value
from llverify.encodings.padded import PaddedLayout
from llverify.errors import LLVerifyError
from llverify.hardware import DTYPE_BITS, dtype_bits
from llverify.layout import LinearLayout

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


def read_layouts(
    source: str, shape: list[int] | None, name: str = "LAYOUT"
) -> list[tuple[str, LinearLayout | PaddedLayout]]:
    """(label, value) for one command-line layout argument: TTGIR text (with ``shape`` unless
    it is a type), a file, a directory of files, or inline Triton text or JSON; the values are
    :func:`llverify.arguments.layout_value`'s (a PaddedLayout for padded shared layouts)."""
    stripped = source.lstrip()
    path = Path(source)
    if is_encoding_text(stripped):
        if shape is None and stripped.startswith("#"):  # an attribute carries no shape
            raise LLVerifyError(f"an encoding needs --shape (e.g. --shape 128x64): {source}")
        return [(stripped, _read(stripped, source, shape, name))]
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in _LAYOUT_SUFFIXES)
        if not files:
            raise LLVerifyError(f"directory '{source}' holds no {_LAYOUT_SUFFIXES} files.")
    elif path.is_file():
        files = [path]
    else:
        try:
            return [("<text>", _read(source, source, shape, name))]
        except LayoutTextError:
            raise LLVerifyError(
                f"'{source}' is neither a file, a directory, nor layout text (Triton's "
                f"'- register=1 -> (0, 1) ...' or JSON)."
            ) from None
    loaded = []
    for file in files:
        try:
            loaded.append((str(file), _read(file.read_text(), source, shape, name)))
        except LLVerifyError as error:
            raise LLVerifyError(f"{file}: {error}") from None
    return loaded


def _read(text: str, source: str, shape: list[int] | None, name: str) -> Any:
    """:func:`llverify.arguments.layout_value`, with the command line's missing-shape message."""
    try:
        return layout_value(text, shape, name)
    except ShapeNeededError:
        raise LLVerifyError(f"an encoding needs --shape (e.g. --shape 128x64): {source}") from None


def load_layouts(
    sources: Sequence[str], shape: list[int] | None = None
) -> list[tuple[str, LinearLayout]]:
    """(label, LinearLayout) for each source (:func:`read_layouts`)."""
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
    if Path(source).is_dir():
        raise LLVerifyError(f"{name}: '{source}' is a directory; give one layout file.")
    try:
        return read_layouts(source, shape, name)[0]
    except LLVerifyError as error:
        raise LLVerifyError(f"{name}: {error}") from None


def layout_argument(source: str, shape: list[int] | None, name: str) -> LinearLayout:
    """One LinearLayout from a command-line argument (:func:`shared_argument`)."""
    value = shared_argument(source, shape, name)[1]
    try:
        return arguments.layout_argument(value, shape, name)
    except LLVerifyError as error:
        raise LLVerifyError(f"{name}: {error}") from None
