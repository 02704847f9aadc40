"""The public API refuses bad input with llverify's named errors (issue 18, items 8 and 11):
deeply nested text and values, None and non-sequences, str shapes, shapes that contradict a
type, non-bool options; then a hypothesis fuzz of wrong types over the main entry points."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llverify import (
    LinearLayout,
    access_analysis,
    bank_conflicts,
    conversion,
    predict_wavefronts,
    prove_equal,
    to_linear_layout,
)
from llverify.arguments import layout_value
from llverify.checkfiles.parse import parse_text
from llverify.encodings import (
    BlockedLayout,
    NVMMASharedLayout,
    SwizzledSharedLayout,
    TensorMemoryLayout,
    parse_encoding,
    parse_padded_shared,
)
from llverify.errors import LayoutError, LayoutTypeError, LLVerifyError, ParseError
from llverify.proof.formula import MAX_DEPTH, Formula, FormulaError
from llverify.shared_memory.swizzle.synthesize import synthesize_swizzle
from llverify.text_format import MAX_NESTING

BLOCKED = (
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
TENSOR = f"tensor<128x64xf16, {BLOCKED}>"
SHARED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
DEEP = 30_000
OPENERS = {"[": "]", "{": "}", "(": ")", "<": ">"}


def _refused(call: Callable[[], Any], *fragments: str, seconds: float = 2.0) -> str:
    """``call()`` raises an LLVerifyError that is a ValueError or TypeError, fast, whose
    message holds every fragment; returns the message."""
    started = time.perf_counter()
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert time.perf_counter() - started < seconds
    assert isinstance(info.value, LLVerifyError), repr(info.value)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


# ---------------------------------------------------------------------- nesting (item 8)


def _nested(opener: str, depth: int = DEEP) -> str:
    return opener * depth + OPENERS[opener] * depth


@pytest.mark.parametrize("opener", list(OPENERS))
def test_deep_json_is_a_parse_error_naming_the_argument_and_limit(opener: str) -> None:
    limit = f"{MAX_NESTING} levels"
    inner = '{"bases": {"lane": ' + _nested(opener) + '}, "out_dims": {"dim0": 2}}'
    for text in (_nested(opener), inner):
        _refused(lambda text=text: LinearLayout.from_json(text), "'text'", limit)
    _refused(lambda: layout_value(inner, None, "src"), "'src'", limit)


@pytest.mark.parametrize("opener", list(OPENERS))
def test_deep_ttgir_is_a_parse_error_naming_the_argument_and_limit(opener: str) -> None:
    limit = f"{MAX_NESTING} levels"
    texts = [
        _nested(opener),
        "#ttg.blocked<{sizePerThread = " + _nested(opener) + "}>",
        f"tensor<4xf16, #ttg.blocked<{{sizePerThread = {_nested(opener)}}}>>",
        "#ttg.blocked<{a = " + "#ttg.blocked<{a = " * DEEP + "}>" * DEEP + "}>",
    ]
    for text in texts:
        _refused(lambda text=text: to_linear_layout(text, [4]), "'encoding'", limit)
        _refused(lambda text=text: layout_value(text, [4], "dst"), "'dst'", limit)
        _refused(lambda text=text: parse_encoding(text), "'text'", limit)
    memdesc = "!ttg.memdesc<4xf16, #ttg.padded_shared<[32:+4] {order = " + _nested(opener)
    _refused(lambda: parse_padded_shared(memdesc), "'text'", limit)
    _refused(lambda: layout_value(memdesc, None, "shared"), "'shared'", limit)


def test_nesting_below_the_limit_reaches_the_parser() -> None:
    """Depth MAX_NESTING is the parser's to judge (here: not a list of ints)."""
    deep = "[" * (MAX_NESTING - 3) + "1" + "]" * (MAX_NESTING - 3)
    text = "#ttg.blocked<{sizePerThread = " + deep + "}>"
    message = _refused(lambda: to_linear_layout(text, [4]), "sizePerThread")
    assert "levels" not in message


