"""Lowering equivalence: is the address arithmetic a compiler emits equal to the layout?

A shared-memory access ``register layout -> shared layout`` is the GF(2)-linear map
``cvt: (register, lane, warp) -> offset``; the right byte address of every access is
``XOR of the selected bases``.  Compilers do not emit that: Triton's ``lowerLdSt``
(lib/Conversion/TritonGPUToLLVM/Utility.cpp, Triton 3.6; Triton 3.9 splits strides bitwise and
lowers the same pairs correctly, docs/lowering.md) takes the largest
vectorisation, then splits the other register bases (``actionAdditiveStrides`` in
lib/Tools/LayoutUtils.cpp) into

* *additive* ones, emitted as an integer **add** of an immediate to the per-thread base, when
  the basis shares no bit with any lane or warp (or block) basis, and
* the rest, folded into the base with **XOR**,

so the emitted offset is ``(L(lane, warp) ^ X(xor registers)) + A(additive registers)``.  The
add equals the XOR only when ``A`` shares no bit with ``L ^ X``; Triton checks the lane and
warp bits but not the XOR-applied register bases, so an additive basis overlapping one of
them carries into higher bits: a wrong address, possibly outside the allocation.

:func:`ldst_lowering` builds the model for one pair (``strategy="triton"``: Triton's rule,
``"safe"``: additive only when also disjoint from every XOR-applied register basis, which
:func:`prove_lowering` proves sufficient pair by pair, and the lemma ``a & b == 0 ->
a + b == a ^ b`` for all 32-bit values), :func:`prove_lowering` proves it equal to the
layout for every register, lane and warp (Z3 bit-vectors, in :mod:`llverify.smt.lowering`:
this module is the pure model) or returns the counterexample
replayed with Python ints, and :func:`prove_address_formula` proves index arithmetic written
as formula text (``+ ^ | << >> &``, e.g. copied from generated code or CuTe) equal to a
layout.

Examples:
    >>> from llverify import LinearLayout
    >>> reg = LinearLayout.from_bases([("register", [[32], [64]]),
    ...     ("lane", [[1], [2], [4], [8], [16]]), ("warp", [])], ["dim0"])
    >>> shared = LinearLayout.from_bases([("offset", [[1], [2], [4], [8], [16], [33], [97]])],
    ...     ["dim0"])
    >>> model = ldst_lowering(reg, shared, [128], 32)  # bytes: f32 offsets x 4
    >>> model.additive, model.xor_applied  # 384 = 0b110000000 shares bit 7 with 132
    ((384,), (132,))
    >>> v = prove_lowering(model)
    >>> print(v.status, v.counterexample, v.details["emitted"], v.details["right"])
    refuted {'register': 3, 'lane': 0, 'warp': 0} 516 260
    >>> v.details["out_of_bounds"], model.size
    (True, 512)
    >>> print(prove_lowering(ldst_lowering(reg, shared, [128], 32, strategy="safe")).status)
    proved
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llverify.bits import check_timeout
from llverify.errors import LayoutError
from llverify.proof.verdict import Status, Verdict

__all__ = [
    "LoweringModel",
    "ldst_lowering",
    "lowering_of",
    "prove_add_xor_lemma",
    "prove_address_formula",
    "prove_lowering",
    "prove_offset_formula",
]

STRATEGIES = ("triton", "safe")


@dataclass(frozen=True)
class LoweringModel:
    """The address arithmetic of one ld/st lowering, in bytes.

    ``vector``: register bases inside one vector (never selected by an address);
    ``additive`` / ``xor_applied``: the byte offsets of the other register bases, emitted
    with ADD of an immediate or folded with XOR; ``lane`` / ``warp``: byte offsets of those
    bases (an XOR tree, the per-thread base); ``size``: the allocation in bytes.
    """

    strategy: str
    element_bits: int
    elems_per_vec: int
    register_bits: int  # log2 of the registers per thread (after broadcast removal)
    register: tuple[int, ...]  # byte offset of every register basis, in order
    vector: tuple[int, ...]  # indices of the vector's register bases
    additive: tuple[int, ...]  # byte offsets
    xor_applied: tuple[int, ...]
    additive_index: tuple[int, ...]  # register basis indices, as in `register`
    lane: tuple[int, ...]
    warp: tuple[int, ...]
    size: int

    def right(self, register: int, lane: int, warp: int) -> int:
        """The layout's byte offset (XOR of every selected basis)."""
        value = 0
        for i, b in enumerate(self.register):
            if register >> i & 1:
                value ^= b
        return value ^ _xor(self.lane, lane) ^ _xor(self.warp, warp)

    def emitted(self, register: int, lane: int, warp: int) -> int:
        """The byte offset the lowering computes: ``(L ^ X) + A``; vector bases are the
        elements inside one access (their offsets follow the access's base)."""
        base = _xor(self.lane, lane) ^ _xor(self.warp, warp)
        xor_part = additive = vector = 0
        for i, b in enumerate(self.register):
            if not register >> i & 1:
                continue
            if i in self.vector:
                vector ^= b
            elif i in self.additive_index:
                additive ^= b
            else:
                xor_part ^= b
        return ((base ^ xor_part) + additive) ^ vector

    def carry_counterexample(self) -> dict[str, int] | None:
        """The exact check without a solver: the emitted address is wrong iff an additive
        register basis ``a`` shares a bit with an XOR-applied one ``b`` (the lane/warp part
        is disjoint from ``a`` by the additive rule, so ``(L ^ b) & a == b & a``).  Returns
        the inputs selecting exactly ``a`` and ``b`` (lane = warp = 0), or None."""
        for i in self.additive_index:
            for j in range(len(self.register)):
                if j in self.vector or j in self.additive_index:
                    continue
                if self.register[i] & self.register[j]:
                    return {"register": (1 << i) | (1 << j), "lane": 0, "warp": 0}
        return None


