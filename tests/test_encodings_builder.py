"""The converters' fast path (llverify/encodings/builder.py) against their reference path.

* every builder step against the LinearLayout operation it stands for, on generated layouts,
  and the inputs it must leave to the reference (negative controls);
* every converter family with a fast path (blocked, slice, FMA / NVIDIA MMA / AMD MFMA / AMD
  WMMA accumulators and dot operands) on generated encodings and shapes, errors included:
  the fast path gives the reference's layout, bit for bit, or leaves the case to it;
* the fast path covers the common cases (the benchmark's), with the reference path disabled;
* to_linear_layout's cache: a hit is the same object, and what a hit skips is still checked
  for arguments it has not seen (a bool or numpy shape).

Both paths are also compared with Triton 3.9 by the differential tests of each family.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify import LinearLayout
from llverify.encodings import (
    BlockedLayout,
    DotOperandLayout,
    EncodingError,
    NVMMADistributedLayout,
    SliceLayout,
    amd_mfma,
    amd_wmma,
    blocked,
    clear_cache,
    nvidia_mma,
    to_linear_layout,
)
from llverify.encodings.amd_mfma import AMDMFMALayout
from llverify.encodings.amd_wmma import VALID_INSTR_SHAPES, AMDWMMALayout
from llverify.encodings.builder import LayoutBuilder, NotCoveredError, cga_builder
from llverify.errors import LayoutError, LayoutTypeError, LLVerifyError
from llverify.layout_utils import (
    ensure_layout_not_larger_than,
    ensure_layout_not_smaller_than,
)


@contextlib.contextmanager
def reference_only() -> Iterator[None]:
    """Every fast path gives up (each ends in LayoutBuilder.layout or slice_layout)."""

    def give_up(*args: Any) -> Any:
        raise NotCoveredError

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LayoutBuilder, "layout", give_up)
        patch.setattr(blocked, "slice_layout", give_up)
        yield


@contextlib.contextmanager
def fast_only() -> Iterator[None]:
    """The reference paths fail the test if reached."""

    def reached(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the reference path ran")

    with pytest.MonkeyPatch.context() as patch:
        for module in (blocked, nvidia_mma, amd_mfma, amd_wmma):
            patch.setattr(module, "combine_cta_cga_with_shape", reached)
        patch.setattr(blocked, "remove_standard_dim", reached)
        yield


def outcome(build: Any) -> Any:
    """The layout built, or the error (type and message) raised."""
    try:
        return build()
    except (LLVerifyError, AssertionError) as error:
        return (type(error), str(error))


def both_paths(encoding: Any, shape: list[int]) -> tuple[Any, Any]:
    fast = outcome(lambda: encoding.to_linear_layout(shape))
    with reference_only():
        reference = outcome(lambda: encoding.to_linear_layout(shape))
    return fast, reference


# ---------------------------------------------------------------------- builder steps

pow2 = st.integers(0, 4).map(lambda b: 1 << b)
sizes_or_0 = st.one_of(pow2, st.just(0))  # identity_1d(0) and zeros_1d(0) are empty()


@st.composite
def unit_steps(draw: Any, rank: int = 2) -> list[tuple[str, str, int, int]]:
    """identity / zeros factors (kind, in dim, size, out dim index)."""
    return draw(
        st.lists(
            st.tuples(
                st.sampled_from(["identity", "identity", "zeros"]),
                st.sampled_from(["register", "lane", "warp"]),
                sizes_or_0,
                st.integers(0, rank - 1),
            ),
            max_size=8,
        )
    )


def generic(steps: list[tuple[str, str, int, int]]) -> LinearLayout:
    layout = LinearLayout.empty()
    for kind, in_dim, size, out in steps:
        factor = LinearLayout.identity_1d if kind == "identity" else LinearLayout.zeros_1d
        layout = layout * factor(size, in_dim, f"dim{out}")
    return layout


def built(steps: list[tuple[str, str, int, int]], rank: int = 2) -> LayoutBuilder:
    b = LayoutBuilder(rank)
    for kind, in_dim, size, out in steps:
        getattr(b, kind)(size, in_dim, out)
    return b


@settings(max_examples=200, deadline=None)
@given(unit_steps(), unit_steps())
def test_identity_zeros_and_times_are_the_products(first, second) -> None:
    assert built(first).layout() == generic(first)
    b = built(first)
    try:
        expected = generic(first) * generic(second)
    except LLVerifyError:  # dims in conflicting orders: the builder leaves it too
        with pytest.raises(NotCoveredError):
            b.times(built(second))
        return
    b.times(built(second))
    assert b.layout() == expected


@settings(max_examples=200, deadline=None)
@given(unit_steps(), st.lists(st.integers(0, 6), min_size=2, max_size=2), st.booleans())
def test_grow_and_shrink_are_the_ensure_helpers(steps, log2s, broadcast) -> None:
    reference = generic(steps)
    sizes = [1 << v for v in log2s]
    names = reference.get_out_dim_names()
    if not reference.num_in_dims or not names:
        return
    target = {d: sizes[int(d[3:])] for d in names}
    b = built(steps)
    b.grow(sizes)
    grown = ensure_layout_not_smaller_than(reference, target)
    assert b.layout() == grown
    b.shrink(sizes, broadcast)
    assert b.layout() == ensure_layout_not_larger_than(grown, target, broadcast)


def test_times_moves_every_field_of_a_general_column() -> None:
    swizzled = LinearLayout.from_bases(
        [("warp", [[1, 1], [0, 1], [0, 2], [2, 0]])], ["dim0", "dim1"]
    )
    tile = generic([("identity", "register", 4, 0), ("identity", "lane", 2, 1)])
    b = built([("identity", "register", 4, 0), ("identity", "lane", 2, 1)])
    b.times(LayoutBuilder.from_bases(2, [("warp", [[1, 1], [0, 1], [0, 2], [2, 0]])], [0, 1]))
    assert b.layout() == tile * swizzled


def test_combine_is_combine_cta_cga_with_shape() -> None:
    from llverify.encodings.base import cga_linear_layout, combine_cta_cga_with_shape

    steps = [("identity", "register", 4, 1), ("identity", "lane", 8, 1), ("identity", "lane", 4, 0)]
    for shape in ([1, 1], [2, 64], [16, 8], [256, 2]):
        for broadcast in (True, False):
            reference = combine_cta_cga_with_shape(
                generic(steps), cga_linear_layout([[1, 0]], 2, "E"), shape, broadcast
            )
            assert built(steps).combine(cga_builder([[1, 0]], 2), shape, broadcast) == reference


@pytest.mark.parametrize(
    "step",
    [
        lambda b: b.identity(3, "register", 0),  # not a power of 2
        lambda b: b.identity(-2, "register", 0),
        lambda b: b.identity(1 << 31, "register", 0),  # past the 2**30 cap
        lambda b: b.zeros(6, "lane", 0),
        lambda b: [b.identity(1 << 20, "register", 1), b.identity(1 << 20, "lane", 1)],
        lambda b: b.transpose_outs([1]),  # not a permutation of the out dims
        lambda b: b.shrink([3, 1], True),  # a size that is not a power of 2
    ],
)
def test_steps_leave_what_they_do_not_cover_to_the_reference(step) -> None:
    b = LayoutBuilder(2)
    b.identity(2, "register", 0)
    with pytest.raises(NotCoveredError):
        step(b)


def test_growing_without_an_in_dim_is_left_to_the_reference() -> None:
    b = LayoutBuilder(1)
    b.identity(1, "register", 0)
    b._ins.clear()  # an out dim and no in dim: the reference raises
    with pytest.raises(NotCoveredError):
        b.grow([4])


def test_shrinking_a_non_power_of_2_coordinate_is_left_to_the_reference() -> None:
    # Negative control: the reference refuses it with a LayoutError; the builder must not
    # answer anything.
    b = LayoutBuilder.from_bases(1, [("register", [[3], [1], [4]])], [0])
    with pytest.raises(NotCoveredError):
        b.shrink([2], True)
    layout = LinearLayout.from_bases([("register", [[3], [1], [4]])], ["dim0"])
    with pytest.raises(LayoutError, match="only powers of 2"):
        ensure_layout_not_larger_than(layout, {"dim0": 2})


def test_from_bases_refuses_a_layout_that_is_not_surjective() -> None:
    with pytest.raises(NotCoveredError):
        LayoutBuilder.from_bases(1, [("warp", [[2]])], [0])
    with pytest.raises(NotCoveredError):
        LayoutBuilder.from_bases(1, [("warp", [[1 << 30]])], [0])


# ---------------------------------------------------------------------- converter families

shapes = st.integers(0, 9).map(lambda b: 1 << b)
odd_shapes = st.one_of(shapes, shapes, shapes, st.sampled_from([1 << 31, 1 << 40]))


@st.composite
def cga_layouts(draw: Any, rank: int) -> list[list[int]]:
    """Valid CGA bases: distinct unit vectors (each dim's bits all present) and zeros."""
    bases = []
    for d in range(rank):
        for bit in range(draw(st.integers(0, 2) if draw(st.booleans()) else st.just(0))):
            basis = [0] * rank
            basis[d] = 1 << bit
            bases.append(basis)
    bases += [[0] * rank] * draw(st.integers(0, 1))
    return draw(st.permutations(bases))


@st.composite
def blocked_layouts(draw: Any, min_rank: int = 1) -> BlockedLayout:
    rank = draw(st.integers(min_rank, 3))
    sizes = st.lists(st.integers(0, 3).map(lambda b: 1 << b), min_size=rank, max_size=rank)
    order = draw(st.permutations(range(rank)))
    return BlockedLayout(draw(sizes), draw(sizes), draw(sizes), order, draw(cga_layouts(rank)))


def shape_of(draw: Any, rank: int) -> list[int]:
    return draw(st.lists(odd_shapes, min_size=rank, max_size=rank))


def assert_same(encoding: Any, shape: list[int]) -> None:
    fast, reference = both_paths(encoding, shape)
    assert fast == reference, (encoding, shape)
    if isinstance(fast, LinearLayout):
        assert fast.bases == reference.bases and fast.out_dims == reference.out_dims


@settings(max_examples=250, deadline=None)
@given(st.data())
def test_blocked(data) -> None:
    encoding = data.draw(blocked_layouts())
    assert_same(encoding, shape_of(data.draw, encoding.rank))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_slice_and_fma_dot(data) -> None:
    parent = data.draw(blocked_layouts(min_rank=2))
    dim = data.draw(st.integers(0, parent.rank - 1))
    assert_same(SliceLayout(dim, parent), shape_of(data.draw, parent.rank - 1))
    dot = DotOperandLayout(data.draw(st.integers(0, 1)), parent, 0)
    assert_same(dot, shape_of(data.draw, parent.rank))


@st.composite
def nvidia_mmas(draw: Any) -> NVMMADistributedLayout:
    hopper = draw(st.booleans())
    rank = 2 if hopper else draw(st.integers(2, 3))
    warps = draw(st.lists(st.integers(0, 3).map(lambda b: 1 << b), min_size=rank, max_size=rank))
    if hopper:
        instr = [16, draw(st.sampled_from([8, 16, 32, 64, 128, 256])), 16]
    else:
        instr = [1] * (rank - 2) + [draw(st.sampled_from([8, 16, 32])), 8]
    version = [3 if hopper else 2, 0]
    return NVMMADistributedLayout(version, warps, instr, draw(cga_layouts(rank)))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_nvidia_mma_and_its_dot_operands(data) -> None:
    parent = data.draw(nvidia_mmas())
    assert_same(parent, shape_of(data.draw, parent.rank))
    operand = 0 if parent.is_hopper() else data.draw(st.integers(0, 1))
    dot = DotOperandLayout(operand, parent, data.draw(st.sampled_from([1, 2, 4, 8])))
    assert_same(dot, shape_of(data.draw, parent.rank))
    assert_same(
        SliceLayout(data.draw(st.integers(0, parent.rank - 1)), parent), [64] * (parent.rank - 1)
    )


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_amd_mfma_and_its_dot_operands(data) -> None:
    rank = data.draw(st.integers(2, 3))
    sizes = st.lists(st.integers(0, 2).map(lambda b: 1 << b), min_size=rank, max_size=rank)
    m, n = data.draw(st.sampled_from(amd_mfma.MFMA_INSTR_SHAPES))
    try:
        parent = AMDMFMALayout(
            data.draw(st.integers(1, 4)),
            [m, n, data.draw(st.sampled_from([4, 8, 16]))],
            data.draw(st.booleans()),  # 64x4 not transposed: both paths raise
            data.draw(sizes),
            data.draw(st.sampled_from([32, 64])),
            data.draw(sizes),
            data.draw(cga_layouts(rank)),
        )
    except EncodingError:
        return
    assert_same(parent, shape_of(data.draw, rank))
    dot = DotOperandLayout(data.draw(st.integers(0, 1)), parent, data.draw(pow2))
    assert_same(dot, shape_of(data.draw, rank))


@st.composite
def wmma_cta(draw: Any, rank: int) -> tuple[list[list[int]], list[list[int]]]:
    """(warp bases, register bases) of a surjective CTA layout in tiles: unit vectors, a
    zero basis sometimes, and sometimes one basis XOR-ed into another (a swizzle, whose
    coordinates need not be powers of 2)."""
    bases = []
    for d in range(rank):
        for bit in range(draw(st.integers(0, 2))):
            basis = [0] * rank
            basis[d] = 1 << bit
            bases.append(basis)
    bases = draw(st.permutations(bases))
    if len(bases) >= 2 and draw(st.booleans()):
        i, j = draw(st.permutations(range(len(bases))))[:2]
        bases[i] = [a ^ b for a, b in zip(bases[i], bases[j])]
    if draw(st.booleans()):
        bases.append([0] * rank)
    split = draw(st.integers(0, len(bases)))
    return bases[:split], bases[split:]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_amd_wmma_and_its_dot_operands(data) -> None:
    version = data.draw(st.integers(1, 3))
    rank = data.draw(st.integers(2, 3))
    warps, registers = data.draw(wmma_cta(rank))
    parent = AMDWMMALayout(
        version,
        data.draw(st.booleans()),
        warps,
        registers,
        list(data.draw(st.sampled_from(VALID_INSTR_SHAPES[version]))),
        data.draw(cga_layouts(rank)),
        rank,
    )
    assert_same(parent, shape_of(data.draw, rank))
    try:
        dot = DotOperandLayout(
            data.draw(st.integers(0, 1)), parent, data.draw(st.sampled_from([4, 8, 16]))
        )
    except EncodingError:
        return
    assert_same(dot, shape_of(data.draw, rank))


def test_a_swizzled_wmma_cta_is_left_to_the_reference_where_it_shrinks() -> None:
    # Negative control: shrinking a dim with a coordinate that is not a power of 2 (3 tiles
    # along dim0) is refused by the reference; the fast path must give up, not answer.
    parent = AMDWMMALayout(2, False, [[1, 0], [3, 0]], rank=2)
    fast, reference = both_paths(parent, [16, 16])
    assert fast == reference
    assert fast[0] is LayoutError and "only powers of 2" in fast[1]
    with fast_only():  # no shrinking along dim0: the fast path answers
        fast = parent.to_linear_layout([64, 16])
    assert both_paths(parent, [64, 16]) == (fast, fast)


# ---------------------------------------------------------------------- coverage and the cache

COMMON = [
    (BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), [128, 128]),
    (SliceLayout(0, BlockedLayout([1, 4], [8, 4], [2, 2], [0, 1])), [256]),
    (DotOperandLayout(1, BlockedLayout([2, 2], [4, 8], [1, 4], [1, 0]), 0), [64, 64]),
    (NVMMADistributedLayout([2, 0], [4, 1], [16, 8]), [128, 128]),
    (NVMMADistributedLayout([3, 0], [8, 1], [16, 128, 16]), [128, 256]),
    (DotOperandLayout(0, NVMMADistributedLayout([2, 0], [2, 2], [16, 8]), 4), [128, 128]),
    (AMDMFMALayout(3, [32, 32, 8], True, [2, 2]), [128, 128]),
    (DotOperandLayout(1, AMDMFMALayout(3, [16, 16, 16], True, [4, 1]), 8), [128, 128]),
    (AMDWMMALayout(2, False, [[1, 0], [2, 0]]), [64, 64]),
    (DotOperandLayout(0, AMDWMMALayout(1, True, [[0, 1]]), 16), [64, 64]),
    (BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0], [[1, 0], [0, 1]]), [128, 128]),
]


