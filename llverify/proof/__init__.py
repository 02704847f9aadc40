"""Proof machinery: obligations, verdicts, formulas, families, and the proofs that decide them.

Modules:

* ``verdict``: the one result vocabulary (``Status``; ``Verdict`` and its clock
  ``Verdict.timed()``; ``ProofFailure``); the validator's per-op ``CaseVerdict`` is built on it;
* ``obligation``: an ``Obligation`` (a named claim with its reference and expected verdict)
  and the ``Ruling`` that deciding it gives;
* ``formula``: the safe formula language (parse, interval analysis, evaluate with any ``Ops``);
* ``family``: ``LayoutFamily``, a layout written as formulas of symbolic parameters;
* ``structure``: injective / surjective / distributed / memory checks by GF(2) algebra with
  checked witnesses;
* ``explain``: a layout's closed form, each output a formula of bit fields;
* ``library``: collects the built-in spec library and runs it into outcomes;
* ``pool``: process pools that Ctrl-C stops at once (tasks cancelled, workers ended);

The proofs that use these, ``llverify.prove`` (``prove_equal`` and the parametric entry points)
and ``llverify.smt`` (the only importer of z3), sit one and two layers above this package, so
that z3 stays behind ``llverify/smt/``.
"""
