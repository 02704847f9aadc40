"""One standalone TTGIR kernel that exercises each layout-carrying operation of a module.

:func:`build_harness` turns the operations of a :class:`~llverify.ttgir.module.TTGIRModule` into
*cases*.  Case ``k`` loads each tensor operand of its operation from its own global buffer
(row-major, contiguous) with offsets computed in the operand's own layout (``tt.make_range`` in
nested ``#ttg.slice`` layouts of it, ``tt.expand_dims``, ``arith.muli``, ``tt.broadcast``,
``arith.addi``), applies the operation (its text copied: attributes and region kept, operands
renamed), stores each tensor result to its own buffer the same way in the result's layout, and
ends with a ``gpu.barrier``.  Every line of the copied operation carries a location of its own
(the user's ``loc("file":line:col)``, the column bumped where two cases would share one, else
``loc("harness.ttgir":k:0)``).  Each case says what its outputs must hold (an
:class:`Expectation`), computed with numpy index arithmetic on the operation's semantics,
independently of Triton.

Examples:
    >>> from llverify.ttgir import parse_module
    >>> module = parse_module('''#a = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... #b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
    ...   %1 = tt.trans %0 {order = array<i32: 1, 0>} : tensor<16x32xf16, #a> -> tensor<32x16xf16, #b> loc("k.py":7:3)
    ... }''')
    >>> harness = build_harness(module)
    >>> case = harness.cases[0]
    >>> case.description, [(b.name, b.shape, b.role) for b in case.buffers]
    ('tt.trans #a -> #b (16x32xf16)', [('op0.in0', (16, 32), 'input'), ('op0.out0', (32, 16), 'output')])
    >>> int(case.expectations[0].source_index[1, 0])  # out[1, 0] = in[0, 1]
    1
    >>> 'loc("k.py":7:3)' in harness.text, harness.kernel
    (True, 'harness_kernel')
"""  # noqa: E501

from __future__ import annotations

import dataclasses
import hashlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from math import prod

import numpy as np

from llverify.errors import LayoutError, LayoutTypeError, ParseError, shown
from llverify.hardware import element_type_bits
from llverify.ttgir import (
    ModuleError,
    Operation,
    TTGIRModule,
    Type,
    integer_bits,
    integer_literal,
    read_operation,
    rewrite_operation,
    type_text,
)

__all__ = [
    "BufferSpec",
    "Case",
    "CombineOp",
    "CombineRegion",
    "Expectation",
    "Harness",
    "POINTER_BYTES",
    "build_harness",
    "parameter_bytes",
    "parse_combine",
    "twin_key",
]

_KERNEL = "harness_kernel"
PROGRESS_S = 5.0  # seconds between progress lines of a long harness build
_SEED = 0x19  # the pseudo-random gather indices: one fixed pattern, the same every run
_VIEWS = (
    "ttg.memdesc_index",
    "ttg.memdesc_subview",
    "ttg.memdesc_subslice",
    "ttg.memdesc_trans",
    "ttg.memdesc_reshape",
)
_MOVES = (
    "ttg.convert_layout",
    "amdg.in_thread_transpose",
    "tt.trans",
    "tt.reshape",
    "tt.join",
    "tt.split",
)
_CONVERTS = ("ttg.convert_layout", "amdg.in_thread_transpose")  # a new layout, the same tensor
_SHAPES = ("tt.expand_dims", "tt.broadcast")
# why an operation that carries a layout but is no case is left out, by name or prefix
_REASONS = (
    (
        ("tt.dot", "tt.dot_scaled", "ttng.warp_group_dot"),
        "dot: no MMA model (its operands are exercised by the local_load cases that feed them)",
    ),
    (
        (
            "tt.load",
            "tt.store",
            "tt.atomic_rmw",
            "tt.atomic_cas",
            "tt.descriptor_load",
            "tt.descriptor_store",
        ),
        "global memory access: the harness's own loads and stores exercise the same lowering",
    ),
    (
        ("ttg.async_copy_global_to_local", "ttg.async_wait", "ttg.async_commit_group", "ttng."),
        "asynchronous copy, TMA or fence: not exercised by the harness",
    ),
    (("ttg.local_dealloc",), "deallocation: moves no data"),
    (("scf.", "cf.", "tt.func", "tt.return", "tt.call"), "control flow: moves no data"),
    (
        (
            "arith.",
            "math.",
            "tt.splat",
            "tt.addptr",
            "tt.make_range",
            "tt.bitcast",
            "tt.fp_to_fp",
            "tt.clampf",
            "tt.precise_",
            "tt.mulhiui",
            "tt.extern_elementwise",
            "tt.elementwise_inline_asm",
            "tt.int_to_ptr",
            "tt.ptr_to_int",
        ),
        "elementwise: each thread computes its own elements, no data moves between threads",
    ),
)
_DROPPED_MODULE_ATTRIBUTES = ("ttg.shared", "ttg.tensor_memory_size", "ttg.global_scratch")


@dataclass(frozen=True)
class BufferSpec:
    """One global buffer of the harness: kernel argument ``arg``, row-major contents."""

    arg: int  # index of the kernel pointer argument
    name: str  # e.g. "op3.in0", "op3.out0"
    shape: tuple[int, ...]
    element: str  # TTGIR element type as written: "f16", "bf16", "i1", "f8E4M3FN", ...
    element_bits: int  # storage bits in global memory (i1 is stored as 8)
    role: str  # "input" (tagged by the executor), "values" (concrete), "output"
    values: np.ndarray | None = field(default=None, compare=False)  # role "values": int64


@dataclass(frozen=True)
class CombineOp:
    """One operation of a reduce/scan combine region, e.g. ``%s = arith.addf %a, %b : f32``."""

    results: tuple[str, ...]
    name: str
    operands: tuple[str, ...]
    attributes: str  # what is left of the text: e.g. "ogt" (arith.cmpf), "fastmath<fast>"
    result_types: tuple[str, ...]


@dataclass(frozen=True)
class CombineRegion:
    """The combine region of a ``tt.reduce`` / ``tt.scan``: its block, ops and return."""

    params: tuple[str, ...]  # block arguments in order (%a0, %a1, ..., %b0, %b1, ...)
    param_types: tuple[str, ...]
    ops: tuple[CombineOp, ...]
    returns: tuple[str, ...]  # operands of tt.reduce.return / tt.scan.return


@dataclass(frozen=True)
class Expectation:
    """What output buffer ``output`` must hold once the harness ran.

    ``kind`` "move": element ``i`` (row-major) is input element ``source_index[i]`` of buffer
    ``Case.buffers[source_buffer[i]]``; "reduce"/"scan": result ``result`` of ``combine``
    over ``inputs`` along ``axis``; "counts": exactly ``values``.
    """

    output: str
    kind: str  # "move" | "reduce" | "scan" | "counts"
    source_buffer: np.ndarray | None = field(default=None, compare=False)
    source_index: np.ndarray | None = field(default=None, compare=False)
    inputs: tuple[str, ...] = ()
    axis: int | None = None
    reverse: bool = False
    combine: CombineRegion | None = None
    result: int = 0
    values: np.ndarray | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Case:
    """One exercised operation: its buffers, what they must hold, its lines in the harness."""

    index: int
    op: Operation
    op_line: int  # the operation's line in the user's TTGIR
    location: str  # the user's file:line, or ""
    description: str
    buffers: tuple[BufferSpec, ...]
    expectations: tuple[Expectation, ...]
    harness_lines: tuple[int, int]  # first and last line of this case in Harness.text
    lines: tuple[str, ...] = field(default=(), compare=False, repr=False)  # its code

    @cached_property
    def key(self) -> str:
        """The case's :func:`twin_key`: two cases with one key are the same code (computed
        when asked: only a module of more than ``max_ops`` ops asks)."""
        return twin_key(self.description, self.lines, self.buffers)


