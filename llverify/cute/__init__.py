"""CuTe layouts (CUTLASS's layout algebra) and their exact conversion to and from LinearLayouts.

Modules:

* :mod:`llverify.cute.layout`: the value types (IntTuple, Layout, Swizzle, ComposedLayout),
  evaluation, CuTe's text format;
* :mod:`llverify.cute.algebra`: coalesce, composition, complement, inverses, logical
  divides and products, upcast/downcast, thread-value layouts;
* :mod:`llverify.cute.linear`: conversion both ways with :class:`~llverify.LinearLayout`
  where the map is GF(2)-linear (refused with the mode and stride otherwise), thread-value
  and shared-memory views, per-lane addresses for the one-warp bank-conflict query;
* :mod:`llverify.cute.symbolic`: a layout's index function as a sympy expression and back
  (sympy is imported on first use).

Examples:
    >>> from llverify import cute
    >>> smem = cute.parse("Sw<1,0,2> o 0 o (4,4):(4,1)")
    >>> cute.to_linear_layout(smem).bases
    [('dim0', [[5], [8]]), ('dim1', [[1], [2]])]
"""

from __future__ import annotations

from llverify.cute.algebra import (
    CuteAlgebraError,
    blocked_product,
    coalesce,
    complement,
    composition,
    downcast,
    filter_zeros,
    left_inverse,
    logical_divide,
    logical_product,
    make_layout_tv,
    raked_product,
    right_inverse,
    tiled_divide,
    tiled_product,
    upcast,
    with_shape,
    zipped_divide,
    zipped_product,
)
from llverify.cute.layout import (
    ComposedLayout,
    IntTuple,
    Layout,
    Swizzle,
    crd2idx,
    flatten,
    idx2crd,
    is_layout,
    make_layout,
    parse,
    prefix_product,
    product,
)
from llverify.cute.linear import (
    NotLinearError,
    from_linear_layout,
    lane_addresses,
    linear_layout_to_tv,
    reference_for,
    smem_from_linear_layout,
    to_linear_layout,
    to_shared_layout,
    tv_to_linear_layout,
)
from llverify.cute.symbolic import cute_to_sympy, sympy_to_cute

__all__ = [
    "cute_to_sympy",
    "sympy_to_cute",
    "NotLinearError",
    "from_linear_layout",
    "lane_addresses",
    "linear_layout_to_tv",
    "reference_for",
    "smem_from_linear_layout",
    "to_linear_layout",
    "to_shared_layout",
    "tv_to_linear_layout",
    "ComposedLayout",
    "CuteAlgebraError",
    "IntTuple",
    "Layout",
    "Swizzle",
    "blocked_product",
    "coalesce",
    "complement",
    "composition",
    "crd2idx",
    "downcast",
    "filter_zeros",
    "flatten",
    "idx2crd",
    "is_layout",
    "left_inverse",
    "logical_divide",
    "logical_product",
    "make_layout",
    "make_layout_tv",
    "parse",
    "prefix_product",
    "product",
    "raked_product",
    "right_inverse",
    "tiled_divide",
    "tiled_product",
    "upcast",
    "with_shape",
    "zipped_divide",
    "zipped_product",
]
