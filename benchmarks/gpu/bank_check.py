# ruff: noqa: B023, N803, E501 - Gluon constexpr arguments are upper case; timing lambdas run in their loop iteration
"""Hardware truth for bank conflicts and swizzles (issue 10; docs/hardware.md).

For each case (a src register layout, a dst register layout, a shape, an element type) and
each shared layout variant (unswizzled row-major, llverify's synthesized swizzle), a Gluon
kernel (``bank_kernels.py``) loads a tile from global memory in the src layout, stores it to
shared memory with that shared layout, loads it back in the dst layout and writes it out; a
third variant lets Triton choose (``ttgl.convert_layout``).  The data must round-trip exactly
(random input, output poisoned with 77).  Nsight Compute measures every kernel's
shared-memory wavefronts, bank conflicts and instructions; the prediction is
:func:`llverify.shared_memory.predict.predict_wavefronts`.  Layouts are flattened to 1-D (row-major
element index), which keeps every register->offset map and so every bank.  Lane-broadcast
probe cases (one warp, unswizzled) test the pass rule on patterns beyond the 30 cases.

Run (``--export`` and ``--predict`` here, with Z3; the rest on the GPU machine):
  python benchmarks/gpu/bank_check.py --export benchmarks/gpu/results/bank_cases.json
  ncu --csv --metrics <METRICS, comma-separated> --kernel-name regex:'through_shared|triton_default' \\
      python3 benchmarks/gpu/bank_check.py --run CASES --out launches.json > ncu.csv
  ncu --section SourceCounters --kernel-name regex:'through_shared|triton_default' -o src \\
      python3 benchmarks/gpu/bank_check.py --run CASES && python3 benchmarks/gpu/ncu_source.py src.ncu-rep > source.json
  python3 benchmarks/gpu/bank_check.py --run CASES --time --out times.json   # ns per conversion
  python benchmarks/gpu/analyze_bank_results.py benchmarks/gpu/results/h100   # table
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
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "smsp__sass_inst_executed_op_ldsm.sum",
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


def cases(heldout: int = 0) -> list[dict[str, Any]]:
    """The 16x32 f32 transpose, SwizzleTest's plain ld/st pairs, 24 sweep pairs; with
    ``heldout`` > 0 instead ``heldout`` pairs per element width from another seed of the
    sweep (a held-out set, predicted before it is measured)."""
    from cases.swizzle import SWIZZLE_TEST_CASES, LOAD_16x32, STORE_16x32
    from cases.swizzle_sweep import sweep_cases
    from llverify.arguments import layout_argument

    out = [{"name": "16x32 f32 transpose", "src": STORE_16x32, "dst": LOAD_16x32,
            "shape": [16, 32], "bits": 32}]  # fmt: skip
    if heldout:
        out = []
    for name, (src, dst, shape, bits, kwargs, _) in SWIZZLE_TEST_CASES.items():
        if kwargs or bits < 8 or heldout:
            continue
        out.append({"name": f"SwizzleTest {name}", "src": layout_argument(src, shape, "s"),
                    "dst": layout_argument(dst, shape, "d"), "shape": shape, "bits": bits})  # fmt: skip
    picked: dict[int, int] = {}
    per_width = heldout or 6
    for c in sweep_cases(1000, seed=23 if heldout else 7):
        if c["target"] != "nvidia" or c["bits"] < 8 or picked.get(c["bits"], 0) >= per_width:
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
    from llverify.shared_memory.swizzle import synthesize_swizzle

    shape = case["shape"]
    n = 1
    for s in shape:
        n *= s
    identity = LinearLayout.from_bases(
        [("offset", [[1 << i] for i in range(n.bit_length() - 1)])], ["dim0"]
    )
    synth = synthesize_swizzle(case["src"], case["dst"], shape, case["bits"], triton_safe=True)
    return {"none": identity, "llverify": _layout_1d(synth.layout)}


def probe_cases() -> list[dict[str, Any]]:
    """Lane-broadcast probes: 64-bit and 128-bit accesses (f64, f32 x4, f16 x8) whose lanes
    in a subset Z of lane bits (at most 3) read the same address, or in which two lane bits
    map to the same offset, stored and loaded in that same layout through an unswizzled
    buffer (one warp).  They test the pass rule of
    :mod:`llverify.shared_memory.predict` on patterns it was not fitted on."""
    from itertools import combinations

    out = []
    for bits, vec in ((64, 1), (32, 4), (16, 8)):
        for size in range(4):
            for zero in combinations(range(5), size):
                regs = [[1 << i] for i in range(vec.bit_length() - 1)]
                step = vec
                lanes = []
                for bit in range(5):
                    if bit in zero:
                        lanes.append([0])
                    else:
                        lanes.append([step])
                        step *= 2
                regs += [[step], [2 * step]]  # two more instructions' worth of registers
                layout = {"register": regs, "lane": lanes, "warp": []}
                out.append({"name": f"probe {bits}-bit x{vec} zero lanes {list(zero)}",
                            "layout": layout, "n": 4 * step, "bits": bits, "probe": True})  # fmt: skip
    for bits, vec in ((64, 1), (32, 4), (16, 8)):
        for pair in ((0, 1), (1, 2), (2, 3), (0, 2)):  # two lane bits with one offset
            regs = [[1 << i] for i in range(vec.bit_length() - 1)]
            lanes, step = [], vec
            for bit in range(5):
                if bit == pair[1]:
                    lanes.append(list(lanes[pair[0]]))
                else:
                    lanes.append([step])
                    step *= 2
            regs += [[step], [2 * step], [4 * step]]
            layout = {"register": regs, "lane": lanes, "warp": []}
            out.append({"name": f"probe {bits}-bit x{vec} equal lanes {list(pair)}",
                        "layout": layout, "n": 8 * step, "bits": bits, "probe": True})  # fmt: skip
    return out


def export(path: str, heldout: int = 0) -> None:
    """Write every case's flattened layouts, shared variants and predictions to ``path``
    (the GPU machine has no Z3: the synthesized layouts travel as data)."""
    data: list[dict[str, Any]] = []
    for case in cases(heldout):
        src, dst = _layout_1d(case["src"]), _layout_1d(case["dst"])
        n = src.get_total_out_dim_size()
        entry: dict[str, Any] = {
            "case": len(data), "name": case["name"], "bits": case["bits"], "n": n,
            "warps": src.get_in_dim_size("warp"),
            "src": {d: [list(b) for b in bs] for d, bs in src.bases},
            "dst": {d: [list(b) for b in bs] for d, bs in dst.bases},
            "variants": {
                variant: {"offset_bases": [list(b) for b in dict(shared.bases)["offset"]]}
                for variant, shared in variants(case).items()
            },
        }  # fmt: skip
        data.append(entry)
    if not heldout:
        add_probes(data)
    add_predictions(data)
    Path(path).write_text(json.dumps(data, indent=1))


def add_probes(data: list[dict[str, Any]]) -> None:
    """Append :func:`probe_cases` (unswizzled variant only, no Triton variant)."""
    for probe in probe_cases():
        n = probe["n"]
        data.append({
            "case": len(data), "name": probe["name"], "bits": probe["bits"], "n": n,
            "warps": 1, "src": probe["layout"], "dst": probe["layout"], "probe": True,
            "variants": {"none": {"offset_bases": [[1 << i] for i in range(n.bit_length() - 1)]}},
        })  # fmt: skip


def add_predictions(data: list[dict[str, Any]]) -> None:
    """Predict every kernel's store and load (:func:`llverify.shared_memory.predict.predict_wavefronts`
    for the hardware, :func:`llverify.shared_memory.access.access_analysis` for Triton's own ld/st model);
    Triton's default variant on :func:`llverify.shared_memory.swizzle.convert_layout_swizzle` (the shared
    layout and instructions Triton's convert_layout picks)."""
    from llverify import LinearLayout
    from llverify.shared_memory.access import access_analysis
    from llverify.shared_memory.predict import predict_wavefronts
    from llverify.shared_memory.swizzle import convert_layout_swizzle

    for entry in data:
        n, bits = entry["n"], entry["bits"]

        def layout(bases: dict[str, Any]) -> Any:
            return LinearLayout.from_bases(list(bases.items()), ["dim0"], [n],
                                           require_surjective=False)  # fmt: skip

        src, dst = layout(entry["src"]), layout(entry["dst"])
        shared_layouts = {
            v: LinearLayout.from_bases([("offset", spec["offset_bases"])], ["dim0"])
            for v, spec in entry["variants"].items()
        }
        kinds = {v: ("auto", "auto", 1) for v in shared_layouts}
        if not entry.get("probe"):
            choice = convert_layout_swizzle(src, dst, [n], bits)
            shared_layouts["triton"] = choice.layout
            kinds["triton"] = (choice.store, choice.load, choice.reps)
        entry["predicted"] = {}
        for variant, shared in shared_layouts.items():
            store_kind, load_kind, reps = kinds[variant]
            store = predict_wavefronts(
                src, shared, [n], bits, "store", instruction=store_kind, reps=reps
            )
            load = predict_wavefronts(
                dst, shared, [n], bits, "load", instruction=load_kind, reps=reps
            )
            st, ld = (access_analysis(r, shared, [n], bits) for r in (src, dst))
            entry["predicted"][variant] = {
                "store": {"instruction": store.instruction, "instructions": store.instructions,
                          "wavefronts": store.wavefronts, "rule": store.rule},
                "load": {"instruction": load.instruction, "instructions": load.instructions,
                         "wavefronts": load.wavefronts, "rule": load.rule},
                "access_analysis": {"st_wavefronts": st.store_wavefronts,
                                    "ld_wavefronts": ld.load_wavefronts},
            }  # fmt: skip


