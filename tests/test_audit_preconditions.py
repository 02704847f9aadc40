"""Audit rules of op preconditions: ``gather-warp-local``, ``copies``, ``store-writer``.

Positive and negative controls on hand-written modules (every counterexample replayed on the
layouts here), every gather/reduce/scan/histogram/store of the real fixtures, and the
predictions checked against the code Triton 3.9 emits (tests marked ``triton``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.audit.analyze import audit
from llverify.audit.gather import GatherPath, gather_path
from llverify.audit.stores import scalar_writers, writers
from llverify.encodings import to_linear_layout
from llverify.proof.verdict import Status

DATA = Path(__file__).parent / "data" / "ttgir"
HEADER = (
    'module attributes {{"ttg.num-warps" = {warps} : i32, ttg.target = "cuda:80", '
    '"ttg.threads-per-warp" = 32 : i32}} {{\n'
)
PRECONDITION_RULES = ("gather-warp-local", "copies", "store-writer")


def _blocked(size: list[int], threads: list[int], warps: list[int], order: str = "0, 1") -> str:
    return (
        f"#ttg.blocked<{{sizePerThread = {size}, threadsPerWarp = {threads}, "
        f"warpsPerCTA = {warps}, order = [{order}]}}>"
    )


def _module(body: str, warps: int = 4, **aliases: str) -> str:
    defs = "".join(f"#{name} = {enc}\n" for name, enc in aliases.items())
    return defs + HEADER.format(warps=warps) + body + "\n}\n"


def _findings(text: str, rule: str) -> list:  # type: ignore[type-arg]
    return [f for f in audit(text).findings if f.rule == rule]


# ---------------------------------------------------------------- gather-warp-local

LANES_ON_AXIS = _blocked([1, 1], [32, 1], [1, 4])


def _gather(shape: str, src: str, idx: str, axis: int = 0, marked: bool = True) -> str:
    attrs = f"axis = {axis} : i32" + (", efficient_layout" if marked else "")
    body = (
        f"  %2 = tt.gather %0[%1] {{{attrs}}} : (tensor<{shape}xf32, #s>, "
        f"tensor<{shape}xi32, #i>) -> tensor<{shape}xf32, #i>"
    )
    return _module(body, s=src, i=idx)


def test_warp_local_gather_is_proved_with_its_shuffle_count() -> None:
    (f,) = _findings(_gather("32x64", LANES_ON_AXIS, LANES_ON_AXIS), "gather-warp-local")
    assert f.status is Status.PROVED
    assert f.data["path"] == "warp shuffles" and f.data["shuffles"] == 16 and f.cost == 16
    assert "16 index registers x 1 source registers per column" in f.summary


def test_a_warp_basis_along_the_axis_breaks_warp_locality_and_is_named() -> None:
    warps_on_axis = _blocked([1, 1], [32, 1], [2, 2])
    (f,) = _findings(_gather("64x64", warps_on_axis, warps_on_axis), "gather-warp-local")
    assert str(f.status) == "warning" and f.data["path"] == "shared memory"
    assert "although marked efficient_layout" in f.summary
    assert "src's warp basis 0 moves along dim0" in f.summary
    example = f.data["counterexample"]
    assert (example["tensor"], example["dim"], example["basis"]) == ("src", "warp", 0)
    # replay: warp 1 holds an element 32 rows away from warp 0's, in the same column
    layout = to_linear_layout(warps_on_axis, [64, 64])
    zero = {"register": 0, "lane": 0, "warp": 0, "block": 0}
    assert layout.apply(zero) == {"dim0": 0, "dim1": 0}
    assert layout.apply({**zero, "warp": 1}) == example["value"] == {"dim0": 32, "dim1": 0}
    assert f.data["scratch_bytes"] == 64 * 64 * 4


def test_a_broadcast_warp_along_the_axis_keeps_the_gather_warp_local() -> None:
    # 32 rows are all lanes: the warp basis along dim0 is zero (broadcast), moves nothing
    warps = _blocked([1, 1], [32, 1], [2, 2])
    (f,) = _findings(_gather("32x64", warps, warps), "gather-warp-local")
    assert f.status is Status.PROVED and f.data["shuffles"] == 32
    assert to_linear_layout(warps, [32, 64]).get_basis("warp", 0) == [0, 0]


def test_index_lanes_on_other_columns_than_the_source_take_shared_memory() -> None:
    # same warps as the source, but index lane 16 reaches column 4 where source lane 16 stays
    idx = (
        "#ttg.linear<{register = [[16, 0], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], "
        "[4, 0], [8, 0], [0, 4]], warp = [[0, 1], [0, 2]], block = []}>"
    )
    (f,) = _findings(_gather("32x64", LANES_ON_AXIS, idx, marked=False), "gather-warp-local")
    assert str(f.status) == "warning" and "although" not in f.summary
    example = f.data["counterexample"]
    assert example["tensor"] == "src vs idx" and example["dim"] == "lane"
    zero = {"register": 0, "lane": 0, "warp": 0, "block": 0}
    lane = {**zero, "lane": 1 << example["basis"]}
    src, index = to_linear_layout(LANES_ON_AXIS, [32, 64]), to_linear_layout(idx, [32, 64])
    assert {"dim1": src.apply(lane)["dim1"]} == example["src"]
    assert {"dim1": index.apply(lane)["dim1"]} == example["idx"]
    assert example["src"] != example["idx"]


#: (shape, sizePerThread, threadsPerWarp, warpsPerCTA, element bits) -> shfl.sync.idx calls in
#: the LLVM IR Triton 3.9 emitted for that gather on cuda:80 (order [0, 1], axis 0)
EMITTED_SHUFFLES = {
    ((32, 64), (1, 1), (32, 1), (1, 4), 32): 16,
    ((32, 64), (1, 1), (32, 1), (2, 2), 32): 32,
    ((32, 64), (2, 1), (16, 2), (1, 4), 32): 32,
    ((32, 64), (4, 1), (8, 4), (1, 4), 32): 64,
    ((16, 64), (1, 1), (32, 1), (1, 4), 32): 16,
    ((32, 2), (1, 4), (32, 1), (1, 4), 32): 2,
    ((32, 64), (4, 1), (8, 4), (1, 4), 64): 128,
    ((32, 64), (4, 1), (8, 4), (1, 4), 16): 64,
    ((32, 64), (1, 1), (32, 1), (1, 4), 64): 32,
}


@pytest.mark.parametrize("case", sorted(EMITTED_SHUFFLES))
def test_shuffle_count_matches_triton_emitted_code(case: tuple) -> None:  # type: ignore[type-arg]
    shape, size, threads, warps, bits = case
    layout = to_linear_layout(_blocked(list(size), list(threads), list(warps)), list(shape))
    path = gather_path(layout, layout, 0)
    assert path.warp_local
    assert path.shuffles(bits) == EMITTED_SHUFFLES[case]


@pytest.mark.triton
def test_shuffle_count_and_path_against_triton() -> None:
    """Compile gathers with the installed Triton 3.9 and count its shuffles and scratch."""
    require_triton()
    from llverify.triton.compile import compile_ttgir

    kernel = (DATA / "gather_fp32_sm80.ttgir").read_text()
    for encoding, shuffles in (
        (_blocked([4, 1], [8, 4], [1, 4]), 64),
        (_blocked([1, 1], [32, 1], [2, 2]), 32),
        (_blocked([1, 1], [8, 4], [4, 1]), 0),  # warp bases along the axis: shared memory
    ):
        text = re.sub(r"^#blocked1 = .*$", f"#blocked1 = {encoding}", kernel, flags=re.M)
        (f,) = _findings(text, "gather-warp-local")
        llir = compile_ttgir(text, "cuda:80").llir
        emitted = len(re.findall(r"call .*shfl\.sync\.idx", llir))
        assert emitted == shuffles == f.data.get("shuffles", 0), (encoding, f.summary)


def test_gather_path_refuses_bad_arguments() -> None:
    layout = to_linear_layout(LANES_ON_AXIS, [32, 64])
    with pytest.raises(ValueError, match="axis: expected an int in \\[0, 2\\), got 2"):
        gather_path(layout, layout, 2)
    with pytest.raises(TypeError, match="idx: expected a LinearLayout, got str"):
        gather_path(layout, "x", 0)  # type: ignore[arg-type]
    assert GatherPath(False, "x", {}, 4, 1).shuffles(32) == 0


# ---------------------------------------------------------------- store-writer

COPIES_2X8 = _blocked([1, 1], [4, 8], [4, 1], "1, 0")
ONE_D = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"


def test_store_with_lane_and_warp_copies_states_the_predicate() -> None:
    body = "  tt.store %p, %v : tensor<2x8x!tt.ptr<f32>, #b>"
    (f,) = _findings(_module(body, b=COPIES_2X8), "store-writer")
    assert str(f.status) == "ok"
    assert f.data["predicate"] == "lane & 0b10000 == 0 and warp & 0b11 == 0"
    assert f.data["thread_mask"] == 0x70 and f.data["copies"] == 8
    assert "tid & 0x70 == 0" in f.summary
    witness = f.data["witness"]
    layout = to_linear_layout(COPIES_2X8, [2, 8])
    zero = {"register": 0, "lane": 0, "warp": 0, "block": 0}
    assert layout.apply({**zero, **witness["first"]}) == witness["element"]
    assert layout.apply({**zero, **witness["second"]}) == witness["element"]
    assert witness["first"] != witness["second"]


def test_store_with_register_copies_skips_registers() -> None:
    linear = (
        "#ttg.linear<{register = [[0, 1], [0, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], "
        "[4, 0]], warp = [[8, 0], [16, 0]], block = []}>"
    )
    body = "  tt.store %p, %v : tensor<32x8x!tt.ptr<f32>, #b>"
    (f,) = _findings(_module(body, b=linear), "store-writer")
    assert f.data["predicate"] == "true" and f.data["skipped_registers"] == 0b10
    assert "registers r with r & 0b10 != 0 skipped" in f.summary
    assert f.data["witness"]["second"] == {"register": 2}


def test_atomic_and_scalar_stores() -> None:
    body = (
        "  %x = tt.atomic_rmw fadd, acq_rel, gpu, %a, %v, %m : (tensor<2x8x!tt.ptr<f32>, #b>, "
        "tensor<2x8xf32, #b>, tensor<2x8xi1, #b>) -> tensor<2x8xf32, #b>\n"
        "  tt.store %s, %c : !tt.ptr<f32>"
    )
    atomic, scalar = _findings(_module(body, b=COPIES_2X8), "store-writer")
    assert atomic.op == "tt.atomic_rmw" and atomic.data["thread_mask"] == 0x70
    assert scalar.data["thread_mask"] == 127 and "a scalar all 128 threads hold" in scalar.summary
    assert scalar_writers(64, 8).thread_mask == 511
    with pytest.raises(ValueError, match="num_warps: expected a power of 2 >= 1, got 3"):
        scalar_writers(32, 3)
    with pytest.raises(TypeError, match="layout: expected a LinearLayout, got int"):
        writers(3)  # type: ignore[arg-type]


@pytest.mark.triton
def test_store_predicate_against_triton() -> None:
    """Triton 3.9 predicates the store and the atomic on ``tid & thread_mask == 0``."""
    require_triton()
    from llverify.triton.compile import compile_ttgir

    body = """  tt.func public @k(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #b}>>
    %e = tt.expand_dims %r {axis = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #b}>> -> tensor<1x8xi32, #b>
    %o = tt.broadcast %e : tensor<1x8xi32, #b> -> tensor<2x8xi32, #b>
    %s = tt.splat %p : !tt.ptr<f32> -> tensor<2x8x!tt.ptr<f32>, #b>
    %a = tt.addptr %s, %o : tensor<2x8x!tt.ptr<f32>, #b>, tensor<2x8xi32, #b>
    %v = arith.constant dense<1.0> : tensor<2x8xf32, #b>
    %m = arith.constant dense<true> : tensor<2x8xi1, #b>
    %x = tt.atomic_rmw fadd, acq_rel, gpu, %a, %v, %m : (tensor<2x8x!tt.ptr<f32>, #b>, tensor<2x8xf32, #b>, tensor<2x8xi1, #b>) -> tensor<2x8xf32, #b>
    tt.store %a, %v : tensor<2x8x!tt.ptr<f32>, #b>
    tt.return
  }"""  # noqa: E501
    text = _module(body, b=COPIES_2X8)
    masks = {f.data["thread_mask"] for f in _findings(text, "store-writer")}
    assert masks == {0x70}
    llir = compile_ttgir(text, "cuda:80").llir
    tid = re.search(r"(%\d+) = tail call i32 @llvm\.nvvm\.read\.ptx\.sreg\.tid\.x", llir)
    assert tid is not None
    masked = re.search(rf"(%\d+) = and i32 {tid.group(1)}, 112\b", llir)
    assert masked is not None
    predicate = re.search(rf"(%\d+) = icmp eq i32 {masked.group(1)}, 0", llir)
    assert predicate is not None
    guarded = re.findall(rf"(atom\.global|st\.global)[^\n]*i1 {predicate.group(1)}\)", llir)
    assert sorted(set(guarded)) == ["atom.global", "st.global"]


# ---------------------------------------------------------------- copies

REDUCE = """  %0 = "tt.reduce"(%x) <{{axis = {axis} : i32}}> ({{
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tt.reduce.return %s : f32
  }}) : (tensor<{shape}xf32, #b>) -> tensor<{out}xf32, #ttg.slice<{{dim = {axis}, parent = #b}}>>"""


def test_reduce_over_register_copies_is_reported_not_flagged() -> None:
    linear = (
        "#ttg.linear<{register = [[0, 1], [0, 0], [0, 2]], lane = [[0, 4], [1, 0], [2, 0], "
        "[4, 0], [0, 0]], warp = [[8, 0], [0, 0]], block = []}>"
    )
    body = REDUCE.format(axis=1, shape="16x8", out="16") + (
        "\n  %1 = arith.mulf %0, %0 : tensor<16xf32, #ttg.slice<{dim = 1, parent = #b}>>"
        "\n  tt.store %p, %1 : tensor<16x!tt.ptr<f32>, #ttg.slice<{dim = 1, parent = #b}>>"
    )
    (f,) = _findings(_module(body, b=linear), "copies")
    assert str(f.status) == "ok"
    assert f.data["operand"] == {"register": 0b10, "lane": 0b10000, "warp": 0b10}
    assert f.data["operand_copies"] == 8
    assert "register 0b10, lane 0b10000, warp 0b10 (each element held 8 times)" in f.summary
    assert "combines each element once" in f.summary
    # replay the witness: registers 0 and 2 hold one element
    witness = f.data["witness"]
    assert witness == {
        "first": {"register": 0},
        "second": {"register": 2},
        "element": witness["element"],
    }
    layout = to_linear_layout(linear, [16, 8])
    zero = {"register": 0, "lane": 0, "warp": 0, "block": 0}
    assert layout.apply(zero) == layout.apply({**zero, "register": 2}) == witness["element"]
    # the result: lane bit 0 (dim1) became a copy as well; the store sees each value 8 times
    assert f.data["result"] == {"lane": 0b10001, "warp": 0b10}
    (consumer,) = f.data["consumers"]
    assert consumer["op"] == "tt.store" and consumer["copies"] == 8
    assert consumer["predicate"] == "lane & 0b10001 == 0 and warp & 0b10 == 0"


def test_copies_followed_through_a_conversion_to_a_reduction() -> None:
    slice_b = "#ttg.slice<{dim = 1, parent = #b}>"
    body = REDUCE.format(axis=1, shape="2x8", out="2") + (
        f"\n  %1 = ttg.convert_layout %0 : tensor<2xf32, {slice_b}> -> tensor<2xf32, #c>"
        '\n  %2 = "tt.reduce"(%1) <{axis = 0 : i32}> ({'
        "\n  ^bb0(%a: f32, %b: f32):\n    %s = arith.addf %a, %b : f32"
        "\n    tt.reduce.return %s : f32\n  }) : (tensor<2xf32, #c>) -> f32"
        f"\n  %3 = tt.expand_dims %0 {{axis = 1 : i32}} : tensor<2xf32, {slice_b}> -> "
        "tensor<2x1xf32, #b>"
    )
    first, second = _findings(_module(body, b=COPIES_2X8, c=ONE_D), "copies")
    (consumer,) = first.data["consumers"]
    assert consumer["op"] == "tt.reduce" and consumer["copies"] == 64
    sees = consumer["sees"]
    assert sees == "each value 64 times (lane 0b11110, warp 0b11), each element combined once"
    assert first.data["not_followed"] == ["tt.expand_dims"]
    assert second.data["operand"] == {"lane": 0b11110, "warp": 0b11}
    assert second.data["result"] == "scalar"


def test_scan_and_histogram_copies() -> None:
    body = (
        '  %0 = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({\n'
        "  ^bb0(%a: f32, %b: f32):\n    %s = arith.addf %a, %b : f32\n"
        "    tt.scan.return %s : f32\n  }) : (tensor<16xf32, #b>) -> tensor<16xf32, #b>\n"
        "  %h = tt.histogram %i : tensor<64xi32, #b> -> tensor<16xi32, #b>\n"
        "  tt.store %q, %h : tensor<16x!tt.ptr<i32>, #b>"
    )
    scan, histogram = _findings(_module(body, b=ONE_D), "copies")
    assert scan.data["operand"] == {"lane": 16, "warp": 3} == scan.data["result"]
    assert "scan the same elements" in scan.summary
    assert histogram.data["operand"] == {"warp": 2}
    assert "counts each element once" in histogram.summary
    assert histogram.data["consumers"][0]["copies"] == 8


# ---------------------------------------------------------------- the real fixtures


def test_every_fixture_op_is_checked_without_false_alarms() -> None:
    counts: dict[tuple[str, str], int] = {}
    for kernel in sorted(DATA.glob("*.ttgir")):
        report = audit(kernel.read_text())
        assert not [s for s in report.skips if s.rule in PRECONDITION_RULES], kernel.name
        for f in report.findings:
            if f.rule in PRECONDITION_RULES:
                key = (f.rule, str(f.status))
                counts[key] = counts.get(key, 0) + 1
    assert counts == {
        ("copies", "ok"): 205,  # every tt.reduce (no scan or histogram in the fixtures)
        ("gather-warp-local", "proved"): 1,
        ("store-writer", "ok"): 22,
    }


def test_fixture_gather_and_reductions() -> None:
    (gather,) = _findings((DATA / "gather_fp32_sm80.ttgir").read_text(), "gather-warp-local")
    assert gather.data["efficient_layout"] and gather.data["shuffles"] == 16
    reduces = _findings((DATA / "broadcast_reduce_fp32_sm80.ttgir").read_text(), "copies")
    assert [f.data["result"] for f in reduces] == [{"lane": 16, "warp": 3}] * 3
    assert reduces[0].data["consumers"][0]["sees"] == "no duplicated values"
    stores = _findings((DATA / "layernorm_fwd_fp16_sm80.ttgir").read_text(), "store-writer")
    assert [f.data["thread_mask"] for f in stores] == [127, 127, 0]
