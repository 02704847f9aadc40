"""LayoutFamily: construction errors, instances, Triton differential, parametric proofs.

* Construction and ``instance()`` errors are llverify errors (ValueError subclasses)
  whose messages name the family and the offending part.
* ``swizzled_shared_2d().instance(...)`` equals bases computed here from Triton's formula
  (``swizzledSharedToLinearLayout``) and, differentially, Triton 3.9's own
  ``to_linear_layout`` of ``SwizzledSharedLayout`` (run in a subprocess worker,
  ``tests/oracle/swizzled_oracle.py``: Triton aborts the process on bad input).
* ``prove_family_equal`` proves the closed form with every method, refutes wrong closed
  forms with every method, and every counterexample is replayed here with Python ints.

Without Triton 3.9 the differential test is skipped, unless ``LLVERIFY_REQUIRE_TRITON=1``,
which turns the skip into a failure.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import random
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from cases.triton import triton_missing
from llverify.errors import DimensionError, LayoutError, LLVerifyError
from llverify.proof.family import (
    SWIZZLED_REFERENCE,
    SWIZZLED_REFERENCE_WITHOUT_WRAP,
    LayoutFamily,
    swizzled_shared_2d,
)
from llverify.proof.formula import Formula, FormulaError
from llverify.prove import prove_family_equal

ORACLE = Path(__file__).parent / "oracle" / "swizzled_oracle.py"
SEED = int(os.environ.get("LLVERIFY_DIFF_SEED", "20250917"))
PARAMS = ("lc", "lr", "lv", "lp", "lm")

# ---------------------------------------------------------------------- helpers


def triton_swizzled_bases(lc: int, lr: int, lv: int, lp: int, lm: int) -> list[list[int]]:
    """Triton's swizzledSharedToLinearLayout for order [1, 0], written out by hand:
    column bit j -> (0, 2**j); row bit i -> (2**i, (vec * ((2**i // perPhase) % maxPhase))
    % numCols)."""
    vec, per_phase, max_phase, num_cols = 1 << lv, 1 << lp, 1 << lm, 1 << lc
    bases = [[0, 1 << j] for j in range(lc)]
    for i in range(lr):
        row = 1 << i
        bases.append([row, (vec * ((row // per_phase) % max_phase)) % num_cols])
    return bases


def family_bases(family: LayoutFamily, params: Mapping[str, int]) -> list[list[int]]:
    layout = family.instance(**params)
    assert layout.get_out_dim_names() == ["dim0", "dim1"]
    (name, bases), *rest = layout.bases
    assert name == "offset" and not rest
    return [list(b) for b in bases]


def python_eval(text: str, env: Mapping[str, int]) -> int:
    """Evaluate a reference formula with Python's own (unbounded) ints."""
    value = eval(text, {"__builtins__": {}, "min": min, "max": max}, dict(env))  # noqa: S307
    assert isinstance(value, int)
    return value


def random_params(rng: random.Random, max_elements: int = 20, max_param: int = 7) -> dict:
    total = rng.randint(1, max_elements)
    lc = rng.randint(0, total)
    return {
        "lc": lc,
        "lr": total - lc,
        "lv": rng.randint(0, max_param),
        "lp": rng.randint(0, max_param),
        "lm": rng.randint(0, max_param),
    }


def assert_replays(family: LayoutFamily, reference: Mapping[str, str], verdict: Any) -> dict:
    """A refutation's counterexample is a member and an offset where the member and the
    reference (evaluated here with Python ints) really differ."""
    assert verdict.refuted, str(verdict)
    cx = dict(verdict.counterexample)
    params = {k: cx.pop(k) for k in family.params}
    assert set(cx) == {"offset"}, verdict.counterexample
    assert family.is_member(**params), params
    offset = cx["offset"]
    assert 0 <= offset < 1 << (params["lc"] + params["lr"]), (params, offset)
    actual = family.instance(**params).apply({"offset": offset})
    env = {**params, "offset": offset}
    expected = {o: python_eval(text, env) for o, text in reference.items()}
    assert actual != expected, (params, offset, actual, expected)
    assert verdict.actual == actual, (verdict.actual, actual)
    assert verdict.expected == expected, (verdict.expected, expected)
    return {**params, "offset": offset}


# ---------------------------------------------------------------------- construction errors

P = {"n": (1, 4)}
OK_IN = {"x": "n"}
OK_OUT = {"o": "n"}
OK_BASES = {"x": {"o": "1 << i"}}


def make(**overrides: Any) -> LayoutFamily:
    args: dict[str, Any] = {
        "name": "fam",
        "params": P,
        "in_dims": OK_IN,
        "out_dims": OK_OUT,
        "bases": OK_BASES,
    }
    args.update(overrides)
    return LayoutFamily(**args)


def test_valid_family_builds() -> None:
    fam = make()
    assert fam.instance(n=3).bases == [("x", [[1], [2], [4]])]
    assert list(fam.members()) == [{"n": n} for n in range(1, 5)]
    assert fam.domain_size() == 4


@pytest.mark.parametrize(
    ("params", "pattern"),
    [
        ({"n": (3, 1)}, r"parameter 'n' needs an int range \(low, high\) with low <= high"),
        ({"n": (0, 2.5)}, r"parameter 'n' needs an int range"),
        ({"n": ("0", 2)}, r"parameter 'n' needs an int range"),
        ({"i": (0, 2)}, r"'i' is the bit index, not a parameter"),
    ],
)
def test_bad_param_ranges(params: dict, pattern: str) -> None:
    with pytest.raises(LayoutError, match=pattern) as info:
        make(params=params, in_dims={"x": "0"}, out_dims={"o": "0"}, bases={"x": {"o": "0"}})
    assert "family 'fam'" in str(info.value)


@pytest.mark.parametrize("bounds", [3, (1, 2, 3), (1,), None])
def test_param_range_that_is_not_a_pair(bounds: Any) -> None:
    """A range that is not a (low, high) pair is an llverify error too, not a bare
    TypeError/ValueError from tuple unpacking."""
    with pytest.raises(LayoutError, match=r"parameter 'n' needs an int range"):
        make(params={"n": bounds})


@pytest.mark.parametrize(
    ("overrides", "error", "pattern"),
    [
        ({"in_dims": {"x": "n + q"}}, FormulaError, r"size of 'x' uses unknown names \['q'\]"),
        ({"out_dims": {"o": "m"}}, FormulaError, r"size of 'o' uses unknown names \['m'\]"),
        # the bit index is only meaningful in basis formulas
        ({"in_dims": {"x": "n + i"}}, FormulaError, r"size of 'x' uses unknown names \['i'\]"),
        (
            {"bases": {"x": {"o": "1 << (i + s)"}}},
            FormulaError,
            r"basis x -> o uses unknown names \['s'\]",
        ),
        ({"constraint": "q < 2"}, FormulaError, r"constraint uses unknown names \['q'\]"),
        (
            {"in_dims": {"x": "n", "y": "n"}},
            DimensionError,
            r"bases must be given for the in dims \['x', 'y'\], not \['x'\]",
        ),
        (
            {"bases": {"x": {"o": "1 << i"}, "y": {"o": "0"}}},
            DimensionError,
            r"bases must be given for the in dims \['x'\], not \['x', 'y'\]",
        ),
        ({"bases": {}}, DimensionError, r"bases must be given for the in dims"),
        (
            {"out_dims": {"o": "n", "p": "n"}},
            DimensionError,
            r"basis of 'x' must give every out dim \['o', 'p'\], not \['o'\]",
        ),
        (
            {"bases": {"x": {"o": "1 << i", "p": "0"}}},
            DimensionError,
            r"basis of 'x' must give every out dim \['o'\]",
        ),
        (
            {"in_dims": {"x": "n < 2"}},
            FormulaError,
            r"in dim 'x'.*a condition is used where a number is needed",
        ),
        (
            {"out_dims": {"o": "n == 1"}},
            FormulaError,
            r"out dim 'o'.*a condition is used where a number is needed",
        ),
        (
            {"bases": {"x": {"o": "i < n"}}},
            FormulaError,
            r"basis x -> o.*a condition is used where a number is needed",
        ),
        (
            {"in_dims": {"x": Formula("n < 2", True)}},
            FormulaError,
            r"in dim 'x': expected a number",
        ),
        (
            {"constraint": "n + 1"},
            FormulaError,
            r"constraint.*a number is used where a condition is needed",
        ),
        ({"in_dims": {"x": "n - 2"}}, FormulaError, r"a dim size formula may go negative"),
        ({"in_dims": {"x": "n +"}}, FormulaError, r"in dim 'x'.*syntax error"),
        ({"bases": {"x": {"o": "__import__('os')"}}}, FormulaError, r"basis x -> o"),
    ],
)
def test_construction_errors(overrides: dict, error: type, pattern: str) -> None:
    with pytest.raises(error, match=pattern) as info:
        make(**overrides)
    assert isinstance(info.value, LLVerifyError)
    assert isinstance(info.value, ValueError)
    assert "fam" in str(info.value)


SMALL = swizzled_shared_2d(8, 3)
GOOD = {"lc": 2, "lr": 3, "lv": 1, "lp": 0, "lm": 2}


@pytest.mark.parametrize(
    ("values", "error", "pattern"),
    [
        ({**GOOD, "lc": 9}, LayoutError, r"parameter 'lc' must be in \[0, 8\], not 9"),
        ({**GOOD, "lv": -1}, LayoutError, r"parameter 'lv' must be in \[0, 3\], not -1"),
        ({**GOOD, "lm": 4}, LayoutError, r"parameter 'lm' must be in \[0, 3\], not 4"),
        ({**GOOD, "lc": 1.0}, LayoutError, r"parameter 'lc' must be in \[0, 8\], not 1.0"),
        ({**GOOD, "lc": "1"}, LayoutError, r"parameter 'lc' must be in \[0, 8\], not '1'"),
        (
            {k: v for k, v in GOOD.items() if k != "lm"},
            DimensionError,
            r"needs values for \['lc', 'lm', 'lp', 'lr', 'lv'\], not \['lc', 'lp', 'lr', 'lv'\]",
        ),
        ({**GOOD, "q": 1}, DimensionError, r"needs values for .* not .*'q'"),
        ({}, DimensionError, r"needs values for"),
        (
            {**GOOD, "lc": 5, "lr": 4},
            LayoutError,
            r"violates the constraint lc \+ lr <= 8",
        ),
    ],
)
def test_instance_errors(values: dict, error: type, pattern: str) -> None:
    with pytest.raises(error, match=pattern) as info:
        SMALL.instance(**values)
    assert isinstance(info.value, LLVerifyError) and isinstance(info.value, ValueError)
    assert "swizzled_shared_2d" in str(info.value)


def test_is_member_and_members() -> None:
    assert SMALL.is_member(**GOOD)
    assert not SMALL.is_member(**{**GOOD, "lc": 5, "lr": 4})
    with pytest.raises(LayoutError):
        SMALL.is_member(**{**GOOD, "lc": 9})
    tiny = swizzled_shared_2d(5, 2)
    members = list(tiny.members())
    expected = [
        dict(zip(PARAMS, combo))
        for combo in itertools.product(range(6), range(6), range(3), range(3), range(3))
        if combo[0] + combo[1] <= 5
    ]
    assert members == expected
    assert tiny.domain_size() == len(expected) == 21 * 27
    assert all(tiny.is_member(**m) for m in members)


def test_instance_with_bad_formula_values_is_an_llverify_error() -> None:
    # Basis formulas are range-checked when the family is built, not on first use.
    with pytest.raises(FormulaError, match="shift amount of '<<' may be negative"):
        make(bases={"x": {"o": "1 << (i - 1)"}})  # negative shift at i = 0
    with pytest.raises(FormulaError, match="divisor of '//' may be zero"):
        make(bases={"x": {"o": "(1 << i) // (n - 1)"}})
    too_big = make(bases={"x": {"o": "1 << (i + 1)"}})
    with pytest.raises(LayoutError, match="must be less than its size 4"):
        too_big.instance(n=2)
    negative = make(bases={"x": {"o": "0 - 1"}})
    with pytest.raises(LayoutError, match="non-negative"):
        negative.instance(n=1)


def test_reference_and_argument_errors() -> None:
    fam = swizzled_shared_2d(4, 2)
    with pytest.raises(FormulaError, match=r"must give a formula for each out dim"):
        prove_family_equal(fam, {"dim0": "offset >> lc"})
    with pytest.raises(FormulaError, match=r"uses \['q'\], which are neither in dims"):
        prove_family_equal(fam, {"dim0": "offset >> lc", "dim1": "q"})
    with pytest.raises(ValueError, match="Argument 'method' must be one of"):
        prove_family_equal(fam, SWIZZLED_REFERENCE, method="bogus")


# ---------------------------------------------------------------------- instances


def test_instance_docstring_example() -> None:
    fam = swizzled_shared_2d()
    assert fam.instance(lc=2, lr=2, lv=0, lp=0, lm=2).bases == [
        ("offset", [[0, 1], [0, 2], [1, 1], [2, 2]])
    ]


def test_instances_match_triton_formula_exhaustive_small() -> None:
    """Every member of swizzled_shared_2d(6, 3) against the hand-written formula."""
    fam = swizzled_shared_2d(6, 3)
    count = 0
    for params in fam.members():
        layout = fam.instance(**params)
        assert family_bases(fam, params) == triton_swizzled_bases(**params), params
        assert layout.out_dims == [("dim0", 1 << params["lr"]), ("dim1", 1 << params["lc"])]
        assert layout.in_dims == [("offset", 1 << (params["lc"] + params["lr"]))]
        count += 1
    assert count == 28 * 64


def test_instances_match_triton_formula_random_full_domain() -> None:
    fam = swizzled_shared_2d()
    rng = random.Random(SEED)
    for _ in range(500):
        params = random_params(rng)
        assert family_bases(fam, params) == triton_swizzled_bases(**params), params
    # the corners of the domain
    for lc, lr in [(0, 0), (20, 0), (0, 20), (10, 10), (1, 19)]:
        for lv, lp, lm in itertools.product([0, 7], repeat=3):
            params = {"lc": lc, "lr": lr, "lv": lv, "lp": lp, "lm": lm}
            assert family_bases(fam, params) == triton_swizzled_bases(**params), params


# ---------------------------------------------------------------------- Triton differential


@functools.cache
def _probe_triton() -> str | None:
    """None when Triton 3.9 works in a subprocess, else why not."""
    try:
        proc = subprocess.run(
            [sys.executable, str(ORACLE), "--version"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"cannot run the swizzled oracle worker: {error}"
    if proc.returncode != 0:
        return f"triton is not importable in {sys.executable}: {_stderr_tail(proc.stderr)}"
    version = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "?"
    if not version.startswith("3.9"):
        return f"the differential test pins Triton 3.9, but triton {version} is installed"
    return None


def _stderr_tail(stderr: str, lines: int = 15) -> str:
    kept = [ln for ln in stderr.splitlines() if "leak" not in ln and ln.strip()]
    return "\n".join(kept[-lines:])


def _require_triton() -> None:
    reason = _probe_triton()
    if reason is not None:
        triton_missing(reason)


def run_oracle(cases: list[dict]) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """(results, errors, crashes) by case id; a case that kills the worker is recorded
    and the worker restarted after it."""
    results: dict[str, Any] = {}
    errors: dict[str, str] = {}
    crashes: dict[str, str] = {}
    remaining = cases
    while remaining:
        proc = subprocess.run(
            [sys.executable, str(ORACLE)],
            input=json.dumps(remaining),
            capture_output=True,
            text=True,
            timeout=300,
        )
        done = False
        for line in proc.stdout.splitlines():
            if line.startswith("@@DONE"):
                done = True
            elif line.startswith("@@ "):
                record = json.loads(line[3:])
                if "error" in record:
                    errors[record["id"]] = record["error"]
                results[record["id"]] = record.get("result")
        if done and proc.returncode == 0:
            break
        finished = sum(1 for c in remaining if c["id"] in results)
        culprit = remaining[min(finished, len(remaining) - 1)]
        crashes[culprit["id"]] = f"exit status {proc.returncode}: {_stderr_tail(proc.stderr)}"
        if len(crashes) >= 10:
            break
        remaining = remaining[finished + 1 :]
    return results, errors, crashes


def _case(params: Mapping[str, int]) -> dict:
    # Only valid inputs: powers of two, and at least one element bit (Gluon's
    # SharedLinearLayout refuses empty offset bases, i.e. the 1 x 1 shape).
    assert params["lc"] + params["lr"] >= 1
    return {
        "id": "_".join(f"{k}{params[k]}" for k in PARAMS),
        "params": dict(params),
        "vec": 1 << params["lv"],
        "per_phase": 1 << params["lp"],
        "max_phase": 1 << params["lm"],
        "order": [1, 0],
        "shape": [1 << params["lr"], 1 << params["lc"]],
    }


@pytest.mark.triton
def test_swizzled_instances_match_triton() -> None:
    _require_triton()
    rng = random.Random(SEED)
    chosen: dict[str, dict] = {}
    while len(chosen) < 400:  # random members of the whole domain
        case = _case(random_params(rng))
        chosen[case["id"]] = case
    for combo in itertools.product(range(5), range(5), range(4), range(4), range(4)):
        if combo[0] + combo[1] >= 1:  # a dense grid of small members
            case = _case(dict(zip(PARAMS, combo)))
            chosen[case["id"]] = case
    for lc, lr in [(20, 0), (0, 20), (10, 10), (13, 7)]:
        for lv, lp, lm in itertools.product([0, 7], repeat=3):
            case = _case({"lc": lc, "lr": lr, "lv": lv, "lp": lp, "lm": lm})
            chosen[case["id"]] = case
    cases = list(chosen.values())
    results, errors, crashes = run_oracle(cases)
    assert not crashes, f"Triton aborted on: {crashes}"
    assert not errors, f"Triton raised on: {dict(list(errors.items())[:5])}"
    fam = swizzled_shared_2d()
    mismatches = []
    for case in cases:
        mine = family_bases(fam, case["params"])
        theirs = results[case["id"]]
        if mine != theirs:
            mismatches.append((case["params"], mine, theirs))
    assert not mismatches, f"{len(mismatches)} mismatches, e.g. {mismatches[:3]}"
    assert len(cases) >= 200
    print(f"[swizzled differential] {len(cases)} cases agree with Triton 3.9")


# ---------------------------------------------------------------------- prove_family_equal

FULL = swizzled_shared_2d()
MEDIUM = swizzled_shared_2d(8, 3)
TINY = swizzled_shared_2d(5, 2)

#: Wrong closed forms (each differs from Triton on some member of every domain below).
_COL = "(offset & ((1 << lc) - 1))"
WRONG_REFERENCES = {
    "without_wrap": dict(SWIZZLED_REFERENCE_WITHOUT_WRAP),
    "row_bits_shifted": {
        "dim0": "offset >> lc",
        "dim1": f"{_COL} ^ (((((offset >> lc) >> (lp + 1)) & ((1 << lm) - 1)) << lv) "
        "& ((1 << lc) - 1))",
    },
    "dim0_off_by_one": {"dim0": "offset >> (lc + 1)", "dim1": SWIZZLED_REFERENCE["dim1"]},
    "vec_per_phase_swapped": {
        "dim0": "offset >> lc",
        "dim1": f"{_COL} ^ (((((offset >> lc) >> lv) & ((1 << lm) - 1)) << lp) & ((1 << lc) - 1))",
    },
    "plus_instead_of_xor": {  # not GF(2)-affine
        "dim0": "offset >> lc",
        "dim1": f"({_COL} + (((((offset >> lc) >> lp) & ((1 << lm) - 1)) << lv) "
        "& ((1 << lc) - 1))) & ((1 << lc) - 1)",
    },
}
DOMAIN_IDS = {id(FULL): "full", id(MEDIUM): "8_3", id(TINY): "5_2"}
DOMAINS = {
    "parametric-linear": [FULL, MEDIUM, TINY],
    "z3": [MEDIUM, TINY],
    "enumerate": [TINY],
}
METHOD_DOMAIN = [(m, f) for m, fams in DOMAINS.items() for f in fams]


def _domain_id(family: LayoutFamily) -> str:
    return DOMAIN_IDS[id(family)]


def test_reference_is_proved_on_full_domain() -> None:
    for method in ("auto", "parametric-linear"):
        verdict = prove_family_equal(FULL, SWIZZLED_REFERENCE, method=method)
        assert verdict.proved, str(verdict)
        assert verdict.method == "parametric-linear"
        assert verdict.counterexample is None


@pytest.mark.parametrize(
    ("method", "family"), METHOD_DOMAIN, ids=[f"{m}-{_domain_id(f)}" for m, f in METHOD_DOMAIN]
)
def test_reference_is_proved_by_every_method(method: str, family: LayoutFamily) -> None:
    verdict = prove_family_equal(family, SWIZZLED_REFERENCE, method=method)
    assert verdict.proved, str(verdict)
    assert verdict.method == method
    if method == "enumerate":
        assert verdict.details["members"] == family.domain_size()


def test_reference_brute_force_on_tiny_domain() -> None:
    """Independent of the prover: the closed form (with Python ints) equals every member of
    the tiny domain at every offset; without the wrap it differs exactly on members with
    vec * maxPhase > numCols (and some row bit that reaches the swizzle)."""
    differs_without_wrap = set()
    for params in TINY.members():
        layout = TINY.instance(**params)
        for offset in range(1 << (params["lc"] + params["lr"])):
            env = {**params, "offset": offset}
            actual = layout.apply({"offset": offset})
            expected = {o: python_eval(t, env) for o, t in SWIZZLED_REFERENCE.items()}
            assert actual == expected, env
            without = {o: python_eval(t, env) for o, t in SWIZZLED_REFERENCE_WITHOUT_WRAP.items()}
            if without != actual:
                differs_without_wrap.add(tuple(params.values()))
    assert differs_without_wrap
    for lc, _, lv, _, lm in differs_without_wrap:
        assert (1 << lv) * (1 << lm) > 1 << lc


@pytest.mark.parametrize("name", list(WRONG_REFERENCES))
@pytest.mark.parametrize(
    ("method", "family"), METHOD_DOMAIN, ids=[f"{m}-{_domain_id(f)}" for m, f in METHOD_DOMAIN]
)
def test_wrong_references_are_refuted_with_replaying_counterexamples(
    name: str, method: str, family: LayoutFamily
) -> None:
    reference = WRONG_REFERENCES[name]
    verdict = prove_family_equal(family, reference, method=method)
    assert verdict.refuted, f"{name} by {method}: {verdict}"
    assert verdict.method == method
    point = assert_replays(family, reference, verdict)
    if name == "without_wrap":
        # the missing wrap only matters when the swizzle reaches beyond the columns
        assert (1 << point["lv"]) * (1 << point["lm"]) > 1 << point["lc"], point


def test_methods_agree_on_tiny_domain() -> None:
    references = {"correct": SWIZZLED_REFERENCE, **WRONG_REFERENCES}
    for name, reference in references.items():
        statuses = {
            method: prove_family_equal(TINY, reference, method=method).status
            for method in ("parametric-linear", "z3", "enumerate", "auto")
        }
        assert len(set(statuses.values())) == 1, (name, statuses)
        assert statuses["z3"] == ("proved" if name == "correct" else "refuted")


def test_tiny_timeout_is_unknown_never_proved() -> None:
    verdict = prove_family_equal(FULL, SWIZZLED_REFERENCE, method="z3", timeout_ms=1)
    assert verdict.unknown, str(verdict)
    assert "timeout" in verdict.reason or "unknown" in verdict.reason, verdict.reason
    wrong = prove_family_equal(FULL, SWIZZLED_REFERENCE_WITHOUT_WRAP, method="z3", timeout_ms=1)
    assert not wrong.proved, str(wrong)
    if wrong.refuted:
        assert_replays(FULL, SWIZZLED_REFERENCE_WITHOUT_WRAP, wrong)
    fast = prove_family_equal(FULL, SWIZZLED_REFERENCE, method="parametric-linear", timeout_ms=1)
    assert not fast.refuted, str(fast)
