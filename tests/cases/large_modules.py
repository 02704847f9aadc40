"""Large TTGIR modules made by repeating a fixture's function body with renamed values (issue 27),
shared by tests/test_large_modules.py and benchmarks/bench_large_modules.py; never stored in
the repository.

Examples:
    >>> text = repeated_module(2)
    >>> from llverify.ttgir import parse_module
    >>> len(parse_module(text).ops) == 2 * (BODY_OPS - 2) + 2  # one tt.func, one tt.return
    True
"""

from __future__ import annotations

import re
from math import ceil
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "ttgir" / "big_2000.ttgir"
BODY_OPS = 1879  # len(parse_module(big_2000).ops): the function, its body, the return
_ARGUMENTS = frozenset({"x_ptr", "w_ptr", "out_ptr"})  # the function's, shared by every copy
_VALUE = re.compile(r"%([A-Za-z_$.][\w$.-]*|\d+)")


def _parts(text: str) -> tuple[list[str], list[str], list[str]]:
    """The lines before the body (aliases, module, tt.func), the body, and from tt.return on."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("tt.func")) + 1
    end = next(i for i, line in enumerate(lines) if line.lstrip().startswith("tt.return"))
    return lines[:start], lines[start:end], lines[end:]


def _renamed(line: str, copy: int) -> str:
    """``line`` with every value but the function's arguments prefixed ``c<copy>_`` (names
    that start with a letter stay valid MLIR: ``%12`` becomes ``%c3_12``)."""

    def rename(match: re.Match[str]) -> str:
        name = match.group(1)
        return match.group(0) if name in _ARGUMENTS else f"%c{copy}_{name}"

    return _VALUE.sub(rename, line)


def repeated_module(copies: int, fixture: Path = FIXTURE) -> str:
    """big_2000's module with its function body written ``copies`` times, each copy's values
    renamed (valid SSA: every value defined once, each copy using its own)."""
    if copies < 1:
        raise ValueError(f"Argument 'copies' must be at least 1, not {copies!r}.")
    head, body, tail = _parts(fixture.read_text())
    lines = list(head)
    for copy in range(copies):
        lines += [_renamed(line, copy) for line in body]
    return "\n".join([*lines, *tail]) + "\n"


def module_of_ops(ops: int) -> str:
    """A module of at least ``ops`` operations (whole copies of big_2000's body)."""
    return repeated_module(max(1, ceil((ops - 2) / (BODY_OPS - 2))))
