"""The ``dot-operand-fragment`` audit rule: every register operand of ``tt.dot`` /
``ttng.warp_group_dot`` proved equal to the fragments of the instruction Triton 3.9 selects
(specs/ closed forms), on the real fixtures (tests/data/ttgir) and on hand-written positive
and negative controls; every counterexample is replayed here on the operand's layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from llverify.audit.analyze import audit
from llverify.audit.context import Severity
from llverify.audit.dot_operands import (
    FRAGMENT,
    Instruction,
    k_packed_instruction,
    operand_instruction,
    permute_k,
)
from llverify.encodings import to_linear_layout
from llverify.encodings.blocked import DistributedLinearLayout
from llverify.proof.verdict import Status

DATA = Path(__file__).parent / "data" / "ttgir"

#: fixture -> register operands of its dots (each proved); warp_group_dot memdesc operands
#: are read from shared memory and have no register fragment
FIXTURE_OPERANDS = {
    "attn_fwd_fp16_sm80.ttgir": 4,
    "attn_fwd_fp16_sm90.ttgir": 1,
    "big_2000.ttgir": 128,
    "matmul_fp16_gfx942.ttgir": 4,
    "matmul_fp16_gfx950.ttgir": 4,
    "matmul_fp16_sm80.ttgir": 8,
    "matmul_int8_sm80.ttgir": 8,
}

MMA_V2 = (
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>"
)
WGMMA = (
    "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
    "instrShape = [16, 64, 16]}>"
)


WMMA_V2 = "#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = [[0, 1], [1, 0]]}}>"


def _dot_op(index: int, parent: str, k_width: int) -> str:
    return f"#ttg.dot_op<{{opIdx = {index}, parent = {parent}, kWidth = {k_width}}}>"


def _audit(
    a: str,
    b: str,
    result: str,
    shapes: tuple[str, str, str],
    element: str = "f16",
    acc: str = "f32",
    target: str = "cuda:80",
    threads: int = 32,
    override: str | None = None,
) -> list[Any]:
    """The rule's findings on a module with one ``tt.dot`` (4 warps)."""
    text = (
        f'module attributes {{"ttg.num-warps" = 4 : i32, ttg.target = "{target}", '
        f'"ttg.threads-per-warp" = {threads} : i32}} {{\n'
        f"  %c = tt.dot %a, %b, %acc : tensor<{shapes[0]}x{element}, {a}> * "
        f"tensor<{shapes[1]}x{element}, {b}> -> tensor<{shapes[2]}x{acc}, {result}>\n}}"
    )
    report = audit(text, target=override)
    assert report.refused is None
    assert not [s for s in report.skips if s.rule == FRAGMENT]
    return [f for f in report.findings if f.rule == FRAGMENT]


def _one(findings: list[Any]) -> Any:
    assert len(findings) == 1
    return findings[0]


def _shape(text: str) -> list[int]:
    return [int(s) for s in text.split("x")]


# ---------------------------------------------------------------------- real fixtures


@pytest.mark.parametrize("name", sorted(FIXTURE_OPERANDS))
def test_fixture_operands_proved(name: str) -> None:
    report = audit((DATA / name).read_text())
    findings = [f for f in report.findings if f.rule == FRAGMENT]
    operands = [o for f in findings for o in f.data["operands"]]
    assert len(operands) == FIXTURE_OPERANDS[name]
    assert all(f.status == Status.PROVED for f in findings), [f.summary for f in findings]
    assert all(o["status"] == Status.PROVED for o in operands)
    assert {s.reason for s in report.skips if s.rule == FRAGMENT} <= {SHARED_ONLY}


SHARED_ONLY = "wgmma reads both operands from shared memory: no register fragment"


def test_fixtures_without_register_operands() -> None:
    """Every other fixture: no register dot operand, so no finding; a wgmma with both
    operands in shared memory is listed as not checked, with the reason."""
    for path in sorted(DATA.glob("*.ttgir")):
        if path.name in FIXTURE_OPERANDS or "transpose_fp16_gfx942" in path.name:
            continue
        report = audit(path.read_text())
        assert not [f for f in report.findings if f.rule == FRAGMENT], path.name
        reasons = {s.reason for s in report.skips if s.rule == FRAGMENT}
        assert reasons <= {SHARED_ONLY}, path.name


