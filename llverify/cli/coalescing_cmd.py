"""``llverify coalescing [LAYOUT]``: the sectors, lines, vector width and efficiency of one
register layout loading (or storing) a global tensor, or (``--best``) the certified best
register layout for it (docs/coalescing.md)."""

from __future__ import annotations

import argparse
from functools import partial
from typing import Any

from llverify.bits import counted
from llverify.cli.args import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNKNOWN,
    ROW,
    HelpFormatter,
    add_dtype_option,
    add_timeout_option,
    examples,
    layout_argument,
    non_negative_int,
    parse_dtype,
    parse_shape,
)
from llverify.cli.output import to_json
from llverify.errors import LLVerifyError
from llverify.hardware import TARGETS

COLUMN = (
    "'#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], "
    "order = [0, 1]}>'"
)


def _strides(text: str | None, shape: list[int]) -> list[int]:
    """``--strides 64,1`` (elements), default row-major (contiguous) for ``shape``."""
    if text is None:
        strides: list[int] = []
        step = 1
        for size in reversed(shape):
            strides.insert(0, step)
            step *= size
        return strides
    try:
        strides = [int(part) for part in text.split(",")]
    except ValueError:
        raise LLVerifyError(f"--strides must look like 64,1, not {text!r}.") from None
    if len(strides) != len(shape):
        raise LLVerifyError(
            f"--strides must give one stride per dim of the shape {shape}, not {text!r}."
        )
    return strides


def _print(c: Any) -> None:
    print(c.describe())
    print(
        f"vector: {counted(c.vector_width, 'element')} (the addresses allow "
        f"{c.max_vector_width}); not wider: {c.vector_limit}"
    )
    print(
        f"sectors: {c.sectors} (ideal {c.ideal_sectors}), lines: {c.lines}, bytes: "
        f"{c.bytes_distinct} distinct of {c.bytes_moved} moved ({c.bytes_requested} requested)"
    )
    histogram = ", ".join(f"{n} x {s}" for s, n in c.histogram().items())
    print(f"requests by sectors: {histogram}")


def _cmd_coalescing(args: argparse.Namespace) -> int:
    from llverify.global_memory import best_register_layout, coalescing

    shape = parse_shape(args.shape)
    bits = parse_dtype(args.dtype)
    if args.best:
        if shape is None:
            raise LLVerifyError("--best needs --shape (e.g. --shape 128x64).")
        if args.layout is not None:
            raise LLVerifyError("--best synthesises the layout: give no LAYOUT with it.")
        result = best_register_layout(
            _strides(args.strides, shape),
            shape,
            bits,
            args.warps,
            args.target,
            base_address=args.base_address,
            timeout_s=args.timeout,
        )
        if args.json:
            print(to_json(result.to_dict()))
        else:
            print(f"layout: {result.encoding.ttgir()}")
            _print(result.coalescing)
            cert = result.certificate
            print(
                f"certificate: {cert.status} ({cert.method}, "
                f"{counted(cert.candidates, 'candidate')}): "
                f"{cert.claim}"
            )
        return EXIT_OK if result.certificate.proved else EXIT_UNKNOWN
    if args.layout is None:
        raise LLVerifyError("give a LAYOUT, or --best to synthesise one.")
    reg = layout_argument(args.layout, shape, "LAYOUT")
    shape = shape or [size for _, size in reg.out_dims]
    c = coalescing(
        reg, _strides(args.strides, shape), None, bits, args.target, base_address=args.base_address
    )
    code = EXIT_OK
    if args.min_efficiency is not None and c.efficiency < args.min_efficiency:
        code = EXIT_FAILED
    if args.json:
        print(to_json(c.to_dict()))
        return code
    _print(c)
    if code != EXIT_OK:
        print(f"FAILED: efficiency {c.efficiency:.3f} < --min-efficiency {args.min_efficiency}")
    return code


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, not {text!r}")
    return value


def _warps(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or value & (value - 1):
        raise argparse.ArgumentTypeError(f"must be a power of 2 >= 1, not {text!r}")
    return value


def register(commands: Any) -> None:
    """Add the ``coalescing`` subcommand."""
    parser = commands.add_parser(
        "coalescing",
        help="global-memory sectors, lines, vector width and efficiency of a register layout",
        description=(
            "For a register layout loading (or storing) a tensor at the given element strides: "
            "the vector width per thread (at most 16 bytes, contiguous and aligned), the 32-byte "
            "sectors and 128-byte lines each warp request touches, and the efficiency (distinct "
            "bytes requested / bytes moved); NVIDIA's model (docs/coalescing.md). With --best: "
            "the blocked layout with the widest vectors, then the fewest sectors, with its "
            "certificate (bound: no layout does better; proved: exhaustive over blocked layouts)."
        ),
        epilog=examples(
            f"llverify coalescing {ROW} --shape 128x64 --dtype f16",
            f"llverify coalescing {COLUMN} --shape 128x64 --strides 64,1 --dtype f32 --json",
            f"llverify coalescing {COLUMN} --shape 128x64 --dtype f32 --min-efficiency 0.5"
            "   # exit 1: 12.5% efficient",
            "llverify coalescing --best --shape 64x64 --strides 1,64 --dtype f32 --warps 4",
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "layout",
        metavar="LAYOUT",
        nargs="?",
        help="register (distributed) layout: TTGIR attribute text (with --shape), Triton's "
        "LinearLayout text or a JSON/bases file; omit it with --best",
    )
    parser.add_argument("--shape", help="tensor shape, e.g. 128x64 (needed for encodings)")
    parser.add_argument(
        "--strides",
        help="the global tensor's strides in elements, one per dim, e.g. 64,1 "
        "(default: row-major, contiguous)",
    )
    add_dtype_option(parser)
    _add_search_options(parser)
    parser.set_defaults(handler=_cmd_coalescing)


def _add_search_options(parser: argparse.ArgumentParser) -> None:
    """The target and base address, ``--best``'s search, the CI gate and ``--json``."""
    parser.add_argument(
        "--target",
        default="nvidia",
        choices=["nvidia", *TARGETS],
        help="target (default %(default)s); AMD targets are refused with the reason",
    )
    parser.add_argument(
        "--base-address",
        type=partial(non_negative_int, unit="bytes"),
        default=0,
        metavar="BYTES",
        help="byte address of element 0 (default 0: aligned to a 128-byte line)",
    )
    parser.add_argument("--best", action="store_true", help="synthesise the best layout")
    parser.add_argument(
        "--warps", type=_warps, default=4, metavar="N", help="warps for --best (default 4)"
    )
    add_timeout_option(parser, "search budget of --best in seconds", default=30.0)
    parser.add_argument(
        "--min-efficiency",
        type=_fraction,
        default=None,
        metavar="X",
        help="exit 1 when the efficiency is below X (0..1; a CI gate)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
