# ruff: noqa: N803 - Gluon constexpr arguments are upper case
"""Triton's convert_layout instruction choice on the CPU: llverify vs Triton's own PTX.

For seeded sweep pairs (the conversion zoo, 8/16/32/64-bit, NVIDIA), compiles
``ttgl.convert_layout`` for sm_90 with the installed Triton (no GPU needed) and counts the
PTX shared-memory instructions per thread by kind (``st.shared``/``stmatrix``/
``stmatrix.trans``, the same for loads).  llverify's prediction is
:func:`llverify.shared_memory.swizzle.convert_layout_swizzle` (which tile pair Triton picks) with
:func:`llverify.shared_memory.predict.predict_wavefronts` (how many instructions).  Prints one line
per
pair and a summary; ``--out`` writes JSON.  The H100 run (docs/hardware.md) checks the same
prediction against measured wavefronts for Triton 3.6.

Run: ``python benchmarks/gpu/convert_check.py --pairs 60``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

KINDS = {
    "st": {"ld/st.shared": "st.shared", "matrix": "stmatrix", "matrix.trans": "stmatrix.trans"},
    "ld": {"ld/st.shared": "ld.shared", "matrix": "ldmatrix", "matrix.trans": "ldmatrix.trans"},
}
TYPES = {8: "i8", 16: "fp16", 32: "fp32", 64: "fp64"}


def ptx_counts(ptx: str) -> dict[str, int]:
    """Shared-memory instructions in the PTX, by kind."""
    counts: dict[str, int] = {}
    pattern = r"^\s*(?:@!?%p\d+\s+)?((?:st|ld)\.shared|stmatrix|ldmatrix)([.\w]*)"
    for match in re.finditer(pattern, ptx, re.M):
        head, suffix = match.groups()
        kind = head + (".trans" if ".trans" in suffix else "")
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", default="")
    args = parser.parse_args()

    import triton
    from bank_check import _layout_1d
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    from cases.swizzle_sweep import sweep_cases
    from llverify.shared_memory.predict import predict_wavefronts
    from llverify.shared_memory.swizzle import convert_layout_swizzle

    @gluon.jit
    def convert(inp, out, N: ttgl.constexpr, SRC: ttgl.constexpr, DST: ttgl.constexpr):
        x = ttgl.load(inp + ttgl.arange(0, N, layout=SRC))
        y = ttgl.convert_layout(x, DST)
        ttgl.store(out + ttgl.arange(0, N, layout=DST), y)

    rows: list[dict[str, Any]] = []
    print(f"triton {triton.__version__}")
    for case in sweep_cases(2000, seed=args.seed):
        if len(rows) >= args.pairs:
            break
        if case["target"] != "nvidia" or case["bits"] < 8:
            continue
        src, dst, bits = _layout_1d(case["src"]), _layout_1d(case["dst"]), case["bits"]
        n = src.get_total_out_dim_size()
        if n * bits // 8 > 48 * 1024:
            continue
        warps = src.get_in_dim_size("warp")
        choice = convert_layout_swizzle(src, dst, [n], bits)
        predicted: dict[str, int] = {}
        for op, layout, kind in (("st", src, choice.store), ("ld", dst, choice.load)):
            direction = "store" if op == "st" else "load"
            p = predict_wavefronts(
                layout, choice.layout, [n], bits, direction, instruction=kind, reps=choice.reps
            )
            name = KINDS[op][kind]
            predicted[name] = predicted.get(name, 0) + p.instructions // warps

        def dist(layout: Any, n: int = n) -> Any:
            bases = dict(layout.bases)
            return ttgl.DistributedLinearLayout(
                reg_bases=bases["register"], lane_bases=bases["lane"],
                warp_bases=bases.get("warp", []), block_bases=[], shape=[n],
            )  # fmt: skip

        sig = {"inp": "*" + TYPES[bits], "out": "*" + TYPES[bits], "N": "constexpr",
               "SRC": "constexpr", "DST": "constexpr"}  # fmt: skip
        source = gluon._runtime.GluonASTSource(
            convert, signature=sig, constexprs={"N": n, "SRC": dist(src), "DST": dist(dst)}
        )
        compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32),
                                  options={"num_warps": warps})  # fmt: skip
        measured = ptx_counts(compiled.asm["ptx"])
        agree = measured == predicted
        rows.append({"name": case["name"], "bits": bits, "n": n, "warps": warps,
                     "store": choice.store, "load": choice.load, "reps": choice.reps,
                     "predicted": predicted, "ptx": measured, "agree": agree})  # fmt: skip
        print(f"{'ok  ' if agree else 'DIFF'} {bits:>2}-bit {case['name']}: llverify "
              f"{predicted}, Triton PTX {measured}")  # fmt: skip
    summary = {
        "triton": triton.__version__,
        "pairs": len(rows),
        "agree": sum(r["agree"] for r in rows),
        "matrix_pairs": sum("ld/st.shared" not in (r["store"], r["load"]) or r["store"] != r["load"]
                            for r in rows),
    }  # fmt: skip
    print(json.dumps(summary))
    if args.out:
        Path(args.out).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
