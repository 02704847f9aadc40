"""llverify.ttgir: the one reader of TTGIR text (types, operations, regions, locations, module
attributes, errors naming line and column; the type parser fuzzed with hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llverify.ttgir import (
    ModuleError,
    alias_definition,
    mentioned_types,
    parse_attribute_dict,
    parse_dims,
    parse_module,
    parse_signature,
    parse_type,
    read_module_header,
    read_operation,
    rewrite_operation,
)

BLOCKED = (
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
ALIASES = {"#b": BLOCKED, "#s": "#ttg.swizzled_shared<{vec = 1}>", "#smem": "#ttg.shared_memory"}


def _module(*body: str, attributes: str = '{"ttg.num-warps" = 4 : i32}') -> str:
    return "\n".join(
        [
            f"#b = {BLOCKED}",
            '#loc1 = loc("lib.py":9:4)',
            '#loc2 = loc("k.py":12:5)',
            "#loc3 = loc(callsite(#loc1 at #loc2))",
            f"module attributes {attributes} {{",
            *body,
            "}",
        ]
    )


# --- types --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shape", "element"),
    [
        ("tensor<128x64xf16, #b>", (128, 64), "f16"),
        ("tensor<1x2x3xi8, #b>", (1, 2, 3), "i8"),
        ("tensor<1024xf8E4M3FN, #b>", (1024,), "f8E4M3FN"),
        ("tensor<16x1x!tt.ptr<f16>, #b>", (16, 1), "!tt.ptr<f16>"),
        ("tensor<i32>", (), "i32"),
        ("tensor<²x4xf16>", (), "²x4xf16"),  # only ASCII digits make a shape
    ],
)
def test_tensor_types_with_digits_in_shapes(text: str, shape: tuple[int, ...], element: str):
    t = parse_type(text, ALIASES)
    assert (t.kind, t.shape, t.element, t.text) == ("tensor", shape, element, text)
    assert t.written_encoding == ("#b" if "#b" in text else "")
    assert t.encoding == (BLOCKED if "#b" in text else "")


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("tensor<128x64xf16, #b>", "128x64xf16"),
        ("tensor<16x1x!tt.ptr<f16>, #b>", "16x1x!tt.ptr<f16>"),
        ("tensor<i32>", "i32"),
        ("tensor<²x4xf16>", "²x4xf16"),
        ("!ttg.memdesc<2x64x16xf16, #s, #smem, mutable, 2x64x64>", "2x64x16xf16"),
    ],
)
def test_the_shape_and_element_alone_read_as_in_the_type(text: str, first: str):
    t = parse_type(text, ALIASES)
    assert parse_dims(first) == parse_dims(f"  {first} ") == (t.shape, t.element)


def test_shape_without_element_is_an_error():
    with pytest.raises(ModuleError, match="expected SHAPExELEMENT"):
        parse_dims("128x64x")
    with pytest.raises(ModuleError, match="line 3: expected SHAPExELEMENT"):
        parse_dims("", line=3)


def test_memdesc_types_with_their_allocation_shape():
    view = parse_type("!ttg.memdesc<64x16xf16, #s, #smem, mutable, 3x64x64>", ALIASES)
    assert (view.kind, view.shape, view.alloc_dims, view.alloc_shape) == (
        "memdesc", (64, 16), (3, 64, 64), (3, 64, 64),
    )  # fmt: skip
    assert (view.memory_space, view.mutable, view.bits) == ("#ttg.shared_memory", True, 16)
    whole = parse_type("!ttg.memdesc<3x64x64xf16, #s, #smem>", ALIASES)
    assert (whole.alloc_dims, whole.alloc_shape, whole.mutable) == ((), (3, 64, 64), False)
    elided = mentioned_types("%t = ttg.async_copy %p : tensor<4x!tt.ptr<f16>> -> <4xf16, #s>")
    assert [(t.kind, t.text) for t in elided] == [
        ("tensor", "tensor<4x!tt.ptr<f16>>"), ("memdesc", "<4xf16, #s>"),
    ]  # fmt: skip


def test_scalars_and_pointers():
    assert parse_type("!tt.ptr<f16, 1>").kind == "pointer"
    assert parse_type("!tt.ptr<f16, 1>").pointee == "f16"
    assert (parse_type("i32").kind, parse_type("!ttg.async.token").element) == (
        "scalar", "!ttg.async.token",
    )  # fmt: skip


def test_signatures_of_every_form():
    def texts(signature: str) -> tuple[list[str], list[str]]:
        operands, results = parse_signature(signature, ALIASES)
        return [t.text for t in operands], [t.text for t in results]

    assert texts("tensor<4xf16, #b> -> tensor<4xf32, #b>") == (
        ["tensor<4xf16, #b>"], ["tensor<4xf32, #b>"],
    )  # fmt: skip
    assert texts("(tensor<4xf32>, i32) -> f32") == (["tensor<4xf32>", "i32"], ["f32"])
    assert texts("tensor<4x8xf16> * tensor<8x4xf16> -> tensor<4x4xf32>")[0] == [
        "tensor<4x8xf16>", "tensor<8x4xf16>",
    ]  # fmt: skip
    assert texts("tensor<4xf16> to tensor<4xf32>") == (["tensor<4xf16>"], ["tensor<4xf32>"])
    assert texts("() -> !ttg.memdesc<4xf16, #s, #smem>")[0] == []
    assert texts("i32") == (["i32"], [])
    with pytest.raises(ModuleError, match="malformed type signature"):
        parse_signature("a -> b -> c")


# --- operations, regions, attributes --------------------------------------------------------


def test_operation_parts():
    module = parse_module(
        _module(
            "  %r = tt.trans %x {order = array<i32: 1, 0>} : tensor<16x8xf16, #b> -> "
            'tensor<8x16xf16, #b> loc("k.py":3:7)',
            "  %v = ttg.memdesc_subslice %m[0, 16] : !ttg.memdesc<8x32xf16, #b> -> "
            "!ttg.memdesc<8x16xf16, #b, 8x32>",
            "  %l = ttg.local_load %v token %t : !ttg.memdesc<8x16xf16, #b, 8x32> -> "
            "tensor<8x16xf16, #b>",
            "  %c = arith.cmpf ogt, %a, %d : f32",
            "  %s:2 = tt.split %j {efficient_layout} : tensor<4x2xf32, #b> -> tensor<4xf32, #b>",
        )
    )
    trans, view, load, cmp, split = module.ops
    assert trans.attributes.integers("order") == (1, 0) and trans.location == "k.py:3"
    assert [t.shape for t in trans.result_types] == [(8, 16)]
    assert view.subscripts == (("0", "16"),) and view.static_indices == (0, 16)
    assert view.result_types[0].alloc_dims == (8, 32)
    assert load.literals == ("token",) and load.operands == ["%v", "%t"]
    assert cmp.literals == ("ogt",) and cmp.operand_types[0].text == "f32"
    assert split.results == ["%s"] and split.result_values == ["%s#0", "%s#1"]
    assert split.flag("efficient_layout") and not split.flag("allow_reorder")


def test_nested_regions():
    module = parse_module(
        _module(
            '  %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({',
            "  ^bb0(%a: f32 loc(#loc1), %b: f32 loc(#loc1)):",
            '    %n = "tt.foo"(%a) ({',
            "    ^bb1(%i: i32):",
            "      %k = arith.addi %i, %i : i32",
            '      "tt.foo.yield"(%k) : (i32) -> ()',
            "    }) : (f32) -> f32",
            "    %m = arith.addf %n, %b : f32 loc(#loc3)",
            "    tt.reduce.return %m : f32",
            "  }) : (tensor<128xf32, #b>) -> f32 loc(#loc3)",
        )
    )
    (reduce,) = module.ops  # the region's operations are not listed in line
    assert reduce.attributes.integer("axis") == 0 and reduce.line == 6
    (region,) = reduce.regions
    (block,) = region.blocks
    assert block.label == "^bb0" and [(n, t.text) for n, t in block.arguments] == [
        ("%a", "f32"), ("%b", "f32"),
    ]  # fmt: skip
    inner, add, ret = block.ops
    assert (inner.name, inner.line, add.location, ret.operands) == (
        "tt.foo", 8, "k.py:12", ["%m"],
    )  # fmt: skip
    (nested,) = inner.regions[0].blocks
    assert nested.label == "^bb1" and [op.name for op in nested.ops] == [
        "arith.addi", "tt.foo.yield",
    ]  # fmt: skip
    assert nested.ops[0].line == 10


def test_locations_resolve_through_aliases_and_call_sites():
    module = parse_module(
        _module(
            "  %a = arith.addf %x, %x : f32 loc(#loc3)",
            '  %b = arith.addf %x, %x : f32 loc("inline.py":7:2)',
            "  %c = arith.addf %x, %x : f32",
        )
    )
    inlined, inline, none = module.ops
    assert inlined.location == "k.py:12"  # the caller's line: the user's
    assert tuple(inlined.file_location or ()) == ("lib.py", 9, 4)  # the first file reached
    assert (inline.location, none.location, none.file_location) == ("inline.py:7", "", None)


def test_an_operation_sits_at_the_column_of_its_name():
    """Where MLIR places an operation written without a location: its name, or the quote of
    a generic name."""
    module = parse_module(
        _module(
            "  %a = arith.addf %x, %x : f32",
            "      %b:2, %c = tt.split %x : tensor<4x2xf32> -> tensor<4xf32>",
            '    %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({',
            "    ^bb0(%p: f32, %q: f32):",
            "      %m = arith.addf %p, %q : f32",
            "      tt.reduce.return %m : f32",
            "    }) : (tensor<128xf32, #b>) -> f32",
            "gpu.barrier",
        )
    )
    add, split, reduce, barrier = module.ops
    inner, ret = reduce.regions[0].blocks[0].ops
    assert [(op.line, op.column) for op in (add, split, reduce, inner, ret, barrier)] == [
        (6, 8), (7, 18), (8, 10), (10, 12), (11, 7), (13, 1),
    ]  # fmt: skip


def test_alias_definitions_give_their_name_and_value():
    assert alias_definition("#blocked1 = #ttg.blocked<{}>") == ("#blocked1", 12)
    assert alias_definition("  #loc-2=loc(unknown)", 2) == ("#loc-2", 9)
    assert alias_definition("#ttg.blocked<{}>") is None and alias_definition("x = 1") is None


def test_module_attributes_are_typed():
    attributes = (
        '{"ttg.num-ctas" = 2 : i32, ttg.num-warps = 8 : i32, ttg.target = "hip:gfx942", '
        '"ttg.threads-per-warp" = 64 : i32}'
    )
    module = parse_module(_module(attributes=attributes))
    assert (module.num_ctas, module.num_warps, module.target, module.threads_per_warp) == (
        2, 8, "hip:gfx942", 64,
    )  # fmt: skip
    header = read_module_header(
        'module attributes {"triton_gpu.num-warps" = 4 : i32, triton_gpu.target = "cuda:80"} {\n'
        "  tt.func public @kernel(%a: i32) {\n"
    )
    assert (header.attributes.num_warps, header.attributes.target) == (4, "cuda:80")
    assert header.functions == ("kernel",) and header.dictionary == (18, 83)
    with pytest.raises(ModuleError, match=r"line 5: module attribute ttg.num-warps must be"):
        parse_module(_module(attributes='{"ttg.num-warps" = 3 : i32}'))


def test_attribute_dictionaries():
    attrs, end = parse_attribute_dict(
        '{axis = -1 : i32, s = "a, b", order = [2, 0, 1], reverse = false, unit}'
    )
    assert end == 71
    assert (attrs.integer("axis"), attrs.string("s"), attrs.integers("order")) == (
        -1, "a, b", (2, 0, 1),
    )  # fmt: skip
    assert (attrs.boolean("reverse"), attrs.flag("unit"), attrs.integer("s")) == (
        False, True, None,
    )  # fmt: skip


def test_rewrite_operation_renames_and_relocates():
    op = read_operation('%y = tt.reduce.foo %x, %w token %t {a = 1 : i32} : i32 loc("k":1:1)')
    assert op is not None
    text = rewrite_operation(
        op, results="%h = ", rename=lambda name: "%n" + name[1:], location="loc(#l)", drop="token"
    )
    assert text == "%h = tt.reduce.foo %nx, %nw {a = 1 : i32} : i32 loc(#l)"


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("  %a = tt.foo %x : tensor<4x>", r"line 6: expected SHAPExELEMENT"),
        ("  %a = tt.foo %x : tensor<, #b>", r"line 6, column \d+: expected SHAPExELEMENT"),
        ("  %a = tt.foo %x : tensor<4xf16, #nope>", r"line 6, column \d+: attribute alias #nope"),
    ],
)
def test_bad_types_are_errors_naming_the_line(body: str, message: str):
    with pytest.raises(ModuleError, match=message):
        parse_module(_module(body))


def test_bad_type_text_names_line_and_column():
    with pytest.raises(ModuleError) as info:
        parse_type("tensor<4xf16, #b", line=7)
    assert (info.value.line, info.value.column) == (7, 7)
    with pytest.raises(ModuleError, match=r"unexpected '>' after the type"):
        parse_type("tensor<4xf16>>")
    with pytest.raises(ModuleError, match="expected a type"):
        parse_type("  ")


def test_a_malformed_region_is_an_error_when_read():
    op = read_operation('%r = "tt.reduce"(%x) ({\n  ^bb0(%a f32):\n}) : (f32) -> f32', line=3)
    assert op is not None
    with pytest.raises(ModuleError, match=r"line 4: malformed block argument"):
        op.regions  # noqa: B018
    unsigned = read_operation("%r = tt.foo %x")
    assert unsigned is not None
    with pytest.raises(ModuleError, match="no type signature"):
        unsigned.signature  # noqa: B018


# --- fuzzing ------------------------------------------------------------------------------------

PIECES = st.sampled_from(
    ["tensor", "!ttg.memdesc", "!tt.ptr", "<", ">", "->", "(", ")", "{", "}", "[", "]", ",",
     " ", "x", "64", "²", "f16", "#b", "#nope", '"', "mutable", "*", " to ", ":", "%a"]
)  # fmt: skip
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=16).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_the_type_parser_raises_only_value_errors(text: str):
    for read in (
        lambda: parse_type(text, ALIASES),
        lambda: parse_signature(text, ALIASES),
        lambda: mentioned_types(text, ALIASES),
    ):
        try:
            read()
        except ValueError:
            pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_an_operation_line_raises_only_value_errors(text: str):
    try:
        op = read_operation("%r = tt.op " + text, aliases=ALIASES)
        if op is not None:
            op.signature, op.attributes, op.regions, op.file_location  # noqa: B018
    except ValueError:
        pass
