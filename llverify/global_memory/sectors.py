"""Global-memory coalescing: the 32-byte sectors and 128-byte lines each warp request touches.

The model (NVIDIA, compute capability 6.0 and later; docs/coalescing.md cites the sources):

* a warp's load or store instruction is one *request*: lane ``l`` accesses one vector of
  ``v`` elements (``v * element bytes <= 16``, ld/st.global.v4.b32 at most), its registers
  ``g*v .. g*v+v-1`` at consecutive addresses, the first aligned to the vector's size;
* the request is served by as many *transactions* as the distinct 32-byte aligned sectors
  its lanes touch (a vector never straddles one: it is at most 16 bytes and aligned); the
  L1/L2 caches hold 128-byte lines of four sectors, counted beside;
* efficiency is the distinct bytes the request asks for over the bytes its sectors move.

The register layout gives each thread's elements (register, lane, warp, block -> tensor
coordinates); the global address map gives each element's offset in elements (strides, an
offset table, a callable, or a LinearLayout).  Every address is enumerated (numpy), so the
answer is exact for any map, linear or not; ``tests/test_coalescing.py`` checks it against a
plain-Python enumeration.  Registers that repeat another's element (zero register bases) are
dropped first, as Triton's lowering drops them; lanes and warps holding copies stay (their
addresses are the same, so they add no sector).

Examples:
    >>> enc = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]}>"
    >>> c = coalescing(enc, [1024, 1], [32, 1], element_bits=32)  # lanes walk down a column
    >>> c.vector_width, c.requests, c.sectors_per_request, c.efficiency
    (1, 1, 32.0, 0.125)
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llverify.arguments import layout_argument
from llverify.bits import as_int, counted
from llverify.errors import LayoutError, LayoutTypeError, NotInvertibleError, shown
from llverify.evaluate import check_enumeration
from llverify.hardware import TARGETS, ElementBitsRule
from llverify.layout import LinearLayout
from llverify.layout_utils import action_remove_broadcasted_regs

__all__ = [
    "COALESCING_ELEMENT_BITS",
    "GLOBAL_TARGETS",
    "Coalescing",
    "GlobalTarget",
    "coalescing",
    "coalescing_at_bases",
    "distinct_per_row",
    "global_offsets",
    "global_target",
    "vector_bound",
]

#: element widths the model takes: whole bytes, at most one 16-byte vector
COALESCING_ELEMENT_BITS = ElementBitsRule(
    (8, 16, 32, 64, 128), "whole bytes, at most one 16-byte vector"
)

#: the in dims of a register layout, in the order the analysis arranges them (slowest first)
_HARDWARE_DIMS = ("block", "warp", "lane", "register")
#: bytes one enumerated slot takes (coordinates, offsets, addresses and their sorts)
_BYTES_PER_SLOT = 96


@dataclass(frozen=True)
class GlobalTarget:
    """A global-memory model: lanes per warp, sector and line bytes, the widest vector.

    Examples:
        >>> GLOBAL_TARGETS["nvidia"]
        GlobalTarget(name='nvidia', lanes=32, sector_bytes=32, line_bytes=128, max_vector_bytes=16)
    """

    name: str
    lanes: int
    sector_bytes: int = 32
    line_bytes: int = 128
    max_vector_bytes: int = 16


#: the modelled targets: NVIDIA (every ``sm*`` name of :data:`llverify.hardware.TARGETS`)
GLOBAL_TARGETS = {"nvidia": GlobalTarget("nvidia", 32)}

#: why AMD targets are refused (docs/coalescing.md)
AMD_REASON = (
    "AMD's vector memory path is not modelled: llverify has no documented or measured "
    "transaction count for a wave64 global access, and the NVIDIA sector model would give "
    "wrong numbers there"
)


def global_target(target: str | GlobalTarget) -> GlobalTarget:
    """The :class:`GlobalTarget` named by ``target``: ``"nvidia"``, an NVIDIA name of
    :data:`llverify.hardware.TARGETS` (``sm90``), or a GlobalTarget.  AMD targets are refused
    with the reason (:data:`AMD_REASON`).

    Examples:
        >>> global_target("sm90").sector_bytes
        32
        >>> global_target("gfx942")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'target' gfx942 is refused: AMD's vector memory path is not modelled: ...
    """  # noqa: E501
    if isinstance(target, GlobalTarget):
        return target
    if isinstance(target, str):
        if target in GLOBAL_TARGETS:
            return GLOBAL_TARGETS[target]
        gpu = TARGETS.get(target)
        if gpu is not None and gpu.backend == "cuda":
            return GLOBAL_TARGETS["nvidia"]
        if gpu is not None:
            raise LayoutError(f"Argument 'target' {target} is refused: {AMD_REASON}.")
    names = ["nvidia", *(n for n, t in TARGETS.items() if t.backend == "cuda")]
    raise LayoutError(
        f"Argument 'target' must be a GlobalTarget or one of {names}, not {shown(target)}."
    )


# ------------------------------------------------------------------ the global address map


def global_offsets(global_layout: Any, dims: Sequence[tuple[str, int]]) -> np.ndarray:
    """Each element's offset (in elements) as an int64 array of the tensor's shape; ``dims``
    are the tensor's dims (name, size) in order (a register layout's out dims).

    ``global_layout`` is one of:

    * strides: one int per dim (``[64, 1]``: row-major with 64 elements a row);
    * an integer numpy array of the tensor's shape: the offset of each element;
    * a callable taking one int coordinate per dim and returning the offset (called once
      per element);
    * a LinearLayout from the tensor dims (same names and sizes) to one out dim, or from one
      in dim (``offset``) to the tensor dims, invertible (a memory layout, as for shared
      memory), whose inverse is used.

    Examples:
        >>> global_offsets([4, 1], [("dim0", 2), ("dim1", 4)]).tolist()
        [[0, 1, 2, 3], [4, 5, 6, 7]]
        >>> global_offsets(lambda i, j: 8 * j + i, [("dim0", 2), ("dim1", 2)]).tolist()
        [[0, 8], [1, 9]]
        >>> global_offsets([1], [("dim0", 2), ("dim1", 4)])
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'global_layout' must have one stride per tensor dim (2: dim0, dim1), not [1].
    """  # noqa: E501
    shape = tuple(size for _, size in dims)
    names = [name for name, _ in dims]
    if isinstance(global_layout, LinearLayout):
        return _linear_offsets(global_layout, dims)
    if isinstance(global_layout, np.ndarray):
        if global_layout.dtype.kind not in "iu":
            raise LayoutTypeError(
                f"Argument 'global_layout' must be an integer array, not {global_layout.dtype}."
            )
        if global_layout.shape != shape:
            raise LayoutError(
                f"Argument 'global_layout' must have the tensor's shape {list(shape)}, not "
                f"{list(global_layout.shape)}."
            )
        return global_layout.astype(np.int64)
    if callable(global_layout):
        return _called_offsets(global_layout, shape)
    if isinstance(global_layout, (list, tuple)):
        strides = [as_int(s, "global_layout") for s in global_layout]
        if len(strides) != len(shape):
            raise LayoutError(
                f"Argument 'global_layout' must have one stride per tensor dim ({len(shape)}: "
                f"{', '.join(names)}), not {shown(list(global_layout))}."
            )
        grid = np.indices(shape, dtype=np.int64)
        return np.tensordot(np.asarray(strides, dtype=np.int64), grid, axes=1)
    raise LayoutTypeError(
        "Argument 'global_layout' must be strides (a list of ints), an integer array of the "
        "tensor's shape, a callable (coordinates -> offset) or a LinearLayout, not "
        f"{type(global_layout).__name__}."
    )


def _linear_offsets(layout: LinearLayout, dims: Sequence[tuple[str, int]]) -> np.ndarray:
    """A LinearLayout's offsets: tensor dims -> one out dim, or its inverse of a memory layout."""
    wanted = dict(dims)
    if sorted(layout.in_dims) != sorted(dims) and sorted(layout.out_dims) == sorted(dims):
        if layout.num_in_dims != 1 or not layout.is_invertible():
            raise NotInvertibleError(
                "Argument 'global_layout' maps one in dim to the tensor dims but is not "
                f"invertible (in dims {layout.in_dims}, rank {layout.rank()}): it is no memory "
                "layout."
            )
        layout = layout.pseudoinvert()
    if dict(layout.in_dims) != wanted or layout.num_out_dims != 1:
        raise LayoutError(
            f"Argument 'global_layout' must map the tensor dims {list(dims)} to one out dim "
            f"(or one in dim to them), not {layout.in_dims} -> {layout.out_dims}."
        )
    grid = np.indices(tuple(wanted.values()), dtype=np.int64)
    out = layout.apply_array({name: grid[i] for i, name in enumerate(wanted)})
    return next(iter(out.values())).astype(np.int64)


