"""Ports of Triton 3.9's C++ unit tests ``unittest/Tools/LinearLayoutTest.cpp``.

One function per C++ ``TEST_F``/``TEST``; every ``EXPECT_*``/``ASSERT_*`` is an assert with
the exact expected result of the C++ test.  Cases that only exist in forks with modular
(non-power-of-2) layouts are not ported: Triton 3.9 has no modular layouts.
"""

from __future__ import annotations

import pytest

from llverify.column_action import ColumnAction
from llverify.layout import LinearLayout
from llverify.layout_utils import (
    divide_left,
    divide_right,
    ensure_layout_not_smaller_than,
    supremum,
)

identity_1d = LinearLayout.identity_1d
zeros_1d = LinearLayout.zeros_1d


def ll(bases, outs, sizes=None, require_surjective=True):
    """C++ ``LinearLayout(bases, outDims)``; with ``sizes`` it is the explicit-size ctor."""
    if sizes is None:
        return LinearLayout.from_bases(bases, outs)
    return LinearLayout.from_bases(bases, outs, sizes, require_surjective=require_surjective)


# ---------------------------------------------------------------------- construction


def test_empty():
    """Ports C++ TEST_F(LinearLayoutTest, Empty)."""
    layout = LinearLayout.empty()
    assert layout.bases == []
    assert layout.get_in_dim_names() == []
    assert layout.get_out_dim_names() == []


def test_identity_1d():
    """Ports C++ TEST_F(LinearLayoutTest, Identity1D)."""
    layout = identity_1d(32, "testIns", "testOuts")
    assert layout == ll([("testIns", [[1], [2], [4], [8], [16]])], ["testOuts"])
    assert layout.get_in_dim_names() == ["testIns"]
    assert layout.get_out_dim_names() == ["testOuts"]
    assert layout.get_in_dim_size_log2("testIns") == 5
    assert layout.get_out_dim_size_log2("testOuts") == 5


def test_identity_1d_size_1():
    """Ports C++ TEST_F(LinearLayoutTest, Identity1DSize1)."""
    layout = identity_1d(1, "testIns", "testOuts")
    assert layout == ll([("testIns", [])], ["testOuts"])
    assert layout.get_in_dim_names() == ["testIns"]
    assert layout.get_out_dim_names() == ["testOuts"]
    assert layout.get_in_dim_size_log2("testIns") == 0
    assert layout.get_out_dim_size_log2("testOuts") == 0


def test_zeros_1d():
    """Ports C++ TEST_F(LinearLayoutTest, Zeros1D)."""
    layout = zeros_1d(32, "ins", "outs")
    assert layout == ll([("ins", [[0], [0], [0], [0], [0]])], ["outs"])


# ---------------------------------------------------------------------- operator*


def test_multiply_identity():
    """Ports C++ TEST_F(LinearLayoutTest, MultiplyIdentity)."""
    prod = identity_1d(16, "in", "out") * identity_1d(32, "in", "out")
    assert prod == ll([("in", [[1], [2], [4], [8], [16], [32], [64], [128], [256]])], ["out"])
    assert prod.get_in_dim_names() == ["in"]
    assert prod.get_out_dim_names() == ["out"]


def test_multiply_disjoint():
    """Ports C++ TEST_F(LinearLayoutTest, MultiplyDisjoint)."""
    prod = identity_1d(32, "in1", "out1") * identity_1d(16, "in2", "out2")
    assert prod == ll(
        [
            ("in1", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]),
            ("in2", [[0, 1], [0, 2], [0, 4], [0, 8]]),
        ],
        ["out1", "out2"],
    )
    assert prod.get_in_dim_names() == ["in1", "in2"]
    assert prod.get_out_dim_names() == ["out1", "out2"]


def test_multiply_by_empty():
    """Ports C++ TEST_F(LinearLayoutTest, MultiplyByEmpty)."""
    prod = LinearLayout.empty() * identity_1d(32, "in", "out")
    assert prod == identity_1d(32, "in", "out")


def test_multiply_by_zeros():
    """Ports C++ TEST_F(LinearLayoutTest, MultiplyByZeros)."""
    prod = identity_1d(8, "in", "out") * zeros_1d(16, "in", "out")
    assert prod == ll([("in", [[1], [2], [4], [0], [0], [0], [0]])], ["out"])


def test_multiply_zeros_by_degenerate():
    """Ports C++ TEST_F(LinearLayoutTest, MultiplyZerosByDegenerate)."""
    prod = zeros_1d(16, "in", "out1") * ll([("in", [])], ["out2"])
    assert prod == ll([("in", [[0, 0], [0, 0], [0, 0], [0, 0]])], ["out1", "out2"])


def test_multiply_empty_identity_and_zeros():
    """Ports C++ TEST_F(LinearLayoutTest, MultiplyEmptyIdentityAndZeros)."""
    prod = identity_1d(0, "in", "out") * zeros_1d(4, "in", "out")
    assert prod == ll([("in", [[0], [0]])], ["out"])


def test_multiply_overlapping():
    """Ports C++ TEST_F(LinearLayoutTest, MultiplyOverlapping)."""
    prod = identity_1d(4, "in", "out1") * identity_1d(8, "in", "out2")
    assert prod == ll([("in", [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]])], ["out1", "out2"])


def test_times_equals():
    """Ports C++ TEST_F(LinearLayoutTest, TimesEquals)."""
    prod = LinearLayout.empty()
    prod *= identity_1d(32, "in", "out")
    assert prod == identity_1d(32, "in", "out")


