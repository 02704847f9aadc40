"""Spec files (docs/specs.md): TOML files of ``[[check]]`` tables, compiled to
:class:`~llverify.proof.obligation.Obligation` objects.

An obligation is plain, frozen, picklable data (layouts are kept as text and built where it
runs, decided by :mod:`llverify.checkfiles.decide`), so that a process pool or a distributed
runner can take it. Every problem with a spec file raises :class:`SpecError` whose message
starts with ``FILE:LINE: ``.

Spec files arrive in pull requests and run in CI: nothing in them is evaluated as Python.
Formulas go through llverify's safe formula language; the only way to run code is
``reference_function = "package.module:function"``, which is refused unless the caller passes
``allow_code=True`` (``llverify prove --allow-code``).

Examples:
    >>> obligations = parse_text('''
    ... [[check]]
    ... name = "lane is dim0"
    ... kind = "equivalence"
    ... layout = '{"bases": {"lane": [[1], [2]]}, "out_dims": {"dim0": 4}}'
    ... reference = { dim0 = "lane" }
    ... ''', "example.toml")
    >>> ob = obligations[0]
    >>> ob.name, ob.kind, ob.location, ob.reference
    ('lane is dim0', 'equivalence', 'example.toml:2', (('dim0', 'lane'),))
    >>> parse_text('[[check]]\\nname = "x"\\nkind = "equivalance"\\n', "bad.toml")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llverify.checkfiles.parse.SpecError: bad.toml:3: unknown kind 'equivalance'; ...
"""

from __future__ import annotations

import difflib
import errno
import itertools
import json
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llverify.bits import MAX_INPUT_BYTES, as_bool, name_problem
from llverify.checkfiles import decide
from llverify.checkfiles.lines import LineIndex
from llverify.errors import LayoutError, LayoutTypeError, LLVerifyError
from llverify.hardware import BANK_MODELS, DTYPE_BITS, DTYPE_WIDTHS, dtype_bits
from llverify.layout import LinearLayout
from llverify.proof.obligation import Call, Obligation
from llverify.proof.verdict import Status

if TYPE_CHECKING:
    from llverify.encodings import PaddedLayout

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "EXPECTS",
    "KINDS",
    "SpecError",
    "build_layout",
    "build_layout_value",
    "parse",
    "parse_text",
    "spec_files",
]

#: the kinds of checks
KINDS = ("equivalence", "conversion", "bank_conflicts", "vectorization", "swizzle")
#: what a check may expect
EXPECTS = (Status.PROVED.value, Status.REFUTED.value)
METHODS = ("auto", "linear", "exhaustive", "z3")
#: Triton's lowerings of a conversion (``llverify.conversion.KINDS``)
LOWERINGS = ("no-op", "register permutation", "warp shuffle", "shared memory")
VECTORS = ("symmetric", "asymmetric")
#: a check's grid may expand to at most this many obligations
MAX_INSTANCES = 10_000

_COMMON_KEYS = ("name", "kind", "expect", "description", "grid")
_KIND_KEYS = {
    "equivalence": (
        "layout",
        "shape",
        "reference",
        "reference_layout",
        "reference_function",
        "method",
    ),
    "conversion": ("src", "dst", "shape", "lowering"),
    "bank_conflicts": ("register", "shared", "shape", "dtype", "target", "max"),
    "vectorization": ("register", "shared", "shape", "dtype", "target", "min_bits"),
    "swizzle": ("src", "dst", "shape", "dtype", "target", "max_wavefronts", "vector"),
}
_REQUIRED = {
    "equivalence": ("layout",),
    "conversion": ("src", "dst"),
    "bank_conflicts": ("register", "shared", "dtype"),
    "vectorization": ("register", "shared", "dtype", "min_bits"),
    "swizzle": ("src", "dst", "dtype"),
}
_REFERENCES = ("reference", "reference_layout", "reference_function")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FUNCTION = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")
_LAYOUT_FORMS = (
    "TTGIR attribute text ('#ttg.blocked<{...}>', with 'shape', or 'tensor<...>'), "
    "Triton's LinearLayout text (' - register=1 -> (0, 1) ... where out dims are: [...]'), "
    'JSON (\'{"bases": ..., "out_dims": ...}\') or a { bases = ..., out_dims = ... } table'
)

