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
