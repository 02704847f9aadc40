"""Audit rule ``shape-ops``: ``tt.trans``, ``tt.reshape``, ``tt.join``, ``tt.split``,
``tt.expand_dims`` and ``tt.broadcast`` move no data: every thread already holds, in the
register Triton 3.9's lowering reads, the operand element the op sends to each of its result
elements.

The linear-layouts paper shows these ops are closed over linear layouts: each maps the
operand's layout ``L`` to a result layout obtained by an operation on ``L``'s out dims
(permute them, re-split them row-major, add or drop a dim carried by a register bit, insert
or grow a size-1 dim).  A result type whose layout is not that one (a hand-edited encoding)
silently needs a ``convert_layout``.  What is proved, for each result hardware index ``h``
(register, lane, warp, block), with ``send`` the op's meaning on element coordinates:

* the thread of ``h`` holds ``send(L_res(h))`` in some register of the operand (else the op
  needs data movement between threads);
* the register the lowering reads for ``h`` holds exactly that element (else a register
  permutation is missing).  The lowering's register map: the same register for ``trans`` and
  ``reshape``; for ``join``/``split`` the register bit ``k`` that carries the last dim selects
  lhs/rhs (Triton 3.9's ``JoinOpConversion``/``SplitOpConversion``); ``expand_dims`` and
  ``broadcast`` look each result register's element up among the operand's registers of
  thread 0 (``emitOffsetForLayout``), so the lane/warp/block part must agree exactly.

Every function involved is affine over GF(2) in ``h``, so checking ``h = 0`` and every
single-bit ``h`` proves the claim for all hardware indices of the instance; a failure is a
concrete ``h`` that is replayed (both layouts evaluated with ``apply``) before it is reported.
``tt.reshape`` with ``allow_reorder`` may permute elements: when it is not the row-major
reshape it is proved a permutation (the operand and result layouts have the same register
count and the same kernel: copies stay copies), which is what Triton requires of it
(no data movement; Triton only compares free-variable masks).  ``tt.expand_dims`` also needs
a ``#ttg.slice`` operand whose parent is the result's layout, as Triton 3.9's verifier does.

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... #c = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
    ... #d = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    ...   %1 = tt.trans %0 {order = array<i32: 1, 0>} : tensor<64x32xf16, #b> -> tensor<32x64xf16, #c>
    ...   %2 = tt.trans %0 {order = array<i32: 1, 0>} : tensor<64x32xf16, #b> -> tensor<32x64xf16, #d>
    ... }'''
    >>> good, bad = [f for f in audit(text).findings if f.rule == NAME]
    >>> str(good.status), str(bad.status)
    ('proved', 'error')
    >>> bad.summary.split(":")[0]
    'needs data movement (a hidden convert_layout) between threads'
    >>> bad.data["hardware"]
    {'register': 4, 'lane': 0, 'warp': 0, 'block': 0}
"""  # noqa: E501

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from llverify.audit.context import AuditContext, Rule
from llverify.errors import LLVerifyError
from llverify.gf2 import EchelonBasis
from llverify.layout import LinearLayout
from llverify.proof.verdict import Status
from llverify.ttgir import Operation, Type

__all__ = ["NAME", "RULES", "check_shape_op"]

NAME = "shape-ops"
_OPS = ("tt.trans", "tt.reshape", "tt.join", "tt.split", "tt.expand_dims", "tt.broadcast")
#: the ops whose verdict reads their attributes (order, axis, allow_reorder)
_READS_ATTRIBUTES = frozenset({"tt.trans", "tt.reshape", "tt.expand_dims"})
_MOVES = "needs data movement (a hidden convert_layout)"
_THREAD = ("lane", "warp", "block")

Coord = tuple[int, ...]
Hardware = dict[str, int]
#: (result index, result element) -> (operand index, operand element)
Send = Callable[[int, Coord], tuple[int, Coord]]
#: (result index, result hardware index) -> (operand index, operand hardware index)
Reads = Callable[[int, Hardware], tuple[int, Hardware]]


class ShapeOpError(LLVerifyError, ValueError):
    """A shape op whose types or attributes this rule cannot read (reported as not analysed)."""


