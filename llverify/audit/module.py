"""A TTGIR module as Triton 3.9 prints it, read for auditing (not a full MLIR parser).

What is read: the attribute aliases (``#blocked1 = #ttg.blocked<{...}>``, ``#loc3 =
loc("k.py":12:5)``), the module attributes (``ttg.target``, ``ttg.num-warps``,
``ttg.threads-per-warp``), and every operation line: its results, name, operands, the
``tensor<...>`` / ``!ttg.memdesc<...>`` types it mentions (aliases expanded) and its source
location resolved to ``file:line``.  Region operations in generic form (``"tt.reduce"(%x)
... ({ ... }) : (types) -> types``) are read as one operation spanning their region.
Anything else (other dialects, unknown attributes) is kept as an operation with its name and
types, so the caller can list what it skipped.  The text must be whole (:func:`check_whole`):
malformed or truncated text (unbalanced brackets, an unterminated string, no ``module``, a
module never closed, an alias used but never defined) is a :class:`ModuleError` naming its
line and column.

Examples:
    >>> text = '''#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... #loc = loc("k.py":3:7)
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
    ...   %0 = ttg.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked> loc(#loc)
    ... }'''
    >>> module = parse_module(text)
    >>> module.target, module.num_warps
    ('cuda:90', 4)
    >>> op = module.ops[0]
    >>> op.name, op.types[0].shape, op.types[0].element, op.location
    ('ttg.convert_layout', (64, 64), 'f16', 'k.py:3')
"""  # noqa: E501

from __future__ import annotations

import re
from dataclasses import dataclass, field

from llverify.errors import ParseError
from llverify.hardware import element_type_bits

__all__ = ["ModuleError", "Operation", "TTGIRModule", "TypeInfo", "check_whole", "parse_module"]

_ALIAS_DEF = re.compile(r"^(#[A-Za-z_][\w$-]*)\s*=\s*(.*)$")
_ALIAS_USE = re.compile(r"#([A-Za-z_][\w$-]*)(?![\w.$-])")
_OP = re.compile(r'^\s*(?:((?:%[\w#.$-]+(?::\d+)?(?:\s*,\s*)?)+)\s*=\s*)?"?([a-z_][\w]*\.[\w.]+)"?')
_LOC_REF = re.compile(r"loc\((#[\w$-]+)\)\s*$")
_FILE_LOC = re.compile(r'"([^"]*)":(\d+):(\d+)')
_MAX_COUNT = 1 << 16  # warps per CTA, lanes per warp, CTAs: far above any GPU's
_ATTR_INT = re.compile(r'"?(ttg\.num-warps|ttg\.threads-per-warp|ttg\.num-ctas)"?\s*=\s*(\d+)')
_ATTR_TARGET = re.compile(r'"?ttg\.target"?\s*=\s*"([^"]+)"')
# the text's tokens for check_whole: a string, an unterminated one, a comment, the arrows and
# comparisons that are no brackets, a bracket, an alias use, a line break
_TOKEN = re.compile(
    r'(?P<string>"(?:[^"\\\n]|\\.)*")|(?P<open_string>")|(?P<comment>//[^\n]*)|->|>=|'
    r"(?P<bracket>[{}\[\]()<>])|(?<![\w%#.$-])(?P<alias>#[A-Za-z_][\w$-]*)(?![\w.$-])|"
    r"(?P<newline>\n)"
)
_CLOSING = {"}": "{", "]": "[", ")": "(", ">": "<"}
_TOP_ALIAS = re.compile(r"^[#!][A-Za-z_][\w$-]*\s*=\s*(?P<value>.*)$")
# an alias value: a dialect attribute or type (``#ttg.shared_memory``, ``#ttg.blocked<...>``)
# or a builtin with its brackets (``loc(...)``, ``affine_map<...>``)
_ALIAS_VALUE = re.compile(r"^(?:[#!][A-Za-z_][\w.$-]*(?:<.*>)?|[A-Za-z_]\w*[<(\[].*[>)\]])$")


class ModuleError(ParseError):
    """Malformed or truncated TTGIR text, at ``line`` (1-based) and ``column`` (or None)."""

    def __init__(self, detail: str, line: int, column: int | None = None) -> None:
        self.detail = detail
        self.column = column
        where = f"line {line}" if column is None else f"line {line}, column {column}"
        super().__init__(f"{where}: {detail}")
        self.line = line


