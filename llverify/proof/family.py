"""Layout families: a layout written once as formulas of symbolic parameters.

A :class:`LayoutFamily` gives, for parameters in a bounded domain, the log2 sizes of its
in and out dims and its bases as formulas of the parameters and of the bit index ``i``
(basis ``i`` of an in dim is the image of ``in_dim = 2**i``).  Evaluated with exact ints it
builds the concrete layout of one parameter assignment (:meth:`LayoutFamily.instance`);
evaluated with Z3 it is the whole family at once, which is what parametric proofs use.

Example: Triton's SwizzledShared encoding on 2-D shapes, with ``lc = log2(#cols)``,
``lr = log2(#rows)``, ``lv = log2(vec)``, ``lp = log2(perPhase)``, ``lm = log2(maxPhase)``::

    col bit i (< lc):  (0, 1 << i)
    row bit i (>= lc): row = 1 << (i - lc);  (row, (vec * ((row // perPhase) % maxPhase)) % numCols)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from llverify.errors import DimensionError, LayoutError, shown
from llverify.layout import LinearLayout
from llverify.ops import IntOps
from llverify.proof.formula import Formula, FormulaError, Interval

_INT = IntOps()
#: The name of the bit-index variable in basis formulas.
BIT = "i"


def _formula(text: Any, where: str, condition: bool = False) -> Formula:
    if isinstance(text, Formula):
        if text.is_condition != condition:
            kind = "a condition" if condition else "a number"
            raise FormulaError(f"{where}: expected {kind}", text.text)
        return text
    try:
        return Formula(text, condition)
    except FormulaError as error:
        raise FormulaError(f"{where}: {error}") from None


@dataclass(frozen=True, eq=False)
class LayoutFamily:
    """A parametric LinearLayout.

    Args:
        name: a stable id, e.g. "swizzled_shared_2d".
        params: parameter name -> inclusive (low, high) range.
        in_dims / out_dims: dim name -> formula of the params giving log2 of its size.
        bases: in dim -> {out dim -> formula of the params and ``i``}: basis ``i``.
        constraint: optional condition on the params (formula text) defining valid members.

    Examples:
        >>> fam = LayoutFamily("strided", {"n": (1, 4), "s": (0, 2)}, {"x": "n"},
        ...                    {"o": "n + s"}, {"x": {"o": "1 << (i + s)"}})
        >>> fam.instance(n=2, s=1).bases
        [('x', [[2], [4]])]
    """

    name: str
    params: Mapping[str, tuple[int, int]]
    in_dims: Mapping[str, Any]
    out_dims: Mapping[str, Any]
    bases: Mapping[str, Mapping[str, Any]]
    constraint: Any = None

    def __post_init__(self) -> None:
        params = self._checked_params()
        object.__setattr__(self, "params", params)
        names = set(params)
        in_dims, out_dims = self._size_formulas(names)
        bases = self._basis_formulas(names, in_dims, out_dims)
        constraint = self._constraint_formula(names)
        object.__setattr__(self, "in_dims", in_dims)
        object.__setattr__(self, "out_dims", out_dims)
        object.__setattr__(self, "bases", bases)
        object.__setattr__(self, "constraint", constraint)
        self._check_bounds()

    def _checked_params(self) -> dict[str, tuple[int, int]]:
        """The parameter ranges, each an int range (low, high) with low <= high."""
        params = {}
        for key, bounds in dict(self.params).items():
            if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
                raise LayoutError(
                    f"family '{self.name}': parameter '{key}' needs an int range (low, high), "
                    f"not {shown(bounds)}."
                )
            low, high = bounds
            if (
                not isinstance(low, int)
                or not isinstance(high, int)
                or isinstance(low, bool)
                or isinstance(high, bool)
                or low > high
            ):
                raise LayoutError(
                    f"family '{self.name}': parameter '{key}' needs an int range (low, high) "
                    f"with low <= high, not {shown(bounds)}."
                )
            if key == BIT:
                raise LayoutError(
                    f"family '{self.name}': '{BIT}' is the bit index, not a parameter."
                )
            params[key] = (low, high)
        return params

    def _size_formulas(self, names: set[str]) -> tuple[dict[str, Formula], dict[str, Formula]]:
        """The in and out dims' log2 size formulas, over the parameters only."""
        in_dims = {
            d: _formula(t, f"family '{self.name}' in dim '{d}'") for d, t in self.in_dims.items()
        }
        out_dims = {
            d: _formula(t, f"family '{self.name}' out dim '{d}'") for d, t in self.out_dims.items()
        }
        for where, formula in [*in_dims.items(), *out_dims.items()]:
            if not formula.variables <= names:
                raise FormulaError(
                    f"family '{self.name}': size of '{where}' uses unknown names "
                    f"{sorted(formula.variables - names)}",
                    formula.text,
                )
        return in_dims, out_dims

    def _basis_formulas(
        self, names: set[str], in_dims: Mapping[str, Formula], out_dims: Mapping[str, Formula]
    ) -> dict[str, dict[str, Formula]]:
        """Per in dim, per out dim, the basis formula over the parameters and ``i``."""
        if set(self.bases) != set(in_dims):
            raise DimensionError(
                f"family '{self.name}': bases must be given for the in dims {list(in_dims)}, "
                f"not {list(self.bases)}."
            )
        bases: dict[str, dict[str, Formula]] = {}
        for d, per_out in self.bases.items():
            if set(per_out) != set(out_dims):
                raise DimensionError(
                    f"family '{self.name}': basis of '{d}' must give every out dim "
                    f"{list(out_dims)}, not {list(per_out)}."
                )
            bases[d] = {}
            for o, text in per_out.items():
                formula = _formula(text, f"family '{self.name}' basis {d} -> {o}")
                if not formula.variables <= names | {BIT}:
                    raise FormulaError(
                        f"family '{self.name}': basis {d} -> {o} uses unknown names "
                        f"{sorted(formula.variables - names - {BIT})}",
                        formula.text,
                    )
                bases[d][o] = formula
        return bases

    def _constraint_formula(self, names: set[str]) -> Formula | None:
        """The constraint as a condition over the parameters, if any."""
        if self.constraint is None:
            return None
        constraint = _formula(self.constraint, f"family '{self.name}' constraint", True)
        if not constraint.variables <= names:
            raise FormulaError(
                f"family '{self.name}': the constraint uses unknown names "
                f"{sorted(constraint.variables - names)}",
                constraint.text,
            )
        return constraint

    def _check_bounds(self) -> None:
        """No dim size may go negative; no basis may shift by a negative amount or divide
        by zero, over the parameter ranges."""
        ranges: dict[str, Interval] = dict(self.params)
        for formula in [*self.in_dims.values(), *self.out_dims.values()]:
            low, _ = formula.bounds(ranges)[id(formula.root)]
            if low < 0:
                raise FormulaError(
                    f"family '{self.name}': a dim size formula may go negative", formula.text
                )
        basis_ranges = self.bit_ranges()
        for d, per_out in self.bases.items():
            for o, formula in per_out.items():
                try:
                    formula.bounds(basis_ranges)  # rejects negative shifts, zero divisors
                except FormulaError as error:
                    raise FormulaError(f"family '{self.name}': basis {d} -> {o}: {error}") from None

    # ------------------------------------------------------------------ domain

    def max_log2(self, dims: str = "in") -> dict[str, int]:
        """Largest log2 size of each in (or out) dim over the parameter ranges."""
        formulas = self.in_dims if dims == "in" else self.out_dims
        ranges: dict[str, Interval] = dict(self.params)
        return {d: f.bounds(ranges)[id(f.root)][1] for d, f in formulas.items()}

    def bit_ranges(self) -> dict[str, Interval]:
        """Ranges of the params and of the bit index ``i`` (for basis formulas)."""
        ranges: dict[str, Interval] = dict(self.params)
        ranges[BIT] = (0, max([0, *self.max_log2("in").values()]))
        return ranges

    def is_member(self, **values: int) -> bool:
        """True when the values are in range and satisfy the constraint."""
        self._check_values(values)
        if self.constraint is None:
            return True
        return bool(self.constraint.evaluate(_INT, values))

    def members(self) -> Iterator[dict[str, int]]:
        """Every valid parameter assignment (the domain can be large: iterate lazily)."""
        names = list(self.params)
        for combo in itertools.product(*(range(lo, hi + 1) for lo, hi in self.params.values())):
            values = dict(zip(names, combo))
            if self.constraint is None or self.constraint.evaluate(_INT, values):
                yield values

    def domain_size(self) -> int:
        """Number of valid parameter assignments."""
        return sum(1 for _ in self.members())

    def _check_values(self, values: Mapping[str, int]) -> None:
        if set(values) != set(self.params):
            raise DimensionError(
                f"family '{self.name}' needs values for {sorted(self.params)}, "
                f"not {sorted(values)}."
            )
        for key, value in values.items():
            low, high = self.params[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise LayoutError(
                    f"family '{self.name}': parameter '{key}' must be in [{low}, {high}], "
                    f"not {shown(value)}."
                )

    # ------------------------------------------------------------------ instances

    def instance(self, **values: int) -> LinearLayout:
        """The concrete layout of one parameter assignment (bases evaluated exactly)."""
        if not self.is_member(**values):
            assert self.constraint is not None
            raise LayoutError(
                f"family '{self.name}': {values} violates the constraint {self.constraint.text}."
            )
        out_names = list(self.out_dims)
        out_sizes = [1 << self.out_dims[o].evaluate(_INT, values) for o in out_names]
        bases = []
        for d, size_formula in self.in_dims.items():
            count = size_formula.evaluate(_INT, values)
            vectors = []
            for i in range(count):
                env = {**values, BIT: i}
                vectors.append([self.bases[d][o].evaluate(_INT, env) for o in out_names])
            bases.append((d, vectors))
        return LinearLayout(bases, out_names, out_sizes, require_surjective=False)


def swizzled_shared_2d(max_elements_log2: int = 20, max_param_log2: int = 7) -> LayoutFamily:
    """Triton's SwizzledShared(vec, perPhase, maxPhase, order=[1, 0]) on R x C shapes.

    Transcribed from Triton's ``swizzledSharedToLinearLayout``: column bits first, then row
    bits whose column is ``(vec * ((row / perPhase) % maxPhase)) % numCols``.  Parameters
    are log2 values: ``lc``/``lr`` of the column/row counts (``lc + lr <=
    max_elements_log2``), ``lv``/``lp``/``lm`` of vec/perPhase/maxPhase.

    Examples:
        >>> fam = swizzled_shared_2d()
        >>> fam.instance(lc=2, lr=2, lv=0, lp=0, lm=2).bases
        [('offset', [[0, 1], [0, 2], [1, 1], [2, 2]])]
    """
    row = f"(1 << max({BIT} - lc, 0))"
    swizzled_col = f"((1 << lv) * (({row} // (1 << lp)) % (1 << lm))) % (1 << lc)"
    return LayoutFamily(
        name="swizzled_shared_2d",
        params={
            "lc": (0, max_elements_log2),
            "lr": (0, max_elements_log2),
            "lv": (0, max_param_log2),
            "lp": (0, max_param_log2),
            "lm": (0, max_param_log2),
        },
        constraint=f"lc + lr <= {max_elements_log2}",
        in_dims={"offset": "lc + lr"},
        out_dims={"dim0": "lr", "dim1": "lc"},
        bases={
            "offset": {
                "dim0": f"0 if {BIT} < lc else {row}",
                "dim1": f"(1 << {BIT}) if {BIT} < lc else {swizzled_col}",
            }
        },
    )


#: Closed form of SwizzledShared (order [1, 0]), REFERENCES.md section 3, with the wrap.
SWIZZLED_REFERENCE = {
    "dim0": "offset >> lc",
    "dim1": "(offset & ((1 << lc) - 1)) ^ "
    "(((((offset >> lc) >> lp) & ((1 << lm) - 1)) << lv) & ((1 << lc) - 1))",
}
#: The same closed form without the final ``& (C - 1)``: wrong when vec * maxPhase > C.
SWIZZLED_REFERENCE_WITHOUT_WRAP = {
    "dim0": "offset >> lc",
    "dim1": "(offset & ((1 << lc) - 1)) ^ ((((offset >> lc) >> lp) & ((1 << lm) - 1)) << lv)",
}
