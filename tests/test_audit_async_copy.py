"""Audit rule async-copy: the width Triton 3.9 picks for ttg.async_copy_global_to_local, its
refusals, and the shared writes' cost; on the fixtures, hand-written controls, and against
the cp.async / global_load_lds instructions Triton 3.9 emits (marked ``triton``)."""

from __future__ import annotations

import collections
import re
from pathlib import Path

import numpy as np
import pytest

from cases.triton import require_triton
from llverify.audit.analyze import audit
from llverify.audit.async_copy import NAME
from llverify.encodings import to_linear_layout
from llverify.proof.verdict import Status
from llverify.ttgir import parse_module

FIXTURES = Path(__file__).parent / "data" / "ttgir"
OP = "ttg.async_copy_global_to_local"
SWIZZLED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
#: 8 contiguous elements per thread, and one element per thread column
ROWS = dict(spt="[1, 8]", tpw="[4, 8]", wpc="[4, 1]", order="[1, 0]")
COLUMNS = dict(spt="[1, 1]", tpw="[32, 1]", wpc="[1, 4]", order="[0, 1]")


def module(elem: str, layout: dict[str, str], contiguity: int | None, target: str = "cuda:80",
           shared: str = SWIZZLED) -> str:  # fmt: skip
    """A 64x64 async copy from a splat pointer (Triton's axis analysis proves contiguity 1:
    the attribute alone sets maxVec) into a 64x64 buffer, 4 warps."""
    lanes = 64 if target.startswith("hip") else 32
    tpw = "[8, 8]" if lanes == 64 and layout is ROWS else layout["tpw"]
    attr = f" {{contiguity = {contiguity} : i32}}" if contiguity else ""
    return f"""#b = #ttg.blocked<{{sizePerThread = {layout["spt"]}, threadsPerWarp = {tpw}, warpsPerCTA = {layout["wpc"]}, order = {layout["order"]}}}>
#s = {shared}
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "{target}", "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @k(%p: !tt.ptr<{elem}> {{tt.divisibility = 16 : i32}}) {{
    %ptrs = tt.splat %p : !tt.ptr<{elem}> -> tensor<64x64x!tt.ptr<{elem}>, #b>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64x{elem}, #s, #smem, mutable>
    %t = ttg.async_copy_global_to_local %ptrs, %buf{attr} : tensor<64x64x!tt.ptr<{elem}>, #b> -> <64x64x{elem}, #s, #smem, mutable>
    %c = ttg.async_commit_group tokens %t
    %w = ttg.async_wait %c {{num = 0 : i32}}
    tt.return
  }}
}}
"""  # noqa: E501


def finding(text: str):
    found = [f for f in audit(text).findings if f.rule == NAME]
    assert len(found) == 1
    return found[0]


#: hand-written controls: (element, layout, contiguity, target) -> (status, bytes, copies)
CONTROLS = {
    "rows_c8": (("f16", ROWS, 8, "cuda:80"), ("ok", 16, 4)),
    "rows_c4_capped": (("f16", ROWS, 4, "cuda:80"), ("warning", 8, 8)),
    "rows_c2_capped": (("f16", ROWS, 2, "cuda:80"), ("warning", 4, 16)),
    "rows_c1_refused": (("f16", ROWS, 1, "cuda:80"), ("error", 2, None)),
    "f32_columns": (("f32", COLUMNS, 4, "cuda:80"), ("warning", 4, 32)),
    "f16_columns_abort": (("f16", COLUMNS, 8, "cuda:80"), ("error", 2, None)),
    "gfx950_rows_c8": (("f16", ROWS, 8, "hip:gfx950"), ("ok", 16, 2)),
    "gfx950_rows_c4_refused": (("f16", ROWS, 4, "hip:gfx950"), ("error", 16, None)),
    "gfx942_rows_c8_refused": (("f16", ROWS, 8, "hip:gfx942"), ("error", 16, None)),
}


@pytest.mark.parametrize("name", sorted(CONTROLS))
def test_controls(name: str) -> None:
    (elem, layout, contiguity, target), (status, nbytes, copies) = CONTROLS[name]
    f = finding(module(elem, layout, contiguity, target))
    assert str(f.status) == status, f.summary
    assert f.data["vector_bytes"] == nbytes
    assert f.data.get("copies_per_thread") == copies


def test_contiguity_caps_the_width() -> None:
    f = finding(module("f16", ROWS, 2, "cuda:80"))
    assert f.data["layout_vec"] == 8 and f.data["max_vec"] == 2
    assert "contiguity attribute (2) caps the copy at 4" in f.summary
    # 4-byte copies of 16-byte-apart lanes: the 4 rows of a warp share 8 banks (the swizzle
    # moves whole 16-byte vectors): 4-way, 3 conflicts, where 16-byte copies have none
    assert f.data["conflicts"] == 3 and not f.data["width_exact"]


def test_refusals_say_what_triton_does() -> None:
    assert (
        "smaller than 4 bytes; calculated this as 2 bytes"
        in finding(module("f16", ROWS, 1)).summary
    )
    assert (
        "nBytes == 16 || nBytes == 8 || nBytes == 4" in finding(module("f16", COLUMNS, 8)).summary
    )
    assert "strided LDS" in finding(module("f16", ROWS, 4, "hip:gfx950")).summary
    assert "no 128-bit direct-to-LDS" in finding(module("f16", ROWS, 8, "hip:gfx942")).summary


