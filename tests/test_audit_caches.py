"""The caches that make the audit's added rules cheaper change no result (issue 20's time
target): a module's remembered signatures and types, the trailing-location span the parse
keeps for each operation, ``run_rules`` choosing each operation name's rules once, and the
shape-ops rule's per-layout sizes, packing offsets and evaluation.  Each is compared with
the uncached computation on every operation of the fixtures, with negative controls (a
malformed signature is still refused, at its own line, each time; an operation without a
layout still reaches no every-operation rule; an index outside a layout is still refused)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from llverify.audit import shape_ops
from llverify.audit.analyze import RULES, run_rules, target_of
from llverify.audit.context import AuditContext, Rule, carries_layout
from llverify.layout import LinearLayout
from llverify.ttgir import ModuleError, Operation, parse_module
from llverify.ttgir.module import _split_operation
from llverify.ttgir.types import Aliases, parse_signature

DATA = Path(__file__).parent / "data" / "ttgir"
KERNELS = sorted(DATA.glob("*.ttgir"))


@pytest.fixture(scope="module")
def modules() -> dict[str, object]:
    return {path.stem: parse_module(path.read_text()) for path in KERNELS}


def test_remembered_signatures_equal_a_fresh_read(modules):
    """Every signature of every fixture op, read through the module's Aliases (memoised),
    equals the same text read with a plain dict (no memo), and the memo was used."""
    checked = 0
    for module in modules.values():
        plain = dict(module.aliases)
        for op in module.ops:
            text = op._parts.signature
            if text is None:
                continue
            assert op.signature == parse_signature(text, plain, op.line), (op.line, op.text)
            checked += 1
        assert isinstance(module.aliases, Aliases)
        assert module.aliases.signatures or not any(op._parts.signature for op in module.ops)
    assert checked > 1000
    # the lists handed out are fresh: changing one does not change the memo
    op = next(op for op in modules["big_2000"].ops if op._parts.signature)
    first = op.signature[0]
    again = parse_signature(op._parts.signature, op.aliases)
    again[0].append(None)
    assert parse_signature(op._parts.signature, op.aliases)[0] == first


def test_a_malformed_signature_is_refused_each_time_at_its_line():
    """Negative control: only signatures read without error are remembered."""
    aliases = Aliases({"#b": "#ttg.blocked<{}>"})
    for line in (3, 7):
        with pytest.raises(ModuleError, match=f"line {line}"):
            parse_signature("tensor<4xf16, #b -> i32", aliases, line)
    with pytest.raises(ModuleError, match="line 5"):
        parse_signature("tensor<4xf16, #nope>", aliases, 5)  # an undefined alias
    assert aliases.signatures == {}
    assert aliases.types == {}


def test_the_kept_location_span_gives_the_parts_a_search_gives(modules):
    """The parts read with the span the parse kept equal the parts read searching for it."""
    for module in modules.values():
        for op in module.ops:
            assert op.location_span is not None
            assert op._parts == _split_operation(op.text, op.line), (op.line, op.text)


def test_an_operation_built_without_a_span_searches_for_it():
    op = Operation(
        "tt.splat", ["%y"], ["%x"], [], 1, "", '%y = tt.splat %x : i32 -> f32 loc("k.py":3:1)'
    )
    assert op.location_span is None
    assert op.pieces == ("%y = tt.splat %x", "i32 -> f32", ' loc("k.py":3:1)')


def _recorder(name: str, ops: frozenset[str], seen: list[tuple[str, int, str]]) -> Rule:
    def check(ctx: AuditContext, op: Operation) -> None:
        seen.append((name, op.line, op.name))

    return Rule(name, ops, check, "records what it is given")


def test_run_rules_gives_each_rule_the_ops_it_applies_to_in_order(modules):
    """``run_rules`` (rules chosen once per op name) gives the rules the same ops in the same
    order as asking every rule about every op; an every-op rule (no ``ops``) sees only ops
    that carry a layout (the negative control: ops without one are never given to it)."""
    for module in (modules["matmul_fp16_sm80"], modules["big_2000"]):
        names = sorted({op.name for op in module.ops})
        seen: list[tuple[str, int, str]] = []
        rules = (
            _recorder("every", frozenset(), seen),
            _recorder("half", frozenset(names[::2]), seen),
            _recorder("loads", frozenset({"tt.load", "ttg.local_load"}), seen),
        )
        run_rules(AuditContext(module, "nvidia", 10.0), rules)
        expected = [
            (rule.name, op.line, op.name)
            for op in module.ops
            for rule in rules
            if op.name in rule.ops or (not rule.ops and carries_layout(op))
        ]
        assert seen == expected
        bare = [op for op in module.ops if not carries_layout(op)]
        assert bare  # the negative control has something to check
        assert not {("every", op.line) for op in bare} & {(r, line) for r, line, _ in seen}


def _layouts(modules) -> list[LinearLayout]:
    found: dict[tuple[str, tuple[int, ...]], LinearLayout] = {}
    for module in modules.values():
        ctx = AuditContext(module, target_of(module), 10.0)
        for op in module.ops:
            for t in op.types:
                if t.kind == "tensor" and t.encoding and (t.encoding, t.shape) not in found:
                    found[(t.encoding, t.shape)] = ctx.layout(t)
    return list(found.values())


def test_shape_op_layout_helpers_equal_the_layout_methods(modules):
    """``_size``, ``_pack`` and ``_at`` (per-layout caches, zero bits skipped) agree with
    ``get_in_dim_size``, the packing by out-dim sizes, and ``apply`` on every fixture layout,
    at zero, every single bit, every pair of bits and the all-ones index."""
    layouts = _layouts(modules)
    assert len(layouts) > 50
    for layout in layouts:
        names = layout.get_in_dim_names()
        for dim in ("register", "lane", "warp", "block", "offset"):
            want = layout.get_in_dim_size(dim) if layout.has_in_dim(dim) else 1
            assert shape_ops._size(layout, dim) == want
        bits = [(d, b) for d in names for b in range(layout.get_in_dim_size_log2(d))]
        points = [{d: 0 for d in names}]
        points += [{d: 0 for d in names} | {dim: 1 << bit} for dim, bit in bits]
        points += [
            {d: 0 for d in names}
            | {a[0]: 1 << a[1]}
            | ({b[0]: (1 << a[1]) | (1 << b[1])} if a[0] == b[0] else {b[0]: 1 << b[1]})
            for a, b in zip(bits, bits[1:])
        ]
        points.append({d: layout.get_in_dim_size(d) - 1 for d in names})
        sizes = layout.get_out_dim_sizes()
        for h in points:
            coord = tuple(layout.apply(h).values())
            assert shape_ops._at(layout, h) == coord, (h, coord)
            packed, shift = 0, 0
            for value, size in zip(coord, sizes):
                packed |= value << shift
                shift += max(size - 1, 0).bit_length()
            assert shape_ops._pack(layout, coord) == packed


def test_shape_op_evaluation_still_refuses_an_index_outside_the_layout(modules):
    """Negative control: a value beyond an in-dim's size (or negative) is refused."""
    layout = _layouts(modules)[0]
    lanes = layout.get_in_dim_size("lane")
    with pytest.raises(shape_ops.ShapeOpError, match=f"lane={lanes} is outside"):
        shape_ops._at(layout, {"lane": lanes})
    with pytest.raises(shape_ops.ShapeOpError, match="outside"):
        shape_ops._at(layout, {"register": -1})
    with pytest.raises(shape_ops.ShapeOpError, match="outside"):
        shape_ops._at(layout, {"no-such-dim": 1})


