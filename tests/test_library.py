"""The built-in obligation library (llverify/library.py): every obligation of ``specs/`` gets
what it expects (the negative controls refuted with a counterexample), obligations are
plain picklable data with unique names, and bad arguments are errors."""

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

from llverify.errors import LayoutTypeError, LLVerifyError
from llverify.library import (
    GROUPS,
    NOT_INCLUDED,
    LibraryError,
    LibraryObligation,
    LibraryOutcome,
    library_obligations,
)
from specs import (
    amd_mfma,
    amd_wmma,
    blocked,
    ldmatrix,
    nvidia_mma,
    nvmma_shared,
    padded,
    shared,
    tmem,
)

ROOT = Path(__file__).resolve().parents[1]

#: The sequential budget of the whole library (measured: about 12 s on a 2-core machine).
BUDGET_S = 60.0


@pytest.fixture(scope="module")
def obligations() -> list[LibraryObligation]:
    return library_obligations()


@pytest.mark.slow
def test_every_obligation_passes(obligations: list[LibraryObligation]) -> None:
    """All of them, sequentially, as ``llverify prove`` does with one job (timing printed
    with -s)."""
    start = time.perf_counter()
    outcomes = [ob.run() for ob in obligations]
    elapsed = time.perf_counter() - start
    counts = collections.Counter(ob.group for ob in obligations)
    seconds: dict[str, float] = collections.defaultdict(float)
    for outcome in outcomes:
        seconds[outcome.group] += outcome.seconds
    print(f"\nlibrary: {len(outcomes)} obligations in {elapsed:.2f} s")
    for group in GROUPS:
        print(f"  {group:13} {counts[group]:4} obligations {seconds[group]:6.2f} s")
    print("  slowest:")
    for outcome in sorted(outcomes, key=lambda o: -o.seconds)[:10]:
        print(f"  {outcome.seconds:6.3f} s  {outcome.name}")
    failed = [(o.name, o.status, o.message) for o in outcomes if not o.passed]
    assert not failed, failed[:5]
    assert all(o.status == o.expected for o in outcomes)
    assert {o.method for o in outcomes} >= {"linear", "exhaustive", "z3", "parametric-linear"}
    assert elapsed < BUDGET_S


def _assert_refuted_with_counterexample(outcome: LibraryOutcome) -> None:
    assert outcome.status == "refuted" and outcome.passed, (outcome.name, outcome.message)
    assert outcome.message.startswith("refuted by "), outcome.message
    assert " -> " in outcome.message and "reference says" in outcome.message, outcome.message
    verdict = outcome.details["verdict"]
    assert verdict["counterexample"], outcome.details
    assert verdict["actual"] != verdict["expected"]


def test_negative_controls_refuted_with_a_counterexample(
    obligations: list[LibraryObligation],
) -> None:
    controls = [ob for ob in obligations if ob.expect == "refuted"]
    # specs' controls: ldmatrix 1, amd_mfma 4 + family 1, amd_wmma 6, blocked family 1,
    # tmem 2, shared 5 + families 2, nvmma_shared 4, padded 9
    assert collections.Counter(ob.group for ob in controls) == {
        "ldmatrix": 1,
        "amd_mfma": 5,
        "amd_wmma": 6,
        "blocked": 1,
        "tmem": 2,
        "shared": 7,
        "nvmma_shared": 4,
        "padded": 9,
    }
    for ob in controls:
        assert "(negative control)" in ob.name, ob.name
        _assert_refuted_with_counterexample(ob.run())


