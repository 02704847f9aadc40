"""Oracle worker: Triton 3.9's linear layout of SwizzledSharedLayout(vec, perPhase, maxPhase).

Run as a separate process (never import it into the test process): a violated
precondition makes Triton abort the whole process, and nanobind prints "leaked ..."
lines on stderr at exit.

Protocol
--------
stdin: a JSON list of cases ``{"id": str, "vec": int, "per_phase": int, "max_phase": int,
"order": [int, int], "shape": [R, C]}``.
stdout: one line per finished case, ``@@ <json>`` with ``{"id": ..., "result":
offset_bases}`` (a list of ``[dim0, dim1]``), flushed at once so that when Triton aborts
the caller knows which case killed the process; a final ``@@DONE <count>`` marks a clean
end.  A Python exception gives ``{"id": ..., "error": "..."}`` instead.

``--version`` prints Triton's version.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    import triton

    if sys.argv[1:] == ["--version"]:
        print(triton.__version__)
        return
    from triton._C.libtriton import gluon_ir, ir
    from triton.experimental.gluon import language as ttgl

    context = ir.context()
    ir.load_dialects(context)
    builder = gluon_ir.GluonOpBuilder(context)
    cases = json.load(sys.stdin)
    out = sys.stdout
    for case in cases:
        try:
            layout = ttgl.SwizzledSharedLayout(
                case["vec"], case["per_phase"], case["max_phase"], list(case["order"])
            )
            linear = builder.to_linear_layout(layout._to_ir(builder), list(case["shape"]))
            bases = [[int(c) for c in basis] for basis in linear.offset_bases]
            record = {"id": case["id"], "result": bases}
        except Exception as error:  # a Python-level error (an abort kills us instead)
            record = {"id": case["id"], "error": f"{type(error).__name__}: {error}"}
        out.write("@@ " + json.dumps(record) + "\n")
        out.flush()
    out.write(f"@@DONE {len(cases)}\n")
    out.flush()


if __name__ == "__main__":
    main()
