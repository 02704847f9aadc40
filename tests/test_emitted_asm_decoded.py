"""Inline assembly decoded once per string (issue 26) runs exactly as the general paths do.

Each hand-written snippet runs twice: with the shortcuts of :mod:`llverify.emitted.sim.ptx`
and :mod:`llverify.emitted.sim.intrinsics` (moves a load overwrites skipped, concrete values
cut without a round trip through their bytes, values normalised once, the address grids of
every ``ldmatrix``/``stmatrix`` matrix at once), and with them turned off.  The two runs
store the same bytes, make the same DAG, report the same violations, or raise the same
:class:`~llverify.emitted.sim.UnmodelledAt` with the same message (the negative controls:
what is not modelled stays unmodelled, decoded or not).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from llverify.emitted.sim import Execution, UnmodelledAt, intrinsics, ptx
from llverify.emitted.sim.llvm_ir import parse_llvm_ir
from llverify.emitted.sim.memory import Region
from llverify.emitted.sim.symbolic import UNDEFINED, Val

HEADER = "@global_smem = external addrspace(3) global [0 x i8], align 16\n"


def _execute(body: str, threads: int = 64, shared: int = 0, element_bytes: int = 4) -> Execution:
    """Run ``body`` (``%t`` the thread id, ``%in``/``%out`` the buffers)."""
    text = (
        HEADER + "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n" + body + "  ret void\n}\n"
    )
    run = Execution(parse_llvm_ir(text), "k", threads=threads, warp_size=32, shared_bytes=shared)
    run.add_input(0, "x", element_bytes=element_bytes, count=4 * threads)
    run.add_output(1, "y", element_bytes=element_bytes, count=4 * threads)
    run.run()
    return run


def _plain(value: object) -> object:
    """``value`` (an array, a value, an instruction, ...) as comparable plain data."""
    if isinstance(value, np.ndarray):
        return (str(value.dtype), value.tolist())
    if isinstance(value, Val):
        return ("Val", value.bits, _plain(value.ints), _plain(value.syms))
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return repr(value)


_MEMORY_CALLS = ("load_at", "load_bytes", "store_bytes", "shadow_store", "record", "atomic_at")


def _outcome(body: str, **options: int) -> tuple[object, ...]:
    """What a run of ``body`` leaves: the output's bytes and writers, the DAG, the
    violations, and every call of the memory path with its arguments; or the message it
    stops with."""
    calls: list[object] = []
    originals = {name: getattr(Execution, name) for name in _MEMORY_CALLS}

    def logged(name: str) -> object:
        def call(self: Execution, *arguments: object, **keywords: object) -> object:
            calls.append((name, _plain(arguments), _plain(sorted(keywords.items()))))
            return originals[name](self, *arguments, **keywords)

        return call

    for name in _MEMORY_CALLS:
        setattr(Execution, name, logged(name))
    try:
        run = _execute(body, **options)
    except UnmodelledAt as error:
        return ("unmodelled", str(error), calls)
    finally:
        for name, original in originals.items():
            setattr(Execution, name, original)
    output = run.memory.regions[1]
    assert isinstance(output, Region)
    return (
        output.data.tolist(),
        output.writer.tolist(),
        repr(run.dag.nodes),
        [str(v) for v in run.violations],
        [str(v) for v in run.memory.violations],
        calls,
    )


@contextmanager
def _general() -> Iterator[None]:
    """The shortcuts off: no move skipped, concrete values through their bytes, every value
    normalised where it is made, stored bytes read as a value, matrices one at a time."""
    write, assign, lanes = ptx._AsmState.write, ptx._AsmState._assign, intrinsics._matrix_lanes

    def general_write(self: ptx._AsmState, operand: str, value: Val, **_: bool) -> None:
        write(self, operand, value)

    def general_assign(self: ptx._AsmState, name: str, value: Val, **_: bool) -> None:
        assign(self, name, value)

    def general_bytes(self: ptx._AsmState, operand: str, bits: int) -> np.ndarray:
        return self.read(operand, bits).byte_symbols()

    def one_at_a_time(threads: int, count: int, transposed: bool) -> tuple[object, ...]:
        return (*lanes(threads, count, transposed)[:2], False)

    replaced: list[tuple[object, str, object]] = [
        (ptx, "_dead_moves", lambda steps: []),
        (ptx, "_concrete_ints", lambda value: None),
        (ptx._AsmState, "write", general_write),
        (ptx._AsmState, "_assign", general_assign),
        (ptx._AsmState, "read_bytes", general_bytes),
        (intrinsics, "_matrix_lanes", one_at_a_time),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in replaced]
    ptx._program.cache_clear()
    for owner, name, value in replaced:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)
        ptx._program.cache_clear()


def _same(body: str, **options: int) -> tuple[object, ...]:
    """``body``'s outcome, asserted the same with the shortcuts and without them."""
    fast = _outcome(body, **options)
    with _general():
        general = _outcome(body, **options)
    assert fast == general
    again = _outcome(body, **options)  # decoded before: the cached program
    assert again == fast
    return fast


