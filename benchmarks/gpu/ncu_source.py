"""Per-instruction shared-memory counters from an Nsight Compute report (issue 10).

Reads a ``.ncu-rep`` written with ``--section SourceCounters`` and prints, as JSON, every
profiled ``through_shared`` / ``triton_default`` kernel in launch order with its shared-memory
SASS instructions (LDS, STS, LDSM, STSM, ...) and each one's instanced source counters
(instructions executed, shared wavefronts, ideal wavefronts).  Runs where Nsight Compute is
installed (it imports ``ncu_report`` from Nsight Compute's ``extras/python``)::

    ncu --section SourceCounters --kernel-name regex:'through_shared|triton_default' \\
        -o report python3 benchmarks/gpu/bank_check.py --run CASES.json
    python3 benchmarks/gpu/ncu_source.py report.ncu-rep > source.json
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys
from typing import Any

SHARED_OPCODES = ("LDS", "STS", "LDSM", "STSM", "ATOMS", "LDGSTS")
KERNELS = ("through_shared", "triton_default")


def _import_ncu_report() -> Any:
    ncu = shutil.which("ncu")
    roots = [os.path.dirname(os.path.realpath(ncu))] if ncu else []
    roots += sorted(glob.glob("/opt/nvidia/nsight-compute/*"))
    for root in roots:
        sys.path.append(os.path.join(root, "extras", "python"))
    import ncu_report  # type: ignore[import-not-found]

    return ncu_report


def instructions(action: Any) -> list[dict[str, Any]]:
    """Shared-memory SASS instructions of one profiled kernel with their instanced counters."""
    per_pc: dict[int, dict[str, float]] = {}
    for name in action.metric_names():
        metric = action.metric_by_name(name)
        if not metric.has_correlation_ids():
            continue
        ids = metric.correlation_ids()
        for i in range(metric.num_instances()):
            per_pc.setdefault(ids.as_uint64(i), {})[name] = metric.as_double(i)
    out = []
    for pc in sorted(per_pc):
        sass = action.sass_by_pc(pc) or ""
        opcode = sass.split()[0] if sass.split() else ""
        if opcode.startswith("@"):
            opcode = sass.split()[1]
        if opcode.split(".")[0] not in SHARED_OPCODES:
            continue
        counters = {k: v for k, v in per_pc[pc].items() if v}
        out.append({"pc": pc, "sass": sass, "counters": counters})
    return out


def main() -> None:
    report = _import_ncu_report().load_report(sys.argv[1])
    kernels = []
    for r in range(report.num_ranges()):
        kernel_range = report.range_by_idx(r)
        for a in range(kernel_range.num_actions()):
            action = kernel_range.action_by_idx(a)
            name = action.name()
            if not any(k in name for k in KERNELS):
                continue
            kernels.append({"name": name, "instructions": instructions(action)})
    json.dump(kernels, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
