"""The constructor's bulk fast path agrees with its thorough validator on every input."""

from hypothesis import given, settings
from hypothesis import strategies as st

from llverify import LinearLayout, LLVerifyError, gf2
from llverify.errors import LayoutError
from llverify.layout_construct import fast_columns, validated_columns

coordinate = st.one_of(
    st.integers(-2, 70),
    st.integers(0, 1 << 31),
    st.booleans(),
    st.floats(0, 4),
    st.none(),
    st.text(max_size=1),
)
basis = st.one_of(
    st.lists(st.integers(0, 64), min_size=0, max_size=4),
    st.lists(coordinate, min_size=0, max_size=4),
    st.tuples(st.integers(0, 9), st.integers(0, 9)),
    st.integers(0, 3),
)
in_dims = st.lists(
    st.tuples(
        st.sampled_from(["register", "lane", "warp", "block", 7]), st.lists(basis, max_size=6)
    ),
    max_size=4,
)
out_names = st.lists(st.sampled_from(["dim0", "dim1", "dim2", "offset", 3]), max_size=4)
out_sizes = st.one_of(
    st.none(),
    st.lists(st.one_of(st.sampled_from([1, 2, 4, 8, 64, 1 << 31]), st.integers(0, 9)), max_size=4),
)


@settings(max_examples=1500, deadline=None)
@given(in_dims, st.booleans(), out_names, out_sizes, st.booleans())
def test_fast_path_accepts_only_what_the_validator_accepts(bases, as_dict, outs, sizes, surjective):
    if as_dict:
        bases = dict((name, value) for name, value in bases if isinstance(name, str))
    fast = fast_columns(bases, outs, sizes, surjective)
    try:
        expected = validated_columns(bases, outs, sizes, surjective)
    except LLVerifyError:
        assert fast is None, "the fast path accepted input the validator rejects"
        return
    if fast is None:
        return  # the fast path may defer anything to the validator
    # Names, columns, out names, out log2 sizes and offsets agree; the rank, when known, is right.
    assert fast[:5] == expected[:5]
    rank = fast[5]
    if rank >= 0:
        assert rank == gf2.rank([c for cols in fast[1] for c in cols])


@settings(max_examples=300, deadline=None)
@given(in_dims, out_names, out_sizes, st.booleans())
def test_from_bases_and_constructor_agree(bases, outs, sizes, surjective):
    outcomes = []
    for build in (LinearLayout.from_bases, LinearLayout):
        try:
            outcomes.append(build(bases, outs, sizes, surjective))
        except LLVerifyError as error:
            outcomes.append(type(error))
    assert outcomes[0] == outcomes[1]


def test_from_bases_memo_returns_the_same_layout_for_the_same_plain_arguments() -> None:
    from llverify.layout import clear_from_bases_memo

    clear_from_bases_memo()
    bases = [("register", [[0, 1], [1, 0]]), ("lane", [[0, 2]])]
    first = LinearLayout.from_bases(bases, ["dim0", "dim1"])
    assert LinearLayout.from_bases(bases, ["dim0", "dim1"]) is first
    # Other arguments, or the same values spelled with other containers, are other keys
    # (built, and equal where they mean the same layout).
    same = LinearLayout.from_bases(tuple(bases), ("dim0", "dim1"))
    assert same == first
    assert LinearLayout.from_bases(bases, ["dim0", "dim1"], [2, 4], False) == first
    assert LinearLayout.from_bases(bases, ["dim1", "dim0"]) != first


