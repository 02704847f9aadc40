"""llverify.triton.workers: the persistent compile worker, one per interpreter and process.

The Triton tests compile with the installed 3.9 (oracle: Triton 3.9 on the CPU); the rest run
a stand-in "interpreter", a shell script that runs :data:`STUB`, a worker speaking the same
protocol whose requests say what to do (die, sleep, answer), so that deaths, time limits and
forks are tested exactly and fast.  Nothing here is timed.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.triton import protocol, workers
from llverify.triton.compile import (
    WORKER,
    CompileError,
    _retarget,
    _useful_stderr,
    compile_python,
    compile_ttgir,
    installed_triton_version,
    parse_target,
)
from llverify.triton.workers import (
    WorkerDiedError,
    WorkerError,
    WorkerTimeoutError,
    close_workers,
    worker_for,
)

KERNELS = Path(__file__).parent / "data" / "emitted"
TTGIR = {name: (KERNELS / f"{name}.ttgir").read_text() for name in ("cvt", "red")}

#: a stand-in worker: says ready (version 9.9.0), then for each request line acts on the text
#: of its "text" field: DIE-ONCE:<marker> ends the process unless the marker file exists (and
#: makes it), ABORT aborts, SLEEP sleeps a minute, LINGER makes it stay a minute after its
#: stdin closes; then answers ok with its pid, noise around
STUB = r"""
import json, os, sys, time
print("noise before the first answer", flush=True)
print("@@ " + json.dumps({"ready": True, "version": "9.9.0"}), flush=True)
linger = False
for line in iter(sys.stdin.readline, ""):
    request = json.loads(line)
    text = request.get("text", "")
    linger = linger or "LINGER" in text
    marker = text.partition("DIE-ONCE:")[2].split("\n")[0].strip()
    if marker and not os.path.exists(marker):
        open(marker, "w").close()
        print("dying once", file=sys.stderr, flush=True)
        os._exit(7)
    if "ABORT" in text:
        print("Assertion `precondition' failed.", file=sys.stderr, flush=True)
        os.abort()
    if "SLEEP" in text:
        time.sleep(60)
    print("Triton noise", flush=True)
    print("@@ " + json.dumps({"ok": True, "pid": os.getpid(), "text": text}), flush=True)
if linger:
    time.sleep(60)
"""

#: a module for the stand-in; compile_ttgir sets its target and sends it (release 9.9: as is)
MODULE = 'module attributes {"ttg.num-warps" = 4 : i32} {\n// %s\n}\n'


@pytest.fixture
def stub(tmp_path: Path) -> str:
    """A stand-in interpreter running :data:`STUB` (its worker closed after the test)."""
    script = tmp_path / "stub_worker.py"
    script.write_text(STUB)
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nexec {sys.executable} {script} "$@"\n')
    python.chmod(0o755)
    yield str(python)
    worker_for(str(python)).close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _request(text: str) -> dict[str, str]:
    return {"kind": "ttgir", "text": text}


# ------------------------------------------------------------------ with the stand-in worker


def test_one_worker_serves_many_requests_and_skips_noise(stub):
    worker = worker_for(stub)
    assert worker.version() == "9.9.0"  # its first answer: no other process asked
    pids = {worker.request(_request(f"module {k}"), timeout_s=30)["pid"] for k in range(5)}
    assert len(pids) == 1 and worker.started == 1 and worker.pid in pids


def test_start_runs_the_worker_ahead_of_its_first_request(stub, tmp_path):
    worker = worker_for(stub)
    worker.start()
    pid = worker.pid
    assert pid is not None and worker.started == 1
    worker.start()  # one runs: nothing more
    assert worker.request(_request("x"), timeout_s=30)["pid"] == pid and worker.started == 1
    absent = worker_for(str(tmp_path / "absent"))
    absent.start()  # cannot be run: said by the first request
    assert absent.pid is None
    with pytest.raises(FileNotFoundError):
        absent.request(_request("x"), timeout_s=30)


def test_a_worker_killed_between_requests_is_restarted(stub):
    worker = worker_for(stub)
    first = worker.request(_request("a"), timeout_s=30)["pid"]
    os.kill(first, signal.SIGKILL)
    while _alive(first) and worker.pid is not None:
        time.sleep(0.01)
    second = worker.request(_request("b"), timeout_s=30)["pid"]
    assert second != first and worker.started == 2


def test_a_worker_that_dies_mid_request_is_retried_once(stub, tmp_path):
    worker = worker_for(stub)
    answer = worker.request(_request(f"DIE-ONCE:{tmp_path / 'died'}"), timeout_s=30)
    assert answer["ok"] and worker.started == 2 and (tmp_path / "died").exists()


def test_a_worker_that_dies_twice_is_a_compile_error_with_its_stderr(stub):
    worker = worker_for(stub)
    with pytest.raises(WorkerDiedError) as died:
        worker.request(_request("ABORT"), timeout_s=30)
    assert worker.started == 2 and died.value.version == "9.9.0"
    assert died.value.reason == f"the worker died (exit status {-signal.SIGABRT})"
    with pytest.raises(CompileError) as caught:
        compile_ttgir(MODULE % "ABORT", "cuda:90", python=stub)
    assert str(caught.value) == (
        f"Triton 9.9.0 failed to compile for cuda:90: the worker died (exit status "
        f"{-signal.SIGABRT})\nAssertion `precondition' failed."
    )
    # the next request starts a fresh worker and is answered
    assert worker.request(_request("fine"), timeout_s=30)["ok"]


def test_no_answer_in_time_kills_the_worker_and_the_next_request_starts_one(stub):
    worker = worker_for(stub)
    pid = worker.request(_request("warm"), timeout_s=30)["pid"]
    started = time.monotonic()
    with pytest.raises(CompileError, match=r"with .*python: no answer within 1 s \(timeout_s\)"):
        compile_ttgir(MODULE % "SLEEP", "cuda:90", python=stub, timeout_s=1)
    assert time.monotonic() - started < 30 and worker.started == 1  # not retried
    assert not _alive(pid) or worker.pid is None
    assert worker.request(_request("again"), timeout_s=30)["pid"] != pid
    with pytest.raises(WorkerTimeoutError):
        worker.request(_request("SLEEP"), timeout_s=0.5)


def test_an_exception_mid_request_kills_the_worker(stub):
    """A signal handler's exception (validate DIR's per-kernel time limit) leaves no answer
    behind to be read as the next request's."""
    worker = worker_for(stub)
    pid = worker.request(_request("warm"), timeout_s=30)["pid"]

    class Expired(BaseException):
        pass

    def expire(signum, frame):
        raise Expired()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(Expired):
            worker.request(_request("SLEEP"), timeout_s=30)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert worker.pid is None
    answer = worker.request(_request("next"), timeout_s=30)
    assert answer["text"] == "next" and answer["pid"] != pid


