"""Declarative spec files (docs/specs.md): TOML files of checks that ``llverify prove`` and the
pytest plugin run.

* :func:`parse` / :func:`parse_text`: a spec file to :class:`~llverify.proof.obligation.Obligation`
  objects (plain, picklable data; decided by :mod:`llverify.checkfiles.decide`); every problem is
  a :class:`SpecError` starting with ``FILE:LINE: ``;
* :func:`run_obligation` / :func:`run_all` (from :mod:`llverify.proof.library`): decide them
  (:class:`Outcome`), in a process pool with ``jobs > 1``;
* :mod:`llverify.checkfiles.pytest_plugin`: one pytest item per obligation.

The modules: ``parse`` (spec files to obligations), ``lines`` (the line of each table and
key, for ``FILE:LINE`` errors), ``decide`` (how each kind of check is decided) and
``pytest_plugin``.
"""

from llverify.checkfiles.parse import (
    KINDS,
    SpecError,
    build_layout,
    parse,
    parse_text,
    spec_files,
)
from llverify.proof.library import Outcome, run_all, run_obligation
from llverify.proof.obligation import Obligation

__all__ = [
    "KINDS",
    "Obligation",
    "Outcome",
    "SpecError",
    "build_layout",
    "parse",
    "parse_text",
    "run_all",
    "run_obligation",
    "spec_files",
]
