"""Audit rule ``shape-ops``: hand-written positive and negative controls for tt.trans,
tt.reshape, tt.join, tt.split, tt.expand_dims and tt.broadcast (every counterexample replayed
here by evaluating the layouts), the real fixtures (every shape op proved, counts asserted),
and agreement with Triton 3.9's own verifier on every hand-written case (oracle: the
installed triton 3.9.0 parsing the module, in a subprocess)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.audit.analyze import audit
from llverify.audit.shape_ops import NAME
from llverify.encodings import to_linear_layout
from llverify.layout import LinearLayout
from llverify.layout_utils import reshape_layout, transpose_linear_layout
from llverify.proof.verdict import Status

DATA = Path(__file__).parent / "data" / "ttgir"
KERNELS = sorted(DATA.glob("*.ttgir"))
ATTRS = (
    '"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, '
    'ttg.target = "cuda:90"'
)
B = (
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
B3 = (
    "#ttg.blocked<{sizePerThread = [1, 4, 2], threadsPerWarp = [4, 8, 1], "
    "warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>"
)
SLICE0 = f"#ttg.slice<{{dim = 0, parent = {B}}}>"


def _linear(layout: LinearLayout) -> str:
    """A layout as ``#ttg.linear`` text (a hand-edited encoding)."""
    parts = {name: json.dumps(vectors).replace(" ", "") for name, vectors in layout.bases}
    parts.setdefault("block", "[]")
    return "#ttg.linear<{" + ", ".join(f"{k} = {v}" for k, v in parts.items()) + "}>"


def _edit(layout: LinearLayout, dim: str, i: int, j: int) -> LinearLayout:
    """Swap bases ``i`` and ``j`` of in-dim ``dim``."""
    bases = []
    for name, vectors in layout.bases:
        vectors = [list(v) for v in vectors]
        if name == dim:
            vectors[i], vectors[j] = vectors[j], vectors[i]
        bases.append((name, vectors))
    return LinearLayout(bases, layout.get_out_dim_names(), layout.get_out_dim_sizes())


def _with(layout: LinearLayout, edits: dict[tuple[str, int], list[int]]) -> LinearLayout:
    """Replace the bases named by ``edits`` ((in-dim, index) -> new basis)."""
    bases = [(n, [edits.get((n, k), list(v)) for k, v in enumerate(vs)]) for n, vs in layout.bases]
    return LinearLayout(bases, layout.get_out_dim_names(), layout.get_out_dim_sizes())


def _tensor(shape: list[int], encoding: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf16, {encoding}>"


LL_B = to_linear_layout(B, [64, 64])
LL_T = transpose_linear_layout(to_linear_layout(B, [64, 32]), [1, 0])
LL_TCOPY = LinearLayout(
    [(n, [*vs, [0, 0]] if n == "register" else vs) for n, vs in LL_T.bases], ["dim0", "dim1"]
)
LL_J = to_linear_layout(B3, [64, 64, 2])
LL_J1 = LinearLayout(
    [
        ("register", [[0, 1, 0], [0, 0, 1], [0, 2, 0], [0, 32, 0], [16, 0, 0], [32, 0, 0]]),
        *[(n, [[*v, 0] for v in vs]) for n, vs in LL_B.bases if n != "register"],
    ],
    ["dim0", "dim1", "dim2"],
)
LL_JLANE = _with(LL_J, {("register", 0): [0, 4, 0], ("lane", 0): [0, 0, 1]})
LL_S1 = LinearLayout(
    [
        ("register", [[1], [2], [32]]),
        ("lane", [[4], [8], [16], [0], [0]]),
        ("warp", [[0], [0]]),
        ("block", []),
    ],
    ["dim0"],
)
LL_E = to_linear_layout(B, [1, 64])
LL_R1 = LinearLayout(
    [("register", []), ("lane", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0]]),
     ("warp", [[1, 0], [0, 0]]), ("block", [])],
    ["dim0", "dim1"],
)  # fmt: skip
BLOCKED_1D = (
    "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"
)


def _trans_send(c: tuple[int, ...]) -> tuple[int, ...]:
    return (c[1], c[0])


