"""Compile a TTGIR module or a Triton kernel with an installed Triton release, out of process.

Triton is an oracle here, never a dependency: this module does not import it.  Compiles run
in ``compile_worker.py``, a persistent worker process under the interpreter of the virtualenv
that holds the wanted release (2.1 to 3.9; default: the current interpreter;
:mod:`llverify.triton.releases` finds the release virtualenvs), one per interpreter and
process (:mod:`llverify.triton.workers`), since Triton aborts the process on a failed
precondition and releases cannot share a virtualenv; the two speak
:mod:`llverify.triton.protocol`.  TTGIR
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
import importlib.metadata
import json
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llverify.triton.workers import (
    SCRIPT,
    WorkerDiedError,
    WorkerError,
    WorkerTimeoutError,
    worker_for,
)
from llverify.ttgir import (
    Attributes,
    ModuleAttributes,
    ModuleError,
    Operation,
    balanced_end,
    parse_attribute_dict,
    parse_module,
    parse_type,
    read_aliases,
    read_module_header,
    read_operation,
    split_top,
    type_text,
)

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

WORKER = SCRIPT


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
#
# A rewrite reads what it needs (operation names and signatures, the module's attributes, the
# alias definitions, an encoding's fields) with the TTGIR reader and changes the spelling in
# the text; a plain renaming (a dialect prefix, a mnemonic, an operation name) is a regular
# expression on the text.


def _lines(text: str, rewrite: Callable[[Operation, str], str]) -> str:
    """``text`` with each operation line rewritten by ``rewrite(op, line)``."""
    out = []
    for line in text.splitlines():
        op = read_operation(line)
        out.append(line if op is None else rewrite(op, line))
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _entries(whole: str, fields: Attributes, names: frozenset[str]) -> str:
    """The dictionary of ``fields`` (read from ``whole``) without the entries ``names``."""
    kept = []
    for name in fields:
        span = fields.entry_span(name)
        if name not in names and span is not None:
            kept.append(whole[span[0] : span[1]])
    return "{" + ", ".join(kept) + "}"


def _edit_attributes(
    mnemonics: tuple[str, ...], edit: Callable[[str, Attributes, str], str]
) -> Callable[[str], str]:
    """A rewrite of every attribute ``#dialect.mnemonic<{...}>`` of ``mnemonics`` in a text
    into ``edit(mnemonic, fields, whole)``: its fields as the reader reads them, its text."""

    def rewrite(text: str) -> str:
        out, i = [], 0
        while True:
            found = [(text.find(m + "<{", i), m) for m in mnemonics]
            starts = [(at, m) for at, m in found if at >= 0]
            if not starts:
                break
            start, mnemonic = min(starts)
            end = balanced_end(text, start + len(mnemonic))
            whole = text[start:end]
            fields = parse_attribute_dict(whole, len(mnemonic) + 1)[0]
            out += [text[i:start], edit(mnemonic, fields, whole)]
            i = end
        return "".join(out) + text[i:]

    return rewrite


ModuleEdit = Callable[[ModuleAttributes, str, tuple[int, int]], str | None]


def _edit_module(edit: ModuleEdit) -> Callable[[str], str]:
    """A rewrite of the module's attribute dictionary (at ``text[start:end]``) into
    ``edit(attributes, text, (start, end))`` (None: unchanged)."""

    def rewrite(text: str) -> str:
        header = read_module_header(text)
        if header.dictionary is None:
            return text
        start, end = header.dictionary
        edited = edit(header.attributes, text, header.dictionary)
        return text if edited is None else text[:start] + edited + text[end:]

    return rewrite


def _drop_module_attributes(*names: str) -> Callable[[str], str]:
    """A rewrite without the module attributes ``names``."""

    def edit(module: ModuleAttributes, text: str, dictionary: tuple[int, int]) -> str | None:
        if not any(name in module.attributes for name in names):
            return None
        return _entries(text, module.attributes, frozenset(names))

    return _edit_module(edit)


_FUNCTIONAL_OPS = frozenset(
    {
        "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.trans", "tt.fp_to_fp",
        "tt.bitcast", "tt.int_to_ptr", "tt.ptr_to_int", "triton_gpu.convert_layout",
    }
)  # fmt: skip


def _functional_types(text: str) -> str:
    """2.x prints ``: (A) -> B`` where 3.x prints ``: A -> B`` for these ops."""

    def rewrite(op: Operation, line: str) -> str:
        pieces = op.pieces if op.name in _FUNCTIONAL_OPS and op.results else None
        if pieces is None:
            return line
        before, signature, location = pieces
        sides = split_top(signature, "->")
        if len(sides) != 2 or signature.startswith("("):
            return line
        return f"{before} : ({sides[0]}) -> {sides[1]}{location}"

    return _lines(text, rewrite)


def _pointee_types(signature: str) -> str:
    """The first type of ``signature`` with its pointers' pointee: ``tensor<SHAPEx!tt.ptr<T>,
    ENC>`` -> ``tensor<SHAPExT, ENC>``, ``!tt.ptr<T>`` -> ``T``."""
    types = split_top(signature)
    first = parse_type(types[0])
    if first.kind == "pointer":
        types[0] = first.pointee
    elif first.kind == "tensor" and first.element.startswith("!tt.ptr<"):
        pointee = parse_type(first.element).pointee
        types[0] = type_text(first.shape, pointee, first.written_encoding)
    return ", ".join(types)


def _load_store_2x(text: str) -> str:
    """2.x types tt.load/tt.store by the value (3.x: the pointer) and wants cache/evict."""

    def rewrite(op: Operation, line: str) -> str:
        pieces = op.pieces if op.name in ("tt.load", "tt.store") else None
        if pieces is None:
            return line
        before, signature, location = pieces
        if not op.attribute_texts:
            attrs = "cache = 1 : i32, evict = 1 : i32"
            before += " {" + attrs + (", isVolatile = false}" if op.name == "tt.load" else "}")
        return f"{before} : {_pointee_types(signature)}{location}"

    return _lines(text, rewrite)


def _nvmma_to_legacy(mnemonic: str, fields: Attributes, whole: str) -> str:
    """``#ttg.nvmma_shared`` (3.3+) as the pre-3.3 ``#shared`` with hasLeadingOffset (rank 2)."""
    width, bits = fields.integer("swizzlingByteWidth"), fields.integer("elementBitWidth")
    transposed = fields.boolean("transposed")
    if width is None or bits is None or transposed is None:
        return whole
    if width == 0:
        vec = per_phase = max_phase = 1
    else:
        vec, per_phase, max_phase = 128 // bits, 128 // width, width // 16
    order = "[0, 1]" if transposed else "[1, 0]"
    return (
        f"#ttg.shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, "
        f"order = {order}, hasLeadingOffset = true}}>"
    )


