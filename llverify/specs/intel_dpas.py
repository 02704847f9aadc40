"""References for Intel DPAS register fragments (A, B, C of one ``#ttig.dpas`` instruction),
and the obligations that tie llverify's converter (llverify/encodings/intel_dpas.py) to them.

Each reference is a closed form ``{out_dim: formula}`` over the in dims ``register`` and
``lane`` (one warp, one instruction tile).  ``register`` is the index of an element in the
work item's fragment, counting the values packed in one component separately, lower bits
first: component ``c`` holding ``p`` packed values gives registers ``p c .. p c + p - 1``.

Primary sources (Intel's public documents; each formula below cites its rule):

* [SPV] SPV_INTEL_subgroup_matrix_multiply_accumulate (Khronos SPIR-V registry,
  extensions/INTEL/SPV_INTEL_subgroup_matrix_multiply_accumulate.asciidoc, revision 1,
  2025-01-07), section "Mapping Matrix Data to Invocations": N is the number of invocations
  in the sub-group; A's K columns are passed by the invocations, lower invocations passing
  lower columns, each component one row (N = K: one column per invocation; N < K: K / N
  columns packed per row component, lower columns in lower bits; N > K: every other row,
  the lower invocations the even rows); B's column ``n`` is passed by invocation ``n``,
  lower rows in lower components and, for elements of 16 bits or less, in the lower bits of
  each 32-bit component ("VNNI"); C and the result: invocation ``n`` holds column ``n``,
  component ``m`` row ``m``.
* [OCL] cl_intel_subgroup_matrix_multiply_accumulate (Khronos OpenCL registry, revision
  1.1.0): the shapes per device class.  Devices whose minimum sub-group size is 16 (the
  backend's executionSize 16: Xe-HPC / PVC, and Xe2) take M = 1, 2, 4, 8, N = 16 and
  K = 32 (8-bit), 16 (fp16, bf16); devices whose minimum sub-group size is 8 (Xe-HPG /
  ATS-M, DG2; the backend's executionSize 8) take N = 8 and the same K.
* [TF32] cl_intel_subgroup_matrix_multiply_accumulate_tf32 (revision 1.0.0): K = 8 with
  N = 16, A passed as ``ceil(M / 2)`` floats: "the first K work-items contribute the even
  rows of the matrix a, and the remaining work-items contribute the odd rows".
* [TD] intel-xpu-backend-for-triton v3.7.2, TritonIntelGPUAttrDefs.td, the
  ``DpasEncodingAttr`` description: its tiling example (warps, repCluster, repetitions).
  The device-class names come from the backend's ``DpasEncodingAttr`` description
  (TritonIntelGPUAttrDefs.td, v3.7.2: "executionSize For PVC, the size is 16. For ATSM, the
  size is 8"): Triton's documentation, a secondary source.

The backend's opsPerChan 4, 2, 1 are 8-, 16- and 32-bit (tf32) A/B elements: K = 8 opsPerChan.

What is proved: for sub-group 16 (Xe-HPC and Xe2), every M in {1, 2, 4, 8} and every element
size, the converter's A, B and C layouts of one instruction (``threadsPerWarp`` =
``executionSize`` = 16, one warp, repCluster 1) equal the [SPV]/[TF32] mapping, except tf32
A with M = 1 (the backend's dot-operand verifier refuses it; [TF32] ignores lanes 8-15 there).
The [TD] tiling example (2 x 2 warps, repCluster 2 x 2, A, B and C of a 64 x 32 x 128
dot) is proved too, and so are three parametric families for all their members at once:
:func:`accumulator_family` (every repeatCount, repCluster, warp grid and repetition up to 4
per dim), :func:`operand_a_family` and :func:`operand_b_family` (16- and 8-bit, likewise),
each a transcription of the converter's bases checked equal to it member by member (tests).
For sub-group 8 (Xe-HPG) B and C are proved; A is *not* the [SPV] mapping (see
:data:`FINDINGS`).  Nothing here speaks of ``threadsPerWarp`` 32 (two lanes per column:
a software convention of the backend; [SPV] defines N as the sub-group size, 8 or 16).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llverify.proof.family import LayoutFamily
from llverify.proof.obligation import Call
from llverify.proof.obligation import Obligation as LibraryObligation
from llverify.proof.verdict import Status
from llverify.specs import claims

#: The sub-group sizes of [OCL]: 16 (Xe-HPC, Xe2) and 8 (Xe-HPG).
SUB_GROUP_SIZES = (16, 8)
#: M values of [OCL] / [SPV].
REPEAT_COUNTS = (1, 2, 4, 8)
#: opsPerChan -> element bits of A and B.
ELEMENT_BITS = {4: 8, 2: 16, 1: 32}


def _log2(value: int) -> int:
    return value.bit_length() - 1


def a_reference(ops: int, n: int = 16) -> dict[str, str]:
    """[SPV] Matrix A (M x K, K = 8 ops) passed by ``n`` invocations: row and column of
    register ``r`` in lane ``l``.

    Examples:
        >>> a_reference(2)
        {'dim0': 'register', 'dim1': 'lane'}
        >>> a_reference(4)
        {'dim0': 'register >> 1', 'dim1': '2 * lane + (register & 1)'}
        >>> a_reference(1)
        {'dim0': '2 * register + (lane >> 3)', 'dim1': 'lane & 7'}
    """
    k = 8 * ops
    if n == k:  # one column per invocation, component m = row m
        return {"dim0": "register", "dim1": "lane"}
    if n < k:  # K / N columns packed per row component, lower columns in lower bits
        p = k // n
        return {"dim0": f"register >> {_log2(p)}", "dim1": f"{p} * lane + (register & {p - 1})"}
    # N > K: N / K invocation groups take rows in turn (the lower ones the even rows)
    q = n // k
    return {"dim0": f"{q} * register + (lane >> {_log2(k)})", "dim1": f"lane & {k - 1}"}


def b_reference() -> dict[str, str]:
    """[SPV] Matrix B (K x N): invocation ``n`` passes column ``n``; rows in order over the
    components and, packed, over the low-to-high bits of each (VNNI): register = row."""
    return {"dim0": "register", "dim1": "lane"}


def c_reference() -> dict[str, str]:
    """[SPV] Matrix C and the result (M x N): invocation ``n`` holds column ``n``,
    component ``m`` row ``m``."""
    return {"dim0": "register", "dim1": "lane"}


def _name(operand: str, ops: int, m: int | None, n: int) -> str:
    bits = ELEMENT_BITS[ops]
    kind = "tf32" if bits == 32 else f"{bits}bit"
    rows = "" if m is None else f"_m{m}"
    return f"sg{n}_{operand}_{kind}{rows}"


#: name -> {out_dim: formula}: the [SPV] mapping for each (operand, element size, sub-group
#: size); A's depends on K and N only, B's and C's on neither (M sets the ranges).
REFERENCES: dict[str, dict[str, str]] = {
    **{_name("a", ops, None, n): a_reference(ops, n) for n in (16, 8) for ops in (4, 2, 1)},
    **{_name("b", ops, None, n): b_reference() for n in (16, 8) for ops in (4, 2, 1)},
    "sg16_c": c_reference(),
    "sg8_c": c_reference(),
}
del REFERENCES["sg8_a_tf32"], REFERENCES["sg8_b_tf32"]  # [TF32] is for sub-group 16 only

# [TD] the tiling example of the backend's DpasEncodingAttr description (secondary: the
# warp and repetition arrangement is a software convention, not a hardware fact):
# ``tt.dot`` [64, 32] x [32, 128] of fp16 with repeatCount 8, executionSize 16, opsPerChan 2,
# threadsPerWarp 16, warpsPerCTA [2, 2] (warp bit 0 along N, bit 1 along M) and repCluster
# [2, 2]: its figure numbers the instruction tiles R of a warp (bit 0 the N cluster, bit 1
# the M cluster, bit 2 the next N repetition, bit 3 the next M repetition for C; A and B
# likewise, K before the non-K dim); one tile is the [SPV] fragment above, 8 registers.
REFERENCES.update(
    {
        "td_c_2x2warps_cluster2x2_64x128": {
            "dim0": "(register & 7) + 8 * ((register >> 4) & 1) + 16 * (warp >> 1)"
            " + 32 * (register >> 6)",
            "dim1": "lane + 16 * ((register >> 3) & 1) + 32 * (warp & 1)"
            " + 64 * ((register >> 5) & 1)",
        },
        "td_a_2x2warps_cluster2x2_64x32": {
            "dim0": "(register & 7) + 8 * ((register >> 3) & 1) + 16 * (warp >> 1)"
            " + 32 * (register >> 5)",
            "dim1": "lane + 16 * ((register >> 4) & 1)",
        },
        "td_b_2x2warps_cluster2x2_32x128": {
            "dim0": "(register & 15) + 16 * ((register >> 5) & 1)",
            "dim1": "lane + 16 * ((register >> 4) & 1) + 32 * (warp & 1) + 64 * (register >> 6)",
        },
    }
)

#: Deliberately wrong references shaped like layout bugs: each must be refuted.
WRONG_REFERENCES: dict[str, dict[str, str]] = {
    # 8-bit A with a lane's two bytes on columns l and l + 16 (not packed as a pair).
    "sg16_a_8bit_not_packed": {"dim0": "register >> 1", "dim1": "lane + 16 * (register & 1)"},
    # tf32 A (M = 8) with the upper half-sub-group on the lower rows 4-7 instead of the odd
    # rows ([TF32]: "every other row").
    "sg16_a_tf32_halves_not_interleaved": {
        "dim0": "register + 4 * (lane >> 3)",
        "dim1": "lane & 7",
    },
    # 16-bit B read as if unpacked: component c holding rows c and c + 8, not 2c and 2c + 1.
    "sg16_b_16bit_not_vnni": {
        "dim0": "(register >> 1) + 8 * (register & 1)",
        "dim1": "lane",
    },
    # The accumulator with lane bits 0 and 1 swapped.
    "sg16_c_lane_bits_swapped": {
        "dim0": "register",
        "dim1": "((lane & 1) << 1) + ((lane >> 1) & 1) + (lane & 12)",
    },
    # [TD]'s accumulator with the warps M-first (warp bit 0 along M) instead of N-first.
    "td_c_warps_m_first": {
        "dim0": "(register & 7) + 8 * ((register >> 4) & 1) + 16 * (warp & 1)"
        " + 32 * (register >> 6)",
        "dim1": "lane + 16 * ((register >> 3) & 1) + 32 * (warp >> 1) + 64 * ((register >> 5) & 1)",
    },
    # The accumulator read as C transposed (rows over the lanes).
    "sg16_c_transposed": {"dim0": "lane & 7", "dim1": "register + 8 * (lane >> 3)"},
}


@dataclass(frozen=True)
class Instance:
    """A converter instance: ``DpasLayout(repeat_count, 8, execution_size, ops, warps,
    cluster, threads_per_warp)`` and the operand (0 A, 1 B, 2 C), on ``tensor`` (by default
    the instruction's shape)."""

    repeat_count: int
    ops_per_channel: int
    operand: int
    execution_size: int = 16
    threads_per_warp: int = 16
    warps: tuple[int, int] = (1, 1)
    cluster: tuple[int, int] = (1, 1)
    tensor: tuple[int, int] | None = None

    @property
    def shape(self) -> tuple[int, int]:
        if self.tensor is not None:
            return self.tensor
        m, n, k = self.repeat_count, self.execution_size, 8 * self.ops_per_channel
        return ((m, k), (k, n), (m, n))[self.operand]


@dataclass(frozen=True)
class Obligation:
    """``instance`` on its instruction shape must equal ``reference`` (``expect`` "proved"),
    or differ from it (a negative control, or a finding: ``expect`` "refuted")."""

    name: str
    instance: Instance
    reference: str
    expect: Status = Status.PROVED

    def formulas(self) -> dict[str, str]:
        if self.reference in WRONG_REFERENCES:
            return WRONG_REFERENCES[self.reference]
        return REFERENCES[self.reference]


def _instruction_obligations() -> tuple[Obligation, ...]:
    """A for sub-group 16, every element size and M (but tf32 with M = 1); B for every
    sub-group and element size (B does not depend on M); C for every sub-group and M."""
    result = []
    for ops in (4, 2, 1):
        bits = ELEMENT_BITS[ops]
        for m in REPEAT_COUNTS:
            if not (ops == 1 and m == 1):
                name = f"A, sub-group 16, {bits}-bit, M {m}"
                result.append(Obligation(name, Instance(m, ops, 0), _name("a", ops, None, 16)))
    for n in SUB_GROUP_SIZES:
        for ops in (4, 2, 1) if n == 16 else (4, 2):  # no tf32 on sub-group 8 ([TF32])
            name = f"B, sub-group {n}, {ELEMENT_BITS[ops]}-bit"
            result.append(Obligation(name, Instance(8, ops, 1, n, n), _name("b", ops, None, n)))
        for m in REPEAT_COUNTS:
            name = f"C, sub-group {n}, M {m}"
            result.append(Obligation(name, Instance(m, 2, 2, n, n), f"sg{n}_c"))
    for operand, tensor, reference in (
        (2, (64, 128), "td_c_2x2warps_cluster2x2_64x128"),
        (0, (64, 32), "td_a_2x2warps_cluster2x2_64x32"),
        (1, (32, 128), "td_b_2x2warps_cluster2x2_32x128"),
    ):
        instance = Instance(8, 2, operand, warps=(2, 2), cluster=(2, 2), tensor=tensor)
        result.append(Obligation(f"{'ABC'[operand]}, [TD] tiling example", instance, reference))
    return tuple(result)


#: Every proved obligation: one per (sub-group size, element size, M, operand).
OBLIGATIONS: tuple[Obligation, ...] = _instruction_obligations()

#: Negative controls: each must be refuted with a register/lane counterexample.
NEGATIVE_CONTROLS: tuple[Obligation, ...] = (
    Obligation("A 8-bit, M 8", Instance(8, 4, 0), "sg16_a_8bit_not_packed", Status.REFUTED),
    Obligation(
        "A tf32, M 8", Instance(8, 1, 0), "sg16_a_tf32_halves_not_interleaved", Status.REFUTED
    ),
    Obligation("B 16-bit, M 8", Instance(8, 2, 1), "sg16_b_16bit_not_vnni", Status.REFUTED),
    Obligation("C, M 8", Instance(8, 2, 2), "sg16_c_lane_bits_swapped", Status.REFUTED),
    Obligation("C, M 8", Instance(8, 2, 2), "sg16_c_transposed", Status.REFUTED),
    Obligation(
        "C, [TD] tiling example",
        Instance(8, 2, 2, warps=(2, 2), cluster=(2, 2), tensor=(64, 128)),
        "td_c_warps_m_first",
        Status.REFUTED,
    ),
)

#: Where the backend's layout is not the vendor mapping.  Sub-group 8 (Xe-HPG, ATS-M; the
#: backend's AccelerateMatmul makes threadsPerWarp = executionSize = 8 there, lit test
#: test/TritonIntelGPU/accelerate-matmul-ats.mlir): ``DPASLaneBasesA`` spreads the 16
#: (8-bit: 16 packed) columns of A over 16 lane positions of an 8-lane sub-group, where
#: [SPV] packs K / N = 2 (4) columns into each invocation's 32-bit row component.  The
#: backend may lower these operands by other means; what is refuted is only that its
#: LinearLayout is the [SPV] mapping.
FINDINGS: tuple[Obligation, ...] = (
    Obligation(
        "A, sub-group 8, 16-bit, M 8", Instance(8, 2, 0, 8, 8), "sg8_a_16bit", Status.REFUTED
    ),
    Obligation("A, sub-group 8, 8-bit, M 8", Instance(8, 4, 0, 8, 8), "sg8_a_8bit", Status.REFUTED),
)


def encoding(instance: Instance) -> Any:
    """The ``DpasLayout`` of ``instance``."""
    from llverify.encodings.intel_dpas import DpasLayout

    return DpasLayout(
        instance.repeat_count,
        8,
        instance.execution_size,
        instance.ops_per_channel,
        list(instance.warps),
        list(instance.cluster),
        instance.threads_per_warp,
    )


def layout(instance: Instance) -> Any:
    """The LinearLayout of ``instance``'s operand on its instruction shape."""
    return encoding(instance).operand_layout(instance.operand, list(instance.shape))


# ---------------------------------------------------------------------- parametric family


def accumulator_family(max_log2: int = 2) -> LayoutFamily:
    """The backend's DPAS accumulator on a sub-group of 16 (threadsPerWarp = executionSize =
    16) for every repeatCount ``2**lm`` (1 to 8), repCluster ``2**lcm x 2**lcn``, warp grid
    ``2**lwm x 2**lwn`` and repetitions ``2**lrm x 2**lrn`` (each up to ``2**max_log2``), on
    the shape they cover exactly, transcribed from ``DPAStoLinearLayout``'s bases (operand C):
    register bits: ``lm`` rows of the tile, ``lcn`` then ``lcm`` cluster bits (N first),
    ``lrn`` then ``lrm`` repetitions (N first); 16 lanes on the columns; warps N first.

    Members equal the converter (see the tests) and :data:`ACCUMULATOR_FAMILY_REFERENCE`.

    Examples:
        >>> family = accumulator_family(1)
        >>> dict(family.instance(lm=3, lcm=0, lcn=1, lwm=1, lwn=0, lrm=0, lrn=0).bases)["warp"]
        [[8, 0]]
    """
    m = "(1 << lm)"
    # (shift amounts kept non-negative: the branches not taken are evaluated too)
    n_cluster = "(16 << max(i - lm, 0))"
    m_cluster = f"({m} << max(i - lm - lcn, 0))"
    n_rep = "((16 << (lcn + lwn)) << max(i - lm - lcn - lcm, 0))"
    m_rep = f"(({m} << (lcm + lwm)) << max(i - lm - lcn - lcm - lrn, 0))"
    c1, c2, c3 = "lm + lcn", "lm + lcn + lcm", "lm + lcn + lcm + lrn"
    limits = {name: (0, max_log2) for name in ("lcm", "lcn", "lwm", "lwn", "lrm", "lrn")}
    return LayoutFamily(
        name="dpas_accumulator",
        params={"lm": (0, 3), **limits},
        in_dims={
            "register": "lm + lcn + lcm + lrn + lrm",
            "lane": "4",
            "warp": "lwm + lwn",
            "block": "0",
        },
        out_dims={"dim0": "lm + lcm + lwm + lrm", "dim1": "4 + lcn + lwn + lrn"},
        bases={
            "register": {
                "dim0": f"(1 << i) if i < lm else (0 if i < {c1} else ({m_cluster} if i < {c2} "
                f"else (0 if i < {c3} else {m_rep})))",
                "dim1": f"0 if i < lm else ({n_cluster} if i < {c1} else (0 if i < {c2} else "
                f"({n_rep} if i < {c3} else 0)))",
            },
            "lane": {"dim0": "0", "dim1": "1 << i"},
            "warp": {
                "dim0": f"0 if i < lwn else (({m} << lcm) << max(i - lwn, 0))",
                "dim1": "((16 << lcn) << i) if i < lwn else 0",
            },
            "block": {"dim0": "0", "dim1": "0"},
        },
    )


def accumulator_family_member(
    lm: int, lcm: int, lcn: int, lwm: int, lwn: int, lrm: int, lrn: int
) -> tuple[Any, tuple[int, int]]:
    """The converter instance (encoding, shape) of one member of :func:`accumulator_family`."""
    from llverify.encodings.intel_dpas import DpasLayout

    dpas = DpasLayout(1 << lm, 8, 16, 2, [1 << lwm, 1 << lwn], [1 << lcm, 1 << lcn], 16)
    return dpas, (1 << (lm + lcm + lwm + lrm), 16 << (lcn + lwn + lrn))


#: [SPV]'s C fragment (register = row, lane = column) tiled as [TD] describes: the cluster
#: (N, then M), the warps (N first), the repetitions (N, then M).
ACCUMULATOR_FAMILY_REFERENCE = {
    "dim0": "(register & ((1 << lm) - 1)) + (1 << lm) * ((register >> (lm + lcn)) & "
    "((1 << lcm) - 1)) + (1 << (lm + lcm)) * (warp >> lwn) + (1 << (lm + lcm + lwm)) * "
    "(register >> (lm + lcn + lcm + lrn))",
    "dim1": "lane + 16 * ((register >> lm) & ((1 << lcn) - 1)) + (16 << lcn) * (warp & "
    "((1 << lwn) - 1)) + (16 << (lcn + lwn)) * ((register >> (lm + lcn + lcm)) & "
    "((1 << lrn) - 1))",
}
#: Negative control: the repCluster bits M first (as if the cluster were walked along M
#: before N).
ACCUMULATOR_FAMILY_REFERENCE_CLUSTER_M_FIRST = {
    "dim0": "(register & ((1 << lm) - 1)) + (1 << lm) * ((register >> lm) & "
    "((1 << lcm) - 1)) + (1 << (lm + lcm)) * (warp >> lwn) + (1 << (lm + lcm + lwm)) * "
    "(register >> (lm + lcn + lcm + lrn))",
    "dim1": "lane + 16 * ((register >> (lm + lcm)) & ((1 << lcn) - 1)) + (16 << lcn) * (warp & "
    "((1 << lwn) - 1)) + (16 << (lcn + lwn)) * ((register >> (lm + lcn + lcm)) & "
    "((1 << lrn) - 1))",
}


def operand_a_family(max_log2: int = 2) -> LayoutFamily:
    """The backend's 16- and 8-bit DPAS A operand (``2**lp`` values packed per lane: opsPerChan
    ``2 << lp``, K = ``16 << lp``) on a sub-group of 16, for every repeatCount ``2**lm``,
    repCluster ``2**lcm`` along M, warp grid ``2**lwm x 2**lwn`` and repetitions ``2**lrm``
    (M) x ``2**lrk`` (K), transcribed from ``DPAStoLinearLayout``'s bases (operand A):
    register bits: ``lp`` packed K, ``lm`` rows, ``lcm`` cluster, ``lrk`` then ``lrm``
    repetitions (K first); lanes on K; warps along N broadcast (zeros), then along M.

    Examples:
        >>> family = operand_a_family(1)
        >>> dict(family.instance(lp=1, lm=1, lcm=0, lwm=0, lwn=1, lrm=0, lrk=0).bases)["warp"]
        [[0, 0]]
    """
    m = "(1 << lm)"
    c1, c2, c3 = "lp + lm", "lp + lm + lcm", "lp + lm + lcm + lrk"
    limits = {name: (0, max_log2) for name in ("lcm", "lwm", "lwn", "lrm", "lrk")}
    return LayoutFamily(
        name="dpas_operand_a",
        params={"lp": (0, 1), "lm": (0, 3), **limits},
        in_dims={"register": f"{c3} + lrm", "lane": "4", "warp": "lwm + lwn", "block": "0"},
        out_dims={"dim0": "lm + lcm + lwm + lrm", "dim1": "4 + lp + lrk"},
        bases={
            "register": {
                "dim0": f"0 if i < lp else ((1 << max(i - lp, 0)) if i < {c1} else "
                f"(({m} << max(i - ({c1}), 0)) if i < {c2} else (0 if i < {c3} else "
                f"(({m} << (lcm + lwm)) << max(i - ({c3}), 0)))))",
                "dim1": f"(1 << i) if i < lp else (0 if i < {c2} else "
                f"(((16 << lp) << max(i - ({c2}), 0)) if i < {c3} else 0))",
            },
            "lane": {"dim0": "0", "dim1": "(1 << lp) << i"},
            "warp": {"dim0": f"0 if i < lwn else (({m} << lcm) << max(i - lwn, 0))", "dim1": "0"},
            "block": {"dim0": "0", "dim1": "0"},
        },
    )


def operand_a_family_member(
    lp: int, lm: int, lcm: int, lwm: int, lwn: int, lrm: int, lrk: int
) -> tuple[Any, tuple[int, int]]:
    """The converter instance (the A ``DotOperandLayout``, shape) of one member of
    :func:`operand_a_family`."""
    from llverify.encodings.blocked import DotOperandLayout
    from llverify.encodings.intel_dpas import DpasLayout

    dpas = DpasLayout(1 << lm, 8, 16, 2 << lp, [1 << lwm, 1 << lwn], [1 << lcm, 1], 16)
    return DotOperandLayout(0, dpas, 1 << lp), (1 << (lm + lcm + lwm + lrm), 16 << (lp + lrk))


def operand_b_family(max_log2: int = 2) -> LayoutFamily:
    """The backend's 16- and 8-bit DPAS B operand (K = ``16 << lp``) on a sub-group of 16,
    for every repCluster ``2**lcn`` along N, warp grid ``2**lwm x 2**lwn`` and repetitions
    ``2**lrk`` (K) x ``2**lrn`` (N), transcribed from ``DPAStoLinearLayout``'s bases
    (operand B): register bits: K rows, ``lcn`` cluster, ``lrk`` then ``lrn`` repetitions;
    lanes on N; warps along N, then along M broadcast (zeros).

    Examples:
        >>> family = operand_b_family(1)
        >>> dict(family.instance(lp=0, lcn=1, lwm=1, lwn=1, lrk=0, lrn=0).bases)["warp"]
        [[0, 32], [0, 0]]
    """
    c1, c2 = "4 + lp + lcn", "4 + lp + lcn + lrk"
    limits = {name: (0, max_log2) for name in ("lcn", "lwm", "lwn", "lrk", "lrn")}
    return LayoutFamily(
        name="dpas_operand_b",
        params={"lp": (0, 1), **limits},
        in_dims={"register": f"{c2} + lrn", "lane": "4", "warp": "lwm + lwn", "block": "0"},
        out_dims={"dim0": "4 + lp + lrk", "dim1": "4 + lcn + lwn + lrn"},
        bases={
            "register": {
                "dim0": f"(1 << i) if i < 4 + lp else (0 if i < {c1} else "
                f"(((16 << lp) << max(i - ({c1}), 0)) if i < {c2} else 0))",
                "dim1": f"0 if i < 4 + lp else ((16 << max(i - 4 - lp, 0)) if i < {c1} else "
                f"(0 if i < {c2} else ((16 << (lcn + lwn)) << max(i - ({c2}), 0))))",
            },
            "lane": {"dim0": "0", "dim1": "1 << i"},
            "warp": {"dim0": "0", "dim1": "((16 << lcn) << i) if i < lwn else 0"},
            "block": {"dim0": "0", "dim1": "0"},
        },
    )


def operand_b_family_member(
    lp: int, lcn: int, lwm: int, lwn: int, lrk: int, lrn: int
) -> tuple[Any, tuple[int, int]]:
    """The converter instance (the B ``DotOperandLayout``, shape) of one member of
    :func:`operand_b_family`."""
    from llverify.encodings.blocked import DotOperandLayout
    from llverify.encodings.intel_dpas import DpasLayout

    dpas = DpasLayout(8, 8, 16, 2 << lp, [1 << lwm, 1 << lwn], [1, 1 << lcn], 16)
    return DotOperandLayout(1, dpas, 2 << lp), (16 << (lp + lrk), 16 << (lcn + lwn + lrn))


#: [SPV]'s A fragment (``a_reference``: K / 16 values packed per lane) tiled: the cluster
#: along M, the warps along M (those along N share A), the repetitions (K, then M).
OPERAND_A_FAMILY_REFERENCE = {
    "dim0": "((register >> lp) & ((1 << lm) - 1)) + (1 << lm) * ((register >> (lp + lm)) & "
    "((1 << lcm) - 1)) + (1 << (lm + lcm)) * (warp >> lwn) + (1 << (lm + lcm + lwm)) * "
    "(register >> (lp + lm + lcm + lrk))",
    "dim1": "(register & ((1 << lp) - 1)) + (1 << lp) * lane + (16 << lp) * "
    "((register >> (lp + lm + lcm)) & ((1 << lrk) - 1))",
}
#: Negative control: A's repetitions M first, then K (the backend repeats along K first).
OPERAND_A_FAMILY_REFERENCE_M_REPS_FIRST = {
    "dim0": "((register >> lp) & ((1 << lm) - 1)) + (1 << lm) * ((register >> (lp + lm)) & "
    "((1 << lcm) - 1)) + (1 << (lm + lcm)) * (warp >> lwn) + (1 << (lm + lcm + lwm)) * "
    "((register >> (lp + lm + lcm)) & ((1 << lrm) - 1))",
    "dim1": "(register & ((1 << lp) - 1)) + (1 << lp) * lane + (16 << lp) * "
    "(register >> (lp + lm + lcm + lrm))",
}
#: [SPV]'s B fragment (register = K row) tiled: the cluster along N, the warps along N (those
#: along M share B), the repetitions (K, then N).
OPERAND_B_FAMILY_REFERENCE = {
    "dim0": "(register & ((16 << lp) - 1)) + (16 << lp) * ((register >> (4 + lp + lcn)) & "
    "((1 << lrk) - 1))",
    "dim1": "lane + 16 * ((register >> (4 + lp)) & ((1 << lcn) - 1)) + (16 << lcn) * (warp & "
    "((1 << lwn) - 1)) + (16 << (lcn + lwn)) * (register >> (4 + lp + lcn + lrk))",
}


# ---------------------------------------------------------------------- the library

_SOURCE = "specs/intel_dpas.py"


def _obligation(ob: Obligation) -> LibraryObligation:
    relation = "vs" if ob.expect == Status.REFUTED else "=="
    if ob.expect != Status.REFUTED:
        note = ""
    elif ob in FINDINGS:
        note = " (finding: not the SPIR-V mapping)"
    else:
        note = " (negative control)"
    return claims.equivalence(
        f"intel_dpas: {ob.name} on {list(ob.instance.shape)} {relation} {ob.reference}{note}",
        _SOURCE,
        Call(layout, ob.instance),
        ob.formulas(),
        expect=Status(ob.expect),
    )


_FAMILY_SCOPE = "every repeatCount, repCluster, warp grid and repetition <= 4 per dim"

#: The module's obligations in the built-in library: :data:`OBLIGATIONS`, then
#: :data:`NEGATIVE_CONTROLS` (the findings stay in the tests: they are not controls), then the
#: accumulator family and its control.
LIBRARY = (
    *(_obligation(ob) for ob in (*OBLIGATIONS, *NEGATIVE_CONTROLS)),
    claims.family(
        f"intel_dpas: accumulator family, {_FAMILY_SCOPE}, == ACCUMULATOR_FAMILY_REFERENCE",
        _SOURCE,
        accumulator_family,
        ACCUMULATOR_FAMILY_REFERENCE,
    ),
    claims.family(
        f"intel_dpas: operand A family (16- and 8-bit), {_FAMILY_SCOPE}, == "
        "OPERAND_A_FAMILY_REFERENCE",
        _SOURCE,
        operand_a_family,
        OPERAND_A_FAMILY_REFERENCE,
    ),
    claims.family(
        f"intel_dpas: operand A family (16- and 8-bit), {_FAMILY_SCOPE}, vs "
        "OPERAND_A_FAMILY_REFERENCE_M_REPS_FIRST (negative control)",
        _SOURCE,
        operand_a_family,
        OPERAND_A_FAMILY_REFERENCE_M_REPS_FIRST,
        expect=Status.REFUTED,
    ),
    claims.family(
        f"intel_dpas: operand B family (16- and 8-bit), {_FAMILY_SCOPE}, == "
        "OPERAND_B_FAMILY_REFERENCE",
        _SOURCE,
        operand_b_family,
        OPERAND_B_FAMILY_REFERENCE,
    ),
    claims.family(
        f"intel_dpas: accumulator family, {_FAMILY_SCOPE}, vs "
        "ACCUMULATOR_FAMILY_REFERENCE_CLUSTER_M_FIRST (negative control)",
        _SOURCE,
        accumulator_family,
        ACCUMULATOR_FAMILY_REFERENCE_CLUSTER_M_FIRST,
        expect=Status.REFUTED,
    ),
)