def test_from_bases_memo_does_not_skip_checks_of_other_types() -> None:
    # Negative controls: values equal to memoised ones but of other types (bool, float, a
    # numpy array whose bytes match, a str subclass) are checked as ever.
    import numpy as np
    import pytest

    from llverify.errors import LayoutTypeError

    LinearLayout.from_bases([("lane", [[1], [2]])], ["o"])
    for bad in ([("lane", [[True], [2]])], [("lane", [[1.0], [2]])]):
        with pytest.raises(LayoutTypeError):
            LinearLayout.from_bases(bad, ["o"])
    # numpy arrays marshal as raw bytes: shape (2, 1) is accepted and not memoised, so the
    # same bytes in shape (2,) (each basis an int, not a list) are still refused.
    assert LinearLayout.from_bases({"lane": np.array([[1], [2]])}, ["o"]).bases == [
        ("lane", [[1], [2]])
    ]
    with pytest.raises(LayoutTypeError):
        LinearLayout.from_bases({"lane": np.array([1, 2])}, ["o"])

    class Name(str):
        pass

    named = LinearLayout.from_bases([(Name("lane"), [[1], [2]])], ["o"])
    assert named == LinearLayout.from_bases([("lane", [[1], [2]])], ["o"])


def test_from_bases_memo_keys_are_snapshots_and_bounded(monkeypatch) -> None:
    import pytest

    from llverify import layout as layout_module
    from llverify.errors import LayoutError

    bases = [("lane", [[1], [2]])]
    LinearLayout.from_bases(bases, ["o"])
    bases[0][1][0][0] = -1  # the caller mutates its list: the memo kept the old key
    with pytest.raises(LayoutError):
        LinearLayout.from_bases(bases, ["o"])
    monkeypatch.setattr(layout_module, "_MAX_MEMO", 3)
    for size in range(1, 8):
        LinearLayout.from_bases([("lane", [[1 << k] for k in range(size)])], ["o"])
    assert 0 < len(layout_module._FROM_BASES) <= 3
    huge = [("lane", [[1 << k, 0, 0] for k in range(30)]), ("warp", [[0, 0, 0]] * 30)]
    outs = ["a", "b", "c"]  # a key over _MAX_MEMO_KEY bytes: built, never stored
    assert LinearLayout.from_bases(huge, outs) is not LinearLayout.from_bases(huge, outs)


# ---------------------------------------------------------------------- the template tier
# A template (layout_construct.make_template) reads a first-time key of a structure seen
# before straight from its marshal bytes.  These tests prime one, then hand it keys of the
# same length and shape whose values are wrong in every way the fast tier refuses, and keys
# of other shapes, and compare with the constructor (which never uses a template).

BLOCKED = [
    ("register", [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0], [0, 64]]),
    ("lane", [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]]),
    ("warp", [[4, 0], [8, 0]]),
    ("block", []),
]
OUTS = ["dim0", "dim1"]


def _outcome(build, bases, outs):
    try:
        layout = build(bases, outs)
    except LLVerifyError as error:
        return type(error)
    return layout, layout._cols, layout.out_dims, layout._get_rank()


def _primed_reader(bases, outs, strict=True):
    """Prime from_bases's template of this structure (two fast-tier builds of its key) and
    return its reader (None, unless strict, when the structure gets no template)."""
    from marshal import dumps

    from llverify import layout as layout_module

    layout_module.clear_from_bases_memo()
    for _ in range(2):
        layout_module._FROM_BASES.clear()
        LinearLayout.from_bases(bases, outs)
    key = dumps((bases, outs, None, True), 0)
    readers = layout_module._TEMPLATES.get(len(key), ())
    if not strict and not readers:
        return None
    (read,) = readers
    assert read(key) is not None  # the template path is what these tests exercise
    return read


def test_a_template_reads_the_layout_the_constructor_builds() -> None:
    read = _primed_reader(BLOCKED, OUTS)
    import random
    from marshal import dumps

    rng = random.Random(26)
    flat = [basis for _, group in BLOCKED for basis in group]
    for _ in range(200):
        rng.shuffle(flat)
        values = iter(flat)
        bases = [(name, [list(next(values)) for _ in group]) for name, group in BLOCKED]
        assert read(dumps((bases, OUTS, None, True), 0)) is not None
        assert _outcome(LinearLayout.from_bases, bases, OUTS) == _outcome(LinearLayout, bases, OUTS)


