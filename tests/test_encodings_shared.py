"""Shared-memory encodings: SwizzledShared, AMDRotatingShared, SharedLinear, PartitionedShared.

* Triton's unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp swizzled-shared and
  AMD-rotating cases, ported with their expected bases (the swizzled ones also run
  through Triton 3.9).
* Differential against Triton 3.9 (tests/oracle/shared_oracle.py in a subprocess) on >= 300
  generated valid parameter sets each for SwizzledShared (ranks 1-4, every order, CGA
  layouts with broadcast and clamped blocks, non-power-of-2 vec/perPhase/maxPhase),
  SharedLinear and PartitionedShared (wrapping swizzled, linear and partitioned layouts):
  offset and block bases, ``ttgir()`` == the text Triton prints, ``parse_encoding(Triton's
  text)`` == the object, and the Gluon object path.  AMDRotatingShared has no Gluon class:
  its text goes through Triton's MLIR parser and printer, and where its block number is
  always 0 it must equal Triton's swizzled layout.
* Every verifier rule, with Triton refusing the same inputs, and malformed TTGIR.
* specs/shared.py: the closed forms proved on every obligation, the unwrapped phase refuted
  exactly where ``vec * maxPhase`` exceeds the columns a row reaches, negative controls
  refuted, and the families proved for all parameters at once.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import llverify.encodings.shared  # noqa: F401 - registers the shared encodings
from llverify import LinearLayout, prove_equal, prove_family_equal
from llverify.encodings import (
    BlockedLayout,
    Encoding,
    EncodingError,
    TTGIRError,
    from_gluon,
    parse_encoding,
    to_linear_layout,
)
from llverify.encodings.shared import (
    AMDRotatingSharedLayout,
    PartitionedSharedLayout,
    SharedLinearLayout,
    SwizzledSharedLayout,
)
from llverify.errors import LayoutTypeError, LLVerifyError
from llverify.proof.family import SWIZZLED_REFERENCE_WITHOUT_WRAP
from llverify.specs.shared import (
    NEGATIVE_CONTROLS,
    ROTATING_OBLIGATIONS,
    ROTATING_REFERENCE,
    SWIZZLED_OBLIGATIONS,
    SWIZZLED_REFERENCE,
    SWIZZLED_REFERENCE_ORDER01,
    SharedObligation,
    rotating_shared_2d,
    swizzled_shared_2d,
    swizzled_shared_2d_order01,
)

WORKER = Path(__file__).parent / "oracle" / "shared_oracle.py"
SEED = int(os.environ.get("LLVERIFY_DIFF_SEED", "20250917"))
MIN_CASES = 300


def bases_dict(layout: LinearLayout) -> dict[str, list[list[int]]]:
    return {name: [list(b) for b in values] for name, values in layout.bases}


def identity(size: int, in_dim: str, out_dim: str) -> LinearLayout:
    return LinearLayout.identity_1d(size, in_dim, out_dim)


def shared_ll(offset: list[list[int]], rank: int) -> LinearLayout:
    """``LinearLayout({{offset, ...}, {block, {}}}, {dim0, ...})`` as the C++ test writes it."""
    return LinearLayout.from_bases(
        [("offset", offset), ("block", [])], [f"dim{d}" for d in range(rank)]
    )


# ------------------------------------------- LinearLayoutConversionsTest.cpp ports

#: name -> ((vec, perPhase, maxPhase, order), shape, expected layout).  The C++ helper
#: ``shared(vec, perPhase, maxPhase, cpg, cSplit, ord, cOrd)`` is used with one CTA.
PORTED_SWIZZLED: dict[str, tuple[tuple[Any, ...], list[int], LinearLayout]] = {
    "SharedSimple1D": (
        (1, 1, 1, [0]),
        [1024],
        identity(1024, "offset", "dim0") * identity(1, "block", "dim0"),
    ),
    "SharedSimple2D": (
        (1, 1, 1, [1, 0]),
        [128, 128],
        (
            identity(128, "offset", "dim1")
            * identity(128, "offset", "dim0")
            * identity(1, "block", "dim0")
        ).transpose_outs(["dim0", "dim1"]),
    ),
    "SharedSimple2D_Order01": (
        (1, 1, 1, [0, 1]),
        [128, 128],
        identity(128, "offset", "dim0")
        * identity(128, "offset", "dim1")
        * identity(1, "block", "dim0"),
    ),
    "SharedSwizzled2D_MaxPhaseOnly": (
        (1, 1, 4, [1, 0]),
        [32, 32],
        shared_ll(
            [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 1], [2, 2], [4, 0], [8, 0], [16, 0]],
            2,
        ),
    ),
    "SharedSwizzled2D_PerPhaseMaxPhase": (
        (1, 2, 4, [1, 0]),
        [32, 32],
        shared_ll(
            [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 1], [4, 2], [8, 0], [16, 0]],
            2,
        ),
    ),
    "SharedSwizzled2D_Vec": (
        (2, 1, 4, [1, 0]),
        [4, 8],
        shared_ll([[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]], 2),
    ),
    "SharedSwizzled2D_PerPhaseMaxPhaseVec": (
        (2, 2, 4, [1, 0]),
        [32, 32],
        shared_ll(
            [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 2], [4, 4], [8, 0], [16, 0]],
            2,
        ),
    ),
    "SharedSwizzled4D": (
        (2, 2, 4, [3, 2, 1, 0]),
        [2, 4, 32, 32],
        shared_ll(
            [
                [0, 0, 0, 1],
                [0, 0, 0, 2],
                [0, 0, 0, 4],
                [0, 0, 0, 8],
                [0, 0, 0, 16],
                [0, 0, 1, 0],
                [0, 0, 2, 2],
                [0, 0, 4, 4],
                [0, 0, 8, 0],
                [0, 0, 16, 0],
                [0, 1, 0, 0],
                [0, 2, 0, 0],
                [1, 0, 0, 0],
            ],
            4,
        ),
    ),
    "SharedSwizzled2D_Order01": (
        (1, 1, 4, [0, 1]),
        [4, 8],
        shared_ll([[1, 0], [2, 0], [1, 1], [2, 2], [0, 4]], 2),
    ),
    "Shared1DSwizzle": (
        (2, 2, 4, [1, 0]),
        [64, 1],
        identity(64, "offset", "dim0")
        * identity(1, "offset", "dim1")
        * identity(1, "block", "dim0"),
    ),
}

PORTED_ROTATING: dict[str, tuple[tuple[Any, ...], list[int], LinearLayout]] = {
    "AMDRotatingShared2D_8x16_ord10": (
        (2, 2, 2, [1, 0]),
        [8, 16],
        shared_ll([[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 2], [4, 2]], 2),
    ),
    "AMDRotatingShared2D_8x16_ord01": (
        (2, 2, 2, [0, 1]),
        [8, 16],
        shared_ll([[1, 0], [2, 0], [4, 0], [0, 1], [2, 2], [2, 4], [0, 8]], 2),
    ),
    # "64 rows is enough to fit two full patterns with given parameters, so last base is
    # {32, 0}"
    "AMDRotatingShared2D_64x64": (
        (4, 2, 4, [1, 0]),
        [64, 64],
        shared_ll(
            [
                [0, 1],
                [0, 2],
                [0, 4],
                [0, 8],
                [0, 16],
                [0, 32],
                [1, 0],
                [2, 4],
                [4, 8],
                [8, 4],
                [16, 8],
                [32, 0],
            ],
            2,
        ),
    ),
    "AMDRotatingShared3D_4x64x64": (
        (4, 2, 4, [2, 1, 0]),
        [4, 64, 64],
        shared_ll(
            [
                [0, 0, 1],
                [0, 0, 2],
                [0, 0, 4],
                [0, 0, 8],
                [0, 0, 16],
                [0, 0, 32],
                [0, 1, 0],
                [0, 2, 4],
                [0, 4, 8],
                [0, 8, 4],
                [0, 16, 8],
                [0, 32, 0],
                [1, 0, 0],
                [2, 0, 0],
            ],
            3,
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(PORTED_SWIZZLED))
def test_ported_swizzled(name: str) -> None:
    params, shape, want = PORTED_SWIZZLED[name]
    enc = SwizzledSharedLayout(*params)
    assert enc.to_linear_layout(shape) == want
    parsed, _ = parse_encoding(enc.ttgir())
    assert parsed == enc
    assert to_linear_layout(enc.ttgir(), shape) == want


@pytest.mark.parametrize("name", sorted(PORTED_ROTATING))
def test_ported_amd_rotating(name: str) -> None:
    params, shape, want = PORTED_ROTATING[name]
    enc = AMDRotatingSharedLayout(*params)
    assert enc.to_linear_layout(shape) == want
    assert to_linear_layout(enc.ttgir(), shape) == want


def test_ttgir_text_examples() -> None:
    """Texts as Triton 3.9 prints them (checked against Triton in the differential)."""
    assert SwizzledSharedLayout(8, 1, 8, [1, 0]).ttgir() == (
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
    )
    assert SwizzledSharedLayout(8, 1, 8, [1, 0], [[1, 0], [0, 0]]).ttgir() == (
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], "
        "CGALayout = [[1, 0], [0, 0]]}>"
    )
    assert AMDRotatingSharedLayout(4, 2, 4, [1, 0]).ttgir() == (
        "#ttg.amd_rotating_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>"
    )
    assert SharedLinearLayout([[0, 1], [1, 0]], [[2, 0]], 32).ttgir() == (
        "#ttg.shared_linear<{offset = [[0, 1], [1, 0]], block = [[2, 0]]}, alignment = 32>"
    )
    inner = SwizzledSharedLayout(1, 1, 1, [1, 0])
    assert PartitionedSharedLayout(2, 4, 0, inner).ttgir() == (
        "#ttg.partitioned_shared<{numPartitions = 2, numGroups = 4, partitionDim = 0, "
        "partitionLayout = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, "
        "order = [1, 0]}>}>"
    )


def test_partitioned_example_from_triton_docs() -> None:
    """PartitionedSharedEncodingAttr's example: numPartitions = 2, numGroups = 4 on a
    [128, 32] tensor: 8 pieces of [16, 32]; buffer 0 holds pieces 0, 2, 4, 6."""
    inner = SwizzledSharedLayout(1, 1, 1, [1, 0])
    layout = PartitionedSharedLayout(2, 4, 0, inner).to_linear_layout([128, 32])
    assert [n for n, _ in layout.bases] == ["offset", "block", "partition"]
    for piece in range(8):
        for offset in (0, 5 * 32 + 7):  # an element inside piece `piece`
            partition, group = piece % 2, piece // 2
            point = {"offset": offset + group * 16 * 32, "block": 0, "partition": partition}
            assert layout.apply(point) == {"dim0": 16 * piece + offset // 32, "dim1": offset % 32}


def test_rotating_differs_from_swizzled_after_max_phase_blocks() -> None:
    """The doc's vec=1, perPhase=1, maxPhase=2 example: rows 2 and 3 XOR with 1 and 0."""
    layout = AMDRotatingSharedLayout(1, 1, 2, [1, 0]).to_linear_layout([8, 4])
    stored = [[layout.apply({"offset": 4 * r + c, "block": 0})["dim1"] for c in range(4)]
              for r in range(8)]  # fmt: skip
    # memory row r holds the tensor columns (c ^ combinedPhase(r))
    assert stored[:4] == [[0, 1, 2, 3], [1, 0, 3, 2], [1, 0, 3, 2], [0, 1, 2, 3]]
    assert stored[4:] == stored[:4]


