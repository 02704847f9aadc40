"""The built-in obligation library: every reference obligation of the ``specs/`` package,
proved against llverify's own converters (no Triton), as picklable plain data.

``llverify prove`` without arguments runs it.  Each :class:`LibraryObligation` is one proof
that the test suite does for a ``specs`` module: an encoding instance equal to its closed
form (``kind = "equivalence"``), a parametric family equal to its closed form for every
parameter value at once (``kind = "family"``), or a negative control shaped like a real bug,
which must be refuted (``expect = "refuted"``).  An obligation holds only strings and an
int (its obligation set and its index there); :meth:`LibraryObligation.run` re-derives it
from ``specs`` and decides it with ``llverify.prove_equal``, ``prove_family_equal`` or
``llverify.smt.padded.prove_padded_equal``, so obligations can go to a process pool.

The groups are the ``specs`` modules, in library order: :data:`GROUPS`.  Proofs of the tests
that are not in the library (negative controls written in the test files rather than in
``specs``) are listed in :data:`NOT_INCLUDED`.

Examples:
    >>> from llverify.library import library_obligations
    >>> obligations = library_obligations(["ldmatrix"])
    >>> len(obligations), obligations[0].kind, obligations[0].source
    (7, 'equivalence', "specs.ldmatrix.LDMATRIX['ldmatrix.x1']")
    >>> outcome = obligations[0].run()
    >>> outcome.status, outcome.passed
    ('proved', True)
    >>> control = obligations[-1]
    >>> control.name
    'ldmatrix: ldmatrix.x4 layout vs LDMATRIX_X4_MATRICES_SWAPPED (negative control)'
    >>> outcome = control.run(timeout_s=10)
    >>> outcome.status, outcome.expected, outcome.passed
    ('refuted', 'refuted', True)
    >>> print(outcome.message)  # doctest: +ELLIPSIS
    refuted by exhaustive in ... ms: register=2, lane=0, warp=0, block=0 -> (8, 0), reference says (0, 8)
    >>> library_obligations(["mma"])
    Traceback (most recent call last):
    ...
    llverify.library.LibraryError: unknown obligation group 'mma'; the groups are: nvidia_mma, ldmatrix, amd_mfma, amd_wmma, blocked, tmem, shared, nvmma_shared, padded.
"""  # noqa: E501 - the doctest's outputs are one line each

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from types import ModuleType
from typing import Any

from llverify.errors import LayoutTypeError, LLVerifyError

__all__ = [
    "GROUPS",
    "NOT_INCLUDED",
    "LibraryError",
    "LibraryObligation",
    "LibraryOutcome",
    "library_obligations",
]

#: The groups (``specs`` modules) in library order.
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
)

#: Proofs of the test suite that the library leaves out, and why: the wrong reference (or
#: the expected verdict) is written in the test file, not in ``specs``.  Moving one into its
#: ``specs`` module is what puts it in the library.  None is left out for time.
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

_EQUIVALENCE = "equivalence"
_FAMILY = "family"
_PROVED = "proved"
_REFUTED = "refuted"


class LibraryError(LLVerifyError, ValueError):
    """A bad argument to the library (an unknown group), or ``specs`` cannot be found."""


# ---------------------------------------------------------------------- data types


@dataclass(frozen=True)
class LibraryOutcome:
    """The result of running one :class:`LibraryObligation`.

    Attributes:
        name, group, kind: the obligation's.
        status: "proved", "refuted", "unknown" (a solver ran out of time or resources) or
            "error" (an exception while building or proving; the message says which).
        expected: the obligation's ``expect``.
        passed: ``status == expected``.
        message: the verdict in words: llverify's ``str(Verdict)``, e.g. ``refuted by z3 in
            2.0 ms: register=3, lane=17 -> (5, 12), reference says (5, 4)``.
        method: the method that decided ("linear", "exhaustive", "z3",
            "parametric-linear", ...), "" when no proof ran.
        seconds: wall time of :meth:`LibraryObligation.run`.
        details: JSON-ready: the obligation's source and the verdict's fields.
    """

    name: str
    group: str
    kind: str
    status: str
    expected: str
    passed: bool
    message: str
    method: str
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


