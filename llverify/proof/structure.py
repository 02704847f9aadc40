"""Structural properties of a layout, decided exactly by GF(2) algebra, with witnesses.

Each check returns a :class:`~llverify.proof.verdict.Verdict` (method "gf2").  A refutation
carries a witness that is checked independently of the elimination that found it:

* not injective: a non-zero input with the same output as input 0;
* not surjective: an output value no input reaches, certified by a linear functional that
  vanishes on every basis but not on that value;
* not distributed / not a memory layout: the offending basis (too many bits, repeated).

Definitions (Zhou et al., "Linear Layouts", section 4): a *distributed layout* is a
surjective layout whose bases have at most one non-zero bit and no repeated non-zero basis;
a *memory layout* is an invertible layout whose bases have one or two non-zero bits.
"""

from __future__ import annotations

from llverify import gf2
from llverify.layout import LinearLayout, _require_layout
from llverify.proof.verdict import Status, Verdict, VerdictClock


def _input_point(layout: LinearLayout, mask: int) -> dict[str, int]:
    point = {}
    position = 0
    for name, size in layout.in_dims:
        bits = size.bit_length() - 1
        point[name] = (mask >> position) & ((1 << bits) - 1)
        position += bits
    return point


def _output_point(layout: LinearLayout, packed: int) -> dict[str, int]:
    return {
        name: (packed >> offset) & ((1 << log2) - 1)
        for name, offset, log2 in zip(layout._outs, layout._out_offsets, layout._out_log2)
    }


def _parity(value: int) -> int:
    return value.bit_count() & 1


def check_injective(layout: LinearLayout) -> Verdict:
    """Proved when no two inputs share an output.

    Examples:
        >>> ll = LinearLayout.from_bases([("lane", [[1], [0]])], ["dim0"])
        >>> check_injective(ll).counterexample
        {'lane': 2}
    """
    _require_layout(layout, "layout")
    clock = Verdict.timed()
    claim = "layout is injective"
    kernel = gf2.kernel_vector(layout._flat_cols())
    if kernel is None:
        return clock.verdict(
            Status.PROVED, claim, "gf2", reason="the bases are linearly independent"
        )
    point = _input_point(layout, kernel)
    zero = dict.fromkeys(point, 0)
    actual, same = layout.apply(point), layout.apply(zero)
    assert actual == same  # replay: a non-zero input that maps like 0
    return clock.verdict(
        Status.REFUTED,
        claim,
        "gf2",
        reason=f"this input and input 0 both map to {same}",
        counterexample=point,
        actual=actual,
    )


def check_surjective(layout: LinearLayout) -> Verdict:
    """Proved when every output value is reached; refuted with an unreachable output.

    Examples:
        >>> ll = LinearLayout.from_bases([("lane", [[1, 0]])], ["dim0", "dim1"], [2, 2], False)
        >>> check_surjective(ll).details["unreachable_output"]
        {'dim0': 0, 'dim1': 1}
    """
    _require_layout(layout, "layout")
    clock = Verdict.timed()
    claim = "layout is surjective"
    columns = layout._flat_cols()
    total_out = layout.get_total_out_dim_size_log2()
    rows = gf2.transpose(columns, total_out)
    functional = gf2.kernel_vector(rows)  # output bits whose XOR no basis changes
    if functional is None:
        return clock.verdict(Status.PROVED, claim, "gf2", reason="the bases span every output bit")
    assert all(_parity(functional & c) == 0 for c in columns)  # independent certificate
    unreachable = functional & -functional  # parity 1 under the functional
    output = _output_point(layout, unreachable)
    return clock.verdict(
        Status.REFUTED,
        claim,
        "gf2",
        reason="no input reaches this output: a parity of output bits that every basis keeps even "
        "is odd here",
        counterexample=dict.fromkeys(layout.get_in_dim_names(), 0),
        details={"unreachable_output": output, "functional": _output_point(layout, functional)},
    )


