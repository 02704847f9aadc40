"""docs/atoms.md's examples run as shown, and its proof-count table matches the catalogue."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

from llverify import atoms

DOC = Path(__file__).resolve().parent.parent / "docs" / "atoms.md"


def test_atoms_doc_examples_run() -> None:
    text = DOC.read_text()
    blocks = [part.split("```", 1)[0] for part in text.split("```python\n")[1:]]
    parser = doctest.DocTestParser()
    test = parser.get_doctest("\n".join(blocks), {}, "docs/atoms.md", str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 10


def test_atoms_doc_table_counts_the_catalogue() -> None:
    rows = re.findall(r"^\| `([a-z0-9._]+)` \| (\d+) \| (\d+) \|", DOC.read_text(), re.MULTILINE)
    assert {family: int(count) for family, count, _ in rows} == {
        family: len(atoms.names(family)) for family in atoms.FAMILIES
    }