@dataclass(frozen=True)
class LibraryObligation:
    """One proof of the built-in library, as plain picklable data.

    Attributes:
        name: unique, human readable.
        group: the ``specs`` module (one of :data:`GROUPS`).
        kind: "equivalence" (a layout vs a reference) or "family" (a parametric proof over
            every parameter value at once).
        expect: "proved", or "refuted" for a negative control.
        collection: the obligation set, e.g. "blocked.OBLIGATIONS".
        index: the obligation's index in that set.
        source: where it comes from, e.g. "specs.blocked.OBLIGATIONS[3]".
    """

    name: str
    group: str
    kind: str
    expect: str
    collection: str
    index: int
    source: str

    def run(self, timeout_s: float = 60.0) -> LibraryOutcome:
        """Re-derive the obligation from ``specs`` and decide it; ``timeout_s`` bounds each
        solver query.  A solver timeout gives "unknown"; an exception while building or
        proving gives "error" (never raised, so one obligation cannot stop a run)."""
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)):
            raise LayoutTypeError(f"Argument 'timeout_s' must be a number, not {timeout_s!r}.")
        if not timeout_s > 0:
            raise LibraryError(f"Argument 'timeout_s' must be positive, not {timeout_s!r}.")
        timeout_ms = max(1, int(timeout_s * 1000))
        start = time.perf_counter()
        details: dict[str, Any] = {"source": self.source}
        method = ""
        try:
            collection = _COLLECTIONS[self.collection]
            item = collection.items()[self.index]
            derived = collection.name(item)
            if derived != self.name:
                raise LibraryError(
                    f"{self.source} is now {derived!r}: specs changed since the obligation "
                    "was listed; list the library again."
                )
            result = collection.prove(item, timeout_ms)
            status, message, method = result.status, result.message, result.method
            details.update(result.details)
        except RecursionError:
            status, message = "error", "error: nested too deeply"
        except Exception as error:  # one obligation must never take the whole run down
            status, message = "error", f"error: {type(error).__name__}: {error}"
        return LibraryOutcome(
            name=self.name,
            group=self.group,
            kind=self.kind,
            status=status,
            expected=self.expect,
            passed=status == self.expect,
            message=message,
            method=method,
            seconds=time.perf_counter() - start,
            details=_json_ready(details),
        )


def library_obligations(groups: Sequence[str] | None = None) -> list[LibraryObligation]:
    """Every obligation of the library, or of ``groups`` (names from :data:`GROUPS`; one
    string is one group), in library order: groups as in :data:`GROUPS`, inside a group as
    the ``specs`` module lists them (concrete obligations, negative controls, families).

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
    result: list[LibraryObligation] = []
    for group in GROUPS:
        if group not in wanted:
            continue
        for key, collection in _COLLECTIONS.items():
            if collection.group != group:
                continue
            for index, item in enumerate(collection.items()):
                result.append(
                    LibraryObligation(
                        name=collection.name(item),
                        group=group,
                        kind=collection.kind,
                        expect=collection.expect(item),
                        collection=key,
                        index=index,
                        source=collection.where(item, index),
                    )
                )
    return result


# ---------------------------------------------------------------------- machinery


@dataclass(frozen=True)
class _Result:
    status: str
    message: str
    method: str
    details: dict[str, Any] = field(default_factory=dict)


def _of(verdict: Any, **details: Any) -> _Result:
    """The result of an llverify Verdict: its status, ``str`` and fields."""
    details["verdict"] = verdict.to_dict()
    return _Result(verdict.status, str(verdict), verdict.method, details)


def _json_ready(value: Any) -> Any:
    """``value`` with every leaf JSON cannot hold turned into its ``str``."""
    return json.loads(json.dumps(value, default=str))


def _proved(item: Any) -> str:
    return _PROVED


def _refuted(item: Any) -> str:
    return _REFUTED


def _expect_attribute(item: Any) -> str:
    return str(item.expect)


def _expect_second(item: tuple[str, str]) -> str:
    return item[1]


@dataclass(frozen=True)
class _Collection:
    """One obligation set: how to list its items again, name one and prove one.  Only
    top-level functions; obligations hold the set's key and an index, never these."""

    group: str
    kind: str
    items: Callable[[], Sequence[Any]]
    name: Callable[[Any], str]
    prove: Callable[[Any, int], _Result]
    expect: Callable[[Any], str]
    source: str
    describe: Callable[[Any], str] | None

    def where(self, item: Any, index: int) -> str:
        return self.describe(item) if self.describe else f"{self.source}[{index}]"


_COLLECTIONS: dict[str, _Collection] = {}


def _register(
    key: str,
    kind: str,
    items: Callable[[], Sequence[Any]],
    name: Callable[[Any], str],
    prove: Callable[[Any, int], _Result],
    expect: Callable[[Any], str] = _proved,
    describe: Callable[[Any], str] | None = None,
) -> None:
    group = key.split(".", 1)[0]
    assert group in GROUPS and key not in _COLLECTIONS, key
    _COLLECTIONS[key] = _Collection(
        group, kind, items, name, prove, expect, f"specs.{key}", describe
    )


def specs_module(module: str) -> ModuleType:
    """``specs.<module>`` (the repository's references), importable or not on ``sys.path``."""
    return _specs(module)


def _specs(module: str) -> ModuleType:
    """``llverify.specs.<module>``."""
    return importlib.import_module(f"llverify.specs.{module}")


