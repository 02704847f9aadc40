"""The best legacy shared layouts of a conversion ``src -> shared -> dst``, with a certificate.

Triton's hand-written shared encodings are parameter families; for a given conversion this
module evaluates *every* member of a family with :func:`llverify.swizzle.cost.swizzle_cost`
and keeps the whole evaluation as data (:attr:`LegacyResult.table`), so that "the best
member" is a checked claim relative to the family, not a heuristic:

* :func:`best_swizzled_shared`: ``#ttg.swizzled_shared`` (:class:`~llverify.encodings.
  SwizzledSharedLayout`): every power-of-2 ``vec``, ``per_phase`` and ``max_phase`` up to
  the sizes beyond which the layout stops changing (see :func:`_swizzled_members`), and
  every ``order`` (both for 2-D) unless one is given.
* :func:`best_nvmma_shared`: ``#ttg.nvmma_shared`` (:class:`~llverify.encodings.
  NVMMASharedLayout`): swizzle widths 0/32/64/128 bytes, not transposed and transposed,
  ``element_bitwidth = element_bits``; members Triton refuses for the shape (an
  :class:`~llverify.encodings.EncodingError`) are kept in the table with the refusal.

Members whose layout is not bijective are no allocation of the tensor and are excluded
(kept in the table with the reason): Triton 3.9 builds such layouts for the unswizzled,
transposed NVMMA encoding of rank 3 or more (e.g. 1024 offsets, with repeats, for a
``[4, 16, 4]`` tensor), which can otherwise win on bank conflicts while wasting memory.

Best means the smallest :meth:`SwizzleCost.rank` (the widest narrowest vector, then the
widest vectors in all, then the fewest store + load wavefronts).  Ties go to the earliest
row of the table, which lists each family in a fixed preference order: the least swizzling
first (swizzled: ``max_phase``, then ``per_phase``, then ``vec`` ascending, then the orders
as searched, the row-major ``[rank-1, .., 0]`` first by default; NVMMA: the swizzle width
ascending, not transposed before transposed).  :meth:`LegacyResult.certificate_holds`
re-evaluates the table.

Examples:
    >>> from llverify.encodings import BlockedLayout
    >>> src = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])  # stores rows of 8-vectors
    >>> dst = BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])  # loads down the columns
    >>> r = best_swizzled_shared(src, dst, [64, 64], 16, order=[1, 0])
    >>> r.ttgir()
    '#ttg.swizzled_shared<{vec = 8, perPhase = 8, maxPhase = 8, order = [1, 0]}>'
    >>> usual = SwizzledSharedLayout(8, 1, 8, [1, 0])
    >>> r.cost.load_conflicts, swizzle_cost(src, dst, usual, [64, 64], 16).load_conflicts
    (0, 7)
    >>> len(r.table), r.certificate_holds()
    (140, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

from llverify.access import TARGETS, Target
from llverify.bits import as_int, is_power_of_2
from llverify.encodings import (
    EncodingError,
    NVMMASharedLayout,
    SwizzledSharedLayout,
    TTGIRError,
    layout_argument,
)
from llverify.encodings.base import list_text
from llverify.encodings.nvmma_shared import ELEMENT_BITWIDTHS, SWIZZLE_BYTE_WIDTHS
from llverify.errors import LayoutError, LayoutTypeError
from llverify.layout import LinearLayout
from llverify.layout_utils import standard_out_dim_names
from llverify.swizzle.cost import SwizzleCost, swizzle_cost

__all__ = ["LegacyResult", "best_nvmma_shared", "best_swizzled_shared"]

LegacyEncoding = SwizzledSharedLayout | NVMMASharedLayout
#: One certificate row: the member's constructor keywords, and its cost or why it is
#: excluded for the shape.
TableRow = tuple[dict[str, Any], SwizzleCost | str]

#: The encoding class of each family; a table row's params are its constructor keywords.
_FAMILIES: dict[str, Callable[..., LegacyEncoding]] = {
    "swizzled_shared": SwizzledSharedLayout,
    "nvmma_shared": NVMMASharedLayout,
}


@dataclass(frozen=True)
class LegacyResult:
    """The best member of a legacy shared-encoding family for ``src -> shared -> dst``.

    Attributes:
        family: ``"swizzled_shared"`` or ``"nvmma_shared"``.
        encoding: the best member (the first of the table's rows of the smallest rank).
        layout: its LinearLayout (``offset -> dim0..``) for ``shape``.
        cost: its :class:`SwizzleCost`.
        table: every member of the family, in preference order: (constructor keywords,
            cost, or why it is excluded: the EncodingError's text, or not bijective).
        elapsed_s: seconds the search took.
        src, dst: the register layouts searched for (as LinearLayouts).
        shape, element_bits, target: the search's other inputs.
        order: the order the swizzled search was restricted to (None: every order; always
            None for NVMMA).
    """

    family: str
    encoding: LegacyEncoding
    layout: LinearLayout
    cost: SwizzleCost
    table: tuple[TableRow, ...]
    elapsed_s: float
    src: LinearLayout
    dst: LinearLayout
    shape: tuple[int, ...]
    element_bits: int
    target: str | Target
    order: tuple[int, ...] | None = None

    def certificate_holds(self) -> bool:
        """Re-check the certificate: the table lists exactly the family's members for the
        inputs, every row re-evaluated with ``swizzle_cost`` (each distinct layout once,
        the cost being a function of the layouts) equals its recorded cost or exclusion,
        none ranks strictly better than :attr:`cost`, and the first row of that rank is
        :attr:`encoding` (with :attr:`layout`) at :attr:`cost`.

        Examples:
            >>> from llverify.encodings import BlockedLayout
            >>> b = BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0])
            >>> best_nvmma_shared(b, b, [8, 32], 16).certificate_holds()
            True
        """
        members = _members(self.family, self.shape, self.element_bits, self.order)
        if [params for params, _ in self.table] != members:
            return False
        make = _FAMILIES[self.family]
        evaluate = _Evaluator(self.src, self.dst, self.shape, self.element_bits, self.target)
        best = self.cost.rank()
        first_best: tuple[LegacyEncoding, SwizzleCost] | None = None
        for params, recorded in self.table:
            encoding = make(**params)
            outcome = evaluate(encoding)
            if outcome != recorded:
                return False
            if isinstance(outcome, SwizzleCost):
                if outcome.rank() < best:
                    return False
                if first_best is None and outcome.rank() == best:
                    first_best = (encoding, outcome)
        return first_best == (self.encoding, self.cost) and self.layout == (
            self.encoding.to_linear_layout(self.shape)
        )

    def ttgir(self) -> str:
        """The best encoding as Triton 3.9 prints the attribute.

        Examples:
            >>> from llverify.encodings import BlockedLayout
            >>> b = BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0])
            >>> best_nvmma_shared(b, b, [8, 32], 16).ttgir()
            '#ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = true, elementBitWidth = 16}>'
        """
        return self.encoding.ttgir()

    def gluon(self) -> str:
        """Gluon code constructing the best encoding (``ttgl`` is
        ``triton.experimental.gluon.language``).

        Examples:
            >>> from llverify.encodings import BlockedLayout
            >>> b = BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0])
            >>> best_swizzled_shared(b, b, [8, 32], 16).gluon()
            'ttgl.SwizzledSharedLayout(vec=1, per_phase=1, max_phase=1, order=[0, 1])'
        """
        enc = self.encoding
        if isinstance(enc, SwizzledSharedLayout):
            return (
                f"ttgl.SwizzledSharedLayout(vec={enc.vec}, per_phase={enc.per_phase}, "
                f"max_phase={enc.max_phase}, order={list_text(enc.order)})"
            )
        return (
            f"ttgl.NVMMASharedLayout(swizzle_byte_width={enc.swizzle_byte_width}, "
            f"element_bitwidth={enc.element_bitwidth}, rank={enc.rank}, "
            f"transposed={enc.transposed})"
        )


def best_swizzled_shared(
    src: Any,
    dst: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | Target = "nvidia",
    order: Sequence[int] | None = None,
) -> LegacyResult:
    """The best ``SwizzledSharedLayout`` for storing ``src`` and loading ``dst``.

    Args:
        src, dst: register layouts (LinearLayouts or anything
            :func:`llverify.encodings.layout_argument` accepts) of one CTA.
        shape: the tensor shape (positive powers of 2).
        element_bits: bits per element: 8, 16, 32 or 64.
        target: a name in :data:`llverify.access.TARGETS` or a :class:`Target`.
        order: search only this order (a permutation of ``0..rank-1``); by default every
            order, ``[rank-1, .., 0]`` first.

    Examples:
        >>> from llverify.encodings import BlockedLayout
        >>> b = BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0])  # registers down dim0
        >>> r = best_swizzled_shared(b, b, [8, 32], 16)
        >>> r.gluon()
        'ttgl.SwizzledSharedLayout(vec=1, per_phase=1, max_phase=1, order=[0, 1])'
        >>> r.cost.store_vec, r.cost.load_vec, r.cost.total_wavefronts
        (8, 8, 8)
    """
    return _search("swizzled_shared", src, dst, shape, element_bits, target, order)


def best_nvmma_shared(
    src: Any,
    dst: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | Target = "nvidia",
) -> LegacyResult:
    """The best ``NVMMASharedLayout`` (swizzle width, transposed) for storing ``src`` and
    loading ``dst``; arguments as :func:`best_swizzled_shared`.

    Examples:
        >>> from llverify.encodings import BlockedLayout
        >>> src = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
        >>> dst = BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])
        >>> r = best_nvmma_shared(src, dst, [128, 64], 16)  # every member has 8-way conflicts:
        >>> [(c.store_conflicts, c.load_conflicts) for _, c in r.table]
        [(0, 7), (7, 0), (3, 7), (7, 3), (1, 7), (7, 1), (0, 7), (7, 0)]
        >>> r.ttgir()  # the first of the cheapest (tied with 128 bytes)
        '#ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>'
        >>> print(r.gluon())
        ttgl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=16, rank=2, transposed=False)
    """
    return _search("nvmma_shared", src, dst, shape, element_bits, target, None)


# ----------------------------------------------------------------------------- the search


def _search(
    family: str,
    src: Any,
    dst: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | Target,
    order: Sequence[int] | None,
) -> LegacyResult:
    """Evaluate every member of ``family``; the first of the smallest rank is the best."""
    start = time.perf_counter()
    dims = _shape_argument(shape)
    bits = as_int(element_bits, "element_bits")
    if bits not in ELEMENT_BITWIDTHS:
        raise LayoutError(
            f"Argument 'element_bits' must be one of {list(ELEMENT_BITWIDTHS)}, not {bits}."
        )
    lanes = _target_argument(target).lanes
    src_ll = _register_argument(src, dims, "src", lanes)
    dst_ll = _register_argument(dst, dims, "dst", lanes)
    chosen = None if order is None else _order_argument(order, len(dims))
    evaluate = _Evaluator(src_ll, dst_ll, dims, bits, target)
    make = _FAMILIES[family]
    table: list[TableRow] = []
    best: tuple[LegacyEncoding, SwizzleCost] | None = None
    for params in _members(family, dims, bits, chosen):
        encoding = make(**params)
        outcome = evaluate(encoding)
        table.append((params, outcome))
        if isinstance(outcome, SwizzleCost) and (best is None or outcome.rank() < best[1].rank()):
            best = (encoding, outcome)
    # Every swizzled member and the plain NVMMA (width 0, not transposed) are bijective
    # layouts for any shape of positive powers of 2, so each family has a valid member.
    assert best is not None
    encoding, cost = best
    return LegacyResult(
        family=family,
        encoding=encoding,
        layout=encoding.to_linear_layout(dims),
        cost=cost,
        table=tuple(table),
        elapsed_s=time.perf_counter() - start,
        src=src_ll,
        dst=dst_ll,
        shape=dims,
        element_bits=bits,
        target=target,
        order=chosen,
    )


@dataclass
class _Evaluator:
    """Members' costs for one conversion, memoized by layout (the cost is a function of
    the layouts)."""

    src: LinearLayout
    dst: LinearLayout
    shape: tuple[int, ...]
    element_bits: int
    target: str | Target
    costs: dict[LinearLayout, SwizzleCost] = field(default_factory=dict)

    def __call__(self, encoding: LegacyEncoding) -> SwizzleCost | str:
        """The cost of ``encoding``, or why it is no member for the shape: the text of the
        EncodingError that refuses it, or that its layout is not bijective."""
        try:
            layout = encoding.to_linear_layout(self.shape)
        except EncodingError as error:
            return str(error)
        if not layout.is_invertible():
            return (
                f"{encoding.ttgir()} is excluded: its layout for {list(self.shape)} is not "
                f"bijective ({layout.get_in_dim_size('offset')} offsets for "
                f"{layout.get_total_out_dim_size()} elements)."
            )
        if layout not in self.costs:
            self.costs[layout] = swizzle_cost(
                self.src, self.dst, layout, self.shape, self.element_bits, self.target
            )
        return self.costs[layout]


def _members(
    family: str, shape: tuple[int, ...], element_bits: int, order: tuple[int, ...] | None
) -> list[dict[str, Any]]:
    """The family's members (constructor keywords) for the inputs, in preference order."""
    if family == "swizzled_shared":
        return _swizzled_members(shape, order)
    return [
        {
            "swizzle_byte_width": width,
            "element_bitwidth": element_bits,
            "rank": len(shape),
            "transposed": transposed,
        }
        for width in SWIZZLE_BYTE_WIDTHS
        for transposed in (False, True)
    ]


