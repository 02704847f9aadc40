"""gfx1250 partitioned shared layouts chosen against LDS partition conflicts: every
``#ttg.partitioned_shared`` around a given inner layout, searched exhaustively.

A swizzle permutes offsets inside one buffer, so it cannot move an access to another LDS
partition: within a buffer that lies in one partition every pair of waves conflicts
whatever the swizzle (:mod:`llverify.shared_memory.partitions`).  What can is the
partitioned layout, which cuts the tensor along ``partition_dim`` into ``num_partitions *
num_groups`` pieces in separate partitions.  :func:`synthesize_partitions` tries each
``(partition_dim, num_partitions, num_groups)`` whose buffers fit (``num_partitions`` a
power of 2 of at most the 5 partitions, so 2 or 4; each piece at least one element), keeps
``inner`` for the pieces, and returns the member with the fewest partition conflicts over
all the given register layouts (ties: fewer partitions, then fewer groups), with the
unpartitioned layout's count beside it.  The answer is optimal over that family, by
enumeration; the bank conflicts of the pieces are not part of the cost (gfx1250 has no
sourced bank model), and the model's limits are those of
:mod:`llverify.shared_memory.partitions`.

Examples:
    >>> from llverify.encodings import AMDWMMALayout, DotOperandLayout, SwizzledSharedLayout
    >>> wmma = AMDWMMALayout(3, True, [[2, 1], [1, 0]], [[2, 0]], [16, 16, 32])
    >>> inner = SwizzledSharedLayout(1, 1, 1, [1, 0])
    >>> best = synthesize_partitions([DotOperandLayout(0, wmma, 8)], inner, [64, 32], 16)
    >>> best.layout.mnemonic, best.layout.partition_dim, best.conflicts, best.unpartitioned
    ('partitioned_shared', 0, 0, 64)
    >>> best.members, best.claim
    (20, 'optimal over the 20 partitioned layouts of the family (enumerated)')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llverify.errors import LayoutError, LayoutTypeError, shown
from llverify.shared_memory.partitions import PartitionModel, partition_conflicts, partition_model

__all__ = ["PartitionChoice", "synthesize_partitions"]


@dataclass(frozen=True)
class PartitionChoice:
    """The chosen layout (``None``: leaving the tensor unpartitioned is best), its
    partition conflicts summed over the register layouts, the unpartitioned count, how
    many family members were enumerated, and the claim."""

    layout: Any
    conflicts: int
    unpartitioned: int
    members: int
    claim: str


def synthesize_partitions(
    register_layouts: Sequence[Any],
    inner: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | PartitionModel = "gfx1250",
) -> PartitionChoice:
    """The partitioned layout around ``inner`` (a shared encoding, the layout of each
    piece) with the fewest partition conflicts for the accesses of ``register_layouts``
    (each a distributed layout over ``shape`` that stores or loads the tensor)."""
    from llverify.encodings import Encoding, PartitionedSharedLayout

    model = partition_model(target)
    if not isinstance(inner, Encoding):
        raise LayoutTypeError(
            f"Argument 'inner' must be a shared encoding (the pieces' layout), not {shown(inner)}."
        )
    layouts = list(register_layouts)
    if not layouts:
        raise LayoutError("Argument 'register_layouts' must name at least one layout.")

    def cost(shared: Any) -> int:
        return sum(
            partition_conflicts(r, shared, shape, element_bits, model).conflicts for r in layouts
        )

    unpartitioned = cost(inner)
    ranked = []
    for dim, size in enumerate(shape):
        partitions = 2
        while partitions <= model.partitions:
            groups = 1
            while partitions * groups <= size:
                member = PartitionedSharedLayout(partitions, groups, dim, inner)
                try:
                    conflicts = cost(member)
                except LayoutError:  # its buffers do not fit the partitions
                    groups *= 2
                    continue
                ranked.append((conflicts, partitions, groups, dim, member))
                groups *= 2
            partitions *= 2
    if not ranked:
        return PartitionChoice(
            None, unpartitioned, unpartitioned, 0, "no partitioned layout fits: unpartitioned"
        )
    best = min(ranked, key=lambda r: r[:4])
    claim = f"optimal over the {len(ranked)} partitioned layouts of the family (enumerated)"
    if best[0] >= unpartitioned:
        return PartitionChoice(None, unpartitioned, unpartitioned, len(ranked), claim)
    return PartitionChoice(best[4], best[0], unpartitioned, len(ranked), claim)
