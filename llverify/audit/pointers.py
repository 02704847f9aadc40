"""The offsets a tensor of pointers holds, from the module's pointer arithmetic, where constant.

A pointer tensor built as ``tt.splat %base`` then ``tt.addptr`` with integer offsets is
evaluated element by element (numpy arrays over the tensor's logical coordinates, so layouts
do not matter): ``tt.make_range``, constants, ``tt.splat``, ``tt.expand_dims``,
``tt.broadcast``, ``tt.trans``, ``tt.reshape``, ``ttg.convert_layout``, the integer casts and
``arith.addi/subi/muli/divsi/divui/remsi/remui/shli/shrsi/shrui``.

Values the module does not fix (``tt.get_program_id``, integer arguments, the induction
variable of an ``scf.for`` with a constant step) are kept as an
unknown *uniform* part, the same for every element, known only to be a multiple of a step
(the argument's ``tt.divisibility``, times the constants it is multiplied by); a division or
remainder by ``m`` keeps it only when ``m`` divides the step and the part is non-negative
(program ids), as in Inductor's ``(pid * 1024 + arange) % 64``.  Anything else (an unknown
that varies by element, such as a runtime stride, a loop-carried pointer, ``arith.select``,
a constant array that is not a splat) raises :class:`NotConstantError` with the reason.

Examples:
    >>> from llverify.ttgir import parse_module
    >>> module = parse_module('''#b = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
    ...   tt.func public @k(%in: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    ...     %c = arith.constant dense<64> : tensor<512xi32, #b>
    ...     %pid = tt.get_program_id x : i32
    ...     %c512 = arith.constant 512 : i32
    ...     %o = arith.muli %pid, %c512 : i32
    ...     %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #b>
    ...     %s = tt.splat %o : i32 -> tensor<512xi32, #b>
    ...     %x = arith.addi %s, %r : tensor<512xi32, #b>
    ...     %m = arith.remsi %x, %c : tensor<512xi32, #b>
    ...     %p = tt.splat %in : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #b>
    ...     %q = tt.addptr %p, %m : tensor<512x!tt.ptr<f32>, #b>, tensor<512xi32, #b>
    ...   }
    ... }''')
    >>> pointer = Evaluator(module).pointer("%q")
    >>> pointer.base, pointer.element_bits, pointer.alignment, pointer.offset.known[62:66].tolist()
    ('%in', 32, 16, [62, 63, 0, 1])
    >>> pointer.offset.step  # pid * 512 % 64 == 0: nothing unknown is left
    0
"""  # noqa: E501

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from llverify.errors import LLVerifyError
from llverify.hardware import element_type_bits
from llverify.ttgir import Operation, TTGIRModule
from llverify.ttgir.syntax import integer_literal, split_top

__all__ = ["Affine", "Evaluator", "Pointer", "NotConstantError", "offsets_of"]

_T = TypeVar("_T")
_DIVISIBILITY = re.compile(r"tt\.divisibility\s*=\s*(\d+)")
_DENSE = re.compile(r"^dense<(-?\d+)>$")
_FOR = re.compile(r"scf\.for\s+(%[\w.$-]+)\s*=\s*(%[\w.$-]+)\s+to\s+%[\w.$-]+\s+step\s+(%[\w.$-]+)")
_PARENTHESIS = re.compile(r"[()]")


class NotConstantError(LLVerifyError):
    """The pointer arithmetic is not constant (or not modelled); the message says where."""


@dataclass(frozen=True)
class Affine:
    """An integer value: ``known`` (an int64 array of the value's shape, or a 0-d array)
    plus an unknown uniform part that is a multiple of ``step`` (0: none) and, when
    ``nonneg``, at least 0."""

    known: np.ndarray
    step: int = 0
    nonneg: bool = True

    def uniform(self) -> int | None:
        """The value when it is known and the same everywhere, else None."""
        if self.step or self.known.size == 0:
            return None
        first = int(self.known.reshape(-1)[0])
        return first if (self.known == first).all() else None


