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


def _extract(workload: str, digest: str, destination: Path) -> Path:
    """The stored ``.llir`` (and its ``.json``, ``.ttgir``) of the kernel of 3.9 cache hash
    ``digest``, under ``destination``."""
    entry = next(e for e in INDEX if e["workload"] == workload and e.get("hash") == digest)
    stem = f"triton/{digest}/{entry['file']}"
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


#: (workload, 3.9 cache hash, a word of the kernel's name, whole-kernel verdict, a part of its
#: reason) of real Triton 3.9 max / Welford reductions, as their LLVM IR is validated now
WHOLE = [
    # a log_softmax (NaN-propagating max, then sum): a masked copy of the max differs from the
    # stored one, which a dumped kernel cannot tell from a bounds mask; a masked store writes
    # nothing, so memory safety is proved and the copy is reported for the per-op check
    (
        "vit",
        "TVAEEYCHWFJNQJPQPCS3I2D77ZOLZ72SAFGRJ7NIONH4UU4AC6PQ",
        "log_softmax",
        Status.PROVED,
        "inconsistent copies",
    ),
    # a safe_softmax without its launch arguments: an address depends on a tagged scalar
    (
        "bert",
        "SXDTFSJIPPHEXTOV4GQXRBIDCGSCFHSHXBC72XGMVUX3BOHTTL6Q",
        "safe_softmax",
        Status.UNKNOWN,
        "give them values",
    ),
    # a batch_norm Welford reduction: the lanes' different values race on one shared word,
    # and no concrete input told them apart, so it stays unknown (not refuted)
    (
        "mobilenet",
        "PFDFTTM75YUZQQ3WTQMFYOJM2EQZR53UOXTBOPXNDN4TPXXBW72Q",
        "native_batch_norm",
        Status.UNKNOWN,
        "neither proved equal nor found different on concrete inputs",
    ),
    # control: a layer_norm backward without a max, proved whole
    (
        "bert",
        "5BXLJKTFJDMMTX3AORETQUTTSAYI6L3GUIXEB23BFSDCOKXK6PPQ",
        "native_layer_norm_backward",
        Status.PROVED,
        "",
    ),
]


@pytest.mark.parametrize(("workload", "digest", "word", "status", "reason"), WHOLE)
def test_whole_kernel_verdict_of_a_real_39_reduction(
    workload: str, digest: str, word: str, status: Status, reason: str, tmp_path: Path
) -> None:
    llir = _extract(workload, digest, tmp_path)
    assert word in llir.stem
    meta = json.loads(llir.with_suffix(".json").read_text())
    assert meta["triton_version"] == "3.9.0"
    (report,) = validate_artifact(str(llir), per_op=False)
    (verdict,) = report.verdicts
    assert verdict.status == status, verdict.reason
    assert reason in verdict.reason
    if status is Status.REFUTED:
        assert "replayed" in verdict.reason
