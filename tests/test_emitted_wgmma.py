"""Hopper ``wgmma`` in the whole-kernel executor (llverify.emitted.sim.wgmma, issue 25).

Oracles: the PTX ISA's matrix descriptor, canonical layouts and fragments, checked against
two independent statements of them (Triton's NVMMA shared layout closed form, REFERENCES.md
section 3, and CUTLASS's accumulator layout ``CLayout_64xN``, section 4); hand-written
kernels whose D elements must be the products of the right A rows and B columns; negative
controls (out of bounds, races with pending operands, uninitialised operands, partial
warpgroups) that must be refuted or stay unknown; and real torch.compile matmuls (Triton 3.6,
sm_90) whose every stored element must be the wgmma chain over K of its row of A and column
of B.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from llverify.emitted.dumped import validate_llvm_ir
from llverify.emitted.sim import Execution, UnmodelledAt, parse_llvm_ir
from llverify.emitted.sim.wgmma import (
    Descriptor,
    a_fragment_coordinates,
    accumulator_coordinates,
    operand_offsets,
)
from llverify.proof.verdict import Status

REAL = Path(__file__).parent / "data" / "emitted" / "wgmma"


# -- the facts, against independent statements of them -----------------------------------------
def nvmma_element(offset: int, swizzle: int, element_bits: int, rows: int) -> tuple[int, int]:
    """(row, column) of element ``offset`` of Triton's NVMMA shared layout (REFERENCES.md,
    section 3: the closed form checked against Triton 3.9)."""
    vec = 128 // element_bits
    per_phase, max_phase = 128 // swizzle, swizzle // 16
    box = 8 * swizzle // element_bits
    row = (offset // box) % rows
    phase = (row // per_phase) % max_phase
    column = (offset // (rows * box)) * box + ((offset % box) ^ (phase * vec))
    return row, column


@pytest.mark.parametrize("swizzle", [128, 64, 32])
def test_k_major_swizzled_operand_is_tritons_nvmma_layout(swizzle: int) -> None:
    """A 64 x 64 f16 tile in NVMMA layout (K contiguous): the wgmma of K block ``j`` reads
    element ``[m, 16 j + k]`` at the address NVMMA puts it, through Triton's descriptor
    (start + 32 j bytes within a swizzle row, SBO = 8 rows)."""
    mode = {128: 1, 64: 2, 32: 3}[swizzle]
    for j in range(64 // 16):
        start = 8192 + (j * 32 // swizzle) * 64 * swizzle + (j * 32) % swizzle
        value = (mode << 62) | ((8 * swizzle >> 4) << 32) | (start >> 4)
        offsets = operand_offsets(
            Descriptor.decode(value), rows=64, element_bytes=2, mn_major=False
        )
        for m in range(64):
            for k in range(16):
                assert (offsets[m, k] - 8192) % 2 == 0
                element = nvmma_element((offsets[m, k] - 8192) // 2, swizzle, 16, 64)
                assert element == (m, 16 * j + k)


@pytest.mark.parametrize(("swizzle", "n"), [(128, 128), (64, 32), (32, 16), (128, 64)])
def test_mn_major_swizzled_operand_is_tritons_transposed_nvmma_layout(swizzle: int, n: int) -> None:
    """B (K x N, N contiguous, 32 rows of K) in NVMMA layout: the wgmma of K block ``j`` reads
    ``B[16 j + k][nn]`` where NVMMA (rows = K, columns = N) puts it; LBO is the distance of
    the swizzle boxes along N (32 K rows of ``swizzle`` bytes), SBO 8 K rows."""
    mode = {128: 1, 64: 2, 32: 3}[swizzle]
    for j in range(2):
        start = j * 16 * swizzle
        value = (mode << 62) | ((8 * swizzle >> 4) << 32) | ((32 * swizzle >> 4) << 16)
        offsets = operand_offsets(
            Descriptor.decode(value | start >> 4), rows=n, element_bytes=2, mn_major=True
        )
        for nn in range(n):
            for k in range(16):
                row, column = nvmma_element(int(offsets[nn, k]) // 2, swizzle, 16, 32)
                assert (row, column) == (16 * j + k, nn)


def test_the_accumulator_fragment_is_cutlass_clayout() -> None:
    """``CLayout_64xN = ((4,8,4),(2,2,N/8)) : ((128,1,16),(64,8,512))``: thread ``t0 + 4 t1 +
    32 t2``, value ``v0 + 2 v1 + 4 v2`` hold element ``m + 64 n`` (column-major 64 x N)."""
    n = 32
    rows, cols = accumulator_coordinates(n)
    for t in range(128):
        t0, t1, t2 = t % 4, (t // 4) % 8, t // 32
        for v in range(n // 2):
            v0, v1, v2 = v % 2, (v // 2) % 2, v // 4
            index = 128 * t0 + t1 + 16 * t2 + 64 * v0 + 8 * v1 + 512 * v2
            assert (rows[t, v], cols[t, v]) == (index % 64, index // 64)


def test_the_a_fragment_covers_the_64_by_16_tile_once() -> None:
    rows, cols = a_fragment_coordinates()
    assert sorted(zip(rows.ravel().tolist(), cols.ravel().tolist())) == [
        (m, k) for m in range(64) for k in range(16)
    ]


def test_descriptor_fields_and_unmodelled_base_offset() -> None:
    d = Descriptor.decode(0x4000004000010200)
    assert (d.start, d.leading, d.stride, d.base_offset, d.swizzle) == (8192, 16, 1024, 0, 128)
    with pytest.raises(ValueError, match="64-bit"):
        Descriptor.decode(1 << 64)
    from llverify.emitted.sim.symbolic import Unmodelled

    with pytest.raises(Unmodelled, match="base offset"):
        operand_offsets(Descriptor.decode(1 << 49), rows=64, element_bytes=2, mn_major=False)


# -- hand-written kernels ----------------------------------------------------------------------
# A: 64 x 16 f16, row-major in %a; B: 16 x 8 f16 given N x K (K-major, %b[n * 16 + k]) or
# K x N (MN-major, %b[k * 8 + n]); C: 64 x 8 f32 row-major.  Each thread copies 16 bytes of A
# (row t / 2, half t % 2) and threads t < 16 copy B's 16-byte rows, into shared memory in the
# layout the descriptors describe.
A_LAYOUTS = {
    # name: (the shared offset of A's 16-byte unit (m, c) as LLVM IR over %m, %c, descriptor)
    "interleave": ("  %sa0 = shl i32 %m, 4\n  %sa1 = shl i32 %c, 10\n  %sa = or i32 %sa0, %sa1\n",
                   (64 << 16) | (8 << 32)),
    "32B": ("  %sa0 = shl i32 %m, 5\n  %sa1 = lshr i32 %m, 2\n  %sa2 = and i32 %sa1, 1\n"
            "  %sa3 = xor i32 %c, %sa2\n  %sa4 = shl i32 %sa3, 4\n  %sa = or i32 %sa0, %sa4\n",
            (3 << 62) | (16 << 32)),
    "128B": ("  %sa0 = shl i32 %m, 7\n  %sa1 = and i32 %m, 7\n  %sa3 = xor i32 %c, %sa1\n"
             "  %sa4 = shl i32 %sa3, 4\n  %sa = or i32 %sa0, %sa4\n", (1 << 62) | (64 << 32)),
}  # fmt: skip
B_COPY = {  # the shared offset of B's 16-byte unit of thread t
    "k": "  %sb1 = shl i32 %m, 4\n  %sb2 = shl i32 %c, 7\n  %sb3 = or i32 %sb1, %sb2\n"
    "  %sb0 = add i32 %sb3, 8192\n",  # (n, K half c) at n * 16 + c * 128
    "mn": "  %sb0 = add i32 %ga0, 8192\n",  # K row t at t * 16
}
B_KMAJOR = (8192 >> 4) | (8 << 16) | (16 << 32)  # start 8192, LBO 128 (K), SBO 256 (unused)
B_MNMAJOR = (8192 >> 4) | (8 << 16) | (16 << 32)  # K rows of 16 bytes: LBO 128 = 8 K rows


FOUR = "{ float, float, float, float }"
SHARED = 16384  # A at 0 (up to 8192 bytes), B at 8192


def c_store(i: int) -> str:
    """Store D element ``i`` of the thread (from ``%d<i>``) at ``C[row][col]``."""
    return (
        f"  %row{i} = add i32 %r0, {8 * ((i >> 1) & 1)}\n"
        f"  %col{i} = add i32 %q2, {i & 1}\n"
        f"  %rc{i} = shl i32 %row{i}, 3\n"
        f"  %ix{i} = add i32 %rc{i}, %col{i}\n"
        f"  %pc{i} = getelementptr float, ptr addrspace(1) %cc, i32 %ix{i}\n"
        f"  store float %d{i}, ptr addrspace(1) %pc{i}, align 4\n"
    )


def wgmma_kernel(
    *,
    a_layout: str = "interleave",
    b_major: str = "k",
    threads: int = 128,
    a_desc: int | None = None,
    b_desc: int | None = None,
    copy_b: bool = True,
    barrier: bool = True,
    after_issue: str = "",
    after_wait: str = "",
    scale_d: str = "$10",
    immediates: str = "1, 1, 0, {trans_b}",
    opcode: str = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
    issue_guard: str = "",
) -> str:
    """The LLVM IR of a kernel ``@k(%a, %b, %cc)`` computing C = A B with one wgmma.

    ``after_issue``/``after_wait``: IR between the commit and the wait, after the wait;
    ``issue_guard``: a condition on ``%t`` (``icmp`` text) under which the wgmma runs."""
    copy_a, descriptor = A_LAYOUTS.get(a_layout, A_LAYOUTS["interleave"])
    a_desc = descriptor if a_desc is None else a_desc
    b_desc = (B_KMAJOR if b_major == "k" else B_MNMAJOR) if b_desc is None else b_desc
    registers_a = a_layout == "registers"
    lines = [
        "@global_smem = external addrspace(3) global [0 x i8], align 16\n",
        "define ptx_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, "
        'ptr addrspace(1) %cc) #0 {\n',
        "  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n",
        "  %t = and i32 %tid, 127\n",
        "  %m = lshr i32 %t, 1\n  %c = and i32 %t, 1\n",
        "  %ga0 = shl i32 %t, 4\n",
        "  %ga = getelementptr i8, ptr addrspace(1) %a, i32 %ga0\n",
    ]  # fmt: skip
    if not registers_a:
        lines += [
            "  %va = load <4 x i32>, ptr addrspace(1) %ga, align 16\n",
            copy_a,
            "  %pa = getelementptr i8, ptr addrspace(3) @global_smem, i32 %sa\n",
            "  store <4 x i32> %va, ptr addrspace(3) %pa, align 16\n",
        ]
    if copy_b:
        lines += [
            "  %isb = icmp ult i32 %t, 16\n  br i1 %isb, label %copyb, label %sync\n",
            "copyb:\n",
            "  %gb = getelementptr i8, ptr addrspace(1) %b, i32 %ga0\n",
            "  %vb = load <4 x i32>, ptr addrspace(1) %gb, align 16\n",
            B_COPY[b_major],
            "  %pb = getelementptr i8, ptr addrspace(3) @global_smem, i32 %sb0\n",
            "  store <4 x i32> %vb, ptr addrspace(3) %pb, align 16\n",
            "  br label %sync\n",
        ]
    else:
        lines.append("  br label %sync\n")
    lines.append("sync:\n")
    if barrier:
        lines.append("  tail call void @llvm.nvvm.barrier0()\n")
    lines += [
        '  tail call void asm sideeffect "fence.proxy.async.shared::cta;", ""()\n',
        "  %w = lshr i32 %t, 5\n  %l = and i32 %t, 31\n  %g = lshr i32 %l, 2\n",
        "  %q = and i32 %l, 3\n  %w16 = shl i32 %w, 4\n  %r0 = add i32 %w16, %g\n",
        "  %q2 = shl i32 %q, 1\n",
    ]
    a_operand, a_types = "$8", "l"
    a_values = f"i64 {a_desc}"
    if registers_a:  # thread t's A fragment: (r0 | r0 + 8, 2q | 2q + 8), as f16 pairs
        for k, (dr, dc) in enumerate([(0, 0), (8, 0), (0, 8), (8, 8)]):
            lines += [
                f"  %ar{k} = add i32 %r0, {dr}\n  %ac{k} = add i32 %q2, {dc}\n",
                f"  %arr{k} = shl i32 %ar{k}, 4\n  %ai{k} = add i32 %arr{k}, %ac{k}\n",
                f"  %ap{k} = getelementptr half, ptr addrspace(1) %a, i32 %ai{k}\n",
                f"  %av{k} = load i32, ptr addrspace(1) %ap{k}, align 4\n",
            ]
        a_operand, a_types = "{$8,$9,$10,$11}", "r,r,r,r"
        a_values = "i32 %av0, i32 %av1, i32 %av2, i32 %av3"
    after = 12 if registers_a else 9
    b_operand, p_operand = f"${after}", f"${after + 1}"
    scale = scale_d.replace("$10", p_operand)
    trans_b = "1" if b_major == "mn" else "0"
    imms = immediates.format(trans_b=trans_b)
    imms = f", {imms}" if imms else ""
    if registers_a:
        imms = imms.replace("1, 1, 0, ", "1, 1, ")
    lines.append("  tail call void @llvm.nvvm.wgmma.fence.sync.aligned()\n")
    if issue_guard:
        lines.append(f"  %guard = {issue_guard}\n  br i1 %guard, label %issue, label %done\n")
        lines.append("issue:\n")
    lines += [
        "  %acc = tail call { float, float, float, float } asm sideeffect "
        f'"{opcode} {{$0,$1,$2,$3}}, {a_operand}, {b_operand}, {scale}{imms};", '
        f'"=f,=f,=f,=f,0,1,2,3,{a_types},l,b"(float 0.0, float 0.0, float 0.0, float 0.0, '
        f"{a_values}, i64 {b_desc}, i1 true)\n",
        "  tail call void @llvm.nvvm.wgmma.commit_group.sync.aligned()\n",
        after_issue,
        *(f"  %e{i} = extractvalue {FOUR} %acc, {i}\n" for i in range(4)),
        "  %wait = tail call { float, float, float, float } asm sideeffect "
        '"// wait for regs: $0,$1,$2,$3\\0A\\09wgmma.wait_group.sync.aligned 0;", '
        '"=f,=f,=f,=f,0,1,2,3"(float %e0, float %e1, float %e2, float %e3)\n',
        *(f"  %d{i} = extractvalue {FOUR} %wait, {i}\n" for i in range(4)),
        after_wait,
        *(c_store(i) for i in range(4)),
    ]
    if issue_guard:
        lines.append("  br label %done\ndone:\n")
    lines += [
        "  ret void\n}\n",
        f'attributes #0 = {{ "nvvm.reqntid"="{threads}" }}\n',
    ]
    return "".join(lines)


def run_wgmma(text: str, threads: int = 128, shared_bytes: int = 16384) -> Execution:
    run = Execution(
        parse_llvm_ir(text), "k", threads=threads, warp_size=32, shared_bytes=shared_bytes
    )
    run.add_input(0, "a", element_bytes=2, count=64 * 16)
    run.add_input(1, "b", element_bytes=2, count=16 * 8)
    run.add_output(2, "c", element_bytes=4, count=64 * 8)
    run.run()
    return run


def elements(run: Execution, node: int) -> list[tuple[str, int]]:
    """(buffer, index) of each 2-byte element of a row/column node, in K order."""
    pieces = run.dag.pieces(node)
    assert pieces is not None
    found = []
    for k in range(0, len(pieces), 2):
        leaf = run.dag.leaf_of(pieces[k] // 16)
        assert leaf is not None and pieces[k + 1] == pieces[k] + 1
        found.append((run.dag.buffer_name(leaf[0]), leaf[1]))
    return found


def assert_products(run: Execution, b_major: str = "k", accumulate: bool = True) -> None:
    """Every C[m][n] is one wgmma node of (0.0, A row m, B column n), K in order."""
    nodes = run.output_nodes(run.memory.regions[2], 4)
    for m in range(64):
        for n in range(8):
            node = nodes[m * 8 + n]
            assert run.dag.kind(node) == "wgmma.f32.f16.f16", run.dag.describe(node)
            operands = run.dag.operands(node)
            if accumulate:
                assert run.dag.constant_value(operands[0]) == 0
            assert len(operands) == (3 if accumulate else 2)
            assert elements(run, operands[-2]) == [("a", m * 16 + k) for k in range(16)]
            b = [n * 16 + k if b_major == "k" else k * 8 + n for k in range(16)]
            assert elements(run, operands[-1]) == [("b", i) for i in b]


@pytest.mark.parametrize("a_layout", ["interleave", "32B", "128B"])
def test_wgmma_m64n8k16_f16_computes_each_element_from_its_row_and_column(a_layout: str) -> None:
    run = run_wgmma(wgmma_kernel(a_layout=a_layout))
    assert not run.violations and not run.uninitialised
    assert_products(run)


def test_an_mn_major_b_and_a_in_registers_give_the_same_products() -> None:
    assert_products(run_wgmma(wgmma_kernel(b_major="mn")), b_major="mn")
    assert_products(run_wgmma(wgmma_kernel(a_layout="registers")))


def test_equal_computations_through_different_layouts_are_equal_nodes() -> None:
    """The D nodes do not depend on how A sits in shared memory (or in registers)."""
    described = []
    for layout in ("interleave", "32B", "registers"):
        run = run_wgmma(wgmma_kernel(a_layout=layout))
        described.append([run.dag.describe(n) for n in run.output_nodes(run.memory.regions[2], 4)])
    assert described[0] == described[1] == described[2]


def test_scale_d_false_drops_the_accumulator_and_negated_a_is_another_op() -> None:
    run = run_wgmma(wgmma_kernel(scale_d="0"))
    assert_products(run, accumulate=False)
    run = run_wgmma(wgmma_kernel(immediates="-1, 1, 0, {trans_b}"))
    node = run.output_nodes(run.memory.regions[2], 4)[0]
    assert run.dag.kind(node) == "wgmma.f32.f16.f16.neg_a"


@pytest.mark.parametrize(
    ("shape", "immediates", "name"),
    [
        ("m64n8k8.f32.tf32.tf32", "1, 1", "wgmma.f32.tf32.tf32"),
        ("m64n8k32.f32.e4m3.e5m2", "1, -1", "wgmma.f32.e4m3.e5m2.neg_b"),
        ("m64n8k32.s32.s8.u8", "", "wgmma.s32.s8.u8"),
        ("m64n8k32.satfinite.s32.u8.u8", "", "wgmma.s32.u8.u8.satfinite"),
    ],
)
def test_other_types_read_32_bytes_of_k_per_row(shape: str, immediates: str, name: str) -> None:
    """tf32 (k8), fp8 (k32) and integer (k32) operands: the same 32 bytes of each row and
    column as the f16 kernel's, under their own op (and their operand lists)."""
    f16 = run_wgmma(wgmma_kernel())
    run = run_wgmma(
        wgmma_kernel(opcode=f"wgmma.mma_async.sync.aligned.{shape}", immediates=immediates)
    )
    for mine, theirs in zip(
        run.output_nodes(run.memory.regions[2], 4), f16.output_nodes(f16.memory.regions[2], 4)
    ):
        assert run.dag.kind(mine) == name
        assert [run.dag.describe(o) for o in run.dag.operands(mine)] == [
            f16.dag.describe(o) for o in f16.dag.operands(theirs)
        ]