def test_get_out_dim_size_log2():
    """Ports C++ TEST_F(LinearLayoutTest, GetOutDimSizeLog2)."""
    layout = ll([("in0", [[0], [0], [0]]), ("in1", [[1], [2]])], ["dim0"])
    assert layout.get_out_dim_size_log2("dim0") == 2


# ---------------------------------------------------------------------- transpose


def test_transpose_outs():
    """Ports C++ TEST_F(LinearLayoutTest, TransposeOuts)."""
    layout = (identity_1d(32, "in1", "out1") * identity_1d(16, "in2", "out2")).transpose_outs(
        ["out2", "out1"]
    )
    assert layout.get_out_dim_names() == ["out2", "out1"]
    assert layout == ll(
        [
            ("in1", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]),
            ("in2", [[1, 0], [2, 0], [4, 0], [8, 0]]),
        ],
        ["out2", "out1"],
    )


def test_transpose_outs_degenerate():
    """Ports C++ TEST_F(LinearLayoutTest, TransposeOutsDegenerate)."""
    layout = (identity_1d(32, "in1", "out1") * identity_1d(1, "in2", "out2")).transpose_outs(
        ["out2", "out1"]
    )
    assert layout.get_out_dim_names() == ["out2", "out1"]
    assert layout == ll(
        [("in1", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]), ("in2", [])],
        ["out2", "out1"],
    )


def test_transpose_ins():
    """Ports C++ TEST_F(LinearLayoutTest, TransposeIns)."""
    layout = (identity_1d(32, "in1", "out1") * identity_1d(16, "in2", "out2")).transpose_ins(
        ["in2", "in1"]
    )
    assert layout.get_in_dim_names() == ["in2", "in1"]
    assert layout == ll(
        [
            ("in2", [[0, 1], [0, 2], [0, 4], [0, 8]]),
            ("in1", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]),
        ],
        ["out1", "out2"],
    )


def test_empty_to_string():
    """Ports C++ TEST_F(LinearLayoutTest, EmptyToString)."""
    assert LinearLayout.empty().to_string() == "\n(empty layout)"


def test_apply():
    """Ports C++ TEST_F(LinearLayoutTest, Apply)."""
    layout = ll(
        [("in1", [[4, 2], [2, 1], [1, 0]]), ("in2", [[1, 2], [2, 1]])],
        ["out1", "out2"],
        [8, 4],
        require_surjective=False,
    )
    # ElementsAre(Pair(...), ...) checks the order of the out dims as well.
    assert list(layout.apply({"in1": 0, "in2": 0}).items()) == [("out1", 0), ("out2", 0)]
    assert list(layout.apply({"in2": 0, "in1": 1}).items()) == [("out1", 4), ("out2", 2)]
    assert list(layout.apply({"in2": 1, "in1": 0}).items()) == [("out1", 1), ("out2", 2)]


def test_construct_large_layout():
    """Ports C++ TEST_F(LinearLayoutTest, ConstructLargeLayout)."""
    pows2 = [[1 << i] for i in range(25)]
    layout = ll([("in", pows2)], ["out"])
    # The C++ test only checks that construction succeeds (quickly).
    assert layout.get_in_dim_size_log2("in") == 25


# ---------------------------------------------------------------------- compose


def test_compose():
    """Ports C++ TEST_F(LinearLayoutTest, Compose)."""
    l1 = ll([("in1", [[1, 1], [0, 1]]), ("in2", [[1, 0], [1, 2]])], ["out1", "out2"])
    l2 = ll([("out1", [[2, 2], [1, 0]]), ("out2", [[1, 1], [2, 1]])], ["out3", "out4"])
    composition = l1.compose(l2)
    assert composition == ll(
        [("in1", [[3, 3], [1, 1]]), ("in2", [[2, 2], [0, 3]])],
        ["out3", "out4"],
        [4, 4],
        require_surjective=False,
    )
    assert not composition.is_surjective()


def test_compose_4d():
    """Ports C++ TEST_F(LinearLayoutTest, Compose4D)."""
    l1 = ll(
        [
            ("in0", [[1, 0, 0, 0], [2, 0, 0, 0]]),
            ("in1", [[4, 0, 0, 0], [8, 0, 0, 0], [16, 0, 0, 0], [32, 0, 0, 0]]),
            ("in2", [[0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 2]]),
            ("in3", []),
        ],
        ["out3", "out0", "out1", "out2"],
    )
    l2 = ll(
        [
            (
                "out3",
                [
                    [1, 0, 0, 0],
                    [2, 0, 0, 0],
                    [0, 0, 0, 0],
                    [0, 0, 0, 0],
                    [0, 0, 0, 0],
                    [0, 0, 0, 0],
                ],
            ),
            ("out0", [[0, 1, 0, 0]]),
            ("out1", [[0, 0, 1, 0]]),
            ("out2", [[0, 0, 0, 1], [0, 0, 0, 2]]),
        ],
        ["out3", "out2", "out1", "out0"],
    )
    assert l1.compose(l2) == ll(
        [
            ("in0", [[1, 0, 0, 0], [2, 0, 0, 0]]),
            ("in1", [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]),
            ("in2", [[0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 2]]),
            ("in3", []),
        ],
        ["out3", "out2", "out1", "out0"],
        [4, 2, 2, 4],
        require_surjective=False,
    )


# ---------------------------------------------------------------------- reshape / flatten


