"""Audit rule ``view-layout``: every view of a buffer or a tensor (``ttg.memdesc_index``,
``ttg.memdesc_subslice``, ``ttg.memdesc_trans``, ``ttg.memdesc_reshape``, AMD
``amdg.extract_slice``, ``amdg.concat`` and ``amdg.in_thread_transpose``) proved to have the
layout of its source restricted, transposed, reshaped or tiled (in_thread_transpose: each
thread's registers permuted), over every element of the instance.

A memdesc view moves no data: its result must address every logical element where the source
holds it.  Each memdesc is read as its *offset table* (the shared offset of every logical
index of its allocation shape, the encoding's layout evaluated at every offset; a
multi-buffered ``3x128x64`` memdesc whose encoding has rank 2 is three consecutive copies of
the rank-2 layout), and the check compares the tables exhaustively:

* ``memdesc_index``: buffer ``i`` of the source is the result's table plus ``i`` times the
  buffer size, for every ``i`` (the index is dynamic);
* ``memdesc_subslice`` (constant offsets ``off``, accumulated through nested subslices):
  Triton 3.9 addresses element ``x`` of the view at ``L^-1(x) XOR L^-1(off)`` (``lowerLdSt``,
  ``SharedMemoryObject::getShmemOffset``); the right address is the source's at ``x + off``.
  Both are evaluated for every ``x``, so an offset that touches the tile (``x XOR off !=
  x + off``) or a result encoding that is not the source's is a counterexample.  Beside it
  Triton's verifier rule (``MemDescSubsliceOp::verify``): each power of two from the view's
  size to the source's size along a split dimension must map to a power-of-two offset (never
  "along the swizzling pattern"), the offsets of other dims are 0 and the allocation shapes
  agree; a break is an error.  :func:`subslice_mask` is Triton's ``getMaskSpanOffsets``: the
  offset bits a subslice may set, which ldmatrix/stmatrix require to stay above one 16-byte
  row (``lowerLdStMatrix``);
* ``memdesc_trans``: the result's table is the source's with its axes permuted by ``order``;
* ``memdesc_reshape``: both tables agree in row-major order;
* ``amdg.extract_slice`` (a distributed tensor): every element a thread holds in the result is
  held by the same thread (lane, warp) in the source at ``x + offsets``; ``amdg.concat``: every
  element of the result, in operand tile ``g`` (row-major), is held by the same thread in
  operand ``g``.  No data moves between threads, so a layout that would need it is an error.

A counterexample is replayed on the layouts (evaluated at the offsets or hardware indices it
names) before it is reported.

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#s = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ... #t = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
    ... #smem = #ttg.shared_memory
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
    ...   %1 = ttg.memdesc_subslice %0[0, 16] : !ttg.memdesc<128x64xf16, #s, #smem, mutable> -> !ttg.memdesc<128x16xf16, #s, #smem, mutable, 128x64>
    ...   %2 = ttg.memdesc_trans %0 {order = array<i32: 1, 0>} : !ttg.memdesc<128x64xf16, #s, #smem, mutable> -> !ttg.memdesc<64x128xf16, #t, #smem, mutable>
    ... }'''
    >>> [(f.rule, str(f.status)) for f in audit(text).findings if f.rule == NAME]
    [('view-layout', 'proved'), ('view-layout', 'proved')]
"""  # noqa: E501

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from llverify.audit.context import AuditContext, Rule
from llverify.encodings.padded import PaddedLayout
from llverify.errors import LLVerifyError
from llverify.evaluate import evaluate_all
from llverify.layout import LinearLayout
from llverify.proof.verdict import Status
from llverify.ttgir import Operation, Type

__all__ = [
    "NAME",
    "RULES",
    "OffsetTable",
    "offset_table",
    "row_rule_record",
    "subslice_mask",
    "subslice_offsets",
]

NAME = "view-layout"
_MEMDESC_OPS = frozenset(
    {"ttg.memdesc_index", "ttg.memdesc_subslice", "ttg.memdesc_trans", "ttg.memdesc_reshape"}
)
_TENSOR_OPS = frozenset({"amdg.extract_slice", "amdg.concat", "amdg.in_thread_transpose"})


