"""The conversion a local_store or local_load performs: register -> shared offset, vectorised."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llverify.arguments import layout_argument
from llverify.column_action import ColumnAction
from llverify.errors import LayoutError
from llverify.layout import LinearLayout
from llverify.layout_utils import action_remove_broadcasted_regs, largest_vectorisation

__all__ = ["conversion_layout", "vectorised_conversion"]


def conversion_layout(
    register_layout: Any, shared_layout: Any, shape: Sequence[int], element_bits: int
) -> tuple[LinearLayout, int]:
    """``(register, lane, warp) -> offset`` with Triton's vector permutation applied, and the
    elements per vector (Triton's ``bankConflictsMemDesc`` preamble).

    Broadcast registers are dropped first; the block dim must be trivial (one CTA).

    Examples:
        >>> reg = LinearLayout.from_bases(
        ...     [("register", [[1]]), ("lane", [[2], [4], [8], [16], [32]])], ["dim0"])
        >>> shared = LinearLayout.identity_1d(64, "offset", "dim0")
        >>> cvt, elems = conversion_layout(reg, shared, [64], 16)
        >>> elems, cvt.get_in_dim_names()
        (2, ['register', 'lane'])
    """
    reg = layout_argument(register_layout, shape, "register_layout")
    shared = layout_argument(shared_layout, shape, "shared_layout")
    return vectorised_conversion(reg, shared, element_bits)


def vectorised_conversion(
    reg: LinearLayout, shared: LinearLayout, element_bits: int
) -> tuple[LinearLayout, int]:
    """:func:`conversion_layout` of layouts already normalised (the callers inside llverify).

    Examples:
        >>> reg = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2]])], ["dim0"])
        >>> shared = LinearLayout.identity_1d(4, "offset", "dim0")
        >>> cvt, elems = vectorised_conversion(reg, shared, 32)
        >>> elems, cvt.bases
        (2, [('register', [[1]]), ('lane', [[2]])])
    """
    if not reg.has_in_dim("register") or not shared.has_in_dim("offset"):
        raise LayoutError(
            "The register layout needs a 'register' in dim and the shared layout an "
            f"'offset' in dim, not {reg.get_in_dim_names()} and {shared.get_in_dim_names()}."
        )
    reg = action_remove_broadcasted_regs(reg).apply(reg)
    cvt = reg.invert_and_compose(shared)
    for dim in ("block",):
        if cvt.has_in_dim(dim) and cvt.get_in_dim_size(dim) > 1:
            raise LayoutError("Bank-conflict analysis supports one CTA (block size 1) only.")
    ins = [d for d in ("register", "lane", "warp") if cvt.has_in_dim(d)]
    if cvt.get_in_dim_names() != ins or cvt.get_out_dim_names() != ["offset"]:
        cvt = cvt.sublayout(ins, ["offset"])
    elems, permutation = _offset_vectorisation(cvt, element_bits)
    return permutation.apply(cvt), elems


def _offset_vectorisation(cvt: LinearLayout, element_bits: int) -> tuple[int, ColumnAction]:
    """:func:`llverify.layout_utils.largest_vectorisation` ``(cvt, element_bits)`` (Triton's
    ``largestVectorisation``), read off the columns for a conversion ``(register, ...) ->
    offset`` instead of dividing layouts: the widest ``v`` (at most 128 bits) such that
    registers hold the offsets ``1, 2, ..., v/2`` (the first of each, moved to the front)
    and every other basis is a multiple of ``v``.  Anything else (another out dim, element
    bits not dividing 128) goes to ``largest_vectorisation``.
    ``tests/test_access.py`` checks that the two agree.

    Examples:
        >>> cvt = LinearLayout.from_bases([("register", [[2], [8], [1]]), ("lane", [[4]])],
        ...     ["offset"])
        >>> _offset_vectorisation(cvt, 16)
        (4, ColumnAction([2, 0, 1], register, 3))
    """
    if (
        element_bits.__class__ is not int
        or not 0 < element_bits <= 128
        or 128 % element_bits
        or cvt._ins[:1] != ("register",)
        or cvt._outs != ("offset",)
    ):
        return largest_vectorisation(cvt, element_bits)
    registers, others = cvt._cols[0], [c for cols in cvt._cols[1:] for c in cols]
    log2_v = min((128 // element_bits).bit_length() - 1, cvt._out_log2[0])
    while log2_v > 0:
        chosen = [registers.index(1 << j) for j in range(log2_v) if (1 << j) in registers]
        mask = (1 << log2_v) - 1
        rest = [i for i in range(len(registers)) if i not in chosen]
        if (
            len(chosen) == log2_v
            and not any(registers[i] & mask for i in rest)
            and not any(c & mask for c in others)
        ):
            return 1 << log2_v, ColumnAction(chosen + rest, "register", len(registers))
        log2_v -= 1
    return 1, ColumnAction(list(range(len(registers))), "register", len(registers))
