"""A layout's text forms on plain data: Triton's ``toString()`` text and the JSON object."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from llverify.errors import ParseError, shown


class LayoutParts(NamedTuple):
    """What a text form gives to ``LinearLayout(bases, out_names, out_sizes, False)``.

    ``line`` is the 1-based line that ends the layout in Triton's text, None for JSON.
    """

    bases: Any
    out_names: list[str]
    out_sizes: list[int]
    line: int | None


#: The deepest bracket nesting accepted in layout text (JSON, TTGIR); real layouts nest 4 deep.
MAX_NESTING = 100

_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"?|[(\[{<]|[)\]}>]')


def check_nesting(text: str, name: str) -> None:
    """Raise ParseError when brackets (``( [ { <``) in ``text`` nest deeper than
    :data:`MAX_NESTING`, before a recursive parser (JSON, TTGIR) sees the text.

    The scan does not recurse; brackets in double-quoted strings do not count, and a
    closing bracket never takes the depth below 0 (``->`` in Triton's text).

    Examples:
        >>> check_nesting('{"bases": {"lane": [[1]]}}', "text")
        >>> check_nesting("[" * 30000, "text")
        Traceback (most recent call last):
        ...
        llverify.errors.ParseError: Argument 'text' nests brackets deeper than 100 levels (at character 101); layout text nests a few levels.
    """  # noqa: E501
    if sum(map(text.count, "([{<")) <= MAX_NESTING:
        return
    depth = 0
    for match in _BRACKETS.finditer(text):
        char = match.group()
        if char in "([{<":
            depth += 1
            if depth > MAX_NESTING:
                raise ParseError(
                    f"Argument '{name}' nests brackets deeper than {MAX_NESTING} levels (at "
                    f"character {match.start() + 1}); layout text nests a few levels."
                )
        elif char in ")]}>":
            depth = max(depth - 1, 0)


_BASIS = re.compile(r"^(?:-\s+)?(?P<name>\S.*?)=(?P<power>\d+)\s*->\s*\((?P<coords>[^()]*)\)$")
_SIZE_ONE = re.compile(r"^(?:-\s+)?(?P<name>\S.*?) is a size 1 dimension$")
_OUT_DIMS = re.compile(r"^where out dims are:\s*\[(?P<dims>.*)\]$")
_OUT_DIM = re.compile(r"^(?P<name>\S.*?) \(size (?P<size>\d+)\)$")
_EMPTY = re.compile(r"^\(empty layout(?: with out-dims \[(?P<dims>.*)\])?\)$")


def _parse_out_dims(text: str, line: int) -> tuple[list[str], list[int]]:
    names: list[str] = []
    sizes: list[int] = []
    if not text.strip():
        return names, sizes
    for item in re.split(r",\s*(?=\S.*?\(size \d+\))", text):
        match = _OUT_DIM.match(item.strip())
        if match is None:
            raise ParseError(
                f"expected an out dim like 'dim0 (size 64)', not {shown(item.strip())}.", line
            )
        names.append(match["name"])
        sizes.append(int(match["size"]))
    return names, sizes


def parse_layout_text(text: str) -> LayoutParts:
    """The parts of the layout in Triton's ``LinearLayout::toString()`` text (``str(layout)``).

    Lines before the first bullet are ignored, so a layout pasted with the compiler error
    message around it is found; out sizes are read exactly.

    Examples:
        >>> text = '''
        ...  - register=1 -> (0, 1)
        ...    register=2 -> (1, 0)
        ...  - lane is a size 1 dimension
        ... where out dims are: [dim0 (size 2), dim1 (size 2)]'''
        >>> parts = parse_layout_text(text)
        >>> parts.bases, parts.out_names, parts.out_sizes
        ([('register', [[0, 1], [1, 0]]), ('lane', [])], ['dim0', 'dim1'], [2, 2])
    """
    if not isinstance(text, str):
        raise ParseError(f"Argument 'text' must be a str, not {type(text).__name__}.")
    lines = text.splitlines()
    bases: list[tuple[str, list[list[int]]]] = []
    current: str | None = None
    started = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        empty = _EMPTY.match(line)
        if empty is not None and not started:
            names, sizes = _parse_out_dims(empty["dims"] or "", number)
            return LayoutParts([], names, sizes, number)
        out_dims = _OUT_DIMS.match(line)
        if out_dims is not None:
            if not started:
                raise ParseError("'where out dims are' comes before any in-dim line.", number)
            names, sizes = _parse_out_dims(out_dims["dims"], number)
            return LayoutParts(bases, names, sizes, number)
        if not _is_in_dim_line(line, started, number):
            continue
        started = True
        current = _add_in_dim_line(bases, current, line, number)
    if started:
        raise ParseError("missing the final 'where out dims are: [...]' line.", len(lines))
    raise ParseError("no layout found: expected lines like ' - register=1 -> (0, 1)'.")


def _is_in_dim_line(line: str, started: bool, number: int) -> bool:
    """Whether ``line`` is an in-dim line of the layout (a bulleted one starts the layout);
    before the layout other lines are skipped, inside it they are an error."""
    if _SIZE_ONE.match(line) is None and _BASIS.match(line) is None:
        if not started:
            return False  # prose before the layout, e.g. a compiler error message
        raise ParseError(
            f"expected 'NAME=2^i -> (c0, c1, ...)', 'NAME is a size 1 dimension' or "
            f"'where out dims are: [...]', not {shown(line)}.",
            number,
        )
    return started or line.startswith("- ")


def _add_in_dim_line(
    bases: list[tuple[str, list[list[int]]]], current: str | None, line: str, number: int
) -> str | None:
    """Add one in-dim line (``- NAME=2^i -> (c0, ...)``, its continuation ``NAME=2^i ->
    (...)``, or ``- NAME is a size 1 dimension``) to ``bases``; return the in dim that the
    next line may continue (None after a size-1 dim)."""
    size_one = _SIZE_ONE.match(line)
    basis = _BASIS.match(line)
    bullet = line.startswith("- ")
    name = (size_one or basis)["name"]  # type: ignore[index]
    if bullet or name != current:
        if any(name == existing for existing, _ in bases):
            raise ParseError(f"in dim '{name}' appears twice.", number)
        if not bullet:
            raise ParseError(f"in dim '{name}' must start with a '- ' bullet.", number)
        bases.append((name, []))
    in_bases = bases[-1][1]
    if size_one is not None:
        if in_bases:
            raise ParseError(f"in dim '{name}' has bases and is also 'size 1'.", number)
        return None
    assert basis is not None
    expected = 1 << len(in_bases)
    if int(basis["power"]) != expected:
        raise ParseError(
            f"in dim '{name}': expected {name}={expected}, not {name}={basis['power']} "
            f"(bases are listed for 1, 2, 4, ... in order).",
            number,
        )
    coords = basis["coords"].strip()
    try:
        in_bases.append([int(v) for v in coords.split(",")] if coords else [])
    except ValueError:
        raise ParseError(f"coordinates must be integers, not ({coords}).", number) from None
    return name


def layout_object(bases: Any, out_dims: Any) -> dict[str, Any]:
    """The JSON object of a layout: ``{"bases": {in_dim: [[...]]}, "out_dims": {out_dim: size}}``.

    Examples:
        >>> layout_object([("lane", [[1]])], [("dim0", 2)])
        {'bases': {'lane': [[1]]}, 'out_dims': {'dim0': 2}}
    """
    return {"bases": dict(bases), "out_dims": dict(out_dims)}


def parse_layout_object(data: Any) -> LayoutParts:
    """The parts of a layout JSON object; ``bases``/``out_dims`` may also be pair lists.

    Examples:
        >>> parse_layout_object({"bases": {"lane": [[1]]}, "out_dims": {"dim0": 2}})
        LayoutParts(bases={'lane': [[1]]}, out_names=['dim0'], out_sizes=[2], line=None)
    """
    if not isinstance(data, Mapping):
        raise ParseError(f"a layout must be a JSON object, not {type(data).__name__}.")
    unknown = sorted(set(data) - {"bases", "out_dims"})
    missing = sorted({"bases", "out_dims"} - set(data))
    if unknown or missing:
        raise ParseError(
            f"a layout object has keys 'bases' and 'out_dims'; missing {missing}, "
            f"unknown {unknown}."
        )
    out_dims = data["out_dims"]
    if isinstance(out_dims, Mapping):
        out_items = list(out_dims.items())
    elif isinstance(out_dims, list) and all(
        isinstance(p, (list, tuple)) and len(p) == 2 for p in out_dims
    ):
        out_items = [tuple(p) for p in out_dims]
    else:
        raise ParseError(f"'out_dims' must map out dim names to sizes, not {shown(out_dims)}.")
    return LayoutParts(
        data["bases"], [name for name, _ in out_items], [size for _, size in out_items], None
    )


def parse_layout_json(text: str, name: str = "text") -> LayoutParts:
    """The parts of a layout given as JSON text (see :func:`parse_layout_object`); ``name``
    is the argument's name for error messages.

    Examples:
        >>> parse_layout_json('{"bases": {"i": [[1]]}, "out_dims": {"o": 2}}').out_names
        ['o']
    """
    if isinstance(text, str):
        check_nesting(text, name)
    try:
        data = json.loads(text)
    except (ValueError, TypeError) as error:  # ValueError: also an int of > 4300 digits
        raise ParseError(f"Argument '{name}' is invalid JSON: {error}") from None
    return parse_layout_object(data)
