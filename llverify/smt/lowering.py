"""Lowering proofs in Z3: the ld/st address arithmetic of :mod:`llverify.shared_memory.lowering`
against
the layout's address for every input, and the lemma behind the safe rule."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import z3

from llverify.smt.solver import Decision, decide, model_value

_WIDTH = 40  # wide enough that the add's carry is kept


class AddressModel(Protocol):
    """What the proof reads of a :class:`llverify.shared_memory.lowering.LoweringModel`."""

    @property
    def register_bits(self) -> int: ...

    @property
    def register(self) -> tuple[int, ...]: ...

    @property
    def vector(self) -> tuple[int, ...]: ...

    @property
    def additive_index(self) -> tuple[int, ...]: ...

    @property
    def lane(self) -> tuple[int, ...]: ...

    @property
    def warp(self) -> tuple[int, ...]: ...


def _tree(var: Any, bases: Sequence[tuple[int, int]]) -> Any:
    """XOR of the byte offsets ``b`` whose input bit ``bit`` of ``var`` is set."""
    out = z3.BitVecVal(0, _WIDTH)
    for bit, b in bases:
        selected = z3.Extract(bit, bit, var) == 1
        out = out ^ z3.If(selected, z3.BitVecVal(b, _WIDTH), z3.BitVecVal(0, _WIDTH))
    return out


def decide_lowering(model: AddressModel, timeout_ms: int) -> tuple[Decision, dict[str, int] | None]:
    """Decide "the emitted address ``((L ^ X) + A) ^ V`` equals the layout's XOR of every
    selected basis, for every register, lane and warp"; a refutation comes with its inputs
    (still to be replayed by the caller).

    Examples:
        >>> from types import SimpleNamespace as Model
        >>> carry = Model(register_bits=2, register=(4, 12), vector=(), additive_index=(0,),
        ...               lane=(), warp=())
        >>> decision, point = decide_lowering(carry, 1000)
        >>> decision.status, point
        (<Status.REFUTED: 'refuted'>, {'register': 3, 'lane': 0, 'warp': 0})
    """
    reg = z3.BitVec("register", max(model.register_bits, 1))
    lane = z3.BitVec("lane", max(len(model.lane), 1))
    warp = z3.BitVec("warp", max(len(model.warp), 1))
    regs = list(enumerate(model.register))
    base = _tree(lane, list(enumerate(model.lane))) ^ _tree(warp, list(enumerate(model.warp)))
    xor_part = _tree(
        reg, [(i, b) for i, b in regs if i not in model.vector and i not in model.additive_index]
    )
    additive = _tree(reg, [(i, b) for i, b in regs if i in model.additive_index])
    vector = _tree(reg, [(i, b) for i, b in regs if i in model.vector])
    emitted = ((base ^ xor_part) + additive) ^ vector
    right = base ^ _tree(reg, regs)
    decision = decide([emitted != right], timeout_ms)
    if decision.model is None:
        return decision, None
    point = {
        "register": model_value(decision.model, reg) if model.register_bits else 0,
        "lane": model_value(decision.model, lane) if model.lane else 0,
        "warp": model_value(decision.model, warp) if model.warp else 0,
    }
    return decision, point


def decide_add_xor(width: int, timeout_ms: int) -> Decision:
    """Decide ``a & b == 0 -> a + b == a ^ b`` for every ``width``-bit ``a, b``.

    Examples:
        >>> decide_add_xor(32, 10_000).status
        <Status.PROVED: 'proved'>
    """
    a, b = z3.BitVec("a", width), z3.BitVec("b", width)
    return decide([(a & b) == 0, a + b != a ^ b], timeout_ms)
