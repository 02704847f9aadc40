"""Tests of shared-memory accesses at an affine offset (llverify.shared_memory.offsets) and of
Triton's ldmatrix row rule on subslices (triton#9606, #10066) in the ``shared-access`` audit.

Hand-computed cases: an XOR that splits 128-bit vectors into conflicting 64-bit ones, a
sub-word add that creates a conflict, offsets that break or keep ldmatrix rows.  Properties:
an XOR, or an add of whole words, changes no conflict count (checked against the brute-force
simulator on the shifted addresses).  Triton 3.9: its lowering of subslice loads emits
ldmatrix and vector widths exactly as the audit says.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from cases.triton import require_triton
from llverify import LinearLayout
from llverify.audit.analyze import audit
from llverify.audit.memdesc_views import subslice_mask
from llverify.encodings import to_linear_layout
from llverify.errors import LayoutError, LayoutTypeError
from llverify.hardware import BANK_MODELS
from llverify.proof.verdict import Status
from llverify.shared_memory.access import (
    analyse_access,
    simulate_bank_conflicts,
    warp_bank_conflicts,
)
from llverify.shared_memory.offsets import (
    AffineOffset,
    RowRule,
    analyse_offset_access,
    offset_access_analysis,
)
from llverify.shared_memory.wavefronts import access_addresses, matrix_wavefronts

NV = BANK_MODELS["nvidia"]


def _reg(registers: list[int], lanes: list[int], warps: list[int] | None = None) -> LinearLayout:
    return LinearLayout.from_bases(
        [
            ("register", [[r] for r in registers]),
            ("lane", [[la] for la in lanes]),
            ("warp", [[w] for w in warps or []]),
        ],
        ["dim0"],
    )


def _identity(size: int) -> LinearLayout:
    return LinearLayout.identity_1d(size, "offset", "dim0")


# -- hand-computed cases ------------------------------------------------------------------

#: lane l holds the 8 contiguous f16 elements 8l..8l+7: one 128-bit vector per lane
VEC8 = _reg([1, 2, 4], [8, 16, 32, 64, 128])


def test_xor_inside_a_vector_halves_it_and_adds_a_conflict() -> None:
    """XOR 4 (8 bytes) moves half of each 16-byte vector: 64-bit vectors remain, a pass is
    16 lanes at a 16-byte stride, so lanes l and l + 8 hit the same banks in other words:
    1 conflict, 2 instructions x 2 passes x 2 wavefronts = 8 (against 1 x 4 x 1 = 4)."""
    a = offset_access_analysis(VEC8, _identity(256), [256], 16, AffineOffset(xor=4))
    assert (a.unshifted.elems_per_vec, a.analysis.elems_per_vec) == (8, 4)
    assert (a.unshifted.hardware_conflicts, a.analysis.hardware_conflicts) == (0, 1)
    assert (a.unshifted.store_wavefronts, a.analysis.store_wavefronts) == (4, 8)
    assert a.vector_split and a.analysis.bank_conflicts.triton == 1
    # replay: the first instruction's 64-bit vectors start at element (8 l) ^ 4 = 8 l + 4
    replay = warp_bank_conflicts([(8 * lane + 4) // 4 for lane in range(32)], 64)
    assert replay.conflicts == 1 and replay.colliding_lanes[:2] == (0, 8)


def test_whole_vector_offsets_keep_everything() -> None:
    """Negative control: XOR or add of a whole vector (8 elements) changes nothing."""
    for offset in (AffineOffset(xor=8), AffineOffset(add=8), AffineOffset(xor=64, add=24)):
        a = offset_access_analysis(VEC8, _identity(256), [256], 16, offset)
        assert not a.vector_split
        assert a.analysis.hardware_conflicts == a.unshifted.hardware_conflicts == 0
        assert a.analysis.store_wavefronts == a.unshifted.store_wavefronts == 4


#: f16 scalars; in warp 0, instruction 0, lanes 0..7, 8..15, 16..23, 24..31 hold elements
#: 0..7, 32..39, 120..127, 88..95: words 0..3, 16..19, 60..63, 44..47, all in distinct banks
SUBWORD = LinearLayout.from_bases(
    [("register", [[64]]), ("lane", [[1], [2], [4], [32], [127]]), ("warp", [[16]])], ["dim0"]
)


def test_an_add_inside_a_word_creates_a_conflict() -> None:
    """Adding one f16 element regroups elements into words: 1..8, 33..40, 121..128, 89..96
    are words 0..4, 16..20, 60..64, 44..48, and bank 0 now holds words 0 and 64, bank 16
    words 16 and 48: 1 conflict where there was none (every pass alike).  Triton only XORs:
    no Triton count."""
    a = offset_access_analysis(SUBWORD, _identity(128), [128], 16, AffineOffset(add=1))
    assert a.unshifted.hardware_conflicts == 0
    assert a.analysis.hardware_conflicts == 1 and a.analysis.homogeneous
    bank = a.analysis.bank_conflicts
    assert bank.source == "simulator" and bank.triton is None
    assert "inside a 32-bit word" in bank.reason
    addresses = access_addresses(a.unshifted.conversion)[0, :, 0]
    expected = [*range(8), *range(32, 40), *range(127, 119, -1), *range(95, 87, -1)]
    assert addresses.tolist() == expected
    assert warp_bank_conflicts([int(x) for x in addresses], 16).conflicts == 0
    assert warp_bank_conflicts([int(x) + 1 for x in addresses], 16).conflicts == 1
    # negative controls: an XOR by 1, or an add of a whole word, keeps 0 conflicts
    for offset in (AffineOffset(xor=1), AffineOffset(add=2)):
        kept = offset_access_analysis(SUBWORD, _identity(128), [128], 16, offset)
        assert kept.analysis.hardware_conflicts == 0 and kept.analysis.source == "algebra"


#: 16-bit ldmatrix tile: register -> 1, lanes 0, 1 -> 2, 4 (one 16-byte row), rows above
LDMATRIX = _reg([1, 64], [2, 4, 8, 16, 32])


@pytest.mark.parametrize(
    "offset, keeps",
    [
        (AffineOffset(xor=8), True),  # a whole row
        (AffineOffset(add=8), True),
        (AffineOffset(xor=128, add=16), True),
        (AffineOffset(xor=4), False),  # half a row: bit 2
        (AffineOffset(xor=2), False),
        (AffineOffset(add=4), False),  # a row 8-byte aligned only
        (AffineOffset(add=2), False),
    ],
)
def test_offsets_keep_or_break_ldmatrix_rows(offset: AffineOffset, keeps: bool) -> None:
    a = offset_access_analysis(LDMATRIX, _identity(128), [128], 16, offset)
    assert a.unshifted.ldmatrix
    assert a.analysis.ldmatrix is keeps and a.ldmatrix_lost is not keeps


def test_ldmatrix_wavefronts_are_invariant_under_row_offsets() -> None:
    """ldmatrix costs distinct 16-byte rows per group of four banks: a row-aligned XOR or
    add permutes rows and groups, the count stays."""
    cvt = analyse_access(LDMATRIX, _identity(128), 16, NV).conversion
    addresses = access_addresses(cvt)
    base = matrix_wavefronts(addresses, 16, 8)
    for xor, add in ((8, 0), (40, 0), (0, 8), (0, 24), (8, 16)):
        assert matrix_wavefronts((addresses ^ xor) + add, 16, 8) == base


# -- the sm_90 wavefront prediction at an offset -------------------------------------------


def test_predicted_wavefronts_at_an_offset() -> None:
    """predict_wavefronts: the XOR that splits 128-bit vectors doubles the load's
    wavefronts (1 x 4 -> 2 x 2 x 2); the sub-word add doubles them (4 instructions of one
    pass each -> 2 wavefronts each); ldmatrix survives a row-aligned XOR with its count and
    falls back to ld.shared at XOR 4; a forced ldmatrix is refused."""
    from llverify.shared_memory.predict import predict_wavefronts

    def predict(reg: LinearLayout, size: int, bits: int, offset: AffineOffset | int):
        return predict_wavefronts(reg, _identity(size), [size], bits, "load", offset=offset)

    assert (predict(VEC8, 256, 16, 0).wavefronts, predict(VEC8, 256, 16, 4).wavefronts) == (4, 8)
    assert predict(VEC8, 256, 16, 4).instruction == "ld.shared (64 bits per lane)"
    shifted = predict(SUBWORD, 128, 16, AffineOffset(add=1))
    assert (predict(SUBWORD, 128, 16, 0).wavefronts, shifted.wavefronts) == (4, 8)
    assert predict(SUBWORD, 128, 16, AffineOffset(add=2)).wavefronts == 4  # a whole word
    plain, row = predict(LDMATRIX, 128, 16, 0), predict(LDMATRIX, 128, 16, 8)
    assert plain.instruction == row.instruction == "ldmatrix.x2"
    assert plain.wavefronts == row.wavefronts
    assert predict(LDMATRIX, 128, 16, 4).instruction.startswith("ld.shared")
    with pytest.raises(LayoutError, match="Argument 'offset' is AffineOffset\\(xor=4"):
        predict_wavefronts(LDMATRIX, _identity(128), [128], 16, "load", instruction="matrix",
                           offset=4)  # fmt: skip
    with pytest.raises(LayoutTypeError, match="Argument 'offset'"):
        predict_wavefronts(VEC8, _identity(256), [256], 16, "load", offset=1.0)  # type: ignore[arg-type]


# -- the invariance, checked against the brute force --------------------------------------

CASES = [
    (
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
        "order = [1, 0]}>",
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
        [32, 64],
        16,
    ),
    (
        "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
        "order = [0, 1]}>",
        "#ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
        [64, 32],
        32,
    ),
    (
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], "
        "order = [1, 0]}>",
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
        [64, 16],
        8,
    ),
]


@pytest.mark.parametrize("reg, shared, shape, bits", CASES)
def test_xor_and_whole_word_adds_keep_the_count(
    reg: str, shared: str, shape: list[int], bits: int
) -> None:
    """For every XOR (and word-aligned add) below the tensor: the analysis' count equals
    the brute-force simulator's on the shifted addresses, and the unshifted count whenever
    the vector is kept; a sub-word add is simulated."""
    size = int(np.prod(shape))
    rng = np.random.default_rng(7)
    for xor, add in [(0, 0), *((int(x), 0) for x in rng.integers(1, size, 12))] + [
        (0, 32 // bits),
        (0, 3 * 32 // bits),
        (5, 64 // bits),
        (0, 1),  # fmt: skip
    ]:
        a = offset_access_analysis(reg, shared, shape, bits, AffineOffset(xor, add))
        table = (np.arange(size) ^ xor) + add
        brute = simulate_bank_conflicts(
            a.analysis.conversion, a.analysis.elems_per_vec, bits, NV, address_map=table
        )
        assert a.analysis.hardware_conflicts == brute.conflicts, (xor, add)
        if not a.vector_split and (add * bits) % 32 == 0:
            assert a.analysis.hardware_conflicts == a.unshifted.hardware_conflicts
            assert a.analysis.triton_conflicts == a.unshifted.triton_conflicts


# -- Triton's row rule ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "mask, bits, legal, before",
    [
        (48, 16, True, True),  # columns 16..63 of a 64-wide f16 swizzled buffer
        (4096, 16, True, True),
        (4, 16, False, True),  # bit 2 of an 8-element row: the old rule tested bit 1 only
        (2, 16, False, False),
        (6, 16, False, False),
        (4, 8, False, True),  # 16-element rows: the old rule tested bits 0, 1
        (8, 8, False, True),
        (3, 8, False, False),
        (2, 32, False, True),  # 4-element rows: the old rule tested bit 0
        (1, 32, False, False),
        (4, 32, True, True),
    ],
)
def test_row_rule(mask: int, bits: int, legal: bool, before: bool) -> None:
    rule = RowRule(mask, bits)
    assert rule.legal is legal and rule.triton_before_10066 is before
    assert rule.missed_before_10066 is (before and not legal)
    assert rule.touched == mask & (128 // bits - 1)


def test_old_rule_slack_is_unreachable_on_verified_subslices() -> None:
    """Where the pre-#10066 rule accepts a mask that touches a row, some touched bit is the
    offset of no element of the view, so no conversion of the view fills that row: the
    tile does not divide and ldmatrix is refused anyway.  Checked on every power-of-two
    view of two swizzled f16 buffers that Triton's verifier accepts."""
    from llverify.audit.context import AuditContext
    from llverify.ttgir import parse_module

    slack = 0
    for enc in (
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
        "#ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
    ):
        inverse = to_linear_layout(enc, [64, 64])
        offsets = np.zeros((64, 64), dtype=np.int64)
        for o in range(64 * 64):
            at = inverse.apply({"offset": o, "block": 0})
            offsets[at["dim0"], at["dim1"]] = o
        for rows in (1, 2, 4, 8, 16, 32, 64):
            for cols in (1, 2, 4, 8, 16, 32, 64):
                if (rows, cols) == (64, 64):
                    continue
                text = (
                    f"#s = {enc}\n#smem = #ttg.shared_memory\nmodule {{\n  %1 = "
                    f"ttg.memdesc_subslice %0[0, 0] : !ttg.memdesc<64x64xf16, #s, #smem> -> "
                    f"!ttg.memdesc<{rows}x{cols}xf16, #s, #smem, 64x64>\n}}\n"
                )
                module = parse_module(text)
                ctx = AuditContext(module, "nvidia", timeout_s=10.0)
                mask = subslice_mask(ctx, module.ops[0].types[1])
                moved = [int(offsets[r, 0]) for r in (rows, 2 * rows, 4 * rows) if r < 64]
                moved += [int(offsets[0, c]) for c in (cols, 2 * cols, 4 * cols) if c < 64]
                if any(m & (m - 1) for m in moved):
                    continue  # Triton's verifier refuses a split along the swizzling pattern
                rule = RowRule(mask, 16)
                if not rule.missed_before_10066:
                    continue
                slack += 1
                view = set(offsets[:rows, :cols].ravel().tolist())
                bits = [1 << i for i in range(3) if rule.touched >> i & 1]
                assert any(b not in view for b in bits), (enc, rows, cols)
    assert slack > 0


