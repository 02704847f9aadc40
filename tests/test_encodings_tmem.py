"""Blackwell tensor memory: the TMEM encodings and the tcgen05.ld/st register layouts.

* Triton's LinearLayoutConversionsTest.cpp TensorMemory cases (row/col layouts) ported.
* Differential against Triton 3.9 (tests/oracle/tmem_oracle.py in a subprocess, which
  calls Gluon's ``_compute_tmem_reg_layout``, i.e. ``gluon_ir.compute_tmem_reg_layout``
  plus the ``32x32b_splitn`` post-processing): >= 300 generated valid parameter sets with a
  register layout, every atom, dtypes of 8/16/32 bits, packed/unpacked column strides,
  blockM 64/128, CGA layouts, two CTAs, fp4 padding, subslice/multibuffer allocation
  shapes, scales; the "no layout" answers (None) and the verifier refusals must agree too;
  the TMEM memory layout and the encoding's TTGIR text are compared on every case.
* Every verifier rule.
* specs/tmem.py: the PTX message fragments and closed forms of canonical register layouts
  proved; negative controls refuted.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import llverify.encodings.tmem  # noqa: F401 - registers the TMEM encodings
from llverify import LinearLayout, prove_equal
from llverify.encodings import EncodingError, from_gluon, parse_encoding
from llverify.encodings.tmem import (
    ATOMS,
    INSTR_VARIANTS,
    TensorMemoryLayout,
    TensorMemoryScalesLayout,
    message_tile,
    tmem_register_layout,
    view_layout,
)
from llverify.errors import LayoutTypeError, LLVerifyError
from llverify.hardware import GLUON_DTYPE_BITS
from llverify.specs.tmem import (
    MESSAGE_16X64B_MISREAD,
    MESSAGE_OBLIGATIONS,
    MESSAGE_REFERENCES,
    REGISTER_8W_ROW_MAJOR,
    REGISTER_OBLIGATIONS,
)

WORKER = Path(__file__).parent / "oracle" / "tmem_oracle.py"
SEED = int(os.environ.get("LLVERIFY_DIFF_SEED", "20250917"))
MIN_CASES = 300
DTYPES = ["float32", "int32", "float16", "bfloat16", "int16", "float8e4nv", "float8e5", "int8"]


def bases_dict(layout: LinearLayout) -> dict[str, list[list[int]]]:
    return {name: [list(b) for b in values] for name, values in layout.bases}


def identity(size: int, in_dim: str, out_dim: str) -> LinearLayout:
    return LinearLayout.identity_1d(size, in_dim, out_dim)


def zeros(size: int, in_dim: str, out_dim: str) -> LinearLayout:
    return LinearLayout.zeros_1d(size, in_dim, out_dim)


# ------------------------------------------- LinearLayoutConversionsTest.cpp ports


def test_tensor_memory_block_m_64() -> None:
    enc = TensorMemoryLayout((64, 64), 1)
    rows = {
        (128, 64): [[1, 0], [2, 0], [4, 0], [8, 0], [64, 0], [16, 0], [32, 0]],
        # the tensor just fits blockM x blockN: row 16 is undefined (a zero basis)
        (64, 64): [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [16, 0], [32, 0]],
        (256, 128): [[1, 0], [2, 0], [4, 0], [8, 0], [64, 0], [16, 0], [32, 0]],
        # shape[0] == 64: N's next tile goes in the 5th row basis
        (64, 256): [[1, 0], [2, 0], [4, 0], [8, 0], [0, 64], [16, 0], [32, 0]],
    }
    cols = {
        (128, 64): [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]],
        (64, 64): [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]],
        # broadcasts M then N
        (256, 128): [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [128, 0], [0, 64]],
        (64, 256): [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 128]],
    }
    for shape in rows:
        assert bases_dict(enc.to_linear_layout(list(shape))) == {
            "row": rows[shape], "col": cols[shape], "block": []
        }, shape  # fmt: skip


def test_tensor_memory_block_m_128() -> None:
    enc = TensorMemoryLayout((128, 128), 1)
    tile = identity(128, "row", "dim0") * identity(128, "col", "dim1")
    tile = tile * identity(1, "block", "dim0")
    cases = {
        (128, 128): tile,
        (256, 128): tile * identity(2, "col", "dim0"),
        (256, 256): tile * identity(2, "col", "dim0") * identity(2, "col", "dim1"),
    }
    for shape, want in cases.items():
        assert bases_dict(enc.to_linear_layout(list(shape))) == bases_dict(want), shape


def test_tensor_memory_fp4_padded() -> None:
    enc = TensorMemoryLayout((128, 64), 1, fp4_padded=True)
    want = (
        identity(128, "row", "dim0")
        * zeros(2, "col", "dim1")
        * identity(64, "col", "dim1")
        * identity(1, "block", "dim0")
    )
    assert bases_dict(enc.to_linear_layout([128, 64])) == bases_dict(want)


def test_tensor_memory_cta_split() -> None:
    split = TensorMemoryLayout((128, 64), 1, [[0, 1]]).to_linear_layout([128, 128])
    single = TensorMemoryLayout((128, 64), 1).to_linear_layout([128, 64])
    want = single * identity(2, "block", "dim1")
    assert bases_dict(split) == bases_dict(want)


def test_tensor_memory_scales_mn_then_k() -> None:
    # The C++ test's K_THEN_MN variant is not reachable from Gluon 3.9 (no block_rep_order);
    # this is the default MN_THEN_K order, Triton 3.9's answer on [256, 8].
    want = (
        identity(32, "row", "dim0")
        * zeros(4, "row", "dim0")
        * identity(4, "col", "dim1")
        * identity(2, "col", "dim0")
        * identity(2, "col", "dim0")
        * identity(2, "col", "dim0")
        * identity(2, "col", "dim1")
        * identity(1, "block", "dim0")
    )
    layout = TensorMemoryScalesLayout().to_linear_layout([256, 8])
    assert bases_dict(layout) == bases_dict(want)


# ------------------------------------------------------------ register layouts


def test_register_layout_examples() -> None:
    f32 = tmem_register_layout(32, [128, 64], TensorMemoryLayout((128, 64), 1), 4, "32x32b")
    assert f32 is not None
    assert f32.reg_bases == tuple((0, 1 << i) for i in range(6))
    assert f32.lane_bases == ((1, 0), (2, 0), (4, 0), (8, 0), (16, 0))
    assert f32.warp_bases == ((32, 0), (64, 0)) and f32.block_bases == ()
    # Triton 3.9: 32x32b_splitn makes the last register [0, N / 2] (warp 4 takes [0, 32])
    enc = TensorMemoryLayout((128, 128), 1)
    split = tmem_register_layout("float16", [128, 128], enc, 8, "32x32b_splitn")
    assert split is not None
    assert split.reg_bases[-1] == (0, 64) and split.warp_bases == ((32, 0), (64, 0), (0, 32))
    # two CTAs, blockM = 64: the 5th row bit holds the second half of N per CTA
    two = TensorMemoryLayout((64, 64), 1, [[1, 0]], two_ctas=True)
    layout = tmem_register_layout(32, [128, 64], two, 4)
    assert layout is not None
    assert layout.warp_bases == ((32, 0), (0, 32)) and layout.block_bases == ((64, 0),)
    # fp4-padded operands have no register layout (no implicit unpadding on load)
    padded = TensorMemoryLayout((128, 64), 1, fp4_padded=True)
    assert tmem_register_layout("int8", [128, 64], padded, 4) is None


def test_view_layout_of_a_subslice() -> None:
    enc = TensorMemoryLayout((128, 16), 1)
    # a [256, 32] view of a [512, 32] buffer keeps the buffer's column spacing
    view = view_layout(enc, [256, 32], [512, 32])
    assert bases_dict(view)["col"] == [[0, 1], [0, 2], [0, 4], [0, 8], [128, 0], [0, 0], [0, 16]]
    reg = tmem_register_layout("float16", [256, 32], enc, 4, "16x128b", [512, 32])
    assert reg is not None  # Triton 3.9 keeps the zero register of the gap
    assert reg.reg_bases == ((0, 1), (8, 0), (0, 8), (128, 0), (0, 0), (0, 16), (16, 0))


def test_message_tiles() -> None:
    assert bases_dict(message_tile("32x32b")) == {
        "register": [], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]
    }  # fmt: skip
    assert bases_dict(message_tile("16x256b"))["register"] == [[0, 1], [8, 0]]
    assert set(ATOMS) < set(INSTR_VARIANTS)


# ------------------------------------------------------------------ differential


def _tmem_spec(rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.15:
        return {"kind": "scales", "cga_layout": rng.choice([[], [], [[1, 0]], [[0, 1]]])}
    two_ctas = rng.random() < 0.12
    cga = rng.choice([[], [], [], [[1, 0]], [[0, 1]], [[1, 0], [0, 1]], [[0, 0]], [[0, 1], [0, 0]]])
    if two_ctas:
        cga = rng.choice([[[1, 0]], [[1, 0], [0, 1]]])
    return {
        "kind": "tmem",
        "block": [rng.choice([64, 128]), 1 << rng.randint(0, 8)],
        "col_stride": rng.choice([1, 1, 1, 2, 4]),
        "cga_layout": cga,
        "two_ctas": two_ctas,
        "fp4_padded": rng.random() < 0.06,
    }


def _split(spec: dict[str, Any]) -> list[int]:
    split = [1, 1]
    for basis in spec["cga_layout"]:
        split = [s * 2 if v else s for s, v in zip(split, basis)]
    return split


def generate_cases(count: int = 1400) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    cases = []
    while len(cases) < count:
        spec = _tmem_spec(rng)
        dtype = (
            rng.choice(["int8", "float8e4nv"]) if spec["kind"] == "scales" else rng.choice(DTYPES)
        )
        split = _split(spec)
        if spec["kind"] == "tmem":
            block_m, block_n = spec["block"]
            shape = [block_m * split[0] << rng.randint(0, 2),
                     max(1, (block_n * split[1] << rng.randint(0, 4)) >> 2)]  # fmt: skip
            if rng.random() < 0.1:  # shapes under the block: a verifier refusal
                shape[rng.randrange(2)] //= 2
        else:
            shape = [32 * split[0] << rng.randint(0, 3), split[1] << rng.randint(0, 5)]
        shape = [max(1, s) for s in shape]
        while shape[0] * shape[1] > 1 << 17:
            shape[1] = max(1, shape[1] // 2)
        alloc = list(shape)
        kind = rng.random()
        if kind < 0.15:
            alloc = [rng.choice([2, 3]), *shape]  # multibuffered
        elif kind < 0.3:
            alloc = [shape[0], shape[1] * 2]  # a column subslice
        elif kind < 0.38:
            alloc = [shape[0] * 2, shape[1]]
        if (
            spec.get("two_ctas")
            and spec["block"][0] == 64
            and min(spec["block"][1], shape[1] // split[1]) < 2
        ):
            continue  # Triton crashes (no column bit to move to row 64); llverify refuses
        case = {
            "dtype": dtype,
            "shape": shape,
            "alloc_shape": alloc,
            "layout": spec,
            "num_warps": rng.choice([4, 4, 8, 16]),
            "atom": rng.choice(INSTR_VARIANTS),
        }
        cases.append(case)
    return cases


def run_oracle(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Triton's answer per case (a worker restarted after an abort, which names the case)."""
    from cases.triton import require_triton

    require_triton()
    done: list[dict[str, Any]] = []
    while len(done) < len(cases):
        remaining = cases[len(done) :]
        result = subprocess.run(
            [sys.executable, str(WORKER)], input=json.dumps(remaining), capture_output=True,
            text=True,
        )  # fmt: skip
        lines = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
        done.extend(lines)
        if len(lines) < len(remaining):
            stderr = "\n".join(x for x in result.stderr.splitlines() if "leak" not in x)
            done.append({"abort": f"Triton aborted on {remaining[len(lines)]}: {stderr[-1500:]}"})
    return done


