"""Audit rule ``copies``: ``tt.reduce``, ``tt.scan`` and ``tt.store`` over layouts whose lanes
or warps hold copies of each other's elements (free-variable bits): a value could be counted
or written more than once unless the lowering skips the copies.

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    ...   tt.store %p, %v : tensor<4x8x!tt.ptr<f32>, #b>
    ... }'''
    >>> f = audit(text).findings[0]
    >>> f.rule, str(f.status), f.data["duplicated"]
    ('copies', 'warning', {'warp': 3})
"""  # noqa: E501

from __future__ import annotations

from llverify.audit.context import AuditContext, Rule, Severity
from llverify.audit.module import Operation

__all__ = ["RULES"]

NAME = "copies"


def check_copies(ctx: AuditContext, op: Operation) -> None:
    """Flag the lane and warp bits that hold copies of the operand's elements."""
    tensors = [t for t in op.types if t.kind == "tensor"]
    tensor = tensors[0] if op.name != "tt.store" else (tensors[-1] if tensors else None)
    if tensor is None or not tensor.encoding:
        ctx.skip(op, NAME, "no distributed tensor operand")
        return
    layout = ctx.layout(tensor)
    masks = {
        d: m for d, m in layout.get_free_variable_masks().items() if m and d in ("lane", "warp")
    }
    if not masks:
        ctx.finding(
            op, Severity.OK, "no lane or warp holds a copy of another's elements", rule=NAME
        )
        return
    what = "written" if op.name == "tt.store" else "counted"
    text = ", ".join(f"{d} bits 0b{m:b}" for d, m in masks.items())
    ctx.finding(
        op,
        Severity.WARNING,
        f"{text} hold copies: each element could be {what} more than once unless the "
        "lowering skips the copies",
        rule=NAME,
        data={"duplicated": masks},
    )


RULES = (
    Rule(
        NAME,
        frozenset({"tt.reduce", "tt.scan", "tt.store"}),
        check_copies,
        "lanes or warps holding copies of a reduced, scanned or stored tensor",
    ),
)
