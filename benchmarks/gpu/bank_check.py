# ruff: noqa: B023, N803, E501 - Gluon constexpr arguments are upper case; timing lambdas run in their loop iteration
"""Hardware truth for bank conflicts and swizzles (issue 10).

For each case (a src register layout, a dst register layout, a shape, an element type) and
each shared layout variant (unswizzled row-major, llverify's synthesized swizzle), a Gluon
kernel loads a tile from global memory in the src layout, stores it to shared memory with the
shared layout, loads it back in the dst layout and writes it out; a third variant lets Triton
choose (``ttgl.convert_layout``).  The data must round-trip exactly (random input, poisoned
output).  Under Nsight Compute the script reports the shared-memory wavefronts, bank
conflicts and instructions of each kernel; llverify's prediction for the explicit variants is
``access_analysis(...).store_wavefronts`` / ``load_wavefronts``.  Layouts are flattened to
1-D (row-major element index), which keeps every register->offset map and so every bank.

Run on a GPU machine:
  ncu --csv --metrics <see METRICS> python benchmarks/gpu/bank_check.py --run  > ncu.csv
  python benchmarks/gpu/bank_check.py --predict > predicted.json
  python benchmarks/gpu/bank_check.py --compare predicted.json ncu.csv
  python benchmarks/gpu/bank_check.py --time        # CUDA-event medians per variant
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

METRICS = [
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
]
DTYPES = {8: "int8", 16: "float16", 32: "float32", 64: "float64"}


def _flat(layout: Any) -> dict[str, list[list[int]]]:
    """1-D bases (row-major element index) of a 2-D (or 1-D) llverify layout."""
    sizes = layout.get_out_dim_sizes()
    strides = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    out = {}
    for dim, bases in layout.bases:
        out[dim] = [[sum(v * s for v, s in zip(b, strides))] for b in bases]
    return out


def cases() -> list[dict[str, Any]]:
    """The 16x32 f32 transpose, SwizzleTest's plain ld/st pairs, 24 sweep pairs."""
    from swizzle_sweep import sweep_cases
    from test_swizzle_constructive import SWIZZLE_TEST_CASES
    from test_swizzle_synthesize import LOAD_16x32, STORE_16x32

    from llverify.encodings import layout_argument

    out = [{"name": "16x32 f32 transpose", "src": STORE_16x32, "dst": LOAD_16x32,
            "shape": [16, 32], "bits": 32}]  # fmt: skip
    for name, (src, dst, shape, bits, kwargs, _) in SWIZZLE_TEST_CASES.items():
        if kwargs or bits < 8:
            continue
        out.append({"name": f"SwizzleTest {name}", "src": layout_argument(src, shape, "s"),
                    "dst": layout_argument(dst, shape, "d"), "shape": shape, "bits": bits})  # fmt: skip
    picked: dict[int, int] = {}
    for c in sweep_cases(1000, seed=7):
        if c["target"] != "nvidia" or c["bits"] < 8 or picked.get(c["bits"], 0) >= 6:
            continue
        if c["src"].get_total_out_dim_size() * c["bits"] // 8 > 48 * 1024:
            continue
        picked[c["bits"]] = picked.get(c["bits"], 0) + 1
        out.append({"name": c["name"], "src": c["src"], "dst": c["dst"], "shape": c["shape"],
                    "bits": c["bits"]})  # fmt: skip
    return out


def variants(case: dict[str, Any]) -> dict[str, Any]:
    """Shared layouts: unswizzled (row-major offsets) and llverify's synthesized one."""
    from llverify import LinearLayout
    from llverify.swizzle import synthesize_swizzle

    shape = case["shape"]
    n = 1
    for s in shape:
        n *= s
    identity = LinearLayout.from_bases(
        [("offset", [[1 << i] for i in range(n.bit_length() - 1)])], ["dim0"]
    )
    synth = synthesize_swizzle(case["src"], case["dst"], shape, case["bits"], triton_safe=True)
    return {"none": identity, "llverify": _layout_1d(synth.layout)}


