"""Audit rule global-coalescing and its pointer evaluator (llverify.audit.pointers)."""

from __future__ import annotations

import numpy as np
import pytest

from llverify.audit.analyze import audit
from llverify.audit.pointers import Evaluator, NotConstantError, offsets_of
from llverify.ttgir import parse_module

HEAD = """#b = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#t = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#s0 = #ttg.slice<{dim = 1, parent = #t}>
#s1 = #ttg.slice<{dim = 0, parent = #t}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "TARGET", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%in: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %raw: !tt.ptr<f32>, %n: i32 {tt.divisibility = 16 : i32}) {
"""  # noqa: E501

# Inductor's pointwise pattern: x = pid * 512 + arange; load in[x % 64 + 64 * (x // 256)]
POINTWISE = """    %c64 = arith.constant dense<64> : tensor<512xi32, #b>
    %c256 = arith.constant dense<256> : tensor<512xi32, #b>
    %pid = tt.get_program_id x : i32
    %c512 = arith.constant 512 : i32
    %o = arith.muli %pid, %c512 : i32
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #b>
    %s = tt.splat %o : i32 -> tensor<512xi32, #b>
    %x = arith.addi %s, %r : tensor<512xi32, #b>
    %lo = arith.remsi %x, %c64 : tensor<512xi32, #b>
    %hi = arith.divsi %x, %c256 : tensor<512xi32, #b>
    %hs = arith.muli %hi, %c64 : tensor<512xi32, #b>
    %off = arith.addi %lo, %hs : tensor<512xi32, #b>
    %p = tt.splat %PTR : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #b>
    %q = tt.addptr %p, %off : tensor<512x!tt.ptr<f32>, #b>, tensor<512xi32, #b>
    %v = tt.load %q : tensor<512x!tt.ptr<f32>, #b>
    tt.store %q, %v : tensor<512x!tt.ptr<f32>, #b>
"""

# A 32x32 tile at column stride STRIDE (lanes walk dim1)
TILE = """    %c = arith.constant dense<STRIDE> : tensor<1x32xi32, #t>
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #s0>
    %l = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #s1>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #s0> -> tensor<32x1xi32, #t>
    %l2 = tt.expand_dims %l {axis = 0 : i32} : tensor<32xi32, #s1> -> tensor<1x32xi32, #t>
    %cols = arith.muli %l2, %c : tensor<1x32xi32, #t>
    %rs = arith.muli %r2, %rowstride : tensor<32x1xi32, #t>
    %rb = tt.broadcast %rs : tensor<32x1xi32, #t> -> tensor<32x32xi32, #t>
    %cb = tt.broadcast %cols : tensor<1x32xi32, #t> -> tensor<32x32xi32, #t>
    %o = arith.addi %rb, %cb : tensor<32x32xi32, #t>
    %p = tt.splat %in : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #t>
    %q = tt.addptr %p, %o : tensor<32x32x!tt.ptr<f32>, #t>, tensor<32x32xi32, #t>
    %v = tt.load %q : tensor<32x32x!tt.ptr<f32>, #t>
"""

TAIL = """  }
}
"""


def module(body: str, target: str = "cuda:90", ptr: str = "%in") -> str:
    return HEAD.replace("TARGET", target) + body.replace("%PTR", ptr) + TAIL


def tile(stride: int, rowstride: str) -> str:
    return TILE.replace("STRIDE", str(stride)).replace("%rowstride", rowstride)


def findings(text: str) -> list:
    report = audit(text, rules=["global-coalescing"])
    return [f for f in report.findings if f.rule == "global-coalescing"], report