BAD_VALUES = [
    -1,
    True,
    False,
    1.0,
    None,
    "1",
    1 << 30,
    (1 << 31) - 1,
    1 << 31,
    1 << 40,
    -(1 << 31),
    [1],
    (1,),
]


def test_a_template_refuses_every_value_the_fast_tier_refuses() -> None:
    # Negative controls: one coordinate replaced by a bad value, or a basis by another kind
    # of container; from_bases must raise what the constructor raises (never read it).
    _primed_reader(BLOCKED, OUTS)
    for group in range(3):
        for basis in range(len(BLOCKED[group][1])):
            for position in range(2):
                for value in BAD_VALUES:
                    bases = [(name, [list(b) for b in bs]) for name, bs in BLOCKED]
                    bases[group][1][basis][position] = value
                    expected = _outcome(LinearLayout, bases, OUTS)
                    assert _outcome(LinearLayout.from_bases, bases, OUTS) == expected, (
                        group,
                        basis,
                        position,
                        value,
                    )
    for container in (set, frozenset, tuple, lambda b: dict.fromkeys(b), bytes, str):
        bases = [(name, [list(b) for b in bs]) for name, bs in BLOCKED]
        try:
            bases[1][1][0] = container([3, 4])
        except TypeError:
            continue
        expected = _outcome(LinearLayout, bases, OUTS)
        assert _outcome(LinearLayout.from_bases, bases, OUTS) == expected, container


def test_a_template_refuses_layouts_it_cannot_read() -> None:
    # Values of the template's shape: a swizzle (read, full rank), a repeated bit (not
    # surjective: refused), a zero where a bit is needed, bits past the template's sizes;
    # and the same shape with other names, containers or flags.
    _primed_reader(BLOCKED, OUTS)
    cases = []
    swizzled = [(name, [list(b) for b in bs]) for name, bs in BLOCKED]
    swizzled[0][1][3] = [16, 1]
    cases.append(swizzled)
    repeated = [(name, [list(b) for b in bs]) for name, bs in BLOCKED]
    repeated[0][1][0] = [0, 2]
    cases.append(repeated)
    zero = [(name, [list(b) for b in bs]) for name, bs in BLOCKED]
    zero[0][1][0] = [0, 0]
    cases.append(zero)
    wide = [(name, [list(b) for b in bs]) for name, bs in BLOCKED]
    wide[0][1][0] = [0, 128]
    cases.append(wide)
    cases.append([("regixter", g) for _, g in BLOCKED])
    cases.append([(name, [tuple(b) for b in g]) for name, g in BLOCKED])
    cases.append([(name, g) for name, g in BLOCKED[::-1]])
    for bases in cases:
        assert _outcome(LinearLayout.from_bases, bases, OUTS) == _outcome(LinearLayout, bases, OUTS)
    for outs in (["dim1", "dim0"], ["dimA", "dim1"], ("dim0", "dim1")):
        assert _outcome(LinearLayout.from_bases, BLOCKED, outs) == _outcome(
            LinearLayout, BLOCKED, outs
        )
    # Columns summing to 2**T - 1 without being single bits (1, 1, 5 and 2, 2, 3): only the
    # count of packed bits tells them from 1, 2, 4.
    _primed_reader([("lane", [[0, 1], [0, 2], [0, 4]])], OUTS)
    for bases in ([("lane", [[0, 1], [0, 1], [0, 5]])], [("lane", [[0, 1], [0, 1], [1, 1]])]):
        assert _outcome(LinearLayout.from_bases, bases, OUTS) == _outcome(LinearLayout, bases, OUTS)
    assert LinearLayout.from_bases(BLOCKED, OUTS, [128, 256], False).out_dims == [
        ("dim0", 128),
        ("dim1", 256),
    ]


single_bits = st.integers(1, 3).flatmap(
    lambda outs: st.tuples(
        st.just(outs),
        st.lists(st.integers(0, 5), min_size=outs, max_size=outs),  # bits per out dim
        st.lists(st.integers(0, 4), min_size=1, max_size=3),  # zero bases per in dim
        st.randoms(use_true_random=False),
    )
)


