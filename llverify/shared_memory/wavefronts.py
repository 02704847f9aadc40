"""Wavefront counting: the passes, bank conflicts and wavefronts of shared-memory accesses.

The one owner of the count, given the addresses the lanes access: the exact simulator
(:func:`count_wavefronts`), the same count of one warp's scalar accesses in plain Python
(:func:`warp_wavefronts`, no arrays: the bank-conflict query of a list of addresses), the
same count for a linear access without enumerating the tensor (:func:`linear_wavefronts`),
the algebraic conflict counts (:func:`triton_conflicts`,
:func:`hardware_conflicts`), the pieces of one pass (:func:`pass_span`,
:func:`word_bounds`, :func:`bank_words`, :func:`pass_conflicts`), the total
(:func:`total_wavefronts`) and ldmatrix/stmatrix (:func:`matrix_wavefronts`,
:func:`linear_matrix_wavefronts`).  The access analysis, the swizzle cost, the wavefront
prediction, the audit and the bank map all count with it; docs/hardware.md says what was
measured.

Examples:
    >>> addresses = np.arange(32).reshape(1, 32, 1) * 32  # lane l: element 32 l, 32-bit
    >>> count_wavefronts(addresses, 1, 32, 32, [1, 2, 4, 8, 16]).wavefronts
    32
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from llverify import gf2
from llverify.bits import is_power_of_2
from llverify.errors import LayoutError
from llverify.evaluate import check_enumeration, evaluate_all
from llverify.layout import LinearLayout

__all__ = [
    "WavefrontCount",
    "access_addresses",
    "bank_words",
    "count_wavefronts",
    "hardware_conflicts",
    "instruction_addresses",
    "lane_offsets",
    "linear_matrix_wavefronts",
    "linear_wavefronts",
    "matrix_wavefronts",
    "pass_conflicts",
    "pass_count",
    "pass_span",
    "total_wavefronts",
    "triton_conflicts",
    "warp_wavefronts",
    "word_bounds",
]

_ACCESS_DIMS = ("register", "lane", "warp")


#: Peak bytes per enumerated address of :func:`access_addresses` followed by
#: :func:`count_wavefronts` (measured with ``ru_maxrss``: the int64 addresses, words, groups,
#: keys and the sort of ``np.unique``), for :func:`llverify.evaluate.check_enumeration`.
SIMULATOR_BYTES_PER_ADDRESS = 112


def _access_layout(cvt: LinearLayout) -> LinearLayout:
    """``cvt`` as ``(register, lane, warp) -> offset``, missing in dims of size 1."""
    full = cvt
    for d in _ACCESS_DIMS:
        if not full.has_in_dim(d):
            full = full * LinearLayout.zeros_1d(1, d, "offset")
    return full.sublayout(list(_ACCESS_DIMS), ["offset"])


def access_addresses(cvt: LinearLayout) -> np.ndarray:
    """The offset every ``(warp, lane, register)`` accesses, as an int64 array of that shape,
    for a conversion ``(register, lane, warp) -> offset`` (missing in dims have size 1).

    This enumerates the whole tensor: it is refused (an
    :class:`~llverify.evaluate.EnumerationLimitError`) beyond the enumeration budget; a
    linear access is counted with :func:`instruction_addresses` instead.

    Examples:
        >>> cvt = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4]])],
        ...     ["offset"])
        >>> access_addresses(cvt).tolist()
        [[[0, 1], [2, 3], [4, 5], [6, 7]]]
    """
    full = _access_layout(cvt)
    check_enumeration(
        full.get_total_in_dim_size(),
        SIMULATOR_BYTES_PER_ADDRESS,
        "simulating every shared-memory address of an access",
        "use a smaller tensor shape (--shape)",
    )
    offsets = np.asarray(evaluate_all(full, max_inputs=1 << 62)["offset"], dtype=np.int64)
    return offsets.reshape(*(full.get_in_dim_size(d) for d in reversed(_ACCESS_DIMS)))


def instruction_addresses(
    cvt: LinearLayout, registers: int, lanes: Sequence[int] | None = None
) -> np.ndarray:
    """The offsets of warp 0's first ``registers`` registers, for every lane: the int64 array
    ``[1, lanes, registers]`` of :func:`access_addresses` cut to warp 0, computed without
    enumerating the rest.  ``lanes`` (one lane index per row, default every lane) replays
    Triton's ``LocalMemOpTile.laneAddr`` (row ``l`` takes lane ``lanes[l]``'s addresses).

    Examples:
        >>> cvt = LinearLayout.from_bases([("register", [[1], [8]]), ("lane", [[2], [4]]),
        ...     ("warp", [[16]])], ["offset"])
        >>> instruction_addresses(cvt, 2).tolist()
        [[[0, 1], [2, 3], [4, 5], [6, 7]]]
    """
    full = _access_layout(cvt)
    rows = np.arange(full.get_in_dim_size("lane")) if lanes is None else np.asarray(lanes)
    values = full.apply_array(
        {
            "register": np.arange(registers, dtype=np.int64)[None, None, :],
            "lane": rows.astype(np.int64)[None, :, None],
            "warp": np.zeros((1, 1, 1), dtype=np.int64),
        }
    )
    return np.asarray(values["offset"], dtype=np.int64)


def lane_offsets(cvt: LinearLayout, lanes: Sequence[int]) -> list[int]:
    """The offsets the given lane indices access (register 0, warp 0) in a conversion
    ``(register, lane, warp) -> offset``: what the algebraic counts take.

    Examples:
        >>> cvt = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4]])],
        ...     ["offset"])
        >>> lane_offsets(cvt, [1, 2, 3])
        [2, 4, 6]
    """
    if cvt.get_out_dim_names() == ["offset"]:  # one out dim: its columns are the offsets
        bases = cvt._cols[cvt.get_in_dim_names().index("lane")]
    else:
        bases = tuple(b[0] for b in cvt.bases[cvt.get_in_dim_names().index("lane")][1])
    out = []
    for lane in lanes:
        value = 0
        for i, basis in enumerate(bases):
            if lane >> i & 1:
                value ^= basis
        out.append(value)
    return out


# ---------------------------------------------------------------------- one pass


def pass_span(pass_lanes: Sequence[int]) -> tuple[int, ...]:
    """The lanes of the first pass, in order: the span of the lane indices ``pass_lanes``
    (a GF(2) basis); every other pass is a coset of it.

    Examples:
        >>> pass_span([1, 2, 4 ^ 16])
        (0, 1, 2, 3, 20, 21, 22, 23)
    """
    span = [0]
    for basis in pass_lanes:
        span += [s ^ basis for s in span]
    return tuple(sorted(span))


def pass_count(lanes: int, pass_lanes: Sequence[int]) -> int:
    """Passes of one warp instruction of ``lanes`` lanes whose passes span ``pass_lanes``.

    Examples:
        >>> pass_count(32, [1, 2, 4])
        4
    """
    return lanes // (1 << len(pass_lanes))


def word_bounds(addresses: Any, element_bits: int) -> tuple[Any, Any]:
    """The first and last 32-bit word an element (or an array of them) at element address
    ``addresses`` covers.

    Examples:
        >>> word_bounds(3, 16), word_bounds(3, 64)
        ((1, 1), (6, 7))
    """
    return (addresses * element_bits) >> 5, ((addresses + 1) * element_bits - 1) >> 5


def bank_words(words: Iterable[int], banks: int) -> dict[int, tuple[int, ...]]:
    """The distinct 32-bit words one pass accesses, by bank (identical words broadcast).

    Examples:
        >>> bank_words([0, 32, 32, 1], 32)
        {0: (0, 32), 1: (1,)}
    """
    out: dict[int, set[int]] = {}
    for word in words:
        out.setdefault(word % banks, set()).add(word)
    return {bank: tuple(sorted(w)) for bank, w in sorted(out.items())}


def pass_conflicts(words_by_bank: dict[int, tuple[int, ...]]) -> int:
    """Extra wavefronts of one pass: the most distinct words in one bank, minus 1.

    Examples:
        >>> pass_conflicts({0: (0, 32), 1: (1,)})
        1
    """
    return max((len(w) for w in words_by_bank.values()), default=1) - 1


def total_wavefronts(instructions: int, passes: int, conflicts: int) -> int:
    """Wavefronts of ``instructions`` warp instructions of ``passes`` passes each, each pass
    taking ``1 + conflicts`` wavefronts.

    Examples:
        >>> total_wavefronts(4, 2, 1)
        16
    """
    return instructions * passes * (1 + conflicts)


# ---------------------------------------------------------------------- the exact count


@dataclass(frozen=True)
class WavefrontCount:
    """Brute-force wavefront counts of every instruction/pass."""

    wavefronts: int  # total over every instruction, warp and pass
    min_wavefronts: int  # instructions x warps x passes
    max_per_pass: int  # the largest bucket of any pass
    homogeneous: bool  # every pass needs the same number of wavefronts
    colliding_lanes: tuple[int, ...]  # lanes of the worst bank in the worst pass

    @property
    def conflicts(self) -> int:
        """Excess accesses per wavefront."""
        return self.wavefronts // self.min_wavefronts - 1


def count_wavefronts(
    addresses: np.ndarray,
    elems_per_vec: int,
    element_bits: int,
    banks: int,
    pass_lanes: Sequence[int],
) -> WavefrontCount:
    """Exact count over every instruction, warp and pass (the semantics of Triton's
    ``SwizzleTest.cpp``): per pass, the distinct 32-bit words bucketed by bank; a pass costs
    its largest bucket (identical words broadcast).

    ``addresses`` (``[warp, lane, register]``, e.g. :func:`access_addresses`) are element
    addresses; registers ``[i * elems_per_vec, (i + 1) * elems_per_vec)`` form instruction
    ``i``, and a pass is a coset of the span of the lane indices ``pass_lanes``.

    Examples:
        >>> addresses = (np.arange(32) * 32).reshape(1, 32, 1)  # 16-bit: word 16 * lane
        >>> c = count_wavefronts(addresses, 1, 16, 32, [1, 2, 4, 8, 16])
        >>> c.wavefronts, c.conflicts, c.colliding_lanes[:3]
        (16, 15, (0, 2, 4))
    """
    group, n_groups = _pass_groups(addresses.shape, elems_per_vec, pass_lanes)
    words, groups, lane_of = _covered_words(addresses, element_bits, group)
    # a key per distinct (group, word) pair, a bucket per (group, bank)
    stride = int(words.max()) + 1
    keys, first_index = np.unique(groups * stride + words, return_index=True)
    g, w = keys // stride, keys % stride
    bucket = g * banks + w % banks
    buckets, counts = np.unique(bucket, return_counts=True)
    per_group = np.zeros(n_groups, dtype=np.int64)
    np.maximum.at(per_group, buckets // banks, counts)
    return WavefrontCount(
        wavefronts=int(per_group.sum()),
        min_wavefronts=n_groups,
        max_per_pass=int(per_group.max()),
        homogeneous=bool((per_group == per_group[0]).all()),
        colliding_lanes=_colliding_lanes(bucket, buckets, counts, first_index, lane_of),
    )


def _pass_groups(
    shape: tuple[int, ...], elems_per_vec: int, pass_lanes: Sequence[int]
) -> tuple[np.ndarray, int]:
    """The pass group (warp, instruction, pass) of every ``[warp, lane, register]`` of an
    access of that shape, and the number of groups."""
    warps, lanes_n, registers = shape
    lanes = np.arange(lanes_n)
    # pass index of each lane: its coset of the pass subspace (smallest representative).
    span = np.array(pass_span(pass_lanes))
    coset = np.min(lanes[:, None] ^ span[None, :], axis=1)
    _, pass_id = np.unique(coset, return_inverse=True)
    passes = int(pass_id.max()) + 1
    instr = np.arange(registers) // elems_per_vec
    n_instr = registers // elems_per_vec
    group = (np.arange(warps)[:, None, None] * n_instr + instr[None, None, :]) * passes + pass_id[
        None, :, None
    ]
    return group, warps * n_instr * passes


def _covered_words(
    addresses: np.ndarray, element_bits: int, group: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every 32-bit word each element covers, flat, with the element's pass group and lane."""
    first, last = word_bounds(addresses, element_bits)
    span_words = int((last - first).max()) + 1
    words = np.concatenate([(first + k).ravel() for k in range(span_words)])
    valid = np.concatenate([(first + k <= last).ravel() for k in range(span_words)])
    groups = np.tile(group.ravel(), span_words)
    lanes = np.arange(addresses.shape[1])
    lane_of = np.tile(np.broadcast_to(lanes[None, :, None], addresses.shape).ravel(), span_words)
    return words[valid], groups[valid], lane_of[valid]


