"""The LLVM IR reader's one-pass tokenizer and shared scalar types read as the token-by-token
reader did: same tokens, same types, same error for text no token matches; and a line read
through the template of its shape reads as the tokens read it, name for name."""

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.emitted.sim.llvm_ir import (
    _TEMPLATES,
    LLVMParseError,
    Type,
    _read_instruction,
    _read_line,
    _strip_comment,
    _Tokens,
    parse_llvm_ir,
    parse_type,
)


def _tokens(text: str) -> list[str]:
    return _Tokens(text, 1).items[:-2]


def test_tokens_of_a_call_line() -> None:
    line = '  %5 = tail call float asm sideeffect "mov.b32 $0, $1;", "=r,r"(i32 %4) #3, !dbg !7  '
    assert _tokens(line) == [
        "%5", "=", "tail", "call", "float", "asm", "sideeffect", '"mov.b32 $0, $1;"', ",",
        '"=r,r"', "(", "i32", "%4", ")", "#3", ",", "!dbg", "!7",
    ]  # fmt: skip


def test_tokens_of_special_floats_and_exponents() -> None:
    assert _tokens("fadd float -inf, 1.5e+10") == ["fadd", "float", "-inf", ",", "1.5e+10"]
    assert _tokens("<2 x half> <half +qnan, half 0xH3C00>")[-5:] == [
        "+qnan",
        ",",
        "half",
        "0xH3C00",
        ">",
    ]


def test_unreadable_text_is_refused_where_it_starts() -> None:
    """Negative control: a character no token matches is an error naming it, not skipped."""
    with pytest.raises(LLVMParseError, match=r"line 3: cannot read ' \?\? i32 %1'"):
        _Tokens("add i32 %0, ?? i32 %1", 3)
    text = "define void @k() {\n  %1 = add i32 0, ^1\n  ret void\n}"
    with pytest.raises(LLVMParseError, match=r"line 2: cannot read ' \^1'"):
        parse_llvm_ir(text)


def test_scalar_types_and_address_spaces() -> None:
    def read(text: str) -> Type:
        return parse_type(_Tokens(text, 1))

    assert read("i32") == Type("int", bits=32)
    assert read("i7") == Type("int", bits=7)
    assert read("bfloat") == Type("float", bits=16, name="bfloat")
    assert read("ptr") == Type("ptr")
    assert read("ptr addrspace(3)") == Type("ptr", space=3)
    assert read("<4 x ptr addrspace(1)>") == Type("vector", count=4, element=Type("ptr", space=1))
    with pytest.raises(LLVMParseError, match="unknown type 'x86_fp80'"):
        read("x86_fp80")


def _both(line: str, number: int = 1) -> tuple[str, str]:
    """The line read through its shape's template, and token by token (``repr``, or the
    error), each with its !dbg reference."""

    def shown(read: object) -> str:
        try:
            return repr(read())  # type: ignore[operator]
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return f"{type(error).__name__}: {error}"

    def plain() -> tuple[object, object]:
        instruction = _read_line(line, number)
        return instruction, instruction.extra.pop("dbg")

    return shown(lambda: _read_instruction(line, number)), shown(plain)


_LINES = [
    "%7 = add nsw i32 %5, 64, !dbg !12",
    "%8 = fmul contract float %a.1, 1.000000e+00",
    "%9 = xor i1 %3, -1",
    "%10 = fadd half 0xH3C00, %9, !dbg !4",
    "%11 = shl nuw nsw i64 %2, 3",
    "%7 = add i32 %5, 64, !dbg !12, !tbaa !3",
    "%7 = add <2 x i32> %5, %6",
    "%7 = icmp eq i32 %5, 1",
    '%5 = tail call i32 asm sideeffect "mov.u32 $0, 0x0;", "=r,l"(ptr addrspace(1) %4) #6, !dbg !7',
    'tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"'
    "(i32 %1, ptr addrspace(1) %2, i1 %3) #6, !dbg !9",
    "%1 = getelementptr [4 x i8], ptr addrspace(1) %0, i64 %x, !dbg !16",
    "%2 = extractvalue { i32, i32, i32, i32 } %1, 2, !dbg !23",
    "%3 = insertelement <4 x i32> poison, i32 %1, i64 0, !dbg !46",
    "%4 = phi i32 [ %1, %5 ], [ 0, %6 ]",
    "br i1 %c, label %t, label %f, !dbg !3",
    "br label %exit",
    "switch i32 %v, label %d [ i32 1, label %a i32 2, label %b ]",
    "%6 = getelementptr i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, "
    "i64 16), i32 %5",
    "%7 = call i32 %fn(i32 %1)",
    "%8 = alloca i32, align 4",
    "%9 = load <2 x float>, ptr addrspace(3) %p, align 8, !dbg !2",
    "store i32 %v, ptr %p, align 4",
    "ret void",
]  # fmt: skip