@dataclass(frozen=True)
class OffsetTable:
    """A memdesc's shared offset of every logical index of its allocation shape.

    ``layout`` maps the offsets of one buffer to its logical indices (the encoding's layout,
    the linear component of a padded one); ``buffers`` counts the buffers when the encoding
    has one rank fewer than the memdesc (a multi-buffered allocation, buffer ``i`` at ``i``
    times the buffer size), else it is None.
    """

    layout: LinearLayout
    buffers: int | None
    offsets: np.ndarray

    def replay(self, offset: int) -> tuple[int, ...]:
        """The logical index the layout maps ``offset`` to, evaluated on the layout."""
        size = self.layout.get_in_dim_size("offset")
        ins = {d: 0 for d in self.layout.get_in_dim_names()}
        ins["offset"] = offset % size
        out = self.layout.apply(ins)
        inner = tuple(out[d] for d in self.layout.get_out_dim_names())
        return inner if self.buffers is None else (offset // size, *inner)


class NotModelledError(LLVerifyError):
    """A view this rule does not model (the operation is listed as not checked, no verdict)."""


def _table_of(layout: LinearLayout, shape: tuple[int, ...], what: str) -> np.ndarray:
    """The inverse of ``layout`` (offset -> logical index) as an array over ``shape``."""
    if layout.has_in_dim("block") and layout.get_in_dim_size("block") > 1:
        raise NotModelledError(f"{what}: a shared layout over several CTAs is not modelled here")
    sub = layout.sublayout(["offset"], layout.get_out_dim_names())
    values = evaluate_all(sub)
    coords = tuple(np.asarray(values[d], dtype=np.int64) for d in sub.get_out_dim_names())
    table = np.full(shape, -1, dtype=np.int64)
    table[coords] = np.arange(sub.get_in_dim_size("offset"), dtype=np.int64)
    if (table < 0).any():
        raise LLVerifyError(f"{what}: its shared layout does not reach every element")
    return table


def _linear(shared: LinearLayout | PaddedLayout) -> LinearLayout:
    """A shared layout's offset map: a padded layout's linear component (the padding is a
    function of that offset, the same in every view)."""
    return shared.linear if isinstance(shared, PaddedLayout) else shared


def offset_table(ctx: AuditContext, info: Type) -> OffsetTable:
    """The :class:`OffsetTable` of a memdesc type over its allocation shape (cached per
    encoding and shape).

    Examples:
        >>> from llverify.ttgir import parse_module
        >>> module = parse_module('''#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
        ... #smem = #ttg.shared_memory
        ... module attributes {"ttg.num-warps" = 4 : i32} {
        ...   %1 = ttg.memdesc_index %0[%c0] : !ttg.memdesc<2x2x4xf16, #s, #smem, mutable> -> !ttg.memdesc<2x4xf16, #s, #smem, mutable>
        ... }''')
        >>> ctx = AuditContext(module, "nvidia", timeout_s=10.0)
        >>> t = offset_table(ctx, module.ops[0].types[0])
        >>> t.buffers, t.offsets[1].tolist(), t.replay(13)
        (2, [[8, 9, 10, 11], [12, 13, 14, 15]], (1, 1, 1))
    """  # noqa: E501
    shape = info.alloc_shape[len(info.alloc_shape) - len(info.shape) :]
    cache = ctx.state.setdefault(NAME, {})
    key = (info.encoding, shape)
    if key in cache:
        return cache[key]
    what = f"memdesc {info.text}"
    try:
        shared, buffers = ctx.shared_layout(info.encoding, shape), None
        rank = len(_linear(shared).get_out_dim_names())
    except LLVerifyError:
        if len(shape) < 2:
            raise
        rank = len(shape) - 1
    if rank != len(shape):  # an encoding of one rank fewer: the leading dim counts buffers
        shared, buffers = ctx.shared_layout(info.encoding, shape[1:]), shape[0]
    layout = _linear(shared)
    inner = _table_of(layout, shape if buffers is None else shape[1:], what)
    if buffers is not None:
        step = np.arange(buffers, dtype=np.int64).reshape((buffers,) + (1,) * inner.ndim)
        inner = step * inner.size + inner[None]
    table = OffsetTable(layout, buffers, inner)
    cache[key] = table
    return table


def subslice_offsets(op: Operation) -> tuple[int, ...]:
    """The constant offsets of a ``ttg.memdesc_subslice`` (``%x[0, 16]``).

    Examples:
        >>> from llverify.ttgir import parse_module
        >>> m = parse_module('''#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
        ... #smem = #ttg.shared_memory
        ... module {
        ...   %1 = ttg.memdesc_subslice %0[0, 16] : !ttg.memdesc<8x32xf16, #s, #smem> -> !ttg.memdesc<8x16xf16, #s, #smem, 8x32>
        ... }''')
        >>> subslice_offsets(m.ops[0])
        (0, 16)
    """  # noqa: E501
    found = op.static_indices
    if found is None:
        raise LLVerifyError(f"could not read the offsets of {op.name} in {op.text.strip()!r}")
    return found


def subslice_mask(ctx: AuditContext, info: Type) -> int:
    """Triton's ``getMaskSpanOffsets``: the OR of the offsets of every power of two from the
    view's size to its allocation's along each dimension (the offset bits a subslice of this
    type may set); 0 for a memdesc that is no subslice.

    Examples:
        >>> from llverify.ttgir import parse_module
        >>> m = parse_module('''#s = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
        ... #smem = #ttg.shared_memory
        ... module {
        ...   %1 = ttg.memdesc_subslice %0[0, 16] : !ttg.memdesc<128x64xf16, #s, #smem> -> !ttg.memdesc<128x16xf16, #s, #smem, 128x64>
        ... }''')
        >>> ctx = AuditContext(m, "nvidia", timeout_s=10.0)
        >>> subslice_mask(ctx, m.ops[0].types[1])
        48
    """  # noqa: E501
    alloc = info.alloc_shape[len(info.alloc_shape) - len(info.shape) :]
    if alloc == info.shape:
        return 0
    if isinstance(ctx.shared_layout(info.encoding, alloc), PaddedLayout):
        return (1 << 64) - 1  # Triton: padding breaks the constant fusion, all bits
    offsets = offset_table(ctx, info).offsets
    mask = 0
    for dim, (size, full) in enumerate(zip(info.shape, alloc)):
        step = size
        while step < full:
            index = [0] * len(alloc)
            index[dim] = step
            mask |= int(offsets[tuple(index)])
            step *= 2
    return mask


def row_rule_record(mask: int, bits: int | None, view: np.ndarray) -> dict[str, Any] | None:
    """Triton's ldmatrix/stmatrix row rule on a subslice's mask (:class:`~llverify.
    shared_memory.offsets.RowRule`, None outside 8 to 32-bit elements), and whether the slack
    of the rule before triton#10066 is reachable here: it accepted a mask that touches a
    row, and every power of two below a row is the offset of a view element (``view``: the
    offsets of the view's elements), which a conversion of the view needs to fill a row.

    Examples:
        >>> view = np.arange(4 * 128).reshape(128, 4) // 4 * 64 + np.arange(4)  # 128x4 of 64
        >>> r = row_rule_record(60, 16, view)
        >>> r["legal"], r["triton_before_10066"], r["old_rule_slack_reachable"]
        (False, True, False)
    """
    from llverify.shared_memory.offsets import RowRule

    if bits not in (8, 16, 32):
        return None
    rule = RowRule(mask, bits)
    row_bits = [1 << i for i in range(rule.row_elements.bit_length() - 1)]
    return {
        "row_elements": rule.row_elements,
        "touched_bits": rule.touched,
        "legal": rule.legal,
        "triton_before_10066": rule.triton_before_10066,
        # the view's offsets are searched only when the old rule missed something
        "old_rule_slack_reachable": rule.missed_before_10066
        and all(bool((view == b).any()) for b in row_bits),
    }


def _first(mismatch: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mismatch)[0])


