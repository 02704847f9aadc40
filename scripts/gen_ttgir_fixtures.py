"""Regenerate tests/data/ttgir/*.ttgir: real TTGIR that Triton 3.9 emits for small kernels.

Run: TRITON_DEFAULT_FP_FUSION=1 python scripts/gen_ttgir_fixtures.py
(needs `pip install '.[triton]'`).

No GPU is needed: ``triton.compile`` is given an explicit ``GPUTarget`` and we only read
``compiled.asm["ttgir"]`` (the later LLVM / PTX / AMDGCN stages also run on the CPU).
Each kernel is compiled for the targets listed in ``CASES``; a target that fails to compile
is reported and skipped.  The files are written verbatim (Triton's first line is kept, no
comments are added).  ``tests/data/ttgir/README.md`` indexes every file with op counts.

Options: ``--only SUBSTR`` regenerates only the cases whose name contains SUBSTR (the
README is then rebuilt from all .ttgir files present).
"""

# Kernel arguments follow Triton's tutorials: sizes and constexprs are upper case.
# ruff: noqa: N803

from __future__ import annotations

import argparse
import os
import re
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "ttgir"
COMMAND = "TRITON_DEFAULT_FP_FUSION=1 python scripts/gen_ttgir_fixtures.py"

TARGETS = {
    "sm80": GPUTarget("cuda", 80, 32),
    "sm90": GPUTarget("cuda", 90, 32),
    "gfx942": GPUTarget("hip", "gfx942", 64),
    "gfx950": GPUTarget("hip", "gfx950", 64),
}


# --------------------------------------------------------------------------- kernels


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    ACC_INT: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = (pid_m * BM + tl.arange(0, BM)) % M
    offs_n = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    if ACC_INT:
        acc = tl.zeros((BM, BN), dtype=tl.int32)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=c_mask)


@triton.jit
def attn_fwd_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    sm_scale,
    N_CTX,
    stride_qm,
    stride_kn,
    stride_vn,
    stride_om,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    off_bh = tl.program_id(1)
    base = off_bh.to(tl.int64) * N_CTX * HEAD_DIM
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * stride_qm + offs_d[None, :])
    k_ptrs = k_ptr + base + offs_n[None, :] * stride_kn + offs_d[:, None]  # K^T: [D, BLOCK_N]
    v_ptrs = v_ptr + base + offs_n[:, None] * stride_vn + offs_d[None, :]  # V:   [BLOCK_N, D]
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BLOCK_N):
        k = tl.load(k_ptrs + start_n * stride_kn)
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs + start_n * stride_vn)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_ptrs = o_ptr + base + offs_m[:, None] * stride_om + offs_d[None, :]
    tl.store(o_ptrs, acc.to(o_ptr.dtype.element_ty))