@settings(max_examples=300, deadline=None)
@given(single_bits, st.integers(0, 40), st.sampled_from([None, *BAD_VALUES, 3, 5, 6, 96]))
def test_templates_agree_with_the_constructor(case, where, bad):
    # Layouts of distinct single-bit columns (what a template reads) in random structures,
    # one coordinate possibly spoiled; every outcome equals the constructor's.
    num_outs, widths, zeros, rng = case
    outs = [f"d{k}" for k in range(num_outs)]
    columns = [
        [1 << i if k == out else 0 for k in range(num_outs)]
        for out, width in enumerate(widths)
        for i in range(width)
    ] + [[0] * num_outs for _ in range(sum(zeros))]
    rng.shuffle(columns)
    bounds = [0]
    for _ in range(len(zeros) - 1):
        bounds.append(rng.randint(bounds[-1], len(columns)))
    bounds.append(len(columns))
    bases = [(f"in{i}", columns[a:b]) for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]
    read = _primed_reader(bases, outs, strict=False)
    assert read is not None or not any(columns)  # only all-zero layouts get none
    if bad is not None and columns:
        basis = columns[where % len(columns)]
        basis[where % num_outs] = bad
    assert _outcome(LinearLayout.from_bases, bases, outs) == _outcome(LinearLayout, bases, outs)


def test_templates_of_dicts_and_tuples() -> None:
    # The same layouts spelled as a dict of tuples, and as tuples of lists: each spelling is
    # its own structure; its template reads its own spelling (a key of that spelling that is
    # read, not built) and refuses a bad value in it.
    from marshal import dumps

    def dict_of_tuples(pairs):
        return {name: tuple(tuple(b) for b in group) for name, group in pairs}

    def tuple_of_lists(pairs):
        return tuple((name, [list(b) for b in group]) for name, group in pairs)

    for spell in (dict_of_tuples, tuple_of_lists):
        read = _primed_reader(spell(BLOCKED), OUTS)
        swapped = spell([(name, group[::-1]) for name, group in BLOCKED])
        assert read(dumps((swapped, OUTS, None, True), 0)) is not None
        assert _outcome(LinearLayout.from_bases, swapped, OUTS) == _outcome(
            LinearLayout, swapped, OUTS
        )
        for bad in (True, -1, 1 << 30):
            pairs = [(name, [list(b) for b in group]) for name, group in BLOCKED]
            pairs[1][1][2][0] = bad
            spoiled = spell(pairs)
            assert read(dumps((spoiled, OUTS, None, True), 0)) is None
            assert _outcome(LinearLayout.from_bases, spoiled, OUTS) == _outcome(
                LinearLayout, spoiled, OUTS
            )


# A swizzled shared layout (NVMMA, 128-byte swizzle, f16, 128x128: Triton 3.9's bases), whose
# columns (1, 8), (2, 16), (4, 32) are not single bits: its template reads it by elimination.
SWIZZLED = [
    (
        "offset",
        [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]]
        + [[8, 0], [16, 0], [32, 0], [64, 0], [0, 64]],
    ),
    ("block", []),
]


def _with(bases, position, value):
    """A copy of ``bases`` with basis ``position`` of the first in dim replaced by ``value``."""
    copy = [(name, [list(b) for b in group]) for name, group in bases]
    copy[0][1][position] = value
    return copy


