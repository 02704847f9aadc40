"""``#ttg.generic_linear``: the TTGIR reader, the verifier rules, the audit.

* Differential against Triton 3.9's parser and verifier (tests/oracle/generic_linear_oracle.py,
  ``ir.parse_mlir_module`` in a subprocess restarted after an abort; Triton infers the out
  sizes from the bases and does not check them against the tensor type): generated modules, valid
  by construction (swizzled warp bases, duplicated and broadcast bases, non-power-of-2
  coordinates along one dim, ranks 1-3) and mutated into invalid ones (a swizzled register,
  lane or block basis; an uncovered out bit).  Triton's accept/refuse must equal llverify's,
  and for accepted modules the bases Triton parsed (read back through Gluon) must equal
  llverify's.  The same texts spelled ``#ttg.linear`` check the stricter permutation rule of
  :class:`DistributedLinearLayout` against Triton too.
* Gluon's ``CoalescedLayout()`` compiled by Triton 3.9 resolves to a ``#ttg.blocked`` the
  reader and the audit take; the unresolved placeholders ``#gluon.coalesced_encoding`` /
  ``#gluon.auto_encoding`` are refused with a message naming them.
* ``llverify audit`` reads generic layouts (a module that used to be refused as an unknown
  encoding is now checked), and refuses an invalid one.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from llverify.audit.analyze import audit
from llverify.encodings import (
    DistributedLinearLayout,
    EncodingError,
    GenericLinearLayout,
    TTGIRError,
    parse_encoding,
    to_linear_layout,
)
from llverify.encodings.base import bases_text

WORKER = Path(__file__).parent / "oracle" / "generic_linear_oracle.py"
SEED = 20261129
CASES = 160


def module_text(mnemonic: str, bases: list[list[list[int]]], shape: list[int]) -> str:
    reg, lane, warp, block = bases
    attr = (
        f"#ttg.{mnemonic}<{{register = {bases_text(reg)}, lane = {bases_text(lane)}, warp = "
        f"{bases_text(warp)}, block = {bases_text(block)}}}>"
    )
    dims = "x".join(map(str, shape))
    return (
        f"#l = {attr}\n"
        f'module attributes {{"ttg.num-ctas" = {2 ** len(block)} : i32, "ttg.num-warps" = '
        f'{2 ** len(warp)} : i32, "ttg.threads-per-warp" = 32 : i32}} {{\n'
        f"  tt.func @f() {{\n"
        f"    %c = arith.constant dense<0.0> : tensor<{dims}xf32, #l>\n"
        f"    tt.return\n  }}\n}}\n"
    )


def _generate(rng: random.Random) -> tuple[list[list[list[int]]], list[int]]:
    """Bases covering a random shape: 5 lane bits, the rest split over register/warp/block,
    with random zero, duplicate, swizzled (warp) and stretched (``3 * unit``) bases."""
    rank = rng.choice([1, 2, 2, 2, 3])
    logs = [rng.randint(0, 4) for _ in range(rank)]
    while sum(logs) < 6:
        logs[rng.randrange(rank)] += 1
    units = [[0] * d + [1 << i] + [0] * (rank - d - 1) for d in range(rank) for i in range(logs[d])]
    rng.shuffle(units)
    lane, rest = units[:5], units[5:]
    cut1 = rng.randint(0, len(rest))
    cut2 = rng.randint(cut1, min(len(rest), cut1 + 3))
    reg, warp, block = rest[:cut1], rest[cut1:cut2], rest[cut2:]
    if block and len(block) > 3:
        reg, block = reg + block[3:], block[:3]
    parts = [reg, lane, warp, block]
    for part in (reg, warp):
        if rng.random() < 0.3:
            part.append([0] * rank)  # broadcast
        if part and rng.random() < 0.3:
            part.append(list(rng.choice(part)))  # duplicate
    if warp and rank > 1 and rng.random() < 0.6:  # swizzled warp: add a lane's unit
        i = rng.randrange(len(warp))
        warp[i] = [a | b for a, b in zip(warp[i], rng.choice(lane))]
    if reg and rng.random() < 0.2:  # stretched along one dim: 3 * unit (with unit present)
        unit = rng.choice(reg)
        if any(unit) and 3 * max(unit) < (1 << logs[[bool(v) for v in unit].index(True)]):
            reg.append([3 * v for v in unit])
    for part in parts:
        rng.shuffle(part)
    shape = [1 << g for g in logs]
    return [reg, lane, warp, block], shape


def _mutate(rng: random.Random, bases: list[list[list[int]]]) -> list[list[list[int]]]:
    """An invalid variant: a swizzled register/lane/block basis, or an uncovered out bit."""
    bases = [[list(b) for b in part] for part in bases]
    rank = len(bases[1][0])
    kind = rng.choice(["swizzle", "swizzle", "drop"])
    if kind == "swizzle" and rank > 1:
        part = rng.choice([p for p in (0, 1, 3) if bases[p]] or [1])
        i = rng.randrange(len(bases[part]))
        j = rng.randrange(len(bases[1]))
        other = bases[1][j]
        if part == 1 and i == j:
            other = bases[1][(j + 1) % len(bases[1])]
        bases[part][i] = [a | b for a, b in zip(bases[part][i], other)]
    else:  # replace a lane unit by zero: that out bit may become uncovered
        bases[1][rng.randrange(len(bases[1]))] = [0] * rank
    return bases


def _llverify(cls: type, bases: list[list[list[int]]]) -> Any:
    """llverify's encoding from the bases alone, or None when it refuses them (Triton's
    parser does not check the tensor type's shape against the layout: the out sizes are
    inferred from the bases, as llverify does without a shape)."""
    try:
        return cls(*bases)
    except EncodingError:
        return None


def run_oracle(texts: list[str]) -> list[dict[str, Any]]:
    from cases.triton import require_triton

    require_triton()
    done: list[dict[str, Any]] = []
    while len(done) < len(texts):
        rest = texts[len(done) :]
        result = subprocess.run(
            [sys.executable, str(WORKER)], input=json.dumps(rest), capture_output=True, text=True
        )
        lines = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
        done.extend(lines)
        if len(lines) < len(rest):
            done.append({"ok": False, "abort": True})
    return done


@pytest.mark.triton
def test_parser_matches_triton() -> None:
    rng = random.Random(SEED)
    cases = []
    for _ in range(CASES):
        bases, shape = _generate(rng)
        cases.append((bases, shape))
        cases.append((_mutate(rng, bases), shape))
    texts = [module_text(m, b, s) for b, s in cases for m in ("generic_linear", "linear")]
    answers = run_oracle(texts)
    outcomes = {"accepted": 0, "refused": 0, "aborted": 0}
    for i, (bases, shape) in enumerate(cases):
        for j, cls in enumerate((GenericLinearLayout, DistributedLinearLayout)):
            got = answers[2 * i + j]
            mine = _llverify(cls, bases)
            assert got["ok"] == (mine is not None), (cls.__name__, bases, shape, got)
            if got["ok"]:
                assert got["bases"] == [[list(b) for b in p] for p in bases]
                own = mine.to_linear_layout(got["shape"])
                assert [size for _, size in own.out_dims] == got["shape"]
                assert [[list(b) for b in v] for _, v in own.bases] == got["bases"]
                outcomes["accepted"] += 1
            else:
                outcomes["aborted" if got.get("abort") else "refused"] += 1
    # The generator reaches every outcome, and each often.
    assert min(outcomes.values()) >= 20, outcomes


# ------------------------------------------------------------------ the rules, without Triton


def test_rules() -> None:
    warp_swizzle = GenericLinearLayout([[0, 1]], [[1, 0]], [[2, 1]], [])
    assert warp_swizzle.to_linear_layout([4, 2]).is_surjective()
    GenericLinearLayout([[0, 1], [0, 1], [0, 0]], [[1, 0]], [], [])  # duplicates, broadcast
    GenericLinearLayout([[0, 1], [0, 3]], [[1, 0]], [], [])  # 3 along one dim
    for bad, needle in [
        (([[1, 1]], [[2, 0]], [], []), "register basis 0"),
        (([[0, 1]], [[1, 1]], [], []), "lane basis 0"),
        (([[0, 1]], [[1, 0]], [], [[2, 1]]), "block basis 0"),
        (([[0, 1]], [[2, 0]], [], []), "surjective"),
        (([[0, 1]], [[1, 0, 0]], [], []), "rank"),
    ]:
        with pytest.raises(EncodingError, match=needle):
            GenericLinearLayout(*bad)
    with pytest.raises(EncodingError, match="permutation"):
        DistributedLinearLayout([[0, 1]], [[1, 0]], [[2, 1]], [])


def test_ttgir_round_trip_and_fitting() -> None:
    text = (
        "#ttg.generic_linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], "
        "[8, 0], [16, 0]], warp = [[32, 1]], block = []}>"
    )
    enc, _ = parse_encoding(text)
    assert isinstance(enc, GenericLinearLayout) and enc.ttgir() == text
    layout = to_linear_layout(f"tensor<64x4xf16, {text}>")
    assert layout.apply({"register": 0, "lane": 16, "warp": 1, "block": 0}) == {
        "dim0": 48,
        "dim1": 1,
    }
    # Fitted to a larger shape as a #ttg.linear is: a register basis per missing bit.
    grown = to_linear_layout(text, [128, 4])
    assert dict(grown.bases)["register"][-1] == [64, 0]


# ------------------------------------------------------------------ audit

B4 = (
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
GENERIC = (
    "#ttg.generic_linear<{register = [[0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = "
    "[[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]], warp = [[16, 0], [32, 1]], block = []}>"
)


def _module(dst: str) -> str:
    return (
        'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
        '"ttg.threads-per-warp" = 32 : i32} {\n'
        "  %1 = ttg.convert_layout %0 : tensor<64x64xf16, "
        + B4
        + "> -> tensor<64x64xf16, "
        + dst
        + ">\n}\n"
    )


def test_audit_reads_generic_linear() -> None:
    report = audit(_module(GENERIC))
    assert report.refused is None
    assert [f.rule for f in report.findings] == ["convert-layout"]


def test_audit_refuses_invalid_generic_linear() -> None:
    bad = GENERIC.replace("[0, 1]], warp", "[1, 1]], warp")
    report = audit(_module(bad))
    assert report.refused
    assert any("at most one dim" in f.summary for f in report.findings)


# ------------------------------------------------------------------ Gluon's placeholders

PROBE = Path(__file__).parent / "oracle" / "coalesced_probe.py"


def test_unresolved_gluon_placeholders_are_named() -> None:
    for mnemonic, cls in (
        ("coalesced_encoding", "CoalescedLayout"),
        ("auto_encoding", "AutoLayout"),
    ):
        with pytest.raises(TTGIRError, match=f"unresolved {cls}"):
            parse_encoding(f"tensor<128xi32, #gluon.{mnemonic}>")


@pytest.mark.triton
def test_coalesced_layout_resolves_to_a_blocked_layout_llverify_audits() -> None:
    """Oracle: Triton 3.9 compiles a Gluon kernel whose layout is ``CoalescedLayout()``; the
    TTGIR after gluon-infer-coalesced-encodings holds a ``#ttg.blocked`` that llverify reads,
    and the audit checks the module without refusing it."""
    from cases.triton import require_triton

    require_triton()
    out = subprocess.run([sys.executable, str(PROBE)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    ttgir = out.stdout
    assert "#gluon." not in ttgir and "#blocked = #ttg.blocked<" in ttgir
    line = next(x for x in ttgir.splitlines() if x.startswith("#blocked = "))
    enc, _ = parse_encoding(line)
    assert to_linear_layout(enc, [128]).is_surjective()
    assert audit(ttgir).refused is None
