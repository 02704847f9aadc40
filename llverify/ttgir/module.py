"""A TTGIR module as Triton 3.9 prints it, read into operations (not a full MLIR parser).

What is read: the attribute aliases (``#blocked1 = #ttg.blocked<{...}>``, ``#loc3 =
loc("k.py":12:5)``), the module attributes (``ttg.target``, ``ttg.num-warps``,
``ttg.threads-per-warp``, ``ttg.num-ctas``), and every operation line: its results, name,
operands, the ``tensor<...>`` / ``!ttg.memdesc<...>`` types it mentions (aliases expanded)
and its source location resolved to ``file:line``.  On demand an operation also gives its
signature (typed operand and result types), attributes, subscripts (``%a[0, 16]``), bare
words (``ogt``, ``allow_reorder``) and regions.  Region operations in generic form
(``"tt.reduce"(%x) ... ({ ... }) : (types) -> types``) are read as one operation spanning
their region; the operations of other regions (``scf.for ... {``) are listed in line.
Anything else (other dialects, unknown attributes) is kept as an operation with its name and
types, so the caller can list what it skipped.  The text must be whole
(:func:`~llverify.ttgir.whole.check_whole`); malformed text is a :class:`ModuleError` naming
its line and column.

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
    >>> op.result_types[0].written_encoding, op.operands
    ('#blocked', ['%x'])
"""  # noqa: E501

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from llverify.errors import ParseError
from llverify.ttgir.attributes import Attributes, ModuleAttributes, parse_attribute_dict
from llverify.ttgir.locations import (
    FileLocation,
    first_file_location,
    replace_locations,
    trailing_location,
    trailing_location_span,
    user_location,
)
from llverify.ttgir.spelling import Range, normalise_spelling, old_spelling, spelling_releases
from llverify.ttgir.syntax import (
    SSA_NAME,
    ModuleError,
    balanced_end,
    integer_literal,
    split_spans,
    split_top,
    top_level_find,
)
from llverify.ttgir.types import Aliases, Type, mentioned_types, parse_signature, parse_type
from llverify.ttgir.wellformed import check_wellformed
from llverify.ttgir.whole import check_whole

__all__ = [
    "Block",
    "ModuleHeader",
    "Operation",
    "Region",
    "TTGIRModule",
    "alias_definition",
    "canonical_op_name",
    "parse_module",
    "read_aliases",
    "read_module_header",
    "read_operation",
    "read_signatures",
    "rewrite_operation",
]

_ALIAS_HEAD = re.compile(r"(#[A-Za-z_][\w$-]*)\s*=\s*")  # ``#blocked = `` before a value
_ALIAS_DEF = re.compile(rf"^{_ALIAS_HEAD.pattern}(.*)$")
_OP = re.compile(r'^\s*(?:((?:%[\w#.$-]+(?::\d+)?(?:\s*,\s*)?)+)\s*=\s*)?"?([a-z_][\w]*\.[\w.]+)"?')
_RESULT = re.compile(r"(%[\w.$-]+)(?::(\d+))?")
_RESULTS = re.compile(r"^\s*((?:%[\w#.$-]+(?::\d+)?\s*,?\s*)+)=\s*")
_REGION_CLOSED = re.compile(r"\}\)\s*:")
_BLOCK_LABEL = re.compile(r"^(\^[\w$.-]+)(?:\((.*)\))?\s*:$")
_FUNC = re.compile(r"^\s*tt\.func\s+(?:(?:public|private|nested)\s+)?@([\w$.-]+)")


@dataclass(frozen=True)
class _Frame:
    """Where an operation's name, head, region and signature are (see :class:`_Parts`)."""

    name_end: int  # where its name ends
    head_end: int  # where its head (operands, attributes, words) ends
    region: tuple[int, int] | None
    colon: int
    body_end: int
    signature: str | None