def test_reshape_ins():
    """Ports C++ TEST_F(LinearLayoutTest, ReshapeIns)."""
    layout = ll([("in1", [[1], [4], [8]]), ("in2", [[2]])], ["out"])
    assert layout.reshape_ins([("in3", 2), ("in4", 8)]) == ll(
        [("in3", [[1]]), ("in4", [[4], [8], [2]])], ["out"]
    )


def test_reshape_ins_degenerate_in():
    """Ports C++ TEST_F(LinearLayoutTest, ReshapeInsDegenerateIn)."""
    layout = ll([("in1", [[1], [4], [2]]), ("in2", [])], ["out"])
    assert layout.reshape_ins([("in3", 4), ("in4", 2)]) == ll(
        [("in3", [[1], [4]]), ("in4", [[2]])], ["out"]
    )


def test_reshape_ins_degenerate_out():
    """Ports C++ TEST_F(LinearLayoutTest, ReshapeInsDegenerateOut)."""
    layout = ll([("in1", [[1], [4]]), ("in2", [[2]])], ["out"])
    assert layout.reshape_ins([("in3", 8), ("in4", 1)]) == ll(
        [("in3", [[1], [4], [2]]), ("in4", [])], ["out"]
    )


def test_reshape_ins_degenerate_first_out():
    """Ports C++ TEST_F(LinearLayoutTest, ReshapeInsDegenerateFirstOut)."""
    layout = ll([("in1", [[1], [4]]), ("in2", [[2]])], ["out"])
    assert layout.reshape_ins([("in3", 1), ("in4", 8)]) == ll(
        [("in3", []), ("in4", [[1], [4], [2]])], ["out"]
    )


def test_flatten_ins():
    """Ports C++ TEST_F(LinearLayoutTest, FlattenIns)."""
    layout = ll([("in1", [[1], [4], [8]]), ("in2", [[2]])], ["out"])
    assert layout.flatten_ins() == ll([("in1", [[1], [4], [8], [2]])], ["out"])


def test_flatten_ins_edge_cases():
    """Ports C++ TEST_F(LinearLayoutTest, FlattenInsEdgeCases)."""
    assert ll([("in1", [])], ["out"]).flatten_ins() == ll([("in1", [])], ["out"])
    assert ll([("in1", [])], []).flatten_ins() == ll([("in1", [])], [])
    assert ll([], ["out"]).flatten_ins() == ll([], ["out"])
    assert ll([], []).flatten_ins() == ll([], [])


def test_reshape_outs():
    """Ports C++ TEST_F(LinearLayoutTest, ReshapeOuts)."""
    layout = ll([("in1", [[1], [4], [8]]), ("in2", [[3]])], ["out"])
    assert layout.get_total_out_dim_size() == 16
    assert layout.reshape_outs([("out2", 2), ("out3", 8)]) == ll(
        [("in1", [[1, 0], [0, 2], [0, 4]]), ("in2", [[1, 1]])], ["out2", "out3"]
    )


def test_reshape_outs_degenerate_in():
    """Ports C++ TEST_F(LinearLayoutTest, ReshapeOutsDegenerateIn)."""
    layout = ll([("in1", [[1], [4], [2]]), ("in2", [])], ["out"])
    assert layout.reshape_outs([("out1", 4), ("out2", 2)]) == ll(
        [("in1", [[1, 0], [0, 1], [2, 0]]), ("in2", [])], ["out1", "out2"]
    )


def test_reshape_outs_degenerate_out():
    """Ports C++ TEST_F(LinearLayoutTest, ReshapeOutsDegenerateOut)."""
    layout = ll([("in1", [[1], [4]]), ("in2", [[2]])], ["out"])
    assert layout.reshape_outs([("out1", 8), ("out2", 1)]) == ll(
        [("in1", [[1, 0], [4, 0]]), ("in2", [[2, 0]])], ["out1", "out2"]
    )


def test_flatten_outs():
    """Ports C++ TEST_F(LinearLayoutTest, FlattenOuts)."""
    layout = ll(
        [("in1", [[1, 0], [4, 1], [8, 4]]), ("in2", [[3, 2]])],
        ["out1", "out2"],
        [16, 8],
        require_surjective=False,
    )
    assert layout.flatten_outs() == ll(
        [("in1", [[1], [4 + 16], [8 + 4 * 16]]), ("in2", [[3 + 2 * 16]])],
        ["out1"],
        [16 * 8],
        require_surjective=False,
    )


def test_flatten_outs_edge_cases():
    """Ports C++ TEST_F(LinearLayoutTest, FlattenOutsEdgeCases)."""
    assert ll([("in1", [])], ["out"]).flatten_outs() == ll([("in1", [])], ["out"])
    assert ll([("in1", [])], []).flatten_outs() == ll([("in1", [])], [])
    assert ll([], ["out"]).flatten_outs() == ll([], ["out"])
    assert ll([], []).flatten_outs() == ll([], [])


# ---------------------------------------------------------------------- invertAndCompose


def test_invert_and_compose_simple():
    """Ports C++ TEST_F(LinearLayoutTest, InvertAndCompose_Simple)."""
    l1 = ll([("in1", [[2], [1], [4]])], ["out"])
    l2 = ll([("in2", [[4], [1], [2]])], ["out"])
    composition = l1.invert_and_compose(l2)
    assert composition == ll([("in1", [[4], [2], [1]])], ["in2"])
    assert composition.compose(l2) == l1