def _shape(shape: Sequence[int]) -> str:
    return str(list(shape))


def _equal(layout: Any, reference: Any, timeout_ms: int, **options: Any) -> _Result:
    from llverify.prove import prove_equal

    return _of(prove_equal(layout, reference, timeout_ms=timeout_ms, **options))


def _family(family: Any, reference: Any, timeout_ms: int) -> _Result:
    from llverify.prove import prove_family_equal

    verdict = prove_family_equal(family, reference, timeout_ms=timeout_ms)
    return _of(verdict, family=family.name, params={k: list(v) for k, v in family.params.items()})


# ---------------------------------------------------------------------- nvidia_mma


def _mma_items() -> Sequence[Any]:
    return tuple(_specs("nvidia_mma").OBLIGATIONS)


def _mma_closed_form_items() -> Sequence[Any]:
    return tuple(_specs("nvidia_mma").CLOSED_FORM_OBLIGATIONS)


def _mma_name(ob: Any) -> str:
    return f"nvidia_mma: {ob.name} on {_shape(ob.shape)} == {ob.reference}"


def _mma_prove(ob: Any, timeout_ms: int) -> _Result:
    from llverify.encodings import to_linear_layout

    formulas = dict(_specs("nvidia_mma").REFERENCES[ob.reference].formulas)
    layout = to_linear_layout(ob.encoding, list(ob.shape))
    return _equal(layout, formulas, timeout_ms, params=dict(ob.params))


def _mma_family_items() -> Sequence[Any]:
    proofs = _specs("nvidia_mma").FAMILY_PROOFS
    return tuple((factory.__name__, reference) for factory, reference in proofs)


def _mma_family_name(entry: tuple[str, str]) -> str:
    return f"nvidia_mma: {entry[0]}(), every member == {entry[1]}"


def _mma_family_prove(entry: tuple[str, str], timeout_ms: int) -> _Result:
    spec = _specs("nvidia_mma")
    return _family(getattr(spec, entry[0])(), spec.family_reference(entry[1]), timeout_ms)


def _mma_family_where(entry: tuple[str, str]) -> str:
    return f"specs.nvidia_mma.{entry[0]}() vs family_reference({entry[1]!r})"


_register("nvidia_mma.OBLIGATIONS", _EQUIVALENCE, _mma_items, _mma_name, _mma_prove)
_register(
    "nvidia_mma.CLOSED_FORM_OBLIGATIONS",
    _EQUIVALENCE,
    _mma_closed_form_items,
    _mma_name,
    _mma_prove,
)
_register(
    "nvidia_mma.FAMILY_PROOFS",
    _FAMILY,
    _mma_family_items,
    _mma_family_name,
    _mma_family_prove,
    describe=_mma_family_where,
)

# ---------------------------------------------------------------------- ldmatrix


def _ldmatrix_items() -> Sequence[Any]:
    return tuple(_specs("ldmatrix").LDMATRIX)


def _ldmatrix_name(name: str) -> str:
    _, encoding, shape = _specs("ldmatrix").LDMATRIX[name]
    return f"ldmatrix: {name} == {encoding} on {_shape(shape)}"


def _ldmatrix_layout(name: str) -> Any:
    from llverify.encodings import to_linear_layout

    _, encoding, shape = _specs("ldmatrix").LDMATRIX[name]
    return to_linear_layout(encoding, list(shape))


def _ldmatrix_prove(name: str, timeout_ms: int) -> _Result:
    formulas = _specs("ldmatrix").LDMATRIX[name][0]
    return _equal(_ldmatrix_layout(name), formulas, timeout_ms)


def _ldmatrix_where(name: str) -> str:
    return f"specs.ldmatrix.LDMATRIX[{name!r}]"


def _ldmatrix_control_items() -> Sequence[Any]:
    return ("ldmatrix.x4",)


def _ldmatrix_control_name(name: str) -> str:
    return f"ldmatrix: {name} layout vs LDMATRIX_X4_MATRICES_SWAPPED (negative control)"


def _ldmatrix_control_prove(name: str, timeout_ms: int) -> _Result:
    wrong = _specs("ldmatrix").LDMATRIX_X4_MATRICES_SWAPPED
    return _equal(_ldmatrix_layout(name), wrong, timeout_ms)


def _ldmatrix_control_where(name: str) -> str:
    return "specs.ldmatrix.LDMATRIX_X4_MATRICES_SWAPPED"


_register(
    "ldmatrix.LDMATRIX",
    _EQUIVALENCE,
    _ldmatrix_items,
    _ldmatrix_name,
    _ldmatrix_prove,
    describe=_ldmatrix_where,
)
_register(
    "ldmatrix.LDMATRIX_X4_MATRICES_SWAPPED",
    _EQUIVALENCE,
    _ldmatrix_control_items,
    _ldmatrix_control_name,
    _ldmatrix_control_prove,
    _refuted,
    _ldmatrix_control_where,
)

