"""Unit tests of the emitted-code executor on hand-written LLVM IR: shuffles, prmt, ldmatrix,
divergence, predicated inline assembly, cp.async, AMD DPP and ds_bpermute, and the memory
checks with their negative controls (no Triton needed)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from llverify.emitted.sim import Execution, UnmodelledAt
from llverify.emitted.sim.llvm_ir import parse_llvm_ir
from llverify.emitted.sim.symbolic import Dag

HEADER = "@global_smem = external addrspace(3) global [0 x i8], align 16\n"


def execute(
    body: str,
    *,
    threads: int = 32,
    warp: int = 32,
    shared: int = 0,
    ty: str = "i32",
    inputs: int = 64,
    outputs: int | None = None,
    element_bytes: int = 4,
) -> Execution:
    """Run ``body`` (``%t`` is the thread id; ``%in``/``%out`` the buffers) and return the run."""
    text = (
        HEADER + "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n" + body + "  ret void\n}\n"
    )
    run = Execution(parse_llvm_ir(text), "k", threads=threads, warp_size=warp, shared_bytes=shared)
    run.add_input(0, "x", element_bytes=element_bytes, count=inputs)
    count = threads if outputs is None else outputs
    run.add_output(1, "y", element_bytes=element_bytes, count=count)
    run.run()
    return run


def stored(run: Execution, element_bytes: int = 4) -> list[str]:
    """What each output element holds, as ``x[i]`` (or a DAG description)."""
    return [run.dag.describe(n) for n in run.output_nodes(run.memory.regions[1], element_bytes)]


LOAD = (
    "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %t\n"
    "  %v = load i32, ptr addrspace(1) %p, align 4\n"
)
STORE = (
    "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
    "  store i32 %r, ptr addrspace(1) %q, align 4\n"
)


def expected_shuffle(mode: str, b: int, c: int, threads: int = 64) -> list[str]:
    """PTX ISA shfl.sync, written out lane by lane (out-of-range sources read their own lane)."""
    out = []
    for tid in range(threads):
        lane, base = tid % 32, tid - tid % 32
        segmask, clamp = (c >> 8) & 0x1F, c & 0x1F
        max_lane = (lane & segmask) | (clamp & ~segmask)
        source = {
            "up": lane - b,
            "down": lane + b,
            "bfly": lane ^ b,
            "idx": (lane & segmask) | (b & ~segmask),
        }[mode]
        valid = source >= max_lane if mode == "up" else source <= max_lane
        out.append(f"x[{base + (source if valid else lane)}]")
    return out


SHUFFLES = [
    ("idx", 5, 0x1F),
    ("idx", 3, 0x181F),
    ("up", 2, 0),
    ("up", 1, 0x1800),
    ("down", 3, 0x1F),
    ("down", 1, 0x181F),
    ("bfly", 16, 0x1F),
    ("bfly", 1, 0x1F),
]


@pytest.mark.parametrize(("mode", "b", "c"), SHUFFLES)
def test_shfl_sync_intrinsic_matches_the_ptx_isa(mode: str, b: int, c: int) -> None:
    body = (
        LOAD
        + (
            f"  %r = tail call i32 @llvm.nvvm.shfl.sync.{mode}.i32(i32 -1, i32 %v, i32 {b}, "
            f"i32 {c})\n"
        )
        + STORE
    )
    assert stored(execute(body, threads=64)) == expected_shuffle(mode, b, c)


@pytest.mark.parametrize(("mode", "b", "c"), SHUFFLES)
def test_shfl_sync_inline_ptx_matches_the_ptx_isa(mode: str, b: int, c: int) -> None:
    body = (
        LOAD
        + (
            f'  %r = tail call i32 asm sideeffect "shfl.sync.{mode}.b32 $0, $1, $2, $3, '
            f'$4;", "=r,r,r,r,r"(i32 %v, i32 {b}, i32 {c}, i32 -1)\n'
        )
        + STORE
    )
    assert stored(execute(body, threads=64)) == expected_shuffle(mode, b, c)


def test_prmt_picks_bytes_of_both_operands() -> None:
    body = (
        LOAD
        + (
            "  %t2 = add i32 %t, 32\n"
            "  %p2 = getelementptr i32, ptr addrspace(1) %in, i32 %t2\n"
            "  %w = load i32, ptr addrspace(1) %p2, align 4\n"
            '  %r = tail call i32 asm "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r"('
            "i32 %v, i32 %w, i32 21520)\n"
        )
        + STORE
    )  # 0x5410: bytes a0 a1 b0 b1
    run = execute(body)
    rows = run.memory.regions[1].data.reshape(-1, 4)
    for tid in range(32):
        a, b = run.dag.leaf(0, tid, 4), run.dag.leaf(0, tid + 32, 4)
        assert rows[tid].tolist() == [16 * a, 16 * a + 1, 16 * b, 16 * b + 1]


def ldmatrix_expected(transposed: bool) -> list[str]:
    """PTX ISA ldmatrix m8n8 .b16 fragments: register i of lane l holds row l/4, columns
    2(l%4) and 2(l%4)+1 of matrix i (with .trans: that element of the transposed matrix)."""
    out = []
    for lane in range(32):
        for i in range(4):
            for j in range(2):
                row, col = lane // 4, 2 * (lane % 4) + j
                if transposed:
                    row, col = col, row
                out.append(f"x[{64 * i + 8 * row + col}]")
    return out


# each lane stores 8 halves (one 16-byte matrix row: matrix lane/8, row lane%8) to shared, then
# gives its row address to ldmatrix; lane l's four registers go to y[8l .. 8l+7]
LDMATRIX_PROLOGUE = (
    "  %e = mul i32 %t, 8\n"
    "  %p = getelementptr half, ptr addrspace(1) %in, i32 %e\n"
    "  %v = load <8 x half>, ptr addrspace(1) %p, align 16\n"
    "  %o = mul i32 %t, 16\n"
    "  %s = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o\n"
    "  store <8 x half> %v, ptr addrspace(3) %s, align 16\n"
    "  tail call void @llvm.nvvm.barrier0()\n"
)
LDMATRIX_EPILOGUE = (
    "  %r0 = extractvalue { i32, i32, i32, i32 } %m, 0\n"
    "  %r1 = extractvalue { i32, i32, i32, i32 } %m, 1\n"
    "  %r2 = extractvalue { i32, i32, i32, i32 } %m, 2\n"
    "  %r3 = extractvalue { i32, i32, i32, i32 } %m, 3\n"
    "  %w0 = insertelement <4 x i32> poison, i32 %r0, i32 0\n"
    "  %w1 = insertelement <4 x i32> %w0, i32 %r1, i32 1\n"
    "  %w2 = insertelement <4 x i32> %w1, i32 %r2, i32 2\n"
    "  %w3 = insertelement <4 x i32> %w2, i32 %r3, i32 3\n"
    "  %q = getelementptr half, ptr addrspace(1) %out, i32 %e\n"
    "  store <4 x i32> %w3, ptr addrspace(1) %q, align 16\n"
)


@pytest.mark.parametrize("transposed", [False, True])
def test_ldmatrix_x4_intrinsic_matches_the_ptx_isa_fragments(transposed: bool) -> None:
    name = "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4" + (".trans" if transposed else "") + ".b16"
    call = f"  %m = tail call {{ i32, i32, i32, i32 }} @{name}(ptr addrspace(3) %s)\n"
    body = LDMATRIX_PROLOGUE + call + LDMATRIX_EPILOGUE
    run = execute(body, shared=512, inputs=256, outputs=256, element_bytes=2)
    assert stored(run, 2) == ldmatrix_expected(transposed)
    assert run.violations == []


@pytest.mark.parametrize("transposed", [False, True])
def test_ldmatrix_x4_inline_ptx_matches_the_ptx_isa_fragments(transposed: bool) -> None:
    opcode = "ldmatrix.sync.aligned.m8n8.x4" + (".trans" if transposed else "") + ".shared.b16"
    call = (
        f'  %m = tail call {{ i32, i32, i32, i32 }} asm sideeffect "{opcode} '
        '{$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r"(ptr addrspace(3) %s)\n'
    )
    body = LDMATRIX_PROLOGUE + call + LDMATRIX_EPILOGUE
    run = execute(body, shared=512, inputs=256, outputs=256, element_bytes=2)
    assert stored(run, 2) == ldmatrix_expected(transposed)


def test_divergent_branch_joins_at_a_phi() -> None:
    body = (
        "  %c = icmp ult i32 %t, 10\n"
        "  br i1 %c, label %low, label %high\n"
        "low:\n"
        "  %pl = getelementptr i32, ptr addrspace(1) %in, i32 %t\n"
        "  %vl = load i32, ptr addrspace(1) %pl, align 4\n"
        "  br label %join\n"
        "high:\n"
        "  %th = xor i32 %t, 1\n"
        "  %ph = getelementptr i32, ptr addrspace(1) %in, i32 %th\n"
        "  %vh = load i32, ptr addrspace(1) %ph, align 4\n"
        "  br label %join\n"
        "join:\n"
        "  %r = phi i32 [ %vl, %low ], [ %vh, %high ]\n"
    ) + STORE
    expected = [f"x[{t if t < 10 else t ^ 1}]" for t in range(32)]
    assert stored(execute(body)) == expected


def test_predicated_inline_asm_store_writes_only_where_the_predicate_holds() -> None:
    body = LOAD + (
        "  %c = icmp ult i32 %t, 8\n"
        "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        '  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", '
        '"r,l,b"(i32 %v, ptr addrspace(1) %q, i1 %c)\n'
    )
    run = execute(body)
    writers = run.memory.regions[1].writer.reshape(-1, 4)[:, 0]
    assert writers.tolist() == list(range(8)) + [-1] * 24
    assert stored(run)[:8] == [f"x[{t}]" for t in range(8)]


CP_ASYNC = (
    "  %o = mul i32 %t, 4\n"
    "  %s = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o\n"
    "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %t\n"
    '  tail call void asm sideeffect "cp.async.ca.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x4, '
    '0x4;", "r,l"(ptr addrspace(3) %s, ptr addrspace(1) %p)\n'
    '  tail call void asm sideeffect "cp.async.commit_group;", ""()\n'
)
CP_READ = (
    "  %t2 = xor i32 %t, 1\n"
    "  %o2 = mul i32 %t2, 4\n"
    "  %s2 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o2\n"
    "  %r = load i32, ptr addrspace(3) %s2, align 4\n"
) + STORE


def test_cp_async_lands_at_wait_group() -> None:
    body = (
        CP_ASYNC + '  tail call void asm sideeffect "cp.async.wait_group 0x0;", ""()\n'
        "  tail call void @llvm.nvvm.barrier0()\n" + CP_READ
    )
    run = execute(body, shared=128)
    assert run.violations == []
    assert stored(run) == [f"x[{t ^ 1}]" for t in range(32)]


def test_cp_async_read_before_wait_group_races_with_the_copy() -> None:
    run = execute(CP_ASYNC + "  tail call void @llvm.nvvm.barrier0()\n" + CP_READ, shared=128)
    assert [v.kind for v in run.violations] == ["race", "uninitialised read"]
    race = run.violations[0]
    assert "read of a byte a cp.async in flight writes" in race.detail


def test_cp_async_wait_group_keeps_the_newest_groups_in_flight() -> None:
    body = (
        CP_ASYNC + '  tail call void asm sideeffect "cp.async.wait_group 0x1;", ""()\n'
        "  tail call void @llvm.nvvm.barrier0()\n" + CP_READ
    )
    kinds = [v.kind for v in execute(body, shared=128).violations]
    assert kinds == ["race", "uninitialised read"]


def test_a_store_to_bytes_a_cp_async_in_flight_writes_is_a_race() -> None:
    store = "  store i32 7, ptr addrspace(3) %s, align 4\n"
    wait = '  tail call void asm sideeffect "cp.async.wait_group 0x0;", ""()\n'
    run = execute(CP_ASYNC + store + wait, shared=128)
    assert [v.kind for v in run.violations] == ["race"]
    assert run.violations[0].detail.startswith("write of a byte a cp.async in flight writes")
    # negative control: the same store after the wait is the thread's own, ordered write
    assert execute(CP_ASYNC + wait + store, shared=128).violations == []


def test_access_of_other_bytes_while_a_copy_is_in_flight_is_clean() -> None:
    """A pipelined loop reads one stage while the next stage's copies are in flight."""
    other_stage = (
        "  %o3 = add i32 %o, 128\n"
        "  %s3 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o3\n"
        "  store i32 7, ptr addrspace(3) %s3, align 4\n"
        "  %r3 = load i32, ptr addrspace(3) %s3, align 4\n"
    )
    wait = '  tail call void asm sideeffect "cp.async.wait_group 0x0;", ""()\n'
    assert execute(CP_ASYNC + other_stage + wait, shared=256).violations == []


