"""The bad-input suite: every subcommand and the main public API functions over the generated
corpus of hostile inputs (``cases.hostile``), each case in a forked child under a time and a
memory bound (``cases.sandbox``).

* command lines exit 2 with one line on stderr (``llverify...: ...``), no traceback on stdout
  or stderr, and write nothing (the working directory stays empty, the inputs unchanged);
* API calls raise an ``LLVerifyError`` that is a ValueError or TypeError and whose message
  names the argument;
* mismatched warp, lane or block counts are refused, never proved.
"""

from __future__ import annotations

import contextlib
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cases.hostile import (
    API_CASES,
    IN,
    ApiCase,
    CliCase,
    Pipe,
    cli_cases,
    large_module_api_cases,
    large_module_cli_cases,
)
from cases.sandbox import MEMORY_LIMIT_BYTES, TIME_LIMIT_S, Result, Sandbox
from llverify.errors import LLVerifyError

CLI_CASES = cli_cases()
MAX_ERROR_CHARS = 2000  # one readable line, not the echo of a multi-MB argument


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    server = Sandbox()
    yield server
    server.close()


def _tree(root: Path) -> dict[str, int]:
    """Every path under ``root`` with its size (-1 for folders and pipes)."""
    return {
        str(p.relative_to(root)): p.stat().st_size if p.is_file() else -1
        for p in sorted(root.rglob("*"))
    }


def _feed(path: Path, pipe: Pipe) -> None:
    """Write ``pipe``'s data into the FIFO ``path`` once a reader opens it."""
    try:
        with open(path, "wb") as out:
            out.write(pipe.data)
            while pipe.endless:
                out.write(pipe.data)
    except OSError:  # the reader went away (BrokenPipeError)
        pass


@contextlib.contextmanager
def _prepared(case: CliCase, tmp_path: Path) -> Iterator[tuple[list[str], Path, Path]]:
    """The case's argv, empty working directory and log folder; its input files (FIFOs with
    their writers) in a folder of their own, the writers stopped afterwards."""
    inputs, work, logs = tmp_path / "in", tmp_path / "work", tmp_path / "logs"
    for folder in (inputs, work, logs):
        folder.mkdir()
    writers = []
    for name, content in case.files:
        path = inputs / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Pipe):
            os.mkfifo(path)
            writer = threading.Thread(target=_feed, args=(path, content), daemon=True)
            writer.start()
            writers.append((path, writer))
        else:
            path.write_bytes(content)
    argv = [str(inputs) + "/" + a[len(IN) :] if a.startswith(IN) else a for a in case.argv]
    try:
        yield argv, work, logs
    finally:
        for path, writer in writers:  # a writer still waits for a reader, or writes: end it
            while writer.is_alive():
                reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                writer.join(0.05)
                os.close(reader)
                writer.join(0.05)


def _describe(result: Result) -> str:
    return (
        f"exit {result.status} in {result.seconds:.1f} s, peak RSS {result.max_rss_mb:.0f} MB\n"
        f"--- stderr ---\n{result.stderr[-3000:]}\n--- stdout ---\n{result.stdout[-1500:]}"
    )


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_command_line_refuses_hostile_input(case: CliCase, sandbox: Sandbox, tmp_path) -> None:
    with _prepared(case, tmp_path) as (argv, work, logs):
        inputs_before = _tree(tmp_path / "in")
        result = sandbox.run_cli(argv, work, logs)
    about = _describe(result)
    violation = result.bound_violation()
    assert violation is None, f"{violation}\n{about}"
    for stream, text in (("stderr", result.stderr), ("stdout", result.stdout)):
        assert "Traceback" not in text, f"a traceback on {stream}\n{about}"
    allowed = (0, 2, 3) if case.accept else (1, 2) if case.gate else (2,)
    assert result.status in allowed, f"exit {result.status}, expected {allowed}\n{about}"
    if result.status == 1:
        assert "VIOLATION" in result.stdout, f"exit 1 without a VIOLATION line\n{about}"
    if result.status == 2:
        error = result.stderr.rstrip("\n")
        if not (case.report and not error and "ERROR" in result.stdout):
            assert error and "\n" not in error, f"the error is not one line on stderr\n{about}"
        assert len(error) <= MAX_ERROR_CHARS, f"a {len(error)}-character error line\n{about}"
        written = _tree(work)
        assert not written, f"files written on failure: {sorted(written)}\n{about}"
        for output in case.outputs:
            assert not (work / output).exists(), f"{output} written on failure\n{about}"
    if case.max_stdout is not None:
        size = len(result.stdout)
        assert size <= case.max_stdout, f"{size} characters on stdout\n{about}"
    assert _tree(tmp_path / "in") == inputs_before, f"the inputs changed\n{about}"


