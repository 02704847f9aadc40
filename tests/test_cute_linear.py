"""CuTe layouts <-> LinearLayouts: exact conversion, refusals, prove_equal, the access analyses."""

from __future__ import annotations

import random
from typing import Any

import pytest

from llverify import (
    LinearLayout,
    access_analysis,
    bank_conflicts,
    cute,
    prove_equal,
    warp_bank_conflicts,
)
from llverify.arguments import layout_argument
from llverify.cute import ComposedLayout, Layout, NotLinearError, Swizzle
from llverify.errors import LayoutError, LayoutTypeError

MMA_V2 = (
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], "
    "instrShape = [16, 8]}>"
)
#: CuTe's SM80 16x8 accumulator (C/D) thread-value layout (cute/atom/mma_traits_sm80.hpp)
SM80_16X8_C = "((4,8),(2,2)):((32,1),(16,8))"
SWIZZLED_FP16 = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"


def _random_linear(rng: random.Random) -> Layout | ComposedLayout:
    """A GF(2)-linear CuTe layout: power-of-2 modes over a permutation of the offset bits
    (some strides 0), optionally swizzled."""
    bits = rng.randint(1, 9)
    order = list(range(bits))
    rng.shuffle(order)
    leaves: list[tuple[int, int]] = []
    i = 0
    while i < len(order):
        run = rng.randint(1, 3)
        if rng.random() < 0.15:
            leaves.append((1 << rng.randint(1, 2), 0))
        leaves.append((1 << min(run, len(order) - i), 1 << order[i]))
        # consecutive bits only when the permutation has them: a mode of shape 2^k walks
        # k consecutive offset bits from its stride
        for k in range(1, run):
            if i + k < len(order):
                order[i + k] = order[i] + k
        i += run
    taken: set[int] = set()
    modes = []
    for shape, stride in leaves:
        span = (
            {stride.bit_length() - 1 + k for k in range(shape.bit_length() - 1)}
            if stride
            else set()
        )
        if span & taken:
            continue
        taken |= span
        modes.append(Layout(shape, stride))
    split = rng.randint(1, len(modes)) if len(modes) > 1 else 1
    first, second = modes[:split], modes[split:]
    groups = [cute.make_layout(first)] + ([cute.make_layout(second)] if second else [])
    layout = cute.make_layout(groups) if len(groups) > 1 else groups[0]
    if rng.random() < 0.5 and bits >= 3:
        b = rng.randint(1, max(1, bits // 3))
        s = rng.randint(b, bits - b)
        m = rng.randint(0, max(0, bits - b - s))
        return ComposedLayout(Swizzle(b, m, s), 0, layout)
    return layout


def _agrees(layout: Any, ll: LinearLayout) -> bool:
    """Whether the CuTe layout and its LinearLayout (one in dim per mode, the out dim
    ``offset``) agree on every coordinate."""
    sizes = [s for _, s in ll.in_dims]
    names = ll.get_in_dim_names()
    for flat in range(layout.size()):
        coord, rest = [], flat
        for size in sizes:
            coord.append(rest % size)
            rest //= size
        expected = layout._index(tuple(coord) if len(coord) > 1 else coord[0])
        if ll.apply(dict(zip(names, coord)))["offset"] != expected:
            return False
    return True


def test_round_trips_on_generated_linear_layouts() -> None:
    rng = random.Random(20)
    swizzled = 0
    for _ in range(300):
        layout = _random_linear(rng)
        ll = cute.to_linear_layout(layout)
        assert _agrees(layout, ll), layout
        back = cute.from_linear_layout(ll)
        assert cute.to_linear_layout(back) == ll, (layout, back)
        swizzled += isinstance(back, ComposedLayout)
    assert swizzled >= 30


def test_layout_with_disjoint_odd_strides_is_linear() -> None:
    ll = cute.to_linear_layout(Layout((2, 4), (3, 4)))
    assert [ll.apply({"dim0": a, "dim1": b})["offset"] for b in range(4) for a in range(2)] == [
        0, 3, 4, 7, 8, 11, 12, 15
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("layout", "mode", "stride", "words"),
    [
        (Layout((4, 3), (1, 4)), 1, None, "size 3, not a power of 2"),
        (Layout((4, 8), (1, 3)), 1, 3, "the images 1 and 3 share bits"),
        (Layout((4, 4), (3, 4)), 0, 3, "the images 3 and 6 share bits"),
        (Layout((4, 2), (1, -4)), 1, -4, "negative stride"),
        (Layout((2, 2), (1, 1)), 1, 1, "the images 1 and 1 share bits"),
    ],
)
def test_non_linear_layouts_are_refused_with_mode_and_stride(
    layout: Layout, mode: int, stride: int | None, words: str
) -> None:
    with pytest.raises(NotLinearError, match=words) as info:
        cute.to_linear_layout(layout)
    assert info.value.mode == mode and info.value.stride == stride
    assert f"mode {mode}" in str(info.value)


def test_offset_and_outer_layouts() -> None:
    with pytest.raises(NotLinearError, match="offset 4 adds a constant"):
        cute.to_linear_layout(ComposedLayout(Swizzle(1, 0, 1), 4, Layout(4)))
    # a linear outer layout composes in
    composed = ComposedLayout(Layout((2, 2), (2, 1)), 0, Layout(4))
    ll = cute.to_linear_layout(composed)
    assert [ll.apply({"dim0": i})["offset"] for i in range(4)] == [composed(i) for i in range(4)]
    with pytest.raises(NotLinearError, match="outer layout"):
        cute.to_linear_layout(ComposedLayout(Layout(4, 3), 0, Layout(4)))


def test_from_linear_layout_refuses_xor_no_swizzle_undoes() -> None:
    ll = LinearLayout.from_bases([("offset", [[1], [2], [3]])], ["o"], [4], False)
    with pytest.raises(NotLinearError, match="no Swizzle"):
        cute.from_linear_layout(ll)
    mixed = LinearLayout.from_bases([("offset", [[1], [3], [6], [8]])], ["o"])
    with pytest.raises(NotLinearError, match="no Swizzle"):
        cute.from_linear_layout(mixed)
    with pytest.raises(LayoutTypeError, match="'ll'"):
        cute.from_linear_layout("4:1")  # type: ignore[arg-type]


def test_out_dims_argument() -> None:
    ll = cute.to_linear_layout(Layout((2, 4), (4, 1)), ["t", "v"], [("m", 4), ("n", 2)])
    assert ll.bases == [("t", [[0, 1]]), ("v", [[1, 0], [2, 0]])]
    with pytest.raises(LayoutError, match="covers indices"):
        cute.to_linear_layout(Layout(8), out_dims=[("m", 4)])
    with pytest.raises(LayoutError, match="power of 2"):
        cute.to_linear_layout(Layout(8), out_dims=[("m", 6)])
    with pytest.raises(LayoutError, match="'in_dims'"):
        cute.to_linear_layout(Layout((2, 4)), ["a"])


# ---------------------------------------------------------------------- TV and shared views


def test_tv_layout_is_tritons_mma_accumulator() -> None:
    triton = layout_argument(MMA_V2, [16, 8], "mma")
    tile, tv = cute.linear_layout_to_tv(triton)
    assert tile == (16, 8) and tv == cute.parse(SM80_16X8_C)
    ours = cute.tv_to_linear_layout(cute.parse(SM80_16X8_C), (16, 8))
    assert prove_equal(triton, ours).proved


def test_tv_with_warps() -> None:
    tv = Layout(((32, 4), 4), ((4, 128 * 4), 1))  # 4 warps, each 32 lanes x 4 values of rows
    ll = cute.tv_to_linear_layout(tv, (128, 16))
    assert ll.in_dims == [("register", 4), ("lane", 32), ("warp", 4), ("block", 1)]
    assert ll.apply({"register": 1, "lane": 2, "warp": 1, "block": 0}) == {"dim0": 9, "dim1": 4}
    assert tv((2 + 32, 1)) == 9 + 128 * 4
    tile, back = cute.linear_layout_to_tv(ll)
    assert tile == (128, 16) and cute.tv_to_linear_layout(back, tile) == ll
    with pytest.raises(LayoutError, match="two modes"):
        cute.tv_to_linear_layout(Layout((4, 4, 4)), (8, 8))
    with pytest.raises(LayoutError, match="'tile_shape'"):
        cute.tv_to_linear_layout(tv, (96, 16))


def test_shared_layout_is_tritons_swizzle() -> None:
    triton = layout_argument(SWIZZLED_FP16, [8, 64], "shared")
    smem = cute.parse("Sw<3,3,3> o 0 o (8,64):(64,1)")
    assert cute.smem_from_linear_layout(triton) == smem
    assert cute.to_shared_layout(smem) == triton.sublayout(["offset"], ["dim0", "dim1"])
    with pytest.raises(LayoutError, match="one-to-one"):
        cute.to_shared_layout(Layout((8, 64), (128, 1)))
    with pytest.raises(NotLinearError, match="mode 0 \\(shape 8, stride 65\\)"):
        cute.to_shared_layout(Layout((8, 64), (65, 1)))  # padded: see lane_addresses


# ---------------------------------------------------------------------- prove_equal


def test_prove_equal_accepts_cute_references() -> None:
    triton = layout_argument(MMA_V2, [16, 8], "mma")
    proved = prove_equal(triton, cute.parse(SM80_16X8_C))
    assert proved.proved and "CuTe" in proved.claim
    # negative control: the two value modes swapped
    wrong = prove_equal(triton, cute.parse("((4,8),(2,2)):((32,1),(8,16))"))
    assert wrong.refuted and wrong.counterexample is not None
    assert triton.apply(wrong.counterexample) == wrong.actual != wrong.expected
    shared = layout_argument(SWIZZLED_FP16, [8, 64], "shared")
    assert prove_equal(shared, cute.parse("Sw<3,3,3> o 0 o (8,64):(64,1)")).proved
    refuted = prove_equal(shared, cute.parse("Sw<3,4,3> o 0 o (8,64):(64,1)"))
    assert refuted.refuted and refuted.counterexample == {"offset": 64, "block": 0}


def test_prove_equal_with_a_non_linear_cute_reference_enumerates() -> None:
    ll = LinearLayout.from_bases([("a", [[1], [2]]), ("b", [[4], [8]])], ["o"])
    assert prove_equal(ll, Layout((4, 4), (1, 4))).proved
    verdict = prove_equal(ll, Layout((4, 4), (1, 5)))  # not GF(2)-linear
    assert verdict.refuted and verdict.method == "exhaustive"
    point = verdict.counterexample
    assert point is not None and verdict.expected == {
        "o": Layout((4, 4), (1, 5))((point["a"], point["b"]))
    }
    with pytest.raises(LayoutError, match="mode sizes"):
        prove_equal(ll, Layout((4, 8)))


# ---------------------------------------------------------------------- access analyses


SMEMS = [
    "(32,32):(32,1)",  # row-major: column reads conflict
    "(32,32):(1,32)",
    "Sw<3,2,3> o 0 o (32,32):(32,1)",
    "Sw<2,3,3> o 0 o (32,32):(32,1)",
    "Sw<3,3,3> o 0 o (32,32):(32,1)",
]


def _tvs() -> list[tuple[Any, int]]:
    rows = cute.parse("((32,4),8):((1,256),32)")  # lane l, warp w, value v -> (l, 8 w + v)
    vec8 = cute.parse("((4,8,4),8):((256,1,8),32)")  # (b + 8 w, 8 a + v): 8 columns a lane
    vec4 = cute.parse("((8,4,4),(4,2)):((4,32,128),(1,512))")  # 4 consecutive rows per lane
    return [(rows, 1), (vec8, 8), (vec4, 4)]


@pytest.mark.parametrize("smem_text", SMEMS)
def test_access_analysis_takes_cute_layouts(smem_text: str) -> None:
    smem = cute.parse(smem_text)
    for tv, vec in _tvs():
        assert tv.size() == 1024, tv
        reg = cute.tv_to_linear_layout(tv, (32, 32))
        shared = cute.to_shared_layout(smem)
        direct = access_analysis(tv, smem, [32, 32], 16)
        assert direct == access_analysis(reg, shared, [32, 32], 16)
        whole = bank_conflicts(tv, smem, [32, 32], 16)
        elems = direct.elems_per_vec
        assert elems <= vec or vec == 1
        # the one-warp query on the first instruction gives the whole-tile model's count
        for warp in range(4):
            addresses = cute.lane_addresses(tv, smem, warp=warp, vector=elems)
            one = warp_bank_conflicts(addresses, 16 * elems)
            assert one.conflicts == whole.conflicts, (smem_text, tv, warp)


def test_lane_addresses_of_a_padded_layout() -> None:
    padded = Layout((32, 32), (33, 1))  # row-major with one element of padding per row
    column = Layout((32, 32), (1, 32))  # lane l holds row l: a column read
    assert warp_bank_conflicts(cute.lane_addresses(column, padded), 32).conflicts == 0
    unpadded = Layout((32, 32), (32, 1))
    assert warp_bank_conflicts(cute.lane_addresses(column, unpadded), 32).conflicts == 31


def test_lane_addresses_refusals() -> None:
    tv = Layout((32, 4), (4, 1))
    with pytest.raises(LayoutError, match="not contiguous"):
        cute.lane_addresses(Layout((32, 4), (1, 32)), Layout(128), vector=2)
    with pytest.raises(LayoutError, match="fewer than"):
        cute.lane_addresses(tv, Layout(128), warp=1)
    with pytest.raises(LayoutError, match="outside the smem layout's domain"):
        cute.lane_addresses(tv, Layout(64))
    with pytest.raises(LayoutTypeError, match="'vector'"):
        cute.lane_addresses(tv, Layout(128), vector=-1)


def test_access_arguments_refuse_mismatched_cute_layouts() -> None:
    with pytest.raises(LayoutError, match="Argument 'shared_layout'.*mode sizes"):
        access_analysis(Layout((32, 4), (4, 1)), Layout((16, 8)), [8, 16], 16)
    with pytest.raises(LayoutError, match="Argument 'register_layout'.*not GF"):
        access_analysis(Layout((32, 3), (3, 1)), Layout((16, 8)), [16, 8], 16)


def test_swizzle_synthesiser_takes_cute_tv_layouts() -> None:
    from llverify.shared_memory.swizzle import swizzle_cost, synthesize_swizzle

    rows, _, vec4 = (tv for tv, _ in _tvs())
    result = synthesize_swizzle(rows, vec4, [32, 32], 16, timeout_s=30)
    smem = cute.smem_from_linear_layout(result.layout)
    assert cute.to_shared_layout(smem) == result.layout.sublayout(["offset"], ["dim0", "dim1"])
    cost = swizzle_cost(rows, vec4, smem, [32, 32], 16)
    assert cost.total_wavefronts == result.cost.total_wavefronts
    plain = swizzle_cost(rows, vec4, cute.parse("(32,32):(32,1)"), [32, 32], 16)
    assert plain.total_wavefronts > cost.total_wavefronts


@pytest.mark.parametrize(
    ("tv_text", "smem_text", "vector"),
    [
        ("((4,8),(2,2,2)):((32,1),(16,8,128))", "(16,16):(16,1)", 1),
        ("((4,8),(2,2,2)):((32,1),(16,8,128))", "Sw<2,3,3> o 0 o (16,16):(16,1)", 2),
        ("((4,8),8):((128,1),16)", "Sw<3,3,3> o 0 o (16,128):(128,1)", 8),
        ("((4,8),8):((128,1),16)", "(16,128):(136,1)", 4),  # padded
        ("((8,4),2):((2,16),1)", "(2,32):(1,2) o 0 o (64):(1)", 2),  # a layout as outer
    ],
)
def test_lane_addresses_equal_the_element_by_element_call(
    tv_text: str, smem_text: str, vector: int
) -> None:
    """The flattened fast path gives what evaluating the two CuTe layouts gives."""
    tv, smem = cute.parse(tv_text), cute.parse(smem_text)
    expected = [smem._index(tv((lane, 0))) // vector for lane in range(32)]
    assert cute.lane_addresses(tv, smem, vector=vector) == expected