def _colliding_lanes(
    bucket: np.ndarray,
    buckets: np.ndarray,
    counts: np.ndarray,
    first_index: np.ndarray,
    lane_of: np.ndarray,
) -> tuple[int, ...]:
    """The lanes of the largest bucket, or none when no bucket has two words (``bucket``:
    each distinct word's; ``first_index``: where in ``lane_of`` it first occurs)."""
    worst = int(np.argmax(counts))
    if counts[worst] <= 1:
        return ()
    hits = first_index[bucket == buckets[worst]]
    return tuple(sorted({int(lane_of[i]) for i in hits}))


@lru_cache(maxsize=64)
def _pass_ids(lanes: int, pass_lanes: tuple[int, ...]) -> tuple[int, ...]:
    """The pass of every lane (the passes numbered by their smallest lane), as
    :func:`_pass_groups` numbers them for one warp and one register."""
    span = pass_span(pass_lanes)
    cosets = [min(lane ^ s for s in span) for lane in range(lanes)]
    number = {c: i for i, c in enumerate(sorted(set(cosets)))}
    return tuple(number[c] for c in cosets)


def warp_wavefronts(
    addresses: Sequence[int], element_bits: int, banks: int, pass_lanes: Sequence[int]
) -> WavefrontCount:
    """:func:`count_wavefronts` of one warp instruction in which lane ``l`` accesses the one
    element at element address ``addresses[l]`` (``element_bits`` wide, up to a 128-bit
    vector), in plain Python: for a warp's few addresses this is many times faster than the
    array version, with the same result (``tests/test_wavefront_count.py`` compares them).
    The addresses need not be linear in the lane; they must be ints >= 0.

    Examples:
        >>> c = warp_wavefronts([2 * lane for lane in range(32)], 32, 32, [1, 2, 4, 8, 16])
        >>> c.wavefronts, c.conflicts, c.colliding_lanes
        (2, 1, (0, 16))
        >>> c == count_wavefronts(np.arange(0, 64, 2).reshape(1, 32, 1), 1, 32, 32,
        ...     [1, 2, 4, 8, 16])
        True
    """
    passes = _pass_ids(len(addresses), tuple(pass_lanes))
    # the words of every lane's element, in count_wavefronts' order: the k-th word of every
    # element, then the next k (whole aligned words when elements are words or multiples)
    if element_bits % 32 == 0:
        span = element_bits >> 5
        words = [[a * span + k for a in addresses] for k in range(span)]
    elif 32 % element_bits == 0:
        words = [[(a * element_bits) >> 5 for a in addresses]]
    else:
        first, last = zip(*(word_bounds(a, element_bits) for a in addresses))
        words = [
            [lo + k if lo + k <= hi else -1 for lo, hi in zip(first, last)]
            for k in range(max(hi - lo for lo, hi in zip(first, last)) + 1)
        ]
    # the distinct words of each pass, then per pass the distinct words in each bank
    distinct: list[set[int]] = [set() for _ in range(max(passes) + 1)]
    for row in words:
        for group, w in zip(passes, row):
            distinct[group].add(w)
    by_bank = [Counter(w % banks for w in group if w >= 0) for group in distinct]
    per_group = [max(counts.values()) for counts in by_bank]
    worst = max(per_group)
    return WavefrontCount(
        wavefronts=sum(per_group),
        min_wavefronts=len(per_group),
        max_per_pass=worst,
        homogeneous=all(size == worst for size in per_group),
        colliding_lanes=_warp_colliding_lanes(words, passes, banks, by_bank, worst),
    )


