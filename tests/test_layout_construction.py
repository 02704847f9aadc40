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
