"""Whole-kernel validation of real code: libdevice's ``__nvvm_reflect`` and declared pure
functions, if-converted data-dependent branches, private memory (``alloca``), ``switch``,
bit-vector bitcasts, and odd instructions that stay unknown (issue 25)."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from llverify.emitted.sim import Execution, UnmodelledAt
from llverify.emitted.sim.llvm_ir import parse_llvm_ir
from llverify.emitted.sim.replay import evaluate


def run_kernel(text: str, *, threads: int = 32, inputs: int = 64, outputs: int = 32) -> Execution:
    """Run kernel ``@k(ptr addrspace(1) %in, ptr addrspace(1) %out)`` of ``text``."""
    run = Execution(parse_llvm_ir(text), "k", threads=threads, warp_size=32, shared_bytes=0)
    run.add_input(0, "x", element_bytes=4, count=inputs)
    run.add_output(1, "y", element_bytes=4, count=outputs)
    run.run()
    return run


def kernel(body: str, tail: str = "") -> str:
    """A kernel whose ``%t`` is the thread id, ``%v`` its element of ``%in``; ``body`` ends by
    storing ``%r`` at ``%out[%t]`` (or not), then ``ret``."""
    return (
        "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %p = getelementptr float, ptr addrspace(1) %in, i32 %t\n"
        "  %v = load float, ptr addrspace(1) %p, align 4\n" + body + "  ret void\n}\n" + tail
    )


STORE_R = (
    "  %q = getelementptr float, ptr addrspace(1) %out, i32 %t\n"
    "  store float %r, ptr addrspace(1) %q, align 4\n"
)


def stored(run: Execution) -> list[str]:
    return [run.dag.describe(n) for n in run.output_nodes(run.memory.regions[1], 4)]


# -- __nvvm_reflect and declared pure functions -------------------------------------------------
REFLECT = (
    "  %f = tail call i32 @__nvvm_reflect(ptr nonnull @.str)\n"
    "  %z = icmp eq i32 %f, 0\n"
    "  br i1 %z, label %plain, label %ftz\n"
    "plain:\n"
    "  %a = fneg float %v\n"
    "  br label %join\n"
    "ftz:\n"
    "  %b = tail call float @llvm.nvvm.fabs.ftz.f32(float %v)\n"
    "  br label %join\n"
    "join:\n"
    "  %r = phi float [ %a, %plain ], [ %b, %ftz ]\n" + STORE_R
)


def reflect_module(name: str, flags: str = "") -> str:
    size = len(name) + 1
    head = f'@.str = private unnamed_addr constant [{size} x i8] c"{name}\\00", align 1\n'
    return head + kernel(REFLECT, flags)


FTZ_FLAG = '!llvm.module.flags = !{!3}\n!3 = !{i32 4, !"nvvm-reflect-ftz", i32 1}\n'


def test_nvvm_reflect_ftz_is_the_module_flag() -> None:
    run = run_kernel(reflect_module("__CUDA_FTZ", FTZ_FLAG))
    assert stored(run)[:2] == ["nvvm.fabs(x[0])", "nvvm.fabs(x[1])"]


def test_nvvm_reflect_ftz_is_zero_without_the_module_flag() -> None:
    run = run_kernel(reflect_module("__CUDA_FTZ"))
    assert stored(run)[0] == "fneg(x[0])"


def test_nvvm_reflect_arch_is_the_sm_version_times_ten() -> None:
    body = (
        "  %f = tail call i32 @__nvvm_reflect(ptr @.str)\n"
        "  %r = bitcast i32 %f to float\n" + STORE_R
    )
    text = '@.str = private unnamed_addr constant [12 x i8] c"__CUDA_ARCH\\00"\n' + kernel(body)
    run = run_kernel(text + 'attributes #0 = { "target-cpu"="sm_90a" }\n')
    assert stored(run)[0] == hex(900)
    with pytest.raises(UnmodelledAt, match="__CUDA_ARCH"):  # no target named: not guessed
        run_kernel(text)


def test_nvvm_reflect_of_an_unknown_name_stays_unknown() -> None:
    with pytest.raises(UnmodelledAt, match="__CUDA_MADE_UP"):
        run_kernel(reflect_module("__CUDA_MADE_UP", FTZ_FLAG))


def test_a_declared_libdevice_function_is_an_uninterpreted_node() -> None:
    body = "  %r = tail call float @__nv_erff(float %v)\n" + STORE_R
    run = run_kernel(kernel(body, "declare float @__nv_erff(float)\n"))
    assert stored(run)[:2] == ["__nv_erff(x[0])", "__nv_erff(x[1])"]
    writer = (
        "  %s = alloca float, align 4\n"
        "  %r = tail call float @__nv_frexpf(float %v, ptr %s)\n" + STORE_R
    )
    with pytest.raises(UnmodelledAt, match="a pointer operand"):  # writes through it
        run_kernel(kernel(writer))


def test_funnel_shift_is_exact_on_concrete_values() -> None:
    body = (
        "  %h = tail call i32 @llvm.fshl.i32(i32 %t, i32 -1, i32 4)\n"
        "  %r = bitcast i32 %h to float\n" + STORE_R
    )
    run = run_kernel(kernel(body))
    assert stored(run)[:3] == ["0xf", "0x1f", "0x2f"]


# -- branches on tagged data: if-conversion -----------------------------------------------------
DATA_BRANCH = (
    "  %c = fcmp olt float %v, 0.000000e+00\n"
    "  br i1 %c, label %neg, label %pos\n"
    "neg:\n"
    "  %a = fsub float 0.000000e+00, %v\n"
    "  br label %join\n"
    "pos:\n"
    "  %z = fcmp oeq float %v, 0.000000e+00\n"
    "  br i1 %z, label %join, label %big\n"
    "big:\n"
    "  %b = fmul float %v, 2.000000e+00\n"
    "  br label %join\n"
    "join:\n"
    "  %r = phi float [ %a, %neg ], [ %v, %pos ], [ %b, %big ]\n" + STORE_R
)


def test_a_branch_on_data_with_a_pure_region_is_if_converted_to_selects() -> None:
    run = run_kernel(kernel(DATA_BRANCH))
    assert run.violations == []
    (first,) = {s.replace("[0]", "[i]") for s in stored(run)[:1]}
    assert first.startswith("select(fcmp.olt(x[i], 0x0), fsub(0x0, x[i]), select(")
    assert "fmul(x[i], 0x40000000)" in first and "fcmp.oeq(x[i], 0x0)" in first
    # replayed on numbers: -2 -> 2, 0 -> 0, 3 -> 6 (the kernel's own branches)
    node = run.output_nodes(run.memory.regions[1], 4)[0]
    (leaf,) = run.dag.leaves(int(node))
    for x, want in ((-2.0, 2.0), (0.0, 0.0), (3.0, 6.0)):
        bits = int(np.array([x], dtype=np.float32).view(np.uint32)[0])
        got = evaluate(run.dag, int(node), {leaf: bits})
        assert np.array([got], dtype=np.uint32).view(np.float32)[0] == want


def test_a_branch_on_data_whose_region_stores_stays_unknown() -> None:
    body = DATA_BRANCH.replace(
        "  %b = fmul float %v, 2.000000e+00\n",
        "  %b = fmul float %v, 2.000000e+00\n"
        "  %w = getelementptr float, ptr addrspace(1) %out, i32 %t\n"
        "  store float %b, ptr addrspace(1) %w, align 4\n",
    )
    with pytest.raises(UnmodelledAt, match="branch condition depends on tagged data.*store"):
        run_kernel(kernel(body))


def test_a_branch_on_data_whose_region_loads_stays_unknown() -> None:
    body = DATA_BRANCH.replace(
        "  %a = fsub float 0.000000e+00, %v\n",
        "  %g = getelementptr float, ptr addrspace(1) %in, i32 40\n"
        "  %a = load float, ptr addrspace(1) %g, align 4\n",
    )
    with pytest.raises(UnmodelledAt, match="not if-converted.*load"):
        run_kernel(kernel(body))


def test_a_loop_on_data_stays_unknown() -> None:
    body = (
        "  br label %head\n"
        "head:\n"
        "  %x = phi float [ %v, %0 ], [ %h, %head ]\n"
        "  %h = fmul float %x, 5.000000e-01\n"
        "  %c = fcmp ogt float %h, 1.000000e+00\n"
        "  br i1 %c, label %head, label %done\n"
        "done:\n"
        "  %r = fadd float %h, %h\n" + STORE_R
    )
    with pytest.raises(UnmodelledAt, match="not if-converted"):
        run_kernel(kernel(body.replace("[ %v, %0 ]", "[ %v, %2 ]")))


# -- switch ------------------------------------------------------------------------------------
SWITCH = (
    "  %m = and i32 %t, 3\n"
    "  switch i32 %m, label %other [\n"
    "    i32 0, label %zero\n"
    "    i32 2, label %two\n"
    "  ]\n"
    "zero:\n"
    "  %a = fneg float %v\n"
    "  br label %join\n"
    "two:\n"
    "  %b = fmul float %v, %v\n"
    "  br label %join\n"
    "other:\n"
    "  br label %join\n"
    "join:\n"
    "  %r = phi float [ %a, %zero ], [ %b, %two ], [ %v, %other ]\n" + STORE_R
)


def test_a_multi_line_switch_is_read_and_each_thread_takes_its_case() -> None:
    run = run_kernel(kernel(SWITCH))
    assert stored(run)[:5] == ["fneg(x[0])", "x[1]", "fmul(x[2], x[2])", "x[3]", "fneg(x[4])"]


def test_a_switch_on_data_is_if_converted() -> None:
    body = SWITCH.replace("  %m = and i32 %t, 3\n", "  %m = bitcast float %v to i32\n")
    out = stored(run_kernel(kernel(body)))[0]
    assert out.startswith("select(icmp.eq(") and "fneg(x[0])" in out and "fmul(x[0], x[0])" in out


def test_a_two_block_loop_on_data_stays_unknown() -> None:
    body = (
        "  br label %head\n"
        "head:\n"
        "  %x = phi float [ %v, %2 ], [ %h, %latch ]\n"
        "  %h = fmul float %x, 5.000000e-01\n"
        "  br label %latch\n"
        "latch:\n"
        "  %c = fcmp ogt float %h, 1.000000e+00\n"
        "  br i1 %c, label %head, label %done\n"
        "done:\n"
        "  %r = fadd float %h, %h\n" + STORE_R
    )
    with pytest.raises(UnmodelledAt, match="not if-converted: the region loops"):
        run_kernel(kernel(body))


# -- alloca: private memory ----------------------------------------------------------------------
def alloca_body(index: str, store_index: str = "%k") -> str:
    """Each thread writes its value at element ``store_index`` of its own [4 x float], reads
    element ``index`` back and stores it."""
    return (
        "  %buf = alloca [4 x float], align 4\n"
        "  %k = and i32 %t, 3\n"
        f"  %w = getelementptr inbounds [4 x float], ptr %buf, i32 0, i32 {store_index}\n"
        "  store float %v, ptr %w, align 4\n"
        f"  %g = getelementptr inbounds float, ptr %buf, i32 {index}\n"
        "  %r = load float, ptr %g, align 4\n" + STORE_R
    )


def test_alloca_is_each_threads_own_memory() -> None:
    run = run_kernel(kernel(alloca_body("%k")))
    assert run.violations == [] and run.uninitialised == []
    assert stored(run)[:3] == ["x[0]", "x[1]", "x[2]"]  # no thread sees another's bytes


def test_alloca_read_out_of_bounds_is_refuted() -> None:
    run = run_kernel(kernel(alloca_body("4")))
    assert [(v.kind, v.space) for v in run.violations] == [("out of bounds", "private")]


def test_alloca_read_of_a_byte_the_thread_did_not_write_is_uninitialised() -> None:
    run = run_kernel(kernel(alloca_body("3", store_index="0")))
    assert {(v.kind, v.space) for v in run.uninitialised} == {("uninitialised read", "private")}
    assert run.uninitialised[0].thread == 0
    # its undefined bytes reach a global store: the read is the violation
    (violation,) = run.violations
    assert (violation.kind, violation.space) == ("uninitialised read", "private")
    assert "undefined bytes reach the global store" in violation.detail


def test_an_alloca_in_a_branch_region_keeps_the_branch_unknown() -> None:
    body = DATA_BRANCH.replace(
        "big:\n", "big:\n  %s = alloca float, align 4\n  store float %v, ptr %s, align 4\n"
    )
    with pytest.raises(UnmodelledAt, match="not if-converted"):
        run_kernel(kernel(body))


# -- odd instructions: unknown with the instruction named, never an error ----------------------
ODD = [
    (
        "  %a = cmpxchg ptr addrspace(1) %out, i32 0, i32 %t monotonic monotonic, align 4\n",
        "cmpxchg",
    ),
    ("  %a = va_arg ptr addrspace(1) %out, i32\n", "va_arg"),
    ("  %a = alloca float, i32 %t, align 4\n", "alloca"),
    (  # a load of a byte an atomic updated: its value depends on the atomics' order
        "  %a = atomicrmw add ptr addrspace(1) %out, i32 1 monotonic, align 4\n"
        "  %b = load i32, ptr addrspace(1) %out, align 4\n",
        "an atomic updated",
    ),
    ("  %a = tail call i32 @made_up_function(i32 %t)\n", "made_up_function"),
    ("  %a = tail call float @__nv_sinf(ptr addrspace(1) %in)\n", "__nv_sinf"),
    ("  %a = load i32, ptr addrspace(4) @.c, align 4\n", "global @.c"),
    ("  %a = addrspacecast ptr addrspace(1) %in to ptr addrspace(7)\n", "addrspacecast"),
    ("  unreachable\n", "unreachable"),
    ("  %a = tail call i32 @llvm.nvvm.wgmma.made.up(i32 %t)\n", "wgmma"),
]


@pytest.mark.parametrize(("line", "named"), ODD)
def test_an_odd_instruction_is_an_unknown_verdict_naming_it(line: str, named: str) -> None:
    from llverify.emitted.dumped import validate_llvm_ir
    from llverify.proof.verdict import Status

    text = (
        "@.c = internal addrspace(4) constant [1 x i32] [i32 7]\n"
        "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n" + line + "  ret void\n}\n"
    )
    (verdict,) = validate_llvm_ir(text, threads=32).verdicts
    assert verdict.status is Status.UNKNOWN
    assert named in (verdict.reason or "")


# -- bitcasts of bit vectors ---------------------------------------------------------------------
def test_a_bit_vector_bitcast_puts_element_k_at_bit_k() -> None:
    body = (
        "  %k = and i32 %t, 15\n"
        "  %n = trunc i32 %k to i4\n"
        "  %bits = bitcast i4 %n to <4 x i1>\n"  # and back, with element 0 cleared
        "  %cleared = insertelement <4 x i1> %bits, i1 false, i64 0\n"
        "  %back = bitcast <4 x i1> %cleared to i4\n"
        "  %count = tail call i4 @llvm.ctpop.i4(i4 %back)\n"
        "  %w = zext i4 %back to i32\n"
        "  %c = zext i4 %count to i32\n"
        "  %s = shl i32 %c, 8\n"
        "  %o = or i32 %w, %s\n"
        "  %r = bitcast i32 %o to float\n" + STORE_R
    )
    got = [int(s, 16) for s in stored(run_kernel(kernel(body)))[:16]]
    assert got == [(k & 14) | (bin(k & 14).count("1") << 8) for k in range(16)]


def test_a_bit_vector_of_data_bitcast_is_a_node_and_a_mismatched_one_unknown() -> None:
    body = (
        "  %c = fcmp olt <2 x float> <float 0.0, float 1.0>, <float 0.5, float 0.5>\n"
        "  %d = fcmp olt float %v, 0.000000e+00\n"
        "  %e = insertelement <2 x i1> %c, i1 %d, i64 1\n"
        "  %b = bitcast <2 x i1> %e to i2\n"
        "  %z = zext i2 %b to i32\n"
        "  %r = bitcast i32 %z to float\n" + STORE_R
    )
    assert stored(run_kernel(kernel(body)))[0].startswith("zext.2.32(bitcast.<2 x i1>(")
    with pytest.raises(UnmodelledAt, match="a bitcast from <2 x i1> to i8"):
        run_kernel(kernel(body.replace("to i2\n", "to i8\n").replace("zext i2", "zext i8")))


# -- inline assembly in an if-converted region -----------------------------------------------------
def test_pure_inline_asm_in_a_branch_region_is_if_converted_and_a_side_effect_one_is_not() -> None:
    rcp = '  %a = tail call float asm "rcp.approx.ftz.f32 $0,$1;", "=f,f"(float %v)\n'
    body = DATA_BRANCH.replace("  %a = fsub float 0.000000e+00, %v\n", rcp)
    out = stored(run_kernel(kernel(body)))[0]
    assert out.startswith("select(fcmp.olt(x[0], 0x0), ")
    with pytest.raises(UnmodelledAt, match="not if-converted.*call"):
        run_kernel(kernel(body.replace("asm ", "asm sideeffect ")))


# -- real kernels (PyTorch 2.11 Inductor, Triton 3.6, sm_90; paths scrubbed) ----------------------
REAL = Path(__file__).parent / "data" / "emitted" / "inductor"


def real_kernel(name: str) -> str:
    return gzip.decompress((REAL / name).read_bytes()).decode()


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("gelu_erf_libdevice_sm90.llir.gz", {}),
        ("tanh_backward_libdevice_sm90.llir.gz", {"3": 1024}),
    ],
)
def test_real_libdevice_kernels_are_proved(name: str, arguments: dict[str, int]) -> None:
    """vit's ``triton_poi_fused_gelu_view_9`` (erf) and bert's
    ``triton_poi_fused_native_dropout_backward_tanh_tanh_backward`` (tanh, with inline
    ``rcp.approx``): libdevice inlined, ``__nvvm_reflect("__CUDA_FTZ")`` and branches on the
    data (was unknown: call to __nvvm_reflect)."""
    from llverify.emitted.dumped import validate_llvm_ir
    from llverify.proof.verdict import Status

    text = real_kernel(name)
    assert "__nvvm_reflect" in text
    (verdict,) = validate_llvm_ir(text, threads=128, arguments=arguments).verdicts
    assert verdict.status is Status.PROVED, verdict.reason
    # negative control: a store into the erf/tanh region leaves the branch unknown
    join = text.index("br i1", text.index("__nvvm_reflect"))
    line_end = text.index("\n", join)
    branch = text[join:line_end]
    target = branch.split("label ")[1].split(",")[0]
    label = target.lstrip("%") + ":"
    at = text.index("\n" + label) + len(label) + 1
    at = text.index("\n", at) + 1
    bad = text[:at] + "  store i32 0, ptr addrspace(1) %0, align 4\n" + text[at:]
    (verdict,) = validate_llvm_ir(bad, threads=128, arguments=arguments).verdicts
    assert verdict.status is Status.UNKNOWN and "not if-converted" in (verdict.reason or "")


def test_a_real_combo_kernels_multi_line_switch_is_read() -> None:
    """bert's ``triton_for_fused_0`` switches on the program id over 41 sub-kernels."""
    module = parse_llvm_ir(real_kernel("combo_switch_sm90.llir.gz"))
    (switch,) = [
        i for b in next(iter(module.functions.values())).blocks for i in b.instructions
        if i.opcode == "switch"
    ]  # fmt: skip
    assert switch.extra["cases"][:2] == (0, 1) and len(switch.extra["targets"]) >= 3
