"""The atom value types: :class:`Atom` (a named MMA or copy atom) and :class:`Operand` (one
register fragment and the vendor formula it is proved against); the catalogue itself is
:mod:`llverify.atoms.registry`.

An operand's fragment comes from one of two independent statements of it, never from the
vendor formula it is proved against (:mod:`llverify.atoms.proof`):

* a CuTe thread-value layout ``(thread, value) -> m + M * n`` as CUTLASS writes it
  (``include/cute/atom/mma_traits_sm*.hpp``, ``copy_traits_sm*.hpp``), converted with
  :func:`llverify.cute.tv_to_linear_layout`; or
* a Triton converter instance (:mod:`llverify.encodings`), for the AMD atoms CUTLASS does not
  have.

Coordinates: ``dim0``/``dim1`` are (M, K) for A, (K, N) for B, (M, N) for C/D, as the PTX and
AMD ISA guides write fragments; the CuTe TV layouts keep CuTe's own convention, where B is
(N, K).

Examples:
    >>> from llverify.atoms.registry import get
    >>> atom = get("SM80_16x8x16_F32F16F16F32_TN")
    >>> atom.family, atom.mnk, [op.role for op in atom.operands]
    ('mma.sync', (16, 8, 16), ['A', 'B', 'C'])
    >>> str(atom.operand("C").tv())
    '((4, 8), (2, 2)):((32, 1), (16, 8))'
    >>> atom.operand("C").layout().apply({"register": 3, "lane": 5})
    {'dim0': 9, 'dim1': 3}
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from llverify.errors import LLVerifyError, shown
from llverify.layout import LinearLayout

__all__ = ["FAMILIES", "Atom", "AtomError", "Operand"]

#: The families, in catalogue order.
FAMILIES: tuple[str, ...] = (
    "mma.sync", "mma.sp", "mma.block_scale", "wgmma", "ldmatrix", "stmatrix", "cp.async", "shfl",
    "tcgen05.ld", "tcgen05.st", "mfma", "wmma", "dpas",
)  # fmt: skip


class AtomError(LLVerifyError, ValueError):
    """An unknown atom, family or operand, or a view the atom does not have."""


def _swap_outs(ll: LinearLayout) -> LinearLayout:
    """``ll`` with its two out dims exchanged (dim0 <-> dim1)."""
    (d0, s0), (d1, s1) = ll.out_dims
    bases = [(name, [[b[1], b[0]] for b in basis]) for name, basis in ll.bases]
    return LinearLayout.from_bases(bases, [d0, d1], [s1, s0], require_surjective=False)


def _drop_unit_ins(ll: LinearLayout) -> LinearLayout:
    """``ll`` without its size-1 in dims other than ``register`` and ``lane``."""
    for name, size in ll.in_dims:
        if size == 1 and name not in ("register", "lane"):
            ll = ll.squeeze_ins(name)
    return ll


@dataclass(frozen=True)
class Operand:
    """One fragment of an atom: who holds each element of a ``shape`` tile.

    Attributes:
        role: "A", "B", "C" (C and D share the layout), "SFA"/"SFB" (block-scaled MMA: the
            scale of each element of A / B), "SFA.bytes"/"SFB.bytes" (the scale matrices as
            the scale registers hold them, one value per K block) or, for a copy atom,
            "fragment".
        shape: (rows, cols) of the tile: (M, K), (K, N), (M, N); ldmatrix/stmatrix: the
            matrices stacked along the shared-memory rows (8x8; 8-bit forms: 16 elements a row).
        reference: the vendor closed form it is proved against
            (:func:`llverify.specs.fragments.reference` name).
        tv_text: the CuTe TV layout, in CuTe's coordinates (B is (N, K)), when CUTLASS
            states it; None when the fragment comes from ``encoding``.
        encoding: a builder of the fragment's LinearLayout from a Triton converter.
        lanes: lanes per warp (64 for AMD MFMA; 8 for an sm70 quad pair's logical threads).
        lane_map: the hardware lane of logical thread ``lane`` (a formula), where the atom's
            threads are not the warp's lanes (CuTe's ``ThrID``).
    """

    role: str
    shape: tuple[int, int]
    reference: str
    tv_text: str | None = None
    encoding: Callable[[], LinearLayout] | None = field(default=None, compare=False)
    lanes: int = 32
    lane_map: str | None = None

    @property
    def transposed(self) -> bool:
        """Whether CuTe's tile is (cols, rows): operand B (and SF_B) is (N, K) there, and a copy
        atom's TV layout indexes its 8x8 matrices row-major (``col + 8 * row``)."""
        return self.role in ("B", "SFB", "SFB.bytes", "fragment")

    @property
    def threads(self) -> int:
        """Threads that hold the fragment."""
        return int(self.tv()[0].size())

    @property
    def values(self) -> int:
        """Values (elements) each thread holds."""
        return int(self.tv()[1].size())

    @property
    def linear(self) -> bool:
        """Whether the fragment is a LinearLayout (power-of-2 threads and values)."""
        size = self.threads * self.values
        return size & (size - 1) == 0 and self.values & (self.values - 1) == 0

    def cute_tile(self) -> tuple[int, int]:
        """The tile the TV layout indexes, column-major, in CuTe's coordinates (B is
        (N, K))."""
        rows, cols = self.shape
        return (cols, rows) if self.transposed else (rows, cols)

    def tv(self) -> Any:
        """The CuTe thread-value layout ``(thread, value) -> index`` (column-major over
        :meth:`cute_tile`)."""
        from llverify.cute import linear_layout_to_tv, parse

        if self.tv_text is not None:
            return parse(self.tv_text)
        ll = self.layout()
        _, tv = linear_layout_to_tv(_swap_outs(ll) if self.transposed else ll)
        return tv

    def layout(self) -> LinearLayout:
        """The fragment as a LinearLayout ``(register, lane[, warp]) -> (dim0, dim1)``."""
        if self.encoding is not None:
            return _drop_unit_ins(self.encoding())
        from llverify.cute import parse, tv_to_linear_layout

        tv = parse(str(self.tv_text))
        size = tv.size()
        if size & (size - 1) or tv[1].size() & (tv[1].size() - 1):
            raise AtomError(
                f"the {self.role} fragment {tv} has {tv[1].size()} values per thread, not a "
                "power of 2: it is no LinearLayout (its TV layout is proved by enumeration)."
            )
        ll = tv_to_linear_layout(tv, self.cute_tile(), self.lanes)
        return _drop_unit_ins(_swap_outs(ll) if self.transposed else ll)


