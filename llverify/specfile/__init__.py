"""Declarative spec files (docs/specs.md): TOML files of checks that ``llverify prove`` and the
pytest plugin run.

* :func:`parse` / :func:`parse_text`: a spec file to :class:`Obligation` objects (plain,
  picklable data); every problem is a :class:`SpecError` starting with ``FILE:LINE: ``;
* :func:`run_obligation` / :func:`run_all`: decide them (:class:`Outcome`), in a process pool
  with ``jobs > 1``;
* :mod:`llverify.specfile.pytest_plugin`: one pytest item per obligation.
"""

from llverify.specfile.parse import (
    KINDS,
    Obligation,
    SpecError,
    build_layout,
    parse,
    parse_text,
    spec_files,
)
from llverify.specfile.run import Outcome, run_all, run_obligation

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
