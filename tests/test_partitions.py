"""gfx1250 LDS partition conflicts (llverify.shared_memory.partitions) and the partitioned
layout search (llverify.shared_memory.swizzle.partitioned): Gluon's own CDNA5 GEMM layouts
are conflict-free, their unpartitioned and mis-partitioned variants and a conventional WMMA
warp grid are not (negative controls), every witness is replayed on the layouts, and the
search finds Gluon's partitioning."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cases.triton import require_triton
from llverify.encodings import (
    AMDWMMALayout,
    DotOperandLayout,
    PartitionedSharedLayout,
    SwizzledSharedLayout,
    to_linear_layout,
)
from llverify.errors import LayoutError, LayoutTypeError
from llverify.shared_memory.partitions import (
    PARTITION_MODELS,
    partition_conflicts,
    partition_table,
)
from llverify.shared_memory.swizzle.partitioned import synthesize_partitions

#: Gluon's make_partitioned_dot_layouts(64, 32, ..., num_warps=4, instr_shape=[16, 16, 32])
#: (Triton 3.9, amd/cdna5/_layouts.py): the WMMA layout and both operands' partitions
GLUON_WMMA = AMDWMMALayout(3, True, [[2, 1], [1, 0]], [[2, 0]], [16, 16, 32])
CONVENTIONAL_WMMA = AMDWMMALayout(3, True, [[1, 0], [2, 0]], [[0, 1]], [16, 16, 32])
INNER = SwizzledSharedLayout(4, 1, 4, [1, 0])
A_SHAPE, B_SHAPE = [64, 32], [32, 32]


def _a(parent: AMDWMMALayout = GLUON_WMMA) -> DotOperandLayout:
    return DotOperandLayout(0, parent, 8)


def _b(parent: AMDWMMALayout = GLUON_WMMA) -> DotOperandLayout:
    return DotOperandLayout(1, parent, 8)


def _replay(result, register_layout, shared_layout, shape) -> None:
    """The witness: each named lane holds the named element at the register, and that
    element's byte address (from the shared layout) lies in the named partition."""
    witness = result.witness
    assert witness is not None and result.conflicts > 0
    reg = to_linear_layout(register_layout, shape)
    address, partition = partition_table(shared_layout, shape, 16)
    model = PARTITION_MODELS["gfx1250"]
    warps = [a["warp"] for a in witness["accesses"]]
    assert warps[0] ^ warps[1] == 1
    for access in witness["accesses"]:
        point = {"register": witness["register"], "lane": access["lane"], "warp": access["warp"]}
        point = {d: point.get(d, 0) for d in reg.get_in_dim_names()}
        assert list(reg.apply(point).values()) == access["element"]
        flat = access["element"][0] * shape[1] + access["element"][1]
        assert int(address[flat]) == access["address"]
        assert int(partition[flat]) == witness["partition"]
        if "partition" not in str(shared_layout):
            assert model.partition_of(access["address"]) == witness["partition"]


def test_model_facts() -> None:
    model = PARTITION_MODELS["gfx1250"]
    assert (model.lds_bytes, model.partition_bytes, model.partitions) == (327_680, 65_536, 5)
    assert model.paired_warp_bits == (0,)


@pytest.mark.parametrize(("operand", "shape", "dim"), [(_a, A_SHAPE, 0), (_b, B_SHAPE, 1)])
def test_gluon_gemm_layouts_are_partition_conflict_free(operand, shape, dim) -> None:
    shared = PartitionedSharedLayout(2, 1, dim, INNER)
    result = partition_conflicts(operand(), shared, shape, 16)
    assert result.accesses > 0 and result.conflicts == 0 and result.witness is None
    assert result.partitions == (0, 1) and result.spans == 0


@pytest.mark.parametrize(("operand", "shape"), [(_a, A_SHAPE), (_b, B_SHAPE)])
def test_unpartitioned_buffer_conflicts_everywhere(operand, shape) -> None:
    result = partition_conflicts(operand(), INNER, shape, 16)
    assert result.conflicts == result.accesses > 0 and result.partitions == (0,)
    _replay(result, operand(), INNER, shape)


