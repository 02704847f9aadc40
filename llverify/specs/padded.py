"""References for PaddedShared (``#ttg.padded_shared``) shared-memory addresses.

Primary source: Triton's ``PaddedSharedEncodingAttr`` description
(include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.td):

    "We insert a padding of `<pad_i>` elements after every `<interval_i>` elements.
    Multi interval-padding pairs are supported for flexibility of multi tiered padding
    schemes; they compose in an additive manner. So for a 1-D tensor element at index i,
    the corresponding shared memory location index is i + \\sum_{k} (i / interval_k) * pad_k"

where ``i`` is the offset the linear component (``offset -> dim0..``) gives the element,
and the lowering's ``applyPadding`` (lib/Conversion/TritonGPUToLLVM/Utility.cpp) computes
exactly ``i + sum_k (i >> log2 interval_k) << log2 pad_k``.  The same file's examples
(single pair ``[2:+2]``, double ``[2:+1, 4:+2]``, the strided 1-D ``offset = [[2], [1]]``
and the rearranged rows ``[16:+1] {offset = [[0, 1], [0, 2], [2, 0], [4, 0], [1, 0]]}``)
and Gluon's ``PaddedSharedLayout`` docstring example (``[[8, 1]]`` on 8x4) are read off
their element listings below.

Declarative: each :class:`PaddedObligation` names an encoding instance (Gluon parameters),
the buffer shape, and a closed form of the physical element offset (``address``) in the
formula language over the tensor coordinates ``dim0..``, the logical ``offset``,
``buffer``, ``block`` and ``params``; ``observe`` may select a function of the address
instead (its bank).  tests/test_encodings_padded.py proves each with
``llverify.smt.padded.prove_padded_equal``; ``expect = "refuted"`` marks negative controls
shaped like real mistakes (wrong padding amount, padding before the first row, pairs
applied multiplicatively or only the largest, a bank claim for the wrong padding).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from llverify.encodings.padded import PaddedLayout, PaddedSharedLayout
from llverify.proof.obligation import Call
from llverify.proof.obligation import Obligation as LibraryObligation
from llverify.proof.verdict import Status
from llverify.specs import claims


def padded_address_formula(pairs: Sequence[Sequence[int]], logical: str = "offset") -> str:
    """The documented address of logical offset ``logical``: ``i + sum (i // I) * P``.

    Examples:
        >>> padded_address_formula([[2, 1], [4, 2]])
        'offset + (offset // 2) * 1 + (offset // 4) * 2'
    """
    terms = [logical, *(f"({logical} // {i}) * {p}" for i, p in pairs)]
    return " + ".join(terms)


@dataclass(frozen=True)
class PaddedObligation:
    """``address`` (or ``observe``) of the instance equals ``reference`` for every element.

    The instance is ``PaddedSharedLayout.with_identity_for(pairs, shape, order, cga)`` when
    ``offset_bases`` is None, else ``PaddedSharedLayout(pairs, offset_bases, cga, shape)``;
    ``num_buffers`` buffers of ``shape`` are allocated.
    """

    name: str
    pairs: tuple[tuple[int, int], ...]
    shape: tuple[int, ...]
    reference: str
    order: tuple[int, ...] | None = None
    offset_bases: tuple[tuple[int, ...], ...] | None = None
    cga: tuple[tuple[int, ...], ...] = ()
    num_buffers: int = 1
    params: dict[str, int] = field(default_factory=dict)
    observe: str = "address"
    method: str = "auto"
    expect: Status = Status.PROVED
    source: str = ""


# ---------------------------------------------------------------------- the documented examples

TD = "TritonGPUAttrDefs.td, PaddedSharedEncodingAttr"

DOC_OBLIGATIONS: list[PaddedObligation] = [
    # "[e0, e1, p0, p1, e2, e3, p2, p3, ...]": two padding elements after every two.
    PaddedObligation(
        "td single pair [2:+2]", ((2, 2),), (16,), "dim0 + (dim0 // 2) * 2", order=(0,), source=TD
    ),
    # "[e0, e1, p0, e2, e3, p1, p2, p3, e4, e5, p4, e6, e7, p5, p6, p7, ...]"
    PaddedObligation(
        "td double pairs [2:+1, 4:+2]",
        ((2, 1), (4, 2)),
        (16,),
        "dim0 + dim0 // 2 + (dim0 // 4) * 2",
        order=(0,),
        source=TD,
    ),
    # "[x0, x2, p0 p1, x1, x3, p2, p3 ...]": x_i at (i >> 1) + 4 * (i & 1).
    PaddedObligation(
        "td strided 1-D offset = [[2], [1]]",
        ((2, 2),),
        (4,),
        "(dim0 // 2) + (dim0 % 2) * 4",
        offset_bases=((2,), (1,)),
        source=TD,
    ),
    # Even rows x0, x2, x4, x6 (16 elements), p0, then the odd rows: row r at
    # 17 * (r % 2) + 4 * (r // 2).
    PaddedObligation(
        "td rearranged rows [16:+1]",
        ((16, 1),),
        (8, 4),
        "(dim0 % 2) * 17 + (dim0 // 2) * 4 + dim1",
        offset_bases=((0, 1), (0, 2), (2, 0), (4, 0), (1, 0)),
        source=TD,
    ),
    # Gluon's docstring: x0y*, x2y*, p0, x4y*, x6y*, p1, x1y*, x3y*, p2, x5y*, x7y*.
    PaddedObligation(
        "Gluon docstring [[8, 1]] on 8x4",
        ((8, 1),),
        (8, 4),
        "dim1 + 4 * (dim0 // 2) + dim0 // 4 + 18 * (dim0 % 2)",
        offset_bases=((0, 1), (0, 2), (2, 0), (4, 0), (1, 0)),
        source="triton/experimental/gluon/language/_layouts.py, PaddedSharedLayout",
    ),
]


# ---------------------------------------------------------------------- padded tiles

ROW = "row-major tile, one padding of P after each row of C (interval = C)"

# (rows R, columns C, padding P): C and P powers of 2.
ROW_MAJOR_CASES: list[tuple[int, int, int]] = [
    (r, c, p)
    for r in (1, 2, 8, 32, 64)
    for c in (4, 16, 64, 128, 256)
    for p in (1, 2, 4, 8, 16)
    if r * c <= 1 << 14 and (r + c + p) % 3 != 1
]


def tile_obligations() -> list[PaddedObligation]:
    """Closed forms of padded tiles: the reason the encoding exists (Triton's AMD pipeline
    pads each row of an LDS tile; test-allocation.mlir's [256:+8] rows)."""
    return [
        *_row_major_tiles(),
        *_column_major_tiles(),
        *_two_tier_tiles(),
        *_coarse_tiles(),
        *_multi_buffer_tiles(),
        *_multi_cta_tiles(),
        *_large_tiles(),
    ]


def _row_major_tiles() -> list[PaddedObligation]:
    return [
        PaddedObligation(
            f"row-major {r}x{c} [{c}:+{p}]",
            ((c, p),),
            (r, c),
            "dim0 * (C + P) + dim1",
            order=(1, 0),
            params={"C": c, "P": p},
            source=ROW,
        )
        for r, c, p in ROW_MAJOR_CASES
    ]


def _column_major_tiles() -> list[PaddedObligation]:
    """Column-major: the interval is a column of R elements."""
    return [
        PaddedObligation(
            f"column-major {r}x{c} [{r}:+{p}]",
            ((r, p),),
            (r, c),
            "dim1 * (R + P) + dim0",
            order=(0, 1),
            params={"R": r, "P": p},
            source=ROW,
        )
        for r, c, p in [(16, 8, 1), (64, 32, 4), (128, 4, 2), (32, 64, 8)]
    ]


def _two_tier_tiles() -> list[PaddedObligation]:
    """Two tiers, additive: P1 after every row, P2 more after every second row."""
    return [
        PaddedObligation(
            f"two tiers {r}x{c} [{c}:+{p1}, {2 * c}:+{p2}]",
            ((c, p1), (2 * c, p2)),
            (r, c),
            "dim0 * (C + P1) + (dim0 // 2) * P2 + dim1",
            order=(1, 0),
            params={"C": c, "P1": p1, "P2": p2},
            source=TD,
        )
        for r, c, p1, p2 in [(16, 64, 1, 2), (32, 128, 4, 8), (8, 16, 2, 1), (64, 256, 8, 16)]
    ]


def _coarse_tiles() -> list[PaddedObligation]:
    """Coarse: one padding every k rows."""
    return [
        PaddedObligation(
            f"every {k} rows {r}x{c} [{k * c}:+{p}]",
            ((k * c, p),),
            (r, c),
            "dim0 * C + (dim0 // K) * P + dim1",
            order=(1, 0),
            params={"C": c, "K": k, "P": p},
            source=ROW,
        )
        for r, c, k, p in [(32, 64, 4, 8), (16, 16, 2, 1), (64, 128, 8, 4)]
    ]


def _multi_buffer_tiles() -> list[PaddedObligation]:
    """Multi-buffered: the allocation is padded as one flat array."""
    return [
        PaddedObligation(
            f"{b} buffers of {r}x{c} [{c}:+{p}]",
            ((c, p),),
            (r, c),
            "(buffer * R + dim0) * (C + P) + dim1",
            order=(1, 0),
            num_buffers=b,
            params={"R": r, "C": c, "P": p},
            source="getPaddedSize of the alloc shape; memdesc_index pads the base offset",
        )
        for b, r, c, p in [(2, 16, 64, 4), (3, 32, 32, 1), (4, 8, 128, 8)]
    ]


def _multi_cta_tiles() -> list[PaddedObligation]:
    """Rows split over CTAs: each CTA holds R / #CTAs rows (H), padded the same way."""
    cases: list[tuple[int, int, int, tuple[tuple[int, ...], ...]]] = [
        (64, 64, 4, ((1, 0),)),
        (32, 128, 8, ((1, 0), (2, 0))),
    ]
    return [
        PaddedObligation(
            f"{r}x{c} over {1 << len(cga)} CTAs [{c}:+{p}]",
            ((c, p),),
            (r, c),
            "(dim0 % H) * (C + P) + dim1",
            order=(1, 0),
            cga=cga,
            params={"H": r >> len(cga), "C": c, "P": p},
            source="CGA layout: block bases in units of the CTA tile",
        )
        for r, c, p, cga in cases
    ]


def _large_tiles() -> list[PaddedObligation]:
    """Large tiles, decided by the solver (2**16 and 2**18 elements)."""
    return [
        PaddedObligation(
            "row-major 256x256 [256:+16] (z3)",
            ((256, 16),),
            (256, 256),
            "dim0 * 272 + dim1",
            order=(1, 0),
            method="z3",
            source=ROW,
        ),
        PaddedObligation(
            "three tiers 512x512 [128:+4, 256:+8, 512:+16] (z3)",
            ((128, 4), (256, 8), (512, 16)),
            (512, 512),
            "dim0 * 560 + (dim1 // 128) * 4 + (dim1 // 256) * 8 + dim1",
            order=(1, 0),
            method="z3",
            source=TD,
        ),
    ]


# ---------------------------------------------------------------------- banks

BANKS = (
    "NVIDIA shared memory: 32 banks of 4 bytes (CUDA C++ Programming Guide, 'Shared "
    "Memory'); bank = (byte address / 4) % 32"
)

BANK_OBLIGATIONS: list[PaddedObligation] = [
    # fp32, one word of padding per row of C (C % 32 == 0): bank (row + col) % 32, so the
    # 32 lanes reading one column touch 32 distinct banks.
    *(
        PaddedObligation(
            f"fp32 {r}x{c} [{c}:+1] column reads conflict-free",
            ((c, 1),),
            (r, c),
            "(dim0 + dim1) % 32",
            order=(1, 0),
            observe="address % 32",
            source=BANKS,
        )
        for r, c in [(32, 32), (64, 128), (128, 64)]
    ),
    # fp16, two elements (one word) per row of C (C % 64 == 0).
    *(
        PaddedObligation(
            f"fp16 {r}x{c} [{c}:+2] column reads conflict-free",
            ((c, 2),),
            (r, c),
            "(dim0 + dim1 // 2) % 32",
            order=(1, 0),
            observe="(address * 2 // 4) % 32",
            source=BANKS,
        )
        for r, c in [(32, 64), (64, 128)]
    ),
]


# ---------------------------------------------------------------------- vector alignment

ALIGNMENT = (
    "PTX ISA, 'ld' / 'st': the address must be naturally aligned to a multiple of the access "
    "size (a .v2.b32 access: 8 bytes); Triton caps the vector width of padded shared "
    "accesses only by getMinInterval"
)

#: Offsets whose bit 0 is a row step: registers of a [1, 1]-per-thread blocked layout hold
#: offset pairs (o, o + 1), which Triton (3.6 and 3.9) stores with st.shared.v2.b32.
PAIRED_ROWS = (
    (4, 0),
    (0, 1),
    (16, 0),
    (0, 8),
    (0, 2),
    (0, 4),
    (1, 0),
    (8, 0),
    (2, 0),
    (0, 16),
    (32, 0),
)

ALIGNMENT_OBLIGATIONS: list[PaddedObligation] = [
    # Even paddings keep every even logical offset at an even address: v2 is aligned.
    PaddedObligation(
        "v2 accesses aligned: paddings [512:+2, 2048:+8]",
        ((512, 2), (2048, 8)),
        (64, 32),
        "offset % 2",
        offset_bases=PAIRED_ROWS,
        observe="address % 2",
        source=ALIGNMENT,
    ),
    # Paddings multiple of 4 keep v4 aligned (Triton emitted st.shared.v4.b32 for it).
    PaddedObligation(
        "v4 accesses aligned: paddings [4:+32, 64:+4]",
        ((4, 32), (64, 4)),
        (32, 4),
        "offset % 4",
        offset_bases=((4, 0), (8, 0), (2, 0), (16, 0), (1, 0), (0, 1), (0, 2)),
        observe="address % 4",
        source=ALIGNMENT,
    ),
]


# ---------------------------------------------------------------------- negative controls

NEGATIVE_CONTROLS: list[PaddedObligation] = [
    # The layout pads 2P, the claim says P.
    PaddedObligation(
        "wrong padding amount",
        ((64, 8),),
        (16, 64),
        "dim0 * (C + P) + dim1",
        order=(1, 0),
        params={"C": 64, "P": 4},
        expect=Status.REFUTED,
    ),
    # Padding before each row instead of after it (off by one interval).
    PaddedObligation(
        "padding before the first row",
        ((32, 4),),
        (8, 32),
        "dim0 * (C + P) + P + dim1",
        order=(1, 0),
        params={"C": 32, "P": 4},
        expect=Status.REFUTED,
    ),
    # Interval of half a row, claimed as a row.
    PaddedObligation(
        "interval is half a row",
        ((16, 1),),
        (8, 32),
        "dim0 * 33 + dim1",
        order=(1, 0),
        expect=Status.REFUTED,
    ),
    # Only the largest pair applied (the pairs add up).
    PaddedObligation(
        "only the largest pair",
        ((64, 1), (128, 2)),
        (16, 64),
        "dim0 * 64 + (dim0 // 2) * 2 + dim1",
        order=(1, 0),
        expect=Status.REFUTED,
    ),
    # Pairs multiplied instead of added.
    PaddedObligation(
        "pairs multiplied",
        ((64, 2), (128, 4)),
        (16, 64),
        "dim0 * (64 + 2) * 1 + (dim0 // 2) * 2 * 4 + dim1",
        order=(1, 0),
        expect=Status.REFUTED,
    ),
    # The td example read with the rows in natural order (the remapping ignored).
    PaddedObligation(
        "rearranged rows read in order",
        ((16, 1),),
        (8, 4),
        "dim0 * 4 + dim1 + dim0 // 4",
        offset_bases=((0, 1), (0, 2), (2, 0), (4, 0), (1, 0)),
        expect=Status.REFUTED,
    ),
    # Two words of padding per fp32 row: column reads hit every other bank twice.
    PaddedObligation(
        "fp32 [64:+2] claimed conflict-free",
        ((64, 2),),
        (32, 64),
        "(dim0 + dim1) % 32",
        order=(1, 0),
        observe="address % 32",
        expect=Status.REFUTED,
    ),
    # A real one: Triton 3.9 (and 3.6) store this layout's offset pairs with
    # st.shared.v2.b32, but the 1-element padding after offset 511 puts offset 512 at the
    # odd address 513: on an H200 (Triton 3.6) the kernel fails with "misaligned address".
    PaddedObligation(
        "v2 accesses across a 1-element padding [512:+1, 2048:+8]",
        ((512, 1), (2048, 8)),
        (64, 32),
        "offset % 2",
        offset_bases=PAIRED_ROWS,
        observe="address % 2",
        expect=Status.REFUTED,
        source=ALIGNMENT,
    ),
    # The large z3 instance with the padding of the wrong tier.
    PaddedObligation(
        "three tiers, tier paddings swapped (z3)",
        ((128, 4), (256, 8), (512, 16)),
        (512, 512),
        "dim0 * 560 + (dim1 // 128) * 8 + (dim1 // 256) * 4 + dim1",
        order=(1, 0),
        method="z3",
        expect=Status.REFUTED,
    ),
]


def all_obligations() -> list[PaddedObligation]:
    """Every obligation expected to be proved."""
    return [*DOC_OBLIGATIONS, *tile_obligations(), *BANK_OBLIGATIONS, *ALIGNMENT_OBLIGATIONS]


# ---------------------------------------------------------------------- the library

_SOURCE = "specs/padded.py"


def model(ob: PaddedObligation) -> PaddedLayout:
    """The padded model of ``ob``'s instance, with its ``num_buffers`` buffers."""
    if ob.offset_bases is None:
        assert ob.order is not None, ob  # the data give an order or the offset bases
        encoding = PaddedSharedLayout.with_identity_for(ob.pairs, ob.shape, ob.order, ob.cga)
    else:
        encoding = PaddedSharedLayout(ob.pairs, ob.offset_bases, ob.cga, ob.shape)
    return encoding.padded_layout(num_buffers=ob.num_buffers)


def _obligation(ob: PaddedObligation) -> LibraryObligation:
    name = f"padded: {ob.name}: {ob.observe} == {ob.reference}"
    if ob.expect == Status.REFUTED:
        name = f"padded: {ob.name}: {ob.observe} vs {ob.reference} (negative control)"
    return claims.equivalence(
        name,
        _SOURCE,
        Call(model, ob),
        ob.reference,
        expect=Status(ob.expect),
        decide=claims.padded_equal,
        observe=ob.observe,
        params=ob.params,
        method=ob.method,
    )


#: The module's obligations in the built-in library: :func:`all_obligations`, then
#: :data:`NEGATIVE_CONTROLS`.
LIBRARY = tuple(_obligation(ob) for ob in (*all_obligations(), *NEGATIVE_CONTROLS))
