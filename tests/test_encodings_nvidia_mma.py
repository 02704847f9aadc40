"""NVIDIA MMA encodings (``llverify.encodings.nvidia_mma``): Triton's unit tests ported with
their expected bases, a differential test against Triton 3.9 on generated valid parameters
(bases from the TTGIR text and from the Gluon object, and the printed text), the proofs of
``specs/nvidia_mma.py`` (hardware fragments, whole-tensor closed forms, parametric families),
negative controls shaped like historical layout bugs, and one error test per verifier rule.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

import llverify.encodings.nvidia_mma as nvidia_mma  # registers the builders
from cases.triton import require_triton, triton_layouts
from llverify import LinearLayout, prove_equal, prove_family_equal
from llverify.encodings import (
    DotOperandLayout,
    EncodingError,
    SliceLayout,
    TTGIRError,
    cga_from_split_params,
    from_gluon,
    parse_encoding,
    to_linear_layout,
)
from llverify.encodings.nvidia_mma import NVMMADistributedLayout
from llverify.errors import LayoutTypeError
from llverify.specs import nvidia_mma as spec

IN_DIMS = ("register", "lane", "warp", "block")


def bases_of(layout: LinearLayout) -> dict[str, list[list[int]]]:
    named = dict(layout.bases)
    return {d: [list(b) for b in named.get(d, [])] for d in IN_DIMS}


# ---------------------------------------------------------------------- (a) Triton's unit tests
# unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp: the MMAv2 / MMAv3 / DotMMAv2 /
# DotMMAv3 / SliceDot / SliceOfMmaV2 cases, with Triton's helper argument order
# mma(versionMajor, versionMinor, instrShape, warpsPerCTA[, CTAsPerCGA, CTASplitNum, CTAOrder]).


def mma(
    major: int,
    minor: int,
    instr: list[int],
    warps: list[int],
    cpg: list[int] | None = None,
    split: list[int] | None = None,
    cord: list[int] | None = None,
) -> NVMMADistributedLayout:
    cga = []
    if cpg is not None and split is not None and cord is not None:
        cga = cga_from_split_params(cpg, split, cord)
    return NVMMADistributedLayout([major, minor], warps, instr, cga)


def dot(parent: NVMMADistributedLayout, index: int, k_width: int) -> DotOperandLayout:
    return DotOperandLayout(index, parent, k_width)


def ll(
    register: list[list[int]],
    lane: list[list[int]],
    warp: list[list[int]],
    block: list[list[int]],
    rank: int = 2,
) -> LinearLayout:
    names = [f"dim{i}" for i in range(rank)]
    return LinearLayout.from_bases(
        [("register", register), ("lane", lane), ("warp", warp), ("block", block)], names
    )


LANES = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]
LANES_3D = [[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]]
V2_1 = {"cpg": [1, 1], "split": [1, 1], "cord": [0, 1]}
V3_1 = {"cpg": [1, 1], "split": [1, 1], "cord": [1, 0]}
CGA3 = {"cpg": [4, 2, 2], "split": [4, 2, 1], "cord": [2, 1, 0]}


def _ported() -> list[tuple[str, Any, list[int], LinearLayout]]:
    cases: list[tuple[str, Any, list[int], LinearLayout]] = []
    add = cases.append
    v2 = mma(2, 0, [16, 8], [1, 1], **V2_1)
    add(("MMAv2_16x16", v2, [16, 16], ll([[0, 1], [8, 0], [0, 8]], LANES, [], [])))
    add(
        (
            "MMAv2_32x32",
            v2,
            [32, 32],
            ll([[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]], LANES, [], []),
        )
    )
    add(
        (
            "MMAv2_ExtendDim2",
            v2,
            [16, 128],
            ll([[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], LANES, [], []),
        )
    )
    regs_3d = [
        [0, 0, 1],
        [0, 8, 0],
        [0, 0, 8],
        [0, 0, 16],
        [0, 0, 32],
        [0, 0, 64],
        [0, 16, 0],
        [0, 32, 0],
    ]
    cga_mma = mma(2, 0, [1, 16, 8], [16, 1, 1], **CGA3)
    add(
        (
            "MMAv2_Cga",
            cga_mma,
            [64, 128, 128],
            ll(
                regs_3d,
                LANES_3D,
                [[1, 0, 0], [2, 0, 0], [4, 0, 0], [8, 0, 0]],
                [[0, 0, 0], [0, 64, 0], [16, 0, 0], [32, 0, 0]],
                3,
            ),
        )
    )
    add(
        (
            "MMAv2_Small3D",
            cga_mma,
            [1, 128, 128],
            ll(
                regs_3d,
                LANES_3D,
                [[0, 0, 0]] * 4,
                [[0, 0, 0], [0, 64, 0], [0, 0, 0], [0, 0, 0]],
                3,
            ),
        )
    )
    warps_4x1 = [[16, 0], [32, 0]]
    for instr in ([16, 16, 8], [16, 8, 8]):
        add(
            (
                f"MMAv3_64x16[{instr}]",
                mma(3, 0, instr, [4, 1], **V3_1),
                [64, 16],
                ll([[0, 1], [8, 0], [0, 8]], LANES, warps_4x1, []),
            )
        )
    v3 = mma(3, 0, [16, 16, 8], [4, 1], **V3_1)
    add(
        ("MMAv3_128x16", v3, [128, 16], ll([[0, 1], [8, 0], [0, 8], [64, 0]], LANES, warps_4x1, []))
    )
    big = [[0, 1], [8, 0]] + [[0, 8 << k] for k in range(7)] + [[64 << k, 0] for k in range(4)]
    add(("MMAv3_1024x1024", v3, [1024, 1024], ll(big, LANES, warps_4x1, [])))
    v3_42 = mma(3, 0, [16, 32, 16], [4, 2], **V3_1)
    r4 = [[0, 1], [8, 0], [0, 8], [0, 16]]
    add(("MMAv3_4x2Warps[64x32]", v3_42, [64, 32], ll(r4, LANES, [[16, 0], [32, 0], [0, 0]], [])))
    w42 = [[16, 0], [32, 0], [0, 32]]
    add(("MMAv3_4x2Warps[64x64]", v3_42, [64, 64], ll(r4, LANES, w42, [])))
    add(("MMAv3_4x2Warps[128x64]", v3_42, [128, 64], ll([*r4, [64, 0]], LANES, w42, [])))
    add(
        (
            "MMAv3_4x2Warps[256x64]",
            v3_42,
            [256, 64],
            ll([*r4, [64, 0], [128, 0]], LANES, w42, []),
        )
    )
    v3_44 = mma(3, 0, [16, 16, 8], [4, 4], **V3_1)
    r3 = [[0, 1], [8, 0], [0, 8]]
    for shape, regs, warps in (
        ([16, 16], r3, [[0, 0], [0, 0], [0, 0], [0, 0]]),
        ([32, 16], r3, [[16, 0], [0, 0], [0, 0], [0, 0]]),
        ([64, 16], r3, [[16, 0], [32, 0], [0, 0], [0, 0]]),
        ([128, 16], [*r3, [64, 0]], [[16, 0], [32, 0], [0, 0], [0, 0]]),
        ([32, 32], r3, [[16, 0], [0, 0], [0, 16], [0, 0]]),
        ([64, 32], r3, [[16, 0], [32, 0], [0, 16], [0, 0]]),
    ):
        add((f"MMAv3_4x4Warps[{shape}]", v3_44, shape, ll(regs, LANES, warps, [])))

    p11 = mma(2, 0, [16, 8], [1, 1])
    lanes_k8_a = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]]
    lanes_k8_b = [[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]]
    add(
        (
            "DotMMAv2_tile_kwidth8[A]",
            dot(p11, 0, 8),
            [16, 64],
            ll([[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]], lanes_k8_a, [], []),
        )
    )
    add(
        (
            "DotMMAv2_tile_kwidth8[B]",
            dot(p11, 1, 8),
            [64, 8],
            ll([[1, 0], [2, 0], [4, 0], [32, 0]], lanes_k8_b, [], []),
        )
    )
    p41 = mma(2, 0, [16, 8], [4, 1])
    add(
        (
            "DotMMAv2_large_warp4_kwidth8[A]",
            dot(p41, 0, 8),
            [128, 128],
            ll(
                [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32], [0, 64], [64, 0]],
                lanes_k8_a,
                [[16, 0], [32, 0]],
                [],
            ),
        )
    )
    add(
        (
            "DotMMAv2_large_warp4_kwidth8[B 128x64]",
            dot(p41, 1, 8),
            [128, 64],
            ll(
                [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [0, 8], [0, 16], [0, 32]],
                lanes_k8_b,
                [[0, 0], [0, 0]],
                [],
            ),
        )
    )
    add(
        (
            "DotMMAv2_large_warp4_kwidth8[B 64x128]",
            dot(p41, 1, 8),
            [64, 128],
            ll(
                [[1, 0], [2, 0], [4, 0], [32, 0], [0, 8], [0, 16], [0, 32], [0, 64]],
                lanes_k8_b,
                [[0, 0], [0, 0]],
                [],
            ),
        )
    )
    p3d = mma(2, 0, [1, 16, 8], [2, 4, 2])
    add(
        (
            "DotMMAv2_3D[A]",
            dot(p3d, 0, 8),
            [16, 128, 128],
            ll(
                [
                    [0, 0, 1],
                    [0, 0, 2],
                    [0, 0, 4],
                    [0, 8, 0],
                    [0, 0, 32],
                    [0, 0, 64],
                    [0, 64, 0],
                    [2, 0, 0],
                    [4, 0, 0],
                    [8, 0, 0],
                ],
                [[0, 0, 8], [0, 0, 16], [0, 1, 0], [0, 2, 0], [0, 4, 0]],
                [[0, 0, 0], [0, 16, 0], [0, 32, 0], [1, 0, 0]],
                [],
                3,
            ),
        )
    )
    add(
        (
            "DotMMAv2_3D[B]",
            dot(p3d, 1, 8),
            [8, 128, 64],
            ll(
                [
                    [0, 1, 0],
                    [0, 2, 0],
                    [0, 4, 0],
                    [0, 32, 0],
                    [0, 64, 0],
                    [0, 0, 16],
                    [0, 0, 32],
                    [2, 0, 0],
                    [4, 0, 0],
                ],
                [[0, 8, 0], [0, 16, 0], [0, 0, 1], [0, 0, 2], [0, 0, 4]],
                [[0, 0, 8], [0, 0, 0], [0, 0, 0], [1, 0, 0]],
                [],
                3,
            ),
        )
    )
    dv3 = dot(mma(3, 0, [16, 16, 8], [4, 1]), 0, 2)
    for shape, regs in (
        ([64, 16], [[0, 1], [8, 0], [0, 8]]),
        ([128, 16], [[0, 1], [8, 0], [0, 8], [64, 0]]),
        ([128, 32], [[0, 1], [8, 0], [0, 8], [0, 16], [64, 0]]),
    ):
        add((f"DotMMAv3_warp4_kwidth2[{shape}]", dv3, shape, ll(regs, LANES, warps_4x1, [])))
    add(
        (
            "DotMMAv3_mixed_warp_kwidth4",
            dot(mma(3, 0, [16, 16, 8], [4, 2]), 0, 4),
            [128, 64],
            ll(
                [[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [64, 0]],
                [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
                [[16, 0], [32, 0], [0, 0]],
                [],
            ),
        )
    )
    p22 = mma(2, 0, [16, 8], [2, 2])
    for name, index, shape, regs, warps in (
        ("A 32x64", 0, [32, 64], [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]], [[0, 0], [16, 0]]),
        ("B 64x16", 1, [64, 16], [[1, 0], [2, 0], [4, 0], [32, 0]], [[0, 8], [0, 0]]),
        (
            "A 64x128",
            0,
            [64, 128],
            [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32], [0, 64], [32, 0]],
            [[0, 0], [16, 0]],
        ),
        (
            "B 128x32",
            1,
            [128, 32],
            [[1, 0], [2, 0], [4, 0], [32, 0], [64, 0], [0, 16]],
            [[0, 8], [0, 0]],
        ),
    ):
        lanes = lanes_k8_a if index == 0 else lanes_k8_b
        add(
            (
                f"DotMMAv2_split_warp_kwidth8[{name}]",
                dot(p22, index, 8),
                shape,
                ll(regs, lanes, warps, []),
            )
        )
    add(
        (
            "SliceDot[v2]",
            SliceLayout(1, dot(mma(2, 0, [16, 8], [1, 1]), 0, 8)),
            [16],
            ll([[8]], [[0], [0], [1], [2], [4]], [], [], 1),
        )
    )
    add(
        (
            "SliceDot[v3]",
            SliceLayout(0, dot(mma(3, 0, [16, 16, 8], [4, 1]), 0, 2)),
            [16],
            ll([[1], [8]], [[2], [4], [0], [0], [0]], [[0], [0]], [], 1),
        )
    )
    s22 = mma(2, 0, [16, 8], [2, 2], **V2_1)
    for dim, shape, regs, lanes, warps in (
        (0, [16], [[1]], [[2], [4], [0], [0], [0]], [[8], [0]]),
        (0, [128], [[1], [16], [32], [64]], [[2], [4], [0], [0], [0]], [[8], [0]]),
        (1, [8], [], [[0], [0], [1], [2], [4]], [[0], [0]]),
        (1, [128], [[8], [32], [64]], [[0], [0], [1], [2], [4]], [[0], [16]]),
    ):
        add(
            (
                f"SliceOfMmaV2[{dim}, {shape}]",
                SliceLayout(dim, s22),
                shape,
                ll(regs, lanes, warps, [], 1),
            )
        )
    return cases


PORTED = _ported()


@pytest.mark.parametrize(
    ("name", "encoding", "shape", "expected"), PORTED, ids=[c[0] for c in PORTED]
)
def test_triton_unit_case(
    name: str, encoding: Any, shape: list[int], expected: LinearLayout
) -> None:
    assert encoding.to_linear_layout(shape) == expected
    # the same through the printed TTGIR text
    assert to_linear_layout(encoding.ttgir(), shape) == expected


def test_ported_case_count() -> None:
    assert len(PORTED) == 40  # 18 TEST_Fs, 40 expectations


# ---------------------------------------------------------------------- (b) differential vs Triton


def _random_cga(rng: random.Random, rank: int) -> list[list[int]]:
    if rng.random() < 0.7:
        return []
    next_bit = [0] * rank
    bases = []
    for _ in range(rng.randint(1, 3)):
        basis = [0] * rank
        if rng.random() > 0.2:
            d = rng.randrange(rank)
            basis[d] = 1 << next_bit[d]
            next_bit[d] += 1
        bases.append(basis)
    return bases


def _random_mma(rng: random.Random) -> NVMMADistributedLayout:
    major = rng.choice([2, 2, 3])
    minor = rng.choice([0, 0, 0, 1, 3])
    rank = 2 if major == 3 else rng.choice([2, 2, 2, 3, 3, 4])
    log_warps = [0] * rank
    for _ in range(rng.randint(0, 4)):
        log_warps[rng.randrange(rank)] += 1
    warps = [1 << w for w in log_warps]
    if major == 2:
        batch = [rng.choice([1, 1, 2, 4, 3]) for _ in range(rank - 2)]
        instr = [*batch, rng.choice([8, 16, 16, 16, 32]), rng.choice([8, 8, 16, 32])]
    else:
        instr = [rng.choice([16, 16, 16, 8, 32]), 8 << rng.randint(0, 5), rng.choice([8, 16, 32])]
        if rng.random() < 0.05:
            instr = instr[:2]
    return NVMMADistributedLayout([major, minor], warps, instr, _random_cga(rng, rank))


def _random_shape(rng: random.Random, rank: int) -> list[int]:
    """Mostly at least one tile per dim (up to 512), sometimes smaller (broadcast)."""
    budget = 16
    shape = []
    for d in range(rank):
        if d < rank - 2:
            bits = rng.randint(0, 3)
        else:
            bits = rng.randint(3, 9) if rng.random() < 0.8 else rng.randint(0, 2)
        bits = min(bits, budget)
        budget -= bits
        shape.append(1 << bits)
    return shape


def _gluon_expr(encoding: Any) -> str:
    if isinstance(encoding, DotOperandLayout):
        parent = _gluon_expr(encoding.parent)
        return f"ttgl.DotOperandLayout({encoding.operand_index}, {parent}, {encoding.k_width})"
    if isinstance(encoding, SliceLayout):
        return f"ttgl.SliceLayout({encoding.dim}, {_gluon_expr(encoding.parent)})"
    assert isinstance(encoding, NVMMADistributedLayout)
    cga = [list(b) for b in encoding.cga_layout]
    return (
        f"ttgl.NVMMADistributedLayout({list(encoding.version)}, {list(encoding.warps_per_cta)}, "
        f"{list(encoding.instr_shape)}, {cga})"
    )


def _differential_cases() -> list[tuple[str, Any, list[int]]]:
    rng = random.Random(int(os.environ.get("LLVERIFY_DIFF_SEED", "20250917")))
    cases: list[tuple[str, Any, list[int]]] = []
    for _ in range(320):
        mma_enc = _random_mma(rng)
        cases.append(("mma", mma_enc, _random_shape(rng, mma_enc.rank)))
    for _ in range(320):
        parent = _random_mma(rng)
        index = 0 if parent.is_hopper() else rng.randint(0, 1)
        dot_enc = DotOperandLayout(index, parent, rng.choice([1, 2, 2, 4, 8, 16, 32]))
        cases.append(("dot", dot_enc, _random_shape(rng, dot_enc.rank)))
    for _ in range(40):
        sliced: Any = _random_mma(rng)
        if rng.random() < 0.5:
            sliced = DotOperandLayout(0, sliced, rng.choice([1, 2, 4, 8]))
        slice_enc = SliceLayout(rng.randrange(sliced.rank), sliced)
        cases.append(("slice", slice_enc, _random_shape(rng, slice_enc.rank)))
    # Corners Triton accepts: tile M or N of 0 (an empty identity), odd batch / K entries,
    # Hopper instr_shape of length 2 or 4, fp64 tile with every operand and kWidth.
    corners: list[Any] = [
        NVMMADistributedLayout([2, 0], [4, 1], [0, 8]),
        NVMMADistributedLayout([2, 0], [2, 2], [16, 0]),
        NVMMADistributedLayout([2, 0], [2, 1, 2], [0, 16, 8]),
        NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 3]),
        NVMMADistributedLayout([3, 0], [4, 1], [16, 64]),
        NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16, 4]),
        DotOperandLayout(0, NVMMADistributedLayout([2, 0], [4, 1], [0, 8]), 2),
        DotOperandLayout(1, NVMMADistributedLayout([2, 0], [1, 4], [8, 8]), 1),
        DotOperandLayout(0, NVMMADistributedLayout([2, 0], [4, 1], [16, 8]), 128),
    ]
    for enc in corners:
        cases.append(("corner", enc, [64, 64] if enc.rank == 2 else [2, 64, 64]))
    return cases


def _check_refusals(results: list[dict[str, Any]]) -> None:
    refused = results[-len(REFUSED) :]
    for (expr, rule), result in zip(REFUSED, refused):
        assert "error" in result and rule in result["error"], (expr, result)


# Parameters Triton refuses with an error (not an abort); llverify raises for the same rule.
REFUSED = [
    ("ttgl.NVMMADistributedLayout([1, 0], [4, 1], [16, 8])", "Volta"),
    ("ttgl.NVMMADistributedLayout([4, 0], [4, 1], [16, 8])", "versionMajor must be 2"),
    (
        "ttgl.DotOperandLayout(0, ttgl.NVMMADistributedLayout([2, 0], [4, 1], [16, 8]), 0)",
        "kWidth parameter is mandatory",
    ),
    (
        "ttgl.DotOperandLayout(1, ttgl.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16]), 2)",
        "must be 0 for Hopper",
    ),
]


@pytest.mark.triton
def test_differential_against_triton() -> None:
    require_triton()
    from triton.experimental.gluon import language as ttgl

    cases = _differential_cases()
    requests = [{"layout": _gluon_expr(enc), "shape": shape} for _, enc, shape in cases]
    requests += [{"layout": expr, "shape": [64, 64]} for expr, _ in REFUSED]
    results = triton_layouts(requests)
    _check_refusals(results)
    counts = {"mma": 0, "dot": 0, "slice": 0, "corner": 0}
    mismatches = []
    for (kind, enc, shape), request, result in zip(cases, requests, results):
        assert "bases" in result, (request, result)
        expected = {d: result["bases"][d] for d in IN_DIMS}
        text = result["ttgir"]
        from_text, _ = parse_encoding(text)
        gluon_object = eval(str(request["layout"]), {"ttgl": ttgl})  # noqa: S307 - our own text
        checks = {
            "object": bases_of(enc.to_linear_layout(shape)),
            "ttgir": bases_of(from_text.to_linear_layout(shape)),
            "gluon": bases_of(to_linear_layout(gluon_object, shape)),
        }
        for how, got in checks.items():
            if got != expected:
                mismatches.append((how, request, got, expected))
        if enc.ttgir() != text or from_text.ttgir() != text:
            mismatches.append(("text", request, enc.ttgir(), text))
        if from_gluon(gluon_object) != enc:
            mismatches.append(("from_gluon", request, from_gluon(gluon_object), enc))
        counts[kind] += 1
    assert not mismatches, mismatches[:3]
    assert counts["mma"] >= 300 and counts["dot"] >= 300, counts


# ---------------------------------------------------------------------- (c) proofs


def _layout(obligation: spec.Obligation) -> LinearLayout:
    return to_linear_layout(obligation.encoding, list(obligation.shape))


def _formulas(name: str) -> dict[str, str]:
    return dict(spec.REFERENCES[name].formulas)


@pytest.mark.parametrize("obligation", spec.OBLIGATIONS, ids=[o.name for o in spec.OBLIGATIONS])
def test_fragment_obligation_proved(obligation: spec.Obligation) -> None:
    verdict = prove_equal(_layout(obligation), _formulas(obligation.reference))
    assert verdict.status == "proved", verdict


@pytest.mark.parametrize(
    "obligation",
    spec.CLOSED_FORM_OBLIGATIONS,
    ids=[o.name for o in spec.CLOSED_FORM_OBLIGATIONS],
)
def test_closed_form_obligation_proved(obligation: spec.Obligation) -> None:
    layout = _layout(obligation)
    verdict = prove_equal(layout, _formulas(obligation.reference), params=dict(obligation.params))
    assert verdict.status == "proved", verdict
    assert layout.get_in_dim_size("warp") > 1  # several warps and repetitions


def test_obligations_cover_every_wgmma_n() -> None:
    names = {o.name for o in spec.OBLIGATIONS}
    assert all(f"wgmma m64n{n}k16 D" in names for n in range(8, 257, 8))


def test_every_reference_cites_a_source_and_is_used() -> None:
    used = {o.reference for o in spec.OBLIGATIONS + spec.CLOSED_FORM_OBLIGATIONS}
    used |= {name for _, name in spec.FAMILY_PROOFS}
    for name, reference in spec.REFERENCES.items():
        assert reference.source and name in used, name


def _family_instance(family: str, p: dict[str, int]) -> tuple[Any, list[int]]:
    """The converter instance a family member stands for."""
    if family == "wgmma_accumulator":
        n = 1 << p["ln"]
        return NVMMADistributedLayout([3, 0], [4, 1], [16, n, 16]), [64, n]
    warps = [1 << p["lwm"], 1 << p["lwn"]]
    if family == "mma_accumulator":
        hopper = p["hopper"]
        instr = [8 << p["lm8"], 8 << p["ln8"]] + ([16] if hopper else [])
        shape = [
            1 << (3 + p["lm8"] + p["lwm"] + p["lrm"]),
            1 << (3 + p["ln8"] + p["lwn"] + p["lrn"]),
        ]
        return NVMMADistributedLayout([3 if hopper else 2, 0], warps, instr), shape
    lmul = min(p["lm8"], 1)
    k = 1 << (p["lw"] + 2 + lmul + p["lrk"])
    if family == "mma_dot_a":
        hopper = p["hopper"]
        instr = [8 << p["lm8"], 8] + ([16] if hopper else [])
        parent = NVMMADistributedLayout([3 if hopper else 2, 0], warps, instr)
        shape = [1 << (3 + p["lm8"] + p["lwm"] + p["lrm"]), k]
        return DotOperandLayout(0, parent, 1 << p["lw"]), shape
    assert family == "mma_dot_b"
    parent = NVMMADistributedLayout([2, 0], warps, [8 << p["lm8"], 8])
    return DotOperandLayout(1, parent, 1 << p["lw"]), [k, 1 << (3 + p["lwn"] + p["lrn"])]


@pytest.mark.parametrize(
    ("factory", "reference"), spec.FAMILY_PROOFS, ids=[f.__name__ for f, _ in spec.FAMILY_PROOFS]
)
def test_family_proved_and_equal_to_the_converter(factory: Any, reference: str) -> None:
    family = factory()
    verdict = prove_family_equal(family, spec.family_reference(reference))
    assert verdict.status == "proved", verdict
    # The family is the converter: every member's layout is the converter's instance.
    members = 0
    for params in family.members():
        encoding, shape = _family_instance(family.name, params)
        converted = encoding.to_linear_layout(shape)
        member = family.instance(**params)
        assert [(d, b) for d, b in converted.bases if d != "block"] == member.bases, params
        assert converted.get_out_dim_sizes() == member.get_out_dim_sizes(), params
        members += 1
    assert members == family.domain_size() >= 6


# ---------------------------------------------------------------------- (d) negative controls


def _with_bases(layout: LinearLayout, in_dim: str, new: list[list[int]]) -> LinearLayout:
    return LinearLayout(
        [(d, new if d == in_dim else b) for d, b in layout.bases],
        layout.get_out_dim_names(),
        layout.get_out_dim_sizes(),
        require_surjective=False,
    )


def _swapped(layout: LinearLayout, in_dim: str, i: int, j: int) -> LinearLayout:
    bases = [list(b) for b in dict(layout.bases)[in_dim]]
    bases[i], bases[j] = bases[j], bases[i]
    return _with_bases(layout, in_dim, bases)


def _assert_refuted(
    layout: LinearLayout, formulas: dict[str, str], names: set[str], **params: int
) -> None:
    verdict = prove_equal(layout, formulas, params=params)
    assert verdict.status == "refuted", verdict
    point = verdict.counterexample
    assert point is not None and names & {d for d, v in point.items() if v}, verdict
    # replay independently: the layout with apply, the formulas as Python over ints
    env = {**point, **params}
    actual = layout.apply(point)
    expected = {d: eval(f, {}, dict(env)) for d, f in formulas.items()}  # noqa: S307
    assert actual != expected


def test_negative_lane_bits_swapped() -> None:
    # a C tile whose lanes 2 and 4 (threadID_in_group bit 1 and groupID bit 0) are exchanged
    layout = NVMMADistributedLayout([2, 0], [1, 1], [16, 8]).to_linear_layout([16, 8])
    _assert_refuted(_swapped(layout, "lane", 1, 2), _formulas("mma.m16n8k16.CD"), {"lane"})


def test_negative_wrong_kwidth_repetition() -> None:
    # the K repetition (a4..a7: col + 8) placed before the M half (a2, a3: row + 8)
    layout = to_linear_layout(spec.dot_text(0, spec.AMPERE_1W, 2), [16, 16])
    _assert_refuted(
        _swapped(layout, "register", 1, 2), _formulas("mma.m16n8k16.f16.A"), {"register"}
    )


def test_negative_wrong_kwidth() -> None:
    # the 8-bit (kWidth 4) operand is not the f16 fragment, and vice versa
    k4 = to_linear_layout(spec.dot_text(0, spec.AMPERE_1W, 4), [16, 16])
    _assert_refuted(k4, _formulas("mma.m16n8k16.f16.A"), {"register", "lane"})
    k2 = to_linear_layout(spec.dot_text(0, spec.AMPERE_1W, 2), [16, 32])
    _assert_refuted(k2, _formulas("mma.m16n8k32.b8.A"), {"register", "lane"})


def test_negative_operand_b_transposed_the_wrong_way() -> None:
    # operand B built with the A order (getOrderForDotOperand with kContig = false): N inner
    wrong = nvidia_mma.nvidia_mma_tile([16, 8], 2, [1, 0], [1, 0]).transpose_outs(["dim0", "dim1"])
    layout = wrong * LinearLayout.from_bases([("warp", []), ("block", [])], ["dim0", "dim1"])
    _assert_refuted(layout, _formulas("mma.m16n8k16.f16.B"), {"register", "lane"})


def test_negative_hopper_warps_row_major() -> None:
    # warps laid out N first (Ampere's order) where Hopper lays them out M first
    params = dict(hopper=1, lm8=1, ln8=3, lwm=1, lwn=1, lrm=0, lrn=0)
    wrong = NVMMADistributedLayout([2, 0], [2, 2], [16, 64]).to_linear_layout([32, 128])
    _assert_refuted(wrong, _formulas("closed_form.accumulator"), {"warp"}, **params)


def test_negative_family_refuted_with_parameters() -> None:
    # a closed form that forgets the warps when placing the N repetitions
    reference = spec.family_reference("closed_form.accumulator")
    reference["dim1"] = reference["dim1"].replace("<< (3 + ln8 + lwn))", "<< (3 + ln8))")
    verdict = prove_family_equal(spec.mma_accumulator_family(), reference)
    assert verdict.status == "refuted", verdict
    point = verdict.counterexample
    assert point is not None and point["lwn"] > 0 and point["lrn"] > 0 and "register" in point


def test_negative_wgmma_family_wrong_warp_stride() -> None:
    # the m16n8k16 habit of 8-row warps applied to wgmma (16 rows per warp)
    reference = {
        "dim0": "8 * warp + (lane >> 2) + 8 * ((register % 4) // 2)",
        "dim1": "(register // 4) * 8 + (lane % 4) * 2 + (register % 2)",
    }
    verdict = prove_family_equal(spec.wgmma_accumulator_family(), reference)
    assert verdict.status == "refuted" and verdict.counterexample is not None
    assert verdict.counterexample["warp"] or verdict.counterexample["register"]


# ---------------------------------------------------------------------- (e) verifier rules, TTGIR


@pytest.mark.parametrize(
    ("args", "rule"),
    [
        (([2], [4, 1], [16, 8]), "'version' must be"),
        (([1, 0], [4, 1], [16, 8]), "Volta"),
        (([4, 0], [4, 1], [16, 8]), "versionMajor must be 2 (Ampere) or 3 (Hopper)"),
        (([2, -1], [4, 1], [16, 8]), "versionMinor is unsigned"),
        (([2, 0], [4], [16]), "rank >= 2"),
        (([2, 0], [3, 1], [16, 8]), "power of two"),
        (([2, 0], [0, 1], [16, 8]), "power of two"),
        (([2, 0], [4, 1], [16, -8]), "instr_shape[1] is unsigned"),
        (([2, 0], [4, 1], [16, 8, 16]), "one entry per dim"),
        (([3, 0], [4, 1, 1], [16, 64, 16]), "Hopper (version 3) MMA layouts are 2-D"),
        (([3, 0], [4, 1], [16]), "'instr_shape' is [M, N, K]"),
        (([2, 0], [4, 1], [24, 8]), "M = 24 must be 8 times a power of 2"),
        (([2, 0], [4, 1], [4, 8]), "M = 4 must be 8 times a power of 2"),
        (([2, 0], [4, 1], [16, 4]), "N = 4 must be 8 times a power of 2"),
        (([3, 0], [4, 1], [16, 72, 16]), "N = 72 must be 8 times a power of 2"),
        (([2, 0], [4, 1], [16, 8], [[1, 0], [1, 0]]), "permutation matrix"),
        (([2, 0], [4, 1], [16, 8], [[1, 1]]), "permutation matrix"),
        (([2, 0], [4, 1], [16, 8], [[1, 0, 0]]), "coordinates"),
        (([2, 0], [4, 1], [16, 8], [[2, 0]]), "invalid cga_layout"),
    ],
)
def test_verifier_rule(args: tuple[Any, ...], rule: str) -> None:
    with pytest.raises(EncodingError, match=_escape(rule)):
        NVMMADistributedLayout(*args)


def _escape(text: str) -> str:
    import re

    return re.escape(text)


def test_wrong_types() -> None:
    with pytest.raises(LayoutTypeError):
        NVMMADistributedLayout(2, [4, 1], [16, 8])  # type: ignore[arg-type]
    with pytest.raises(LayoutTypeError):
        NVMMADistributedLayout([2, 0], [4, 1], "16x8")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("parent", "index", "k_width", "rule"),
    [
        (([2, 0], [4, 1], [16, 8]), 0, 0, "k_width (kWidth) is mandatory"),
        (([3, 0], [4, 1], [16, 64, 16]), 0, 0, "k_width (kWidth) is mandatory"),
        (([3, 0], [4, 1], [16, 64, 16]), 1, 2, "must be 0 for a Hopper MMA parent"),
        (([2, 0], [4, 1], [16, 8]), 0, 3, "k_width must be a power of 2"),
        (([2, 0], [4, 1], [16, 8]), 2, 2, "can be 0 or 1"),
    ],
)
def test_dot_operand_rule(parent: tuple[Any, ...], index: int, k_width: int, rule: str) -> None:
    with pytest.raises(EncodingError, match=_escape(rule)):
        DotOperandLayout(index, NVMMADistributedLayout(*parent), k_width)


def test_shape_rules() -> None:
    enc = NVMMADistributedLayout([2, 0], [4, 1], [16, 8])
    with pytest.raises(EncodingError, match="rank 2"):
        enc.to_linear_layout([64, 64, 64])
    with pytest.raises(EncodingError, match="powers of 2"):
        enc.to_linear_layout([48, 64])
    with pytest.raises(EncodingError, match="rank 2"):
        DotOperandLayout(0, enc, 2).to_linear_layout([64])


def test_ttgir_round_trip_and_legacy_cga() -> None:
    text = (
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
        "CGALayout = [[1, 0], [0, 1]], instrShape = [16, 8]}>"
    )
    enc, shape = parse_encoding(f"tensor<64x64xf16, {text}>")
    assert shape == [64, 64] and enc.ttgir() == text
    assert enc == NVMMADistributedLayout([2, 0], [2, 2], [16, 8], [[1, 0], [0, 1]])
    legacy = (
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
        "CTAsPerCGA = [2, 2], CTASplitNum = [2, 2], CTAOrder = [1, 0], instrShape = [16, 8]}>"
    )
    split = cga_from_split_params([2, 2], [2, 2], [1, 0])
    assert parse_encoding(legacy)[0] == NVMMADistributedLayout([2, 0], [2, 2], [16, 8], split)
    minor_default = (
        "#ttg.nvidia_mma<{versionMajor = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>"
    )
    assert parse_encoding(minor_default)[0].version == (3, 0)
    dot_text = f"#mma1 = #ttg.dot_op<{{opIdx = 0, parent = {text}, kWidth = 2}}>"
    dot_enc = parse_encoding(dot_text)[0]
    assert dot_enc.ttgir() == dot_text.split("= ", 1)[1]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "#ttg.nvidia_mma<{versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>",
            "versionMajor",
        ),
        ("#ttg.nvidia_mma<{versionMajor = 2, instrShape = [16, 8]}>", "warpsPerCTA"),
        ("#ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [4, 1]}>", "instrShape"),
        (
            "#ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [4, 1], instrShape = [16, 8], "
            "bogus = 1}>",
            "unknown field 'bogus'",
        ),
        (
            "#ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = 4, instrShape = [16, 8]}>",
            "list of ints",
        ),
        (
            "#ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}",
            "expected '>'",
        ),
        (
            "#ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [4, 1], CGALayout = [[1]], "
            "instrShape = [16, 8]}>",
            "coordinates",
        ),
        (
            "#ttg.nvidia_mma<{versionMajor = 5, warpsPerCTA = [4, 1], instrShape = [16, 8]}>",
            "versionMajor must be",
        ),
        (
            "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, "
            "warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>, kWidth = 2}>",
            "Hopper",
        ),
        (
            "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
            "warpsPerCTA = [4, 1], instrShape = [16, 8]}>}>",
            "mandatory",
        ),
    ],
)
def test_malformed_ttgir(text: str, message: str) -> None:
    with pytest.raises(TTGIRError, match=_escape(message)):
        parse_encoding(text)


def test_differential_cases_include_shapes_below_the_tile() -> None:
    """Issue 29 item 5: the Triton differential runs tensors smaller than the instruction
    tile (M below instrShape[0] or N below instrShape[1]) too (312 of 689 cases)."""

    def instr(encoding: Any) -> Any:
        return getattr(encoding, "instr_shape", None) or instr(encoding.parent)

    below = [
        s for kind, e, s in _differential_cases()
        if kind != "slice" and (s[-2] < instr(e)[0] or s[-1] < instr(e)[1])
    ]  # fmt: skip
    assert len(below) >= 300
    assert any(s[-2] == 1 for s in below) and any(s[-1] == 1 for s in below)