def _swizzled_members(
    shape: tuple[int, ...], order: tuple[int, ...] | None
) -> list[dict[str, Any]]:
    """Every power-of-2 ``(vec, per_phase, max_phase)`` that can change the layout, for
    each order (``order``, or every permutation, the reversed identity first).

    The bounds, with ``cols = shape[order[0]]`` and ``rows = shape[order[1]]`` (1 for
    rank 1): row bit ``r < rows`` moves column bits by ``vec * ((r / per_phase) %
    max_phase) % cols``, so

    * ``vec <= cols``: any ``vec >= cols`` adds a multiple of ``cols`` (no swizzle), as
      ``vec = cols`` does; with no row bits nothing is swizzled and only ``vec = 1`` is kept;
    * ``per_phase <= rows``: with ``per_phase >= rows`` every phase ``r / per_phase`` is 0;
    * ``max_phase <= min(rows / per_phase, cols / vec)``: the phase ``p = r / per_phase``
      is below ``rows / per_phase``, so a larger ``max_phase`` leaves ``p`` unreduced, and
      for ``max_phase`` a multiple of ``cols / vec``, ``vec * (p % max_phase) % cols =
      vec * (p % (cols / vec))``, which no larger ``max_phase`` changes.

    So every power-of-2 member outside the bounds has the layout of one inside them.

    Examples:
        >>> [tuple(m.values())[:3] for m in _swizzled_members((4, 4), (1, 0))][:7]
        [(1, 1, 1), (2, 1, 1), (4, 1, 1), (1, 2, 1), (2, 2, 1), (4, 2, 1), (1, 4, 1)]
        >>> len(_swizzled_members((4, 4), (1, 0)))
        14
    """
    rank = len(shape)
    orders = [order] if order is not None else sorted(permutations(range(rank)), reverse=True)
    members = []
    for index, each in enumerate(orders):
        cols = shape[each[0]]
        rows = shape[each[1]] if rank > 1 else 1
        for vec in _powers_of_2(cols if rows > 1 else 1):
            for per_phase in _powers_of_2(rows):
                for max_phase in _powers_of_2(min(rows // per_phase, cols // vec)):
                    key = (max_phase, per_phase, vec, index)
                    members.append((key, vec, per_phase, max_phase, each))
    members.sort(key=lambda member: member[0])
    return [
        {"vec": vec, "per_phase": per_phase, "max_phase": max_phase, "order": each}
        for _, vec, per_phase, max_phase, each in members
    ]


def _powers_of_2(limit: int) -> list[int]:
    """1, 2, 4, .., ``limit`` (a power of 2)."""
    return [1 << i for i in range(limit.bit_length())]


# ----------------------------------------------------------------------------- arguments


def _shape_argument(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
        raise LayoutTypeError(f"Argument 'shape' must be a list of ints, not {shape!r}.")
    dims = tuple(as_int(d, f"shape[{i}]") for i, d in enumerate(shape))
    if not dims or not all(is_power_of_2(d) for d in dims):
        raise LayoutError(
            f"Argument 'shape' must be a non-empty list of positive powers of 2, not {list(dims)}."
        )
    return dims


def _target_argument(target: Any) -> Target:
    if isinstance(target, Target):
        return target
    if not isinstance(target, str) or target not in TARGETS:
        raise LayoutError(
            f"Argument 'target' must be a Target or one of {sorted(TARGETS)}, not {target!r}."
        )
    return TARGETS[target]


def _order_argument(order: Any, rank: int) -> tuple[int, ...]:
    if isinstance(order, (str, bytes)) or not isinstance(order, Sequence):
        raise LayoutTypeError(f"Argument 'order' must be a list of ints, not {order!r}.")
    values = tuple(as_int(v, f"order[{i}]") for i, v in enumerate(order))
    if sorted(values) != list(range(rank)):
        raise LayoutError(
            f"Argument 'order' must be a permutation of 0..{rank - 1} (the shape's rank is "
            f"{rank}), not {list(values)}."
        )
    return values


def _register_argument(value: Any, shape: tuple[int, ...], name: str, lanes: int) -> LinearLayout:
    """``value`` as a one-CTA register layout onto ``shape`` with the target's lanes."""
    try:
        layout = layout_argument(value, shape, name)
    except (EncodingError, TTGIRError) as error:  # bad parameters or text: name the argument
        error.args = (f"Argument '{name}': {error}",)
        raise
    outs = dict(zip(layout.get_out_dim_names(), layout.get_out_dim_sizes()))
    expected = dict(zip(standard_out_dim_names(len(shape)), shape))
    if outs != expected:
        raise LayoutError(
            f"Argument '{name}' must map onto the tensor {list(shape)} (out dims {expected}), "
            f"not {outs}."
        )
    ins = {d: layout.get_in_dim_size(d) for d in layout.get_in_dim_names()}
    if "register" not in ins or ins.get("lane") != lanes or ins.get("block", 1) != 1:
        raise LayoutError(
            f"Argument '{name}' must be a register layout of one CTA with the target's "
            f"{lanes} lanes (in dims register, lane of size {lanes}, block of size 1), not "
            f"{ins}."
        )
    return layout
