"""Triton 3.9's parser and verifier on ``#ttg.generic_linear`` / ``#ttg.linear`` modules (the
oracle of tests/test_encodings_generic_linear.py; run in a subprocess: Triton aborts the
process on a layout that does not cover its out dims).

stdin: a JSON list of module texts, each holding one ``arith.constant`` whose tensor type
carries the encoding under test.  stdout: one JSON line per module, flushed at once:
``{"ok": true, "bases": [register, lane, warp, block], "shape": [...]}`` (the bases Triton
parsed, read back through Gluon's ``get_gluon_layout_from_tensor``) or ``{"ok": false,
"stderr": "..."}`` (Triton's diagnostic).  Imports only the standard library and Triton.
"""

import json
import os
import sys
import tempfile


def _collector(found):
    def visit(op):
        if op.get_name() == "arith.constant":
            found.append(op)

    return visit


def main() -> None:
    from triton._C.libtriton import amd, gluon_ir, ir, nvidia

    context = ir.context()
    ir.load_dialects(context)
    nvidia.load_dialects(context)
    amd.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    saved = os.dup(2)
    for text in json.load(sys.stdin):
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as handle:
            handle.write(text)
        with tempfile.TemporaryFile() as capture:
            os.dup2(capture.fileno(), 2)
            record = {"ok": False}
            try:
                module = ir.parse_mlir_module(handle.name, context)
                found: list = []
                module.walk(_collector(found))
                got = builder.get_gluon_layout_from_tensor(found[0].get_result(0))
                record = {
                    "ok": True,
                    "bases": [got.reg_bases, got.lane_bases, got.warp_bases, got.block_bases],
                    "shape": list(got.shape),
                }
            except Exception:  # noqa: BLE001 - a refusal, reported
                pass
            finally:
                os.dup2(saved, 2)
                os.unlink(handle.name)
            capture.seek(0)
            if not record["ok"]:
                record["stderr"] = capture.read().decode(errors="replace")[-600:]
        print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
