"""The hostile-input corpus: command lines of every subcommand and calls of the public API that
must be refused (exit 2 / a ValueError or TypeError subclass), generated from real inputs.

Values: binary, empty and whitespace, truncated (real layout text, JSON, TTGIR modules and
spec files cut at many points), huge (multi-MB files, long lines, 2**4000), deeply nested
(30,000 brackets of each kind), NaN/inf/negative/zero numbers for numeric options,
mismatched warps/lanes/blocks between two layouts, wrong types, directories and devices
(``.``, ``/``, ``/dev/null``, ``/dev/zero``, FIFOs fed binary data or an endless stream, as
``<(...)`` gives), missing paths and ``""``. Plus a few
huge-but-legal shapes (``accept``): done or refused, but within the bounds.

Every case is deterministic (seeded bytes), so ids are stable; ``tests/test_hostile_inputs.py``
runs them in ``cases.sandbox``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llverify import (
    LinearLayout,
    access_analysis,
    bank_conflicts,
    conversion,
    predict_wavefronts,
    prove_equal,
    to_linear_layout,
)
from llverify.checkfiles import parse, parse_text
from llverify.draw import (
    bank_map_picture,
    conversion_picture,
    conversion_svg,
    distributed_picture,
    distributed_svg,
    draw,
)
from llverify.shared_memory.swizzle import synthesize_swizzle

ROOT = Path(__file__).resolve().parents[2]
TTGIR = ROOT / "tests" / "data" / "ttgir"
EXAMPLES = ROOT / "llverify" / "specs" / "examples"

IN = "@IN/"  # an argument starting so names a file of the case's input folder
DEEP = 30_000  # nesting depth of the deeply nested inputs
HUGE = 4 << 20  # bytes of the huge files
ARG_MAX = 131_072  # Linux's MAX_ARG_STRLEN: longer single arguments cannot be passed
BIG = str(2**4000)
VERY_BIG = "9" * 5000  # more digits than int() converts by default

# --- seeds: real inputs that the hostile ones are made from -------------------------------

SHAPE = "128x64"
BLOCKED = (
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
BLOCKED_T = (
    "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>"
)
SHARED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
TENSOR = f"tensor<128x64xf16, {BLOCKED}>"
# the same kernel's counts must agree: these differ from BLOCKED in warps, lanes or blocks
MISMATCHED = {
    "warps": BLOCKED_T.replace("warpsPerCTA = [1, 4]", "warpsPerCTA = [1, 8]"),
    "lanes": BLOCKED_T.replace("threadsPerWarp = [8, 4]", "threadsPerWarp = [8, 8]"),
    "blocks": BLOCKED_T.replace("order = [0, 1]}>", "order = [0, 1], CGALayout = [[1, 0]]}>"),
}
_LAYOUT = to_linear_layout(BLOCKED, [128, 64])
LL_TEXT = str(_LAYOUT)
LL_JSON = _LAYOUT.to_json()
MISMATCHED_TEXT = {k: str(to_linear_layout(v, [128, 64])) for k, v in MISMATCHED.items()}


def _cuts(text: str, count: int) -> list[str]:
    """``count`` strict prefixes of ``text`` (without its trailing whitespace), spread evenly."""
    body = text.rstrip()
    return [body[: len(body) * i // (count + 1)] for i in range(1, count + 1)]


def _mid_line_cuts(text: str, marks: str, count: int) -> list[str]:
    """Prefixes of ``text`` cut just after the first of ``marks`` on ``count`` of its lines
    (evenly spread): inside a string, a bracket or a parenthesis, never at a boundary."""
    starts, offset = [], 0
    for line in text.splitlines(keepends=True):
        first = min((i for i in (line.find(m) for m in marks) if i >= 0), default=-1)
        if first >= 0:
            starts.append(offset + first + 1)
        offset += len(line)
    step = max(1, len(starts) // count)
    return [text[:i] for i in starts[step // 2 :: step][:count]]


def _binary(size: int, seed: int) -> bytes:
    """``size`` seeded random bytes (not UTF-8, with NULs)."""
    return random.Random(seed).randbytes(size)


def _not_utf8(text: str) -> bytes:
    """``text`` with one byte that is never UTF-8 in its middle."""
    data = text.encode()
    return data[: len(data) // 2] + b"\xff" + data[len(data) // 2 :]


def _nested_slice(depth: int) -> str:
    """A slice of a slice ... (``depth`` times) of BLOCKED."""
    return "#ttg.slice<{dim = 0, parent = " * depth + BLOCKED + "}>" * depth


# --- the command-line corpus ---------------------------------------------------------------


@dataclass(frozen=True)
class Pipe:
    """A named pipe instead of a file: a writer sends ``data`` (``endless``: over and over,
    until the reader closes it) once a reader opens it."""

    data: bytes
    endless: bool = False


@dataclass(frozen=True)
class Value:
    """One argument: its text on the command line and the input files it needs."""

    label: str
    arg: str
    files: tuple[tuple[str, bytes | Pipe], ...] = ()


def inline(label: str, text: str) -> Value:
    """The argument ``text`` itself."""
    return Value(label, text)


def file(label: str, content: bytes | str, name: str = "input.txt") -> Value:
    """A file ``name`` of the input folder holding ``content``."""
    data = content.encode() if isinstance(content, str) else content
    return Value(label, IN + name, ((name, data),))


@dataclass(frozen=True)
class CliCase:
    """``llverify *argv`` must exit 2 with one line on stderr (``accept``: or succeed;
    ``report``: or report an error outcome on stdout; ``gate``: or exit 1 with a VIOLATION
    line, as audit does for an operation it cannot analyse) and leave none of ``outputs`` (paths
    relative to its empty working directory) nor anything else in that directory."""

    id: str
    argv: tuple[str, ...]
    files: tuple[tuple[str, bytes | Pipe], ...] = ()
    outputs: tuple[str, ...] = ()
    accept: bool = False
    max_stdout: int | None = None
    report: bool = False  # prove: the refusal may be an error outcome in the report instead
    gate: bool = False  # audit: or exit 1 with a VIOLATION (an operation it cannot analyse)


PATHS = [
    inline("empty-string", ""),
    inline("dot", "."),
    inline("root", "/"),
    inline("dev-null", "/dev/null"),
    inline("dev-zero", "/dev/zero"),
    Value("fifo-binary", IN + "pipe", (("pipe", Pipe(_binary(4096, 6))),)),
    Value("fifo-endless", IN + "pipe", (("pipe", Pipe(b"a" * 65536, endless=True)),)),
    Value("missing", IN + "missing/input.json"),
]
CORE_LAYOUTS = [
    *PATHS,
    inline("whitespace", " \t\n "),
    file("binary-file", _binary(4096, 1), "layout.json"),
    file("not-utf8-file", _not_utf8(LL_JSON), "layout.json"),
    inline("long-truncated-text", LL_TEXT[: len(LL_TEXT) * 2 // 3]),
    inline("nested-square", "[" * DEEP),
    inline("not-utf8-argument", "\udcff\udcfe"),
]
LAYOUTS = [
    file("empty-file", b""),
    file("whitespace-file", b" \n\t\n"),
    Value("dir-binary-json", IN + "dir", (("dir/bad.json", _binary(512, 2)),)),
    Value("dir-not-utf8-text", IN + "dir", (("dir/bad.txt", _not_utf8(LL_TEXT)),)),
    inline("nested-curly", "{" * DEEP),
    inline("nested-round", "(" * DEEP),
    inline("nested-angle", "<" * DEEP),
    inline("nested-closed", "[" * DEEP + "]" * DEEP),
    inline("nested-json", '{"bases": {"register": ' + "[" * DEEP),
    file("nested-json-file", '{"bases": {"register": ' + "[" * DEEP + "]" * DEEP + "}}"),
    inline("nested-attribute", "#ttg.blocked<{sizePerThread = " + "[" * DEEP),
    inline("nested-tensor", "tensor<128x64xf16, " + "<" * DEEP),
    inline("nested-slices-3000", _nested_slice(3000)),
    file("nested-slices-30000", _nested_slice(DEEP)),
    inline("nested-text", " - register=1 -> " + "(" * DEEP),
    file("huge-file", "a" * HUGE),
    file("huge-json-line", '{"bases": {"register": [["' + "x" * HUGE + '"]]}}', "l.json"),
    file("huge-text-lines", " - register=1 -> (0, 1)\n" * (HUGE // 24)),
    inline("long-argument", "x" * (ARG_MAX - 1)),
    inline("huge-base", f'{{"bases": {{"register": [[{BIG}]]}}, "out_dims": {{"dim0": 2}}}}'),
    inline("huge-size", f'{{"bases": {{"register": [[1]]}}, "out_dims": {{"dim0": {BIG}}}}}'),
    inline("too-many-digits", f'{{"bases": {{"register": [[{VERY_BIG}]]}}, "out_dims": {{}}}}'),
    inline("float-overflow", '{"bases": {"register": [[1e400]]}, "out_dims": {"dim0": 2}}'),
    inline("huge-text-size", f" - register=1 -> (1)\nwhere out dims are: [dim0 (size {BIG})]"),
    inline("huge-text-input", f" - register={BIG} -> (1)\nwhere out dims are: [dim0 (size 2)]"),
    inline("huge-attribute", BLOCKED.replace("[4, 1]", f"[{BIG}, 1]")),
    inline("huge-tensor", TENSOR.replace("128x64", f"{BIG}x64")),
    *(
        inline(f"json-{label}", text)
        for label, text in [
            ("null", "null"),
            ("list", "[]"),
            ("string", '"bases"'),
            ("number", "42"),
            ("object", "{}"),
            ("bases-null", '{"bases": null, "out_dims": {"dim0": 2}}'),
            ("bases-list", '{"bases": [[1]], "out_dims": {"dim0": 2}}'),
            ("in-dim-string", '{"bases": {"register": "x"}, "out_dims": {"dim0": 2}}'),
            ("base-float", '{"bases": {"register": [[1.5]]}, "out_dims": {"dim0": 2}}'),
            ("base-string", '{"bases": {"register": [["1"]]}, "out_dims": {"dim0": 2}}'),
            ("base-nan", '{"bases": {"register": [[NaN]]}, "out_dims": {"dim0": 2}}'),
            ("base-inf", '{"bases": {"register": [[Infinity]]}, "out_dims": {"dim0": 2}}'),
            ("base-negative", '{"bases": {"register": [[-1]]}, "out_dims": {"dim0": 2}}'),
            ("size-string", '{"bases": {"register": [[1]]}, "out_dims": {"dim0": "2"}}'),
            ("size-float", '{"bases": {"register": [[1]]}, "out_dims": {"dim0": 2.5}}'),
            ("size-negative", '{"bases": {"register": [[1]]}, "out_dims": {"dim0": -2}}'),
            ("size-nan", '{"bases": {"register": [[1]]}, "out_dims": {"dim0": NaN}}'),
            ("out-dims-list", '{"bases": {"register": [[1]]}, "out_dims": ["dim0"]}'),
        ]
    ),
    *(inline(f"text-cut-{i}", t) for i, t in enumerate(_cuts(LL_TEXT, 4))),
    *(inline(f"text-cut-mid-{i}", t) for i, t in enumerate(_mid_line_cuts(LL_TEXT, "(>", 3))),
    *(inline(f"json-cut-{i}", t) for i, t in enumerate(_cuts(LL_JSON, 6))),
    *(inline(f"attribute-cut-{i}", t) for i, t in enumerate(_cuts(BLOCKED, 5))),
    *(inline(f"tensor-cut-{i}", t) for i, t in enumerate(_cuts(TENSOR, 3))),
    *(
        file(f"spec-layout-cut-{i}", t, "layout.json")
        for i, t in enumerate(_cuts((ROOT / "specs/layouts/mma_v2_128x128.json").read_text(), 3))
    ),
]

COMMON = ("--shape", SHAPE)
SLOTS: dict[str, Callable[[str], tuple[str, ...]]] = {
    "layout": lambda v: ("layout", v, *COMMON),
    "convert-src": lambda v: ("convert", v, BLOCKED_T, *COMMON, "--timeout", "20"),
    "convert-dst": lambda v: ("convert", BLOCKED, v, *COMMON, "--timeout", "20"),
    "bank-conflicts-reg": lambda v: ("bank-conflicts", v, SHARED, *COMMON),
    "bank-conflicts-shared": lambda v: ("bank-conflicts", BLOCKED, v, *COMMON),
    "swizzle-src": lambda v: ("swizzle", v, BLOCKED_T, *COMMON, "--timeout", "20"),
    "swizzle-dst": lambda v: ("swizzle", BLOCKED, v, *COMMON, "--timeout", "20"),
    "draw": lambda v: ("draw", v, *COMMON, "-o", "out.svg"),
    "draw-to": lambda v: ("draw", BLOCKED, "--to", v, *COMMON, "-o", "out.svg"),
    "draw-shared": lambda v: (
        "draw",
        BLOCKED,
        "--to",
        BLOCKED_T,
        "--shared",
        v,
        *COMMON,
        "-o",
        "out.svg",
    ),
    "draw-register": lambda v: ("draw", SHARED, "--register", v, *COMMON, "-o", "out.svg"),
}
OUTPUTS = ("out.svg",)


def _layout_cases() -> Iterator[CliCase]:
    """Every core value in every layout slot; the others in ``layout`` and two more slots."""
    slots = list(SLOTS)
    for value in CORE_LAYOUTS:
        for slot in slots:
            yield CliCase(f"{slot}:{value.label}", SLOTS[slot](value.arg), value.files, OUTPUTS)
    for i, value in enumerate(LAYOUTS):
        for slot in ("layout", slots[1 + i % 10], slots[1 + (i + 5) % 10]):
            yield CliCase(f"{slot}:{value.label}", SLOTS[slot](value.arg), value.files, OUTPUTS)


TIMEOUTS = ["nan", "NaN", "inf", "-inf", "-1", "0", "-0", "1e400", "1e-400", BIG, "", "abc"]
SHAPES = [
    "",
    "x",
    "128x",
    "x64",
    "0x64",
    "128x0",
    "-128x64",
    "128x-64",
    "nanx64",
    "infx64",
    "1.5x64",
    "128x64x",
    f"{BIG}x64",
    f"{VERY_BIG}x64",
    "3x64",
    "128*64",
    "1x" * 5000 + "1",
]
DTYPES = ["", "f99", "nan", "-16", "0", "3", "128", BIG, "16.0", "f16x"]
COUNTS = ["-1", "nan", "", "abc", "1.5"]


def _option_cases() -> Iterator[CliCase]:
    """NaN, inf, negative, zero, huge and wrong-typed numbers for every numeric option."""
    timed = {
        "convert": ("convert", BLOCKED, BLOCKED_T, *COMMON),
        "swizzle": ("swizzle", BLOCKED, BLOCKED_T, *COMMON),
        "draw": ("draw", BLOCKED, "--to", BLOCKED_T, *COMMON, "-o", "out.svg"),
        "audit": ("audit", IN + "k.ttgir"),
        "prove": ("prove", IN + "s.toml", "--quiet", "--junit", "j.xml", "--record", "r.json"),
        "triton-check": ("triton-check", "--quiet"),
    }
    files = (
        ("k.ttgir", (TTGIR / "transpose_fp16_sm90.ttgir").read_bytes()),
        ("s.toml", SMALL_SPEC.encode()),
    )
    outputs = ("out.svg", "j.xml", "r.json")
    for name, argv in timed.items():
        for value in TIMEOUTS:
            yield CliCase(
                f"{name}--timeout={value[:12]}", (*argv, f"--timeout={value}"), files, outputs
            )
    shaped = {
        "layout": ("layout", BLOCKED),
        "convert": ("convert", BLOCKED, BLOCKED_T, "--timeout", "20"),
        "bank-conflicts": ("bank-conflicts", BLOCKED, SHARED),
        "swizzle": ("swizzle", BLOCKED, BLOCKED_T, "--timeout", "20"),
        "draw": ("draw", BLOCKED, "-o", "out.svg"),
    }
    for name, argv in shaped.items():
        for value in SHAPES:
            yield CliCase(f"{name}--shape={value[:12]}", (*argv, f"--shape={value}"), (), OUTPUTS)
    typed = {k: v for k, v in shaped.items() if k != "layout"}
    typed["draw"] = ("draw", SHARED, "--register", BLOCKED, "-o", "out.svg")
    for name, argv in typed.items():
        for value in DTYPES:
            yield CliCase(
                f"{name}--dtype={value[:12]}", (*argv, *COMMON, f"--dtype={value}"), (), OUTPUTS
            )
    counted = {
        "bank-conflicts--max-conflicts": (
            "bank-conflicts",
            BLOCKED,
            SHARED,
            *COMMON,
            "--max-conflicts",
        ),
        "audit--max-bank-conflicts": ("audit", IN + "k.ttgir", "--max-bank-conflicts"),
        "draw--max-cells": ("draw", BLOCKED, *COMMON, "-o", "out.svg", "--max-cells"),
        "prove--jobs": ("prove", IN + "s.toml", "--quiet", "--junit", "j.xml", "--jobs"),
    }
    for name, argv in counted.items():
        for value in COUNTS:  # --max-cells 0 is every cell (issue 27: names' part)
            yield CliCase(
                f"{name}={value[:12]}", (*argv[:-1], f"{argv[-1]}={value}"), files, outputs
            )
    drawn = ("draw", BLOCKED, *COMMON, "-o", "out.svg")
    for value in ["", "abc", "0:4", "4:0,0:4", "-4:0,0:4", "0:nan,0:4", "0:4,0:4,0:4"]:
        yield CliCase(f"draw--window={value}", (*drawn, f"--window={value}"), (), OUTPUTS)
    converted = ("draw", BLOCKED, "--to", BLOCKED_T, *COMMON, "-o", "out.svg")
    for value in ["", "abc", "4:0,0:4"]:
        yield CliCase(
            f"draw--bank-window={value}", (*converted, f"--bank-window={value}"), (), OUTPUTS
        )
    for value in ["", "abc", "-1", "0"]:
        yield CliCase(f"draw--slice={value}", (*drawn, f"--slice={value}"), (), OUTPUTS)


USAGE = {
    "layout": ("layout", BLOCKED, *COMMON),
    "convert": ("convert", BLOCKED, BLOCKED_T, *COMMON),
    "bank-conflicts": ("bank-conflicts", BLOCKED, SHARED, *COMMON),
    "swizzle": ("swizzle", BLOCKED, BLOCKED_T, *COMMON),
    "prove": ("prove", IN + "missing.toml"),
    "triton-check": ("triton-check",),
    "audit": ("audit", IN + "missing.ttgir"),
    "draw": ("draw", BLOCKED, *COMMON, "-o", "out.svg"),
}


def _usage_cases() -> Iterator[CliCase]:
    """Unknown options and choices, missing and extra arguments: argparse's errors."""
    yield CliCase("no-such-command", ("frobnicate",))
    for name, argv in USAGE.items():
        yield CliCase(f"{name}:unknown-option", (*argv, "--bogus"), (), OUTPUTS)
        if name not in ("prove", "triton-check"):  # without arguments, these run everything
            yield CliCase(f"{name}:missing-argument", argv[:1], (), OUTPUTS)
        yield CliCase(f"{name}:option-without-value", (*argv, "--timeout"), (), OUTPUTS)
        if name not in ("layout", "prove"):
            yield CliCase(f"{name}:extra-argument", (*argv, "extra"), (), OUTPUTS)
        if name not in ("layout", "prove", "triton-check"):
            yield CliCase(f"{name}:bad-target", (*argv, "--target", "sm999"), (), OUTPUTS)
    yield CliCase("layout:bad-view", (*USAGE["layout"], "--view", "sideways"))
    yield CliCase("swizzle:bad-vector", (*USAGE["swizzle"], "--vector", "diagonal"))


