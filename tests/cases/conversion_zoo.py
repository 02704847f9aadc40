"""The conversion zoo: every (src, dst) pair of distributed layouts with the same lanes and
warps, built from blocked, MMA v2/v3, dot-operand, MFMA and WMMA encodings on three 2-D shapes,
and their slices (nested too) in 1-D.  Shared by test_conversion, test_shuffle_plan and the
swizzle sweep (cases/swizzle_sweep.py)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from llverify import LinearLayout
from llverify.encodings import (
    AMDMFMALayout,
    AMDWMMALayout,
    BlockedLayout,
    DotOperandLayout,
    EncodingError,
    NVMMADistributedLayout,
    SliceLayout,
    to_linear_layout,
)


def _blocked_2d(lanes: int, warps: int) -> list[BlockedLayout]:
    out = []
    for spt in ([1, 1], [1, 4], [4, 1], [2, 2], [1, 8]):
        for tpw0 in (1, 4, lanes // 4, lanes):
            tpw = [tpw0, lanes // tpw0]
            for wpc in ([warps, 1], [1, warps]):
                for order in ([1, 0], [0, 1]):
                    out.append(BlockedLayout(spt, tpw, wpc, order))
    # keep the zoo small and varied: every 5th
    return out[::5]


def _try(enc: Any, shape: list[int]) -> LinearLayout | None:
    try:
        return to_linear_layout(enc, shape)
    except (EncodingError, ValueError):
        return None


def _nvidia(shape: list[int]) -> dict[str, Any]:
    encs: dict[str, Any] = {}
    for i, b in enumerate(_blocked_2d(32, 4)):
        encs[f"blocked{i}"] = b
    mmas = {
        "mma2_41": NVMMADistributedLayout([2, 0], [4, 1], [16, 8]),
        "mma2_22": NVMMADistributedLayout([2, 0], [2, 2], [16, 8]),
        "mma3_n32": NVMMADistributedLayout([3, 0], [4, 1], [16, 32, 16]),
    }
    encs.update(mmas)
    for name in ("mma2_41", "mma2_22"):
        for op, kw in itertools.product((0, 1), (1, 2, 4, 8, 16)):
            try:
                encs[f"dot{op}_k{kw}_{name}"] = DotOperandLayout(op, mmas[name], kw)
            except EncodingError:
                pass
    try:
        encs["dot0_k2_mma3"] = DotOperandLayout(0, mmas["mma3_n32"], 2)
    except EncodingError:
        pass
    return encs


def _amd(shape: list[int]) -> dict[str, Any]:
    encs: dict[str, Any] = {}
    for i, b in enumerate(_blocked_2d(64, 4)):
        encs[f"blocked{i}"] = b
    for m, t in itertools.product((16, 32), (False, True)):
        k = 16 if m == 16 else 8
        mfma = AMDMFMALayout(3, [m, m, k], t, [2, 2])
        encs[f"mfma{m}_{t}"] = mfma
        for op, kw in itertools.product((0, 1), (4, 8)):
            try:
                encs[f"mfma{m}_{t}_dot{op}_k{kw}"] = DotOperandLayout(op, mfma, kw)
            except EncodingError:
                pass
    return encs


def _wmma(shape: list[int]) -> dict[str, Any]:
    encs: dict[str, Any] = {}
    for i, b in enumerate(_blocked_2d(32, 4)):
        encs[f"blocked{i}"] = b
    for v, t in itertools.product((1, 2), (False, True)):
        w = AMDWMMALayout(v, t, [[1, 0], [0, 1]])
        encs[f"wmma{v}_{t}"] = w
        for op, kw in itertools.product((0, 1), (8, 16)):
            try:
                encs[f"wmma{v}_{t}_dot{op}_k{kw}"] = DotOperandLayout(op, w, kw)
            except EncodingError:
                pass
    return encs


def _sliced(encs: dict[str, Any]) -> dict[str, Any]:
    """Sliced<...> of every 2-D encoding (Sliced<MMA>, Sliced<MMA input>, ...), 1-D."""
    return {f"slice{d}<{n}>": SliceLayout(d, e) for n, e in encs.items() for d in (0, 1)}


def _nested(lanes: int) -> dict[str, Any]:
    b3 = BlockedLayout([1, 2, 2], [2, lanes // 4, 2], [2, 1, 2], [2, 1, 0])
    c3 = BlockedLayout([2, 1, 1], [lanes // 8, 4, 2], [1, 4, 1], [0, 1, 2])
    return {
        "slice0<slice0<b3>>": SliceLayout(0, SliceLayout(0, b3)),
        "slice1<slice0<b3>>": SliceLayout(0, SliceLayout(1, b3)),
        "slice0<slice2<c3>>": SliceLayout(0, SliceLayout(2, c3)),
    }


def _zoo_groups() -> Iterator[tuple[str, list[tuple[str, LinearLayout]], list[int]]]:
    for group, build, lanes in (("nvidia", _nvidia, 32), ("amd", _amd, 64), ("wmma", _wmma, 32)):
        for shape in ([64, 64], [32, 128], [128, 16]):
            encs = build(shape)
            layouts = [(n, ll) for n, e in encs.items() if (ll := _try(e, shape)) is not None]
            yield f"{group}{shape}", layouts, shape
            if shape == [64, 64]:
                one_d = {**_sliced(encs), **_nested(lanes)}
                for shape1 in ([64], [256]):
                    lls = [(n, ll) for n, e in one_d.items() if (ll := _try(e, shape1)) is not None]
                    yield f"{group}{shape1}", lls, shape1


def _zoo() -> list[tuple[str, str, LinearLayout, LinearLayout]]:
    pairs = []
    for group, layouts, _ in _zoo_groups():
        for (na, a), (nb, b) in itertools.product(layouts, layouts):
            if a.in_dims == b.in_dims or (
                dict(a.in_dims).get("lane") == dict(b.in_dims).get("lane")
                and dict(a.in_dims).get("warp") == dict(b.in_dims).get("warp")
            ):
                pairs.append((group, f"{na} -> {nb}", a, b))
    return pairs


ZOO = _zoo()
