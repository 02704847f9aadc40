"""Oracle worker: Triton 3.9's shared-memory bank-conflict count (``ttgl.bank_conflicts``).

``ttgl.bank_conflicts(distributed_type, shared_memory_descriptor_type)`` lowers to the
GluonOpBuilder method ``get_shared_bank_conflicts(reg_attr, shared_attr, shape, bitwidth)``
(python/src/gluon_ir.cc), which calls ``bankConflictsMemDesc`` from GenericSwizzling.cpp.
This worker calls that method directly inside a module without a ``ttg.target`` attribute
(the NVIDIA path, 32 banks); it is the same C++ call a compiled Gluon probe kernel makes,
about 1000x faster than compiling one kernel per case.  (With ``ttg.target = "hip:gfx9xx"``
Triton 3.9 aborts in that method: it asks the shared layout for an in dim ``vector`` that it
does not have, so there is no AMD oracle.)

Run as a separate process (never import it into the test process): a violated precondition
makes Triton abort the whole process, and nanobind prints "leaked ..." lines at exit.

Protocol
--------
stdin: a JSON list of cases ``{"id": str, "reg": R, "shared": S, "shape": [..], "bits": int}``
with ``R = {"reg": [[..]], "lane": [[..]], "warp": [[..]]}`` (a DistributedLinearLayout) and
``S`` one of ``{"offset": [[..]]}`` (SharedLinearLayout), ``{"swizzled": [vec, per_phase,
max_phase, order]}`` or ``{"nvmma": [swizzle_bytes, element_bits, transposed]}``.
stdout: one line per case, ``@@ <json>`` with ``{"id", "bank": int, "shared_bases":
offset bases as Triton builds them}`` (or ``"error"``), flushed at once; ``@@DONE <count>``
at a clean end.
"""

from __future__ import annotations

import json
import sys
from typing import Any


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
    module = builder.create_module()
    function = builder.get_or_insert_function(
        module, "probe", builder.get_function_ty([], []), "public", False
    )
    module.push_back(function)
    builder.set_insertion_point_to_start(function.add_entry_block())

    def shared_layout(spec: dict[str, Any]) -> Any:
        if "offset" in spec:
            return ttgl.SharedLinearLayout(spec["offset"])
        if "swizzled" in spec:
            vec, per_phase, max_phase, order = spec["swizzled"]
            return ttgl.SwizzledSharedLayout(vec, per_phase, max_phase, list(order))
        swizzle, bits, transposed = spec["nvmma"]
        return ttgl.NVMMASharedLayout(swizzle, bits, rank=2, transposed=transposed)

    cases = json.load(sys.stdin)
    out = sys.stdout
    for case in cases:
        try:
            shape = list(case["shape"])
            r = case["reg"]
            reg = ttgl.DistributedLinearLayout(r["reg"], r["lane"], r["warp"], [], shape)
            shared = shared_layout(case["shared"])
            shared_attr = shared._to_ir(builder)
            bank = builder.get_shared_bank_conflicts(
                reg._to_ir(builder), shared_attr, shape, int(case["bits"])
            )
            linear = builder.to_linear_layout(shared_attr, shape)
            bases = [[int(c) for c in basis] for basis in linear.offset_bases]
            record = {"id": case["id"], "bank": int(bank), "shared_bases": bases}
        except Exception as error:  # a Python-level error (an abort kills us instead)
            record = {"id": case["id"], "error": f"{type(error).__name__}: {error}"}
        out.write("@@ " + json.dumps(record) + "\n")
        out.flush()
    out.write(f"@@DONE {len(cases)}\n")
    out.flush()


if __name__ == "__main__":
    main()
