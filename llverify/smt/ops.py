"""Z3Ops: the Ops protocol on Z3 bit-vectors of one fixed width.

Values are two's complement bit-vectors of ``width`` bits with Python's semantics (floored
``>>``, ``//`` and ``%``, signed comparisons); with ``nonneg=True`` the cheaper unsigned
operations are used (logical shift, unsigned division/remainder/comparison), which agree
with Python's on non-negative values.  The caller picks a width at which nothing overflows
(``llverify.proof.formula.Formula.width``); with ``checked=True`` every operation that could
overflow also records the condition under which it does, in ``overflow_conditions``, so a
proof can refuse to rely on wrapped values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import z3

from llverify.errors import LayoutError

z3.set_param("smt.random_seed", 0)


class Z3Ops:
    """Z3 bit-vector backend of a given width.

    Examples:
        >>> import z3
        >>> ops = Z3Ops(16)
        >>> x = ops.var("x", 8)
        >>> z3.simplify(ops.shr(ops.const(200), ops.const(3), nonneg=True))
        25
    """

    name = "z3"

    def __init__(self, width: int, checked: bool = False) -> None:
        if not isinstance(width, int) or width < 2:
            raise LayoutError(f"Argument 'width' must be an int >= 2, not {width!r}.")
        self.width = width
        self.checked = checked
        self.overflow_conditions: list[Any] = []

    def var(self, name: str, bits: int) -> Any:
        """A fresh ``bits``-bit unsigned variable, zero-extended to the working width."""
        if bits > self.width - 1:
            raise LayoutError(
                f"variable '{name}' needs {bits} bits, more than the working width "
                f"{self.width} allows (one bit is the sign)."
            )
        if bits == 0:
            return z3.BitVecVal(0, self.width)
        return z3.ZeroExt(self.width - bits, z3.BitVec(name, bits))

    def const(self, value: int) -> Any:
        return z3.BitVecVal(int(value), self.width)

    def _record(self, no_overflow: Any) -> None:
        if self.checked:
            self.overflow_conditions.append(z3.Not(no_overflow))

    def add(self, a: Any, b: Any) -> Any:
        self._record(z3.And(z3.BVAddNoOverflow(a, b, True), z3.BVAddNoUnderflow(a, b)))
        return a + b

    def sub(self, a: Any, b: Any) -> Any:
        self._record(z3.And(z3.BVSubNoOverflow(a, b), z3.BVSubNoUnderflow(a, b, True)))
        return a - b

    def mul(self, a: Any, b: Any) -> Any:
        self._record(z3.And(z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b)))
        return a * b

    def floordiv(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        self._record(b != 0)  # division by zero has no integer result
        if nonneg:
            return z3.UDiv(a, b)
        self._record(z3.BVSDivNoOverflow(a, b))
        quotient = a / b  # truncates towards zero
        remainder = z3.SRem(a, b)
        adjust = z3.And(remainder != 0, (remainder < 0) != (b < 0))
        return z3.If(adjust, quotient - 1, quotient)

    def mod(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        self._record(b != 0)
        return (
            z3.URem(a, b)
            if nonneg
            else z3.SRem(a, b)
            + z3.If(z3.And(z3.SRem(a, b) != 0, (z3.SRem(a, b) < 0) != (b < 0)), b, 0)
        )

    def and_(self, a: Any, b: Any) -> Any:
        return a & b

    def or_(self, a: Any, b: Any) -> Any:
        return a | b

    def xor(self, a: Any, b: Any) -> Any:
        return a ^ b

    def invert(self, a: Any) -> Any:
        return ~a

    def neg(self, a: Any) -> Any:
        self._record(z3.BVSNegNoOverflow(a))
        return -a

    def shl(self, a: Any, b: Any) -> Any:
        result = a << b
        self._record(z3.And(z3.ULT(b, self.width), (result >> b) == a))
        return result

    def shr(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return z3.LShR(a, b) if nonneg else a >> b

    def eq(self, a: Any, b: Any) -> Any:
        return a == b

    def ne(self, a: Any, b: Any) -> Any:
        return a != b

    def lt(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return z3.ULT(a, b) if nonneg else a < b

    def le(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return z3.ULE(a, b) if nonneg else a <= b

    def logical_and(self, conditions: Sequence[Any]) -> Any:
        return z3.And(*conditions)

    def logical_or(self, conditions: Sequence[Any]) -> Any:
        return z3.Or(*conditions)

    def logical_not(self, condition: Any) -> Any:
        return z3.Not(condition)

    def ite(self, condition: Any, a: Any, b: Any) -> Any:
        return z3.If(condition, a, b)

    def min(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return z3.If(self.le(a, b, nonneg), a, b)

    def max(self, a: Any, b: Any, nonneg: bool = False) -> Any:
        return z3.If(self.le(a, b, nonneg), b, a)
