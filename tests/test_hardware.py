"""The hardware module: the target table, bank models and their access phases, element-bit
rules and the dtype table."""

from __future__ import annotations

import pytest

from llverify import gf2
from llverify.errors import LayoutError, LayoutTypeError
from llverify.hardware import (
    ANY_ELEMENT_BITS,
    BANK_MODELS,
    DTYPE_BITS,
    DTYPE_WIDTHS,
    DTYPES,
    GLUON_DTYPE_BITS,
    LEGACY_ELEMENT_BITS,
    PADDED_ELEMENT_BITS,
    TARGETS,
    VECTOR_ELEMENT_BITS,
    GpuTarget,
    Target,
    dtype_bits,
    element_type_bits,
    resolve_target,
    target_of_triton,
)


def _span(basis: list[int]) -> set[int]:
    span = {0}
    for b in basis:
        span |= {s ^ b for s in span}
    return span


@pytest.mark.parametrize("name", sorted(BANK_MODELS))
@pytest.mark.parametrize("words", [1, 2, 4])
def test_a_pass_covers_the_banks_once(name: str, words: int) -> None:
    tgt = BANK_MODELS[name]
    lanes = tgt.pass_lanes(words)
    assert gf2.rank(lanes) == len(lanes)  # a basis
    assert all(0 < lane < tgt.lanes for lane in lanes)
    assert len(_span(lanes)) * words == min(tgt.banks, tgt.lanes * words)


def test_amd_b128_phases() -> None:
    assert BANK_MODELS["gfx942"].pass_lanes(4) == [1, 2, 4 ^ 16]
    assert BANK_MODELS["gfx950"].pass_lanes(4) == [1, 2, 4 ^ 8, 4 ^ 16]
    assert BANK_MODELS["nvidia"].pass_lanes(4) == [1, 2, 4]


def test_triton_lanes() -> None:
    assert BANK_MODELS["nvidia"].triton_lanes(1) == [1, 2, 4, 8, 16]
    assert BANK_MODELS["gfx942"].triton_lanes(1) == [1, 2, 4, 8, 16]
    assert BANK_MODELS["gfx950"].triton_lanes(2) == [1, 2, 4, 8, 16]


def test_resolve_target() -> None:
    custom = Target("mine", 32, 64)
    assert resolve_target(custom) is custom
    assert resolve_target("gfx950") is BANK_MODELS["gfx950"]
    for bad in ("sm90", None, 3):
        with pytest.raises(LayoutError, match=r"'target'.*Target or one of \['gfx942'"):
            resolve_target(bad)  # type: ignore[arg-type]


def test_the_target_table() -> None:
    """Each target's Triton target, lanes and bank model (the facts the other tables had)."""
    triton = {name: t.triton for name, t in TARGETS.items()}
    assert triton == {
        "sm80": "cuda:80", "sm86": "cuda:86", "sm89": "cuda:89", "sm90": "cuda:90",
        "sm100": "cuda:100", "sm120": "cuda:120", "gfx942": "hip:gfx942",
        "gfx950": "hip:gfx950", "gfx1100": "hip:gfx1100",
    }  # fmt: skip
    models = {name: t.bank_model and t.bank_model.name for name, t in TARGETS.items()}
    assert models == {
        **dict.fromkeys(["sm80", "sm86", "sm89", "sm90", "sm100", "sm120"], "nvidia"),
        "gfx942": "gfx942", "gfx950": "gfx950", "gfx1100": None,
    }  # fmt: skip
    lanes = {name: t.lanes for name, t in TARGETS.items()}
    assert lanes == {**dict.fromkeys(triton, 32), "gfx942": 64, "gfx950": 64}
    assert list(BANK_MODELS) == ["nvidia", "gfx942", "gfx950"]
    assert all(target_of_triton(t.triton) is t for t in TARGETS.values())
    assert target_of_triton("cuda:75") is None


def test_a_target_lane_count_must_match_its_bank_model() -> None:
    with pytest.raises(LayoutError, match="'lanes' of target x must be its bank model's 64"):
        GpuTarget("x", "hip", "gfx942", 32, BANK_MODELS["gfx942"])


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


def test_the_dtype_table() -> None:
    """Every name is in one spelling of one dtype; the derived tables agree with it."""
    for spelling in ("names", "ttgir", "gluon"):
        names = [name for d in DTYPES for name in getattr(d, spelling)]
        assert len(names) == len(set(names)), spelling
        assert all(name == name.lower() for name in names), spelling
    assert DTYPE_WIDTHS == (4, 8, 16, 32, 64)
    assert GLUON_DTYPE_BITS["int1"] == 1 and GLUON_DTYPE_BITS["float8e4nv"] == 8
    assert GLUON_DTYPE_BITS["bfloat16"] == DTYPE_BITS["bf16"] == 16
    assert len(DTYPE_BITS) == 30 and len(GLUON_DTYPE_BITS) == 18


def test_ttgir_element_types() -> None:
    ttgir = {
        "f16": 16, "bf16": 16, "i16": 16, "f32": 32, "tf32": 32, "i32": 32, "f64": 64,
        "i64": 64, "i8": 8, "i1": 8, "f8E4M3FN": 8, "f8E5M2": 8, "f8E4M3FNUZ": 8,
        "f8E5M2FNUZ": 8, "f8E4M3B11FNUZ": 8, "i4": 4, "!tt.ptr<f16>": 64,
    }  # fmt: skip
    assert {name: element_type_bits(name) for name in ttgir} == ttgir
    assert element_type_bits("index") is None