def _xor(bases: Sequence[int], index: int) -> int:
    value = 0
    for i, b in enumerate(bases):
        if index >> i & 1:
            value ^= b
    return value


def ldst_lowering(
    register_layout: Any,
    shared_layout: Any,
    shape: Sequence[int],
    element_bits: int,
    strategy: str = "triton",
) -> LoweringModel:
    """The ld/st lowering of ``register_layout`` stored to / loaded from ``shared_layout``
    with Triton's rule (``"triton"``) or the safe rule (``"safe"``)."""
    from llverify.shared_memory.register_to_offset import conversion_layout

    cvt, elems = conversion_layout(register_layout, shared_layout, shape, element_bits)
    return lowering_of(cvt, elems, element_bits, strategy)


def lowering_of(
    cvt: Any, elems: int, element_bits: int, strategy: str = "triton", mask: int = 0
) -> LoweringModel:
    """:func:`ldst_lowering` from the access analysis' conversion layout
    (``(register, lane, warp) -> offset`` with Triton's vector permutation) and its
    elements per vector.  ``mask``: the element offset bits a view's constant offset may set
    (a subslice's ``getMaskSpanOffsets``), which Triton XORs into the base: an additive
    basis must avoid them too (``actionAdditiveStrides``' ``maskSpanOffsets``).

    Examples:
        >>> from llverify import LinearLayout
        >>> cvt = LinearLayout.from_bases([("register", [[32]]), ("lane", [[1], [2], [4],
        ...     [8], [16]]), ("warp", [])], ["offset"])
        >>> lowering_of(cvt, 1, 16).additive, lowering_of(cvt, 1, 16, mask=32).additive
        ((64,), ())
    """
    if strategy not in STRATEGIES:
        raise LayoutError(f"Argument 'strategy' must be one of {STRATEGIES}, not {strategy!r}.")
    scale = element_bits // 8 if element_bits >= 8 else 1
    if element_bits < 8:
        raise LayoutError(
            f"Argument 'element_bits' must be at least 8 for byte addresses, not {element_bits}."
        )

    def column(dim: str) -> tuple[int, ...]:
        if not cvt.has_in_dim(dim):
            return ()
        return tuple(cvt.get_basis(dim, i)[0] * scale for i in range(cvt.get_in_dim_size_log2(dim)))

    register, lane, warp = column("register"), column("lane"), column("warp")
    n_vec = elems.bit_length() - 1
    vector = tuple(range(n_vec))
    address_bits = mask * scale
    for b in lane + warp:
        address_bits |= b
    additive_index: list[int] = []
    for i in range(n_vec, len(register)):
        if register[i] & address_bits == 0:
            additive_index.append(i)
    if strategy == "safe":  # also disjoint from every XOR-applied register basis
        changed = True
        while changed:
            changed = False
            xor_bits = 0
            for i in range(n_vec, len(register)):
                if i not in additive_index:
                    xor_bits |= register[i]
            for i in list(additive_index):
                if register[i] & xor_bits:
                    additive_index.remove(i)
                    changed = True
    additive = tuple(register[i] for i in additive_index)
    xor_applied = tuple(register[i] for i in range(n_vec, len(register)) if i not in additive_index)
    size = cvt.get_out_dim_size("offset") * scale
    return LoweringModel(
        strategy, element_bits, elems, len(register), register, vector, additive,
        xor_applied, tuple(additive_index), lane, warp, size,
    )  # fmt: skip


