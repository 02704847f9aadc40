"""sympy forms (issue 28 item 7): explain(form="sympy"/"latex") and CuTe index formulas to and
from sympy, each checked by evaluation against the layout (and CUTLASS's pycute, the
oracle) at every point; refusals name the offending term."""

from __future__ import annotations

import functools
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings

from cases.strategies import layouts
from llverify import LinearLayout, explain
from llverify.cute import ComposedLayout, Layout, Swizzle, idx2crd, parse
from llverify.cute.symbolic import (
    bit_field,
    bit_xor,
    coordinate,
    cute_to_sympy,
    latex,
    sympy_to_cute,
)
from llverify.errors import LayoutError, LayoutTypeError

sympy = pytest.importorskip("sympy")


def _function(expr: Any, names: list[str]) -> Any:
    """``expr`` as a Python function of ``names`` (exact on these small ints)."""
    xor = functools.partial(functools.reduce, lambda a, b: a ^ b)
    namespace = {"floor": math.floor, "BitXor": lambda *a: xor(a)}
    return sympy.lambdify([coordinate(n) for n in names], expr, modules=[namespace, "math"])


# ---------------------------------------------------------------------- explain


@settings(max_examples=60, deadline=None)
@given(layouts())
def test_explain_sympy_evaluates_to_the_layout_everywhere(layout: LinearLayout) -> None:
    forms = explain(layout, "sympy")
    names = layout.get_in_dim_names()
    functions = {d: _function(e, names) for d, e in forms.items()}
    sizes = [layout.get_in_dim_size(n) for n in names]
    for flat in range(math.prod(sizes)):
        point, rest = {}, flat
        for name, size in zip(names, sizes):
            point[name] = rest % size
            rest //= size
        expected = layout.apply(point)
        actual = {d: int(f(*point.values())) for d, f in functions.items()}
        assert actual == expected, (point, forms)


def test_explain_sympy_adds_disjoint_fields_and_xors_overlapping_ones() -> None:
    # an MMA-like accumulator: dim0 = lane/4 + 8*(register/2), dim1 = 2*(lane%4) + register%2
    mma = LinearLayout.from_bases(
        [
            ("register", [[0, 1], [8, 0]]),
            ("lane", [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]),
        ],
        ["dim0", "dim1"],
    )
    forms = explain(mma, "sympy")
    register, lane = coordinate("register"), coordinate("lane")
    assert (
        sympy.simplify(forms["dim0"] - (sympy.floor(lane / 4) + 8 * sympy.floor(register / 2))) == 0
    )
    assert forms["dim1"] == sympy.Mod(register, 2) + 2 * sympy.Mod(lane, 4)
    assert r"\oplus" not in "".join(explain(mma, "latex").values())
    # a swizzle: offset bits 3..5 are XORed into the column's bits 0..2
    swizzled = LinearLayout.from_bases(
        [("offset", [[0, 1], [0, 2], [0, 4], [1, 1], [2, 2], [4, 4]])], ["dim0", "dim1"]
    )
    text = explain(swizzled, "latex")["dim1"]
    assert r"\oplus" in text
    assert str(explain(swizzled, "sympy")["dim1"]).startswith("BitXor(")


def test_explain_refuses_an_unknown_form() -> None:
    layout = LinearLayout.from_bases([("lane", [[1]])], ["dim0"])
    with pytest.raises(LayoutError, match="'form'.*'formula', 'sympy', 'latex'.*'pdf'"):
        explain(layout, "pdf")
    assert issubclass(LayoutError, ValueError)


def test_bit_xor_folds_and_flattens() -> None:
    x, y = coordinate("x"), coordinate("y")
    assert bit_xor(6, 3) == 5 and bit_xor() == 0 and bit_xor(x) == x
    assert bit_xor(bit_xor(x, 1), bit_xor(y, 1)).args == (x, y)
    assert bit_xor(x, 0) == x
    assert latex(bit_xor(x, y + 1)) == r"x \oplus \left(y + 1\right)"
    assert bit_field(x, 0, 3, bits=3) == x  # the whole of a 3-bit x: no floor, no Mod


# ---------------------------------------------------------------------- CuTe <-> sympy


CASES = 150
FACTORS = (1, 2, 2, 3, 4, 4, 8, 6)


def _shape(rng: random.Random, depth: int = 0) -> Any:
    if depth >= 2 or rng.random() < 0.35:
        return rng.choice(FACTORS)
    return tuple(_shape(rng, depth + 1) for _ in range(rng.randint(1, 3)))


def _strides(rng: random.Random, shape: Any) -> Any:
    if isinstance(shape, tuple):
        return tuple(_strides(rng, s) for s in shape)
    return rng.choice((0, 1, 2, 3, 4, 8, 16, 5, 32))


def _layouts(seed: int) -> list[Layout]:
    rng = random.Random(seed)
    result = []
    while len(result) < CASES:
        shape = _shape(rng)
        layout = Layout(shape, _strides(rng, shape))
        if layout.size() <= 1024:
            result.append(layout)
    return result


def _modes(layout: Layout) -> list[Layout]:
    return list(layout) if isinstance(layout.shape, tuple) else [layout]


