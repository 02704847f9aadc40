"""The generated validation sweep (tests/cases/emitted_sweep.py): well-formed, covering,
compiling."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from cases.emitted_sweep import FAMILIES, OPS, WARPS, SweepCase, sweep_cases
from cases.triton import require_triton
from llverify.encodings import to_linear_layout
from llverify.ttgir import parse_module

ROOT = Path(__file__).resolve().parents[1]

# the TTGIR operation each op of the sweep is about
OP_NAMES = {
    "convert": ("ttg.convert_layout",),
    "reduce_add": ("tt.reduce",),
    "reduce_argmin": ("tt.reduce",),
    "reduce_first": ("tt.reduce",),
    "scan": ("tt.scan",),
    "scan_reverse": ("tt.scan",),
    "gather": ("tt.gather",),
    "histogram": ("tt.histogram",),
    "local_load": ("ttg.local_alloc", "ttg.local_load"),
    "local_store": ("ttg.local_store", "ttg.local_load"),
    "dot_operand_load": ("ttg.local_load",),
    "dot": ("tt.dot", "ttng.warp_group_dot"),
}


@cache
def full() -> tuple[SweepCase, ...]:
    return tuple(sweep_cases())


@cache
def quick() -> tuple[SweepCase, ...]:
    return tuple(sweep_cases(quick=True))


def test_sizes_and_determinism() -> None:
    assert 300 <= len(full()) <= 600
    assert 20 <= len(quick()) <= 40
    assert set(quick()) <= set(full())
    assert tuple(sweep_cases()) == full()


def test_names_are_unique() -> None:
    names = [case.name for case in full()]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[\w.-]+", name) for name in names)


@pytest.mark.parametrize("case", quick(), ids=lambda case: case.name)
def test_quick_case_parses(case: SweepCase) -> None:
    module = parse_module(case.text)
    assert module.target == case.target
    assert module.num_warps == case.num_warps
    assert module.threads_per_warp == (64 if case.target == "hip:gfx942" else 32)
    names = {op.name for op in module.ops}
    wanted = OP_NAMES[case.op]
    assert names & set(wanted), (case.name, wanted)
    assert "tt.load" in names and "tt.store" in names
    # every distributed encoding the kernel uses is one llverify converts
    for op in module.ops:
        for info in op.types:
            if info.kind == "tensor" and info.encoding:
                to_linear_layout(info.encoding, info.shape)


def test_every_case_parses() -> None:
    for case in full():
        module = parse_module(case.text)
        assert (module.target, module.num_warps) == (case.target, case.num_warps), case.name


def test_full_sweep_covers_the_issue() -> None:
    cases = full()
    assert {case.family for case in cases} == set(FAMILIES)
    assert {case.op for case in cases} == set(OPS)
    assert {"i8", "f16", "bf16", "f32", "i64", "f64"} <= {case.dtype for case in cases}
    assert {case.num_warps for case in cases} == set(WARPS)
    assert {"cuda:80", "cuda:90", "hip:gfx942"} <= {case.target for case in cases}
    texts = "\n".join(case.text for case in cases)
    for grid in ("[4, 2]", "[2, 4]", "[1, 2]", "[8, 1]"):
        assert f"warpsPerCTA = {grid}" in texts
    for spelling in (
        "#ttg.nvidia_mma<{versionMajor = 2",
        "#ttg.nvidia_mma<{versionMajor = 3",
        "#ttg.dot_op<{opIdx = 0",
        "#ttg.dot_op<{opIdx = 1",
        "#ttg.amd_mfma<",
        "#ttg.amd_wmma<",
        "#ttg.linear<",
        "#ttg.swizzled_shared<",
        "#ttg.nvmma_shared<",
        "#ttg.padded_shared<",
        "parent = #ttg.slice<",  # nested slices
        "ttg.memdesc_index",
    ):
        assert spelling in texts, spelling


def test_reduce_and_scan_variants() -> None:
    reduces = [case for case in full() if case.op.startswith("reduce")]
    distributed = {case.family for case in reduces}
    assert distributed == set(FAMILIES) - {"swizzled_shared", "nvmma_shared", "padded_shared"}
    for op in ("reduce_add", "reduce_argmin", "reduce_first"):
        for family in distributed:
            texts = [c.text for c in reduces if c.op == op and c.family == family]
            assert any("<{axis = 0 : i32}>" in t for t in texts), (op, family)
            assert any("<{axis = 1 : i32}>" in t for t in texts), (op, family)
    argmin = next(case for case in reduces if case.op == "reduce_argmin")
    assert re.search(r"%\d+:2 = \"tt.reduce\"", argmin.text)
    scans = [case.text for case in full() if case.op.startswith("scan")]
    assert any("reverse = true" in t for t in scans) and any("reverse = false" in t for t in scans)
    assert any("arith.select" in t for t in scans) and any("arith.add" in t for t in scans)


@pytest.mark.slow
@pytest.mark.triton
def test_quick_sweep_compiles(tmp_path: Path) -> None:
    require_triton()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TRITON_DEFAULT_FP_FUSION="1")
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "validation_sweep.py"),
            "--quick",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert f"{len(quick())} generated, {len(quick())} compiled, 0 failed" in result.stdout
