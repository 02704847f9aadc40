"""Real miscompiles of released Tritons, from stored artifacts (no old Triton needed).

Triton 3.0-3.2 compile a reduce along axis 0 of an i8 tensor in a slice layout (2x2 warps) so
that each result combines elements of other columns (the thread offset of slice-layout
reductions; fixed by triton-lang/triton PR #5080, "[BACKEND] Fix reduce with slice layout
inputs", first released in 3.3).  The LLVM IR stored here is what Triton 3.2.0 emitted on the
CPU for the sweep case's harness (docs/validation.md, "Real miscompiles found"); the H100 ran
the same code and returned values outside the reduced column (benchmarks/gpu/validate_confirm).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import pytest

from llverify.emitted.harness import build_harness
from llverify.emitted.validate import _check_all, _execute
from llverify.proof.verdict import Status
from llverify.triton.compile import CompiledKernel
from llverify.ttgir import parse_module

STORED = Path(__file__).parent / "data" / "emitted" / "miscompiles"


def _validate(stem: str) -> dict[str, object]:
    text = (STORED / f"{stem}.ttgir").read_text()
    harness = build_harness(parse_module(text))
    fields = json.loads((STORED / f"{stem}.json").read_text())
    with gzip.open(STORED / f"{stem}.llir.gz", "rt") as handle:
        llir = handle.read()
    compiled = CompiledKernel(**fields, ttgir="", llir=llir, ptx=None, amdgcn=None)
    run = _execute(harness, compiled, {})
    assert not isinstance(run, Exception), run
    return {v.op: v for v in _check_all(harness, compiled, run)}


def test_stored_kernels_match_their_sweep_cases() -> None:
    """The stored module is the sweep case of that name, so the harness rebuilt here is the
    harness Triton compiled (the harness is deterministic)."""
    from cases.emitted_sweep import sweep_cases

    cases = {case.name: case.text for case in sweep_cases()}
    for path in STORED.glob("*.ttgir"):
        assert path.read_text() == cases[path.name.split(".triton-")[0]]


@pytest.mark.parametrize("combine", ["add", "first"])
def test_triton_3_2_slice_reduce_reads_other_columns(combine: str) -> None:
    verdicts = _validate(f"slice-reduce_{combine}-i8-w2x2-cuda80-v12.triton-3.2.0")
    reduce = verdicts["tt.reduce"]
    assert reduce.status is Status.REFUTED, reduce.reason
    example = reduce.counterexample
    assert example is not None and example.element == (0,) and example.thread is not None
    assert "[0, 64, 128" in example.expected  # column 0 of the 32x64 input
    assert "replayed" in example.replay
    # the ops around it (loads, expand_dims, broadcasts of the harness) are right
    others = [v for op, v in verdicts.items() if op != "tt.reduce"]
    assert all(v.status is Status.PROVED for v in others)


def test_compiled_kernel_fields_are_complete() -> None:
    stem = "slice-reduce_add-i8-w2x2-cuda80-v12.triton-3.2.0"
    fields = json.loads((STORED / f"{stem}.json").read_text())
    names = {f.name for f in dataclasses.fields(CompiledKernel)}
    assert set(fields) | {"ttgir", "llir", "ptx", "amdgcn"} == names
    assert fields["triton_version"] == "3.2.0"
