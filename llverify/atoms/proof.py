"""Proving the atoms: each register fragment equals its vendor formula (PTX ISA, AMD ISA
guides) on every (register, lane, warp) - by :func:`llverify.prove_equal` where the fragment
is a LinearLayout, by enumerating every (thread, value) of its CuTe TV layout where it is not
(wgmma with N not a power of 2).

Examples:
    >>> from llverify.atoms.registry import get
    >>> proof = prove_atom(get("SM80_16x8x16_F32F16F16F32_TN"))
    >>> proof.status, sorted(proof.verdicts)
    (<Status.PROVED: 'proved'>, ['A', 'B', 'C'])
    >>> prove_atom(get("SM90_64x24x16_F32F16F16_RS")).verdicts["C"].method
    'enumeration'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from llverify.atoms.catalogue import FAMILIES, Atom, Operand
from llverify.atoms.registry import atoms
from llverify.proof.verdict import Status, Verdict

__all__ = ["AtomProof", "operand_formulas", "proof_counts", "prove_atom", "prove_operand"]

_LANE = re.compile(r"\blane\b")


def operand_formulas(operand: Operand) -> dict[str, str]:
    """The vendor formulas of ``operand`` over its own in dims: the reference's, with
    ``lane`` replaced by the atom's thread-to-lane map where it has one (sm70 quad pairs).

    Examples:
        >>> from llverify.atoms.registry import get
        >>> operand_formulas(get("SM70_8x8x4_F16F16F16F16_TN").operand("A"))["dim1"]
        'register'
        >>> operand_formulas(get("SM70_8x8x4_F16F16F16F16_TN").operand("A"))["dim0"]
        '((lane & 3) + 16 * (lane >> 2)) % 4 if ((lane & 3) + 16 * (lane >> 2)) < 16 else ((lane & 3) + 16 * (lane >> 2)) % 4 + 4'
    """  # noqa: E501 - the doctest's output is one line
    from llverify.specs.fragments import reference

    formulas = dict(reference(operand.reference).formulas)
    if operand.lane_map is None:
        return formulas
    return {d: _LANE.sub(f"({operand.lane_map})", text) for d, text in formulas.items()}


def _mode_indices(mode: Any, ids: Any) -> Any:
    """The offsets a CuTe layout mode gives the (colexicographic) indices ``ids``."""
    import numpy as np

    from llverify.cute import flatten

    total = np.zeros_like(ids)
    rest = ids.copy()
    for size, stride in zip(flatten(mode.shape), flatten(mode.stride)):
        total += (rest % size) * stride
        rest //= size
    return total


def _enumerate(operand: Operand, formulas: Mapping[str, str], claim: str) -> Verdict:
    """Every (thread, value) of the TV layout against the formulas (numpy, exact ints)."""
    import numpy as np

    from llverify.cute import Layout
    from llverify.ops import NumpyOps
    from llverify.proof.formula import Formula

    clock = Verdict.timed()
    tv = operand.tv()
    rows_cute = operand.cute_tile()[0]
    threads, values = tv[0].size(), tv[1].size()
    thread = np.repeat(np.arange(threads, dtype=np.int64), values)
    value = np.tile(np.arange(values, dtype=np.int64), threads)
    if isinstance(tv, Layout):
        index = _mode_indices(tv[0], thread) + _mode_indices(tv[1], value)
    else:  # a composed (swizzled) layout: evaluate it point by point
        index = np.array([tv._index((int(t), int(v))) for t, v in zip(thread, value)])
    first, second = index % rows_cute, index // rows_cute
    actual = {"dim0": second, "dim1": first} if operand.transposed else {
        "dim0": first, "dim1": second}  # fmt: skip
    point = {"register": value, "lane": thread % operand.lanes, "warp": thread // operand.lanes}
    wrong = np.zeros(thread.shape, dtype=bool)
    expected = {}
    for dim, text in formulas.items():
        expected[dim] = np.broadcast_to(Formula(text).evaluate(NumpyOps(), point), thread.shape)
        wrong |= expected[dim] != actual[dim]
    if wrong.any():
        k = int(np.argmax(wrong))
        at = {name: int(values_[k]) for name, values_ in point.items()}
        return clock.verdict(
            Status.REFUTED, claim, "enumeration", at,
            {d: int(a[k]) for d, a in actual.items()},
            {d: int(e[k]) for d, e in expected.items()},
        )  # fmt: skip
    return clock.verdict(Status.PROVED, claim, "enumeration")


def prove_operand(operand: Operand, timeout_ms: int = 10_000) -> Verdict:
    """Prove ``operand``'s fragment equal to its vendor formula.

    Examples:
        >>> from dataclasses import replace
        >>> from llverify.atoms.registry import get
        >>> c = get("SM80_16x8x8_F16F16F16F16_TN").operand("C")
        >>> prove_operand(c).status
        <Status.PROVED: 'proved'>
        >>> wrong = replace(c, tv_text="((4,8),(2,2)):((32,1),(8,16))")  # values swapped
        >>> v = prove_operand(wrong)
        >>> v.status, v.counterexample
        (<Status.REFUTED: 'refuted'>, {'register': 1, 'lane': 0})
    """
    from llverify.cute import NotLinearError

    formulas = operand_formulas(operand)
    if operand.linear:
        from llverify.prove import prove_equal

        try:
            layout = operand.layout()
        except NotLinearError:  # e.g. two modes overlap: only enumeration can decide
            pass
        else:
            return prove_equal(layout, formulas, timeout_ms=timeout_ms)
    claim = f"{operand.role} fragment == {operand.reference} on every (thread, value)"
    return _enumerate(operand, formulas, claim)


@dataclass(frozen=True)
class AtomProof:
    """The verdicts of an atom's operands (role -> Verdict); ``status`` is the weakest."""

    atom: Atom
    verdicts: Mapping[str, Verdict]

    @property
    def status(self) -> Status:
        return Status.weakest(v.status for v in self.verdicts.values())

    @property
    def proved(self) -> bool:
        return self.status == Status.PROVED


def prove_atom(atom: Atom, timeout_ms: int = 10_000) -> AtomProof:
    """Prove every register fragment of ``atom`` against its vendor formula (a shuffle's
    lane map for every parameter: its one verdict is ``lanes``)."""
    if atom.shuffle is not None:
        from llverify.atoms.shuffle import prove_shuffle

        return AtomProof(atom, {"lanes": prove_shuffle(atom.shuffle)})
    return AtomProof(atom, {op.role: prove_operand(op, timeout_ms) for op in atom.operands})


def proof_counts(
    families: Iterable[str] = FAMILIES, timeout_ms: int = 10_000
) -> dict[str, dict[str, int]]:
    """Per family: how many atoms there are and how many are proved, refuted, unknown.

    Examples:
        >>> proof_counts(["ldmatrix"])
        {'ldmatrix': {'atoms': 14, 'proved': 14, 'refuted': 0, 'unknown': 0}}
    """
    result = {}
    for family in families:
        counts = {"atoms": 0, "proved": 0, "refuted": 0, "unknown": 0}
        for atom in atoms(family):
            counts["atoms"] += 1
            status = prove_atom(atom, timeout_ms).status
            key = status.value if status.value in counts else "unknown"
            counts[key] += 1
        result[family] = counts
    return result