@dataclass(frozen=True)
class _Model:
    """One shape op: its operand layout (every operand shares it), its result layouts, what
    it means on elements (``send``) and which register the lowering reads (``reads``; None:
    looked up among the thread's registers by element, as expand_dims/broadcast do), and the
    register count per thread ``reads`` expects of each result (0 with no ``reads``)."""

    source: LinearLayout
    results: tuple[LinearLayout, ...]
    send: Send
    reads: Reads | None
    detail: str
    registers: int = 0


def _xor(a: Coord, b: Coord) -> Coord:
    return tuple(map(operator.xor, a, b))


def _size(layout: LinearLayout, dim: str) -> int:
    """``layout.get_in_dim_size(dim)`` (an in-dim of ``k`` bases has size ``2**k``), 1 for
    an in-dim the layout lacks."""
    return 1 << len(_bases(layout).get(dim, ()))


def _points(layout: LinearLayout) -> list[Hardware]:
    """``h = 0`` and every single-bit hardware index: an affine map equal on these is equal
    on every hardware index."""
    zero = {d: 0 for d in layout.get_in_dim_names()}
    points = [zero]
    for dim in layout.get_in_dim_names():
        for bit in range(layout.get_in_dim_size_log2(dim)):
            points.append({**zero, dim: 1 << bit})
    return points


def _points_at(layout: LinearLayout) -> list[tuple[Hardware, Coord]]:
    """:func:`_points` with ``layout`` at each (``_at``: 0 at ``h = 0``, the bit's basis
    vector at a single bit), read off the bases (kept in in-dim order)."""
    bases = _bases(layout)
    zero = dict.fromkeys(bases, 0)
    points = [(zero, (0,) * layout.num_out_dims)]
    for dim, vectors in bases.items():
        for bit, vector in enumerate(vectors):
            points.append(({**zero, dim: 1 << bit}, vector))
    return points


def _at(layout: LinearLayout, hardware: Hardware) -> Coord:
    """``layout(hardware)`` as a coordinate tuple: the XOR of the bases of the set bits (the
    checks evaluate mostly zero and single-bit indices; in-dims the layout lacks must be 0,
    and a value outside an in-dim's range is an error, as in ``LinearLayout.apply``)."""
    return _at_bases(_bases(layout), layout.num_out_dims, hardware)


def _at_bases(bases: dict[str, tuple[Coord, ...]], width: int, hardware: Hardware) -> Coord:
    """:func:`_at` of the layout whose bases per in-dim are ``bases`` and whose out dims are
    ``width`` many."""
    out: Coord | None = None
    for dim, value in hardware.items():
        if value == 0:
            continue  # adds nothing, and 0 is inside every range
        vectors = bases.get(dim, ())
        if value >> len(vectors):
            raise ShapeOpError(f"{dim}={value} is outside the layout's {1 << len(vectors)}")
        while value:
            low = value & -value  # the lowest set bit
            vector = vectors[low.bit_length() - 1]
            out = vector if out is None else tuple(map(operator.xor, out, vector))
            value ^= low
    return (0,) * width if out is None else out


#: id(layout) -> (layout, its bases per in-dim, its packing shifts): read per layout object
#: without hashing it (the layout is kept, so its id is not reused while it is stored)
_PER_LAYOUT: dict[int, tuple[LinearLayout, dict[str, tuple[Coord, ...]], tuple[int, ...]]] = {}
_PER_LAYOUT_MAX = 1024


def _bases(layout: LinearLayout) -> dict[str, tuple[Coord, ...]]:
    """Each in-dim's basis vectors (layouts are immutable values)."""
    found = _PER_LAYOUT.get(id(layout))
    return found[1] if found is not None and found[0] is layout else _per_layout(layout)[1]


def _per_layout(
    layout: LinearLayout,
) -> tuple[LinearLayout, dict[str, tuple[Coord, ...]], tuple[int, ...]]:
    found = _PER_LAYOUT.get(id(layout))
    if found is None or found[0] is not layout:
        if len(_PER_LAYOUT) >= _PER_LAYOUT_MAX:
            _PER_LAYOUT.clear()
        bases = {dim: tuple(tuple(v) for v in vectors) for dim, vectors in layout.bases}
        shifts, shift = [], 0
        for size in layout.get_out_dim_sizes():  # each dim of size 2**k takes k bits
            shifts.append(shift)
            shift += max(size - 1, 0).bit_length()
        found = _PER_LAYOUT[id(layout)] = (layout, bases, tuple(shifts))
    return found