@triton.jit
def softmax_kernel(
    out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_row_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def layernorm_fwd_kernel(
    x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(x_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + cols, y, mask=mask)


@triton.jit
def transpose_kernel(in_ptr, out_ptr, stride_in, stride_out, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    x = tl.load(in_ptr + offs_m[:, None] * stride_in + offs_n[None, :])  # [BM, BN]
    y = tl.trans(x)  # [BN, BM]
    tl.store(out_ptr + offs_n[:, None] * stride_out + offs_m[None, :], y)


@triton.jit
def broadcast_reduce_kernel(
    x_ptr, y_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    # out[m, n] = max_k (x[m, k] + y[k, n]) via a rank-3 broadcast and a reduction over k.
    # (max-plus, not sum-times: Triton's combine pass would turn sum(x3 * y3) into a tt.dot.)
    offs_m = tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    x = tl.load(x_ptr + offs_m[:, None] * BK + offs_k[None, :])  # [BM, BK]
    y = tl.load(y_ptr + offs_k[:, None] * BN + offs_n[None, :])  # [BK, BN]
    x3 = tl.broadcast_to(tl.expand_dims(x, 2), (BM, BK, BN))
    y3 = tl.broadcast_to(tl.expand_dims(y, 0), (BM, BK, BN))
    out = tl.max(x3 + y3, axis=1)  # [BM, BN]
    # and a reduction along a plain broadcast axis (every term equal along axis 0)
    col = tl.sum(tl.broadcast_to(tl.expand_dims(tl.sum(y, axis=0), 0), (BM, BN)), axis=0)
    out = out + col[None, :]
    tl.store(out_ptr + offs_m[:, None] * BN + offs_n[None, :], out)


@triton.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    offs_m = tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    src = tl.load(src_ptr + offs_m[:, None] * BN + offs_n[None, :])
    idx = tl.load(idx_ptr + offs_m[:, None] * BN + offs_n[None, :])
    out = tl.gather(src, idx, 0)
    tl.store(out_ptr + offs_m[:, None] * BN + offs_n[None, :], out)


@triton.jit
def big_kernel(x_ptr, w_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr, STEPS: tl.constexpr):
    # Many statically unrolled steps: load a weight tile, a small dot, a row softmax, a
    # transpose and a column reduction.  Gives a long module mixing mma / blocked /
    # slice layouts and many convert_layouts.
    offs_m = tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    x = tl.load(x_ptr + offs_m[:, None] * BN + offs_n[None, :]).to(tl.float32)
    for s in tl.static_range(STEPS):
        w = tl.load(w_ptr + s * BN * BN + offs_n[:, None] * BN + offs_n[None, :])
        h = tl.dot(x.to(tl.float16), w)
        h = h - tl.max(h, axis=1)[:, None]
        e = tl.exp(h)
        p = e / tl.sum(e, axis=1)[:, None]
        t = tl.trans(p)
        x = p + tl.sum(t, axis=0)[:, None] * (1.0 / (s + 1))
    tl.store(out_ptr + offs_m[:, None] * BN + offs_n[None, :], x.to(tl.float16))


# --------------------------------------------------------------------------- cases


@dataclass
class Case:
    name: str
    kernel: object
    target: str
    dtype: str
    signature: dict
    constexprs: dict
    options: dict = field(default_factory=dict)
    note: str = ""

    def attrs(self) -> dict:
        """What Triton's JIT would specialize for 16-byte-aligned tensors and sizes/strides
        that are multiples of 16: ``tt.divisibility = 16`` on every pointer argument and on
        every integer argument except those named in ``NOT_DIV16``."""
        names = self.kernel.arg_names
        out = {}
        for arg, ty in self.signature.items():
            if ty.startswith("*") or (ty == "i32" and arg not in NOT_DIV16):
                out[(names.index(arg),)] = [["tt.divisibility", 16]]
        return out


# integer arguments left without a divisibility hint (row counts, odd sizes)
NOT_DIV16 = {"n_rows", "n_cols", "N_CTX"}


def _matmul_sig(in_ty: str, out_ty: str) -> dict:
    # row-major A, B, C: the unit strides are constexpr 1, as Triton's JIT specializes them
    sig = {
        "a_ptr": f"*{in_ty}",
        "b_ptr": f"*{in_ty}",
        "c_ptr": f"*{out_ty}",
        "M": "i32",
        "N": "i32",
        "K": "i32",
        "stride_am": "i32",
        "stride_ak": "constexpr",
        "stride_bk": "i32",
        "stride_bn": "constexpr",
        "stride_cm": "i32",
        "stride_cn": "constexpr",
        "BM": "constexpr",
        "BN": "constexpr",
        "BK": "constexpr",
        "ACC_INT": "constexpr",
    }
    return sig


def _matmul(name, target, in_ty, out_ty, bk, acc_int=False, num_warps=8, **opts) -> Case:
    dtype = {"fp16": "fp16", "fp8e4nv": "fp8 e4m3", "i8": "int8"}[in_ty]
    return Case(
        name,
        matmul_kernel,
        target,
        dtype,
        _matmul_sig(in_ty, out_ty),
        {
            "stride_ak": 1,
            "stride_bn": 1,
            "stride_cn": 1,
            "BM": 128,
            "BN": 128,
            "BK": bk,
            "ACC_INT": acc_int,
        },
        {"num_warps": num_warps, **opts},
    )


def cases() -> list[Case]:
    out: list[Case] = []
    # 1. matmul
    for t in ("sm80", "sm90", "gfx942", "gfx950"):
        out.append(_matmul(f"matmul_fp16_{t}", t, "fp16", "fp16", 64))
    for t in ("sm90", "gfx950"):
        out.append(_matmul(f"matmul_fp8e4m3_{t}", t, "fp8e4nv", "fp16", 128))
    for t in ("sm80", "sm90"):
        out.append(_matmul(f"matmul_int8_{t}", t, "i8", "i32", 128, acc_int=True))
    c = _matmul("matmul_fp16_sm90_ns3", "sm90", "fp16", "fp16", 64, num_stages=3)
    c.note = "num_stages=3 given explicitly; the CUDA default is 3: same text as matmul_fp16_sm90"
    out.append(c)
    c = _matmul("matmul_fp16_sm90_ns1", "sm90", "fp16", "fp16", 64, num_stages=1)
    c.note = "num_stages=1: no software pipelining, for contrast"
    out.append(c)
    # 2. fused attention forward
    attn_sig = {
        "q_ptr": "*fp16",
        "k_ptr": "*fp16",
        "v_ptr": "*fp16",
        "o_ptr": "*fp16",
        "sm_scale": "fp32",
        "N_CTX": "i32",
        "stride_qm": "i32",
        "stride_kn": "i32",
        "stride_vn": "i32",
        "stride_om": "i32",
        "HEAD_DIM": "constexpr",
        "BLOCK_M": "constexpr",
        "BLOCK_N": "constexpr",
    }
    for t in ("sm90", "sm80"):
        out.append(
            Case(
                f"attn_fwd_fp16_{t}",
                attn_fwd_kernel,
                t,
                "fp16",
                attn_sig,
                {"HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64},
                {"num_warps": 4},
            )
        )
    # 3. softmax
    for ty in ("fp32", "fp16"):
        out.append(
            Case(
                f"softmax_{ty}_sm80",
                softmax_kernel,
                "sm80",
                ty,
                {
                    "out_ptr": f"*{ty}",
                    "in_ptr": f"*{ty}",
                    "in_row_stride": "i32",
                    "out_row_stride": "i32",
                    "n_rows": "i32",
                    "n_cols": "i32",
                    "BLOCK_SIZE": "constexpr",
                },
                {"BLOCK_SIZE": 1024},
                {"num_warps": 4},
            )
        )
    # 4. layernorm
    out.append(
        Case(
            "layernorm_fwd_fp16_sm80",
            layernorm_fwd_kernel,
            "sm80",
            "fp16",
            {
                "x_ptr": "*fp16",
                "y_ptr": "*fp16",
                "w_ptr": "*fp16",
                "b_ptr": "*fp16",
                "mean_ptr": "*fp32",
                "rstd_ptr": "*fp32",
                "stride": "i32",
                "N": "i32",
                "eps": "fp32",
                "BLOCK_SIZE": "constexpr",
            },
            {"BLOCK_SIZE": 1024},
            {"num_warps": 4},
        )
    )
    # 5. transpose
    for t in ("sm90", "gfx942"):
        out.append(
            Case(
                f"transpose_fp16_{t}",
                transpose_kernel,
                t,
                "fp16",
                {
                    "in_ptr": "*fp16",
                    "out_ptr": "*fp16",
                    "stride_in": "i32",
                    "stride_out": "i32",
                    "BM": "constexpr",
                    "BN": "constexpr",
                },
                {"BM": 64, "BN": 64},
                {"num_warps": 4},
            )
        )
    # 6. reduction over a broadcast layout
    out.append(
        Case(
            "broadcast_reduce_fp32_sm80",
            broadcast_reduce_kernel,
            "sm80",
            "fp32",
            {
                "x_ptr": "*fp32",
                "y_ptr": "*fp32",
                "out_ptr": "*fp32",
                "BM": "constexpr",
                "BN": "constexpr",
                "BK": "constexpr",
            },
            {"BM": 16, "BN": 16, "BK": 8},
            {"num_warps": 4},
        )
    )
    # 7. gather
    out.append(
        Case(
            "gather_fp32_sm80",
            gather_kernel,
            "sm80",
            "fp32 (idx i32)",
            {
                "src_ptr": "*fp32",
                "idx_ptr": "*i32",
                "out_ptr": "*fp32",
                "BM": "constexpr",
                "BN": "constexpr",
            },
            {"BM": 32, "BN": 64},
            {"num_warps": 4},
        )
    )
    # 8. a large module
    out.append(
        Case(
            "big_2000",
            big_kernel,
            "sm80",
            "fp16/fp32",
            {
                "x_ptr": "*fp16",
                "w_ptr": "*fp16",
                "out_ptr": "*fp16",
                "BM": "constexpr",
                "BN": "constexpr",
                "STEPS": "constexpr",
            },
            {"BM": 64, "BN": 32, "STEPS": 64},
            {"num_warps": 4},
            note="STEPS=64 statically unrolled steps",
        )
    )
    return out


# --------------------------------------------------------------------------- driver

COUNTED = {
    "convert_layout": r"\bttg\.convert_layout\b",
    "local_alloc": r"\bttg\.local_alloc\b",
    "local_load": r"\bttg\.local_load\b",
    "local_store": r"\bttg\.local_store\b",
    "dot": r"\b(?:tt\.dot|tt\.dot_scaled|ttng\.warp_group_dot)\b",
}


def op_counts(text: str) -> dict[str, int]:
    # count op occurrences on non-location lines (an op name may also appear in #loc names)
    body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#loc"))
    return {k: len(re.findall(p, body)) for k, p in COUNTED.items()}


def compile_case(c: Case) -> str:
    src = ASTSource(c.kernel, signature=c.signature, constexprs=c.constexprs, attrs=c.attrs())
    compiled = triton.compile(src, target=TARGETS[c.target], options=dict(c.options))
    return compiled.asm["ttgir"]


def relativize_locs(ttgir: str, c: Case) -> str:
    """Triton writes source files, as absolute paths, into the `loc(...)` attributes.
    Replace them by relative paths so that the fixtures do not depend on where the
    checkout or the venv lives.  This is the only change made to Triton's text."""
    rel = "scripts/gen_ttgir_fixtures.py"
    for p in {c.kernel.file_name, str(Path(__file__).resolve()), os.path.abspath(__file__)}:
        ttgir = ttgir.replace(f'loc("{p}":', f'loc("{rel}":')
    # inlined triton.language helpers (tl.max, tl.sum, tl.cdiv, ...) point into the installed
    # package: make those relative to site-packages ("triton/language/standard.py")
    pkg = os.path.dirname(os.path.abspath(triton.__file__))
    ttgir = ttgir.replace(f'loc("{pkg}{os.sep}', 'loc("triton/')
    return ttgir


def describe_target(t: str) -> str:
    g = TARGETS[t]
    return f"{g.backend}:{g.arch} (warp {g.warp_size})"


def build_table(meta: dict[str, Case]) -> list[str]:
    head = (
        "| file | kernel | target | dtype | options | lines | convert_layout | local_alloc "
        "| local_load | local_store | dot / warp_group_dot |"
    )
    rows = [head, "|" + "---|" * 11]
    for path in sorted(OUT.glob("*.ttgir")):
        text = path.read_text()
        n = op_counts(text)
        c = meta.get(path.stem)
        if c is None:
            kernel = target = dtype = opts = "?"
        else:
            kernel = c.kernel.fn.__name__ if hasattr(c.kernel, "fn") else str(c.kernel)
            target, dtype = describe_target(c.target), c.dtype
            opts = ", ".join(f"{k}={v}" for k, v in c.options.items())
            if c.note:
                opts += f"; {c.note}"
        rows.append(
            f"| `{path.name}` | `{kernel}` | {target} | {dtype} | {opts} | "
            f"{len(text.splitlines())} | {n['convert_layout']} | {n['local_alloc']} | "
            f"{n['local_load']} | {n['local_store']} | {n['dot']} |"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--only", default="", help="regenerate only cases whose name contains this")
    args = ap.parse_args(argv)

    OUT.mkdir(parents=True, exist_ok=True)
    all_cases = cases()
    meta = {c.name: c for c in all_cases}
    failed: list[tuple[str, str]] = []
    for c in all_cases:
        if args.only and args.only not in c.name:
            continue
        try:
            ttgir = compile_case(c)
        except Exception as e:  # noqa: BLE001 - report and go on
            msg = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
            print(f"FAILED {c.name} ({describe_target(c.target)}): {msg}", file=sys.stderr)
            traceback.print_exc(limit=2, file=sys.stderr)
            failed.append((c.name, msg))
            stale = OUT / f"{c.name}.ttgir"
            if stale.exists():
                stale.unlink()
            continue
        ttgir = relativize_locs(ttgir, c)
        if not ttgir.endswith("\n"):
            ttgir += "\n"
        (OUT / f"{c.name}.ttgir").write_text(ttgir)
        print(f"wrote {c.name}.ttgir ({len(ttgir.splitlines())} lines)")

    table = build_table(meta)
    total = sum(p.stat().st_size for p in OUT.glob("*.ttgir"))
    readme = [
        "# TTGIR fixtures",
        "",
        f'Real TTGIR (`compiled.asm["ttgir"]`) emitted by Triton {triton.__version__} for small',
        "tutorial-style kernels, compiled on the CPU for an explicit `GPUTarget` (no GPU needed).",
        "The files are Triton's output verbatim (do not edit them by hand), except that the",
        "absolute source paths inside `loc(...)` attributes are made relative",
        "(`scripts/gen_ttgir_fixtures.py`, `triton/language/...`), so the files do not depend",
        "on where the checkout or the virtual environment lives.",
        "",
        "Regenerate (from the repository root, with the `triton` extra installed):",
        "",
        "```",
        COMMAND,
        "```",
        "",
        "The kernels, targets and options are defined in `scripts/gen_ttgir_fixtures.py`.",
        "Arguments are specialized as Triton's JIT would for 16-byte-aligned tensors: every",
        "pointer and integer argument (except `n_rows`, `n_cols`, `N_CTX`) carries",
        "`tt.divisibility = 16`, and the matmul's unit strides are `constexpr` 1, so loads are",
        "vectorized and loops are software-pipelined (`num_stages` is Triton's default unless",
        "given: 3 on CUDA, 2 on HIP).",
        "Counts are occurrences of the op name outside `#loc` lines; `dot` counts `tt.dot`,",
        "`tt.dot_scaled` and `ttng.warp_group_dot`.",
        "",
        *table,
        "",
        f"Total size: {total / 1024:.0f} KiB.",
    ]
    if failed:
        readme += ["", "Cases that did not compile with this Triton (skipped):", ""]
        readme += [f"- `{n}`: {m}" for n, m in failed]
    (OUT / "README.md").write_text("\n".join(readme) + "\n")

    print()
    print("\n".join(table))
    print(f"\ntotal size of *.ttgir: {total / 1024:.0f} KiB")
    if failed:
        print("\nFAILED to compile:")
        for n, m in failed:
            print(f"  {n}: {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
