"""TTGIR spelled for Triton 2.1-3.2 (llverify.ttgir.spelling): which releases print a text,
and the old spelling read in 3.9's, line for line, so that those modules are audited and
validated per op.

Oracle: the TTGIR that Triton 2.1.0, 2.3.1, 3.0.0 and 3.2.0 printed for two kernels
(tests/data/ttgir/old_spelling, README there), and the new-spelling fixtures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.cli.main import main
from llverify.emitted.harness import build_harness
from llverify.emitted.validate import validate_module
from llverify.triton.releases import release_pythons
from llverify.ttgir import parse_module, spelling_releases
from llverify.ttgir.spelling import normalise_spelling, old_spelling

DATA = Path(__file__).parent / "data" / "ttgir"
OLD = DATA / "old_spelling"
RELEASES = release_pythons()

SPELLED = {
    "scan_rows_i32_sm80.triton-2.1.0": ((2, 1), (2, 1)),
    "chained_dot_i8_sm80.triton-2.3.1": ((2, 2), (2, 3)),
    "scan_rows_i32_sm80.triton-3.0.0": ((3, 0), (3, 2)),
    "chained_dot_i8_sm80.triton-3.2.0": ((3, 0), (3, 2)),
}


@pytest.mark.parametrize("stem", sorted(SPELLED))
def test_a_real_old_module_is_read_in_the_new_spelling_line_for_line(stem: str) -> None:
    text = (OLD / f"{stem}.ttgir").read_text()
    assert old_spelling(text) and spelling_releases(text) == SPELLED[stem]
    module = parse_module(text)
    assert module.normalised and module.spelling == SPELLED[stem]
    assert module.num_warps == 4 and module.lines == len(text.splitlines())
    assert module.target == (None if "2.1.0" in stem else "cuda:80")  # 2.1 names no target
    lines = text.splitlines()
    for op in module.ops:
        assert not op.name.startswith("triton_gpu.")
        short = op.name.split(".", 1)[1]  # the op sits on its own line, as written
        assert short in lines[op.line - 1], (op.line, op.name)
    new = normalise_spelling(text)
    assert "triton_gpu" not in new and "!tt.memdesc" not in new
    assert len(new.splitlines()) == len(lines)
    for type_ in (t for op in module.ops for t in op.types):
        assert "triton_gpu" not in type_.encoding


def test_each_rewrite_and_what_it_leaves_alone() -> None:
    """Every normalisation on one line, and negative controls that must stay as written."""
    cases = {
        "%1 = tt.expand_dims %0 {axis = 1 : i32} : (tensor<4xi32, #s>) -> tensor<4x1xi32, #b>":
            "%1 = tt.expand_dims %0 {axis = 1 : i32} : tensor<4xi32, #s> -> tensor<4x1xi32, #b>",
        "%a = triton_gpu.local_alloc %x : (tensor<4x4xf16, #b>) -> !tt.memdesc<4x4xf16, #s>":
            "%a = ttg.local_alloc %x : (tensor<4x4xf16, #b>) -> "
            "!ttg.memdesc<4x4xf16, #s, #ttg.shared_memory>",  # local_alloc keeps (A) -> B
        "#s = #triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], "
        "hasLeadingOffset = false}>":
            "#s = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
        "#s = #triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], "
        "hasLeadingOffset = true}>":
            "#s = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
            "elementBitWidth = 16}>",
        "#m = #triton_gpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1]}>":
            "#m = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], "
            "instrShape = [16, 8]}>",
        "#b = #triton_gpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = "
        "[4], order = [0], CTAsPerCGA = [1], CTASplitNum = [1], CTAOrder = [0]}>":
            "#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
            "order = [0]}>",
        'module attributes {"triton_gpu.compute-capability" = 80 : i32} {':
            'module attributes {ttg.target = "cuda:80"} {',
        '%r = "tt.scan"(%x) <{axis = 0 : i32}> ({':
            '%r = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({',
        "%m = arith.maxf %a, %b : f32": "%m = arith.maximumf %a, %b : f32",
        # negative controls: more than one CTA, a leading offset with no nvmma equivalent,
        # a reverse scan, a 3.x memdesc with its space, a generic op's (A) -> B
        "#b = #triton_gpu.blocked<{order = [0], CTAsPerCGA = [2], CTASplitNum = [2], "
        "CTAOrder = [0]}>":
            "#b = #ttg.blocked<{order = [0], CTAsPerCGA = [2], CTASplitNum = [2], CTAOrder = [0]}>",
        "#s = #triton_gpu.shared<{vec = 8, perPhase = 2, maxPhase = 8, order = [1, 0], "
        "hasLeadingOffset = true}>":
            "#s = #ttg.shared<{vec = 8, perPhase = 2, maxPhase = 8, order = [1, 0], "
            "hasLeadingOffset = true}>",
        '%r = "tt.scan"(%x) <{axis = 0 : i32, reverse = true}> ({':
            '%r = "tt.scan"(%x) <{axis = 0 : i32, reverse = true}> ({',
        "%v = triton_gpu.local_load %a : !tt.memdesc<4xf16, #s, #smem> -> tensor<4xf16, #b>":
            "%v = ttg.local_load %a : !ttg.memdesc<4xf16, #s, #smem> -> tensor<4xf16, #b>",
        '%r = "tt.reduce"(%x) <{axis = 0 : i32}> ({ : (tensor<4xf32, #b>) -> f32':
            '%r = "tt.reduce"(%x) <{axis = 0 : i32}> ({ : (tensor<4xf32, #b>) -> f32',
    }  # fmt: skip
    for old, new in cases.items():
        assert normalise_spelling(old) == new, old


def test_the_new_spelling_is_not_rewritten() -> None:
    for path in sorted(DATA.glob("*.ttgir")):
        text = path.read_text()
        assert not old_spelling(text), path.name
        module = parse_module(text)
        assert not module.normalised and module.spelling is not None
        assert module.spelling[0] >= (3, 3)


def test_shared_encoded_tensors_of_2x_are_skipped_with_the_reason() -> None:
    module = parse_module((OLD / "chained_dot_i8_sm80.triton-2.3.1.ttgir").read_text())
    harness = build_harness(module)
    reasons = [reason for op, reason in harness.skipped if op.name == "ttg.convert_layout"]
    assert len(reasons) == 6 and all("Triton 2.x's tensor in shared memory" in r for r in reasons)
    converts = [case.op for case in harness.cases if case.op.name == "ttg.convert_layout"]
    assert len(converts) == 2  # mma -> dot_op (the int8 chained dot's) and mma -> blocked


def test_an_old_module_is_audited(capsys: pytest.CaptureFixture[str]) -> None:
    path = OLD / "chained_dot_i8_sm80.triton-3.2.0.ttgir"
    code = main(["audit", str(path), "--json"])
    out = capsys.readouterr().out
    assert code in (0, 1, 3) and "Traceback" not in out
    assert '"ttg.convert_layout"' in out or "ttg.convert_layout" in out
    assert "triton_gpu" not in re.sub(r'"source": "[^"]*"', "", out)


def test_an_old_module_is_validated_with_the_installed_triton_and_says_so() -> None:
    require_triton()
    text = (OLD / "scan_rows_i32_sm80.triton-2.1.0.ttgir").read_text()
    report = validate_module(text, source="scan 2.1.0", target="cuda:80")
    assert report.status.value == "proved" and report.counts()["proved"] == 5
    assert any(v.op == "tt.scan" for v in report.verdicts)
    (note,) = report.notes
    assert "spelled for Triton 2.1" in note
    assert f"lowering of Triton {report.triton_version}" in note
    # negative control: a 3.9-spelled module needs no such note
    plain = validate_module((DATA / "softmax_fp32_sm80.ttgir").read_text())
    assert plain.notes == []


@pytest.mark.parametrize("release", ["2.1.0", "3.0.0"])
def test_an_old_module_is_validated_by_its_own_release(release: str) -> None:
    if release not in RELEASES:
        pytest.skip(f"no Triton {release} virtualenv (CI has none)")
    text = (OLD / f"scan_rows_i32_sm80.triton-{release}.ttgir").read_text()
    report = validate_module(text, target="cuda:80", python=RELEASES[release])
    assert report.triton_version == release and report.notes == []
    assert report.status.value == "proved" and report.counts()["proved"] == 5
