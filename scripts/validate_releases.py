"""Validate the quick sweep and six TTGIR fixtures with every installed Triton release.

Run (from the repository root; release virtualenvs from scripts/triton_releases.py):

    PYTHONPATH=. python scripts/validate_releases.py [--releases 2.1.0 3.2.0 ...]
        [--only SUBSTR] [--json FILE] [--store DIR --store-releases 2.1.0 ... --store-cases ...]

For each release (default: every ``release_pythons()`` one but the installed 3.9) and each
case (``sweep_cases(quick=True)`` and :data:`FIXTURES`), the case's harness (3.9 spelling) is
compiled with that release (``compile_ttgir(..., python=)`` translates it) and validated with
``validate_compiled``; when the executor meets code it does not model, ``validate_module`` is
run instead (it rebuilds the harness without the op).  A case is *not applicable* when the
release refuses to compile it (reason: Triton's first error line) or when the release's own
TTGIR passes (2.3 re-runs them) changed a layout the op under test uses: its operand and
result tensor types (shape, element type, layout) must all appear in the compiled TTGIR.
Output: one line per case, a release x verdict table, every refutation, and (``--json``) every
record.  ``--store`` writes, for the chosen releases and cases, the artifacts
tests/test_emitted_releases.py replays without the release: ``<release>/<case>.json.gz``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the cases package (the generated sweep)

from cases.emitted_sweep import sweep_cases  # noqa: E402
from llverify.emitted.harness import Harness, build_harness  # noqa: E402
from llverify.emitted.validate import (  # noqa: E402
    ValidationReport,
    validate_compiled,
    validate_module,
)
from llverify.triton.compile import (  # noqa: E402
    CompiledKernel,
    CompileError,
    compile_ttgir,
    translate_ttgir,
)
from llverify.triton.releases import release_pythons  # noqa: E402
from llverify.ttgir import parse_module  # noqa: E402

#: the small TTGIR fixtures validated with every release, beside the quick sweep
FIXTURES = (
    "softmax_fp16_sm80",
    "layernorm_fwd_fp16_sm80",
    "gather_fp32_sm80",
    "transpose_fp16_sm90",
    "broadcast_reduce_fp32_sm80",
    "matmul_fp16_sm80",
)

_ALIAS = re.compile(r"^(#[\w.]+) = (.*)$", re.MULTILINE)
_CTA = re.compile(r", CTAsPerCGA = \[[\d, ]*\], CTASplitNum = \[[\d, ]*\], CTAOrder = \[[\d, ]*\]")
_TENSOR = re.compile(r"tensor<")


def cases() -> list[tuple[str, str]]:
    """(name, TTGIR text) of every case: the quick sweep, then the fixtures."""
    out = [(case.name, case.text) for case in sweep_cases(quick=True)]
    for name in FIXTURES:
        out.append((name, (ROOT / "tests" / "data" / "ttgir" / f"{name}.ttgir").read_text()))
    return out


def _inline_aliases(text: str) -> str:
    """``text`` with every ``#alias`` use replaced by its definition, in one spelling: 3.9
    dialect prefixes, no CTA parameters, no whitespace."""
    aliases = dict(_ALIAS.findall(text))
    body = _ALIAS.sub("", text)
    for _ in range(4):  # slices nest aliases of parents
        for name in sorted(aliases, key=len, reverse=True):
            body = re.sub(re.escape(name) + r"(?![\w.])", lambda _m, n=name: aliases[n], body)
    body = body.replace("triton_gpu.", "ttg.").replace("#ttg.mma<", "#ttg.nvidia_mma<")
    return re.sub(r"\s+", "", _CTA.sub("", body))


def _tensor_types(text: str) -> list[str]:
    """Every ``tensor<...>`` type written in ``text`` (balanced brackets)."""
    found = []
    for match in _TENSOR.finditer(text):
        depth, i = 0, match.end() - 1
        while i < len(text):
            depth += {"<": 1, ">": -1}.get(text[i], 0) if text[i - 1] != "-" else 0
            i += 1
            if depth == 0:
                break
        found.append(text[match.start() : i])
    return found


def changed_layouts(harness: Harness, compiled: CompiledKernel, release: str) -> list[str]:
    """The operand/result tensor types of the harness's ops that the release's compiled TTGIR
    no longer has (its own passes changed their layouts); empty when all are kept."""
    kept = _inline_aliases(compiled.ttgir)
    missing: list[str] = []
    source = translate_ttgir(harness.text, release)
    if "instrShape" not in compiled.ttgir:  # 2.1 accepts the parameter, drops it, prints none
        source = re.sub(r", instrShape = \[[\d, ]*\]", "", source)
    aliases_text = "\n".join(f"{a} = {b}" for a, b in _ALIAS.findall(source))
    for case in harness.cases:
        first, last = case.harness_lines
        for line in source.split("\n")[first - 1 : last]:
            if 'loc("' not in line:
                continue  # the harness's own loads and stores: only the op under test
            for tensor in _tensor_types(_inline_aliases(aliases_text + "\n" + line)):
                if tensor not in kept and tensor not in missing:
                    missing.append(tensor)
    return missing


def _verdicts(report: ValidationReport) -> list[dict[str, Any]]:
    return [
        {"index": v.index, "op": v.op, "line": v.op_line, "status": v.status.value}
        for v in report.verdicts
    ]


def run_case(name: str, text: str, release: str, python: str, store: Path | None) -> dict[str, Any]:
    """The record of one case under one release (``store``: write its artifact there)."""
    started = time.perf_counter()
    module = parse_module(text)
    harness = build_harness(module)
    record: dict[str, Any] = {"release": release, "case": name, "target": harness.target}
    if not harness.cases:
        record.update(status="not applicable", reason="no op to validate")
        return record
    try:
        compiled = compile_ttgir(harness.text, harness.target, python=python, timeout_s=300)
    except CompileError as exc:
        lines = [x for x in str(exc).split("\n")[1:] if x.strip()] or [str(exc)]
        first = next((x for x in lines if "error" in x.lower()), lines[0])
        record.update(status="not applicable", reason=f"does not compile: {first.strip()[:200]}")
        record["seconds"] = round(time.perf_counter() - started, 2)
        return record
    # releases that print no TTGIR for a TTGIR input (3.0-3.2) compile it as given
    missing = changed_layouts(harness, compiled, release) if compiled.ttgir else []
    if missing:
        record.update(
            status="not applicable",
            reason=f"the release's TTGIR passes changed the layouts: {missing[0][:160]} is gone",
        )
        record["seconds"] = round(time.perf_counter() - started, 2)
        return record
    report = validate_compiled(text, compiled, source=name)
    replayable = report.instructions > 0
    if not replayable:
        report = validate_module(text, source=name, python=python, timeout_s=300)
    record.update(
        status=report.status.value,
        counts=report.counts(),
        verdicts=_verdicts(report),
        refutations=[v.to_dict() for v in report.verdicts if v.status.value == "refuted"],
        unknowns=sorted({v.reason or "" for v in report.verdicts if v.status.value == "unknown"}),
    )
    record["seconds"] = round(time.perf_counter() - started, 2)
    if store is not None and replayable:
        _store(store / release / f"{name}.json.gz", text, compiled, record)
    return record


def _store(path: Path, text: str, compiled: CompiledKernel, record: dict[str, Any]) -> None:
    """Write one replayable artifact: the module, what the release emitted, the verdicts."""
    artifact = {
        "module": text,
        "compiled": {
            "name": compiled.name,
            "target": compiled.target,
            "triton_version": compiled.triton_version,
            "num_warps": compiled.num_warps,
            "threads_per_warp": compiled.threads_per_warp,
            "num_ctas": compiled.num_ctas,
            "shared_bytes": compiled.shared_bytes,
            "llir": compiled.llir,
        },
        "expected": {"status": record["status"], "verdicts": record["verdicts"]},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", compresslevel=9) as out:
        json.dump(artifact, out, sort_keys=True)


def _table(records: list[dict[str, Any]]) -> str:
    rows = [
        "| release | cases | proved | refuted | unknown | not applicable | ops p/r/u | time s |"
    ]
    rows.append("|---|---|---|---|---|---|---|---|")
    for release in dict.fromkeys(r["release"] for r in records):
        mine = [r for r in records if r["release"] == release]
        by = {
            s: sum(r["status"] == s for r in mine)
            for s in ("proved", "refuted", "unknown", "not applicable")
        }
        ops = [
            sum(r.get("counts", {}).get(s, 0) for r in mine)
            for s in ("proved", "refuted", "unknown")
        ]
        seconds = sum(r.get("seconds", 0.0) for r in mine)
        rows.append(
            f"| {release} | {len(mine)} | {by['proved']} | {by['refuted']} | {by['unknown']} "
            f"| {by['not applicable']} | {ops[0]}/{ops[1]}/{ops[2]} | {seconds:.0f} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--releases", nargs="*", help="default: every release but 3.9")
    parser.add_argument("--only", default="", help="only the cases whose name contains this")
    parser.add_argument("--json", type=Path, help="write every record here")
    parser.add_argument("--store", type=Path, help="write replayable artifacts under this folder")
    parser.add_argument("--store-releases", nargs="*", default=[])
    parser.add_argument("--store-cases", nargs="*", default=[])
    args = parser.parse_args(argv)
    pythons = release_pythons()
    releases = args.releases or [v for v in pythons if not v.startswith("3.9")]
    unknown = [v for v in releases if v not in pythons]
    if unknown:
        parser.error(f"--releases {unknown}: no virtualenv (have {sorted(pythons)})")
    records = []
    for release in releases:
        for name, text in cases():
            if args.only not in name:
                continue
            store = (
                args.store
                if args.store and release in args.store_releases and name in args.store_cases
                else None
            )
            record = run_case(name, text, release, pythons[release], store)
            records.append(record)
            detail = record.get("counts") or record.get("reason", "")
            print(
                f"{release} {name}: {record['status']} {detail} {record.get('seconds', 0)} s",
                flush=True,
            )
            if args.json:
                args.json.write_text(json.dumps(records, indent=1))
    print(_table(records))
    for record in records:
        for refutation in record.get("refutations", []):
            print(f"REFUTED {record['release']} {record['case']}: {json.dumps(refutation)[:600]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
