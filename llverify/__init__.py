"""llverify: verify and synthesize GPU tensor layouts (Triton linear layouts) by proof."""

from llverify.column_action import ColumnAction
from llverify.conversion import Conversion, conversion
from llverify.encodings import to_linear_layout
from llverify.errors import (
    DimensionError,
    LayoutError,
    LayoutTypeError,
    LLVerifyError,
    NotInvertibleError,
    ParseError,
)
from llverify.layout import LinearLayout
from llverify.layout_utils import (
    divide_left,
    divide_right,
    ensure_layout_not_larger_than,
    ensure_layout_not_smaller_than,
    identity_standard_nd,
    lstsq,
    supremum,
    zeros_like,
)
from llverify.ops import IntOps, NumpyOps, Ops
from llverify.proof.explain import explain
from llverify.proof.family import LayoutFamily, swizzled_shared_2d
from llverify.proof.formula import Formula, FormulaError
from llverify.proof.structure import (
    broadcast_bits,
    check_distributed,
    check_injective,
    check_memory_layout,
    check_surjective,
)
from llverify.proof.verdict import ProofFailure, Status, Verdict
from llverify.prove import prove_equal, prove_family_equal, prove_family_property
from llverify.shared_memory.access import access_analysis, bank_conflicts
from llverify.shared_memory.predict import predict_wavefronts

__version__ = "0.1.0"

__all__ = [
    "ColumnAction",
    "Conversion",
    "Formula",
    "FormulaError",
    "IntOps",
    "LayoutFamily",
    "NumpyOps",
    "Ops",
    "ProofFailure",
    "Status",
    "Verdict",
    "DimensionError",
    "LLVerifyError",
    "LayoutError",
    "LayoutTypeError",
    "LinearLayout",
    "NotInvertibleError",
    "ParseError",
    "access_analysis",
    "bank_conflicts",
    "broadcast_bits",
    "check_distributed",
    "check_injective",
    "check_memory_layout",
    "check_surjective",
    "conversion",
    "divide_left",
    "divide_right",
    "ensure_layout_not_larger_than",
    "ensure_layout_not_smaller_than",
    "explain",
    "identity_standard_nd",
    "lstsq",
    "prove_equal",
    "prove_family_equal",
    "prove_family_property",
    "supremum",
    "swizzled_shared_2d",
    "predict_wavefronts",
    "to_linear_layout",
    "zeros_like",
]