# -- the audit -----------------------------------------------------------------------------

HEAD = """#s = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#b2 = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#b8 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
    %0 = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #s, #smem, mutable>
    %1 = ttg.memdesc_subslice %0[OFF] : !ttg.memdesc<128x64xf16, #s, #smem, mutable> -> !ttg.memdesc<VIEWxf16, #s, #smem, mutable, 128x64>
BODY
    tt.return
  }
}
"""  # noqa: E501

LOAD = """    %2 = ttg.local_load %1 : !ttg.memdesc<VIEWxf16, #s, #smem, mutable, 128x64> -> tensor<VIEWxf16, #L>
    %3 = tt.splat %p : !tt.ptr<f16> -> tensor<VIEWx!tt.ptr<f16>, #L>
    tt.store %3, %2 : tensor<VIEWx!tt.ptr<f16>, #L>"""  # noqa: E501
STORE = """    %3 = tt.splat %p : !tt.ptr<f16> -> tensor<VIEWx!tt.ptr<f16>, #L>
    %2 = tt.load %3 : tensor<VIEWx!tt.ptr<f16>, #L>
    ttg.local_store %2, %1 : tensor<VIEWxf16, #L> -> !ttg.memdesc<VIEWxf16, #s, #smem, mutable, 128x64>"""  # noqa: E501