@pytest.mark.parametrize(("operand", "shape", "dim"), [(_a, A_SHAPE, 1), (_b, B_SHAPE, 0)])
def test_partitioned_along_k_conflicts(operand, shape, dim) -> None:
    """Cut along K, both waves of a pair read the same K half, so the same partition, in
    each instruction."""
    shared = PartitionedSharedLayout(2, 1, dim, INNER)
    result = partition_conflicts(operand(), shared, shape, 16)
    assert result.conflicts == result.accesses > 0 and result.partitions == (0, 1)
    _replay(result, operand(), shared, shape)


def test_conventional_warp_grid_conflicts_with_gluons_partitions() -> None:
    """Warps 0 and 1 on adjacent M tiles read the same half of A in one instruction."""
    shared = PartitionedSharedLayout(2, 1, 0, INNER)
    result = partition_conflicts(_a(CONVENTIONAL_WMMA), shared, A_SHAPE, 16)
    assert result.conflicts > 0
    _replay(result, _a(CONVENTIONAL_WMMA), shared, A_SHAPE)


@pytest.mark.parametrize(
    ("below", "conflicts", "spans"),
    [(2048, False, False), (1024, True, False), (512, True, True)],
)
def test_a_buffer_across_a_partition_boundary(below: int, conflicts: bool, spans: bool) -> None:
    """The 4 KiB A buffer placed ``below`` bytes under the 64 KiB boundary: at 2 KiB the
    boundary falls between M tiles 1 and 2, as the partitioned layout's would (no
    conflict); at 1 KiB only tile 0 is in partition 0, so warps 2 and 3 (tiles 1 and 3)
    meet in partition 1; at 512 bytes the boundary cuts tile 0, whose lanes then span two
    partitions."""
    base = 65_536 - below
    result = partition_conflicts(_a(), INNER, A_SHAPE, 16, base_bytes=base)
    assert result.partitions == (0, 1)
    assert (result.conflicts > 0, result.spans > 0) == (conflicts, spans)
    if conflicts:
        _replay_unpartitioned(result, base)
        if not spans:
            assert [a["warp"] for a in result.witness["accesses"]] == [2, 3]
    address, partition = partition_table(INNER, A_SHAPE, 16, base_bytes=base)
    assert int(address.min()) == base and set(partition.tolist()) == {0, 1}


def _replay_unpartitioned(result, base: int) -> None:
    """The witness of an unpartitioned buffer at ``base``: its addresses are the swizzled
    offsets plus ``base``, in the named partition."""
    reg = to_linear_layout(_a(), A_SHAPE)
    shared = to_linear_layout(INNER, A_SHAPE)
    offsets = {tuple(shared.apply({"offset": o, "block": 0}).values()): o for o in range(2048)}
    for access in result.witness["accesses"]:
        point = {"register": result.witness["register"], "lane": access["lane"],
                 "warp": access["warp"], "block": 0}  # fmt: skip
        element = tuple(reg.apply(point).values())
        assert list(element) == access["element"]
        assert base + 2 * offsets[element] == access["address"]
        assert access["address"] // 65_536 == result.witness["partition"]


def test_search_finds_gluons_partitions() -> None:
    for operand, shape, dim in ((_a(), A_SHAPE, 0), (_b(), B_SHAPE, 1)):
        best = synthesize_partitions([operand], INNER, shape, 16)
        assert best.conflicts == 0 and best.unpartitioned > 0
        assert (best.layout.num_partitions, best.layout.num_groups) == (2, 1)
        assert best.layout.partition_dim == dim
        assert "enumerated" in best.claim


def test_search_repartitions_a_conventional_grid() -> None:
    """For warps 0 and 1 on adjacent 16-row tiles, 16-row pieces alternate partitions."""
    best = synthesize_partitions([_a(CONVENTIONAL_WMMA)], INNER, A_SHAPE, 16)
    assert best.conflicts == 0
    assert (best.layout.partition_dim, best.layout.num_partitions) == (0, 2)
    assert A_SHAPE[0] // (best.layout.num_partitions * best.layout.num_groups) == 16


