"""The executor's operand shortcuts (issue 26) give exactly what the general paths give: a
constant operand's value made once per execution and shared read-only, ``insertelement`` at a
literal index as a slice, the argument-use test behind one-byte scratch buffers, and the
harness signatures read beside the compile."""

from __future__ import annotations

import numpy as np
import pytest

from llverify.emitted.relayout import harness_signatures, relaid_cases
from llverify.emitted.sim import Execution
from llverify.emitted.sim.llvm_ir import parse_llvm_ir
from llverify.emitted.validate import _meanwhile

HEADER = "@global_smem = external addrspace(3) global [0 x i8], align 16\n"


def _run(body: str, threads: int = 8) -> Execution:
    text = (
        HEADER + "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n" + body + "  ret void\n}\n"
    )
    run = Execution(parse_llvm_ir(text), "k", threads=threads, warp_size=threads, shared_bytes=0)
    run.add_input(0, "x", element_bytes=1, count=64)
    run.add_output(1, "y", element_bytes=4, count=threads)
    run.run()
    return run


def _stored(run: Execution) -> list[str]:
    return [run.dag.describe(n) for n in run.output_nodes(run.memory.regions[1], 4)]


def test_a_constant_operand_is_computed_once_and_read_only() -> None:
    run = _run("  %a = add i32 %t, 7\n")
    (instruction,) = [i for i in run.function.blocks[0].instructions if i.result == "%a"]
    seven = instruction.operands[1]
    first, again = run.constant(seven), run.constant(seven)
    assert first is again and first.integers().tolist() == [7] * 8
    with pytest.raises(ValueError, match="read-only"):  # a handler cannot corrupt it
        first.integers()[0] = 8
    assert run.env["%a"].integers().tolist() == [t + 7 for t in range(8)]


def test_constants_stay_exact_across_instructions_that_share_them() -> None:
    """Two instructions read the same literal; an in-place result of one must not leak into
    the other's operand (the negative control of the sharing)."""
    run = _run("  %a = add i32 %t, 3\n  %b = shl i32 %a, 3\n  %c = add i32 %b, 3\n")
    assert run.env["%c"].integers().tolist() == [((t + 3) << 3) + 3 for t in range(8)]


def _inserted(index: str) -> list[str]:
    """Each thread stores bytes x[4t .. 4t+3] as an <4 x i8> whose element ``index`` (a
    literal, or ``%k`` = a local holding 2) is replaced by x[4t+3]."""
    loads = "".join(
        f"  %o{k} = add i32 %f, {k}\n"
        f"  %p{k} = getelementptr i8, ptr addrspace(1) %in, i32 %o{k}\n"
        f"  %b{k} = load i8, ptr addrspace(1) %p{k}, align 1\n"
        for k in range(4)
    )
    body = (
        "  %f = mul i32 %t, 4\n" + loads + "  %k = add i32 0, 2\n"
        "  %v0 = insertelement <4 x i8> poison, i8 %b0, i32 0\n"
        "  %v1 = insertelement <4 x i8> %v0, i8 %b1, i32 1\n"
        "  %v2 = insertelement <4 x i8> %v1, i8 %b2, i32 2\n"
        "  %v3 = insertelement <4 x i8> %v2, i8 %b3, i32 3\n"
        f"  %w = insertelement <4 x i8> %v3, i8 %b3, i32 {index}\n"
        "  %r = bitcast <4 x i8> %w to i32\n"
        "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  store i32 %r, ptr addrspace(1) %q, align 4\n"
    )
    return _stored(_run(body))


def test_insertelement_at_a_literal_index_matches_a_local_index() -> None:
    assert _inserted("2") == _inserted("%k")
    assert _inserted("2") != _inserted("1")  # negative control: another place, other bytes