#: (view, offsets, register layout, access bits, ldmatrix, row rule legal)
SUBSLICES = [
    ("128x16", "0, 16", "#b2", 32, True, True),
    ("128x8", "0, 8", "#b2", 32, True, True),
    ("64x64", "64, 0", "#b2", 32, True, True),
    ("128x16", "0, 16", "#b8", 128, False, True),
    ("128x4", "0, 4", "#b2", 32, False, False),  # mask 60 touches bit 2 of a row
    ("128x4", "0, 4", "#b8", 64, False, False),
]


def _module(view: str, offsets: str, layout: str, store: bool = False) -> str:
    text = HEAD.replace("BODY", STORE if store else LOAD)
    return text.replace("VIEW", view).replace("OFF", offsets).replace("#L", layout)


@pytest.mark.parametrize("view, offsets, layout, bits, ldmatrix, legal", SUBSLICES)
def test_audit_records_the_row_rule(
    view: str, offsets: str, layout: str, bits: int, ldmatrix: bool, legal: bool
) -> None:
    (f,) = [f for f in audit(_module(view, offsets, layout)).findings if f.rule == "shared-access"]
    rows = f.data["subslice"]["ldmatrix_rows"]
    assert (f.data["access_bits"], f.data["ldmatrix"], rows["legal"]) == (bits, ldmatrix, legal)
    assert rows["row_elements"] == 8 and rows["triton_before_10066"]
    # the 128x4 views: the old rule would have accepted, but no row of the view is whole
    assert not rows.get("ldmatrix_refused", False)
    assert ("ldmatrix applies" in f.summary) is ldmatrix


