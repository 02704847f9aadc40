"""Compile a TTGIR module or a Triton kernel with an installed Triton release, out of process.

Triton is an oracle here, never a dependency: this module does not import it.  Each compile
runs ``compile_worker.py`` as a script under the interpreter of the virtualenv that holds the
wanted release (2.1 to 3.9; default: the current interpreter; :mod:`llverify.triton.releases`
finds the release virtualenvs), since Triton aborts the process on a failed precondition and
releases cannot share a virtualenv; the two speak :mod:`llverify.triton.protocol`.  TTGIR
written in Triton 3.9's spelling is translated to the dialect the release parses
(:data:`TRANSLATIONS`, keyed by the release that introduced each 3.9 spelling).
docs/validation.md, "Compiling with Triton releases", records what each release compiles for
each target.

Examples:
    >>> parse_target("hip:gfx942")
    {'backend': 'hip', 'arch': 'gfx942', 'warp_size': 64}
    >>> print(translate_ttgir('%y = ttg.convert_layout %x : tensor<4xf16, #a> -> tensor<4xf16, #b>',
    ...                       "3.2.0"))
    %y = triton_gpu.convert_layout %x : tensor<4xf16, #a> -> tensor<4xf16, #b>
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llverify.triton import protocol

__all__ = [
    "TRANSLATIONS",
    "CompileError",
    "CompiledKernel",
    "compile_python",
    "compile_ttgir",
    "installed_triton_version",
    "parse_target",
    "translate_ttgir",
]

WORKER = Path(__file__).resolve().with_name("compile_worker.py")


@dataclass(frozen=True)
class CompiledKernel:
    """What one Triton release emitted for one kernel and target (the IR stages as text)."""

    name: str  # kernel function name
    target: str  # "cuda:90", "hip:gfx942", ...
    triton_version: str
    num_warps: int
    threads_per_warp: int
    num_ctas: int
    shared_bytes: int  # metadata.shared
    ttgir: str  # the TTGIR Triton compiled (after its passes)
    llir: str  # compiled.asm["llir"]
    ptx: str | None
    amdgcn: str | None
    seconds: float  # compile time in the worker


class CompileError(ValueError):
    """Triton refused or failed to compile; the message names the target, the release and
    Triton's last error lines."""


def parse_target(target: str) -> dict[str, Any]:
    """The worker's target record for ``"cuda:<sm>"`` or ``"hip:<gfx arch>"``.

    >>> parse_target("cuda:90")
    {'backend': 'cuda', 'arch': 90, 'warp_size': 32}
    """
    backend, _, arch = str(target).partition(":")
    if backend == "cuda" and arch.isascii() and arch.isdigit():
        return {"backend": "cuda", "arch": int(arch), "warp_size": 32}
    if backend == "hip" and re.fullmatch(r"gfx[0-9a-f]+", arch):
        return {"backend": "hip", "arch": arch, "warp_size": 64}
    raise ValueError(
        f"target={target!r}: expected 'cuda:<sm>' (e.g. 'cuda:90') or "
        "'hip:<gfx arch>' (e.g. 'hip:gfx942')"
    )


def _release(version: str) -> tuple[int, int]:
    """(major, minor) of a version string such as ``"3.2.0"``."""
    match = re.match(r"(\d+)\.(\d+)", version)
    if match is None:
        raise ValueError(f"release={version!r}: expected a Triton version such as '3.2.0'")
    return int(match.group(1)), int(match.group(2))


# --------------------------------------------------------------------------- translation

_OPEN, _CLOSE = "<{([", ">})]"


