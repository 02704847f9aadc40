"""Run one command line or one API call in a forked child under a time and a memory bound.

Starting ``llverify`` costs ~0.5 s per process, too slow for hundreds of cases, so a server
process (``Sandbox``) imports llverify once and forks one child per case:

* a command line runs as the console script runs it: ``sys.exit(main(argv))`` in the child,
  stdin ``/dev/null``, stdout and stderr (file descriptors 1 and 2, so worker processes too)
  into files, the working directory given; an exception that escapes prints its traceback
  and exits 1, a failing final flush exits 120, as the interpreter does (the child then ends
  with ``os._exit``: a full finalization would copy every page shared with the server);
* an API call (``cases.hostile.API_CASES``, by id) runs in the child, which writes what it
  raised (class, MRO, message) or returned as JSON to a file.

Every child gets ``RLIMIT_AS`` = the server's address space + ``MEMORY_LIMIT_BYTES`` and is
killed after ``TIME_LIMIT_S``; the parent reports the exit status, the wall time, whether the
time limit killed it, and the child's peak resident memory (``wait4``'s ``ru_maxrss``).
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import resource
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
TIME_LIMIT_S = 60.0
MEMORY_LIMIT_BYTES = 2 << 30


@dataclass(frozen=True)
class Result:
    """What one child did: ``status`` is its exit code, or minus the signal that ended it."""

    status: int
    seconds: float
    timed_out: bool
    max_rss_mb: float
    stdout: str
    stderr: str
    api: dict[str, Any] | None

    def bound_violation(self) -> str | None:
        """Why the case broke its time or memory bound, or None."""
        if self.timed_out:
            return f"killed after the {TIME_LIMIT_S:.0f} s time bound"
        text = self.stderr + json.dumps(self.api or {})
        if "MemoryError" in text or "std::bad_alloc" in text:
            return (
                f"ran out of its memory bound ({MEMORY_LIMIT_BYTES >> 30} GiB of address space "
                f"beyond the interpreter's; peak RSS {self.max_rss_mb:.0f} MB)"
            )
        if self.status < 0:
            return f"killed by signal {-self.status} (peak RSS {self.max_rss_mb:.0f} MB)"
        return None


def _address_space() -> int:
    """This process's virtual memory size in bytes (``VmSize``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def _run_cli(request: dict[str, Any]) -> None:
    """The child of a command line: never returns (``sys.exit`` like the console script)."""
    from llverify.cli import main

    _redirect(request)
    sys.argv = ["llverify", *request["argv"]]
    try:
        code = _exit_code(main(request["argv"]))
    except SystemExit as exit_:
        code = _exit_code(exit_.code)
    except BaseException:  # noqa: B036 - as the interpreter reports an uncaught exception
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except BaseException:  # noqa: B036 - as the interpreter reports a failed final flush
        traceback.print_exc()
        code = 120
    sys.stderr.flush()
    os._exit(code)  # skips the finalization that would copy every page of the server


