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
