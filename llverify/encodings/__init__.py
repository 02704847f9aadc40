"""Triton's encodings (blocked, slice, dot operands, MMA, ...) converted to LinearLayouts.

The single entry point :func:`to_linear_layout` mirrors Gluon's
``ttgl.to_linear_layout(layout, shape)`` and accepts llverify encoding objects, TTGIR
attribute (or ``tensor<...>`` type) text as Triton 3.9 prints it, and Gluon layout objects.

The modules: ``base`` (``Encoding``, ``EncodingError``, the CGA part), ``builder`` (the
converters' fast path: a layout built directly from its bases), ``ttgir`` (the TTGIR
attribute parser), ``gluon`` (Gluon layout objects), and one per family: ``blocked``
(blocked, slice, linear, dot operands), ``generic_linear``, ``scales`` (block-scale scale
layouts), ``nvidia_mma``, ``amd_mfma``, ``amd_wmma``, ``shared`` (swizzled, AMD rotating,
partitioned), ``nvmma_shared``, ``padded`` (``PaddedLayout``), ``tmem`` (Blackwell tensor
memory) and ``intel_dpas`` (Intel XPU: ``#ttig.dpas``, its operands and scales,
``#ttig.subgroup_2d_block``, ``#ttig.warp``).
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
from llverify.encodings.generic_linear import GenericLinearLayout
from llverify.encodings.gluon import from_gluon
from llverify.encodings.intel_dpas import DpasLayout, IntelWarpLayout, Subgroup2DBlockLayout
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
from llverify.layout import LinearLayout, clear_from_bases_memo

__all__ = [
    "AMDMFMALayout",
    "AMDRotatingSharedLayout",
    "AMDWMMALayout",
    "BlockedLayout",
    "DistributedLinearLayout",
    "DotOperandLayout",
    "DpasLayout",
    "Encoding",
    "EncodingError",
    "GenericLinearLayout",
    "IntelWarpLayout",
    "NVMMADistributedLayout",
    "NVMMASharedLayout",
    "PaddedLayout",
    "PaddedSharedLayout",
    "PartitionedSharedLayout",
    "SharedLinearLayout",
    "SliceLayout",
    "Subgroup2DBlockLayout",
    "SwizzledSharedLayout",
    "TensorMemoryLayout",
    "TensorMemoryScalesLayout",
    "TTGIRError",
    "cga_from_split_params",
    "check_carried_shape",
    "clear_cache",
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
    one, it must be the type's shape.  Results are cached (converters are pure, layouts
    immutable): a call with arguments converted before (an llverify encoding or TTGIR
    text, a shape of plain ints) is one dictionary look-up, with no argument checked again.

    Examples:
        >>> ll = to_linear_layout("#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = "
        ...                       "[4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>", [4, 16])
        >>> ll.bases[0]
        ('register', [[0, 1]])
        >>> to_linear_layout(BlockedLayout([1, 2], [4, 8], [1, 1], [1, 0]), (4, 16)) is ll
        True
    """
    key = _call_key(encoding, shape)
    if key is not None:
        layout = _CONVERTED.get(key)
        if layout is not None:
            return layout
    parsed, carried = to_encoding(encoding)
    if shape is None:
        if carried is None:
            raise LayoutTypeError(
                "Argument 'shape' is needed unless the encoding is a tensor<...> type."
            )
        dims = tuple(carried)
    else:
        dims = check_carried_shape(shape, carried, "encoding")
    normalised = (parsed, dims)
    same = key is not None and key == normalised  # an llverify encoding, a plain shape
    layout = None if same else _CONVERTED.get(normalised)  # (the key just missed)
    if layout is None:
        layout = parsed.to_linear_layout(dims)
        _remember(normalised, layout)
    if key is not None and not same:
        _remember(key, layout)
    return layout


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


#: Conversions made, each under (encoding, shape) as the caller gave them (a shape of plain
#: ints as a tuple) and as normalised (the llverify encoding, the checked shape), so that
#: other spellings of one encoding share the result.  A key is only stored once its
#: arguments passed every check.  A full cache (_MAX_CONVERTED entries) is emptied.
_CONVERTED: dict[tuple[Any, tuple[int, ...] | None], LinearLayout] = {}
_MAX_CONVERTED = 4096
_PLAIN_SHAPES = (list, tuple)
#: Classes of encodings that are immutable values (str, llverify's frozen encodings), filled
#: as they are met.
_KEYABLE: set[type] = set()
_INT_TYPE = {int}


def _call_key(encoding: Any, shape: Any) -> tuple[Any, tuple[int, ...] | None] | None:
    """The cache key of a call (``shape`` as a tuple), or None when the encoding is not an
    immutable value (a Gluon object may hold lists the caller can change: it is keyed once
    converted) or the shape is not a list or tuple of plain ints (bools, numpy ints, ...
    take the checked path)."""
    if encoding.__class__ not in _KEYABLE:
        if not isinstance(encoding, (str, Encoding)):
            return None
        _KEYABLE.add(encoding.__class__)
    if shape is None:
        return encoding, None
    if shape.__class__ not in _PLAIN_SHAPES:
        return None
    dims = tuple(shape)
    return (encoding, dims) if set(map(type, dims)) <= _INT_TYPE else None


def _remember(key: tuple[Any, tuple[int, ...] | None], layout: LinearLayout) -> None:
    if len(_CONVERTED) >= _MAX_CONVERTED:
        _CONVERTED.clear()  # a new generation (a FIFO eviction scans)
    _CONVERTED[key] = layout


def clear_cache() -> None:
    """Forget every conversion made, and the layouts ``LinearLayout.from_bases`` memoised
    (benchmarks of cold conversions call it).

    Examples:
        >>> clear_cache()
    """
    _CONVERTED.clear()
    clear_from_bases_memo()
