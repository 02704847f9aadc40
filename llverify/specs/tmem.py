"""References for the Blackwell tcgen05.ld/st register layouts of tensor memory (TMEM).

Primary source: NVIDIA PTX ISA (9.x), section 9.7.16.2.3 "Data Movement Shape",
9.7.16.2.3.1 "Matrix fragments for shape .32x32b / .16x64b / .16x128b / .16x256b"
(Figures 183-186): "A warp executing tcgen05{.ld,.st}.32x32b will access 32 lanes of the
Tensor Memory. It loads from or stores to each of the lane (32 * .num)-bits of data";
".16x64b will access 16 lanes ... (64 * .num)-bits"; registers r0, r1, ... low to high.
Read off the figures (lane id ``l``, register ``r`` of one instruction, 32-bit columns):

======== ============================================ =============================================
shape    TMEM lane (row)                              TMEM column
======== ============================================ =============================================
32x32b   l                                            r
16x64b   l / 4 + 8 * (l % 2)                          (l / 2) % 2 + 2 * r
16x128b  l / 4 + 8 * (r % 2)                          l % 4 + 4 * (r / 2)
16x256b  l / 4 + 8 * ((r / 2) % 2)                    r % 2 + 2 * (l % 4) + 8 * (r / 4)
======== ============================================ =============================================

and section 9.7.16.2.1 "Tensor Memory" / access restrictions: warp ``w`` of a warpgroup
can only access the 32 TMEM lanes ``32 * (w % 4) ... 32 * (w % 4) + 31``.

A full register layout of a tcgen05.ld of a buffer (llverify.encodings.tmem
.tmem_register_layout, equal to Triton 3.9's) composes these with the TMEM encoding; the
obligations below give the closed forms for the canonical fp32 accumulators (blockM = 128,
the tensor row = TMEM lane, column = TMEM column) and the M = 64 layout whose 16-row
halves share a warp's 32 lanes.  Declarative: tests/test_encodings_tmem.py proves them.
"""

from __future__ import annotations

from dataclasses import dataclass

from llverify.encodings.tmem import TensorMemoryLayout, message_tile, tmem_register_layout
from llverify.errors import LayoutError
from llverify.layout import LinearLayout
from llverify.proof.obligation import Call
from llverify.proof.obligation import Obligation as LibraryObligation
from llverify.proof.verdict import Status
from llverify.specs import claims

#: Per-instruction fragments (row, col) of one warp over ``register, lane``, for any
#: ``.num`` (the register count), from the PTX ISA figures (table above).
MESSAGE_REFERENCES: dict[str, dict[str, str]] = {
    # Figure 183: thread l holds TMEM lane l; register r is column r.
    "32x32b": {"row": "lane", "col": "register"},
    # Figure 184: lanes 4g + q: q bit 0 picks the upper 8 lanes, q bit 1 the 2nd column.
    "16x64b": {"row": "lane // 4 + 8 * (lane % 2)", "col": "(lane // 2) % 2 + 2 * register"},
    # Figure 185: 4 threads per lane, 4 columns; register bit 0 picks the upper 8 lanes.
    "16x128b": {"row": "lane // 4 + 8 * (register % 2)", "col": "lane % 4 + 4 * (register // 2)"},
    # Figure 186: as 16x128b with 2 adjacent columns per thread (register bit 0).
    "16x256b": {
        "row": "lane // 4 + 8 * ((register // 2) % 2)",
        "col": "register % 2 + 2 * (lane % 4) + 8 * (register // 4)",
    },
}

#: Negative control: the 16x64b figure read with the lane bits in the wrong order (thread
#: l on lane l / 2, as if two threads shared a lane's 64 bits left to right).
MESSAGE_16X64B_MISREAD = {"row": "lane // 2", "col": "lane % 2 + 2 * register"}


@dataclass(frozen=True)
class MessageObligation:
    """``message_tile(atom) * identity_1d(num, register, col)`` (a ``.num`` message, with
    the registers Triton adds for the repetitions) equals ``MESSAGE_REFERENCES[atom]``."""

    atom: str
    num: int


MESSAGE_OBLIGATIONS = tuple(
    MessageObligation(atom, num)
    for atom in ("32x32b", "16x64b", "16x128b", "16x256b")
    for num in (1, 2, 4, 16, 128)
)


@dataclass(frozen=True)
class RegisterObligation:
    """``tmem_register_layout(element, shape, TensorMemoryLayout(block, col_stride),
    num_warps, atom)`` equals ``reference`` (formulas over register, lane, warp)."""

    name: str
    element: int
    shape: tuple[int, int]
    block: tuple[int, int]
    col_stride: int
    num_warps: int
    atom: str
    reference: dict[str, str]