def _registers(layout: LinearLayout) -> EchelonBasis:
    """The span of the operand's register images (packed): what a thread can hold relative
    to its register 0."""
    basis = EchelonBasis()
    for in_dim, vectors in layout.bases:
        if in_dim == "register":
            for vector in vectors:
                basis.insert(_pack(layout, tuple(vector)))
    return basis


def _pack(layout: LinearLayout, coord: Coord) -> int:
    return _pack_shifts(_per_layout(layout)[2], coord)


def _pack_shifts(shifts: tuple[int, ...], coord: Coord) -> int:
    """``coord`` packed into one integer, out dim ``d`` from bit ``shifts[d]``."""
    packed = 0
    for value, shift in zip(coord, shifts):
        packed |= value << shift
    return packed


def _describe(hardware: Hardware) -> str:
    return ", ".join(f"{d}={v}" for d, v in hardware.items())


def _held(source: LinearLayout, thread: Hardware, element: Coord) -> bool:
    """Replay: whether some register of ``thread`` holds ``element`` in the operand."""
    return any(
        _at(source, {**thread, "register": r}) == element for r in range(_size(source, "register"))
    )


def _first_registers(source: LinearLayout) -> dict[int, int]:
    """Element (packed, :func:`_pack`) -> the first register of thread 0 that holds it (the
    lowering's lookup)."""
    vectors = [_pack(source, v) for v in _bases(source).get("register", ())]
    first = {0: 0}
    held = [0]  # held[r]: register r's element, packed, r in order
    for r in range(1, 1 << len(vectors)):
        # register r holds r's lowest bit's basis XOR what r without that bit holds
        low = r & -r
        element = held[r ^ low] ^ vectors[low.bit_length() - 1]
        held.append(element)
        if element not in first:
            first[element] = r
    return first


Outcome = tuple[Status, str, dict[str, Any]]


class _Sent(NamedTuple):
    """Result ``result`` at hardware index ``h`` holds ``element``, which the op takes from
    operand ``operand`` element ``wanted``."""

    result: int
    h: Hardware
    element: Coord
    operand: int
    wanted: Coord

    def data(self, kind: str) -> dict[str, Any]:
        return {
            "kind": kind,
            "result": self.result,
            "hardware": dict(self.h),
            "result_element": list(self.element),
            "operand": self.operand,
            "operand_element": list(self.wanted),
        }


class _Read(NamedTuple):
    """What one model's point checks read of its layouts, looked up once: the operand's
    bases, packing shifts, out dims and registers per thread, each result's bases."""

    bases: dict[str, tuple[Coord, ...]]
    shifts: tuple[int, ...]
    width: int
    registers: int
    results: tuple[dict[str, tuple[Coord, ...]], ...]


def _check_model(model: _Model) -> Outcome:
    """Prove, for every result hardware index, that its thread holds the element the op
    sends there, in the register the lowering reads; else a replayed counterexample."""
    span = _registers(model.source)
    first_register = _first_registers(model.source) if model.reads is None else {}
    _, bases, shifts = _per_layout(model.source)
    fast = _Read(
        bases,
        shifts,
        model.source.num_out_dims,
        _size(model.source, "register"),
        tuple(_bases(result) for result in model.results),
    )
    for index, result in enumerate(model.results):
        for h, element in _points_at(result):
            operand, wanted = model.send(index, element)
            sent = _Sent(index, h, element, operand, wanted)
            failure = _check_point(model, span, first_register, sent, fast)
            if failure is not None:
                return failure
    for index, result in enumerate(model.results):
        if model.reads is not None and _size(result, "register") != model.registers:
            summary = (
                f"{_MOVES} within a thread: result {index} has {_size(result, 'register')} "
                f"registers per thread, but Triton 3.9's lowering passes the operand's "
                f"{_size(model.source, 'register')} registers on as {model.registers}"
            )
            return Status.ERROR, summary, {"kind": "register count", "result": index}
    count = max(r.get_total_in_dim_size() for r in model.results)
    summary = (
        f"no data movement: every thread keeps its own elements{model.detail} "
        f"(proved over all {count} hardware indices of the result)"
    )
    return Status.PROVED, summary, {"kind": "no data movement"}


