"""What each plain LLVM instruction does to every thread's values (arithmetic, memory, phi...).

Each handler takes the running execution (``run``: an
:class:`~llverify.emitted.sim.executor.Execution`), the instruction and the mask of active
threads, and returns the result value.  Integer arithmetic on concrete values is exact
(two's complement at the instruction's width).  On tagged data, byte-moving operations move
byte symbols (truncation, extension by zeros, shifts and masks by whole bytes, bitcasts,
vector packing); every other computation on data is a DAG node
(:meth:`Execution.data_op`).

Examples:
    >>> ty = Type("int", bits=32)
    >>> a = Val.concrete(np.array([1, 2], dtype=np.uint64), 32, 2)
    >>> _integer_op("sub", a, Val.concrete(3, 32, 2), ty).ints.tolist()
    [4294967294, 4294967295]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from llverify.emitted.sim.llvm_ir import Instruction, Type, Value
from llverify.emitted.sim.symbolic import UNDEFINED, Unmodelled, Val

__all__ = ["HANDLERS", "SHARED_WINDOW", "bits_of", "merge", "nbytes_of"]

SHARED_WINDOW = 1 << 60  # generic addresses of shared memory


def merge(mask: np.ndarray, new: Val, old: Val) -> Val:
    """``new`` in the threads of ``mask``, ``old`` elsewhere."""
    if new.ints is not None and old.ints is not None and new.bits == old.bits:
        return Val(new.bits, ints=np.where(mask, new.ints, old.ints))
    a, b = new.byte_symbols(), old.byte_symbols()
    if a.shape != b.shape:
        return new
    return Val(new.bits, syms=np.where(mask[:, None], a, b)).normalised()


def bits_of(ty: Type) -> int:
    """The width of a value of ``ty`` (vectors and structs: their bytes times 8)."""
    if ty.kind in ("int", "float"):
        return ty.bits
    if ty.kind == "ptr":
        return 64 if ty.space in (0, 1) else 32
    return nbytes_of(ty) * 8


def nbytes_of(ty: Type) -> int:
    """Bytes of a value of ``ty`` inside the executor (an i1 takes a byte)."""
    if ty.kind in ("int", "float"):
        return max(1, (ty.bits + 7) // 8)
    if ty.kind == "ptr":
        return 8 if ty.space in (0, 1) else 4
    if ty.kind in ("vector", "array"):
        assert ty.element is not None
        return ty.count * nbytes_of(ty.element)
    if ty.kind == "struct":
        return sum(nbytes_of(f) for f in ty.fields)
    raise Unmodelled(f"a value of type {ty}")


def _mask(bits: int) -> np.uint64:
    return np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)


def _signed(values: np.ndarray, bits: int) -> np.ndarray:
    as_int = values.astype(np.int64) if bits == 64 else values.astype(np.int64)
    if bits < 64:
        sign = np.int64(1 << (bits - 1))
        as_int = (as_int ^ sign) - sign
    return as_int


def _integer_op(op: str, a: Val, b: Val, ty: Type) -> Val:
    bits = ty.bits
    x, y = a.integers(), b.integers()
    threads = x.shape[0]
    with np.errstate(all="ignore"):
        if op == "add":
            r = x + y
        elif op == "sub":
            r = x - y
        elif op == "mul":
            r = x * y
        elif op == "and":
            r = x & y
        elif op == "or":
            r = x | y
        elif op == "xor":
            r = x ^ y
        elif op == "shl":
            r = np.where(y < bits, x << np.minimum(y, np.uint64(63)), 0)
        elif op == "lshr":
            r = np.where(y < bits, x >> np.minimum(y, np.uint64(63)), 0)
        elif op == "ashr":
            r = (_signed(x, bits) >> np.minimum(y, np.uint64(63)).astype(np.int64)).astype(
                np.uint64
            )
        elif op in ("udiv", "urem"):
            safe = np.where(y == 0, 1, y)
            r = x // safe if op == "udiv" else x % safe
        elif op in ("sdiv", "srem"):
            sx, sy = _signed(x, bits), _signed(y, bits)
            sy = np.where(sy == 0, 1, sy)
            quotient = np.trunc(sx / sy).astype(np.int64) if bits < 53 else sx // sy
            r = (quotient if op == "sdiv" else sx - quotient * sy).astype(np.uint64)
        else:
            raise Unmodelled(f"integer operation {op}")
    return Val.concrete(np.asarray(r, dtype=np.uint64) & _mask(bits), bits, threads)


_BYTE = np.int64(-1)  # the constant byte 0


def _bytewise(op: str, a: Val, b: Val, nbytes: int) -> np.ndarray | None:
    """Byte symbols of ``a op b`` when the op only keeps or clears whole bytes, else None."""
    sa, sb = a.byte_symbols(), b.byte_symbols()
    zero_a, zero_b = sa == _BYTE, sb == _BYTE
    if op in ("or", "xor", "add"):
        if (zero_a | zero_b).all():
            return np.where(zero_a, sb, sa)
        return None
    if op == "and":
        full_a, full_b = sa == -256, sb == -256  # constant byte 0xFF
        keep = np.where(full_b, sa, np.where(full_a, sb, 0))
        ok = (full_a | full_b | zero_a | zero_b).all()
        if not ok:
            return None
        return np.where(zero_a | zero_b, _BYTE, keep)
    return None


def _shift_bytes(op: str, a: Val, amount: np.ndarray, nbytes: int) -> np.ndarray | None:
    if amount.size == 0 or (amount % 8 != 0).any() or (amount != amount[0]).any():
        return None
    k = int(amount[0]) // 8
    sa = a.byte_symbols()
    out = np.full_like(sa, _BYTE)
    if k >= nbytes:
        return out
    if op == "shl":
        out[:, k:] = sa[:, : nbytes - k]
    else:
        out[:, : nbytes - k] = sa[:, k:]
    return out


def _binary(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    ty = ins.type
    if ty.kind == "vector":
        return _elementwise(run, ins, mask)
    a, b = (run.value(o) for o in ins.operands)
    op = ins.opcode
    if ty.kind == "float":
        return run.data_op(op, [a, b], nbytes_of(ty))
    if a.ints is not None and b.ints is not None:
        return _integer_op(op, a, b, ty)
    nbytes = nbytes_of(ty)
    if ty.bits % 8 == 0:
        if op in ("shl", "lshr") and b.ints is not None:
            moved = _shift_bytes(op, a, b.integers()[mask] if mask.any() else b.ints, nbytes)
            if moved is not None:
                return Val(ty.bits, syms=moved).normalised()
        moved = _bytewise(op, a, b, nbytes)
        if moved is not None:
            return Val(ty.bits, syms=moved).normalised()
    if a.is_concrete() and b.is_concrete():
        return _integer_op(op, a.normalised(), b.normalised(), ty)
    return run.data_op(op, [a, b], nbytes)


def _elementwise(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    """A vector op (arithmetic, compare, select on a vector condition), one element at a time;
    each operand is split by its own element type."""
    ty = ins.type
    element = ty.element
    assert element is not None
    types = [o.type.element or o.type for o in ins.operands]
    operands = [run.value(o).byte_symbols() for o in ins.operands]
    parts = []
    for k in range(ty.count):
        pieces = []
        for part, syms in zip(types, operands):
            width = nbytes_of(part)
            piece = syms[:, k * width : (k + 1) * width]
            pieces.append(Val(bits_of(part), syms=piece).normalised())
        scalar = Instruction(ins.result, ins.opcode, element, [], dict(ins.extra))
        parts.append(_scalar_apply(run, scalar, pieces, types, mask).byte_symbols())
    return Val(bits_of(ty), syms=np.concatenate(parts, axis=1)).normalised()


def _scalar_apply(
    run: Any, ins: Instruction, values: list[Val], types: list[Any], mask: np.ndarray
) -> Val:
    names = [f"%__operand{k}" for k in range(len(values))]
    for name, val in zip(names, values):
        run.env[name] = val
    ins.operands = [Value(ty, name) for ty, name in zip(types, names)]
    try:
        return HANDLERS[ins.opcode](run, ins, mask)  # type: ignore[return-value]
    finally:
        for name in names:
            run.env.pop(name, None)


def _compare(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    operand_type = ins.operands[0].type
    if operand_type.kind == "vector":
        return _elementwise(run, ins, mask)
    a, b = (run.value(o) for o in ins.operands)
    predicate = str(ins.extra["predicate"])
    if ins.opcode == "fcmp" or not (a.ints is not None and b.ints is not None):
        if ins.opcode == "icmp" and a.is_concrete() and b.is_concrete():
            a, b = a.normalised(), b.normalised()
        else:
            return run.data_op(f"{ins.opcode}.{predicate}", [a, b], 1)
    bits = operand_type.bits if operand_type.kind == "int" else 64
    x, y = a.integers(), b.integers()
    if predicate.startswith("s"):
        x, y = _signed(x, bits), _signed(y, bits)
    table = {
        "eq": x == y, "ne": x != y, "ugt": x > y, "uge": x >= y, "ult": x < y, "ule": x <= y,
        "sgt": x > y, "sge": x >= y, "slt": x < y, "sle": x <= y,
    }  # fmt: skip
    if predicate not in table:
        raise Unmodelled(f"icmp predicate {predicate}")
    return Val.concrete(table[predicate].astype(np.uint64), 1, x.shape[0])


def _select(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    if ins.operands[0].type.kind == "vector":
        return _elementwise(run, ins, mask)
    cond, a, b = (run.value(o) for o in ins.operands)
    if not cond.is_concrete():
        return run.data_op("select", [cond, a, b], nbytes_of(ins.type))
    chosen = cond.normalised().integers().astype(bool)
    return merge(chosen, a, b)


def _cast(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    op = ins.opcode
    source = run.value(ins.operands[0])
    src_ty, ty = ins.operands[0].type, ins.type
    if src_ty.kind == "vector" and op not in ("bitcast",):
        return _elementwise_cast(run, ins, mask)
    if op in ("bitcast", "ptrtoint", "inttoptr", "addrspacecast", "freeze"):
        if op == "addrspacecast":
            return _address_space_cast(source, src_ty, ty)
        if nbytes_of(src_ty) != nbytes_of(ty) and op == "bitcast":
            raise Unmodelled(f"a bitcast from {src_ty} to {ty}")
        if (
            op == "bitcast"
            and ty.kind == "vector"
            and ty.element is not None
            and ty.element.bits < 8
        ):
            raise Unmodelled(f"a bitcast to {ty}")
        return _retype(source, ty)
    if op in ("zext", "sext", "trunc"):
        bits = ty.bits
        source = source.normalised()
        if source.ints is not None:
            values = source.ints
            if op == "sext":
                values = _signed(values, src_ty.bits).astype(np.uint64)
            return Val.concrete(values & _mask(bits), bits, values.shape[0])
        syms = source.byte_symbols()
        nbytes = nbytes_of(ty)
        if src_ty.bits % 8 == 0 and bits % 8 == 0:
            if op == "sext":  # the low bytes are the source's own; the rest its sign
                high = run.data_op(f"sext.{src_ty.bits}.{bits}", [source], nbytes).syms
                assert high is not None
                return Val(bits, syms=np.concatenate([syms, high[:, syms.shape[1] :]], axis=1))
            if op == "trunc":
                return Val(bits, syms=syms[:, :nbytes].copy()).normalised()
            if op == "zext":
                pad = np.full((syms.shape[0], nbytes - syms.shape[1]), _BYTE, dtype=np.int64)
                return Val(bits, syms=np.concatenate([syms, pad], axis=1)).normalised()
        return run.data_op(f"{op}.{src_ty.bits}.{bits}", [source], nbytes)
    return run.data_op(f"{op}.{src_ty}.{ty}", [source], nbytes_of(ty))


def _elementwise_cast(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    src_ty, ty = ins.operands[0].type, ins.type
    assert src_ty.element is not None and ty.element is not None
    width = nbytes_of(src_ty.element)
    syms = run.value(ins.operands[0]).byte_symbols()
    parts = []
    for k in range(src_ty.count):
        piece = Val(bits_of(src_ty.element), syms=syms[:, k * width : (k + 1) * width]).normalised()
        name = "%__cast"
        run.env[name] = piece
        scalar = Instruction(ins.result, ins.opcode, ty.element, [Value(src_ty.element, name)], {})
        try:
            parts.append(_cast(run, scalar, mask).byte_symbols())
        finally:
            run.env.pop(name, None)
    return Val(bits_of(ty), syms=np.concatenate(parts, axis=1)).normalised()


def _retype(source: Val, ty: Type) -> Val:
    bits = bits_of(ty)
    if source.ints is not None and bits <= 64 and ty.kind not in ("vector", "struct", "array"):
        return Val(bits, ints=source.ints.copy())
    return (
        Val(bits, syms=source.byte_symbols()).normalised()
        if bits <= 64
        else Val(bits, syms=source.byte_symbols())
    )


def _address_space_cast(source: Val, src_ty: Type, ty: Type) -> Val:
    values = source.integers(what="pointer")
    if src_ty.space == 3 and ty.space == 0:
        return Val(64, ints=(values & np.uint64(0xFFFFFFFF)) + np.uint64(SHARED_WINDOW))
    if src_ty.space == 0 and ty.space == 3:
        return Val(32, ints=(values - np.uint64(SHARED_WINDOW)) & np.uint64(0xFFFFFFFF))
    if {src_ty.space, ty.space} <= {0, 1}:
        return Val(64, ints=values.copy())
    raise Unmodelled(f"addrspacecast from {src_ty} to {ty}")


def _gep(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    base = run.value(ins.operands[0]).integers(mask, "pointer")
    ty = ins.extra["source"]
    assert isinstance(ty, Type)
    offset = np.zeros_like(base)
    for position, index_value in enumerate(ins.operands[1:]):
        index = run.value(index_value).integers(mask, "address index")
        bits = index_value.type.bits if index_value.type.kind == "int" else 64
        signed = _signed(index, bits)
        if position == 0:
            scale = ty.size_bytes
        elif ty.kind in ("array", "vector"):
            assert ty.element is not None
            ty = ty.element
            scale = ty.size_bytes
        elif ty.kind == "struct":
            field_index = int(index[0])
            offset = offset + np.uint64(sum(f.size_bytes for f in ty.fields[:field_index]))
            ty = ty.fields[field_index]
            continue
        else:
            raise Unmodelled(f"getelementptr into {ty}")
        offset = offset + (signed * scale).astype(np.uint64)
    pointer_bits = bits_of(ins.type)
    return Val(pointer_bits, ints=(base + offset) & _mask(pointer_bits))


def _load(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    pointer = ins.operands[0]
    addresses = run.value(pointer).integers(mask, "load address")
    nbytes = ins.type.size_bytes
    syms = run.load_bytes(pointer.type.space, addresses, nbytes, mask, ins)
    return Val(bits_of(ins.type), syms=_widen(run, syms, ins.type)).normalised()


def _store(run: Any, ins: Instruction, mask: np.ndarray) -> None:
    value, pointer = ins.operands
    addresses = run.value(pointer).integers(mask, "store address")
    syms = _narrow(run.value(value).byte_symbols(), value.type)
    run.store_bytes(pointer.type.space, addresses, syms, mask, ins)


def _widen(run: Any, syms: np.ndarray, ty: Type) -> np.ndarray:
    """Memory bytes to the executor's form, where an i1 takes a byte.  A vector of i1 is
    bit-packed in memory (``<64 x i1>`` is 8 bytes; LLVM folds loads of i8 flags and their
    truncation to i1 into one): element ``i`` is bit ``i % 8`` of byte ``i // 8``, i.e.
    ``trunc.8.1`` of the byte for bit 0, else a ``bit.j`` node of it."""
    if syms.shape[1] == nbytes_of(ty):
        return syms
    element = ty.element
    if ty.kind != "vector" or element is None or element.kind != "int" or element.bits != 1:
        raise Unmodelled(f"a load of {ty} (bit-packed in memory)")
    out = np.empty((syms.shape[0], ty.count), dtype=np.int64)
    for i in range(ty.count):
        byte, bit = syms[:, i // 8], i % 8
        symbolic = byte >= 0
        constant = (byte < 0) & (byte != UNDEFINED)
        value = np.where(constant, -1 - (((-1 - byte) >> bit) & 1), UNDEFINED)
        if symbolic.any():
            operand = Val(8, syms=np.where(symbolic, byte, -1)[:, None]).normalised()
            node = run.data_op("trunc.8.1" if bit == 0 else f"bit.{bit}", [operand], 1)
            value = np.where(symbolic, node.byte_symbols()[:, 0], value)
        out[:, i] = value
    return out


def _narrow(syms: np.ndarray, ty: Type) -> np.ndarray:
    if (
        ty.kind == "vector"
        and ty.element is not None
        and ty.element.kind == "int"
        and ty.element.bits < 8
    ):
        raise Unmodelled(f"a store of {ty}")
    return syms


def _atomic(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    pointer, operand = ins.operands
    operation = str(ins.extra["operation"])
    if pointer.type.space != 3:
        raise Unmodelled(f"a global atomicrmw {operation}")
    threads = np.flatnonzero(mask)
    addresses = (
        run.value(pointer).integers(mask, "atomic address") & np.uint64(0xFFFFFFFF)
    ).astype(np.int64)
    amount = run.value(operand).integers(mask, "atomic operand")
    nbytes = nbytes_of(ins.type)
    bits = ins.type.bits
    old = np.zeros(run.threads, dtype=np.uint64)
    where = run.where(ins)
    for t in threads:  # atomics serialise; the order does not change the final value
        grid = addresses[t] + np.arange(nbytes, dtype=np.int64)[None, :]
        current = Val(bits, syms=run.shared.read(grid, np.array([t]), where, atomic=True))
        value = current.integers(what="atomic target")[0]
        old[t] = value
        new = {
            "add": value + amount[t],
            "max": max(value, amount[t]),
            "min": min(value, amount[t]),
            "or": value | amount[t],
            "and": value & amount[t],
            "xor": value ^ amount[t],
            "xchg": amount[t],
            "umax": max(value, amount[t]),
            "umin": min(value, amount[t]),
        }
        if operation not in new:
            raise Unmodelled(f"atomicrmw {operation}")
        result = np.array([new[operation]], dtype=np.uint64) & _mask(bits)
        bytes_ = -1 - (
            (result[:, None] >> (np.arange(nbytes, dtype=np.uint64) * np.uint64(8)))
            & np.uint64(0xFF)
        ).astype(np.int64)
        run.shared.write(grid, bytes_, np.array([t]), where, atomic=True)
    return Val.concrete(old, bits, run.threads)


def _extract_element(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    vector, index = (run.value(o) for o in ins.operands)
    width = nbytes_of(ins.type)
    positions = index.integers(mask, "vector index").astype(np.int64)
    syms = vector.byte_symbols()
    columns = positions[:, None] * width + np.arange(width)[None, :]
    columns = np.clip(columns, 0, syms.shape[1] - 1)
    return Val(bits_of(ins.type), syms=np.take_along_axis(syms, columns, axis=1)).normalised()


def _insert_element(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    vector, element, index = (run.value(o) for o in ins.operands)
    width = nbytes_of(ins.operands[1].type)
    positions = index.integers(mask, "vector index").astype(np.int64)
    syms = vector.byte_symbols().copy()
    rows = np.arange(syms.shape[0])[:, None]
    columns = np.clip(positions[:, None] * width + np.arange(width)[None, :], 0, syms.shape[1] - 1)
    syms[rows, columns] = element.byte_symbols()
    return Val(bits_of(ins.type), syms=syms).normalised()


def _shuffle_vector(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    first, second = (run.value(o).byte_symbols() for o in ins.operands[:2])
    selector = ins.operands[2]
    element = ins.type.element
    assert element is not None
    width = nbytes_of(element)
    both = np.concatenate([first, second], axis=1)
    if selector.text in ("zeroinitializer",):
        picks = [0] * ins.type.count
    elif selector.text in ("poison", "undef"):
        picks = [-1] * ins.type.count
    else:
        picks = [-1 if e.text in ("poison", "undef") else int(e.text) for e in selector.elements]
    parts = []
    for pick in picks:
        if pick < 0:
            parts.append(np.full((both.shape[0], width), UNDEFINED, dtype=np.int64))
        else:
            parts.append(both[:, pick * width : (pick + 1) * width])
    return Val(bits_of(ins.type), syms=np.concatenate(parts, axis=1)).normalised()


def _field_range(ty: Type, indices: tuple[int, ...]) -> tuple[int, int, Type]:
    start = 0
    for index in indices:
        if ty.kind == "struct":
            start += sum(nbytes_of(f) for f in ty.fields[:index])
            ty = ty.fields[index]
        else:
            assert ty.element is not None
            start += index * nbytes_of(ty.element)
            ty = ty.element
    return start, start + nbytes_of(ty), ty


def _extract_value(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    aggregate = run.value(ins.operands[0])
    indices = ins.extra["indices"]
    assert isinstance(indices, tuple)
    start, end, ty = _field_range(ins.operands[0].type, indices)
    return Val(bits_of(ty), syms=aggregate.byte_symbols()[:, start:end].copy()).normalised()


def _insert_value(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    aggregate, element = (run.value(o) for o in ins.operands)
    indices = ins.extra["indices"]
    assert isinstance(indices, tuple)
    start, end, _ = _field_range(ins.operands[0].type, indices)
    syms = aggregate.byte_symbols().copy()
    syms[:, start:end] = element.byte_symbols()
    return Val(bits_of(ins.type), syms=syms)


def _phi(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    blocks = ins.extra["blocks"]
    assert isinstance(blocks, tuple)
    result: Val | None = None
    covered = np.zeros(run.threads, dtype=bool)
    for operand, label in zip(ins.operands, blocks):
        came = mask & (run.came_from == run.block_ids[label])
        if not came.any():
            continue
        value = run.value(operand)
        result = value if result is None else merge(came, value, result)
        covered |= came
    if result is None or not covered[mask].all():
        raise Unmodelled("a phi reached from a block it does not list")
    return result


def _float_unary(run: Any, ins: Instruction, mask: np.ndarray) -> Val:
    if ins.type.kind == "vector":
        return _elementwise(run, ins, mask)
    return run.data_op(ins.opcode, [run.value(ins.operands[0])], nbytes_of(ins.type))


_Handler = Callable[[Any, Instruction, np.ndarray], "Val | None"]
HANDLERS: dict[str, _Handler] = {
    **{op: _binary for op in (
        "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or",
        "xor", "fadd", "fsub", "fmul", "fdiv", "frem")},
    **{op: _cast for op in (
        "zext", "sext", "trunc", "bitcast", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp",
        "sitofp", "ptrtoint", "inttoptr", "addrspacecast", "freeze")},
    "icmp": _compare,
    "fcmp": _compare,
    "select": _select,
    "getelementptr": _gep,
    "load": _load,
    "store": _store,
    "atomicrmw": _atomic,
    "extractelement": _extract_element,
    "insertelement": _insert_element,
    "shufflevector": _shuffle_vector,
    "extractvalue": _extract_value,
    "insertvalue": _insert_value,
    "phi": _phi,
    "fneg": _float_unary,
    "fence": lambda run, ins, mask: None,
}  # fmt: skip
