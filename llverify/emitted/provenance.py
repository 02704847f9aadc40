"""Which Triton release produced a dumped kernel, and which release validates its TTGIR per op.

The per-op part of ``validate K.llir`` compiles harnesses built from the ``K.ttgir`` beside the
dump: what it proves is the lowering of the release that compiles them.  That is the dump's own
lowering only when it is the dump's release, so the release is read from the dump where it
can be, and said in the report where it cannot:

* exactly: ``--release`` (``release=``), or ``triton_version`` in Triton's ``K.json`` (written
  by Triton 3.3 and later);
* as a range of releases: Triton's ``K.json`` without ``triton_version`` (3.2 or older), the
  cache folder's name (Triton 2.x names it by 32 hexadecimal digits, 3.0 by 64, 3.2 by 43
  characters of URL-safe base64, 3.3 and later by 52 of base32; 3.1, not seen, is counted in
  both of its neighbours' ranges), and the spelling of the TTGIR
  (:func:`llverify.ttgir.spelling_releases`).

A release known exactly whose virtualenv exists (:mod:`llverify.triton.releases`) checks the
dump; otherwise the installed release (or ``--python``'s) does, and the report's note and every
claim say that it checks that release's lowering, not the dump's.

Examples:
    >>> seen = DumpRelease("3.4.0", "triton_version in k.json")
    >>> checker = Checker(None, "3.9.0", seen, "the installed Triton")
    >>> checker.matches
    False
    >>> print(checker.note)  # doctest: +NORMALIZE_WHITESPACE
    the per-op part checks the lowering of Triton 3.9.0 (the installed Triton), not the dump's:
    the dump is Triton 3.4.0 (triton_version in k.json); make a virtualenv of 3.4.0
    (scripts/triton_releases.py) or give --release 3.4.0
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llverify.triton.compile import installed_triton_version
from llverify.triton.releases import release_python, release_pythons
from llverify.ttgir import spelling_releases
from llverify.ttgir.spelling import LATEST, Range

__all__ = ["Checker", "DumpRelease", "choose_checker", "read_dump_release"]

_VERSION = re.compile(r"\d+\.\d+\.\d+")
#: the cache folder's name, by the releases that name it so
_CACHE_NAMES = (
    (re.compile(r"[0-9a-f]{32}"), ((2, 1), (2, 3)), "32 hexadecimal digits: Triton 2.x"),
    (re.compile(r"[0-9a-f]{64}"), ((3, 0), (3, 1)), "64 hexadecimal digits: 3.0-3.1"),
    (re.compile(r"[A-Za-z0-9_-]{43}"), ((3, 1), (3, 2)), "43 URL-safe base64 characters: 3.1-3.2"),
    (re.compile(r"[A-Z2-7]{52}"), ((3, 3), LATEST), "52 base32 characters: 3.3 or later"),
)

#: keys every Triton release writes in its metadata (2.1 to 3.9)
_TRITON_KEYS = frozenset({"name", "num_warps", "num_stages", "shared"})


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def _range_text(span: Range) -> str:
    (a, b), (c, d) = span
    if (c, d) == LATEST:
        return f"Triton {a}.{b} or later"
    return f"Triton {a}.{b}" if (a, b) == (c, d) else f"Triton {a}.{b}-{c}.{d}"


@dataclass(frozen=True)
class DumpRelease:
    """What a dump says of the release that produced it: ``version`` when known exactly (with
    where it was read, ``evidence``), and the range of releases its cache folder and TTGIR
    spelling allow (``span``, with its evidence), each None/"" when nothing says."""

    version: str | None
    evidence: str = ""
    span: Range | None = None
    span_evidence: str = ""

    def describe(self) -> str:
        """One phrase: the release and how it is known."""
        if self.version:
            return f"Triton {self.version} ({self.evidence})"
        if self.span is not None:
            return f"not known exactly: {_range_text(self.span)} by {self.span_evidence}"
        if self.span_evidence:
            return f"not known ({self.span_evidence})"
        return "not known (no triton_version in its .json, no --release)"

    def admits(self, version: str) -> bool | None:
        """Whether ``version`` may be the dump's release (None: nothing says)."""
        if self.version:
            return version == self.version
        if self.span is None or not _VERSION.match(version):
            return None
        low, high = self.span
        return low <= _minor(version) <= high


