"""llverify.cute's layout algebra against CUTLASS's pycute (the oracle) on generated cases.

Every operation runs on a few hundred seeded cases (shapes up to a few thousand elements).
Where both answer, the answers print identically and the result has the operation's
defining property; where pycute asserts, llverify refuses with a CuteAlgebraError; where
llverify refuses and pycute answers, pycute's answer is shown to be wrong.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from llverify import cute
from llverify.cute import ComposedLayout, CuteAlgebraError, Layout, Swizzle
from llverify.errors import LayoutError, LayoutTypeError, ParseError

pycute = pytest.importorskip("pycute")

CASES = 300
FACTORS = (1, 2, 2, 3, 4, 4, 8, 6)


def _shape(rng: random.Random, depth: int = 0, budget: int = 2048) -> Any:
    """A random (nested) shape of at most ``budget`` elements."""
    if depth >= 2 or rng.random() < 0.35:
        options = [f for f in FACTORS if f <= budget] or [1]
        return rng.choice(options)
    modes = []
    for _ in range(rng.randint(1, 3)):
        mode = _shape(rng, depth + 1, max(1, budget // 4))
        modes.append(mode)
        budget = max(1, budget // cute.product(mode))
    return tuple(modes)


def _stride_like(rng: random.Random, shape: Any) -> Any:
    """Strides congruent to ``shape``: a permuted compact stride, scaled, some zeros."""
    leaves = cute.flatten(shape)
    order = list(range(len(leaves)))
    rng.shuffle(order)
    compact = [0] * len(leaves)
    running = rng.choice((1, 1, 2, 3))
    for i in order:
        compact[i] = running
        running *= leaves[i] * rng.choice((1, 1, 1, 2))
    flat = [0 if rng.random() < 0.1 else d for d in compact]
    it = iter(flat)

    def rebuild(s: Any) -> Any:
        if isinstance(s, tuple):
            return tuple(rebuild(x) for x in s)
        return next(it)

    return rebuild(shape)


def _random_strides(rng: random.Random, shape: Any) -> Any:
    if isinstance(shape, tuple):
        return tuple(_random_strides(rng, s) for s in shape)
    return rng.randint(1, 12)


def _layout(rng: random.Random, budget: int = 2048) -> Layout:
    shape = _shape(rng, budget=budget)
    return Layout(shape, _stride_like(rng, shape))


def _theirs(layout: Layout) -> Any:
    return pycute.Layout(layout.shape, layout.stride)


def _values(layout: Any) -> list[int]:
    return [layout._index(i) for i in range(layout.size())]


def _pycute_values(layout: Any) -> list[int]:
    return [layout(i) for i in range(pycute.size(layout))]


def _both(op: str, *args: Any, oracle_args: tuple[Any, ...]) -> tuple[Any, Any]:
    """(llverify's result or its CuteAlgebraError, pycute's result or its AssertionError)."""
    try:
        mine = getattr(cute, op)(*args)
    except CuteAlgebraError as error:
        mine = error
    try:
        theirs = getattr(pycute, op)(*oracle_args)
    except (AssertionError, ZeroDivisionError) as error:
        theirs = error
    return mine, theirs


# ---------------------------------------------------------------------- value types


def test_evaluation_and_printing_match_pycute() -> None:
    rng = random.Random(1)
    for _ in range(CASES):
        layout = _layout(rng)
        theirs = _theirs(layout)
        assert str(layout) == str(theirs) and repr(layout) == repr(theirs)
        assert layout.size() == pycute.size(theirs)
        assert layout.cosize() == theirs.cosize()
        assert len(layout) == len(theirs)
        assert _values(layout) == _pycute_values(theirs)
        for i in rng.sample(range(layout.size()), min(8, layout.size())):
            coord = cute.idx2crd(i, layout.shape)
            assert layout(coord) == theirs(coord) == layout(i)
        for mode in range(len(layout)):
            assert str(layout[mode]) == str(theirs[mode])
        assert cute.parse(str(layout)) == layout
        assert cute.parse(layout.cute_str()) == layout


def test_swizzle_and_composed_match_pycute() -> None:
    rng = random.Random(2)
    for _ in range(CASES):
        bits, base = rng.randint(0, 3), rng.randint(0, 4)
        # shift 0 sends pycute's shiftr/shiftl into endless recursion: not generated
        shift = rng.choice((1, -1)) * rng.randint(max(bits, 1), bits + 3)
        mine, theirs = Swizzle(bits, base, shift), pycute.Swizzle(bits, base, shift)
        assert str(mine) == str(theirs) and repr(mine) == repr(theirs)
        assert mine.size() == theirs.size()
        assert all(mine(x) == theirs(x) for x in range(mine.size() * 2))
        assert all(mine(mine(x)) == x for x in range(mine.size()))
        inner = _layout(rng, 512)
        composed = ComposedLayout(mine, 0, inner)
        oracle = pycute.ComposedLayout(theirs, 0, _theirs(inner))
        assert str(composed) == str(oracle) and repr(composed) == repr(oracle)
        assert [composed._index(i) for i in range(inner.size())] == [
            oracle(i) for i in range(inner.size())
        ]
        assert cute.parse(str(composed)) == composed
        assert cute.parse(composed.cute_str()) == composed


def test_parse_cpp_static_spelling() -> None:
    assert cute.parse("(_4,_8):(_1,_4)") == Layout((4, 8), (1, 4))
    assert cute.parse("((2, 4), 8)") == Layout(((2, 4), 8))
    assert cute.parse("(4,):(1,)") == Layout((4,), (1,))
    assert cute.parse("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)") == ComposedLayout(
        Swizzle(3, 4, 3), 0, Layout((8, 64), (64, 1))
    )


@pytest.mark.parametrize(
    "text",
    ["(4,8):(1,4", "(4,8):(1,)", "4:1 junk", "Sw<3,4> o 0 o 4:1", "(0,2):(1,1)", "", "o"],
)
def test_parse_refuses_bad_text(text: str) -> None:
    with pytest.raises(ParseError, match="Argument 'text'"):
        cute.parse(text)


def test_bad_values_are_refused() -> None:
    with pytest.raises(LayoutError, match="shape of ints >= 1"):
        Layout((4, 0))
    with pytest.raises(LayoutTypeError, match="'shape"):
        Layout((4, 2.0))
    with pytest.raises(LayoutError, match="congruent"):
        Layout((4, 8), (1, (4, 1)))
    with pytest.raises(LayoutError, match="outside the domain"):
        Layout((4, 8))((4, 0))
    with pytest.raises(LayoutError, match="'shift'"):
        Swizzle(3, 0, 2)
    with pytest.raises(LayoutTypeError, match="'outer'"):
        ComposedLayout(3, 0, Layout(4))  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        Layout(4).shape = 8


def test_slicing_matches_pycute() -> None:
    layout = Layout(((2, 4), (3, 5)), ((1, 2), (8, 24)))
    theirs = _theirs(layout)
    for coord in [(None, 1), (1, None), ((1, None), None), ((None, 2), (None, 4))]:
        assert str(layout(coord)) == str(theirs(coord))


# ---------------------------------------------------------------------- operations


def test_coalesce_and_filter_match_pycute() -> None:
    rng = random.Random(3)
    for _ in range(CASES):
        layout = _layout(rng)
        theirs = _theirs(layout)
        merged = cute.coalesce(layout)
        assert str(merged) == str(pycute.coalesce(theirs))
        assert _values(merged) == _values(layout)
        profile = (1,) * min(len(layout), 2) if isinstance(layout.shape, tuple) else None
        assert str(cute.coalesce(layout, profile)) == str(pycute.coalesce(theirs, profile))
        assert str(cute.filter_zeros(layout)) == str(pycute.filter(theirs))


def _composition_holds(a: Layout, b: Layout, result: Any) -> bool:
    """R(i) == A(B(i)) on B's domain, and R has B's size (pycute's results are evaluated
    by pycute, which extrapolates along the last mode as CuTe does)."""
    size = pycute.size(result) if isinstance(result, pycute.Layout) else result.size()
    return size == b.size() and all(result(i) == a._index(b._index(i)) for i in range(b.size()))


def test_composition_matches_pycute() -> None:
    rng = random.Random(4)
    both = refused = 0
    for _ in range(CASES * 2):
        a = _layout(rng)
        b_shape = _shape(rng, budget=max(1, a.size() // rng.choice((1, 2, 4))))
        b = Layout(b_shape, _stride_like(rng, b_shape))
        mine, theirs = _both("composition", a, b, oracle_args=(_theirs(a), _theirs(b)))
        if isinstance(theirs, Exception):
            assert isinstance(mine, CuteAlgebraError), (a, b, mine)
            refused += 1
        elif isinstance(mine, CuteAlgebraError):
            # pycute answered where llverify refuses: pycute's answer must be wrong
            assert not _composition_holds(a, b, theirs), (a, b, theirs, mine)
            refused += 1
        else:
            assert str(mine) == str(theirs)
            assert _composition_holds(a, b, mine), (a, b, mine)
            both += 1
    assert both >= 200 and refused >= 20


def test_composition_by_mode_tilers() -> None:
    rng = random.Random(5)
    for _ in range(CASES):
        a = Layout((rng.choice((4, 8, 16)), rng.choice((4, 8, 6))))
        a = Layout(a.shape, _stride_like(rng, a.shape))
        tiler = (rng.choice((1, 2, 4)), Layout(2, rng.choice((1, 2))))
        theirs = pycute.composition(_theirs(a), (tiler[0], _theirs(tiler[1])))
        assert str(cute.composition(a, tiler)) == str(theirs)
        assert str(cute.composition(a, (None, 2))) == str(pycute.composition(_theirs(a), (None, 2)))


def _complement_valid(layout: Layout, result: Any) -> bool:
    shapes = cute.flatten(result.shape)
    if 0 in shapes:
        return False
    joined = pycute.make_layout(_theirs(layout), result)
    values = _pycute_values(joined)
    return len(set(values)) == len(values)  # (L, complement) is injective


def test_complement_matches_pycute() -> None:
    rng = random.Random(6)
    agreed = refused = 0
    for _ in range(CASES * 2):
        layout = _layout(rng, 512)
        if rng.random() < 0.4:  # arbitrary strides: overlapping modes
            layout = Layout(layout.shape, _random_strides(rng, layout.shape))
        cotarget = rng.choice((1, layout.cosize(), 2 * layout.cosize(), 1000))
        mine, theirs = _both(
            "complement", layout, cotarget, oracle_args=(_theirs(layout), cotarget)
        )
        if isinstance(theirs, Exception):
            assert isinstance(mine, CuteAlgebraError)
            refused += 1
        elif isinstance(mine, CuteAlgebraError):
            if not any(d == 0 for d in cute.flatten(layout.stride)):
                assert not _complement_valid(layout, theirs), (layout, theirs)
            refused += 1
        else:
            assert str(mine) == str(theirs)
            if 0 not in cute.flatten(layout.stride):
                assert _complement_valid(layout, mine)
            agreed += 1
    assert agreed >= 150 and refused >= 20


def test_inverses_match_pycute() -> None:
    rng = random.Random(7)
    for _ in range(CASES):
        layout = _layout(rng, 512)
        theirs = _theirs(layout)
        right = cute.right_inverse(layout)
        assert str(right) == str(pycute.right_inverse(theirs))
        assert all(layout._index(right._index(i)) == i for i in range(right.size()))
        mine, oracle = _both("left_inverse", layout, oracle_args=(theirs,))
        if not isinstance(mine, Exception) and not isinstance(oracle, Exception):
            assert str(mine) == str(oracle)
            values = _values(layout)
            if len(set(values)) == len(values):  # injective: a true left inverse
                assert all(mine._index(v) == i for i, v in enumerate(values))


def _tiler(rng: random.Random, a: Layout) -> Any:
    kind = rng.random()
    if kind < 0.2:
        return rng.choice((1, 2, 4))
    if kind < 0.6 or len(a) < 2:
        return Layout(rng.choice((2, 4)), rng.choice((1, 2)))
    return tuple(Layout(rng.choice((1, 2)), 1) if rng.random() < 0.8 else None for _ in range(2))


def _oracle_tiler(tiler: Any) -> Any:
    if isinstance(tiler, Layout):
        return _theirs(tiler)
    if isinstance(tiler, tuple):
        return tuple(_oracle_tiler(t) for t in tiler)
    return tiler


@pytest.mark.parametrize(
    "op",
    [
        "logical_divide",
        "zipped_divide",
        "tiled_divide",
        "logical_product",
        "zipped_product",
        "tiled_product",
    ],
)
def test_divides_and_products_match_pycute(op: str) -> None:
    rng = random.Random(hash(op) % 1000)
    agreed = 0
    for _ in range(CASES):
        shape = tuple(rng.choice((2, 4, 8, 6)) for _ in range(rng.randint(1, 2)))
        a = Layout(shape, _stride_like(rng, shape))
        tiler = _tiler(rng, a)
        if op.endswith("product") and isinstance(tiler, int):
            continue  # pycute's logical_product(A, int) divides: the documented divergence
        if op.startswith(("zipped", "tiled")) and not isinstance(tiler, tuple):
            tiler = (tiler,)
        mine, theirs = _both(op, a, tiler, oracle_args=(_theirs(a), _oracle_tiler(tiler)))
        if isinstance(theirs, Exception):
            assert isinstance(mine, CuteAlgebraError)
            continue
        if isinstance(mine, CuteAlgebraError):
            continue  # checked by the composition and complement tests
        assert str(mine) == str(theirs), (a, tiler)
        agreed += 1
    assert agreed >= CASES // 2


def test_logical_divide_tiles() -> None:
    """Mode 0 of a divide is the tile: a o b."""
    rng = random.Random(9)
    for _ in range(CASES):
        a = Layout(rng.choice((16, 32, 64)), rng.choice((1, 2, 3)))
        b = Layout(rng.choice((2, 4)), rng.choice((1, 2, 4)))
        divided = cute.logical_divide(a, b)
        assert _values(divided[0]) == [a._index(b._index(i)) for i in range(b.size())]
        assert sorted(_values(divided)) == sorted(_values(a))


def test_logical_product_with_int_is_cute_cpp() -> None:
    """pycute's logical_product(A, n) calls logical_divide; CuTe C++ multiplies."""
    a = Layout(4, 1)
    assert str(cute.logical_product(a, 3)) == str(pycute.logical_product(_theirs(a), Layout(3)))
    assert str(cute.logical_product(a, 3)) != str(pycute.logical_product(_theirs(a), 3))