def test_view_layout_states_the_old_rule_slack() -> None:
    """The view-layout finding of a subslice records the row rule: on the verified 128x4
    view the old rule's slack (bit 2) is unreachable, no view element sits at offset 4; on a
    split along the swizzling pattern (vec 4, maxPhase 2: row 1 is offset 64 ^ 4 = 68), which
    Triton's verifier refuses, the whole row 0 is in the view and the slack is reachable."""
    (f,) = [f for f in audit(_module("128x4", "0, 4", "#b2")).findings if f.rule == "view-layout"]
    assert f.status is Status.PROVED
    assert f.data["ldmatrix_rows"] == {
        "row_elements": 8,
        "touched_bits": 4,
        "legal": False,
        "triton_before_10066": True,
        "old_rule_slack_reachable": False,
    }
    enc = "#ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 2, order = [1, 0]}>"
    text = (
        f"#s = {enc}\n#smem = #ttg.shared_memory\nmodule {{\n  %1 = ttg.memdesc_subslice "
        "%0[1, 0] : !ttg.memdesc<2x64xf16, #s, #smem> -> !ttg.memdesc<1x64xf16, #s, #smem, "
        "2x64>\n}\n"
    )
    (g,) = [f for f in audit(text).findings if f.rule == "view-layout"]
    assert g.status is Status.ERROR and "swizzling pattern" in g.summary
    assert g.data["mask"] == 68
    assert g.data["ldmatrix_rows"]["old_rule_slack_reachable"] is True


