"""The command line's targets and dtypes come from llverify.hardware's tables: every choice
list and help listing, the targets ``audit`` and ``validate`` share (and what each refuses,
with the reason), and ``--release`` naming the folder it searched."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.cli import EXIT_OK, EXIT_USAGE, main
from llverify.cli.args import BIT_COUNTS
from llverify.cli.main import build_parser
from llverify.hardware import BANK_MODELS, DTYPE_NAMES, PARTITION_MODELS, TARGETS

FIXTURES = Path(__file__).resolve().parent / "data" / "ttgir"
#: the subcommands whose --target is a bank model (the shared-memory analyses)
BANK_COMMANDS = ("convert", "bank-conflicts", "swizzle", "draw")
#: the subcommands whose --target is a GPU target of llverify.hardware.TARGETS
GPU_COMMANDS = ("audit", "validate")
#: the subcommands whose --target is "nvidia" (the global-memory model) or a GPU target
GLOBAL_COMMANDS = ("coalescing",)
#: the subcommands whose --target is a target with LDS partitions (gfx1250)
PARTITION_COMMANDS = ("lds-partitions",)


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(commands.choices)


def _option(command: str, flag: str) -> argparse.Action:
    (action,) = [a for a in _subparsers()[command]._actions if flag in a.option_strings]
    return action


def test_every_target_choice_list_is_a_hardware_table() -> None:
    """Every subcommand with a --target takes its choices from hardware, none by hand."""
    with_target = {
        name
        for name, sub in _subparsers().items()
        if any("--target" in a.option_strings for a in sub._actions)
    }
    assert with_target == {*BANK_COMMANDS, *GPU_COMMANDS, *GLOBAL_COMMANDS, *PARTITION_COMMANDS}
    for command in BANK_COMMANDS:
        assert list(_option(command, "--target").choices or ()) == list(BANK_MODELS), command
    for command in GPU_COMMANDS:
        assert list(_option(command, "--target").choices or ()) == list(TARGETS), command
    for command in GLOBAL_COMMANDS:
        choices = list(_option(command, "--target").choices or ())
        assert choices == ["nvidia", *TARGETS], command
    for command in PARTITION_COMMANDS:
        assert list(_option(command, "--target").choices or ()) == list(PARTITION_MODELS)


def test_every_dtype_help_lists_the_dtype_table() -> None:
    with_dtype = [
        name
        for name, sub in _subparsers().items()
        if any("--dtype" in a.option_strings for a in sub._actions)
    ]
    assert sorted(with_dtype) == sorted((*BANK_COMMANDS, *GLOBAL_COMMANDS, *PARTITION_COMMANDS))
    for command in with_dtype:
        text = _option(command, "--dtype").help or ""
        assert f"{', '.join(DTYPE_NAMES)} " in text and BIT_COUNTS in text, command


def test_audit_and_validate_accept_the_same_targets_and_say_what_they_refuse() -> None:
    """The same choices; audit's help names each target without a bank model, and validate's
    gives every target's Triton target."""
    assert _option("audit", "--target").choices == _option("validate", "--target").choices
    audit_help = _option("audit", "--target").help or ""
    validate_help = _option("validate", "--target").help or ""
    for name, target in TARGETS.items():
        assert f"{name}: {target.triton}" in validate_help
        assert (name in audit_help) == (target.bank_model is None), name
    assert "no shared-memory bank model" in audit_help


@pytest.mark.parametrize("name", [n for n, t in TARGETS.items() if t.bank_model is None])
def test_audit_refuses_a_target_without_a_bank_model_in_one_line(name, capsys) -> None:
    kernel = FIXTURES / "softmax_fp32_sm80.ttgir"
    assert main(["audit", str(kernel), "--target", name]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "no shared-memory bank model" in err, err
    assert f"not '{name}'" in err


@pytest.mark.parametrize("name", [n for n, t in TARGETS.items() if t.bank_model is not None])
def test_audit_takes_the_bank_model_of_each_other_target(name, capsys) -> None:
    kernel = FIXTURES / "softmax_fp32_sm80.ttgir"
    assert main(["audit", str(kernel), "--target", name, "--json"]) == EXIT_OK
    assert f'"target": "{TARGETS[name].bank_model.name}"' in capsys.readouterr().out


@pytest.mark.triton
@pytest.mark.parametrize("name", ["sm86", "sm89", "sm120", "gfx1100"])
def test_validate_compiles_the_targets_audit_had_alone(name, capsys) -> None:
    """Triton 3.9 compiles these on the CPU: validate accepts them (as audit does sm86-sm120)."""
    require_triton()
    kernel = FIXTURES / "softmax_fp32_sm80.ttgir"
    assert main(["validate", str(kernel), "--target", name, "--quiet"]) == EXIT_OK
    assert f"on {TARGETS[name].triton} " in capsys.readouterr().out


def test_a_missing_release_names_the_folder_searched(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("LLVERIFY_TRITON_RELEASES", str(tmp_path))
    kernel = FIXTURES / "softmax_fp32_sm80.ttgir"
    assert main(["validate", str(kernel), "--release", "3.2.0"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert f"no virtualenv in {tmp_path}" in err and "LLVERIFY_TRITON_RELEASES" in err
    assert "~/.cache/llverify/triton-releases" in (_option("validate", "--release").help or "")