@dataclass(frozen=True)
class Harness:
    """The harness module (Triton 3.9 spelling), its cases and the operations left out."""

    text: str
    kernel: str
    target: str
    num_warps: int
    threads_per_warp: int
    num_ctas: int
    cases: tuple[Case, ...]
    skipped: tuple[tuple[Operation, str], ...]
    buffers: tuple[BufferSpec, ...]  # all buffers, by arg


class _SkipError(Exception):
    """The operation cannot be exercised; the message says why (caught, never raised out)."""


def _stored(element: str) -> str:
    """The element type a global buffer of ``element`` holds (``i1`` is stored as ``i8``)."""
    return "i8" if element == "i1" else element


def _tensor(typ: Type) -> str:
    """The tensor type of ``typ``'s shape and element in its encoding (as written)."""
    return type_text(typ.shape, typ.element, typ.written_encoding)


def _types_or_skip(op: Operation) -> tuple[list[Type], list[Type]]:
    """The operand and result types of ``op`` (fresh lists); an op without a readable
    signature is skipped."""
    try:
        operands, results = op.signature
    except ModuleError as error:
        raise _SkipError(error.detail) from None
    return list(operands), list(results)


def _int_attr(op: Operation, name: str) -> int:
    found = op.attributes.integer(name)
    if found is None:
        raise _SkipError(f"no '{name}' attribute")
    return found


def _order_attr(op: Operation) -> tuple[int, ...]:
    found = op.attributes.integers("order")
    if found is None:
        raise _SkipError("no 'order' attribute")
    return found


def parse_combine(op: Operation) -> CombineRegion:
    """The combine region of a ``tt.reduce`` or ``tt.scan`` operation.

    Examples:
        >>> from llverify.ttgir import parse_module
        >>> module = parse_module('''#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
        ... module attributes {"ttg.num-warps" = 4 : i32} {
        ...   %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({
        ...   ^bb0(%a: f32 loc(#loc), %b: f32 loc(#loc)):
        ...     %c = arith.cmpf ogt, %a, %b : f32 loc(#loc)
        ...     %m = arith.select %c, %a, %b : f32 loc(#loc)
        ...     tt.reduce.return %m : f32 loc(#loc)
        ...   }) : (tensor<128xf32, #b>) -> f32 loc(#loc)
        ... }
        ... #loc = loc("k.py":1:1)''')
        >>> region = parse_combine(module.ops[0])
        >>> region.params, region.returns
        (('%a', '%b'), ('%m',))
        >>> region.ops[0]
        CombineOp(results=('%c',), name='arith.cmpf', operands=('%a', '%b'), attributes='ogt', result_types=('i1',))
    """  # noqa: E501
    if not isinstance(op, Operation):
        raise LayoutTypeError(f"Argument 'op' must be an Operation, not {shown(op)}.")
    try:
        return _combine(op)
    except _SkipError as skip:
        raise ParseError(f"Argument 'op' ({op.name}): {skip}.", op.line) from None


def _combine(op: Operation) -> CombineRegion:
    try:
        regions = op.regions
    except ModuleError as error:
        raise _SkipError(error.detail) from None
    if not regions or not regions[0].blocks:
        raise _SkipError("no combine region")
    block = regions[0].blocks[0]
    if not block.label:
        raise _SkipError("the combine region has no block header")
    params = tuple(name for name, _ in block.arguments)
    param_types = tuple(typ.text for _, typ in block.arguments)
    ops: list[CombineOp] = []
    for inner in block.ops:
        if inner.name in ("tt.reduce.return", "tt.scan.return"):
            returns = tuple(inner.operands)
            return CombineRegion(params, param_types, tuple(ops), returns)
        ops.append(_combine_op(inner))
    raise _SkipError("the combine region has no tt.reduce.return / tt.scan.return")


def _combine_op(op: Operation) -> CombineOp:
    """One operation of a combine region, e.g. ``%c = arith.cmpf ogt, %a, %b : f32``."""
    results = op.result_values
    if op.name == "arith.constant" and op.literals in (("true",), ("false",)) and results:
        return CombineOp(tuple(results), op.name, (), op.literals[0], ("i1",))  # no `: i1`
    try:
        operand_types, result_types = op.signature
    except ModuleError:
        raise _SkipError(f"unreadable combine operation {op.text.strip()[:60]!r}") from None
    if not results:
        raise _SkipError(f"unreadable combine operation {op.text.strip()[:60]!r}")
    types = [t.text for t in result_types]
    if not types and op.name in ("arith.cmpf", "arith.cmpi"):
        types = ["i1"]
    elif not types:
        types = [t.text for t in operand_types[-1:]]
    if len(types) != len(results):
        types = types[-1:] * len(results)
    attributes = " ".join((*op.literals, *op.attribute_texts))
    return CombineOp(tuple(results), op.name, tuple(op.operands), attributes, tuple(types))


#: the bytes a thread of the harness's own blocked layout holds along the last dim (one
#: 16-byte access: the plumbing that fills and empties shared memory moves whole vectors)
VECTOR_BYTES = 16


