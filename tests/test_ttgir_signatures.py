"""read_signatures (the op names and types relaid_cases compares) against parse_module, and the
once-per-module type reading: the same names and types on every stored module, the same error
on malformed text (issue 26: validation speed)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from llverify.emitted.relayout import _signatures, signature
from llverify.ttgir import ModuleError, mentioned_types, parse_module, read_signatures
from llverify.ttgir.locations import replace_locations

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
