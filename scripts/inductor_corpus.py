"""Store a torch.compile kernel corpus collected on the GPU machine as repository test data.

``benchmarks/gpu/inductor_corpus.py`` runs the workloads on the GPU machine and packs every
kernel's stages; this script takes that unpacked output (one folder per workload, each holding
``triton/<HASH>/<name>.*``, ``inductor/**/*.py``, ``launches.json`` and ``info.json``), scrubs
absolute paths, drops Inductor sources that hold no kernel, and writes one ``.tar.xz`` per
workload plus ``index.json`` (every kernel: workload, hash, name, warps, shared bytes and the
distinct scalar arguments it was launched with) into ``tests/data/inductor/``.

Usage::

    python scripts/inductor_corpus.py /tmp/corpus tests/data/inductor
    python scripts/inductor_corpus.py --extract tests/data/inductor /tmp/inductor  # unpack all
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tarfile
from pathlib import Path

#: absolute paths of the collecting machine, and what replaces them
_SCRUB = (
    (re.compile(r"/tmp/corpus/"), "<corpus>/"),
    (re.compile(r"/opt/torch/\.venv/lib/python3\.\d+/site-packages/"), "<site-packages>/"),
    (re.compile(r"/work/main/"), "<repo>/"),
    (re.compile(r"/root/"), "<home>/"),
)
_STAGES = (".ttir", ".ttgir", ".llir", ".ptx", ".json", ".source")


def scrub(text: str) -> str:
    """``text`` with the collecting machine's absolute paths replaced by placeholders."""
    for pattern, replacement in _SCRUB:
        text = pattern.sub(replacement, text)
    return text


def _kernel_files(workload: Path) -> list[Path]:
    return sorted(
        p for p in (workload / "triton").rglob("*") if p.is_file() and p.suffix in _STAGES
    )


def _inductor_sources(workload: Path) -> list[Path]:
    """Inductor's generated Python files that define a Triton kernel or launch one."""
    keep = []
    for path in sorted((workload / "inductor").rglob("*.py")):
        text = path.read_text(errors="replace")
        if "@triton.jit" in text or "def call(args" in text:
            keep.append(path)
    return keep


def _launches(workload: Path) -> dict[str, list[dict]]:
    """The distinct scalar arguments each kernel (by cache hash) was launched with."""
    path = workload / "launches.json"
    seen: dict[str, list[dict]] = {}
    if not path.is_file():
        return seen
    for entry in json.loads(path.read_text()):
        key = entry.get("cache_hash")
        if not key:
            continue
        scalars = entry.get("scalars", {})
        if scalars not in seen.setdefault(key, []):
            seen[key].append(scalars)
    return seen


def _index_entries(workload: Path) -> list[dict]:
    launches = _launches(workload)
    entries = []
    for meta in sorted((workload / "triton").glob("*/*.json")):
        if meta.name.startswith("__grp__"):
            continue
        data = json.loads(meta.read_text())
        if not meta.with_suffix(".llir").is_file():
            continue
        entries.append(
            {
                "workload": workload.name,
                "hash": meta.parent.name,
                "name": meta.stem,
                "num_warps": data.get("num_warps"),
                "shared": data.get("shared"),
                "target": data.get("target"),
                "launches": launches.get(meta.parent.name, []),
            }
        )
    return entries


def pack_workload(workload: Path, archive: Path) -> int:
    """Write ``workload``'s kernels, sources and launch records, scrubbed, to ``archive``."""
    with tarfile.open(archive, "w:xz", preset=9) as tar:
        for path in _kernel_files(workload) + _inductor_sources(workload):
            _add_text(tar, path.relative_to(workload), scrub(path.read_text(errors="replace")))
        for extra in ("launches.json", "info.json"):
            if (workload / extra).is_file():
                _add_text(tar, Path(extra), scrub((workload / extra).read_text()))
    return archive.stat().st_size


def _add_text(tar: tarfile.TarFile, name: Path, text: str) -> None:
    data = text.encode()
    info = tarfile.TarInfo(str(name))
    info.size = len(data)
    info.mtime = 0
    tar.addfile(info, io.BytesIO(data))


def extract(store: Path, destination: Path, workloads: list[str] | None = None) -> list[Path]:
    """Unpack the stored workloads (all, or those named) under ``destination``."""
    folders = []
    for archive in sorted(store.glob("*.tar.xz")):
        name = archive.name[: -len(".tar.xz")]
        if workloads and name not in workloads:
            continue
        folder = destination / name
        folder.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):  # Python 3.10.12+/3.11.4+: refuse odd members
                tar.extractall(folder, filter="data")
            else:
                tar.extractall(folder)  # noqa: S202 - the repository's own archives
        folders.append(folder)
    return folders


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "source", type=Path, help="the unpacked corpus (or, with --extract, the store)"
    )
    parser.add_argument("destination", type=Path)
    parser.add_argument("--extract", action="store_true", help="unpack a store instead")
    args = parser.parse_args(argv)
    if args.extract:
        for folder in extract(args.source, args.destination):
            print(folder)
        return 0
    workloads = sorted(p for p in args.source.iterdir() if (p / "triton").is_dir())
    if not workloads:
        print(f"{args.source}: no workload folder with a triton/ cache", file=sys.stderr)
        return 2
    args.destination.mkdir(parents=True, exist_ok=True)
    index = []
    total = 0
    for workload in workloads:
        size = pack_workload(workload, args.destination / f"{workload.name}.tar.xz")
        entries = _index_entries(workload)
        index.extend(entries)
        total += size
        print(f"{workload.name:16} {len(entries):5} kernels {size / 1e6:6.2f} MB")
    (args.destination / "index.json").write_text(json.dumps(index, indent=0) + "\n")
    print(f"{'total':16} {len(index):5} kernels {total / 1e6:6.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
