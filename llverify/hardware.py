"""Hardware facts: targets (lanes, banks, bank width, access phases), element-bit rules, dtypes.

Examples:
    >>> tgt = resolve_target("gfx942")
    >>> tgt.lanes, tgt.banks, tgt.pass_lanes(4)
    (64, 32, [1, 2, 20])
    >>> VECTOR_ELEMENT_BITS.check(16), dtype_bits("bf16"), element_type_bits("f8E5M2")
    (16, 16, 8)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llverify.bits import as_int, is_power_of_2
from llverify.errors import LayoutError, LLVerifyError

__all__ = [
    "ANY_ELEMENT_BITS",
    "BANK_BITS",
    "DTYPE_BITS",
    "DTYPE_WIDTHS",
    "LEGACY_ELEMENT_BITS",
    "PADDED_ELEMENT_BITS",
    "TARGETS",
    "VECTOR_BITS",
    "VECTOR_ELEMENT_BITS",
    "ElementBitsRule",
    "Target",
    "dtype_bits",
    "element_type_bits",
    "resolve_target",
]

#: bits of one shared-memory bank (a 32-bit word), on every target
BANK_BITS = 32
#: the widest shared-memory access of one lane (ld/st.shared.v4.b32, ds_read_b128)
VECTOR_BITS = 128


@dataclass(frozen=True)
class Target:
    """A shared-memory target: lanes per warp, banks of :data:`BANK_BITS` bits, and whether
    ds_read_b128 groups lanes by XOR phases (AMD wave64).

    Examples:
        >>> Target("nvidia", 32, 32).pass_lanes(2)
        [1, 2, 4, 8]
        >>> Target("odd", 32, 24)
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'target' must have power-of-2 lanes and banks, at least 4 banks (a 128-bit vector in one bank row), not Target(name='odd', lanes=32, banks=24, amd=False).
    """  # noqa: E501

    name: str
    lanes: int
    banks: int
    amd: bool = False

    def __post_init__(self) -> None:
        if not (is_power_of_2(self.lanes) and is_power_of_2(self.banks) and self.banks >= 4):
            raise LayoutError(
                f"Argument 'target' must have power-of-2 lanes and banks, at least 4 banks (a "
                f"{VECTOR_BITS}-bit vector in one bank row), not {self!r}."
            )

    def pass_lanes(self, words_per_lane: int) -> list[int]:
        """Lane indices spanning one pass (a GF(2) basis; the pass is their span): on NVIDIA
        ``banks / words_per_lane`` consecutive lanes; on AMD wave64 ds_read_b128 the XOR
        phases span(l0, l1, l2^l4) (32 banks) or span(l0, l1, l2^l3, l2^l4) (64 banks).

        Examples:
            >>> TARGETS["gfx950"].pass_lanes(4)
            [1, 2, 12, 20]
        """
        if self.amd and words_per_lane == 4:
            return [1, 2, 4 ^ 16] if self.banks == 32 else [1, 2, 4 ^ 8, 4 ^ 16]
        per_pass = min(self.lanes, self.banks // words_per_lane)
        return [1 << i for i in range(per_pass.bit_length() - 1)]

    def triton_lanes(self, words_per_lane: int) -> list[int]:
        """Triton's lane tile (``getLaneTile`` with an empty ``laneAddr``): the lanes below
        ``log2(phases)`` from the top, sequential.

        Examples:
            >>> TARGETS["nvidia"].triton_lanes(4)
            [1, 2, 4]
        """
        log2_lanes = self.lanes.bit_length() - 1
        log2_phase = max(
            0, (words_per_lane.bit_length() - 1) + log2_lanes - (self.banks.bit_length() - 1)
        )
        return [1 << i for i in range(log2_lanes - log2_phase)]


TARGETS = {
    "nvidia": Target("nvidia", 32, 32),
    "gfx942": Target("gfx942", 64, 32, amd=True),
    "gfx950": Target("gfx950", 64, 64, amd=True),
}


def resolve_target(target: str | Target, error: type[LLVerifyError] = LayoutError) -> Target:
    """The :class:`Target` named by ``target`` (a name in :data:`TARGETS` or a Target).

    ``error`` is the exception class raised for anything else (a subclass of ValueError).

    Examples:
        >>> resolve_target("nvidia").banks
        32
        >>> resolve_target("sm90")
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'target' must be a Target or one of ['gfx942', 'gfx950', 'nvidia'], not 'sm90'.
    """  # noqa: E501
    if isinstance(target, Target):
        return target
    if not isinstance(target, str) or target not in TARGETS:
        raise error(
            f"Argument 'target' must be a Target or one of {sorted(TARGETS)}, not {target!r}."
        )
    return TARGETS[target]


@dataclass(frozen=True)
class ElementBitsRule:
    """The element widths (bits) an analysis accepts, and why."""

    widths: tuple[int, ...]
    reason: str

    def check(
        self, value: Any, name: str = "element_bits", error: type[LLVerifyError] = LayoutError
    ) -> int:
        """``value`` as an int in :attr:`widths`; a LayoutTypeError for a non-int, ``error``
        (a ValueError) for another width.

        Examples:
            >>> LEGACY_ELEMENT_BITS.check(12)
            Traceback (most recent call last):
            ...
            llverify.errors.LayoutError: Argument 'element_bits' must be one of [8, 16, 32, 64] (the element_bitwidth of Triton's shared encodings), not 12.
        """  # noqa: E501
        bits = as_int(value, name)
        if bits not in self.widths:
            raise error(
                f"Argument '{name}' must be one of {list(self.widths)} ({self.reason}), not {bits}."
            )
        return bits


#: powers of 2 up to 64 bits (bank maps, ``synthesize_swizzle``)
ANY_ELEMENT_BITS = ElementBitsRule((1, 2, 4, 8, 16, 32, 64), "a power of 2 up to 64 bits")
#: widths dividing one 128-bit vector (``constructive_swizzle``, ``convert_layout_swizzle``)
VECTOR_ELEMENT_BITS = ElementBitsRule(
    (1, 2, 4, 8, 16, 32, 64, 128), f"a vector is at most {VECTOR_BITS} bits"
)
#: whole bytes dividing 128 bits (padded shared layouts: Triton asserts)
PADDED_ELEMENT_BITS = ElementBitsRule(
    (8, 16, 32, 64, 128), "padded shared layouts need whole-byte elements dividing 128 bits"
)
#: the legacy shared encodings' ``element_bitwidth`` (the ``best_*`` searches)
LEGACY_ELEMENT_BITS = ElementBitsRule(
    (8, 16, 32, 64), "the element_bitwidth of Triton's shared encodings"
)

#: element type names (TTGIR and Gluon spellings, lower case) -> bits
DTYPE_BITS = {
    **dict.fromkeys(["i4", "u4", "e2m1", "f4"], 4),
    **dict.fromkeys(["i8", "u8", "f8", "e4m3", "e5m2", "f8e4m3fn", "f8e5m2", "fp8"], 8),
    **dict.fromkeys(["f16", "bf16", "i16", "u16", "fp16", "float16", "bfloat16"], 16),
    **dict.fromkeys(["f32", "i32", "u32", "tf32", "fp32", "float32"], 32),
    **dict.fromkeys(["f64", "i64", "u64", "fp64", "float64"], 64),
}
#: the element widths a dtype may be given as directly (a bit count)
DTYPE_WIDTHS = (4, 8, 16, 32, 64)
#: TTGIR element types that are not dtype names: booleans take a byte in memory
_TTGIR_ONLY_BITS = {"i1": 8, "f8e4m3fnuz": 8, "f8e5m2fnuz": 8, "f8e4m3b11fnuz": 8}


def dtype_bits(text: str) -> int | None:
    """Bits of a dtype name (``"f16"``, any case) or a bit count (``"16"``); None if neither.

    Examples:
        >>> dtype_bits("BF16"), dtype_bits("e4m3"), dtype_bits("32"), dtype_bits("f12")
        (16, 8, 32, None)
        >>> dtype_bits("²") is None  # a Unicode digit that is no ASCII number
        True
    """
    key = text.strip().lower()
    if key in DTYPE_BITS:
        return DTYPE_BITS[key]
    if key.isascii() and key.isdigit() and int(key) in DTYPE_WIDTHS:
        return int(key)
    return None


def element_type_bits(element: str) -> int | None:
    """Bits of a TTGIR element type (pointers are 64-bit, ``i1`` a byte); None if unknown.

    Examples:
        >>> element_type_bits("bf16"), element_type_bits("!tt.ptr<f16>")
        (16, 64)
        >>> element_type_bits("f8E4M3FNUZ"), element_type_bits("i1"), element_type_bits("x")
        (8, 8, None)
    """
    if element.startswith("!tt.ptr"):
        return 64
    key = element.lower()
    return DTYPE_BITS.get(key, _TTGIR_ONLY_BITS.get(key))
