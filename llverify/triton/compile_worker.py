"""Worker process of :mod:`llverify.triton.compile`: compiles with this interpreter's Triton.

Run as a script by any interpreter holding a Triton release from 2.1 to 3.9; it imports only
the standard library, Triton, and ``protocol.py`` beside it by its path (never llverify: other
releases live in other virtualenvs).  It serves many requests, one after another, and speaks
:mod:`llverify.triton.protocol`: first ``{"ready": true, "version": V}`` once Triton is
imported, then, for each request line, ``{"kind": "ttgir", "text": ..., "target": T}`` or
``{"kind": "python", "path": ..., "function": ..., "signature": {arg: type}, "constexprs":
{arg: value}, "num_warps": n, "target": T}`` with ``T = {"backend": "cuda"|"hip", "arch":
90|"gfx942", "warp_size": 32|64}`` and optionally ``"until": "llir"`` (stop after the LLVM IR:
no PTX/AMDGCN and no binary; releases before 3.0 always run every stage), one answer,
``{"ok": true, "name", "version", "shared", "num_warps", "asm": {stage: text}, "seconds"}`` or
``{"ok": false, "version", "error": "Type: message"}``.  Each compile has a Triton cache of its
own (a temporary folder).  Triton may abort the process instead
(a failed C++ assertion): the caller reads stderr then.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: the IR stages returned (as text); binaries (cubin, hsaco) are left out
TEXT_STAGES = ("ttir", "ttgir", "llir", "ptx", "amdgcn")


def release(version: str) -> tuple[int, int]:
    """(major, minor) of a Triton version string such as ``"3.2.0"`` or ``"3.9.0+git"``."""
    major, minor = version.split(".")[:2]
    return int(major), int("".join(ch for ch in minor if "0" <= ch <= "9") or 0)


def load_function(path: str, function: str) -> Any:
    """The ``@triton.jit`` function ``function`` of the Python file ``path``."""
    name = "llverify_kernel_" + Path(path).stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path!r} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    if not hasattr(module, function):
        raise AttributeError(f"{path!r} has no function {function!r}")
    return getattr(module, function)


def split_arguments(
    fn: Any, signature: dict[str, str], constexprs: dict[str, Any]
) -> tuple[list[tuple[int, str, str]], list[tuple[int, str, Any]]]:
    """The kernel's runtime arguments ``(index, name, type)`` and constexprs ``(index, name,
    value)`` in the order of the function's parameters."""
    names = list(fn.arg_names)
    unknown = sorted((set(signature) | set(constexprs)) - set(names))
    if unknown:
        raise ValueError(f"arguments {unknown} are not parameters of {fn.__name__}{tuple(names)}")
    missing = [n for n in names if n not in signature and n not in constexprs]
    if missing:
        raise ValueError(f"parameters {missing} of {fn.__name__} have neither a type nor a value")
    runtime = [(i, n, signature[n]) for i, n in enumerate(names) if n not in constexprs]
    constant = [(i, n, constexprs[n]) for i, n in enumerate(names) if n in constexprs]
    return runtime, constant


def compile_2x(request: dict[str, Any], version: tuple[int, int]) -> tuple[dict[str, str], Any]:
    """Compile with Triton 2.1-2.3: their ``compile`` builds a host launcher (gcc and libcuda)
    and loads it; both are replaced by recorders, so only the device code is produced."""
    import triton

    if request["target"]["backend"] != "cuda" and version >= (2, 2):
        raise ValueError(
            f"Triton {triton.__version__} has no AMD backend in its wheel "
            "(device_type 'hip' needs a third-party backend)"
        )
    return _compile_21_22(request) if version < (2, 3) else _compile_23(request)


def _compile_21_22(request: dict[str, Any]) -> tuple[dict[str, str], Any]:
    """Triton 2.1-2.2: ``compiler.compile(..., device_type=, cc=)``; the launcher stub and
    ``CompiledKernel`` replaced by a recorder of the metadata and the IR stages."""
    from triton.compiler import compiler

    target = request["target"]
    captured: dict[str, Any] = {}
    compiler.make_stub = lambda *args, **kwargs: ""

    def capture(fn: Any, so_path: str, metadata: dict[str, Any], asm: dict[str, Any]) -> None:
        captured.update(metadata=metadata, asm=asm)

    compiler.CompiledKernel = capture
    if target["backend"] == "cuda":
        kwargs: dict[str, Any] = {"device_type": "cuda", "cc": target["arch"]}
    else:  # 2.1 reads torch.version.hip (the stub's LLVERIFY_TORCH_HIP)
        os.environ["LLVERIFY_TORCH_HIP"] = target["arch"]
        kwargs = {"device_type": "hip", "cc": ["amdgcn-amd-amdhsa", target["arch"], ""]}
    if request["kind"] == "ttgir":
        compiler.compile(request["file"], **kwargs)
    else:
        fn, runtime, constant = request["fn"], request["runtime"], request["constant"]
        compiler.compile(
            fn,
            signature={i: t for i, _, t in runtime},
            constants={i: v for i, _, v in constant},
            num_warps=request["num_warps"],
            **kwargs,
        )
    return {k: v for k, v in captured["asm"].items() if k in TEXT_STAGES}, captured["metadata"]