def test_invert_and_compose_larger_a():
    """Ports C++ TEST_F(LinearLayoutTest, InvertAndComposeLargerA)."""
    reg_layout = ll(
        [
            ("register", [[0, 1], [0, 2], [0, 4], [0, 32], [32, 0]]),
            ("lane", [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]]),
            ("warp", [[8, 0], [16, 0]]),
            ("block", []),
        ],
        ["dim0", "dim1"],
    )
    shared_layout = ll(
        [
            (
                "offset",
                [
                    [0, 1],
                    [0, 2],
                    [0, 4],
                    [0, 8],
                    [0, 16],
                    [0, 32],
                    [0, 64],
                    [1, 8],
                    [2, 16],
                    [4, 32],
                    [8, 0],
                    [16, 0],
                    [32, 0],
                    [64, 0],
                    [128, 0],
                ],
            ),
            ("block", []),
        ],
        ["dim0", "dim1"],
    )
    expected = ll(
        [
            ("register", [[1, 0], [2, 0], [4, 0], [32, 0], [4096, 0]]),
            ("lane", [[8, 0], [16, 0], [136, 0], [272, 0], [544, 0]]),
            ("warp", [[1024, 0], [2048, 0]]),
            ("block", []),
        ],
        ["offset", "block"],
        [32768, 1],
        require_surjective=False,
    )
    assert reg_layout.invert_and_compose(shared_layout) == expected
    assert reg_layout.compose(shared_layout.invert()) == expected


def test_invert_and_compose_non_injective():
    """Ports C++ TEST_F(LinearLayoutTest, InvertAndCompose_NonInjective)."""
    l1 = ll([("in1", [[2], [1], [4]])], ["out"])
    l2 = ll([("in2", [[0], [2], [1], [4]])], ["out"])
    composition = l1.invert_and_compose(l2)
    assert composition == ll([("in1", [[2], [4], [8]])], ["in2"], [16], require_surjective=False)
    assert not composition.is_surjective()
    assert composition.compose(l2) == l1


def test_invert_and_compose_broadcasted_in_dim():
    """Ports C++ TEST_F(LinearLayoutTest, InvertAndCompose_BroadcastedInDim)."""
    l1 = ll([("in1", [[2], [1], [4]]), ("in2", [[0]])], ["out"])
    l2 = ll([("in", [[4], [1], [2]])], ["out"])
    composition = l1.invert_and_compose(l2)
    assert composition == ll([("in1", [[4], [2], [1]]), ("in2", [[0]])], ["in"])
    assert composition.compose(l2) == l1


def test_invert_and_compose_broadcast_at_beginning_of_second():
    """Ports C++ TEST_F(LinearLayoutTest, InvertAndCompose_BroadcastAtBeginningOfSecond)."""
    l1 = ll([("in", [[1], [2], [4]])], ["out"])
    l2 = ll([("in", [[0], [4], [1], [2]])], ["out"])
    composition = l1.invert_and_compose(l2)
    assert composition == ll([("in", [[4], [8], [2]])], ["in"], [16], require_surjective=False)
    assert composition.compose(l2) == l1


def test_invert_and_compose_broadcast_at_end_of_second():
    """Ports C++ TEST_F(LinearLayoutTest, InvertAndCompose_BroadcastAtEndOfSecond)."""
    l1 = ll([("in1", [[1], [2], [4]])], ["out"])
    l2 = ll([("in2", [[4], [1], [2], [0]])], ["out"])
    composition = l1.invert_and_compose(l2)
    assert composition == ll([("in1", [[2], [4], [1]])], ["in2"], [16], require_surjective=False)
    assert composition.compose(l2).equal_ignoring_out_dim_sizes(l1)


def test_invert_and_compose_broadcast_beginning_and_end_of_second():
    """Ports C++ TEST_F(LinearLayoutTest, InvertAndCompose_BroadcastBeginningAndEndOfSecond)."""
    l1 = ll([("in", [[1], [2], [4]])], ["out"])
    l2 = ll([("in", [[0], [4], [1], [2], [0]])], ["out"])
    composition = l1.invert_and_compose(l2)
    assert composition == ll([("in", [[4], [8], [2]])], ["in"], [32], require_surjective=False)
    assert composition.compose(l2) == l1


def test_invert_and_compose_multidim():
    """Ports C++ TEST_F(LinearLayoutTest, InvertAndCompose_Multidim)."""
    l1 = ll([("in1", [[1, 0], [0, 1], [2, 0], [3, 2]]), ("in2", [[2, 2]])], ["out1", "out2"])
    l2 = ll([("in3", [[0, 1], [1, 0], [0, 0], [0, 2], [2, 1]])], ["out2", "out1"])

    c1 = l1.invert_and_compose(l2)
    assert c1.compose(l2) == l1.transpose_outs(l2.get_out_dim_names())

    c2 = l2.invert_and_compose(l1)
    assert c2.compose(l1) == l2.transpose_outs(l1.get_out_dim_names())


def test_invert_and_compose_broadcasted_dims():
    """Ports C++ TEST_F(LinearLayoutTest, InvertAndCompose_BroadcastedDims)."""
    l1 = ll([("in1", [[1], [2], [4]]), ("in2", [[0]])], ["out"])
    l2 = ll([("in3", [[1], [2], [4]]), ("in4", [[0]])], ["out"])
    c = l1.invert_and_compose(l2)
    assert c == ll(
        [("in1", [[1, 0], [2, 0], [4, 0]]), ("in2", [[0, 0]])],
        ["in3", "in4"],
        [8, 2],
        require_surjective=False,
    )
    assert c.compose(l2) == l1.transpose_outs(l2.get_out_dim_names())


