"""The generated validation sweep: small TTGIR kernels, one per layout family, op, dtype and warps.

Issue 19 part 5(a): each :class:`SweepCase` is a whole Triton 3.9 TTGIR module that the installed
Triton compiles (``scripts/validation_sweep.py`` compiles them all), holding one operation under
test.  Its operands are ``tt.load``-ed from pointer arguments, with the row-major offsets built by
``make_range`` / ``expand_dims`` / ``broadcast`` in the operand's own layout, and its results are
``tt.store``-d the same way, so the module is a kernel whose every input element and output
register can be tagged and checked.

Families: ``blocked``; ``slice`` (a 2-D slice of a 3-D blocked parent); ``nested_slice`` (a 2-D
slice of a slice of a 4-D blocked parent); ``linear`` (permuted unit bases, some broadcasting);
``mma_v2`` and ``mma_v3`` (``#ttg.nvidia_mma``); ``dot_op`` (``#ttg.dot_op`` of an MMA v2, MFMA,
WMMA or blocked parent); ``mfma`` (``#ttg.amd_mfma``, hip:gfx942); ``wmma`` (``#ttg.amd_wmma``,
hip:gfx1100); and the shared encodings ``swizzled_shared``, ``nvmma_shared``, ``padded_shared``.

Ops: ``convert`` (``ttg.convert_layout`` from or to a blocked layout, between two slices or two
linear layouts, between an MMA parent and its dot operand); ``reduce_add``,
``reduce_argmin`` (two outputs, ties to the lower index), ``reduce_first`` (``select(a != 0, a,
b)``: associative, not commutative), each on axis 0 and axis 1; ``scan`` and ``scan_reverse``
(``addf``/``addi`` or the non-commutative "first" combine); ``gather`` (indices masked into
range); ``histogram`` (1-D i32, inputs masked into the bins); ``local_load``
(``local_alloc %x`` then ``local_load``); ``local_store`` (an empty, sometimes double-buffered
``local_alloc``, ``memdesc_index``, ``local_store``, ``local_load``); ``dot_operand_load``
(``local_load`` of a shared tile into a ``#ttg.dot_op``); ``dot`` (``tt.dot``, or
``ttng.warp_group_dot`` from NVMMA shared memory on sm90).

Targets: cuda:80, cuda:90 (32 lanes), hip:gfx942 (64 lanes; MFMA, and blocked, slice and linear
layouts on 64-lane waves), hip:gfx1100 (32-lane RDNA3; WMMA version 1).  Dtypes i8, f16, bf16,
f32, i64, f64 (i32 for histograms; indices are i32).  Warps 1, 2, 4, 8, with warp grids such as
[4, 2] and [1, 2].

Notes on what Triton 3.9 refuses, and how the generators avoid it (all 568 cases compile):

* ``tt.scan`` lowers for blocked layouts only ("TODO: unsupported scan layout" for slices,
  linear, MMA, dot operands): scans are generated for the blocked family, whose variants
  include broadcast layouts (``variant % 4 == 3``: two lanes hold each element).
* ``#ttg.linear`` must be a permutation up to broadcast ("LinearEncodingAttr requires a
  permutation matrix layout after removing broadcast bases"): no XOR-mixed bases.
* ``histogram`` takes a 1-D i32 tensor: only the families with a 1-D form (blocked, slice,
  nested slice of a 3-D parent, linear).
* MMA v3 needs 4 or 8 warps (whole warp groups) and sm90; MFMA the 64-lane gfx942; WMMA
  version 1 the 32-lane gfx1100 (which Triton 3.9 compiles).
* ``dot``: the FMA lowering of a blocked parent needs the accumulator of the operands' type
  (f16 x f16 -> f32 aborts in FMA.cpp); ``warp_group_dot`` reads i8 and tf32 operands
  K-major only, so B is stored transposed (``nvmma_shared`` ``transposed = true``), else
  "WGMMA type or shape is not supported"; gfx942 has no tf32 MFMA at [32, 32, 2] or
  [16, 16, 4], so f32 MFMA dots use ``inputPrecision = ieee``; 64-bit operands use a blocked
  (FMA) parent, as no MMA takes them here.
* ``nvmma_shared`` needs the contiguous dim to hold at least the swizzle width in bytes.
* A warp-local ``tt.gather`` unrolls into selects over every source register (a 1-warp
  32x64 f32 gather took 100 s to compile), so gathers use half the shape per dim.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from llverify.hardware import DTYPE_BITS, TARGETS

__all__ = ["DTYPES", "FAMILIES", "OPS", "SWEPT_TARGETS", "WARPS", "SweepCase", "sweep_cases"]

#: The layout families of the sweep.
FAMILIES = (
    "blocked",
    "slice",
    "nested_slice",
    "linear",
    "mma_v2",
    "mma_v3",
    "dot_op",
    "mfma",
    "wmma",
    "swizzled_shared",
    "nvmma_shared",
    "padded_shared",
)
#: The operations under test.
OPS = (
    "convert",
    "reduce_add",
    "reduce_argmin",
    "reduce_first",
    "scan",
    "scan_reverse",
    "gather",
    "histogram",
    "local_load",
    "local_store",
    "dot_operand_load",
    "dot",
)
#: Element types of the data (histograms count i32 values).
DTYPES = ("i8", "f16", "bf16", "f32", "i64", "f64", "i32")
#: Warps per CTA.
WARPS = (1, 2, 4, 8)
#: The swept targets of :data:`llverify.hardware.TARGETS`, by their Triton target (``ttg.target``).
SWEPT_TARGETS = {
    TARGETS[name].triton: TARGETS[name] for name in ("sm80", "sm90", "gfx942", "gfx1100")
}

_DATA_DTYPES = ("i8", "f16", "bf16", "f32", "i64", "f64")
# warp grids of a 2-D layout, per warp count, non-square ones included
_GRIDS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((2, 1), (1, 2)),
    4: ((2, 2), (4, 1), (1, 4)),
    8: ((4, 2), (2, 4), (8, 1)),
}


@dataclass(frozen=True)
class SweepCase:
    """One generated kernel: its unique ``name``, what it covers and the TTGIR ``text``."""

    name: str
    family: str
    op: str
    dtype: str
    num_warps: int
    target: str
    text: str


def _is_float(dtype: str) -> bool:
    return dtype.startswith(("f", "bf"))


def _tensor(shape: Sequence[int], elem: str, layout: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{elem}, {layout}>"


def _memdesc(shape: Sequence[int], elem: str, shared: str, mutable: bool) -> str:
    extra = ", mutable" if mutable else ""
    return f"!ttg.memdesc<{'x'.join(map(str, shape))}x{elem}, {shared}, #smem{extra}>"


def _slice(dim: int, parent: str) -> str:
    return f"#ttg.slice<{{dim = {dim}, parent = {parent}}}>"


def _zero(dtype: str) -> str:
    return "0.000000e+00" if _is_float(dtype) else "0"


class _Kernel:
    """A kernel under construction: layout aliases, pointer arguments and body lines."""

    def __init__(self, target: str, num_warps: int) -> None:
        self.target = target
        self.num_warps = num_warps
        self.lanes = SWEPT_TARGETS[target].lanes
        self._aliases: dict[str, str] = {}
        self._args: list[str] = []
        self._lines: list[str] = []
        self._count = 0

    def alias(self, stem: str, text: str) -> str:
        """The alias naming ``text`` (``#blocked``, ``#blocked1``, ...), defined once."""
        for name, value in self._aliases.items():
            if value == text:
                return name
        taken = sum(1 for name in self._aliases if name.rstrip("0123456789") == "#" + stem)
        name = f"#{stem}{taken or ''}"
        self._aliases[name] = text
        return name

    def fresh(self) -> str:
        self._count += 1
        return f"%{self._count - 1}"

    def emit(self, rhs: str) -> str:
        name = self.fresh()
        self._lines.append(f"{name} = {rhs}")
        return name

    def stmt(self, text: str) -> None:
        self._lines.append(text)

    def pointer(self, elem: str) -> str:
        self._args.append(elem)
        return f"%arg{len(self._args) - 1}"

    def constant(self, value: int, shape: Sequence[int], layout: str) -> str:
        return self.emit(f"arith.constant dense<{value}> : {_tensor(shape, 'i32', layout)}")

    def offsets(self, shape: Sequence[int], layout: str) -> str:
        """A tensor of ``shape`` in ``layout`` holding each element's row-major offset."""
        rank = len(shape)
        total = None
        for dim in range(rank):
            chain = [layout]
            for other in reversed(range(rank)):
                if other != dim:
                    chain.append(_slice(other, chain[-1]))
            value = self.emit(
                f"tt.make_range {{end = {shape[dim]} : i32, start = 0 : i32}} : "
                f"{_tensor([shape[dim]], 'i32', chain[-1])}"
            )
            current = [shape[dim]]
            for other in range(rank):
                if other == dim:
                    continue
                expanded = current[:other] + [1] + current[other:]
                value = self.emit(
                    f"tt.expand_dims {value} {{axis = {other} : i32}} : "
                    f"{_tensor(current, 'i32', chain[-1])} -> "
                    f"{_tensor(expanded, 'i32', chain[-2])}"
                )
                chain.pop()
                current = expanded
            stride = 1
            for size in shape[dim + 1 :]:
                stride *= size
            if stride != 1:
                factor = self.constant(stride, current, layout)
                value = self.emit(
                    f"arith.muli {value}, {factor} : {_tensor(current, 'i32', layout)}"
                )
            if list(current) != list(shape):
                value = self.emit(
                    f"tt.broadcast {value} : {_tensor(current, 'i32', layout)} -> "
                    f"{_tensor(shape, 'i32', layout)}"
                )
            if total is None:
                total = value
            else:
                total = self.emit(f"arith.addi {total}, {value} : {_tensor(shape, 'i32', layout)}")
        assert total is not None
        return total

    def pointers(self, elem: str, shape: Sequence[int], layout: str) -> str:
        arg = self.pointer(elem)
        offsets = self.offsets(shape, layout)
        ptrs = _tensor(shape, f"!tt.ptr<{elem}>", layout)
        splat = self.emit(f"tt.splat {arg} : !tt.ptr<{elem}> -> {ptrs}")
        return self.emit(f"tt.addptr {splat}, {offsets} : {ptrs}, {_tensor(shape, 'i32', layout)}")

    def load(self, elem: str, shape: Sequence[int], layout: str) -> str:
        ptrs = self.pointers(elem, shape, layout)
        return self.emit(f"tt.load {ptrs} : {_tensor(shape, f'!tt.ptr<{elem}>', layout)}")

    def store(self, value: str, elem: str, shape: Sequence[int], layout: str) -> None:
        ptrs = self.pointers(elem, shape, layout)
        self.stmt(f"tt.store {ptrs}, {value} : {_tensor(shape, f'!tt.ptr<{elem}>', layout)}")

    def text(self) -> str:
        head = [f"{name} = {value}" for name, value in self._aliases.items()]
        if any("#smem" in line for line in self._lines):
            head.append("#smem = #ttg.shared_memory")
        args = ", ".join(
            f"%arg{i}: !tt.ptr<{elem}> {{tt.divisibility = 16 : i32}}"
            for i, elem in enumerate(self._args)
        )
        body = "\n".join("    " + line for line in self._lines)
        return (
            "\n".join(head)
            + "\nmodule attributes {"
            + f'"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {self.num_warps} : i32, '
            + f'ttg.target = "{self.target}", "ttg.threads-per-warp" = {self.lanes} : i32}} {{\n'
            + f"  tt.func public @sweep_kernel({args}) attributes {{noinline = false}} {{\n"
            + body
            + "\n    tt.return\n  }\n}\n"
        )


# ---------------------------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------------------------


def _split(total: int, extent: int) -> tuple[int, int]:
    """(along the fast dim, along the slow dim) for ``total`` threads over a fast extent."""
    fast = max(1, min(total, extent))
    return fast, total // fast


def _blocked(shape: Sequence[int], lanes: int, grid: Sequence[int], bits: int, variant: int) -> str:
    """A blocked layout of rank ``len(shape)``: order fast-to-slow is the last dim first, or the
    first dim first for an odd ``variant``; when ``variant % 4 == 3`` a thread holds the whole
    fast dim and two lanes hold each element (a broadcast layout)."""
    rank = len(shape)
    order = list(range(rank))[::-1] if variant % 2 == 0 else list(range(rank))
    fast = order[0]
    vec = max(1, min(64 // bits, shape[fast] // 2 or 1)) if variant % 3 != 2 else 1
    size = [1] * rank
    threads = [1] * rank
    remaining = lanes
    rest = order
    if variant % 4 == 3 and rank > 1:
        vec, threads[fast], remaining, rest = shape[fast], 2, lanes // 2, order[1:]
    size[fast] = vec
    for dim in rest:
        along, remaining = _split(remaining, max(1, shape[dim] // size[dim]))
        threads[dim] = along
    threads[order[-1]] *= remaining
    warps = [1] * rank
    if rank == len(grid):
        warps = list(grid)
    else:
        warps[order[-1]] = grid[0] * grid[1]
    return (
        f"#ttg.blocked<{{sizePerThread = {size}, threadsPerWarp = {threads}, "
        f"warpsPerCTA = {warps}, order = {order}}}>"
    )


def _linear(shape: Sequence[int], lanes: int, warps: int, variant: int) -> str:
    """A distributed linear layout over ``shape``: unit bases in a seeded order (Triton 3.9
    accepts only permutations, up to broadcast), and for odd ``variant`` one broadcast (zero)
    warp or lane basis."""
    rank = len(shape)
    units = [
        [1 << bit if d == dim else 0 for d in range(rank)]
        for dim in reversed(range(rank))
        for bit in range(shape[dim].bit_length() - 1)
    ]
    rng = random.Random(f"linear-{shape}-{lanes}-{warps}-{variant}")
    head, tail = units[:2], units[2:]
    rng.shuffle(tail)
    units = head + tail
    lane_bits, warp_bits = lanes.bit_length() - 1, warps.bit_length() - 1
    broadcast = variant % 2 == 1 and lane_bits + warp_bits > 0
    register_count = len(units) - lane_bits - warp_bits + (1 if broadcast else 0)
    register, rest = units[:register_count], units[register_count:]
    lane, warp = rest[:lane_bits], rest[lane_bits:]
    if broadcast:
        zero = [0] * rank
        if warp_bits:
            warp = [zero, *warp]
        else:
            lane = [*lane, zero]
    return f"#ttg.linear<{{register = {register}, lane = {lane}, warp = {warp}, block = []}}>"


def _mma_v2(grid: Sequence[int]) -> str:
    return (
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
        f"warpsPerCTA = {list(grid)}, instrShape = [16, 8]}}>"
    )


def _mma_v3(grid: Sequence[int], n: int, bits: int) -> str:
    k = 256 // max(bits, 8) if bits <= 32 else 8
    return (
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, "
        f"warpsPerCTA = {list(grid)}, instrShape = [16, {n}, {k}]}}>"
    )


def _mfma(grid: Sequence[int], bits: int, variant: int) -> str:
    if bits == 8:
        instr = [32, 32, 16] if variant % 2 == 0 else [16, 16, 32]
    elif bits == 32:
        instr = [32, 32, 2] if variant % 2 == 0 else [16, 16, 4]
    else:
        instr = [32, 32, 8] if variant % 2 == 0 else [16, 16, 16]
    transposed = "true" if variant % 2 == 0 else "false"
    return (
        f"#ttg.amd_mfma<{{version = 3, warpsPerCTA = {list(grid)}, instrShape = {instr}, "
        f"isTransposed = {transposed}}}>"
    )


def _wmma(warps: int, variant: int) -> str:
    bases = [[[1, 0]], [[1, 0], [0, 1]], [[1, 0], [2, 0], [0, 1]]]
    warp = bases[warps.bit_length() - 2] if warps > 1 else []
    transposed = "true" if variant % 2 else "false"
    cta = f"{{warp = {warp}}}"
    return f"#ttg.amd_wmma<{{version = 1, isTranspose = {transposed}, ctaLayout = {cta}}}>"


def _swizzled(variant: int, bits: int, rank: int = 2) -> str:
    order = list(range(rank))[::-1] if variant % 3 != 2 else list(range(rank))
    vec = max(1, 128 // bits)
    params = [(vec, 1, 8), (1, 1, 1), (vec, 2, 4), (max(1, vec // 2), 1, 4)][variant % 4]
    return (
        f"#ttg.swizzled_shared<{{vec = {params[0]}, perPhase = {params[1]}, "
        f"maxPhase = {params[2]}, order = {order}}}>"
    )


def _nvmma(bits: int, inner_bytes: int, transposed: bool = False) -> str:
    width = min(128, inner_bytes)
    return (
        f"#ttg.nvmma_shared<{{swizzlingByteWidth = {width}, transposed = "
        f"{'true' if transposed else 'false'}, elementBitWidth = {bits}}}>"
    )


def _padded(shape: Sequence[int], variant: int) -> str:
    pairs = ["[32:+4]", "[64:+1]", "[16:+2, 64:+4]", "[128:+8]"][variant % 4]
    order = [1, 0] if variant % 3 != 2 else [0, 1]
    return f"#ttg.padded_shared<{pairs} {{order = {order}, shape = {list(shape)}}}>"


# ---------------------------------------------------------------------------------------------
# Combine regions
# ---------------------------------------------------------------------------------------------


def _region(kernel: _Kernel, kind: str, dtype: str, terminator: str) -> list[str]:
    """The body lines of a reduce/scan combine region over ``dtype`` (and i32 for argmin)."""
    a, b = kernel.fresh(), kernel.fresh()
    cmp, pred = ("arith.cmpf", "o") if _is_float(dtype) else ("arith.cmpi", "s")
    if kind == "add":
        add = "arith.addf" if _is_float(dtype) else "arith.addi"
        out = kernel.fresh()
        return [
            f"^bb0({a}: {dtype}, {b}: {dtype}):",
            f"  {out} = {add} {a}, {b} : {dtype}",
            f"  {terminator} {out} : {dtype}",
        ]
    if kind == "first":
        zero, nonzero, out = kernel.fresh(), kernel.fresh(), kernel.fresh()
        ne = "une" if _is_float(dtype) else "ne"
        return [
            f"^bb0({a}: {dtype}, {b}: {dtype}):",
            f"  {zero} = arith.constant {_zero(dtype)} : {dtype}",
            f"  {nonzero} = {cmp} {ne}, {a}, {zero} : {dtype}",
            f"  {out} = arith.select {nonzero}, {a}, {b} : {dtype}",
            f"  {terminator} {out} : {dtype}",
        ]
    ai, bi = kernel.fresh(), kernel.fresh()
    lt, eq, ilt, tie, pick, val, idx = (kernel.fresh() for _ in range(7))
    return [
        f"^bb0({a}: {dtype}, {ai}: i32, {b}: {dtype}, {bi}: i32):",
        f"  {lt} = {cmp} {pred}lt, {a}, {b} : {dtype}",
        f"  {eq} = {cmp} {'oeq' if _is_float(dtype) else 'eq'}, {a}, {b} : {dtype}",
        f"  {ilt} = arith.cmpi slt, {ai}, {bi} : i32",
        f"  {tie} = arith.andi {eq}, {ilt} : i1",
        f"  {pick} = arith.ori {lt}, {tie} : i1",
        f"  {val} = arith.select {pick}, {a}, {b} : {dtype}",
        f"  {idx} = arith.select {pick}, {ai}, {bi} : i32",
        f"  {terminator} {val}, {idx} : {dtype}, i32",
    ]


def _region_op(kernel: _Kernel, head: str, region: list[str], tail: str, results: int) -> str:
    name = kernel.fresh()
    lhs = name if results == 1 else f"{name}:{results}"
    kernel.stmt(f"{lhs} = {head} ({{")
    for line in region:
        kernel.stmt(line)
    kernel.stmt(f"}}) : {tail}")
    return name


# ---------------------------------------------------------------------------------------------
# Op bodies: each loads its operands in ``layout`` and stores its results
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """What one case builds: the family's layout(s) and the op's parameters."""

    family: str
    op: str
    dtype: str
    target: str
    num_warps: int
    grid: tuple[int, int]
    variant: int


def _layout_2d(kernel: _Kernel, plan: _Plan, shape: Sequence[int]) -> str:
    """The family's distributed layout for a 2-D tensor of ``shape``."""
    bits = DTYPE_BITS[plan.dtype]
    family, variant, grid = plan.family, plan.variant, plan.grid
    if family == "blocked":
        return kernel.alias("blocked", _blocked(shape, kernel.lanes, grid, bits, variant))
    if family == "slice":
        dim = variant % 3
        parent_shape = list(shape[:dim]) + [4] + list(shape[dim:])
        grid3 = list(grid[:dim]) + [1] + list(grid[dim:])
        parent = kernel.alias("blocked", _blocked(parent_shape, kernel.lanes, grid3, bits, variant))
        return _slice(dim, parent)
    if family == "nested_slice":
        outer, inner = [(1, 3), (0, 2), (2, 0)][variant % 3]
        parent_shape = list(shape)
        for dim in sorted((inner, outer)):
            parent_shape.insert(dim, 2)
        grid4 = [1, 1, 1, 1]
        kept = [d for d in range(4) if d not in (inner, outer)]
        grid4[kept[0]], grid4[kept[1]] = grid
        parent = kernel.alias("blocked", _blocked(parent_shape, kernel.lanes, grid4, bits, variant))
        return _slice(outer if outer < inner else outer - 1, _slice(inner, parent))
    if family == "linear":
        return kernel.alias("linear", _linear(shape, kernel.lanes, plan.num_warps, variant))
    if family == "dot_op":
        parent, k_width = _dot_parent(kernel, plan)
        return _dot_operand(parent, variant % 2, k_width)
    if family == "mma_v2":
        return kernel.alias("mma", _mma_v2(grid))
    if family == "mma_v3":
        return kernel.alias("mma", _mma_v3(grid, 64, bits))
    if family == "mfma":
        return kernel.alias("mma", _mfma(grid, bits, variant))
    return kernel.alias("mma", _wmma(plan.num_warps, variant))  # wmma


def _shape_2d(plan: _Plan) -> list[int]:
    """The 2-D tensor shape of a case: one MMA tile per warp or more, 2048 small or 1024 64-bit
    elements, halved per dim for a gather (Triton unrolls a warp-local gather into selects over
    every source register)."""
    if plan.family == "dot_op":
        shape = [32, 16] if _fma_parent(plan) else [64, 32]
        shape = shape if plan.variant % 2 == 0 else shape[::-1]
    elif plan.family in ("mma_v2", "mma_v3", "mfma", "wmma"):
        shape = [128 if plan.family == "mma_v3" and plan.grid[0] == 8 else 64, 64]
    else:
        shape = [32, 64] if DTYPE_BITS[plan.dtype] < 64 else [32, 32]
    return [size // 2 for size in shape] if plan.op == "gather" else shape


def _other_blocked(kernel: _Kernel, plan: _Plan, shape: Sequence[int]) -> str:
    """A second blocked layout for ``shape``: the warp grid transposed, the next variant."""
    bits = DTYPE_BITS[plan.dtype]
    return kernel.alias(
        "blocked", _blocked(shape, kernel.lanes, plan.grid[::-1], bits, plan.variant + 1)
    )


def _build_convert(kernel: _Kernel, plan: _Plan) -> None:
    shape = _shape_2d(plan)
    layout = _layout_2d(kernel, plan, shape)
    if plan.variant % 3 == 0 and plan.family in ("slice", "nested_slice", "linear"):
        # between two layouts of the family: slices of other dims, other permutations
        other = _layout_2d(kernel, replace(plan, variant=plan.variant + 1), shape)
    elif plan.variant % 3 == 0 and plan.family == "dot_op":
        other = _dot_parent(kernel, plan)[0]  # the MMA (or blocked) parent into its operand
    else:
        other = _other_blocked(kernel, plan, shape)
    src, dst = (layout, other) if plan.variant % 2 == 0 else (other, layout)
    x = kernel.load(plan.dtype, shape, src)
    y = kernel.emit(
        f"ttg.convert_layout {x} : {_tensor(shape, plan.dtype, src)} -> "
        f"{_tensor(shape, plan.dtype, dst)}"
    )
    kernel.store(y, plan.dtype, shape, dst)


def _build_reduce(kernel: _Kernel, plan: _Plan) -> None:
    shape = _shape_2d(plan)
    layout = _layout_2d(kernel, plan, shape)
    axis = plan.variant % 2
    kind = plan.op.removeprefix("reduce_")
    x = kernel.load(plan.dtype, shape, layout)
    out_shape = [s for d, s in enumerate(shape) if d != axis]
    out_layout = _slice(axis, layout)
    elems = [plan.dtype, "i32"] if kind == "argmin" else [plan.dtype]
    operands = [x]
    if kind == "argmin":
        operands.append(kernel.load("i32", shape, layout))
    ins = ", ".join(_tensor(shape, e, layout) for e in elems)
    outs = ", ".join(_tensor(out_shape, e, out_layout) for e in elems)
    region = _region(kernel, kind, plan.dtype, "tt.reduce.return")
    result = _region_op(
        kernel,
        f'"tt.reduce"({", ".join(operands)}) <{{axis = {axis} : i32}}>',
        region,
        f"({ins}) -> " + (outs if len(elems) == 1 else f"({outs})"),
        len(elems),
    )
    for i, elem in enumerate(elems):
        value = result if len(elems) == 1 else f"{result}#{i}"
        kernel.store(value, elem, out_shape, out_layout)


def _build_scan(kernel: _Kernel, plan: _Plan) -> None:
    shape = _shape_2d(plan)
    layout = _layout_2d(kernel, plan, shape)
    axis = plan.variant % 2
    reverse = "true" if plan.op == "scan_reverse" else "false"
    kind = "first" if (plan.variant // 2) % 2 else "add"
    x = kernel.load(plan.dtype, shape, layout)
    ty = _tensor(shape, plan.dtype, layout)
    result = _region_op(
        kernel,
        f'"tt.scan"({x}) <{{axis = {axis} : i32, reverse = {reverse}}}>',
        _region(kernel, kind, plan.dtype, "tt.scan.return"),
        f"({ty}) -> {ty}",
        1,
    )
    kernel.store(result, plan.dtype, shape, layout)


def _build_gather(kernel: _Kernel, plan: _Plan) -> None:
    shape = _shape_2d(plan)
    layout = _layout_2d(kernel, plan, shape)
    axis = plan.variant % 2
    src = kernel.load(plan.dtype, shape, layout)
    raw = kernel.load("i32", shape, layout)
    mask = kernel.constant(shape[axis] - 1, shape, layout)
    index_ty = _tensor(shape, "i32", layout)
    index = kernel.emit(f"arith.andi {raw}, {mask} : {index_ty}")
    ty = _tensor(shape, plan.dtype, layout)
    out = kernel.emit(
        f"tt.gather {src}[{index}] {{axis = {axis} : i32}} : ({ty}, {index_ty}) -> {ty}"
    )
    kernel.store(out, plan.dtype, shape, layout)


def _layout_1d(kernel: _Kernel, plan: _Plan) -> str:
    bits = DTYPE_BITS[plan.dtype]
    grid, variant = plan.grid, plan.variant
    warps = grid[0] * grid[1]
    if plan.family == "blocked":
        return kernel.alias("blocked", _blocked([256], kernel.lanes, [warps], bits, variant))
    if plan.family == "slice":
        dim = variant % 2
        parent = kernel.alias(
            "blocked",
            _blocked([16, 256] if dim == 0 else [256, 16], kernel.lanes, grid, bits, variant),
        )
        return _slice(dim, parent)
    if plan.family == "nested_slice":
        parent = kernel.alias(
            "blocked", _blocked([4, 256, 2], kernel.lanes, [grid[0], grid[1], 1], bits, variant)
        )
        return _slice(0, _slice(2, parent))
    return kernel.alias("linear", _linear([256], kernel.lanes, warps, variant))


def _build_histogram(kernel: _Kernel, plan: _Plan) -> None:
    layout = _layout_1d(kernel, plan)
    bins = [16, 64, 32, 128][plan.variant % 4]
    x = kernel.load("i32", [256], layout)
    mask = kernel.constant(bins - 1, [256], layout)
    values = kernel.emit(f"arith.andi {x}, {mask} : {_tensor([256], 'i32', layout)}")
    out = kernel.emit(
        f"tt.histogram {values} : {_tensor([256], 'i32', layout)} -> "
        f"{_tensor([bins], 'i32', layout)}"
    )
    kernel.store(out, "i32", [bins], layout)


def _shared_for(kernel: _Kernel, plan: _Plan, shape: Sequence[int]) -> str:
    """The shared encoding of a shared-family case (swizzled for distributed families)."""
    bits = DTYPE_BITS[plan.dtype]
    if plan.family == "nvmma_shared":
        transposed = plan.variant % 3 == 2
        inner = shape[0] if transposed else shape[-1]
        return kernel.alias("shared", _nvmma(bits, inner * bits // 8, transposed))
    if plan.family == "padded_shared":
        return kernel.alias("shared", _padded(shape, plan.variant))
    return kernel.alias("shared", _swizzled(plan.variant, bits))


def _distributed_for(kernel: _Kernel, plan: _Plan, shape: Sequence[int]) -> str:
    if plan.family in ("swizzled_shared", "nvmma_shared", "padded_shared"):
        return kernel.alias(
            "blocked",
            _blocked(shape, kernel.lanes, plan.grid, DTYPE_BITS[plan.dtype], plan.variant),
        )
    return _layout_2d(kernel, plan, shape)


def _build_local_load(kernel: _Kernel, plan: _Plan) -> None:
    shape = _shape_2d(plan)
    layout = _distributed_for(kernel, plan, shape)
    shared = _shared_for(kernel, plan, shape)
    back = layout if plan.variant % 2 == 0 else _other_blocked(kernel, plan, shape)
    x = kernel.load(plan.dtype, shape, layout)
    mem = _memdesc(shape, plan.dtype, shared, False)
    buffer = kernel.emit(f"ttg.local_alloc {x} : ({_tensor(shape, plan.dtype, layout)}) -> {mem}")
    y = kernel.emit(f"ttg.local_load {buffer} : {mem} -> {_tensor(shape, plan.dtype, back)}")
    kernel.store(y, plan.dtype, shape, back)


def _build_local_store(kernel: _Kernel, plan: _Plan) -> None:
    shape = _shape_2d(plan)
    layout = _distributed_for(kernel, plan, shape)
    shared = _shared_for(kernel, plan, shape)
    x = kernel.load(plan.dtype, shape, layout)
    view = _memdesc(shape, plan.dtype, shared, True)
    if plan.variant % 2:
        whole = _memdesc([2, *shape], plan.dtype, shared, True)
        buffers = kernel.emit(f"ttg.local_alloc : () -> {whole}")
        one = kernel.emit("arith.constant 1 : i32")
        buffer = kernel.emit(f"ttg.memdesc_index {buffers}[{one}] : {whole} -> {view}")
    else:
        buffer = kernel.emit(f"ttg.local_alloc : () -> {view}")
    kernel.stmt(f"ttg.local_store {x}, {buffer} : {_tensor(shape, plan.dtype, layout)} -> {view}")
    y = kernel.emit(f"ttg.local_load {buffer} : {view} -> {_tensor(shape, plan.dtype, layout)}")
    kernel.store(y, plan.dtype, shape, layout)


def _fma_parent(plan: _Plan) -> bool:
    """Whether a case's dot operands have a blocked parent (FMA): 64-bit data, the blocked
    family, and every fourth CUDA variant."""
    return (
        plan.family == "blocked"
        or DTYPE_BITS[plan.dtype] == 64
        or (plan.variant % 4 == 3 and plan.target.startswith("cuda"))
    )


def _dot_parent(kernel: _Kernel, plan: _Plan) -> tuple[str, int | None]:
    """The dot-operand parent of a case and the operands' kWidth (None: a blocked parent)."""
    bits = DTYPE_BITS[plan.dtype]
    if _fma_parent(plan):
        return kernel.alias("blocked", _blocked([64, 64], kernel.lanes, plan.grid, bits, 0)), None
    if plan.target == "hip:gfx942":
        return kernel.alias("mma", _mfma(plan.grid, bits, plan.variant)), (
            1 if bits == 32 else 64 // bits
        )
    if plan.target == "hip:gfx1100":
        return kernel.alias("mma", _wmma(plan.num_warps, plan.variant)), 16 if bits == 8 else 8
    return kernel.alias("mma", _mma_v2(plan.grid)), max(1, 32 // bits)


def _dot_operand(parent: str, index: int, k_width: int | None) -> str:
    width = "" if k_width is None else f", kWidth = {k_width}"
    return f"#ttg.dot_op<{{opIdx = {index}, parent = {parent}{width}}}>"


def _build_dot_operand_load(kernel: _Kernel, plan: _Plan) -> None:
    index = plan.variant % 2
    shape = [64, 32] if index == 0 else [32, 64]
    parent, k_width = _dot_parent(kernel, plan)
    layout = kernel.alias(
        "blocked", _blocked(shape, kernel.lanes, plan.grid, DTYPE_BITS[plan.dtype], plan.variant)
    )
    shared = _shared_for(kernel, plan, shape)
    operand = _dot_operand(parent, index, k_width)
    x = kernel.load(plan.dtype, shape, layout)
    mem = _memdesc(shape, plan.dtype, shared, False)
    buffer = kernel.emit(f"ttg.local_alloc {x} : ({_tensor(shape, plan.dtype, layout)}) -> {mem}")
    y = kernel.emit(f"ttg.local_load {buffer} : {mem} -> {_tensor(shape, plan.dtype, operand)}")
    kernel.store(y, plan.dtype, shape, operand)


def _accumulator(dtype: str, family: str) -> str:
    """The dot's accumulator type (the FMA lowering of a blocked parent needs the operands')."""
    if family == "blocked":
        return dtype
    return "i32" if dtype == "i8" else "f32"


def _build_dot(kernel: _Kernel, plan: _Plan) -> None:
    m, n, k = (128 if plan.grid[0] == 8 else 64), 64, 32
    if plan.family == "blocked":
        m, n, k = 32, 32, 16  # FMA: every thread walks all of K, so a small tile
    bits, acc = DTYPE_BITS[plan.dtype], _accumulator(plan.dtype, plan.family)
    if plan.family == "mma_v3":
        _build_warp_group_dot(kernel, plan, (m, n, k))
        return
    if plan.family == "blocked":
        parent, k_width = (
            kernel.alias("blocked", _blocked([m, n], kernel.lanes, plan.grid, 32, 2)),
            None,
        )
    else:
        parent, k_width = _dot_parent(kernel, plan)
    operands = []
    for index, shape in ((0, [m, k]), (1, [k, n])):
        layout = kernel.alias(
            "blocked", _blocked(shape, kernel.lanes, plan.grid, bits, plan.variant + index)
        )
        shared = kernel.alias("shared", _swizzled(plan.variant, bits))
        x = kernel.load(plan.dtype, shape, layout)
        mem = _memdesc(shape, plan.dtype, shared, False)
        buffer = kernel.emit(
            f"ttg.local_alloc {x} : ({_tensor(shape, plan.dtype, layout)}) -> {mem}"
        )
        operand = _tensor(shape, plan.dtype, _dot_operand(parent, index, k_width))
        operands.append((kernel.emit(f"ttg.local_load {buffer} : {mem} -> {operand}"), operand))
    c = kernel.load(acc, [m, n], parent)
    # f32 runs as tf32 on NVIDIA MMA; gfx942 has no tf32 MFMA at these shapes (ieee f32 ones)
    precision = "tf32" if k_width is not None and plan.target.startswith("cuda") else "ieee"
    out_ty = _tensor([m, n], acc, parent)
    d = kernel.emit(
        f"tt.dot {operands[0][0]}, {operands[1][0]}, {c}, inputPrecision = {precision} : "
        f"{operands[0][1]} * {operands[1][1]} -> {out_ty}"
    )
    kernel.store(d, acc, [m, n], parent)


def _build_warp_group_dot(kernel: _Kernel, plan: _Plan, mnk: tuple[int, int, int]) -> None:
    m, n, k = mnk
    bits, acc = DTYPE_BITS[plan.dtype], _accumulator(plan.dtype, plan.family)
    mma = kernel.alias("mma", _mma_v3(plan.grid, n // plan.grid[1], bits))
    descs = []
    for index, shape in enumerate(([m, k], [k, n])):
        layout = kernel.alias(
            "blocked", _blocked(shape, kernel.lanes, plan.grid, bits, plan.variant)
        )
        # wgmma reads 8-bit and tf32 operands K-major only: B [K, N] is stored transposed
        k_major = index == 1 and plan.dtype in ("i8", "f32")
        inner = shape[0] if k_major else shape[-1]
        shared = kernel.alias("shared", _nvmma(bits, inner * bits // 8, k_major))
        x = kernel.load(plan.dtype, shape, layout)
        mem = _memdesc(shape, plan.dtype, shared, False)
        descs.append(
            (
                kernel.emit(
                    f"ttg.local_alloc {x} : ({_tensor(shape, plan.dtype, layout)}) -> {mem}"
                ),
                mem,
            )
        )
    kernel.stmt("ttng.fence_async_shared {bCluster = false}")
    c = kernel.load(acc, [m, n], mma)
    out_ty = _tensor([m, n], acc, mma)
    precision = 0  # TF32: f32 operands run as tf32, the 16- and 8-bit ones ignore it
    d = kernel.emit(
        f"ttng.warp_group_dot {descs[0][0]}, {descs[1][0]}, {c} {{inputPrecision = {precision} : "
        f"i32, isAsync = true}} : {descs[0][1]} * {descs[1][1]} -> {out_ty}"
    )
    done = kernel.emit(f"ttng.warp_group_dot_wait {d} {{pendings = 0 : i32}} : {out_ty}")
    kernel.store(done, acc, [m, n], mma)


_BUILDERS: dict[str, Callable[[_Kernel, _Plan], None]] = {
    "convert": _build_convert,
    "reduce_add": _build_reduce,
    "reduce_argmin": _build_reduce,
    "reduce_first": _build_reduce,
    "scan": _build_scan,
    "scan_reverse": _build_scan,
    "gather": _build_gather,
    "histogram": _build_histogram,
    "local_load": _build_local_load,
    "local_store": _build_local_store,
    "dot_operand_load": _build_dot_operand_load,
    "dot": _build_dot,
}


# ---------------------------------------------------------------------------------------------
# The matrix of cases
# ---------------------------------------------------------------------------------------------

_DISTRIBUTED = (
    "blocked",
    "slice",
    "nested_slice",
    "linear",
    "mma_v2",
    "mma_v3",
    "dot_op",
    "mfma",
    "wmma",
)
_SHARED = ("swizzled_shared", "nvmma_shared", "padded_shared")
_DISTRIBUTED_OPS = (
    "convert",
    "reduce_add",
    "reduce_argmin",
    "reduce_first",
    "scan",
    "scan_reverse",
    "gather",
    "local_load",
    "local_store",
)
_ONE_D = ("blocked", "slice", "nested_slice", "linear")


def _pairs() -> list[tuple[str, str]]:
    """Every (family, op) pair of the sweep, in a fixed order."""
    pairs = [
        (family, op)
        for family in _DISTRIBUTED
        for op in _DISTRIBUTED_OPS
        if family == "blocked" or not op.startswith("scan")
    ]
    pairs += [(family, "histogram") for family in _ONE_D]
    pairs += [("dot_op", "dot_operand_load")]
    pairs += [
        (family, op)
        for family in _SHARED
        for op in ("local_load", "local_store", "dot_operand_load")
    ]
    pairs += [(family, "dot") for family in ("blocked", "mma_v2", "mma_v3", "mfma", "wmma")]
    return pairs


def _targets(family: str, op: str) -> tuple[str, ...]:
    if family in ("mma_v3", "nvmma_shared"):
        return ("cuda:90",)
    if family == "mfma":
        return ("hip:gfx942",)
    if family == "wmma":
        return ("hip:gfx1100",)
    if family == "dot_op" or op == "dot_operand_load":
        return ("cuda:80", "hip:gfx942", "cuda:90", "hip:gfx1100")
    if family in ("mma_v2",):
        return ("cuda:80", "cuda:90")
    return ("cuda:80", "cuda:90", "hip:gfx942")


def _dtypes(family: str, op: str, target: str) -> tuple[str, ...]:
    if op == "histogram":
        return ("i32",)
    if op == "dot":
        if family == "blocked":
            return ("f16", "f32", "f64")
        if family == "wmma":
            return ("f16", "bf16", "i8")
        return ("f16", "bf16", "i8", "f32")
    if op == "dot_operand_load" and target != "cuda:80" and target != "cuda:90":
        return ("f16", "bf16", "i8")
    return _DATA_DTYPES


def _warps(family: str) -> tuple[int, ...]:
    return (4, 8) if family == "mma_v3" else (1, 2, 4, 8)


def _plans(family: str, op: str, offset: int) -> list[_Plan]:
    """The cases of one (family, op) pair: every dtype, every warp count and grid, both axes
    (the cycles start at ``offset``, so the pairs' first cases differ)."""
    plans = []
    targets = _targets(family, op)
    warps = _warps(family)
    grids = [(w, g) for w in warps for g in _GRIDS[w] if family != "mma_v3" or g[1] <= 2]
    count = max(len(_DATA_DTYPES), 2 * len(targets)) + (
        len(grids) // 2 if family == "blocked" else 0
    )
    for k in range(offset, offset + count):
        target = targets[k % len(targets)]
        dtypes = _dtypes(family, op, target)
        num_warps, grid = grids[k % len(grids)]
        if family == "mma_v3":
            grid = (num_warps, 1) if k % 2 == 0 else (4, num_warps // 4)
        plans.append(_Plan(family, op, dtypes[k % len(dtypes)], target, num_warps, grid, k))
    return plans


def _case(plan: _Plan) -> SweepCase:
    kernel = _Kernel(plan.target, plan.num_warps)
    _BUILDERS[plan.op](kernel, plan)
    grid = "x".join(map(str, plan.grid))
    target = plan.target.replace(":", "")
    name = f"{plan.family}-{plan.op}-{plan.dtype}-w{grid}-{target}-v{plan.variant}"
    return SweepCase(
        name, plan.family, plan.op, plan.dtype, plan.num_warps, plan.target, kernel.text()
    )


def _quick(cases: list[SweepCase]) -> list[SweepCase]:
    """A covering subset of about 30: every family, op, dtype, warp count and target at least
    once (the pairs taken round-robin), topped up with evenly spaced cases."""
    chosen: list[SweepCase] = []
    seen: set[tuple[str, str]] = set()
    by_pair: dict[tuple[str, str], list[SweepCase]] = {}
    for case in cases:
        by_pair.setdefault((case.family, case.op), []).append(case)
    rounds = max(len(group) for group in by_pair.values())
    interleaved = [group[i] for i in range(rounds) for group in by_pair.values() if i < len(group)]
    for case in interleaved:
        keys = {
            ("family", case.family),
            ("op", case.op),
            ("dtype", case.dtype),
            ("warps", str(case.num_warps)),
            ("target", case.target),
        }
        if not keys <= seen:
            chosen.append(case)
            seen |= keys
    step = max(1, len(cases) // 30)
    for case in cases[::step]:
        if len(chosen) >= 30:
            break
        if case not in chosen:
            chosen.append(case)
    return sorted(chosen, key=cases.index)


def sweep_cases(*, quick: bool = False) -> list[SweepCase]:
    """The sweep's cases in a fixed order; ``quick`` gives a covering subset of about 30.

    Examples:
        >>> cases = sweep_cases()
        >>> len({case.name for case in cases}) == len(cases)
        True
        >>> quick = sweep_cases(quick=True)
        >>> {case.family for case in quick} == set(FAMILIES)
        True
        >>> case = quick[0]
        >>> case.name, case.op, case.num_warps, case.target
        ('blocked-convert-i8-w1x1-cuda80-v0', 'convert', 1, 'cuda:80')
        >>> "ttg.convert_layout" in case.text
        True
    """
    cases = [
        _case(plan)
        for offset, (family, op) in enumerate(_pairs())
        for plan in _plans(family, op, offset)
    ]
    return _quick(cases) if quick else cases
