"""Tests of the audit rule ``view-layout`` (llverify.audit.memdesc_views) and of subslice
offsets in ``shared-access``.

The hand-written controls were checked against Triton 3.9's own verifier (parsing each module
with ``triton._C.libtriton.ir.parse_mlir_module``): it accepts every positive control and
refuses the subslice offsets, the non-transposed trans result and the extract_slice of the
negative controls (for that one it names the same element, ``[65, 16]``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.audit.analyze import audit
from llverify.audit.memdesc_views import NAME
from llverify.encodings import to_linear_layout
from llverify.proof.verdict import Status

DATA = Path(__file__).resolve().parent / "data" / "ttgir"
VIEW_OPS = (
    "ttg.memdesc_index",
    "ttg.memdesc_subslice",
    "ttg.memdesc_trans",
    "ttg.memdesc_reshape",
    "amdg.in_thread_transpose",
)

HEAD = """#s = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#t = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
#s3 = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#nvt = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16}>
#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 16], warpsPerCTA = [1, 4], order = [0, 1]}>
#d = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#m = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "TARGET", "ttg.threads-per-warp" = LANES : i32} {
"""  # noqa: E501
M = "!ttg.memdesc"


def _findings(body: str, target: str = "cuda:90") -> list:
    lanes = "64" if target.startswith("hip") else "32"
    text = HEAD.replace("TARGET", target).replace("LANES", lanes) + body + "\n}\n"
    report = audit(text)
    assert report.refused is None, report.refused
    return [f for f in report.findings if f.rule == NAME]


def _one(body: str, target: str = "cuda:90"):
    (found,) = _findings(body, target)
    return found


def _offset(encoding: str, shape: tuple[int, ...], index: tuple[int, ...]) -> int:
    """Replay: the offset whose image is ``index`` in the encoding's layout."""
    ll = to_linear_layout(encoding, list(shape))
    size = ll.get_in_dim_size("offset")
    for o in range(size):
        out = ll.apply({"offset": o, "block": 0})
        if tuple(out.values()) == tuple(index):
            return o
    raise AssertionError(f"{index} not reached")


SWZ = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
SWZ_T = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>"


# -- positive controls ------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        f"%1 = ttg.memdesc_trans %0 {{order = array<i32: 1, 0>}} : {M}<64x128xf16, #s, #smem, "
        f"mutable> -> {M}<128x64xf16, #t, #smem, mutable>",
        f"%1 = ttg.memdesc_trans %0 {{order = array<i32: 1, 0>}} : {M}<64x128xf16, #nv, #smem, "
        f"mutable> -> {M}<128x64xf16, #nvt, #smem, mutable>",
        f"%1 = ttg.memdesc_reshape %0 : {M}<4x16x64xf16, #s3, #smem, mutable> -> "
        f"{M}<64x64xf16, #s, #smem, mutable>",
        f"%1 = ttg.memdesc_index %0[%c] : {M}<3x64x64xf16, #s, #smem, mutable> -> "
        f"{M}<64x64xf16, #s, #smem, mutable>",
        f"%1 = ttg.memdesc_subslice %0[64, 48] : {M}<128x64xf16, #s, #smem, mutable> -> "
        f"{M}<64x16xf16, #s, #smem, mutable, 128x64>",
        f"%1 = ttg.memdesc_subslice %0[8, 0] : {M}<128x64xf16, #s, #smem, mutable> -> "
        f"{M}<8x64xf16, #s, #smem, mutable, 128x64>",
        f"%1 = ttg.memdesc_subslice %0[0, 64] : {M}<128x128xf16, #nv, #smem, mutable> -> "
        f"{M}<128x64xf16, #nv, #smem, mutable, 128x128>",
    ],
)
def test_views_proved(line: str) -> None:
    f = _one(line)
    assert f.status is Status.PROVED, f.summary
    assert "proved for all" in f.summary


def test_nested_subslices_accumulate_offsets() -> None:
    found = _findings(
        f"%1 = ttg.memdesc_subslice %0[0, 32] : {M}<128x64xf16, #s, #smem, mutable> -> "
        f"{M}<128x32xf16, #s, #smem, mutable, 128x64>\n"
        f"%2 = ttg.memdesc_subslice %1[0, 16] : {M}<128x32xf16, #s, #smem, mutable, 128x64> -> "
        f"{M}<128x16xf16, #s, #smem, mutable, 128x64>"
    )
    assert [f.status for f in found] == [Status.PROVED, Status.PROVED]
    assert found[1].data["offsets"] == [0, 48]
    assert found[1].data["mask"] == 16 | 32  # offsets of columns 16 and 32


