"""Structural figures of the llverify package: the numbers a maintainer watches.

Run from the repository root (no llverify import, no z3 or Triton needed):

    python scripts/structure_figures.py            # a table
    python scripts/structure_figures.py --json     # the same as JSON

Prints the modules and lines of code, the import graph (edges between llverify modules,
module-level and function-level alike), the top-level modules and packages, the layers of the
import-linter contract, what each package depends on outside itself, the functions over 50 and
over 100 lines (``end_lineno - lineno + 1`` of the ``def``, docstring included), and the
longest functions.  The wheel's size is not computed here: build it with
``pip wheel --no-deps . -w DIR`` and look at the file.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "scripts") not in sys.path:
    sys.path.insert(0, str(ROOT / "scripts"))  # its sibling, also when imported by path

from architecture_doc import read_layers, scan_package, top_level  # noqa: E402

PACKAGES_OF_INTEREST = ("llverify.emitted", "llverify.emitted.sim", "llverify.ttgir")


def _functions(package_dir: Path) -> list[tuple[int, str]]:
    """(length, "path:name") of every function and method of the package."""
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                found.append((length, f"{path.relative_to(ROOT)}:{node.name}"))
    return sorted(found, reverse=True)


def _depends_on(modules: dict, package: str) -> list[str]:
    """The llverify names outside ``package`` that its modules import (at any depth)."""
    names = set()
    for name, module in modules.items():
        if name == package or name.startswith(package + "."):
            for target in module.imports:
                if not (target == package or target.startswith(package + ".")):
                    names.add(target)
    return sorted(names)


def figures() -> dict:
    """The figures as a JSON-ready dict."""
    package_dir = ROOT / "llverify"
    modules = scan_package(package_dir)
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in package_dir.rglob("*.py"))
    _, layers = read_layers(ROOT / "pyproject.toml")
    top = sorted({f"llverify.{top_level(name)}" for name in modules} - {"llverify.llverify"})
    top_modules = [n for n in top if not modules[n].is_package and n != "llverify.__main__"]
    functions = _functions(package_dir)
    return {
        "modules": len(modules),
        "lines": lines,
        "import_edges": sum(len(m.imports) for m in modules.values()),
        "top_level_modules": len(top_modules),
        "top_level_packages": sum(modules[n].is_package for n in top),
        "layers": len(layers),
        "functions_over_50": sum(length > 50 for length, _ in functions),
        "functions_over_100": sum(length > 100 for length, _ in functions),
        "longest": [f"{name} ({length})" for length, name in functions[:5]],
        "depends_on": {
            package: sorted({top_level(t) for t in _depends_on(modules, package)} - {"llverify"})
            for package in PACKAGES_OF_INTEREST
            if package in modules
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="example: python scripts/structure_figures.py --json > figures.json",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    result = figures()
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    for key, value in result.items():
        if isinstance(value, dict):
            for package, names in value.items():
                shown = ", ".join(names) or "-"
                print(f"{key} {package}: {len(names)} ({shown})")
        elif isinstance(value, list):
            print(f"{key}: {'; '.join(value)}")
        else:
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
