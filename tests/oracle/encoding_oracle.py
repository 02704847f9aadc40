"""Triton 3.9 oracle worker for encoding converters (run in a subprocess: Triton aborts the
process on invalid input).

stdin: a JSON list of cases {"layout": "<Python expression building a Gluon layout>",
"shape": [..]}; the expression is evaluated with ``ttgl`` (gluon.language), ``amd``
(gluon.language.amd) and ``blackwell`` (gluon.language.nvidia.blackwell) in scope.
stdout: one JSON line per case: {"bases": {in_dim: bases}, "ttgir": "<attribute text>"}
or {"error": "..."} when Triton raised a Python exception.  The test code controls every
expression sent here.
"""

import json
import sys


def main() -> None:
    from triton._C.libtriton import gluon_ir, ir
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language import amd
    from triton.experimental.gluon.language.nvidia import blackwell

    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    scope = {"ttgl": ttgl, "amd": amd, "blackwell": blackwell, "builder": builder}
    for case in json.loads(sys.stdin.read()):
        try:
            layout = eval(case["layout"], scope)  # noqa: S307 - test-controlled text
            attr = layout._to_ir(builder)
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
            ttgir = ""
            try:
                text = str(builder.get_distributed_ty(builder.get_half_ty(), case["shape"], attr))
                ttgir = text[text.index(", ") + 2 : -1]
            except Exception:  # shared encodings have no distributed type
                ttgir = ""
            print(json.dumps({"bases": bases, "ttgir": ttgir}), flush=True)
        except Exception as error:  # a Python-level refusal, reported per case
            print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)


if __name__ == "__main__":
    main()
