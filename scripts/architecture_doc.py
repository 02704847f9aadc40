"""Regenerate the generated parts of docs/architecture.md from the code, so they cannot drift.

Sources of truth:

* the import graph: every ``llverify/**/*.py`` parsed with :mod:`ast` (module-level and
  function-level imports; ``from llverify.pkg import name`` of a submodule counts as importing
  that submodule); nothing is imported, so neither llverify nor z3 or Triton is needed;
* the layers: the import-linter contract with ``id = "layers"`` in pyproject.toml;
* each module's job: the first line of its docstring (continued to the end of its sentence
  when the line breaks mid-sentence).

Only the text between marker comments is rewritten; everything else is hand-written prose::

    <!-- generated: layers -->
    ...
    <!-- end generated -->

Blocks: ``layers`` (the layer diagram) and ``modules`` (one row per top-level module or package
in layer order, then one table per package).  The script also checks that every package's
``__init__`` docstring names each of its modules.  tests/test_architecture_doc.py runs the
check.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import re
import sys
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DOC = Path("docs/architecture.md")
PYPROJECT = Path("pyproject.toml")
LAYERS_CONTRACT = "layers"
FIX_COMMAND = "python scripts/architecture_doc.py"

BEGIN = re.compile(r"^<!-- generated: (?P<name>[\w-]+)\b.*?-->[ \t]*$", re.MULTILINE)
END = re.compile(r"^<!-- end generated -->[ \t]*$", re.MULTILINE)
WIDTH = 95  # the prose of the docs is wrapped at about this width


class DocError(Exception):
    """A problem that stops the regeneration (exit 2): markers, pyproject.toml, syntax."""


@dataclass
class Module:
    """One module of the package, as its source says."""

    name: str  # dotted, e.g. llverify.ttgir.module (a package: its __init__)
    path: Path  # relative to the directory that holds the package
    is_package: bool
    docstring: str | None
    #: imported llverify module -> True when imported at import time (module level), False
    #: when only inside functions or under ``if TYPE_CHECKING:``
    imports: dict[str, bool] = field(default_factory=dict)

    @property
    def parent(self) -> str:
        return self.name.rpartition(".")[0]

    @property
    def short(self) -> str:
        return self.name.rpartition(".")[2]


# --- the import graph -----------------------------------------------------------------------


def _module_name(path: Path, package_dir: Path) -> tuple[str, bool]:
    parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _import_nodes(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement of ``tree`` with whether it runs when the module is imported
    (not inside a function, not under ``if TYPE_CHECKING:``).  Only statements are walked:
    an import is a statement, so expressions never hold one."""
    stack: list[tuple[list[ast.stmt], bool]] = [(tree.body, True)]
    while stack:
        body, eager = stack.pop()
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                yield node, eager
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                stack.append((node.body, False))
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                stack += [(node.body, False), (node.orelse, eager)]
            else:
                stack += [(block, eager) for block in _blocks(node)]


def _blocks(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists directly inside a compound statement (bodies, else branches,
    ``except`` handlers, ``match`` cases)."""
    for value in vars(node).values():
        if isinstance(value, list) and value:
            if isinstance(value[0], ast.stmt):
                yield value
            elif isinstance(value[0], ast.excepthandler | ast.match_case):
                yield from (item.body for item in value)


def _known(name: str, names: set[str]) -> str:
    """``name`` if it is a module, else its longest prefix that is one (else ``name``)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in names:
            return candidate
    return name


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, root: str, known: set[str]
) -> Iterator[str]:
    """The modules of package ``root`` that one import statement of ``module`` imports."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == root or alias.name.startswith(root + "."):
                yield _known(alias.name, known)
        return
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = package[: len(package) - (node.level - 1)]
        target = ".".join([*base, *(node.module.split(".") if node.module else [])])
    else:
        target = node.module or ""
    if target != root and not target.startswith(root + "."):
        return
    for alias in node.names:
        submodule = f"{target}.{alias.name}"
        yield submodule if submodule in known else _known(target, known)


def scan_package(package_dir: Path) -> dict[str, Module]:
    """Every module of the package at ``package_dir`` (any depth), with its llverify imports.

    Raises :class:`DocError` for a file that does not parse.
    """
    package_dir = Path(package_dir)
    root = package_dir.name
    paths = sorted(p for p in package_dir.rglob("*.py") if "__pycache__" not in p.parts)
    modules: dict[str, Module] = {}
    trees: dict[str, ast.Module] = {}
    for path in paths:
        name, is_package = _module_name(path, package_dir)
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except SyntaxError as error:
            raise DocError(f"{path}:{error.lineno}: cannot parse: {error.msg}") from None
        relative = path.relative_to(package_dir.parent)
        modules[name] = Module(name, relative, is_package, ast.get_docstring(tree))
        trees[name] = tree
    known = set(modules)
    for name, module in modules.items():
        for node, eager in _import_nodes(trees[name]):
            for target in _targets(node, name, module.is_package, root, known):
                if target != name:
                    module.imports[target] = module.imports.get(target, False) or eager
    return modules


def top_level(name: str) -> str:
    """The top-level module or package of ``name`` (``llverify.ttgir.module`` -> ``ttgir``);
    the root package itself is its own name (``llverify``)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def imported_names(modules: Iterable[Module], exclude: str) -> dict[str, bool]:
    """The top-level names that ``modules`` import (name -> imported at import time), without
    ``exclude``."""
    names: dict[str, bool] = {}
    for module in modules:
        for target, eager in module.imports.items():
            name = top_level(target)
            if name != exclude:
                names[name] = names.get(name, False) or eager
    return names