# ---------------------------------------------------------------------- amd_mfma


def _mfma_items() -> Sequence[Any]:
    return tuple(_specs("amd_mfma").OBLIGATIONS)


def _mfma_name(ob: Any) -> str:
    if ob.expect == _REFUTED:
        name = ob.name.replace(" (negative control)", "")
        return f"amd_mfma: {name} on {_shape(ob.shape)} vs reference (negative control)"
    return f"amd_mfma: {ob.name} on {_shape(ob.shape)} == reference"


def _mfma_prove(ob: Any, timeout_ms: int) -> _Result:
    layout = ob.encoding.to_linear_layout(list(ob.shape))
    return _equal(layout, dict(ob.reference), timeout_ms)


#: (reference in specs.amd_mfma, expect) for ``mfma32_accumulator_family()``.
_MFMA_FAMILY = (
    ("MFMA32_FAMILY_REFERENCE", _PROVED),
    ("MFMA32_FAMILY_REFERENCE_WARPS_M_FIRST", _REFUTED),
)


def _mfma_family_items() -> Sequence[Any]:
    return _MFMA_FAMILY


def _mfma_family_name(entry: tuple[str, str]) -> str:
    scope = "every warp grid and repetition <= 8 per dim, transposed or not"
    if entry[1] == _REFUTED:
        return f"amd_mfma: 32x32 accumulator family, {scope}, vs {entry[0]} (negative control)"
    return f"amd_mfma: 32x32 accumulator family, {scope}, == {entry[0]}"


def _mfma_family_prove(entry: tuple[str, str], timeout_ms: int) -> _Result:
    spec = _specs("amd_mfma")
    return _family(spec.mfma32_accumulator_family(), getattr(spec, entry[0]), timeout_ms)


def _mfma_family_where(entry: tuple[str, str]) -> str:
    return f"specs.amd_mfma.mfma32_accumulator_family() vs {entry[0]}"


_register(
    "amd_mfma.OBLIGATIONS", _EQUIVALENCE, _mfma_items, _mfma_name, _mfma_prove, _expect_attribute
)
_register(
    "amd_mfma.mfma32_accumulator_family",
    _FAMILY,
    _mfma_family_items,
    _mfma_family_name,
    _mfma_family_prove,
    _expect_second,
    _mfma_family_where,
)

# ---------------------------------------------------------------------- amd_wmma


def _wmma_items() -> Sequence[Any]:
    return tuple(_specs("amd_wmma").OBLIGATIONS)


def _wmma_control_items() -> Sequence[Any]:
    return tuple(_specs("amd_wmma").NEGATIVE_CONTROLS)


def _wmma_name(ob: Any) -> str:
    if ob.expect == _REFUTED:
        return f"amd_wmma: {ob.name} on {_shape(ob.shape)} vs {ob.reference} (negative control)"
    return f"amd_wmma: {ob.name} on {_shape(ob.shape)} == {ob.reference}"


def _wmma_prove(ob: Any, timeout_ms: int) -> _Result:
    layout = _specs("amd_wmma").encoding(ob.instance).to_linear_layout(list(ob.shape))
    return _equal(layout, ob.formulas(), timeout_ms)


_register(
    "amd_wmma.OBLIGATIONS", _EQUIVALENCE, _wmma_items, _wmma_name, _wmma_prove, _expect_attribute
)
_register(
    "amd_wmma.NEGATIVE_CONTROLS",
    _EQUIVALENCE,
    _wmma_control_items,
    _wmma_name,
    _wmma_prove,
    _expect_attribute,
)

# ---------------------------------------------------------------------- blocked


def _blocked_items() -> Sequence[Any]:
    return tuple(_specs("blocked").OBLIGATIONS)


def _blocked_name(ob: Any) -> str:
    cga = f" cga={[list(b) for b in ob.cga_layout]}" if ob.cga_layout else ""
    return (
        f"blocked: {ob.name}: spt={list(ob.size_per_thread)} tpw={list(ob.threads_per_warp)} "
        f"wpc={list(ob.warps_per_cta)} order={list(ob.order)}{cga} on {_shape(ob.shape)} "
        "== closed form"
    )


def _blocked_prove(ob: Any, timeout_ms: int) -> _Result:
    from llverify.encodings.blocked import BlockedLayout

    encoding = BlockedLayout(
        list(ob.size_per_thread),
        list(ob.threads_per_warp),
        list(ob.warps_per_cta),
        list(ob.order),
        [list(b) for b in ob.cga_layout],
    )
    layout = encoding.to_linear_layout(list(ob.shape))
    domain, expected = dict(layout.in_dims), ob.in_dim_sizes()
    if domain != expected:  # the closed form's domain is part of the claim
        return _Result(
            _REFUTED,
            f"refuted by domain: the layout's in dims are {domain}, the closed form's {expected}",
            "domain",
        )
    return _equal(layout, ob.reference(), timeout_ms)


