"""Warp shuffles as lane maps: ``shfl.sync`` idx/up/down/bfly, one atom per mode with its
operand ``b`` (lane or offset) and segment ``width`` as parameters, proved against the PTX
ISA's ``shfl.sync`` semantics for every parameter.

The two statements are independent: the lane map here is the CUDA C++ Programming Guide's
definition of ``__shfl_sync``, ``__shfl_up_sync``, ``__shfl_down_sync`` and
``__shfl_xor_sync`` (segments of ``width`` lanes, out-of-segment sources read their own
value), written over ``lane``, ``b`` and ``width``; the reference is the PTX pseudo-code over
``lane``, ``b`` and the packed operand ``c`` (clamp value and segment mask,
:mod:`llverify.specs.fragments`), with ``c`` as CUDA passes it for ``width``.

A shuffle is a lane *map*, not a register fragment: lane ``l`` of the result holds the value
lane ``j(l)`` held.  It is GF(2)-linear only where ``j(0) = 0`` and XOR is preserved (``b = 0``,
or ``idx`` reading the first lane of each segment); elsewhere (``lane ^ b`` with ``b != 0`` is
affine, ``up``/``down`` clamp at segment edges) :meth:`Shuffle.layout` refuses with the lane
that breaks it.

Examples:
    >>> Shuffle("bfly", 1).sources()[:4]
    [1, 0, 3, 2]
    >>> Shuffle("up", 1, width=8).sources()[:9]
    [0, 0, 1, 2, 3, 4, 5, 6, 8]
    >>> prove_shuffle("down").status
    <Status.PROVED: 'proved'>
    >>> print(Shuffle("idx", 0, width=8).layout())
    <BLANKLINE>
     - lane=1 -> (0)
       lane=2 -> (0)
       lane=4 -> (0)
       lane=8 -> (8)
       lane=16 -> (16)
    where out dims are: [source_lane (size 32)]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from llverify.atoms.catalogue import AtomError
from llverify.errors import shown
from llverify.layout import LinearLayout
from llverify.proof.verdict import Status, Verdict

__all__ = [
    "INTRINSICS", "MODES", "WIDTHS", "Shuffle", "cuda_source_lane", "operand_c", "prove_shuffle",
]  # fmt: skip

#: The shfl.sync modes, in catalogue order.
MODES: tuple[str, ...] = ("idx", "up", "down", "bfly")
#: The segment widths CUDA's shuffles accept (powers of 2 up to the warp).
WIDTHS: tuple[int, ...] = (1, 2, 4, 8, 16, 32)
_LANES = 32

#: The CUDA intrinsic of each mode.
INTRINSICS = {
    "idx": "__shfl_sync",
    "up": "__shfl_up_sync",
    "down": "__shfl_down_sync",
    "bfly": "__shfl_xor_sync",
}


def _check(mode: str, b: int, width: int) -> None:
    if mode not in MODES:
        raise AtomError(f"Argument 'mode' must be one of {list(MODES)}, not {shown(mode)}.")
    if not isinstance(b, int) or isinstance(b, bool) or not 0 <= b < _LANES:
        raise AtomError(f"Argument 'b' must be a lane or offset in 0..31, not {shown(b)}.")
    if width not in WIDTHS:
        raise AtomError(f"Argument 'width' must be one of {list(WIDTHS)}, not {shown(width)}.")


def cuda_source_lane(mode: str, lane: int, b: int, width: int) -> int:
    """The lane whose value ``lane`` receives, as the CUDA C++ Programming Guide defines the
    shuffle intrinsics (segments of ``width`` consecutive lanes).

    Examples:
        >>> cuda_source_lane("idx", 13, 3, 8), cuda_source_lane("bfly", 3, 4, 4)
        (11, 3)
    """
    segment = lane // width
    if mode == "idx":  # srcLane % width within the caller's segment
        return segment * width + b % width
    if mode == "up":  # lane - delta, unless that leaves the segment (then unchanged)
        return lane - b if lane % width >= b else lane
    if mode == "down":  # lane + delta, unless that leaves the segment
        return lane + b if lane % width + b < width else lane
    if mode == "bfly":  # lane ^ laneMask; a later segment's lane is not read
        return lane ^ b if (lane ^ b) // width <= segment else lane
    raise AtomError(f"Argument 'mode' must be one of {list(MODES)}, not {shown(mode)}.")


def operand_c(mode: str, width: int) -> int:
    """The PTX operand ``c`` CUDA passes for a segment of ``width`` lanes: the segment mask
    ``32 - width`` in bits 8-12, the clamp value (0 for ``up``, 31 otherwise) in bits 0-4.

    Examples:
        >>> hex(operand_c("down", 8)), hex(operand_c("up", 32))
        ('0x181f', '0x0')
    """
    return ((_LANES - width) << 8) | (0 if mode == "up" else 31)


@dataclass(frozen=True)
class Shuffle:
    """One ``shfl.sync`` of a warp: ``mode``, operand ``b``, segment ``width``."""

    mode: str
    b: int
    width: int = 32

    def __post_init__(self) -> None:
        _check(self.mode, self.b, self.width)

    def sources(self) -> list[int]:
        """The source lane of each lane 0..31."""
        return [cuda_source_lane(self.mode, lane, self.b, self.width) for lane in range(_LANES)]

    def layout(self) -> LinearLayout:
        """The lane map as a LinearLayout ``lane -> source_lane``, where it is GF(2)-linear.

        Examples:
            >>> Shuffle("bfly", 2).layout()
            Traceback (most recent call last):
            ...
            llverify.atoms.catalogue.AtomError: shfl.sync.bfly with b=2, width=32 is not GF(2)-linear: lane 0 reads lane 2, not 0 (the map is affine, lane ^ 2)
        """  # noqa: E501 - the doctest's output is one line
        sources = self.sources()
        what = f"shfl.sync.{self.mode} with b={self.b}, width={self.width}"
        if sources[0] != 0:
            hint = f" (the map is affine, lane ^ {self.b})" if self.mode == "bfly" else ""
            raise AtomError(
                f"{what} is not GF(2)-linear: lane 0 reads lane {sources[0]}, not 0{hint}"
            )
        bases = [sources[1 << i] for i in range(5)]
        for lane in range(_LANES):
            expected = 0
            for i, basis in enumerate(bases):
                if lane >> i & 1:
                    expected ^= basis
            if sources[lane] != expected:
                raise AtomError(
                    f"{what} is not GF(2)-linear: lane {lane} reads lane {sources[lane]}, but "
                    f"the XOR of its bits' sources is {expected}"
                )
        return LinearLayout.from_bases(
            [("lane", [[basis] for basis in bases])], ["source_lane"], [_LANES],
            require_surjective=False,
        )  # fmt: skip


def _reference_sources(mode: str) -> Callable[[Any, Any, Any], Any]:
    """The PTX pseudo-code's source lane as a numpy function of (lane, b, c)."""
    from llverify.ops import NumpyOps
    from llverify.proof.formula import Formula
    from llverify.specs.fragments import reference

    formula = Formula(reference(f"shfl.sync.{mode}").formulas["source_lane"])
    return lambda lane, b, c: formula.evaluate(NumpyOps(), {"lane": lane, "b": b, "c": c})


