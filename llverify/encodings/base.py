"""Shared machinery of the encoding converters: errors, checks, the CGA part, and
``combine_cta_cga_with_shape`` (Triton's LinearLayoutConversions.cpp helper of that name)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from llverify.bits import MAX_DIM_LOG2, as_int, as_shape, is_power_of_2
from llverify.errors import LayoutError, LayoutTypeError, shown
from llverify.layout import LinearLayout
from llverify.layout_utils import (
    ensure_layout_not_larger_than,
    ensure_layout_not_smaller_than,
    standard_out_dim_names,
)


class EncodingError(LayoutError):
    """An encoding parameter breaks one of Triton's verifier rules (the message names it)."""


def list_text(values: Sequence[int]) -> str:
    """``[1, 2]``: a list as TTGIR prints it.

    Examples:
        >>> list_text((1, 2))
        '[1, 2]'
    """
    return "[" + ", ".join(map(str, values)) + "]"


def bases_text(bases: Sequence[Sequence[int]]) -> str:
    """``[[0, 1], [1, 0]]``: a list of bases as TTGIR prints it."""
    return "[" + ", ".join(list_text(b) for b in bases) + "]"


def int_list(value: Any, name: str, encoding: str) -> tuple[int, ...]:
    """A list of ints (bools refused), as a tuple."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise LayoutTypeError(f"{encoding}: '{name}' must be a list of ints, not {shown(value)}.")
    return tuple(as_int(v, f"{name}[{i}]") for i, v in enumerate(value))


def bases_list(value: Any, name: str, encoding: str) -> tuple[tuple[int, ...], ...]:
    """A list of bases (lists of ints), as tuples."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise LayoutTypeError(f"{encoding}: '{name}' must be a list of bases, not {shown(value)}.")
    return tuple(int_list(b, f"{name}[{i}]", encoding) for i, b in enumerate(value))


def require_powers_of_2(values: Sequence[int], name: str, encoding: str) -> None:
    """Triton's rule "every element in NAME must be a power of two", and at most 2**30 (the
    dimension sizes they multiply into are int32).

    Examples:
        >>> try:
        ...     require_powers_of_2([4, 2**31], "w", "E")
        ... except EncodingError as error:
        ...     print(error)
        E: every element of 'w' must be at most 2**30, but w[1] = 2147483648.
    """
    for i, v in enumerate(values):
        if not is_power_of_2(v):
            raise EncodingError(
                f"{encoding}: every element of '{name}' must be a power of two, but "
                f"{name}[{i}] = {v}."
            )
        if v > 1 << MAX_DIM_LOG2:
            raise EncodingError(
                f"{encoding}: every element of '{name}' must be at most 2**{MAX_DIM_LOG2}, but "
                f"{name}[{i}] = {v}."
            )


def require_permutation(order: Sequence[int], name: str, encoding: str) -> None:
    """Triton's rule "order must be a permutation of 0..(rank-1)"."""
    if sorted(order) != list(range(len(order))):
        raise EncodingError(
            f"{encoding}: '{name}' must be a permutation of 0..{len(order) - 1}, not {list(order)}."
        )


def require_same_rank(encoding: str, **fields: Sequence[Any]) -> int:
    """All named fields have one length (the rank); returns it."""
    lengths = {name: len(value) for name, value in fields.items()}
    if len(set(lengths.values())) > 1:
        raise EncodingError(
            f"{encoding}: {', '.join(lengths)} must all have the same rank, not lengths {lengths}."
        )
    return next(iter(lengths.values()))


def check_shape(shape: Any, rank: int | None, encoding: str) -> tuple[int, ...]:
    """A tensor shape: positive powers of 2, of the encoding's rank."""
    dims = as_shape(shape)
    if rank is not None and len(dims) != rank:
        raise EncodingError(
            f"{encoding}: the shape {list(dims)} must have the encoding's rank {rank}."
        )
    for i, d in enumerate(dims):
        if not is_power_of_2(d):
            raise EncodingError(
                f"{encoding}: shape[{i}] = {d}; shapes must be positive powers of 2 (Triton 3.9)."
            )
    return dims


def cga_linear_layout(
    cga_layout: Sequence[Sequence[int]], rank: int, encoding: str
) -> LinearLayout:
    """The CGA part ``block -> dim0..`` from its block bases (Triton's CGAEncodingAttr).

    Rule: after removing zero (broadcast) bases, the bases form a permutation matrix.
    """
    bases = bases_list(cga_layout, "cga_layout", encoding)
    for i, basis in enumerate(bases):
        if len(basis) != rank:
            raise EncodingError(
                f"{encoding}: cga_layout[{i}] = {list(basis)} must have {rank} coordinates "
                f"(the rank)."
            )
    seen = set()
    for i, basis in enumerate(bases):
        nonzero = [v for v in basis if v]
        if not nonzero:
            continue
        if len(nonzero) != 1 or not is_power_of_2(nonzero[0]) or basis in seen:
            raise EncodingError(
                f"{encoding}: after removing broadcast (zero) bases the CGA layout must be "
                f"a permutation matrix, but cga_layout[{i}] = {list(basis)} is not a new "
                f"power-of-2 unit vector."
            )
        seen.add(basis)
    names = standard_out_dim_names(rank)
    try:
        return LinearLayout.from_bases([("block", [list(b) for b in bases])], names)
    except LayoutError as error:
        raise EncodingError(f"{encoding}: invalid cga_layout: {error}") from None


