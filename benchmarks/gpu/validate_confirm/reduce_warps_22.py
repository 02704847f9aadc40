"""Run Triton 2.2.0's multi-warp reduce with replicated warps on the H100 (CuPy), sum and first.

The validator refutes ``blocked-reduce_first-f32-w2x2-cuda80-v3`` on 2.2.0 with a
nondeterministic shared store (docs/validation.md, "(b) Triton releases 2.1-3.8"); the same
module with an ``addf`` combine is refuted the same way, and proved on 2.1.0 and 3.0.0.

* ``prepare DIR`` (CPU; imports llverify): compiles the sweep kernel and its ``addf`` variant
  with Triton 2.2.0 and 3.0.0 (their virtualenvs: ``llverify.triton.releases.release_python``)
  for cuda:80, writes
  ``DIR/<name>.ptx`` and ``DIR/kernels.json`` (kernel name, warps, shared bytes).
* ``run DIR`` (H100; numpy and CuPy): launches each PTX as one CTA of 128 threads, ``--launches``
  times (every other launch on one fixed input) on random small integers (exact sums in any
  order), output poisoned, and counts launches with a wrong row: ``add`` against numpy's row
  sum; ``first`` (97% zeros) when the output is not an element of its row, or is 0 in a row
  with a non-zero (every order of ``select(a != 0, a, b)`` over the whole row gives a non-zero
  then).  Prints one JSON line per kernel.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
CASE = "blocked-reduce_first-f32-w2x2-cuda80-v3"
RELEASES = ("2.2.0", "3.0.0")
_FIRST = re.compile(r"\^bb0\(%12: f32, %13: f32\):.*?tt\.reduce\.return %16 : f32", re.S)
_ADD = (
    "^bb0(%12: f32, %13: f32):\n      %16 = arith.addf %12, %13 : f32\n"
    "      tt.reduce.return %16 : f32"
)


def prepare(folder: Path) -> None:
    """Compile the kernels (CPU)."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tests"))  # the cases package (the generated sweep)
    from cases.emitted_sweep import sweep_cases
    from llverify.triton.compile import compile_ttgir
    from llverify.triton.releases import release_python

    first = next(c.text for c in sweep_cases(quick=True) if c.name == CASE)
    add = _FIRST.sub(_ADD, first)
    assert "arith.addf" in add
    folder.mkdir(parents=True, exist_ok=True)
    kernels = {}
    for combine, text in (("add", add), ("first", first)):
        for release in RELEASES:
            compiled = compile_ttgir(text, "cuda:80", python=release_python(release))
            name = f"{combine}-{release}"
            (folder / f"{name}.ptx").write_text(compiled.ptx or "")
            (folder / f"{name}.llir").write_text(compiled.llir)
            kernels[name] = {"kernel": compiled.name, "num_warps": compiled.num_warps,
                             "shared": compiled.shared_bytes, "combine": combine}  # fmt: skip
    (folder / "kernels.json").write_text(json.dumps(kernels, indent=1))


def run(folder: Path, launches: int) -> None:
    """Launch every prepared kernel (H100)."""
    import cupy as cp

    rng = np.random.default_rng(22)
    for name, info in json.loads((folder / "kernels.json").read_text()).items():
        function = cp.RawModule(path=str(folder / f"{name}.ptx")).get_function(info["kernel"])
        bad_launches, wrong_rows, example = 0, 0, None
        outputs = set()
        zeros = 0.97 if info["combine"] == "first" else 0.0
        fixed = _draw(rng, zeros)
        for k in range(launches):
            x = fixed if k % 2 else _draw(rng, zeros)
            source, out = cp.asarray(x), cp.empty(32, dtype=cp.float32)
            out.view(cp.uint32)[...] = 0xFFFFFFFF
            block = (32 * info["num_warps"], 1, 1)
            function((1, 1, 1), block, (source, out), shared_mem=info["shared"])
            cp.cuda.runtime.deviceSynchronize()
            got = cp.asnumpy(out)
            if info["combine"] == "add":
                bad = got != x.sum(axis=1)
            else:
                bad = np.array([g not in row or (g == 0 and row.any()) for g, row in zip(got, x)])
            if k % 2:
                outputs.add(got.tobytes())
            bad_launches += bool(bad.any())
            wrong_rows += int(bad.sum())
            if bad.any() and example is None:
                r = int(np.flatnonzero(bad)[0])
                want = float(x[r].sum()) if info["combine"] == "add" else "an element of the row"
                half = [float(x[r, c].sum()) for c in (_cols(0), _cols(1))]
                example = {"row": r, "got": float(got[r]), "want": want,
                           "sums_of_axis_warp_0_1_columns": half}  # fmt: skip
        print(json.dumps({"kernel": name, "launches": launches, "bad_launches": bad_launches,
                          "wrong_rows": wrong_rows, "distinct_outputs_on_fixed_input": len(outputs),
                          "example": example}), flush=True)  # fmt: skip


def _draw(rng: np.random.Generator, zeros: float) -> np.ndarray:
    """A 32x64 input of small integers, a fraction ``zeros`` of them set to 0."""
    x = rng.integers(-9, 10, size=(32, 64))
    return np.where(rng.random(x.shape) < zeros, 0, x).astype(np.float32)


def _cols(axis_warp: int) -> np.ndarray:
    """The columns warp (axis index ``axis_warp``) holds: 16 lanes, then a second repetition."""
    lanes = np.arange(16)
    return np.concatenate([lanes + 16 * axis_warp, lanes + 16 * axis_warp + 32])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=("prepare", "run"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--launches", type=int, default=300)
    args = parser.parse_args()
    if args.mode == "prepare":
        prepare(args.folder)
    else:
        run(args.folder, args.launches)


if __name__ == "__main__":
    main()
