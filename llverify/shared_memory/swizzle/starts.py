"""Start layouts for the synthesiser: constructions with the hardware's pass tiles, and a
local search on its cost model.

Triton's constructive algorithm assumes that one pass of an access is a run of consecutive
lanes and that both sides vectorise equally.  On AMD's ds_read_b128 the passes are XOR
phases (lanes ``l0, l1, l2^l4, ...``), and below 32 bits one side may vectorise wider than
the other; there the constructive layout can be far from optimal, and finding the better
one was the solver's slowest work (satisfiable queries whose time varies by orders of
magnitude).  :func:`best_construction` builds
:func:`~llverify.shared_memory.swizzle.constructive.pass_tile_layout` for every allowed
(store, load) width pair with each side's real pass tile, and returns the cheapest by
the :class:`CostModel` (the formulas of docs/swizzle.md that :mod:`llverify.smt.swizzle` encodes:
the widest width whose conditions hold, the conflict exponent ``dim(T ∩ Z) - dim(T ∩ Q)``
as a difference of ranks).  The synthesiser re-measures it with the access analysis and
starts from it when it beats the constructive layout; the solver then only has to certify
it (or improve on it, as from any start).  :func:`improve` is a local search on the same
model, which the synthesiser runs on each layout the solver finds and when a query stays
undecided.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from llverify import gf2
from llverify.shared_memory.swizzle.constructive import pass_tile_layout

__all__ = ["CostModel", "best_construction", "improve"]


class CostModel:
    """The synthesiser's cost model of one problem (``geo``: its ``_Geometry``; ``src``/
    ``dst``: its ``_Side`` objects), evaluated on integers, with the pass tiles cached.

    Examples:
        >>> from llverify.hardware import BANK_MODELS
        >>> from llverify.shared_memory.swizzle.synthesize import _Geometry, _Side
        >>> side = _Side((1,), (2, 4), (), None)  # 1 register, 2 lanes over 8 elements
        >>> model = CostModel(_Geometry(3, 32, BANK_MODELS["nvidia"]), side, side)
        >>> model.cost([1, 2, 4])  # 64-bit vectors both ways, 2 + 2 wavefronts
        (1, 1, 4)
    """

    def __init__(self, geo: Any, src: Any, dst: Any) -> None:
        self.geo, self.src, self.dst = geo, src, dst
        self._tiles: dict[tuple[int, int], list[int]] = {}

    def cost(self, columns: Sequence[int]) -> tuple[int, int, int]:
        """(store log2 width, load log2 width, total wavefronts) of the layout whose offset
        bit ``i`` holds element ``columns[i]``."""
        n = self.geo.n
        inverse = gf2.solve(columns, [1 << j for j in range(n)])
        if inverse is None or len(columns) != n:
            raise ValueError(
                f"Argument 'columns' must be a basis of {n}-bit elements, not {list(columns)}."
            )

        def offset(element: int) -> int:
            out = 0
            for j, column in enumerate(inverse):
                if element >> j & 1:
                    out ^= column
            return out

        ks, kl = self._width(self.src, offset), self._width(self.dst, offset)
        return ks, kl, self._wavefronts(0, ks, offset) + self._wavefronts(1, kl, offset)

    def _width(self, side: Any, offset: Callable[[int], int]) -> int:
        """The largest ``k`` (up to the geometry's) at which ``side`` vectorises ``2^k``:
        offsets ``1 .. 2^(k-1)`` are images of its registers, no other basis touches the
        low ``k`` bits (the encoding's ``vector_at_least``; monotone in ``k``)."""
        regs = [offset(r) for r in side.regs]
        others = [offset(b) for b in side.others]
        k = 0
        while k < self.geo.max_vec_log2():
            low, units = (1 << (k + 1)) - 1, {1 << i for i in range(k + 1)}
            if not units <= set(regs):
                break
            if any(o not in units and o & low for o in regs) or any(o & low for o in others):
                break
            k += 1
        return k

    def _wavefronts(self, which: int, k: int, offset: Callable[[int], int]) -> int:
        """Wavefronts of side ``which`` (0 src, 1 dst) at width ``2^k``: the conflict
        exponent ``dim(T ∩ Z) - dim(T ∩ Q)`` is ``rank(word bits of T) - rank(bank bits
        of T)``."""
        side = (self.src, self.dst)[which]
        tile = self._tiles.get((which, k))
        if tile is None:
            tile = self._tiles[which, k] = self.geo.pass_tile(side, k)
        offsets = [offset(t) for t in tile]
        bank, word = self.geo.bank_mask(), self.geo.word_mask()
        exponent = gf2.rank([o & word for o in offsets]) - gf2.rank([o & bank for o in offsets])
        return int(self.geo.wavefronts(side, k, exponent))


def improve(
    model: CostModel, columns: Sequence[int], need: tuple[int, int], deadline: float
) -> tuple[list[int], int] | None:
    """A cheaper layout by steepest descent from ``columns`` (columns and model wavefronts),
    or None when no neighbour is cheaper.  A neighbour adds one offset basis to another or
    swaps two (both keep the layout invertible); a layout counts only with at least the
    log2 widths ``need``.  Stops at ``deadline`` (``time.perf_counter()``) with the best
    found so far.

    Examples:
        >>> import time
        >>> from llverify.hardware import BANK_MODELS
        >>> from llverify.shared_memory.swizzle.synthesize import _Geometry, _Side
        >>> src = _Side((8, 16, 32), (1, 2, 4, 0, 0), (), None)  # an 8x8 f32 transpose
        >>> dst = _Side((1, 2, 4), (8, 16, 32, 0, 0), (), None)
        >>> model = CostModel(_Geometry(6, 32, BANK_MODELS["nvidia"]), src, dst)
        >>> model.cost([1, 2, 4, 8, 16, 32])  # row-major: the load is 4-way conflicted
        (0, 2, 24)
        >>> improve(model, [1, 2, 4, 8, 16, 32], (0, 0), time.perf_counter() + 10)
        ([1, 2, 4, 8, 16, 33], 16)
    """

    def score(candidate: Sequence[int]) -> tuple[bool, int]:
        ks, kl, wavefronts = model.cost(candidate)
        return (ks < need[0] or kl < need[1], wavefronts)

    current, current_score = list(columns), score(columns)
    improved = False
    n = len(current)
    while time.perf_counter() < deadline:
        best: tuple[tuple[bool, int], list[int]] | None = None
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                added = list(current)
                added[i] ^= current[j]
                swapped = list(current)
                swapped[i], swapped[j] = current[j], current[i]
                for candidate in (added, swapped):
                    value = score(candidate)
                    if value < current_score and (best is None or value < best[0]):
                        best = (value, candidate)
        if best is None:
            break
        current_score, current = best
        improved = True
    if not improved or current_score[0]:
        return None
    return current, current_score[1]


def best_construction(
    geo: Any, src: Any, dst: Any, widths: Sequence[tuple[int, int]], bits: int, target: Any
) -> tuple[list[int], int] | None:
    """The cheapest :func:`pass_tile_layout` by the :class:`CostModel` among those built for
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
        ([1, 2, 4], 4)
    """
    common = [r for r in src.regs if r in dst.regs]
    own = {True: [r for r in src.regs if r not in dst.regs],
           False: [r for r in dst.regs if r not in src.regs]}  # fmt: skip
    need = (min(ks for ks, _ in widths), min(kl for _, kl in widths)) if widths else (0, 0)
    model = CostModel(geo, src, dst)
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
        got_s, got_l, wavefronts = model.cost(columns)
        if got_s >= need[0] and got_l >= need[1] and (best is None or wavefronts < best[1]):
            best = (columns, wavefronts)
    return best
