"""The built-in obligation library (llverify/proof/library.py): every obligation of the
``llverify.specs`` modules gets what it expects (the negative controls refuted with a
counterexample), obligations are picklable data of the one Obligation type with unique names,
the runner reports errors and timeouts as outcomes, and bad arguments are errors."""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import pickle
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from llverify import atoms as catalogue
from llverify.atoms import library as atoms
from llverify.errors import LayoutTypeError, LLVerifyError
from llverify.proof.library import (
    GROUPS,
    MODULES,
    NOT_INCLUDED,
    LibraryError,
    Outcome,
    library_obligations,
    run_obligation,
)
from llverify.proof.obligation import Call, Obligation
from llverify.proof.verdict import Status
from llverify.specs import (
    amd_mfma,
    amd_wmma,
    blocked,
    intel_dpas,
    ldmatrix,
    nvidia_mma,
    nvmma_shared,
    padded,
    shared,
    tmem,
)

ROOT = Path(__file__).resolve().parents[1]


def _group(ob: Obligation) -> str:
    return "atoms" if ob.source == "atoms/library.py" else Path(ob.source).stem


@pytest.fixture(scope="module")
def obligations() -> list[Obligation]:
    return library_obligations()


@pytest.mark.slow
def test_every_obligation_passes(obligations: list[Obligation]) -> None:
    """All of them, sequentially, as ``llverify prove`` does with one job (timing printed
    with -s; the time is benchmarks/bench_prove.py's to judge, never a unit test's)."""
    start = time.perf_counter()
    outcomes = [run_obligation(ob) for ob in obligations]
    elapsed = time.perf_counter() - start
    counts = collections.Counter(_group(ob) for ob in obligations)
    seconds: dict[str, float] = collections.defaultdict(float)
    for ob, outcome in zip(obligations, outcomes):
        seconds[_group(ob)] += outcome.seconds
    print(f"\nlibrary: {len(outcomes)} obligations in {elapsed:.2f} s")
    for group in GROUPS:
        print(f"  {group:13} {counts[group]:4} obligations {seconds[group]:6.2f} s")
    print("  slowest:")
    for outcome in sorted(outcomes, key=lambda o: -o.seconds)[:10]:
        print(f"  {outcome.seconds:6.3f} s  {outcome.name}")
    failed = [(o.name, o.status, o.message) for o in outcomes if not o.passed]
    assert not failed, failed[:5]
    assert all(o.status == o.expected for o in outcomes)
    methods = {o.details["method"] for o in outcomes}
    assert methods >= {"linear", "exhaustive", "z3", "parametric-linear"}


def _assert_refuted_with_counterexample(outcome: Outcome) -> None:
    assert outcome.status == Status.REFUTED and outcome.passed, (outcome.name, outcome.message)
    assert outcome.message.startswith("refuted by "), outcome.message
    assert " -> " in outcome.message and "reference says" in outcome.message, outcome.message
    verdict = outcome.details["verdict"]
    assert verdict["counterexample"], outcome.details
    assert verdict["actual"] != verdict["expected"]


def test_negative_controls_refuted_with_a_counterexample(obligations: list[Obligation]) -> None:
    controls = [ob for ob in obligations if ob.expect == Status.REFUTED]
    # specs' controls: ldmatrix 1, amd_mfma 4 + family 1, amd_wmma 6, blocked family 1,
    # tmem 2, shared 5 + families 2, nvmma_shared 4, padded 9, intel_dpas 6 + families 2, atoms
    assert collections.Counter(_group(ob) for ob in controls) == {
        "ldmatrix": 1,
        "amd_mfma": 5,
        "amd_wmma": 6,
        "blocked": 1,
        "tmem": 2,
        "shared": 7,
        "nvmma_shared": 4,
        "padded": 9,
        "intel_dpas": 8,
        "atoms": len(atoms.CONTROLS),
    }
    for ob in controls:
        assert "(negative control)" in ob.name, ob.name
        _assert_refuted_with_counterexample(run_obligation(ob))


