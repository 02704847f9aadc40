"""Import hygiene: every module outside ``llverify.smt`` imports alone with z3 and triton
blocked (each in a fresh interpreter, so the blocking is real); ``__main__`` modules are
entry points that run the CLI, not modules to import."""

import pkgutil
import subprocess
import sys

import pytest

import llverify

#: The one package allowed to import z3 at import time.
SOLVER_PACKAGE = "llverify.smt"

MODULES = ["llverify"] + sorted(
    info.name
    for info in pkgutil.walk_packages(llverify.__path__, "llverify.")
    if info.name != SOLVER_PACKAGE
    and not info.name.startswith(SOLVER_PACKAGE + ".")
    and not info.name.endswith(".__main__")
)


def test_every_module_is_walked() -> None:
    assert {
        "llverify.shared_memory.swizzle",
        "llverify.shared_memory.swizzle.synthesize",
        "llverify.shared_memory.lowering",
    } <= set(MODULES)
    assert "llverify.prove" in MODULES and not any(m.startswith("llverify.smt") for m in MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_without_z3_or_triton(module: str) -> None:
    code = f"import sys; sys.modules['z3'] = None; sys.modules['triton'] = None; import {module}"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