@dataclass(frozen=True)
class TypeInfo:
    """A ``tensor<...>`` or ``!ttg.memdesc<...>`` type: shape, element, encoding text
    (aliases expanded), and for memdescs the memory space and mutability."""

    kind: str  # "tensor" or "memdesc"
    shape: tuple[int, ...]
    element: str
    encoding: str
    text: str

    @property
    def bits(self) -> int | None:
        return element_type_bits(self.element)

    @property
    def alloc_shape(self) -> tuple[int, ...]:
        """A memdesc's allocation shape: the trailing ``128x64`` Triton prints after
        ``mutable`` for a subslice view, else the shape itself."""
        last = _split_top(self.text[self.text.index("<") + 1 : -1])[-1].strip()
        if self.kind == "memdesc" and re.fullmatch(r"\d+(?:x\d+)*", last):
            return tuple(int(d) for d in last.split("x"))
        return self.shape


@dataclass
class Operation:
    """One operation: ``results = name(operands) : types``, with its location."""

    name: str
    results: list[str]
    operands: list[str]
    types: list[TypeInfo]
    line: int  # 1-based line of the operation's first line
    location: str  # "file:line" of its loc(...), or "" when it has none
    text: str = field(repr=False)


@dataclass
class TTGIRModule:
    aliases: dict[str, str]
    ops: list[Operation]
    target: str | None
    num_warps: int | None
    threads_per_warp: int | None
    num_ctas: int | None
    lines: int

    def skipped(self, handled: set[str]) -> dict[str, int]:
        """Operation names not in ``handled``, with counts."""
        counts: dict[str, int] = {}
        for op in self.ops:
            if op.name not in handled:
                counts[op.name] = counts.get(op.name, 0) + 1
        return counts


def check_whole(text: str) -> None:
    r"""Raise :class:`ModuleError` unless ``text`` is a whole module: strings end on their line,
    brackets (``{[(<``, not the ``->`` arrow) are balanced and matched, the top level holds
    only comments, alias definitions (``#name = value`` / ``!name = value`` with a complete
    value) and ``module`` operations (at least one), each closed, with nothing but its
    ``loc(...)`` after its closing brace, and every alias used (``#loc3``) is defined.  A file
    cut anywhere (at a line break or inside a line) fails one of these.

    Examples:
        >>> check_whole('#loc = loc("k.py":1:1)\nmodule {\n} loc(#loc)\n')
        >>> check_whole('#loc = loc("k.py":1:1)\nmodule {\n  %0 = arith.constant 0 : i3')
        Traceback (most recent call last):
        ...
        llverify.audit.module.ModuleError: line 2, column 8: '{' is never closed: the text ends at line 3 (truncated?).
        >>> check_whole('module {\n} loc(#loc)\n')
        Traceback (most recent call last):
        ...
        llverify.audit.module.ModuleError: line 2, column 7: attribute alias #loc is used but never defined (misspelt, or a truncated file?).
    """  # noqa: E501
    defined: set[str] = set()
    uses: list[tuple[str, int, int]] = []
    stack: list[tuple[str, int, int]] = []  # open brackets: (bracket, line, column)
    in_region = False  # the outermost open bracket is a module's region
    line, line_start, modules = 1, 0, 0
    module_line = _check_top_line(text, 0, 1)  # the line of a module not yet closed, or 0
    for token in _TOKEN.finditer(text):
        kind, pos = token.lastgroup, token.start()
        column = pos - line_start + 1
        if kind == "newline":
            line, line_start = line + 1, pos + 1
            if not stack:
                module_line = _check_top_line(text, line_start, line) or module_line
        elif kind == "open_string":
            raise ModuleError("unterminated string (no closing '\"' on its line).", line, column)
        elif kind == "alias":
            name = token.group("alias")
            if not stack and not text[line_start:pos].strip():
                defined.add(name)  # a top-level line starting with #name is its definition
            else:
                uses.append((name, line, column))
        elif kind == "bracket":
            char = token.group("bracket")
            if char not in _CLOSING:
                if not stack and char == "{" and module_line:
                    if not text[:pos].rstrip().endswith("attributes"):
                        in_region = True  # not the module's attribute dictionary
                stack.append((char, line, column))
                continue
            if not stack:
                raise ModuleError(f"unbalanced '{char}' (it closes nothing).", line, column)
            if stack[-1][0] != _CLOSING[char]:
                opening, at_line, at_column = stack[-1]
                raise ModuleError(
                    f"unbalanced '{opening}' (line {line}, column {column} closes it with "
                    f"'{char}').",
                    at_line,
                    at_column,
                )
            stack.pop()
            if stack or not in_region:
                continue
            rest = _line_from(text, token.end())
            if rest and not rest.startswith("loc("):
                raise ModuleError(
                    f"unexpected {rest[:40]!r} after the closing brace of the module of line "
                    f"{module_line}.",
                    line,
                    column + 1,
                )
            modules, module_line, in_region = modules + 1, 0, False
    last = line - 1 if text.endswith("\n") else line
    if stack:
        char, at_line, at_column = stack[-1]
        raise ModuleError(
            f"'{char}' is never closed: the text ends at line {last} (truncated?).",
            at_line,
            at_column,
        )
    if module_line:
        raise ModuleError("the module has no region '{ ... }' (truncated?).", module_line)
    if not modules:
        raise ModuleError("the text has no 'module' operation (truncated?).", last)
    for name, at_line, at_column in uses:
        if name not in defined:
            raise ModuleError(
                f"attribute alias {name} is used but never defined (misspelt, or a truncated "
                "file?).",
                at_line,
                at_column,
            )