@dataclass(frozen=True)
class _Parts:
    """Where the pieces of an operation's text are, and what its head holds."""

    region: tuple[int, int] | None  # the ``({ ... })`` of a generic operation
    colon: int  # the signature's ':' (-1: none)
    body_end: int  # where its trailing location (and the blanks before it) starts
    signature: str | None  # the text after the top-level ':' (None: no signature)
    attributes: Attributes
    attribute_texts: tuple[str, ...]  # the dictionaries as written
    subscripts: tuple[tuple[str, ...], ...]  # ``%a[0, 16]`` -> ("0", "16")
    literals: tuple[str, ...]  # bare words: ``ogt``, ``token``, ``dense<0>``, ``allow_reorder``


@dataclass(frozen=True)
class Block:
    """A block of a region: its label (``^bb0``; "" when printed without one), its arguments
    with their types, and its operations."""

    label: str
    arguments: tuple[tuple[str, Type], ...]
    ops: tuple[Operation, ...]


@dataclass(frozen=True)
class Region:
    """A region of a generic operation (``({ ... })``): its blocks."""

    blocks: tuple[Block, ...]


@dataclass
class Operation:
    """One operation: ``results = name(operands) : types``, with its location.

    ``types``: every tensor and memdesc type its text mentions (aliases expanded), in order;
    ``results``: the declared names (``%x`` for ``%x:2``).  The other parts are read from
    ``text`` when first asked for: :attr:`signature`, :attr:`attributes`,
    :attr:`subscripts`, :attr:`literals`, :attr:`regions`, :attr:`file_location`."""

    name: str
    results: list[str]
    operands: list[str]
    types: list[Type]
    line: int  # 1-based line of the operation's first line
    location: str  # "file:line" of its loc(...), or "" when it has none
    text: str = field(repr=False)
    aliases: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    #: where :func:`read_operation` found its text's trailing ``loc(...)``, kept so that
    #: reading the other parts does not search for it again: ``(span,)``, or None when
    #: unknown (then it is searched for)
    location_span: tuple[tuple[int, int] | None] | None = field(
        default=None, repr=False, compare=False
    )

    @cached_property
    def _frame(self) -> _Frame:
        return _frame_of(self.text, self.line, self.location_span)

    @cached_property
    def _parts(self) -> _Parts:
        return _split_operation(self.text, self.line, frame=self._frame)

    @property
    def result_count(self) -> int:
        """How many values the operation defines (``%a, %b = ...`` or ``%a:2 = ...``)."""
        return len(self.result_values)

    @property
    def result_values(self) -> list[str]:
        """The values it defines: ``%x``, or ``%x#0``, ``%x#1`` for ``%x:2``."""
        equals = self.text.find("=")
        head = self.text if equals < 0 else self.text[:equals]
        if ":" not in head and "#" not in head:
            # the declaration (before the first '=') has no ``:N`` count and no '#': its
            # names are exactly :attr:`results`
            return list(self.results)
        declared = _OP.match(self.text)
        values: list[str] = []
        for name, count in _RESULT.findall((declared.group(1) or "") if declared else ""):
            values += [name] if not count else [f"{name}#{i}" for i in range(int(count))]
        return values

    @cached_property
    def pattern(self) -> str | None:
        """Its text without its trailing location, every SSA name written ``%``: two
        operations of one module with the same pattern differ only in the values they name,
        so every part read from their texts (name, types, signature, attributes, literals,
        subscripts) is the same up to the SSA names in it.  None when the text holds a
        string (``"..."``), inside which a ``%`` starts no name.

        >>> read_operation('%y = tt.splat %x : i32 -> tensor<4xi32> loc("k.py":3:1)').pattern
        '% = tt.splat % : i32 -> tensor<4xi32>'
        >>> read_operation('%y = tt.splat %x {a = "%x"} : i32 -> tensor<4xi32>').pattern is None
        True
        """
        span = (
            trailing_location_span(self.text)
            if self.location_span is None
            else self.location_span[0]
        )
        body = self.text if span is None else self.text[: span[0]]
        return None if '"' in body else SSA_NAME.sub("%", body.rstrip())

    @property
    def names(self) -> set[str]:
        """Every SSA value its text names: results, operands, and the block arguments and
        values of its regions."""
        return set(SSA_NAME.findall(self.text))

    @property
    def attributes(self) -> Attributes:
        """Its attribute dictionaries (``{...}`` and generic ``<{...}>``) merged."""
        return self._parts.attributes

    @property
    def attribute_texts(self) -> tuple[str, ...]:
        """Its attribute dictionaries as written."""
        return self._parts.attribute_texts

    @property
    def subscripts(self) -> tuple[tuple[str, ...], ...]:
        """The bracketed lists after operands: ``%a[0, 16]`` -> ``("0", "16")``."""
        return self._parts.subscripts

    @property
    def static_indices(self) -> tuple[int, ...] | None:
        """The first subscript made of integer constants (``%a[0, 16]`` -> ``(0, 16)``), or
        None."""
        for items in self.subscripts:
            values = [integer_literal(item) for item in items]
            if values and all(v is not None for v in values):
                return tuple(v for v in values if v is not None)
        return None

    @property
    def literals(self) -> tuple[str, ...]:
        """The bare words before its signature: ``ogt`` (arith.cmpf), ``63``
        (arith.constant), ``token``, ``allow_reorder``."""
        return self._parts.literals

    def flag(self, name: str) -> bool:
        """Whether ``name`` is set: a unit or true attribute, or a bare word."""
        return self.attributes.flag(name) or name in self.literals

    @cached_property
    def signature(self) -> tuple[list[Type], list[Type]]:
        """The operand and result types of its trailing ``: A -> B`` (or ``: A``, ``: A to
        B``); a :class:`ModuleError` when it has none or it is malformed."""
        signature = self._frame.signature  # found without reading the head
        if signature is None:
            raise ModuleError("no type signature", self.line)
        last = self.line + self.text.count("\n")
        return parse_signature(signature, self.aliases, last)

    @property
    def pieces(self) -> tuple[str, str, str] | None:
        """Its text cut at its signature: what comes before the ``:`` (blanks stripped), the
        signature, and the trailing location with the blanks before it; None without a
        signature.

        >>> read_operation("%y = tt.splat %x : i32 -> tensor<4xi32> loc(#l)").pieces
        ('%y = tt.splat %x', 'i32 -> tensor<4xi32>', ' loc(#l)')
        """
        parts = self._parts
        if parts.colon < 0 or parts.signature is None:
            return None
        before = self.text[: parts.colon].rstrip()
        return before, parts.signature, self.text[parts.body_end :]

    @property
    def operand_types(self) -> list[Type]:
        """The operand types of its signature (see :attr:`signature`)."""
        return self.signature[0]

    @property
    def result_types(self) -> list[Type]:
        """The result types of its signature (see :attr:`signature`)."""
        return self.signature[1]

    @cached_property
    def regions(self) -> tuple[Region, ...]:
        """The regions of a generic operation (``({ ... })``), none for others."""
        if "({" not in self.text or self._parts.region is None:
            return ()
        start, end = self._parts.region
        return _regions(self.text, start, end, self.line, self.aliases)

    @cached_property
    def file_location(self) -> FileLocation | None:
        """The first ``"file":line:column`` its location reaches (for a call site, the
        callee's), or None."""
        return first_file_location(trailing_location(self.text), self.aliases)

    @property
    def column(self) -> int:
        """The 1-based column of its name on its first line, from the quote of a generic
        name: where MLIR places an operation written without a location.

        >>> read_operation('    %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({').column
        10
        """
        match = _OP.match(self.text)
        start = match.start(2) if match else 0
        if start > 0 and self.text[start - 1] == '"':
            start -= 1
        return start - self.text.rfind("\n", 0, start)


