"""The sm80 sparse MMA atoms (``mma.sp`` and ``mma.sp::ordered_metadata``, 2:4 structured
sparsity; 1:2 for .tf32, pair-wise 4:8 for .s4/.u4): A packed to M x K/2, B and C/D as the
dense instruction's; and what the PTX ISA's text states of the metadata operand and the
sparsity selector (:class:`SparseMetadata`).

The PTX ISA states the packed A fragment of each sparse shape in its own section ("Matrix
Fragments for sparse mma.m16n8k16 ...": row by register, and the K-chunk whose non-zeros a
register holds); the fragment here is an independent statement of it: CUTLASS's dense CuTe
TV layout of half the K (``mma_traits_sm80.hpp``) over the packed tile.  B and C/D are the
dense layouts where the PTX ISA says so in text ("the same as in case of Matrix Fragments for
mma.m16n8k16 ..."), proved against the dense formulas.  A shape whose B the PTX ISA gives only
as figures (m16n8k32 .f16/.bf16, m16n8k16 .tf32, m16n8k64 .s8/.u8, m16n8k128 .s4/.u4) has no
atom; its packed A and its metadata facts are here all the same (:data:`METADATA`).

The metadata's bit layout (which bits of which thread index which chunk) is given only as
figures in every shape (PTX ISA 9.7.14.6.2, Figures 119, 122, 125, 127, 129, 136-137, 139,
146-147), so it is not modelled; the text states which threads of each quad contribute the
metadata for each selector value, the index widths and the valid index values, and these are.

Examples:
    >>> found = atoms()
    >>> found[0].name, found[0].operand("A").shape
    ('mma.sp.m16n8k16.f16.f16.f16.f16', (16, 8))
    >>> from llverify.atoms.proof import prove_atom
    >>> prove_atom(found[0]).status
    <Status.PROVED: 'proved'>
    >>> metadata("mma.sp.m16n8k16.f16.f16.f16.f16").lanes(1)[:3]
    (1, 5, 9)
    >>> metadata("m16n8k32.f16").lanes(2)
    Traceback (most recent call last):
    ...
    llverify.atoms.catalogue.AtomError: Argument 'selector' must be one of [0, 1] for sparse m16n8k32.f16 (PTX ISA 9.7.14.6.1: a thread pair of each quad contributes the metadata: 0 = threads T0, T1, 1 = threads T2, T3), not 2.
"""  # noqa: E501 - the doctest's output is one line

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from llverify.atoms.catalogue import Atom, AtomError, Operand
from llverify.errors import shown

__all__ = ["METADATA", "SparseMetadata", "atoms", "metadata"]

_SOURCE = (
    "CUTLASS include/cute/atom/mma_traits_sm80.hpp: the dense A TV layout of K/2 over the "
    "packed M x K/2 tile; B and C/D the dense m16n8kK layouts"
)
_C16 = ("((4,8),(2,2)):((32,1),(16,8))", "mma.m16n8k16.CD")
#: shape -> (packed A (TV, reference), B (TV, reference)); the A TV is CuTe's dense A of
#: K/2 (SM80_16x8x8_F16, _16x8x4_TF32, _16x8x16_S8, _16x8x32_S4), the B TV the dense
#: m16n8kK's (SM80_16x8x16_F16, _16x8x8_TF32, _16x8x32_S8, _16x8x64_S4).
_SHAPES = {
    "m16n8k16.f16": (("((4,8),(2,2)):((32,1),(16,8))", "mma.sp.m16n8k16.f16.A"),
                     ("((4,8),(2,2)):((16,1),(8,64))", "mma.m16n8k16.f16.B")),
    "m16n8k8.tf32": (("((4,8),2):((16,1),8)", "mma.sp.m16n8k8.tf32.A"),
                     ("((4,8),2):((8,1),32)", "mma.m16n8k8.tf32.B")),
    "m16n8k32.b8": (("((4,8),(4,2)):((64,1),(16,8))", "mma.sp.m16n8k32.b8.A"),
                    ("((4,8),(4,2)):((32,1),(8,128))", "mma.m16n8k32.b8.B")),
    "m16n8k64.b4": (("((4,8),(8,2)):((128,1),(16,8))", "mma.sp.m16n8k64.b4.A"),
                    ("((4,8),(8,2)):((64,1),(8,256))", "mma.m16n8k64.b4.B")),
}  # fmt: skip

_STORAGE = "PTX ISA 9.7.14.6.1"
_PAIR = (
    "a thread pair of each quad contributes the metadata: 0 = threads T0, T1, 1 = threads T2, T3"
)
_ONE = "one thread of each quad contributes the metadata for the whole quad: T0, T1, T2 or T3"
_ALL = "all four threads of each quad contribute the metadata: the selector must be 0"


