"""Bulk (vectorized numpy) evaluation of a layout over all or many inputs, as functions,
and the one budget of every answer that must enumerate a tensor."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from llverify.errors import LayoutError
from llverify.layout import DEFAULT_MAX_INPUTS, LinearLayout, _require_layout

__all__ = [
    "DEFAULT_MAX_INPUTS",
    "ENUMERATION_BUDGET_BYTES",
    "EnumerationLimitError",
    "check_enumeration",
    "evaluate",
    "evaluate_all",
]

#: The memory an answer that enumerates a tensor may take (the exact simulator of padded
#: shared layouts, warp-shuffle plans, drawings): the one limit, checked before allocating.
#: Counts that the algebra gives (bank conflicts, wavefronts, vector widths of linear
#: layouts) never enumerate and have no limit.
ENUMERATION_BUDGET_BYTES = 1 << 30


class EnumerationLimitError(LayoutError):
    """An answer would enumerate more than :data:`ENUMERATION_BUDGET_BYTES` of values.

    Attributes:
        items: what would be enumerated (addresses, slots, elements).
        needed: the bytes it would take.
    """

    def __init__(self, message: str, items: int, needed: int) -> None:
        super().__init__(message)
        self.items = items
        self.needed = needed


def check_enumeration(items: int, bytes_per_item: int, what: str, remedy: str) -> int:
    """Refuse, before allocating, an enumeration of ``items`` values taking
    ``bytes_per_item`` each (measured by its caller) beyond :data:`ENUMERATION_BUDGET_BYTES`;
    ``what`` names the enumeration and ``remedy`` what the user can do instead.  Returns
    ``items``.

    Examples:
        >>> check_enumeration(1 << 20, 100, "simulating every address", "use a smaller shape")
        1048576
        >>> check_enumeration(1 << 26, 100, "simulating every address", "use a smaller shape")
        Traceback (most recent call last):
        ...
        llverify.evaluate.EnumerationLimitError: simulating every address enumerates 67108864 \
values (about 6.2 GiB), more than llverify's enumeration budget of 1 GiB: use a smaller shape.
    """
    needed = items * bytes_per_item
    if needed > ENUMERATION_BUDGET_BYTES:
        raise EnumerationLimitError(
            f"{what} enumerates {items} values (about {needed / (1 << 30):.1f} GiB), more than "
            f"llverify's enumeration budget of {ENUMERATION_BUDGET_BYTES >> 30} GiB: {remedy}.",
            items,
            needed,
        )
    return items


def evaluate_all(
    layout: LinearLayout, max_inputs: int = DEFAULT_MAX_INPUTS
) -> dict[str, np.ndarray]:
    """Every output for every input, as one int64 array per out dim (``layout.apply_all``).

    Entry ``i`` is the image of the input whose flat index is ``i``: the in dims in
    order, the first one least significant (Triton's flattening).

    Examples:
        >>> ll = LinearLayout.from_bases([("i", [[0, 1], [1, 0]])], ["a", "b"])
        >>> {k: v.tolist() for k, v in evaluate_all(ll).items()}
        {'a': [0, 0, 1, 1], 'b': [0, 1, 0, 1]}
    """
    _require_layout(layout, "layout")
    return layout.apply_all(max_inputs)


def evaluate(layout: LinearLayout, ins: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Outputs for arrays of inputs, broadcast together (``layout.apply_array``).

    Examples:
        >>> ll = LinearLayout.identity_1d(8, "lane", "dim0")
        >>> evaluate(ll, {"lane": [1, 5, 7]})["dim0"].tolist()
        [1, 5, 7]
    """
    _require_layout(layout, "layout")
    return layout.apply_array(ins)
