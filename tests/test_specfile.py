"""Spec files (docs/specs.md): parsing, grids and placeholders, each kind proved and refuted,
FILE:LINE errors, code execution only with allow_code, picklable obligations, fuzzing of the
parser, and the pytest plugin."""

from __future__ import annotations

import math
import pickle
import re
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llverify.checkfiles import (
    Obligation,
    SpecError,
    parse,
    parse_text,
    run_all,
    run_obligation,
    spec_files,
)
from llverify.checkfiles.decide import load_function
from llverify.checkfiles.lines import LineIndex
from llverify.errors import LLVerifyError
from llverify.proof.obligation import Call

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

pytest_plugins = ["pytester"]

EXAMPLES = Path(__file__).resolve().parent.parent / "llverify" / "specs" / "examples"

ROW = (
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
COL = (
    "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>"
)
SWIZZLE_ROW = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
BLOCKED4 = (
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
# a pair whose optimum needs a Z3 proof (~50 ms of solving, not the trivial bound)
SOLVER_SRC = (
    "#ttg.blocked<{sizePerThread = [2, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 8], "
    "order = [0, 1]}>"
)
SOLVER_DST = (
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [8, 1], "
    "order = [1, 0]}>"
)
STORE_16x32 = (
    '{"bases": {"register": [[1, 0], [2, 0], [4, 0], [8, 0]], "lane": [[0, 1], [0, 2], '
    '[0, 4], [0, 8], [0, 16]], "warp": []}, "out_dims": {"dim0": 16, "dim1": 32}}'
)


def _check(kind: str, body: str, name: str = "c", expect: str = "proved") -> str:
    return f'[[check]]\nname = "{name}"\nkind = "{kind}"\nexpect = "{expect}"\n{body}\n'


def _one(text: str, **kwargs: object) -> Obligation:
    obligations = parse_text(text, "t.toml", **kwargs)  # type: ignore[arg-type]
    assert len(obligations) == 1
    return obligations[0]


# ---------------------------------------------------------------------- every kind


KIND_CASES = {
    "equivalence": (
        f"layout = '{BLOCKED4}'\nshape = [128, 64]\n"
        'reference = { dim0 = "(lane // 8) + 4 * warp + 16 * (register // 8)", '
        'dim1 = "register % 4 + 4 * (lane % 8) + 32 * ((register // 4) % 2)" }',
        f"layout = '{BLOCKED4}'\nshape = [128, 64]\n"
        'reference = { dim0 = "(lane // 8) + 4 * warp + 16 * (register // 4)", '
        'dim1 = "register % 4 + 4 * (lane % 8)" }',
        "reference says",
    ),
    "equivalence_layout": (
        'layout = \'{"bases": {"lane": [[1], [2]]}, "out_dims": {"dim0": 4}}\'\n'
        "reference_layout = { bases = { lane = [[1], [2]] }, out_dims = { dim0 = 4 } }",
        'layout = \'{"bases": {"lane": [[1], [2]]}, "out_dims": {"dim0": 4}}\'\n'
        "reference_layout = { bases = { lane = [[2], [1]] }, out_dims = { dim0 = 4 } }",
        "lane=1",
    ),
    "conversion": (
        f"src = '{ROW}'\ndst = '{COL}'\nshape = [128, 64]\nlowering = \"shared memory\"",
        f"src = '{ROW}'\ndst = '{COL}'\nshape = [128, 64]\nlowering = \"warp shuffle\"",
        "the spec requires 'warp shuffle'",
    ),
    "bank_conflicts": (
        f"register = '{ROW}'\nshared = '{SWIZZLE_ROW}'\nshape = [128, 64]\ndtype = \"f16\"",
        f"register = '{COL}'\nshared = '{SWIZZLE_ROW}'\nshape = [128, 64]\ndtype = \"f16\"",
        "lanes 0, 1, 2, 3, 4, 5, 6, 7 access the same bank",
    ),
    "vectorization": (
        f"register = '{ROW}'\nshared = '{SWIZZLE_ROW}'\nshape = [128, 64]\ndtype = \"f16\"\n"
        "min_bits = 128",
        f"register = '{COL}'\nshared = '{SWIZZLE_ROW}'\nshape = [128, 64]\ndtype = \"f16\"\n"
        "min_bits = 32",
        "16-bit accesses",
    ),
    "swizzle": (
        f"src = '{ROW}'\ndst = '{COL}'\nshape = [128, 64]\ndtype = \"f16\"\nmax_wavefronts = 256",
        f"src = '{ROW}'\ndst = '{COL}'\nshape = [128, 64]\ndtype = \"f16\"\nmax_wavefronts = 255",
        "256 wavefronts > max_wavefronts 255",
    ),
}


@pytest.mark.parametrize("case", sorted(KIND_CASES))
def test_each_kind_proved_and_refuted(case: str) -> None:
    kind = case.split("_layout")[0]
    good, bad, evidence = KIND_CASES[case]
    proved = run_obligation(_one(_check(kind, good)))
    assert (proved.status, proved.passed) == ("proved", True), proved.message
    refuted = run_obligation(_one(_check(kind, bad)))
    assert (refuted.status, refuted.passed) == ("refuted", False), refuted.message
    assert evidence in refuted.message
    # a negative control expecting the refutation passes
    control = run_obligation(_one(_check(kind, bad, expect="refuted")))
    assert control.passed and control.expected == "refuted"
    # ... and one that expects a refutation of a true claim fails
    assert not run_obligation(_one(_check(kind, good, expect="refuted"))).passed


def test_refuted_equivalence_message_is_the_replayed_counterexample() -> None:
    outcome = run_obligation(_one(_check("equivalence", KIND_CASES["equivalence"][1])))
    assert re.search(
        r"register=\d+, lane=\d+, warp=\d+, block=\d+ -> \(\d+, \d+\), "
        r"reference says \(\d+, \d+\)",
        outcome.message,
    )
    assert outcome.details["verdict"]["counterexample"] is not None


def test_swizzle_is_unknown_under_a_tiny_budget() -> None:
    text = _check(
        "swizzle", f"src = '{SOLVER_SRC}'\ndst = '{SOLVER_DST}'\nshape = [128, 128]\ndtype = \"f8\""
    )
    ob = _one(text)
    proved = run_obligation(ob, timeout_s=30)
    assert proved.status == "proved" and proved.details["certificate"] == "proved"
    unknown = run_obligation(ob, timeout_s=0.001)
    assert unknown.status == "unknown" and not unknown.passed
    assert "certificate unknown" in unknown.message


def test_shape_defaults_to_the_out_dims_of_linear_layouts() -> None:
    shared = (
        "{ bases = { offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], "
        "[4, 0], [8, 0]] }, out_dims = { dim0 = 16, dim1 = 32 } }"
    )
    ob = _one(
        _check(
            "vectorization",
            f"register = '{STORE_16x32}'\nshared = {shared}\ndtype = 32\nmin_bits = 32",
        )
    )
    assert ob.reference.shape == (16, 32) and ob.reference.element_bits == 32
    assert run_obligation(ob).status == "proved"


def test_inputs_rejected_while_running_are_errors_with_the_location() -> None:
    text = _check(
        "bank_conflicts",
        f"register = '{ROW}'\nshared = '{SWIZZLE_ROW}'\nshape = [128, 64]\ndtype = \"f16\"\n"
        'target = "gfx942"',
    )
    outcome = run_obligation(_one(text))
    assert outcome.status == "error" and not outcome.passed
    assert outcome.message.startswith("t.toml:1: ") and "64" in outcome.message


# ---------------------------------------------------------------------- grids


GRID = """
# a comment
[[check]]
name = "blocked spt={spt}"
kind = "equivalence"
layout = "#ttg.blocked<{sizePerThread = [1, {spt}], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
shape = ["{rows}", 64]
reference = { dim0 = "(lane // 8) + 4 * warp + 16 * (register // 8)", dim1 = "register % {spt} + {spt} * (lane % 8) + 8 * {spt} * ((register // {spt}) % (8 // {spt}))" }

[check.grid]
spt = [1, 2, 4, 8]
rows = [64, 128]
"""  # noqa: E501


def test_grid_expands_every_combination_and_substitutes_placeholders() -> None:
    obligations = parse_text(GRID, "g.toml")
    assert len(obligations) == 8
    names = [ob.name for ob in obligations]
    assert names[0] == "blocked spt=1 [rows=64]"  # parameters the name lacks are appended
    assert len(set(names)) == 8
    first = obligations[0]
    text, shape = first.build.args  # Call(build_layout, text, shape)
    assert shape == (64, 64)  # a whole placeholder keeps the value's type
    assert "sizePerThread = [1, 1]" in text
    assert "{" + "spt}" not in str(first.reference)
    assert all(ob.line == 3 for ob in obligations)
    outcomes = run_all(obligations)
    assert [o.status for o in outcomes] == ["proved"] * 8


def test_placeholders_in_tables_and_typed_whole_values() -> None:
    text = _check(
        "bank_conflicts",
        "register = '{reg}'\nshared = '" + SWIZZLE_ROW + "'\nshape = [128, 64]\n"
        'dtype = "{t}"\nmax = "{m}"\n[check.grid]\n'
        f"reg = ['{ROW}', '{COL}']\nt = ['f16']\nm = [0, 7]",
        name="store {t} max {m}",
    )
    obligations = parse_text(text, "g.toml")
    assert [ob.reference.bound for ob in obligations] == [0, 7, 0, 7]
    assert obligations[0].name.startswith("store f16 max 0 [reg=#ttg.blocked")
    statuses = [o.status for o in run_all(obligations)]
    assert statuses == ["proved", "proved", "refuted", "proved"]


def test_unknown_placeholder_is_an_error_at_its_key() -> None:
    text = GRID.replace('shape = ["{rows}", 64]', 'shape = ["{row}", 64]')
    with pytest.raises(
        SpecError,
        match=r"^g\.toml:7: 'shape' uses the placeholder \{row\}.*"
        r"did you mean 'rows'",
    ):
        parse_text(text, "g.toml")
    with pytest.raises(SpecError, match=r"^g\.toml:5: .*no \[check\.grid\]"):
        parse_text(_check("conversion", "src = '{x}'\ndst = 'y'"), "g.toml")


@pytest.mark.parametrize(
    ("grid", "line", "message"),
    [
        ("spt = []", 11, "non-empty array"),
        ("spt = 4", 11, "non-empty array"),
        ("spt = [1, 1]", 11, "lists 1 twice"),
        ("spt = [[1]]", 11, "strings, integers"),
        ("a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nb = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
         "c = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nd = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
         "e = [1, 2]", 10, "more than 10000"),
        ('"not-an-id" = [1]', 11, "must be an identifier"),
    ],
)  # fmt: skip
def test_bad_grids(grid: str, line: int, message: str) -> None:
    text = GRID.split("[check.grid]")[0] + "[check.grid]\n" + grid + "\n"
    with pytest.raises(SpecError, match=rf"^g\.toml:{line}: .*{re.escape(message)}"):
        parse_text(text, "g.toml")


def test_errors_in_a_grid_instance_name_the_instance() -> None:
    text = GRID.replace("spt = [1, 2, 4, 8]", "spt = [1, 3]")
    with pytest.raises(
        SpecError,
        match=r"^g\.toml:6: grid instance spt = 3, rows = 64: "
        r"'layout' is not a valid layout: .*power of two",
    ):
        parse_text(text, "g.toml")


# ---------------------------------------------------------------------- FILE:LINE errors


SPEC = """\
[[check]]
name = "first"
kind = "conversion"
src = '{row}'
dst = '{col}'
shape = [128, 64]

[[check]]
name = "second"
kind = "equivalence"
layout = '{b4}'
shape = [128, 64]
reference = {{ dim0 = "lane", dim1 = "register" }}
"""


def _spec(**replace: str) -> str:
    text = SPEC.format(row=ROW, col=COL, b4=BLOCKED4)
    for old, new in replace.items():
        old = old.replace("_", " ")
        assert old in text, old
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize(
    ("replace", "line", "message"),
    [
        ({"shape = [128, 64]\n\n": "shap = [128, 64]\n\n"}, 6, "unknown key 'shap'"),
        ({'kind = "conversion"': 'kind = "convert"'}, 3, "unknown kind 'convert'"),
        ({'kind = "conversion"': "kind = 3"}, 3, "unknown kind 3"),
        ({'kind = "conversion"\n': ""}, 1, "has no 'kind'"),
        ({'name = "second"\n': ""}, 8, "has no 'name'"),
        ({'name = "second"': 'name = "first"'}, 8, "is used twice (first at line 1)"),
        ({'name = "second"': "name = 7"}, 9, "'name' must be a non-empty string"),
        ({"dst = ": "dsst = "}, 5, "did you mean 'dst'"),
        ({"src = '#ttg.blocked<{sizePerThread": "src = '#ttg.blocke<{sizePerThread"}, 4,
         "'src' is not a valid layout"),
        ({"src = '": "src = 'hello"}, 4, "expected TTGIR attribute text"),
        ({"src = '#ttg": "src = 3 #"}, 4, "'src' must be layout text"),
        ({"shape = [128, 64]\n\n": "shape = [128, 0]\n\n"}, 6, "positive integers"),
        ({"shape = [128, 64]\n\n": "shape = [96, 64]\n\n"}, 6, "powers of 2"),
        ({"shape = [128, 64]\n\n": "\n\n"}, 4, "needs the check's 'shape'"),
        ({"shape = [128, 64]\n\n": 'shape = [128, 64]\nlowering = "shared"\n\n'}, 7,
         "did you mean 'shared memory'"),
        ({'dim0 = "lane", ': ""}, 13, "gives formulas for ['dim1']"),
        ({'dim0 = "lane"': 'dim0 = "lane +"'}, 13, "the formula for 'dim0' is invalid"),
        ({'dim0 = "lane"': 'dim0 = "__import__(\'os\')"'}, 13, "the formula for 'dim0'"),
        ({'dim0 = "lane"': 'dim0 = "thread"'}, 13, "uses ['thread']"),
        ({'dim0 = "lane"': "dim0 = 3"}, 13, "must be a string"),
        ({"reference = ": "reference_layout = '{b}'\nreference = "}, 13,
         "exactly one of 'reference'"),
        ({"[[check]]\nname = \"second\"": "[[check]]\nexpect = \"yes\"\nname = \"second\""}, 9,
         "'expect' must be one of 'proved', 'refuted'"),
        ({"[[check]]\nname = \"first\"": "title = 'x'\n[[check]]\nname = \"first\""}, 1,
         "unknown top-level key 'title'"),
    ],
)  # fmt: skip
def test_errors_carry_file_and_line(replace: dict[str, str], line: int, message: str) -> None:
    text = _spec(**{k.replace(" ", "_"): v for k, v in replace.items()})
    with pytest.raises(SpecError) as info:
        parse_text(text, "specs/s.toml")
    error = info.value
    assert str(error).startswith(f"specs/s.toml:{line}: "), str(error)
    assert message in str(error)
    assert (error.file, error.line) == ("specs/s.toml", line)
    assert isinstance(error, LLVerifyError) and isinstance(error, ValueError)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('[[check]]\nname = "x"\nkind = = 3\n', 3),
        ('[[check]]\nname = "x\n', 2),
        ("[[check]]\n\n\n[[check\n", 4),
        ("a = 1\na = 2\n", 2),
        ('[[check]]\nname = """x', 2),
    ],
)
def test_toml_syntax_errors_use_the_decoder_line(text: str, line: int) -> None:
    with pytest.raises(SpecError, match=rf"^f\.toml:{line}: invalid TOML: "):
        parse_text(text, "f.toml")