@dataclass(frozen=True)
class SparseMetadata:
    """What the PTX ISA's text states of one sparse shape's metadata operand ``e`` and
    sparsity selector ``f`` (section 9.7.14.6.1 "Sparse matrix storage" and the shape's
    "Matrix Fragments for sparse mma..." section).

    Attributes:
        key: ``m16n8kK.kind`` (kind f16 for .f16/.bf16, tf32, b8 for .s8/.u8, b4 for .s4/.u4).
        k: the (unpacked) K of the instruction.
        chunk: elements of a row of A per sparsity chunk (4; 2 for .tf32; 8 for .s4/.u4).
        nonzeros: non-zero elements stored per chunk (2; 1 for .tf32; 4 for .s4/.u4).
        chunk_bits: metadata bits per chunk (two 2-bit indices, or one 4-bit index for .tf32).
        threads: selector value -> the threads of each quad (``threadID_in_group``) that
            contribute the metadata.
        rule: the text's statement of ``threads``.
        a_reference: the packed A's fragment reference (:mod:`llverify.specs.fragments`).
        b_reference: the B fragment's reference where the text states it, else None.
        figures: the figures that alone give the metadata's bit layout (and B, if None).
    """

    key: str
    k: int
    chunk: int
    nonzeros: int
    chunk_bits: int
    threads: Mapping[int, tuple[int, ...]]
    rule: str
    a_reference: str
    b_reference: str | None
    figures: str

    def selector_threads(self, selector: int) -> tuple[int, ...]:
        """The threads of each quad (0..3) that contribute the metadata under ``selector``;
        a value the PTX ISA leaves undefined is refused."""
        if isinstance(selector, bool) or selector not in self.threads:
            raise AtomError(
                f"Argument 'selector' must be one of {sorted(self.threads)} for sparse "
                f"{self.key} ({_STORAGE}: {self.rule}), not {shown(selector)}."
            )
        return self.threads[selector]

    def lanes(self, selector: int) -> tuple[int, ...]:
        """The lanes that hold metadata under ``selector`` (quad by quad, in lane order)."""
        return tuple(4 * quad + t for quad in range(8) for t in self.selector_threads(selector))

    @property
    def index_bits(self) -> int:
        """Bits per index: 2 (a position in the chunk, or of a pair in an .s4/.u4 chunk), or
        4 for .tf32's one index per 2-wide chunk."""
        return self.chunk_bits if self.nonzeros == 1 else self.chunk_bits // 2

    def quad_chunks(self) -> int:
        """The chunks one quad's metadata covers: its two rows (groupID, groupID + 8) times
        the K / chunk chunks of a row."""
        return 2 * self.k // self.chunk

    def valid_indices(self, ordered: bool = False) -> tuple[int, ...]:
        """The meaningful values of one chunk's ``chunk_bits`` metadata bits: for two 2-bit
        indices (low bits: the first), any two different positions (``0b0000``, ``0b0101``,
        ``0b1010``, ``0b1111`` are undefined), in increasing order with
        ``mma.sp::ordered_metadata``; for .tf32's 4-bit index ``0b0100`` (position 0) and
        ``0b1110`` (position 1), ordered or not.

        Examples:
            >>> [bin(v) for v in metadata("m16n8k16.f16").valid_indices(ordered=True)]
            ['0b100', '0b1000', '0b1001', '0b1100', '0b1101', '0b1110']
        """
        if self.nonzeros == 1:  # .tf32 1:2: one 4-bit index
            return (0b0100, 0b1110)
        pairs = [(high << 2) | low for high in range(4) for low in range(4)]
        return tuple(
            v for v in sorted(pairs) if (v & 3) < (v >> 2) or (not ordered and (v & 3) != v >> 2)
        )


def _metadata(
    key: str, k: int, chunk: int, threads: str, b_reference: str | None, figures: str
) -> SparseMetadata:
    rules: dict[str, tuple[str, dict[int, tuple[int, ...]]]] = {
        "one": (_ONE, {s: (s,) for s in range(4)}),
        "pair": (_PAIR, {0: (0, 1), 1: (2, 3)}),
        "all": (_ALL, {0: (0, 1, 2, 3)}),
    }
    rule, selectors = rules[threads]
    nonzeros = chunk // 2
    chunk_bits = 4  # two 2-bit indices per chunk (of elements, or of .s4/.u4 pairs); .tf32 4
    return SparseMetadata(
        key, k, chunk, nonzeros, chunk_bits, selectors, rule, f"mma.sp.{key}.A", b_reference,
        figures,
    )  # fmt: skip


