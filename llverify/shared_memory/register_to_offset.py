"""The conversion a local_store or local_load performs: register -> shared offset, vectorised."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llverify.arguments import layout_argument
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
    cvt = cvt.sublayout(ins, ["offset"])
    elems, permutation = largest_vectorisation(cvt, element_bits)
    return permutation.apply(cvt), elems
