"""Dim names, check names and formula identifiers follow one rule (issue 27, names): printable
and in Unicode NFKC normal form, or refused. Python reads a formula's identifiers in NFKC form
(``ℓane`` is ``lane``); a name NFKC would change is refused everywhere rather than normalised,
so a formula names exactly the dim written and every name printed is the one the user wrote.

The differential test draws unicode names and checks that a formula identifier and a dim name
are accepted alike and mean the same dim.
"""

from __future__ import annotations

import string
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from llverify import LinearLayout, LLVerifyError, prove_equal
from llverify.bits import name_problem
from llverify.checkfiles import parse_text
from llverify.cli.main import main
from llverify.errors import LayoutError
from llverify.layout_construct import fast_columns, validated_columns
from llverify.proof.formula import Formula, FormulaError
from llverify.proof.verdict import Status

#: characters NFKC changes (compatibility forms, ligatures, width variants), combining marks
#: that compose with a letter before them, and characters that are not printable
TRICKY = "ℓﬁ²ＡｌⅨ\u0301\u0308K\u00c5\u2126\x00\x1b\x07\x7f\x85\u200b\u200d\u202e\u2028\ufeff"
NAMES = st.text(
    st.one_of(
        st.sampled_from(TRICKY), st.sampled_from(string.ascii_letters + "_"), st.characters()
    ),
    min_size=1,
    max_size=6,
)


def _formula_variables(text: str) -> frozenset[str] | None:
    """The variables of the formula ``text``, or None when the formula is refused."""
    try:
        return Formula(text).variables
    except FormulaError:
        return None


def _layout(*names: str) -> LinearLayout | None:
    """A layout with one in dim per name (each a distinct bit of out dim 'd'), or None when
    the names are refused."""
    try:
        return LinearLayout.from_bases([(n, [[1 << i]]) for i, n in enumerate(names)], ["d"])
    except LayoutError:
        return None


@settings(max_examples=400, deadline=None)
@given(NAMES)
@example("ℓane")
@example("lane")
@example("e\u0301")  # decomposed: NFKC composes it to é
@example("\u00e9")
@example("a\x1b[31m")
def test_formula_identifiers_and_dim_names_agree(name: str) -> None:
    """A formula that is one identifier is accepted only if it is that very dim name; a name
    NFKC would change is refused as a dim and as a formula; an accepted dim is what a
    formula of its name computes."""
    normal = unicodedata.normalize("NFKC", name)
    layout = _layout(name)
    variables = _formula_variables(name)
    assert (layout is None) == (name_problem(name) is not None)
    for variable in variables or ():  # every variable a formula can write is a dim name
        assert name_problem(variable) is None and variable in name, "spelt as written"
    if normal != name:
        assert layout is None and variables is None
        # the issue's case: the normal spelling is a dim, the other spelling is refused
        other = _layout(normal)
        if other is not None and normal.isidentifier():
            with pytest.raises(FormulaError):
                prove_equal(other, {"d": name})
        return
    if variables == {name}:
        assert layout is not None, "a formula identifier that is no dim name"
        assert prove_equal(layout, {"d": name}).status is Status.PROVED
        assert prove_equal(layout, {"d": f"{name} ^ 1"}).status is Status.REFUTED  # control


def test_the_issue_case_is_refused_not_proved() -> None:
    """``lane`` and ``ℓane`` as two dims used to be proved equal to the formula ``ℓane``."""
    with pytest.raises(LayoutError, match="'ℓane' is not in Unicode NFKC normal form"):
        LinearLayout.from_bases([("lane", [[1]]), ("ℓane", [[2]])], ["d"])
    lane = LinearLayout.from_bases([("lane", [[1]])], ["d"])
    assert prove_equal(lane, {"d": "lane"}).status is Status.PROVED
    with pytest.raises(FormulaError, match=r"'ℓ' \(U\+2113\)"):
        prove_equal(lane, {"d": "ℓane"})


@pytest.mark.parametrize("name", ["d\x00", "a\x1b[31m", "x\u202ey", "a\u2028b", "a\x85", "\x7f"])
def test_non_printable_names_are_refused_and_escaped(name: str) -> None:
    with pytest.raises(LayoutError) as refused:
        LinearLayout.from_bases([("lane", [[1]])], [name])
    message = str(refused.value)
    assert "non-printable" in message and "out_dim_names[0]" in message
    assert message.isprintable(), "the name reached the message raw"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(NAMES, min_size=1, max_size=3, unique=True), st.lists(NAMES, max_size=2, unique=True)
)
def test_fast_path_agrees_with_the_validator_on_unicode_names(ins, outs) -> None:
    bases = [(name, [[1]] if outs else [[]]) for name in ins]
    fast = fast_columns(bases, outs, None, False)
    try:
        expected = validated_columns(bases, outs, [2] * len(outs), False)
    except LLVerifyError:
        assert fast is None
        return
    assert fast is None or fast[0] == expected[0]


def test_unicode_names_in_normal_form_are_kept() -> None:
    """Non-ASCII names NFKC leaves alone (Cyrillic, CJK, a composed é) stay accepted."""
    layout = LinearLayout.from_bases([("ширина", [[1]]), ("é", [[2]]), ("列", [[4]])], ["行"])
    assert layout.get_in_dim_names() == ["ширина", "é", "列"]
    assert prove_equal(layout, {"行": "ширина + 2 * é + 4 * 列"}).status is Status.PROVED


SPEC = """\
[[check]]
name = {name}
kind = "equivalence"
layout = "#ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}}>"
shape = [128, 64]
reference = {reference}
"""  # noqa: E501


@pytest.mark.parametrize(
    ("name", "reference", "says"),
    [
        ('"a\\u001b[31m"', '"builtin"', "U+001B"),
        ('"n\\u0000"', '"builtin"', "U+0000"),
        ('"ﬁt"', '"builtin"', "would read as 'fit'"),
        ('"ok"', '{ dim0 = "ℓane", dim1 = "register" }', "'ℓ' (U+2113)"),
        ('"ok"', '{ dim0 = "lane\\u001b", dim1 = "register" }', "U+001B"),
    ],
)
def test_spec_files_refuse_bad_names_saying_what_was_written(name, reference, says) -> None:
    text = SPEC.format(name=name, reference=reference)
    with pytest.raises(LLVerifyError) as refused:
        parse_text(text, "names.toml")
    assert says in str(refused.value)
    assert "'lane'" not in str(refused.value)  # never a dim the user did not write


def test_spec_file_control_case_is_accepted() -> None:
    text = SPEC.format(name='"é ok"', reference='"builtin"')
    assert [ob.name for ob in parse_text(text, "names.toml")] == ["é ok"]


def test_command_line_escapes_names_in_its_one_line_error(tmp_path, capsys) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.format(name='"a\\u001b[2J"', reference='"builtin"'))
    assert main(["prove", str(spec), "--quiet"]) == 2
    error = capsys.readouterr().err
    assert "\x1b" not in error and "\\x1b[2J" in error
