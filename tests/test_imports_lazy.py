"""Lazy imports (issue 26 item 5): ``import llverify`` and the CLI's parser load neither numpy,
z3, sympy nor the layout machinery; the public names still resolve, each to its module's
object, on first use.  Checked in fresh interpreters (what is loaded is the point); the
times are benchmarks/bench_import.py's, never a test's."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import llverify

HEAVY = ("numpy", "z3", "sympy", "llverify.layout", "llverify.encodings")


def _loaded_after(code: str) -> set[str]:
    """The modules of :data:`HEAVY` loaded after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


def test_import_llverify_loads_nothing_heavy() -> None:
    assert _loaded_after("import llverify") == set()


def test_help_loads_nothing_heavy() -> None:
    code = (
        "import contextlib, io\n"
        "from llverify.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['--help']) == 0\n"
        "    for command in ('layout', 'bank-conflicts', 'convert', 'validate', 'prove'):\n"
        "        assert main([command, '--help']) == 0\n"
    )
    assert _loaded_after(code) == set()


def _cli_modules_after(code: str) -> set[str]:
    """The llverify.cli modules and the heavier standard modules loaded after ``code``."""
    probe = (
        f"{code}\nimport sys\n"
        "print(' '.join(m for m in sys.modules if m.startswith('llverify.cli.') or m in "
        "('json', 'xml', 'shutil', 'dataclasses', 'inspect', 'typing', 'llverify.hardware')))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


HELP = (
    "import contextlib, io\n"
    "from llverify.cli.main import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    assert main({argv!r}) == {code}\n"
)


def test_help_imports_no_subcommand_module() -> None:
    # `llverify --help` (and no command, and a bad one) builds the list of subcommands from
    # main.COMMANDS: no subcommand module, no argument helpers, nothing of what they import.
    light = {"llverify.cli.main", "llverify.cli.message"}
    for argv, code in ((["--help"], 0), ([], 2), (["no-such-command"], 2), (["--version"], 0)):
        assert _cli_modules_after(HELP.format(argv=argv, code=code)) == light, argv


def test_a_subcommand_imports_its_own_module_only() -> None:
    loaded = _cli_modules_after(HELP.format(argv=["layout", "--help"], code=0))
    assert "llverify.cli.layout_cmd" in loaded
    assert (
        not {"llverify.cli.validate_cmd", "llverify.cli.audit_cmd", "llverify.cli.junit"} & loaded
    )
    # negative control: the full parser (docs, tests) imports every subcommand module
    full = _cli_modules_after("from llverify.cli.main import build_parser; build_parser()")
    assert {"llverify.cli.validate_cmd", "llverify.cli.audit_cmd", "json"} <= full


def test_the_lazy_command_list_is_the_full_parsers() -> None:
    # main.COMMANDS repeats each subcommand's help line: it must be what the module registers,
    # in the same order, so that `llverify --help` reads the same either way.
    from llverify.cli.main import COMMANDS, build_parser

    full = build_parser()
    (subparsers,) = [a for a in full._actions if a.dest == "command"]
    assert [(a.dest, a.help) for a in subparsers._choices_actions] == [
        (name, help_line) for name, _, help_line in COMMANDS
    ]
    for name, module, _ in COMMANDS:
        assert subparsers.choices[name].prog == f"llverify {name}"
        lazy = build_parser(name)
        assert lazy.format_help() == full.format_help()
        (lazy_sub,) = [a for a in lazy._actions if a.dest == "command"]
        assert lazy_sub.choices[name].format_help() == subparsers.choices[name].format_help()
        assert importlib.import_module(f"llverify.cli.{module}").register  # the module named
    assert build_parser("").format_help() == full.format_help()


def test_help_width_is_argparses(monkeypatch) -> None:
    import shutil

    from llverify.cli.message import terminal_columns

    for columns in ("60", "133", "0", "-5", "wide"):
        monkeypatch.setenv("COLUMNS", columns)
        assert terminal_columns() == shutil.get_terminal_size().columns
    monkeypatch.delenv("COLUMNS")
    assert terminal_columns() == shutil.get_terminal_size().columns


def test_first_use_loads_what_it_needs() -> None:
    assert {"numpy", "llverify.layout"} <= _loaded_after("import llverify; llverify.LinearLayout")


@pytest.mark.parametrize("name", llverify.__all__)
def test_public_name_is_its_module_object(name: str) -> None:
    module = importlib.import_module(llverify._LAZY[name])
    assert getattr(llverify, name) is getattr(module, name)
    assert name in dir(llverify)


def test_all_and_the_lazy_table_agree() -> None:
    assert sorted(llverify.__all__) == sorted(llverify._LAZY)
    assert len(set(llverify.__all__)) == len(llverify.__all__)


def test_conversion_is_the_function_after_its_module_loads() -> None:
    """The submodule llverify.conversion and the function share a name: the function wins,
    whichever is imported first."""
    code = (
        "import llverify.conversion, llverify, inspect\n"
        "assert inspect.isfunction(llverify.conversion)\n"
        "from llverify import conversion\n"
        "assert inspect.isfunction(conversion)\n"
    )
    for first in (code, "import llverify; llverify.conversion\n" + code):
        result = subprocess.run([sys.executable, "-c", first], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


def test_star_import_and_submodules() -> None:
    namespace: dict[str, object] = {}
    exec("from llverify import *", namespace)
    assert set(llverify.__all__) <= set(namespace)
    assert llverify.encodings is importlib.import_module("llverify.encodings")
    with pytest.raises(AttributeError, match="no attribute 'no_such_module'"):
        _ = llverify.no_such_module
    with pytest.raises(AttributeError, match="__wrapped__"):
        _ = llverify.__wrapped__
