"""What the command prints: ``--json`` keeps lists of numbers on one line (valid JSON, the
same content), large views are summarised (``--max-cells``), counts agree with their nouns,
and ``python -m llverify`` is the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from llverify.cli.output import to_json

ROOT = Path(__file__).resolve().parent.parent
ROW = (
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
PADDED = "#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [128, 64]}>"
COL = (
    "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>"
)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "llverify", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=30,
)


@given(JSON_VALUES)
def test_to_json_is_json_with_the_same_content(value: object) -> None:
    assert json.loads(to_json(value)) == value


def test_layout_json_writes_bases_on_one_line() -> None:
    out = run("layout", ROW, "--shape", "128x64", "--view", "none", "--json")
    assert out.returncode == 0, out.stderr
    assert '    "warp": [[4, 0], [8, 0]],' in out.stdout.splitlines()
    report = json.loads(out.stdout)
    assert len(out.stdout.splitlines()) < 60 < len(json.dumps(report, indent=2).splitlines())


def test_large_views_are_summarised_unless_asked() -> None:
    out = run("layout", ROW, "--shape", "1024x1024")
    assert out.returncode == 0, out.stderr
    assert len(out.stdout) < 1_000_000  # the whole views are 25 MB
    assert out.stdout.count("... 1032192 more cells not shown (16384 of 1048576)") == 2
    assert "pass --max-cells 0 to print every cell" in out.stdout
    small = run("layout", ROW, "--shape", "128x64")
    assert "not shown" not in small.stdout and "--max-cells" not in small.stdout
    every = run("layout", ROW, "--shape", "256x256", "--max-cells", "0", "--view", "tensor")
    assert "not shown" not in every.stdout and every.stdout.count(":") > 256 * 256
    assert run("layout", ROW, "--shape", "128x64", "--max-cells", "-1").returncode == 2


def test_counts_agree_with_their_nouns() -> None:
    out = run("bank-conflicts", COL, PADDED, "--shape", "128x64")
    assert out.returncode == 0, out.stderr
    assert "16-bit accesses (1 element), 256 instructions, 1 pass each" in out.stdout
    assert "(1 elements)" not in out.stdout and "pass(es)" not in out.stdout
    gate = run(
        "audit",
        str(ROOT / "tests/data/ttgir/matmul_fp16_gfx950.ttgir"),
        "--max-bank-conflicts",
        "0",
    )
    assert "ttg.local_load [shared-access]: 1 bank conflict > --max-bank-conflicts 0" in gate.stdout
    assert "1 bank conflicts" not in gate.stdout and "1 conflicts" not in gate.stdout


def test_python_dash_m_llverify_is_the_command() -> None:
    out = run("--version")
    assert out.returncode == 0 and out.stdout.startswith("llverify ")
    assert run("layout", "--help").stdout.startswith("usage: ")
