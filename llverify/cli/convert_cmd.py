"""``llverify convert SRC DST``: a conversion's proofs, kind, shuffle plan or swizzle."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from llverify.bits import counted
from llverify.cli.args import (
    COL,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNKNOWN,
    ROW,
    HelpFormatter,
    add_bank_model_option,
    add_dtype_option,
    add_timeout_option,
    examples,
    layout_argument,
    non_empty,
    parse_dtype,
    parse_shape,
)
from llverify.cli.output import to_json
from llverify.proof.verdict import Status

if TYPE_CHECKING:
    from llverify.conversion import Conversion
    from llverify.layout import LinearLayout


def conversion_report(
    conv: Conversion, shape: list[int], bits: int, target: str, timeout_s: float
) -> dict[str, Any]:
    """What ``llverify convert`` reports, as JSON-ready data."""
    verify, coverage = conv.verify(), conv.coverage()
    report: dict[str, Any] = {
        "shape": shape,
        "element_bits": bits,
        "target": target,
        "kind": conv.kind,
        "verify": verify.to_dict() | {"text": str(verify)},
        "coverage": coverage.to_dict() | {"text": str(coverage)},
        "cvt": None if conv.cvt is None else conv.cvt.to_string(),
    }
    if conv.kind == "warp shuffle":
        plan = conv.shuffle_plan(bits)
        checked = plan.verify_plan()
        report["shuffle_plan"] = {
            "vector_elements": plan.vector_elements,
            "rounds": len(plan.rounds),
            "ideal_rounds": plan.ideal_rounds,
            "min_rounds": plan.min_rounds,
            "warp_bits": list(plan.warp_bits),
            "verify": checked.to_dict() | {"text": str(checked)},
        }
    if conv.kind == "shared memory" and verify.proved and coverage.proved:
        from llverify.shared_memory.access import access_analysis
        from llverify.shared_memory.swizzle import synthesize_swizzle

        result = synthesize_swizzle(conv.src, conv.dst, shape, bits, target, timeout_s=timeout_s)
        report["swizzle"] = swizzle_summary(result)
        for side, layout in (("store", conv.src), ("load", conv.dst)):
            bad = access_analysis(layout, result.layout, shape, bits, target).triton_miscompile
            report["swizzle"][f"triton_{side}_miscompile"] = bad
    return report


def swizzle_summary(result: Any) -> dict[str, Any]:
    """The JSON-ready summary of a :class:`~llverify.shared_memory.swizzle.SwizzleResult`."""
    cost, cert = result.cost, result.certificate
    return {
        "offset_bases": result.offset_bases,
        "store_vector_bits": cost.vector_bits[0],
        "load_vector_bits": cost.vector_bits[1],
        "store_conflicts": cost.store_conflicts,
        "load_conflicts": cost.load_conflicts,
        "store_wavefronts": cost.store_wavefronts,
        "load_wavefronts": cost.load_wavefronts,
        "store_wavefronts_per_instruction": cost.store_wavefronts_per_instruction,
        "load_wavefronts_per_instruction": cost.load_wavefronts_per_instruction,
        "certificate": {
            "status": cert.status,
            "claim": cert.claim,
            "solver": cert.solver,
            "seconds": cert.seconds,
        },
        "padded": result.is_padded,
        "constructive_wavefronts": None
        if result.baseline is None
        else result.baseline.total_wavefronts,
        "gluon": result.gluon(),
        "ttgir": result.ttgir(),
    }


def print_swizzle(summary: dict[str, Any]) -> None:
    print(f"  offset bases: {summary['offset_bases']}")
    print(
        f"  store: {summary['store_vector_bits']}-bit vectors, "
        f"{counted(summary['store_conflicts'], 'conflict')}, "
        f"{counted(summary['store_wavefronts'], 'wavefront')} "
        f"({summary['store_wavefronts_per_instruction']} per instruction)"
    )
    print(
        f"  load:  {summary['load_vector_bits']}-bit vectors, "
        f"{counted(summary['load_conflicts'], 'conflict')}, "
        f"{counted(summary['load_wavefronts'], 'wavefront')} "
        f"({summary['load_wavefronts_per_instruction']} per instruction)"
    )
    cert = summary["certificate"]
    print(f"  certificate: {cert['status']} ({cert['claim']})")
    if summary["constructive_wavefronts"] is not None:
        print(f"  Triton's constructive algorithm: {summary['constructive_wavefronts']} wavefronts")
    print(f"  gluon: {summary['gluon']}")
    print(f"  ttgir: {summary['ttgir']}")


def exit_code(statuses: list[Status | str]) -> int:
    """The exit code of the weakest of the checks' statuses (refuted: 1, unknown: 3).

    Examples:
        >>> exit_code([Status.PROVED, "unknown"]), exit_code(["refuted", Status.UNKNOWN])
        (3, 1)
    """
    weakest = Status.weakest(statuses)
    if weakest is Status.REFUTED:
        return EXIT_FAILED
    if weakest is Status.UNKNOWN:
        return EXIT_UNKNOWN
    return EXIT_OK


def conversion_arguments(
    args: argparse.Namespace,
) -> tuple[list[int], int, LinearLayout, LinearLayout]:
    """The tensor shape (given, else SRC's), element bits, SRC and DST of a command with
    :func:`add_common`'s options and ``src``/``dst`` arguments (both of one kernel)."""
    from llverify.arguments import check_one_kernel

    shape = parse_shape(args.shape)
    bits = parse_dtype(args.dtype)
    src = layout_argument(args.src, shape, "SRC")
    dst = layout_argument(args.dst, shape, "DST")
    check_one_kernel(src, dst, ("SRC", "DST"))
    return shape or [size for _, size in src.out_dims], bits, src, dst


def _cmd_convert(args: argparse.Namespace) -> int:
    from llverify.conversion import Conversion

    shape, bits, src, dst = conversion_arguments(args)
    report = conversion_report(Conversion(src, dst), shape, bits, args.target, args.timeout)
    statuses = [report["verify"]["status"], report["coverage"]["status"]]
    if "shuffle_plan" in report:
        statuses.append(report["shuffle_plan"]["verify"]["status"])
    if "swizzle" in report and report["swizzle"]["certificate"]["status"] == Status.UNKNOWN:
        statuses.append(Status.UNKNOWN)
    if args.json:
        print(to_json(report))
        return exit_code(statuses)
    print(f"kind: {report['kind']}")
    print(f"dst(cvt(x)) == src(x): {report['verify']['text']}")
    print(f"every destination element has a source: {report['coverage']['text']}")
    if "shuffle_plan" in report:
        plan = report["shuffle_plan"]
        print(
            f"warp shuffles: {plan['vector_elements']}-element vectors, "
            f"{counted(plan['rounds'], 'round')} "
            f"(2^|R| = {plan['ideal_rounds']}, lower bound {plan['min_rounds']})"
            + (f", warp bits {plan['warp_bits']} folded into lanes" if plan["warp_bits"] else "")
        )
        print(f"  plan executed on every hardware index: {plan['verify']['text']}")
    if "swizzle" in report:
        print("shared memory, synthesized swizzle:")
        print_swizzle(report["swizzle"])
        for side in ("store", "load"):
            bad = report["swizzle"].get(f"triton_{side}_miscompile")
            if bad:
                print(
                    f"  WARNING: Triton's ld/st lowering computes a wrong {side} address for "
                    f"this layout at {bad} (an added register stride carries; "
                    "llverify.shared_memory.lowering)"
                )
    return exit_code(statuses)


def add_common(parser: argparse.ArgumentParser) -> None:
    """``--shape``, ``--dtype``, ``--target`` (a bank model) and ``--json``."""
    parser.add_argument("--shape", help="tensor shape, e.g. 128x64 (needed for encodings)")
    add_dtype_option(parser)
    add_bank_model_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def register(commands: Any) -> None:
    """Add the ``convert`` subcommand."""
    parser = commands.add_parser(
        "convert",
        help="prove a layout conversion and say how Triton lowers it and what it costs",
        description=(
            "Prove dst(cvt(x)) == src(x) and coverage for the conversion SRC -> DST, classify "
            "it as Triton 3.9 does (no-op, register permutation, warp shuffle, shared memory), "
            "give the warp-shuffle plan or the certified optimal swizzle. Layouts: TTGIR "
            "attribute text (with --shape), Triton's LinearLayout text, or a JSON/bases file."
        ),
        epilog=examples(
            f"llverify convert {ROW} {COL} --shape 128x64 --dtype f16",
            f"llverify convert {ROW} {COL} --shape 128x64 --json",
            """llverify convert '{"bases": {"register": [[1], [2]]}, "out_dims": {"dim0": 4}}' """
            """'{"bases": {"register": [[1], [0]]}, "out_dims": {"dim0": 4}}' --dtype f32"""
            "   # exit 1: refuted, with a counterexample",
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("src", metavar="SRC", type=non_empty, help="source layout")
    parser.add_argument("dst", metavar="DST", type=non_empty, help="destination layout")
    add_common(parser)
    add_timeout_option(parser, "solver budget in seconds")
    parser.set_defaults(handler=_cmd_convert)
