"""Shared-memory swizzle synthesis (see docs/swizzle.md).

* :func:`synthesize_swizzle`: the optimal memory layout by constraint solving, certified;
* :func:`constructive_swizzle`: Triton's constructive algorithm (the baseline and the
  solver's starting point);
* :func:`swizzle_cost`: the cost model both are measured with.
"""

from llverify.swizzle.constructive import constructive_swizzle
from llverify.swizzle.cost import SwizzleCost, swizzle_cost
from llverify.swizzle.synthesize import Certificate, SwizzleResult, synthesize_swizzle

__all__ = [
    "Certificate",
    "SwizzleCost",
    "SwizzleResult",
    "constructive_swizzle",
    "swizzle_cost",
    "synthesize_swizzle",
]
