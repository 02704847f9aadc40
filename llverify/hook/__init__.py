"""Validate every Triton kernel a program compiles while it runs: ``python -m llverify.hook``.

Like ``python -m cProfile``::

    python -m llverify.hook [--report FILE] [--jobs N] [--per-op] script.py [args ...]
    python -m llverify.hook --report r.json -m package.module [args ...]

runs the program unchanged, records each kernel Triton builds or loads in this process, and
when the program ends validates them as ``llverify validate DIR`` does (whole kernel by
default; ``--per-op`` adds the TTGIR part), prints the summary table on stderr and writes
the report (the JSON of ``validate DIR --json``).  The program's output and exit code are
its own; only ``--fail-on-refuted`` makes the exit code 1 when a kernel is refuted.  In
code, :func:`install` does the same (validation at exit, or when :func:`finish` is called).
The package's ``__main__`` runs :func:`main` for ``python -m llverify.hook``.

What is recorded (no torch needed; each hook installed only where the running Triton has it):

* **kernels**: every ``triton.compiler.CompiledKernel`` made in this process: built by
  ``triton.compile``/a JIT launch/``warmup``, read from the cache, unpickled (Inductor's
  compile workers hand kernels to the parent that way), or loaded on the GPU
  (``knobs.runtime.kernel_load_end_hook``).  Its cache files (``NAME.llir``, ``.ttgir``,
  ``.json``) are validated where Triton stored them.
* **launch scalars**: the integer arguments of each launch through a ``@triton.jit``
  function (``JITFunction.run``), and of each launch Inductor makes
  (``CachingAutotuner.run``, wrapped when ``torch._inductor`` is imported), by parameter
  name, keyed by the launched binary's cache directory.  Float arguments and launches made
  by other launchers (Inductor's static CUDA launcher, a raw ``kernel[grid](...)`` of a
  ``CompiledKernel``) are not seen: those kernels are validated with their scalars tagged.
"""

from __future__ import annotations

import argparse
import atexit
import importlib.abc
import importlib.machinery
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

__all__ = ["Recorder", "finish", "install", "main", "record_launch"]

_INDUCTOR = "torch._inductor.runtime.triton_heuristics"


class Recorder:
    """The kernels and launches seen, and how to validate them at the end."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self.kernels: dict[str, Path] = {}
        self.launches: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.seen: set[str] = set()
        self.finished = False

    def add_kernel(self, metadata_group: Any) -> None:
        """Record the kernel whose cache files ``metadata_group`` (name -> path) lists."""
        if not isinstance(metadata_group, dict):
            return
        llir = next((Path(p) for n, p in metadata_group.items() if str(n).endswith(".llir")), None)
        if llir is not None:
            with self.lock:
                self.kernels.setdefault(str(llir), llir)

    def add_launch(
        self, kernel: Any, names: list[str], values: dict[str, Any], cache_hash: str = ""
    ) -> None:
        """Record one launch of ``kernel`` (a CompiledKernel, whose cache directory names it;
        else ``cache_hash``) with its integer arguments."""
        group = getattr(kernel, "metadata_group", None)
        self.add_kernel(group)
        paths = [Path(p) for p in (group or {}).values()]
        cache_hash = paths[0].parent.name if paths else cache_hash
        if not cache_hash:
            return
        scalars = {n: int(values[n]) for n in names if isinstance(values.get(n), int)}
        entry = {
            "kernel": str(getattr(kernel, "name", "")),
            "scalars": scalars,
            "cache_hash": cache_hash,
        }
        key = json.dumps(entry, sort_keys=True)
        with self.lock:
            if key not in self.seen and len(self.launches) < 100_000:
                self.seen.add(key)
                self.launches.append(entry)


_RECORDER: Recorder | None = None


def _record_kernel(metadata_group: Any) -> None:
    if _RECORDER is not None:
        _RECORDER.add_kernel(metadata_group)


def _record_launch(kernel: Any, names: list[str], values: dict[str, Any]) -> None:
    if _RECORDER is not None:
        _RECORDER.add_launch(kernel, names, values)


def _runtime_names(fn: Any) -> list[str]:
    """The names of a JITFunction's parameters that are not ``tl.constexpr``, in order."""
    params = getattr(fn, "params", None)
    if params is None:
        return list(getattr(fn, "arg_names", []))
    return [p.name for p in params if not getattr(p, "is_constexpr", False)]


