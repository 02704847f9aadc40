"""References for Triton's NVMMAShared encoding: the TMA / wgmma swizzled shared-memory
layout as closed forms, as CuTe swizzles, and as a parametric family, with the obligations
that tie llverify's converter (``llverify.encodings.nvmma_shared``) to them.

Sources:

* NVIDIA CUDA Driver API, "Tensor Map Object Management", ``cuTensorMapEncodeTiled``: a box
  dim is at most 256 elements; with a swizzle mode (``CU_TENSOR_MAP_SWIZZLE_32B/64B/128B``)
  the inner box dim (in bytes) must not exceed the swizzle span; CUDA C++ Programming Guide,
  "Asynchronous Data Copies using the Tensor Memory Accelerator (TMA)" > "TMA Swizzle": the
  16-byte chunk ``c`` of 128-byte segment ``r`` is stored at chunk ``c XOR f(r)``, the
  pattern repeating every 256 / 512 / 1024 bytes for the 32 / 64 / 128 B modes.
* NVIDIA PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate" > "Shared Memory
  Matrix Layout" (and "tcgen05 Shared Memory Layout and Swizzling"): 8-row core matrices of
  16-byte rows, swizzle atoms of 8 rows x 32/64/128 bytes, K-major and MN-major.
* Triton, include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.td, ``NVMMASharedEncodingAttr``
  ("Represent blocked shared memory matching MMAv3/MMAv5 shared memory input ... `transposed
  == false` just means N is the contiguous dimension"), with ``getVec() = 128 / bitwidth``,
  ``getPerPhase() = 128 / swizzlingByteWidth``, ``getMaxPhase() = swizzlingByteWidth / 16``
  (lib/Dialect/TritonGPU/IR/Dialect.cpp).
* CUTLASS include/cute/swizzle.hpp, ``Swizzle<B, M, S>``: ``yyy_msk = ((1 << B) - 1) << (M +
  max(0, S))``, ``x -> x ^ ((x & yyy_msk) >> S)``; include/cute/atom/mma_traits_sm90_gmma.hpp:
  ``Layout_K_SW{32,64,128}_Atom_Bits = ComposedLayout<Swizzle<{1,2,3},4,3>,
  smem_ptr_flag_bits<1>, Layout<Shape<_8, _{256,512,1024}>, Stride<_{256,512,1024}, _1>>>``
  (the swizzle acts on byte addresses of a smem pointer) and the MN-major ``Layout_MN_SW*``.

The closed form (REFERENCES.md section 3): with ``boxC = 8 * swizzle / bitwidth`` columns per
TMA box, ``vec = 128 / bitwidth``, ``perPhase = 128 / swizzle``, ``maxPhase = swizzle / 16``,
an element offset ``o`` of an ``R x C`` tile (contiguous columns) holds::

    box = o >> log2(R * boxC);  row = (o >> log2 boxC) & (R - 1)
    col = box * boxC + ((o & (boxC - 1)) ^ (((row >> log2 perPhase) & (maxPhase - 1)) << log2 vec))

Everything here is data (formula text, obligations, families); tests/test_encodings_nvmma_shared.py
proves it with ``llverify.prove_equal`` / ``prove_family_equal``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from llverify.encodings.nvmma_shared import NVMMASharedLayout
from llverify.layout import LinearLayout
from llverify.proof.family import BIT, LayoutFamily
from llverify.proof.obligation import Call
from llverify.proof.obligation import Obligation as LibraryObligation
from llverify.proof.verdict import Status
from llverify.specs import claims

#: Swizzle modes with a swizzle (bytes) and element sizes (bits) Gluon accepts.
SWIZZLES = (32, 64, 128)
BITWIDTHS = (8, 16, 32, 64)


def _log2(value: int) -> int:
    assert value > 0 and value & (value - 1) == 0, value
    return value.bit_length() - 1


# ---------------------------------------------------------------------- closed form

#: REFERENCES.md section 3 (non-transposed: dim0 = row, dim1 = contiguous column), over
#: ``offset`` with params lbc = log2 boxC, lr = log2 R, lp = log2 perPhase, lm = log2
#: maxPhase, lv = log2 vec.  Source: Triton NVMMASharedEncodingAttr (vec/perPhase/maxPhase)
#: and the CUDA TMA swizzle (16-byte chunk XOR row phase, boxes of one swizzle span).
_ROW = "((offset >> lbc) & ((1 << lr) - 1))"
_COL = (
    "(((offset >> (lbc + lr)) << lbc) + ((offset & ((1 << lbc) - 1)) ^ "
    f"((({_ROW} >> lp) & ((1 << lm) - 1)) << lv)))"
)
NVMMA_REFERENCE: dict[str, str] = {"dim0": _ROW, "dim1": _COL}
#: transposed = true: the contiguous dim is dim0 (R then counts dim1), for R <= 256 (one box
#: of rows: beyond it Triton places further boxes of the contiguous dim before more rows).
NVMMA_REFERENCE_TRANSPOSED: dict[str, str] = {"dim0": _COL, "dim1": _ROW}


def nvmma_params(swizzle: int, bitwidth: int, rows: int) -> dict[str, int]:
    """The closed form's params for a swizzle mode, an element size and R rows."""
    return {
        "lbc": _log2(8 * swizzle // bitwidth),
        "lr": _log2(rows),
        "lp": _log2(128 // swizzle),
        "lm": _log2(swizzle // 16),
        "lv": _log2(128 // bitwidth),
    }


@dataclass(frozen=True)
class ClosedFormObligation:
    """``NVMMASharedLayout(swizzle, bitwidth, transposed=...)`` on ``shape`` equals
    ``NVMMA_REFERENCE`` (``NVMMA_REFERENCE_TRANSPOSED``) with ``nvmma_params``."""

    swizzle: int
    bitwidth: int
    shape: tuple[int, int]
    transposed: bool = False

    @property
    def name(self) -> str:
        t = "/T" if self.transposed else ""
        return f"{self.swizzle}B/{self.bitwidth}b/{self.shape[0]}x{self.shape[1]}{t}"

    @property
    def reference(self) -> dict[str, str]:
        return NVMMA_REFERENCE_TRANSPOSED if self.transposed else NVMMA_REFERENCE

    @property
    def params(self) -> dict[str, int]:
        rows = self.shape[1] if self.transposed else self.shape[0]
        return nvmma_params(self.swizzle, self.bitwidth, rows)


def _closed_form_obligations() -> tuple[ClosedFormObligation, ...]:
    result = []
    for swizzle in SWIZZLES:
        for bitwidth in BITWIDTHS:
            box = 8 * swizzle // bitwidth
            # one box of 8 rows, one of 64 rows, 4 boxes of 128 rows, 512 rows x 2 boxes
            for rows, boxes in ((8, 1), (64, 1), (128, 4), (512, 2)):
                result.append(ClosedFormObligation(swizzle, bitwidth, (rows, box * boxes)))
            for rows, boxes in ((8, 1), (256, 2)):
                result.append(ClosedFormObligation(swizzle, bitwidth, (box * boxes, rows), True))
    return tuple(result)


CLOSED_FORM_OBLIGATIONS = _closed_form_obligations()

# ---------------------------------------------------------------------- CuTe swizzles

#: CUTLASS include/cute/swizzle.hpp ``Swizzle<B, M, S>`` for S >= 0 (all swizzles here):
#: ``x ^ ((x & (((1 << B) - 1) << (M + S))) >> S)``: bits [M + S, M + S + B) of x are
#: XORed into bits [M, M + B).  An involution (the XORed bits are not among the read ones).
CUTE_SWIZZLE = "x ^ ((x & (((1 << B) - 1) << (M + S))) >> S)"

#: The CuTe swizzle of each NVMMA / TMA mode on *byte* addresses: 16-byte chunks (M = 4),
#: rows of 128 bytes (M + S = 7), maxPhase = 2**B phases (CUTLASS Layout_*_SW32/64/128).
CUTE_BYTE_SWIZZLES: dict[int, tuple[int, int, int]] = {32: (1, 4, 3), 64: (2, 4, 3), 128: (3, 4, 3)}


def cute_element_swizzle(swizzle: int, bitwidth: int) -> tuple[int, int, int]:
    """The same swizzle on *element* addresses: ``Swizzle<B, 4 - log2(bytes), 3>`` (for
    8-bit data the byte and element forms coincide; for 16-bit the 128-byte mode is
    Swizzle<3,3,3> on element addresses, Swizzle<3,4,3> on byte addresses)."""
    b, m, s = CUTE_BYTE_SWIZZLES[swizzle]
    return b, m - _log2(bitwidth // 8), s


def cute_swizzle_text(argument: str, b: int, m: int, s: int) -> str:
    """``CUTE_SWIZZLE`` applied to the formula ``argument`` with literal B, M, S."""
    assert s >= 0 and abs(s) >= b
    mask = ((1 << b) - 1) << (m + s)
    return f"(({argument}) ^ ((({argument}) & {mask}) >> {s}))"


@dataclass(frozen=True)
class CuteObligation:
    """NVMMA ``(swizzle, bitwidth, transposed)`` on ``rows`` x ``boxes`` TMA boxes equals the
    CuTe swizzle composed with the row-major layout of the tile, boxes outermost:

    * ``inverse``: ``(dim0, dim1) -> offset = box * R * boxC + Swz(row * boxC + c)`` with
      ``c`` the column inside the box (CuTe's ``ComposedLayout<Swizzle, 0, Layout<(R, boxC),
      (boxC, 1)>>`` tiled over the boxes), for the inverted layout;
    * ``forward``: ``offset -> (row, col)``, the same read backwards (Swz is an involution);
    * ``bytes``: the forward form with the byte-address swizzle Swizzle<B, 4, 3> of CUTLASS
      applied to ``offset * bytes`` and divided back.
    """

    swizzle: int
    bitwidth: int
    rows: int
    boxes: int = 1
    transposed: bool = False

    @property
    def name(self) -> str:
        t = "/T" if self.transposed else ""
        return f"SW{self.swizzle}/{self.bitwidth}b/{self.rows}x{self.boxes}box{t}"

    @property
    def box_cols(self) -> int:
        return 8 * self.swizzle // self.bitwidth

    @property
    def shape(self) -> tuple[int, int]:
        shape = (self.rows, self.box_cols * self.boxes)
        return (shape[1], shape[0]) if self.transposed else shape

    def _dims(self, row: str, col: str) -> dict[str, str]:
        return {"dim0": col, "dim1": row} if self.transposed else {"dim0": row, "dim1": col}

    def inverse(self) -> dict[str, str]:
        b, m, s = cute_element_swizzle(self.swizzle, self.bitwidth)
        row, col = ("dim1", "dim0") if self.transposed else ("dim0", "dim1")
        lbc = _log2(self.box_cols)
        inner = cute_swizzle_text(
            f"{row} * {self.box_cols} + ({col} & {self.box_cols - 1})", b, m, s
        )
        return {"offset": f"(({col} >> {lbc}) * {self.rows * self.box_cols}) + {inner}"}

    def forward(self, byte_addresses: bool = False) -> dict[str, str]:
        lbc, lr = _log2(self.box_cols), _log2(self.rows)
        tile = f"(offset & {self.rows * self.box_cols - 1})"
        if byte_addresses:
            b, m, s = CUTE_BYTE_SWIZZLES[self.swizzle]
            lbytes = _log2(self.bitwidth // 8)
            address = f"({cute_swizzle_text(f'{tile} << {lbytes}', b, m, s)} >> {lbytes})"
        else:
            address = cute_swizzle_text(tile, *cute_element_swizzle(self.swizzle, self.bitwidth))
        row = f"({address} >> {lbc})"
        col = f"(((offset >> {lbc + lr}) << {lbc}) + ({address} & {self.box_cols - 1}))"
        return self._dims(row, col)


CUTE_OBLIGATIONS = tuple(
    CuteObligation(swizzle, bitwidth, rows, boxes, transposed)
    for swizzle in SWIZZLES
    for bitwidth in BITWIDTHS
    for transposed in (False, True)
    for rows, boxes in ((8, 1), (64, 2))
)

# ---------------------------------------------------------------------- negative controls

#: The 128-byte CUTLASS swizzle Swizzle<3,4,3> applied to 16-bit *element* addresses (it
#: acts on byte addresses): XORs 16-element (32-byte) chunks with rows 1..7 / 2 (refuted).
CUTE_ON_ELEMENTS_16B = CuteObligation(128, 16, 8)
#: The closed form with the phase taken from row >> (log2 perPhase + 1) (a perPhase of 2x).
NVMMA_PHASE_OFF_BY_ONE: dict[str, str] = {
    "dim0": _ROW,
    "dim1": _COL.replace(f"{_ROW} >> lp", f"{_ROW} >> (lp + 1)"),
}
#: Boxes not outermost: the C columns of all boxes read as one long row (the CUDA TMA box
#: is one swizzle span wide, so this is wrong as soon as C > boxC).
NVMMA_WIDE_ROWS: dict[str, str] = {
    "dim0": "offset >> lc",
    "dim1": "(offset & ((1 << lc) - 1)) ^ (((((offset >> lc) >> lp) & ((1 << lm) - 1)) << lv))",
}

# ---------------------------------------------------------------------- parametric family

# Family parameters (log2 values): lb = log2(bytes per element) (8/16/32/64 bits); s = 0 for
# no swizzle, else the swizzle is 16 << s bytes (32/64/128); t = transposed; f = fp4Padded
# (s = 3, 8-bit only); l0, l1 = log2 of the shape (dim0, dim1).
_LA = "(l0 if t == 1 else l1)"  # log2 of the contiguous dim
_LN = "(l1 if t == 1 else l0)"  # log2 of the other (row) dim
_BA = f"(4 + s - lb - f if s > 0 else min({_LA}, 8))"  # contiguous bits of a box (logical)
_PA = f"({_BA} + f)"  # ... in offsets (fp4 padding doubles them)
_BN = f"min({_LN}, 8)"  # row bits of a box (TMA box dims are at most 256)
_EA = f"max({_LA} - {_BA}, 0)"  # further boxes along the contiguous dim
_EN = f"max({_LN} - {_BN}, 0)"  # rows beyond 256
_LV, _LP, _LM = "(4 - lb - f)", "(3 - s)", "s"  # log2 vec, perPhase, maxPhase (0 if s == 0)
# Triton grows the CTA layout along dim0 first, then dim1, where the swizzled layout has
# standard dim order and the unswizzled one (dim1, dim0): further contiguous boxes come
# before rows beyond 256 exactly when this holds.
_A_FIRST = "((1 if s > 0 else 0) == t)"


def _valid(max_elements_log2: int) -> str:
    return (
        f"l0 + l1 <= {max_elements_log2} and (f == 0 or (s == 3 and lb == 0)) and "
        f"(s == 0 or ({_LA} + f >= 4 + s - lb and {_LN} >= 3))"
    )


def nvmma_shared_2d(max_elements_log2: int = 20, constraint: str | None = None) -> LayoutFamily:
    """Triton's NVMMAShared on 2-D ``2**l0 x 2**l1`` shapes, one CTA: every legal swizzle
    (s), element size (lb), transposed (t) and fp4Padded (f), the shape valid for the TMA
    box (contiguous dim at least one swizzle span, at least 8 rows).

    Basis ``i`` of ``offset`` (coordinates: ``a`` along the contiguous dim, ``n`` along the
    other), transcribed from ``buildNvmmaSharedLinearLayout``: the box's contiguous bits
    (fp4-padded: bit 3 is a padding bit, a zero basis), then its row bits (row ``r`` XORs
    ``vec * ((r / perPhase) % maxPhase)`` into the column), then further contiguous boxes and
    rows beyond 256 in Triton's growth order.

    Examples:
        >>> fam = nvmma_shared_2d()
        >>> fam.instance(lb=1, s=3, t=0, f=0, l0=3, l1=6).bases[0][1][6:]
        [[1, 8], [2, 16], [4, 32]]
    """
    a, n = _offset_basis()
    valid = _valid(max_elements_log2)
    return LayoutFamily(
        name="nvmma_shared_2d",
        params={
            "lb": (0, 3),
            "s": (0, 3),
            "t": (0, 1),
            "f": (0, 1),
            "l0": (0, max_elements_log2),
            "l1": (0, max_elements_log2),
        },
        constraint=valid if constraint is None else f"({valid}) and ({constraint})",
        in_dims={"offset": "l0 + l1 + f"},
        out_dims={"dim0": "l0", "dim1": "l1"},
        bases={
            "offset": {"dim0": f"({a} if t == 1 else {n})", "dim1": f"({n} if t == 1 else {a})"}
        },
    )


def _offset_basis() -> tuple[str, str]:
    """Basis ``i`` of ``offset`` as formulas of its coordinates ``(a, n)``: along the
    contiguous dim and along the other (see :func:`nvmma_shared_2d`)."""
    i = BIT
    j = f"max({i} - {_PA}, 0)"  # row bit index inside the box
    k = f"max({i} - {_PA} - {_BN}, 0)"  # index among the bits beyond the box
    # fp4-padded: offset bits 0-2 are columns 1, 2, 4; bit 3 is padding; bits 4-6 columns 8-32
    padded = f"((1 << {i}) if {i} < 3 else (0 if {i} == 3 else (1 << max({i} - 1, 0))))"
    contig_in_box = f"((1 << {i}) if f == 0 else {padded})"
    swizzle = f"((((1 << {j}) >> {_LP}) & ((1 << {_LM}) - 1)) << {_LV})"
    a_after = (
        f"(((1 << ({_BA} + {k})) if {k} < {_EA} else 0) if {_A_FIRST} "
        f"else (0 if {k} < {_EN} else (1 << ({_BA} + max({k} - {_EN}, 0)))))"
    )
    n_after = (
        f"((0 if {k} < {_EA} else (1 << ({_BN} + max({k} - {_EA}, 0)))) if {_A_FIRST} "
        f"else ((1 << ({_BN} + {k})) if {k} < {_EN} else 0))"
    )
    a = f"({contig_in_box} if {i} < {_PA} else ({swizzle} if {i} < {_PA} + {_BN} else {a_after}))"
    n = f"(0 if {i} < {_PA} else ((1 << {j}) if {i} < {_PA} + {_BN} else {n_after}))"
    return a, n


def family_encoding(params: Mapping[str, int]) -> tuple[dict[str, object], list[int]]:
    """The converter arguments and the shape of one family member."""
    kwargs: dict[str, object] = {
        "swizzle_byte_width": 16 << params["s"] if params["s"] else 0,
        "element_bitwidth": 8 << params["lb"],
        "transposed": params["t"] == 1,
        "fp4_padded": params["f"] == 1,
    }
    return kwargs, [1 << params["l0"], 1 << params["l1"]]


# The closed form of the whole family, read off the offset's bit fields: in-box contiguous
# part (fp4: 3 real bits, a padding bit, 3 real bits), in-box row, then the outer part split
# into further boxes and rows beyond 256 in Triton's growth order.
_P_IN = f"(offset & ((1 << {_PA}) - 1))"
_A_IN = f"({_P_IN} if f == 0 else (({_P_IN} & 7) | (({_P_IN} >> 4) << 3)))"
_N_IN = f"((offset >> {_PA}) & ((1 << {_BN}) - 1))"
_REST = f"(offset >> ({_PA} + {_BN}))"
_A_HI = f"(({_REST} & ((1 << {_EA}) - 1)) if {_A_FIRST} else ({_REST} >> {_EN}))"
_N_HI = f"(({_REST} >> {_EA}) if {_A_FIRST} else ({_REST} & ((1 << {_EN}) - 1)))"
_A = f"(({_A_HI} << {_BA}) | ({_A_IN} ^ ((({_N_IN} >> {_LP}) & ((1 << {_LM}) - 1)) << {_LV})))"
_N = f"(({_N_HI} << {_BN}) | {_N_IN})"
NVMMA_FAMILY_REFERENCE: dict[str, str] = {
    "dim0": f"({_A} if t == 1 else {_N})",
    "dim1": f"({_N} if t == 1 else {_A})",
}

#: REFERENCES.md section 3 literally, in the family's parameters (lbc = 4 + s - lb, R = 2**l0,
#: perPhase = 2**(3 - s), maxPhase = 2**s, vec = 2**(4 - lb)): holds for every swizzled,
#: non-transposed, unpadded member (``SECTION3_CONSTRAINT``), any number of rows and boxes.
NVMMA_FAMILY_SECTION3: dict[str, str] = {
    out: text.replace("lbc", "(4 + s - lb)")
    .replace("lr", "l0")
    .replace("lp", "(3 - s)")
    .replace("lm", "s")
    .replace("lv", "(4 - lb)")
    for out, text in NVMMA_REFERENCE.items()
}
SECTION3_CONSTRAINT = "s > 0 and t == 0 and f == 0"
#: The transposed section-3 form holds while the rows fit one box (R <= 256).
NVMMA_FAMILY_SECTION3_TRANSPOSED: dict[str, str] = {
    out: text.replace("lbc", "(4 + s - lb)")
    .replace("lr", "l1")
    .replace("lp", "(3 - s)")
    .replace("lm", "s")
    .replace("lv", "(4 - lb)")
    for out, text in NVMMA_REFERENCE_TRANSPOSED.items()
}
SECTION3_TRANSPOSED_CONSTRAINT = "s > 0 and t == 1 and f == 0 and l1 <= 8"


@dataclass(frozen=True)
class FamilyProof:
    """``prove_family_equal(nvmma_shared_2d(constraint=constraint), reference)`` is proved."""

    name: str
    reference: Mapping[str, str]
    constraint: str | None = None
    note: str = field(default="", compare=False)


FAMILY_PROOFS = (
    FamilyProof("all members", NVMMA_FAMILY_REFERENCE, None, "every legal 2-D member"),
    FamilyProof("section 3", NVMMA_FAMILY_SECTION3, SECTION3_CONSTRAINT, "non-transposed"),
    FamilyProof(
        "section 3, transposed",
        NVMMA_FAMILY_SECTION3_TRANSPOSED,
        SECTION3_TRANSPOSED_CONSTRAINT,
        "rows in one box",
    ),
)


# ---------------------------------------------------------------------- the library

_SOURCE = "specs/nvmma_shared.py"
_CUTE_FORMS = ("forward", "forward on byte addresses", "inverse")


def layout(swizzle: int, transposed: bool, bitwidth: int, shape: Sequence[int]) -> LinearLayout:
    """Triton's converter: ``NVMMASharedLayout(swizzle, bitwidth, rank 2, transposed)`` on
    ``shape``."""
    encoding = NVMMASharedLayout(swizzle, bitwidth, 2, transposed, False)
    return encoding.to_linear_layout(list(shape))


def cute_layout(ob: CuteObligation, inverse: bool = False) -> LinearLayout:
    """``ob``'s layout without the block dim (offset -> element), or its inverse."""
    full = layout(ob.swizzle, ob.transposed, ob.bitwidth, ob.shape)
    offsets = full.sublayout(["offset"], full.get_out_dim_names())
    return offsets.invert() if inverse else offsets


def _cute(ob: CuteObligation, form: str) -> LibraryObligation:
    inverse = form == "inverse"
    reference = ob.inverse() if inverse else ob.forward(byte_addresses=form != "forward")
    return claims.equivalence(
        f"nvmma_shared: {ob.name} on {list(ob.shape)} == CuTe swizzle ({form})",
        _SOURCE,
        Call(cute_layout, ob, inverse),
        reference,
        method="linear",
    )


def _controls() -> list[LibraryObligation]:
    """The negative controls, each on the instance the tests use."""
    ob = CUTE_ON_ELEMENTS_16B  # CUTLASS's byte-address swizzle on element addresses
    address = cute_swizzle_text("offset", *CUTE_BYTE_SWIZZLES[ob.swizzle])
    box_bits = _log2(ob.box_cols)
    on_elements = {"dim0": f"{address} >> {box_bits}", "dim1": f"{address} & {ob.box_cols - 1}"}
    params = nvmma_params(128, 16, 64)
    wide = {k: v for k, v in nvmma_params(64, 16, 64).items() if k in ("lp", "lm", "lv")}
    controls: list[tuple[str, str, Any, dict[str, str], dict[str, int] | None]] = [
        (
            "CUTE_ON_ELEMENTS_16B",
            "128 B 16-bit [8, 64]",
            (ob.swizzle, ob.transposed, ob.bitwidth, ob.shape),
            on_elements,
            None,
        ),
        (  # perPhase doubled
            "NVMMA_PHASE_OFF_BY_ONE",
            "128 B 16-bit [64, 64]",
            (128, False, 16, (64, 64)),
            NVMMA_PHASE_OFF_BY_ONE,
            params,
        ),
        (  # two boxes read as one row of 128 columns
            "NVMMA_WIDE_ROWS",
            "64 B 16-bit [64, 128]",
            (64, False, 16, (64, 128)),
            NVMMA_WIDE_ROWS,
            {**wide, "lc": 7},
        ),
        (  # the non-transposed closed form on a transposed layout
            "NVMMA_REFERENCE",
            "128 B 16-bit transposed [64, 64]",
            (128, True, 16, (64, 64)),
            NVMMA_REFERENCE,
            params,
        ),
    ]
    return [
        claims.equivalence(
            f"nvmma_shared: {instance} vs {control} (negative control)",
            _SOURCE,
            Call(layout, *encoding),
            formulas,
            expect=Status.REFUTED,
            params=options,
        )
        for control, instance, encoding, formulas, options in controls
    ]


def _library() -> tuple[LibraryObligation, ...]:
    result = [
        claims.equivalence(
            f"nvmma_shared: {ob.name} == closed form",
            _SOURCE,
            Call(layout, ob.swizzle, ob.transposed, ob.bitwidth, ob.shape),
            ob.reference,
            params=ob.params,
        )
        for ob in CLOSED_FORM_OBLIGATIONS
    ]
    result += [_cute(ob, form) for ob in CUTE_OBLIGATIONS for form in _CUTE_FORMS]
    result += _controls()
    result += [
        claims.family(
            f"nvmma_shared: 2-D family, {proof.name} ({proof.note}) == closed form",
            _SOURCE,
            Call(nvmma_shared_2d, constraint=proof.constraint),
            proof.reference,
        )
        for proof in FAMILY_PROOFS
    ]
    return tuple(result)


#: The module's obligations in the built-in library: the closed-form instances, each CuTe
#: obligation three ways, the negative controls, then the family proofs.
LIBRARY = _library()
