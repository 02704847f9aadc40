"""Audit rule ``store-writer``: the one thread and register that writes each address of a
``tt.store``, ``tt.atomic_rmw`` or ``tt.atomic_cas``, from the layout's free-variable masks:
the predicate the lowering must emit.

A distributed layout may hold one element in several registers, lanes, warps or CTAs (its
free variables: input bits whose basis adds nothing new).  The representative copy is the one
with every free bit zero; since the pivot bits are independent and span the layout's image,
the representatives hold every element exactly once.  Triton 3.9 writes that copy only: its
store and atomic lowerings AND ``(id & mask) == 0`` over lane, warp and block
(``emitRedundantThreadPredicate`` in lib/Conversion/TritonGPUToLLVM/Utility.cpp) and skip the
registers with a free bit set (``isCanonicalIndex``).  On NVIDIA the lane and warp tests fold
into one test of the thread id (:attr:`Writers.thread_mask`), as in the emitted LLVM IR.

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    ...   tt.store %p, %v : tensor<2x8x!tt.ptr<f32>, #b>
    ... }'''
    >>> f = audit(text).findings[0]
    >>> f.rule, str(f.status), f.data["predicate"], f.data["thread_mask"]
    ('store-writer', 'ok', 'lane & 0b10000 == 0 and warp & 0b11 == 0', 112)
"""  # noqa: E501

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llverify.audit.context import AuditContext, Rule, Severity
from llverify.errors import LLVerifyError
from llverify.layout import LinearLayout
from llverify.ttgir import Operation

__all__ = ["RULES", "Writers", "describe_copies", "scalar_writers", "writers"]

NAME = "store-writer"

#: the hardware input dims whose copies the lowering predicates, in Triton's order
THREAD_DIMS = ("lane", "warp", "block")


@dataclass(frozen=True)
class Writers:
    """Which copy of each element of a distributed layout is the representative one.

    ``free``: input dim -> its free-variable mask (only the nonzero ones); ``copies``: how
    many (register, lane, warp, block) inputs hold each element; ``lanes``: the layout's lane
    count; ``witness``: when there are copies, two inputs that hold one element (replayed:
    the layout maps both to ``element``), else None.
    """

    free: dict[str, int]
    copies: int
    lanes: int
    witness: dict[str, Any] | None

    @property
    def predicate(self) -> str:
        """The thread predicate, e.g. ``"lane & 0b11000 == 0 and warp & 0b10 == 0"``, or
        ``"true"`` when no lane, warp or block holds a copy."""
        tests = [f"{d} & 0b{self.free[d]:b} == 0" for d in THREAD_DIMS if self.free.get(d)]
        return " and ".join(tests) or "true"

    @property
    def thread_mask(self) -> int:
        """The lane and warp tests as one mask of the thread id (``tid & mask == 0``), lanes
        being the low bits of the thread id."""
        shift = max(self.lanes.bit_length() - 1, 0)
        return self.free.get("lane", 0) | (self.free.get("warp", 0) << shift)

    @property
    def skipped_registers(self) -> int:
        """The mask of register bits whose registers are copies (skipped when set)."""
        return self.free.get("register", 0)

    def describe(self) -> str:
        """One sentence: who writes each address."""
        if self.copies == 1:
            return "no copies: each element is held once, every thread writes its own"
        if self.witness is None:
            text = f"a scalar all {self.copies} threads hold; written once, by {self.predicate}"
        else:
            text = f"each element is held {self.copies} times; written once, by {self.predicate}"
        if self.free.get("warp") or self.free.get("lane"):
            text += f" (tid & 0x{self.thread_mask:x} == 0)"
        if self.skipped_registers:
            text += f", registers r with r & 0b{self.skipped_registers:b} != 0 skipped"
        return text


def describe_copies(free: dict[str, int]) -> str:
    """The free bits as text, e.g. ``"register 0b100, lane 0b11000"``, or ``"none"``.

    >>> describe_copies({"register": 4, "lane": 24, "warp": 0})
    'register 0b100, lane 0b11000'
    """
    return ", ".join(f"{d} 0b{m:b}" for d, m in free.items() if m) or "none"


