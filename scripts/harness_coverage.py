"""How many TTGIR modules get a harness case for every op that needs one (no compiling).

For each ``.ttgir`` file under the given folders (or glob patterns), build the harness
(``build_harness``) and count:

* **complete**: every op the harness exercises by design got its case (the ops left out
  are only those the harness never exercises: elementwise, loads/stores, dots, control
  flow, views...), and every copied combine region is closed (it uses no value defined
  outside it: Triton rejects such a module with "use of undeclared SSA value name");
* the reasons of the ops that did not get a case, and of open regions, with counts.

Usage::

    PYTHONPATH=. python scripts/harness_coverage.py '/tmp/corpus/*/triton/*/*.ttgir' [--top 15]
    PYTHONPATH=. python scripts/harness_coverage.py DIR --json out.json

``--compile N`` also compiles the harnesses of the first N complete modules whose regions
captured a value (installed Triton, CPU) to show Triton accepts them.
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from llverify.emitted import harness as harness_module
from llverify.emitted.harness import build_harness
from llverify.ttgir import parse_module

_BY_DESIGN = tuple(reason for _, reason in harness_module._REASONS) + (
    "shared-memory view",
    "allocation without a value",
    "exercised with the ttg.local_load",
    "not an operation the harness exercises",
)


def _files(patterns: list[str]) -> list[Path]:
    found: list[Path] = []
    for pattern in patterns:
        path = Path(pattern)
        if path.is_dir():
            found += sorted(path.rglob("*.ttgir"))
        else:
            found += sorted(Path(p) for p in glob.glob(pattern))
    return found


def _open_regions(text: str) -> list[str]:
    """The values the combine regions of ``text`` (a harness) use but nothing defines."""
    module = parse_module(text)
    missing: list[str] = []
    for op in module.ops:
        if op.name not in ("tt.reduce", "tt.scan"):
            continue
        defined: set[str] = set()
        for region in op.regions:
            for block in region.blocks:
                defined.update(name for name, _ in block.arguments)
                for inner in block.ops:
                    missing += [n for n in inner.operands if n not in defined]
                    defined.update(inner.result_values)
                    defined.update(inner.results)
    return missing


def _short(reason: str) -> str:
    """A reason without its module-specific names and numbers, to count alike ones."""
    reason = re.sub(r"%[\w$.#-]+", "%v", reason)
    reason = re.sub(r"line \d+", "line N", reason)
    return re.sub(r"\d+", "N", reason)[:120]


def survey(path: Path) -> dict[str, Any]:
    """What building ``path``'s harness gives: cases, ops not built (reasons), open regions."""
    try:
        module = parse_module(path.read_text())
        harness = build_harness(module)
    except Exception as error:  # a module that does not parse: counted with its reason
        return {"file": str(path), "error": f"{type(error).__name__}: {error}"[:200]}
    not_built = [
        {"op": op.name, "line": op.line, "reason": reason}
        for op, reason in harness.skipped
        if not reason.startswith(_BY_DESIGN)
    ]
    open_values = _open_regions(harness.text) if harness.cases else []
    captured = any(
        e.combine is not None and any(o.name == "arith.constant" for o in e.combine.ops)
        for c in harness.cases
        for e in c.expectations
    )
    return {
        "file": str(path),
        "cases": len(harness.cases),
        "not_built": not_built,
        "open_regions": sorted(set(open_values)),
        "captures": captured,
        "complete": not not_built and not open_values,
        "harness": harness.text if captured else None,
        "target": harness.target,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="folders or glob patterns of .ttgir files")
    parser.add_argument("--top", type=int, default=15, help="reasons listed (default 15)")
    parser.add_argument("--json", help="write every module's survey here")
    parser.add_argument("--compile", type=int, default=0, metavar="N")
    args = parser.parse_args(argv)
    files = _files(args.paths)
    started = time.perf_counter()
    results = [survey(path) for path in files]
    errors = [r for r in results if "error" in r]
    done = [r for r in results if "error" not in r]
    complete = [r for r in done if r["complete"]]
    open_modules = [r for r in done if r["open_regions"]]
    print(
        f"{len(files)} modules ({time.perf_counter() - started:.0f} s): {len(complete)} with a "
        f"case for every op that needs one, {len(open_modules)} with a combine region that "
        f"uses a value defined outside it, {len(errors)} not read"
    )
    reasons = Counter(_short(item["reason"]) for r in done for item in r["not_built"])
    modules = Counter(
        _short(reason) for r in done for reason in {i["reason"] for i in r["not_built"]}
    )
    short = sum(1 for r in done if r["not_built"])
    print(f"ops without a case: {sum(reasons.values())} in {short} modules")
    for reason, count in reasons.most_common(args.top):
        print(f"  {count:5} ops, {modules[reason]:4} modules: {reason}")
    for error, count in Counter(_short(r["error"]) for r in errors).most_common(args.top):
        print(f"  {count:5} modules not read: {error}")
    if args.compile:
        from llverify.triton.compile import compile_ttgir

        sample = [r for r in complete if r["captures"]][: args.compile]
        accepted = 0
        for r in sample:
            try:
                compile_ttgir(r["harness"], r["target"])
                accepted += 1
            except Exception as error:  # report and go on: the count says how many failed
                print(f"  compile failed: {r['file']}: {str(error)[:200]}")
        print(f"compiled {accepted} of {len(sample)} harnesses whose regions captured values")
    if args.json:
        for r in results:
            r.pop("harness", None)
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