AMD = (
    "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %t\n"
    "  %v = load i32, ptr addrspace(1) %p, align 4\n"
    "  %t64 = add i32 %t, 64\n"
    "  %p64 = getelementptr i32, ptr addrspace(1) %in, i32 %t64\n"
    "  %old = load i32, ptr addrspace(1) %p64, align 4\n"
)


def test_dpp_row_shr_shifts_within_rows_of_sixteen_and_keeps_old_at_row_starts() -> None:
    body = (
        AMD
        + (
            "  %r = tail call i32 @llvm.amdgcn.update.dpp.i32(i32 %old, i32 %v, i32 273, "
            "i32 15, i32 15, i1 false)\n"
        )
        + STORE
    )  # 0x111: row_shr:1
    expected = [f"x[{t + 64}]" if t % 16 == 0 else f"x[{t - 1}]" for t in range(64)]
    assert stored(execute(body, threads=64, warp=64, inputs=128)) == expected


def test_dpp_row_shr_with_bound_ctrl_reads_zero_at_row_starts() -> None:
    body = (
        AMD
        + (
            "  %r = tail call i32 @llvm.amdgcn.update.dpp.i32(i32 %old, i32 %v, i32 274, "
            "i32 15, i32 15, i1 true)\n"
        )
        + STORE
    )  # 0x112: row_shr:2
    run = execute(body, threads=64, warp=64, inputs=128)
    rows = run.memory.regions[1].data.reshape(-1, 4)
    for t in range(64):
        if t % 16 < 2:
            assert rows[t].tolist() == [-1] * 4  # the constant 0
        else:
            assert stored(run)[t] == f"x[{t - 2}]"


def test_ds_bpermute_reads_the_lane_at_address_over_four() -> None:
    body = (
        AMD
        + (
            "  %l = add i32 %t, 5\n"
            "  %lm = and i32 %l, 63\n"
            "  %a = shl i32 %lm, 2\n"
            "  %r = tail call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %v)\n"
        )
        + STORE
    )
    assert stored(execute(body, threads=128, warp=64, inputs=128)) == [
        f"x[{t - t % 64 + (t % 64 + 5) % 64}]" for t in range(128)
    ]


# -- memory checks: negative controls ---------------------------------------------------------
SHARED_STORE = (
    "  %o = mul i32 %t, 4\n"
    "  %s = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o\n"
    "  store i32 %v, ptr addrspace(3) %s, align 4\n"
)
# thread t reads what thread t + 32 (another warp) stored
SHARED_READ_OTHER_WARP = (
    "  %t2 = xor i32 %t, 32\n"
    "  %o2 = mul i32 %t2, 4\n"
    "  %s2 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o2\n"
    "  %r = load i32, ptr addrspace(3) %s2, align 4\n"
) + STORE


def test_shared_read_with_no_write_is_an_uninitialised_read() -> None:
    run = execute(SHARED_READ_OTHER_WARP, threads=64, shared=256)
    assert {v.kind for v in run.violations} == {"uninitialised read"}
    assert run.violations[0].space == "shared"


def test_read_of_another_warps_write_without_a_barrier_is_a_race() -> None:
    run = execute(LOAD + SHARED_STORE + SHARED_READ_OTHER_WARP, threads=64, shared=256)
    races = [v for v in run.violations if v.kind == "race"]
    assert races and races[0].thread // 32 != races[0].other_thread // 32


def test_read_of_another_warps_write_after_a_barrier_is_clean() -> None:
    body = LOAD + SHARED_STORE + "  tail call void @llvm.nvvm.barrier0()\n" + SHARED_READ_OTHER_WARP
    run = execute(body, threads=64, shared=256)
    assert run.violations == []
    assert stored(run) == [f"x[{t ^ 32}]" for t in range(64)]


def test_shared_store_outside_the_allocation_is_out_of_bounds() -> None:
    run = execute(LOAD + SHARED_STORE, threads=64, shared=128)
    assert [(v.kind, v.space) for v in run.violations] == [("out of bounds", "shared")]
    assert run.violations[0].address >= 128


def test_threads_storing_different_values_to_one_global_address_conflict() -> None:
    body = LOAD + (
        "  %q = getelementptr i32, ptr addrspace(1) %out, i32 0\n"
        "  store i32 %v, ptr addrspace(1) %q, align 4\n"
    )
    violations = execute(body).violations
    assert [(v.kind, v.space) for v in violations] == [("conflicting store", "global")]
    assert violations[0].thread != violations[0].other_thread


