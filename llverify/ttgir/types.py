"""The TTGIR type model: tensors (shape, element, encoding), shared-memory descriptors (with
their memory space, mutability and allocation shape), pointers and other scalars; reading one
type, the types a text mentions, and an operation's signature ``: A, B -> C``.

An encoding is kept twice: as written (an alias such as ``#blocked``, or the attribute) and
with every alias expanded (what a layout is built from).

Examples:
    >>> aliases = {"#b": "#ttg.blocked<{order = [0]}>", "#smem": "#ttg.shared_memory"}
    >>> t = parse_type("tensor<128x64x!tt.ptr<f16>, #b>", aliases)
    >>> t.kind, t.shape, t.element, t.written_encoding, t.encoding, t.bits
    ('tensor', (128, 64), '!tt.ptr<f16>', '#b', '#ttg.blocked<{order = [0]}>', 64)
    >>> m = parse_type("!ttg.memdesc<64x16xf16, #b, #smem, mutable, 64x64>", aliases)
    >>> m.kind, m.shape, m.alloc_shape, m.memory_space, m.mutable
    ('memdesc', (64, 16), (64, 64), '#ttg.shared_memory', True)
    >>> parse_signature("(tensor<4xf16, #b>, i32) -> f32", aliases)[1][0].kind
    'scalar'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from llverify.errors import LayoutTypeError, shown
from llverify.hardware import element_type_bits
from llverify.ttgir.syntax import ModuleError, balanced_end, position, split_spans, split_top

__all__ = [
    "KINDS",
    "Aliases",
    "Type",
    "expand_aliases",
    "integer_bits",
    "mentioned_types",
    "parse_dims",
    "parse_signature",
    "parse_type",
    "type_text",
]

#: the kinds of :class:`Type`
KINDS = ("tensor", "memdesc", "pointer", "scalar")
_ALIAS_USE = re.compile(r"#([A-Za-z_][\w$-]*)(?![\w.$-])")
_SHAPE = re.compile(r"\d+(?:x\d+)*")
# a tensor, a memdesc, or a memdesc printed without its dialect prefix after an arrow
# (``ttg.async_copy_global_to_local ... -> <128x64xf16, #shared, #smem, mutable>``)
_MENTIONED = re.compile(r"(!ttg\.memdesc|tensor|->\s*)<")
_MAX_ALIAS_DEPTH = 32


# a ``<`` bracket holding plain text, ``{...}`` brackets of plain text, and ``<...>`` brackets
# of those only (no string, no arrow, no other bracket): bracket matching
# (:func:`~llverify.ttgir.syntax.balanced_end`) ends it where this pattern does, its depth first
# back to 0 at the last ``>`` (``<64x!tt.ptr<f16>, #ttg.slice<{dim = 1, parent = #b}>>``);
# anything else is matched token by token
_PLAIN = r'[^<>()\[\]{}"-]*'
_BRACED = f"\\{{{_PLAIN}\\}}"
_PLAIN_BRACKET = re.compile(
    f"<{_PLAIN}(?:(?:<{_PLAIN}(?:{_BRACED}{_PLAIN})*>|{_BRACED}){_PLAIN})*>"
)


@dataclass(frozen=True)
class Type:
    """One TTGIR type.

    ``kind``: "tensor", "memdesc", "pointer" (``!tt.ptr<...>``) or "scalar" (anything else:
    ``i32``, ``f32``, ``!ttg.async.token``).  A pointer's or scalar's ``element`` is its whole
    text; ``encoding`` is the encoding with aliases expanded ("" when there is none),
    ``written_encoding`` as written.  A memdesc also has its memory space (expanded), whether
    it is mutable, and ``alloc_dims``: the allocation shape Triton prints last for a subslice
    view (``64x64``), else ().
    """

    kind: str
    shape: tuple[int, ...]
    element: str
    encoding: str
    text: str
    written_encoding: str = ""
    memory_space: str = ""
    mutable: bool = False
    alloc_dims: tuple[int, ...] = ()

    @property
    def bits(self) -> int | None:
        """Bits of the element type (pointers 64), None when unknown."""
        return element_type_bits(self.element)

    @property
    def encoding_name(self) -> str:
        """The encoding attribute's name, "" when there is none (see :func:`encoding_name`)."""
        return encoding_name(self.encoding)

    @property
    def alloc_shape(self) -> tuple[int, ...]:
        """A memdesc's allocation shape: ``alloc_dims`` when printed, else the shape."""
        return self.alloc_dims or self.shape

    @property
    def pointee(self) -> str:
        """A pointer's pointee type (``!tt.ptr<f16, 1>`` -> ``f16``), else ""."""
        if self.kind != "pointer":
            return ""
        parts = split_top(self.text[self.text.index("<") + 1 : -1])
        return parts[0] if parts else ""