#: Triton's AMD dialect prefix: ``amdg.`` since 3.6, ``amdgpu.`` in 3.0-3.5 (triton#6495
#: wrote ``amdgpu.extract_slice``); the reader names both ``amdg.``.
AMD_PREFIXES = ("amdg.", "amdgpu.")


@pytest.mark.parametrize("prefix", AMD_PREFIXES)
def test_amd_extract_slice_and_concat_proved(prefix: str) -> None:
    found = _findings(
        f"%0 = {prefix}extract_slice %x [64, 16] : tensor<128x32xf32, #b> to "
        "tensor<64x16xf32, #b>\n"
        f"%1 = {prefix}concat %y, %y, %y, %y : tensor<64x16xf32, #b>, tensor<64x16xf32, #b>, "
        "tensor<64x16xf32, #b>, tensor<64x16xf32, #b> -> tensor<128x32xf32, #b>",
        target="hip:gfx942",
    )
    assert [(f.op, f.status) for f in found] == [
        ("amdg.extract_slice", Status.PROVED),
        ("amdg.concat", Status.PROVED),
    ]


# -- shapes below the CTA / MFMA tile (triton#6495) ----------------------------------------


def _t(shape: str, encoding: str) -> str:
    return f"tensor<{shape}xf32, {encoding}>"


def _concat(piece: str, encoding: str, count: int, result: str) -> str:
    operands = ", ".join(["%y"] * count)
    types = ", ".join([_t(piece, encoding)] * count)
    return f"%1 = {{p}}concat {operands} : {types} -> {_t(result, encoding)}"


def _slice(offsets: str, source: str, result: str, encoding: str) -> str:
    return (
        f"%0 = {{p}}extract_slice %x [{offsets}] : {_t(source, encoding)} to {_t(result, encoding)}"
    )


#: extract_slice / concat whose tensors are smaller than their layout's CTA tile (#b: 64x16,
#: #d: 16x16, #m: the 64x64 of a 2x2-warp mfma 32x32) beside tile-sized controls: proved
#: exactly where Triton 3.9's verifier accepts the op (``test_small_views_agree_with_triton``).
SMALL_VIEWS: dict[str, tuple[str, Status]] = {
    "b slice 64x16 (one tile)": (_slice("64, 16", "128x32", "64x16", "#b"), Status.PROVED),
    "b slice 16x16 below the tile": (_slice("16, 16", "128x32", "16x16", "#b"), Status.ERROR),
    "b slice 16x16 at 0": (_slice("0, 0", "128x32", "16x16", "#b"), Status.ERROR),
    "b slice 64x4 below the tile": (_slice("0, 4", "128x32", "64x4", "#b"), Status.ERROR),
    "b slice 64x4 at 0": (_slice("0, 0", "128x32", "64x4", "#b"), Status.ERROR),
    "b slice of a 16x16 source": (_slice("0, 8", "16x16", "16x8", "#b"), Status.ERROR),
    "b concat 16x16 x2": (_concat("16x16", "#b", 2, "32x16"), Status.ERROR),
    "b concat 32x16 x4": (_concat("32x16", "#b", 4, "128x16"), Status.ERROR),
    "d slice 16x16 (one tile)": (_slice("16, 32", "64x64", "16x16", "#d"), Status.PROVED),
    "d slice 8x16 below the tile": (_slice("8, 32", "64x64", "8x16", "#d"), Status.ERROR),
    "d concat 16x16 x4": (_concat("16x16", "#d", 4, "32x32"), Status.PROVED),
    "d concat 8x16 x2": (_concat("8x16", "#d", 2, "16x16"), Status.ERROR),
    "m slice 64x64 (one tile)": (_slice("64, 0", "128x128", "64x64", "#m"), Status.PROVED),
    "m slice 32x32 (one instruction)": (_slice("32, 32", "128x128", "32x32", "#m"), Status.ERROR),
    "m slice 16x64 below the instruction": (_slice("16, 0", "64x64", "16x64", "#m"), Status.ERROR),
    "m concat 64x64 x4": (_concat("64x64", "#m", 4, "128x128"), Status.PROVED),
    "m concat 32x32 x4": (_concat("32x32", "#m", 4, "64x64"), Status.ERROR),
    "m concat 16x64 x4": (_concat("16x64", "#m", 4, "64x64"), Status.ERROR),
}


