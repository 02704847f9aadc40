"""Structural checks (llverify.proof.structure) and parametric property proofs, against brute force.

* ``check_injective`` / ``check_surjective`` / ``check_distributed`` /
  ``check_memory_layout`` / ``broadcast_bits`` on random small layouts agree with the
  definitions computed here by enumerating the image (Zhou et al., "Linear Layouts",
  section 4: a distributed layout is surjective with bases of at most one set bit and no
  repeated non-zero basis; a memory layout is invertible with bases of one or two set
  bits), and every refutation's witness is checked here.
* ``prove_family_property`` on swizzled_shared_2d, on a family with zero bases, and on
  hand-written and seeded random families: its verdict equals the concrete checks (and
  the brute-force definitions) over every member, and its witnesses replay.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cases.strategies import LAW_SETTINGS, all_inputs, layouts, ref_apply
from llverify import LinearLayout
from llverify.proof.family import LayoutFamily, swizzled_shared_2d
from llverify.proof.structure import (
    broadcast_bits,
    check_distributed,
    check_injective,
    check_memory_layout,
    check_surjective,
)
from llverify.proof.verdict import Verdict
from llverify.smt.parametric import PROPERTIES, prove_family_property

# ---------------------------------------------------------------------- brute force


def bases_of(layout: LinearLayout) -> list[tuple[str, int, tuple[int, ...]]]:
    """(in dim, bit, basis coords) for every basis, from the public ``bases``."""
    return [(d, i, tuple(b)) for d, bs in layout.bases for i, b in enumerate(bs)]


def brute_image(layout: LinearLayout) -> set[tuple[int, ...]]:
    """The image, enumerated: every XOR of a subset of the bases."""
    outs = layout.get_out_dim_names()
    image = {tuple([0] * len(outs))}
    for _, _, basis in bases_of(layout):
        image |= {tuple(a ^ b for a, b in zip(point, basis)) for point in image}
    return image


def n_inputs(layout: LinearLayout) -> int:
    total = 1
    for _, size in layout.in_dims:
        total *= size
    return total


def n_outputs(layout: LinearLayout) -> int:
    total = 1
    for _, size in layout.out_dims:
        total *= size
    return total


def popcount(basis: tuple[int, ...]) -> int:
    return sum(bin(c).count("1") for c in basis)


def brute_injective(layout: LinearLayout) -> bool:
    return len(brute_image(layout)) == n_inputs(layout)


def brute_surjective(layout: LinearLayout) -> bool:
    return len(brute_image(layout)) == n_outputs(layout)


def brute_no_broadcast(layout: LinearLayout) -> bool:
    return all(any(b) for _, _, b in bases_of(layout))


def brute_distributed(layout: LinearLayout) -> bool:
    bases = [b for _, _, b in bases_of(layout)]
    nonzero = [b for b in bases if any(b)]
    return (
        brute_surjective(layout)
        and all(popcount(b) <= 1 for b in bases)
        and len(set(nonzero)) == len(nonzero)
    )


def brute_memory(layout: LinearLayout) -> bool:
    bases = [b for _, _, b in bases_of(layout)]
    invertible = brute_injective(layout) and brute_surjective(layout)
    return invertible and all(popcount(b) in (1, 2) for b in bases)


BRUTE: dict[str, Callable[[LinearLayout], bool]] = {
    "injective": brute_injective,
    "surjective": brute_surjective,
    "no_broadcast": brute_no_broadcast,
    "distributed": brute_distributed,
    "memory": brute_memory,
}


def concrete_no_broadcast(layout: LinearLayout) -> bool:
    return not any(broadcast_bits(layout).values())


CONCRETE: dict[str, Callable[[LinearLayout], bool]] = {
    "injective": lambda ll: check_injective(ll).proved,
    "surjective": lambda ll: check_surjective(ll).proved,
    "no_broadcast": concrete_no_broadcast,
    "distributed": lambda ll: check_distributed(ll).proved,
    "memory": lambda ll: check_memory_layout(ll).proved,
}


def in_range(layout: LinearLayout, point: Mapping[str, int]) -> bool:
    sizes = dict(layout.in_dims)
    return set(point) == set(sizes) and all(0 <= point[d] < sizes[d] for d in sizes)


def unit_basis(layout: LinearLayout, point: Mapping[str, int]) -> tuple[int, ...] | None:
    """The basis selected by a one-hot input, or None when ``point`` is not one-hot."""
    hot = [(d, v) for d, v in point.items() if v]
    if len(hot) != 1 or hot[0][1] & (hot[0][1] - 1):
        return None
    d, v = hot[0]
    return tuple(dict(layout.bases)[d][v.bit_length() - 1])


def as_tuple(layout: LinearLayout, point: Mapping[str, int]) -> tuple[int, ...]:
    assert set(point) == set(layout.get_out_dim_names()), point
    return tuple(point[o] for o in layout.get_out_dim_names())


def assert_injective_witness(layout: LinearLayout, verdict: Verdict) -> None:
    point = verdict.counterexample
    assert point is not None and in_range(layout, point), point
    assert any(point.values()), "the witness must be a non-zero input"
    zero = dict.fromkeys(point, 0)
    assert ref_apply(layout, dict(point)) == ref_apply(layout, zero)
    assert layout.apply(dict(point)) == layout.apply(zero)


def assert_surjective_witness(layout: LinearLayout, verdict: Verdict) -> None:
    unreachable = verdict.details["unreachable_output"]
    sizes = dict(layout.out_dims)
    assert set(unreachable) == set(sizes)
    assert all(0 <= unreachable[o] < sizes[o] for o in sizes), unreachable
    assert as_tuple(layout, unreachable) not in brute_image(layout)
    functional = verdict.details["functional"]

    def parity(v: Mapping[str, int]) -> int:
        return sum(bin(functional[o] & v[o]).count("1") for o in sizes) & 1

    outs = layout.get_out_dim_names()
    assert all(parity(dict(zip(outs, b))) == 0 for _, _, b in bases_of(layout))
    assert parity(unreachable) == 1


def assert_column_or_surjective_witness(
    layout: LinearLayout, verdict: Verdict, allowed: tuple[int, ...], allow_zero: bool
) -> None:
    """A distributed / memory refutation: a basis input whose basis has a forbidden bit
    count or repeats an earlier one, or a size mismatch, or a non-injective / non-surjective
    witness."""
    point = verdict.counterexample
    assert point is not None and in_range(layout, point), point
    basis = unit_basis(layout, point)
    if basis is not None and "basis" in verdict.reason:
        assert verdict.actual == dict(zip(layout.get_out_dim_names(), basis))
        bits = popcount(basis)
        if not (bits == 0 and allow_zero) and bits not in allowed:
            return
        others = [b for _, _, b in bases_of(layout) if b == basis]
        assert bits and len(others) >= 2, (verdict.reason, basis)
        return
    if "unreachable_output" in verdict.details:
        assert_surjective_witness(layout, verdict)
        return
    if any(point.values()):
        assert_injective_witness(layout, verdict)
        return
    in_bits = sum(s.bit_length() - 1 for _, s in layout.in_dims)
    out_bits = sum(s.bit_length() - 1 for _, s in layout.out_dims)
    assert in_bits != out_bits, verdict


def assert_concrete_witness(prop: str, layout: LinearLayout, verdict: Verdict) -> None:
    if prop == "injective":
        assert_injective_witness(layout, verdict)
    elif prop == "surjective":
        assert_surjective_witness(layout, verdict)
    elif prop == "no_broadcast":
        point = verdict.counterexample
        assert point is not None and in_range(layout, point)
        basis = unit_basis(layout, point)
        assert basis is not None and not any(basis), point
    elif prop == "distributed":
        assert_column_or_surjective_witness(layout, verdict, (1,), allow_zero=True)
    else:
        assert_column_or_surjective_witness(layout, verdict, (1, 2), allow_zero=False)


# ---------------------------------------------------------------------- concrete checks


def test_brute_force_helpers_on_known_layouts() -> None:
    ident = LinearLayout.from_bases([("lane", [[1], [2]])], ["dim0"])
    assert brute_image(ident) == {(0,), (1,), (2,), (3,)}
    assert all(BRUTE[p](ident) for p in PROPERTIES)
    bcast = LinearLayout.from_bases([("lane", [[1], [0]])], ["dim0"])
    assert brute_image(bcast) == {(0,), (1,)}
    assert bcast.out_dims == [("dim0", 2)]
    assert [p for p in PROPERTIES if BRUTE[p](bcast)] == ["surjective", "distributed"]
    swizzle = LinearLayout.from_bases([("offset", [[0, 1], [1, 1]])], ["dim0", "dim1"])
    assert brute_memory(swizzle) and not brute_distributed(swizzle)


@given(layouts())
@LAW_SETTINGS
def test_check_injective_matches_brute_force(layout: LinearLayout) -> None:
    verdict = check_injective(layout)
    assert verdict.status in ("proved", "refuted")
    assert verdict.proved == brute_injective(layout), (layout, verdict)
    if verdict.refuted:
        assert_injective_witness(layout, verdict)
        assert verdict.actual == layout.apply(dict(verdict.counterexample or {}))


@given(layouts())
@LAW_SETTINGS
def test_check_surjective_matches_brute_force(layout: LinearLayout) -> None:
    verdict = check_surjective(layout)
    assert verdict.status in ("proved", "refuted")
    assert verdict.proved == brute_surjective(layout), (layout, verdict)
    if verdict.refuted:
        assert_surjective_witness(layout, verdict)


@given(layouts(max_in_bits=3, max_out_bits=3))
@LAW_SETTINGS
def test_image_matches_apply(layout: LinearLayout) -> None:
    """The brute-force image (XOR of subsets of bases) is what apply() reaches."""
    outs = layout.get_out_dim_names()
    applied = {as_tuple(layout, layout.apply(x)) for x in all_inputs(layout)}
    assert applied == brute_image(layout)
    assert {tuple(ref_apply(layout, x)[o] for o in outs) for x in all_inputs(layout)} == applied


@given(layouts())
@LAW_SETTINGS
def test_check_distributed_matches_definition(layout: LinearLayout) -> None:
    verdict = check_distributed(layout)
    assert verdict.status in ("proved", "refuted")
    assert verdict.proved == brute_distributed(layout), (layout, verdict)
    if verdict.refuted:
        assert_column_or_surjective_witness(layout, verdict, (1,), allow_zero=True)


@given(layouts())
@LAW_SETTINGS
def test_check_memory_layout_matches_definition(layout: LinearLayout) -> None:
    verdict = check_memory_layout(layout)
    assert verdict.status in ("proved", "refuted")
    assert verdict.proved == brute_memory(layout), (layout, verdict)
    if verdict.refuted:
        assert_column_or_surjective_witness(layout, verdict, (1, 2), allow_zero=False)


@st.composite
def one_hot_layouts(draw: Any) -> LinearLayout:
    """Layouts whose bases are 0 or one-hot (often distributed), with duplicates."""
    outs = draw(st.sampled_from([["dim0"], ["dim0", "dim1"]]))
    out_log2 = [draw(st.integers(0, 3)) for _ in outs]
    units = [(k, 1 << b) for k, n in enumerate(out_log2) for b in range(n)]
    in_names = draw(st.sampled_from([["register"], ["register", "lane"], ["lane", "warp"]]))
    bases = []
    for name in in_names:
        count = draw(st.integers(0, 4))
        vectors = []
        for _ in range(count):
            basis = [0] * len(outs)
            if units and draw(st.booleans()):
                k, v = draw(st.sampled_from(units))
                basis[k] = v
            vectors.append(basis)
        bases.append((name, vectors))
    return LinearLayout.from_bases(bases, outs, [1 << n for n in out_log2], False)


@given(one_hot_layouts())
@LAW_SETTINGS
def test_distributed_on_one_hot_layouts(layout: LinearLayout) -> None:
    verdict = check_distributed(layout)
    assert verdict.proved == brute_distributed(layout), (layout, verdict)
    if verdict.refuted:
        assert_column_or_surjective_witness(layout, verdict, (1,), allow_zero=True)


@given(layouts())
@LAW_SETTINGS
def test_broadcast_bits_are_exactly_the_zero_bases(layout: LinearLayout) -> None:
    masks = broadcast_bits(layout)
    assert set(masks) == set(layout.get_in_dim_names())
    for name, vectors in layout.bases:
        expected = sum(1 << i for i, b in enumerate(vectors) if not any(b))
        assert masks[name] == expected, (name, vectors, masks)


def test_known_structure_verdicts() -> None:
    lane = LinearLayout.from_bases([("lane", [[1], [0], [2]])], ["dim0"])
    assert check_distributed(lane).proved
    assert not check_injective(lane).proved
    assert broadcast_bits(lane) == {"lane": 2}
    shared = LinearLayout.from_bases([("offset", [[0, 1], [1, 1]])], ["dim0", "dim1"])
    assert check_memory_layout(shared).proved
    assert check_distributed(shared).refuted
    three = LinearLayout.from_bases(
        [("offset", [[1, 1], [0, 1], [2, 2], [0, 2]])], ["dim0", "dim1"]
    )
    assert check_memory_layout(three).proved
    four = LinearLayout.from_bases([("offset", [[3, 1], [0, 1], [2, 0], [0, 2]])], ["dim0", "dim1"])
    verdict = check_memory_layout(four)
    assert verdict.refuted and verdict.counterexample == {"offset": 1}
    assert_column_or_surjective_witness(four, verdict, (1, 2), allow_zero=False)


# ---------------------------------------------------------------------- family properties


def assert_family_witness(family: LayoutFamily, prop: str, verdict: Verdict) -> LinearLayout:
    """A refutation names a member and a witness that the concrete check confirms."""
    assert verdict.refuted, str(verdict)
    cx = dict(verdict.counterexample or {})
    params = {k: cx.pop(k) for k in family.params}
    assert family.is_member(**params), params
    layout = family.instance(**params)
    concrete = {
        "injective": check_injective,
        "surjective": check_surjective,
        "distributed": check_distributed,
        "memory": check_memory_layout,
    }
    if prop in concrete:
        again = concrete[prop](layout)
        assert again.refuted, (params, again)
    assert not BRUTE[prop](layout), (prop, params, layout)
    witness = Verdict(
        "refuted",
        verdict.claim,
        verdict.method,
        0.0,
        cx,
        verdict.actual,
        verdict.expected,
        verdict.reason,
        verdict.details,
    )
    assert_concrete_witness(prop, layout, witness)
    if verdict.actual is not None:
        assert verdict.actual == layout.apply(cx)
    return layout


SWIZZLED_10_3 = swizzled_shared_2d(10, 3)


@pytest.mark.parametrize("prop", ["injective", "surjective", "no_broadcast", "memory"])
def test_swizzled_family_properties_proved(prop: str) -> None:
    verdict = prove_family_property(SWIZZLED_10_3, prop)
    assert verdict.proved, str(verdict)


def test_swizzled_family_is_not_distributed() -> None:
    verdict = prove_family_property(SWIZZLED_10_3, "distributed")
    layout = assert_family_witness(SWIZZLED_10_3, "distributed", verdict)
    cx = dict(verdict.counterexample or {})
    offset = cx["offset"]
    lc = cx["lc"]
    # a row bit whose basis has a row bit and a swizzled column bit
    assert offset >= 1 << lc and offset & (offset - 1) == 0, cx
    out = layout.apply({"offset": offset})
    assert out["dim0"] == offset >> lc and out["dim1"] != 0
    assert popcount((out["dim0"], out["dim1"])) == 2


def test_swizzled_family_properties_match_every_member_small() -> None:
    fam = swizzled_shared_2d(4, 2)
    members = list(fam.members())
    for prop in PROPERTIES:
        verdict = prove_family_property(fam, prop)
        holds = all(CONCRETE[prop](fam.instance(**m)) for m in members)
        assert verdict.status == ("proved" if holds else "refuted"), (prop, verdict)


BCAST = LayoutFamily(
    "bcast",
    {"n": (1, 4), "z": (0, 2)},
    {"lane": "n + z"},
    {"dim0": "n"},
    {"lane": {"dim0": "(1 << i) if i < n else 0"}},
)


@pytest.mark.parametrize("prop", ["injective", "no_broadcast", "memory"])
def test_broadcast_family_refuted(prop: str) -> None:
    verdict = prove_family_property(BCAST, prop)
    layout = assert_family_witness(BCAST, prop, verdict)
    cx = dict(verdict.counterexample or {})
    assert cx["z"] >= 1, cx  # only members with broadcast bits fail
    lane = cx["lane"]
    assert lane >> cx["n"], cx  # the witness uses a broadcast lane bit
    assert broadcast_bits(layout)["lane"], layout


@pytest.mark.parametrize("prop", ["surjective", "distributed"])
def test_broadcast_family_proved(prop: str) -> None:
    verdict = prove_family_property(BCAST, prop)
    assert verdict.proved, str(verdict)


def test_property_argument_error() -> None:
    with pytest.raises(ValueError, match="Argument 'prop' must be one of"):
        prove_family_property(BCAST, "bijective")


# ---------------------------------------------------------------------- cross-check

HAND_FAMILIES = {
    "bcast": BCAST,
    "strided": LayoutFamily(
        "strided",
        {"n": (1, 4), "s": (0, 2)},
        {"x": "n"},
        {"o": "n + s"},
        {"x": {"o": "1 << (i + s)"}},
    ),
    "transpose": LayoutFamily(
        "transpose",
        {"a": (0, 3), "b": (0, 3)},
        {"offset": "a + b"},
        {"dim0": "a", "dim1": "b"},
        {
            "offset": {
                "dim0": "(1 << max(i - b, 0)) if i >= b else 0",
                "dim1": "(1 << i) if i < b else 0",
            }
        },
    ),
    "modular": LayoutFamily(
        "modular", {"n": (0, 4), "k": (1, 3)}, {"x": "n"}, {"o": "k"}, {"x": {"o": "1 << (i % k)"}}
    ),
    "ring": LayoutFamily(
        "ring",
        {"n": (1, 4)},
        {"x": "n"},
        {"o": "n"},
        {"x": {"o": "(1 << i) | (1 << ((i + 1) % n))"}},
    ),
    "blocked": LayoutFamily(
        "blocked",
        {"r": (0, 2), "l": (0, 3), "w": (0, 2)},
        {"register": "r", "lane": "l", "warp": "w"},
        {"dim0": "r + l"},
        {"register": {"dim0": "1 << i"}, "lane": {"dim0": "1 << (i + r)"}, "warp": {"dim0": "0"}},
    ),
    "constrained": LayoutFamily(
        "constrained",
        {"n": (0, 4), "m": (0, 4)},
        {"x": "n"},
        {"o": "m"},
        {"x": {"o": "(1 << i) if i < m else ((1 << max(i - m, 0)) if m > 0 else 0)"}},
        constraint="m <= n and n <= m + 1",
    ),
    "swizzled_3_2": swizzled_shared_2d(3, 2),
}

_TERMS = [
    "(1 << i)",
    "(1 << (i + s))",
    "((1 << i) >> s)",
    "(1 << (i % k))",
    "0",
    "((1 << i) * 3)",
    "(1 << (i // 2))",
    "((1 << i) if i < n else 0)",
    "((1 << i) if i % 2 == 0 else 0)",
    "(1 << max(i - s, 0))",
    "((1 << (i + 1)) - 1)",
    "(i + 1)",
]
_IN = [("x", "n"), ("y", "s"), ("y", "k"), ("x", "n + s")]
_OUT0 = ["n", "n + s", "k", "s", "max(n, k)", "n + 1"]
_OUT1 = ["s", "k", "1", "0"]
_CONSTRAINTS = [None, None, "n >= s", "n + s <= 4", "k <= n"]


def random_family(seed: int) -> LayoutFamily:
    """A small random family: 1-2 in dims, 1-2 out dims, bases XORs of stock terms masked
    to the out dim's size."""
    rng = random.Random(seed)
    params = {"n": (rng.randint(0, 1), rng.randint(2, 4)), "s": (0, 2), "k": (1, 3)}
    in_dims = dict(rng.sample(_IN, rng.randint(1, 2)))
    if len(in_dims) == 0:
        in_dims = {"x": "n"}
    out_dims = {"o": rng.choice(_OUT0)}
    if rng.random() < 0.5:
        out_dims["p"] = rng.choice(_OUT1)
    bases = {}
    for d in in_dims:
        bases[d] = {}
        for o, size in out_dims.items():
            terms = rng.sample(_TERMS, rng.randint(1, 2))
            bases[d][o] = f"({' ^ '.join(terms)}) & ((1 << ({size})) - 1)"
    return LayoutFamily(f"random{seed}", params, in_dims, out_dims, bases, rng.choice(_CONSTRAINTS))


