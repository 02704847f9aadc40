"""ldmatrix fragments (PTX ISA) are Triton's MMA v2 dot-operand / accumulator layouts."""

import pytest

from llverify import prove_equal, to_linear_layout
from llverify.specs.ldmatrix import LDMATRIX, LDMATRIX_X4_MATRICES_SWAPPED


@pytest.mark.parametrize("name", sorted(LDMATRIX))
@pytest.mark.parametrize("method", ["linear", "z3", "exhaustive"])
def test_ldmatrix_fragment_is_the_triton_layout(name, method):
    formulas, encoding, shape = LDMATRIX[name]
    verdict = prove_equal(to_linear_layout(encoding, list(shape)), formulas, method=method)
    assert verdict.proved, str(verdict)


def test_ldmatrix_x4_with_swapped_matrices_is_refuted():
    formulas, encoding, shape = LDMATRIX["ldmatrix.x4"]
    layout = to_linear_layout(encoding, list(shape))
    verdict = prove_equal(layout, LDMATRIX_X4_MATRICES_SWAPPED)
    assert verdict.refuted
    point = verdict.counterexample
    assert set(point) == {"register", "lane", "warp", "block"}
    assert layout.apply(point) == verdict.actual != verdict.expected