def dot_operand_cga_layout(
    cga_layout: Sequence[Sequence[int]], rank: int, operand_index: int, encoding: str
) -> LinearLayout:
    """The CGA part of a dot operand: the parent's, with the K dim broadcast (Triton's
    ``DotOperandEncodingAttr::getCGALayout``: K coordinates zeroed, K size 1).

    Examples:
        >>> dot_operand_cga_layout([[0, 1]], 2, 0, "dot").bases
        [('block', [[0, 0]])]
    """
    parent = cga_linear_layout(cga_layout, rank, encoding)
    k_dim = rank - 1 if operand_index == 0 else rank - 2
    bases = [
        ("block", [[0 if k == k_dim else v for k, v in enumerate(b)] for b in values])
        for _, values in parent.bases
    ]
    sizes = [1 if k == k_dim else s for k, s in enumerate(parent.get_out_dim_sizes())]
    return LinearLayout(bases, parent.get_out_dim_names(), sizes)


def cta_split_num(cga_layout: Sequence[Sequence[int]], rank: int) -> list[int]:
    """Triton's CTASplitNum of a CGA layout: 2 ** (#non-zero block bases along each dim).

    Examples:
        >>> cta_split_num([[0, 1], [1, 0], [0, 0]], 2)
        [2, 2]
    """
    split = [1] * rank
    for basis in cga_layout:
        for d, value in enumerate(basis):
            if value:
                split[d] *= 2
    return split


def shape_per_cta(shape: Sequence[int], split: Sequence[int]) -> list[int]:
    """Triton's getShapePerCTA: ``shape[d] / min(shape[d], split[d])``.

    Examples:
        >>> shape_per_cta([128, 1], [2, 2])
        [64, 1]
    """
    return [s // min(s, k) for s, k in zip(shape, split)]


def cga_from_split_params(
    ctas_per_cga: Sequence[int], cta_split_num: Sequence[int], cta_order: Sequence[int]
) -> list[list[int]]:
    """Block bases of Triton's legacy (CTAsPerCGA, CTASplitNum, CTAOrder) parameters.

    Examples:
        >>> cga_from_split_params([2, 2], [2, 1], [1, 0])
        [[0, 0], [1, 0]]
    """
    rank = len(cta_order)
    encoding = "CGA"
    ctas = int_list(ctas_per_cga, "CTAsPerCGA", encoding)
    splits = int_list(cta_split_num, "CTASplitNum", encoding)
    order = int_list(cta_order, "CTAOrder", encoding)
    require_same_rank(encoding, CTAsPerCGA=ctas, CTASplitNum=splits, CTAOrder=order)
    require_permutation(order, "CTAOrder", encoding)
    require_powers_of_2(ctas, "CTAsPerCGA", encoding)
    require_powers_of_2(splits, "CTASplitNum", encoding)
    names = standard_out_dim_names(rank)
    layout = LinearLayout.empty()
    for dim in order:
        if ctas[dim] % splits[dim]:
            raise EncodingError(
                f"{encoding}: CTASplitNum[{dim}] = {splits[dim]} must divide "
                f"CTAsPerCGA[{dim}] = {ctas[dim]}."
            )
        layout = (
            layout
            * LinearLayout.identity_1d(splits[dim], "block", names[dim])
            * LinearLayout.zeros_1d(ctas[dim] // splits[dim], "block", names[dim])
        )
    if not layout.num_in_dims:
        return []
    outs = layout.get_out_dim_names()
    return [
        [basis[outs.index(n)] if n in outs else 0 for n in names]
        for basis in dict(layout.bases)["block"]
    ]


def combine_cta_cga_with_shape(
    cta: LinearLayout,
    cga: LinearLayout,
    shape: Sequence[int],
    broadcast_registers: bool = True,
) -> LinearLayout:
    """Fit a CTA layout and its CGA layout to ``shape`` and multiply them (Triton's
    ``combineCtaCgaWithShape``): the CGA is clamped to the shape, the CTA grown with
    register (or offset) bases to shape / #CTAs and shrunk by broadcasting (register bases
    beyond the shape are dropped instead when ``broadcast_registers`` is False, as Triton
    3.9 does for Blocked layouts), and the out dims put in standard order."""
    rank = len(shape)
    names = standard_out_dim_names(rank)
    labeled = dict(zip(names, shape))
    cga = ensure_layout_not_larger_than(cga, labeled).transpose_outs(cta.get_out_dim_names())
    cta_shape = {d: max(1, labeled[d] // cga.get_out_dim_size(d)) for d in cta.get_out_dim_names()}
    cta = ensure_layout_not_smaller_than(cta, cta_shape)
    cta = ensure_layout_not_larger_than(cta, cta_shape, broadcast_registers)
    result = (cta * cga).transpose_outs(names)
    assert all(result.get_out_dim_size(d) == labeled[d] for d in names)
    return result


@dataclass(frozen=True)
class Encoding(ABC):
    """Base class of llverify's encoding objects (named and parametrized as in Gluon)."""

    #: The TTGIR attribute mnemonic, e.g. "blocked" for ``#ttg.blocked<...>``.
    mnemonic: ClassVar[str] = ""

    @abstractmethod
    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """The LinearLayout Triton builds for this encoding on a tensor of ``shape``."""

    @property
    @abstractmethod
    def rank(self) -> int:
        """The tensor rank the encoding is defined for."""

    @abstractmethod
    def ttgir(self) -> str:
        """The attribute text as Triton 3.9 prints it."""