def test_an_fma_dot_is_not_checked_not_unknown() -> None:
    blocked = (
        "#ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
        "order = [1, 0]}>"
    )
    a = f"#ttg.dot_op<{{opIdx = 0, parent = {blocked}}}>"
    b = f"#ttg.dot_op<{{opIdx = 1, parent = {blocked}}}>"
    text = (
        'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", '
        '"ttg.threads-per-warp" = 32 : i32} {\n'
        f"  %c = tt.dot %a, %b, %acc : tensor<64x16xf32, {a}> * tensor<16x32xf32, {b}> -> "
        f"tensor<64x32xf32, {blocked}>\n}}"
    )
    report = audit(text)
    assert not [f for f in report.findings if f.rule == FRAGMENT]
    (skip,) = [s for s in report.skips if s.rule == FRAGMENT]
    assert "FMA" in skip.reason


# ---------------------------------------------------------------------- positive controls

POSITIVE = [
    # (a, b, result, shapes, element, acc, target, threads, --target)
    (_dot_op(0, MMA_V2, 2), _dot_op(1, MMA_V2, 2), MMA_V2, ("64x32", "32x64", "64x64"),
     "f16", "f32", "cuda:80", 32, None),
    (_dot_op(0, MMA_V2, 2), _dot_op(1, MMA_V2, 2), MMA_V2, ("32x16", "16x32", "32x32"),
     "bf16", "f32", "cuda:80", 32, None),
    (_dot_op(0, MMA_V2, 4), _dot_op(1, MMA_V2, 4), MMA_V2, ("64x64", "64x64", "64x64"),
     "i8", "i32", "cuda:80", 32, None),
    (_dot_op(0, MMA_V2, 1), _dot_op(1, MMA_V2, 1), MMA_V2, ("32x16", "16x32", "32x32"),
     "f32", "f32", "cuda:80", 32, None),
]  # fmt: skip
MFMA = (
    "#ttg.amd_mfma<{{version = {v}, warpsPerCTA = [2, 2], instrShape = {i}, isTransposed = true}}>"
)
for _v, _instr, _kw, _shapes in (
    (3, "[32, 32, 8]", 4, ("64x64", "64x128", "64x128")),
    (3, "[16, 16, 16]", 4, ("32x64", "64x32", "32x32")),
    (4, "[32, 32, 16]", 8, ("64x32", "32x64", "64x64")),
):
    _p = MFMA.format(v=_v, i=_instr)
    _t = "hip:gfx942" if _v == 3 else "hip:gfx950"
    POSITIVE.append(
        (_dot_op(0, _p, _kw), _dot_op(1, _p, _kw), _p, _shapes, "f16", "f32", _t, 64, None)
    )
for _v, _kw, _e in ((1, 16, "f16"), (1, 8, "i8"), (2, 4, "f16"), (2, 8, "i8")):
    _p = (
        f"#ttg.amd_wmma<{{version = {_v}, isTranspose = false, "
        "ctaLayout = {warp = [[0, 1], [1, 0]]}}>"
    )
    _acc = "f32" if _e == "f16" else "i32"
    POSITIVE.append(
        (
            _dot_op(0, _p, _kw),
            _dot_op(1, _p, _kw),
            _p,
            ("64x32", "32x64", "64x64"),
            _e,
            _acc,
            "hip:gfx1100",
            32,
            "gfx942",
        )
    )  # noqa: E501


@pytest.mark.parametrize("case", POSITIVE, ids=lambda c: f"{c[2][5:15]}-{c[4]}-{c[3][0]}")
def test_positive_controls(case: tuple[Any, ...]) -> None:
    a, b, result, shapes, element, acc, target, threads, override = case
    finding = _one(_audit(a, b, result, shapes, element, acc, target, threads, override))
    assert finding.status == Status.PROVED, finding.summary
    assert [o["status"] for o in finding.data["operands"]] == [Status.PROVED] * 2
    assert "proved for this instance" in finding.summary


def test_wgmma_register_a_proved_b_from_shared() -> None:
    text = (
        "#s = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
        "elementBitWidth = 16}>\n"
        "#smem = #ttg.shared_memory\n"
        'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
        '"ttg.threads-per-warp" = 32 : i32} {\n'
        f"  %c = ttng.warp_group_dot %a, %b, %acc : tensor<64x64xf16, {_dot_op(0, WGMMA, 2)}> * "
        f"!ttg.memdesc<64x64xf16, #s, #smem> -> tensor<64x64xf32, {WGMMA}>\n}}"
    )
    finding = _one([f for f in audit(text).findings if f.rule == FRAGMENT])
    assert finding.status == Status.PROVED
    assert [o["operand"] for o in finding.data["operands"]] == [0]
    assert finding.data["operands"][0]["instruction"] == "wgmma.m64nNk16 .f16 A"