def _replay(table: OffsetTable, offset: int, index: tuple[int, ...]) -> None:
    """Check on the layout itself that ``offset`` holds ``index`` (a counterexample's
    replay); an internal error if not."""
    if table.replay(offset) != tuple(index):
        raise LLVerifyError(
            f"internal error: offset {offset} replays to {table.replay(offset)}, not {index}"
        )


def _prove(ctx: AuditContext, op: Operation, count: int, what: str, **data: Any) -> None:
    summary = f"{what}: proved for all {count} elements of this instance"
    ctx.finding(op, Status.PROVED, summary, rule=NAME, data=data)


def _error(ctx: AuditContext, op: Operation, summary: str, **data: Any) -> None:
    ctx.finding(op, Status.ERROR, summary, rule=NAME, data=data)


def _grid(shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    return tuple(np.indices(shape, dtype=np.int64))


def check_index(ctx: AuditContext, op: Operation, src: Type, dst: Type) -> None:
    """Buffer ``i`` of the source is the result's layout shifted by ``i`` buffers, for every
    ``i`` (the index is a runtime value)."""
    if dst.shape != src.shape[1:]:
        _error(ctx, op, f"the result's shape {dst.shape} is not the source's {src.shape} "
               "without its leading dimension")  # fmt: skip
        return
    parent, view = offset_table(ctx, src), offset_table(ctx, dst)
    size = view.offsets.size
    base = (np.arange(src.shape[0], dtype=np.int64) * size).reshape((-1,) + (1,) * len(dst.shape))
    emitted = view.offsets[None] + base
    mismatch = emitted != parent.offsets
    if mismatch.any():
        index = _first(mismatch)
        right, got = int(parent.offsets[index]), int(emitted[index])
        _replay(parent, right, index)
        _replay(view, got - index[0] * size, index[1:])
        _error(ctx, op, f"element {index} of the source is at offset {right}, but buffer "
               f"{index[0]} of the result puts it at offset {got}: the result's layout is not "
               "the source's", counterexample={"index": index, "source_offset": right,
               "view_offset": got})  # fmt: skip
        return
    _prove(ctx, op, parent.offsets.size, "each buffer of the source has the result's layout")


def _base_offsets(ctx: AuditContext, value: str, info: Type) -> tuple[int, ...] | None:
    """The offsets of the view ``value`` (of type ``info``) in its allocation: the sum of
    the subslices it comes from, or None when they are not visible (a block argument)."""
    if info.alloc_shape[len(info.alloc_shape) - len(info.shape) :] == info.shape:
        return (0,) * len(info.shape)
    op = ctx.definitions.get(value)
    if op is None or op.name != "ttg.memdesc_subslice" or len(op.types) < 2:
        return None
    below = _base_offsets(ctx, op.operands[0], op.types[0])
    if below is None:
        return None
    return tuple(a + b for a, b in zip(below, subslice_offsets(op)))


def check_subslice(ctx: AuditContext, op: Operation, src: Type, dst: Type) -> None:
    """Triton's address of each view element (``L^-1(x) XOR L^-1(off)``) is the source's
    address of ``x + off``; Triton's verifier rule on the offsets."""
    offsets = subslice_offsets(op)
    bad = _subslice_shapes(offsets, src, dst)
    if bad:
        _error(ctx, op, bad)
        return
    base = _base_offsets(ctx, op.operands[0], src)
    if base is None:
        ctx.skip(op, NAME, "the source is a subslice whose offsets are not visible here "
                 "(a block argument)")  # fmt: skip
        return
    total = tuple(a + b for a, b in zip(base, offsets))
    parent, view = offset_table(ctx, src), offset_table(ctx, dst)
    x = _grid(dst.shape)
    right = parent.offsets[tuple(xi + t for xi, t in zip(x, total))]
    emitted = view.offsets[x] ^ int(view.offsets[total])
    data: dict[str, Any] = {"offsets": list(total), "mask": subslice_mask(ctx, dst)}
    rows = row_rule_record(data["mask"], dst.bits, view.offsets[x])
    if rows is not None:
        data["ldmatrix_rows"] = rows
    mismatch = emitted != right
    if mismatch.any():
        _misaddressed(ctx, op, _first(mismatch), total, emitted, right, (parent, view), data)
        return
    rule = _verifier_rule(ctx, src, dst, offsets, parent, view)
    if rule is not None:
        summary, counterexample = rule
        if counterexample is not None:
            data["counterexample"] = counterexample
        _error(ctx, op, summary, **data)
        return
    _prove(ctx, op, int(right.size), f"the view at offsets {list(total)} addresses every element "
           "where the source holds it", **data)  # fmt: skip


def _subslice_shapes(offsets: tuple[int, ...], src: Type, dst: Type) -> str:
    """Why the offsets and shapes of a subslice do not fit together ("" when they do)."""
    rank = len(dst.shape)
    alloc = src.alloc_shape[len(src.alloc_shape) - rank :]
    if len(offsets) != rank or len(src.shape) != rank:
        return f"offsets {list(offsets)} and shapes {src.shape} -> {dst.shape} differ in rank"
    if dst.alloc_shape[len(dst.alloc_shape) - rank :] != alloc:
        return f"the result's allocation shape {dst.alloc_shape} is not the source's {alloc}"
    if any(o < 0 or o + d > s for o, d, s in zip(offsets, dst.shape, src.shape)):
        return f"offsets {list(offsets)} put the {dst.shape} view outside the {src.shape} source"
    return ""


def _misaddressed(
    ctx: AuditContext,
    op: Operation,
    index: tuple[int, ...],
    total: tuple[int, ...],
    emitted: np.ndarray,
    right: np.ndarray,
    tables: tuple[OffsetTable, OffsetTable],
    data: dict[str, Any],
) -> None:
    """The error for view element ``index``, addressed at ``emitted`` but held at ``right``
    (both replayed on the parent's and the view's tables)."""
    parent, view = tables
    logical = tuple(i + t for i, t in zip(index, total))
    got, want = int(emitted[index]), int(right[index])
    _replay(parent, want, logical)
    _replay(view, got, tuple(i ^ t for i, t in zip(index, total)))
    why = "the result's layout is not the source's"
    if any(i ^ t != i + t for i, t in zip(index, total)):
        why = "the offsets touch the view's tile (x XOR offset != x + offset)"
    data["counterexample"] = {"index": index, "element": logical, "emitted_offset": got,
                              "right_offset": want}  # fmt: skip
    _error(ctx, op, f"view element {index} (element {logical} of the allocation) is "
           f"addressed at offset {got} but lives at {want}: {why}", **data)  # fmt: skip


def _verifier_rule(
    ctx: AuditContext,
    src: Type,
    dst: Type,
    offsets: tuple[int, ...],
    parent: OffsetTable,
    view: OffsetTable,
) -> tuple[str, dict[str, Any] | None] | None:
    """Triton 3.9's ``MemDescSubsliceOp::verify`` on the offsets: the reason it refuses
    them and, for a split "along the swizzling pattern", a view element whose address an
    added base offset (a descriptor's) gets wrong; None when it accepts them."""
    for dim, (offset, size, full) in enumerate(zip(offsets, dst.shape, src.shape)):
        if size == full:
            if offset:
                return f"a non-zero offset {offset} in dimension {dim}, which is not split", None
            continue
        if offset % size:
            return f"offset {offset} of dimension {dim} touches the {size}-element tile", None
        step = size
        while step < full:
            index = [0] * len(dst.shape)
            index[dim] = step
            moved = int(parent.offsets[tuple(index)])
            if moved & (moved - 1):
                carry = np.argwhere(view.offsets[_grid(dst.shape)] & moved)
                example = None
                if len(carry):
                    at = tuple(int(i) for i in carry[0])
                    own = int(view.offsets[at])
                    example = {"index": at, "offset": own, "added": own + moved,
                               "xored": own ^ moved}  # fmt: skip
                return (
                    f"Triton's verifier refuses splitting along the swizzling pattern: "
                    f"{step} along dimension {dim} is offset {moved}, not a power of two"
                    + (
                        f" (a base offset added, not XORed: view element {example['index']} "
                        f"at {example['added']} instead of {example['xored']})"
                        if example
                        else ""
                    ),
                    example,
                )
            step *= 2
    return None


def check_trans(ctx: AuditContext, op: Operation, src: Type, dst: Type) -> None:
    """The result's layout is the source's with its dimensions permuted by ``order``."""
    rank = len(src.shape)
    order = op.attributes.integers("order") or ()
    if sorted(order) != list(range(rank)):
        _error(ctx, op, f"order {list(order)} is not a permutation of the {rank} dimensions")
        return
    parent, view = offset_table(ctx, src), offset_table(ctx, dst)
    moved = np.transpose(parent.offsets, order)
    if moved.shape != view.offsets.shape:
        _error(ctx, op, f"the result's allocation {view.offsets.shape} is not the source's "
               f"{parent.offsets.shape} permuted by {list(order)}")  # fmt: skip
        return
    mismatch = moved != view.offsets
    if mismatch.any():
        index = _first(mismatch)
        source = tuple(index[order.index(k)] for k in range(rank))
        got, want = int(view.offsets[index]), int(moved[index])
        _replay(view, got, index)
        _replay(parent, want, source)
        _error(ctx, op, f"element {index} of the result is at offset {got}, but its source "
               f"element {source} is at offset {want}: the result's layout is not the "
               f"source's transposed by {list(order)}", order=list(order),
               counterexample={"index": index, "source_index": source, "view_offset": got,
               "source_offset": want})  # fmt: skip
        return
    _prove(ctx, op, int(moved.size), f"the result is the source transposed by {list(order)}",
           order=list(order))  # fmt: skip


def check_reshape(ctx: AuditContext, op: Operation, src: Type, dst: Type) -> None:
    """Both layouts put every element of the row-major order at the same offset."""
    if src.alloc_shape != src.shape or dst.alloc_shape != dst.shape:
        ctx.skip(op, NAME, "a reshape of a subslice view (Triton refuses it)")
        return
    parent, view = offset_table(ctx, src), offset_table(ctx, dst)
    flat_src, flat_dst = parent.offsets.reshape(-1), view.offsets.reshape(-1)
    if flat_src.size != flat_dst.size:
        _error(ctx, op, f"{src.shape} and {dst.shape} hold different numbers of elements")
        return
    mismatch = flat_src != flat_dst
    if mismatch.any():
        flat = int(np.argmax(mismatch))
        index = tuple(int(i) for i in np.unravel_index(flat, dst.shape))
        source = tuple(int(i) for i in np.unravel_index(flat, src.shape))
        got, want = int(flat_dst[flat]), int(flat_src[flat])
        _replay(view, got, index)
        _replay(parent, want, source)
        _error(ctx, op, f"element {index} of the result is at offset {got}, but the same "
               f"row-major element {source} of the source is at offset {want}",
               counterexample={"index": index, "source_index": source, "view_offset": got,
               "source_offset": want})  # fmt: skip
        return
    _prove(ctx, op, int(flat_src.size), "the result is the source reshaped in row-major order")


def _holdings(layout: LinearLayout) -> tuple[np.ndarray, np.ndarray, list[tuple[str, int]]]:
    """For every hardware input (flat, register least significant): its thread (the other
    in dims flattened) and its logical index; and the in dims with their sizes."""
    values = evaluate_all(layout)
    coords = np.stack([np.asarray(values[d], dtype=np.int64) for d in layout.get_out_dim_names()])
    regs = layout.get_in_dim_size("register") if layout.has_in_dim("register") else 1
    thread = np.arange(coords.shape[1], dtype=np.int64) // regs
    dims = [(d, layout.get_in_dim_size(d)) for d in layout.get_in_dim_names()]
    return thread, coords, dims


def _input(dims: list[tuple[str, int]], flat: int) -> dict[str, int]:
    out = {}
    for name, size in dims:
        out[name], flat = flat % size, flat // size
    return out


def _threads(dims: list[tuple[str, int]]) -> list[tuple[str, int]]:
    return [(d, s) for d, s in dims if d != "register" and s > 1]


def check_tensor_view(ctx: AuditContext, op: Operation, tensors: list[Type]) -> None:
    """``amdg.extract_slice`` / ``amdg.concat``: each thread holds every element of the
    result it needs in its own registers of the source (operands)."""
    result = tensors[-1]
    picked = _view_sources(op, tensors)
    if isinstance(picked, str):
        _error(ctx, op, picked)
        return
    sources, offsets = picked
    piece = sources[0].shape
    r_thread, r_coords, r_dims = _holdings(ctx.layout(result))
    keys = _source_keys(ctx, sources, r_dims)
    if isinstance(keys, str):
        _error(ctx, op, keys)
        return
    numel = int(np.prod(piece))
    element = r_coords + np.asarray(offsets, dtype=np.int64)[:, None]
    grid = (
        [1] * len(result.shape)
        if op.name != "amdg.concat"
        else [r // p for r, p in zip(result.shape, piece)]
    )
    tile = np.ravel_multi_index(tuple(element // np.asarray(piece)[:, None]), grid)
    local = np.ravel_multi_index(tuple(element % np.asarray(piece)[:, None]), piece)
    wanted = (tile * (int(r_thread.max()) + 1) + r_thread) * numel + local
    missing = ~np.isin(wanted, keys)
    if missing.any():
        flat = int(np.argmax(missing))
        operand = int(tile[flat])
        ins = _input(r_dims, flat)
        index = tuple(int(v) for v in r_coords[:, flat])
        at = tuple(int(v) for v in element[:, flat] % np.asarray(piece))
        _replay_not_held(ctx, (result, sources[operand]), ins, index, at, r_dims)
        what = "source" if op.name != "amdg.concat" else f"operand {operand}"
        _error(ctx, op, f"{ins} holds element {index} of the result, but that thread does not "
               f"hold element {at} in the {what}: the layout needs data movement between "
               "threads", counterexample={"input": ins, "index": index, "source_index": at,
               "operand": operand})  # fmt: skip
        return
    refused = _thread_bases_differ(ctx, op, sources, result)
    if refused is not None:
        _error(ctx, op, refused.pop("summary"), counterexample=refused)
        return
    what = {"amdg.extract_slice": "slice", "amdg.concat": "concatenation"}.get(
        op.name, "transposed"
    )
    _prove(ctx, op, int(r_coords.shape[1]), f"each thread holds its {what} elements in its own "
           "registers (no data movement)")  # fmt: skip


def _thread_bases_differ(
    ctx: AuditContext, op: Operation, sources: list[Type], result: Type
) -> dict[str, Any] | None:
    """Triton 3.9's verifier rule for ``amdg.extract_slice`` and ``amdg.concat`` ("Lane and
    warp dim basis must match between source and destination layout", the TritonAMDGPU
    dialect's op verifiers, since triton#6417 relaxed the extract_slice verifier to linear
    layouts): their lowering moves registers only, so each lane and warp bit must step the
    same element in the source and the result.  A tensor smaller than the layout's CTA tile
    (the small shapes issue 29 cites as triton#6495) broadcasts other bits than the larger
    one, and is refused even where every thread happens to hold its elements.  The first
    differing basis, or None."""
    if op.name == "amdg.in_thread_transpose":
        return None
    wanted = dict(ctx.layout(result).bases)
    for index, source in enumerate(sources):
        held = dict(ctx.layout(source).bases)
        for dim in ("lane", "warp"):
            for bit, (a, b) in enumerate(zip(held.get(dim, []), wanted.get(dim, []))):
                if list(a) != list(b):
                    what = "source" if op.name != "amdg.concat" else f"operand {index}"
                    return {
                        "summary": (
                            f"{dim} bit {bit} steps element {list(a)} in the {what} but "
                            f"{list(b)} in the result: Triton 3.9's verifier refuses it (lane "
                            "and warp bases must match; a tensor smaller than its layout's "
                            "CTA tile broadcasts other bits)"
                        ),
                        "dim": dim, "bit": bit, "operand": index,
                        "source_basis": list(a), "result_basis": list(b),
                    }  # fmt: skip
    return None


def _view_sources(op: Operation, tensors: list[Type]) -> tuple[list[Type], tuple[int, ...]] | str:
    """The tensors a register view reads and the offsets of the result in them, or why
    their shapes do not fit."""
    result = tensors[-1]
    rank = len(result.shape)
    if op.name == "amdg.in_thread_transpose":  # a register permutation within each thread
        if tensors[0].shape != result.shape:
            return f"the result's shape {result.shape} is not the source's {tensors[0].shape}"
        return tensors[:1], (0,) * rank
    if op.name == "amdg.extract_slice":
        offsets = subslice_offsets(op)
        if len(offsets) != rank or any(
            o < 0 or o + d > s for o, d, s in zip(offsets, result.shape, tensors[0].shape)
        ):
            return (
                f"offsets {list(offsets)} put the {result.shape} slice outside the "
                f"{tensors[0].shape} source"
            )
        return tensors[:1], offsets
    sources, piece = tensors[:-1], tensors[0].shape
    if (
        any(s.shape != piece for s in sources)
        or any(r % p for r, p in zip(result.shape, piece))
        or int(np.prod([r // p for r, p in zip(result.shape, piece)])) != len(sources)
    ):
        return f"{len(sources)} operands of shape {piece} do not tile {result.shape}"
    return sources, (0,) * rank


def _source_keys(
    ctx: AuditContext, sources: list[Type], r_dims: list[tuple[str, int]]
) -> np.ndarray | str:
    """(source, thread, element) of every register of the sources, as one key each, or why
    a source's threads are not the result's."""
    piece = sources[0].shape
    numel = int(np.prod(piece))
    keys = []
    for i, source in enumerate(sources):
        thread, coords, dims = _holdings(ctx.layout(source))
        if _threads(dims) != _threads(r_dims):
            return f"the source's threads {_threads(dims)} are not the result's {_threads(r_dims)}"
        flat = np.ravel_multi_index(tuple(coords), piece)
        keys.append((i * (int(thread.max()) + 1) + thread) * numel + flat)
    return np.concatenate(keys)


def _replay_not_held(
    ctx: AuditContext,
    tensors: tuple[Type, Type],
    ins: dict[str, int],
    index: tuple[int, ...],
    at: tuple[int, ...],
    r_dims: list[tuple[str, int]],
) -> None:
    """Replay a counterexample on the layouts: result input ``ins`` holds ``index``, and no
    register of its thread in the source holds ``at`` (else an internal error)."""
    result, source = tensors
    if tuple(ctx.layout(result).apply(ins).values()) != index:
        raise LLVerifyError(f"internal error: {ins} does not replay to {index}")
    held = ctx.layout(source)
    owner = {d: ins[d] for d, _ in _threads(r_dims)}
    for reg in range(held.get_in_dim_size("register")):
        probe = {d: 0 for d in held.get_in_dim_names()} | owner | {"register": reg}
        if tuple(held.apply(probe).values()) == at:
            raise LLVerifyError(f"internal error: {probe} holds {at}")


def check_view(ctx: AuditContext, op: Operation) -> None:
    """Dispatch one view operation to its check."""
    if op.name in _TENSOR_OPS:
        tensors = [t for t in op.types if t.kind == "tensor" and t.encoding]
        if len(tensors) < 2:
            ctx.skip(op, NAME, "could not read the source and result tensor types")
            return
        check_tensor_view(ctx, op, tensors)
        return
    memdescs = [t for t in op.types if t.kind == "memdesc"]
    if len(memdescs) < 2:
        ctx.skip(op, NAME, "could not read the source and result memdesc types")
        return
    src, dst = memdescs[0], memdescs[-1]
    checks = {
        "ttg.memdesc_index": check_index,
        "ttg.memdesc_subslice": check_subslice,
        "ttg.memdesc_trans": check_trans,
        "ttg.memdesc_reshape": check_reshape,
    }
    if op.name == "ttg.memdesc_index":  # its verdict depends on its two types alone
        _index_once(ctx, op, src, dst)
        return
    try:
        checks[op.name](ctx, op, src, dst)
    except NotModelledError as why:
        ctx.skip(op, NAME, str(why))


def _index_once(ctx: AuditContext, op: Operation, src: Type, dst: Type) -> None:
    """:func:`check_index` worked out once per source and result type in an audit: a later
    op of the same types gets a copy of the first one's finding (an op whose check skipped
    it or raised is checked again each time)."""
    memo = ctx.state.setdefault(f"{NAME}:index", {})
    found = memo.get((src, dst))
    if found is not None:
        ctx.finding(op, found.status, found.summary, rule=NAME, data=copy.deepcopy(found.data))
        return
    before = len(ctx.findings), len(ctx.skips)
    try:
        check_index(ctx, op, src, dst)
    except NotModelledError as why:
        ctx.skip(op, NAME, str(why))
    if len(ctx.skips) == before[1] and len(ctx.findings) == before[0] + 1:
        memo[(src, dst)] = ctx.findings[-1]


RULES = (
    Rule(
        NAME,
        _MEMDESC_OPS | _TENSOR_OPS,
        check_view,
        "memdesc_index/subslice/trans/reshape and AMD extract_slice/concat: the result's "
        "layout is the source's restricted, transposed, reshaped or tiled; Triton's subslice "
        "offset rule",
    ),
)
