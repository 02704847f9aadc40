"""Regions of branches on tagged data run under a guard (llverify.emitted.sim.guarded): loops
with concrete trip counts, private memory written and read under path conditions, loads at
data-dependent private addresses bounded by the guard, constant tables, the PTX carry chain,
and what stays unknown (issue 25: libdevice's sinf/cosf in rotary embeddings)."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from llverify.emitted.dumped import validate_llvm_ir
from llverify.emitted.sim import Execution, UnmodelledAt
from llverify.emitted.sim.guarded import implies, low_zero_bits
from llverify.emitted.sim.llvm_ir import parse_llvm_ir
from llverify.emitted.sim.ranges import Ranges, float_bound
from llverify.emitted.sim.replay import evaluate
from llverify.emitted.sim.symbolic import Dag
from llverify.proof.verdict import Status


def run_kernel(text: str, *, threads: int = 32) -> Execution:
    """Run ``@k(ptr addrspace(1) %in, ptr addrspace(1) %out)``: 64 tagged i32 in, 32 out."""
    run = Execution(parse_llvm_ir(text), "k", threads=threads, warp_size=32, shared_bytes=0)
    run.add_input(0, "x", element_bytes=4, count=64)
    run.add_output(1, "y", element_bytes=4, count=32)
    run.run()
    return run


def kernel(guard: str, region: str, after: str = "") -> str:
    """``%x`` is the thread's tagged i32; the branch on ``guard`` (an i1 of ``%x``) enters
    ``region`` (ending with ``%w`` and ``br label %done``), else ``%r`` is 0; then ``after``
    and ``out[%t] = %r``."""
    return (
        "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
        "entry:\n"
        "  %a = alloca [4 x i32], align 4\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %t\n"
        "  %x = load i32, ptr addrspace(1) %p, align 4\n"
        + guard
        + "  br i1 %g, label %fill, label %done\n"
        "fill:\n" + region + "done:\n"
        "  %r = phi i32 [ %w, %read ], [ 0, %entry ]\n"
        + after
        + "  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  store i32 %r, ptr addrspace(1) %o, align 4\n"
        "  ret void\n"
        "}\n"
    )


# a loop of 4 (a concrete trip count) fills a[i] = i * x, then reads a[x]: in bounds iff x < 4
FILL_AND_READ = (
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i32 [ 0, %fill ], [ %n, %loop ]\n"
    "  %s = getelementptr i32, ptr %a, i32 %i\n"
    "  %v = mul i32 %i, %x\n"
    "  store i32 %v, ptr %s, align 4\n"
    "  %n = add i32 %i, 1\n"
    "  %e = icmp eq i32 %n, 4\n"
    "  br i1 %e, label %read, label %loop\n"
    "read:\n"
    "  %q = getelementptr i32, ptr %a, i32 %x\n"
    "  %w = load i32, ptr %q, align 4\n"
    "  br label %done\n"
)
BOUNDED = "  %g = icmp ult i32 %x, 4\n"


def output_value(run: Execution, thread: int, x: int) -> int:
    """What the kernel's output node of ``thread`` evaluates to when its input is ``x``."""
    node = int(run.output_nodes(run.memory.regions[1], 4)[thread])
    leaves = {leaf: x for leaf in run.dag.leaves(node)}
    return evaluate(run.dag, node, leaves)


def test_a_guarded_loop_fills_a_private_array_read_at_an_index_the_guard_bounds() -> None:
    run = run_kernel(kernel(BOUNDED, FILL_AND_READ))
    assert run.violations == [] and run.uninitialised == []
    # the value replays as the kernel computes it: a[x] = x * x when x < 4, else 0
    for x in (0, 1, 2, 3, 4, 7, 2**31 + 1):
        assert output_value(run, 5, x) == ((x * x) % 2**32 if x < 4 else 0)
    (verdict,) = validate_llvm_ir(kernel(BOUNDED, FILL_AND_READ), threads=32).verdicts
    assert verdict.status is Status.PROVED, verdict.reason