@pytest.mark.parametrize("index", ["0", "1", "3", "4", "9"])
def test_insertelement_at_each_literal_index_matches_the_general_path(index: str) -> None:
    """In range: the element's bytes replaced; out of range (4, 9: LLVM's poison) both paths
    take the general one."""
    body_index = f"%i{index}"
    literal = _inserted(index)
    general = _stored(
        _run(
            "  %f = mul i32 %t, 4\n"
            + "".join(
                f"  %o{k} = add i32 %f, {k}\n"
                f"  %p{k} = getelementptr i8, ptr addrspace(1) %in, i32 %o{k}\n"
                f"  %b{k} = load i8, ptr addrspace(1) %p{k}, align 1\n"
                for k in range(4)
            )
            + f"  {body_index} = add i32 0, {index}\n"
            "  %v0 = insertelement <4 x i8> poison, i8 %b0, i32 0\n"
            "  %v1 = insertelement <4 x i8> %v0, i8 %b1, i32 1\n"
            "  %v2 = insertelement <4 x i8> %v1, i8 %b2, i32 2\n"
            "  %v3 = insertelement <4 x i8> %v2, i8 %b3, i32 3\n"
            f"  %w = insertelement <4 x i8> %v3, i8 %b3, i32 {body_index}\n"
            "  %r = bitcast <4 x i8> %w to i32\n"
            "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
            "  store i32 %r, ptr addrspace(1) %q, align 4\n"
        )
    )
    assert literal == general


def test_function_reads_finds_whole_names_only() -> None:
    kernel = parse_llvm_ir(
        "define void @k(ptr %1, ptr %10, ptr %a.b, ptr %c) {\n"
        "  %3 = load i32, ptr %10 ; reads %c in a comment\n"
        "  %4 = load i32, ptr %a.b\n"
        "  ret void\n}\n"
    ).functions["k"]
    assert kernel.reads("%10") and kernel.reads("%a.b")
    assert not kernel.reads("%1")  # %10 is no read of %1
    assert kernel.reads("%c")  # a comment counts: the test errs towards a full scratch buffer


def test_relaid_cases_with_signatures_read_beside_equal_those_read_after() -> None:
    from pathlib import Path

    from llverify.emitted.harness import build_harness
    from llverify.ttgir import parse_module

    module = Path(__file__).parent / "data" / "ttgir" / "softmax_fp32_sm80.ttgir"
    harness = build_harness(parse_module(module.read_text()))
    wanted = _meanwhile(harness_signatures, harness)
    assert wanted() == harness_signatures(harness)
    assert relaid_cases(harness, harness.text, "3.9.0", wanted) == {}
    gone = relaid_cases(harness, "module {\n}\n", "3.9.0", wanted)  # negative control
    assert sorted(gone) == sorted(case.index for case in harness.cases)


def test_work_beside_raises_what_it_raised() -> None:
    failing = _meanwhile(np.asarray, [1, 2], "no such dtype")
    with pytest.raises(TypeError):
        failing()


def test_a_finished_run_is_freed_without_the_cyclic_collector() -> None:
    """No reference cycle holds a run (global memory's origin of undefined bytes and shared
    memory's wgmma watch refer to it weakly): its DAG goes when the last reference does, not
    at a later collection that walks every node."""
    import gc
    import weakref

    gc.collect()
    gc.disable()
    try:
        run = _run("  %a = add i32 %t, 7\n")
        dag, memory = weakref.ref(run.dag), weakref.ref(run.shared)
        del run
        assert dag() is None and memory() is None
        cycle = _run("  %a = add i32 %t, 7\n")
        cycle.loop = cycle  # type: ignore[attr-defined]  # the negative control: a cycle
        held = weakref.ref(cycle.dag)
        del cycle
        assert held() is not None
    finally:
        gc.enable()
    gc.collect()
    assert held() is None


def test_uninitialised_origin_is_still_reported_through_the_weak_reference() -> None:
    """A global store of bytes never written in shared memory names the uninitialised read
    they come from (the origin the run hands to global memory)."""
    body = (
        "  %s = getelementptr i8, ptr addrspace(3) @global_smem, i32 0\n"
        "  %v = load i32, ptr addrspace(3) %s, align 4\n"
        "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  store i32 %v, ptr addrspace(1) %q, align 4\n"
    )
    text = (
        HEADER + "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n" + body + "  ret void\n}\n"
    )
    run = Execution(parse_llvm_ir(text), "k", threads=8, warp_size=8, shared_bytes=64)
    run.add_input(0, "x", element_bytes=1, count=64)
    run.add_output(1, "y", element_bytes=4, count=8)
    run.run()
    kinds = [v.kind for v in run.memory.violations]
    assert run.uninitialised and "uninitialised read" in kinds


def _sum_beside(values: list[int]) -> int:
    return _meanwhile(sum, values)()


def test_work_beside_runs_in_a_process_forked_after_it_ran() -> None:
    """A process forked after work ran beside (``--jobs`` forks its workers) runs its own
    work beside too: no thread of the parent is waited for."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    assert _meanwhile(sum, [1])() == 1
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_sum_beside, ([2, 3],)).get(timeout=60) == 5