def test_invert_and_compose_broadcasted_dims2():
    """Ports C++ TEST_F(LinearLayoutTest, InvertAndCompose_BroadcastedDims2)."""
    a = ll([("in1", [[1], [2]]), ("in2", [[0]])], ["out"])
    b = ll([("in3", [[2], [1]]), ("in4", [[0]])], ["out"])
    c = a.invert_and_compose(b)
    assert c == ll(
        [("in1", [[2, 0], [1, 0]]), ("in2", [[0, 0]])],
        ["in3", "in4"],
        [4, 2],
        require_surjective=False,
    )
    assert c.compose(b) == a.transpose_outs(b.get_out_dim_names())


def test_invert_and_compose_identity_in_dim():
    """Ports C++ TEST_F(LinearLayoutTest, InvertAndCompose_IdentityInDim)."""
    out_dims = [f"dim{i}" for i in range(9)]

    def unit(k):
        return [1 if j == k else 0 for j in range(9)]

    src = ll(
        [
            ("register", [unit(8), unit(7)]),
            ("lane", [unit(6), unit(5), unit(4), unit(3), unit(2)]),
            ("warp", [unit(1), unit(0)]),
            ("block", []),
        ],
        out_dims,
    )
    dst = ll(
        [
            ("register", [unit(8), unit(7)]),
            ("lane", [unit(0), unit(1), unit(2), unit(3), unit(4)]),
            ("warp", [unit(5), unit(6)]),
            ("block", []),
        ],
        out_dims,
    )
    cvt = dst.invert_and_compose(src)
    k = {"register": 3, "lane": 0, "warp": 2, "block": 0}
    assert list(dst.apply(k).items()) == list(src.apply(cvt.apply(k)).items())


def test_invert_and_compose_1():
    """Ports C++ TEST_F(LinearLayoutTest, invertAndCompose1) (from the 3.8+fb fork)."""
    reg_layout = ll(
        [
            ("offset", [[0, 1], [0, 2], [0, 4], [0, 16], [32, 0], [64, 0], [128, 0]]),
            ("lane", [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]]),
            ("warp", [[0, 0], [16, 0]]),
            ("block", [[0, 0]]),
        ],
        ["dim0", "dim1"],
    )
    shared_layout = ll(
        [
            (
                "offset",
                [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]]
                + [[1 << i, 0] for i in range(8)],
            ),
            ("block", [[0, 0]]),
        ],
        ["dim0", "dim1"],
    )
    cvt = reg_layout.invert_and_compose(shared_layout)
    assert cvt.is_trivial_over(["block"])


# ---------------------------------------------------------------------- queries


def test_num_consecutive_in_out():
    """Ports C++ TEST_F(LinearLayoutTest, NumConsecutiveInOut)."""
    assert identity_1d(1, "in", "out").num_consecutive_in_out() == 1
    assert identity_1d(4, "in", "out").num_consecutive_in_out() == 4
    assert (
        identity_1d(4, "in1", "out") * identity_1d(8, "in2", "out")
    ).num_consecutive_in_out() == 4
    assert (
        identity_1d(4, "in", "out1") * identity_1d(8, "in", "out2")
    ).num_consecutive_in_out() == 4
    assert (zeros_1d(4, "in", "out1") * identity_1d(4, "in", "out2")).num_consecutive_in_out() == 1
    assert ll([("in", [[1], [2], [4], [9]])], ["out"]).num_consecutive_in_out() == 1
    assert ll([("in", [[1], [2], [4], [10]])], ["out"]).num_consecutive_in_out() == 2
    assert ll([("in", [[1], [4], [2]])], ["out"]).num_consecutive_in_out() == 2
    assert (
        ll([("in", [[1], [2], [4]]), ("in2", [[8], [18]])], ["out"]).num_consecutive_in_out() == 2
    )


def test_equals_checks_out_dim_sizes():
    """Ports C++ TEST_F(LinearLayoutTest, EqualsChecksOutDimSizes)."""
    wide = ll([("in", [[1], [2]])], ["out"], [8], require_surjective=False)
    assert not (identity_1d(4, "in", "out") == wide)
    assert identity_1d(4, "in", "out") != wide
    assert identity_1d(4, "in", "out").equal_ignoring_out_dim_sizes(wide)


def test_sublayout():
    """Ports C++ TEST_F(LinearLayoutTest, Sublayout)."""
    l1 = ll([("in1", [[1, 0], [0, 1], [2, 0]]), ("in2", [[0, 1]])], ["out1", "out2"])
    assert l1.sublayout(["in1", "in2"], ["out1"]) == ll(
        [("in1", [[1], [0], [2]]), ("in2", [[0]])], ["out1"]
    )
    assert l1.sublayout(["in2", "in1"], ["out1"]) == ll(
        [("in1", [[1], [0], [2]]), ("in2", [[0]])], ["out1"]
    )
    assert l1.sublayout(["in2", "in1"], ["out2", "out1"]) == l1
    assert l1.sublayout(["in1"], ["out1"]) == ll([("in1", [[1], [0], [2]])], ["out1"])
    assert l1.sublayout([], []) == LinearLayout.empty()
    assert l1.sublayout(["in1"], []) == ll([("in1", [[], [], []])], [])
    assert l1.sublayout([], ["out1"]) == ll([], ["out1"], [4], require_surjective=False)


