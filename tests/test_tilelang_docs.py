"""docs/tilelang.md's examples run as shown."""

from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "tilelang.md"


def test_tilelang_doc_examples_run() -> None:
    text = DOC.read_text()
    blocks = [part.split("```", 1)[0] for part in text.split("```python\n")[1:]]
    parser = doctest.DocTestParser()
    test = parser.get_doctest("\n".join(blocks), {}, "docs/tilelang.md", str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 15