def test_search_keeps_unpartitioned_when_nothing_helps() -> None:
    """One warp: no pair of waves, nothing to gain; the unpartitioned layout is kept."""
    one_warp = AMDWMMALayout(3, True, [], [], [16, 16, 32])
    best = synthesize_partitions([DotOperandLayout(0, one_warp, 8)], INNER, [16, 32], 16)
    assert best.layout is None and best.conflicts == best.unpartitioned == 0


def test_bad_arguments() -> None:
    with pytest.raises(LayoutError, match="Argument 'target' must be one of"):
        partition_conflicts(_a(), INNER, A_SHAPE, 16, target="gfx942")
    with pytest.raises(LayoutError, match="element_bits"):
        partition_table(INNER, A_SHAPE, 12)
    with pytest.raises(LayoutError, match="base_bytes"):
        partition_table(INNER, A_SHAPE, 16, base_bytes=327_680)
    with pytest.raises(LayoutError, match="overflows the LDS"):
        partition_table(INNER, A_SHAPE, 16, base_bytes=327_680 - 1024)
    with pytest.raises(LayoutTypeError, match="Argument 'inner'"):
        synthesize_partitions([_a()], "swizzled", A_SHAPE, 16)


_GLUON = r"""
from triton.experimental.gluon import language as ttgl
from triton.experimental.gluon.language.amd.cdna5 import make_partitioned_dot_layouts
pa = ttgl.PaddedSharedLayout.with_identity_for([[64, 8]], [64, 32], [1, 0])
pb = ttgl.PaddedSharedLayout.with_identity_for([[64, 8]], [32, 32], [1, 0])
a, b, w = make_partitioned_dot_layouts(64, 32, pa, pb, 4, [16, 16, 32])
print("@@", w.warp_bases, w.reg_bases, w.transposed, a.num_partitions, a.num_groups,
      a.partition_dim, b.num_partitions, b.num_groups, b.partition_dim)
"""


@pytest.mark.triton
def test_gluon_helper_gives_the_layouts_tested_here() -> None:
    """Oracle: Triton 3.9's make_partitioned_dot_layouts returns GLUON_WMMA's warp and
    register bases and the partitions tested above."""
    require_triton()
    out = subprocess.run([sys.executable, "-c", _GLUON], capture_output=True, text=True)
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("@@"))
    assert line == "@@ [[2, 1], [1, 0]] [[2, 0]] True 2 1 0 2 1 1"


# ---------------------------------------------------------------------- the command line

_W = (
    "#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_wmma<{version = 3, isTranspose = true, "
    "ctaLayout = {register = [[2, 0]], warp = [[2, 1], [1, 0]]}, instrShape = [16, 16, 32]}>, "
    "kWidth = 8}>"
)
_S = "#ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 4, order = [1, 0]}>"
_P = (
    "#ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 0, "
    f"partitionLayout = {_S}}}>"
)


def test_cli_reports_and_gates(capsys) -> None:
    import json

    from llverify.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, main

    assert main(["lds-partitions", _W, _P, "--shape", "64x32"]) == EXIT_OK
    assert "0 of 64 accesses" in capsys.readouterr().out
    assert main(["lds-partitions", _W, _S, "--shape", "64x32", "--max-conflicts", "0"]) == (
        EXIT_FAILED
    )
    out = capsys.readouterr().out
    assert "64 of 64 accesses" in out and "first conflict: register 0, partition 0" in out
    assert main(["lds-partitions", _W, _S, "--shape", "64x32", "--json"]) == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert report["conflicts"] == 64 and report["witness"]["accesses"][1]["warp"] == 1
    code = main(["lds-partitions", _W, _S, "--shape", "64x32", "--base-bytes", "400000"])
    assert code == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "base_bytes" in err[0]