def _untimed(found: dict[str, Any]) -> str:
    """A finding's text with its proof's running time blanked ("in 0.1 ms")."""
    return re.sub(r"in [0-9.]+ ms", "in X ms", repr(found))


def test_the_added_rules_find_the_same_alone_and_after_the_baseline(modules):
    """Run after the baseline (sharing its layouts and parsed parts, as in the benchmark and
    in ``audit``) the added rules give the findings they give in a fresh context."""
    baseline = ("convert-layout", "shared-access", "dot-operand-encoding")
    added = tuple(rule for rule in RULES if rule.name not in baseline)
    for name in ("matmul_fp16_sm80", "attn_fwd_fp16_sm90", "gather_fp32_sm80"):
        text = (DATA / f"{name}.ttgir").read_text()
        shared = parse_module(text)
        ctx = AuditContext(shared, target_of(shared), 30.0)
        run_rules(ctx, tuple(rule for rule in RULES if rule.name in baseline))
        before = len(ctx.findings)
        run_rules(ctx, added)
        alone_module = parse_module(text)
        alone = AuditContext(alone_module, target_of(alone_module), 30.0)
        run_rules(alone, added)
        assert [_untimed(f.to_dict()) for f in ctx.findings[before:]] == [
            _untimed(f.to_dict()) for f in alone.findings
        ]
        assert ctx.findings[before:]


