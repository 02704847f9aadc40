"""Check the installed Triton's layout converters against llverify's, over a parameter grid.

``llverify triton-check`` is the CI check for Triton forks (AMD, Intel, a team's own): for
every Gluon layout of :func:`default_grid` (blocked, slice, NVIDIA MMA v2/v3, dot operands,
AMD MFMA and WMMA, swizzled and NVMMA shared; MMA, MFMA and WMMA layouts on tensors smaller
than their instruction or CTA tile too; the CDNA4 scaled-MFMA scale layouts of
``gluon_ir.get_amd_mfma_scale_layout`` and the gfx1250 scaled-WMMA ones of
``gluon_ir.get_amd_wmma_scale_layout``; Intel DPAS layouts, which only an Intel Triton
answers), Triton's own C++ ``toLinearLayout`` (reached
through Gluon's ``to_linear_layout`` in a subprocess, since Triton aborts the process on a
violated precondition) must give exactly the bases of llverify's converter for the same
layout (converted with :func:`llverify.encodings.gluon.from_gluon`).  llverify's converters
are themselves proven equal to the closed-form references in ``specs/``.

Layouts travel to the worker as data (a whitelisted class name and constructor keywords),
never as code.

Examples:
    >>> cases = default_grid()
    >>> len(cases) > 100, sorted({c.family for c in cases})[:3]
    (True, ['AMDMFMALayout', 'AMDWMMALayout', 'BlockedLayout'])
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from llverify.bits import check_timeout
from llverify.errors import LLVerifyError
from llverify.triton import protocol

__all__ = ["CheckCase", "CheckResult", "default_grid", "run_triton_check"]

#: Gluon classes a case may name: (module attribute path under gluon.language)
CLASSES = {
    "BlockedLayout": "BlockedLayout",
    "SliceLayout": "SliceLayout",
    "NVMMADistributedLayout": "NVMMADistributedLayout",
    "DotOperandLayout": "DotOperandLayout",
    "AMDMFMALayout": "amd.AMDMFMALayout",
    "AMDWMMALayout": "amd.AMDWMMALayout",
    "SwizzledSharedLayout": "SwizzledSharedLayout",
    "NVMMASharedLayout": "NVMMASharedLayout",
    # intel-xpu-backend-for-triton's Gluon (v3.7.2 on): absent from upstream Triton, whose
    # cases are answered "rejected" (this Triton has no Intel layouts)
    "IntelDPASLayout": "intel.IntelDPASLayout",
    # A layout helper, not a class: Gluon's builder of the scaled-MFMA scale layout.
    "MFMAScaleLayout": "gluon_ir.get_amd_mfma_scale_layout",
    # Likewise the gfx1250 scaled-WMMA scale layout (arguments in the binding's order).
    "WMMAScaleLayout": "gluon_ir.get_amd_wmma_scale_layout",
}

#: The helper families: each case's kwargs, in order, are the helper's arguments.
_HELPERS = ("MFMAScaleLayout", "WMMAScaleLayout")


@dataclass(frozen=True)
class CheckCase:
    """One Gluon layout on one shape, as data: ``spec = {"class": name, "kwargs": {...}}``
    (a ``parent`` keyword is itself such a spec)."""

    spec: dict[str, Any] = field(hash=False)
    shape: tuple[int, ...]

    @property
    def family(self) -> str:
        return str(self.spec["class"])

    def describe(self) -> str:
        return f"{_describe(self.spec)} on {list(self.shape)}"


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one case: "match", "mismatch", "rejected" (Triton refused the layout,
    e.g. an invalid parameter combination: not counted as a failure) or "error"."""

    case: CheckCase
    status: str
    detail: str = ""


def _describe(spec: dict[str, Any]) -> str:
    args = ", ".join(
        f"{k}={_describe(v) if isinstance(v, dict) else v}" for k, v in spec["kwargs"].items()
    )
    return f"{spec['class']}({args})"