def test_threads_storing_the_same_value_to_one_address_is_not_a_violation() -> None:
    same = (
        "  %p = getelementptr i32, ptr addrspace(1) %in, i32 3\n"
        "  %v = load i32, ptr addrspace(1) %p, align 4\n"
        "  %t4 = lshr i32 %t, 2\n"
        "  %o = shl i32 %t4, 2\n"  # threads 4k..4k+3 share one shared word
        "  %s = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o\n"
        "  store i32 %v, ptr addrspace(3) %s, align 4\n"
        "  %q = getelementptr i32, ptr addrspace(1) %out, i32 0\n"
        "  store i32 %v, ptr addrspace(1) %q, align 4\n"
    )
    run = execute(same, threads=64, shared=256)
    assert run.violations == []
    assert stored(run)[0] == "x[3]"


def test_threads_of_one_store_writing_different_values_to_one_shared_word_are_reported() -> None:
    body = LOAD + (
        "  %t4 = lshr i32 %t, 2\n"
        "  %o = shl i32 %t4, 2\n"
        "  %s = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o\n"
        "  store i32 %v, ptr addrspace(3) %s, align 4\n"
    )
    kinds = {v.kind for v in execute(body, threads=64, shared=256).violations}
    assert kinds == {"nondeterministic store"}


@pytest.mark.parametrize("callee", ["llvm.amdgcn.made.up", "llvm.made.up.i32"])
def test_unknown_intrinsic_is_unmodelled_not_a_pass(callee: str) -> None:
    body = LOAD + f"  %r = tail call i32 @{callee}(i32 %v)\n" + STORE
    with pytest.raises(UnmodelledAt, match=callee):
        execute(body)


def test_expected_shuffle_table_is_itself_the_isa_rule() -> None:
    """The hand table used above agrees with two textbook cases."""
    assert expected_shuffle("bfly", 1, 0x1F, 4) == ["x[1]", "x[0]", "x[3]", "x[2]"]
    assert expected_shuffle("up", 1, 0, 3) == ["x[0]", "x[0]", "x[1]"]


@pytest.mark.parametrize(
    ("operation", "combine"), [("add", "add"), ("max", "smax"), ("umin", "umin")]
)
def test_redux_sync_combines_all_lanes_of_the_warp(operation: str, combine: str) -> None:
    body = LOAD + (
        f"  %r = tail call i32 @llvm.nvvm.redux.sync.{operation}(i32 %v, i32 -1)\n" + STORE
    )
    run = execute(body, threads=64)
    nodes = run.output_nodes(run.memory.regions[1], 4)
    for t in range(64):
        warp = t // 32
        assert nodes[t] == nodes[32 * warp]  # every lane gets the same value
        leaves = sorted(run.dag.leaves(nodes[t]))
        assert leaves == [run.dag.leaf(0, 32 * warp + k, 4) for k in range(32)]
    assert run.dag.describe(nodes[0]).startswith(combine + "(")


@pytest.mark.parametrize("callee", ["llvm.nvvm.vote.ballot.sync", "llvm.nvvm.match.any.sync.i32"])
def test_cross_lane_nvvm_intrinsics_are_not_taken_for_per_thread_math(callee: str) -> None:
    body = LOAD + f"  %r = tail call i32 @{callee}(i32 -1, i32 %v)\n" + STORE
    with pytest.raises(UnmodelledAt, match=callee):
        execute(body)


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        (0, "zext.1.8(trunc.8.1(x[0]))"),
        (8, "zext.1.8(trunc.8.1(x[1]))"),
        (9, "zext.1.8(bit.1(x[1]))"),
    ],
)
def test_a_bit_packed_i1_vector_load_reads_bits_of_bytes(index: int, expected: str) -> None:
    """``<16 x i1>`` is 2 bytes in memory (LLVM folds loads of i8 flags and their trunc to i1
    into one): element 8 is bit 0 of byte 1; element 9, bit 1 of it (never a flag's value)."""
    body = (
        "  %p = getelementptr i8, ptr addrspace(1) %in, i32 0\n"
        "  %m = load <16 x i1>, ptr addrspace(1) %p, align 2\n"
        f"  %b = extractelement <16 x i1> %m, i64 {index}\n"
        "  %r = zext i1 %b to i8\n"
        "  %q = getelementptr i8, ptr addrspace(1) %out, i32 %t\n"
        "  store i8 %r, ptr addrspace(1) %q, align 1\n"
    )
    assert set(stored(execute(body, inputs=16, element_bytes=1), 1)) == {expected}


# -- fixes found by running the generated sweep (scripts/validate_sweep.py) ----------------------
@pytest.mark.parametrize(
    ("ty", "constant", "expected"),
    [
        ("bfloat", "+nan(0x3F)", "0x7fff"),  # Triton's AMD f32->bf16 NaN, as LLVM 21 prints it
        ("bfloat", "0.000000e+00", "0x0"),
        ("bfloat", "-1.000000e+00", "0xbf80"),
        ("float", "-inf", "0xff800000"),
        ("half", "+nan", "0x7e00"),
        ("half", "-snan(0x1)", "0xfc01"),
    ],
)
def test_special_and_bfloat_float_constants_have_their_bits(
    ty: str, constant: str, expected: str
) -> None:
    width = 4 if ty == "float" else 2
    body = (
        "  %c = icmp ult i32 %t, 1000\n"
        f"  %r = select i1 %c, {ty} {constant}, {ty} {'0.0' if ty != 'bfloat' else '0xR0000'}\n"
        f"  %q = getelementptr [{width} x i8], ptr addrspace(1) %out, i32 %t\n"
        f"  store {ty} %r, ptr addrspace(1) %q, align {width}\n"
    )
    assert set(stored(execute(body, element_bytes=width), width)) == {expected}


def test_sext_then_trunc_gives_back_the_element() -> None:
    """A bf16 gather on gfx942 moves each element through ``sext i16 -> i32`` and back: the low
    bytes of a sign extension are the value's own (the sweep refuted 512 right elements)."""
    body = (
        "  %p = getelementptr i16, ptr addrspace(1) %in, i32 %t\n"
        "  %v = load i16, ptr addrspace(1) %p, align 2\n"
        "  %w = sext i16 %v to i32\n"
        "  %r = trunc i32 %w to i16\n"
        "  %q = getelementptr i16, ptr addrspace(1) %out, i32 %t\n"
        "  store i16 %r, ptr addrspace(1) %q, align 2\n"
    )
    run = execute(body, element_bytes=2)
    assert stored(run, 2) == [f"x[{t}]" for t in range(32)]


def test_vector_compare_and_select_run_elementwise() -> None:
    body = (
        "  %p = getelementptr <2 x i32>, ptr addrspace(1) %in, i32 %t\n"
        "  %v = load <2 x i32>, ptr addrspace(1) %p, align 8\n"
        "  %w = shufflevector <2 x i32> %v, <2 x i32> poison, <2 x i32> <i32 1, i32 0>\n"
        "  %c = icmp slt <2 x i32> %v, %w\n"
        "  %s = select <2 x i1> %c, <2 x i32> %v, <2 x i32> %w\n"
        "  %q = getelementptr <2 x i32>, ptr addrspace(1) %out, i32 %t\n"
        "  store <2 x i32> %s, ptr addrspace(1) %q, align 8\n"
    )
    run = execute(body, outputs=64)
    got = stored(run)
    assert got[0] == "select(icmp.slt(x[0], x[1]), x[0], x[1])"
    assert got[1] == "select(icmp.sgt(x[0], x[1]), x[1], x[0])"  # slt(x1, x0), canonical


def test_shufflevector_picks_undefined_elements_and_both_vectors() -> None:
    """Selector elements index the two vectors' elements end to end; an ``undef`` one gives
    undefined bytes (a store of them is flagged, never a value)."""
    body = (
        "  %p = getelementptr <2 x i32>, ptr addrspace(1) %in, i32 %t\n"
        "  %v = load <2 x i32>, ptr addrspace(1) %p, align 8\n"
        "  %w = shufflevector <2 x i32> %v, <2 x i32> <i32 7, i32 9>, "
        "<4 x i32> <i32 3, i32 undef, i32 0, i32 1>\n"
        "  %e = extractelement <4 x i32> %w, i32 %k\n"
        "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  store i32 %e, ptr addrspace(1) %q, align 4\n"
    )
    for k, want in ((0, "0x9"), (2, "x[{2t}]"), (3, "x[{2t1}]")):
        run = execute(body.replace("%k", str(k)), outputs=32)
        got = stored(run)[:2]
        expected = [want.format(**{"2t": 2 * t, "2t1": 2 * t + 1}) for t in range(2)]
        assert got == expected, (k, got)
    undefined = execute(body.replace("%k", "1"), outputs=32)
    assert stored(undefined)[0].startswith("bytes(undef")


