"""Block-scale scale layouts: sm_120 ``dot_scaled``, CDNA4 scaled MFMA, gfx1250 scaled WMMA.

* Differential against Triton 3.9 (tests/oracle/scale_oracle.py in a subprocess):
  - MFMA: Gluon's ``gluon_ir.get_amd_mfma_scale_layout`` on every combination of operand,
    mdim 16/32, tilesPerWarp 1/2, warps 1-8 x 1-4, M/N 1-512 (including shapes below the
    instruction tile) and K/32 1-16 (4,800 cases);
  - WMMA: Gluon's ``gluon_ir.get_amd_wmma_scale_layout`` on every combination of operand,
    instruction 16x16 / 32x16, transposed or not, scale factor 32 / 16, six parent
    ctaLayouts (none, warps only, repetitions along M or N, swizzled warp order), M/N 8-128
    and K/scale 1-16 (2,400 cases), plus 2- and 4-CTA CGA layouts (96 cases).  No vendor
    scale fragment for gfx1250 scaled WMMA was found, so this converter is differential-only;
  - sm_120: ``getSM120DotScaledScaleLayout`` is not bound in Python, so ``tl.dot_scaled``
    kernels are compiled front-end for ``cuda:120`` and the ``#ttg.linear`` encodings of their
    scale operands read from the TTGIR (through llverify's own TTGIR reader), with the
    warps of the ``#ttg.nvidia_mma`` accumulator Triton chose.  A seeded sample runs by
    default; ``LLVERIFY_SCALES_FULL=1`` runs the whole grid.
* Ported: Triton's unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp
  ``SM120DotScaledScaleLayout`` (its 11 distinct expected layouts); upstream has no
  scaled-MFMA scale unit case, so two Triton 3.9 answers are pinned instead.
* llverify/specs/scales.py: the PTX SF_A/SF_B fragments and the CDNA4 scaled-MFMA scale
  formula proved; negative controls refuted with a replayed counterexample.  The
  whole-tensor closed forms (vendor fragment + Triton's warps and repetitions) proved for
  every member of two families: sm_120, 384 (operand, warps up to 8x8, 1-4 repetitions,
  1-8 K blocks); MFMA, 1,152 (operand, mdim, tilesPerWarp, warps up to 8x4, 1-4
  repetitions, 1-8 K registers).
* tcgen05 scales in TMEM (``TensorMemoryScalesLayout``): one 128 x 4 block proved against
  the PTX block-scaling rules and CUTLASS's scale atom (two negative controls refuted); the
  whole-tensor closed forms of both block repetition orders proved (the other order
  refuted); both orders differential against Triton 3.9's Gluon (216 cases).
* Bad arguments raise EncodingError naming the argument.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from llverify import prove_equal
from llverify.encodings import EncodingError
from llverify.encodings.scales import mfma_scale_layout, sm120_scale_layout, wmma_scale_layout
from llverify.encodings.tmem import TensorMemoryScalesLayout
from llverify.encodings.ttgir import parse_encoding
from llverify.specs.scales import (
    NEGATIVE_CONTROLS,
    SCALE_OBLIGATIONS,
    TMEM_SCALES_BLOCK,
    TMEM_SCALES_NEGATIVE,
    ScaleObligation,
    mfma_closed_form,
    sm120_closed_form,
    tmem_scales_closed_form,
)

WORKER = Path(__file__).parent / "oracle" / "scale_oracle.py"
SEED = int(os.environ.get("LLVERIFY_DIFF_SEED", "20261129"))
FULL = os.environ.get("LLVERIFY_SCALES_FULL") == "1"


def run_oracle(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from cases.triton import require_triton

    require_triton()
    result = subprocess.run(
        [sys.executable, str(WORKER)], input=json.dumps(cases), capture_output=True, text=True
    )
    lines = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    assert len(lines) == len(cases), result.stderr[-2000:]
    return lines


def bases(enc: Any) -> tuple[list[list[int]], ...]:
    return tuple(
        [list(b) for b in getattr(enc, f)]
        for f in ("reg_bases", "lane_bases", "warp_bases", "block_bases")
    )


def built(ob: ScaleObligation) -> Any:
    if ob.function == "sm120":
        enc = sm120_scale_layout(**ob.args)
    else:
        enc = mfma_scale_layout(**ob.args)
    return enc.to_linear_layout(list(enc.shape))


# ------------------------------------------------------------------ differential


@pytest.mark.triton
def test_mfma_scale_layout_matches_triton() -> None:
    grid = list(itertools.product(
        (0, 1), (16, 32), (1, 2), (1, 2, 4, 8), (1, 2, 4),
        (1, 2, 4, 8, 16, 32, 64, 128, 256, 512), (1, 2, 4, 8, 16),
    ))  # fmt: skip
    cases = [
        {"kind": "mfma", "args": [op, [mn, k], mdim, [tpw, tpw], [wm, wn]]}
        for op, mdim, tpw, wm, wn, mn, k in grid
    ]
    results = run_oracle(cases)
    mismatches = []
    for case, got in zip(cases, results):
        op, shape, mdim, tiles, warps = case["args"]
        mine = mfma_scale_layout(op, shape, mdim, tiles, warps)
        theirs = (got["reg_bases"], got["lane_bases"], got["warp_bases"], got["block_bases"])
        if bases(mine) != theirs or list(mine.shape) != got["shape"]:
            mismatches.append((case, got))
    assert len(cases) == 4800
    assert not mismatches, mismatches[:3]


_WMMA_CTAS = [
    ([], []),
    ([], [[1, 0]]),
    ([[0, 1]], [[1, 0], [2, 0]]),
    ([[1, 0]], [[0, 1], [0, 2]]),
    ([[1, 0], [0, 1]], [[2, 0]]),
    ([], [[0, 1], [1, 0], [0, 2]]),
]


def _wmma_cases() -> list[list[Any]]:
    grid = itertools.product(
        (0, 1), ((16, 16), (32, 16)), (False, True), (32, 16), (8, 16, 32, 64, 128),
        (1, 2, 4, 8, 16), _WMMA_CTAS,
    )  # fmt: skip
    cases = [
        [op, [mn, k], md, nd, tr, sf, regs, warps, []]
        for op, (md, nd), tr, sf, mn, k, (regs, warps) in grid
    ]
    cga = itertools.product(
        (0, 1), ((16, 16), (32, 16)), (False, True), (32, 16), ([[1, 0]], [[0, 1], [1, 0]]),
        ([64, 8], [128, 4], [256, 16]),
    )  # fmt: skip
    cases += [
        [op, shape, md, nd, tr, sf, [[0, 1]], [[1, 0]], blocks]
        for op, (md, nd), tr, sf, blocks, shape in cga
    ]
    return cases


@pytest.mark.triton
def test_wmma_scale_layout_matches_triton() -> None:
    cases = _wmma_cases()
    results = run_oracle([{"kind": "wmma", "args": args} for args in cases])
    mismatches = []
    for args, got in zip(cases, results):
        mine = wmma_scale_layout(*args)
        theirs = (got["reg_bases"], got["lane_bases"], got["warp_bases"], got["block_bases"])
        if bases(mine) != theirs or list(mine.shape) != got["shape"]:
            mismatches.append((args, got))
    assert len(cases) == 2400 + 96
    assert not mismatches, mismatches[:3]


def test_pinned_wmma_scale_cases() -> None:
    """Answers of Triton 3.9's ``gluon_ir.get_amd_wmma_scale_layout``, pinned so the converter
    is checked where Triton is not installed: the 16-row instruction moves the first M
    repetition to lane bit 4; the 32x16 one keeps it in a register; K below one lane's 4
    scales leaves a zero register; a transposed 32x16 gives A the N = 16 tile."""
    enc = wmma_scale_layout(0, [64, 4], 16, 16, False, 32, [[1, 0]], [[2, 0]])
    assert bases(enc) == (
        [[0, 1], [0, 2]],
        [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
        [[32, 0]],
        [],
    )
    enc = wmma_scale_layout(0, [64, 4], 32, 16, False, 32, [], [[1, 0]])
    assert bases(enc) == (
        [[0, 1], [0, 2]],
        [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
        [[32, 0]],
        [],
    )
    enc = wmma_scale_layout(0, [32, 2], 16, 16, False, 32, [], [[1, 0]])
    assert bases(enc) == (
        [[0, 1], [0, 0]],
        [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]],
        [[16, 0]],
        [],
    )
    enc = wmma_scale_layout(0, [64, 8], 32, 16, True, 16, [[0, 1]], [[1, 0]])
    assert bases(enc) == (
        [[0, 1], [0, 2], [0, 4], [32, 0]],
        [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]],
        [[16, 0]],
        [],
    )


def test_wmma_scale_operand_b_takes_the_parent_n_bases() -> None:
    """Negative control: B's scales follow the parent's N bases (its dim 1), not its M
    bases; reading the parent untransposed (the bug this guards) differs."""
    b = wmma_scale_layout(1, [64, 4], 16, 16, False, 32, [], [[1, 0], [0, 1]])
    a = wmma_scale_layout(0, [64, 4], 16, 16, False, 32, [], [[1, 0], [0, 1]])
    assert bases(b)[2] == [[0, 0], [16, 0]]
    assert bases(a)[2] == [[16, 0], [0, 0]]


def _sm120_cases() -> list[dict[str, Any]]:
    grid = [
        {"kind": "sm120", "M": m, "N": n, "K": k, "num_warps": w, "fmt": fmt}
        for m, n, k, w, fmt in itertools.product(
            (16, 32, 64, 128, 256), (16, 32, 64, 128), (64, 128, 256), (1, 2, 4, 8),
            ("e4m3", "e2m1"),
        )
    ]  # fmt: skip
    if FULL:
        return grid
    return random.Random(SEED).sample(grid, 12)


@pytest.mark.triton
def test_sm120_scale_layout_matches_triton() -> None:
    cases = _sm120_cases()
    results = run_oracle(cases)
    compared = 0
    for case, got in zip(cases, results):
        assert "error" not in got, (case, got)
        assert got["a_scale"] and got["b_scale"], (case, got)
        mma, _ = parse_encoding(got["mma"])
        kb = case["K"] // 32
        for op, text, rows in ((0, got["a_scale"], case["M"]), (1, got["b_scale"], case["N"])):
            theirs, _ = parse_encoding(text)
            mine = sm120_scale_layout([rows, kb], op, mma.warps_per_cta)
            assert bases(mine) == bases(theirs), (case, op, text)
            compared += 1
    assert compared == 2 * len(cases)


# ------------------------------------------------------------------ ported upstream cases


_A_LANES = [[8, 0], [0, 0], [1, 0], [2, 0], [4, 0]]
_B_LANES = [[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]]
#: LinearLayoutConversionsTest.cpp, TEST_F SM120DotScaledScaleLayout (Triton main, 2026):
#: (shape, opIdx, warpsPerCTA, expected register bases, expected warp bases); one CTA.
SM120_UPSTREAM = [
    ([128, 2], 0, [1, 1], [[0, 1], [16, 0], [32, 0], [64, 0]], []),
    ([128, 2], 1, [1, 1], [[0, 1], [8, 0], [16, 0], [32, 0], [64, 0]], []),
    ([128, 4], 0, [2, 2], [[0, 1], [0, 2], [32, 0], [64, 0]], [[0, 0], [16, 0]]),
    ([256, 4], 1, [1, 2], [[0, 1], [0, 2], [16, 0], [32, 0], [64, 0], [128, 0]], [[8, 0]]),
    ([128, 8], 0, [2, 2], [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], [[0, 0], [16, 0]]),
    ([128, 8], 1, [2, 2], [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]], [[8, 0], [0, 0]]),
    ([256, 2], 0, [1, 1], [[0, 1], [16, 0], [32, 0], [64, 0], [128, 0]], []),
    ([256, 2], 1, [1, 1], [[0, 1], [8, 0], [16, 0], [32, 0], [64, 0], [128, 0]], []),
    ([256, 4], 0, [2, 2], [[0, 1], [0, 2], [32, 0], [64, 0], [128, 0]], [[0, 0], [16, 0]]),
    ([256, 8], 0, [2, 2], [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0], [128, 0]], [[0, 0], [16, 0]]),
    (
        [256, 8], 1, [2, 2], [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0], [128, 0]],
        [[8, 0], [0, 0]],
    ),
]  # fmt: skip


@pytest.mark.parametrize("shape,op,warps,regs,warp_bases", SM120_UPSTREAM)
def test_ported_sm120_cases(
    shape: list[int], op: int, warps: list[int], regs: list[list[int]], warp_bases: Any
) -> None:
    lanes = _A_LANES if op == 0 else _B_LANES
    assert bases(sm120_scale_layout(shape, op, warps)) == (regs, lanes, warp_bases, [])


def test_pinned_mfma_scale_cases() -> None:
    """Two answers of Triton 3.9's ``gluon_ir.get_amd_mfma_scale_layout``, pinned so the
    converter is checked where Triton is not installed (no upstream unit test has them)."""
    enc = mfma_scale_layout(0, [64, 8], 32, [1, 1], [2, 2])
    assert bases(enc) == (
        [[0, 2], [0, 4]],
        [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 1]],
        [[0, 0], [32, 0]],
        [],
    )
    enc = mfma_scale_layout(1, [128, 8], 16, [2, 2], [2, 2])
    assert bases(enc) == (
        [[0, 4], [16, 0], [64, 0]],
        [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]],
        [[32, 0], [0, 0]],
        [],
    )


# ------------------------------------------------------------------ proofs


@pytest.mark.parametrize("ob", SCALE_OBLIGATIONS, ids=[o.name for o in SCALE_OBLIGATIONS])
def test_scale_layouts_proved(ob: ScaleObligation) -> None:
    verdict = prove_equal(built(ob), ob.reference)
    assert verdict.status == "proved", str(verdict)


@pytest.mark.parametrize("name,wrong", NEGATIVE_CONTROLS, ids=[n for n, _ in NEGATIVE_CONTROLS])
def test_negative_controls_refuted(name: str, wrong: dict[str, str]) -> None:
    ob = next(o for o in SCALE_OBLIGATIONS if o.name == name)
    layout = built(ob)
    verdict = prove_equal(layout, wrong)
    assert verdict.refuted and verdict.counterexample is not None, str(verdict)
    assert layout.apply(verdict.counterexample) == verdict.actual != verdict.expected


def test_selector_bits_broadcast() -> None:
    """Whichever thread-id a kernel passes, the selector lanes hold the same scale."""
    a = sm120_scale_layout([16, 2], 0, [1, 1]).to_linear_layout([16, 2])
    b = sm120_scale_layout([8, 2], 1, [1, 1]).to_linear_layout([8, 2])
    assert dict(a.bases)["lane"][1] == [0, 0]
    assert dict(b.bases)["lane"][:2] == [[0, 0], [0, 0]]


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "call,needle",
    [
        (lambda: sm120_scale_layout([16, 4], 2, [1, 1]), "'op_idx'"),
        (lambda: sm120_scale_layout([16, 4], 0, [3, 1]), "'warps_per_cta'"),
        (lambda: sm120_scale_layout([16, 4, 2], 0, [1, 1]), "shape"),
        (lambda: mfma_scale_layout(0, [32, 4], 8, [1, 1], [1, 1]), "'mdim'"),
        (lambda: mfma_scale_layout(0, [32, 4], 32, [4, 4], [1, 1]), "tiles_per_warp"),
        (lambda: mfma_scale_layout(True, [32, 4], 32, [1, 1], [1, 1]), "'op_idx'"),
        (lambda: wmma_scale_layout(0, [32, 4], 16, 32, False, 32, [], []), "'mdim', 'ndim'"),
        (lambda: wmma_scale_layout(0, [32, 4], 16, 16, 1, 32, [], []), "'transposed'"),
        (lambda: wmma_scale_layout(0, [32, 4], 16, 16, False, 8, [], []), "'scale_factor'"),
        (lambda: wmma_scale_layout(0, [32, 4], 16, 16, False, 32, [[1]], []), "'reg_bases'"),
        (lambda: wmma_scale_layout(2, [32, 4], 16, 16, False, 32, [], []), "'op_idx'"),
    ],
)
def test_bad_arguments(call: Any, needle: str) -> None:
    with pytest.raises(EncodingError, match=needle):
        call()


# ------------------------------------------------------------------ whole-tensor families

SM120_FAMILY = [
    (op, (wm, wn), reps, ks)
    for op, wm, wn, reps, ks in itertools.product(
        (0, 1), (1, 2, 4, 8), (1, 2, 4, 8), (1, 2, 4), (1, 2, 4, 8)
    )
]
MFMA_FAMILY = [
    (op, mdim, tiles, (wm, wn), reps, kr)
    for op, mdim, tiles, wm, wn, reps, kr in itertools.product(
        (0, 1), (16, 32), (1, 2), (1, 2, 4, 8), (1, 2, 4), (1, 2, 4), (1, 2, 4, 8)
    )
]


def test_sm120_family_proved() -> None:
    """Every member (384): the converter equals its closed form on the whole tensor."""
    for op, warps, reps, ks in SM120_FAMILY:
        rows = (16 * warps[0] if op == 0 else 8 * warps[1]) * reps
        layout = sm120_scale_layout([rows, ks], op, list(warps)).to_linear_layout([rows, ks])
        verdict = prove_equal(layout, sm120_closed_form(op, warps, ks))
        assert verdict.status == "proved", (op, warps, reps, ks, str(verdict))
    assert len(SM120_FAMILY) == 384


def test_mfma_family_proved() -> None:
    """Every member (1,152): the converter equals its closed form on the whole tensor."""
    for op, mdim, tiles, warps, reps, kr in MFMA_FAMILY:
        rows = mdim * tiles * warps[op] * reps
        shape = [rows, (64 // mdim) * kr]
        enc = mfma_scale_layout(op, shape, mdim, [tiles, tiles], list(warps))
        verdict = prove_equal(
            enc.to_linear_layout(shape), mfma_closed_form(op, mdim, tiles, warps, kr)
        )
        assert verdict.status == "proved", (op, mdim, tiles, warps, reps, kr, str(verdict))
    assert len(MFMA_FAMILY) == 1152


def test_family_negative_controls_refuted() -> None:
    """The closed forms with the warp order of the other operand (a bug Triton's comments
    warn of: A and B take the MMA's warps differently) are refuted wherever both warp dims
    are split."""
    layout = sm120_scale_layout([64, 2], 0, [2, 2]).to_linear_layout([64, 2])
    wrong = sm120_closed_form(0, (2, 2), 2) | {
        "dim0": "(lane >> 2) + 8 * (lane & 1) + 16 * (warp % 2) + 32 * (register // 2)"
    }
    verdict = prove_equal(layout, wrong)
    assert verdict.refuted and layout.apply(verdict.counterexample) == verdict.actual
    enc = mfma_scale_layout(1, [128, 4], 16, [1, 1], [2, 4])
    layout = enc.to_linear_layout([128, 4])
    verdict = prove_equal(layout, mfma_closed_form(0, 16, 1, (4, 2), 1))
    assert verdict.refuted and layout.apply(verdict.counterexample) == verdict.actual


# ------------------------------------------------------------------ tcgen05 scales in TMEM


def test_tmem_scales_block_proved() -> None:
    """One 128 x 4 block: TensorMemoryScalesLayout equals the PTX/CUTLASS scale block (lane
    mn % 32 of every lane partition, word mn // 32, byte k)."""
    layout = TensorMemoryScalesLayout().to_linear_layout([128, 4])
    verdict = prove_equal(layout, TMEM_SCALES_BLOCK)
    assert verdict.status == "proved", str(verdict)


@pytest.mark.parametrize("wrong", TMEM_SCALES_NEGATIVE, ids=["k-row-group-swapped", "no-dup"])
def test_tmem_scales_negative_controls_refuted(wrong: dict[str, str]) -> None:
    layout = TensorMemoryScalesLayout().to_linear_layout([128, 4])
    verdict = prove_equal(layout, wrong)
    assert verdict.refuted and verdict.counterexample is not None, str(verdict)
    assert layout.apply(verdict.counterexample) == verdict.actual != verdict.expected


def test_tmem_scales_family_proved() -> None:
    """Every [128 * r_mn, 4 * r_k] tensor, r_mn, r_k in 1..8 (16): the block, then Triton's
    repetitions along the columns, M/N first; the K-first order is refuted wherever both
    repeat (a negative control for the block repetition order)."""
    count = 0
    for reps_mn, reps_k in itertools.product((1, 2, 4, 8), repeat=2):
        shape = [128 * reps_mn, 4 * reps_k]
        layout = TensorMemoryScalesLayout().to_linear_layout(shape)
        verdict = prove_equal(layout, tmem_scales_closed_form(reps_mn, reps_k))
        assert verdict.status == "proved", (shape, str(verdict))
        if reps_mn > 1 and reps_k > 1:
            k_first = {
                "dim0": f"(row % 32) + 32 * ((col // 4) % 4) + 128 * ((col // 16) // {reps_k})",
                "dim1": f"(col % 4) + 4 * ((col // 16) % {reps_k})",
            }
            wrong = prove_equal(layout, k_first)
            assert wrong.refuted and layout.apply(wrong.counterexample) == wrong.actual
        count += 1
    assert count == 16


@pytest.mark.triton
def test_tmem_scales_block_rep_order_matches_triton() -> None:
    """Both block repetition orders against Triton 3.9 (Gluon's
    ``nvidia.rubin.TensorMemoryScalesLayout``, ``blockRepOrder``) on M/N 32..1024, K/group
    1..32 and 1 or 2 CTAs (2 x 6 x 6 x 3 = 216 cases)."""
    grid = list(itertools.product(
        ("mnThenK", "kThenMn"), (32, 64, 128, 256, 512, 1024), (1, 2, 4, 8, 16, 32),
        ([], [[1, 0]], [[0, 1]]),
    ))  # fmt: skip
    cases = [
        {"kind": "tmem_scales", "order": order, "cga": cga, "shape": [mn, k]}
        for order, mn, k, cga in grid
    ]
    results = run_oracle(cases)
    mismatches = []
    for case, got in zip(cases, results):
        if "error" in got:
            mismatches.append((case, got))
            continue
        enc = TensorMemoryScalesLayout(case["cga"], case["order"])
        layout = dict(enc.to_linear_layout(case["shape"]).bases)
        if (layout["row"], layout["col"]) != (got["rows"], got["cols"]):
            mismatches.append((case, got))
    assert len(cases) == 216
    assert not mismatches, mismatches[:3]


def test_tmem_scales_k_then_mn_proved_and_ttgir() -> None:
    """kThenMn: the same PTX/CUTLASS block, then the K blocks before the M/N ones (the
    mnThenK closed form refuted); its TTGIR spelling round-trips; a bad order is refused."""
    for reps_mn, reps_k in itertools.product((2, 4), (2, 4)):
        layout = TensorMemoryScalesLayout((), "kThenMn").to_linear_layout(
            [128 * reps_mn, 4 * reps_k]
        )
        k_first = {
            "dim0": f"(row % 32) + 32 * ((col // 4) % 4) + 128 * ((col // 16) // {reps_k})",
            "dim1": f"(col % 4) + 4 * ((col // 16) % {reps_k})",
        }
        assert prove_equal(layout, k_first).status == "proved"
        wrong = prove_equal(layout, tmem_scales_closed_form(reps_mn, reps_k))
        assert wrong.refuted and layout.apply(wrong.counterexample) == wrong.actual
    enc = TensorMemoryScalesLayout([[1, 0]], "kThenMn")
    text = "#ttng.tensor_memory_scales_encoding<CGALayout = [[1, 0]], blockRepOrder = kThenMn>"
    assert enc.ttgir() == text
    assert parse_encoding(text)[0] == enc
    with pytest.raises(EncodingError, match="'block_rep_order'"):
        TensorMemoryScalesLayout((), "kThenM")
