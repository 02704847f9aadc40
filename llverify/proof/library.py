"""Running obligations: the built-in library (``llverify.specs``: its modules' obligations and
its TOML spec files; the atom catalogue's, :mod:`llverify.atoms.library`) is collected here, and any obligations are run, alone or in a process
pool, into :class:`Outcome` objects.

Examples:
    >>> from llverify.proof.library import library_obligations, run_obligation
    >>> obligations = library_obligations(["ldmatrix"])
    >>> len(obligations), obligations[0].kind, obligations[0].source
    (7, 'library equivalence', 'specs/ldmatrix.py')
    >>> outcome = run_obligation(obligations[0])
    >>> outcome.status, outcome.passed
    (<Status.PROVED: 'proved'>, True)
    >>> control = obligations[-1]
    >>> control.name
    'ldmatrix: ldmatrix.x4 layout vs LDMATRIX_X4_MATRICES_SWAPPED (negative control)'
    >>> outcome = run_obligation(control, timeout_s=10)
    >>> outcome.status, outcome.expected, outcome.passed
    (<Status.REFUTED: 'refuted'>, <Status.REFUTED: 'refuted'>, True)
    >>> print(outcome.message)  # doctest: +ELLIPSIS
    refuted by exhaustive in ... ms: register=2, lane=0, warp=0, block=0 -> (8, 0), reference says (0, 8)
    >>> library_obligations(["mma"])
    Traceback (most recent call last):
    ...
    llverify.proof.library.LibraryError: unknown obligation group 'mma'; the groups are: nvidia_mma, ldmatrix, amd_mfma, amd_wmma, blocked, tmem, shared, nvmma_shared, padded, intel_dpas, atoms.
"""  # noqa: E501 - the doctest's outputs are one line each

from __future__ import annotations

import copy
import importlib
import math
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llverify.errors import LayoutTypeError, LLVerifyError
from llverify.proof.obligation import Obligation, Ruling
from llverify.proof.pool import process_pool
from llverify.proof.verdict import Status

__all__ = [
    "GROUPS",
    "MODULES",
    "NOT_INCLUDED",
    "SPECS",
    "LibraryError",
    "Outcome",
    "builtin_spec_files",
    "library_obligations",
    "run_all",
    "run_obligation",
    "source_name",
]

#: The groups (``llverify.specs`` modules) in library order.
GROUPS: tuple[str, ...] = (
    "nvidia_mma",
    "ldmatrix",
    "amd_mfma",
    "amd_wmma",
    "blocked",
    "tmem",
    "shared",
    "nvmma_shared",
    "padded",
    "intel_dpas",
    "atoms",
)

#: Where a group's obligations live (its module's ``LIBRARY``): ``llverify.specs.<group>``,
#: except the atom catalogue's, which sit with the atoms (a layer above the specs).
MODULES: dict[str, str] = {group: f"llverify.specs.{group}" for group in GROUPS}
MODULES["atoms"] = "llverify.atoms.library"

#: The package's spec library: ``llverify/specs`` (its ``**/*.toml`` are package data).
SPECS = Path(__file__).resolve().parents[1] / "specs"

