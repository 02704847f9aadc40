"""ldmatrix fragments (NVIDIA PTX ISA, "Warp-level matrix load instruction: ldmatrix").

``ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{,.trans}.shared.b16`` loads 1, 2 or 4 8x8 matrices of
16-bit elements; matrix ``k``'s row addresses come from lanes ``8k..8k+7`` and destination
register ``d_k`` holds matrix ``k``.  Without ``.trans`` lane ``l`` receives elements
``(row = l / 4, col = 2 * (l % 4) + e)``, ``e`` in {0, 1} the half of the 32-bit register;
with ``.trans`` it receives ``(row = 2 * (l % 4) + e, col = l / 4)``.

In the formulas below ``register`` counts 16-bit elements (Triton's register dim):
``e = register & 1`` and ``k = register >> 1``.  The matrices are placed where the MMA
operand fragments need them (the order Triton's lowering gives the row addresses): for the
m16n8k16 A operand, matrices 0..3 are (rows 0-7, cols 0-7), (rows 8-15, cols 0-7),
(rows 0-7, cols 8-15), (rows 8-15, cols 8-15); for B (.trans), (k 0-7), (k 8-15) per 8 columns.
So each ldmatrix fragment *is* a Triton dot-operand layout, which the obligations prove.
"""

from __future__ import annotations

from llverify.encodings import to_linear_layout
from llverify.proof.obligation import Call
from llverify.proof.obligation import Obligation as LibraryObligation
from llverify.proof.verdict import Status
from llverify.specs import claims

_MMA = (
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], "
    "instrShape = [16, 8]}>"
)


def _dot(operand: int) -> str:
    return f"#ttg.dot_op<{{opIdx = {operand}, parent = {_MMA}, kWidth = 2}}>"


#: name -> (formulas over register and lane, TTGIR encoding, shape)
LDMATRIX = {
    "ldmatrix.x1": (
        {"dim0": "lane >> 2", "dim1": "2 * (lane & 3) + (register & 1)"},
        _MMA,
        (8, 8),
    ),
    "ldmatrix.x2": (
        {
            "dim0": "(lane >> 2) + 8 * ((register >> 1) & 1)",
            "dim1": "2 * (lane & 3) + (register & 1)",
        },
        _dot(0),
        (16, 8),
    ),
    "ldmatrix.x4": (
        {
            "dim0": "(lane >> 2) + 8 * ((register >> 1) & 1)",
            "dim1": "2 * (lane & 3) + (register & 1) + 8 * (register >> 2)",
        },
        _dot(0),
        (16, 16),
    ),
    "ldmatrix.x1.trans": (
        {"dim0": "2 * (lane & 3) + (register & 1)", "dim1": "lane >> 2"},
        _dot(1),
        (8, 8),
    ),
    "ldmatrix.x2.trans": (
        {
            "dim0": "2 * (lane & 3) + (register & 1) + 8 * ((register >> 1) & 1)",
            "dim1": "lane >> 2",
        },
        _dot(1),
        (16, 8),
    ),
    "ldmatrix.x4.trans": (
        {
            "dim0": "2 * (lane & 3) + (register & 1) + 8 * ((register >> 1) & 1)",
            "dim1": "(lane >> 2) + 8 * (register >> 2)",
        },
        _dot(1),
        (16, 16),
    ),
}

#: Negative control: x4 with matrices 1 and 2 swapped (row block and column block exchanged).
LDMATRIX_X4_MATRICES_SWAPPED = {
    "dim0": "(lane >> 2) + 8 * (register >> 2)",
    "dim1": "2 * (lane & 3) + (register & 1) + 8 * ((register >> 1) & 1)",
}


# ---------------------------------------------------------------------- the library

_SOURCE = "specs/ldmatrix.py"


def _library() -> tuple[LibraryObligation, ...]:
    result = [
        claims.equivalence(
            f"ldmatrix: {name} == {encoding} on {list(shape)}",
            _SOURCE,
            Call(to_linear_layout, encoding, list(shape)),
            formulas,
        )
        for name, (formulas, encoding, shape) in LDMATRIX.items()
    ]
    _, encoding, shape = LDMATRIX["ldmatrix.x4"]
    result.append(
        claims.equivalence(
            "ldmatrix: ldmatrix.x4 layout vs LDMATRIX_X4_MATRICES_SWAPPED (negative control)",
            _SOURCE,
            Call(to_linear_layout, encoding, list(shape)),
            LDMATRIX_X4_MATRICES_SWAPPED,
            expect=Status.REFUTED,
        )
    )
    return tuple(result)


#: The module's obligations in the built-in library: every fragment, then the control.
LIBRARY = _library()