@pytest.mark.parametrize("prefix", AMD_PREFIXES)
@pytest.mark.parametrize("name", SMALL_VIEWS)
def test_small_views(name: str, prefix: str) -> None:
    body, expected = SMALL_VIEWS[name]
    f = _one(body.format(p=prefix), target="hip:gfx942")
    assert f.status is expected, f.summary
    if expected is Status.ERROR and "verifier refuses" in f.summary:
        # replay: the named lane/warp bit steps different elements in operand and result
        cx = f.data["counterexample"]
        types = re.findall(r"tensor<(\w+)xf32, (#\w)>", body)
        (piece, encoding), (result, _) = types[0], types[-1]
        bases = [
            dict(to_linear_layout(HEAD.split(f"{encoding} = ")[1].split("\n")[0],
                                  [int(v) for v in shape.split("x")]).bases)
            for shape in (piece, result)
        ]  # fmt: skip
        assert bases[0][cx["dim"]][cx["bit"]] == cx["source_basis"]
        assert bases[1][cx["dim"]][cx["bit"]] == cx["result_basis"]
        assert cx["source_basis"] != cx["result_basis"]


_VERIFIER = r"""
import json, os, sys, tempfile
from triton._C.libtriton import amd, ir
ctx = ir.context(); ir.load_dialects(ctx); amd.load_dialects(ctx)
out = []
for case in json.load(sys.stdin):
    path = os.path.join(tempfile.mkdtemp(), "m.mlir")
    open(path, "w").write(case)
    saved = os.dup(2); sink = open(path + ".err", "w"); os.dup2(sink.fileno(), 2)
    try:
        ir.parse_mlir_module(path, ctx); ok = True
    except Exception:
        ok = False
    finally:
        os.dup2(saved, 2); sink.close()
    out.append([ok, open(path + ".err").read()[:300]])
print("@@" + json.dumps(out))
"""


@pytest.mark.triton
def test_small_views_agree_with_triton() -> None:
    """Oracle: Triton 3.9's verifier (parse_mlir_module, AMD dialects loaded) accepts each
    SMALL_VIEWS op exactly when the rule proves it."""
    require_triton()
    head = HEAD.replace("TARGET", "hip:gfx942").replace("LANES", "64")
    texts = []
    for body, _ in SMALL_VIEWS.values():
        line = body.format(p="amdg.")
        names = re.findall(r"%[xy]", line.split(" : ")[0])
        types = re.findall(r"tensor<[^>]*>", re.split(r" to | -> ", line.split(" : ", 1)[1])[0])
        params = ", ".join(dict.fromkeys(f"{n}: {t}" for n, t in zip(names, types)))
        texts.append(f"{head}  tt.func @f({params}) {{\n    {line}\n    tt.return\n  }}\n}}\n")
    run = subprocess.run(
        [sys.executable, "-c", _VERIFIER], input=json.dumps(texts), capture_output=True, text=True
    )
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith("@@")]
    assert lines, run.stderr[-2000:]
    for name, (accepted, why) in zip(SMALL_VIEWS, json.loads(lines[0][2:])):
        assert accepted == (SMALL_VIEWS[name][1] is Status.PROVED), (name, why)


# -- negative controls ------------------------------------------------------------------


def test_trans_result_not_transposed_is_an_error() -> None:
    f = _one(
        f"%1 = ttg.memdesc_trans %0 {{order = array<i32: 1, 0>}} : {M}<64x128xf16, #s, #smem, "
        f"mutable> -> {M}<128x64xf16, #s, #smem, mutable>"
    )
    assert f.status is Status.ERROR
    cx = f.data["counterexample"]
    index, source = cx["index"], cx["source_index"]
    assert source == (index[1], index[0])
    assert _offset(SWZ, (128, 64), index) == cx["view_offset"]
    assert _offset(SWZ, (64, 128), source) == cx["source_offset"]
    assert cx["view_offset"] != cx["source_offset"]


def test_subslice_offset_touching_the_tile_is_an_error() -> None:
    f = _one(
        f"%1 = ttg.memdesc_subslice %0[0, 8] : {M}<128x64xf16, #s, #smem, mutable> -> "
        f"{M}<128x16xf16, #s, #smem, mutable, 128x64>"
    )
    assert f.status is Status.ERROR
    cx = f.data["counterexample"]
    assert "touch the view's tile" in f.summary
    row, col = cx["index"]
    assert (col ^ 8) != col + 8 and cx["element"] == (row, col + 8)
    assert _offset(SWZ, (128, 64), (row, col + 8)) == cx["right_offset"]
    assert _offset(SWZ, (128, 64), (row, col ^ 8)) == cx["emitted_offset"]


