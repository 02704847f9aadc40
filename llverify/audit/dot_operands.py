"""Audit rule ``dot-operand-encoding``: the register operands of ``tt.dot`` and
``ttng.warp_group_dot`` are ``dot_op`` encodings with the right ``opIdx`` and the result's
encoding as parent, and build for their shapes.

Examples:
    >>> from llverify.audit.analyze import audit
    >>> text = '''#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
    ...   %3 = tt.dot %1, %2, %0 : tensor<64x32xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>> -> tensor<64x64xf32, #mma>
    ... }'''
    >>> f = audit(text).findings[0]
    >>> f.rule, str(f.status), f.data["problems"][0][:38]
    ('dot-operand-encoding', 'error', 'operand 0 has the wrong opIdx: #ttg.do')
"""  # noqa: E501

from __future__ import annotations

from llverify.audit.context import AuditContext, Rule, Severity
from llverify.audit.module import Operation
from llverify.verdict import Status

__all__ = ["RULES"]

NAME = "dot-operand-encoding"


def check_dot_encodings(ctx: AuditContext, op: Operation) -> None:
    """Each register operand is ``dot_op<opIdx = its position, parent = the result's>``."""
    tensors = [t for t in op.types if t.kind in ("tensor", "memdesc")]
    if len(tensors) < 3:
        ctx.skip(op, NAME, "could not read the operand and result types")
        return
    result = tensors[-1].encoding
    problems = []
    for index, operand in enumerate(tensors[:2]):
        if operand.kind == "memdesc":
            continue  # wgmma reads this operand from shared memory
        enc = operand.encoding
        if not enc.startswith("#ttg.dot_op<"):
            problems.append(f"operand {index} is not a dot operand encoding: {enc[:60]}")
            continue
        if f"opIdx = {index}" not in enc:
            problems.append(f"operand {index} has the wrong opIdx: {enc[:60]}")
        if f"parent = {result}" not in enc:
            problems.append(f"operand {index}'s parent is not the result's encoding")
        ctx.layout(operand)  # the encoding must build for its shape
    status = Status.ERROR if problems else Severity.OK
    summary = "; ".join(problems) or "operand encodings match the instruction's fragments"
    ctx.finding(op, status, summary, rule=NAME, data={"problems": problems})


RULES = (
    Rule(
        NAME,
        frozenset({"tt.dot", "ttng.warp_group_dot"}),
        check_dot_encodings,
        "register operands are dot_op encodings of the result's layout with the right opIdx",
    ),
)
