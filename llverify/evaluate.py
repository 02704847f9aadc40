"""Bulk (vectorized numpy) evaluation of a layout over all or many inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from llverify.errors import DimensionError, LayoutError, LayoutTypeError
from llverify.layout import LinearLayout, _require_layout

#: evaluate_all refuses layouts with more inputs than this unless told otherwise.
DEFAULT_MAX_INPUTS = 1 << 26


def _unpack(layout: LinearLayout, packed: np.ndarray) -> dict[str, np.ndarray]:
    result = {}
    for name, offset, log2 in zip(layout._outs, layout._out_offsets, layout._out_log2):
        mask = np.uint64((1 << log2) - 1)
        result[name] = ((packed >> np.uint64(offset)) & mask).astype(np.int64)
    return result


def evaluate_all(
    layout: LinearLayout, max_inputs: int = DEFAULT_MAX_INPUTS
) -> dict[str, np.ndarray]:
    """Every output for every input, as one int64 array per out dim.

    Entry ``i`` is the image of the input whose flat index is ``i``: the in dims in
    order, the first one least significant (Triton's flattening).

    Examples:
        >>> ll = LinearLayout.from_bases([("i", [[0, 1], [1, 0]])], ["a", "b"])
        >>> {k: v.tolist() for k, v in evaluate_all(ll).items()}
        {'a': [0, 0, 1, 1], 'b': [0, 1, 0, 1]}
    """
    _require_layout(layout, "layout")
    total = layout.get_total_in_dim_size()
    if total > max_inputs:
        raise LayoutError(
            f"evaluate_all: the layout has {total} inputs, more than max_inputs={max_inputs}; "
            f"pass a larger max_inputs or evaluate chosen inputs with evaluate()."
        )
    packed = np.zeros(total, dtype=np.uint64)
    filled = 1
    for column in layout._flat_cols():
        np.bitwise_xor(packed[:filled], np.uint64(column), out=packed[filled : 2 * filled])
        filled *= 2
    return _unpack(layout, packed)


def evaluate(layout: LinearLayout, ins: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Outputs for arrays of inputs (broadcast together), one int64 array per out dim.

    Examples:
        >>> ll = LinearLayout.identity_1d(8, "lane", "dim0")
        >>> evaluate(ll, {"lane": [1, 5, 7]})["dim0"].tolist()
        [1, 5, 7]
    """
    _require_layout(layout, "layout")
    if not isinstance(ins, Mapping):
        raise LayoutTypeError(
            f"Argument 'ins' must be a mapping in dim -> array, not {type(ins).__name__}."
        )
    if set(ins) != set(layout._ins) or len(ins) != len(layout._ins):
        raise DimensionError(
            f"Argument 'ins' must give exactly the in dims {list(layout._ins)}, not {list(ins)}."
        )
    names = list(ins)
    arrays = []
    for name in names:
        array = np.asarray(ins[name])
        if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
            raise LayoutTypeError(
                f"Argument 'ins['{name}']' must hold integers, not dtype {array.dtype}."
            )
        arrays.append(array)
    try:
        arrays = list(np.broadcast_arrays(*arrays))
    except ValueError:
        raise LayoutError(
            f"Argument 'ins' arrays must broadcast together, not shapes "
            f"{[a.shape for a in arrays]}."
        ) from None
    shape = arrays[0].shape if arrays else ()
    packed = np.zeros(shape, dtype=np.uint64)
    index = layout._in_idx()
    for name, array in zip(names, arrays):
        cols = layout._cols[index[name]]
        size = 1 << len(cols)
        if array.size and (array.min() < 0 or array.max() >= size):
            bad = array[(array < 0) | (array >= size)].flat[0]
            raise LayoutError(f"Argument 'ins['{name}']' must be in [0, {size}), not {bad}.")
        values = array.astype(np.uint64)
        for start in range(0, len(cols), 8):
            table = np.zeros(1, dtype=np.uint64)
            for column in cols[start : start + 8]:
                table = np.concatenate([table, table ^ np.uint64(column)])
            chunk = (values >> np.uint64(start)) & np.uint64(len(table) - 1)
            packed ^= table[chunk.astype(np.intp)]
    return _unpack(layout, packed)