@dataclass
class TTGIRModule:
    """A parsed module: its aliases, operations and module attributes."""

    aliases: dict[str, str]
    ops: list[Operation]
    target: str | None
    num_warps: int | None
    threads_per_warp: int | None
    num_ctas: int | None
    lines: int
    #: the releases that print the text as written (:func:`spelling_releases`), None if unsaid
    spelling: Range | None = None
    #: whether it was written in the spelling of Triton 3.2 or older and read as 3.9's
    normalised: bool = False

    def skipped(self, handled: set[str]) -> dict[str, int]:
        """Operation names not in ``handled``, with counts."""
        counts: dict[str, int] = {}
        for op in self.ops:
            if op.name not in handled:
                counts[op.name] = counts.get(op.name, 0) + 1
        return counts


# --------------------------------------------------------------------------- one operation


def read_operation(
    text: str, line: int = 1, aliases: Mapping[str, str] | None = None
) -> Operation | None:
    """The operation ``text`` holds (one line, or a generic operation with its region), or
    None when it holds none (a brace, a block label); ``line`` is its first line.

    >>> op = read_operation('%r = tt.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf16>'
    ...                     ' -> tensor<8x4xf16> loc("k.py":3:1)')
    >>> op.name, op.attributes.integers("order"), op.result_types[0].shape, op.location
    ('tt.trans', (1, 0), (8, 4), 'k.py:3')

    Triton's AMD dialect, ``amdg`` since 3.6, was spelled ``amdgpu`` before: its operations
    are named in the 3.9 spelling whichever the text uses (the text is kept as written).

    >>> read_operation("%s = amdgpu.extract_slice %x [0, 16] : tensor<64x32xf32> to "
    ...                "tensor<64x16xf32>").name
    'amdg.extract_slice'
    """
    match = _OP.match(text)
    if match is None:
        return None
    known = aliases if aliases is not None else {}
    head = text[match.end() :].split("({", 1)[0]
    span = trailing_location_span(text)
    return Operation(
        name=canonical_op_name(match.group(2)),
        results=SSA_NAME.findall(match.group(1) or ""),
        operands=SSA_NAME.findall(head),
        types=mentioned_types(replace_locations(text, ""), known, line),
        line=line,
        location=user_location("" if span is None else text[span[0] + 4 : span[1] - 1], known),
        text=text,
        aliases=known,
        location_span=(span,),
    )


