"""The replay's evaluation on lanes (one numpy array per node, one lane per try) is the scalar
evaluation bit for bit, and settling on it takes the same decisions: the same first differing
try, the same 'not found', the same proofs of equality."""

from __future__ import annotations

import random
import struct

import numpy as np
import pytest

from llverify.emitted.settle import settle_pair, settle_violations
from llverify.emitted.sim.memory import Violation
from llverify.emitted.sim.replay import (
    NotEvaluable,
    _bits,
    _bits_lanes,
    _float,
    _floats,
    _sides,
    _tries,
    assumptions_hold,
    differing_inputs,
    evaluate,
    evaluate_lanes,
)
from llverify.emitted.sim.symbolic import Dag
from llverify.smt.values import BytesEqual, bytes_equal

#: bit patterns that stand out, per width: signed zeros, infinities, quiet and signalling NaNs
#: with payloads, subnormals, the largest finite values, integer extremes
_SPECIAL = {
    1: (0, 1, 0x7F, 0x80, 0xFF),
    2: (
        0,
        0x8000,
        0x7C00,
        0xFC00,
        0x7E01,
        0x7C01,
        0x0001,
        0x83FF,
        0x7BFF,
        0x3C00,
        0xBC00,
        0x7F80,
        0xFF80,
        0x7FC1,
        0x0080,
        0x007F,
        0x3F80,
        0x7F7F,
        0xFFFF,
    ),
    4: (
        0,
        0x80000000,
        0x7F800000,
        0xFF800000,
        0x7FC00001,
        0xFFC00002,
        0x7F800001,
        1,
        0x807FFFFF,
        0x7F7FFFFF,
        0x3F800000,
        0xBF800000,
        0x40000000,
        0x3F000000,
        0xFFFFFFFF,
        0x00800000,
    ),
    8: (
        0,
        1 << 63,
        0x7FF0000000000000,
        0xFFF0000000000000,
        0x7FF8000000000001,
        1,
        0x800FFFFFFFFFFFFF,
        0x7FEFFFFFFFFFFFFF,
        0x3FF0000000000000,
        0xBFF0000000000000,
        (1 << 64) - 1,
        0x0010000000000000,
    ),
}
_FLOAT_OPS = ("fadd", "fsub", "fmul", "fdiv", "maxnum", "minnum")
_FCMP = (
    "oeq",
    "one",
    "olt",
    "ole",
    "ogt",
    "oge",
    "une",
    "ueq",
    "ult",
    "ule",
    "ugt",
    "uge",
    "uno",
    "ord",
    "true",
)  # "true": no semantics here (every evaluation raises)
_ICMP = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_INT_OPS = (
    "add",
    "sub",
    "mul",
    "and",
    "or",
    "xor",
    "shl",
    "lshr",
    "ashr",
    "smax",
    "smin",
    "umax",
    "umin",
)


