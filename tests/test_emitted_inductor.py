"""Per-op validation of real torch.compile (Inductor) kernels: what they need of the harness
and the checks (issue 25), each with a negative control.

The modules under tests/data/emitted/inductor/ are kernels of the corpus of issue 25
(PyTorch 2.11, Triton 3.6.0, sm_90), copied with their absolute paths scrubbed.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.emitted.checks import _constant_value, combine_template
from llverify.emitted.harness import build_harness
from llverify.emitted.sim.symbolic import Dag
from llverify.proof.verdict import Status
from llverify.ttgir import parse_module

DATA = Path(__file__).resolve().parent / "data" / "emitted" / "inductor"
WELFORD = DATA / "welford_batch_norm_sm90.ttgir"

_HEAD = """\
#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: !tt.ptr<f32>, %s: f32) {
"""  # noqa: E501


def _reduce_using(definitions: str, use: str) -> str:
    """A module whose reduce's region adds ``use`` (defined by ``definitions``, outside)."""
    return (
        _HEAD
        + definitions
        + """    %x = tt.splat %s : f32 -> tensor<128xf32, #b>
    %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %c: f32):
      %t = arith.addf %a, %c : f32
      %u = arith.addf %t, USE : f32
      tt.reduce.return %u : f32
    }) : (tensor<128xf32, #b>) -> f32
    tt.return
  }
}
""".replace("USE", use)
    )


# -- combine regions that capture values defined outside them (Welford) -----------------------
def test_a_welford_region_is_copied_with_the_constant_it_captures() -> None:
    module = parse_module(WELFORD.read_text())
    harness = build_harness(module)
    reduces = [c for c in harness.cases if c.op.name == "tt.reduce"]
    assert len(reduces) == 1, [(op.name, why) for op, why in harness.skipped]
    (region,) = {e.combine for e in reduces[0].expectations}
    assert region is not None
    # the region's %cst_N = arith.constant 0.0 : f32 (hoisted by MLIR to the function body)
    # now opens the region, and the combine's template reads it as the constant +0.0
    constant = region.ops[0]
    assert constant.name == "arith.constant" and constant.result_types == ("f32",)
    assert constant.results[0] in {o for op in region.ops[1:] for o in op.operands}
    start = harness.text.index('"tt.reduce"')
    body = harness.text[start : harness.text.index("})", start)]
    assert f"{constant.results[0]} = arith.constant 0.000000e+00 : f32" in body
    dag = Dag()
    templates = combine_template(region, dag)
    assert len(templates) == 3 and "0x0" in dag.describe(templates[0], 6)


def test_a_welford_module_compiles_and_every_op_gets_a_verdict() -> None:
    require_triton()
    from llverify.emitted.validate import validate_module

    report = validate_module(WELFORD.read_text())
    names = [v.op for v in report.verdicts]
    assert names.count("tt.reduce") == 1 and len(names) == 13
    for verdict in report.verdicts:
        if verdict.op != "tt.reduce":
            assert verdict.status is Status.PROVED, (verdict.description, verdict.reason)
    (reduce,) = [v for v in report.verdicts if v.op == "tt.reduce"]
    # Triton 3.9 stores the cross-warp Welford partials unpredicated (triton-lang/triton#11614):
    # lanes 2 and 3 of one warp hold the combine of the same partials in two orders and write
    # them to one shared word.  (The mirrored-order rule of #4962 cannot classify it: Triton
    # lowers the region's arith.divf to div.full.f32, which the region's fdiv does not match.)
    # The two stored values are different expressions, but div.full.f32 is an approximation
    # with no exact semantics to replay, so no input can be shown on which they differ: the
    # race is reported unknown with that reason, never refuted without a replay.
    assert reduce.status is Status.UNKNOWN, reduce.reason
    assert reduce.violation == "nondeterministic store" and "shared memory" in reduce.reason
    assert "neither proved equal nor found different" in reduce.reason
    assert "use of undeclared" not in " ".join(v.reason for v in report.verdicts)


def test_captured_pure_ops_are_copied_in_order_with_their_operands() -> None:
    text = _reduce_using(
        "    %c1 = arith.constant 1.000000e+00 : f32\n"
        "    %c2 = arith.constant 2.000000e+00 : f32\n"
        "    %k = arith.mulf %c1, %c2 : f32\n",
        "%k",
    )
    harness = build_harness(parse_module(text))
    (case,) = harness.cases
    region = case.expectations[0].combine
    assert [op.name for op in region.ops[:3]] == ["arith.constant"] * 2 + ["arith.mulf"]
    dag = Dag()
    (template,) = combine_template(region, dag)
    assert "fmul(0x3f800000, 0x40000000)" in dag.describe(template, 4)