#: (order, reference in specs.blocked, expect) for ``blocked_2d_family(6, order)``.
_BLOCKED_FAMILY = (
    ((1, 0), "BLOCKED_2D_REFERENCES", _PROVED),
    ((0, 1), "BLOCKED_2D_REFERENCES", _PROVED),
    ((1, 0), "BLOCKED_2D_LANES_SWAPPED", _REFUTED),
)


def _blocked_family_items() -> Sequence[Any]:
    return _BLOCKED_FAMILY


def _blocked_family_name(entry: tuple[tuple[int, int], str, str]) -> str:
    order, reference, expect = entry
    scope = "every power-of-2 spt/tpw/wpc <= 64 per dim (46,656 members)"
    if expect == _REFUTED:
        return (
            f"blocked: 2-D family order {list(order)}, {scope}, vs {reference} (negative control)"
        )
    return f"blocked: 2-D family order {list(order)}, {scope}, == closed form"


def _blocked_family_prove(entry: tuple[tuple[int, int], str, str], timeout_ms: int) -> _Result:
    order, reference, _ = entry
    spec = _specs("blocked")
    wrong_or_right = getattr(spec, reference)
    formulas = wrong_or_right[order] if reference == "BLOCKED_2D_REFERENCES" else wrong_or_right
    return _family(spec.blocked_2d_family(6, order), formulas, timeout_ms)


def _blocked_family_expect(entry: tuple[tuple[int, int], str, str]) -> str:
    return entry[2]


def _blocked_family_where(entry: tuple[tuple[int, int], str, str]) -> str:
    order, reference, _ = entry
    key = f"[{order}]" if reference == "BLOCKED_2D_REFERENCES" else ""
    return f"specs.blocked.blocked_2d_family(6, {order}) vs {reference}{key}"


_register("blocked.OBLIGATIONS", _EQUIVALENCE, _blocked_items, _blocked_name, _blocked_prove)
_register(
    "blocked.blocked_2d_family",
    _FAMILY,
    _blocked_family_items,
    _blocked_family_name,
    _blocked_family_prove,
    _blocked_family_expect,
    _blocked_family_where,
)

# ---------------------------------------------------------------------- tmem


def _tmem_message_items() -> Sequence[Any]:
    return tuple(_specs("tmem").MESSAGE_OBLIGATIONS)


def _tmem_message_name(ob: Any) -> str:
    return f"tmem: tcgen05 {ob.atom}.x{ob.num} message == PTX fragment"


def _tmem_message(atom: str, num: int) -> Any:
    from llverify.encodings.tmem import message_tile
    from llverify.layout import LinearLayout

    return message_tile(atom) * LinearLayout.identity_1d(num, "register", "col")


def _tmem_message_prove(ob: Any, timeout_ms: int) -> _Result:
    reference = _specs("tmem").MESSAGE_REFERENCES[ob.atom]
    return _equal(_tmem_message(ob.atom, ob.num), reference, timeout_ms)


def _tmem_register_items() -> Sequence[Any]:
    return tuple(_specs("tmem").REGISTER_OBLIGATIONS)


def _tmem_register_name(ob: Any) -> str:
    return f"tmem: {ob.name} register layout == closed form"


def _tmem_register_layout(ob: Any) -> Any:
    from llverify.encodings.tmem import TensorMemoryLayout, tmem_register_layout

    encoding = TensorMemoryLayout(ob.block, ob.col_stride)
    layout = tmem_register_layout(ob.element, list(ob.shape), encoding, ob.num_warps, ob.atom)
    if layout is None:
        raise LibraryError(f"no {ob.atom} register layout for {ob.name}")
    return layout.to_linear_layout(list(ob.shape))


def _tmem_register_prove(ob: Any, timeout_ms: int) -> _Result:
    return _equal(_tmem_register_layout(ob), ob.reference, timeout_ms)


#: The negative controls of specs.tmem, with the instance the tests check each on.
_TMEM_CONTROLS = (
    ("MESSAGE_16X64B_MISREAD", "16x64b.x4 message"),
    ("REGISTER_8W_ROW_MAJOR", "32x32b/f32/128x128/8w"),
)


def _tmem_control_items() -> Sequence[Any]:
    return _TMEM_CONTROLS


def _tmem_control_name(entry: tuple[str, str]) -> str:
    return f"tmem: {entry[1]} vs {entry[0]} (negative control)"


