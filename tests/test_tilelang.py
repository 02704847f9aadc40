"""TileLang index maps read as LinearLayouts (issue 28 item 9) and proved against the vendor
fragment references in llverify.specs; the historical TileLang MFMA bug (fix b914318b4,
transposed A with k_dim == 4) is refuted with a replayed counterexample; non-linear maps and
non-fragments are refused with the reason; the reader refuses anything but arithmetic.

The maps below are TileLang's (tilelang/rocm/intrinsics/mfma_layout.py and
tilelang/cuda/intrinsics/layout/mma_layout.py, tilelang 0.1.15, and the history of the
first), written as the text TileLang's functions spell them; TileLang itself is not needed."""

from __future__ import annotations

import numpy as np
import pytest

from llverify import LinearLayout, cute, prove_equal
from llverify.errors import LayoutError, LayoutTypeError, ParseError
from llverify.specs import amd_mfma
from llverify.specs.nvidia_mma import REFERENCES
from llverify.tilelang import (
    NotLinearError,
    access_to_linear_layout,
    fragment_to_linear_layout,
    layout_to_linear_layout,
    parse_index_map,
)

# ---------------------------------------------------------------------- AMD MFMA (wave64)

# forward maps (i, j) -> (thread, local), as T.Fragment's forward_fn
FORWARD = {
    "shared_16x4_to_local_64x1_layout_A": ("(j * 16 + i, 0)", (16, 4), amd_mfma.A_16X16X4),
    "shared_4x16_to_local_64x1_layout_B": ("(i * 16 + j, 0)", (4, 16), amd_mfma.B_16X16X4),
    "shared_16x16_to_local_64x4_layout_A": (
        "(i + 16 * (j // 4), j % 4)",
        (16, 16),
        amd_mfma.A_16X16X16_F16,
    ),
    "shared_16x16_to_local_64x4_layout_B": (
        "(j + (i // 4) * 16, i % 4)",
        (16, 16),
        amd_mfma.B_16X16X16_F16,
    ),
    "shared_16x16_to_local_64x4_layout_C": (
        "(j + (i // 4) * 16, i % 4)",
        (16, 16),
        amd_mfma.D_16X16,
    ),
    "shared_16x32_to_local_64x8_layout_A": (
        "(i + 16 * (j // 8), j % 8)",
        (16, 32),
        amd_mfma.A_16X16X32,
    ),
    "shared_16x32_to_local_64x8_layout_B": (
        "(j + (i // 8) * 16, i % 8)",
        (32, 16),
        amd_mfma.B_16X16X32,
    ),
    # 6a29c76ae's 32x32 accumulator map (v_mfma_i32_32x32x32_i8, gfx950)
    "shared_32x32_to_local_64x16_layout_C@6a29c76ae": (
        "((i % 8 // 4) * 32 + j, (i // 8) * 4 + i % 4)",
        (32, 32),
        amd_mfma.D_32X32,
    ),
}

# thread-access maps (thread, local) -> (i, j): (text, threads, values, shape, reference)
ACCESS = {
    "thread_id_shared_access_64x1_to_16x4_layout_A": (
        "(thread_id % 16, thread_id // 16)",
        1,
        (16, 4),
        amd_mfma.A_16X16X4,
    ),
    "thread_id_shared_access_64x4_to_16x16_layout_A": (
        "(thread_id % 16, (thread_id // 16) * 4 + local_id)",
        4,
        (16, 16),
        amd_mfma.A_16X16X16_F16,
    ),
    "thread_id_shared_access_64x4_to_16x16_layout_B": (
        "(local_id + (thread_id // 16) * 4, thread_id % 16)",
        4,
        (16, 16),
        amd_mfma.B_16X16X16_F16,
    ),
    "thread_id_shared_access_64x4_to_16x16_layout_C_m_n": (
        "(local_id + (thread_id // 16) * 4, thread_id % 16)",
        4,
        (16, 16),
        amd_mfma.D_16X16,
    ),
    "thread_id_shared_access_64x8_to_16x32_layout_A": (
        "(thread_id % 16, (thread_id // 16) * 8 + local_id)",
        8,
        (16, 32),
        amd_mfma.A_16X16X32,
    ),
    "thread_id_shared_access_64x8_to_16x32_layout_B": (
        "(local_id + (thread_id // 16) * 8, thread_id % 16)",
        8,
        (32, 16),
        amd_mfma.B_16X16X32,
    ),
}