@pytest.mark.triton
def test_subslice_accesses_against_triton() -> None:
    """Triton 3.9 lowers each subslice load (store) with ldmatrix (stmatrix) exactly where
    the audit says, and otherwise with ld/st.shared vectors of the audit's width."""
    require_triton()
    from llverify.triton.compile import compile_ttgir

    for view, offsets, layout, bits, matrix, _ in SUBSLICES:
        for store in (False, True):
            text = _module(view, offsets, layout, store)
            (f,) = [f for f in audit(text).findings if f.rule == "shared-access"]
            assert (f.data["access_bits"], f.data["ldmatrix"]) == (bits, matrix)
            llir = compile_ttgir(text, "cuda:90", until="llir").llir
            op = "stmatrix" if store else "ldmatrix"
            assert bool(re.search(rf"{op}\.sync\.aligned\.m8n8\.x4\.b16", llir)) is matrix
            if not matrix:
                kind = "store" if store else "load"
                found = re.findall(rf"{kind} <(\d+) x i(\d+)>[^\n]*ptr addrspace\(3\)", llir)
                widths = {int(n) * int(k) for n, k in found}
                assert widths == {bits}, (view, layout, store, widths)


# -- bad arguments -------------------------------------------------------------------------


def test_bad_arguments_name_the_argument() -> None:
    with pytest.raises(LayoutTypeError, match="'offset.xor'"):
        AffineOffset(xor=1.5)  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match="'offset.add' must be an element offset >= 0"):
        AffineOffset(add=-8)
    with pytest.raises(LayoutTypeError, match="Argument 'offset' must be an AffineOffset"):
        offset_access_analysis(VEC8, _identity(256), [256], 16, [4])  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match="'element_bits' must be 8, 16 or 32"):
        RowRule(4, 64)
    with pytest.raises(LayoutError, match="'mask' must be a bit mask >= 0"):
        RowRule(-1, 16)
    padded = "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [16, 32]}>"
    reg = (
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], "
        "order = [1, 0]}>"
    )
    with pytest.raises(LayoutError, match="'offset' is not modelled on a padded"):
        offset_access_analysis(reg, padded, [16, 32], 16, 64)
    # an int is an XOR, and offset 0 is the plain analysis
    a = analyse_offset_access(VEC8, _identity(256), 16, NV, AffineOffset())
    assert a.analysis is a.unshifted
    assert offset_access_analysis(VEC8, _identity(256), [256], 16, 8).offset == AffineOffset(8)


