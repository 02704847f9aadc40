"""NVMMAShared (``#ttg.nvmma_shared``, Gluon ``NVMMASharedLayout``): the TMA / wgmma swizzled
shared-memory encoding.

* Triton's LinearLayoutConversionsTest.cpp NVMMA shared cases (``LeadingOffset_*``,
  ``MMAv5Fp4Padded``, the tiled-mode shapes of ``NvmmaSharedToLinearLayout_TMAModeIndependence``)
  ported with their expected bases.
* Differential against Triton 3.9 (a worker in a subprocess: Triton aborts the process on
  invalid input): >= 300 generated valid parameter sets (every swizzle, element size,
  transposed, fp4Padded, ranks 1-4, CGA layouts, several TMA boxes, boxes smaller than the
  256 limit, shapes smaller than a CGA split) compared from the llverify object, the TTGIR
  text Triton prints and the Gluon object, plus generated invalid shapes both refuse.
* specs/nvmma_shared.py: the closed form, the CuTe swizzles (cross-checked with CUTLASS's
  pycute when installed) and the parametric family proved; negative controls refuted.
* One error test per verifier rule, and malformed TTGIR.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from math import prod
from typing import Any

import pytest

import llverify.encodings.nvmma_shared  # noqa: F401 - registers #ttg.nvmma_shared
from cases.triton import require_triton
from llverify import LinearLayout, prove_equal, prove_family_equal
from llverify.encodings import EncodingError, TTGIRError, parse_encoding, to_linear_layout
from llverify.encodings.gluon import from_gluon
from llverify.encodings.nvmma_shared import NVMMASharedLayout
from llverify.errors import LayoutTypeError
from llverify.ops import IntOps
from llverify.proof.formula import Formula
from llverify.specs.nvmma_shared import (
    CLOSED_FORM_OBLIGATIONS,
    CUTE_BYTE_SWIZZLES,
    CUTE_OBLIGATIONS,
    CUTE_ON_ELEMENTS_16B,
    CUTE_SWIZZLE,
    FAMILY_PROOFS,
    NVMMA_FAMILY_REFERENCE,
    NVMMA_PHASE_OFF_BY_ONE,
    NVMMA_REFERENCE,
    NVMMA_WIDE_ROWS,
    cute_element_swizzle,
    family_encoding,
    nvmma_params,
    nvmma_shared_2d,
)

SEED = int(os.environ.get("LLVERIFY_DIFF_SEED", "20250917"))
MIN_CASES = 300
#: Each invalid case aborts the Triton worker (a restart costs ~0.2 s).
INVALID_CASES = 30


def bases_dict(layout: LinearLayout) -> dict[str, list[list[int]]]:
    return {name: [list(b) for b in values] for name, values in layout.bases}


def nvmma(swizzle: int, transposed: bool, bitwidth: int, rank: int = 2, fp4: bool = False):
    return NVMMASharedLayout(swizzle, bitwidth, rank, transposed, fp4)


# ------------------------------------------- LinearLayoutConversionsTest.cpp ports

PORTED = [
    # LeadingOffset_8x16_4_2
    (nvmma(32, False, 16), [8, 16], [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8]]),
    # LeadingOffset_128x16_4_2
    (
        nvmma(32, False, 16),
        [128, 16],
        [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8], [8, 0], [16, 0], [32, 0], [64, 0]],
    ),  # fmt: skip
    # LeadingOffset_8x32_2_4
    (
        nvmma(64, False, 16),
        [8, 32],
        [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 8], [4, 16]],
    ),
    # LeadingOffset_8x64_1_8
    (
        nvmma(128, False, 16),
        [8, 64],
        [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]],
    ),
    # LeadingOffset_8x64_1_8_32b: two TMA boxes of 32 columns
    (
        nvmma(128, False, 32),
        [8, 64],
        [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [0, 32]],
    ),
    # LeadingOffset_128x128_1_8_128b_transposed
    (
        nvmma(128, True, 32),
        [128, 128],
        [
            [1, 0],
            [2, 0],
            [4, 0],
            [8, 0],
            [16, 0],
            [4, 1],
            [8, 2],
            [16, 4],
            [0, 8],
            [0, 16],
            [0, 32],
            [0, 64],
            [32, 0],
            [64, 0],
        ],
    ),  # fmt: skip
    # LeadingOffset_32x4x64_1_8_32b
    (
        nvmma(64, False, 32, rank=3),
        [32, 4, 64],
        [
            [0, 0, 1],
            [0, 0, 2],
            [0, 0, 4],
            [0, 0, 8],
            [0, 1, 0],
            [0, 2, 4],
            [1, 0, 8],
            [2, 0, 0],
            [4, 0, 0],
            [8, 0, 0],
            [16, 0, 0],
            [0, 0, 16],
            [0, 0, 32],
        ],
    ),  # fmt: skip
    # LeadingOffset_64x4x32_1_8_32b_transposed
    (
        nvmma(64, True, 32, rank=3),
        [64, 4, 32],
        [
            [1, 0, 0],
            [2, 0, 0],
            [4, 0, 0],
            [8, 0, 0],
            [0, 0, 4],
            [4, 0, 8],
            [8, 0, 16],
            [0, 1, 0],
            [0, 2, 0],
            [0, 0, 1],
            [0, 0, 2],
            [16, 0, 0],
            [32, 0, 0],
        ],
    ),  # fmt: skip
    # MMAv5Fp4Padded: offset 8 maps to the same indices as offset 0
    (
        nvmma(128, False, 8, fp4=True),
        [32, 64],
        [
            [0, 1],
            [0, 2],
            [0, 4],
            [0, 0],
            [0, 8],
            [0, 16],
            [0, 32],
            [1, 8],
            [2, 16],
            [4, 32],
            [8, 0],
            [16, 0],
        ],
    ),  # fmt: skip
]


@pytest.mark.parametrize(("enc", "shape", "offset"), PORTED)
def test_linear_layout_conversions_cases(enc: NVMMASharedLayout, shape: list[int], offset) -> None:
    layout = enc.to_linear_layout(shape)
    assert bases_dict(layout) == {"offset": offset, "block": []}
    assert layout.get_out_dim_sizes() == shape
    # the same through the TTGIR text
    assert to_linear_layout(enc.ttgir(), shape) == layout


@pytest.mark.parametrize("swizzle", [0, 32, 64, 128])
@pytest.mark.parametrize("rows", [512, 1024])
def test_tma_mode_independence_shapes(swizzle: int, rows: int) -> None:
    """NvmmaSharedToLinearLayout_TMAModeIndependence's shapes (tiled mode; im2col is not
    modeled): rows beyond the 256-row TMA box follow the box's rows, then the next box."""
    cols = 64 if swizzle == 0 else 128
    layout = nvmma(swizzle, False, 16).to_linear_layout([rows, cols])
    offset = bases_dict(layout)["offset"]
    if swizzle == 0:
        assert offset == [[0, 1 << c] for c in range(6)] + [
            [1 << r, 0] for r in range(rows.bit_length() - 1)
        ]
    else:
        box = swizzle // 2  # columns of one TMA box (swizzle bytes / 2 bytes)
        lbc, lr = box.bit_length() - 1, rows.bit_length() - 1
        assert [b[0] for b in offset[lbc : lbc + lr]] == [1 << r for r in range(lr)]
        # then the further TMA boxes: the outermost offset bits
        assert offset[lbc + lr :] == [[0, c] for c in (16, 32, 64) if c >= box]
        params = nvmma_params(swizzle, 16, rows)
        assert prove_equal(layout, NVMMA_REFERENCE, params=params).proved


