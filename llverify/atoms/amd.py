"""The AMD atoms: MFMA by instruction name (CDNA1 gfx908 to CDNA4 gfx950, wave64) and WMMA
(RDNA3 gfx11, RDNA4 gfx12, gfx1250; wave32; RDNA3 also with 16-bit f16/bf16 accumulators,
8 values a lane in the OPSEL half of each VGPR).  CUTLASS has no AMD atoms, so each fragment is
the Triton converter's instance for the instruction (``AMDMFMALayout`` / ``AMDWMMALayout`` and
their dot operands, :mod:`llverify.encodings`); the formula it is proved against is the
instruction's register layout from the ISA guides and AMD's Matrix Instruction Calculator
(:mod:`llverify.specs.amd_mfma`, :mod:`~llverify.specs.amd_wmma`,
:mod:`~llverify.specs.fragments`).

The multi-block instructions (32x32 with 2 blocks, 16x16 with 4, 4x4 with 16: ``_2b``,
``_4b``, ``_16b`` in CDNA3 spelling) compute several independent products; their operands
stack the blocks: block ``b``'s A at rows ``M b ..``, its B and D at columns ``N b ..``
(``D_b = A_b B_b``).  Their fragments come from Composable Kernel's description of each
instruction (``xdlops_gemm.hpp``'s ``mfma_type``: ``group_size``, ``num_groups_per_blk``,
``num_threads_per_blk``, ``num_input_blks``, ``num_output_blks``, ``k_per_blk``, and how
``GetBlkIdx``/``GetBeginOfThreadBlk`` place a lane's elements), built here as bases, and
are proved against the Matrix Instruction Calculator's layouts
(:mod:`llverify.specs.fragments`, ``mfma.blocks.*``).

The gfx950 (CDNA4) ``v_mfma_f32_32x32x64_f8f6f4`` and ``_16x16x128_f8f6f4`` with 8-bit A and B
formats hold 32 bytes of K per lane as two 16-byte chunks (Triton kWidth 16): A[i][k] in lane
``i + 32 ((k / 16) % 2)``, byte ``16 (k / 32) + k % 16`` (32x32x64); lane ``i + 16 ((k / 16) %
4)``, byte ``16 (k / 64) + k % 16`` (16x16x128); B mirrors A. An unscaled MFMA's K order is
invisible (A and B agree on it), so it is fixed through the block scales of ``v_mfma_scale_*``:
Composable Kernel's gfx950 probe (``test/mx_mfma_op/scale_mapping_*.txt``: which lane's scale
each A byte takes) with the MX rule (one scale per 32 consecutive K; lane ``i + M b`` scales row
``i``'s block ``b``, Triton's scale layout). CK's own ``load_A`` table labels the 32 bytes as
consecutive K, which that probe contradicts for scaled use; it is a negative control (kWidth 32,
refuted). ``v_mfma_i32_32x32x32_i8`` and ``_16x16x64_i8`` (16 consecutive K per lane, kWidth 16)
are proved against CK's ``mfma_type`` (``k_per_blk`` 16, input block = lane / threads per
block); their K order is a convention only. The CDNA4 ISA guide's operand tables were not
available here. ``v_mfma_scale_f32_32x32x64_f8f6f4`` and ``_16x16x128_f8f6f4`` add SF_A and
SF_B, the scale of each element (lane ``i + M b`` for row ``i``'s block ``b``, Triton's scale
layout; the register is the element of the block).  With 6-bit (fp6 e2m3, bf6 e3m2) and
4-bit (fp4 e2m1) A and B formats (``_f6f6``, ``_f4f4`` atoms, scaled and unscaled) a lane holds
32 consecutive K, one scale block, counted as elements (the register is the element's index
in the lane's packed data: 6 VGPRs for fp6, 4 for fp4), proved against Composable Kernel's
``mx_mfma_op.hpp`` register tables; mixed-format pairs are not listed.

``v_mfma_f64_4x4x4_4b_f64`` (CDNA2 ``v_mfma_f64_4x4x4f64``) holds one double of A, B and C/D
per lane, K across the lanes (block ``b``'s A[i][k] in lane ``16 k + 4 b + i``); its fragments
come from AMD's lab-notes example kernel and are proved against the lab note's lane figure
(``mfma.f64.4x4x4.4b.*``).

Examples:
    >>> from llverify.atoms.amd import atoms
    >>> found = atoms()
    >>> found[0].name, found[0].operand("A").layout().apply({"register": 0, "lane": 33})
    ('v_mfma_f32_32x32x2_f32', {'dim0': 1, 'dim1': 1})
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from llverify.atoms.catalogue import Atom, Operand
from llverify.layout import LinearLayout

__all__ = ["atoms"]

#: MFMA generation of each target (Triton's AMDMFMALayout version)
_VERSION = {"gfx908": 1, "gfx90a": 2, "gfx942": 3, "gfx950": 4}
_CDNA12 = ("gfx908", "gfx90a")
_CDNA2_4 = ("gfx90a", "gfx942", "gfx950")
_CDNA3_4 = ("gfx942", "gfx950")
_ALL = ("gfx908", "gfx90a", "gfx942", "gfx950")


class _Build:
    """Builds a converter instance's LinearLayout on ``shape`` when it is asked for."""

    def __init__(self, encoding: Any, shape: tuple[int, int]) -> None:
        self.encoding = encoding
        self.shape = shape

    def __call__(self) -> LinearLayout:
        return self.encoding.to_linear_layout(list(self.shape))


