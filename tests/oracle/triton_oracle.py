"""Oracle worker: evaluates LinearLayout cases with Triton's C++ LinearLayout.

Run as a separate process (never import it into the test process): any violated
precondition makes Triton abort the whole process, and nanobind prints "leaked ..."
lines on stderr at exit.

Protocol
--------
stdin: a JSON list of cases ``{"id": str, "op": str, ...}``.
stdout: one line per finished case, ``@@ <json>`` with ``{"id": ..., "result": ...}``,
flushed at once, so that when Triton aborts the caller knows the last finished case
and hence which case killed the process.  A final line ``@@DONE <count>`` marks a
clean end.

A layout operand is ``{"bases": [[in_dim, [[coord, ...], ...]], ...], "outs": [...],
"sizes": [...] | null, "surj": bool}`` (fed to ``from_bases``) or
``{"ctor": "identity_1d" | "strided_1d" | "zeros_1d", "args": [...]}``.

Every resulting layout is described by ``describe``: bases, out dims, in/out dim
names, predicates, to_string text, matrix view and ``apply`` on seeded random
in-range points (chosen from the Triton result's own in dims).

A Python exception (not an abort) gives ``{"id": ..., "error": "..."}`` instead.

Ops: ``layout``/``ctor`` (describe operand ``a``), ``compose``, ``invert_and_compose``,
``mul`` (``a * b``), ``pseudoinvert``, ``invert``, ``eq`` (``a == b``, a bool).
"""

from __future__ import annotations

import json
import random
import sys

NUM_POINTS = 6
TLL = None  # Triton's LinearLayout, imported in main() only (pytest may import this file)


def build(spec):
    ctor = spec.get("ctor")
    if ctor is not None:
        return getattr(TLL, ctor)(*spec["args"])
    sizes = spec.get("sizes")
    bases = [(name, [list(b) for b in bs]) for name, bs in spec["bases"]]
    if sizes is None:
        return TLL.from_bases(bases, list(spec["outs"]))
    return TLL.from_bases(bases, list(spec["outs"]), list(sizes), bool(spec["surj"]))


def describe(layout, seed):
    bases = [[name, [list(b) for b in bs]] for name, bs in layout.bases]
    rng = random.Random(seed)
    points = []
    for k in range(NUM_POINTS):
        point = {}
        for name, bs in bases:
            size = 1 << len(bs)
            if k == 0:
                point[name] = 0
            elif k == 1:
                point[name] = size - 1
            else:
                point[name] = rng.randrange(size)
        points.append([point, dict(layout.apply(point))])
    return {
        "bases": bases,
        "out_dims": [[name, size] for name, size in layout.out_dims],
        "in_names": list(layout.get_in_dim_names()),
        "out_names": list(layout.get_out_dim_names()),
        "surjective": bool(layout.is_surjective()),
        "injective": bool(layout.is_injective()),
        "invertible": bool(layout.is_invertible()),
        "str": str(layout),
        "matrix": [list(row) for row in layout.get_matrix_view()],
        "apply": points,
    }


def run_case(case):
    op = case["op"]
    seed = case.get("seed", 0)
    a = build(case["a"])
    if op in ("layout", "ctor"):
        return describe(a, seed)
    if op == "pseudoinvert":
        return describe(a.pseudoinvert(), seed)
    if op == "invert":
        return describe(a.invert(), seed)
    b = build(case["b"])
    if op == "compose":
        return describe(a.compose(b), seed)
    if op == "invert_and_compose":
        return describe(a.invert_and_compose(b), seed)
    if op == "mul":
        return describe(a * b, seed)
    if op == "eq":
        return bool(a == b)
    raise ValueError(f"unknown op {op!r}")


def main():
    global TLL
    from triton._C.libtriton.linear_layout import LinearLayout

    TLL = LinearLayout
    if sys.argv[1:] == ["--version"]:
        import triton

        print(triton.__version__)
        return
    cases = json.load(sys.stdin)
    out = sys.stdout
    for case in cases:
        try:
            record = {"id": case["id"], "result": run_case(case)}
        except Exception as error:  # a Python-level error (an abort kills us instead)
            record = {"id": case["id"], "error": f"{type(error).__name__}: {error}"}
        out.write("@@ " + json.dumps(record) + "\n")
        out.flush()
    out.write(f"@@DONE {len(cases)}\n")
    out.flush()


if __name__ == "__main__":
    main()
