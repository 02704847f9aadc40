"""Global-memory coalescing (llverify.global_memory): hand-computed cases, a differential check
against a plain-Python enumeration of every address, the synthesiser's certificates, negative
controls and bad input."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from llverify import LinearLayout
from llverify.encodings import BlockedLayout
from llverify.errors import LayoutError, LayoutTypeError, NotInvertibleError
from llverify.global_memory import best_register_layout, coalescing, global_offsets
from llverify.global_memory.synthesize import _candidates
from llverify.proof.verdict import Status


def blocked(spt, tpw, wpc, order, shape):
    return BlockedLayout(spt, tpw, wpc, order).to_linear_layout(shape)


# ---------------------------------------------------------------- hand-computed cases


def test_row_major_blocked_is_fully_coalesced():
    # f32, 4 per thread along the row, 8 lanes a row: each request reads 4 whole 128-byte
    # rows (rows are 32 elements = 128 bytes apart): 16 sectors, 4 lines, nothing wasted.
    c = coalescing(blocked([1, 4], [4, 8], [4, 1], [1, 0], [16, 32]), [32, 1], element_bits=32)
    assert (c.vector_width, c.vector_bytes, c.requests) == (4, 16, 4)
    assert (c.sectors, c.lines, c.sectors_per_request, c.lines_per_request) == (64, 16, 16, 4)
    assert c.efficiency == 1.0 and c.coalesced and c.ideal_sectors == 64
    assert c.bytes_requested == c.bytes_distinct == c.bytes_moved == 16 * 32 * 4


def test_transposed_access_touches_32_sectors_per_request():
    # Lanes walk dim1, which is 1024 elements apart in memory: every lane its own sector.
    layout = blocked([1, 1], [1, 32], [4, 1], [1, 0], [32, 32])
    c = coalescing(layout, [1, 1024], element_bits=32)
    assert c.vector_width == 1  # registers are 4 rows apart (warps take the rows between)
    assert c.requests == 4 * 8 and c.sectors_per_request == 32 and c.max_sectors_per_request == 32
    assert c.lines_per_request == 32 and c.efficiency == 4 * 32 / (32 * 32)
    assert not c.coalesced and c.histogram() == {32: 32}
    assert "register 1 of lane 0" in c.vector_limit


def test_vector_width_8_for_f16_with_size_per_thread_8():
    c = coalescing(
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
        "order = [1, 0]}>",
        [64, 1],
        [16, 64],
        element_bits=16,
    )
    assert (c.vector_width, c.vector_bytes) == (8, 16)
    assert "exceed the 16-byte vector maximum" in c.vector_limit
    assert (c.requests, c.sectors_per_request, c.lines_per_request, c.efficiency) == (4, 16, 4, 1)


def test_vector_width_is_capped_at_16_bytes():
    c = coalescing(blocked([16], [32], [1], [0], [512]), [1], element_bits=16)
    assert c.vector_width == 8 and c.requests == 2
    # two vectors per lane, lanes 32 bytes apart: each request reads half of 32 sectors
    assert c.sectors_per_request == 32 and c.efficiency == 0.5 and c.ideal_sectors == 2 * 16


def test_broadcast_registers_are_dropped_and_lane_copies_add_no_sector():
    # 8 lanes x 4 copies of an 8-element row: lanes 8..31 repeat lanes 0..7.
    reg = LinearLayout.from_bases(
        [("register", [[0], [1]]), ("lane", [[2], [4], [0], [0], [0]]), ("warp", [])], ["dim0"]
    )
    c = coalescing(reg, [1], element_bits=32)
    # the zero register basis is dropped: 2 registers, contiguous, one 8-byte vector
    assert (
        c.vector_width == 2 and c.requests == 1 and c.vector_limit == "a thread holds 2 registers"
    )
    assert c.sectors == 1 and c.bytes_requested == 32 * 8 and c.bytes_distinct == 8 * 4


# ---------------------------------------------------------------- the global map's forms


def test_global_map_forms_agree():
    dims = [("dim0", 8), ("dim1", 4)]
    strides = global_offsets([4, 1], dims)
    table = global_offsets(np.arange(32).reshape(8, 4), dims)
    called = global_offsets(lambda i, j: 4 * i + j, dims)
    forward = LinearLayout.from_bases(
        [("dim0", [[4], [8], [16]]), ("dim1", [[1], [2]])], ["offset"]
    )
    memory = LinearLayout.from_bases(
        [("offset", [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]])], ["dim0", "dim1"]
    )
    for other in (table, called, global_offsets(forward, dims), global_offsets(memory, dims)):
        assert (other == strides).all()


def test_swizzled_global_map_through_a_linear_layout():
    # A GF(2) map that is not strided: offset = 4 * row + (col ^ row).
    memory = LinearLayout.from_bases([("offset", [[0, 1], [0, 2], [1, 1], [2, 2]])], ["d0", "d1"])
    offsets = global_offsets(memory, [("d0", 4), ("d1", 4)])
    assert offsets.tolist() == [[0, 1, 2, 3], [5, 4, 7, 6], [10, 11, 8, 9], [15, 14, 13, 12]]


# ---------------------------------------------------------------- differential check


def brute_force(layout: LinearLayout, offsets: np.ndarray, nbytes: int, base: int) -> dict:
    """The model by plain enumeration: each (block, warp, lane, register) slot's address."""
    sizes = {
        d: layout.get_in_dim_size(d) if layout.has_in_dim(d) else 1
        for d in ("register", "lane", "warp", "block")
    }
    regs = [r for r in range(sizes["register"])]
    live = [
        i for i in range(sizes["register"].bit_length() - 1) if any(layout.get_basis("register", i))
    ]
    regs = [sum(((k >> j) & 1) << bit for j, bit in enumerate(live)) for k in range(1 << len(live))]
    out_dims = layout.get_out_dim_names()

    def address(block, warp, lane, reg):
        point = {"register": reg, "lane": lane, "warp": warp, "block": block}
        coords = layout.apply({d: point[d] for d in layout.get_in_dim_names()})
        return base + nbytes * int(offsets[tuple(coords[d] for d in out_dims)])

    slots = {
        (b, w, ln): [address(b, w, ln, r) for r in regs]
        for b in range(sizes["block"])
        for w in range(sizes["warp"])
        for ln in range(sizes["lane"])
    }
    width = 1
    while 2 * width * nbytes <= 16 and 2 * width <= len(regs):
        v = 2 * width
        if not all(
            addrs[g + i] == addrs[g] + i * nbytes and addrs[g] % (v * nbytes) == 0
            for addrs in slots.values()
            for g in range(0, len(regs), v)
            for i in range(v)
        ):
            break
        width = v
    sectors = lines = distinct = requests = 0
    per_request = []
    for b in range(sizes["block"]):
        for w in range(sizes["warp"]):
            for g in range(0, len(regs), width):
                starts = [slots[b, w, ln][g] for ln in range(sizes["lane"])]
                touched = {a // 32 for s in starts for a in range(s, s + width * nbytes)}
                sectors += len(touched)
                per_request.append(len(touched))
                lines += len({a // 128 for s in starts for a in range(s, s + width * nbytes)})
                distinct += len({a for s in starts for a in range(s, s + width * nbytes)})
                requests += 1
    return {
        "vector_width": width,
        "sectors": sectors,
        "lines": lines,
        "bytes_distinct": distinct,
        "requests": requests,
        "per_request": per_request,
    }


def random_case(rng: random.Random):
    specs: list = []
    while not specs:  # a shape with at least one element per thread
        shape = [rng.choice([4, 8, 16, 32]), rng.choice([4, 8, 16, 32])]
        specs = list(_candidates(tuple(shape), 32, rng.choice([1, 2, 4])))
    layout = blocked(*rng.choice(specs), shape)
    kind = rng.choice(["strides", "padded", "table"])
    if kind == "strides":
        strides = [rng.choice([1, 2, 8, shape[1], 1000]), rng.choice([1, 3, shape[0], 64])]
        offsets = global_offsets(strides, list(zip(["dim0", "dim1"], shape)))
    elif kind == "padded":
        offsets = global_offsets(
            [shape[1] + rng.choice([1, 4, 8]), 1], list(zip(["dim0", "dim1"], shape))
        )
    else:  # any integer map: a random permutation of a padded range
        offsets = np.array(
            rng.sample(range(4 * shape[0] * shape[1]), shape[0] * shape[1]), dtype=np.int64
        ).reshape(shape)
    return layout, offsets


@pytest.mark.parametrize("seed", range(40))
def test_against_brute_force_enumeration(seed):
    rng = random.Random(seed)
    layout, offsets = random_case(rng)
    nbytes = rng.choice([1, 2, 4, 8, 16])
    base = nbytes * rng.choice([0, 0, 1, 3, 8])
    c = coalescing(layout, offsets, element_bits=8 * nbytes, base_address=base)
    expected = brute_force(layout, offsets, nbytes, base)
    got = {
        "vector_width": c.vector_width,
        "sectors": c.sectors,
        "lines": c.lines,
        "bytes_distinct": c.bytes_distinct,
        "requests": c.requests,
        "per_request": c.request_sectors.tolist(),
    }
    assert got == expected


# ---------------------------------------------------------------- negative controls


def test_misaligned_base_narrows_the_vector():
    layout = blocked([1, 8], [4, 8], [4, 1], [1, 0], [16, 64])
    aligned = coalescing(layout, [64, 1], element_bits=16)
    shifted = coalescing(layout, [64, 1], element_bits=16, base_address=4)
    assert aligned.vector_width == 8 and shifted.vector_width == 2
    assert "starts at byte 4, not a multiple of 8" in shifted.vector_limit
    # the 4-byte shift also pushes each 128-byte row over a sector and a line boundary
    assert shifted.sectors > aligned.sectors and shifted.lines > aligned.lines


def test_padded_rows_are_not_coalesced():
    layout = blocked([1, 1], [1, 32], [4, 1], [1, 0], [32, 32])
    c = coalescing(layout, [33, 1], element_bits=32)  # rows 132 bytes apart
    assert c.vector_width == 1 and c.max_vector_width == 1
    assert not c.coalesced and c.efficiency < 1.0
    # row r starts at byte 132 r: on a sector boundary (4 sectors) only for r % 8 == 0, else 5
    assert c.sectors_per_request == (7 * 5 + 4) / 8


def test_triton_order_does_not_limit_the_hardware_width():
    # registers repeat along dim1 (order = [0, 1] puts lanes on dim0): contiguous in memory
    c = coalescing(blocked([1, 1], [32, 1], [1, 1], [0, 1], [32, 32]), [32, 1], element_bits=32)
    assert c.vector_width == 4


# ---------------------------------------------------------------- the synthesiser


def test_synthesised_layout_meets_the_bounds():
    r = best_register_layout([128, 1], [64, 128], element_bits=16, num_warps=4)
    assert r.certificate.status is Status.BOUND and r.certificate.candidates == 1
    assert r.coalescing.vector_width == 8 and r.coalescing.coalesced
    assert r.coalescing.sectors == r.certificate.sector_bound == 64 * 128 * 2 // 32
    assert r.layout == r.encoding.to_linear_layout([64, 128])


def test_synthesised_layout_follows_a_column_major_tensor():
    r = best_register_layout([1, 64], [64, 64], element_bits=32, num_warps=4)
    assert r.encoding.order[0] == 0 and r.coalescing.vector_width == 4
    assert r.certificate.status is Status.BOUND


def test_exhaustive_certificate_is_checked_against_every_candidate():
    # Rows of 9 f32 (36 bytes): no vector wider than 1 and no layout reaches the footprint.
    shape, strides = (16, 8), [9, 1]
    r = best_register_layout(strides, list(shape), element_bits=32, num_warps=1)
    assert r.certificate.status is Status.PROVED and r.certificate.method == "exhaustive"
    assert "blocked layouts" in r.certificate.claim
    best = (-r.coalescing.vector_width, r.coalescing.sectors, r.coalescing.lines)
    seen = 0
    for spec in _candidates(shape, 32, 1):
        c = coalescing(blocked(*spec, list(shape)), strides, element_bits=32)
        assert best <= (-c.vector_width, c.sectors, c.lines)
        seen += 1
    assert r.certificate.candidates <= seen
    assert r.coalescing.sectors > r.certificate.sector_bound  # a real gap: not BOUND


def test_budget_ending_the_search_is_unknown():
    r = best_register_layout([9, 1], [16, 8], element_bits=32, num_warps=1, timeout_s=1e-9)
    assert r.certificate.status is Status.UNKNOWN and not r.certificate.proved


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"global_layout": [1]}, LayoutError, "one stride per tensor dim"),
        ({"global_layout": [1.5, 1]}, LayoutTypeError, "global_layout"),
        ({"global_layout": "64,1"}, LayoutTypeError, "strides"),
        ({"global_layout": np.zeros((16, 64))}, LayoutTypeError, "integer array"),
        ({"global_layout": np.zeros((4, 4), dtype=int)}, LayoutError, "tensor's shape"),
        ({"global_layout": lambda i, j: "x"}, LayoutTypeError, "global_layout(0, 0)"),
        ({"element_bits": 4}, LayoutError, "element_bits"),
        ({"target": "gfx942"}, LayoutError, "AMD's vector memory path is not modelled"),
        ({"target": "sm75"}, LayoutError, "one of ['nvidia', 'sm80'"),
        ({"base_address": 3}, LayoutError, "multiple of the element's 2 bytes"),
    ],
)
def test_bad_input(kwargs, error, words):
    arguments = {"global_layout": [64, 1], "element_bits": 16}
    arguments.update(kwargs)
    layout = blocked([1, 8], [4, 8], [4, 1], [1, 0], [16, 64])
    with pytest.raises(error) as raised:
        coalescing(layout, **arguments)
    assert words in str(raised.value)


