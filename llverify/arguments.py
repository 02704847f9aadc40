"""The layout argument normaliser: any accepted layout value (+ shape) to what analyses take.

Examples:
    >>> value = layout_value("#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [16, 32]}>",
    ...                      [16, 32], "shared")
    >>> type(value).__name__, value.padded_size
    ('PaddedLayout', 572)
    >>> layout_argument('{"bases": {"lane": [[1]]}, "out_dims": {"dim0": 2}}', None, "src").bases
    [('lane', [[1]])]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llverify.cute.layout import is_layout
from llverify.cute.linear import to_shared_layout, tv_to_linear_layout
from llverify.encodings import (
    Encoding,
    PaddedLayout,
    PaddedSharedLayout,
    check_carried_shape,
    from_gluon,
    parse_encoding,
    parse_padded_shared,
    to_linear_layout,
)
from llverify.errors import LayoutError, LayoutTypeError, LLVerifyError, ParseError
from llverify.layout import LinearLayout
from llverify.text_format import check_nesting

__all__ = [
    "LAYOUT_FORMS",
    "LayoutTextError",
    "ShapeNeededError",
    "check_one_kernel",
    "is_encoding_text",
    "layout_argument",
    "layout_object",
    "layout_value",
    "shared_layout_argument",
]

#: the forms of layout text, for error messages
LAYOUT_FORMS = (
    "TTGIR attribute text ('#ttg.blocked<{...}>', with a shape, or 'tensor<...>'), "
    "Triton's LinearLayout text (' - register=1 -> (0, 1) ... where out dims are: [...]') "
    'or JSON (\'{"bases": ..., "out_dims": ...}\')'
)


class ShapeNeededError(LayoutTypeError):
    """An encoding was given without a shape (and its form carries none)."""


class LayoutTextError(ParseError):
    """Text that is none of the layout text forms (:data:`LAYOUT_FORMS`)."""


def is_encoding_text(text: str) -> bool:
    """Whether ``text`` is written as TTGIR (an attribute, a ``tensor<...>`` or ``!ttg``
    type), as opposed to Triton's LinearLayout text or JSON.

    Examples:
        >>> is_encoding_text(" tensor<4xf16, #blocked>"), is_encoding_text("{}")
        (True, False)
    """
    return text.lstrip().startswith(("#", "tensor<", "!"))


def _parse_text(text: str, name: str) -> tuple[Any, list[int] | None]:
    """The object a layout text describes, and the shape it carries (if any)."""
    stripped = text.strip()
    check_nesting(stripped, name)
    if stripped.startswith("!"):
        return parse_padded_shared(stripped, name)
    if is_encoding_text(stripped):
        return parse_encoding(stripped, name)
    if stripped.startswith("{"):
        return LinearLayout.from_json(stripped), None
    if "->" in stripped or "size 1 dimension" in stripped:
        return LinearLayout.from_string(stripped), None
    shown = stripped if len(stripped) <= 60 else stripped[:57] + "..."
    raise LayoutTextError(f"Argument '{name}' must be {LAYOUT_FORMS}, not {shown!r}.")


def _object(value: Any, name: str) -> tuple[Any, list[int] | None]:
    """A LinearLayout, PaddedLayout or llverify encoding for ``value``, and a carried shape."""
    if isinstance(value, (LinearLayout, PaddedLayout, Encoding)):
        return value, None
    if isinstance(value, str):
        return _parse_text(value, name)
    if type(value).__module__.startswith("triton"):
        try:
            return from_gluon(value), None
        except LayoutTypeError as error:
            raise LayoutTypeError(f"Argument '{name}': {error}") from error
        except LLVerifyError:
            raise
        except Exception as error:  # a Gluon object missing what its class promises
            raise LayoutError(f"Argument '{name}' could not be converted: {error}") from error
    raise LayoutTypeError(
        f"Argument '{name}' must be a LinearLayout, an llverify encoding, a Gluon layout or "
        f"layout text, not {type(value).__name__}."
    )


def layout_object(value: Any, name: str = "layout") -> tuple[Any, list[int] | None]:
    """What :func:`layout_value` reads ``value`` as before it applies a shape: a
    LinearLayout, PaddedLayout or llverify encoding, and the shape the form carries (None
    when it carries none).  ``layout_value(obj, shape, name)`` of an ``obj`` read here that
    carries no shape is ``layout_value(value, shape, name)``, without reading the text again.

    Examples:
        >>> obj, carried = layout_object("#ttg.swizzled_shared<{vec = 1, perPhase = 1, "
        ...                              "maxPhase = 1, order = [1, 0]}>", "shared")
        >>> type(obj).__name__, carried, layout_value(obj, [4, 4], "shared").get_in_dim_names()
        ('SwizzledSharedLayout', None, ['offset', 'block'])
    """
    return _object(value, name)


def layout_value(
    value: Any, shape: Sequence[int] | None = None, name: str = "layout"
) -> LinearLayout | PaddedLayout:
    """``value`` as a LinearLayout, or as a :class:`PaddedLayout` for a padded shared layout.

    Accepted values: a LinearLayout, a PaddedLayout, an llverify encoding object, a Gluon
    layout object, or text: TTGIR attribute text, a ``tensor<...>`` type, a padded
    ``!ttg.memdesc<...>`` type, Triton's LinearLayout text or JSON (never a file name).
    ``shape`` is the tensor's (needed for encodings unless the form carries one: a
    ``tensor<...>`` or memdesc type, which a given ``shape`` must then equal; a padded
    encoding defaults to its own shape).  ``name`` is the argument's name for error messages.

    Examples:
        >>> layout_value("tensor<4x16xf16, #ttg.blocked<{sizePerThread = [1, 2], "
        ...              "threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>"
        ...              ).bases[0]
        ('register', [[0, 1]])
        >>> layout_value(3.5, [4], "src")
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutTypeError: Argument 'src' must be a LinearLayout, an llverify encoding, a Gluon layout or layout text, not float.
    """  # noqa: E501
    obj, carried = _object(value, name)
    dims = carried if shape is None else list(check_carried_shape(shape, carried, name))
    if isinstance(obj, PaddedSharedLayout):
        return obj.padded_layout(dims)
    if isinstance(obj, PaddedLayout):
        if dims is not None and tuple(obj.shape) != tuple(dims):
            raise LayoutError(
                f"Argument '{name}': the PaddedLayout has shape {list(obj.shape)}, not "
                f"{list(dims)}."
            )
        return obj
    if isinstance(obj, Encoding):
        if dims is None:
            raise ShapeNeededError(
                f"Argument '{name}': Argument 'shape' is needed unless the encoding is a "
                "tensor<...> type."
            )
        try:
            return to_linear_layout(obj, dims)
        except LayoutTypeError as error:
            raise LayoutTypeError(f"Argument '{name}': {error}") from error
    assert isinstance(obj, LinearLayout)
    return obj


def layout_argument(value: Any, shape: Sequence[int] | None, name: str) -> LinearLayout:
    """``value`` as a LinearLayout (:func:`layout_value`); a padded shared layout, which is
    not linear, raises EncodingError.  A CuTe layout (:mod:`llverify.cute`) is read as a
    thread-value layout over the tile ``shape`` (:func:`~llverify.cute.tv_to_linear_layout`).

    Examples:
        >>> layout_argument(3, [4], "src")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutTypeError: Argument 'src' must be a LinearLayout, ...
    """
    if is_layout(value):  # a CuTe thread-value layout over the tile ``shape``
        return _cute_tv(value, shape, name)
    value = layout_value(value, shape, name)
    if isinstance(value, PaddedLayout):
        return value.encoding.to_linear_layout(value.shape)  # raises: padding is not linear
    return value


def shared_layout_argument(
    value: Any, shape: Sequence[int] | None, name: str = "shared_layout"
) -> LinearLayout | PaddedLayout:
    """A shared layout for bank analyses: :func:`layout_value`, with a padded layout limited
    to one buffer of one CTA.  A CuTe layout (:mod:`llverify.cute`) is read as a
    shared-memory layout ``coordinates -> offset`` with one mode per dim of ``shape``
    (:func:`~llverify.cute.to_shared_layout`).

    Examples:
        >>> shared_layout_argument("#ttg.padded_shared<[32:+4] {order = [1, 0], "
        ...                        "shape = [16, 32]}>", [2, 16, 32])
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Bank-conflict analysis of padded layouts supports one buffer of one CTA only (got 2 buffers, 1 CTAs).
    """  # noqa: E501
    if is_layout(value):  # a CuTe shared-memory layout: coordinates -> offset
        return _cute_smem(value, shape, name)
    layout = layout_value(value, shape, name)
    if isinstance(layout, PaddedLayout) and (layout.num_buffers != 1 or layout.num_blocks != 1):
        raise LayoutError(
            "Bank-conflict analysis of padded layouts supports one buffer of one CTA only "
            f"(got {layout.num_buffers} buffers, {layout.num_blocks} CTAs)."
        )
    return layout


def _cute_tv(value: Any, shape: Sequence[int] | None, name: str) -> LinearLayout:
    """A CuTe thread-value layout as the register layout over the tile ``shape``."""
    if shape is None:
        raise ShapeNeededError(f"Argument '{name}': a CuTe TV layout needs the tile's 'shape'.")
    try:
        return tv_to_linear_layout(value, tuple(shape))
    except LayoutError as error:
        raise type(error)(f"Argument '{name}': {error}") from None


def _cute_smem(value: Any, shape: Sequence[int] | None, name: str) -> LinearLayout:
    """A CuTe shared-memory layout as Triton's shared layout (offset -> coordinates)."""
    sizes = [mode.size() for mode in (value.inner if hasattr(value, "inner") else value)]
    if shape is not None and list(shape) != sizes:
        raise LayoutError(
            f"Argument '{name}': the CuTe layout {value} has mode sizes {sizes}, not the "
            f"shape {list(shape)}."
        )
    try:
        return to_shared_layout(value)
    except LayoutError as error:
        raise type(error)(f"Argument '{name}': {error}") from None