def test_a_template_reads_swizzled_layouts_and_refuses_what_it_must() -> None:
    import random
    from marshal import dumps

    read = _primed_reader(SWIZZLED, OUTS)
    rng = random.Random(35)
    group = [list(b) for b in SWIZZLED[0][1]]
    for _ in range(100):
        rng.shuffle(group)
        bases = [("offset", [list(b) for b in group]), ("block", [])]
        assert read(dumps((bases, OUTS, None, True), 0)) is not None
        outcome = _outcome(LinearLayout.from_bases, bases, OUTS)
        assert outcome == _outcome(LinearLayout, bases, OUTS)
        assert outcome[2:] == ([("dim0", 128), ("dim1", 128)], 14)
    # Negative controls, each refused by the reader and decided as the constructor decides:
    # a column in the span of two others (rank 13: not surjective, an error); the top bit of
    # dim0 dropped (surjective onto 64 x 128: a layout of other sizes than the template's);
    # a bit past the template's size (256 x 128, rank 14 < 15: an error); bad values.
    cases = {
        "dependent": _with(SWIZZLED, 8, [3, 24]),
        "narrower": _with(SWIZZLED, 12, [0, 0]),
        "wider": _with(SWIZZLED, 12, [128, 0]),
    }
    for value in (True, -1, 1 << 30, 1.0, [1]):
        cases[repr(value)] = _with(SWIZZLED, 7, [2, value])
    for label, bases in cases.items():
        assert read(dumps((bases, OUTS, None, True), 0)) is None, label
        expected = _outcome(LinearLayout, bases, OUTS)
        assert _outcome(LinearLayout.from_bases, bases, OUTS) == expected, label
    assert _outcome(LinearLayout, cases["narrower"], OUTS)[2][0] == ("dim0", 64)
    assert _outcome(LinearLayout, cases["dependent"], OUTS) is LayoutError


mixed = st.integers(1, 3).flatmap(
    lambda outs: st.tuples(
        st.just(outs),
        st.lists(st.integers(0, 4), min_size=outs, max_size=outs),  # bits per out dim
        st.lists(st.integers(0, 3), min_size=1, max_size=3),  # extra bases per in dim
        st.randoms(use_true_random=False),
    )
)


@settings(max_examples=300, deadline=None)
@given(mixed, st.integers(0, 40), st.sampled_from([None, "mix", "drop", *BAD_VALUES, 3, 6]))
def test_templates_of_mixed_columns_agree_with_the_constructor(case, where, change):
    # Full-rank layouts whose columns are sums of unit vectors (swizzle-like), in random
    # structures; then one column XORed into another (rank kept), one dropped to zero (rank
    # short, or other sizes) or one coordinate spoiled.  Every outcome equals the
    # constructor's.
    num_outs, widths, extra, rng = case
    outs = [f"d{k}" for k in range(num_outs)]
    total = sum(widths)
    offsets = [sum(widths[:k]) for k in range(num_outs)]
    packed = [1 << b for b in range(total)] + [rng.getrandbits(total) for _ in range(sum(extra))]
    for _ in range(2 * total):  # elementary column operations keep the rank
        i, j = rng.randrange(len(packed)), rng.randrange(len(packed))
        if i != j:
            packed[i] ^= packed[j]
    rng.shuffle(packed)
    columns = [[(c >> off) & ((1 << w) - 1) for off, w in zip(offsets, widths)] for c in packed]
    bounds = sorted(rng.randint(0, len(columns)) for _ in range(len(extra) - 1))
    bounds = [0, *bounds, len(columns)]
    bases = [(f"in{i}", columns[a:b]) for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]
    _primed_reader(bases, outs, strict=False)
    if change is not None and columns:
        basis = columns[where % len(columns)]
        if change == "mix":
            other = columns[(where + 1) % len(columns)]
            basis[:] = [a ^ b for a, b in zip(basis, other)]
        elif change == "drop":
            basis[:] = [0] * num_outs
        else:
            basis[where % num_outs] = change
    assert _outcome(LinearLayout.from_bases, bases, outs) == _outcome(LinearLayout, bases, outs)