def encoding_of(spec: dict[str, Any]) -> TensorMemoryLayout | TensorMemoryScalesLayout:
    if spec["kind"] == "scales":
        return TensorMemoryScalesLayout(spec["cga_layout"])
    return TensorMemoryLayout(
        tuple(spec["block"]), spec["col_stride"], spec["cga_layout"], spec["two_ctas"],
        spec["fp4_padded"],
    )  # fmt: skip


def gluon_of(spec: dict[str, Any], blackwell: Any) -> Any:
    if spec["kind"] == "scales":
        return blackwell.TensorMemoryScalesLayout(spec["cga_layout"])
    return blackwell.TensorMemoryLayout(
        tuple(spec["block"]), spec["col_stride"], spec["cga_layout"], spec["two_ctas"],
        spec["fp4_padded"],
    )  # fmt: skip


def compare(case: dict[str, Any], result: dict[str, Any], blackwell: Any) -> tuple[str, str | None]:
    """(outcome, mismatch): outcome is "layout", "none" or "refused"."""
    if "abort" in result:
        return "abort", result["abort"][:400]
    refused = "error" in result and "unsupported for shape" not in result["error"]
    try:
        enc = encoding_of(case["layout"])
        mine = tmem_register_layout(
            case["dtype"], case["shape"], enc, case["num_warps"], case["atom"],
            case["alloc_shape"],
        )  # fmt: skip
        memory = enc.to_linear_layout(case["shape"])
    except LLVerifyError as error:
        if refused:
            return "refused", None
        return "layout", f"llverify raised {error}; Triton: {result}"
    if refused:
        return "refused", f"llverify accepted what Triton refused: {result['error']}"
    gluon = gluon_of(case["layout"], blackwell)
    if from_gluon(gluon) != enc:
        return "layout", f"from_gluon gives {from_gluon(gluon)!r}"
    if "error" in result:  # Triton: no layout for this atom ("unsupported for shape")
        return "none", None if mine is None else f"llverify gives {mine}, Triton none"
    theirs = result["register"]
    if result["ttgir"] != enc.ttgir():
        return "layout", f"ttgir {enc.ttgir()!r} != {result['ttgir']!r}"
    own = bases_dict(memory)
    if [own["row"], own["col"]] != [result["memory"]["row"], result["memory"]["col"]]:
        return "layout", f"memory layout {own} != {result['memory']}"
    if mine is None:
        return "layout", f"llverify gives None, Triton {theirs}"
    fields = ("reg_bases", "lane_bases", "warp_bases", "block_bases")
    got = [[list(b) for b in getattr(mine, f)] for f in fields] + [list(mine.shape or [])]
    if got != [theirs[f] for f in fields] + [theirs["shape"]]:
        return "layout", f"llverify {got}, Triton {theirs}"
    again = tmem_register_layout(
        case["dtype"], case["shape"], gluon, case["num_warps"], case["atom"], case["alloc_shape"]
    )
    if again != mine:
        return "layout", "the Gluon layout object gives another answer"
    return "layout", None