def _tmem_control_prove(entry: tuple[str, str], timeout_ms: int) -> _Result:
    spec = _specs("tmem")
    if entry[0] == "MESSAGE_16X64B_MISREAD":
        layout = _tmem_message("16x64b", 4)
    else:
        ob = next(o for o in spec.REGISTER_OBLIGATIONS if o.name == entry[1])
        layout = _tmem_register_layout(ob)
    return _equal(layout, getattr(spec, entry[0]), timeout_ms)


def _tmem_control_where(entry: tuple[str, str]) -> str:
    return f"specs.tmem.{entry[0]}"


_register(
    "tmem.MESSAGE_OBLIGATIONS",
    _EQUIVALENCE,
    _tmem_message_items,
    _tmem_message_name,
    _tmem_message_prove,
)
_register(
    "tmem.REGISTER_OBLIGATIONS",
    _EQUIVALENCE,
    _tmem_register_items,
    _tmem_register_name,
    _tmem_register_prove,
)
_register(
    "tmem.negative_controls",
    _EQUIVALENCE,
    _tmem_control_items,
    _tmem_control_name,
    _tmem_control_prove,
    _refuted,
    _tmem_control_where,
)

# ---------------------------------------------------------------------- shared


def _shared_layout(ob: Any) -> Any:
    from llverify.encodings.shared import AMDRotatingSharedLayout, SwizzledSharedLayout

    cls = SwizzledSharedLayout if ob.kind == "swizzled" else AMDRotatingSharedLayout
    cga = [list(b) for b in ob.cga_layout]
    encoding = cls(ob.vec, ob.per_phase, ob.max_phase, list(ob.order), cga)
    return encoding.to_linear_layout(list(ob.shape))


def _swizzled_items() -> Sequence[Any]:
    return tuple(_specs("shared").SWIZZLED_OBLIGATIONS)


def _rotating_items() -> Sequence[Any]:
    return tuple(_specs("shared").ROTATING_OBLIGATIONS)


def _shared_name(ob: Any) -> str:
    return f"shared: {ob.name} == closed form"


def _shared_prove(ob: Any, timeout_ms: int) -> _Result:
    return _equal(_shared_layout(ob), ob.reference(), timeout_ms)


def _shared_control_items() -> Sequence[Any]:
    return tuple(_specs("shared").NEGATIVE_CONTROLS)


def _shared_control_name(control: Any) -> str:
    description, ob, _ = control
    return f"shared: {ob.name} vs {description} (negative control)"


def _shared_control_prove(control: Any, timeout_ms: int) -> _Result:
    from llverify.prove import prove_equal

    _, ob, wrong = control
    layout = _shared_layout(ob)
    right = prove_equal(layout, ob.reference(), timeout_ms=timeout_ms)
    if not right.proved:  # a control only means something where the right form holds
        return _Result(
            "unknown" if right.unknown else "error",
            f"error: the correct closed form is not proved on this instance: {right}",
            right.method,
            {"correct_form": right.to_dict()},
        )
    result = _equal(layout, wrong, timeout_ms)
    result.details["correct_form"] = right.to_dict()
    return result


#: (family factory, reference, expect, description): the families of specs.shared; the
#: unwrapped reference is llverify's own (llverify.family), the rest are specs.shared's.
_SHARED_FAMILIES = (
    ("swizzled_shared_2d", "SWIZZLED_REFERENCE", _PROVED, "swizzled [1, 0]"),
    ("swizzled_shared_2d_order01", "SWIZZLED_REFERENCE_ORDER01", _PROVED, "swizzled [0, 1]"),
    ("rotating_shared_2d", "ROTATING_REFERENCE", _PROVED, "AMD rotating [1, 0]"),
    ("swizzled_shared_2d", "SWIZZLED_REFERENCE_WITHOUT_WRAP", _REFUTED, "swizzled [1, 0]"),
    ("rotating_shared_2d", "ROTATING_REFERENCE_WITHOUT_BLOCK", _REFUTED, "AMD rotating [1, 0]"),
)


def _shared_family_items() -> Sequence[Any]:
    return _SHARED_FAMILIES


def _shared_family_name(entry: tuple[str, str, str, str]) -> str:
    factory, reference, expect, description = entry
    scope = "every power-of-2 vec/perPhase/maxPhase <= 128 on every R x C <= 2**20"
    if expect == _REFUTED:
        return f"shared: {description} family, {scope}, vs {reference} (negative control)"
    return f"shared: {description} family, {scope}, == {reference}"


def _shared_family_prove(entry: tuple[str, str, str, str], timeout_ms: int) -> _Result:
    spec = _specs("shared")
    if entry[1] == "SWIZZLED_REFERENCE_WITHOUT_WRAP":
        from llverify import family

        reference = family.SWIZZLED_REFERENCE_WITHOUT_WRAP
    else:
        reference = getattr(spec, entry[1])
    return _family(getattr(spec, entry[0])(), reference, timeout_ms)


