"""The third round of making the audit's added rules cheaper changes no result: verdicts
keyed by an operation's pattern (its text with SSA names blanked), the signature found
without reading the head, the coalescing costs at every base from one count of the elements,
the async copy's widths searched once per distinct cap, the row rule's slack searched only
when it matters, and a memdesc encoding's text read once per audit.  Each is compared with
the computation it replaces, on every fixture and on random cases, with negative controls
(a rule must still fire where the old computation fired)."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from llverify import LinearLayout
from llverify.arguments import layout_value
from llverify.audit import async_copy, shape_ops
from llverify.audit.analyze import RULES, audit, run_rules, target_of
from llverify.audit.async_copy import _vectorisations
from llverify.audit.context import AuditContext
from llverify.audit.memdesc_views import row_rule_record
from llverify.audit.pointers import Evaluator
from llverify.global_memory.sectors import coalescing, coalescing_at_bases, vector_bound
from llverify.layout_utils import largest_vectorisation
from llverify.ttgir import ModuleError, Operation, parse_module, read_operation
from llverify.ttgir.types import parse_signature

DATA = Path(__file__).parent / "data" / "ttgir"
KERNELS = sorted(DATA.glob("*.ttgir"))

_HEAD = """#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#c = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#d = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
"""  # noqa: E501


@pytest.fixture(scope="module")
def modules() -> dict[str, Any]:
    return {path.stem: parse_module(path.read_text()) for path in KERNELS}


def _untimed(found: dict[str, Any]) -> str:
    return re.sub(r"in [0-9.]+ ms", "in X ms", repr(found))


# --------------------------------------------------------------------------- patterns


def test_pattern_blanks_names_and_cuts_the_location():
    one = read_operation("%5 = tt.expand_dims %4 {axis = 1 : i32} : tensor<4xi32> loc(#loc3)")
    two = read_operation('%17 = tt.expand_dims %x.y {axis = 1 : i32} : tensor<4xi32> loc("a":1:2)')
    assert one.pattern == two.pattern == "% = tt.expand_dims % {axis = 1 : i32} : tensor<4xi32>"
    # negative controls: another attribute or type is another pattern; a string, none
    other = read_operation("%5 = tt.expand_dims %4 {axis = 0 : i32} : tensor<4xi32>")
    assert other.pattern != one.pattern
    assert read_operation('%5 = tt.foo %4 {s = "%4"} : i32').pattern is None
    built = Operation("tt.splat", ["%y"], ["%x"], [], 1, "", "%y = tt.splat %x : i32 loc(#l)")
    assert built.location_span is None and built.pattern == "% = tt.splat % : i32"


def _without_patterns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Operation, "pattern", property(lambda self: None))


@pytest.mark.parametrize("rule", [shape_ops.NAME, async_copy.NAME, "global-coalescing"])
def test_pattern_keyed_verdicts_equal_the_attribute_keyed_ones(modules, monkeypatch, rule):
    """Every fixture's findings and skips of the rule, with verdicts keyed by pattern,
    equal those keyed by attributes and types alone (patterns switched off)."""
    chosen = tuple(r for r in RULES if r.name == rule)

    def run(text: str) -> tuple[list[str], list[Any]]:
        module = parse_module(text)
        ctx = AuditContext(module, target_of(module), 30.0)
        run_rules(ctx, chosen)
        return [_untimed(f.to_dict()) for f in ctx.findings], ctx.skips

    texts = [path.read_text() for path in KERNELS]
    with_patterns = [run(text) for text in texts]
    monkeypatch.undo()
    _without_patterns(monkeypatch)
    assert [run(text) for text in texts] == with_patterns
    least = {shape_ops.NAME: 700, async_copy.NAME: 40, "global-coalescing": 60}[rule]
    assert sum(len(found) for found, _ in with_patterns) > least


def test_a_repeated_wrong_shape_op_is_refused_each_time():
    """Negative control: ops of one pattern share a verdict, a wrong one included; a trans
    of other types or another order has its own."""
    text = _HEAD + (
        "  %1 = tt.trans %0 {order = array<i32: 1, 0>} : tensor<64x32xf16, #b> -> tensor<32x64xf16, #c>\n"  # noqa: E501
        "  %2 = tt.trans %9 {order = array<i32: 1, 0>} : tensor<64x32xf16, #b> -> tensor<32x64xf16, #d>\n"  # noqa: E501
        "  %3 = tt.trans %8 {order = array<i32: 1, 0>} : tensor<64x32xf16, #b> -> tensor<32x64xf16, #d>\n"  # noqa: E501
        "  %4 = tt.trans %7 {order = array<i32: 1, 0>} : tensor<64x32xf16, #b> -> tensor<32x64xf16, #c>\n"  # noqa: E501
        "  %5 = tt.trans %7 {order = array<i32: 0, 1>} : tensor<64x32xf16, #b> -> tensor<32x64xf16, #c>\n"  # noqa: E501
        "}"
    )
    found = [f for f in audit(text).findings if f.rule == shape_ops.NAME]
    assert [str(f.status) for f in found] == ["proved", "error", "error", "proved", "error"]
    assert [f.line for f in found] == [5, 6, 7, 8, 9]
    assert found[1].data == found[2].data and found[1].data is not found[2].data
    assert "order [0, 1]" not in found[4].summary and "between threads" in found[4].summary


def test_a_shape_op_without_its_attribute_is_not_analysed_each_time():
    """Negative control: a trans whose order does not read is not analysed, and neither is
    its repeat of the same pattern (errors are never remembered)."""
    bad = "tt.trans %0 {order = } : tensor<64x32xf16, #b> -> tensor<32x64xf16, #c>"
    text = _HEAD + f"  %1 = {bad}\n  %2 = {bad.replace('%0', '%7')}\n}}"
    found = [f for f in audit(text).findings if f.rule == shape_ops.NAME]
    assert [str(f.status) for f in found] == ["error", "error"]
    assert all("attribute 'order' must be a permutation" in f.summary for f in found)


# --------------------------------------------------------------------------- signatures


def test_signatures_found_without_the_head_equal_the_parts(modules):
    """``Operation.signature`` (found without reading attributes) equals reading the
    signature text the full parse finds, on every fixture op."""
    checked = 0
    for module in modules.values():
        plain = dict(module.aliases)
        for op in module.ops:
            fresh = Operation(op.name, op.results, op.operands, op.types, op.line,
                              op.location, op.text, op.aliases)  # fmt: skip
            assert op._frame.signature == op._parts.signature
            if op._parts.signature is None:
                with pytest.raises(ModuleError, match="no type signature"):
                    fresh.signature  # noqa: B018
                continue
            assert fresh.signature == parse_signature(op._parts.signature, plain, op.line)
            checked += 1
    assert checked > 1000


def test_an_op_without_a_signature_is_still_refused():
    """Negative control: the signature found without the head is still refused where there
    is none, at the op's line."""
    with pytest.raises(ModuleError, match="line 4: no type signature"):
        read_operation("%y = tt.foo %x {a = 1 : i32}", line=4).signature  # noqa: B018
    op = read_operation("%y = tt.splat %x {a = 1 : i32} : i32 -> tensor<4xi32> loc(#l)")
    assert [t.text for t in op.result_types] == ["tensor<4xi32>"]
    assert op.attributes.integer("a") == 1


