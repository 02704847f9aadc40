"""Translation validation on real emitted code: negative controls (mutants of Triton's LLVM IR
must be refuted, never proved), attribution of violations to their op, and validate_module
on the stored fixtures (Triton 3.9 compiles on the CPU; each compile once per module)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from cases.triton import require_triton
from llverify.emitted.checks import CaseVerdict
from llverify.emitted.harness import Harness, build_harness
from llverify.emitted.sim import Instruction
from llverify.emitted.validate import _check_all, _execute, _Sources, validate_module
from llverify.proof.verdict import Status
from llverify.ttgir import parse_module

FIXTURES = Path(__file__).resolve().parent / "data" / "ttgir"

# a convert through shared memory, a float reduce across warps (shuffles and a shared
# scratch) and an integer reduce (redux.sync on sm80); the convert's location is a line of
# the user's file that falls inside the reduce's lines of the harness
MODULE = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<32x32xf32, #blocked>, %z: tensor<4x256xf32, #blocked2>, %w: tensor<4x32xi32, #blocked3>) {
    %y = ttg.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked1> loc("user.py":40:3)
    %s = "tt.reduce"(%z) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tt.reduce.return %r : f32
    }) : (tensor<4x256xf32, #blocked2>) -> tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked2}>>
    %t = "tt.reduce"(%w) <{axis = 1 : i32}> ({
    ^bb0(%a: i32, %b: i32):
      %r = arith.addi %a, %b : i32
      tt.reduce.return %r : i32
    }) : (tensor<4x32xi32, #blocked3>) -> tensor<4xi32, #ttg.slice<{dim = 1, parent = #blocked3}>>
    tt.return
  }
}
"""  # noqa: E501


@pytest.fixture(scope="module")
def compiled() -> tuple[Harness, Any]:
    require_triton()
    from llverify.triton.compile import compile_ttgir

    harness = build_harness(parse_module(MODULE))
    assert [c.op.name for c in harness.cases] == ["ttg.convert_layout", "tt.reduce", "tt.reduce"]
    return harness, compile_ttgir(harness.text, harness.target)


def verdicts(compiled: tuple[Harness, Any], llir: str | None = None) -> list[CaseVerdict]:
    """Execute the harness's kernel (with ``llir`` in place of Triton's) and check every case."""
    harness, kernel = compiled
    if llir is not None:
        kernel = dataclasses.replace(kernel, llir=llir)
    run = _execute(harness, kernel, {})
    assert not isinstance(run, Exception), run
    return _check_all(harness, kernel, run)


SHUFFLE_LANE = r"(shfl\.sync\.bfly\.[if]32\(i32 -1, \w+ %\d+, i32 )"  # up to the lane operand


def mutate(text: str, pattern: str, replace: Any) -> str:
    """``text`` with the first match of ``pattern`` replaced (the mutation must apply)."""
    mutant, count = re.subn(pattern, replace, text, count=1, flags=re.M)
    assert count == 1 and mutant != text, f"mutation {pattern!r} did not apply"
    return mutant


def _cases_at(harness: Harness, line: int | None, column: int | None) -> list[int]:
    """The cases an instruction with the debug location (line, column) is attributed to."""
    instruction = Instruction(None, "add", None, [], line=line, column=column)  # type: ignore[arg-type]
    return [case.index for case in _Sources(harness).cases_of(instruction)]


def _position(harness: Harness, piece: str, after: int = 0) -> tuple[int, int]:
    """The harness line and 1-based column of ``piece`` (first at or after line ``after``)."""
    lines = harness.text.splitlines()
    line = next(k for k in range(after, len(lines)) if piece in lines[k])
    return line + 1, lines[line].index(piece) + 1


def test_debug_locations_name_their_cases() -> None:
    """No compiler needed: an op's own location names its case first, then the cases with an
    op written at that line and column (ops of a copied region without a location too)."""
    harness = build_harness(parse_module(MODULE))
    assert _cases_at(harness, 40, 3) == [0]  # the convert's loc("user.py":40:3)
    assert _cases_at(harness, 1, 0) == [1]  # the first reduce's loc("harness.ttgir":1:0)
    assert _cases_at(harness, *_position(harness, '"tt.reduce"(%h1')) == [1]
    start = _position(harness, '"tt.reduce"(%h2')[0]
    assert _cases_at(harness, *_position(harness, "arith.addi %a", start)) == [2]
    assert _cases_at(harness, *_position(harness, "tt.reduce.return", start)) == [2]
    assert _cases_at(harness, start, 1) == [] and _cases_at(harness, None, None) == []
    # the convert's own location is where the first reduce's load is written: both, its own
    # first
    line, column = _position(harness, "tt.load %h1")
    moved = MODULE.replace('loc("user.py":40:3)', f'loc("user.py":{line}:{column})')
    assert _cases_at(build_harness(parse_module(moved)), line, column) == [0, 1]