def _top_level(text: str, token: str) -> list[int]:
    """Offsets of ``token`` in ``text`` outside any <...>, {...}, (...) or [...]."""
    depth, found = 0, []
    i = 0
    while i < len(text):
        if text.startswith(token, i) and depth == 0:
            found.append(i)
            i += len(token)
            continue
        ch = text[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE and not (ch == ">" and text[i - 1] == "-"):
            depth -= 1
        i += 1
    return found


def _split_loc(line: str) -> tuple[str, str]:
    """A line without its trailing ``loc(...)``, and that suffix."""
    match = re.search(r"\s+loc\(.*\)\s*$", line)
    return (line[: match.start()], line[match.start() :]) if match else (line, "")


def _type_part(line: str) -> tuple[str, str] | None:
    """(head, types) of an op line split at its last top-level `` : ``."""
    cuts = _top_level(line, " : ")
    return (line[: cuts[-1]], line[cuts[-1] + 3 :]) if cuts else None


_FUNCTIONAL_OPS = re.compile(
    r"=\s*(tt\.(splat|broadcast|expand_dims|reshape|trans|fp_to_fp|bitcast|int_to_ptr"
    r"|ptr_to_int)|triton_gpu\.convert_layout)\b"
)


def _functional_types(text: str) -> str:
    """2.x prints ``: (A) -> B`` where 3.x prints ``: A -> B`` for these ops."""
    out = []
    for line in text.splitlines():
        body, loc = _split_loc(line)
        split = _type_part(body) if _FUNCTIONAL_OPS.search(body) else None
        if split is not None:
            head, types = split
            arrows = _top_level(types, " -> ")
            if arrows and not types.startswith("("):
                types = f"({types[: arrows[0]]}){types[arrows[0] :]}"
                line = f"{head} : {types}{loc}"
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _pointee_tensor(ptr_type: str) -> str:
    """``tensor<SHAPEx!tt.ptr<T>, ENC>`` -> ``tensor<SHAPExT, ENC>`` (a scalar pointer -> T)."""
    return re.sub(r"!tt\.ptr<([^,<>]+)(,\s*\d+)?>", r"\1", ptr_type, count=1)


def _load_store_2x(text: str) -> str:
    """2.x types tt.load/tt.store by the value (3.x: the pointer) and wants cache/evict."""
    out = []
    for line in text.splitlines():
        body, loc = _split_loc(line)
        match = re.search(r"\btt\.(load|store)\s", body)
        split = _type_part(body) if match else None
        if match and split is not None:
            head, types = split
            if "{" not in head[match.end() :]:
                attrs = "cache = 1 : i32, evict = 1 : i32"
                head += (
                    " {" + attrs + (", isVolatile = false}" if match.group(1) == "load" else "}")
                )
            line = f"{head} : {_pointee_tensor(types)}{loc}"
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _nvmma_to_legacy(match: re.Match[str]) -> str:
    """``#ttg.nvmma_shared`` (3.3+) as the pre-3.3 ``#shared`` with hasLeadingOffset (rank 2)."""
    width, transposed, bits = int(match.group(1)), match.group(2) == "true", int(match.group(3))
    if width == 0:
        vec = per_phase = max_phase = 1
    else:
        vec, per_phase, max_phase = 128 // bits, 128 // width, width // 16
    order = "[0, 1]" if transposed else "[1, 0]"
    return (
        f"#ttg.shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, "
        f"order = {order}, hasLeadingOffset = true}}>"
    )


_MEMDESC_INDEX = re.compile(
    r"^(?P<indent>\s*)(?P<lhs>%[\w#]+ = )ttg\.memdesc_index (?P<src>%[\w#]+)\[(?P<idx>%[\w#]+)\]"
    r"(?P<rest> : !ttg\.memdesc<(?P<shape>(?:\d+x)+)[^\n]*)$",
    re.MULTILINE,
)


def _memdesc_subview(text: str) -> str:
    """Before 3.5 ``memdesc_index %a[%i]`` is ``memdesc_subview %a[%i, 0, ...]`` (one index
    per dimension of the source; the zeros are constants defined just before)."""

    def rewrite(match: re.Match[str]) -> str:
        rank = match.group("shape").count("x")
        zero = f"%llverify_zero_{match.start()}"
        indices = ", ".join([match.group("idx")] + [zero] * (rank - 1))
        return (
            f"{match.group('indent')}{zero} = arith.constant 0 : i32\n"
            f"{match.group('indent')}{match.group('lhs')}ttg.memdesc_subview "
            f"{match.group('src')}[{indices}]{match.group('rest')}"
        )

    return _MEMDESC_INDEX.sub(rewrite, text)


def _sub(pattern: str, repl: str | Callable[[re.Match[str]], str]) -> Callable[[str], str]:
    compiled = re.compile(pattern)
    return lambda text: compiled.sub(repl, text)


def _drop_memory_space(text: str) -> str:
    """Before 3.2 a memdesc names no memory space: drop ``#triton_gpu.shared_memory`` and its
    aliases."""
    aliases = re.findall(r"^#(\w+) = #triton_gpu\.shared_memory\s*$", text, flags=re.M)
    text = re.sub(r"^#\w+ = #triton_gpu\.shared_memory\s*\n", "", text, flags=re.M)
    for name in ["triton_gpu.shared_memory", *aliases]:
        text = re.sub(rf",\s*#{re.escape(name)}(?=[,>])", "", text)
    return text


def _cta_params(text: str) -> str:
    """2.2-2.3 need CTAsPerCGA/CTASplitNum/CTAOrder spelled out (one CTA: all ones)."""

    def add(match: re.Match[str]) -> str:
        body = match.group(2)
        if "CTAsPerCGA" in body:
            return match.group(0)
        key = "order" if match.group(1) != "mma" else "warpsPerCTA"
        dims = re.search(rf"\b{key} = \[([\d, ]*)\]", body)
        if dims is None:
            return match.group(0)
        rank = len(dims.group(1).split(","))
        ones = ", ".join(["1"] * rank)
        order = dims.group(1) if key == "order" else ", ".join(map(str, range(rank - 1, -1, -1)))
        extra = f", CTAsPerCGA = [{ones}], CTASplitNum = [{ones}], CTAOrder = [{order}]"
        cut = dims.end()
        return f"#triton_gpu.{match.group(1)}<{{{body[:cut]}{extra}{body[cut:]}}}>"

    return re.sub(r"#triton_gpu\.(blocked|shared|mma)<\{([^}]*)\}>", add, text)


def _target_2x(text: str) -> str:
    """2.2-2.3 name the target by ``triton_gpu.compute-capability`` (CUDA only)."""
    return re.sub(
        r'triton_gpu\.target = "cuda:(\d+)"', r'"triton_gpu.compute-capability" = \1 : i32', text
    )


#: (first release with the 3.9 spelling, what changed, rewrite from that spelling to the one
#: before), newest first.  A release older than the key gets the rewrite.
TRANSLATIONS: tuple[tuple[tuple[int, int], str, Callable[[str], str]], ...] = (
    ((3, 9), 'module attribute "ttng.two-ctas"', _sub(r',\s*"ttng\.two-ctas" = (true|false)', "")),
    ((3, 6), "AMD dialect prefix amdg. (was amdgpu.)", _sub(r"(?<![\w%$.#])amdg\.", "amdgpu.")),
    (
        (3, 6),
        "amd_mfma instrShape with K (was [M, N])",
        _sub(r"(#ttg\.amd_mfma<\{[^}]*instrShape = \[\d+, \d+), \d+\]", r"\1]"),
    ),
    (
        (3, 5),
        "amd_mfma version = V (was versionMajor = V, versionMinor = 0)",
        _sub(r"(#ttg\.amd_mfma<\{)version = (\d+)", r"\1versionMajor = \2, versionMinor = 0"),
    ),
    (
        (3, 5),
        "ttg.memdesc_index %a[%i] (was ttg.memdesc_subview %a[%i, 0, ...])",
        _memdesc_subview,
    ),
    (
        (3, 3),
        "#ttg.nvmma_shared (was #shared with hasLeadingOffset = true)",
        _sub(
            r"#ttg\.nvmma_shared<\{swizzlingByteWidth = (\d+), transposed = (true|false), "
            r"elementBitWidth = (\d+)[^}]*\}>",
            _nvmma_to_legacy,
        ),
    ),
    (
        (3, 3),
        "#ttg.swizzled_shared (was #shared with hasLeadingOffset = false)",
        _sub(r"#ttg\.swizzled_shared<\{([^}]*)\}>", r"#ttg.shared<{\1, hasLeadingOffset = false}>"),
    ),
    ((3, 3), "!ttg.memdesc (was !tt.memdesc)", _sub(r"!ttg\.memdesc<", "!tt.memdesc<")),
    (
        (3, 3),
        "dialect prefixes ttg. and ttng. (were triton_gpu. and triton_nvidia_gpu.)",
        lambda text: re.sub(
            r"(?<![\w%$.])ttng\.",
            "triton_nvidia_gpu.",
            re.sub(r"(?<![\w%$.])ttg\.", "triton_gpu.", text),
        ),
    ),
    ((3, 2), "memdesc memory space #shared_memory (absent before)", _drop_memory_space),
    ((3, 0), "nvidia_mma (was mma)", _sub(r"#triton_gpu\.nvidia_mma<", "#triton_gpu.mma<")),
    ((3, 0), "op types A -> B (were (A) -> B)", _functional_types),
    (
        (3, 0),
        "tt.load/tt.store typed by the pointer (were by the value, with cache/evict)",
        _load_store_2x,
    ),
    ((3, 0), "module attribute triton_gpu.target (was triton_gpu.compute-capability)", _target_2x),
    ((3, 0), "CTA parameters of blocked, shared and mma (required in 2.2-2.3)", _cta_params),
    (
        (2, 2),
        'module attributes "triton_gpu.num-ctas", compute-capability (absent in 2.1)',
        _sub(
            r'"triton_gpu\.(num-ctas|compute-capability)" = \d+ : i32(,\s*)?|'
            r',\s*"triton_gpu\.(num-ctas|compute-capability)" = \d+ : i32',
            "",
        ),
    ),
    (
        (2, 2),
        "arith.maxnumf/minnumf (were arith.maxf/minf in 2.1)",
        _sub(r"\barith\.(max|min)numf\b", r"arith.\1f"),
    ),
    (
        (2, 2),
        "tt.func attributes {...} (2.1 finds the prototype by a pattern without them)",
        _sub(r"(?m)(tt\.func\s[^\n]*\))\s+attributes \{[^\n]*\}(\s*\{\s*)$", r"\1\2"),
    ),
    (
        (2, 2),
        "shared encoding hasLeadingOffset = false (absent in 2.1)",
        _sub(r"(#triton_gpu\.shared<\{[^}]*), hasLeadingOffset = false", r"\1"),
    ),
    (
        (2, 2),
        "CTA parameters (absent in 2.1)",
        _sub(r", CTAsPerCGA = \[[\d, ]*\], CTASplitNum = \[[\d, ]*\], CTAOrder = \[[\d, ]*\]", ""),
    ),
)


def translate_ttgir(text: str, release: str) -> str:
    """``text``, a TTGIR module in Triton 3.9's spelling, in the spelling ``release`` parses.

    >>> swizzled = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>"
    >>> translate_ttgir(swizzled, "3.2.0").split(", ")[-1]
    'hasLeadingOffset = false}>'
    """
    wanted = _release(release)
    for since, _, rewrite in TRANSLATIONS:
        if wanted < since:
            text = rewrite(text)
    return text


def _retarget(text: str, target: str) -> str:
    """``text`` with its module's ``ttg.target`` set to ``target`` (added when missing)."""
    pattern = re.compile(r'ttg\.target = "[^"]*"')
    if pattern.search(text):
        return pattern.sub(f'ttg.target = "{target}"', text, count=1)
    attrs = re.search(r"module attributes \{", text)
    if attrs is None:
        raise ValueError(
            "text: expected a TTGIR module with 'module attributes {...}' "
            "(num-warps and threads-per-warp)"
        )
    return f'{text[: attrs.end()]}ttg.target = "{target}", {text[attrs.end() :]}'


# --------------------------------------------------------------------------- running Triton


def _useful_stderr(stderr: str) -> str:
    """Triton's error lines, each once: no nanobind leak report, warning or worker traceback."""
    lines: list[str] = []
    skipping = False
    for line in stderr.splitlines():
        if any(noise in line for noise in ("leaked", "nanobind", "UserWarning", "warn_once(")):
            continue
        if line.startswith("Traceback (most recent call last)"):
            skipping = True
            continue
        if skipping and (line.startswith("  ") or not line.strip()):
            continue
        skipping = False
        if line.strip() and line not in lines:
            lines.append(line)
    return "\n".join(lines[-20:])


def _run_worker(
    request: dict[str, Any], target: str, python: str | None, timeout_s: float
) -> dict[str, Any]:
    """The worker's result record; CompileError when it fails, aborts or times out."""
    interpreter = python or sys.executable
    env = dict(os.environ, TRITON_DEFAULT_FP_FUSION=os.environ.get("TRITON_DEFAULT_FP_FUSION", "1"))
    env.pop("PYTHONPATH", None)  # the release's own site-packages only
    try:
        proc = subprocess.run(
            [interpreter, str(WORKER)],
            input=protocol.request_text(request),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise CompileError(
            f"compiling for {target} with {interpreter}: no answer within {timeout_s} s (timeout_s)"
        ) from exc
    except OSError as exc:
        raise CompileError(
            f"compiling for {target}: cannot run python={interpreter!r}: {exc}"
        ) from exc
    result = next(iter(protocol.answers(proc.stdout)), None)
    version = installed_triton_version(interpreter) if result is None else None
    if result is None or not result["ok"]:
        release = result.get("version") if result else version
        what = result["error"] if result else f"the worker died (exit status {proc.returncode})"
        detail = _useful_stderr(proc.stderr)
        raise CompileError(
            f"Triton {release or '(not found)'} failed to compile for {target}: "
            f"{what}" + (f"\n{detail}" if detail else "")
        )
    return result


def _module_int(ttgir: str, name: str, default: int) -> int:
    """The module attribute ``<dialect>.<name>`` of a compiled TTGIR (any release's prefix)."""
    match = re.search(rf'"(?:ttg|triton_gpu)\.{re.escape(name)}" = (\d+)', ttgir)
    return int(match.group(1)) if match else default


def _kernel(result: dict[str, Any], target: str) -> CompiledKernel:
    asm = result["asm"]
    ttgir = asm.get("ttgir", "")
    warp_size = parse_target(target)["warp_size"]
    func = re.search(r"tt\.func\s+(?:public\s+)?@(\w+)", ttgir)
    return CompiledKernel(
        name=func.group(1) if func else result["name"],
        target=target,
        triton_version=result["version"],
        num_warps=_module_int(ttgir, "num-warps", result.get("num_warps") or 4),
        threads_per_warp=_module_int(ttgir, "threads-per-warp", warp_size),
        num_ctas=_module_int(ttgir, "num-ctas", 1),
        shared_bytes=result["shared"],
        ttgir=ttgir,
        llir=asm.get("llir", ""),
        ptx=asm.get("ptx"),
        amdgcn=asm.get("amdgcn"),
        seconds=result["seconds"],
    )


def installed_triton_version(python: str | None = None) -> str | None:
    """The Triton version ``python`` (default: this interpreter) imports, or None (asked once
    per interpreter and process).

    >>> installed_triton_version("/nonexistent/python") is None
    True
    """
    return _triton_version(python or sys.executable)


@functools.cache
def _triton_version(python: str) -> str | None:
    try:
        proc = subprocess.run(
            [python, "-c", "import triton; print(triton.__version__)"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def compile_ttgir(
    text: str, target: str, *, python: str | None = None, timeout_s: float = 120
) -> CompiledKernel:
    """Compile ``text``, a TTGIR module in Triton 3.9's spelling, for ``target`` with the Triton
    of ``python`` (default: this interpreter), translated to that release's dialect.  The
    module's ``ttg.target`` is set to ``target``; its num-warps, threads-per-warp and layouts are
    kept.

    >>> compile_ttgir("module {}", "cuda:91x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: target='cuda:91x': expected 'cuda:<sm>' (e.g. 'cuda:90') or ...
    """
    spec = parse_target(target)
    if not isinstance(text, str):
        raise TypeError(f"text: expected the TTGIR module as str, got {type(text).__name__}")
    release = installed_triton_version(python)
    if release is None:
        raise CompileError(
            f"compiling for {target}: python={python or sys.executable!r} cannot import triton"
        )
    if _release(release) < (3, 0) and re.search(r'"?tt\.scan"?\(.*reverse = true', text):
        # 2.x parses the attribute and ignores it: it would compile a forward scan
        raise CompileError(
            f"Triton {release} has no reverse scans (tt.scan's reverse attribute arrived in "
            "3.0; this release would silently scan forward)"
        )
    module = translate_ttgir(_retarget(text, target), release)
    result = _run_worker(
        {"kind": "ttgir", "text": module, "target": spec}, target, python, timeout_s
    )
    return _kernel(result, target)


def compile_python(
    path: str,
    function: str,
    *,
    signature: dict[str, str],
    constexprs: dict[str, object],
    target: str,
    num_warps: int = 4,
    python: str | None = None,
    timeout_s: float = 120,
) -> CompiledKernel:
    """Compile the ``@triton.jit`` function ``function`` of the file ``path`` for ``target``
    with the Triton of ``python`` (default: this interpreter).  ``signature`` types each runtime
    argument (``"*fp32"``, ``"i32"``, ...), ``constexprs`` gives each constexpr's value (JSON
    values only).

    >>> compile_python("k.py", "k", signature={}, constexprs={}, target="cuda:90", num_warps=3)
    Traceback (most recent call last):
    ...
    ValueError: num_warps=3: expected a power of 2 from 1 to 32
    """
    spec = parse_target(target)
    if not (
        isinstance(num_warps, int) and 1 <= num_warps <= 32 and num_warps & (num_warps - 1) == 0
    ):
        raise ValueError(f"num_warps={num_warps!r}: expected a power of 2 from 1 to 32")
    try:
        json.dumps(constexprs)
    except TypeError as exc:
        raise TypeError(f"constexprs={constexprs!r}: expected JSON values ({exc})") from exc
    request = {
        "kind": "python",
        "path": str(Path(path).resolve()),
        "function": function,
        "signature": dict(signature),
        "constexprs": dict(constexprs),
        "num_warps": num_warps,
        "target": spec,
    }
    return _kernel(_run_worker(request, target, python, timeout_s), target)
