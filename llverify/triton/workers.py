"""Persistent compile workers: one ``compile_worker.py`` process per interpreter and process.

Starting an interpreter and importing Triton takes about a second; a compile of a small
module a fraction of that.  So each interpreter (the current one, or a release virtualenv's)
gets one worker process, started when first needed, that serves requests one after another
over its pipes (:mod:`llverify.triton.protocol`) and is closed at exit.  Triton still runs out
of process (it aborts on a failed precondition): a worker that dies while compiling is
restarted and the request tried once more in the fresh one (:class:`WorkerDiedError` when
it dies again); one that gives no answer within the request's time limit is killed
(:class:`WorkerTimeoutError`), and so is one interrupted by an exception (a signal's), since
its answer would be read as the next request's; the next request starts a fresh worker.
After :data:`REQUESTS_PER_WORKER` requests a worker is replaced by a fresh one (memory).

A worker belongs to the process that started it: a forked child (the process pool of
``validate DIR``) never writes to its parent's pipes; it closes its copies of them and
starts its own worker, closed when the child ends (``atexit``, or multiprocessing's
finalizers in a multiprocessing child, which ends without ``atexit``).  A worker is also
started afresh when the environment it would get has changed since it started (``TRITON_*``
variables, for instance).  Its stderr goes to an unnamed temporary file, emptied before each
request, so that a failure's report holds what that request printed.

Examples:
    >>> worker = worker_for("/nonexistent/python")
    >>> worker.version(timeout_s=5) is None, worker is worker_for("/nonexistent/python")
    (True, True)
"""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import selectors
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from llverify.triton import protocol

__all__ = [
    "REQUESTS_PER_WORKER",
    "SCRIPT",
    "CompileWorker",
    "WorkerDiedError",
    "WorkerError",
    "WorkerTimeoutError",
    "close_workers",
    "worker_environment",
    "worker_for",
]

#: the script each worker runs
SCRIPT = Path(__file__).resolve().with_name("compile_worker.py")

#: requests a worker serves before it is replaced by a fresh one (a compile leaves a few
#: hundred KiB behind in Triton's process)
REQUESTS_PER_WORKER = 500


class WorkerError(Exception):
    """A worker gave no answer: ``reason`` says why, ``stderr`` is what it printed for the
    request, ``version`` its Triton release when it said it (else None)."""

    def __init__(self, reason: str, stderr: str = "", version: str | None = None) -> None:
        super().__init__(reason)
        self.reason, self.stderr, self.version = reason, stderr, version


class WorkerDiedError(WorkerError):
    """The worker ended (twice in a row for one request) without answering."""


class WorkerTimeoutError(WorkerError):
    """No answer within the request's time limit; the worker was killed."""


def worker_environment() -> dict[str, str]:
    """The environment a worker starts with: this process's, Triton's FP fusion default said
    explicitly (``TRITON_DEFAULT_FP_FUSION``, 1 unless set), no ``PYTHONPATH`` (a release's
    interpreter imports its own site-packages only) and no ``TRITON_CACHE_DIR`` (the worker
    gives each compile an empty cache of its own; Inductor sets this variable as it goes, which
    must not restart the worker)."""
    env = dict(os.environ, TRITON_DEFAULT_FP_FUSION=os.environ.get("TRITON_DEFAULT_FP_FUSION", "1"))
    env.pop("PYTHONPATH", None)
    env.pop("TRITON_CACHE_DIR", None)
    return env


