"""``llverify atoms``: the MMA and copy atom catalogue (list, show, prove, draw)."""

from __future__ import annotations

import argparse
from typing import Any

from llverify.cli.args import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNKNOWN,
    HelpFormatter,
    examples,
    non_empty,
    output_file,
)
from llverify.cli.output import to_json


def _family(args: argparse.Namespace) -> str | None:
    return getattr(args, "family", None)


def _cmd_list(args: argparse.Namespace) -> int:
    from llverify.atoms import atoms

    found = atoms(_family(args))
    if args.json:
        rows = [
            {"name": a.name, "family": a.family, "instruction": a.instruction,
             "arch": list(a.arch), "mnk": list(a.mnk) if a.mnk else None}
            for a in found
        ]  # fmt: skip
        print(to_json(rows))
        return EXIT_OK
    for atom in found:
        mnk = "x".join(map(str, atom.mnk)) if atom.mnk else "copy"
        print(f"{atom.name:<40} {atom.family:<15} {mnk:<11} {','.join(atom.arch)}")
    print(f"{len(found)} atoms")
    return EXIT_OK


def _operand_summary(op: Any, verdict: Any) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "role": op.role,
        "shape": list(op.shape),
        "threads": op.threads,
        "values": op.values,
        "cute_tv": str(op.tv()),
        "cute_tile": list(op.cute_tile()),
        "reference": op.reference,
        "verdict": str(verdict),
    }
    if op.linear:
        summary["bases"] = {name: basis for name, basis in op.layout().bases}
    if op.lane_map:
        summary["lane_map"] = op.lane_map
    return summary


def _cmd_show(args: argparse.Namespace) -> int:
    from llverify.atoms import get, prove_atom

    atom = get(args.name)
    proof = prove_atom(atom)
    operands = [_operand_summary(op, proof.verdicts[op.role]) for op in atom.operands]
    summary: dict[str, Any] = {
        "name": atom.name,
        "family": atom.family,
        "instruction": atom.instruction,
        "arch": list(atom.arch),
        "mnk": list(atom.mnk) if atom.mnk else None,
        "source": atom.source,
        "status": proof.status.value,
        "operands": operands,
    }
    if atom.shuffle is not None:  # a lane map with parameters: no register fragment
        summary["lanes"] = str(proof.verdicts["lanes"])
    if atom.family == "mma.sp":
        summary["metadata"] = _sparse_metadata(atom.name)
    if args.json:
        print(to_json(summary))
    else:
        print(f"{atom.name}: {atom.instruction} ({', '.join(atom.arch)})")
        print(f"  {'lane map' if atom.shuffle else 'fragments'} from {atom.source}")
        for op in operands:
            rows, cols = op["shape"]
            print(f"  {op['role']} {rows}x{cols}: {op['threads']} threads x {op['values']} values")
            print(f"    CuTe TV layout: {op['cute_tv']} over {op['cute_tile']}")
            if "bases" in op:
                bases = "; ".join(f"{n} {b}" for n, b in op["bases"].items())
                print(f"    LinearLayout bases: {bases}")
            print(f"    vs {op['reference']}: {op['verdict']}")
        if "lanes" in summary:
            print(f"  lane map (every b, every width): {summary['lanes']}")
        if "metadata" in summary:
            _print_sparse_metadata(summary["metadata"])
    return _exit(proof.status.value)


def _sparse_metadata(name: str) -> dict[str, Any]:
    """What the PTX ISA's text states of a sparse atom's metadata operand and selector."""
    from llverify.atoms.sparse import metadata

    facts = metadata(name)
    return {
        "chunk": facts.chunk,
        "nonzeros": facts.nonzeros,
        "index_bits": facts.index_bits,
        "chunk_bits": facts.chunk_bits,
        "selector_lanes": {str(s): list(facts.lanes(s)) for s in sorted(facts.threads)},
        "rule": facts.rule,
        "valid_indices": list(facts.valid_indices()),
        "ordered_valid_indices": list(facts.valid_indices(ordered=True)),
        "figures_only": facts.figures,
    }


def _print_sparse_metadata(facts: dict[str, Any]) -> None:
    print(
        f"  metadata: {facts['nonzeros']} of every {facts['chunk']} elements of a row of A "
        f"stored, {facts['chunk_bits']} bits per chunk ({facts['index_bits']}-bit indices)"
    )
    print(f"    sparsity selector: {facts['rule']}")
    for selector, lanes in facts["selector_lanes"].items():
        print(f"      {selector}: lanes {', '.join(map(str, lanes))}")
    print(f"    the bit layout of the metadata register: {facts['figures_only']} (not modelled)")


