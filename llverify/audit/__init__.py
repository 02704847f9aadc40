"""Audit TTGIR modules: every layout operation verified and costed (docs/audit.md)."""
