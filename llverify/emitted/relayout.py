"""Whether the release that compiled a harness ran its own layout passes over it first, so that
what it compiled is another program than the harness (Triton 2.3 re-runs its TTGIR passes on a
TTGIR input).

The compile worker returns the TTGIR the release compiled, after its passes
(:attr:`~llverify.triton.compile.CompiledKernel.ttgir`, in the release's spelling, read in
3.9's by :func:`~llverify.ttgir.parse_module`).  A case is tested as written only when that
TTGIR still holds its operation with the same types, layouts included (as many operations of
that name and types as the harness has); a case whose operation is gone or changed layout is
*not applicable*.  Releases that print no TTGIR for a TTGIR input (3.0-3.2) compile it as given;
one that re-lays-out its input (:data:`RELAYOUT_RELEASES`) and returns no TTGIR to compare is
not applicable as a whole.

Examples:
    >>> from llverify.ttgir import read_operation
    >>> blocked = '#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>'
    >>> op = read_operation(f'%y = ttg.convert_layout %x : tensor<128xf32, {blocked}> -> '
    ...                     f'tensor<128xf32, {blocked}>')
    >>> name, types = signature(op)
    >>> name, len(types), types[0][:3]
    ('ttg.convert_layout', 2, ('tensor', (128,), 'f32'))
"""  # noqa: E501

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

from llverify.emitted.harness import Case, Harness
from llverify.ttgir import ModuleError, Operation, Type, read_signatures

__all__ = ["RELAYOUT_RELEASES", "harness_signatures", "relaid_cases", "signature"]

#: releases known to re-run their TTGIR layout passes on a TTGIR input, with the reason
RELAYOUT_RELEASES = {(2, 3): "Triton 2.3 re-runs its TTGIR layout passes on a TTGIR input"}

Signature = tuple[str, tuple[tuple[str, tuple[int, ...], str, str], ...]]


def signature(op: Operation) -> Signature:
    """An operation's name and every tensor/memdesc type it mentions (kind, shape, element,
    encoding with aliases expanded, blanks removed)."""
    return _signature(op.name, op.types)


def _signature(name: str, types: Sequence[Type]) -> Signature:
    return name, tuple((t.kind, t.shape, t.element, _squeezed(t.encoding)) for t in types)


@lru_cache(maxsize=4096)
def _squeezed(encoding: str) -> str:
    return re.sub(r"\s+", "", encoding)


def _signatures(text: str, *, whole: bool) -> Counter[Signature]:
    """How many operations of each signature the module ``text`` holds (read by
    :func:`~llverify.ttgir.read_signatures`: names and types only, the same errors as
    :func:`~llverify.ttgir.parse_module`; ``whole``: check it is whole first)."""
    return Counter(_signature(name, types) for name, types in read_signatures(text, whole=whole))


def _minor(version: str) -> tuple[int, int] | None:
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match.group(1)), int(match.group(2))) if match else None


def harness_signatures(harness: Harness) -> Counter[Signature]:
    """How many operations of each signature the text of ``harness`` holds (llverify's own
    text: not checked whole)."""
    return _signatures(harness.text, whole=False)


def relaid_cases(
    harness: Harness,
    compiled_ttgir: str,
    version: str,
    wanted: Callable[[], Counter[Signature]] | None = None,
) -> dict[int, str]:
    """``{case index: reason}`` of the cases of ``harness`` that the release ``version`` did
    not compile as written: their operation (name and types) is missing from
    ``compiled_ttgir``, the TTGIR it compiled.  Empty when every case is there, or when the
    release printed no TTGIR and is not one that re-lays-out (it compiled the input as
    given).  ``wanted`` gives :func:`harness_signatures` of ``harness`` where it was read
    already (while the compile ran)."""
    minor = _minor(version)
    if not compiled_ttgir.strip():
        reason = RELAYOUT_RELEASES.get(minor) if minor else None
        if reason is None:
            return {}
        return {case.index: f"{reason}, and returned no TTGIR to compare" for case in harness.cases}
    try:
        compiled = _signatures(compiled_ttgir, whole=True)
    except (ModuleError, ValueError) as error:
        detail = " ".join(str(error).split())
        return {
            case.index: f"the TTGIR Triton {version} compiled could not be read: {detail}"
            for case in harness.cases
        }
    counts = harness_signatures(harness) if wanted is None else wanted()
    return _missing(harness.cases, compiled, counts, version)


def _missing(
    cases: Sequence[Case], compiled: Counter[Signature], wanted: Counter[Signature], version: str
) -> dict[int, str]:
    out = {}
    for case in cases:
        sig = signature(case.op)
        if compiled[sig] >= max(1, wanted[sig]):
            continue
        layouts = sorted({encoding for _, _, _, encoding in sig[1] if encoding})
        found = [s for s in compiled if s[0] == sig[0]]
        out[case.index] = (
            f"not applicable: Triton {version}'s own TTGIR passes re-laid out the harness "
            f"before compiling it ({sig[0]} with the layouts {', '.join(layouts)[:200]} is "
            f"{'changed' if found else 'gone'} in the TTGIR it compiled), so the code it "
            "emitted is another program's"
        )
    return out
