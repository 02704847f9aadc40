"""explain: a layout's closed form, each output as a formula of the inputs.

Input bits that land on consecutive output bits are grouped into bit fields, so a blocked
or MMA layout reads like the hardware documentation::

    dim0 = ((lane >> 2) & 7) ^ (((register >> 1) & 1) << 3) ^ ((warp & 1) << 4)

The result is a :class:`~llverify.proof.formula.Formula` per out dim: it can be evaluated by any
backend and proved equal to the layout (``prove_equal(layout, explain(layout))``).
"""

from __future__ import annotations

from llverify.layout import LinearLayout, _require_layout
from llverify.proof.formula import Formula


def _field(name: str, low: int, length: int, dim_bits: int, shift: int) -> str:
    text = name if low == 0 else f"({name} >> {low})"
    if low + length < dim_bits:
        text = f"({text} & {(1 << length) - 1})"
    if shift:
        text = f"({text} << {shift})"
    return text


def explain(layout: LinearLayout) -> dict[str, Formula]:
    """Each out dim of ``layout`` as a formula of its in dims (XOR of bit fields).

    Examples:
        >>> ll = LinearLayout.from_bases(
        ...     [("register", [[0, 1], [0, 2]]), ("lane", [[0, 4], [1, 0], [2, 0]])],
        ...     ["dim0", "dim1"])
        >>> {k: str(v) for k, v in explain(ll).items()}
        {'dim0': '(lane >> 1)', 'dim1': 'register ^ ((lane & 1) << 2)'}
    """
    _require_layout(layout, "layout")
    sizes = dict(layout.in_dims)
    result = {}
    for name, offset, log2 in zip(layout._outs, layout._out_offsets, layout._out_log2):
        mask = (1 << log2) - 1
        terms: list[str] = []
        for in_name, cols in zip(layout._ins, layout._cols):
            dim_bits = sizes[in_name].bit_length() - 1
            run: tuple[int, int, int] | None = None  # (first input bit, output bit, length)
            for bit, column in enumerate(cols):
                coordinate = (column >> offset) & mask
                one_hot = coordinate and not coordinate & (coordinate - 1)
                target = coordinate.bit_length() - 1 if one_hot else -1
                if (
                    run is not None
                    and one_hot
                    and target == run[1] + run[2]
                    and bit == run[0] + run[2]
                ):
                    run = (run[0], run[1], run[2] + 1)
                    continue
                if run is not None:
                    terms.append(_field(in_name, run[0], run[2], dim_bits, run[1]))
                    run = None
                if one_hot:
                    run = (bit, target, 1)
                elif coordinate:
                    selected = _field(in_name, bit, 1, dim_bits, 0)
                    terms.append(f"({selected} * {coordinate})")
            if run is not None:
                terms.append(_field(in_name, run[0], run[2], dim_bits, run[1]))
        result[name] = Formula(" ^ ".join(terms) if terms else "0")
    return result
