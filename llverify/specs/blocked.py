"""Closed forms of Triton's blocked encoding, and the obligations tying the converter to them.

Source: the ``BlockedEncodingAttr`` description in Triton's
include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.td ("each warp owns a contiguous
portion of the target tensor ... characterized by three tuples -- thread tile size, warp
tile size, and block tile size"; ``order`` lists "the fastest-changing axis first"; a
tensor larger than the CTA tile repeats it, with the examples' 16x16 layout on a 32x32
tensor giving each thread the same pattern again in the next 16 rows/columns; a smaller
tensor is covered by several threads, i.e. broadcast), and the CGA layout's block bases
(``CGALayout``, one basis per block bit, each a unit vector or zero) for multi-CTA tensors.

Per tensor dim ``d`` (sizes ``spt[d]``, ``tpw[d]``, ``wpc[d]``; the CTA tile
``T[d] = spt[d] * tpw[d] * wpc[d]``; ``S[d]`` the shape; ``C[d]`` the CTAs along d; and
``cta[d] = max(1, S[d] / C[d])`` the elements of one CTA)::

    coordinate d = ((s + spt[d] * (l + tpw[d] * (w + wpc[d] * rep))) % cta[d]) + cta[d] * b

where ``s``, ``l``, ``w`` are the bit fields of register, lane and warp that belong to d
(fields are laid out in ``order``, fastest dim lowest; a thread keeps only
``min(spt[d], cta[d])`` registers along d: Triton 3.9 drops the register bits that would
fall outside the CTA's share, while lanes and warps there broadcast), ``rep`` is the field
of the extra register bits above all ``s`` fields when ``cta[d] > T[d]`` (the tile
repeats; again one field per dim, in ``order``), the ``% cta[d]`` is the wrap (broadcast)
when ``cta[d] < T[d]``, and ``b`` is the CTA's position along d from the block bits
(block bases whose value does not fit in ``S[d]`` broadcast).

This module is declarative: :func:`blocked_reference` only writes formula text, the
obligations are data; tests/test_encodings_blocked.py proves them with
``llverify.prove_equal`` / ``prove_family_equal``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from llverify.encodings.blocked import BlockedLayout
from llverify.layout import LinearLayout
from llverify.proof.family import BIT, LayoutFamily
from llverify.proof.obligation import Call
from llverify.proof.obligation import Obligation as LibraryObligation
from llverify.proof.verdict import Status
from llverify.specs import claims


def _log2(value: int) -> int:
    return value.bit_length() - 1


def _offsets(sizes: Sequence[int], order: Sequence[int]) -> dict[int, int]:
    """Bit offset of each dim's field when the fields are packed in ``order``."""
    offsets, position = {}, 0
    for d in order:
        offsets[d] = position
        position += _log2(sizes[d])
    return offsets


def _field(name: str, offset: int, size: int) -> str:
    if size == 1:
        return "0"
    shifted = f"({name} >> {offset})" if offset else name
    return f"({shifted} & {size - 1})"


def blocked_reference(
    size_per_thread: Sequence[int],
    threads_per_warp: Sequence[int],
    warps_per_cta: Sequence[int],
    order: Sequence[int],
    shape: Sequence[int],
    cga_layout: Sequence[Sequence[int]] = (),
) -> dict[str, str]:
    """``{dim_d: formula over register, lane, warp, block}`` for a blocked layout on
    ``shape`` (the closed form of the module docstring).

    Examples:
        >>> blocked_reference([1, 4], [8, 4], [2, 1], [1, 0], [16, 16])["dim1"]
        '(register & 3) + 4 * (lane & 3)'
        >>> blocked_reference([4], [4], [4], [0], [8])["dim0"]
        '((register & 3) + 4 * ((lane & 3) + 4 * (warp & 3))) % 8'
        >>> blocked_reference([1], [4], [4], [0], [128])["dim0"]
        '(lane & 3) + 4 * ((warp & 3) + 4 * (register & 7))'
    """
    geometry = _Geometry.of(
        size_per_thread, threads_per_warp, warps_per_cta, order, shape, cga_layout
    )
    return {f"dim{d}": geometry.coordinate(d) for d in range(len(order))}


