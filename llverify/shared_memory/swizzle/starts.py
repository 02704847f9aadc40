"""Start layouts for the synthesiser: the construction for each vector width pair with the
hardware's pass tiles, ranked by the synthesiser's cost model evaluated on integers.

Triton's constructive algorithm assumes that one pass of an access is a run of consecutive
lanes and that both sides vectorise equally.  On AMD's ds_read_b128 the passes are XOR
phases (lanes ``l0, l1, l2^l4, ...``), and below 32 bits one side may vectorise wider than
the other; there the constructive layout can be far from optimal, and finding the better
one was the solver's slowest work (satisfiable queries whose time varies by orders of
magnitude).  :func:`best_construction` builds
:func:`~llverify.shared_memory.swizzle.constructive.pass_tile_layout` for every allowed
(store, load) width pair with each side's real pass tile, and returns the cheapest by
:func:`model_cost` (the formulas of docs/swizzle.md that :mod:`llverify.smt.swizzle` encodes:
the widest width whose conditions hold, the conflict exponent ``dim(T ∩ Z) - dim(T ∩ Q)``
as a difference of ranks).  The synthesiser re-measures it with the access analysis and
starts from it when it beats the constructive layout; the solver then only has to certify
it (or improve on it, as from any start).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from llverify import gf2
from llverify.shared_memory.swizzle.constructive import pass_tile_layout

__all__ = ["best_construction", "model_cost"]


def model_cost(geo: Any, src: Any, dst: Any, columns: Sequence[int]) -> tuple[int, int, int]:
    """(store log2 width, load log2 width, total wavefronts) of the layout whose offset bit
    ``i`` holds element ``columns[i]``, in the synthesiser's model (``geo``: its
    ``_Geometry``; ``src``/``dst``: its ``_Side`` objects).

    Examples:
        >>> from llverify.hardware import BANK_MODELS
        >>> from llverify.shared_memory.swizzle.synthesize import _Geometry, _Side
        >>> geo = _Geometry(3, 32, BANK_MODELS["nvidia"])
        >>> side = _Side((1,), (2, 4), (), None)  # 1 register, 2 lanes over 8 elements
        >>> model_cost(geo, side, side, [1, 2, 4])  # 64-bit vectors, one wavefront each
        (1, 1, 2)
    """
    n = geo.n
    inverse = gf2.solve(columns, [1 << j for j in range(n)])
    if inverse is None or len(columns) != n:
        raise ValueError(f"Argument 'columns' must be a basis of {n}-bit elements, not {columns}.")

    def offset(element: int) -> int:
        out = 0
        for j, column in enumerate(inverse):
            if element >> j & 1:
                out ^= column
        return out

    ks, kl = _width(geo, src, offset), _width(geo, dst, offset)
    return ks, kl, _wavefronts(geo, src, ks, offset) + _wavefronts(geo, dst, kl, offset)


def _width(geo: Any, side: Any, offset: Callable[[int], int]) -> int:
    """The largest ``k`` (up to the geometry's) at which ``side`` vectorises ``2^k``:
    offsets ``1 .. 2^(k-1)`` are images of its registers, no other basis touches the low
    ``k`` bits (the encoding's ``vector_at_least``; the condition is monotone in ``k``)."""
    regs = [offset(r) for r in side.regs]
    others = [offset(b) for b in side.others]
    k = 0
    while k < geo.max_vec_log2():
        low, units = (1 << (k + 1)) - 1, {1 << i for i in range(k + 1)}
        if not units <= set(regs):
            break
        if any(o not in units and o & low for o in regs) or any(o & low for o in others):
            break
        k += 1
    return k


def _wavefronts(geo: Any, side: Any, k: int, offset: Callable[[int], int]) -> int:
    """Wavefronts of ``side`` at width ``2^k``: the conflict exponent is
    ``dim(T ∩ Z) - dim(T ∩ Q) = rank(word bits of T) - rank(bank bits of T)``."""
    offsets = [offset(t) for t in geo.pass_tile(side, k)]
    bank, word = geo.bank_mask(), geo.word_mask()
    exponent = gf2.rank([o & word for o in offsets]) - gf2.rank([o & bank for o in offsets])
    return int(geo.wavefronts(side, k, exponent))


def best_construction(
    geo: Any, src: Any, dst: Any, widths: Sequence[tuple[int, int]], bits: int, target: Any
) -> tuple[list[int], int] | None:
    """The cheapest :func:`pass_tile_layout` by :func:`model_cost` among those built for
    the (store, load) log2 width pairs ``widths`` that reach at least the narrowest pair
    of them (columns and model wavefronts), or None when none does.

    For a pair ``(ks, kl)`` the vector is ``min(ks, kl)`` register bases common to both
    sides, then ``|ks - kl|`` of the wider side's own; the tiles are each side's pass tile
    at its width; the wider side's registers lead the bank.

    Examples:
        >>> from llverify.hardware import BANK_MODELS
        >>> from llverify.shared_memory.swizzle.synthesize import _Geometry, _Side
        >>> geo = _Geometry(3, 32, BANK_MODELS["nvidia"])
        >>> side = _Side((1,), (2, 4), (), None)
        >>> best_construction(geo, side, side, [(0, 0), (1, 1)], 32, BANK_MODELS["nvidia"])
        ([1, 2, 4], 2)
    """
    common = [r for r in src.regs if r in dst.regs]
    own = {True: [r for r in src.regs if r not in dst.regs],
           False: [r for r in dst.regs if r not in src.regs]}  # fmt: skip
    need = (min(ks for ks, _ in widths), min(kl for _, kl in widths)) if widths else (0, 0)
    best: tuple[list[int], int] | None = None
    for ks, kl in widths:
        wider = None if ks == kl else ks > kl
        extra = [] if wider is None else own[wider][: abs(ks - kl)]
        vector = common[: min(ks, kl)] + extra
        if len(vector) != max(ks, kl) or gf2.rank(vector) != len(vector):
            continue
        columns = pass_tile_layout(
            vector, geo.pass_tile(src, ks), geo.pass_tile(dst, kl), src.regs, dst.regs,
            geo.n, bits, target, wider,
        )  # fmt: skip
        if gf2.rank(columns) != geo.n:
            continue
        got_s, got_l, wavefronts = model_cost(geo, src, dst, columns)
        if got_s >= need[0] and got_l >= need[1] and (best is None or wavefronts < best[1]):
            best = (columns, wavefronts)
    return best
