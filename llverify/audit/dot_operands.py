"""Audit rules on the register operands of ``tt.dot`` and ``ttng.warp_group_dot``:
``dot-operand-encoding`` (they are ``dot_op`` encodings with the right ``opIdx`` and the
result's encoding as parent, and build for their shapes) and ``dot-operand-fragment`` (each
equals the fragments of the instruction Triton 3.9 selects, with no copies along K).

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
    ...   %3 = tt.dot %1, %2, %0 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
    ... }'''
    >>> f = audit(text).findings[0]
    >>> f.rule, str(f.status), f.data["problems"][0][:38]
    ('dot-operand-encoding', 'error', 'operand 0 has the wrong opIdx: #ttg.do')
    >>> f = audit(text.replace("opIdx = 1, parent = #mma, kWidth = 2}>> *", "opIdx = 0, parent = #mma, kWidth = 1}>> *")).findings[-1]
    >>> f.rule, str(f.status), f.summary[:74]
    ('dot-operand-fragment', 'error', 'operand 0: kWidth 1 does not fit mma.m16n8k16 .f16 A, which needs kWidth 2')
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from llverify.audit.context import AuditContext, Rule, Severity
from llverify.layout import LinearLayout
from llverify.ops import IntOps
from llverify.proof.formula import Formula
from llverify.proof.verdict import Status
from llverify.prove import prove_equal
from llverify.ttgir import Attributes, Operation, Type, encoding_name, parse_attribute_dict

__all__ = [
    "RULES",
    "Instruction",
    "NoReference",
    "k_copies",
    "k_packed_instruction",
    "operand_instruction",
    "permute_k",
]

NAME = "dot-operand-encoding"


def check_dot_encodings(ctx: AuditContext, op: Operation) -> None:
    """Each register operand is ``dot_op<opIdx = its position, parent = the result's>``."""
    tensors = [t for t in op.types if t.kind in ("tensor", "memdesc")]
    if op.name == "tt.dot_scaled" and len(tensors) != 3:
        ctx.skip(op, NAME, "a scaled dot with scale tensors: their layouts are not checked")
        return
    if len(tensors) < 3:
        ctx.skip(op, NAME, "could not read the operand and result types")
        return
    result = tensors[-1].encoding
    problems = []
    for index, operand in enumerate(tensors[:2]):
        if operand.kind == "memdesc":
            continue  # wgmma reads this operand from shared memory
        enc = operand.encoding
        fields = _dot_operand_fields(enc)
        if fields is None:
            problems.append(f"operand {index} is not a dot operand encoding: {enc[:60]}")
            continue
        if fields.integer("opIdx") != index:
            problems.append(f"operand {index} has the wrong opIdx: {enc[:60]}")
        if fields.get("parent") != result:
            problems.append(f"operand {index}'s parent is not the result's encoding")
        ctx.layout(operand)  # the encoding must build for its shape
    status = Status.ERROR if problems else Severity.OK
    summary = "; ".join(problems) or (
        "register operands are dot_op encodings of the result's layout with their opIdx"
    )
    ctx.finding(op, status, summary, rule=NAME, data={"problems": problems})


# ---------------------------------------------------------------------- dot-operand-fragment

FRAGMENT = "dot-operand-fragment"

_LOG2 = {1 << i: i for i in range(32)}


@dataclass(frozen=True)
class Instruction:
    """The instruction Triton 3.9 lowers one dot operand to, and the closed form of the whole
    operand tensor it needs: the vendor fragment tiled in the register order Triton's
    lowering consumes (``formulas`` with ``params``, not yet cut to the tensor's shape).

    ``k``: the instruction's K; ``k_widths``: the ``kWidth`` values whose layout is this
    fragment; ``sizes``: the register/lane/warp counts of the tiling; ``k_dim``: the out dim
    along K."""

    name: str
    k: int
    k_widths: tuple[int, ...]
    formulas: Mapping[str, str]
    params: Mapping[str, int]
    sizes: Mapping[str, int]
    k_dim: str
    source: str
    #: kPack: tensor K bit ``q`` is bit ``k_permutation[q]`` of the K the plain tiling
    #: feeds (bits past the tuple unchanged); None when K is not permuted
    k_permutation: tuple[int, ...] | None = None

    def needs(self, point: Mapping[str, int]) -> dict[str, int]:
        """The element the instruction needs at ``point`` (register/lane/warp), not cut to
        the tensor's shape (exact ints): PTX a2 of lane 5 is row groupID + 8, column
        2 * threadID_in_group.

        >>> mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>"
        >>> operand_instruction(mma, "f16", 0, (16, 16)).needs({"register": 2, "lane": 5, "warp": 0})
        {'dim0': 9, 'dim1': 2}
        """  # noqa: E501
        env = {**self.params, **point}
        return {d: Formula(f).evaluate(IntOps(), env) for d, f in self.formulas.items()}


@dataclass(frozen=True)
class NoReference:
    """Why an operand has no reference: ``error`` when no instruction can take it (an
    error), else specs/ has no fragment for it (unknown)."""

    reason: str
    error: bool = False


def _log2(value: int) -> int:
    return value.bit_length() - 1


def _element_class(element: str) -> str | None:
    """f16, bf16, f32, f64, or b8 (8-bit integers and floats); None for anything else."""
    if element in ("f16", "bf16", "f32", "f64"):
        return element
    if element in ("i8", "ui8", "si8") or element.startswith("f8"):
        return "b8"
    return None