def _swizzled_to_legacy(mnemonic: str, fields: Attributes, whole: str) -> str:
    """``#ttg.swizzled_shared`` (3.3+) as the pre-3.3 ``#shared`` without a leading offset."""
    return f"#ttg.shared<{whole[len(mnemonic) + 1 : -2]}, hasLeadingOffset = false}}>"


def _mfma_instr_shape_2d(mnemonic: str, fields: Attributes, whole: str) -> str:
    """An ``amd_mfma`` instrShape ``[M, N, K]`` as the older ``[M, N]``."""
    shape, span = fields.integers("instrShape"), fields.span("instrShape")
    if shape is None or len(shape) != 3 or span is None:
        return whole
    return f"{whole[: span[0]]}[{shape[0]}, {shape[1]}]{whole[span[1] :]}"


def _mfma_version_major(mnemonic: str, fields: Attributes, whole: str) -> str:
    """An ``amd_mfma`` ``version = V`` as the older ``versionMajor = V, versionMinor = 0``."""
    version, span = fields.integer("version"), fields.entry_span("version")
    if version is None or span is None:
        return whole
    renamed = f"versionMajor = {version}, versionMinor = 0"
    return f"{whole[: span[0]]}{renamed}{whole[span[1] :]}"


def _memdesc_subview(text: str) -> str:
    """Before 3.5 ``memdesc_index %a[%i]`` is ``memdesc_subview %a[%i, 0, ...]`` (one index
    per dimension of the source; the zeros are constants defined just before)."""
    out, offset = [], 0
    for line in text.split("\n"):
        op = read_operation(line)
        out.append(line if op is None else _subview(op, line, offset))
        offset += len(line) + 1
    return "\n".join(out)