def test_products_repeat_the_block() -> None:
    block, tiles = Layout((2, 2)), Layout((2, 3))
    blocked = cute.blocked_product(block, tiles)
    raked = cute.raked_product(block, tiles)
    assert blocked.size() == raked.size() == 24
    assert sorted(_values(blocked)) == sorted(_values(raked)) == list(range(24))
    # blocked: the 2x2 block stays contiguous in (row, col) of the 4x6 result
    assert [blocked((r, c)) for r in range(2) for c in range(2)] == [0, 2, 1, 3]
    # raked: the first block's elements are spread with the tiles' period
    assert [raked((r, c)) for r in (0, 2) for c in (0, 3)] == [0, 2, 1, 3]


def test_make_layout_tv() -> None:
    rng = random.Random(10)
    for _ in range(60):
        rows, cols = rng.choice((2, 4, 8)), rng.choice((2, 4, 8))
        thr = Layout((rows, cols), (1, rows) if rng.random() < 0.5 else (cols, 1))
        val = Layout((rng.choice((1, 2, 4)), rng.choice((1, 2))))
        tile, tv = cute.make_layout_tv(thr, val)
        layout_mn = cute.raked_product(thr, val)
        assert cute.product(tile) == thr.size() * val.size()
        for t in range(thr.size()):
            for v in range(val.size()):
                assert layout_mn._index(tv((t, v))) == t + thr.size() * v


