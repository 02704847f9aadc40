"""``llverify bank-conflicts REG SHARED``: one register layout stored to / loaded from one
shared layout: vector width, instructions, bank conflicts (hardware and Triton's)."""

from __future__ import annotations

import argparse
from typing import Any

from llverify.bits import counted
from llverify.cli.args import (
    COL,
    EXIT_FAILED,
    EXIT_OK,
    ROW,
    SWIZZLED,
    HelpFormatter,
    examples,
    non_empty,
    non_negative_int,
    register_and_shared,
)
from llverify.cli.convert_cmd import add_common
from llverify.cli.output import to_json


def _sm90(
    reg: Any, shared: Any, shape: list[int], bits: int, offset: Any
) -> dict[str, dict[str, Any]]:
    """What an sm_90 GPU executes for local_store / local_load (llverify.shared_memory.predict)
    at the constant ``offset``."""
    from llverify.shared_memory.predict import predict_wavefronts

    out = {}
    for direction in ("store", "load"):
        p = predict_wavefronts(reg, shared, shape, bits, direction, offset=offset)
        out[direction] = {
            "instruction": p.instruction,
            "instructions": p.instructions,
            "wavefronts": p.wavefronts,
            "rule": p.rule,
        }
    return out


def _offset_report(o: Any) -> dict[str, Any]:
    """The ``offset`` entry of the ``--json`` report of an access at an offset ``o``."""
    rows = o.rows
    return {
        "xor": o.offset.xor,
        "add": o.offset.add,
        "vector_split": o.vector_split,
        "ldmatrix_lost": o.ldmatrix_lost,
        "unshifted_wavefronts": o.unshifted.store_wavefronts,
        "row_rule": None
        if rows is None
        else {
            "row_elements": rows.row_elements,
            "touched_bits": rows.touched,
            "legal": rows.legal,
            "triton_before_10066": rows.triton_before_10066,
        },
    }