def _subview(op: Operation, line: str, offset: int) -> str:
    """``line`` as a ``memdesc_subview`` when it holds a ``memdesc_index %a[%i]``."""
    if op.name != "ttg.memdesc_index" or len(op.results) != 1 or len(op.operands) != 2:
        return line
    pieces = op.pieces
    if pieces is None or op.subscripts != ((op.operands[1],),):
        return line
    source = op.operand_types[0]
    if source.kind != "memdesc":
        return line
    _, signature, location = pieces
    indent = line[: len(line) - len(line.lstrip())]
    zero = f"%llverify_zero_{offset}"
    indices = ", ".join([op.operands[1]] + [zero] * (len(source.shape) - 1))
    return (
        f"{indent}{zero} = arith.constant 0 : i32\n{indent}{op.results[0]} = "
        f"ttg.memdesc_subview {op.operands[0]}[{indices}] : {signature}{location}"
    )


def _sub(pattern: str, repl: str | Callable[[re.Match[str]], str]) -> Callable[[str], str]:
    compiled = re.compile(pattern)
    return lambda text: compiled.sub(repl, text)


_SPACE = "#triton_gpu.shared_memory"


def _drop_memory_space(text: str) -> str:
    """Before 3.2 a memdesc names no memory space: drop ``#triton_gpu.shared_memory`` and its
    aliases."""
    aliases = [name for name, value in read_aliases(text.splitlines()).items() if value == _SPACE]
    lines = text.splitlines(keepends=True)
    text = "".join(line for line in lines if not _defines_space(line))
    for name in [_SPACE, *aliases]:
        text = re.sub(rf",\s*{re.escape(name)}(?=[,>])", "", text)
    return text


def _defines_space(line: str) -> bool:
    """Whether ``line`` (with its line break) defines an alias of the memory space."""
    return line.endswith("\n") and list(read_aliases([line]).values()) == [_SPACE]


def _cta_params(mnemonic: str, fields: Attributes, whole: str) -> str:
    """2.2-2.3 need CTAsPerCGA/CTASplitNum/CTAOrder spelled out (one CTA: all ones)."""
    key = "warpsPerCTA" if mnemonic.endswith(".mma") else "order"
    dims, span = fields.integers(key), fields.span(key)
    if "CTAsPerCGA" in fields or dims is None or span is None:
        return whole
    rank = len(dims)
    ones = ", ".join(["1"] * rank)
    order = fields[key][1:-1] if key == "order" else ", ".join(map(str, range(rank - 1, -1, -1)))
    extra = f", CTAsPerCGA = [{ones}], CTASplitNum = [{ones}], CTAOrder = [{order}]"
    return whole[: span[1]] + extra + whole[span[1] :]


def _without_fields(*names: str) -> Callable[[str, Attributes, str], str]:
    """An attribute edit that drops the fields ``names``."""

    def edit(mnemonic: str, fields: Attributes, whole: str) -> str:
        if not any(name in fields for name in names):
            return whole
        return f"{mnemonic}<{_entries(whole, fields, frozenset(names))}>"

    return edit


