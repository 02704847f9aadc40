"""Triton's text format and JSON: round trips, pasted error messages, and parse errors."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify import LinearLayout, LLVerifyError, ParseError

OUTS = "\nwhere out dims are: [dim0 (size 2), dim1 (size 2)]"

BLOCKED = LinearLayout.from_bases(
    [
        ("register", [[0, 1], [0, 2], [8, 0]]),
        ("lane", [[0, 4], [1, 0], [2, 0], [4, 0], [0, 0]]),
        ("warp", [[16, 0]]),
        ("block", []),
    ],
    ["dim0", "dim1"],
)


def random_layout(draw_ints, names, out_names, out_log2):
    bases = []
    for name, bits in names:
        bases.append((name, [[draw_ints(n) for n in out_log2] for _ in range(bits)]))
    return LinearLayout.from_bases(bases, out_names, [1 << n for n in out_log2], False)


@st.composite
def layouts(draw):
    num_in = draw(st.integers(0, 3))
    num_out = draw(st.integers(0, 3))
    names = [(f"in{i}", draw(st.integers(0, 4))) for i in range(num_in)]
    out_log2 = [draw(st.integers(0, 5)) for _ in range(num_out)]
    return random_layout(
        lambda n: draw(st.integers(0, (1 << n) - 1)),
        names,
        [f"dim{k}" for k in range(num_out)],
        out_log2,
    )


@settings(max_examples=200, deadline=None)
@given(layouts())
def test_text_round_trip_is_exact(layout):
    assert LinearLayout.from_string(str(layout)) == layout
    assert str(LinearLayout.from_string(str(layout))) == str(layout)


@settings(max_examples=200, deadline=None)
@given(layouts())
def test_json_round_trip_is_exact(layout):
    assert LinearLayout.from_json(layout.to_json()) == layout
    assert LinearLayout.from_json(layout.to_json()) == layout


def test_parse_finds_the_layout_inside_a_compiler_error_message():
    message = (
        "LLVM ERROR: Layout is expected to be surjective, i.e. every `out` coordinate can be "
        "reached by some `in` coordinate, but was not:" + str(BLOCKED) + "\nAborted (core dumped)"
    )
    assert LinearLayout.from_string(message) == BLOCKED


def test_parse_accepts_indented_paste_without_leading_newline():
    indented = "\n".join("    " + line for line in str(BLOCKED).strip("\n").splitlines())
    assert LinearLayout.from_string(indented) == BLOCKED


def test_parse_empty_layouts():
    assert LinearLayout.from_string("\n(empty layout)") == LinearLayout.empty()
    with_outs = LinearLayout.from_bases([], ["dim0", "dim1"], [4, 2], False)
    assert str(with_outs) == "\n(empty layout with out-dims [dim0 (size 4), dim1 (size 2)])"
    assert LinearLayout.from_string(str(with_outs)) == with_outs


def test_parse_keeps_non_surjective_out_sizes():
    layout = LinearLayout.from_bases([("offset", [[1, 0]])], ["dim0", "dim1"], [64, 16], False)
    assert LinearLayout.from_string(str(layout)).out_dims == [("dim0", 64), ("dim1", 16)]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "no layout found"),
        ("just prose", "no layout found"),
        (" - register=1 -> (0, 1)\n", "missing the final"),
        (
            " - register=2 -> (0, 1)" + OUTS,
            "expected register=1",
        ),
        (
            " - register=1 -> (0, 1)\n   register=4 -> (1, 0)" + OUTS,
            "expected register=2",
        ),
        (
            " - register=1 -> (0, x)" + OUTS,
            "must be integers",
        ),
        (
            " - register=1 -> (0, 1)\n - register=2 -> (1, 0)" + OUTS,
            "appears twice",
        ),
        (
            " - register=1 -> (0, 1)\nwhere out dims are: [dim0 (size 2), dim1]",
            "expected an out dim",
        ),
        (
            " - register=1 -> (0, 5)" + OUTS,
            "less than its size",
        ),
        (
            " - register=1 -> (0, 1)\nwhere out dims are: [dim0 (size 2), dim1 (size 3)]",
            "power of 2",
        ),
        (" - register=1 -> (0)" + OUTS, "coordinates"),
        (
            " - register=1 -> (0, 1)\ngarbage in the middle" + OUTS,
            "line 2",
        ),
        (
            " - lane is a size 1 dimension\n   lane=1 -> (1)\nwhere out dims are: [dim0 (size 2)]",
            "line 2",
        ),
    ],
)
def test_parse_errors_name_the_problem(text, fragment):
    with pytest.raises(ParseError) as info:
        LinearLayout.from_string(text)
    assert isinstance(info.value, ValueError)
    assert fragment in str(info.value)


def test_parse_rejects_non_text():
    with pytest.raises(ParseError, match="must be a str"):
        LinearLayout.from_string(42)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ([], "JSON object"),
        ({"bases": {}}, "missing ['out_dims']"),
        ({"bases": {}, "out_dims": {}, "extra": 1}, "unknown ['extra']"),
        ({"bases": {"lane": [[1]]}, "out_dims": 5}, "'out_dims' must map"),
        ({"bases": {"lane": [[4]]}, "out_dims": {"dim0": 2}}, "less than its size"),
        ({"bases": {"lane": [["a"]]}, "out_dims": {"dim0": 2}}, "must be an int"),
    ],
)
def test_json_errors_name_the_problem(data, fragment):
    with pytest.raises(ParseError) as info:
        LinearLayout.from_dict(data)
    assert fragment in str(info.value)


def test_json_accepts_pair_lists():
    data = {"bases": [["lane", [[1]]]], "out_dims": [["dim0", 2]]}
    assert LinearLayout.from_dict(data) == LinearLayout.identity_1d(2, "lane", "dim0")


def test_invalid_json_text():
    with pytest.raises(ParseError, match="invalid JSON"):
        LinearLayout.from_json("{not json")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=" -=>(),\n0123456789abcdefghijklmnopqrstuvwxyz[]:", max_size=200))
def test_parser_fuzz_raises_only_parse_errors(text):
    try:
        LinearLayout.from_string(text)
    except ParseError:
        pass


@settings(max_examples=300, deadline=None)
@given(layouts(), st.data())
def test_parser_fuzz_mutated_layout_text(layout, data):
    text = str(layout)
    if not text:
        return
    position = data.draw(st.integers(0, len(text) - 1))
    replacement = data.draw(
        st.sampled_from(["", "9", "-", "(", ")", ",", "\n", " ", "x", "=", "99999999999"])
    )
    mutated = text[:position] + replacement + text[position + 1 :]
    try:
        parsed = LinearLayout.from_string(mutated)
    except ParseError:
        return
    # Whatever parses must print back to a text that parses to the same layout.
    assert LinearLayout.from_string(str(parsed)) == parsed


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.integers(-5, 70) | st.text(max_size=4),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
        max_leaves=12,
    )
)
def test_json_fuzz_raises_only_parse_errors(value):
    try:
        LinearLayout.from_json(json.dumps(value))
    except ParseError:
        pass
    except LLVerifyError as error:  # pragma: no cover - would be a wrong error class
        pytest.fail(f"expected ParseError, got {type(error).__name__}: {error}")