# -- Triton's additive strides avoid the offset bits ---------------------------------------


def _emitted_with_offset(model, register: int, lane: int, warp: int, off: int) -> int:  # type: ignore[no-untyped-def]
    """Triton's emitted byte address with the view's offset XORed into the base:
    ``((L ^ off ^ X) + A) ^ vector``."""
    base = model.emitted(0, lane, warp) ^ off
    xor_part = additive = vector = 0
    for i, b in enumerate(model.register):
        if register >> i & 1:
            if i in model.vector:
                vector ^= b
            elif i in model.additive_index:
                additive ^= b
            else:
                xor_part ^= b
    return ((base ^ xor_part) + additive) ^ vector


def test_additive_strides_avoid_the_offset_mask() -> None:
    """lowering_of(mask=...) is actionAdditiveStrides' maskSpanOffsets: a register stride
    meeting the mask stays XOR-applied.  The lowering docstring's f32 pair carries (384 +
    132); with the mask covering element 64 the stride 384 (elements 96) is XOR-applied and
    the address is right for every input at that offset, replayed exhaustively.  The other
    way: strides 96 and 64 (elements) are both additive without a mask; a mask of 32 makes
    96 XOR-applied, and 64, still additive, carries into it."""
    from llverify.shared_memory.lowering import lowering_of

    reg = _reg([32, 64], [1, 2, 4, 8, 16])
    shared = LinearLayout.from_bases([("offset", [[1], [2], [4], [8], [16], [33], [97]])], ["dim0"])
    base = offset_access_analysis(reg, shared, [128], 32, 0).analysis
    assert base.triton_miscompile == {"register": 3, "lane": 0, "warp": 0}
    shifted = offset_access_analysis(reg, shared, [128], 32, 64).analysis
    assert shifted.triton_miscompile is None
    model = lowering_of(base.conversion, base.elems_per_vec, 32, mask=64)
    assert model.additive == ()
    for register in range(4):
        for lane in range(32):
            right = model.right(register, lane, 0) ^ 256
            assert _emitted_with_offset(model, register, lane, 0, 256) == right
    cvt = LinearLayout.from_bases(
        [("register", [[96], [64]]), ("lane", [[1], [2], [4], [8], [16]]), ("warp", [])],
        ["offset"],
    )
    assert lowering_of(cvt, 1, 16).carry_counterexample() is None
    carry = lowering_of(cvt, 1, 16, mask=32)
    assert carry.additive == (128,) and carry.xor_applied == (192,)
    assert carry.carry_counterexample() == {"register": 3, "lane": 0, "warp": 0}
    assert carry.emitted(3, 0, 0) == 192 + 128 != carry.right(3, 0, 0) == 64


# -- the command line ----------------------------------------------------------------------


def test_bank_conflicts_command_at_an_offset() -> None:
    """``llverify bank-conflicts --offset-xor 4``: the ROW example's 128-bit vectors halved,
    1 conflict, twice the wavefronts of offset 0; --offset-add 8 (a whole vector) keeps
    them; a negative offset is refused naming the option."""
    import json
    import subprocess
    import sys

    row = (
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
        "order = [1, 0]}>"
    )
    swizzled = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        args = ["bank-conflicts", row, swizzled, "--shape", "128x64", "--dtype", "f16", *extra]
        return subprocess.run(
            [sys.executable, "-m", "llverify.cli", *args], capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip

    out = json.loads(run("--offset-xor", "4", "--json").stdout)
    assert (out["access_bits"], out["conflicts"], out["wavefronts"]) == (64, 1, 256)
    assert out["offset"]["vector_split"] and out["offset"]["unshifted_wavefronts"] == 128
    assert out["offset"]["row_rule"]["legal"] is False
    assert out["sm90"]["load"]["instruction"] == "ld.shared (64 bits per lane)"
    kept = json.loads(run("--offset-add", "8", "--json").stdout)
    assert (kept["access_bits"], kept["conflicts"], kept["wavefronts"]) == (128, 0, 128)
    assert "offset" in kept and not kept["offset"]["vector_split"]
    plain = json.loads(run("--json").stdout)
    assert "offset" not in plain and plain["wavefronts"] == 128
    bad = run("--offset-xor", "-4")
    assert bad.returncode == 2 and "--offset-xor" in bad.stderr