def test_files_that_cannot_be_read(tmp_path: Path) -> None:
    binary = tmp_path / "b.toml"
    binary.write_bytes(b'[[check]]\nname = "\xff"\n')
    with pytest.raises(SpecError, match=r"b\.toml:2: .*UTF-8"):
        parse(binary)
    with pytest.raises(SpecError, match=r"missing\.toml:1: cannot read"):
        parse(tmp_path / "missing.toml")


def test_line_index_handles_multiline_values() -> None:
    text = textwrap.dedent('''\
        [[check]]
        name = """a
        [[check]]
        kind = 1"""
        layout = [
          1, # ]
          "]",
        ]
        shape = 3

        [check.grid]
        'n' = [1]
        [[check]]
        "name" . x = 2
        ''')
    index = LineIndex.of(text)
    assert len(index.checks) == 2
    assert [index.check(0, k) for k in ("name", "layout", "shape", "grid")] == [2, 5, 9, 11]
    assert index.check(0, "grid", "n") == 12
    assert (index.check(1), index.check(1, "name"), index.check(1, "name", "x")) == (13, 14, 14)


# ---------------------------------------------------------------------- code execution


FUNCTION_SPEC = """\
[[check]]
name = "lane through a Python reference"
kind = "equivalence"
layout = '{"bases": {"lane": [[1], [2]]}, "out_dims": {"dim0": 4}}'
reference_function = "spec_refs_for_tests:identity"
"""


