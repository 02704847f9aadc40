"""Differential tests: llverify's LinearLayout against Triton 3.9's C++ LinearLayout.

Thousands of seeded layouts (broadcast/zero and duplicate bases, non-surjective layouts
with explicit sizes, several in and out dims, non-injective outers, permutation and
swizzle layouts, 128x128 register/shared layouts) go through ``from_bases``,
``compose``, ``invert_and_compose``, ``pseudoinvert``, ``invert``, ``*`` and ``==`` on
both sides.  Each result must agree exactly: bases, out dims, in/out dim names,
``is_surjective``/``is_injective``/``is_invertible``, ``str()`` (Triton's
``toString()``), ``get_matrix_view()`` and ``apply`` on random in-range points.

Triton aborts the process on any violated precondition, so it never runs in the
pytest process: ``tests/oracle/triton_oracle.py`` evaluates all cases in a
subprocess.  Only inputs that satisfy Triton's preconditions are generated (each
case is checked by an independent GF(2) helper below before it is sent).  If the
worker dies anyway, the test names the case that killed it and carries on with the
rest in a fresh worker.

Without Triton 3.9 these tests are skipped, unless ``LLVERIFY_REQUIRE_TRITON=1``,
which turns the skip into a failure.  ``LLVERIFY_DIFF_SEED`` changes the seed.
"""

from __future__ import annotations

import functools
import json
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from cases.triton import triton_missing
from llverify import LinearLayout

pytestmark = pytest.mark.triton

ORACLE = Path(__file__).parent / "oracle" / "triton_oracle.py"
SEED = int(os.environ.get("LLVERIFY_DIFF_SEED", "20250917"))
MAX_CRASHES = 25  # stop restarting the worker after this many aborted cases

# Minimum number of cases checked per operation ("layout" counts distinct layouts).
MIN_CASES = {
    "layout": 2000,
    "ctor": 50,
    "compose": 500,
    "invert_and_compose": 1500,
    "pseudoinvert": 500,
    "invert": 400,
    "mul": 500,
    "eq": 200,
}

IN_POOL = ["register", "lane", "warp", "block", "offset"]
OUT_POOL = ["dim0", "dim1", "dim2"]
SHORT = "abcxyz"

Spec = dict[str, Any]


# ---------------------------------------------------------------------- oracle process