@dataclass(frozen=True)
class Atom:
    """A named MMA or copy atom and its register fragments.

    Attributes:
        name: CuTe's name where CUTLASS has the atom, else the ISA instruction's.
        family: one of :data:`FAMILIES`.
        instruction: the instruction it issues (PTX or AMD ISA spelling).
        arch: the targets that have it ("sm80", "gfx942", ...).
        mnk: (M, N, K) of an MMA; None for a copy.
        operands: the fragments held in registers (wgmma's B is read from shared memory).
        source: where the fragments (not the reference formulas) come from.
        aliases: other spellings accepted by :func:`get`.
        shuffle: the ``shfl.sync`` mode of a shuffle atom, a lane map with parameters and no
            register fragment (:mod:`llverify.atoms.shuffle`); None otherwise.
    """

    name: str
    family: str
    instruction: str
    arch: tuple[str, ...]
    mnk: tuple[int, int, int] | None
    operands: tuple[Operand, ...]
    source: str
    aliases: tuple[str, ...] = ()
    shuffle: str | None = None

    def operand(self, role: str) -> Operand:
        """The operand ``role`` ("A", "B", "C", "fragment")."""
        for op in self.operands:
            if op.role == role:
                return op
        raise AtomError(
            f"Argument 'role' must be one of {[op.role for op in self.operands]} for atom "
            f"{self.name}, not {shown(role)}."
        )

    @property
    def threads(self) -> int:
        """Threads that execute the atom."""
        return max((op.threads for op in self.operands), default=32)
