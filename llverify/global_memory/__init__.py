"""Global memory: the sectors and cache lines a warp's loads and stores touch, and the register
layout that touches the fewest (docs/coalescing.md).

Modules:

* ``sectors``: the model (32-byte sectors, 128-byte lines, 16-byte vectors per lane) and the
  analysis of one register layout against one global address map;
* ``synthesize``: the register layout with the widest vectors and fewest sectors, certified.

Examples:
    >>> from llverify.global_memory import coalescing
    >>> enc = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
    >>> c = coalescing(enc, [64, 1], [16, 64], element_bits=16)
    >>> c.vector_width, c.sectors_per_request, c.efficiency
    (8, 16.0, 1.0)
"""  # noqa: E501

from llverify.global_memory.sectors import (
    Coalescing,
    GlobalTarget,
    coalescing,
    global_offsets,
)
from llverify.global_memory.synthesize import (
    CoalescingCertificate,
    CoalescingResult,
    best_register_layout,
)

__all__ = [
    "Coalescing",
    "CoalescingCertificate",
    "CoalescingResult",
    "GlobalTarget",
    "best_register_layout",
    "coalescing",
    "global_offsets",
]
