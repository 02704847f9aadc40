"""Recompile the torch.compile kernel corpus (Triton 3.6) with the installed Triton for sm_90.

The corpus of ``tests/data/inductor`` was compiled by Triton 3.6.0 on an H200.  This script
takes every kernel's TTIR from that cache (the module Triton 3.6 built from Inductor's source,
after its TTIR passes) and compiles it with the Triton installed here (3.9.0, CPU only: no
GPU is needed to compile) for ``cuda:90`` with the 3.6 kernel's own options (warps, stages,
CTAs, debug, fp fusion...), out of process, one kernel at a time per job.  Each result is kept
the way Triton's cache keeps it, ``<out>/<workload>/triton/<HASH>/<name>.{ttir,ttgir,llir,ptx,
json}`` (``<HASH>`` is the installed Triton's own cache key), so ``llverify validate DIR``
reads it; a ``launches.json`` beside it carries the 3.6 launches over to the new hashes.

Triton 3.6 prints a load's eviction hint as ``tt.load %p evictionPolicy = evict_last : T``;
3.9 no longer parses that spelling (``error: expected ':'``) and spells the same attribute
``tt.load %p {cachePolicy = #tt.cache_policy<cache_modifier = none, eviction_policy =
evict_last>} : T``.  Such TTIR is recompiled respelled (only that attribute, nothing else; the
kernel's record says ``route: ttir-respelled`` and the raw refusal), unless ``--no-respell``.
Every other refusal is recorded with its reason, never worked around.

Triton compiles an IR file from the stage after its own (``make_ttir`` is not run again), so
the TTGIR and later stages are Triton 3.9's lowering of 3.6's optimised TTIR, which may
differ from what 3.9 would emit from Inductor's Python source (not compiled here: it needs
torch's ``triton_helpers``).

Resumable: a kernel whose record exists in ``<out>/<workload>/records/`` is skipped.

Usage::

    python scripts/inductor_corpus_39.py /tmp/corpus /tmp/inductor_39_build --jobs 2 --sample 630
    python scripts/inductor_corpus_39.py /tmp/corpus /tmp/inductor_39_build \
        --pack tests/data/inductor_39
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from inductor_corpus import _add_text, scrub  # noqa: E402

#: 3.6's spelling of a load's eviction hint, which 3.9 does not parse
_EVICTION_36 = re.compile(r"(tt\.load [^\n]*?) evictionPolicy = (evict_\w+) :")
#: 3.9's spelling of the same attribute
_EVICTION_39 = r"\1 {cachePolicy = #tt.cache_policy<cache_modifier = none, eviction_policy = \2>} :"
#: options of the 3.6 kernel's JSON passed on to the compile (those 3.9's CUDAOptions has)
_OPTIONS = (
    "num_warps",
    "num_ctas",
    "num_stages",
    "maxnreg",
    "enable_fp_fusion",
    "enable_reflect_ftz",
    "debug",
    "sanitize_overflow",
    "launch_cooperative_grid",
    "launch_pdl",
)
#: the stages kept (the cubin is left out, as in the 3.6 corpus)
_KEPT = (".ttir", ".ttgir", ".llir", ".ptx", ".json")
#: names of the reductions every sample keeps (max / Welford / any / argmax)
_SAMPLE_WORDS = (
    "softmax",
    "logsumexp",
    "max",
    "var_mean",
    "native_layer_norm",
    "batch_norm",
    "any",
    "argmax",
)
#: this machine's paths in the outputs, beside those :func:`scrub` replaces
_LOCAL = (
    (re.compile(r"/work/venv/lib/python3\.\d+/site-packages/"), "<site-packages>/"),
    (re.compile(r"/tmp/inductor_39(_build)?/"), "<corpus39>/"),
)


def respell(text: str) -> str:
    """``text`` (Triton 3.6 TTIR) with every load's eviction hint in Triton 3.9's spelling."""
    return _EVICTION_36.sub(_EVICTION_39, text)


def clean(text: str) -> str:
    """``text`` with the collecting and this machine's absolute paths replaced."""
    text = scrub(text)
    for pattern, replacement in _LOCAL:
        text = pattern.sub(replacement, text)
    return text