def test_bad_layouts():
    shared = LinearLayout.from_bases([("offset", [[1], [2]])], ["dim0"])
    with pytest.raises(LayoutError, match="must be a register layout"):
        coalescing(shared, [1], element_bits=32)
    wave64 = LinearLayout.from_bases([("lane", [[1], [2], [4], [8], [16], [32]])], ["dim0"])
    with pytest.raises(LayoutError, match="64 lanes, but target nvidia has 32"):
        coalescing(wave64, [1], element_bits=32)
    two_outs = LinearLayout.from_bases([("dim0", [[1, 0], [0, 1]])], ["a", "b"])
    lanes = LinearLayout.from_bases([("lane", [[1], [2], [4], [8], [16]])], ["dim0"])
    with pytest.raises(LayoutError, match="to one out dim"):
        coalescing(lanes, two_outs, element_bits=32)
    with pytest.raises(NotInvertibleError):
        global_offsets(
            LinearLayout.from_bases([("offset", [[1], [0], [2], [4], [8], [16]])], ["dim0"]),
            [("dim0", 32)],
        )


def test_synthesiser_bad_input():
    with pytest.raises(LayoutError, match="powers of 2"):
        best_register_layout([1], [48], 32)
    with pytest.raises(LayoutError, match="num_warps"):
        best_register_layout([1], [4096], 32, num_warps=3)
    with pytest.raises(LayoutError, match="fewer than the 128 threads"):
        best_register_layout([8, 1], [4, 8], 32)