def _mfma(
    name: str,
    arch: tuple[str, ...],
    mnk: tuple[int, int, int],
    k_pack: int,
    refs: tuple[str, str, str],
    bits: int = 32,
    old_name: str | None = None,
) -> Atom:
    """An MFMA atom: A (M x K), B (K x N), D (M x N); ``refs`` names the reference fragments
    of A, B and D; ``k_pack`` consecutive K elements per lane (Triton's kWidth)."""
    from llverify.encodings.amd_mfma import AMDMFMALayout
    from llverify.encodings.blocked import DotOperandLayout

    m, n, k = mnk
    parent = AMDMFMALayout(_VERSION[arch[0]], [m, n, k], False, [1, 1], bits, None)
    a, b = DotOperandLayout(0, parent, k_pack), DotOperandLayout(1, parent, k_pack)
    ops = (
        Operand("A", (m, k), refs[0], None, _Build(a, (m, k)), 64),
        Operand("B", (k, n), refs[1], None, _Build(b, (k, n)), 64),
        Operand("C", (m, n), refs[2], None, _Build(parent, (m, n)), 64),
    )
    aliases = (old_name,) if old_name else ()
    source = f"Triton converter: AMDMFMALayout(version {_VERSION[arch[0]]}, {[m, n, k]}) and its "
    source += f"dot operands (kWidth {k_pack}), llverify.encodings"
    return Atom(name, "mfma", name, arch, mnk, ops, source, aliases)


_D32 = "v_mfma_f32_32x32x8_f16 D"
_D16 = "v_mfma_f32_16x16x16_f16 D"
_F16_32 = ("v_mfma_f32_32x32x8_f16 A", "v_mfma_f32_32x32x8_f16 B", _D32)
_F16_16 = ("v_mfma_f32_16x16x16_f16 A", "v_mfma_f32_16x16x16_f16 B", _D16)
_K8_32 = ("v_mfma_f32_32x32x16_f16 A", "v_mfma_f32_32x32x16_f16 B", _D32)
_K8_16 = ("v_mfma_f32_16x16x32_f16 A", "v_mfma_f32_16x16x32_f16 B", _D16)
_KP2_32 = ("mfma.32x32.kpack2.A", "mfma.32x32.kpack2.B", _D32)
_KP2_16 = ("mfma.16x16.kpack2.A", "mfma.16x16.kpack2.B", _D16)


