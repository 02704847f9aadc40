"""Shared-memory accesses at an affine offset: a shared layout plus a constant XOR or add.

A view of a buffer (``ttg.memdesc_subslice``, a descriptor's base, a hand-written lowering)
accesses element ``x`` at ``(L^-1(x) XOR xor) + add`` element offsets, ``L`` the shared
layout of the whole allocation.  Triton 3.9 only XORs (``lowerLdSt`` and
``lowerLdStMatrix`` XOR ``SharedMemoryObject::getShmemOffset`` into the base); an add is
what a base pointer moved by a byte offset does.  This module says what the offset changes:

* **bank conflicts and wavefronts.**  With ``w(a) = a * bits >> 5`` the 32-bit word of
  element ``a``, ``w(a XOR c) = w(a) XOR w(c)``: the XOR maps the words one wavefront touches
  one-to-one onto words, and two words share a bank exactly when their images do (bank =
  ``w mod banks``, XOR with the constant bank ``w(c) mod banks``).  So the count of distinct
  words in the fullest bank, hence every conflict count, is unchanged.  An add of whole
  words (``add * bits`` a multiple of 32) shifts every word by the same number and rotates
  the banks: unchanged too.  An add inside a word (8/16-bit elements, an odd number of
  16-bit halves) regroups elements into words; the count then comes from the exact
  simulator on the shifted addresses (refused beyond the enumeration budget), and Triton
  has no count for it (it never adds);
* **vectors.**  A vector of ``v`` elements needs ``v`` contiguous elements at a multiple of
  ``v``: an offset keeps the width only if ``xor`` has no bit below ``v`` and ``add`` is a
  multiple of ``v``; the width is halved until it does;
* **ldmatrix / stmatrix.**  Each lane's 16-byte row (``128 / bits`` elements) must stay
  contiguous and 16-byte aligned: legal only if the offset keeps a vector of one row.
  ldmatrix wavefronts count 16-byte rows per group of four banks, which the same
  arguments (row = address >> log2(row), rows XOR / shifted whole) leave unchanged.

Triton checks the row rule on ``getMaskSpanOffsets`` (:class:`RowRule`, the OR of every
offset a subslice of that type may take, which contains the actual one): ``mask &
(tile.getOutDimSize(offset) - 1)`` with the tile one 16-byte row.  Before triton#10066
(issue triton#9606) the mask was ``getOutDimSizeLog2(offset) - 1``, which for a 16-bit row
of 8 elements tests bit 1 only; :attr:`RowRule.missed_before_10066` states that bug.
Triton 3.9 has the fix (merged April 2026, before the 3.8 branch cut).

Examples:
    >>> from llverify import LinearLayout
    >>> reg = LinearLayout.from_bases([("register", [[1], [2], [4]]),
    ...     ("lane", [[8], [16], [32], [64], [128]]), ("warp", [])], ["dim0"])
    >>> shared = LinearLayout.identity_1d(256, "offset", "dim0")
    >>> a = offset_access_analysis(reg, shared, [256], 16, AffineOffset(xor=4))
    >>> a.analysis.elems_per_vec, a.unshifted.elems_per_vec  # XOR 4 splits 8-element vectors
    (4, 8)
    >>> a.unshifted.hardware_conflicts, a.analysis.hardware_conflicts  # 64-bit: 16 lanes a pass
    (0, 1)
    >>> RowRule(4, 16).legal, RowRule(4, 16).triton_before_10066
    (False, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from llverify.arguments import layout_argument, shared_layout_argument
from llverify.bits import as_int
from llverify.encodings.padded import PaddedLayout
from llverify.errors import LayoutError, LayoutTypeError, shown
from llverify.evaluate import check_enumeration
from llverify.hardware import VECTOR_ELEMENT_BITS, Target, resolve_target
from llverify.layout import LinearLayout
from llverify.shared_memory.access import AccessAnalysis, _instruction_fields, analyse_access
from llverify.shared_memory.wavefronts import (
    SIMULATOR_BYTES_PER_ADDRESS,
    access_addresses,
    count_wavefronts,
    hardware_conflicts,
    lane_offsets,
    linear_wavefronts,
    triton_conflicts,
)

__all__ = [
    "AffineOffset",
    "OffsetAccess",
    "RowRule",
    "analyse_offset_access",
    "offset_access_analysis",
    "offset_argument",
    "row_elements",
    "shifted_address_map",
]

#: Bytes in one ldmatrix/stmatrix row (PTX ISA, "Warp-level matrix load instruction").
ROW_BYTES = 16


@dataclass(frozen=True)
class AffineOffset:
    """A constant offset in elements: element ``x`` is accessed at ``(L^-1(x) XOR xor) + add``.

    Examples:
        >>> AffineOffset(xor=16).keeps_aligned(8), AffineOffset(add=4).keeps_aligned(8)
        (True, False)
        >>> AffineOffset(xor=-1)
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'offset.xor' must be an element offset >= 0, not -1.
    """

    xor: int = 0
    add: int = 0

    def __post_init__(self) -> None:
        for name in ("xor", "add"):
            value = as_int(getattr(self, name), f"offset.{name}")
            if value < 0:
                raise LayoutError(
                    f"Argument 'offset.{name}' must be an element offset >= 0, not {value}."
                )
            object.__setattr__(self, name, value)

    @property
    def is_zero(self) -> bool:
        """No offset at all."""
        return not (self.xor or self.add)

    def keeps_aligned(self, elements: int) -> bool:
        """Every aligned run of ``elements`` (a power of 2) elements stays contiguous and
        aligned: ``xor`` has no bit below it and ``add`` is a multiple of it."""
        return not self.xor & (elements - 1) and not self.add % elements

    def words_kept(self, element_bits: int) -> bool:
        """The offset maps whole 32-bit words onto whole words (every XOR does; an add does
        when it is a whole number of words), so bank conflicts are unchanged."""
        return not (self.add * element_bits) % 32


def offset_argument(value: Any) -> AffineOffset:
    """``value`` as an :class:`AffineOffset` (an int is an XOR), else a LayoutTypeError
    naming the argument.

    Examples:
        >>> offset_argument(16)
        AffineOffset(xor=16, add=0)
    """
    if isinstance(value, AffineOffset):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return AffineOffset(xor=value)
    raise LayoutTypeError(
        f"Argument 'offset' must be an AffineOffset or an int (an XOR offset), not "
        f"{type(value).__name__} {shown(value)}."
    )


def row_elements(element_bits: int) -> int:
    """Elements in one 16-byte ldmatrix/stmatrix row (8 to 32-bit elements), else a
    LayoutError naming the argument.

    Examples:
        >>> row_elements(16), row_elements(8)
        (8, 16)
    """
    bits = as_int(element_bits, "element_bits")
    if bits not in (8, 16, 32):
        raise LayoutError(
            f"Argument 'element_bits' must be 8, 16 or 32 for an ldmatrix/stmatrix row, not {bits}."
        )
    return ROW_BYTES * 8 // bits


@dataclass(frozen=True)
class RowRule:
    """Triton's ldmatrix/stmatrix subslice rule (``lowerLdStMatrix``) for a mask of offset
    bits a view may set, against the bits one 16-byte row needs contiguous.

    Examples:
        >>> r = RowRule(mask=48, element_bits=16)  # a 128x64 f16 buffer, columns 16..31
        >>> r.row_elements, r.needed, r.touched, r.legal
        (8, 7, 0, True)
        >>> r = RowRule(mask=4, element_bits=16)  # bit 2: half a row
        >>> r.legal, r.triton_before_10066, r.missed_before_10066
        (False, True, True)
    """

    mask: int
    element_bits: int

    def __post_init__(self) -> None:
        mask = as_int(self.mask, "mask")
        if mask < 0:
            raise LayoutError(f"Argument 'mask' must be a bit mask >= 0, not {mask}.")
        row_elements(self.element_bits)

    @property
    def row_elements(self) -> int:
        """Elements in one row (Triton's ``tile.getOutDimSize(kOffset)``)."""
        return row_elements(self.element_bits)

    @property
    def needed(self) -> int:
        """The offset bits a row needs left alone: every bit below one row."""
        return self.row_elements - 1

    @property
    def touched(self) -> int:
        """The mask's bits inside a row."""
        return self.mask & self.needed

    @property
    def legal(self) -> bool:
        """Every row stays contiguous and 16-byte aligned: Triton 3.9's rule (#10066)."""
        return not self.touched

    @property
    def triton_before_10066(self) -> bool:
        """The rule before triton#10066: ``mask & (log2(row) - 1) == 0`` (accepts)."""
        return not self.mask & (self.row_elements.bit_length() - 2)

    @property
    def missed_before_10066(self) -> bool:
        """The old rule accepted a mask that splits a row (triton#9606)."""
        return self.triton_before_10066 and not self.legal


@dataclass(frozen=True)
class OffsetAccess:
    """An access at an affine offset: its analysis, the same access at offset 0, and the
    ldmatrix row rule for the offset's XOR bits (None above 32-bit elements)."""

    analysis: AccessAnalysis
    unshifted: AccessAnalysis
    offset: AffineOffset
    rows: RowRule | None

    @property
    def vector_split(self) -> bool:
        """The offset splits the vectors of the unshifted access (Triton, which picks the
        width before XORing the offset in, would then issue misaligned vectors)."""
        return self.analysis.elems_per_vec < self.unshifted.elems_per_vec

    @property
    def ldmatrix_lost(self) -> bool:
        """ldmatrix/stmatrix applies at offset 0 but not at this offset."""
        before = self.unshifted.ldmatrix or self.unshifted.ldmatrix_trans
        return before and not (self.analysis.ldmatrix or self.analysis.ldmatrix_trans)


def analyse_offset_access(
    reg: LinearLayout,
    shared: LinearLayout | PaddedLayout,
    element_bits: int,
    tgt: Target,
    offset: AffineOffset,
) -> OffsetAccess:
    """:func:`offset_access_analysis` of layouts already normalised (the callers inside
    llverify).

    Examples:
        >>> from llverify.hardware import BANK_MODELS
        >>> reg = LinearLayout.from_bases([("register", []), ("lane", [[1], [2], [4], [8],
        ...     [16]])], ["dim0"])
        >>> shared = LinearLayout.identity_1d(32, "offset", "dim0")
        >>> a = analyse_offset_access(reg, shared, 32, BANK_MODELS["nvidia"], AffineOffset(add=3))
        >>> a.analysis.hardware_conflicts, a.analysis.source
        (0, 'algebra')
    """
    if isinstance(shared, PaddedLayout) and not offset.is_zero:
        raise LayoutError(
            "Argument 'offset' is not modelled on a padded shared layout (the padding is a "
            "function of the offset, which the offset moves); use a linear shared layout."
        )
    base = analyse_access(reg, shared, element_bits, tgt)
    rows = RowRule(offset.xor, element_bits) if 8 <= element_bits <= 32 else None
    if offset.is_zero:
        return OffsetAccess(base, base, offset, rows)
    return OffsetAccess(_shifted(base, element_bits, tgt, offset), base, offset, rows)


def _shifted(
    base: AccessAnalysis, element_bits: int, tgt: Target, offset: AffineOffset
) -> AccessAnalysis:
    """``base`` at ``offset``: the vector halved until the offset keeps it aligned, the
    conflicts algebraic when the offset keeps words (they are invariant), else simulated on
    the shifted addresses, ldmatrix only when a row stays whole."""
    cvt = base.conversion
    vec = base.elems_per_vec
    while vec > 1 and not offset.keeps_aligned(vec):
        vec //= 2
    fields = _instruction_fields(cvt, vec, element_bits, tgt)
    pass_lanes = fields["pass_lanes"]
    rows_ok = 8 <= element_bits <= 32 and offset.keeps_aligned(row_elements(element_bits))
    changed: dict[str, Any] = {
        **fields,
        "ldmatrix": base.ldmatrix and rows_ok,
        "ldmatrix_trans": base.ldmatrix_trans and rows_ok,
        "affine": (offset.xor, offset.add),
        "triton_miscompile": _triton_miscompile(base, element_bits, offset),
    }
    if offset.words_kept(element_bits):
        offsets = lane_offsets(cvt, pass_lanes)
        words = fields["words_per_lane"]
        sim = linear_wavefronts(cvt, vec, element_bits, tgt.banks, pass_lanes)
        return replace(
            base,
            **changed,
            lane_offsets=tuple((o ^ offset.xor) + offset.add for o in offsets),
            triton_conflicts=triton_conflicts(
                lane_offsets(cvt, tgt.triton_lanes(words)), element_bits, tgt.banks
            ),
            hardware_conflicts=hardware_conflicts(offsets, element_bits, tgt.banks),
            simulated_conflicts=sim.conflicts,
            colliding_lanes=sim.colliding_lanes,
            homogeneous=sim.homogeneous,
        )
    addresses = shifted_address_map(cvt, offset)[access_addresses(cvt)]
    sim = count_wavefronts(addresses, vec, element_bits, tgt.banks, pass_lanes)
    return replace(
        base,
        **changed,
        lane_offsets=tuple(int(addresses[0, lane, 0]) for lane in pass_lanes),
        triton_conflicts=None,
        hardware_conflicts=sim.conflicts,
        simulated_conflicts=sim.conflicts,
        colliding_lanes=sim.colliding_lanes,
        source="simulator",
        homogeneous=sim.homogeneous,
    )


def shifted_address_map(cvt: LinearLayout, offset: AffineOffset) -> np.ndarray:
    """The element address of every offset of ``cvt`` at ``offset`` (an ``address_map`` for
    :func:`~llverify.shared_memory.access.simulate_bank_conflicts`), refused beyond the
    enumeration budget: the exact simulation of an offset that regroups elements into words.

    Examples:
        >>> cvt = LinearLayout.from_bases([("lane", [[1], [2]])], ["offset"])
        >>> shifted_address_map(cvt, AffineOffset(xor=1, add=4)).tolist()
        [5, 4, 7, 6]
    """
    check_enumeration(
        max(cvt.get_total_in_dim_size(), cvt.get_total_out_dim_size()),
        SIMULATOR_BYTES_PER_ADDRESS,
        "the exact simulation of an access at an offset inside a 32-bit word",
        "such an offset regroups elements into words, so every address is simulated; use "
        "a smaller tensor shape",
    )
    size = cvt.get_total_out_dim_size()
    return (np.arange(size, dtype=np.int64) ^ offset.xor) + offset.add


def _triton_miscompile(
    base: AccessAnalysis, element_bits: int, offset: AffineOffset
) -> dict[str, int] | None:
    """Triton's ld/st address miscompile at an XOR offset (its additive strides avoid the
    offset's bits, ``actionAdditiveStrides``); None where there is none, and for an add,
    which Triton never emits (no claim)."""
    if element_bits < 8 or offset.add:
        return None
    from llverify.shared_memory.lowering import lowering_of

    model = lowering_of(base.conversion, base.elems_per_vec, element_bits, mask=offset.xor)
    return model.carry_counterexample()


def offset_access_analysis(
    register_layout: Any,
    shared_layout: Any,
    shape: Sequence[int],
    element_bits: int,
    offset: AffineOffset | int,
    target: str | Target = "nvidia",
) -> OffsetAccess:
    """Analyse ``register_layout`` stored to / loaded from ``shared_layout`` (the layout of
    the whole allocation, over ``shape``) at a constant ``offset`` (an :class:`AffineOffset`,
    or an int: an XOR, as Triton applies a subslice's offset).

    Examples:
        >>> reg = LinearLayout.from_bases([("register", []), ("lane", [[1], [2], [4], [8],
        ...     [16]])], ["dim0"])
        >>> shared = LinearLayout.identity_1d(64, "offset", "dim0")
        >>> offset_access_analysis(reg, shared, [64], 16, 32).analysis.hardware_conflicts
        0
        >>> offset_access_analysis(reg, shared, [64], 16, "32")
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutTypeError: Argument 'offset' must be an AffineOffset or an int (an XOR offset), not str '32'.
    """  # noqa: E501
    element_bits = VECTOR_ELEMENT_BITS.check(element_bits)
    tgt = resolve_target(target)
    reg = layout_argument(register_layout, shape, "register_layout")
    shared = shared_layout_argument(shared_layout, shape, "shared_layout")
    return analyse_offset_access(reg, shared, element_bits, tgt, offset_argument(offset))