def _patch_compiled_kernel(compiler: Any) -> None:
    """Record every CompiledKernel made, read from the cache, or unpickled."""
    cls = getattr(compiler, "CompiledKernel", None)
    if cls is None or getattr(cls, "_llverify_hooked", False):
        return
    original_init = cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        _safely(lambda: _record_kernel(getattr(self, "metadata_group", None)))

    cls.__init__ = init
    if "__setstate__" not in vars(cls) and "__reduce__" not in vars(cls):

        def setstate(self: Any, state: Any) -> None:
            self.__dict__.update(state)
            _safely(lambda: _record_kernel(self.__dict__.get("metadata_group")))

        cls.__setstate__ = setstate
    cls._llverify_hooked = True


def _patch_load_hook(knobs: Any) -> None:
    """Record each kernel loaded on the device (``kernel_load_end_hook``: a HookChain in
    Triton 3.5+, a plain optional callable before)."""
    runtime = getattr(knobs, "runtime", None)
    if runtime is None or not hasattr(runtime, "kernel_load_end_hook"):
        return

    def loaded(module: Any, function: Any, name: Any, metadata_group: Any, hash: Any) -> None:
        _safely(lambda: _record_kernel(metadata_group))

    current = runtime.kernel_load_end_hook
    if hasattr(current, "add"):
        current.add(loaded)
    elif current is None:
        runtime.kernel_load_end_hook = loaded


def _patch_jit(jit: Any) -> None:
    """Record the integer arguments of each launch through ``JITFunction.run``."""
    cls = getattr(jit, "JITFunction", None)
    if cls is None or getattr(cls.run, "_llverify_hooked", False):
        return
    original = cls.run

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        kernel = original(self, *args, **kwargs)
        if not kwargs.get("warmup", False):
            names = _runtime_names(self)
            values = {**dict(zip(getattr(self, "arg_names", []), args)), **kwargs}
            _safely(lambda: _record_launch(kernel, names, values))
        return kernel

    run._llverify_hooked = True  # type: ignore[attr-defined]
    cls.run = run


def _patch_inductor(module: Any) -> None:
    """Record the integer arguments of each launch Inductor makes (CachingAutotuner.run)."""
    cls = getattr(module, "CachingAutotuner", None)
    if cls is None or getattr(cls.run, "_llverify_hooked", False):
        return
    original = cls.run

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        _safely(lambda: _inductor_launch(self, args))
        return result

    run._llverify_hooked = True  # type: ignore[attr-defined]
    cls.run = run


def _inductor_launch(autotuner: Any, args: tuple[Any, ...]) -> None:
    launchers = getattr(autotuner, "launchers", None) or []
    if not launchers or _RECORDER is None:
        return
    kernel = getattr(launchers[0], "bin", None)
    names = _runtime_names(getattr(autotuner, "fn", None))
    cache_hash = str(getattr(launchers[0], "cache_hash", "") or "")
    _RECORDER.add_launch(kernel, names, dict(zip(names, args)), cache_hash)


def _safely(action: Any) -> None:
    """Run a recording step; recording never disturbs the program."""
    try:
        action()
    except Exception:  # noqa: S110 - the program must run as if unhooked
        pass


class _AfterImport(importlib.abc.MetaPathFinder):
    """Call ``callback(module)`` once module ``name`` is imported (torch need not be)."""

    def __init__(self, name: str, callback: Any) -> None:
        self.name, self.callback = name, callback

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        others = [f for f in sys.meta_path if f is not self and hasattr(f, "find_spec")]
        spec = next((s for f in others if (s := f.find_spec(fullname, path, target))), None)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module

        def exec_module(module: Any) -> None:
            original(module)
            _safely(lambda: self.callback(module))

        loader.exec_module = exec_module
        return spec


def _patch_triton() -> bool:
    """Install the recording hooks in the running Triton; False when there is no Triton."""
    try:
        import triton.compiler.compiler as compiler
        import triton.runtime.jit as jit
    except Exception:  # no Triton (or a broken one): nothing to record
        return False
    _patch_compiled_kernel(compiler)
    _safely(lambda: _patch_load_hook(__import__("triton.knobs", fromlist=["runtime"])))
    _patch_jit(jit)
    if _INDUCTOR in sys.modules:
        _patch_inductor(sys.modules[_INDUCTOR])
    elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(_INDUCTOR, _patch_inductor))
    return True


def install(
    report: str | None = None,
    *,
    jobs: int = 1,
    per_op: bool = False,
    kernel_timeout: float = 600.0,
    quiet: bool = False,
    at_exit: bool = True,
) -> Recorder:
    """Record the kernels this process compiles or loads and their launch arguments; at
    exit (``at_exit``) or at :func:`finish`, validate them, print the summary on stderr and
    write the JSON ``report`` when given.  Installing twice keeps the first recorder."""
    global _RECORDER
    if _RECORDER is not None:
        return _RECORDER
    options = {
        "report": report,
        "jobs": jobs,
        "per_op": per_op,
        "kernel_timeout": kernel_timeout,
        "quiet": quiet,
    }
    _RECORDER = Recorder(options)
    if not _patch_triton() and not quiet:
        print(
            "llverify.hook: Triton is not importable; no kernel will be recorded", file=sys.stderr
        )
    if at_exit:
        atexit.register(finish)
    return _RECORDER


