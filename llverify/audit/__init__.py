"""Audit TTGIR modules: every layout operation verified and costed (docs/audit.md).

The modules: ``module`` (reads a TTGIR module as Triton 3.9 prints it), ``context`` (what every
rule works with: ``Rule``, ``AuditContext``, findings), ``analyze`` (the ``RULES`` registry and
``audit()``), and one module per rule: ``consistency`` (``module-consistency``),
``conversions`` (``convert-layout``), ``shared_access`` (``shared-access``), ``dot_operands``
(``dot-operand-encoding``, ``dot-operand-fragment``), ``memdesc_views`` (``view-layout``),
``gather`` (``gather-warp-local``), ``stores`` (``store-writer``), ``copies`` (``copies``),
``shape_ops`` (``shape-ops``), ``async_copy`` (``async-copy``) and ``global_access``
(``global-coalescing``, with ``pointers``: the offsets the module's pointer arithmetic fixes).
"""