def broadcast_bits(layout: LinearLayout) -> dict[str, int]:
    """Per in dim, the bitmask of its zero bases (inputs that do not move the output).

    Examples:
        >>> broadcast_bits(LinearLayout.from_bases([("lane", [[1], [0]])], ["dim0"]))
        {'lane': 2}
    """
    return {
        name: sum(1 << i for i, c in enumerate(cols) if c == 0)
        for name, cols in zip(layout._ins, layout._cols)
    }


def _column_verdict(
    layout: LinearLayout,
    claim: str,
    clock: VerdictClock,
    allowed_bits: tuple[int, ...],
    allow_zero: bool,
) -> Verdict | None:
    seen: dict[int, tuple[str, int]] = {}
    for name, cols in zip(layout._ins, layout._cols):
        for i, c in enumerate(cols):
            bits = c.bit_count()
            point = {d: 0 for d in layout._ins}
            point[name] = 1 << i
            if c == 0 and allow_zero:
                continue
            if bits not in allowed_bits:
                return clock.verdict(
                    Status.REFUTED,
                    claim,
                    "gf2",
                    reason=f"basis {name}={1 << i} has {bits} non-zero bits "
                    f"(allowed: {allowed_bits})",
                    counterexample=point,
                    actual=layout.apply(point),
                )
            if c in seen:
                other, j = seen[c]
                return clock.verdict(
                    Status.REFUTED,
                    claim,
                    "gf2",
                    reason=f"basis {name}={1 << i} repeats basis {other}={1 << j}",
                    counterexample=point,
                    actual=layout.apply(point),
                )
            seen[c] = (name, i)
    return None


def _refuted_by(clock: VerdictClock, claim: str, evidence: Verdict) -> Verdict:
    """``claim`` refuted by a failed sub-check: ``evidence``'s counterexample, values,
    reason and details, the time stamped on ``clock``."""
    return clock.verdict(
        Status.REFUTED,
        claim,
        "gf2",
        reason=evidence.reason,
        counterexample=evidence.counterexample,
        actual=evidence.actual,
        expected=evidence.expected,
        details=evidence.details,
    )


def check_distributed(layout: LinearLayout) -> Verdict:
    """The paper's distributed layout: surjective, bases with <= 1 bit, no repeated basis.

    Examples:
        >>> check_distributed(LinearLayout.from_bases([("lane", [[1], [0], [2]])], ["dim0"])).status
        <Status.PROVED: 'proved'>
    """
    _require_layout(layout, "layout")
    clock = Verdict.timed()
    claim = "layout is distributed (surjective, one-hot bases, none repeated)"
    bad = _column_verdict(layout, claim, clock, (1,), allow_zero=True)
    if bad is not None:
        return bad
    surjective = check_surjective(layout)
    if not surjective.proved:
        return _refuted_by(clock, claim, surjective)
    return clock.verdict(
        Status.PROVED, claim, "gf2", reason="one-hot, distinct bases spanning the output"
    )


def check_memory_layout(layout: LinearLayout) -> Verdict:
    """The paper's memory layout: invertible, every basis with one or two non-zero bits.

    Examples:
        >>> ll = LinearLayout.from_bases([("offset", [[0, 1], [1, 1]])], ["dim0", "dim1"])
        >>> check_memory_layout(ll).status
        <Status.PROVED: 'proved'>
    """
    _require_layout(layout, "layout")
    clock = Verdict.timed()
    claim = "layout is a memory layout (invertible, bases with 1 or 2 bits)"
    bad = _column_verdict(layout, claim, clock, (1, 2), allow_zero=False)
    if bad is not None:
        return bad
    if layout.get_total_in_dim_size_log2() != layout.get_total_out_dim_size_log2():
        return clock.verdict(
            Status.REFUTED,
            claim,
            "gf2",
            reason=f"{layout.get_total_in_dim_size_log2()} input bits but "
            f"{layout.get_total_out_dim_size_log2()} output bits: not invertible",
            counterexample=dict.fromkeys(layout.get_in_dim_names(), 0),
        )
    for check in (check_injective, check_surjective):
        verdict = check(layout)
        if not verdict.proved:
            return _refuted_by(clock, claim, verdict)
    return clock.verdict(Status.PROVED, claim, "gf2", reason="invertible with 1-2-bit bases")