def test_shared_linear_shape_and_rank() -> None:
    enc = SharedLinearLayout([[0, 1], [0, 2], [1, 0], [0, 0]], [[2, 0]])
    assert enc.shape == [4, 4] and enc.rank == 2
    layout = enc.to_linear_layout([4, 4])
    assert bases_dict(layout) == {"offset": [[0, 1], [0, 2], [1, 0], [0, 0]], "block": [[2, 0]]}
    # an offset-free layout is legal TTGIR (Gluon's class asserts offset_bases non-empty)
    assert SharedLinearLayout([], [[1]]).rank == 1


def test_gluon_converters_read_attributes() -> None:
    """from_gluon only reads attributes: stand-ins named like the Gluon classes work."""

    @dataclass
    class SwizzledSharedLayout_:  # noqa: N801 - renamed below
        vec: int
        per_phase: int
        max_phase: int
        order: list[int]
        cga_layout: list[list[int]]

    SwizzledSharedLayout_.__name__ = "SwizzledSharedLayout"
    fake = SwizzledSharedLayout_(2, 1, 4, [1, 0], [[0, 1]])
    assert from_gluon(fake) == SwizzledSharedLayout(2, 1, 4, [1, 0], [[0, 1]])


# ------------------------------------------------------------------ the oracle