def _called_offsets(function: Callable[..., Any], shape: tuple[int, ...]) -> np.ndarray:
    """A callable's offsets, one call per element."""
    total = int(np.prod(shape))
    check_enumeration(total, _BYTES_PER_SLOT, "calling global_layout", "give strides or an array")
    out = np.empty(total, dtype=np.int64)
    for flat, index in enumerate(np.ndindex(*shape)):
        out[flat] = as_int(function(*index), f"global_layout{index}")
    return out.reshape(shape)


# ------------------------------------------------------------------ the analysis


@dataclass(frozen=True)
class Coalescing:
    """How a register layout's warp requests hit global memory (the module docstring's model).

    Totals are over every request of every warp and CTA; ``request_sectors`` and
    ``request_lines`` hold each request's counts, in (block, warp, instruction) order.
    ``vector_limit`` says why the vector is not wider; ``max_vector_width`` is the widest the
    addresses allow any layout (:func:`vector_bound`).  ``ideal_sectors`` is the fewest
    sectors the same requests could touch (each request's distinct bytes / 32, rounded up).
    """

    target: str
    element_bits: int
    vector_width: int  # elements per lane per request
    vector_limit: str
    max_vector_width: int
    requests: int
    sectors: int
    lines: int
    ideal_sectors: int
    bytes_requested: int  # lanes x vector bytes, over every request (copies counted)
    bytes_distinct: int  # distinct bytes each request asks for, summed
    base_address: int
    request_sectors: np.ndarray = field(repr=False, compare=False)
    request_lines: np.ndarray = field(repr=False, compare=False)

    @property
    def vector_bytes(self) -> int:
        """Bytes each lane accesses per request."""
        return self.vector_width * self.element_bits // 8

    @property
    def bytes_moved(self) -> int:
        """Bytes the sectors move: 32 per sector."""
        return self.sectors * GLOBAL_TARGETS["nvidia"].sector_bytes

    @property
    def efficiency(self) -> float:
        """Distinct bytes requested / bytes moved (1.0: every moved byte was asked for)."""
        return self.bytes_distinct / self.bytes_moved if self.bytes_moved else 1.0

    @property
    def sectors_per_request(self) -> float:
        """The mean sectors (transactions) per request."""
        return self.sectors / self.requests if self.requests else 0.0

    @property
    def lines_per_request(self) -> float:
        """The mean 128-byte lines per request."""
        return self.lines / self.requests if self.requests else 0.0

    @property
    def max_sectors_per_request(self) -> int:
        """The sectors of the worst request."""
        return int(self.request_sectors.max()) if self.requests else 0

    @property
    def coalesced(self) -> bool:
        """Every request touches only the sectors its distinct bytes need."""
        return self.sectors == self.ideal_sectors

    def histogram(self) -> dict[int, int]:
        """Sectors per request -> how many requests touch that many."""
        values, counts = np.unique(self.request_sectors, return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts)}

    def describe(self) -> str:
        """One line: vector, sectors per request, efficiency.

        Examples:
            >>> enc = "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>"
            >>> print(coalescing(enc, [1], [128], element_bits=32).describe())
            128-bit vectors (4 elements), 1 request, 16 sectors per request (ideal 16), 4 lines per request, efficiency 100.0%
        """  # noqa: E501
        ideal = self.ideal_sectors / self.requests if self.requests else 0.0
        return (
            f"{self.vector_bytes * 8}-bit vectors ({counted(self.vector_width, 'element')}), "
            f"{counted(self.requests, 'request')}, {self.sectors_per_request:g} sectors per "
            f"request (ideal {ideal:g}), {self.lines_per_request:g} lines per request, "
            f"efficiency {100 * self.efficiency:.1f}%"
        )

    def to_dict(self) -> dict[str, Any]:
        """The figures as plain data (the CLI's ``--json``)."""
        return {
            "target": self.target,
            "element_bits": self.element_bits,
            "vector_width": self.vector_width,
            "vector_bytes": self.vector_bytes,
            "vector_limit": self.vector_limit,
            "max_vector_width": self.max_vector_width,
            "requests": self.requests,
            "sectors": self.sectors,
            "ideal_sectors": self.ideal_sectors,
            "lines": self.lines,
            "sectors_per_request": self.sectors_per_request,
            "max_sectors_per_request": self.max_sectors_per_request,
            "lines_per_request": self.lines_per_request,
            "bytes_requested": self.bytes_requested,
            "bytes_distinct": self.bytes_distinct,
            "bytes_moved": self.bytes_moved,
            "efficiency": self.efficiency,
            "coalesced": self.coalesced,
            "base_address": self.base_address,
            "sectors_histogram": self.histogram(),
        }