def _warp_colliding_lanes(
    words: list[list[int]],
    passes: tuple[int, ...],
    banks: int,
    by_bank: list[Counter[int]],
    worst: int,
) -> tuple[int, ...]:
    """:func:`_colliding_lanes` for :func:`warp_wavefronts`: the lanes that first touch
    the words of the first largest (pass, bank) bucket, or none when no bucket has two."""
    if worst <= 1:
        return ()
    group = next(g for g, counts in enumerate(by_bank) if max(counts.values()) == worst)
    bank = min(b for b, size in by_bank[group].items() if size == worst)
    owner: dict[int, int] = {}
    for row in words:
        for lane, w in enumerate(row):
            if w >= 0 and passes[lane] == group and w % banks == bank:
                owner.setdefault(w, lane)
    return tuple(sorted(set(owner.values())))


def _require_linear_words(element_bits: int) -> None:
    if type(element_bits) is not int or not is_power_of_2(element_bits):
        raise LayoutError(
            f"Argument 'element_bits' must be a power of 2, not {element_bits!r}: only then "
            "are the words an element covers linear in its address."
        )


def linear_wavefronts(
    cvt: LinearLayout,
    elems_per_vec: int,
    element_bits: int,
    banks: int,
    pass_lanes: Sequence[int],
    lanes: Sequence[int] | None = None,
) -> WavefrontCount:
    """:func:`count_wavefronts` of :func:`access_addresses` ``(cvt)``, exactly, with memory
    independent of the tensor: only the first pass group (warp 0, instruction 0) is
    enumerated.

    Why that is exact: ``cvt`` is GF(2)-linear, so the addresses of warp ``w``, instruction
    ``i`` (registers ``i * v ^ j``, ``j < v``) and pass ``p`` (lanes ``l_p ^ s``, ``s`` in
    the span of ``pass_lanes``) are ``c ^ span(S)`` with one subspace ``S`` for every group
    and a constant ``c`` per group.  For power-of-2 element bits the words an element covers
    are linear in its address too (a shift, plus the span of the words inside a 64-bit
    element), so every group's distinct words are a translate ``c' ^ W`` of one subspace, and
    the words in one bank are a coset of ``{w in W : w % banks == 0}``: every group costs the
    same, and the first group's largest bank (the simulator's worst bucket, which it reports
    the colliding lanes of) is the whole access's.  ``lanes``: as in
    :func:`instruction_addresses` (a lane index per lane, linear in it: ``l & mask``).
    ``tests/test_wavefront_count.py`` checks equality with the simulator on random layouts.

    Examples:
        >>> cvt = LinearLayout.from_bases([("register", [[1], [2], [4], [8], [16]]),
        ...     ("lane", [[32], [64], [128], [256], [512]]), ("warp", [[1024]])], ["offset"])
        >>> c = linear_wavefronts(cvt, 1, 32, 32, [1, 2, 4, 8, 16])  # every lane in bank 0
        >>> c.wavefronts, c.max_per_pass, c.colliding_lanes[:4]
        (2048, 32, (0, 1, 2, 3))
        >>> c == count_wavefronts(access_addresses(cvt), 1, 32, 32, [1, 2, 4, 8, 16])
        True
    """
    _require_linear_words(element_bits)
    full = _access_layout(cvt)
    addresses = instruction_addresses(full, elems_per_vec, lanes)
    first = count_wavefronts(addresses, elems_per_vec, element_bits, banks, pass_lanes)
    instructions = full.get_in_dim_size("warp") * (
        full.get_in_dim_size("register") // elems_per_vec
    )
    return _each_as_first(first, instructions)


