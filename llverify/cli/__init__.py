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

from llverify.cli.args import EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, EXIT_USAGE, parse_shape
from llverify.cli.layout_cmd import describe_layout
from llverify.cli.main import build_parser, main

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
