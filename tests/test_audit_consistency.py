"""Audit rule module-consistency: encodings against the module's warps, threads per warp and
CTAs, and against their types' rank and shape; an inconsistent module is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from llverify.audit.analyze import audit
from llverify.proof.verdict import Status

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "ttgir"
B4 = (
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
B8 = B4.replace("warpsPerCTA = [4, 1]", "warpsPerCTA = [8, 1]")
HEADER = (
    'module attributes {{"ttg.num-warps" = {warps} : i32, ttg.target = "cuda:90", '
    '"ttg.threads-per-warp" = {threads} : i32{extra}}} {{\n'
)


def module(body: str, warps: int = 4, threads: int = 32, extra: str = "") -> str:
    return HEADER.format(warps=warps, threads=threads, extra=extra) + body + "\n}\n"


def convert(src: str, dst: str, shape: str = "64x64xf16") -> str:
    return f"  %1 = ttg.convert_layout %0 : tensor<{shape}, {src}> -> tensor<{shape}, {dst}>"


def errors(text: str) -> list[str]:
    report = audit(text)
    found = [f for f in report.findings if f.rule == "module-consistency"]
    assert all(f.status is Status.ERROR for f in found)
    if found:  # refused: nothing else was checked, nothing proved
        assert report.refused and all(f.rule == "module-consistency" for f in report.findings)
    else:
        assert report.refused is None
    return [f.summary for f in found]


def test_consistent_module_passes_and_is_counted() -> None:
    report = audit(module(convert(B4, B4.replace("[1, 4]", "[4, 1]", 1))))
    assert report.refused is None
    assert report.coverage()["by_rule"]["module-consistency"] == 1
    assert [f.rule for f in report.findings] == ["convert-layout"]


def test_mixed_warp_counts_are_refused() -> None:
    (summary,) = errors(module(convert(B4, B8)))
    assert summary == (
        "type 1 (tensor<64x64xf16, #ttg.blocked<...>>): the encoding has 8 warps, the module "
        "ttg.num-warps = 4"
    )
    (summary,) = errors(module(convert(B8, B8), warps=4))
    assert "type 0" in summary and "type 1" in summary


def test_threads_per_warp_and_ctas_mismatch() -> None:
    (summary,) = errors(module(convert(B4, B4), threads=64))
    assert "the encoding has 32 threads per warp, the module ttg.threads-per-warp = 64" in summary
    two_ctas = B4.replace(
        "order = [1, 0]",
        "order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]",
    )
    (summary,) = errors(module(convert(two_ctas, two_ctas)))
    assert "the encoding has 2 CTAs, the module ttg.num-ctas = 1" in summary
    assert errors(module(convert(two_ctas, two_ctas), extra=', "ttg.num-ctas" = 2 : i32')) == []


def test_mfma_wave64_layout_in_a_wave32_module() -> None:
    mfma = (
        "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], "
        "isTransposed = true}>"
    )
    text = module(convert(mfma, mfma, "64x64xf32")).replace("cuda:90", "hip:gfx942")
    (summary,) = errors(text)
    assert "64 threads per warp, the module ttg.threads-per-warp = 32" in summary
    assert errors(text.replace('"ttg.threads-per-warp" = 32', '"ttg.threads-per-warp" = 64')) == []


def test_rank_and_shape_mismatch() -> None:
    (summary,) = errors(module(convert(B4, B4, "64xf16")))
    assert "the encoding does not fit the type" in summary
    shared = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>"
    text = module(
        f"  %1 = ttg.local_alloc %0 : (tensor<64x64xf16, {B4}>) -> "
        f"!ttg.memdesc<64x64xf16, {shared}, #ttg.shared_memory>"
    )
    (summary,) = errors(text)
    assert "type 1 (!ttg.memdesc<64x64xf16, #ttg.swizzled_shared<...>>)" in summary


def test_multibuffered_memdesc_is_consistent() -> None:
    shared = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
    text = module(
        f"  %1 = ttg.local_alloc : () -> !ttg.memdesc<3x64x64xf16, {shared}, "
        "#ttg.shared_memory, mutable>"
    )
    assert errors(text) == []


def test_no_num_warps_is_an_error() -> None:
    text = module(convert(B4, B4)).replace('"ttg.num-warps" = 4 : i32, ', "")
    (summary,) = errors(text)
    assert "the module has no ttg.num-warps" in summary


@pytest.mark.parametrize("kernel", sorted(DATA.glob("*.ttgir")), ids=lambda p: p.stem)
def test_every_fixture_is_consistent(kernel: Path) -> None:
    report = audit(kernel.read_text())
    assert report.refused is None
    assert not [f for f in report.findings if f.rule == "module-consistency"]
    assert report.coverage()["by_rule"]["module-consistency"] > 0


def test_cli_refuses_with_exit_1_naming_op_and_rule(tmp_path: Path) -> None:
    path = tmp_path / "mixed.ttgir"
    body = f"  tt.func @k(%0: tensor<64x64xf16, {B4}>) {{\n{convert(B4, B8)}\n    tt.return\n  }}"
    path.write_text(module(body))  # %0 defined: audit refuses a module using undefined values
    run = [sys.executable, "-m", "llverify", "audit", str(path)]
    out = subprocess.run(run, capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 1, out.stderr
    assert "REFUSED" in out.stdout and "proved" not in out.stdout
    assert "VIOLATION line 3 ttg.convert_layout [module-consistency]: type 1" in out.stdout
    data = json.loads(
        subprocess.run([*run, "--json"], capture_output=True, text=True, cwd=ROOT).stdout
    )
    assert data["exit_code"] == 1 and data["refused"]
    assert data["coverage"]["unchecked"][0]["reason"] == "module refused"


def test_cli_rule_selects_rules_and_refuses_unknown_names() -> None:
    kernel = str(DATA / "matmul_fp16_sm80.ttgir")
    run = [sys.executable, "-m", "llverify", "audit", kernel, "--json"]
    out = subprocess.run([*run, "--rule", "convert-layout"], capture_output=True, text=True)
    data = json.loads(out.stdout)
    assert {f["rule"] for f in data["findings"]} == {"convert-layout"}
    assert set(data["coverage"]["by_rule"]) == {"convert-layout", "module-consistency"}
    bad = subprocess.run([*run, "--rule", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "--rule: unknown rule 'nope'" in bad.stderr
    with pytest.raises(ValueError, match="unknown rule 'nope'"):
        audit("module {}", rules=["nope"])
    with pytest.raises(TypeError, match="expected a list of rule names"):
        audit("module {}", rules="convert-layout")


def test_a_target_without_a_bank_model_is_audited_without_costs() -> None:
    """gfx1100 (RDNA3, WMMA) has no bank model: the rules that need none still run; the
    costing rules list their operations as not checked, with the reason."""
    shared = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
    b = B4.replace("threadsPerWarp = [4, 8]", "threadsPerWarp = [4, 8]")
    text = module(
        convert(b, b.replace("[1, 4]", "[4, 1]", 1))
        + f"\n  %2 = ttg.local_alloc %1 : (tensor<64x64xf16, {b}>) -> "
        f"!ttg.memdesc<64x64xf16, {shared}, #ttg.shared_memory>"
    ).replace("cuda:90", "hip:gfx1100")
    report = audit(text)
    assert report.refused is None and report.target.startswith("none (")
    (conversion,) = [f for f in report.findings if f.rule == "convert-layout"]
    assert conversion.status is Status.PROVED and "swizzle not costed" in conversion.summary
    (skip,) = [s for s in report.skips if s.rule == "shared-access"]
    assert "has no bank model" in skip.reason
    assert audit(text, target="gfx942").target == "gfx942"  # --target supplies one
    with pytest.raises(ValueError, match="--target must be one of"):
        audit(text, target="gfx1100")