def _layout_1d(layout: Any) -> Any:
    from llverify import LinearLayout

    flat = _flat(layout)
    n = layout.get_total_out_dim_size()
    return LinearLayout.from_bases(list(flat.items()), ["dim0"], [n], require_surjective=False)


def run(path: str, time_it: bool, dump: str = "") -> dict[str, Any]:
    import torch
    from bank_kernels import (
        through_shared,
        through_shared_loop,
        triton_default,
        triton_default_loop,
    )
    from triton.experimental.gluon import language as ttgl

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
        bits, sink = case["bits"], torch.zeros(2, device="cuda", dtype=torch.int64)
        for variant, spec in case["variants"].items():
            y = torch.full((n,), 77, device="cuda").to(dtype)
            sh = ttgl.SharedLinearLayout(offset_bases=spec["offset_bases"])
            kernel = through_shared[(1,)](x, y, sink, 7, n, bits, src, dst, sh, num_warps=warps)
            torch.cuda.synchronize()
            _dump(kernel, dump, f"case{case['case']:02d}_{variant}")
            results["launches"].append([case["case"], variant, bool(torch.equal(x, y))])
            if time_it and not case.get("probe"):
                loop = through_shared_loop[(1,)]
                t = _per_conversion(
                    lambda r: loop(x, sink, 7, r, n, bits, src, dst, sh, num_warps=warps)
                )
                results["times"].append([case["case"], variant, t])
        if case.get("probe"):
            continue
        y = torch.full((n,), 77, device="cuda").to(dtype)
        kernel = triton_default[(1,)](x, y, sink, 7, n, bits, src, dst, num_warps=warps)
        torch.cuda.synchronize()
        _dump(kernel, dump, f"case{case['case']:02d}_triton")
        results["launches"].append([case["case"], "triton", bool(torch.equal(x, y))])
        if time_it:
            loop = triton_default_loop[(1,)]
            t = _per_conversion(lambda r: loop(x, sink, 7, r, n, bits, src, dst, num_warps=warps))
            results["times"].append([case["case"], "triton", t])
    return results


