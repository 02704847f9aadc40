"""Hostile command-line inputs get one line on stderr and exit 2, never a traceback: long
inline layout text (never taken for a path), binary and non-UTF-8 files, directories,
devices, files too large, empty arguments, bad ``--timeout`` values (the API refuses the same
time budgets); and output piped into a reader that goes away ends quietly."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from llverify import to_linear_layout
from llverify.bits import MAX_TIMEOUT_S, check_timeout
from llverify.cli import EXIT_USAGE, main
from llverify.cli.args import MAX_INPUT_BYTES
from llverify.cli.main import EXIT_BROKEN_PIPE

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "tests" / "data" / "ttgir" / "matmul_fp16_sm80.ttgir"
ROW = (
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
COL = (
    "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>"
)
SWIZZLED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
BLOCKED_3D = (
    "#ttg.blocked<{sizePerThread = [1, 1, 8], threadsPerWarp = [1, 4, 8], warpsPerCTA = "
    "[2, 2, 1], order = [2, 1, 0]}>"
)
#: Triton's text of a 128x128 blocked layout (404 bytes, many lines) and the JSON of a
#: rank-3 one (one line, 289 bytes: longer than a file name may be).
ROW_TEXT = str(to_linear_layout(ROW, [128, 128]))
COL_TEXT = str(to_linear_layout(COL, [128, 128]))
ROW_JSON = to_linear_layout(BLOCKED_3D, [8, 64, 128]).to_json()
SWIZZLED_3D = SWIZZLED.replace("[1, 0]", "[2, 1, 0]")
NVMMA = (
    "tensor<128x128xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
    "elementBitWidth = 16, CGALayout = [[0, 0]]}>>"
)


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "llverify", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def assert_usage_error(out: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert out.returncode == EXIT_USAGE, (out.stdout[-1000:], out.stderr[-1000:])
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) <= 2, out.stderr  # the error (+ usage hint)
    for needle in needles:
        assert needle in out.stderr, (needle, out.stderr)


# ------------------------------------------------------------ long inline layout text


def test_realistic_layout_text_is_longer_than_a_file_name() -> None:
    assert len(ROW_TEXT.encode()) > 255 and len(ROW_JSON.encode()) > 255
    assert "\n" not in ROW_JSON


@pytest.mark.parametrize(
    "args",
    [
        ("layout", ROW_TEXT, "--view", "none"),
        ("layout", ROW_JSON, "--view", "none", "--json"),
        ("convert", ROW_TEXT, COL_TEXT),
        ("convert", ROW_JSON, ROW_JSON),
        ("swizzle", ROW_TEXT, COL_TEXT),
        ("bank-conflicts", ROW_TEXT, NVMMA),
        ("bank-conflicts", ROW_JSON, SWIZZLED_3D, "--shape", "8x64x128"),
        ("draw", ROW_TEXT, "-o", "{tmp}/row.svg"),
    ],
    ids=["layout-text", "layout-json", "convert", "convert-json", "swizzle", "bank-nvmma",
         "bank-json", "draw"],
)  # fmt: skip
def test_long_inline_layout_text_is_read_as_text(args: tuple[str, ...], tmp_path: Path) -> None:
    out = run(*(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr


def test_long_text_that_is_no_layout_is_a_usage_error() -> None:
    out = run("layout", "x" * 300)
    assert_usage_error(out, "neither a file", "...")
    assert_usage_error(run("layout", "a/" * 3000), "neither a file")


# ------------------------------------------------------- files that are not layout text


@pytest.fixture
def bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (path, what the error says)."""
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(b'{"bases": {"register": [[1]]}, "out_dims": {"dim\xe9": 2}}')
    binary = tmp_path / "binary.ttgir"
    binary.write_bytes(bytes(range(256)))
    big = tmp_path / "big.txt"
    with big.open("wb") as file:
        file.truncate(MAX_INPUT_BYTES + 1)  # sparse: nothing is written, nothing must be read
    return {
        "latin1": (latin1, "not UTF-8 text: byte 0xe9 at offset 48"),
        "binary": (binary, "a NUL byte at offset 0"),
        "big": (big, f"larger than {MAX_INPUT_BYTES} bytes"),
        "null": (Path("/dev/null"), "is a device"),
        "zero": (Path("/dev/zero"), "is a device"),
    }