def _blocked(
    shape: Sequence[int], warps: int, threads: int, ctas: int, element_bytes: int = 0
) -> str:
    """A plain blocked layout for ``shape``: each thread a vector of up to
    :data:`VECTOR_BYTES` along the last dim (one that divides that dim, and no more than
    leaves every thread of the CTA a vector; one element for ``element_bytes`` 0), threads
    from the last dim, warps from the first, every CTA of a cluster holding the whole
    tensor.

    >>> _blocked([128, 64], 8, 32, 1, element_bytes=2)
    '#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>'
    """  # noqa: E501
    rank = len(shape)
    vector = VECTOR_BYTES // element_bytes if 0 < element_bytes <= VECTOR_BYTES else 1
    elements = 1
    for extent in shape:
        elements *= extent
    while vector > 1 and (shape[-1] % vector or elements < vector * threads * warps):
        vector //= 2  # a vector that divides the dim, and every thread one at least
    extents = [*shape[:-1], shape[-1] // vector]
    lanes, left = [1] * rank, threads
    for d in reversed(range(rank)):
        lanes[d] = min(left, extents[d])
        left //= lanes[d]
    lanes[0] *= left
    warp, left = [1] * rank, warps
    for d in range(rank):
        warp[d] = min(left, max(1, extents[d] // lanes[d]))
        left //= warp[d]
    warp[0] *= left

    def array(values: Sequence[int]) -> str:
        return "[" + ", ".join(str(v) for v in values) + "]"

    cga = ""
    if ctas > 1:
        zero = array([0] * rank)
        cga = f", CGALayout = [{', '.join([zero] * (ctas.bit_length() - 1))}]"
    return (
        f"#ttg.blocked<{{sizePerThread = {array([1] * (rank - 1) + [vector])}, "
        f"threadsPerWarp = {array(lanes)}, "
        f"warpsPerCTA = {array(warp)}, order = {array(range(rank - 1, -1, -1))}{cga}}}>"
    )


class _Writer:
    """The lines and buffers of one case, written into the harness once the case is whole."""

    def __init__(self, build: _Build, index: int, loc: str) -> None:
        self.build = build
        self.index = index
        self.loc = loc
        self.lines: list[str] = []
        self.buffers: list[BufferSpec] = []
        self.expectations: list[Expectation] = []
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"%{self.build.prefix}{self.index}_{stem}{self.count}"

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def buffer(self, kind: str, typ: Type, role: str, values: np.ndarray | None = None) -> int:
        """A new buffer of ``typ``'s shape and element; its position in the case."""
        bits = element_type_bits(typ.element)
        if bits is None or typ.element.startswith("!"):
            raise _SkipError(f"element type {typ.element} has no global buffer")
        taken = sum(b.name.split(".")[1].startswith(kind) for b in self.buffers)
        self.buffers.append(
            BufferSpec(
                arg=self.build.args + len(self.buffers),
                name=f"op{self.index}.{kind}{taken}",
                shape=typ.shape,
                element=typ.element,
                element_bits=bits,
                role=role,
                values=values,
            )
        )
        return len(self.buffers) - 1

    def arg(self, position: int) -> str:
        return f"%{self.build.prefix}arg{self.buffers[position].arg}"

    def offsets(self, shape: tuple[int, ...], encoding: str) -> str:
        """An i32 tensor of ``shape`` in ``encoding``: each element's row-major index."""
        full = type_text(shape, "i32", encoding)
        terms: list[str] = []
        for d, size in enumerate(shape):
            if size == 1:
                continue
            others = [j for j in reversed(range(len(shape))) if j != d]
            layouts, shapes = [encoding], [[size if i == d else 1 for i in range(len(shape))]]
            for j in others:
                layouts.append(f"#ttg.slice<{{dim = {j}, parent = {layouts[-1]}}}>")
                shapes.append(shapes[-1][:j] + shapes[-1][j + 1 :])
            value = self.fresh("range")
            self.emit(
                f"{value} = tt.make_range {{end = {size} : i32, start = 0 : i32}} : "
                f"{type_text(shapes[-1], 'i32', layouts[-1])}"
            )
            for step in reversed(range(len(others))):
                expanded = self.fresh("dim")
                self.emit(
                    f"{expanded} = tt.expand_dims {value} {{axis = {others[step]} : i32}} : "
                    f"{type_text(shapes[step + 1], 'i32', layouts[step + 1])} -> "
                    f"{type_text(shapes[step], 'i32', layouts[step])}"
                )
                value = expanded
            ones = type_text(shapes[0], "i32", encoding)
            stride = prod(shape[d + 1 :])
            if stride != 1:
                constant, scaled = self.fresh("stride"), self.fresh("scaled")
                self.emit(f"{constant} = arith.constant dense<{stride}> : {ones}")
                self.emit(f"{scaled} = arith.muli {value}, {constant} : {ones}")
                value = scaled
            if prod(shape) != size:
                wide = self.fresh("wide")
                self.emit(f"{wide} = tt.broadcast {value} : {ones} -> {full}")
                value = wide
            terms.append(value)
        if not terms:
            zero = self.fresh("zero")
            self.emit(f"{zero} = arith.constant dense<0> : {full}")
            return zero
        total = terms[0]
        for term in terms[1:]:
            added = self.fresh("offset")
            self.emit(f"{added} = arith.addi {total}, {term} : {full}")
            total = added
        return total

    def pointers(self, position: int, typ: Type) -> str:
        pointer = f"!tt.ptr<{_stored(typ.element)}>"
        offsets = self.offsets(typ.shape, typ.written_encoding)
        base, moved = self.fresh("base"), self.fresh("ptr")
        pointers = type_text(typ.shape, pointer, typ.written_encoding)
        self.emit(f"{base} = tt.splat {self.arg(position)} : {pointer} -> {pointers}")
        self.emit(
            f"{moved} = tt.addptr {base}, {offsets} : {pointers}, "
            f"{type_text(typ.shape, 'i32', typ.written_encoding)}"
        )
        return moved

    def load(self, typ: Type, role: str = "input", values: np.ndarray | None = None) -> str:
        """A new input buffer of ``typ`` loaded in ``typ``'s layout; the loaded value."""
        if typ.kind != "tensor" or not typ.written_encoding:
            raise _SkipError(f"operand type {typ.text} is no tensor with a layout")
        position = self.buffer("in", typ, role, values)
        pointers = self.pointers(position, typ)
        value, stored = self.fresh("in"), _stored(typ.element)
        pointer_type = type_text(typ.shape, f"!tt.ptr<{stored}>", typ.written_encoding)
        self.emit(f"{value} = tt.load {pointers} : {pointer_type}")
        if stored == typ.element:
            return value
        narrow, wide = self.fresh("in"), type_text(typ.shape, stored, typ.written_encoding)
        self.emit(f"{narrow} = arith.trunci {value} : {wide} to {_tensor(typ)}")
        return narrow

    def store(self, value: str, typ: Type) -> int:
        """A new output buffer of ``typ`` that ``value`` is stored to; its position."""
        if typ.kind == "memdesc" or (typ.kind == "tensor" and not typ.written_encoding):
            raise _SkipError(f"result type {typ.text} is no tensor with a layout")
        position = self.buffer("out", typ, "output")
        stored = _stored(typ.element)
        if stored != typ.element:
            wide = self.fresh("out")
            to = (
                stored
                if typ.kind == "scalar"
                else type_text(typ.shape, stored, typ.written_encoding)
            )
            self.emit(f"{wide} = arith.extui {value} : {typ.text} to {to}")
            value = wide
        if typ.kind == "scalar":
            self.emit(f"tt.store {self.arg(position)}, {value} : !tt.ptr<{stored}>")
            return position
        pointers = self.pointers(position, typ)
        pointer_type = type_text(typ.shape, f"!tt.ptr<{stored}>", typ.written_encoding)
        self.emit(f"tt.store {pointers}, {value} : {pointer_type}")
        return position

    def copy(self, op: Operation, operands: dict[str, str], drop_token: bool = False) -> list[str]:
        """``op``'s text with its results renamed, ``operands`` renamed, the case's location on
        every line; the new names of its results."""
        count = op.result_count

        def rename(name: str) -> str:
            if name not in operands:
                raise _SkipError(f"operand {name} is not supplied by the harness")
            return operands[name]

        result = self.fresh("r")
        names = [result] if count == 1 else [f"{result}#{i}" for i in range(count)]
        declared = "" if count == 0 else (result if count == 1 else f"{result}:{count}") + " = "
        text = rewrite_operation(
            op,
            results=declared,
            rename=rename,
            location=self.loc,
            drop="token" if drop_token else "",
        )
        lines = text.splitlines()
        self.emit(lines[0])
        self.lines.extend("    " + line if i else line for i, line in enumerate(lines[1:], 1))
        return names


def _move(
    writer: _Writer, output: int, source_buffer: np.ndarray, source_index: np.ndarray
) -> None:
    writer.expectations.append(
        Expectation(
            output=writer.buffers[output].name,
            kind="move",
            source_buffer=np.asarray(source_buffer, dtype=np.int64),
            source_index=np.asarray(source_index, dtype=np.int64),
        )
    )


def _indices(shape: Sequence[int]) -> np.ndarray:
    return np.arange(prod(shape), dtype=np.int64).reshape(tuple(shape))


def _tensors(types: list[Type], count: int, what: str) -> list[Type]:
    if len(types) != count or any(t.kind != "tensor" for t in types):
        raise _SkipError(f"expected {count} tensor {what}, found {[t.text for t in types]}")
    for t in types:
        if t.element.startswith("!"):
            raise _SkipError(f"{what} of pointer elements ({t.element})")
        if t.encoding_name in _SHARED_TENSOR_ENCODINGS:
            raise _SkipError(
                f"{what} in a shared encoding ({t.encoding_name}): Triton 2.x's tensor in shared "
                "memory, which 3.0 made a memdesc; no harness loads or stores one"
            )
    return types


#: the bytes of kernel parameters ptxas accepts: 32,764 (0x7ffc) on sm_70 and newer, 4,352
#: before (measured with Triton 3.9.0's ptxas, issue 27: 4,093 pointers pass on cuda:80, 4,094
#: do not); AMD targets: 4,096, the HIP runtime's kernel argument limit (not measured here)
_PARAMETER_LIMITS = {"cuda": 32_764, "cuda<70": 4_352, "hip": 4_096}
#: bytes left for the parameters Triton appends to every kernel (3.9: two pointers, the global
#: and the profile scratch; 16 bytes), with room for other releases'
_APPENDED_BYTES = 32
POINTER_BYTES = 8  # every harness parameter is a buffer's pointer


def parameter_bytes(target: str) -> int:
    """The bytes of parameters one harness kernel for ``target`` may declare: ptxas's limit
    less what Triton appends.  A module whose cases need more is validated in several
    harness kernels (:func:`llverify.emitted.validate.validate_module`).

    Examples:
        >>> parameter_bytes("cuda:90"), parameter_bytes("cuda:60"), parameter_bytes("hip:gfx942")
        (32732, 4320, 4064)
        >>> parameter_bytes("cuda:90") // POINTER_BYTES  # buffers per harness kernel
        4091
    """
    backend, _, arch = target.partition(":")
    if backend == "cuda" and arch.isdigit() and int(arch) < 70:
        backend = "cuda<70"
    return _PARAMETER_LIMITS.get(backend, min(_PARAMETER_LIMITS.values())) - _APPENDED_BYTES


_VALUE_NAME = re.compile(r"%[\w$.-]+")
_CASE_LOCATION = re.compile(r'loc\("[^"]*":\d+:\d+\)')


def twin_key(description: str, lines: Sequence[str], buffers: Sequence[BufferSpec]) -> str:
    """What makes a case the same code as another: its description, its lines with every
    value name renumbered in order of first appearance (``%v0``, ``%v1``, ...) and every
    location written ``loc()``, and its buffers' shapes, elements, roles and given values.
    Two cases of one key differ only in names and locations: the compiler sees the same
    operations on the same types.

    Examples:
        >>> one = twin_key("d", ['%h3_r1 = tt.trans %harg6 loc("k.py":7:3)'], [])
        >>> one == twin_key("d", ['%h9_r1 = tt.trans %harg20 loc("k.py":9:4)'], [])
        True
        >>> one == twin_key("d", ['%h3_r1 = tt.trans %h3_r1 loc("k.py":7:3)'], [])
        False
    """
    numbers: dict[str, str] = {}

    def number(match: re.Match[str]) -> str:
        return numbers.setdefault(match.group(0), f"%v{len(numbers)}")

    text = _VALUE_NAME.sub(number, _CASE_LOCATION.sub("loc()", "\n".join(lines)))
    digest = hashlib.sha256(f"{description}\n{text}".encode())
    for b in buffers:
        digest.update(f"\n{b.role} {b.shape} {b.element}".encode())
        if b.values is not None:
            digest.update(np.ascontiguousarray(b.values, dtype=np.int64).tobytes())
    return digest.hexdigest()


#: encodings of shared memory (a tensor of one is Triton 2.x's way to spell a shared buffer)
_SHARED_TENSOR_ENCODINGS = frozenset(
    {"ttg.swizzled_shared", "ttg.nvmma_shared", "ttg.shared", "ttg.shared_linear"}
)


@dataclass
class _Build:
    """The state of one :func:`build_harness` call."""

    module: TTGIRModule
    prefix: str
    threads: int
    args: int = 0
    lines: list[str] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    buffers: list[BufferSpec] = field(default_factory=list)
    blocked: dict[str, str] = field(default_factory=dict)  # layout text -> alias
    locs: set[tuple[str, int, int]] = field(default_factory=set)
    # per user location, the last column given to a case there (the search for a free one
    # starts from it: no rescan of the taken ones, linear in the number of cases)
    last_column: dict[tuple[str, int, int], int] = field(default_factory=dict)
    placed: tuple[str, int, int] | None = None  # the location the last location() call took
    defs: dict[str, Operation] = field(default_factory=dict)
    positions: dict[int, int] = field(default_factory=dict)  # id(op) -> its index in the module
    max_cases: int | None = None

    def blocked_alias(self, shape: Sequence[int], element_bytes: int = 0) -> tuple[str, str]:
        """The alias of the harness's blocked layout for ``shape`` (of ``element_bytes``
        elements: :func:`_blocked`), and the layout."""
        module = self.module
        warps, ctas = module.num_warps or 1, module.num_ctas or 1
        text = _blocked(shape, warps, self.threads, ctas, element_bytes)
        if text not in self.blocked:
            stem = "harness_blocked"
            while any(name.startswith(f"#{stem}") for name in self.module.aliases):
                stem = "_" + stem
            self.blocked[text] = f"#{stem}{len(self.blocked)}"
        return self.blocked[text], text

    def location(self, op: Operation, index: int) -> str:
        self.placed = None
        if op.file_location is None:
            return f'loc("harness.ttgir":{index}:0)'
        base = (op.file_location.file, op.file_location.line, op.file_location.column)
        found = (base[0], base[1], self.last_column.get(base, base[2]))
        while found in self.locs:
            found = (found[0], found[1], found[2] + 1)
        self.locs.add(found)
        self.last_column[base] = found[2]
        self.placed = found
        return f'loc("{found[0]}":{found[1]}:{found[2]})'

    def add(self, op: Operation, description: str, write: Callable[[_Writer], None]) -> None:
        """Write one case; :class:`_SkipError` from ``write`` leaves the harness unchanged."""
        index = len(self.cases)
        if self.max_cases is not None and index >= self.max_cases:
            raise _SkipError(f"over max_cases={self.max_cases}")
        writer = _Writer(self, index, self.location(op, index))
        placed = self.placed
        try:
            write(writer)
        except _SkipError:
            if placed is not None:
                self.locs.discard(placed)
            raise
        first = len(self.lines) + 1
        self.lines.append(f"    // case {index}: {description} (line {op.line})")
        self.lines.extend(writer.lines)
        self.lines.append("    gpu.barrier")
        self.args += len(writer.buffers)
        self.buffers.extend(writer.buffers)
        self.cases.append(
            Case(
                index=index,
                op=op,
                op_line=op.line,
                location=op.location,
                description=description,
                buffers=tuple(writer.buffers),
                expectations=tuple(writer.expectations),
                harness_lines=(first, len(self.lines)),
                lines=tuple(writer.lines),
            )
        )


def _short(typ: Type) -> str:
    return typ.written_encoding


def _shape_text(typ: Type) -> str:
    return "x".join(str(n) for n in (*typ.shape, typ.element))


Maps = list[tuple[np.ndarray, np.ndarray]]  # per result: (source buffer, source index)


def _plain(build: _Build, op: Operation) -> None:
    """convert_layout, in_thread_transpose, trans, reshape, join, split, expand_dims,
    broadcast: data movement, the expectation from numpy index arithmetic."""
    operands, results = _types_or_skip(op)
    count = {"tt.join": 2}.get(op.name, 1)
    if op.name == "tt.join" and len(operands) == 1:
        operands = operands * 2  # `tt.join %a, %b : T -> R` names T once
    if op.name == "tt.split" and len(results) == 1:
        results = results * 2  # `%a, %b = tt.split %x : T -> R` names R once
    _tensors(operands, count, "operands")
    _tensors(results, 2 if op.name == "tt.split" else 1, "results")
    if len(op.operands) != count or op.result_count != len(results):
        raise _SkipError(f"{len(op.operands)} operands, {op.result_count} results")
    source = operands[0]
    if op.name == "tt.reshape" and op.flag("allow_reorder"):
        raise _SkipError("reshape with allow_reorder: the element order is unspecified")
    maps = _MAPS.get(op.name, _kept_order)(op, source, results)
    for (_, index), result in zip(maps, results):
        if index.shape != result.shape:
            raise _SkipError(f"result shape {result.shape} is not {index.shape}")
    description = f"{op.name} {_short(source)} -> {_short(results[0])} ({_shape_text(source)})"

    def write(w: _Writer) -> None:
        values = [w.load(t) for t in operands[:count]]
        names = w.copy(op, dict(zip(op.operands, values)))
        for name, result, (buffer, index) in zip(names, results, maps):
            _move(w, w.store(name, result), buffer, index)

    build.add(op, description, write)


def _trans_maps(op: Operation, source: Type, results: list[Type]) -> Maps:
    order = _order_attr(op)
    if sorted(order) != list(range(len(source.shape))):
        raise _SkipError(f"order {order} is no permutation of the {len(source.shape)} dims")
    return [(np.zeros(results[0].shape, np.int64), _indices(source.shape).transpose(order))]


def _join_maps(op: Operation, source: Type, results: list[Type]) -> Maps:
    buffer = np.stack([np.zeros(source.shape, np.int64), np.ones(source.shape, np.int64)], -1)
    return [(buffer, np.stack([_indices(source.shape)] * 2, -1))]


def _split_maps(op: Operation, source: Type, results: list[Type]) -> Maps:
    if not source.shape or source.shape[-1] != 2:
        raise _SkipError(f"split of shape {source.shape}: the last dim must be 2")
    index = _indices(source.shape)
    return [(np.zeros(results[0].shape, np.int64), index[..., i]) for i in range(2)]


def _broadcast_maps(op: Operation, source: Type, results: list[Type]) -> Maps:
    try:
        index = np.broadcast_to(_indices(source.shape), results[0].shape)
    except ValueError:
        raise _SkipError(f"cannot broadcast {source.shape} to {results[0].shape}") from None
    return [(np.zeros(results[0].shape, np.int64), index)]


def _kept_order(op: Operation, source: Type, results: list[Type]) -> Maps:
    """The converts, reshape, expand_dims: the row-major order is kept."""
    if op.name in _CONVERTS and source.shape != results[0].shape:
        raise _SkipError(
            f"{op.name} of {source.shape} to {results[0].shape}: expected the same shape"
        )
    if prod(source.shape) != prod(results[0].shape):
        raise _SkipError(f"shapes {source.shape} and {results[0].shape} differ in size")
    return [
        (np.zeros(results[0].shape, np.int64), _indices(source.shape).reshape(results[0].shape))
    ]


#: how each data-movement op sends its source's elements to its results (else _kept_order)
_MAPS: dict[str, Callable[[Operation, Type, list[Type]], Maps]] = {
    "tt.trans": _trans_maps,
    "tt.join": _join_maps,
    "tt.split": _split_maps,
    "tt.broadcast": _broadcast_maps,
}


def _gather(build: _Build, op: Operation) -> None:
    operands, results = _types_or_skip(op)
    source, indices = _tensors(operands, 2, "operands")
    (result,) = _tensors(results, 1, "results")
    if len(op.operands) != 2 or integer_bits(indices.element) is None:
        raise _SkipError("expected a source and integer indices")
    axis = _int_attr(op, "axis")
    if not 0 <= axis < len(source.shape) or indices.shape != result.shape:
        raise _SkipError(f"axis {axis}, indices {indices.shape}, result {result.shape}")
    extent = source.shape[axis]
    position = np.indices(indices.shape)[axis]
    patterns = {
        "reverse": (extent - 1 - position % extent).astype(np.int64),
        "pseudo-random": np.random.default_rng(_SEED).integers(0, extent, indices.shape),
    }
    for pattern, values in patterns.items():
        coords = list(np.indices(indices.shape))
        coords[axis] = values
        index = np.ravel_multi_index(tuple(coords), source.shape, mode="raise")

        def write(w: _Writer, values: np.ndarray = values, index: np.ndarray = index) -> None:
            src = w.load(source)
            idx = w.load(indices, "values", values.astype(np.int64))
            (name,) = w.copy(op, dict(zip(op.operands, (src, idx))))
            _move(w, w.store(name, result), np.zeros(result.shape, np.int64), index)

        description = (
            f"tt.gather axis={axis} indices={pattern} {_short(source)} -> {_short(result)} "
            f"({_shape_text(source)})"
        )
        build.add(op, description, write)


# Pure scalar operations a combine region may capture from outside it, besides constants:
# copied into the region with what they use, they compute the same value there.
_PURE_PREFIXES = ("arith.", "math.")
_NOT_PURE = {"arith.constant"}  # handled on its own (no operands)


def _captured(build: _Build, op: Operation) -> list[Operation]:
    """The operations of the module that define the values ``op``'s combine region uses
    but does not define (transitively, in module order): constants and pure scalar ops on
    constants.  Any other capture (a function argument, a loaded or computed runtime value)
    is skipped with the reason: its value is not part of the harness's inputs."""
    try:
        regions = op.regions
    except ModuleError as error:
        raise _SkipError(error.detail) from None
    defined: set[str] = set()
    used: list[str] = []
    for region in regions:
        for block in region.blocks:
            defined.update(name for name, _ in block.arguments)
            for inner in block.ops:
                used += [name for name in inner.operands if name not in defined]
                defined.update(inner.result_values)
                defined.update(inner.results)
    found: dict[int, Operation] = {}
    pending = [name for name in dict.fromkeys(used) if name not in defined]
    while pending:
        name = pending.pop()
        definer = build.defs.get(name)
        if definer is None:
            raise _SkipError(
                f"the combine region uses {name}, defined outside it by no operation of the "
                "module (a function or block argument): a runtime value the harness does not "
                "supply"
            )
        if id(definer) in found:
            continue
        pure = definer.name == "arith.constant" or (
            definer.name.startswith(_PURE_PREFIXES) and definer.name not in _NOT_PURE
        )
        if not pure or definer.types or definer.regions:
            raise _SkipError(
                f"the combine region uses {name}, defined outside it by {definer.name} "
                f"(line {definer.line}), which is no scalar constant or pure scalar op on "
                "constants: a runtime value the harness does not supply"
            )
        found[id(definer)] = definer
        pending += definer.operands
    return sorted(found.values(), key=lambda d: build.positions.get(id(d), d.line))


def _with_captures(op: Operation, captures: Sequence[Operation]) -> Operation:
    """``op`` with the text of ``captures`` written at the start of its combine region's
    block (after the block header), so the region no longer uses values from outside it."""
    if not captures:
        return op
    lines = op.text.split("\n")
    header = next(
        (i for i, line in enumerate(lines) if line.lstrip().startswith("^")),
        next(i for i, line in enumerate(lines) if "({" in line),
    )
    indent = "      "
    inserted = [indent + c.text.strip() for c in captures]
    text = "\n".join(lines[: header + 1] + inserted + lines[header + 1 :])
    copied = read_operation(text, op.line, op.aliases)
    if copied is None:  # pragma: no cover - the text starts with op's own head
        raise _SkipError("the combine region could not be rewritten with its captures")
    return copied


def _reduce_scan(build: _Build, op: Operation) -> None:
    operands, results = _types_or_skip(op)
    _tensors(operands, len(op.operands), "operands")
    if not operands or len(results) != len(operands) or op.result_count != len(results):
        raise _SkipError(f"{len(operands)} operands and {len(results)} results")
    original, op = op, _with_captures(op, _captured(build, op))
    combine = _combine(op)
    if len(combine.params) != 2 * len(operands) or len(combine.returns) != len(operands):
        raise _SkipError("the combine region does not match the operands")
    axis = _int_attr(op, "axis")
    rank = len(operands[0].shape)
    if not 0 <= axis < rank or any(t.shape != operands[0].shape for t in operands):
        raise _SkipError(f"axis {axis} over operand shapes {[t.shape for t in operands]}")
    scan = op.name == "tt.scan"
    reverse = op.attributes.flag("reverse")
    shape = operands[0].shape
    reduced = shape if scan else shape[:axis] + shape[axis + 1 :]
    for result in results:
        if result.shape != reduced or result.element.startswith("!"):
            raise _SkipError(f"result {result.text} is not of shape {reduced}")
        if result.kind == "scalar" and (scan or rank != 1):
            raise _SkipError(f"scalar result {result.text}")

    def write(w: _Writer) -> None:
        values = [w.load(t) for t in operands]
        names = w.copy(op, dict(zip(op.operands, values)))
        inputs = tuple(b.name for b in w.buffers)
        for j, (name, result) in enumerate(zip(names, results)):
            position = w.store(name, result)
            w.expectations.append(
                Expectation(
                    output=w.buffers[position].name,
                    kind="scan" if scan else "reduce",
                    inputs=inputs,
                    axis=axis,
                    reverse=reverse,
                    combine=combine,
                    result=j,
                )
            )

    kind = f"axis={axis}" + (" reverse" if reverse else "")
    description = f"{op.name} {kind} {_short(operands[0])} ({_shape_text(operands[0])})"
    build.add(original, description, write)


def _histogram(build: _Build, op: Operation) -> None:
    operands, results = _types_or_skip(op)
    (source,) = _tensors(operands, 1, "operands")
    (result,) = _tensors(results, 1, "results")
    if len(op.operands) != 1:
        raise _SkipError("histogram with a mask is not exercised")
    if len(result.shape) != 1 or len(source.shape) != 1 or not source.element.startswith("i"):
        raise _SkipError(f"histogram of {source.text} into {result.text}")
    bins = result.shape[0]
    patterns = {
        "all-equal": np.full(source.shape, bins - 1, np.int64),
        "spread": np.arange(source.shape[0], dtype=np.int64) % bins,
    }
    for pattern, values in patterns.items():

        def write(w: _Writer, values: np.ndarray = values) -> None:
            loaded = w.load(source, "values", values)
            (name,) = w.copy(op, {op.operands[0]: loaded})
            position = w.store(name, result)
            counts = np.bincount(values, minlength=bins).astype(np.int64)
            w.expectations.append(
                Expectation(output=w.buffers[position].name, kind="counts", values=counts)
            )

        description = (
            f"tt.histogram values={pattern} {_short(source)} -> {_short(result)} "
            f"({_shape_text(source)} -> {bins} bins)"
        )
        build.add(op, description, write)


@dataclass(frozen=True)
class _Chain:
    """The shared-memory views from an allocation (or a value of unknown origin) to a use."""

    root: Type  # the memdesc type the views start from
    root_def: Operation | None  # the module's ttg.local_alloc defining it, if any
    views: tuple[Operation, ...]  # root first
    dynamic: int  # how many view indices are SSA values that are no constants


def _chain(build: _Build, name: str, typ: Type) -> _Chain:
    views: list[Operation] = []
    dynamic = 0
    while True:
        definer = build.defs.get(name)
        if definer is None or definer.name not in _VIEWS:
            break
        operands, _ = _types_or_skip(definer)
        if not operands or operands[0].kind != "memdesc" or not definer.operands:
            raise _SkipError(f"unreadable view {definer.name} at line {definer.line}")
        dynamic += sum(_constant(build, o) is None for o in definer.operands[1:])
        views.append(definer)
        name, typ = definer.operands[0], operands[0]
        if len(views) > 64:
            raise _SkipError("views nest too deep")
    root_def = definer if definer is not None and definer.name == "ttg.local_alloc" else None
    return _Chain(typ, root_def, tuple(reversed(views)), dynamic)


def _constant(build: _Build, name: str) -> int | None:
    """The value of ``name`` when an ``arith.constant 4 : i32`` of the module defines it."""
    definer = build.defs.get(name)
    if definer is None or definer.name != "arith.constant":
        return None
    try:
        (typ,) = [*definer.operand_types, *definer.result_types]  # `: i32` alone
    except (ModuleError, ValueError):
        return None
    if len(definer.literals) != 1 or typ.kind != "scalar" or integer_bits(typ.element) is None:
        return None
    return integer_literal(definer.literals[0])


def _apply_views(
    w: _Writer, views: Sequence[Operation], value: str, index: np.ndarray, last: bool
) -> tuple[str, np.ndarray]:
    """Copy ``views`` into the case from ``value``; ``index`` (the root's elements) seen
    through them.  A view index that is no constant is 0, or its largest value if ``last``."""
    for view in views:
        operands, results = _types_or_skip(view)
        if len(results) != 1 or results[0].kind != "memdesc":
            raise _SkipError(f"unreadable view {view.name} at line {view.line}")
        source, result = operands[0], results[0]
        # the extent of the view in each source dim (a dropped dim is 1 wide)
        sizes = [1] * (len(source.shape) - len(result.shape)) + list(result.shape)
        names = {view.operands[0]: value}
        picked: list[int] = []
        for j, operand in enumerate(view.operands[1:]):
            constant = _constant(w.build, operand)
            if constant is None:
                constant = source.shape[j] - sizes[j] if last and j < len(sizes) else 0
            picked.append(constant)
            names[operand] = w.fresh("index")
            w.emit(f"{names[operand]} = arith.constant {constant} : i32")
        if view.name == "ttg.memdesc_index":
            if len(picked) != 1 or not 0 <= picked[0] < index.shape[0]:
                raise _SkipError(f"memdesc_index {picked} out of {index.shape}")
            index = index[picked[0]]
        elif view.name in ("ttg.memdesc_subslice", "ttg.memdesc_subview"):
            if view.name == "ttg.memdesc_subslice":
                picked = list(view.static_indices or ())
            if len(picked) != index.ndim:
                raise _SkipError(f"{view.name} offsets {picked} for rank {index.ndim}")
            index = index[tuple(slice(o, o + s) for o, s in zip(picked, sizes))]
            index = index.reshape(result.shape)
        elif view.name == "ttg.memdesc_trans":
            index = index.transpose(_order_attr(view))
        else:
            index = index.reshape(result.shape)
        if index.shape != result.shape:
            raise _SkipError(f"{view.name} at line {view.line}: shape {index.shape}")
        (value,) = w.copy(view, names)
    return value, index


def _alloc(build: _Build, op: Operation) -> None:
    """A ttg.local_alloc with a value that no local_load case reads: read back blocked."""
    operands, results = _types_or_skip(op)
    (init,) = _tensors(operands, 1, "operands")
    if len(results) != 1 or results[0].kind != "memdesc" or len(op.operands) != 1:
        raise _SkipError("expected a tensor stored into one memdesc")
    memdesc = results[0]
    read = _blocked_type(build, memdesc)

    def write(w: _Writer) -> None:
        (buffer,) = w.copy(op, {op.operands[0]: w.load(init)})
        loaded = w.fresh("read")
        w.emit(f"{loaded} = ttg.local_load {buffer} : {memdesc.text} -> {_tensor(read)}")
        _move(w, w.store(loaded, read), np.zeros(read.shape, np.int64), _indices(read.shape))

    description = f"ttg.local_alloc {_short(init)} -> {_short(memdesc)} ({_shape_text(init)})"
    build.add(op, description, write)


def _blocked_type(build: _Build, typ: Type) -> Type:
    """The tensor of ``typ``'s shape and element in the harness's own blocked layout."""
    bits = element_type_bits(typ.element)
    alias, attribute = build.blocked_alias(typ.shape, (bits or 0) // 8)
    text = type_text(typ.shape, typ.element, alias)
    return Type("tensor", typ.shape, typ.element, attribute, text, alias)


def _shared(build: _Build, op: Operation, paired: dict[int, int]) -> None:
    """ttg.local_load (with the alloc that feeds it, if any) or ttg.local_store, through the
    views between them and the allocation; ``paired`` notes the allocs so exercised."""
    access = _access(build, op)
    for last in (False, True) if access.chain.dynamic else (False,):
        build.add(op, access.description(last), partial(access.write, last=last))
    root_def = access.chain.root_def
    if root_def is not None and access.init is not None:
        paired[build.positions[id(root_def)]] = op.line


@dataclass(frozen=True)
class _Access:
    """A ttg.local_load or ttg.local_store to exercise: the views from its allocation, the
    tensor it loads or stores, the memdesc it accesses, the initial value of the module's
    alloc feeding a local_load (if any) and how many memdesc_index views come first."""

    op: Operation
    chain: _Chain
    value_type: Type
    memdesc: Type
    init: Type | None
    leading: int

    def description(self, last: bool) -> str:
        chain, value_type = self.chain, self.value_type
        views = " -> ".join(v.name.split(".")[1] for v in chain.views)
        memory = chain.root.written_encoding + (f" via {views}" if views else "")
        pick = f" (dynamic index: {'last' if last else 0})" if chain.dynamic else ""
        if self.op.name == "ttg.local_load":
            text = f"ttg.local_load {memory} -> {_short(value_type)}"
            text = f"ttg.local_alloc {_short(self.init)} + {text}" if self.init else text
        else:
            text = f"ttg.local_store {_short(value_type)} -> {memory}"
        return f"{text} ({_shape_text(value_type)}){pick}"

    def write(self, w: _Writer, last: bool) -> None:
        op, chain, root = self.op, self.chain, self.chain.root
        if self.init is not None:  # the module's own alloc with its value
            assert chain.root_def is not None
            (value,) = w.copy(chain.root_def, {chain.root_def.operands[0]: w.load(self.init)})
            value, index = _apply_views(w, chain.views, value, _indices(root.shape), last)
        else:
            value = w.fresh("alloc")
            if op.name == "ttg.local_store":
                w.emit(f"{value} = ttg.local_alloc : () -> {root.text}")
                value, index = _apply_views(w, chain.views, value, _indices(root.shape), last)
            else:
                value, index = _written(w, chain, value, self.leading, last)
        if op.name == "ttg.local_load":
            (loaded,) = w.copy(op, {op.operands[0]: value}, drop_token=True)
            _move(w, w.store(loaded, self.value_type), np.zeros(index.shape, np.int64), index)
            return
        stored = w.load(self.value_type)
        w.copy(op, {op.operands[0]: stored, op.operands[1]: value}, drop_token=True)
        read = _blocked_type(w.build, self.value_type)
        loaded = w.fresh("read")
        w.emit(f"{loaded} = ttg.local_load {value} : {self.memdesc.text} -> {_tensor(read)}")
        _move(w, w.store(loaded, read), np.zeros(read.shape, np.int64), _indices(read.shape))


def _access(build: _Build, op: Operation) -> _Access:
    """Read a ttg.local_load or ttg.local_store and the views to its allocation; skip one
    the harness cannot set up."""
    operands, results = _types_or_skip(op)
    if op.name == "ttg.local_load":
        if not operands or operands[0].kind != "memdesc" or len(results) != 1:
            raise _SkipError("expected a memdesc loaded into one tensor")
        (value_type,) = _tensors(results, 1, "results")
        memdesc, chain = operands[0], _chain(build, op.operands[0], operands[0])
    else:  # ttg.local_store value, memdesc
        if len(operands) != 2 and len(operands) + len(results) == 2:
            operands = operands + results  # `local_store %v, %m : T -> M`
        if len(op.operands) != 2 or len(operands) != 2 or operands[1].kind != "memdesc":
            raise _SkipError("expected a tensor stored into a memdesc")
        (value_type,) = _tensors(operands[:1], 1, "operands")
        memdesc = operands[1]
        if value_type.shape != memdesc.shape:
            raise _SkipError(
                f"local_store of {value_type.shape} into {memdesc.shape}: expected the same shape"
            )
        chain = _chain(build, op.operands[1], memdesc)
    root = chain.root
    if root.alloc_dims and root.alloc_dims != root.shape:
        raise _SkipError(f"{root.text} is a view of an allocation the module does not show")
    init: Type | None = None
    if chain.root_def is not None and op.name == "ttg.local_load":
        init_types, _ = _types_or_skip(chain.root_def)
        if chain.root_def.operands:
            (init,) = _tensors(init_types, 1, "operands of the alloc")
    leading = 0  # memdesc_index views applied before the slab is written
    while leading < len(chain.views) and chain.views[leading].name == "ttg.memdesc_index":
        leading += 1
    if init is None and not root.mutable and (leading or op.name == "ttg.local_store"):
        raise _SkipError(f"{root.text} is immutable and has no initial value")
    return _Access(op, chain, value_type, memdesc, init, leading)


def _written(
    w: _Writer, chain: _Chain, value: str, leading: int, last: bool
) -> tuple[str, np.ndarray]:
    """Allocate ``chain.root`` and write a blocked tensor where the views read; the views'
    final value and which element of the written tensor each of its elements is."""
    root = chain.root
    if leading == 0:
        blocked = _blocked_type(w.build, root)
        init = w.load(blocked)
        w.emit(f"{value} = ttg.local_alloc {init} : ({blocked.text}) -> {root.text}")
        return _apply_views(w, chain.views, value, _indices(root.shape), last)
    w.emit(f"{value} = ttg.local_alloc : () -> {root.text}")
    slab_value, _ = _apply_views(w, chain.views[:leading], value, _indices(root.shape), last)
    _, (slab,) = _types_or_skip(chain.views[leading - 1])
    blocked = _blocked_type(w.build, slab)
    init = w.load(blocked)
    w.emit(f"ttg.local_store {init}, {slab_value} : {blocked.text} -> {slab.text}")
    return _apply_views(w, chain.views[leading:], slab_value, _indices(slab.shape), last)


def _definitions(module: TTGIRModule) -> dict[str, Operation]:
    """The operation defining each value of ``module`` (``%x``, and ``%x#1`` of ``%x:2``)."""
    defs: dict[str, Operation] = {}
    for op in module.ops:
        for name in op.results:
            defs[name] = defs[f"{name}#0"] = op
        defs.update((value, op) for value in op.result_values)
    return defs


def _reason(op: Operation, covered: dict[int, int], index: int) -> str:
    if index in covered:
        return f"exercised with the ttg.local_load of line {covered[index]}"
    if op.name in _VIEWS:
        return "shared-memory view: exercised only through the local_load/local_store cases"
    if op.name == "ttg.local_alloc":
        return "allocation without a value: exercised through the local_load/local_store cases"
    for names, reason in _REASONS:
        if any(op.name == n or (n.endswith((".", "_")) and op.name.startswith(n)) for n in names):
            return reason
    return "not an operation the harness exercises"


def _header(build: _Build) -> list[str]:
    module = build.module
    lines = [
        f"{name} = {value}"
        for name, value in module.aliases.items()
        if not value.startswith("loc(")
    ]
    lines += [f"{alias} = {text}" for text, alias in build.blocked.items()]
    attributes = [
        f'"ttg.num-ctas" = {module.num_ctas or 1} : i32',
        f'"ttg.num-warps" = {module.num_warps} : i32',
        f'ttg.target = "{module.target}"',
        f'"ttg.threads-per-warp" = {build.threads} : i32',
    ]
    lines.append(f"module attributes {{{', '.join(attributes)}}} {{")
    arguments = ", ".join(
        f"%{build.prefix}arg{b.arg}: !tt.ptr<{_stored(b.element)}> {{tt.divisibility = 16 : i32}}"
        for b in build.buffers
    )
    lines.append(f"  tt.func public @{_KERNEL}({arguments}) attributes {{noinline = false}} {{")
    return lines


def _check(
    module: TTGIRModule, ops: Sequence[int] | None, max_cases: int | None
) -> tuple[list[int], str, int]:
    """The chosen operation indices, the target and the warps; bad arguments raise."""
    if not isinstance(module, TTGIRModule):
        raise LayoutTypeError(f"Argument 'module' must be a TTGIRModule, not {shown(module)}.")
    if not module.target or not module.num_warps:
        raise LayoutError(
            "Argument 'module' must name its target and number of warps (ttg.target, "
            f"ttg.num-warps), not target={module.target!r}, num-warps={module.num_warps!r}."
        )
    if max_cases is not None and (
        isinstance(max_cases, bool) or not isinstance(max_cases, int) or max_cases < 1
    ):
        raise LayoutError(
            f"Argument 'max_cases' must be a positive int or None, not {shown(max_cases)}."
        )
    if ops is None:
        return list(range(len(module.ops))), module.target, module.num_warps
    chosen = list(ops) if isinstance(ops, Sequence) and not isinstance(ops, str) else None
    if chosen is None or any(
        isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(module.ops)
        for i in chosen
    ):
        raise LayoutError(
            f"Argument 'ops' must be a sequence of operation indices from 0 to "
            f"{len(module.ops) - 1}, not {shown(ops)}."
        )
    return sorted(set(chosen)), module.target, module.num_warps


def build_harness(
    module: TTGIRModule,
    *,
    ops: Sequence[int] | None = None,
    max_cases: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Harness:
    """The harness kernel that exercises each layout-carrying operation of ``module`` (those
    of ``ops``, indices into ``module.ops``, when given; at most ``max_cases`` cases).

    Every other operation of the selection that carries a tensor or memdesc type is in
    ``skipped`` with the reason.  ``progress`` hears how far the build is, every
    :data:`PROGRESS_S` seconds of a long one.

    Examples:
        >>> from llverify.ttgir import parse_module
        >>> module = parse_module('''#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
        ... #s = #ttg.slice<{dim = 1, parent = #b}>
        ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
        ...   %y = arith.addf %x, %x : tensor<16x32xf32, #b>
        ...   %e = tt.expand_dims %v {axis = 1 : i32} : tensor<16xf32, #s> -> tensor<16x1xf32, #b>
        ...   %z = tt.broadcast %e : tensor<16x1xf32, #b> -> tensor<16x32xf32, #b>
        ... }''')
        >>> harness = build_harness(module, ops=[0, 2])
        >>> [c.description for c in harness.cases]
        ['tt.broadcast #b -> #b (16x1xf32)']
        >>> harness.cases[0].expectations[0].source_index[3, :4].tolist()  # all from row 3
        [3, 3, 3, 3]
        >>> [(op.name, reason.split(':')[0]) for op, reason in harness.skipped]
        [('arith.addf', 'elementwise')]
    """  # noqa: E501
    chosen, target, warps = _check(module, ops, max_cases)
    names = {name for op in module.ops for name in op.names}
    prefix = "h"
    while any(n.startswith(f"%{prefix}") for n in names):
        prefix = "h" + prefix
    threads = module.threads_per_warp or (64 if target.startswith("hip") else 32)
    build = _Build(module, prefix, threads, max_cases=max_cases)
    build.defs = _definitions(module)
    build.positions.update((id(op), i) for i, op in enumerate(module.ops))
    skipped = _add_cases(build, chosen, progress)
    return _assemble(build, target, warps, skipped)


def _add_cases(
    build: _Build, chosen: list[int], progress: Callable[[str], None] | None = None
) -> list[tuple[Operation, str]]:
    """Add the cases of the chosen operations; those left out, with the reason, in module
    order.  An alloc with a value is exercised on its own only when no local_load case of
    it already is."""
    ops = build.module.ops
    skipped: list[tuple[Operation, str]] = []
    covered: dict[int, int] = {}  # an alloc's index -> the line of a local_load case using it
    deferred: list[int] = []  # allocs with a value, decided once the local_loads are known
    said = time.monotonic()
    for done, i in enumerate(chosen):
        if progress is not None and time.monotonic() - said >= PROGRESS_S:
            said = time.monotonic()
            progress(f"harness: {done} of {len(chosen)} ops read, {len(build.cases)} cases")
        if ops[i].types:
            reason = _exercise(build, ops[i], i, covered, deferred)
            if reason is not None:
                skipped.append((ops[i], reason))
    for i in deferred:
        if i in covered:
            skipped.append((ops[i], _reason(ops[i], covered, i)))
            continue
        try:
            _alloc(build, ops[i])
        except _SkipError as skip:
            skipped.append((ops[i], str(skip)))
    skipped.sort(key=lambda pair: build.positions[id(pair[0])])
    return skipped


def _exercise(
    build: _Build, op: Operation, index: int, covered: dict[int, int], deferred: list[int]
) -> str | None:
    """Add the cases of one operation (an alloc with a value goes to ``deferred``); why it
    is left out, or None."""
    try:
        if op.name in _MOVES or op.name in _SHAPES:
            _plain(build, op)
        elif op.name == "tt.gather":
            _gather(build, op)
        elif op.name in ("tt.reduce", "tt.scan"):
            _reduce_scan(build, op)
        elif op.name == "tt.histogram":
            _histogram(build, op)
        elif op.name in ("ttg.local_load", "ttg.local_store"):
            _shared(build, op, covered)
        elif op.name == "ttg.local_alloc" and op.operands:
            deferred.append(index)
        else:
            return _reason(op, covered, index)
    except _SkipError as skip:
        return str(skip)
    return None


def _assemble(
    build: _Build, target: str, warps: int, skipped: list[tuple[Operation, str]]
) -> Harness:
    """The harness: its header, the cases' lines (their line numbers shifted past the
    header) and the kernel's end."""
    header = _header(build)
    shift = len(header)
    cases = tuple(
        dataclasses.replace(
            c, harness_lines=(c.harness_lines[0] + shift, c.harness_lines[1] + shift)
        )
        for c in build.cases
    )
    text = "\n".join([*header, *build.lines, "    tt.return", "  }", "}"]) + "\n"
    return Harness(
        text=text,
        kernel=_KERNEL,
        target=target,
        num_warps=warps,
        threads_per_warp=build.threads,
        num_ctas=build.module.num_ctas or 1,
        cases=cases,
        skipped=tuple(skipped),
        buffers=tuple(build.buffers),
    )