def _region(
    *ops: tuple[str, str, tuple[str, ...], str],
    params: tuple[str, ...],
    types: tuple[str, ...],
    returns: tuple[str, ...],
) -> object:
    from types import SimpleNamespace as Ns

    return Ns(
        params=params,
        param_types=types,
        returns=returns,
        ops=tuple(
            Ns(
                results=(r,),
                name=n,
                operands=o,
                attributes=a,
                result_types=("i1" if "cmp" in n else types[0],),
            )
            for r, n, o, a in ops
        ),
    )


ARGMIN = _region(
    ("%lt", "arith.cmpf", ("%a", "%b"), "olt"),
    ("%eq", "arith.cmpf", ("%a", "%b"), "oeq"),
    ("%il", "arith.cmpi", ("%i", "%j"), "slt"),
    ("%tie", "arith.andi", ("%eq", "%il"), ""),
    ("%c", "arith.ori", ("%lt", "%tie"), ""),
    ("%v", "arith.select", ("%c", "%a", "%b"), ""),
    ("%k", "arith.select", ("%c", "%i", "%j"), ""),
    params=("%a", "%i", "%b", "%j"),
    types=("f32", "i32", "f32", "i32"),
    returns=("%v", "%k"),
)
FIRST = _region(
    ("%z", "arith.constant", (), "0.000000e+00 : f32"),
    ("%c", "arith.cmpf", ("%a", "%z"), "une"),
    ("%v", "arith.select", ("%c", "%a", "%b"), ""),
    params=("%a", "%b"),
    types=("f32", "f32"),
    returns=("%v",),
)


def test_combine_matches_when_the_compare_operands_come_in_the_other_order() -> None:
    """LLVM's node order decides whether ``olt(a, b)`` is kept or written ``ogt(b, a)``: the
    match must accept both (argmin was unknown on 5 of 10 blocked cases)."""
    from llverify.emitted.checks import combine_template, expand_combine
    from llverify.emitted.sim.symbolic import Dag

    dag = Dag()
    a, i = dag.leaf(0, 1, 4), dag.leaf(1, 1, 4)  # created first: the higher element second
    b, j = dag.leaf(0, 0, 4), dag.leaf(1, 0, 4)
    lt, eq = dag.op("fcmp.olt", (b, a), 1), dag.op("fcmp.oeq", (b, a), 1)
    c = dag.op("or", (lt, dag.op("and", (eq, dag.op("icmp.slt", (j, i), 1)), 1)), 1)
    node = dag.op("select", (c, b, a), 4)
    assert dag.kind(lt) == "fcmp.ogt"  # stored swapped
    templates = combine_template(ARGMIN, dag)
    assert expand_combine(dag, node, 0, templates, [0, 1]) == (0, 1)


def test_combine_matches_llvms_zero_test_and_inverted_select() -> None:
    """``select(a != 0.0, a, b)`` comes out of LLVM as ``select((bits(a) & 0x7fffffff) == 0, b,
    a)``; both laws hold for every input, NaNs and -0.0 included."""
    from llverify.emitted.checks import combine_template, expand_combine
    from llverify.emitted.sim.symbolic import Dag

    dag = Dag()
    a, b = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    magnitude = dag.op("and", (a, dag.const(0x7FFFFFFF, 4)), 4)
    node = dag.op("select", (dag.op("icmp.eq", (magnitude, dag.const(0, 4)), 1), b, a), 4)
    assert expand_combine(dag, node, 0, combine_template(FIRST, dag), [0]) == (0, 1)
    wrong_mask = dag.op("and", (a, dag.const(0x7FFFFFFE, 4)), 4)  # not the magnitude: no law
    other = dag.op("select", (dag.op("icmp.eq", (wrong_mask, dag.const(0, 4)), 1), b, a), 4)
    with pytest.raises(Exception, match="not an application"):
        expand_combine(dag, other, 0, combine_template(FIRST, dag), [0])


def test_stores_of_a_non_commutative_combine_in_two_orders_are_told_apart() -> None:
    """Lanes holding ``f(x, y)`` and ``f(y, x)`` of a non-commutative combine, storing to one
    address, break Triton's stated assumption (triton-lang/triton#4962), not the layout: such a
    violation is set apart (unknown); any other pair of values stays a refutation."""
    from types import SimpleNamespace as Ns

    from llverify.emitted.checks import mirrored_orders
    from llverify.emitted.sim.memory import Violation
    from llverify.emitted.sim.symbolic import Dag

    dag = Dag()
    x, y, w = (dag.leaf(0, k, 4) for k in range(3))

    def first(p: int, q: int) -> int:
        zero = dag.const(0, 4)
        return dag.op("select", (dag.op("fcmp.une", (p, zero), 1), p, q), 4)

    case = Ns(
        op=Ns(name="tt.reduce"), expectations=[Ns(kind="reduce", combine=FIRST, inputs=("in",))]
    )

    def violation(p: int, q: int) -> Violation:
        return Violation("nondeterministic store", "shared", 1, 0, 0, "st", "", ((p * 16, q * 16),))

    assert mirrored_orders(case, dag, {"in": 0}, violation(first(x, y), first(y, x)))
    assert not mirrored_orders(case, dag, {"in": 0}, violation(first(x, y), first(x, w)))
    assert not mirrored_orders(case, dag, {"in": 0}, violation(x, y))
    add = _region(
        ("%s", "arith.addf", ("%a", "%b"), ""),
        params=("%a", "%b"),
        types=("f32", "f32"),
        returns=("%s",),
    )
    commutative = Ns(
        op=Ns(name="tt.reduce"), expectations=[Ns(kind="reduce", combine=add, inputs=("in",))]
    )
    assert not mirrored_orders(commutative, dag, {"in": 0}, violation(first(x, y), first(y, x)))
    # a scan must combine in order (tl.associative_scan needs associativity only): refuted
    scan = Ns(op=Ns(name="tt.scan"), expectations=[Ns(kind="scan", combine=FIRST, inputs=("in",))])
    assert not mirrored_orders(scan, dag, {"in": 0}, violation(first(x, y), first(y, x)))


def test_a_nondeterministic_store_records_the_values_it_found() -> None:
    body = LOAD + (
        "  %t4 = lshr i32 %t, 2\n"
        "  %o = shl i32 %t4, 2\n"
        "  %s = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o\n"
        "  store i32 %v, ptr addrspace(3) %s, align 4\n"
    )
    run = execute(body, threads=64, shared=256)
    found = [v for v in run.violations if v.kind == "nondeterministic store"]
    assert found and all(a != b for a, b in found[0].values)


def test_bitreverse_of_a_concrete_index() -> None:
    """Triton reverses lane bits with ``llvm.bitreverse.i7`` in some linear-layout converts."""
    body = (
        "  %b = call i7 @llvm.bitreverse.i7(i7 1)\n"
        "  %i = zext i7 %b to i32\n"
        "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %i\n"
        "  %r = load i32, ptr addrspace(1) %p, align 4\n" + STORE
    )
    assert set(stored(execute(body, inputs=128))) == {"x[64]"}


def test_identity_steps_of_a_scan_are_not_elements() -> None:
    """The first element of a scan comes out as ``x + 0`` or through a select on a condition
    that is constant in that thread: both are ``x``."""
    from llverify.emitted.checks import combine_template, expand_combine
    from llverify.emitted.sim.symbolic import Dag

    add = _region(
        ("%s", "arith.addi", ("%a", "%b"), ""),
        params=("%a", "%b"),
        types=("i64", "i64"),
        returns=("%s",),
    )
    dag = Dag()
    x, y = dag.leaf(0, 0, 8), dag.leaf(0, 1, 8)
    zero = dag.op("add", (x, dag.const(0, 8)), 8)
    node = dag.op("add", (dag.op("select", (dag.const(1, 1), zero, y), 8), y), 8)
    assert sorted(expand_combine(dag, node, 0, combine_template(add, dag), [0])) == [0, 1]


def _bf16_sum_in_f32(dag: Dag, a: int, b: int, bias: int = 0x7FFF) -> int:
    """Triton's AMD bf16 add, as the executor records it: widen, f32 add, round to even."""

    def wide(n: int) -> int:
        return dag.from_symbols((-1, -1, n * 16, n * 16 + 1))

    s = dag.op("fadd", (wide(a), wide(b)), 4)
    high = dag.from_symbols((s * 16 + 2, s * 16 + 3, -1, -1))
    odd = dag.op("and", (high, dag.const(1, 4)), 4)
    total = dag.op("add", (odd, dag.op("add", (s, dag.const(bias, 4)), 4)), 4)
    rounded = dag.from_symbols((total * 16 + 2, total * 16 + 3))
    nan = dag.op("fcmp.uno", (s, dag.const(0, 4)), 1)
    return dag.op("select", (nan, dag.const(0x7FFF, 2), rounded), 2)