def _check_point(
    model: _Model,
    span: EchelonBasis,
    first_register: dict[int, int],
    sent: _Sent,
    fast: _Read,
) -> Outcome | None:
    """One result hardware index: its thread holds what the op sends it (else the error
    between threads), in the register the lowering reads (else the error within it)."""
    source, h = model.source, sent.h
    thread = {"lane": h.get("lane", 0), "warp": h.get("warp", 0), "block": h.get("block", 0)}
    here = _at_bases(fast.bases, fast.width, thread)
    if span.express(_pack_shifts(fast.shifts, _xor(sent.wanted, here))) is None:
        if _held(source, thread, sent.wanted):  # the proof's span test disagrees: a bug
            raise ShapeOpError("the register-span test and its replay disagree")
        summary = (
            f"{_MOVES} between threads: result {sent.result} at [{_describe(h)}] holds "
            f"element {sent.element}, which the op takes from operand element {sent.wanted}, "
            f"held by no register of that thread ({_describe(thread)})"
        )
        return Status.ERROR, summary, sent.data("between threads")
    got_operand, read = _lowering_read(model, first_register, sent, thread, fast)
    if read["register"] >= fast.registers:
        summary = (
            f"{_MOVES} within a thread: Triton 3.9's lowering reads register "
            f"{read['register']} of operand {got_operand} for result {sent.result} at "
            f"[{_describe(h)}], but the operand has {_size(source, 'register')} registers per "
            "thread"
        )
        return Status.ERROR, summary, {"kind": "register count", "result": sent.result,
                                       "hardware": dict(h)}  # fmt: skip
    got = _at_bases(fast.bases, fast.width, read)
    if (got_operand, got) == (sent.operand, sent.wanted):
        return None
    summary = (
        f"{_MOVES} within a thread: result {sent.result} at [{_describe(h)}] holds element "
        f"{sent.element}, which the op takes from operand {sent.operand} element "
        f"{sent.wanted}, but Triton 3.9's lowering reads operand {got_operand} at "
        f"[{_describe(read)}], which holds {got}"
    )
    data = sent.data("within a thread")
    data.update(read=dict(read), read_element=list(got))
    return Status.ERROR, summary, data


def _lowering_read(
    model: _Model, first_register: dict[int, int], sent: _Sent, thread: Hardware, fast: _Read
) -> tuple[int, Hardware]:
    """The operand and hardware index the lowering reads for ``sent``: by ``model.reads``,
    or looked up by the register part's element in thread 0 and used in this thread."""
    if model.reads is not None:
        return model.reads(sent.result, sent.h)
    width = model.results[sent.result].num_out_dims
    own = _at_bases(fast.results[sent.result], width, {"register": sent.h.get("register", 0)})
    register = first_register.get(_pack_shifts(fast.shifts, model.send(sent.result, own)[1]))
    if register is None:  # the span test has already ruled this out
        raise ShapeOpError("the register-span test and its replay disagree")
    return sent.operand, {**thread, "register": register}


def _row_major(shape: Sequence[int]) -> tuple[Callable[[Coord], int], Callable[[int], Coord]]:
    """Flatten a coordinate of ``shape`` to its row-major index, and back."""

    def flatten(coord: Coord) -> int:
        index = 0
        for value, size in zip(coord, shape):
            index = index * size + value
        return index

    def unflatten(index: int) -> Coord:
        coord = []
        for size in reversed(shape):
            coord.append(index % size)
            index //= size
        return tuple(reversed(coord))

    return flatten, unflatten


def _identity_reads(index: int, h: Hardware) -> tuple[int, Hardware]:
    return 0, dict(h)


def _register_bit(layout: LinearLayout, dim: int) -> int | None:
    """The first register bit whose basis has coordinate 1 along ``dim`` (the bit Triton
    3.9's join/split lowering splits the registers on), or None."""
    for in_dim, vectors in layout.bases:
        if in_dim == "register":
            for bit, vector in enumerate(vectors):
                if vector[dim] == 1:
                    return bit
    return None


