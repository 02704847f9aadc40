"""Confirm ``llverify validate`` verdicts on the H100: run sweep kernels and compare with numpy.

Issue 19, part 5(b): "confirm a sample of refutations by running the kernel and showing the
wrong or nondeterministic output, and a sample of proved ones running right".

* ``prepare DIR`` (here, on the CPU; imports llverify): for each sample of
  :data:`SAMPLES` (sweep kernels of :func:`cases.emitted_sweep.sweep_cases`), retargets the
  module to ``cuda:90``, runs :func:`llverify.emitted.validate.validate_module` on it, and
  compiles it to a cubin with the same Triton release (``validate_confirm/compile_cubin.py``
  under the release's interpreter), checking that the PTX equals the PTX the validator read.
  Writes ``DIR/<sample>.{cubin,ptx,json}`` and ``DIR/samples.json`` (the verdicts and what each
  kernel loads and stores).
* ``run DIR`` (on the H100; needs only numpy and CuPy): launches each cubin with CuPy, one CTA,
  on fresh random inputs each launch, output poisoned (all bits set) before each launch, and
  compares with a numpy reference: bit-exact for data movement (convert, local_load/store,
  dot-operand loads, gather), exact for sums and counts (the inputs are small integers, so
  every association order gives the same sum), and, for the non-commutative "first non-zero"
  combine ``select(a != 0, a, b)``, against the sequential left fold, with many launches on one
  fixed input too, to see whether the output varies between launches.  Prints a table; ``--out``
  writes the JSON.
* ``table SAMPLES RESULTS``: the Markdown table of docs/validation.md "Hardware confirmation".

Run: ``python benchmarks/gpu/validate_confirm.py prepare build/vc`` here, then on the device
``python3 benchmarks/gpu/validate_confirm.py run build/vc --out $OUT/results.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).resolve().with_name("validate_confirm") / "compile_cubin.py"

#: sweep case name -> Triton releases (``version: interpreter``) to compile it with
SAMPLES: dict[str, tuple[str, ...]] = {
    # (a) proved by the validator: must run right
    "nested_slice-convert-i64-w2x4-cuda90-v16": ("3.9.0",),
    "mma_v3-convert-f16-w4x1-cuda90-v37": ("3.9.0",),
    "nvmma_shared-dot_operand_load-f16-w2x4-cuda90-v79": ("3.9.0",),
    "swizzled_shared-dot_operand_load-bf16-w1x2-cuda90-v74": ("3.9.0",),
    "swizzled_shared-local_load-i64-w2x4-cuda90-v70": ("3.9.0",),
    "slice-local_store-f32-w4x2-cuda80-v15": ("3.9.0",),
    "blocked-reduce_add-f16-w2x1-cuda90-v1": ("3.9.0",),
    "mma_v3-reduce_add-f32-w4x2-cuda90-v39": ("3.9.0",),
    "blocked-scan-f16-w4x1-cuda90-v13": ("3.9.0",),
    "blocked-gather-f16-w4x1-cuda90-v13": ("3.9.0",),
    "blocked-histogram-i32-w4x1-cuda90-v67": ("3.9.0",),
    # (b) refuted in the quick sweep (docs/validation.md "Every refutation, triaged")
    "blocked-reduce_first-f32-w2x2-cuda80-v3": ("3.9.0", "3.2.0"),
    "slice-reduce_first-i8-w2x2-cuda80-v12": ("3.9.0", "3.2.0"),
    "blocked-scan_reverse-f32-w1x1-cuda80-v9": ("3.9.0",),
    "blocked-scan-i64-w4x1-cuda90-v4": ("3.9.0",),
    # the same non-commutative combine elsewhere (reduce and scan), and a 1-warp control
    "nested_slice-reduce_first-f32-w2x2-cuda80-v21": ("3.9.0",),
    "blocked-reduce_first-i64-w4x1-cuda90-v4": ("3.9.0",),
    "mma_v3-reduce_first-f32-w4x1-cuda90-v45": ("3.9.0",),
    "blocked-reduce_first-f32-w1x1-cuda80-v9": ("3.9.0",),
    "blocked-scan-f16-w2x4-cuda90-v7": ("3.9.0",),
}
TARGET = "cuda:90"
MOVES = ("convert", "local_load", "local_store", "dot_operand_load")
#: numpy storage dtype of each TTGIR element type (bf16 is kept as its 16 bits)
STORAGE = {
    "i8": "int8",
    "i32": "int32",
    "i64": "int64",
    "f16": "float16",
    "bf16": "uint16",
    "f32": "float32",
    "f64": "float64",
}
BITS = {"int8": "uint8", "int32": "uint32", "int64": "uint64", "float16": "uint16",
        "uint16": "uint16", "float32": "uint32", "float64": "uint64"}  # fmt: skip


# ------------------------------------------------------------------------- prepare (CPU)


def kernel_io(text: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The tensors a sweep kernel ``tt.load``-s and ``tt.store``-s: ``{"arg", "dtype",
    "shape"}`` each, in the order of the loads and stores.

    >>> ins, outs = kernel_io('''
    ...   %9 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>, #blocked>
    ...   %10 = tt.addptr %9, %8 : tensor<32x64x!tt.ptr<f32>, #blocked>, tensor<32x64xi32>
    ...   %11 = tt.load %10 : tensor<32x64x!tt.ptr<f32>, #blocked>
    ...   %19 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>, #s>
    ...   %20 = tt.addptr %19, %18 : tensor<32x!tt.ptr<f32>, #s>, tensor<32xi32, #s>
    ...   tt.store %20, %17 : tensor<32x!tt.ptr<f32>, #s>''')
    >>> ins, outs
    ([{'arg': 0, 'dtype': 'f32', 'shape': [32, 64]}], [{'arg': 1, 'dtype': 'f32', 'shape': [32]}])
    """
    splats: dict[str, dict[str, Any]] = {}
    for m in re.finditer(
        r"(%\w+) = tt\.splat %arg(\d+) : !tt\.ptr<(\w+)> -> tensor<([\dx]+)x!tt\.ptr", text
    ):
        shape = [int(d) for d in m.group(4).split("x")]
        splats[m.group(1)] = {"arg": int(m.group(2)), "dtype": m.group(3), "shape": shape}
    pointers = {
        m.group(1): splats[m.group(2)]
        for m in re.finditer(r"(%\w+) = tt\.addptr (%\w+),", text)
        if m.group(2) in splats
    }
    loads = [pointers[m.group(1)] for m in re.finditer(r"tt\.load (%\w+)", text)]
    stores = [pointers[m.group(1)] for m in re.finditer(r"tt\.store (%\w+),", text)]
    return loads, stores


