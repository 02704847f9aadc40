"""pytest setup of the test suite: the Triton-oracle rule in the report header.

pytest imports this file and the test modules with ``tests/`` on ``sys.path`` (the folder has
no ``__init__.py``), so the shared cases import as ``cases.*``; see tests/cases/__init__.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from cases.triton import REQUIRE_TRITON

#: tests/data holds programs and real generated code (Inductor's output code, which imports
#: torch): data the tests read or run, never modules to collect
collect_ignore_glob = ["data/*"]


def pytest_report_header() -> str:
    """Say whether tests that need the Triton 3.9 oracle fail or skip without it."""
    if REQUIRE_TRITON:
        return "llverify: LLVERIFY_REQUIRE_TRITON=1: Triton-oracle tests fail without Triton 3.9"
    return "llverify: Triton-oracle tests skip without Triton 3.9 (LLVERIFY_REQUIRE_TRITON=1 fails)"


@pytest.fixture(autouse=True)
def _working_directory_unchanged() -> Iterator[None]:
    """Fail a test that leaves the process in another directory (use ``monkeypatch.chdir``).

    The doctests open ``tests/data/...`` relative to the repository root; a test that changed
    directory without restoring it made them fail in a serial run (CI) but not under xdist.
    """
    before = os.getcwd()
    yield
    after = os.getcwd()
    if after != before:
        os.chdir(before)
        pytest.fail(f"the test changed the working directory from {before} to {after}")
