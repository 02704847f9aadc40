"""Z3-backed symbolic reasoning.  The only package in llverify that imports z3.

Every solver call goes through :func:`llverify.proof.smt.solver.check`, which never reports a
timeout or "unknown" as a proof.
"""

from llverify.proof.smt.ops import Z3Ops

__all__ = ["Z3Ops"]
