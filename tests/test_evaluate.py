"""Bulk numpy evaluation agrees with apply() and refuses bad input."""

import itertools

import numpy as np
import pytest

from llverify import DimensionError, LayoutError, LayoutTypeError, LinearLayout
from llverify.evaluate import evaluate, evaluate_all

LAYOUT = LinearLayout.from_bases(
    [
        ("register", [[0, 1], [3, 0], [0, 0]]),
        ("lane", [[1, 2], [2, 5], [0, 4]]),
        ("warp", [[4, 1]]),
    ],
    ["dim0", "dim1"],
    [8, 8],
    require_surjective=False,
)


def all_inputs(layout):
    sizes = [size for _, size in layout.in_dims]
    # Flat index order: first in dim fastest.
    for values in itertools.product(*(range(s) for s in reversed(sizes))):
        yield dict(zip(layout.get_in_dim_names(), reversed(values)))


def test_evaluate_all_matches_apply_everywhere():
    result = evaluate_all(LAYOUT)
    expected = [LAYOUT.apply(point) for point in all_inputs(LAYOUT)]
    for out in LAYOUT.get_out_dim_names():
        assert result[out].dtype == np.int64
        assert result[out].tolist() == [e[out] for e in expected]


def test_evaluate_matches_apply_on_arrays_and_broadcasts():
    rng = np.random.default_rng(0)
    ins = {"register": rng.integers(0, 8, 50), "lane": rng.integers(0, 8, 50), "warp": 1}
    result = LAYOUT.apply_array(ins)
    for i in range(50):
        point = {"register": int(ins["register"][i]), "lane": int(ins["lane"][i]), "warp": 1}
        expected = LAYOUT.apply(point)
        assert {k: int(v[i]) for k, v in result.items()} == expected


def test_evaluate_wide_in_dim_uses_several_chunks():
    layout = LinearLayout.identity_1d(1 << 20, "offset", "dim0")
    values = np.array([0, 1, 255, 256, 65535, 65536, (1 << 20) - 1])
    assert evaluate(layout, {"offset": values})["dim0"].tolist() == values.tolist()
    assert evaluate_all(layout)["dim0"][12345] == 12345


def test_evaluate_all_of_a_layout_with_no_inputs():
    empty = LinearLayout.from_bases([], ["dim0"], [4], False)
    assert evaluate_all(empty)["dim0"].tolist() == [0]


def test_evaluate_all_refuses_huge_layouts_unless_asked():
    big = LinearLayout.zeros_1d(1 << 27, "offset", "dim0")
    with pytest.raises(LayoutError, match="max_inputs"):
        evaluate_all(big)


@pytest.mark.parametrize(
    ("ins", "error", "fragment"),
    [
        ({"register": [0]}, DimensionError, "exactly the in dims"),
        ({"register": 0, "lane": 0, "warp": 0, "block": 0}, DimensionError, "exactly the in dims"),
        ({"register": [8], "lane": 0, "warp": 0}, LayoutError, "must be in [0, 8), not 8"),
        ({"register": [-1], "lane": 0, "warp": 0}, LayoutError, "not -1"),
        ({"register": [0.5], "lane": 0, "warp": 0}, LayoutTypeError, "must hold integers"),
        ({"register": [True], "lane": 0, "warp": 0}, LayoutTypeError, "must hold integers"),
        ({"register": [0, 1], "lane": [0, 1, 2], "warp": 0}, LayoutError, "broadcast"),
    ],
)
def test_evaluate_errors(ins, error, fragment):
    with pytest.raises(error) as info:
        evaluate(LAYOUT, ins)
    assert fragment in str(info.value)


def test_evaluate_rejects_non_mapping():
    with pytest.raises(LayoutTypeError, match="mapping"):
        evaluate(LAYOUT, [1, 2, 3])