_LOW_TERMS = [
    *_TERMS,
    "((1 << i) >> 1)",
    "((1 << i) >> 2)",
    "((1 << i) >> 1) * s",
    "(k << max(i - 2, 0))",
    "0",
    "0",
]


def unit_triangular_family(seed: int) -> LayoutFamily:
    """A random family whose members are mostly invertible: basis i is ``2**i`` XOR lower
    bits (a unit-triangular matrix), sometimes with a second in dim that is broadcast or
    folded onto the low bits (then not injective)."""
    rng = random.Random(10_000 + seed)
    params = {"n": (rng.randint(0, 1), rng.randint(3, 4)), "s": (0, 2), "k": (1, 3)}
    x = f"(1 << i) ^ (({rng.choice(_LOW_TERMS)}) & ((1 << i) - 1))"
    kind = rng.choice(["square", "two_dims", "broadcast", "folded"])
    if kind == "square":
        in_dims, out_dims, bases = {"x": "n"}, {"o": "n"}, {"x": {"o": x}}
    elif kind == "two_dims":
        y = f"(1 << (i + n)) ^ (({rng.choice(_LOW_TERMS)}) & ((1 << (i + n)) - 1))"
        in_dims, out_dims = {"x": "n", "y": "s"}, {"o": "n + s"}
        bases = {"x": {"o": x}, "y": {"o": y}}
    elif kind == "broadcast":
        in_dims, out_dims = {"x": "n", "y": "s"}, {"o": "n"}
        bases = {"x": {"o": x}, "y": {"o": "0"}}
    else:
        y = f"({rng.choice(_LOW_TERMS)}) & ((1 << n) - 1)"
        in_dims, out_dims = {"x": "n", "y": "s"}, {"o": "n"}
        bases = {"x": {"o": x}, "y": {"o": y}}
    constraint = rng.choice([None, None, "n >= s", "s + 1 <= n"])
    return LayoutFamily(f"triangular{seed}", params, in_dims, out_dims, bases, constraint)