def test_subslice_along_the_swizzling_pattern_is_an_error() -> None:
    f = _one(
        f"%1 = ttg.memdesc_subslice %0[2, 0] : {M}<128x64xf16, #s, #smem, mutable> -> "
        f"{M}<2x64xf16, #s, #smem, mutable, 128x64>"
    )
    assert f.status is Status.ERROR
    assert "swizzling pattern" in f.summary
    cx = f.data["counterexample"]
    moved = _offset(SWZ, (128, 64), (2, 0))
    assert moved & (moved - 1)  # not a power of two
    assert cx["added"] == cx["offset"] + moved != cx["xored"] == cx["offset"] ^ moved


@pytest.mark.parametrize(
    "line, words",
    [
        (
            f"%1 = ttg.memdesc_subslice %0[0, 16] : {M}<128x64xf16, #s, #smem, mutable> -> "
            f"{M}<128x16xf16, #t, #smem, mutable, 128x64>",
            "not the source's",
        ),
        (
            f"%1 = ttg.memdesc_subslice %0[0, 16] : {M}<128x64xf16, #s, #smem, mutable> -> "
            f"{M}<128x16xf16, #s, #smem, mutable, 128x32>",
            "allocation shape",
        ),
        (
            f"%1 = ttg.memdesc_subslice %0[0, 56] : {M}<128x64xf16, #s, #smem, mutable> -> "
            f"{M}<128x16xf16, #s, #smem, mutable, 128x64>",
            "outside",
        ),
        (
            f"%1 = ttg.memdesc_index %0[%c] : {M}<2x64x64xf16, #s, #smem, mutable> -> "
            f"{M}<64x64xf16, #t, #smem, mutable>",
            "not the source's",
        ),
        (
            f"%1 = ttg.memdesc_reshape %0 : {M}<4x16x64xf16, #s3, #smem, mutable> -> "
            f"{M}<64x64xf16, #t, #smem, mutable>",
            "row-major",
        ),
    ],
)
def test_view_errors(line: str, words: str) -> None:
    f = _one(line)
    assert f.status is Status.ERROR
    assert words in f.summary


@pytest.mark.parametrize("prefix", AMD_PREFIXES)
def test_amd_extract_slice_needing_data_movement_is_an_error(prefix: str) -> None:
    f = _one(
        f"%0 = {prefix}extract_slice %x [64, 16] : tensor<128x32xf32, #b> to tensor<64x16xf32, #c>",
        target="hip:gfx942",
    )
    assert f.status is Status.ERROR
    cx = f.data["counterexample"]
    # Triton 3.9's verifier: "No source register holds the element for destination index
    # [65, 16]"
    assert cx["source_index"] == (65, 16)
    dst = to_linear_layout(
        "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 16], warpsPerCTA = [1, 4], "
        "order = [0, 1]}>",
        [64, 16],
    )
    assert tuple(dst.apply(cx["input"]).values()) == cx["index"]
    src = to_linear_layout(
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], "
        "order = [1, 0]}>",
        [128, 32],
    )
    thread = {k: v for k, v in cx["input"].items() if k != "register"}
    held = {tuple(src.apply({**thread, "register": r}).values()) for r in range(16)}
    assert (65, 16) not in held


@pytest.mark.parametrize("prefix", AMD_PREFIXES)
def test_amd_concat_with_another_layout_is_an_error(prefix: str) -> None:
    f = _one(
        f"%1 = {prefix}concat %y, %y, %y, %y : tensor<64x16xf32, #b>, tensor<64x16xf32, #b>, "
        "tensor<64x16xf32, #b>, tensor<64x16xf32, #b> -> tensor<128x32xf32, #c>",
        target="hip:gfx942",
    )
    assert f.status is Status.ERROR
    assert "data movement" in f.summary


# -- real fixtures ------------------------------------------------------------------------


def test_every_fixture_view_is_proved() -> None:
    statuses: Counter = Counter()
    ops = 0
    for kernel in sorted(DATA.glob("*.ttgir")):
        text = kernel.read_text()
        report = audit(text)
        ops += sum(
            1 for line in text.splitlines() if any(f" = {name} " in line for name in VIEW_OPS)
        )
        statuses.update((f.op, f.status) for f in report.findings if f.rule == NAME)
        assert not [s for s in report.skips if s.rule == NAME]
    assert statuses == {
        ("ttg.memdesc_index", Status.PROVED): 68,
        ("ttg.memdesc_subslice", Status.PROVED): 20,
        ("amdg.in_thread_transpose", Status.PROVED): 2,
    }
    assert ops == 90