def export(path: str) -> None:
    """Write every case's flattened layouts, shared variants and predictions to ``path``
    (the GPU machine has no Z3: the synthesized layouts travel as data)."""
    from llverify.access import access_analysis

    data = []
    for index, case in enumerate(cases()):
        src, dst = _layout_1d(case["src"]), _layout_1d(case["dst"])
        n = src.get_total_out_dim_size()
        entry: dict[str, Any] = {
            "case": index, "name": case["name"], "bits": case["bits"], "n": n,
            "warps": src.get_in_dim_size("warp"),
            "src": {d: [list(b) for b in bs] for d, bs in src.bases},
            "dst": {d: [list(b) for b in bs] for d, bs in dst.bases},
            "variants": {},
        }  # fmt: skip
        for variant, shared in variants(case).items():
            st = access_analysis(src, shared, [n], case["bits"])
            ld = access_analysis(dst, shared, [n], case["bits"])
            entry["variants"][variant] = {
                "offset_bases": [list(b) for b in dict(shared.bases)["offset"]],
                "predicted": {
                    "st_wavefronts": st.store_wavefronts, "ld_wavefronts": ld.load_wavefronts,
                    "st_instructions": st.instructions, "ld_instructions": ld.instructions,
                    "st_conflicts": st.hardware_conflicts, "ld_conflicts": ld.hardware_conflicts,
                },
            }  # fmt: skip
        data.append(entry)
    Path(path).write_text(json.dumps(data, indent=1))


def _layout_1d(layout: Any) -> Any:
    from llverify import LinearLayout

    flat = _flat(layout)
    n = layout.get_total_out_dim_size()
    return LinearLayout.from_bases(list(flat.items()), ["dim0"], [n], require_surjective=False)


def run(path: str, time_it: bool) -> dict[str, Any]:
    import torch
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    @gluon.jit
    def through_shared(inp, out, N: ttgl.constexpr, SRC: ttgl.constexpr,  # noqa: N803
                       DST: ttgl.constexpr, SH: ttgl.constexpr):  # fmt: skip
        x = ttgl.load(inp + ttgl.arange(0, N, layout=SRC))
        smem = ttgl.allocate_shared_memory(inp.dtype.element_ty, [N], SH, x)
        y = smem.load(DST)
        ttgl.store(out + ttgl.arange(0, N, layout=DST), y)

    @gluon.jit
    def triton_default(inp, out, N: ttgl.constexpr, SRC: ttgl.constexpr,  # noqa: N803
                       DST: ttgl.constexpr):  # fmt: skip
        x = ttgl.load(inp + ttgl.arange(0, N, layout=SRC))
        y = ttgl.convert_layout(x, DST)
        ttgl.store(out + ttgl.arange(0, N, layout=DST), y)

    results: dict[str, Any] = {"launches": [], "times": []}
    for case in json.loads(Path(path).read_text()):
        n, warps = case["n"], case["warps"]

        def dist(b: dict[str, Any]) -> Any:
            return ttgl.DistributedLinearLayout(
                reg_bases=b["register"], lane_bases=b["lane"], warp_bases=b.get("warp", []),
                block_bases=[], shape=[n],
            )  # fmt: skip

        dtype = getattr(torch, DTYPES[case["bits"]])
        if case["bits"] == 8:
            x = torch.randint(-100, 100, (n,), device="cuda", dtype=dtype)
        else:
            x = torch.randn(n, device="cuda").to(dtype)
        src, dst = dist(case["src"]), dist(case["dst"])
        for variant, spec in case["variants"].items():
            y = torch.full((n,), 77, device="cuda").to(dtype)
            sh = ttgl.SharedLinearLayout(offset_bases=spec["offset_bases"])
            through_shared[(1,)](x, y, n, src, dst, sh, num_warps=warps)
            torch.cuda.synchronize()
            results["launches"].append([case["case"], variant, bool(torch.equal(x, y))])
            if time_it:
                t = _median(lambda: through_shared[(1,)](x, y, n, src, dst, sh, num_warps=warps))
                results["times"].append([case["case"], variant, t])
        y = torch.full((n,), 77, device="cuda").to(dtype)
        triton_default[(1,)](x, y, n, src, dst, num_warps=warps)
        torch.cuda.synchronize()
        results["launches"].append([case["case"], "triton", bool(torch.equal(x, y))])
        if time_it:
            t = _median(lambda: triton_default[(1,)](x, y, n, src, dst, num_warps=warps))
            results["times"].append([case["case"], "triton", t])
    return results


def _median(fn: Any, reps: int = 200) -> float:
    import torch

    for _ in range(20):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export", metavar="CASES_JSON", help="write cases + predictions")
    parser.add_argument("--run", metavar="CASES_JSON", help="launch every kernel once")
    parser.add_argument("--time", action="store_true", help="with --run: CUDA-event medians")
    parser.add_argument("--out", default="", help="with --run: write the results here")
    args = parser.parse_args()
    if args.export:
        export(args.export)
    if args.run:
        result = run(args.run, args.time)
        text = json.dumps(result)
        if args.out:
            Path(args.out).write_text(text)
        print(text)


if __name__ == "__main__":
    main()