@pytest.fixture(scope="module")
def differential() -> list[dict[str, Any]]:
    cases = generate_cases()
    results = run_oracle(cases)
    blackwell = pytest.importorskip("triton.experimental.gluon.language.nvidia.blackwell")
    for case, result in zip(cases, results):
        case["outcome"], case["mismatch"] = compare(case, result, blackwell)
    return cases


@pytest.mark.triton
def test_differential_vs_triton(differential) -> None:
    bad = [(c, c["mismatch"]) for c in differential if c["mismatch"]]
    assert not bad, f"{len(bad)} of {len(differential)} cases differ, e.g. {bad[:2]}"
    layouts = [c for c in differential if c["outcome"] == "layout"]
    assert len(layouts) >= MIN_CASES
    assert sum(c["outcome"] == "none" for c in differential) >= 50
    assert sum(c["outcome"] == "refused" for c in differential) >= 50
    # every atom, bit width, blockM, CGA/two-CTA/scales/subslice kind reached a layout
    assert {c["atom"] for c in layouts} == set(INSTR_VARIANTS)
    widths = {GLUON_DTYPE_BITS[c["dtype"]] for c in layouts}
    assert widths == {8, 16, 32}
    tmem = [c for c in layouts if c["layout"]["kind"] == "tmem"]
    assert {c["layout"]["block"][0] for c in tmem} == {64, 128}
    assert {c["layout"]["col_stride"] for c in tmem} == {1, 2, 4}
    assert any(c["layout"]["two_ctas"] for c in tmem)
    assert any(c["layout"]["cga_layout"] for c in tmem)
    assert any(c["layout"]["kind"] == "scales" for c in layouts)
    assert sum(c["alloc_shape"] != c["shape"] for c in layouts) >= 50
    assert {c["num_warps"] for c in layouts} == {4, 8, 16}