def test_f16_accumulators_pack_two_elements_per_register() -> None:
    """``.f16`` D: N/4 registers, element ``2 j`` in the low half of register ``j``."""
    from llverify.emitted.sim.memory import SharedMemory
    from llverify.emitted.sim.symbolic import Dag, Unmodelled, Val
    from llverify.emitted.sim.wgmma import WarpgroupMMA

    shared = SharedMemory(4096, threads=128, warp_size=32)
    shared.write(np.arange(4096)[None, :], np.full((1, 4096), -2), np.array([0]), "init")
    wgmma = WarpgroupMMA(shared, Dag(), 128, 32)
    zero = Val.concrete(0, 32, 128)
    values = {"$2": Val.concrete(0, 64, 128), "$3": Val.concrete(2048 >> 4, 64, 128)}

    def read(operand: str, bits: int) -> Val:
        return values.get(operand, zero if bits != 1 else Val.concrete(0, 1, 128))

    operands = ["{$0,$1}", "$2", "$3", "0", "1", "1", "0", "0"]
    opcode = "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16"
    out = wgmma.mma_async(opcode, operands, read, np.ones(128, dtype=bool), "here")
    assert out.bits == 64 and out.syms is not None and out.syms.shape == (128, 8)
    nodes = out.syms[:, ::2] // 16
    assert (out.syms[:, 1::2] == out.syms[:, ::2] + 1).all()
    assert len({int(n) for n in nodes.ravel()}) == 1  # every A row and B column is 0x01 bytes
    with pytest.raises(Unmodelled, match="expected 2 D"):
        wgmma.mma_async(opcode, ["{$0,$1,$4,$5}", *operands[1:]], read, np.ones(128, bool), "")


