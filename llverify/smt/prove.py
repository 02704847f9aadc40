"""The Z3 queries of :func:`llverify.prove.prove_equal`: is the reference GF(2)-affine, and
does it differ from the layout on some input."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import z3

from llverify.layout import LinearLayout
from llverify.proof.formula import Interval
from llverify.smt.encode import encode_layout, input_variables, widen
from llverify.smt.ops import Z3Ops
from llverify.smt.solver import Decision, decide, model_value


class Reference(Protocol):
    """What the queries read of a reference (``llverify.prove``'s normalized reference)."""

    @property
    def out_dims(self) -> tuple[str, ...]: ...

    @property
    def layout(self) -> LinearLayout | None: ...

    def evaluate(
        self, ops: Any, env: Mapping[str, Any], bounds: Mapping[int, Interval] | None = None
    ) -> dict[str, Any]: ...


def _values(model: Any, variables: Mapping[str, Any]) -> dict[str, int]:
    return {n: 0 if v is None else model_value(model, v) for n, v in variables.items()}


def decide_affine(
    layout: LinearLayout,
    ref: Reference,
    width: int,
    bounds: Mapping[int, Interval],
    checked: bool,
    timeout_ms: int,
) -> tuple[Decision, list[dict[str, int]]]:
    """Decide "``ref(x ^ y) == ref(x) ^ ref(y) ^ ref(0)`` for all inputs ``x, y`` of the
    layout, at ``width`` bits (with ``checked``: and nothing overflows)".  A refutation comes
    with the points to replay: ``x``, ``y``, ``x ^ y`` and 0.

    Examples:
        >>> from types import SimpleNamespace as Ref
        >>> ll = LinearLayout.identity_1d(8, "i", "o")
        >>> def evaluate(ops, env, bounds=None):
        ...     return {"o": ops.add(env["i"], ops.const(1))}
        >>> plus_one = Ref(out_dims=("o",), layout=None, evaluate=evaluate)
        >>> decision, points = decide_affine(ll, plus_one, 8, {}, False, 1000)
        >>> print(decision.status, len(points))
        refuted 4
    """
    ops = Z3Ops(width, checked=checked)
    xs = input_variables(layout, "x!")
    ys = input_variables(layout, "y!")
    zero = {name: ops.const(0) for name in xs}
    env_x = {name: widen(v, width) for name, v in xs.items()}
    env_y = {name: widen(v, width) for name, v in ys.items()}
    env_xy = {name: widen(None if v is None else v ^ ys[name], width) for name, v in xs.items()}
    r_x = ref.evaluate(ops, env_x, bounds)
    r_y = ref.evaluate(ops, env_y, bounds)
    r_xy = ref.evaluate(ops, env_xy, bounds)
    r_0 = ref.evaluate(ops, zero, bounds)
    mismatch = [r_xy[d] != (r_x[d] ^ r_y[d] ^ r_0[d]) for d in ref.out_dims]
    decision = decide([z3.Or(*mismatch, *ops.overflow_conditions)], timeout_ms)
    if decision.model is None:
        return decision, []
    x, y = _values(decision.model, xs), _values(decision.model, ys)
    return decision, [x, y, {n: x[n] ^ y[n] for n in x}, dict.fromkeys(x, 0)]


def decide_equal(
    layout: LinearLayout,
    ref: Reference,
    width: int,
    bounds: Mapping[int, Interval],
    checked: bool,
    timeout_ms: int,
) -> tuple[Decision, dict[str, int] | None]:
    """Decide "``layout(x) == ref(x)`` for every input ``x``" in one query at ``width`` bits
    (with ``checked``: and the reference never overflows).  A refutation comes with the
    input to replay.

    Examples:
        >>> from types import SimpleNamespace as Ref
        >>> ll = LinearLayout.identity_1d(8, "i", "o")
        >>> print(decide_equal(ll, Ref(out_dims=("o",), layout=ll), 4, {}, False, 1000)[0].status)
        proved
    """
    ops = Z3Ops(width, checked=checked)
    xs = input_variables(layout)
    env = {name: widen(v, width) for name, v in xs.items()}
    mine = encode_layout(layout, xs, width)
    if ref.layout is not None:
        theirs = encode_layout(ref.layout, xs, width)
    else:
        theirs = ref.evaluate(ops, env, bounds)
    mismatch = [mine[d] != theirs[d] for d in layout.get_out_dim_names()]
    decision = decide([z3.Or(*mismatch, *ops.overflow_conditions)], timeout_ms)
    if decision.model is None:
        return decision, None
    return decision, _values(decision.model, xs)