# --------------------------------------------------------------- TTGIR (framework)


def test_ttgir_text() -> None:
    assert TensorMemoryLayout((128, 64), 1).ttgir() == (
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>"
    )
    assert TensorMemoryLayout((64, 32), 2, [[1, 0]], two_ctas=True).ttgir() == (
        "#ttng.tensor_memory_encoding<blockM = 64, blockN = 32, colStride = 2, "
        "CGALayout = [[1, 0]], twoCTAs = true>"
    )
    assert TensorMemoryScalesLayout([[1, 0]]).ttgir() == (
        "#ttng.tensor_memory_scales_encoding<CGALayout = [[1, 0]]>"
    )


def test_parse_tmem_ttgir() -> None:
    for enc in (
        TensorMemoryLayout((128, 64), 1),
        TensorMemoryLayout((64, 32), 2, [[1, 0]], two_ctas=True),
        TensorMemoryLayout((128, 64), 1, [[0, 1], [0, 0]], fp4_padded=True),
        TensorMemoryScalesLayout(),
    ):
        assert parse_encoding(enc.ttgir())[0] == enc


# ------------------------------------------------------------------ verifier rules


def _tmem(*args: Any, **kwargs: Any):
    return lambda: TensorMemoryLayout(*args, **kwargs)


def _reg(element: Any, shape: Any, layout: Any, warps: int = 4, atom: str = "32x32b", **kw):
    return lambda: tmem_register_layout(element, shape, layout, warps, atom, **kw)