def test_column_conflicts_replayed() -> None:
    """One f32 per thread along columns into a swizzled buffer: 4-byte copies whose lanes
    land in few banks; the count is replayed from the layouts at instruction 0, warp 0."""
    f = finding(module("f32", COLUMNS, 4))
    reg = to_linear_layout(
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], "
        "warpsPerCTA = [1, 4], order = [0, 1]}>",
        [64, 64],
    )
    shared = to_linear_layout(SWIZZLED, [64, 64])
    offset_of = {}
    for off in range(64 * 64):
        offset_of[tuple(shared.apply({"offset": off, "block": 0}).values())] = off
    banks = [
        offset_of[tuple(reg.apply({"register": 0, "lane": lane, "warp": 0, "block": 0}).values())]
        % 32
        for lane in range(32)
    ]
    worst = max(np.bincount(banks, minlength=32))
    assert f.data["conflicts"] == worst - 1 > 0
    assert f.data["vector_bytes"] == 4 and str(f.status) == "warning"


def fixture_findings() -> dict[str, list]:
    found = {}
    for path in sorted(FIXTURES.glob("*.ttgir")):
        report = audit(path.read_text())
        assert not [s for s in report.skips if s.rule == NAME]
        found[path.stem] = [f for f in report.findings if f.rule == NAME]
    return found


def test_fixtures() -> None:
    found = fixture_findings()
    counts = {name: len(fs) for name, fs in found.items() if fs}
    assert sum(counts.values()) == 50
    assert counts == {
        "attn_fwd_fp16_sm80": 6, "attn_fwd_fp16_sm90": 6, "matmul_fp16_gfx950": 4,
        "matmul_fp16_sm80": 6, "matmul_fp16_sm90": 6, "matmul_fp16_sm90_ns3": 6,
        "matmul_fp8e4m3_gfx950": 4, "matmul_fp8e4m3_sm90": 3, "matmul_int8_sm80": 6,
        "matmul_int8_sm90": 3,
    }  # fmt: skip
    statuses = {str(f.status) for fs in found.values() for f in fs}
    assert statuses == {"ok"}
    inexact = [f for fs in found.values() for f in fs if not f.data["width_exact"]]
    assert len(inexact) == 3 and all(f.data["contiguity"] is None for f in inexact)
    for name in found:
        report = audit((FIXTURES / f"{name}.ttgir").read_text())
        assert not [u for u in report.coverage()["unchecked"] if u["op"] == OP]


def emitted_copies(asm: str) -> collections.Counter:
    """(source line, instruction, bytes) -> count of the copies in PTX or AMDGCN text."""
    counts: collections.Counter = collections.Counter()
    line = None
    for text in asm.splitlines():
        loc = re.match(r"\s*\.loc\s+1\s+(\d+)", text) or re.match(r"\s*;.*\.py:(\d+):", text)
        if loc:
            line = int(loc.group(1))
        cp = re.search(r"(cp\.async\.c[ag])\.shared\.global.*,\s*(0x[0-9a-f]+|\d+)\s*,", text)
        if cp:
            counts[(line, cp.group(1), int(cp.group(2), 0))] += 1
        lds = re.match(r"\s*(global_load_lds_\w+|buffer_load_\w+.*\blds\b)", text)
        if lds:
            width = {"dwordx4": 16, "dwordx3": 12, "dword": 4, "ushort": 2, "ubyte": 1}
            size = next(v for k, v in width.items() if k in lds.group(1))
            counts[(None, "lds", size)] += 1
    return counts


def predicted_copies(text: str, findings: list) -> collections.Counter:
    lines = {op.line: op for op in parse_module(text).ops}
    counts: collections.Counter = collections.Counter()
    for f in findings:
        source = int(lines[f.line].location.rsplit(":", 1)[1])
        size = f.data["vector_bytes"]
        if f.summary.startswith("cp.async"):
            counts[(source, f.summary.split()[0], size)] += f.data["copies_per_thread"]
        else:
            counts[(None, "lds", size)] += f.data["copies_per_thread"]
    return counts


@pytest.mark.triton
def test_fixtures_against_triton() -> None:
    """Per source line, the cp.async count and size per thread in Triton 3.9's PTX equal the
    predictions (AMD: the global_load_lds count and size over the kernel)."""
    require_triton()
    from llverify.triton.compile import compile_ttgir

    for name, fs in fixture_findings().items():
        if not fs:
            continue
        text = (FIXTURES / f"{name}.ttgir").read_text()
        kernel = compile_ttgir(text, parse_module(text).target)
        assert emitted_copies(kernel.ptx or kernel.amdgcn) == predicted_copies(text, fs), name


@pytest.mark.triton
@pytest.mark.parametrize("name", sorted(CONTROLS))
def test_controls_against_triton(name: str) -> None:
    """Triton 3.9 emits the predicted copies, or refuses/aborts where the rule says so."""
    require_triton()
    from llverify.triton.compile import CompileError, compile_ttgir

    (elem, layout, contiguity, target), _ = CONTROLS[name]
    text = module(elem, layout, contiguity, target)
    f = finding(text)
    if f.status is Status.ERROR:
        with pytest.raises(CompileError):
            compile_ttgir(text, target)
        return
    kernel = compile_ttgir(text, target)
    emitted = emitted_copies(kernel.ptx or kernel.amdgcn)
    assert sorted((k[1:], v) for k, v in emitted.items()) == [
        ((f.summary.split()[0] if target.startswith("cuda") else "lds", f.data["vector_bytes"]),
         f.data["copies_per_thread"])
    ]  # fmt: skip
