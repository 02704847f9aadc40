"""TileLang's layout and fragment index maps (``T.Layout``, ``T.Fragment``) as LinearLayouts.

TileLang (github.com/tile-ai/tilelang) is not a dependency: its maps are read as text, the
Python functions it writes (``lambda i, j: ...`` or a ``def``), parsed with ``ast`` and never
evaluated as Python.

Modules:

* :mod:`llverify.tilelang.index_map`: the safe reader (:func:`parse_index_map`);
* :mod:`llverify.tilelang.fragment`: fragments, thread-access maps and layouts as
  LinearLayouts where they are GF(2)-linear, refused with the reason where not.

Prove one against a vendor reference with :func:`llverify.prove_equal`, e.g. TileLang's
MFMA A map against the CDNA3 ISA's fragment (``llverify.specs.amd_mfma``).

Examples:
    >>> from llverify import prove_equal
    >>> from llverify.specs.amd_mfma import A_16X16X16_F16
    >>> ll = fragment_to_linear_layout('''
    ... def shared_16x16_to_local_64x4_layout_A(i, j):
    ...     thread_id = i + 16 * (j // 4)
    ...     local = j % 4
    ...     return thread_id, local
    ... ''', (16, 16), lanes=64)
    >>> prove_equal(ll, A_16X16X16_F16.formulas()).status
    <Status.PROVED: 'proved'>
"""

from __future__ import annotations

from llverify.tilelang.fragment import (
    NotLinearError,
    access_to_linear_layout,
    fragment_to_linear_layout,
    layout_to_linear_layout,
)
from llverify.tilelang.index_map import IndexMap, parse_index_map

__all__ = [
    "IndexMap",
    "NotLinearError",
    "access_to_linear_layout",
    "fragment_to_linear_layout",
    "layout_to_linear_layout",
    "parse_index_map",
]