#: the in dims that count a kernel's hardware: lanes per warp, warps per CTA, CTAs
_KERNEL_DIMS = ("lane", "warp", "block")


def _kernel_counts(layout: LinearLayout) -> str:
    return ", ".join(
        f"{dim}={layout.get_in_dim_size(dim) if layout.has_in_dim(dim) else 1}"
        for dim in _KERNEL_DIMS
    )


def check_one_kernel(
    src: LinearLayout, dst: LinearLayout, names: tuple[str, str] = ("src", "dst")
) -> None:
    """Both layouts of one operation (a conversion's source and destination) belong to one
    kernel: the same lanes per warp, warps per CTA and CTAs (the sizes of the in dims
    ``lane``, ``warp`` and ``block``; an absent dim has size 1).

    Examples:
        >>> a = LinearLayout.from_bases([("register", [[1]]), ("warp", [[2]])], ["dim0"])
        >>> b = LinearLayout.from_bases([("register", [[1], [2]]), ("warp", [])], ["dim0"])
        >>> check_one_kernel(a, a)
        >>> check_one_kernel(a, b)
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Arguments 'src' and 'dst' must be layouts of one kernel: the same lanes per warp, warps per CTA and CTAs (in dim sizes lane, warp, block), not lane=1, warp=2, block=1 ('src') and lane=1, warp=1, block=1 ('dst').
    """  # noqa: E501
    src_counts, dst_counts = _kernel_counts(src), _kernel_counts(dst)
    if src_counts != dst_counts:
        raise LayoutError(
            f"Arguments '{names[0]}' and '{names[1]}' must be layouts of one kernel: the same "
            "lanes per warp, warps per CTA and CTAs (in dim sizes lane, warp, block), not "
            f"{src_counts} ('{names[0]}') and {dst_counts} ('{names[1]}')."
        )