def test_upcast_downcast() -> None:
    rng = random.Random(11)
    for _ in range(CASES):
        n = rng.choice((2, 4, 8))
        shape = (rng.choice((1, 2, 4)) * n, rng.choice((2, 4, 3)))
        layout = Layout(shape, (1, shape[0] * rng.choice((1, 2))))
        down = cute.downcast(layout, n)
        assert all(down._index(j) == n * layout._index(j // n) + j % n for j in range(down.size()))
        assert cute.upcast(down, n) == layout
    with pytest.raises(CuteAlgebraError, match="upcast: stride 3"):
        cute.upcast(Layout(4, 3), 2)
    with pytest.raises(LayoutTypeError, match="'n'"):
        cute.downcast(Layout(4), 0)
    assert cute.upcast(Layout((4, 8), (0, 2)), 4) == Layout((4, 4), (0, 1))


def test_refusals_name_the_argument() -> None:
    with pytest.raises(LayoutTypeError, match="Argument 'a'"):
        cute.composition((4, 8), Layout(2))
    with pytest.raises(CuteAlgebraError, match="more than A"):
        cute.composition(Layout(8), (2, 2))
    with pytest.raises(CuteAlgebraError, match="negative stride"):
        cute.complement(Layout(4, -1))
    with pytest.raises(LayoutTypeError, match="'cotarget'"):
        cute.complement(Layout(4), 0)
    with pytest.raises(CuteAlgebraError, match="shape divisibility"):
        cute.composition(Layout((4, 8), (1, 8)), Layout(6, 1))
