"""Whole-kernel validation over a corpus of dumped kernels: proved/unknown/refuted/errors, reasons.

Each ``.llir`` is validated by :func:`llverify.emitted.dumped.validate_llvm_ir` (memory safety of
the real code over every thread of CTA 0) with the thread count and shared size of the ``.json``
beside it.  The scalar arguments come from the corpus's ``launches.json`` (two directories up:
the launch whose ``cache_hash`` is the kernel's directory): the Triton function's parameters
(named in the ``.source`` beside it) are the LLVM function's parameters in order, so a scalar
named ``xnumel`` there is the LLVM parameter at its position.  Each kernel runs in a fresh
process (spawn) under a per-kernel time limit.

Usage::

    python scripts/validate_corpus.py '/path/to/corpus/*/triton/*/*.llir' --sample 8 --jobs 2 \
        --json out.json
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import multiprocessing
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

_PARAMETERS = re.compile(r"tt\.func\s+(?:public\s+)?@[\w$.]+\((.*?)\)\s+attributes", re.S)
_NAME = re.compile(r"%([\w$.]+)\s*:")


def launch_arguments(llir: Path) -> dict[str, int]:
    """The scalar arguments of ``llir``'s recorded launch by LLVM parameter position (``"3"``),
    or none when the corpus does not record them."""
    launches = llir.parent.parent.parent / "launches.json"
    source = llir.with_suffix(".source")
    if not launches.exists() or not source.exists():
        return {}
    kernel = llir.stem
    records = [
        r
        for r in json.loads(launches.read_text())
        if r.get("cache_hash") == llir.parent.name and r.get("kernel") == kernel
    ]
    if not records:
        return {}
    found = _PARAMETERS.search(source.read_text())
    if found is None:
        return {}
    names = _NAME.findall(found.group(1))
    out: dict[str, int] = {}
    for name, value in records[0].get("scalars", {}).items():
        if name in names and isinstance(value, int):
            out[str(names.index(name))] = value
    return out


class _TimeoutError(Exception):
    """The kernel ran past its time limit."""


def _alarm(signum: int, frame: object) -> None:
    raise _TimeoutError


def validate_one(job: tuple[str, int, bool]) -> dict[str, Any]:
    """Validate one kernel; a dict of its path, status, reason, seconds, instructions."""
    path, limit, with_arguments = job
    from llverify.emitted.dumped import validate_llvm_ir

    llir = Path(path)
    started = time.perf_counter()
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(limit)
    try:
        meta = json.loads(llir.with_suffix(".json").read_text())
        threads = meta["num_warps"] * meta.get("warp_size", 32)
        arguments = launch_arguments(llir) if with_arguments else {}
        report = validate_llvm_ir(
            llir.read_text(),
            source=str(llir),
            threads=threads,
            shared_bytes=meta.get("shared"),
            arguments=arguments,
        )
        verdict = report.verdicts[0]
        status, reason = verdict.status.value, verdict.reason or ""
        steps = report.instructions
    except _TimeoutError:
        status, reason, steps = "error", f"timed out after {limit} s", 0
    except Exception as error:  # noqa: BLE001 - every failure is counted, with its type
        status, reason, steps = "error", f"{type(error).__name__}: {error}", 0
    finally:
        signal.alarm(0)
    seconds = time.perf_counter() - started
    return {"path": path, "status": status, "reason": reason, "seconds": seconds, "steps": steps}


def reason_key(reason: str) -> str:
    """A reason with numbers and value names blanked, to count reasons by kind."""
    reason = reason.split("; the scalar arguments without a value")[0]
    return re.sub(r"%[\w.]+|\d+", "N", reason)[:140]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pattern", help="a glob of .llir files")
    parser.add_argument("--sample", type=int, default=1, help="every K-th file (sorted)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=60, help="seconds per kernel")
    parser.add_argument("--no-arguments", action="store_true", help="leave scalars tagged")
    parser.add_argument("--json", type=Path, help="write every result here")
    args = parser.parse_args(argv)
    if args.sample < 1:
        raise ValueError(f"--sample: expected a positive step, got {args.sample}")
    files = sorted(glob.glob(args.pattern))[:: args.sample]
    jobs = [(f, args.timeout, not args.no_arguments) for f in files]
    results = []
    context = multiprocessing.get_context("spawn")
    with context.Pool(args.jobs, maxtasksperchild=20) as pool:
        for result in pool.imap_unordered(validate_one, jobs):
            results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    counts = collections.Counter(r["status"] for r in results)
    print(f"{len(results)} kernels: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    reasons = collections.Counter(
        f"{r['status']}: {reason_key(r['reason'])}" for r in results if r["status"] != "proved"
    )
    for reason, count in reasons.most_common(30):
        print(f"{count:5d}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