def test_unswizzled_large_boxes() -> None:
    """Without swizzle the box is the shape clamped to 256 per dim, row-major, and further
    boxes grow the contiguous dim first (Triton 3.9 on [512, 1024])."""
    layout = nvmma(0, False, 16).to_linear_layout([512, 1024])
    assert bases_dict(layout)["offset"] == (
        [[0, 1 << c] for c in range(8)] + [[1 << r, 0] for r in range(8)]
        + [[0, 256], [0, 512], [256, 0]]
    )  # fmt: skip
    transposed = nvmma(0, True, 16).to_linear_layout([512, 1024])
    assert bases_dict(transposed)["offset"] == (
        [[1 << r, 0] for r in range(8)] + [[0, 1 << c] for c in range(10)] + [[256, 0]]
    )


def test_cga_split() -> None:
    enc = NVMMASharedLayout(128, 16, cga_layout=[[1, 0]])
    layout = enc.to_linear_layout([16, 64])
    single = NVMMASharedLayout(128, 16).to_linear_layout([8, 64])
    assert bases_dict(layout) == {"offset": bases_dict(single)["offset"], "block": [[8, 0]]}
    # a broadcast CTA holds the whole tensor
    broadcast = NVMMASharedLayout(64, 16, cga_layout=[[0, 0]]).to_linear_layout([8, 32])
    assert bases_dict(broadcast)["block"] == [[0, 0]]