#: Triton's AMD dialect prefix before 3.6 (``amdgpu.``) and since (``amdg.``).
_AMD_OLD, _AMD_NEW = "amdgpu.", "amdg."


def canonical_op_name(name: str) -> str:
    """``name`` in Triton 3.9's spelling: ``amdgpu.X`` (Triton 3.0-3.5's AMD dialect) is
    ``amdg.X``; any other name is kept.

    >>> canonical_op_name("amdgpu.concat"), canonical_op_name("tt.dot")
    ('amdg.concat', 'tt.dot')
    """
    if name.startswith(_AMD_OLD):
        return _AMD_NEW + name[len(_AMD_OLD) :]
    return name


def _frame_of(
    text: str, line: int, location_span: tuple[tuple[int, int] | None] | None = None
) -> _Frame:
    """Find the name, region and signature of an operation's text (``location_span``: its
    trailing location's offsets as :func:`trailing_location_span` found them, when known)."""
    match = _OP.match(text)
    name_end = match.end() if match else 0
    location = trailing_location_span(text) if location_span is None else location_span[0]
    body_end = location[0] if location else len(text)
    region = None
    opening = text.find("({", name_end, body_end)
    if opening >= 0:
        region = (opening, balanced_end(text, opening, line))
    after = region[1] if region else name_end
    colon = top_level_find(text[:body_end], ":", after)
    signature = None
    if colon >= 0:
        signature = text[colon + 1 : body_end].strip()
        if signature.endswith("{") and top_level_find(signature, "{") == len(signature) - 1:
            signature = signature[:-1].strip()  # the region of ``scf.for ... : i32 {``
    head_end = region[0] if region else (colon if colon >= 0 else body_end)
    body_end = len(text[:body_end].rstrip())
    return _Frame(name_end, head_end, region, colon, body_end, signature)