def _line_from(text: str, start: int) -> str:
    """``text`` from ``start`` to the end of its line, stripped."""
    end = text.find("\n", start)
    return text[start : len(text) if end < 0 else end].strip()


def _check_top_line(text: str, start: int, line: int) -> int:
    """Check the top-level line starting at ``start``: blank, a comment, a complete alias
    definition, file metadata (``{-#``) or a ``module``; ``line`` for a module, else 0."""
    stripped = _line_from(text, start)
    if stripped.startswith("module"):
        return line
    if not stripped or stripped.startswith(("//", "{-#")):
        return 0
    alias = _TOP_ALIAS.match(stripped)
    if alias is None:
        raise ModuleError(
            f"expected an alias definition or a module at the top level, not {stripped[:40]!r}.",
            line,
        )
    if not _ALIAS_VALUE.match(alias.group("value").strip()):
        raise ModuleError(
            f"the alias definition {stripped[:60]!r} has no complete value (truncated?).", line
        )
    return 0


def _balanced_end(text: str, start: int, line_no: int, opening: str, closing: str) -> int:
    """Index just past the bracket closing the one at ``start``."""
    depth = 0
    in_string = False
    i = start
    while i < len(text):
        ch = text[i]
        if ch == '"' and text[i - 1] != "\\":
            in_string = not in_string
        elif not in_string:
            if ch == opening:
                depth += 1
            elif ch == closing and not (closing == ">" and text[i - 1] == "-"):
                depth -= 1
                if depth == 0:
                    return i + 1
        i += 1
    raise ModuleError(f"unbalanced '{opening}' (no matching '{closing}').", line_no, start + 1)


def _expand(text: str, aliases: dict[str, str], line_no: int, depth: int = 0) -> str:
    if depth > 32:
        raise ModuleError("aliases refer to each other in a cycle.", line_no)

    def replace(match: re.Match[str]) -> str:
        name = "#" + match.group(1)
        if name not in aliases:
            raise ModuleError(
                f"attribute alias {name} is used but never defined.", line_no, match.start() + 1
            )
        return _expand(aliases[name], aliases, line_no, depth + 1)

    return _ALIAS_USE.sub(replace, text)


def _types(text: str, aliases: dict[str, str], line_no: int) -> list[TypeInfo]:
    out = []
    # a memdesc is also printed with its dialect prefix elided after an arrow
    # (``ttg.async_copy_global_to_local ... -> <128x64xf16, #shared, #smem, mutable>``)
    for match in re.finditer(r"(!ttg\.memdesc|tensor|->\s*)<", text):
        begin = match.end() - 1
        end = _balanced_end(text, begin, line_no, "<", ">")
        body = text[begin + 1 : end - 1]
        parts = _split_top(body)
        dims_elem = parts[0].strip()
        pieces = dims_elem.split("x")
        shape: list[int] = []
        for piece in pieces[:-1]:
            if not (piece.isascii() and piece.isdigit()):
                break
            shape.append(int(piece))
        element = "x".join(pieces[len(shape) :])
        encoding = _expand(parts[1].strip(), aliases, line_no) if len(parts) > 1 else ""
        kind = "tensor" if match.group(1) == "tensor" else "memdesc"
        start = match.start() if kind == "tensor" or match.group(1)[0] == "!" else begin
        out.append(TypeInfo(kind, tuple(shape), element, encoding, text[start:end]))
    return out


