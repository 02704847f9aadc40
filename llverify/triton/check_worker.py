"""Worker process of :mod:`llverify.triton.check` (Triton may abort on invalid input).

stdin: a JSON list of ``{"spec": {"class": ..., "kwargs": ...}, "shape": [...]}``; stdout:
one ``@@ {"bases": {in_dim: bases}}`` or ``@@ {"error": "..."}`` line per case, flushed at
once.  Specs are data (whitelisted Gluon classes and their keywords), never code.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    from triton._C.libtriton import gluon_ir, ir
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language import amd

    from llverify.triton.check import build_gluon

    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    modules = {"ttgl": ttgl, "amd": amd}
    for case in json.loads(sys.stdin.read()):
        try:
            attr = build_gluon(case["spec"], modules)._to_ir(builder)
            linear = builder.to_linear_layout(attr, case["shape"])
            if hasattr(linear, "offset_bases"):
                bases = {"offset": linear.offset_bases, "block": linear.block_bases}
            else:
                bases = {
                    "register": linear.reg_bases,
                    "lane": linear.lane_bases,
                    "warp": linear.warp_bases,
                    "block": linear.block_bases,
                }
            print("@@ " + json.dumps({"bases": bases}), flush=True)
        except Exception as error:  # a Python-level refusal, reported per case
            print("@@ " + json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)


if __name__ == "__main__":
    main()