def encoding_name(encoding: str) -> str:
    """The name of an encoding attribute's text, "" for no encoding.

    Examples:
        >>> encoding_name("#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>")
        'ttg.dot_op'
        >>> encoding_name("")
        ''
    """
    return encoding[1:].partition("<")[0] if encoding.startswith("#") else ""


def integer_bits(element: str) -> int | None:
    """The width of a signless integer element type (``i32`` -> 32), else None.

    >>> integer_bits("i1"), integer_bits("f32"), integer_bits("i²")
    (1, None, None)
    """
    digits = element[1:]
    return int(digits) if element[:1] == "i" and digits.isascii() and digits.isdigit() else None


def type_text(shape: tuple[int, ...] | list[int], element: str, encoding: str = "") -> str:
    """The text of a tensor type.

    >>> type_text((16, 8), "f16", "#b"), type_text((), "i32")
    ('tensor<16x8xf16, #b>', 'tensor<i32>')
    """
    dims = "x".join(str(n) for n in (*shape, element))
    return f"tensor<{dims}, {encoding}>" if encoding else f"tensor<{dims}>"


class Aliases(dict[str, str]):
    """A module's alias definitions (``#blocked`` -> its value), remembering the expansions
    :func:`expand_aliases` made and the signatures :func:`parse_signature` read (a module
    mentions each encoding, and repeats each signature, many times; the definitions must not
    change once these are remembered)."""

    def __init__(self, definitions: Mapping[str, str] | None = None) -> None:
        super().__init__(definitions or {})
        self.expansions: dict[str, str] = {}
        #: signature text -> its operand and result types (only those read without error)
        self.signatures: dict[str, tuple[tuple[Type, ...], tuple[Type, ...]]] = {}
        #: a signature's type text -> its type (only those read without error)
        self.types: dict[str, Type] = {}
        #: the types read from a bracket's text (its kind, its text from the start of the type,
        #: the offset of its ``<`` there), each read once: a module spells few types many times
        self.brackets: dict[tuple[str, str, int], Type] = {}


def expand_aliases(text: str, aliases: Mapping[str, str] | None, line: int = 1) -> str:
    """``text`` with every attribute alias (``#blocked``) replaced by its definition, through
    aliases of aliases; an undefined alias or a cycle is a :class:`ModuleError`.

    >>> expand_aliases("#ttg.slice<{dim = 0, parent = #b}>", {"#b": "#ttg.blocked<{}>"})
    '#ttg.slice<{dim = 0, parent = #ttg.blocked<{}>}>'
    """
    if not aliases or "#" not in text:
        return text
    if not isinstance(aliases, Aliases):
        return _expand(text, aliases, line, 0)
    expanded = aliases.expansions.get(text)
    if expanded is None:
        expanded = aliases.expansions[text] = _expand(text, aliases, line, 0)
    return expanded


def _expand(text: str, aliases: Mapping[str, str], line: int, depth: int) -> str:
    if depth > _MAX_ALIAS_DEPTH:
        raise ModuleError("aliases refer to each other in a cycle.", line)

    def replace(match: re.Match[str]) -> str:
        name = "#" + match.group(1)
        if name not in aliases:
            raise ModuleError(
                f"attribute alias {name} is used but never defined.", line, match.start() + 1
            )
        return _expand(aliases[name], aliases, line, depth + 1)

    return _ALIAS_USE.sub(replace, text)


