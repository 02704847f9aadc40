"""Translation validation: prove what an installed Triton emits for layout-carrying operations.

The modules: ``compile`` (runs an installed Triton, any release, out of process), ``harness``
(one kernel that exercises each operation of a TTGIR module), ``llvm_ir`` (reads the emitted
LLVM IR), ``symbolic`` (tagged values and hash-consed expression DAGs), ``executor`` (runs every
thread of the CTA over those values, vectorised), ``checks`` (the exact checks and verdicts) and
``validate`` (the API the CLI calls).  docs/validation.md explains the method.

Beside them: ``compile_worker`` (the worker process of ``compile``), ``instructions`` (plain
LLVM instructions), ``intrinsics`` (NVIDIA/AMD intrinsics: shuffles, ldmatrix, barriers),
``ptx`` (inline PTX), ``memory`` (shared and global memory: races, bounds, uninitialised
reads), ``replay`` (concrete evaluation of DAG nodes for counterexamples), ``dumped``
(artifacts Triton dumped), ``observe`` (executed shared accesses against llverify's
predictions) and ``sweep`` (the generated validation sweep).
"""
