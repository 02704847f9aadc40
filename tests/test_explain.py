"""explain(layout): the closed form is exactly the layout, and reads as bit fields."""

from pathlib import Path

from hypothesis import given, settings

from cases.strategies import layouts
from llverify import LinearLayout, explain, prove_equal
from llverify.ops import IntOps

SPECS = Path(__file__).resolve().parent.parent / "specs" / "layouts"


@settings(max_examples=150, deadline=None)
@given(layouts())
def test_explain_evaluates_to_the_layout_everywhere(layout):
    formulas = explain(layout)
    assert set(formulas) == set(layout.get_out_dim_names())
    sizes = dict(layout.in_dims)
    names = list(sizes)
    total = 1
    for size in sizes.values():
        total *= size
    for flat in range(total):
        point, rest = {}, flat
        for name in names:
            point[name] = rest % sizes[name]
            rest //= sizes[name]
        expected = layout.apply(point)
        actual = {d: f.evaluate(IntOps(), point) for d, f in formulas.items()}
        assert actual == expected, (point, {d: str(f) for d, f in formulas.items()})


def test_explain_of_builtin_layouts_is_proved_by_every_method():
    for path in sorted(SPECS.glob("*.json")):
        layout = LinearLayout.from_json(path.read_text())
        formulas = explain(layout)
        for method in ("linear", "z3"):
            assert prove_equal(layout, formulas, method=method).proved, (path.name, method)


def test_explain_groups_contiguous_bits_into_fields():
    layout = LinearLayout.from_json((SPECS / "nvmma_shared_128B_f16_128x64.json").read_text())
    text = {d: str(f) for d, f in explain(layout).items()}
    assert text == {"dim0": "(offset >> 6)", "dim1": "(offset & 63) ^ (((offset >> 6) & 7) << 3)"}


def test_explain_multi_bit_bases_and_zero_outputs():
    layout = LinearLayout.from_bases(
        [("offset", [[0, 3], [0, 0], [1, 0]])], ["dim0", "dim1"], [2, 4], False
    )
    text = {d: str(f) for d, f in explain(layout).items()}
    assert text == {"dim0": "(offset >> 2)", "dim1": "((offset & 1) * 3)"}
    empty = LinearLayout.from_bases([("lane", [[0]])], ["dim0"], [2], False)
    assert str(explain(empty)["dim0"]) == "0"
