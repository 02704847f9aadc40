"""Process pools that Ctrl-C stops at once: the pending tasks cancelled, the workers ended.

``with ProcessPoolExecutor(...)`` waits, when an exception (a KeyboardInterrupt) leaves the
block, for every task already queued; and each worker, itself interrupted while it waits for
a task, prints a traceback.  :func:`process_pool` cancels what has not started, ends the
workers and lets the exception go on; its workers ignore SIGINT (the parent, which gets it
too, stops them), except that a Z3 query running in one is still cancelled by it and
raises KeyboardInterrupt there (:func:`llverify.smt.solver.check_answer`), which the parent
receives as the task's exception.

Examples:
    >>> with process_pool(2) as pool:
    ...     pool.submit(pow, 2, 10).result()
    1024
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

__all__ = ["process_pool", "stop_pool"]

#: how long an ended worker is waited for after SIGTERM before SIGKILL
_GRACE_S = 2.0


def _ignore(signum: int, frame: Any) -> None:
    """SIGINT in a worker: nothing (a Python handler, not SIG_IGN, so that programs a worker
    starts, such as the compile worker, get the default disposition back)."""


def _quiet_interrupts() -> None:
    """Initializer of the workers: SIGINT is the parent's to act on."""
    signal.signal(signal.SIGINT, _ignore)


@contextmanager
def process_pool(jobs: int, mp_context: Any = None) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``jobs`` worker processes (``mp_context``: multiprocessing's start method
    context, default the platform's), shut down normally when the block ends, stopped by
    :func:`stop_pool` when an exception (KeyboardInterrupt included) leaves it."""
    pool = ProcessPoolExecutor(
        max_workers=jobs, mp_context=mp_context, initializer=_quiet_interrupts
    )
    try:
        yield pool
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel the tasks of ``pool`` that have not started and end its worker processes now
    (SIGTERM, then SIGKILL for one still there after a grace period)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(_GRACE_S)
        if process.is_alive():
            process.kill()
            process.join()
