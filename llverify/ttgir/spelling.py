"""The Triton releases whose printed TTGIR is spelled as a text is (dialect names, signatures,
module attributes), from what the releases 2.1 to 3.9 print.

Triton 3.3 renamed the ``triton_gpu`` dialect ``ttg``; 3.0 printed ``: A -> B`` where 2.x
printed ``: (A) -> B`` and named its target ``triton_gpu.target`` (2.2-2.3:
``"triton_gpu.compute-capability"``; 2.1: neither, and no ``num-ctas``); 3.5 replaced
``memdesc_subview`` by ``memdesc_index``; 3.6 renamed the AMD dialect ``amdg``.  Each mark found
narrows the range; a text with none says nothing (None).

Examples:
    >>> spelling_releases('module attributes {"ttg.num-warps" = 4 : i32} {')
    ((3, 3), (99, 0))
    >>> spelling_releases('module attributes {"triton_gpu.num-ctas" = 1 : i32, '
    ...                   'triton_gpu.target = "cuda:80"} {')
    ((3, 0), (3, 2))
    >>> spelling_releases("tt.func @k() {") is None
    True
"""

from __future__ import annotations

import re

__all__ = ["LATEST", "Range", "spelling_releases"]

#: the open end of a range ("and later")
LATEST = (99, 0)
Range = tuple[tuple[int, int], tuple[int, int]]

_MARKS: tuple[tuple[re.Pattern[str], Range], ...] = (
    (re.compile(r'(?<![\w%$])"?#?ttg\.'), ((3, 3), LATEST)),
    (re.compile(r'(?<![\w%$])"?#?triton_gpu\.'), ((2, 1), (3, 2))),
    (re.compile(r"\btriton_gpu\.target\b"), ((3, 0), (3, 2))),
    (re.compile(r'"triton_gpu\.compute-capability"'), ((2, 2), (2, 3))),
    (re.compile(r"#triton_gpu\.nvidia_mma<"), ((3, 0), (3, 2))),
    (re.compile(r"\b(?:tt\.(?:splat|expand_dims|broadcast)|triton_gpu\.convert_layout)\b[^\n]*"
                r" : \((?:tensor|!tt\.ptr)<[^\n]*\) -> "), ((2, 1), (2, 3))),
    (re.compile(r"\bttg\.memdesc_subview\b"), ((3, 3), (3, 4))),
    (re.compile(r"\bttg\.memdesc_index\b"), ((3, 5), LATEST)),
    (re.compile(r"(?<![\w%$.#])amdg\."), ((3, 6), LATEST)),
)  # fmt: skip
_MODULE_21 = re.compile(
    r'^\s*module attributes \{(?![^\n]*num-ctas)[^\n]*"triton_gpu\.num-warps"', re.MULTILINE
)


def spelling_releases(text: str) -> Range | None:
    """The range (first, last) of the Triton releases, as (major, minor), that print TTGIR
    spelled as ``text``; None when nothing in it says (``LATEST``: no known last release).
    Marks that contradict each other (text mixing two spellings) also give None."""
    low, high = (0, 0), LATEST
    found = False
    for pattern, (first, last) in _MARKS:
        if pattern.search(text):
            found = True
            low, high = max(low, first), min(high, last)
    if _MODULE_21.search(text):
        found = True
        low, high = max(low, (2, 1)), min(high, (2, 1))
    if not found or low > high:
        return None
    return low, high