# ---------------------------------------------------------------------- negative controls


def _replay_mismatch(finding: Any, encoding: str, shape: list[int], index: int) -> None:
    """The counterexample: the operand's layout gives ``encoding_gives`` at ``input``, and
    the instruction's closed form there is ``instruction_needs``, and they differ."""
    report = finding.data["operands"][index]
    cex = report["counterexample"]
    layout = to_linear_layout(encoding, shape)
    point = {d: cex["input"].get(d, 0) for d in layout.get_in_dim_names()}
    assert layout.apply(point) == cex["encoding_gives"]
    assert cex["encoding_gives"] != cex["instruction_needs"]


def test_wrong_k_width_is_an_error() -> None:
    a, b = _dot_op(0, MMA_V2, 1), _dot_op(1, MMA_V2, 1)  # f16 needs kWidth 2
    finding = _one(_audit(a, b, MMA_V2, ("64x32", "32x64", "64x64")))
    assert finding.status == Status.ERROR
    assert "kWidth 1 does not fit mma.m16n8k16 .f16 A, which needs kWidth 2" in finding.summary
    _replay_mismatch(finding, a, [64, 32], 0)
    _replay_mismatch(finding, b, [32, 64], 1)


def test_k_width_too_large_for_k_holds_register_copies() -> None:
    """8-bit mma.m16n8k32 with kWidth 4 tiles K = 32; on K = 16 the upper K half of every
    instruction repeats the lower one: registers 0 and 8 hold the same element."""
    a, b = _dot_op(0, MMA_V2, 4), _dot_op(1, MMA_V2, 4)
    finding = _one(_audit(a, b, MMA_V2, ("64x16", "16x64", "64x64"), "i8", "i32"))
    assert finding.status == Status.ERROR
    for index, (encoding, shape) in enumerate(((a, [64, 16]), (b, [16, 64]))):
        copies = finding.data["operands"][index]["copies"]
        layout = to_linear_layout(encoding, shape)
        first, second = copies["inputs"]
        assert first["register"] != second["register"] and first["lane"] == second["lane"]
        assert layout.apply(first) == layout.apply(second) == copies["element"]
        instr = operand_instruction(MMA_V2, "i8", index, tuple(shape))
        assert isinstance(instr, Instruction)
        needs = [instr.needs(p) for p in (first, second)]
        k_dim = "dim1" if index == 0 else "dim0"
        assert needs[0][k_dim] != needs[1][k_dim] and needs == copies["needs"]
    assert "the instruction's K 32" in finding.summary


def test_k_smaller_than_the_instruction_holds_register_copies() -> None:
    """f16 with the right kWidth 2 but K = 8 < 16: mma.m16n8k16 would sum K 0..7 twice."""
    finding = _one(
        _audit(_dot_op(0, MMA_V2, 2), _dot_op(1, MMA_V2, 2), MMA_V2, ("32x8", "8x32", "32x32"))
    )
    assert finding.status == Status.ERROR
    assert all("copies" in o for o in finding.data["operands"])


def _swap_lanes(encoding: str, shape: list[int], i: int, j: int) -> str:
    layout = to_linear_layout(encoding, shape)
    bases = dict(layout.bases)
    lanes = list(bases["lane"])
    lanes[i], lanes[j] = lanes[j], lanes[i]
    linear = DistributedLinearLayout(bases["register"], lanes, bases["warp"], bases["block"])
    return linear.ttgir()


def test_linear_operand_with_two_lanes_swapped_is_an_error() -> None:
    """The same bases as Triton's dot_op A except lane bits 0 and 2 exchanged: opIdx and
    parent are right, the fragment is not."""
    good = _dot_op(0, MMA_V2, 2)
    swapped = _swap_lanes(good, [64, 32], 0, 2)
    finding = _one(_audit(swapped, _dot_op(1, MMA_V2, 2), MMA_V2, ("64x32", "32x64", "64x64")))
    assert finding.status == Status.ERROR
    statuses = [o["status"] for o in finding.data["operands"]]
    assert statuses == [Status.ERROR, Status.PROVED]
    _replay_mismatch(finding, swapped, [64, 32], 0)
    assert finding.data["operands"][0]["counterexample"]["input"]["lane"] in (1, 4, 5)


