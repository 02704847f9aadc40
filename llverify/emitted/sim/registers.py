"""The SSA values of every thread: locals, addresses of globals and constants, set under a mask.

LLVM writes constants in several forms: integers, floats in decimal, as a double's hex bits
(``float``), in their own bits (``0xH``/``0xR``/``0xK``..., ``f0x`` since LLVM 20) or as the
special values ``+inf``, ``-nan``, ``+nan(0xP)``, ``+snan(0xP)``; aggregates of constants;
and constant expressions (``getelementptr``, casts), evaluated as the instructions they name.

Examples:
    >>> from llverify.emitted.sim.llvm_ir import Type
    >>> hex(float_bits("+nan(0x3F)", Type("float", bits=16, name="bfloat")))
    '0x7fff'
    >>> hex(float_bits("-inf", Type("float", bits=32, name="float")))
    '0xff800000'
    >>> hex(float_bits("1.000000e+00", Type("float", bits=16, name="bfloat")))
    '0x3f80'
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod

import numpy as np

from llverify.emitted.sim.instructions import bits_of, merge, nbytes_of
from llverify.emitted.sim.llvm_ir import Instruction, LLVMModule, Type, Value
from llverify.emitted.sim.symbolic import UNDEFINED, Dag, Unmodelled, Val

__all__ = ["Registers", "float_bits"]

_EXPRESSIONS = ("gep", "bitcast", "addrspacecast", "ptrtoint", "inttoptr")


class Registers(ABC):
    """The values of the kernel's locals in every thread (a part of the
    :class:`~llverify.emitted.sim.executor.Execution`): reading operands, assigning results
    under the mask of the threads that execute, and computing on tagged data in the DAG."""

    threads: int
    #: each constant operand read so far and its value, by the operand's id (read-only: see
    #: :func:`_read_only`); set by :meth:`_start_registers`
    _constants: dict[int, tuple[Value, Val]]
    module: LLVMModule
    dag: Dag
    env: dict[str, Val]

    @abstractmethod
    def _evaluate(self, instruction: Instruction) -> Val:
        """The value ``instruction`` computes in every thread (a constant expression's)."""

    @abstractmethod
    def _global_table(self, name: str) -> Val | None:
        """The address of the module's constant global ``name`` when its contents are known
        (an integer table or a string), None otherwise."""

    def _start_registers(self) -> None:
        """No constant read yet (a new run)."""
        self._constants = {}

    def value(self, operand: Value) -> Val:
        """The value of ``operand`` in every thread."""
        if operand.is_local:
            try:
                return self.env[operand.text]
            except KeyError:
                raise Unmodelled(f"{operand.text} is used before it is defined") from None
        return self.constant(operand)

    def define(self, name: str, value: Val) -> None:
        """Bind the local ``name`` to ``value``."""
        self.env[name] = value

    def forget(self, name: str) -> None:
        """Unbind the local ``name`` (a handler's temporary)."""
        self.env.pop(name, None)

    def assign(self, instruction: Instruction, value: Val, mask: np.ndarray) -> None:
        """``instruction``'s result is ``value`` in the threads of ``mask`` (others keep theirs)."""
        name = instruction.result
        if name is None:
            return
        old = self.env.get(name)
        if old is None or mask.all():
            self.env[name] = value
            return
        self.env[name] = merge(mask, value, old)

    def data_op(self, name: str, operands: list[Val], out_bytes: int) -> Val:
        """A data-computing op: one DAG node per thread over the operands' nodes."""
        return self.dag.apply(name, operands, out_bytes)

    def constant(self, operand: Value) -> Val:
        """The value of the constant (or global) ``operand`` in every thread (computed once
        for each operand object: a constant's value never changes)."""
        try:
            return self._constants[id(operand)][1]
        except KeyError:
            value = _read_only(self._constant(operand))
            self._constants[id(operand)] = (operand, value)  # the operand kept: its id stays
            return value

    def _constant(self, operand: Value) -> Val:
        ty, text = operand.type, operand.text
        if text.startswith("@"):
            return self._global_address(text)
        if text in _EXPRESSIONS:
            return self._evaluate(_expression_instruction(operand))
        if text == "const":
            parts = [self.constant(e).byte_symbols() for e in operand.elements]
            return Val(bits_of(ty), syms=np.concatenate(parts, axis=1)).normalised()
        return _literal(text, ty, self.threads)

    def _global_address(self, name: str) -> Val:
        """The address of global ``name``: shared memory's base for ``@global_smem`` and the
        other arrays of address space 3 (shared allocations); a constant table or string of
        address space 0 or 1, a buffer of its values; other globals are not modelled."""
        space = self.module.spaces.get(name, 3)
        if name == "@global_smem" or (
            space == 3 and self.module.globals.get(name, Type("void")).kind == "array"
        ):
            return Val.concrete(0, 32, self.threads)
        table = self._global_table(name) if space in (0, 1) else None
        if table is None:
            raise Unmodelled(f"the address of global {name}")
        return table


def _expression_instruction(operand: Value) -> Instruction:
    """The instruction a constant expression (``getelementptr``, a cast) names."""
    if operand.text == "gep":
        source = operand.elements[0].type
        return Instruction(
            None, "getelementptr", operand.type, list(operand.elements[1:]), {"source": source}
        )
    return Instruction(None, operand.text, operand.type, [operand.elements[0]], {})


def _read_only(value: Val) -> Val:
    """``value`` with its arrays made read-only: one constant's value is shared by every
    instruction that reads it (a handler that wrote into it would raise, never corrupt it)."""
    for array in (value.ints, value.syms):
        if array is not None:
            array.flags.writeable = False
    return value


def _literal(text: str, ty: Type, threads: int) -> Val:
    """A literal constant: poison/undef (undefined bytes), zero forms, true, integers, floats."""
    if text in ("poison", "undef"):
        return Val(bits_of(ty), syms=np.full((threads, nbytes_of(ty)), UNDEFINED, dtype=np.int64))
    if text in ("zeroinitializer", "null", "false"):
        return Val(
            bits_of(ty), syms=np.full((threads, nbytes_of(ty)), -1, dtype=np.int64)
        ).normalised()
    if text == "true":
        return Val.concrete(1, 1, threads)
    if ty.kind == "int":
        return Val.concrete(int(text) & ((1 << ty.bits) - 1), ty.bits, threads)
    if ty.kind == "float":
        return Val.concrete(float_bits(text, ty), ty.bits, threads)
    raise Unmodelled(f"constant {text!r} of type {ty}")


_MANTISSA = {"half": 10, "bfloat": 7, "float": 23, "double": 52}
_SPECIAL = re.compile(r"([-+])(inf|[qs]?nan)(?:\(0x([\da-fA-F]+)\))?$")


def float_bits(text: str, ty: Type) -> int:
    """The bits of the float constant ``text`` of type ``ty``: decimal, ``0x`` hex (doubles for
    ``float``), or the special forms ``+inf``, ``-nan``, ``+nan(0xP)`` (a quiet NaN with payload
    P below the quiet bit: bfloat ``+nan(0x3F)`` is 0x7FFF) and ``+snan(0xP)``."""
    if text.startswith("f0x"):  # the type's own IEEE bits (LLVM 20+ spelling)
        return int(text[3:], 16)
    special = _SPECIAL.match(text)
    if special is not None and ty.name in _MANTISSA:
        return _special_bits(text, ty, special)
    if text.startswith("0x"):
        return _hex_bits(text[2:], ty)
    return _decimal_bits(text, ty)


def _special_bits(text: str, ty: Type, special: re.Match[str]) -> int:
    """``+inf``, ``-inf``, ``+nan``, ``+qnan(0xP)``, ``+snan(0xP)`` of ``ty``."""
    sign, kind, payload = special.groups()
    mantissa = _MANTISSA[ty.name]
    exponent = ((1 << (ty.bits - 1 - mantissa)) - 1) << mantissa
    fraction = int(payload or "0", 16)
    if kind in ("nan", "qnan"):
        fraction |= 1 << (mantissa - 1)
    if fraction >> mantissa or (kind == "snan" and fraction == 0):
        raise Unmodelled(f"float constant {text} of type {ty}")
    return (1 << (ty.bits - 1) if sign == "-" else 0) | exponent | fraction


def _hex_bits(digits: str, ty: Type) -> int:
    """``0x...``: the type's own bits after a ``K``/``L``/``M``/``H``/``R`` prefix; else a
    double's bits (rounded to ``float`` for a 32-bit type, as LLVM writes floats)."""
    if digits[:1] in ("K", "L", "M", "H", "R"):  # x87/fp128/half/bfloat hex forms
        return int(digits[1:], 16)
    value = int(digits, 16)
    if ty.bits == 32:  # LLVM writes float constants as doubles
        return int(
            np.array(
                [np.frombuffer(value.to_bytes(8, "little"), np.float64)[0]], dtype=np.float32
            ).view(np.uint32)[0]
        )
    return value


def _decimal_bits(text: str, ty: Type) -> int:
    """A decimal float constant's bits in ``ty`` (a bfloat only when exact, as LLVM writes
    one in decimal only then)."""
    try:
        as_float = float(text)
    except ValueError:
        raise Unmodelled(f"float constant {text!r}") from None
    if ty.bits == 64:
        return int(np.array([as_float], dtype=np.float64).view(np.uint64)[0])
    if ty.bits == 32:
        return int(np.array([as_float], dtype=np.float32).view(np.uint32)[0])
    if ty.bits == 16 and ty.name == "half":
        return int(np.array([as_float], dtype=np.float16).view(np.uint16)[0])
    if ty.name == "bfloat":
        single = np.array([as_float], dtype=np.float32)
        bits = int(single.view(np.uint32)[0])
        if bits & 0xFFFF == 0 and float(single[0]) == as_float:
            return bits >> 16
    raise Unmodelled(f"float constant {text} of type {ty}")
