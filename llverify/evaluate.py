"""Bulk (vectorized numpy) evaluation of a layout over all or many inputs, as functions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from llverify.layout import DEFAULT_MAX_INPUTS, LinearLayout, _require_layout

__all__ = ["DEFAULT_MAX_INPUTS", "evaluate", "evaluate_all"]


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
