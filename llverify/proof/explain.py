"""explain: a layout's closed form, each output as a formula of the inputs.

Input bits that land on consecutive output bits are grouped into bit fields, so a blocked
or MMA layout reads like the hardware documentation::

    dim0 = ((lane >> 2) & 7) ^ (((register >> 1) & 1) << 3) ^ ((warp & 1) << 4)

By default the result is a :class:`~llverify.proof.formula.Formula` per out dim: it can be
evaluated by any backend and proved equal to the layout (``prove_equal(layout,
explain(layout))``).  ``form="sympy"`` gives sympy expressions instead (fields as
``floor``/``Mod``, added where their bits are disjoint, else combined with
:func:`llverify.cute.symbolic.bit_xor`), and ``form="latex"`` their LaTeX, for docs and
pictures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, overload

from llverify.errors import LayoutError, shown
from llverify.layout import LinearLayout, _require_layout
from llverify.proof.formula import Formula

#: The forms explain() writes.
FORMS = ("formula", "sympy", "latex")


@dataclass(frozen=True)
class _Term:
    """One term of an out dim: ``name``'s bits ``low .. low + length - 1``, moved to start
    at bit ``shift`` (a field), or, for ``times`` > 0, the one bit ``low`` times ``times``."""

    name: str
    low: int
    length: int
    shift: int
    dim_bits: int
    times: int = 0

    def text(self) -> str:
        if self.times:
            return f"({_field(self.name, self.low, 1, self.dim_bits, 0)} * {self.times})"
        return _field(self.name, self.low, self.length, self.dim_bits, self.shift)

    def output_bits(self) -> int:
        """The output bits the term can set."""
        if self.times:
            return self.times
        return ((1 << self.length) - 1) << self.shift

    def sympy(self) -> Any:
        from llverify.cute.symbolic import bit_field, coordinate

        x = coordinate(self.name)
        if self.times:
            return self.times * bit_field(x, self.low, 1, 0, self.dim_bits)
        return bit_field(x, self.low, self.length, self.shift, self.dim_bits)


def _field(name: str, low: int, length: int, dim_bits: int, shift: int) -> str:
    text = name if low == 0 else f"({name} >> {low})"
    if low + length < dim_bits:
        text = f"({text} & {(1 << length) - 1})"
    if shift:
        text = f"({text} << {shift})"
    return text


def _terms(layout: LinearLayout) -> dict[str, list[_Term]]:
    """Per out dim, its terms (XORed together)."""
    sizes = dict(layout.in_dims)
    result = {}
    for name, offset, log2 in zip(layout._outs, layout._out_offsets, layout._out_log2):
        mask = (1 << log2) - 1
        terms: list[_Term] = []
        for in_name, cols in zip(layout._ins, layout._cols):
            dim_bits = sizes[in_name].bit_length() - 1
            run: tuple[int, int, int] | None = None  # (first input bit, output bit, length)
            for bit, column in enumerate(cols):
                coordinate = (column >> offset) & mask
                one_hot = coordinate and not coordinate & (coordinate - 1)
                target = coordinate.bit_length() - 1 if one_hot else -1
                if (
                    run is not None
                    and one_hot
                    and target == run[1] + run[2]
                    and bit == run[0] + run[2]
                ):
                    run = (run[0], run[1], run[2] + 1)
                    continue
                if run is not None:
                    terms.append(_Term(in_name, run[0], run[2], run[1], dim_bits))
                    run = None
                if one_hot:
                    run = (bit, target, 1)
                elif coordinate:
                    terms.append(_Term(in_name, bit, 1, 0, dim_bits, coordinate))
            if run is not None:
                terms.append(_Term(in_name, run[0], run[2], run[1], dim_bits))
        result[name] = terms
    return result


def _sympy(terms: list[_Term]) -> Any:
    """The terms' XOR as a sympy expression: a sum where no two terms share an output bit."""
    import sympy

    from llverify.cute.symbolic import bit_xor

    seen = 0
    disjoint = True
    for term in terms:
        disjoint = disjoint and not term.output_bits() & seen
        seen |= term.output_bits()
    parts = [term.sympy() for term in terms]
    if disjoint:
        return sympy.Add(*parts)
    return bit_xor(*parts)


@overload
def explain(layout: LinearLayout, form: Literal["formula"] = "formula") -> dict[str, Formula]: ...
@overload
def explain(layout: LinearLayout, form: Literal["latex"]) -> dict[str, str]: ...
@overload
def explain(layout: LinearLayout, form: str) -> dict[str, Any]: ...


def explain(layout: LinearLayout, form: str = "formula") -> dict[str, Any]:
    """Each out dim of ``layout`` as a closed form of its in dims (XOR of bit fields).

    Args:
        layout: the layout.
        form: ``"formula"`` (a :class:`~llverify.proof.formula.Formula`, provable with
            :func:`llverify.prove_equal`), ``"sympy"`` (a sympy expression of the in dims,
            non-negative integer symbols) or ``"latex"`` (the sympy form's LaTeX).

    Examples:
        >>> ll = LinearLayout.from_bases(
        ...     [("register", [[0, 1], [0, 2]]), ("lane", [[0, 4], [1, 0], [2, 0]])],
        ...     ["dim0", "dim1"])
        >>> {k: str(v) for k, v in explain(ll).items()}
        {'dim0': '(lane >> 1)', 'dim1': 'register ^ ((lane & 1) << 2)'}
        >>> explain(ll, "sympy")
        {'dim0': floor(lane/2), 'dim1': register + 4*(Mod(lane, 2))}
        >>> explain(ll, "latex")["dim0"]
        '\\\\left\\\\lfloor{\\\\frac{lane}{2}}\\\\right\\\\rfloor'
    """
    _require_layout(layout, "layout")
    if form not in FORMS:
        raise LayoutError(f"Argument 'form' must be one of {list(FORMS)}, not {shown(form)}.")
    terms = _terms(layout)
    if form == "formula":
        return {
            name: Formula(" ^ ".join(t.text() for t in ts) if ts else "0")
            for name, ts in terms.items()
        }
    from llverify.cute.symbolic import latex

    expressions = {name: _sympy(ts) for name, ts in terms.items()}
    if form == "latex":
        return {name: latex(expr) for name, expr in expressions.items()}
    return expressions
