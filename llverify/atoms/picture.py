"""Pictures of atoms: an MMA atom's A, B and C fragments side by side (who holds each
element: thread and value), or a copy atom's register fragment, captioned with each
fragment's closed form in LaTeX (``explain(form="latex")``).

Examples:
    >>> from llverify.atoms.registry import get
    >>> picture = atom_picture(get("SM80_16x8x8_F16F16F16F16_TN"))
    >>> picture.info["panels"]["A (M x K)"]["rows"], picture.info["cells"]
    (16, 320)
    >>> "SM80_16x8x8_F16F16F16F16_TN" in picture.svg()
    True
    >>> print(picture.info["latex"]["C"]["dim1"])  # the closed forms, also in the caption
    \\left(2 \\left(lane \\bmod 4\\right)\\right) + \\left(register \\bmod 2\\right)
"""

from __future__ import annotations

from typing import Any

from llverify.atoms.catalogue import Atom, AtomError, Operand

__all__ = ["atom_picture"]

_AXES = {"A": "M x K", "B": "K x N", "C": "M x N", "SFA": "scale of A, M x K",
         "SFB": "scale of B, K x N", "SFA.bytes": "scale_A, M x K blocks",
         "SFB.bytes": "scale_B, K blocks x N",
         "fragment": "stacked matrices, shared-memory row x element"}  # fmt: skip
#: a copy atom's fragment axes, by family (ldmatrix/stmatrix: the default above)
_COPY_AXES = {"cp.async": "bytes of the copy", "tcgen05.ld": "TMEM lane x 32-bit column",
              "tcgen05.st": "TMEM lane x 32-bit column"}  # fmt: skip


def _label(atom: Atom, role: str) -> str:
    """What the panel's rows and columns are."""
    return _COPY_AXES.get(atom.family, _AXES[role]) if role == "fragment" else _AXES[role]


#: the names of an operand's (dim0, dim1) in its caption's closed form
_NAMES = {"A": ("m", "k"), "B": ("k", "n"), "C": ("m", "n"), "SFA": ("m", "k"),
          "SFB": ("k", "n"), "SFA.bytes": ("m", "block"), "SFB.bytes": ("block", "n"),
          "fragment": ("row", "col")}  # fmt: skip


def _closed_form(op: Operand) -> tuple[str, dict[str, str] | None]:
    """The caption line of ``op``'s closed form (LaTeX), or why it has none."""
    from llverify.draw.fragments import closed_form

    if not op.linear:
        return f"no closed form ({op.threads} threads x {op.values} values: not a power of 2)", None
    return closed_form(op.layout(), _NAMES[op.role])


def atom_picture(atom: Atom, max_cells: int | None = None) -> Any:
    """The atom's register fragments as one picture (:class:`llverify.draw.Picture`);
    ``max_cells`` per panel (default :data:`llverify.draw.fragments.MAX_TV_CELLS`)."""
    from llverify.draw.api import Picture
    from llverify.draw.fragments import MAX_TV_CELLS, TVPanel, fragment_picture

    if not atom.operands:
        raise AtomError(
            f"Argument 'atom' must have a register fragment to draw; {atom.name} is a lane map "
            "(llverify.atoms.shuffle.Shuffle(...).sources() lists it)"
        )
    panels = [
        TVPanel(
            f"{op.role} ({_label(atom, op.role)})", op.tv(), op.cute_tile(), op.transposed, op.lanes
        )
        for op in atom.operands
    ]
    title = f"{atom.name}: {atom.instruction}"
    notes = [
        f"targets {', '.join(atom.arch)}; {atom.threads} threads; fragments from {atom.source}",
        "proved against: "
        + "; ".join(f"{op.role} = {op.reference}" for op in atom.operands)
        + " (llverify atoms prove)",
    ]
    if any(op.lane_map for op in atom.operands):
        notes.append(f"thread t is lane {atom.operands[0].lane_map} (CuTe's ThrID)")
    latex: dict[str, dict[str, str] | None] = {}
    for op in atom.operands:
        line, latex[op.role] = _closed_form(op)
        notes.append(f"{op.role}: {line}")
    scene, info = fragment_picture(panels, title, notes, max_cells or MAX_TV_CELLS)
    info = {**info, "kind": "atom", "atom": atom.name, "latex": latex}
    return Picture(scene, info)
