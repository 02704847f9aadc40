"""The constructor's bulk fast path agrees with its thorough validator on every input."""

from hypothesis import given, settings
from hypothesis import strategies as st

from llverify import LinearLayout, LLVerifyError, gf2
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
