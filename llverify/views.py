"""Triton's debug views of a layout, character for character.

Triton prints layouts two ways (``getDistributedLayoutStr`` / ``getSharedLayoutStr`` in
lib/Dialect/TritonGPU/IR/Dialect.cpp, reachable as ``triton-tensor-layout`` and the
LinearLayout binding's ``get_distributed_view`` / ``get_shared_view``):

* **tensor view**: the tensor in row-major order, nested brackets per dim; for a
  distributed layout each cell lists every ``T<thread>:<register>`` holding that element
  (``B<block>:`` first when there are several CTAs, ``|`` between copies, numbers padded to
  the widest); for a shared layout the cells are in *memory* order: cell ``i`` shows the
  coordinates ``(a:b)`` of the element at the ``i``-th (block, offset);
* **hardware view**: per block (distributed: only when there are several) and warp, one
  line per register listing each lane's element ``(a,b)``; for shared layouts one line per
  offset, ``Offset: o -> (a,b)``.

With ``max_cells``, a view larger than that is cut after the whole lines that hold at most
``max_cells`` cells (at least one line); those lines are Triton's, character for character,
and a last line says how many cells were left out.

Examples:
    >>> from llverify import LinearLayout
    >>> ll = LinearLayout.from_bases([("register", [[0, 1]]), ("lane", [[0, 2], [1, 0]]),
    ...     ("warp", [[2, 0]]), ("block", [])], ["dim0", "dim1"])
    >>> print(distributed_view(ll), end="")
    [[T0:0, T0:1, T1:0, T1:1]
    [ T2:0, T2:1, T3:0, T3:1]
    [ T4:0, T4:1, T5:0, T5:1]
    [ T6:0, T6:1, T7:0, T7:1]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from llverify.errors import DimensionError
from llverify.evaluate import evaluate_all
from llverify.layout import LinearLayout

__all__ = ["distributed_view", "shared_view", "layout_view"]

_MAX_ELEMENTS = 1 << 20  # views are for people; larger tensors are refused, not truncated


def _pad(value: int, limit: int) -> str:
    return " " * (len(str(limit)) - len(str(value))) + str(value)


def _size(layout: LinearLayout, dim: str) -> int:
    return layout.get_in_dim_size(dim) if layout.has_in_dim(dim) else 1


def _outputs(layout: LinearLayout, order: Sequence[str]) -> np.ndarray:
    """Output coordinates for every input, inputs enumerated with ``order`` slowest first:
    an array ``[n_inputs, n_out_dims]``."""
    full = layout
    for d in order:
        if not full.has_in_dim(d):
            full = full * LinearLayout.zeros_1d(1, d, full.get_out_dim_names()[0])
    values = evaluate_all(full.transpose_ins(list(reversed(order))), max_inputs=1 << 26)
    outs = layout.get_out_dim_names()
    return np.stack([np.asarray(values[o], dtype=np.int64) for o in outs], axis=1)


def _window(total: int, per_line: int, max_cells: int | None) -> int:
    """How many cells a view shows: all, or the whole lines of ``per_line`` cells that hold
    at most ``max_cells`` (at least one line)."""
    if max_cells is None or total <= max_cells:
        return total
    if max_cells < 1:
        raise ValueError(f"Argument 'max_cells' must be a positive int or None, not {max_cells}.")
    return min(total, max(1, max_cells // per_line) * per_line)


def _omitted(shown: int, total: int) -> str:
    if shown == total:
        return ""
    return f"... {total - shown} more cells not shown ({shown} of {total})\n"


def _check(layout: LinearLayout, expected: set[str]) -> None:
    extra = set(layout.get_in_dim_names()) - expected
    if extra:
        raise DimensionError(
            f"Argument 'layout' must have in dims within {sorted(expected)}, not "
            f"{layout.get_in_dim_names()}."
        )
    if layout.get_total_out_dim_size() > _MAX_ELEMENTS:
        raise DimensionError(
            f"Argument 'layout' has {layout.get_total_out_dim_size()} elements; views are "
            f"limited to {_MAX_ELEMENTS}."
        )


def _tensor_grid(cells: Sequence[str], shape: Sequence[int], separator: str) -> str:
    """Nested brackets in row-major order (Triton's layout of the tensor view); ``cells`` may
    be the first whole lines only."""
    rank = len(shape)
    total = len(cells)
    parts: list[str] = []
    new_line = True

    def digits(index: int) -> list[int]:
        out = [0] * rank
        for j in range(rank - 1, -1, -1):
            out[j] = index % shape[j]
            index //= shape[j]
        return out

    for i in range(total):
        indices = digits(i)
        opened = 0
        for j in range(rank - 1, -1, -1):
            if indices[j] != 0:
                break
            parts.append("[")
            opened += 1
        if new_line:
            parts.append(" " * (rank - opened))
            new_line = False
        parts.append(cells[i])
        following = digits(i + 1)
        for j in range(rank - 1, -1, -1):
            if following[j] != 0:
                break
            parts.append("]")
        if following[-1] == 0:
            parts.append("\n")
            new_line = True
        else:
            parts.append(separator)
    return "".join(parts)


def distributed_view(
    layout: LinearLayout, hardware: bool = False, max_cells: int | None = None
) -> str:
    """Triton's ``getDistributedLayoutStr`` (in dims register, lane, warp, block); with
    ``max_cells``, a window of whole lines (see the module's docstring).

    Examples:
        >>> ll = LinearLayout.identity_1d(4, "register", "dim0") * LinearLayout.identity_1d(
        ...     4, "lane", "dim1")
        >>> print(distributed_view(ll, max_cells=8), end="")
        [[T0:0, T1:0, T2:0, T3:0]
        [ T0:1, T1:1, T2:1, T3:1]
        ... 8 more cells not shown (8 of 16)
    """
    _check(layout, {"register", "lane", "warp", "block"})
    order = ["block", "warp", "lane", "register"]
    sizes = tuple(_size(layout, d) for d in order)
    shape = layout.get_out_dim_sizes()
    coords = _outputs(layout, order)
    if not hardware:
        return _distributed_tensor_view(coords, shape, sizes, max_cells)
    return _distributed_hardware_view(coords, shape, sizes, max_cells)


def _distributed_tensor_view(
    coords: np.ndarray, shape: list[int], sizes: tuple[int, ...], max_cells: int | None
) -> str:
    """The tensor view: each element lists its holders ``[B<block>:]T<thread>:<register>``,
    separated by ``|``, padded to the widest ids (``coords``: the inputs' outputs in
    Triton's order, ``sizes``: blocks, warps, lanes, registers)."""
    blocks, warps, lanes, regs = sizes
    strides = [int(np.prod(shape[i + 1 :], dtype=np.int64)) for i in range(len(shape))]
    linear = coords @ np.array(strides, dtype=np.int64)
    threads = warps * lanes
    total = int(np.prod(shape, dtype=np.int64))
    shown = _window(total, shape[-1] if shape else 1, max_cells)
    cells: list[str] = [""] * shown
    for n in np.flatnonzero(linear < shown).tolist():  # inputs in Triton's order
        index = int(linear[n])
        rest, reg = divmod(n, regs)
        rest, lane = divmod(rest, lanes)
        block, warp = divmod(rest, warps)
        thread = lane + warp * lanes
        text = "|" if cells[index] else ""
        pad = (
            len(str(blocks))
            - len(str(block))
            + len(str(threads))
            - len(str(thread))
            + len(str(regs))
            - len(str(reg))
        )
        text += " " * pad
        if blocks > 1:
            text += f"B{block}:"
        text += f"T{thread}:{reg}"
        cells[index] += text
    return _tensor_grid(cells, shape, ", ") + _omitted(shown, total)


def _distributed_hardware_view(
    coords: np.ndarray, shape: list[int], sizes: tuple[int, ...], max_cells: int | None
) -> str:
    """The hardware view: per block and warp, a line per register of every lane's element
    coordinates (``sizes``: blocks, warps, lanes, registers)."""
    blocks, warps, lanes, regs = sizes
    total = len(coords)
    shown = _window(total, lanes, max_cells)
    lines: list[str] = []
    for block in range(blocks):
        if blocks > 1:
            lines.append(f"Block{block}:\n")
        for warp in range(warps):
            base = (block * warps + warp) * lanes * regs
            if base >= shown:
                break
            lines.append(f"Warp{warp}:\n")
            for reg in range(regs):
                if base + reg * lanes >= shown:
                    break
                row = [
                    "(" + ",".join(_pad(int(v), s) for v, s in zip(coords[n], shape)) + ")"
                    for n in range(base + reg, base + lanes * regs, regs)
                ]
                lines.append(", ".join(row) + "\n")
        if (block + 1) * warps * lanes * regs >= shown:
            break
    return "".join(lines) + _omitted(shown, total)


def shared_view(layout: LinearLayout, hardware: bool = False, max_cells: int | None = None) -> str:
    """Triton's ``getSharedLayoutStr`` (in dims offset, block); with ``max_cells``, a window
    of whole lines (see the module's docstring)."""
    _check(layout, {"offset", "block"})
    order = ["block", "offset"]
    shape = layout.get_out_dim_sizes()
    total = int(np.prod(shape, dtype=np.int64))
    blocks, offsets = _size(layout, "block"), _size(layout, "offset")
    per_block = total // blocks  # Triton walks tensor-size / blocks offsets per block
    if per_block > offsets:
        raise DimensionError(
            f"Argument 'layout' has {offsets} offsets per block but {per_block} elements per "
            "block; Triton's shared view needs an offset for every element."
        )
    coords = _outputs(layout, order).reshape(blocks, offsets, len(shape))[:, :per_block]
    coords = coords.reshape(blocks * per_block, len(shape))
    total = len(coords)
    if not hardware:
        shown = _window(total, shape[-1] if shape else 1, max_cells)
        cells = [
            "(" + ":".join(_pad(int(v), s) for v, s in zip(row, shape)) + ")"
            for row in coords[:shown]
        ]
        return _tensor_grid(cells, shape, ",") + _omitted(shown, total)
    shown = _window(total, 1, max_cells)
    lines: list[str] = []
    n = 0
    for block in range(blocks):
        if n >= shown:
            break
        lines.append(f"Block: {block}:\n")
        for offset in range(min(per_block, shown - n)):
            row = coords[n]
            n += 1
            lines.append(
                f"Offset: {offset} -> ("
                + ",".join(_pad(int(v), s) for v, s in zip(row, shape))
                + ")\n"
            )
    return "".join(lines) + _omitted(shown, total)


def layout_view(layout: LinearLayout, hardware: bool = False, max_cells: int | None = None) -> str:
    """The view Triton prints for this layout: shared for an ``offset`` in dim, else
    distributed; with ``max_cells``, a window of whole lines (see the module's docstring)."""
    if layout.has_in_dim("offset"):
        return shared_view(layout, hardware, max_cells)
    return distributed_view(layout, hardware, max_cells)