def test_reference_function_needs_allow_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "spec_refs_for_tests.py"
    module.write_text(
        "import pathlib\npathlib.Path(__file__).with_name('imported').write_text('yes')\n"
        "def identity(ops, lane):\n    return {'dim0': lane}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SpecError, match=r"^s\.toml:5: 'reference_function' .*--allow-code"):
        parse_text(FUNCTION_SPEC, "s.toml")
    assert not (tmp_path / "imported").exists()  # nothing was imported
    ob = _one(FUNCTION_SPEC, allow_code=True)
    assert ob.reference == Call(load_function, "spec_refs_for_tests:identity")
    assert run_obligation(ob).status == "proved"
    assert (tmp_path / "imported").exists()
    with pytest.raises(SpecError, match="package.module:function"):
        parse_text(
            FUNCTION_SPEC.replace("spec_refs_for_tests:", "os.system('x'):"),
            "s.toml",
            allow_code=True,
        )


# ---------------------------------------------------------------------- data, pools, files


def test_obligations_and_errors_pickle() -> None:
    obligations = [ob for f in spec_files([EXAMPLES]) for ob in parse(f)]
    assert pickle.loads(pickle.dumps(obligations)) == obligations
    error = SpecError("a.toml", 3, "bad")
    again = pickle.loads(pickle.dumps(error))
    assert (str(again), again.file, again.line, again.reason) == (str(error), "a.toml", 3, "bad")


def test_examples_pass_and_a_pool_gives_the_same_outcomes() -> None:
    files = spec_files([EXAMPLES])
    assert {f.name for f in files} >= {
        "blocked_equivalence.toml",
        "negative_controls.toml",
        "conversion.toml",
        "bank_conflicts.toml",
        "vectorization.toml",
        "swizzle.toml",
    }
    obligations = [ob for f in files for ob in parse(f)]
    assert {ob.kind for ob in obligations} == {
        "equivalence",
        "conversion",
        "bank_conflicts",
        "vectorization",
        "swizzle",
    }
    assert any(ob.expect == "refuted" for ob in obligations)
    seen: list[int] = []
    serial = run_all(obligations, progress=lambda done, total, outcome: seen.append(done))
    assert seen == list(range(1, len(obligations) + 1))
    assert all(o.passed for o in serial), [o.message for o in serial if not o.passed]
    pooled = run_all(obligations, jobs=2)
    assert [(o.name, o.status) for o in pooled] == [(o.name, o.status) for o in serial]


def test_spec_files_search(tmp_path: Path) -> None:
    (tmp_path / "a" / ".hidden").mkdir(parents=True)
    (tmp_path / "a" / "x.toml").write_text("")
    (tmp_path / "a" / "pyproject.toml").write_text("")
    (tmp_path / "a" / ".hidden" / "y.toml").write_text("")
    (tmp_path / "z.txt").write_text("")
    assert spec_files([tmp_path / "a"]) == [tmp_path / "a" / "x.toml"]
    assert spec_files([tmp_path / "z.txt", tmp_path / "z.txt"]) == [tmp_path / "z.txt"]
    with pytest.raises(LLVerifyError, match="neither a spec file nor a directory"):
        spec_files([tmp_path / "empty"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(LLVerifyError, match="holds no"):
        spec_files([tmp_path / "empty"])


# ---------------------------------------------------------------------- fuzzing

KEYS = [
    "name", "kind", "expect", "layout", "shape", "reference", "reference_layout",
    "reference_function", "method", "src", "dst", "lowering", "register", "shared", "dtype",
    "target", "max", "min_bits", "max_wavefronts", "vector", "grid", "description", "x",
]  # fmt: skip
STRINGS = [
    "equivalence", "conversion", "bank_conflicts", "vectorization", "swizzle", "proved",
    "refuted", "f16", "f8", "nvidia", "gfx950", "z3", "shared memory", ROW, COL, SWIZZLE_ROW,
    BLOCKED4, STORE_16x32, "lane", "register >> 1", "lane // 0", "{spt}", "{x}", "{", "}",
    "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [128, 64]}>", "tensor<4xf16>",
    " - register=1 -> (1)\nwhere out dims are: [dim0 (size 2)]", "os:system", "",
    '{"bases": {"lane": [[1]]}, "out_dims": {"dim0": 2}}', '{"bases": 1}', "\x00",
]  # fmt: skip

SAFE_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
toml_scalars = st.one_of(
    st.sampled_from(STRINGS),
    SAFE_TEXT,
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, 2, 4, 16, 32, 64, 128, 1 << 30, 1 << 31]),
    st.booleans(),
    st.floats(allow_nan=True),
)
toml_values = st.recursive(
    toml_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS + ["dim0", "dim1", "bases", "out_dims"]), inner,
                        max_size=3),
    ),
    max_leaves=8,
)  # fmt: skip


