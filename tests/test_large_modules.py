"""Large TTGIR modules (issue 27): the harness split over as many kernels as ptxas's parameter
space allows, twins and the --max-ops limit, a harness that does not compile named as
llverify's, progress lines, and a 100,000-op module in bounded time (slow)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cases.large_modules import module_of_ops, repeated_module
from llverify.audit import analyze
from llverify.audit.analyze import audit
from llverify.cli.main import main
from llverify.cli.validate_cmd import DEFAULT_MAX_OPS
from llverify.emitted import validate as validate_module_file
from llverify.emitted.harness import POINTER_BYTES, build_harness, parameter_bytes
from llverify.emitted.validate import MAX_OPS, HarnessCompileError, validate_module
from llverify.proof.verdict import Status
from llverify.triton.compile import CompileError
from llverify.ttgir import parse_module

DATA = Path(__file__).parent / "data" / "ttgir"
BIG = DATA / "big_2000.ttgir"
B = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"  # noqa: E501
C = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"  # noqa: E501
D = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>"  # noqa: E501
HEADER = (
    f"#b = {B}\n#c = {C}\n#d = {D}\n"
    'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", '
    '"ttg.threads-per-warp" = 32 : i32} {\n'
)


def _converts(*pairs: tuple[str, str]) -> str:
    """A module of one convert_layout per (source, result) alias pair, each on its own line
    of k.py."""
    body = "".join(
        f"  %{k + 1} = ttg.convert_layout %0 : tensor<64x64xf16, {a}> -> "
        f'tensor<64x64xf16, {b}> loc("k.py":{k + 1}:3)\n'
        for k, (a, b) in enumerate(pairs)
    )
    return HEADER + body + "}\n"


def test_parameter_space_is_the_measured_one() -> None:
    # Triton 3.9's ptxas took 4,093 pointers on cuda:80 (plus its two scratch pointers:
    # 32,760 bytes) and refused 4,094 (0x8000 > 0x7ffc); before sm_70 it allows 4,352 bytes
    assert parameter_bytes("cuda:80") // POINTER_BYTES == 4091 <= 4093
    assert parameter_bytes("cuda:90") == parameter_bytes("cuda:100") == 32_732
    assert parameter_bytes("cuda:60") + 16 <= 4_352
    assert parameter_bytes("hip:gfx942") + 16 <= 4_096


def test_large_harness_is_split_within_the_parameter_space() -> None:
    module = parse_module(repeated_module(3))  # 2,514 cases, 5,028 buffers: over 4,091
    full = build_harness(module)
    assert len(full.buffers) * POINTER_BYTES > parameter_bytes(full.target)
    plan = validate_module_file._plan(module, full, max_ops=10**6)
    parts = validate_module_file._parts(module, full, plan.chosen, parameter_bytes(full.target))
    assert len(parts) == 2
    assert sorted(p for part in parts for p in part) == plan.chosen
    positions = {id(op): k for k, op in enumerate(module.ops)}
    for part in parts:
        chosen = set(part)
        buffers = sum(len(c.buffers) for c in full.cases if positions[id(c.op)] in chosen)
        assert 0 < buffers * POINTER_BYTES <= parameter_bytes(full.target)
    # each part's own harness declares those buffers and no more (checked on the smaller)
    last = build_harness(module, ops=parts[-1])
    assert len(last.buffers) * POINTER_BYTES <= parameter_bytes(full.target)


def test_harness_locations_stay_distinct_when_many_ops_share_one() -> None:
    # 3,000 ops at one location of k.py: each case gets a column of its own (was quadratic:
    # the taken locations copied per case, and searched from the op's own column each time)
    op = "ttg.convert_layout %0 : tensor<64x64xf16, #b> -> tensor<64x64xf16, #c>"
    text = HEADER + "".join(f'  %{k + 1} = {op} loc("k.py":7:3)\n' for k in range(3000)) + "}\n"
    started = time.perf_counter()
    harness = build_harness(parse_module(text))
    assert time.perf_counter() - started < 60
    lines = [line for line in harness.text.splitlines() if "= ttg.convert_layout" in line]
    assert len({line.rsplit("loc(", 1)[1] for line in lines}) == len(lines) == 3000


def test_twin_keys_tell_different_ops_apart() -> None:
    harness = build_harness(parse_module(_converts(("#b", "#c"), ("#b", "#c"), ("#b", "#d"))))
    keys = [case.key for case in harness.cases]
    assert keys[0] == keys[1] != keys[2]


@pytest.mark.triton
def test_max_ops_folds_twins_and_leaves_the_rest_unknown() -> None:
    # three ops, two of them twins; --max-ops 1: the first distinct op is validated, its twin
    # takes its proof (and says so), the third distinct op is unknown - never proved
    text = _converts(("#b", "#c"), ("#b", "#d"), ("#b", "#c"))
    report = validate_module(text, max_ops=1)
    by_line = {v.op_line: v for v in report.verdicts}
    assert [by_line[k].status for k in (5, 6, 7)] == [Status.PROVED, Status.UNKNOWN, Status.PROVED]
    assert "twin" not in by_line[5].claim
    assert "its twin at line 5" in by_line[7].claim
    assert "--max-ops 1" in by_line[6].reason
    assert report.status is Status.UNKNOWN  # not a proof of the module
    # control: under the limit every op is validated on its own
    whole = validate_module(text)
    assert [v.status for v in whole.verdicts] == [Status.PROVED] * 3
    assert not any("twin" in v.claim for v in whole.verdicts)


@pytest.mark.triton
def test_big_module_over_max_ops_keeps_a_verdict_per_op() -> None:
    report = validate_module(BIG.read_text(), max_ops=10)
    counts = report.counts()
    assert sum(counts.values()) == 838 and counts["refuted"] == 0
    unknown = [v for v in report.verdicts if v.status is Status.UNKNOWN]
    assert unknown and all("--max-ops 10" in v.reason for v in unknown)
    proved = [v for v in report.verdicts if v.status is Status.PROVED]
    assert sum("twin" not in v.claim for v in proved) == 10


@pytest.mark.triton
def test_split_harness_gives_the_verdicts_of_one(monkeypatch) -> None:
    text = (DATA / "broadcast_reduce_fp32_sm80.ttgir").read_text()
    whole = validate_module(text)
    said: list[str] = []
    monkeypatch.setattr(validate_module_file, "parameter_bytes", lambda target: 4 * 8)
    split = validate_module(text, progress=said.append)
    assert [(v.op_line, v.status, v.description) for v in split.verdicts] == [
        (v.op_line, v.status, v.description) for v in whole.verdicts
    ]
    assert any("harness kernel 2 of" in line for line in said)
    assert any("harness kernels" in note for note in split.notes)
    assert split.counts() == whole.counts() and whole.counts()["proved"] > 1


def test_harness_compile_failure_names_llverifys_harness(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise CompileError(
            "Triton 3.9.0 failed to compile for cuda:80: PTXASError: Entry function "
            "'harness_kernel' uses too much parameter space"
        )

    monkeypatch.setattr(validate_module_file, "compile_ttgir", refuse)
    with pytest.raises(HarnessCompileError) as caught:
        validate_module(_converts(("#b", "#c"), ("#b", "#d")))
    message = str(caught.value)
    assert "harness kernel llverify built" in message and "not a verdict on the module" in message
    assert "2 ops (from lines 5-6" in message and "32 bytes of kernel parameters" in message
    assert isinstance(caught.value, ValueError)


def test_no_triton_is_not_blamed_on_the_harness(monkeypatch) -> None:
    def missing(*args, **kwargs):
        raise CompileError("compiling for cuda:80: python='x' cannot import triton")

    monkeypatch.setattr(validate_module_file, "compile_ttgir", missing)
    with pytest.raises(CompileError) as caught:
        validate_module(_converts(("#b", "#c")))
    assert not isinstance(caught.value, HarnessCompileError)


def test_cli_harness_failure_is_one_line_exit_2(monkeypatch, tmp_path, capsys) -> None:
    def refuse(*args, **kwargs):
        raise CompileError("Triton 3.9.0 failed to compile for cuda:80: boom")

    monkeypatch.setattr(validate_module_file, "compile_ttgir", refuse)
    path = tmp_path / "k.ttgir"
    path.write_text(  # a valid module (the CLI refuses an invalid one before any harness)
        HEADER + "  tt.func public @k() {\n"
        f"    %0 = arith.constant dense<0.000000e+00> : tensor<64x64xf16, {B}>\n"
        f"    %1 = ttg.convert_layout %0 : tensor<64x64xf16, {B}> -> tensor<64x64xf16, {C}>\n"
        "    tt.return\n  }\n}\n"
    )
    assert main(["validate", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "harness kernel llverify built" in err
    assert "Traceback" not in err


def test_default_max_ops_agrees() -> None:
    assert DEFAULT_MAX_OPS == MAX_OPS


def test_audit_progress_lines(monkeypatch) -> None:
    monkeypatch.setattr(analyze, "LONG_LINES", 0)
    monkeypatch.setattr(analyze, "PROGRESS_S", 0.0)
    said: list[str] = []
    report = audit(BIG.read_text(), progress=said.append)
    assert said[0].startswith("reading the module (2711 lines)")
    assert any(line.startswith("audit: ") and " of 1879 ops checked" in line for line in said)
    # control: a short module says nothing
    monkeypatch.setattr(analyze, "LONG_LINES", 20_000)
    quiet: list[str] = []
    audit(BIG.read_text(), progress=quiet.append)
    assert quiet == [] and report.findings


def test_audit_cli_progress_on_stderr_not_with_json(monkeypatch, capsys) -> None:
    monkeypatch.setattr(analyze, "LONG_LINES", 0)
    assert main(["audit", str(BIG)]) == 0
    assert "... reading the module" in capsys.readouterr().err
    for flag in ("--json", "--quiet"):
        assert main(["audit", str(BIG), flag]) == 0
        assert capsys.readouterr().err == ""


def test_repeated_findings_are_those_of_one_audit() -> None:
    # convert-layout and shared-access analyse each distinct pair of types once per audit:
    # the findings of two copies of the body are those of one copy, twice
    one = audit(BIG.read_text())
    two = audit(repeated_module(2))
    for rule in ("convert-layout", "shared-access"):
        a = [(f.status, f.summary, f.cost) for f in one.findings if f.rule == rule]
        b = [(f.status, f.summary, f.cost) for f in two.findings if f.rule == rule]
        assert a and sorted(b) == sorted(a * 2)


@pytest.mark.slow
@pytest.mark.triton
def test_100k_op_module_gets_a_verdict_in_bounded_time() -> None:
    text = module_of_ops(100_000)
    module_ops = len(parse_module(text).ops)
    assert module_ops >= 100_000
    said: list[str] = []
    started = time.process_time()  # CPU time: wall time on a shared machine varies 2-6x
    report = validate_module(text, progress=said.append)
    seconds = time.process_time() - started
    counts = report.counts()
    assert counts["refuted"] == 0 and sum(counts.values()) == 45_252
    assert report.status is Status.PROVED
    assert any("through a twin" in line for line in said)
    assert seconds < 300  # docs/performance.md: 64 s of CPU time measured (CLI, whole run)
    started = time.process_time()
    audited = audit(text)
    assert time.process_time() - started < 300 and audited.findings  # measured: 25 s