#: name -> (operand type, op line with {x} for the operand type, expected status, data kind,
#:          the op's meaning on a result element (for the replay))
CASES: dict[str, tuple[str, str, Status, str, Callable[..., tuple[int, ...]] | None]] = {
    "trans": (
        _tensor([64, 32], B),
        "%1 = tt.trans %x {order = array<i32: 1, 0>} : {x} -> "
        + _tensor([32, 64], "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], "
                  "warpsPerCTA = [1, 4], order = [0, 1]}>"),
        Status.PROVED, "no data movement", None,
    ),
    "trans-linear": (
        _tensor([64, 32], B),
        "%1 = tt.trans %x {order = array<i32: 1, 0>} : {x} -> " + _tensor([32, 64], _linear(LL_T)),
        Status.PROVED, "no data movement", None,
    ),
    "trans-wrong-warps": (
        _tensor([64, 32], B),
        "%1 = tt.trans %x {order = array<i32: 1, 0>} : {x} -> "
        + _tensor([32, 64], "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], "
                  "warpsPerCTA = [4, 1], order = [0, 1]}>"),
        Status.ERROR, "between threads", _trans_send,
    ),
    "trans-wrong-order": (
        _tensor([64, 32], B),
        "%1 = tt.trans %x {order = array<i32: 1, 0>} : {x} -> " + _tensor([32, 64], B),
        Status.ERROR, "between threads", _trans_send,
    ),
    "trans-registers-swapped": (
        _tensor([64, 32], B),
        "%1 = tt.trans %x {order = array<i32: 1, 0>} : {x} -> "
        + _tensor([32, 64], _linear(_edit(LL_T, "register", 0, 1))),
        Status.ERROR, "within a thread", _trans_send,
    ),
    "trans-register-copy": (  # an extra register holding a copy: no longer the same struct
        _tensor([64, 32], B),
        "%1 = tt.trans %x {order = array<i32: 1, 0>} : {x} -> "
        + _tensor([32, 64], _linear(LL_TCOPY)),
        Status.ERROR, "register count", None,
    ),
    "reshape-3d": (
        _tensor([64, 64], B),
        "%1 = tt.reshape %x : {x} -> " + _tensor([64, 16, 4], "#ttg.blocked<{sizePerThread = "
        "[1, 1, 4], threadsPerWarp = [4, 8, 1], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>"),
        Status.PROVED, "no data movement", None,
    ),
    "reshape-flat": (
        _tensor([64, 64], B),
        "%1 = tt.reshape %x : {x} -> " + _tensor([4096], _linear(reshape_layout(LL_B, [4096]))),
        Status.PROVED, "no data movement", None,
    ),
    "reshape-blocked": (
        _tensor([64, 64], B),
        "%1 = tt.reshape %x : {x} -> " + _tensor([4096], BLOCKED_1D),
        Status.ERROR, "between threads", lambda c: (c[0] // 64, c[0] % 64),
    ),
    "reshape-reorder": (
        _tensor([64, 64], B),
        "%1 = tt.reshape %x allow_reorder : {x} -> " + _tensor([4096], BLOCKED_1D),
        Status.PROVED, "reorder", None,
    ),
    "reshape-reorder-copies": (
        _tensor([32], BLOCKED_1D),
        "%1 = tt.reshape %x allow_reorder : {x} -> " + _tensor([2, 16], _linear(LL_R1)),
        Status.ERROR, "reorder", None,
    ),
    "join": (
        _tensor([64, 64], B),
        "%1 = tt.join %x, %x : {x} -> " + _tensor([64, 64, 2], B3),
        Status.PROVED, "no data movement", None,
    ),
    "join-register-1": (
        _tensor([64, 64], B),
        "%1 = tt.join %x, %x : {x} -> " + _tensor([64, 64, 2], _linear(LL_J1)),
        Status.PROVED, "no data movement", None,
    ),
    "join-lane": (
        _tensor([64, 64], B),
        "%1 = tt.join %x, %x : {x} -> " + _tensor([64, 64, 2], _linear(LL_JLANE)),
        Status.ERROR, "no register bit", None,
    ),
    "join-wrong-lanes": (
        _tensor([64, 64], B),
        "%1 = tt.join %x, %x : {x} -> " + _tensor([64, 64, 2], _linear(_edit(LL_J, "lane", 0, 3))),
        Status.ERROR, "between threads", lambda c: c[:2],
    ),
    "split": (
        _tensor([64, 64, 2], B3),
        "%1, %2 = tt.split %x : {x} -> " + _tensor([64, 64], B),
        Status.PROVED, "no data movement", None,
    ),
    "split-register-1": (
        _tensor([64, 64, 2], _linear(LL_J1)),
        "%1, %2 = tt.split %x : {x} -> " + _tensor([64, 64], B),
        Status.PROVED, "no data movement", None,
    ),
    "split-lane": (
        _tensor([64, 64, 2], _linear(LL_JLANE)),
        "%1, %2 = tt.split %x : {x} -> " + _tensor([64, 64], B),
        Status.ERROR, "no register bit", None,
    ),
    "split-wrong-warps": (
        _tensor([64, 64, 2], B3),
        "%1, %2 = tt.split %x : {x} -> " + _tensor([64, 64], _linear(_edit(LL_B, "warp", 0, 1))),
        Status.ERROR, "between threads", None,
    ),
    "expand-dims": (
        _tensor([64], SLICE0),
        "%1 = tt.expand_dims %x {axis = 0 : i32} : {x} -> " + _tensor([1, 64], B),
        Status.PROVED, "no data movement", None,
    ),
    "expand-dims-not-parent": (
        _tensor([64], SLICE0),
        "%1 = tt.expand_dims %x {axis = 0 : i32} : {x} -> "
        + _tensor([1, 64], _linear(_edit(LL_E, "register", 0, 1))),
        Status.ERROR, "not the parent", None,
    ),
    "expand-dims-lanes": (
        _tensor([64], SLICE0),
        "%1 = tt.expand_dims %x {axis = 0 : i32} : {x} -> "
        + _tensor([1, 64], _linear(_edit(LL_E, "lane", 0, 1))),
        Status.ERROR, "between threads", lambda c: c[1:],
    ),
    "expand-dims-not-slice": (
        _tensor([64], _linear(LL_S1)),
        "%1 = tt.expand_dims %x {axis = 0 : i32} : {x} -> " + _tensor([1, 64], B),
        Status.ERROR, "not a slice", None,
    ),
    "broadcast": (
        _tensor([1, 64], B),
        "%1 = tt.broadcast %x : {x} -> " + _tensor([64, 64], B),
        Status.PROVED, "no data movement", None,
    ),
    "broadcast-columns": (
        _tensor([64, 1], B),
        "%1 = tt.broadcast %x : {x} -> " + _tensor([64, 64], B),
        Status.PROVED, "no data movement", None,
    ),
    "broadcast-registers-swapped": (
        _tensor([1, 64], B),
        "%1 = tt.broadcast %x : {x} -> "
        + _tensor([64, 64], _linear(_edit(LL_B, "register", 3, 4))),
        Status.PROVED, "no data movement", None,
    ),
    "broadcast-rows-regrouped": (  # the broadcast dim moves between lanes and warps: no copy
        _tensor([1, 64], B),
        "%1 = tt.broadcast %x : {x} -> "
        + _tensor([64, 64], _linear(_with(LL_B, {("lane", 3): [4, 0], ("warp", 0): [1, 0]}))),
        Status.PROVED, "no data movement", None,
    ),
    "broadcast-lanes": (
        _tensor([1, 64], B),
        "%1 = tt.broadcast %x : {x} -> " + _tensor([64, 64], _linear(_edit(LL_B, "lane", 0, 1))),
        Status.ERROR, "between threads", lambda c: (0, c[1]),
    ),
}  # fmt: skip


def _module(operand: str, line: str) -> str:
    return f"module attributes {{{ATTRS}}} {{\n  {line.replace('{x}', operand)}\n}}\n"


def _finding(name: str):  # type: ignore[no-untyped-def]
    operand, line, *_ = CASES[name]
    report = audit(_module(operand, line))
    assert report.refused is None, report.findings
    found = [f for f in report.findings if f.rule == NAME]
    assert len(found) == 1, found
    return found[0], operand, line


def _types(operand: str, line: str) -> tuple[str, str]:
    return operand, line.rsplit("-> ", 1)[1]


def _at(layout: LinearLayout, hardware: dict[str, int]) -> tuple[int, ...]:
    out = layout.apply({d: hardware.get(d, 0) for d in layout.get_in_dim_names()})
    return tuple(out[d] for d in layout.get_out_dim_names())


def _replay(name: str, finding, operand: str, line: str) -> None:  # type: ignore[no-untyped-def]
    """Evaluate both layouts at the reported hardware index: the counterexample holds."""
    _, _, _, kind, send = CASES[name]
    data = finding.data
    src = to_linear_layout(_types(operand, line)[0])
    dst = to_linear_layout(_types(operand, line)[1])
    h = data["hardware"]
    if kind in ("between threads", "within a thread"):
        element = _at(dst, h)
        assert list(element) == data["result_element"]
        if send is not None:
            assert list(send(element)) == data["operand_element"]
        wanted = tuple(data["operand_element"])
    if kind == "between threads":
        thread = {d: h[d] for d in ("lane", "warp", "block")}
        held = {_at(src, {**thread, "register": r}) for r in range(src.get_in_dim_size("register"))}
        assert wanted not in held
    elif kind == "within a thread":
        assert _at(src, data["read"]) == tuple(data["read_element"]) != wanted
    elif kind == "reorder":  # h and 0 are copies in one layout, not in the other
        zero: dict[str, int] = {}
        copies = (_at(src, h) == _at(src, zero), _at(dst, h) == _at(dst, zero))
        assert copies[0] != copies[1]
    elif kind == "not the parent":
        parent = to_linear_layout(B, [1, 64])
        assert _at(parent, h) != _at(dst, h)


@pytest.mark.parametrize("name", list(CASES))
def test_controls(name: str) -> None:
    finding, operand, line = _finding(name)
    _, _, status, kind, _ = CASES[name]
    assert finding.status is status, finding.summary
    assert finding.data["kind"] == kind, finding.data
    if status is Status.ERROR:
        if kind != "not the parent" and kind != "not a slice":
            assert finding.summary.startswith("needs data movement (a hidden convert_layout)")
        if "hardware" in finding.data:
            _replay(name, finding, operand, line)


def test_split_checks_both_results_and_a_violation_is_reported_or_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from llverify.cli.main import main

    finding, _, _ = _finding("split")
    assert "split dim on register bit 0" in finding.summary
    path = tmp_path / "bad.ttgir"
    operand, line = CASES["broadcast-lanes"][:2]
    statement = line.replace("{x}", operand)
    path.write_text(_module(operand, f"tt.func @k(%x: {operand}) {{\n    {statement}\n  }}"))
    code = main(["audit", str(path)])
    captured = capsys.readouterr()
    if importlib.util.find_spec("triton") is None:  # the reader's checks pass: the rule's error
        assert code == 1 and f"[{NAME}]" in captured.out
    else:  # Triton's verifier refuses this broadcast itself: no verdict, the one-line refusal
        assert code == 2 and "requires matching source and result layouts" in captured.err


def test_fixtures_every_shape_op_proved() -> None:
    counts: Counter[str] = Counter()
    for kernel in KERNELS:
        report = audit(kernel.read_text())
        found = [f for f in report.findings if f.rule == NAME]
        assert all(f.status is Status.PROVED for f in found), [f.summary for f in found]
        assert not [s for s in report.skips if s.rule == NAME]
        counts.update(f.op for f in found)
        text = [ln for ln in kernel.read_text().splitlines() if not ln.startswith("#loc")]
        for op in ("tt.trans", "tt.expand_dims", "tt.broadcast"):
            assert sum(f" = {op} " in ln for ln in text) == sum(f.op == op for f in found)
    assert counts == {"tt.broadcast": 428, "tt.expand_dims": 291, "tt.trans": 66}


_ORACLE = r"""
import json, os, sys, tempfile
from triton._C.libtriton import ir
ctx = ir.context(); ir.load_dialects(ctx)
out = []
for case in json.load(sys.stdin):
    path = os.path.join(tempfile.mkdtemp(), "m.mlir")
    open(path, "w").write(case)
    saved = os.dup(2); sink = open(path + ".err", "w"); os.dup2(sink.fileno(), 2)
    try:
        ir.parse_mlir_module(path, ctx); ok = True
    except Exception:
        ok = False
    finally:
        os.dup2(saved, 2); sink.close()
    out.append([ok, open(path + ".err").read()[:300]])
print("@@" + json.dumps(out))
"""


@pytest.mark.triton
def test_triton_verifier_accepts_exactly_the_proved_cases() -> None:
    """Oracle: Triton 3.9's verifier (parse_mlir_module) accepts a hand-written shape op
    exactly when the rule proves it needs no data movement."""
    require_triton()
    texts = []
    for operand, line, *_ in CASES.values():
        texts.append(
            f"module attributes {{{ATTRS}}} {{\n  tt.func @f(%x: {operand}) {{\n"
            f"    {line.replace('{x}', operand)}\n    tt.return\n  }}\n}}\n"
        )
    result = subprocess.run(
        [sys.executable, "-c", _ORACLE], input=json.dumps(texts), capture_output=True, text=True
    )
    lines = [ln for ln in result.stdout.splitlines() if ln.startswith("@@")]
    assert lines, result.stderr[-2000:]
    verdicts = json.loads(lines[0][2:])
    for name, (accepted, why) in zip(CASES, verdicts):
        assert accepted == (CASES[name][2] is Status.PROVED), (name, why)


def test_reshapes_differing_only_in_efficient_layout_report_their_own_flag() -> None:
    """The verdict memo keys the flags a reshape's data reports: the second reshape, marked
    ``efficient_layout``, must not take the first one's data (the same types, no flag)."""
    operand, line, *_ = CASES["reshape-flat"]
    marked = line.replace("tt.reshape %x :", "tt.reshape %x efficient_layout :")
    assert marked != line
    body = f"{line.replace('{x}', operand)}\n  {marked.replace('%1', '%2').replace('{x}', operand)}"
    report = audit(f"module attributes {{{ATTRS}}} {{\n  {body}\n}}\n")
    assert report.refused is None
    flags = [f.data["efficient_layout"] for f in report.findings if f.rule == NAME]
    assert flags == [False, True]