def test_family_proofs_and_their_controls(obligations: list[LibraryObligation]) -> None:
    """The parametric proofs are all there and decided by the parametric method; a family
    control's counterexample names the member (its parameters)."""
    families = [ob for ob in obligations if ob.kind == "family"]
    assert collections.Counter(ob.group for ob in families) == {
        "nvidia_mma": len(nvidia_mma.FAMILY_PROOFS),
        "amd_mfma": 2,
        "blocked": 3,
        "shared": 5,
        "nvmma_shared": len(nvmma_shared.FAMILY_PROOFS),
    }
    control = next(ob for ob in families if ob.group == "amd_mfma" and ob.expect == "refuted")
    outcome = control.run()
    _assert_refuted_with_counterexample(outcome)
    assert outcome.method == "parametric-linear"
    point = outcome.details["verdict"]["counterexample"]
    assert {"lwm", "lwn", "lrm", "lrn", "tr", "warp"} <= set(point)


def test_every_specs_obligation_is_in_the_library(obligations: list[LibraryObligation]) -> None:
    sizes = collections.Counter(ob.collection for ob in obligations)
    assert sizes["nvidia_mma.OBLIGATIONS"] == len(nvidia_mma.OBLIGATIONS)
    assert sizes["nvidia_mma.CLOSED_FORM_OBLIGATIONS"] == len(nvidia_mma.CLOSED_FORM_OBLIGATIONS)
    assert sizes["ldmatrix.LDMATRIX"] == len(ldmatrix.LDMATRIX)
    assert sizes["amd_mfma.OBLIGATIONS"] == len(amd_mfma.OBLIGATIONS)
    assert sizes["amd_wmma.OBLIGATIONS"] == len(amd_wmma.OBLIGATIONS)
    assert sizes["amd_wmma.NEGATIVE_CONTROLS"] == len(amd_wmma.NEGATIVE_CONTROLS)
    assert sizes["blocked.OBLIGATIONS"] == len(blocked.OBLIGATIONS)
    assert sizes["tmem.MESSAGE_OBLIGATIONS"] == len(tmem.MESSAGE_OBLIGATIONS)
    assert sizes["tmem.REGISTER_OBLIGATIONS"] == len(tmem.REGISTER_OBLIGATIONS)
    assert sizes["shared.SWIZZLED_OBLIGATIONS"] == len(shared.SWIZZLED_OBLIGATIONS)
    assert sizes["shared.ROTATING_OBLIGATIONS"] == len(shared.ROTATING_OBLIGATIONS)
    assert sizes["shared.NEGATIVE_CONTROLS"] == len(shared.NEGATIVE_CONTROLS)
    assert sizes["nvmma_shared.CLOSED_FORM_OBLIGATIONS"] == len(
        nvmma_shared.CLOSED_FORM_OBLIGATIONS
    )
    # each CuTe obligation three ways: forward, forward on byte addresses, inverse
    assert sizes["nvmma_shared.CUTE_OBLIGATIONS"] == 3 * len(nvmma_shared.CUTE_OBLIGATIONS)
    assert sizes["padded.all_obligations"] == len(padded.all_obligations())
    assert sizes["padded.NEGATIVE_CONTROLS"] == len(padded.NEGATIVE_CONTROLS)
    assert {ob.group for ob in obligations} == set(GROUPS)
    assert {ob.kind for ob in obligations} == {"equivalence", "family"}
    assert NOT_INCLUDED and all(NOT_INCLUDED.values())


def test_names_and_sources_are_unique(obligations: list[LibraryObligation]) -> None:
    names = [ob.name for ob in obligations]
    duplicates = [n for n, c in collections.Counter(names).items() if c > 1]
    assert not duplicates, duplicates
    assert len({ob.source for ob in obligations}) == len(obligations)
    assert len({(ob.collection, ob.index) for ob in obligations}) == len(obligations)
    for ob in obligations:
        assert ob.name.startswith(f"{ob.group}: "), ob.name
        assert ob.source.startswith("specs."), ob.source


def test_brief_example_name(obligations: list[LibraryObligation]) -> None:
    names = {ob.name for ob in obligations}
    assert (
        "blocked: 2d/repeat-both: spt=[1, 8] tpw=[4, 8] wpc=[4, 1] order=[1, 0] on [128, 64] "
        "== closed form"
    ) in names


