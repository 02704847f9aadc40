"""``llverify triton-check`` against the installed Triton 3.9 (the CI check for forks), and
its negative control: a converter that disagrees is reported and exits 1."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cases.triton import require_triton
from llverify.cli import EXIT_FAILED, main
from llverify.triton import check as triton_check
from llverify.triton import protocol

pytestmark = pytest.mark.triton


def test_triton_check_passes_on_installed_triton() -> None:
    require_triton()
    out = subprocess.run(
        [sys.executable, "-m", "llverify.cli", "triton-check", "--json", "--quiet"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    report = json.loads(out.stdout)
    assert report["counts"].get("mismatch", 0) == 0
    assert report["counts"]["match"] >= 300
    families = {r["layout"]["class"] for r in report["results"] if r["status"] == "match"}
    # Upstream Triton has no Intel Gluon layouts: those cases are answered "rejected".
    assert families == set(triton_check.CLASSES) - {"IntelDPASLayout"}
    intel = [r for r in report["results"] if "IntelDPASLayout" in json.dumps(r["layout"])]
    assert intel and all(r["status"] == "rejected" for r in intel)
    assert "no Gluon intel layouts" in intel[0]["detail"]


def test_a_disagreeing_converter_fails(monkeypatch, capsys) -> None:
    require_triton()
    real_bases = triton_check._llverify_bases
    blocked = [c for c in triton_check.default_grid() if c.family == "BlockedLayout"][:20]

    def broken(case, modules):
        bases = real_bases(case, modules)
        bases["lane"] = list(reversed(bases["lane"]))
        return bases

    monkeypatch.setattr(triton_check, "_llverify_bases", broken)
    results = triton_check.run_triton_check(blocked)
    assert sum(r.status == "mismatch" for r in results) >= 15
    monkeypatch.setattr(triton_check, "default_grid", lambda: blocked)
    assert main(["triton-check", "--quiet"]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert "MISMATCH BlockedLayout(" in out and "lane: Triton" in out


def test_the_worker_answers_each_case_by_the_protocol() -> None:
    """check_worker reads the protocol's request and writes one answer per case, in order."""
    require_triton()
    cases = [c for c in triton_check.default_grid() if c.family == "BlockedLayout"][:2]
    request = [{"spec": c.spec, "shape": list(c.shape)} for c in cases]
    request.append({"spec": {"class": "NoSuchLayout", "kwargs": {}}, "shape": [4]})
    out = subprocess.run(
        [sys.executable, "-m", "llverify.triton.check_worker"],
        input=protocol.request_text(request),
        capture_output=True,
        text=True,
        timeout=300,
    )
    answers = protocol.answers(out.stdout)
    assert len(answers) == 3, out.stderr[-2000:]
    assert all("lane" in answer["bases"] for answer in answers[:2])
    assert "unknown Gluon layout class 'NoSuchLayout'" in answers[2]["error"]


def test_mfma_scale_cases_are_checked_with_llverify_s_own_converter(monkeypatch) -> None:
    """The scale-layout cases compare Triton's helper with llverify's converter (not with
    Triton's own answer read back): a wrong llverify converter is a mismatch."""
    require_triton()
    from llverify.encodings import scales

    cases = [c for c in triton_check.default_grid() if c.family == "MFMAScaleLayout"]
    assert len(cases) == 72
    results = triton_check.run_triton_check(cases[:12])
    assert {r.status for r in results} == {"match"}
    real = scales.mfma_scale_layout

    def swapped_operands(op_idx, *args, **kwargs):
        return real(1 - op_idx, *args, **kwargs)

    monkeypatch.setattr(scales, "mfma_scale_layout", swapped_operands)
    results = triton_check.run_triton_check(cases[:12])
    assert sum(r.status == "mismatch" for r in results) >= 6


def test_wmma_scale_cases_are_checked_with_llverify_s_own_converter(monkeypatch) -> None:
    """The gfx1250 scaled-WMMA scale cases likewise: Triton's helper against llverify's
    ``wmma_scale_layout``; the operands swapped (a negative control) must mismatch."""
    require_triton()
    from llverify.encodings import scales

    cases = [c for c in triton_check.default_grid() if c.family == "WMMAScaleLayout"]
    assert len(cases) == 144
    sample = cases[::12]
    results = triton_check.run_triton_check(sample)
    assert {r.status for r in results} == {"match"}
    real = scales.wmma_scale_layout

    def swapped_operands(op_idx, *args, **kwargs):
        return real(1 - op_idx, *args, **kwargs)

    monkeypatch.setattr(scales, "wmma_scale_layout", swapped_operands)
    results = triton_check.run_triton_check(sample)
    assert sum(r.status == "mismatch" for r in results) >= 4