def test_the_whole_kernel_is_proved() -> None:
    assert_proved(wgmma_kernel())


def assert_proved(text: str) -> None:
    (verdict,) = validate_llvm_ir(text, shared_bytes=SHARED).verdicts
    assert verdict.status is Status.PROVED, verdict.reason


def refuted(text: str, shared_bytes: int = SHARED) -> str:
    (verdict,) = validate_llvm_ir(text, shared_bytes=shared_bytes).verdicts
    assert verdict.status is Status.REFUTED, verdict.reason
    return verdict.reason or ""


def test_a_descriptor_out_of_shared_memory_is_refuted() -> None:
    reason = refuted(wgmma_kernel(b_desc=B_KMAJOR + (8192 >> 4)))
    assert "out of bounds in shared memory at address 16384" in reason


def test_a_write_of_a_pending_operand_before_the_wait_is_a_race() -> None:
    write = "  store i32 0, ptr addrspace(3) @global_smem, align 4\n"
    reason = refuted(wgmma_kernel(after_issue=write))
    assert "race" in reason and "asynchronously" in reason
    assert_proved(wgmma_kernel(after_wait=write))  # after the wait: the read is done


def test_a_cp_async_into_a_pending_operand_is_a_race() -> None:
    copy = (
        '  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], '
        '0x10, 0x10;", "r,l"(ptr addrspace(3) @global_smem, ptr addrspace(1) %a)\n'
        "  tail call void @llvm.nvvm.cp.async.commit.group()\n"
    )
    wait = "  tail call void @llvm.nvvm.cp.async.wait.group(i32 0)\n"
    assert "race" in refuted(wgmma_kernel(after_issue=copy, after_wait=wait))
    assert_proved(wgmma_kernel(after_wait=copy + wait))


