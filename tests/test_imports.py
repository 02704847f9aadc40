"""Import hygiene: the core imports without z3 or triton, and every module imports alone."""

import subprocess
import sys

import pytest

MODULES = [
    "llverify",
    "llverify.bits",
    "llverify.cli",
    "llverify.column_action",
    "llverify.errors",
    "llverify.evaluate",
    "llverify.gf2",
    "llverify.layout",
    "llverify.layout_utils",
    "llverify.ops",
    "llverify.formula",
    "llverify.verdict",
    "llverify.prove",
    "llverify.explain",
    "llverify.family",
    "llverify.structure",
    "llverify.encodings",
    "llverify.encodings.base",
    "llverify.encodings.blocked",
    "llverify.encodings.ttgir",
    "llverify.encodings.gluon",
    "llverify.encodings.amd_mfma",
    "llverify.encodings.amd_wmma",
    "llverify.encodings.nvidia_mma",
    "llverify.encodings.tmem",
    "llverify.encodings.shared",
    "llverify.encodings.nvmma_shared",
    "llverify.encodings.padded",
    "llverify.conversion",
    "llverify.access",
    "llverify.views",
    "llverify.library",
    "llverify.specfile",
    "llverify.triton_check",
    "llverify.cli.prove_cmd",
    "llverify.cli.audit_cmd",
    "llverify.cli.draw_cmd",
    "llverify.audit.module",
    "llverify.audit.analyze",
    "llverify.draw",
    "llverify.lowering",
    "llverify.text",
]


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_without_z3_or_triton(module):
    code = f"import sys; sys.modules['z3'] = None; sys.modules['triton'] = None; import {module}"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