def build_gluon(spec: dict[str, Any], modules: dict[str, Any]) -> Any:
    """A Gluon layout object from a data spec (whitelisted classes only)."""
    name = spec.get("class")
    if name not in CLASSES:
        raise LLVerifyError(f"triton-check: unknown Gluon layout class {name!r}.")
    if name in _HELPERS:
        helper = getattr(modules["gluon_ir"], CLASSES[name].split(".")[1])
        return helper(*spec["kwargs"].values())
    holder: Any = modules["ttgl"]
    for part in CLASSES[name].split("."):
        if part in ("amd", "intel"):
            holder = modules.get(part)
            if holder is None:
                raise LLVerifyError(f"triton-check: this Triton has no Gluon {part} layouts.")
        else:
            holder = getattr(holder, part)
    kwargs = {
        k: build_gluon(v, modules) if isinstance(v, dict) else v for k, v in spec["kwargs"].items()
    }
    return holder(**kwargs)


def _case(cls: str, shape: Sequence[int], **kwargs: Any) -> CheckCase:
    return CheckCase({"class": cls, "kwargs": kwargs}, tuple(shape))


def default_grid() -> list[CheckCase]:
    """The parameter grid ``llverify triton-check`` runs (a few hundred layouts)."""
    return [
        *_blocked_cases(),
        *_slice_cases(),
        *_nvidia_mma_cases(),
        *_amd_mfma_cases(),
        *_amd_wmma_cases(),
        *_shared_cases(),
        *_below_tile_cases(),
        *_intel_dpas_cases(),
        *_mfma_scale_cases(),
        *_wmma_scale_cases(),
    ]


def _blocked_cases() -> list[CheckCase]:
    """Blocked layouts: sizes per thread, lanes, warps and orders, the shapes in turn."""
    cases: list[CheckCase] = []
    shapes = [(32, 32), (128, 64), (16, 128), (64, 256)]
    spts = [[1, 1], [1, 4], [2, 2], [4, 1], [1, 8]]
    tpws = [[1, 32], [4, 8], [8, 4], [32, 1]]
    wpcs = [[1, 1], [4, 1], [2, 2], [1, 4]]
    for spt, tpw, wpc, order in itertools.product(spts, tpws, wpcs, [[1, 0], [0, 1]]):
        shape = shapes[(len(cases)) % len(shapes)]
        kw = {"size_per_thread": spt, "threads_per_warp": tpw, "warps_per_cta": wpc}
        cases.append(_case("BlockedLayout", shape, **kw, order=order))
    return cases


def _slice_cases() -> list[CheckCase]:
    """Both slices of one 2-D blocked parent, on two sizes."""
    blocked = {
        "class": "BlockedLayout",
        "kwargs": {
            "size_per_thread": [1, 4],
            "threads_per_warp": [8, 4],
            "warps_per_cta": [2, 2],
            "order": [1, 0],
        },
    }
    return [
        CheckCase({"class": "SliceLayout", "kwargs": {"dim": dim, "parent": blocked}}, (size,))
        for dim, size in itertools.product([0, 1], [64, 256])
    ]


def _nvidia_mmas() -> list[dict[str, Any]]:
    """NVIDIA MMA v2 layouts and, with one warp column, v3 (wgmma) of several N."""
    mmas: list[dict[str, Any]] = []
    for warps in ([4, 1], [2, 2], [8, 1]):
        mmas.append(
            {
                "class": "NVMMADistributedLayout",
                "kwargs": {"version": [2, 0], "warps_per_cta": warps, "instr_shape": [16, 8]},
            }
        )
        for n in (8, 32, 64, 128):
            if warps[1] == 1:
                mmas.append(
                    {
                        "class": "NVMMADistributedLayout",
                        "kwargs": {
                            "version": [3, 0],
                            "warps_per_cta": warps,
                            "instr_shape": [16, n, 16],
                        },
                    }
                )
    return mmas


def _nvidia_mma_cases() -> list[CheckCase]:
    """Each NVIDIA MMA layout and its dot operands (k widths 1 to 8)."""
    cases: list[CheckCase] = []
    for mma in _nvidia_mmas():
        cases.append(CheckCase(mma, (128, 128)))
        for idx, k_width in itertools.product([0, 1], [1, 2, 4, 8]):
            if mma["kwargs"]["version"][0] == 3 and idx == 1:
                continue  # wgmma takes B from shared memory: no register operand 1
            dot = {"operand_index": idx, "parent": mma, "k_width": k_width}
            cases.append(CheckCase({"class": "DotOperandLayout", "kwargs": dot}, (128, 64)))
    return cases


