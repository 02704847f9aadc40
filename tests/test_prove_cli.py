"""``llverify prove`` end to end in subprocesses: exit codes 0/1/2/3, counterexamples,
FILE:LINE errors, --junit, --json, --jobs, --allow-code, the default specs/ directory, and
never a traceback."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llverify.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "llverify" / "specs" / "examples"

BLOCKED4 = (
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
WRONG = f"""\
[[check]]
name = "blocked closed form"
kind = "equivalence"
layout = '{BLOCKED4}'
shape = [128, 64]
reference = {{ dim0 = "(lane // 8) + 4 * warp + 16 * (register // 4)", dim1 = "register % 4 + 4 * (lane % 8)" }}
"""  # noqa: E501
RIGHT = WRONG.replace("16 * (register // 4)", "16 * (register // 8)").replace(
    '4 * (lane % 8)"', '4 * (lane % 8) + 32 * ((register // 4) % 2)"'
)
# the optimum needs a Z3 proof (~50 ms of solving): a 1 ms budget leaves it unknown
SWIZZLE_NEEDS_SOLVER = """\
[[check]]
name = "128x128 f8 swizzle"
kind = "swizzle"
src = "#ttg.blocked<{sizePerThread = [2, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 8], order = [0, 1]}>"
dst = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [8, 1], order = [1, 0]}>"
shape = [128, 128]
dtype = "f8"
"""  # noqa: E501
# true for every input, hard for a bit-vector solver (tests/test_prove.py)
HARD_Z3 = """\
[[check]]
name = "hard for z3"
kind = "equivalence"
method = "z3"
layout = '{"bases": {"register": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0], [256, 0], [512, 0]], "lane": [[1024, 0], [2048, 0], [4096, 0], [8192, 0], [16384, 0], [32768, 0], [65536, 0], [131072, 0], [262144, 0], [524288, 0]], "warp": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128], [0, 256], [0, 512]], "block": [[0, 1024], [0, 2048], [0, 4096], [0, 8192], [0, 16384], [0, 32768], [0, 65536], [0, 131072], [0, 262144], [0, 524288]]}, "out_dims": {"dim0": 1048576, "dim1": 1048576}}'
reference = { dim0 = "((register * (lane + 1)) // (lane + 1)) ^ (lane << 10)", dim1 = "((warp * (block + 1)) // (block + 1)) ^ (block << 10)" }
"""  # noqa: E501


def prove(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "llverify.cli", "prove", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=600,  # the whole built-in library: ~35 s of CPU, minutes on a loaded machine
    )


def _write(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_examples_pass_with_progress_and_summary() -> None:
    result = prove(EXAMPLES)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert lines and all(
        re.fullmatch(r"\[\d+/\d+\] .+ \.\.\. (proved|refuted) \(\d+\.\d\d s\)", x) for x in lines
    ), result.stderr
    assert lines[-1].startswith(f"[{len(lines)}/{len(lines)}] ")
    table = result.stdout
    assert re.search(r"^kind +count +passed +failed +unknown$", table, re.M)
    for kind in ("equivalence", "conversion", "bank_conflicts", "vectorization", "swizzle"):
        assert re.search(rf"^{kind} +\d+ +\d+ +0 +0$", table, re.M), table
    assert "Traceback" not in result.stdout + result.stderr


def test_wrong_layout_exits_1_with_the_counterexample(tmp_path: Path) -> None:
    result = prove(_write(tmp_path, WRONG))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAILED blocked closed form" in result.stdout
    assert re.search(r"spec\.toml:1\): expected proved, got refuted", result.stdout)
    assert re.search(
        r"register=4, lane=0, warp=0, block=0 -> \(0, 32\), reference says "
        r"\(16, 0\)",
        result.stdout,
    )
    # the same spec as a negative control passes
    control = WRONG.replace('kind = "equivalence"', 'kind = "equivalence"\nexpect = "refuted"')
    assert prove(_write(tmp_path, control, "control.toml")).returncode == 0
    assert prove(_write(tmp_path, RIGHT, "right.toml")).returncode == 0


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (WRONG.replace("shape = [128, 64]", "shape = [128, 64, x]"), ":5: ", "invalid TOML"),
        (WRONG.replace("shape = ", "shapes = "), ":5: ", "unknown key 'shapes'"),
        (WRONG.replace("sizePerThread", "sizePerThrd"), ":4: ", "'layout' is not a valid"),
        (WRONG + "[check.grid]\nspt = 3\n", ":8: ", "non-empty array"),
    ],
)
def test_malformed_spec_exits_2_with_file_and_line(
    tmp_path: Path, text: str, where: str, message: str
) -> None:
    path = _write(tmp_path, text)
    result = prove(path, EXAMPLES)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{path}{where}" in result.stderr and message in result.stderr
    assert "nothing was run" in result.stderr and "[1/" not in result.stderr
    assert "Traceback" not in result.stdout + result.stderr


@pytest.mark.parametrize(("text", "timeout"), [(SWIZZLE_NEEDS_SOLVER, "0.001"), (HARD_Z3, "0.001")])
def test_solver_timeout_exits_3(tmp_path: Path, text: str, timeout: str) -> None:
    result = prove(_write(tmp_path, text), "--timeout", timeout)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "UNKNOWN" in result.stdout and "got unknown" in result.stdout
    assert re.search(r"^total +1 +0 +0 +1$", result.stdout, re.M)


def test_failure_wins_over_unknown(tmp_path: Path) -> None:
    _write(tmp_path, SWIZZLE_NEEDS_SOLVER, "a.toml")
    _write(tmp_path, WRONG, "b.toml")
    assert prove(tmp_path, "--timeout", "0.001").returncode == 1


def test_junit_json_and_jobs(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    for example in EXAMPLES.glob("*.toml"):
        (specs / example.name).write_text(example.read_text())
    _write(specs, WRONG, "wrong.toml")
    junit = tmp_path / "out" / "report.xml"
    junit.parent.mkdir()
    serial = prove(specs, "--junit", junit, "--json")
    assert serial.returncode == 1
    report = json.loads(serial.stdout)
    assert report["exit_code"] == 1 and report["spec_errors"] == []
    outcomes = report["outcomes"]
    assert {o["kind"] for o in outcomes} >= {"equivalence", "swizzle", "bank_conflicts"}
    failed = [o for o in outcomes if not o["passed"]]
    assert [(o["name"], o["status"], o["line"]) for o in failed] == [
        ("blocked closed form", "refuted", 1)
    ]
    assert "reference says" in failed[0]["message"]
    assert report["summary"]["total"]["count"] == len(outcomes)
    assert report["summary"]["total"]["failed"] == 1

    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == len(outcomes) == int(root.get("tests", "0"))
    failures = root.findall("./testsuite/testcase/failure")
    assert len(failures) == 1 == int(root.get("failures", "0"))
    assert "reference says" in (failures[0].text or "")
    assert failures[0].get("message", "").startswith("expected proved, got refuted")

    pooled = prove(specs, "--json", "--jobs", "2")
    assert pooled.returncode == 1
    again = json.loads(pooled.stdout)["outcomes"]
    assert [(o["name"], o["status"], o["passed"]) for o in again] == [
        (o["name"], o["status"], o["passed"]) for o in outcomes
    ]


def test_junit_records_spec_errors(tmp_path: Path) -> None:
    junit = tmp_path / "report.xml"
    path = _write(tmp_path, WRONG.replace("kind = ", "knd = "))
    result = prove(path, "--junit", junit)
    assert result.returncode == 2
    error = ET.parse(junit).getroot().find("./testsuite/testcase/error")
    assert error is not None and f"{path}:3: unknown key 'knd' (did you mean 'kind'?)" in (
        error.get("message", "")
    )


def test_reference_function_needs_allow_code(tmp_path: Path) -> None:
    (tmp_path / "my_refs.py").write_text("def lanes(ops, lane):\n    return {'dim0': lane}\n")
    spec = _write(
        tmp_path,
        '[[check]]\nname = "python reference"\nkind = "equivalence"\n'
        'layout = \'{"bases": {"lane": [[1], [2]]}, "out_dims": {"dim0": 4}}\'\n'
        'reference_function = "my_refs:lanes"\n',
    )
    refused = prove(spec, cwd=tmp_path)
    assert refused.returncode == 2
    assert f"{spec}:5: 'reference_function'" in refused.stderr
    assert "--allow-code" in refused.stderr
    allowed = prove(spec, "--allow-code", cwd=tmp_path)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert "1 passed" in allowed.stdout


def test_default_directory_and_usage_errors(tmp_path: Path) -> None:
    """Without PATH the built-in library runs (wherever the command is run from); a user's
    own specs/ is only run when named."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "specs").mkdir()
    _write(repo / "specs", WRONG, "a.toml")
    builtin = prove("--json", cwd=repo)
    assert builtin.returncode == 0, builtin.stdout[-2000:] + builtin.stderr[-2000:]
    files = json.loads(builtin.stdout)["files"]
    assert files and not any(str(repo) in f for f in files)
    named = prove(repo / "specs", cwd=repo)
    assert named.returncode == 1
    for args in (["--timeout", "0"], ["--jobs", "-1"], ["--jobs", "x"], [tmp_path / "nope"]):
        bad = prove(*args, cwd=repo)
        assert bad.returncode == 2, args
        assert "Traceback" not in bad.stderr and bad.stderr.strip()
    _write(tmp_path, "# nothing here\n", "empty.toml")
    assert "no [[check]] tables" in prove(tmp_path / "empty.toml").stderr


