"""Whole-kernel validation of real code: libdevice's ``__nvvm_reflect`` and declared pure
functions, if-converted data-dependent branches, private memory (``alloca``), ``switch``,
bit-vector bitcasts, and odd instructions that stay unknown (issue 25)."""

from __future__ import annotations

import pytest

from llverify.emitted.sim import Execution, UnmodelledAt
from llverify.emitted.sim.llvm_ir import parse_llvm_ir


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
    with pytest.raises(UnmodelledAt):  # writes through its pointer: not pure
        run_kernel(kernel(writer))


def test_funnel_shift_is_exact_on_concrete_values() -> None:
    body = (
        "  %h = tail call i32 @llvm.fshl.i32(i32 %t, i32 -1, i32 4)\n"
        "  %r = bitcast i32 %h to float\n" + STORE_R
    )
    run = run_kernel(kernel(body))
    assert stored(run)[:3] == ["0xf", "0x1f", "0x2f"]
