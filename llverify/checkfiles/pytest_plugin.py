"""pytest plugin (entry point ``llverify``): spec files as tests, one item per obligation.

Collected: every ``*.llverify.toml`` file pytest visits, and every ``*.toml`` file under the
directory named by the ini option ``llverify_specs`` (relative to the rootdir; when pytest
runs without path arguments, that directory is collected as well). Each obligation (grid
instance) is one item, so ``pytest -n auto`` (pytest-xdist) spreads them over workers; an
item fails with the obligation's message when the verdict differs from what the check
expects, or is unknown.

ini options: ``llverify_specs`` (a directory), ``llverify_timeout`` (solver budget per
obligation in seconds, default 60), ``llverify_allow_code`` (allow ``reference_function``,
default false).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from llverify.checkfiles.parse import SpecError, parse
from llverify.proof.library import Outcome, run_obligation
from llverify.proof.obligation import Obligation

SUFFIX = ".llverify.toml"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "llverify_specs",
        "directory (relative to the rootdir) whose *.toml files are llverify spec files",
        default="",
    )
    parser.addini(
        "llverify_timeout", "llverify: solver budget per obligation, in seconds", default="60"
    )
    parser.addini(
        "llverify_allow_code",
        "llverify: allow reference_function (imports and runs Python named in spec files)",
        type="bool",
        default=False,
    )


def _spec_dir(config: pytest.Config) -> Path | None:
    value = str(config.getini("llverify_specs") or "").strip()
    if not value:
        return None
    return (config.rootpath / value).resolve()


def pytest_configure(config: pytest.Config) -> None:
    """Collect the ``llverify_specs`` directory too when pytest runs on its default paths."""
    spec_dir = _spec_dir(config)
    if spec_dir is None or not spec_dir.is_dir():
        return
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        return
    for arg in config.args:
        base = Path(arg.split("::")[0]).resolve()
        if spec_dir == base or base in spec_dir.parents:
            return
    config.args.append(str(spec_dir))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> SpecFile | None:
    if file_path.name.endswith(SUFFIX):
        return SpecFile.from_parent(parent, path=file_path)
    spec_dir = _spec_dir(parent.config)
    if spec_dir is not None and file_path.suffix == ".toml":
        resolved = file_path.resolve()
        if spec_dir in resolved.parents:
            return SpecFile.from_parent(parent, path=file_path)
    return None


class SpecFile(pytest.File):
    """A spec file: its obligations are the items."""

    def collect(self) -> Iterator[SpecItem]:
        allow_code = bool(self.config.getini("llverify_allow_code"))
        try:
            obligations = parse(self.path, allow_code=allow_code)
        except SpecError as error:
            raise self.CollectError(str(error)) from None
        for obligation in obligations:
            yield SpecItem.from_parent(self, name=obligation.name, obligation=obligation)


class SpecCheckError(Exception):
    """The verdict differs from the expectation (or is unknown)."""

    def __init__(self, outcome: Outcome) -> None:
        self.outcome = outcome
        super().__init__(outcome.message)


class SpecItem(pytest.Item):
    """One obligation."""

    def __init__(self, *, obligation: Obligation, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.obligation = obligation
        self.outcome: Outcome | None = None

    def runtest(self) -> None:
        try:
            timeout = float(self.config.getini("llverify_timeout"))
        except ValueError:
            raise pytest.UsageError("ini option llverify_timeout must be a number") from None
        self.outcome = run_obligation(self.obligation, timeout)
        if not self.outcome.passed:
            raise SpecCheckError(self.outcome)

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, SpecCheckError):
            outcome = excinfo.value.outcome
            return (
                f"{outcome.location}: {outcome.name}: expected {outcome.expected}, got "
                f"{outcome.status}\n{outcome.message}"
            )
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        ob = self.obligation
        return self.path, ob.line - 1, f"llverify {ob.kind}: {ob.name}"
