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

A string is decoded once with its constraint string (:func:`_program`: statements, guards,
handlers, bindings; the ``ld``/``st`` forms, address operands and widths are cached by
their text), so that a call does only the work on its threads' data; whatever is not
modelled still raises where and as it did, when its statement runs.

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
from typing import NamedTuple

import numpy as np

from llverify.emitted.sim import intrinsics
from llverify.emitted.sim.instructions import merge, nbytes_of, store_addresses
from llverify.emitted.sim.intrinsics import prmt_selectors
from llverify.emitted.sim.llvm_ir import Instruction, Type, split_top_level
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


class _Step(NamedTuple):
    """One statement of an asm string, decoded: its guard's predicate register (``!``
    dropped, ``negate`` for ``@!p``), the handler of its mnemonic, the opcode and operands."""

    guard: str | None
    negate: bool
    handler: _Statement
    opcode: str
    operands: list[str]
    dead: bool = False  # a move whose register a load overwrites unread (see _dead_moves)


class _Program(NamedTuple):
    """An asm string with its constraint string, decoded once: the outputs' names and
    register widths, each input's name and the output it is tied to, the statements, and
    the outputs' bytes by the call's LLVM type (by identity: a type is hashed field by
    field; at most :data:`_TYPES_KEPT` kept)."""

    output_names: tuple[str, ...]
    output_bits: tuple[int, ...]
    inputs: tuple[tuple[str, str | None], ...]
    steps: tuple[_Step, ...]
    unset: dict[str, int]  # each output register's bits, but those an input is tied to
    typed: dict[int, list]  # id(ty): [ty, its outputs' bytes or None, its bytes or None]

    def output_bytes(self, ty: Type) -> tuple[int, ...]:
        """:func:`_output_bytes` of this program's outputs in a call of type ``ty``."""
        known = self._typed(ty)
        if known[1] is None:
            known[1] = _output_bytes(self.output_bits, ty)
        return known[1]

    def nbytes(self, ty: Type) -> int:
        """``nbytes_of(ty)``."""
        known = self._typed(ty)
        if known[2] is None:
            known[2] = nbytes_of(ty)
        return known[2]

    def _typed(self, ty: Type) -> list:
        known = self.typed.get(id(ty))
        if known is None or known[0] is not ty:
            if len(self.typed) >= _TYPES_KEPT:
                self.typed.clear()
            known = self.typed[id(ty)] = [ty, None, None]  # holding ``ty``: its id stays its
        return known


_TYPES_KEPT = 64


@lru_cache(maxsize=4096)
def _program(text: str, constraints: str) -> _Program:
    """The decoded form of the asm string ``text`` under ``constraints`` (a kernel runs the
    same few strings thousands of times).  Nothing here raises: an unknown mnemonic is a
    handler that raises when its statement runs, after the statements before it."""
    output_bits, inputs = _bindings(constraints)
    outputs = len(output_bits)
    bound = tuple(
        (f"${outputs + k}", f"${int(c)}" if c.isascii() and c.isdigit() else None)
        for k, c in enumerate(inputs)
    )
    steps = [
        _Step(
            None if guard is None else guard.lstrip("!"),
            guard is not None and guard.startswith("!"),
            _handler_of(opcode),
            opcode,
            operands,
        )
        for guard, opcode, operands in _statements(text)
    ]
    for k in _dead_moves(steps):
        steps[k] = steps[k]._replace(dead=True)
    names = tuple(f"${k}" for k in range(outputs))
    tied = {output for _, output in bound}
    unset = {name: bits for name, bits in zip(names, output_bits) if name not in tied}
    return _Program(names, output_bits, bound, tuple(steps), unset, {})


_TOKEN = re.compile(r"[^\s,{}\[\]+]+")


def _mentions(step: _Step) -> set[str]:
    """The words of ``step``'s guard and operands (registers, immediates)."""
    words = set(_TOKEN.findall(" ".join(step.operands)))
    if step.guard is not None:
        words.add(step.guard)
    return words