@dataclass(frozen=True)
class Pointer:
    """A pointer value: the function argument it starts from (``base``), its pointee's bits,
    the base's guaranteed alignment in bytes, and its offset in elements."""

    base: str
    element_bits: int
    alignment: int
    offset: Affine


def _add(a: Affine, b: Affine, sign: int = 1) -> Affine:
    step = math.gcd(a.step, b.step)
    nonneg = (not a.step or a.nonneg) and (not b.step or (b.nonneg and sign > 0))
    return Affine(a.known + sign * b.known, step, nonneg)


def _mul(a: Affine, b: Affine) -> Affine:
    if a.step and b.step:
        raise NotConstantError("a product of two values the module does not fix")
    if b.step:
        a, b = b, a
    if not a.step:
        return Affine(a.known * b.known)
    c = b.uniform()
    if c is None:
        raise NotConstantError("a value the module does not fix times one that varies by element")
    return Affine(a.known * c, a.step * abs(c), a.nonneg and c >= 0)


def _divisor(b: Affine, what: str) -> int:
    m = b.uniform()
    if m is None or m <= 0:
        raise NotConstantError(f"{what} by a value that is not one positive constant")
    return m


def _div(a: Affine, b: Affine) -> Affine:
    m = _divisor(b, "a division")
    if not a.step:
        q = np.abs(a.known) // m
        return Affine(np.where(a.known < 0, -q, q))  # truncating, as divsi
    if a.step % m or not a.nonneg or (a.known < 0).any():
        raise NotConstantError(
            f"a division by {m} of a value whose unknown part is a multiple of {a.step} only"
            + ("" if a.nonneg else " and may be negative")
        )
    return Affine(a.known // m, a.step // m, True)


def _rem(a: Affine, b: Affine) -> Affine:
    m = _divisor(b, "a remainder")
    if not a.step:
        return Affine(np.fmod(a.known, m))  # the sign of the dividend, as remsi
    if a.step % m or not a.nonneg or (a.known < 0).any():
        raise NotConstantError(
            f"a remainder by {m} of a value whose unknown part is a multiple of {a.step} only"
            + ("" if a.nonneg else " and may be negative")
        )
    return Affine(a.known % m)


def _shift(op: Callable[[Affine, Affine], Affine]) -> Callable[[Affine, Affine], Affine]:
    def shifted(a: Affine, b: Affine) -> Affine:
        k = b.uniform()
        if k is None or not 0 <= k < 63:
            raise NotConstantError("a shift by a value that is not one constant")
        return op(a, Affine(np.array(1 << k, dtype=np.int64)))

    return shifted


_BINARY: dict[str, Callable[[Affine, Affine], Affine]] = {
    "arith.addi": _add,
    "arith.subi": lambda a, b: _add(a, b, -1),
    "arith.muli": _mul,
    "arith.divsi": _div,
    "arith.divui": _div,
    "arith.remsi": _rem,
    "arith.remui": _rem,
    "arith.shli": _shift(_mul),
    "arith.shrsi": _shift(_div),
    "arith.shrui": _shift(_div),
}
_CASTS = frozenset({"arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast"})
_UNIFORM_UNKNOWNS = frozenset({"tt.get_program_id", "tt.get_num_programs"})


def _result_shape(op: Operation) -> tuple[int, ...]:
    """The shape of the op's (first) result: its result type, else its first operand type."""
    inputs, outputs = op.signature
    types = outputs or inputs
    return tuple(types[0].shape) if types else ()


class Evaluator:
    """Evaluates integer and pointer values of one module (memoised)."""

    def __init__(self, module: TTGIRModule) -> None:
        # an op that declares no result defines no value (its result_values are empty)
        self.definitions = {r: op for op in module.ops if op.results for r in op.result_values}
        self.arguments: dict[str, tuple[str, int]] = {}
        #: an scf.for's induction variable -> (its lower bound, its step)
        self.loops: dict[str, tuple[str, str]] = {}
        for op in module.ops:
            if op.name == "tt.func":
                self.arguments.update(_function_arguments(op.text))
            elif op.name == "scf.for":
                loop = _FOR.search(op.text)
                if loop is not None:
                    self.loops[loop.group(1)] = (loop.group(2), loop.group(3))
        self._memo: dict[str, Affine | Pointer] = {}
        #: an op's pattern (its text with SSA names blanked) -> its result shape, and an
        #: arith.constant's pattern -> its value: both read from the text without the names
        self._shapes: dict[str, tuple[int, ...]] = {}
        self._constants: dict[str, Affine] = {}

    def pointer(self, name: str) -> Pointer:
        """The pointer value ``name`` (an SSA name)."""
        value = self.value(name)
        if not isinstance(value, Pointer):
            raise NotConstantError(f"{name} is not a pointer")
        return value

    def value(self, name: str) -> Affine | Pointer:
        """The value ``name``: an :class:`Affine` integer or a :class:`Pointer`."""
        found = self._memo.get(name)
        if found is None:
            found = self._memo[name] = self._evaluate(name)
        return found

    def _integer(self, name: str) -> Affine:
        value = self.value(name)
        if not isinstance(value, Affine):
            raise NotConstantError(f"{name} is a pointer where an integer was expected")
        return value

    def _evaluate(self, name: str) -> Affine | Pointer:
        if name in self.arguments:
            type_text, divisibility = self.arguments[name]
            if type_text.startswith("!tt.ptr<"):
                pointee = type_text[len("!tt.ptr<") :].split(",")[0].rstrip(">").strip()
                bits = element_type_bits(pointee)
                if bits is None:
                    raise NotConstantError(f"argument {name} points to {pointee}, of unknown width")
                alignment = max(divisibility, bits // 8)
                return Pointer(name, bits, alignment, Affine(np.zeros((), dtype=np.int64)))
            if re.fullmatch(r"i\d+", type_text):
                return Affine(np.zeros((), dtype=np.int64), divisibility, False)
            raise NotConstantError(f"argument {name} is a {type_text}")
        if name in self.loops:
            return self._induction(*self.loops[name])
        op = self.definitions.get(name)
        if op is None:
            raise NotConstantError(f"{name} is a block argument (a loop-carried or region value)")
        return self._operation(op, name)

    def _shape(self, op: Operation) -> tuple[int, ...]:
        """:func:`_result_shape`, once per pattern (a shape is never an SSA name)."""
        return _per_pattern(self._shapes, op, _result_shape)

    def _constant(self, op: Operation) -> Affine:
        """:func:`_constant`, once per pattern (a constant names no value but its own)."""
        return _per_pattern(self._constants, op, lambda o: _constant(o, self._shape(o)))

    def _induction(self, lower: str, step: str) -> Affine:
        """An scf.for induction variable: ``lower + k * step`` for an unknown ``k >= 0``."""
        start, stride = self._integer(lower), self._integer(step).uniform()
        if stride is None or stride <= 0 or start.known.ndim:
            raise NotConstantError("a loop whose step is not one positive constant")
        nonneg = start.nonneg and int(start.known) >= 0
        return Affine(start.known, math.gcd(start.step, stride), nonneg)

    def _operation(self, op: Operation, name: str) -> Affine | Pointer:
        kind = op.name
        if kind == "arith.constant":
            return self._constant(op)
        if kind in _UNIFORM_UNKNOWNS:
            return Affine(np.zeros((), dtype=np.int64), 1, True)
        if kind == "tt.make_range":
            start, end = op.attributes.integer("start"), op.attributes.integer("end")
            if start is None or end is None:
                raise NotConstantError(f"{kind} without constant start and end")
            return Affine(np.arange(start, end, dtype=np.int64))
        if kind in _BINARY and len(op.operands) == 2:
            a, b = (self._integer(x) for x in op.operands)
            return _BINARY[kind](a, b)
        if kind == "tt.addptr" and len(op.operands) == 2:
            pointer = self.value(op.operands[0])
            if not isinstance(pointer, Pointer):
                raise NotConstantError(f"{op.operands[0]} is not a pointer")
            return replace(pointer, offset=_add(pointer.offset, self._integer(op.operands[1])))
        if kind in _CASTS or kind == "ttg.convert_layout":
            return self.value(op.operands[0])
        shape = self._shape(op)
        reshape = _RESHAPES.get(kind)
        if reshape is not None and op.operands:
            return _map(self.value(op.operands[0]), lambda k: reshape(op, k, shape))
        raise NotConstantError(f"{name} comes from {kind} (line {op.line}), which is not modelled")


def _map(value: Affine | Pointer, change: Callable[[np.ndarray], np.ndarray]) -> Affine | Pointer:
    """``value`` with ``change`` applied to its known part (the unknown part is uniform)."""
    if isinstance(value, Pointer):
        offset = value.offset
        return replace(
            value, offset=replace(offset, known=np.ascontiguousarray(change(offset.known)))
        )
    return replace(value, known=np.ascontiguousarray(change(value.known)))


def _expand(op: Operation, known: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    axis = op.attributes.integer("axis")
    if axis is None:
        raise NotConstantError(f"tt.expand_dims without an axis (line {op.line})")
    return np.expand_dims(known, axis)


def _transpose(op: Operation, known: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    order = op.attributes.integers("order")
    if order is None:
        raise NotConstantError(f"tt.trans without an order (line {op.line})")
    return np.transpose(known, order)


def _reshape(op: Operation, known: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    if op.flag("allow_reorder") or op.flag("efficient_layout"):
        raise NotConstantError(
            f"tt.reshape with allow_reorder (line {op.line}) may reorder elements"
        )
    return known.reshape(shape)


_RESHAPES: dict[str, Callable[[Operation, np.ndarray, tuple[int, ...]], np.ndarray]] = {
    "tt.splat": lambda op, known, shape: np.broadcast_to(known, shape),
    "tt.broadcast": lambda op, known, shape: np.broadcast_to(known, shape),
    "tt.expand_dims": _expand,
    "tt.trans": _transpose,
    "tt.reshape": _reshape,
}


def _per_pattern(table: dict[str, _T], op: Operation, read: Callable[[Operation], _T]) -> _T:
    """``read(op)``, remembered in ``table`` under the op's pattern (read again for an op
    without one, whose text holds a string)."""
    pattern = op.pattern
    if pattern is None:
        return read(op)
    found = table.get(pattern)
    if found is None:
        found = table[pattern] = read(op)
    return found


def _constant(op: Operation, shape: tuple[int, ...]) -> Affine:
    """An integer ``arith.constant`` whose result has ``shape``: a scalar or a splat
    ``dense<c>`` tensor."""
    for literal in op.literals:
        value = integer_literal(literal)
        if value is not None and not shape:
            return Affine(np.array(value, dtype=np.int64))
        dense = _DENSE.match(literal)
        if dense is not None:
            return Affine(np.full(shape, int(dense.group(1)), dtype=np.int64))
    raise NotConstantError(f"arith.constant at line {op.line} is not an integer or a splat of one")


def _function_arguments(text: str) -> dict[str, tuple[str, int]]:
    """``%name -> (type text, tt.divisibility or 1)`` of a ``tt.func``'s arguments.

    >>> _function_arguments('tt.func public @k(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32}'
    ...                     ' loc("a"(#loc)), %n: i32) attributes {noinline = false} {')
    {'%a': ('!tt.ptr<f16>', 16), '%n': ('i32', 1)}
    """
    opening = re.search(r"@[\w$.-]+\(", text)
    if opening is None:
        return {}
    depth, start, end = 1, opening.end(), len(text)
    for bracket in _PARENTHESIS.finditer(text, start):
        depth += 1 if bracket.group() == "(" else -1
        if depth == 0:
            end = bracket.start()
            break
    found = {}
    for part in split_top(text[start:end]):
        ssa, _, rest = part.partition(":")
        rest = rest.strip()
        type_text = rest.split(" {", 1)[0].split(" loc(", 1)[0].strip()
        divisibility = _DIVISIBILITY.search(rest)
        found[ssa.strip()] = (type_text, int(divisibility.group(1)) if divisibility else 1)
    return found


def offsets_of(pointer: Pointer, shape: tuple[int, ...]) -> np.ndarray:
    """The known offsets (elements) of a pointer tensor of ``shape``, as an int64 array."""
    return np.broadcast_to(pointer.offset.known, shape).astype(np.int64)