def _def(name: str, params: str, returned: str) -> str:
    return f"def {name}({params}):\n    return {returned}\n"


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_tilelang_mfma_fragments_are_proved_against_the_isa(name: str) -> None:
    text, shape, reference = FORWARD[name]
    ll = fragment_to_linear_layout(_def(name.split("@")[0], "i, j", text), shape, lanes=64)
    assert ll.get_in_dim_size("lane") == 64 and ll.get_in_dim_size("warp") == 1
    verdict = prove_equal(ll, reference.formulas())
    assert verdict.proved, (name, verdict)


@pytest.mark.parametrize("name", sorted(ACCESS))
def test_tilelang_mfma_access_maps_are_proved_against_the_isa(name: str) -> None:
    text, values, shape, reference = ACCESS[name]
    ll = access_to_linear_layout(
        _def(name, "thread_id, local_id", text), 64, values, shape, lanes=64
    )
    verdict = prove_equal(ll, reference.formulas())
    assert verdict.proved, (name, verdict)


def _transposed(reference: amd_mfma.Fragment) -> dict[str, str]:
    """The reference read on the transposed buffer: (k, m) instead of (m, k)."""
    return {"dim0": reference.cols, "dim1": reference.rows}


def _mismatches(ll: LinearLayout, formulas: dict[str, str]) -> int:
    """At how many (register, lane) points ``ll`` and the reference differ (replayed)."""
    from llverify.ops import IntOps
    from llverify.proof.formula import Formula

    count = 0
    for register in range(ll.get_in_dim_size("register")):
        for lane in range(ll.get_in_dim_size("lane")):
            point = {"register": register, "lane": lane, "warp": 0}
            want = {d: Formula(f).evaluate(IntOps(), point) for d, f in formulas.items()}
            count += ll.apply(point) != want
    return count


def test_historical_bug_transposed_a_with_k4_is_refuted() -> None:
    """TileLang before b914318b4 ("Correct index_map selection for transposed A matrix in
    MFMA Layout with k_dim==4", Jan 2026) read a transposed A tile (a (K, M) = (4, 16)
    buffer) of v_mfma_f32_16x16x4f32 with the non-transposed map
    thread_id_shared_access_64x1_to_16x4_layout_A; the fix reads it with the 4x16 B map.
    On the buffer's (k, m) coordinates the ISA wants lane l to hold A[m = l % 16][k = l // 16].
    """
    reference = _transposed(amd_mfma.A_16X16X4)
    fixed = access_to_linear_layout(
        _def(
            "thread_id_shared_access_64x1_to_4x16_layout_B",
            "thread_id, local_id",
            "(thread_id // 16, thread_id % 16)",
        ),
        64,
        1,
        (4, 16),
        lanes=64,
    )
    assert prove_equal(fixed, reference).proved
    buggy_text = _def(
        "thread_id_shared_access_64x1_to_16x4_layout_A",
        "thread_id, local_id",
        "(thread_id % 16, thread_id // 16)",
    )
    # on the 4 x 16 tile itself the buggy map reads rows past K = 4 ...
    with pytest.raises(LayoutError, match="dim0 is 4 at thread_id=4, local_id=0, outside"):
        access_to_linear_layout(buggy_text, 64, 1, (4, 16), lanes=64)
    # ... and inside a larger staged tile (16 x 16) it reads the wrong elements: refuted
    buggy = access_to_linear_layout(buggy_text, 64, 1, (16, 16), lanes=64)
    verdict = prove_equal(buggy, reference)
    assert verdict.status.value == "refuted"
    assert verdict.counterexample == {"register": 0, "lane": 1, "warp": 0}
    assert _mismatches(buggy, reference) == 60  # of the 64 (thread, k) points