@pytest.mark.parametrize("kind", ["latin1", "binary", "big", "null", "zero"])
@pytest.mark.parametrize(
    "template",
    [
        ("layout", "{}"),
        ("convert", "{}", ROW, "--shape", "128x64"),
        ("swizzle", ROW, "{}", "--shape", "128x64"),
        ("bank-conflicts", ROW, "{}", "--shape", "128x64"),
        ("draw", "{}", "-o", "out.svg"),
        ("audit", "{}"),
    ],
    ids=lambda t: t[0],
)
def test_unreadable_files_exit_2_naming_the_file(
    template: tuple[str, ...], kind: str, bad_files: dict[str, tuple[Path, str]], tmp_path: Path
) -> None:
    path, reason = bad_files[kind]
    out = run(*(a.replace("{}", str(path)) for a in template), cwd=tmp_path)
    assert_usage_error(out, str(path), reason)
    assert not (tmp_path / "out.svg").exists()


def test_directories_are_refused_where_a_file_is_needed(tmp_path: Path) -> None:
    assert_usage_error(run("audit", str(tmp_path)), str(tmp_path), "is a directory")
    assert_usage_error(run("convert", str(tmp_path), ROW), "is a directory")
    assert_usage_error(run("layout", str(tmp_path)), "holds no")
    records = ("prove", "--check-records", "/dev/zero", str(ROOT / "llverify/specs/examples"))
    assert "'/dev/zero' is a device" in run(*records).stderr


# ------------------------------------------------------------------ empty arguments


@pytest.mark.parametrize(
    "args",
    [
        ("layout", ""),
        ("layout", "  "),
        ("layout", ROW, "", "--shape", "128x64"),
        ("prove", ""),
        ("prove", "--junit", "", "llverify/specs/examples"),
        ("convert", "", ROW, "--shape", "128x64"),
        ("swizzle", ROW, " ", "--shape", "128x64"),
        ("bank-conflicts", ROW, "", "--shape", "128x64"),
        ("audit", ""),
        ("draw", "", "-o", "out.svg"),
        ("draw", ROW, "--shape", "128x64", "-o", ""),
        ("draw", ROW, "--shape", "128x64", "--to", "", "-o", "out.svg"),
    ],
)
def test_empty_arguments_are_refused(args: tuple[str, ...], tmp_path: Path) -> None:
    # the working directory holds a layout and a spec file: an empty path must not find them
    (tmp_path / "l.json").write_text('{"bases": {"register": [[1]]}, "out_dims": {"dim0": 2}}')
    (tmp_path / "s.toml").write_text((ROOT / "specs" / "layouts" / "README.md").read_text())
    assert_usage_error(run(*args, cwd=tmp_path), "must not be empty")
    assert not (tmp_path / "out.svg").exists()


# -------------------------------------------------------------------------- timeouts