def _mfma_atoms() -> list[Atom]:
    result = [
        _mfma("v_mfma_f32_32x32x2_f32", _ALL, (32, 32, 2), 1,
              ("v_mfma_f32_32x32x2_f32 A", "v_mfma_f32_32x32x2_f32 B", _D32),
              old_name="v_mfma_f32_32x32x2f32"),
        _mfma("v_mfma_f32_16x16x4_f32", _ALL, (16, 16, 4), 1,
              ("v_mfma_f32_16x16x4_f32 / v_mfma_f64_16x16x4_f64 A",
               "v_mfma_f32_16x16x4_f32 / v_mfma_f64_16x16x4_f64 B", _D16),
              old_name="v_mfma_f32_16x16x4f32"),
        _mfma("v_mfma_f32_32x32x8_f16", _ALL, (32, 32, 8), 4, _F16_32,
              old_name="v_mfma_f32_32x32x8f16"),
        _mfma("v_mfma_f32_16x16x16_f16", _ALL, (16, 16, 16), 4, _F16_16,
              old_name="v_mfma_f32_16x16x16f16"),
        _mfma("v_mfma_i32_32x32x8_i8", _CDNA12, (32, 32, 8), 4, _F16_32,
              old_name="v_mfma_i32_32x32x8i8"),
        _mfma("v_mfma_i32_16x16x16_i8", _CDNA12, (16, 16, 16), 4, _F16_16,
              old_name="v_mfma_i32_16x16x16i8"),
        _mfma("v_mfma_f32_32x32x4_bf16", ("gfx908",), (32, 32, 4), 2, _KP2_32,
              old_name="v_mfma_f32_32x32x4bf16"),
        _mfma("v_mfma_f32_16x16x8_bf16", ("gfx908",), (16, 16, 8), 2, _KP2_16,
              old_name="v_mfma_f32_16x16x8bf16"),
        _mfma("v_mfma_f32_32x32x8_bf16", _CDNA2_4, (32, 32, 8), 4, _F16_32,
              old_name="v_mfma_f32_32x32x8bf16_1k"),
        _mfma("v_mfma_f32_16x16x16_bf16", _CDNA2_4, (16, 16, 16), 4, _F16_16,
              old_name="v_mfma_f32_16x16x16bf16_1k"),
        _mfma("v_mfma_f64_16x16x4_f64", _CDNA2_4, (16, 16, 4), 1,
              ("v_mfma_f32_16x16x4_f32 / v_mfma_f64_16x16x4_f64 A",
               "v_mfma_f32_16x16x4_f32 / v_mfma_f64_16x16x4_f64 B", "v_mfma_f64_16x16x4_f64 D"),
              bits=64, old_name="v_mfma_f64_16x16x4f64"),
        _mfma("v_mfma_i32_32x32x16_i8", _CDNA3_4, (32, 32, 16), 8, _K8_32),
        _mfma("v_mfma_i32_16x16x32_i8", _CDNA3_4, (16, 16, 32), 8, _K8_16),
        _mfma("v_mfma_f32_32x32x4_xf32", ("gfx942",), (32, 32, 4), 2, _KP2_32),
        _mfma("v_mfma_f32_16x16x8_xf32", ("gfx942",), (16, 16, 8), 2, _KP2_16),
    ]  # fmt: skip
    for a in ("fp8", "bf8"):
        for b in ("fp8", "bf8"):
            result.append(_mfma(f"v_mfma_f32_32x32x16_{a}_{b}", _CDNA3_4, (32, 32, 16), 8, _K8_32))
            result.append(_mfma(f"v_mfma_f32_16x16x32_{a}_{b}", _CDNA3_4, (16, 16, 32), 8, _K8_16))
    for dtype in ("f16", "bf16"):
        result.append(_mfma(f"v_mfma_f32_32x32x16_{dtype}", ("gfx950",), (32, 32, 16), 8, _K8_32))
        result.append(_mfma(f"v_mfma_f32_16x16x32_{dtype}", ("gfx950",), (16, 16, 32), 8, _K8_16))
    # gfx950: 32 bytes of K per lane in two 16-byte chunks (8-bit f8f6f4), 16 bytes (i8)
    for mnk, k_pack, kind in (
        ((32, 32, 64), 16, "f32_32x32x64_f8f6f4"),
        ((16, 16, 128), 16, "f32_16x16x128_f8f6f4"),
        ((32, 32, 32), 16, "i32_32x32x32_i8"),
        ((16, 16, 64), 16, "i32_16x16x64_i8"),
    ):
        name = f"v_mfma_{kind}"
        d = _D32 if mnk[0] == 32 else _D16
        result.append(_mfma(name, ("gfx950",), mnk, k_pack, (f"{name} A", f"{name} B", d)))
    return result