#: Proofs of the test suite that the library leaves out, and why: the wrong reference (or
#: the expected verdict) is written in the test file, not in ``llverify.specs``.  Moving one
#: into its spec module is what puts it in the library.  None is left out for time.
NOT_INCLUDED: dict[str, str] = {
    "tests/test_encodings_blocked.py::test_blocked_negative_controls_refuted": (
        "5 negative controls (no-wrap, lane-bits-swapped, wrong-order, reps-below-warps, "
        "cga-unscaled) whose wrong formulas are written in the test"
    ),
    "tests/test_encodings_nvidia_mma.py::test_negative_*": (
        "8 negative controls (lane bits swapped, wrong kWidth repetition, wrong kWidth x2, "
        "operand B transposed the wrong way, Hopper warps row-major, family N repetitions, "
        "wgmma warp stride) whose wrong layouts or formulas are built in the test"
    ),
    "tests/test_encodings_amd_mfma.py (section d)": (
        "4 negative controls (lane bits swapped, wrong kWidth repetition, transposed the "
        "wrong way, warps swapped between operands) built in the test; the 4 of "
        "specs.amd_mfma.NEGATIVE_CONTROLS and the family control are in the library"
    ),
    "tests/test_encodings_nvmma_shared.py::test_family_negative_control": (
        "the growth order flipped: a string replacement written in the test"
    ),
    "tests/test_encodings_shared.py::test_unwrapped_phase_refuted_exactly_where_it_wraps": (
        "a characterization of ~180 instances whose expected verdicts come from a condition "
        "written in the test; the specs' own unwrapped-phase control is in the library"
    ),
    "method cross-checks": (
        "ldmatrix by every method, families by enumeration, padded z3 vs exhaustive: they "
        "compare the prover's methods, the library proves each obligation once"
    ),
}

Progress = Callable[[int, int, "Outcome"], None]


class LibraryError(LLVerifyError, ValueError):
    """A bad argument (an unknown group, a bad timeout), or the spec library is missing."""


