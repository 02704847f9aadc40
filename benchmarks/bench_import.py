"""Import and small-command start-up cost, llverify against tensor-layouts, in one run.

Each command runs in a fresh interpreter (a subprocess: nothing is cached between runs but the
operating system's file cache), the commands interleaved so that machine drift hits all alike:

* ``python -c pass``: the interpreter alone (the floor under every other row);
* ``import llverify`` and, as the peer, ``import tensor_layouts`` (tensor-layouts 0.3.2, the
  ``bench`` extra; "skipped" when it is not installed);
* ``python -m llverify --help``: the smallest CLI call;
* ``import llverify; llverify.LinearLayout``: what the first use of the layout core adds.

Per command: the median and the minimum wall time of the whole process, the median wall time
above the interpreter's, the median CPU time (user + system: less sensitive than the wall time
to other work on the machine), the process's peak memory (max RSS), and for imports the
package's cumulative time as ``python -X importtime`` reports it.  Issue 26's targets: ``import
llverify`` under 0.08 s, ``llverify --help`` under 0.15 s (whole process, median), judged on the
CPU time by default (``--clock wall``: on the wall time).

Bytecode is cached as an installed package has it (``pip`` compiles ``.pyc`` files): the runs
write and read it under a temporary ``PYTHONPYCACHEPREFIX``, one warm-up run per command first,
whatever ``PYTHONDONTWRITEBYTECODE`` says; ``--no-bytecode`` compiles every module from source
in every run instead (what a checkout run with ``PYTHONDONTWRITEBYTECODE=1`` pays).

Run: ``python benchmarks/bench_import.py [--runs N] [--pythonpath DIR] [--clock process|wall]
[--no-bytecode]`` (DIR: whose llverify to import, default this checkout).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (label, interpreter arguments, package whose -X importtime line is read, target seconds)
COMMANDS: list[tuple[str, list[str], str | None, float | None]] = [
    ("python -c pass", ["-c", "pass"], None, None),
    ("import llverify", ["-c", "import llverify"], "llverify", 0.08),
    ("import tensor_layouts (peer)", ["-c", "import tensor_layouts"], "tensor_layouts", None),
    ("llverify --help", ["-m", "llverify", "--help"], None, 0.15),
    (
        "import llverify; llverify.LinearLayout",
        ["-c", "import llverify; llverify.LinearLayout"],
        None,
        None,
    ),
]


def run_once(args: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MB) of one ``python ARGS`` process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode:
        raise RuntimeError(f"python {' '.join(args)} failed: {stderr}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def import_time(package: str, env: dict[str, str], cwd: str) -> float:
    """Seconds ``python -X importtime`` reports for ``import package`` (cumulative)."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {package}"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    for line in result.stderr.splitlines():
        fields = [f.strip() for f in line.split("|")]
        if len(fields) == 3 and fields[2] == package:
            return int(fields[1]) / 1e6
    raise RuntimeError(f"no importtime line for {package}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="processes per command")
    parser.add_argument("--pythonpath", default=str(ROOT), help="directory llverify comes from")
    parser.add_argument(
        "--clock",
        choices=["process", "wall"],
        default="process",
        help="the time the targets are judged on: the process's CPU time (default) or wall",
    )
    parser.add_argument(
        "--no-bytecode", action="store_true", help="compile every module in every run"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_import_pycache.") as cache:
        env = dict(os.environ, PYTHONPATH=args.pythonpath)
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        measure(args, env)


def measure(args: argparse.Namespace, env: dict[str, str]) -> None:
    """Run and print the table (the subprocesses run in ``--pythonpath``: the interpreter
    puts its working directory first on the path)."""
    commands = COMMANDS
    if importlib.util.find_spec("tensor_layouts") is None:
        print("peer skipped: tensor-layouts not installed (pip install '.[bench]')")
        commands = [c for c in COMMANDS if c[2] != "tensor_layouts"]
    walls: dict[str, list[float]] = {c[0]: [] for c in commands}
    cpus: dict[str, list[float]] = {c[0]: [] for c in commands}
    rss: dict[str, list[float]] = {c[0]: [] for c in commands}
    importtimes: dict[str, list[float]] = {c[0]: [] for c in commands if c[2]}
    for _, python_args, _, _ in commands:  # warm-up: writes the bytecode cache
        run_once(python_args, env, args.pythonpath)
    for _ in range(args.runs):
        for label, python_args, package, _ in commands:
            wall, cpu, peak = run_once(python_args, env, args.pythonpath)
            walls[label].append(wall)
            cpus[label].append(cpu)
            rss[label].append(peak)
            if package:
                importtimes[label].append(import_time(package, env, args.pythonpath))
    floor = statistics.median(walls["python -c pass"])
    print(
        f"{args.runs} processes per command, interleaved; Python {sys.version.split()[0]}; "
        f"llverify from {args.pythonpath}; "
        f"{'no bytecode cache' if args.no_bytecode else 'bytecode cached'}"
    )
    print(
        f"{'command':<40}{'median s':>9}{'min s':>8}{'- python':>9}{'CPU s':>7}{'MB':>6}"
        f"{'importtime s':>13}  target"
    )
    for label, _, package, target in commands:
        median = statistics.median(walls[label])
        judged = statistics.median(cpus[label]) if args.clock == "process" else median
        shown_import = f"{statistics.median(importtimes[label]):.3f}" if package else "-"
        verdict = ""
        if target is not None:
            verdict = f"{args.clock} < {target} s: {'met' if judged < target else 'NOT met'}"
        print(
            f"{label:<40}{median:>9.3f}{min(walls[label]):>8.3f}{median - floor:>9.3f}"
            f"{statistics.median(cpus[label]):>7.3f}{statistics.median(rss[label]):>6.1f}"
            f"{shown_import:>13}  {verdict}"
        )


if __name__ == "__main__":
    main()