def test_garbage_never_prints_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "garbage.toml"
    path.write_bytes(b'[[check]]\nname = "\xff\xfe"\n\x00[[[[\n')
    result = prove(path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and f"{path}:2: " in result.stderr
    deep = _write(tmp_path, "[[check]]\nname = 'x'\nkind = 'conversion'\nsrc = " + "[" * 5000)
    result = prove(deep)
    assert result.returncode == 2 and "Traceback" not in result.stderr


PIECES = [
    "[[check]]\n", "[check.grid]\n", 'name = "n"\n', 'kind = "equivalence"\n',
    'kind = "swizzle"\n', 'kind = "bank_conflicts"\n', 'dtype = "f16"\n', "shape = [128, 64]\n",
    f"layout = '{BLOCKED4}'\n", f"src = '{BLOCKED4}'\n", f"dst = '{BLOCKED4}'\n",
    f"register = '{BLOCKED4}'\n",
    "shared = '#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>'\n",
    'reference = { dim0 = "lane", dim1 = "register" }\n', 'expect = "refuted"\n', "max = 1\n",
    "spt = [1, 2]\n", 'name = "m{spt}"\n', "= ", "[", '"', "\n",
]  # fmt: skip


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12))
def test_fuzz_cli_exit_codes_and_no_traceback(tmp_path_factory, capsys, pieces) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("fuzz") / "f.toml"
    path.write_text("".join(pieces))
    code = main(["prove", str(path), "--timeout", "2", "--quiet"])  # raises on a traceback
    out, err = capsys.readouterr()
    assert code in (0, 1, 2, 3)
    assert "Traceback" not in out + err
    if code == 2:
        assert err.strip()