def test_a_wgmma_reading_bytes_a_cp_async_in_flight_writes_is_a_race() -> None:
    text = wgmma_kernel().replace(
        "  tail call void @llvm.nvvm.wgmma.fence.sync.aligned()\n",
        '  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], '
        '0x10, 0x10;", "r,l"(ptr addrspace(3) %pa, ptr addrspace(1) %ga)\n'
        "  tail call void @llvm.nvvm.cp.async.commit.group()\n"
        "  tail call void @llvm.nvvm.wgmma.fence.sync.aligned()\n",
    )
    reason = refuted(text)
    assert "read of a byte a cp.async in flight writes" in reason


def test_an_operand_never_written_is_an_uninitialised_read_reaching_the_store() -> None:
    reason = refuted(wgmma_kernel(copy_b=False))
    assert "uninitialised read" in reason and "undefined bytes reach the global store" in reason


def test_two_warpgroups_need_a_barrier_between_writes_and_the_other_warpgroups_wgmma() -> None:
    """Both warpgroups copy the same tiles and compute the same C (equal stores).  Without the
    barrier, warpgroup 0's wgmma reads bytes warpgroup 1's warps wrote: a race.  With one
    warpgroup the issuing warps' own earlier writes are ordered (the op starts once all four
    warps issued it)."""
    assert_proved(wgmma_kernel(threads=256))
    assert "another warpgroup" in refuted(wgmma_kernel(threads=256, barrier=False))
    assert_proved(wgmma_kernel(barrier=False))


