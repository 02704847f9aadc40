"""llverify.smt.encode: LinearLayouts as Z3 functions, checked against LinearLayout.apply."""

from __future__ import annotations

import z3
from hypothesis import given, settings

from cases.strategies import all_inputs, layouts
from llverify import LinearLayout
from llverify.smt.encode import encode_layout, input_variables, widen


def _evaluate(expression: z3.ExprRef, inputs: dict, point: dict[str, int]) -> int:
    pairs = [
        (variable, z3.BitVecVal(point[name], variable.size()))
        for name, variable in inputs.items()
        if variable is not None
    ]
    value = z3.simplify(z3.substitute(expression, *pairs) if pairs else expression)
    assert z3.is_bv_value(value), value
    return int(value.as_long())


@settings(max_examples=40, deadline=None)
@given(layouts(max_in_bits=3, max_out_bits=3))
def test_encode_layout_agrees_with_apply_on_all_inputs(layout: LinearLayout) -> None:
    inputs = input_variables(layout, "t!")
    width = max([n for _, n in layout.out_dims] + [2]).bit_length() + 1
    outputs = encode_layout(layout, inputs, width)
    assert set(outputs) == set(layout.get_out_dim_names())
    for point in all_inputs(layout):
        expected = layout.apply(point)
        for name, expression in outputs.items():
            assert expression.size() == width
            assert _evaluate(expression, inputs, point) == expected[name], (point, name)


def test_input_variables_of_size_one_dims_are_none() -> None:
    layout = LinearLayout.from_bases(
        [("register", []), ("lane", [[1], [2]]), ("warp", [])], ["dim0"]
    )
    inputs = input_variables(layout, "p!")
    assert inputs["register"] is None and inputs["warp"] is None
    assert inputs["lane"].size() == 2 and str(inputs["lane"]) == "p!lane"
    out = encode_layout(layout, inputs, 4)["dim0"]
    assert [_evaluate(out, inputs, {"lane": v}) for v in range(4)] == [0, 1, 2, 3]


def test_encode_layout_without_input_bits_is_zero() -> None:
    layout = LinearLayout.from_bases([("register", [])], ["dim0"], [1], False)
    outputs = encode_layout(layout, input_variables(layout), 5)
    assert z3.simplify(outputs["dim0"]).as_long() == 0 and outputs["dim0"].size() == 5


def test_widen() -> None:
    variable = z3.BitVec("v", 3)
    wide = widen(variable, 8)
    assert wide.size() == 8
    assert z3.simplify(z3.substitute(wide, (variable, z3.BitVecVal(7, 3)))).as_long() == 7
    zero = widen(None, 6)
    assert zero.size() == 6 and z3.simplify(zero).as_long() == 0
    assert widen(variable, 3).size() == 3
