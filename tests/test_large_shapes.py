"""Memory and time at large shapes (issue 18, item 10).

Counts the algebra gives (bank conflicts, wavefronts, vector widths of linear accesses) take
memory independent of the tensor: the commands finish at 8192x8192 under a 1.5 GiB address
space limit with the numbers the brute-force simulator gave.  What must enumerate (padded
layouts, warp-shuffle plans, drawings) is refused beyond the one enumeration budget with a
one-line error naming ``--shape``, exit 2, before allocating.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import pytest

from cases.large_shapes import BLOCKED, BLOCKED_T, MMA, NVMMA, SHUFFLE_DST, SHUFFLE_SRC, SWIZZLED
from llverify import LinearLayout
from llverify.conversion import conversion
from llverify.encodings import BlockedLayout
from llverify.evaluate import (
    ENUMERATION_BUDGET_BYTES,
    EnumerationLimitError,
    check_enumeration,
)
from llverify.shared_memory.access import access_analysis, simulate_bank_conflicts
from llverify.shared_memory.predict import predict_wavefronts

LIMIT = 3 << 29  # 1.5 GiB of address space: the old simulator needed 6.5 GB at 8192x8192


def _padded(n: int) -> str:
    return f"#ttg.padded_shared<[64:+4] {{order = [1, 0], shape = [{n}, {n}]}}>"


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def run_limited(*args: str) -> subprocess.CompletedProcess[str]:
    """``llverify ARGS`` in a child limited to :data:`LIMIT` bytes of address space."""
    return subprocess.run(
        [sys.executable, "-m", "llverify.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_limit_memory,
    )


# ---------------------------------------------------------------- the counts, at 8192x8192


def test_bank_conflicts_at_8192_under_a_memory_limit() -> None:
    out = run_limited(
        "bank-conflicts", BLOCKED_T, SWIZZLED, "--shape", "8192x8192", "--dtype", "f32", "--json"
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    # the brute-force simulator's numbers (it took 7.2 GB and 234 s on the dev machine)
    assert report["instructions"] == 2097152
    assert (report["conflicts"], report["triton_conflicts"]) == (7, 7)
    assert report["wavefronts"] == 16777216
    assert report["colliding_lanes"] == list(range(8))
    assert report["sm90"]["load"]["wavefronts"] == 16777216


def test_bank_conflicts_of_ldmatrix_at_8192_under_a_memory_limit() -> None:
    out = run_limited("bank-conflicts", MMA, NVMMA, "--shape", "8192x8192", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["sm90"]["store"]["instruction"] == "stmatrix.x4"
    assert report["sm90"]["store"]["wavefronts"] == report["wavefronts"] == 1048576


@pytest.mark.parametrize("command", ["convert", "swizzle"])
def test_convert_and_swizzle_at_8192_under_a_memory_limit(command: str) -> None:
    out = run_limited(command, BLOCKED, BLOCKED_T, "--shape", "8192x8192", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    swizzle = report["swizzle"] if command == "convert" else report
    assert swizzle["store_wavefronts"] == swizzle["load_wavefronts"] == 1048576
    assert swizzle["store_conflicts"] == swizzle["load_conflicts"] == 0


# ---------------------------------------------------------------- equal to the simulator

PAIRS = [
    (BLOCKED, SWIZZLED, 16),
    (BLOCKED_T, SWIZZLED, 32),
    (BLOCKED_T, SWIZZLED, 8),
    (MMA, NVMMA, 16),
    (MMA, SWIZZLED, 64),
    (BLOCKED, NVMMA, 16),
]


@pytest.mark.parametrize(("reg", "shared", "bits"), PAIRS)
@pytest.mark.parametrize("n", [64, 512])
def test_large_shape_count_equals_the_brute_force(reg: str, shared: str, bits: int, n: int) -> None:
    a = access_analysis(reg, shared, [n, n], bits)
    for tile in (None, [0, 1, 4]):
        fast = simulate_bank_conflicts(a.conversion, a.elems_per_vec, bits, lane_tile=tile)
        brute = simulate_bank_conflicts(
            a.conversion, a.elems_per_vec, bits, lane_tile=tile, exhaustive=True
        )
        assert fast == brute
    assert a.simulated_conflicts == a.hardware_conflicts


# ---------------------------------------------------------------- what must enumerate


def test_the_budget_is_one_limit_checked_before_allocating() -> None:
    with pytest.raises(EnumerationLimitError) as error:
        check_enumeration(ENUMERATION_BUDGET_BYTES + 1, 1, "enumerating", "do less")
    assert isinstance(error.value, ValueError)
    assert error.value.items == ENUMERATION_BUDGET_BYTES + 1
    assert check_enumeration(ENUMERATION_BUDGET_BYTES, 1, "enumerating", "do less") > 0


def _assert_refused(out: subprocess.CompletedProcess[str]) -> None:
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("llverify: error: ")
    assert "--shape" in lines[0] and "enumeration budget" in lines[0]
    assert "max_inputs" not in out.stderr and "Traceback" not in out.stderr


def test_padded_simulation_over_the_budget_exits_2_naming_shape() -> None:
    out = run_limited("bank-conflicts", BLOCKED, _padded(4096), "--shape", "4096x4096")
    _assert_refused(out)
    assert "padded" in out.stderr


def test_padded_simulation_at_the_largest_accepted_shape() -> None:
    out = run_limited("bank-conflicts", BLOCKED, _padded(2048), "--shape", "2048x2048", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["source"] == "simulator"


def test_shuffle_plan_over_the_budget_is_refused() -> None:
    src = BlockedLayout([1, 2], [4, 8], [1, 1], [1, 0])
    dst = BlockedLayout([2, 2], [4, 8], [1, 1], [1, 0])
    c = conversion(src, dst, [4096, 4096])
    assert c.kind == "warp shuffle" and c.verify().proved  # the proofs need no enumeration
    with pytest.raises(EnumerationLimitError, match="warp-shuffle plan"):
        c.shuffle_plan(16)
    out = run_limited("convert", SHUFFLE_SRC, SHUFFLE_DST, "--shape", "4096x4096")
    _assert_refused(out)


def test_drawing_over_the_budget_exits_2_naming_shape(tmp_path) -> None:
    picture = tmp_path / "big.svg"
    out = run_limited("draw", BLOCKED, "--shape", "4096x4096", "-o", str(picture))
    _assert_refused(out)
    out = run_limited(
        "draw", SWIZZLED, "--register", BLOCKED, "--shape", "4096x4096", "-o", str(picture)
    )
    _assert_refused(out)
    assert not picture.exists()


def test_ldmatrix_wavefronts_do_not_enumerate() -> None:
    reg = LinearLayout.from_bases(
        [("register", [[0, 1], [8, 0]] + [[0, 1 << i] for i in range(3, 13)]),
         ("lane", [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]),
         ("warp", [[16, 0], [32, 0]] + [[1 << i, 0] for i in range(6, 13)])],
        ["dim0", "dim1"],
    )  # fmt: skip
    shared = LinearLayout.identity_1d(1 << 13, "offset", "dim1") * LinearLayout.identity_1d(
        1 << 13, "offset", "dim0"
    )
    p = predict_wavefronts(reg, shared, [8192, 8192], 16, "load")
    assert p.instruction == "ldmatrix.x4"
    assert p.wavefronts == p.instructions * 4 * 8  # unswizzled rows: 8 per group of banks
