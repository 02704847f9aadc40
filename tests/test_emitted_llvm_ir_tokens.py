"""The LLVM IR reader's one-pass tokenizer and shared scalar types read as the token-by-token
reader did: same tokens, same types, same error for text no token matches."""

import pytest

from llverify.emitted.sim.llvm_ir import (
    _FAST_BINARY,
    LLVMParseError,
    Type,
    _fast_binary,
    _instruction,
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


@pytest.mark.parametrize(
    "line",
    [
        "%7 = add nsw i32 %5, 64, !dbg !12",
        "%8 = fmul contract float %a.1, 1.000000e+00",
        "%9 = xor i1 %3, -1",
        "%10 = fadd half 0xH3C00, %9, !dbg !4",
        "%11 = shl nuw nsw i64 %2, 3",
    ],
)
def test_fast_binary_lines_read_as_the_general_reader_reads_them(line: str) -> None:
    match = _FAST_BINARY.fullmatch(line)
    assert match is not None
    assert repr(_fast_binary(match)) == repr(_instruction(_Tokens(line, 1)))


@pytest.mark.parametrize(
    "line",
    [
        "%7 = add i32 %5, 64, !dbg !12, !tbaa !3",  # a second attachment
        "%7 = add <2 x i32> %5, %6",  # a vector
        "%7 = add i32 %5, poison",  # a constant word
        "%7 = add  i32 %5, 1",  # two blanks
        "%7 = icmp eq i32 %5, 1",  # not a binary operation
    ],
)
def test_other_lines_take_the_general_reader(line: str) -> None:
    assert _FAST_BINARY.fullmatch(line) is None
    assert _instruction(_Tokens(line, 1)).opcode in ("add", "icmp")
