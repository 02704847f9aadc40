"""Closed forms as sympy expressions: bit fields, bitwise XOR, and CuTe index formulas both ways.

sympy is imported on first use (``import llverify`` stays light).  The vocabulary:

* a bit field of a non-negative integer ``x`` is ``2**shift * Mod(floor(x / 2**low), 2**n)``
  (:func:`bit_field`), what ``((x >> low) & (2**n - 1)) << shift`` is in Python;
* :func:`bit_xor` is bitwise XOR of non-negative integers (sympy's ``Xor`` is Boolean), shown
  as ``\\oplus`` in LaTeX; terms whose bits are disjoint are added instead, so most layouts'
  closed forms are ordinary arithmetic;
* :func:`cute_to_sympy` writes a CuTe layout's index function, ``sum(c_i * d_i)`` over its
  coordinates, a swizzle or outer layout composed in; :func:`sympy_to_cute` reads an
  expression of that form back as a :class:`~llverify.cute.layout.Layout`, and says why not
  where it is not of that form.

Nothing here proves anything: proofs go through :func:`llverify.prove_equal`.  The sympy
forms are for reading and writing (LaTeX for docs and pictures, index formulas typed as
mathematics).

Examples:
    >>> from llverify.cute.layout import Layout
    >>> expr = cute_to_sympy(Layout((4, (2, 4)), (2, (1, 8))))
    >>> expr
    2*c0 + Mod(c1, 2) + 8*floor(c1/2)
    >>> print(sympy_to_cute(expr, [("c0", 4), ("c1", 8)]))
    (4, (2, 4)):(2, (1, 8))
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from llverify.cute.layout import ComposedLayout, Layout, Swizzle, flatten
from llverify.errors import LayoutError, LayoutTypeError, shown

__all__ = [
    "bit_field",
    "bit_xor",
    "coordinate",
    "cute_to_sympy",
    "latex",
    "sympy_to_cute",
]


@functools.cache
def _bit_xor_class() -> Any:
    """The sympy function class of bitwise XOR (defined once, when sympy is first needed)."""
    import sympy

    class BitXor(sympy.Function):
        """Bitwise XOR of non-negative integers: flattened, constants folded, zeros dropped."""

        is_integer = True
        is_nonnegative = True

        @classmethod
        def eval(cls, *args: Any) -> Any:
            terms: list[Any] = []
            constant = 0
            for arg in args:
                for term in arg.args if isinstance(arg, cls) else (arg,):
                    if term.is_Integer:
                        constant ^= int(term)
                    else:
                        terms.append(term)
            if constant:
                terms.append(sympy.Integer(constant))
            if len(terms) <= 1:
                return terms[0] if terms else sympy.Integer(0)
            if tuple(terms) != args:
                return cls(*terms, evaluate=False)
            return None

        def _latex(self, printer: Any) -> str:
            parts = []
            for arg in self.args:
                text = printer._print(arg)
                parts.append(f"\\left({text}\\right)" if arg.is_Add else text)
            return " \\oplus ".join(parts)

    return BitXor


def bit_xor(*terms: Any) -> Any:
    """The bitwise XOR of sympy integer expressions (0 for none).

    Examples:
        >>> import sympy
        >>> x = coordinate("x")
        >>> bit_xor(x, 4 * sympy.Mod(sympy.floor(x / 8), 2)), bit_xor(6, 3)
        (BitXor(x, 4*(Mod(floor(x/8), 2))), 5)
    """
    return _bit_xor_class()(*terms)


def coordinate(name: str) -> Any:
    """The sympy symbol of a coordinate: a non-negative integer named ``name``.

    Examples:
        >>> coordinate("lane").is_nonnegative
        True
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise LayoutTypeError(f"Argument 'name' must be an identifier, not {shown(name)}.")
    import sympy

    return sympy.Symbol(name, integer=True, nonnegative=True)