def test_unmutated_emitted_code_is_proved(compiled) -> None:
    found = verdicts(compiled)
    assert [v.status for v in found] == [Status.PROVED] * 3, [v.reason for v in found]
    assert "exhaustive over all 128 threads" in found[0].claim


def test_deleting_the_barrier_between_shared_store_and_load_is_a_race(compiled) -> None:
    llir = mutate(compiled[1].llir, r"^\s*tail call void @llvm\.nvvm\.barrier[\w.]*\(.*\n", "")
    convert, reduce_f32, reduce_i32 = verdicts(compiled, llir)
    assert convert.status is Status.REFUTED
    assert convert.violation == "race"
    assert re.search(r"at address \d+ by thread \d+ \(and thread \d+\)", convert.reason)
    # the race is the convert's (its location is user.py:40, inside the reduce's harness lines)
    assert reduce_f32.status is Status.PROVED and reduce_i32.status is Status.PROVED


def test_changing_a_shuffle_lane_in_the_reduce_is_refuted(compiled) -> None:
    llir = mutate(compiled[1].llir, SHUFFLE_LANE + "1,", r"\g<1>16,")
    convert, reduce_f32, reduce_i32 = verdicts(compiled, llir)
    assert reduce_f32.status is Status.REFUTED
    example = reduce_f32.counterexample
    if example is not None:  # wrong elements: which output, thread and address
        assert example.thread is not None and example.address is not None
        assert example.expected != example.got
    else:  # the wrong lanes collide in the reduce's shared scratch
        assert reduce_f32.violation in ("race", "nondeterministic store")
        assert re.search(r"by thread \d+", reduce_f32.reason)
    assert convert.status is Status.PROVED and reduce_i32.status is Status.PROVED


def test_repeating_a_shuffle_offset_combines_elements_twice(compiled) -> None:
    llir = mutate(compiled[1].llir, SHUFFLE_LANE + "4,", r"\g<1>8,")
    reduce_f32 = verdicts(compiled, llir)[1]
    assert reduce_f32.status is Status.REFUTED
    example = reduce_f32.counterexample
    if example is not None:
        assert "repeated" in example.got or "missing" in example.got


def test_changing_a_shared_address_xor_in_the_convert_is_refuted(compiled) -> None:
    def bump(match: re.Match[str]) -> str:
        return f"{match.group(1)}{int(match.group(2)) + 4},"

    llir = mutate(compiled[1].llir, r"(= xor i32 %\d+, )(\d{3,}),", bump)
    convert, reduce_f32, reduce_i32 = verdicts(compiled, llir)
    assert convert.status is Status.REFUTED
    example = convert.counterexample
    assert example is not None, convert.reason
    assert example.thread is not None and example.address is not None
    assert example.expected.startswith("op0.in0[") and example.got != example.expected
    assert "distinct value" in example.replay
    assert reduce_f32.status is Status.PROVED and reduce_i32.status is Status.PROVED


def test_an_unmodelled_instruction_makes_the_op_unknown_never_proved(compiled) -> None:
    llir = mutate(compiled[1].llir, r"@llvm\.nvvm\.redux\.sync\.add\b", "@llvm.nvvm.redux.made.up")
    harness, kernel = compiled
    outcome = _execute(harness, dataclasses.replace(kernel, llir=llir), {})
    assert isinstance(outcome, Exception) and "redux.made.up" in str(outcome)


# -- validate_module on the stored fixtures ----------------------------------------------
@pytest.fixture(
    scope="module", params=["softmax_fp32_sm80", "transpose_fp16_gfx942", "gather_fp32_sm80"]
)
def fixture_report(request) -> Any:
    require_triton()
    name = request.param
    return name, validate_module((FIXTURES / f"{name}.ttgir").read_text(), source=name)


