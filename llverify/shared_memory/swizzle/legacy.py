"""The best legacy shared layouts of a conversion ``src -> shared -> dst``, with a certificate.

Triton's hand-written shared encodings are parameter families; for a given conversion this
module evaluates *every* member of a family with
:func:`llverify.shared_memory.swizzle.cost.swizzle_cost`
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
* :func:`best_padded_shared`: ``#ttg.padded_shared`` (:class:`~llverify.encodings.
  PaddedSharedLayout`, built by ``with_identity_for``): one ``[interval, padding]`` pair of
  powers of 2 (bounds in :func:`_padded_members`) on the identity of every order (every
  permutation for rank <= 3) unless one is given, and for each order the unpadded identity
  (``[[N, 1]]`` for ``N`` elements: it pads only after the last element, i.e. nowhere).
  Padding is not linear; the cost comes from the exact simulator on the physical
  addresses (:func:`llverify.shared_memory.access.access_analysis`), and ties go to the smallest
  allocation (:func:`~llverify.encodings.padded.padded_size`, per row in
  :attr:`LegacyResult.padded_sizes`).

Members whose layout is not bijective are no allocation of the tensor and are excluded
(kept in the table with the reason): Triton 3.9 builds such layouts for the unswizzled,
transposed NVMMA encoding of rank 3 or more (e.g. 1024 offsets, with repeats, for a
``[4, 16, 4]`` tensor), which can otherwise win on bank conflicts while wasting memory.

Best means the smallest :meth:`SwizzleCost.rank` (the widest narrowest vector, then the
widest vectors in all, then the fewest store + load wavefronts).  Ties go to the earliest
row of the table, which lists each family in a fixed preference order: the least swizzling
first (swizzled: ``max_phase``, then ``per_phase``, then ``vec`` ascending, then the orders
as searched, the row-major ``[rank-1, .., 0]`` first by default; NVMMA: the swizzle width
ascending, not transposed before transposed; padded: the smallest allocation first, see
:func:`_padded_members`, whose ties among the best rank are broken by that allocation before
the table order).  :meth:`LegacyResult.certificate_holds` re-evaluates the table.

Examples:
    >>> from llverify.encodings import BlockedLayout
    >>> src = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])  # stores rows of 8-vectors
    >>> dst = BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])  # loads down the columns
    >>> r = best_swizzled_shared(src, dst, [64, 64], 16, order=[1, 0])
    >>> r.ttgir()
    '#ttg.swizzled_shared<{vec = 8, perPhase = 8, maxPhase = 8, order = [1, 0]}>'
    >>> from llverify.shared_memory.swizzle.cost import swizzle_cost
    >>> usual = SwizzledSharedLayout(8, 1, 8, [1, 0])
    >>> r.cost.load_conflicts, swizzle_cost(src, dst, usual, [64, 64], 16).load_conflicts
    (0, 7)
    >>> len(r.table), r.certificate_holds()
    (140, True)

    Lanes store along rows and load down the columns of a 32x32 f32 tile: unpadded, the 32
    lanes of a load hit one bank; one element of padding per 32-element row fixes it:

    >>> src = BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0])
    >>> dst = BlockedLayout([1, 1], [32, 1], [1, 4], [0, 1])
    >>> p = best_padded_shared(src, dst, [32, 32], 32)
    >>> p.ttgir(), p.padded_elements
    ('#ttg.padded_shared<[32:+1] {order = [1, 0], shape = [32, 32]}>', 1055)
    >>> p.table[0][0]["interval_padding_pairs"], p.table[0][1].load_conflicts  # no padding
    (((1024, 1),), 31)
    >>> p.cost.store_conflicts, p.cost.load_conflicts, p.certificate_holds()
    (0, 0, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

from llverify.arguments import check_one_kernel, layout_argument
from llverify.bits import as_int, as_shape, is_power_of_2
from llverify.encodings import (
    EncodingError,
    NVMMASharedLayout,
    PaddedSharedLayout,
    SwizzledSharedLayout,
    TTGIRError,
)
from llverify.encodings.base import list_text
from llverify.encodings.nvmma_shared import SWIZZLE_BYTE_WIDTHS
from llverify.encodings.padded import padded_size
from llverify.errors import LayoutError, LayoutTypeError, shown
from llverify.hardware import LEGACY_ELEMENT_BITS, Target, resolve_target
from llverify.layout import LinearLayout
from llverify.layout_utils import standard_out_dim_names
from llverify.shared_memory.swizzle.cost import SwizzleCost, cost_of

__all__ = [
    "LegacyResult",
    "best_nvmma_shared",
    "best_padded_shared",
    "best_swizzled_shared",
    "search_family",
]

LegacyEncoding = SwizzledSharedLayout | NVMMASharedLayout | PaddedSharedLayout
#: One certificate row: the member's constructor keywords, and its cost or why it is
#: excluded for the shape.
TableRow = tuple[dict[str, Any], SwizzleCost | str]

#: The encoding class of each family; a table row's params are its constructor keywords.
_FAMILIES: dict[str, Callable[..., LegacyEncoding]] = {
    "swizzled_shared": SwizzledSharedLayout,
    "nvmma_shared": NVMMASharedLayout,
    "padded_shared": PaddedSharedLayout.with_identity_for,
}


@dataclass(frozen=True)
class LegacyResult:
    """The best member of a legacy shared-encoding family for ``src -> shared -> dst``.

    Attributes:
        family: ``"swizzled_shared"``, ``"nvmma_shared"`` or ``"padded_shared"``.
        encoding: the best member (the first of the table's rows of the smallest rank; for
            padded layouts, of those the first of the smallest allocation).
        layout: its LinearLayout (``offset -> dim0..``) for ``shape``; for padded layouts,
            which have none, the linear component (logical offset -> element; the physical
            addresses add the padding: ``encoding.padded_layout(shape)``).
        cost: its :class:`SwizzleCost`.
        table: every member of the family, in preference order: (constructor keywords,
            cost, or why it is excluded: the EncodingError's text, or not bijective).
        elapsed_s: seconds the search took.
        src, dst: the register layouts searched for (as LinearLayouts).
        shape, element_bits, target: the search's other inputs.
        order: the order the swizzled or padded search was restricted to (None: every
            order searched; always None for NVMMA).
        padded_elements: elements the best member allocates, padding included (the
            tensor's element count for the unpadded families).  None only where a result
            was built without it (the searches always set it).
        padded_sizes: for padded layouts, each table row's allocation in elements
            (:func:`~llverify.encodings.padded.padded_size`), in table order; empty for the
            other families (every member allocates exactly the elements).
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
    padded_elements: int | None = None
    padded_sizes: tuple[int, ...] = ()

    def certificate_holds(self) -> bool:
        """Re-check the certificate: the table lists exactly the family's members for the
        inputs, every row re-evaluated with ``swizzle_cost`` (each distinct layout once,
        the cost being a function of the layouts) equals its recorded cost or exclusion,
        none ranks strictly better than :attr:`cost`, and the first row of that rank (for
        padded layouts: of the smallest allocation, with :attr:`padded_sizes` and
        :attr:`padded_elements` recomputed) is :attr:`encoding` (with :attr:`layout`) at
        :attr:`cost`.

        Examples:
            >>> from llverify.encodings import BlockedLayout
            >>> b = BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0])
            >>> best_nvmma_shared(b, b, [8, 32], 16).certificate_holds()
            True
        """
        if self.family not in _FAMILIES or self.padded_elements is None:
            return False
        members = _members(self.family, self.shape, self.element_bits, self.order)
        if [params for params, _ in self.table] != members:
            return False
        sizes = _allocations(self.family, self.shape, members)
        if self.padded_sizes != (sizes if self.family == "padded_shared" else ()):
            return False
        make = _FAMILIES[self.family]
        evaluate = _Evaluator(
            self.src, self.dst, self.shape, self.element_bits, resolve_target(self.target)
        )
        best = (self.cost.rank(), self.padded_elements)
        first_best: tuple[LegacyEncoding, SwizzleCost] | None = None
        for (params, recorded), size in zip(self.table, sizes):
            encoding = make(**params)
            outcome = evaluate(encoding)
            if outcome != recorded:
                return False
            if isinstance(outcome, SwizzleCost):
                key = (outcome.rank(), size)
                if key < best:
                    return False
                if first_best is None and key == best:
                    first_best = (encoding, outcome)
        return first_best == (self.encoding, self.cost) and self.layout == (
            _layout_of(self.encoding, self.shape)
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
            >>> best_padded_shared(b, b, [8, 32], 16).gluon()
            'ttgl.PaddedSharedLayout.with_identity_for([[256, 1]], [8, 32], [0, 1])'
        """
        enc = self.encoding
        if isinstance(enc, PaddedSharedLayout):
            pairs = ", ".join(list_text(pair) for pair in enc.interval_padding_pairs)
            return (
                f"ttgl.PaddedSharedLayout.with_identity_for([{pairs}], "
                f"{list_text(enc.shape)}, {list_text(enc.order)})"
            )
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
            :func:`llverify.arguments.layout_argument` accepts) of one CTA.
        shape: the tensor shape (positive powers of 2).
        element_bits: bits per element: 8, 16, 32 or 64.
        target: a name in :data:`llverify.hardware.BANK_MODELS` or a :class:`Target`.
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


def best_padded_shared(
    src: Any,
    dst: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | Target = "nvidia",
    order: Sequence[int] | None = None,
) -> LegacyResult:
    """The best ``PaddedSharedLayout.with_identity_for([[interval, padding]], shape, order)``
    (or the unpadded identity) for storing ``src`` and loading ``dst``; arguments as
    :func:`best_swizzled_shared`, ``order`` by default every permutation for rank <= 3 and
    ``[rank-1, .., 0]`` only for higher ranks.  Members are listed in :func:`_padded_members`
    (one pair per member; Triton's several-pair paddings are not searched).  Of the members
    of the best :meth:`SwizzleCost.rank`, the smallest allocation wins
    (:attr:`LegacyResult.padded_elements`), then the earliest row.

    Examples:
        >>> from llverify.encodings import BlockedLayout
        >>> src = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
        >>> dst = BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])
        >>> r = best_padded_shared(src, dst, [64, 64], 16)
        >>> print(r.gluon())  # a load's lanes step 8 rows: shift each 8 rows by 16 bytes
        ttgl.PaddedSharedLayout.with_identity_for([[512, 8]], [64, 64], [1, 0])
        >>> c = r.cost  # no identity order vectorizes both: row-major stores 8-vectors
        >>> c.store_vec, c.load_vec, c.store_conflicts, c.load_conflicts, r.padded_elements
        (8, 1, 0, 0, 4152)
        >>> r.table[0][1].load_conflicts, len(r.table)  # unpadded: 8-way; both orders
        (7, 98)
    """
    return _search("padded_shared", src, dst, shape, element_bits, target, order)


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
    """:func:`search_family` of the public searches' arguments, normalised."""
    dims = _shape_argument(shape)
    src_ll = _register_argument(src, dims, "src")
    dst_ll = _register_argument(dst, dims, "dst")
    return search_family(family, src_ll, dst_ll, dims, element_bits, target, order)


def search_family(
    family: str,
    src: LinearLayout,
    dst: LinearLayout,
    shape: Sequence[int],
    element_bits: int,
    target: str | Target,
    order: Sequence[int] | None = None,
) -> LegacyResult:
    """Evaluate every member of ``family`` (``"swizzled_shared"``, ``"nvmma_shared"`` or
    ``"padded_shared"``) for register layouts already normalised; the first of the smallest
    rank is the best (:func:`best_swizzled_shared` and its siblings for any layout values).

    Examples:
        >>> src = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4], [8],
        ...     [16], [32]])], ["dim0"])
        >>> search_family("swizzled_shared", src, src, [64], 32, "nvidia").cost.store_vec
        2
    """
    start = time.perf_counter()
    dims = _shape_argument(shape)
    bits = LEGACY_ELEMENT_BITS.check(element_bits)
    tgt = resolve_target(target)
    _check_register(src, dims, "src", tgt.lanes)
    _check_register(dst, dims, "dst", tgt.lanes)
    check_one_kernel(src, dst)
    chosen = None if order is None else _order_argument(order, len(dims))
    evaluate = _Evaluator(src, dst, dims, bits, tgt)
    members = _members(family, dims, bits, chosen)
    sizes = _allocations(family, dims, members)
    table, (elements, encoding, cost) = _evaluate_members(family, members, sizes, evaluate)
    return LegacyResult(
        family=family,
        encoding=encoding,
        layout=_layout_of(encoding, dims),
        cost=cost,
        table=tuple(table),
        elapsed_s=time.perf_counter() - start,
        src=src,
        dst=dst,
        shape=dims,
        element_bits=bits,
        target=target,
        order=chosen,
        padded_elements=elements,
        padded_sizes=sizes if family == "padded_shared" else (),
    )


def _evaluate_members(
    family: str, members: list[dict[str, Any]], sizes: Sequence[int], evaluate: _Evaluator
) -> tuple[list[TableRow], tuple[int, LegacyEncoding, SwizzleCost]]:
    """Every member's row of the table, and the best member: the first of the smallest
    (cost rank, allocation), with its allocation in elements."""
    make = _FAMILIES[family]
    table: list[TableRow] = []
    best: tuple[tuple[tuple[int, int, int], int], LegacyEncoding, SwizzleCost] | None = None
    for params, size in zip(members, sizes):
        encoding = make(**params)
        outcome = evaluate(encoding)
        table.append((params, outcome))
        if isinstance(outcome, SwizzleCost):
            key = (outcome.rank(), size)
            if best is None or key < best[0]:
                best = (key, encoding, outcome)
    # Every swizzled member, the plain NVMMA (width 0, not transposed) and every padded
    # member (an identity linear component) are bijective for any shape of positive powers
    # of 2, so each family has a valid member.
    assert best is not None
    (_, elements), encoding, cost = best
    return table, (elements, encoding, cost)


def _layout_of(encoding: LegacyEncoding, shape: tuple[int, ...]) -> LinearLayout:
    """The member's LinearLayout for ``shape``: for a padded layout its linear component
    (logical offset, block -> element), the padding being no LinearLayout."""
    if isinstance(encoding, PaddedSharedLayout):
        return encoding.linear_component(shape)
    return encoding.to_linear_layout(shape)


def _allocations(
    family: str, shape: tuple[int, ...], members: list[dict[str, Any]]
) -> tuple[int, ...]:
    """Elements each member allocates: the padded size for padded layouts, else the
    tensor's element count (the tie-break after the rank; constant for the other families)."""
    elements = 1
    for size in shape:
        elements *= size
    if family != "padded_shared":
        return (elements,) * len(members)
    return tuple(padded_size(elements, m["interval_padding_pairs"]) for m in members)


@dataclass
class _Evaluator:
    """Members' costs for one conversion, memoized by layout (the cost is a function of
    the layouts)."""

    src: LinearLayout
    dst: LinearLayout
    shape: tuple[int, ...]
    element_bits: int
    target: Target
    costs: dict[Any, SwizzleCost] = field(default_factory=dict)

    def __call__(self, encoding: LegacyEncoding) -> SwizzleCost | str:
        """The cost of ``encoding``, or why it is no member for the shape: the text of the
        EncodingError that refuses it, or that its layout is not bijective."""
        if isinstance(encoding, PaddedSharedLayout):
            # The cost is a function of the physical address of every element: the linear
            # component (bijective, an identity) and the padding pairs.
            try:
                key = (encoding.linear_component(self.shape), encoding.interval_padding_pairs)
            except EncodingError as error:
                return str(error)
            if key not in self.costs:
                padded = encoding.padded_layout(self.shape)
                self.costs[key] = cost_of(
                    self.src, self.dst, padded, self.element_bits, self.target
                )
            return self.costs[key]
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
            self.costs[layout] = cost_of(self.src, self.dst, layout, self.element_bits, self.target)
        return self.costs[layout]


def _members(
    family: str, shape: tuple[int, ...], element_bits: int, order: tuple[int, ...] | None
) -> list[dict[str, Any]]:
    """The family's members (constructor keywords) for the inputs, in preference order."""
    if family == "swizzled_shared":
        return _swizzled_members(shape, order)
    if family == "padded_shared":
        return _padded_members(shape, element_bits, order)
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


def _padded_members(
    shape: tuple[int, ...], element_bits: int, order: tuple[int, ...] | None
) -> list[dict[str, Any]]:
    """``with_identity_for`` keywords of every padded member, in preference order: the
    smallest allocation first (``padded_size``), then the smaller padding, then the orders
    (``order``, or every permutation for rank <= 3, the reversed identity first; only the
    reversed identity for rank > 3, 24 or more orders being costly).  Each order has the
    padding pairs of :func:`_padding_pairs`.

    Examples:
        >>> rows = _padded_members((4, 8), 32, (1, 0))
        >>> [(m["interval_padding_pairs"][0], padded_size(32, m["interval_padding_pairs"]))
        ...  for m in rows][:5]
        [((32, 1), 32), ((16, 1), 33), ((16, 2), 34), ((8, 1), 35), ((16, 4), 36)]
        >>> len(rows), len(_padded_members((4, 8), 8, None))  # 1 + 5 * 3; 2 * (1 + 5 * 5)
        (16, 52)
    """
    rank = len(shape)
    elements = 1
    for size in shape:
        elements *= size
    if order is not None:
        orders = [order]
    elif rank <= 3:
        orders = sorted(permutations(range(rank)), reverse=True)
    else:
        orders = [tuple(range(rank - 1, -1, -1))]
    pairs = _padding_pairs(elements, element_bits)
    members = [
        ((padded_size(elements, [pair]), pair[1], index), pair, each)
        for index, each in enumerate(orders)
        for pair in pairs
    ]
    members.sort(key=lambda member: member[0])
    return [
        {"interval_padding_pairs": (pair,), "shape": shape, "order": each}
        for _, pair, each in members
    ]


def _padding_pairs(elements: int, element_bits: int) -> list[tuple[int, int]]:
    """The ``(interval, padding)`` pairs of the padded members of a tensor of ``elements``
    elements:

    * the unpadded identity as ``[[N, 1]]``: it pads after every ``N`` elements, and
      Triton's padded size drops the padding after the last element, so nothing is padded
      (the physical address is the logical offset, the allocation ``N``); Triton's
      PaddedShared needs at least one pair, so ``[]`` is no member;
    * every ``[[interval, padding]]`` with ``interval`` a power of 2 in ``[1, N)`` (an
      interval of ``N`` or more pads nothing) and ``padding`` a power of 2 in ``[1, 16
      bytes]`` (``max(1, 128 // element_bits)`` elements).

    Why stop the padding at 16 bytes: it is the widest single access (``ld/st.shared.v4``,
    ``ds_read/write_b128``), so a padding of 16 bytes never narrows a vector (a padded
    vector must be contiguous and aligned: the width divides every padding), while a wider
    one only adds memory and shifts each interval by whole 16-byte columns; the banks see
    the shift modulo the bank row (128 bytes on NVIDIA and gfx942, 256 on gfx950), so a
    padding that is a multiple of the row leaves every element's bank as unpadded.  But
    paddings of 32 or 64 (gfx950: 128) bytes shift by 2 or 4 (8) columns, which no 16-byte
    padding need reproduce, and they can be strictly better: storing ``BlockedLayout([4,
    1], [16, 2], [1, 1], [1, 0])`` and loading ``BlockedLayout([2, 1], [4, 8], [1, 1], [0,
    1])`` of a 16x8 f32 tensor, ``[[32, 8]]`` (32 bytes per 128) in order ``[0, 1]`` stores
    and loads conflict-free with 4- and 2-element vectors, while every member here with
    those vectors stores or loads with a conflict (the best is unpadded, loading 2-way).
    So this is the family searched, not a proof that no wider padding or several-pair
    padding (``[[I1, P1], [I2, P2]]``, which Triton allows) is better.

    Examples:
        >>> _padding_pairs(8, 32)
        [(8, 1), (1, 1), (1, 2), (1, 4), (2, 1), (2, 2), (2, 4), (4, 1), (4, 2), (4, 4)]
    """
    paddings = _powers_of_2(max(1, 128 // element_bits))
    pairs = [(elements, 1)]
    pairs += [
        (interval, padding) for interval in _powers_of_2(elements // 2) for padding in paddings
    ]
    return pairs


def _powers_of_2(limit: int) -> list[int]:
    """1, 2, 4, .., ``limit`` (a power of 2)."""
    return [1 << i for i in range(limit.bit_length())]


# ----------------------------------------------------------------------------- arguments


def _shape_argument(shape: Any) -> tuple[int, ...]:
    dims = as_shape(shape)
    if not dims or not all(is_power_of_2(d) for d in dims):
        raise LayoutError(
            f"Argument 'shape' must be a non-empty list of positive powers of 2, not {list(dims)}."
        )
    return dims


def _order_argument(order: Any, rank: int) -> tuple[int, ...]:
    if isinstance(order, (str, bytes)) or not isinstance(order, Sequence):
        raise LayoutTypeError(f"Argument 'order' must be a list of ints, not {shown(order)}.")
    values = tuple(as_int(v, f"order[{i}]") for i, v in enumerate(order))
    if sorted(values) != list(range(rank)):
        raise LayoutError(
            f"Argument 'order' must be a permutation of 0..{rank - 1} (the shape's rank is "
            f"{rank}), not {list(values)}."
        )
    return values


def _register_argument(value: Any, shape: tuple[int, ...], name: str) -> LinearLayout:
    """``value`` as a LinearLayout, errors naming the argument."""
    try:
        return layout_argument(value, shape, name)
    except (EncodingError, TTGIRError) as error:  # bad parameters or text: name the argument
        error.args = (f"Argument '{name}': {error}",)
        raise


def _check_register(layout: LinearLayout, shape: tuple[int, ...], name: str, lanes: int) -> None:
    """``layout`` is a one-CTA register layout onto ``shape`` with the target's lanes."""
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