def _split_operation(
    text: str,
    line: int,
    location_span: tuple[tuple[int, int] | None] | None = None,
    frame: _Frame | None = None,
) -> _Parts:
    """Find the name, region, signature and head of an operation's text (``location_span``
    as for :func:`_frame_of`; ``frame``: what :func:`_frame_of` found, when known)."""
    f = _frame_of(text, line, location_span) if frame is None else frame
    head = _Head(text, f.name_end, f.head_end, line)
    return head.parts(f.region, f.colon, f.body_end, f.signature)


class _Head:
    """The words, subscripts and attribute dictionaries between an operation's name and its
    region or signature."""

    def __init__(self, text: str, start: int, end: int, line: int) -> None:
        self.text = text[:end]
        self.start = start
        self.line = line
        self.dictionaries: list[Attributes] = []
        self.written: list[str] = []  # the dictionaries as written
        self.subscripts: list[tuple[str, ...]] = []
        self.literals: list[str] = []

    def parts(
        self, region: tuple[int, int] | None, colon: int, body_end: int, signature: str | None
    ) -> _Parts:
        """Read the head; the parts of the operation with what it holds."""
        self._read()
        return _Parts(
            region,
            colon,
            body_end,
            signature,
            Attributes.merge(self.dictionaries),
            tuple(self.written),
            tuple(self.subscripts),
            tuple(self.literals),
        )

    def _read(self) -> None:
        text, i = self.text, self.start
        while i < len(text):
            ch = text[i]
            if ch.isspace() or ch == ",":
                i += 1
            elif ch == "%":
                i = self._operand(i)
            elif ch == "{" or text.startswith("<{", i):
                i = self._dictionary(i)
            elif ch == "(":
                i = self._closing(i)  # a generic operation's operand list
            else:
                i = self._word(i)
            if i < 0:
                return  # a region opened at the end of the line: the head ends there

    def _closing(self, start: int) -> int:
        """Past the bracket closing the one at ``start``, or -1 when none closes it."""
        try:
            return balanced_end(self.text, start, self.line)
        except ModuleError:
            return -1

    def _operand(self, start: int) -> int:
        """An operand, with the subscript after it (``%a[0, 16]``)."""
        found = SSA_NAME.match(self.text, start)
        i = found.end() if found else start + 1
        after = i
        while after < len(self.text) and self.text[after] == " ":
            after += 1
        if after < len(self.text) and self.text[after] == "[":
            end = self._closing(after)
            if end > 0:
                self.subscripts.append(tuple(split_top(self.text[after + 1 : end - 1])))
            return end
        return i

    def _dictionary(self, start: int) -> int:
        """An attribute dictionary ``{...}``, or a generic operation's ``<{...}>``."""
        generic = self.text[start] == "<"
        brace = start + 1 if generic else start
        if self._closing(brace) < 0:
            return -1
        attributes, end = parse_attribute_dict(self.text, brace, self.line)
        end = end + 1 if generic else end
        self.dictionaries.append(attributes)
        self.written.append(self.text[start:end])
        return end

    def _word(self, start: int) -> int:
        """A bare word, with the brackets and strings in it (``dense<0>``, ``@k(...)``)."""
        i = start
        while i < len(self.text) and not self.text[i].isspace() and self.text[i] != ",":
            if self.text[i] in '<([{"':
                i = self._closing(i) if self.text[i] != '"' else self._string_end(i)
                if i < 0:
                    return -1
            else:
                i += 1
        self.literals.append(self.text[start:i])
        return i

    def _string_end(self, start: int) -> int:
        i = start + 1
        while i < len(self.text) and self.text[i] != '"':
            i += 2 if self.text[i] == "\\" else 1
        return min(i + 1, len(self.text))