def test_swapped_mfma_lanes_is_an_error() -> None:
    parent = MFMA.format(v=3, i="[32, 32, 8]")
    good = _dot_op(1, parent, 4)
    swapped = _swap_lanes(good, [64, 128], 1, 5)
    finding = _one(
        _audit(_dot_op(0, parent, 4), swapped, parent, ("64x64", "64x128", "64x128"),
               target="hip:gfx942", threads=64)
    )  # fmt: skip
    assert finding.status == Status.ERROR
    _replay_mismatch(finding, swapped, [64, 128], 1)


# ---------------------------------------------------------------------- unknown, never OK


# ---------------------------------------------------------------------- kPack / large kWidth

KPACK_PROVED = [
    # (parent, kWidth, shapes, element, acc, target, threads, --target)
    (MMA_V2, 4, ("64x64", "64x64", "64x64"), "f16", "f32", "cuda:80", 32, None),
    (MMA_V2, 4, ("64x32", "32x64", "64x64"), "f16", "f32", "cuda:80", 32, None),
    (MMA_V2, 8, ("64x64", "64x64", "64x64"), "bf16", "f32", "cuda:80", 32, None),
    (MFMA.format(v=3, i="[16, 16, 16]"), 8, ("32x64", "64x32", "32x32"), "f16", "f32",
     "hip:gfx942", 64, None),
    (MFMA.format(v=3, i="[16, 16, 16]"), 16, ("32x64", "64x32", "32x32"), "f16", "f32",
     "hip:gfx942", 64, None),
    (MFMA.format(v=3, i="[32, 32, 8]"), 8, ("64x64", "64x128", "64x128"), "f16", "f32",
     "hip:gfx942", 64, None),
    (WMMA_V2, 8, ("64x32", "32x64", "64x64"), "f16", "f32", "hip:gfx1200", 32, "gfx942"),
    (WMMA_V2, 16, ("64x32", "32x64", "64x64"), "i8", "i32", "hip:gfx1200", 32, "gfx942"),
]  # fmt: skip


@pytest.mark.parametrize("case", KPACK_PROVED, ids=lambda c: f"{c[0][5:15]}-kw{c[1]}-{c[2][0]}")
def test_k_packed_operands_proved(case: tuple[Any, ...]) -> None:
    """kWidth a multiple of the instruction's: each operand equals the fragments with its
    registers and K permuted (the packed reference), the same permutation in A and B."""
    parent, k_width, shapes, element, acc, target, threads, override = case
    a, b = _dot_op(0, parent, k_width), _dot_op(1, parent, k_width)
    finding = _one(_audit(a, b, parent, shapes, element, acc, target, threads, override))
    assert finding.status == Status.PROVED, finding.summary
    perms = [o["k_permutation"] for o in finding.data["operands"]]
    assert perms[0] == perms[1] and perms[0] != tuple(range(len(perms[0])))
    assert f"kWidth {k_width}:" in finding.summary


def test_k_packed_reference_replays_on_triton_bases() -> None:
    """The packed reference, evaluated at every register and lane, is Triton's layout (the
    bases printed by the converter) for f16 kWidth 4 on mma.m16n8k16, K = 32."""
    instr = k_packed_instruction(MMA_V2, "f16", 0, (64, 32), 4)
    assert isinstance(instr, Instruction) and instr.k_permutation == (0, 3, 1, 2, 4)
    layout = to_linear_layout(_dot_op(0, MMA_V2, 4), [64, 32])
    for register in range(16):
        for lane in range(32):
            for warp in range(4):
                point = {"register": register, "lane": lane, "warp": warp, "block": 0}
                needs = instr.needs(point)
                assert layout.apply(point) == {"dim0": needs["dim0"] % 64, "dim1": needs["dim1"]}