def _shared_family_expect(entry: tuple[str, str, str, str]) -> str:
    return entry[2]


def _shared_family_where(entry: tuple[str, str, str, str]) -> str:
    home = "llverify.family" if entry[1] == "SWIZZLED_REFERENCE_WITHOUT_WRAP" else "specs.shared"
    return f"specs.shared.{entry[0]}() vs {home}.{entry[1]}"


_register("shared.SWIZZLED_OBLIGATIONS", _EQUIVALENCE, _swizzled_items, _shared_name, _shared_prove)
_register("shared.ROTATING_OBLIGATIONS", _EQUIVALENCE, _rotating_items, _shared_name, _shared_prove)
_register(
    "shared.NEGATIVE_CONTROLS",
    _EQUIVALENCE,
    _shared_control_items,
    _shared_control_name,
    _shared_control_prove,
    _refuted,
)
_register(
    "shared.families",
    _FAMILY,
    _shared_family_items,
    _shared_family_name,
    _shared_family_prove,
    _shared_family_expect,
    _shared_family_where,
)

# ---------------------------------------------------------------------- nvmma_shared


def _nvmma_layout(swizzle: int, transposed: bool, bitwidth: int, shape: Sequence[int]) -> Any:
    from llverify.encodings.nvmma_shared import NVMMASharedLayout

    encoding = NVMMASharedLayout(swizzle, bitwidth, 2, transposed, False)
    return encoding.to_linear_layout(list(shape))


def _nvmma_closed_form_items() -> Sequence[Any]:
    return tuple(_specs("nvmma_shared").CLOSED_FORM_OBLIGATIONS)


def _nvmma_closed_form_name(ob: Any) -> str:
    return f"nvmma_shared: {ob.name} == closed form"


def _nvmma_closed_form_prove(ob: Any, timeout_ms: int) -> _Result:
    layout = _nvmma_layout(ob.swizzle, ob.transposed, ob.bitwidth, ob.shape)
    return _equal(layout, ob.reference, timeout_ms, params=ob.params)


_CUTE_FORMS = ("forward", "forward on byte addresses", "inverse")


def _nvmma_cute_items() -> Sequence[Any]:
    obligations = _specs("nvmma_shared").CUTE_OBLIGATIONS
    return tuple((ob, form) for ob in obligations for form in _CUTE_FORMS)


def _nvmma_cute_name(entry: tuple[Any, str]) -> str:
    ob, form = entry
    return f"nvmma_shared: {ob.name} on {_shape(ob.shape)} == CuTe swizzle ({form})"


def _nvmma_cute_prove(entry: tuple[Any, str], timeout_ms: int) -> _Result:
    ob, form = entry
    layout = _nvmma_layout(ob.swizzle, ob.transposed, ob.bitwidth, ob.shape)
    layout = layout.sublayout(["offset"], layout.get_out_dim_names())  # without the block
    if form == "inverse":
        return _equal(layout.invert(), ob.inverse(), timeout_ms, method="linear")
    reference = ob.forward(byte_addresses=form != "forward")
    return _equal(layout, reference, timeout_ms, method="linear")


def _nvmma_cute_where(entry: tuple[Any, str]) -> str:
    ob, form = entry
    call = "inverse()" if form == "inverse" else f"forward({form != 'forward'})"
    return f"specs.nvmma_shared.CUTE_OBLIGATIONS[{ob.name!r}].{call}"


#: The negative controls of specs.nvmma_shared, with the instances the tests use.
_NVMMA_CONTROLS = (
    ("CUTE_ON_ELEMENTS_16B", "128 B 16-bit [8, 64]"),
    ("NVMMA_PHASE_OFF_BY_ONE", "128 B 16-bit [64, 64]"),
    ("NVMMA_WIDE_ROWS", "64 B 16-bit [64, 128]"),
    ("NVMMA_REFERENCE", "128 B 16-bit transposed [64, 64]"),
)


def _nvmma_control_items() -> Sequence[Any]:
    return _NVMMA_CONTROLS


def _nvmma_control_name(entry: tuple[str, str]) -> str:
    return f"nvmma_shared: {entry[1]} vs {entry[0]} (negative control)"