def _string(text: str) -> str:
    """A TOML basic string (json.dumps would write astral characters as surrogate pairs)."""
    body = "".join(
        f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F or c in '"\\' else c for c in text
    )
    return f'"{body}"'


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{_string(k)} = {_toml(v)}" for k, v in value.items()) + "}"


def _document(checks: list[dict]) -> str:
    lines = []
    for table in checks:
        lines.append("[[check]]")
        grid = table.get("grid")
        for key, value in table.items():
            if key != "grid" or not isinstance(grid, dict):
                lines.append(f"{_string(key)} = {_toml(value)}")
        if isinstance(grid, dict):
            lines.append("[check.grid]")
            lines.extend(f"{_string(k)} = {_toml(v)}" for k, v in grid.items())
    return "\n".join(lines) + "\n"


check_tables = st.fixed_dictionaries(
    {"name": st.one_of(st.just("n"), toml_values), "kind": st.one_of(st.sampled_from(
        ["equivalence", "conversion", "bank_conflicts", "vectorization", "swizzle"]),
        toml_values)},
    optional={key: toml_values for key in KEYS if key not in ("name", "kind")},
)  # fmt: skip


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(check_tables, min_size=1, max_size=3))
def test_fuzz_check_tables_only_raise_spec_errors(tables: list[dict]) -> None:
    _parse_only_spec_errors(_document(tables))