Scalar = str | int | float | bool


class SpecError(LLVerifyError, ValueError):
    """A spec file is malformed; the message starts with ``FILE:LINE: ``.

    Attributes:
        file: the spec file (as given).
        line: 1-based line of the offending table or key.
        reason: the message without the location.
    """

    def __init__(self, file: str, line: int, reason: str) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        super().__init__(f"{file}:{line}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.file, self.line, self.reason))


# ---------------------------------------------------------------------- layouts


def build_layout(text: str, shape: Sequence[int] | None) -> LinearLayout:
    """A layout from spec text: TTGIR attribute text (needs ``shape`` unless it is a
    ``tensor<...>`` type), Triton's LinearLayout text, or JSON. Never reads files.

    Examples:
        >>> build_layout('{"bases": {"lane": [[1]]}, "out_dims": {"dim0": 2}}', None).out_dims
        [('dim0', 2)]
    """
    from llverify.arguments import layout_argument  # imports encodings

    value: LinearLayout = _from_text(text, shape, layout_argument)
    return value


def build_layout_value(text: str, shape: Sequence[int] | None) -> LinearLayout | PaddedLayout:
    """A shared layout from spec text: :func:`build_layout`'s forms, or a padded shared
    layout (not linear: a :class:`~llverify.encodings.PaddedLayout`).

    Examples:
        >>> text = "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [16, 32]}>"
        >>> type(build_layout_value(text, [16, 32])).__name__
        'PaddedLayout'
    """
    from llverify.arguments import layout_value  # imports encodings

    return _from_text(text, shape, layout_value)


def _from_text(text: str, shape: Sequence[int] | None, normalise: Any) -> Any:
    """``normalise`` (an :mod:`llverify.arguments` normaliser) of spec layout text."""
    from llverify.arguments import LayoutTextError

    stripped = text.strip()
    if shape is None and stripped.startswith("#"):  # an attribute carries no shape
        raise LLVerifyError(
            "TTGIR attribute text needs the check's 'shape' (e.g. shape = [128, 64])."
        )
    try:
        return normalise(stripped, None if shape is None else list(shape), "layout")
    except LayoutTextError:
        shown = stripped if len(stripped) <= 60 else stripped[:57] + "..."
        raise LLVerifyError(f"expected {_LAYOUT_FORMS}, not {shown!r}.") from None


# ---------------------------------------------------------------------- files


def spec_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The spec files named by ``paths``: files as given, directories searched recursively
    for ``*.toml`` (skipping hidden directories and ``pyproject.toml``). Raises
    LLVerifyError for a path that does not exist or a directory without spec files."""
    found: list[Path] = []
    for entry in paths:
        path = Path(entry)
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            files = sorted(
                p
                for p in path.rglob("*.toml")
                if p.is_file()
                and p.name != "pyproject.toml"
                and not any(part.startswith(".") for part in p.relative_to(path).parts[:-1])
            )
            if not files:
                raise LLVerifyError(f"directory '{path}' holds no *.toml spec files.")
            found.extend(files)
        else:
            try:
                os.stat(path)  # a symlink loop, a permission: say why
            except OSError as error:
                if error.errno not in (None, 2):  # not "no such file": the reason is news
                    raise LLVerifyError(f"cannot read '{path}': {error.strerror}.") from None
            raise LLVerifyError(f"'{path}' is neither a spec file nor a directory.")
    unique: dict[Path, None] = {}
    for file in found:
        unique.setdefault(file, None)
    return list(unique)


_TOO_LARGE = (
    f"larger than {MAX_INPUT_BYTES} bytes, the most llverify reads (docs/cli.md); "
    "split the spec file."
)


def parse(
    path: str | os.PathLike[str], *, allow_code: bool = False, source: str | None = None
) -> list[Obligation]:
    """The obligations of the spec file ``path`` (grids expanded, layouts checked).

    ``allow_code`` permits ``reference_function`` (which imports and runs Python named in
    the spec); without it such a check is a :class:`SpecError`. ``source`` names the file in
    errors, outcomes and records (default: ``path`` as given). A path that names no regular
    file (a directory, a device, a pipe, a symlink loop) is a :class:`SpecError`, and so is
    a file larger than :data:`llverify.bits.MAX_INPUT_BYTES` (16 MiB, refused unread).

    Examples:
        >>> parse("/dev/null")
        Traceback (most recent call last):
        ...
        llverify.checkfiles.parse.SpecError: /dev/null:1: not a regular file.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise LayoutTypeError(f"Argument 'path' must be a str or a path, not {type(path)}.")
    if not str(path):
        raise LayoutError("Argument 'path' must name a spec file, not ''.")
    file = str(path) if source is None else source
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):  # a directory, a device, a pipe
            raise SpecError(file, 1, "not a regular file.")
        if info.st_size > MAX_INPUT_BYTES:  # refused unread (a 3 GB file was read whole)
            raise SpecError(file, 1, _TOO_LARGE)
        with open(path, "rb") as stream:
            data = stream.read(MAX_INPUT_BYTES + 1)  # it may have grown since
    except OSError as error:
        reason = "a symlink loop" if error.errno == errno.ELOOP else error.strerror or error
        raise SpecError(file, 1, f"cannot read the spec file: {reason}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise SpecError(file, 1, _TOO_LARGE)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise SpecError(file, line, "a spec file must be UTF-8 text (TOML).") from None
    return parse_text(text, file, allow_code=allow_code)


def parse_text(text: str, file: str = "<spec>", *, allow_code: bool = False) -> list[Obligation]:
    """The obligations of spec text; ``file`` names it in errors (see :func:`parse`)."""
    if not isinstance(text, str):
        raise SpecError(file, 1, f"spec text must be a str, not {type(text).__name__}.")
    as_bool(allow_code, "allow_code")  # "no" must not allow code
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        line, reason = _toml_error(error, text)
        raise SpecError(
            file, line, f"invalid TOML: {reason} (the format is in docs/specs.md)."
        ) from None
    except (ValueError, RecursionError) as error:
        reason = "nested too deeply" if isinstance(error, RecursionError) else str(error)
        raise SpecError(file, 1, f"invalid TOML: {reason}.") from None
    return _Parser(file, LineIndex.of(text), allow_code).document(document)


def _toml_error(error: Exception, text: str) -> tuple[int, str]:
    message = str(getattr(error, "msg", "") or error)
    line = getattr(error, "lineno", None)
    match = re.search(r"\s*\(at line (\d+), column \d+\)", message)
    if match:
        line = line or int(match.group(1))
        message = message[: match.start()] + message[match.end() :]
    elif "(at end of document)" in message:
        line = line or text.count("\n") + 1
        message = message.replace("(at end of document)", "at the end of the file").strip()
    return (line if isinstance(line, int) and line > 0 else 1), message


# ---------------------------------------------------------------------- the parser


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _suggest(word: Any, choices: Iterable[str]) -> str:
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _type_name(value: Any) -> str:
    names = {str: "a string", bool: "a boolean", int: "an integer", float: "a float"}
    names.update({list: "an array", dict: "a table"})
    return names.get(type(value), type(value).__name__)


class _Parser:
    def __init__(self, file: str, index: LineIndex, allow_code: bool) -> None:
        self.file = file
        self.index = index
        self.allow_code = allow_code
        self.number = 0  # the check being parsed

    def error(self, reason: str, *path: str) -> SpecError:
        return SpecError(self.file, self.index.check(self.number, *path), reason)

    # ------------------------------------------------------------------ document

    def document(self, document: Mapping[str, Any]) -> list[Obligation]:
        for key in document:
            if key != "check":
                raise SpecError(
                    self.file,
                    self.index.top(key),
                    f"unknown top-level key '{key}'; a spec file holds [[check]] tables only"
                    f"{_suggest(key, ['check'])}.",
                )
        checks = document.get("check", [])
        if not isinstance(checks, list) or not all(isinstance(c, dict) for c in checks):
            raise SpecError(
                self.file,
                self.index.top("check"),
                "'check' must be an array of tables: write each check as a [[check]] table.",
            )
        obligations: list[Obligation] = []
        seen: dict[str, int] = {}
        for number, table in enumerate(checks):
            self.number = number
            for obligation in self.check(table):
                if obligation.name in seen:
                    raise SpecError(
                        self.file,
                        obligation.line,
                        f"check name '{obligation.name}' is used twice (first at line "
                        f"{seen[obligation.name]}); names must be unique in a file (grid "
                        f"checks: use {{placeholders}} in the name or leave them out).",
                    )
                seen[obligation.name] = obligation.line
                obligations.append(obligation)
        return obligations

    # ------------------------------------------------------------------ one check

    def check(self, table: dict[str, Any]) -> Iterator[Obligation]:
        kind = self.kind(table)
        self.keys(table, kind)
        if kind == "equivalence":
            self.one_reference(table)
        grid = self.grid(table.get("grid"))
        body = {key: value for key, value in table.items() if key != "grid"}
        used = {m.group(1) for m in _PLACEHOLDER.finditer(table["name"])}
        for values in grid:
            instance = {key: self.substitute(value, values, (key,)) for key, value in body.items()}
            unused = [f"{k}={_text(v)}" for k, v in values.items() if k not in used]
            if unused:  # grid values the name does not show tell the instances apart
                instance["name"] = f"{_text(instance['name'])} [{', '.join(unused)}]"
            try:
                yield self.obligation(kind, instance, values)
            except SpecError as error:
                if not values:
                    raise
                shown = ", ".join(f"{k} = {_text(v)}" for k, v in values.items())
                raise SpecError(
                    error.file, error.line, f"grid instance {shown}: {error.reason}"
                ) from None

    def kind(self, table: dict[str, Any]) -> str:
        """The check's kind; without one, a misspelt key (likely 'kind') is named first."""
        kind = table.get("kind")
        if kind is None:
            known = sorted(set(_COMMON_KEYS).union(*_KIND_KEYS.values()))
            for key in table:
                if key not in known:  # likely the misspelt 'kind'
                    raise self.error(f"unknown key '{key}'{_suggest(key, known)}.", key)
            raise self.error(f"the check has no 'kind'; expected kind = one of {', '.join(KINDS)}.")
        if not isinstance(kind, str) or kind not in KINDS:
            raise self.error(
                f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}{_suggest(kind, KINDS)}",
                "kind",
            )
        return kind

    def keys(self, table: dict[str, Any], kind: str) -> None:
        """Only the keys a check of ``kind`` allows; a non-empty name; the required keys."""
        allowed = _COMMON_KEYS + _KIND_KEYS[kind]
        for key in table:
            if key not in allowed:
                raise self.error(
                    f"unknown key '{key}' in a check of kind {kind}{_suggest(key, allowed)}; "
                    f"expected keys: {', '.join(allowed)}.",
                    key,
                )
        name = table.get("name")
        if name is None:
            raise self.error("the check has no 'name'; expected name = \"what it checks\".")
        if not isinstance(name, str) or not name.strip():
            raise self.error(f"'name' must be a non-empty string, not {name!r}.", "name")
        for key in _REQUIRED[kind]:
            if key not in table:
                raise self.error(f"a check of kind {kind} needs '{key}' (see docs/specs.md).")

    def one_reference(self, table: dict[str, Any]) -> None:
        """An equivalence names exactly one reference; code only with ``allow_code``."""
        given = [key for key in _REFERENCES if key in table]
        if len(given) != 1:
            raise self.error(
                "an equivalence check needs exactly one of 'reference' (formulas), "
                f"'reference_layout' or 'reference_function', not {given or 'none'}.",
                *given[1:2],
            )
        if "reference_function" in table and not self.allow_code:
            raise self.error(
                "'reference_function' imports and runs Python code named in the spec; "
                "it needs --allow-code or LLVERIFY_ALLOW_CODE=1 (llverify prove) or "
                "allow_code=True (parse); otherwise use 'reference' formulas or "
                "'reference_layout'.",
                "reference_function",
            )

    def grid(self, grid: Any) -> list[dict[str, Scalar]]:
        if grid is None:
            return [{}]
        if not isinstance(grid, dict) or not grid:
            raise self.error(
                "'grid' must be a non-empty table of parameter = [values] (a [check.grid] "
                "table like: spt = [1, 2, 4]).",
                "grid",
            )
        total = 1
        for key, values in grid.items():
            if not _IDENTIFIER.fullmatch(key):
                raise self.error(
                    f"grid parameter '{key}' must be an identifier (letters, digits, _) so "
                    "that a {placeholder} can name it.",
                    "grid",
                    key,
                )
            if not isinstance(values, list) or not values:
                raise self.error(
                    f"grid parameter '{key}' must be a non-empty array of values, like "
                    f"{key} = [1, 2, 4], not {_type_name(values)}.",
                    "grid",
                    key,
                )
            seen: list[tuple[type, Any]] = []
            for value in values:
                if not isinstance(value, (str, int, float)):
                    raise self.error(
                        f"values of grid parameter '{key}' must be strings, integers, floats "
                        f"or booleans, not {_type_name(value)}.",
                        "grid",
                        key,
                    )
                if (type(value), value) in seen:
                    raise self.error(
                        f"grid parameter '{key}' lists {_text(value)} twice.", "grid", key
                    )
                seen.append((type(value), value))
            total *= len(values)
            if total > MAX_INSTANCES:
                raise self.error(
                    f"the grid expands to more than {MAX_INSTANCES} checks; split the check.",
                    "grid",
                )
        names = list(grid)
        return [dict(zip(names, combo)) for combo in itertools.product(*grid.values())]

    def substitute(self, value: Any, values: Mapping[str, Scalar], path: tuple[str, ...]) -> Any:
        """``{name}`` placeholders replaced by grid values in every string; a string that is
        exactly one placeholder takes the value with its type."""
        if isinstance(value, str):
            whole = _PLACEHOLDER.fullmatch(value)
            if whole and whole.group(1) in values:
                return values[whole.group(1)]

            def replace(match: re.Match[str]) -> str:
                name = match.group(1)
                if name not in values:
                    defined = (
                        f"[check.grid] defines only {', '.join(values)}"
                        if values
                        else "the check has no [check.grid]"
                    )
                    raise self.error(
                        f"'{'.'.join(path)}' uses the placeholder {{{name}}}, but {defined}"
                        f"{_suggest(name, values)}; define it in [check.grid].",
                        *path,
                    )
                return _text(values[name])

            return _PLACEHOLDER.sub(replace, value)
        if isinstance(value, list):
            return [self.substitute(item, values, path) for item in value]
        if isinstance(value, dict):
            return {k: self.substitute(v, values, (*path, k)) for k, v in value.items()}
        return value

    # ------------------------------------------------------------------ typed values

    def string(
        self, table: Mapping[str, Any], key: str, choices: Sequence[str] = (), default: Any = None
    ) -> Any:
        if key not in table:
            return default
        value = table[key]
        if not isinstance(value, str) or (choices and value not in choices):
            expected = f"one of {', '.join(repr(c) for c in choices)}" if choices else "a string"
            raise self.error(
                f"'{key}' must be {expected}, not {value!r}{_suggest(value, choices)}.", key
            )
        return value

    def integer(
        self, table: Mapping[str, Any], key: str, minimum: int, default: int | None = None
    ) -> int | None:
        if key not in table:
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.error(f"'{key}' must be an integer >= {minimum}, not {value!r}.", key)
        return value

    def shape(self, table: Mapping[str, Any]) -> tuple[int, ...] | None:
        if "shape" not in table:
            return None
        value = table["shape"]
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in value)
        ):
            raise self.error(
                f"'shape' must be an array of positive integers like [128, 64], not {value!r}.",
                "shape",
            )
        if any(d & (d - 1) or d > 1 << 30 for d in value):
            raise self.error(
                f"'shape' sizes must be powers of 2 up to 2**30, not {value!r}.", "shape"
            )
        return tuple(value)

    def dtype(self, table: Mapping[str, Any]) -> int:
        value = table["dtype"]
        if isinstance(value, int) and not isinstance(value, bool) and value in DTYPE_WIDTHS:
            return value
        bits = dtype_bits(value) if isinstance(value, str) else None
        if bits is not None:
            return bits
        raise self.error(
            f'\'dtype\' must be an element type like "f16", "bf16", "f8", "f32", "i8" '
            f"or a bit count {'/'.join(map(str, DTYPE_WIDTHS))}, "
            f"not {value!r}{_suggest(value, DTYPE_BITS)}.",
            "dtype",
        )

    def layout_text(self, table: Mapping[str, Any], key: str) -> str:
        value = table[key]
        if isinstance(value, dict):
            try:
                return json.dumps(value, allow_nan=False)
            except (TypeError, ValueError):
                pass
        elif isinstance(value, str) and value.strip():
            return value.strip()
        raise self.error(f"'{key}' must be layout text: {_LAYOUT_FORMS}; not {value!r}.", key)

    def layout(self, text: str, shape: Sequence[int] | None, key: str) -> LinearLayout:
        layout: LinearLayout = self.built(build_layout, text, shape, key)
        return layout

    def shared(self, text: str, shape: Sequence[int], key: str) -> LinearLayout | PaddedLayout:
        shared: LinearLayout | PaddedLayout = self.built(build_layout_value, text, shape, key)
        return shared

    def built(self, build: Any, text: str, shape: Sequence[int] | None, key: str) -> Any:
        """``build`` of the layout text of ``key``; bad text is a SpecError at its line."""
        try:
            return build(text, shape)
        except RecursionError:
            raise self.error(f"'{key}' is not a valid layout: nested too deeply.", key) from None
        except Exception as error:  # layout text is untrusted input: never a traceback
            reason = str(error) if isinstance(error, LLVerifyError) else _internal(error)
            raise self.error(f"'{key}' is not a valid layout: {reason}", key) from None

    # ------------------------------------------------------------------ obligations

    def obligation(
        self, kind: str, table: Mapping[str, Any], values: Mapping[str, Scalar]
    ) -> Obligation:
        name = table["name"]
        if isinstance(name, (int, float)):  # the name is one placeholder of a number
            name = _text(name)
        if not isinstance(name, str) or not name.strip():
            raise self.error(f"'name' must be a non-empty string, not {name!r}.", "name")
        problem = name_problem(name)
        if problem is not None:  # a record's key and a report's line: one spelling, no escapes
            raise self.error(
                f"'name' must be printable text in Unicode NFKC normal form, but {problem}.",
                "name",
            )
        self.string(table, "description", (), "")
        common: dict[str, Any] = {
            "name": name.strip(),
            "kind": kind,
            "expect": Status(self.string(table, "expect", EXPECTS, Status.PROVED.value)),
            "source": self.file,
            "line": self.index.check(self.number),
        }
        shape = self.shape(table)
        if kind == "equivalence":
            return self.equivalence(table, shape, common)
        if kind == "conversion":
            return self.conversion(table, shape, common)
        target = self.string(table, "target", tuple(BANK_MODELS), "nvidia")
        bits = self.dtype(table)
        if kind == "swizzle":
            return self.swizzle(table, shape, common, target, bits)
        return self.access(kind, table, shape, common, target, bits)

    def src_dst(
        self, table: Mapping[str, Any], shape: tuple[int, ...] | None
    ) -> tuple[str, str, LinearLayout]:
        """The texts of 'src' and 'dst' and src's layout; both must cover the same tensor."""
        src = self.layout_text(table, "src")
        dst = self.layout_text(table, "dst")
        src_ll = self.layout(src, shape, "src")
        dst_ll = self.layout(dst, shape, "dst")
        if src_ll.out_dims != dst_ll.out_dims:
            raise self.error(
                f"'src' and 'dst' must cover the same tensor: out dims {src_ll.out_dims} "
                f"and {dst_ll.out_dims}.",
                "dst",
            )
        return src, dst, src_ll

    def conversion(
        self, table: Mapping[str, Any], shape: tuple[int, ...] | None, common: dict[str, Any]
    ) -> Obligation:
        """A conversion check: src -> dst proved, with the lowering it expects (if any)."""
        src, dst, _ = self.src_dst(table, shape)
        lowering = self.string(table, "lowering", LOWERINGS)
        return self.compile(common, _layouts(src, dst, shape), lowering, decide.conversion)

    def swizzle(
        self,
        table: Mapping[str, Any],
        shape: tuple[int, ...] | None,
        common: dict[str, Any],
        target: str,
        bits: int,
    ) -> Obligation:
        """A swizzle check: the synthesized shared layout of src -> dst meets its goal."""
        src, dst, src_ll = self.src_dst(table, shape)
        goal = decide.SwizzleGoal(
            shape=shape or tuple(size for _, size in src_ll.out_dims),
            element_bits=bits,
            target=target,
            vector=self.string(table, "vector", VECTORS, "symmetric"),
            max_wavefronts=self.integer(table, "max_wavefronts", 1),
        )
        return self.compile(common, _layouts(src, dst, shape), goal, decide.swizzle)

    def access(
        self,
        kind: str,
        table: Mapping[str, Any],
        shape: tuple[int, ...] | None,
        common: dict[str, Any],
        target: str,
        bits: int,
    ) -> Obligation:
        """A bank_conflicts (at most 'max') or vectorization (at least 'min_bits') check of a
        register layout accessing a shared one."""
        register = self.layout_text(table, "register")
        shared = self.layout_text(table, "shared")
        reg_ll = self.layout(register, shape, "register")
        shape = shape or tuple(size for _, size in reg_ll.out_dims)
        self.shared(shared, shape, "shared")
        layouts = Call(
            decide.pair,
            Call(build_layout, register, shape),
            Call(build_layout_value, shared, shape),
        )
        if kind == "bank_conflicts":
            limit = self.integer(table, "max", 0, 0) or 0
            claim = decide.AccessClaim(limit, shape, bits, target)
            return self.compile(common, layouts, claim, decide.bank_conflicts)
        need = self.integer(table, "min_bits", 1) or 0  # required: never the default
        claim = decide.AccessClaim(need, shape, bits, target)
        return self.compile(common, layouts, claim, decide.vectorization)

    def compile(
        self, common: dict[str, Any], build: Any, reference: Any, decider: Any
    ) -> Obligation:
        """The obligation of one check instance."""
        return Obligation(build=build, reference=reference, decide=decider, **common)

    def builtin_reference(
        self, text: str, shape: tuple[int, ...] | None, layout: Any
    ) -> dict[str, str]:
        """``reference = "builtin"``: the closed form the ``specs`` package gives for the
        encoding (blocked and swizzled shared layouts), as formulas."""
        from llverify.encodings import BlockedLayout, SwizzledSharedLayout, to_encoding

        try:
            encoding, given = to_encoding(text)
        except LLVerifyError:
            encoding = None
        dims = list(shape or given or layout.get_out_dim_sizes())
        if isinstance(encoding, BlockedLayout):
            from llverify.specs import blocked

            return dict(
                blocked.blocked_reference(
                    encoding.size_per_thread,
                    encoding.threads_per_warp,
                    encoding.warps_per_cta,
                    encoding.order,
                    dims,
                    encoding.cga_layout,
                )
            )
        if isinstance(encoding, SwizzledSharedLayout):
            from llverify.specs import shared

            return dict(
                shared.shared_reference(
                    "swizzled",
                    encoding.vec,
                    encoding.per_phase,
                    encoding.max_phase,
                    encoding.order,
                    dims,
                    encoding.cga_layout,
                )
            )
        raise self.error(
            'reference = "builtin" needs the layout to be a #ttg.blocked or '
            "#ttg.swizzled_shared encoding (the families with a built-in closed form in "
            "specs/); give 'reference' formulas or a 'reference_layout' for others.",
            "reference",
        )

    def equivalence(
        self, table: Mapping[str, Any], shape: tuple[int, ...] | None, common: dict[str, Any]
    ) -> Obligation:
        text = self.layout_text(table, "layout")
        layout = self.layout(text, shape, "layout")
        method = self.string(table, "method", METHODS, "auto")
        reference_of: Any
        if "reference" in table:
            reference_of = self.formulas(table, text, shape, layout)
        elif "reference_layout" in table:
            reference_of = self.reference_layout(table, shape, layout)
        else:
            reference_of = self.reference_function(table)
        build = Call(build_layout, text, shape)
        return self.compile(common, build, reference_of, Call(decide.equivalence, method=method))

    def formulas(
        self, table: Mapping[str, Any], text: str, shape: tuple[int, ...] | None, layout: Any
    ) -> tuple[tuple[str, str], ...]:
        """``reference``: one valid formula of the in dims per out dim (or "builtin")."""
        reference = table["reference"]
        if reference == "builtin":
            reference = self.builtin_reference(text, shape, layout)
        outs = layout.get_out_dim_names()
        if not isinstance(reference, dict):
            raise self.error(
                "'reference' must be \"builtin\" (llverify's closed form of the "
                'encoding) or a table out dim = "formula", like '
                '{ dim0 = "lane >> 3", dim1 = "register" }, not '
                f"{_type_name(reference)}.",
                "reference",
            )
        if set(reference) != set(outs):
            raise self.error(
                f"'reference' gives formulas for {sorted(reference)}, but the layout's out "
                f"dims are {outs}: give one formula for each.",
                "reference",
            )
        for dim in outs:
            self.formula(reference[dim], dim, layout.get_in_dim_names())
        return tuple((dim, reference[dim]) for dim in outs)

    def formula(self, formula: Any, dim: str, ins: list[str]) -> None:
        """The formula for ``dim`` parses and uses only the in dims ``ins``."""
        from llverify.proof.formula import Formula

        if not isinstance(formula, str):
            raise self.error(
                f"the formula for '{dim}' must be a string, not {_type_name(formula)}.",
                "reference",
                dim,
            )
        try:
            parsed = Formula(formula)
        except LLVerifyError as error:
            raise self.error(
                f"the formula for '{dim}' is invalid: {error}", "reference", dim
            ) from None
        except RecursionError:
            raise self.error(
                f"the formula for '{dim}' is nested too deeply.", "reference", dim
            ) from None
        unknown = sorted(parsed.variables - set(ins))
        if unknown:
            raise self.error(
                f"the formula for '{dim}' uses {unknown}, which are not in dims of the "
                f"layout {ins}.",
                "reference",
                dim,
            )

    def reference_layout(
        self, table: Mapping[str, Any], shape: tuple[int, ...] | None, layout: Any
    ) -> Call:
        """``reference_layout``: a layout with the same in and out dims."""
        outs = layout.get_out_dim_names()
        other_text = self.layout_text(table, "reference_layout")
        other = self.layout(other_text, shape, "reference_layout")
        if dict(other.in_dims) != dict(layout.in_dims) or set(other.get_out_dim_names()) != set(
            outs
        ):
            raise self.error(
                f"'reference_layout' must have the layout's in dims {layout.in_dims} and "
                f"out dims {outs}, not {other.in_dims} and {other.get_out_dim_names()}.",
                "reference_layout",
            )
        return Call(build_layout, other_text, shape)

    def reference_function(self, table: Mapping[str, Any]) -> Call:
        """``reference_function``: a function named as "package.module:function"."""
        function = table["reference_function"]
        if not isinstance(function, str) or not _FUNCTION.fullmatch(function):
            raise self.error(
                "'reference_function' must name a function as \"package.module:function\", "
                f"not {function!r}.",
                "reference_function",
            )
        return Call(decide.load_function, function)


def _layouts(src: str, dst: str, shape: Sequence[int] | None) -> Call:
    """Builds ``(src, dst)`` where the obligation runs."""
    return Call(decide.pair, Call(build_layout, src, shape), Call(build_layout, dst, shape))


def _internal(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
