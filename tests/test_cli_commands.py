"""End-to-end tests of ``llverify convert``, ``bank-conflicts`` and ``swizzle`` in
subprocesses: golden text, JSON output, exit codes (0 ok, 1 failed, 2 bad input)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

B_ROW = (
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
B_COL = (
    "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>"
)
SWIZZLED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "llverify.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_help_lists_the_subcommands_and_exit_codes() -> None:
    out = run("--help")
    assert out.returncode == 0
    for name in ("layout", "convert", "bank-conflicts", "swizzle", "Exit codes"):
        assert name in out.stdout


def test_convert_shared_memory_text() -> None:
    out = run("convert", B_ROW, B_COL, "--shape", "128x64", "--dtype", "f16")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "kind: shared memory"
    assert lines[1].startswith("dst(cvt(x)) == src(x): proved by gf2")
    assert lines[2].startswith("every destination element has a source: proved by gf2")
    assert "  store: 32-bit vectors, 0 conflicts, 128 wavefronts (1 per instruction)" in lines
    assert any(line.startswith("  certificate: ") for line in lines)
    gluon = "  gluon: ttgl.SharedLinearLayout(offset_bases=[["
    assert any(line.startswith(gluon) for line in lines)


def test_convert_json_schema_and_shuffle_plan() -> None:
    src = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>"  # noqa: E501
    dst = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>"  # noqa: E501
    out = run("convert", src, dst, "--shape", "32x32", "--dtype", "f16", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert set(report) >= {"kind", "verify", "coverage", "cvt", "shape", "element_bits"}
    assert report["kind"] == "warp shuffle"
    plan = report["shuffle_plan"]
    assert plan["rounds"] == plan["min_rounds"] == plan["ideal_rounds"]
    assert plan["verify"]["status"] == "proved"


def test_convert_refuted_exits_1_with_counterexample(tmp_path) -> None:
    # the destination holds only half of the source's elements: refuted, exit 1
    src = tmp_path / "src.json"
    dst = tmp_path / "dst.json"
    src.write_text(json.dumps({"bases": {"register": [[1], [2]]}, "out_dims": {"dim0": 4}}))
    dst.write_text(json.dumps({"bases": {"register": [[1], [0]]}, "out_dims": {"dim0": 4}}))
    out = run("convert", str(src), str(dst), "--dtype", "f32")
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert "refuted" in out.stdout and "register=2" in out.stdout


def test_bank_conflicts_text_json_and_gate() -> None:
    args = ("bank-conflicts", B_COL, SWIZZLED, "--shape", "128x64", "--dtype", "f16")
    out = run(*args)
    assert out.returncode == 0, out.stderr
    assert "bank conflicts per wavefront: 7 (Triton's count: 7)" in out.stdout
    assert "sm_90 load (measured model, docs/hardware.md): ld.shared (16 bits per lane), 256 " in (
        out.stdout
    )
    report = json.loads(run(*args, "--json").stdout)
    assert report["conflicts"] == 7 and report["wavefronts"] == 2048
    assert report["sm90"]["store"]["wavefronts"] == report["sm90"]["load"]["wavefronts"] == 2048
    gated = run(*args, "--max-conflicts", "0")
    assert gated.returncode == 1 and "FAILED" in gated.stdout


def test_swizzle_json() -> None:
    out = run("swizzle", B_ROW, B_COL, "--shape", "128x64", "--dtype", "f16", "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["store_conflicts"] == summary["load_conflicts"] == 0
    assert summary["certificate"]["status"] in ("proved", "bound")
    assert summary["ttgir"].startswith("#ttg.shared_linear<")


@pytest.mark.parametrize(
    "args",
    [
        ("convert", B_ROW, B_COL),  # no shape for encodings
        ("convert", B_ROW, B_COL, "--shape", "128x", "--dtype", "f16"),
        ("convert", B_ROW, B_COL, "--shape", "128x64", "--dtype", "f12"),
        ("swizzle", B_ROW, "nonsense", "--shape", "128x64"),
        ("bank-conflicts", B_COL, SWIZZLED, "--shape", "128x64", "--target", "sm90"),
        ("swizzle", B_ROW, B_COL, "--shape", "128x64", "--dtype", "f16", "--vector", "x"),
    ],
)
def test_bad_input_exits_2_without_traceback(args) -> None:
    out = run(*args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    assert "llverify" in out.stderr


@pytest.mark.parametrize("command", ["convert", "swizzle"])
def test_layouts_of_two_kernels_exit_2_with_one_line(command: str) -> None:
    """A 4-warp source with an 8-warp destination was "proved" (issue 18): now one line
    naming both layouts' counts, exit 2."""
    eight = B_ROW.replace("warpsPerCTA = [4, 1]", "warpsPerCTA = [1, 8]")
    out = run(command, B_ROW, eight, "--shape", "64x64")
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stdout == "" and len(out.stderr.splitlines()) == 1, out.stderr
    assert "one kernel" in out.stderr
    assert "warp=4, block=1 ('SRC')" in out.stderr and "warp=8, block=1 ('DST')" in out.stderr