FAMILIES: list[tuple[str, Callable[[], LayoutFamily]]] = [
    *((name, (lambda f=f: f)) for name, f in HAND_FAMILIES.items()),
    *((f"random{seed}", (lambda s=seed: random_family(s))) for seed in range(16)),
    *((f"triangular{seed}", (lambda s=seed: unit_triangular_family(s))) for seed in range(24)),
]


@pytest.mark.parametrize("make_family", [f for _, f in FAMILIES], ids=[n for n, _ in FAMILIES])
def test_parametric_properties_match_concrete_checks(make_family: Callable[[], Any]) -> None:
    family = make_family()
    members = list(family.members())
    layouts_ = [(m, family.instance(**m)) for m in members]
    for prop in PROPERTIES:
        concrete = [CONCRETE[prop](ll) for _, ll in layouts_]
        brute = [BRUTE[prop](ll) for _, ll in layouts_]
        assert concrete == brute, (prop, [(m, c) for (m, _), c in zip(layouts_, concrete)])
        verdict = prove_family_property(family, prop)
        expected = "proved" if all(concrete) else "refuted"
        failing = [m for (m, _), ok in zip(layouts_, concrete) if not ok][:3]
        assert verdict.status == expected, f"{family.name} {prop}: {verdict}; failing {failing}"
        if verdict.refuted:
            assert_family_witness(family, prop, verdict)