def op_spec(op: str, text: str) -> dict[str, Any]:
    """What the reference needs of the op under test: its kind, axis, direction and combine.

    >>> op_spec("scan", '{axis = 0 : i32} "tt.scan"(%11) <{axis = 1 : i32, reverse = false}> addf')
    {'op': 'scan', 'axis': 1, 'reverse': False, 'combine': 'add'}
    """
    head = {
        "gather": r"tt\.gather [^\n]*",
        "reduce": r'"tt\.reduce"[^\n]*',
        "scan": r'"tt\.scan"[^\n]*',
    }
    line = next((m.group(0) for k, p in head.items() if op.startswith(k)
                 for m in [re.search(p, text)] if m), "")  # fmt: skip
    axis = re.search(r"axis = (\d+) : i32", line)
    combine = "first" if "arith.select" in text else "add"
    return {
        "op": op,
        "axis": int(axis.group(1)) if axis else None,
        "reverse": "reverse = true" in text,
        "combine": combine,
    }


def _verdict(report: Any) -> dict[str, Any]:
    verdicts = [
        {"op": v.op, "status": v.status.value, "reason": v.reason[:300], "violation": v.violation}
        for v in report.verdicts
    ]
    return {"status": report.status.value, "counts": report.counts(), "verdicts": verdicts}


