"""What each plain LLVM instruction does to every thread's values (arithmetic, memory, phi...).

Each handler takes the running kernel (a :class:`~llverify.emitted.sim.machine.Machine`), the
instruction and the mask of active threads, and returns the result value (:data:`HANDLERS`:
one handler per opcode).  Integer arithmetic on concrete values is exact
(two's complement at the instruction's width).  On tagged data, byte-moving operations move
byte symbols (truncation, extension by zeros, shifts and masks by whole bytes, bitcasts,
vector packing); every other computation on data is a DAG node
(:meth:`~llverify.emitted.sim.machine.Machine.data_op`).

Examples:
    >>> ty = Type("int", bits=32)
    >>> a = Val.concrete(np.array([1, 2], dtype=np.uint64), 32, 2)
    >>> _integer_op("sub", a, Val.concrete(3, 32, 2), ty).ints.tolist()
    [4294967294, 4294967295]
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from llverify.emitted.sim.llvm_ir import Instruction, Type, Value
from llverify.emitted.sim.machine import Machine
from llverify.emitted.sim.symbolic import UNDEFINED, Unmodelled, Val

__all__ = [
    "HANDLERS",
    "PRIVATE_WINDOW",
    "SHARED_WINDOW",
    "bits_of",
    "merge",
    "nbytes_of",
    "store_addresses",
]

SHARED_WINDOW = 1 << 60  # generic addresses of shared memory
PRIVATE_WINDOW = 1 << 59  # generic addresses of private memory (allocas)


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


_MASKS = [np.uint64((1 << bits) - 1) for bits in range(64)] + [np.uint64(0xFFFFFFFFFFFFFFFF)]


def _mask(bits: int) -> np.uint64:
    return _MASKS[bits] if 0 <= bits <= 64 else _MASKS[64]


def _signed(values: np.ndarray, bits: int) -> np.ndarray:
    as_int = values.astype(np.int64) if bits == 64 else values.astype(np.int64)
    if bits < 64:
        sign = np.int64(1 << (bits - 1))
        as_int = (as_int ^ sign) - sign
    return as_int


# Each integer op on concrete operands (uint64, two's complement at ``bits``).
_IntegerOp = Callable[[np.ndarray, np.ndarray, int], np.ndarray]


def _shl(x: np.ndarray, y: np.ndarray, bits: int) -> np.ndarray:
    return np.where(y < bits, x << np.minimum(y, np.uint64(63)), 0)


def _lshr(x: np.ndarray, y: np.ndarray, bits: int) -> np.ndarray:
    return np.where(y < bits, x >> np.minimum(y, np.uint64(63)), 0)


def _ashr(x: np.ndarray, y: np.ndarray, bits: int) -> np.ndarray:
    return (_signed(x, bits) >> np.minimum(y, np.uint64(63)).astype(np.int64)).astype(np.uint64)


def _unsigned_division(remainder: bool) -> _IntegerOp:
    def divide(x: np.ndarray, y: np.ndarray, bits: int) -> np.ndarray:
        safe = np.where(y == 0, 1, y)
        return x % safe if remainder else x // safe

    return divide


def _signed_division(remainder: bool) -> _IntegerOp:
    """``sdiv``/``srem``: the quotient truncated towards zero, as LLVM's."""

    def divide(x: np.ndarray, y: np.ndarray, bits: int) -> np.ndarray:
        sx, sy = _signed(x, bits), _signed(y, bits)
        sy = np.where(sy == 0, 1, sy)
        quotient = np.trunc(sx / sy).astype(np.int64) if bits < 53 else sx // sy
        return (sx - quotient * sy if remainder else quotient).astype(np.uint64)

    return divide


_INTEGER_OPS: dict[str, _IntegerOp] = {  # one entry per opcode
    "add": lambda x, y, bits: x + y,
    "sub": lambda x, y, bits: x - y,
    "mul": lambda x, y, bits: x * y,
    "and": lambda x, y, bits: x & y,
    "or": lambda x, y, bits: x | y,
    "xor": lambda x, y, bits: x ^ y,
    "shl": _shl,
    "lshr": _lshr,
    "ashr": _ashr,
    "udiv": _unsigned_division(remainder=False),
    "urem": _unsigned_division(remainder=True),
    "sdiv": _signed_division(remainder=False),
    "srem": _signed_division(remainder=True),
}