def test_bf16_add_computed_in_f32_and_rounded_is_the_bf16_add() -> None:
    from llverify.emitted.checks import combine_template, expand_combine
    from llverify.emitted.sim.symbolic import Dag

    add = _region(
        ("%s", "arith.addf", ("%a", "%b"), ""),
        params=("%a", "%b"),
        types=("bf16", "bf16"),
        returns=("%s",),
    )
    dag = Dag()
    x, y = dag.leaf(0, 0, 2), dag.leaf(0, 1, 2)
    node = _bf16_sum_in_f32(dag, x, y)
    assert sorted(expand_combine(dag, node, 0, combine_template(add, dag), [0])) == [0, 1]
    truncating = _bf16_sum_in_f32(dag, x, y, bias=0)  # rounds toward zero: another value
    with pytest.raises(Exception, match="not an application"):
        expand_combine(dag, truncating, 0, combine_template(add, dag), [0])


def test_permlanex16_reads_the_selected_lane_of_the_other_row() -> None:
    """RDNA ``v_permlanex16_b32``: lane 16 r + i reads lane sel[i] of row r ^ 1."""
    body = (
        LOAD
        + (
            "  %r = call i32 @llvm.amdgcn.permlanex16.i32(i32 %v, i32 %v, "
            "i32 1985229328, i32 -19088744, i1 false, i1 false)\n"
        )
        + STORE
    )
    # {src2, src1} = 0xFEDCBA98_76543210: lane i reads lane i of the other row
    got = stored(execute(body, threads=32, warp=32))
    assert got == [f"x[{t ^ 16}]" for t in range(32)]


def test_permlane32_swap_exchanges_the_halves_of_the_wave() -> None:
    body = (
        LOAD
        + (
            "  %s = call { i32, i32 } @llvm.amdgcn.permlane32.swap(i32 %v, i32 %v, "
            "i1 false, i1 false)\n"
            "  %a = extractvalue { i32, i32 } %s, 0\n"
            "  %b = extractvalue { i32, i32 } %s, 1\n"
            "  %lo = icmp ult i32 %t, 32\n"
            "  %r = select i1 %lo, i32 %b, i32 %a\n"
        )
        + STORE
    )
    got = stored(execute(body, threads=64, warp=64))
    assert got == [f"x[{t ^ 32}]" for t in range(64)]


def permlane16_swap_body(mutation: str = "") -> str:
    """Thread t stores the two results of ``permlane16.swap(x[t], x[t + 64])`` at y[2 t],
    y[2 t + 1]."""
    return AMD + (
        f"  %s = call {{ i32, i32 }} @llvm.amdgcn.permlane16.swap(i32 %v, i32 %old, "
        f"i1 false, i1 false){mutation}\n"
        "  %a = extractvalue { i32, i32 } %s, 0\n"
        "  %b = extractvalue { i32, i32 } %s, 1\n"
        "  %e = mul i32 %t, 2\n"
        "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %e\n"
        "  store i32 %a, ptr addrspace(1) %q, align 4\n"
        "  %q1 = getelementptr i32, ptr addrspace(1) %q, i32 1\n"
        "  store i32 %b, ptr addrspace(1) %q1, align 4\n"
    )


def test_permlane16_swap_exchanges_odd_rows_of_vdst_with_even_rows_of_src0() -> None:
    """CDNA4 ``v_permlane16_swap_b32`` (LLVM: "odd rows of the first operand are swapped with
    even rows of the second operand", a row being 16 lanes), written out row by row."""
    run = execute(permlane16_swap_body(), threads=128, warp=64, inputs=192, outputs=256)
    vdst = {t: t for t in range(128)}  # lane t of the first operand: x[t]
    src0 = {t: t + 64 for t in range(128)}  # of the second: x[t + 64]
    new_vdst, new_src0 = dict(vdst), dict(src0)
    for t in range(128):
        if (t % 64) // 16 % 2 == 1:  # an odd row of vdst and the even row before it of src0
            new_vdst[t], new_src0[t - 16] = src0[t - 16], vdst[t]
    got = stored(run)
    assert got[0::2] == [f"x[{new_vdst[t]}]" for t in range(128)]
    assert got[1::2] == [f"x[{new_src0[t]}]" for t in range(128)]
    assert got[2 * 16] == "x[64]" and got[1] == "x[16]"  # lane 16 of vdst <-> lane 0 of src0


def test_permlane16_swap_with_inactive_lanes_or_wave32_is_unmodelled() -> None:
    divergent = (
        AMD
        + "  %c = icmp ult i32 %t, 32\n  br i1 %c, label %in, label %done\nin:\n"
        + "  %s = call { i32, i32 } @llvm.amdgcn.permlane16.swap(i32 %v, i32 %old, "
        "i1 false, i1 false)\n  br label %done\ndone:\n"
    )
    with pytest.raises(UnmodelledAt, match="permlane16.swap"):
        execute(divergent, threads=64, warp=64, inputs=128, outputs=128)
    with pytest.raises(UnmodelledAt, match="permlane16.swap"):
        execute(permlane16_swap_body(), threads=32, warp=32, inputs=96, outputs=64)


def transposed_read_body(bits: int, address: str = "%t", guard: str = "") -> str:
    """Thread t stores x[n t .. n t + n - 1] (n = 64 / bits elements) at shared byte 8 t, waits
    at the barrier, reads ``ds.read.tr<bits>.b64`` at shared byte 8 * ``address`` and stores
    the n elements it gets at y[n t ..]."""
    n = 64 // bits
    vector = f"<{n} x i{bits}>"
    call = (
        f"  %r = call {vector} @llvm.amdgcn.ds.read.tr{bits}.b64.v{n}i{bits}"
        "(ptr addrspace(3) %rp)\n"
    )
    if guard:
        call = f"  br i1 {guard}, label %rd, label %done\nrd:\n{call}  br label %done\ndone:\n"
        call += f"  %r2 = phi {vector} [ %r, %rd ], [ zeroinitializer, %entry2 ]\n"
    return (
        f"  %e = mul i32 %t, {n}\n"
        f"  %p = getelementptr i{bits}, ptr addrspace(1) %in, i32 %e\n"
        f"  %v = load {vector}, ptr addrspace(1) %p, align 8\n"
        "  %o = mul i32 %t, 8\n"
        "  %sp = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o\n"
        f"  store {vector} %v, ptr addrspace(3) %sp, align 8\n"
        "  call void @llvm.amdgcn.s.barrier()\n"
        f"  %ro = mul i32 {address}, 8\n"
        "  %rp = getelementptr i8, ptr addrspace(3) @global_smem, i32 %ro\n"
        + ("  br label %entry2\nentry2:\n" if guard else "")
        + call
        + f"  %q = getelementptr i{bits}, ptr addrspace(1) %out, i32 %e\n"
        f"  store {vector} {'%r2' if guard else '%r'}, ptr addrspace(1) %q, align 8\n"
    )