FRAGMENTS = [
    "[[check]]\n", "[check.grid]\n", "[check]\n", "name = ", "kind = ", '"equivalence"',
    '"conversion"', "layout = ", "src = ", "dst = ", "shape = [128, 64]", "reference = ",
    "{ dim0 = \"lane\" }", "\n", " ", "=", "[", "]", "{", "}", ",", '"', "'", "'''", '"""',
    "#", "1", "-", ".", "spt = [1, 2]", "true", "1979-05-27", f'"{ROW}"', f"'{COL}'",
]  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=30))
def test_fuzz_toml_ish_text_only_raises_spec_errors(pieces: list[str]) -> None:
    _parse_only_spec_errors("".join(pieces))


EXAMPLE_CHECKS = [
    check
    for p in sorted(EXAMPLES.glob("*.toml"))
    for check in tomllib.loads(p.read_text())["check"]
]


@st.composite
def mutated_checks(draw: st.DrawFn) -> dict:
    """An example check with keys deleted, replaced (by values of other checks or random
    ones), added, or with one character of a string changed."""
    check = dict(draw(st.sampled_from(EXAMPLE_CHECKS)))
    donors = [value for other in EXAMPLE_CHECKS for value in other.values()]
    for _ in range(draw(st.integers(1, 2))):
        keys = sorted(set(check) - {"name", "kind"}) or ["shape"]
        key = draw(st.sampled_from(keys) | st.sampled_from(KEYS[2:]))
        action = draw(st.sampled_from(["delete", "donor", "random", "edit"]))
        if action == "delete":
            check.pop(key, None)
        elif action == "donor":
            check[key] = draw(st.sampled_from(donors))
        elif action == "random":
            check[key] = draw(toml_values)
        elif isinstance(check.get(key), str) and check[key]:
            text = check[key]
            at = draw(st.integers(0, len(text) - 1))
            check[key] = (
                text[:at] + draw(st.sampled_from(list("0123456789[]{},=x-#. "))) + (text[at + 1 :])
            )
    return check


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutated_checks(), min_size=1, max_size=2))
def test_fuzz_mutated_examples_only_raise_spec_errors(checks: list[dict]) -> None:
    obligations = _parse_only_spec_errors(_document(checks))
    for ob in obligations[:2]:  # what parses also runs without an internal error
        outcome = run_obligation(ob, timeout_s=5)
        assert "internal error" not in outcome.message, outcome.message


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([p.read_text() for p in sorted(EXAMPLES.glob("*.toml"))]),
    st.lists(
        st.tuples(st.floats(0, 1), st.integers(0, 6), st.sampled_from(FRAGMENTS + [""])),
        min_size=1,
        max_size=2,
    ),
)
def test_fuzz_edited_example_text_only_raises_spec_errors(
    text: str, edits: list[tuple[float, int, str]]
) -> None:
    for where, cut, insert in edits:
        at = int(where * len(text))
        text = text[:at] + insert + text[at + cut :]
    _parse_only_spec_errors(text)