def test_pr11691_k_width_4_on_k_16_is_an_error() -> None:
    """triton#11691: an upcast operand kept its 8-bit kWidth 4 on an f16 dot with K = 16.
    Two mma.m16n8k16 K groups do not fit in K = 16: the layout's extra register bit is a
    broadcast, and the counterexample (an element where the packed fragment needs another)
    replays on Triton's layout."""
    a, b = _dot_op(0, MMA_V2, 4), _dot_op(1, MMA_V2, 4)
    finding = _one(_audit(a, b, MMA_V2, ("64x16", "16x64", "64x64")))
    assert finding.status == Status.ERROR
    assert "the layout has 32 registers where mma.m16n8k16 .f16 A (kWidth 4: 2 x 2)" in (
        finding.summary
    )
    _replay_mismatch(finding, a, [64, 16], 0)
    _replay_mismatch(finding, b, [16, 64], 1)
    # the fix bounds kWidth by K: kWidth 2 on the same dot is proved
    fixed = _one(
        _audit(_dot_op(0, MMA_V2, 2), _dot_op(1, MMA_V2, 2), MMA_V2, ("64x16", "16x64", "64x64"))
    )
    assert fixed.status == Status.PROVED


def test_k_packed_mfma_on_too_small_k_holds_lane_copies() -> None:
    """MFMA 16x16x16 f16 with kWidth 8 packs 2 instructions per K group (K >= 32); on
    K = 16 lanes 32-63 repeat lanes 0-31, where the packed fragment needs K 16 and 0."""
    parent = MFMA.format(v=3, i="[16, 16, 16]")
    a, b = _dot_op(0, parent, 8), _dot_op(1, parent, 8)
    finding = _one(
        _audit(a, b, parent, ("32x16", "16x32", "32x32"), target="hip:gfx942", threads=64)
    )
    assert finding.status == Status.ERROR
    for index, (encoding, shape) in enumerate(((a, [32, 16]), (b, [16, 32]))):
        copies = finding.data["operands"][index]["copies"]
        first, second = copies["inputs"]
        layout = to_linear_layout(encoding, shape)
        assert layout.apply(first) == layout.apply(second) == copies["element"]
        instr = k_packed_instruction(parent, "f16", index, tuple(shape), 8)
        assert isinstance(instr, Instruction)
        k_dim = "dim1" if index == 0 else "dim0"
        assert [instr.needs(p)[k_dim] for p in (first, second)] == [16, 0]


def test_k_permuted_differently_in_a_and_b_is_an_error() -> None:
    """A packed (kWidth 4) and B plain (kWidth 2): each equals its own reference, but the
    instruction multiplies A's K 4 with B's K 2."""
    finding = _one(
        _audit(_dot_op(0, MMA_V2, 4), _dot_op(1, MMA_V2, 2), MMA_V2, ("64x64", "64x64", "64x64"))
    )
    assert finding.status == Status.ERROR
    operands = finding.data["operands"]
    assert [o["status"] for o in operands] == [Status.PROVED, Status.PROVED, Status.ERROR]
    step = operands[2]["k_step"]
    assert permute_k(operands[0]["k_permutation"], step["instruction_k"]) == step["a_k"]
    assert permute_k(operands[1]["k_permutation"], step["instruction_k"]) == step["b_k"]
    assert step["a_k"] != step["b_k"]


def test_k_packed_with_two_lanes_swapped_is_an_error() -> None:
    good = _dot_op(0, MMA_V2, 4)
    swapped = _swap_lanes(good, [64, 64], 0, 1)
    finding = _one(_audit(swapped, _dot_op(1, MMA_V2, 4), MMA_V2, ("64x64", "64x64", "64x64")))
    assert finding.status == Status.ERROR
    _replay_mismatch(finding, swapped, [64, 64], 0)


def test_k_packed_wgmma_register_a_is_unknown() -> None:
    """wgmma reads B from shared memory in K order: a permuted register A has no
    reference (unknown, not proved)."""
    text = (
        "#s = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
        "elementBitWidth = 16}>\n"
        "#smem = #ttg.shared_memory\n"
        'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
        '"ttg.threads-per-warp" = 32 : i32} {\n'
        f"  %c = ttng.warp_group_dot %a, %b, %acc : tensor<64x64xf16, {_dot_op(0, WGMMA, 4)}> * "
        f"!ttg.memdesc<64x64xf16, #s, #smem> -> tensor<64x64xf32, {WGMMA}>\n}}"
    )
    finding = _one([f for f in audit(text).findings if f.rule == FRAGMENT])
    assert finding.status == Status.UNKNOWN
    assert "wgmma reads B from shared memory in K order" in finding.summary


