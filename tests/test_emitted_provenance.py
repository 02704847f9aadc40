"""Which release validates a dump's TTGIR per op (llverify.emitted.provenance), and that the
report says so whenever it is not the dump's own release.

Oracle: real Triton cache entries of one kernel written by Triton 3.2.0 and 3.4.0
(tests/data/emitted/dumps, README there): 3.4.0's ``.json`` names its release, 3.2.0's does
not, and its cache folder and TTGIR spelling say "3.1-3.2"."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.cli.main import main
from llverify.emitted import provenance
from llverify.emitted.dumped import validate_artifact
from llverify.emitted.provenance import Checker, DumpRelease, choose_checker, read_dump_release
from llverify.triton.compile import installed_triton_version
from llverify.triton.releases import ReleaseError, release_pythons

DUMPS = Path(__file__).parent / "data" / "emitted" / "dumps"
DUMP_34 = next(DUMPS.glob("3.4.0/*/row_ops.llir"))
DUMP_32 = next(DUMPS.glob("3.2.0/*/row_ops.llir"))


def _copy(dump: Path, folder: Path, **metadata: object) -> Path:
    """The dump ``dump`` copied into ``folder`` (a cache entry), its .json updated."""
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in (".llir", ".ttgir", ".json"):
        shutil.copy(dump.with_suffix(suffix), folder / f"k{suffix}")
    data = json.loads((folder / "k.json").read_text())
    data.update(metadata)
    (folder / "k.json").write_text(json.dumps({k: v for k, v in data.items() if v is not None}))
    return folder / "k.llir"


@pytest.fixture
def no_releases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty releases folder: only the installed Triton."""
    folder = tmp_path / "releases"
    folder.mkdir()
    monkeypatch.setenv("LLVERIFY_TRITON_RELEASES", str(folder))
    return folder


def _installed_as(folder: Path, version: str) -> str:
    """A release virtualenv ``version`` in ``folder`` whose interpreter runs this one."""
    (folder / version / "bin").mkdir(parents=True)
    python = folder / version / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    python.chmod(0o755)
    return str(python)


# --------------------------------------------------------------------------- the dump's release


def test_the_release_is_read_from_the_json_of_a_real_3_4_dump() -> None:
    metadata = json.loads(DUMP_34.with_suffix(".json").read_text())
    seen = read_dump_release(DUMP_34, metadata, DUMP_34.with_suffix(".ttgir").read_text())
    assert seen.version == "3.4.0" and seen.evidence == "triton_version in row_ops.json"
    assert seen.admits("3.4.0") is True and seen.admits("3.9.0") is False


def test_a_real_3_2_dump_is_a_range_by_its_json_cache_folder_and_spelling() -> None:
    metadata = json.loads(DUMP_32.with_suffix(".json").read_text())
    assert "triton_version" not in metadata
    seen = read_dump_release(DUMP_32, metadata, DUMP_32.with_suffix(".ttgir").read_text())
    assert seen.version is None and seen.span == ((3, 1), (3, 2))
    assert "cache folder (43 URL-safe base64" in seen.span_evidence
    assert "spelling of its TTGIR (Triton 3.0-3.2)" in seen.span_evidence
    assert seen.admits("3.2.0") is True and seen.admits("3.9.0") is False
    assert seen.admits("3.0.0") is False  # 3.0 names its cache folder by 64 hex digits


def test_nothing_known_is_unknown_and_contradicting_evidence_gives_no_range(tmp_path: Path) -> None:
    assert read_dump_release(tmp_path / "k.llir", {}).describe().startswith("not known (no")
    folder = tmp_path / ("a" * 32)  # a 2.x cache folder, a 3.3+ spelling
    seen = read_dump_release(folder / "k.llir", {}, 'module attributes {"ttg.num-warps" = 4 : i32}')
    assert seen.span is None and seen.admits("2.1.0") is None and "disagree" in seen.describe()


# --------------------------------------------------------------------------- the checking release


