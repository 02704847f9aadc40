"""The layout argument normaliser: every accepted form gives the same value, padded shared
layouts come back as PaddedLayout, bad input names the argument."""

from __future__ import annotations

import pytest

from llverify import LinearLayout
from llverify.arguments import (
    LayoutTextError,
    ShapeNeededError,
    is_encoding_text,
    layout_argument,
    layout_value,
    shared_layout_argument,
)
from llverify.encodings import BlockedLayout, EncodingError, PaddedLayout, PaddedSharedLayout
from llverify.errors import LayoutError, LayoutTypeError

BLOCKED_TEXT = (
    "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], "
    "order = [1, 0]}>"
)
BLOCKED = BlockedLayout([1, 2], [4, 8], [1, 1], [1, 0])
PADDED_TEXT = "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [16, 32]}>"


def test_every_form_of_one_layout_agrees() -> None:
    ll = BLOCKED.to_linear_layout([4, 16])
    shaped = [ll, f"tensor<4x16xf16, {BLOCKED_TEXT}>", ll.to_json(), str(ll)]
    for form in [*shaped, BLOCKED, BLOCKED_TEXT, "  " + BLOCKED_TEXT + "\n"]:
        assert layout_value(form, [4, 16], "src") == ll
        assert layout_argument(form, [4, 16], "src") == ll
    for form in shaped:
        assert layout_argument(form, None, "src") == ll


def test_padded_shared_layouts_are_a_type() -> None:
    encoding = PaddedSharedLayout.with_identity_for([[32, 4]], [16, 32], [1, 0])
    memdesc = f"!ttg.memdesc<16x32xf16, {PADDED_TEXT}, #ttg.shared_memory, mutable>"
    model = encoding.padded_layout([16, 32])
    for form in (PADDED_TEXT, encoding, model, memdesc):
        value = layout_value(form, [16, 32], "shared")
        assert isinstance(value, PaddedLayout)
        assert value.physical_table().tolist() == model.physical_table().tolist()
    assert isinstance(layout_value(PADDED_TEXT), PaddedLayout)  # its own shape
    with pytest.raises(EncodingError, match="padding is not linear"):
        layout_argument(PADDED_TEXT, [16, 32], "shared")
    with pytest.raises(LayoutError, match="'shared'.*shape"):
        layout_value(model, [32, 32], "shared")


def test_shared_layout_argument_takes_one_buffer() -> None:
    assert isinstance(shared_layout_argument(PADDED_TEXT, [16, 32]), PaddedLayout)
    with pytest.raises(LayoutError, match="one buffer of one CTA"):
        shared_layout_argument(PADDED_TEXT, [2, 16, 32])


def test_errors_name_the_argument() -> None:
    with pytest.raises(LayoutTypeError, match="Argument 'src' must be a LinearLayout.*int"):
        layout_value(3, [4], "src")
    with pytest.raises(ShapeNeededError, match="Argument 'dst'.*'shape' is needed"):
        layout_value(BLOCKED_TEXT, None, "dst")
    with pytest.raises(ShapeNeededError, match="Argument 'dst'"):
        layout_value(BLOCKED, None, "dst")
    with pytest.raises(LayoutTextError, match="Argument 'reg' must be TTGIR .*'hello'"):
        layout_value("hello", [4], "reg")
    with pytest.raises(LayoutTextError, match=r"\.\.\.'"):
        layout_value("x" * 100, [4], "reg")


def test_is_encoding_text() -> None:
    assert is_encoding_text(BLOCKED_TEXT) and is_encoding_text(" !ttg.memdesc<4xf16>")
    assert not is_encoding_text(str(LinearLayout.identity_1d(4, "lane", "dim0")))