# --------------------------------------------------------------------------- regions


def _regions(
    text: str, start: int, end: int, line: int, aliases: Mapping[str, str]
) -> tuple[Region, ...]:
    """The regions ``{...}, {...}`` inside the ``( ... )`` at ``text[start:end]`` (their
    operations' own regions are read when asked for)."""
    regions = []
    for a, b in split_spans(text, ",", start + 1, end - 1):
        piece = text[a:b].strip()
        if not piece:
            continue
        first = line + text.count("\n", 0, a + text[a:b].index(piece[0]))
        if not (piece.startswith("{") and piece.endswith("}")):
            raise ModuleError(f"expected a region '{{ ... }}', not {piece[:40]!r}.", first)
        regions.append(Region(_blocks(piece[1:-1], first, aliases)))
    return tuple(regions)


def _blocks(body: str, line: int, aliases: Mapping[str, str]) -> tuple[Block, ...]:
    """The blocks of a region's body, whose first line is ``line``."""
    blocks: list[Block] = []
    label = ""
    arguments: tuple[tuple[str, Type], ...] = ()
    ops: list[Operation] = []
    for at, statement in _statements(body.split("\n"), line):
        header = _BLOCK_LABEL.match(replace_locations(statement, "").strip())
        if header is not None:
            if label or ops:
                blocks.append(Block(label, arguments, tuple(ops)))
            label, ops = header.group(1), []
            arguments = _block_arguments(header.group(2) or "", at, aliases)
            continue
        op = read_operation(statement, at, aliases)
        if op is None:
            raise ModuleError(
                f"expected an operation or a block label, not {statement.strip()[:60]!r}.", at
            )
        ops.append(op)
    if label or ops:
        blocks.append(Block(label, arguments, tuple(ops)))
    return tuple(blocks)


def _block_arguments(
    text: str, line: int, aliases: Mapping[str, str]
) -> tuple[tuple[str, Type], ...]:
    """``%a: f32, %b: f32`` -> the names with their types."""
    arguments = []
    for argument in split_top(text):
        name, colon, typ = argument.partition(":")
        if not colon or not name.strip().startswith("%"):
            raise ModuleError(f"malformed block argument {argument[:60]!r}.", line)
        arguments.append((name.strip(), parse_type(typ, aliases, line)))
    return tuple(arguments)


def _statements(lines: Sequence[str], first_line: int) -> Iterator[tuple[int, str]]:
    """Each statement of ``lines`` (an operation, with the lines of its generic region, or a
    block label) with its line number; blanks, comments and closing braces left out."""
    i = 0
    while i < len(lines):
        raw, line = lines[i], first_line + i
        stripped = raw.strip()
        i += 1
        if not stripped or stripped.startswith(("//", "}")):
            continue
        if "({" in raw and _OP.match(raw) and not _REGION_CLOSED.search(raw):
            depth = raw.count("{") - raw.count("}")
            while depth > 0 and i < len(lines):
                raw += "\n" + lines[i]
                depth += lines[i].count("{") - lines[i].count("}")
                i += 1
            if depth > 0:
                name = _OP.match(raw)
                raise ModuleError(
                    f"the region of {name.group(2) if name else stripped[:40]} never closes.", line
                )
        yield line, raw


# --------------------------------------------------------------------------- the module


def read_aliases(lines: Sequence[str]) -> Aliases:
    """The alias definitions (``#name = value``) among ``lines``: MLIR prints attribute
    aliases first and location aliases last."""
    aliases = Aliases()
    for raw in lines:
        alias = _ALIAS_DEF.match(raw.strip())
        if alias:
            aliases[alias.group(1)] = alias.group(2).strip()
    return aliases