@pytest.mark.parametrize("line", _LINES)
def test_a_line_reads_through_its_template_as_token_by_token(line: str) -> None:
    template, plain = _both(line)
    assert template == plain
    renamed = line.replace("%", "%r.").replace("!1", "!91")  # the same shape, other names
    template, plain = _both(renamed, 7)
    assert template == plain
    assert "%r." in template or "%" not in line


@pytest.mark.parametrize(
    ("first", "line"),
    [
        ("%ab = add i32 %x, 1", "%a.e-5x = add i32 %x, 1"),  # cut short at the exponent
        ("%ab = add i32 %x, 1", "%a.e-5 = add i32 %x, 1"),
        ("%b = add i32 %x, 1", "%be = add i32 %x, 1e+5"),
        ('call void asm "%x", ""()', 'call void asm "%y", ""()'),  # a name inside a string
        ('call void asm "!1", ""()', 'call void asm "!2", ""()'),
        ('call void asm %x, ""()', 'call void asm %y, ""()'),  # a name read as a string
        ("%1 = add i32 %x, %y", "%1 = add i32 %x, \x00"),  # the marker characters
        ("%1 = add i32 %x, 1, !dbg !5", "%1 = add i32 %x, 1, !dbg \x01"),
    ],
)
def test_lines_a_shape_cannot_stand_for_read_token_by_token(first: str, line: str) -> None:
    """Negative controls: after a line of the same shape, a line whose names the template
    cannot stand for (risky names, names in strings, a name read as a string) reads token by
    token, as before."""
    _read_instruction(first, 1)
    template, plain = _both(line)
    assert template == plain


def test_a_malformed_line_of_a_known_shape_is_refused_with_its_own_text() -> None:
    """Negative control: a line of a shape read before whose own text is malformed gets the
    token reader's error (its line and text), not the template's instruction."""
    _read_instruction("%3 = add i32 %1, %2", 1)
    with pytest.raises(LLVMParseError, match=r"line 5: cannot read ' \?\? i32 %1, %2'"):
        _read_instruction("%3 = add ?? i32 %1, %2", 5)
    with pytest.raises(LLVMParseError, match="line 6: expected ','"):
        _read_instruction("%3 = add i32 %1 %2", 6)
    template, plain = _both("%3 = add i32 %1, %2, %4", 8)
    assert template == plain and template.startswith("LLVMParseError: LLVM IR line 8")


_TOKENS = st.sampled_from(
    ["%1", "%a.b", "%be", "!3", "!dbg", "i32", "float", "<", ">", "[", "]", "{", "}", "(", ")",
     ",", "=", "x", "2", "1e+5", "-inf", "add", "call", "label", "ptr", "addrspace", '"s"',
     '"%q"', "e+1", "+", "?", "@g", "#6", "asm", "to", "bitcast", "poison", "..."]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(_LINES), st.lists(st.tuples(st.integers(0, 200), _TOKENS), max_size=3))
def test_mutated_lines_read_alike_both_ways(line: str, edits: list[tuple[int, str]]) -> None:
    """Fuzz: a real line with words put in (often malformed) reads the same through the
    template as token by token, error or instruction, twice (the second time its shape is
    known) and renamed."""
    for at, word in edits:
        at %= len(line) + 1
        line = f"{line[:at]} {word} {line[at:]}"
    assert _both(line)[0] == _both(line)[1]
    assert _both(line)[0] == _both(line)[1]
    for other in ("%z", "%a.e-5", "%q.E+", "%be"):  # the same shape, some names risky
        renamed = line.replace("%", other)
        assert _both(renamed)[0] == _both(renamed)[1]


DATA = Path(__file__).parent / "data" / "emitted"


@pytest.mark.parametrize(
    "path", sorted(p for p in DATA.rglob("*") if p.name.endswith((".llir", ".llir.gz")))
)
def test_real_kernels_read_through_templates_as_token_by_token(path: Path) -> None:
    """Every instruction line of the real kernels under tests/data reads the same both ways,
    and the module read whole is the same with the templates of every shape already made."""
    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    _TEMPLATES.clear()
    first = parse_llvm_ir(text)
    for number, raw in enumerate(text.split("\n"), 1):
        line = _strip_comment(raw).strip()
        if line.startswith(("%", "tail ", "call ", "store ", "br ", "ret ")) and not line.endswith(
            ":"
        ):
            template, plain = _both(line, number)
            assert template == plain, number
    assert parse_llvm_ir(text) == first
    assert repr(parse_llvm_ir(text)) == repr(first)
