"""Violations about different values are settled before they are reported: proved equal
(dropped), replayed different (refuted, with the replay) or neither (unknown)."""

from __future__ import annotations

from llverify.emitted.dumped import validate_llvm_ir
from llverify.emitted.settle import settle_pair, settle_violations
from llverify.emitted.sim.memory import Violation
from llverify.emitted.sim.replay import differing_inputs
from llverify.emitted.sim.symbolic import UNDEFINED, Dag
from llverify.proof.verdict import Status

_TWO_STORES = """define ptx_kernel void @k(ptr addrspace(1) %0, ptr addrspace(1) %1) #0 {
  %3 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %4 = load i8, ptr addrspace(1) %0, align 1
  %5 = trunc i8 %4 to i1
  %6 = zext i1 %5 to i8
  %7 = and i8 %4, MASK
  %8 = icmp eq i32 %3, 0
  %9 = select i1 %8, i8 %6, i8 %7
  store i8 %9, ptr addrspace(1) %1, align 1
  ret void
}
attributes #0 = { "nvvm.reqntid"="32" }"""


def _max(dag: Dag, a: int, b: int) -> int:
    """Inductor's NaN-propagating maximum: ``a`` if ``a > b`` or ``a`` is NaN, else ``b``."""
    greater = dag.op("fcmp.ogt", (a, b), 1)
    nan = dag.op("fcmp.uno", (a, a), 1)
    return dag.op("select", (dag.op("or", (greater, nan), 1), a, b), 4)


def test_an_i1_behind_trunc_and_zext_equals_the_masked_byte() -> None:
    dag = Dag()
    x = dag.leaf(0, 0, 1)
    wrapped = dag.op("zext.1.8", (dag.op("trunc.8.1", (x,), 1),), 1)
    masked = dag.op("and", (x, dag.const(1, 1)), 1)
    assert wrapped != masked  # two nodes ...
    assert settle_pair(dag, (wrapped * 16, masked * 16)).outcome == "equal"  # ... one value


def test_a_different_mask_is_replayed_different() -> None:
    dag = Dag()
    x = dag.leaf(0, 0, 1)
    wrapped = dag.op("zext.1.8", (dag.op("trunc.8.1", (x,), 1),), 1)
    other = dag.op("and", (x, dag.const(3, 1)), 1)
    settled = settle_pair(dag, (wrapped * 16, other * 16))
    assert settled.outcome == "different" and "replayed" in settled.replay


def test_the_two_orders_of_inductors_max_differ_on_signed_zeros() -> None:
    dag = Dag()
    x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    found = differing_inputs(dag, (_max(dag, x, y), 3), (_max(dag, y, x), 3))
    assert found is not None
    values, a, b = found
    assert {values[x], values[y]} == {0x00000000, 0x80000000} and {a, b} == {0x00, 0x80}


def test_commutative_float_ops_have_no_witness() -> None:
    dag = Dag()
    x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    total = dag.op("fadd", (x, y), 4)
    product = dag.op("fmul", (x, y), 4)
    # x + y and x * y differ (1 + 2 != 1 * 2); x + y and y + x never do
    assert differing_inputs(dag, (total, 0), (product, 0)) is not None
    assert differing_inputs(dag, (total, 3), (dag.op("fadd", (y, x), 4), 3)) is None


def test_an_operation_without_exact_semantics_stays_open() -> None:
    dag = Dag()
    x, y = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
    approximate = dag.op("div.full.f32", (x, y), 4)  # PTX's approximate division
    swapped = dag.op("div.full.f32", (y, x), 4)
    assert settle_pair(dag, (approximate * 16, swapped * 16)).outcome == "open"


def test_an_undefined_byte_differs_from_any_value() -> None:
    dag = Dag()
    x = dag.leaf(0, 0, 1)
    assert settle_pair(dag, (x * 16, int(UNDEFINED))).outcome == "different"


def test_settling_drops_equal_keeps_different_and_sets_aside_open() -> None:
    dag = Dag()
    x, y = dag.leaf(0, 0, 1), dag.leaf(0, 1, 4)
    wrapped = dag.op("zext.1.8", (dag.op("trunc.8.1", (x,), 1),), 1)
    masked = dag.op("and", (x, dag.const(1, 1)), 1)
    opaque = dag.op("div.full.f32", (y, y), 4)

    def violation(pair: tuple[int, int]) -> Violation:
        return Violation("conflicting store", "global", 0, 1, 0, "st", "differ", (pair,))

    equal = violation((wrapped * 16, masked * 16))
    different = violation((wrapped * 16, x * 16))
    open_ = violation((opaque * 16, y * 16))
    stand, undecided = settle_violations(dag, [equal, different, open_])
    assert [v.values for v in stand] == [different.values] and "replayed" in stand[0].detail
    assert undecided == [open_]


def test_a_dumped_kernel_storing_one_bit_two_ways_is_proved() -> None:
    """Thread 0 stores zext(trunc x to i1), the others x & 1, all to one byte: two DAG nodes,
    one value on every input, so no conflicting store (the i1 OR reduction's false alarm)."""
    report = validate_llvm_ir(_TWO_STORES.replace("MASK", "1"))
    assert report.status is Status.PROVED, report.verdicts[0].reason


def test_a_dumped_kernel_storing_two_different_values_is_refuted_with_a_replay() -> None:
    """Negative control: x & 3 differs from the bit when x = 2."""
    report = validate_llvm_ir(_TWO_STORES.replace("MASK", "3"))
    verdict = report.verdicts[0]
    assert report.status is Status.REFUTED, verdict.reason
    assert "replayed" in verdict.reason


def test_the_order_of_a_wide_max_reduction_shows_on_sparse_inputs() -> None:
    """Two lanes hold max(A, B) and max(B, A) of two 32-element partial maxima: random inputs
    almost never show the difference (an infinity wins); all -inf but one +0 and one -0 do."""
    dag = Dag()
    leaves = [dag.leaf(0, k, 4) for k in range(64)]

    def tree(items: list[int]) -> int:
        while len(items) > 1:
            items = [_max(dag, items[k], items[k + 1]) for k in range(0, len(items), 2)]
        return items[0]

    left, right = tree(leaves[:32]), tree(leaves[32:])
    found = differing_inputs(dag, (_max(dag, left, right), 3), (_max(dag, right, left), 3))
    assert found is not None
    values, a, b = found
    assert {a, b} == {0x00, 0x80}  # the sign of zero
    assert sorted(v for v in values.values() if v not in (0xFF800000, 0xBF800000)) != []