def _amd_mfma_cases() -> list[CheckCase]:
    """AMD MFMA layouts: versions 3 and 4, two instruction shapes, transposed or not."""
    cases: list[CheckCase] = []
    for version, instr, transposed, warps in itertools.product(
        [3, 4], [[32, 32, 8], [16, 16, 16]], [False, True], [[2, 2], [4, 1]]
    ):
        mfma = {
            "version": version,
            "instr_shape": instr,
            "transposed": transposed,
            "warps_per_cta": warps,
        }
        cases.append(_case("AMDMFMALayout", (128, 128), **mfma))
    return cases


def _amd_wmma_cases() -> list[CheckCase]:
    """AMD WMMA layouts: versions 1 to 3, transposed or not, two warp bases."""
    cases: list[CheckCase] = []
    for version, transposed, warp_bases in itertools.product(
        [1, 2, 3], [False, True], [[[1, 0], [2, 0]], [[0, 1], [1, 0]]]
    ):
        wmma: dict[str, Any] = {
            "version": version,
            "transposed": transposed,
            "warp_bases": warp_bases,
        }
        if version == 3:
            wmma["instr_shape"] = [16, 16, 32]  # v3 has no default instruction shape
        cases.append(_case("AMDWMMALayout", (64, 64), **wmma))
    return cases


def _below_tile_cases() -> list[CheckCase]:
    """MMA, MFMA and WMMA accumulators and dot operands on tensors smaller than one
    instruction tile or one CTA tile (dims 1 to 16 below the tile: the layouts broadcast
    their extra lanes and warps, the case of triton#6495's small slices)."""
    mma2 = {"version": [2, 0], "warps_per_cta": [2, 2], "instr_shape": [16, 8]}
    wgmma = {"version": [3, 0], "warps_per_cta": [4, 1], "instr_shape": [16, 64, 16]}
    mfma32 = {"version": 3, "instr_shape": [32, 32, 8], "transposed": True, "warps_per_cta": [2, 2]}
    mfma16 = {
        "version": 4,
        "instr_shape": [16, 16, 32],
        "transposed": False,
        "warps_per_cta": [1, 4],
    }
    wmma2 = {"version": 2, "transposed": False, "warp_bases": [[1, 0], [0, 1]]}
    wmma3 = {
        "version": 3,
        "transposed": True,
        "warp_bases": [[0, 1], [1, 0]],
        "instr_shape": [32, 16, 64],
    }
    parents: list[tuple[str, dict[str, Any], list[tuple[int, int]], int]] = [
        ("NVMMADistributedLayout", mma2, [(8, 8), (16, 4), (4, 16), (1, 8)], 2),
        ("NVMMADistributedLayout", wgmma, [(32, 32), (16, 16), (64, 8)], 2),
        ("AMDMFMALayout", mfma32, [(16, 16), (32, 8), (8, 64), (1, 1)], 4),
        ("AMDMFMALayout", mfma16, [(8, 8), (16, 4), (4, 32)], 8),
        ("AMDWMMALayout", wmma2, [(8, 8), (16, 4), (2, 16)], 8),
        ("AMDWMMALayout", wmma3, [(16, 16), (8, 32), (32, 4)], 8),
    ]  # fmt: skip
    cases: list[CheckCase] = []
    for cls, kwargs, shapes, k_width in parents:
        parent = {"class": cls, "kwargs": kwargs}
        for shape in shapes:
            cases.append(CheckCase(parent, shape))
            for idx in (0, 1):
                if cls == "NVMMADistributedLayout" and kwargs["version"][0] == 3 and idx == 1:
                    continue  # wgmma takes B from shared memory
                dot = {"operand_index": idx, "parent": parent, "k_width": k_width}
                cases.append(CheckCase({"class": "DotOperandLayout", "kwargs": dot}, shape))
    return cases