def test_subslice_loads_are_costed_on_the_allocation() -> None:
    """The sm80 matmul loads 128x16 (A) and 16x128 (B) subslices of its 128x64 / 64x128
    buffers: costed on the allocation's layout they are conflict-free (on the layout of a
    128x16 buffer the A loads would have 1 conflict per wavefront), ldmatrix (A) and
    ldmatrix.trans (B) apply, as Triton 3.9's own lowering emits them."""
    report = audit((DATA / "matmul_fp16_sm80.ttgir").read_text())
    loads = [f for f in report.findings if f.rule == "shared-access" and "subslice" in f.data]
    assert len(loads) == 10
    for f in loads:
        assert f.data["conflicts"] == 0 and f.data["wavefronts"] == 128
        a = f.data["subslice"]["alloc_shape"] == [128, 64]
        assert f.data["subslice"]["offset_mask"] == (48 if a else 6144)
        assert (f.data["ldmatrix"], f.data["ldmatrix_trans"]) == (
            (True, False) if a else (False, True)
        )


def test_multi_cta_shared_view_is_not_checked_not_an_error() -> None:
    shared = (
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], "
        "CGALayout = [[1, 0]]}>"
    )
    text = (
        'module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 2 : i32, '
        'ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {\n'
        f"  %0 = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, {shared}, "
        "#ttg.shared_memory, mutable>\n"
        f"  %2 = ttg.memdesc_index %0[%1] : !ttg.memdesc<2x64x64xf16, {shared}, "
        f"#ttg.shared_memory, mutable> -> !ttg.memdesc<64x64xf16, {shared}, "
        "#ttg.shared_memory, mutable>\n}\n"
    )
    report = audit(text)
    assert report.refused is None
    assert not [f for f in report.findings if f.rule == "view-layout"]
    (unchecked,) = [u for u in report.coverage()["unchecked"] if u["op"] == "ttg.memdesc_index"]
    assert "several CTAs is not modelled" in unchecked["reason"]


def test_in_thread_transpose_moves_no_data_or_is_an_error() -> None:
    src = (
        "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], "
        "order = [0, 1]}>"
    )
    # the fixture's pair: registers permuted within each thread
    text = (DATA / "matmul_fp16_gfx942.ttgir").read_text()
    proved = [f for f in audit(text).findings if f.op == "amdg.in_thread_transpose"]
    assert len(proved) == 2 and all(f.status is Status.PROVED for f in proved)
    # a result whose threads hold other elements: data movement, with the counterexample
    other = src.replace("threadsPerWarp = [8, 8]", "threadsPerWarp = [4, 16]")
    module = (
        'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", '
        '"ttg.threads-per-warp" = 64 : i32} {\n'
        f"  %1 = amdg.in_thread_transpose %0 : tensor<64x128xf16, {src}> -> "
        f"tensor<64x128xf16, {other}>\n}}\n"
    )
    (finding,) = [f for f in audit(module).findings if f.rule == NAME]
    assert finding.status is Status.ERROR and "needs data movement" in finding.summary
    ins, index = finding.data["counterexample"]["input"], finding.data["counterexample"]["index"]
    assert tuple(to_linear_layout(other, [64, 128]).apply(ins).values()) == tuple(index)


def test_memdesc_index_worked_out_once_per_types() -> None:
    """memdesc_index's verdict is worked out once per source and result type: a repeat of
    the same types gets the same finding (at its own line); a different result type in
    between, whose layout is not the source's, is still an error (negative control), and so
    is its own repeat."""
    good = (
        f"ttg.memdesc_index %0[%c] : {M}<2x64x64xf16, #s, #smem, mutable> -> "
        f"{M}<64x64xf16, #s, #smem, mutable>"
    )
    bad = good.replace(f"{M}<64x64xf16, #s,", f"{M}<64x64xf16, #t,")
    found = _findings(
        "\n".join(f"%{i} = {line}" for i, line in enumerate([good, bad, good, bad], 1))
    )
    assert [f.status for f in found] == [Status.PROVED, Status.ERROR] * 2
    assert len({f.line for f in found}) == 4
    assert found[0].to_dict() | {"line": 0} == found[2].to_dict() | {"line": 0}
    assert found[1].to_dict() | {"line": 0} == found[3].to_dict() | {"line": 0}
    assert found[3].data is not found[1].data  # a copy, not the first finding's own data
    alone = _one(f"%1 = {bad}")
    assert alone.summary == found[3].summary and alone.data == found[3].data