def test_sublayout_is_zero():
    """Ports C++ TEST_F(LinearLayoutTest, SublayoutIsZero)."""
    assert not identity_1d(4, "in", "out").sublayout_is_zero(["in"], ["out"])
    assert identity_1d(4, "in", "out").sublayout_is_zero([], ["out"])
    assert identity_1d(4, "in", "out").sublayout_is_zero(["in"], [])
    assert identity_1d(4, "in", "out").sublayout_is_zero([], [])

    l1 = ll([("in1", [[0, 1], [0, 2]]), ("in2", [[1, 1]])], ["out1", "out2"])
    assert l1.sublayout_is_zero(["in1"], ["out1"])
    assert not l1.sublayout_is_zero(["in1"], ["out2"])
    assert not l1.sublayout_is_zero(["in2"], ["out1"])
    assert not l1.sublayout_is_zero(["in2"], ["out2"])


def test_free_variable_masks():
    """Ports C++ TEST_F(LinearLayoutTest, FreeVariableMasks)."""

    def masks(layout):
        return list(layout.get_free_variable_masks().items())

    assert masks(identity_1d(4, "in", "out")) == [("in", 0)]
    assert masks(zeros_1d(16, "in", "out")) == [("in", 0b1111)]
    mixed = (
        identity_1d(2, "in", "out")
        * zeros_1d(4, "in", "out")
        * identity_1d(4, "in", "out")
        * zeros_1d(2, "in", "out")
    )
    assert masks(mixed) == [("in", 0b100110)]
    # The C++ test repeats the same expression; so do we.
    mixed_again = (
        identity_1d(2, "in", "out")
        * zeros_1d(4, "in", "out")
        * identity_1d(4, "in", "out")
        * zeros_1d(2, "in", "out")
    )
    assert masks(mixed_again) == [("in", 0b100110)]
    two_dims = ll(
        [("in1", [[1, 1], [2, 2], [0, 0]]), ("in2", [[1, 0], [0, 1], [2, 0]])],
        ["out1", "out2"],
    )
    assert masks(two_dims) == [("in1", 0b100), ("in2", 0b10)]


# ---------------------------------------------------------------------- quotient


def test_quotient_one_dimension():
    """Ports C++ TEST_F(LinearLayoutTest, QuotientOneDimension)."""
    layout = ll(
        [("dim1", [[1, 0]]), ("dim2", [[0, 0]])],
        ["dim1", "dim2"],
        [2, 1],
        require_surjective=False,
    )
    quotient = layout.quotient(["dim1"])
    assert quotient is not None
    assert quotient == zeros_1d(2, "dim2", "dim2")
    # dim2 is zero, not the identity.
    assert quotient.quotient(["dim2"]) is None


def test_quotient_several_dimensions():
    """Ports C++ TEST_F(LinearLayoutTest, QuotientSeveralDimensions)."""
    layout = ll([("dim1", [[1, 0], [2, 0], [4, 0]]), ("dim2", [[0, 1], [0, 2]])], ["dim1", "dim2"])
    assert layout.quotient(["dim1", "dim2"]) is not None


def test_quotient_multiple_trivial_dimensions():
    """Ports C++ TEST_F(LinearLayoutTest, QuotientMultipleTrivialDimensions)."""
    layout = ll(
        [
            ("dim1", [[1, 0, 2], [2, 0, 1]]),
            ("dim2", [[0, 1, 0], [0, 2, 0], [0, 4, 0]]),
            ("dim3", [[0, 0, 1], [0, 0, 2]]),
        ],
        ["dim1", "dim2", "dim3"],
    )
    # Quotient over dim2 is trivial even with funny business in the other dims.
    assert layout.quotient(["dim2"]) is not None

    layout = ll(
        [
            ("dim1", [[1, 0, 2], [2, 0, 1]]),
            ("dim2", [[0, 1, 0], [0, 2, 0], [0, 4, 0]]),
            ("dim3", [[0, 1, 1], [0, 0, 2]]),
        ],
        ["dim1", "dim2", "dim3"],
    )
    # dim3 depends on dim2's out coordinate, so we cannot quotient.
    assert layout.quotient(["dim2"]) is None


def test_quotient_empty_layout():
    """Ports C++ TEST_F(LinearLayoutTest, QuotientEmptyLayout)."""
    # Quotienting over a dimension that doesn't exist is invalid.
    assert LinearLayout.empty().quotient(["dim1"]) is None


def test_quotient_identity_multiple_dimensions():
    """Ports C++ TEST_F(LinearLayoutTest, QuotientIdentityMultipleDimensions)."""
    layout = (
        identity_1d(8, "dim1", "dim1")
        * identity_1d(2, "dim2", "dim2")
        * identity_1d(4, "dim3", "dim3")
    )
    quotient = layout.quotient(["dim1", "dim3"])
    assert quotient is not None
    assert quotient.quotient(["dim2"]) is not None


# ---------------------------------------------------------------------- Blackwell scales