def test_brackets_in_json_strings_do_not_count() -> None:
    name = "(" * 500
    layout = LinearLayout.from_json('{"bases": {"' + name + '": [[1]]}, "out_dims": {"o": 2}}')
    assert layout.get_in_dim_names() == [name]


@pytest.mark.parametrize("opener", list(OPENERS))
def test_deep_layout_text_is_a_parse_error(opener: str) -> None:
    text = f" - register=1 -> {_nested(opener)}\nwhere out dims are: [dim0 (size 2)]"
    _refused(lambda: LinearLayout.from_string(text))
    outs = " - register=1 -> (1)\nwhere out dims are: " + _nested(opener)
    _refused(lambda: LinearLayout.from_string(outs))


@pytest.mark.parametrize(
    "text",
    [
        "(" * 4000 + "x" + ")" * 4000,
        "[" * 4000 + "x" + "]" * 4000,
        "{" * 4000 + "x" + "}" * 4000,
        "-" * 9999 + "x",
        "~" * 9999 + "x",
        "+".join(["x"] * 4000),
    ],
)
def test_deep_formulas_name_the_limit(text: str) -> None:
    _refused(lambda: Formula(text), f"nested deeper than {MAX_DEPTH} levels")
    with pytest.raises(FormulaError):
        Formula(text)


@pytest.mark.parametrize("opener", list(OPENERS))
def test_deep_layout_values_in_spec_files(opener: str) -> None:
    spec = (
        '[[check]]\nname = "deep"\nkind = "conversion"\n'
        f"src = '{_nested(opener, 5000)}'\ndst = '{BLOCKED}'\nshape = [128, 64]\n"
    )
    with pytest.raises(ValueError, match="nest|invalid|not a valid"):
        parse_text(spec, "deep.toml")


_RUN_CLI = "import sys; from llverify.cli.main import main; sys.exit(main())"


