"""Triton's encodings (blocked, slice, dot operands, MMA, ...) converted to LinearLayouts.

The single entry point :func:`to_linear_layout` mirrors Gluon's
``ttgl.to_linear_layout(layout, shape)`` and accepts llverify encoding objects, TTGIR
attribute (or ``tensor<...>`` type) text as Triton 3.9 prints it, and Gluon layout objects.

The modules: ``base`` (``Encoding``, ``EncodingError``, the CGA part), ``ttgir`` (the TTGIR
attribute parser), ``gluon`` (Gluon layout objects), and one per family: ``blocked``
(blocked, slice, linear, dot operands), ``nvidia_mma``, ``amd_mfma``, ``amd_wmma``, ``shared``
(swizzled, AMD rotating, partitioned), ``nvmma_shared``, ``padded`` (``PaddedLayout``) and
``tmem`` (Blackwell tensor memory).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from llverify.bits import as_shape
from llverify.encodings.amd_mfma import AMDMFMALayout
from llverify.encodings.amd_wmma import AMDWMMALayout
from llverify.encodings.base import Encoding, EncodingError, cga_from_split_params
from llverify.encodings.blocked import (
    BlockedLayout,
    DistributedLinearLayout,
    DotOperandLayout,
    SliceLayout,
)
from llverify.encodings.gluon import from_gluon
from llverify.encodings.nvidia_mma import NVMMADistributedLayout
from llverify.encodings.nvmma_shared import NVMMASharedLayout
from llverify.encodings.padded import PaddedLayout, PaddedSharedLayout, parse_padded_shared
from llverify.encodings.shared import (
    AMDRotatingSharedLayout,
    PartitionedSharedLayout,
    SharedLinearLayout,
    SwizzledSharedLayout,
)
from llverify.encodings.tmem import (
    TensorMemoryLayout,
    TensorMemoryScalesLayout,
    tmem_register_layout,
)
from llverify.encodings.ttgir import TTGIRError, parse_encoding
from llverify.errors import LayoutError, LayoutTypeError
from llverify.layout import LinearLayout

__all__ = [
    "AMDMFMALayout",
    "AMDRotatingSharedLayout",
    "AMDWMMALayout",
    "BlockedLayout",
    "DistributedLinearLayout",
    "DotOperandLayout",
    "Encoding",
    "EncodingError",
    "NVMMADistributedLayout",
    "NVMMASharedLayout",
    "PaddedLayout",
    "PaddedSharedLayout",
    "PartitionedSharedLayout",
    "SharedLinearLayout",
    "SliceLayout",
    "SwizzledSharedLayout",
    "TensorMemoryLayout",
    "TensorMemoryScalesLayout",
    "TTGIRError",
    "cga_from_split_params",
    "check_carried_shape",
    "from_gluon",
    "parse_encoding",
    "parse_padded_shared",
    "to_encoding",
    "tmem_register_layout",
    "to_linear_layout",
]


def to_encoding(encoding: Any) -> tuple[Encoding, list[int] | None]:
    """An llverify encoding from any accepted form, and the shape if the form carries one."""
    if isinstance(encoding, Encoding):
        return encoding, None
    if isinstance(encoding, str):
        parsed, shape = _parsed(encoding)
        return parsed, None if shape is None else list(shape)
    if type(encoding).__module__.startswith("triton"):
        return from_gluon(encoding), None
    raise LayoutTypeError(
        f"Argument 'encoding' must be an llverify encoding, TTGIR text or a Gluon layout, "
        f"not {type(encoding).__name__}."
    )


def to_linear_layout(encoding: Any, shape: Sequence[int] | None = None) -> LinearLayout:
    """The LinearLayout Triton 3.9 builds for ``encoding`` on a tensor of ``shape``.

    ``shape`` may be left out when ``encoding`` is a ``tensor<...>`` type text; given with
    one, it must be the type's shape.

    Examples:
        >>> ll = to_linear_layout("#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = "
        ...                       "[4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>", [4, 16])
        >>> ll.bases[0]
        ('register', [[0, 1]])
    """
    parsed, carried = to_encoding(encoding)
    if shape is None:
        if carried is None:
            raise LayoutTypeError(
                "Argument 'shape' is needed unless the encoding is a tensor<...> type."
            )
        return _cached(parsed, tuple(carried))
    return _cached(parsed, check_carried_shape(shape, carried, "encoding"))


def check_carried_shape(
    shape: Sequence[int], carried: Sequence[int] | None, name: str
) -> tuple[int, ...]:
    """``shape`` (see :func:`llverify.bits.as_shape`), which must equal ``carried``, the
    shape that argument ``name`` carries (a ``tensor<...>`` or memdesc type), if any.

    Examples:
        >>> check_carried_shape([128, 64], [128, 64], "src")
        (128, 64)
        >>> check_carried_shape([64, 64], [128, 64], "src")
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'shape' is [64, 64], but the type in argument 'src' has shape [128, 64]: leave 'shape' out, or give the same.
    """  # noqa: E501
    dims = as_shape(shape)
    if carried is not None and list(dims) != list(carried):
        raise LayoutError(
            f"Argument 'shape' is {list(dims)}, but the type in argument '{name}' has shape "
            f"{list(carried)}: leave 'shape' out, or give the same."
        )
    return dims


@lru_cache(maxsize=4096)
def _parsed(text: str) -> tuple[Encoding, tuple[int, ...] | None]:
    """Parsed encodings are immutable values, so one parse serves every use of a text."""
    parsed, shape = parse_encoding(text, "encoding")
    return parsed, None if shape is None else tuple(shape)


@lru_cache(maxsize=4096)
def _cached(encoding: Encoding, shape: tuple[int, ...]) -> LinearLayout:
    """Converters are pure and LinearLayouts immutable, so results are shared (as Triton's
    dialect caches them)."""
    return encoding.to_linear_layout(shape)