def test_a_fork_child_gets_its_own_worker_and_leaves_the_parents(stub):
    parent = worker_for(stub)
    parent_pid = parent.request(_request("parent"), timeout_s=30)["pid"]
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        try:
            mine = worker_for(stub)
            answer = mine.request(_request("child"), timeout_s=30)
            report = {"pid": answer["pid"], "new": mine is not parent, "started": mine.started}
            mine.close()
            os.write(write, json.dumps(report).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    with os.fdopen(read) as stream:
        report = json.loads(stream.read())
    assert report == {"pid": report["pid"], "new": True, "started": 1}
    assert report["pid"] != parent_pid
    # the parent's worker is untouched: same process, still answering
    assert worker_for(stub) is parent and parent.pid == parent_pid
    assert parent.request(_request("parent again"), timeout_s=30)["pid"] == parent_pid


def _pool_task(stub: str) -> tuple[int, int]:
    """In a pool process: its pid and the pid of its worker."""
    return os.getpid(), worker_for(stub).request(_request("LINGER"), timeout_s=30)["pid"]


def test_a_process_pool_child_closes_its_worker_when_it_ends(stub):
    """validate DIR's fork pool: each child has its own worker, ended with the child (which
    runs no atexit handlers), even one that does not end when its stdin closes."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        pairs = set(pool.map(_pool_task, [stub] * 4))
    children = {child for child, _ in pairs}
    workers_of = {child: {w for c, w in pairs if c == child} for child in children}
    assert all(len(pids) == 1 for pids in workers_of.values())  # one worker per child
    assert os.getpid() not in children
    deadline = time.monotonic() + 10
    pids = {w for _, w in pairs}
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(_alive(pid) for pid in pids)


def test_a_changed_environment_starts_a_fresh_worker(stub, monkeypatch):
    worker = worker_for(stub)
    first = worker.request(_request("a"), timeout_s=30)["pid"]
    assert worker.request(_request("b"), timeout_s=30)["pid"] == first
    monkeypatch.setenv("TRITON_CACHE_DIR", "/elsewhere")  # the worker sets its own per compile
    assert worker.request(_request("c"), timeout_s=30)["pid"] == first
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "0")
    assert worker.request(_request("d"), timeout_s=30)["pid"] != first


def test_a_worker_is_replaced_after_its_share_of_requests(stub, monkeypatch):
    monkeypatch.setattr(workers, "REQUESTS_PER_WORKER", 3)
    worker = worker_for(stub)
    pids = [worker.request(_request(str(k)), timeout_s=30)["pid"] for k in range(7)]
    assert len(set(pids[:3])) == 1 and len(set(pids[3:6])) == 1 and pids[0] != pids[3]
    assert worker.started == 3


def test_an_interpreter_without_triton_says_so(tmp_path):
    fake = tmp_path / "python"
    fake.write_text(
        '#!/bin/sh\necho \'@@ {"ready": false, "version": null, "error": '
        '"ModuleNotFoundError: no triton"}\'\n'
    )
    fake.chmod(0o755)
    worker = worker_for(str(fake))
    assert worker.version() is None
    with pytest.raises(WorkerError, match="ModuleNotFoundError: no triton"):
        worker.request(_request("x"), timeout_s=30)
    with pytest.raises(CompileError, match=r"cannot import triton \(ModuleNotFoundError"):
        compile_python("k.py", "k", signature={}, constexprs={}, target="cuda:90", python=str(fake))
    with pytest.raises(FileNotFoundError):
        worker_for(str(tmp_path / "absent")).request(_request("x"), timeout_s=30)


def test_close_workers_ends_this_process_workers(stub):
    pid = worker_for(stub).request(_request("x"), timeout_s=30)["pid"]
    close_workers()
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _alive(pid)


# ------------------------------------------------------------------ with Triton 3.9


def _without_paths(text: str) -> str:
    """``text`` without the compile's temporary folder (debug locations name it)."""
    return re.sub(r"llverify-compile-\w+", "TMP", text)


@pytest.mark.triton
def test_one_worker_compiles_several_modules_as_fresh_ones_do():
    require_triton()
    close_workers()
    worker = worker_for()
    served = [compile_ttgir(TTGIR[name], "cuda:90") for name in ("cvt", "red", "cvt")]
    pid = worker.pid
    assert worker.started == 1 and pid is not None
    assert [k.name for k in served] == ["k", "k", "k"] and all(k.ptx for k in served)
    assert _without_paths(served[0].llir) == _without_paths(served[2].llir)
    close_workers()  # a fresh worker compiles what the served one did
    fresh = compile_ttgir(TTGIR["red"], "cuda:90")
    assert worker_for().pid != pid
    assert _without_paths(fresh.llir) == _without_paths(served[1].llir)
    assert fresh.shared_bytes == served[1].shared_bytes


@pytest.mark.triton
@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_until_llir_stops_before_the_binary_with_the_same_llvm_ir(target):
    require_triton()
    full = compile_ttgir(TTGIR["cvt"], target)
    llir = compile_ttgir(TTGIR["cvt"], target, until="llir")
    assert llir.ptx is None and llir.amdgcn is None and (full.ptx or full.amdgcn)
    assert _without_paths(llir.llir) == _without_paths(full.llir)
    assert _without_paths(llir.ttgir) == _without_paths(full.ttgir)
    assert (llir.shared_bytes, llir.num_warps, llir.name) == (
        full.shared_bytes,
        full.num_warps,
        full.name,
    )
    with pytest.raises(ValueError, match="until='ptx'"):
        compile_ttgir(TTGIR["cvt"], target, until="ptx")


@pytest.mark.triton
def test_a_bad_module_is_the_compile_error_a_fresh_process_gives():
    """The message is what the one-process-per-compile design gave (a fresh worker process
    for this one request, as before): the release, the target, Triton's error and its error
    lines; only the compile's temporary folder differs."""
    require_triton()
    bad = TTGIR["cvt"].replace("threadsPerWarp = [4, 8]", "threadsPerWarp = [4, 4]")
    compile_ttgir(TTGIR["red"], "cuda:90")  # a worker that has served a module already
    with pytest.raises(CompileError) as caught:
        compile_ttgir(bad, "cuda:90")
    request = {
        "kind": "ttgir",
        "text": _retarget(bad, "cuda:90"),
        "target": parse_target("cuda:90"),
    }
    env = workers.worker_environment()
    once = subprocess.run(
        [sys.executable, str(WORKER)],
        input=protocol.request_text(request),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    ready, answer = protocol.answers(once.stdout)
    assert ready["version"] == installed_triton_version() and answer["ok"] is False
    detail = _useful_stderr(once.stderr)
    expected = f"Triton {answer['version']} failed to compile for cuda:90: {answer['error']}"
    assert _without_paths(str(caught.value)) == _without_paths(
        expected + (f"\n{detail}" if detail else "")
    )
    assert "32 threads per warp" in str(caught.value)