@pytest.mark.parametrize("opener", list(OPENERS))
def test_cli_layout_deep_nesting_exits_2_with_one_line(opener: str, tmp_path: Path) -> None:
    path = tmp_path / "deep.txt"
    path.write_text(_nested(opener))
    for argument in (str(path), opener * (MAX_NESTING + 50)):
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                _RUN_CLI,
            ]
            + ["layout"]
            + [argument, "--shape", "4"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2, result.stderr
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and f"{MAX_NESTING} levels" in lines[0], result.stderr


def test_deeply_nested_python_values_are_named_type_errors() -> None:
    deep: Any = 0
    for _ in range(DEEP):
        deep = [deep]
    calls = {
        "bases": lambda: LinearLayout.from_bases([("a", [[deep]])], ["d"]),
        "out_dim_names": lambda: LinearLayout.from_bases([], deep),
        "shape": lambda: to_linear_layout(BLOCKED, [deep, 4]),
        "size_per_thread": lambda: BlockedLayout([deep, 1], [4, 8], [4, 1], [1, 0]),
        "size": lambda: LinearLayout.identity_1d(deep, "a", "b"),
    }
    for name, call in calls.items():
        assert len(_refused(call, name)) < 500


# ---------------------------------------------------------------------- refusals (item 11)


@pytest.mark.parametrize("bases", [None, "", 0, 1.5, {("a", 1)}, b"ab"])
def test_from_bases_refuses_non_sequences(bases: Any) -> None:
    _refused(lambda: LinearLayout.from_bases(bases, ["dim0"]), "'bases'")
    _refused(lambda: LinearLayout(bases, ["dim0"]), "'bases'")


@pytest.mark.parametrize("names", [None, "dim0", 0, {"dim0", "dim1"}, {"dim0": 4}])
def test_from_bases_refuses_non_sequence_out_dim_names(names: Any) -> None:
    _refused(lambda: LinearLayout.from_bases([], names), "'out_dim_names'")


def test_other_constructors_refuse_none_and_sets() -> None:
    ll = LinearLayout.identity_1d(4, "a", "dim0")
    _refused(lambda: ll.reshape_ins({("a", 4)}), "'new_in_dims'")
    _refused(lambda: ll.reshape_outs(None), "'new_out_dims'")
    _refused(lambda: LinearLayout.from_bases({"a": {(1,)}}, ["d"]), "'bases'")
    _refused(lambda: LinearLayout.from_bases({"a": itertools.repeat([1])}, ["d"]), "'bases'")
    for call in (LinearLayout.identity_1d, LinearLayout.zeros_1d):
        _refused(lambda call=call: call(None, "a", "b"), "'size'")
        _refused(lambda call=call: call(4, None, "b"), "'in_dim'")
        _refused(lambda call=call: call(4, "a", None), "'out_dim'")
    _refused(lambda: LinearLayout.strided_1d(4, None, "a", "b"), "'stride'")
    assert LinearLayout.from_bases(iter([("a", [[1]])]), ["d"]) == LinearLayout.identity_1d(
        2, "a", "d"
    )


def test_a_shape_that_contradicts_the_type_is_refused() -> None:
    message = _refused(lambda: to_linear_layout(TENSOR, [64, 64]), "'shape'", "[128, 64]")
    assert "[64, 64]" in message
    _refused(lambda: layout_value(TENSOR, [64, 64], "src"), "'shape'", "'src'")
    _refused(lambda: conversion(TENSOR, TENSOR, [64, 64]), "'shape'")
    assert to_linear_layout(TENSOR, [128, 64]) == to_linear_layout(TENSOR)
    assert to_linear_layout(TENSOR, (128, 64)) == to_linear_layout(BLOCKED, [128, 64])
    memdesc = (
        "!ttg.memdesc<2x16x32xf16, #ttg.padded_shared<[32:+4] {order = [1, 0], shape = "
        "[16, 32]}>, #ttg.shared_memory, mutable>"
    )
    _refused(lambda: layout_value(memdesc, [16, 32], "shared"), "'shape'", "[2, 16, 32]")
    assert layout_value(memdesc, [2, 16, 32], "shared") == layout_value(memdesc, None, "shared")


@pytest.mark.parametrize("shape", ["128x64", "128", b"12", 128, 128.0, None])
def test_a_str_or_scalar_shape_is_refused_whole(shape: Any) -> None:
    if shape is None:
        _refused(lambda: to_linear_layout(BLOCKED, shape), "'shape'")
        return
    expected = "sequence of ints such as [128, 64]"
    message = _refused(lambda: to_linear_layout(BLOCKED, shape), "'shape'", expected)
    assert "shape[0]" not in message
    ll = to_linear_layout(BLOCKED, [128, 64])
    calls = [
        lambda: layout_value(BLOCKED, shape, "src"),
        lambda: conversion(BLOCKED, BLOCKED, shape),
        lambda: access_analysis(BLOCKED, SHARED, shape, 16),
        lambda: bank_conflicts(BLOCKED, SHARED, shape, 16),
        lambda: predict_wavefronts(BLOCKED, SHARED, shape, 16, "store"),
        lambda: synthesize_swizzle(ll, ll, shape, 16),
        lambda: BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]).to_linear_layout(shape),
        lambda: SwizzledSharedLayout(8, 1, 8, [1, 0]).to_linear_layout(shape),
        lambda: NVMMASharedLayout(128, 16).to_linear_layout(shape),
        lambda: TensorMemoryLayout([128, 64], 1).to_linear_layout(shape),
    ]
    for call in calls:
        message = _refused(call, "'shape'", expected)
        assert "shape[0]" not in message


@pytest.mark.parametrize("value", ["no", "false", 1, 0, None, 1.0])
def test_boolean_options_refuse_non_bools(value: Any) -> None:
    ll = to_linear_layout(BLOCKED, [128, 64])
    calls = {
        "require_surjective": lambda: LinearLayout.from_bases(
            {"a": [[1]]}, ["d"], require_surjective=value
        ),
        "padding": lambda: synthesize_swizzle(ll, ll, [128, 64], 16, padding=value),
        "triton_safe": lambda: synthesize_swizzle(ll, ll, [128, 64], 16, triton_safe=value),
        "condition": lambda: Formula("x", value),
        "allow_code": lambda: parse_text("", "empty.toml", allow_code=value),
        "transposed": lambda: NVMMASharedLayout(128, 16, transposed=value),
        "fp4_padded": lambda: NVMMASharedLayout(128, 16, fp4_padded=value),
        "two_ctas": lambda: TensorMemoryLayout([128, 64], 1, two_ctas=value),
    }
    for name, call in calls.items():
        with pytest.raises(TypeError, match=f"'{name}' must be a bool"):
            call()


