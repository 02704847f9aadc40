"""scripts/structure_figures.py: the structural figures of the package, from its source."""

from __future__ import annotations

from cases.scripts import load_script


def test_figures_of_the_real_package() -> None:
    figures = load_script("scripts/structure_figures.py").figures()
    assert figures["modules"] > 100 and figures["lines"] > 10_000
    assert figures["import_edges"] > figures["modules"]
    assert figures["functions_over_100"] <= figures["functions_over_50"]
    assert len(figures["longest"]) == 5
    # the structural goals of the restructure (issue 24) that must not regress
    assert figures["top_level_modules"] <= 15
    assert "audit" not in figures["depends_on"]["llverify.emitted"]


def test_the_simulator_imports_nothing_else_of_llverify() -> None:
    # import-linter's `sim` contract lists the forbidden modules by hand; this derives them from
    # the source, so a module added later cannot slip past it
    scan = load_script("scripts/architecture_doc.py").scan_package
    from cases.scripts import ROOT

    modules = scan(ROOT / "llverify")
    sim = {n: m for n, m in modules.items() if n.startswith("llverify.emitted.sim")}
    assert len(sim) >= 10
    outside = {
        (name, target)
        for name, module in sim.items()
        for target in module.imports
        if not target.startswith("llverify.emitted.sim")
    }
    assert outside == set()


def test_the_sim_contract_forbids_every_other_top_level_module() -> None:
    import tomllib

    from cases.scripts import ROOT

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "sim"]
    top = {p.stem for p in (ROOT / "llverify").iterdir() if p.suffix == ".py" or p.is_dir()}
    top -= {"__init__", "__pycache__", "emitted"}
    assert {f"llverify.{name}" for name in top} <= set(contract["forbidden_modules"])