def _parse_only_spec_errors(text: str) -> list[Obligation]:
    try:
        obligations = parse_text(text, "fuzz.toml")
    except SpecError as error:
        assert re.match(r"fuzz\.toml:\d+: \S", str(error)), str(error)
        assert 1 <= error.line <= text.count("\n") + 2
        return []
    for ob in obligations:
        assert isinstance(ob, Obligation)
        assert pickle.loads(pickle.dumps(ob)) == ob
    return obligations


# ---------------------------------------------------------------------- the pytest plugin


PLUGIN_SPEC = f"""\
[[check]]
name = "blocked closed form"
kind = "equivalence"
layout = '{BLOCKED4}'
shape = [128, 64]
reference = {{ dim0 = "(lane // 8) + 4 * warp + 16 * (register // 8)", dim1 = "register % 4 + 4 * (lane % 8) + 32 * ((register // 4) % 2)" }}

[[check]]
name = "forgot the repetition"
kind = "equivalence"
layout = '{BLOCKED4}'
shape = [128, 64]
reference = {{ dim0 = "(lane // 8) + 4 * warp + 16 * (register // 4)", dim1 = "register % 4 + 4 * (lane % 8)" }}
"""  # noqa: E501


@pytest.fixture
def plugin_pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # load the plugin explicitly (and only once, whether or not the entry point is installed)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester


def test_pytest_plugin_collects_one_item_per_obligation(plugin_pytester: pytest.Pytester) -> None:
    plugin_pytester.makefile(".llverify.toml", x=PLUGIN_SPEC)
    plugin_pytester.makefile(".toml", ignored="this is not collected = [")
    result = plugin_pytester.runpytest("-p", "llverify.checkfiles.pytest_plugin", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*x.llverify.toml::blocked closed form PASSED*",
            "*x.llverify.toml::forgot the repetition FAILED*",
            "*x.llverify.toml:8: forgot the repetition: expected proved, got refuted*",
            "*reference says*",
        ]
    )


def test_pytest_plugin_ini_directory_and_spec_errors(plugin_pytester: pytest.Pytester) -> None:
    plugin_pytester.makeini("[pytest]\nllverify_specs = checks\n")
    checks = plugin_pytester.mkdir("checks")
    negative = PLUGIN_SPEC.replace(
        'name = "forgot the repetition"\n', 'name = "forgot the repetition"\nexpect = "refuted"\n'
    )
    (checks / "a.toml").write_text(negative)
    result = plugin_pytester.runpytest("-p", "llverify.checkfiles.pytest_plugin")
    result.assert_outcomes(passed=2)
    (checks / "b.toml").write_text('[[check]]\nname = "x"\nkind = "nope"\n')
    result = plugin_pytester.runpytest("-p", "llverify.checkfiles.pytest_plugin")
    result.stdout.fnmatch_lines(["*b.toml:3: unknown kind 'nope'*"])
    assert result.ret != 0


def test_builtin_reference(tmp_path: Path) -> None:
    from llverify.checkfiles import SpecError, parse, run_all

    root = Path(__file__).resolve().parent.parent
    obligations = parse(root / "llverify" / "specs" / "examples" / "builtin_reference.toml")
    assert len(obligations) == 4
    assert all(o.passed for o in run_all(obligations))
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[[check]]\nname = "mma"\nkind = "equivalence"\n'
        'layout = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], '
        'instrShape = [16, 8]}>"\nshape = [64, 64]\nreference = "builtin"\n'
    )
    with pytest.raises(SpecError, match=r"bad.toml:6: .*builtin.*blocked"):
        parse(bad)
