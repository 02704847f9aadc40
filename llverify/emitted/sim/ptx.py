"""The PTX inside the inline-assembly strings Triton emits, executed for every thread.

Triton 2.x and 3.x emit loads, stores, ``cp.async``, ``ldmatrix``/``stmatrix``, ``shfl``,
``prmt``, ``mov`` packing and Hopper's ``wgmma`` as inline assembly.  This module reads the
string (statements split at ``;``, ``//`` comments dropped, ``{ }`` scopes, ``.reg``
declarations, ``@p``/``@!p`` guards) and runs each
statement by the handler of its mnemonic (:data:`_STATEMENTS`); operands ``$k`` are bound
by the constraint string (outputs ``=r``/``=h``/``=c``/
``=l``/``=f``/``=d`` first, then inputs; ``b`` is a predicate; an output is cut to its LLVM
type, so an ``i8`` bound by ``=c`` is the low byte of its 16-bit register).  A statement it
does not know raises :class:`~llverify.emitted.sim.symbolic.Unmodelled` naming it.

Examples:
    >>> parse_statements("mov.u32 $0, 0x0;\\n\\t@$2 ld.global.b32 { $0 }, [ $1 + 0 ];")
    [(None, 'mov.u32', ['$0', '0x0']), ('$2', 'ld.global.b32', ['{ $0 }', '[ $1 + 0 ]'])]
    >>> prmt_selectors(0x5410)
    [0, 1, 4, 5]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from llverify.emitted.sim import intrinsics
from llverify.emitted.sim.instructions import merge, nbytes_of, store_addresses
from llverify.emitted.sim.intrinsics import prmt_selectors
from llverify.emitted.sim.llvm_ir import Instruction, split_top_level
from llverify.emitted.sim.machine import Machine
from llverify.emitted.sim.replay import carry_step
from llverify.emitted.sim.symbolic import UNDEFINED, Unmodelled, Val

__all__ = ["parse_statements", "prmt_selectors", "run_inline_asm"]

_WIDTH = {"r": 32, "h": 16, "c": 16, "l": 64, "f": 32, "d": 64, "b": 1, "n": 64}
_GUARD = re.compile(r"^@(!?)(\S+)\s+(.*)$", re.S)


def parse_statements(text: str) -> list[tuple[str | None, str, list[str]]]:
    """The statements of an asm string: (guard, opcode, operands); ``//`` comments run to
    the end of their line (Triton's ``// wait for regs: ...`` before ``wgmma.wait_group``).

    >>> parse_statements("// wait for regs: $0\\n\\twgmma.wait_group.sync.aligned 1;")
    [(None, 'wgmma.wait_group.sync.aligned', ['1'])]
    """
    statements = []
    text = re.sub(r"//[^\n]*", "", text)
    for raw in re.split(r";", text.replace("{\n", "{ \n")):
        body = raw.strip()
        while body.startswith("{") and not re.match(r"^\{\s*\$", body):
            body = body[1:].strip()
        while body.startswith("}"):
            body = body[1:].strip()
        if not body or body.startswith(".reg"):
            continue
        guard = None
        match = _GUARD.match(body)
        if match:
            guard = match.group(1) + match.group(2)
            body = match.group(3).strip()
        parts = body.split(None, 1)
        opcode = parts[0]
        operands = split_top_level(parts[1], "[{", "]}") if len(parts) > 1 else []
        statements.append((guard, opcode, operands))
    return statements


@lru_cache(maxsize=4096)
def _statements(text: str) -> tuple[tuple[str | None, str, list[str]], ...]:
    """:func:`parse_statements` of ``text``, read once per distinct asm string (a kernel runs
    the same few strings thousands of times); the operand lists are shared, never changed."""
    return tuple(parse_statements(text))


@lru_cache(maxsize=4096)
def _bindings(constraints: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The register width of each output of the constraint string ``constraints`` (``=r``:
    32 bits, ...), and its inputs' constraints (clobbers ``~`` dropped)."""
    parts = [c.strip() for c in constraints.split(",")]
    outputs = [c for c in parts if c.startswith("=")]
    inputs = [c for c in parts if not c.startswith("=") and not c.startswith("~")]
    return tuple(_WIDTH.get(c.lstrip("=&")[:1], 32) for c in outputs), tuple(inputs)


_SPECIAL_REGISTERS: dict[str, Callable[[Machine], np.ndarray | int]] = {
    "%tid.x": lambda machine: np.arange(machine.threads),
    "%laneid": lambda machine: np.arange(machine.threads) % machine.warp_size,
    "%ctaid.x": lambda machine: machine.cta,
    "%ctaid.y": lambda machine: 0,
    "%ctaid.z": lambda machine: 0,
    "%cluster_ctarank": lambda machine: machine.cta,
}


class _AsmState:
    """The registers of one inline-assembly call: its ``$k`` operands and declared ones."""

    def __init__(self, machine: Machine, ins: Instruction, mask: np.ndarray) -> None:
        self.machine, self.ins, self.mask = machine, ins, mask
        self.active = mask
        output_bits, inputs = _bindings(str(ins.extra["constraints"]))
        self.regs: dict[str, Val] = {}
        self.carry: Val | None = None  # the carry flag CC.CF, once a ``.cc`` wrote it
        threads = machine.threads
        self.output_names = [f"${k}" for k in range(len(output_bits))]
        self.output_bits = list(output_bits)
        for name, bits in zip(self.output_names, self.output_bits):
            self.regs[name] = Val(
                bits, syms=np.full((threads, max(1, bits // 8)), UNDEFINED, dtype=np.int64)
            )
        for k, (constraint, operand) in enumerate(zip(inputs, ins.operands)):
            value = machine.value(operand)
            name = f"${len(output_bits) + k}"
            if constraint.isascii() and constraint.isdigit():  # tied to an output
                self.regs[f"${int(constraint)}"] = value
            self.regs[name] = value

    def read(self, operand: str, bits: int) -> Val:
        operand = operand.strip()
        if operand in self.regs:
            return self.regs[operand]
        special = _SPECIAL_REGISTERS.get(operand)
        if special is not None:
            return Val.concrete(np.asarray(special(self.machine)), bits, self.machine.threads)
        if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", operand):
            value = int(operand, 0) & ((1 << bits) - 1)
            return Val.concrete(value, bits, self.machine.threads)
        if operand.startswith("{"):
            parts = [p.strip() for p in operand.strip("{} ").split(",")]
            width = bits // len(parts)
            pieces = [self.read(p, width).byte_symbols()[:, : max(1, width // 8)] for p in parts]
            return Val(bits, syms=np.concatenate(pieces, axis=1)).normalised()
        raise Unmodelled(f"inline-asm operand {operand!r}")

    def write(self, operand: str, value: Val) -> None:
        operand = operand.strip()
        if operand.startswith("{"):
            parts = [p.strip() for p in operand.strip("{} ").split(",")]
            syms = value.byte_symbols()
            width = syms.shape[1] // len(parts)
            for k, part in enumerate(parts):
                self.write(
                    part,
                    Val(width * 8, syms=syms[:, k * width : (k + 1) * width].copy()).normalised(),
                )
            return
        old = self.regs.get(operand)
        if old is not None and not self.active.all():
            value = merge(self.active, value, old)
        self.regs[operand] = value

    def result(self) -> Val | None:
        """The outputs as the call's LLVM value: each register cut to its LLVM type's bytes
        (an ``i8`` output is the low byte of its ``=c`` register, PTX has no 8-bit ones)."""
        if not self.output_names:
            return None
        widths = self._output_bytes()
        parts = [
            self.regs[name].byte_symbols()[:, :nbytes]
            for name, nbytes in zip(self.output_names, widths)
        ]
        if len(parts) == 1:
            bits = min(self.output_bits[0], 8 * widths[0])
            return Val(bits, syms=parts[0]).normalised()
        return Val(8 * sum(widths), syms=np.concatenate(parts, axis=1))

    def _output_bytes(self) -> list[int]:
        """Bytes of each output: its register's, or fewer where its LLVM type is narrower."""
        registers = [max(1, bits // 8) for bits in self.output_bits]
        ty = self.ins.type
        if ty.kind == "struct" and len(ty.fields) == len(registers):
            types = list(ty.fields)
        elif len(registers) == 1 and ty.kind != "struct":
            types = [ty]
        else:
            return registers
        return [min(size, nbytes_of(t)) for size, t in zip(registers, types)]


_MEMORY = re.compile(r"^\[\s*(\S+?)\s*(?:\+\s*(-?\w+))?\s*\]$")


def run_inline_asm(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val | None:
    """Execute the inline-assembly call ``ins`` under ``mask``."""
    text = str(ins.extra["asm"])
    state = _AsmState(machine, ins, mask)
    for guard, opcode, operands in _statements(text):
        active = mask
        if guard is not None:
            negate = guard.startswith("!")
            predicate = state.read(guard.lstrip("!"), 1).integers(mask, "predicate").astype(bool)
            active = mask & (~predicate if negate else predicate)
        state.active = active
        _statement(state, opcode, operands, active)
    result = state.result()
    if result is not None and ins.type.kind == "struct":
        return Val(nbytes_of(ins.type) * 8, syms=result.byte_symbols())
    return result


def _bits_of_suffix(opcode: str) -> int:
    match = re.search(r"\.[bufs](8|16|32|64)$", opcode)
    if match is None:
        raise Unmodelled(f"PTX {opcode} (no element width)")
    return int(match.group(1))


def _address(state: _AsmState, operand: str) -> np.ndarray:
    """The concrete byte address of the memory operand ``[ base + offset ]``."""
    match = _MEMORY.match(operand.strip())
    if match is None:
        raise Unmodelled(f"PTX address {operand!r}")
    base = state.read(match.group(1), 64).integers(state.active, "address")
    offset = int(match.group(2), 0) if match.group(2) else 0
    return base + np.uint64(offset & 0xFFFFFFFFFFFFFFFF)


def _address_value(state: _AsmState, operand: str) -> Val:
    """The address of the memory operand ``[ base + offset ]`` as a value: concrete, or a
    node where the base depends on tagged data (a gather's or a scatter's)."""
    match = _MEMORY.match(operand.strip())
    if match is None:
        raise Unmodelled(f"PTX address {operand!r}")
    base = state.read(match.group(1), 64)
    offset = int(match.group(2), 0) if match.group(2) else 0
    if offset == 0:
        return base
    if base.is_concrete():
        return Val(64, ints=base.normalised().integers() + np.uint64(offset & (2**64 - 1)))
    constant = Val.concrete(offset & (2**64 - 1), base.bits, state.machine.threads)
    return state.machine.data_op("add", [base, constant], base.nbytes)


def _statement(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """Execute one statement by the handler of its mnemonic (the opcode's first word; an
    ``add.cc`` writes the carry flag, so it is one of :func:`_carry_chain`'s)."""
    words = opcode.split(".")
    handler = _carry_chain if "cc" in words[1:] else _STATEMENTS.get(words[0])
    if handler is None:
        raise _unknown(state, opcode)
    handler(state, opcode, operands, active)


def _unknown(state: _AsmState, opcode: str) -> Unmodelled:
    return Unmodelled(f"PTX instruction {opcode!r} in inline assembly ({state.ins.extra['asm']!r})")


def _move(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    state.write(operands[0], state.read(operands[1], _bits_of_suffix(opcode)))


_SETP = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal,
}  # fmt: skip


def _set_predicate(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``setp.CMP.TYPE p, a, b`` on concrete operands."""
    compare = opcode.split(".")[1]
    bits = _bits_of_suffix(opcode)
    a = state.read(operands[1], bits).integers(active, "setp operand").astype(np.int64)
    b = state.read(operands[2], bits).integers(active, "setp operand").astype(np.int64)
    if compare not in _SETP:
        raise Unmodelled(f"PTX {opcode}")
    outcome = _SETP[compare](a, b).astype(np.uint64)
    state.write(operands[0], Val.concrete(outcome, 1, state.machine.threads))


def _permute(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``prmt.b32 d, a, b, selector`` in its default mode, one selector for every thread."""
    a = state.read(operands[1], 32).byte_symbols()
    b = state.read(operands[2], 32).byte_symbols()
    selector = state.read(operands[3], 32).integers(active, "prmt selector")
    values = selector[active] if active.any() else selector
    if (values != values[0]).any():
        raise Unmodelled("prmt with a per-thread selector")
    both = np.concatenate([a, b], axis=1)
    picks = prmt_selectors(int(values[0]))
    state.write(operands[0], Val(32, syms=both[:, picks].copy()).normalised())


def _shuffle(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``shfl.sync.MODE.b32 d, a, b, c, membermask`` (or ``shfl.MODE`` with no member mask)."""
    machine = state.machine
    mode = opcode.split(".")[2]
    value = state.read(operands[1], 32)
    b = state.read(operands[2], 32).integers(active, "shuffle lane").astype(np.int64)
    c = state.read(operands[3], 32).integers(active, "shuffle clamp").astype(np.int64)
    member = (
        state.read(operands[4], 32).integers(active, "member mask")
        if len(operands) > 4
        else (np.full(machine.threads, 0xFFFFFFFF, dtype=np.uint64))
    )
    state.write(operands[0], intrinsics.shuffle(machine, mode, value, b, c, member, active))


def _barrier(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``bar.sync``/``barrier.sync``: a CTA barrier (with a thread count: unmodelled);
    ``bar.warp.sync``: nothing for a warp run in lockstep."""
    if ".warp" not in opcode:
        if len(operands) > 1:
            raise Unmodelled("a named barrier with a thread count")
        state.machine.barrier(active)
    elif not opcode.startswith("bar.warp"):
        raise _unknown(state, opcode)


def _no_op(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``fence``, ``membar``: memory is ordered as written in a CTA run in lockstep."""


_INTEGER = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "and": np.bitwise_and,
    "or": np.bitwise_or, "xor": np.bitwise_xor, "shl": np.left_shift, "shr": np.right_shift,
}  # fmt: skip


def _arithmetic(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """Arithmetic and conversions: exact on concrete integers, else a node of the sources."""
    machine = state.machine
    root = opcode.split(".")[0]
    bits = _bits_of_suffix(opcode) if re.search(r"\.[bufs](8|16|32|64)$", opcode) else 32
    sources = [state.read(o, bits) for o in operands[1:]]
    if root in _INTEGER and all(s.is_concrete() for s in sources) and ".f" not in opcode:
        a, b = (s.normalised().integers() for s in sources[:2])
        with np.errstate(all="ignore"):
            r = _INTEGER[root](a, b)
        state.write(operands[0], Val.concrete(r, bits, machine.threads))
        return
    out_bits = bits
    if root == "cvt":
        out_bits = int(re.findall(r"(8|16|32|64)", opcode)[0])
    state.write(operands[0], machine.data_op(f"ptx.{opcode}", sources, max(1, out_bits // 8)))


_CARRY_CHAIN = re.compile(r"(mad|madc|add|addc)(?:\.(lo|hi))?(\.cc)?\.([us])(32|64)\Z")


def _carry_chain(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """The extended-precision integer instructions (PTX ISA, "Extended-Precision Integer
    Arithmetic"): ``add.cc`` (``d = a + b``), ``addc`` (``d = a + b + CC.CF``),
    ``mad.lo``/``mad.hi`` (``d`` = the low or high half of the full product ``a * b``, signed
    for ``.s``, plus ``c``) and ``madc`` (that plus ``CC.CF``); with ``.cc`` the carry out of
    the addition is the new ``CC.CF``.  The carry flag lives in one inline-assembly block: a
    ``madc``/``addc`` before any ``.cc`` there is unmodelled.  Exact on concrete operands, else
    a node of the operands and the carry in (the carry out another one)."""
    found = _CARRY_CHAIN.match(opcode)
    if found is None:
        raise _unknown(state, opcode)
    mnemonic, half, sets_carry, kind, width = found.groups()
    if mnemonic.startswith("mad") and half is None:
        raise _unknown(state, opcode)
    bits = int(width)
    machine = state.machine
    count = 3 if mnemonic.startswith("mad") else 2
    sources = [state.read(o, bits) for o in operands[1 : 1 + count]]
    if mnemonic.endswith("c"):
        if state.carry is None:
            raise Unmodelled(f"PTX {opcode} reads a carry flag no instruction of its block set")
        sources.append(state.carry)
    # ``ptx.add.u32.sum``, ``ptx.mad.u32.lo``: a last word no type suffix, so that
    # :func:`~llverify.emitted.sim.symbolic.canonical_op` keeps the name (``ptx.add`` is fadd)
    name = f"ptx.{mnemonic}.{kind}{width}.{half or 'sum'}"
    if all(source.is_concrete() for source in sources):
        values = [[int(v) for v in source.normalised().integers()] for source in sources]
        results = [carry_step(mnemonic, half, kind == "s", bits, row) for row in zip(*values)]
        total = Val.concrete(
            np.array([r for r, _ in results], dtype=np.uint64), bits, machine.threads
        )
        carry = Val.concrete(np.array([c for _, c in results], dtype=np.uint64), 1, machine.threads)
    else:
        total = machine.data_op(name, sources, bits // 8)
        carry = machine.data_op(name + ".carry", sources, 1)
    state.write(operands[0], total)
    if sets_carry:
        state.carry = carry if state.carry is None else merge(active, carry, state.carry)


# The qualifiers of ``ld``/``st`` besides the state space, vector and type: memory-model
# semantics (a CTA run in lockstep orders memory as written) and cache hints (eviction
# priorities, ``.L2::cache_hint`` with its cache-policy operand, prefetch sizes), which carry
# no data semantics.  Any other qualifier is unmodelled.
_QUALIFIERS = {
    "global", "shared", "shared::cta", "shared::cluster", "local", "const", "param", "weak",
    "volatile", "relaxed", "acquire", "release", "cta", "cluster", "gpu", "sys", "ca", "cg",
    "cs", "lu", "cv", "wb", "wt", "nc", "L1::evict_normal", "L1::evict_unchanged",
    "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::evict_normal",
    "L2::evict_first", "L2::evict_last", "L2::cache_hint", "L2::64B", "L2::128B", "L2::256B",
    "v2", "v4", "v8",
}  # fmt: skip
_TYPE = re.compile(r"[bufs](8|16|32|64)")


def _check_qualifiers(opcode: str, qualifiers: list[str]) -> None:
    """Raise :class:`Unmodelled` on a qualifier of ``opcode`` outside :data:`_QUALIFIERS`."""
    for qualifier in qualifiers:
        if qualifier not in _QUALIFIERS and not _TYPE.fullmatch(qualifier):
            raise Unmodelled(f"PTX {opcode} (qualifier .{qualifier})")


def _load_store(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``ld``/``st[.space][.hints][.vN].TYPE``; the cache-policy operand that follows
    ``.L2::cache_hint`` is ignored (a hint, no data); a global store's predicated-off threads
    are recorded as shadow stores (:meth:`~llverify.emitted.sim.machine.Machine.shadow_store`)."""
    machine = state.machine
    words = opcode.split(".")
    _check_qualifiers(opcode, words[1:])
    known = ("global", "shared", "local", "const", "param")
    spaces = [w for w in words if w.split("::")[0] in known]
    if not spaces:
        space = 0  # a generic address: shared or global by its value
    elif spaces[0] in ("global",):
        space = 1
    elif spaces[0] in ("shared", "shared::cta"):
        space = 3
    else:
        raise Unmodelled(f"PTX {opcode} (state space {spaces[0]})")
    vector = next((int(w[1:]) for w in words if re.fullmatch(r"v\d", w)), 1)
    bits = _bits_of_suffix(opcode)
    if words[0] == "ld":
        target, address_text = operands[0], operands[1]
        address = _address_value(state, address_text)
        syms = machine.load_at(space, address, vector * bits // 8, bits // 8, active, state.ins)
        state.write(target, Val(vector * bits, syms=syms).normalised())
    else:
        address_text, source = operands[0], operands[1]
        addresses = store_addresses(_address_value(state, address_text), active)
        value = state.read(source if source.startswith("{") else "{" + source + "}", vector * bits)
        machine.store_bytes(space, addresses, value.byte_symbols(), active, state.ins)
        if space == 1:  # duplicate copies a predicate kept from storing, and every address
            _shadow_store(state, address_text, value, addresses, active)


def _shadow_store(
    state: _AsmState, address_text: str, value: Val, addresses: np.ndarray, active: np.ndarray
) -> None:
    """Record every thread's address of a global store, and what the threads its predicate
    turned off would have stored: Triton masks the duplicate copies of an element, which must
    hold the same value as the one stored (a thread whose address cannot be read stores
    nothing and is left out)."""
    skipped = state.mask & ~active
    known = active.copy()
    everyone = np.where(active, addresses, np.uint64(0))
    match = _MEMORY.match(address_text.strip())
    if skipped.any() and match is not None:
        try:
            base = state.read(match.group(1), 64).integers(skipped, "address")
        except Unmodelled:
            skipped = np.zeros_like(skipped)  # need not be valid: such a thread stores nothing
        else:
            offset = int(match.group(2), 0) if match.group(2) else 0
            shifted = base + np.uint64(offset & 0xFFFFFFFFFFFFFFFF)
            everyone = np.where(skipped, shifted, everyone)
            known |= skipped
    else:
        skipped = np.zeros_like(skipped)
    state.machine.shadow_store(everyone, value.byte_symbols(), skipped, state.ins, known)


_ATOMIC_OPERATIONS = {"add", "inc", "dec", "min", "max", "and", "or", "xor", "exch"}
# the other qualifiers of ``atom``/``red`` on global memory: memory-model semantics and scopes
# (the atomic is one indivisible update whatever they are), vector widths, a cache hint
_ATOMIC_QUALIFIERS = {
    "global", "relaxed", "acquire", "release", "acq_rel", "cta", "cluster", "gpu", "sys",
    "noftz", "v2", "v4", "v8", "L2::cache_hint",
}  # fmt: skip


def _atomic(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``atom.global[.sem][.scope].OP[.vN].TYPE d, [a], b`` and ``red.global... [a], b``
    (``OP`` add, inc, dec, min, max, and, or, xor, exch; ``cas`` is unmodelled): an atomic
    read-modify-write of global memory at a concrete address or one that depends on tagged
    data (:meth:`~llverify.emitted.sim.machine.Machine.atomic_at`: bounds checked, the span
    recorded); ``d`` gets the old values, new nodes."""
    qualifiers = opcode.split(".")[1:]
    operations = [w for w in qualifiers if w in _ATOMIC_OPERATIONS]
    types = [w for w in qualifiers if _TYPE.fullmatch(w)]
    others = [w for w in qualifiers if w not in _ATOMIC_OPERATIONS and w not in _ATOMIC_QUALIFIERS]
    if len(operations) != 1 or len(types) != 1 or others != types or "global" not in qualifiers:
        raise _unknown(state, opcode)
    vector = next((int(w[1:]) for w in qualifiers if re.fullmatch(r"v\d", w)), 1)
    bits = _bits_of_suffix(opcode)
    target = operands[0] if opcode.startswith("atom") else None
    address = _address_value(state, operands[1] if target is not None else operands[0])
    nbytes = vector * bits // 8
    old = state.machine.atomic_at(1, address, nbytes, bits // 8, active, state.ins)
    if target is not None:
        state.write(target, Val(vector * bits, syms=old).normalised())


_EVICTIONS = {"evict_last", "evict_normal", "evict_first", "evict_unchanged"}


def _create_policy(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``createpolicy.fractional.L2::PRIMARY[.L2::SECONDARY].b64 d[, fraction]``: an opaque
    64-bit cache policy (a node of no input element: used as data, it is no element), which
    loads and stores take as a hint only."""
    words = opcode.split(".")
    evictions = words[2:-1]
    if (
        words[1:2] != ["fractional"]
        or words[-1] != "b64"
        or not 1 <= len(evictions) <= 2
        or any(e.removeprefix("L2::") not in _EVICTIONS or e[:4] != "L2::" for e in evictions)
    ):
        raise _unknown(state, opcode)
    fraction = np.float32(float(operands[1]) if len(operands) > 1 else 1.0)
    bits = Val.concrete(int(fraction.view(np.uint32)), 32, state.machine.threads)
    state.write(operands[0], state.machine.data_op(f"ptx.{opcode}", [bits], 8))


def _async_copy(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``cp.async.commit_group``, ``cp.async.wait_group N``/``wait_all`` and the copies
    ``cp.async.{ca,cg}.shared.global [d], [s], size[, src_size]``."""
    machine = state.machine
    if opcode.startswith("cp.async.commit_group"):
        machine.commit_async_copies()
        return
    if opcode.startswith("cp.async.wait_group") or opcode.startswith("cp.async.wait_all"):
        keep = 0 if "wait_all" in opcode else int(operands[0], 0)
        machine.wait_async_copies(keep)
        return
    if not opcode.startswith("cp.async.c"):
        raise Unmodelled(f"PTX {opcode}")
    destination = _address(state, operands[0])
    source = _address(state, operands[1])
    size = int(operands[2], 0)
    source_size = size
    if len(operands) > 3:
        source_size = (
            int(state.read(operands[3], 32).integers(active, "copy size")[active][0])
            if active.any()
            else size
        )
    data = machine.load_bytes(1, source, size, active & (source_size > 0), state.ins)
    if source_size < size:
        data[:, source_size:] = -1
        if source_size == 0:
            data[:] = -1
    machine.start_async_copy(destination, data, active, state.ins.where)


def _mma(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``mma.sync``: each destination register is an uninterpreted function of all the source
    registers (exact as an identity, the arithmetic is not modelled)."""
    machine = state.machine
    destinations = [p.strip() for p in operands[0].strip("{} ").split(",")]
    sources = []
    for operand in operands[1:]:
        for part in operand.strip("{} ").split(","):
            sources.append(state.read(part.strip(), 32))
    packed = Val(
        32 * len(sources),
        syms=np.concatenate(
            [s.byte_symbols()[:, :4] if s.nbytes >= 4 else s.byte_symbols() for s in sources],
            axis=1,
        ),
    )
    for k, destination in enumerate(destinations):
        state.write(destination, machine.data_op(f"ptx.{opcode}.{k}", [packed], 4))


def _matrix(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``ldmatrix``/``stmatrix``, as the intrinsics
    (:func:`~llverify.emitted.sim.intrinsics.ldmatrix`)."""
    machine = state.machine
    count = int(re.search(r"\.x(\d)", opcode).group(1))  # type: ignore[union-attr]
    transposed = ".trans" in opcode
    if opcode.startswith("ldmatrix"):
        addresses = _address(state, operands[1]) & np.uint64(0xFFFFFFFF)
        registers = intrinsics.ldmatrix(
            machine, addresses, count, transposed, active, state.ins.where
        )
        state.write(operands[0], Val(32 * count, syms=np.concatenate(registers, axis=1)))
    else:
        addresses = _address(state, operands[0]) & np.uint64(0xFFFFFFFF)
        value = state.read(operands[1], 32 * count).byte_symbols()
        registers = [value[:, 4 * k : 4 * k + 4] for k in range(count)]
        intrinsics.stmatrix(machine, addresses, registers, transposed, active, state.ins.where)


def _warpgroup(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``wgmma.fence``/``commit_group``/``wait_group N`` and ``wgmma.mma_async``
    (:mod:`~llverify.emitted.sim.wgmma`), executed by whole warpgroups."""
    wgmma = state.machine.wgmma
    if opcode == "wgmma.fence.sync.aligned":
        wgmma.fence(active)
    elif opcode == "wgmma.commit_group.sync.aligned":
        wgmma.commit(active)
    elif opcode == "wgmma.wait_group.sync.aligned" and len(operands) == 1:
        wgmma.wait(active, int(state.read(operands[0], 32).integers(active, "wait count")[0]))
    elif opcode.startswith("wgmma.mma_async."):
        result = wgmma.mma_async(opcode, operands, state.read, active, state.ins.where)
        state.write(operands[0], result)
    else:
        raise _unknown(state, opcode)


# Each statement's handler by mnemonic: (state, opcode, operands, active threads).
_Statement = Callable[[_AsmState, str, list[str], np.ndarray], None]
_ARITHMETIC = (
    "cvt", "add", "sub", "mul", "max", "min", "fma", "neg", "abs", "and", "or", "xor", "shl",
    "shr", "div", "rcp", "ex2", "lg2", "sqrt", "selp",
)  # fmt: skip
_STATEMENTS: dict[str, _Statement] = {
    "mov": _move,
    "ld": _load_store,
    "st": _load_store,
    "atom": _atomic,
    "red": _atomic,
    "setp": _set_predicate,
    "prmt": _permute,
    "shfl": _shuffle,
    "bar": _barrier,
    "barrier": _barrier,
    "fence": _no_op,
    "membar": _no_op,
    "cp": _async_copy,
    "createpolicy": _create_policy,
    "mma": _mma,
    "mad": _carry_chain,
    "madc": _carry_chain,
    "addc": _carry_chain,
    "ldmatrix": _matrix,
    "stmatrix": _matrix,
    "wgmma": _warpgroup,
    **{root: _arithmetic for root in _ARITHMETIC},
}
