"""Gluon layout objects (``triton.experimental.gluon.language``) to llverify encodings.

Only attribute reads: Triton is never imported here, so this works with any object that
looks like a Gluon layout.  Each encoding module registers its converter by class name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llverify.errors import LayoutTypeError

_CONVERTERS: dict[str, Callable[[Any], Any]] = {}


def register_gluon(class_name: str, converter: Callable[[Any], Any]) -> None:
    """Convert Gluon objects of class ``class_name`` with ``converter(obj)``."""
    _CONVERTERS[class_name] = converter


def from_gluon(layout: Any) -> Any:
    """The llverify encoding equal to a Gluon layout object."""
    converter = _CONVERTERS.get(type(layout).__name__)
    if converter is None:
        raise LayoutTypeError(
            f"Gluon layout {type(layout).__name__} is not supported (supported: "
            f"{', '.join(sorted(_CONVERTERS))})."
        )
    return converter(layout)


def _register_core() -> None:
    from llverify.encodings import blocked

    register_gluon(
        "BlockedLayout",
        lambda g: blocked.BlockedLayout(
            g.size_per_thread, g.threads_per_warp, g.warps_per_cta, g.order, g.cga_layout
        ),
    )
    register_gluon("SliceLayout", lambda g: blocked.SliceLayout(g.dim, from_gluon(g.parent)))
    register_gluon(
        "DotOperandLayout",
        lambda g: blocked.DotOperandLayout(g.operand_index, from_gluon(g.parent), g.k_width),
    )
    register_gluon(
        "DistributedLinearLayout",
        lambda g: blocked.DistributedLinearLayout(
            g.reg_bases, g.lane_bases, g.warp_bases, g.block_bases, g.shape
        ),
    )


_register_core()