@pytest.mark.parametrize("case", list(API_CASES.values()), ids=list(API_CASES))
def test_api_refuses_hostile_input(case: ApiCase, sandbox: Sandbox, tmp_path) -> None:
    work, logs = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    logs.mkdir()
    result = sandbox.run_api(case.id, work, logs)
    about = _describe(result)
    violation = result.bound_violation()
    assert violation is None, f"{violation}\n{result.api}\n{about}"
    assert result.status == 0 and result.api is not None, f"the child crashed\n{about}"
    outcome = result.api
    assert outcome["outcome"] == "raised", f"returned {outcome['value']} instead of raising"
    where = f"{outcome['mro'][0]}: {outcome['message'][:1500]}\n{outcome['traceback']}"
    assert "llverify.errors.LLVerifyError" in outcome["mro"], f"not an LLVerifyError: {where}"
    assert outcome["value_or_type_error"], f"neither a ValueError nor a TypeError: {where}"
    message = outcome["message"]
    assert any(name in message for name in case.names), f"names none of {case.names}: {where}"
    for word in case.forbid:
        assert word not in message, f"says {word!r}: {where}"
    assert len(message) <= MAX_ERROR_CHARS, f"a {len(message)}-character message: {where}"
    assert not _tree(work), f"files written: {sorted(_tree(work))}"


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


FIDELITY = ["convert:bad-target", "layout:missing", "convert--timeout=nan", "draw-o=out.bmp"]


@pytest.mark.parametrize("case_id", FIDELITY)
def test_sandbox_runs_cases_as_the_console_script(case_id: str, sandbox: Sandbox, tmp_path) -> None:
    """The forked child answers as a fresh ``python -m llverify.cli`` process does."""
    case = next(c for c in CLI_CASES if c.id == case_id)
    with _prepared(case, tmp_path) as (argv, work, logs):
        forked = sandbox.run_cli(argv, work, logs)
    real = subprocess.run(
        [sys.executable, "-m", "llverify.cli", *argv],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT_S,
        preexec_fn=_limit_memory,
        check=False,
    )
    assert (forked.status, forked.stderr) == (real.returncode, real.stderr)  # stdout has times


# --- issue 27: names (user code runs only when asked, misplaced errors) ---------------------

ROOT = Path(__file__).resolve().parents[1]
MARKER = "RAN"
#: top-level code that leaves the file RAN in the working directory when it runs
RUN_MARKER = f'open("{MARKER}", "w").write("user code ran")\n'


def _loop(folder: Path, name: str) -> Path:
    """A symlink loop named ``name`` (``name`` -> ``name.b`` -> ``name``) in ``folder``."""
    (folder / f"{name}.b").symlink_to(folder / name)
    (folder / name).symlink_to(folder / f"{name}.b")
    return folder / name


@pytest.mark.parametrize(
    "argv",
    [
        ("validate", "@loop.py", "--allow-code", "--function", "k"),
        ("validate", "@loop.py", "--function", "k"),
        ("validate", "@loop.ttgir"),
        ("validate", "@loop.llir"),
        ("audit", "@loop.ttgir"),
        ("layout", "@loop.json"),
        ("prove", "@loop.toml"),
    ],
    ids=lambda argv: "-".join(a.lstrip("@-") for a in argv[:2]),
)
def test_a_symlink_loop_is_one_line_exit_2(argv, sandbox: Sandbox, tmp_path) -> None:
    inputs, work, logs = tmp_path / "in", tmp_path / "work", tmp_path / "logs"
    for folder in (inputs, work, logs):
        folder.mkdir()
    args = [str(_loop(inputs, a[1:])) if a.startswith("@") else a for a in argv]
    result = sandbox.run_cli(args, work, logs)
    about = _describe(result)
    assert result.status == 2, about
    error = result.stderr.rstrip("\n")
    assert "\n" not in error and "Traceback" not in error, about
    assert "symbolic links" in error, about
    assert not _tree(work), about


def _cli(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "LLVERIFY_ALLOW_CODE"}
    environment["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "llverify", *argv],
        cwd=cwd,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT_S * 3,
        check=False,
    )


def test_a_missing_kernel_file_is_no_such_file_not_a_compile_failure(tmp_path) -> None:
    result = _cli(["validate", "gone.py", "--allow-code", "--function", "k"], tmp_path)
    assert result.returncode == 2
    assert "No such file or directory" in result.stderr and "Triton" not in result.stderr