@pytest.mark.parametrize(
    ("definitions", "use", "why"),
    [
        ("", "%s", "function or block argument"),
        (
            "    %i = tt.get_program_id x : i32\n    %f = arith.sitofp %i : i32 to f32\n",
            "%f",
            "tt.get_program_id",
        ),
        (
            "    %v = tt.load %p : !tt.ptr<f32>\n",
            "%v",
            "tt.load",
        ),
    ],
)
def test_a_region_capturing_a_runtime_value_is_not_exercised(
    definitions: str, use: str, why: str
) -> None:
    """Negative control: a capture that is no constant (a kernel argument, a program id, a
    loaded value) is a runtime value the harness does not supply: skipped with the reason."""
    harness = build_harness(parse_module(_reduce_using(definitions, use)))
    assert not harness.cases
    reasons = [reason for op, reason in harness.skipped if op.name == "tt.reduce"]
    assert len(reasons) == 1 and why in reasons[0] and "runtime value" in reasons[0]


def test_region_constants_are_read_at_their_type() -> None:
    assert _constant_value("1.000000e+00", "f32") == 0x3F800000
    assert _constant_value("1.000000e+00", "f16") == 0x3C00
    assert _constant_value("1.000000e+00", "bf16") == 0x3F80
    assert _constant_value("1.000000e+00", "f64") == 0x3FF0000000000000
    assert _constant_value("true", "i1") == 1 and _constant_value("false", "i1") == 0
    assert _constant_value("-1", "i32") == 0xFFFFFFFF
    assert _constant_value("0x7FC00000", "f32") == 0x7FC00000
    with pytest.raises(ValueError, match="cannot read the constant"):
        _constant_value("dense<1>", "f32")


# -- masked copies: only a duplicate-copy mask makes a copy ------------------------------------
SOFTMAX_BACKWARD = DATA / "softmax_backward_data_sm90.llir.gz"


def test_a_copy_the_kernels_own_tail_mask_turned_off_is_no_duplicate() -> None:
    """vit's ``triton_per_fused__softmax_backward_data_view_13`` (2 warps, rows of 65 in a
    block of 128): the store of a row's second half is predicated on ``r0_mask & xmask``;
    lane 1's masked copy there aims at row x + 1's element 0, which another lane stores with
    its own value.  That lane holds no element: not an inconsistent copy (was refuted)."""
    from llverify.emitted.dumped import validate_llvm_ir

    text = gzip.decompress(SOFTMAX_BACKWARD.read_bytes()).decode()
    report = validate_llvm_ir(text, threads=64, shared_bytes=64, arguments={"2": 2080, "3": 65})
    (verdict,) = report.verdicts
    assert verdict.status is Status.PROVED, verdict.reason


_TWO_REGISTERS = """define ptx_kernel void @k(ptr addrspace(1) %0) #0 {
  %2 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = lshr i32 %2, 1
  %4 = and i32 %2, 1
  %5 = icmp eq i32 %4, 0
  %6 = getelementptr i32, ptr addrspace(1) %0, i32 %3
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %3, ptr addrspace(1) %6, i1 %5)
  %7 = add i32 %3, 16
  %8 = getelementptr i32, ptr addrspace(1) %0, i32 %7
  %9 = VALUE
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %9, ptr addrspace(1) %8, i1 %5)
  ret void
}
attributes #0 = { "nvvm.reqntid"="32" }"""  # noqa: E501


def test_a_real_duplicate_copy_that_differs_is_still_refuted() -> None:
    """Negative control: lanes 2k and 2k + 1 hold the same two elements (a free lane bit;
    the store's predicate masks the odd lane in both registers).  An odd lane whose second
    register differs is an inconsistent copy; equal copies are proved."""
    from llverify.emitted.dumped import validate_llvm_ir

    differing = validate_llvm_ir(_TWO_REGISTERS.replace("VALUE", "add i32 %2, 100"))
    (verdict,) = differing.verdicts
    # found and replayed, but a dumped kernel cannot tell this mask from a bounds mask, and a
    # masked store writes nothing: memory safety proved, the copy reported for the per-op check
    assert verdict.status is Status.PROVED and "inconsistent copies" in verdict.reason
    assert "thread 1 (and thread 0)" in verdict.reason and "replayed" in verdict.reason
    same = validate_llvm_ir(_TWO_REGISTERS.replace("VALUE", "add i32 %3, 100"))
    assert same.status is Status.PROVED


