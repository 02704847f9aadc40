"""The llverify command line: the layout subcommand, exit codes and help."""

import json
import subprocess
import sys
from pathlib import Path

from llverify import LinearLayout
from llverify.cli import EXIT_OK, EXIT_USAGE, main

SPECS = Path(__file__).resolve().parent.parent / "specs" / "layouts"


def test_layout_prints_triton_text_and_properties(capsys, tmp_path):
    layout = LinearLayout.from_bases([("lane", [[1], [0]])], ["dim0"])
    path = tmp_path / "l.json"
    path.write_text(layout.to_json())
    assert main(["layout", str(path)]) == EXIT_OK
    out = capsys.readouterr().out
    assert " - lane=1 -> (1)\n   lane=2 -> (0)\nwhere out dims are: [dim0 (size 2)]" in out
    assert "injective=False" in out
    assert "lane=0b10" in out


def test_layout_reads_triton_text_inline(capsys):
    text = str(LinearLayout.identity_1d(4, "register", "dim0"))
    assert main(["layout", text, "--json"]) == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert report["bases"] == {"register": [[1], [2]]}
    assert report["invertible"] is True


def test_layout_runs_on_the_builtin_specs(capsys):
    assert main(["layout", str(SPECS), "--json"]) == EXIT_OK
    reports = json.loads(capsys.readouterr().out)
    assert len(reports) == len(list(SPECS.glob("*.json")))
    assert all(r["surjective"] for r in reports)


def test_bad_input_exits_2_with_a_message(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"bases": {"lane": [[4]]}, "out_dims": {"dim0": 2}}')
    assert main(["layout", str(bad)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "bad.json" in err and "less than its size" in err
    assert main(["layout", "no-such-file"]) == EXIT_USAGE
    assert "neither a file" in capsys.readouterr().err


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == EXIT_USAGE
    assert "layout" in capsys.readouterr().out


def test_console_script_help_runs():
    result = subprocess.run(
        [sys.executable, "-m", "llverify.cli", "layout", "--help"], capture_output=True, text=True
    )
    assert result.returncode == 0
    assert "Triton's LinearLayout text" in result.stdout


def test_layout_of_an_encoding_in_ttgir_text(capsys):
    text = (
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
        "order = [1, 0]}>"
    )
    assert main(["layout", text, "--shape", "128x64", "--json"]) == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert report["closed_form"]["dim1"] == "(register & 7) ^ ((lane & 7) << 3)"
    assert main(["layout", "tensor<128x64xf16, " + text + ">", "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["bases"]["warp"] == [[4, 0], [8, 0]]


def test_encoding_errors_exit_2(capsys):
    text = "#ttg.blocked<{sizePerThread = [1, 8]}>"
    assert main(["layout", text, "--shape", "128x64"]) == EXIT_USAGE
    assert "missing field" in capsys.readouterr().err
    assert main(["layout", text]) == EXIT_USAGE
    assert "needs --shape" in capsys.readouterr().err
    assert main(["layout", text, "--shape", "12xq"]) == EXIT_USAGE
    assert "--shape must look like" in capsys.readouterr().err
