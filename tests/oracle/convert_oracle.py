# ruff: noqa: N803, N818
"""Oracle worker: Triton 3.9's own lowering decision for ``ttg.convert_layout``.

Run as a separate process (never import it into the test process): a violated precondition
makes Triton abort, and nanobind prints "leaked ..." lines on stderr at exit.

Method (no GPU, no ptxas): a tiny Gluon kernel loads a tensor in layout ``a``, converts it
with ``ttgl.convert_layout`` to layout ``b`` and stores it.  It is compiled with
``triton.compile`` for ``GPUTarget("cuda", 90, 32)``; a stages-inspection hook replaces the
"llir" stage by the first part of Triton's own ``make_llir`` pipeline (scf-to-cf, inliner,
``allocate_shared_memory_nv``, ``to_llvmir``) and stops there, so the module is inspected in
the MLIR LLVM dialect right after ``ConvertLayoutOpToLLVM`` ran:

* ``ttg.shared > 0`` (the allocation analysis gave the conversion scratch memory; nothing else
  in the kernel uses shared memory) -> "shared memory";
* an ``nvvm.shfl.sync`` -> "warp shuffle";
* otherwise, any op located on the ``convert_layout`` source line (``transferWithinThread``
  unpacks and repacks the register struct there) -> "register permutation"; none (the op was
  replaced by its operand) -> "no-op".

Protocol: stdin a JSON list of cases ``{"id", "a", "b", "shape", "num_warps"}``, layouts as
``{"t": "blocked", "spt", "tpw", "wpc", "order"}``, ``{"t": "mma", "version", "wpc",
"instr"}``, ``{"t": "dot", "idx", "parent", "kw"}``, ``{"t": "slice", "dim", "parent"}``.
stdout: ``@@ {"id": ..., "kind": ..., "shared": int}`` per case (or ``"error"``), flushed at
once, then ``@@DONE <count>``.
"""

from __future__ import annotations

import json
import os
import re
import sys

CVT_LINE_1D = CVT_LINE_2D = -1


class _Stop(Exception):
    pass


def main() -> None:
    import triton
    from triton import knobs
    from triton._C.libtriton import ir, nvidia, passes
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    def partial_llir(mod, metadata):
        pm = ir.pass_manager(mod.context)
        passes.convert.add_scf_to_cf(pm)
        passes.gluon.add_inliner(pm)
        nvidia.passes.ttgpuir.add_allocate_shared_memory_nv(pm, 90, 80)
        nvidia.passes.ttgpuir.add_to_llvmir(pm, 90, 80)
        pm.run(mod, "convert_oracle")
        raise _Stop(mod.get_int_attr("ttg.shared") or 0, mod.str())

    def hook(*args):
        if not args:
            return ("convert_oracle", "1")
        stages = args[1]
        stages["llir"] = partial_llir

    knobs.runtime.add_stages_inspection_hook = hook

    @gluon.jit
    def cvt2d(ptr, A: ttgl.constexpr, B: ttgl.constexpr, M: ttgl.constexpr, N: ttgl.constexpr):
        offs_m = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, A))
        offs_n = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, A))
        x = ttgl.load(ptr + offs_m[:, None] * N + offs_n[None, :])
        y = ttgl.convert_layout(x, B)  # CVT2D
        offs_m2 = ttgl.arange(0, M, layout=ttgl.SliceLayout(1, B))
        offs_n2 = ttgl.arange(0, N, layout=ttgl.SliceLayout(0, B))
        ttgl.store(ptr + M * N + offs_m2[:, None] * N + offs_n2[None, :], y)

    @gluon.jit
    def cvt1d(ptr, A: ttgl.constexpr, B: ttgl.constexpr, M: ttgl.constexpr):
        x = ttgl.load(ptr + ttgl.arange(0, M, layout=A))
        y = ttgl.convert_layout(x, B)  # CVT1D
        ttgl.store(ptr + M + ttgl.arange(0, M, layout=B), y)

    source = open(__file__).read().splitlines()
    line_of = {
        tag: next(i + 1 for i, text in enumerate(source) if text.rstrip().endswith("# " + tag))
        for tag in ("CVT2D", "CVT1D")
    }

    def build(spec):
        t = spec["t"]
        if t == "blocked":
            return ttgl.BlockedLayout(spec["spt"], spec["tpw"], spec["wpc"], spec["order"])
        if t == "mma":
            return ttgl.NVMMADistributedLayout(spec["version"], spec["wpc"], spec["instr"])
        if t == "dot":
            return ttgl.DotOperandLayout(spec["idx"], build(spec["parent"]), spec["kw"])
        if t == "slice":
            return ttgl.SliceLayout(spec["dim"], build(spec["parent"]))
        raise ValueError(t)

    def on_line(text: str, line: int) -> bool:
        """Whether an operation of the function body is located on ``line`` of this file."""
        aliases: dict[str, str] = {}
        for m in re.finditer(r"^(#loc\d*) = loc\((.*)\)$", text, re.M):
            aliases[m.group(1)] = m.group(2)

        def lines(loc: str, depth: int = 0) -> set[int]:
            found = {int(x) for x in re.findall(r'convert_oracle\.py":(\d+):', loc)}
            if depth < 8:
                for ref in re.findall(r"#loc\d*", loc):
                    if ref in aliases:
                        found |= lines(aliases[ref], depth + 1)
            return found

        body = [ln for ln in text.splitlines() if not ln.startswith("#loc")]
        for ln in body:
            m = re.search(r"loc\((.*)\)\s*$", ln)
            if m and "llvm." in ln and line in lines(m.group(1)):
                return True
        return False

    cases = json.loads(sys.stdin.read())
    target = GPUTarget("cuda", 90, 32)
    for case in cases:
        shape = case["shape"]
        a, b = build(case["a"]), build(case["b"])
        if len(shape) == 2:
            fn, tag = cvt2d, "CVT2D"
            consts = {"A": a, "B": b, "M": shape[0], "N": shape[1]}
        else:
            fn, tag = cvt1d, "CVT1D"
            consts = {"A": a, "B": b, "M": shape[0]}
        sig = {"ptr": "*fp16", **{k: "constexpr" for k in consts}}
        src = gluon._runtime.GluonASTSource(fn, signature=sig, constexprs=consts)
        result: dict = {"id": case["id"]}
        try:
            triton.compile(src, target=target, options={"num_warps": case["num_warps"]})
            result["error"] = "compilation did not stop at the llir stage"
        except _Stop as stop:
            shared, text = stop.args
            result["shared"] = shared
            if shared > 0:
                result["kind"] = "shared memory"
            elif "nvvm.shfl.sync" in text:
                result["kind"] = "warp shuffle"
            elif on_line(text, line_of[tag]):
                result["kind"] = "register permutation"
            else:
                result["kind"] = "no-op"
        except Exception as error:  # a Python-level failure, not an abort
            result["error"] = f"{type(error).__name__}: {error}"[:500]
        print("@@ " + json.dumps(result), flush=True)
    print(f"@@DONE {len(cases)}", flush=True)
    sys.stdout.flush()
    os._exit(0)  # skip nanobind's leak report


if __name__ == "__main__":
    main()
