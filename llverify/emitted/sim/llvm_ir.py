"""Read the LLVM IR text Triton emits (the subset its kernels use) into typed instructions.

What is read: global variables (``@global_smem``), function definitions with their arguments,
basic blocks and instructions, each with its result name, opcode, type, operands (values
with their types), and its debug location (``!dbg !12`` resolved through ``!DILocation`` to
a line and column).  Declarations, attributes and other metadata are skipped.  An instruction of
an opcode the reader has no syntax for (``alloca``, ``cmpxchg``) is read whole, with no
operands and its text in ``extra["text"]``, for the executor to refuse as unmodelled; anything
else the reader cannot parse is an :class:`LLVMParseError` naming the line, never a partial
function.

Examples:
    >>> text = '''define void @k(ptr addrspace(1) %0) {
    ...   %2 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !5
    ...   %3 = and i32 %2, 31
    ...   ret void
    ... }
    ... !5 = !DILocation(line: 4, column: 11, scope: !4)'''
    >>> module = parse_llvm_ir(text)
    >>> kernel = module.functions["k"]
    >>> [(i.result, i.opcode) for i in kernel.blocks[0].instructions]
    [('%2', 'call'), ('%3', 'and'), (None, 'ret')]
    >>> kernel.blocks[0].instructions[0].line
    4
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from llverify.emitted.sim.errors import SimError

__all__ = [
    "Block",
    "Function",
    "Instruction",
    "LLVMModule",
    "LLVMParseError",
    "Type",
    "Value",
    "parse_llvm_ir",
    "parse_type",
    "split_top_level",
]


class LLVMParseError(SimError, ValueError):
    """LLVM IR text the reader cannot parse, at ``line`` (1-based)."""

    def __init__(self, detail: str, line: int) -> None:
        super().__init__(f"LLVM IR line {line}: {detail}")
        self.line = line


@dataclass(frozen=True)
class Type:
    """An LLVM type: ``kind`` is int, float, ptr, vector, array, struct, void, label or metadata.

    ``bits`` is the width of ints and floats (half 16, bfloat 16 with ``name`` 'bfloat'),
    ``count``/``element`` describe vectors and arrays, ``fields`` structs, ``space`` pointers.
    """

    kind: str
    bits: int = 0
    name: str = ""
    count: int = 0
    element: Type | None = None
    fields: tuple[Type, ...] = ()
    space: int = 0

    @property
    def size_bytes(self) -> int:
        """Storage size in bytes (packed, as Triton's vectors and arrays are)."""
        if self.kind in ("int", "float"):
            return (self.bits + 7) // 8
        if self.kind == "ptr":
            return 8 if self.space in (0, 1) else 4
        if self.kind in ("vector", "array"):
            assert self.element is not None
            if self.kind == "vector" and self.element.kind == "int" and self.element.bits < 8:
                return (self.count * self.element.bits + 7) // 8
            return self.count * self.element.size_bytes
        if self.kind == "struct":
            return sum(f.size_bytes for f in self.fields)
        return 0

    def __str__(self) -> str:
        if self.kind == "int":
            return f"i{self.bits}"
        if self.kind == "float" or self.kind in ("void", "label", "metadata"):
            return self.name or self.kind
        if self.kind == "ptr":
            return "ptr" if self.space == 0 else f"ptr addrspace({self.space})"
        if self.kind == "vector":
            return f"<{self.count} x {self.element}>"
        if self.kind == "array":
            return f"[{self.count} x {self.element}]"
        return "{ " + ", ".join(str(f) for f in self.fields) + " }"


@dataclass(frozen=True)
class Value:
    """An operand: a local (``%x``), a global (``@g``), or a constant (``text`` as written;
    ``elements`` for vector/struct/array constants)."""

    type: Type
    text: str
    elements: tuple[Value, ...] = ()

    @property
    def is_local(self) -> bool:
        return self.text.startswith("%")


@dataclass
class Instruction:
    """One instruction.  ``operands`` are typed values; ``extra`` holds the opcode-specific
    words (icmp predicate, atomic operation, call target and inline-asm strings, indices of
    extractvalue, phi incoming blocks, branch targets)."""

    result: str | None
    opcode: str
    type: Type
    operands: list[Value]
    extra: dict[str, object] = field(default_factory=dict)
    line: int | None = None  # the source line of its !dbg location
    column: int | None = None
    text_line: int = 0  # line in the LLVM IR text

    @property
    def where(self) -> str:
        """The instruction in messages: its opcode, LLVM IR line and source line."""
        line = f"source line {self.line}" if self.line is not None else "no source line"
        return f"{self.opcode} at LLVM IR line {self.text_line} ({line})"


@dataclass
class Block:
    label: str
    instructions: list[Instruction]


@dataclass
class Function:
    name: str
    arguments: list[tuple[Type, str]]
    blocks: list[Block]
    attributes: str = ""
    body: str = ""  # the text of the lines between the header and the closing brace

    def block(self, label: str) -> Block:
        for block in self.blocks:
            if block.label == label:
                return block
        raise KeyError(label)

    def reads(self, name: str) -> bool:
        """Whether the function's body mentions the local ``name`` (an instruction that reads
        it must; a comment that names it counts too).

        >>> kernel = parse_llvm_ir('''define void @k(ptr %0, ptr %1) {
        ...   %3 = load i32, ptr %0
        ...   %4 = load i32, ptr %3
        ...   ret void
        ... }''').functions["k"]
        >>> kernel.reads("%0"), kernel.reads("%1"), kernel.reads("%3")
        (True, False, True)
        """
        return re.search(re.escape(name) + r"(?![-\w.$])", self.body) is not None


@dataclass
class LLVMModule:
    """A module: its function definitions, the type of each global (``@name``), the source
    files of its debug information; ``target_cpu`` the ``"target-cpu"`` attribute (``sm_90a``,
    ``gfx942``; empty when not given); ``spaces`` the address space of each global, ``strings``
    the bytes of each constant global initialised by a ``c"..."`` string, ``tables`` those of
    each constant global initialised by an array of integers (little-endian), ``flags`` the
    integer module flags (``!llvm.module.flags``: ``nvvm-reflect-ftz`` -> 1)."""

    functions: dict[str, Function]
    globals: dict[str, Type]
    source_files: tuple[str, ...]
    spaces: dict[str, int] = field(default_factory=dict)
    strings: dict[str, bytes] = field(default_factory=dict)
    flags: dict[str, int] = field(default_factory=dict)
    target_cpu: str = ""
    tables: dict[str, bytes] = field(default_factory=dict)


_TOKEN = re.compile(
    r'\s*(?:(?P<str>c?"(?:[^"\\]|\\.)*")|(?P<fpspecial>[-+](?:[qs]?nan(?:\(0x[\da-fA-F]+\))?|inf)(?![\w.]))|(?P<word>[%@!#]?(?:[-\w.$]*[eE][-+]\d+|[-\w.$]+)(?:\.\.\.)?)|(?P<punct>[<>()\[\]{},=*:|]|\.\.\.))'
)
_FLOAT_TYPES = {"half": 16, "bfloat": 16, "float": 32, "double": 64, "fp128": 128}
_WRAP_FLAGS = {
    "nuw", "nsw", "exact", "disjoint", "nneg", "inbounds", "fast", "nnan", "ninf", "nsz",
    "arcp", "contract", "afn", "reassoc", "tail", "musttail", "notail", "volatile", "samesign",
}  # fmt: skip
_DILOC = re.compile(
    r"^(![\w.]+)\s*=\s*(?:distinct\s+)?!DILocation\(line:\s*(\d+)(?:,\s*column:\s*(\d+))?"
)
_DIFILE = re.compile(r'!DIFile\(filename:\s*"([^"]*)"')


# The same tokens in one capture group, for a single ``findall`` pass over a line.
_TOKEN_TEXT = re.compile(
    r'\s*(c?"(?:[^"\\]|\\.)*"|[-+](?:[qs]?nan(?:\(0x[\da-fA-F]+\))?|inf)(?![\w.])|[%@!#]?(?:[-\w.$]*[eE][-+]\d+|[-\w.$]+)(?:\.\.\.)?|[<>()\[\]{},=*:|]|\.\.\.)'
)


class _Tokens:
    """The tokens of one line; ``items`` ends in two empty strings (the end of the line), so
    that :meth:`peek` needs no bounds check."""

    def __init__(self, text: str, line: int) -> None:
        self.line = line
        stripped = text.rstrip()
        items = _TOKEN_TEXT.findall(stripped)
        # findall skips what no token matches: then the tokens hold fewer non-blank characters
        # than the line, and the token-by-token reading names the place it cannot read.
        if len("".join(stripped.split())) != len("".join("".join(items).split())):
            items = []
            pos = 0
            while pos < len(stripped):
                match = _TOKEN.match(stripped, pos)
                if match is None or match.end() == pos:
                    raise LLVMParseError(f"cannot read {stripped[pos : pos + 20]!r}", line)
                items.append(match.group(match.lastgroup or "word"))
                pos = match.end()
        items += ("", "")
        self.items = items
        self.pos = 0

    def peek(self, ahead: int = 0) -> str:
        return self.items[self.pos + ahead]

    def take(self, expected: str | None = None) -> str:
        token = self.items[self.pos]
        if token == "" or (expected is not None and token != expected):
            want = f"{expected!r}" if expected else "more text"
            raise LLVMParseError(
                f"expected {want}, found {token or 'the end of the line'!r}", self.line
            )
        self.pos += 1
        return token

    def accept(self, token: str) -> bool:
        if self.peek() == token:
            self.pos += 1
            return True
        return False

    def skip_flags(self) -> list[str]:
        flags = []
        while self.peek() in _WRAP_FLAGS:
            flags.append(self.take())
        return flags


_INT_TYPE = re.compile(r"i\d+")
# The types named by one word, made once: ints are added as they are first read.
_SCALAR_TYPES: dict[str, Type] = {
    **{word: Type("float", bits=bits, name=word) for word, bits in _FLOAT_TYPES.items()},
    **{word: Type(word, name=word) for word in ("void", "label", "metadata")},
    "ptr": Type("ptr"),
}


def parse_type(tokens: _Tokens) -> Type:
    """Read one type from ``tokens``."""
    word = tokens.take()
    base = _SCALAR_TYPES.get(word)
    if base is not None:
        if word == "ptr" and tokens.accept("addrspace"):
            tokens.take("(")
            space = int(tokens.take())
            tokens.take(")")
            return Type("ptr", space=space)
        return base
    if word == "<":
        count = int(tokens.take())
        tokens.take("x")
        element = parse_type(tokens)
        tokens.take(">")
        base = Type("vector", count=count, element=element)
    elif word == "[":
        count = int(tokens.take())
        tokens.take("x")
        element = parse_type(tokens)
        tokens.take("]")
        base = Type("array", count=count, element=element)
    elif word == "{":
        fields: list[Type] = []
        if not tokens.accept("}"):
            fields.append(parse_type(tokens))
            while tokens.accept(","):
                fields.append(parse_type(tokens))
            tokens.take("}")
        base = Type("struct", fields=tuple(fields))
    elif _INT_TYPE.fullmatch(word):
        base = _SCALAR_TYPES[word] = Type("int", bits=int(word[1:]))
    else:
        raise LLVMParseError(f"unknown type {word!r}", tokens.line)
    return base


# The words that open a constant of more than one token (read below); any other word is the
# whole constant.
_COMPOUND = frozenset(
    ("<", "[", "{", "splat", "getelementptr", "bitcast", "addrspacecast", "ptrtoint", "inttoptr")
)


def _parse_constant(tokens: _Tokens, ty: Type) -> Value:
    word = tokens.peek()
    if word not in _COMPOUND:
        return Value(ty, tokens.take())
    if word in ("<", "[", "{"):
        closing = {"<": ">", "[": "]", "{": "}"}[tokens.take()]
        elements: list[Value] = []
        if not tokens.accept(closing):
            elements.append(_parse_typed(tokens))
            while tokens.accept(","):
                elements.append(_parse_typed(tokens))
            tokens.take(closing)
        return Value(ty, "const", tuple(elements))
    if word == "splat":
        tokens.take()
        tokens.take("(")
        inner = _parse_typed(tokens)
        tokens.take(")")
        assert ty.kind == "vector"
        return Value(ty, "const", (inner,) * ty.count)
    if word == "getelementptr":
        tokens.take()
        tokens.skip_flags()
        tokens.take("(")
        source = parse_type(tokens)
        parts = [Value(source, "type")]
        while tokens.accept(","):
            tokens.skip_flags()
            parts.append(_parse_typed(tokens))
        tokens.take(")")
        return Value(ty, "gep", tuple(parts))
    if word in ("bitcast", "addrspacecast", "ptrtoint", "inttoptr"):
        tokens.take()
        tokens.take("(")
        inner = _parse_typed(tokens)
        tokens.take("to")
        parse_type(tokens)
        tokens.take(")")
        return Value(ty, word, (inner,))
    return Value(ty, tokens.take())


_PARAMETER_ATTRIBUTES = frozenset(
    ("noundef", "nonnull", "signext", "zeroext", "inreg", "align", "immarg")
)


def _parse_typed(tokens: _Tokens) -> Value:
    ty = parse_type(tokens)
    while tokens.peek() in _PARAMETER_ATTRIBUTES:
        if tokens.take() == "align":
            tokens.take()
    return _parse_constant(tokens, ty)


def _parse_value_of(tokens: _Tokens, ty: Type) -> Value:
    return _parse_constant(tokens, ty)


def _debug_ref(tokens: _Tokens) -> str | None:
    """Consume the trailing ``, !name !N`` metadata attachments; return the !dbg one."""
    dbg = None
    while tokens.peek() == "," and tokens.peek(1).startswith("!"):
        tokens.take()
        name = tokens.take()
        ref = tokens.take()
        if name == "!dbg":
            dbg = ref
    return dbg


_BINARY = {
    "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or",
    "xor", "fadd", "fsub", "fmul", "fdiv", "frem",
}  # fmt: skip
_CASTS = {
    "zext", "sext", "trunc", "bitcast", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp",
    "sitofp", "ptrtoint", "inttoptr", "addrspacecast",
}  # fmt: skip


def _instruction(tokens: _Tokens) -> Instruction:
    """One instruction: its result name, opcode and flags, then the opcode's own syntax
    (:data:`_SYNTAX`) and the trailing metadata."""
    result = None
    if tokens.peek().startswith("%") and tokens.peek(1) == "=":
        result = tokens.take()
        tokens.take("=")
    tokens.skip_flags()
    opcode = tokens.take()
    extra: dict[str, object] = {"flags": tuple(tokens.skip_flags())}
    syntax = _SYNTAX.get(opcode)
    if syntax is None:
        if not _OPCODE.fullmatch(opcode):
            raise LLVMParseError(f"expected an instruction, found {opcode!r}", tokens.line)
        syntax = _unmodelled
    ty, operands = syntax(tokens, opcode, extra)
    extra["dbg"] = _debug_ref(tokens)
    return Instruction(result, opcode, ty, operands, extra)


# Each opcode's syntax after the opcode: (tokens, opcode, extra) -> (result type, operands);
# the opcode-specific words go to ``extra``.
_Syntax = Callable[[_Tokens, str, dict[str, object]], tuple[Type, list[Value]]]
_VOID = Type("void", name="void")


def _binary(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    ty = parse_type(tokens)
    a = _parse_value_of(tokens, ty)
    tokens.take(",")
    return ty, [a, _parse_value_of(tokens, ty)]


def _compare(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    extra["predicate"] = tokens.take()
    ty, operands = _binary(tokens, opcode, extra)
    if ty.kind == "vector":
        return Type("vector", count=ty.count, element=Type("int", bits=1)), operands
    return Type("int", bits=1), operands


def _cast(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    src = _parse_typed(tokens)
    tokens.take("to")
    return parse_type(tokens), [src]


def _unary(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    """``fneg`` and ``freeze``: one operand, of the result's type."""
    src = _parse_typed(tokens)
    return src.type, [src]


def _select(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    operands = [_parse_typed(tokens)]
    for _ in range(2):
        tokens.take(",")
        operands.append(_parse_typed(tokens))
    return operands[1].type, operands


def _typed_list(tokens: _Tokens, operands: list[Value]) -> list[Value]:
    """``operands`` and the further ``, <type> <value>`` operands before any metadata."""
    while tokens.peek() == "," and not tokens.peek(1).startswith("!"):
        tokens.take(",")
        tokens.skip_flags()
        operands.append(_parse_typed(tokens))
    return operands


def _gep(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    extra["source"] = parse_type(tokens)
    tokens.take(",")
    operands = _typed_list(tokens, [_parse_typed(tokens)])
    return operands[0].type, operands


def _load(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    ty = parse_type(tokens)
    tokens.take(",")
    operands = [_parse_typed(tokens)]
    extra["align"] = _alignment(tokens)
    return ty, operands


def _store(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    operands = [_parse_typed(tokens)]
    tokens.take(",")
    operands.append(_parse_typed(tokens))
    extra["align"] = _alignment(tokens)
    return _VOID, operands


def _atomicrmw(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    extra["operation"] = tokens.take()
    operands = [_parse_typed(tokens)]
    tokens.take(",")
    operands.append(_parse_typed(tokens))
    while tokens.peek() not in ("", ","):
        tokens.take()
    _alignment(tokens)
    return operands[1].type, operands


_OPCODE = re.compile(r"[a-z][a-z0-9_]*")


def _unmodelled(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    """An opcode with no syntax here (``alloca``, ``cmpxchg``): its words up to the metadata,
    kept as ``extra["text"]``; no operands (the executor has no handler for it)."""
    words = []
    while tokens.peek() and not (tokens.peek() == "," and tokens.peek(1).startswith("!")):
        words.append(tokens.take())
    extra["text"] = " ".join(words)
    return _VOID, []


def _alloca(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    """``alloca [inalloca] <type>[, <ty> <count>][, align N][, addrspace(N)]``: the result is a
    pointer (of address space N); ``extra``: the allocated type, its count (-1: not a
    constant), alignment."""
    tokens.accept("inalloca")
    extra["allocated"] = parse_type(tokens)
    count, align, space = 1, 1, 0
    while tokens.peek() == "," and not tokens.peek(1).startswith("!"):
        tokens.take(",")
        if tokens.accept("align"):
            align = int(tokens.take())
        elif tokens.accept("addrspace"):
            tokens.take("(")
            space = int(tokens.take())
            tokens.take(")")
        else:
            counted = _parse_typed(tokens)
            count = int(counted.text) if re.fullmatch(r"\d+", counted.text) else -1
    extra["count"] = count
    extra["align"] = align
    return Type("ptr", space=space), []


def _vector_op(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    """``extractelement``, ``insertelement`` and ``shufflevector``."""
    operands = [_parse_typed(tokens)]
    while tokens.peek() == "," and not tokens.peek(1).startswith("!"):
        tokens.take(",")
        operands.append(_parse_typed(tokens))
    vec = operands[0].type
    assert vec.element is not None
    if opcode == "extractelement":
        return vec.element, operands
    if opcode == "insertelement":
        return vec, operands
    return Type("vector", count=operands[2].type.count, element=vec.element), operands


def _aggregate(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    """``extractvalue`` and ``insertvalue``, with their constant indices."""
    operands = [_parse_typed(tokens)]
    if opcode == "insertvalue":
        tokens.take(",")
        operands.append(_parse_typed(tokens))
    indices: list[int] = []
    while tokens.peek() == "," and not tokens.peek(1).startswith("!"):
        tokens.take(",")
        indices.append(int(tokens.take()))
    extra["indices"] = tuple(indices)
    ty = operands[0].type
    if opcode == "extractvalue":
        for index in indices:
            ty = ty.fields[index] if ty.kind == "struct" else ty.element  # type: ignore[assignment]
    return ty, operands


def _phi(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    ty = parse_type(tokens)
    incoming: list[str] = []
    operands = []
    while True:
        tokens.take("[")
        operands.append(_parse_value_of(tokens, ty))
        tokens.take(",")
        incoming.append(tokens.take())
        tokens.take("]")
        if not (tokens.peek() == "," and tokens.peek(1) == "["):
            break
        tokens.take(",")
    extra["blocks"] = tuple(incoming)
    return ty, operands


def _branch(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    if tokens.peek() == "label":
        tokens.take()
        extra["targets"] = (tokens.take(),)
        return _VOID, []
    operands = [_parse_typed(tokens)]
    targets = []
    for _ in range(2):
        tokens.take(",")
        tokens.take("label")
        targets.append(tokens.take())
    extra["targets"] = tuple(targets)
    return _VOID, operands


def _switch(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    """``switch <ty> <value>, label %default [ <ty> <const>, label %dest ... ]``: targets are
    the default then each case's destination; ``extra["cases"]`` the case values."""
    operands = [_parse_typed(tokens)]
    tokens.take(",")
    tokens.take("label")
    targets = [tokens.take()]
    cases: list[int] = []
    tokens.take("[")
    while not tokens.accept("]"):
        ty = parse_type(tokens)
        value = tokens.take()
        if ty.kind != "int" or not re.fullmatch(r"-?\d+", value):
            raise LLVMParseError(f"a switch case {ty} {value} (expected an integer)", tokens.line)
        cases.append(int(value) & ((1 << ty.bits) - 1))
        tokens.take(",")
        tokens.take("label")
        targets.append(tokens.take())
    extra["targets"] = tuple(targets)
    extra["cases"] = tuple(cases)
    return _VOID, operands


def _return(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    return _VOID, [] if tokens.accept("void") else [_parse_typed(tokens)]


def _words(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    """``unreachable`` and ``fence``: words up to the metadata, no operands."""
    while tokens.peek() not in ("", ","):
        tokens.take()
    return _VOID, []


def _alignment(tokens: _Tokens) -> int:
    align = 1
    if tokens.peek() == "," and tokens.peek(1) == "align":
        tokens.take(",")
        tokens.take("align")
        align = int(tokens.take())
    return align


def _call(tokens: _Tokens, opcode: str, extra: dict[str, object]) -> tuple[Type, list[Value]]:
    """A call of a function or of inline assembly (``extra``: callee, asm, constraints)."""
    while tokens.peek() in ("noundef", "nonnull", "zeroext", "signext", "fastcc", "ccc", "range"):
        if tokens.take() == "range":  # range(i32 0, 1024): a return-value attribute
            _skip_group(tokens)
    ty = parse_type(tokens)
    if tokens.peek() == "(":  # a varargs signature: skip it
        depth = 0
        while True:
            token = tokens.take()
            depth += token == "("
            depth -= token == ")"
            if depth == 0:
                break
    if tokens.accept("asm"):
        flags = []
        while tokens.peek() in ("sideeffect", "alignstack", "inteldialect", "convergent"):
            flags.append(tokens.take())
        extra["asm_flags"] = tuple(flags)
        extra["asm"] = _unescape(tokens.take())
        tokens.take(",")
        extra["constraints"] = _unescape(tokens.take())
        extra["callee"] = "asm"
    else:
        extra["callee"] = tokens.take()
    tokens.take("(")
    operands: list[Value] = []
    if not tokens.accept(")"):
        operands.append(_parse_typed(tokens))
        while tokens.accept(","):
            operands.append(_parse_typed(tokens))
        tokens.take(")")
    while tokens.peek().startswith("#"):
        tokens.take()
    return ty, operands


def _skip_group(tokens: _Tokens) -> None:
    """Skip one parenthesised group, e.g. the ``(i32 0, 1024)`` of ``range(...)``."""
    depth = 0
    while True:
        token = tokens.take()
        depth += token == "("
        depth -= token == ")"
        if depth == 0:
            return


def _unescape(quoted: str) -> str:
    body = quoted[1:-1] if not quoted.startswith("c") else quoted[2:-1]
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), body).replace(
        "\\\\", "\\"
    )


_SYNTAX: dict[str, _Syntax] = {
    **{opcode: _binary for opcode in _BINARY},
    **{opcode: _cast for opcode in _CASTS},
    "icmp": _compare,
    "fcmp": _compare,
    "fneg": _unary,
    "freeze": _unary,
    "select": _select,
    "getelementptr": _gep,
    "load": _load,
    "store": _store,
    "atomicrmw": _atomicrmw,
    "extractelement": _vector_op,
    "insertelement": _vector_op,
    "shufflevector": _vector_op,
    "extractvalue": _aggregate,
    "insertvalue": _aggregate,
    "phi": _phi,
    "call": _call,
    "alloca": _alloca,
    "br": _branch,
    "switch": _switch,
    "ret": _return,
    "unreachable": _words,
    "fence": _words,
}


_DEFINE = re.compile(
    r"^define\b(?P<head>.*?)@(?P<name>[-\w.$]+)\((?P<args>.*)\)(?P<tail>[^)]*)\{\s*$"
)
_LABEL = re.compile(r"^([-\w.$]+):")
_GLOBAL = re.compile(r"^@([-\w.$]+)\s*=\s*(.*)$")


def parse_llvm_ir(text: str) -> LLVMModule:
    """Read ``text`` (a whole module as Triton dumps it) into an :class:`LLVMModule`."""
    if not isinstance(text, str):
        raise TypeError(f"text: expected the LLVM IR as a str, got {type(text).__name__}")
    lines = text.split("\n")
    locations: dict[str, tuple[int, int | None]] = {}
    files = []
    for line in lines:
        match = _DILOC.match(line) if line[:1] == "!" else None
        if match:
            locations[match.group(1)] = (
                int(match.group(2)),
                int(match.group(3)) if match.group(3) else None,
            )
        file_match = _DIFILE.search(line) if "!DIFile(" in line else None
        if file_match:
            files.append(file_match.group(1))
    functions: dict[str, Function] = {}
    globals_: dict[str, Type] = {}
    spaces: dict[str, int] = {}
    strings: dict[str, bytes] = {}
    tables: dict[str, bytes] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        glob = _GLOBAL.match(stripped)
        if glob:
            name = "@" + glob.group(1)
            globals_[name] = _global_type(glob.group(2), index + 1)
            space = _ADDRSPACE.search(glob.group(2).split("global", 1)[0].split("constant", 1)[0])
            spaces[name] = int(space.group(1)) if space else 0
            initial = _STRING_INIT.search(glob.group(2))
            if initial and re.search(r"\bconstant\b", glob.group(2)):
                strings[name] = _string_bytes(initial.group(1))
            table = _TABLE_INIT.search(glob.group(2))
            if table and re.search(r"\bconstant\b", glob.group(2)):
                tables[name] = _table_bytes(table)
        if stripped.startswith("define"):
            function, index = _function(lines, index, locations)
            functions[function.name] = function
            continue
        index += 1
    if not functions:
        raise LLVMParseError("no function definition (is this LLVM IR?)", 1)
    cpu = re.search(r'"target-cpu"="([\w.]+)"', text)
    return LLVMModule(
        functions,
        globals_,
        tuple(files),
        spaces,
        strings,
        _module_flags(lines),
        cpu.group(1) if cpu else "",
        tables,
    )


_ADDRSPACE = re.compile(r"\baddrspace\((\d+)\)")
_STRING_INIT = re.compile(r'\bc"((?:[^"\\]|\\.)*)"')
_TABLE_INIT = re.compile(r"\[(\d+) x i(8|16|32|64)\]\s*\[((?:\s*i\d+\s+-?\d+\s*,?)*)\]")
_METADATA_NODE = re.compile(r"^(![\w.]+)\s*=\s*(?:distinct\s+)?!\{(.*)\}\s*$")
_FLAG = re.compile(r'^i32\s+\d+\s*,\s*!"([^"]*)"\s*,\s*i\d+\s+(-?\d+)$')


def _table_bytes(table: re.Match[str]) -> bytes:
    """The little-endian bytes of an ``[N x iK] [iK v, ...]`` initialiser.

    >>> _table_bytes(_TABLE_INIT.search("constant [2 x i16] [i16 1, i16 -2], align 2")).hex()
    '0100feff'
    """
    count, bits = int(table.group(1)), int(table.group(2))
    values = [int(v) for v in re.findall(r"i\d+\s+(-?\d+)", table.group(3))]
    if len(values) != count:
        return b""
    size = bits // 8
    return b"".join((v & ((1 << bits) - 1)).to_bytes(size, "little") for v in values)


def _string_bytes(body: str) -> bytes:
    """The bytes of a ``c"..."`` initialiser's body (``\\HH`` escapes, ``\\\\``)."""
    out = bytearray()
    k = 0
    while k < len(body):
        if body[k] == "\\" and body[k + 1 : k + 2] == "\\":
            out.append(0x5C)
            k += 2
        elif body[k] == "\\" and re.fullmatch(r"[0-9A-Fa-f]{2}", body[k + 1 : k + 3]):
            out.append(int(body[k + 1 : k + 3], 16))
            k += 3
        else:
            out.extend(body[k].encode())
            k += 1
    return bytes(out)


def _module_flags(lines: list[str]) -> dict[str, int]:
    """The integer module flags: ``!llvm.module.flags = !{!2, !3}`` with ``!3 = !{i32 4,
    !"nvvm-reflect-ftz", i32 1}`` gives ``{"nvvm-reflect-ftz": 1}``."""
    nodes: dict[str, str] = {}
    listed: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped[:1] != "!":
            continue
        if stripped.startswith("!llvm.module.flags"):
            listed = re.findall(r"![\w.]+", stripped.split("=", 1)[1])
            continue
        node = _METADATA_NODE.match(stripped)
        if node:
            nodes[node.group(1)] = node.group(2).strip()
    flags: dict[str, int] = {}
    for ref in listed:
        flag = _FLAG.match(nodes.get(ref, ""))
        if flag:
            flags[flag.group(1)] = int(flag.group(2))
    return flags


def _global_type(rest: str, line: int) -> Type:
    words = rest.split()
    for i, word in enumerate(words):
        if word == "global" or word == "constant":
            tokens = _Tokens(" ".join(words[i + 1 :]), line)
            return parse_type(tokens)
    raise LLVMParseError("cannot read the global's type", line)


def _function(
    lines: list[str], start: int, locations: dict[str, tuple[int, int | None]]
) -> tuple[Function, int]:
    header = lines[start].strip()
    match = _DEFINE.match(header)
    if match is None:
        raise LLVMParseError("cannot read the function header", start + 1)
    arguments = []
    args_text = match.group("args").strip()
    if args_text:
        for part in split_top_level(args_text):
            tokens = _Tokens(part, start + 1)
            ty = parse_type(tokens)
            name = [t for t in tokens.items[tokens.pos :] if t.startswith("%")]
            arguments.append((ty, name[-1] if name else ""))
    blocks: list[Block] = []
    current = Block("entry", [])
    next_number = len(arguments)
    index = start + 1
    while index < len(lines):
        raw = lines[index]
        if ";" not in raw:
            stripped = raw.strip()
        elif '"' not in raw:
            stripped = raw.split(";", 1)[0].strip()
        else:
            stripped = _strip_comment(raw).strip()
        index += 1
        if not stripped:
            continue
        if stripped == "}":
            if current.instructions:
                blocks.append(current)
            body = "\n".join(lines[start + 1 : index - 1])
            function_name, tail = match.group("name"), match.group("tail")
            return Function(function_name, arguments, blocks, tail, body), index
        label = _LABEL.match(stripped) if stripped[0] != "%" else None
        if label:
            if current.instructions:
                blocks.append(current)
            current = Block("%" + label.group(1), [])
            continue
        if not blocks and not current.instructions and current.label == "entry":
            current = Block(f"%{next_number}", [])
        first = index
        if stripped.startswith("switch") and stripped.endswith("["):
            # the case list of a switch spans lines up to its closing ']'
            while index < len(lines) and not lines[index].strip().startswith("]"):
                stripped += " " + lines[index].split(";", 1)[0].strip()
                index += 1
            if index == len(lines):
                raise LLVMParseError("a switch whose case list is never closed", first)
            stripped += " " + lines[index].split(";", 1)[0].strip()
            index += 1
        instruction, dbg = _read_instruction(stripped, first)
        instruction.text_line = first
        if dbg is not None and dbg in locations:
            instruction.line, instruction.column = locations[dbg]
        current.instructions.append(instruction)
    raise LLVMParseError("the function is never closed (truncated text?)", start + 1)


def _read_line(text: str, line: int) -> Instruction:
    """The instruction of the line ``text`` (number ``line``), read token by token; its !dbg
    reference is ``extra["dbg"]``."""
    tokens = _Tokens(text, line)
    instruction = _instruction(tokens)
    if tokens.peek():
        raise LLVMParseError(f"unexpected {tokens.peek()!r} after the instruction", line)
    return instruction


# The names of a line: locals and labels (``%x``), metadata references (``!12``).  Two lines
# with the same shape (the line with each name replaced by a marker) and no name of the risky
# kind read alike, name for name: see :func:`_read_instruction`.
_NAME = re.compile(r"%[-\w.$]+|![0-9]+(?![-\w.$])")
_LOCAL = re.compile(r"%[-\w.$]+")  # the names of _NAME, in two kinds
_METADATA = re.compile(r"![0-9]+(?![-\w.$])")
# a local name that the tokenizer may cut short as an exponent (``%a.e-5``, ``%be+1``)
_RISKY = re.compile(r"%[-\w.$]*[eE][-+]\d")


def _read_instruction(text: str, line: int) -> tuple[Instruction, str | None]:
    """The instruction of the line ``text`` and its !dbg reference, through the template of
    the line's shape (:class:`_Template`) when it has one.

    Why a template reads as the tokens do: the tokenizer's matches never look past the sigil
    of a name (``%``/``!``: no token but a quoted string spans one, and names hold no quotes),
    and it reads a name that is not risky (:data:`_RISKY`) as one whole token; so two lines of
    one shape have the same tokens but for their names.  The reader decides nothing on a name
    but its sigil (its other words never start with ``%`` or ``!<digit>``, and ``int`` refuses
    both), so reading the template's placeholder names and putting the names in their places
    is reading the line.  A template is made only from a line whose names are all tokens, and
    kept only when every string derived from a placeholder is the placeholder itself, in a
    place :meth:`_Template.instance` fills.  Any other line, and any error, is read token by
    token (:func:`_read_line`), so an error names the line's own text.

    >>> first, _ = _read_instruction("%7 = add nsw i32 %5, 64, !dbg !12", 3)
    >>> again, dbg = _read_instruction("%9 = add nsw i32 %8, 64, !dbg !13", 4)
    >>> (again.result, again.operands[0].text, dbg) == ("%9", "%8", "!13")
    True
    """
    if "\x00" in text or "\x01" in text or _RISKY.search(text) is not None:
        instruction = _read_line(text, line)
        return instruction, instruction.extra.pop("dbg")  # type: ignore[return-value]
    shape = _METADATA.sub("\x01", _LOCAL.sub("\x00", text))
    try:
        template = _TEMPLATES[shape]
    except KeyError:
        if len(_TEMPLATES) >= _TEMPLATE_LIMIT:
            _TEMPLATES.clear()
        template = _TEMPLATES[shape] = _Template.of(text, line)
    if template is None:
        instruction = _read_line(text, line)
        return instruction, instruction.extra.pop("dbg")  # type: ignore[return-value]
    return template.instance(_NAME.findall(text))


_TEMPLATE_LIMIT = 50_000
# each shape of line read so far -> its template (None: the shape is read token by token)
_TEMPLATES: dict[str, _Template | None] = {}


def _placeholder(token: str, k: int) -> str:
    return f"{token[0]}\x00{k}"


def _is_placeholder(text: object) -> bool:
    return (
        isinstance(text, str)
        and len(text) > 2
        and text[0] in "%!"
        and text[1] == "\x00"
        and text[2:].isdigit()
    )


def _derived(item: object) -> bool:
    """Whether ``item`` holds a string made from a placeholder that is not the placeholder."""
    if isinstance(item, str):
        return "\x00" in item and not _is_placeholder(item)
    if isinstance(item, tuple):
        return any(_derived(part) for part in item)
    if isinstance(item, Value):
        return _derived(item.text) or _derived(item.elements) or _derived(item.type)
    if isinstance(item, Type):
        return _derived(item.name) or _derived(item.element) or _derived(item.fields)
    return False


def _holds_placeholder(item: object) -> bool:
    if isinstance(item, tuple):
        return any(_holds_placeholder(part) for part in item)
    if isinstance(item, Value):
        return _is_placeholder(item.text) or _holds_placeholder(item.elements)
    return _is_placeholder(item)


def _filled(item: Any, names: list[str]) -> Any:
    """``item`` with each placeholder replaced by its name."""
    if isinstance(item, tuple):
        return tuple(_filled(part, names) for part in item)
    if isinstance(item, Value):
        return Value(item.type, _filled(item.text, names), _filled(item.elements, names))
    if _is_placeholder(item):
        return names[int(item[2:])]
    return item


class _Template:
    """An instruction read with placeholder names (the sigil, a NUL character and k, for the
    line's k-th name), and where the names go: the result, plain operands (``names`` index,
    -1: a constant operand, -2: one with names inside), the extra words holding names, the
    !dbg reference."""

    __slots__ = ("result", "opcode", "type", "operands", "extra", "fills", "dbg")

    def __init__(self, instruction: Instruction) -> None:
        self.result = -1 if instruction.result is None else int(instruction.result[2:])
        self.opcode = instruction.opcode
        self.type = instruction.type
        extra = dict(instruction.extra)
        dbg = extra.pop("dbg")
        self.dbg = -1 if dbg is None else int(str(dbg)[2:])
        self.operands = [
            (value, -1 if not _holds_placeholder(value) else
             int(value.text[2:]) if _is_placeholder(value.text) and not value.elements else -2)
            for value in instruction.operands
        ]  # fmt: skip
        self.fills = tuple(key for key, item in extra.items() if _holds_placeholder(item))
        self.extra = extra

    @classmethod
    def of(cls, text: str, line: int) -> _Template | None:
        """The template of ``text``'s shape, or None where the line is not read through one."""
        try:
            tokens = _Tokens(text, line)
        except LLVMParseError:
            return None
        names = _NAME.findall(text)
        k = 0
        items = tokens.items
        for i, token in enumerate(items):
            if token[:1] in ("%", "!") and _NAME.fullmatch(token):
                if k == len(names) or names[k] != token:
                    return None
                items[i] = _placeholder(token, k)
                k += 1
        if k != len(names):
            return None  # a name inside a quoted string
        try:
            instruction = _instruction(tokens)
        except Exception:  # noqa: BLE001 - reading the line itself raises it again, on its text
            return None
        if tokens.peek():
            return None
        dbg = instruction.extra.get("dbg")
        if (instruction.result is not None and not _is_placeholder(instruction.result)) or (
            dbg is not None and not _is_placeholder(dbg)
        ):
            return None
        parts = (instruction.opcode, instruction.type, tuple(instruction.operands))
        if _derived(parts) or _derived(tuple(instruction.extra.values())):
            return None
        return cls(instruction)

    def instance(self, names: list[str]) -> tuple[Instruction, str | None]:
        """The instruction of a line of this shape whose names are ``names``, and its !dbg
        reference."""
        operands = [
            value if k == -1 else Value(value.type, names[k]) if k >= 0 else _filled(value, names)
            for value, k in self.operands
        ]
        extra = dict(self.extra)
        for key in self.fills:
            extra[key] = _filled(extra[key], names)
        result = None if self.result < 0 else names[self.result]
        instruction = Instruction(result, self.opcode, self.type, operands, extra)
        return instruction, None if self.dbg < 0 else names[self.dbg]


def split_top_level(text: str, opening: str = "([{<", closing: str = ")]}>") -> list[str]:
    """The comma-separated parts of ``text`` outside brackets, stripped, empty ones dropped.

    >>> split_top_level("ptr addrspace(1) %0, { i32, i32 } %1")
    ['ptr addrspace(1) %0', '{ i32, i32 } %1']
    """
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in opening:
            depth += 1
        elif char in closing:
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


# the text before a line's comment: any characters but quotes and ``;``, and quoted strings
# (a string left open runs to the end of the line)
_BEFORE_COMMENT = re.compile(r'(?:[^";]+|"[^"]*(?:"|$))*')


def _strip_comment(line: str) -> str:
    """``line`` without its ``;`` comment (a ``;`` inside a quoted string is no comment).

    >>> _strip_comment('call void asm "a; b", ""() ; c'), _strip_comment('x "; y')
    ('call void asm "a; b", ""() ', 'x "; y')
    """
    match = _BEFORE_COMMENT.match(line)
    assert match is not None  # the pattern matches the empty string
    return match.group(0)
