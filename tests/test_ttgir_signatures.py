"""read_signatures (the op names and types relaid_cases compares) against parse_module, and the
once-per-module type reading: the same names and types on every stored module, the same error
on malformed text (issue 26: validation speed)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.emitted.relayout import _signatures, signature
from llverify.ttgir import ModuleError, mentioned_types, parse_module, read_signatures
from llverify.ttgir.locations import _replaced, replace_locations
from llverify.ttgir.spelling import old_spelling
from llverify.ttgir.syntax import balanced_end
from llverify.ttgir.types import _PLAIN_BRACKET

DATA = Path(__file__).parent / "data" / "ttgir"
MODULES = sorted(p for p in DATA.rglob("*.ttgir") if p.stat().st_size < 400_000)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_signatures_are_parse_modules(path: Path) -> None:
    text = path.read_text()
    ops = parse_module(text).ops
    assert read_signatures(text) == [(op.name, op.types) for op in ops]
    assert read_signatures(text, whole=False) == [(op.name, op.types) for op in ops]
    assert _signatures(text, whole=True) == Counter(signature(op) for op in ops)


@pytest.mark.parametrize("path", MODULES[:6], ids=lambda p: p.stem)
def test_types_read_once_are_types_read_each_time(path: Path) -> None:
    """The module's type cache changes nothing: each op's types as read without it (a plain
    dict of aliases, no cache) are the same."""
    module = parse_module(path.read_text())
    for op in module.ops:
        uncached = mentioned_types(replace_locations(op.text, ""), dict(module.aliases), op.line)
        assert op.types == uncached


MALFORMED = {
    "truncated": "module {\n  %0 = ttg.convert_layout %x : tensor<4xf16, #b> -> tensor<4xf16>",
    "undefined alias": "module {\n  %0 = ttg.convert_layout %x : tensor<4xf16, #b> -> tensor<4xf16>\n}",  # noqa: E501
    "unbalanced type": "module {\n  %0 = tt.f %x : tensor<4xf16, #b\n}",
    "bad warps": 'module attributes {"ttg.num-warps" = 3 : i32} {\n}',
    "no element": "#b = #ttg.blocked<{}>\nmodule {\n  %0 = tt.f %x : tensor<, #b>\n}",
}  # fmt: skip


@pytest.mark.parametrize("text", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_text_raises_what_parse_module_raises(text: str) -> None:
    with pytest.raises(ModuleError) as expected:
        parse_module(text)
    with pytest.raises(ModuleError) as got:
        read_signatures(text)
    assert str(got.value) == str(expected.value)


def test_a_well_formed_module_is_read_without_the_wholeness_check() -> None:
    """Negative control for ``whole``: a truncated text is refused only when checked."""
    text = MALFORMED["truncated"]
    assert [name for name, _ in read_signatures(text, whole=False)] == ["ttg.convert_layout"]


_LOCATION_PIECES = st.sampled_from(
    ["loc(#loc1)", "loc(#a.b-c$)", "loc(", "loc(#)", ")", " ", "  ", "x", "_", "é", "-", ">",
     '"', '"s loc(#q) t"', "\\", "loc(\"f.py\":1:2)", "loc(callsite(#l1 at #l2))", "#loc",
     "loc(fused[#a, #b])", "(", "%0 = tt.foo %x : i32", ", ", "loc(#l<", "\n"]
)  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(_LOCATION_PIECES, max_size=8).map("".join))
def test_alias_locations_are_removed_as_each_location_read_to_its_bracket(text: str) -> None:
    """Fuzz: the fast removal of alias locations (``loc(#loc3)``) gives what reading every
    location to its closing bracket gives, the same error included."""

    def shown(replace: Callable[[str, str], str]) -> str:
        try:
            return replace(text, "")
        except ModuleError as error:
            return f"error: {error}"

    assert shown(replace_locations) == shown(_replaced)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("%0 = tt.foo %x : i32   loc(#loc3)", "%0 = tt.foo %x : i32"),
        ("a loc(#l1) b  loc(#l2)", "a b"),
        ("xloc(#l1) loc(#l2)", "xloc(#l1)"),  # no word boundary: no location
        ('a loc("f.py":1:2) loc(#l)', "a"),
        ("a loc(fused[#l1, #l2]) b", "a b"),
        ("a \tloc(#l)", "a \t"),
    ],
)
def test_locations_removed(text: str, expected: str) -> None:
    assert replace_locations(text, "") == expected == _replaced(text, "")


def test_old_spelling_needs_its_words() -> None:
    """The substring check before the pattern: a word of the old spelling is found, a name
    that only contains one (``%triton_gpu.x``, ``xtriton_gpu.``) is not."""
    assert old_spelling("#a = #triton_gpu.blocked<{}>")
    assert old_spelling("%0 = ttg.local_alloc : () -> !tt.memdesc<4xf16>")
    assert old_spelling("  triton_nvidia_gpu.fence")
    assert not old_spelling("%triton_gpu.x = xtriton_gpu.y")
    assert not old_spelling("#ttg.blocked<{}> triton_gpu")


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(list('<>{}()[]"-x, #a') + ["->", "1x2"]), max_size=14))
def test_plain_brackets_end_where_bracket_matching_ends_them(chars: list[str]) -> None:
    """Fuzz: where the one-match reading of a type's ``<...>`` (plain text, ``{...}`` and
    ``<...>`` inside) matches, bracket matching ends the bracket at the same place."""
    text = "<" + "".join(chars)
    plain = _PLAIN_BRACKET.match(text)
    if plain is not None:
        assert balanced_end(text, 0) == plain.end()


def test_a_slice_type_is_one_plain_bracket() -> None:
    text = "<64x!tt.ptr<i32>, #ttg.slice<{dim = 1, parent = #blocked}>> loc(#l)"
    assert _PLAIN_BRACKET.match(text).end() == balanced_end(text, 0) == text.index(" loc")
    assert _PLAIN_BRACKET.match("<4x{a<b}>") is None  # a '<' inside braces: read token by token