REGISTER_OBLIGATIONS: tuple[RegisterObligation, ...] = (
    # 128 x 64 fp32 accumulator, 4 warps: warp w reads its lanes 32w..32w+31, one
    # 32x32b.x64 message: row = lane + 32 * warp, column = register.
    RegisterObligation(
        "32x32b/f32/128x64/4w",
        32,
        (128, 64),
        (128, 64),
        1,
        4,
        "32x32b",
        {"dim0": "lane + 32 * warp", "dim1": "register"},
    ),
    # 8 warps: warps w and w + 4 share the lanes 32 (w % 4)...; each takes half the columns.
    RegisterObligation(
        "32x32b/f32/128x128/8w",
        32,
        (128, 128),
        (128, 128),
        1,
        8,
        "32x32b",
        {"dim0": "lane + 32 * (warp % 4)", "dim1": "register + 64 * (warp // 4)"},
    ),
    # Packed fp16 (two per 32-bit column): the same, one element per register.
    RegisterObligation(
        "32x32b/f16-packed/128x64/4w",
        16,
        (128, 64),
        (128, 64),
        1,
        4,
        "32x32b",
        {"dim0": "lane + 32 * warp", "dim1": "register"},
    ),
    # 16x64b, 4 warps: two 16x64b.x32 messages per warp, for lanes 0-15 and 16-31 of its
    # slab (the top register bit).
    RegisterObligation(
        "16x64b/f32/128x64/4w",
        32,
        (128, 64),
        (128, 64),
        1,
        4,
        "16x64b",
        {
            "dim0": "32 * warp + 16 * (register // 32) + lane // 4 + 8 * (lane % 2)",
            "dim1": "(lane // 2) % 2 + 2 * (register % 32)",
        },
    ),
    # 16x64b, 8 warps: warps w + 4 take lanes 16-31 of the slab.
    RegisterObligation(
        "16x64b/f32/128x64/8w",
        32,
        (128, 64),
        (128, 64),
        1,
        8,
        "16x64b",
        {
            "dim0": "32 * (warp % 4) + 16 * (warp // 4) + lane // 4 + 8 * (lane % 2)",
            "dim1": "(lane // 2) % 2 + 2 * register",
        },
    ),
    # 16x128b, 4 warps, 128 x 32.
    RegisterObligation(
        "16x128b/f32/128x32/4w",
        32,
        (128, 32),
        (128, 32),
        1,
        4,
        "16x128b",
        {
            "dim0": "32 * warp + 16 * (register // 16) + lane // 4 + 8 * (register % 2)",
            "dim1": "lane % 4 + 4 * ((register % 16) // 2)",
        },
    ),
    # 16x256b, 4 warps, 128 x 32.
    RegisterObligation(
        "16x256b/f32/128x32/4w",
        32,
        (128, 32),
        (128, 32),
        1,
        4,
        "16x256b",
        {
            "dim0": "32 * warp + 16 * (register // 16) + lane // 4 + 8 * ((register // 2) % 2)",
            "dim1": "register % 2 + 2 * (lane % 4) + 8 * ((register % 16) // 4)",
        },
    ),
    # M = 64 (blockM = 64): rows 16-31 of each warp's slab hold nothing, so lanes 16-31
    # read the second half of the columns (the 16x32bx2 message): row = lane % 16 + 16 w.
    RegisterObligation(
        "32x32b/f32/64x64/blockM64/4w",
        32,
        (64, 64),
        (64, 64),
        1,
        4,
        "32x32b",
        {"dim0": "lane % 16 + 16 * warp", "dim1": "register + 32 * (lane // 16)"},
    ),
)

#: Negative control: the 8-warp 32x32b layout with the warps taken row-major (warp w on
#: lanes 32 (w // 2)), which the TMEM access restriction forbids.
REGISTER_8W_ROW_MAJOR = {"dim0": "lane + 32 * (warp // 2)", "dim1": "register + 64 * (warp % 2)"}


# ---------------------------------------------------------------------- the library

_SOURCE = "specs/tmem.py"


def message(atom: str, num: int) -> LinearLayout:
    """A ``.num`` message of ``atom``: ``message_tile(atom) * identity_1d(num, register,
    col)``."""
    return message_tile(atom) * LinearLayout.identity_1d(num, "register", "col")


def register_layout(ob: RegisterObligation) -> LinearLayout:
    """llverify's ``tmem_register_layout`` of ``ob`` as a LinearLayout.

    Raises:
        LayoutError: (a ``ValueError``) when there is no such layout for ``ob``'s atom.
    """
    encoding = TensorMemoryLayout(ob.block, ob.col_stride)
    layout = tmem_register_layout(ob.element, list(ob.shape), encoding, ob.num_warps, ob.atom)
    if layout is None:
        raise LayoutError(f"Argument 'ob': no {ob.atom} register layout for {ob.name}.")
    return layout.to_linear_layout(list(ob.shape))


def _library() -> tuple[LibraryObligation, ...]:
    result = [
        claims.equivalence(
            f"tmem: tcgen05 {ob.atom}.x{ob.num} message == PTX fragment",
            _SOURCE,
            Call(message, ob.atom, ob.num),
            MESSAGE_REFERENCES[ob.atom],
        )
        for ob in MESSAGE_OBLIGATIONS
    ]
    result += [
        claims.equivalence(
            f"tmem: {ob.name} register layout == closed form",
            _SOURCE,
            Call(register_layout, ob),
            ob.reference,
        )
        for ob in REGISTER_OBLIGATIONS
    ]
    eight_warps = next(ob for ob in REGISTER_OBLIGATIONS if ob.name == "32x32b/f32/128x128/8w")
    controls = (
        (
            "MESSAGE_16X64B_MISREAD",
            MESSAGE_16X64B_MISREAD,
            "16x64b.x4 message",
            Call(message, "16x64b", 4),
        ),
        (
            "REGISTER_8W_ROW_MAJOR",
            REGISTER_8W_ROW_MAJOR,
            eight_warps.name,
            Call(register_layout, eight_warps),
        ),
    )
    result += [
        claims.equivalence(
            f"tmem: {instance} vs {control} (negative control)",
            _SOURCE,
            build,
            formulas,
            expect=Status.REFUTED,
        )
        for control, formulas, instance, build in controls
    ]
    return tuple(result)


#: The module's obligations in the built-in library: the messages, the register layouts,
#: then the two negative controls.
LIBRARY = _library()
