"""Triton's own MLIR parser and verifier on many TTGIR modules, in one process (the test
oracle of the TTGIR reader's well-formedness checks, ``tests/test_ttgir_wellformed.py``).

Reads a JSON list of file paths on stdin; for each prints one line of JSON, ``{"ok": true}``
or ``{"ok": false, "stderr": "loc(...): error: ..."}`` (Triton's diagnostics, read from file
descriptor 2 while it parsed that file).  Imports only the standard library and Triton.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile


def main() -> None:
    from triton._C.libtriton import amd, ir, nvidia

    context = ir.context()
    ir.load_dialects(context)
    nvidia.load_dialects(context)
    amd.load_dialects(context)
    saved = os.dup(2)
    for path in json.load(sys.stdin):
        with tempfile.TemporaryFile() as capture:
            os.dup2(capture.fileno(), 2)
            try:
                ir.parse_mlir_module(path, context)
                ok = True
            except Exception:  # noqa: BLE001 - a refusal, reported
                ok = False
            finally:
                os.dup2(saved, 2)
            capture.seek(0)
            stderr = capture.read().decode(errors="replace")
        print(json.dumps({"ok": ok, "stderr": stderr}), flush=True)


if __name__ == "__main__":
    main()