def test_templates_of_wide_two_dim_layouts() -> None:
    # Two out dims past the narrow reader (T > 32 or a dim0 of more than 20 bits): the
    # general reader (64-bit columns) reads shuffles with a swizzled column, and refuses a
    # repeated column (rank T - 1) and a bit past the template's size; from_bases decides
    # both as the constructor does.
    import random
    from marshal import dumps

    rng = random.Random(26)
    for widths in ((21, 3), (17, 17), (2, 30)):
        columns = [[1 << b, 0] for b in range(widths[0])] + [[0, 1 << b] for b in range(widths[1])]
        columns[0] = [1, 1 << (widths[1] - 1)]  # a swizzled column
        bases = [("lane", columns[:5]), ("register", columns[5:])]
        read = _primed_reader(bases, OUTS)
        for _ in range(10):
            rng.shuffle(columns)
            shuffled = [("lane", [list(b) for b in columns[:5]]), ("register", columns[5:])]
            assert read(dumps((shuffled, OUTS, None, True), 0)) is not None
            assert _outcome(LinearLayout.from_bases, shuffled, OUTS) == _outcome(
                LinearLayout, shuffled, OUTS
            )
        # The columns are a basis: one replaced by a copy of another leaves rank T - 1.
        for bad in (list(columns[1]), [1 << widths[0], 0]):
            spoiled = [("lane", [bad] + [list(b) for b in columns[1:5]]), ("register", columns[5:])]
            assert read(dumps((spoiled, OUTS, None, True), 0)) is None, (widths, bad)
            assert _outcome(LinearLayout.from_bases, spoiled, OUTS) == _outcome(
                LinearLayout, spoiled, OUTS
            )


def test_make_template_refuses_columns_short_of_full_rank() -> None:
    # A reader accepts a key whose distinct columns are those of its template (the rank is a
    # function of that set), so the template's own columns must have full rank: columns of
    # rank 1 < 2 (built without requiring surjectivity) get no template.
    from marshal import dumps

    from llverify.layout_construct import make_template

    bases, outs = [("lane", [[1, 1], [1, 1]])], ["dim0", "dim1"]
    parts = validated_columns(bases, outs, None, True)
    assert make_template(bases, outs, dumps((bases, outs, None, True), 0), parts) is None
    full = [("lane", [[1, 1], [0, 1]])]
    parts = validated_columns(full, outs, None, True)
    read = make_template(full, outs, dumps((full, outs, None, True), 0), parts)
    # Its set {3, 2} is known; a repeat of one of them is another set, eliminated: refused.
    assert read(dumps(([("lane", [[0, 1], [1, 1]])], outs, None, True), 0)) is not None
    assert read(dumps(([("lane", [[1, 1], [1, 1]])], outs, None, True), 0)) is None


def test_layouts_built_through_the_writable_subclass_are_plain_immutable_layouts() -> None:
    import pickle

    import pytest

    from llverify import layout as layout_module

    read = _primed_reader(BLOCKED, OUTS)
    assert read is not None
    shuffled = [(name, list(reversed(group))) for name, group in BLOCKED]
    built = LinearLayout.from_bases(shuffled, OUTS)  # read by the template
    composed = built.compose(
        LinearLayout.identity_1d(128, "dim0", "dim0")
        * LinearLayout.identity_1d(128, "dim1", "dim1")
    )
    for layout in (built, composed, layout_module._make(("i",), ((1,),), ("o",), (1,))):
        assert type(layout) is LinearLayout
        with pytest.raises(AttributeError):
            layout._cols = ()
        with pytest.raises(AttributeError):
            del layout._ins
        assert pickle.loads(pickle.dumps(layout)) == layout
    assert built == LinearLayout(shuffled, OUTS) and composed == built


# ---------------------------------------------------------------------- the rank of a read
# A reader accepts columns other than the unit vectors when their rank is T: at once when
# every column of its template's basis is among them, else by layout_construct._full_rank
# (coordinates along the missing basis columns, through the basis's dual rows).  Checked
# against the rank by elimination over random bases and columns derived from them.

rank_cases = st.integers(1, 7).flatmap(
    lambda width: st.tuples(
        st.just(width),
        st.randoms(use_true_random=False),
        st.integers(0, 3),  # columns replaced by random XORs of others
        st.integers(0, 2),  # columns duplicated over others (negative controls)
        st.integers(0, 2),  # zero columns
        st.integers(0, 2),  # extra random columns
    )
)