def test_a_guard_that_does_not_bound_the_index_leaves_the_load_unknown() -> None:
    with pytest.raises(
        UnmodelledAt, match="not run under a guard.*private load.*not within one allocation"
    ):
        run_kernel(kernel("  %g = icmp ult i32 %x, 5\n", FILL_AND_READ))
    with pytest.raises(UnmodelledAt, match="range.*is not within one buffer"):  # any index
        run_kernel(kernel("  %g = icmp ne i32 %x, 5\n", FILL_AND_READ))


def test_a_private_access_out_of_bounds_under_a_guard_is_unknown_not_refuted() -> None:
    # a[4] only when x < 4 (maybe never): not a refutation
    region = FILL_AND_READ.replace(
        "%q = getelementptr i32, ptr %a, i32 %x", "%q = getelementptr i32, ptr %a, i32 4"
    )
    (verdict,) = validate_llvm_ir(kernel(BOUNDED, region), threads=32).verdicts
    assert verdict.status is Status.UNKNOWN and "outside its allocation" in (verdict.reason or "")
    # the same access on every path is refuted, as before
    plain = kernel(
        BOUNDED,
        FILL_AND_READ,
        after="  %z = getelementptr i32, ptr %a, i32 4\n  %y = load i32, ptr %z, align 4\n",
    )
    (verdict,) = validate_llvm_ir(
        plain.replace("%a = alloca [4 x i32]", "%a = alloca [4 x i32]"), threads=32
    ).verdicts
    assert verdict.status is not Status.PROVED


def test_a_read_after_the_join_of_bytes_written_only_under_the_guard_is_unknown() -> None:
    after = "  %z = load i32, ptr %a, align 4\n"  # a[0] was stored only when x < 4
    with pytest.raises(UnmodelledAt, match="wrote only under a condition"):
        run_kernel(kernel(BOUNDED, FILL_AND_READ, after=after))
    # written before the branch too: the value is a select of the guard, known everywhere
    before = "  store i32 9, ptr %a, align 4\n" + BOUNDED
    run = run_kernel(kernel(before, FILL_AND_READ, after=after.replace("%z", "%r2")))
    assert run.violations == []


def test_bytes_written_on_both_ways_of_a_branch_are_read_after_its_join() -> None:
    """``if (x < 4) a[0] = x * 2; else a[0] = 5;`` then ``a[0]``: written under ``c`` and
    under ``not c``, so everywhere; the value is the select of the two stores."""
    text = (
        "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
        "entry:\n"
        "  %a = alloca [4 x i32], align 4\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %t\n"
        "  %x = load i32, ptr addrspace(1) %p, align 4\n"
        "  %c = icmp ult i32 %x, 4\n"
        "  br i1 %c, label %yes, label %no\n"
        "yes:\n"
        "  %d = shl i32 %x, 1\n"
        "  store i32 %d, ptr %a, align 4\n"
        "  br label %join\n"
        "no:\n"
        "  store i32 5, ptr %a, align 4\n"
        "  br label %join\n"
        "join:\n"
        "  %r = load i32, ptr %a, align 4\n"
        "  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  store i32 %r, ptr addrspace(1) %o, align 4\n"
        "  ret void\n"
        "}\n"
    )
    run = run_kernel(text)
    assert run.violations == [] and run.uninitialised == []
    assert [output_value(run, 1, x) for x in (0, 3, 4, 9)] == [0, 6, 5, 5]
    # written on one way only: unknown after the join
    one_way = text.replace("  store i32 5, ptr %a, align 4\n", "")
    with pytest.raises(UnmodelledAt, match="wrote only under a condition"):
        run_kernel(one_way)


