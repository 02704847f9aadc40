"""LinearLayouts as Z3 functions of named bit-vector inputs."""

from __future__ import annotations

from functools import reduce
from operator import xor
from typing import Any

import z3

from llverify.layout import LinearLayout


def input_variables(layout: LinearLayout, prefix: str = "") -> dict[str, Any]:
    """One bit-vector variable per in dim, of width log2(size) (None for size 1).

    Examples:
        >>> ll = LinearLayout.identity_1d(8, "lane", "dim0")
        >>> input_variables(ll)["lane"].size()
        3
    """
    variables = {}
    for name, size in layout.in_dims:
        bits = size.bit_length() - 1
        variables[name] = z3.BitVec(prefix + name, bits) if bits else None
    return variables


def encode_layout(layout: LinearLayout, inputs: dict[str, Any], width: int) -> dict[str, Any]:
    """The layout's outputs as ``width``-bit expressions of ``inputs`` (from
    :func:`input_variables`): each output bit is the XOR of the input bits whose bases set it.

    Examples:
        >>> ll = LinearLayout.from_bases([("i", [[1], [3]])], ["o"])
        >>> x = input_variables(ll)
        >>> out = encode_layout(ll, x, 4)
        >>> z3.simplify(z3.substitute(out["o"], (x["i"], z3.BitVecVal(2, 2))))
        3
    """
    bits_of: list[tuple[Any, int]] = []  # (variable, bit) per input column, in flat order
    for name, size in layout.in_dims:
        for i in range(size.bit_length() - 1):
            bits_of.append((inputs[name], i))
    columns = layout._flat_cols()
    outputs = {}
    for name, offset, log2 in zip(layout._outs, layout._out_offsets, layout._out_log2):
        out_bits = []
        for b in range(log2):
            position = offset + b
            terms = [
                z3.Extract(i, i, variable)
                for (variable, i), column in zip(bits_of, columns)
                if (column >> position) & 1
            ]
            out_bits.append(reduce(xor, terms) if terms else z3.BitVecVal(0, 1))
        if out_bits:
            value = out_bits[0] if log2 == 1 else z3.Concat(*reversed(out_bits))
            outputs[name] = z3.ZeroExt(width - log2, value) if width > log2 else value
        else:
            outputs[name] = z3.BitVecVal(0, width)
    return outputs


def widen(variable: Any, width: int) -> Any:
    """A raw input variable (or None for a size-1 dim) zero-extended to ``width`` bits."""
    if variable is None:
        return z3.BitVecVal(0, width)
    return z3.ZeroExt(width - variable.size(), variable)
