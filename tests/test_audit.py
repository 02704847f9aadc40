"""``llverify audit`` on real kernels compiled by Triton 3.9 on the CPU (tests/data/ttgir,
scripts/gen_ttgir_fixtures.py): every convert_layout proved, every shared access costed and
its Triton-model count equal to Triton's own ``ttgl.bank_conflicts``; robust parsing, rule
gates and negative controls on small modules."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cases.access import run_bank_oracle
from cases.triton import require_triton
from llverify.audit.analyze import audit
from llverify.errors import ParseError
from llverify.proof.verdict import Status, Verdict
from llverify.ttgir import ModuleError, parse_module

DATA = Path(__file__).parent / "data" / "ttgir"
KERNELS = sorted(DATA.glob("*.ttgir"))
FAST = [k for k in KERNELS if "gfx942" not in k.name or "transpose" not in k.name]

BLOCKED = (
    "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
HEADER = (
    "#b = {b}\n#s = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}}>\n"
    '#smem = #ttg.shared_memory\n#loc = loc("k.py":1:1)\n#loc1 = loc("k.py":7:3)\n'
    'module attributes {{"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
    '"ttg.threads-per-warp" = 32 : i32}} {{\n'
)


def _module(body: str, blocked: str = BLOCKED) -> str:
    return HEADER.format(b=blocked) + body + "\n}\n"


def _function(body: str, arguments: str) -> str:
    """``body`` in a function whose ``arguments`` define the values it uses (audit and
    validate refuse a module that uses an undefined value)."""
    return f"  tt.func @k({arguments}) {{\n{body}\n    tt.return\n  }}"


def test_fixtures_exist() -> None:
    names = {k.name for k in KERNELS}
    assert len(KERNELS) >= 15
    for part in (
        "matmul_fp16_sm80",
        "matmul_fp16_sm90",
        "matmul_fp16_gfx942",
        "attn_fwd",
        "softmax",
        "layernorm",
        "transpose",
        "gather",
        "broadcast_reduce",
        "big_2000",
    ):
        assert any(part in n for n in names), part  # fmt: skip


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.stem for k in KERNELS])
def test_every_conversion_proved_and_every_access_costed(kernel: Path) -> None:
    report = audit(kernel.read_text())
    assert report.target in ("nvidia", "gfx942", "gfx950")
    text = kernel.read_text()
    converts = [f for f in report.findings if f.op == "ttg.convert_layout"]
    assert len(converts) == text.count("ttg.convert_layout ")
    # the conversion itself is proved; the optimal-swizzle certificate beside it may time out on
    # a loaded machine (its solver budget is wall-clock), which leaves the finding unknown
    assert all(
        f.status == "proved" or "correct and complete: proved" in f.summary for f in converts
    ), [f.summary for f in converts]
    for f in report.findings:
        assert f.status != "error", (f.op, f.line, f.summary)
        assert f.location.endswith(tuple(f":{n}" for n in range(1, 10_000))) or not f.location
        if f.op in ("ttg.local_alloc", "ttg.local_store", "ttg.local_load"):
            assert f.data["wavefronts"] > 0 and f.cost == f.data["wavefronts"]
    assert "arith.constant" in report.skipped or "tt.func" in report.skipped


def _oracle_case(finding_id: str, reg: Any, shared: Any, shape: list[int], bits: int) -> dict:
    bases = dict(reg.bases)
    return {
        "id": finding_id,
        "reg": {"reg": bases.get("register", []), "lane": bases["lane"], "warp": bases["warp"]},
        "shared": {"offset": [list(b) for b in dict(shared.bases)["offset"]]},
        "shape": shape,
        "bits": bits,
    }


def test_access_counts_match_triton_bank_conflicts() -> None:
    """For every shared access of the NVIDIA kernels, the audit's Triton-model count equals
    Triton 3.9's own ttgl.bank_conflicts; the hardware count differs only where the
    sub-word rule says so (and is then larger)."""
    require_triton()
    from llverify.encodings import to_linear_layout
    from llverify.layout_utils import action_remove_broadcasted_regs

    cases, expected = [], {}
    for kernel in KERNELS:
        module = parse_module(kernel.read_text())
        if not (module.target or "").startswith("cuda"):
            continue
        report = audit("", module=module)
        ops = {op.line: op for op in module.ops}
        for f in report.findings:
            if f.op not in ("ttg.local_alloc", "ttg.local_store", "ttg.local_load"):
                continue
            op = ops[f.line]
            tensor = [t for t in op.types if t.kind == "tensor"][0]
            memdesc = [t for t in op.types if t.kind == "memdesc"][0]
            if memdesc.encoding.startswith("#ttg.padded_shared") or memdesc.shape != tensor.shape:
                continue
            if memdesc.alloc_shape != memdesc.shape:  # a subslice: Triton's count is NYI
                continue
            reg = to_linear_layout(tensor.encoding, list(tensor.shape))
            reg = action_remove_broadcasted_regs(reg).apply(reg)
            shared = to_linear_layout(memdesc.encoding, list(tensor.shape))
            key = f"{kernel.stem}:{f.line}"
            cases.append(_oracle_case(key, reg, shared, list(tensor.shape), tensor.bits))
            expected[key] = f
    assert len(cases) >= 40
    results = run_bank_oracle(cases)
    compared = 0
    for key, f in expected.items():
        row = results[key]
        if "bank" not in row:
            continue
        compared += 1
        assert f.data["triton_conflicts"] == row["bank"], (key, f.summary, row)
        if f.data["differs_from_triton"]:
            assert f.data["conflicts"] > row["bank"], key
        else:
            assert f.data["conflicts"] == row["bank"], key
    assert compared >= 40


def test_the_2000_line_module() -> None:
    kernel = DATA / "big_2000.ttgir"
    report = audit(kernel.read_text())
    assert report.lines >= 2000
    assert sum(f.op == "ttg.convert_layout" for f in report.findings) >= 100


def test_duplicated_data_is_flagged() -> None:
    # 2x8 tensor on 128 threads: lanes and warps hold copies
    body = (
        '  %0 = "tt.reduce"(%x) <{axis = 1 : i32}> ({\n'
        "  ^bb0(%a: f32, %b: f32):\n    %s = arith.addf %a, %b : f32\n"
        "    tt.reduce.return %s : f32\n"
        "  }) : (tensor<2x8xf32, #b>) -> tensor<2xf32, #ttg.slice<{dim = 1, parent = #b}>> "
        "loc(#loc1)\n"
        "  tt.store %p, %v : tensor<2x8x!tt.ptr<f32>, #b> loc(#loc1)"
    )
    report = audit(_module(body))
    flagged = {f.op: f for f in report.findings if f.rule in ("copies", "store-writer")}
    assert set(flagged) == {"tt.reduce", "tt.store"}
    assert flagged["tt.reduce"].data["operand"] == {"lane": 24, "warp": 3}
    assert "combines each element once" in flagged["tt.reduce"].summary
    assert (
        "written once, by lane & 0b11000 == 0 and warp & 0b11 == 0" in flagged["tt.store"].summary
    )
    assert flagged["tt.reduce"].location == "k.py:7"
    ok = audit(_module(body.replace("2x8", "32x32").replace("tensor<2xf32", "tensor<32xf32")))
    assert all(f.status == "ok" for f in ok.findings)
    assert all(f.data.get("operand", {}) == {} for f in ok.findings)


def test_dot_operand_mismatch_is_an_error() -> None:
    mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"  # noqa: E501
    a = f"#ttg.dot_op<{{opIdx = 0, parent = {mma}, kWidth = 2}}>"
    b = f"#ttg.dot_op<{{opIdx = 1, parent = {mma}, kWidth = 2}}>"
    line = (
        "  %c = tt.dot %a, %b, %acc : tensor<64x32xf16, {a}> * tensor<32x64xf16, {b}> -> "
        f"tensor<64x64xf32, {mma}> loc(#loc1)"
    )
    good = audit(_module(line.replace("{a}", a).replace("{b}", b)))
    assert [f.status for f in good.findings] == ["ok", "proved"]  # encoding, fragment
    bad = audit(_module(line.replace("{a}", b).replace("{b}", a)))
    assert bad.findings[0].status == "error" and "opIdx" in bad.findings[0].summary


def test_malformed_modules_name_line_and_column() -> None:
    with pytest.raises(ParseError, match=r"line 7, column \d+: .*#nope"):
        parse_module(_module("  %0 = ttg.convert_layout %x : tensor<4x4xf16, #nope> -> "
                             "tensor<4x4xf16, #b> loc(#loc1)"))  # fmt: skip
    with pytest.raises(ParseError, match=r"line 7, column \d+: unbalanced"):
        parse_module(_module("  %0 = ttg.convert_layout %x : tensor<4x4xf16, #b -> x"))
    unknown = audit(_module("  %0 = mydialect.magic %x {weird = #foo.bar<1>} : i32"))
    assert unknown.findings == [] and unknown.skipped == {"mydialect.magic": 1}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "llverify.cli", "audit", *args],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_cli_table_json_and_gates(tmp_path: Path) -> None:
    kernel = DATA / "matmul_fp16_sm80.ttgir"
    out = _cli(str(kernel), "--require-proofs")
    assert out.returncode == 0, out.stderr
    assert "ttg.convert_layout" in out.stdout and "operations no rule applies to" in out.stdout
    assert "layout-sensitive operations checked" in out.stdout
    report = json.loads(_cli(str(kernel), "--json").stdout)
    costs = [f["cost"] for f in report["findings"]]
    assert costs == sorted(costs, reverse=True)
    # a 32-way conflicting load (row-major f32 tile loaded by columns): the gate fails
    col = (
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], "
        "order = [0, 1]}>"
    )
    body = (
        "  %m = ttg.local_alloc %x : (tensor<32x32xf32, #b>) -> !ttg.memdesc<32x32xf32, #s, #smem> "
        "loc(#loc1)\n"
        "  %y = ttg.local_load %m : !ttg.memdesc<32x32xf32, #s, #smem> -> "
        f"tensor<32x32xf32, {col}> loc(#loc1)"
    )
    path = tmp_path / "conflict.ttgir"
    path.write_text(_module(_function(body, "%x: tensor<32x32xf32, #b>")))
    gated = _cli(str(path), "--max-bank-conflicts", "0")
    assert gated.returncode == 1 and "VIOLATION" in gated.stdout, gated.stdout
    assert "a certified better shared layout saves" in gated.stdout
    bad = tmp_path / "bad.ttgir"
    bad.write_text(_module("  %0 = ttg.convert_layout %x : tensor<4x4xf16, #nope> -> x"))
    broken = _cli(str(bad))
    assert broken.returncode == 2 and f"{bad}:7:" in broken.stderr
    assert "Traceback" not in broken.stderr


# ---------------------------------------------------------------------- truncated modules

SMALL = [k for k in KERNELS if k.name != "big_2000.ttgir"]
MID_LINE = [DATA / f"{n}.ttgir" for n in ("gather_fp32_sm80", "transpose_fp16_gfx942",
                                           "matmul_fp16_sm90", "attn_fwd_fp16_sm80")]  # fmt: skip


def _line_ends(text: str) -> list[int]:
    ends, pos = [], 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        ends.append(pos)
    return ends


def _mid_line_cuts(text: str) -> list[int]:
    """Three cuts inside every line: after its first character, in its middle, before its
    last character."""
    cuts, start = [], 0
    for end in _line_ends(text):
        cuts += [start + 1, (start + end) // 2, end - 2]
        start = end
    return cuts


def _assert_refused(text: str, cuts: list[int]) -> int:
    """Every cut of ``text`` (other than the whole text) raises ModuleError with a line."""
    checked = 0
    for cut in cuts:
        part = text[:cut]
        if part.rstrip() == text.rstrip():
            continue
        with pytest.raises(ModuleError) as info:
            parse_module(part)
        assert 1 <= info.value.line <= part.count("\n") + 1, (cut, str(info.value))
        checked += 1
    return checked


@pytest.mark.parametrize("kernel", SMALL, ids=[k.stem for k in SMALL])
def test_a_module_cut_at_any_line_break_is_refused(kernel: Path) -> None:
    """``head -n K`` of a fixture, for every K: never audited as if whole (issue 18)."""
    text = kernel.read_text()
    assert _assert_refused(text, [0, *_line_ends(text)]) >= text.count("\n") - 1


@pytest.mark.parametrize("kernel", MID_LINE, ids=[k.stem for k in MID_LINE])
def test_a_module_cut_inside_a_line_is_refused(kernel: Path) -> None:
    text = kernel.read_text()
    assert _assert_refused(text, _mid_line_cuts(text)) >= 3 * text.count("\n") - 3


def test_the_2000_line_module_cut_is_refused() -> None:
    text = (DATA / "big_2000.ttgir").read_text()
    ends = _line_ends(text)
    cuts = ends[:: len(ends) // 12] + _mid_line_cuts(text)[:: len(ends) // 4] + [len(text) - 3]
    assert _assert_refused(text, cuts) >= 24


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "line 1: the text has no 'module'"),
        ("#b = #ttg.blocked<{}>\n", "line 1: the text has no 'module'"),
        ('module attributes {ttg.target = "cuda:90"}\n', "line 1: the module has no region"),
        (
            "module {\n  %0 = tt.foo\n",
            "line 1, column 8: '{' is never closed: the text ends at line 2",
        ),  # fmt: skip
        ('module {\n  %0 = tt.foo {s = "ab\n}\n', "line 2, column 20: unterminated string"),
        ("module {\n  %0 = tt.foo (]\n}\n", "line 2, column 15: unbalanced '\\('"),
        ("#a = loc(x))\nmodule {\n}\n", "line 1, column 12: unbalanced '\\)' \\(it closes nothing"),
        ("module {\n}\n}\n", "line 3: expected an alias definition or a module"),
        ("module {\n} lo\n", "line 2, column 2: unexpected 'lo' after the closing brace"),
        ("module {\n} loc(#loc)\n#loc = lo\n", "line 3: the alias definition .* no complete"),
        ("module {\n} loc(#loc)\n#lo\n", "line 3: expected an alias definition or a module"),
        (
            "module {\n} loc(#loc9)\n#loc = loc(unknown)\n",
            "line 2, column 7: attribute alias #loc9 is used but never defined",
        ),  # fmt: skip
    ],
)
def test_malformed_module_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(ModuleError, match=message):
        parse_module(text)


def test_whole_modules_in_other_forms_are_accepted() -> None:
    for text in (
        "module {\n}",  # no final newline, no location
        '// a comment\nmodule {\n  %0 = tt.foo {s = "a -> b } \\" ("} : i32 -> i32\n}\n',
        "#set = affine_set<(d0) : (d0 - 10 >= 0)>\n!t = !tt.ptr<f16>\nmodule {\n}\n{-#\n  x: {}\n#-}\n",  # noqa: E501
    ):
        parse_module(text)


def _main(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from llverify.cli.main import main

    code = main(["audit", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("kernel", SMALL, ids=[k.stem for k in SMALL])
def test_cli_refuses_truncated_files_with_file_and_line(
    kernel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2 with FILE:LINE, nothing on stdout, for cuts at a line break and inside a line
    (a CI gate never passes a file it did not read whole)."""
    text = kernel.read_text()
    ends = _line_ends(text)
    path = tmp_path / kernel.name
    for cut in (ends[len(ends) // 2], ends[-3], ends[-1] - 3, len(text) // 3, 1):
        path.write_text(text[:cut])
        code, out, err = _main(str(path), capsys=capsys)
        assert code == 2 and out == "", (cut, out, err)
        assert re.match(rf"llverify: error: {re.escape(str(path))}:\d+(:\d+)?: ", err), err
        assert len(err.splitlines()) == 1, err


def test_cli_head_121_exits_2_in_a_subprocess(tmp_path: Path) -> None:
    path = tmp_path / "cut.ttgir"
    lines = (DATA / "attn_fwd_fp16_sm80.ttgir").read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:121]))
    out = _cli(str(path), "--require-proofs")
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert f"{path}:" in out.stderr and "never closed" in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


