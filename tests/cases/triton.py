"""The Triton 3.9 oracle's availability rule, and Triton's converters run on many layouts.

Tests that need Triton are marked ``triton``; they skip when it is missing unless
``LLVERIFY_REQUIRE_TRITON=1``, when they fail instead (CI sets it: the differential tests
must really run there).  ``triton_layouts(cases)`` runs tests/oracle/encoding_oracle.py on
many Gluon layouts and returns one result per case (see the worker's docstring).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NoReturn

import pytest

#: True when a missing Triton oracle must fail the test instead of skipping it.
REQUIRE_TRITON = os.environ.get("LLVERIFY_REQUIRE_TRITON") == "1"

WORKER = Path(__file__).resolve().parents[1] / "oracle" / "encoding_oracle.py"


def triton_missing(reason: str) -> NoReturn:
    """Fail (under LLVERIFY_REQUIRE_TRITON=1) or skip the running test: ``reason`` says
    why the Triton oracle cannot run."""
    if REQUIRE_TRITON:
        pytest.fail(f"LLVERIFY_REQUIRE_TRITON=1 but {reason}", pytrace=False)
    pytest.skip(f"{reason}; set LLVERIFY_REQUIRE_TRITON=1 to fail instead")


def require_triton() -> None:
    """Skip (or fail under LLVERIFY_REQUIRE_TRITON=1) when Triton 3.9 cannot be imported."""
    probe = subprocess.run(
        [sys.executable, "-c", "import triton; assert triton.__version__.startswith('3.9')"],
        capture_output=True,
    )
    if probe.returncode != 0:
        triton_missing("Triton 3.9 is not installed (pip install '.[triton]')")


def triton_layouts(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Triton's bases and TTGIR text for each {"layout": expr, "shape": [...]} case."""
    require_triton()
    done: list[dict[str, Any]] = []
    while len(done) < len(cases):
        remaining = cases[len(done) :]
        result = subprocess.run(
            [sys.executable, str(WORKER)],
            input=json.dumps(remaining),
            capture_output=True,
            text=True,
        )
        lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
        done.extend(lines)
        if len(lines) < len(remaining):  # the worker aborted on the next case
            crashed = remaining[len(lines)]
            stderr = "\n".join(x for x in result.stderr.splitlines() if "leak" not in x)[-2000:]
            done.append({"error": f"Triton aborted on {crashed}: {stderr}"})
    return done