def test_a_write_after_another_warpgroups_wait_needs_a_barrier() -> None:
    write = (
        "  %late = icmp eq i32 %tid, 128\n  br i1 %late, label %w1, label %w2\n"
        "w1:\n  store i32 0, ptr addrspace(3) @global_smem, align 4\n  br label %w2\nw2:\n"
    )
    assert "retired by its wgmma.wait_group" in refuted(wgmma_kernel(threads=256, after_wait=write))
    fenced = "  tail call void @llvm.nvvm.barrier0()\n" + write
    assert_proved(wgmma_kernel(threads=256, after_wait=fenced))


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"issue_guard": "icmp ult i32 %tid, 64"}, "part of a warpgroup"),
        ({"threads": 64}, "whole warpgroups"),
        ({"opcode": "wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16"}, "PTX wgmma"),
        ({"opcode": "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.f16"}, r"\(types\)"),
        ({"immediates": "1, 1, 0, 2"}, "immediates"),
        ({"a_desc": A_LAYOUTS["32B"][1] | (1 << 49)}, "base offset"),
    ],
)
def test_what_is_not_modelled_stays_unknown(change: dict[str, object], reason: str) -> None:
    threads = int(change.get("threads", 128))  # type: ignore[call-overload]
    text = wgmma_kernel(**change)  # type: ignore[arg-type]
    with pytest.raises(UnmodelledAt, match=reason):
        run_wgmma(text, threads=threads)