def _exit(status: str) -> int:
    return {"proved": EXIT_OK, "refuted": EXIT_FAILED}.get(status, EXIT_UNKNOWN)


def _cmd_prove(args: argparse.Namespace) -> int:
    from llverify.atoms import FAMILIES, atoms, proof_counts

    if args.family:
        atoms(args.family)  # an unknown family is refused here, before any proof
    counts = proof_counts([args.family] if args.family else FAMILIES)
    if args.json:
        print(to_json(counts))
    else:
        for family, c in counts.items():
            print(f"{family:<15} {c['proved']:>4} of {c['atoms']:>4} proved, "
                  f"{c['refuted']} refuted, {c['unknown']} unknown")  # fmt: skip
    if any(c["refuted"] for c in counts.values()):
        return EXIT_FAILED
    return EXIT_UNKNOWN if any(c["unknown"] for c in counts.values()) else EXIT_OK


def _cmd_draw(args: argparse.Namespace) -> int:
    from llverify.atoms import get
    from llverify.atoms.picture import atom_picture

    info = atom_picture(get(args.name), args.max_cells).save(args.output)
    if args.json:
        print(to_json(info))
    else:
        print(f"wrote {info['file']}: {info['atom']}, {info['cells']} cells")
    return EXIT_OK


#: the families, named in the help without importing the catalogue (``--help`` stays light;
#: tests/test_atoms.py checks them against llverify.atoms.FAMILIES)
FAMILY_NAMES = (
    "mma.sync, mma.sp, mma.block_scale, wgmma, ldmatrix, stmatrix, cp.async, shfl, tcgen05.ld, "
    "tcgen05.st, mfma, wmma, dpas"
)


def _add_family(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--family", metavar="FAMILY", help=f"only this family: {FAMILY_NAMES}")


def register(commands: Any) -> None:
    """Add the ``atoms`` subcommand and its actions."""
    parser = commands.add_parser(
        "atoms",
        help="the MMA and copy atom catalogue: list, show, prove, draw",
        description=(
            "A named catalogue of MMA and copy atoms (NVIDIA mma.sync sm70-sm90, sm80 mma.sp, "
            "sm120 block-scaled mma, "
            "wgmma with A in registers for every N, ldmatrix, stmatrix, cp.async, shfl.sync, "
            "tcgen05.ld/st; "
            "AMD MFMA CDNA1-CDNA4, WMMA RDNA3, RDNA4, gfx1250; Intel DPAS on sub-group 16). "
            "Each register fragment comes "
            "from CUTLASS's CuTe TV layout (or Triton's converter for AMD and Intel) and is "
            "proved "
            "against the vendor ISA formula. Names "
            "are CuTe's where CuTe has the atom, the ISA instruction's otherwise "
            "(docs/atoms.md). Exit codes: 0 proved, 1 refuted, 2 bad input (an unknown name, "
            "with close matches), 3 unknown."
        ),
        epilog=examples(
            "llverify atoms list --family mma.sync",
            "llverify atoms show SM80_16x8x16_F32F16F16F32_TN",
            "llverify atoms prove --family ldmatrix",
            "llverify atoms draw SM80_16x8x16_F32F16F16F32_TN -o mma.svg",
        ),
        formatter_class=HelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the atoms' names, families, shapes, targets")
    _add_family(listing)
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=_cmd_list)
    show = actions.add_parser(
        "show", help="an atom's fragments: CuTe TV layout, LinearLayout, proof"
    )
    show.add_argument("name", metavar="NAME", type=non_empty, help="the atom's name")
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(handler=_cmd_show)
    prove = actions.add_parser("prove", help="prove every atom; counts per family")
    _add_family(prove)
    prove.add_argument("--json", action="store_true", help="print JSON")
    prove.set_defaults(handler=_cmd_prove)
    draw = actions.add_parser("draw", help="an atom's fragments as a picture (.svg/.html/.png)")
    draw.add_argument("name", metavar="NAME", type=non_empty, help="the atom's name")
    draw.add_argument("-o", "--output", required=True, type=output_file, help="output file")
    draw.add_argument(
        "--max-cells", type=int, default=None, metavar="N", help="at most N cells per panel"
    )
    draw.add_argument("--json", action="store_true", help="print what was drawn as JSON")
    draw.set_defaults(handler=_cmd_draw)
