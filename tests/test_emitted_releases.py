"""Replay what old Triton releases emitted (tests/data/emitted/releases) without the releases.

Each artifact ``<release>/<case>.json.gz`` holds a TTGIR module, the LLVM IR that release
compiled its harness to (with the metadata the executor needs) and the verdicts recorded when
scripts/validate_releases.py validated it with the release installed.  CI cannot install 12
releases; re-validating the stored code with ``validate_compiled`` keeps the executor and the
checks honest on every release's lowering.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest

from llverify.emitted.harness import build_harness
from llverify.emitted.relayout import relaid_cases
from llverify.emitted.validate import validate_compiled, validate_module
from llverify.triton.compile import CompiledKernel
from llverify.triton.releases import release_pythons
from llverify.ttgir import parse_module

STORE = Path(__file__).parent / "data" / "emitted" / "releases"
ARTIFACTS = sorted(STORE.glob("[0-9]*/*.json.gz"))  # validator_defects/: reproducers


def _load(path: Path) -> tuple[str, CompiledKernel, dict[str, Any]]:
    with gzip.open(path, "rt") as stored:
        artifact = json.load(stored)
    compiled = CompiledKernel(**artifact["compiled"], ttgir="", ptx=None, amdgcn=None, seconds=0.0)
    return artifact["module"], compiled, artifact["expected"]


def _verdicts(report: Any) -> list[dict[str, Any]]:
    return [
        {"index": v.index, "op": v.op, "line": v.op_line, "status": v.status.value}
        for v in report.verdicts
    ]


def test_the_store_covers_several_releases() -> None:
    releases = {path.parent.name for path in ARTIFACTS}
    assert {"2.1.0", "2.2.0", "3.0.0", "3.2.0", "3.6.0"} <= releases
    assert sum(path.stat().st_size for path in ARTIFACTS) < 2_000_000


@pytest.mark.parametrize("path", ARTIFACTS, ids=lambda p: f"{p.parent.name}/{p.name[:-8]}")
def test_stored_verdicts_replay(path: Path) -> None:
    text, compiled, expected = _load(path)
    report = validate_compiled(text, compiled, source=path.name)
    assert report.triton_version == path.parent.name
    assert _verdicts(report) == expected["verdicts"]
    assert report.status.value == expected["status"]


def test_a_missing_barrier_in_a_stored_lowering_is_refuted() -> None:
    """Negative control: the 2.1.0 convert_layout of a 4-warp case with its CTA barriers
    removed from the LLVM IR (warps then read shared memory others write in the same barrier
    interval) must be refuted, not proved."""
    path = STORE / "2.1.0" / "mma_v2-convert-i8-w2x2-cuda80-v30.json.gz"
    text, compiled, _ = _load(path)
    barrier = re.compile(r"^\s*(tail )?call void @llvm\.nvvm\.barrier0\(\)\s*$", re.MULTILINE)
    assert barrier.search(compiled.llir)
    broken = CompiledKernel(**{**compiled.__dict__, "llir": barrier.sub("", compiled.llir)})
    report = validate_compiled(text, broken, source=path.name)
    assert report.status.value == "refuted"
    assert validate_compiled(text, compiled, source=path.name).status.value == "proved"


def test_the_dropped_slice_stores_of_3_0_to_3_2_are_refuted_and_fixed_in_3_6() -> None:
    """A real miscompile kept as an artifact: Triton 3.0-3.2 predicate the global store of a
    slice of a 3-D blocked layout (warpsPerCTA [1, 4, 2]) on ``(tid & 224) == 0``, so warp 1,
    which holds rows 16-31, never stores them (confirmed on an H100: docs/validation.md,
    "(b) Triton releases 2.1-3.8").  3.6 stores every row."""
    name = "slice-local_store-f32-w4x2-cuda80-v15.json.gz"
    text, compiled, _ = _load(STORE / "3.2.0" / name)
    report = validate_compiled(text, compiled, source=name)
    refuted = [v for v in report.verdicts if v.status.value == "refuted"]
    assert refuted and refuted[0].counterexample is not None
    assert refuted[0].counterexample.got == "nothing (never written)"
    assert refuted[0].counterexample.element[0] >= 16
    text, compiled, _ = _load(STORE / "3.6.0" / name)
    assert validate_compiled(text, compiled, source=name).status.value == "proved"


def test_an_unused_uninitialised_read_is_a_note_not_a_refutation() -> None:
    """Triton 2.1's layernorm reads shared memory no thread wrote, but the value reaches no
    output (the H100 and every check agree the results are right): every op is proved, and
    the read is reported as a note of the op that makes it."""
    text, compiled, _ = _load(STORE / "validator_defects" / "2.1.0-layernorm_fwd_fp16_sm80.json.gz")
    report = validate_compiled(text, compiled, source="2.1.0 layernorm")
    assert report.status.value == "proved", [v.reason for v in report.verdicts]
    notes = [note for v in report.verdicts for note in v.notes]
    assert notes and all("no thread wrote" in note for note in notes)


def test_the_2_2_reduce_over_replicated_warps_races_and_the_right_warp_index_is_proved() -> None:
    """A real miscompile kept as an artifact: Triton 2.2.0 lowers a reduce along dim 1 of
    ``sizePerThread [32, 1], threadsPerWarp [2, 16], warpsPerCTA [2, 2], order [0, 1]``
    (32x64: warp bit 0 replicates dim 0, warp bit 1 is the axis) with the warp's index along
    the axis computed as ``warp & 1`` (delinearised over the warps holding unique data,
    ``[1, 2]``) instead of ``warp >> 1``.  Warps 0 and 2 then store different partial sums to
    the same shared word in one instruction, and the output sums one half of the columns
    twice (H100: 300 of 300 launches wrong; docs/validation.md, "(b) Triton releases 2.1-3.8").
    The same module compiled by 3.0.0 is proved, and 2.2.0's own code with ``warp >> 1`` in
    the 32 store addresses is proved: the refutation is that one value."""
    name = "blocked-reduce_add-f32-w2x2-cuda80-v3.json.gz"  # the v3 sweep module with addf
    text, compiled, _ = _load(STORE / "2.2.0" / name)
    report = validate_compiled(text, compiled, source=name)
    reduce = next(v for v in report.verdicts if v.op == "tt.reduce")
    assert reduce.status.value == "refuted" and reduce.counterexample is not None
    assert "missing" in reduce.counterexample.got and "replayed" in reduce.counterexample.replay
    races = [v.reason or "" for v in report.verdicts if v.violation == "nondeterministic store"]
    assert races and "in shared memory" in races[0]
    threads = [int(t) for t in re.findall(r"thread (\d+)", races[0])]
    assert sorted(t // 32 for t in threads) == [0, 2]  # warps 0 and 2: axis halves 0 and 1
    assert "warp_axis" not in compiled.llir and "  %14 = and i32 %13, 1\n" in compiled.llir
    patched = compiled.llir.replace(
        "  %14 = and i32 %13, 1\n", "  %14 = and i32 %13, 1\n  %warp_axis = lshr i32 %13, 1\n"
    )
    patched, count = re.subn(r"(= (?:zext nneg i32|or i32)) %14\b", r"\1 %warp_axis", patched)
    assert count == 32  # the 32 rows' partial-sum store addresses
    fixed = CompiledKernel(**{**compiled.__dict__, "llir": patched})
    assert validate_compiled(text, fixed, source=name).status.value == "proved"
    text, compiled, _ = _load(STORE / "3.0.0" / name)
    assert validate_compiled(text, compiled, source=name).status.value == "proved"


RELAID = STORE / "relaid" / "2.3.1-blocked-reduce_add-f32-w2x2-cuda80-v3.json.gz"


def _relaid() -> tuple[str, CompiledKernel]:
    """The module of the 2.2 reduce bug (item 3 of docs/validation.md, section (b)) as Triton
    2.3.1 compiled its harness, with the TTGIR 2.3.1 compiled after its own passes."""
    with gzip.open(RELAID, "rt") as stored:
        artifact = json.load(stored)
    fields = {**artifact["compiled"], "ttgir": artifact["ttgir"]}
    return artifact["module"], CompiledKernel(**fields, ptx=None, amdgcn=None, seconds=0.0)


def test_a_harness_re_laid_out_by_2_3_is_not_applicable_never_proved() -> None:
    """Triton 2.3.1 re-runs its layout passes on the harness (its TTGIR has other layouts),
    so the code it emitted tests another program: every case is unknown, "not applicable",
    and the report says so (it came out proved before)."""
    text, compiled = _relaid()
    assert compiled.triton_version == "2.3.1" and "triton_gpu." in compiled.ttgir
    report = validate_compiled(text, compiled, source=RELAID.name)
    assert report.status.value == "unknown" and report.counts()["proved"] == 0
    said = "not applicable: Triton 2.3.1's own TTGIR passes re-laid out the harness"
    assert all(v.reason.startswith(said) for v in report.verdicts)
    assert report.notes == [
        f"{len(report.verdicts)} of {len(report.verdicts)} ops not applicable: Triton 2.3.1 "
        "re-laid out the harness before compiling it"
    ]


def test_relayout_detection_on_stored_text() -> None:
    """relaid_cases compares the harness with the TTGIR the release compiled: the harness's
    own text (reprinted as 3.x does) is as written; a layout changed in one op makes that
    case, and only it, not applicable; 2.3 without a TTGIR is refused by release, 3.2 without
    one (it prints none for a TTGIR input) compiled the input as given."""
    text, compiled = _relaid()
    harness = build_harness(parse_module(text))
    assert relaid_cases(harness, harness.text, "3.9.0") == {}  # negative control
    assert set(relaid_cases(harness, compiled.ttgir, "2.3.1")) == {c.index for c in harness.cases}
    first = harness.cases[0]
    lines = harness.text.splitlines()
    start, end = first.harness_lines
    for k in range(start - 1, end):  # the first case's op becomes another op
        lines[k] = lines[k].replace(f" {first.op.name} ", " tt.bitcast ")
    changed = "\n".join(lines)
    assert set(relaid_cases(harness, changed, "3.9.0")) == {first.index}
    assert set(relaid_cases(harness, "", "2.3.1")) == {c.index for c in harness.cases}
    assert "returned no TTGIR" in relaid_cases(harness, "", "2.3.1")[first.index]
    assert relaid_cases(harness, "", "3.2.0") == {}


@pytest.mark.skipif(
    not {"2.2.0", "2.3.1"} <= set(release_pythons()), reason="no Triton 2.2.0/2.3.1 virtualenvs"
)
def test_the_2_2_reduce_bug_with_2_3_1_is_not_applicable_and_2_2_0_still_refuted() -> None:
    text, _ = _relaid()
    pythons = release_pythons()
    relaid = validate_module(text, python=pythons["2.3.1"])
    assert relaid.status.value == "unknown" and relaid.counts()["proved"] == 0
    assert all("not applicable" in (v.reason or "") for v in relaid.verdicts)
    refuted = validate_module(text, python=pythons["2.2.0"])  # negative control
    assert refuted.status.value == "refuted" and refuted.notes == []
