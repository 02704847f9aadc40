"""Every example of every subcommand's ``--help`` runs as written (from an empty directory
with links to the repository's ``llverify``, ``specs`` and ``proofs``, which some examples
name, and, for examples naming ``llverify-examples``, what ``llverify examples`` writes
there: never the repository's ``tests``, which an installed user does not have) and exits as
its ``# exit N`` comment says (0 without one); and every help states its defaults."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from llverify.cli import build_parser
from llverify.cli.args import EXAMPLES_DIR
from llverify.cli.examples_cmd import SHIPPED, shipped_files

ROOT = Path(__file__).resolve().parent.parent


def _subparsers() -> dict[str, object]:
    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.dest == "command"]
    return dict(commands.choices)  # type: ignore[attr-defined]


def _examples(epilog: str) -> list[tuple[str, int]]:
    """(command, expected exit code) of each line of an ``Examples:`` epilog."""
    out = []
    for line in epilog.split("Examples:\n", 1)[1].splitlines():
        command, _, comment = line.strip().partition("   # ")
        match = re.match(r"exit (\d)", comment)
        out.append((command, int(match.group(1)) if match else 0))
    return out


EXAMPLES = [
    (name, command, code)
    for name, sub in _subparsers().items()
    for command, code in _examples(sub.epilog or "Examples:\n")  # type: ignore[attr-defined]
]


def test_every_subcommand_has_examples_and_states_its_defaults() -> None:
    for name, sub in _subparsers().items():
        help_text = sub.format_help()  # type: ignore[attr-defined]
        assert "Examples:\n  llverify " + name in help_text, name
        for action in sub._actions:  # type: ignore[attr-defined]
            if action.default not in (None, False, "==SUPPRESS==") and action.help:
                assert "default" in action.help, (name, action.dest)
    assert "(default f16)" in _subparsers()["convert"].format_help()  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "command", "code"), EXAMPLES, ids=lambda v: str(v)[:40])
def test_help_example_runs(name: str, command: str, code: int, tmp_path: Path) -> None:
    argv = shlex.split(command)
    assert argv[:2] == ["llverify", name]
    for data in ("llverify", "specs", "proofs"):
        (tmp_path / data).symlink_to(ROOT / data)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if EXAMPLES_DIR in command:
        subprocess.run(
            [sys.executable, "-m", "llverify", "examples"], cwd=tmp_path, env=env, check=True
        )
    out = subprocess.run(
        [sys.executable, "-m", "llverify", *argv[1:]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == code, (command, out.stdout[-2000:], out.stderr[-2000:])
    assert "Traceback" not in out.stderr


def test_the_shipped_examples_are_the_test_fixtures() -> None:
    """``llverify examples`` ships copies of tests/data files: they must not drift."""
    sources = {
        "matmul_fp16_sm80.ttgir": ROOT / "tests/data/ttgir/matmul_fp16_sm80.ttgir",
        "matmul_int8_sm90.ttgir": ROOT / "tests/data/ttgir/matmul_int8_sm90.ttgir",
    }
    files = shipped_files()
    assert files and all(not f.name.endswith(".py") for f in files)  # nothing to import
    for name in files:
        source = sources.get(str(name)) or ROOT / "tests/data/inductor_small" / name.relative_to(
            "kernels"
        )
        assert (SHIPPED / name).read_bytes() == source.read_bytes(), name