def _dead_moves(steps: list[_Step]) -> list[int]:
    """The statements ``mov.TYPE r, IMMEDIATE`` (unguarded, of a known width) whose register
    ``r`` the next statement that names it overwrites without reading it: an unguarded
    ``ld`` into ``r`` (or a register list holding it) at an address not based on ``r``.
    Where every thread of the call runs, such a move changes nothing anyone sees (Triton's
    ``mov.u32 $0, 0x0; ld.global.b32 { $0 }, [ $1 + 0 ];``): its value is replaced whole
    before it is read, and reading an immediate cannot fail.

    >>> load = "mov.u32 $0, 0x0; ld.global.b32 { $0 }, [ $1 + 0 ];"
    >>> [step.dead for step in _program(load, "=r,l").steps]
    [True, False]
    >>> [step.dead for step in _program(load.replace("ld", "@$2 ld"), "=r,l,b").steps]
    [False, False]
    >>> [step.dead for step in _program(load.replace("$1 +", "$0 +"), "=r,l").steps]
    [False, False]
    """
    dead = []
    for k, step in enumerate(steps):
        if step.handler is not _move or step.guard is not None or len(step.operands) != 2:
            continue
        target = step.operands[0].strip()
        if _register_list(target) is not None:
            continue
        if _operand_form(step.operands[1].strip())[0] != "immediate":
            continue
        try:
            _bits_of_suffix(step.opcode)
        except Unmodelled:
            continue
        later = next((s for s in steps[k + 1 :] if target in _mentions(s)), None)
        if later is None or later.handler is not _load_store or later.guard is not None:
            continue
        try:
            load = _memory_form(later.opcode)[0]
        except Unmodelled:
            continue
        if not load or len(later.operands) < 2:
            continue
        written = _register_list(later.operands[0].strip()) or (later.operands[0].strip(),)
        read = set(_TOKEN.findall(" ".join(later.operands[1:])))
        if target in written and target not in read:
            dead.append(k)
    return dead


@lru_cache(maxsize=4096)
def _operand_form(operand: str) -> tuple[str, object]:
    """How a (stripped) operand that names no register is read: a special register
    (``special``, its function), an immediate (``immediate``, its integer), a register list
    (``list``, its parts) or ``unknown``."""
    special = _SPECIAL_REGISTERS.get(operand)
    if special is not None:
        return "special", special
    if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", operand):
        return "immediate", int(operand, 0)
    if operand.startswith("{"):
        return "list", _register_list(operand)
    return "unknown", None


@lru_cache(maxsize=4096)
def _register_list(operand: str) -> tuple[str, ...] | None:
    """The registers of a (stripped) list operand ``{ a, b }``; None for any other operand."""
    if not operand.startswith("{"):
        return None
    return tuple(p.strip() for p in operand.strip("{} ").split(","))


def _low_bytes(ints: np.ndarray, nbytes: int) -> np.ndarray:
    """The integers of the low ``nbytes`` (at most 8) bytes of the uint64 ``ints``, as
    :meth:`Val.normalised` reads them back from their byte symbols."""
    if nbytes >= 8:
        return ints.copy()
    return ints & np.uint64((1 << (8 * nbytes)) - 1)


def _concrete_ints(value: Val) -> np.ndarray | None:
    """``value``'s uint64 integers when it holds them, else None."""
    ints = value.ints
    if ints is not None and ints.dtype == np.uint64:
        return ints
    return None