def prove_lowering(model: LoweringModel, timeout_ms: int = 10_000) -> Verdict:
    """Prove ``emitted(x) == right(x)`` for every register, lane and warp (Z3 bit-vectors,
    :func:`llverify.smt.lowering.decide_lowering`); a counterexample is replayed with
    Python ints and reports the emitted and right byte offsets and whether the emitted one
    is outside the allocation."""
    from llverify.smt.lowering import decide_lowering

    check_timeout(timeout_ms, "timeout_ms", milliseconds=True)
    clock = Verdict.timed()
    claim = f"the {model.strategy} ld/st lowering computes the layout's address"
    decision, point = decide_lowering(model, timeout_ms)
    if decision.status is Status.PROVED:
        return clock.verdict(Status.PROVED, claim, "z3", reason="no register/lane/warp differs")
    if point is None:
        return clock.verdict(Status.UNKNOWN, claim, "z3", reason=f"solver: {decision.reason}")
    got = model.emitted(point["register"], point["lane"], point["warp"])
    want = model.right(point["register"], point["lane"], point["warp"])
    if got == want:  # the solver's model does not replay: never report it
        return clock.verdict(Status.UNKNOWN, claim, "z3", reason="counterexample did not replay")
    return clock.verdict(
        Status.REFUTED,
        claim,
        "z3",
        counterexample=point,
        actual={"offset": got},
        expected={"offset": want},
        reason=(
            "the add of an additive register offset carries into a bit that an XOR-applied "
            "register basis sets"
            + ("; the address is outside the allocation" if got >= model.size else "")
        ),
        details={"emitted": got, "right": want, "out_of_bounds": got >= model.size},
    )


def prove_add_xor_lemma(width: int = 32, timeout_ms: int = 10_000) -> Verdict:
    """``a & b == 0 -> a + b == a ^ b`` for every ``width``-bit ``a, b`` (Z3): why the safe
    rule is sufficient (the additive part is disjoint from everything it is added to).

    Examples:
        >>> print(prove_add_xor_lemma(16).status)
        proved
    """
    from llverify.smt.lowering import decide_add_xor

    check_timeout(timeout_ms, "timeout_ms", milliseconds=True)
    clock = Verdict.timed()
    decision = decide_add_xor(width, timeout_ms)
    status = Status.PROVED if decision.status is Status.PROVED else Status.UNKNOWN
    return clock.verdict(
        status,
        f"disjoint add equals xor ({width}-bit)",
        "z3",
        reason="" if status is Status.PROVED else f"solver: {decision.reason or decision.status}",
    )