class _Scales:
    """The scale operand of a gfx950 ``v_mfma_scale_*_f8f6f4`` as the scale of each element:
    Triton's scale layout (:func:`llverify.encodings.scales.mfma_scale_layout`: lane ``l``
    holds the scale of row ``l % M``, K block ``l // M``) with its block widened to the 32
    elements it scales (``register``).  ``op`` 0 is SF_A over (M, K), 1 is SF_B over (K, N).

    Examples:
        >>> _Scales(0, 32, 64)().apply({"register": 3, "lane": 33})
        {'dim0': 1, 'dim1': 35}
    """

    def __init__(self, op: int, m: int, k: int) -> None:
        self.op, self.m, self.k = op, m, k

    def __call__(self) -> LinearLayout:
        from llverify.encodings.scales import mfma_scale_layout

        scale = mfma_scale_layout(self.op, [self.m, self.k // 32], self.m, [1, 1], [1, 1])
        lane = [[row, 32 * block] for row, block in scale.lane_bases]  # (M or N, K)
        register = [[0, 1 << i] for i in range(5)]
        shape = [self.m, self.k]
        if self.op == 1:  # B is (K, N)
            lane, register = [b[::-1] for b in lane], [b[::-1] for b in register]
            shape = shape[::-1]
        return LinearLayout.from_bases(
            [("register", register), ("lane", lane)], ["dim0", "dim1"], shape
        )


def _scaled(name: str, m: int, k: int) -> Atom:
    """A gfx950 ``v_mfma_scale_f32_*_f8f6f4`` atom (8-bit A and B formats): the unscaled
    instruction's A, B and D with SF_A and SF_B (one E8M0 scale per 32 K of a row / column)."""
    base = _mfma(
        name.replace("mfma_scale_", "mfma_"),
        ("gfx950",),
        (m, m, k),
        16,
        (
            f"{name.replace('mfma_scale_', 'mfma_')} A",
            f"{name.replace('mfma_scale_', 'mfma_')} B",
            _D32 if m == 32 else _D16,
        ),
    )
    return _with_scales(name, name, base)


def _with_scales(name: str, instruction: str, base: Atom) -> Atom:
    """``base`` (an unscaled gfx950 f8f6f4 atom) with the SF_A and SF_B of ``instruction``,
    named ``name``."""
    m, _, k = base.mnk or (0, 0, 0)
    scales = (
        Operand("SFA", (m, k), f"{instruction} SFA", None, _Scales(0, m, k), 64),
        Operand("SFB", (k, m), f"{instruction} SFB", None, _Scales(1, m, k), 64),
    )
    source = base.source + "; SF_A/SF_B: Triton's scale layout (llverify.encodings.scales)"
    return Atom(name, "mfma", instruction, ("gfx950",), (m, m, k), base.operands + scales, source)


#: gfx950 f8f6f4 A and B formats below a byte: name suffix -> (reference tag, the formats and
#: their CBSZ/BLGP codes, VGPRs per operand)
_NARROW = {
    "f6f6": ("fp6", "fp6 e2m3 or bf6 e3m2 (CBSZ/BLGP 2, 3)", 6),
    "f4f4": ("fp4", "fp4 e2m1 (CBSZ/BLGP 4)", 4),
}


def _narrow(instruction: str, m: int, k: int, suffix: str) -> Atom:
    """A gfx950 f8f6f4 atom (``v_mfma_*`` or ``v_mfma_scale_*``) with both A and B in the
    6-bit or 4-bit formats (``suffix`` "f6f6" / "f4f4"): 32 consecutive K per lane, over
    elements (the register is the element's index in the lane's packed data; Triton kWidth 32).

    Examples:
        >>> a = _narrow("v_mfma_f32_16x16x128_f8f6f4", 16, 128, "f4f4").operand("A")
        >>> a.layout().apply({"register": 31, "lane": 48})  # the last fp4 of lane 48
        {'dim0': 0, 'dim1': 127}
    """
    tag, formats, vgprs = _NARROW[suffix]
    unscaled = instruction.replace("mfma_scale_", "mfma_")
    refs = (f"{unscaled} A ({tag})", f"{unscaled} B ({tag})", _D32 if m == 32 else _D16)
    base = _mfma(f"{unscaled}_{suffix}", ("gfx950",), (m, m, k), 32, refs)
    source = (
        f"{base.source}; A and B in {formats}: 32 elements of K per lane in {vgprs} VGPRs, "
        "counted as elements"
    )
    base = replace(base, instruction=unscaled, source=source)
    if instruction == unscaled:
        return base
    return _with_scales(f"{instruction}_{suffix}", instruction, base)


class _Blocks:
    """A multi-block MFMA operand built from Composable Kernel's ``mfma_type`` parameters of
    the instruction: ``role`` "A" (lane = stacked row, ``k_per_blk`` registers along K), "B"
    (its mirror) or "C" (``num_output_blks`` blocks of ``num_groups_per_blk`` groups of
    ``group_size`` rows; the lane's block-thread is the column, its input block the group of
    rows).

    Examples:
        >>> d = _Blocks("C", group=4, groups=4, threads=32, inputs=2, outputs=2, k=1)()
        >>> d.apply({"register": 17, "lane": 33})
        {'dim0': 5, 'dim1': 33}
    """

    def __init__(
        self, role: str, *, group: int, groups: int, threads: int, inputs: int, outputs: int,
        k: int,
    ) -> None:  # fmt: skip
        self.role = role
        self.params = (group, groups, threads, inputs, outputs, k)

    def __call__(self) -> LinearLayout:
        group, groups, threads, inputs, outputs, k = self.params
        m_per_blk, n_per_blk = group * groups * inputs, threads
        if self.role in ("A", "B"):  # lane = blk_id * threads + blk_td: the stacked row/col
            lane = [[1 << i, 0] for i in range(6)]
            register = [[0, 1 << i] for i in range(k.bit_length() - 1)]
            rows, cols = 64, k
            if self.role == "B":
                lane = [b[::-1] for b in lane]
                register = [b[::-1] for b in register]
                rows, cols = cols, rows
        else:  # row = g * inputs * group + blk_id * group + r; col = blk_i * n_per_blk + td
            register = [[1 << i, 0] for i in range(group.bit_length() - 1)]
            register += [[inputs * group << i, 0] for i in range(groups.bit_length() - 1)]
            register += [[0, n_per_blk << i] for i in range(outputs.bit_length() - 1)]
            lane = [[0, 1 << i] for i in range(threads.bit_length() - 1)]
            lane += [[group << i, 0] for i in range(inputs.bit_length() - 1)]
            rows, cols = m_per_blk, n_per_blk * outputs
        return LinearLayout.from_bases(
            [("register", register), ("lane", lane)], ["dim0", "dim1"], [rows, cols]
        )


#: multi-block shape -> (Composable Kernel's mfma_type parameters: group_size,
#: num_groups_per_blk, num_threads_per_blk, num_input_blks, num_output_blks; the D reference)
#: (CK states the 4x4 instructions as one 4 x 64 block of 64 threads, the 16 blocks side by
#: side along N.)
_MULTI_BLOCK = {
    "32x32": (4, 4, 32, 2, 2, "mfma.32x32.2b.D"),
    "16x16": (4, 1, 16, 4, 4, "mfma.16x16.4b.D"),
    "4x4": (4, 1, 64, 1, 1, "mfma.4x4.16b.D"),
}
_BLOCKS = {"32x32": 2, "16x16": 4, "4x4": 16}


def _multi_block(
    name: str, arch: tuple[str, ...], shape: str, k: int, aliases: tuple[str, ...]
) -> Atom:
    """A multi-block MFMA atom: ``shape`` per block, ``k`` elements of K per lane."""
    group, groups, threads, inputs, outputs, d_reference = _MULTI_BLOCK[shape]
    params = {"group": group, "groups": groups, "threads": threads, "inputs": inputs,
              "outputs": outputs, "k": k}  # fmt: skip
    blocks = _BLOCKS[shape]
    m = int(shape.split("x")[0])
    ops = (
        Operand("A", (64, k), "mfma.blocks.A", None, _Blocks("A", **params), 64),
        Operand("B", (k, 64), "mfma.blocks.B", None, _Blocks("B", **params), 64),
        Operand("C", (m, m * blocks), d_reference, None, _Blocks("C", **params), 64),
    )
    source = (
        f"Composable Kernel xdlops_gemm.hpp mfma_type of {name} (group_size {group}, "
        f"num_groups_per_blk {groups}, num_threads_per_blk {threads}, num_input_blks {inputs}, "
        f"num_output_blks {outputs}, k_per_blk {k}): {blocks} blocks stacked"
    )
    return Atom(name, "mfma", name, arch, (m, m, k), ops, source, aliases)


class _LabNotesF64:
    """An operand of ``v_mfma_f64_4x4x4_4b_f64`` (CDNA2 ``v_mfma_f64_4x4x4f64``: four
    independent 4x4x4 products, one double per lane) as AMD's lab-notes example kernel
    indexes it (amd/amd-lab-notes ``matrix-cores/src/mfma_fp64_4x4x4fp64.cpp``, a 4x4x4
    thread block, lane ``x + 4 y + 16 z``): lane ``(x, y, z)`` loads block ``y``'s
    ``A[x][z]`` and ``B[z][x]`` and stores block ``y``'s ``D[z][x]``.  Blocks stacked as the
    other multi-block atoms stack them: A (16 x 4) at rows ``4 b ..``, B (4 x 16) and D (4 x 16)
    at columns ``4 b ..``.  ``role`` is "A", "B" or "C".

    Examples:
        >>> _LabNotesF64("A")().apply({"register": 0, "lane": 4 * 2 + 16 * 3 + 1})
        {'dim0': 9, 'dim1': 3}
    """

    def __init__(self, role: str) -> None:
        self.role = role

    def __call__(self) -> LinearLayout:
        # the kernel's thread (x, y, z) -> (stacked row, stacked column) for each lane bit
        x = [[1, 0], [2, 0]]  # A: row x of block y
        y = [[4, 0], [8, 0]]  # A: block y's rows 4 y ..
        z = [[0, 1], [0, 2]]  # A: column z (the K index)
        lane, shape = x + y + z, [16, 4]
        if self.role != "A":  # B[z][x] and D[z][x] of block y: (z, 4 y + x)
            lane, shape = [b[::-1] for b in lane], [4, 16]
        return LinearLayout.from_bases([("register", []), ("lane", lane)], ["dim0", "dim1"], shape)


def _f64_4x4x4() -> Atom:
    """``v_mfma_f64_4x4x4_4b_f64`` (gfx90a spelling ``v_mfma_f64_4x4x4f64``): the lane, not
    a register, carries K."""
    name = "v_mfma_f64_4x4x4_4b_f64"
    ops = tuple(
        Operand(role, shape, f"mfma.f64.4x4x4.4b.{ref}", None, _LabNotesF64(role), 64)
        for role, shape, ref in (("A", (16, 4), "A"), ("B", (4, 16), "B"), ("C", (4, 16), "D"))
    )
    source = (
        "AMD lab notes matrix-cores/src/mfma_fp64_4x4x4fp64.cpp (the example kernel's "
        "indexing: thread (x, y, z) = lane x + 4 y + 16 z loads block y's A[x][z], B[z][x] and "
        "stores D[z][x]): 4 blocks stacked"
    )
    return Atom(name, "mfma", name, _CDNA2_4, (4, 4, 4), ops, source, ("v_mfma_f64_4x4x4f64",))


_NO_GFX950 = ("gfx908", "gfx90a", "gfx942")


def _multi_block_atoms() -> list[Atom]:
    result = []
    for shape, blocks in _BLOCKS.items():
        for dtype, k, arch, old in (
            ("f32", 1, _NO_GFX950, f"v_mfma_f32_{shape}x1f32"),
            ("f16", 4, _NO_GFX950, f"v_mfma_f32_{shape}x4f16"),
            ("bf16", 4, ("gfx90a", "gfx942"), f"v_mfma_f32_{shape}x4bf16_1k"),
            ("i8", 4, _NO_GFX950, f"v_mfma_i32_{shape}x4i8"),
        ):
            acc = "i32" if dtype == "i8" else "f32"
            name = f"v_mfma_{acc}_{shape}x{k}_{blocks}b_{dtype}"
            result.append(_multi_block(name, arch, shape, k, (old,)))
        # CDNA1 bf16, two per lane (CDNA3 dropped it): its CDNA1 spelling only
        result.append(_multi_block(f"v_mfma_f32_{shape}x2bf16", ("gfx908",), shape, 2, ()))
    result.append(_f64_4x4x4())
    return result


def _wmma(
    name: str,
    arch: str,
    version: int,
    k: int,
    k_width: int,
    refs: tuple[str, str, str],
) -> Atom:
    """A 16x16xK WMMA atom (wave32): A (16 x K), B (K x 16), D (16 x 16)."""
    from llverify.encodings.amd_wmma import AMDWMMALayout
    from llverify.encodings.blocked import DotOperandLayout

    parent = AMDWMMALayout(version, False, (), (), (16, 16, k), (), 2)
    ops = (
        Operand("A", (16, k), refs[0], None, _Build(DotOperandLayout(0, parent, k_width), (16, k))),
        Operand("B", (k, 16), refs[1], None, _Build(DotOperandLayout(1, parent, k_width), (k, 16))),
        Operand("C", (16, 16), refs[2], None, _Build(parent, (16, 16))),
    )  # fmt: skip
    source = f"Triton converter: AMDWMMALayout(version {version}, [16, 16, {k}]) and its dot "
    source += f"operands (kWidth {k_width}), llverify.encodings"
    # RDNA3 and RDNA4 share instruction spellings: the name carries the target
    return Atom(f"{name}_{arch}", "wmma", name, (arch,), (16, 16, k), ops, source)


def _wmma_atoms() -> list[Atom]:
    rdna3 = ("rdna3_a", "rdna3_b", "rdna3_acc")
    rdna4_16 = ("rdna4_a_16bit", "rdna4_b_16bit", "rdna4_acc")
    rdna4_8 = ("rdna4_a_8bit", "rdna4_b_8bit", "rdna4_acc")
    result = [
        _wmma(f"v_wmma_{t}_16x16x16_{s}", "gfx11", 1, 16, 16, rdna3)
        for t, s in (("f32", "f16"), ("f32", "bf16"), ("i32", "iu8"), ("i32", "iu4"))
    ]
    # RDNA3 16-bit accumulators: 8 values per lane, value v in the OPSEL half of VGPR v
    rdna3_16 = ("rdna3_a", "rdna3_b", "rdna3_acc_16bit")
    for t in ("f16", "bf16"):
        atom = _wmma(f"v_wmma_{t}_16x16x16_{t}", "gfx11", 1, 16, 16, rdna3_16)
        source = f"{atom.source}; C/D {t}: value v in bits 15:0 (OPSEL[2] = 0) or 31:16 of VGPR v"
        result.append(replace(atom, source=source))
    result += [
        _wmma(f"v_wmma_f32_16x16x16_{s}", "gfx12", 2, 16, 4, rdna4_16) for s in ("f16", "bf16")
    ]
    result.append(_wmma("v_wmma_i32_16x16x16_iu8", "gfx12", 2, 16, 8, rdna4_8))
    result += [
        _wmma(f"v_wmma_f32_16x16x16_{a}_{b}", "gfx12", 2, 16, 8, rdna4_8)
        for a in ("fp8", "bf8")
        for b in ("fp8", "bf8")
    ]
    result.append(
        _wmma("v_wmma_i32_16x16x32_iu4", "gfx12", 2, 32, 16,
              ("rdna4_a_4bit_k32", "rdna4_b_4bit_k32", "rdna4_acc"))
    )  # fmt: skip
    gfx1250 = ("gfx1250_a_k32_kwidth8", "gfx1250_b_k32_kwidth8", "gfx1250_acc")
    result += [
        _wmma(f"v_wmma_f32_16x16x32_{s}", "gfx1250", 3, 32, 8, gfx1250) for s in ("f16", "bf16")
    ]
    return result


def atoms() -> list[Atom]:
    """Every AMD atom, in catalogue order."""
    scaled = [
        _scaled("v_mfma_scale_f32_32x32x64_f8f6f4", 32, 64),
        _scaled("v_mfma_scale_f32_16x16x128_f8f6f4", 16, 128),
    ]
    scaled += [
        _narrow(f"v_mfma{kind}_f32_{m}x{m}x{k}_f8f6f4", m, k, suffix)
        for kind in ("", "_scale")
        for m, k in ((32, 64), (16, 128))
        for suffix in _NARROW
    ]
    return [*_mfma_atoms(), *scaled, *_multi_block_atoms(), *_wmma_atoms()]
