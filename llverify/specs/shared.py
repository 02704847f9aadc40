"""Closed forms of Triton's swizzled and AMD rotating shared-memory encodings, and the
obligations tying llverify's converters (llverify/encodings/shared.py) to them.

Sources (primary): Triton's include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.td,

* ``SwizzledSharedEncodingAttr`` description: "elements of row r are xor'ed with r (or more
  properly, in[r][c] -> out[r][c^r])"; "perPhase=2 means that pairs of 2 rows get the same
  swizzling"; "maxPhase=m has the effect of limiting the maximum value of the xor to m-1";
  "When vec=2, elements are swizzled in pairs of 2 ... the element at (r,c) has value
  ((c / 2) ^ r) * 2 + (c % 2)"; ``order`` lists "the fastest-changing axis first" (the
  swizzle acts on the two fastest dims: columns = order[0], rows = order[1]);
* ``AMDRotatingSharedEncodingAttr`` description: "phase = (inRowId / perPhase) % maxPhase,
  blockNo = (inRowId / (perPhase * maxPhase)) % maxPhase, combinedPhase = phase ^ blockNo,
  outColId = inColId ^ combinedPhase" ("Swizzling pattern affects only 2 fastest
  dimensions of a tensor").

A shared layout maps an element offset ``o`` (row-major in ``order``: columns fastest) to
the tensor coordinates.  With ``C`` columns, ``R`` rows, ``row = (o >> log2 C) & (R - 1)``
and power-of-2 parameters, the XOR being an involution gives (REFERENCES.md section 3)::

    col = (o & (C - 1)) XOR ((phase(row) << log2 vec) & (C - 1))
    swizzled: phase(row) = (row >> log2 perPhase) & (maxPhase - 1)
    rotating: phase(row) = ((row >> log2 perPhase) & (maxPhase - 1))
                           XOR ((row >> log2 (perPhase * maxPhase)) & (maxPhase - 1))

The final ``& (C - 1)`` is the wrap of Triton's converter (``(vec * phase) % numCols``):
when ``vec * maxPhase > C`` the XOR would otherwise leave the row; the docs' examples all
have ``vec * maxPhase <= C`` and do not show it.  The other dims (``order[2:]``) are
identities on the next offset bits, in order; CTAs of a CGA add ``cta_size[d] * b`` along
each dim their block bit ``b`` splits.

Declarative: formula text and data only.  tests/test_encodings_shared.py proves every
obligation with ``llverify.prove_equal``, refutes the negative controls (each shaped like a
real mistake: the unwrapped phase, no ``% maxPhase``, the rotating layout read as the
swizzled one, rows and columns swapped), and proves the families with
``llverify.prove_family_equal``.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from llverify.encodings.shared import AMDRotatingSharedLayout, SwizzledSharedLayout
from llverify.layout import LinearLayout
from llverify.proof.family import (
    BIT,
    SWIZZLED_REFERENCE,
    SWIZZLED_REFERENCE_WITHOUT_WRAP,
    LayoutFamily,
    swizzled_shared_2d,
)
from llverify.proof.obligation import Call
from llverify.proof.obligation import Obligation as LibraryObligation
from llverify.proof.verdict import Status
from llverify.specs import claims

__all__ = [
    "LIBRARY",
    "NEGATIVE_CONTROLS",
    "ROTATING_OBLIGATIONS",
    "ROTATING_REFERENCE",
    "SWIZZLED_OBLIGATIONS",
    "SWIZZLED_REFERENCE",
    "SWIZZLED_REFERENCE_ORDER01",
    "SharedObligation",
    "layout",
    "rotating_shared_2d",
    "shared_reference",
    "swizzled_shared_2d",
    "swizzled_shared_2d_order01",
]


def _log2(value: int) -> int:
    return value.bit_length() - 1


@dataclass(frozen=True)
class SharedObligation:
    """``kind(vec, per_phase, max_phase, order, cga_layout).to_linear_layout(shape)`` equals
    ``shared_reference(...)`` of the same parameters (``kind``: "swizzled" or "rotating")."""

    kind: str
    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]
    shape: tuple[int, ...]
    cga_layout: tuple[tuple[int, ...], ...] = field(default_factory=tuple)

    @property
    def name(self) -> str:
        cga = f"/cga{[list(b) for b in self.cga_layout]}" if self.cga_layout else ""
        return (
            f"{self.kind}/v{self.vec}p{self.per_phase}m{self.max_phase}/"
            f"order{list(self.order)}/{'x'.join(map(str, self.shape))}{cga}"
        )

    def reference(self, wrap: bool = True, phase_mod: bool = True) -> dict[str, str]:
        return shared_reference(
            self.kind,
            self.vec,
            self.per_phase,
            self.max_phase,
            self.order,
            self.shape,
            self.cga_layout,
            wrap=wrap,
            phase_mod=phase_mod,
        )


def shared_reference(
    kind: str,
    vec: int,
    per_phase: int,
    max_phase: int,
    order: Sequence[int],
    shape: Sequence[int],
    cga_layout: Sequence[Sequence[int]] = (),
    *,
    wrap: bool = True,
    phase_mod: bool = True,
) -> dict[str, str]:
    """The closed form (module docstring) as formulas over ``offset`` and ``block``, for
    power-of-2 parameters and a CGA whose block bases fit in ``shape``.

    ``wrap=False`` drops the final ``& (C - 1)``, ``phase_mod=False`` the ``& (maxPhase -
    1)`` of the phase: both wrong in general (negative controls).

    Examples:
        >>> shared_reference("swizzled", 2, 1, 4, [1, 0], [4, 8])["dim1"]
        '(offset & 7) ^ ((((((offset >> 3) & 3) >> 0) & 3) << 1) & 7)'
    """
    rank = len(shape)
    per_cta = _per_cta(shape, cga_layout)
    if rank == 1:
        coordinate = {0: f"(offset & {per_cta[0] - 1})"}
    else:
        phase = functools.partial(_phase, kind, per_phase, max_phase, phase_mod=phase_mod)
        coordinate = _swizzled_coordinates(phase, vec, order, per_cta, wrap)
    for bit, basis in enumerate(cga_layout):
        for d, value in enumerate(basis):
            if value:
                coordinate[d] += f" + (((block >> {bit}) & 1) * {value * per_cta[d]})"
    return {f"dim{d}": coordinate[d] for d in range(rank)}


def _per_cta(shape: Sequence[int], cga_layout: Sequence[Sequence[int]]) -> list[int]:
    """One CTA's share of ``shape``: halved along a dim for each block basis that moves
    along it."""
    split = [1] * len(shape)
    for basis in cga_layout:
        for d, value in enumerate(basis):
            if value:
                split[d] *= 2
    return [s // min(s, k) for s, k in zip(shape, split)]


def _phase(kind: str, per_phase: int, max_phase: int, row: str, *, phase_mod: bool = True) -> str:
    """The phase of row ``row`` (a formula) for the ``kind`` of encoding."""
    if kind == "swizzled":
        phase = f"(({row} >> {_log2(per_phase)})"
        return phase + (f" & {max_phase - 1})" if phase_mod else ")")
    if kind == "rotating":
        shift = _log2(per_phase) + _log2(max_phase)
        return (
            f"((({row} >> {_log2(per_phase)}) & {max_phase - 1}) ^ "
            f"(({row} >> {shift}) & {max_phase - 1}))"
        )
    raise ValueError(f"kind must be 'swizzled' or 'rotating', not {kind!r}")


def _swizzled_coordinates(
    phase: Callable[[str], str],
    vec: int,
    order: Sequence[int],
    per_cta: Sequence[int],
    wrap: bool,
) -> dict[int, str]:
    """Rank >= 2, in one CTA: the column (``order[0]``) XORs ``phase(row) << log2(vec)``
    (wrapped to the columns with ``wrap``), the row is ``order[1]``, the other dims are
    identities in ``order``."""
    coordinate = {d: "0" for d in range(len(per_cta))}
    col, row = order[0], order[1]
    lc, lr = _log2(per_cta[col]), _log2(per_cta[row])
    cols, rows = per_cta[col] - 1, per_cta[row] - 1
    row_value = f"((offset >> {lc}) & {rows})"
    swizzle = f"({phase(row_value)} << {_log2(vec)})"
    if wrap:
        swizzle = f"({swizzle} & {cols})"
    coordinate[col] = f"(offset & {cols}) ^ {swizzle}"
    coordinate[row] = row_value
    position = lc + lr
    for d in order[2:]:
        coordinate[d] = f"((offset >> {position}) & {per_cta[d] - 1})"
        position += _log2(per_cta[d])
    return coordinate


_Dims = tuple[int, ...]
_Params = tuple[int, int, int]  # vec, per_phase, max_phase

#: 2-D: both orders, 7 shapes, 12 parameter sets (incl. vec * maxPhase > C).
_PARAMS_2D: list[_Params] = [
    (1, 1, 1),
    (1, 1, 4),
    (1, 2, 4),
    (2, 1, 4),
    (2, 2, 4),
    (4, 2, 4),
    (8, 1, 8),
    (4, 1, 16),
    (8, 4, 2),
    (16, 1, 8),
    (1, 8, 8),
    (8, 2, 8),
]
_SHAPES_2D: list[_Dims] = [(8, 8), (16, 64), (64, 16), (32, 128), (128, 32), (2, 256), (256, 4)]
#: Rank > 2: the swizzle on the two fastest dims, the others identities in order.
_HIGHER_RANK: list[tuple[_Dims, _Dims]] = [
    ((2, 1, 0), (4, 32, 64)),
    ((0, 2, 1), (16, 4, 32)),
    ((1, 2, 0), (8, 64, 4)),
    ((3, 2, 1, 0), (2, 4, 32, 32)),
    ((1, 3, 0, 2), (4, 16, 2, 32)),
    ((0, 1, 2, 3), (64, 8, 2, 2)),
    ((2, 0, 3, 1), (8, 4, 32, 2)),
]
_PARAMS_HIGHER_RANK: list[_Params] = [(2, 2, 4), (8, 1, 8), (4, 1, 16)]
#: Multi-CTA (swizzled: the swizzle is on the CTA's share; blocks tile the rest).
_CGA: list[tuple[_Dims, _Dims, tuple[_Dims, ...]]] = [
    ((1, 0), (64, 64), ((1, 0),)),
    ((1, 0), (64, 64), ((0, 1), (1, 0))),
    ((0, 1), (32, 128), ((0, 1), (0, 2))),
    ((1, 0), (128, 16), ((0, 0), (2, 0), (1, 0))),
    ((2, 1, 0), (4, 64, 64), ((1, 0, 0), (0, 0, 1))),
]
_PARAMS_CGA: list[_Params] = [(8, 1, 8), (2, 2, 4), (4, 1, 16)]


def _obligations() -> tuple[tuple[SharedObligation, ...], tuple[SharedObligation, ...]]:
    """The swizzled and the rotating instances: 2-D, rank > 2, rank 1 (the identity) for
    both; multi-CTA for swizzled only."""
    orders_2d: list[_Dims] = [(1, 0), (0, 1)]
    higher_rank = itertools.product(_HIGHER_RANK, _PARAMS_HIGHER_RANK)
    both = [
        *itertools.product(orders_2d, _SHAPES_2D, _PARAMS_2D),
        *((order, shape, p) for (order, shape), p in higher_rank),
        ((0,), (1024,), (8, 1, 8)),
    ]
    swizzled = [SharedObligation("swizzled", *p, order, shape) for order, shape, p in both]
    rotating = [SharedObligation("rotating", *p, order, shape) for order, shape, p in both]
    swizzled += [
        SharedObligation("swizzled", *p, order, shape, blocks)
        for (order, shape, blocks), p in itertools.product(_CGA, _PARAMS_CGA)
    ]
    return tuple(swizzled), tuple(rotating)


#: Swizzled instances (both 2-D orders, 7 shapes, 12 parameter sets incl. vec * maxPhase
#: > C; rank 1, 3, 4; CGA) that must equal :func:`shared_reference`.
SWIZZLED_OBLIGATIONS: tuple[SharedObligation, ...]
#: The same instances of the AMD rotating encoding (no CGA: see the comment below).
ROTATING_OBLIGATIONS: tuple[SharedObligation, ...]
SWIZZLED_OBLIGATIONS, ROTATING_OBLIGATIONS = _obligations()

# Rotating obligations have no CGA: Triton's sharedToLinearLayoutAMDRotating builds the
# swizzle on the whole shape (not the CTA's share, unlike the swizzled converter) and lets
# the CGA zero what lies beyond, so with a CGA the closed form above does not hold.


def _mistakes() -> tuple[tuple[str, SharedObligation, dict[str, str]], ...]:
    """(description, instance, wrong closed form): each must be refuted."""
    wide = SharedObligation("swizzled", 8, 1, 8, (1, 0), (64, 32))  # vec * maxPhase = 64 > 32
    tall = SharedObligation("swizzled", 2, 1, 4, (1, 0), (32, 16))  # rows beyond maxPhase
    rotating = SharedObligation("rotating", 4, 2, 4, (1, 0), (64, 64))
    order01 = SharedObligation("swizzled", 2, 1, 4, (0, 1), (16, 8))
    transposed = SharedObligation("swizzled", 2, 1, 4, (1, 0), (8, 16))
    return (
        ("the phase not wrapped to the row (vec * maxPhase > C)", wide, wide.reference(False)),
        ("the phase without % maxPhase", tall, tall.reference(phase_mod=False)),
        ("the rotating layout read as the swizzled one", rotating, rotating_as_swizzled()),
        ("order [0, 1] read as [1, 0] (rows and columns swapped)", order01, transposed_ref()),
        ("order [1, 0] with vec applied to rows", transposed, vec_on_rows()),
    )


def rotating_as_swizzled() -> dict[str, str]:
    """Negative control: the swizzled closed form for the rotating instance of _mistakes."""
    return shared_reference("swizzled", 4, 2, 4, (1, 0), (64, 64))


def transposed_ref() -> dict[str, str]:
    """Negative control: the order [1, 0] form on the order [0, 1] instance (16 x 8)."""
    return shared_reference("swizzled", 2, 1, 4, (1, 0), (16, 8))


def vec_on_rows() -> dict[str, str]:
    """Negative control: 8 x 16, vec 2: the vector groups taken along the rows."""
    return {
        "dim0": "(offset >> 4) & 7",
        "dim1": "(offset & 15) ^ (((offset >> 4) >> 1) & 3)",
    }


#: (description, obligation instance, wrong closed form), each to be refuted.
NEGATIVE_CONTROLS = _mistakes()


# ---------------------------------------------------------------------- families


def swizzled_shared_2d_order01(
    max_elements_log2: int = 20, max_param_log2: int = 7
) -> LayoutFamily:
    """Triton's SwizzledShared(vec, perPhase, maxPhase, order=[0, 1]) on 2-D shapes: dim0
    holds the columns (``lc``), dim1 the rows (``lr``); otherwise as
    :func:`llverify.proof.family.swizzled_shared_2d` (transcribed from
    ``swizzledSharedToLinearLayout``).

    Examples:
        >>> swizzled_shared_2d_order01().instance(lc=2, lr=2, lv=0, lp=0, lm=2).bases
        [('offset', [[1, 0], [2, 0], [1, 1], [2, 2]])]
    """
    row = f"(1 << max({BIT} - lc, 0))"
    swizzled_col = f"((1 << lv) * (({row} // (1 << lp)) % (1 << lm))) % (1 << lc)"
    return LayoutFamily(
        name="swizzled_shared_2d_order01",
        params=_family_params(max_elements_log2, max_param_log2),
        constraint=f"lc + lr <= {max_elements_log2}",
        in_dims={"offset": "lc + lr"},
        out_dims={"dim0": "lc", "dim1": "lr"},
        bases={
            "offset": {
                "dim0": f"(1 << {BIT}) if {BIT} < lc else {swizzled_col}",
                "dim1": f"0 if {BIT} < lc else {row}",
            }
        },
    )


def rotating_shared_2d(max_elements_log2: int = 20, max_param_log2: int = 7) -> LayoutFamily:
    """Triton's AMDRotatingShared(vec, perPhase, maxPhase, order=[1, 0]) on R x C shapes:
    row bit ``row`` maps to ``(row, (vec * (phase ^ blockNo)) % numCols)`` with ``phase =
    (row / perPhase) % maxPhase`` and ``blockNo = row / maxPhase / perPhase % maxPhase``
    (transcribed from ``sharedToLinearLayoutAMDRotating``).

    Examples:
        >>> rotating_shared_2d().instance(lc=4, lr=3, lv=1, lp=1, lm=1).bases[0][1][4:]
        [[1, 0], [2, 2], [4, 2]]
    """
    row = f"(1 << max({BIT} - lc, 0))"
    phase = f"(({row} // (1 << lp)) % (1 << lm))"
    block = f"(({row} // (1 << lm) // (1 << lp)) % (1 << lm))"
    swizzled_col = f"((1 << lv) * ({phase} ^ {block})) % (1 << lc)"
    return LayoutFamily(
        name="rotating_shared_2d",
        params=_family_params(max_elements_log2, max_param_log2),
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


def _family_params(max_elements_log2: int, max_param_log2: int) -> dict[str, tuple[int, int]]:
    return {
        "lc": (0, max_elements_log2),
        "lr": (0, max_elements_log2),
        "lv": (0, max_param_log2),
        "lp": (0, max_param_log2),
        "lm": (0, max_param_log2),
    }


_COLS = "((1 << lc) - 1)"
_ROW = "(offset >> lc)"

#: Closed form of :func:`swizzled_shared_2d_order01`: the order [1, 0] form
#: (``llverify.proof.family.SWIZZLED_REFERENCE``) with dim0 and dim1 exchanged.
SWIZZLED_REFERENCE_ORDER01 = {
    "dim0": f"(offset & {_COLS}) ^ (((({_ROW} >> lp) & ((1 << lm) - 1)) << lv) & {_COLS})",
    "dim1": _ROW,
}

#: Closed form of :func:`rotating_shared_2d` (the module docstring's rotating phase).
ROTATING_REFERENCE = {
    "dim0": _ROW,
    "dim1": f"(offset & {_COLS}) ^ ((((({_ROW} >> lp) & ((1 << lm) - 1)) ^ "
    f"(({_ROW} >> (lp + lm)) & ((1 << lm) - 1))) << lv) & {_COLS})",
}

#: Negative control for the rotating family: its form without the block-number XOR (the
#: plain swizzled form), refuted where the rows outnumber perPhase * maxPhase.
ROTATING_REFERENCE_WITHOUT_BLOCK = SWIZZLED_REFERENCE


# ---------------------------------------------------------------------- the library

_SOURCE = "specs/shared.py"


def layout(ob: SharedObligation) -> LinearLayout:
    """Triton's converter on ``ob``: the swizzled or AMD rotating encoding's layout."""
    cls = SwizzledSharedLayout if ob.kind == "swizzled" else AMDRotatingSharedLayout
    cga = [list(b) for b in ob.cga_layout]
    encoding = cls(ob.vec, ob.per_phase, ob.max_phase, list(ob.order), cga)
    return encoding.to_linear_layout(list(ob.shape))


def _family(
    description: str,
    build: Callable[[], LayoutFamily],
    reference: str,
    formulas: dict[str, str],
    expect: Status = Status.PROVED,
) -> LibraryObligation:
    scope = "every power-of-2 vec/perPhase/maxPhase <= 128 on every R x C <= 2**20"
    head = f"shared: {description} family, {scope}"
    name = f"{head}, == {reference}"
    if expect == Status.REFUTED:
        name = f"{head}, vs {reference} (negative control)"
    return claims.family(name, _SOURCE, build, formulas, expect=expect)


def _library() -> tuple[LibraryObligation, ...]:
    result = [
        claims.equivalence(
            f"shared: {ob.name} == closed form", _SOURCE, Call(layout, ob), ob.reference()
        )
        for ob in (*SWIZZLED_OBLIGATIONS, *ROTATING_OBLIGATIONS)
    ]
    result += [
        claims.equivalence(
            f"shared: {ob.name} vs {description} (negative control)",
            _SOURCE,
            Call(layout, ob),
            (ob.reference(), wrong),  # a control only means something where the right holds
            expect=Status.REFUTED,
            decide=claims.control,
        )
        for description, ob, wrong in NEGATIVE_CONTROLS
    ]
    refuted = Status.REFUTED
    result += [
        _family("swizzled [1, 0]", swizzled_shared_2d, "SWIZZLED_REFERENCE", SWIZZLED_REFERENCE),
        _family(
            "swizzled [0, 1]",
            swizzled_shared_2d_order01,
            "SWIZZLED_REFERENCE_ORDER01",
            SWIZZLED_REFERENCE_ORDER01,
        ),
        _family(
            "AMD rotating [1, 0]", rotating_shared_2d, "ROTATING_REFERENCE", ROTATING_REFERENCE
        ),
        _family(
            "swizzled [1, 0]",
            swizzled_shared_2d,
            "SWIZZLED_REFERENCE_WITHOUT_WRAP",
            SWIZZLED_REFERENCE_WITHOUT_WRAP,
            refuted,
        ),
        _family(
            "AMD rotating [1, 0]",
            rotating_shared_2d,
            "ROTATING_REFERENCE_WITHOUT_BLOCK",
            ROTATING_REFERENCE_WITHOUT_BLOCK,
            refuted,
        ),
    ]
    return tuple(result)


#: The module's obligations in the built-in library: the swizzled and rotating instances,
#: the negative controls, then the families and their controls.
LIBRARY = _library()
