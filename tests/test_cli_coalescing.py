"""``llverify coalescing``: text, JSON, the CI gate, --best, and one-line errors (exit 2)."""

from __future__ import annotations

import json

import pytest

from llverify.cli.main import main

ROW = (
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
COLUMN = (
    "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>"
)


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["coalescing", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_report(capsys):
    code, out, _ = run(capsys, ROW, "--shape", "128x64", "--dtype", "f16", "--json")
    report = json.loads(out)
    assert code == 0 and report["vector_width"] == 8 and report["efficiency"] == 1.0
    assert report["sectors_per_request"] == 16 and report["sectors_histogram"] == {"16": 32}


def test_gate_and_text(capsys):
    code, out, _ = run(
        capsys, COLUMN, "--shape", "128x64", "--dtype", "f32", "--min-efficiency", "0.5"
    )
    assert code == 1 and "32 sectors per request (ideal 4)" in out and "FAILED" in out


def test_best(capsys):
    code, out, _ = run(capsys, "--best", "--shape", "64x64", "--strides", "1,64", "--json")
    report = json.loads(out)
    assert code == 0 and report["certificate"]["status"] == "bound"
    assert "order = [0, 1]" in report["encoding"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((COLUMN, "--shape", "128x64", "--target", "gfx950"), "AMD's vector memory path"),
        ((COLUMN, "--shape", "128x64", "--strides", "1"), "one stride per dim"),
        ((COLUMN, "--shape", "128x64", "--strides", "a,b"), "--strides must look like"),
        (("--shape", "128x64"), "give a LAYOUT, or --best"),
        (("--best",), "--best needs --shape"),
        ((COLUMN, "--best", "--shape", "128x64"), "give no LAYOUT with it"),
        ((COLUMN, "--shape", "128x64", "--base-address", "3"), "multiple of the element's"),
        ((COLUMN, "--shape", "128x64", "--dtype", "f4"), "element_bits"),
        ((COLUMN, "--shape", "128x64", "--warps", "3"), "power of 2"),
        ((COLUMN, "--shape", "128x64", "--min-efficiency", "2"), "from 0 to 1"),
    ],
)
def test_errors_are_one_line_exit_2(capsys, args, words):
    code, out, err = run(capsys, *args)
    assert code == 2 and not out and words in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