def _code(ptx: str) -> str:
    """The PTX without its debug sections (they name the temporary file compiled)."""
    return ptx.split("\n\t.file", 1)[0]


def _cubin(text: str, release: str, python: str, stem: Path) -> dict[str, Any]:
    """Compile ``text`` (3.9 spelling) with the release to ``stem.{cubin,ptx,json}``."""
    from llverify.triton.compile import translate_ttgir

    with tempfile.TemporaryDirectory() as tmp:
        module = Path(tmp) / "module.ttgir"
        module.write_text(translate_ttgir(text, release))
        subprocess.run(
            [python, str(WORKER), str(module), "--arch", "90", "--out", str(stem)],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
    info: dict[str, Any] = json.loads(Path(f"{stem}.json").read_text())
    return info


def _combine(region: Any) -> str:
    names = {op.name for op in region.ops}
    if "arith.select" in names:
        return "first"
    return "add" if names <= {"arith.addf", "arith.addi"} else "other"


def harness_spec(harness: Any) -> dict[str, Any]:
    """The harness's buffers and, per case, what each output must hold (JSON values)."""
    buffers = [
        {"arg": b.arg, "name": b.name, "shape": list(b.shape), "dtype": b.element, "role": b.role,
         "values": None if b.values is None else b.values.reshape(-1).tolist()}
        for b in harness.buffers
    ]  # fmt: skip
    cases = []
    for case in harness.cases:
        names = [b.name for b in case.buffers]
        expectations = []
        for e in case.expectations:
            item: dict[str, Any] = {"output": e.output, "kind": e.kind}
            if e.kind == "move":
                item["source_buffer"] = [names[k] for k in e.source_buffer.reshape(-1)]
                item["source_index"] = e.source_index.reshape(-1).tolist()
            elif e.kind in ("reduce", "scan"):
                item.update(inputs=list(e.inputs), axis=e.axis, reverse=e.reverse,
                            combine=_combine(e.combine), result=e.result)  # fmt: skip
            else:
                item["values"] = e.values.reshape(-1).tolist()
            expectations.append(item)
        cases.append({"index": case.index, "op": case.op.name, "description": case.description,
                      "expectations": expectations})  # fmt: skip
    return {"buffers": buffers, "cases": cases}


def prepare(folder: Path) -> None:
    """Validate and compile every sample into ``folder`` (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tests"))  # the cases package (the generated sweep)
    from cases.emitted_sweep import sweep_cases
    from llverify.emitted.harness import build_harness
    from llverify.emitted.validate import validate_module
    from llverify.triton.compile import compile_ttgir
    from llverify.triton.releases import release_pythons
    from llverify.ttgir import parse_module

    pythons = release_pythons()
    pythons.setdefault("3.9.0", sys.executable)
    cases = {c.name: c for c in sweep_cases()}
    folder.mkdir(parents=True, exist_ok=True)
    samples = []
    for name, releases in SAMPLES.items():
        case = cases[name]
        text = re.sub(r'ttg\.target = "[^"]*"', f'ttg.target = "{TARGET}"', case.text, count=1)
        loads, stores = kernel_io(text)
        module = parse_module(text)
        module.target = TARGET
        harness = build_harness(module)
        for release in releases:
            python = pythons[release]
            report = validate_module(text, source=name, target=TARGET, python=python)
            validated = compile_ttgir(harness.text, TARGET, python=python)
            stem = f"{name}_triton{release.replace('.', '')}"
            kernel = _cubin(text, release, python, folder / stem)
            harnessed = _cubin(harness.text, release, python, folder / f"{stem}_harness")
            ptx = Path(f"{folder / stem}_harness.ptx").read_text()
            sample = {
                "sample": stem,
                "case": name,
                "release": release,
                "num_warps": case.num_warps,
                "loads": loads,
                "stores": stores,
                "spec": op_spec(case.op, text),
                "validator": _verdict(report),
                "harness_ptx_same_as_validated": _code(ptx) == _code(validated.ptx or ""),
                "kernel": kernel,
                "harness": {**harnessed, **harness_spec(harness)},
            }
            samples.append(sample)
            print(stem, sample["validator"]["status"], sample["validator"]["counts"],
                  "same PTX" if sample["harness_ptx_same_as_validated"] else "PTX DIFFERS",
                  flush=True)  # fmt: skip
    (folder / "samples.json").write_text(json.dumps(samples))


# ------------------------------------------------------------------------- run (H100)


def _values(rng: np.random.Generator, kind: str, shape: list[int], dtype: str) -> np.ndarray:
    """Logical values (float64 or int64) for one input: ``kind`` says which distribution."""
    size = int(np.prod(shape))
    if kind == "move":  # wide, mostly distinct values
        if dtype.startswith("i"):
            bits = int(dtype[1:])
            return rng.integers(-(2 ** (bits - 1)), 2 ** (bits - 1), size, dtype=np.int64)
        return np.round(rng.standard_normal(size) * 64, 2)
    if kind == "small":  # sums of these are exact in every dtype and order
        return rng.integers(-3, 4, size).astype(np.float64 if dtype[0] in "fb" else np.int64)
    if kind == "sparse":  # a quarter non-zero: several non-zeros per row, order matters
        nonzero = rng.random(size) < 0.25
        values = rng.integers(1, 100, size) * rng.choice([-1, 1], size) * nonzero
        return values.astype(np.float64 if dtype[0] in "fb" else np.int64)
    raise ValueError(f"kind={kind!r}: expected 'move', 'small' or 'sparse'")


def encode(values: np.ndarray, dtype: str, shape: list[int]) -> np.ndarray:
    """The storage array of ``values`` for the TTGIR element type ``dtype`` (integers wrap).

    >>> encode(np.array([1.0, -2.0]), "bf16", [2]).tolist()
    [16256, 49152]
    """
    if dtype == "bf16":
        bits = values.astype(np.float32).view(np.uint32)
        return (bits >> 16).astype(np.uint16).reshape(shape)
    return values.astype(STORAGE[dtype]).reshape(shape)


def decode(raw: np.ndarray, dtype: str) -> np.ndarray:
    """Logical values (float64 or int64) of a storage array.

    >>> decode(np.array([16256, 49152], dtype=np.uint16), "bf16").tolist()
    [1.0, -2.0]
    """
    if dtype == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return raw.astype(np.float64 if dtype[0] == "f" else np.int64)


def _first(x: np.ndarray, axis: int) -> np.ndarray:
    """The left fold of ``select(a != 0, a, b)`` along ``axis``: the first non-zero, else 0."""
    moved = np.moveaxis(x, axis, -1)
    nonzero = moved != 0
    index = np.where(nonzero.any(-1), nonzero.argmax(-1), 0)
    picked = np.take_along_axis(moved, index[..., None], -1)[..., 0]
    return np.where(nonzero.any(-1), picked, 0)


def _scan(x: np.ndarray, axis: int, reverse: bool, combine: str) -> np.ndarray:
    y = np.flip(x, axis) if reverse else x
    if combine == "add":
        out = np.cumsum(y, axis)
    else:
        moved = np.moveaxis(y, axis, -1).copy()
        for j in range(1, moved.shape[-1]):
            moved[..., j] = np.where(moved[..., j - 1] != 0, moved[..., j - 1], moved[..., j])
        out = np.moveaxis(moved, -1, axis)
    return np.flip(out, axis) if reverse else out


def reference(spec: dict[str, Any], inputs: list[np.ndarray], out_shape: list[int]) -> np.ndarray:
    """The logical result of the op under test on logical ``inputs``.

    >>> reference({"op": "reduce_first", "axis": 1, "combine": "first"},
    ...           [np.array([[0, 5, 7], [0, 0, 0]])], [2]).tolist()
    [5, 0]
    """
    op, axis = spec["op"], spec["axis"]
    x = inputs[0]
    if op in MOVES:
        return x
    if op == "reduce_add":
        return x.sum(axis)
    if op == "reduce_first":
        return _first(x, axis)
    if op in ("scan", "scan_reverse"):
        return _scan(x, axis, spec["reverse"], spec["combine"])
    if op == "gather":
        return np.take_along_axis(x, inputs[1], axis)
    if op == "histogram":
        return np.bincount(x, minlength=out_shape[0])[: out_shape[0]]
    raise ValueError(f"spec['op']={op!r}: no reference for this op")


def _inputs(rng: np.random.Generator, sample: dict[str, Any]) -> list[np.ndarray]:
    spec, loads = sample["spec"], sample["loads"]
    op = spec["op"]
    if op == "histogram":
        bins = sample["stores"][0]["shape"][0]
        return [rng.integers(0, bins, loads[0]["shape"], dtype=np.int64)]
    if op == "gather":
        src, idx = loads
        extent = src["shape"][spec["axis"]]
        index = rng.integers(0, extent, idx["shape"], dtype=np.int64)
        return [_values(rng, "move", src["shape"], src["dtype"]).reshape(src["shape"]), index]
    kind = "move" if op in MOVES else "sparse" if spec["combine"] == "first" else "small"
    return [_values(rng, kind, x["shape"], x["dtype"]).reshape(x["shape"]) for x in loads]


class Launcher:
    """One cubin loaded with CuPy, launched as one CTA of ``32 * num_warps`` threads."""

    def __init__(self, stem: str, info: dict[str, Any], pointers: int) -> None:
        import cupy as cp

        self.cp = cp
        self.info = info
        self.module = cp.RawModule(path=stem + ".cubin")
        self.function = self.module.get_function(info["name"])
        if info["shared"] > 48 * 1024:
            self.function.max_dynamic_shared_size_bytes = info["shared"]
        entry = Path(stem + ".ptx").read_text().split(".entry", 1)[1].split(")", 1)[0]
        self.extra = entry.count(".param") - pointers  # 3.3+: global (and profile) scratch
        scratch = info.get("global_scratch_size", 0) + info.get("profile_scratch_size", 0)
        if scratch:
            raise ValueError(f"{stem}: needs {scratch} bytes of global scratch (not supported)")

    def __call__(self, arrays: dict[int, np.ndarray], outputs: dict[int, Any]) -> dict[int, Any]:
        """Copy ``arrays`` (by argument index) in, poison the outputs, launch, copy them out."""
        cp = self.cp
        device = {i: cp.asarray(a) for i, a in arrays.items()}
        for i, (shape, storage) in outputs.items():
            out = cp.empty(shape, dtype=storage)
            out.view(cp.uint8)[...] = 0xFF
            device[i] = out
        args = [device[i] for i in sorted(device)] + [np.uint64(0)] * self.extra
        block = (32 * self.info["num_warps"], 1, 1)
        self.function((1, 1, 1), block, tuple(args), shared_mem=self.info["shared"])
        cp.cuda.runtime.deviceSynchronize()
        return {i: cp.asnumpy(device[i]) for i in outputs}


def _compare(move: bool, dtype: str, got_raw: np.ndarray, want: np.ndarray) -> int:
    """Wrong elements of one output (bit-exact for moves; NaN is always wrong)."""
    want_raw = encode(want.reshape(-1), dtype, list(got_raw.shape))
    bits = BITS[str(want_raw.dtype)]
    if move:
        wrong = got_raw.view(bits) != want_raw.view(bits)
    else:
        wrong = decode(got_raw, dtype) != decode(want_raw, dtype)
    return int(wrong.sum())


def _tally(result: dict[str, Any], key: str, wrong: int, size: int, example: Any) -> None:
    entry = result.setdefault(key, {"launches": 0, "bad_launches": 0, "wrong": 0, "elements": 0})
    entry["launches"] += 1
    entry["elements"] += size
    entry["wrong"] += wrong
    entry["bad_launches"] += wrong > 0
    if wrong and "example" not in entry:
        entry["example"] = example


def _example(got: np.ndarray, want: np.ndarray) -> dict[str, Any]:
    flat_got, flat_want = got.reshape(-1), want.reshape(-1)
    k = int(np.flatnonzero(flat_got != flat_want)[0])
    return {"index": k, "got": flat_got[k].item(), "want": flat_want[k].item()}


def run_kernel(folder: Path, sample: dict[str, Any], launches: int, seed: int) -> dict[str, Any]:
    """The sweep kernel itself: fresh inputs each launch against the numpy reference, and
    (for the "first" combine) ``launches`` launches on one fixed input."""
    launch = Launcher(str(folder / sample["sample"]), sample["kernel"],
                      len(sample["loads"]) + len(sample["stores"]))  # fmt: skip
    rng = np.random.default_rng(seed)
    spec, loads, store = sample["spec"], sample["loads"], sample["stores"][0]
    outputs = {store["arg"]: (store["shape"], STORAGE[store["dtype"]])}
    move = spec["op"] in MOVES or spec["op"] == "gather"

    def once(inputs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        arrays = {x["arg"]: encode(v.reshape(-1), x["dtype"], x["shape"])
                  for x, v in zip(loads, inputs, strict=True)}  # fmt: skip
        # the reference sees the values as the kernel does: rounded to the input's dtype
        logical = [decode(arrays[x["arg"]], x["dtype"]) for x in loads]
        want = reference(spec, logical, store["shape"])
        return launch(arrays, outputs)[store["arg"]], want

    result: dict[str, Any] = {}
    for _ in range(launches):
        got, want = once(_inputs(rng, sample))
        wrong = _compare(move, store["dtype"], got, want)
        _tally(result, "kernel", wrong, want.size,
               _example(decode(got, store["dtype"]), want) if wrong else None)  # fmt: skip
    if spec["combine"] == "first" and not move:
        fixed = _inputs(np.random.default_rng(seed + 1), sample)
        distinct: set[bytes] = set()
        for _ in range(launches):
            got, want = once(fixed)
            distinct.add(got.tobytes())
            wrong = _compare(move, store["dtype"], got, want)
            _tally(result, "kernel_fixed", wrong, want.size,
                   _example(decode(got, store["dtype"]), want) if wrong else None)  # fmt: skip
        result["kernel_fixed"]["distinct_outputs"] = len(distinct)
        if spec["op"] == "reduce_first":  # is every output one of its row's elements?
            x = decode(encode(fixed[0].reshape(-1), loads[0]["dtype"], loads[0]["shape"]),
                       loads[0]["dtype"])  # fmt: skip
            moved = np.moveaxis(x, spec["axis"], -1)
            member = (moved == decode(got, store["dtype"])[..., None]).any(-1)
            result["kernel_fixed"]["outputs_in_row"] = bool(member.all())
            result["kernel_fixed"]["rows_with_several_nonzeros"] = int(
                ((moved != 0).sum(-1) > 1).sum()
            )
    return result


def _harness_inputs(rng: np.random.Generator, harness: dict[str, Any]) -> dict[str, np.ndarray]:
    """Logical values of every harness input buffer, by name (the distribution by use)."""
    kinds: dict[str, str] = {}
    for case in harness["cases"]:
        for e in case["expectations"]:
            if e["kind"] in ("reduce", "scan"):
                for name in e["inputs"]:
                    kinds[name] = "sparse" if e["combine"] == "first" else "small"
    values = {}
    for b in harness["buffers"]:
        if b["role"] == "values":
            values[b["name"]] = np.array(b["values"], dtype=np.int64).reshape(b["shape"])
        elif b["role"] == "input":
            kind = kinds.get(b["name"], "move")
            raw = encode(_values(rng, kind, b["shape"], b["dtype"]), b["dtype"], b["shape"])
            values[b["name"]] = decode(raw, b["dtype"])
    return values


def _harness_want(expectation: dict[str, Any], values: dict[str, np.ndarray],
                  shape: list[int]) -> np.ndarray | None:  # fmt: skip
    kind = expectation["kind"]
    if kind == "move":
        flat = {name: v.reshape(-1) for name, v in values.items()}
        picked = [flat[b][i] for b, i in zip(expectation["source_buffer"],
                                             expectation["source_index"], strict=True)]  # fmt: skip
        return np.array(picked).reshape(shape)
    if kind == "counts":
        return np.array(expectation["values"]).reshape(shape)
    if expectation["combine"] == "other" or len(expectation["inputs"]) != 1:
        return None
    spec = {"op": "reduce_first" if expectation["combine"] == "first" else "reduce_add",
            "axis": expectation["axis"], "reverse": expectation["reverse"],
            "combine": expectation["combine"]}  # fmt: skip
    if kind == "scan":
        spec["op"] = "scan"
    return reference(spec, [values[expectation["inputs"][0]]], shape)


def run_harness(folder: Path, sample: dict[str, Any], launches: int, seed: int) -> dict[str, Any]:
    """The validated harness kernel: every case's outputs against their expectations, fresh
    inputs each launch; cases with the "first" combine also on one fixed input."""
    harness = sample["harness"]
    buffers = {b["name"]: b for b in harness["buffers"]}
    launch = Launcher(str(folder / sample["sample"]) + "_harness", harness, len(buffers))
    rng = np.random.default_rng(seed)
    outputs = {b["arg"]: (b["shape"], STORAGE[b["dtype"]])
               for b in harness["buffers"] if b["role"] == "output"}  # fmt: skip
    result: dict[str, Any] = {}

    def once(values: dict[str, np.ndarray], label: str, only_first: bool) -> set[bytes]:
        arrays = {b["arg"]: encode(values[b["name"]].reshape(-1), b["dtype"], b["shape"])
                  for b in harness["buffers"] if b["role"] != "output"}  # fmt: skip
        got = launch(arrays, outputs)
        seen = set()
        for case in harness["cases"]:
            for e in case["expectations"]:
                if only_first and e.get("combine") != "first":
                    continue
                out = buffers[e["output"]]
                want = _harness_want(e, values, out["shape"])
                key = f"{label}:{case['op']}#{case['index']}"
                if want is None:
                    result[key] = "not checked (combine with several operands or results)"
                    continue
                raw = got[out["arg"]]
                seen.add(raw.tobytes())
                wrong = _compare(e["kind"] == "move", out["dtype"], raw, want)
                _tally(result, key, wrong, want.size,
                       _example(decode(raw, out["dtype"]), want) if wrong else None)  # fmt: skip
        return seen

    for _ in range(launches):
        once(_harness_inputs(rng, harness), "harness", False)
    if any(e.get("combine") == "first" for c in harness["cases"] for e in c["expectations"]):
        fixed = _harness_inputs(np.random.default_rng(seed + 1), harness)
        distinct: set[bytes] = set()
        for _ in range(launches):
            distinct |= once(fixed, "harness_fixed", True)
        result["harness_fixed_distinct_outputs"] = len(distinct)
    return result


def run(folder: Path, launches: int, only: str, seed: int) -> list[dict[str, Any]]:
    """Run every sample of ``folder/samples.json`` whose name contains ``only``."""
    samples = json.loads((folder / "samples.json").read_text())
    results = []
    for sample in samples:
        if only not in sample["sample"]:
            continue
        result = {"sample": sample["sample"]}
        for part in (run_kernel, run_harness):
            try:
                result.update(part(folder, sample, launches, seed))
            except Exception as error:  # one broken sample must not lose the others
                result[part.__name__] = f"error: {type(error).__name__}: {error}"
        results.append(result)
        print(json.dumps(result), flush=True)
    head = ("sample", "verdict", "kernel bad", "fixed distinct", "harness bad")
    print(f"{head[0]:58} {head[1]:8} {head[2]:>11} {head[3]:>15} {head[4]:>12}")
    verdicts = {s["sample"]: s["validator"]["status"] for s in samples}
    for r in results:
        kernel = r.get("kernel", {})
        fixed = r.get("kernel_fixed", {})
        bad = sum(v["bad_launches"] for k, v in r.items()
                  if k.startswith("harness:") and isinstance(v, dict))  # fmt: skip
        print(f"{r['sample']:58} {verdicts[r['sample']]:8} "
              f"{kernel.get('bad_launches', '-')!s:>11} "
              f"{fixed.get('distinct_outputs', '-')!s:>15} {bad:>12}")  # fmt: skip
    return results


# ------------------------------------------------------------------------- table


def table(samples_path: Path, results_path: Path) -> str:
    """The Markdown table of docs/validation.md from ``samples.json`` and the run's JSON."""
    samples = {s["sample"]: s for s in json.loads(samples_path.read_text())}
    lines = [
        "| sweep case (compiled for cuda:90) | release | validator: op under test "
        "(p/r/u of the module) | kernel: bad launches | harness: bad launches (op under test) "
        "| fixed input: distinct outputs (kernel, harness) |",
        "|---|---|---|---|---|---|",
    ]
    for r in json.loads(results_path.read_text()):
        s = samples[r["sample"]]
        counts = s["validator"]["counts"]
        main = [v for v in s["validator"]["verdicts"] if v["op"] not in _SCAFFOLD]
        under = ", ".join(f"{v['op']} {v['status']}" for v in main) or "-"
        harness = [v for k, v in r.items() if k.startswith("harness:")
                   and k.split(":")[1].split("#")[0] not in _SCAFFOLD]  # fmt: skip
        bad = sum(v["bad_launches"] for v in harness)
        fixed = r.get("kernel_fixed")
        column = (f"{fixed['distinct_outputs']}, {r['harness_fixed_distinct_outputs']}"
                  if fixed else "-")  # fmt: skip
        lines.append(
            f"| {s['case']} | {s['release']} | {under} "
            f"({counts['proved']}/{counts['refuted']}/{counts['unknown']}) | "
            f"{r['kernel']['bad_launches']} of {r['kernel']['launches']} | "
            f"{bad} of {harness[0]['launches']} | {column} |"
        )
    return "\n".join(lines)


_SCAFFOLD = ("tt.expand_dims", "tt.broadcast", "tt.make_range", "tt.splat", "tt.addptr")


def main() -> None:
    """Command line: ``prepare DIR``, ``run DIR``, ``table SAMPLES RESULTS``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("folder", type=Path)
    r = sub.add_parser("run")
    r.add_argument("folder", type=Path)
    r.add_argument("--launches", type=int, default=200)
    r.add_argument("--only", default="")
    r.add_argument("--seed", type=int, default=19)
    r.add_argument("--out", type=Path)
    t = sub.add_parser("table")
    t.add_argument("samples", type=Path)
    t.add_argument("results", type=Path)
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args.folder)
    elif args.command == "run":
        results = run(args.folder, args.launches, args.only, args.seed)
        if args.out:
            args.out.write_text(json.dumps(results, indent=1))
    else:
        print(table(args.samples, args.results))


if __name__ == "__main__":
    main()