# --------------------------------------------------------------------------- coalescing


def _vector_bound_reference(addresses: np.ndarray, nbytes: int, max_v: int) -> int:
    """vector_bound as it was: the distinct elements counted again for every width."""
    addresses = np.asarray(addresses, dtype=np.int64).reshape(-1)
    best, v = 1, 2
    while v <= max_v:
        keys, counts = np.unique(addresses // nbytes, return_counts=True)
        block = keys // v
        starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
        sizes = np.diff(np.r_[starts, len(block)])
        same = counts == np.repeat(counts[starts], sizes)
        if not ((sizes == v).all() and same.all()):
            return best
        best, v = v, 2 * v
    return best


def test_vector_bound_equals_counting_again_for_every_width():
    rng = np.random.default_rng(7)
    wide = 0
    for _ in range(3000):
        nbytes = int(rng.choice([1, 2, 4, 8]))
        kind = int(rng.integers(0, 4))
        if kind == 0:
            elements = rng.integers(0, 64, int(rng.integers(1, 40)))
        elif kind == 1:
            elements = np.arange(int(rng.integers(1, 40))) + int(rng.integers(0, 16))
        elif kind == 2:
            run = np.arange(8 * int(rng.integers(1, 5))) + 8 * int(rng.integers(0, 4))
            elements = np.repeat(run, int(rng.integers(1, 3)))
        else:
            elements = np.concatenate([np.arange(16), np.arange(int(rng.integers(0, 17)))])
        max_v = int(rng.choice([1, 2, 4, 8, 16]))
        want = _vector_bound_reference(elements * nbytes, nbytes, max_v)
        assert vector_bound(elements * nbytes, nbytes, max_v) == want, (elements, nbytes)
        wide += want > 1
    assert wide > 500  # the positive cases are many; the others are the negative controls


def test_costs_at_every_base_equal_one_base_at_a_time():
    """``coalescing_at_bases`` (elements counted once for all bases, each request row
    sorted once) equals ``coalescing`` at each base on its own and the bound counted again
    at each base; the negative control: the width and sectors change with the base."""
    enc = ("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1],"
           " order = [1, 0]}>")  # fmt: skip
    seen = set()
    for strides, bits in (([64, 1], 16), ([1, 32], 16), ([128, 2], 32), ([8, 1], 8)):
        nbytes = bits // 8
        bases = range(0, 128, nbytes)
        together = coalescing_at_bases(enc, strides, [32, 64], bits, base_addresses=bases)
        elements = (np.arange(32)[:, None] * strides[0] + np.arange(64) * strides[1]) * nbytes
        for base, a in zip(bases, together):
            b = coalescing(enc, strides, [32, 64], bits, base_address=base)
            assert a.vector_width == b.vector_width and a.max_vector_width == b.max_vector_width
            assert (a.sectors, a.lines, a.ideal_sectors, a.bytes_distinct) == (
                b.sectors, b.lines, b.ideal_sectors, b.bytes_distinct)  # fmt: skip
            assert (a.request_sectors == b.request_sectors).all()
            want = _vector_bound_reference(elements + base, nbytes, 16 // nbytes)
            assert a.max_vector_width == want
            seen.add((a.vector_width, a.sectors))
    assert len(seen) > 10


def test_request_counts_from_rows_sorted_once_equal_sorting_each():
    """``_count``'s sectors, lines and distinct bytes (each row sorted once, then divided)
    equal ``distinct_per_row`` of the divided rows."""
    from llverify.global_memory.sectors import GLOBAL_TARGETS, _count, distinct_per_row

    rng = np.random.default_rng(5)
    tgt = GLOBAL_TARGETS["nvidia"]
    for _ in range(200):
        width = int(rng.choice([1, 2, 4]))
        addresses = rng.integers(-512, 4096, (1, 2, 32, 4 * width)) * 2
        found = _count(addresses, width, "", width, 16, tgt, 0)
        starts = addresses.reshape(1, 2, 32, 4, width)[..., 0]
        rows = np.moveaxis(starts, 2, 3).reshape(-1, 32)
        assert (found.request_sectors == distinct_per_row(rows // 32)).all()
        assert (found.request_lines == distinct_per_row(rows // 128)).all()
        assert found.bytes_distinct == int((distinct_per_row(rows) * width * 2).sum())


def test_constants_of_one_pattern_share_a_value_and_others_do_not():
    """The evaluator reads a shape and a constant once per pattern: two constants that
    differ only in their names share a value; the negative controls (another value,
    another shape) have their own."""
    module = parse_module(_HEAD + (
        "  %c1 = arith.constant dense<16> : tensor<64xi32, #ttg.slice<{dim = 1, parent = #b}>>\n"
        "  %c2 = arith.constant dense<16> : tensor<64xi32, #ttg.slice<{dim = 1, parent = #b}>>\n"
        "  %c3 = arith.constant dense<32> : tensor<64xi32, #ttg.slice<{dim = 1, parent = #b}>>\n"
        "  %c4 = arith.constant dense<16> : tensor<32xi32, #ttg.slice<{dim = 1, parent = #b}>>\n"
        "  %c5 = arith.constant 7 : i32\n"
        "}"))  # fmt: skip
    evaluator = Evaluator(module)
    values = [evaluator.value(f"%c{i}") for i in range(1, 6)]
    assert values[0] is values[1]
    assert values[2].known.tolist() == [32] * 64 and values[3].known.shape == (32,)
    assert values[0].known.tolist() == [16] * 64 and int(values[4].known) == 7


def test_the_evaluators_definitions_equal_every_ops_values(modules):
    for module in modules.values():
        want = {r: op for op in module.ops for r in op.result_values}
        assert Evaluator(module).definitions == want


# --------------------------------------------------------------------------- async copies


def test_widths_searched_once_per_cap_equal_searching_each():
    rng = random.Random(3)
    compared = refused = 0
    for _ in range(3000):
        k = rng.randint(1, 5)
        powers = [1 << i for i in range(k + 2)]
        rng.shuffle(powers)
        if rng.random() < 0.5:
            powers.sort()
        if rng.random() < 0.3:
            powers[rng.randrange(k)] ^= powers[-1]
        registers = [[c] for c in powers[:k]] + ([[0]] if rng.random() < 0.2 else [])
        cvt = LinearLayout.from_bases(
            [("register", registers), ("lane", [[c] for c in powers[k:]])], ["offset"]
        )
        bits = rng.choice([8, 16, 32])
        caps = tuple(rng.choice([1, 2, 3, 4, 6, 8, 16, 0]) for _ in range(3))
        try:
            want = {cap: largest_vectorisation(cvt, bits, cap)[0] for cap in caps}
        except ValueError as error:  # a cap of 0: refused by both
            with pytest.raises(type(error)):
                _vectorisations(cvt, bits, caps)
            refused += 1
            continue
        assert _vectorisations(cvt, bits, caps) == want, (registers, bits, caps)
        compared += 1
    assert compared > 500 and refused > 100


# --------------------------------------------------------------------------- views


def _row_rule_reference(mask: int, bits: int, view: np.ndarray) -> dict[str, Any] | None:
    from llverify.shared_memory.offsets import RowRule

    rule = RowRule(mask, bits)
    present = set(np.unique(view).tolist())
    row_bits = [1 << i for i in range(rule.row_elements.bit_length() - 1)]
    return {
        "row_elements": rule.row_elements,
        "touched_bits": rule.touched,
        "legal": rule.legal,
        "triton_before_10066": rule.triton_before_10066,
        "old_rule_slack_reachable": rule.missed_before_10066
        and all(b in present for b in row_bits),
    }


def test_row_rule_slack_equals_searching_every_offset():
    """Reachable and unreachable slack (the old rule missed a row split) and no slack."""
    reachable = np.arange(4 * 128).reshape(128, 4) // 4 * 64 + np.arange(4)  # holds 1 and 2
    unreachable = np.arange(128).reshape(128, 1) * 64  # offsets 0, 64, ...: no 1, 2 or 4
    seen = set()
    for view in (reachable, unreachable):
        for mask in (4, 60, 48, 0, 2):
            for bits in (8, 16, 32):
                got = row_rule_record(mask, bits, view)
                assert got == _row_rule_reference(mask, bits, view)
                assert got is not None
                seen.add(got["old_rule_slack_reachable"])
    assert seen == {True, False}
    assert row_rule_record(4, 64, reachable) is None


# --------------------------------------------------------------------------- shared layouts


def test_shared_layouts_from_one_read_equal_reading_the_text(modules):
    """Every memdesc of the fixtures, on its shape and its trailing shapes: the context's
    shared layout (the encoding's text read once) equals ``layout_value`` of the text, and
    an encoding that does not build for a shape raises the same error each time."""
    compared = failed = 0
    for module in modules.values():
        ctx = AuditContext(module, target_of(module), 10.0)
        for info in {t for op in module.ops for t in op.types if t.kind == "memdesc"}:
            for rank in range(len(info.shape), 0, -1):
                shape = info.shape[len(info.shape) - rank :]
                try:
                    want = layout_value(info.encoding, shape, "shared")
                except ValueError as error:
                    for _ in range(2):
                        with pytest.raises(type(error), match=re.escape(str(error)[:40])):
                            ctx.shared_layout(info.encoding, shape)
                    failed += 1
                    continue
                assert ctx.shared_layout(info.encoding, shape) == want
                compared += 1
    assert compared > 40 and failed > 0


def test_a_malformed_shared_encoding_is_refused_each_time():
    module = parse_module(_HEAD + "}")
    ctx = AuditContext(module, "nvidia", 10.0)
    for _ in range(2):
        with pytest.raises(ValueError):
            ctx.shared_layout("#ttg.swizzled_shared<{vec = 1, perPhase = 1", (4, 4))
    assert ctx._shared_encodings == {}


def test_broadcasts_share_verdicts_whatever_their_attributes():
    """A broadcast's verdict reads no attribute: one with a stray attribute gets the verdict
    of one without; the negative control, a broadcast into another layout, is refused, and
    so is its repeat with an attribute."""
    good = "tt.broadcast %0 {{{}}} : tensor<1x64xi32, #b> -> tensor<64x64xi32, #b>"
    bad = "tt.broadcast %0 {{{}}} : tensor<1x64xi32, #b> -> tensor<64x64xi32, #c>"
    lines = [good.format(""), good.format("foo = 1 : i32"), bad.format(""), bad.format("x")]
    text = _HEAD + "".join(f"  %{i + 1} = {line}\n" for i, line in enumerate(lines)) + "}"
    found = [f for f in audit(text).findings if f.rule == shape_ops.NAME]
    assert [str(f.status) for f in found] == ["proved", "proved", "error", "error"]
    assert found[0].summary == found[1].summary and found[2].summary == found[3].summary


def test_consistency_checks_exactly_the_ops_that_carry_a_layout(modules):
    """module-consistency called on every op (not only those ``run_rules`` gives it) covers
    the ops ``carries_layout`` names and no other; the negative control: a module whose
    warps disagree with an encoding is still refused at that op."""
    from llverify.audit.consistency import check_consistency
    from llverify.audit.context import carries_layout

    for module in (modules["big_2000"], modules["matmul_fp16_sm90"]):
        ctx = AuditContext(module, target_of(module), 10.0)
        for op in module.ops:
            check_consistency(ctx, op)
        want = {(op.line, op.name) for op in module.ops if carries_layout(op)}
        assert set(ctx.covered) == want and len(want) < len(module.ops)
    wrong = _HEAD.replace('"ttg.num-warps" = 4', '"ttg.num-warps" = 8') + (
        "  %1 = arith.addf %0, %0 : tensor<64x32xf16, #b>\n  %2 = arith.addi %3, %3 : i32\n}"
    )
    report = audit(wrong)
    assert report.refused and [f.line for f in report.findings] == [5]
