"""The ``llverify`` command line (``llverify --help``).

Subcommands, one module each: ``layout`` (:mod:`.layout_cmd`), ``convert``
(:mod:`.convert_cmd`), ``bank-conflicts`` (:mod:`.access_cmd`), ``lds-partitions``
(:mod:`.partitions_cmd`), ``swizzle``
(:mod:`.swizzle_cmd`), ``coalescing`` (:mod:`.coalescing_cmd`), ``triton-check``
(:mod:`.triton_cmd`), ``prove`` (:mod:`.prove_cmd`), ``audit`` (:mod:`.audit_cmd`), ``draw``
(:mod:`.draw_cmd`), ``atoms`` (:mod:`.atoms_cmd`), ``validate`` (:mod:`.validate_cmd`),
``examples`` (:mod:`.examples_cmd`, the example inputs in ``examples/``); shared argument
parsing in :mod:`.args`; the parser and exit codes in :mod:`.main`; the ``--json`` writer in
:mod:`.output`; JUnit XML in :mod:`.junit`; one-line error messages in :mod:`.message`;
``python -m llverify.cli`` in :mod:`.__main__`.
"""

from __future__ import annotations

import importlib

from llverify.cli.main import build_parser, main
from llverify.cli.message import EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, EXIT_USAGE

#: Exported names imported on first use (PEP 562), so that ``llverify --help`` loads no
#: subcommand module: name -> its module.
_LAZY = {"describe_layout": "llverify.cli.layout_cmd", "parse_shape": "llverify.cli.args"}


def __getattr__(name: str) -> object:
    """The lazily exported names (:data:`_LAZY`)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_UNKNOWN",
    "EXIT_USAGE",
    "build_parser",
    "describe_layout",
    "main",
    "parse_shape",
]
