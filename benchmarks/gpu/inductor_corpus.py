"""Collect a corpus of real torch.compile (Inductor) Triton kernels on a GPU machine.

Each workload (a training step of a model built from its config, dynamic shapes,
max-autotune matmuls, flex attention) runs in its own process with its own Triton and
Inductor cache, so every kernel Triton emits is kept with its stages (TTIR, TTGIR, LLVM IR,
PTX, JSON) and Inductor's source.  Every launch Inductor makes is recorded (kernel name,
scalar arguments, grid, block sizes, warps) so the validator can use the real arguments.

Run on the GPU machine (PyTorch, Triton and transformers installed; no network)::

    PYTHONUNBUFFERED=1 python3 benchmarks/gpu/inductor_corpus.py --out $OUT/corpus \\
        --jobs 5 llama gpt2 bert

then pack with ``--pack``.  ``scripts/inductor_corpus.py`` turns the packed result into the
repository's test data (absolute paths scrubbed, duplicates removed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import traceback
from pathlib import Path

WORKLOADS = (
    "llama",
    "gpt2",
    "bert",
    "vit",
    "t5",
    "mixtral",
    "qwen2",
    "resnet18",
    "convnext",
    "mobilenet",
    "gpt2_dynamic",
    "mm_autotune",
    "flex_attention",
    "norms",
)


def _record_launches(log: list[dict]) -> None:
    """Wrap Inductor's CachingAutotuner.run so each launch's scalar arguments are logged."""
    from torch._inductor.runtime import triton_heuristics as th

    original = th.CachingAutotuner.run

    def run(self, *args, **kwargs):  # noqa: ANN001, ANN202
        result = original(self, *args, **kwargs)
        try:
            launcher = self.launchers[0] if self.launchers else None
            entry = {
                "kernel": getattr(self.fn, "__name__", None),
                "scalars": {
                    name: value
                    for name, value in zip(getattr(self.fn, "arg_names", []), args)
                    if isinstance(value, (int, float, bool))
                },
                "positional": [
                    a if isinstance(a, (int, float, bool)) else type(a).__name__ for a in args
                ],
                "kwargs": {
                    k: v for k, v in kwargs.items() if isinstance(v, (int, float, bool, str))
                },
            }
            if launcher is not None:
                config = getattr(launcher, "config", None)
                if config is not None:
                    entry["config"] = dict(getattr(config, "kwargs", {}))
                    entry["num_warps"] = getattr(config, "num_warps", None)
                    entry["num_stages"] = getattr(config, "num_stages", None)
                for attr in ("cache_hash", "kernel_hash"):
                    if hasattr(launcher, attr):
                        entry[attr] = str(getattr(launcher, attr))
                binary = getattr(launcher, "bin", None)
                if binary is not None and hasattr(binary, "hash"):
                    entry["hash"] = binary.hash
            grid = getattr(self, "_llverify_last_grid", None)
            if grid is not None:
                entry["grid"] = grid
            if len(log) < 20000:
                log.append(entry)
        except Exception as exc:  # recording must never break the workload
            log.append({"record_error": repr(exc)})
        return result

    th.CachingAutotuner.run = run


def _train(model, batch, steps: int = 2, dynamic: bool | None = None) -> None:  # noqa: ANN001
    import torch

    model = model.cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    compiled = torch.compile(model, dynamic=dynamic)

    @torch.compile
    def opt_step():  # noqa: ANN202
        opt.step()

    for _ in range(steps):
        out = compiled(**batch) if isinstance(batch, dict) else compiled(batch)
        loss = out.loss if hasattr(out, "loss") and out.loss is not None else _loss_of(out)
        loss.backward()
        opt_step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()


def _loss_of(out):  # noqa: ANN001, ANN202
    if hasattr(out, "logits"):
        out = out.logits
    if hasattr(out, "last_hidden_state"):
        out = out.last_hidden_state
    return out.float().pow(2).mean()


def _tokens(vocab: int, batch: int = 4, seq: int = 128) -> dict:
    import torch

    ids = torch.randint(0, vocab, (batch, seq), device="cuda")
    return {"input_ids": ids, "labels": ids.clone()}


def workload(name: str) -> None:
    import torch
    import transformers as tf

    torch.manual_seed(0)
    small = {
        "num_hidden_layers": 2,
        "hidden_size": 256,
        "num_attention_heads": 4,
        "intermediate_size": 512,
        "vocab_size": 4096,
    }
    if name == "llama":
        cfg = tf.LlamaConfig(**small, num_key_value_heads=2, max_position_embeddings=512)
        _train(tf.LlamaForCausalLM(cfg), _tokens(4096))
    elif name == "qwen2":
        cfg = tf.Qwen2Config(**small, num_key_value_heads=2, max_position_embeddings=512)
        _train(tf.Qwen2ForCausalLM(cfg), _tokens(4096))
    elif name == "mixtral":
        cfg = tf.MixtralConfig(
            **small,
            num_key_value_heads=2,
            num_local_experts=4,
            num_experts_per_tok=2,
            max_position_embeddings=512,
        )
        _train(tf.MixtralForCausalLM(cfg), _tokens(4096))
    elif name in ("gpt2", "gpt2_dynamic"):
        cfg = tf.GPT2Config(n_layer=2, n_embd=256, n_head=4, vocab_size=4096, n_positions=512)
        model = tf.GPT2LMHeadModel(cfg).cuda()
        if name == "gpt2":
            _train(model, _tokens(4096))
        else:
            opt = torch.optim.SGD(model.parameters(), lr=1e-3)
            compiled = torch.compile(model, dynamic=True)
            for seq in (96, 128, 200):
                out = compiled(**_tokens(4096, seq=seq))
                out.loss.backward()
                opt.step()
                opt.zero_grad()
            torch.cuda.synchronize()
    elif name == "bert":
        cfg = tf.BertConfig(**small, max_position_embeddings=512)
        model = tf.BertForSequenceClassification(cfg)
        batch = _tokens(4096)
        batch["labels"] = torch.randint(0, 2, (4,), device="cuda")
        _train(model, batch)
    elif name == "t5":
        cfg = tf.T5Config(
            vocab_size=4096,
            d_model=256,
            d_kv=64,
            d_ff=512,
            num_layers=2,
            num_decoder_layers=2,
            num_heads=4,
            decoder_start_token_id=0,
            pad_token_id=0,
        )
        model = tf.T5ForConditionalGeneration(cfg)
        batch = _tokens(4096)
        _train(model, batch)
    elif name == "vit":
        cfg = tf.ViTConfig(
            hidden_size=256,
            num_hidden_layers=2,
            num_attention_heads=4,
            intermediate_size=512,
            image_size=64,
            patch_size=8,
            num_labels=10,
        )
        model = tf.ViTForImageClassification(cfg)
        batch = {
            "pixel_values": torch.randn(8, 3, 64, 64, device="cuda"),
            "labels": torch.randint(0, 10, (8,), device="cuda"),
        }
        _train(model, batch)
    elif name in ("resnet18", "convnext", "mobilenet"):
        import torchvision

        ctor = {
            "resnet18": torchvision.models.resnet18,
            "convnext": torchvision.models.convnext_tiny,
            "mobilenet": torchvision.models.mobilenet_v3_small,
        }[name]
        model = ctor(num_classes=10)
        images = torch.randn(8, 3, 64, 64, device="cuda")
        _train(model, images)
    elif name == "mm_autotune":
        import torch._inductor.config as ic

        ic.max_autotune_gemm_backends = "TRITON"
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            a = torch.randn(512, 384, device="cuda", dtype=dtype)
            b = torch.randn(384, 256, device="cuda", dtype=dtype)
            f = torch.compile(lambda x, y: torch.relu(x @ y) + 1, mode="max-autotune-no-cudagraphs")
            f(a, b)
        torch.cuda.synchronize()
    elif name == "flex_attention":
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        def causal(b, h, q, kv):  # noqa: ANN001, ANN202
            return q >= kv

        mask = create_block_mask(causal, 1, 1, 256, 256, device="cuda")
        fa = torch.compile(flex_attention)
        q, k, v = (
            torch.randn(2, 4, 256, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
            for _ in range(3)
        )
        out = fa(q, k, v, block_mask=mask)
        out.sum().backward()
        torch.cuda.synchronize()
    elif name == "norms":
        # layer_norm / batch_norm / var_mean (Welford), softmax, logsumexp, any, argmax
        x = torch.randn(64, 2048, device="cuda", requires_grad=True)
        w = torch.randn(2048, device="cuda", requires_grad=True)

        def f(x, w):  # noqa: ANN001, ANN202
            y = torch.nn.functional.layer_norm(x, (2048,), w)
            s = torch.softmax(y, -1) + torch.logsumexp(y, -1, keepdim=True)
            v, m = torch.var_mean(x, dim=-1, keepdim=True)
            a = (x > 3).any(-1, keepdim=True).float()
            i = x.argmax(-1, keepdim=True).float()
            return (s * v + m + a + i).sum()

        torch.compile(f)(x, w).backward()
        bn = torch.nn.BatchNorm2d(16).cuda()
        torch.compile(bn)(torch.randn(8, 16, 32, 32, device="cuda")).sum().backward()
        torch.cuda.synchronize()
    else:
        raise SystemExit(f"unknown workload {name!r}; expected one of {', '.join(WORKLOADS)}")


def child(name: str, out: Path) -> None:
    """Run one workload in this process with its own caches under ``out/name``."""
    base = out / name
    os.environ["TRITON_CACHE_DIR"] = str(base / "triton")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(base / "inductor")
    os.environ.setdefault("TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER", "0")
    os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "0")
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "3")
    base.mkdir(parents=True, exist_ok=True)
    log: list[dict] = []
    _record_launches(log)
    started = time.time()
    status = "ok"
    try:
        workload(name)
    except Exception:
        status = traceback.format_exc()
    import torch
    import triton

    (base / "launches.json").write_text(json.dumps(log))
    (base / "info.json").write_text(
        json.dumps(
            {
                "workload": name,
                "status": status,
                "seconds": round(time.time() - started, 1),
                "torch": torch.__version__,
                "triton": triton.__version__,
                "device": torch.cuda.get_device_name(),
                "capability": torch.cuda.get_device_capability(),
            }
        )
    )
    print(
        f"{name}: {'ok' if status == 'ok' else 'FAILED'} in {time.time() - started:.0f}s",
        flush=True,
    )
    if status != "ok":
        print(status[-2000:], flush=True)


def pack(out: Path, archive: Path) -> None:
    """Pack the text stages of every kernel and Inductor's kernel sources (no binaries)."""
    keep = {".ttir", ".ttgir", ".llir", ".ptx", ".json", ".py", ".source"}
    with tarfile.open(archive, "w:xz") as tar:
        for path in sorted(out.rglob("*")):
            if path.is_file() and path.suffix in keep and path.stat().st_size < 8 << 20:
                tar.add(path, arcname=str(path.relative_to(out)))
    print(f"packed {archive} {archive.stat().st_size / 1e6:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("workloads", nargs="*", default=list(WORKLOADS))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--timeout", type=int, default=480)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--pack", type=Path, help="pack --out into this .tar.xz")
    args = parser.parse_args()
    if args.pack:
        pack(args.out, args.pack)
        return
    if args.child:
        child(args.workloads[0], args.out)
        return
    pending = list(args.workloads)
    running: list[tuple[str, subprocess.Popen, float]] = []
    while pending or running:
        while pending and len(running) < args.jobs:
            name = pending.pop(0)
            proc = subprocess.Popen(
                [sys.executable, __file__, "--child", "--out", str(args.out), name]
            )
            running.append((name, proc, time.time()))
        time.sleep(1)
        for item in list(running):
            name, proc, start = item
            if proc.poll() is not None:
                running.remove(item)
            elif time.time() - start > args.timeout:
                proc.kill()
                print(f"{name}: killed after {args.timeout}s", flush=True)
                running.remove(item)
    shutil.rmtree(args.out / "__pycache__", ignore_errors=True)


if __name__ == "__main__":
    main()
