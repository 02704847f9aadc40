"""llverify: verify and synthesize GPU tensor layouts (Triton linear layouts) by proof.

The public names below are imported on first use (PEP 562), so that ``import llverify`` and
the command line's ``--help`` do not pay for numpy and the layout machinery up front;
``benchmarks/bench_import.py`` measures it.  Submodules are reachable as attributes too
(``llverify.encodings`` imports :mod:`llverify.encodings`), except ``llverify.conversion``,
which is the function :func:`llverify.conversion.conversion`, as it always was.

Examples:
    >>> import llverify
    >>> llverify.LinearLayout.identity_1d(4, "lane", "dim0").get_in_dim_size("lane")
    4
    >>> llverify.no_such_name
    Traceback (most recent call last):
    ...
    AttributeError: module 'llverify' has no attribute 'no_such_name'
"""

from __future__ import annotations

import importlib
import sys
import types

#: typing.TYPE_CHECKING without importing typing (type checkers read the name as True)
TYPE_CHECKING = False
if TYPE_CHECKING:  # what the lazy names are, for type checkers and readers
    from typing import Any

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
    from llverify.global_memory import best_register_layout, coalescing
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
    from llverify.shared_memory.access import (
        access_analysis,
        bank_conflicts,
        warp_bank_conflicts,
    )
    from llverify.shared_memory.predict import predict_wavefronts

__version__ = "0.1.0"

#: The module each public name is imported from on first use.
_LAZY = {
    "ColumnAction": "llverify.column_action",
    "Conversion": "llverify.conversion",
    "conversion": "llverify.conversion",
    "to_linear_layout": "llverify.encodings",
    "DimensionError": "llverify.errors",
    "LayoutError": "llverify.errors",
    "LayoutTypeError": "llverify.errors",
    "LLVerifyError": "llverify.errors",
    "NotInvertibleError": "llverify.errors",
    "ParseError": "llverify.errors",
    # issue 28, global-memory coalescing (docs/coalescing.md)
    "best_register_layout": "llverify.global_memory",
    "coalescing": "llverify.global_memory",
    "LinearLayout": "llverify.layout",
    "divide_left": "llverify.layout_utils",
    "divide_right": "llverify.layout_utils",
    "ensure_layout_not_larger_than": "llverify.layout_utils",
    "ensure_layout_not_smaller_than": "llverify.layout_utils",
    "identity_standard_nd": "llverify.layout_utils",
    "lstsq": "llverify.layout_utils",
    "supremum": "llverify.layout_utils",
    "zeros_like": "llverify.layout_utils",
    "IntOps": "llverify.ops",
    "NumpyOps": "llverify.ops",
    "Ops": "llverify.ops",
    "explain": "llverify.proof.explain",
    "LayoutFamily": "llverify.proof.family",
    "swizzled_shared_2d": "llverify.proof.family",
    "Formula": "llverify.proof.formula",
    "FormulaError": "llverify.proof.formula",
    "broadcast_bits": "llverify.proof.structure",
    "check_distributed": "llverify.proof.structure",
    "check_injective": "llverify.proof.structure",
    "check_memory_layout": "llverify.proof.structure",
    "check_surjective": "llverify.proof.structure",
    "ProofFailure": "llverify.proof.verdict",
    "Status": "llverify.proof.verdict",
    "Verdict": "llverify.proof.verdict",
    "prove_equal": "llverify.prove",
    "prove_family_equal": "llverify.prove",
    "prove_family_property": "llverify.prove",
    "access_analysis": "llverify.shared_memory.access",
    "bank_conflicts": "llverify.shared_memory.access",
    "warp_bank_conflicts": "llverify.shared_memory.access",
    "predict_wavefronts": "llverify.shared_memory.predict",
}

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
    "best_register_layout",
    "broadcast_bits",
    "check_distributed",
    "check_injective",
    "check_memory_layout",
    "check_surjective",
    "coalescing",
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
    "warp_bank_conflicts",
    "zeros_like",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use and then kept here; else a
    submodule (``llverify.encodings``); else AttributeError."""
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    if not name.startswith("__"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


class _Package(types.ModuleType):
    """The package's module type: the import system binds every submodule it loads to the
    package's attribute of that name, and the submodule ``llverify.conversion`` shares its
    name with the public function ``llverify.conversion``; the function stays bound (as
    it was when this package imported its names eagerly)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "conversion" and isinstance(value, types.ModuleType):
            value = value.conversion
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