class _AsmState:
    """The registers of one inline-assembly call: its ``$k`` operands and declared ones.

    An output register holds undefined bytes until it is written; that value is made only
    where it is read (a statement reads it, a predicated one keeps it, or it is a result).
    ``opaque`` names the registers whose value was checked to hold a byte that is no
    constant (normalising it again would change nothing)."""

    def __init__(
        self, machine: Machine, ins: Instruction, mask: np.ndarray, program: _Program
    ) -> None:
        self.machine, self.ins, self.mask = machine, ins, mask
        self._active = mask
        self._everyone: bool | None = None  # whether every thread of ``active`` is on
        self._all: bool | None = None  # whether every thread of ``mask`` is on
        self.regs: dict[str, Val] = {}
        self.opaque: set[str] = set()
        self.carry: Val | None = None  # the carry flag CC.CF, once a ``.cc`` wrote it
        self.program = program
        self.output_names = program.output_names
        self.output_bits = program.output_bits
        self._unset = dict(program.unset)
        for (name, tied), operand in zip(program.inputs, ins.operands):
            value = machine.value(operand)
            if tied is not None:  # tied to an output
                self.regs[tied] = value
            self.regs[name] = value
        for _, tied in program.inputs[len(ins.operands) :]:  # no operand: an output still
            if tied is not None and tied not in self.regs and tied in self.output_names:
                self._unset[tied] = self.output_bits[self.output_names.index(tied)]

    @property
    def active(self) -> np.ndarray:
        """The threads that execute the current statement."""
        return self._active

    @active.setter
    def active(self, mask: np.ndarray) -> None:
        if mask is not self._active:
            self._active = mask
            self._everyone = None

    def everyone_in_call(self) -> bool:
        """Whether every thread runs the call (read once)."""
        if self._all is None:
            self._all = bool(self.mask.all())
        return self._all

    def everyone(self) -> bool:
        """Whether every thread executes the current statement (read once per mask)."""
        if self._everyone is None:
            call = self._active is self.mask
            self._everyone = self.everyone_in_call() if call else bool(self._active.all())
        return self._everyone

    def _held(self, name: str) -> Val | None:
        """The value of register ``name`` (an unwritten output's undefined bytes), if any."""
        value = self.regs.get(name)
        if value is None:
            bits = self._unset.pop(name, None)
            if bits is not None:
                threads = self.machine.threads
                value = Val(
                    bits, syms=np.full((threads, max(1, bits // 8)), UNDEFINED, dtype=np.int64)
                )
                self.regs[name] = value
        return value

    def read(self, operand: str, bits: int) -> Val:
        """The value of ``operand`` (a register, special register, immediate or register
        list) at ``bits``."""
        operand = operand.strip()
        value = self._held(operand)
        if value is not None:
            return value
        kind, payload = _operand_form(operand)
        if kind == "special":
            special = payload
            assert callable(special)
            return Val.concrete(np.asarray(special(self.machine)), bits, self.machine.threads)
        if kind == "immediate":
            assert isinstance(payload, int)
            return Val.concrete(payload & ((1 << bits) - 1), bits, self.machine.threads)
        if kind == "list":
            assert isinstance(payload, tuple)
            width = bits // len(payload)
            nbytes = max(1, width // 8)
            if len(payload) == 1:  # one register: no concatenation
                part = self.read(payload[0], width)
                ints = _concrete_ints(part)
                if (
                    ints is not None
                    and part.bits <= 64
                    and bits <= 64
                    and part.nbytes >= nbytes == max(1, (bits + 7) // 8)
                ):
                    return Val(bits, ints=_low_bytes(ints, nbytes))
                return Val(bits, syms=part.byte_symbols()[:, :nbytes].copy()).normalised()
            pieces = [self.read(p, width).byte_symbols()[:, :nbytes] for p in payload]
            return Val(bits, syms=np.concatenate(pieces, axis=1)).normalised()
        raise Unmodelled(f"inline-asm operand {operand!r}")

    def read_bytes(self, operand: str, bits: int) -> np.ndarray:
        """``read(operand, bits).byte_symbols()`` for a register list ``operand``, without
        normalising what is only used as bytes (a constant's bytes read back are the same)."""
        parts = _register_list(operand.strip())
        assert parts is not None
        width = bits // len(parts)
        nbytes = max(1, width // 8)
        pieces = [self.read(p, width).byte_symbols()[:, :nbytes] for p in parts]
        joined = pieces[0] if len(pieces) == 1 else np.concatenate(pieces, axis=1)
        if bits > 64 or joined.shape[1] == max(1, (bits + 7) // 8):
            return joined
        return Val(bits, syms=joined).normalised().byte_symbols()

    def write(self, operand: str, value: Val, *, normalised: bool = False) -> None:
        """Write ``value`` to the register or register list ``operand`` (``normalised``:
        ``value`` is its own :meth:`Val.normalised`)."""
        operand = operand.strip()
        parts = _register_list(operand)
        if parts is not None:
            if len(parts) == 1:  # one register: the value whole, as its bytes read back
                ints = _concrete_ints(value)
                if ints is not None and value.nbytes <= 8:
                    self._assign(
                        parts[0], Val(8 * value.nbytes, ints=_low_bytes(ints, value.nbytes))
                    )
                    return
                if normalised and value.ints is None:  # its bytes hold a non-constant
                    assert value.syms is not None
                    self._assign(
                        parts[0],
                        Val(8 * value.syms.shape[1], syms=value.syms.copy()),
                        checked=value.bits <= 64,
                    )
                    return
            syms = value.byte_symbols()
            width = syms.shape[1] // len(parts)
            for k, part in enumerate(parts):
                self._assign(
                    part,
                    Val(width * 8, syms=syms[:, k * width : (k + 1) * width].copy()).normalised(),
                    checked=True,
                )
            return
        self._assign(operand, value)

    def _assign(self, name: str, value: Val, *, checked: bool = False) -> None:
        """Register ``name`` becomes ``value`` in the active threads (``checked``: ``value``
        is normalised)."""
        if not self.everyone():
            old = self._held(name)
            if old is not None:
                value = merge(self._active, value, old)
                checked = False
        else:
            self._unset.pop(name, None)
        self.regs[name] = value
        if checked and value.ints is None and value.bits <= 64:
            self.opaque.add(name)
        else:
            self.opaque.discard(name)

    def result(self) -> Val | None:
        """The outputs as the call's LLVM value: each register cut to its LLVM type's bytes
        (an ``i8`` output is the low byte of its ``=c`` register, PTX has no 8-bit ones)."""
        if not self.output_names:
            return None
        widths = self.program.output_bytes(self.ins.type)
        if len(widths) == 1:
            name = self.output_names[0]
            register = self._held(name)
            assert register is not None
            bits = min(self.output_bits[0], 8 * widths[0])
            ints = _concrete_ints(register)
            if (
                ints is not None
                and register.bits <= 64
                and register.nbytes >= widths[0] == max(1, (bits + 7) // 8)
            ):
                return Val(bits, ints=_low_bytes(ints, widths[0]))
            syms = register.byte_symbols()[:, : widths[0]]
            if name in self.opaque and syms.shape[1] == register.nbytes:
                return Val(bits, syms=syms)  # normalised: the same bytes, no constant
            return Val(bits, syms=syms).normalised()
        parts = []
        for name, nbytes in zip(self.output_names, widths):
            register = self._held(name)
            assert register is not None
            parts.append(register.byte_symbols()[:, :nbytes])
        return Val(8 * sum(widths), syms=np.concatenate(parts, axis=1))


@lru_cache(maxsize=4096)
def _output_bytes(output_bits: tuple[int, ...], ty: Type) -> tuple[int, ...]:
    """Bytes of each output (register widths ``output_bits``) of a call of type ``ty``: its
    register's, or fewer where its LLVM type is narrower."""
    registers = [max(1, bits // 8) for bits in output_bits]
    if ty.kind == "struct" and len(ty.fields) == len(registers):
        types = list(ty.fields)
    elif len(registers) == 1 and ty.kind != "struct":
        types = [ty]
    else:
        return tuple(registers)
    return tuple(min(size, nbytes_of(t)) for size, t in zip(registers, types))


_MEMORY = re.compile(r"^\[\s*(\S+?)\s*(?:\+\s*(-?\w+))?\s*\]$")


def run_inline_asm(machine: Machine, ins: Instruction, mask: np.ndarray) -> Val | None:
    """Execute the inline-assembly call ``ins`` under ``mask``."""
    program = _program(str(ins.extra["asm"]), str(ins.extra["constraints"]))
    state = _AsmState(machine, ins, mask, program)
    for step in program.steps:
        if step.dead and state.everyone_in_call():
            continue
        active = mask
        if step.guard is not None:
            predicate = state.read(step.guard, 1).integers(mask, "predicate").astype(bool)
            if step.negate:
                predicate = ~predicate
            active = predicate if state.everyone_in_call() else mask & predicate
        state.active = active
        step.handler(state, step.opcode, step.operands, active)
    result = state.result()
    if result is not None and ins.type.kind == "struct":  # as wide as its fields
        return Val(program.nbytes(ins.type) * 8, syms=result.byte_symbols())
    return result


@lru_cache(maxsize=4096)
def _bits_of_suffix(opcode: str) -> int:
    match = re.search(r"\.[bufs](8|16|32|64)$", opcode)
    if match is None:
        raise Unmodelled(f"PTX {opcode} (no element width)")
    return int(match.group(1))


@lru_cache(maxsize=4096)
def _memory_operand(operand: str) -> tuple[str, str | None] | None:
    """The base register and the offset's text of the memory operand ``[ base + offset ]``;
    None where ``operand`` is no such operand."""
    match = _MEMORY.match(operand.strip())
    return None if match is None else (match.group(1), match.group(2))


@lru_cache(maxsize=4096)
def _offset(text: str | None) -> int:
    """The offset of a memory operand from its text (none: 0)."""
    return int(text, 0) if text else 0


def _base_and_offset(operand: str) -> tuple[str, str | None]:
    """:func:`_memory_operand`, unmodelled where ``operand`` is no memory operand."""
    found = _memory_operand(operand)
    if found is None:
        raise Unmodelled(f"PTX address {operand!r}")
    return found


def _address(state: _AsmState, operand: str) -> np.ndarray:
    """The concrete byte address of the memory operand ``[ base + offset ]``."""
    base_name, offset_text = _base_and_offset(operand)
    base = state.read(base_name, 64).integers(state.active, "address")
    offset = _offset(offset_text)
    return base + np.uint64(offset & 0xFFFFFFFFFFFFFFFF)


def _address_value(state: _AsmState, operand: str) -> Val:
    """The address of the memory operand ``[ base + offset ]`` as a value: concrete, or a
    node where the base depends on tagged data (a gather's or a scatter's)."""
    base_name, offset_text = _base_and_offset(operand)
    base = state.read(base_name, 64)
    offset = _offset(offset_text)
    if offset == 0:
        return base
    if base.is_concrete():
        return Val(64, ints=base.normalised().integers() + np.uint64(offset & (2**64 - 1)))
    constant = Val.concrete(offset & (2**64 - 1), base.bits, state.machine.threads)
    return state.machine.data_op("add", [base, constant], base.nbytes)


def _handler_of(opcode: str) -> _Statement:
    """The handler of a statement's mnemonic (the opcode's first word; an ``add.cc`` writes
    the carry flag, so it is one of :func:`_carry_chain`'s); :func:`_unknown_statement` for
    a mnemonic of none."""
    words = opcode.split(".")
    handler = _carry_chain if "cc" in words[1:] else _STATEMENTS.get(words[0])
    return _unknown_statement if handler is None else handler


def _unknown_statement(
    state: _AsmState, opcode: str, operands: list[str], active: np.ndarray
) -> None:
    """A statement of no known mnemonic: unmodelled."""
    raise _unknown(state, opcode)


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


@lru_cache(maxsize=1024)
def _memory_form(opcode: str) -> tuple[bool, int, int, int]:
    """Whether the ``ld``/``st`` ``opcode`` loads, its state space (0 generic, 1 global, 3
    shared), vector length and element bits; unmodelled for a qualifier or a state space
    outside the model, or no element width (in that order)."""
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
    return words[0] == "ld", space, vector, _bits_of_suffix(opcode)


def _load_store(state: _AsmState, opcode: str, operands: list[str], active: np.ndarray) -> None:
    """``ld``/``st[.space][.hints][.vN].TYPE``; the cache-policy operand that follows
    ``.L2::cache_hint`` is ignored (a hint, no data); a global store's predicated-off threads
    are recorded as shadow stores (:meth:`~llverify.emitted.sim.machine.Machine.shadow_store`)."""
    machine = state.machine
    load, space, vector, bits = _memory_form(opcode)
    if load:
        target, address_text = operands[0], operands[1]
        address = _address_value(state, address_text)
        syms = machine.load_at(space, address, vector * bits // 8, bits // 8, active, state.ins)
        state.write(target, Val(vector * bits, syms=syms).normalised(), normalised=True)
    else:
        address_text, source = operands[0], operands[1]
        addresses = store_addresses(_address_value(state, address_text), active)
        values = state.read_bytes(
            source if source.startswith("{") else "{" + source + "}", vector * bits
        )
        machine.store_bytes(space, addresses, values, active, state.ins)
        if space == 1:  # duplicate copies a predicate kept from storing, and every address
            _shadow_store(state, address_text, values, addresses, active)


def _shadow_store(
    state: _AsmState,
    address_text: str,
    values: np.ndarray,
    addresses: np.ndarray,
    active: np.ndarray,
) -> None:
    """Record every thread's address of a global store, and what the threads its predicate
    turned off would have stored (the byte symbols ``values``): Triton masks the duplicate
    copies of an element, which must hold the same value as the one stored (a thread whose
    address cannot be read stores nothing and is left out).  Where the base register is
    concrete, ``addresses`` is already every thread's (base plus offset, as the skipped
    threads' are computed)."""
    nothing = np.uint64(0)
    if state.everyone():  # no thread turned off
        everyone = (
            addresses.copy()
            if addresses.dtype == np.uint64
            else np.where(active, addresses, nothing)
        )
        skipped = np.zeros(active.shape, dtype=bool)
        state.machine.shadow_store(everyone, values, skipped, state.ins, active.copy())
        return
    mask = state.mask
    if state.everyone_in_call():  # some thread of the call turned off
        skipped, some = ~active, True
    else:
        skipped = mask & ~active
        some = bool(skipped.any())
    found = _memory_operand(address_text)
    if some and found is not None:
        try:
            base_value = state.read(found[0], 64)
            base = base_value.integers(skipped, "address")
        except Unmodelled:
            skipped = np.zeros_like(skipped)  # need not be valid: such a thread stores nothing
        else:
            if _concrete_ints(base_value) is not None and addresses.dtype == np.uint64:
                # ``addresses`` is base plus offset in every thread, the skipped ones' too
                everyone = np.where(mask, addresses, nothing)
                state.machine.shadow_store(everyone, values, skipped, state.ins, mask.copy())
                return
            offset = _offset(found[1])
            shifted = base + np.uint64(offset & 0xFFFFFFFFFFFFFFFF)
            everyone = np.where(skipped, shifted, np.where(active, addresses, nothing))
            state.machine.shadow_store(everyone, values, skipped, state.ins, active | skipped)
            return
    else:
        skipped = np.zeros_like(skipped)
    everyone = np.where(active, addresses, nothing)
    state.machine.shadow_store(everyone, values, skipped, state.ins, active.copy())


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
