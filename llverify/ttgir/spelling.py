"""The Triton releases whose printed TTGIR is spelled as a text is (dialect names, signatures,
module attributes), from what the releases 2.1 to 3.9 print; and TTGIR spelled for 2.1-3.2
rewritten in Triton 3.9's spelling, line for line (:func:`normalise_spelling`).

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
    >>> print(normalise_spelling("%y = triton_gpu.convert_layout %x : (tensor<4xf16, #a>) -> "
    ...                          "tensor<4xf16, #b>"))
    %y = ttg.convert_layout %x : tensor<4xf16, #a> -> tensor<4xf16, #b>
"""

from __future__ import annotations

import re
from collections.abc import Callable

from llverify.ttgir.attributes import Attributes, parse_attribute_dict
from llverify.ttgir.syntax import ModuleError, balanced_end, split_top

__all__ = [
    "LATEST",
    "NORMALISATIONS",
    "Range",
    "normalise_spelling",
    "old_spelling",
    "spelling_releases",
]

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


# --------------------------------------------------------------------------- old -> 3.9 spelling
#
# Each rewrite keeps every line where it is (operations keep their line numbers, so verdicts
# and locations still point into the text as written).


def old_spelling(text: str) -> bool:
    """Whether ``text`` is TTGIR spelled for Triton 3.2 or older (``triton_gpu.*``,
    ``!tt.memdesc``), which :func:`normalise_spelling` rewrites.

    >>> old_spelling('module attributes {"triton_gpu.num-warps" = 4 : i32} {'), old_spelling("")
    (True, False)
    """
    # the substrings first (a scan in C): the pattern's lookbehind makes its own scan slow
    if (
        "triton_gpu." not in text
        and "triton_nvidia_gpu." not in text
        and "!tt.memdesc<" not in text
    ):
        return False
    return bool(_OLD.search(text))


_OLD = re.compile(r"(?<![\w%$.])(?:triton_gpu|triton_nvidia_gpu)\.|!tt\.memdesc<")
_FUNCTIONAL = re.compile(
    r"^(\s*(?:%[\w#.$-]+\s*=\s*)?(?:tt\.(?:splat|broadcast|expand_dims|reshape|trans|fp_to_fp|"
    r"bitcast|int_to_ptr|ptr_to_int)|ttg\.convert_layout)\b[^\n]*? : )\(([^\n]*?)\)( -> )",
    re.MULTILINE,
)


def _functional_types(text: str) -> str:
    """2.x's ``: (A) -> B`` of the one-operand ops 3.x prints ``: A -> B``."""

    def rewrite(match: re.Match[str]) -> str:
        inner = match.group(2)
        if len(split_top(inner)) != 1:
            return match.group(0)
        return f"{match.group(1)}{inner}{match.group(3)}"

    return _FUNCTIONAL.sub(rewrite, text)


def _attributes_of(mnemonic: str, edit: Callable[[Attributes, str], str]) -> Callable[[str], str]:
    """A rewrite of every ``#ttg.<mnemonic><{...}>`` into ``edit(fields, whole)``."""
    head = f"#ttg.{mnemonic}<"

    def rewrite(text: str) -> str:
        out, i = [], 0
        while (start := text.find(head + "{", i)) >= 0:
            try:
                end = balanced_end(text, start + len(head) - 1)
                whole = text[start:end]
                fields = parse_attribute_dict(whole, len(head))[0]
            except ModuleError:
                break  # malformed: the reader reports it
            out += [text[i:start], edit(fields, whole)]
            i = end
        return "".join(out) + text[i:]

    return rewrite


def _dictionary(fields: Attributes, whole: str, drop: frozenset[str]) -> str:
    """The entries of ``fields`` (read from ``whole``) but ``drop``, as written."""
    kept = []
    for name in fields:
        span = fields.entry_span(name)
        if name not in drop and span is not None:
            kept.append(whole[span[0] : span[1]])
    return ", ".join(kept)


def _legacy_shared(fields: Attributes, whole: str) -> str:
    """The pre-3.3 ``#shared``: ``swizzled_shared`` without a leading offset; with one, the
    ``nvmma_shared`` it stands for when its fields are one (vec = 128 / element bits, perPhase
    = 128 / swizzle bytes, maxPhase = swizzle bytes / 16, rank 2), else unchanged (the
    encodings parser then names it)."""
    offset = fields.boolean("hasLeadingOffset")
    if not offset:
        body = _dictionary(fields, whole, frozenset({"hasLeadingOffset"}))
        return f"#ttg.swizzled_shared<{{{body}}}>"
    vec, per_phase, max_phase = (fields.integer(k) for k in ("vec", "perPhase", "maxPhase"))
    order = fields.integers("order")
    if vec is None or per_phase is None or max_phase is None or order not in ((1, 0), (0, 1)):
        return whole
    if vec <= 0 or 128 % vec:
        return whole
    bits, width = 128 // vec, 16 * max_phase
    if (vec, per_phase, max_phase) == (1, 1, 1):
        return whole  # no swizzle: the element width is not written anywhere here
    if width not in (32, 64, 128) or per_phase != 128 // width:
        return whole
    transposed = "true" if order == (0, 1) else "false"
    extra = _dictionary(fields, whole, frozenset({"vec", "perPhase", "maxPhase", "order",
                                                 "hasLeadingOffset"}))  # fmt: skip
    return (
        f"#ttg.nvmma_shared<{{swizzlingByteWidth = {width}, transposed = {transposed}, "
        f"elementBitWidth = {bits}{', ' + extra if extra else ''}}}>"
    )