LOAD = (
    "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %t\n"
    "  %v = load i32, ptr addrspace(1) %p, align 4\n"
    "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
)
STORE = "  store i32 %r, ptr addrspace(1) %q, align 4\n"
LOW = "  %c = icmp ult i32 %t, 40\n"


def _asm(ty: str, text: str, constraints: str, arguments: str) -> str:
    return f'  %a = tail call {ty} asm sideeffect "{text}", "{constraints}"({arguments})\n'


SNIPPETS = {
    "mov and load (the move skipped)": _asm(
        "i32",
        "mov.u32 $0, 0x0;\\0A\\09ld.global.b32 { $0 }, [ $1 + 0 ];",
        "=r,l",
        "ptr addrspace(1) %p",
    )
    + "  %r = add i32 %a, 0\n"
    + STORE,
    "mov and predicated load": LOW
    + _asm(
        "i32",
        "mov.u32 $0, 0x7;\\0A\\09@$2 ld.global.b32 { $0 }, [ $1 + 0 ];",
        "=r,l,b",
        "ptr addrspace(1) %p, i1 %c",
    )
    + "  %r = add i32 %a, 0\n"
    + STORE,
    "mov and load of an i16 into =c": _asm(
        "i16",
        "mov.u16 $0, 0x0;\\0A\\09ld.global.b16 { $0 }, [ $1 + 0 ];",
        "=c,l",
        "ptr addrspace(1) %p",
    )
    + "  %r = zext i16 %a to i32\n"
    + STORE,
    "mov and load of an i8": _asm(
        "i8",
        "mov.u16 $0, 0x0;\\0A\\09ld.global.b8 { $0 }, [ $1 + 0 ];",
        "=c,l",
        "ptr addrspace(1) %p",
    )
    + "  %r = zext i8 %a to i32\n"
    + STORE,
    "four moves and a vector load": _asm(
        "{ i32, i32, i32, i32 }",
        "mov.u32 $0, 0x0;\\0A\\09mov.u32 $1, 0x0;\\0A\\09mov.u32 $2, 0x0;\\0A\\09"
        "mov.u32 $3, 0x0;\\0A\\09ld.global.v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];",
        "=r,=r,=r,=r,l",
        "ptr addrspace(1) %p",
    )
    + "  %b = extractvalue { i32, i32, i32, i32 } %a, 2\n"
    + "  %r = add i32 %b, 0\n"
    + STORE,
    "two moves, one overwritten by a predicated vector load": LOW
    + _asm(
        "{ i32, i32 }",
        "mov.u32 $0, 0x0;\\0A\\09mov.u32 $1, 0x5;\\0A\\09"
        "@$3 ld.global.v2.b32 { $0, $1 }, [ $2 + 0 ];",
        "=r,=r,l,b",
        "ptr addrspace(1) %p, i1 %c",
    )
    + "  %b = extractvalue { i32, i32 } %a, 1\n"
    + "  %r = add i32 %b, 0\n"
    + STORE,
    "moves of constants only": _asm(
        "{ i8, i8 }", "mov.b16 $0, 1;\\0A\\09mov.b16 $1, 2;", "=c,=c", ""
    )
    + "  %b = extractvalue { i8, i8 } %a, 1\n"
    + "  %r = zext i8 %b to i32\n"
    + STORE,
    "tied input": _asm(
        "i32", "mov.u32 $0, 0x3;\\0A\\09@$2 mov.u32 $0, $1;", "=r,r,b,0", "i32 %v, i1 1, i32 9"
    )
    + "  %r = add i32 %a, 0\n"
    + STORE,
    "a constant through a register list": _asm(
        "i32", "mov.u32 $0, 0x7;\\0A\\09mov.b32 { $0 }, { $1 };", "=r,r", "i32 %t"
    )
    + "  %r = add i32 %a, 0\n"
    + STORE,
    "a constant cut to an i8 of =c": _asm("i8", "mov.b16 $0, 0x1ff;", "=c", "")
    + "  %r = zext i8 %a to i32\n"
    + STORE,
    "a 64-bit constant": "  %l = zext i32 %t to i64\n"
    + _asm("i64", "mov.b64 $0, $1;", "=l,l", "i64 %l")
    + "  %r = trunc i64 %a to i32\n"
    + STORE,
    "predicated store": LOW
    + '  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", '
    + '"r,l,b"(i32 %v, ptr addrspace(1) %q, i1 %c)\n',
    "store under a negated predicate": LOW
    + '  tail call void asm sideeffect "@!$2 st.global.b32 [ $1 + 0 ], { $0 };", '
    + '"r,l,b"(i32 %v, ptr addrspace(1) %q, i1 %c)\n',
    "a tied input with no operand": LOW
    + _asm("i32", "@$1 mov.u32 $0, 0x3;", "=r,b,0", "i1 %c")
    + "  %r = add i32 %a, 0\n"
    + STORE,
    "store of constants": "  tail call void asm sideeffect "
    + '"st.global.v2.b32 [ $2 + 0 ], { $0, $1 };", "r,r,l"(i32 7, i32 %t, ptr addrspace(1) %q)\n',
    "vector store of data and constants": "  %w = mul i32 %t, 4\n"
    + "  %s = getelementptr i32, ptr addrspace(1) %out, i32 %w\n"
    + "  tail call void asm sideeffect "
    + '"st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l"'
    + "(i32 %v, i32 1, i32 %t, i32 %v, ptr addrspace(1) %s)\n",
    "carry chain": _asm(
        "i32",
        "{\\0A\\09mad.lo.cc.u32 $0, $1, $2, $3;\\0A\\09madc.hi.u32 $0, $1, $2, 0;\\0A\\09}",
        "=r,r,r,r",
        "i32 %t, i32 %v, i32 3",
    )
    + "  %r = add i32 %a, 0\n"
    + STORE,
    "setp, selp and prmt": _asm(
        "i32",
        "{ .reg .pred p; setp.lt.u32 p, $1, 9; selp.b32 $0, $1, $2, p; "
        "prmt.b32 $0, $0, $2, 0x5410; }",
        "=r,r,r",
        "i32 %t, i32 %v",
    )
    + "  %r = add i32 %a, 0\n"
    + STORE,
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_decoded_asm_runs_as_the_general_paths(name: str) -> None:
    outcome = _same(LOAD + SNIPPETS[name])
    assert outcome[0] != "unmodelled", outcome


def test_a_call_under_a_branch_runs_as_the_general_paths() -> None:
    """The load under a branch, where not every thread runs the call (its moves are run, not
    skipped, and its writes merge into what the registers held)."""
    body = (
        LOAD
        + LOW
        + "  br i1 %c, label %inside, label %join\n"
        + "inside:\n"
        + SNIPPETS["mov and load (the move skipped)"]
        + "  br label %join\n"
        + "join:\n"
    )
    _same(body)


UNMODELLED = {
    "a qualifier outside the model": (
        _asm("i32", "ld.global.nope.b32 { $0 }, [ $1 + 0 ];", "=r,l", "ptr addrspace(1) %p"),
        r"PTX ld\.global\.nope\.b32 \(qualifier \.nope\)",
    ),
    "a skippable move before an unmodelled load": (
        _asm(
            "i32",
            "mov.u32 $0, 0x0;\\0A\\09ld.global.nope.b32 { $0 }, [ $1 + 0 ];",
            "=r,l",
            "ptr addrspace(1) %p",
        ),
        r"qualifier \.nope",
    ),
    "a move without a width before a load": (
        _asm(
            "i32",
            "mov $0, 0x0;\\0A\\09ld.global.b32 { $0 }, [ $1 + 0 ];",
            "=r,l",
            "ptr addrspace(1) %p",
        ),
        r"PTX mov \(no element width\)",
    ),
    "a carry read with no carry set": (
        _asm("i32", "madc.hi.u32 $0, $1, $1, 0;", "=r,r", "i32 %t"),
        r"reads a carry flag no instruction of its block set",
    ),
    "a malformed address": (
        _asm("i32", "ld.global.b32 { $0 }, $1;", "=r,l", "ptr addrspace(1) %p"),
        r"PTX address '\$1'",
    ),
    "a state space outside the model": (
        _asm("i32", "ld.local.b32 { $0 }, [ $1 + 0 ];", "=r,l", "ptr addrspace(1) %p"),
        r"state space local",
    ),
    "an unknown mnemonic after a known one": (
        _asm("i32", "mov.u32 $0, 0x1;\\0A\\09frobnicate.b32 $0, $0;", "=r", ""),
        r"PTX instruction 'frobnicate\.b32' in inline assembly",
    ),
    "an unknown operand": (
        _asm("i32", "mov.u32 $0, %nowhere;", "=r", ""),
        r"inline-asm operand '%nowhere'",
    ),
}


@pytest.mark.parametrize("name", sorted(UNMODELLED))
def test_what_is_not_modelled_stays_unmodelled(name: str) -> None:
    body, message = UNMODELLED[name]
    outcome = _same(LOAD + body + "  %r = add i32 %a, 0\n" + STORE)
    assert outcome[0] == "unmodelled"
    assert re.search(message, str(outcome[1]))


def test_moves_skipped_are_those_a_load_overwrites_unread() -> None:
    load = "mov.u32 $0, 0x0; mov.u32 $1, $2; ld.global.v2.b32 { $0, $1 }, [ $2 + 0 ];"
    assert [s.dead for s in ptx._program(load, "=r,=r,l").steps] == [True, False, False]
    read_first = "mov.u32 $0, 0x0; add.u32 $1, $0, 1; ld.global.b32 { $0 }, [ $2 + 0 ];"
    assert not any(s.dead for s in ptx._program(read_first, "=r,=r,l").steps)
    never_loaded = "mov.u32 $0, 0x0; ld.global.b32 { $1 }, [ $2 + 0 ];"
    assert not any(s.dead for s in ptx._program(never_loaded, "=r,=r,l").steps)
    assert ptx._program(load, "=r,=r,l") is ptx._program(load, "=r,=r,l")


LDMATRIX = (
    "  %e = mul i32 %t, 8\n"
    "  %p = getelementptr half, ptr addrspace(1) %in, i32 %e\n"
    "  %v = load <8 x half>, ptr addrspace(1) %p, align 16\n"
    "  %o = mul i32 %t, 16\n"
    "  %s = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o\n"
    "  store <8 x half> %v, ptr addrspace(3) %s, align 16\n"
    "  tail call void @llvm.nvvm.barrier0()\n"
)


def _ldmatrix(count: int, transposed: bool, form: str) -> str:
    trans = ".trans" if transposed else ""
    ty = "{ " + ", ".join(["i32"] * count) + " }"
    if form == "intrinsic":
        name = f"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{count}{trans}.b16"
        call = f"  %m = tail call {ty} @{name}(ptr addrspace(3) %s)\n"
    else:
        registers = ", ".join(f"${k}" for k in range(count))
        call = _asm(
            ty,
            f"ldmatrix.sync.aligned.m8n8.x{count}{trans}.shared.b16 {{{registers}}}, [${count}];",
            ",".join(["=r"] * count) + ",r",
            "ptr addrspace(3) %s",
        ).replace("%a =", "%m =")
    body = LDMATRIX + call
    for k in range(count):
        body += (
            f"  %r{k} = extractvalue {ty} %m, {k}\n"
            f"  %i{k} = mul i32 %t, {count}\n"
            f"  %j{k} = add i32 %i{k}, {k}\n"
            f"  %q{k} = getelementptr i32, ptr addrspace(1) %out, i32 %j{k}\n"
            f"  store i32 %r{k}, ptr addrspace(1) %q{k}, align 4\n"
        )
    return body


@pytest.mark.parametrize("form", ["intrinsic", "asm"])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_ldmatrix_grids_at_once_are_the_per_matrix_ones(
    count: int, transposed: bool, form: str
) -> None:
    outcome = _same(_ldmatrix(count, transposed, form), shared=1024, element_bytes=2)
    assert outcome[0] != "unmodelled", outcome


@pytest.mark.parametrize("transposed", [False, True])
def test_stmatrix_grids_at_once_are_the_per_matrix_ones(transposed: bool) -> None:
    trans = ".trans" if transposed else ""
    body = (
        LDMATRIX
        + "  tail call void @llvm.nvvm.barrier0()\n"
        + "  %a0 = mul i32 %t, 3\n"
        + f"  tail call void @llvm.nvvm.stmatrix.sync.aligned.m8n8.x2{trans}.b16"
        + "(ptr addrspace(3) %s, i32 %t, i32 %a0)\n"
        + "  tail call void @llvm.nvvm.barrier0()\n"
        + "  %m = load i32, ptr addrspace(3) %s, align 4\n"
        + "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        + "  store i32 %m, ptr addrspace(1) %q, align 4\n"
    )
    outcome = _same(body, shared=1024, element_bytes=2)
    assert outcome[0] != "unmodelled", outcome


def test_ldmatrix_lanes_past_the_threads_are_read_matrix_by_matrix() -> None:
    """With fewer threads than a warp, a matrix's row lanes lie past the last thread: the
    grids are made one matrix at a time, so the failure comes where it did."""
    assert intrinsics._matrix_lanes(64, 4, True)[2]
    assert not intrinsics._matrix_lanes(16, 4, False)[2]

    def failure() -> str:
        with pytest.raises(Exception) as raised:  # noqa: PT011 - whichever it is, the same
            _execute(_ldmatrix(4, False, "intrinsic"), threads=16, shared=1024)
        return f"{type(raised.value).__name__}: {raised.value}"

    fast = failure()
    with _general():
        assert failure() == fast


def test_an_output_tied_to_a_missing_operand_stays_undefined() -> None:
    """An output whose tied input has no operand holds undefined bytes, as any output not
    written: where the predicated move is off, the call's result is undefined."""
    run = _execute(LOAD + SNIPPETS["a tied input with no operand"])
    output = run.memory.regions[1]
    assert isinstance(output, Region)
    words = output.data.reshape(-1, 4)[:64].tolist()
    assert words[:40] == [[-4, -1, -1, -1]] * 40  # 3, little-endian constant bytes
    assert words[40:] == [[UNDEFINED] * 4] * 24
