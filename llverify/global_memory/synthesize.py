"""The register layout that loads (or stores) a global tensor in the fewest, widest requests,
with a certificate of optimality.

The objective, in order: the widest vector per lane (fewest requests), then the fewest
sectors over all requests, then the fewest 128-byte lines.  Two lower bounds hold for *every*
register layout with the given lanes and warps that holds each element once: the vector cannot
be wider than :func:`~llverify.global_memory.sectors.vector_bound` allows nor than a
thread's share of the elements, and every sector of the tile's footprint must be moved at
least once.  The certificate is

* :attr:`~llverify.proof.verdict.Status.BOUND` when the chosen layout meets both: no layout
  at all, blocked or not, does better;
* :attr:`~llverify.proof.verdict.Status.PROVED` otherwise, by exhaustion: every blocked layout
  (each order, threadsPerWarp, warpsPerCTA and sizePerThread that holds each element once)
  was evaluated exactly and none is better; the claim states that scope;
* :attr:`~llverify.proof.verdict.Status.UNKNOWN` when the time budget ended the enumeration.

Examples:
    >>> r = best_register_layout([256, 1], [64, 256], element_bits=16, num_warps=4)
    >>> r.coalescing.vector_width, r.coalescing.efficiency, str(r.certificate.status)
    (8, 1.0, 'bound')
    >>> r.encoding.order
    (1, 0)
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llverify.bits import as_int, as_shape, check_timeout, is_power_of_2
from llverify.encodings import BlockedLayout
from llverify.errors import LayoutError
from llverify.global_memory.sectors import (
    COALESCING_ELEMENT_BITS,
    Coalescing,
    GlobalTarget,
    coalescing,
    global_offsets,
    global_target,
    vector_bound,
)
from llverify.layout import LinearLayout
from llverify.proof.verdict import Status

__all__ = ["CoalescingCertificate", "CoalescingResult", "best_register_layout"]


@dataclass(frozen=True)
class CoalescingCertificate:
    """Why nothing is better than the chosen layout (the module docstring's three statuses).

    ``vector_bound`` and ``sector_bound`` are the lower bounds every layout obeys;
    ``candidates`` the blocked layouts evaluated (1 when the first met the bounds).
    """

    status: Status
    claim: str
    method: str  # "bound", "exhaustive", or "exhaustive (budget ended)"
    candidates: int
    vector_bound: int
    sector_bound: int
    seconds: float

    @property
    def proved(self) -> bool:
        return self.status.holds

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": str(self.status),
            "claim": self.claim,
            "method": self.method,
            "candidates": self.candidates,
            "vector_bound": self.vector_bound,
            "sector_bound": self.sector_bound,
            "seconds": self.seconds,
        }


@dataclass(frozen=True)
class CoalescingResult:
    """The chosen blocked layout, its LinearLayout, its figures and its certificate."""

    encoding: BlockedLayout
    layout: LinearLayout
    coalescing: Coalescing
    certificate: CoalescingCertificate

    def to_dict(self) -> dict[str, Any]:
        return {
            "encoding": self.encoding.ttgir(),
            "coalescing": self.coalescing.to_dict(),
            "certificate": self.certificate.to_dict(),
        }


def _key(c: Coalescing) -> tuple[int, int, int]:
    return (-c.vector_width, c.sectors, c.lines)


def _splits(total: int, rank: int) -> Iterator[tuple[int, ...]]:
    """Every way to write ``total`` (a power of 2) as a product of ``rank`` powers of 2."""
    log2 = total.bit_length() - 1
    for cut in itertools.product(range(log2 + 1), repeat=rank):
        if sum(cut) == log2:
            yield tuple(1 << c for c in cut)


def _candidates(
    shape: tuple[int, ...], lanes: int, warps: int
) -> Iterator[tuple[list[int], list[int], list[int], list[int]]]:
    """Every blocked layout (sizePerThread, threadsPerWarp, warpsPerCTA, order) whose CTA
    tile fits the shape, so that each element is held by exactly one thread and register."""
    rank = len(shape)
    for order in itertools.permutations(range(rank)):
        for tpw in _splits(lanes, rank):
            for wpc in _splits(warps, rank):
                room = [shape[d] // (tpw[d] * wpc[d]) for d in range(rank)]
                if any(r < 1 for r in room):
                    continue
                choices = [[1 << k for k in range(r.bit_length())] for r in room]
                for spt in itertools.product(*choices):
                    yield list(spt), list(tpw), list(wpc), list(order)


def _first_guess(
    offsets: np.ndarray, shape: tuple[int, ...], lanes: int, warps: int, vector: int
) -> tuple[list[int], list[int], list[int], list[int]] | None:
    """Triton's coalescing heuristic, roughly: order the dims by their stride (the smallest
    first), a vector along the first, lanes then warps filling the dims in that order."""
    rank = len(shape)
    origin = int(offsets.reshape(-1)[0])
    strides = []
    for d in range(rank):
        step = [0] * rank
        step[d] = 1 if shape[d] > 1 else 0
        stride = abs(int(offsets[tuple(step)]) - origin) if shape[d] > 1 else 0
        strides.append(stride if stride else 1 << 62)
    order = sorted(range(rank), key=lambda d: (strides[d], d))
    spt = [1] * rank
    spt[order[0]] = min(vector, shape[order[0]])
    tpw, wpc = [1] * rank, [1] * rank
    left_lanes, left_warps = lanes, warps
    for d in order:
        tpw[d] = min(left_lanes, shape[d] // spt[d])
        left_lanes //= tpw[d]
    for d in order:
        wpc[d] = min(left_warps, shape[d] // (spt[d] * tpw[d]))
        left_warps //= wpc[d]
    if left_lanes > 1 or left_warps > 1:
        return None
    return spt, tpw, wpc, order


def _arguments(
    shape: Sequence[int],
    element_bits: int,
    num_warps: int,
    target: str | GlobalTarget,
    timeout_s: float,
) -> tuple[tuple[int, ...], int, int, GlobalTarget]:
    """:func:`best_register_layout`'s arguments checked: the shape, element bits, warps and
    target (a LayoutError naming the argument otherwise)."""
    dims_shape = tuple(as_shape(shape, "shape"))
    if not dims_shape or not all(is_power_of_2(s) for s in dims_shape):
        raise LayoutError(f"Argument 'shape' must be powers of 2, not {list(dims_shape)}.")
    bits = COALESCING_ELEMENT_BITS.check(element_bits)
    warps = as_int(num_warps, "num_warps")
    if warps < 1 or not is_power_of_2(warps):
        raise LayoutError(f"Argument 'num_warps' must be a power of 2, not {warps}.")
    check_timeout(timeout_s, "timeout_s")
    return dims_shape, bits, warps, global_target(target)


def best_register_layout(
    global_layout: Any,
    shape: Sequence[int],
    element_bits: int = 32,
    num_warps: int = 4,
    target: str | GlobalTarget = "nvidia",
    *,
    base_address: int = 0,
    timeout_s: float = 30.0,
) -> CoalescingResult:
    """The blocked register layout of ``num_warps`` warps that accesses the tensor of
    ``shape`` at ``global_layout``'s offsets (:func:`~llverify.global_memory.sectors.
    global_offsets`) with the widest vectors, then the fewest sectors and lines, with its
    certificate (the module docstring).

    Examples:
        >>> r = best_register_layout([1, 64], [64, 64], element_bits=32, num_warps=4)  # column-major
        >>> r.encoding.order, r.coalescing.vector_width, r.coalescing.sectors_per_request
        ((0, 1), 4, 16.0)
        >>> best_register_layout([64, 1], [4, 8], 32)
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'shape' [4, 8] has 32 elements, fewer than the 128 threads of 4 warps of 32 lanes: every layout would hold copies.
    """  # noqa: E501
    start = time.perf_counter()
    dims_shape, bits, warps, tgt = _arguments(shape, element_bits, num_warps, target, timeout_s)
    dims = [(f"dim{i}", s) for i, s in enumerate(dims_shape)]
    offsets = global_offsets(global_layout, dims)
    total = int(np.prod(dims_shape))
    if total < tgt.lanes * warps:
        raise LayoutError(
            f"Argument 'shape' {list(dims_shape)} has {total} elements, fewer than the "
            f"{tgt.lanes * warps} threads of {warps} warps of {tgt.lanes} lanes: every layout "
            "would hold copies."
        )
    nbytes = bits // 8
    addresses = offsets.reshape(-1) * nbytes + as_int(base_address, "base_address")
    per_thread = total // (tgt.lanes * warps)
    v_bound = min(vector_bound(addresses, nbytes, tgt.max_vector_bytes // nbytes), per_thread)
    s_bound = len(np.unique(np.floor_divide(addresses, tgt.sector_bytes)))

    def evaluate(spec: tuple[list[int], list[int], list[int], list[int]]) -> tuple[Any, ...]:
        enc = BlockedLayout(*spec)
        layout = enc.to_linear_layout(list(dims_shape))
        found = coalescing(layout, offsets, None, bits, tgt, base_address=base_address)
        return enc, layout, found

    def certificate(status: Status, claim: str, method: str, count: int) -> Any:
        seconds = time.perf_counter() - start
        return CoalescingCertificate(status, claim, method, count, v_bound, s_bound, seconds)

    bounds = (
        f"{v_bound}-element vectors are the widest the addresses allow and the tile's "
        f"footprint is {s_bound} sectors"
    )
    guess = _first_guess(offsets, dims_shape, tgt.lanes, warps, v_bound)
    if guess is not None:
        enc, layout, found = evaluate(guess)
        if found.vector_width == v_bound and found.sectors == s_bound:
            claim = (
                f"no register layout of {warps} warps holding each element once does "
                f"better: {bounds}, both met"
            )
            cert = certificate(Status.BOUND, claim, "bound", 1)
            return CoalescingResult(enc, layout, found, cert)
    best: tuple[Any, ...] | None = None
    seen: set[LinearLayout] = set()
    count = 0
    first = [] if guess is None else [guess]  # the guess first: it wins ties
    for spec in itertools.chain(first, _candidates(dims_shape, tgt.lanes, warps)):
        if best is not None and time.perf_counter() - start > timeout_s:
            claim = (
                f"best of the first {count} blocked layouts only: the {timeout_s:g} s budget "
                f"ended the enumeration ({bounds})"
            )
            cert = certificate(Status.UNKNOWN, claim, "exhaustive (budget ended)", count)
            return CoalescingResult(best[0], best[1], best[2], cert)
        layout = BlockedLayout(*spec).to_linear_layout(list(dims_shape))
        if layout in seen:
            continue
        seen.add(layout)
        count += 1
        candidate = evaluate(spec)
        if best is None or _key(candidate[2]) < _key(best[2]):
            best = candidate
    if best is None:  # unreachable: the shape holds at least one element per thread
        raise LayoutError(f"no blocked layout of {warps} warps fits shape {list(dims_shape)}.")
    met = best[2].vector_width == v_bound and best[2].sectors == s_bound
    status, claim = _exhaustive_claim(met, count, warps, bounds)
    return CoalescingResult(
        best[0], best[1], best[2], certificate(status, claim, "exhaustive", count)
    )


def _exhaustive_claim(met: bool, count: int, warps: int, bounds: str) -> tuple[Status, str]:
    """The status and claim of an enumeration of ``count`` blocked layouts: BOUND when its
    best meets both lower bounds (``met``), else PROVED over the blocked layouts only."""
    scope = (
        "no register layout holding each element once"
        if met
        else f"none of the {count} blocked layouts"
    )
    claim = (
        f"{scope} of {warps} warps has wider vectors, or at this width fewer sectors, then "
        f"lines ({bounds}{', both met' if met else ''}; blocked layouts: every order, "
        "threadsPerWarp, warpsPerCTA and sizePerThread holding each element once)"
    )
    return (Status.BOUND if met else Status.PROVED), claim
