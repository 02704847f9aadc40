"""``#ttg.generic_linear``: Triton 3.9's distributed layout with swizzled warps and duplicates.

Triton 3.9 has two raw-bases distributed encodings.  ``#ttg.linear`` (``LinearEncodingAttr``,
:class:`~llverify.encodings.blocked.DistributedLinearLayout`) must be a permutation matrix
after removing broadcast bases.  ``#ttg.generic_linear`` (``GenericLinearEncodingAttr``,
added in 2026) is looser; its verifier, as Triton 3.9's parser applies it (checked against
``triton._C.libtriton.ir.parse_mlir_module`` in tests/test_encodings_generic_linear.py):

* every register, lane and block basis moves along at most one dim ("In a generic linear
  layout, register, lane, and block bases must move in at most one dimension"), with any
  value there (``[0, 3]`` is allowed);
* warp bases are unrestricted (a warp may move along several dims: a swizzled warp layout);
* repeated bases are allowed (duplication) and so are zero bases (broadcast);
* the layout must cover its out dims (Triton's LinearLayout constructor aborts otherwise;
  llverify raises :class:`EncodingError`).

Both share Triton's ``LinearEncodingTrait``, so at another shape a generic layout is fitted
as a linear one is (grown with register bases, shrunk by broadcasting).  Gluon has no class
for it: ``get_gluon_layout_from_tensor`` reads one back as a ``DistributedLinearLayout`` whose
``_to_ir`` then builds a ``#ttg.linear`` (and aborts on a swizzled warp basis).

Examples:
    >>> enc = GenericLinearLayout([[0, 1]], [[1, 0], [2, 0]], [[4, 1]], [])
    >>> enc.to_linear_layout([8, 2]).apply({"register": 0, "lane": 0, "warp": 1, "block": 0})
    {'dim0': 4, 'dim1': 1}
    >>> enc.ttgir()[:48]
    '#ttg.generic_linear<{register = [[0, 1]], lane ='
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llverify.encodings.base import EncodingError, bases_list, bases_text, check_shape
from llverify.encodings.blocked import DistributedLinearLayout
from llverify.encodings.ttgir import register

__all__ = ["GenericLinearLayout"]

_NAME = "GenericLinearLayout"


@dataclass(frozen=True)
class GenericLinearLayout(DistributedLinearLayout):
    """``#ttg.generic_linear``: raw register/lane/warp/block bases (see the module text for
    the rules).

    Examples:
        >>> GenericLinearLayout([[0, 1], [0, 1]], [[1, 0]], [], []).rank
        2
        >>> GenericLinearLayout([[1, 1]], [[2, 0]], [], [])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llverify.encodings.base.EncodingError: GenericLinearLayout: ... register basis 0 = ...
    """

    mnemonic = "generic_linear"

    def __post_init__(self) -> None:
        for attr in ("reg_bases", "lane_bases", "warp_bases", "block_bases"):
            object.__setattr__(self, attr, bases_list(getattr(self, attr), attr, _NAME))
        if self.shape is not None:
            object.__setattr__(self, "shape", check_shape(self.shape, None, _NAME))
        lengths = {len(b) for _, values in self._named_bases() for b in values}
        if self.shape is not None:
            lengths.add(len(self.shape))
        if len(lengths) > 1:
            raise EncodingError(
                f"{_NAME}: every basis must have one coordinate per dim (the rank); found "
                f"lengths {sorted(lengths)}."
            )
        for in_dim, values in self._named_bases():
            if in_dim == "warp":
                continue
            for i, basis in enumerate(values):
                moved = sum(1 for v in basis if v)
                if moved > 1:
                    raise EncodingError(
                        f"{_NAME}: register, lane and block bases must move along at most one "
                        f"dim, but {in_dim} basis {i} = {list(basis)} moves along {moved}."
                    )
        own = self._own_layout()  # raises EncodingError for a bad coordinate
        if not own.is_surjective():
            where = f"the shape {list(self.shape)}" if self.shape is not None else "its out dims"
            raise EncodingError(f"{_NAME}: the bases must cover {where}.")

    def _own_layout(self, rank: int | None = None) -> Any:
        try:
            return super()._own_layout(rank)
        except EncodingError as error:
            raise EncodingError(str(error).replace("DistributedLinearLayout", _NAME)) from None

    def ttgir(self) -> str:
        return (
            f"#ttg.generic_linear<{{register = {bases_text(self.reg_bases)}, lane = "
            f"{bases_text(self.lane_bases)}, warp = {bases_text(self.warp_bases)}, block = "
            f"{bases_text(self.block_bases)}}}>"
        )


def _generic_from_ttgir(fields: dict[str, Any], attribute: Any) -> GenericLinearLayout:
    return GenericLinearLayout(
        attribute.take("register"),
        attribute.take("lane"),
        attribute.take("warp"),
        attribute.take("block"),
    )


register("generic_linear", _generic_from_ttgir)
