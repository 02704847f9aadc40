"""Runs ``llverify`` (``main(argv)``, as the console script does) with a stall injected where an
interrupt test needs one, for ``tests/test_hostile_inputs.py``'s process-level Ctrl-C tests.

``python interrupt_driver.py MODE MARKER ARGV...``: MODE says where the run stalls, after it
creates the file MARKER (the test sends SIGINT once it exists):

* ``solver``: every obligation of ``prove`` first runs a Z3 query that takes minutes (a
  64-bit factoring), in the process that runs the obligation (a pool worker with ``-j``);
* ``swizzle``: the first solver query of a swizzle synthesis is preceded by that query;
* ``python``: the subcommand's handler first sleeps (pure Python: ``audit``, ``draw``...).
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Any

#: the driver's arguments (run as a script only: importing the module, as pytest's doctest
#: collection does, reads none)
MODE, MARKER, ARGV = (
    (sys.argv[1], Path(sys.argv[2]), sys.argv[3:]) if len(sys.argv) > 2 else ("", Path(), [])
)


def _stall() -> None:
    """Mark, then a Z3 query that runs far longer than any test waits."""
    import z3

    from llverify.smt.solver import decide

    MARKER.touch()
    x, y = z3.BitVecs("x y", 64)
    n = 0xFFFFFFFB * 0xFFFFFFEF
    decide([x * y == n, z3.UGT(x, 1), z3.UGT(y, 1), z3.ULT(x, 2**33), z3.ULT(y, 2**33)], 600_000)


_REAL: list[Any] = []  # the function that a stalled one calls after the stall


def _stalled_obligation(obligation: Any, timeout_s: float = 60.0) -> Any:
    """``run_obligation`` after the stall (module-level: a pool pickles it by name)."""
    _stall()
    return _REAL[0](obligation, timeout_s)


def _solver_mode() -> None:
    from llverify.proof import library

    _REAL.append(library.run_obligation)
    library.run_obligation = _stalled_obligation  # type: ignore[assignment]


def _swizzle_mode() -> None:
    from llverify.smt import swizzle

    real = swizzle.decide_smtlib

    def stalled(*args: Any, **kwargs: Any) -> Any:
        _stall()
        return real(*args, **kwargs)

    swizzle.decide_smtlib = stalled  # type: ignore[assignment]


def _python_mode(parser: Any) -> None:
    command = parser._subparsers._group_actions[0].choices[ARGV[0]]
    real = command.get_default("handler")

    def stalled(args: Any) -> int:
        MARKER.touch()
        time.sleep(600)
        return int(real(args))

    command.set_defaults(handler=stalled)


def main() -> int:
    # as from a terminal, even when started where SIGINT is ignored (a shell's background job)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import importlib

    cli = importlib.import_module("llverify.cli.main")  # the module (llverify.cli.main is
    # also the name of a function)

    if MODE == "solver":
        _solver_mode()
    elif MODE == "swizzle":
        _swizzle_mode()
    elif MODE == "python":
        build = cli.build_parser

        def patched(*args: Any) -> Any:
            parser = build(*args)
            _python_mode(parser)
            return parser

        cli.build_parser = patched  # type: ignore[assignment]
    return cli.main(ARGV)


if __name__ == "__main__":
    sys.exit(main())
