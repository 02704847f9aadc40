"""The hardware module: targets, their access phases, element-bit rules and dtype names."""

from __future__ import annotations

import pytest

from llverify import gf2
from llverify.errors import LayoutError, LayoutTypeError
from llverify.hardware import (
    ANY_ELEMENT_BITS,
    DTYPE_BITS,
    LEGACY_ELEMENT_BITS,
    PADDED_ELEMENT_BITS,
    TARGETS,
    VECTOR_ELEMENT_BITS,
    Target,
    dtype_bits,
    element_type_bits,
    resolve_target,
)


def _span(basis: list[int]) -> set[int]:
    span = {0}
    for b in basis:
        span |= {s ^ b for s in span}
    return span


@pytest.mark.parametrize("name", sorted(TARGETS))
@pytest.mark.parametrize("words", [1, 2, 4])
def test_a_pass_covers_the_banks_once(name: str, words: int) -> None:
    tgt = TARGETS[name]
    lanes = tgt.pass_lanes(words)
    assert gf2.rank(lanes) == len(lanes)  # a basis
    assert all(0 < lane < tgt.lanes for lane in lanes)
    assert len(_span(lanes)) * words == min(tgt.banks, tgt.lanes * words)


def test_amd_b128_phases() -> None:
    assert TARGETS["gfx942"].pass_lanes(4) == [1, 2, 4 ^ 16]
    assert TARGETS["gfx950"].pass_lanes(4) == [1, 2, 4 ^ 8, 4 ^ 16]
    assert TARGETS["nvidia"].pass_lanes(4) == [1, 2, 4]


def test_triton_lanes() -> None:
    assert TARGETS["nvidia"].triton_lanes(1) == [1, 2, 4, 8, 16]
    assert TARGETS["gfx942"].triton_lanes(1) == [1, 2, 4, 8, 16]
    assert TARGETS["gfx950"].triton_lanes(2) == [1, 2, 4, 8, 16]


def test_resolve_target() -> None:
    custom = Target("mine", 32, 64)
    assert resolve_target(custom) is custom
    assert resolve_target("gfx950") is TARGETS["gfx950"]
    for bad in ("sm90", None, 3):
        with pytest.raises(LayoutError, match=r"'target'.*Target or one of \['gfx942'"):
            resolve_target(bad)  # type: ignore[arg-type]


def test_resolve_target_error_class() -> None:
    class MineError(LayoutError):
        pass

    with pytest.raises(MineError, match="'sm90'"):
        resolve_target("sm90", MineError)


@pytest.mark.parametrize(("lanes", "banks"), [(32, 24), (24, 32), (32, 2)])
def test_bad_targets_are_refused(lanes: int, banks: int) -> None:
    with pytest.raises(LayoutError, match="'target' must have power-of-2 lanes and banks"):
        Target("bad", lanes, banks)


@pytest.mark.parametrize(
    ("rule", "widths"),
    [
        (ANY_ELEMENT_BITS, [1, 2, 4, 8, 16, 32, 64]),
        (VECTOR_ELEMENT_BITS, [1, 2, 4, 8, 16, 32, 64, 128]),
        (PADDED_ELEMENT_BITS, [8, 16, 32, 64, 128]),
        (LEGACY_ELEMENT_BITS, [8, 16, 32, 64]),
    ],
)
def test_element_bits_rules(rule, widths: list[int]) -> None:  # type: ignore[no-untyped-def]
    for bits in range(-8, 260):
        if bits in widths:
            assert rule.check(bits) == bits
        else:
            with pytest.raises(LayoutError, match=rf"'element_bits' must be one of .*not {bits}"):
                rule.check(bits)
    with pytest.raises(LayoutTypeError, match="'element_bits'.*bool"):
        rule.check(True)
    with pytest.raises(LayoutTypeError, match="'bits'.*float"):
        rule.check(16.0, "bits")


def test_dtype_names() -> None:
    assert dtype_bits(" F16 ") == 16 and dtype_bits("64") == 64
    assert dtype_bits("12") is None and dtype_bits("i1") is None
    assert all(dtype_bits(name) == bits for name, bits in DTYPE_BITS.items())


def test_ttgir_element_types() -> None:
    ttgir = {
        "f16": 16, "bf16": 16, "i16": 16, "f32": 32, "tf32": 32, "i32": 32, "f64": 64,
        "i64": 64, "i8": 8, "i1": 8, "f8E4M3FN": 8, "f8E5M2": 8, "f8E4M3FNUZ": 8,
        "f8E5M2FNUZ": 8, "f8E4M3B11FNUZ": 8, "i4": 4, "!tt.ptr<f16>": 64,
    }  # fmt: skip
    assert {name: element_type_bits(name) for name in ttgir} == ttgir
    assert element_type_bits("index") is None
