"""Z3-backed symbolic reasoning.  The only package in llverify that imports z3.

Every solver call goes through :func:`llverify.smt.solver.check` (or its SMT-LIB text form
``decide_smtlib``), which never reports a timeout or "unknown" as a proof; ``values`` runs
each of its queries, and ``swizzle`` each synthesis, in a Z3 context of its own (no history
shared with other queries: their answers and times do not depend on what ran before), where
a timeout or "unknown" is "not proved" too.

The modules: ``solver`` (the one time-limited check), ``ops`` (``Z3Ops``), ``encode`` (a
layout as Z3 functions), ``prove`` (the queries of ``prove_equal``), ``parametric`` (families
for every parameter value), ``padded`` (padded shared layouts), ``lowering`` (lowering
proofs), ``swizzle`` (the synthesis model and its queries) and ``values`` (two values of
emitted code equal on every input).
"""

from llverify.smt.ops import Z3Ops

__all__ = ["Z3Ops"]
