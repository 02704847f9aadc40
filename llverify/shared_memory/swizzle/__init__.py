"""Shared-memory swizzle synthesis (see docs/swizzle.md).

* :func:`synthesize_swizzle`: the optimal memory layout by constraint solving, certified;
* :func:`constructive_swizzle`: Triton's constructive algorithm (the baseline and the
  solver's starting point); :func:`convert_layout_swizzle`: what Triton's ``convert_layout``
  picks on sm_90 (the ld/st swizzle or an ldmatrix/stmatrix tile pair);
* :func:`best_swizzled_shared`, :func:`best_nvmma_shared`, :func:`best_padded_shared`: the
  best member of the legacy parameter families and of padded layouts, certified by
  exhaustive enumeration;
* :func:`swizzle_cost`: the cost model all of them are measured with;
* :func:`synthesize_partitions`: the gfx1250 ``#ttg.partitioned_shared`` around a given
  layout with the fewest LDS partition conflicts, by enumeration.

The modules: ``synthesize`` (constraint solving; the Z3 model is ``llverify.smt.swizzle``),
``starts`` (the synthesiser's starts and local search: the construction with the hardware's
pass tiles, the cost model on integers), ``constructive`` (Triton's algorithm), ``legacy``
(the legacy families by enumeration), ``cost`` (the cost model) and ``partitioned`` (the
gfx1250 partition search, over ``llverify.shared_memory.partitions``).
"""

from llverify.shared_memory.swizzle.constructive import (
    ConvertLayoutSwizzle,
    constructive_swizzle,
    convert_layout_swizzle,
)
from llverify.shared_memory.swizzle.cost import SwizzleCost, swizzle_cost
from llverify.shared_memory.swizzle.legacy import (
    LegacyResult,
    best_nvmma_shared,
    best_padded_shared,
    best_swizzled_shared,
)
from llverify.shared_memory.swizzle.partitioned import PartitionChoice, synthesize_partitions
from llverify.shared_memory.swizzle.synthesize import Certificate, SwizzleResult, synthesize_swizzle

__all__ = [
    "Certificate",
    "ConvertLayoutSwizzle",
    "LegacyResult",
    "PartitionChoice",
    "SwizzleCost",
    "SwizzleResult",
    "best_nvmma_shared",
    "best_padded_shared",
    "best_swizzled_shared",
    "constructive_swizzle",
    "convert_layout_swizzle",
    "swizzle_cost",
    "synthesize_partitions",
    "synthesize_swizzle",
]