@pytest.mark.parametrize(("encoding", "shape"), COMMON)
def test_the_fast_path_covers_the_common_cases(encoding, shape) -> None:
    with fast_only():
        fast = encoding.to_linear_layout(shape)
    with reference_only():
        assert fast == encoding.to_linear_layout(shape)


def test_a_cached_call_is_a_lookup_and_new_arguments_are_still_checked() -> None:
    clear_cache()
    encoding = BlockedLayout([1, 2], [4, 8], [1, 1], [1, 0])
    first = to_linear_layout(encoding, [2, 16])
    assert to_linear_layout(encoding, (2, 16)) is first
    assert to_linear_layout(BlockedLayout([1, 2], [4, 8], [1, 1], [1, 0]), [2, 16]) is first
    assert to_linear_layout(encoding, [np.int64(2), 16]) == first  # checked, then converted
    with pytest.raises(LayoutTypeError, match="bool"):
        to_linear_layout(encoding, [2, True])  # a bool is not the int it equals
    with pytest.raises(LayoutTypeError):
        to_linear_layout(encoding, [2.0, 16])
    shape = [2, 16]
    to_linear_layout(encoding, shape)
    shape[1] = 3  # the cache holds a copy of the key, not the caller's list
    with pytest.raises(EncodingError, match="power"):
        to_linear_layout(encoding, shape)
    text = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>"  # noqa: E501
    assert to_linear_layout(text, [2, 16]) is first  # another spelling shares the result
    clear_cache()
    assert to_linear_layout(encoding, [2, 16]) is not first


@pytest.mark.triton
def test_a_gluon_object_is_keyed_once_converted() -> None:
    # Negative control: a Gluon layout holds lists the caller may change; the cache must not
    # answer for the object as it was.
    pytest.importorskip("triton")
    from triton.experimental.gluon import language as ttgl

    clear_cache()
    gluon = ttgl.BlockedLayout([1, 2], [4, 8], [1, 1], [1, 0])
    before = to_linear_layout(gluon, [4, 16])
    gluon.size_per_thread[1] = 4
    after = to_linear_layout(gluon, [4, 16])
    assert after == to_linear_layout(BlockedLayout([1, 4], [4, 8], [1, 1], [1, 0]), [4, 16])
    assert after != before


def test_the_cache_is_bounded(monkeypatch) -> None:
    from llverify import encodings

    clear_cache()
    monkeypatch.setattr(encodings, "_MAX_CONVERTED", 3)
    for size in (2, 4, 8, 16, 32):
        to_linear_layout(BlockedLayout([1], [1], [1], [0]), [size])
    assert 0 < len(encodings._CONVERTED) <= 3
    clear_cache()