def _carrier(layout: LinearLayout, dim: int) -> str:
    """Which hardware bits carry out dim ``dim`` (for a message)."""
    found = [
        f"{in_dim} bit {bit}"
        for in_dim, vectors in layout.bases
        for bit, vector in enumerate(vectors)
        if vector[dim]
    ]
    return ", ".join(found) or "no bit"


def _trans(source: LinearLayout, result: LinearLayout, op: Operation) -> _Model:
    written = op.attributes.get("order")
    rank = source.num_out_dims
    order = list(op.attributes.integers("order") or ())
    if sorted(order) != list(range(rank)):
        raise ShapeOpError(
            f"tt.trans: attribute 'order' must be a permutation of 0..{rank - 1}, not "
            f"{'missing' if written is None else f'order = {written}'}."
        )

    def send(index: int, coord: Coord) -> tuple[int, Coord]:
        operand = [0] * rank
        for position, dim in enumerate(order):
            operand[dim] = coord[position]
        return 0, tuple(operand)

    registers = _size(source, "register")
    return _Model(source, (result,), send, _identity_reads, f" (order {order})", registers)


def _reshape(source: LinearLayout, result: LinearLayout, src: Type, dst: Type) -> _Model:
    flatten, _ = _row_major(dst.shape)
    _, unflatten = _row_major(src.shape)

    def send(index: int, coord: Coord) -> tuple[int, Coord]:
        return 0, unflatten(flatten(coord))

    registers = _size(source, "register")
    return _Model(source, (result,), send, _identity_reads, " (row-major reshape)", registers)


def _join(source: LinearLayout, result: LinearLayout) -> _Model | str:
    last = result.num_out_dims - 1
    k = _register_bit(result, last)
    if k is None:
        return (
            f"{_MOVES}: no register bit carries the joined dim (Triton 3.9's lowering needs "
            f"one; it is carried by {_carrier(result, last)})"
        )
    low = (1 << k) - 1

    def send(index: int, coord: Coord) -> tuple[int, Coord]:
        return coord[-1], coord[:-1]

    def reads(index: int, h: Hardware) -> tuple[int, Hardware]:
        r = h.get("register", 0)
        register = ((r >> (k + 1)) << k) | (r & low)
        return (r >> k) & 1, {**h, "register": register}

    detail = f" (joined dim on register bit {k})"
    return _Model(source, (result,), send, reads, detail, 2 * _size(source, "register"))


