"""Intel shared local memory (SLM) bank conflicts of a 16-lane sub-group's scalar accesses.

Source: Intel oneAPI GPU Optimization Guide, "Shared Local Memory", section "Bank
Conflicts" (intel.com/content/www/us/en/docs/oneapi/optimization-guide-gpu/, editions
2023.0 to 2025.0): "the SLM is divided into equally sized memory banks that can be accessed
simultaneously ... The total number of banks is device-dependent. At the time of writing, 64
consecutive bytes are stored in 16 consecutive banks at 4-byte (32-bit) granularity. Requests
for access to different banks can be serviced in parallel, but requests to different addresses
in the same bank cause a bank conflict and are serialized"; its example: 16 work-items
writing ``slm[j * 16]`` (ints) get "1/16 of full bandwidth", ``slm[j]`` full bandwidth.

The model: byte ``a`` is in bank ``(a // 4) % 16``; one access of a sub-group (one element per
lane, the element at one register index) is served in as many steps as the most distinct
4-byte words any bank holds among the lanes' addresses (``ways``; 1 = conflict-free).

Limits (what the source does not say, so what this model does not claim):

* 16 banks of 4 bytes is the guide's "at the time of writing" figure, "device-dependent": it
  is not stated per product (Xe-HPC, Xe2) here;
* only 16-lane sub-groups (a layout with another lane count is refused) and elements of at
  most 32 bits per lane (wider vector accesses are refused: how they are split into requests
  is not in the source);
* lanes reading the same 4-byte word count once (the guide names only *different*
  addresses as a conflict); whether several lanes *writing* one word serialize is not stated
  for Xe (an older guide for Gen9 graphics says they do), so a store with such lanes is
  counted as a read would be and the result says so (``same_word``);
* which accesses the backend actually issues (vectorised, 2D block, or scalar) is not
  modelled: this counts the scalar access of each register index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llverify.arguments import layout_argument
from llverify.bits import as_int
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["SLM_BANKS", "SLM_BANK_BYTES", "SUB_GROUP_LANES", "SlmAccess", "slm_bank_conflicts"]

#: Banks and bytes per bank ("at the time of writing", the guide).
SLM_BANKS = 16
SLM_BANK_BYTES = 4
#: The sub-group size the model is for.
SUB_GROUP_LANES = 16


@dataclass(frozen=True)
class SlmAccess:
    """The SLM cost of accessing a register layout's elements at their shared offsets.

    ``ways``: steps of the worst sub-group access (1 = conflict-free, 16 = fully serialized);
    ``steps``: steps summed over every (warp, register) access; ``accesses``: the number of
    those accesses (``steps == accesses`` when conflict-free); ``worst``: the first access
    with ``ways`` steps (``{"warp": w, "register": r, "bank": b, "words": [...]}``);
    ``same_word``: some access has two lanes on one 4-byte word (counted once: see the
    module's limits for stores)."""

    ways: int
    steps: int
    accesses: int
    worst: dict[str, Any]
    same_word: bool


def slm_bank_conflicts(
    register_layout: Any, shared_layout: Any, shape: Sequence[int], element_bits: int
) -> SlmAccess:
    """The bank conflicts of a 16-lane sub-group storing or loading ``register_layout``'s
    elements to or from ``shared_layout`` (``offset -> dims``), one register index at a time.

    Examples:
        >>> from llverify.layout import LinearLayout
        >>> rows = LinearLayout.from_bases(  # lane j holds row j: slm[j * 16 + register]
        ...     [("register", [[0, 1], [0, 2], [0, 4], [0, 8]]),
        ...      ("lane", [[1, 0], [2, 0], [4, 0], [8, 0]])], ["dim0", "dim1"])
        >>> shared = LinearLayout.from_bases(
        ...     [("offset", [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0], [8, 0]])],
        ...     ["dim0", "dim1"])
        >>> slm_bank_conflicts(rows, shared, [16, 16], 32).ways  # the guide's slm[j * 16]
        16
    """
    bits = as_int(element_bits, "element_bits")
    if bits not in (8, 16, 32):
        raise LayoutError(
            f"Argument 'element_bits' must be 8, 16 or 32 (one element per lane within a "
            f"4-byte bank word; wider accesses are not in the source), not {bits}."
        )
    reg = layout_argument(register_layout, shape, "register_layout")
    shared = layout_argument(shared_layout, shape, "shared_layout")
    lanes = reg.get_in_dim_size("lane") if reg.has_in_dim("lane") else 1
    if lanes != SUB_GROUP_LANES:
        raise LayoutError(
            f"Argument 'register_layout' must have {SUB_GROUP_LANES} lanes (the model is for "
            f"16-lane sub-groups), not {lanes}."
        )
    if reg.has_in_dim("block") and reg.get_in_dim_size("block") > 1:
        raise LayoutError("Argument 'register_layout' must be one CTA (no block bases).")
    to_offset = reg.invert_and_compose(shared)
    registers = to_offset.get_in_dim_size("register") if to_offset.has_in_dim("register") else 1
    warps = to_offset.get_in_dim_size("warp") if to_offset.has_in_dim("warp") else 1
    worst: dict[str, Any] = {}
    ways = steps = 0
    same_word = False
    for warp in range(warps):
        for register in range(registers):
            bank, words, shared_word = _one_access(to_offset, warp, register, bits)
            same_word |= shared_word
            steps += len(words)
            if len(words) > ways:
                ways = len(words)
                worst = {"warp": warp, "register": register, "bank": bank, "words": words}
    return SlmAccess(ways, steps, warps * registers, worst, same_word)


def _one_access(
    to_offset: LinearLayout, warp: int, register: int, bits: int
) -> tuple[int, list[int], bool]:
    """The 16 lanes' access at (``warp``, ``register``): its most loaded bank (the lowest of
    the ties), that bank's distinct words, and whether two lanes share a word."""
    names = to_offset.get_in_dim_names()
    banks: dict[int, set[int]] = {}
    seen: set[int] = set()
    same_word = False
    for lane in range(SUB_GROUP_LANES):
        point = {"register": register, "lane": lane, "warp": warp, "block": 0}
        offset = to_offset.apply({n: point[n] for n in names})["offset"]
        word = offset * bits // 8 // SLM_BANK_BYTES
        same_word |= word in seen
        seen.add(word)
        banks.setdefault(word % SLM_BANKS, set()).add(word)
    bank, words = max(banks.items(), key=lambda item: (len(item[1]), -item[0]))
    return bank, sorted(words), same_word