def _without_false_offset(mnemonic: str, fields: Attributes, whole: str) -> str:
    """A legacy shared encoding without its ``hasLeadingOffset = false``."""
    if fields.get("hasLeadingOffset") != "false":
        return whole
    return _without_fields("hasLeadingOffset")(mnemonic, fields, whole)


def _target_2x(module: ModuleAttributes, text: str, dictionary: tuple[int, int]) -> str | None:
    """2.2-2.3 name the target by ``triton_gpu.compute-capability`` (CUDA only)."""
    target = module.attributes.string("triton_gpu.target") or ""
    span = module.attributes.entry_span("triton_gpu.target")
    arch = target.partition("cuda:")[2]
    if span is None or not target.startswith("cuda:") or not (arch.isascii() and arch.isdigit()):
        return None
    start, end = dictionary
    capability = f'"triton_gpu.compute-capability" = {arch} : i32'
    return f"{text[start : span[0]]}{capability}{text[span[1] : end]}"


def _func_attributes(op: Operation, line: str) -> str:
    """A ``tt.func`` line without its ``attributes {...}``."""
    if op.name != "tt.func" or not op.attribute_texts:
        return line
    return line.replace(f" attributes {op.attribute_texts[-1]}", "", 1)


_LEGACY_ENCODINGS = ("#triton_gpu.blocked", "#triton_gpu.shared", "#triton_gpu.mma")

