"""Whole-kernel validation of gathers (issue 25): device asserts as assumptions, loads and
atomics at addresses that depend on tagged data decided by range analysis, constant tables,
and two real Inductor kernels (an embedding, an embedding backward) as regression fixtures.

The fixtures under tests/data/emitted/inductor/ are kernels of the corpus of issue 25
(PyTorch 2.11, Triton 3.6.0, sm_90).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from llverify.emitted.dumped import validate_llvm_ir
from llverify.emitted.sim import Execution, UnmodelledAt
from llverify.emitted.sim.llvm_ir import parse_llvm_ir
from llverify.proof.verdict import Status

DATA = Path(__file__).resolve().parent / "data" / "emitted" / "inductor"

ASSERT_FAIL = (
    "fail:\n"
    "  tail call void @__assertfail(ptr null, ptr null, i32 7, ptr null, i64 1)\n"
    "  unreachable\n"
)


def embedding(check: str = "  %ok = icmp ult i64 %w, 16\n", *, row: str = "%w") -> str:
    """``out[t] = table[idx[t % 8] * 4]``: an embedding of 16 rows of 4 floats, whose index
    Inductor wraps (``idx + 16 if idx < 0``) and asserts (``check``, branching on ``%ok``)."""
    body = (
        "define void @k(ptr addrspace(1) %idx, ptr addrspace(1) %table, "
        "ptr addrspace(1) %out) {\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %e = and i32 %t, 7\n"
        "  %p = getelementptr i64, ptr addrspace(1) %idx, i32 %e\n"
        "  %i = load i64, ptr addrspace(1) %p, align 8\n"
        "  %s = lshr i64 %i, 59\n"
        "  %m = and i64 %s, 16\n"
        "  %w = add i64 %m, %i\n"
    )
    if check:
        body += check + "  br i1 %ok, label %go, label %fail\n" + ASSERT_FAIL + "go:\n"
    return body + (
        f"  %r = shl i64 {row}, 2\n"
        "  %q = getelementptr float, ptr addrspace(1) %table, i64 %r\n"
        "  %v = load float, ptr addrspace(1) %q, align 4\n"
        "  %o = getelementptr float, ptr addrspace(1) %out, i32 %t\n"
        "  store float %v, ptr addrspace(1) %o, align 4\n"
        "  ret void\n}\n"
    )


def run(text: str, *, rows: int = 16, threads: int = 32) -> Execution:
    """Run ``@k(%idx, %table, %out)``: 8 tagged i64 indices, a table of ``rows`` rows of 4
    tagged floats, ``threads`` float outputs."""
    execution = Execution(parse_llvm_ir(text), "k", threads=threads, warp_size=32, shared_bytes=0)
    execution.add_input(0, "idx", element_bytes=8, count=8)
    execution.add_input(1, "table", element_bytes=4, count=4 * rows)
    execution.add_output(2, "out", element_bytes=4, count=threads)
    execution.run()
    return execution


def stored(execution: Execution) -> list[int]:
    return execution.output_nodes(execution.memory.regions[2], 4)


# -- device asserts ------------------------------------------------------------------------------
def test_an_embedding_gather_behind_its_assert_is_in_bounds() -> None:
    execution = run(embedding())
    assert execution.violations == [] and execution.asserts == 1
    nodes = stored(execution)
    assert execution.dag.describe(nodes[0]).startswith("gather.1(")
    # threads 0 and 8 read the same index element: the same address, the same value
    assert nodes[0] == nodes[8] and nodes[0] != nodes[1]
    (fact,) = execution.ranges.facts[:1]
    assert fact[1] is True


def test_the_same_gather_without_its_assert_is_unknown_naming_the_range() -> None:
    with pytest.raises(UnmodelledAt, match="not within one buffer") as caught:
        run(embedding(check=""))
    assert "load at LLVM IR line" in str(caught.value) or "LLVM IR line" in str(caught.value)


def test_an_assert_bound_larger_than_the_table_is_unknown_not_proved() -> None:
    with pytest.raises(UnmodelledAt, match=r"bytes \[0x0, 0x104\) of table \(a buffer of 256"):
        run(embedding("  %ok = icmp ult i64 %w, 17\n"))
    run(embedding("  %ok = icmp ult i64 %w, 17\n"), rows=17)  # a table of 17 rows: in bounds


def test_an_assert_on_another_load_of_the_same_element_bounds_the_address() -> None:
    other = (
        "  %p2 = getelementptr i64, ptr addrspace(1) %idx, i32 %e\n"
        "  %i2 = load i64, ptr addrspace(1) %p2, align 8\n"
        "  %s2 = lshr i64 %i2, 59\n"
        "  %m2 = and i64 %s2, 16\n"
        "  %w2 = add i64 %m2, %i2\n"
        "  %ok = icmp ult i64 %w2, 16\n"
    )
    assert run(embedding(other)).violations == []
    # the assert on a different element bounds nothing the address uses
    elsewhere = other.replace("i32 %e\n", "i32 0\n", 1)
    with pytest.raises(UnmodelledAt, match="not within one buffer"):
        run(embedding(elsewhere))


def test_an_assert_on_the_wrapped_index_does_not_bound_the_raw_one() -> None:
    # the assert checks idx (+ 16 when negative) in [0, 16), the address uses the raw idx
    with pytest.raises(UnmodelledAt, match="not within one buffer"):
        run(embedding(row="%i"))


def test_an_assert_and_an_address_spelling_one_select_two_ways() -> None:
    # nll_loss: the assert wraps x == -100 ? 0 : x, the address x != -100 ? x : 0
    def check(ignored: int) -> str:
        return (
            "  %is = icmp eq i64 %i, -100\n"
            "  %a = select i1 %is, i64 0, i64 %i\n"
            "  %an = icmp slt i64 %a, 0\n"
            "  %a16 = add i64 %a, 16\n"
            "  %aw = select i1 %an, i64 %a16, i64 %a\n"
            "  %bad = icmp ugt i64 %aw, 15\n"
            "  %ok = xor i1 %bad, true\n"
            f"  %not = icmp ne i64 %i, {ignored}\n"
            "  %b = select i1 %not, i64 %i, i64 0\n"
            "  %bn = icmp slt i64 %b, 0\n"
            "  %b16 = add i64 %b, 16\n"
            "  %bw = select i1 %bn, i64 %b16, i64 %b\n"
        )

    assert run(embedding(check(-100), row="%bw")).violations == []
    with pytest.raises(UnmodelledAt, match="not within one buffer"):
        run(embedding(check(-99), row="%bw"))  # another value ignored: another index


def test_an_assert_on_no_element_of_a_vector_of_failures_bounds_each() -> None:
    # LLVM tests a vector of asserts at once: bitcast <2 x i1> to i2, compared with 0
    check = (
        "  %j = load i64, ptr addrspace(1) %idx, align 8\n"
        "  %bad0 = icmp uge i64 %w, 16\n"
        "  %bad1 = icmp uge i64 %j, 16\n"
        "  %v0 = insertelement <2 x i1> poison, i1 %bad0, i64 0\n"
        "  %v1 = insertelement <2 x i1> %v0, i1 %bad1, i64 1\n"
        "  %bits = bitcast <2 x i1> %v1 to i2\n"
        "  %ok = icmp eq i2 %bits, 0\n"
    )
    assert run(embedding(check)).violations == []
    with pytest.raises(UnmodelledAt, match="not within one buffer"):
        run(embedding(check.replace("icmp eq i2 %bits, 0", "icmp ne i2 %bits, 3")))


def test_an_assert_whose_failure_branch_does_more_is_not_an_assumption() -> None:
    text = embedding().replace(
        "  tail call void @__assertfail", "  %x = add i32 %t, 1\n  tail call void @__assertfail"
    )
    with pytest.raises(UnmodelledAt, match="no join|unreachable"):
        run(text)


def test_a_thread_whose_assert_fails_on_every_input_stops_there() -> None:
    text = embedding("  %ok = icmp ult i32 %t, 16\n").replace(
        "%r = shl i64 %w, 2", "%w.b = and i64 %w, 15\n  %r = shl i64 %w.b, 2"
    )
    execution = run(text)
    assert execution.aborted and execution.aborted[0][0] == 16
    region = execution.memory.regions[2]
    assert (region.writer.reshape(-1, 4)[16:] == -1).all()  # the aborted threads store nothing
    assert (region.writer.reshape(-1, 4)[:16] >= 0).all()


def test_the_dumped_claim_says_it_holds_where_no_assert_fails() -> None:
    (verdict,) = validate_llvm_ir(embedding(), threads=32).verdicts
    assert verdict.status is Status.PROVED
    assert "no device assert fails" in verdict.claim
    (plain,) = validate_llvm_ir(embedding(check=""), threads=32).verdicts
    assert plain.status is Status.UNKNOWN and "not within one buffer" in (plain.reason or "")
    assert "device assert" not in plain.claim


def test_a_refutation_needs_an_input_on_which_every_assert_passes() -> None:
    # after the assert, thread 0 stores out of bounds: refuted when the assert can pass
    tail = (
        "  %bad = getelementptr float, ptr addrspace(1) %out, i64 -1\n"
        "  store float 0.0, ptr addrspace(1) %bad, align 4\n"
    )
    text = embedding().replace("  ret void\n}", tail + "  ret void\n}")
    (verdict,) = validate_llvm_ir(text, threads=32).verdicts
    assert verdict.status is Status.REFUTED
    # an assert no input passes (%w == 1 and %w == 2): never refuted
    never = "  %one = icmp eq i64 %w, 1\n  %two = icmp eq i64 %w, 2\n  %ok = and i1 %one, %two\n"
    (verdict,) = validate_llvm_ir(
        embedding(never).replace("  ret void\n}", tail + "  ret void\n}"), threads=32
    ).verdicts
    assert verdict.status is Status.UNKNOWN
    assert "no input was found on which every device assert passes" in (verdict.reason or "")


def test_a_replay_of_different_stored_values_must_meet_the_asserts() -> None:
    # threads 0 and 1 store idx[0] and 5 to one output element; the assert says idx[0] == 5
    def kernel(check: str) -> str:
        return (
            "define void @k(ptr addrspace(1) %idx, ptr addrspace(1) %table, "
            "ptr addrspace(1) %out) {\n"
            "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
            "  %i = load i64, ptr addrspace(1) %idx, align 8\n"
            + check
            + "  %first = icmp eq i32 %t, 0\n"
            "  %v = select i1 %first, i64 %i, i64 5\n"
            "  %few = icmp ult i32 %t, 2\n"
            "  br i1 %few, label %st, label %end\n"
            "st:\n"
            "  store i64 %v, ptr addrspace(1) %out, align 8\n"
            "  br label %end\n"
            "end:\n"
            "  ret void\n}\n"
        )

    check = "  %ok = icmp eq i64 %i, 5\n  br i1 %ok, label %go, label %fail\n" + ASSERT_FAIL
    (verdict,) = validate_llvm_ir(kernel(check + "go:\n"), threads=32).verdicts
    assert verdict.status is not Status.REFUTED
    (verdict,) = validate_llvm_ir(kernel(""), threads=32).verdicts
    assert verdict.status is Status.REFUTED and verdict.violation == "conflicting store"


# -- atomics ------------------------------------------------------------------------------------
SCATTER_ADD = (
    "  %r = shl i64 %w, 2\n"
    "  %q = getelementptr float, ptr addrspace(1) %table, i64 %r\n"
    "  %g = getelementptr float, ptr addrspace(1) %out, i64 %r\n"
)


def scatter(update: str, check: str = "  %ok = icmp ult i64 %w, 8\n") -> str:
    """``out[idx[t % 8] * 4] += table[t]`` by an atomic ``update`` of ``%g`` with ``%v``."""
    text = embedding(check)
    head, _, _ = text.partition("  %r = shl")
    return head + (
        "  %r = shl i64 %w, 2\n"
        "  %pv = getelementptr float, ptr addrspace(1) %table, i32 %t\n"
        "  %v = load float, ptr addrspace(1) %pv, align 4\n"
        "  %g = getelementptr float, ptr addrspace(1) %out, i64 %r\n" + update + "  ret void\n}\n"
    )


ATOMICRMW = "  %old = atomicrmw fadd ptr addrspace(1) %g, float %v monotonic, align 4\n"
ATOM_PTX = (
    '  %old = tail call float asm sideeffect "mov.u32 $0, 0x0;\\0A\\09@$3 '
    'atom.global.gpu.relaxed.add.f32 $0, [ $1 + 0 ], $2;", "=r,l,r,b"'
    "(ptr addrspace(1) %g, float %v, i1 true)\n"
)


@pytest.mark.parametrize("update", [ATOMICRMW, ATOM_PTX], ids=["atomicrmw", "atom"])
def test_an_atomic_scatter_behind_its_assert_is_in_bounds(update: str) -> None:
    execution = run(scatter(update))
    assert execution.violations == []
    (spans,) = execution.memory.atomics.values()  # rows 0 to 7 of out, 16 bytes each
    base = 3 << 40
    starts, ends = np.array([base + 112, base + 116]), np.array([base + 116, base + 120])
    assert spans.overlaps(starts, ends).tolist() == [True, False]


@pytest.mark.parametrize("update", [ATOMICRMW, ATOM_PTX], ids=["atomicrmw", "atom"])
def test_an_atomic_scatter_without_its_assert_is_unknown(update: str) -> None:
    with pytest.raises(UnmodelledAt, match="atomic address depends on tagged data"):
        run(scatter(update, check=""))


def test_a_load_of_what_an_atomic_updated_is_unknown() -> None:
    read = "  %back = load float, ptr addrspace(1) %out, align 4\n"
    with pytest.raises(UnmodelledAt, match="an atomic updated"):
        run(scatter(ATOMICRMW + read))


def test_a_concrete_atomic_into_an_input_is_out_of_bounds() -> None:
    update = "  %old = atomicrmw add ptr addrspace(1) %idx, i64 1 monotonic, align 8\n"
    execution = run(scatter(update))
    assert [v.kind for v in execution.violations] == ["out of bounds"]
    assert "atomic update of the input buffer idx" in execution.violations[0].detail


def test_a_plain_store_at_a_gathered_address_stays_unknown() -> None:
    store = "  store float %v, ptr addrspace(1) %g, align 4\n"
    with pytest.raises(UnmodelledAt, match="a scatter"):
        run(scatter(store))


# -- constant tables -----------------------------------------------------------------------------
TABLE = "@tab = internal addrspace(1) constant [8 x i32] [i32 0, i32 10, i32 20, i32 30, i32 40, i32 50, i32 60, i32 70], align 4\n"  # noqa: E501


def lookup(index: str) -> str:
    return TABLE + (
        "define void @k(ptr addrspace(1) %idx, ptr addrspace(1) %table, "
        "ptr addrspace(1) %out) {\n"
        "  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
        "  %p = getelementptr i64, ptr addrspace(1) %idx, i32 %t\n"
        "  %i = load i64, ptr addrspace(1) %p, align 8\n"
        "  %x = trunc i64 %i to i32\n"
        + index
        + "  %q = getelementptr i32, ptr addrspace(1) @tab, i32 %k\n"
        "  %v = load i32, ptr addrspace(1) %q, align 4\n"
        "  %o = getelementptr i32, ptr addrspace(1) %out, i32 %t\n"
        "  store i32 %v, ptr addrspace(1) %o, align 4\n"
        "  ret void\n}\n"
    )


def test_a_gather_from_a_module_constant_table() -> None:
    execution = run(lookup("  %k = and i32 %x, 7\n"), threads=8)
    assert execution.violations == []
    assert execution.dag.describe(stored(execution)[0]).startswith("gather.3(")
    with pytest.raises(UnmodelledAt, match=r"bytes \[0x0, 0x40\) of @tab \(a buffer of 32"):
        run(lookup("  %k = and i32 %x, 15\n"), threads=8)
    constant = run(lookup("  %k = and i32 %t, 7\n"), threads=8)
    assert [constant.dag.constant_value(n) for n in stored(constant)] == list(range(0, 80, 10))


# -- real Inductor kernels -----------------------------------------------------------------------
def fixture(name: str) -> str:
    return gzip.decompress((DATA / name).read_bytes()).decode()


def test_an_inductor_embedding_with_merged_asserts_is_proved() -> None:
    # two rows' asserts merged by LLVM into (a | b) < 4096
    text = fixture("embedding_or_assert_sm90.llir.gz")
    (verdict,) = validate_llvm_ir(text, arguments={"3": 131072}).verdicts
    assert verdict.status is Status.PROVED, verdict.reason
    assert "no device assert fails" in verdict.claim
    # without the assert the rows are any rows: unknown
    unasserted = text.replace("br i1 %.not, label %45, label %44", "br label %45")
    (verdict,) = validate_llvm_ir(unasserted, arguments={"3": 131072}).verdicts
    assert verdict.status is Status.UNKNOWN and "not within one buffer" in (verdict.reason or "")


def test_an_inductor_embedding_backward_scatter_adds_are_proved() -> None:
    # the asserted index goes through shared memory to the threads that add atomically
    text = fixture("embedding_dense_backward_atom_sm90.llir.gz")
    (verdict,) = validate_llvm_ir(text, arguments={"3": 512, "4": 256}).verdicts
    assert verdict.status is Status.PROVED, verdict.reason
    unasserted = text.replace("br i1 %.not1, label %56, label %57", "br label %57")
    (verdict,) = validate_llvm_ir(unasserted, arguments={"3": 512, "4": 256}).verdicts
    assert verdict.status is Status.UNKNOWN
    assert "atomic address depends on tagged data" in (verdict.reason or "")


def test_the_batch_summary_counts_proofs_that_assume_asserts(tmp_path: Path) -> None:
    from llverify.emitted.batch import BatchOptions, format_summary, summarize, validate_kernel_dir

    threads = 'attributes #0 = { "nvvm.reqntid"="32" }\n'
    for name, text in (("gather", embedding()), ("plain", embedding(check="", row="0"))):
        (tmp_path / f"{name}.llir").write_text(text + threads)
        (tmp_path / f"{name}.json").write_text('{"name": "k", "num_warps": 1}')
    options = BatchOptions(whole_only=True)
    records = [
        validate_kernel_dir(tmp_path / f"{name}.llir", tmp_path, [], "", options)
        for name in ("gather", "plain")
    ]
    assert [r["status"] for r in records] == ["proved", "proved"]
    assert [r["whole"].get("asserts_assumed") for r in records] == [True, None]
    summary = summarize(records, 1.0)
    assert summary["whole_proved_assuming_asserts"] == 1
    assert "1 of the kernels proved are proved for the inputs on which no device assert" in (
        format_summary(summary)
    )