#: NVIDIA instructions by (MMA major version, element class): name, K, kWidth (one 32-bit
#: register of K-consecutive elements; PTX ISA "Matrix Fragments for mma.m16n8k16 / k8 /
#: k32" and wgmma "Register Fragments"; Triton 3.9 MMAv2.cpp packs 32 / bitwidth elements)
_NVIDIA = {
    (2, "f16"): ("mma.m16n8k16 .f16", 16, 2),
    (2, "bf16"): ("mma.m16n8k16 .bf16", 16, 2),
    (2, "b8"): ("mma.m16n8k32 (8-bit)", 32, 4),
    (2, "f32"): ("mma.m16n8k8 .tf32", 8, 1),
    (3, "f16"): ("wgmma.m64nNk16 .f16", 16, 2),
    (3, "bf16"): ("wgmma.m64nNk16 .bf16", 16, 2),
    (3, "b8"): ("wgmma.m64nNk32 (8-bit)", 32, 4),
    (3, "f32"): ("wgmma.m64nNk8 .tf32", 8, 1),
}


def _nvidia(
    parent: Any, element: str, index: int, shape: tuple[int, ...]
) -> Instruction | NoReference:
    """mma.sync (version 2) or wgmma (version 3, register A only) on a 2-D tensor."""
    from llverify.specs.nvidia_mma import REFERENCES

    major = parent.version[0]
    instr = list(parent.instr_shape)
    kind = _element_class(element) or element
    if major == 3 and index == 1:
        return NoReference("wgmma reads operand B from shared memory only", error=True)
    if major == 2 and kind == "f64":
        entry = ("mma.m8n8k4 .f64", 4, 1) if instr[0] == 8 else ("mma.m16n8k8 .f64", 8, 1)
    elif (major, kind) in _NVIDIA:
        entry = _NVIDIA[(major, kind)]
    else:
        return NoReference(f"no NVIDIA MMA v{major} fragment in specs/ for {element}")
    name, k_instr, k_width = entry
    expected = [8, 8] if name == "mma.m8n8k4 .f64" else [16, 8]
    if major == 2 and instr != expected:
        return NoReference(f"{name} with instrShape {instr}: specs/ tiles {expected}")
    if major == 3 and (len(instr) < 3 or instr[2] != k_instr):
        return NoReference(
            f"the result's instrShape {instr} does not have {name}'s K = {k_instr}", error=True
        )
    wm, wn = (_log2(w) for w in parent.warps_per_cta)
    lw, lm8 = _log2(k_width), _log2(instr[0] // 8)
    lmul = min(lm8, 1)
    rows, cols = (_log2(s) for s in shape)
    if index == 0:
        lrk, lrm = max(0, cols - (lw + 2 + lmul)), max(0, rows - (3 + lm8 + wm))
        params = dict(hopper=int(major == 3), lw=lw, lm8=lm8, lmul=lmul, lwm=wm, lwn=wn,
                      lrk=lrk, lrm=lrm)  # fmt: skip
        registers = lw + lm8 + lmul + lrk + lrm
        reference, k_dim = "closed_form.dot_a", "dim1"
    else:
        lrk, lrn = max(0, rows - (lw + 2 + lmul)), max(0, cols - (3 + wn))
        params = dict(lw=lw, lmul=lmul, lwm=wm, lwn=wn, lrk=lrk, lrn=lrn)
        registers = lw + lmul + lrk + lrn
        reference, k_dim = "closed_form.dot_b", "dim0"
    return Instruction(
        f"{name} {'AB'[index]}",
        k_instr,
        (k_width,),
        REFERENCES[reference].formulas,
        params,
        {"register": 1 << registers, "lane": 32, "warp": 1 << (wm + wn)},
        k_dim,
        f"specs/nvidia_mma.py {reference} (per warp and instruction: the PTX fragment)",
    )


def _mfma_table() -> dict[tuple[str, int, int], tuple[str, Any, Any, int]]:
    """(element class, instrM = instrN, instrK) -> (instruction, fragment A, fragment B,
    lowest MFMA version): the MFMA instructions specs/amd_mfma.py has fragments for (CDNA3
    ISA ch. 7, CDNA4 ISA; AMD Matrix Instruction Calculator)."""
    from llverify.specs import amd_mfma as m

    return {
        ("f32", 32, 2): ("v_mfma_f32_32x32x2_f32", m.A_32X32X2_F32, m.B_32X32X2_F32, 1),
        ("f32", 16, 4): ("v_mfma_f32_16x16x4_f32", m.A_16X16X4, m.B_16X16X4, 1),
        ("f64", 16, 4): ("v_mfma_f64_16x16x4_f64", m.A_16X16X4, m.B_16X16X4, 2),
        ("f16", 32, 8): ("v_mfma_f32_32x32x8_f16", m.A_32X32X8_F16, m.B_32X32X8_F16, 1),
        ("bf16", 32, 8): ("v_mfma_f32_32x32x8_bf16_1k", m.A_32X32X8_F16, m.B_32X32X8_F16, 2),
        ("f16", 16, 16): ("v_mfma_f32_16x16x16_f16", m.A_16X16X16_F16, m.B_16X16X16_F16, 1),
        ("bf16", 16, 16): ("v_mfma_f32_16x16x16_bf16_1k", m.A_16X16X16_F16, m.B_16X16X16_F16, 2),
        ("f16", 32, 16): ("v_mfma_f32_32x32x16_f16", m.A_32X32X16, m.B_32X32X16, 4),
        ("bf16", 32, 16): ("v_mfma_f32_32x32x16_bf16", m.A_32X32X16, m.B_32X32X16, 4),
        ("f16", 16, 32): ("v_mfma_f32_16x16x32_f16", m.A_16X16X32, m.B_16X16X32, 4),
        ("bf16", 16, 32): ("v_mfma_f32_16x16x32_bf16", m.A_16X16X32, m.B_16X16X32, 4),
        ("b8", 32, 16): ("v_mfma_*_32x32x16 (8-bit)", m.A_32X32X16, m.B_32X32X16, 3),
        ("b8", 16, 32): ("v_mfma_*_16x16x32 (8-bit)", m.A_16X16X32, m.B_16X16X32, 3),
    }


def _mfma(
    parent: Any, element: str, index: int, shape: tuple[int, ...]
) -> Instruction | NoReference:
    """An MFMA operand (wave64) on a 2-D tensor at least one CTA tile along its non-K dim."""
    from llverify.specs.amd_mfma import operand_reference

    m_instr, n_instr, k_instr = parent.instr_shape
    key = (_element_class(element) or element, m_instr, k_instr)
    table = _mfma_table()
    if m_instr != n_instr or key not in table:
        return NoReference(
            f"no MFMA fragment in specs/ for {element} with instrShape {list(parent.instr_shape)}"
        )
    name, frag_a, frag_b, version = table[key]
    if parent.version < version:
        return NoReference(f"{name} needs MFMA version {version}, not {parent.version}", True)
    fragment = frag_a if index == 0 else frag_b
    warps, tiles = list(parent.warps_per_cta), list(parent.tiles_per_warp)
    k, non_k = (shape[1], shape[0]) if index == 0 else (shape[0], shape[1])
    k_extent = fragment.shape[1] if index == 0 else fragment.shape[0]
    cta = m_instr * warps[index] * tiles[index]
    if non_k < cta:
        return NoReference(f"the tensor is smaller than one CTA tile ({cta}) along its non-K dim")
    registers = fragment.registers * max(1, k // k_extent) * tiles[index] * (non_k // cta)
    return Instruction(
        f"{name} {'AB'[index]}",
        k_instr,
        (fragment.registers,),
        operand_reference(fragment, index, warps, tiles, shape),
        {},
        {"register": registers, "lane": 64, "warp": warps[0] * warps[1]},
        "dim1" if index == 0 else "dim0",
        f"specs/amd_mfma.py operand_reference of {fragment.name}",
    )


def _wmma(
    parent: Any, element: str, index: int, shape: tuple[int, ...]
) -> Instruction | NoReference:
    """A WMMA operand (wave32) with a warp grid of single steps: 16x16x16 on RDNA3 or
    RDNA4, 16x16x32 16-bit on gfx1250 (version 3, from Triton's documentation)."""
    from llverify.specs.amd_mfma import Fragment, tiled_reference

    kind = _element_class(element)
    bits = {"f16": 16, "bf16": 16, "b8": 8}.get(kind or "")
    instr = tuple(parent.instr_shape)
    wanted = (16, 16, 32) if parent.version == 3 else (16, 16, 16)
    if bits is None or instr != wanted or (parent.version == 3 and bits != 16):
        return NoReference(
            f"no WMMA v{parent.version} fragment in specs/ for {element} with instrShape "
            f"{list(parent.instr_shape)}"
        )
    if parent.reg_bases:
        return NoReference("a WMMA ctaLayout with register bases has no reference in specs/")
    table, registers, k_widths, formulas = _wmma_table(parent.version, bits, index)
    k_instr = instr[2]
    frag_shape = (16, k_instr) if index == 0 else (k_instr, 16)
    fragment = Fragment(table, formulas["dim0"], formulas["dim1"], frag_shape, registers, table)
    k_index, non_k_index = (1, 0) if index == 0 else (0, 1)
    warps = _wmma_warps(parent.warp_bases, non_k_index)
    if isinstance(warps, NoReference):
        return warps
    warp_fields, ordered = warps
    k_reps = max(1, shape[k_index] // k_instr)
    non_k_reps = max(1, shape[non_k_index] // (16 << len(ordered)))
    register = [("k_reps", k_reps), ("nk_reps", non_k_reps)]
    dims = {f"dim{non_k_index}": [*ordered, "nk_reps"], f"dim{k_index}": ["k_reps"]}
    arch = {1: "RDNA3", 2: "RDNA4", 3: "gfx1250"}[parent.version]
    name = f"v_wmma_*_16x16x{k_instr} {arch} ({bits}-bit)"
    return Instruction(
        f"{name} {'AB'[index]}",
        k_instr,
        k_widths,
        tiled_reference(fragment, register=register, warp=warp_fields, dims=dims),
        {},
        {"register": registers * k_reps * non_k_reps, "lane": 32, "warp": 1 << len(warp_fields)},
        f"dim{k_index}",
        f"specs/{'fragments' if table.startswith('gfx1250_b') else 'amd_wmma'}.py {table}, tiled",
    )


#: DPAS element classes -> opsPerChan ([OCL]/[TF32] of specs/intel_dpas.py: 8-bit K = 32,
#: fp16/bf16 K = 16, tf32 K = 8).
_DPAS_OPS = {"b8": 4, "f16": 2, "bf16": 2, "f32": 1}


def _dpas(
    parent: Any, element: str, index: int, shape: tuple[int, ...]
) -> Instruction | NoReference:
    """A DPAS operand on a sub-group of 16 (Xe-HPC, Xe2: threadsPerWarp = executionSize =
    16, where specs/intel_dpas.py proves the converter is the SPIR-V mapping), at least one
    CTA tile along its non-K dim and one instruction along K."""
    if parent.threads_per_warp != 16 or parent.execution_size != 16:
        return NoReference(
            f"a DPAS layout with threadsPerWarp {parent.threads_per_warp} and executionSize "
            f"{parent.execution_size}: specs/ proves the sub-group-16 mapping only"
        )
    ops = parent.ops_per_channel
    if _DPAS_OPS.get(_element_class(element) or "") != ops:
        return NoReference(
            f"{element} operands with opsPerChan {parent.ops_per_channel}: specs/ has no DPAS "
            f"fragment for them"
        )
    m, k = parent.repeat_count, parent.instruction_k
    if index == 0 and ops == 1 and m == 1:
        return NoReference("tf32 A with repeatCount 1 ignores lanes 8-15: no reference")
    extent = m if index == 0 else parent.execution_size
    k_index, non_k_index = (1, 0) if index == 0 else (0, 1)
    warps_non_k, warps_k = parent.warps_per_cta[non_k_index], parent.warps_per_cta[k_index]
    cta = extent * parent.rep_cluster[non_k_index] * warps_non_k
    if shape[non_k_index] < cta or shape[k_index] < k:
        return NoReference(
            f"the tensor {list(shape)} is smaller than one CTA tile ({cta} along the non-K "
            f"dim, {k} along K)"
        )
    reps = (shape[k_index] // k, shape[non_k_index] // cta)
    formulas, registers = _dpas_tiled(parent, index, reps)
    k_width = (1 if ops == 1 else ops // 2) if index == 0 else ops
    return Instruction(
        f"dpas {m}x{parent.execution_size}x{k} ({'tf32' if ops == 1 else f'{32 // ops}-bit'}) "
        f"{'AB'[index]}",
        k,
        (k_width,),
        formulas,
        {},
        {"register": registers, "lane": 16, "warp": warps_k * warps_non_k},
        f"dim{k_index}",
        "specs/intel_dpas.py a_reference / b_reference (SPV_INTEL_subgroup_matrix_multiply_"
        "accumulate), tiled",
    )


def _dpas_tiled(parent: Any, index: int, reps: tuple[int, int]) -> tuple[dict[str, str], int]:
    """The DPAS fragment of operand ``index`` tiled as the backend orders it: repCluster
    along the non-K dim, then the (K, non-K) ``reps`` in registers; warps K first for A, last
    for B (along K they broadcast).  Returns the formulas and the register count."""
    from llverify.specs.amd_mfma import Fragment, tiled_reference
    from llverify.specs.intel_dpas import a_reference, b_reference

    m, k, ops = parent.repeat_count, parent.instruction_k, parent.ops_per_channel
    rows_cols = (m, k) if index == 0 else (k, parent.execution_size)
    formulas = a_reference(ops) if index == 0 else b_reference()
    registers = (m * k) // 16 if index == 0 else k
    fragment = Fragment(
        f"dpas {'AB'[index]}", formulas["dim0"], formulas["dim1"], rows_cols, registers, ""
    )
    k_index, non_k_index = (1, 0) if index == 0 else (0, 1)
    cluster = parent.rep_cluster[non_k_index]
    register = [("cluster", cluster), ("k_reps", reps[0]), ("nk_reps", reps[1])]
    warp_order = [
        ("k_warps", parent.warps_per_cta[k_index]),
        ("nk_warps", parent.warps_per_cta[non_k_index]),
    ]
    warp = warp_order if index == 0 else warp_order[::-1]
    dims = {f"dim{non_k_index}": ["cluster", "nk_warps", "nk_reps"], f"dim{k_index}": ["k_reps"]}
    tiled = tiled_reference(fragment, register=register, warp=warp, dims=dims)
    return tiled, registers * cluster * reps[0] * reps[1]


def _wmma_table(
    version: int, bits: int, index: int
) -> tuple[str, int, tuple[int, ...], Mapping[str, str]]:
    """The fragment of operand ``index``: its table, registers per thread, the kWidths that
    lay it out, and its formulas (specs/amd_wmma.py; gfx1250's B from specs/fragments.py,
    the mirror of A: Triton's documentation is the only source for version 3)."""
    from llverify.specs.amd_wmma import REFERENCES
    from llverify.specs.fragments import FRAGMENTS

    k_widths: tuple[int, ...]
    if version == 1:
        table, registers, k_widths = f"rdna3_{'ab'[index]}", 16, (8, 16)
    elif version == 2:
        table, registers = f"rdna4_{'ab'[index]}_{bits}bit", 8
        k_widths = (4,) if bits == 16 else (8,)
    else:
        table, registers, k_widths = f"gfx1250_{'ab'[index]}_k32_kwidth8", 16, (8,)
    formulas = FRAGMENTS[table].formulas if table in FRAGMENTS else REFERENCES[table]
    return table, registers, k_widths, formulas


def _wmma_warps(
    warp_bases: Any, non_k_index: int
) -> tuple[list[tuple[str, int]], list[str]] | NoReference:
    """The warp fields of the tiling and those that step along the non-K dim (in order of
    their step), or why the warps are no grid of single steps."""
    warp_fields: list[tuple[str, int]] = []
    steps: dict[int, str] = {}
    for bit, basis in enumerate(warp_bases):
        nonzero = [(d, v) for d, v in enumerate(basis) if v]
        if len(nonzero) != 1:
            return NoReference(f"WMMA warp basis {list(basis)} is not a single step")
        dim, step = nonzero[0]
        warp_fields.append((f"w{bit}", 2))
        if dim == non_k_index:
            steps[step] = f"w{bit}"
    if sorted(steps) != [1 << i for i in range(len(steps))]:
        return NoReference("the WMMA warps do not tile the non-K dim in order")
    return warp_fields, [steps[s] for s in sorted(steps)]


def operand_instruction(
    parent: str, element: str, index: int, shape: tuple[int, ...]
) -> Instruction | NoReference:
    """The instruction Triton 3.9 selects for operand ``index`` (0 = A, 1 = B) of a dot whose
    result has encoding ``parent``, with elements ``element`` (TTGIR: "f16", "i8", ...) on a
    tensor of ``shape``, and the closed form it needs; or why there is none.

    >>> mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>"
    >>> i = operand_instruction(mma, "i8", 0, (128, 64))
    >>> i.name, i.k, i.k_widths, i.sizes["register"]
    ('mma.m16n8k32 (8-bit) A', 32, (4,), 64)
    >>> operand_instruction(mma, "i4", 0, (128, 64)).reason
    'no NVIDIA MMA v2 fragment in specs/ for i4'
    """  # noqa: E501
    from llverify.encodings import (
        AMDMFMALayout,
        AMDWMMALayout,
        DpasLayout,
        NVMMADistributedLayout,
        to_encoding,
    )
    from llverify.encodings.ttgir import parse_encoding
    from llverify.errors import LLVerifyError

    try:
        encoding, _ = to_encoding(parent)  # parsed once per process
    except (LLVerifyError, ValueError, TypeError):
        parse_encoding(parent, "parent")  # the error, naming the argument
        raise
    if len(shape) != 2:
        return NoReference(f"a rank-{len(shape)} operand: specs/ has 2-D references only")
    if getattr(encoding, "cga_layout", ()):
        return NoReference("a multi-CTA (CGA) layout: specs/ has one-CTA references only")
    if any(s not in _LOG2 for s in shape):
        return NoReference(f"the shape {list(shape)} is not made of powers of 2", error=True)
    if isinstance(encoding, NVMMADistributedLayout):
        return _nvidia(encoding, element, index, shape)
    if isinstance(encoding, AMDMFMALayout):
        if encoding.element_bitwidth != 32 and element != "f64":
            return NoReference("a 64-bit MFMA accumulator with non-f64 operands", error=True)
        return _mfma(encoding, element, index, shape)
    if isinstance(encoding, AMDWMMALayout):
        return _wmma(encoding, element, index, shape)
    if isinstance(encoding, DpasLayout):
        return _dpas(encoding, element, index, shape)
    return NoReference(f"the result's encoding is not an MMA layout: {parent[:50]}")


# ---------------------------------------------------------------------- kPack / large kWidth

#: How many times K is doubled to find room for the instructions of one K group.
_MAX_K_DOUBLINGS = 4


def k_packed_instruction(
    parent: str, element: str, index: int, shape: tuple[int, ...], k_width: int
) -> Instruction | NoReference:
    """The reference of an operand whose ``kWidth`` is ``c`` times its instruction's
    (Triton's MMAv2 large-K / upcast path, AMD kPack): each thread's ``kWidth`` consecutive
    K elements are cut into ``c`` runs of the instruction's kWidth, run ``i`` standing for
    the ``i``-th K register group of the plain tiling (the next K half of an mma.m16n8k16,
    the next MFMA/WMMA along K), so K is permuted, alike in A and B: tensor K bits
    ``[j][i][g]`` are the plain tiling's ``[j][g][i]`` (``j``: within a run, ``g``: the
    lanes' K groups).  This fixes one K permutation.  Triton's lowering may feed the runs
    to the instructions in another order (AMD MFMA.cpp's kPack loop takes the kBase-wide
    sub-vectors in order, quoted in triton#10290; NVIDIA MMAv2.cpp reads "one k column from
    both outer rows and both kTiles groups per MMA"): such an order differs from this one
    by a permutation of K-carrying register bits only, the same in A and B, so what a proof
    shows holds for it too: each operand is the fragment up to a K permutation, A and B
    permuted alike, no copies along K.  Which K step a register feeds is not claimed.
    When the tensor's K has no room for ``c`` groups the reference is taken at a larger K
    (its coordinates cut to the tensor, as Triton's converter does), so the copies check
    can replay the duplicates (triton#11691: kWidth 4 on K = 16).

    >>> mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>"
    >>> i = k_packed_instruction(mma, "f16", 0, (16, 32), 4)
    >>> i.k_widths, i.k_permutation, i.needs({"register": 2, "lane": 1, "warp": 0})
    ((4,), (0, 3, 1, 2, 4), {'dim0': 0, 'dim1': 6})
    """  # noqa: E501
    k_index = 1 if index == 0 else 0
    for doubling in range(_MAX_K_DOUBLINGS + 1):
        wide = list(shape)
        wide[k_index] <<= doubling
        base = operand_instruction(parent, element, index, tuple(wide))
        if isinstance(base, NoReference):
            return base
        if base.name.startswith("wgmma"):
            return NoReference(
                f"kWidth {k_width} on {base.name}: wgmma reads B from shared memory in K "
                "order, so a permuted register A has no reference in specs/"
            )
        needed = max(base.k_widths)
        packed = _pack(base, k_width, needed, _log2(wide[k_index]))
        if packed is not None:
            return packed
    return NoReference(f"kWidth {k_width}: no K register group to pack found in the tiling")


def _bits_text(expr: str, sources: list[int], width: int) -> str:
    """``expr`` with its low ``width`` bits moved (bit ``q`` of the result is bit
    ``sources[q]`` of ``expr``, runs of consecutive bits moved together), the higher bits
    kept."""
    terms, q = [], 0
    while q < width:
        run = 1
        while q + run < width and sources[q + run] == sources[q] + run:
            run += 1
        terms.append(f"((({expr}) >> {sources[q]}) & {(1 << run) - 1}) << {q}")
        q += run
    terms.append(f"(({expr}) >> {width}) << {width}")
    return " | ".join(terms)


def _pack(base: Instruction, k_width: int, needed: int, k_bits: int) -> Instruction | None:
    """``base`` (the plain tiling) with its registers and K permuted for ``k_width``; None
    when the tiling has fewer K register groups than the packing needs."""
    import re

    lj, lc = _log2(needed), _log2(k_width // needed)
    zero = dict.fromkeys(("register", "lane", "warp"), 0)
    origin = base.needs(zero)
    images = []
    for bit in range(_log2(base.sizes["register"])):
        at = base.needs({**zero, "register": 1 << bit})
        images.append({d: at[d] ^ origin[d] for d in at})
    pure_k = [
        b for b, image in enumerate(images)
        if b >= lj and image[base.k_dim] in _LOG2
        and not any(v for d, v in image.items() if d != base.k_dim)
    ]  # fmt: skip
    if len(pure_k) < lc:
        return None
    groups = pure_k[:lc]
    order = list(range(lj)) + groups + [b for b in range(lj, len(images)) if b not in groups]
    moved = [_log2(images[b][base.k_dim]) for b in groups]
    k_sources = list(range(lj)) + moved + [p for p in range(lj, k_bits) if p not in moved]
    register = _bits_text("register", _inverse(order), len(order))
    formulas = {}
    for dim, text in base.formulas.items():
        text = re.sub(r"\bregister\b", f"({register})", text)
        formulas[dim] = _bits_text(text, k_sources, k_bits) if dim == base.k_dim else text
    return Instruction(
        f"{base.name} (kWidth {k_width}: {k_width // needed} x {needed})",
        base.k,
        (k_width,),
        formulas,
        base.params,
        base.sizes,
        base.k_dim,
        f"{base.source}; registers and K permuted for kWidth {k_width} (kPack)",
        tuple(k_sources),
    )


def _inverse(order: list[int]) -> list[int]:
    """The permutation that undoes ``order`` (bit ``order[t]`` of the plain tiling's
    register is bit ``t`` of the packed one)."""
    result = [0] * len(order)
    for t, b in enumerate(order):
        result[b] = t
    return result


def permute_k(k_permutation: tuple[int, ...] | None, value: int) -> int:
    """The tensor K that instruction-tiling K ``value`` reads under ``k_permutation``.

    >>> permute_k((0, 3, 1, 2, 4), 8), permute_k(None, 8)
    (2, 8)
    """
    if not k_permutation:
        return value
    width = len(k_permutation)
    result = (value >> width) << width
    for q, p in enumerate(k_permutation):
        result |= (value >> p & 1) << q
    return result


def _dot_operand_fields(encoding: str) -> Attributes | None:
    """The fields of a ``#ttg.dot_op<{opIdx = 0, parent = ..., kWidth = 2}>`` encoding text,
    None for any other encoding."""
    if encoding_name(encoding) != "ttg.dot_op":
        return None
    return parse_attribute_dict(encoding, encoding.index("<") + 1)[0]


def _k_width(encoding: str) -> int | None:
    """The kWidth of a ``#ttg.dot_op`` encoding text (0 when absent), None for any other
    encoding."""
    fields = _dot_operand_fields(encoding)
    return None if fields is None else fields.integer("kWidth") or 0


def _point_text(point: Mapping[str, int]) -> str:
    return ", ".join(f"{d} {v}" for d, v in point.items() if d != "block")


def k_copies(layout: LinearLayout, instr: Instruction) -> dict[str, Any] | None:
    """Two inputs of one warp (registers and lanes) that hold the same element where
    ``instr`` needs two distinct K positions (the K sum would count it twice), replayed on
    both; None when there are none.  The kernel of the layout over registers and lanes is
    spanned by one dependency per free column (GF(2) elimination); the closed form is linear,
    so checking those suffices.

    >>> from llverify.encodings import to_linear_layout
    >>> mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>"
    >>> a = to_linear_layout(f"#ttg.dot_op<{{opIdx = 0, parent = {mma}, kWidth = 2}}>", [16, 8])
    >>> copies = k_copies(a, operand_instruction(mma, "f16", 0, (16, 8)))
    >>> copies["inputs"][0], copies["element"], [n["dim1"] for n in copies["needs"]]
    ({'register': 4, 'lane': 0, 'warp': 0, 'block': 0}, {'dim0': 0, 'dim1': 0}, [8, 0])
    """  # noqa: E501
    zero = dict.fromkeys(layout.get_in_dim_names(), 0)
    needs_zero = instr.needs(zero)
    for point in _dependencies(layout):
        needs = instr.needs(point)
        if needs[instr.k_dim] == needs_zero[instr.k_dim]:
            continue
        held, held_zero = layout.apply(point), layout.apply(zero)
        if held != held_zero:  # pragma: no cover - the elimination is exact
            continue
        return {
            "inputs": [point, zero],
            "element": held,
            "needs": [needs, needs_zero],
        }
    return None


def _dependencies(layout: LinearLayout) -> Iterator[dict[str, int]]:
    """One input of the layout's kernel over registers and lanes per free column (GF(2)
    elimination of the columns' packed images): together they span the kernel."""
    names = layout.get_in_dim_names()
    outs = layout.get_out_dim_names()
    widths = [_log2(layout.get_out_dim_size(d)) for d in outs]
    columns: list[tuple[str, int]] = [
        (dim, bit)
        for dim in ("register", "lane")
        if dim in names
        for bit in range(_log2(layout.get_in_dim_size(dim)))
    ]
    zero = dict.fromkeys(names, 0)
    pivots: dict[int, tuple[int, int]] = {}
    for position, (dim, bit) in enumerate(columns):
        out = layout.apply({**zero, dim: 1 << bit})
        value, shift = 0, 0
        for d, w in zip(outs, widths):
            value |= out[d] << shift
            shift += w
        combination = 1 << position
        while value and (value.bit_length() - 1) in pivots:
            pivot_value, pivot_combination = pivots[value.bit_length() - 1]
            value ^= pivot_value
            combination ^= pivot_combination
        if value:
            pivots[value.bit_length() - 1] = (value, combination)
            continue
        point = dict(zero)
        for index, (d, b) in enumerate(columns):
            if combination >> index & 1:
                point[d] |= 1 << b
        yield point


def _check_operand(ctx: AuditContext, operand: Type, result: Type, index: int) -> dict[str, Any]:
    """Operand ``index`` against its instruction: a report with ``status`` and ``summary``."""
    label = f"operand {index}"
    instr = operand_instruction(result.encoding, operand.element, index, operand.shape)
    k_width = _k_width(operand.encoding)
    if isinstance(instr, Instruction) and k_width and k_width not in instr.k_widths:
        needed = max(instr.k_widths)
        if "gfx1250" in instr.name:
            instr = NoReference(
                f"kWidth {k_width} on {instr.name}: gfx1250's lowering regroups a thread's "
                f"elements (kWidth times a factor, triton#8174); specs/ has kWidth {needed} only"
            )
        elif k_width > needed and k_width % needed == 0:
            instr = k_packed_instruction(
                result.encoding, operand.element, index, operand.shape, k_width
            )
    if isinstance(instr, NoReference):
        status = Status.ERROR if instr.error else Status.UNKNOWN
        return {"operand": index, "status": status, "summary": f"{label}: {instr.reason}"}
    report = _OperandCheck(ctx.layout(operand), operand, index, instr).run()
    report["k_permutation"] = instr.k_permutation
    return report


class _OperandCheck:
    """The checks of one register operand against its instruction's fragments, in order:
    kWidth, hardware sizes, the fragments (proved), copies along K.  A check that cannot
    decide ends the report as unknown; the others add their problems."""

    def __init__(self, layout: LinearLayout, operand: Type, index: int, instr: Instruction):
        self.layout, self.operand, self.index, self.instr = layout, operand, index, instr
        self.label = f"operand {index}"
        self.report: dict[str, Any] = {
            "operand": index, "instruction": instr.name, "source": instr.source
        }  # fmt: skip
        self.problems: list[str] = []
        self.sizes = {d: layout.get_in_dim_size(d) for d in layout.get_in_dim_names()}
        self.wanted: dict[str, int] = {}

    def run(self) -> dict[str, Any]:
        for step in (self._k_width, self._sizes, self._fragments, self._copies):
            unknown = step()
            if unknown is not None:
                self.report["status"] = Status.UNKNOWN
                self.report["summary"] = f"{self.label}: {unknown}"
                return self.report
        if self.problems:
            self.report["status"] = Status.ERROR
            self.report["summary"] = f"{self.label}: " + "; ".join(self.problems)
        else:
            self.report["status"] = Status.PROVED
            self.report["summary"] = (
                f"{self.label} equals {self.instr.name}'s fragments over all "
                f"{self.layout.get_total_in_dim_size()} inputs (proved for this instance)"
            )
        return self.report

    def _k_width(self) -> str | None:
        instr = self.instr
        k_width = _k_width(self.operand.encoding)
        needed = max(instr.k_widths)
        if k_width is None or k_width in instr.k_widths:
            return None
        self.problems.append(
            f"kWidth {k_width} does not fit {instr.name}, which needs kWidth {needed}"
        )
        return None

    def _sizes(self) -> str | None:
        sizes = self.sizes
        if sizes.get("block", 1) != 1 or set(sizes) - {"register", "lane", "warp", "block"}:
            return f"in dims {sizes}: specs/ has one-CTA references only"
        self.wanted = {d: s for d, s in self.instr.sizes.items() if sizes.get(d, 1) != s}
        if self.wanted:
            self.problems.append(
                f"the layout has {', '.join(f'{sizes.get(d, 1)} {d}s' for d in self.wanted)} "
                f"where {self.instr.name} tiled over {list(self.operand.shape)} needs "
                f"{', '.join(f'{s}' for s in self.wanted.values())}"
            )
        return None

    def _fragments(self) -> str | None:
        layout, instr = self.layout, self.instr
        masked = {
            d: f"({text}) & {layout.get_out_dim_size(d) - 1}" for d, text in instr.formulas.items()
        }
        verdict = prove_equal(layout, masked, params=dict(instr.params), method="exhaustive")
        if verdict.status == Status.REFUTED:
            assert verdict.counterexample is not None and verdict.actual is not None
            assert verdict.expected is not None
            point = {d: v for d, v in verdict.counterexample.items() if d in self.sizes}
            self.report["counterexample"] = {
                "input": point, "encoding_gives": verdict.actual,
                "instruction_needs": verdict.expected,
            }  # fmt: skip
            self.problems.append(
                f"at {_point_text(point)} the layout holds {tuple(verdict.actual.values())} "
                f"but {instr.name} needs {tuple(verdict.expected.values())}"
            )
        elif verdict.status != Status.PROVED:
            return verdict.reason
        return None

    def _copies(self) -> str | None:
        if self.wanted:
            return None
        instr = self.instr
        copies = k_copies(self.layout, instr)
        if copies is not None:
            self.report["copies"] = copies
            a, b = copies["inputs"]
            self.problems.append(
                f"{_point_text(a)} and {_point_text(b)} both hold element "
                f"{tuple(copies['element'].values())} where {instr.name} needs K = "
                f"{copies['needs'][0][instr.k_dim]} and K = {copies['needs'][1][instr.k_dim]} "
                f"(K is {self.operand.shape[1 - self.index]}, the instruction's K {instr.k})"
            )
        return None


_MMA_ENCODINGS = ("ttg.nvidia_mma", "ttg.amd_mfma", "ttg.amd_wmma", "ttig.dpas")


def check_dot_fragments(ctx: AuditContext, op: Operation) -> None:
    """Each register operand equals the fragments of the instruction Triton selects."""
    tensors = [t for t in op.types if t.kind in ("tensor", "memdesc")]
    if len(tensors) < 3:
        ctx.skip(op, FRAGMENT, "could not read the operand and result types")
        return
    result = tensors[-1]
    if result.encoding_name not in _MMA_ENCODINGS:
        ctx.skip(
            op,
            FRAGMENT,
            "the result is not an MMA layout: Triton lowers this dot with FMA instructions, "
            "which have no operand fragments",
        )
        return
    cache: dict[tuple[Any, ...], dict[str, Any]] = ctx.state.setdefault(FRAGMENT, {})
    reports = []
    for index, operand in enumerate(tensors[:2]):
        if operand.kind == "memdesc":
            continue  # wgmma reads this operand from shared memory: no register fragment
        key = (operand.encoding, operand.shape, operand.element, result.encoding, index)
        if key not in cache:
            cache[key] = _check_operand(ctx, operand, result, index)
        reports.append(cache[key])
    if not reports:
        ctx.skip(op, FRAGMENT, "wgmma reads both operands from shared memory: no register fragment")
        return
    mismatch = _k_mismatch(reports)
    if mismatch is not None:
        reports.append(mismatch)
    statuses = {r["status"] for r in reports}
    status = next(s for s in (Status.ERROR, Status.UNKNOWN, Status.PROVED) if s in statuses)
    summary = "; ".join(r["summary"] for r in reports)
    ctx.finding(op, status, summary, rule=FRAGMENT, data={"operands": reports})


def _k_mismatch(reports: list[dict[str, Any]]) -> dict[str, Any] | None:
    """An error report when A and B are both register operands checked against their
    instructions but permute K differently (kPack in one, not the other, or other kWidths):
    the instruction then multiplies A's K with B's K' != K.  The K step is replayed on both
    permutations."""
    if len(reports) != 2 or any(r["status"] == Status.UNKNOWN for r in reports):
        return None
    perms = [r.get("k_permutation") for r in reports]
    if perms[0] == perms[1]:
        return None
    width = max(len(p or ()) for p in perms)
    for bit in range(width):
        step = 1 << bit
        a, b = (permute_k(p, step) for p in perms)
        if a != b:
            return {
                "operand": "A and B",
                "status": Status.ERROR,
                "k_step": {"instruction_k": step, "a_k": a, "b_k": b},
                "summary": (
                    f"A and B permute K differently (kWidth): instruction K {step} reads "
                    f"A's K {a} but B's K {b}"
                ),
            }
    return None  # the same permutation, one tuple carrying more unchanged high bits


RULES = (
    Rule(
        NAME,
        frozenset({"tt.dot", "ttng.warp_group_dot", "tt.dot_scaled"}),
        check_dot_encodings,
        "register operands are dot_op encodings of the result's layout with the right opIdx",
    ),
    Rule(
        FRAGMENT,
        frozenset({"tt.dot", "ttng.warp_group_dot"}),
        check_dot_fragments,
        "register operands equal the fragments of the instruction Triton selects, with no "
        "copies along K",
    ),
)