def _dump(kernel: Any, folder: str, stem: str) -> None:
    """Write the kernel's TTGIR, PTX and SASS to ``folder/stem.*`` (nothing without a folder)."""
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    for key in ("ttgir", "ptx", "sass"):
        try:
            text = kernel.asm[key]
        except Exception as error:  # noqa: BLE001 - SASS needs cuobjdump; record why it is missing
            text = f"unavailable: {error!r}"
        Path(folder, f"{stem}.{key}").write_text(text if isinstance(text, str) else text.decode())


def _per_conversion(launch: Any, short: int = 2, long: int = 258, runs: int = 50) -> float:
    """Nanoseconds per conversion: (median time of a launch doing ``long`` conversions -
    median of one doing ``short``) / (long - short), CUDA events, after warm-up launches."""
    return (_median(lambda: launch(long), runs) - _median(lambda: launch(short), runs)) / (
        long - short
    )


def _median(fn: Any, runs: int) -> float:
    """Median over ``runs`` launches of one launch's CUDA-event time, in nanoseconds."""
    import torch

    for _ in range(10):
        fn()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e6)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export", metavar="CASES_JSON", help="write cases + predictions")
    parser.add_argument("--heldout", type=int, default=0, metavar="K",
                        help="with --export: K sweep pairs per width from another seed only")  # fmt: skip
    parser.add_argument("--predict", metavar="CASES_JSON",
                        help="recompute the predictions of an exported file in place")  # fmt: skip
    parser.add_argument("--run", metavar="CASES_JSON", help="launch every kernel once")
    parser.add_argument("--time", action="store_true",
                        help="with --run: ns per conversion (CUDA events, loop kernels)")  # fmt: skip
    parser.add_argument("--out", default="", help="with --run: write the results here")
    parser.add_argument("--dump", default="", help="with --run: write TTGIR/PTX/SASS here")
    args = parser.parse_args()
    if args.export:
        export(args.export, args.heldout)
    if args.predict:
        data = json.loads(Path(args.predict).read_text())
        add_predictions(data)
        Path(args.predict).write_text(json.dumps(data, indent=1))
    if args.run:
        result = run(args.run, args.time, args.dump)
        text = json.dumps(result)
        if args.out:
            Path(args.out).write_text(text)
        print(text)


if __name__ == "__main__":
    main()