def record_launch(kernel: Any, scalars: dict[str, int]) -> None:
    """Record a launch the hooks cannot see (a launcher of your own): ``kernel`` is the
    ``CompiledKernel`` launched, ``scalars`` its integer arguments by parameter name.
    Nothing happens when :func:`install` has not run."""
    if _RECORDER is not None:
        _RECORDER.add_launch(kernel, list(scalars), dict(scalars))


def _validate(recorder: Recorder) -> tuple[dict[str, Any], int]:
    """Validate the recorded kernels: the report and its exit code (as ``validate DIR``)."""
    from llverify.emitted.batch import (
        BatchOptions,
        batch_exit_code,
        batch_report,
        format_summary,
        run_summarized,
    )
    from llverify.emitted.launches import LaunchTable

    options = recorder.options
    paths = [p for p in recorder.kernels.values() if p.is_file()]
    root = Path(os.path.commonpath([p.parent.parent for p in paths])) if paths else Path.cwd()
    table = LaunchTable()
    for entry in recorder.launches:
        table.add(table.by_hash, entry["cache_hash"], entry["scalars"])
    batch = BatchOptions(whole_only=not options["per_op"], kernel_timeout=options["kernel_timeout"])
    records, summary = run_summarized(paths, root, table, batch, options["jobs"], options["quiet"])
    if not options["quiet"] or summary["refuted"]:
        print(
            f"llverify.hook: {len(paths)} kernels recorded, "
            f"{len(recorder.launches)} distinct launches",
            file=sys.stderr,
        )
        print(format_summary(summary), file=sys.stderr)
    code = batch_exit_code(records)
    report = batch_report(root, records, summary, program=sys.argv, launches=recorder.launches)
    return {**report, "exit_code": code}, code


def finish() -> dict[str, Any] | None:
    """Validate what was recorded (once), print the summary on stderr, write the report;
    the report (None when nothing was installed or it already ran).  Never raises: a
    failure of the validation is printed on stderr."""
    recorder = _RECORDER
    if recorder is None or recorder.finished:
        return None
    recorder.finished = True
    try:
        report, _ = _validate(recorder)
        if recorder.options["report"]:
            _write_json(recorder.options["report"], report)
        return report
    except Exception as error:  # the program's outcome must not depend on the validator
        print(f"llverify.hook: validation failed: {type(error).__name__}: {error}", file=sys.stderr)
        return None


def _write_json(path: str, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically."""
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(data, indent=1, default=str) + "\n")
    os.replace(temporary, target)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m llverify.hook",
        description="Run a Python program and validate every Triton kernel it compiles or "
        "loads (whole kernel; --per-op adds the TTGIR part), with the launch arguments seen. "
        "The program's output and exit code are its own.",
    )
    parser.add_argument("--report", metavar="FILE", help="write the JSON report to FILE")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="validate in N processes (default %(default)s)",
    )
    parser.add_argument(
        "--per-op",
        action="store_true",
        help="also validate each kernel's TTGIR per op (slow: compiles)",
    )
    parser.add_argument(
        "--kernel-timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="time limit of each kernel (default %(default)s)",
    )
    parser.add_argument(
        "--fail-on-refuted",
        action="store_true",
        help="exit 1 when a kernel is refuted (else the program's own code)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress and no table unless a kernel is refuted"
    )
    parser.add_argument(
        "-m", dest="module", action="store_true", help="run PROGRAM as a module (like python -m)"
    )
    parser.add_argument("program", help="the script (or, with -m, the module) to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    return parser


def _run_program(program: str, args: list[str], module: bool) -> int:
    """Run the program as ``python`` would; its exit code."""
    import runpy
    import traceback

    sys.argv = [program, *args]
    if not module:
        sys.path.insert(0, str(Path(program).resolve().parent))
    try:
        if module:
            runpy.run_module(program, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(program, run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException:  # the program failed: report it as python would, then validate
        traceback.print_exc()
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m llverify.hook``: the program's exit code (1 with --fail-on-refuted when a
    kernel is refuted)."""
    options = _parser().parse_args(argv)
    install(
        options.report,
        jobs=max(1, options.jobs),
        per_op=options.per_op,
        kernel_timeout=options.kernel_timeout,
        quiet=options.quiet,
        at_exit=False,
    )
    code = _run_program(options.program, options.args, options.module)
    report = finish()
    if options.fail_on_refuted and report and report["exit_code"] == 1:
        return 1
    return code
