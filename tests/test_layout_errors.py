"""Every bad input raises a precise llverify error.

One test per error case.  Each checks that the exception

* subclasses ``llverify.errors.LLVerifyError`` and the matching builtin
  (``ValueError`` for bad values, ``TypeError`` for bad types), and
* has a message naming the argument, the offending value and the rule broken.

The fuzz tests at the end feed junk to the main entry points and assert that only
LLVerifyError subclasses ever escape (never a bare IndexError/KeyError/...).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llverify import LinearLayout
from llverify.errors import LLVerifyError, NotInvertibleError

LL = LinearLayout


def expect(
    builtin: type[Exception],
    call: Callable[[], Any],
    *fragments: str,
    patterns: tuple[str, ...] = (),
    exact_type: type[Exception] | None = None,
) -> str:
    """Run ``call``; it must raise an LLVerifyError that is also a ``builtin`` and whose
    message contains every fragment (case-sensitive) and matches every regex pattern."""
    with pytest.raises(Exception) as info:  # noqa: B017, PT011 - checked just below
        call()
    error = info.value
    assert isinstance(error, LLVerifyError), f"not an LLVerifyError: {error!r}"
    assert isinstance(error, builtin), f"not a {builtin.__name__}: {error!r}"
    if exact_type is not None:
        assert isinstance(error, exact_type), f"not a {exact_type.__name__}: {error!r}"
    message = str(error)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} missing from message: {message!r}"
    for pattern in patterns:
        assert re.search(pattern, message), f"/{pattern}/ does not match: {message!r}"
    return message


IS_CAP = r"\bcaps?\b"  # the message must say the limit is a cap


def ident(size: int = 4, in_dim: str = "i", out_dim: str = "o") -> LinearLayout:
    return LL.identity_1d(size, in_dim, out_dim)


def two_in_dims() -> LinearLayout:
    return LL.identity_1d(4, "i", "o") * LL.identity_1d(2, "j", "o")


# ---------------------------------------------------------------------- non-power-of-2 sizes


def test_identity_1d_size_not_power_of_2() -> None:
    expect(ValueError, lambda: LL.identity_1d(3, "i", "o"), "'size'", "3", "power of 2")


def test_identity_1d_negative_size() -> None:
    expect(ValueError, lambda: LL.identity_1d(-4, "i", "o"), "'size'", "-4", "power of 2")


def test_zeros_1d_size_not_power_of_2() -> None:
    expect(ValueError, lambda: LL.zeros_1d(6, "i", "o"), "'size'", "6", "power of 2")


def test_zeros_1d_out_dim_size_not_power_of_2() -> None:
    expect(ValueError, lambda: LL.zeros_1d(4, "i", "o", 3), "'out_dim_size'", "3", "power of 2")


def test_strided_1d_size_not_power_of_2() -> None:
    expect(ValueError, lambda: LL.strided_1d(12, 2, "i", "o"), "'size'", "12", "power of 2")


def test_strided_1d_stride_not_power_of_2() -> None:
    expect(ValueError, lambda: LL.strided_1d(4, 3, "i", "o"), "'stride'", "3", "power of 2")


def test_from_bases_out_dim_size_not_power_of_2() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[1]])], ["o"], [3]),
        "'out_dim_sizes[0]'",
        "3",
        "power of 2",
    )


def test_from_bases_out_dim_size_zero() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[0]])], ["o"], [0], require_surjective=False),
        "'out_dim_sizes[0]'",
        "0",
        "power of 2",
    )


def test_from_bases_wrong_number_of_out_dim_sizes() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[1]])], ["o"], [2, 2]),
        "'out_dim_sizes'",
        "[2, 2]",
        "one size per out dim",
    )


def test_reshape_ins_size_not_power_of_2() -> None:
    expect(
        ValueError,
        lambda: ident(8).reshape_ins([("a", 3), ("b", 2)]),
        "'new_in_dims[0][1]'",
        "3",
        "power of 2",
    )


def test_reshape_outs_size_not_power_of_2() -> None:
    expect(
        ValueError,
        lambda: ident(8).reshape_outs([("a", 2), ("b", 6)]),
        "'new_out_dims[1][1]'",
        "6",
        "power of 2",
    )


def test_reshape_ins_wrong_total_size() -> None:
    expect(
        ValueError,
        lambda: ident(8).reshape_ins([("a", 4)]),
        "'new_in_dims'",
        "total size 8",
        "not 4",
    )


def test_reshape_outs_wrong_total_size() -> None:
    expect(
        ValueError,
        lambda: ident(8).reshape_outs([("a", 16)]),
        "'new_out_dims'",
        "total size 8",
        "not 16",
    )


def test_resize_in_dim_not_power_of_2() -> None:
    expect(ValueError, lambda: ident(4).resize_in_dim("i", 3), "'new_size'", "3", "power of 2")


def test_resize_out_dim_not_power_of_2() -> None:
    expect(ValueError, lambda: ident(4).resize_out_dim("o", 3), "'new_size'", "3", "power of 2")


def test_resize_out_dim_cannot_grow() -> None:
    expect(ValueError, lambda: ident(4).resize_out_dim("o", 8), "'new_size'", "8", "not exceed")


# ---------------------------------------------------------------------- bad bases


def test_basis_coordinate_not_less_than_out_size() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[1], [4]])], ["o"], [4], require_surjective=False),
        "'bases'",
        "'i'",
        "'o'",
        "4",
        "less than its size 4",
    )


def test_basis_negative_coordinate() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[1], [-1]])], ["o"], [4], require_surjective=False),
        "'bases'",
        "'i'",
        "-1",
        "non-negative",
    )


def test_basis_negative_coordinate_inferred_sizes() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[1, 0], [0, -2]])], ["a", "b"]),
        "'bases'",
        "'i'",
        "-2",
        "non-negative",
    )


def test_basis_wrong_length() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[1, 0], [1]])], ["a", "b"]),
        "'bases'",
        "'i'",
        "[1]",
        "2 coordinates",
    )


def test_bases_from_a_generator_are_validated() -> None:
    """bases may be any iterable of pairs; a generator must be checked like a list."""
    pairs = (p for p in [("i", [[1], [2]]), ("j", [[-1]])])
    expect(ValueError, lambda: LL.from_bases(pairs, ["o"]), "'bases'", "-1", "non-negative")


def test_bases_from_a_generator_equal_bases_from_a_list() -> None:
    """A generator of pairs must give the same layout as the list, also when the
    constructor cannot take its fast path (here an int subclass, as numpy ints are)."""

    class MyInt(int):
        pass

    as_list = [("i", [[MyInt(1)], [2]])]
    expected = LL.from_bases(as_list, ["o"])
    assert expected.bases == [("i", [[1], [2]])]
    assert LL.from_bases((p for p in as_list), ["o"]) == expected


# ---------------------------------------------------------------------- wrong types


def test_float_size() -> None:
    expect(
        TypeError, lambda: LL.identity_1d(4.0, "i", "o"), "'size'", "float", "4.0", "must be an int"
    )


def test_bool_size() -> None:
    expect(
        TypeError,
        lambda: LL.identity_1d(True, "i", "o"),
        "'size'",
        "bool",
        "True",
        "must be an int",
    )


def test_float_coordinate() -> None:
    expect(
        TypeError,
        lambda: LL.from_bases([("i", [[1.0]])], ["o"]),
        "bases['i'][0][0]",
        "float",
        "1.0",
        "must be an int",
    )


def test_bool_coordinate() -> None:
    expect(
        TypeError,
        lambda: LL.from_bases([("i", [[True]])], ["o"]),
        "bases['i'][0][0]",
        "bool",
        "True",
        "must be an int",
    )


def test_float_out_dim_size() -> None:
    expect(
        TypeError,
        lambda: LL.from_bases([("i", [[1]])], ["o"], [2.0]),
        "'out_dim_sizes[0]'",
        "float",
        "2.0",
        "must be an int",
    )


def test_str_bases_where_list_expected() -> None:
    expect(TypeError, lambda: LL.from_bases("abc", ["o"]), "'bases'", "'abc'", "must be a list")


def test_str_in_dim_bases_where_list_expected() -> None:
    expect(
        TypeError,
        lambda: LL.from_bases({"i": "xy"}, ["o"]),
        "'bases'",
        "'i'",
        "'xy'",
        "must be a list",
    )


def test_str_basis_where_list_expected() -> None:
    expect(
        TypeError,
        lambda: LL.from_bases({"i": ["1"]}, ["o"]),
        "'bases'",
        "'i'",
        "'1'",
        "must be a list",
    )


def test_bases_item_not_a_pair() -> None:
    expect(
        TypeError,
        lambda: LL.from_bases([("i", [[1]], "extra")], ["o"]),
        "'bases[0]'",
        "'extra'",
        "pair",
    )


def test_str_out_dim_names_where_list_expected() -> None:
    expect(
        TypeError,
        lambda: LL.from_bases([("i", [[1]])], "dim0"),
        "'out_dim_names'",
        "'dim0'",
        "must be a sequence",
    )


def test_str_out_dim_sizes_where_list_expected() -> None:
    expect(
        TypeError,
        lambda: LL.from_bases([("i", [[1]])], ["o"], "2"),
        "'out_dim_sizes'",
        "'2'",
        "must be a sequence",
    )


def test_reshape_ins_str_where_list_expected() -> None:
    expect(TypeError, lambda: ident(4).reshape_ins("ab"), "'new_in_dims'", "'ab'", "pairs")


def test_reshape_ins_non_iterable() -> None:
    expect(TypeError, lambda: ident(4).reshape_ins(None), "'new_in_dims'", "None")


def test_reshape_outs_non_iterable() -> None:
    expect(TypeError, lambda: ident(4).reshape_outs(4), "'new_out_dims'", "4")


def test_non_str_in_dim_name_in_identity_1d() -> None:
    expect(TypeError, lambda: LL.identity_1d(4, 7, "o"), "'in_dim'", "7", "must be a str")


def test_non_str_out_dim_name_in_zeros_1d() -> None:
    expect(TypeError, lambda: LL.zeros_1d(4, "i", None), "'out_dim'", "None", "must be a str")


def test_non_str_in_dim_name_in_from_bases() -> None:
    expect(
        TypeError,
        lambda: LL.from_bases([(1, [[1]])], ["o"]),
        "'bases[0][0]'",
        "int 1",
        "must be a str",
    )


def test_non_str_out_dim_name_in_from_bases() -> None:
    expect(
        TypeError,
        lambda: LL.from_bases([("i", [[1]])], [0]),
        "'out_dim_names[0]'",
        "int 0",
        "must be a str",
    )


def test_apply_non_mapping() -> None:
    expect(TypeError, lambda: ident().apply([("i", 1)]), "'ins'", "[('i', 1)]", "mapping")


def test_apply_float_value() -> None:
    expect(TypeError, lambda: ident().apply({"i": 1.0}), "ins['i']", "1.0", "must be an int")


def test_compose_with_non_layout() -> None:
    expect(TypeError, lambda: ident().compose("o"), "'outer'", "str", "LinearLayout")


def test_invert_and_compose_with_non_layout() -> None:
    expect(
        TypeError, lambda: ident().invert_and_compose(None), "'outer'", "NoneType", "LinearLayout"
    )


# ---------------------------------------------------------------------- duplicate names


def test_duplicate_in_dim_names() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[1]]), ("i", [[2]])], ["o"]),
        "'bases'",
        "'i'",
        "must not repeat",
    )


def test_duplicate_out_dim_names() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[1, 0]])], ["o", "o"]),
        "'out_dim_names'",
        "'o'",
        "must not repeat",
    )


def test_reshape_ins_duplicate_names() -> None:
    expect(
        ValueError,
        lambda: ident(4).reshape_ins([("a", 2), ("a", 2)]),
        "'new_in_dims'",
        "'a'",
        "must not repeat",
    )


def test_rename_in_dim_to_existing_name() -> None:
    expect(
        ValueError,
        lambda: two_in_dims().rename_in_dim("i", "j"),
        "'new_name'",
        "'j'",
        "must not be an existing in dim",
    )


# ---------------------------------------------------------------------- compose & co.


def test_compose_dim_name_mismatch() -> None:
    expect(
        ValueError,
        lambda: ident(4, "i", "o").compose(ident(4, "x", "p")),
        "compose",
        "outer",
        "['o']",
        "['x']",
        "must equal",
    )


def test_compose_out_size_larger_than_outer_in_size() -> None:
    expect(
        ValueError,
        lambda: ident(8, "i", "o").compose(ident(4, "o", "p")),
        "compose",
        "outer",
        "'o'",
        "8",
        "4",
        "larger than",
    )


def test_invert_and_compose_dim_name_mismatch() -> None:
    expect(
        ValueError,
        lambda: ident(4, "i", "o").invert_and_compose(ident(4, "x", "p")),
        "invert_and_compose",
        "outer",
        "['o']",
        "['p']",
        "must be the same",
    )


def test_invert_and_compose_outer_does_not_cover_image() -> None:
    outer = LL.from_bases([("x", [[1], [1]])], ["o"], [4], require_surjective=False)
    expect(
        ValueError,
        lambda: ident(4, "i", "o").invert_and_compose(outer),
        "invert_and_compose",
        "outer",
        "does not cover",
        "i=2",
        exact_type=NotInvertibleError,
    )


def test_invert_and_compose_outer_too_small_to_cover_image() -> None:
    expect(
        ValueError,
        lambda: ident(8, "i", "o").invert_and_compose(ident(4, "x", "o")),
        "invert_and_compose",
        "outer",
        "not cover",
        "'o'",
        "8",
        "4",
        exact_type=NotInvertibleError,
    )


def test_product_with_inconsistent_dim_order() -> None:
    ab = LL.identity_1d(2, "a", "o") * LL.identity_1d(2, "b", "o")
    ba = LL.identity_1d(2, "b", "o") * LL.identity_1d(2, "a", "o")
    # Triton 3.9 silently returns a result here; llverify must raise.
    expect(ValueError, lambda: ab * ba, "['a', 'b']", "['b', 'a']", "different relative orders")


def test_product_with_inconsistent_out_dim_order() -> None:
    pq = LL.from_bases([("i", [[1, 0], [0, 1]])], ["p", "q"])
    qp = LL.from_bases([("j", [[1, 0], [0, 1]])], ["q", "p"])
    expect(ValueError, lambda: pq * qp, "['p', 'q']", "['q', 'p']", "different relative orders")


def test_product_exceeding_the_per_dim_cap() -> None:
    expect(
        ValueError,
        lambda: LL.identity_1d(2**30, "i", "o") * LL.identity_1d(2, "i", "p"),
        "'i'",
        "2**31",
        "2**30",
        patterns=(IS_CAP,),
    )


# ---------------------------------------------------------------------- inversion


def test_invert_non_invertible() -> None:
    ll = LL.from_bases([("i", [[1], [1]])], ["o"], [4], require_surjective=False)
    expect(
        ValueError,
        ll.invert,
        "invert",
        "invertible",
        "rank 1",
        exact_type=NotInvertibleError,
    )


def test_invert_surjective_but_not_injective() -> None:
    ll = LL.from_bases([("i", [[1], [0]])], ["o"])
    expect(ValueError, ll.invert, "invert", "invertible", "2 input bits", "1 output bits")


def test_pseudoinvert_non_surjective() -> None:
    ll = LL.zeros_1d(4, "i", "o", 4)
    expect(
        ValueError,
        ll.pseudoinvert,
        "pseudoinvert",
        "surjective",
        "rank 0",
        exact_type=NotInvertibleError,
    )


# ---------------------------------------------------------------------- unknown dims


def test_sublayout_unknown_in_dim() -> None:
    expect(
        ValueError,
        lambda: ident().sublayout(["zz"], ["o"]),
        "'in_dim_names'",
        "'zz'",
        "not in dims",
    )


def test_sublayout_unknown_out_dim() -> None:
    expect(
        ValueError,
        lambda: ident().sublayout(["i"], ["zz"]),
        "'out_dim_names'",
        "'zz'",
        "not out dims",
    )


def test_sublayout_is_zero_unknown_dim() -> None:
    expect(ValueError, lambda: ident().sublayout_is_zero(["zz"], []), "'in_dim_names'", "'zz'")


def test_get_in_dim_size_unknown_dim() -> None:
    expect(
        ValueError, lambda: ident().get_in_dim_size("zz"), "'in_dim'", "'zz'", "must be an in dim"
    )


def test_get_out_dim_size_unknown_dim() -> None:
    expect(
        ValueError,
        lambda: ident().get_out_dim_size("zz"),
        "'out_dim'",
        "'zz'",
        "must be an out dim",
    )


def test_transpose_ins_unknown_dim() -> None:
    expect(
        ValueError,
        lambda: two_in_dims().transpose_ins(["j", "zz"]),
        "'new_order'",
        "'zz'",
        "permutation of ['i', 'j']",
    )


def test_transpose_ins_missing_dim() -> None:
    expect(
        ValueError,
        lambda: two_in_dims().transpose_ins(["j"]),
        "'new_order'",
        "['j']",
        "permutation of ['i', 'j']",
    )


def test_transpose_outs_unknown_dim() -> None:
    expect(
        ValueError,
        lambda: ident().transpose_outs(["zz"]),
        "'new_order'",
        "'zz'",
        "permutation of ['o']",
    )


def test_rename_in_dim_unknown_dim() -> None:
    expect(
        ValueError,
        lambda: ident().rename_in_dim("zz", "x"),
        "'old_name'",
        "'zz'",
        "must be an in dim",
    )


def test_resize_in_dim_unknown_dim() -> None:
    expect(ValueError, lambda: ident().resize_in_dim("zz", 2), "'in_dim'", "'zz'")


def test_is_trivial_over_unknown_dim() -> None:
    expect(ValueError, lambda: ident().is_trivial_over(["zz"]), "'dim_names'", "'zz'")


def test_contiguous_elems_unknown_dim() -> None:
    expect(
        ValueError,
        lambda: ident().contiguous_elems_along_output_dim("zz"),
        "'out_dim'",
        "'zz'",
        "must be an out dim",
    )


# ---------------------------------------------------------------------- apply


def test_apply_missing_dim() -> None:
    expect(
        ValueError,
        lambda: two_in_dims().apply({"i": 1}),
        "'ins'",
        "['i', 'j']",
        "exactly",
        "not ['i']",
    )


def test_apply_extra_dim() -> None:
    expect(
        ValueError,
        lambda: ident().apply({"i": 1, "zz": 0}),
        "'ins'",
        "'zz'",
        "exactly",
    )


def test_apply_unknown_dim_among_as_many_keys() -> None:
    # As many keys as in dims (apply's fast path), one of them unknown: still refused.
    expect(
        ValueError,
        lambda: two_in_dims().apply({"i": 1, "zz": 0}),
        "'ins'",
        "'zz'",
        "exactly",
    )


def test_apply_out_of_range_value() -> None:
    # Triton silently drops the high bits; llverify must raise.
    expect(ValueError, lambda: ident(4).apply({"i": 4}), "ins['i']", "[0, 4)", "not 4")


def test_apply_negative_value() -> None:
    expect(ValueError, lambda: ident(4).apply({"i": -1}), "ins['i']", "[0, 4)", "not -1")


def test_apply_out_of_range_value_large_dim() -> None:
    # Dims over 8 bits use chunked tables: the range check must still hold there.
    expect(
        ValueError, lambda: ident(2**10).apply({"i": 2**10}), "ins['i']", "[0, 1024)", "not 1024"
    )


# ---------------------------------------------------------------------- from_bases flags


def test_require_surjective_on_non_surjective_layout() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[0], [1]])], ["o"], [4], require_surjective=True),
        "'bases'",
        "surjective",
        "require_surjective",
        "rank is 1 < 2",
    )


def test_inferred_sizes_without_require_surjective() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[1]])], ["o"], None, require_surjective=False),
        "'out_dim_sizes'",
        "require_surjective is False",
        "must be given",
    )


# ---------------------------------------------------------------------- caps


def test_per_dim_cap_on_size_argument() -> None:
    expect(
        ValueError,
        lambda: LL.identity_1d(2**31, "i", "o"),
        "'size'",
        str(2**31),
        "2**30",
        patterns=(IS_CAP,),
    )


def test_per_dim_cap_on_out_dim_sizes() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[1]])], ["o"], [2**31], require_surjective=False),
        "'out_dim_sizes[0]'",
        str(2**31),
        "2**30",
        patterns=(IS_CAP,),
    )


def test_per_dim_cap_on_number_of_bases() -> None:
    bases = [[1 << (i % 8)] for i in range(31)]
    expect(
        ValueError,
        lambda: LL.from_bases([("i", bases)], ["o"], [256], require_surjective=False),
        "'bases'",
        "31",
        "'i'",
        "30",
        patterns=(IS_CAP,),
    )


def test_per_dim_cap_on_inferred_out_size() -> None:
    expect(
        ValueError,
        lambda: LL.from_bases([("i", [[2**30]])], ["o"]),
        "'bases'",
        "'o'",
        str(2**31),
        "2**30",
        patterns=(IS_CAP,),
    )


def test_total_64_bit_cap_in_from_bases() -> None:
    bases = [(d, [[0]] * 22) for d in ("a", "b", "c")]  # 66 input bits
    expect(ValueError, lambda: LL.from_bases(bases, ["o"]), "66", "64", patterns=(IS_CAP,))


def test_total_64_bit_cap_in_product() -> None:
    a = LL.identity_1d(2**30, "a", "o0") * LL.identity_1d(2**30, "b", "o1")
    expect(
        ValueError,
        lambda: a * LL.identity_1d(2**30, "c", "o2"),
        "90",
        "64",
        patterns=(IS_CAP,),
    )


# ---------------------------------------------------------------------- fuzzing

FUZZ_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-3, 40),
    st.sampled_from([2**30, 2**31, 2**64, -(2**63)]),
    st.floats(),
    st.text(max_size=3),
    st.sampled_from(["i", "j", "o", "p", "register", "dim0"]),
)
junk = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(st.one_of(st.text(max_size=2), st.integers(-2, 2)), children, max_size=3),
    ),
    max_leaves=12,
)
names = st.one_of(st.sampled_from(["i", "j", "o", "p"]), scalars)
coords = st.one_of(st.integers(-2, 9), scalars)
# Nearly well-formed bases, so that the fuzzing reaches the deeper checks.
near_bases = st.one_of(
    st.lists(st.tuples(names, st.lists(st.lists(coords, max_size=3), max_size=4)), max_size=3),
    st.dictionaries(names, st.lists(st.lists(coords, max_size=3), max_size=4), max_size=3),
    junk,
)
near_names = st.one_of(st.lists(names, max_size=3), junk)
near_sizes = st.one_of(
    st.none(), st.lists(st.one_of(st.sampled_from([1, 2, 4, 8, 16]), coords), max_size=3), junk
)


def only_llverify_errors(call: Callable[[], Any]) -> None:
    try:
        call()
    except LLVerifyError:
        pass


@FUZZ_SETTINGS
@given(near_bases, near_names, near_sizes, st.one_of(st.booleans(), scalars))
def test_fuzz_from_bases(bases: Any, out_names: Any, sizes: Any, surjective: Any) -> None:
    only_llverify_errors(lambda: LL.from_bases(bases, out_names, sizes, surjective))
    only_llverify_errors(lambda: LL.from_bases(bases, out_names))


@FUZZ_SETTINGS
@given(st.one_of(coords, junk), st.one_of(names, junk), st.one_of(names, junk))
def test_fuzz_identity_1d(size: Any, in_dim: Any, out_dim: Any) -> None:
    only_llverify_errors(lambda: LL.identity_1d(size, in_dim, out_dim))


FUZZ_LAYOUTS = [
    LL.identity_1d(4, "i", "o"),
    LL.identity_1d(4, "i", "o") * LL.zeros_1d(2, "j", "p", 4),
    LL.identity_1d(2**10, "i", "o"),
    LL.empty(),
]


@FUZZ_SETTINGS
@given(
    st.sampled_from(FUZZ_LAYOUTS),
    st.one_of(st.dictionaries(names, st.one_of(coords, junk), max_size=3), junk),
)
def test_fuzz_apply(ll: LinearLayout, ins: Any) -> None:
    only_llverify_errors(lambda: ll.apply(ins))


@FUZZ_SETTINGS
@given(
    st.sampled_from(FUZZ_LAYOUTS),
    st.one_of(
        st.lists(st.tuples(names, st.one_of(st.sampled_from([1, 2, 4, 8]), coords)), max_size=3),
        st.dictionaries(names, st.one_of(st.sampled_from([1, 2, 4, 8]), coords), max_size=3),
        junk,
    ),
)
def test_fuzz_reshape_ins(ll: LinearLayout, new_dims: Any) -> None:
    only_llverify_errors(lambda: ll.reshape_ins(new_dims))
