"""Layouts to and from text: Triton's ``toString()`` format and JSON, as functions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llverify.layout import LinearLayout, _layout_from_parts
from llverify.text_format import layout_object, parse_layout_object


def parse_layout(text: str) -> LinearLayout:
    """Parse Triton's ``LinearLayout::toString()`` text (``str(layout)``) back to a layout.

    The layout may be pasted with a compiler error message around it (see
    :func:`llverify.text_format.parse_layout_text`).

    Examples:
        >>> text = '''
        ...  - register=1 -> (0, 1)
        ...    register=2 -> (1, 0)
        ...  - lane is a size 1 dimension
        ... where out dims are: [dim0 (size 2), dim1 (size 2)]'''
        >>> parse_layout(text).bases
        [('register', [[0, 1], [1, 0]]), ('lane', [])]
    """
    return LinearLayout.from_string(text)


def layout_to_dict(layout: LinearLayout) -> dict[str, Any]:
    """JSON-ready dict: ``{"bases": {in_dim: [[...]]}, "out_dims": {out_dim: size}}``.

    Examples:
        >>> layout_to_dict(LinearLayout.identity_1d(2, "lane", "dim0"))
        {'bases': {'lane': [[1]]}, 'out_dims': {'dim0': 2}}
    """
    return layout_object(layout.bases, layout.out_dims)


def layout_from_dict(data: Mapping[str, Any]) -> LinearLayout:
    """Inverse of :func:`layout_to_dict`; ``bases``/``out_dims`` may also be pair lists.

    Examples:
        >>> layout_from_dict({"bases": {"lane": [[1]]}, "out_dims": {"dim0": 2}}).out_dims
        [('dim0', 2)]
    """
    return _layout_from_parts(parse_layout_object(data), "invalid layout")


def layout_to_json(layout: LinearLayout) -> str:
    """The layout as a JSON string (see :func:`layout_to_dict`).

    Examples:
        >>> layout_to_json(LinearLayout.identity_1d(2, "lane", "dim0"))
        '{"bases": {"lane": [[1]]}, "out_dims": {"dim0": 2}}'
    """
    return layout.to_json()


def layout_from_json(text: str) -> LinearLayout:
    """Parse :func:`layout_to_json` output.

    Examples:
        >>> ll = LinearLayout.identity_1d(4, "offset", "dim0")
        >>> layout_from_json(layout_to_json(ll)) == ll
        True
    """
    return LinearLayout.from_json(text)