def writers(layout: LinearLayout) -> Writers:
    """The representative writer of each element of ``layout`` (a distributed layout:
    register/lane/warp/block -> tensor dims), with a replayed witness of one copy.

    >>> from llverify.encodings import to_linear_layout
    >>> w = writers(to_linear_layout("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>", [16]))
    >>> w.free, w.copies, w.predicate, hex(w.thread_mask)
    ({'lane': 16, 'warp': 3}, 8, 'lane & 0b10000 == 0 and warp & 0b11 == 0', '0x70')
    >>> w.witness["first"], w.witness["second"], w.witness["element"]
    ({'lane': 0}, {'lane': 16}, {'dim0': 0})
    """  # noqa: E501
    if not isinstance(layout, LinearLayout):
        raise TypeError(f"layout: expected a LinearLayout, got {type(layout).__name__}")
    masks = layout.get_free_variable_masks()
    free = {d: m for d, m in masks.items() if m}
    copies = 1 << sum(m.bit_count() for m in free.values())
    lanes = layout.get_in_dim_size("lane") if layout.has_in_dim("lane") else 1
    witness = None
    if free:
        dim, mask = next(iter(free.items()))
        bit = mask & -mask
        zero = {d: 0 for d in layout.get_in_dim_names()}
        first, second = layout.apply(zero), layout.apply({**zero, dim: bit})
        if first != second:  # a free variable always has a copy; a mismatch is a bug here
            raise LLVerifyError(
                f"free bit {dim}={bit} of the layout does not replay as a copy: {first} != {second}"
            )
        witness = {"first": {dim: 0}, "second": {dim: bit}, "element": first}
    return Writers(free, copies, lanes, witness)


def scalar_writers(threads_per_warp: int, num_warps: int, num_ctas: int = 1) -> Writers:
    """The writer of a scalar every thread holds: Triton 3.9 treats every lane, warp and
    block bit as free (``getAllFreeVarMasks``), so thread 0 of CTA 0 writes it.

    >>> w = scalar_writers(32, 4)
    >>> w.predicate, w.thread_mask, w.copies
    ('lane & 0b11111 == 0 and warp & 0b11 == 0', 127, 128)
    """
    for name, value in (
        ("threads_per_warp", threads_per_warp),
        ("num_warps", num_warps),
        ("num_ctas", num_ctas),
    ):
        if not isinstance(value, int) or value < 1 or value & (value - 1):
            raise ValueError(f"{name}: expected a power of 2 >= 1, got {value!r}")
    sizes = {"lane": threads_per_warp, "warp": num_warps, "block": num_ctas}
    free = {d: size - 1 for d, size in sizes.items() if size > 1}
    return Writers(free, threads_per_warp * num_warps * num_ctas, threads_per_warp, None)


def _writers(ctx: AuditContext, encoding: str, shape: tuple[int, ...], layout: Any) -> Writers:
    cache = ctx.state.setdefault(NAME, {})
    key = (encoding, shape)
    if key not in cache:
        cache[key] = writers(layout)
    found: Writers = cache[key]
    return found


def check_store(ctx: AuditContext, op: Operation) -> None:
    """State the representative writer of each address the operation writes."""
    tensor = next((t for t in op.types if t.kind == "tensor" and t.encoding), None)
    module = ctx.module
    if tensor is not None:
        w = _writers(ctx, tensor.encoding, tensor.shape, ctx.layout(tensor))
    elif op.types or not (module.threads_per_warp and module.num_warps):
        ctx.skip(op, NAME, "neither a distributed tensor nor a scalar with known warps")
        return
    else:  # a scalar: every thread holds it
        w = scalar_writers(module.threads_per_warp, module.num_warps, module.num_ctas or 1)
    data: dict[str, Any] = {
        "free": w.free,
        "copies": w.copies,
        "predicate": w.predicate,
        "thread_mask": w.thread_mask,
        "skipped_registers": w.skipped_registers,
    }
    if w.witness is not None:
        data["witness"] = w.witness
    ctx.finding(op, Severity.OK, w.describe(), rule=NAME, data=data)


RULES = (
    Rule(
        NAME,
        frozenset({"tt.store", "tt.atomic_rmw", "tt.atomic_cas"}),
        check_store,
        "the representative writer of each stored address (the predicate the lowering emits)",
    ),
)