def test_bools_stay_accepted() -> None:
    assert LinearLayout.from_bases({"a": [[1]]}, ["d"], [4], require_surjective=False)
    assert Formula("x < 1", True).is_condition
    assert parse_text("", "empty.toml", allow_code=False) == []


# ---------------------------------------------------------------------- fuzzing


_NAN = math.nan
_GARBAGE_SCALAR = st.sampled_from([None, "8", "", 8.0, 1.5, _NAN, math.inf, True, False])
_GARBAGE = st.one_of(
    _GARBAGE_SCALAR,
    st.lists(_GARBAGE_SCALAR, min_size=1, max_size=3),
    st.recursive(_GARBAGE_SCALAR, lambda inner: st.lists(inner, min_size=1, max_size=2)).filter(
        lambda v: isinstance(v, list)
    ),
    st.dictionaries(st.text(max_size=3), _GARBAGE_SCALAR, min_size=1, max_size=2),
)
#: garbage for an int argument: never an int
_NOT_INT = _GARBAGE.filter(lambda v: not isinstance(v, int) or isinstance(v, bool))
#: garbage for a layout or name argument: no str (a str may be a legal name or layout text)
_NOT_STR = _GARBAGE.filter(lambda v: not isinstance(v, str) and v is not None)
#: garbage for a list of names: never a list of strs
_NOT_NAMES = _GARBAGE.filter(
    lambda v: not (isinstance(v, list) and all(isinstance(x, str) for x in v))
)
#: garbage for a shape argument: never a list of ints
_NOT_SHAPE = st.one_of(
    _GARBAGE_SCALAR.filter(lambda v: v is not None),
    st.lists(_GARBAGE_SCALAR, min_size=1, max_size=3),
    st.just("128x64"),
)

_LL = LinearLayout.identity_1d(4, "register", "dim0") * LinearLayout.identity_1d(32, "lane", "dim1")
_SHARED_LL = LinearLayout.identity_1d(4, "offset", "dim0") * LinearLayout.identity_1d(
    32, "offset", "dim1"
)


