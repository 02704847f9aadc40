"""The Ops protocol: integer and bitwise operations on one backend (int, numpy, ...).

A formula is written once against ``Ops`` and evaluated by any backend: ``IntOps`` (Python
ints, exact), ``NumpyOps`` (int64 arrays, vectorized) and ``llverify.smt.Z3Ops`` (Z3
bit-vectors, for proofs).  The semantics are Python's on unbounded integers: ``>>`` floors,
``//`` and ``%`` follow the sign of the divisor, ``~x == -x - 1``.  Backends of bounded width
must be used at a width where no value overflows (``llverify.proof.formula`` computes one).

Operations that can help a solver take ``nonneg=True`` when every operand is known to be
non-negative (then logical shifts and unsigned division are exact); value backends ignore it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

T = TypeVar("T")
B = TypeVar("B")


class Ops(Protocol[T, B]):
    """Integer (``T``) and condition (``B``) operations of one backend."""

    name: str

    def const(self, value: int) -> T: ...
    def add(self, a: T, b: T) -> T: ...
    def sub(self, a: T, b: T) -> T: ...
    def mul(self, a: T, b: T) -> T: ...
    def floordiv(self, a: T, b: T, nonneg: bool = False) -> T: ...
    def mod(self, a: T, b: T, nonneg: bool = False) -> T: ...
    def and_(self, a: T, b: T) -> T: ...
    def or_(self, a: T, b: T) -> T: ...
    def xor(self, a: T, b: T) -> T: ...
    def invert(self, a: T) -> T: ...
    def neg(self, a: T) -> T: ...
    def shl(self, a: T, b: T) -> T: ...
    def shr(self, a: T, b: T, nonneg: bool = False) -> T: ...
    def eq(self, a: T, b: T) -> B: ...
    def ne(self, a: T, b: T) -> B: ...
    def lt(self, a: T, b: T, nonneg: bool = False) -> B: ...
    def le(self, a: T, b: T, nonneg: bool = False) -> B: ...
    def logical_and(self, conditions: Sequence[B]) -> B: ...
    def logical_or(self, conditions: Sequence[B]) -> B: ...
    def logical_not(self, condition: B) -> B: ...
    def ite(self, condition: B, a: T, b: T) -> T: ...
    def min(self, a: T, b: T, nonneg: bool = False) -> T: ...
    def max(self, a: T, b: T, nonneg: bool = False) -> T: ...


class IntOps:
    """Exact evaluation on Python ints (the reference semantics).

    Examples:
        >>> ops = IntOps()
        >>> ops.xor(ops.shr(ops.const(200), ops.const(3)), ops.const(1))
        24
    """

    name = "int"

    def const(self, value: int) -> int:
        return int(value)

    def add(self, a: int, b: int) -> int:
        return a + b

    def sub(self, a: int, b: int) -> int:
        return a - b

    def mul(self, a: int, b: int) -> int:
        return a * b

    def floordiv(self, a: int, b: int, nonneg: bool = False) -> int:
        return a // b

    def mod(self, a: int, b: int, nonneg: bool = False) -> int:
        return a % b

    def and_(self, a: int, b: int) -> int:
        return a & b

    def or_(self, a: int, b: int) -> int:
        return a | b

    def xor(self, a: int, b: int) -> int:
        return a ^ b

    def invert(self, a: int) -> int:
        return ~a

    def neg(self, a: int) -> int:
        return -a

    def shl(self, a: int, b: int) -> int:
        return a << b

    def shr(self, a: int, b: int, nonneg: bool = False) -> int:
        return a >> b

    def eq(self, a: int, b: int) -> bool:
        return a == b

    def ne(self, a: int, b: int) -> bool:
        return a != b

    def lt(self, a: int, b: int, nonneg: bool = False) -> bool:
        return a < b

    def le(self, a: int, b: int, nonneg: bool = False) -> bool:
        return a <= b

    def logical_and(self, conditions: Sequence[bool]) -> bool:
        return all(conditions)

    def logical_or(self, conditions: Sequence[bool]) -> bool:
        return any(conditions)

    def logical_not(self, condition: bool) -> bool:
        return not condition

    def ite(self, condition: bool, a: int, b: int) -> int:
        return a if condition else b

    def min(self, a: int, b: int, nonneg: bool = False) -> int:
        return a if a <= b else b

    def max(self, a: int, b: int, nonneg: bool = False) -> int:
        return a if a >= b else b


class NumpyOps(Generic[T]):
    """Vectorized evaluation on int64 arrays (exact while values fit in 63 bits).

    Examples:
        >>> import numpy as np
        >>> ops = NumpyOps()
        >>> ops.shr(np.arange(4) * 8, ops.const(2)).tolist()
        [0, 2, 4, 6]
    """

    name = "numpy"

    def const(self, value: int) -> Any:
        return np.int64(value)

    def add(self, a: Any, b: Any) -> Any:
        return np.add(a, b)

    def sub(self, a: Any, b: Any) -> Any:
        return np.subtract(a, b)

    def mul(self, a: Any, b: Any) -> Any:
        return np.multiply(a, b)

    def floordiv(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return np.floor_divide(a, b)

    def mod(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return np.mod(a, b)

    def and_(self, a: Any, b: Any) -> Any:
        return np.bitwise_and(a, b)

    def or_(self, a: Any, b: Any) -> Any:
        return np.bitwise_or(a, b)

    def xor(self, a: Any, b: Any) -> Any:
        return np.bitwise_xor(a, b)

    def invert(self, a: Any) -> Any:
        return np.invert(a)

    def neg(self, a: Any) -> Any:
        return np.negative(a)

    def shl(self, a: Any, b: Any) -> Any:
        return np.left_shift(a, b)

    def shr(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return np.right_shift(a, b)  # arithmetic on int64: floors like Python

    def eq(self, a: Any, b: Any) -> Any:
        return np.equal(a, b)

    def ne(self, a: Any, b: Any) -> Any:
        return np.not_equal(a, b)

    def lt(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return np.less(a, b)

    def le(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return np.less_equal(a, b)

    def logical_and(self, conditions: Sequence[Any]) -> Any:
        result = conditions[0]
        for condition in conditions[1:]:
            result = np.logical_and(result, condition)
        return result

    def logical_or(self, conditions: Sequence[Any]) -> Any:
        result = conditions[0]
        for condition in conditions[1:]:
            result = np.logical_or(result, condition)
        return result

    def logical_not(self, condition: Any) -> Any:
        return np.logical_not(condition)

    def ite(self, condition: Any, a: Any, b: Any) -> Any:
        return np.where(condition, a, b)

    def min(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return np.minimum(a, b)

    def max(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return np.maximum(a, b)


class CheckedNumpyOps(NumpyOps[T]):
    """NumpyOps that notices int64 overflow (and division by zero) instead of wrapping.

    After an evaluation, ``overflowed`` is True if any operation may have left the exact
    integer result; a caller then must not trust the values.  Used for reference callables,
    whose ranges cannot be analysed ahead of time.

    Examples:
        >>> import numpy as np
        >>> ops = CheckedNumpyOps()
        >>> _ = ops.shl(np.array([1, 2]), ops.const(62))
        >>> ops.overflowed
        True
    """

    def __init__(self) -> None:
        self.overflowed = False

    def _flag(self, condition: Any) -> None:
        if np.any(condition):
            self.overflowed = True

    def add(self, a: Any, b: Any) -> Any:
        with np.errstate(over="ignore"):
            result = np.add(a, b)
        self._flag(((a ^ result) & (b ^ result)) < 0)
        return result

    def sub(self, a: Any, b: Any) -> Any:
        with np.errstate(over="ignore"):
            result = np.subtract(a, b)
        self._flag(((a ^ b) & (a ^ result)) < 0)
        return result

    def mul(self, a: Any, b: Any) -> Any:
        magnitude = np.abs(np.asarray(a, dtype=np.float64)) * np.abs(
            np.asarray(b, dtype=np.float64)
        )
        self._flag(magnitude >= 2.0**62)  # conservative: flags every real overflow
        with np.errstate(over="ignore"):
            return np.multiply(a, b)

    def neg(self, a: Any) -> Any:
        self._flag(np.asarray(a) == np.iinfo(np.int64).min)
        return np.negative(a)

    def shl(self, a: Any, b: Any) -> Any:
        b = np.asarray(b)
        self._flag((b < 0) | (b >= 63))
        safe = np.clip(b, 0, 62)
        result = np.left_shift(a, safe)
        self._flag(np.right_shift(result, safe) != a)
        return result

    def floordiv(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        self._flag(np.asarray(b) == 0)
        self._flag((np.asarray(a) == np.iinfo(np.int64).min) & (np.asarray(b) == -1))
        with np.errstate(divide="ignore", over="ignore"):
            return np.floor_divide(a, np.where(np.asarray(b) == 0, 1, b))

    def mod(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        self._flag(np.asarray(b) == 0)
        with np.errstate(divide="ignore"):
            return np.mod(a, np.where(np.asarray(b) == 0, 1, b))