def coalescing(
    layout: Any,
    global_layout: Any,
    shape: Sequence[int] | None = None,
    element_bits: int = 32,
    target: str | GlobalTarget = "nvidia",
    *,
    base_address: int = 0,
) -> Coalescing:
    """The sectors, lines, vector width and efficiency of loading (or storing) a tensor held
    in ``layout`` from (to) global memory at the offsets ``global_layout`` gives.

    ``layout``: a register layout (a LinearLayout with in dims among register, lane, warp,
    block, or anything :func:`llverify.arguments.layout_argument` takes, with ``shape``);
    ``global_layout``: see :func:`global_offsets`; ``base_address``: the byte address of
    offset 0 (0: aligned to a 128-byte line; a multiple of the element's bytes).

    Examples:
        >>> enc = "#ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>"
        >>> c = coalescing(enc, [1], [512], element_bits=16)
        >>> c.vector_width, c.requests, c.sectors, c.efficiency
        (8, 2, 32, 1.0)
        >>> coalescing(enc, [1], [512], element_bits=16, base_address=2).vector_limit
        'a 2-element vector of lane 0 (warp 0, block 0) starts at byte 2, not a multiple of 4'
    """  # noqa: E501
    (found,) = coalescing_at_bases(
        layout, global_layout, shape, element_bits, target, base_addresses=(base_address,)
    )
    return found