# -- real kernels ------------------------------------------------------------------------------
def real(name: str) -> tuple[str, dict[str, Any]]:
    text = gzip.decompress((REAL / f"{name}.llir.gz").read_bytes()).decode()
    return text, json.loads((REAL / f"{name}.json").read_text())


def chain(run: Execution, node: int) -> list[tuple[int, int]]:
    """The (A row, B column) nodes of the wgmma chain under ``node``, first K block first."""
    dag = run.dag
    stack, top = [node], None
    while stack and top is None:
        x = stack.pop()
        if dag.kind(x).startswith("wgmma."):
            top = x
        elif dag.kind(x) == "bytes":
            stack.extend(s // 16 for s in dag.pieces(x) or () if s >= 0)
        else:
            stack.extend(dag.operands(x))
    links = []
    while top is not None and dag.kind(top).startswith("wgmma."):
        operands = dag.operands(top)
        links.append((operands[-2], operands[-1]))
        top = operands[0] if len(operands) == 3 else None
    return links[::-1]


def open_elements(run: Execution, node: int) -> list[tuple[int, int]]:
    """(argument, element index) of each bf16 element of a row/column of an open buffer."""
    pieces = run.dag.pieces(node)
    assert pieces is not None
    found = []
    for k in range(0, len(pieces), 2):
        leaf = run.dag.leaf_of(pieces[k] // 16)
        assert leaf is not None and leaf[1] % 2 == 0
        found.append((leaf[0], leaf[1] // 2))
    return found


@pytest.mark.parametrize(
    ("name", "tile"),
    [
        ("mm_n32_128b_64b_4warps", (64, 32)),  # A K-major 128B, B N-major 64B, 1 warpgroup
        ("mm_n16_64b_8warps", (128, 16)),  # A K-major 64B, B N-major 32B, 2 warpgroups
    ],
)
def test_real_matmuls_are_proved_and_compute_each_element_over_all_of_k(
    name: str, tile: tuple[int, int]
) -> None:
    """torch.compile max-autotune ``triton_mm`` (Triton 3.6, sm_90; 512 x 384 @ 384 x 256,
    bf16, both row-major): proved whole, and every element of C's tile stored is the chain of
    wgmma nodes over k = 0..383 in order of row m of A and column n of B, so the descriptors,
    swizzles and fragments agree with the kernel's own cp.async writes and epilogue stores."""
    text, metadata = real(name)
    threads = metadata["num_warps"] * 32
    (verdict,) = validate_llvm_ir(text, threads=threads, shared_bytes=metadata["shared"]).verdicts
    assert verdict.status is Status.PROVED, verdict.reason
    module = parse_llvm_ir(text)
    run = Execution(
        module, "triton_mm", threads=threads, warp_size=32, shared_bytes=metadata["shared"]
    )
    for k in range(5):
        run.add_open(k, f"arg{k}")
    run.run()
    output = run.memory.regions[2]
    stored = 0
    for number, (data, writer, _) in output._pages.items():  # type: ignore[union-attr]
        for offset in np.flatnonzero(writer >= 0)[::2]:
            node = run.dag.from_symbols((int(data[offset]), int(data[offset + 1])))
            index = (number * output.PAGE + int(offset)) // 2  # type: ignore[union-attr]
            m, n = divmod(index, 256)
            links = chain(run, node)
            a = [e for row, _ in links for e in open_elements(run, row)]
            b = [e for _, column in links for e in open_elements(run, column)]
            assert a == [(0, m * 384 + k) for k in range(384)], (m, n)
            assert b == [(1, k * 256 + n) for k in range(384)], (m, n)
            stored += 1
    assert stored == tile[0] * tile[1]


def test_negative_control_a_real_matmul_waiting_for_too_few_groups_is_a_race() -> None:
    """``wgmma.wait_group 1`` made ``2``: the wgmma reading a stage is still pending when the
    pipeline's cp.async refills that stage's buffer."""
    text, metadata = real("mm_n32_128b_64b_4warps")
    bad = re.sub(r"wgmma\.wait_group\.sync\.aligned 1;", "wgmma.wait_group.sync.aligned 2;", text)
    assert bad != text
    (verdict,) = validate_llvm_ir(bad, threads=128, shared_bytes=metadata["shared"]).verdicts
    assert verdict.status is Status.REFUTED and "wgmma" in (verdict.reason or "")
