"""Translation validation: prove what an installed Triton emits for layout-carrying operations.

The modules: ``compile`` (runs an installed Triton, any release, out of process), ``harness``
(one kernel that exercises each operation of a TTGIR module), ``llvm_ir`` (reads the emitted
LLVM IR), ``symbolic`` (tagged values and hash-consed expression DAGs), ``executor`` (runs every
thread of the CTA over those values, vectorised), ``checks`` (the exact checks and verdicts) and
``validate`` (the API the CLI calls).  docs/validation.md explains the method.
"""