def _dims(text: str, whole: str, line: int) -> tuple[tuple[int, ...], str]:
    """The shape and element of ``128x64xf16``."""
    pieces = text.split("x")
    shape: list[int] = []
    for piece in pieces[:-1]:
        if not (piece.isascii() and piece.isdigit()):
            break
        shape.append(int(piece))
    element = "x".join(pieces[len(shape) :]).strip()
    if not element:
        raise ModuleError(f"expected SHAPExELEMENT (e.g. 128x64xf16) in {whole[:80]!r}.", line)
    return tuple(shape), element


def parse_dims(text: str, line: int = 1) -> tuple[tuple[int, ...], str]:
    """The shape and element type of ``SHAPExELEMENT``, the first field of a tensor or memdesc
    type; no element is a :class:`ModuleError`.

    >>> parse_dims("128x64xf16"), parse_dims(" 4x!tt.ptr<f16>"), parse_dims("i32")
    (((128, 64), 'f16'), ((4,), '!tt.ptr<f16>'), ((), 'i32'))
    """
    return _dims(text.strip(), text, line)


def _bracketed(
    text: str, begin: int, start: int, kind: str, aliases: Mapping[str, str] | None, line: int
) -> tuple[Type, int]:
    """The tensor or memdesc type whose ``<`` is at ``start`` (its text from ``begin``), and
    the index past its ``>``; read once per module (:attr:`Aliases.brackets`)."""
    if not isinstance(aliases, Aliases):
        return _read_bracketed(text, begin, start, kind, aliases, line)
    plain = _PLAIN_BRACKET.match(text, start)
    end = balanced_end(text, start, line) if plain is None else plain.end()
    key = (kind, text[begin:end], start - begin)
    found = aliases.brackets.get(key)
    if found is None:
        found = aliases.brackets[key] = _read_bracketed(text, begin, start, kind, aliases, line)[0]
    return found, end


def _read_bracketed(
    text: str, begin: int, start: int, kind: str, aliases: Mapping[str, str] | None, line: int
) -> tuple[Type, int]:
    """:func:`_bracketed`, read."""
    end = balanced_end(text, start, line)
    whole = text[start:end]
    parts = [text[a:b].strip() for a, b in split_spans(text, ",", start + 1, end - 1)]
    if not parts[0]:
        at_line, column = position(text, start, line)
        raise ModuleError(f"expected SHAPExELEMENT in {whole[:80]!r}.", at_line, column)
    shape, element = _dims(parts[0], whole, line)
    written = parts[1] if len(parts) > 1 else ""
    encoding = expand_aliases(written, aliases, line)
    if kind == "tensor":
        return Type("tensor", shape, element, encoding, text[begin:end], written), end
    extras = parts[2:]
    space = extras[0] if extras and extras[0].startswith("#") else ""
    alloc = parts[-1] if len(parts) > 1 and _SHAPE.fullmatch(parts[-1]) else ""
    memdesc = Type(
        "memdesc",
        shape,
        element,
        encoding,
        text[begin:end],
        written,
        expand_aliases(space, aliases, line),
        "mutable" in extras,
        tuple(int(n) for n in alloc.split("x")) if alloc else (),
    )
    return memdesc, end


def parse_type(text: str, aliases: Mapping[str, str] | None = None, line: int = 1) -> Type:
    """One type, e.g. ``tensor<16x32xf16, #blocked>``; ``aliases`` expand its encoding,
    ``line`` is where ``text`` sits (for errors).  Malformed text is a :class:`ModuleError`.

    >>> parse_type("i32").kind, parse_type("!tt.ptr<f16, 1>").pointee
    ('scalar', 'f16')
    >>> parse_type("tensor<4xf16, #b")
    Traceback (most recent call last):
    ...
    llverify.ttgir.syntax.ModuleError: line 1, column 7: unbalanced '<' (nothing closes it) in 'tensor<4xf16, #b'.
    """  # noqa: E501
    if not isinstance(text, str):
        raise LayoutTypeError(f"Argument 'text' must be a type's text (str), not {shown(text)}.")
    stripped = text.strip()
    if stripped.startswith(("tensor<", "!ttg.memdesc<", "<")):
        kind = "tensor" if stripped.startswith("tensor") else "memdesc"
        found, end = _bracketed(stripped, 0, stripped.index("<"), kind, aliases, line)
        if end != len(stripped):
            raise ModuleError(
                f"unexpected {stripped[end:][:40]!r} after the type {stripped[:end][:60]!r}.", line
            )
        return found
    if not stripped:
        raise ModuleError("expected a type, found nothing.", line)
    if stripped.startswith("!tt.ptr<"):
        if balanced_end(stripped, 7, line) != len(stripped):
            raise ModuleError(f"unexpected text after the pointer type {stripped[:60]!r}.", line)
        return Type("pointer", (), stripped, "", stripped)
    return Type("scalar", (), stripped, "", stripped)