def _random_dag(generator: random.Random, size: int) -> tuple[Dag, list[int], list[int]]:
    """A random DAG over every operation the replay knows (and one it does not): (the DAG,
    its leaves, its nodes)."""
    dag = Dag()
    leaves = [dag.leaf(0, k, w) for k, w in enumerate((1, 2, 2, 4, 4, 4, 8, 8, 1, 4))]
    nodes = list(leaves) + [dag.const(generator.choice(_SPECIAL[w]), w) for w in (1, 2, 4, 8)]
    nodes += [dag.const(s, 1) for s in (3, 7, 9, 31, 64)]  # small shift amounts

    def pick(width: int | None = None) -> int:
        fitting = [n for n in nodes if width is None or dag.width[n] == width]
        return generator.choice(fitting or nodes)

    for _ in range(size):
        family = generator.randrange(12)
        width = generator.choice((1, 2, 4, 8))
        if family == 0:
            width = generator.choice((2, 4, 8))
            node = dag.op(generator.choice(_FLOAT_OPS), (pick(width), pick(width)), width)
        elif family == 1:
            width = generator.choice((2, 4, 8))
            node = dag.op("fcmp." + generator.choice(_FCMP), (pick(width), pick(width)), 1)
        elif family == 2:
            node = dag.op("icmp." + generator.choice(_ICMP), (pick(width), pick(width)), 1)
        elif family == 3:
            kind = generator.choice(_INT_OPS)
            amount = pick(1) if kind in ("shl", "lshr", "ashr") else pick(width)
            node = dag.op(kind, (pick(width), amount), width)
        elif family == 4:
            node = dag.op("select", (pick(1), pick(width), pick(width)), width)
        elif family == 5:
            source, target = generator.choice(
                ((8, 1), (1, 8), (8, 32), (16, 64), (32, 16), (64, 8), (1, 32), (32, 64), (64, 64))
            )
            kind = generator.choice(("zext", "sext", "trunc"))
            node = dag.op(
                f"{kind}.{source}.{target}", (pick(max(1, source // 8)),), target // 8 or 1
            )
        elif family == 6:
            kind = generator.choice(("zext", "sext", "trunc"))
            node = dag.op(f"{kind}.x", (pick(),), width)  # at the byte widths
        elif family == 7:
            node = dag.op(f"bit.{generator.choice((0, 3, 7, 31, 63, 70))}", (pick(),), 1)
        elif family == 8:
            width = generator.choice((2, 4, 8))
            node = dag.op(generator.choice(("fabs", "nvvm.fabs")), (pick(width),), width)
        elif family == 9:
            symbols = []
            for _ in range(width):
                roll = generator.random()
                if roll < 0.1:
                    symbols.append(-1 - generator.randrange(256))  # a constant byte
                elif roll < 0.12:
                    symbols.append(-300)  # an undefined byte
                else:
                    symbols.append(pick() * 16 + generator.randrange(9))
            node = dag.from_symbols(tuple(symbols))
        elif family == 10:  # evaluated lane by lane: carry chains, a vector of i1 to bits
            if generator.random() < 0.5:
                node = dag.op("ptx.mad.u32.lo", (pick(4), pick(4), pick(4)), 4)
            else:
                node = dag.op("bitcast.<4 x i1>.i8", (pick(4),), 1)
        else:
            node = dag.op("llvm.exp2.f32", (pick(4),), 4)  # no semantics here
        nodes.append(node)
    return dag, leaves, nodes


def _lane_values(
    dag: Dag, leaves: list[int], generator: random.Random, count: int
) -> list[dict[int, int]]:
    """Leaf assignments mixing special patterns and random bits."""
    lanes = []
    for _ in range(count):
        values = {}
        for leaf in leaves:
            width = dag.width[leaf]
            if generator.random() < 0.6:
                values[leaf] = generator.choice(_SPECIAL[width])
            else:
                values[leaf] = generator.randrange(1 << (8 * width))
        lanes.append(values)
    return lanes


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("float_type", ["f16", "bf16"])
def test_lanes_equal_the_scalar_evaluation_on_random_dags(seed: int, float_type: str) -> None:
    generator = random.Random(seed)
    dag, leaves, nodes = _random_dag(generator, 60)
    lanes = _lane_values(dag, leaves, generator, 96)
    roots = nodes[-12:]
    for root in roots:
        (values,), defined = evaluate_lanes(dag, [root], lanes, float_type=float_type)
        for lane, assignment in enumerate(lanes):
            try:
                expected = evaluate(dag, root, assignment, float_type=float_type)
            except NotEvaluable:
                assert not defined[lane], (root, dag.describe(root), assignment)
                continue
            assert defined[lane], (root, dag.describe(root), assignment)
            assert int(values[lane]) == expected, (root, dag.describe(root), assignment)


def test_some_random_lanes_are_defined_and_some_not() -> None:
    """The random DAGs above test both sides: defined lanes and lanes that raise."""
    generator = random.Random(3)
    dag, leaves, nodes = _random_dag(generator, 60)
    lanes = _lane_values(dag, leaves, generator, 64)
    fractions = [
        float(evaluate_lanes(dag, [root], lanes)[1].mean()) for root in nodes[len(leaves) :]
    ]
    assert any(f == 1.0 for f in fractions) and any(0 < f < 1 for f in fractions)
    assert any(f == 0.0 for f in fractions)


def _halfway_doubles(generator: random.Random) -> list[float]:
    """Doubles at, just above and just below the halfway points of f16, bf16 (through f32)
    and f32, and at the edges of their ranges."""
    out = [
        0.0,
        -0.0,
        float("inf"),
        float("-inf"),
        65504.0,
        65520.0,
        65519.99,
        2.0**-24,
        2.0**-25,
        3 * 2.0**-26,
        2.0**-149,
        2.0**-150,
        3.4028235e38,
        3.4028236e38,
    ]
    for _ in range(400):
        f32 = generator.randrange(0x7F800000) | (generator.randrange(2) << 31)
        value = struct.unpack("<f", struct.pack("<I", f32))[0]
        ulp_half = abs(value) * 2.0**-11  # about half an f16 ulp: halfway for f16
        out += [value, value + ulp_half, value - ulp_half]
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
        for shift in (13 + 29, 16 + 29, 29):  # f16, bf16 and f32 halfway points
            half = bits | (1 << (shift - 1))
            for delta in (-1, 0, 1):
                out.append(struct.unpack("<d", struct.pack("<Q", (half + delta) & (2**64 - 1)))[0])
    return out


@pytest.mark.parametrize(("width", "float_type"), [(2, "f16"), (2, "bf16"), (4, "f16"), (8, "f16")])
def test_rounding_on_lanes_equals_the_scalar_rounding(width: int, float_type: str) -> None:
    values = _halfway_doubles(random.Random(width))
    with np.errstate(all="ignore"):  # as evaluate_lanes calls it
        lanes = _bits_lanes(np.array(values, dtype=np.float64), width, float_type)
    assert lanes.tolist() == [_bits(v, width, float_type) for v in values]


@pytest.mark.parametrize(("width", "float_type"), [(2, "f16"), (2, "bf16"), (4, "f16"), (8, "f16")])
def test_reading_floats_on_lanes_equals_the_scalar_reading(width: int, float_type: str) -> None:
    generator = random.Random(width)
    patterns = list(_SPECIAL[width]) + [generator.randrange(1 << 8 * width) for _ in range(2000)]
    with np.errstate(all="ignore"):  # as evaluate_lanes calls it
        lanes = _floats(np.array(patterns, dtype=np.uint64), width, float_type).tolist()
    scalar = [_float(p, width, float_type) for p in patterns]
    assert [struct.pack("<d", v) for v in lanes] == [struct.pack("<d", v) for v in scalar]


def test_shifts_by_the_width_or_more_are_poison_on_lanes_too() -> None:
    dag = Dag()
    x, amount = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    lanes = [{x: 0x80000001, amount: a} for a in (0, 1, 31, 32, 33, 64, 200, 2**32 - 1)]
    for kind in ("shl", "lshr", "ashr"):
        (values,), defined = evaluate_lanes(dag, [dag.op(kind, (x, amount), 4)], lanes)
        assert defined.tolist() == [True, True, True, False, False, False, False, False]
    (values,), _ = evaluate_lanes(dag, [dag.op("ashr", (x, amount), 4)], lanes[:3])
    assert values.tolist() == [0x80000001, 0xC0000000, 0xFFFFFFFF]


def test_division_by_zero_and_nan_results_as_the_scalar_code_defines_them() -> None:
    dag = Dag()
    x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    one, zero, minus_zero, inf = 0x3F800000, 0, 0x80000000, 0x7F800000
    lanes = [{x: one, y: zero}, {x: one, y: minus_zero}, {x: zero, y: zero}, {x: inf, y: inf}]
    (values,), defined = evaluate_lanes(dag, [dag.op("fdiv", (x, y), 4)], lanes)
    assert defined.tolist() == [True, True, False, False]  # 0/0 and inf/inf: NaN
    assert values[:2].tolist() == [0x7F800000, 0xFF800000]


def test_wider_or_deeper_dags_are_left_to_the_scalar_evaluation() -> None:
    dag = Dag()
    x = dag.leaf(0, 0, 4)
    wide = dag.op("zext.32.128", (x,), 16)
    with pytest.raises(NotEvaluable, match="16-byte"):
        evaluate_lanes(dag, [wide], [{x: 1}])
    deep = x
    for _ in range(300):
        deep = dag.op("add", (deep, x), 4)
    with pytest.raises(NotEvaluable, match="deeper"):
        evaluate_lanes(dag, [deep], [{x: 1}])


def _scalar_differing_inputs(
    dag: Dag,
    first: tuple[int, int],
    second: tuple[int, int],
    float_types: tuple[str, ...],
    facts: tuple[tuple[int, bool], ...] = (),
) -> tuple[dict[int, int], int, int] | None:
    """The scalar search before lanes (main at 6f24c96), without its time limit."""
    leaves = sorted(set(dag.leaves(first[0])) | set(dag.leaves(second[0])))
    generator = random.Random(0)
    for values in _tries(dag, leaves, 256, generator, _sides(dag, first[0], second[0])):
        if facts:
            admitted = assumptions_hold(dag, facts, values, float_types=float_types)
            if admitted is None:
                continue
            values = admitted
        outcomes = []
        try:
            for float_type in float_types:
                memo: dict[int, int] = {}
                a = evaluate(dag, first[0], values, float_type=float_type, memo=memo)
                b = evaluate(dag, second[0], values, float_type=float_type, memo=memo)
                outcomes.append((a >> 8 * first[1] & 0xFF, b >> 8 * second[1] & 0xFF))
        except NotEvaluable:
            continue
        if all(a != b for a, b in outcomes):
            return values, outcomes[0][0], outcomes[0][1]
    return None


def _max(dag: Dag, a: int, b: int) -> int:
    """Inductor's NaN-propagating maximum."""
    greater = dag.op("fcmp.ogt", (a, b), 1)
    nan = dag.op("fcmp.uno", (a, a), 1)
    return dag.op("select", (dag.op("or", (greater, nan), 1), a, b), 4)


def _chain(dag: Dag, leaves: list[int], combine: str) -> int:
    total = leaves[0]
    for leaf in leaves[1:]:
        total = _max(dag, total, leaf) if combine == "max" else dag.op(combine, (total, leaf), 4)
    return total


def _assembled(dag: Dag, byte_leaves: list[int]) -> list[int]:
    """f32 values assembled from byte leaves (as the softmax kernels load them)."""
    return [
        dag.from_symbols(tuple(b * 16 for b in byte_leaves[k : k + 4]))
        for k in range(0, len(byte_leaves), 4)
    ]


def _cases() -> list[tuple[Dag, tuple[int, int], tuple[int, int], tuple[str, ...]]]:
    """Pairs of values that differ early, late or never, in floats and integers."""
    cases = []
    for width, float_types in ((4, ("f16", "bf16")), (2, ("f16", "bf16")), (2, ("f16",))):
        for combine in ("max", "fadd", "maxnum", "fmul"):
            dag = Dag()
            xs = [dag.leaf(0, k, 4 if combine == "max" else width) for k in range(9)]
            forward, backward = _chain(dag, xs, combine), _chain(dag, xs[::-1], combine)
            for byte in range(dag.width[forward]):
                cases.append((dag, (forward, byte), (backward, byte), float_types))
    dag = Dag()
    bytes_ = [dag.leaf(1, k, 1) for k in range(32)]
    xs = _assembled(dag, bytes_)
    forward, backward = _chain(dag, xs, "max"), _chain(dag, xs[::-1], "max")
    cases += [(dag, (forward, b), (backward, b), ("f16", "bf16")) for b in range(4)]
    xs = [dag.leaf(2, k, 4) for k in range(5)]
    ints = _chain(dag, xs, "add"), _chain(dag, xs[::-1], "add")
    cases.append((dag, (ints[0], 0), (ints[1], 0), ("f16",)))  # equal: never found different
    wrapped = dag.op("zext.1.8", (dag.op("trunc.8.1", (bytes_[0],), 1),), 1)
    cases.append((dag, (wrapped, 0), (bytes_[0], 0), ("f16",)))  # differs on x = 2
    return cases


def test_the_search_on_lanes_finds_what_the_scalar_search_finds() -> None:
    found = 0
    memos: dict[int, dict] = {}  # one per DAG: the keys are its nodes
    for dag, first, second, float_types in _cases():
        expected = _scalar_differing_inputs(dag, first, second, float_types)
        kwargs = {"float_types": float_types, "seconds": 600.0}
        assert differing_inputs(dag, first, second, **kwargs) == expected
        memo = memos.setdefault(id(dag), {})
        assert differing_inputs(dag, first, second, memo=memo, **kwargs) == expected
        found += expected is not None
    assert 0 < found < len(_cases())  # both outcomes occur


def test_the_search_on_lanes_with_facts_admits_the_same_tries() -> None:
    dag = Dag()
    x, y, n = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4), dag.leaf(1, 0, 1)
    facts = ((dag.op("icmp.ult", (n, dag.const(4, 1)), 1), True),)  # n < 4: 1 try in 64 or so
    gated = dag.op("select", (dag.op("icmp.eq", (n, dag.const(0, 1)), 1), x, y), 4)
    pairs = [((_max(dag, x, y), 3), (_max(dag, y, x), 3)), ((gated, 3), (x, 3))]
    for first, second in pairs:
        expected = _scalar_differing_inputs(dag, first, second, ("f16", "bf16"), facts)
        assert expected is not None
        got = differing_inputs(dag, first, second, float_types=("f16", "bf16"), facts=facts)
        assert got == expected


def test_the_scalar_path_still_answers_where_lanes_do_not_apply() -> None:
    dag = Dag()
    x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    deep_x, deep_y = _max(dag, x, y), _max(dag, y, x)
    for _ in range(250):  # deeper than the lanes take: evaluated one by one
        deep_x = dag.op("add", (deep_x, dag.const(0, 4)), 4)
        deep_y = dag.op("add", (deep_y, dag.const(0, 4)), 4)
    found = differing_inputs(dag, (deep_x, 3), (deep_y, 3))
    assert found is not None and {found[1], found[2]} == {0x00, 0x80}


def test_shared_encoding_proves_and_refuses_as_fresh_encodings() -> None:
    dag = Dag()
    bits = [dag.leaf(0, k, 1) for k in range(6)]
    wrapped = [dag.op("zext.1.8", (dag.op("trunc.8.1", (b,), 1),), 1) for b in bits]
    masked = [dag.op("and", (b, dag.const(1, 1)), 1) for b in bits]
    other = [dag.op("and", (b, dag.const(3, 1)), 1) for b in bits]
    equal = BytesEqual(dag)
    for k in range(6):
        assert (
            equal((wrapped[k], 0), (masked[k], 0))
            is bytes_equal(dag, (wrapped[k], 0), (masked[k], 0))
            is True
        )
        assert equal((wrapped[k], 0), (other[k], 0)) is False  # negative control
    assert bytes_equal(dag, (wrapped[0], 0), (masked[0], 0), max_nodes=4) is False
    small = BytesEqual(dag, max_nodes=4)  # the limit counts each pair's nodes, not the encoder's
    assert small((wrapped[1], 0), (masked[1], 0)) is False
    assert small((masked[2], 0), (masked[2], 0)) is True


def test_settling_with_shared_caches_takes_the_same_decisions() -> None:
    dag = Dag()
    x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    b = dag.leaf(1, 0, 1)
    wrapped = dag.op("zext.1.8", (dag.op("trunc.8.1", (b,), 1),), 1)
    masked = dag.op("and", (b, dag.const(1, 1)), 1)
    total, swapped = dag.op("div.full.f32", (x, y), 4), dag.op("div.full.f32", (y, x), 4)
    forward, backward = _max(dag, x, y), _max(dag, y, x)
    equal_pairs = ((wrapped * 16, masked * 16),)
    max_pairs = tuple((forward * 16 + k, backward * 16 + k) for k in range(4))
    open_pairs = tuple((total * 16 + k, swapped * 16 + k) for k in range(4))

    def violation(detail: str, pairs: tuple[tuple[int, int], ...]) -> Violation:
        return Violation("race", "shared", 0, 1, 0, "st", detail, pairs)

    violations = [
        violation("equal", equal_pairs),
        violation("max", max_pairs),
        violation("open", open_pairs),
    ]
    stand, open_ = settle_violations(dag, violations)
    fresh = {p: settle_pair(dag, p) for p in equal_pairs + max_pairs + open_pairs}
    outcomes = [s.outcome for s in fresh.values()]
    assert outcomes[0] == "equal" and outcomes[5:] == ["open"] * 4  # no semantics: open
    assert outcomes[1:5] == ["different", "open", "open", "different"]  # NaN payloads, signs
    replay = fresh[max_pairs[0]].replay  # the first different pair's replay, settled alone
    assert [v.detail for v in stand] == [f"max; {replay}"]
    assert open_ == [violations[2]]


def test_an_unexpected_error_on_lanes_falls_back_to_the_scalar_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from llverify.emitted.sim import replay

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("lanes broken")

    dag = Dag()
    x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    first, second = (_max(dag, x, y), 3), (_max(dag, y, x), 3)
    sext = dag.op("sext.0.8", (dag.leaf(1, 0, 1),), 1)  # a malformed name: the scalar's error
    with pytest.raises(ValueError, match="negative shift"):
        differing_inputs(dag, (sext, 0), (x, 0))
    expected = differing_inputs(dag, first, second)
    monkeypatch.setattr(replay, "evaluate_lanes", broken)
    memo: dict = {}
    assert expected is not None and differing_inputs(dag, first, second, memo=memo) == expected
    assert memo == {}  # the broken batches are not kept
