"""Ports of Triton 3.9's C++ unit tests ``unittest/Tools/LayoutUtilsTest.cpp``.

One function per C++ ``TEST_F``; every ``EXPECT_*``/``ASSERT_*`` is an assert with the
exact expected result of the C++ test.
"""

from __future__ import annotations

from llverify.layout import LinearLayout
from llverify.layout_utils import (
    factor_maximal_identity_prefix,
    get_input_basis_mask,
    get_output_basis_mask,
    rename_linear_layout_dims,
    square_sublayout_is_identity,
)

identity_1d = LinearLayout.identity_1d


def ll(bases, outs, sizes=None, require_surjective=True):
    """C++ ``LinearLayout(bases, outDims)``; with ``sizes`` it is the explicit-size ctor."""
    if sizes is None:
        return LinearLayout.from_bases(bases, outs)
    return LinearLayout.from_bases(bases, outs, sizes, require_surjective=require_surjective)


def test_square_sublayout_is_identity():
    """Ports C++ TEST_F(LayoutUtilsTest, SquareSublayoutIsIdentity)."""
    assert square_sublayout_is_identity(identity_1d(4, "in", "in"), ["in"])
    assert square_sublayout_is_identity(identity_1d(4, "in", "in"), [])

    l1 = ll(
        [("in1", [[1, 1], [2, 2], [4, 4]]), ("in2", [[2, 1], [1, 2]])],
        ["in1", "in2"],
        [8, 8],
        require_surjective=False,
    )
    assert square_sublayout_is_identity(l1, ["in1"])
    assert not square_sublayout_is_identity(l1, ["in2"])

    l2 = (
        identity_1d(4, "in1", "in1")
        * identity_1d(8, "in2", "in2")
        * ll([("in3", [[1, 1, 1]])], ["in1", "in2", "in3"], [2, 2, 2], require_surjective=False)
    )
    assert not square_sublayout_is_identity(l2, ["in1"])
    assert not square_sublayout_is_identity(l2, ["in2"])
    assert square_sublayout_is_identity(l2, ["in3"])
    assert not square_sublayout_is_identity(l2, ["in1", "in2"])

    l3 = identity_1d(4, "in1", "in1") * identity_1d(8, "in2", "in2")
    assert square_sublayout_is_identity(l3, ["in1"])
    assert square_sublayout_is_identity(l3, ["in2"])
    assert square_sublayout_is_identity(l3, ["in1", "in2"])


def test_output_basis_mask():
    """Ports C++ TEST_F(LayoutUtilsTest, OutputBasisMask)."""
    layout = ll(
        [("x", [[1, 8], [2, 16]]), ("y", [[4, 1]]), ("broadcast", [[0, 0]])],
        ["out0", "out1"],
        [8, 32],
        require_surjective=False,
    )
    assert get_output_basis_mask(layout, ["x"], "out0") == 0b0011
    assert get_output_basis_mask(layout, ["x", "y"], "out0") == 0b0111
    assert get_output_basis_mask(layout, ["x", "broadcast"], "out1") == 0b11000
    assert get_output_basis_mask(layout, [], "out0") == 0


def test_input_basis_mask():
    """Ports C++ TEST_F(LayoutUtilsTest, InputBasisMask)."""
    layout = ll(
        [("x", [[1, 0], [0, 2], [0, 0], [4, 8]]), ("y", [[2, 0]])],
        ["out0", "out1"],
        [8, 16],
        require_surjective=False,
    )
    assert get_input_basis_mask(layout, "x", ["out0"]) == 0b1001
    assert get_input_basis_mask(layout, "x", ["out1"]) == 0b1010
    assert get_input_basis_mask(layout, "x", ["out0", "out1"]) == 0b1011
    assert get_input_basis_mask(layout, "x", []) == 0


def test_factor_maximal_identity_prefix():
    """Ports C++ TEST_F(LayoutUtilsTest, FactorMaximalIdentityPrefix)."""
    layout = ll([("x", [[1], [2], [8]]), ("other", [[4]])], ["out"], [16], require_surjective=False)
    size, quotient = factor_maximal_identity_prefix(layout, "x", "out", 8)
    assert size == 4
    assert identity_1d(size, "x", "out") * quotient == layout


def test_rename_dims_preserves_order():
    """Ports C++ TEST_F(LayoutUtilsTest, RenameDimsPreservesOrder)."""
    layout = ll([("a", [[1, 0]]), ("b", [[0, 1]])], ["x", "y"], [2, 2], require_surjective=True)

    renamed = rename_linear_layout_dims(layout, [("a", "b"), ("b", "a")], [("x", "y"), ("y", "x")])
    assert renamed.get_in_dim_names() == ["b", "a"]
    assert renamed.get_out_dim_names() == ["y", "x"]
    assert renamed == ll(
        [("b", [[1, 0]]), ("a", [[0, 1]])], ["y", "x"], [2, 2], require_surjective=True
    )

    assert layout.rename_in_dim("a", "c").get_in_dim_names() == ["c", "b"]


def test_get_reps_with_subset_of_output_dims():
    """Ports C++ TEST_F(LayoutUtilsTest, GetRepsWithSubsetOfOutputDims)."""
    # C++: getReps(cvt, tile) with cvt = {in: [[1,0],[0,1]]} -> (out0, out1) and
    # tile = {in: [[1]]} -> out0 must be {in: [[0,0],[0,1]]} with out sizes (2, 2),
    # requireSurjective=false.
    from llverify import layout_utils

    get_reps = layout_utils.get_reps
    cvt = ll([("in", [[1, 0], [0, 1]])], ["out0", "out1"])
    tile = ll([("in", [[1]])], ["out0"])
    reps = get_reps(cvt, tile)
    assert reps is not None
    assert reps == ll(
        [("in", [[0, 0], [0, 1]])], ["out0", "out1"], [2, 2], require_surjective=False
    )