def _report(a: Any, bits: int, sm90: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
    """The ``--json`` report of an access analysis ``a``."""
    bank = a.bank_conflicts
    return {
        "target": a.target,
        "element_bits": bits,
        "elements_per_vector": a.elems_per_vec,
        "access_bits": a.access_bits,
        "instructions": a.instructions,
        "passes_per_instruction": a.passes,
        "conflicts": bank.conflicts,
        "triton_conflicts": bank.triton,
        "differs_from_triton": bank.differs,
        "reason": bank.reason,
        "source": bank.source,
        "wavefronts": a.store_wavefronts,
        "wavefronts_per_instruction": a.wavefronts_per_instruction,
        "colliding_lanes": list(a.colliding_lanes),
        "ldmatrix": a.ldmatrix,
        "ldmatrix_trans": a.ldmatrix_trans,
        "sm90": sm90,
    }


def _print_analysis(a: Any, sm90: dict[str, dict[str, Any]] | None) -> None:
    """The access analysis ``a`` as text (and what an sm_90 GPU executes, when known)."""
    bank = a.bank_conflicts
    print(
        f"{a.access_bits}-bit accesses ({counted(a.elems_per_vec, 'element')}), "
        f"{counted(a.instructions, 'instruction')}, {counted(a.passes, 'pass', 'passes')} each"
    )
    triton = "n/a" if bank.triton is None else bank.triton
    print(f"bank conflicts per wavefront: {bank.conflicts} (Triton's count: {triton})")
    if bank.differs:
        print(f"  differs from Triton: {bank.reason}")
    print(f"wavefronts: {a.store_wavefronts} ({a.wavefronts_per_instruction} per instruction)")
    if a.colliding_lanes:
        print(f"colliding lanes: {list(a.colliding_lanes)}")
    print(f"ldmatrix/stmatrix: {a.ldmatrix}, .trans: {a.ldmatrix_trans}")
    for direction, p in (sm90 or {}).items():
        print(
            f"sm_90 {direction} (measured model, docs/hardware.md): {p['instruction']}, "
            f"{p['instructions']} instructions, {p['wavefronts']} wavefronts"
        )


def _cmd_bank(args: argparse.Namespace) -> int:
    from llverify.shared_memory.access import access_analysis
    from llverify.shared_memory.offsets import AffineOffset, offset_access_analysis

    shape, bits, reg, shared = register_and_shared(args)
    offset = AffineOffset(args.offset_xor, args.offset_add)
    shifted = None
    if offset.is_zero:
        a = access_analysis(reg, shared, shape, bits, args.target)
    else:
        shifted = offset_access_analysis(reg, shared, shape, bits, offset, args.target)
        a = shifted.analysis
    nvidia = a.target == "nvidia" and not a.padded
    sm90 = _sm90(reg, shared, shape, bits, offset) if nvidia else None
    conflicts = a.bank_conflicts.conflicts
    code = EXIT_OK
    if args.max_conflicts is not None and conflicts > args.max_conflicts:
        code = EXIT_FAILED
    if args.json:
        report = _report(a, bits, sm90)
        if shifted is not None:
            report["offset"] = _offset_report(shifted)
        print(to_json(report))
        return code
    if shifted is not None:
        print(
            f"at offset xor {shifted.offset.xor}, add {shifted.offset.add} (elements): "
            f"{shifted.unshifted.store_wavefronts} wavefronts at offset 0"
            + ("; the offset splits the vectors" if shifted.vector_split else "")
            + ("; the offset breaks ldmatrix/stmatrix rows" if shifted.ldmatrix_lost else "")
        )
    _print_analysis(a, sm90)
    if code != EXIT_OK:
        print(
            f"FAILED: {counted(conflicts, 'conflict')} per wavefront > "
            f"--max-conflicts {args.max_conflicts}"
        )
    return code


def register(commands: Any) -> None:
    """Add the ``bank-conflicts`` subcommand."""
    parser = commands.add_parser(
        "bank-conflicts",
        help="bank conflicts of a register layout stored to / loaded from a shared layout",
        description=(
            "Vector width (Triton's largestVectorisation), instructions, passes and bank "
            "conflicts per wavefront (Triton's ttgl.bank_conflicts definition, exact for the "
            "hardware; Triton's own count beside it), and for NVIDIA what an sm_90 GPU "
            "executes for the store and the load (ldmatrix/stmatrix where Triton uses them; "
            "the model measured on an H100, docs/hardware.md)."
        ),
        epilog=examples(
            f"llverify bank-conflicts {COL} {SWIZZLED} --shape 128x64 --dtype f16",
            f"llverify bank-conflicts {COL} {SWIZZLED} --shape 128x64 --max-conflicts 0"
            "   # exit 1: 7 conflicts per wavefront",
            f"llverify bank-conflicts {ROW} {SWIZZLED} --shape 128x64 --dtype f16 "
            "--offset-xor 4   # inside the 128-bit vectors: 64-bit ones, 1 conflict",
            f"llverify bank-conflicts {COL} '#ttg.padded_shared<[64:+8] {{order = [1, 0], "
            "shape = [128, 64]}>' --shape 128x64 --json",
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("reg", metavar="REG", type=non_empty, help="register (distributed) layout")
    parser.add_argument(
        "shared", metavar="SHARED", type=non_empty, help="shared layout (padded allowed)"
    )
    add_common(parser)
    parser.add_argument(
        "--max-conflicts",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="exit 1 when the conflicts per wavefront exceed N (a CI gate)",
    )
    for kind, what in (("xor", "XORed into (as Triton applies a subslice's offset)"),
                       ("add", "added to")):  # fmt: skip
        parser.add_argument(
            f"--offset-{kind}",
            type=non_negative_int,
            default=0,
            metavar="N",
            help=f"a constant element offset {what} every shared address "
            "(llverify.shared_memory.offsets)",
        )
    parser.set_defaults(handler=_cmd_bank)