def bit_field(x: Any, low: int, length: int, shift: int = 0, bits: int | None = None) -> Any:
    """``((x >> low) & (2**length - 1)) << shift`` as arithmetic: the mask is left out where
    ``x`` has no bit at or above ``low + length`` (``bits``, x's width, when known).

    Examples:
        >>> lane = coordinate("lane")
        >>> bit_field(lane, 2, 3), bit_field(lane, 2, 3, 1, bits=5)
        (Mod(floor(lane/4), 8), 2*floor(lane/4))
    """
    import sympy

    value = x if low == 0 else sympy.floor(x / sympy.Integer(2) ** low)
    if bits is None or low + length < bits:
        value = sympy.Mod(value, sympy.Integer(2) ** length)
    return sympy.Integer(2) ** shift * value


def latex(expr: Any) -> str:
    """The LaTeX of a sympy expression (floors as ``\\lfloor\\rfloor``, XOR as ``\\oplus``).

    Examples:
        >>> lane = coordinate("lane")
        >>> latex(bit_field(lane, 2, 3, 1, bits=5))
        '2 \\\\left\\\\lfloor{\\\\frac{lane}{4}}\\\\right\\\\rfloor'
    """
    import sympy

    return str(sympy.latex(expr))


# ---------------------------------------------------------------------- CuTe -> sympy


def _flat_index(leaves: Sequence[tuple[int, int]], index: Any) -> Any:
    """``sum(d_i * c_i)`` where ``c_i`` are the colexicographic digits of ``index``."""
    import sympy

    total: Any = sympy.Integer(0)
    position = 1
    for k, (size, stride) in enumerate(leaves):
        if size > 1 and stride:
            digit = index if position == 1 else sympy.floor(index / position)
            if k < len(leaves) - 1:
                digit = sympy.Mod(digit, size)
            total += stride * digit
        position *= size
    return total


def _leaves(layout: Layout) -> list[tuple[int, int]]:
    return list(zip(flatten(layout.shape), flatten(layout.stride)))


def _names(count: int, names: Sequence[str] | None, what: str) -> list[str]:
    result = [f"c{k}" for k in range(count)] if names is None else list(names)
    if len(result) != count or not all(isinstance(n, str) and n.isidentifier() for n in result):
        raise LayoutError(
            f"Argument 'names' must give {count} identifiers ({what}), not {shown(names)}."
        )
    return result


def _swizzle(swizzle: Swizzle, value: Any) -> Any:
    low = swizzle.base + max(0, swizzle.shift)  # the bits XORed in come from here ...
    target = swizzle.base + max(0, -swizzle.shift)  # ... and land here
    if not swizzle.bits:
        return value
    return bit_xor(value, bit_field(value, low, swizzle.bits, target))


def cute_to_sympy(layout: Any, names: Sequence[str] | None = None, natural: bool = False) -> Any:
    """A CuTe layout's index function as a sympy expression of its coordinates.

    With ``natural=False`` (default) the variables are the top-level modes' flat
    coordinates ``c0, c1, ...`` (``names`` renames them) and a nested mode's leaves are
    its digits (``floor``/``Mod``); with ``natural=True`` they are the leaves' natural
    coordinates ``c0_0, c0_1, ...`` (mode, leaf), so the expression is ``sum(c_i * d_i)``.
    A ComposedLayout's outer swizzle or layout is applied to the inner expression (plus
    its offset).

    Examples:
        >>> from llverify.cute.layout import parse
        >>> cute_to_sympy(parse("(2,(2,2)):(4,(1,2))"), natural=True)
        4*c0 + c1_0 + 2*c1_1
        >>> cute_to_sympy(parse("Sw<1,2,3> o 0 o 64:1"))
        BitXor(c0, 4*(Mod(floor(c0/32), 2)))
    """
    if not isinstance(layout, (Layout, ComposedLayout)):
        raise LayoutTypeError(
            f"Argument 'layout' must be a CuTe Layout or ComposedLayout, not "
            f"{type(layout).__name__} {shown(layout)}."
        )
    import sympy

    inner = layout.inner if isinstance(layout, ComposedLayout) else layout
    modes = list(inner) if isinstance(inner.shape, tuple) else [inner]
    mode_names = _names(len(modes), names, f"one per top-level mode of {inner}")
    total: Any = sympy.Integer(0)
    for name, mode in zip(mode_names, modes):
        leaves = _leaves(mode)
        if natural and isinstance(mode.shape, tuple):
            for k, (size, stride) in enumerate(leaves):
                if size > 1:
                    total += stride * coordinate(f"{name}_{k}")
        else:
            total += _flat_index(leaves, coordinate(name))
    if isinstance(layout, ComposedLayout):
        total += layout.offset
        if isinstance(layout.outer, Swizzle):
            return _swizzle(layout.outer, total)
        return _flat_index(_leaves(layout.outer), total)
    return total