def _evaluate_modes(expr: Any, layout: Layout) -> list[int]:
    """expr (of c0, c1, ...: the modes' flat coordinates) at every index of ``layout``."""
    modes = _modes(layout)
    function = _function(expr, [f"c{k}" for k in range(len(modes))])
    values = []
    for index in range(layout.size()):
        coord = idx2crd(index, tuple(m.size() for m in modes))
        values.append(int(function(*coord)))
    return values


def test_cute_to_sympy_matches_pycute() -> None:
    pycute = pytest.importorskip("pycute")
    for layout in _layouts(1):
        expr = cute_to_sympy(layout)
        theirs = pycute.Layout(layout.shape, layout.stride)
        assert _evaluate_modes(expr, layout) == [theirs(i) for i in range(layout.size())], (
            layout,
            expr,
        )


def test_cute_to_sympy_natural_coordinates() -> None:
    layout = parse("((2,4),8):((1,16),2)")
    expr = cute_to_sympy(layout, names=["m", "n"], natural=True)
    assert expr == coordinate("m_0") + 16 * coordinate("m_1") + 2 * coordinate("n")


def test_composed_layouts_match_pycute() -> None:
    pycute = pytest.importorskip("pycute")
    rng = random.Random(3)
    for _ in range(60):
        bits, base = rng.randint(0, 3), rng.randint(0, 3)
        shift = rng.choice((1, -1)) * rng.randint(max(bits, 1), bits + 2)
        inner = rng.choice(_layouts(4))
        offset = rng.choice((0, 0, 3))
        composed = ComposedLayout(Swizzle(bits, base, shift), offset, inner)
        oracle = pycute.ComposedLayout(
            pycute.Swizzle(bits, base, shift), offset, pycute.Layout(inner.shape, inner.stride)
        )
        expected = [oracle(i) for i in range(inner.size())]
        assert _evaluate_modes(cute_to_sympy(composed), inner) == expected, composed
    outer = ComposedLayout(Layout((4, 8), (8, 1)), 0, Layout(32, 1))
    assert _evaluate_modes(cute_to_sympy(outer), Layout(32, 1)) == [
        outer._index(i) for i in range(32)
    ]


def test_sympy_to_cute_round_trips_every_layout() -> None:
    for layout in _layouts(5):
        modes = _modes(layout)
        coords = [(f"c{k}", m.size()) for k, m in enumerate(modes)]
        back = sympy_to_cute(cute_to_sympy(layout), coords)
        assert [back._index(i) for i in range(back.size())] == [
            layout._index(i) for i in range(layout.size())
        ], (layout, back)
        assert [m.size() for m in _modes(back)] == [m.size() for m in modes]
        natural = cute_to_sympy(layout, natural=True)
        assert sympy_to_cute(natural, _natural_coords(layout)).stride is not None


def _natural_coords(layout: Layout) -> list[tuple[str, int]]:
    result = []
    for k, mode in enumerate(_modes(layout)):
        if isinstance(mode.shape, tuple):
            from llverify.cute import flatten

            result += [(f"c{k}_{j}", s) for j, s in enumerate(flatten(mode.shape))]
        else:
            result.append((f"c{k}", mode.shape))
    return result


def test_sympy_to_cute_reads_hand_written_formulas() -> None:
    m, n = coordinate("m"), coordinate("n")
    assert sympy_to_cute(m + 16 * n, {"m": 16, "n": 8}) == Layout((16, 8), (1, 16))
    # one coordinate read as mixed-radix digits: a rank-1 layout with a nested mode
    t = coordinate("t")
    back = sympy_to_cute(sympy.floor(t / 4) + 16 * sympy.Mod(t, 4), [("t", 32)])
    assert back == Layout(((4, 8),), ((16, 1),))
    assert sympy_to_cute("m + 4*floor(n/2)", [("m", 4), ("n", 8)]) == Layout(
        (4, (2, 4)), (1, (0, 4))
    )


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("m + n + 3", "constant term 3: an offset"),
        ("m*n", "the term m\\*n is not an integer multiple"),
        ("m/2 + n", "coefficient 1/2, not an integer stride"),
        ("m + k", "uses \\['k'\\], which 'coords' does not name"),
        ("Mod(m, 4) + 8*floor(m/2)", "the fields of m overlap"),
        ("BitXor(m, 4*n)", "not an integer multiple"),
    ],
)
def test_sympy_to_cute_refuses_other_forms(expr: str, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        sympy_to_cute(expr, [("m", 8), ("n", 8)])


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(LayoutTypeError, match="'layout'"):
        cute_to_sympy("4:1")
    with pytest.raises(LayoutError, match="'names'"):
        cute_to_sympy(Layout((4, 8)), names=["m"])
    with pytest.raises(LayoutError, match="extent of m must be an int >= 1"):
        sympy_to_cute("m", [("m", 0)])
    with pytest.raises(LayoutTypeError, match="'coords' must hold"):
        sympy_to_cute("m", ["m"])
    with pytest.raises(LayoutTypeError, match="'name'"):
        coordinate("not a name")