def _mma_instr_shape(fields: Attributes, whole: str) -> str:
    """2.1's ``mma`` version 2 without ``instrShape``: the one shape it has, [16, 8]."""
    if "instrShape" in fields or fields.integer("versionMajor") != 2:
        return whole
    return f"{whole[:-2]}, instrShape = [16, 8]}}>"


_CTA_KEYS = frozenset({"CTAsPerCGA", "CTASplitNum", "CTAOrder"})


def _one_cta(fields: Attributes, whole: str) -> str:
    """2.2-2.3's CTA parameters, dropped when they describe one CTA (3.0 made them optional;
    3.9 has no such keys); kept otherwise (the encodings parser reads them)."""
    ctas, splits = fields.integers("CTAsPerCGA"), fields.integers("CTASplitNum")
    if ctas is None or splits is None or any(v != 1 for v in ctas + splits):
        return whole
    mnemonic = whole[: whole.index("<")]
    return f"{mnemonic}<{{{_dictionary(fields, whole, _CTA_KEYS)}}}>"


_SCAN = re.compile(r'("tt\.scan"\([^\n]*?\)\s*<\{)((?:(?!\}>)[^\n])*)(\}>)')


def _scan_direction(text: str) -> str:
    """2.x's ``tt.scan`` has no ``reverse`` (it always scans forward): ``reverse = false``."""

    def rewrite(match: re.Match[str]) -> str:
        if re.search(r"\breverse\b", match.group(2)):
            return match.group(0)
        return f"{match.group(1)}{match.group(2)}, reverse = false{match.group(3)}"

    return _SCAN.sub(rewrite, text)


_MEMDESC = "!ttg.memdesc<"


def _memory_space(text: str) -> str:
    """Before 3.2 a memdesc names no memory space: add ``#ttg.shared_memory``."""
    out, i = [], 0
    while (start := text.find(_MEMDESC, i)) >= 0:
        try:
            end = balanced_end(text, start + len(_MEMDESC) - 1)
        except ModuleError:
            break
        parts = split_top(text[start + len(_MEMDESC) : end - 1])
        if len(parts) >= 2 and not any(part.startswith("#") for part in parts[2:]):
            parts.insert(2, "#ttg.shared_memory")
            out += [text[i:start], f"{_MEMDESC}{', '.join(parts)}>"]
        else:
            out.append(text[i:end])
        i = end
    return "".join(out) + text[i:]


def _compute_capability(text: str) -> str:
    """2.2-2.3's ``"ttg.compute-capability" = 80 : i32`` as ``ttg.target = "cuda:80"``."""
    return re.sub(
        r'"ttg\.compute-capability"\s*=\s*(\d+)\s*:\s*i32', r'ttg.target = "cuda:\1"', text
    )


#: (what changed, rewrite from the old spelling to 3.9's), applied in this order
NORMALISATIONS: tuple[tuple[str, Callable[[str], str]], ...] = (
    (
        "dialect prefixes triton_gpu. and triton_nvidia_gpu. (3.3: ttg. and ttng.)",
        lambda text: re.sub(
            r"(?<![\w%$.])triton_nvidia_gpu\.",
            "ttng.",
            re.sub(r"(?<![\w%$.])triton_gpu\.", "ttg.", text),
        ),
    ),
    ("!tt.memdesc (3.3: !ttg.memdesc)", lambda text: text.replace("!tt.memdesc<", _MEMDESC)),
    ("memdesc without a memory space (3.2: #ttg.shared_memory)", _memory_space),
    ("#ttg.mma (3.0: #ttg.nvidia_mma)", lambda text: text.replace("#ttg.mma<", "#ttg.nvidia_mma<")),
    ("mma version 2 without instrShape (2.1)", _attributes_of("nvidia_mma", _mma_instr_shape)),
    ("#ttg.shared (3.3: swizzled_shared / nvmma_shared)", _attributes_of("shared", _legacy_shared)),
    *(
        (f"CTA parameters of one CTA in #ttg.{m} (3.0: optional)", _attributes_of(m, _one_cta))
        for m in ("blocked", "nvidia_mma", "swizzled_shared", "nvmma_shared")
    ),
    ("tt.scan without reverse (3.0: reverse = false)", _scan_direction),
    ("op types (A) -> B (3.0: A -> B)", _functional_types),
    ('"ttg.compute-capability" (3.0: ttg.target)', _compute_capability),
    (
        "arith.maxf/minf (2.2: maximumf/minimumf, NaN-propagating)",
        lambda text: re.sub(r"\barith\.(max|min)f\b", r"arith.\1imumf", text),
    ),
)


def normalise_spelling(text: str) -> str:
    """``text``, TTGIR spelled for Triton 2.1-3.2, in Triton 3.9's spelling, each line where
    it was (:data:`NORMALISATIONS`).  What 3.9 has no spelling for is left as written
    (2.x's shared-encoded tensors, ``tt.load`` typed by the value, ``memdesc_subview``): the
    reader keeps those operations, and the harness leaves them out with the reason."""
    for _, rewrite in NORMALISATIONS:
        text = rewrite(text)
    return text