def prove_shuffle(
    mode: str, source_lane: Callable[[str, int, int, int], int] = cuda_source_lane
) -> Verdict:
    """Prove ``source_lane`` (the CUDA definition by default) equal to the PTX ISA's
    ``shfl.sync.MODE`` on every lane, every ``b`` in 0..31 and every width, enumerated.

    Examples:
        >>> wrong = lambda mode, lane, b, width: lane ^ b  # no segments
        >>> v = prove_shuffle("bfly", wrong)
        >>> v.status, v.counterexample, v.actual, v.expected
        (<Status.REFUTED: 'refuted'>, {'lane': 0, 'b': 1, 'width': 1}, {'source_lane': 1}, {'source_lane': 0})
    """  # noqa: E501 - the doctest's output is one line
    import numpy as np

    if mode not in MODES:
        raise AtomError(f"Argument 'mode' must be one of {list(MODES)}, not {shown(mode)}.")
    clock = Verdict.timed()
    claim = (
        f"{INTRINSICS[mode]} == PTX shfl.sync.{mode} on every lane, b in 0..31, width in "
        f"{list(WIDTHS)}"
    )
    points = [(w, b, lane) for w in WIDTHS for b in range(_LANES) for lane in range(_LANES)]
    width = np.array([p[0] for p in points], dtype=np.int64)
    b = np.array([p[1] for p in points], dtype=np.int64)
    lane = np.array([p[2] for p in points], dtype=np.int64)
    c = np.array([operand_c(mode, int(w)) for w in width], dtype=np.int64)
    expected = np.broadcast_to(_reference_sources(mode)(lane, b, c), lane.shape)
    actual = np.array([source_lane(mode, la, bb, w) for w, bb, la in points], dtype=np.int64)
    wrong = np.flatnonzero(actual != expected)
    if wrong.size:
        k = int(wrong[0])
        at = {"lane": int(lane[k]), "b": int(b[k]), "width": int(width[k])}
        return clock.verdict(
            Status.REFUTED, claim, "enumeration", at,
            {"source_lane": int(actual[k])}, {"source_lane": int(expected[k])},
        )  # fmt: skip
    return clock.verdict(Status.PROVED, claim, "enumeration")