def mentioned_types(
    text: str, aliases: Mapping[str, str] | None = None, line: int = 1
) -> list[Type]:
    """Every tensor and memdesc type ``text`` mentions, in order (a memdesc printed without
    its ``!ttg.memdesc`` prefix after an arrow included, its text from the ``<``).

    >>> [t.text for t in mentioned_types("%a = f %x : tensor<4xi32> -> <4xi32, #s, #m>")]
    ['tensor<4xi32>', '<4xi32, #s, #m>']
    """
    out = []
    for match in _MENTIONED.finditer(text):
        begin = match.end() - 1
        kind = "tensor" if match.group(1) == "tensor" else "memdesc"
        at_line = line + text.count("\n", 0, begin)
        start = match.start() if kind == "tensor" or match.group(1)[0] == "!" else begin
        out.append(_bracketed(text, start, begin, kind, aliases, at_line)[0])
    return out


def parse_signature(
    text: str, aliases: Mapping[str, str] | None = None, line: int = 1
) -> tuple[list[Type], list[Type]]:
    """The operand and result types of a signature ``A, B -> C`` (``(A, B) -> C``, a dot's
    ``A * B -> C``, a cast's ``A to B``, or ``A`` alone: no results).

    >>> [t.text for t in parse_signature("f16 to f32")[1]]
    ['f32']

    With a module's :class:`Aliases` a signature read once is not read again: its types
    are remembered per text (a :class:`Type` is immutable; the lists are new each call).

    >>> aliases = Aliases({"#b": "#ttg.blocked<{}>"})
    >>> first = parse_signature("tensor<4xf16, #b> -> tensor<4xf32, #b>", aliases)
    >>> again = parse_signature("tensor<4xf16, #b> -> tensor<4xf32, #b>", aliases, line=9)
    >>> again == first, again[1] is first[1], again[1][0].encoding
    (True, False, '#ttg.blocked<{}>')
    """
    if isinstance(aliases, Aliases):
        known = aliases.signatures.get(text)
        if known is None:
            inputs, outputs = _read_signature(text, aliases, line)
            known = aliases.signatures[text] = (tuple(inputs), tuple(outputs))
        return list(known[0]), list(known[1])
    return _read_signature(text, aliases, line)


def _read_signature(
    text: str, aliases: Mapping[str, str] | None, line: int
) -> tuple[list[Type], list[Type]]:
    sides = split_top(text, "->")
    if len(sides) == 1 and " to " in sides[0]:
        sides = split_top(sides[0], " to ")
    if not sides or len(sides) > 2:
        raise ModuleError(f"malformed type signature {text.strip()[:80]!r}", line)

    def types(side: str) -> list[Type]:
        if side.startswith("(") and balanced_end(side, 0, line) == len(side):
            side = side[1:-1]
        pieces = [t for piece in split_top(side) for t in split_top(piece, " * ")]
        if not isinstance(aliases, Aliases):
            return [parse_type(t, aliases, line) for t in pieces]
        found = []
        for piece in pieces:
            known = aliases.types.get(piece)
            if known is None:
                known = aliases.types[piece] = parse_type(piece, aliases, line)
            found.append(known)
        return found

    return types(sides[0]), types(sides[1]) if len(sides) == 2 else []