def _nvmma_control_prove(entry: tuple[str, str], timeout_ms: int) -> _Result:
    spec = _specs("nvmma_shared")
    name = entry[0]
    if name == "CUTE_ON_ELEMENTS_16B":  # CUTLASS's byte-address swizzle on element addresses
        ob = spec.CUTE_ON_ELEMENTS_16B
        layout = _nvmma_layout(ob.swizzle, ob.transposed, ob.bitwidth, ob.shape)
        address = spec.cute_swizzle_text("offset", *spec.CUTE_BYTE_SWIZZLES[ob.swizzle])
        box_bits = ob.box_cols.bit_length() - 1
        wrong = {"dim0": f"{address} >> {box_bits}", "dim1": f"{address} & {ob.box_cols - 1}"}
        return _equal(layout, wrong, timeout_ms)
    if name == "NVMMA_PHASE_OFF_BY_ONE":  # perPhase doubled
        layout = _nvmma_layout(128, False, 16, (64, 64))
        params = spec.nvmma_params(128, 16, 64)
        return _equal(layout, spec.NVMMA_PHASE_OFF_BY_ONE, timeout_ms, params=params)
    if name == "NVMMA_WIDE_ROWS":  # two boxes read as one row of 128 columns
        layout = _nvmma_layout(64, False, 16, (64, 128))
        params = {k: v for k, v in spec.nvmma_params(64, 16, 64).items() if k in ("lp", "lm", "lv")}
        return _equal(layout, spec.NVMMA_WIDE_ROWS, timeout_ms, params={**params, "lc": 7})
    # the non-transposed closed form on a transposed layout
    layout = _nvmma_layout(128, True, 16, (64, 64))
    params = spec.nvmma_params(128, 16, 64)
    return _equal(layout, spec.NVMMA_REFERENCE, timeout_ms, params=params)


def _nvmma_control_where(entry: tuple[str, str]) -> str:
    return f"specs.nvmma_shared.{entry[0]}"


def _nvmma_family_items() -> Sequence[Any]:
    return tuple(_specs("nvmma_shared").FAMILY_PROOFS)


def _nvmma_family_name(proof: Any) -> str:
    return f"nvmma_shared: 2-D family, {proof.name} ({proof.note}) == closed form"


def _nvmma_family_prove(proof: Any, timeout_ms: int) -> _Result:
    family = _specs("nvmma_shared").nvmma_shared_2d(constraint=proof.constraint)
    return _family(family, proof.reference, timeout_ms)


_register(
    "nvmma_shared.CLOSED_FORM_OBLIGATIONS",
    _EQUIVALENCE,
    _nvmma_closed_form_items,
    _nvmma_closed_form_name,
    _nvmma_closed_form_prove,
)
_register(
    "nvmma_shared.CUTE_OBLIGATIONS",
    _EQUIVALENCE,
    _nvmma_cute_items,
    _nvmma_cute_name,
    _nvmma_cute_prove,
    describe=_nvmma_cute_where,
)
_register(
    "nvmma_shared.negative_controls",
    _EQUIVALENCE,
    _nvmma_control_items,
    _nvmma_control_name,
    _nvmma_control_prove,
    _refuted,
    _nvmma_control_where,
)
_register(
    "nvmma_shared.FAMILY_PROOFS",
    _FAMILY,
    _nvmma_family_items,
    _nvmma_family_name,
    _nvmma_family_prove,
)

# ---------------------------------------------------------------------- padded


def _padded_items() -> Sequence[Any]:
    return tuple(_specs("padded").all_obligations())


def _padded_control_items() -> Sequence[Any]:
    return tuple(_specs("padded").NEGATIVE_CONTROLS)


def _padded_name(ob: Any) -> str:
    if ob.expect == _REFUTED:
        return f"padded: {ob.name}: {ob.observe} vs {ob.reference} (negative control)"
    return f"padded: {ob.name}: {ob.observe} == {ob.reference}"


def _padded_prove(ob: Any, timeout_ms: int) -> _Result:
    from llverify.encodings.padded import PaddedSharedLayout
    from llverify.smt.padded import prove_padded_equal

    if ob.offset_bases is None:
        encoding = PaddedSharedLayout.with_identity_for(ob.pairs, ob.shape, ob.order, ob.cga)
    else:
        encoding = PaddedSharedLayout(ob.pairs, ob.offset_bases, ob.cga, ob.shape)
    model = encoding.padded_layout(num_buffers=ob.num_buffers)
    verdict = prove_padded_equal(
        model,
        ob.reference,
        observe=ob.observe,
        params=ob.params,
        method=ob.method,
        timeout_ms=timeout_ms,
    )
    return _of(verdict)


def _padded_where(ob: Any) -> str:
    home = "NEGATIVE_CONTROLS" if ob.expect == _REFUTED else "all_obligations()"
    return f"specs.padded.{home}[{ob.name!r}]"


_register(
    "padded.all_obligations",
    _EQUIVALENCE,
    _padded_items,
    _padded_name,
    _padded_prove,
    _expect_attribute,
    _padded_where,
)
_register(
    "padded.NEGATIVE_CONTROLS",
    _EQUIVALENCE,
    _padded_control_items,
    _padded_name,
    _padded_prove,
    _expect_attribute,
    _padded_where,
)