@pytest.mark.parametrize("bits", [16, 8])
def test_ds_read_tr_gives_each_lane_a_column_of_its_blocks_reads(bits: int) -> None:
    """CDNA4 ``ds_read_b64_tr_b16/b8``: the 64-bit reads of a 16-lane block, laid end to end in
    lane order, are an n x 16 matrix (n = 64 / bits); lane r of the block receives column r.
    Thread t of block g = t // 16 stored x[n t ..] at byte 8 t, so element j of lane t is
    x[16 n g + 16 j + t % 16]."""
    n = 64 // bits
    threads = 128
    run = execute(
        transposed_read_body(bits),
        threads=threads,
        warp=64,
        shared=8 * threads,
        inputs=n * threads,
        outputs=n * threads,
        element_bytes=bits // 8,
    )
    expected = [
        f"x[{16 * n * (t // 16) + 16 * j + t % 16}]" for t in range(threads) for j in range(n)
    ]
    assert stored(run, bits // 8) == expected
    assert run.violations == []


def test_ds_read_tr_takes_each_lanes_own_address() -> None:
    """The rows come from wherever each lane's address points: with lane t of each block
    reading the 8 bytes thread 15 - t stored, lane r gets column r of the reversed rows."""
    threads = 64
    body = transposed_read_body(16, address="%rev").replace(
        "  %ro = mul i32 %rev, 8\n", "  %rev = xor i32 %t, 15\n  %ro = mul i32 %rev, 8\n"
    )
    run = execute(
        body,
        threads=threads,
        warp=64,
        shared=8 * threads,
        inputs=4 * threads,
        outputs=4 * threads,
        element_bytes=2,
    )

    def x(t: int, j: int) -> str:
        source = 16 * (t // 16) + (15 - (4 * j + (t % 16) // 4))  # the thread that stored it
        return f"x[{4 * source + (t % 16) % 4}]"

    assert stored(run, 2) == [x(t, j) for t in range(threads) for j in range(4)]


def test_ds_read_tr_in_divergent_code_or_of_4_bit_elements_is_unmodelled() -> None:
    """The ISA requires EXEC to be all ones; tr4/tr6 pack elements below a byte."""
    body = transposed_read_body(16, guard="%c").replace(
        "  call void @llvm.amdgcn.s.barrier()\n",
        "  call void @llvm.amdgcn.s.barrier()\n  %c = icmp ult i32 %t, 32\n",
    )
    with pytest.raises(UnmodelledAt, match="ds.read.tr16"):
        execute(body, threads=64, warp=64, shared=512, inputs=256, element_bytes=2)
    tr4 = (
        LOAD
        + (
            "  %sp = getelementptr i8, ptr addrspace(3) @global_smem, i32 0\n"
            "  %w = call <2 x i32> @llvm.amdgcn.ds.read.tr4.b64.v2i32(ptr addrspace(3) %sp)\n"
            "  %r = extractelement <2 x i32> %w, i32 0\n"
        )
        + STORE
    )
    with pytest.raises(UnmodelledAt, match="tr4"):
        execute(tr4, threads=64, warp=64, shared=512, inputs=64)


@pytest.mark.parametrize(
    ("control", "source"),
    [
        (0x168, lambda t: t ^ 8),  # row_xmask:8
        (0x153, lambda t: t - t % 16 + 3),
    ],
)  # row_share:3
def test_dpp_row_xmask_and_row_share(control: int, source: Callable[[int], int]) -> None:
    """GFX10+ DPP controls (RDNA reductions use row_xmask); every lane has a source."""
    body = (
        AMD
        + (
            f"  %r = tail call i32 @llvm.amdgcn.update.dpp.i32(i32 %old, i32 %v, "
            f"i32 {control}, i32 15, i32 15, i1 false)\n"
        )
        + STORE
    )
    expected = [f"x[{source(t)}]" for t in range(32)]
    assert stored(execute(body, threads=32, warp=32, inputs=128)) == expected


def test_ballot_gathers_the_predicate_of_every_active_lane_of_the_wave() -> None:
    body = (
        "  %odd = and i32 %t, 1\n"
        "  %p = icmp eq i32 %odd, 1\n"
        "  %b = call i64 @llvm.amdgcn.ballot.i64(i1 %p)\n"
        "  %s = lshr i64 %b, 32\n"
        "  %i = trunc i64 %s to i32\n"
        "  %lo = trunc i64 %b to i32\n"
        "  %r = xor i32 %i, %lo\n"
        "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  store i32 %r, ptr addrspace(1) %q, align 4\n"
    )
    run = execute(body, threads=128, warp=64)
    assert set(stored(run)) == {"0x0"}  # 0xAAAAAAAA in both halves of every wave's mask
    body = body.replace("%r = xor i32 %i, %lo", "%r = add i32 %i, 0")
    assert set(stored(execute(body, threads=128, warp=64))) == {hex(0xAAAAAAAA)}


def test_ctpop_of_a_concrete_mask() -> None:
    """AMD histograms count ballot bits with ``llvm.ctpop.i64``."""
    body = (
        "  %c = call i64 @llvm.ctpop.i64(i64 -6148914691236517206)\n"  # 0xAAAA...: 32 bits
        "  %i = trunc i64 %c to i32\n"
        "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %i\n"
        "  %r = load i32, ptr addrspace(1) %p, align 4\n" + STORE
    )
    assert set(stored(execute(body))) == {"x[32]"}


def test_ops_on_constants_fold_per_thread() -> None:
    """A gather's select chain has, in some threads, conditions computed from constants only
    (``icmp eq 15, and(15, 15)``) while other threads' are tagged: each thread's node folds, so
    the element it selects is the element itself (bf16 gathers on gfx942 were refuted)."""
    dag = Dag()
    x, y = dag.leaf(0, 0, 2), dag.leaf(0, 1, 2)
    fifteen = dag.const(15, 4)
    test = dag.op("icmp.eq", (fifteen, dag.op("and", (fifteen, fifteen), 4)), 1)
    assert dag.op("select", (test, x, y), 2) == x
    assert (
        dag.op(
            "select", (dag.op("icmp.slt", (dag.const(0xFFFFFFFF, 4), dag.const(0, 4)), 1), x, y), 2
        )
        == x
    )  # -1 < 0 signed
    assert dag.kind(dag.op("select", (dag.op("icmp.eq", (x, y), 1), x, y), 2)) == "select"


def test_prmt_intrinsic_picks_what_the_inline_ptx_picks() -> None:
    """``llvm.nvvm.prmt`` (LLVM 21: i8 dot-operand converts on sm80) is ``prmt.b32``."""
    operands = (
        "  %t2 = add i32 %t, 32\n"
        "  %p2 = getelementptr i32, ptr addrspace(1) %in, i32 %t2\n"
        "  %w = load i32, ptr addrspace(1) %p2, align 4\n"
    )
    intrinsic = (
        LOAD + operands + ("  %r = call i32 @llvm.nvvm.prmt(i32 %v, i32 %w, i32 29236)\n") + STORE
    )  # 0x7234
    asm = (
        LOAD
        + operands
        + (
            '  %r = tail call i32 asm "prmt.b32 $0, $1, $2, $3;", '
            '"=r,r,r,r"(i32 %v, i32 %w, i32 29236)\n'
        )
        + STORE
    )
    assert stored(execute(intrinsic)) == stored(execute(asm))
    assert "x[32]" in stored(execute(intrinsic))[0]


def test_wave_barrier_is_a_compiler_barrier_only() -> None:
    body = LOAD + "  call void @llvm.amdgcn.wave.barrier()\n  %r = add i32 %v, 0\n" + STORE
    assert stored(execute(body, threads=64, warp=64)) == [f"x[{t}]" for t in range(64)]


def test_bytes_of_a_select_on_widened_values_are_the_select_of_those_bytes() -> None:
    """gfx942 selects bf16 in 32-bit registers (``sext`` to i32) and keeps the low half: the
    low bytes of ``select(c, sext(a), sext(b))`` are ``select(c, a, b)``."""
    from llverify.emitted.checks import combine_template, expand_combine

    first = _region(
        ("%z", "arith.constant", (), "0.000000e+00 : bf16"),
        ("%c", "arith.cmpf", ("%a", "%z"), "une"),
        ("%v", "arith.select", ("%c", "%a", "%b"), ""),
        params=("%a", "%b"),
        types=("bf16", "bf16"),
        returns=("%v",),
    )
    dag = Dag()
    a, b = dag.leaf(0, 0, 2), dag.leaf(0, 1, 2)

    def wide(n: int) -> int:
        high = dag.op("sext.16.32", (n,), 4)
        return dag.from_symbols((n * 16, n * 16 + 1, high * 16 + 2, high * 16 + 3))

    test = dag.op("fcmp.une", (a, dag.const(0, 2)), 1)
    chosen = dag.op("select", (test, wide(a), wide(b)), 4)
    node = dag.from_symbols((chosen * 16, chosen * 16 + 1))
    assert expand_combine(dag, node, 0, combine_template(first, dag), [0]) == (0, 1)


def test_a_thread_computing_on_constants_holds_constant_bytes() -> None:
    """Where some threads divide tagged data and others constants (an AMD histogram's counts),
    the latter hold the concrete quotient, as a count check expects (they were refuted as "a
    tagged value")."""
    body = (
        LOAD
        + (
            "  %small = icmp ult i32 %t, 16\n"
            "  %n = select i1 %small, i32 %v, i32 4\n"
            "  %r = sdiv i32 %n, 2\n"
        )
        + STORE
    )
    run = execute(body)
    rows = run.memory.regions[1].data.reshape(-1, 4)
    assert rows[20].tolist() == [-3, -1, -1, -1]  # the constant 2
    assert stored(run)[0] == "sdiv(x[0], 0x2)"


def test_combine_match_backtracks_into_an_operands_other_forms() -> None:
    """i8 compares run on zero-extended i32s: ``icmp ne (zext a), 0`` first binds the
    placeholder to ``zext a``, which the select's own ``a`` then contradicts; the match must
    go back and take ``icmp ne a, 0`` (the i8 scans were unknown)."""
    from llverify.emitted.checks import combine_template, expand_combine

    first = _region(
        ("%z", "arith.constant", (), "0"),
        ("%c", "arith.cmpi", ("%a", "%z"), "ne"),
        ("%v", "arith.select", ("%c", "%a", "%b"), ""),
        params=("%a", "%b"),
        types=("i8", "i8"),
        returns=("%v",),
    )
    dag = Dag()
    a, b = dag.leaf(0, 0, 1), dag.leaf(0, 1, 1)
    wide = dag.from_symbols((a * 16, -1, -1, -1))
    node = dag.op("select", (dag.op("icmp.ne", (wide, dag.const(0, 4)), 1), a, b), 1)
    assert expand_combine(dag, node, 0, combine_template(first, dag), [0]) == (0, 1)


def test_low_bytes_of_a_shift_right_by_whole_bytes() -> None:
    from llverify.emitted.sim.rewrite import byte_of

    dag = Dag()
    x = dag.leaf(0, 0, 4)
    shifted = dag.op("ashr", (x, dag.const(16, 4)), 4)
    assert [byte_of(dag, shifted * 16 + k) for k in (0, 1)] == [x * 16 + 2, x * 16 + 3]
    assert byte_of(dag, shifted * 16 + 2) == shifted * 16 + 2  # the sign: not a byte of x


def _hinted_load(load: str, policy: str = "createpolicy.fractional.L2::evict_first.b64") -> str:
    """Triton's (Inductor's) predicated vector load with a cache policy: four words per thread,
    threads 0..7 loading and the others keeping 0, stored to ``%out``."""
    return (
        "  %o = mul i32 %t, 4\n"
        "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %o\n"
        "  %c = icmp ult i32 %t, 8\n"
        f'  %h = tail call i64 asm "{policy} $0, 1.0;", "=l"()\n'
        '  %v = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, 0x0;\\0A\\09'
        "mov.u32 $1, 0x0;\\0A\\09mov.u32 $2, 0x0;\\0A\\09mov.u32 $3, 0x0;\\0A\\09"
        f'@$6 {load} {{ $0, $1, $2, $3 }}, [ $4 + 0 ], $5;", '
        '"=r,=r,=r,=r,l,l,b"(ptr addrspace(1) %p, i64 %h, i1 %c)\n'
        "  %r = extractvalue { i32, i32, i32, i32 } %v, 1\n"
    ) + STORE


@pytest.mark.parametrize(
    "load",
    [
        "ld.global.L1::evict_last.L2::cache_hint.v4.b32",
        "ld.global.L1::evict_first.L2::cache_hint.v4.b32",
        "ld.global.L1::no_allocate.L2::cache_hint.v4.b32",
        "ld.global.L2::evict_last.L2::cache_hint.v4.b32",
    ],
)
def test_cache_hints_and_createpolicy_carry_no_data(load: str) -> None:
    """createpolicy's value is a hint only and the load's qualifiers change nothing: the words
    loaded are those of the load without hints."""
    hinted = stored(execute(_hinted_load(load), inputs=128))
    plain = stored(execute(_hinted_load("ld.global.v4.b32"), inputs=128))
    assert hinted == plain
    assert hinted[:8] == [f"x[{4 * t + 1}]" for t in range(8)]


def test_a_store_with_a_cache_policy_stores_its_value() -> None:
    body = LOAD + (
        "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        '  %h = tail call i64 asm "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;", "=l"()\n'
        '  tail call void asm sideeffect "st.global.L1::no_allocate.L2::cache_hint.b32 '
        '[ $1 + 0 ], { $0 }, $2;", "r,l,l"(i32 %v, ptr addrspace(1) %q, i64 %h)\n'
    )
    assert stored(execute(body)) == [f"x[{t}]" for t in range(32)]


def test_a_cache_policy_used_as_data_is_no_input_element() -> None:
    body = (
        '  %h = tail call i64 asm "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;", "=l"()\n'
        "  %r = trunc i64 %h to i32\n"
    ) + STORE
    assert all(not value.startswith("x[") for value in stored(execute(body)))


@pytest.mark.parametrize(
    ("load", "policy", "unknown"),
    [
        ("ld.global.L2::bogus.L2::cache_hint.v4.b32", None, "L2::bogus"),
        ("ld.global.L1::evict_last.L2::cache_hint.v4.b32", "createpolicy.range.b64", "range"),
        (
            "ld.global.L1::evict_last.L2::cache_hint.v4.b32",
            "createpolicy.fractional.L2::bogus.b64",
            "L2::bogus",
        ),
    ],
)
def test_unknown_cache_qualifiers_stay_unmodelled(
    load: str, policy: str | None, unknown: str
) -> None:
    body = _hinted_load(load) if policy is None else _hinted_load(load, policy)
    with pytest.raises(UnmodelledAt, match=unknown):
        execute(body, inputs=128)


@pytest.mark.parametrize(
    "instruction",
    [
        "  %a = va_arg ptr addrspace(1) %out, i32\n",
        "  %a = cmpxchg ptr addrspace(1) %out, i32 0, i32 %t monotonic monotonic, align 4\n",
    ],
)
def test_an_instruction_with_no_syntax_is_unmodelled_naming_it(instruction: str) -> None:
    """va_arg and cmpxchg are read (not a parse error) and refused by the executor."""
    opcode = instruction.split()[2]
    with pytest.raises(UnmodelledAt, match=f"instruction '{opcode}'"):
        execute(LOAD + instruction + "  %r = add i32 %v, 0\n" + STORE)


_I8_FROM_C = (
    '  %h = trunc i32 %v to i16\n  %b = tail call i8 asm "mov.b16 $0, $1;", "=c,h"(i16 %h)\n'
)


def test_an_i8_output_of_a_c_register_is_its_low_byte() -> None:
    """PTX has no 8-bit registers: an ``i8`` result bound by ``=c`` lives in a 16-bit one and
    is its low byte (inserted into a vector it used to be a shape mismatch)."""
    body = (
        LOAD
        + _I8_FROM_C
        + (
            "  %w = insertelement <4 x i8> zeroinitializer, i8 %b, i32 0\n"
            "  %r = bitcast <4 x i8> %w to i32\n"
        )
        + STORE
    )
    assert stored(execute(body)) == [f"bytes(x[{t}].b0, 0x0, 0x0, 0x0)" for t in range(32)]
    widened = LOAD + _I8_FROM_C + "  %r = zext i8 %b to i32\n" + STORE
    assert stored(execute(widened)) == stored(execute(body))


def test_i8_fields_of_a_struct_output_are_one_byte_each() -> None:
    body = (
        '  %s = tail call { i8, i8 } asm "mov.b16 $0, 1;\\0A\\09mov.b16 $1, 2;", "=c,=c"()\n'
        "  %b = extractvalue { i8, i8 } %s, 1\n"
        "  %r = zext i8 %b to i32\n"
    ) + STORE
    assert set(stored(execute(body))) == {"0x2"}


def _vector_call(callee: str, ty: str, count: int, per_element: bool) -> str:
    """Load ``<count x ty>`` per thread, combine it with its reverse by ``callee`` (the vector
    form, or the scalar form ``per_element``, element by element) and store the result."""
    vector = f"<{count} x {ty}>"
    reverse = ", ".join(f"i32 {count - 1 - k}" for k in range(count))
    body = (
        f"  %p = getelementptr {vector}, ptr addrspace(1) %in, i32 %t\n"
        f"  %v = load {vector}, ptr addrspace(1) %p, align 8\n"
        f"  %w = shufflevector {vector} %v, {vector} poison, <{count} x i32> <{reverse}>\n"
    )
    if not per_element:
        body += f"  %r{count} = call {vector} @{callee}({vector} %v, {vector} %w)\n"
    else:
        scalar = re.sub(r"\.v\d+", ".", callee)
        body += f"  %r0 = bitcast {vector} poison to {vector}\n"
        for k in range(count):
            body += (
                f"  %a{k} = extractelement {vector} %v, i32 {k}\n"
                f"  %b{k} = extractelement {vector} %w, i32 {k}\n"
                f"  %e{k} = call {ty} @{scalar}({ty} %a{k}, {ty} %b{k})\n"
                f"  %r{k + 1} = insertelement {vector} %r{k}, {ty} %e{k}, i32 {k}\n"
            )
    return body + (
        f"  %q = getelementptr {vector}, ptr addrspace(1) %out, i32 %t\n"
        f"  store {vector} %r{count}, ptr addrspace(1) %q, align 8\n"
    )


@pytest.mark.parametrize(
    ("callee", "ty", "count", "width"),
    [
        ("llvm.maxnum.v2f32", "float", 2, 4),
        ("llvm.minnum.v2f32", "float", 2, 4),
        ("llvm.smin.v2i32", "i32", 2, 4),
        ("llvm.umax.v4i16", "i16", 4, 2),
    ],
)
def test_a_vector_intrinsic_is_its_scalar_form_element_by_element(
    callee: str, ty: str, count: int, width: int
) -> None:
    """Vectorised reductions call ``llvm.maxnum.v2f32`` and the like: element k of the result
    is the scalar call on elements k of the operands (one node each, not one 8-byte value)."""
    runs = [
        execute(_vector_call(callee, ty, count, split), outputs=32 * count, element_bytes=width)
        for split in (False, True)
    ]
    vector, scalar = (stored(run, width) for run in runs)
    assert vector == scalar
    name = re.sub(r"llvm\.|\.v\d+\w+", "", callee)
    assert vector[0] == f"{name}(x[0], x[{count - 1}])"  # element 0 reads elements 0 and its mirror
    leaves = runs[0].dag.leaves(runs[0].output_nodes(runs[0].memory.regions[1], width)[0])
    assert sorted(leaves) == sorted(
        [runs[0].dag.leaf(0, 0, width), runs[0].dag.leaf(0, count - 1, width)]
    )


@pytest.mark.parametrize(
    ("callee", "ty", "left", "right", "expected"),
    [
        ("llvm.smin.v2i32", "i32", "i32 -1, i32 5", "i32 3, i32 -7", [-1, -7]),
        ("llvm.umax.v2i32", "i32", "i32 1, i32 9", "i32 4, i32 2", [4, 9]),
        ("llvm.smax.v2i16", "i16", "i16 -3, i16 6", "i16 2, i16 -8", [2, 6]),
    ],
)
def test_a_vector_intrinsic_of_constants_folds_element_by_element(
    callee: str, ty: str, left: str, right: str, expected: list[int]
) -> None:
    vector = f"<2 x {ty}>"
    body = f"  %m = call {vector} @{callee}({vector} <{left}>, {vector} <{right}>)\n"
    for k in range(2):
        body += (
            f"  %e{k} = extractelement {vector} %m, i32 {k}\n"
            f"  %s{k} = sext {ty} %e{k} to i32\n"
            f"  %i{k} = add i32 %s{k}, 16\n"
            f"  %p{k} = getelementptr i32, ptr addrspace(1) %in, i32 %i{k}\n"
            f"  %l{k} = load i32, ptr addrspace(1) %p{k}, align 4\n"
        )
    body += (
        "  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  %r = sub i32 %l0, %l1\n"
        "  store i32 %r, ptr addrspace(1) %q, align 4\n"
    )
    assert set(stored(execute(body))) == {f"sub(x[{16 + expected[0]}], x[{16 + expected[1]}])"}


def test_a_vector_intrinsic_with_no_scalar_handler_stays_unmodelled() -> None:
    body = (
        "  %p = getelementptr <2 x i32>, ptr addrspace(1) %in, i32 %t\n"
        "  %v = load <2 x i32>, ptr addrspace(1) %p, align 8\n"
        "  %r = call <2 x i32> @llvm.ctlz.v2i32(<2 x i32> %v, i1 false)\n"
        "  %q = getelementptr <2 x i32>, ptr addrspace(1) %out, i32 %t\n"
        "  store <2 x i32> %r, ptr addrspace(1) %q, align 8\n"
    )
    with pytest.raises(UnmodelledAt, match=r"llvm\.ctlz\.v2i32"):
        execute(body, outputs=64)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        ("<2 x float> @llvm.fabs.v2f32(<2 x float> %v)", "fabs"),
        ("<2 x i32> @llvm.abs.v2i32(<2 x i32> %v, i1 false)", "abs"),
    ],
)
def test_a_unary_vector_intrinsic_passes_its_scalar_operands_to_every_element(
    call: str, name: str
) -> None:
    vector = call.split(" @")[0]
    body = (
        f"  %p = getelementptr {vector}, ptr addrspace(1) %in, i32 %t\n"
        f"  %v = load {vector}, ptr addrspace(1) %p, align 8\n"
        f"  %r = call {call}\n"
        f"  %q = getelementptr {vector}, ptr addrspace(1) %out, i32 %t\n"
        f"  store {vector} %r, ptr addrspace(1) %q, align 8\n"
    )
    assert stored(execute(body, outputs=64))[:4] == [f"{name}(x[{k}])" for k in range(4)]