def _mismatch_cases() -> Iterator[CliCase]:
    """Two layouts of one kernel with different warp, lane or block counts: never proved."""
    for what, other in MISMATCHED.items():
        for form, src, dst in (
            ("attribute", BLOCKED, other),
            ("text", LL_TEXT, MISMATCHED_TEXT[what]),
            ("reversed", other, BLOCKED),
        ):
            yield CliCase(f"convert:{what}-{form}", ("convert", src, dst, *COMMON))
            yield CliCase(
                f"swizzle:{what}-{form}", ("swizzle", src, dst, *COMMON, "--timeout", "20")
            )
            yield CliCase(
                f"draw-to:{what}-{form}",
                ("draw", src, "--to", dst, *COMMON, "-o", "out.svg"),
                (),
                OUTPUTS,
            )
    for what, other in MISMATCHED.items():
        module = _ttgir("transpose_fp16_sm90").replace(BLOCKED_T, other)
        yield CliCase(
            f"audit:{what}-mismatch",
            ("audit", IN + "k.ttgir"),
            (("k.ttgir", module.encode()),),
            gate=True,
        )
        spec = SMALL_SPEC_TEMPLATE.format(
            kind="conversion", src=BLOCKED, dst=other, extra='lowering = "shared memory"'
        )
        swizzle = SMALL_SPEC_TEMPLATE.format(
            kind="swizzle", src=BLOCKED, dst=other, extra='dtype = "f16"'
        )
        for label, text in (
            ("expect-proved", spec + 'expect = "proved"\n'),
            ("expect-refuted", spec + 'expect = "refuted"\n'),
            ("swizzle", swizzle),
        ):
            yield CliCase(
                f"prove:{what}-mismatch-{label}",
                ("prove", IN + "s.toml", "--quiet"),
                (("s.toml", text.encode()),),
                report=True,
            )