# the ops whose numpy form may warn (a division's overflow); the others never do on arrays
_MAY_WARN = frozenset(("udiv", "urem", "sdiv", "srem", "ashr"))


def _integer_op(op: str, a: Val, b: Val, ty: Type) -> Val:
    compute = _INTEGER_OPS.get(op)
    if compute is None:
        raise Unmodelled(f"integer operation {op}")
    bits = ty.bits
    x, y = a.integers(), b.integers()
    if op in _MAY_WARN:
        with np.errstate(all="ignore"):
            r = compute(x, y, bits)
    else:
        r = compute(x, y, bits)
    return Val(bits, ints=np.asarray(r, dtype=np.uint64) & _mask(bits))


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


def _binary(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    ty = ins.type
    if ty.kind == "vector":
        return _elementwise(machine, ins, mask)
    a, b = (machine.value(o) for o in ins.operands)
    op = ins.opcode
    if ty.kind == "float":
        return machine.data_op(op, [a, b], nbytes_of(ty))
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
    return machine.data_op(op, [a, b], nbytes)


def _elementwise(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    """A vector op (arithmetic, compare, select on a vector condition), one element at a time;
    each operand is split by its own element type."""
    ty = ins.type
    element = ty.element
    assert element is not None
    types = [o.type.element or o.type for o in ins.operands]
    operands = [machine.value(o).byte_symbols() for o in ins.operands]
    parts = []
    for k in range(ty.count):
        pieces = []
        for part, syms in zip(types, operands):
            width = nbytes_of(part)
            piece = syms[:, k * width : (k + 1) * width]
            pieces.append(Val(bits_of(part), syms=piece).normalised())
        scalar = Instruction(ins.result, ins.opcode, element, [], dict(ins.extra))
        parts.append(_scalar_apply(machine, scalar, pieces, types, mask).byte_symbols())
    return Val(bits_of(ty), syms=np.concatenate(parts, axis=1)).normalised()


def _scalar_apply(
    machine: Machine, ins: Instruction, values: list[Val], types: list[Type], mask: np.ndarray
) -> Val:
    """``ins`` on one element of each operand (``values``, bound to temporaries)."""
    names = [f"%__operand{k}" for k in range(len(values))]
    for name, val in zip(names, values):
        machine.define(name, val)
    ins.operands = [Value(ty, name) for ty, name in zip(types, names)]
    try:
        return HANDLERS[ins.opcode](machine, ins, mask)  # type: ignore[return-value]
    finally:
        for name in names:
            machine.forget(name)


def _compare(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    operand_type = ins.operands[0].type
    if operand_type.kind == "vector":
        return _elementwise(machine, ins, mask)
    a, b = (machine.value(o) for o in ins.operands)
    predicate = str(ins.extra["predicate"])
    if ins.opcode == "fcmp" or not (a.ints is not None and b.ints is not None):
        if ins.opcode == "icmp" and a.is_concrete() and b.is_concrete():
            a, b = a.normalised(), b.normalised()
        else:
            return machine.data_op(f"{ins.opcode}.{predicate}", [a, b], 1)
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


def _select(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    if ins.operands[0].type.kind == "vector":
        return _elementwise(machine, ins, mask)
    cond, a, b = (machine.value(o) for o in ins.operands)
    if not cond.is_concrete():
        return machine.data_op("select", [cond, a, b], nbytes_of(ins.type))
    chosen = cond.normalised().integers().astype(bool)
    return merge(chosen, a, b)


def _reinterpret(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    """``bitcast``, ``ptrtoint``, ``inttoptr``, ``addrspacecast``, ``freeze``: the same bytes
    (an address-space cast moves a shared address into or out of the generic window)."""
    op = ins.opcode
    src_ty, ty = ins.operands[0].type, ins.type
    if src_ty.kind == "vector" and op != "bitcast":
        return _elementwise_cast(machine, ins, mask)
    source = machine.value(ins.operands[0])
    if op == "addrspacecast":
        return _address_space_cast(source, src_ty, ty)
    if op == "bitcast" and (_bit_vector(src_ty) or _bit_vector(ty)):
        return _bit_vector_cast(machine, source, src_ty, ty)
    if nbytes_of(src_ty) != nbytes_of(ty) and op == "bitcast":
        raise Unmodelled(f"a bitcast from {src_ty} to {ty}")
    if op == "bitcast" and ty.kind == "vector" and ty.element is not None and ty.element.bits < 8:
        raise Unmodelled(f"a bitcast to {ty}")
    return _retype(source, ty)


def _bit_vector(ty: Type) -> bool:
    """A vector of i1 (one byte per element in the executor, bit-packed in LLVM's bitcasts)."""
    return ty.kind == "vector" and ty.element is not None and ty.element.bits == 1


def _bit_vector_cast(machine: Machine, source: Val, src_ty: Type, ty: Type) -> Val:
    """``bitcast <N x i1>`` to ``iN`` and back (LangRef: element k is bit k of the integer):
    exact on concrete values; of tagged data, the integer is a node of the elements and an
    element ``bit.k`` of the integer (``trunc`` for bit 0)."""
    if _bit_vector(src_ty) and ty.kind == "int" and ty.bits == src_ty.count and ty.bits <= 64:
        if source.is_concrete():
            elements = source.byte_symbols()
            bits = (-1 - elements).astype(np.uint64) & np.uint64(1)
            shifts = np.arange(src_ty.count, dtype=np.uint64)
            value = np.bitwise_or.reduce(bits << shifts[None, :], axis=1)
            return Val.concrete(value, ty.bits, machine.threads)
        return machine.data_op(f"bitcast.{src_ty}.{ty}", [source], nbytes_of(ty))
    if _bit_vector(ty) and src_ty.kind == "int" and src_ty.bits == ty.count and ty.count <= 64:
        if source.is_concrete():
            value = source.normalised().integers()
            shifts = np.arange(ty.count, dtype=np.uint64)
            bits = (value[:, None] >> shifts[None, :]) & np.uint64(1)
            return Val(bits_of(ty), syms=-1 - bits.astype(np.int64)).normalised()
        parts = [
            machine.data_op(f"trunc.{src_ty.bits}.1" if k == 0 else f"bit.{k}", [source], 1)
            for k in range(ty.count)
        ]
        syms = np.concatenate([p.byte_symbols() for p in parts], axis=1)
        return Val(bits_of(ty), syms=syms).normalised()
    raise Unmodelled(f"a bitcast from {src_ty} to {ty}")


def _integer_cast(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    """``zext``, ``sext``, ``trunc``: exact on concrete values; on tagged data whole bytes
    move (``sext``'s high bytes are a node of the source)."""
    op = ins.opcode
    src_ty, ty = ins.operands[0].type, ins.type
    if src_ty.kind == "vector":
        return _elementwise_cast(machine, ins, mask)
    source = machine.value(ins.operands[0])
    return _extended(machine, op, source, src_ty.bits, ty.bits)


def _extended(machine: Machine, op: str, source: Val, src_bits: int, bits: int) -> Val:
    """``zext``/``sext``/``trunc`` of ``source`` from ``src_bits`` to ``bits`` (see
    :func:`_integer_cast`); a thread whose source is concrete gets the concrete result."""
    source = source.normalised()
    if source.ints is not None:
        values = source.ints
        if op == "sext":
            values = _signed(values, src_bits).astype(np.uint64)
        return Val.concrete(values & _mask(bits), bits, values.shape[0])
    syms = source.byte_symbols()
    nbytes = max(1, (bits + 7) // 8)
    if src_bits % 8 or bits % 8:
        return machine.data_op(f"{op}.{src_bits}.{bits}", [source], nbytes)
    if op == "sext":  # the low bytes are the source's own; the rest its sign
        high = machine.data_op(f"sext.{src_bits}.{bits}", [source], nbytes).syms
        assert high is not None
        extended = np.concatenate([syms, high[:, syms.shape[1] :]], axis=1)
        concrete = np.asarray(((syms < 0) & (syms >= -256)).all(axis=1), dtype=bool)
        if concrete.any() and src_bits <= 64:
            values = _signed(source.integers(concrete), src_bits).astype(np.uint64)
            exact = Val.concrete(values & _mask(bits), bits, values.shape[0]).byte_symbols()
            extended = np.where(concrete[:, None], exact, extended)
        return Val(bits, syms=extended).normalised()
    if op == "trunc":
        return Val(bits, syms=syms[:, :nbytes].copy()).normalised()
    pad = np.full((syms.shape[0], nbytes - syms.shape[1]), _BYTE, dtype=np.int64)
    return Val(bits, syms=np.concatenate([syms, pad], axis=1)).normalised()


def _float_cast(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    """Conversions to, from and between floats: a node of the source."""
    src_ty, ty = ins.operands[0].type, ins.type
    if src_ty.kind == "vector":
        return _elementwise_cast(machine, ins, mask)
    source = machine.value(ins.operands[0])
    return machine.data_op(f"{ins.opcode}.{src_ty}.{ty}", [source], nbytes_of(ty))


def _elementwise_cast(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    src_ty, ty = ins.operands[0].type, ins.type
    assert src_ty.element is not None and ty.element is not None
    width = nbytes_of(src_ty.element)
    syms = machine.value(ins.operands[0]).byte_symbols()
    parts = []
    for k in range(src_ty.count):
        piece = Val(bits_of(src_ty.element), syms=syms[:, k * width : (k + 1) * width]).normalised()
        name = "%__cast"
        machine.define(name, piece)
        scalar = Instruction(ins.result, ins.opcode, ty.element, [Value(src_ty.element, name)], {})
        try:
            parts.append(_CASTS[ins.opcode](machine, scalar, mask).byte_symbols())
        finally:
            machine.forget(name)
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
    if src_ty.space == 5 and ty.space == 0:
        return Val(64, ints=(values & np.uint64(0xFFFFFFFF)) + np.uint64(PRIVATE_WINDOW))
    if src_ty.space == 0 and ty.space == 5:
        return Val(32, ints=(values - np.uint64(PRIVATE_WINDOW)) & np.uint64(0xFFFFFFFF))
    if {src_ty.space, ty.space} <= {0, 1}:
        return Val(64, ints=values.copy())
    raise Unmodelled(f"addrspacecast from {src_ty} to {ty}")


def _tagged_on(value: Val, mask: np.ndarray) -> bool:
    """Whether ``value`` depends on tagged data in a thread of ``mask``."""
    if value.syms is None:
        return False
    rows = value.syms[mask]
    return bool(((rows >= 0) | (rows < -256)).any())


def _gep(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    values = [machine.value(o) for o in ins.operands]
    if ins.type.kind == "ptr" and any(_tagged_on(v, mask) for v in values):
        return _tagged_gep(machine, ins, mask, values)
    address = values[0].integers(mask, "pointer")
    ty = ins.extra["source"]
    assert isinstance(ty, Type)
    for position, index_value in enumerate(ins.operands[1:]):
        index = values[position + 1].integers(mask, "address index")
        if position == 0:
            scale = ty.size_bytes
        elif ty.kind in ("array", "vector"):
            assert ty.element is not None
            ty = ty.element
            scale = ty.size_bytes
        elif ty.kind == "struct":
            field_index = int(index[0])
            address = address + np.uint64(sum(f.size_bytes for f in ty.fields[:field_index]))
            ty = ty.fields[field_index]
            continue
        else:
            raise Unmodelled(f"getelementptr into {ty}")
        bits = index_value.type.bits if index_value.type.kind == "int" else 64
        if bits < 64:  # sign-extended: its two's complement bits, wrapping as LLVM's do
            sign = np.uint64(1 << (bits - 1))
            index = (index ^ sign) - sign
        address = address + index * np.uint64(scale)
    return Val(bits_of(ins.type), ints=address & _mask(bits_of(ins.type)))


def _tagged_gep(machine: Machine, ins: Instruction, mask: np.ndarray, values: list[Val]) -> Val:
    """A ``getelementptr`` whose base or an index depends on tagged data: the address as
    integer arithmetic at the pointer's width, as LLVM defines it (``base + sext(index) *
    size`` for each index, wrapping), built in the DAG (``add``/``mul`` nodes; a thread whose
    operands are concrete gets its concrete address).  A struct field index must be
    concrete."""
    ty = ins.extra["source"]
    assert isinstance(ty, Type)
    bits = bits_of(ins.type)
    threads = machine.threads
    address = _extended(machine, "zext", values[0], bits_of(ins.operands[0].type), bits)
    for position, (operand, index) in enumerate(zip(ins.operands[1:], values[1:])):
        if position == 0:
            scale = ty.size_bytes
        elif ty.kind in ("array", "vector"):
            assert ty.element is not None
            ty = ty.element
            scale = ty.size_bytes
        elif ty.kind == "struct":
            field = int(index.integers(mask, "struct field index")[np.flatnonzero(mask)[0]])
            start = sum(f.size_bytes for f in ty.fields[:field])
            address = _arithmetic(machine, "add", address, Val.concrete(start, bits, threads))
            ty = ty.fields[field]
            continue
        else:
            raise Unmodelled(f"getelementptr into {ty}")
        width = operand.type.bits if operand.type.kind == "int" else 64
        wide = _extended(machine, "sext" if width < bits else "trunc", index, width, bits)
        if scale != 1:
            wide = _arithmetic(machine, "mul", wide, Val.concrete(scale, bits, threads))
        address = _arithmetic(machine, "add", address, wide)
    return address


def _arithmetic(machine: Machine, op: str, a: Val, b: Val) -> Val:
    """The integer ``op`` of ``a`` and ``b`` (of one width): exact where both are concrete,
    else a DAG node (folded to its constant in the threads where both are)."""
    if a.ints is not None and b.ints is not None:
        return _integer_op(op, a, b, Type("int", bits=a.bits))
    return machine.data_op(op, [a, b], a.nbytes)


def _load(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    """``load``: at a concrete address, or at one that depends on tagged data (a gather,
    :meth:`~llverify.emitted.sim.machine.Machine.load_at`)."""
    pointer = ins.operands[0]
    nbytes = ins.type.size_bytes
    element = ins.type.element if ins.type.kind == "vector" else None
    size = element.size_bytes if element is not None and element.size_bytes else nbytes
    address = machine.value(pointer)
    syms = machine.load_at(pointer.type.space, address, nbytes, size, mask, ins)
    return Val(bits_of(ins.type), syms=_widen(machine, syms, ins.type)).normalised()


def _store(machine: Machine, ins: Instruction, mask: np.ndarray) -> None:
    value, pointer = ins.operands
    addresses = store_addresses(machine.value(pointer), mask)
    syms = _narrow(machine.value(value).byte_symbols(), value.type)
    machine.store_bytes(pointer.type.space, addresses, syms, mask, ins)


def store_addresses(address: Val, mask: np.ndarray) -> np.ndarray:
    """The concrete addresses of a store by the threads of ``mask``; unmodelled when one
    depends on tagged data (a scatter: which bytes each thread writes, and so whether two
    threads store different values to one byte, is not decided)."""
    if _tagged_on(address, mask):
        raise Unmodelled(
            "a store at an address that depends on tagged data (a scatter: whether two "
            "threads store different values to one byte is not decided)"
        )
    return address.integers(mask, "store address")


def _widen(machine: Machine, syms: np.ndarray, ty: Type) -> np.ndarray:
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
            node = machine.data_op("trunc.8.1" if bit == 0 else f"bit.{bit}", [operand], 1)
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


# Each atomicrmw operation: the new value from the old one and the operand (unsigned).
_ATOMIC_OPS: dict[str, Callable[[np.uint64, np.uint64], object]] = {
    "add": lambda value, amount: value + amount,
    "max": max,
    "min": min,
    "or": lambda value, amount: value | amount,
    "and": lambda value, amount: value & amount,
    "xor": lambda value, amount: value ^ amount,
    "xchg": lambda value, amount: amount,
    "umax": max,
    "umin": min,
}


def _atomic(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    """``atomicrmw`` on shared memory, one thread after the other; on global memory, its
    bounds checked and its old value a new node
    (:meth:`~llverify.emitted.sim.machine.Machine.atomic_at`)."""
    pointer, operand = ins.operands
    operation = str(ins.extra["operation"])
    if pointer.type.space != 3:
        nbytes = nbytes_of(ins.type)
        address = machine.value(pointer)
        old = machine.atomic_at(pointer.type.space, address, nbytes, nbytes, mask, ins)
        return Val(bits_of(ins.type), syms=old)
    threads = np.flatnonzero(mask)
    addresses = (
        machine.value(pointer).integers(mask, "atomic address") & np.uint64(0xFFFFFFFF)
    ).astype(np.int64)
    amount = machine.value(operand).integers(mask, "atomic operand")
    nbytes = nbytes_of(ins.type)
    bits = ins.type.bits
    old = np.zeros(machine.threads, dtype=np.uint64)
    where = ins.where
    update = _ATOMIC_OPS.get(operation)
    for t in threads:  # atomics serialise; the order does not change the final value
        grid = addresses[t] + np.arange(nbytes, dtype=np.int64)[None, :]
        current = Val(bits, syms=machine.shared.read(grid, np.array([t]), where, atomic=True))
        value = current.integers(what="atomic target")[0]
        old[t] = value
        if update is None:
            raise Unmodelled(f"atomicrmw {operation}")
        result = np.array([update(value, amount[t])], dtype=np.uint64) & _mask(bits)
        bytes_ = -1 - (
            (result[:, None] >> (np.arange(nbytes, dtype=np.uint64) * np.uint64(8)))
            & np.uint64(0xFF)
        ).astype(np.int64)
        machine.shared.write(grid, bytes_, np.array([t]), where, atomic=True)
    return Val.concrete(old, bits, machine.threads)


def _extract_element(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    vector, index = (machine.value(o) for o in ins.operands)
    width = nbytes_of(ins.type)
    positions = index.integers(mask, "vector index").astype(np.int64)
    syms = vector.byte_symbols()
    columns = positions[:, None] * width + np.arange(width)[None, :]
    columns = np.clip(columns, 0, syms.shape[1] - 1)
    return Val(bits_of(ins.type), syms=np.take_along_axis(syms, columns, axis=1)).normalised()


def _insert_element(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    vector, element, index = (machine.value(o) for o in ins.operands)
    width = nbytes_of(ins.operands[1].type)
    syms = vector.byte_symbols().copy()
    position = _literal_index(ins.operands[2], syms.shape[1] // width)
    if position is not None:  # one place in every thread: a slice
        syms[:, position * width : (position + 1) * width] = element.byte_symbols()
        return Val(bits_of(ins.type), syms=syms).normalised()
    positions = index.integers(mask, "vector index").astype(np.int64)
    rows = np.arange(syms.shape[0])[:, None]
    columns = np.clip(positions[:, None] * width + np.arange(width)[None, :], 0, syms.shape[1] - 1)
    syms[rows, columns] = element.byte_symbols()
    return Val(bits_of(ins.type), syms=syms).normalised()


def _literal_index(operand: Value, count: int) -> int | None:
    """The element index a literal integer operand names, when it is one of the ``count``
    elements; None for any other operand (a local, an index out of range)."""
    text = operand.text
    if operand.type.kind != "int" or not text.isdigit():
        return None
    index = int(text)
    return index if index < count else None


def _shuffle_vector(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    first, second = (machine.value(o).byte_symbols() for o in ins.operands[:2])
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
    undefined = both.shape[1]  # a column of undefined bytes after both vectors' bytes
    if min(picks, default=0) < 0:
        both = np.concatenate([both, np.full((both.shape[0], 1), UNDEFINED, np.int64)], axis=1)
    starts = np.array(picks, dtype=np.int64)[:, None] * width
    columns = np.where(starts < 0, undefined, starts + np.arange(width, dtype=np.int64))
    return Val(bits_of(ins.type), syms=both[:, columns.reshape(-1)]).normalised()


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


def _extract_value(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    aggregate = machine.value(ins.operands[0])
    indices = ins.extra["indices"]
    assert isinstance(indices, tuple)
    start, end, ty = _field_range(ins.operands[0].type, indices)
    return Val(bits_of(ty), syms=aggregate.byte_symbols()[:, start:end].copy()).normalised()


def _insert_value(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    aggregate, element = (machine.value(o) for o in ins.operands)
    indices = ins.extra["indices"]
    assert isinstance(indices, tuple)
    start, end, _ = _field_range(ins.operands[0].type, indices)
    syms = aggregate.byte_symbols().copy()
    syms[:, start:end] = element.byte_symbols()
    return Val(bits_of(ins.type), syms=syms)


def _phi(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    blocks = ins.extra["blocks"]
    assert isinstance(blocks, tuple)
    result: Val | None = None
    covered = np.zeros(machine.threads, dtype=bool)
    for operand, label in zip(ins.operands, blocks):
        came = machine.arrived_from(label, mask)
        if not came.any():
            continue
        value = machine.value(operand)
        result = value if result is None else merge(came, value, result)
        covered |= came
    if result is None or not covered[mask].all():
        raise Unmodelled("a phi reached from a block it does not list")
    return result


def _float_unary(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    if ins.type.kind == "vector":
        return _elementwise(machine, ins, mask)
    return machine.data_op(ins.opcode, [machine.value(ins.operands[0])], nbytes_of(ins.type))


def _alloca(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val:
    """``alloca``: each thread's own private buffer of the allocated type times its count; the
    pointer is the same in every thread (private memory is per thread)."""
    allocated = ins.extra["allocated"]
    assert isinstance(allocated, Type)
    count, align = ins.extra.get("count", 1), ins.extra.get("align", 1)
    assert isinstance(count, int) and isinstance(align, int)
    if count < 0:
        raise Unmodelled("an alloca of a variable number of elements")
    if not mask.all():
        raise Unmodelled("an alloca in divergent code")
    address = machine.allocate_private(ins, allocated.size_bytes * count, align)
    return Val.concrete(address, bits_of(ins.type), machine.threads)


def _no_op(machine: Machine, ins: Instruction, mask: np.ndarray) -> None:
    """``fence``: the executor runs each warp in lockstep and orders memory as written."""


_Handler = Callable[[Machine, Instruction, np.ndarray], "Val | None"]
_CASTS: dict[str, Callable[[Machine, Instruction, np.ndarray], Val]] = {
    **{op: _reinterpret for op in ("bitcast", "ptrtoint", "inttoptr", "addrspacecast", "freeze")},
    **{op: _integer_cast for op in ("zext", "sext", "trunc")},
    **{op: _float_cast for op in ("fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp")},
}
#: The handler of each plain instruction, by opcode.
HANDLERS: dict[str, _Handler] = {
    **{op: _binary for op in (
        "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or",
        "xor", "fadd", "fsub", "fmul", "fdiv", "frem")},
    **_CASTS,
    "icmp": _compare,
    "fcmp": _compare,
    "select": _select,
    "getelementptr": _gep,
    "load": _load,
    "store": _store,
    "atomicrmw": _atomic,
    "alloca": _alloca,
    "extractelement": _extract_element,
    "insertelement": _insert_element,
    "shufflevector": _shuffle_vector,
    "extractvalue": _extract_value,
    "insertvalue": _insert_value,
    "phi": _phi,
    "fneg": _float_unary,
    "fence": _no_op,
}  # fmt: skip