def test_a_private_array_read_at_a_masked_index_without_a_branch() -> None:
    """No guard: ``a[x & 3]`` after a[0..3] are written is a select over the four slots
    (was unknown: a private load at a data-dependent address); ``a[x & 7]`` may leave it."""
    text = (
        "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
        "entry:\n"
        "  %a = alloca [4 x i32], align 4\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %t\n"
        "  %x = load i32, ptr addrspace(1) %p, align 4\n"
        "  br label %fill\n"
        "fill:\n"
        + FILL_AND_READ.replace(
            "%q = getelementptr i32, ptr %a, i32 %x",
            "%m = and i32 %x, 3\n  %q = getelementptr i32, ptr %a, i32 %m",
        )
        + "done:\n"
        "  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  store i32 %w, ptr addrspace(1) %o, align 4\n"
        "  ret void\n"
        "}\n"
    )
    run = run_kernel(text)
    assert run.violations == []
    assert [output_value(run, 0, x) for x in (1, 6, 7)] == [1, 12, 21]  # (x & 3) * x
    with pytest.raises(UnmodelledAt, match="not within one allocation"):
        run_kernel(text.replace("and i32 %x, 3", "and i32 %x, 7"))


def test_a_read_of_bytes_no_store_wrote_under_a_guard_is_unknown() -> None:
    region = FILL_AND_READ.replace(
        "%e = icmp eq i32 %n, 4", "%e = icmp eq i32 %n, 3"
    )  # a[3] unwritten
    with pytest.raises(UnmodelledAt, match="not written before"):
        run_kernel(kernel(BOUNDED, region))


def test_a_region_that_stores_to_global_memory_stays_unknown() -> None:
    region = FILL_AND_READ.replace(
        "  br label %done\n",
        "  %h = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  store i32 %w, ptr addrspace(1) %h, align 4\n"
        "  br label %done\n",
    )
    with pytest.raises(UnmodelledAt, match="store to global memory under a guard"):
        run_kernel(kernel(BOUNDED, region))


def test_a_region_that_loads_an_input_buffer_stays_unknown() -> None:
    region = FILL_AND_READ.replace(
        "  %v = mul i32 %i, %x\n",
        "  %b = getelementptr i32, ptr addrspace(1) %in, i32 %i\n"
        "  %v = load i32, ptr addrspace(1) %b, align 4\n",
    )
    with pytest.raises(UnmodelledAt, match="outside the module's constant tables"):
        run_kernel(kernel(BOUNDED, region))


def test_a_loop_whose_trip_count_depends_on_the_data_stays_unknown() -> None:
    region = FILL_AND_READ.replace("%e = icmp eq i32 %n, 4", "%e = icmp uge i32 %n, %x")
    with pytest.raises(UnmodelledAt, match="trip count depends on tagged data"):
        run_kernel(kernel(BOUNDED, region))


def test_nested_branches_on_data_in_a_guarded_region_select_their_values() -> None:
    # inside the region, a[x] is read only when x is odd; the join picks by both conditions
    region = FILL_AND_READ.replace(
        "read:\n",
        "read:\n  %odd = trunc i32 %x to i1\n  br i1 %odd, label %get, label %skip\nget:\n",
    ).replace(
        "  %w = load i32, ptr %q, align 4\n  br label %done\n",
        "  %u = load i32, ptr %q, align 4\n"
        "  br label %skip\n"
        "skip:\n"
        "  %w = phi i32 [ %u, %get ], [ 100, %read ]\n"
        "  br label %done\n",
    )
    run = run_kernel(kernel(BOUNDED, region).replace("[ %w, %read ]", "[ %w, %skip ]"))
    for x in range(6):
        want = 0 if x >= 4 else x * x if x % 2 else 100
        assert output_value(run, 3, x) == want


def test_divergent_ways_meeting_where_a_branch_on_data_joins_keep_their_own_phis() -> None:
    """Threads 0-15 go through an if-converted region that ends at the join of a divergent
    branch; threads 16-31 reach it the other way and evaluate its phi themselves (they were
    given the region's select)."""
    text = (
        "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
        "entry:\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %t\n"
        "  %x = load i32, ptr addrspace(1) %p, align 4\n"
        "  %lo = icmp ult i32 %t, 16\n"
        "  br i1 %lo, label %A, label %C\n"
        "A:\n"
        "  %c = icmp ult i32 %x, 7\n"
        "  br i1 %c, label %N, label %J\n"
        "N:\n"
        "  %a = add i32 %x, 1\n"
        "  br label %J\n"
        "C:\n"
        "  %b = mul i32 %x, 3\n"
        "  br label %J\n"
        "J:\n"
        "  %r = phi i32 [ %a, %N ], [ %x, %A ], [ %b, %C ]\n"
        "  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  store i32 %r, ptr addrspace(1) %o, align 4\n"
        "  ret void\n"
        "}\n"
    )
    run = run_kernel(text)
    assert output_value(run, 3, 2) == 3 and output_value(run, 3, 9) == 9
    assert output_value(run, 20, 2) == 6 and output_value(run, 20, 9) == 27


