"""The cost of a shared-memory layout for a conversion ``src -> shared -> dst``.

One definition, shared by the synthesizer, the constructive baseline and the legacy-family
searches: the store of ``src`` and the load of ``dst`` analysed by
:func:`llverify.shared_memory.access.access_analysis` (Triton's ``largestVectorisation`` widths, the
hardware-exact bank conflicts), so that every number a swizzle result reports is the access
analysis' number.

Examples:
    >>> from llverify import LinearLayout
    >>> src = LinearLayout.from_bases([("register", [[0, 1]]), ("lane", [[0, 2], [0, 4],
    ...     [0, 8], [0, 16], [1, 0]]), ("warp", [])], ["dim0", "dim1"])
    >>> shared = LinearLayout.from_bases([("offset", [[0, 1], [0, 2], [0, 4], [0, 8],
    ...     [0, 16], [1, 0]])], ["dim0", "dim1"])
    >>> c = swizzle_cost(src, src, shared, [2, 32], 32)
    >>> c.store_vec, c.load_vec, c.store_wavefronts, c.load_wavefronts, c.total_wavefronts
    (2, 2, 2, 2, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llverify.arguments import check_one_kernel, layout_argument, shared_layout_argument
from llverify.encodings.padded import PaddedLayout
from llverify.hardware import Target, resolve_target
from llverify.layout import LinearLayout
from llverify.shared_memory.access import AccessAnalysis, analyse_access
from llverify.shared_memory.wavefronts import total_wavefronts

__all__ = ["SwizzleCost", "cost_of", "swizzle_cost"]


@dataclass(frozen=True)
class SwizzleCost:
    """Vector widths (elements per lane access) and wavefronts of the store and the load."""

    element_bits: int
    store_vec: int
    load_vec: int
    store_instructions: int  # ld/st.shared instructions over all warps
    load_instructions: int
    store_conflicts: int  # excess wavefronts per ideal wavefront (hardware-exact)
    load_conflicts: int
    store_wavefronts: int
    load_wavefronts: int

    @property
    def total_wavefronts(self) -> int:
        return self.store_wavefronts + self.load_wavefronts

    @property
    def store_wavefronts_per_instruction(self) -> int:
        """Predicted wavefronts of one store instruction (passes x (1 + conflicts))."""
        return self.store_wavefronts // self.store_instructions

    @property
    def load_wavefronts_per_instruction(self) -> int:
        """Predicted wavefronts of one load instruction."""
        return self.load_wavefronts // self.load_instructions

    @property
    def vector_bits(self) -> tuple[int, int]:
        """(store, load) bits per lane access."""
        return self.store_vec * self.element_bits, self.load_vec * self.element_bits

    def vectors_at_least(self, other: SwizzleCost) -> bool:
        """Both vector widths are at least ``other``'s."""
        return self.store_vec >= other.store_vec and self.load_vec >= other.load_vec

    def rank(self) -> tuple[int, int, int]:
        """Sort key, smaller is better: wider narrowest vector, wider vectors in all, then
        fewer wavefronts."""
        return (
            -min(self.store_vec, self.load_vec),
            -(self.store_vec + self.load_vec),
            self.total_wavefronts,
        )


def _wavefronts(a: AccessAnalysis, tiled: bool) -> tuple[int, int]:
    conflicts = a.simulated_conflicts if tiled else a.hardware_conflicts
    return conflicts, total_wavefronts(a.instructions, a.passes, conflicts)


def swizzle_cost(
    src: Any,
    dst: Any,
    shared: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | Target = "nvidia",
    src_tile: Sequence[int] | None = None,
    dst_tile: Sequence[int] | None = None,
) -> SwizzleCost:
    """Store ``src`` to ``shared``, load ``dst`` from it: widths, conflicts, wavefronts.

    ``src_tile`` / ``dst_tile`` (lane indices, Triton's ``LocalMemOpTile.laneAddr``, e.g.
    ``[0, 1, 4]`` for ldmatrix) make that side's conflicts the simulator's count with the
    tile's addressing, as Triton's ``SwizzleTest.cpp`` models ldmatrix/stmatrix.
    """
    tgt = resolve_target(target)
    src_ll = layout_argument(src, shape, "register_layout")
    shared_ll = shared_layout_argument(shared, shape, "shared_layout")
    dst_ll = layout_argument(dst, shape, "register_layout")
    return cost_of(src_ll, dst_ll, shared_ll, element_bits, tgt, src_tile, dst_tile)


def cost_of(
    src: LinearLayout,
    dst: LinearLayout,
    shared: LinearLayout | PaddedLayout,
    element_bits: int,
    tgt: Target,
    src_tile: Sequence[int] | None = None,
    dst_tile: Sequence[int] | None = None,
) -> SwizzleCost:
    """:func:`swizzle_cost` of layouts already normalised (the callers inside llverify).

    Examples:
        >>> from llverify import LinearLayout
        >>> from llverify.hardware import BANK_MODELS
        >>> reg = LinearLayout.from_bases([("register", []), ("lane", [[1], [2], [4], [8],
        ...     [16]])], ["dim0"])
        >>> shared = LinearLayout.identity_1d(32, "offset", "dim0")
        >>> cost_of(reg, reg, shared, 32, BANK_MODELS["nvidia"]).total_wavefronts
        2
    """
    check_one_kernel(src, dst)
    store = analyse_access(src, shared, element_bits, tgt, src_tile)
    load = analyse_access(dst, shared, element_bits, tgt, dst_tile)
    s_conf, s_wave = _wavefronts(store, src_tile is not None)
    l_conf, l_wave = _wavefronts(load, dst_tile is not None)
    return SwizzleCost(
        element_bits=element_bits,
        store_vec=store.elems_per_vec,
        load_vec=load.elems_per_vec,
        store_instructions=store.instructions,
        load_instructions=load.instructions,
        store_conflicts=s_conf,
        load_conflicts=l_conf,
        store_wavefronts=s_wave,
        load_wavefronts=l_wave,
    )
