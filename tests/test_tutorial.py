"""docs/tutorial.md runs as written: its TOML block is saved where the tutorial says, then
every shell block and every Python block runs from an empty directory and succeeds."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = (ROOT / "docs" / "tutorial.md").read_text()
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", TUTORIAL, flags=re.DOTALL)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """An empty directory with the tutorial's TOML file, and an environment whose
    ``llverify`` and ``python`` are this checkout's."""
    work = tmp_path_factory.mktemp("tutorial")
    bin_dir = work / ".bin"
    bin_dir.mkdir()
    for name, command in (
        ("llverify", f"{sys.executable} -m llverify"),
        ("python", sys.executable),
    ):
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec {command} "$@"\n')
        shim.chmod(0o755)
    (toml,) = [text for lang, text in BLOCKS if lang == "toml"]
    target = re.match(r"# (\S+)\n", toml)
    assert target is not None, "the TOML block's first line names its file"
    (work / target.group(1)).parent.mkdir(parents=True, exist_ok=True)
    (work / target.group(1)).write_text(toml)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
    }
    return work, env


def test_the_tutorial_has_no_placeholders() -> None:
    shell = "\n".join(text for lang, text in BLOCKS if lang == "bash")
    assert "SRC" not in shell and "DST" not in shell and "[--" not in shell
    assert len([lang for lang, _ in BLOCKS if lang == "bash"]) >= 4


@pytest.mark.parametrize(
    "index", [i for i, (lang, _) in enumerate(BLOCKS) if lang in ("bash", "python")]
)
def test_tutorial_block_runs(index: int, workdir: tuple[Path, dict[str, str]]) -> None:
    work, env = workdir
    lang, text = BLOCKS[index]
    command = ["bash", "-euo", "pipefail", "-c", text] if lang == "bash" else [sys.executable]
    out = subprocess.run(
        command,
        input=None if lang == "bash" else text,
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, (text, out.stdout[-2000:], out.stderr[-2000:])
    assert "Traceback" not in out.stderr