T128 = TensorMemoryLayout((128, 64), 1)


@pytest.mark.parametrize(
    ("rule", "build"),
    [
        ("blockM must be 64 or 128", _tmem((32, 64), 1)),
        ("blockN must be a power of 2", _tmem((128, 48), 1)),
        ("blockN must be less than or equal to 512", _tmem((128, 1024), 1)),
        ("colStride must be 1, 2, or 4", _tmem((128, 64), 3)),
        ("colStride must be 1, 2, or 4", _tmem((128, 64), 8)),
        ("fp4Padded .* requires colStride 1", _tmem((128, 64), 2, fp4_padded=True)),
        ("twoCTAs layout requires", _tmem((128, 64), 1, two_ctas=True)),
        ("twoCTAs layout requires", _tmem((128, 64), 1, [[0, 1]], two_ctas=True)),
        ("permutation matrix", _tmem((128, 64), 1, [[1, 0], [1, 0]])),
        ("coordinates", _tmem((128, 64), 1, [[1, 0, 0]])),
        ("'block' must be", _tmem((128,), 1)),
        ("two CTAs with blockM = 64 need", lambda: TensorMemoryLayout((64, 1), 1, [[1, 0]], True)
         .to_linear_layout([128, 1])),
        ("bitwidth \\* colStride", _reg(16, [128, 64], TensorMemoryLayout((128, 64), 4))),
        ("bitwidth \\* colStride", _reg("float32", [128, 64], TensorMemoryLayout((128, 64), 2))),
        ("at least 128x64", _reg(32, [64, 64], T128)),
        ("at least 256x64", _reg(32, [128, 64], TensorMemoryLayout((128, 64), 1, [[1, 0]]))),
        ("2D tensor", _reg(32, [128], T128)),
        ("2D tensor", _reg(32, [2, 128, 64], T128)),
        ("alloc shape must have at least", _reg(32, [128, 64], T128, alloc_shape=[64])),
        ("power-of-2", _reg(32, [128, 48], T128)),
        ("power-of-2", _reg(32, [128, 64], T128, alloc_shape=[128, 96])),
        ("less than or equal to allocShape", _reg(32, [128, 64], T128, alloc_shape=[128, 32])),
        ("num_warps", _reg(32, [128, 64], T128, warps=2)),
        ("num_warps", _reg(32, [128, 64], T128, warps=12)),
        ("instr_variant", _reg(32, [128, 64], T128, atom="16x32bx2")),
        ("instr_variant", _reg(32, [128, 64], T128, atom="32x64b")),
        ("multibuffering", _reg(8, [128, 4], TensorMemoryScalesLayout(), alloc_shape=[2, 128, 4])),
        ("bitwidth must be 8", _reg(16, [128, 4], TensorMemoryScalesLayout())),
        ("splitn with 1 register", _reg(32, [128, 1], TensorMemoryLayout((128, 1), 1),
                                         atom="32x32b_splitn")),
        ("splitn requires at least one basis", _reg(
            32, [256, 1], TensorMemoryLayout((128, 1), 1), atom="32x32b_splitn")),
        ("more than 2 16-bit registers", _reg(16, [128, 4], TensorMemoryLayout((128, 1), 1),
                                              warps=8, atom="32x32b_splitn")),
    ],
)  # fmt: skip
def test_verifier_rules(rule: str, build) -> None:
    with pytest.raises(EncodingError, match=rule):
        build()


