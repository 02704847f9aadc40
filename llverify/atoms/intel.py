"""The Intel atoms: DPAS (XMX) matrix multiply-accumulate on a sub-group of 16 (Xe-HPC / PVC
and Xe2), by the OpenCL built-in that issues it.  CUTLASS has no Intel atoms, so each
fragment is the converter's instance of the instruction (``DpasLayout`` of
intel-xpu-backend-for-triton, :mod:`llverify.encodings.intel_dpas`: one warp, repCluster 1,
threadsPerWarp = executionSize = 16); the formula it is proved against is Intel's
SPV_INTEL_subgroup_matrix_multiply_accumulate mapping (:mod:`llverify.specs.intel_dpas`).

Listed: cl_intel_subgroup_matrix_multiply_accumulate's sub-group-16 functions with an fp32 or
int32 accumulator (fp16, bf16 and the four 8-bit signedness pairs, M = 1, 2, 4, 8) and
cl_intel_subgroup_matrix_multiply_accumulate_tf32's (M = 2, 4, 8).  Not listed: tf32 with
M = 1 (lanes 8-15 are ignored there and the backend refuses that A operand), 4-bit K = 64
(the backend has no opsPerChan 8), the fp16/bf16 accumulators, and the sub-group-8 (Xe-HPG)
functions, whose A the backend does not lay out as the SPIR-V mapping (see
:data:`llverify.specs.intel_dpas.FINDINGS`).

Examples:
    >>> from llverify.atoms.intel import atoms
    >>> found = atoms()
    >>> found[3].name, found[3].operand("A").layout().apply({"register": 3, "lane": 5})
    ('intel_sub_group_f16_f16_matrix_mad_k16_m8', {'dim0': 3, 'dim1': 5})
"""

from __future__ import annotations

from typing import Any

from llverify.atoms.catalogue import Atom, Operand
from llverify.layout import LinearLayout

__all__ = ["atoms"]

#: The targets whose minimum sub-group size is 16 (the backend's executionSize 16).
_ARCH = ("xe-hpc", "xe2")
#: (the built-in's element prefix, opsPerChan, K) of the fp32/int32-accumulator functions.
_KINDS = (
    ("f16_f16", 2, 16),
    ("bf16_bf16", 2, 16),
    ("i8_i8", 4, 32),
    ("i8_u8", 4, 32),
    ("u8_i8", 4, 32),
    ("u8_u8", 4, 32),
    ("tf32_tf32", 1, 8),
)


class _Build:
    """Builds the converter's operand ``index`` on ``shape`` when it is asked for."""

    def __init__(self, encoding: Any, index: int, shape: tuple[int, int]) -> None:
        self.encoding = encoding
        self.index = index
        self.shape = shape

    def __call__(self) -> LinearLayout:
        layout: LinearLayout = self.encoding.operand_layout(self.index, list(self.shape))
        return layout


def _dpas(kind: str, ops: int, k: int, m: int) -> Atom:
    """A DPAS atom: A (M x K), B (K x 16), C (M x 16) of ``intel_sub_group_<kind>_matrix_mad_k<K>``
    with an M-component accumulator."""
    from llverify.encodings.intel_dpas import DpasLayout
    from llverify.specs.intel_dpas import ELEMENT_BITS

    parent = DpasLayout(m, 8, 16, ops, [1, 1], [1, 1], 16)
    bits = ELEMENT_BITS[ops]
    element = "tf32" if bits == 32 else f"{bits}bit"

    ops_ = (
        Operand("A", (m, k), f"sg16_a_{element}", None, _Build(parent, 0, (m, k)), 16),
        Operand("B", (k, 16), f"sg16_b_{element}", None, _Build(parent, 1, (k, 16)), 16),
        Operand("C", (m, 16), "sg16_c", None, _Build(parent, 2, (m, 16)), 16),
    )
    name = f"intel_sub_group_{kind}_matrix_mad_k{k}_m{m}"
    source = f"converter: DpasLayout(repeatCount {m}, executionSize 16, opsPerChan {ops}, "
    source += "threadsPerWarp 16) operands A, B, C, llverify.encodings.intel_dpas"
    return Atom(name, "dpas", f"intel_sub_group_{kind}_matrix_mad_k{k}", _ARCH, (m, 16, k),
                ops_, source)  # fmt: skip


def atoms() -> list[Atom]:
    """Every Intel atom, in catalogue order."""
    return [
        _dpas(kind, ops, k, m)
        for kind, ops, k in _KINDS
        for m in (1, 2, 4, 8)
        if not (ops == 1 and m == 1)
    ]