#: Every sm80 sparse shape (the text's facts; the figures name what only they give).
METADATA: dict[str, SparseMetadata] = {
    m.key: m
    for m in (
        _metadata("m16n8k16.f16", 16, 4, "one", "mma.m16n8k16.f16.B", "Figure 119 (metadata)"),
        _metadata("m16n8k32.f16", 32, 4, "pair", None,
                  "Figure 121 (B), Figure 122 (metadata)"),
        _metadata("m16n8k8.tf32", 8, 2, "one", "mma.m16n8k8.tf32.B", "Figure 127 (metadata)"),
        _metadata("m16n8k16.tf32", 16, 2, "pair", None,
                  "Figure 124 (B), Figure 125 (metadata)"),
        _metadata("m16n8k32.b8", 32, 4, "pair", "mma.m16n8k32.b8.B",
                  "Figure 129 (metadata)"),
        _metadata("m16n8k64.b8", 64, 4, "all", None,
                  "Figures 132-135 (B), Figures 136-137 (metadata)"),
        _metadata("m16n8k64.b4", 64, 8, "pair", "mma.m16n8k64.b4.B", "Figure 139 (metadata)"),
        _metadata("m16n8k128.b4", 128, 8, "all", None,
                  "Figures 142-145 (B), Figures 146-147 (metadata)"),
    )
}  # fmt: skip

_KINDS = {"f16": "f16", "bf16": "f16", "tf32": "tf32", "s8": "b8", "u8": "b8", "s4": "b4",
          "u4": "b4"}  # fmt: skip


def metadata(name: str) -> SparseMetadata:
    """The metadata facts of a sparse shape: a :data:`METADATA` key (``m16n8k32.f16``) or an
    instruction name ``mma.sp[::ordered_metadata].<shape>.<dtype>.<atype>.<btype>.<ctype>``
    (an ``mma.sp`` atom's name or alias, or a shape that has no atom).

    Examples:
        >>> metadata("mma.sp::ordered_metadata.m16n8k64.s32.u4.s4.s32").threads
        {0: (0, 1), 1: (2, 3)}
        >>> metadata("mma.sp.m16n8k32.f32.bf16.bf16.f32").key
        'm16n8k32.f16'
    """
    if isinstance(name, str):
        if name in METADATA:
            return METADATA[name]
        lowered = name.lower()
        for prefix in ("mma.sp::ordered_metadata.", "mma.sp."):
            parts = lowered.removeprefix(prefix).split(".")
            if (
                lowered.startswith(prefix)
                and len(parts) == 5
                and parts[2] in _KINDS
                and _KINDS[parts[2]] == _KINDS.get(parts[3])
            ):
                key = f"{parts[0]}.{_KINDS[parts[2]]}"
                if key in METADATA:
                    return METADATA[key]
    raise AtomError(
        f"Argument 'name' must be an mma.sp instruction name (mma.sp.<shape>.<dtype>.<atype>."
        f"<btype>.<ctype>) or one of {list(METADATA)}, not {shown(name)}."
    )


def _atom(shape: str, types: str) -> Atom:
    (a_tv, a_ref), (b_tv, b_ref) = _SHAPES[shape]
    geometry = shape.split(".")[0]
    k = int(geometry.split("k")[1])
    return Atom(
        f"mma.sp.{geometry}.{types}",
        "mma.sp",
        f"mma.sp.sync.aligned.{geometry}.row.col.{types} d, a, b, c, e, f",
        ("sm80",),
        (16, 8, k),
        (
            Operand("A", (16, k // 2), a_ref, a_tv),
            Operand("B", (k, 8), b_ref, b_tv),
            Operand("C", (16, 8), _C16[1], _C16[0]),
        ),
        _SOURCE,
        # mma.sp::ordered_metadata has the same fragments (PTX ISA 9.7.14.6: the section is
        # for mma.sp{::ordered_metadata}); it only restricts the index values
        aliases=(f"mma.sp::ordered_metadata.{geometry}.{types}",),
    )


_SIGNS = (("s8", "s8"), ("s8", "u8"), ("u8", "s8"), ("u8", "u8"))


def atoms() -> list[Atom]:
    """The mma.sp atoms whose every fragment the PTX ISA states in text, in catalogue order."""
    result = [
        _atom("m16n8k16.f16", types)
        for types in ("f16.f16.f16.f16", "f32.f16.f16.f32", "f32.bf16.bf16.f32")
    ]
    result.append(_atom("m16n8k8.tf32", "f32.tf32.tf32.f32"))
    for a, b in _SIGNS:
        result.append(_atom("m16n8k32.b8", f"s32.{a}.{b}.s32"))
    for a, b in _SIGNS:
        result.append(_atom("m16n8k64.b4", f"s32.{a[0]}4.{b[0]}4.s32"))
    return result