def test_every_blocked_candidate_holds_each_element_once():
    for spec in itertools.islice(_candidates((16, 32), 32, 2), 50):
        layout = blocked(*spec, [16, 32])
        assert not any(layout.get_free_variable_masks().values())


def test_a_cute_layout_as_a_callable():
    # Until llverify.cute lands, a CuTe layout (CUTLASS's pycute, a test-only oracle) is a
    # callable from coordinates to offsets: a column-major (128, 64) tile.
    pycute = pytest.importorskip("pycute")
    cute = pycute.Layout((128, 64), (1, 128))
    layout = blocked([8, 1], [16, 2], [1, 4], [0, 1], [128, 64])
    via_cute = coalescing(layout, lambda i, j: cute(i, j), element_bits=16)
    via_strides = coalescing(layout, [1, 128], element_bits=16)
    assert via_cute == via_strides and via_cute.vector_width == 8 and via_cute.coalesced


def test_coalescing_at_bases_is_coalescing_at_each_base():
    from llverify.global_memory.sectors import coalescing_at_bases

    enc = (
        "#ttg.blocked<{sizePerThread = [2, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], "
        "order = [1, 0]}>"
    )
    offsets = (np.arange(64 * 64).reshape(64, 64) * 3) % 1000
    bases = (0, 4, 12, 64, 124)
    found = coalescing_at_bases(enc, offsets, [64, 64], 32, "sm90", base_addresses=bases)
    for base, one in zip(bases, found):
        alone = coalescing(enc, offsets, [64, 64], 32, "sm90", base_address=base)
        assert one == alone and one.vector_limit == alone.vector_limit
        assert (one.request_sectors == alone.request_sectors).all()
        assert (one.request_lines == alone.request_lines).all()
    with pytest.raises(LayoutError, match="base_address.*multiple of the element's 4 bytes"):
        coalescing_at_bases(enc, offsets, [64, 64], 32, "sm90", base_addresses=(0, 2))