# --- the worker: one kernel, in its own process ----------------------------------------------


def compile_one(request: dict[str, Any]) -> dict[str, Any]:
    """Compile the TTIR ``request["ttir"]`` with the installed Triton for sm_90 and copy the
    cache's stages to ``request["out"]/<HASH>/``; the record (status, route, reason)."""
    import triton
    from triton.backends.compiler import GPUTarget

    options = request["options"]
    raw = Path(request["ttir"]).read_text()
    record: dict[str, Any] = {"triton_version": triton.__version__}
    with tempfile.TemporaryDirectory(prefix="inductor39-") as tmp:
        os.environ["TRITON_CACHE_DIR"] = os.path.join(tmp, "cache")
        attempts = [("ttir", raw)]
        if request["respell"] and respell(raw) != raw:
            attempts.append(("ttir-respelled", respell(raw)))
        for route, text in attempts:
            source = Path(tmp) / route / f"{request['name']}.ttir"
            source.parent.mkdir()
            source.write_text(text)
            started = time.perf_counter()
            try:
                with _stderr_to(Path(tmp) / f"{route}.stderr"):
                    triton.compile(str(source), target=GPUTarget("cuda", 90, 32), options=options)
            except Exception as error:  # Triton's refusal, kept as data
                lines = [ln for ln in str(error).strip().splitlines() if ln.strip()]
                message = f"{type(error).__name__}: {' '.join(lines[:3])}"
                diagnostics = _diagnostics(Path(tmp) / f"{route}.stderr")
                if diagnostics:
                    message += f" ({diagnostics})"
                record.setdefault("refusals", []).append({"route": route, "error": message})
                continue
            record.update(route=route, seconds=round(time.perf_counter() - started, 2))
            break
        else:
            record["status"] = "refused"
            return record
        cache = Path(os.environ["TRITON_CACHE_DIR"])
        (folder,) = [p.parent for p in cache.glob("*/*.llir")]
        target = Path(request["out"]) / folder.name
        target.mkdir(parents=True, exist_ok=True)
        for path in folder.iterdir():
            if path.suffix in _KEPT and not path.name.startswith("__grp__"):
                # an IR source's files are named "@<name>" (its symbol): renamed as a Python
                # source's would be, "<name>.*"
                shutil.copyfile(path, target / path.name.removeprefix("@"))
        record.update(status="compiled", hash=folder.name)
    return record


@contextlib.contextmanager
def _stderr_to(path: Path) -> Iterator[None]:
    """File descriptor 2 (where MLIR prints its diagnostics) written to ``path`` meanwhile."""
    sys.stderr.flush()
    saved = os.dup(2)
    with path.open("w") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def _diagnostics(path: Path) -> str:
    """The first MLIR ``error:`` diagnostic written to ``path``, its location dropped."""
    for line in path.read_text(errors="replace").splitlines():
        if "error:" in line:
            return line[line.index("error:") :].strip()[:200]
    return ""


def _worker_main() -> int:
    request = json.loads(sys.stdin.read())
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    print("@@" + json.dumps(compile_one(request)))
    return 0


# --- the driver ---------------------------------------------------------------------------------


def kernels(corpus: Path) -> list[dict[str, Any]]:
    """Every kernel of the unpacked 3.6 corpus: workload, 3.6 hash, name, its files' stem."""
    found = []
    for meta in sorted(corpus.glob("*/triton/*/*.json")):
        if meta.name.startswith("__grp__") or not meta.with_suffix(".ttir").is_file():
            continue
        workload = meta.parents[2].name
        found.append(
            {"workload": workload, "hash36": meta.parent.name, "name": meta.stem, "stem": meta}
        )
    return found