def test_ttgir_text() -> None:
    assert NVMMASharedLayout(128, 16).ttgir() == (
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
    )
    assert NVMMASharedLayout(128, 8, transposed=True, fp4_padded=True).ttgir() == (
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8, "
        "fp4Padded = true}>"
    )
    assert NVMMASharedLayout(0, 32, rank=1).ttgir().endswith("elementBitWidth = 32, rank = 1}>")
    # the rank is read off the CGA bases when there are some
    assert (
        NVMMASharedLayout(64, 16, rank=3, cga_layout=[[0, 1, 0]])
        .ttgir()
        .endswith("elementBitWidth = 16, CGALayout = [[0, 1, 0]]}>")
    )


def test_parse_ttgir() -> None:
    for enc in (
        NVMMASharedLayout(128, 16),
        NVMMASharedLayout(32, 64, transposed=True),
        NVMMASharedLayout(128, 8, fp4_padded=True, cga_layout=[[0, 1], [0, 0]]),
        NVMMASharedLayout(0, 8, rank=1),
        NVMMASharedLayout(64, 32, rank=4, cga_layout=[[0, 0, 1, 0]]),
        NVMMASharedLayout(64, 32, rank=3),
    ):
        assert parse_encoding(enc.ttgir())[0] == enc
    # a memdesc-like tensor type carries the shape; the defaults can be left out
    text = "tensor<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 64, elementBitWidth = 16}>>"
    enc, shape = parse_encoding(text)
    assert enc == NVMMASharedLayout(64, 16) and shape == [64, 64]
    rank3 = parse_encoding(
        "#ttg.nvmma_shared<{swizzlingByteWidth = 0, elementBitWidth = 8, rank = 3, "
        "CGALayout = [[0, 0, 1]]}>"
    )[0]
    assert rank3 == NVMMASharedLayout(0, 8, rank=3, cga_layout=[[0, 0, 1]])


# ------------------------------------------------------------------ differential

WORKER = r"""
import json, sys
def main():
    from triton._C.libtriton import gluon_ir, ir
    from triton.experimental.gluon import language as ttgl
    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    for case in json.loads(sys.stdin.read()):
        try:
            layout = eval(case["layout"], {"ttgl": ttgl})
            attr = layout._to_ir(builder)
            ll = builder.to_linear_layout(attr, case["shape"])
            bases = {"offset": ll.offset_bases, "block": ll.block_bases}
            text = str(builder.get_shared_mem_desc_ty(
                builder.get_half_ty(), case["shape"], attr, case["shape"]))
            start = text.index("#ttg.nvmma_shared")
            ttgir = text[start : text.index("}>", start) + 2]
            print(json.dumps({"bases": bases, "ttgir": ttgir}), flush=True)
        except Exception as error:
            print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
main()
"""