# -- libdevice's Payne-Hanek reduction: the index of its table is bounded by |x| >= C -----------
TRIG = (
    "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
    "entry:\n"
    "  %a = alloca [7 x i32], align 4\n"
    "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %t\n"
    "  %x = load i32, ptr addrspace(1) %p, align 4\n"
    "  %f = bitcast i32 %x to float\n"
    "  %m = tail call float @llvm.fabs.f32(float %f)\n"
    "  %g = fcmp ult float %m, 1.056150e+05\n"
    "  br i1 %g, label %done, label %slow\n"
    "slow:\n"
    "  %top = or i32 %x, -2147483648\n"
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i64 [ 0, %slow ], [ %n, %loop ]\n"
    "  %hi = phi i32 [ 0, %slow ], [ %h, %loop ]\n"
    "  %tp = getelementptr inbounds i32, ptr addrspace(1) @table, i64 %i\n"
    "  %k = load i32, ptr addrspace(1) %tp, align 4\n"
    '  %c = tail call { i32, i32 } asm "{\\0A\\09mad.lo.cc.u32   $0, $2, $3, $4;\\0A\\09'
    'madc.hi.u32     $1, $2, $3,  0;\\0A\\09}", "=r,=r,r,r,r"(i32 %k, i32 %top, i32 %hi)\n'
    "  %l = extractvalue { i32, i32 } %c, 0\n"
    "  %h = extractvalue { i32, i32 } %c, 1\n"
    "  %s = getelementptr inbounds i32, ptr %a, i64 %i\n"
    "  store i32 %l, ptr %s, align 4\n"
    "  %n = add i64 %i, 1\n"
    "  %e = icmp eq i64 %n, 6\n"
    "  br i1 %e, label %read, label %loop\n"
    "read:\n"
    "  %sh = lshr i32 %x, 23\n"
    "  %ex = and i32 %sh, 224\n"
    "  %ad = add nsw i32 %ex, -128\n"
    "  %q = lshr exact i32 %ad, 5\n"
    "  %last = getelementptr inbounds i8, ptr %a, i64 24\n"
    "  store i32 %h, ptr %last, align 4\n"
    "  %j = sub nsw i32 6, %q\n"
    "  %jj = sext i32 %j to i64\n"
    "  %jp = getelementptr inbounds i32, ptr %a, i64 %jj\n"
    "  %w = load i32, ptr %jp, align 4\n"
    "  br label %done\n"
    "done:\n"
    "  %r = phi i32 [ %w, %read ], [ 0, %entry ]\n"
    "  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
    "  store i32 %r, ptr addrspace(1) %o, align 4\n"
    "  ret void\n"
    "}\n"
    "@table = internal unnamed_addr addrspace(1) constant [6 x i32] [i32 1011060801, "
    "i32 -614296167, i32 -181084736, i32 -64530479, i32 1313084713, i32 -1560706194], align 4\n"
)


def test_the_payne_hanek_slow_path_is_proved_in_bounds_by_its_guard() -> None:
    run = run_kernel(TRIG)
    assert run.violations == []
    # replayed: for |x| >= 105615.0 the value is word 6 - e of the product x * table
    table = [
        1011060801,
        -614296167 % 2**32,
        -181084736 % 2**32,
        -64530479 % 2**32,
        1313084713,
        -1560706194 % 2**32,
    ]
    for value in (1e6, -3.5e12, 2.0**100, 1.0):
        bits = int(np.array([value], dtype=np.float32).view(np.uint32)[0])
        words, high = [], 0
        top = bits | 0x80000000
        for k in table:
            product = k * top + high
            words.append(product % 2**32)
            high = product >> 32
        words.append(high)
        want = words[6 - ((((bits >> 23) & 224) - 128) >> 5)] if abs(value) >= 105615.0 else 0
        assert output_value(run, 0, bits) == want
    # without the magnitude test the index is unbounded: unknown, not refuted
    unguarded = TRIG.replace("fcmp ult float %m, 1.056150e+05", "fcmp ult float %m, 1.000000e+00")
    (verdict,) = validate_llvm_ir(unguarded, threads=32).verdicts
    assert verdict.status is Status.UNKNOWN and "is not within one" in (verdict.reason or "")


