"""Clusters: a module of 2 CTAs (layouts split across CTAs by ``CGALayout``) runs every CTA.

Oracle: Triton 3.9 on the CPU compiles tests/data/emitted/two_ctas_sm90.ttgir for cuda:90."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.emitted.harness import build_harness
from llverify.emitted.validate import validate_compiled, validate_module
from llverify.proof.verdict import Status
from llverify.triton.compile import CompiledKernel, compile_ttgir
from llverify.ttgir import parse_module

MODULE = Path(__file__).parent / "data" / "emitted" / "two_ctas_sm90.ttgir"


@pytest.fixture(scope="module")
def compiled() -> CompiledKernel:
    require_triton()
    harness = build_harness(parse_module(MODULE.read_text()))
    assert harness.num_ctas == 2
    return compile_ttgir(harness.text, harness.target)


def test_every_cta_of_the_cluster_is_run_and_proved(compiled: CompiledKernel) -> None:
    report = validate_compiled(MODULE.read_text(), compiled, source=MODULE.name)
    assert report.status is Status.PROVED, [v.reason for v in report.verdicts]
    assert {v.op for v in report.verdicts} == {"ttg.convert_layout", "tt.reduce"}
    assert "each of the 2 CTAs of the cluster" in report.verdicts[0].claim


def test_negative_control_every_cta_computing_cta_0s_half_is_refuted(
    compiled: CompiledKernel,
) -> None:
    """With the CTA rank read as 0, both CTAs load and store CTA 0's rows: the rows of CTA 1
    are never written."""
    rank = re.compile(
        r"(%\w+) = tail call (?:range\([^)]*\) )?i32 "
        r"@llvm\.nvvm\.read\.ptx\.sreg\.cluster\.ctarank\(\)"
    )
    assert rank.search(compiled.llir)
    mutated = dataclasses.replace(compiled, llir=rank.sub(r"\1 = add i32 0, 0", compiled.llir))
    report = validate_compiled(MODULE.read_text(), mutated, source="mutant")
    assert report.status is Status.REFUTED
    assert any(
        "never written" in (v.counterexample.got if v.counterexample else v.reason)
        for v in report.verdicts
        if v.status is Status.REFUTED
    )


def test_the_module_api_runs_clusters_too() -> None:
    require_triton()
    assert validate_module(MODULE.read_text()).status is Status.PROVED