def test_no_reference_is_unknown() -> None:
    parent = MFMA.format(v=4, i="[32, 32, 32]")  # 8-bit gfx950 instruction: no fragment
    finding = _one(
        _audit(_dot_op(0, parent, 16), _dot_op(1, parent, 16), parent,
               ("64x64", "64x64", "64x64"), "i8", "i32", "hip:gfx950", 64)
    )  # fmt: skip
    assert finding.status == Status.UNKNOWN
    assert "no MFMA fragment in specs/ for i8" in finding.summary


def test_wgmma_register_b_is_an_error() -> None:
    instr = operand_instruction(WGMMA, "f16", 1, (64, 64))
    assert getattr(instr, "error", False)


def test_dot_scaled_operands_get_the_encoding_rule() -> None:
    text = (DATA / "matmul_fp8e4m3_gfx950.ttgir").read_text()
    report = audit(text)
    scaled = [f for f in report.findings if f.op == "tt.dot_scaled"]
    assert [(f.rule, f.status) for f in scaled] == [("dot-operand-encoding", Severity.OK)] * 2
    wrong = text.replace(
        "tensor<128x128xf8E4M3FN, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 16}>> -> "
        "tensor<128x128xf32, #mma>",
        "tensor<128x128xf8E4M3FN, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 16}>> -> "
        "tensor<128x128xf32, #mma>",
    )
    assert wrong != text
    errors = [f for f in audit(wrong).findings if f.op == "tt.dot_scaled"]
    assert errors and all(f.status is Status.ERROR for f in errors)
    assert "operand 1 has the wrong opIdx" in errors[0].summary


# ---------------------------------------------------------------------- gfx1250 (WMMA v3)

WMMA_V3 = (
    "#ttg.amd_wmma<{version = 3, isTranspose = false, ctaLayout = {warp = [[0, 1], [1, 0]]}, "
    "instrShape = [16, 16, 32]}>"
)


def _audit_v3(a: str, b: str, shapes: tuple[str, str, str], parent: str = WMMA_V3) -> Any:
    return _one(_audit(a, b, parent, shapes, "f16", "f32", "hip:gfx1250", 32, "gfx942"))


@pytest.mark.parametrize("shapes", [("64x64", "64x64", "64x64"), ("32x32", "32x32", "32x32")])
@pytest.mark.parametrize("transposed", [False, True])
def test_gfx1250_wmma_operands_proved(shapes: tuple[str, str, str], transposed: bool) -> None:
    """v_wmma 16x16x32 16-bit, kWidth 8: A and B proved against the gfx1250 fragments
    (specs/amd_wmma.py gfx1250_a_k32_kwidth8 and its B mirror, from Triton's docs)."""
    parent = WMMA_V3.replace("false", "true") if transposed else WMMA_V3
    finding = _audit_v3(_dot_op(0, parent, 8), _dot_op(1, parent, 8), shapes, parent)
    assert finding.status == Status.PROVED, finding.summary
    assert "v_wmma_*_16x16x32 gfx1250 (16-bit) A" in finding.summary


@pytest.mark.parametrize("k_width", [4, 16])
def test_gfx1250_other_k_widths_are_unknown(k_width: int) -> None:
    """Triton's gfx1250 lowering regroups elements (triton#8174): no reference, unknown."""
    a, b = _dot_op(0, WMMA_V3, k_width), _dot_op(1, WMMA_V3, k_width)
    finding = _audit_v3(a, b, ("64x64", "64x64", "64x64"))
    assert finding.status == Status.UNKNOWN
    assert "gfx1250's lowering regroups" in finding.summary


def test_gfx1250_swapped_lanes_and_small_k_are_errors() -> None:
    swapped = _swap_lanes(_dot_op(0, WMMA_V3, 8), [64, 64], 0, 4)
    finding = _audit_v3(swapped, _dot_op(1, WMMA_V3, 8), ("64x64", "64x64", "64x64"))
    assert finding.status == Status.ERROR
    _replay_mismatch(finding, swapped, [64, 64], 0)
    a, b = _dot_op(0, WMMA_V3, 8), _dot_op(1, WMMA_V3, 8)
    small = _audit_v3(a, b, ("64x16", "16x64", "64x64"))  # K = 16 < the instruction's 32
    assert small.status == Status.ERROR
    copies = small.data["operands"][0]["copies"]
    layout = to_linear_layout(a, [64, 16])
    assert layout.apply(copies["inputs"][0]) == layout.apply(copies["inputs"][1])