def test_the_dumps_release_is_checked_by_its_virtualenv(
    no_releases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _installed_as(no_releases, "3.4.0")
    monkeypatch.setattr(
        provenance, "installed_triton_version", lambda p=None: "3.4.0" if p == python else "3.9.0"
    )
    checker = choose_checker(DumpRelease("3.4.0", "triton_version in k.json"))
    assert checker.python == python and checker.matches and checker.note == ""
    assert checker.claim == "the dump's own release, Triton 3.4.0 (triton_version in k.json)"
    # negative control: a release without a virtualenv falls back to the installed one, said
    other = choose_checker(DumpRelease("3.5.1", "triton_version in k.json"))
    assert other.python is None and not other.matches
    assert "not the dump's: the dump is Triton 3.5.1" in other.note
    assert "make a virtualenv of 3.5.1" in other.note
    assert other.claim == (
        "the lowering of Triton 3.9.0 (the installed Triton), not the dump's (3.5.1)"
    )


def test_release_and_python_are_checked_against_the_dump(
    no_releases: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = _installed_as(no_releases, "3.2.0")
    monkeypatch.setattr(provenance, "installed_triton_version", lambda p=None: "3.2.0")
    dump = DumpRelease("3.4.0", "triton_version in k.json")
    given = choose_checker(dump, release="3.2.0")
    assert given.python == python and given.chosen == "--release" and not given.matches
    assert "lowering of Triton 3.2.0 (--release), not the dump's" in given.note
    assert choose_checker(DumpRelease("3.2.0", "e"), release="3.2.0").matches
    assert choose_checker(dump, python=python).chosen == "--python"
    with pytest.raises(ReleaseError, match="release='3.3.1': no virtualenv"):
        choose_checker(dump, release="3.3.1")


def test_a_range_that_excludes_the_installed_release_says_so() -> None:
    ranged = DumpRelease(None, span=((3, 1), (3, 2)), span_evidence="x")
    checker = Checker(None, "3.9.0", ranged, "i")
    assert "Triton 3.1-3.2 by x (which excludes this release)" in checker.note
    inside = Checker(None, "3.2.0", ranged, "i")
    assert not inside.matches and "may or may not be the dump's" in inside.note
    unknown = Checker(None, "3.9.0", DumpRelease(None), "the installed Triton")
    assert "the dump's release is not known (no triton_version in its .json" in unknown.note
    assert unknown.claim.endswith("not the dump's (unknown)")


# --------------------------------------------------------------------------- reports and the CLI


def test_a_dump_of_another_release_is_said_in_note_claim_and_json(
    tmp_path: Path, no_releases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The 3.4.0 dump with no 3.4.0 virtualenv: checked with the installed Triton, and the
    report says plainly that this is not the dump's lowering (never a bare "proved")."""
    require_triton()
    installed = installed_triton_version()
    kernel, module = validate_artifact(str(_copy(DUMP_34, tmp_path / "c")))
    assert kernel.status.value == "proved" and kernel.release == {} and kernel.notes == []
    assert module.triton_version == installed and module.status.value == "proved"
    assert module.release["dump"] == "3.4.0" and module.release["checked"] == installed
    assert module.release["matches"] is False
    (note,) = module.notes
    said = f"checks the lowering of Triton {installed} (the installed Triton), not the dump's"
    assert said in note
    for verdict in module.verdicts:
        assert verdict.claim.endswith("not the dump's (3.4.0)")
    assert main(["validate", str(tmp_path / "c" / "k.llir"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"note: {note}" in out and "not the dump's (3.4.0)" in out
    assert main(["validate", str(tmp_path / "c" / "k.llir"), "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)["reports"]
    assert reports[1]["release"]["matches"] is False and reports[1]["notes"] == [note]
    assert "release" not in reports[0]  # the executed dump is the dump's own code


def test_an_unknown_release_is_said(
    tmp_path: Path, no_releases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_triton()
    llir = _copy(DUMP_34, tmp_path / "plain", triton_version=None, num_stages=None)
    _, module = validate_artifact(str(llir))
    assert module.release["dump"] is None and module.release["matches"] is False
    assert "release is not known exactly: Triton 3.3 or later by the spelling" in module.notes[0]
    assert "(this release may or may not be the dump's)" in module.notes[0]
    assert "give --release X.Y.Z" in module.notes[0]
    assert all(v.claim.endswith("not the dump's (unknown)") for v in module.verdicts)


def test_the_installed_release_of_the_dump_is_its_own_and_release_is_honoured(
    tmp_path: Path, no_releases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Negative control: a dump of the installed release needs no note; ``--release`` of
    that release (a virtualenv) is used and matches; ``--release`` of another is said."""
    require_triton()
    installed = installed_triton_version()
    assert installed is not None
    llir = _copy(DUMP_34, tmp_path / "same", triton_version=installed)
    _, module = validate_artifact(str(llir))
    assert module.notes == [] and module.release["matches"] is True
    assert module.release["checked_by"] == "the dump's release, installed"
    assert all("the dump's own release" in v.claim for v in module.verdicts)
    _installed_as(no_releases, installed)
    assert main(["validate", str(llir), "--release", installed, "--quiet"]) == 0
    assert "note:" not in capsys.readouterr().out
    other = _copy(DUMP_34, tmp_path / "other")  # says 3.4.0
    assert main(["validate", str(other), "--release", installed, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["reports"][1]["release"]
    assert record["checked_by"] == "--release" and record["matches"] is False
    assert main(["validate", str(other), "--release", "3.3.1"]) == 2  # no such virtualenv
    assert "no virtualenv" in capsys.readouterr().err


RELEASES = release_pythons()


@pytest.mark.skipif("3.4.0" not in RELEASES, reason="no Triton 3.4.0 virtualenv (CI has none)")
def test_a_real_3_4_dump_is_validated_by_its_own_release() -> None:
    kernel, module = validate_artifact(str(DUMP_34))
    assert module.triton_version == "3.4.0" and module.notes == []
    assert module.release["checked_by"] == "the dump's release" and module.release["matches"]
    assert module.status.value == "proved" and kernel.status.value == "proved"