def test_obligations_are_plain_picklable_data(obligations: list[LibraryObligation]) -> None:
    for ob in obligations:
        for f in dataclasses.fields(ob):
            assert type(getattr(ob, f.name)) in (str, int), (ob.name, f.name)
    assert pickle.loads(pickle.dumps(obligations)) == obligations
    outcome = obligations[0].run()
    assert pickle.loads(pickle.dumps(outcome)) == outcome
    text = json.dumps(outcome.to_dict())
    assert json.loads(text)["name"] == obligations[0].name


def test_stable_order_and_group_selection(obligations: list[LibraryObligation]) -> None:
    assert library_obligations() == obligations
    assert [ob.group for ob in obligations] == sorted(
        (ob.group for ob in obligations), key=GROUPS.index
    )
    chosen = library_obligations(["padded", "blocked", "padded"])
    assert chosen == [ob for ob in obligations if ob.group in ("blocked", "padded")]
    assert library_obligations("tmem") == library_obligations(["tmem"])
    assert library_obligations([]) == []


def test_bad_group_names() -> None:
    with pytest.raises(ValueError, match="'mfma'") as info:
        library_obligations(["blocked", "mfma"])
    assert isinstance(info.value, LibraryError) and isinstance(info.value, LLVerifyError)
    assert "amd_mfma" in str(info.value)  # the message lists the groups
    with pytest.raises(LayoutTypeError):
        library_obligations([3])  # type: ignore[list-item]


def test_bad_timeouts(obligations: list[LibraryObligation]) -> None:
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(LibraryError, match="positive"):
            obligations[0].run(timeout_s=bad)
    with pytest.raises(LayoutTypeError):
        obligations[0].run(timeout_s="60")  # type: ignore[arg-type]
    with pytest.raises(LayoutTypeError):
        obligations[0].run(timeout_s=True)


def test_a_solver_timeout_is_unknown_never_proved(obligations: list[LibraryObligation]) -> None:
    family = next(ob for ob in obligations if ob.kind == "family" and ob.group == "shared")
    outcome = family.run(timeout_s=0.001)
    assert outcome.status == "unknown" and not outcome.passed, outcome.message
    assert "timeout" in outcome.message


def test_a_stale_obligation_is_an_error_not_a_proof(obligations: list[LibraryObligation]) -> None:
    """An obligation whose name no longer matches what specs gives at its index (specs
    changed after it was listed) is reported, never proved."""
    stale = dataclasses.replace(obligations[0], name="nvidia_mma: something else")
    outcome = stale.run()
    assert outcome.status == "error" and not outcome.passed
    assert "specs changed" in outcome.message
    missing = dataclasses.replace(obligations[0], index=10_000)
    assert missing.run().status == "error"


def test_runs_in_a_process_pool(obligations: list[LibraryObligation]) -> None:
    chosen = [ob for ob in obligations if ob.group == "tmem"]
    with ProcessPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(LibraryObligation.run, chosen))
    assert [o.name for o in outcomes] == [ob.name for ob in chosen]
    assert all(o.passed for o in outcomes), [o.message for o in outcomes if not o.passed]


def test_lists_without_z3_and_finds_specs_from_anywhere(tmp_path: Path) -> None:
    """Listing needs neither z3 nor the repository on sys.path (the ``llverify`` script
    runs from anywhere): specs is found next to the llverify package."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "llverify").symlink_to(ROOT / "llverify", target_is_directory=True)
    code = (
        "import os, sys\n"
        "sys.modules['z3'] = None; sys.modules['triton'] = None\n"
        "sys.path = [p for p in sys.path\n"
        "            if not os.path.isfile(os.path.join(p or '.', 'specs', '__init__.py'))]\n"
        "from llverify.library import library_obligations\n"
        "obs = library_obligations()\n"
        "print(len(obs), obs[0].run().status)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert result.returncode == 0, result.stderr
    count, status = result.stdout.split()
    assert int(count) == len(library_obligations()) and status == "proved"
