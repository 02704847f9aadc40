"""Declarative spec files (docs/specs.md): TOML files of checks that ``llverify prove`` and the
pytest plugin run.

* :func:`parse` / :func:`parse_text`: a spec file to :class:`~llverify.obligation.Obligation`
  objects (plain, picklable data; decided by :mod:`llverify.specfile.decide`); every problem is
  a :class:`SpecError` starting with ``FILE:LINE: ``;
* :func:`run_obligation` / :func:`run_all` (from :mod:`llverify.library`): decide them
  (:class:`Outcome`), in a process pool with ``jobs > 1``;
* :mod:`llverify.specfile.pytest_plugin`: one pytest item per obligation.

The modules: ``parse`` (spec files to obligations), ``lines`` (the line of each table and
key, for ``FILE:LINE`` errors), ``decide`` (how each kind of check is decided) and
``pytest_plugin``.
"""

from llverify.library import Outcome, run_all, run_obligation
from llverify.obligation import Obligation
from llverify.specfile.parse import (
    KINDS,
    SpecError,
    build_layout,
    parse,
    parse_text,
    spec_files,
)

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