def sample(found: list[dict[str, Any]], size: int) -> list[dict[str, Any]]:
    """A deterministic sample: every kernel whose name holds a word of :data:`_SAMPLE_WORDS`,
    then every workload's kernels in turn (sorted by hash) until ``size`` are chosen."""
    chosen = [k for k in found if any(w in k["name"] for w in _SAMPLE_WORDS)]
    rest: dict[str, list[dict[str, Any]]] = {}
    for k in found:
        if k not in chosen:
            rest.setdefault(k["workload"], []).append(k)
    queues = [sorted(v, key=lambda k: k["hash36"]) for _, v in sorted(rest.items())]
    while len(chosen) < size and any(queues):
        for queue in queues:
            if queue and len(chosen) < size:
                chosen.append(queue.pop(0))
    return sorted(chosen, key=lambda k: (k["workload"], k["hash36"], k["name"]))


def _record_path(out: Path, kernel: dict[str, Any]) -> Path:
    return out / kernel["workload"] / "records" / f"{kernel['hash36']}.{kernel['name']}.json"


def run_one(kernel: dict[str, Any], out: Path, respelled: bool, timeout: float) -> dict[str, Any]:
    """Compile one kernel in a fresh interpreter; its record, also written under ``out``."""
    meta = json.loads(kernel["stem"].read_text())
    options = {k: meta[k] for k in _OPTIONS if k in meta}
    request = {
        "ttir": str(kernel["stem"].with_suffix(".ttir")),
        "name": kernel["name"],
        "options": options,
        "out": str(out / kernel["workload"] / "triton"),
        "respell": respelled,
    }
    base = {k: kernel[k] for k in ("workload", "hash36", "name")} | {"options": options}
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--worker"],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        record = base | {"status": "refused", "refusals": [{"error": f"timeout {timeout} s"}]}
    else:
        answers = [ln for ln in done.stdout.splitlines() if ln.startswith("@@")]
        if answers:
            record = base | json.loads(answers[-1][2:])
        else:  # Triton aborted the process (a failed assertion): its stderr's last lines
            tail = " ".join(done.stderr.strip().splitlines()[-3:])
            record = base | {
                "status": "refused",
                "refusals": [{"error": f"process exit {done.returncode}: {tail}"}],
            }
    record["wall_s"] = round(time.perf_counter() - started, 2)
    path = _record_path(out, kernel)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n")
    return record


def reason_of(record: dict[str, Any]) -> str:
    """A refusal's reason, normalised for counting (SSA names, numbers and paths dropped)."""
    error = record["refusals"][-1]["error"] if record.get("refusals") else "?"
    error = re.sub(r"loc\([^)]*\)", "loc(..)", error)
    error = re.sub(r"%[\w#]+", "%v", error)
    return re.sub(r"\d+", "N", error)[:160]


def compile_all(args: argparse.Namespace) -> int:
    found = kernels(args.source)
    if not found:
        print(f"{args.source}: no triton/<HASH>/<name>.ttir under any workload", file=sys.stderr)
        return 2
    todo = sample(found, args.sample) if args.sample else found
    if args.limit:
        todo = todo[: args.limit]
    pending = [k for k in todo if not _record_path(args.out, k).is_file()]
    print(f"{len(todo)} kernels chosen of {len(found)}; {len(todo) - len(pending)} done before")
    started = time.perf_counter()
    counts: Counter[str] = Counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = {
            pool.submit(run_one, k, args.out, not args.no_respell, args.timeout): k for k in pending
        }
        for number, future in enumerate(as_completed(futures), 1):
            record = future.result()
            counts[record["status"]] += 1
            rate = number / (time.perf_counter() - started) * 60
            detail = record.get("route", "") or reason_of(record)
            print(
                f"[{number}/{len(pending)}] {rate:5.1f}/min {record['status']:8} "
                f"{record['workload']}/{record['name']} ({detail})",
                flush=True,
            )
    _write_launches(args.out, args.source)
    print(f"{dict(counts)} in {time.perf_counter() - started:.0f} s")
    return 0


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(out.glob("*/records/*.json"))]