def _packed_coord_to_padded_offset(m, k_packed_8b, row, col, offset):
    """The C++ test helper getPackedCoordtoPaddedOffset."""

    def padded(linear):
        return (linear // 8) * 16 + (linear % 8)

    bases_rows = [[padded((1 << i) * k_packed_8b)] for i in range(m.bit_length() - 1)]
    bases_cols = [[padded(1 << j)] for j in range(k_packed_8b.bit_length() - 1)]
    return ll(
        [(row, bases_rows), (col, bases_cols)],
        [offset],
        [m * k_packed_8b * 2],
        require_surjective=False,
    )


def test_blackwell_mixed_precision_dot_scaled_smem():
    """Ports C++ TEST_F(LinearLayoutTest, BlackwellMixedPrecisionDotScaledSMEM)."""
    num_fp4_elems = 128
    m = 16
    k_packed_8b = num_fp4_elems // m // 2
    k_padded_8b = num_fp4_elems // m

    bases_offset = []
    for i in range((m * k_padded_8b).bit_length() - 1):
        offset = 1 << i
        linear_packed = offset // 16 * 8 + offset % 8
        bases_offset.append([linear_packed // k_packed_8b, linear_packed % k_packed_8b])

    layout = ll([("offset", bases_offset)], ["row", "col"])
    inverse_computed = layout.pseudoinvert()
    inverse_manual = _packed_coord_to_padded_offset(m, k_packed_8b, "row", "col", "offset")

    for i in range(m):
        for j in range(k_packed_8b):
            off1 = inverse_manual.apply({"row": i, "col": j})
            off2 = inverse_computed.apply({"row": i, "col": j})
            assert list(off1.values())[0] == list(off2.values())[0], (i, j)


def test_blackwell_mixed_precision_dot_scaled_smem_swizzled():
    """Ports C++ TEST_F(LinearLayoutTest, BlackwellMixedPrecisionDotScaledSMEMSwizzled)."""
    m = 16
    k_padded_8b = 128
    k_packed_8b = k_padded_8b // 2
    elem_bit_width = 8
    tile_width_bytes = 128
    tile_rows = 8
    tile_cols = 8 * tile_width_bytes // elem_bit_width
    vec = 16

    bases_2d = []
    for log_col in range(tile_cols.bit_length() - 1):
        col_padded = 1 << log_col
        col_packed = col_padded // 16 * 8 + col_padded % 8
        bases_2d.append([0, col_packed])
    for log_row in range(tile_rows.bit_length() - 1):
        row = 1 << log_row
        per_phase = 1
        max_phase = 8
        col_padded = vec * ((row // per_phase) % max_phase)
        col_packed = col_padded // 16 * 8 + col_padded % 8
        bases_2d.append([row, col_packed])

    layout_swizzled = ll([("offset", bases_2d)], ["row", "col"])
    layout_swizzled = ensure_layout_not_smaller_than(
        layout_swizzled, {"row": m, "col": k_packed_8b}
    )
    inverse_swizzled = layout_swizzled.pseudoinvert()
    inverse_no_swizzle = _packed_coord_to_padded_offset(m, k_packed_8b, "row", "col", "offset")

    for i in range(m):
        for j in range(k_packed_8b):
            non_swizzle_offset = list(inverse_no_swizzle.apply({"row": i, "col": j}).values())[0]
            swizzled_offset = list(inverse_swizzled.apply({"row": i, "col": j}).values())[0]
            row = non_swizzle_offset // k_padded_8b
            col = non_swizzle_offset % k_padded_8b
            col_swizzled = ((col // 16) ^ (row % 8)) * 16 + col % 16
            assert row * k_padded_8b + col_swizzled == swizzled_offset, (i, j)


# ---------------------------------------------------------------------- supremum (TEST)


def test_identical_lists():
    """Ports C++ TEST(SupremumTest, IdenticalLists)."""
    x = ["a", "b", "c"]
    y = ["a", "b", "c"]
    assert supremum(x, y) == x


def test_non_unique_supremum_first_list_priority():
    """Ports C++ TEST(SupremumTest, NonUniqueSupremumFirstListPriority)."""
    assert supremum(["a", "b"], ["a", "c"]) == ["a", "b", "c"]


def test_non_unique_supremum_alternate():
    """Ports C++ TEST(SupremumTest, NonUniqueSupremumAlternate)."""
    assert supremum(["a", "b"], ["b", "c"]) == ["a", "b", "c"]


def test_different_lengths():
    """Ports C++ TEST(SupremumTest, DifferentLengths)."""
    assert supremum(["a", "b", "c"], ["a", "d"]) == ["a", "b", "c", "d"]


def test_supremum_empty_lists():
    """Ports C++ TEST(SupremumTest, SupremumEmptyLists)."""
    assert supremum([], []) == []


def test_one_empty_list():
    """Ports C++ TEST(SupremumTest, OneEmptyList)."""
    assert supremum(["a", "b"], []) == ["a", "b"]


def test_error_on_inconsistent_order():
    """Ports C++ TEST(SupremumTest, ErrorOnInconsistentOrder) (an ASSERT_DEATH in C++)."""
    with pytest.raises(ValueError):
        supremum(["a", "b"], ["b", "a"])


# ---------------------------------------------------------------------- divideLeft/Right


def test_divide_basic():
    """Ports C++ TEST_F(LinearLayoutTest, Divide_Basic)."""
    b = identity_1d(8, "in", "out")
    c = zeros_1d(16, "in", "out")
    is_c = divide_left(b * c, b)
    assert is_c is not None
    assert is_c == c
    is_b = divide_right(b * c, c)
    assert is_b is not None
    assert is_b == b

    is_b = divide_left(c * b, c)
    assert is_b is not None
    assert is_b == b
    is_c = divide_right(c * b, b)
    assert is_c is not None
    assert is_c == c


def test_divide_non_matching_dims():
    """Ports C++ TEST_F(LinearLayoutTest, Divide_NonMatchingDims)."""
    # B has an extra input dimension not present in A: division must fail.
    a = identity_1d(32, "in", "out")
    b = ll([("in", [[1], [2], [4], [8]]), ("extra", [[0]])], ["out"])
    assert divide_left(a, b) is None
    assert divide_right(a, b) is None


def test_divide_simple():
    """Ports C++ TEST_F(LinearLayoutTest, Divide_Simple)."""
    a = identity_1d(8, "in", "out")
    b = identity_1d(4, "in", "out")
    c = identity_1d(2, "in", "out")
    assert divide_left(a, b) == c
    assert divide_right(a, b) == c

    a = identity_1d(8, "in", "out")
    c = identity_1d(1, "in", "out")
    assert divide_left(a, a) == c
    assert divide_right(a, a) == c


def test_divide_2d():
    """Ports C++ TEST_F(LinearLayoutTest, Divide_2D)."""
    l1 = ll(
        [("in1", [[1, 1], [2, 2], [0, 8], [0, 4]]), ("in2", [[0, 2], [0, 1]])],
        ["out1", "out2"],
    )
    l2 = ll([("in1", [[1, 1], [2, 2]]), ("in2", [[0, 2], [0, 1]])], ["out1", "out2"])
    l3 = ll([("in1", [[0, 2], [0, 1]]), ("in2", [])], ["out1", "out2"])
    assert l2 * l3 == l1
    assert divide_left(l1, l2) == l3
    assert divide_right(l1, l3) == l2


def test_divide_eliminate_in_dim():
    """Ports C++ TEST_F(LinearLayoutTest, Divide_EliminateInDim)."""
    l1 = ll([("in2", [[0, 1], [1, 0]]), ("in1", [[2, 0], [0, 2]])], ["out1", "out2"])
    l2 = ll([("in2", [[0, 1], [1, 0]])], ["out1", "out2"])
    l3 = ll([("in2", []), ("in1", [[1, 0], [0, 1]])], ["out1", "out2"])
    assert l2 * l3 == l1
    assert divide_left(l1, l2) == l3

    l2 = ll([("in2", [[0, 1], [1, 0]]), ("in1", [])], ["out1", "out2"])
    l3 = ll([("in1", [[1, 0], [0, 1]])], ["out1", "out2"])
    assert l2 * l3 == l1
    assert divide_right(l1, l3) == l2

    l4 = ll([("in1", [[0, 1], [0, 2]]), ("in2", [])], ["out1", "out2"])
    l5 = ll([("in1", [[0, 1], [0, 2]])], ["out1", "out2"])
    l6 = ll([("in1", []), ("in2", [])], ["out1", "out2"])
    assert l5 * l6 == l4
    assert divide_left(l4, l5) == l6
    assert divide_right(l4, l5) == l6

    l7 = ll([("in1", []), ("in2", [[0, 1]]), ("in3", [])], ["out1", "out2"])
    l8 = ll([("in2", [[0, 1]])], ["out1", "out2"])
    l9 = ll([("in1", []), ("in2", []), ("in3", [])], ["out1", "out2"])
    assert l8 * l9 == l7
    assert divide_left(l7, l8) == l9
    assert divide_right(l7, l8) == l9


def test_divide_eliminate_out_dim():
    """Ports C++ TEST_F(LinearLayoutTest, Divide_EliminateOutDim)."""
    l1 = ll([("in2", [[1, 0], [1, 0]]), ("in1", [[2, 0], [0, 1]])], ["out1", "out2"])
    l2 = ll([("in2", [[1], [1]])], ["out1"])
    l3 = ll([("in2", []), ("in1", [[1, 0], [0, 1]])], ["out1", "out2"])
    assert l2 * l3 == l1
    assert divide_left(l1, l2) == l3

    l1 = ll([("in2", [[1, 0], [0, 2]]), ("in1", [[0, 1], [0, 2]])], ["out1", "out2"])
    l2 = ll([("in2", [[1]]), ("in1", [[1]])], ["out2"])
    l3 = ll([("in2", [[1, 0]]), ("in1", [[0, 1]])], ["out1", "out2"])
    assert l3 * l2 == l1
    assert divide_right(l1, l2) == l3

    l4 = ll([("in1", [[0, 1], [0, 2]])], ["out1", "out2"])
    l5 = ll([], ["out1"])
    l6 = ll([("in1", [[0, 1], [0, 2]])], ["out1", "out2"])
    assert l5 * l6 == l4
    assert divide_left(l4, l5) == l6
    assert divide_right(l4, l5) == l6


# ---------------------------------------------------------------------- ColumnAction


def test_column_action_apply_layout():
    """Ports C++ TEST_F(LinearLayoutTest, ColumnActionApplyLayout)."""
    layout = ll([("in", [[1], [2], [4]])], ["out"])

    # The C++ test builds this permutation but asserts nothing about it.
    ColumnAction([2, 0, 1], "in", 3).apply(layout)

    # Drop the third basis and flip the other two.
    transformed = ColumnAction([1, 0], "in", 3).apply(layout)
    assert transformed == ll([("in", [[2], [1]])], ["out"], [8], require_surjective=False)


def test_column_action_apply_values():
    """Ports C++ TEST_F(LinearLayoutTest, ColumnActionApplyValues)."""
    values = list(range(1, 9))
    assert ColumnAction([2, 0, 1], "register", 3).apply_values(values) == [1, 5, 2, 6, 3, 7, 4, 8]
    # Drop the odd indices.
    assert ColumnAction([2, 1], "register", 3).apply_values(values) == [1, 5, 3, 7]