def test_family_proofs_and_their_controls(obligations: list[Obligation]) -> None:
    """The parametric proofs are all there and decided by the parametric method; a family
    control's counterexample names the member (its parameters)."""
    families = [ob for ob in obligations if ob.kind == "library family"]
    assert collections.Counter(_group(ob) for ob in families) == {
        "nvidia_mma": len(nvidia_mma.FAMILY_PROOFS),
        "amd_mfma": 2,
        "blocked": 3,
        "shared": 5,
        "nvmma_shared": len(nvmma_shared.FAMILY_PROOFS),
        "intel_dpas": 5,
    }
    control = next(
        ob for ob in families if _group(ob) == "amd_mfma" and ob.expect == Status.REFUTED
    )
    outcome = run_obligation(control)
    _assert_refuted_with_counterexample(outcome)
    assert outcome.details["method"] == "parametric-linear"
    point = outcome.details["verdict"]["counterexample"]
    assert {"lwm", "lwn", "lrm", "lrn", "tr", "warp"} <= set(point)


def test_every_specs_obligation_is_in_the_library(obligations: list[Obligation]) -> None:
    sizes = collections.Counter(_group(ob) for ob in obligations)
    assert sizes["nvidia_mma"] == (
        len(nvidia_mma.OBLIGATIONS)
        + len(nvidia_mma.CLOSED_FORM_OBLIGATIONS)
        + len(nvidia_mma.FAMILY_PROOFS)
    )
    assert sizes["ldmatrix"] == len(ldmatrix.LDMATRIX) + 1
    assert sizes["amd_mfma"] == len(amd_mfma.OBLIGATIONS) + 2
    assert sizes["amd_wmma"] == len(amd_wmma.OBLIGATIONS) + len(amd_wmma.NEGATIVE_CONTROLS)
    assert sizes["blocked"] == len(blocked.OBLIGATIONS) + 3
    assert sizes["tmem"] == len(tmem.MESSAGE_OBLIGATIONS) + len(tmem.REGISTER_OBLIGATIONS) + 2
    assert sizes["shared"] == (
        len(shared.SWIZZLED_OBLIGATIONS)
        + len(shared.ROTATING_OBLIGATIONS)
        + len(shared.NEGATIVE_CONTROLS)
        + 5
    )
    # each CuTe obligation three ways: forward, forward on byte addresses, inverse
    assert sizes["nvmma_shared"] == (
        len(nvmma_shared.CLOSED_FORM_OBLIGATIONS)
        + 3 * len(nvmma_shared.CUTE_OBLIGATIONS)
        + 4
        + len(nvmma_shared.FAMILY_PROOFS)
    )
    assert sizes["padded"] == len(padded.all_obligations()) + len(padded.NEGATIVE_CONTROLS)
    assert sizes["intel_dpas"] == (
        len(intel_dpas.OBLIGATIONS) + len(intel_dpas.NEGATIVE_CONTROLS) + 5
    )
    # every atom of the catalogue, then its controls
    assert sizes["atoms"] == len(catalogue.names()) + len(atoms.CONTROLS)
    assert set(sizes) == set(GROUPS)
    assert {ob.kind for ob in obligations} == {
        "library equivalence",
        "library family",
        "library atom",
    }
    assert NOT_INCLUDED and all(NOT_INCLUDED.values())


def test_names_and_sources_are_unique(obligations: list[Obligation]) -> None:
    names = [ob.name for ob in obligations]
    duplicates = [n for n, c in collections.Counter(names).items() if c > 1]
    assert not duplicates, duplicates
    for ob in obligations:
        module = MODULES[_group(ob)].removeprefix("llverify.").replace(".", "/")
        assert ob.source == f"{module}.py" and ob.line == 0, ob.source
        assert ob.name.startswith(f"{_group(ob)}: "), ob.name


def test_brief_example_name(obligations: list[Obligation]) -> None:
    names = {ob.name for ob in obligations}
    assert (
        "blocked: 2d/repeat-both: spt=[1, 8] tpw=[4, 8] wpc=[4, 1] order=[1, 0] on [128, 64] "
        "== closed form"
    ) in names