def test_threads_whose_condition_is_built_from_constants_take_their_own_way() -> None:
    """A masked load's default 0.0 in threads 16-31: ``fabs(0.0) < 105615.0`` is a node of
    constants there, decided (true): those threads do not take the slow path, whose index
    would be out of bounds for them."""
    masked = TRIG.replace(
        "  %x = load i32, ptr addrspace(1) %p, align 4\n",
        "  %y = load i32, ptr addrspace(1) %p, align 4\n"
        "  %lo = icmp ult i32 %t, 16\n"
        "  %x = select i1 %lo, i32 %y, i32 0\n",
    ).replace("@llvm.fabs.f32", "@llvm.nvvm.fabs.f32")
    run = run_kernel(masked)
    assert run.violations == []
    assert run.dag.constant_value(int(run.output_nodes(run.memory.regions[1], 4)[20])) == 0


def test_the_carry_of_mad_lo_cc_reaches_madc_hi() -> None:
    """``mad.lo.cc`` then ``madc.hi``: the 64-bit ``a * b + c`` (exact on numbers); on tagged
    data the high word is a node of the carry, which the low addition decides."""
    run = run_kernel(TRIG)
    node = int(run.output_nodes(run.memory.regions[1], 4)[0])
    kinds = set()
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        kinds.add(run.dag.kind(n))
        stack.extend(run.dag.operands(n))
        pieces = run.dag.pieces(n)
        stack.extend(s // 16 for s in pieces or () if s >= 0)
    assert {"ptx.mad.u32.lo.carry", "ptx.madc.u32.hi"} <= kinds
    with pytest.raises(UnmodelledAt, match="carry flag no instruction of its block set"):
        run_kernel(TRIG.replace("mad.lo.cc.u32", "mad.lo.u32"))


def test_a_64_bit_addition_by_add_cc_and_addc_replays_exactly() -> None:
    text = (
        "define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %p = getelementptr i32, ptr addrspace(1) %in, i32 %t\n"
        "  %x = load i32, ptr addrspace(1) %p, align 4\n"
        "  %y = add i32 %x, 3\n"
        '  %s = tail call { i32, i32 } asm "add.cc.u32 $0, $2, $4;\\0A\\09addc.u32 $1, $3, $5;", '
        '"=r,=r,r,r,r,r"(i32 %x, i32 7, i32 %y, i32 9)\n'
        "  %h = extractvalue { i32, i32 } %s, 1\n"
        "  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  store i32 %h, ptr addrspace(1) %o, align 4\n"
        "  ret void\n"
        "}\n"
    )
    run = run_kernel(text)
    for x in (0, 5, 2**32 - 1, 2**31, 2**31 - 2):  # the low words carry from 2**31 - 1 on
        want = (((7 << 32) | x) + ((9 << 32) | (x + 3) % 2**32)) >> 32 & 0xFFFFFFFF
        assert output_value(run, 2, x) == want


# -- the helpers --------------------------------------------------------------------------------
def test_float_bounds_of_compares() -> None:
    assert float_bound("ogt", 0x3F800000, 4) == [(0x3F800001, 0x7F800000)]
    assert float_bound("olt", 0x3F800000, 4, magnitude=True) == [
        (0, 0x3F7FFFFF),
        (0x80000000, 0xBF7FFFFF),
    ]
    assert float_bound("oge", 0xBF800000, 4) == [(0, 0x7F800000), (0x80000000, 0xBF800000)]
    assert float_bound("oge", 0, 4) is None  # zero: subnormals may flush to it
    assert float_bound("oge", 0x7F800000, 4) is None  # infinity
    assert float_bound("ueq", 0x3F800000, 4) is None
    assert float_bound("oge", 0x3FF0000000000000, 8) == [(0x3FF0000000000000, 0x7FF0000000000000)]


def test_float_bounds_hold_on_samples() -> None:
    rng = np.random.default_rng(5)
    samples = np.concatenate(
        [
            rng.integers(0, 2**32, 4000, dtype=np.uint64),
            np.array(
                [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 1, 0x807FFFFF], dtype=np.uint64
            ),
        ]
    ).astype(np.uint32)
    with np.errstate(invalid="ignore"):
        values = samples.view(np.float32).astype(np.float64)
    compares = {
        "oeq": np.equal, "oge": np.greater_equal, "ogt": np.greater, "ole": np.less_equal,
        "olt": np.less,
    }  # fmt: skip
    for constant in (1.0, 105615.0, -2.5, 1e-30, -1e30):
        bits = int(np.array([constant], dtype=np.float32).view(np.uint32)[0])
        for predicate, compare in compares.items():
            for magnitude in (False, True):
                pieces = float_bound(predicate, bits, 4, magnitude)
                if pieces is None:
                    continue
                with np.errstate(invalid="ignore"):
                    holds = compare(np.abs(values) if magnitude else values, constant)
                inside = np.zeros(samples.size, dtype=bool)
                for lo, hi in pieces:
                    inside |= (samples >= lo) & (samples <= hi)
                assert not (holds & ~inside).any(), (predicate, constant, magnitude)


def test_ranges_split_on_the_two_pieces_of_a_magnitude() -> None:
    dag = Dag()
    x = dag.leaf(0, 0, 4)
    ranges = Ranges(dag)
    slow = dag.op("fcmp.ult", (dag.op("nvvm.fabs", (x,), 4), dag.const(0x47CE4780, 4)), 1)
    under = ranges.under([(slow, False)])
    exponent = dag.op("and", (dag.op("lshr", (x, dag.const(23, 4)), 4), dag.const(224, 4)), 4)
    assert under.interval_by_cases(exponent) == (128, 224)
    assert ranges.interval_by_cases(exponent) == (0, 224)  # the ranges under() came from


def test_implication_and_alignment() -> None:
    dag = Dag()
    a, b = dag.leaf(0, 0, 1), dag.leaf(0, 1, 1)
    memo: dict[tuple[int, int], bool] = {}
    both = dag.op("and", (a, b), 1)
    assert implies(dag, both, a, memo) and not implies(dag, a, both, memo)
    assert implies(dag, a, dag.op("or", (b, a), 1), memo)
    index = dag.leaf(0, 2, 8)
    assert low_zero_bits(dag, dag.op("shl", (index, dag.const(3, 8)), 8)) == 3
    assert low_zero_bits(dag, dag.op("add", (index, dag.const(8, 8)), 8)) == 0


# -- a real kernel (PyTorch 2.11 Inductor, Triton 3.6, sm_90; paths scrubbed) -------------------
REAL = Path(__file__).parent / "data" / "emitted" / "inductor"


def test_a_real_rotary_embedding_with_sin_and_cos_is_proved() -> None:
    """mixtral's ``triton_poi_fused_bmm_cat_cos_mul_sin_transpose_1``: libdevice's ``cosf``
    and ``sinf`` inlined twice each, with the Payne-Hanek slow path (a loop over
    ``@__cudart_i2opi_f`` into a private ``[7 x i32]`` read at an index of the exponent), was
    unknown ("the region ... has load")."""
    text = gzip.decompress((REAL / "rotary_sincos_sm90.llir.gz").read_bytes()).decode()
    assert "__cudart_i2opi_f" in text
    (verdict,) = validate_llvm_ir(text, threads=128).verdicts
    assert verdict.status is Status.PROVED, verdict.reason
    # negative control: the magnitude test moved below 2**16 leaves the table index unbounded
    loose = text.replace("1.056150e+05", "1.000000e+00")
    (verdict,) = validate_llvm_ir(loose, threads=128).verdicts
    assert verdict.status is Status.UNKNOWN and "is not within one" in (verdict.reason or "")
