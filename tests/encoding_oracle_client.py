"""Run Triton 3.9's converters on many Gluon layouts through tests/oracle/encoding_oracle.py.

``triton_layouts(cases)`` returns one result per case (see the worker's docstring).  Tests
that use it are marked ``triton``; they skip when Triton is missing unless
LLVERIFY_REQUIRE_TRITON=1, when they fail instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

WORKER = Path(__file__).parent / "oracle" / "encoding_oracle.py"


def require_triton() -> None:
    """Skip (or fail under LLVERIFY_REQUIRE_TRITON=1) when Triton 3.9 cannot be imported."""
    probe = subprocess.run(
        [sys.executable, "-c", "import triton; assert triton.__version__.startswith('3.9')"],
        capture_output=True,
    )
    if probe.returncode != 0:
        if os.environ.get("LLVERIFY_REQUIRE_TRITON") == "1":
            pytest.fail("Triton 3.9 is required (LLVERIFY_REQUIRE_TRITON=1) but not importable")
        pytest.skip("Triton 3.9 is not installed (pip install '.[triton]')")


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