def test_obligations_are_picklable_data(obligations: list[Obligation]) -> None:
    """Built from module-level functions and plain data: a pickled copy is equal."""
    for ob in obligations:
        assert isinstance(ob, Obligation) and isinstance(ob.expect, Status)
        for part in (ob.build, ob.decide):
            function = part.func if isinstance(part, Call) else part
            assert "<" not in function.__qualname__, (ob.name, function)  # no lambda, no closure
    assert pickle.loads(pickle.dumps(obligations)) == obligations
    outcome = run_obligation(obligations[0])
    assert pickle.loads(pickle.dumps(outcome)) == outcome
    text = json.dumps(outcome.to_dict())
    assert json.loads(text)["name"] == obligations[0].name
    assert json.loads(text)["status"] == "proved"


def test_stable_order_and_group_selection(obligations: list[Obligation]) -> None:
    assert library_obligations() == obligations
    assert [_group(ob) for ob in obligations] == sorted(
        (_group(ob) for ob in obligations), key=GROUPS.index
    )
    chosen = library_obligations(["padded", "blocked", "padded"])
    assert chosen == [ob for ob in obligations if _group(ob) in ("blocked", "padded")]
    assert library_obligations("tmem") == library_obligations(["tmem"])
    assert library_obligations([]) == []


def test_bad_group_names() -> None:
    with pytest.raises(ValueError, match="'mfma'") as info:
        library_obligations(["blocked", "mfma"])
    assert isinstance(info.value, LibraryError) and isinstance(info.value, LLVerifyError)
    assert "amd_mfma" in str(info.value)  # the message lists the groups
    with pytest.raises(LayoutTypeError):
        library_obligations([3])  # type: ignore[list-item]


def test_bad_timeouts_and_obligations(obligations: list[Obligation]) -> None:
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(LibraryError, match="positive"):
            run_obligation(obligations[0], timeout_s=bad)
    with pytest.raises(LayoutTypeError):
        run_obligation(obligations[0], timeout_s="60")  # type: ignore[arg-type]
    with pytest.raises(LayoutTypeError):
        run_obligation(obligations[0], timeout_s=True)
    with pytest.raises(LayoutTypeError, match="'obligation'"):
        run_obligation("blocked")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'expect'"):
        dataclasses.replace(obligations[0], expect=Status.UNKNOWN)
    with pytest.raises(TypeError, match="'build'"):
        dataclasses.replace(obligations[0], build="layout")


def test_a_solver_timeout_is_unknown_never_proved(obligations: list[Obligation]) -> None:
    family = next(
        ob for ob in obligations if ob.kind == "library family" and _group(ob) == "shared"
    )
    outcome = run_obligation(family, timeout_s=0.001)
    assert outcome.status == Status.UNKNOWN and not outcome.passed, outcome.message
    assert "timeout" in outcome.message


def test_an_obligation_that_cannot_be_built_is_an_error_not_a_proof(
    obligations: list[Obligation],
) -> None:
    """An exception while building or deciding is reported (ERROR, with the source), never
    raised and never a proof."""
    broken = dataclasses.replace(obligations[0], build=Call(int, "not a layout"))
    outcome = run_obligation(broken)
    assert outcome.status == Status.ERROR and not outcome.passed
    assert outcome.message.startswith("specs/nvidia_mma.py: internal error (ValueError"), (
        outcome.message
    )
    deep = dataclasses.replace(obligations[0], build=Call(_recurse))
    assert run_obligation(deep).message.endswith("nested too deeply")


def _recurse() -> None:
    _recurse()


def test_runs_in_a_process_pool(obligations: list[Obligation]) -> None:
    chosen = [ob for ob in obligations if _group(ob) == "tmem"]
    with ProcessPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(run_obligation, chosen))
    assert [o.name for o in outcomes] == [ob.name for ob in chosen]
    assert all(o.passed for o in outcomes), [o.message for o in outcomes if not o.passed]


def test_lists_without_z3_from_anywhere(tmp_path: Path) -> None:
    """Listing needs no z3 and no repository on sys.path (the ``llverify`` script runs from
    anywhere): the spec library is inside the package."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "llverify").symlink_to(ROOT / "llverify", target_is_directory=True)
    code = (
        "import sys\n"
        "sys.modules['z3'] = None; sys.modules['triton'] = None\n"
        "from llverify.proof.library import library_obligations, run_obligation\n"
        "obs = library_obligations()\n"
        "print(len(obs), run_obligation(obs[0]).status)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert result.returncode == 0, result.stderr
    count, status = result.stdout.split()
    assert int(count) == len(library_obligations()) and status == "proved"