# ---------------------------------------------------------------------- exit codes and attributes

CONVERT = (
    "  %0 = ttg.convert_layout %x : tensor<32x32xf16, #b> -> tensor<32x32xf16, "
    "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [0, 1]}>> loc(#loc1)"
)


def test_cli_refuted_conversion_exits_1_and_the_row_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refuted convert_layout exited 0 unless --require-proofs was given (issue 18): now 1
    with or without it, the counterexample in the text row and the JSON."""
    from llverify.conversion import Conversion

    refuted = Verdict(
        Status.REFUTED, "dst(cvt(x)) == src(x) for every hardware index x", "gf2", 0.0,
        {"register": 2, "lane": 0}, {"dim0": 1, "dim1": 0}, {"dim0": 0, "dim1": 2},
    )  # fmt: skip
    monkeypatch.setattr(Conversion, "verify", lambda self: refuted)
    path = tmp_path / "refuted.ttgir"
    path.write_text(_module(_function(CONVERT, "%x: tensor<32x32xf16, #b>")))
    for flags in ((), ("--require-proofs",)):
        code, out, _ = _main(str(path), *flags, capsys=capsys)
        assert code == 1, out
        (row,) = [line for line in out.splitlines() if line.lstrip().startswith("0  refuted")]
        assert "dst(cvt(x)) == src(x)" in row and "register=2, lane=0 -> (1, 0)" in row, row
        assert "VIOLATION" in out
    code, out, _ = _main(str(path), "--json", capsys=capsys)
    report = json.loads(out)
    assert code == 1 and report["exit_code"] == 1 and report["violations"]
    assert "register=2, lane=0" in report["findings"][0]["summary"]


def test_cli_unknown_conversion_exits_3_only_with_require_proofs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from llverify.conversion import Conversion

    unknown = Verdict(Status.UNKNOWN, "coverage", "z3", 0.0, reason="solver timeout")
    monkeypatch.setattr(Conversion, "coverage", lambda self: unknown)
    path = tmp_path / "unknown.ttgir"
    path.write_text(_module(_function(CONVERT, "%x: tensor<32x32xf16, #b>")))
    code, out, _ = _main(str(path), capsys=capsys)
    assert code == 0 and "unknown" in out and "solver timeout" in out
    code, out, _ = _main(str(path), "--require-proofs", capsys=capsys)
    assert code == 3 and "VIOLATION" not in out


@pytest.mark.parametrize("quote", ["", '"'], ids=["bare", "quoted"])
def test_module_attribute_names_quoted_or_not(quote: str) -> None:
    """``"ttg.target" = "cuda:90"`` was not recognised (issue 18)."""
    names = ["ttg.num-warps", "ttg.target", "ttg.threads-per-warp", "ttg.num-ctas"]
    a, b, c, d = (f"{quote}{name}{quote}" for name in names)
    text = (
        f'module attributes {{{a} = 4 : i32, {b} = "cuda:90", {c} = 32 : i32, {d} = 1 : i32}} '
        "{\n}\n"
    )
    module = parse_module(text)
    assert (module.target, module.num_warps, module.threads_per_warp, module.num_ctas) == (
        "cuda:90", 4, 32, 1,
    )  # fmt: skip
    assert audit(text).target == "nvidia"