def test_fixture_ops_are_all_proved(fixture_report) -> None:
    name, report = fixture_report
    assert report.status is Status.PROVED, [(v.op, v.reason) for v in report.verdicts]
    assert report.verdicts and all(v.status is Status.PROVED for v in report.verdicts)
    assert report.counts()["proved"] == len(report.verdicts)
    assert report.triton_version.startswith("3.9")
    assert report.instructions > 0


def test_fixture_report_json_round_trips(fixture_report) -> None:
    name, report = fixture_report
    data = report.to_dict()
    again = json.loads(json.dumps(data))
    assert again == data
    assert again["status"] == "proved" and again["source"] == name
    assert [op["status"] for op in again["ops"]] == ["proved"] * len(report.verdicts)
    assert all(op["counterexample"] is None for op in again["ops"])


def test_validate_module_refuses_a_non_string() -> None:
    with pytest.raises(TypeError, match="text"):
        validate_module(b"module {}")  # type: ignore[arg-type]


# an i1 broadcast on gfx942: LLVM loads the harness's i8 flags as one bit-packed <64 x i1>
BOOL_BROADCAST = """\
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#linear1 = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [8, 0]], lane = [[0, 8], [0, 16], [0, 32], [64, 0], [32, 0], [16, 0]], warp = [[1, 0], [2, 0], [4, 0]], block = []}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%x: tensor<1x64xi1, #blocked1>) {
    %y = tt.broadcast %x : tensor<1x64xi1, #blocked1> -> tensor<128x64xi1, #linear1>
    tt.return
  }
}
"""  # noqa: E501


def test_bit_packed_bool_loads_are_proved_and_a_wrong_bit_is_refuted() -> None:
    require_triton()
    from llverify.triton.compile import compile_ttgir

    harness = build_harness(parse_module(BOOL_BROADCAST))
    kernel = compile_ttgir(harness.text, harness.target)
    [proved] = verdicts((harness, kernel))
    assert proved.status is Status.PROVED, proved.reason
    if "x i1>" not in kernel.llir:
        pytest.skip("this Triton/LLVM does not fold the flags into a bit-packed vector load")
    llir = mutate(kernel.llir, r"(extractelement <\d+ x i1> %\d+, i64 )8\b", r"\g<1>9")
    [refuted] = verdicts((harness, kernel), llir)
    assert refuted.status is Status.REFUTED
    assert refuted.counterexample is not None and "bit.1(" in refuted.counterexample.got


_ROWSUM = """import triton
import triton.language as tl


@triton.jit
def rowsum(x_ptr, y_ptr, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    x = tl.load(x_ptr + rows * BLOCK + cols)
    s = tl.sum(x, axis=1)
    tl.store(y_ptr + tl.arange(0, BLOCK), s)
"""


def test_python_kernel_is_validated_with_the_users_lines(tmp_path: Path) -> None:
    """A @triton.jit kernel compiles to TTGIR whose ops are validated; the reduce inlined from
    tl.sum is located at the user's call (k.py:10), not in Triton's standard library."""
    require_triton()
    source = tmp_path / "k.py"
    source.write_text(_ROWSUM)
    from llverify.emitted.validate import validate_kernel

    report = validate_kernel(
        str(source),
        "rowsum",
        signature={"x_ptr": "*fp32", "y_ptr": "*fp32"},
        constexprs={"BLOCK": 32},
        target="cuda:90",
    )
    assert report.status is Status.PROVED
    reduce = next(v for v in report.verdicts if v.op == "tt.reduce")
    assert reduce.location.endswith("k.py:10"), reduce.location


def test_a_non_commutative_reduce_is_unknown_not_refuted() -> None:
    """The sweep's "first non-zero" reduce (select(a != 0, a, b): associative, not
    commutative) leaves f(x, y) in one lane and f(y, x) in its butterfly partner; the masked
    duplicate copy differs from the stored one.  tl.reduce assumes a commutative combine
    (triton-lang/triton#4962), so the op is unknown with that reason, never refuted."""
    require_triton()
    from cases.emitted_sweep import sweep_cases

    case = next(c for c in sweep_cases() if c.name == "blocked-reduce_first-f32-w1x1-cuda80-v9")
    report = validate_module(case.text, source=case.name)
    reduce = next(v for v in report.verdicts if v.op == "tt.reduce")
    assert reduce.status is Status.UNKNOWN
    assert "triton-lang/triton#4962" in reduce.reason
    assert all(v.status is Status.PROVED for v in report.verdicts if v.op != "tt.reduce")
