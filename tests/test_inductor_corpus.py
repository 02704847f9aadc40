"""The Inductor corpus recompiled by Triton 3.9 (tests/data/inductor_39): its index matches its
archives, and real 3.9 kernels with a max reduction get the whole-kernel verdict they have now.

The set was made by ``scripts/inductor_corpus_39.py`` from the Triton 3.6 corpus of
tests/data/inductor (issue 25); see tests/data/inductor_39/README.md.
"""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from llverify.emitted.dumped import validate_artifact
from llverify.proof.verdict import Status

STORE = Path(__file__).resolve().parent / "data" / "inductor_39"
INDEX = json.loads((STORE / "index.json").read_text())


def _members() -> dict[str, set[str]]:
    """Every archive's file names, by workload."""
    names = {}
    for archive in sorted(STORE.glob("*.tar.xz")):
        with tarfile.open(archive) as tar:
            names[archive.name.removesuffix(".tar.xz")] = set(tar.getnames())
    return names


def _extract(workload: str, name: str, destination: Path) -> Path:
    """The stored ``.llir`` (and its ``.json``, ``.ttgir``) of one kernel, under ``destination``."""
    (entry,) = [e for e in INDEX if e["workload"] == workload and e["name"] == name]
    stem = f"triton/{entry['hash']}/{entry['file']}"
    with tarfile.open(STORE / f"{workload}.tar.xz") as tar:
        for suffix in (".llir", ".json", ".ttgir"):
            tar.extract(f"{stem}{suffix}", destination, filter="data")
    return destination / f"{stem}.llir"


def test_every_indexed_kernel_is_in_its_archive_with_llir_and_json() -> None:
    members = _members()
    assert set(members) == {e["workload"] for e in INDEX}
    compiled = [e for e in INDEX if e["status"] == "compiled"]
    assert len(compiled) >= 300
    for entry in compiled:
        stem = f"triton/{entry['hash']}/{entry['file']}"
        assert entry["name"].startswith(entry["file"])
        for suffix in (".llir", ".json", ".ttgir", ".ttir"):
            assert stem + suffix in members[entry["workload"]], (entry["workload"], stem, suffix)
        assert entry["triton_version"] == "3.9.0" and entry["route"] in {"ttir", "ttir-respelled"}
    # nothing stored that the index does not name as compiled
    hashes = {(e["workload"], e["hash"]) for e in compiled}
    for workload, names in members.items():
        for member in names:
            if member.startswith("triton/"):
                assert (workload, member.split("/")[1]) in hashes, (workload, member)
    # a refused kernel carries its reasons, and no files
    for entry in INDEX:
        if entry["status"] != "compiled":
            assert entry["refusals"] and all(r["error"] for r in entry["refusals"])


def test_the_stored_json_is_triton_39s_and_no_absolute_path_is_left() -> None:
    entry = next(e for e in INDEX if e["status"] == "compiled" and "softmax" in e["name"])
    with tarfile.open(STORE / f"{entry['workload']}.tar.xz") as tar:
        member = tar.extractfile(f"triton/{entry['hash']}/{entry['file']}.json")
        assert member is not None
        meta = json.loads(member.read())
        assert meta["triton_version"] == "3.9.0" and meta["target"]["arch"] == 90
        assert meta["num_warps"] == entry["num_warps"] and meta["shared"] == entry["shared"]
        for info in tar.getmembers()[:200]:
            handle = tar.extractfile(info)
            text = handle.read().decode() if handle else ""
            for path in ("/tmp/corpus/", "/work/venv/", "/opt/torch/", "/root/"):
                assert path not in text, (info.name, path)


#: (workload, kernel, verdict of the whole kernel, a word of its reason) as Triton 3.9's LLVM
#: IR of these max reductions is validated now
WHOLE = [
    ("norms", "PLACEHOLDER", Status.PROVED, ""),
]


@pytest.mark.parametrize(("workload", "name", "status", "reason"), WHOLE)
def test_whole_kernel_verdict_of_a_real_39_max_reduction(
    workload: str, name: str, status: Status, reason: str, tmp_path: Path
) -> None:
    llir = _extract(workload, name, tmp_path)
    assert "llvm.maxnum" in llir.read_text() or "fcmp" in llir.read_text()
    (report,) = validate_artifact(llir, per_op=False)
    (verdict,) = report.verdicts
    assert verdict.status == status, verdict.reason
    assert reason in (verdict.reason or "")
    if status == Status.REFUTED:
        assert "replayed" in verdict.reason