def alias_definition(text: str, start: int = 0) -> tuple[str, int] | None:
    """The alias that ``text`` defines at ``start`` (``#blocked = value``) and the offset of
    its value, or None when no definition starts there.

    >>> alias_definition("#blocked = #ttg.blocked<{}>"), alias_definition("#ttg.blocked<{}>")
    (('#blocked', 11), None)
    """
    found = _ALIAS_HEAD.match(text, start)
    return None if found is None else (found.group(1), found.end())


def _module_attributes(
    text: str, start: int, line: int, prefixes: tuple[str, ...]
) -> tuple[ModuleAttributes, tuple[int, int] | None]:
    """The attributes of the ``module`` at ``text[start]`` (on line ``line``; ``text``
    starts at line ``line - text.count("\\n", 0, start)``) and its dictionary's offsets."""
    end_of_line = text.find("\n", start)
    end_of_line = len(text) if end_of_line < 0 else end_of_line
    keyword = text.find("attributes", start, end_of_line)
    brace = text.find("{", keyword, end_of_line) if keyword >= 0 else -1
    if brace < 0:
        return ModuleAttributes(Attributes({}, {}), line, prefixes), None
    attributes, end = parse_attribute_dict(text, brace, line - text.count("\n", 0, start))
    return ModuleAttributes(attributes, line, prefixes), (brace, end)


def parse_module(text: str, *, check: bool = False) -> TTGIRModule:
    """Read a TTGIR module (see the module docstring).  A module spelled for Triton 2.1-3.2
    (``triton_gpu.*``) is read in 3.9's spelling (:func:`~llverify.ttgir.spelling.
    normalise_spelling`, line for line); the module remembers the releases its text was
    spelled for (``spelling``) and that it was rewritten (``normalised``).  With ``check``
    (what ``llverify audit`` and ``validate`` ask; fragments of modules are read without it)
    the module must also be well formed (:func:`~llverify.ttgir.wellformed.
    check_wellformed`: SSA values, their scopes and types, aliases), else a
    :class:`ModuleError` says where it is not.

    >>> parse_module('module {\\n  tt.func @k() {\\n    tt.return %x : i32\\n  }\\n}', check=True)
    Traceback (most recent call last):
    ...
    llverify.ttgir.syntax.ModuleError: line 3, column 15: %x is used but never defined.
    """
    if not isinstance(text, str):
        raise ParseError(f"Argument 'text' must be the module's text (str), not {type(text)}.")
    spelling = spelling_releases(text)
    normalised = old_spelling(text)
    if normalised:
        text = normalise_spelling(text)
    check_whole(text)
    lines = text.splitlines()
    aliases = read_aliases(lines)
    if check:
        check_wellformed(text, aliases)
    attributes = ModuleAttributes(Attributes({}, {}))
    ops: list[Operation] = []
    for line, statement in _statements(lines, 1):
        stripped = statement.strip()
        if stripped.startswith("module"):
            attributes = _module_attributes(stripped, 0, line, ("ttg",))[0]
            continue
        op = read_operation(statement, line, aliases)
        if op is not None:
            ops.append(op)
    return TTGIRModule(
        aliases=aliases,
        ops=ops,
        target=attributes.target,
        num_warps=attributes.num_warps,
        threads_per_warp=attributes.threads_per_warp,
        num_ctas=attributes.num_ctas,
        lines=len(lines),
        spelling=spelling,
        normalised=normalised,
    )


