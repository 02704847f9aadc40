"""The protocol of llverify's Triton workers (``check_worker``, ``compile_worker``) and parents.

A parent runs a worker as a subprocess and writes one JSON request on its stdin
(:func:`request_text`).  The worker reads it (:func:`read_request`) and answers on stdout, one
line per answer: ``@@ `` (:data:`MARK`) and a JSON object, flushed at once (:func:`answer`).
Lines without the mark are noise (Triton's own prints) that :func:`answers` skips.  Triton may
abort the worker (a failed C++ assertion): the parent then has fewer answers than it asked for
and reads the worker's stderr.

* ``check_worker`` (``python -m llverify.triton.check_worker``): the request is a list of
  ``{"spec": {"class", "kwargs"}, "shape"}``; one answer per case, in order,
  ``{"bases": {in_dim: bases}}`` or ``{"error": "Type: message"}``.
* ``compile_worker`` (a script under any release's interpreter) serves many requests, one
  after another: its first answer, once Triton is imported, is ``{"ready": true, "version":
  V}`` (``{"ready": false, "version": null, "error"}`` when Triton cannot be imported, and it
  exits); then it reads one request per line (:func:`read_requests`; each one compile, its
  docstring lists the fields) and answers each with ``{"ok": true, ...}`` or ``{"ok": false,
  "version", "error"}``, until its stdin closes.

This module imports only the standard library: ``compile_worker`` runs where llverify is not
importable and loads this file by its path.

Examples:
    >>> import io
    >>> read_request(io.StringIO(request_text({"kind": "ttgir"})))
    {'kind': 'ttgir'}
    >>> list(read_requests(io.StringIO(request_text({"n": 1}) + request_text({"n": 2}))))
    [{'n': 1}, {'n': 2}]
    >>> answers('Triton prints this\\n@@ {"ok": true}\\n@@ {"error": "x"}\\n')
    [{'ok': True}, {'error': 'x'}]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any, TextIO

#: the prefix of each answer line on a worker's stdout
MARK = "@@ "


def request_text(request: Any) -> str:
    """The text a parent writes on a worker's stdin: one line of JSON."""
    return json.dumps(request) + "\n"


def read_request(stream: TextIO) -> Any:
    """The one request a worker reads from ``stream`` (its stdin, read to its end)."""
    return json.loads(stream.read())


def read_requests(stream: TextIO) -> Iterator[Any]:
    """The requests a serving worker reads from ``stream``, one per line, as each arrives,
    until the stream closes."""
    for line in iter(stream.readline, ""):
        if line.strip():
            yield json.loads(line)


def answer(record: dict[str, Any], stream: TextIO | None = None) -> None:
    """Write one answer line on ``stream`` (default: stdout), flushed at once (the next case
    may abort the process).

    >>> answer({"bases": {}})
    @@ {"bases": {}}
    """
    out = sys.stdout if stream is None else stream
    print(MARK + json.dumps(record), file=out, flush=True)


def answers(stdout: str) -> list[dict[str, Any]]:
    """The answers in a worker's stdout, in order (other lines skipped)."""
    return [json.loads(line[len(MARK) :]) for line in stdout.splitlines() if line.startswith(MARK)]