TIMEOUT_COMMANDS = [
    ("convert", ROW, COL, "--shape", "128x64"),
    ("swizzle", ROW, COL, "--shape", "128x64"),
    ("draw", ROW, "--to", COL, "--shape", "128x64", "-o", "out.svg"),
    ("audit", str(KERNEL)),
    ("prove", str(ROOT / "llverify" / "specs" / "examples")),
    ("triton-check",),
]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1", "1e9", "ten", ""])
@pytest.mark.parametrize("command", TIMEOUT_COMMANDS, ids=lambda c: c[0])
def test_bad_timeouts_exit_2(
    command: tuple[str, ...],
    value: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([*command, f"--timeout={value}"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "--timeout" in err and "finite number of seconds > 0" in err, err
    assert not (tmp_path / "out.svg").exists()


def test_bad_timeout_in_a_subprocess_has_no_traceback() -> None:
    assert_usage_error(run("convert", ROW, COL, "--shape", "128x64", "--timeout", "nan"), "nan")


def test_check_timeout_is_the_one_rule() -> None:
    assert check_timeout(0.5, "t") == 0.5 and check_timeout(MAX_TIMEOUT_S, "t") == MAX_TIMEOUT_S
    for bad in (math.nan, math.inf, -math.inf, 0, -1.0, MAX_TIMEOUT_S + 1):
        with pytest.raises(ValueError, match="Argument 't' must be a finite number of seconds"):
            check_timeout(bad, "t")
    for wrong in ("60", None, True, [1]):
        with pytest.raises(TypeError, match="Argument 't' must be a number"):
            check_timeout(wrong, "t")
    with pytest.raises(ValueError, match="milliseconds"):
        check_timeout(MAX_TIMEOUT_S * 1000 + 1, "t", milliseconds=True)


def test_api_functions_refuse_bad_time_budgets() -> None:
    from llverify import prove_equal, prove_family_equal, prove_family_property
    from llverify.audit.analyze import audit
    from llverify.draw.api import conversion_picture
    from llverify.proof.family import SWIZZLED_REFERENCE, swizzled_shared_2d
    from llverify.shared_memory.lowering import prove_add_xor_lemma
    from llverify.shared_memory.swizzle import synthesize_swizzle
    from llverify.triton.check import run_triton_check

    layout = to_linear_layout(ROW, [128, 64])
    family = swizzled_shared_2d(4, 2)
    text = KERNEL.read_text()
    seconds = {
        "synthesize_swizzle": lambda t: synthesize_swizzle(ROW, COL, [128, 64], 16, timeout_s=t),
        "audit": lambda t: audit(text, timeout_s=t),
        "conversion_picture": lambda t: conversion_picture(
            ROW, COL, None, [128, 64], 16, timeout_s=t
        ),
        "run_triton_check": lambda t: run_triton_check([], timeout_s=t),
    }
    for name, call in seconds.items():
        for bad in (math.nan, math.inf, 0.0, -5.0):
            with pytest.raises(ValueError, match="'timeout_s'"):
                call(bad)
                pytest.fail(f"{name} accepted timeout_s={bad}")
    milliseconds = {
        "prove_equal": lambda t: prove_equal(layout, layout, timeout_ms=t),
        "prove_family_equal": lambda t: prove_family_equal(
            family, SWIZZLED_REFERENCE, timeout_ms=t
        ),
        "prove_family_property": lambda t: prove_family_property(family, "injective", timeout_ms=t),
        "prove_add_xor_lemma": lambda t: prove_add_xor_lemma(8, timeout_ms=t),
    }
    for name, call in milliseconds.items():
        for bad in (0, -1, 10**12):
            with pytest.raises(ValueError, match="'timeout_ms'"):
                call(bad)
                pytest.fail(f"{name} accepted timeout_ms={bad}")


# ------------------------------------------------------------------- broken pipes

PIPE_COMMANDS = [
    ("layout", ROW, "--shape", "128x64"),
    ("convert", ROW, COL, "--shape", "128x64"),
    ("bank-conflicts", COL, SWIZZLED, "--shape", "128x64"),
    ("swizzle", ROW, COL, "--shape", "128x64"),
    ("triton-check", "--quiet"),
    ("audit", str(KERNEL)),
    ("prove", str(ROOT / "llverify" / "specs" / "examples"), "--quiet"),
    ("draw", ROW, "--shape", "128x64", "-o", "{tmp}/out.svg"),
    ("--help",),  # argparse's help printer ignores the error itself: exit 0
    ("layout", "--help"),
]


@pytest.mark.parametrize("args", PIPE_COMMANDS, ids=lambda a: a[0])
def test_a_reader_that_goes_away_ends_the_output_quietly(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "llverify", *(a.replace("{tmp}", str(tmp_path)) for a in args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # like `| head -0`: before llverify writes anything
    err = process.stderr.read().decode()
    expected = 0 if "--help" in args else EXIT_BROKEN_PIPE
    assert process.wait(timeout=300) == expected, err
    assert err == "" or "Traceback" not in err and "BrokenPipe" not in err, err


def test_json_reports_stay_valid_when_read_whole() -> None:
    out = run("layout", ROW, "--shape", "128x64", "--view", "none", "--json")
    assert json.loads(out.stdout)["bases"]["warp"] == [[4, 0], [8, 0]]
