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


# --- issue 27: interrupts, atomic output files, one input policy ---------------------------
# Ctrl-C at the process level (tests/cases/interrupt_driver.py stalls a run where a test needs
# it: in a Z3 query, in a pool worker's, in pure Python), full disks (a small tmpfs when this
# runs as root, and fault injection everywhere), output targets refused before the work, and
# pipes, size caps and symlink loops on input.

import errno  # noqa: E402 - this section's imports, kept with it
import json  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

from llverify.cli import main  # noqa: E402
from llverify.cli.output import write_output  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DRIVER = REPO / "tests" / "cases" / "interrupt_driver.py"
SPECS = REPO / "llverify" / "specs" / "examples"
CONVERSION_SPEC = SPECS / "conversion.toml"
MATMUL = REPO / "tests" / "data" / "ttgir" / "matmul_fp16_sm80.ttgir"
ROW27 = (
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
COL27 = (
    "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>"
)
OLD_RECORDS = '{\n "old.toml::kept": {"expected": "proved", "status": "proved"}\n}\n'
PROMPT_S = 10.0  # how long an interrupted run may take to stop (it takes well under 1 s)


def _environment() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _interrupt(argv: list[str], tmp_path: Path, *, mode: str, group: bool) -> tuple[int, str, str]:
    """Run the driver (``mode``) in a session of its own, wait for its stall, send SIGINT to
    the process group (as a terminal's Ctrl-C) or to the process alone; the exit status,
    stdout and stderr. Asserts that it stopped promptly and left no process behind."""
    marker = tmp_path / "stalled"
    process = subprocess.Popen(
        [sys.executable, str(DRIVER), mode, str(marker), *argv],
        cwd=tmp_path,
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert process.poll() is None, f"ended before stalling: {process.communicate()}"
            assert time.monotonic() < deadline, "never stalled"
            time.sleep(0.05)
        time.sleep(0.3)  # well inside the stall (a Z3 query, a sleep)
        if group:
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        stdout, stderr = process.communicate(timeout=PROMPT_S)
        assert time.monotonic() - sent < PROMPT_S
        deadline = time.monotonic() + 5
        while _group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # the pool's workers, the compile worker: ended with it
        assert not _group_alive(process.pid), "a worker process outlived the interrupted run"
    finally:
        if _group_alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    return process.returncode, stdout, stderr


def _assert_interrupted(code: int, stdout: str, stderr: str) -> None:
    assert code == 130, (code, stdout, stderr)
    assert stderr == "llverify: interrupted\n", stderr  # one line, no traceback
    assert stdout == "", stdout  # no answer printed as if complete


@pytest.mark.parametrize(
    "jobs, group",
    [("1", False), ("1", True), ("2", False), ("2", True)],
    ids=["serial-pid", "serial-group", "jobs2-pid", "jobs2-group"],
)
def test_interrupted_prove_records_nothing(jobs: str, group: bool, tmp_path: Path) -> None:
    """Ctrl-C in a Z3 query (z3 takes SIGINT itself during check()): exit 130, one line, the
    old records file untouched (no "unknown" written for the interrupted obligation), no
    JUnit file, the pool's workers gone."""
    records = tmp_path / "records.json"
    records.write_text(OLD_RECORDS)
    argv = ["prove", str(SPECS), "-j", jobs, "-q", "--record", str(records), "--junit", "j.xml"]
    _assert_interrupted(*_interrupt(argv, tmp_path, mode="solver", group=group))
    assert records.read_text() == OLD_RECORDS
    assert not (tmp_path / "j.xml").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.json", "stalled"]


def test_interrupted_swizzle_prints_no_answer(tmp_path: Path) -> None:
    """An interrupted synthesis is not a weaker answer with exit 0."""
    argv = ["swizzle", ROW27, COL27, "--shape", "128x64", "--vector", "asymmetric", "--padding"]
    _assert_interrupted(*_interrupt(argv, tmp_path, mode="swizzle", group=True))


@pytest.mark.parametrize("command", ["audit", "draw"])
def test_interrupted_python_work_exits_130(command: str, tmp_path: Path) -> None:
    argv = {
        "audit": ["audit", str(MATMUL)],
        "draw": ["draw", ROW27, "--shape", "32x64", "-o", "out.svg"],
    }[command]
    _assert_interrupted(*_interrupt(argv, tmp_path, mode="python", group=False))
    assert not (tmp_path / "out.svg").exists()


@pytest.mark.skipif(shutil.which("true") is None, reason="needs a POSIX system")
def test_interrupted_validate_ends_its_compile_worker(tmp_path: Path) -> None:
    """Ctrl-C while Triton compiles the harness in the compile worker: 130, the worker gone
    (the helper asserts that no process of the group is left)."""
    pytest.importorskip("triton")
    process = subprocess.Popen(
        [sys.executable, "-c", _CONSOLE, "validate", str(MATMUL)],
        cwd=tmp_path,
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stderr is not None
        os.set_blocking(process.stderr.fileno(), True)
        first = process.stderr.readline()  # "... compiling a harness ..."
        assert "compiling" in first, first
        os.killpg(process.pid, signal.SIGINT)
        stdout, rest = process.communicate(timeout=PROMPT_S)
        deadline = time.monotonic() + 5
        while _group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _group_alive(process.pid), "the compile worker outlived the run"
    finally:
        if _group_alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    _assert_interrupted(process.returncode, stdout, rest)


#: the console script, with SIGINT handled as from a terminal (a test runner may ignore it)
_CONSOLE = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from llverify.cli import main; sys.exit(main(sys.argv[1:]))"
)


def test_solver_timeout_stays_unknown_not_interrupt() -> None:
    """Negative control: only Ctrl-C raises; a query out of time is still unknown."""
    import z3

    from llverify.proof.verdict import Status
    from llverify.smt.solver import decide

    x, y = z3.BitVecs("x y", 64)
    hard = [x * y == 0xFFFFFFFB * 0xFFFFFFEF, z3.UGT(x, 1), z3.UGT(y, 1), z3.ULT(x, 2**33)]
    decision = decide([*hard, z3.ULT(y, 2**33)], 200)
    assert decision.status == Status.UNKNOWN and "interrupt" not in decision.reason


# --- full disks and failed writes: the old file stays, one line, exit 2


def _failing_fsync(error: int) -> Any:
    def fsync(descriptor: int) -> None:
        raise OSError(error, os.strerror(error))

    return fsync


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs (root only; skipped elsewhere: the fault injection tests run)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace')}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(folder: Path) -> None:
    """Fill the file system of ``folder`` to the last byte."""
    descriptor = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (4096, 1):
            while True:
                try:
                    os.write(descriptor, b"\0" * size)
                except OSError as error:
                    assert error.errno == errno.ENOSPC
                    break
    finally:
        os.close(descriptor)


@pytest.mark.parametrize("what", ["record", "junit", "draw"])
def test_full_disk_keeps_the_old_file(what: str, small_disk: Path, capsys) -> None:
    target = small_disk / {"record": "r.json", "junit": "j.xml", "draw": "d.html"}[what]
    target.write_text(OLD_RECORDS)
    _fill(small_disk)
    argv = {
        "record": ["prove", str(CONVERSION_SPEC), "-q", "--record", str(target)],
        "junit": ["prove", str(CONVERSION_SPEC), "-q", "--junit", str(target)],
        "draw": ["draw", ROW27, "--shape", "128x64", "-o", str(target)],
    }[what]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "No space left on device" in error, error
    assert target.read_text() == OLD_RECORDS  # not truncated: the old file, whole
    assert sorted(p.name for p in small_disk.iterdir()) == sorted(["filler", target.name])


@pytest.mark.parametrize("what", ["record", "junit", "draw"])
def test_failed_write_keeps_the_old_file(what: str, tmp_path: Path, monkeypatch, capsys) -> None:
    """Fault injection: the data cannot reach the disk (ENOSPC at fsync)."""
    target = tmp_path / {"record": "r.json", "junit": "j.xml", "draw": "d.svg"}[what]
    target.write_text(OLD_RECORDS)
    argv = {
        "record": ["prove", str(CONVERSION_SPEC), "-q", "--record", str(target)],
        "junit": ["prove", str(CONVERSION_SPEC), "-q", "--junit", str(target)],
        "draw": ["draw", ROW27, "--shape", "32x64", "-o", str(target)],
    }[what]
    monkeypatch.setattr(os, "fsync", _failing_fsync(errno.ENOSPC))
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "cannot write" in error and "No space left" in error
    assert target.read_text() == OLD_RECORDS
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    monkeypatch.undo()  # control: the same command writes the file when the disk takes it
    assert main(argv) in (0, 1)
    assert target.read_text() != OLD_RECORDS
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_interrupted_write_keeps_the_old_file(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "r.json"
    target.write_text(OLD_RECORDS)

    def interrupted(descriptor: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_output(target, "{}\n", "--record")
    assert target.read_text() == OLD_RECORDS
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_write_output_modes_and_symlinks(tmp_path: Path) -> None:
    """A new file gets 0666 less the umask, a replaced one keeps its mode, a symlink stays."""
    fresh = tmp_path / "new.json"
    write_output(fresh, "x", "--record")
    umask = os.umask(0)
    os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask
    fresh.chmod(0o640)
    write_output(fresh, "y", "--record")
    assert fresh.stat().st_mode & 0o777 == 0o640 and fresh.read_text() == "y"
    link = tmp_path / "link.json"
    link.symlink_to(fresh)
    write_output(link, "z", "--record")
    assert link.is_symlink() and fresh.read_text() == "z"


# --- output targets refused before the work starts


@pytest.mark.parametrize("kind", ["fifo", "device", "loop"])
@pytest.mark.parametrize("option", ["draw -o", "--junit", "--record"])
def test_output_target_refused_before_work(kind: str, option: str, tmp_path, capsys) -> None:
    """A FIFO (opening it would block), a device (never replaced), a symlink loop: exit 2 at
    once, one line, nothing run."""
    if kind == "fifo":
        target = tmp_path / "out.svg"
        os.mkfifo(target)
    elif kind == "loop":
        target = _loop(tmp_path, "loop")
    else:
        target = Path("/dev/null")
    argv = (
        ["draw", ROW27, "--shape", "32x64", "-o", str(target)]
        if option == "draw -o"
        else ["prove", str(CONVERSION_SPEC), "-q", option, str(target)]
    )
    started = time.monotonic()
    assert main(argv) == 2
    assert time.monotonic() - started < 5
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured
    assert {"fifo": "named pipe", "device": "device", "loop": "symlink loop"}[kind] in captured.err


def test_unwritable_output_folder_refused_before_work(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() == 0:  # root writes anywhere but on a read-only file system
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(folder)],
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip("root, and no read-only tmpfs can be mounted")
    else:
        folder.chmod(0o500)
    try:
        assert main(["prove", str(CONVERSION_SPEC), "-q", "--record", str(folder / "r.json")]) == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and "not writable" in error, error
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", "-l", str(folder)], check=False)
        else:
            folder.chmod(0o700)


# --- one input policy: pipes with a time limit, the size cap, symlink loops


def _hold_open(path: Path, data: bytes, seconds: float) -> threading.Thread:
    """A writer that writes ``data`` into the FIFO and keeps it open ``seconds`` longer."""

    def write() -> None:
        with open(path, "wb") as out:
            out.write(data)
            out.flush()
            time.sleep(seconds)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


def test_audit_of_a_pipe_held_open_stops(tmp_path: Path, monkeypatch, capsys) -> None:
    import llverify.cli.args

    monkeypatch.setattr(llverify.cli.args, "PIPE_TIMEOUT_S", 0.5)
    fifo = tmp_path / "kernel.ttgir"
    os.mkfifo(fifo)
    writer = _hold_open(fifo, MATMUL.read_bytes()[:200], seconds=4.0)
    started = time.monotonic()
    assert main(["audit", str(fifo)]) == 2
    assert time.monotonic() - started < 3
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "gave no data for 0.5 s" in error, error
    writer.join()


def test_audit_of_a_pipe_closed_by_its_writer_is_read(tmp_path: Path, capsys) -> None:
    """Negative control: a pipe whose writer closes it is read whole, as the file is."""
    expected = main(["audit", str(MATMUL), "--json"])
    from_file = capsys.readouterr().out
    fifo = tmp_path / "kernel.ttgir"
    os.mkfifo(fifo)
    writer = _hold_open(fifo, MATMUL.read_bytes(), seconds=0.0)
    assert main(["audit", str(fifo), "--json"]) == expected
    writer.join()
    from_pipe = json.loads(capsys.readouterr().out)
    assert _findings(from_pipe) == _findings(json.loads(from_file)) and _findings(from_pipe)


def _findings(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What an audit found, without its timings: (op, line, rule, severity) each."""
    return [(f["op"], f["line"], f["rule"], f.get("severity")) for f in report["findings"]]


def test_prove_refuses_a_huge_spec_file_unread(tmp_path: Path, capsys) -> None:
    """A 3 GB (sparse) spec file: refused by its size, in well under a second of reading."""
    from llverify.checkfiles import SpecError, parse

    huge = tmp_path / "huge.toml"
    with open(huge, "wb") as out:
        out.truncate(3 << 30)
    started = time.monotonic()
    assert main(["prove", str(huge)]) == 2
    assert time.monotonic() - started < 5
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "larger than 16777216 bytes" in error, error
    with pytest.raises(SpecError, match="larger than"):
        parse(huge)
    small = tmp_path / "small.toml"  # control: at the cap's other side, parsed
    small.write_bytes(CONVERSION_SPEC.read_bytes())
    assert parse(small)


@pytest.mark.parametrize("command", ["audit", "validate", "prove", "check-records", "kernel.py"])
def test_symlink_loop_input_is_one_line(command: str, tmp_path: Path, capsys) -> None:
    loop = tmp_path / ("loop.py" if command == "kernel.py" else "loop.ttgir")
    loop.symlink_to(loop)
    argv = {
        "audit": ["audit", str(loop)],
        "validate": ["validate", str(loop)],
        "prove": ["prove", str(loop)],
        "check-records": ["prove", str(CONVERSION_SPEC), "-q", "--check-records", str(loop)],
        "kernel.py": ["validate", str(loop), "--function", "f", "--signature", "x:i32"],
    }[command]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error, error


def test_fifo_kernel_file_refused_at_once(tmp_path: Path, capsys) -> None:
    """A FIFO as the ``.py`` kernel: refused before the compile worker would block on it
    for the whole --timeout."""
    fifo = tmp_path / "kernel.py"
    os.mkfifo(fifo)
    started = time.monotonic()
    argv = ["validate", str(fifo), "--function", "f", "--signature", "x:i32", "--timeout", "60"]
    assert main(argv) == 2
    assert time.monotonic() - started < 10
    error = capsys.readouterr().err
    assert "is not a regular file" in error and error.count("\n") == 1, error


def test_read_text_file_refuses_symlink_loops(tmp_path: Path) -> None:
    from llverify.cli.args import read_text_file

    with pytest.raises(LLVerifyError, match="symlink loop"):
        read_text_file(_loop(tmp_path, "loop"))
