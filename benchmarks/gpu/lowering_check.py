"""Triton's shared-memory ld/st lowering against llverify's models (issue 12), per pair:

1. llverify's prediction (``llverify.shared_memory.lowering``: the per-basis additive rule, Triton
3.6's
   ``actionAdditiveStrides``; ``carry_counterexample`` needs no solver);
2. Triton's real addresses: a Gluon kernel (load a 1-D f32 tensor in a register layout,
   ``allocate_shared_memory`` with a ``SharedLinearLayout``, load it back, store it) is
   compiled for sm_90 and its PTX is emulated per thread (a small interpreter for the
   straight-line integer code): every ``st.shared`` address is compared with the layout's;
3. where a CUDA GPU is present: the kernel runs on random data and the output is compared.

Run: ``python benchmarks/gpu/lowering_check.py [--pairs N] [--out FILE.json]`` (needs triton
with Gluon; runs on the CPU without a GPU, then only 1 and 2).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from llverify import LinearLayout  # noqa: E402
from llverify.shared_memory.lowering import ldst_lowering  # noqa: E402

_OP = re.compile(r"^\s*([a-z]+(?:\.[a-z0-9]+)*)\s+(.*?);")


def random_pair(rng: random.Random) -> tuple[dict, list[list[int]], int, int]:
    """A 1-D register layout (registers, 32 lanes, warps) and an XOR-swizzled offset layout."""
    n_bits = rng.randint(6, 9)
    warps = rng.randint(0, min(2, n_bits - 5 - 1))
    regs = n_bits - 5 - warps
    perm = list(range(n_bits))
    rng.shuffle(perm)
    units = [1 << p for p in perm]
    reg = {
        "register": [[u] for u in units[:regs]],
        "lane": [[u] for u in units[regs : regs + 5]],
        "warp": [[u] for u in units[regs + 5 :]],
    }
    offsets = [1 << i for i in range(n_bits)]
    for i in range(n_bits):  # XOR-swizzle: add lower bits into higher bases
        for j in range(i):
            if rng.random() < 0.25:
                offsets[i] ^= offsets[j]
    return reg, [[o] for o in offsets], 1 << n_bits, 1 << warps


def emulate_stores(ptx: str, threads: int) -> list[dict[int, int]]:
    """Per thread: {element index: shared byte address} of every st.shared storing a value
    loaded from the input pointer (a small interpreter of the kernel's straight-line integer
    PTX; values loaded from global memory are tagged with their element)."""
    body = ptx[ptx.index(".entry") :]
    lines = [line.split("//")[0].strip() for line in body.splitlines()]
    out = []
    for tid in range(threads):
        regs: dict[str, int] = {"%tid.x": tid, "global_smem": 0}
        stores: dict[int, int] = {}

        def val(x: str, regs: dict[str, int] = regs) -> int:
            x = x.strip().rstrip("U")
            if x in regs:
                return regs[x]
            return int(x, 16) if x.startswith("0x") else int(x)

        for line in lines:
            m = _OP.match(line)
            if not m:
                continue
            op, text = m.group(1), m.group(2)
            args = [a.strip() for a in text.split(",")]
            width = next(
                (int(t[1:]) for t in op.split(".")[1:] if re.fullmatch(r"[bsu](16|32|64)", t)), 64
            )
            mask = (1 << width) - 1
            head = op.split(".")[0]
            if op.startswith("ld.param"):
                regs[args[0]] = int(re.search(r"param_(\d+)", args[1]).group(1)) << 40  # type: ignore[union-attr]
            elif op.startswith("ld.global"):
                dsts = re.search(r"\{([^}]*)\}", text)
                addr = re.search(r"\[\s*(%rd\d+)\s*\+\s*(-?\d+)\s*\]", text)
                if dsts and addr:
                    base = (val(addr.group(1)) + int(addr.group(2))) & ((1 << 40) - 1)
                    for k, dst in enumerate(d.strip() for d in dsts.group(1).split(",")):
                        regs[dst] = -1 - (base + 4 * k)
            elif op.startswith("st.shared"):
                addr = re.search(r"\[\s*(%r\d+)\s*(?:\+\s*(-?\d+))?\s*\]", text)
                srcs = re.search(r"\{([^}]*)\}", text)
                names = [v.strip() for v in srcs.group(1).split(",")] if srcs else [args[-1]]
                if addr:
                    start = val(addr.group(1)) + int(addr.group(2) or 0)
                    for k, name in enumerate(names):
                        value = val(name)
                        if value < 0:
                            stores[(-1 - value) // 4] = start + 4 * k
            elif head in ("mov", "cvt"):
                regs[args[0]] = val(args[1]) & mask
            elif head in ("and", "or", "xor", "shl", "shr", "add", "sub", "mul"):
                a, b = val(args[1]), val(args[2])
                result = {
                    "and": a & b, "or": a | b, "xor": a ^ b, "shl": a << b, "shr": a >> b,
                    "add": a + b, "sub": a - b, "mul": a * b,
                }[head]  # fmt: skip
                if op.startswith("mul.wide"):
                    mask = (1 << 64) - 1
                regs[args[0]] = result & mask
            elif head == "mad":
                regs[args[0]] = (val(args[1]) * val(args[2]) + val(args[3])) & mask
            elif head in ("neg", "not"):
                regs[args[0]] = (-val(args[1]) if head == "neg" else ~val(args[1])) & mask
            elif head == "bfe":
                pos, length = val(args[2]), val(args[3])
                field = (val(args[1]) >> pos) & ((1 << length) - 1)
                if ".s" in op and length and field >> (length - 1):
                    field -= 1 << length
                regs[args[0]] = field & mask
            elif head == "lop3":
                a, b, c, lut = (val(v) for v in args[1:5])
                result = 0
                for bit in range(32):
                    k = ((a >> bit) & 1) << 2 | ((b >> bit) & 1) << 1 | ((c >> bit) & 1)
                    result |= ((lut >> k) & 1) << bit
                regs[args[0]] = result
            elif head == "prmt":
                a, b, sel = val(args[1]), val(args[2]), val(args[3])
                data = [(a >> (8 * i)) & 0xFF for i in range(4)]
                data += [(b >> (8 * i)) & 0xFF for i in range(4)]
                result = 0
                for i in range(4):
                    nib = (sel >> (4 * i)) & 0xF
                    byte = data[nib & 7]
                    if nib & 8:
                        byte = 0xFF if byte & 0x80 else 0
                    result |= byte << (8 * i)
                regs[args[0]] = result
            elif head in ("ld", "st", "bar", "ret"):
                continue  # shared loads, global stores, barriers: no address we check
            else:
                raise ValueError(f"PTX emulation: unsupported instruction {line!r}")
        out.append(stores)
    return out


def run_child(spec: str) -> None:
    """Compile and run one pair on the GPU; print ``@@{"wrong": n, "ptx": text}``."""
    import torch
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    reg, offsets, n, warps = json.loads(spec)

    @gluon.jit
    def roundtrip(inp, out, N: ttgl.constexpr, REG: ttgl.constexpr, SH: ttgl.constexpr):  # noqa: N803
        offs = ttgl.arange(0, N, layout=REG)
        x = ttgl.load(inp + offs)
        smem = ttgl.allocate_shared_memory(ttgl.float32, [N], SH, x)
        y = smem.load(REG)
        ttgl.store(out + offs, y)

    layout = ttgl.DistributedLinearLayout(
        reg_bases=reg["register"], lane_bases=reg["lane"], warp_bases=reg["warp"],
        block_bases=[], shape=[n],
    )  # fmt: skip
    smem = ttgl.SharedLinearLayout(offset_bases=offsets)
    x = torch.randn(n, device="cuda")
    y = torch.full((n,), float("nan"), device="cuda")
    kernel = roundtrip[(1,)](x, y, n, layout, smem, num_warps=warps)
    torch.cuda.synchronize()
    wrong = int((x != y).sum().item())
    print("@@" + json.dumps({"wrong": wrong, "ptx": kernel.asm["ptx"]}), flush=True)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        run_child(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="")
    args = parser.parse_args()

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    @gluon.jit
    def roundtrip(inp, out, N: ttgl.constexpr, REG: ttgl.constexpr, SH: ttgl.constexpr):  # noqa: N803
        offs = ttgl.arange(0, N, layout=REG)
        x = ttgl.load(inp + offs)
        smem = ttgl.allocate_shared_memory(ttgl.float32, [N], SH, x)
        y = smem.load(REG)
        ttgl.store(out + offs, y)

    try:
        import torch

        gpu = torch.cuda.is_available()
    except ImportError:
        gpu = False
    rng = random.Random(args.seed)
    rows = []
    print(f"triton {triton.__version__}, GPU run: {gpu}")
    print(f"{'pair':>4} {'n':>4} {'warps':>5} {'predicted':>9} {'ptx wrong':>9} {'gpu wrong':>9}")
    for index in range(args.pairs):
        reg, offsets, n, warps = random_pair(rng)
        reg_ll = LinearLayout.from_bases(
            [("register", reg["register"]), ("lane", reg["lane"]), ("warp", reg["warp"])],
            ["dim0"],
        )
        shared = LinearLayout.from_bases([("offset", offsets)], ["dim0"])
        predicted = ldst_lowering(reg_ll, shared, [n], 32).carry_counterexample() is not None
        layout = ttgl.DistributedLinearLayout(
            reg_bases=reg["register"], lane_bases=reg["lane"], warp_bases=reg["warp"],
            block_bases=[], shape=[n],
        )  # fmt: skip
        smem = ttgl.SharedLinearLayout(offset_bases=offsets)
        gpu_wrong: int | str | None = None
        ptx = ""
        if gpu:  # compile and run in a child process: a wrong address can kill the context
            child = subprocess.run(
                [sys.executable, __file__, "--child", json.dumps([reg, offsets, n, warps])],
                capture_output=True,
                text=True,
                timeout=300,
            )
            lines = [ln for ln in child.stdout.splitlines() if ln.startswith("@@")]
            if lines:
                answer = json.loads(lines[-1][2:])
                gpu_wrong, ptx = answer["wrong"], answer["ptx"]
            else:
                tail = [ln for ln in child.stderr.splitlines() if "Error" in ln][-1:]
                gpu_wrong = f"crashed: {tail}"
                ptx = ""
        if not ptx:
            sig = {"inp": "*fp32", "out": "*fp32", "N": "constexpr", "REG": "constexpr",
                   "SH": "constexpr"}  # fmt: skip
            src = gluon._runtime.GluonASTSource(
                roundtrip, signature=sig, constexprs={"N": n, "REG": layout, "SH": smem}
            )
            target = GPUTarget("cuda", 90, 32)
            ptx = triton.compile(src, target=target, options={"num_warps": warps}).asm["ptx"]
        inverse = shared.invert()
        ptx_wrong = 0
        per_thread = emulate_stores(ptx, 32 * warps) if ptx else []
        stored = set()
        for stores in per_thread:
            for element, address in stores.items():
                stored.add(element)
                if not 0 <= element < n:
                    raise ValueError(f"pair {index}: PTX emulation read element {element}")
                if address != inverse.apply({"dim0": element})["offset"] * 4:
                    ptx_wrong += 1
        if ptx and len(stored) != n:
            raise ValueError(f"pair {index}: the emulated stores cover {len(stored)} of {n}")
        rows.append(
            {"pair": index, "n": n, "warps": warps, "register": reg, "offsets": offsets,
             "predicted_miscompile": predicted, "ptx_wrong_stores": ptx_wrong,
             "gpu_wrong_elements": gpu_wrong}
        )  # fmt: skip
        print(
            f"{index:>4} {n:>4} {warps:>5} {str(predicted):>9} {ptx_wrong:>9} {str(gpu_wrong):>9}"
        )
    summary = {
        "triton": triton.__version__,
        "pairs": len(rows),
        "predicted": sum(r["predicted_miscompile"] for r in rows),
        "ptx_wrong_pairs": sum(r["ptx_wrong_stores"] > 0 for r in rows),
        "agree_ptx": sum((r["ptx_wrong_stores"] > 0) == r["predicted_miscompile"] for r in rows),
        "gpu_wrong_pairs": None if not gpu else sum(bool(r["gpu_wrong_elements"]) for r in rows),
        "agree_gpu": None
        if not gpu
        else sum(bool(r["gpu_wrong_elements"]) == r["predicted_miscompile"] for r in rows),
    }
    print(json.dumps(summary))
    if args.out:
        Path(args.out).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