def _compile_23(request: dict[str, Any]) -> tuple[dict[str, str], Any]:
    """Triton 2.3 (CUDA only): ``compiler.compile(src, target=("cuda", cc))``; the launcher
    stub replaced, ``CompiledKernel`` by a recorder of the metadata file's path (the IR
    stages lie beside it)."""
    from triton.compiler import compiler
    from triton.compiler.backends.cuda import CUDABackend

    captured: dict[str, Any] = {}
    CUDABackend.make_launcher_stub = lambda self, src, metadata: ""

    def capture_path(so_path: str, metadata_path: str) -> None:
        captured["metadata_path"] = Path(metadata_path)

    compiler.CompiledKernel = capture_path
    device = ("cuda", request["target"]["arch"])
    if request["kind"] == "ttgir":
        compiler.compile(request["file"], target=device)
    else:
        fn, runtime, constant = request["fn"], request["runtime"], request["constant"]
        src = compiler.ASTSource(fn, {i: t for i, _, t in runtime}, {i: v for i, _, v in constant})
        compiler.compile(src, target=device, options={"num_warps": request["num_warps"]})
    meta_path: Path = captured["metadata_path"]
    asm = {
        p.suffix[1:]: p.read_text()
        for p in meta_path.parent.glob(f"{meta_path.stem}.*")
        if p.suffix[1:] in TEXT_STAGES
    }
    return asm, json.loads(meta_path.read_text())


def _rocm_linker() -> bool:
    """Whether Triton 3.x finds ``ld.lld`` (its env var, its own copy, or ROCm's)."""
    import triton

    bundled = Path(triton.__file__).parent / "backends" / "amd" / "llvm" / "bin" / "ld.lld"
    candidates = [
        os.environ.get("TRITON_HIP_LLD_PATH", ""),
        str(bundled),
        "/opt/rocm/llvm/bin/ld.lld",
    ]
    return any(c and Path(c).is_file() for c in candidates)


