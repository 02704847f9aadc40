r"""Launch arguments of dumped kernels: read where Inductor or a run recorded them, bound by name.

A kernel's scalar arguments (``xnumel``, ``r0_numel``, ``ks0`` ...) decide its masks and
branches; left tagged, a branch on one makes the whole-kernel verdict unknown.  Two records
give them:

* a **launches file** written at run time (``launches.json`` of the corpus collector,
  ``llverify-launches.json`` of :mod:`llverify.hook`): a JSON list of entries with
  ``cache_hash`` (the name of the kernel's Triton cache directory) and ``scalars`` (values by
  parameter name).  The entry names the very binary that ran.
* **Inductor's output code** (the Python module with ``def call(args)`` in the Inductor
  cache): each ``NAME.run(buf0, arg0_1, 1024, stream=stream0)`` passes the runtime parameters
  of ``NAME``'s source in order (its ``tl.constexpr`` parameters excluded, launcher extras such
  as a template's grid after them).  ``# kernel path: P`` above the kernel's definition links
  it to the cache directories compiled from source file ``P`` (the file of the ``tt.func`` in
  their TTIR).  Only integer literals are taken; symbols of dynamic shapes (``s0``, ``ks0``)
  stay tagged.

Names are bound to LLVM argument positions through the ``tt.func`` signature of the TTIR
(or TTGIR) beside the LLVM IR: its arguments are the first LLVM parameters, in order, of the
same kinds.  A set of values that contradicts what the binary was specialised for (a
``tt.divisibility`` the value breaks, a parameter specialised away as the constant 1 given
another value, a value outside the parameter's width) belongs to another binary and is not
used: a wrong binding could make a false alarm.

Examples:
    >>> ttir = ('tt.func public @k(%in_ptr0: !tt.ptr<f32> {tt.divisibility = 16 : i32} '
    ...         'loc("in_ptr0"(#loc)), %xnumel: i32 {tt.divisibility = 16 : i32} '
    ...         'loc("xnumel"(#loc))) attributes {noinline = false} {')
    >>> [(p.name, p.kind, p.divisibility) for p in tt_signature(ttir)]
    [('in_ptr0', 'ptr', 16), ('xnumel', 'i32', 16)]
    >>> llir = 'define ptx_kernel void @k(ptr addrspace(1) %0, i32 %1, ptr addrspace(1) %2) {'
    >>> bind_scalars({"xnumel": 1024, "XBLOCK": 1}, ttir, llir)
    ({'1': 1024}, None)
    >>> bind_scalars({"xnumel": 1000}, ttir, llir)[1]
    'xnumel=1000 is not a multiple of 16, the divisibility this binary was compiled for'
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "LaunchTable",
    "Param",
    "bind_scalars",
    "kernel_source_file",
    "read_launches_file",
    "read_output_code",
    "tt_signature",
]

#: file names of a launches file found automatically in a validated directory
LAUNCH_FILES = ("launches.json", "llverify-launches.json")

_FUNC = re.compile(r"tt\.func\s+(?:public\s+|private\s+)?@[\w.$]+\(")
_DEFINE = re.compile(r"^define\b[^@]*@[\w.$\"]+\(", re.MULTILINE)
_ARG_LOC = re.compile(r'loc\("([^"]+)"\((#loc\d*)\)\)')
_DIVISIBILITY = re.compile(r"tt\.divisibility\s*=\s*(\d+)")
_KERNEL_PATH = re.compile(r"^# kernel path: (\S+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Param:
    """One argument of a ``tt.func``: its name, kind (``ptr``, ``i32``, ``i64``, ``i1``,
    ``f32`` ...; ``other`` for what is not one of these) and ``tt.divisibility``."""

    name: str
    kind: str
    divisibility: int = 1
    loc_alias: str = ""


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char in "<({[":
            depth += 1
        elif char in ">)}]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def _arguments_text(text: str, opening: re.Match[str]) -> str:
    """The text between the parenthesis that ``opening`` ends with and its match."""
    depth, start = 1, opening.end()
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i]
    return text[start:]


def _kind(type_text: str) -> str:
    if type_text.startswith(("!tt.ptr", "ptr")):
        return "ptr"
    match = re.fullmatch(r"(i\d+|f16|bf16|f32|f64)", type_text)
    return match.group(1) if match else "other"


def tt_signature(text: str) -> list[Param]:
    """The arguments of the first ``tt.func`` of TTIR/TTGIR ``text`` (empty when none)."""
    opening = _FUNC.search(text)
    if opening is None:
        return []
    params = []
    for part in _split_top(_arguments_text(text, opening)):
        ssa, _, rest = part.partition(":")
        type_text = rest.strip().split(" ", 1)[0]
        loc = _ARG_LOC.search(rest)
        divisibility = _DIVISIBILITY.search(rest)
        params.append(
            Param(
                name=loc.group(1) if loc else ssa.strip().lstrip("%"),
                kind=_kind(type_text),
                divisibility=int(divisibility.group(1)) if divisibility else 1,
                loc_alias=loc.group(2) if loc else "",
            )
        )
    return params


def llvm_parameter_kinds(text: str) -> list[str]:
    """The kinds of the parameters of the first ``define`` of LLVM IR ``text``."""
    opening = _DEFINE.search(text)
    if opening is None:
        return []
    return [_kind(part.split(" ", 1)[0]) for part in _split_top(_arguments_text(text, opening))]


def kernel_source_file(text: str) -> str | None:
    """The base name of the Python file the ``tt.func`` of TTIR/TTGIR ``text`` was defined
    in (the location its arguments' locations refer to), or None."""
    params = tt_signature(text)
    alias = next((p.loc_alias for p in params if p.loc_alias), None)
    if alias is None:
        return None
    match = re.search(rf'^{re.escape(alias)} = loc\("([^"]+)":\d+:\d+\)', text, re.MULTILINE)
    return match.group(1).replace("\\", "/").rsplit("/", 1)[-1] if match else None


def _conflict(name: str, value: int, param: Param | None) -> str | None:
    """Why ``name=value`` cannot be a launch of the binary whose parameter is ``param``."""
    if param is None:
        return (
            None
            if value == 1
            else (
                f"{name}={value}: the binary has no such parameter (specialised away as the "
                "constant 1, or not a parameter)"
            )
        )
    if not param.kind.startswith("i"):
        return f"{name}={value}: parameter of kind {param.kind}, not an integer"
    bits = int(param.kind[1:])
    low, high = (0, 1) if bits == 1 else (-(1 << (bits - 1)), (1 << bits) - 1)
    if not low <= value <= high:
        return f"{name}={value} does not fit the {param.kind} parameter"
    if value % param.divisibility:
        return (
            f"{name}={value} is not a multiple of {param.divisibility}, the divisibility "
            "this binary was compiled for"
        )
    return None


def bind_scalars(
    scalars: dict[str, int], tt_text: str, llir_text: str
) -> tuple[dict[str, int], str | None]:
    """Launch values by name bound to LLVM argument positions (``{"3": 1024}``), or the reason
    they cannot be: the signatures disagree, or a value contradicts the binary's
    specialisation.  Names the binary does not have with the value 1 are dropped (Triton made
    them the constant 1)."""
    params = tt_signature(tt_text)
    kinds = llvm_parameter_kinds(llir_text)
    if not params or len(kinds) < len(params):
        return {}, "no tt.func signature that matches the LLVM parameters"
    for param, kind in zip(params, kinds):
        if param.kind != kind or kind == "other":
            return {}, f"argument {param.name} is {param.kind} in the TTIR, {kind} in LLVM IR"
    by_name = {param.name: k for k, param in enumerate(params)}
    bound = {}
    for name, value in scalars.items():
        k = by_name.get(name)
        reason = _conflict(name, value, None if k is None else params[k])
        if reason:
            return {}, reason
        if k is not None:
            bound[str(k)] = value
    return bound, None


class LaunchTable:
    """The launch values recorded for kernels: by cache directory name (launches files) and
    by Inductor kernel source file name (output code); distinct sets, in order seen."""

    def __init__(self) -> None:
        self.by_hash: dict[str, list[dict[str, int]]] = {}
        self.by_source: dict[str, list[dict[str, int]]] = {}
        self.files: list[str] = []

    @staticmethod
    def add(table: dict[str, list[dict[str, int]]], key: str, scalars: dict[str, int]) -> None:
        """Add one set of values under ``key`` unless the same set is there already."""
        sets = table.setdefault(key, [])
        if scalars not in sets:
            sets.append(scalars)

    def sets_for(self, cache_hash: str, source_file: str | None) -> tuple[list[dict], str]:
        """The distinct value sets for a kernel, and where they come from ('' when none)."""
        if self.by_hash.get(cache_hash):
            return self.by_hash[cache_hash], "launches file"
        if source_file and self.by_source.get(source_file):
            return self.by_source[source_file], "Inductor output code"
        return [], ""


def _integers(values: Any) -> dict[str, int]:
    if not isinstance(values, dict):
        return {}
    return {str(k): int(v) for k, v in values.items() if isinstance(v, int)}


def read_launches_file(path: str | Path, table: LaunchTable) -> int:
    """Add the entries of a launches file to ``table``; the number of entries read.  The
    file is a JSON list of launches, or an object holding one under ``launches`` (the report
    of :mod:`llverify.hook`).  Raises ValueError naming the file when it is neither."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"launches file {str(path)!r}: cannot read it as JSON: {error}") from None
    if isinstance(data, dict) and isinstance(data.get("launches"), list):
        data = data["launches"]
    if not isinstance(data, list):
        raise ValueError(f"launches file {str(path)!r}: expected a JSON list of launches")
    count = 0
    for entry in data:
        if isinstance(entry, dict) and isinstance(entry.get("cache_hash"), str):
            table.add(table.by_hash, entry["cache_hash"], _integers(entry.get("scalars")))
            count += 1
    table.files.append(str(path))
    return count


def _literal(node: ast.expr) -> int | None:
    """The integer an argument expression is, when it is a literal (``1024``, ``-1``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _literal(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _runtime_params(source: str, name: str) -> list[str] | None:
    """The parameters of kernel ``name`` in its Inductor source, constexprs left out."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return [
                a.arg
                for a in node.args.args
                if a.annotation is None or "constexpr" not in ast.unparse(a.annotation)
            ]
    return None


def _kernel_definitions(text: str, tree: ast.Module) -> dict[str, tuple[str, list[str]]]:
    """``NAME = async_compile.triton('NAME', '''SOURCE''', ...)`` of an output code module:
    NAME -> (the kernel path's base name, its runtime parameters)."""
    comments = [
        (text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _KERNEL_PATH.finditer(text)
    ]
    definitions = []
    for node in tree.body:
        call = node.value if isinstance(node, ast.Assign) else None
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "triton"
        ):
            continue
        texts = [a.value for a in call.args[:2] if isinstance(a, ast.Constant)]
        if len(texts) == 2 and all(isinstance(t, str) for t in texts):
            definitions.append((node.lineno, str(texts[0]), str(texts[1])))
    out = {}
    lines = [line for line, _, _ in definitions]
    for line, name, source in definitions:
        before = [(c, p) for c, p in comments if c < line and not any(c < d < line for d in lines)]
        params = _runtime_params(source, name)
        if before and params is not None:
            out[name] = (before[-1][1].replace("\\", "/").rsplit("/", 1)[-1], params)
    return out


def _launch_scalars(call: ast.Call, params: list[str]) -> dict[str, int]:
    """The literal integer arguments of one ``NAME.run(...)`` call, by parameter name."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        return {}
    named = list(zip(params, call.args))
    named += [(k.arg, k.value) for k in call.keywords if k.arg in params]
    values = {name: _literal(node) for name, node in named}
    return {name: value for name, value in values.items() if value is not None}


def read_output_code(path: str | Path, table: LaunchTable) -> int:
    """Add the launches of one Inductor output code module to ``table``; the number of
    ``.run`` calls read (0 for a file that is not output code)."""
    text = Path(path).read_text(errors="replace")
    if "def call(" not in text or "async_compile.triton(" not in text:
        return 0
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return 0
    kernels = _kernel_definitions(text, tree)
    count = 0
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "run"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in kernels
        ):
            source_file, params = kernels[node.func.value.id]
            table.add(table.by_source, source_file, _launch_scalars(node, params))
            count += 1
    if count:
        table.files.append(str(path))
    return count