def _intel_dpas_cases() -> list[CheckCase]:
    """Intel DPAS layouts (16 and 32 threads per warp, 8-, 16- and 32-bit operands, warps,
    repCluster), their A and B dot operands and a slice (only an Intel Triton answers)."""
    cases: list[CheckCase] = []
    for threads, ops, warps, cluster in itertools.product(
        [16, 32], [4, 2, 1], [[1, 1], [2, 2], [4, 1]], [[1, 1], [2, 2], [4, 2]]
    ):
        dpas = {
            "class": "IntelDPASLayout",
            "kwargs": {
                "repeatCount": 8,
                "systolic_depth": 8,
                "execution_size": 16,
                "ops_per_chan": ops,
                "warps_per_cta": warps,
                "rep_cluster": cluster,
                "threads_per_warp": threads,
            },
        }
        cases.append(CheckCase(dpas, (128, 128)))
        for index, k_width in ((0, max(1, ops // 2)), (1, ops)):
            dot = {"operand_index": index, "parent": dpas, "k_width": k_width}
            cases.append(_case("DotOperandLayout", (128, 64) if index == 0 else (64, 128), **dot))
    dpas = cases[0].spec
    cases.append(CheckCase({"class": "SliceLayout", "kwargs": {"dim": 1, "parent": dpas}}, (64,)))
    return cases


def _shared_cases() -> list[CheckCase]:
    """Swizzled shared layouts (vec, phases, orders) and NVMMA shared layouts."""
    cases: list[CheckCase] = []
    for vec, per_phase, max_phase, order in itertools.product(
        [1, 4, 8], [1, 2], [1, 4, 8], [[1, 0], [0, 1]]
    ):
        swizzled = {"vec": vec, "per_phase": per_phase, "max_phase": max_phase, "order": order}
        cases.append(_case("SwizzledSharedLayout", (64, 64), **swizzled))
    for width, bits, transposed in itertools.product([0, 32, 64, 128], [8, 16, 32], [False, True]):
        nvmma = {
            "swizzle_byte_width": width,
            "element_bitwidth": bits,
            "rank": 2,
            "transposed": transposed,
        }
        cases.append(_case("NVMMASharedLayout", (128, 128), **nvmma))  # 128-byte rows
    return cases


def _mfma_scale_cases() -> list[CheckCase]:
    """Scaled-MFMA scale layouts: operands A and B, both instruction sizes, 1 or 2 tiles per
    warp, three warp grids, shapes from one instruction's scales to a 256-row block."""
    cases: list[CheckCase] = []
    for op, mdim, tiles, warps, shape in itertools.product(
        [0, 1], [16, 32], [1, 2], [[2, 2], [4, 1], [1, 4]], [[256, 8], [32, 4], [8, 2]]
    ):
        kwargs = {
            "op_idx": op, "shape": shape, "mdim": mdim, "tiles_per_warp": [tiles, tiles],
            "warps_per_cta": warps,
        }  # fmt: skip
        cases.append(CheckCase({"class": "MFMAScaleLayout", "kwargs": kwargs}, tuple(shape)))
    return cases


def _wmma_scale_cases() -> list[CheckCase]:
    """gfx1250 scaled-WMMA scale layouts: operands A and B, the 16x16 and 32x16 instructions
    (transposed or not), scale factors 32 and 16, three parent ctaLayouts, shapes from one
    instruction's scales to a 128-row block."""
    cases: list[CheckCase] = []
    ctas = [([], [[1, 0], [2, 0]]), ([[0, 1]], [[1, 0], [0, 2]]), ([[1, 0]], [[0, 1], [2, 0]])]
    for op, (mdim, ndim), transposed, factor, (regs, warps), shape in itertools.product(
        [0, 1], [(16, 16), (32, 16)], [False, True], [32, 16], ctas,
        [[128, 8], [16, 4], [8, 1]],
    ):  # fmt: skip
        kwargs = {
            "op_idx": op, "shape": shape, "mdim": mdim, "ndim": ndim, "transposed": transposed,
            "scale_factor": factor, "reg_bases": regs, "warp_bases": warps, "cga_bases": [],
        }  # fmt: skip
        cases.append(CheckCase({"class": "WMMAScaleLayout", "kwargs": kwargs}, tuple(shape)))
    return cases


def _llverify_bases(case: CheckCase, modules: dict[str, Any]) -> dict[str, list[list[int]]]:
    from llverify.encodings.gluon import from_gluon

    if case.family in _HELPERS:  # llverify's own converter, from the parameters
        from llverify.encodings import scales

        convert = (
            scales.mfma_scale_layout
            if case.family == "MFMAScaleLayout"
            else scales.wmma_scale_layout
        )
        layout = convert(**case.spec["kwargs"]).to_linear_layout(list(case.shape))
        return {dim: [list(b) for b in bases] for dim, bases in layout.bases}
    encoding = from_gluon(build_gluon(case.spec, modules))
    layout = encoding.to_linear_layout(list(case.shape))
    return {dim: [list(b) for b in bases] for dim, bases in layout.bases}


def gluon_modules() -> dict[str, Any]:
    """The Gluon modules :func:`build_gluon` reads (an Intel Triton has ``intel`` too; upstream
    Triton gives None there), for this process and the worker alike."""
    try:
        from triton._C.libtriton import gluon_ir
        from triton.experimental.gluon import language as ttgl
        from triton.experimental.gluon.language import amd
    except ImportError as error:
        raise LLVerifyError(
            f"triton-check needs Triton with Gluon installed (pip install 'llverify[triton]'): "
            f"{error}"
        ) from None
    return {
        "ttgl": ttgl,
        "amd": amd,
        "intel": getattr(ttgl, "intel", None),
        "gluon_ir": gluon_ir,
    }


def _normalise(bases: dict[str, list[list[int]]]) -> dict[str, list[list[int]]]:
    """Drop empty in dims (Triton lists size-1 dims with no bases)."""
    return {dim: [list(b) for b in bs] for dim, bs in bases.items() if bs}


def run_triton_check(
    cases: Iterable[CheckCase] | None = None,
    progress: Callable[[int, int, CheckResult], None] | None = None,
    timeout_s: float = 600.0,
) -> list[CheckResult]:
    """Compare Triton's converters with llverify's on ``cases`` (default: the grid)."""
    check_timeout(timeout_s, "timeout_s")
    modules = gluon_modules()
    todo = list(default_grid() if cases is None else cases)
    answers = _ask_triton(todo, timeout_s)
    results: list[CheckResult] = []
    for index, (case, answer) in enumerate(zip(todo, answers)):
        if "error" in answer:
            result = CheckResult(case, "rejected", answer["error"])
        else:
            theirs = _normalise(answer["bases"])
            try:
                ours = _normalise(_llverify_bases(case, modules))
            except LLVerifyError as error:
                result = CheckResult(case, "mismatch", f"llverify refuses it: {error}")
            else:
                if ours == theirs:
                    result = CheckResult(case, "match")
                else:
                    diff = [
                        f"{dim}: Triton {theirs.get(dim)} llverify {ours.get(dim)}"
                        for dim in sorted(set(ours) | set(theirs))
                        if ours.get(dim) != theirs.get(dim)
                    ]
                    result = CheckResult(case, "mismatch", "; ".join(diff))
        results.append(result)
        if progress is not None:
            progress(index + 1, len(todo), result)
    return results


def _ask_triton(todo: Sequence[CheckCase], timeout_s: float) -> list[dict[str, Any]]:
    """Triton's answer for every case; a case that makes Triton abort is answered
    ``{"error": "Triton aborted ..."}`` and the worker restarts after it."""
    answers: list[dict[str, Any]] = []
    deadline = time.perf_counter() + timeout_s
    while len(answers) < len(todo):
        rest = todo[len(answers) :]
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "llverify.triton.check_worker"],
                input=protocol.request_text(
                    [{"spec": c.spec, "shape": list(c.shape)} for c in rest]
                ),
                capture_output=True,
                text=True,
                timeout=max(1.0, deadline - time.perf_counter()),
            )
        except subprocess.TimeoutExpired:
            raise LLVerifyError(
                f"triton-check: Triton's worker did not finish within {timeout_s:.0f} s."
            ) from None
        answers.extend(protocol.answers(proc.stdout))
        if len(answers) < len(todo):  # the next case aborted the process
            tail = [line for line in proc.stderr.splitlines() if "leaked" not in line][-2:]
            answers.append({"error": f"Triton aborted (exit {proc.returncode}): {tail}"})
    return answers
