"""The repository's scripts (benchmarks/, scripts/: folders that are not packages) imported by
path, so tests reuse their code without editing ``sys.path``."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def load_script(relative: str) -> ModuleType:
    """The module of the script at ``relative`` (to the repository root), imported once."""
    path = ROOT / relative
    name = "_script_" + path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"Argument 'relative' must name a Python file, not {relative!r}.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look their module up there
    spec.loader.exec_module(module)
    return module