def read_signatures(text: str, *, whole: bool = True) -> list[tuple[str, list[Type]]]:
    """The name and the types (:attr:`Operation.types`) of each operation of the module
    ``text``, in order: what ``[(op.name, op.types) for op in parse_module(text).ops]`` gives,
    and the same :class:`ModuleError` on text it cannot read, without reading the rest of each
    operation (its results, operands, location).  With ``whole`` False the text is not checked
    to be whole (:func:`~llverify.ttgir.whole.check_whole`): for text llverify wrote itself.

    >>> read_signatures('''module {
    ...   %0 = ttg.convert_layout %x : tensor<64xf16, #ttg.blocked<{}>> -> tensor<64xf16>
    ... }''')[0][0]
    'ttg.convert_layout'
    >>> read_signatures("module {")
    Traceback (most recent call last):
    ...
    llverify.ttgir.syntax.ModuleError: line 1, column 8: '{' is never closed: the text ends at line 1 (truncated?).
    """  # noqa: E501
    if not isinstance(text, str):
        raise ParseError(f"Argument 'text' must be the module's text (str), not {type(text)}.")
    if old_spelling(text):
        text = normalise_spelling(text)
    if whole:
        check_whole(text)
    lines = text.splitlines()
    aliases = read_aliases(lines)
    out = []
    for line, statement in _statements(lines, 1):
        stripped = statement.strip()
        if stripped.startswith("module"):  # its attributes checked as parse_module checks them
            _module_attributes(stripped, 0, line, ("ttg",))
            continue
        match = _OP.match(statement)
        if match is not None:
            types = mentioned_types(replace_locations(statement, ""), aliases, line)
            out.append((canonical_op_name(match.group(2)), types))
    return out


@dataclass(frozen=True)
class ModuleHeader:
    """What a module declares before its operations: its attributes (under the ``ttg`` or
    the older ``triton_gpu`` prefix), the offsets of its attribute dictionary in the text
    (None when it has none) and its ``tt.func`` names."""

    attributes: ModuleAttributes
    dictionary: tuple[int, int] | None
    functions: tuple[str, ...]


def read_module_header(text: str) -> ModuleHeader:
    """The header of the first ``module`` in ``text`` without reading its operations (any
    Triton release's TTGIR; the text need not be whole).

    >>> header = read_module_header('module attributes {"triton_gpu.num-warps" = 8 : i32} {\\n'
    ...                             '  tt.func public @k() {\\n')
    >>> header.attributes.num_warps, header.dictionary, header.functions
    (8, (18, 52), ('k',))
    """
    attributes, dictionary, functions = None, None, []
    offset, line = 0, 0
    for raw in text.splitlines(keepends=True):
        line += 1
        stripped = raw.lstrip()
        if attributes is None and stripped.startswith("module"):
            start = offset + len(raw) - len(stripped)
            attributes, dictionary = _module_attributes(text, start, line, ("ttg", "triton_gpu"))
        found = _FUNC.match(raw)
        if found:
            functions.append(found.group(1))
        offset += len(raw)
    if attributes is None:
        attributes = ModuleAttributes(Attributes({}, {}), 1, ("ttg", "triton_gpu"))
    return ModuleHeader(attributes, dictionary, tuple(functions))


def rewrite_operation(
    op: Operation,
    *,
    results: str,
    rename: Callable[[str], str],
    location: str,
    drop: str = "",
) -> str:
    """``op``'s text with its result declaration replaced by ``results`` (``"%h = "``, or
    ""), every operand outside its region renamed by ``rename``, the word ``drop`` and the
    operand after it removed (``token %t``), and every ``loc(...)`` replaced by ``location``
    (added at the end when its last line has none).

    >>> op = read_operation("%y = ttg.local_load %m token %t : T -> U loc(#loc3)")
    >>> rewrite_operation(op, results="%h = ", rename=lambda n: n + "_h", location="loc(#l)",
    ...                   drop="token")
    '%h = ttg.local_load %m_h : T -> U loc(#l)'
    """
    text = replace_locations(op.text.strip(), location)
    if drop:
        text = re.sub(rf"\s+{re.escape(drop)}\s+%[\w#.$-]+", "", text, count=1)
    declared = _RESULTS.match(text)
    body = text[declared.end() :] if declared else text
    head, brace, region = body.partition("({")
    body = SSA_NAME.sub(lambda m: rename(m.group(0)), head) + brace + region
    if not re.search(r"loc\([^()]*\)\s*$", body.splitlines()[-1]):
        body += " " + location
    return results + body