def coalescing_at_bases(
    layout: Any,
    global_layout: Any,
    shape: Sequence[int] | None = None,
    element_bits: int = 32,
    target: str | GlobalTarget = "nvidia",
    *,
    base_addresses: Sequence[int] = (0,),
) -> tuple[Coalescing, ...]:
    """:func:`coalescing` at each of ``base_addresses``, in order: the layout and the address
    map are checked and every slot's offset enumerated once (the audit's rule costs one
    access at every base its alignment allows).

    Examples:
        >>> enc = "#ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>"
        >>> [c.vector_width for c in coalescing_at_bases(enc, [1], [512], 16, base_addresses=(0, 2, 4))]
        [8, 1, 2]
    """  # noqa: E501
    bits = COALESCING_ELEMENT_BITS.check(element_bits)
    tgt = global_target(target)
    reg = layout_argument(layout, shape, "layout")
    nbytes = bits // 8
    bases = [as_int(base, "base_address") for base in base_addresses]
    for base in bases:
        if base % nbytes:
            raise LayoutError(
                f"Argument 'base_address' must be a multiple of the element's {nbytes} bytes, "
                f"not {base}."
            )
    offsets = global_offsets(global_layout, reg.out_dims)
    slots = _slot_addresses(reg, tgt, offsets) * nbytes
    elements = offsets.reshape(-1) * nbytes
    max_v = tgt.max_vector_bytes // nbytes
    # the distinct elements and their counts, once: a base (a multiple of the element's
    # bytes) moves every element number by base // nbytes and changes no count
    keys, counts = np.unique(elements.astype(np.int64) // nbytes, return_counts=True)
    found = []
    for base in bases:
        addresses = slots + base
        width, limit = _vector_width(addresses, nbytes, max_v)
        bound = _counted_bound(keys + base // nbytes, counts, max_v)
        found.append(_count(addresses, width, limit, bound, bits, tgt, base))
    return tuple(found)


def _slot_addresses(reg: LinearLayout, tgt: GlobalTarget, offsets: np.ndarray) -> np.ndarray:
    """Element offsets of every (block, warp, lane, register) slot, broadcast registers
    dropped, as an int64 array of that shape."""
    unknown = [d for d in reg.get_in_dim_names() if d not in _HARDWARE_DIMS]
    if unknown or not reg.has_in_dim("lane"):
        raise LayoutError(
            f"Argument 'layout' must be a register layout (in dims among {list(_HARDWARE_DIMS)}"
            f", with lane), not in dims {reg.get_in_dim_names()}."
        )
    lanes = reg.get_in_dim_size("lane")
    if lanes != tgt.lanes:
        raise LayoutError(f"The layout has {lanes} lanes, but target {tgt.name} has {tgt.lanes}.")
    if reg.has_in_dim("register"):
        names = reg.get_in_dim_names()
        reg = reg.transpose_ins(["register", *(n for n in names if n != "register")])
        reg = action_remove_broadcasted_regs(reg).apply(reg)
    names = reg.get_in_dim_names()
    check_enumeration(
        reg.get_total_in_dim_size(),
        _BYTES_PER_SLOT,
        "enumerating every address",
        "use a smaller shape",
    )
    coords = reg.apply_all(max_inputs=reg.get_total_in_dim_size())
    flat = offsets[tuple(coords[name] for name, _ in reg.out_dims)]
    # Flat index: the first in dim least significant; reshape slowest-first, then arrange.
    grid = flat.reshape([reg.get_in_dim_size(n) for n in reversed(names)])
    axes = list(reversed(names))
    for dim in _HARDWARE_DIMS:
        if dim not in axes:
            grid = grid[np.newaxis]
            axes.insert(0, dim)
    return np.transpose(grid, [axes.index(d) for d in _HARDWARE_DIMS])


def _vector_width(addresses: np.ndarray, nbytes: int, max_v: int) -> tuple[int, str]:
    """The widest vector every lane can use (registers g*v .. g*v+v-1 consecutive, aligned),
    and why the next wider one fails."""
    registers = addresses.shape[-1]
    v = 1
    while True:
        wider = 2 * v
        if wider > max_v:
            return v, f"{wider * nbytes} bytes exceed the {max_v * nbytes}-byte vector maximum"
        if wider > registers:
            return v, f"a thread holds {counted(registers, 'register')}"
        why = _vector_failure(addresses, nbytes, wider)
        if why:
            return v, why
        v = wider


def _vector_failure(addresses: np.ndarray, nbytes: int, v: int) -> str:
    """Why a ``v``-element vector fails for some lane ('' when it works everywhere)."""
    blocks, warps, lanes, registers = addresses.shape
    groups = addresses.reshape(blocks, warps, lanes, registers // v, v)
    step = np.arange(v, dtype=np.int64) * nbytes
    broken = (groups != groups[..., :1] + step).any(axis=-1)
    if broken.any():
        b, w, lane, g = (int(i) for i in np.argwhere(broken)[0])
        r = int(np.argmax(groups[b, w, lane, g] != groups[b, w, lane, g, 0] + step))
        return (
            f"register {g * v + r} of lane {lane} (warp {w}, block {b}) is at byte "
            f"{groups[b, w, lane, g, r]}, not {groups[b, w, lane, g, 0] + r * nbytes} (after "
            f"register {g * v} at byte {groups[b, w, lane, g, 0]})"
        )
    misaligned = groups[..., 0] % (v * nbytes) != 0
    if misaligned.any():
        b, w, lane, g = (int(i) for i in np.argwhere(misaligned)[0])
        return (
            f"a {v}-element vector of lane {lane} (warp {w}, block {b}) starts at byte "
            f"{groups[b, w, lane, g, 0]}, not a multiple of {v * nbytes}"
        )
    return ""


def vector_bound(element_addresses: np.ndarray, nbytes: int, max_v: int) -> int:
    """The widest vector any register layout could use: the largest power of 2 ``v <=
    max_v`` such that the elements' byte addresses split into aligned runs of ``v``
    consecutive elements (each aligned ``v``-element block of addresses holds every one of
    its ``v`` addresses equally often).

    Examples:
        >>> vector_bound(np.arange(8) * 2, 2, 8), vector_bound(np.arange(8) * 6, 2, 8)
        (8, 1)
        >>> vector_bound(np.array([0, 2, 4, 6, 8, 10]), 2, 8)  # bytes 8..10 fill half a run of 4
        2
    """
    addresses = np.asarray(element_addresses, dtype=np.int64).reshape(-1)
    keys, counts = np.unique(addresses // nbytes, return_counts=True)
    return _counted_bound(keys, counts, max_v)


def _counted_bound(keys: np.ndarray, counts: np.ndarray, max_v: int) -> int:
    """:func:`vector_bound` from the distinct element numbers (sorted) and how often each
    is addressed (1 when there are none).  The numbers being distinct and sorted, every
    aligned ``v``-block present is full exactly when they fall into rows of ``v`` that each
    start at a multiple of ``v`` and span ``v - 1``."""
    best = 1
    v = 2
    while v <= max_v and len(keys) and len(keys) % v == 0:
        rows, times = keys.reshape(-1, v), counts.reshape(-1, v)
        full = (rows[:, 0] % v == 0).all() and (rows[:, -1] - rows[:, 0] == v - 1).all()
        if not (full and (times == times[:, :1]).all()):
            return best
        best, v = v, 2 * v
    return best


def distinct_per_row(values: np.ndarray) -> np.ndarray:
    """How many distinct values each row of a 2-d int array holds.

    Examples:
        >>> distinct_per_row(np.array([[3, 1, 3, 1], [5, 6, 7, 8]])).tolist()
        [2, 4]
    """
    return _distinct_sorted(np.sort(values, axis=1))


def _distinct_sorted(ordered: np.ndarray) -> np.ndarray:
    """:func:`distinct_per_row` of a 2-d int array whose rows are sorted."""
    if ordered.shape[1] == 0:
        return np.zeros(ordered.shape[0], dtype=np.int64)
    return 1 + (np.diff(ordered, axis=1) != 0).sum(axis=1)


def _count(
    addresses: np.ndarray,
    width: int,
    limit: str,
    max_width: int,
    bits: int,
    tgt: GlobalTarget,
    base: int,
) -> Coalescing:
    """Count the sectors and lines of every request at vector ``width``."""
    blocks, warps, lanes, registers = addresses.shape
    nbytes = bits // 8
    starts = addresses.reshape(blocks, warps, lanes, registers // width, width)[..., 0]
    rows = np.moveaxis(starts, 2, 3).reshape(-1, lanes)  # one row per request
    # sorted once: dividing by a positive number keeps each row sorted
    ordered = np.sort(rows, axis=1)
    sectors = _distinct_sorted(np.floor_divide(ordered, tgt.sector_bytes))
    lines = _distinct_sorted(np.floor_divide(ordered, tgt.line_bytes))
    distinct = _distinct_sorted(ordered) * width * nbytes
    ideal = -(-distinct // tgt.sector_bytes)
    return Coalescing(
        target=tgt.name,
        element_bits=bits,
        vector_width=width,
        vector_limit=limit,
        max_vector_width=max_width,
        requests=len(rows),
        sectors=int(sectors.sum()),
        lines=int(lines.sum()),
        ideal_sectors=int(ideal.sum()),
        bytes_requested=int(rows.size * width * nbytes),
        bytes_distinct=int(distinct.sum()),
        base_address=base,
        request_sectors=sectors,
        request_lines=lines,
    )
