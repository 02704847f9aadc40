"""A module is valid before it gets a verdict: the TTGIR reader's well-formedness checks
(``llverify.ttgir.wellformed``), Triton's own parser and verifier beside them
(``llverify.triton.verify``), and ``audit``/``validate`` refusing what either refuses.

The mutation corpus (``cases.mutants``: type, SSA and alias edits of the fixtures) is judged
by Triton 3.9's parser (``tests/oracle/parse_oracle.py``): every mutant that Triton refuses is
refused by the reader alone, and no mutant Triton accepts (nor any fixture, nor any kernel of
the real corpus) is refused.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cases.mutants import FIXTURES, SSA_KINDS, VALID_KINDS, mutants
from cases.triton import require_triton
from llverify.triton import verify
from llverify.triton.verify import TritonVerdict, classify, start_triton_check
from llverify.ttgir import ModuleError, blank_locations, check_wellformed, parse_module

ROOT = Path(__file__).resolve().parents[1]
TTGIR = ROOT / "tests" / "data" / "ttgir"
ORACLE = ROOT / "tests" / "oracle" / "parse_oracle.py"
TRANSPOSE = (TTGIR / "transpose_fp16_sm90.ttgir").read_text()
BLOCKED_T = (
    "#blocked = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], "
    "warpsPerCTA = [1, 4], order = [0, 1]}>"
)

#: the issue's four one-line edits of a real fixture, each with where and what the reader says
ISSUE_EDITS = {
    "convert-source-type": (
        TRANSPOSE.replace(
            "%9 = ttg.convert_layout %y : tensor<64x64xf16, #blocked1>",
            "%9 = ttg.convert_layout %y : tensor<64x64xf16, #blocked>",
        ),
        (45, 29),
        r"%y is used as tensor<64x64xf16, #blocked> here, but it is tensor<64x64xf16, "
        r"#blocked1> where line 35 defines it",
    ),
    "redefined": (
        TRANSPOSE.replace("%7 = tt.broadcast %5", "%6 = tt.broadcast %5"),
        (43, 5),
        r"%6 is defined again \(first at line 42",
    ),
    "undefined": (
        TRANSPOSE.replace("%9 = ttg.convert_layout %y ", "%9 = ttg.convert_layout %nope "),
        (45, 29),
        r"%nope is used but never defined",
    ),
    "duplicate-alias": (
        TRANSPOSE.replace("#loc = loc(", BLOCKED_T + "\n#loc = loc(", 1),
        (3, 1),
        r"the alias #blocked is defined twice \(first at line 1\)",
    ),
}


def _module(body: str) -> str:
    return "module {\n  tt.func @k(%x: i32, %p: i1) {\n" + body + "    tt.return\n  }\n}\n"


#: small modules the reader refuses: (body, line, column, message)
REFUSED = {
    "undefined": ("    %a = arith.addi %x, %z : i32\n", 3, 25, "%z is used but never defined"),
    "before-definition": (
        "    %a = arith.addi %x, %b : i32\n    %b = arith.addi %x, %x : i32\n",
        3,
        25,
        r"%b is used before its definition \(line 4\)",
    ),
    "redefined": (
        "    %a = arith.addi %x, %x : i32\n    %a = arith.addi %x, %x : i32\n",
        4,
        5,
        "%a is defined again",
    ),
    "argument-redefined": ("    %x = arith.addi %x, %x : i32\n", 3, 5, "%x is defined again"),
    "outside-region": (
        "    scf.if %p {\n      %t = arith.addi %x, %x : i32\n    }\n"
        "    %u = arith.addi %t, %x : i32\n",
        6,
        21,
        r"%t is used outside the region that defines it \(line 4; the region closes at line 5\)",
    ),
    "result-number": (
        "    %r:2 = scf.if %p -> (i32, i32) {\n      scf.yield %x, %x : i32, i32\n"
        "    } else {\n      scf.yield %x, %x : i32, i32\n    }\n"
        "    %u = arith.addi %r#2, %x : i32\n",
        8,
        21,
        r"%r#2: the operation of line 3 defines 2 result",
    ),
    "type": ("    %a = arith.addi %x, %x : i64\n", 3, 21, "%x is used as i64 here, but it is i32"),
    "yield-type": (
        "    %r = scf.if %p -> (i32) {\n      scf.yield %p : i32\n"
        "    } else {\n      scf.yield %x : i32\n    }\n",
        4,
        17,
        "%p is used as i32 here, but it is i1",
    ),
    "result-type": (
        "    %r = scf.if %p -> (i64) {\n      %c = arith.constant 1 : i64\n"
        "      scf.yield %c : i64\n    } else {\n      %d = arith.constant 2 : i64\n"
        "      scf.yield %d : i64\n    }\n    %u = arith.addi %r, %x : i32\n",
        10,
        21,
        "%r is used as i32 here, but it is i64",
    ),
}

#: small modules the reader accepts (MLIR accepts them too: see the Triton test below)
ACCEPTED = {
    "name-reused-after-its-region": (
        "    scf.if %p {\n      %t = arith.addi %x, %x : i32\n    }\n"
        "    %t = arith.addi %x, %x : i32\n"
    ),
    "outer-value-inside-region": "    scf.if %p {\n      %t = arith.addi %x, %x : i32\n    }\n",
    "loop-values": (
        "    %c0 = arith.constant 0 : i32\n    %c1 = arith.constant 1 : i32\n"
        "    %r = scf.for %i = %c0 to %x step %c1 iter_args(%a = %c0) -> (i32)  : i32 {\n"
        "      %n = arith.addi %a, %i : i32\n      scf.yield %n : i32\n    }\n"
        "    %s = arith.addi %r, %x : i32\n"
    ),
    "string-with-percent": (
        '    tt.print " %x {" {hex = false, isSigned = array<i32: 1>} : %x : i32\n'
    ),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_the_reader_refuses_what_mlir_refuses_at_line_and_column(name: str) -> None:
    body, line, column, message = REFUSED[name]
    with pytest.raises(ModuleError, match=message) as refused:
        check_wellformed(_module(body))
    assert (refused.value.line, refused.value.column) == (line, column)
    assert isinstance(refused.value, ValueError)


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_the_reader_accepts_valid_scoping(name: str) -> None:
    check_wellformed(_module(ACCEPTED[name]))


def test_types_compare_with_aliases_expanded() -> None:
    """Two aliases of one attribute are the same type; a different attribute is not."""
    text = (
        "#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
        "order = [0]}>\n#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], "
        "warpsPerCTA = [4], order = [0]}>\n#c = #ttg.blocked<{sizePerThread = [2], "
        "threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\nmodule {\n  tt.func @k() {\n"
        "    %x = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #a>\n"
        "    %y = ttg.convert_layout %x : tensor<128xi32, #b> -> tensor<128xi32, #c>\n"
        "    tt.return\n  }\n}\n"
    )
    parse_module(text, check=True)
    with pytest.raises(ModuleError, match="line 7, column 29: %x is used as tensor<128xi32, #c>"):
        parse_module(
            text.replace("%x : tensor<128xi32, #b>", "%x : tensor<128xi32, #c>"), check=True
        )


@pytest.mark.parametrize("name", list(ISSUE_EDITS))
def test_the_issue_edits_are_refused_by_the_reader(name: str) -> None:
    text, (line, column), message = ISSUE_EDITS[name]
    with pytest.raises(ModuleError, match=message) as refused:
        parse_module(text, check=True)
    assert (refused.value.line, refused.value.column) == (line, column)


@pytest.mark.parametrize(
    "path",
    [*FIXTURES, TTGIR / "big_2000.ttgir", *sorted((TTGIR / "old_spelling").glob("*.ttgir"))],
    ids=lambda p: p.name,
)
def test_every_fixture_is_well_formed(path: Path) -> None:
    parse_module(path.read_text(), check=True)


def test_blank_locations_keeps_lines_and_columns() -> None:
    blanked = blank_locations(TRANSPOSE)
    assert blanked.count("\n") == TRANSPOSE.count("\n") and "loc(" not in blanked
    for before, after in zip(TRANSPOSE.split("\n"), blanked.split("\n")):
        assert after == "" or len(after) == len(before)


# --- Triton's own parser and verifier ---------------------------------------------------------


def _triton_verdicts(texts: list[str], tmp_path: Path) -> list[TritonVerdict]:
    """Triton 3.9's verdict on each text, in one process."""
    paths = []
    for k, text in enumerate(texts):
        path = tmp_path / f"{k}.ttgir"
        path.write_text(blank_locations(text))
        paths.append(str(path))
    done = subprocess.run(
        [sys.executable, str(ORACLE)],
        input=json.dumps(paths),
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(texts), done.stderr[-2000:]
    return [TritonVerdict("valid") if a["ok"] else classify(a["stderr"], "3.9") for a in answers]


@pytest.mark.triton
def test_the_small_modules_are_judged_as_mlir_judges_them(tmp_path: Path) -> None:
    """The negative controls above are valid for Triton; the refused ones are refused."""
    require_triton()
    accepted = [_module(body) for body in ACCEPTED.values()]
    refused = [_module(body) for body, *_ in REFUSED.values()]
    verdicts = _triton_verdicts(accepted + refused, tmp_path)
    assert [v.status for v in verdicts[: len(accepted)]] == ["valid"] * len(accepted), verdicts
    assert all(v.status != "valid" for v in verdicts[len(accepted) :]), verdicts


@pytest.mark.triton
def test_mutation_corpus_against_triton(tmp_path: Path) -> None:
    """Both directions: every mutant Triton refuses is refused by the reader alone (and by
    llverify, which also asks Triton), and no mutant Triton accepts is refused."""
    require_triton()
    corpus = mutants(per_kind=2)
    verdicts = _triton_verdicts([m.text for m in corpus], tmp_path)
    missed, false_refusals, valid_kind_refused = [], [], []
    for mutant, verdict in zip(corpus, verdicts):
        try:
            parse_module(mutant.text, check=True)
            refused = None
        except ModuleError as error:
            refused = error
        if verdict.status == "valid":
            if refused is not None:
                false_refusals.append(f"{mutant.id}: {refused}")
        elif refused is None:
            missed.append(f"{mutant.id}: Triton: {verdict}")
        if mutant.kind in VALID_KINDS and verdict.status != "valid":
            valid_kind_refused.append(f"{mutant.id}: Triton: {verdict}")
    kinds = {m.kind for m in corpus}
    assert kinds >= SSA_KINDS | {"type-encoding", "type-shape", *VALID_KINDS}, kinds
    assert not false_refusals, false_refusals
    assert not missed, missed
    assert not valid_kind_refused, valid_kind_refused
    refusals = sum(v.status != "valid" for v in verdicts)
    assert refusals >= 200 and len(corpus) - refusals >= 50, (refusals, len(corpus))


@pytest.mark.triton
def test_triton_check_verdicts() -> None:
    """Valid, refused (at the line and column of the text) and another release's spelling."""
    require_triton()
    assert start_triton_check(TRANSPOSE).result().status == "valid"
    text, (line, column), _ = ISSUE_EDITS["convert-source-type"]
    verdict = start_triton_check(text).result()
    assert (verdict.status, verdict.line, verdict.column) == ("refused", line, column)
    assert "expects different type than prior uses" in verdict.detail
    assert verdict.version.startswith("3.9")
    release_36 = TRANSPOSE.replace("tt.load %x_17 :", "tt.load %x_17 evictionPolicy = evict_last :")
    assert start_triton_check(release_36).result().status == "unreadable"
    parse_module(release_36, check=True)  # the reader reads Triton 3.6's spelling


def test_triton_check_without_triton(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verify.importlib.util, "find_spec", lambda name: None)
    assert start_triton_check(TRANSPOSE).result() == TritonVerdict(
        "unavailable", "Triton is not installed"
    )


# --- the command line ----------------------------------------------------------------------


def _cli(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from llverify.cli.main import main

    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", list(ISSUE_EDITS))
def test_audit_refuses_the_issue_edits_without_triton(
    name: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where Triton is not installed, the reader's own error: FILE:LINE:COL, exit 2."""
    monkeypatch.setattr(verify.importlib.util, "find_spec", lambda name: None)
    text, (line, column), message = ISSUE_EDITS[name]
    path = tmp_path / "k.ttgir"
    path.write_text(text)
    code, out, err = _cli("audit", str(path), capsys=capsys)
    assert code == 2 and not out
    assert err.startswith(f"llverify: error: {path}:{line}:{column}: "), err
    assert err.count("\n") == 1 and "Triton" not in err
    assert re.search(message, err), err


@pytest.mark.triton
@pytest.mark.parametrize("command", ["audit", "validate"])
def test_triton_refusal_is_the_error(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_triton()
    text, (line, column), _ = ISSUE_EDITS["undefined"]
    path = tmp_path / "k.ttgir"
    path.write_text(text)
    code, out, err = _cli(command, str(path), capsys=capsys)
    assert code == 2 and not out
    assert err == (
        f"llverify: error: {path}:{line}:{column}: Triton 3.9.0 refuses the module: use of "
        "undeclared SSA value name\n"
    )


@pytest.mark.triton
def test_audit_gives_a_verdict_on_another_releases_spelling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Triton 3.9 cannot read Triton 3.6's ``evictionPolicy = ...``: not a refusal."""
    require_triton()
    path = tmp_path / "k.ttgir"
    path.write_text(
        TRANSPOSE.replace("tt.load %x_17 :", "tt.load %x_17 evictionPolicy = evict_last :")
    )
    code, out, _ = _cli("audit", str(path), capsys=capsys)
    assert code == 0 and "proved" in out