@dataclass(frozen=True)
class Outcome:
    """The result of running one obligation: the obligation's name, source and expected
    status, the :class:`~llverify.proof.obligation.Ruling` that deciding it gave (its
    status, message and details), and the time it took.

    Attributes:
        name, kind: the obligation's.
        file, line: its source and line (0 for a spec module); ``file::name`` is its key in
            ``proofs/records.json``.
        status: PROVED, REFUTED, UNKNOWN (a solver ran out of time or resources) or ERROR
            (the obligation could not be built or its input was rejected; the message says
            why).
        expected: what the obligation expects (PROVED or REFUTED).
        message: the evidence, e.g. ``refuted by linear in 1.2 ms: register=3, lane=17 ->
            (5, 12), reference says (5, 4)``.
        seconds: wall time.
        details: JSON-ready numbers behind the message.
    """

    name: str
    kind: str
    file: str
    line: int
    status: Status
    expected: Status
    message: str
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        object.__setattr__(self, "expected", Status(self.expected))

    @classmethod
    def of(cls, obligation: Obligation, ruling: Ruling, seconds: float) -> Outcome:
        """The outcome of ``obligation``, decided as ``ruling`` in ``seconds``."""
        return cls(
            obligation.name,
            obligation.kind,
            obligation.source,
            obligation.line,
            ruling.status,
            obligation.expect,
            ruling.message,
            seconds,
            ruling.details,
        )

    @property
    def passed(self) -> bool:
        """``status == expected``."""
        return self.status == self.expected

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, ``passed`` included."""
        return {
            "name": self.name,
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "status": self.status,
            "expected": self.expected,
            "passed": self.passed,
            "message": self.message,
            "seconds": self.seconds,
            "details": copy.deepcopy(self.details),
        }


# ---------------------------------------------------------------------- collecting


def library_obligations(groups: Sequence[str] | None = None) -> list[Obligation]:
    """Every obligation of the spec modules, or of ``groups`` (names from :data:`GROUPS`;
    one string is one group), in library order: groups as in :data:`GROUPS`, inside a group
    as the module's ``LIBRARY`` lists them.

    Raises:
        LibraryError: (a ``ValueError``) naming an unknown group.
    """
    if groups is None:
        wanted = set(GROUPS)
    else:
        names = [groups] if isinstance(groups, str) else list(groups)
        for name in names:
            if not isinstance(name, str):
                raise LayoutTypeError(f"Group names must be strings, not {name!r}.")
            if name not in GROUPS:
                raise LibraryError(
                    f"unknown obligation group {name!r}; the groups are: {', '.join(GROUPS)}."
                )
        wanted = set(names)
    result: list[Obligation] = []
    for group in GROUPS:
        if group in wanted:
            result.extend(importlib.import_module(MODULES[group]).LIBRARY)
    return result


def builtin_spec_files() -> list[Path]:
    """The TOML part of the built-in library: ``llverify/specs/**/*.toml``, sorted.

    Raises:
        LibraryError: when the package holds none (an installation without its data).
    """
    files = sorted(SPECS.rglob("*.toml"))
    if not files:
        raise LibraryError(
            f"the built-in spec library is not installed ({SPECS} holds no *.toml files); "
            "pass spec files or directories: llverify prove PATH [PATH ...] (docs/specs.md)."
        )
    return files


def source_name(path: Path) -> str:
    """The name of a built-in spec file in outcomes and records: relative to the package.

    Examples:
        >>> source_name(SPECS / "library" / "conversions.toml")
        'specs/library/conversions.toml'
    """
    return (Path("specs") / Path(path).resolve().relative_to(SPECS)).as_posix()


# ---------------------------------------------------------------------- running


def _timeout(timeout_s: float) -> float:
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)):
        raise LayoutTypeError(f"Argument 'timeout_s' must be a number, not {timeout_s!r}.")
    if not (timeout_s > 0 and math.isfinite(timeout_s)):
        raise LibraryError(f"Argument 'timeout_s' must be positive, not {timeout_s!r}.")
    return float(timeout_s)


def run_obligation(obligation: Obligation, timeout_s: float = 60.0) -> Outcome:
    """Build and decide one obligation; ``timeout_s`` bounds each solver query (a swizzle
    synthesis as a whole).  A solver timeout gives UNKNOWN; an exception while building or
    deciding gives ERROR (never raised, so one obligation cannot stop a run)."""
    budget = _timeout(timeout_s)
    if not isinstance(obligation, Obligation):
        raise LayoutTypeError(f"Argument 'obligation' must be an Obligation, not {obligation!r}.")
    start = time.perf_counter()
    where = obligation.location
    try:
        ruling = obligation.decide(obligation.build(), obligation.reference, budget)
    except LLVerifyError as error:
        ruling = Ruling(Status.ERROR, f"{where}: {error}")
    except RecursionError:
        ruling = Ruling(Status.ERROR, f"{where}: nested too deeply")
    except Exception as error:  # an obligation must never take the whole run down
        ruling = Ruling(Status.ERROR, f"{where}: internal error ({type(error).__name__}: {error})")
    return Outcome.of(obligation, ruling, time.perf_counter() - start)


def run_all(
    obligations: Iterable[Obligation],
    jobs: int = 1,
    timeout_s: float = 60.0,
    progress: Progress | None = None,
) -> list[Outcome]:
    """Run every obligation; outcomes come back in the order of ``obligations``.

    ``jobs > 1`` runs them in a process pool of that many workers
    (:func:`llverify.proof.pool.process_pool`: Ctrl-C cancels the rest and ends the
    workers).  ``progress(done, total, outcome)`` is called as each one finishes.  An
    interrupt (KeyboardInterrupt, here or in a worker's solver) is raised, never turned into
    an outcome.
    """
    _timeout(timeout_s)
    items = list(obligations)
    total = len(items)
    results: list[Outcome | None] = [None] * total
    if jobs <= 1 or total <= 1:
        for i, obligation in enumerate(items):
            results[i] = run_obligation(obligation, timeout_s)
            if progress is not None:
                progress(i + 1, total, results[i])  # type: ignore[arg-type]
        return [r for r in results if r is not None]
    with process_pool(min(jobs, total)) as pool:
        futures = {pool.submit(run_obligation, ob, timeout_s): i for i, ob in enumerate(items)}
        for done, future in enumerate(as_completed(futures), start=1):
            i = futures[future]
            try:
                outcome = future.result()
            except Exception as error:  # a worker died (memory, a signal): report, go on
                outcome = _failed(items[i], f"the worker process failed: {error!r}")
            results[i] = outcome
            if progress is not None:
                progress(done, total, outcome)
    return [r for r in results if r is not None]


def _failed(obligation: Obligation, reason: str) -> Outcome:
    return Outcome.of(obligation, Ruling(Status.ERROR, f"{obligation.location}: {reason}"), 0.0)