def test_type_errors() -> None:
    with pytest.raises(LayoutTypeError):
        tmem_register_layout(32, [128, 64], "tmem", 4)
    with pytest.raises(LayoutTypeError):
        tmem_register_layout("float128", [128, 64], T128, 4)
    with pytest.raises(LayoutTypeError):
        TensorMemoryLayout((128, 64), 1, two_ctas=1)  # type: ignore[arg-type]


# ------------------------------------------------------------------ specs/tmem.py


@pytest.mark.parametrize(
    "ob", MESSAGE_OBLIGATIONS, ids=[f"{o.atom}.x{o.num}" for o in MESSAGE_OBLIGATIONS]
)
def test_message_fragments_proved(ob) -> None:
    tile = message_tile(ob.atom) * identity(ob.num, "register", "col")
    verdict = prove_equal(tile, MESSAGE_REFERENCES[ob.atom])
    assert verdict.status == "proved", str(verdict)


@pytest.mark.parametrize("ob", REGISTER_OBLIGATIONS, ids=[o.name for o in REGISTER_OBLIGATIONS])
def test_register_layouts_proved(ob) -> None:
    enc = TensorMemoryLayout(ob.block, ob.col_stride)
    layout = tmem_register_layout(ob.element, list(ob.shape), enc, ob.num_warps, ob.atom)
    assert layout is not None
    verdict = prove_equal(layout.to_linear_layout(list(ob.shape)), ob.reference)
    assert verdict.status == "proved", str(verdict)


def test_negative_controls_refuted() -> None:
    tile = message_tile("16x64b") * identity(4, "register", "col")
    verdict = prove_equal(tile, MESSAGE_16X64B_MISREAD)
    assert verdict.refuted and verdict.counterexample is not None
    assert set(verdict.counterexample) == {"register", "lane"}
    assert tile.apply(verdict.counterexample) == verdict.actual != verdict.expected
    ob = next(o for o in REGISTER_OBLIGATIONS if o.name == "32x32b/f32/128x128/8w")
    enc = TensorMemoryLayout(ob.block, ob.col_stride)
    reg = tmem_register_layout(ob.element, list(ob.shape), enc, ob.num_warps, ob.atom)
    assert reg is not None
    layout = reg.to_linear_layout(list(ob.shape))
    verdict = prove_equal(layout, REGISTER_8W_ROW_MAJOR)
    assert verdict.refuted and verdict.counterexample is not None
    assert verdict.counterexample["warp"] != 0
    assert layout.apply(verdict.counterexample) == verdict.actual != verdict.expected