def _write_launches(out: Path, corpus: Path) -> None:
    """Each workload's 3.6 launches, carried over to the compiled kernels' 3.9 hashes."""
    by_workload: dict[str, dict[str, str]] = {}
    for record in _records(out):
        if record["status"] == "compiled":
            by_workload.setdefault(record["workload"], {})[record["hash36"]] = record["hash"]
    for workload, hashes in by_workload.items():
        source = corpus / workload / "launches.json"
        if not source.is_file():
            continue
        launches = []
        for entry in json.loads(source.read_text()):
            if entry.get("cache_hash") in hashes:
                launches.append(entry | {"cache_hash": hashes[entry["cache_hash"]]})
        (out / workload / "launches.json").write_text(json.dumps(launches, indent=0) + "\n")


def pack(args: argparse.Namespace) -> int:
    """Write ``<workload>.tar.xz`` (stages scrubbed, launches, records) and ``index.json``."""
    records = _records(args.out)
    if not records:
        print(f"{args.out}: no compile records", file=sys.stderr)
        return 2
    store: Path = args.pack
    store.mkdir(parents=True, exist_ok=True)
    skipped = {".ptx"} if args.no_ptx else set()
    index = []
    total = 0
    for workload in sorted({r["workload"] for r in records}):
        folder = args.out / workload
        archive = store / f"{workload}.tar.xz"
        with tarfile.open(archive, "w:xz", preset=9) as tar:
            for path in sorted((folder / "triton").rglob("*")):
                if path.is_file() and path.suffix in _KEPT and path.suffix not in skipped:
                    _add_text(tar, path.relative_to(folder), clean(path.read_text()))
            if (folder / "launches.json").is_file():
                _add_text(tar, Path("launches.json"), clean((folder / "launches.json").read_text()))
        size = archive.stat().st_size
        total += size
        mine = [r for r in records if r["workload"] == workload]
        for record in mine:
            entry = {k: record.get(k) for k in ("workload", "name", "hash36", "status")}
            if record["status"] == "compiled":
                # the file's stem: Triton truncates "@<name>" to 150 characters
                (sidecar,) = (folder / "triton" / record["hash"]).glob("*.json")
                meta = json.loads(sidecar.read_text())
                entry |= {
                    "hash": record["hash"],
                    "file": sidecar.stem,
                    "route": record["route"],
                    "num_warps": meta.get("num_warps"),
                    "num_stages": meta.get("num_stages"),
                    "shared": meta.get("shared"),
                    "triton_version": meta.get("triton_version"),
                    "seconds": record.get("seconds"),
                }
            entry["refusals"] = [
                {"route": r.get("route"), "error": clean(r["error"])}
                for r in record.get("refusals", [])
            ]
            index.append(entry)
        ok = sum(r["status"] == "compiled" for r in mine)
        print(f"{workload:16} {ok:4}/{len(mine):<4} compiled {size / 1e6:6.2f} MB")
    (store / "index.json").write_text(json.dumps(index, indent=0) + "\n")
    compiled = sum(e["status"] == "compiled" for e in index)
    print(f"{'total':16} {compiled:4}/{len(index):<4} compiled {total / 1e6:6.2f} MB")
    print("routes:", dict(Counter(e.get("route") for e in index if e["status"] == "compiled")))
    reasons = Counter(reason_of(r) for r in records if r["status"] != "compiled")
    for reason, count in reasons.most_common():
        print(f"refused {count:4}  {reason}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", type=Path, nargs="?", help="the unpacked 3.6 corpus")
    parser.add_argument("out", type=Path, nargs="?", help="where the recompiled cache goes")
    parser.add_argument("--jobs", type=int, default=2, help="kernels compiled at once")
    parser.add_argument("--sample", type=int, default=0, help="a deterministic sample of N")
    parser.add_argument("--limit", type=int, default=0, help="only the first N chosen")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per kernel")
    parser.add_argument("--no-respell", action="store_true", help="3.6 TTIR as it is only")
    parser.add_argument("--pack", type=Path, help="store the compiled set in this folder")
    parser.add_argument("--no-ptx", action="store_true", help="leave PTX out of the store")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return _worker_main()
    if args.source is None or args.out is None:
        parser.error("the corpus and the output folder are required")
    if args.jobs < 1:
        parser.error(f"--jobs: expected a positive count, got {args.jobs}")
    if args.pack:
        return pack(args)
    return compile_all(args)


if __name__ == "__main__":
    raise SystemExit(main())
