"""Worker process of :mod:`llverify.triton.verify`: Triton's own MLIR parser and verifier on
one TTGIR file.

Run as a script (``python verify_worker.py FILE``); it imports only the standard library and
Triton's compiled extension (never llverify), loads every dialect Triton registers (the
common ones, NVIDIA's and AMD's), parses and verifies FILE, and prints one line of JSON:
``{"ok": true, "version": V}``, ``{"ok": false, "version": V, "error": "..."}`` (the
diagnostics, ``loc("FILE":LINE:COL): error: ...``, are on its stderr) or ``{"ok": null,
"error": "..."}`` when Triton cannot be imported.  Triton may abort the process instead.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import sys


def main() -> None:
    """Parse and verify ``sys.argv[1]``; print the answer."""
    try:
        libtriton = importlib.import_module("triton._C.libtriton")
        version = importlib.metadata.version("triton")
    except Exception as error:  # noqa: BLE001 - no Triton here: say why
        print(json.dumps({"ok": None, "error": f"{type(error).__name__}: {error}"}), flush=True)
        return
    context = libtriton.ir.context()
    libtriton.ir.load_dialects(context)
    for backend in ("nvidia", "amd"):
        extension = getattr(libtriton, backend, None)
        if extension is not None and hasattr(extension, "load_dialects"):
            extension.load_dialects(context)
    try:
        libtriton.ir.parse_mlir_module(sys.argv[1], context)
    except Exception as error:  # noqa: BLE001 - a refusal, reported
        print(json.dumps({"ok": False, "version": version, "error": str(error)}), flush=True)
        return
    print(json.dumps({"ok": True, "version": version}), flush=True)


if __name__ == "__main__":
    main()