#: (first release with the 3.9 spelling, what changed, rewrite from that spelling to the one
#: before), newest first.  A release older than the key gets the rewrite.
TRANSLATIONS: tuple[tuple[tuple[int, int], str, Callable[[str], str]], ...] = (
    ((3, 9), 'module attribute "ttng.two-ctas"', _drop_module_attributes("ttng.two-ctas")),
    ((3, 6), "AMD dialect prefix amdg. (was amdgpu.)", _sub(r"(?<![\w%$.#])amdg\.", "amdgpu.")),
    (
        (3, 6),
        "amd_mfma instrShape with K (was [M, N])",
        _edit_attributes(("#ttg.amd_mfma",), _mfma_instr_shape_2d),
    ),
    (
        (3, 5),
        "amd_mfma version = V (was versionMajor = V, versionMinor = 0)",
        _edit_attributes(("#ttg.amd_mfma",), _mfma_version_major),
    ),
    (
        (3, 5),
        "ttg.memdesc_index %a[%i] (was ttg.memdesc_subview %a[%i, 0, ...])",
        _memdesc_subview,
    ),
    (
        (3, 3),
        "#ttg.nvmma_shared (was #shared with hasLeadingOffset = true)",
        _edit_attributes(("#ttg.nvmma_shared",), _nvmma_to_legacy),
    ),
    (
        (3, 3),
        "#ttg.swizzled_shared (was #shared with hasLeadingOffset = false)",
        _edit_attributes(("#ttg.swizzled_shared",), _swizzled_to_legacy),
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
    (
        (3, 0),
        "module attribute triton_gpu.target (was triton_gpu.compute-capability)",
        _edit_module(_target_2x),
    ),
    (
        (3, 0),
        "CTA parameters of blocked, shared and mma (required in 2.2-2.3)",
        _edit_attributes(_LEGACY_ENCODINGS, _cta_params),
    ),
    (
        (2, 2),
        'module attributes "triton_gpu.num-ctas", compute-capability (absent in 2.1)',
        _drop_module_attributes("triton_gpu.num-ctas", "triton_gpu.compute-capability"),
    ),
    (
        (2, 2),
        "arith.maxnumf/minnumf (were arith.maxf/minf in 2.1)",
        _sub(r"\barith\.(max|min)numf\b", r"arith.\1f"),
    ),
    (
        (2, 2),
        "tt.func attributes {...} (2.1 finds the prototype by a pattern without them)",
        lambda text: _lines(text, _func_attributes),
    ),
    (
        (2, 2),
        "shared encoding hasLeadingOffset = false (absent in 2.1)",
        _edit_attributes(("#triton_gpu.shared",), _without_false_offset),
    ),
    (
        (2, 2),
        "CTA parameters (absent in 2.1)",
        _edit_attributes(
            _LEGACY_ENCODINGS, _without_fields("CTAsPerCGA", "CTASplitNum", "CTAOrder")
        ),
    ),
)


def translate_ttgir(text: str, release: str) -> str:
    """``text``, a TTGIR module in Triton 3.9's spelling, in the spelling ``release`` parses
    (a line the TTGIR reader cannot read is a :class:`~llverify.ttgir.ModuleError`).

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
    header = read_module_header(text)
    if header.dictionary is None:
        raise ValueError(
            "text: expected a TTGIR module with 'module attributes {...}' "
            "(num-warps and threads-per-warp)"
        )
    key = header.attributes.key("target")
    span = header.attributes.attributes.span(key) if key else None
    if span is not None:
        return f'{text[: span[0]]}"{target}"{text[span[1] :]}'
    brace = header.dictionary[0] + 1
    return f'{text[:brace]}ttg.target = "{target}", {text[brace:]}'


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


#: the pip extra that installs the Triton llverify is tested with (pyproject.toml)
TRITON_EXTRA = "pip install 'llverify[triton]'"


def install_hint(python: str) -> str:
    """How to get a Triton that ``python`` imports: the extra for this interpreter, a release
    virtualenv for another.

    >>> install_hint(sys.executable)
    "install it with: pip install 'llverify[triton]'"
    """
    if os.path.abspath(python) == os.path.abspath(sys.executable):
        return f"install it with: {TRITON_EXTRA}"
    return (
        f"install Triton in that interpreter's environment ({python} -m pip install triton==V), "
        "or make a release virtualenv with scripts/triton_releases.py"
    )


def _run_worker(
    request: dict[str, Any], target: str, python: str | None, timeout_s: float
) -> dict[str, Any]:
    """The worker's result record; CompileError when it fails, aborts or times out."""
    interpreter = python or sys.executable
    try:
        result = worker_for(interpreter).request(request, timeout_s)
    except WorkerTimeoutError as exc:
        raise CompileError(
            f"compiling for {target} with {interpreter}: no answer within {timeout_s} s (timeout_s)"
        ) from exc
    except OSError as exc:
        raise CompileError(
            f"compiling for {target}: cannot run python={interpreter!r}: {exc}"
        ) from exc
    except WorkerDiedError as exc:
        detail = _useful_stderr(exc.stderr)
        raise CompileError(
            f"Triton {exc.version or '(not found)'} failed to compile for {target}: "
            f"{exc.reason}" + (f"\n{detail}" if detail else "")
        ) from None
    except WorkerError as exc:  # it cannot import Triton
        raise CompileError(
            f"compiling for {target}: python={interpreter!r} cannot import triton "
            f"({exc.reason}); {install_hint(interpreter)}"
        ) from None
    if not result["ok"]:
        detail = _useful_stderr(result.get("stderr", ""))
        raise CompileError(
            f"Triton {result.get('version') or '(not found)'} failed to compile for {target}: "
            f"{result['error']}" + (f"\n{detail}" if detail else "")
        )
    return result


def _kernel(result: dict[str, Any], target: str) -> CompiledKernel:
    asm = result["asm"]
    ttgir = asm.get("ttgir", "")
    warp_size = parse_target(target)["warp_size"]
    header = read_module_header(ttgir)  # any release's prefix: ttg or triton_gpu
    module = header.attributes
    return CompiledKernel(
        name=header.functions[0] if header.functions else result["name"],
        target=target,
        triton_version=result["version"],
        num_warps=module.num_warps or result.get("num_warps") or 4,
        threads_per_warp=module.threads_per_warp or warp_size,
        num_ctas=module.num_ctas or 1,
        shared_bytes=result["shared"],
        ttgir=ttgir,
        llir=asm.get("llir", ""),
        ptx=asm.get("ptx"),
        amdgcn=asm.get("amdgcn"),
        seconds=result["seconds"],
    )


def installed_triton_version(python: str | None = None) -> str | None:
    """The Triton version ``python`` (default: this interpreter) imports, or None (asked once
    per interpreter and process: this interpreter's from its distribution metadata, another's
    from the first answer of its compile worker, which then serves the compiles).

    >>> installed_triton_version("/nonexistent/python") is None
    True
    """
    return _triton_version(python or sys.executable)


@functools.cache
def _triton_version(python: str) -> str | None:
    if os.path.abspath(python) == os.path.abspath(sys.executable):
        # this interpreter: its installed distribution's metadata, without waiting for a worker
        # to import triton (most of a second)
        try:
            return importlib.metadata.version("triton")
        except importlib.metadata.PackageNotFoundError:
            pass  # importable some other way (a source tree on the path): ask it
    return worker_for(python).version(timeout_s=120)


def _reverse_scans(text: str) -> bool:
    """Whether the module ``text`` has a ``tt.scan`` with ``reverse = true``."""
    return any(
        op.name == "tt.scan" and op.attributes.flag("reverse") for op in parse_module(text).ops
    )


def _stages_until(until: str | None) -> dict[str, str]:
    """The request's field for ``until`` (None: every stage)."""
    if until is None:
        return {}
    if until != "llir":
        raise ValueError(f"until={until!r}: expected None (every stage) or 'llir'")
    return {"until": until}


def compile_ttgir(
    text: str,
    target: str,
    *,
    python: str | None = None,
    timeout_s: float = 120,
    until: str | None = None,
) -> CompiledKernel:
    """Compile ``text``, a TTGIR module in Triton 3.9's spelling, for ``target`` with the Triton
    of ``python`` (default: this interpreter), translated to that release's dialect.  The
    module's ``ttg.target`` is set to ``target``; its num-warps, threads-per-warp and layouts are
    kept.  ``until="llir"`` stops after the LLVM IR (``ptx``/``amdgcn`` None, no binary made;
    releases before 3.0 run every stage).

    >>> compile_ttgir("module {}", "cuda:91x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: target='cuda:91x': expected 'cuda:<sm>' (e.g. 'cuda:90') or ...
    """
    spec = parse_target(target)
    if not isinstance(text, str):
        raise TypeError(f"text: expected the TTGIR module as str, got {type(text).__name__}")
    stages = _stages_until(until)
    release = installed_triton_version(python)
    if release is None:
        raise CompileError(
            f"compiling for {target}: python={python or sys.executable!r} cannot import "
            f"triton; {install_hint(python or sys.executable)}"
        )
    try:
        if _release(release) < (3, 0) and _reverse_scans(text):
            # 2.x parses the attribute and ignores it: it would compile a forward scan
            raise CompileError(
                f"Triton {release} has no reverse scans (tt.scan's reverse attribute arrived "
                "in 3.0; this release would silently scan forward)"
            )
        module = translate_ttgir(_retarget(text, target), release)
    except ModuleError as error:
        raise CompileError(f"compiling for {target} with Triton {release}: {error}") from None
    request = {"kind": "ttgir", "text": module, "target": spec, **stages}
    return _kernel(_run_worker(request, target, python, timeout_s), target)


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
    until: str | None = None,
) -> CompiledKernel:
    """Compile the ``@triton.jit`` function ``function`` of the file ``path`` for ``target``
    with the Triton of ``python`` (default: this interpreter).  ``signature`` types each runtime
    argument (``"*fp32"``, ``"i32"``, ...), ``constexprs`` gives each constexpr's value (JSON
    values only); ``until`` as for :func:`compile_ttgir`.

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
        **_stages_until(until),
    }
    return _kernel(_run_worker(request, target, python, timeout_s), target)
