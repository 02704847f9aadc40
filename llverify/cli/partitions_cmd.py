"""``llverify lds-partitions REG SHARED``: gfx1250 LDS partition conflicts of one register
layout stored to / loaded from one shared layout (``#ttg.partitioned_shared`` included)."""

from __future__ import annotations

import argparse
from typing import Any

from llverify.bits import counted
from llverify.cli.args import (
    EXIT_FAILED,
    EXIT_OK,
    HelpFormatter,
    add_dtype_option,
    examples,
    non_empty,
    non_negative_int,
    register_and_shared,
)
from llverify.cli.output import to_json
from llverify.hardware import PARTITION_MODELS

_WMMA = (
    "'#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_wmma<{version = 3, isTranspose = true, "
    "ctaLayout = {register = [[2, 0]], warp = [[2, 1], [1, 0]]}, instrShape = [16, 16, 32]}>, "
    "kWidth = 8}>'"
)
_SHARED = "'#ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 4, order = [1, 0]}>'"
_PARTITIONED = (
    "'#ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 0, "
    "partitionLayout = #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 4, "
    "order = [1, 0]}>}>'"
)


def _cmd_partitions(args: argparse.Namespace) -> int:
    from llverify.shared_memory.partitions import partition_conflicts

    shape, bits, reg, shared = register_and_shared(args)
    result = partition_conflicts(reg, shared, shape, bits, args.target, args.base_bytes)
    code = EXIT_OK
    if args.max_conflicts is not None and result.conflicts > args.max_conflicts:
        code = EXIT_FAILED
    if args.json:
        print(to_json(_report(result, bits)))
        return code
    accesses = counted(result.accesses, "access", "accesses")
    print(
        f"{args.target} LDS partitions {list(result.partitions)} touched; "
        f"{result.conflicts} of {accesses} (wave pair w, w^1 x register) share a partition; "
        f"{result.spans} (wave, register) accesses span more than one partition"
    )
    if result.witness is not None:
        w = result.witness
        lanes = "; ".join(
            f"warp {a['warp']} lane {a['lane']} element {a['element']} byte {a['address']}"
            for a in w["accesses"]
        )
        print(f"first conflict: register {w['register']}, partition {w['partition']}: {lanes}")
    if code != EXIT_OK:
        gate = f"--max-conflicts {args.max_conflicts}"
        print(f"FAILED: {counted(result.conflicts, 'conflict')} > {gate}")
    return code


def _report(result: Any, bits: int) -> dict[str, Any]:
    return {
        "target": result.target,
        "element_bits": bits,
        "accesses": result.accesses,
        "conflicts": result.conflicts,
        "spans": result.spans,
        "partitions": list(result.partitions),
        "witness": result.witness,
    }


def register(commands: Any) -> None:
    """Add the ``lds-partitions`` subcommand."""
    parser = commands.add_parser(
        "lds-partitions",
        help="gfx1250 LDS partition conflicts of a register layout and a shared layout",
        description=(
            "For every register index and every pair of waves w, w^1 storing or loading "
            "REG to or from SHARED: whether both touch the same 64 KiB LDS partition (the "
            "gfx1250 model of llverify.shared_memory.partitions, sourced from Triton's AMD "
            "backend, its limits in docs/hardware.md). A #ttg.partitioned_shared puts each "
            "buffer in its own partition; any other layout is one buffer at --base-bytes."
        ),
        epilog=examples(
            f"llverify lds-partitions {_WMMA} {_PARTITIONED} --shape 64x32   # 0 conflicts",
            f"llverify lds-partitions {_WMMA} {_SHARED} --shape 64x32 --max-conflicts 0"
            "   # exit 1: 64 conflicts",
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("reg", metavar="REG", type=non_empty, help="register (distributed) layout")
    parser.add_argument("shared", metavar="SHARED", type=non_empty, help="shared layout")
    parser.add_argument("--shape", help="tensor shape, e.g. 64x32 (needed for encodings)")
    add_dtype_option(parser)
    parser.add_argument(
        "--target",
        default="gfx1250",
        choices=list(PARTITION_MODELS),
        help="a target with LDS partitions (default %(default)s)",
    )
    parser.add_argument(
        "--base-bytes",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="byte address of an unpartitioned buffer (default 0)",
    )
    parser.add_argument(
        "--max-conflicts",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="exit 1 when more than N accesses conflict (a CI gate)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(handler=_cmd_partitions)