def _split(source: LinearLayout, result: LinearLayout) -> _Model | str:
    last = source.num_out_dims - 1
    k = _register_bit(source, last)
    if k is None:
        return (
            f"{_MOVES}: no register bit of the operand carries the split dim (Triton 3.9's "
            f"lowering needs one; it is carried by {_carrier(source, last)})"
        )
    low = (1 << k) - 1

    def send(index: int, coord: Coord) -> tuple[int, Coord]:
        return 0, (*coord, index)

    def reads(index: int, h: Hardware) -> tuple[int, Hardware]:
        r = h.get("register", 0)
        register = ((r >> k) << (k + 1)) | (index << k) | (r & low)
        return 0, {**h, "register": register}

    detail = f" (split dim on register bit {k})"
    return _Model(source, (result, result), send, reads, detail, _size(source, "register") // 2)


def _axis(op: Operation, rank: int) -> int:
    """``tt.expand_dims``'s ``axis`` attribute, in ``[0, rank)``."""
    found = op.attributes.integer("axis")
    axis = -1 if found is None else found
    if not 0 <= axis < rank:
        raise ShapeOpError(
            f"tt.expand_dims: attribute 'axis' must be in [0, {rank}), not "
            f"{'missing' if found is None else found}."
        )
    return axis


def _expand_dims(source: LinearLayout, result: LinearLayout, axis: int) -> _Model:
    def send(index: int, coord: Coord) -> tuple[int, Coord]:
        return 0, coord[:axis] + coord[axis + 1 :]

    return _Model(source, (result,), send, None, f" (new dim {axis})")


def _broadcast(source: LinearLayout, result: LinearLayout, src: Type) -> _Model:
    ones = [d for d, size in enumerate(src.shape) if size == 1]

    def send(index: int, coord: Coord) -> tuple[int, Coord]:
        return 0, tuple(0 if d in ones else v for d, v in enumerate(coord))

    return _Model(source, (result,), send, None, f" (broadcast dims {ones})")


def _columns(layout: LinearLayout) -> list[int]:
    """The packed image of every hardware bit, in-dim by in-dim."""
    return [_pack(layout, tuple(v)) for _, vectors in layout.bases for v in vectors]


def _hardware(layout: LinearLayout, mask: int) -> Hardware:
    """The hardware index whose bits (in-dim by in-dim, low bits first) are ``mask``."""
    out: Hardware = {}
    for dim in layout.get_in_dim_names():
        width = layout.get_in_dim_size_log2(dim)
        out[dim] = mask & ((1 << width) - 1)
        mask >>= width
    return out


def _kernel_gap(a: list[int], b: list[int]) -> int | None:
    """A hardware mask ``x`` with ``a(x) == 0`` and ``b(x) != 0``, or None."""
    basis = EchelonBasis()
    for i, column in enumerate(a):
        combination = basis.express(column)
        if combination is not None:
            x = combination | (1 << i)
            value = 0
            for j, other in enumerate(b):
                if x >> j & 1:
                    value ^= other
            if value:
                return x
        basis.insert(column)
    return None


def _reorder(source: LinearLayout, result: LinearLayout) -> tuple[Status, str, dict[str, Any]]:
    """``allow_reorder``: the registers, passed as they are, form a permutation of the
    operand's elements: same hardware sizes and the same kernel (copies stay copies)."""
    sizes = {d: (_size(source, d), _size(result, d)) for d in ("register", *_THREAD)}
    unequal = {d: s for d, s in sizes.items() if s[0] != s[1]}
    if unequal:
        dim, (m, n) = next(iter(unequal.items()))
        summary = f"{_MOVES}: allow_reorder, but the operand has {m} {dim}s and the result {n}"
        return Status.ERROR, summary, {"kind": "register count", "sizes": sizes}
    cols_src, cols_res = _columns(source), _columns(result)
    for first, second, name in ((cols_src, cols_res, "operand"), (cols_res, cols_src, "result")):
        x = _kernel_gap(first, second)
        if x is None:
            continue
        h = _hardware(source, x)
        zero = {d: 0 for d in source.get_in_dim_names()}
        pair = [(_at(source, p), _at(result, p)) for p in (zero, h)]
        same = 0 if name == "operand" else 1
        if pair[0][same] != pair[1][same] or pair[0][1 - same] == pair[1][1 - same]:
            raise ShapeOpError("the kernel test and its replay disagree")
        other = "result" if name == "operand" else "operand"
        summary = (
            f"{_MOVES}: allow_reorder, but [{_describe(h)}] and [{_describe(zero)}] hold the "
            f"same {name} element {pair[0][same]} and different {other} elements "
            f"({pair[1][1 - same]} vs {pair[0][1 - same]}): the registers as they are are no "
            "permutation of the operand"
        )
        data = {"kind": "reorder", "hardware": h, "copies_in": name}
        return Status.ERROR, summary, data
    summary = (
        "no data movement: allow_reorder, the result is a permutation of the operand's "
        "elements and every thread keeps its values (same register count, same kernel; "
        f"proved over all {source.get_total_in_dim_size()} hardware indices)"
    )
    return Status.PROVED, summary, {"kind": "reorder"}


def _slice_parent(
    ctx: AuditContext, src: Type, result: LinearLayout, dst: Type, axis: int
) -> tuple[Status, str, dict[str, Any]] | None:
    """Triton 3.9's own requirement on expand_dims: a ``#ttg.slice`` operand along ``axis``
    whose parent, on the result's shape, is the result's layout (None when it holds)."""
    from llverify.encodings import SliceLayout, to_encoding

    encoding, _ = to_encoding(src.encoding)  # parsed once per process
    if not isinstance(encoding, SliceLayout) or encoding.dim != axis:
        summary = (
            f"not the layout Triton 3.9 infers: tt.expand_dims along {axis} needs a "
            f"#ttg.slice<{{dim = {axis}, ...}}> operand (Triton's verifier rejects this op)"
        )
        return Status.ERROR, summary, {"kind": "not a slice"}
    parent = ctx.layout(dataclasses.replace(dst, encoding=encoding.parent.ttgir()))
    if parent == result:
        return None
    h = next(p for p in _points(result) if _at(parent, p) != _at(result, p))
    summary = (
        f"not the layout Triton 3.9 infers: the result is not the slice's parent "
        f"({encoding.parent.ttgir()}): at [{_describe(h)}] the parent holds "
        f"{_at(parent, h)}, the result {_at(result, h)} (Triton's verifier rejects this op)"
    )
    return Status.ERROR, summary, {"kind": "not the parent", "hardware": h}


def _distributed(op: Operation) -> list[Type]:
    return [t for t in op.types if t.kind == "tensor" and t.encoding]


def _verdict(ctx: AuditContext, op: Operation) -> tuple[Status, str, dict[str, Any]]:
    src, dst = _distributed(op)[0], _distributed(op)[-1]
    source, result = ctx.layout(src), ctx.layout(dst)
    for dim in _THREAD:
        if _size(source, dim) != _size(result, dim):
            raise ShapeOpError(
                f"{op.name}: the operand has {_size(source, dim)} {dim}s, the result "
                f"{_size(result, dim)}."
            )
    model: _Model | str
    if op.name == "tt.trans":
        model = _trans(source, result, op)
    elif op.name == "tt.reshape":
        model = _reshape(source, result, src, dst)
    elif op.name == "tt.join":
        model = _join(source, result)
    elif op.name == "tt.split":
        model = _split(source, result)
    elif op.name == "tt.expand_dims":
        model = _expand_dims(source, result, _axis(op, result.num_out_dims))
    else:
        model = _broadcast(source, result, src)
    if isinstance(model, str):
        return Status.ERROR, model, {"kind": "no register bit"}
    status, summary, data = _check_model(model)
    reorder = op.name == "tt.reshape" and op.flag("allow_reorder")
    if reorder and status is not Status.PROVED:
        status, summary, data = _reorder(source, result)
    if op.name == "tt.expand_dims" and status is Status.PROVED:
        wrong = _slice_parent(ctx, src, result, dst, _axis(op, result.num_out_dims))
        if wrong is not None:
            return wrong
    if op.name == "tt.reshape":
        data["allow_reorder"] = reorder
        data["efficient_layout"] = op.flag("efficient_layout")
    return status, summary, data


def check_shape_op(ctx: AuditContext, op: Operation) -> None:
    """Prove that a shape op's result layout needs no data movement from its operand's
    (cached per op name, the attributes the verdict reads and the types; an op whose
    :attr:`~llverify.ttgir.Operation.pattern` an earlier op had gets that op's verdict
    without reading its attributes)."""
    tensors = _distributed(op)
    if len(tensors) < 2:
        ctx.skip(op, NAME, "could not read an operand and a result distributed tensor type")
        return
    cache = ctx.state.setdefault(NAME, {})
    pattern = op.pattern
    found = None if pattern is None else cache.get(pattern)
    if found is None:
        flags = None  # broadcast, join and split: the verdict reads no attribute
        if op.name in _READS_ATTRIBUTES:
            flags = (
                op.attributes.get("order"),
                op.attributes.get("axis"),
                op.flag("allow_reorder"),
                op.flag("efficient_layout"),  # reported in a reshape's data
            )
        key = (op.name, flags, tuple((t.shape, t.encoding) for t in tensors))
        found = cache.get(key)
        if found is None:
            found = cache[key] = _verdict(ctx, op)
        if pattern is not None:
            cache[pattern] = found
    status, summary, data = found
    ctx.finding(op, status, summary, rule=NAME, data=dict(data))


RULES = (
    Rule(
        NAME,
        frozenset(_OPS),
        check_shape_op,
        "trans/reshape/join/split/expand_dims/broadcast results need no data movement: "
        "each thread holds, in the register the lowering reads, what the op sends it",
    ),
)