def _entry_points() -> dict[str, tuple[Callable[..., Any], dict[str, Any], dict[str, Any]]]:
    """name -> (function, valid keyword arguments, garbage strategy per argument)."""
    ll, shape = _LL, [4, 32]
    return {
        "from_bases": (
            LinearLayout.from_bases,
            {"bases": {"a": [[1]]}, "out_dim_names": ["d"]},
            {"bases": _NOT_STR, "out_dim_names": _NOT_NAMES},
        ),
        "identity_1d": (
            LinearLayout.identity_1d,
            {"size": 4, "in_dim": "a", "out_dim": "b"},
            {"size": _NOT_INT, "in_dim": _NOT_STR, "out_dim": _NOT_STR},
        ),
        "strided_1d": (
            LinearLayout.strided_1d,
            {"size": 4, "stride": 2, "in_dim": "a", "out_dim": "b"},
            {"size": _NOT_INT, "stride": _NOT_INT, "in_dim": _NOT_STR},
        ),
        "zeros_1d": (
            LinearLayout.zeros_1d,
            {"size": 4, "in_dim": "a", "out_dim": "b", "out_dim_size": 2},
            {"size": _NOT_INT, "out_dim": _NOT_STR, "out_dim_size": _NOT_INT},
        ),
        "to_linear_layout": (
            to_linear_layout,
            {"encoding": BLOCKED, "shape": [128, 64]},
            {"encoding": _NOT_STR, "shape": _NOT_SHAPE},
        ),
        "BlockedLayout": (
            BlockedLayout,
            {
                "size_per_thread": [1, 8],
                "threads_per_warp": [4, 8],
                "warps_per_cta": [4, 1],
                "order": [1, 0],
            },
            {"size_per_thread": _GARBAGE, "warps_per_cta": _GARBAGE, "order": _GARBAGE},
        ),
        "SwizzledSharedLayout": (
            SwizzledSharedLayout,
            {"vec": 8, "per_phase": 1, "max_phase": 8, "order": [1, 0]},
            {"vec": _NOT_INT, "max_phase": _NOT_INT, "order": _GARBAGE},
        ),
        "NVMMASharedLayout": (
            NVMMASharedLayout,
            {"swizzle_byte_width": 128, "element_bitwidth": 16},
            {
                "swizzle_byte_width": _NOT_INT,
                "element_bitwidth": _NOT_INT,
                "transposed": _GARBAGE.filter(lambda v: not isinstance(v, bool)),
            },
        ),
        "conversion": (
            conversion,
            {"src": ll, "dst": ll},
            {"src": _NOT_STR, "dst": _NOT_STR, "shape": _NOT_SHAPE},
        ),
        "access_analysis": (
            access_analysis,
            {
                "register_layout": ll,
                "shared_layout": _SHARED_LL,
                "shape": shape,
                "element_bits": 16,
            },
            {
                "register_layout": _NOT_STR,
                "shared_layout": _NOT_STR,
                "shape": _NOT_SHAPE,
                "element_bits": _NOT_INT,
                "target": _NOT_STR,
            },
        ),
        "bank_conflicts": (
            bank_conflicts,
            {
                "register_layout": ll,
                "shared_layout": _SHARED_LL,
                "shape": shape,
                "element_bits": 16,
            },
            {"register_layout": _NOT_STR, "shape": _NOT_SHAPE, "element_bits": _NOT_INT},
        ),
        "predict_wavefronts": (
            predict_wavefronts,
            {
                "register_layout": ll,
                "shared_layout": _SHARED_LL,
                "shape": shape,
                "element_bits": 16,
                "direction": "store",
            },
            {
                "shared_layout": _NOT_STR,
                "shape": _NOT_SHAPE,
                "element_bits": _NOT_INT,
                "direction": _NOT_STR,
                "reps": _NOT_INT,
            },
        ),
        "synthesize_swizzle": (
            synthesize_swizzle,
            {"src": ll, "dst": ll, "shape": shape, "element_bits": 16},
            {
                "src": _NOT_STR,
                "dst": _NOT_STR,
                "shape": _NOT_SHAPE,
                "element_bits": _NOT_INT,
                "padding": _GARBAGE.filter(lambda v: not isinstance(v, bool)),
                "triton_safe": _GARBAGE.filter(lambda v: not isinstance(v, bool)),
            },
        ),
        "prove_equal": (
            prove_equal,
            {"layout": ll, "reference": ll},
            {
                "layout": _NOT_STR,
                "reference": _NOT_STR,
                "method": _NOT_STR,
                "timeout_ms": _NOT_INT,
                "params": _NOT_STR,
            },
        ),
    }


_ENTRY_POINTS = _entry_points()
_CASES = [(name, arg) for name, (_, _, bad) in _ENTRY_POINTS.items() for arg in bad]


@pytest.mark.parametrize(("entry", "argument"), _CASES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_wrong_types_are_named_errors(entry: str, argument: str, data: Any) -> None:
    """One argument of a valid call replaced by a wrong type: a ValueError or TypeError of
    llverify's, whose message names the argument."""
    function, valid, bad = _ENTRY_POINTS[entry]
    value = data.draw(bad[argument], label=argument)
    kwargs = {**valid, argument: value}
    with pytest.raises((ValueError, TypeError)) as info:
        function(**kwargs)
    assert isinstance(info.value, LLVerifyError), repr(info.value)
    assert argument in str(info.value), (argument, str(info.value))


def test_refusals_are_the_matching_builtins() -> None:
    """LayoutTypeError for a wrong type, LayoutError/ParseError for a wrong value."""
    with pytest.raises(LayoutTypeError):
        to_linear_layout(BLOCKED, "128x64")
    with pytest.raises(LayoutError):
        to_linear_layout(TENSOR, [64, 64])
    with pytest.raises(ParseError):
        LinearLayout.from_json("[" * DEEP)