# ---------------------------------------------------------------------- sympy -> CuTe


def _digit(atom: Any, symbol: Any) -> tuple[int, int | None] | None:
    """``(a, b)`` when ``atom`` is ``symbol``, ``floor(symbol / a)``, ``Mod(symbol, b)`` or
    ``Mod(floor(symbol / a), b)`` (``b`` None without Mod); else None."""
    import sympy

    modulus = None
    if isinstance(atom, sympy.Mod):
        value, m = atom.args
        if not (m.is_Integer and m > 0):
            return None
        modulus, atom = int(m), value
    if atom == symbol:
        return 1, modulus
    if isinstance(atom, sympy.floor):
        ratio, rest = atom.args[0].as_coeff_Mul()
        if rest == symbol and ratio.is_Rational and ratio.p == 1 and ratio.q > 0:
            return int(ratio.q), modulus
    return None


def _mode(symbol: Any, extent: int, fields: list[tuple[int, int | None, int]]) -> Layout:
    """The mode of one coordinate of extent ``extent`` from its fields ``(a, b, stride)``."""
    shape: list[int] = []
    stride: list[int] = []
    position = 1
    for divisor, modulus, coefficient in sorted(fields, key=lambda f: f[0]):
        if divisor < position or divisor % position:
            raise LayoutError(
                f"the fields of {symbol} overlap: a digit from floor({symbol}/{divisor}) "
                f"starts inside the digits before it (which reach {position}), so they are "
                "no mixed-radix digits of a CuTe mode."
            )
        if divisor > position:
            shape.append(divisor // position)
            stride.append(0)
        if extent % divisor:
            raise LayoutError(
                f"the extent {extent} of {symbol} is not a multiple of the divisor {divisor}."
            )
        size = extent // divisor if modulus is None else min(modulus, extent // divisor)
        shape.append(size)
        stride.append(coefficient)
        position = divisor * size
    if position < extent:
        if extent % position:
            raise LayoutError(
                f"the extent {extent} of {symbol} is not a multiple of its digits' span {position}."
            )
        shape.append(extent // position)
        stride.append(0)
    if len(shape) == 1:
        return Layout(shape[0], stride[0])
    return Layout(tuple(shape), tuple(stride))


def _coordinates(coords: Any) -> list[tuple[Any, int]]:
    items: Iterable[Any] = coords.items() if isinstance(coords, Mapping) else coords
    result = []
    for item in items:
        try:
            name, extent = item
        except (TypeError, ValueError):
            raise LayoutTypeError(
                f"Argument 'coords' must hold (name, extent) pairs, not {shown(item)}."
            ) from None
        if isinstance(extent, bool) or not isinstance(extent, int) or extent < 1:
            raise LayoutError(
                f"Argument 'coords': the extent of {name!s} must be an int >= 1, not "
                f"{shown(extent)}."
            )
        symbol = coordinate(name) if isinstance(name, str) else name
        result.append((symbol, extent))
    if not result:
        raise LayoutError("Argument 'coords' must name at least one coordinate.")
    return result


def _add_term(term: Any, fields: dict[Any, list[tuple[int, int | None, int]]]) -> None:
    """Add one term ``stride * digit`` of an expanded index function to its coordinate's
    ``(divisor, modulus, stride)`` fields (a zero constant adds nothing); raise
    :class:`~llverify.errors.LayoutError` naming a term of no such form."""
    coefficient, atom = term.as_coeff_Mul()
    if atom == 1:
        if coefficient:
            raise LayoutError(
                f"the expression has the constant term {coefficient}: an offset, which "
                "a CuTe Layout has none of (compose it, or subtract it first)."
            )
        return
    if not coefficient.is_Integer:
        raise LayoutError(
            f"the term {term} has the coefficient {coefficient}, not an integer stride."
        )
    digit = None
    for symbol in fields:
        digit = _digit(atom, symbol)
        if digit is not None:
            fields[symbol].append((digit[0], digit[1], int(coefficient)))
            break
    if digit is None:
        unknown = sorted(str(s) for s in atom.free_symbols - set(fields))
        reason = (
            f"it uses {unknown}, which 'coords' does not name"
            if unknown
            else "so the expression is no CuTe index function"
        )
        raise LayoutError(
            f"the term {term} is not an integer multiple of one coordinate's digit "
            f"(x, floor(x/a), Mod(x, b), Mod(floor(x/a), b)), {reason}."
        )


def sympy_to_cute(expr: Any, coords: Any) -> Layout:
    """The CuTe layout whose index function is ``expr`` on the coordinates ``coords``
    (``[(name or symbol, extent), ...]`` or a dict, in mode order): ``expr`` must be a sum
    of integer multiples of a coordinate's digits (``x``, ``floor(x/a)``, ``Mod(x, b)``,
    ``Mod(floor(x/a), b)``), as :func:`cute_to_sympy` writes.  Coordinate ``k`` becomes
    top-level mode ``k`` (a digit nobody uses gets stride 0; one coordinate with one digit
    gives an int-shaped layout).  Raises
    :class:`~llverify.errors.LayoutError` naming the term that is of no such form (an
    offset, a product of coordinates, an XOR: a swizzle is not read back).

    Examples:
        >>> import sympy
        >>> m, n = coordinate("m"), coordinate("n")
        >>> print(sympy_to_cute(m + 16 * n, [("m", 16), ("n", 8)]))
        (16, 8):(1, 16)
        >>> sympy_to_cute(m * n, [("m", 16), ("n", 8)])
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: the term m*n is not an integer multiple of one coordinate's digit (x, floor(x/a), Mod(x, b), Mod(floor(x/a), b)), so the expression is no CuTe index function.
    """  # noqa: E501
    import sympy

    pairs = _coordinates(coords)
    by_name = {str(symbol): symbol for symbol, _ in pairs}
    try:
        expr = sympy.sympify(expr, locals={**by_name, "BitXor": _bit_xor_class()})
    except (sympy.SympifyError, TypeError, SyntaxError) as error:
        raise LayoutTypeError(
            f"Argument 'expr' must be a sympy expression, not {shown(expr)} ({error})."
        ) from None
    # a symbol spelt like a coordinate (made without its assumptions) is that coordinate
    expr = expr.xreplace({s: by_name[s.name] for s in expr.free_symbols if s.name in by_name})
    fields: dict[Any, list[tuple[int, int | None, int]]] = {s: [] for s, _ in pairs}
    for term in sympy.Add.make_args(sympy.expand(expr)):
        _add_term(term, fields)
    modes = [_mode(symbol, extent, fields[symbol]) for symbol, extent in pairs]
    if len(modes) == 1 and isinstance(modes[0].shape, int):
        return modes[0]
    return Layout(tuple(m.shape for m in modes), tuple(m.stride for m in modes))