def _each_as_first(first: WavefrontCount, instructions: int) -> WavefrontCount:
    """The count of ``instructions`` instructions whose pass groups each cost what the first
    instruction's (``first``) cost."""
    groups = first.min_wavefronts * instructions
    return WavefrontCount(
        wavefronts=groups * first.max_per_pass,
        min_wavefronts=groups,
        max_per_pass=first.max_per_pass,
        homogeneous=True,
        colliding_lanes=first.colliding_lanes,
    )


# ---------------------------------------------------------------------- the algebraic count


def _kernel_dim(vectors: Sequence[int], mask: int) -> int:
    """dim{d in span(vectors) : d & mask == 0}."""
    return gf2.rank(list(vectors)) - gf2.rank([v & mask for v in vectors])


def triton_conflicts(lane_offsets: Sequence[int], element_bits: int, banks: int = 32) -> int:
    """Triton's count: ``2^dim{d in span L : the bits below one bank row are 0} - 1``, with
    ``L`` the element offsets of the lanes spanning one pass.

    Examples:
        >>> triton_conflicts([1 << i for i in range(1, 6)], 16)  # 16-bit, lane i -> 2 i + ...
        0
    """
    bits = [d * element_bits for d in lane_offsets]
    return (1 << _kernel_dim(bits, banks * 32 - 1)) - 1