# --- the layers -----------------------------------------------------------------------------


def read_layers(pyproject: Path) -> tuple[str, list[str]]:
    """The container and the layers (top to bottom, as written) of the ``layers`` contract."""
    try:
        config = tomllib.loads(Path(pyproject).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise DocError(f"{pyproject}: cannot read: {error}") from None
    contracts = config.get("tool", {}).get("importlinter", {}).get("contracts", [])
    for contract in contracts:
        if contract.get("id") == LAYERS_CONTRACT:
            layers = [" ".join(str(layer).split()) for layer in contract.get("layers", [])]
            containers = contract.get("containers", [])
            if not layers or len(containers) != 1:
                raise DocError(
                    f"{pyproject}: the {LAYERS_CONTRACT!r} contract needs 'layers' and one "
                    "container"
                )
            return containers[0], layers
    raise DocError(f"{pyproject}: no [[tool.importlinter.contracts]] with id = {LAYERS_CONTRACT!r}")


def layer_members(layer: str) -> list[str]:
    """The module names of one layer string (``a | b``; ``:`` separates non-independent
    siblings; parentheses mark an optional layer)."""
    return [name.strip("() ") for name in re.split(r"[|:]", layer) if name.strip("() ")]


# --- rendering ------------------------------------------------------------------------------


def summary(docstring: str | None) -> str:
    """A docstring's first line, continued to the end of its sentence if the line breaks
    mid-sentence (within the first paragraph), as markdown."""
    if not docstring or not docstring.strip():
        return "*(no docstring)*"
    lines: list[str] = []
    for line in docstring.strip().splitlines():
        if not line.strip():
            break
        lines.append(line.strip())
        if line.rstrip().endswith((".", "!", "?", ".)")):
            break
    text = " ".join(lines).rstrip(".")
    return _markdown(text)


def _markdown(text: str) -> str:
    """reST inline markup to markdown: roles and double backticks to code spans; ``|``
    escaped for tables."""

    def role(match: re.Match[str]) -> str:
        target = match.group(1)
        if target.startswith("~"):
            target = target.rpartition(".")[2]
        return f"`{target.lstrip('.')}`"

    text = re.sub(r":[a-z]+:`([^`]+)`", role, text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return text.replace("|", "\\|")


def _names(names: dict[str, bool]) -> str:
    if not names:
        return "-"
    return ", ".join(name if names[name] else f"*{name}*" for name in sorted(names))


def _file(module: Module, base: str) -> str:
    relative = module.name[len(base) + 1 :] if module.name != base else ""
    if module.is_package:
        return (relative.replace(".", "/") + "/__init__.py").lstrip("/")
    return relative.replace(".", "/") + ".py"


def _label(module: Module, package: str) -> str:
    """A module of ``package`` as its imports column names it: ``sub``, ``sub/inner``,
    ``__init__``."""
    return _file(module, package).removesuffix(".py").removesuffix("/__init__") or "__init__"


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def render_layers(layers: list[str]) -> str:
    return "```\n" + "\n".join(layers) + "\n```"


def ordered_top_level(
    modules: dict[str, Module], root: str, layers: list[str]
) -> list[tuple[str, str]]:
    """(layer number, top-level name) in layer order; names without a layer last, as ``-``."""
    present = {top_level(name) for name in modules if name != root}
    rows: list[tuple[str, str]] = []
    seen: set[str] = set()
    for number, layer in enumerate(layers, 1):
        for name in layer_members(layer):
            if name in present and name not in seen:
                rows.append((str(number), name))
                seen.add(name)
    rows.extend(("-", name) for name in sorted(present - seen))
    return rows


def render_modules(modules: dict[str, Module], root: str, layers: list[str]) -> str:
    """The modules block: the top-level table, the root package's imports, and one table per
    package."""
    rows = ordered_top_level(modules, root, layers)
    packages = [name for _, name in rows if modules.get(f"{root}.{name}", None) is not None]
    packages = [name for name in packages if modules[f"{root}.{name}"].is_package]
    legend = (
        "Layer 1 is the top. The job is the first line of the module's (or package "
        "`__init__`'s) docstring, to the end of its sentence. The imports are the llverify "
        "modules its source imports (module level or inside functions), named by their "
        "top-level module or package; a package's are those of all its modules. "
        f"`{root}` is the package `__init__` itself. "
        "*Italic*: imported only inside functions (or under `if TYPE_CHECKING:`), so "
        "importing the module does not load it."
    )
    out = [
        textwrap.fill(legend, WIDTH, break_on_hyphens=False, break_long_words=False),
        "",
        "| layer | module | job | imports (llverify) |",
        "|---|---|---|---|",
    ]
    for number, name in rows:
        full = f"{root}.{name}"
        members = [m for m in modules.values() if m.name == full or m.name.startswith(full + ".")]
        head = modules.get(full)
        if head is not None and head.is_package:
            label = f"[`{name}/`](#{_anchor(name + '/')})"
        else:
            label = f"`{name}.py`"
        job = summary(head.docstring if head else None)
        out.append(f"| {number} | {label} | {job} | {_names(imported_names(members, name))} |")
    init = modules.get(root)
    if init is not None:
        sentence = (
            f"`{root}/__init__.py` (the public API; in no layer) imports "
            f"{_names(imported_names([init], root))}."
        )
        out += ["", textwrap.fill(sentence, WIDTH, break_on_hyphens=False)]
    for name in packages:
        full = f"{root}.{name}"
        members = sorted(
            (m for m in modules.values() if m.name == full or m.name.startswith(full + ".")),
            key=lambda m: (not m.is_package or m.name != full, m.name),
        )
        out += [
            "",
            f"### `{name}/`",
            "",
            f"| module | job | imports within `{name}/` | imports (llverify) |",
            "|---|---|---|---|",
        ]
        for module in members:
            inside = {
                _label(modules[t], full): e
                for t, e in module.imports.items()
                if (t == full or t.startswith(full + ".")) and t in modules
            }
            outside = imported_names([module], name)
            out.append(
                f"| `{_file(module, full)}` | {summary(module.docstring)} | {_names(inside)} | "
                f"{_names(outside)} |"
            )
    return "\n".join(out)


# --- checks ---------------------------------------------------------------------------------


def _names_module(docstring: str, member: Module) -> bool:
    """Whether ``docstring`` names ``member`` in code markup: ``name``, ``name.py``, ``.name``,
    ``pkg/name.py``, ``llverify.pkg.name`` or something inside it (``llverify.pkg.name.f``)."""
    parts = member.name.split(".")
    suffixes = {".".join(parts[i:]) for i in range(len(parts))}
    for token in re.findall(r"`+([^`]+?)`+", docstring):
        text = token.strip().lstrip("~")
        relative = text.startswith(".")
        text = text.lstrip(".").removesuffix(".py").rstrip("/").replace("/", ".")
        if text in suffixes:
            return True
        for suffix in suffixes:
            if text.startswith(suffix + ".") and ("." in suffix or relative):
                return True
    return False


def undocumented_modules(modules: dict[str, Module]) -> dict[str, list[str]]:
    """Per package, the modules (and subpackages) its ``__init__`` docstring does not name."""
    missing: dict[str, list[str]] = {}
    packages = [m for m in modules.values() if m.is_package and "." in m.name]  # not the root
    for package in sorted(packages, key=lambda m: m.name):
        names = [
            member.short
            for member in modules.values()
            if member.parent == package.name and not _names_module(package.docstring or "", member)
        ]
        if names:
            missing[package.name] = sorted(names)
    return missing


def problems(modules: dict[str, Module], root: str, layers: list[str]) -> list[str]:
    """What the generated doc cannot describe right: undocumented modules, layer mismatches."""
    found = [
        f"{modules[package].path}: the docstring does not name "
        + ", ".join(f"`{name}`" for name in names)
        for package, names in undocumented_modules(modules).items()
    ]
    present = {top_level(name) for name in modules if name != root}
    in_layers = {name for layer in layers for name in layer_members(layer)}
    found += [
        f"pyproject.toml: layer module {name!r} does not exist"
        for name in sorted(in_layers - present)
    ]
    found += [
        f"{root}.{name} is in no layer of pyproject.toml" for name in sorted(present - in_layers)
    ]
    return found


# --- the document ---------------------------------------------------------------------------


def replace_blocks(text: str, blocks: dict[str, str], where: str = str(DOC)) -> str:
    """``text`` with the content between each pair of markers replaced by ``blocks[name]``.

    Raises :class:`DocError` for a missing, unknown, duplicated, nested or unpaired marker.
    """
    markers = sorted([*BEGIN.finditer(text), *END.finditer(text)], key=lambda m: m.start())
    out: list[str] = []
    position = 0
    open_block: re.Match[str] | None = None
    seen: set[str] = set()
    for marker in markers:
        line = text.count("\n", 0, marker.start()) + 1
        name = marker.groupdict().get("name")
        if name is None:  # an end marker
            if open_block is None:
                raise DocError(f"{where}:{line}: '<!-- end generated -->' without a begin marker")
            out += [text[position : open_block.end()], "\n"]
            out += [blocks[open_block.group("name")].strip("\n"), "\n"]
            position, open_block = marker.start(), None
        elif open_block is not None:
            raise DocError(
                f"{where}:{line}: block {open_block.group('name')!r} has no "
                "'<!-- end generated -->' before the next marker"
            )
        elif name not in blocks:
            raise DocError(
                f"{where}:{line}: unknown block {name!r} (known: {', '.join(sorted(blocks))})"
            )
        elif name in seen:
            raise DocError(f"{where}:{line}: block {name!r} appears twice")
        else:
            seen.add(name)
            open_block = marker
    if open_block is not None:
        line = text.count("\n", 0, open_block.start()) + 1
        raise DocError(f"{where}:{line}: block {open_block.group('name')!r} has no end marker")
    missing = [name for name in blocks if name not in seen]
    if missing:
        raise DocError(
            f"{where}: no '<!-- generated: {missing[0]} -->' ... '<!-- end generated -->' "
            f"markers (needed: {', '.join(blocks)})"
        )
    out.append(text[position:])
    return "".join(out)


@dataclass
class Result:
    """The document as it is, as it should be, and what the code itself gets wrong."""

    current: str
    regenerated: str
    problems: list[str]
    blocks: dict[str, str]

    @property
    def stale(self) -> bool:
        return self.current != self.regenerated

    def diff(self, name: str = str(DOC)) -> str:
        return "".join(
            difflib.unified_diff(
                self.current.splitlines(keepends=True),
                self.regenerated.splitlines(keepends=True),
                fromfile=f"{name} (committed)",
                tofile=f"{name} (from the code)",
            )
        )


def build(root: Path = ROOT, doc: Path = DOC) -> Result:
    """Regenerate ``doc`` (relative to the repository ``root``) in memory."""
    root = Path(root)
    container, layers = read_layers(root / PYPROJECT)
    package_dir = root / container
    if not (package_dir / "__init__.py").is_file():
        raise DocError(f"{package_dir}: not a package (the layers contract's container)")
    modules = scan_package(package_dir)
    try:
        current = (root / doc).read_text(encoding="utf-8")
    except OSError as error:
        raise DocError(f"{root / doc}: cannot read: {error.strerror}") from None
    blocks = {
        "layers": render_layers(layers),
        "modules": render_modules(modules, container, layers),
    }
    regenerated = replace_blocks(current, blocks, str(doc))
    return Result(current, regenerated, problems(modules, container, layers), blocks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python scripts/architecture_doc.py",
        description="Regenerate the generated blocks of docs/architecture.md (the layer\n"
        "diagram and the module tables) from the import graph, the import-linter 'layers'\n"
        "contract and the module docstrings, and check that each package's __init__\n"
        "docstring names all its modules.",
        epilog="examples:\n"
        "  python scripts/architecture_doc.py          # rewrite docs/architecture.md\n"
        "  python scripts/architecture_doc.py --check  # exit 1 with a diff if it is stale\n"
        "\nexit codes: 0 current; 1 stale (--check) or a package docstring misses a\n"
        "module; 2 markers, pyproject.toml or a source file unreadable",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; print a unified diff and exit 1 if the file is stale",
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the repository root (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    try:
        result = build(args.root)
    except DocError as error:
        print(f"architecture_doc: error: {error}", file=sys.stderr)
        return 2
    status = 0
    if args.check:
        if result.stale:
            sys.stdout.write(result.diff())
            print(f"{DOC} is stale; run: {FIX_COMMAND}", file=sys.stderr)
            status = 1
    elif result.stale:
        (args.root / DOC).write_text(result.regenerated, encoding="utf-8")
        print(f"rewrote {DOC}", file=sys.stderr)
    else:
        print(f"{DOC} is current", file=sys.stderr)
    for problem in result.problems:
        print(f"architecture_doc: {problem}", file=sys.stderr)
    return 1 if result.problems else status


if __name__ == "__main__":
    sys.exit(main())