def test_a_vector_fmuladd_is_one_node_per_element_with_a_scalar_operand_broadcast() -> None:
    """``llvm.fmuladd.v4f32`` (the FMA dot's inner step) with a splat and a vector operand:
    element k of thread t is ``fmuladd(a[k], b, c[k])``, the node the scalar call makes."""
    vector = "<4 x float>"
    body = (
        f"  %p = getelementptr {vector}, ptr addrspace(1) %in, i32 %t\n"
        f"  %v = load {vector}, ptr addrspace(1) %p, align 8\n"
        "  %q0 = getelementptr float, ptr addrspace(1) %in, i32 7\n"
        "  %s = load float, ptr addrspace(1) %q0, align 4\n"
        f"  %i = insertelement {vector} poison, float %s, i32 0\n"
        f"  %b = shufflevector {vector} %i, {vector} poison, <4 x i32> zeroinitializer\n"
        f"  %r4 = call {vector} @llvm.fmuladd.v4f32({vector} %v, {vector} %b, {vector} %v)\n"
        f"  %q = getelementptr {vector}, ptr addrspace(1) %out, i32 %t\n"
        f"  store {vector} %r4, ptr addrspace(1) %q, align 8\n"
    )
    run = execute(body, outputs=32 * 4, element_bytes=4)
    values = stored(run, 4)
    assert values[:4] == [f"fmuladd(x[{k}], x[7], x[{k}])" for k in range(4)]
    assert values[4 * 5 + 2] == "fmuladd(x[22], x[7], x[22])"


