"""Triton 3.9 oracle worker for the block-scale scale layouts (run in a subprocess: Triton
aborts the process on invalid input).

stdin: a JSON list of cases, each one of

* ``{"kind": "mfma", "args": [op_idx, shape, mdim, tiles_per_warp, warps_per_cta]}``:
  Gluon's ``gluon_ir.get_amd_mfma_scale_layout(*args)``;
* ``{"kind": "wmma", "args": [op_idx, shape, mdim, ndim, transposed, scale_factor, reg_bases,
  warp_bases, cga_bases]}``: Gluon's ``gluon_ir.get_amd_wmma_scale_layout(*args)``;
* ``{"kind": "tmem_scales", "order": "mnThenK" | "kThenMn", "cga": bases, "shape": shape}``:
  Gluon's ``nvidia.rubin.TensorMemoryScalesLayout(cga, order)`` through ``to_linear_layout``
  (``{"rows": .., "cols": .., "shape": ..}``);
* ``{"kind": "sm120", "M": m, "N": n, "K": k, "num_warps": w, "fmt": "e4m3" | "e2m1"}``:
  a ``tl.dot_scaled`` kernel of that tile compiled front-end for ``cuda:120`` (no GPU
  needed); Triton's ``getSM120DotScaledScaleLayout`` is not bound in Python, but its result
  is the ``#ttg.linear`` encoding of the scale operands in the TTGIR.

stdout: one JSON line per case, flushed at once: for "mfma" and "wmma" ``{"reg_bases": ..,
"lane_bases": .., "warp_bases": .., "block_bases": .., "shape": ..}``; for "sm120" ``{"mma": "<the
accumulator's attribute text>", "a_scale": "<attribute text>", "b_scale": "<...>"}`` (the
scale encodings resolved from their ``#alias`` lines), or ``{"error": "..."}`` when the
compiler raised.
"""

import json
import os
import re
import sys
import tempfile


def _make_kernel(triton, tl):
    """The probe kernel, made once (one JIT function for the whole run)."""

    @triton.jit
    def kernel(
        a_ptr,
        b_ptr,
        sa_ptr,
        sb_ptr,
        c_ptr,
        m: tl.constexpr,
        n: tl.constexpr,
        k: tl.constexpr,
        ka: tl.constexpr,
        kb: tl.constexpr,
        fmt: tl.constexpr,
    ):
        offs_m = tl.arange(0, m)
        offs_n = tl.arange(0, n)
        offs_ka = tl.arange(0, ka)
        offs_kb = tl.arange(0, kb)
        a = tl.load(a_ptr + offs_m[:, None] * ka + offs_ka[None, :])
        b = tl.load(b_ptr + offs_kb[:, None] * n + offs_n[None, :])
        offs_s = tl.arange(0, k // 32)
        sa = tl.load(sa_ptr + offs_m[:, None] * (k // 32) + offs_s[None, :])
        sb = tl.load(sb_ptr + offs_n[:, None] * (k // 32) + offs_s[None, :])
        c = tl.dot_scaled(a, sa, fmt, b, sb, fmt)
        tl.store(c_ptr + offs_m[:, None] * n + offs_n[None, :], c)

    return kernel


def _sm120(case, kernel, triton, target):
    fmt = case.get("fmt", "e4m3")
    pack = 2 if fmt == "e2m1" else 1

    elem = "*u8" if fmt == "e2m1" else "*fp8e4nv"
    m, n, k = case["M"], case["N"], case["K"]
    src = triton.compiler.ASTSource(
        kernel,
        signature={"a_ptr": elem, "b_ptr": elem, "sa_ptr": "*u8", "sb_ptr": "*u8",
                   "c_ptr": "*fp32", "m": "constexpr", "n": "constexpr", "k": "constexpr",
                   "ka": "constexpr", "kb": "constexpr", "fmt": "constexpr"},
        constexprs={"m": m, "n": n, "k": k, "ka": k // pack, "kb": k // pack, "fmt": fmt},
    )  # fmt: skip
    compiled = triton.compile(src, target=target, options={"num_warps": case["num_warps"]})
    ttgir = compiled.asm["ttgir"]
    aliases = dict(re.findall(r"^(#\w+) = (#.*)$", ttgir, re.M))
    line = next(x for x in ttgir.splitlines() if "tt.dot_scaled" in x)
    signature = line[line.index(" : tensor<") :]
    scales = re.findall(r"tensor<\d+x\d+xi8, (#\w+)>", signature)
    mma = re.search(r"-> tensor<\d+x\d+xf32, (#\w+)>", signature)
    return {
        "mma": aliases.get(mma.group(1), mma.group(1)) if mma else None,
        "a_scale": aliases.get(scales[0], scales[0]) if scales else None,
        "b_scale": aliases.get(scales[1], scales[1]) if len(scales) > 1 else None,
    }


def main() -> None:
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="llverify-scale-oracle-"))
    import triton
    import triton.language as tl
    from triton._C.libtriton import gluon_ir, ir
    from triton.backends.compiler import GPUTarget

    ctx = ir.context()
    ir.load_dialects(ctx)
    target = GPUTarget("cuda", 120, 32)
    kernel = None
    builder = None
    for case in json.loads(sys.stdin.read()):
        try:
            if case["kind"] in ("mfma", "wmma"):
                helper = getattr(gluon_ir, f"get_amd_{case['kind']}_scale_layout")
                got = helper(*case["args"])
                record = {
                    "reg_bases": got.reg_bases, "lane_bases": got.lane_bases,
                    "warp_bases": got.warp_bases, "block_bases": got.block_bases,
                    "shape": got.shape,
                }  # fmt: skip
            elif case["kind"] == "tmem_scales":
                from triton.experimental.gluon.language.nvidia import rubin

                builder = builder or gluon_ir.GluonOpBuilder(ctx)
                layout = rubin.TensorMemoryScalesLayout(case["cga"], case["order"])
                got = builder.to_linear_layout(layout._to_ir(builder), case["shape"])
                record = {"rows": got.rows, "cols": got.cols, "shape": got.shape}
            else:
                kernel = kernel or _make_kernel(triton, tl)
                record = _sm120(case, kernel, triton, target)
        except Exception as error:  # noqa: BLE001 - reported to the test
            record = {"error": f"{type(error).__name__}: {error}"[:2000]}
        print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