def run_worker(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Triton's bases and printed attribute per case; {"abort": stderr} where Triton killed
    the process (it is restarted on the next case)."""
    require_triton()
    done: list[dict[str, Any]] = []
    while len(done) < len(cases):
        remaining = cases[len(done) :]
        result = subprocess.run(
            [sys.executable, "-c", WORKER],
            input=json.dumps(remaining),
            capture_output=True,
            text=True,
        )
        lines = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
        done.extend(lines)
        if len(lines) < len(remaining):
            stderr = "\n".join(x for x in result.stderr.splitlines() if "leak" not in x)
            done.append({"abort": stderr[-800:]})
    return done


def gluon_expr(enc: NVMMASharedLayout) -> str:
    return (
        f"ttgl.NVMMASharedLayout({enc.swizzle_byte_width}, {enc.element_bitwidth}, "
        f"rank={enc.rank}, transposed={enc.transposed}, fp4_padded={enc.fp4_padded}, "
        f"cga_layout={[list(b) for b in enc.cga_layout]})"
    )


def triton_accepts(enc: NVMMASharedLayout, shape: list[int]) -> bool:
    """The TMA rules written out here (independently of the converter): Triton's
    getTMABlockShape and buildNvmmaSharedLinearLayout checks, and Gluon's refusal of a
    layout without offset bits."""
    split = [1] * enc.rank
    for basis in enc.cga_layout:
        for d, v in enumerate(basis):
            split[d] *= 2 if v else 1
    per_cta = [s // min(s, k) for s, k in zip(shape, split)]
    if prod(per_cta) == 1:
        return False  # Gluon: "SharedLinearLayout offset_bases must not be empty"
    if enc.swizzle_byte_width == 0:
        return True
    if enc.rank < 2:
        return False
    contig = 0 if enc.transposed else enc.rank - 1
    box = [min(s, 256) for s in per_cta]
    box[contig] = min(per_cta[contig] * (2 if enc.fp4_padded else 1), 256)
    if box[contig] < 8 * enc.swizzle_byte_width // enc.element_bitwidth:
        return False
    rows = box[-1] if enc.transposed else prod(box[:-1])
    return rows >= 8


def random_cga(rng: random.Random, rank: int) -> list[list[int]]:
    if rng.random() < 0.65:
        return []
    bases, used = [], [0] * rank
    for _ in range(rng.randint(1, 3)):
        basis = [0] * rank
        if rng.random() > 0.2:  # else a broadcast basis
            d = rng.randrange(rank)
            basis[d] = 1 << used[d]
            used[d] += 1
        bases.append(basis)
    rng.shuffle(bases)
    return bases


def random_case(rng: random.Random) -> tuple[NVMMASharedLayout, list[int]]:
    swizzle = rng.choice([0, 32, 64, 128, 128])
    bitwidth = rng.choice([8, 16, 32, 64])
    fp4 = swizzle == 128 and bitwidth == 8 and rng.random() < 0.7
    rank = rng.choice([2, 2, 2, 2, 3, 3, 4] + ([1] if swizzle == 0 else []))
    transposed = rng.random() < 0.4
    enc = NVMMASharedLayout(swizzle, bitwidth, rank, transposed, fp4, random_cga(rng, rank))
    contig = 0 if transposed else rank - 1
    box_log2 = (8 * max(swizzle, 16) // bitwidth).bit_length() - 1 - (1 if fp4 else 0)
    budget = rng.choice([10, 12, 14, 16, 16, 19])
    logs = [rng.randint(0, 9 if rank <= 2 else 5) for _ in range(rank)]
    logs[contig] = box_log2 + rng.choice([0, 0, 0, 1, 2, 3, -1])  # 1-8 boxes, or too narrow
    while sum(logs) > budget:
        d = rng.randrange(rank)
        logs[d] = max(0, logs[d] - 1)
    return enc, [1 << v for v in logs]


def generate_cases() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(SEED)
    valid: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    fixed = [  # shapes with rows beyond one 256-row box, several boxes, big unswizzled boxes
        (nvmma(swz, t, 16), shape)
        for swz in (0, 32, 64, 128)
        for t in (False, True)
        for shape in ([512, 128], [1024, 256], [128, 1024], [512, 1024])
    ]
    fixed += [  # fp4-padded with CTA splits
        (NVMMASharedLayout(128, 8, fp4_padded=True, cga_layout=[[1, 0]]), [16, 64]),
        (
            NVMMASharedLayout(128, 8, transposed=True, fp4_padded=True, cga_layout=[[0, 1]]),
            [64, 16],
        ),
        (
            NVMMASharedLayout(128, 8, 3, fp4_padded=True, cga_layout=[[0, 0, 1], [0, 0, 0]]),
            [2, 4, 128],
        ),
    ]
    for enc, shape in fixed:
        valid.append({"enc": enc, "shape": shape})
    while len(valid) < MIN_CASES + 60 or len(invalid) < INVALID_CASES:
        enc, shape = random_case(rng)
        case = {"enc": enc, "shape": shape}
        if triton_accepts(enc, shape):
            valid.append(case)
        elif len(invalid) < INVALID_CASES and prod(shape) > 1:
            invalid.append(case)
    return valid, invalid


def compare(case: dict[str, Any], result: dict[str, Any], ttgl: Any) -> str | None:
    enc, shape = case["enc"], case["shape"]
    if "bases" not in result:
        return f"Triton refused: {result}"
    mine = enc.to_linear_layout(shape)
    if bases_dict(mine) != result["bases"]:
        return f"bases {bases_dict(mine)} != Triton {result['bases']}"
    if enc.ttgir() != result["ttgir"]:
        return f"ttgir {enc.ttgir()!r} != Triton {result['ttgir']!r}"
    parsed, _ = parse_encoding(result["ttgir"])
    if parsed != enc or to_linear_layout(result["ttgir"], shape) != mine:
        return f"Triton's text parses to {parsed!r}"
    gluon = eval(gluon_expr(enc), {"ttgl": ttgl})  # noqa: S307 - generated here
    if from_gluon(gluon) != enc or to_linear_layout(gluon, shape) != mine:
        return f"the Gluon object gives {from_gluon(gluon)!r}"
    return None


@pytest.fixture(scope="module")
def differential() -> dict[str, Any]:
    valid, invalid = generate_cases()
    results = run_worker(
        [{"layout": gluon_expr(c["enc"]), "shape": c["shape"]} for c in valid + invalid]
    )
    ttgl = pytest.importorskip("triton.experimental.gluon.language")
    for case, result in zip(valid, results):
        case["mismatch"] = compare(case, result, ttgl)
    for case, result in zip(invalid, results[len(valid) :]):
        case["triton"] = result
        try:
            case["enc"].to_linear_layout(case["shape"])
            case["mine"] = None
        except EncodingError as error:
            case["mine"] = str(error)
    return {"valid": valid, "invalid": invalid}


@pytest.mark.triton
def test_differential_vs_triton(differential: dict[str, Any]) -> None:
    valid = differential["valid"]
    bad = [(gluon_expr(c["enc"]), c["shape"], c["mismatch"]) for c in valid if c["mismatch"]]
    assert not bad, f"{len(bad)} of {len(valid)} cases differ, e.g. {bad[:3]}"
    assert len(valid) >= MIN_CASES
    encs = [c["enc"] for c in valid]
    assert {e.swizzle_byte_width for e in encs} == {0, 32, 64, 128}
    assert {e.element_bitwidth for e in encs} == {8, 16, 32, 64}
    assert {(e.swizzle_byte_width, e.element_bitwidth) for e in encs if e.swizzle_byte_width} == {
        (s, b) for s in (32, 64, 128) for b in (8, 16, 32, 64)
    }
    assert {e.rank for e in encs} == {1, 2, 3, 4}
    assert sum(e.transposed for e in encs) >= 60
    assert sum(e.fp4_padded for e in encs) >= 8
    assert sum(bool(e.cga_layout) for e in encs) >= 60
    assert sum(any(not any(b) for b in e.cga_layout) for e in encs) >= 10  # broadcast CTAs
    assert sum(e.fp4_padded and bool(e.cga_layout) for e in encs) >= 3
    # shapes smaller than the CTA split along a dim (a CTA gets a size-1 share)
    assert sum(any(s < k for s, k in zip(c["shape"], c["enc"].cta_split())) for c in valid) >= 5

    def boxes(case: dict[str, Any]) -> int:
        enc, shape = case["enc"], case["shape"]
        if not enc.swizzle_byte_width:
            return 1
        per_cta = enc.shape_per_cta(shape)
        return (
            per_cta[enc.contig_dim]
            * (1 + enc.fp4_padded)
            * enc.element_bitwidth
            // (8 * enc.swizzle_byte_width)
        )

    assert sum(boxes(c) > 1 for c in valid) >= 60  # several TMA boxes
    assert sum(boxes(c) == 1 for c in valid if c["enc"].swizzle_byte_width) >= 60
    swizzled = [c for c in valid if c["enc"].swizzle_byte_width]
    assert sum(max(c["shape"]) < 256 for c in swizzled) >= 60  # boxes below the 256 limit


@pytest.mark.triton
def test_invalid_shapes_refused_by_both(differential: dict[str, Any]) -> None:
    """Shapes the TMA rules refuse: Triton aborts, llverify raises EncodingError."""
    invalid = differential["invalid"]
    assert len(invalid) == INVALID_CASES
    bad = [
        (gluon_expr(c["enc"]), c["shape"], c["mine"], c["triton"])
        for c in invalid
        if "bases" in c["triton"] or c["mine"] is None
    ]
    assert not bad, bad[:3]
    rules = {
        "too small for the swizzle byte size": 0,
        "Illegal shared layout": 0,
    }
    for case in invalid:
        for rule in rules:
            rules[rule] += rule in case["mine"]
    assert rules["too small for the swizzle byte size"] >= 8, rules
    assert rules["Illegal shared layout"] >= 5, rules


# ------------------------------------------------------------------ references


def test_closed_form_obligations() -> None:
    """REFERENCES.md section 3 closed form equals the converter on every swizzle mode and
    element size, 1-8 boxes, 8-512 rows, transposed."""
    assert len(CLOSED_FORM_OBLIGATIONS) == 72
    for ob in CLOSED_FORM_OBLIGATIONS:
        layout = nvmma(ob.swizzle, ob.transposed, ob.bitwidth).to_linear_layout(list(ob.shape))
        verdict = prove_equal(layout, ob.reference, params=ob.params)
        assert verdict.proved, (ob.name, str(verdict))


def _drop_block(layout: LinearLayout) -> LinearLayout:
    return layout.sublayout(["offset"], layout.get_out_dim_names())


def test_cute_swizzle_obligations() -> None:
    """Each swizzle mode (32/64/128 B) and element size (8-64 bits), K- and MN-major: the
    NVMMA layout is CuTe's Swizzle composed with the row-major tile (boxes outermost), in
    both directions and with CUTLASS's byte-address form Swizzle<B,4,3>."""
    assert len(CUTE_OBLIGATIONS) == 48
    for ob in CUTE_OBLIGATIONS:
        layout = _drop_block(
            nvmma(ob.swizzle, ob.transposed, ob.bitwidth).to_linear_layout(list(ob.shape))
        )
        for reference, target in (
            (ob.forward(), layout),
            (ob.forward(byte_addresses=True), layout),
            (ob.inverse(), layout.invert()),
        ):
            verdict = prove_equal(target, reference, method="linear")
            assert verdict.proved, (ob.name, reference, str(verdict))


def test_cute_swizzle_against_pycute() -> None:
    """CUTLASS's own pycute.Swizzle / ComposedLayout, evaluated on every address, against
    the CUTE_SWIZZLE formula and the converter's inverse."""
    pycute = pytest.importorskip("pycute", reason="pycute (pip install nvidia-cutlass) missing")
    formula = Formula(CUTE_SWIZZLE)
    ops = IntOps()
    for swizzle in (32, 64, 128):
        for bitwidth in (8, 16, 32, 64):
            forms = {CUTE_BYTE_SWIZZLES[swizzle], cute_element_swizzle(swizzle, bitwidth)}
            for b, m, s in forms:
                theirs = pycute.Swizzle(b, m, s)
                for x in range(1 << (b + m + s + 1)):
                    env = {"x": x, "B": b, "M": m, "S": s}
                    assert formula.evaluate(ops, env) == theirs(x), (b, m, s, x)
            rows, box = 64, 8 * swizzle // bitwidth
            nbytes = bitwidth // 8
            inverse = _drop_block(
                nvmma(swizzle, False, bitwidth).to_linear_layout([rows, box])
            ).invert()
            by_bytes = pycute.ComposedLayout(
                pycute.Swizzle(*CUTE_BYTE_SWIZZLES[swizzle]), 0,
                pycute.Layout((rows, box), (box * nbytes, nbytes)),
            )  # fmt: skip
            by_elements = pycute.ComposedLayout(
                pycute.Swizzle(*cute_element_swizzle(swizzle, bitwidth)), 0,
                pycute.Layout((rows, box), (box, 1)),
            )  # fmt: skip
            for row in range(rows):
                for col in range(box):
                    offset = inverse.apply({"dim0": row, "dim1": col})["offset"]
                    assert by_bytes(row, col) == offset * nbytes, (swizzle, bitwidth, row, col)
                    assert by_elements(row, col) == offset, (swizzle, bitwidth, row, col)


def test_negative_controls() -> None:
    """Historical mistakes, each refuted with a counterexample offset."""
    # CUTLASS's Swizzle<3,4,3> applied to 16-bit element addresses instead of bytes
    layout = nvmma(128, False, 16).to_linear_layout([8, 64])
    b, m, s = CUTE_BYTE_SWIZZLES[128]
    wrong = CUTE_ON_ELEMENTS_16B
    assert (b, m, s) == (3, 4, 3) and cute_element_swizzle(128, 16) == (3, 3, 3)
    from llverify.specs.nvmma_shared import cute_swizzle_text

    address = cute_swizzle_text("offset", b, m, s)
    verdict = prove_equal(layout, {"dim0": f"{address} >> 6", "dim1": f"{address} & 63"})
    assert verdict.refuted and verdict.counterexample is not None
    assert set(verdict.counterexample) == {"offset", "block"}
    assert wrong.box_cols == 64
    # perPhase doubled
    big = nvmma(128, False, 16).to_linear_layout([64, 64])
    verdict = prove_equal(big, NVMMA_PHASE_OFF_BY_ONE, params=nvmma_params(128, 16, 64))
    assert verdict.refuted and verdict.counterexample and verdict.counterexample["offset"]
    # several boxes read as one long row
    boxes = nvmma(64, False, 16).to_linear_layout([64, 128])
    params = {k: v for k, v in nvmma_params(64, 16, 64).items() if k in ("lp", "lm", "lv")}
    verdict = prove_equal(boxes, NVMMA_WIDE_ROWS, params={**params, "lc": 7})
    assert verdict.refuted and verdict.counterexample and verdict.counterexample["offset"]
    # transposed the wrong way
    transposed = nvmma(128, True, 16).to_linear_layout([64, 64])
    verdict = prove_equal(transposed, NVMMA_REFERENCE, params=nvmma_params(128, 16, 64))
    assert verdict.refuted and verdict.counterexample and verdict.counterexample["offset"]


def test_family_members_equal_converter() -> None:
    """nvmma_shared_2d's instances equal the converter (a sample of its 4376 members, and
    every member of up to 2**10 elements)."""
    family = nvmma_shared_2d()
    rng = random.Random(SEED)
    members = list(family.members())
    assert len(members) == 4376
    sample = [p for p in members if p["l0"] + p["l1"] <= 6] + rng.sample(members, 250)
    for params in sample:
        kwargs, shape = family_encoding(params)
        mine = NVMMASharedLayout(**kwargs).to_linear_layout(shape)  # type: ignore[arg-type]
        want = family.instance(**params)
        assert bases_dict(mine)["offset"] == bases_dict(want)["offset"], params
        assert mine.get_out_dim_sizes() == want.get_out_dim_sizes(), params


def test_family_proofs() -> None:
    """Parametric proofs over all legal 2-D members (<= 2**20 elements)."""
    start = time.perf_counter()
    for proof in FAMILY_PROOFS:
        verdict = prove_family_equal(nvmma_shared_2d(constraint=proof.constraint), proof.reference)
        assert verdict.proved, (proof.name, str(verdict))
        assert verdict.method == "parametric-linear"
    assert time.perf_counter() - start < 30


def test_family_negative_control() -> None:
    """The general closed form with the growth order of the extra bits flipped is refuted
    with a member and an offset (rows beyond 256 of a transposed swizzled layout)."""
    flipped = {
        o: f.replace("((1 if s > 0 else 0) == t)", "((1 if s > 0 else 0) != t)")
        for o, f in NVMMA_FAMILY_REFERENCE.items()
    }
    verdict = prove_family_equal(nvmma_shared_2d(), flipped)
    assert verdict.refuted, str(verdict)
    cx = verdict.counterexample
    assert cx is not None and "offset" in cx
    kwargs, shape = family_encoding({k: cx[k] for k in ("lb", "s", "t", "f", "l0", "l1")})
    layout = NVMMASharedLayout(**kwargs).to_linear_layout(shape)  # type: ignore[arg-type]
    assert layout.apply({"offset": cx["offset"], "block": 0}) == verdict.actual


# ------------------------------------------------------------------ verifier rules


N = NVMMASharedLayout
SWZ_WIDTH = "swizzlingByteWidth must be 0, 32, 64, or 128"
BITWIDTH = r"element_bitwidth must be one of \[8, 16, 32, 64\]"
NARROW = "too small for the swizzle byte size"
FEW_ROWS = r"Illegal shared layout; expected collapsed shapePerCTA to be at least \[8, 64\]"


def _ll(enc: NVMMASharedLayout, shape: list[int]) -> Any:
    return lambda: enc.to_linear_layout(shape)


@pytest.mark.parametrize(
    ("rule", "build"),
    [
        (SWZ_WIDTH, lambda: N(16, 16)),
        (SWZ_WIDTH, lambda: N(256, 8)),
        (BITWIDTH, lambda: N(128, 4)),
        (BITWIDTH, lambda: N(32, 0)),
        ("fp4_padded only supports 128 byte swizzling", lambda: N(64, 8, fp4_padded=True)),
        (
            "fp4_padded is only supported for element_bitwidth=8",
            lambda: N(128, 16, fp4_padded=True),
        ),
        ("rank must be at least 1", lambda: N(0, 16, rank=0)),
        ("must have 2 coordinates", lambda: N(128, 16, cga_layout=[[1, 0, 0]])),
        ("permutation matrix", lambda: N(128, 16, cga_layout=[[1, 0], [1, 0]])),
        ("permutation matrix", lambda: N(128, 16, cga_layout=[[1, 1]])),
        ("invalid cga_layout", lambda: N(128, 16, cga_layout=[[2, 0]])),
        # the TMA box narrower than the swizzle (Triton: getTMABlockShape failed)
        (f"{NARROW} 128", _ll(nvmma(128, False, 16), [8, 32])),
        (f"{NARROW} 32", _ll(nvmma(32, True, 64), [2, 64])),
        (f"{NARROW} 128", _ll(nvmma(128, False, 8, fp4=True), [8, 32])),
        # ... or the CTA's share of it (2 CTAs along the columns)
        (NARROW, _ll(N(128, 16, cga_layout=[[0, 1]]), [8, 64])),
        # fewer than 8 rows (Triton: Illegal shared layout)
        (FEW_ROWS, _ll(nvmma(128, False, 16), [4, 64])),
        ("Illegal shared layout", _ll(nvmma(64, True, 16, rank=3), [32, 8, 4])),
        ("needs rank >= 2", _ll(nvmma(128, False, 16, rank=1), [64])),
        ("positive powers of 2", _ll(nvmma(128, False, 16), [64, 48])),
        ("positive powers of 2", _ll(nvmma(0, False, 16), [0, 64])),
        ("must have the encoding's rank 2", _ll(nvmma(128, False, 16), [2, 64, 64])),
    ],
)
def test_verifier_rules(rule: str, build: Any) -> None:
    with pytest.raises(EncodingError, match=rule) as info:
        build()
    assert "NVMMASharedLayout" in str(info.value)


def test_gluon_defaults() -> None:
    """Gluon's defaults: rank 2, not transposed, no fp4 padding, no CGA (None too)."""
    enc = NVMMASharedLayout(128, 16)
    assert (enc.rank, enc.transposed, enc.fp4_padded, enc.cga_layout) == (2, False, False, ())
    assert NVMMASharedLayout(128, 16, cga_layout=None) == enc  # type: ignore[arg-type]
    assert (enc.vec, enc.per_phase, enc.max_phase) == (8, 1, 8)
    assert (NVMMASharedLayout(0, 16).vec, NVMMASharedLayout(0, 16).max_phase) == (1, 1)


def test_type_errors() -> None:
    with pytest.raises(LayoutTypeError, match="'transposed' must be a bool"):
        NVMMASharedLayout(128, 16, transposed=1)  # type: ignore[arg-type]
    with pytest.raises(LayoutTypeError, match="'swizzle_byte_width' must be an int"):
        NVMMASharedLayout("128", 16)  # type: ignore[arg-type]
    with pytest.raises(LayoutTypeError, match="'cga_layout' must be a list of bases"):
        NVMMASharedLayout(128, 16, cga_layout="[[1, 0]]")  # type: ignore[arg-type]


_ATTR = "#ttg.nvmma_shared<{{{}}}>"


SW128 = "swizzlingByteWidth = 128"
UNSIGNED = "must be an unsigned integer"


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ("transposed = false, elementBitWidth = 16", "missing field 'swizzlingByteWidth'"),
        (f"{SW128}, transposed = false", "missing field 'elementBitWidth'"),
        (f"{SW128}, elementBitWidth = 16, swizzle = 1", "unknown field 'swizzle'"),
        (f"{SW128}, transposed = 1, elementBitWidth = 16", "'transposed' must be true or false"),
        ("swizzlingByteWidth = true, elementBitWidth = 16", f"'swizzlingByteWidth' {UNSIGNED}"),
        ("swizzlingByteWidth = 48, elementBitWidth = 16", SWZ_WIDTH),
        (f"{SW128}, elementBitWidth = 4", "element_bitwidth must be one of"),
        ("swizzlingByteWidth = 64, elementBitWidth = 8, fp4Padded = true", "fp4_padded only"),
        ("swizzlingByteWidth = 0, elementBitWidth = 8, rank = 3, CGALayout = [[1, 0]]", "3 coord"),
        (f"{SW128}, elementBitWidth = 16, rank = -1", f"'rank' {UNSIGNED}"),
    ],
)
def test_malformed_ttgir(fields: str, pattern: str) -> None:
    with pytest.raises(TTGIRError, match=pattern) as info:
        parse_encoding(_ATTR.format(fields))
    assert "#ttg.nvmma_shared" in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, elementBitWidth = 16}",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128 elementBitWidth = 16}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, elementBitWidth = 16}> extra",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, swizzlingByteWidth = 128}>",
    ],
)
def test_malformed_ttgir_syntax(text: str) -> None:
    with pytest.raises(TTGIRError):
        parse_encoding(text)
