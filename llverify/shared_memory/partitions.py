"""LDS partition conflicts on gfx1250 (CDNA5): the second kind of shared-memory conflict,
beside bank conflicts, and which warps of one access meet in the same LDS partition.

The model, each fact with its source:

* gfx1250 addresses 320 KiB of LDS (327,680 bytes: LLVM ``AMDGPUBaseInfo``
  ``getAddressableLocalMemorySize`` for ``GK_GFX1250``, LLVM test
  ``lds-size-hsa-gfx1250.ll``; Triton's AMD ``TargetInfo::getSharedMemorySize``).
* The LDS is cut into partitions of 64 KiB (Triton's AMD ``TargetInfo::
  getSharedMemoryPartitionSize`` returns ``64 * 1024`` for GFX1250 and 0, "no
  partitioning", for every other target), so an address lies in partition
  ``address // 65536`` (Triton's ``Allocation.cpp`` ``getPartitionIndex``): 5 partitions.
* ``#ttg.partitioned_shared`` places its ``numPartitions`` buffers "in distinct physical
  shared memory partitions" (Triton 3.9 ``TritonGPUAttrDefs.td``
  ``PartitionedSharedEncodingAttr``; ``Allocation.cpp`` ``addPartitionBuffers``): the
  layout's ``partition`` in dim picks the physical partition.
* Waves ``w`` and ``w ^ 1`` conflict when one LDS instruction of both reads the same
  partition: Gluon's CDNA5 GEMM helper (``amd/cdna5/_layouts.py``
  ``make_partitioned_dot_layouts``) builds its WMMA warp bases so that "w0 and w1 as well
  as w2 and w3 ... read different A/B operand data blocks in a single instruction, which is
  [a] necessary precondition for avoiding LDS partition conflicts", with two partitions.

A conflict here is therefore: for one register index (the same LDS instruction in both
waves), the partitions the lanes of wave ``w`` touch and those of wave ``w ^ 1`` touch
intersect.  Limits, stated: AMD has published no gfx1250 LDS description we could find
(the CDNA5 ISA guide was not available); the pairing of waves ``w ^ 1`` and the rule
"a shared partition is a conflict" are inferred from Triton's comment above, not from a
hardware document; the cost of a conflict (cycles, serialisation) is not modelled, only
whether it happens; other pairings (``w ^ 2``, SIMD placement), the LDS banks of gfx1250
(no bank count is sourced, so there is no gfx1250 bank model) and timing between
instructions are not modelled; a buffer is assumed to lie inside one partition (Triton's
allocator places each partitioned buffer in its own partition; an unpartitioned buffer is
placed at ``base_bytes``).  One access is every warp reading (or writing) every register of
the register layout once; the register index stands for the instruction, which is exact
when each vector is aligned (its elements then share a partition).

Examples:
    >>> from llverify.encodings import AMDWMMALayout, DotOperandLayout, SwizzledSharedLayout
    >>> from llverify.encodings import PartitionedSharedLayout
    >>> wmma = AMDWMMALayout(3, True, [[2, 1], [1, 0]], [[2, 0]], [16, 16, 32])  # Gluon's
    >>> a = DotOperandLayout(0, wmma, 8)
    >>> inner = SwizzledSharedLayout(1, 1, 1, [1, 0])
    >>> split = partition_conflicts(a, PartitionedSharedLayout(2, 1, 0, inner), [64, 32], 16)
    >>> split.accesses, split.conflicts, split.partitions
    (64, 0, (0, 1))
    >>> partition_conflicts(a, inner, [64, 32], 16).conflicts  # one buffer, one partition
    64
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llverify.arguments import layout_argument
from llverify.bits import as_int, is_power_of_2
from llverify.errors import LayoutError, shown
from llverify.evaluate import evaluate_all
from llverify.hardware import PARTITION_MODELS, PartitionModel
from llverify.layout import LinearLayout

__all__ = [
    "PARTITION_MODELS",
    "PartitionConflicts",
    "PartitionModel",
    "partition_conflicts",
    "partition_model",
    "partition_table",
]

_REG, _LANE, _WARP, _BLOCK = "register", "lane", "warp", "block"


@dataclass(frozen=True)
class PartitionConflicts:
    """Partition conflicts of one access: ``accesses`` (wave pair, register index) pairs
    checked, ``conflicts`` of them with a partition in common, ``spans`` (wave, register)
    accesses whose lanes touch more than one partition, the partitions touched, and the
    first conflict (``witness``: the two warps, the register, the partition, one lane of
    each with its element and byte address), None when there is none."""

    target: str
    accesses: int
    conflicts: int
    spans: int
    partitions: tuple[int, ...]
    witness: dict[str, Any] | None


def partition_model(target: str | PartitionModel) -> PartitionModel:
    """The partition model of ``target`` (a name of :data:`PARTITION_MODELS` or a model).

    >>> partition_model("gfx1250").partition_bytes
    65536
    >>> partition_model("gfx942")
    Traceback (most recent call last):
    ...
    llverify.errors.LayoutError: Argument 'target' must be one of ['gfx1250'] (the targets with LDS partitions), not 'gfx942'.
    """  # noqa: E501
    if isinstance(target, PartitionModel):
        return target
    if target not in PARTITION_MODELS:
        raise LayoutError(
            f"Argument 'target' must be one of {sorted(PARTITION_MODELS)} (the targets with "
            f"LDS partitions), not {shown(target)}."
        )
    return PARTITION_MODELS[target]


def partition_table(
    shared_layout: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | PartitionModel = "gfx1250",
    base_bytes: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """The byte address and the physical partition of every element of a tensor of
    ``shape`` (row-major flat index) stored with ``shared_layout`` (a shared encoding,
    ``#ttg.partitioned_shared`` included, its TTGIR text, or a LinearLayout with an
    ``offset`` and optionally a ``partition`` in dim).  A partitioned layout's buffer ``p``
    is in physical partition ``p``, at byte ``offset * element_bits / 8`` of it; any other
    layout is one buffer at ``base_bytes``.

    >>> from llverify.encodings import PartitionedSharedLayout, SwizzledSharedLayout
    >>> layout = PartitionedSharedLayout(2, 2, 0, SwizzledSharedLayout(1, 1, 1, [1, 0]))
    >>> address, partition = partition_table(layout, [8, 4], 16)
    >>> partition.reshape(8, 4)[:, 0].tolist(), int(address[2 * 4]), int(address[4 * 4])
    ([0, 0, 1, 1, 0, 0, 1, 1], 65536, 16)
    """
    model = partition_model(target)
    bits = as_int(element_bits, "element_bits")
    if not (is_power_of_2(bits) and bits <= 128):
        raise LayoutError(f"Argument 'element_bits' must be 1..128, a power of 2, not {bits}.")
    base = as_int(base_bytes, "base_bytes")
    if not 0 <= base < model.lds_bytes:
        raise LayoutError(f"Argument 'base_bytes' must be in [0, {model.lds_bytes}), not {base}.")
    shared = layout_argument(shared_layout, list(shape), "shared_layout")
    sizes = {d: shared.get_in_dim_size(d) for d in shared.get_in_dim_names()}
    if sizes.get(_BLOCK, 1) != 1 or set(sizes) - {"offset", _BLOCK, "partition"}:
        raise LayoutError(
            "Argument 'shared_layout' must be a one-CTA shared layout with in dims offset "
            f"(and partition), not {sizes}."
        )
    outs = shared.get_out_dim_names()
    dims = [shared.get_out_dim_size(d) for d in outs]
    if list(dims) != [as_int(s, "shape") for s in shape]:
        raise LayoutError(f"Argument 'shape' {list(shape)} is not the layout's {dims}.")
    images = evaluate_all(shared)
    flat = np.ravel_multi_index(tuple(images[d] for d in outs), dims)
    inputs = np.arange(flat.size, dtype=np.int64)
    first = np.full(int(np.prod(dims)), -1, dtype=np.int64)
    first[flat[::-1]] = inputs[::-1]  # the lowest input holding each element
    if (first < 0).any():
        raise LayoutError("Argument 'shared_layout' leaves elements without an address.")
    offsets = first % sizes["offset"]
    buffer_bytes = sizes["offset"] * bits // 8
    if "partition" in sizes:
        if buffer_bytes > model.partition_bytes or sizes["partition"] > model.partitions:
            raise LayoutError(
                f"{sizes['partition']} buffers of {buffer_bytes} bytes do not fit the "
                f"{model.partitions} partitions of {model.partition_bytes} bytes."
            )
        partition = first // (sizes["offset"] * sizes.get(_BLOCK, 1))
        address = partition * model.partition_bytes + offsets * bits // 8
        return address, partition
    if base + buffer_bytes > model.lds_bytes:
        raise LayoutError(f"A buffer of {buffer_bytes} bytes at {base} overflows the LDS.")
    address = base + offsets * bits // 8
    return address, address // model.partition_bytes


def partition_conflicts(
    register_layout: Any,
    shared_layout: Any,
    shape: Sequence[int],
    element_bits: int,
    target: str | PartitionModel = "gfx1250",
    base_bytes: int = 0,
) -> PartitionConflicts:
    """Partition conflicts of every warp storing or loading ``register_layout`` (a
    distributed layout or encoding over ``shape``) to or from ``shared_layout``
    (:func:`partition_table`): for each register index and each pair of waves ``w``,
    ``w ^ (1 << bit)`` of the model, whether both touch a common partition."""
    model = partition_model(target)
    address, partition = partition_table(shared_layout, shape, element_bits, model, base_bytes)
    reg = layout_argument(register_layout, list(shape), "register_layout")
    _check_distributed(reg)
    sizes = [reg.get_in_dim_size(d) for d in (_REG, _LANE, _WARP)]
    images = evaluate_all(reg)
    outs = reg.get_out_dim_names()
    element = np.ravel_multi_index(
        tuple(images[d] for d in outs), [reg.get_out_dim_size(d) for d in outs]
    ).reshape(sizes[::-1])  # [warp, lane, register]
    touched = partition[element]
    masks = np.bitwise_or.reduce(np.left_shift(1, touched), axis=1)  # [warp, register]
    spans = int(sum(bin(int(m)).count("1") > 1 for m in masks.ravel()))
    accesses = conflicts = 0
    witness = None
    warps = sizes[2]
    for bit in model.paired_warp_bits:
        for w in range(warps):
            other = w ^ (1 << bit)
            if w & (1 << bit) or other >= warps:
                continue
            common = masks[w] & masks[other]
            accesses += common.size
            conflicts += int(np.count_nonzero(common))
            if witness is None and common.any():
                r = int(np.argmax(common != 0))
                p = (int(common[r]) & -int(common[r])).bit_length() - 1
                witness = _witness((w, other), r, p, element, touched, address, shape)
    return PartitionConflicts(
        model.name,
        accesses,
        conflicts,
        spans,
        tuple(sorted({int(p) for p in np.unique(touched)})),
        witness,
    )


def _check_distributed(reg: LinearLayout) -> None:
    names = list(reg.get_in_dim_names())
    if names not in ([_REG, _LANE, _WARP], [_REG, _LANE, _WARP, _BLOCK]):
        raise LayoutError(
            f"Argument 'register_layout' must have in dims register, lane, warp (and block), "
            f"not {names}."
        )
    if _BLOCK in names and reg.get_in_dim_size(_BLOCK) != 1:
        raise LayoutError("Argument 'register_layout' must be a one-CTA layout.")


def _witness(
    warps: tuple[int, int],
    register: int,
    partition: int,
    element: np.ndarray,
    touched: np.ndarray,
    address: np.ndarray,
    shape: Sequence[int],
) -> dict[str, Any]:
    """One lane of each warp that touches ``partition`` at ``register``, with the element
    it accesses and its byte address (replayable on the layouts)."""
    lanes = []
    for w in warps:
        lane = int(np.argmax(touched[w, :, register] == partition))
        flat = int(element[w, lane, register])
        lanes.append(
            {
                "warp": w,
                "lane": lane,
                "element": [int(v) for v in np.unravel_index(flat, list(shape))],
                "address": int(address[flat]),
            }
        )
    return {"register": register, "partition": partition, "accesses": lanes}
