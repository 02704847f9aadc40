"""Triton 3.9 oracle worker for Blackwell tensor-memory layouts (run in a subprocess: Triton
aborts the process on invalid input).

stdin: a JSON list of cases ``{"dtype": "float16", "shape": [M, N], "alloc_shape": [..],
"layout": {"kind": "tmem", "block": [bm, bn], "col_stride": c, "cga_layout": [..],
"two_ctas": bool, "fp4_padded": bool} | {"kind": "scales", "cga_layout": [..]},
"num_warps": w, "atom": "32x32b" | "16x64b" | "16x128b" | "16x256b" | "32x32b_splitn"}``.
stdout: one JSON line per case, flushed at once: ``{"memory": {"row": .., "col": ..},
"ttgir": "<the memory encoding's attribute text>", "register": null | {"reg_bases": ..,
"lane_bases": .., "warp_bases": .., "block_bases": .., "shape": ..}}`` where ``register``
is what Gluon's ``get_tmem_reg_layout`` (``_compute_tmem_reg_layout``) returns, or
``{"error": "..."}`` when Triton raised a Python exception.  ``"atom": null`` skips the
register layout.
"""

import json
import sys


def main() -> None:
    from triton._C.libtriton import gluon_ir, ir
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language._semantic import _compute_tmem_reg_layout
    from triton.experimental.gluon.language.nvidia import blackwell

    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    for case in json.loads(sys.stdin.read()):
        try:
            spec = case["layout"]
            if spec["kind"] == "tmem":
                layout = blackwell.TensorMemoryLayout(
                    tuple(spec["block"]),
                    spec["col_stride"],
                    spec.get("cga_layout", []),
                    spec.get("two_ctas", False),
                    spec.get("fp4_padded", False),
                )
            else:
                layout = blackwell.TensorMemoryScalesLayout(spec.get("cga_layout", []))
            dtype = getattr(ttgl, case["dtype"])
            attr = layout._to_ir(builder)
            memdesc = builder.get_tensor_mem_desc_ty(
                dtype.to_ir(builder), case["shape"], attr, case["alloc_shape"]
            )
            text = str(memdesc)
            start = text.index("#ttng.")
            ttgir = text[start : text.index(", #ttng.tensor_memory,")]
            memory = builder.to_linear_layout(attr, case["shape"])
            record = {
                "memory": {"row": memory.rows, "col": memory.cols},
                "ttgir": ttgir,
                "register": None,
            }
            if case.get("atom") is not None:
                reg = _compute_tmem_reg_layout(
                    dtype,
                    case["shape"],
                    case["alloc_shape"],
                    layout,
                    case["num_warps"],
                    case["atom"],
                )
                record["register"] = {
                    "reg_bases": reg.reg_bases,
                    "lane_bases": reg.lane_bases,
                    "warp_bases": reg.warp_bases,
                    "block_bases": reg.block_bases,
                    "shape": list(reg.shape),
                }
            print(json.dumps(record), flush=True)
        except Exception as error:  # a Python-level refusal, reported per case
            print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)


if __name__ == "__main__":
    main()
