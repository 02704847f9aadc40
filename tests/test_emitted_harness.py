"""llverify.emitted.harness: the expectations of each operation checked by hand on small
shapes, malformed operations skipped with their reason, the harness text's structure
(buffers, locations, case lines), and the harness compiled by the installed Triton 3.9 for
the fixtures of tests/data/ttgir (the large ones marked slow)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cases.triton import require_triton
from llverify.emitted.harness import Case, Harness, build_harness, parse_combine
from llverify.errors import LayoutError, LayoutTypeError, ParseError
from llverify.ttgir import parse_module

DATA = Path(__file__).parent / "data" / "ttgir"
FIXTURES = sorted(DATA.glob("*.ttgir"))
FAST_FIXTURES = ["gather_fp32_sm80", "transpose_fp16_gfx942", "matmul_fp16_sm80"]

LAYOUTS = """\
#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>
#t = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], order = [0, 1]}>
#j = #ttg.blocked<{sizePerThread = [1, 1, 2], threadsPerWarp = [4, 8, 1], warpsPerCTA = [2, 1, 1], order = [2, 1, 0]}>
#b3 = #ttg.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [2, 4, 4], warpsPerCTA = [2, 1, 1], order = [2, 1, 0]}>
#l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
#s = #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 4, order = [1, 0]}>
#st = #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 4, order = [0, 1]}>
#s3 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [2, 1, 0]}>
#s2 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
"""  # noqa: E501
MODULE = 'module attributes {{"ttg.num-warps" = 2 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}} {{\n{body}\n}}\n#loc = loc("k.py":1:1)\n'  # noqa: E501

# every operation the harness exercises, in Triton 3.9's spelling (layouts as Triton infers
# them for trans, join, split), inside one function so that the module compiles as written
OPS = """\
  tt.func public @k(%x: tensor<16x8xf16, #b>, %y: tensor<16x8xf16, #b>, %z: tensor<16x8x2xf16, #j>, %i: tensor<16x8xi64, #b>, %v: tensor<64xi32, #l>, %f: tensor<16x8xf32, #b>, %n: tensor<16x8xi32, #b>, %w: tensor<64xf32, #l>, %c: tensor<16xf16, #ttg.slice<{dim = 1, parent = #b}>>, %p: tensor<16x1xi1, #b>, %m: !ttg.memdesc<16x8xf16, #s, #smem, mutable>, %q: i32, %u: tensor<2x8x8xf16, #b3>, %e: tensor<8x8xf16, #t>) {
    %cv = ttg.convert_layout %x : tensor<16x8xf16, #b> -> tensor<16x8xf16, #t> loc("k.py":10:5)
    %tr = tt.trans %x {order = array<i32: 1, 0>} : tensor<16x8xf16, #b> -> tensor<8x16xf16, #t> loc("k.py":11:5)
    %jn = tt.join %x, %y : tensor<16x8xf16, #b> -> tensor<16x8x2xf16, #j> loc("k.py":12:5)
    %lo, %hi = tt.split %z : tensor<16x8x2xf16, #j> -> tensor<16x8xf16, #b> loc("k.py":13:5)
    %ex = tt.expand_dims %c {axis = 1 : i32} : tensor<16xf16, #ttg.slice<{dim = 1, parent = #b}>> -> tensor<16x1xf16, #b> loc("k.py":14:5)
    %bc = tt.broadcast %p : tensor<16x1xi1, #b> -> tensor<16x8xi1, #b> loc("k.py":15:5)
    %ga = tt.gather %x[%i] {axis = 1 : i32, efficient_layout} : (tensor<16x8xf16, #b>, tensor<16x8xi64, #b>) -> tensor<16x8xf16, #b> loc("k.py":16:5)
    %hs = tt.histogram %v : tensor<64xi32, #l> -> tensor<16xi32, #l> loc("k.py":17:5)
    %am:2 = "tt.reduce"(%f, %n) <{axis = 0 : i32}> ({
    ^bb0(%a0: f32 loc(#loc), %a1: i32 loc(#loc), %b0: f32 loc(#loc), %b1: i32 loc(#loc)):
      %gt = arith.cmpf ogt, %a0, %b0 : f32 loc(#loc)
      %mv = arith.select %gt, %a0, %b0 : f32 loc(#loc)
      %mi = arith.select %gt, %a1, %b1 : i32 loc(#loc)
      tt.reduce.return %mv, %mi : f32, i32 loc(#loc)
    }) : (tensor<16x8xf32, #b>, tensor<16x8xi32, #b>) -> (tensor<8xf32, #ttg.slice<{dim = 0, parent = #b}>>, tensor<8xi32, #ttg.slice<{dim = 0, parent = #b}>>) loc("k.py":18:5)
    %sm = "tt.reduce"(%w) <{axis = 0 : i32}> ({
    ^bb0(%arg7: f32 loc(#loc), %arg8: f32 loc(#loc)):
      %s0 = arith.addf %arg7, %arg8 : f32 loc(#loc)
      tt.reduce.return %s0 : f32 loc(#loc)
    }) : (tensor<64xf32, #l>) -> f32 loc("k.py":19:5)
    %sc = "tt.scan"(%f) <{axis = 1 : i32, reverse = true}> ({
    ^bb0(%e0: f32 loc(#loc), %e1: f32 loc(#loc)):
      %s1 = arith.mulf %e0, %e1 : f32 loc(#loc)
      tt.scan.return %s1 : f32 loc(#loc)
    }) : (tensor<16x8xf32, #b>) -> tensor<16x8xf32, #b> loc("k.py":20:5)
    %al = ttg.local_alloc %x : (tensor<16x8xf16, #b>) -> !ttg.memdesc<16x8xf16, #s, #smem> loc("k.py":21:5)
    %mt = ttg.memdesc_trans %al {order = array<i32: 1, 0>} : !ttg.memdesc<16x8xf16, #s, #smem> -> !ttg.memdesc<8x16xf16, #st, #smem> loc("k.py":22:5)
    %ll = ttg.local_load %mt : !ttg.memdesc<8x16xf16, #st, #smem> -> tensor<8x16xf16, #t> loc("k.py":23:5)
    %bf = ttg.local_alloc : () -> !ttg.memdesc<3x16x8xf16, #s, #smem, mutable> loc("k.py":24:5)
    %bi = ttg.memdesc_index %bf[%q] : !ttg.memdesc<3x16x8xf16, #s, #smem, mutable> -> !ttg.memdesc<16x8xf16, #s, #smem, mutable> loc("k.py":25:5)
    %bs = ttg.memdesc_subslice %bi[8, 4] : !ttg.memdesc<16x8xf16, #s, #smem, mutable> -> !ttg.memdesc<8x4xf16, #s, #smem, mutable, 16x8> loc("k.py":26:5)
    %bl = ttg.local_load %bs : !ttg.memdesc<8x4xf16, #s, #smem, mutable, 16x8> -> tensor<8x4xf16, #b> loc("k.py":27:5)
    %ms = ttg.memdesc_subslice %m[8, 0] : !ttg.memdesc<16x8xf16, #s, #smem, mutable> -> !ttg.memdesc<8x8xf16, #s, #smem, mutable, 16x8> loc("k.py":28:5)
    ttg.local_store %e, %ms : tensor<8x8xf16, #t> -> !ttg.memdesc<8x8xf16, #s, #smem, mutable, 16x8> loc("k.py":29:5)
    %lf = ttg.local_load %m : !ttg.memdesc<16x8xf16, #s, #smem, mutable> -> tensor<16x8xf16, #t> loc("k.py":30:5)
    %ua = ttg.local_alloc %u : (tensor<2x8x8xf16, #b3>) -> !ttg.memdesc<2x8x8xf16, #s3, #smem> loc("k.py":31:5)
    %ur = ttg.memdesc_reshape %ua : !ttg.memdesc<2x8x8xf16, #s3, #smem> -> !ttg.memdesc<16x8xf16, #s2, #smem> loc("k.py":32:5)
    %ul = ttg.local_load %ur : !ttg.memdesc<16x8xf16, #s2, #smem> -> tensor<16x8xf16, #b> loc("k.py":33:5)
    %lz = ttg.local_alloc %y : (tensor<16x8xf16, #b>) -> !ttg.memdesc<16x8xf16, #s, #smem> loc("k.py":34:5)
    tt.return
  }"""  # noqa: E501


def _module(body: str, layouts: str = LAYOUTS) -> str:
    return layouts + MODULE.format(body=body)


def _harness(body: str, **kwargs: object) -> Harness:
    return build_harness(parse_module(_module(body)), **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def ops() -> Harness:
    return build_harness(parse_module(_module(OPS)))


def _case(harness: Harness, start: str, nth: int = 0) -> Case:
    found = [c for c in harness.cases if c.description.startswith(start)]
    assert len(found) > nth, [c.description for c in harness.cases]
    return found[nth]


# --- the expectations, by hand -----------------------------------------------------------


def test_convert_layout_is_the_identity(ops: Harness) -> None:
    case = _case(ops, "ttg.convert_layout")
    (expect,) = case.expectations
    assert case.description == "ttg.convert_layout #b -> #t (16x8xf16)"
    assert [b.name for b in case.buffers] == [f"op{case.index}.in0", f"op{case.index}.out0"]
    assert expect.kind == "move" and expect.output == case.buffers[1].name
    assert expect.source_index.tolist() == np.arange(128).reshape(16, 8).tolist()
    assert not expect.source_buffer.any()


def test_trans_reads_the_transposed_element(ops: Harness) -> None:
    (expect,) = _case(ops, "tt.trans").expectations
    assert expect.source_index.shape == (8, 16)
    for i, j in [(0, 0), (1, 0), (0, 1), (7, 15), (3, 9)]:
        assert expect.source_index[i, j] == j * 8 + i  # out[i, j] = in[j, i]


def test_trans_of_three_dims() -> None:
    layouts = LAYOUTS + (
        "#p = #ttg.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [4, 2, 4], "
        "warpsPerCTA = [1, 2, 1], order = [0, 2, 1]}>\n"
    )
    body = (
        "  %r = tt.trans %x {order = array<i32: 2, 0, 1>} : tensor<2x8x8xf16, #b3> -> "
        "tensor<8x2x8xf16, #p>"
    )
    (case,) = build_harness(parse_module(_module(body, layouts))).cases
    index = case.expectations[0].source_index
    assert index.shape == (8, 2, 8)
    assert index[5, 1, 3] == 1 * 64 + 3 * 8 + 5  # out[a, b, c] = in[b, c, a]


def test_join_interleaves_two_buffers(ops: Harness) -> None:
    case = _case(ops, "tt.join")
    (expect,) = case.expectations
    assert [b.shape for b in case.buffers] == [(16, 8), (16, 8), (16, 8, 2)]
    assert expect.source_buffer[3, 5].tolist() == [0, 1]
    assert expect.source_index[3, 5].tolist() == [29, 29]


def test_split_takes_the_last_dim(ops: Harness) -> None:
    case = _case(ops, "tt.split")
    low, high = case.expectations
    assert [b.name.split(".")[1] for b in case.buffers] == ["in0", "out0", "out1"]
    assert (low.output, high.output) == (case.buffers[1].name, case.buffers[2].name)
    assert low.source_index[3, 5] == 2 * 29 and high.source_index[3, 5] == 2 * 29 + 1


def test_expand_dims_and_broadcast(ops: Harness) -> None:
    expand = _case(ops, "tt.expand_dims").expectations[0]
    assert expand.source_index.ravel().tolist() == list(range(16))
    broadcast = _case(ops, "tt.broadcast")
    assert broadcast.description == "tt.broadcast #b -> #b (16x1xi1)"
    index = broadcast.expectations[0].source_index
    assert index.shape == (16, 8) and (index == np.arange(16)[:, None]).all()
    assert [(b.element, b.element_bits) for b in broadcast.buffers] == [("i1", 8), ("i1", 8)]


def test_reshape_keeps_the_row_major_order() -> None:
    body = "  %r = tt.reshape %x : tensor<16x8xf16, #b> -> tensor<128xf16, #l>"
    (case,) = _harness(body).cases
    assert case.expectations[0].source_index.tolist() == list(range(128))
    reordered = _harness(body.replace("%x :", "%x allow_reorder :"))
    assert not reordered.cases
    assert "allow_reorder" in reordered.skipped[0][1]


def test_gather_has_two_index_patterns(ops: Harness) -> None:
    reverse, random = (_case(ops, "tt.gather", n) for n in range(2))
    assert "indices=reverse" in reverse.description
    assert "indices=pseudo-random" in random.description
    for case in (reverse, random):
        source, indices, output = case.buffers
        assert (source.role, indices.role, output.role) == ("input", "values", "output")
        assert indices.element == "i64" and indices.values is not None
        assert indices.values.shape == (16, 8) and 0 <= indices.values.min()
        assert indices.values.max() < 8
        rows = np.arange(16)[:, None]
        expect = case.expectations[0]
        assert (expect.source_index == rows * 8 + indices.values).all()  # axis 1
        assert not expect.source_buffer.any()
    assert reverse.buffers[1].values[2].tolist() == [7, 6, 5, 4, 3, 2, 1, 0]


def test_gather_on_axis_zero_with_fewer_rows() -> None:
    layouts = LAYOUTS + (
        "#g = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], "
        "warpsPerCTA = [2, 1], order = [1, 0]}>\n"
    )
    body = (
        "  %r = tt.gather %x[%i] {axis = 0 : i32} : (tensor<16x8xf32, #b>, "
        "tensor<4x8xi32, #g>) -> tensor<4x8xf32, #g>"
    )
    reverse, _ = build_harness(parse_module(_module(body, layouts))).cases
    values = reverse.buffers[1].values
    assert values[:, 0].tolist() == [15, 14, 13, 12]
    assert reverse.expectations[0].source_index[1, 3] == 14 * 8 + 3


def test_histogram_counts(ops: Harness) -> None:
    equal, spread = (_case(ops, "tt.histogram", n) for n in range(2))
    for case, counts in [(equal, [0] * 15 + [64]), (spread, [4] * 16)]:
        values, output = case.buffers
        assert values.role == "values" and output.shape == (16,)
        (expect,) = case.expectations
        assert expect.kind == "counts" and expect.values.tolist() == counts
        assert np.bincount(values.values, minlength=16).tolist() == counts


def test_reduce_with_two_results(ops: Harness) -> None:
    case = _case(ops, "tt.reduce axis=0 #b")
    assert [b.shape for b in case.buffers] == [(16, 8), (16, 8), (8,), (8,)]
    first, second = case.expectations
    assert (first.kind, first.axis, first.result, second.result) == ("reduce", 0, 0, 1)
    assert first.inputs == (case.buffers[0].name, case.buffers[1].name)
    assert first.combine is not None and first.combine == second.combine
    region = first.combine
    assert region.params == ("%a0", "%a1", "%b0", "%b1")
    assert region.param_types == ("f32", "i32", "f32", "i32")
    assert [op.name for op in region.ops] == ["arith.cmpf", "arith.select", "arith.select"]
    assert region.ops[0].attributes == "ogt" and region.ops[0].result_types == ("i1",)
    assert region.ops[2].operands == ("%gt", "%a1", "%b1")
    assert region.returns == ("%mv", "%mi")


def test_reduce_to_a_scalar(ops: Harness) -> None:
    case = _case(ops, "tt.reduce axis=0 #l")
    assert case.buffers[1].shape == ()
    assert re.search(r"tt\.store %h+arg\d+, %\w+ : !tt\.ptr<f32>", ops.text)


def test_scan_reverse(ops: Harness) -> None:
    case = _case(ops, "tt.scan")
    (expect,) = case.expectations
    assert case.description == "tt.scan axis=1 reverse #b (16x8xf32)"
    assert (expect.kind, expect.axis, expect.reverse) == ("scan", 1, True)
    assert case.buffers[1].shape == (16, 8)
    assert expect.combine is not None and expect.combine.ops[0].name == "arith.mulf"


def test_local_alloc_and_load_through_a_transposed_view(ops: Harness) -> None:
    case = _case(ops, "ttg.local_alloc #b + ttg.local_load #s via memdesc_trans")
    index = case.expectations[0].source_index
    assert [b.shape for b in case.buffers] == [(16, 8), (8, 16)]
    assert index[2, 5] == 5 * 8 + 2


def test_lone_local_load_through_a_dynamic_index_and_a_subslice(ops: Harness) -> None:
    first = _case(ops, "ttg.local_load #s via memdesc_index -> memdesc_subslice", 0)
    last = _case(ops, "ttg.local_load #s via memdesc_index -> memdesc_subslice", 1)
    assert first.description.endswith("(dynamic index: 0)")
    assert last.description.endswith("(dynamic index: last)")
    for case, picked in [(first, 0), (last, 2)]:
        lines = ops.text.splitlines()[case.harness_lines[0] - 1 : case.harness_lines[1]]
        assert any(f"arith.constant {picked} : i32" in line for line in lines)
        assert [b.shape for b in case.buffers] == [(16, 8), (8, 4)]  # the slab written
        index = case.expectations[0].source_index
        assert index[0, 0] == 8 * 8 + 4 and index[7, 3] == 15 * 8 + 7


def test_local_store_into_a_subslice(ops: Harness) -> None:
    case = _case(ops, "ttg.local_store #t -> #s via memdesc_subslice")
    assert [b.shape for b in case.buffers] == [(8, 8), (8, 8)]
    assert case.expectations[0].source_index.ravel().tolist() == list(range(64))
    lines = ops.text.splitlines()[case.harness_lines[0] - 1 : case.harness_lines[1]]
    names = [re.search(r"(?<!#)\bttg\.\w+", line) for line in lines[1:]]
    assert [n.group(0) for n in names if n] == [
        "ttg.local_alloc",
        "ttg.memdesc_subslice",
        "ttg.local_store",
        "ttg.local_load",
    ]


def test_memdesc_reshape(ops: Harness) -> None:
    case = _case(ops, "ttg.local_alloc #b3 + ttg.local_load #s3 via memdesc_reshape")
    assert [b.shape for b in case.buffers] == [(2, 8, 8), (16, 8)]
    assert case.expectations[0].source_index.ravel().tolist() == list(range(128))


def test_memdesc_subview_picks_the_first_and_last_offsets() -> None:
    body = (
        "  %s = ttg.memdesc_subview %m[%q, %c0, %c4] : !ttg.memdesc<4x16x8xf16, #s, #smem, "
        "mutable> -> !ttg.memdesc<16x4xf16, #s, #smem, mutable, 4x16x8>\n"
        "  %c0 = arith.constant 0 : i32\n  %c4 = arith.constant 4 : i32\n"
        "  %l = ttg.local_load %s : !ttg.memdesc<16x4xf16, #s, #smem, mutable, 4x16x8> -> "
        "tensor<16x4xf16, #b>"
    )
    first, last = _harness(body).cases
    for case, picked in [(first, 0), (last, 3)]:
        index = case.expectations[0].source_index
        assert case.buffers[0].shape == (4, 16, 8)  # the parent, written whole
        assert index.shape == (16, 4) and index[1, 2] == picked * 128 + 1 * 8 + 4 + 2


def test_lone_alloc_and_paired_allocs(ops: Harness) -> None:
    module = parse_module(_module(OPS))
    lone = _case(ops, "ttg.local_alloc #b -> #s")
    assert lone.op_line == next(op.line for op in module.ops if op.results == ["%lz"])
    assert lone.expectations[0].source_index.ravel().tolist() == list(range(128))
    reasons = {op.line: reason for op, reason in ops.skipped}
    paired = next(op for op in module.ops if op.results == ["%al"])
    assert reasons[paired.line].startswith("exercised with the ttg.local_load of line")


# --- malformed or unsupported operations are skipped with the reason -------------------


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (
            "  %r = tt.broadcast %x : tensor<16x8xf16, #b> -> tensor<16x16xf16, #b>",
            "cannot broadcast",
        ),
        (
            "  %r = tt.trans %x {order = array<i32: 0, 0>} : tensor<16x8xf16, #b> -> "
            "tensor<16x8xf16, #b>",
            "no permutation",
        ),
        ("  %r = tt.trans %x : tensor<16x8xf16, #b> -> tensor<8x16xf16, #t>", "no 'order'"),
        (
            "  %a, %c = tt.split %x : tensor<16x8xf16, #b> -> tensor<16xf16, #l>",
            "the last dim must be 2",
        ),
        (
            "  %r = tt.gather %x[%i] {axis = 1 : i32} : (tensor<16x8xf16, #b>, "
            "tensor<16x8xf16, #b>) -> tensor<16x8xf16, #b>",
            "integer indices",
        ),
        (
            "  %r = tt.broadcast %p : tensor<16x1x!tt.ptr<f16>, #b> -> "
            "tensor<16x8x!tt.ptr<f16>, #b>",
            "pointer elements",
        ),
        (
            '  %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({\n  ^bb0(%a: f16, %c: f16):\n'
            "    %s = arith.addf %a, %c : f16\n  }) : (tensor<16x8xf16, #b>) -> "
            "tensor<8xf16, #ttg.slice<{dim = 0, parent = #b}>>",
            "no tt.reduce.return",
        ),
        (
            '  %r = "tt.reduce"(%x) <{axis = 2 : i32}> ({\n  ^bb0(%a: f16, %c: f16):\n'
            "    %s = arith.addf %a, %c : f16\n    tt.reduce.return %s : f16\n  }) : "
            "(tensor<16x8xf16, #b>) -> tensor<8xf16, #ttg.slice<{dim = 0, parent = #b}>>",
            "axis 2",
        ),
        (
            "  ttg.local_store %x, %m : tensor<16x8xf16, #b> -> !ttg.memdesc<8x8xf16, #s, #smem, "
            "mutable>",
            "expected the same shape",
        ),
        (
            "  %r = tt.histogram %v, %k : tensor<64xi32, #l> -> tensor<16xi32, #l>",
            "with a mask",
        ),
        (
            "  %r = ttg.convert_layout %x : tensor<16x8xf16, #b> -> tensor<8x16xf16, #t>",
            "the same shape",
        ),
        (
            "  %r = ttg.local_load %m : !ttg.memdesc<8x8xf16, #s, #smem, mutable, 16x8> -> "
            "tensor<8x8xf16, #b>",
            "a view of an allocation the module does not show",
        ),
        (
            "  ttg.local_store %x, %m : tensor<16x8xf16, #b> -> !ttg.memdesc<16x8xf16, #s, #smem>",
            "immutable",
        ),
        ("  %r = tt.dot %a, %c, %d : tensor<16x8xf16, #b>", "no MMA model"),
        ("  %r = arith.addf %x, %x : tensor<16x8xf16, #b>", "elementwise"),
        ("  %r = amdg.unknown_op %x : tensor<16x8xf16, #b>", "not an operation"),
    ],
)
def test_malformed_or_unsupported_operations_are_skipped(body: str, reason: str) -> None:
    harness = _harness(body)
    reasons = [r for _, r in harness.skipped]
    assert any(reason in r for r in reasons), reasons
    assert not harness.cases


def test_parse_combine_refuses_a_region_it_cannot_read() -> None:
    op = parse_module(_module("  %r = tt.broadcast %x : tensor<16x1xf16, #b>")).ops[0]
    with pytest.raises(ParseError, match=r"line \d+: Argument 'op' \(tt.broadcast\)"):
        parse_combine(op)
    with pytest.raises(LayoutTypeError, match="Argument 'op' must be an Operation"):
        parse_combine("tt.reduce")  # type: ignore[arg-type]


# --- the harness text ----------------------------------------------------------------


def test_harness_structure(ops: Harness) -> None:
    lines = ops.text.splitlines()
    header = next(line for line in lines if "tt.func public @harness_kernel" in line)
    arguments = re.findall(r"%(h+arg\d+): !tt\.ptr<(\w+)>", header)
    assert [int(a.split("arg")[1]) for a, _ in arguments] == list(range(len(ops.buffers)))
    assert [b.arg for b in ops.buffers] == list(range(len(ops.buffers)))
    assert [e for _, e in arguments] == [
        "i8" if b.element == "i1" else b.element for b in ops.buffers
    ]
    assert [b for c in ops.cases for b in c.buffers] == list(ops.buffers)
    assert (ops.kernel, ops.target, ops.num_warps, ops.threads_per_warp, ops.num_ctas) == (
        "harness_kernel",
        "cuda:90",
        2,
        32,
        1,
    )
    previous = 0
    for case in ops.cases:
        first, last = case.harness_lines
        assert previous < first <= last
        assert lines[first - 1].strip().startswith(f"// case {case.index}: {case.description}")
        assert lines[last - 1].strip() == "gpu.barrier"
        previous = last
        body = "\n".join(lines[first - 1 : last])
        for buffer in case.buffers:
            assert re.search(rf"%h+arg{buffer.arg}\b", body)
    assert lines[-3:] == ["    tt.return", "  }", "}"]


def test_each_case_has_its_own_location(ops: Harness) -> None:
    seen: dict[str, int] = {}
    for case in ops.cases:
        lines = ops.text.splitlines()[case.harness_lines[0] - 1 : case.harness_lines[1]]
        locs = {loc for line in lines for loc in re.findall(r'loc\("[^"]*":\d+:\d+\)', line)}
        assert len(locs) == 1, locs
        (loc,) = locs
        assert seen.setdefault(loc, case.index) == case.index
        assert case.location.startswith("k.py:") and f'"k.py":{case.location[5:]}:' in loc
    # the two gather cases share the user's location: the second one's column is bumped
    reverse, random = (_case(ops, "tt.gather", n) for n in range(2))
    assert reverse.location == random.location == "k.py:16"
    assert 'loc("k.py":16:5)' in ops.text and 'loc("k.py":16:6)' in ops.text


def test_an_operation_without_location_gets_the_harness_one() -> None:
    harness = _harness(
        "  %r = ttg.convert_layout %x : tensor<16x8xf16, #b> -> tensor<16x8xf16, #t>"
    )
    assert 'loc("harness.ttgir":0:0)' in harness.text
    assert harness.cases[0].location == ""


def test_names_never_collide_with_the_module() -> None:
    body = (
        "  %h0_r5 = ttg.convert_layout %h : tensor<16x8xf16, #b> -> tensor<16x8xf16, #t>\n"
        "  %hh = ttg.convert_layout %h0_r5 : tensor<16x8xf16, #t> -> tensor<16x8xf16, #b>"
    )
    harness = _harness(body)
    assert len(harness.cases) == 2
    assert "%hhh0_" in harness.text and "%hhharg0" in harness.text
    assert "%h0_r5 =" not in harness.text


def test_ops_selection_and_max_cases(ops: Harness) -> None:
    module = parse_module(_module(OPS))
    index = next(i for i, op in enumerate(module.ops) if op.name == "tt.gather")
    chosen = build_harness(module, ops=[index])
    assert [c.op.name for c in chosen.cases] == ["tt.gather", "tt.gather"]
    assert not chosen.skipped
    capped = build_harness(module, max_cases=3)
    assert [c.description for c in capped.cases] == [c.description for c in ops.cases[:3]]
    over = {op.line: op.name for op, reason in capped.skipped if reason == "over max_cases=3"}
    assert {c.op_line for c in ops.cases[3:]} <= set(over)
    extra = {over[line] for line in set(over) - {c.op_line for c in ops.cases}}
    assert extra == {"ttg.local_alloc"}  # their local_load cases are over the cap too
    # an alloc whose local_load is not selected gets a case of its own
    alloc = next(i for i, op in enumerate(module.ops) if op.results == ["%al"])
    (case,) = build_harness(module, ops=[alloc]).cases
    assert case.description == "ttg.local_alloc #b -> #s (16x8xf16)"


def test_bad_arguments_raise() -> None:
    module = parse_module(_module(OPS))
    with pytest.raises(LayoutTypeError, match="Argument 'module' must be a TTGIRModule"):
        build_harness("module {}")  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match=r"Argument 'ops' must be .* from 0 to \d+, not \[-1\]"):
        build_harness(module, ops=[-1])
    with pytest.raises(LayoutError, match="Argument 'ops'"):
        build_harness(module, ops="0")  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match="Argument 'max_cases' must be a positive int"):
        build_harness(module, max_cases=0)
    bare = parse_module('module attributes {"ttg.num-warps" = 4 : i32} {\n}\n')
    with pytest.raises(LayoutError, match="Argument 'module' must name its target"):
        build_harness(bare)


# --- compiled by the installed Triton ------------------------------------------------

_COMPILE = """
import sys, time
import triton
from triton.backends.compiler import GPUTarget
path, target, warp = sys.argv[1], sys.argv[2], int(sys.argv[3])
backend, arch = target.split(":")
start = time.perf_counter()
triton.compile(path, target=GPUTarget(backend, int(arch) if arch.isdigit() else arch, warp))
print(time.perf_counter() - start)
"""


def _compile(harness: Harness, tmp_path: Path) -> float:
    """Compile ``harness`` with the installed Triton in a subprocess (a crash of its LLVM
    fails the test, not pytest); the seconds it took."""
    require_triton()
    path = tmp_path / "harness.ttgir"
    path.write_text(harness.text)
    args = [sys.executable, "-c", _COMPILE, str(path), harness.target]
    done = subprocess.run(
        [*args, str(harness.threads_per_warp)], capture_output=True, text=True, timeout=900
    )
    errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
    assert done.returncode == 0, "\n".join(errors[:5]) or done.stderr[-2000:]
    return float(done.stdout.split()[-1])


@pytest.mark.triton
def test_every_operation_compiles(ops: Harness, tmp_path: Path) -> None:
    _compile(ops, tmp_path)


@pytest.mark.triton
@pytest.mark.parametrize("name", FAST_FIXTURES)
def test_fixture_harness_compiles(name: str, tmp_path: Path) -> None:
    harness = build_harness(parse_module((DATA / f"{name}.ttgir").read_text()))
    assert harness.cases
    _compile(harness, tmp_path)


@pytest.mark.slow
@pytest.mark.triton
@pytest.mark.parametrize(
    "path", [p for p in FIXTURES if p.stem not in FAST_FIXTURES], ids=lambda p: p.stem
)
def test_every_fixture_harness_compiles(path: Path, tmp_path: Path) -> None:
    start = time.perf_counter()
    harness = build_harness(parse_module(path.read_text()))
    built = time.perf_counter() - start
    assert harness.cases and built < 10
    _compile(harness, tmp_path)