def test_32x32_accumulator_maps_differ_by_a_transpose() -> None:
    """TileLang's 32x32 accumulator map changed in 281670a27 (gfx950 MXFP4) from the ISA's
    D (lane = column) to its transpose (lane = row): each is proved against the matching
    reference and refuted against the other."""
    new = fragment_to_linear_layout(
        _def(
            "shared_32x32_to_local_64x16_layout_C",
            "i, j",
            "(i + 32 * ((j // 4) % 2), ((j - 4 * ((j // 4) % 2)) // 8) * 4 "
            "+ (j - 4 * ((j // 4) % 2)) % 4)",
        ),
        (32, 32),
        lanes=64,
    )
    assert prove_equal(new, amd_mfma.D_32X32_T.formulas()).proved
    refuted = prove_equal(new, amd_mfma.D_32X32.formulas())
    assert refuted.status.value == "refuted"
    assert _mismatches(new, amd_mfma.D_32X32.formulas()) == 992


def test_16x64_b_forward_map_is_the_a_map() -> None:
    """shared_16x64_to_local_64x16_layout_B (k_dim == 64) spells the same formula as the A
    map: it is a map of the (n, k) tile.  Read on the (k, n) tile its own access map
    thread_id_shared_access_64x16_to_16x64_layout_B describes, the two disagree on 960 of
    the 1,024 (thread, local) points; read on (n, k) they agree."""
    access = access_to_linear_layout(
        "lambda thread_id, local_id: (local_id + (thread_id // 16) * 16, thread_id % 16)",
        64,
        16,
        (64, 16),
        lanes=64,
    )
    forward = "lambda i, j: (i + 16 * (j // 16), j % 16)"
    on_kn = fragment_to_linear_layout(forward, (64, 16), lanes=64)
    assert prove_equal(on_kn, access).status.value == "refuted"
    differ = sum(
        on_kn.apply(p) != access.apply(p)
        for p in ({"register": r, "lane": t, "warp": 0} for r in range(16) for t in range(64))
    )
    assert differ == 960
    on_nk = fragment_to_linear_layout(forward, (16, 64), lanes=64)
    transposed = access.transpose_outs(["dim1", "dim0"])
    swapped = LinearLayout.from_bases(
        transposed.bases, ["dim0", "dim1"], [16, 64], require_surjective=False
    )
    assert prove_equal(on_nk, swapped).proved


# ---------------------------------------------------------------------- NVIDIA mma.sync


def test_tilelang_mma_maps_are_proved_against_ptx() -> None:
    cases = [
        (
            "mma_load_a_32x8_to_shared_16x16_layout",
            "((thread_id // 4) + 8 * (local_id % 4 // 2), "
            "(thread_id % 4) * 2 + (local_id % 2) + 8 * (local_id // 4))",
            8,
            (16, 16),
            "mma.m16n8k16.f16.A",
        ),
        (
            "mma_load_a_32x4_to_shared_16x8_layout",
            "(8 * (local_id % 2) + (thread_id // 4), 4 * (local_id // 2) + (thread_id % 4))",
            4,
            (16, 8),
            "mma.m16n8k8.tf32.A",
        ),
        (
            "mma_load_a_32x16_to_shared_16x32_layout",
            "(8 * (local_id % 8 // 4) + (thread_id // 4), "
            "16 * (local_id // 8) + (thread_id % 4) * 4 + (local_id % 4))",
            16,
            (16, 32),
            "mma.m16n8k32.b8.A",
        ),
    ]
    for name, text, values, shape, reference in cases:
        ll = access_to_linear_layout(_def(name, "thread_id, local_id", text), 32, values, shape)
        assert prove_equal(ll, dict(REFERENCES[reference].formulas)).proved, name
    forward = fragment_to_linear_layout(
        _def(
            "shared_16x16_to_mma_a_32x8_layout",
            "i, j",
            "(4 * (i % 8) + (j % 8) // 2, 4 * (j // 8) + (i // 8) * 2 + (j % 2))",
        ),
        (16, 16),
    )
    assert prove_equal(forward, dict(REFERENCES["mma.m16n8k16.f16.A"].formulas)).proved
    # a negative control: the A map is no B fragment
    verdict = prove_equal(forward, dict(REFERENCES["mma.m16n8k16.CD"].formulas))
    assert verdict.status.value == "refuted"