def test_a_python_kernel_runs_only_with_allow_code(tmp_path) -> None:
    """Without --allow-code (or LLVERIFY_ALLOW_CODE=1) nothing of the file runs; with it, and
    only then, the file is imported (positive control: the marker appears)."""
    from cases.hostile import KERNEL_ARGS, RUNS
    from cases.triton import require_triton

    kernel = tmp_path / "k.py"
    kernel.write_bytes(RUNS)
    argv = ["validate", str(kernel), *KERNEL_ARGS, "--quiet"]
    refused = _cli(argv, tmp_path)
    assert refused.returncode == 2 and "--allow-code" in refused.stderr, refused.stderr
    assert "imports the file" in refused.stderr and "separate worker process" in refused.stderr
    off = _cli(argv, tmp_path, LLVERIFY_ALLOW_CODE="0")
    assert off.returncode == 2
    wrong = _cli([*argv[:2], "--allow-code", "--function", "nope"], tmp_path)
    assert wrong.returncode == 2 and "'nope' is not defined" in wrong.stderr, wrong.stderr
    bad = _cli([*argv, "--allow-code", "--signature", "x_ptr:*fp99"], tmp_path)
    assert bad.returncode == 2 and "'x_ptr'" in bad.stderr and "fp32" in bad.stderr
    assert "KeyError" not in bad.stderr
    assert not (tmp_path / MARKER).exists(), "the kernel file ran without being asked to"
    require_triton()
    for extra, env in (["--allow-code"], {}), ([], {"LLVERIFY_ALLOW_CODE": "1"}):
        allowed = _cli([*argv, *extra], tmp_path, **env)
        assert allowed.returncode == 0, allowed.stderr[-2000:]
        assert (tmp_path / MARKER).exists(), "--allow-code did not run the kernel"
        (tmp_path / MARKER).unlink()


def test_ttgir_llvm_ir_and_dumps_never_run_user_code(tmp_path) -> None:
    """A dump directory whose Inductor output code would write a marker when imported, and a
    TTGIR module with a Python file of its name beside it: validated (the output code read with
    ast for its launch arguments), audited, and nothing of the Python ran."""
    import shutil

    from cases.triton import require_triton

    dump = tmp_path / "dump"
    shutil.copytree(ROOT / "tests/data/inductor_small/mm_autotune", dump)
    (output_code,) = dump.rglob("*.py")
    output_code.write_text(RUN_MARKER + output_code.read_text())
    work = tmp_path / "work"
    work.mkdir()
    whole = _cli(["validate", str(dump), "--whole-only", "--json", "--quiet"], work)
    assert whole.returncode == 0, whole.stderr[-2000:]
    assert '"proved"' in whole.stdout  # the launch arguments were read from the output code
    module = tmp_path / "transpose_fp16_sm90.ttgir"
    shutil.copy(ROOT / "tests/data/ttgir/transpose_fp16_sm90.ttgir", module)
    module.with_suffix(".py").write_text(RUN_MARKER)
    assert _cli(["audit", str(module), "--json"], work).returncode == 0
    (llir,) = dump.rglob("*.llir")
    assert _cli(["validate", str(llir), "--whole-only", "--quiet"], work).returncode in (0, 3)
    require_triton()
    validated = _cli(["validate", str(module), "--quiet"], work)
    assert validated.returncode == 0, validated.stderr[-2000:]
    assert not list(tmp_path.rglob(MARKER)), "user code ran"


def test_a_missing_triton_gives_the_install_hint(monkeypatch) -> None:
    from llverify.triton import compile as triton_compile
    from llverify.triton.compile import CompileError, compile_ttgir

    monkeypatch.setattr(triton_compile, "installed_triton_version", lambda python=None: None)
    with pytest.raises(
        CompileError,
        match=r"cannot import triton; install it with: pip install 'llverify\[triton\]'",
    ):
        compile_ttgir("module {}", "cuda:90")
    assert "triton_releases.py" in triton_compile.install_hint("/opt/release/bin/python")


# --- issue 27: large modules ---------------------------------------------------------------

LARGE_CLI_CASES = large_module_cli_cases()


@pytest.mark.parametrize("case", LARGE_CLI_CASES, ids=[c.id for c in LARGE_CLI_CASES])
def test_large_module_options_refused(case: CliCase, sandbox: Sandbox, tmp_path) -> None:
    test_command_line_refuses_hostile_input(case, sandbox, tmp_path)


@pytest.mark.parametrize("case", large_module_api_cases(), ids=lambda c: c.id)
def test_large_module_api_refused(case: ApiCase) -> None:
    with pytest.raises(LLVerifyError) as caught:
        case.call()
    assert isinstance(caught.value, (ValueError, TypeError))
    assert any(name in str(caught.value) for name in case.names), str(caught.value)