def _split_top(body: str) -> list[str]:
    """Split on commas outside brackets and strings."""
    parts: list[str] = []
    current: list[str] = []
    depth, in_string = 0, False
    for i, ch in enumerate(body):
        if ch == '"':
            in_string = not in_string
        elif not in_string:
            if ch in "<[{(":
                depth += 1
            elif ch in ">]})" and not (ch == ">" and i and body[i - 1] == "-"):
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append("".join(current))
                current = []
                continue
        current.append(ch)
    parts.append("".join(current))
    return parts


def _location(text: str, aliases: dict[str, str], depth: int = 0) -> str:
    if "callsite(" in text and " at " in text:  # an inlined call: the caller's line is the user's
        found = _location(text.rsplit(" at ", 1)[1], aliases, depth + 1)
        if found:
            return found
    match = _FILE_LOC.search(text)
    if match:
        return f"{match.group(1)}:{match.group(2)}"
    if depth > 16:
        return ""
    for ref in re.findall(r"#[\w$-]+", text):
        if ref in aliases and aliases[ref].startswith("loc("):
            found = _location(aliases[ref], aliases, depth + 1)
            if found:
                return found
    return ""


def parse_module(text: str) -> TTGIRModule:
    """Read a TTGIR module (see the module docstring)."""
    if not isinstance(text, str):
        raise ParseError(f"Argument 'text' must be the module's text (str), not {type(text)}.")
    check_whole(text)
    lines = text.splitlines()
    # MLIR prints attribute aliases first and location aliases last: collect them all first
    aliases: dict[str, str] = {}
    for raw in lines:
        alias = _ALIAS_DEF.match(raw.strip())
        if alias:
            aliases[alias.group(1)] = alias.group(2).strip()
    ops: list[Operation] = []
    target = None
    ints: dict[str, int] = {}
    i = 0
    while i < len(lines):
        raw = lines[i]
        line_no = i + 1
        stripped = raw.strip()
        i += 1
        if not stripped or stripped.startswith("//"):
            continue
        if _ALIAS_DEF.match(stripped):
            continue
        if stripped.startswith("module"):
            found = _ATTR_TARGET.search(stripped)
            target = found.group(1) if found else None
            for key, value in _ATTR_INT.findall(stripped):
                count = int(value) if len(value) <= 12 else 0
                if not (1 <= count <= _MAX_COUNT and count & (count - 1) == 0):
                    raise ModuleError(
                        f"module attribute {key} must be a power of 2 from 1 to {_MAX_COUNT}, "
                        f"not {value if len(value) <= 12 else value[:12] + '...'}",
                        line_no,
                    )
                ints[key] = count
            continue
        match = _OP.match(raw)
        if not match:
            continue  # closing braces, block labels, ...
        body = raw
        # generic-form ops with regions: read until the region closes
        if "({" in raw and not re.search(r"\}\)\s*:", raw):
            depth = raw.count("{") - raw.count("}")
            while depth > 0 and i < len(lines):
                body += "\n" + lines[i]
                depth += lines[i].count("{") - lines[i].count("}")
                i += 1
            if depth > 0:
                raise ModuleError(f"the region of {match.group(2)} never closes.", line_no)
        results = re.findall(r"%[\w#.$-]+", match.group(1) or "")
        name = match.group(2)
        head = body.split("({", 1)[0]
        operands = [o for o in re.findall(r"%[\w#.$-]+", head[match.end() :])]
        loc_ref = _LOC_REF.search(body.splitlines()[-1].rstrip())
        location = ""
        if loc_ref:
            location = _location(loc_ref.group(1), aliases)
        else:
            inline = re.search(r"loc\((.*)\)\s*$", body.splitlines()[-1].rstrip())
            if inline:
                location = _location(inline.group(1), aliases)
        ops.append(
            Operation(
                name=name,
                results=results,
                operands=operands,
                types=_types(_strip_locs(body), aliases, line_no),
                line=line_no,
                location=location,
                text=body,
            )
        )
    return TTGIRModule(
        aliases=aliases,
        ops=ops,
        target=target,
        num_warps=ints.get("ttg.num-warps"),
        threads_per_warp=ints.get("ttg.threads-per-warp"),
        num_ctas=ints.get("ttg.num-ctas"),
        lines=len(lines),
    )


def _strip_locs(body: str) -> str:
    """The op text without its trailing loc(...) (locations hold no types)."""
    return re.sub(r"\s*loc\(.*\)\s*$", "", body, flags=re.MULTILINE)
