"""docs/architecture.md's generated blocks (scripts/architecture_doc.py): the committed file
equals what the code generates, every package's ``__init__`` docstring names its modules, and
the import extraction, the markers and the staleness check on small synthetic trees."""

from __future__ import annotations

import functools
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cases.scripts import ROOT, load_script

doc = load_script("scripts/architecture_doc.py")

FIX = "python scripts/architecture_doc.py"


@functools.cache
def real():  # the repository's doc regenerated once (scanning the package takes a second)
    return doc.build(ROOT)


@functools.cache
def real_modules():
    return doc.scan_package(ROOT / "llverify")


def test_architecture_doc_is_current() -> None:
    result = real()
    assert not result.stale, (
        f"docs/architecture.md is stale; regenerate it with `{FIX}`:\n{result.diff()}"
    )
    # the generated parts are there, with every top-level module and package
    assert "| 1 | `__main__.py` |" in result.current
    assert "### `audit/`" in result.current and "| `module.py` |" in result.current


def test_package_docstrings_name_their_modules() -> None:
    modules = real_modules()
    assert "llverify.emitted.sim.executor" in modules  # the scan sees the subpackages' modules
    assert doc.undocumented_modules(modules) == {}, (
        f"name these modules in their package's __init__ docstring (`{FIX} --check` lists them)"
    )
    assert real().problems == []


def test_real_imports_of_the_package() -> None:
    # known edges of the real tree: a function-level import, `from llverify import gf2`, and a
    # `from llverify.smt import solver`-style submodule import (smt.lowering's)
    modules = real_modules()
    assert modules["llverify.shared_memory.lowering"].imports["llverify.smt.lowering"] is False
    assert modules["llverify.proof.structure"].imports["llverify.gf2"] is True
    assert "llverify" in modules["llverify.cli.main"].imports  # from llverify import __version__
    assert all(
        not name.startswith("llverify.smt")
        for name in modules["llverify.shared_memory.access"].imports
    )


# --- synthetic trees ------------------------------------------------------------------------


