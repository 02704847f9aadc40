"""Every benchmark script the documentation names still runs (issue 26, item 6).

The docs (``docs/*.md``, ``README.md``) cite benchmark scripts with the figures they printed.
This test finds every ``benchmarks/...`` path they name and runs each CPU benchmark once with
the smallest arguments that still make it do its real work (``SMOKE``), in a child process:
it must exit 0 (or 3, ``TARGET_MISSED``, for the scripts that judge time targets: times are
never checked here), print its table, and print no traceback.  The GPU scripts
(``benchmarks/gpu/``) need the H100/H200 machine: here they must exist and compile.

A documented script without a row in ``SMOKE`` fails the test, so a new benchmark cited in the
docs gets its smoke run too.
"""

from __future__ import annotations

import py_compile
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CITED = re.compile(r"benchmarks/[\w/]+\.(?:py|sh)")
#: the exit status of a benchmark whose run worked but missed a time target
TARGET_MISSED = 3

# script -> (arguments of the smallest real run, a line its output must contain,
#            whether it judges time targets by its exit status)
SMOKE: dict[str, tuple[list[str], str, bool]] = {
    "benchmarks/bench_access.py": (["--cases", "10"], "us/pair", False),
    "benchmarks/bench_audit.py": (["--repeat", "1"], "matmul", False),
    "benchmarks/bench_bank_query.py": (["--samples", "1", "--calls", "1"], "tensor", False),
    "benchmarks/bench_bank_query_tv.py": (["--samples", "1", "--calls", "1"], "tensor", False),
    "benchmarks/bench_core.py": (["--repeat", "1"], "worst ratio", True),
    "benchmarks/bench_corpus.py": (
        ["--every", "400", "--jobs", "2", "--kernel-timeout", "20"],
        "kernels/min",
        False,
    ),
    "benchmarks/bench_encodings.py": (["--repeat", "1", "--no-proofs"], "worst", True),
    "benchmarks/bench_import.py": (["--runs", "1"], "import llverify", False),
    "benchmarks/bench_kernels.py": (["2R2WN36577", "--timeout", "120"], "cpu ratio", False),
    "benchmarks/bench_memory.py": (["--only", "bank-conflicts padded"], "bank-conflicts", False),
    "benchmarks/bench_prove.py": (["--repeat", "1"], "parametric proof", True),
    "benchmarks/bench_swizzle.py": (["--cases", "3"], "p95", False),
    "benchmarks/bench_validate.py": (["--repeat", "1", "softmax_fp32_sm80"], "softmax", False),
}


def documented_scripts() -> list[str]:
    """The benchmark scripts the README and docs name, each once."""
    found: set[str] = set()
    for document in DOCUMENTS:
        found.update(CITED.findall(document.read_text(encoding="utf-8")))
    return sorted(found)


DOCUMENTED = documented_scripts()
CPU_SCRIPTS = [s for s in DOCUMENTED if not s.startswith("benchmarks/gpu/")]
GPU_SCRIPTS = [s for s in DOCUMENTED if s.startswith("benchmarks/gpu/")]


def test_the_docs_cite_benchmarks_and_each_exists() -> None:
    assert len(CPU_SCRIPTS) >= 10 and len(GPU_SCRIPTS) >= 5  # the regex still finds them
    missing = [s for s in DOCUMENTED if not (ROOT / s).is_file()]
    assert missing == [], f"documented but missing: {missing}"


def test_every_documented_cpu_benchmark_has_a_smoke_run() -> None:
    assert sorted(set(CPU_SCRIPTS) - set(SMOKE)) == []
    assert sorted(set(SMOKE) - set(CPU_SCRIPTS)) == []  # no row for an undocumented script


@pytest.mark.slow
@pytest.mark.parametrize("script", CPU_SCRIPTS)
def test_a_documented_benchmark_runs(script: str) -> None:
    arguments, expected, judges_targets = SMOKE[script]
    run = subprocess.run(
        [sys.executable, str(ROOT / script), *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = run.stdout + run.stderr
    allowed = (0, TARGET_MISSED) if judges_targets else (0,)
    assert run.returncode in allowed, f"{script} exited {run.returncode}:\n{output[-3000:]}"
    assert "Traceback" not in output, output[-3000:]
    assert expected in run.stdout, f"{script} printed no {expected!r}:\n{run.stdout[-3000:]}"


@pytest.mark.parametrize("script", [s for s in GPU_SCRIPTS if s.endswith(".py")])
def test_a_documented_gpu_benchmark_compiles(script: str, tmp_path: Path) -> None:
    py_compile.compile(str(ROOT / script), cfile=str(tmp_path / "x.pyc"), doraise=True)


@pytest.mark.parametrize("script", [s for s in GPU_SCRIPTS if s.endswith(".sh")])
def test_a_documented_gpu_shell_script_parses(script: str) -> None:
    assert subprocess.run(["bash", "-n", str(ROOT / script)], timeout=30).returncode == 0