def prove_address_formula(
    formula: str,
    register_layout: Any,
    shared_layout: Any,
    shape: Sequence[int],
    element_bits: int,
    unit: str = "element",
) -> Verdict:
    """Prove index arithmetic given as formula text over ``register``, ``lane`` and
    ``warp`` (``+ - * // % & | ^ << >> ~``; ``unit="byte"`` for byte addresses) equal to the
    shared-memory offset the two layouts define, for every input; a counterexample otherwise.

    Examples:
        >>> from llverify import LinearLayout
        >>> reg = LinearLayout.from_bases([("register", [[1, 0], [2, 0]]),
        ...     ("lane", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]), ("warp", [])],
        ...     ["dim0", "dim1"])
        >>> row_major = LinearLayout.from_bases([("offset", [[0, 1], [0, 2], [0, 4], [0, 8],
        ...     [0, 16], [1, 0], [2, 0]])], ["dim0", "dim1"])
        >>> print(prove_address_formula("register * 32 + lane", reg, row_major, [4, 32], 32).status)
        proved
        >>> print(prove_address_formula("register * 32 ^ lane ^ register", reg, row_major,
        ...     [4, 32], 32).status)
        refuted
    """
    from llverify.layout import LinearLayout
    from llverify.prove import prove_equal

    if unit not in ("element", "byte"):
        raise LayoutError(f"Argument 'unit' must be 'element' or 'byte', not {unit!r}.")
    # the identity register order (no vector permutation): formulas index registers as the
    # register layout does
    from llverify.arguments import layout_argument
    from llverify.layout_utils import action_remove_broadcasted_regs

    reg = layout_argument(register_layout, shape, "register_layout")
    reg = action_remove_broadcasted_regs(reg).apply(reg)
    shared = layout_argument(shared_layout, shape, "shared_layout")
    plain = reg.invert_and_compose(shared)
    ins = [d for d in ("register", "lane", "warp") if plain.has_in_dim(d)]
    plain = plain.sublayout(ins, ["offset"])
    if unit == "byte":
        scale = element_bits // 8
        bases = [(d, [[b[0] * scale] for b in bs]) for d, bs in plain.bases]
        plain = LinearLayout.from_bases(
            bases, ["offset"], [plain.get_out_dim_size("offset") * scale], False
        )
    return prove_equal(plain, {"offset": formula})


def prove_offset_formula(
    formula: str,
    shared_layout: Any,
    shape: Sequence[int],
    element_bits: int = 8,
    unit: str = "element",
) -> Verdict:
    """Prove an index map from tensor coordinates to shared-memory offsets, given as formula
    text over the tensor dims (``dim0``, ``dim1``, ...; ``unit="byte"`` for byte offsets of
    ``element_bits`` elements), equal to the offset at which ``shared_layout`` stores each
    element, for every element.

    Examples:
        >>> from llverify.encodings import SwizzledSharedLayout
        >>> # Triton's SwizzledSharedEncodingAttr description: phase = row % maxPhase,
        >>> # vectors of `vec` columns XOR-ed with the phase
        >>> print(prove_offset_formula("dim0 * 64 + ((dim1 // 8) ^ (dim0 % 8)) * 8 + dim1 % 8",
        ...     SwizzledSharedLayout(8, 1, 8, [1, 0]), [64, 64]).status)
        proved
    """  # noqa: D205
    from llverify.arguments import layout_argument
    from llverify.layout import LinearLayout
    from llverify.prove import prove_equal

    if unit not in ("element", "byte"):
        raise LayoutError(f"Argument 'unit' must be 'element' or 'byte', not {unit!r}.")
    shared = layout_argument(shared_layout, shape, "shared_layout")
    if shared.has_in_dim("block") and shared.get_in_dim_size("block") > 1:
        raise LayoutError("prove_offset_formula: one CTA (block size 1) only.")
    offsets = shared.sublayout(["offset"], shared.get_out_dim_names()).invert()
    if unit == "byte":
        scale = element_bits // 8
        if scale < 1:
            raise LayoutError(f"byte offsets need element_bits >= 8, not {element_bits}.")
        bases = [(d, [[b[0] * scale] for b in bs]) for d, bs in offsets.bases]
        offsets = LinearLayout.from_bases(
            bases, ["offset"], [offsets.get_out_dim_size("offset") * scale], False
        )
    return prove_equal(offsets, {"offset": formula})