def test_inductor_pointwise_offsets():
    text = module(POINTWISE)
    pointer = Evaluator(parse_module(text)).pointer("%q")
    x = np.arange(512)
    assert (offsets_of(pointer, (512,)) == x % 64 + 64 * (x // 256)).all()
    assert pointer.offset.step == 128  # (pid * 512) // 256 * 64 == 128 * pid
    found, _ = findings(text)
    assert [f.op for f in found] == ["tt.load", "tt.store"]
    load = found[0]
    assert str(load.status) == "ok" and load.data["vector_width"] == 4
    # offsets repeat (x % 64): lanes 16..31 read what lanes 0..15 read, 256 bytes in all
    assert load.data["sectors_per_request"] == 8 and load.data["efficiency"] == 1.0
    assert load.data["requests"] == 4 and load.data["strides"] is None


def test_transposed_tile_is_a_warning_with_the_numbers():
    one = "    %c1 = arith.constant dense<1> : tensor<32x1xi32, #t>\n"
    found, _ = findings(module(one + tile(1024, "%c1")))  # row stride 1, column stride 1024
    (load,) = found
    assert str(load.status) == "warning" and load.summary.startswith("poorly coalesced")
    assert load.data["strides"] == [1, 1024]
    assert load.data["sectors_per_request"] == 32 and load.data["ideal_sectors_per_request"] == 4
    assert load.data["efficiency"] == 0.125


def test_row_major_tile_is_ok():
    text = module("    %c32 = arith.constant dense<32> : tensor<32x1xi32, #t>\n" + tile(1, "%c32"))
    (load,) = findings(text)[0]
    assert str(load.status) == "ok" and load.data["strides"] == [32, 1]
    assert load.data["sectors_per_request"] == 4 and load.data["efficiency"] == 1.0


def test_runtime_stride_is_skipped_with_the_reason():
    text = module("    %ns = tt.splat %n : i32 -> tensor<32x1xi32, #t>\n" + tile(1, "%ns"))
    found, report = findings(text)
    assert not found
    (skip,) = [s for s in report.skips if s.rule == "global-coalescing"]
    assert "addresses not constant" in skip.reason and "varies by element" in skip.reason


def test_unaligned_base_reports_the_worst_case():
    # %raw has no tt.divisibility: only 4-byte alignment is known
    (load, _) = findings(module(POINTWISE, ptr="%raw"))[0]
    assert load.data["base_alignment"] == 4 and load.data["vector_width"] == 1
    assert load.data["worst_sectors_per_request"] > load.data["sectors_per_request"]
    assert "from a base aligned to 4 bytes only" in load.summary


def test_loop_induction_variable():
    body = """    %c0 = arith.constant 0 : i32
    %c8 = arith.constant 8 : i32
    %c128 = arith.constant 128 : i32
    %acc = scf.for %iv = %c0 to %c8 step %c128 iter_args(%a = %c0) -> (i32)  : i32 {
      %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #b>
      %s = tt.splat %iv : i32 -> tensor<512xi32, #b>
      %x = arith.addi %s, %r : tensor<512xi32, #b>
      %p = tt.splat %in : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #b>
      %q = tt.addptr %p, %x : tensor<512x!tt.ptr<f32>, #b>, tensor<512xi32, #b>
      %v = tt.load %q : tensor<512x!tt.ptr<f32>, #b>
      scf.yield %a : i32
    }
"""
    (load,) = findings(module(body))[0]
    assert str(load.status) == "ok" and load.data["vector_width"] == 4
    assert load.data["base_alignment"] == 16  # the base's 16 bytes; the step is 512 bytes


def test_amd_targets_are_skipped():
    found, report = findings(module(POINTWISE, target="hip:gfx942"))
    assert not found
    assert any("NVIDIA targets only" in s.reason for s in report.skips)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("%bad = arith.select %m, %r, %r : tensor<512xi1, #b>, tensor<512xi32, #b>", "select"),
        ("%bad = arith.divsi %x, %x : tensor<512xi32, #b>", "not one positive constant"),
    ],
)
def test_unmodelled_arithmetic_is_refused(line, words):
    body = POINTWISE.replace("    %p = tt.splat", f"    {line}\n    %p = tt.splat").replace(
        "tt.addptr %p, %off", "tt.addptr %p, %bad"
    )
    with pytest.raises(NotConstantError, match=words):
        Evaluator(parse_module(module(body))).pointer("%q")


def test_corpus_kernel_offsets():
    # bert's triton_poi_fused_addmm_clone_transpose_view_6, copied from the corpus: the store
    # at xindex (pid * 1024 + arange) is contiguous
    text = open("tests/data/coalescing/inductor_poi_transpose_view.ttgir").read()
    found, _ = findings(text)
    store = [f for f in found if f.op == "tt.store"][0]
    assert str(store.status) == "ok" and store.data["strides"] == [1]
    assert store.data["vector_width"] == 4 and store.data["efficiency"] == 1.0


def shifted_load(origin: int, ptr: str = "%in", name: str = "") -> str:
    """A 512-element f32 load at offsets origin + arange (ids suffixed by ``name``)."""
    return (
        f"    %k{name} = arith.constant dense<{origin}> : tensor<512xi32, #b>\n"
        f"    %r{name} = tt.make_range {{end = 512 : i32, start = 0 : i32}} : tensor<512xi32, #b>\n"
        f"    %o{name} = arith.addi %r{name}, %k{name} : tensor<512xi32, #b>\n"
        f"    %p{name} = tt.splat {ptr} : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #b>\n"
        f"    %q{name} = tt.addptr %p{name}, %o{name} : tensor<512x!tt.ptr<f32>, #b>, "
        f"tensor<512xi32, #b>\n"
        f"    %v{name} = tt.load %q{name} : tensor<512x!tt.ptr<f32>, #b>\n"
    )


@pytest.mark.parametrize("ptr", ["%in", "%raw"])
def test_memoised_costs_match_each_access_audited_alone(ptr):
    # origins 0, 32, -64 and 4096 elements differ by whole 128-byte lines (one memo entry);
    # 1 and 8 do not: their vectors and sectors differ and must not be taken from the memo
    origins = [0, 32, 1, -64, 8, 4096]
    body = "".join(shifted_load(o, ptr, str(i)) for i, o in enumerate(origins))
    together, _ = findings(module(body))
    alone = [findings(module(shifted_load(o, ptr)))[0][0] for o in origins]
    assert [(f.summary, f.data) for f in together] == [(f.summary, f.data) for f in alone]
    if ptr == "%in":  # the negative controls: one element (4 bytes) off a line is not 0
        assert [f.data["vector_width"] for f in together] == [4, 4, 1, 4, 4, 4]
        assert together[2].data["sectors_per_request"] > together[0].data["sectors_per_request"]
        assert together[4].summary == together[0].summary  # 32 bytes: same sectors, vectors