def test_builtin_library_matches_records() -> None:
    """The README's main job: `llverify prove` with no arguments runs the built-in library
    (every obligation of llverify.specs + its **/*.toml) and matches the committed records."""
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-m", "llverify.cli", "prove", "-q", "--json",
         "--check-records", "proofs/records.json"],
        capture_output=True, text=True, cwd=root, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    report = json.loads(out.stdout)
    assert report["record_regressions"] == []
    total = report["summary"]["total"]
    assert total["passed"] == total["count"] >= 900
    kinds = {o["kind"] for o in report["outcomes"]}
    assert {"library equivalence", "library family", "swizzle", "conversion"} <= kinds
    refuted = [o for o in report["outcomes"] if o["expected"] == "refuted"]
    assert len(refuted) >= 30 and all(o["status"] == "refuted" for o in refuted)


def test_check_records_reports_a_regression(tmp_path) -> None:
    root = Path(__file__).resolve().parent.parent
    spec = root / "llverify" / "specs" / "examples" / "conversion.toml"
    records = tmp_path / "records.json"
    first = subprocess.run(
        [sys.executable, "-m", "llverify.cli", "prove", "-q", str(spec), "--record", str(records)],
        capture_output=True, text=True, cwd=root, timeout=300,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    data = json.loads(records.read_text())
    key = next(iter(data))
    data[key.replace("::", "::gone ")] = data[key]  # a recorded proof that no longer runs
    records.write_text(json.dumps(data))
    second = subprocess.run(
        [sys.executable, "-m", "llverify.cli", "prove", "-q", str(spec), "--check-records",
         str(records)],
        capture_output=True, text=True, cwd=root, timeout=300,
    )  # fmt: skip
    assert second.returncode == 1
    assert "REGRESSION" in second.stdout and "no longer checked" in second.stdout


@pytest.mark.slow
def test_the_installed_package_runs_the_builtin_library(tmp_path: Path) -> None:
    """``pip install .`` without -e: what setuptools puts in site-packages (``build_py``,
    the step that fills a wheel: packages and their package data, offline) holds the spec
    modules and every TOML file of the library, and ``llverify prove`` run from it, in
    another directory, matches the committed records."""
    source = tmp_path / "source"  # a copy: building writes llverify.egg-info next to it
    shutil.copytree(
        ROOT / "llverify", source / "llverify", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    site = tmp_path / "site"
    build = [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py"]
    built = subprocess.run(
        [*build, "--build-lib", str(site)], cwd=source, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    specs, here = site / "llverify" / "specs", ROOT / "llverify" / "specs"
    assert {p.name for p in specs.glob("*.py")} == {p.name for p in here.glob("*.py")}
    tomls = {p.relative_to(here).as_posix() for p in here.rglob("*.toml")}
    assert {"library/conversions.toml", "examples/swizzle.toml"} <= tomls
    assert {p.relative_to(specs).as_posix() for p in specs.rglob("*.toml")} == tomls
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        "import sys, llverify\n"
        "assert llverify.__file__.startswith(sys.argv[1]), llverify.__file__\n"
        "from llverify.cli import main\n"
        "sys.exit(main(sys.argv[2:]))\n"
    )
    records = ROOT / "proofs" / "records.json"
    out = subprocess.run(
        [sys.executable, "-c", code, str(site), "prove", "-q", "--jobs", "2", "--json",
         "--check-records", str(records)],
        capture_output=True, text=True, cwd=elsewhere, timeout=600,
        env={**os.environ, "PYTHONPATH": str(site)},
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    report = json.loads(out.stdout)
    assert report["record_regressions"] == []
    assert report["summary"]["total"]["count"] == len(json.loads(records.read_text()))