def write_tree(base: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


TREE = {
    "llverify/__init__.py": '"""The root."""\nfrom llverify.low import f\n',
    "llverify/low.py": '"""Low: the bottom.\n\nMore text."""\n\ndef f():\n    return 1\n',
    "llverify/mid.py": '''
        """Mid: imports the bottom
        and a package, with a sentence over two lines.
        """
        from llverify import low
        from llverify.pkg import helper


        def later():
            from llverify import top  # function level

            return top
        ''',
    "llverify/top.py": '''
        """Top."""
        import llverify.pkg.sub as sub
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from llverify.mid import later
        ''',
    "llverify/pkg/__init__.py": '''
        """A package: ``sub`` (the sub module) and :mod:`.other`."""
        helper = 1
        ''',
    "llverify/pkg/sub.py": '"""Sub."""\nfrom .. import low\nfrom llverify.pkg import helper\n',
    "llverify/pkg/other.py": '"""Other."""\nfrom . import sub\nfrom .sub import x\n',
}

PYPROJECT = """
[[tool.importlinter.contracts]]
id = "layers"
name = "layers"
type = "layers"
containers = ["llverify"]
layers = ["top", "mid | pkg", "low"]
"""

DOC = """
# Architecture

Hand-written prose stays.

<!-- generated: layers -->
<!-- end generated -->

## Modules

<!-- generated: modules -->
<!-- end generated -->

Closing prose stays too.
"""


def test_import_extraction(tmp_path: Path) -> None:
    write_tree(tmp_path, TREE)
    modules = doc.scan_package(tmp_path / "llverify")
    assert set(modules) == {
        "llverify",
        "llverify.low",
        "llverify.mid",
        "llverify.top",
        "llverify.pkg",
        "llverify.pkg.sub",
        "llverify.pkg.other",
    }
    # `from llverify import low` of a submodule is that submodule; `from llverify.pkg import
    # helper` (not a module) is the package; a function-level import is deferred
    assert modules["llverify.mid"].imports == {
        "llverify.low": True,
        "llverify.pkg": True,
        "llverify.top": False,
    }
    # `import llverify.pkg.sub as sub`; an import under `if TYPE_CHECKING:` is deferred
    assert modules["llverify.top"].imports == {"llverify.pkg.sub": True, "llverify.mid": False}
    # relative imports: `from .. import low`, `from . import sub`, `from .sub import x`
    assert modules["llverify.pkg.sub"].imports == {"llverify.low": True, "llverify.pkg": True}
    assert modules["llverify.pkg.other"].imports == {"llverify.pkg.sub": True}
    assert modules["llverify"].imports == {"llverify.low": True}
    assert modules["llverify.low"].imports == {}
    # top-level names, a package's the union over its modules without itself
    members = [modules["llverify.pkg"], modules["llverify.pkg.sub"], modules["llverify.pkg.other"]]
    assert doc.imported_names(members, "pkg") == {"low": True}
    assert doc.imported_names([modules["llverify.mid"]], "mid") == {
        "low": True,
        "pkg": True,
        "top": False,
    }


def test_summary_is_the_first_line_to_the_end_of_its_sentence() -> None:
    assert doc.summary("Low: the bottom.\n\nMore text.") == "Low: the bottom"
    assert doc.summary("One ``a|b``\nto the end.\nNot this.") == "One `a\\|b` to the end"
    assert doc.summary(":func:`f` of :class:`~x.y.Z` in :mod:`.sub`.") == "`f` of `Z` in `sub`"
    assert doc.summary(None) == "*(no docstring)*"


def test_regenerate_then_check(tmp_path: Path) -> None:
    write_tree(tmp_path, TREE)
    write_tree(tmp_path, {"pyproject.toml": PYPROJECT, "docs/architecture.md": DOC})
    assert doc.main(["--root", str(tmp_path)]) == 0
    text = (tmp_path / "docs/architecture.md").read_text(encoding="utf-8")
    assert "Hand-written prose stays." in text and "Closing prose stays too." in text
    assert "```\ntop\nmid | pkg\nlow\n```" in text
    # in layer order; the function-level import in italics; the package's own table
    assert text.index("| 1 | `top.py` |") < text.index("| 2 | `mid.py` |")
    assert text.index("| 2 | `mid.py` |") < text.index("| 2 | [`pkg/`](#pkg) |")
    assert text.index("| 2 | [`pkg/`](#pkg) |") < text.index("| 3 | `low.py` |")
    assert (
        "| 2 | `mid.py` | Mid: imports the bottom and a package, with a sentence over two " in text
    )
    assert "| low, pkg, *top* |" in text
    assert "### `pkg/`" in text and "| `other.py` | Other | sub | - |" in text
    assert "| `sub.py` | Sub | __init__ | low |" in text
    assert doc.main(["--root", str(tmp_path), "--check"]) == 0
    assert doc.main(["--root", str(tmp_path)]) == 0  # idempotent
    assert (tmp_path / "docs/architecture.md").read_text(encoding="utf-8") == text


def test_stale_doc_is_detected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # negative control: a new import in the code makes the committed doc stale
    write_tree(tmp_path, TREE)
    write_tree(tmp_path, {"pyproject.toml": PYPROJECT, "docs/architecture.md": DOC})
    assert doc.main(["--root", str(tmp_path)]) == 0
    capsys.readouterr()
    with open(tmp_path / "llverify/low.py", "a", encoding="utf-8") as file:
        file.write("from llverify.pkg import sub\n")
    assert doc.main(["--root", str(tmp_path), "--check"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("--- docs/architecture.md (committed)")
    assert "-| 3 | `low.py` | Low: the bottom | - |" in out
    assert "+| 3 | `low.py` | Low: the bottom | pkg |" in out
    assert f"is stale; run: {FIX}" in err


def test_hand_edit_of_the_real_doc_is_detected() -> None:
    # negative control on the real file: a dropped import in a generated row is put back
    result = real()
    lines = result.current.splitlines(keepends=True)
    start = lines.index("| layer | module | job | imports (llverify) |\n")
    row = next(i for i in range(start + 2, len(lines)) if lines[i].count(", ") >= 1)
    cells = lines[row].split(" | ")
    cells[-1] = cells[-1].split(", ", 1)[1]  # drop the first import of a row with several
    edited = "".join([*lines[:row], " | ".join(cells), *lines[row + 1 :]])
    assert edited != result.current
    assert doc.replace_blocks(edited, result.blocks) == result.current


def test_undocumented_module_is_listed(tmp_path: Path) -> None:
    write_tree(tmp_path, TREE)
    modules = doc.scan_package(tmp_path / "llverify")
    assert doc.undocumented_modules(modules) == {}
    # a plain word is not a mention; names in code markup are (name, name.py, .name, dotted)
    write_tree(tmp_path, {"llverify/pkg/__init__.py": '"""A package: sub and the other one."""'})
    modules = doc.scan_package(tmp_path / "llverify")
    assert doc.undocumented_modules(modules) == {"llverify.pkg": ["other", "sub"]}
    for text in ("``sub.py``, ``pkg/other.py``", ":mod:`.sub`, :func:`llverify.pkg.other.f`"):
        write_tree(tmp_path, {"llverify/pkg/__init__.py": f'"""A package: {text}."""'})
        modules = doc.scan_package(tmp_path / "llverify")
        assert doc.undocumented_modules(modules) == {}, text
    write_tree(tmp_path, {"llverify/pkg/__init__.py": '"""A package: ``sub``."""'})
    problems = doc.problems(doc.scan_package(tmp_path / "llverify"), "llverify", ["a"])
    assert problems[0] == "llverify/pkg/__init__.py: the docstring does not name `other`"


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(ROOT / "scripts/architecture_doc.py"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_missing_markers_exit_2_with_one_line(tmp_path: Path) -> None:
    write_tree(tmp_path, TREE)
    broken = DOC.replace("<!-- generated: modules -->\n", "")
    write_tree(tmp_path, {"pyproject.toml": PYPROJECT, "docs/architecture.md": broken})
    result = run_script("--root", str(tmp_path), "--check")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "architecture_doc: error: docs/architecture.md:" in result.stderr
    assert "without a begin marker" in result.stderr
    write_tree(tmp_path, {"docs/architecture.md": "# No markers\n"})
    result = run_script("--root", str(tmp_path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "no '<!-- generated: layers -->'" in result.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<!-- generated: layers -->\n", "has no end marker"),
        ("<!-- generated: nope -->\n<!-- end generated -->\n", "unknown block 'nope'"),
        (
            "<!-- generated: layers -->\n<!-- generated: modules -->\n<!-- end generated -->\n",
            "before the next marker",
        ),
        (DOC + "<!-- generated: layers -->\n<!-- end generated -->\n", "appears twice"),
    ],
)
def test_marker_errors(text: str, message: str) -> None:
    with pytest.raises(doc.DocError, match=message):
        doc.replace_blocks(text, {"layers": "L", "modules": "M"})


def test_help_has_examples() -> None:
    result = run_script("--help")
    assert result.returncode == 0
    assert "python scripts/architecture_doc.py --check" in result.stdout
    assert "exit codes" in result.stdout
