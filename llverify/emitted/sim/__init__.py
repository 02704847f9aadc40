"""The simulator of emitted code: LLVM IR executed over every thread of a CTA on tagged values.

It knows nothing of Triton's layouts or of llverify's proofs (an import-linter contract keeps
it free of the rest of llverify); the checks of :mod:`llverify.emitted` read what it leaves.

The modules, bottom up:

* ``errors``: :class:`SimError`, the base of the errors it raises on input it cannot use;
* ``llvm_ir``: reads the LLVM IR text Triton emits into typed instructions (one syntax
  handler per opcode);
* ``symbolic``: tagged values of every thread (:class:`Val`: concrete integers or byte
  symbols) and the hash-consed expression DAG (:class:`Dag`) with its reading API;
* ``rewrite``: the DAG's rewriting laws (identity steps, equivalent forms LLVM emits) and
  matching a template against a node;
* ``replay``: concrete evaluation of DAG nodes (counterexample replays);
* ``ranges``: sound ranges of DAG nodes under the run's assumptions (device asserts), which
  decide loads and atomics at addresses that depend on tagged data (gathers);
* ``memory``: shared and global memory with their checks (uninitialised reads, bounds,
  races, conflicting stores);
* ``machine``: :class:`Machine`, what instruction semantics need from the executor;
* ``instructions``, ``intrinsics``, ``ptx``: the semantics of plain LLVM instructions, of
  NVIDIA/AMD intrinsics and of inline PTX, as dispatch tables (opcode, callee family,
  statement mnemonic -> handler);
* ``wgmma``: Hopper's warpgroup MMA (matrix descriptors, shared-memory operand layouts,
  fragments, wgmma-groups whose operand reads are in flight until waited for);
* ``registers``, ``access``, ``control``, ``guarded``, ``buffers``: the parts of the executor
  (values, memory by address space, ``cp.async`` and wgmma groups, SIMT control flow, the
  regions of branches on tagged data run under a path condition, the kernel's arguments);
* ``executor``: :class:`Execution`, one run of a kernel over every thread of its CTAs.

Examples:
    >>> text = '''define void @k(ptr addrspace(1) %0, ptr addrspace(1) %1) {
    ...   %3 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
    ...   %4 = getelementptr float, ptr addrspace(1) %0, i32 %3
    ...   %5 = load float, ptr addrspace(1) %4, align 4
    ...   %6 = fadd float %5, %5
    ...   %7 = getelementptr float, ptr addrspace(1) %1, i32 %3
    ...   store float %6, ptr addrspace(1) %7, align 4
    ...   ret void
    ... }'''
    >>> run = Execution(parse_llvm_ir(text), "k", threads=2, warp_size=2, shared_bytes=0)
    >>> _ = run.add_input(0, "x", element_bytes=4, count=2)
    >>> out = run.add_output(1, "y", element_bytes=4, count=2)
    >>> run.run()
    >>> [run.dag.describe(n) for n in run.output_nodes(out, 4)]
    ['fadd(x[0], x[0])', 'fadd(x[1], x[1])']
"""

from llverify.emitted.sim.control import UnmodelledAt
from llverify.emitted.sim.errors import SimError
from llverify.emitted.sim.executor import Execution
from llverify.emitted.sim.llvm_ir import Instruction, LLVMModule, LLVMParseError, parse_llvm_ir
from llverify.emitted.sim.machine import Machine
from llverify.emitted.sim.memory import OpenRegion, Region, Violation
from llverify.emitted.sim.symbolic import Dag, Val

__all__ = [
    "Dag",
    "Execution",
    "Instruction",
    "LLVMModule",
    "LLVMParseError",
    "Machine",
    "OpenRegion",
    "Region",
    "SimError",
    "UnmodelledAt",
    "Val",
    "Violation",
    "parse_llvm_ir",
]
