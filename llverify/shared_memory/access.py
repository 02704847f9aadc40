"""Shared-memory access analysis: vectorisation, instructions, ldmatrix and bank conflicts.

A register layout stored to (or loaded from) a shared layout is the conversion
``register -> offset = reg.invert_and_compose(shared)``.  This module derives what Triton's
lowering emits for it (the vector width with ``largestVectorisation`` semantics, the
ld/st.shared width, the instruction count, whether ldmatrix/stmatrix apply) and counts bank
conflicts two ways:

* :func:`simulate_bank_conflicts`: the exact count (the semantics of Triton's
  ``SwizzleTest.cpp``): per instruction and wavefront, the set of *distinct* 32-bit word
  addresses, bucketed by bank, the largest bucket; identical words broadcast.  A linear
  access enumerates only its first pass group (every other is a translate of it,
  :func:`~llverify.shared_memory.wavefronts.linear_wavefronts`), so memory does not grow with the
  tensor; ``exhaustive=True`` and padded layouts enumerate every address (bounded by
  :data:`llverify.evaluate.ENUMERATION_BUDGET_BYTES`).
* the algebraic model (paper Lemma 9.4 with broadcast): with ``L`` the lane bases inside one
  pass as bit-address differences, Triton's count is ``2^dim{d in span L : d < one bank row}
  - 1`` and the hardware's drops the bits inside a 32-bit word first.  The two differ only
  for sub-word (8/16-bit, unvectorised) accesses, where Triton can under-count.

Both counts are :mod:`llverify.shared_memory.wavefronts`'s; this module supplies the lane addresses.

:func:`bank_conflicts` computes only what its answer needs (the conversion, its vector width
and the two algebraic counts: no simulation, ldmatrix check or lowering check, which
:func:`access_analysis` adds), and :func:`warp_bank_conflicts` counts one warp's accesses
given as a list of addresses, linear or not, without building any layout
(``benchmarks/bench_bank_query.py`` times both).

Padded shared layouts (``#ttg.padded_shared``, :class:`~llverify.encodings.padded.
PaddedSharedLayout`, or its TTGIR text) are not linear, so the algebraic model does not
apply: the conversion goes to the *logical* offsets of the linear component, the simulator
runs on the exact *physical* addresses (:class:`~llverify.encodings.padded.PaddedLayout`),
the vector width is capped by :attr:`PaddedLayout.max_vector` (a vector must be contiguous
and aligned in physical addresses; Triton caps only at ``getMinInterval``, a known bug, see
specs/padded.py), and the result says ``source == "simulator"`` with no Triton/algebraic
count (``triton is None``).  That enumeration is refused beyond the enumeration budget (an
:class:`~llverify.evaluate.EnumerationLimitError`, a ``ValueError``).

Targets (lanes, banks, the lanes of one pass) are :data:`llverify.hardware.BANK_MODELS`.

Examples:
    >>> from llverify import LinearLayout
    >>> reg = LinearLayout.from_bases(
    ...     [("register", []), ("lane", [[1], [2], [4], [8], [16]]), ("warp", [])], ["dim0"])
    >>> shared = LinearLayout.from_bases([("offset", [[1], [2], [4], [8], [16]])], ["dim0"])
    >>> bank_conflicts(reg, shared, [32], 32).conflicts
    0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llverify.arguments import layout_argument, shared_layout_argument
from llverify.bits import as_int, log2_exact
from llverify.encodings.padded import PaddedLayout
from llverify.errors import LayoutError, LayoutTypeError, shown
from llverify.evaluate import check_enumeration
from llverify.hardware import (
    PADDED_ELEMENT_BITS,
    VECTOR_ELEMENT_BITS,
    Target,
    resolve_target,
)
from llverify.layout import LinearLayout
from llverify.layout_utils import (
    divide_left,
    reg_perm_for_divide,
)
from llverify.shared_memory.register_to_offset import vectorised_conversion
from llverify.shared_memory.wavefronts import (
    SIMULATOR_BYTES_PER_ADDRESS,
    WavefrontCount,
    access_addresses,
    count_wavefronts,
    hardware_conflicts,
    lane_offsets,
    linear_wavefronts,
    pass_count,
    total_wavefronts,
    triton_conflicts,
    warp_wavefronts,
)

__all__ = [
    "AccessAnalysis",
    "BankConflicts",
    "access_analysis",
    "analyse_access",
    "bank_conflicts",
    "conversion_analysis",
    "simulate_bank_conflicts",
    "warp_bank_conflicts",
]


def _check_lane_count(cvt: LinearLayout, tgt: Target) -> None:
    """The conversion's lanes are the target's (a LayoutError otherwise)."""
    lane_size = cvt.get_in_dim_size("lane") if cvt.has_in_dim("lane") else 1
    if lane_size != tgt.lanes:
        raise LayoutError(
            f"The layout has {lane_size} lanes, but target {tgt.name} has {tgt.lanes}."
        )


def _words_per_lane(access_bits: int) -> int:
    """32-bit words one lane's access spans (at least 1)."""
    return max(1, -(-access_bits // 32))


def _tiled_lanes(lane_tile: Sequence[int], lanes: int) -> list[int]:
    """The lane each lane's address is taken at in Triton's ``LocalMemOpTile.laneAddr``:
    ``lane & mask``, the mask of the ``lane_tile`` bits."""
    mask = sum(1 << i for i in lane_tile)
    return [lane & mask for lane in range(lanes)]


def simulate_bank_conflicts(
    cvt: LinearLayout,
    elems_per_vec: int,
    element_bits: int,
    target: str | Target = "nvidia",
    lane_tile: Sequence[int] | None = None,
    address_map: np.ndarray | None = None,
    pass_lanes: Sequence[int] | None = None,
    exhaustive: bool = False,
) -> WavefrontCount:
    """The exact count over every instruction, warp and pass (SwizzleTest.cpp semantics),
    counted by :func:`llverify.shared_memory.wavefronts.count_wavefronts`: on the first pass group
    only (:func:`~llverify.shared_memory.wavefronts.linear_wavefronts`, the same result in memory
    independent of the tensor), or on every address with ``address_map`` or
    ``exhaustive=True`` (the brute force, refused beyond
    :data:`llverify.evaluate.ENUMERATION_BUDGET_BYTES`).

    ``cvt`` is :func:`~llverify.shared_memory.register_to_offset.conversion_layout`'s layout.
    ``address_map`` (an int array indexed by ``cvt``'s offset) maps offsets to the element
    addresses actually accessed, e.g. a padded layout's
    :meth:`~llverify.encodings.padded.PaddedLayout.physical_table`; the elements of one
    vector must then be contiguous there.  ``lane_tile`` replays Triton's
    ``LocalMemOpTile.laneAddr`` modelling (addresses taken at ``lane & tile mask``), only for
    reproducing Triton's unit tests.  ``pass_lanes`` (lane indices spanning one pass)
    replaces the target's passes (:mod:`llverify.shared_memory.predict` uses it for measured rules).

    Examples:
        >>> cvt = LinearLayout.from_bases([("register", [[1], [2], [4], [8], [16]]),
        ...     ("lane", [[32], [64], [128], [256], [512]]), ("warp", [[1024]])], ["offset"])
        >>> simulate_bank_conflicts(cvt, 1, 32).conflicts  # every lane in bank 0
        31
        >>> simulate_bank_conflicts(cvt, 1, 32, exhaustive=True).wavefronts
        2048
    """
    tgt = resolve_target(target)
    _check_lane_count(cvt, tgt)
    if pass_lanes is None:
        pass_lanes = tgt.pass_lanes(_words_per_lane(elems_per_vec * element_bits))
    lanes = None if lane_tile is None else _tiled_lanes(lane_tile, tgt.lanes)
    if address_map is None and not exhaustive:
        return linear_wavefronts(cvt, elems_per_vec, element_bits, tgt.banks, pass_lanes, lanes)
    offsets = access_addresses(cvt)
    if lanes is not None:
        offsets = offsets[:, lanes, :]
    if address_map is not None:
        offsets = np.asarray(address_map, dtype=np.int64)[offsets]
    return count_wavefronts(offsets, elems_per_vec, element_bits, tgt.banks, pass_lanes)


@dataclass(frozen=True)
class BankConflicts:
    """Per-wavefront excess accesses (the definition of Triton's ``ttgl.bank_conflicts``),
    exact for the hardware, with Triton's own count beside it."""

    conflicts: int
    triton: int | None  # None where there is no Triton/algebraic count (padded layouts)
    reason: str
    source: str = "algebra"  # "algebra" (== simulator) or "simulator" (padded: only it)

    @property
    def differs(self) -> bool:
        """Triton's count differs from the hardware's (False where there is none)."""
        return self.triton is not None and self.conflicts != self.triton


def _algebraic_bank_conflicts(hardware: int, triton: int, access_bits: int) -> BankConflicts:
    """The :class:`BankConflicts` of a linear shared layout: the two algebraic counts and,
    when they differ, why."""
    reason = ""
    if hardware != triton:
        reason = (
            f"{access_bits}-bit accesses: lanes hit the same bank in different "
            "32-bit words whose byte offsets differ inside a word; Triton's model only "
            "counts offsets that are whole bank rows apart"
        )
    return BankConflicts(hardware, triton, reason)


@dataclass(frozen=True)
class AccessAnalysis:
    """What storing/loading a register layout to/from a shared layout costs."""

    target: str
    element_bits: int
    conversion: LinearLayout  # (register, lane, warp) -> offset, vector permutation applied
    elems_per_vec: int  # Triton's largestVectorisation
    access_bits: int  # ld/st.shared width per lane
    words_per_lane: int  # 1, 2 or 4
    instructions_per_warp: int
    warps: int
    passes: int  # per instruction
    pass_lanes: tuple[int, ...]  # lane indices spanning one pass
    ldmatrix: bool  # ldmatrix / stmatrix (non-transposed) applies
    ldmatrix_trans: bool  # ldmatrix.trans / stmatrix.trans applies
    lane_offsets: tuple[int, ...]  # offsets of the pass lanes (elements; padded: physical)
    triton_conflicts: int | None  # None for padded layouts (no algebraic model)
    hardware_conflicts: int  # padded: the simulator's count
    simulated_conflicts: int
    colliding_lanes: tuple[int, ...]
    source: str = "algebra"  # where hardware_conflicts comes from: "algebra" or "simulator"
    padded: bool = False  # the shared layout is a PaddedSharedLayout
    triton_elems_per_vec: int | None = None  # padded: Triton's width (min-interval cap only)
    homogeneous: bool = True  # every pass needs the same number of wavefronts (simulated)
    #: inputs where Triton's ld/st lowering (ADD of "additive" register strides) computes a
    #: wrong address for this pair (llverify.shared_memory.lowering), or None when it is right
    triton_miscompile: dict[str, int] | None = None
    #: the constant (xor, add) element offset of the access (llverify.shared_memory.offsets)
    affine: tuple[int, int] = (0, 0)

    @property
    def instructions(self) -> int:
        """ld/st.shared instructions over all warps."""
        return self.instructions_per_warp * self.warps

    @property
    def wavefronts_per_instruction(self) -> int:
        """Hardware wavefronts of one instruction (the same storing and loading)."""
        return total_wavefronts(1, self.passes, self.hardware_conflicts)

    @property
    def store_wavefronts(self) -> int:
        """Wavefronts of the whole store: instructions x passes x (1 + conflicts)."""
        return total_wavefronts(self.instructions, self.passes, self.hardware_conflicts)

    @property
    def load_wavefronts(self) -> int:
        """Wavefronts of the whole load (equal to the store's)."""
        return self.store_wavefronts

    @property
    def bank_conflicts(self) -> BankConflicts:
        """The hardware count with Triton's beside it and why they differ."""
        if self.padded or self.triton_conflicts is None:
            reason = (
                "padded shared layout: padding is not linear, so the count comes from the "
                "exact simulator over the padded physical addresses (no algebraic or Triton "
                "count)"
            )
            if not self.padded:
                reason = (
                    f"an offset of {self.affine[1]} elements added inside a 32-bit word "
                    "regroups elements into words: the count comes from the exact simulator "
                    "over the shifted addresses (Triton only XORs offsets: no Triton count)"
                )
            return BankConflicts(self.hardware_conflicts, None, reason, "simulator")
        return _algebraic_bank_conflicts(
            self.hardware_conflicts, self.triton_conflicts, self.access_bits
        )


def _ldmatrix(cvt: LinearLayout, element_bits: int) -> tuple[bool, bool]:
    if element_bits > 32 or not cvt.has_in_dim("lane") or cvt.get_in_dim_size("lane") < 32:
        return False, False
    k = (32 // element_bits).bit_length() - 1
    tile = LinearLayout.identity_1d(1 << k, "register", "offset") * LinearLayout.identity_1d(
        4, "lane", "offset"
    )
    plain = False
    permutation = reg_perm_for_divide(cvt, tile, left=True)
    if permutation is not None:
        plain = divide_left(permutation.apply(cvt), tile) is not None
    trans = False
    if element_bits == 16:
        lanes = [b[0] for b in cvt.bases[cvt.get_in_dim_names().index("lane")][1]]
        regs = [b[0] for b in cvt.bases[0][1]]
        # lanes 2..4 walk one 16-byte row; a register and lanes 0, 1 pick 16-byte rows.
        rows_ok = all(d % 8 == 0 and d for d in lanes[:2])
        trans = lanes[2:5] == [1, 2, 4] and rows_ok and any(r and r % 8 == 0 for r in regs)
    return plain, trans


def _physical_vector(cvt: LinearLayout, table: np.ndarray, elems: int) -> int:
    """The widest ``v <= elems`` such that every ``v`` consecutive registers (``cvt`` with
    the vector permutation applied) hit ``v`` contiguous physical addresses starting at a
    multiple of ``v``: exact for this conversion (it equals ``min(elems,
    PaddedLayout.max_vector)`` whenever the registers cover the buffer)."""
    offsets = access_addresses(cvt)
    regs = offsets.shape[2]
    phys = table[offsets.reshape(-1, regs)]
    v = elems
    while v > 1:
        groups = phys.reshape(phys.shape[0], regs // v, v)
        contiguous = (groups - groups[:, :, :1] == np.arange(v)).all()
        if contiguous and (groups[:, :, 0] % v == 0).all():
            return v
        v //= 2
    return 1


def _padded_access_analysis(
    register_layout: LinearLayout,
    model: PaddedLayout,
    element_bits: int,
    tgt: Target,
) -> AccessAnalysis:
    """:func:`access_analysis` for a padded shared layout: the conversion to the logical
    offsets of the linear component, the width capped to physically contiguous and aligned
    vectors, and the exact simulator on the physical addresses."""
    element_bits = PADDED_ELEMENT_BITS.check(element_bits)
    linear = model.linear
    shared = linear.sublayout(["offset"], linear.get_out_dim_names())
    cvt, elems = vectorised_conversion(register_layout, shared, element_bits)
    _check_lane_count(cvt, tgt)
    check_enumeration(
        max(cvt.get_total_in_dim_size(), model.num_logical),
        SIMULATOR_BYTES_PER_ADDRESS,
        "the exact simulation of a padded shared layout",
        "padding is not linear, so every address is simulated; use a smaller tensor shape "
        "(--shape) or a linear shared layout",
    )
    table = model.physical_table()
    vec = _physical_vector(cvt, table, min(elems, model.max_vector))
    fields = _instruction_fields(cvt, vec, element_bits, tgt)
    sim = simulate_bank_conflicts(cvt, vec, element_bits, tgt, address_map=table)
    plain, trans = _ldmatrix(cvt, element_bits) if tgt.name == "nvidia" else (False, False)
    rows_ok = model.max_vector * element_bits >= 128  # 16-byte rows contiguous and aligned
    return AccessAnalysis(
        **fields,
        ldmatrix=plain and rows_ok,
        ldmatrix_trans=trans and rows_ok,
        lane_offsets=tuple(int(table[o]) for o in lane_offsets(cvt, fields["pass_lanes"])),
        triton_conflicts=None,
        hardware_conflicts=sim.conflicts,
        simulated_conflicts=sim.conflicts,
        colliding_lanes=sim.colliding_lanes,
        source="simulator",
        padded=True,
        triton_elems_per_vec=min(elems, model.encoding.min_interval),
        homogeneous=sim.homogeneous,
    )


def _instruction_fields(
    cvt: LinearLayout, vec: int, element_bits: int, tgt: Target
) -> dict[str, Any]:
    """The :class:`AccessAnalysis` fields that the conversion and its vector width fix: the
    widths, the instructions per warp, the warps and the passes."""
    access_bits = vec * element_bits
    words = _words_per_lane(access_bits)
    pass_lanes = tgt.pass_lanes(words)
    return {
        "target": tgt.name,
        "element_bits": element_bits,
        "conversion": cvt,
        "elems_per_vec": vec,
        "access_bits": access_bits,
        "words_per_lane": words,
        "instructions_per_warp": cvt.get_in_dim_size("register") // vec,
        "warps": cvt.get_in_dim_size("warp") if cvt.has_in_dim("warp") else 1,
        "passes": pass_count(tgt.lanes, pass_lanes),
        "pass_lanes": tuple(pass_lanes),
    }


def access_analysis(
    register_layout: Any,
    shared_layout: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | Target = "nvidia",
    lane_tile: Sequence[int] | None = None,
) -> AccessAnalysis:
    """Analyse ``register_layout`` stored to / loaded from ``shared_layout``.

    Layouts may be LinearLayouts or anything :func:`llverify.to_linear_layout` accepts.
    ``lane_tile`` (Triton's ``LocalMemOpTile.laneAddr``) only changes Triton's count and
    the simulation, to replay Triton's unit tests.

    Examples:
        >>> reg = LinearLayout.from_bases([("register", [[0, 1], [0, 2]]),
        ...     ("lane", [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]]), ("warp", [])],
        ...     ["dim0", "dim1"])
        >>> sh = LinearLayout.from_bases([("offset", [[0, 1], [0, 2], [0, 4], [0, 8],
        ...     [0, 16], [1, 0], [2, 0]])], ["dim0", "dim1"])
        >>> a = access_analysis(reg, sh, [4, 32], 16)
        >>> a.elems_per_vec, a.access_bits, a.instructions, a.passes, a.hardware_conflicts
        (4, 64, 1, 2, 0)
    """
    element_bits = VECTOR_ELEMENT_BITS.check(element_bits)
    tgt = resolve_target(target)
    if lane_tile is not None:
        lane_tile = _lane_tile_argument(lane_tile, tgt)
    reg = layout_argument(register_layout, shape, "register_layout")
    shared = shared_layout_argument(shared_layout, shape, "shared_layout")
    return analyse_access(reg, shared, element_bits, tgt, lane_tile)


def _lane_tile_argument(value: Any, tgt: Target) -> list[int]:
    """``lane_tile`` as distinct lane bit indices below ``log2(tgt.lanes)``, else a
    LayoutTypeError (not a sequence of ints) or LayoutError naming the argument."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise LayoutTypeError(
            f"Argument 'lane_tile' must be a sequence of lane bit indices, not "
            f"{type(value).__name__} {shown(value)}."
        )
    indices = [as_int(i, f"lane_tile[{k}]") for k, i in enumerate(value)]
    log2_lanes = log2_exact(tgt.lanes)
    if len(set(indices)) != len(indices) or any(not 0 <= i < log2_lanes for i in indices):
        raise LayoutError(
            f"Argument 'lane_tile' must hold distinct lane bit indices in [0, {log2_lanes}) "
            f"({tgt.lanes} lanes on {tgt.name}), not {indices}."
        )
    return indices


def analyse_access(
    reg: LinearLayout,
    shared: LinearLayout | PaddedLayout,
    element_bits: int,
    tgt: Target,
    lane_tile: Sequence[int] | None = None,
) -> AccessAnalysis:
    """:func:`access_analysis` of layouts already normalised (``shared`` by
    :func:`llverify.arguments.shared_layout_argument`): the callers inside llverify.

    Examples:
        >>> from llverify.hardware import BANK_MODELS
        >>> reg = LinearLayout.from_bases([("register", []), ("lane", [[1], [2], [4], [8],
        ...     [16]])], ["dim0"])
        >>> shared = LinearLayout.identity_1d(32, "offset", "dim0")
        >>> analyse_access(reg, shared, 32, BANK_MODELS["nvidia"]).hardware_conflicts
        0
    """
    if isinstance(shared, PaddedLayout):
        return _padded_access_analysis(reg, shared, element_bits, tgt)
    cvt, elems = vectorised_conversion(reg, shared, element_bits)
    _check_lane_count(cvt, tgt)
    fields = _instruction_fields(cvt, elems, element_bits, tgt)
    pass_offsets = lane_offsets(cvt, fields["pass_lanes"])
    if lane_tile is not None:
        triton_lanes = [1 << i for i in lane_tile]
    else:
        triton_lanes = tgt.triton_lanes(fields["words_per_lane"])
    sim = simulate_bank_conflicts(cvt, elems, element_bits, tgt, lane_tile)
    plain, trans = _ldmatrix(cvt, element_bits) if tgt.name == "nvidia" else (False, False)
    return AccessAnalysis(
        **fields,
        ldmatrix=plain,
        ldmatrix_trans=trans,
        lane_offsets=tuple(pass_offsets),
        triton_conflicts=triton_conflicts(lane_offsets(cvt, triton_lanes), element_bits, tgt.banks),
        hardware_conflicts=hardware_conflicts(pass_offsets, element_bits, tgt.banks),
        simulated_conflicts=sim.conflicts,
        colliding_lanes=sim.colliding_lanes,
        triton_miscompile=_triton_miscompile(cvt, elems, element_bits),
    )


def _triton_miscompile(cvt: LinearLayout, elems: int, element_bits: int) -> dict[str, int] | None:
    """An input whose address Triton's ld/st lowering computes wrongly for this conversion
    (:mod:`llverify.shared_memory.lowering`), or None (also below 8-bit elements)."""
    if element_bits < 8:
        return None
    from llverify.shared_memory.lowering import lowering_of

    return lowering_of(cvt, elems, element_bits).carry_counterexample()


def bank_conflicts(
    register_layout: Any,
    shared_layout: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | Target = "nvidia",
) -> BankConflicts:
    """Per-wavefront excess accesses (Triton's ``ttgl.bank_conflicts`` definition), exact for
    the hardware, with Triton's count and the reason when they differ: the
    :attr:`AccessAnalysis.bank_conflicts` of :func:`access_analysis`, computed without the
    rest of the analysis (a linear shared layout needs only the conversion's lane offsets).

    Examples:
        >>> reg = LinearLayout.from_bases([("register", [[0, 2], [0, 4], [0, 8], [0, 16],
        ...     [0, 32]]), ("lane", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]),
        ...     ("warp", [[0, 1]])], ["dim0", "dim1"])
        >>> sh = LinearLayout.from_bases([("offset", [[0, 1], [0, 2], [0, 4], [0, 8],
        ...     [0, 16], [0, 32], [1, 1], [2, 2], [4, 4], [8, 8], [16, 16]])], ["dim0", "dim1"])
        >>> r = bank_conflicts(reg, sh, [32, 64], 16)
        >>> r.conflicts, r.triton, r.differs
        (1, 0, True)
    """
    element_bits = VECTOR_ELEMENT_BITS.check(element_bits)
    tgt = resolve_target(target)
    reg = layout_argument(register_layout, shape, "register_layout")
    shared = shared_layout_argument(shared_layout, shape, "shared_layout")
    if isinstance(shared, PaddedLayout):
        return _padded_access_analysis(reg, shared, element_bits, tgt).bank_conflicts
    cvt, elems = vectorised_conversion(reg, shared, element_bits)
    _check_lane_count(cvt, tgt)
    words = _words_per_lane(elems * element_bits)
    hardware = hardware_conflicts(lane_offsets(cvt, tgt.pass_lanes(words)), element_bits, tgt.banks)
    triton = triton_conflicts(lane_offsets(cvt, tgt.triton_lanes(words)), element_bits, tgt.banks)
    return _algebraic_bank_conflicts(hardware, triton, elems * element_bits)


def warp_bank_conflicts(
    addresses: Sequence[int], element_bits: int, target: str | Target = "nvidia"
) -> WavefrontCount:
    """Wavefronts and bank conflicts of one warp instruction in which lane ``l`` accesses
    the element at element address ``addresses[l]``, each ``element_bits`` wide (a scalar,
    or a whole vector of up to 128 bits): the exact count of
    :func:`simulate_bank_conflicts`, with the target's passes (a 64-bit access is split
    into passes of 16 lanes, a 128-bit one into passes of 8 on NVIDIA), straight from the
    addresses, which need not be linear in the lane.

    ``conflicts`` is the extra wavefronts per pass (Triton's ``ttgl.bank_conflicts``
    definition), ``wavefronts`` the total over the passes and ``max_per_pass`` the worst
    pass; ``homogeneous`` is False where the passes cost differently.

    Examples:
        >>> c = warp_bank_conflicts([lane for lane in range(32)], 128)  # 16 bytes per lane
        >>> c.conflicts, c.wavefronts, c.min_wavefronts  # 4 passes of 8 lanes, no conflict
        (0, 4, 4)
        >>> warp_bank_conflicts([33 * lane for lane in range(32)], 32).conflicts
        0
        >>> warp_bank_conflicts([32 * lane for lane in range(32)], 32).colliding_lanes[:3]
        (0, 1, 2)
        >>> warp_bank_conflicts([0, 1], 32)
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'addresses' must hold one address per lane (32 on nvidia), not 2.
    """  # noqa: E501
    element_bits = VECTOR_ELEMENT_BITS.check(element_bits)
    tgt = resolve_target(target)
    addresses = _addresses_argument(addresses, tgt)
    pass_lanes = tgt.pass_lanes(_words_per_lane(element_bits))
    return warp_wavefronts(addresses, element_bits, tgt.banks, pass_lanes)


def _addresses_argument(value: Any, tgt: Target) -> list[int]:
    """``value`` as one int >= 0 per lane of ``tgt``, else a LayoutTypeError (not a
    sequence of ints) or LayoutError naming the argument."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise LayoutTypeError(
            f"Argument 'addresses' must be a sequence of element addresses, not "
            f"{type(value).__name__} {shown(value)}."
        )
    if len(value) != tgt.lanes:
        raise LayoutError(
            f"Argument 'addresses' must hold one address per lane ({tgt.lanes} on {tgt.name}), "
            f"not {len(value)}."
        )
    addresses = list(value)
    if not all(a.__class__ is int for a in addresses):  # the common case needs no conversion
        addresses = [as_int(a, f"addresses[{i}]") for i, a in enumerate(addresses)]
    if min(addresses) < 0:
        raise LayoutError(
            f"Argument 'addresses' must hold element addresses >= 0, not {shown(value)}."
        )
    return addresses


def conversion_analysis(
    src_layout: Any,
    dst_layout: Any,
    shared_layout: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | Target = "nvidia",
) -> tuple[AccessAnalysis, AccessAnalysis]:
    """A register-to-register conversion through shared memory: (store of src, load of dst)."""
    tgt = resolve_target(target)
    src = layout_argument(src_layout, shape, "src_layout")
    dst = layout_argument(dst_layout, shape, "dst_layout")
    shared = shared_layout_argument(shared_layout, shape, "shared_layout")
    return analyse_access(src, shared, element_bits, tgt), analyse_access(
        dst, shared, element_bits, tgt
    )