def _nested(levels: Sequence[tuple[str, int]]) -> str:
    """``t0 + n0 * (t1 + n1 * (...))`` of ``(t, n)`` levels, innermost first; a level of
    size 1 is left out ("0" if every level is)."""
    inner = ""
    for term, size in reversed(levels):
        if size > 1:
            if inner and " + " in inner:
                inner = f"({inner})"
            inner = term if not inner else f"{term} + {size} * {inner}"
    return inner or "0"


@dataclass(frozen=True)
class _Geometry:
    """A blocked layout on a shape, per dim (the names of the module docstring): the
    sizes, the CTA's share ``cta``, the tile, the repetitions, the registers a thread keeps,
    and the bit offset of each field in its hardware index."""

    spt: list[int]
    tpw: list[int]
    wpc: list[int]
    cta: list[int]
    tile: list[int]
    reps: list[int]
    held: list[int]
    offsets: dict[str, dict[int, int]]  # "register", "lane", "warp", "rep" -> dim -> offset
    shape: Sequence[int]
    cga_layout: Sequence[Sequence[int]]

    @classmethod
    def of(
        cls,
        size_per_thread: Sequence[int],
        threads_per_warp: Sequence[int],
        warps_per_cta: Sequence[int],
        order: Sequence[int],
        shape: Sequence[int],
        cga_layout: Sequence[Sequence[int]],
    ) -> _Geometry:
        rank = len(order)
        spt, tpw, wpc = list(size_per_thread), list(threads_per_warp), list(warps_per_cta)
        # CTAs along each dim: block bases whose coordinate fits in the shape.
        kept = [[b[d] for b in cga_layout if 0 < b[d] < shape[d]] for d in range(rank)]
        ctas = [1 << len(values) for values in kept]
        cta = [max(1, shape[d] // ctas[d]) for d in range(rank)]
        tile = [spt[d] * tpw[d] * wpc[d] for d in range(rank)]
        reps = [max(1, cta[d] // tile[d]) for d in range(rank)]
        # Triton 3.9 drops (rather than broadcasts) the register bits beyond a CTA's share.
        held = [min(spt[d], cta[d]) for d in range(rank)]
        rep_base = sum(_log2(s) for s in held)
        offsets = {
            "register": _offsets(held, order),
            "lane": _offsets(tpw, order),
            "warp": _offsets(wpc, order),
            "rep": {d: rep_base + o for d, o in _offsets(reps, order).items()},
        }
        return cls(spt, tpw, wpc, cta, tile, reps, held, offsets, shape, cga_layout)

    def coordinate(self, d: int) -> str:
        """The formula of coordinate ``d``: the CTA's part, then the block terms."""
        spt, cta, offsets = self.spt[d], self.cta[d], self.offsets
        register = _field("register", offsets["register"][d], self.held[d])
        # s + spt * (l + tpw * (w + wpc * rep)), innermost first; a size-1 field is 0.
        inner = _nested(
            [
                (register, spt),
                (_field("lane", offsets["lane"][d], self.tpw[d]), self.tpw[d]),
                (_field("warp", offsets["warp"][d], self.wpc[d]), self.wpc[d]),
                (_field("register", offsets["rep"][d], self.reps[d]), self.reps[d]),
            ]
        )
        if spt >= cta:  # the thread's own registers cover the CTA's share
            formula = register
        elif cta >= self.tile[d]:
            formula = inner
        else:
            formula = f"({inner}) % {cta}"
        blocks = [
            f"((block >> {j}) & 1) * {basis[d] * cta}"
            for j, basis in enumerate(self.cga_layout)
            if 0 < basis[d] < self.shape[d]
        ]
        return " + ".join([formula, *blocks]) if blocks else formula


def blocked_in_dim_sizes(
    size_per_thread: Sequence[int],
    threads_per_warp: Sequence[int],
    warps_per_cta: Sequence[int],
    shape: Sequence[int],
    cga_layout: Sequence[Sequence[int]] = (),
) -> dict[str, int]:
    """The domain of :func:`blocked_reference`: the number of registers (the kept
    ``min(spt, cta)`` ones and the repetitions), lanes, warps and CTAs.

    Examples:
        >>> blocked_in_dim_sizes([4, 1], [8, 4], [1, 1], [2, 8])
        {'register': 4, 'lane': 32, 'warp': 1, 'block': 1}
    """
    rank = len(shape)
    kept = [[b[d] for b in cga_layout if 0 < b[d] < shape[d]] for d in range(rank)]
    cta = [max(1, shape[d] >> len(kept[d])) for d in range(rank)]
    registers = 1
    for d in range(rank):
        tile = size_per_thread[d] * threads_per_warp[d] * warps_per_cta[d]
        registers *= min(size_per_thread[d], cta[d]) * max(1, cta[d] // tile)
    lanes = warps = 1
    for d in range(rank):
        lanes *= threads_per_warp[d]
        warps *= warps_per_cta[d]
    return {"register": registers, "lane": lanes, "warp": warps, "block": 1 << len(cga_layout)}


@dataclass(frozen=True)
class BlockedObligation:
    """``BlockedLayout(params).to_linear_layout(shape)`` must equal ``blocked_reference``."""

    name: str
    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]
    shape: tuple[int, ...]
    cga_layout: tuple[tuple[int, ...], ...] = field(default_factory=tuple)

    def in_dim_sizes(self) -> dict[str, int]:
        return blocked_in_dim_sizes(
            self.size_per_thread, self.threads_per_warp, self.warps_per_cta, self.shape,
            self.cga_layout,
        )  # fmt: skip

    def reference(self) -> dict[str, str]:
        return blocked_reference(
            self.size_per_thread,
            self.threads_per_warp,
            self.warps_per_cta,
            self.order,
            self.shape,
            self.cga_layout,
        )


#: Instances covering every case of the closed form: the tile equal to, larger than
#: (register repetitions) and smaller than (broadcast) the shape, per dim and mixed;
#: ranks 1 to 4 with several orders; CGA layouts with split, broadcast and permuted
#: block bases, and block bases clamped by a small shape.
OBLIGATIONS: tuple[BlockedObligation, ...] = (
    BlockedObligation("1d/exact", (1,), (4,), (4,), (0,), (16,)),
    BlockedObligation("1d/repeat", (1,), (4,), (4,), (0,), (128,)),
    BlockedObligation("1d/broadcast", (4,), (4,), (4,), (0,), (8,)),
    BlockedObligation("1d/register-replicate", (2,), (4,), (1,), (0,), (32,)),
    BlockedObligation("2d/row-major", (1, 4), (8, 4), (2, 1), (1, 0), (16, 16)),
    BlockedObligation("2d/col-major", (4, 1), (4, 8), (1, 2), (0, 1), (16, 16)),
    BlockedObligation("2d/repeat-both", (1, 8), (4, 8), (4, 1), (1, 0), (128, 64)),
    BlockedObligation("2d/broadcast-both", (2, 2), (4, 8), (2, 2), (1, 0), (4, 8)),
    BlockedObligation("2d/one-large-one-small", (1, 4), (8, 4), (4, 1), (1, 0), (128, 4)),
    BlockedObligation("2d/degenerate", (1, 1), (4, 1), (4, 1), (0, 1), (128, 1)),
    BlockedObligation("2d/reversed", (1, 1), (32, 1), (1, 8), (0, 1), (1, 64)),
    BlockedObligation("3d/mixed", (2, 2, 4), (2, 4, 4), (2, 2, 2), (2, 1, 0), (16, 32, 4)),
    BlockedObligation("3d/middle-fastest", (1, 4, 1), (4, 4, 2), (1, 2, 2), (1, 2, 0), (8, 64, 2)),
    BlockedObligation(
        "4d/tiny-shape", (1, 1, 1, 4), (2, 1, 1, 16), (1, 2, 4, 1), (3, 0, 1, 2), (2, 1, 1, 1)
    ),
    BlockedObligation("2d/registers-dropped", (4, 2), (8, 4), (1, 1), (0, 1), (2, 1)),
    BlockedObligation("2d/registers-dropped-repeat", (4, 1), (8, 4), (1, 1), (1, 0), (2, 8)),
    BlockedObligation(
        "4d/large-shape", (1, 2, 1, 2), (2, 2, 4, 2), (2, 1, 2, 1), (3, 1, 0, 2), (8, 8, 16, 8)
    ),
    BlockedObligation("cga/1d-split", (1,), (4,), (4,), (0,), (32,), ((1,), (0,))),
    BlockedObligation(
        "cga/2d-permuted", (1, 4), (8, 4), (2, 1), (1, 0), (128, 16), ((0, 1), (1, 0))
    ),
    BlockedObligation(
        "cga/2d-broadcast", (8, 1), (8, 4), (1, 4), (0, 1), (64, 128), ((0, 1), (0, 0))
    ),
    BlockedObligation(
        "cga/block-order", (2, 2), (4, 8), (2, 2), (1, 0), (1024, 128), ((0, 1), (1, 0))
    ),
    BlockedObligation("cga/clamped-by-shape", (1,), (1,), (1,), (0,), (2,), ((1,), (2,))),
    BlockedObligation(
        "cga/swapped-powers", (1, 4), (8, 4), (2, 1), (1, 0), (128, 16), ((0, 2), (0, 1))
    ),
)


def blocked_2d_family(max_log2: int = 4, order: tuple[int, int] = (1, 0)) -> LayoutFamily:
    """Triton's blocked encoding on 2-D shapes equal to the CTA tile, for every power-of-2
    size_per_thread, threads_per_warp, warps_per_cta up to ``2**max_log2`` per dim, as a
    :class:`~llverify.proof.family.LayoutFamily` (parameters are log2 sizes: ``s0, s1`` of
    size_per_thread, ``t0, t1`` of threads_per_warp, ``w0, w1`` of warps_per_cta).

    The bases are those of Triton's converter (``identityStandardND`` of register, lane,
    warp in ``order``): bit ``i`` of an in dim first walks the fastest dim ``f``, then the
    other dim ``g``.  :data:`BLOCKED_2D_REFERENCES` gives the closed form to prove it against.

    Examples:
        >>> blocked_2d_family(2).instance(s0=0, s1=1, t0=1, t1=1, w0=1, w1=0).bases[1]
        ('lane', [[0, 2], [1, 0]])
    """
    fast, slow = order
    s, t, w = (f"s{fast}", f"s{slow}"), (f"t{fast}", f"t{slow}"), (f"w{fast}", f"w{slow}")

    def basis(fields: tuple[str, str], below: tuple[str, str]) -> dict[str, str]:
        # bit i < fields[0]: the fast dim at 2**(i + below_fast); else the slow dim.
        lo, hi = fields
        fast_value = f"(1 << ({BIT} + {below[0]})) if {BIT} < {lo} else 0"
        slow_value = f"0 if {BIT} < {lo} else (1 << (max({BIT} - {lo}, 0) + {below[1]}))"
        del hi
        return {f"dim{fast}": fast_value, f"dim{slow}": slow_value}

    params = {name: (0, max_log2) for name in ("s0", "s1", "t0", "t1", "w0", "w1")}
    return LayoutFamily(
        name=f"blocked_2d_order{fast}{slow}",
        params=params,
        in_dims={"register": "s0 + s1", "lane": "t0 + t1", "warp": "w0 + w1"},
        out_dims={"dim0": "s0 + t0 + w0", "dim1": "s1 + t1 + w1"},
        bases={
            "register": basis(s, ("0", "0")),
            "lane": basis(t, (s[0], s[1])),
            "warp": basis(w, (f"{s[0]} + {t[0]}", f"{s[1]} + {t[1]}")),
        },
    )


def _closed_form_2d(fast: int, slow: int) -> dict[str, str]:
    """The closed form for order [fast, slow]: each dim's coordinate is its register,
    lane and warp fields, ``s + spt * (l + tpw * w)``, written with shifts of log2 params."""

    def coordinate(dim: int, low: bool) -> str:
        def part(name: str, field_bits: str, other: str) -> str:
            if low:  # the fast dim owns the low bits of each in dim
                return f"({name} & ((1 << {field_bits}) - 1))"
            return f"({name} >> {other})"

        s = part("register", f"s{dim}", f"s{fast}")
        t = part("lane", f"t{dim}", f"t{fast}")
        w = part("warp", f"w{dim}", f"w{fast}")
        return f"{s} + ({t} << s{dim}) + ({w} << (s{dim} + t{dim}))"

    return {f"dim{fast}": coordinate(fast, True), f"dim{slow}": coordinate(slow, False)}


#: Closed forms of :func:`blocked_2d_family` for order [1, 0] and [0, 1] (the docstring's
#: ``s + spt * (l + tpw * w)`` per dim, fields split at the log2 sizes).
BLOCKED_2D_REFERENCES = {(1, 0): _closed_form_2d(1, 0), (0, 1): _closed_form_2d(0, 1)}

#: Negative control shaped like a historical bug: the two dims' lane fields taken in the
#: wrong order (the slow dim's lanes treated as the fast ones).
BLOCKED_2D_LANES_SWAPPED = {
    "dim1": "(register & ((1 << s1) - 1)) + ((lane >> t0) << s1) "
    "+ ((warp & ((1 << w1) - 1)) << (s1 + t1))",
    "dim0": "(register >> s1) + ((lane & ((1 << t0) - 1)) << s0) + ((warp >> w1) << (s0 + t0))",
}


# ---------------------------------------------------------------------- the library

_SOURCE = "specs/blocked.py"


def layout(ob: BlockedObligation) -> LinearLayout:
    """Triton's converter on ``ob``: ``BlockedLayout(params).to_linear_layout(shape)``."""
    encoding = BlockedLayout(
        list(ob.size_per_thread),
        list(ob.threads_per_warp),
        list(ob.warps_per_cta),
        list(ob.order),
        [list(b) for b in ob.cga_layout],
    )
    return encoding.to_linear_layout(list(ob.shape))


def _equivalence(ob: BlockedObligation) -> LibraryObligation:
    cga = f" cga={[list(b) for b in ob.cga_layout]}" if ob.cga_layout else ""
    name = (
        f"blocked: {ob.name}: spt={list(ob.size_per_thread)} tpw={list(ob.threads_per_warp)} "
        f"wpc={list(ob.warps_per_cta)} order={list(ob.order)}{cga} on {list(ob.shape)} "
        "== closed form"
    )
    reference = (ob.in_dim_sizes(), ob.reference())  # the closed form's domain is claimed too
    return claims.equivalence(
        name, _SOURCE, Call(layout, ob), reference, decide=claims.equal_on_domain
    )


def _family(
    order: tuple[int, int], formulas: dict[str, str], control: str = ""
) -> LibraryObligation:
    """The 2-D family of ``order`` against ``formulas``: its closed form, or the negative
    control named ``control``."""
    scope = "every power-of-2 spt/tpw/wpc <= 64 per dim (46,656 members)"
    head = f"blocked: 2-D family order {list(order)}, {scope}"
    build = Call(blocked_2d_family, 6, order)
    if not control:
        return claims.family(f"{head}, == closed form", _SOURCE, build, formulas)
    name = f"{head}, vs {control} (negative control)"
    return claims.family(name, _SOURCE, build, formulas, expect=Status.REFUTED)


#: The module's obligations in the built-in library: :data:`OBLIGATIONS`, the 2-D family in
#: both orders, and its control.
LIBRARY: tuple[LibraryObligation, ...] = (
    *(_equivalence(ob) for ob in OBLIGATIONS),
    _family((1, 0), BLOCKED_2D_REFERENCES[(1, 0)]),
    _family((0, 1), BLOCKED_2D_REFERENCES[(0, 1)]),
    _family((1, 0), BLOCKED_2D_LANES_SWAPPED, "BLOCKED_2D_LANES_SWAPPED"),
)