def read_dump_release(
    artifact: Path, metadata: Mapping[str, Any], ttgir_text: str | None = None
) -> DumpRelease:
    """The release of the dump ``artifact`` (``K.llir``): ``triton_version`` of its Triton
    metadata, else the range its cache folder's name and the spelling of ``ttgir_text`` (the
    TTGIR beside it) allow.

    >>> read_dump_release(Path("c/k.llir"), {"triton_version": "3.6.0"}).describe()
    'Triton 3.6.0 (triton_version in k.json)'
    >>> read_dump_release(Path("0123456789abcdef0123456789abcdef/k.llir"), {}).describe()
    'not known exactly: Triton 2.1-2.3 by its cache folder (32 hexadecimal digits: Triton 2.x)'
    """
    version = metadata.get("triton_version")
    if isinstance(version, str) and _VERSION.match(version):
        return DumpRelease(version, f"triton_version in {artifact.with_suffix('.json').name}")
    spans: list[Range] = []
    evidence: list[str] = []
    if _TRITON_KEYS <= set(metadata):
        spans.append(((2, 1), (3, 2)))
        evidence.append("its Triton .json without triton_version (3.2 or older)")
    for pattern, span, said in _CACHE_NAMES:
        if pattern.fullmatch(artifact.parent.name):
            spans.append(span)
            evidence.append(f"its cache folder ({said})")
            break
    if ttgir_text is not None:
        spelled = spelling_releases(ttgir_text)
        if spelled is not None:
            spans.append(spelled)
            evidence.append(f"the spelling of its TTGIR ({_range_text(spelled)})")
    if not spans:
        return DumpRelease(None)
    low = max(span[0] for span in spans)
    high = min(span[1] for span in spans)
    if low > high:  # the evidence disagrees: say so, claim no range
        return DumpRelease(None, span_evidence=", ".join(evidence) + " disagree")
    return DumpRelease(None, span=(low, high), span_evidence=", ".join(evidence))


@dataclass(frozen=True)
class Checker:
    """The release that validates a dump's TTGIR per op: its interpreter (None: this one), its
    Triton version, what the dump says of its own release, and why it was chosen (``chosen``:
    "the dump's release", "--release", "--python", "the installed Triton")."""

    python: str | None
    version: str | None
    dump: DumpRelease
    chosen: str

    @property
    def matches(self) -> bool:
        """Whether the checking release is known to be the dump's."""
        return bool(self.version and self.dump.admits(self.version) and self.dump.version)

    @property
    def note(self) -> str:
        """ "" when it checks the dump's own release; else what it checks instead, plainly."""
        if self.matches:
            return ""
        checked = f"Triton {self.version or '(unknown version)'} ({self.chosen})"
        head = f"the per-op part checks the lowering of {checked}, not the dump's: "
        if self.dump.version:
            return (
                f"{head}the dump is {self.dump.describe()}; make a virtualenv of "
                f"{self.dump.version} (scripts/triton_releases.py) or give --release "
                f"{self.dump.version}"
            )
        admitted = self.dump.admits(self.version or "")
        verdict = (
            " (which excludes this release)" if admitted is False else
            " (this release may or may not be the dump's)"
        )  # fmt: skip
        return (
            f"{head}the dump's release is {self.dump.describe()}"
            f"{verdict if self.dump.span else ''}; give --release X.Y.Z to check the dump's"
        )

    @property
    def claim(self) -> str:
        """What the verdicts' claims add: the release checked, and whose lowering it is."""
        if self.matches:
            return f"the dump's own release, Triton {self.version} ({self.dump.evidence})"
        dump = self.dump.version or "unknown"
        return f"the lowering of Triton {self.version} ({self.chosen}), not the dump's ({dump})"

    def to_dict(self) -> dict[str, Any]:
        """The JSON record of the choice."""
        return {
            "dump": self.dump.version,
            "dump_evidence": self.dump.evidence or self.dump.span_evidence,
            "dump_range": None if self.dump.span is None else _range_text(self.dump.span),
            "checked": self.version,
            "checked_by": self.chosen,
            "matches": self.matches,
            "note": self.note,
        }


def choose_checker(
    dump: DumpRelease,
    *,
    python: str | None = None,
    release: str | None = None,
    releases_root: str | None = None,
) -> Checker:
    """The release that validates the dump's TTGIR: ``python``'s Triton when given, else the
    virtualenv of ``release`` (a :class:`~llverify.triton.releases.ReleaseError` when there is
    none), else the dump's own release when known exactly and installed (its virtualenv under
    ``releases_root``, default :func:`~llverify.triton.releases.releases_folder`, or this
    interpreter's Triton), else this interpreter's Triton."""
    if python is not None:
        return Checker(python, installed_triton_version(python), dump, "--python")
    if release is not None:
        interpreter = release_python(release, releases_root)
        return Checker(interpreter, installed_triton_version(interpreter), dump, "--release")
    installed = installed_triton_version()
    if dump.version and dump.version == installed:
        return Checker(None, installed, dump, "the dump's release, installed")
    own = release_pythons(releases_root).get(dump.version or "")
    if own is not None:
        return Checker(own, installed_triton_version(own), dump, "the dump's release")
    return Checker(None, installed, dump, "the installed Triton")
