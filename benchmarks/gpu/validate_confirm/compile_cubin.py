"""Compile one TTGIR file to a cubin with this interpreter's Triton (3.x), for the H100 run.

Run by ``benchmarks/gpu/validate_confirm.py prepare`` under the interpreter of the wanted
release (``release_python("3.2.0")`` of ``llverify.triton.releases``: ``3.2.0/bin/python`` in the
releases folder); it imports
only the standard library and Triton.  The TTGIR must already be in that release's dialect
(``llverify.triton.compile.translate_ttgir``).  Writes ``STEM.cubin``, ``STEM.ptx`` and
``STEM.json`` (kernel name, num_warps, shared bytes, Triton version) beside ``--out``.

Run: ``python compile_cubin.py module.ttgir --arch 90 --out build/stem``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path


def main() -> None:
    """Compile the TTGIR file named on the command line and write the artifacts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ttgir")
    parser.add_argument("--arch", type=int, default=90)
    parser.add_argument("--out", required=True, help="output path stem")
    args = parser.parse_args()
    import triton
    from triton.backends.compiler import GPUTarget

    with tempfile.TemporaryDirectory(prefix="validate-confirm-") as tmp:
        os.environ["TRITON_CACHE_DIR"] = tmp
        compiled = triton.compile(args.ttgir, target=GPUTarget("cuda", args.arch, 32))
    metadata = compiled.metadata
    meta = metadata if isinstance(metadata, dict) else metadata._asdict()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out + ".cubin").write_bytes(compiled.asm["cubin"])
    Path(args.out + ".ptx").write_text(compiled.asm["ptx"])
    info = {
        "name": meta["name"],
        "num_warps": int(meta["num_warps"]),
        "shared": int(meta.get("shared", 0)),
        "global_scratch_size": int(meta.get("global_scratch_size") or 0),
        "profile_scratch_size": int(meta.get("profile_scratch_size") or 0),
        "triton": triton.__version__,
    }
    Path(args.out + ".json").write_text(json.dumps(info, indent=1))
    print(json.dumps(info))


if __name__ == "__main__":
    main()