class CompileWorker:
    """The compile worker of one interpreter in this process (use :func:`worker_for`)."""

    def __init__(self, interpreter: str) -> None:
        self.interpreter = interpreter
        self.owner = os.getpid()
        self.started = 0  # processes started so far
        self._served = 0  # requests answered by the current process
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._env: dict[str, str] = {}
        self._stderr: IO[bytes] | None = None
        self._pending = bytearray()  # bytes read after the last answer line
        self._scanned = 0  # how far self._pending holds no line break
        self._ready: dict[str, Any] | None = None  # the worker's first answer

    @property
    def pid(self) -> int | None:
        """The worker process's id while one runs."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def version(self, timeout_s: float = 120.0) -> str | None:
        """The Triton version the worker imported (started if need be), or None when the
        interpreter cannot be run or cannot import Triton."""
        with self._lock:
            try:
                return self._hello(time.monotonic() + timeout_s).get("version")
            except (OSError, WorkerError):
                return None

    def request(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """The worker's answer to ``request`` (one with ``ok`` false also carries, under
        ``"stderr"``, what the worker printed on stderr meanwhile).  Raises OSError when the
        interpreter cannot be run, :class:`WorkerError` when the worker cannot import Triton
        (``reason`` its error), :class:`WorkerDiedError` when it ends twice without answering, and
        :class:`WorkerTimeoutError` after ``timeout_s`` seconds (of one attempt) without an
        answer."""
        with self._lock:
            try:
                return self._answer(request, time.monotonic() + timeout_s)
            except WorkerDiedError:
                pass  # perhaps killed from outside, or by what an earlier request left: again
            return self._answer(request, time.monotonic() + timeout_s)

    def start(self) -> None:
        """Start the worker process now, without waiting for it, so that it imports Triton
        while this process does something else (nothing when one runs; an interpreter that
        cannot be run is reported by the first request)."""
        with self._lock:
            try:
                self._running()
            except OSError:
                pass

    def close(self) -> None:
        """End the worker: its stdin closed, killed if still there a second later, or at once
        when it has not said it is ready (it is still importing Triton)."""
        with self._lock:
            self._stop(kill=self._ready is None)

    def abandon(self) -> None:
        """In a forked child: close the copies of the parent's pipes, leave its worker be."""
        for stream in (self._stdin, self._stdout, self._stderr):
            if stream is not None:
                stream.close()
        self._proc = self._stderr = None

    @property
    def _stdin(self) -> IO[bytes] | None:
        return self._proc.stdin if self._proc is not None else None

    @property
    def _stdout(self) -> IO[bytes] | None:
        return self._proc.stdout if self._proc is not None else None

    # ----------------------------------------------------------------------- one exchange

    def _answer(self, request: dict[str, Any], deadline: float) -> dict[str, Any]:
        """One attempt: the answer, or a failure (the worker then stopped)."""
        hello = self._hello(deadline)
        if not hello.get("ready"):
            raise WorkerError(str(hello.get("error") or "Triton cannot be imported"))
        assert self._proc is not None and self._stderr is not None and self._stdin is not None
        os.ftruncate(self._stderr.fileno(), 0)
        try:
            try:
                self._stdin.write(protocol.request_text(request).encode())
                self._stdin.flush()
            except BrokenPipeError:
                pass  # it has ended: reading finds the end and says how
            answer = self._read_answer(deadline, hello.get("version"))
        except BaseException:
            self._stop(kill=True)  # a failure, or an interruption mid-request
            raise
        self._served += 1
        if not answer.get("ok"):
            answer["stderr"] = self._read_stderr()
        return answer

    def _hello(self, deadline: float) -> dict[str, Any]:
        """The worker's first answer, the worker started first when none runs."""
        self._running()
        if self._ready is None:
            try:
                ready = self._read_answer(deadline, None)
            except BaseException:
                self._stop(kill=True)
                raise
            if not ready.get("ready"):
                self._stop(kill=True)  # no Triton there: the next request asks again
                return ready
            self._ready = ready
        return self._ready

    def _running(self) -> None:
        """A worker process started when none runs, or when the one running has served its
        share or runs with an environment other than the one a worker would get now."""
        env = worker_environment()
        if self._proc is not None and (
            self._proc.poll() is not None or env != self._env or self._served >= REQUESTS_PER_WORKER
        ):
            self._stop(kill=True)  # idle: nothing is lost
        if self._proc is None:
            self._start(env)

    def _start(self, env: dict[str, str]) -> None:
        stderr = tempfile.TemporaryFile()
        flags = fcntl.fcntl(stderr.fileno(), fcntl.F_GETFL)
        fcntl.fcntl(stderr.fileno(), fcntl.F_SETFL, flags | os.O_APPEND)  # truncation is safe
        try:
            self._proc = subprocess.Popen(
                [self.interpreter, str(SCRIPT)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=env,
            )
        except OSError:
            stderr.close()
            raise
        self._stderr, self._env, self._ready = stderr, env, None
        self._pending, self._scanned, self._served = bytearray(), 0, 0
        self.started += 1

    def _read_answer(self, deadline: float, version: str | None) -> dict[str, Any]:
        """The next answer line (other lines skipped) before ``deadline``."""
        assert self._proc is not None and self._stdout is not None
        fd = self._stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while True:
                answer = self._next_answer()
                if answer is not None:
                    return answer
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    self._stop(kill=True)
                    raise WorkerTimeoutError("no answer in time", "", version)
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    try:
                        status: int | None = self._proc.wait(timeout=5)
                    except subprocess.TimeoutExpired:  # its stdout closed, still running
                        status = None
                    stderr = self._read_stderr()
                    self._stop(kill=True)
                    reason = f"the worker died (exit status {status})"
                    raise WorkerDiedError(reason, stderr, version)
                self._pending += chunk

    def _next_answer(self) -> dict[str, Any] | None:
        """The first answer among the complete lines read so far (consumed with the lines
        before it), or None."""
        mark = protocol.MARK.encode()
        while True:
            end = self._pending.find(b"\n", self._scanned)
            if end < 0:
                self._scanned = len(self._pending)
                return None
            line = bytes(self._pending[:end])
            del self._pending[: end + 1]
            self._scanned = 0
            if line.startswith(mark):
                answer: dict[str, Any] = json.loads(line[len(mark) :])
                return answer

    def _read_stderr(self) -> str:
        assert self._stderr is not None
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def _stop(self, kill: bool) -> None:
        """End the worker process (at once when ``kill``) and forget it."""
        proc, stderr = self._proc, self._stderr
        self._proc, self._stderr, self._ready = None, None, None
        self._pending, self._scanned = bytearray(), 0
        if proc is None:
            return
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            proc.wait(timeout=0 if kill else 1)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        except BaseException:  # interrupted (Ctrl-C) while it ends: end it now, then go on
            proc.kill()
            proc.wait()
            raise
        finally:
            if proc.stdout is not None:
                proc.stdout.close()
            if stderr is not None:
                stderr.close()


_workers: dict[str, CompileWorker] = {}
_registry_lock = threading.Lock()


def worker_for(interpreter: str | None = None) -> CompileWorker:
    """This process's worker for ``interpreter`` (default: this one), made when first asked
    (its process starts with its first request).  A worker made before a fork is the
    parent's: the child abandons it and makes its own."""
    key = interpreter or sys.executable
    with _registry_lock:
        worker = _workers.get(key)
        if worker is not None and worker.owner != os.getpid():
            worker.abandon()
            worker = None
        if worker is None:
            _close_with_multiprocessing_child()
            worker = _workers[key] = CompileWorker(key)
        return worker


_finalizer_in: int | None = None  # the process that registered the finalizer below


def _close_with_multiprocessing_child() -> None:
    """In a multiprocessing child (a worker of ``validate DIR --jobs N``'s pool), which ends
    without running ``atexit``: close this process's workers when it ends (registered once
    per process)."""
    global _finalizer_in
    multiprocessing = sys.modules.get("multiprocessing")  # imported by whoever made the child
    if _finalizer_in == os.getpid() or multiprocessing is None:
        return
    if multiprocessing.parent_process() is not None:
        import multiprocessing.util

        multiprocessing.util.Finalize(None, close_workers, exitpriority=0)
    _finalizer_in = os.getpid()


def close_workers() -> None:
    """End every worker this process started (registered to run at exit). A Ctrl-C while
    one ends kills it at once, quietly: the program is ending anyway."""
    with _registry_lock:
        mine = [w for w in _workers.values() if w.owner == os.getpid()]
        _workers.clear()
    for worker in mine:
        try:
            worker.close()
        except KeyboardInterrupt:
            continue  # killed by _stop; the next one is closed all the same


def _after_fork_in_child() -> None:
    """A fresh registry lock: the parent's may have been held by another thread."""
    global _registry_lock
    _registry_lock = threading.Lock()


atexit.register(close_workers)
os.register_at_fork(after_in_child=_after_fork_in_child)
