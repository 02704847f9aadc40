"""Triton's own parser and verifier on a TTGIR module, in a subprocess, before a verdict.

:func:`start_triton_check` writes the module (its ``loc(...)`` blanked, lines and columns
kept, so that Triton places each error at its line and column in the user's file) to a
temporary file and starts ``verify_worker.py`` on it with this interpreter, where Triton is
installed; it runs while llverify reads and audits the module, and :meth:`TritonCheck.result`
waits for its answer (starting an interpreter and importing Triton's extension takes about
half a second; the parse itself milliseconds).

Triton's refusal is the module's error (:class:`TritonVerdict` ``refused``) when Triton could
read the whole module and its verifier refused it, or when its parser refused the module for
a reason every release shares: an SSA value undefined, redefined, used before its definition
or as another type than its definition's, an alias defined twice.  A parse error of another
kind (an unknown operation or attribute, an unexpected token) is most likely another
release's spelling (Triton 3.9 cannot read most of what 3.6 prints): the verdict is then
``unreadable`` and only llverify's own checks (:func:`~llverify.ttgir.wellformed.
check_wellformed`) stand.  Without Triton, or when the worker dies or takes longer than its
time, the verdict is ``unavailable``.

Examples:
    >>> classify("loc(\\"m.ttgir\\":45:29): error: use of undeclared SSA value name", "3.9.0")
    TritonVerdict(status='refused', detail='use of undeclared SSA value name', line=45, column=29, version='3.9.0')
    >>> classify("loc(\\"m.ttgir\\":81:42): error: expected ':'", "3.9.0").status
    'unreadable'
"""  # noqa: E501

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from llverify.ttgir.wellformed import blank_locations

__all__ = ["SCRIPT", "TritonCheck", "TritonVerdict", "classify", "start_triton_check"]

#: the script the check runs
SCRIPT = Path(__file__).resolve().with_name("verify_worker.py")

_DIAGNOSTIC = re.compile(r'loc\("(?:[^"\\]|\\.)*":(\d+):(\d+)\): error: (.*)')
#: parser errors that mean the same in every release: MLIR's core rules for SSA values,
#: their types and aliases
_SHARED_RULES = (
    "use of undeclared SSA value",
    "redefinition of SSA value",
    "expects different type than prior uses",
    "definition of SSA value",
    "redefinition of attribute alias",
    "redefinition of type alias",
    "does not dominate this use",
    "reference to an invalid result number",
    "result number",
)
#: a verifier's error: the operation named, then "op"
_VERIFIER = re.compile(r"^'[\w.]+' op ")


@dataclass(frozen=True)
class TritonVerdict:
    """What Triton said of a module: ``status`` is "valid", "refused" (``detail``, at
    ``line`` and ``column`` of the text), "unreadable" (a parse error that may be another
    release's spelling: ``detail``) or "unavailable" (no Triton, or no answer: ``detail``
    says why); ``version`` is Triton's when it answered."""

    status: str
    detail: str = ""
    line: int = 0
    column: int = 0
    version: str = ""


def classify(stderr: str, version: str) -> TritonVerdict:
    """The verdict of a refusal whose diagnostics are ``stderr`` (see the module docstring)."""
    for line in stderr.splitlines():
        found = _DIAGNOSTIC.search(line)
        if found is None:
            continue
        detail = found.group(3).strip()
        shared = any(rule in detail for rule in _SHARED_RULES) or _VERIFIER.match(detail)
        status = "refused" if shared else "unreadable"
        return TritonVerdict(status, detail, int(found.group(1)), int(found.group(2)), version)
    tail = " ".join(stderr.split())[-300:]
    return TritonVerdict("unreadable", tail or "refused without a diagnostic", version=version)


class TritonCheck:
    """A running check of one module (see :func:`start_triton_check`)."""

    def __init__(self, text: str) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._verdict: TritonVerdict | None = None
        if importlib.util.find_spec("triton") is None:
            self._verdict = TritonVerdict("unavailable", "Triton is not installed")
            return
        self._folder = tempfile.TemporaryDirectory(prefix="llverify-check-")
        path = os.path.join(self._folder.name, "module.ttgir")
        with open(path, "w", encoding="utf-8") as out:
            out.write(blank_locations(text))
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)  # the worker imports Triton only
        try:
            self._proc = subprocess.Popen(
                [sys.executable, str(SCRIPT), path],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL,
                text=True,
                errors="replace",
                env=env,
            )
        except OSError as error:
            self._verdict = TritonVerdict("unavailable", f"cannot run {sys.executable}: {error}")
            self._cleanup()

    def result(self, timeout_s: float = 120.0) -> TritonVerdict:
        """Triton's verdict, waiting at most ``timeout_s`` seconds for it (then the worker is
        killed and the verdict is "unavailable")."""
        if self._verdict is not None:
            return self._verdict
        assert self._proc is not None
        try:
            stdout, stderr = self._proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.close()
            self._verdict = TritonVerdict(
                "unavailable", f"Triton's parser gave no answer within {timeout_s:g} s"
            )
            return self._verdict
        except BaseException:
            self.close()
            raise
        self._cleanup()
        self._verdict = _answer(stdout, stderr, self._proc.returncode)
        return self._verdict

    def close(self) -> None:
        """Stop the worker if it still runs, and remove the temporary file."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._cleanup()

    def _cleanup(self) -> None:
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


def _answer(stdout: str, stderr: str, returncode: int) -> TritonVerdict:
    """The verdict of the worker's output."""
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = [line for line in stderr.splitlines() if line.strip()][-1:]
        return TritonVerdict(
            "unavailable", f"Triton's parser ended without an answer (exit {returncode}): {tail}"
        )
    answer = json.loads(lines[-1])
    version = str(answer.get("version") or "")
    if answer.get("ok") is None:
        return TritonVerdict("unavailable", f"Triton cannot be imported: {answer.get('error')}")
    if answer["ok"]:
        return TritonVerdict("valid", version=version)
    return classify(stderr, version)


def start_triton_check(text: str) -> TritonCheck:
    """Start Triton's parser and verifier on the module ``text`` (see the module docstring);
    ``.result()`` gives the verdict."""
    return TritonCheck(text)