@functools.cache
def _probe_triton() -> str | None:
    """Return None when Triton 3.9 works in a subprocess, else the reason it does not."""
    try:
        proc = subprocess.run(
            [sys.executable, str(ORACLE), "--version"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"cannot run the Triton oracle worker: {error}"
    if proc.returncode != 0:
        tail = _stderr_tail(proc.stderr)
        return f"triton is not importable in {sys.executable}: {tail}"
    version = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "?"
    if not version.startswith("3.9"):
        return f"the differential tests pin Triton 3.9, but triton {version} is installed"
    return None


def _stderr_tail(stderr: str, lines: int = 15) -> str:
    kept = [ln for ln in stderr.splitlines() if "leaked" not in ln and ln.strip()]
    return "\n".join(kept[-lines:])


@dataclass
class OracleRun:
    results: dict[str, Any] = field(default_factory=dict)
    crashes: dict[str, str] = field(default_factory=dict)  # case id -> stderr tail
    errors: dict[str, str] = field(default_factory=dict)  # case id -> Python exception
    not_run: list[str] = field(default_factory=list)  # given up after MAX_CRASHES
    seconds: float = 0.0


def run_oracle(cases: list[Spec]) -> OracleRun:
    """Evaluate cases in worker subprocesses; a case that kills the worker is recorded
    in ``crashes`` and the worker is restarted after it."""
    run = OracleRun()
    start = time.perf_counter()
    remaining = cases
    while remaining:
        proc = subprocess.run(
            [sys.executable, str(ORACLE)],
            input=json.dumps(remaining),
            capture_output=True,
            text=True,
            timeout=600,
        )
        done = False
        for line in proc.stdout.splitlines():
            if line.startswith("@@DONE"):
                done = True
            elif line.startswith("@@ "):
                record = json.loads(line[3:])
                if "error" in record:
                    run.errors[record["id"]] = record["error"]
                run.results[record["id"]] = record.get("result")
        if done and proc.returncode == 0:
            break
        finished = [c for c in remaining if c["id"] in run.results]
        culprit = remaining[len(finished)] if len(finished) < len(remaining) else None
        if culprit is None:  # died after the last case: report it on the last one
            culprit = remaining[-1]
        run.crashes[culprit["id"]] = (
            f"worker exit status {proc.returncode}:\n{_stderr_tail(proc.stderr)}"
        )
        if len(run.crashes) >= MAX_CRASHES:
            run.not_run = [case["id"] for case in remaining[len(finished) + 1 :]]
            break
        remaining = remaining[len(finished) + 1 :]
    run.seconds = time.perf_counter() - start
    return run


# ---------------------------------------------------------------------- GF(2) helpers
# Independent of llverify: used to generate valid inputs and check preconditions.


def rank(cols: list[int]) -> int:
    basis: dict[int, int] = {}
    for c in cols:
        while c:
            top = c.bit_length() - 1
            if top not in basis:
                basis[top] = c
                break
            c ^= basis[top]
    return len(basis)


def span_basis(cols: list[int]) -> list[int]:
    basis: dict[int, int] = {}
    for c in cols:
        while c:
            top = c.bit_length() - 1
            if top not in basis:
                basis[top] = c
                break
            c ^= basis[top]
    return list(basis.values())


def intersect_with_box(cols: list[int], allowed: int) -> list[int]:
    """A basis of span(cols) intersected with the vectors whose bits lie in ``allowed``."""
    vectors = span_basis(cols)
    total = max((v.bit_length() for v in vectors), default=0)
    for bit in range(total):
        if allowed >> bit & 1:
            continue
        pivot = next((v for v in vectors if v >> bit & 1), None)
        if pivot is None:
            continue
        vectors = [v ^ pivot if v >> bit & 1 else v for v in vectors if v is not pivot]
    return [v for v in vectors if v]


def parity(x: int) -> int:
    return bin(x).count("1") & 1


class Space:
    """Packing of coordinates (one field per out dim, minor first) into an int."""

    def __init__(self, outs: list[str], log2: list[int]):
        self.outs = list(outs)
        self.log2 = list(log2)
        self.offsets = []
        pos = 0
        for n in log2:
            self.offsets.append(pos)
            pos += n
        self.total = pos

    def unit(self, k: int, bit: int) -> int:
        return 1 << (self.offsets[k] + bit)

    def pack(self, coords: list[int]) -> int:
        return sum(v << off for v, off in zip(coords, self.offsets))

    def unpack(self, col: int) -> list[int]:
        return [(col >> off) & ((1 << n) - 1) for off, n in zip(self.offsets, self.log2)]

    def box(self, log2: list[int]) -> int:
        """Mask of the bits of coordinates smaller than 2**log2 (per dim)."""
        return sum(((1 << n) - 1) << off for n, off in zip(log2, self.offsets))

    def by_name(self, col: int) -> dict[str, int]:
        return dict(zip(self.outs, self.unpack(col)))


def make_spec(
    ins: list[tuple[str, list[int]]],
    space: Space,
    *,
    rng: random.Random | None = None,
    infer_sizes: bool | None = None,
) -> Spec:
    """A from_bases spec from packed columns; out sizes explicit unless inferable."""
    cols = [c for _, cs in ins for c in cs]
    surjective = rank(cols) == space.total
    bases = [[name, [space.unpack(c) for c in cs]] for name, cs in ins]
    sizes = [1 << n for n in space.log2]
    if surjective:
        if infer_sizes is None:
            infer_sizes = rng is not None and rng.random() < 0.4
        if infer_sizes:
            return {"bases": bases, "outs": space.outs, "sizes": None, "surj": True}
        flag = rng is None or rng.random() < 0.5
        return {"bases": bases, "outs": space.outs, "sizes": sizes, "surj": flag}
    return {"bases": bases, "outs": space.outs, "sizes": sizes, "surj": False}


def spec_space(spec: Spec) -> Space:
    """The Space of a from_bases spec (sizes inferred like Triton when not given)."""
    if spec["sizes"] is not None:
        return Space(spec["outs"], [s.bit_length() - 1 for s in spec["sizes"]])
    sizes = [1] * len(spec["outs"])
    for _, bs in spec["bases"]:
        for b in bs:
            for k, v in enumerate(b):
                sizes[k] = max(sizes[k], 1 << v.bit_length())
    return Space(spec["outs"], [s.bit_length() - 1 for s in sizes])


def spec_cols(spec: Spec) -> tuple[Space, list[tuple[str, list[int]]]]:
    space = spec_space(spec)
    return space, [(name, [space.pack(b) for b in bs]) for name, bs in spec["bases"]]


# ---------------------------------------------------------------------- generators


def pick_in_names(rng: random.Random, k: int) -> list[str]:
    if rng.random() < 0.75:
        return rng.sample(IN_POOL, k)
    names: list[str] = []
    while len(names) < k:
        name = "".join(rng.choice(SHORT) for _ in range(rng.randint(1, 2)))
        if name not in names:
            names.append(name)
    return names


def pick_out_names(rng: random.Random, k: int) -> list[str]:
    r = rng.random()
    if r < 0.6:
        return OUT_POOL[:k]
    if r < 0.8:
        return rng.sample(OUT_POOL, k)
    names: list[str] = []
    while len(names) < k:
        name = "o" + "".join(rng.choice(SHORT) for _ in range(rng.randint(1, 2)))
        if name not in names:
            names.append(name)
    return names


def random_space(rng: random.Random, max_log2: int = 4) -> Space:
    k = rng.choice([1, 1, 2, 2, 2, 3])
    return Space(pick_out_names(rng, k), [rng.randint(0, max_log2) for _ in range(k)])


def random_col(rng: random.Random, space: Space, previous: list[int]) -> int:
    if space.total == 0:
        return 0
    r = rng.random()
    if r < 0.15:
        return 0
    if r < 0.25 and previous:
        return rng.choice(previous)  # duplicate basis
    if r < 0.65:
        return 1 << rng.randrange(space.total)
    if r < 0.8:
        return (1 << rng.randrange(space.total)) ^ (1 << rng.randrange(space.total))
    return rng.getrandbits(space.total)


def random_cols(
    rng: random.Random, space: Space, bit_counts: list[int], want: str
) -> list[list[int]]:
    """Packed columns per in dim; want is 'surj', 'nonsurj' or 'any'."""
    n = sum(bit_counts)
    if want == "surj":
        slots = rng.sample(range(n), space.total)
        units = [1 << b for b in range(space.total)]
        rng.shuffle(units)
        flat = [0] * n
        for slot, unit in zip(slots, units):
            flat[slot] = unit
        previous = list(units)
        for i in range(n):
            if i not in slots:
                flat[i] = random_col(rng, space, previous)
                previous.append(flat[i])
        if rng.random() < 0.5 and n > 1:
            for _ in range(rng.randint(1, n)):  # column operations keep the rank
                i, j = rng.sample(range(n), 2)
                flat[i] ^= flat[j]
    else:
        flat = []
        for _ in range(n):
            flat.append(random_col(rng, space, flat))
        if want == "nonsurj" and space.total:
            functional = rng.getrandbits(space.total) or 1
            pivot = 1 << (functional.bit_length() - 1)
            flat = [c ^ pivot if parity(c & functional) else c for c in flat]
    out, pos = [], 0
    for count in bit_counts:
        out.append(flat[pos : pos + count])
        pos += count
    return out


def random_bit_counts(rng: random.Random, k: int, need: int, cap: int = 6) -> list[int]:
    counts = [rng.choice([0, 1, 2, 2, 3, 3, 4, 5]) for _ in range(k)]
    need = min(need, cap * k)
    while sum(counts) < need:
        i = rng.randrange(k)
        if counts[i] < cap:
            counts[i] += 1
    return counts


def random_layout(
    rng: random.Random,
    *,
    space: Space | None = None,
    in_names: list[str] | None = None,
    want: str | None = None,
    extra_bits: int = 0,
) -> tuple[Spec, Space, list[tuple[str, list[int]]]]:
    space = space or random_space(rng)
    if want is None:
        want = rng.choice(["surj", "surj", "nonsurj", "any"])
    if want == "nonsurj" and space.total == 0:
        want = "surj"
    if in_names is None:
        k = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4]) if want != "surj" else rng.randint(1, 4)
        if want == "surj" and space.total > 6 * k:
            k = -(-space.total // 6)
        in_names = pick_in_names(rng, k)
    need = space.total if want == "surj" else 0
    counts = random_bit_counts(rng, len(in_names), need + extra_bits) if in_names else []
    cols = random_cols(rng, space, counts, want)
    ins = list(zip(in_names, cols))
    return make_spec(ins, space, rng=rng), space, ins


def perm_layout(
    rng: random.Random, space: Space, in_names: list[str], zeros: int
) -> list[tuple[str, list[int]]]:
    """Distributed-like: every basis a power of 2 in one out dim, or zero (broadcast)."""
    seq = [1 << b for b in range(space.total)]
    if rng.random() < 0.5:
        rng.shuffle(seq)
    else:  # Triton-like: low bits first, dims interleaved in chunks
        seq = sorted(seq, key=lambda c: (rng.random() < 0.3, c))
    for _ in range(zeros):
        seq.insert(rng.randint(0, len(seq)), 0)
    cuts = sorted(rng.randint(0, len(seq)) for _ in range(len(in_names) - 1))
    out, prev = [], 0
    for cut in cuts + [len(seq)]:
        out.append(seq[prev:cut])
        prev = cut
    return list(zip(in_names, out))


def named_like_outs(
    rng: random.Random, space: Space, extra_bits: int
) -> list[tuple[str, list[int]]]:
    """A surjective layout some of whose in dims are named after out dims and map
    identically onto them (what pseudoinvert's identity layout looks like), while
    other in dims may also touch those out bits; extra_bits=0 gives an invertible one."""
    ins: list[tuple[str, list[int]]] = []
    rest_units = []
    for k, name in enumerate(space.outs):
        units = [space.unit(k, j) for j in range(space.log2[k])]
        if rng.random() < 0.6:
            ins.append((name, units))  # identical to identity_1d(size, name, name)
        else:
            rest_units.extend(units)
    others = [n for n in ("register", "lane", "x") if rng.random() < 0.7] or ["lane"]
    flat = rest_units + [0] * extra_bits
    rng.shuffle(flat)
    for i in range(len(flat)):
        if flat[i] == 0 and space.total and rng.random() < 0.7:
            flat[i] = rng.getrandbits(space.total)  # extra bits: anything
    fixed = [c for _, cs in ins for c in cs]
    for i in range(len(flat)):
        if fixed and rng.random() < 0.5:
            flat[i] ^= rng.choice(fixed)  # touch the identity dims' out bits (keeps rank)
    cuts = sorted(rng.randint(0, len(flat)) for _ in range(len(others) - 1))
    prev = 0
    for name, cut in zip(others, cuts + [len(flat)]):
        ins.append((name, flat[prev:cut]))
        prev = cut
    rng.shuffle(ins)
    return ins


def swizzle_layout(rng: random.Random, space: Space) -> list[tuple[str, list[int]]]:
    """Memory-like 'offset' layout: row-major units, rows XOR-ed with a column bit."""
    order = list(range(len(space.log2)))
    rng.shuffle(order)
    fast = order[0]
    vec = rng.randint(0, space.log2[fast])
    per_phase = rng.randint(0, 3)
    max_phase = rng.randint(0, max(0, space.log2[fast] - vec))
    cols = []
    for k in order:
        for bit in range(space.log2[k]):
            col = space.unit(k, bit)
            if k != fast:
                phase = ((1 << bit) >> per_phase) % (1 << max_phase)
                col |= (phase << vec) << space.offsets[fast]
            cols.append(col)
    ins = [("offset", cols)]
    if rng.random() < 0.3:
        ins.append(("block", []))
    return ins


def blocked_128(rng: random.Random) -> tuple[Space, list[tuple[str, list[int]]]]:
    """A 128x128 blocked register layout (register, lane, warp), possibly broadcast."""
    space = Space(["dim0", "dim1"], [7, 7])
    order = rng.choice([[1, 0], [0, 1]])
    spt = [rng.randint(0, 3), rng.randint(0, 3)]
    lane_first = rng.randint(0, 5)
    tpw = {order[0]: lane_first, order[1]: 5 - lane_first}
    warp_bits = rng.randint(0, 3)
    warp_first = rng.randint(0, warp_bits)
    wpc = {order[0]: warp_first, order[1]: warp_bits - warp_first}
    used = [0, 0]

    def take(d: int) -> int:
        if used[d] >= 7:
            return 0  # the tensor is smaller than the tile: broadcast
        used[d] += 1
        return space.unit(d, used[d] - 1)

    register = [take(d) for d in order for _ in range(spt[d])]
    lane = [take(d) for d in order for _ in range(tpw[d])]
    warp = [take(d) for d in order for _ in range(wpc[d])]
    for d in order:
        while used[d] < 7:
            register.append(take(d))
    ins = [("register", register), ("lane", lane), ("warp", warp)]
    if rng.random() < 0.3:
        ins.append(("block", [0] * rng.randint(0, 1)))
    return space, ins


def shared_128(rng: random.Random) -> tuple[Space, list[tuple[str, list[int]]]]:
    """A 128x128 swizzled shared layout (Triton's vec/perPhase/maxPhase formula)."""
    space = Space(["dim0", "dim1"], [7, 7])
    fast, slow = rng.choice([(1, 0), (0, 1)])
    vec = rng.choice([1, 2, 4, 8])
    per_phase = rng.choice([1, 2, 4, 8])
    max_phase = rng.choice([1, 2, 4, 8])
    cols = [space.unit(fast, c) for c in range(7)]
    for r in range(7):
        swz = (((1 << r) // per_phase) % max_phase) * vec % 128
        cols.append(space.unit(slow, r) | (swz << space.offsets[fast]))
    ins = [("offset", cols)]
    if rng.random() < 0.3:
        ins.append(("block", []))
    return space, ins


def rename_space(space: Space, order: list[str], log2: dict[str, int]) -> Space:
    return Space(order, [log2[name] for name in order])


def convert_col(col: int, src: Space, dst: Space) -> int:
    coords = src.by_name(col)
    return dst.pack([coords[name] for name in dst.outs])


# ---------------------------------------------------------------------- case builders


class CaseBuilder:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.cases: list[Spec] = []
        self.counter = 0

    def add(self, op: str, a: Spec, b: Spec | None = None) -> None:
        case = {"id": f"{op}-{self.counter}", "op": op, "a": a, "seed": self.counter}
        if b is not None:
            case["b"] = b
        check_preconditions(case)
        self.cases.append(case)
        self.counter += 1

    # -- plain layouts and constructors
    def layouts(self, count: int) -> None:
        rng = self.rng
        for i in range(count):
            r = i % 10
            if r < 6:
                spec, _, _ = random_layout(rng)
            elif r < 8:
                space = random_space(rng)
                ins = perm_layout(
                    rng, space, pick_in_names(rng, rng.randint(1, 4)), rng.randint(0, 3)
                )
                spec = make_spec(ins, space, rng=rng)
            elif r < 9:
                space = random_space(rng, 5)
                spec = make_spec(swizzle_layout(rng, space), space, rng=rng)
            else:
                maker = blocked_128 if rng.random() < 0.5 else shared_128
                space, ins = maker(rng)
                spec = make_spec(ins, space, rng=rng)
            self.add("layout", spec)

    def ctors(self, count: int) -> None:
        rng = self.rng
        for i in range(count):
            size = rng.choice([0, 1, 2, 4, 8, 16, 64, 1024]) if i % 7 else 0
            in_dim, out_dim = rng.choice(IN_POOL), rng.choice(OUT_POOL)
            kind = i % 3
            if kind == 0:
                spec = {"ctor": "identity_1d", "args": [size, in_dim, out_dim]}
            elif kind == 1:
                stride = rng.choice([1, 2, 4, 32])
                spec = {"ctor": "strided_1d", "args": [size, stride, in_dim, out_dim]}
            else:
                spec = {
                    "ctor": "zeros_1d",
                    "args": [size, in_dim, out_dim, rng.choice([1, 1, 2, 8])],
                }
            self.add("ctor", spec)

    # -- compose
    def compose(self, count: int) -> None:
        rng = self.rng
        for i in range(count):
            if i % 5 == 4:  # distributed -> permutation of the tensor dims
                space = Space(["dim0", "dim1"], [rng.randint(1, 4), rng.randint(0, 4)])
                this_ins = perm_layout(rng, space, ["register", "lane", "warp"], rng.randint(0, 2))
                this = make_spec(this_ins, space, rng=rng)
            else:
                this, space, _ = random_layout(rng)
            names = list(space.outs)
            if rng.random() < 0.4:
                rng.shuffle(names)
            grow = {n: (rng.randint(0, 2) if rng.random() < 0.3 else 0) for n in space.outs}
            log2 = dict(zip(space.outs, space.log2))
            outer_space = random_space(rng)
            want = rng.choice(["surj", "nonsurj", "any"])
            counts = [log2[n] + grow[n] for n in names]
            if want == "surj" and sum(counts) < outer_space.total:
                want = "any"
            cols = random_cols(rng, outer_space, counts, want)
            outer = make_spec(list(zip(names, cols)), outer_space, rng=rng)
            self.add("compose", this, outer)

    # -- invert_and_compose
    def invert_and_compose(self, count: int) -> None:
        rng = self.rng
        for _ in range(count):
            outer_want = rng.choice(["surj", "surj", "surj", "nonsurj", "nonsurj", "any"])
            outer, a_space, a_ins = random_layout(
                rng, want=outer_want, extra_bits=rng.choice([0, 0, 1, 2, 3])
            )
            a_log2 = dict(zip(a_space.outs, a_space.log2))
            b_names = list(a_space.outs)
            if rng.random() < 0.35:
                rng.shuffle(b_names)
            b_log2 = {
                n: (rng.randint(0, a_log2[n]) if rng.random() < 0.3 else a_log2[n])
                for n in a_space.outs
            }
            b_space = rename_space(a_space, b_names, b_log2)
            box = a_space.box([b_log2[n] for n in a_space.outs])
            a_flat = [c for _, cs in a_ins for c in cs]
            allowed = intersect_with_box(a_flat, box)  # Im(outer) within this's sizes
            a_dims = [n for n, _ in a_ins]
            k = rng.choice([0, 1, 1, 2, 2, 3, 3, 4])
            pool = list(dict.fromkeys(a_dims + IN_POOL + ["x", "y"]))
            if rng.random() < 0.7 and a_dims:
                shared = rng.sample(a_dims, rng.randint(1, min(len(a_dims), max(k, 1))))
            else:
                shared = []
            others = [n for n in pool if n not in shared]
            b_dims = shared + rng.sample(others, max(0, k - len(shared)))
            rng.shuffle(b_dims)
            b_ins = []
            a_map = dict(a_ins)
            for name in b_dims:
                source = a_map.get(name)
                if source is not None and rng.random() < 0.6 and all(c & ~box == 0 for c in source):
                    cols = [convert_col(c, a_space, b_space) for c in source]  # identical
                else:
                    cols = []
                    for _ in range(rng.choice([0, 1, 2, 2, 3, 4, 5])):
                        r = rng.random()
                        if r < 0.15 or not allowed:
                            col = 0
                        elif r < 0.25 and cols:
                            col = rng.choice(cols)  # duplicate basis
                        elif r < 0.6:
                            col = convert_col(rng.choice(allowed), a_space, b_space)
                        else:
                            col = 0
                            for v in allowed:
                                if rng.random() < 0.4:
                                    col ^= v
                            col = convert_col(col, a_space, b_space)
                        cols.append(col)
                b_ins.append((name, cols))
            this = make_spec(b_ins, b_space, rng=rng)
            self.add("invert_and_compose", this, outer)

    def structured_invert_and_compose(self, count: int) -> None:
        rng = self.rng
        for i in range(count):
            kind = i % 4
            if kind == 0:  # register -> shared (store)
                space, reg = blocked_128(rng)
                _, shm = shared_128(rng)
                self.add(
                    "invert_and_compose",
                    make_spec(reg, space, rng=rng),
                    make_spec(shm, space, rng=rng),
                )
            elif kind == 1:  # shared -> register (load), non-injective outer
                space, reg = blocked_128(rng)
                _, shm = shared_128(rng)
                self.add(
                    "invert_and_compose",
                    make_spec(shm, space, rng=rng),
                    make_spec(reg, space, rng=rng),
                )
            elif kind == 2:  # register -> register, often sharing identical warp bases
                space, reg1 = blocked_128(rng)
                _, reg2 = blocked_128(rng)
                warp1, warp2 = dict(reg1)["warp"], dict(reg2)["warp"]
                if rng.random() < 0.5 and len(warp1) == len(warp2):
                    shared = [(n, warp1 if n == "warp" else cs) for n, cs in reg2]
                    if rank([c for _, cs in shared for c in cs]) == space.total:
                        reg2 = shared  # the outer must stay surjective to cover reg1
                self.add(
                    "invert_and_compose",
                    make_spec(reg1, space, rng=rng),
                    make_spec(reg2, space, rng=rng),
                )
            else:  # distributed permutation layouts with broadcast, several dims
                space = random_space(rng)
                names = ["register", "lane", "warp", "block"]
                a = perm_layout(rng, space, names, rng.randint(0, 3))
                b = perm_layout(rng, space, names, rng.randint(0, 3))
                if rng.random() < 0.5:  # same warp/block bases in both (a is surjective)
                    kept = dict(a)
                    b = [(n, kept[n] if n in ("warp", "block") else cs) for n, cs in b]
                self.add(
                    "invert_and_compose",
                    make_spec(b, space, rng=rng),
                    make_spec(a, space, rng=rng),
                )

    # -- pseudoinvert / invert
    def pseudoinvert(self, count: int) -> None:
        rng = self.rng
        for i in range(count):
            if i % 10 == 9:
                maker = blocked_128 if i % 20 == 9 else shared_128
                space, ins = maker(rng)
                spec = make_spec(ins, space, rng=rng)
            elif i % 10 == 6:
                space = random_space(rng)
                spec = make_spec(named_like_outs(rng, space, rng.randint(0, 3)), space, rng=rng)
            elif i % 10 >= 7:
                space = random_space(rng)
                ins = perm_layout(
                    rng, space, pick_in_names(rng, rng.randint(1, 4)), rng.randint(0, 3)
                )
                spec = make_spec(ins, space, rng=rng)
            else:
                spec, _, _ = random_layout(rng, want="surj", extra_bits=rng.choice([0, 1, 2, 4]))
            self.add("pseudoinvert", spec)

    def invert(self, count: int) -> None:
        rng = self.rng
        for i in range(count):
            space = random_space(rng, 5 if i % 3 == 0 else 4)
            if i % 4 == 0:
                ins = swizzle_layout(rng, space)
            elif i % 4 == 1:
                ins = perm_layout(rng, space, pick_in_names(rng, rng.randint(1, 3)), 0)
            elif i % 20 == 2:
                space, ins = shared_128(rng)
            elif i % 4 == 2:
                ins = named_like_outs(rng, space, 0)
            else:
                k = rng.randint(1, 3)
                names = pick_in_names(rng, k)
                counts = [0] * k
                for _ in range(space.total):
                    counts[rng.randrange(k)] += 1
                ins = list(zip(names, random_cols(rng, space, counts, "surj")))
            self.add("invert", make_spec(ins, space, rng=rng))

    # -- operator*
    def mul(self, count: int) -> None:
        rng = self.rng
        for _ in range(count):
            in_order = pick_in_names(rng, rng.randint(1, 4))
            out_order = pick_out_names(rng, rng.randint(1, 3))
            specs = []
            for _side in range(2):
                ins = [n for n in in_order if rng.random() < 0.6]
                outs = [n for n in out_order if rng.random() < 0.7] or [rng.choice(out_order)]
                space = Space(outs, [rng.randint(0, 3) for _ in outs])
                spec, _, _ = random_layout(rng, space=space, in_names=ins, want="any")
                specs.append(spec)
            self.add("mul", specs[0], specs[1])

    # -- operator==
    def eq(self, count: int) -> None:
        rng = self.rng
        for i in range(count):
            spec, space, ins = random_layout(rng)
            other = json.loads(json.dumps(spec))
            kind = i % 4
            if kind == 1 and space.total and any(cs for _, cs in ins):
                j = next(j for j, (_, cs) in enumerate(ins) if cs)
                cols = list(ins[j][1])
                cols[rng.randrange(len(cols))] ^= 1 << rng.randrange(space.total)
                other = make_spec(ins[:j] + [(ins[j][0], cols)] + ins[j + 1 :], space, rng=rng)
            elif kind == 2:
                bigger = Space(space.outs, [n + (k == 0) for k, n in enumerate(space.log2)])
                other = make_spec(
                    [(n, [convert_col(c, space, bigger) for c in cs]) for n, cs in ins], bigger
                )
            elif kind == 3 and len(ins) > 1:
                other = make_spec(list(reversed(ins)), space, rng=rng)
            self.add("eq", spec, other)


def check_preconditions(case: Spec) -> None:
    """Independent check that a case is valid for Triton (so it cannot abort)."""
    op = case["op"]
    a = case["a"]
    if op == "ctor":
        return
    a_space, a_ins = spec_cols(a)
    a_cols = [c for _, cs in a_ins for c in cs]
    names = [n for n, _ in a_ins]
    assert len(set(names)) == len(names) and len(set(a_space.outs)) == len(a_space.outs)
    assert a_space.total <= 30 and len(a_cols) <= 30, case
    if a["surj"]:
        assert rank(a_cols) == a_space.total, ("from_bases would abort", case)
    if op in ("layout", "eq"):
        return
    if op == "pseudoinvert":
        assert rank(a_cols) == a_space.total, case
        return
    if op == "invert":
        assert rank(a_cols) == a_space.total == len(a_cols), case
        return
    b = case["b"]
    b_space, b_ins = spec_cols(b)
    b_cols = [c for _, cs in b_ins for c in cs]
    if b["surj"]:
        assert rank(b_cols) == b_space.total, case
    if op == "compose":
        assert sorted(a_space.outs) == sorted(n for n, _ in b_ins), case
        b_in = dict(b_ins)
        for name, n in zip(a_space.outs, a_space.log2):
            assert n <= len(b_in[name]), case
    elif op == "invert_and_compose":
        assert sorted(a_space.outs) == sorted(b_space.outs), case
        b_log2 = dict(zip(b_space.outs, b_space.log2))
        for name, n in zip(a_space.outs, a_space.log2):
            assert n <= b_log2[name], case
        assert len(a_cols) + len(b_cols) <= 64, case
        embedded = [convert_col(c, a_space, b_space) for c in a_cols]
        assert rank(b_cols + embedded) == rank(b_cols), ("image not covered", case)
    elif op == "mul":
        for mine, theirs in ((names, [n for n, _ in b_ins]), (a_space.outs, b_space.outs)):
            common = set(mine) & set(theirs)
            assert [n for n in mine if n in common] == [n for n in theirs if n in common]
    else:
        raise AssertionError(f"unknown op {op}")


def build_cases(seed: int) -> list[Spec]:
    builder = CaseBuilder(seed)
    builder.layouts(1000)
    builder.ctors(60)
    builder.compose(600)
    builder.invert_and_compose(1700)
    builder.structured_invert_and_compose(200)
    builder.pseudoinvert(550)
    builder.invert(450)
    builder.mul(600)
    builder.eq(220)
    # Every distinct from_bases operand is also checked on its own ("layout" op).
    seen = {json.dumps(c["a"], sort_keys=True) for c in builder.cases if c["op"] == "layout"}
    for case in list(builder.cases):
        for key in ("a", "b"):
            spec = case.get(key)
            if spec is None or "ctor" in spec:
                continue
            text = json.dumps(spec, sort_keys=True)
            if text not in seen:
                seen.add(text)
                builder.add("layout", spec)
    return builder.cases


# ---------------------------------------------------------------------- llverify side


def ll_build(spec: Spec) -> LinearLayout:
    if "ctor" in spec:
        return getattr(LinearLayout, spec["ctor"])(*spec["args"])
    bases = [(name, [list(b) for b in bs]) for name, bs in spec["bases"]]
    if spec["sizes"] is None:
        return LinearLayout.from_bases(bases, list(spec["outs"]))
    return LinearLayout.from_bases(bases, list(spec["outs"]), list(spec["sizes"]), spec["surj"])


def ll_result(case: Spec) -> Any:
    op = case["op"]
    a = ll_build(case["a"])
    if op in ("layout", "ctor"):
        return a
    if op == "pseudoinvert":
        return a.pseudoinvert()
    if op == "invert":
        return a.invert()
    b = ll_build(case["b"])
    if op == "compose":
        return a.compose(b)
    if op == "invert_and_compose":
        return a.invert_and_compose(b)
    if op == "mul":
        return a * b
    if op == "eq":
        return a == b
    raise AssertionError(op)


def ll_describe(layout: LinearLayout, points: list) -> dict[str, Any]:
    applied = []
    for point, _ in points:
        try:
            applied.append([point, layout.apply(point)])
        except Exception as error:  # reported as a mismatch
            applied.append([point, f"raised {type(error).__name__}: {error}"])
    return {
        "bases": [[name, [list(b) for b in bs]] for name, bs in layout.bases],
        "out_dims": [[name, size] for name, size in layout.out_dims],
        "in_names": list(layout.get_in_dim_names()),
        "out_names": list(layout.get_out_dim_names()),
        "surjective": layout.is_surjective(),
        "injective": layout.is_injective(),
        "invertible": layout.is_invertible(),
        "str": str(layout),
        "matrix": [list(row) for row in layout.get_matrix_view()],
        "apply": applied,
    }


def compare(case: Spec, expected: Any) -> list[str]:
    """Differences between Triton's result and llverify's for one case."""
    try:
        got = ll_result(case)
    except Exception as error:  # any exception is a mismatch
        return [f"llverify raised {type(error).__name__}: {error}"]
    if case["op"] == "eq":
        return [] if got == expected else [f"==: triton {expected}, llverify {got}"]
    got_desc = ll_describe(got, expected["apply"])
    return [
        f"{key}: triton {expected[key]!r} != llverify {got_desc[key]!r}"
        for key in expected
        if got_desc[key] != expected[key]
    ]


@dataclass
class Differential:
    cases: list[Spec]
    oracle: OracleRun
    counts: dict[str, int]
    mismatches: dict[str, list[tuple[Spec, list[str]]]]
    crashes: dict[str, list[tuple[Spec, str]]]
    seconds: float


@pytest.fixture(scope="module")
def differential() -> Differential:
    reason = _probe_triton()
    if reason is not None:
        triton_missing(reason)
    start = time.perf_counter()
    cases = build_cases(SEED)
    oracle = run_oracle(cases)
    counts: dict[str, int] = {}
    mismatches: dict[str, list] = {}
    crashes: dict[str, list] = {}
    not_run = set(oracle.not_run)
    for case in cases:
        op = case["op"]
        cid = case["id"]
        if cid in oracle.crashes:
            crashes.setdefault(op, []).append((case, oracle.crashes[cid]))
            continue
        if cid in not_run:
            continue
        if cid in oracle.errors:
            diffs = [f"Triton raised {oracle.errors[cid]}"]
        else:
            diffs = compare(case, oracle.results[cid])
        counts[op] = counts.get(op, 0) + 1
        if diffs:
            mismatches.setdefault(op, []).append((case, diffs))
    return Differential(cases, oracle, counts, mismatches, crashes, time.perf_counter() - start)


def _report(items: list, limit: int = 5) -> str:
    """The smallest few failing cases (easiest to read), with their differences."""
    parts = []
    for case, detail in sorted(items, key=lambda item: len(json.dumps(item[0])))[:limit]:
        parts.append(
            f"case {case['id']}: {json.dumps(case)}\n  "
            + ("\n  ".join(detail) if isinstance(detail, list) else detail)
        )
    more = f"\n... and {len(items) - limit} more" if len(items) > limit else ""
    return "\n".join(parts) + more


@pytest.mark.parametrize("op", list(MIN_CASES))
def test_matches_triton(differential: Differential, op: str) -> None:
    crashed = differential.crashes.get(op, [])
    assert not crashed, f"Triton's worker aborted on {len(crashed)} {op} case(s):\n" + _report(
        crashed
    )
    assert not differential.oracle.not_run, (
        f"{len(differential.oracle.not_run)} cases not run after {MAX_CRASHES} worker aborts"
    )
    count = differential.counts.get(op, 0)
    assert count >= MIN_CASES[op], f"only {count} {op} cases checked (need {MIN_CASES[op]})"
    bad = differential.mismatches.get(op, [])
    assert not bad, f"{len(bad)} of {count} {op} cases differ from Triton:\n" + _report(bad)


def test_case_counts(differential: Differential, capsys: pytest.CaptureFixture[str]) -> None:
    """At least 2,000 distinct layouts overall; print the per-operation counts."""
    layouts = differential.counts.get("layout", 0) + differential.counts.get("ctor", 0)
    assert layouts >= 2000
    with capsys.disabled():
        summary = ", ".join(f"{op}={n}" for op, n in sorted(differential.counts.items()))
        print(
            f"\n[differential] seed={SEED} cases={len(differential.cases)} ({summary}); "
            f"triton worker {differential.oracle.seconds:.1f}s, total {differential.seconds:.1f}s"
        )


def test_worker_crash_names_the_case() -> None:
    """A case that aborts Triton is reported by id, and the cases after it still run."""
    reason = _probe_triton()
    if reason is not None:
        triton_missing(reason)
    ok = {"bases": [["i", [[1]]]], "outs": ["o"], "sizes": None, "surj": True}
    bad = {"bases": [["i", [[0]]]], "outs": ["o"], "sizes": [2], "surj": False}
    cases = [
        {"id": "fine-0", "op": "layout", "a": ok},
        {"id": "abort-1", "op": "invert", "a": bad},  # not invertible: Triton asserts
        {"id": "fine-2", "op": "pseudoinvert", "a": ok},
    ]
    run = run_oracle(cases)
    assert list(run.crashes) == ["abort-1"], run.crashes
    assert "invert" in run.crashes["abort-1"]
    assert set(run.results) == {"fine-0", "fine-2"}


# Minimal cases found by this differential test (kept so a fix can be checked at a
# glance).  Each is valid for Triton 3.9, which the test checks before running it.
# Triton 3.9 only treats an in dim d shared by both layouts as an
# identity dim of invert_and_compose when, in each layout, d's bases share no output
# bit (per out dim, OR-ed masks) with the other in dims' bases.
_L = {"sizes": None, "surj": True}
MINIMAL_CASES = [
    {  # this = warp->dim0; outer = (block, warp)->dim0: Triton maps warp to block=1
        "id": "min-iac-1",
        "op": "invert_and_compose",
        "a": {"bases": [["warp", [[1]]]], "outs": ["dim0"], **_L},
        "b": {"bases": [["block", [[1]]], ["warp", [[1]]]], "outs": ["dim0"], **_L},
    },
    {  # llverify raises although outer covers this's image
        "id": "min-iac-2",
        "op": "invert_and_compose",
        "a": {"bases": [["block", [[1]]], ["warp", [[1]]]], "outs": ["dim0"], **_L},
        "b": {"bases": [["warp", [[1]]]], "outs": ["dim0"], **_L},
    },
    {  # pseudoinvert goes through identity.invert_and_compose(self)
        "id": "min-pseudoinvert",
        "op": "pseudoinvert",
        "a": {"bases": [["lane", [[1]]], ["o", [[1]]]], "outs": ["o"], **_L},
    },
    {  # an invertible layout that llverify refuses to invert
        "id": "min-invert",
        "op": "invert",
        "a": {"bases": [["lane", [[1, 1]]], ["y", [[0, 1]]]], "outs": ["x", "y"], **_L},
    },
]


def test_minimal_cases() -> None:
    """The minimized mismatches, checked on their own."""
    reason = _probe_triton()
    if reason is not None:
        triton_missing(reason)
    for case in MINIMAL_CASES:
        check_preconditions(case)
    run = run_oracle(MINIMAL_CASES)
    assert not run.crashes, run.crashes
    failures = []
    for case in MINIMAL_CASES:
        diffs = compare(case, run.results[case["id"]])
        if diffs:
            failures.append((case, diffs))
    assert not failures, _report(failures, limit=len(failures))
