"""``llverify validate``: exit codes (0 proved, 2 bad input, 3 unknown under
--require-proofs), the JSON report, and one-line errors without a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.cli import EXIT_OK, EXIT_UNKNOWN, EXIT_USAGE, main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "data" / "ttgir"

# a gfx1250 (wave32) convert from WMMA whose emitted code calls llvm.amdgcn.wave.id and
# llvm.amdgcn.permlane16.swap in 32-lane waves, neither of which the executor models (its
# permlane16.swap is CDNA4's, in 64-lane waves)
UNMODELLED = """\
#linear = #ttg.linear<{register = [[0, 1], [0, 2], [0, 8], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4]], warp = [[16, 0]], block = []}>
#mma = #ttg.amd_wmma<{version = 3, ctaLayout = {warp = [[1, 0]]}, isTranspose = true, instrShape = [16, 16, 32]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 2 : i32, ttg.target = "hip:gfx1250", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<32x32xf16, #mma>) {
    %y = ttg.convert_layout %x : tensor<32x32xf16, #mma> -> tensor<32x32xf16, #linear>
    tt.return
  }
}
"""  # noqa: E501


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``llverify`` as a user does, in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "llverify.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )


def test_a_proved_module_exits_0_with_a_json_report(capsys) -> None:
    require_triton()
    path = FIXTURES / "softmax_fp32_sm80.ttgir"
    assert main(["validate", str(path), "--json"]) == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "proved" and report["exit_code"] == EXIT_OK
    assert report["counts"]["refuted"] == report["counts"]["unknown"] == 0
    assert report["ops"] and {op["status"] for op in report["ops"]} == {"proved"}
    assert {op["op"] for op in report["ops"]} == {"tt.reduce"}
    assert report["target"] == "cuda:80" and report["triton"].startswith("3.9")


def test_an_unmodelled_op_is_unknown_and_exits_3_under_require_proofs(tmp_path) -> None:
    require_triton()
    path = tmp_path / "permlane.ttgir"
    path.write_text(UNMODELLED)
    result = cli("validate", str(path), "--json", "--require-proofs")
    assert result.returncode == EXIT_UNKNOWN, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "unknown" and report["exit_code"] == EXIT_UNKNOWN
    [op] = report["ops"]
    assert op["op"] == "ttg.convert_layout" and op["status"] == "unknown"
    assert "call to llvm.amdgcn." in op["reason"]


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == EXIT_USAGE
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("llverify: error: ")
    return lines[0]


def test_a_missing_file_exits_2_with_one_line(tmp_path) -> None:
    message = one_line_error(cli("validate", str(tmp_path / "missing.ttgir")))
    assert "missing.ttgir" in message


@pytest.mark.parametrize("keep", [1, 20])
def test_a_truncated_module_exits_2_with_one_line(tmp_path, keep: int) -> None:
    lines = (FIXTURES / "softmax_fp32_sm80.ttgir").read_text().splitlines()
    path = tmp_path / "truncated.ttgir"
    path.write_text("\n".join(lines[:keep]) + "\n")
    message = one_line_error(cli("validate", str(path)))
    assert "truncated.ttgir" in message


def test_a_kernel_file_without_a_function_exits_2(tmp_path) -> None:
    path = tmp_path / "kernel.py"
    path.write_text("")
    message = one_line_error(cli("validate", str(path)))
    assert "--function" in message


def test_audit_emitted_adds_the_validation_of_every_op(capsys) -> None:
    """``llverify audit --emitted``: the audit's findings plus the emitted code's verdicts."""
    require_triton()
    path = FIXTURES / "transpose_fp16_sm90.ttgir"
    assert main(["audit", str(path), "--emitted", "--json"]) == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert report["emitted"]["status"] == "proved"
    assert report["emitted"]["counts"] == {"proved": 8, "refuted": 0, "unknown": 0}
    assert report["violations"] == []
    assert main(["audit", str(path), "--emitted"]) == EXIT_OK
    assert "emitted code (llverify validate):" in capsys.readouterr().out


def test_audit_emitted_with_an_unmodelled_op_exits_3_under_require_proofs(tmp_path) -> None:
    require_triton()
    module = tmp_path / "k.ttgir"
    module.write_text(UNMODELLED)
    assert main(["audit", str(module), "--emitted", "--require-proofs"]) == EXIT_UNKNOWN


def test_a_dump_with_an_unmodelled_instruction_is_unknown_naming_it(tmp_path) -> None:
    """va_arg (no semantics here) makes the kernel unknown: exit 3 under --require-proofs,
    never the bad-input exit 2 or a traceback."""
    path = tmp_path / "k.llir"
    path.write_text(
        "define ptx_kernel void @k(ptr addrspace(1) %0) #0 {\n"
        "  %2 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %3 = va_arg ptr addrspace(1) %0, i32\n"
        "  store i32 %3, ptr addrspace(1) %0, align 4\n"
        "  ret void\n"
        "}\n"
        'attributes #0 = { "nvvm.reqntid"="32" }\n'
    )
    result = cli("validate", str(path), "--json", "--require-proofs")
    assert result.returncode == EXIT_UNKNOWN, result.stderr
    assert "Traceback" not in result.stderr
    [op] = json.loads(result.stdout)["ops"]
    assert op["status"] == "unknown" and "instruction 'va_arg'" in op["reason"]


def test_a_dump_whose_private_array_is_indexed_out_of_bounds_is_refuted(tmp_path) -> None:
    """alloca is private memory now: lanes 4..31 index past a [4 x i32] array (exit 1)."""
    path = tmp_path / "k.llir"
    path.write_text(
        "define ptx_kernel void @k(ptr addrspace(1) %0) #0 {\n"
        "  %2 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %3 = alloca [4 x i32], align 16\n"
        "  %4 = getelementptr i32, ptr %3, i32 %2\n"
        "  store i32 %2, ptr %4, align 4\n"
        "  ret void\n"
        "}\n"
        'attributes #0 = { "nvvm.reqntid"="32" }\n'
    )
    result = cli("validate", str(path), "--json")
    assert result.returncode == 1, result.stderr
    [op] = json.loads(result.stdout)["ops"]
    assert op["status"] == "refuted" and "out of bounds" in op["reason"]
