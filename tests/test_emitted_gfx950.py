"""gfx950 (CDNA4) on Triton 3.9's real emitted code: the dot-operand loads through
``ds.read.tr16/tr8.b64`` and the MFMA convert through ``permlane16.swap`` are proved, and a
mutated lane mapping or mutated LLVM IR is refuted with a replayed counterexample (each
harness compiled once per module)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cases.triton import require_triton
from llverify.emitted.checks import CaseVerdict
from llverify.emitted.harness import Harness, build_harness
from llverify.emitted.sim import intrinsics
from llverify.emitted.sim.symbolic import Val
from llverify.emitted.validate import _check_all, _execute
from llverify.proof.verdict import Status
from llverify.ttgir import parse_module

FIXTURES = Path(__file__).resolve().parent / "data" / "ttgir"

# the MFMA -> linear convert of matmul_fp16_gfx950.ttgir (line 153) with lane bits 4 and 5
# swapped: Triton 3.9 lowers it with llvm.amdgcn.permlane16.swap (the original uses
# permlane32.swap)
PERMLANE16 = """\
#linear2 = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 16], [64, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [16, 0]], warp = [[0, 32], [0, 64], [32, 0]], block = []}>
#mma = #ttg.amd_mfma<{version = 4, warpsPerCTA = [2, 4], instrShape = [32, 32, 16], isTransposed = true}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "hip:gfx950", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%x: tensor<128x128xf16, #mma>) {
    %y = ttg.convert_layout %x : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #linear2>
    tt.return
  }
}
"""  # noqa: E501


def compile_ops(text: str, name: str) -> tuple[Harness, Any]:
    """The harness of the ops of ``text`` named ``name``, compiled by the installed Triton."""
    require_triton()
    from llverify.triton.compile import compile_ttgir

    module = parse_module(text)
    chosen = [k for k, op in enumerate(module.ops) if op.name == name]
    harness = build_harness(module, ops=chosen)
    assert harness.cases and all(c.op.name == name for c in harness.cases)
    return harness, compile_ttgir(harness.text, harness.target)


@pytest.fixture(scope="module", params=["matmul_fp16_gfx950", "matmul_fp8e4m3_gfx950"])
def loads(request) -> tuple[str, Harness, Any]:
    """The ``ttg.local_load`` ops of a gfx950 matmul fixture (two read through ds.read.tr)."""
    text = (FIXTURES / f"{request.param}.ttgir").read_text()
    harness, kernel = compile_ops(text, "ttg.local_load")
    return request.param, harness, kernel


@pytest.fixture(scope="module")
def convert() -> tuple[Harness, Any]:
    return compile_ops(PERMLANE16, "ttg.convert_layout")


def verdicts(compiled: tuple[Harness, Any], llir: str | None = None) -> list[CaseVerdict]:
    """Execute the harness's kernel (with ``llir`` in place of Triton's) and check every case."""
    harness, kernel = compiled
    if llir is not None:
        kernel = dataclasses.replace(kernel, llir=llir)
    run = _execute(harness, kernel, {})
    assert not isinstance(run, Exception), run
    return _check_all(harness, kernel, run)


def transposed(harness: Harness, kernel: Any) -> str:
    """The ds.read.tr intrinsic the kernel calls (there must be one)."""
    found = set(re.findall(r"@(llvm\.amdgcn\.ds\.read\.tr\d+\.b64\.\w+)\(", kernel.llir))
    assert len(found) == 1, found
    return found.pop()


def assert_refuted_with_replay(verdict: CaseVerdict) -> None:
    assert verdict.status is Status.REFUTED, verdict.reason
    example = verdict.counterexample
    assert example is not None, verdict.reason
    assert example.got != example.expected and example.replay


def test_the_transposed_dot_operand_loads_are_proved(loads) -> None:
    name, harness, kernel = loads
    callee = transposed(harness, kernel)
    assert ("tr16" in callee) == ("fp16" in name)
    found = verdicts((harness, kernel))
    assert [v.status for v in found] == [Status.PROVED] * len(harness.cases), [
        v.reason for v in found
    ]


def other_row_order(lane: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """A wrong mapping: the block's rows taken lane-major (lane ``16 g + j + n (r // n)``)."""
    n = 64 // bits
    lane = np.asarray(lane, dtype=np.int64)
    j = np.arange(n, dtype=np.int64)[None, :]
    r = (lane % 16)[:, None]
    return (lane - lane % 16)[:, None] + j + n * (r // n), np.broadcast_to(r % n, (len(lane), n))


def plain_transpose(lane: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """A wrong mapping: the 16 x n matrix of reads transposed and dealt out n per lane."""
    n = 64 // bits
    lane = np.asarray(lane, dtype=np.int64)
    flat = n * (lane % 16)[:, None] + np.arange(n, dtype=np.int64)[None, :]
    return (lane - lane % 16)[:, None] + flat % 16, flat // 16


@pytest.mark.parametrize("wrong", [other_row_order, plain_transpose])
def test_a_wrong_lane_mapping_of_the_transposed_read_is_refuted(loads, monkeypatch, wrong) -> None:
    """Negative control: the data-movement check discriminates between lane mappings."""
    name, harness, kernel = loads
    monkeypatch.setattr(intrinsics, "transposed_read_sources", wrong)
    found = verdicts((harness, kernel))
    refuted = [v for v in found if v.status is Status.REFUTED]
    assert len(refuted) == 2, [(v.status, v.reason) for v in found]  # the two through tr
    for verdict in refuted:
        assert_refuted_with_replay(verdict)
    assert all(v.status is Status.PROVED for v in found if v not in refuted)


def test_a_transposed_read_at_another_address_is_refuted(loads) -> None:
    """Negative control on the emitted code: the second ds.read.tr of the kernel reads at the
    first one's address (the same rows again instead of the next K block)."""
    name, harness, kernel = loads
    callee = re.escape(transposed(harness, kernel))
    operand = rf"@{callee}\(ptr addrspace\(3\) (?:nonnull )?(%\d+)\)"
    operands = list(re.finditer(operand, kernel.llir))
    first, second = operands[0], operands[1]
    assert first.group(1) != second.group(1)
    start, end = second.span(1)
    mutant = kernel.llir[:start] + first.group(1) + kernel.llir[end:]
    found = verdicts((harness, kernel), mutant)
    refuted = [v for v in found if v.status is Status.REFUTED]
    assert len(refuted) == 1, [(v.status, v.reason) for v in found]
    assert_refuted_with_replay(refuted[0])
    assert all(v.status is Status.PROVED for v in found if v not in refuted)


def test_the_permlane16_swap_convert_is_proved(convert) -> None:
    harness, kernel = convert
    assert "@llvm.amdgcn.permlane16.swap" in kernel.llir
    [verdict] = verdicts(convert)
    assert verdict.status is Status.PROVED, verdict.reason


def test_a_wrong_permlane16_swap_pairing_is_refuted(convert, monkeypatch) -> None:
    """Negative control: rows paired the other way round (the even rows of ``vdst`` with the
    odd rows of ``src0``) make the convert refuted."""
    real = intrinsics._permlane16_swap

    def even_with_odd(
        operands: list[Any], lane: np.ndarray, base: np.ndarray, mask: np.ndarray, warp: int
    ) -> Any:
        swapped = real([operands[1], operands[0]], lane, base, mask, warp).byte_symbols()
        width = swapped.shape[1] // 2
        both = np.concatenate([swapped[:, width:], swapped[:, :width]], axis=1)
        return Val(operands[0].bits + operands[1].bits, syms=both)

    monkeypatch.setattr(intrinsics, "_permlane16_swap", even_with_odd)
    [verdict] = verdicts(convert)
    assert_refuted_with_replay(verdict)
