"""Worker process of :mod:`llverify.triton.check` (Triton may abort on invalid input).

It speaks :mod:`llverify.triton.protocol`: the request is a list of ``{"spec": {"class": ...,
"kwargs": ...}, "shape": [...]}``; one answer per case, ``{"bases": {in_dim: bases}}`` or
``{"error": "..."}``.  Specs are data (whitelisted Gluon classes and their keywords), never
code.
"""

from __future__ import annotations

import sys

from llverify.triton import protocol


def main() -> None:
    """Answer each case of the request with Triton's bases of its layout, or the error."""
    from triton._C.libtriton import ir

    from llverify.triton.check import build_gluon, gluon_modules

    modules = gluon_modules()
    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = modules["gluon_ir"].GluonOpBuilder(ctx)
    for case in protocol.read_request(sys.stdin):
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
            protocol.answer({"bases": bases})
        except Exception as error:  # a Python-level refusal, reported per case
            protocol.answer({"error": f"{type(error).__name__}: {error}"})


if __name__ == "__main__":
    main()