def _ttgir(name: str) -> str:
    """The text of the TTGIR fixture ``name``."""
    return (TTGIR / f"{name}.ttgir").read_text()


def _module_cuts(text: str) -> list[tuple[str, str]]:
    """(label, prefix) of a TTGIR module cut inside its body, at line boundaries and mid-line,
    inside the aliases before it, and mid-line in the locations after it."""
    lines = text.splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith("module"))
    last = next(i for i in range(len(lines) - 1, -1, -1) if lines[i].startswith("}"))
    cuts = []
    for k in range(4):
        at = first + 1 + (last - first - 1) * k // 4
        cuts.append((f"line-{at}", "".join(lines[:at])))
        cuts.append((f"mid-line-{at + 1}", "".join(lines[:at]) + lines[at][: len(lines[at]) // 2]))
    cuts.append(("before-module", "".join(lines[: first // 2 + 1])))
    cuts.append(("module-line", "".join(lines[:first]) + lines[first][:-4]))
    cuts.append(("closing-line", "".join(lines[:last]) + "}"))
    if last + 1 < len(lines):
        tail = lines[last + 1 + (len(lines) - last - 1) // 2]
        index = text.index(tail)
        cuts.append(("trailing-mid-line", text[: index + len(tail) // 2]))
        cuts.append(("trailing-line", text[:index]))
    return cuts


def _audit_cases() -> Iterator[CliCase]:
    """Malformed, truncated, huge and deeply nested TTGIR modules, devices and folders."""
    argv = ("audit", IN + "k.ttgir")
    transpose = _ttgir("transpose_fp16_sm90")
    values = [
        *PATHS,
        file("binary-file", _binary(4096, 3), "k.ttgir"),
        file("not-utf8-file", _not_utf8(transpose), "k.ttgir"),
        file("empty-file", b"", "k.ttgir"),
        file("whitespace-file", b"\n \t\n", "k.ttgir"),
        file("huge-garbage", "a" * HUGE, "k.ttgir"),
        file("huge-trailer", transpose + "a" * HUGE, "k.ttgir"),
        file("nested-braces", transpose.replace("tt.return", "{" * DEEP), "k.ttgir"),
        file(
            "nested-angles",
            transpose.replace("#ttg.blocked<", "#ttg.blocked<" + "<" * DEEP),
            "k.ttgir",
        ),
        file(
            "nested-parens",
            transpose.replace("tt.return loc(", "tt.return loc(" + "(" * DEEP),
            "k.ttgir",
        ),
        file(
            "huge-num-warps",
            transpose.replace('"ttg.num-warps" = 4', f'"ttg.num-warps" = {BIG}'),
            "k.ttgir",
        ),
        file(
            "huge-tensor",
            transpose.replace(
                "tensor<64x64xf16, #blocked1> -> tensor<64x64xf16",
                f"tensor<{BIG}x64xf16, #blocked1> -> tensor<{BIG}x64xf16",
            ),
            "k.ttgir",
        ),
        file(
            "negative-tensor",
            transpose.replace(
                "tensor<64x64xf16, #blocked1> -> tensor<64x64x",
                "tensor<-64x64xf16, #blocked1> -> tensor<-64x64x",
            ),
            "k.ttgir",
        ),
        file("undefined-alias", transpose.replace("#blocked1 = ", "#blocked9 = "), "k.ttgir"),
    ]
    gated = ("huge-num-warps", "huge-tensor", "negative-tensor")  # invalid in one place
    for value in values:
        yield CliCase(
            f"audit:{value.label}", ("audit", value.arg), value.files, gate=value.label in gated
        )
    long_line = transpose.replace("tt.return", "tt.return" + " " * HUGE)  # legal, if huge
    yield CliCase("audit:huge-line", argv, (("k.ttgir", long_line.encode()),), accept=True)
    for name in ("transpose_fp16_sm90", "matmul_fp16_sm90", "softmax_fp16_sm80"):
        for label, text in _module_cuts(_ttgir(name)):
            yield CliCase(f"audit:{name}-cut-{label}", argv, (("k.ttgir", text.encode()),))
    head_121 = "".join(_ttgir("matmul_fp16_sm90").splitlines(keepends=True)[:121])
    yield CliCase("audit:issue-head-n-121", argv, (("k.ttgir", head_121.encode()),))


# --- issue 27: a module is valid before it gets a verdict ---------------------------------


def _invalid_module_cases() -> Iterator[CliCase]:
    """The issue's four one-line edits of a real fixture, which Triton's own parser refuses:
    ``audit`` and ``validate`` exit 2 with ``FILE:LINE:COL: ...``, never a verdict."""
    transpose = _ttgir("transpose_fp16_sm90")
    edits = {
        "convert-source-type": transpose.replace(
            "%9 = ttg.convert_layout %y : tensor<64x64xf16, #blocked1>",
            "%9 = ttg.convert_layout %y : tensor<64x64xf16, #blocked>",
        ),
        "redefined-value": transpose.replace("%7 = tt.broadcast %5", "%6 = tt.broadcast %5"),
        "undefined-value": transpose.replace(
            "%9 = ttg.convert_layout %y ", "%9 = ttg.convert_layout %nope "
        ),
        "duplicate-alias": transpose.replace(
            "#loc = loc(", BLOCKED_T.join(["#blocked = ", "\n#loc = loc("]), 1
        ),
    }
    for label, text in edits.items():
        assert text != transpose, label
        for command in ("audit", "validate"):
            yield CliCase(
                f"{command}:invalid-{label}",
                (command, IN + "k.ttgir"),
                (("k.ttgir", text.encode()),),
            )


# --- end of issue 27: a module is valid before it gets a verdict ---------------------------


SMALL_SPEC_TEMPLATE = """\
[[check]]
name = "hostile"
kind = "{kind}"
src = "{src}"
dst = "{dst}"
shape = [128, 64]
{extra}
"""
SMALL_SPEC = SMALL_SPEC_TEMPLATE.format(
    kind="conversion", src=BLOCKED, dst=BLOCKED_T, extra='lowering = "shared memory"'
)
# no --junit: its report of malformed spec files is written on purpose
PROVE_ARGV = ("prove", IN + "s.toml", "--quiet", "--record", "r.json")
PROVE_OUTPUTS = ("r.json",)
_CHECK = '[[check]]\nname = "n"\nkind = "equivalence"\nlayout = "' + BLOCKED + '"\n'


def hostile_specs() -> list[tuple[str, bytes]]:
    """(label, content) of spec files that must be refused."""
    equivalence = _CHECK + 'shape = [128, 64]\nreference = { dim0 = "0", dim1 = "0" }\n'
    swizzle = SMALL_SPEC_TEMPLATE.format(
        kind="swizzle", src=BLOCKED, dst=BLOCKED_T, extra='dtype = "f16"'
    )
    specs: list[tuple[str, str | bytes]] = [
        ("binary", _binary(4096, 4)),
        ("not-utf8", _not_utf8(SMALL_SPEC)),
        ("empty", ""),
        ("whitespace", "\n \t\n"),
        ("comment-only", "# nothing\n"),
        ("huge-garbage", "a" * HUGE),
        ("huge-name", _CHECK.replace('"n"', '"' + "n" * HUGE + '"') + "shape = [128,\n"),
        ("nested-arrays", _CHECK + "shape = " + "[" * DEEP + "]" * DEEP + "\n"),
        ("nested-arrays-open", _CHECK + "shape = " + "[" * DEEP + "\n"),
        ("nested-tables", _CHECK + "reference = " + "{ a = " * DEEP + "1" + " }" * DEEP + "\n"),
        (
            "nested-formula",
            _CHECK
            + 'shape = [128, 64]\nreference = { dim0 = "'
            + "(" * DEEP
            + "lane"
            + ")" * DEEP
            + '", dim1 = "0" }\n',
        ),
        (
            "nested-layout",
            _CHECK.replace("[1, 8]", "[" * DEEP + "1" + "]" * DEEP)
            + 'shape = [128, 64]\nreference = "builtin"\n',
        ),
        (
            "nested-slices",
            _CHECK.replace(BLOCKED, _nested_slice(DEEP)) + 'shape = [128]\nreference = "builtin"\n',
        ),
        (
            "huge-grid",
            equivalence.replace('"n"', '"n {a} {b} {c}"')
            + "[check.grid]\n"
            + "".join(f"{k} = {list(range(100))}\n" for k in "abc"),
        ),
        (
            "huge-grid-values",
            equivalence.replace('"n"', '"n {a}"')
            + "[check.grid]\n"
            + f"a = {list(range(20_000))}\n",
        ),
        ("grid-placeholder-unknown", equivalence.replace('"n"', '"n {zzz}"')),
        ("shape-huge", equivalence.replace("[128, 64]", f"[{BIG}, 64]")),
        ("shape-nan", equivalence.replace("[128, 64]", "[nan, 64]")),
        ("shape-inf", equivalence.replace("[128, 64]", "[inf, 64]")),
        ("shape-negative", equivalence.replace("[128, 64]", "[-128, 64]")),
        ("shape-zero", equivalence.replace("[128, 64]", "[0, 64]")),
        ("shape-float", equivalence.replace("[128, 64]", "[128.0, 64]")),
        ("shape-string", equivalence.replace("[128, 64]", '"128x64"')),
        ("shape-not-power-of-2", equivalence.replace("[128, 64]", "[96, 64]")),
        ("shape-empty", equivalence.replace("[128, 64]", "[]")),
        ("dtype-unknown", swizzle.replace('"f16"', '"f99"')),
        ("dtype-nan", swizzle.replace('"f16"', "nan")),
        ("dtype-huge", swizzle.replace('"f16"', BIG)),
        ("target-unknown", swizzle + 'target = "sm999"\n'),
        ("kind-unknown", equivalence.replace('"equivalence"', '"bogus"')),
        ("expect-unknown", equivalence + 'expect = "maybe"\n'),
        ("method-unknown", equivalence + 'method = "bogus"\n'),
        ("name-duplicate", equivalence + equivalence),
        ("name-not-string", equivalence.replace('"n"', "42")),
        ("unknown-key", equivalence + "frobnicate = 1\n"),
        ("missing-reference", _CHECK + "shape = [128, 64]\n"),
        ("layout-truncated", _CHECK.replace(BLOCKED, BLOCKED[:50]) + "shape = [128, 64]\n"),
        ("layout-binary", _CHECK.replace(BLOCKED, "\\u0000\\u00ff") + "shape = [128, 64]\n"),
        ("lowering-unknown", SMALL_SPEC.replace('"shared memory"', '"teleport"')),
    ]
    for path in sorted(EXAMPLES.glob("*.toml")):
        for i, text in enumerate(_mid_line_cuts(path.read_text(), '"[', 2)):
            specs.append((f"cut-{path.stem}-{i}", text))
    return [(label, s.encode() if isinstance(s, str) else s) for label, s in specs]


RECORDS = (ROOT / "proofs" / "records.json").read_text()
CHECKED = (
    "prove",
    IN + "s.toml",
    "--quiet",
    "--junit",
    "j.xml",
    "--record",
    "r.json",
    "--check-records",
)


def _prove_cases() -> Iterator[CliCase]:
    """Spec files, paths, output files and records that ``prove`` must refuse."""
    for label, content in hostile_specs():
        yield CliCase(f"prove:{label}", PROVE_ARGV, (("s.toml", content),), PROVE_OUTPUTS)
    for value in PATHS:
        if value.label == "root":
            continue  # would search the whole file system for *.toml files
        yield CliCase(
            f"prove:{value.label}",
            ("prove", value.arg, "--quiet", "--junit", "j.xml", "--record", "r.json"),
            value.files,
            PROVE_OUTPUTS,
        )
    spec = (("s.toml", SMALL_SPEC.encode()),)
    for option in ("--junit", "--record"):
        for target in ("", ".", "/", IN + "s.toml/out.json", "/dev/null/out"):
            yield CliCase(
                f"prove{option}={target}",
                ("prove", IN + "s.toml", "--quiet", option, target),
                spec,
                ("out.json",),
            )
    records = [
        ("binary", _binary(2048, 5)),
        ("truncated", RECORDS[: len(RECORDS) // 2].encode()),
        ("nested", ("[" * DEEP).encode()),
        ("null", b"null"),
        ("list", b"[]"),
        ("wrong-entry", b'{"specs/x.toml::y": 5}'),
        ("huge", ('{"x": "' + "a" * HUGE + '"').encode()),
    ]
    for label, content in records:
        yield CliCase(
            f"prove--check-records:{label}",
            (*CHECKED, IN + "records.json"),
            (*spec, ("records.json", content)),
            ("j.xml", "r.json"),
        )
    for value in PATHS:
        yield CliCase(
            f"prove--check-records:{value.label}",
            (*CHECKED, value.arg),
            (*spec, *value.files),
            ("j.xml", "r.json"),
        )


def _draw_output_cases() -> Iterator[CliCase]:
    """Output names that are not a writable picture file."""
    for target in ("", ".", "/", "/dev/null/out.svg", "out.bmp", "out", "/dev/zero/out.svg"):
        yield CliCase(
            f"draw-o={target}", ("draw", BLOCKED, *COMMON, "-o", target), (), ("out.bmp", "out")
        )


def _stress_cases() -> Iterator[CliCase]:
    """Huge but legal shapes: done or refused, within the bounds."""
    for shape in ("8192x8192", "65536x65536"):
        big = ("--shape", shape)
        yield CliCase(
            f"stress:bank-conflicts-{shape}", ("bank-conflicts", BLOCKED, SHARED, *big), accept=True
        )
        yield CliCase(
            f"stress:convert-{shape}",
            ("convert", BLOCKED, BLOCKED_T, *big, "--timeout", "20"),
            accept=True,
        )
        yield CliCase(
            f"stress:swizzle-{shape}",
            ("swizzle", BLOCKED, BLOCKED_T, *big, "--timeout", "20"),
            accept=True,
        )
        yield CliCase(f"stress:draw-{shape}", ("draw", BLOCKED, *big, "-o", "out.svg"), accept=True)
        yield CliCase(
            f"stress:layout-{shape}", ("layout", BLOCKED, *big), accept=True, max_stdout=1 << 20
        )
    yield CliCase(
        "stress:layout-1024x1024-json",
        ("layout", BLOCKED, "--shape", "1024x1024", "--json"),
        accept=True,
    )
    yield CliCase(
        "stress:layout-2^20x2^20",
        ("layout", BLOCKED, "--shape", "1048576x1048576", "--view", "none"),
        accept=True,
    )


# --- issue 27: names (dim and check names, user code, misplaced errors) ------------------

#: a Python kernel whose top-level code leaves a file in the working directory: a case that
#: exits 2 with the directory empty proves it never ran (the suite checks that)
RUNS = b"""\
open("RAN", "w").write("the kernel file ran")
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.arange(0, BLOCK))
"""
KERNEL_ARGS = ("--function", "k", "--signature", "x_ptr:*i32", "--constexpr", "BLOCK=32")
_ESCAPE = '{"bases": {"la\\u001b[2Jne": [[1]]}, "out_dims": {"d": 2}}'


def _names_cases() -> Iterator[CliCase]:
    """Issue 27's names, user code and misplaced errors: non-printable and non-NFKC dim and
    check names, ``validate KERNEL.py`` without ``--allow-code``, with a wrong ``--function``
    or dtype, a missing or piped kernel, output files in a missing directory, ``audit
    --release`` without ``--emitted``, ``draw --max-cells 0``."""
    for label, text in [
        ("dim-escape", _ESCAPE),
        ("dim-nul", '{"bases": {"lane": [[1]]}, "out_dims": {"d\\u0000": 2}}'),
        ("dim-nfkc", '{"bases": {"\u2113ane": [[1]]}, "out_dims": {"d": 2}}'),
        ("dim-bidi", '{"bases": {"a\u202eb": [[1]]}, "out_dims": {"d": 2}}'),
        ("text-escape", " - la\x1bne=1 -> (1)\nwhere out dims are: [d (size 2)]"),
    ]:
        yield CliCase(f"names:layout-{label}", ("layout", text))
    equivalence = _CHECK + 'shape = [128, 64]\nreference = "builtin"\n'
    formula = _CHECK + 'shape = [128, 64]\nreference = { dim0 = "F", dim1 = "register" }\n'
    for label, text in [
        ("check-escape", equivalence.replace('"n"', '"n\\u001b[31m"')),
        ("check-nul", equivalence.replace('"n"', '"n\\u0000"')),
        ("check-nfkc", equivalence.replace('"n"', '"\ufb01t"')),
        ("formula-nfkc", formula.replace('"F"', '"\u2113ane"')),
        ("formula-escape", formula.replace('"F"', '"lane\\u001b"')),
    ]:
        yield CliCase(
            f"names:prove-{label}", PROVE_ARGV, (("s.toml", text.encode()),), PROVE_OUTPUTS
        )
    kernel = (("k.py", RUNS),)
    validate = ("validate", IN + "k.py", *KERNEL_ARGS)
    yield CliCase("names:validate-py-without-allow-code", validate, kernel)
    yield CliCase(
        "names:validate-py-wrong-function",
        ("validate", IN + "k.py", "--allow-code", "--function", "nope"),
        kernel,
    )
    yield CliCase(
        "names:validate-py-syntax-error",
        ("validate", IN + "k.py", "--allow-code", "--function", "k"),
        (("k.py", RUNS + b"def (:\n"),),
    )
    yield CliCase(
        "names:validate-py-bad-dtype",
        (*validate[:-3], "x_ptr:*fp99", *validate[-2:], "--allow-code"),
        kernel,
    )
    yield CliCase(
        "names:validate-py-missing",
        ("validate", IN + "missing.py", "--allow-code", "--function", "k"),
    )
    yield CliCase(
        "names:validate-py-fifo",
        ("validate", IN + "k.py", "--allow-code", *KERNEL_ARGS),
        (("k.py", Pipe(RUNS)),),
    )
    module = (("k.ttgir", (TTGIR / "transpose_fp16_sm90.ttgir").read_bytes()),)
    for option in ("--release", "--python"):
        yield CliCase(
            f"names:audit{option}-without-emitted",
            ("audit", IN + "k.ttgir", option, "3.2.0"),
            module,
        )
    for label, argv in [
        ("draw-o", ("draw", BLOCKED, *COMMON, "-o", "nodir/out.svg")),
        ("prove-junit", ("prove", IN + "s.toml", "--quiet", "--junit", "nodir/j.xml")),
        ("prove-record", ("prove", IN + "s.toml", "--quiet", "--record", "nodir/r.json")),
        ("validate-junit", ("validate", IN + "d", "--whole-only", "--junit", "nodir/j.xml")),
    ]:
        files = (("s.toml", SMALL_SPEC.encode()), ("d/k.ttgir", module[0][1]))
        yield CliCase(f"names:{label}-missing-directory", argv, files, ("nodir",))
    yield CliCase(
        "names:draw--max-cells=0",
        ("draw", BLOCKED, "--shape", "32x64", "-o", "out.svg", "--max-cells", "0"),
        accept=True,
    )


def cli_cases() -> list[CliCase]:
    """The whole command-line corpus (ids unique, every argument passable to a real exec)."""
    cases = [
        *_layout_cases(),
        *_option_cases(),
        *_usage_cases(),
        *_mismatch_cases(),
        *_audit_cases(),
        *_prove_cases(),
        *_draw_output_cases(),
        *_stress_cases(),
        *_names_cases(),
        *_invalid_module_cases(),  # issue 27: a module is valid before it gets a verdict
    ]
    ids = [case.id for case in cases]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert all(len(a.encode("utf-8", "surrogateescape")) < ARG_MAX for c in cases for a in c.argv)
    return cases


# --- the API corpus ------------------------------------------------------------------------


@dataclass(frozen=True)
class ApiCase:
    """``call()`` must raise an LLVerifyError that is a ValueError or TypeError, whose message
    contains one of ``names`` (the argument) and none of ``forbid``."""

    id: str
    call: Callable[[], Any]
    names: tuple[str, ...]
    forbid: tuple[str, ...] = ()


def _nested_list(depth: int) -> Any:
    """``[[...[1]...]]``, ``depth`` + 1 lists deep."""
    value: Any = [1]
    for _ in range(depth):
        value = [value]
    return value


_NAN, _INF = float("nan"), float("inf")
_L = _LAYOUT
_S = [128, 64]
PARSE_NAMES = ("text", "line", "JSON", "json", "bases", "out_dims", "layout")
LINEAR_HUGE_SIZE = f" - register=1 -> (1)\nwhere out dims are: [dim0 (size {BIG})]"


def _api_cases() -> Iterator[ApiCase]:
    """Wrong types, bad numbers, hostile text and mismatched counts for every main entry point:
    ``LinearLayout.from_bases/from_string/from_json``, ``to_linear_layout``, ``conversion``,
    ``access_analysis``, ``bank_conflicts``, ``synthesize_swizzle``, ``predict_wavefronts``,
    ``prove_equal``, the ``draw`` functions and ``llverify.checkfiles``'s parsers."""
    fb = LinearLayout.from_bases
    reg = [("register", [[1]])]
    yield from (
        ApiCase("from_bases:bases-none", lambda: fb(None, ["dim0"]), ("bases",)),
        ApiCase("from_bases:bases-string", lambda: fb("register", ["dim0"]), ("bases",)),
        ApiCase("from_bases:bases-int", lambda: fb(42, ["dim0"]), ("bases",)),
        ApiCase(
            "from_bases:base-float",
            lambda: fb([("register", [[1.5]])], ["dim0"]),
            ("bases", "register"),
        ),
        ApiCase(
            "from_bases:base-string",
            lambda: fb([("register", [["1"]])], ["dim0"]),
            ("bases", "register"),
        ),
        ApiCase(
            "from_bases:base-nan",
            lambda: fb([("register", [[_NAN]])], ["dim0"]),
            ("bases", "register"),
        ),
        ApiCase(
            "from_bases:base-huge",
            lambda: fb([("register", [[2**4000]])], ["dim0"]),
            ("bases", "register", "dim0"),
        ),
        ApiCase(
            "from_bases:base-negative",
            lambda: fb([("register", [[-1]])], ["dim0"]),
            ("bases", "register", "dim0"),
        ),
        ApiCase(
            "from_bases:base-nested",
            lambda: fb([("register", _nested_list(DEEP))], ["d"]),
            ("bases", "register"),
        ),
        ApiCase("from_bases:in-dim-none", lambda: fb([(None, [[1]])], ["dim0"]), ("bases",)),
        ApiCase("from_bases:names-none", lambda: fb(reg, None), ("out_dim_names",)),
        ApiCase("from_bases:names-int", lambda: fb(reg, [0]), ("out_dim_names",)),
        ApiCase("from_bases:size-huge", lambda: fb(reg, ["dim0"], [2**4000]), ("out_dim_sizes",)),
        ApiCase("from_bases:size-nan", lambda: fb(reg, ["dim0"], [_NAN]), ("out_dim_sizes",)),
        ApiCase("from_bases:size-negative", lambda: fb(reg, ["dim0"], [-2]), ("out_dim_sizes",)),
        ApiCase("from_bases:size-string", lambda: fb(reg, ["dim0"], ["2"]), ("out_dim_sizes",)),
        ApiCase(
            "from_bases:surjective-string",
            lambda: fb(reg, ["dim0"], require_surjective="no"),
            ("require_surjective",),
        ),
    )
    texts = [
        ("empty", ""),
        ("whitespace", " \n"),
        ("control", "\x00\x01"),
        ("nested-square", "[" * DEEP),
        ("nested-round", " - register=1 -> " + "(" * DEEP),
        ("huge", "a" * HUGE),
        ("huge-size", LINEAR_HUGE_SIZE),
        *((f"cut-{i}", t) for i, t in enumerate(_cuts(LL_TEXT, 3))),
    ]
    for label, text in texts:
        yield ApiCase(
            f"from_string:{label}", lambda t=text: LinearLayout.from_string(t), PARSE_NAMES
        )
    for label, bad in (("none", None), ("int", 42), ("bytes", LL_TEXT.encode())):
        yield ApiCase(f"from_string:{label}", lambda b=bad: LinearLayout.from_string(b), ("text",))
    jsons = [
        ("empty", ""),
        ("null", "null"),
        ("list", "[]"),
        ("nested", "[" * DEEP + "]" * DEEP),
        ("nested-open", '{"bases": ' + "{" * DEEP),
        ("huge", "a" * HUGE),
        ("nested-bases", '{"bases": {"register": ' + "[" * DEEP + "]" * DEEP + "}}"),
        ("too-many-digits", f'{{"bases": {{"register": [[{VERY_BIG}]]}}, "out_dims": {{}}}}'),
        ("base-nan", '{"bases": {"register": [[NaN]]}, "out_dims": {"dim0": 2}}'),
        ("size-huge", f'{{"bases": {{"register": [[1]]}}, "out_dims": {{"dim0": {BIG}}}}}'),
        ("size-float", '{"bases": {"register": [[1]]}, "out_dims": {"dim0": 2.5}}'),
        *((f"cut-{i}", t) for i, t in enumerate(_cuts(LL_JSON, 3))),
    ]
    for label, text in jsons:
        yield ApiCase(f"from_json:{label}", lambda t=text: LinearLayout.from_json(t), PARSE_NAMES)
    for label, bad in (("none", None), ("int", 42)):
        yield ApiCase(f"from_json:{label}", lambda b=bad: LinearLayout.from_json(b), ("text",))
    tll = to_linear_layout
    encodings = [
        ("nested-attribute", "#ttg.blocked<{sizePerThread = " + "[" * DEEP),
        ("nested-closed", BLOCKED.replace("[1, 8]", "[" * DEEP + "1, 8" + "]" * DEEP)),
        ("nested-slices", _nested_slice(DEEP)),
        ("nested-tensor", "tensor<128x64xf16, " + "<" * DEEP),
        ("huge-attribute", BLOCKED.replace("[4, 1]", f"[{BIG}, 1]")),
        ("empty", ""),
        ("garbage", "garbage"),
        *((f"cut-{i}", t) for i, t in enumerate(_cuts(BLOCKED, 3))),
    ]
    for label, text in encodings:
        names = ("encoding", "at position", "warpsPerCTA")  # a parse error says where
        yield ApiCase(f"to_linear_layout:{label}", lambda t=text: tll(t, _S), names)
    shapes = [
        ("none", None),
        ("string", "128x64"),
        ("nan", [_NAN, 64]),
        ("inf", [_INF, 64]),
        ("float", [128.0, 64]),
        ("huge", [2**4000, 64]),
        ("negative", [-128, 64]),
        ("zero", [0, 64]),
        ("not-power-of-2", [96, 64]),
        ("rank", [128]),
        ("nested", _nested_list(DEEP)),
        ("int", 128),
    ]
    for label, shape in shapes:
        yield ApiCase(
            f"to_linear_layout:shape-{label}",
            lambda s=shape: tll(BLOCKED, s),
            ("shape",),
            ("'1'",) if label == "string" else (),
        )
    yield ApiCase(
        "to_linear_layout:tensor-shape-conflict", lambda: tll(TENSOR, [64, 64]), ("shape",)
    )
    yield ApiCase(
        "to_linear_layout:tensor-huge",
        lambda: tll(TENSOR.replace("128x", f"{BIG}x")),
        ("encoding", "shape"),
    )
    yield ApiCase("to_linear_layout:none", lambda: tll(None, _S), ("encoding",))
    yield ApiCase("to_linear_layout:int", lambda: tll(42, _S), ("encoding",))
    for what, other in MISMATCHED.items():
        for form, src, dst in (
            ("attribute", BLOCKED, other),
            ("reversed", other, BLOCKED),
            ("layout", _L, tll(other, _S)),
        ):
            yield ApiCase(
                f"conversion:{what}-{form}",
                lambda s=src, d=dst: conversion(s, d, _S),
                ("src", "dst"),
            )
            yield ApiCase(
                f"synthesize_swizzle:{what}-{form}",
                lambda s=src, d=dst: synthesize_swizzle(s, d, _S, 16, timeout_s=20),
                ("src", "dst"),
            )
            yield ApiCase(
                f"conversion_picture:{what}-{form}",
                lambda s=src, d=dst: conversion_picture(
                    s, d, shape=_S, element_bits=16, timeout_s=20
                ),
                ("src", "dst"),
            )
    yield ApiCase("conversion:src-none", lambda: conversion(None, BLOCKED_T, _S), ("src",))
    yield ApiCase("conversion:dst-garbage", lambda: conversion(BLOCKED, "garbage", _S), ("dst",))
    yield ApiCase(
        "conversion:shape-nan", lambda: conversion(BLOCKED, BLOCKED_T, [_NAN, 64]), ("shape",)
    )
    for fn_name, fn in (("access_analysis", access_analysis), ("bank_conflicts", bank_conflicts)):
        calls: list[tuple[str, Callable[[], Any], str]] = [
            ("bits-nan", lambda f=fn: f(BLOCKED, SHARED, _S, _NAN), "element_bits"),
            ("bits-zero", lambda f=fn: f(BLOCKED, SHARED, _S, 0), "element_bits"),
            ("bits-negative", lambda f=fn: f(BLOCKED, SHARED, _S, -16), "element_bits"),
            ("bits-3", lambda f=fn: f(BLOCKED, SHARED, _S, 3), "element_bits"),
            ("bits-huge", lambda f=fn: f(BLOCKED, SHARED, _S, 2**4000), "element_bits"),
            ("bits-string", lambda f=fn: f(BLOCKED, SHARED, _S, "16"), "element_bits"),
            ("target-unknown", lambda f=fn: f(BLOCKED, SHARED, _S, 16, "sm999"), "target"),
            ("target-int", lambda f=fn: f(BLOCKED, SHARED, _S, 16, 90), "target"),
            ("shape-huge", lambda f=fn: f(BLOCKED, SHARED, [2**4000, 64], 16), "shape"),
            ("shape-nan", lambda f=fn: f(BLOCKED, SHARED, [_NAN, 64], 16), "shape"),
            ("register-none", lambda f=fn: f(None, SHARED, _S, 16), "register_layout"),
            ("shared-garbage", lambda f=fn: f(BLOCKED, "garbage", _S, 16), "shared_layout"),
        ]
        for label, call, name in calls:
            yield ApiCase(f"{fn_name}:{label}", call, (name,))
    yield ApiCase(
        "access_analysis:lane-tile",
        lambda: access_analysis(BLOCKED, SHARED, _S, 16, lane_tile=[3, _NAN]),
        ("lane_tile",),
    )
    swz = synthesize_swizzle
    for label, kwargs, name in [
        ("timeout-nan", {"timeout_s": _NAN}, "timeout_s"),
        ("timeout-inf", {"timeout_s": _INF}, "timeout_s"),
        ("timeout-negative", {"timeout_s": -1}, "timeout_s"),
        ("timeout-zero", {"timeout_s": 0}, "timeout_s"),
        ("timeout-string", {"timeout_s": "60"}, "timeout_s"),
        ("vector-unknown", {"vector": "diagonal"}, "vector"),
        ("padding-string", {"padding": "yes"}, "padding"),
        ("triton-safe-string", {"triton_safe": "no"}, "triton_safe"),
        ("min-vector-3", {"min_vector": (3, 3)}, "min_vector"),
        ("src-tile-nan", {"src_tile": [_NAN, 64]}, "src_tile"),
    ]:
        yield ApiCase(
            f"synthesize_swizzle:{label}",
            lambda k=kwargs: swz(BLOCKED, BLOCKED_T, _S, 16, **k),
            (name,),
        )
    yield ApiCase(
        "synthesize_swizzle:bits-huge",
        lambda: swz(BLOCKED, BLOCKED_T, _S, 2**4000, timeout_s=20),
        ("element_bits",),
    )
    pw = predict_wavefronts
    for label, call, name in [
        ("direction", lambda: pw(BLOCKED, SHARED, _S, 16, "sideways"), "direction"),
        (
            "instruction",
            lambda: pw(BLOCKED, SHARED, _S, 16, "store", instruction="x"),
            "instruction",
        ),
        ("reps-zero", lambda: pw(BLOCKED, SHARED, _S, 16, "store", reps=0), "reps"),
        ("reps-negative", lambda: pw(BLOCKED, SHARED, _S, 16, "store", reps=-1), "reps"),
        ("reps-nan", lambda: pw(BLOCKED, SHARED, _S, 16, "store", reps=_NAN), "reps"),
        ("bits-zero", lambda: pw(BLOCKED, SHARED, _S, 0, "store"), "element_bits"),
    ]:
        yield ApiCase(f"predict_wavefronts:{label}", call, (name,))
    reference = {"dim0": "0", "dim1": "0"}
    for label, call, name in [
        ("layout-none", lambda: prove_equal(None, reference), "layout"),
        ("layout-string", lambda: prove_equal(LL_TEXT, reference), "layout"),
        ("reference-none", lambda: prove_equal(_L, None), "reference"),
        ("reference-int", lambda: prove_equal(_L, 42), "reference"),
        ("method", lambda: prove_equal(_L, reference, method="bogus"), "method"),
        ("timeout-nan", lambda: prove_equal(_L, reference, timeout_ms=_NAN), "timeout_ms"),
        ("timeout-negative", lambda: prove_equal(_L, reference, timeout_ms=-1), "timeout_ms"),
        ("timeout-zero", lambda: prove_equal(_L, reference, timeout_ms=0), "timeout_ms"),
        ("timeout-string", lambda: prove_equal(_L, reference, timeout_ms="10"), "timeout_ms"),
        ("max-exhaustive", lambda: prove_equal(_L, reference, max_exhaustive=-1), "max_exhaustive"),
        (
            "formula-nested",
            lambda: prove_equal(_L, {"dim0": "(" * DEEP + "lane" + ")" * DEEP, "dim1": "0"}),
            ("dim0", "reference"),
        ),
    ]:
        yield ApiCase(f"prove_equal:{label}", call, name if isinstance(name, tuple) else (name,))
    for label, call, name in [
        ("output-suffix", lambda: draw(BLOCKED, _S, output="out.txt"), "output"),
        ("output-empty", lambda: draw(BLOCKED, _S, output=""), "output"),
        ("output-dir", lambda: draw(BLOCKED, _S, output="."), "output"),
        ("output-not-dir", lambda: draw(BLOCKED, _S, output="/dev/null/o.svg"), "/dev/null"),
        ("max-cells-zero", lambda: draw(BLOCKED, _S, output="o.svg", max_cells=0), "max_cells"),
        ("max-cells-nan", lambda: draw(BLOCKED, _S, output="o.svg", max_cells=_NAN), "max_cells"),
        ("window", lambda: draw(BLOCKED, _S, output="o.svg", window="abc"), "window"),
        ("unknown-option", lambda: draw(BLOCKED, _S, output="o.svg", colour="red"), "colour"),
        ("value-none", lambda: draw(None, _S, output="o.svg"), "value"),
    ]:
        yield ApiCase(f"draw:{label}", call, (name,))
    for label, call, name in [
        ("distributed_picture:none", lambda: distributed_picture(None), "layout"),
        (
            "distributed_picture:max-cells",
            lambda: distributed_picture(BLOCKED, _S, max_cells=-1),
            "max_cells",
        ),
        ("distributed_svg:shape-huge", lambda: distributed_svg(BLOCKED, [2**4000, 64]), "shape"),
        (
            "bank_map_picture:bits-nan",
            lambda: bank_map_picture(SHARED, _NAN, shape=_S),
            "element_bits",
        ),
        (
            "bank_map_picture:register-garbage",
            lambda: bank_map_picture(SHARED, 16, register_layout="garbage", shape=_S),
            "register_layout",
        ),
        (
            "conversion_picture:timeout-nan",
            lambda: conversion_picture(
                BLOCKED, BLOCKED_T, shape=_S, element_bits=16, timeout_s=_NAN
            ),
            "timeout_s",
        ),
        (
            "conversion_svg:shared-garbage",
            lambda: conversion_svg(BLOCKED, BLOCKED_T, "garbage", shape=_S, element_bits=16),
            "shared",
        ),
    ]:
        yield ApiCase(label, call, (name,))
    for label, content in hostile_specs():
        if label in ("binary", "not-utf8", "empty", "whitespace", "comment-only"):
            continue  # text of no checks is a valid spec text (prove refuses running none)
        yield ApiCase(
            f"parse_text:{label}",
            lambda c=content: parse_text(c.decode(), "hostile.toml"),
            ("hostile.toml",),
        )
    for label, path in [
        ("empty", ""),
        ("dot", "."),
        ("dev-zero", "/dev/zero"),
        ("missing", "missing.toml"),
        ("none", None),
    ]:
        yield ApiCase(f"parse:{label}", lambda p=path: parse(p), ("path", path or repr(path)))


# --- issue 27: names (API) ---------------------------------------------------------------


def _names_api_cases() -> Iterator[ApiCase]:
    """Dim names that are not printable or not in NFKC normal form, in every constructor and
    through formulas: refused naming the argument, never quoting a control character raw."""
    raw = ("\x1b", "\x00", "\u202e")
    for label, name in [("escape", "la\x1b[2Jne"), ("nul", "d\x00"), ("bidi", "a\u202eb")]:
        yield ApiCase(
            f"names:from_bases-in-{label}",
            lambda n=name: LinearLayout.from_bases([(n, [[1]])], ["d"]),
            ("bases[0][0]",),
            raw,
        )
        yield ApiCase(
            f"names:constructor-out-{label}",
            lambda n=name: LinearLayout([("lane", [[1]])], [n]),
            ("out_dim_names[0]",),
            raw,
        )
        yield ApiCase(
            f"names:formula-{label}",
            lambda n=name: prove_equal(_L, {"dim0": n, "dim1": "0"}),
            ("dim0",),
            raw,
        )
    yield ApiCase(
        "names:nfkc-twin-dims",
        lambda: LinearLayout.from_bases([("lane", [[1]]), ("\u2113ane", [[2]])], ["d"]),
        ("bases[1][0]",),
    )
    lane = LinearLayout.from_bases([("lane", [[1]])], ["d"])
    yield ApiCase("names:nfkc-formula", lambda: prove_equal(lane, {"d": "\u2113ane"}), ("U+2113",))
    yield ApiCase(
        "names:rename-escape",
        lambda: lane.rename_in_dim("lane", "x\x1b"),
        ("new_name",),
        raw,
    )


API_CASES: dict[str, ApiCase] = {case.id: case for case in (*_api_cases(), *_names_api_cases())}
assert len(API_CASES) == len(list(_api_cases())) + len(list(_names_api_cases())), "unique ids"


# --- issue 27: large modules ---------------------------------------------------------------


def large_module_cli_cases() -> list[CliCase]:
    """``--max-ops`` that is no positive integer, to ``validate`` and ``audit``: exit 2."""
    transpose = _ttgir("transpose_fp16_sm90").encode()
    cases = []
    for command in ("validate", "audit"):
        for label, value in (("zero", "0"), ("negative", "-1"), ("word", "x"), ("float", "1.5")):
            cases.append(
                CliCase(
                    f"{command}--max-ops={label}",
                    (command, IN + "k.ttgir", "--max-ops", value),
                    (("k.ttgir", transpose),),
                )
            )
    return cases


def large_module_api_cases() -> list[ApiCase]:
    """``validate_module(max_ops=...)`` that is no positive int: refused before the module is
    read, naming ``max_ops``."""
    from llverify.emitted.validate import validate_module

    text = _ttgir("transpose_fp16_sm90")
    return [
        ApiCase(
            f"validate_module:max_ops-{label}",
            lambda v=value: validate_module(text, max_ops=v),
            ("max_ops",),
        )
        for label, value in (
            ("zero", 0),
            ("negative", -5),
            ("bool", True),
            ("float", 2.0),
            ("str", "10"),
        )
    ]