def test_first_registers_equal_evaluating_each_register(modules):
    """``_first_registers`` (registers enumerated by XOR of one packed basis onto a smaller
    register's element) equals evaluating every register with ``apply`` and packing."""
    for layout in _layouts(modules):
        want: dict[int, int] = {}
        zero = {d: 0 for d in layout.get_in_dim_names()}
        for r in range(layout.get_in_dim_size("register")):
            element = tuple(layout.apply(zero | {"register": r}).values())
            want.setdefault(shape_ops._pack(layout, element), r)
        assert shape_ops._first_registers(layout) == want


def _declared_values(op: Operation) -> list[str]:
    """``result_values`` read from the declaration alone (the path without the shortcut)."""
    from llverify.ttgir.module import _OP, _RESULT

    declared = _OP.match(op.text)
    values: list[str] = []
    for name, count in _RESULT.findall((declared.group(1) or "") if declared else ""):
        values += [name] if not count else [f"{name}#{i}" for i in range(int(count))]
    return values


def test_result_values_shortcut_equals_reading_the_declaration(modules):
    """``result_values`` takes the parsed result names when the declaration has no ``:N``
    and no '#': the same values as reading the declaration, on every fixture op and on
    declarations that need reading (the negative controls: a count, several names)."""
    ops = [op for module in modules.values() for op in module.ops]
    from llverify.ttgir import read_operation

    ops += [
        read_operation("%x:2 = tt.split %a : tensor<4x2xf32> -> tensor<4xf32>"),
        read_operation("%a, %b = tt.foo %c {n = 1 : i32} : i32"),
        read_operation('%r:2 = "tt.reduce"(%x, %y) <{axis = 0 : i32}> ({'),
        read_operation("tt.store %p, %v {cache = 1 : i32} : tensor<4x!tt.ptr<f32>>"),
    ]
    for op in ops:
        assert op.result_values == _declared_values(op), op.text
    assert ops[-4].result_values == ["%x#0", "%x#1"]
    assert ops[-3].result_values == ["%a", "%b"]
    assert ops[-2].result_values == ["%r#0", "%r#1"]
    assert ops[-1].result_values == []


def test_points_read_off_the_bases_equal_evaluating_them(modules):
    """``_points_at`` gives, at ``h = 0`` and every single bit, what ``_at`` and
    ``LinearLayout.apply`` give."""
    for layout in _layouts(modules):
        pairs = shape_ops._points_at(layout)
        assert [h for h, _ in pairs] == shape_ops._points(layout)
        for h, element in pairs:
            assert element == shape_ops._at(layout, h) == tuple(layout.apply(h).values())