def hardware_conflicts(lane_offsets: Sequence[int], element_bits: int, banks: int = 32) -> int:
    """The hardware count: drop the bits inside a 32-bit word, then
    ``2^dim{w in span : the bank bits are 0} - 1``.

    Examples:
        >>> hardware_conflicts([64 * 2**i + 2**i for i in range(5)], 16)
        1
    """
    words = [(d * element_bits) >> 5 for d in lane_offsets]
    return (1 << _kernel_dim(words, banks - 1)) - 1


# ---------------------------------------------------------------------- ldmatrix / stmatrix


def matrix_wavefronts(addresses: np.ndarray, element_bits: int, regs_per_matrix: int) -> int:
    """Wavefronts of ldmatrix/stmatrix (measured on sm_90): each 8x8 matrix (registers
    ``[m * regs_per_matrix, (m + 1) * regs_per_matrix)`` of every lane of a warp) costs the
    most distinct 16-byte rows that fall into one group of four banks.

    Examples:
        >>> addresses = (np.arange(32)[:, None] * 8 + np.arange(8)).reshape(1, 32, 8)
        >>> matrix_wavefronts(addresses, 16, 8)  # 32 distinct rows, 4 per group of banks
        4
    """
    warps, _, registers = addresses.shape
    rows = (addresses * element_bits) // 128  # 16-byte rows
    total = 0
    for warp in range(warps):
        for m in range(registers // regs_per_matrix):
            block = rows[warp, :, m * regs_per_matrix : (m + 1) * regs_per_matrix]
            distinct = np.unique(block)
            total += int(np.bincount(distinct % 8).max())
    return total


def linear_matrix_wavefronts(cvt: LinearLayout, element_bits: int, regs_per_matrix: int) -> int:
    """:func:`matrix_wavefronts` of :func:`access_addresses` ``(cvt)``, exactly, enumerating
    only warp 0's first matrix: with ``cvt`` linear and power-of-2 element bits, the 16-byte
    rows of every matrix of every warp are a translate of one subspace, so every matrix costs
    what the first costs (the argument of :func:`linear_wavefronts`).

    Examples:
        >>> cvt = LinearLayout.from_bases([("register", [[1], [2], [4], [64]]), ("lane",
        ...     [[8], [16], [32], [128], [256]]), ("warp", [[512]])], ["offset"])
        >>> linear_matrix_wavefronts(cvt, 16, 8), matrix_wavefronts(access_addresses(cvt), 16, 8)
        (16, 16)
    """
    _require_linear_words(element_bits)
    full = _access_layout(cvt)
    first = matrix_wavefronts(
        instruction_addresses(full, regs_per_matrix), element_bits, regs_per_matrix
    )
    matrices = full.get_in_dim_size("register") // regs_per_matrix
    return first * matrices * full.get_in_dim_size("warp")