def run_oracle(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Triton's answers, one per case; ``{"abort": stderr}`` for a case that killed the
    worker (the rest are resubmitted)."""
    from cases.triton import require_triton

    require_triton()
    done: list[dict[str, Any]] = []
    while len(done) < len(cases):
        remaining = cases[len(done) :]
        result = subprocess.run(
            [sys.executable, str(WORKER)],
            input=json.dumps(remaining),
            capture_output=True,
            text=True,
        )
        lines = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
        done.extend(lines)
        if len(lines) < len(remaining):
            stderr = "\n".join(
                x for x in result.stderr.splitlines() if "leak" not in x and "nanobind" not in x
            )
            done.append({"abort": stderr[-600:] or f"exit status {result.returncode}"})
    return done


def refused(result: dict[str, Any]) -> bool:
    return "bases" not in result and "ttgir" not in result


def lists(bases: Any) -> list[list[int]]:
    return [list(b) for b in bases]


def gluon_expr(enc: Encoding) -> str:
    if isinstance(enc, SwizzledSharedLayout):
        return (
            f"ttgl.SwizzledSharedLayout({enc.vec}, {enc.per_phase}, {enc.max_phase}, "
            f"{list(enc.order)}, {lists(enc.cga_layout)})"
        )
    if isinstance(enc, SharedLinearLayout):
        return (
            f"ttgl.SharedLinearLayout({lists(enc.offset_bases)}, {lists(enc.block_bases)}, "
            f"{enc.alignment})"
        )
    assert isinstance(enc, PartitionedSharedLayout)
    return (
        f"PartitionedSharedLayout({enc.num_partitions}, {enc.num_groups}, "
        f"{enc.partition_dim}, {gluon_expr(enc.partition_layout)})"
    )


def gluon_scope() -> dict[str, Any]:
    ttgl = pytest.importorskip("triton.experimental.gluon.language")
    cdna5 = pytest.importorskip("triton.experimental.gluon.language.amd.cdna5")
    return {"ttgl": ttgl, "PartitionedSharedLayout": cdna5.PartitionedSharedLayout}


# ------------------------------------------------------------------ generators


def gen_cga(rng: random.Random, rank: int) -> list[list[int]]:
    """A valid CGA: per dim the unit vectors 1, 2, 4, ... in any order, interleaved across
    dims, with broadcast (zero) bases mixed in."""
    bits = [0] * rank
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        bits[rng.randrange(rank)] += 1
    entries = []
    for d in range(rank):
        values = [1 << j for j in range(bits[d])]
        rng.shuffle(values)
        entries += [(d, v) for v in values]
    rng.shuffle(entries)
    order = {d: [v for e, v in entries if e == d] for d in range(rank)}
    cga = []
    for d, _ in entries:
        basis = [0] * rank
        basis[d] = order[d].pop(0)
        cga.append(basis)
        if rng.random() < 0.2:
            cga.insert(rng.randrange(len(cga) + 1), [0] * rank)
    return cga


def gen_shape(rng: random.Random, rank: int, max_log2: int = 14) -> list[int]:
    while True:
        logs = [rng.choice([0, 1, 2, 3, 4, 5, 6, 7]) for _ in range(rank)]
        if sum(logs) <= max_log2:
            return [1 << k for k in logs]


def gen_swizzle_params(rng: random.Random) -> tuple[int, int, int]:
    if rng.random() < 0.1:  # Triton does not require powers of 2 (nor vec > 0)
        return rng.choice([0, 3, 5, 6]), rng.choice([1, 3]), rng.choice([3, 5, 6])
    return (
        rng.choice([1, 2, 4, 8, 16]),
        rng.choice([1, 1, 2, 4, 8]),
        rng.choice([1, 2, 4, 8, 16]),
    )


def gen_swizzled(rng: random.Random, rank: int | None = None) -> SwizzledSharedLayout:
    rank = rank or rng.randint(1, 4)
    order = list(range(rank))
    rng.shuffle(order)
    cga = gen_cga(rng, rank) if rng.random() < 0.5 else []
    return SwizzledSharedLayout(*gen_swizzle_params(rng), order, cga)


def gen_shared_linear(rng: random.Random) -> SharedLinearLayout:
    """An invertible matrix (unit vectors mixed by XOR row operations) split between offset
    and block, with zero (broadcast) bases inserted."""
    rank = rng.randint(1, 4)
    while True:
        logs = [rng.randint(0, 4) for _ in range(rank)]
        if 1 <= sum(logs) <= 10:
            break
    vectors = []
    for d in range(rank):
        for j in range(logs[d]):
            basis = [0] * rank
            basis[d] = 1 << j
            vectors.append(basis)
    rng.shuffle(vectors)
    for _ in range(rng.randint(0, 2 * len(vectors))):
        i, j = rng.sample(range(len(vectors)), 2) if len(vectors) > 1 else (0, 0)
        if i != j:
            vectors[i] = [a ^ b for a, b in zip(vectors[i], vectors[j])]
    blocks = rng.randint(0, min(2, len(vectors) - 1))
    offset, block = vectors[: len(vectors) - blocks], vectors[len(vectors) - blocks :]
    for part in (offset, block):
        if rng.random() < 0.3:
            part.insert(rng.randrange(len(part) + 1), [0] * rank)
    return SharedLinearLayout(offset, block, 1 << rng.randint(0, 10))


def gen_partitioned(rng: random.Random, depth: int = 0) -> tuple[tuple[Any, ...], list[int]]:
    """(num_partitions, num_groups, partition_dim, partition_layout) and a shape it
    converts at (pieces of at least one element); the arguments may break the rule that a
    SharedLinear piece factors into CTA and CGA layouts."""
    kind = rng.random()
    inner: Encoding
    if kind < 0.6 or depth > 0:
        inner = gen_swizzled(rng, rng.randint(1, 3))
        piece = gen_shape(rng, inner.rank, 10)
    elif kind < 0.85:
        inner = gen_shared_linear(rng)
        piece = list(inner.shape)
    else:
        while True:
            args, piece = gen_partitioned(rng, depth + 1)
            try:
                inner = PartitionedSharedLayout(*args)
                break
            except EncodingError:
                continue
    partitions, groups = rng.choice([2, 4, 8]), rng.choice([1, 2, 4])
    dim = rng.randrange(inner.rank)
    shape = list(piece)
    shape[dim] *= partitions * groups
    return (partitions, groups, dim, inner), shape


def partitioned_expr(args: tuple[Any, ...]) -> str:
    partitions, groups, dim, inner = args
    return f"PartitionedSharedLayout({partitions}, {groups}, {dim}, {gluon_expr(inner)})"


def gen_rotating(rng: random.Random) -> AMDRotatingSharedLayout:
    base = gen_swizzled(rng)
    return AMDRotatingSharedLayout(
        base.vec, base.per_phase, base.max_phase, base.order, base.cga_layout
    )


def has_offsets(enc: Encoding, shape: list[int]) -> bool:
    """Gluon's binding returns a ttgl.SharedLinearLayout, which asserts offset_bases is
    non-empty: Triton cannot report a layout whose CTA holds one element."""
    return bool(dict(enc.to_linear_layout(shape).bases)["offset"])


def generate_cases() -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    cases: list[dict[str, Any]] = []
    while len(cases) < 360:
        enc = gen_swizzled(rng)
        shape = gen_shape(rng, enc.rank)
        if has_offsets(enc, shape):
            cases.append({"family": "swizzled", "encoding": enc, "shape": shape})
    for _ in range(320):
        lin = gen_shared_linear(rng)
        cases.append({"family": "shared_linear", "encoding": lin, "shape": list(lin.shape)})
    partitioned = unfactorable = 0
    while partitioned < 320:
        args, shape = gen_partitioned(rng)
        try:
            part = PartitionedSharedLayout(*args)
        except EncodingError as error:  # a SharedLinear piece that does not factor
            assert "must factor into CTA and CGA layouts" in str(error)
            if unfactorable < 6:
                expr = partitioned_expr(args)
                cases.append({"family": "unfactorable", "expr": expr, "shape": shape})
                unfactorable += 1
            continue
        if has_offsets(part, shape):
            cases.append({"family": "partitioned", "encoding": part, "shape": shape})
            partitioned += 1
    for name, (params, shape, _) in PORTED_SWIZZLED.items():
        enc = SwizzledSharedLayout(*params)
        cases.append({"family": "ported", "name": name, "encoding": enc, "shape": shape})
    return cases


def _compare(case: dict[str, Any], result: dict[str, Any], scope: dict[str, Any]) -> str | None:
    """None when llverify agrees with Triton on every path, else what differs."""
    enc, shape = case["encoding"], case["shape"]
    if "bases" not in result:
        return f"Triton refused a generated case: {result}"
    try:
        layout = enc.to_linear_layout(shape)
        mine = bases_dict(layout)
        # Gluon's binding returns the offset and block bases (a partitioned layout's
        # "partition" in dim is left out).
        if {k: mine[k] for k in ("offset", "block")} != result["bases"]:
            return f"bases: llverify {mine}, Triton {result['bases']}"
        if layout.get_out_dim_sizes() != list(shape):
            return f"out sizes {layout.get_out_dim_sizes()} != shape {shape}"
        if enc.ttgir() != result.get("ttgir"):
            return f"ttgir: llverify {enc.ttgir()!r}, Triton {result.get('ttgir')!r}"
        parsed, _ = parse_encoding(result["ttgir"])
        if parsed != enc or parsed.to_linear_layout(shape) != layout:
            return f"parse_encoding(Triton's text) gives {parsed!r}"
        gluon = eval(gluon_expr(enc), scope)  # noqa: S307 - generated here
        if from_gluon(gluon) != enc or to_linear_layout(gluon, shape) != layout:
            return f"the Gluon object gives {from_gluon(gluon)!r}"
    except LLVerifyError as error:
        return f"llverify raised {type(error).__name__}: {error}"
    return None


@pytest.fixture(scope="module")
def differential() -> list[dict[str, Any]]:
    cases = generate_cases()
    results = run_oracle(
        [
            {"kind": "gluon", "layout": c.get("expr") or gluon_expr(c["encoding"]),
             "shape": c["shape"]}
            for c in cases
        ]
    )  # fmt: skip
    scope = gluon_scope()
    for case, result in zip(cases, results):
        case["triton"] = result
        if case["family"] != "unfactorable":
            case["mismatch"] = _compare(case, result, scope)
    return cases


@pytest.mark.triton
@pytest.mark.parametrize("family", ["swizzled", "shared_linear", "partitioned"])
def test_differential_vs_triton(differential, family: str) -> None:
    cases = [c for c in differential if c["family"] == family]
    assert len(cases) >= MIN_CASES
    bad = [(gluon_expr(c["encoding"]), c["shape"], c["mismatch"]) for c in cases if c["mismatch"]]
    assert not bad, f"{len(bad)} of {len(cases)} {family} cases differ, e.g. {bad[:3]}"


@pytest.mark.triton
def test_unfactorable_partitions_refused_by_triton(differential) -> None:
    """Partitioned layouts whose SharedLinear piece llverify refuses (it does not factor
    into CTA and CGA layouts): Triton aborts on their memdesc type."""
    cases = [c for c in differential if c["family"] == "unfactorable"]
    assert len(cases) >= 3
    for case in cases:
        assert "ttgir" not in case["triton"], case


@pytest.mark.triton
def test_ported_cases_hold_in_triton(differential) -> None:
    """The C++ test's expected swizzled layouts are Triton 3.9's own answers."""
    cases = [c for c in differential if c["family"] == "ported"]
    assert len(cases) == len(PORTED_SWIZZLED)
    for case in cases:
        want = bases_dict(PORTED_SWIZZLED[case["name"]][2])
        assert case["triton"]["bases"] == want, case["name"]


@pytest.mark.triton
def test_differential_covers_the_interesting_cases(differential) -> None:
    swizzled = [c for c in differential if c["family"] == "swizzled"]
    assert {c["encoding"].rank for c in swizzled} == {1, 2, 3, 4}
    assert {tuple(c["encoding"].order) for c in swizzled if c["encoding"].rank == 3} == set(
        itertools.permutations(range(3))
    )
    with_cga = [c for c in swizzled if c["encoding"].cga_layout]
    assert len(with_cga) >= 100
    assert sum(any(not any(b) for b in c["encoding"].cga_layout) for c in with_cga) >= 20
    clamped = [
        c
        for c in with_cga
        if any(2 ** sum(1 for b in c["encoding"].cga_layout if b[d]) > s
               for d, s in enumerate(c["shape"]))
    ]  # fmt: skip
    assert len(clamped) >= 20
    wraps = [
        c
        for c in swizzled
        if c["encoding"].rank >= 2
        and c["encoding"].vec * c["encoding"].max_phase > c["shape"][c["encoding"].order[0]]
    ]
    assert len(wraps) >= 50
    assert sum(not all(_pow2(v) for v in _params(c["encoding"])) for c in swizzled) >= 20
    linear = [c["encoding"] for c in differential if c["family"] == "shared_linear"]
    assert {e.rank for e in linear} == {1, 2, 3, 4}
    assert sum(bool(e.block_bases) for e in linear) >= 100
    assert sum(any(not any(b) for b in e.offset_bases) for e in linear) >= 50
    inners = {type(c["encoding"].partition_layout) for c in differential
              if c["family"] == "partitioned"}  # fmt: skip
    assert inners == {SwizzledSharedLayout, SharedLinearLayout, PartitionedSharedLayout}


def _params(enc: SwizzledSharedLayout) -> tuple[int, int, int]:
    return enc.vec, enc.per_phase, enc.max_phase


def _pow2(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


@pytest.mark.triton
def test_shared_linear_text_parses(differential) -> None:
    """Triton's shared_linear texts (alone and inside partitioned ones) parse back."""
    pending = [
        c for c in differential if "encoding" in c and "shared_linear" in c["encoding"].ttgir()
    ]
    assert len(pending) >= MIN_CASES
    for case in pending:
        parsed, _ = parse_encoding(case["triton"]["ttgir"])
        assert parsed == case["encoding"]
        assert parsed.to_linear_layout(case["shape"]) == case["encoding"].to_linear_layout(
            case["shape"]
        )


# ------------------------------------------------------------------ AMD rotating


@pytest.fixture(scope="module")
def rotating_oracle() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(round trips, swizzled-equivalent cases): the rotating texts through Triton's
    parser/printer, and rotating layouts whose block number is always 0 next to Triton's
    swizzled layout of the same parameters."""
    rng = random.Random(SEED + 1)
    trips = []
    for _ in range(200):
        enc = gen_rotating(rng)
        trips.append({"encoding": enc, "shape": gen_shape(rng, enc.rank)})
    same = []
    while len(same) < 150:
        enc = gen_rotating(rng)
        shape = gen_shape(rng, enc.rank)
        rows = shape[enc.order[1]] if enc.rank > 1 else 1
        if enc.cga_layout or (rows > enc.per_phase * enc.max_phase and enc.max_phase > 1):
            continue
        if not has_offsets(enc, shape):
            continue
        same.append({"encoding": enc, "shape": shape})
    queries = [{"kind": "parse", "text": c["encoding"].ttgir(), "shape": c["shape"]} for c in trips]
    for case in same:
        enc = case["encoding"]
        twin = SwizzledSharedLayout(enc.vec, enc.per_phase, enc.max_phase, enc.order)
        queries.append({"kind": "gluon", "layout": gluon_expr(twin), "shape": case["shape"]})
    results = run_oracle(queries)
    for case, result in zip(trips + same, results):
        case["triton"] = result
    return trips, same


@pytest.mark.triton
def test_amd_rotating_ttgir_round_trips_through_triton(rotating_oracle) -> None:
    trips, _ = rotating_oracle
    assert len(trips) >= 200
    bad = []
    for case in trips:
        enc = case["encoding"]
        if case["triton"].get("ttgir") != enc.ttgir():
            bad.append((enc.ttgir(), case["triton"]))
        elif parse_encoding(case["triton"]["ttgir"])[0] != enc:
            bad.append((enc.ttgir(), "parse_encoding differs"))
    assert not bad, f"{len(bad)} of {len(trips)} differ, e.g. {bad[:3]}"
    assert {c["encoding"].rank for c in trips} == {1, 2, 3, 4}
    assert sum(bool(c["encoding"].cga_layout) for c in trips) >= 50


@pytest.mark.triton
def test_amd_rotating_equals_triton_swizzled_without_block_rotation(rotating_oracle) -> None:
    """With at most perPhase * maxPhase rows (or maxPhase 1) and one CTA the block number
    is 0 and Triton's rotating converter is its swizzled one."""
    _, same = rotating_oracle
    bad = []
    for case in same:
        layout = case["encoding"].to_linear_layout(case["shape"])
        if "bases" not in case["triton"] or bases_dict(layout) != case["triton"]["bases"]:
            bad.append((case["encoding"], case["shape"], case["triton"]))
    assert not bad, f"{len(bad)} of {len(same)} differ, e.g. {bad[:2]}"
    assert sum(c["encoding"].rank >= 2 and c["encoding"].max_phase > 1 for c in same) >= 50


def test_amd_rotating_cga_quirk() -> None:
    """Triton builds the rotating swizzle on the whole shape, then the CGA zeroes what is
    beyond the CTA's share (unlike the swizzled converter, which swizzles per CTA)."""
    rot = AMDRotatingSharedLayout(4, 1, 4, [1, 0], [[0, 1]]).to_linear_layout([8, 16])
    swz = SwizzledSharedLayout(4, 1, 4, [1, 0], [[0, 1]]).to_linear_layout([8, 16])
    # Rotating on 16 columns: column bit 8 and rows 1, 2, 4 -> columns 4, 8, 4; shrinking
    # dim1 to the CTA's 8 columns zeroes every 8: a broadcast offset bit, row 2 unswizzled.
    assert bases_dict(rot)["offset"] == [[0, 1], [0, 2], [0, 4], [0, 0], [1, 4], [2, 0], [4, 4]]
    # Swizzled on the CTA's 8 columns: 3 column bits; rows 1, 2, 4 -> 4, 8 % 8, 0.
    assert bases_dict(swz)["offset"] == [[0, 1], [0, 2], [0, 4], [1, 4], [2, 0], [4, 0]]
    assert bases_dict(rot)["block"] == bases_dict(swz)["block"] == [[0, 8]]


# ------------------------------------------------------------------ verifier rules


@dataclass(frozen=True)
class _Padded(Encoding):
    """A stand-in for a PaddedShared encoding (only its mnemonic matters here)."""

    mnemonic = "padded_shared"

    @property
    def rank(self) -> int:
        return 2

    def to_linear_layout(self, shape: Any) -> LinearLayout:
        raise AssertionError("never called")

    def ttgir(self) -> str:
        return "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [8, 8]}>"


SWZ = "ttgl.SwizzledSharedLayout"
LIN = "ttgl.SharedLinearLayout"
PART = "PartitionedSharedLayout"
INNER = f"{SWZ}(1, 1, 1, [1, 0])"

#: (rule, llverify call, message pattern, Gluon expression and shape Triton refuses, or None
#: where Triton 3.9 has no rule and does not crash).
RULES: list[tuple[str, Any, str, tuple[str, list[int]] | None]] = [
    (
        "order permutation",
        lambda: SwizzledSharedLayout(1, 1, 1, [1, 1]),
        r"'order' must be a permutation of 0..1, not \[1, 1\]",
        (f"{SWZ}(1, 1, 1, [1, 1])", [8, 8]),
    ),
    ("rank 0", lambda: SwizzledSharedLayout(1, 1, 1, []), r"must not be empty", None),
    (
        "CGA rank",
        lambda: SwizzledSharedLayout(1, 1, 1, [1, 0], [[1]]),
        r"order size \(2\) must match CGALayout rank \(1\)",
        (f"{SWZ}(1, 1, 1, [1, 0], [[1]])", [8, 8]),
    ),
    (
        "CGA permutation (repeated)",
        lambda: SwizzledSharedLayout(1, 1, 1, [1, 0], [[1, 0], [1, 0]]),
        r"permutation matrix",
        (f"{SWZ}(1, 1, 1, [1, 0], [[1, 0], [1, 0]])", [8, 8]),
    ),
    (
        "CGA permutation (two dims)",
        lambda: AMDRotatingSharedLayout(1, 1, 1, [1, 0], [[1, 1]]),
        r"permutation matrix",
        (f"{SWZ}(1, 1, 1, [1, 0], [[1, 1]])", [8, 8]),
    ),
    (
        "CGA permutation (gap)",
        lambda: SwizzledSharedLayout(1, 1, 1, [1, 0], [[2, 0]]),
        r"invalid cga_layout.*surjective",
        (f"{SWZ}(1, 1, 1, [1, 0], [[2, 0]])", [8, 8]),
    ),
    (
        "perPhase 0",
        lambda: SwizzledSharedLayout(1, 0, 1, [1, 0]),
        r"perPhase must be at least 1",
        (f"{SWZ}(1, 0, 1, [1, 0])", [8, 8]),
    ),
    (
        "maxPhase 0",
        lambda: AMDRotatingSharedLayout(1, 1, 0, [1, 0]),
        r"maxPhase must be at least 1",
        (f"{SWZ}(1, 1, 0, [1, 0])", [8, 8]),
    ),
    (
        "unsigned vec",
        lambda: SwizzledSharedLayout(-1, 1, 1, [1, 0]),
        r"'vec' must be an unsigned integer below 2\*\*31",
        None,  # TTGIR: "expected an unsigned integer value in vec"; Gluon wraps -1 to 2**32 - 1
    ),
    (
        "int vec",
        lambda: SwizzledSharedLayout(1 << 31, 1, 1, [1, 0]),
        r"'vec' must be an unsigned integer below 2\*\*31",
        None,
    ),
    (
        "vec * phase overflow",
        lambda: SwizzledSharedLayout(1 << 30, 1, 4, [1, 0]).to_linear_layout([8, 8]),
        r"vec \* phase = 2147483648 overflows the C\+\+ int",
        None,  # Triton: signed overflow (undefined behaviour), no error
    ),
    (
        "shape rank",
        lambda: SwizzledSharedLayout(1, 1, 1, [1, 0]).to_linear_layout([8]),
        r"must have the encoding's rank 2",
        (f"{SWZ}(1, 1, 1, [1, 0])", [8]),
    ),
    (
        "shape power of 2",
        lambda: SwizzledSharedLayout(1, 1, 1, [1, 0]).to_linear_layout([8, 6]),
        r"shapes must be positive powers of 2",
        (f"{SWZ}(1, 1, 1, [1, 0])", [8, 6]),
    ),
    (
        "rotating CGA shrink",
        lambda: AMDRotatingSharedLayout(3, 1, 4, [1, 0], [[0, 1]]).to_linear_layout([8, 8]),
        r"cannot shrink .*ensureLayoutNotLargerThan",
        None,  # no Gluon class; Triton's assert in ensureLayoutNotLargerThan
    ),
    (
        "alignment",
        lambda: SharedLinearLayout([[0, 1], [1, 0]], [], 12),
        r"alignment must be a positive power of two, not 12",
        (f"{LIN}([[0, 1], [1, 0]], [], 12)", [2, 2]),
    ),
    (
        "alignment 0",
        lambda: SharedLinearLayout([[0, 1], [1, 0]], [], 0),
        r"alignment must be a positive power of two, not 0",
        (f"{LIN}([[0, 1], [1, 0]], [], 0)", [2, 2]),
    ),
    (
        "empty",
        lambda: SharedLinearLayout([], []),
        r"Empty Layout not supported",
        (f"{LIN}([], [])", [1]),
    ),
    (
        "ragged bases",
        lambda: SharedLinearLayout([[0, 1], [1]]),
        r"every basis must have 2 coordinates .* offset_bases\[1\] = \[1\]",
        (f"{LIN}([[0, 1], [1]])", [2, 2]),
    ),
    (
        "negative coordinate",
        lambda: SharedLinearLayout([[1], [-2], [4]]),
        r"must be non-negative",
        (f"{LIN}([[1], [-2], [4]])", [8]),
    ),
    (
        "surjective",
        lambda: SharedLinearLayout([[0, 1], [0, 6], [1, 0]]),
        r"The layout must be surjective",
        (f"{LIN}([[0, 1], [0, 6], [1, 0]])", [2, 8]),
    ),
    (
        "bijective",
        lambda: SharedLinearLayout([[0, 1], [0, 1], [1, 0]]),
        r"After removing the zero bases the layout must be bijective",
        (f"{LIN}([[0, 1], [0, 1], [1, 0]])", [2, 2]),
    ),
    (
        "bijective (block)",
        lambda: SharedLinearLayout([[0, 1], [0, 2]], [[1, 0], [1, 0]]),
        r"After removing the zero bases the layout must be bijective",
        (f"{LIN}([[0, 1], [0, 2]], [[1, 0], [1, 0]])", [2, 4]),
    ),
    (
        "shared linear shape",
        lambda: SharedLinearLayout([[0, 1], [0, 2], [1, 0]]).to_linear_layout([4, 2]),
        r"must be the layout's shape \[2, 4\]",
        (f"{LIN}([[0, 1], [0, 2], [1, 0]])", [4, 2]),
    ),
    (
        "numPartitions 1",
        lambda: PartitionedSharedLayout(1, 4, 0, SwizzledSharedLayout(1, 1, 1, [1, 0])),
        r"numPartitions must be a power of 2 and at least 2, not 1",
        (f"{PART}(1, 4, 0, {INNER})", [64, 32]),
    ),
    (
        "numPartitions 3",
        lambda: PartitionedSharedLayout(3, 4, 0, SwizzledSharedLayout(1, 1, 1, [1, 0])),
        r"numPartitions must be a power of 2 and at least 2, not 3",
        (f"{PART}(3, 4, 0, {INNER})", [64, 32]),
    ),
    (
        "numGroups 0",
        lambda: PartitionedSharedLayout(2, 0, 0, SwizzledSharedLayout(1, 1, 1, [1, 0])),
        r"numGroups must be a power of 2 and greater than 0, not 0",
        (f"{PART}(2, 0, 0, {INNER})", [64, 32]),
    ),
    (
        "numGroups 3",
        lambda: PartitionedSharedLayout(2, 3, 0, SwizzledSharedLayout(1, 1, 1, [1, 0])),
        r"numGroups must be a power of 2 and greater than 0, not 3",
        (f"{PART}(2, 3, 0, {INNER})", [64, 32]),
    ),
    (
        "partitionDim",
        lambda: PartitionedSharedLayout(2, 4, 2, SwizzledSharedLayout(1, 1, 1, [1, 0])),
        r"partitionDim \(2\) must be less than the layout rank \(2\)",
        (f"{PART}(2, 4, 2, {INNER})", [64, 32]),
    ),
    (
        "partitionLayout shared",
        lambda: PartitionedSharedLayout(2, 1, 0, BlockedLayout([1, 1], [4, 8], [1, 1], [1, 0])),
        r"partitionLayout must be a SharedEncodingTrait",
        (
            f"{PART}(2, 1, 0, ttgl.BlockedLayout([1, 1], [4, 8], [1, 1], [1, 0]))",
            [64, 32],
        ),
    ),
    (
        "piece size",
        lambda: PartitionedSharedLayout(
            2, 4, 0, SwizzledSharedLayout(1, 1, 1, [1, 0])
        ).to_linear_layout([4, 32]),
        r"shape\[0\] = 4 must be at least numPartitions \* numGroups = 8",
        (f"{PART}(2, 4, 0, {INNER})", [4, 32]),
    ),
    (
        "padded inner",
        lambda: PartitionedSharedLayout(2, 2, 0, _Padded()).to_linear_layout([8, 4]),
        r"does not support partitioned layouts wrapping padded layouts",
        (
            f"{PART}(2, 2, 0, ttgl.PaddedSharedLayout([[32, 4]], [[0, 1], [0, 2], [1, 0]], "
            "[], [2, 4]))",
            [8, 4],
        ),
    ),
]


@pytest.mark.parametrize(("rule", "build", "pattern", "triton"), RULES, ids=[r[0] for r in RULES])
def test_verifier_rules(rule: str, build: Any, pattern: str, triton: Any) -> None:
    with pytest.raises(EncodingError, match=pattern):
        build()


@pytest.mark.triton
def test_triton_refuses_what_the_rules_refuse() -> None:
    """Each rule with a Gluon spelling: Triton 3.9 raises or aborts on it too."""
    cases = [(rule, triton) for rule, _, _, triton in RULES if triton is not None]
    results = run_oracle(
        [{"kind": "gluon", "layout": expr, "shape": shape} for _, (expr, shape) in cases]
    )
    accepted = [(rule, result) for (rule, _), result in zip(cases, results) if not refused(result)]
    assert not accepted, f"Triton accepted: {accepted}"
    assert len(cases) >= 25


def test_type_errors() -> None:
    with pytest.raises(LayoutTypeError):
        SwizzledSharedLayout(1.5, 1, 1, [1, 0])
    with pytest.raises(LayoutTypeError):
        SwizzledSharedLayout(1, 1, 1, "10")
    with pytest.raises(LayoutTypeError):
        SharedLinearLayout([[0, 1]], [], True)
    with pytest.raises(LayoutTypeError):
        SharedLinearLayout("[[1]]")
    with pytest.raises(LayoutTypeError):
        PartitionedSharedLayout(2, 1, 0.5, SwizzledSharedLayout(1, 1, 1, [1, 0]))


# ------------------------------------------------------------------ TTGIR text

GOOD_TEXTS = [
    "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>",
    "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [0, 1], "
    "CGALayout = [[0, 0], [1, 0]]}>",
    "#ttg.amd_rotating_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [2, 1, 0]}>",
    "#ttg.partitioned_shared<{numPartitions = 2, numGroups = 4, partitionDim = 0, "
    "partitionLayout = #ttg.amd_rotating_shared<{vec = 4, perPhase = 2, maxPhase = 4, "
    "order = [1, 0]}>}>",
]


@pytest.mark.parametrize("text", GOOD_TEXTS)
def test_parse_and_print(text: str) -> None:
    enc, shape = parse_encoding(text)
    assert shape is None and enc.ttgir() == text
    assert parse_encoding("#shared = " + text)[0] == enc  # an IR dump alias line


def test_parse_defaults_like_triton() -> None:
    """Triton's parseSwizzledEncoding: missing vec / perPhase / maxPhase are 0 (vec = 0 is
    legal; perPhase = 0 is refused by llverify's rule)."""
    text = "#ttg.swizzled_shared<{perPhase = 2, maxPhase = 2, order = [1, 0]}>"
    assert parse_encoding(text)[0] == SwizzledSharedLayout(0, 2, 2, [1, 0])
    with pytest.raises(TTGIRError, match="perPhase must be at least 1"):
        parse_encoding("#ttg.swizzled_shared<{vec = 1, maxPhase = 2, order = [1, 0]}>")


#: (malformed text, llverify's message, Triton also refuses it through its parser).
BAD_TEXTS = [
    ("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0], foo = 1}>",
     r"unknown field 'foo'"),
    ("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]",
     r"expected '\}'"),
    ("#ttg.swizzled_shared<{vec = -2, perPhase = 1, maxPhase = 4, order = [1, 0]}>",
     r"'vec' must be an unsigned integer"),
    ("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 1]}>",
     r"must be a permutation"),
    ("#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0], "
     "CGALayout = [[1]]}>", r"must match CGALayout rank"),
    ("#ttg.amd_rotating_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0], "
     "CGALayout = [[1, 0], [1, 0]]}>", r"permutation matrix"),
    ("#ttg.shared_linear<{block = [[0, 1], [1, 0]]}, alignment = 16>",
     r"Expected basis of 'offset' not found"),
    ("#ttg.shared_linear<{offset = [[0, 1], [0, 1], [1, 0]]}, alignment = 16>",
     r"must be bijective"),
    ("#ttg.shared_linear<{offset = [[0, 1], [1, 0]]}, alignment = 12>",
     r"alignment must be a positive power of two"),
    ("#ttg.shared_linear<{offset = [[0, 1], [1, 0]], foo = []}, alignment = 16>",
     r"unknown field 'foo'"),
    ("#ttg.shared_linear<{offset = [[0, 1], [1, 0]]}>", r"missing field 'alignment'"),
    ("#ttg.shared_linear<{offset = [[0, 1], [1, 0]], alignment = 16}>",
     r"alignment must be specified outside of the linear layout braces"),
    ("#ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 0}>",
     r"missing partitionLayout"),
    ("#ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 0, "
     "partitionLayout = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], "
     "warpsPerCTA = [1, 1], order = [1, 0]}>}>", r"must be a SharedEncodingTrait"),
    ("#ttg.partitioned_shared<{numPartitions = 1, numGroups = 1, partitionDim = 0, "
     "partitionLayout = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, "
     "order = [1, 0]}>}>", r"numPartitions must be a power of 2"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "pattern"),
    [pytest.param(*bad) for bad in BAD_TEXTS],
)
def test_malformed_ttgir(text: str, pattern: str) -> None:
    with pytest.raises(TTGIRError, match=pattern) as info:
        parse_encoding(text)
    assert "^" in str(info.value)  # the caret under the position


@pytest.mark.triton
def test_triton_refuses_the_malformed_texts() -> None:
    results = run_oracle(
        [{"kind": "parse", "text": text, "shape": [2, 2]} for text, _ in BAD_TEXTS]
    )
    accepted = [(text, r) for (text, _), r in zip(BAD_TEXTS, results) if not refused(r)]
    assert not accepted, f"Triton accepted: {accepted}"


def test_parse_shared_linear_text() -> None:
    text = "#ttg.shared_linear<{offset = [[0, 1], [1, 0]], block = [[2, 0]]}, alignment = 32>"
    enc, _ = parse_encoding(text)
    assert enc == SharedLinearLayout([[0, 1], [1, 0]], [[2, 0]], 32)
    assert enc.ttgir() == text
    inside = (
        "#ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 1, "
        f"partitionLayout = {text}}}>"
    )
    assert parse_encoding(inside)[0].ttgir() == inside


# ------------------------------------------------------------------ specs/shared.py


def _encoding_of(ob: SharedObligation) -> SwizzledSharedLayout | AMDRotatingSharedLayout:
    cls = SwizzledSharedLayout if ob.kind == "swizzled" else AMDRotatingSharedLayout
    return cls(ob.vec, ob.per_phase, ob.max_phase, ob.order, ob.cga_layout)


@pytest.mark.parametrize("kind", ["swizzled", "rotating"])
def test_closed_forms_proved_on_every_obligation(kind: str) -> None:
    obligations = SWIZZLED_OBLIGATIONS if kind == "swizzled" else ROTATING_OBLIGATIONS
    assert len(obligations) >= 190
    start = time.perf_counter()
    bad = []
    for ob in obligations:
        layout = _encoding_of(ob).to_linear_layout(ob.shape)
        verdict = prove_equal(layout, ob.reference())
        if verdict.status != "proved":
            bad.append((ob.name, str(verdict)))
    elapsed = time.perf_counter() - start
    print(f"\n{kind}: {len(obligations)} obligations proved in {elapsed:.2f} s")
    assert not bad, bad[:3]


def test_unwrapped_phase_refuted_exactly_where_it_wraps() -> None:
    """Without the final ``& (C - 1)`` the closed form holds iff the largest phase a row
    reaches, times vec, stays inside the row: vec * min(maxPhase, R / perPhase) <= C."""
    refuted = proved = 0
    for ob in SWIZZLED_OBLIGATIONS:
        if len(ob.shape) < 2 or ob.cga_layout:
            continue
        columns, rows = ob.shape[ob.order[0]], ob.shape[ob.order[1]]
        wraps = ob.vec * min(ob.max_phase, rows // ob.per_phase) > columns
        verdict = prove_equal(_encoding_of(ob).to_linear_layout(ob.shape), ob.reference(False))
        assert verdict.refuted == wraps and verdict.proved != wraps, (ob.name, str(verdict))
        if wraps:
            assert verdict.counterexample is not None and "offset" in verdict.counterexample
        refuted += wraps
        proved += not wraps
    assert refuted >= 30 and proved >= 100


@pytest.mark.parametrize("control", NEGATIVE_CONTROLS, ids=[c[0] for c in NEGATIVE_CONTROLS])
def test_negative_controls_refuted(control: tuple[str, SharedObligation, dict[str, str]]) -> None:
    _, ob, wrong = control
    layout = _encoding_of(ob).to_linear_layout(ob.shape)
    assert prove_equal(layout, ob.reference()).proved  # the right form holds
    verdict = prove_equal(layout, wrong)
    assert verdict.status == "refuted", str(verdict)
    point = verdict.counterexample
    assert point is not None and point["offset"] > 0
    ins = {d: point.get(d, 0) for d in layout.get_in_dim_names()}
    assert layout.apply(ins) == verdict.actual != verdict.expected


# ------------------------------------------------------------------ families


def _family_cases(rng: random.Random, family: Any) -> list[dict[str, int]]:
    small = [m for m in family(6, 3).members()]
    large = family()
    names = list(large.params)
    members = []
    while len(members) < 300:
        values = {p: rng.randint(*large.params[p]) for p in names}
        if large.is_member(**values):
            members.append(values)
    return small + members


@pytest.mark.parametrize(
    ("family", "cls", "order"),
    [
        (swizzled_shared_2d, SwizzledSharedLayout, (1, 0)),
        (swizzled_shared_2d_order01, SwizzledSharedLayout, (0, 1)),
        (rotating_shared_2d, AMDRotatingSharedLayout, (1, 0)),
    ],
    ids=["swizzled[1,0]", "swizzled[0,1]", "rotating[1,0]"],
)
def test_family_instances_are_the_converter(family: Any, cls: Any, order: tuple[int, int]) -> None:
    """``family().instance(...)`` is the converter's offset layout, for every member of the
    small family (lc + lr <= 6, parameters <= 2**3) and 300 random members of the full one
    (lc + lr <= 20, parameters <= 2**7)."""
    rng = random.Random(SEED + 2)
    full = family()
    for params in _family_cases(rng, family):
        rows, cols = 1 << params["lr"], 1 << params["lc"]
        shape = [rows, cols] if order == (1, 0) else [cols, rows]
        enc = cls(1 << params["lv"], 1 << params["lp"], 1 << params["lm"], list(order))
        converter = enc.to_linear_layout(shape)
        member = full.instance(**params)
        assert member.bases == converter.bases[:1], params
        assert member.get_out_dim_sizes() == converter.get_out_dim_sizes() == shape


FAMILY_PROOFS = [
    ("swizzled[1,0]", swizzled_shared_2d, SWIZZLED_REFERENCE),
    ("swizzled[0,1]", swizzled_shared_2d_order01, SWIZZLED_REFERENCE_ORDER01),
    ("rotating[1,0]", rotating_shared_2d, ROTATING_REFERENCE),
]


@pytest.mark.parametrize(
    ("name", "family", "reference"), FAMILY_PROOFS, ids=[f[0] for f in FAMILY_PROOFS]
)
def test_family_parametric_proofs(name: str, family: Any, reference: dict[str, str]) -> None:
    """Every power-of-2 vec/perPhase/maxPhase up to 2**7 on every R x C <= 2**20 at once."""
    fam = family()
    start = time.perf_counter()
    verdict = prove_family_equal(fam, reference)
    elapsed = time.perf_counter() - start
    members = 21 * 22 // 2 * 8**3  # lc + lr <= 20, lv, lp, lm in 0..7
    print(f"\n{name}: {verdict.status} by {verdict.method} in {elapsed:.3f} s over "
          f"{members} members")  # fmt: skip
    assert verdict.status == "proved", str(verdict)
    assert verdict.method == "parametric-linear"


@pytest.mark.parametrize(
    ("family", "wrong", "needed"),
    [
        (swizzled_shared_2d, SWIZZLED_REFERENCE_WITHOUT_WRAP, "lv + lm > lc"),
        (rotating_shared_2d, SWIZZLED_REFERENCE, "lr > lp + lm"),
    ],
    ids=["swizzled-unwrapped", "rotating-as-swizzled"],
)
def test_family_negative_controls(family: Any, wrong: dict[str, str], needed: str) -> None:
    fam = family()
    verdict = prove_family_equal(fam, wrong)
    assert verdict.status == "refuted", str(verdict)
    point = verdict.counterexample
    assert point is not None
    params = {p: point[p] for p in fam.params}
    assert eval(needed, {}, dict(params))  # noqa: S307 - the condition written above
    layout = fam.instance(**params)
    ins = {d: point.get(d, 0) for d in layout.get_in_dim_names()}
    assert layout.apply(ins) == verdict.actual != verdict.expected


def test_rotating_family_cross_checked_by_enumeration() -> None:
    """The parametric verdicts agree with proving each member concretely (small bounds)."""
    assert prove_family_equal(
        rotating_shared_2d(3, 2), ROTATING_REFERENCE, method="enumerate"
    ).proved
    assert prove_family_equal(
        rotating_shared_2d(4, 1), SWIZZLED_REFERENCE, method="enumerate"
    ).refuted