def _fmuladd_runs() -> str:
    """Each thread loads x[t], x[t + 32], x[t + 64], x[t + 96], runs a chain of three
    fmuladds through the accumulator, then two independent ones (the second reads no fresh
    node), and stores the three results."""
    body = ""
    for k in range(4):
        body += (
            f"  %i{k} = add i32 %t, {32 * k}\n"
            f"  %p{k} = getelementptr float, ptr addrspace(1) %in, i32 %i{k}\n"
            f"  %a{k} = load float, ptr addrspace(1) %p{k}, align 4\n"
        )
    body += (
        "  %c1 = call float @llvm.fmuladd.f32(float %a0, float %a1, float %a2)\n"
        "  %c2 = call float @llvm.fmuladd.f32(float %a1, float %a2, float %c1)\n"
        "  %c3 = call float @llvm.fmuladd.f32(float %a2, float %a3, float %c2)\n"
        "  %apart = add i32 %t, 1\n"  # the chain ends here
        "  %d1 = call float @llvm.fmuladd.f32(float %a3, float %a0, float %c3)\n"
        "  %d2 = call float @llvm.fmuladd.f32(float %a3, float %a0, float %c2)\n"
    )
    for k, result in enumerate(("c3", "d1", "d2")):
        body += (
            f"  %o{k} = add i32 %t, {32 * k}\n"
            f"  %q{k} = getelementptr float, ptr addrspace(1) %out, i32 %o{k}\n"
            f"  store float %{result}, ptr addrspace(1) %q{k}, align 4\n"
        )
    return body


def test_runs_of_math_calls_made_at_once_are_the_calls_one_by_one(monkeypatch) -> None:
    """A chain of fmuladds and a run of independent ones are made at once (Dag.apply_run):
    the same DAG, node for node, and the same stored values as one call at a time."""
    made: list[int] = []
    apply_run = Dag.apply_run

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        values = apply_run(self, *args, **kwargs)
        made.append(len(values))
        return values

    monkeypatch.setattr(Dag, "apply_run", counted)
    batched = execute(_fmuladd_runs(), ty="float", inputs=128, outputs=96)
    assert made == [3, 1]  # the chain whole; of the independent pair, the first only
    monkeypatch.setattr(Execution, "_math_runs", lambda self, block: {})
    single = execute(_fmuladd_runs(), ty="float", inputs=128, outputs=96)
    assert made == [3, 1]
    assert batched.dag.nodes == single.dag.nodes and stored(batched) == stored(single)
    assert batched.executed == single.executed and batched.steps == single.steps
    chain = "fmuladd(x[64], x[96], fmuladd(x[32], x[64], fmuladd(x[0], x[32], x[64])))"
    assert stored(batched)[0] == chain