class StoppedAfter(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised by the first stage after the one asked for: compiling stops there."""

    def __init__(self, metadata: dict[str, Any]) -> None:
        super().__init__("stopped")
        self.metadata = metadata


def _stopping(backend: Any, last: str) -> Any:
    """``backend`` whose stages after ``last`` stop the compile (:class:`StoppedAfter`) once
    the metadata the answer needs is there (``shared``: set with the LLVM IR; without it the
    stage runs)."""
    add_stages = backend.add_stages

    def stop_or(stage: Any) -> Any:
        def run(src: Any, metadata: dict[str, Any]) -> Any:
            if "shared" in metadata:
                raise StoppedAfter(metadata)
            return stage(src, metadata)

        return run

    def add(stages: dict[str, Any], *args: Any, **kwargs: Any) -> None:
        add_stages(stages, *args, **kwargs)
        names = list(stages)
        if last in names:
            for name in names[names.index(last) + 1 :]:
                stages[name] = stop_or(stages[name])

    backend.add_stages = add
    return backend


def _stages(compiled: Any) -> tuple[dict[str, str], Any]:
    """The IR stages (text) and the metadata (a dict) of Triton's compiled kernel."""
    metadata = compiled.metadata
    if not isinstance(metadata, dict):
        metadata = metadata._asdict()
    return {k: v for k, v in compiled.asm.items() if k in TEXT_STAGES}, metadata


def _compile_until(request: dict[str, Any], compile_it: Any) -> tuple[dict[str, str], Any]:
    """``compile_it()`` (a ``triton.compile``) stopped after the stage ``request["until"]``:
    the IR stages read back from the request's own Triton cache, the metadata as the last
    stage left it.  Without ``until`` (or a release without ``make_backend``): every stage."""
    from triton.compiler import compiler

    make_backend = getattr(compiler, "make_backend", None)
    if not request.get("until") or make_backend is None:
        return _stages(compile_it())
    compiler.make_backend = lambda target: _stopping(make_backend(target), request["until"])
    try:
        return _stages(compile_it())  # every stage ran: the metadata was not there
    except StoppedAfter as stop:
        files = Path(os.environ["TRITON_CACHE_DIR"]).glob("*/*.*")
        asm = {p.suffix[1:]: p.read_text() for p in files if p.suffix[1:] in TEXT_STAGES}
        return asm, stop.metadata
    finally:
        compiler.make_backend = make_backend


def compile_3x(request: dict[str, Any], version: tuple[int, int]) -> tuple[dict[str, str], Any]:
    """Compile with Triton 3.0-3.9 (``triton.compile`` with a ``GPUTarget``)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    spec = request["target"]
    target = GPUTarget(spec["backend"], spec["arch"], spec["warp_size"])
    if spec["backend"] == "hip" and not _rocm_linker():
        from triton.backends import backends

        hip_backend = backends["amd"].compiler  # 3.0-3.3 load it under another module name
        # the hsaco stage only links the AMDGCN already produced: skip it without a linker
        # (the backend's hash, a cache key, also runs the linker)
        hip_backend.make_hsaco = staticmethod(lambda *args, **kwargs: b"")
        hip_backend.hash = lambda self: f"llverify-no-lld-{self.target}"
    if request["kind"] == "ttgir":
        return _compile_until(request, lambda: triton.compile(request["file"], target=target))
    fn, runtime, constant = request["fn"], request["runtime"], request["constant"]
    if version < (3, 1):  # keyed by parameter index
        src = ASTSource(fn, {i: t for i, _, t in runtime}, {i: v for i, _, v in constant})
    elif version < (3, 3):  # keyed by name; constexprs are not in the signature
        src = ASTSource(fn, {n: t for _, n, t in runtime}, {n: v for _, n, v in constant})
    else:  # every parameter in the signature, constexprs typed "constexpr"
        values = {n: v for _, n, v in constant}
        types = {n: t for _, n, t in runtime}
        signature = {n: types.get(n, "constexpr") for n in fn.arg_names}
        src = ASTSource(fn, signature, constexprs=values)
    options = {"num_warps": request["num_warps"]}
    return _compile_until(request, lambda: triton.compile(src, target=target, options=options))


def run(request: dict[str, Any]) -> dict[str, Any]:
    """Compile the request; the result dict written to stdout."""
    import triton

    version = release(triton.__version__)
    with tempfile.TemporaryDirectory(prefix="llverify-compile-") as tmp:
        os.environ["TRITON_CACHE_DIR"] = os.path.join(tmp, "cache")
        if request["kind"] == "ttgir":
            request["file"] = os.path.join(tmp, "module.ttgir")
            Path(request["file"]).write_text(request["text"])
        else:
            request["fn"] = load_function(request["path"], request["function"])
            request["runtime"], request["constant"] = split_arguments(
                request["fn"], request["signature"], request["constexprs"]
            )
        start = time.perf_counter()
        if version < (3, 0):
            asm, metadata = compile_2x(request, version)
        else:
            asm, metadata = compile_3x(request, version)
        seconds = time.perf_counter() - start
    return {
        "ok": True,
        "version": triton.__version__,
        "name": metadata.get("name", ""),
        "shared": int(metadata.get("shared", 0)),
        "num_warps": int(metadata.get("num_warps", 0)),
        "asm": asm,
        "seconds": seconds,
    }


def without_cache_key_hash(version: str) -> None:
    """Replace Triton's ``triton_key`` (the hash of its own sources and of its ~500 MB library,
    a second once per process; only a part of the on-disk cache's key) by ``version``: each
    compile here has an empty cache of its own, so the key never finds anything.  Triton's
    compile-warmup workers do the same."""
    original = None  # defined in one of these (both loaded by ``import triton``)
    for name in ("triton.runtime.cache", "triton.compiler.compiler"):
        original = getattr(sys.modules.get(name), "triton_key", None)
        if original is not None:
            break
    if original is None:
        return
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("triton") and (
            getattr(module, "triton_key", None) is original
        ):
            module.triton_key = lambda: f"llverify-{version}"  # type: ignore[attr-defined]


def load_protocol() -> Any:
    """``protocol.py`` beside this file (:mod:`llverify.triton.protocol`), loaded by its path:
    under a release's interpreter llverify is not importable, and that module imports only
    the standard library."""
    path = Path(__file__).resolve().with_name("protocol.py")
    spec = importlib.util.spec_from_file_location("llverify_worker_protocol", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the worker protocol {str(path)!r}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    """Say ready with Triton's version, then answer each request line of stdin (the
    protocol's ``@@`` lines) until stdin closes."""
    protocol = load_protocol()
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    try:
        import triton
    except Exception as error:  # no Triton here: said once, then the worker ends
        protocol.answer(
            {"ready": False, "version": None, "error": f"{type(error).__name__}: {error}"}
        )
        return
    without_cache_key_hash(triton.__version__)
    protocol.answer({"ready": True, "version": triton.__version__})
    for request in protocol.read_requests(sys.stdin):
        try:
            result = run(request)
        except Exception as error:  # Triton's refusal, reported to the caller as data
            message = str(error).strip() or repr(error)
            result = {
                "ok": False,
                "version": triton.__version__,
                "error": f"{type(error).__name__}: {message}",
            }
        protocol.answer(result)


if __name__ == "__main__":
    main()