def test_fragment_over_warps_and_replicas() -> None:
    # 4 warps of the 16x16 A fragment along M (64 x 16), replicated twice over threads
    ll = fragment_to_linear_layout(
        thread="lambda i, j, rep: 4 * (i % 8) + (j % 8) // 2 + 32 * (i // 16) + 128 * rep",
        index="lambda i, j, rep: 4 * (j // 8) + (i % 16 // 8) * 2 + (j % 2)",
        shape=(64, 16),
        replicate=2,
    )
    assert ll.in_dims == [("register", 8), ("lane", 32), ("warp", 8)]
    a = dict(REFERENCES["mma.m16n8k16.f16.A"].formulas)
    reference = {"dim0": f"16 * (warp % 4) + ({a['dim0']})", "dim1": a["dim1"]}
    assert prove_equal(ll, reference).proved


def test_layout_swizzle_is_cutes() -> None:
    """make_mfma_swizzle_layout for f16 and a 32-wide tile (vecSize 8: perPhase 2,
    maxPhase 4) is CuTe's Swizzle<2,3,3> over the row-major tile."""
    text = """
    def transform(row, col):
        phase = (row // 2) % 4
        colOffSwizzled = ((col // 8) ^ phase) * 8
        colOffOrdered = col % 8
        colOff = colOffSwizzled + colOffOrdered
        return row, colOff
    """
    ll = layout_to_linear_layout(text, (16, 32))
    assert ll == cute.to_linear_layout(cute.parse("Sw<2,3,3> o 0 o (16,32):(32,1)"))
    assert ll != cute.to_linear_layout(cute.parse("Sw<2,3,4> o 0 o (16,32):(32,1)"))