# -- report what was seen: unwritten shared bytes read into registers that go unused ------------
_UNUSED_LDMATRIX = """define ptx_kernel void @k(ptr addrspace(1) %0) #0 {
  %2 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = mul i32 %2, 16
  %4 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %3
  STORE
  tail call void @llvm.nvvm.barrier0()
  %5 = tail call { i32, i32, i32, i32 } asm sideeffect "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r"(ptr addrspace(3) %4)
  ret void
}
attributes #0 = { "nvvm.reqntid"="32" }"""  # noqa: E501


def test_an_unused_ldmatrix_of_unwritten_shared_memory_is_noted_and_fails_require_proofs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Triton 2.1's ldmatrix read shared bytes no thread wrote into registers that went unused
    (PR #2198): not a wrong value, but seen, so reported; ``--require-proofs`` exits 3."""
    from llverify.cli.main import main
    from llverify.emitted.dumped import validate_llvm_ir

    unwritten = _UNUSED_LDMATRIX.replace("STORE", "")
    report = validate_llvm_ir(unwritten, shared_bytes=512)
    (verdict,) = report.verdicts
    assert verdict.status is Status.PROVED and report.noted
    assert "no thread wrote" in verdict.notes[0] and "ldmatrix" not in verdict.reason
    assert "call at LLVM IR line 7" in verdict.notes[0]
    assert report.to_dict()["noted"] is True
    path = tmp_path / "k.llir"
    path.write_text(unwritten)
    assert main(["validate", str(path), "--shared-bytes", "512"]) == 0
    assert "no thread wrote" in capsys.readouterr().out
    assert main(["validate", str(path), "--shared-bytes", "512", "--require-proofs"]) == 3
    # negative control: the same ldmatrix of bytes every lane wrote is plainly proved
    written = _UNUSED_LDMATRIX.replace(
        "STORE", "store <4 x i32> zeroinitializer, ptr addrspace(3) %4, align 16"
    )
    path.write_text(written)
    clean = validate_llvm_ir(written, shared_bytes=512)
    assert clean.status is Status.PROVED and not clean.noted
    assert main(["validate", str(path), "--shared-bytes", "512", "--require-proofs"]) == 0


NAN_MAX_ROW = Path(__file__).parent / "data" / "emitted" / "inductor" / "nan_max_row_sm90.ttgir"


def test_triton_39_races_on_the_nan_propagating_max_of_a_row() -> None:
    """The live bug (triton-lang/triton#11614): one 2048-element row, 8 warps, Inductor's
    NaN-propagating maximum (the combine of every softmax and logsumexp).  Triton 3.9 lets two
    lanes that hold max(x, y) and max(y, x) store to one shared word; with two NaN payloads
    (or +0 and -0) and every other element -inf, the two bytes differ: refuted with that
    replay.  (On an H200, compute-sanitizer racecheck reports write-after-write hazards for
    3.9.0's kernel of this shape with NaN payloads or signed zeros, and none for 3.7.1's.)"""
    require_triton()
    from llverify.emitted.validate import validate_module

    report = validate_module(NAN_MAX_ROW.read_text())
    (reduce,) = [v for v in report.verdicts if v.op == "tt.reduce"]
    assert reduce.status is Status.REFUTED, reduce.reason
    assert "shared memory" in reduce.reason and "replayed" in reduce.reason
    assert "every other element 0xff800000" in reduce.reason  # all -inf but the two
    assert any(p in reduce.reason for p in ("0x7fc00001", "0x80000000", "0x0,"))


SAFE_SOFTMAX = (
    Path(__file__).parent / "data" / "emitted" / "inductor" / "safe_softmax_t5_sm90.ttgir"
)


def test_a_masked_copy_holding_the_other_order_of_a_max_is_unknown_not_refuted() -> None:
    """T5's _safe_softmax (a real Inductor kernel): Triton 3.9 leaves lane 1 a masked
    duplicate of the row max lane 0 stores, combined in the other order (LLVM rewrote the
    region's ogt as olt, so the region matching cannot name the order).  On two NaN payloads
    the copies differ (replayed), but the masked one is never stored: no wrong value is
    written, so the reduce is unknown citing triton-lang/triton#4962, never refuted."""
    require_triton()
    from llverify.emitted.validate import validate_module

    report = validate_module(SAFE_SOFTMAX.read_text())
    assert not [v for v in report.verdicts if v.status is Status.REFUTED]
    masked = [v for v in report.verdicts if "masked duplicate copy" in v.reason]
    assert masked and all(v.status is Status.UNKNOWN for v in masked)
    assert "triton-lang/triton#4962" in masked[0].reason and "replayed" in masked[0].reason