def _exit_code(code: object) -> int:
    """The process exit code of ``sys.exit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_api(request: dict[str, Any]) -> None:
    """The child of an API call: writes the outcome as JSON to ``request['result']``."""
    from cases.hostile import API_CASES

    _redirect(request)
    try:
        value = API_CASES[request["case"]].call()
        outcome: dict[str, Any] = {"outcome": "returned", "value": repr(value)[:300]}
    except BaseException as error:  # noqa: B036 - the outcome of any call is reported
        outcome = {
            "outcome": "raised",
            "mro": [f"{c.__module__}.{c.__qualname__}" for c in type(error).__mro__],
            "value_or_type_error": isinstance(error, (ValueError, TypeError)),
            "message": str(error),
            "traceback": traceback.format_exc()[-3000:],
        }
    Path(request["result"]).write_text(json.dumps(outcome))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _redirect(request: dict[str, Any]) -> None:
    """Working directory, stdin /dev/null, stdout/stderr into the request's files."""
    os.chdir(request["cwd"])
    for fd, path, flags in (
        (0, os.devnull, os.O_RDONLY),
        (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
    ):
        opened = os.open(path, flags, 0o644)
        os.dup2(opened, fd)
        os.close(opened)


def serve() -> None:
    """The server loop: one JSON request per line on stdin, one JSON result per line on
    stdout (its own descriptor, so that children never write on it)."""
    import cases.hostile  # noqa: F401 - imported once here, not in every child
    import llverify.cli  # noqa: F401

    channel = os.fdopen(os.dup(1), "w")
    requests = os.fdopen(os.dup(0))
    limit = _address_space() + MEMORY_LIMIT_BYTES
    gc.freeze()  # children never touch the server's objects for the collector
    for line in requests:
        request = json.loads(line)
        channel.flush()
        sys.stdout.flush()
        sys.stderr.flush()
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            try:
                channel.close()
                requests.close()
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
                os.setpgid(0, 0)  # its own group: a timeout kills its worker processes too
                if request["kind"] == "cli":
                    _run_cli(request)
                else:
                    _run_api(request)
            finally:  # only if the sandbox itself failed: never back into the server loop
                traceback.print_exc()
                os._exit(98)
        status, usage, timed_out = _wait(pid, start)
        result = {
            "status": status,
            "seconds": time.monotonic() - start,
            "timed_out": timed_out,
            "max_rss_mb": usage.ru_maxrss / 1024,
        }
        channel.write(json.dumps(result) + "\n")
        channel.flush()


def _wait(pid: int, start: float) -> tuple[int, resource.struct_rusage, bool]:
    """Wait for the child, killing its process group at the time limit; once it has exited,
    and before it is reaped (so that its id cannot be reused), kill the workers it left."""
    timed_out = False
    while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        if not timed_out and time.monotonic() - start > TIME_LIMIT_S:
            timed_out = True
            os.killpg(pid, signal.SIGKILL)
        time.sleep(0.002)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    _, raw, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(raw), usage, timed_out


class Sandbox:
    """The client: starts the server process and sends it one case at a time."""

    def __init__(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p] + [str(TESTS)]
        )
        self._process = subprocess.Popen(
            [sys.executable, "-c", "from cases.sandbox import serve; serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=TESTS,
        )

    def close(self) -> None:
        """Stop the server."""
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=30)

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the sandbox server died (exit {self._process.poll()})")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def run_cli(self, argv: list[str], cwd: Path, logs: Path) -> Result:
        """``llverify *argv`` in ``cwd``; stdout and stderr are kept in ``logs``."""
        stdout, stderr = logs / "stdout", logs / "stderr"
        reply = self._send(
            {
                "kind": "cli",
                "argv": argv,
                "cwd": str(cwd),
                "stdout": str(stdout),
                "stderr": str(stderr),
            }
        )
        return Result(
            reply["status"],
            reply["seconds"],
            reply["timed_out"],
            reply["max_rss_mb"],
            _read(stdout),
            _read(stderr),
            None,
        )

    def run_api(self, case: str, cwd: Path, logs: Path) -> Result:
        """The API case ``case`` of ``cases.hostile.API_CASES``, run in ``cwd``."""
        stdout, stderr, result = logs / "stdout", logs / "stderr", logs / "result.json"
        reply = self._send(
            {
                "kind": "api",
                "case": case,
                "cwd": str(cwd),
                "stdout": str(stdout),
                "stderr": str(stderr),
                "result": str(result),
            }
        )
        api = json.loads(result.read_text()) if result.exists() else None
        return Result(
            reply["status"],
            reply["seconds"],
            reply["timed_out"],
            reply["max_rss_mb"],
            _read(stdout),
            _read(stderr),
            api,
        )


def _read(path: Path) -> str:
    """A log file's text (bytes that are not UTF-8 as escapes); empty if it is missing."""
    return path.read_bytes().decode("utf-8", "backslashreplace") if path.exists() else ""