# ---------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("forward", "shape", "message"),
    [
        ("lambda i, j: (i + j, 0)", (8, 8), "thread is 2 at i=1, j=1, but the XOR"),
        ("lambda i, j: (i, j % 3)", (8, 4), "index 0 is 0 at i=0, j=3, but the XOR"),
        ("lambda i: (2 * i, 0)", (2,), "thread takes the values 0..2, and 3 is not a power"),
        ("lambda i, j: (i, j)", (48, 4), "the extent 48 of 'i' is not a power of 2"),
        ("lambda i, j: (i + 1, j)", (4, 4), "thread is 1 at i=0, j=0 \\(an offset"),
        ("lambda i, j: (i, 0)", (4, 2), "i=0, j=0 and i=0, j=1 both land on thread 0"),
        ("lambda i, j: (i + 2 * j, j)", (2, 2), "fill only 4 of the 8 \\(thread, local"),
        ("lambda i, j: (i - 4, j)", (4, 4), "is -4 < 0"),
        ("lambda i, j: (i // (j - j), j)", (4, 4), "divisor of '//' may be zero"),
    ],
)
def test_not_linear_or_no_fragment_is_refused(forward: str, shape: tuple, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        fragment_to_linear_layout(forward, shape)


def test_not_linear_error_names_the_result_and_point() -> None:
    with pytest.raises(NotLinearError) as caught:
        fragment_to_linear_layout("lambda i, j: (i + j, 0)", (8, 8))
    assert caught.value.result == "thread" and caught.value.point == {"i": 1, "j": 1}
    with pytest.raises(NotLinearError, match="its result 0 is 9 at row=3, col=0, but the XOR"):
        layout_to_linear_layout("lambda row, col: row * 3 + col", (4, 4))
    assert issubclass(NotLinearError, ValueError)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("lambda i: __import__('os').system('x')", "the call __import__"),
        ("lambda i: i.real", "attribute access is not allowed"),
        ("lambda i: open('f')", "the call open"),
        ("lambda i: k + 1", "the name 'k' is neither a parameter"),
        ("lambda i, j=1: i", "no defaults"),
        ("lambda i: i ** 2", "operator \\*\\* is not allowed"),
        ("lambda i: i / 2", "Div is not allowed"),
        ("def f(i):\n    for x in i: pass\n    return i\n", "only assignments to names"),
        ("def f(i):\n    i = 2\n    return i\n", "only names other than the parameters"),
        ("def f(i):\n    x = 1\n", "must end with a return"),
        ("@d\ndef f(i):\n    return i\n", "decorators"),
        ("import os", "a lambda or a def expected, not Import"),
        ("lambda i: (", "syntax error"),
        ("x = 1\ny = 2", "one lambda or def expected, found 2"),
        ("lambda i: T.tvm.os.f(i)", "the call T.tvm.os.f"),
        ("lambda i: " + "+".join(["i"] * 12000), "longer than 20000"),
    ],
)
def test_the_reader_refuses_all_but_arithmetic(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_index_map(text)


def test_the_reader_spells_tvm_calls_as_operators() -> None:
    m = parse_index_map(
        "def f(i, j):\n    a, b = T.floordiv(i, 4), tir.floormod(j, 2)\n"
        "    return const(a) * 2 + b, convert(0)\n"
    )
    assert [str(f) for f in m.outputs] == ["i // 4 * 2 + j % 2", "0"]
    assert m.name == "f" and m.params == ("i", "j")


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(LayoutTypeError, match="'forward'"):
        fragment_to_linear_layout(42, (4, 4))
    with pytest.raises(LayoutError, match="'forward': a fragment's forward_fn takes 2"):
        fragment_to_linear_layout("lambda i: (i, 0)", (4, 4))
    with pytest.raises(LayoutError, match="must return \\(thread, index"):
        fragment_to_linear_layout("lambda i, j: i", (4, 4))
    with pytest.raises(LayoutError, match="either 'forward' or"):
        fragment_to_linear_layout("lambda i: (i, 0)", (4,), thread="lambda i: i")
    with pytest.raises(LayoutError, match="'lanes' must be a power of 2"):
        fragment_to_linear_layout("lambda i: (i, 0)", (4,), lanes=48)
    with pytest.raises(LayoutError, match="'replicate'"):
        fragment_to_linear_layout("lambda i: (i, 0)", (4,), replicate=0)
    with pytest.raises(LayoutError, match="'shape' must hold ints >= 1"):
        fragment_to_linear_layout("lambda i: (i, 0)", (0,))
    with pytest.raises(LayoutError, match="returns 1 coordinates, but 'shape'"):
        access_to_linear_layout("lambda t, l: t", 32, 1, (32, 1))
    with pytest.raises(LayoutError, match="name their parameters alike"):
        fragment_to_linear_layout(thread="lambda i: i", index="lambda k: 0", shape=(4,))


def test_evaluation_is_exact_on_every_point() -> None:
    # the converted layout agrees with direct evaluation of TileLang's formula everywhere
    ll = fragment_to_linear_layout("lambda i, j: (i + 16 * (j // 8), j % 8)", (16, 32), lanes=64)
    for i in range(16):
        for j in range(32):
            t, local = i + 16 * (j // 8), j % 8
            assert ll.apply({"register": local, "lane": t, "warp": 0}) == {"dim0": i, "dim1": j}
    assert np.int64  # numpy is the evaluator
