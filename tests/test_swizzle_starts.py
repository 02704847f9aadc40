"""The synthesiser's starts (llverify.shared_memory.swizzle.starts): the cost model on integers
agrees with the access analysis, the construction with the hardware's pass tiles reaches the
optimum where Triton's construction does not (AMD's XOR phases), the local search improves a
bad layout and leaves an optimal one alone; and on a sample of the sweep, synthesis certifies
the same optima as before issue 26 (tests/data/swizzle/sweep_reference.json)."""

from __future__ import annotations

import time

import pytest

from cases.swizzle_sweep import reference_mismatch, sweep_cases, sweep_reference
from llverify.hardware import resolve_target
from llverify.proof.verdict import Status
from llverify.shared_memory.swizzle import synthesize as synth
from llverify.shared_memory.swizzle.starts import CostModel, best_construction, improve
from llverify.shared_memory.swizzle.synthesize import synthesize_swizzle

CASES = sweep_cases(1000)
#: the 53 sweep cases where the solver found a layout cheaper than Triton's constructive one
#: before issue 26 (its slowest queries), then every 40th case
SAMPLE = sorted(
    {9, 47, 48, 52, 69, 90, 100, 101, 105, 108, 121, 129, 146, 161, 185, 192, 234, 242, 286,
     289, 295, 305, 323, 326, 332, 337, 346, 357, 359, 445, 485, 488, 491, 499, 506, 517, 557,
     580, 586, 594, 604, 613, 615, 642, 668, 702, 725, 744, 859, 872, 926, 951, 988}
    | set(range(0, 1000, 40))
)  # fmt: skip


def _synthesis(case: dict) -> synth._Synthesis:
    tgt = resolve_target(case["target"])
    src, dst, _ = synth._checked_layouts(case["src"], case["dst"], None, case["shape"], tgt)
    deadline = time.perf_counter() + 60
    return synth._Synthesis(
        src, dst, case["shape"], case["bits"], tgt, (None, None), False, deadline
    )


def test_cost_model_is_the_access_analysis() -> None:
    """Widths and wavefronts of the integer model equal the access analysis' on the
    constructive layouts and on the constructions of the first 60 sweep cases."""
    checked = 0
    for case in CASES[:60]:
        run = _synthesis(case)
        model = CostModel(run.geo, run.src, run.dst)
        columns = run.start_columns(None)
        widths = synth._width_pairs(run.geo, (1, 1))
        found = best_construction(run.geo, run.src, run.dst, widths, run.bits, run.tgt)
        for layout in [columns] + ([] if found is None else [found[0]]):
            ks, kl, wavefronts = model.cost(layout)
            cost = run.cost_of(layout)
            assert (1 << ks, 1 << kl, wavefronts) == (
                cost.store_vec,
                cost.load_vec,
                cost.total_wavefronts,
            ), case["name"]
            checked += 1
    assert checked > 100


def test_construction_with_xor_phases_reaches_the_optimum() -> None:
    """64-bit blocked -> MFMA dot operand on gfx950 (docs/swizzle.md's table): Triton's
    construction needs 576 wavefronts, the one with ds_read_b128's XOR phases 320, the
    conflict-free bound: certified without a solver query."""
    case = CASES[146]
    assert (case["bits"], case["target"]) == (64, "gfx950")
    result = synthesize_swizzle(case["src"], case["dst"], case["shape"], 64, "gfx950")
    assert result.baseline is not None and result.baseline.total_wavefronts == 576
    assert result.iterations == [{"source": "construction", "wavefronts": 320}]
    assert result.certificate.status is Status.BOUND and result.cost.total_wavefronts == 320


def test_local_search_improves_and_leaves_an_optimum_alone() -> None:
    case = CASES[146]
    run = _synthesis(case)
    model = CostModel(run.geo, run.src, run.dst)
    start = run.start_columns(None)
    deadline = time.perf_counter() + 60
    found = improve(model, start, (1, 1), deadline)
    assert found is not None and found[1] < model.cost(start)[2]
    assert model.cost(found[0])[2] == found[1] == run.cost_of(found[0]).total_wavefronts
    # negative control: from a layout at the lower bound nothing is cheaper
    assert found[1] == run.lower_bound(synth._width_pairs(run.geo, (2, 2)))
    assert improve(model, found[0], (1, 1), deadline) is None
    with pytest.raises(ValueError, match="columns"):
        model.cost(start[:-1])


def test_sample_certifies_the_reference_optima() -> None:
    """Same certificate status, required widths and certified wavefronts as before."""
    reference = sweep_reference()
    assert len(reference) == len(CASES)
    mismatches = []
    for i in SAMPLE:
        case = CASES[i]
        result = synthesize_swizzle(
            case["src"], case["dst"], case["shape"], case["bits"], case["target"]
        )
        mismatch = reference_mismatch(case, reference[i], result)
        if mismatch is not None:
            mismatches.append(mismatch)
    assert mismatches == []
