"""pytest setup of the test suite: the Triton-oracle rule in the report header.

pytest imports this file and the test modules with ``tests/`` on ``sys.path`` (the folder has
no ``__init__.py``), so the shared cases import as ``cases.*``; see tests/cases/__init__.py.
"""

from __future__ import annotations

from cases.triton import REQUIRE_TRITON


def pytest_report_header() -> str:
    """Say whether tests that need the Triton 3.9 oracle fail or skip without it."""
    if REQUIRE_TRITON:
        return "llverify: LLVERIFY_REQUIRE_TRITON=1: Triton-oracle tests fail without Triton 3.9"
    return "llverify: Triton-oracle tests skip without Triton 3.9 (LLVERIFY_REQUIRE_TRITON=1 fails)"