@settings(max_examples=500, deadline=None)
@given(rank_cases)
def test_the_rank_test_of_a_read_is_the_rank(case) -> None:
    from llverify.layout_construct import _full_rank

    width, rng, mixes, duplicates, zeros, extra = case
    basis = [1 << b for b in range(width)]
    for _ in range(3 * width):  # elementary operations keep a basis
        i, j = rng.randrange(width), rng.randrange(width)
        if i != j:
            basis[i] ^= basis[j]
    rows = gf2.dual_rows(basis, width)
    assert rows is not None and set(rows) == set(basis)
    columns = list(basis)
    rng.shuffle(columns)
    for _ in range(mixes):
        i, j = rng.randrange(width), rng.randrange(width)
        if i != j:
            columns[i] ^= columns[j]
    for _ in range(duplicates):
        columns[rng.randrange(width)] = columns[rng.randrange(width)]
    columns += [0] * zeros + [rng.getrandbits(width) for _ in range(extra)]
    rng.shuffle(columns)
    flat = tuple(columns)
    # The reader's packed int: slots of `width + 3` bits, junk between them.
    slot = width + 3
    packed = sum(c << (2 * slot * i) for i, c in enumerate(flat))
    packed |= sum(rng.getrandbits(slot) << (2 * slot * i + slot) for i in range(len(flat)))
    ones = sum(1 << (2 * slot * i) for i in range(len(flat)))
    spread = {column: row * ones for column, row in rows.items()}
    missing = frozenset(rows).difference(flat)
    full = not missing or _full_rank(flat, missing, rows, packed, spread)
    assert full == (gf2.rank(list(flat)) == width)


def test_reads_of_swizzled_columns_mixed_duplicated_and_zeroed() -> None:
    # The swizzle's template reads one column XORed into another (rank 14, either way
    # round), and refuses, as the constructor does, a duplicated column, a zero column, and
    # the XOR of two columns in place of a third (rank 13): negative controls.  A column of
    # the span in place of one it recovers (rank 14) is read.
    from marshal import dumps

    read = _primed_reader(SWIZZLED, OUTS)
    group = SWIZZLED[0][1]
    for i, j in ((0, 6), (6, 0), (3, 6), (6, 3), (8, 13), (13, 8), (2, 9)):
        mixed = _with(SWIZZLED, i, [a ^ b for a, b in zip(group[i], group[j])])
        assert read(dumps((mixed, OUTS, None, True), 0)) is not None, (i, j)
        assert _outcome(LinearLayout.from_bases, mixed, OUTS) == _outcome(LinearLayout, mixed, OUTS)
    cases = [
        _with(SWIZZLED, 6, list(group[7])),  # duplicate of (2, 16)
        _with(SWIZZLED, 6, [0, 0]),  # rank 13
        _with(SWIZZLED, 2, [0, 3]),  # (0, 1) ^ (0, 2) in place of (0, 4): rank 13
        _with(SWIZZLED, 3, [1, 0]),  # (1, 0) in place of (0, 8) = (1, 8) ^ (1, 0): read
    ]
    outcomes = []
    for bases in cases:
        outcomes.append(read(dumps((bases, OUTS, None, True), 0)) is not None)
        expected = _outcome(LinearLayout, bases, OUTS)
        assert _outcome(LinearLayout.from_bases, bases, OUTS) == expected
    assert outcomes == [False, False, False, True]
    for bases in cases[:3]:
        assert _outcome(LinearLayout, bases, OUTS) is LayoutError
    # The unswizzled layout of the same structure (three basis columns missing: read by
    # elimination on their dual rows), and it with a repeated column (refused).
    plain = SWIZZLED
    for position, value in ((6, [1, 0]), (7, [2, 0]), (8, [4, 0])):
        plain = _with(plain, position, value)
    for bases, read_it in ((plain, True), (_with(plain, 8, [2, 0]), False)):
        assert (read(dumps((bases, OUTS, None, True), 0)) is not None) == read_it
        expected = _outcome(LinearLayout, bases, OUTS)
        assert _outcome(LinearLayout.from_bases, bases, OUTS) == expected
        assert (expected is LayoutError) != read_it
