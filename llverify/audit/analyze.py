"""Audit a TTGIR module: every layout-relevant operation verified and costed.

* ``ttg.convert_layout``: proved correct (``dst(cvt(x)) == src(x)``) and complete, its kind as
  Triton 3.9 lowers it; through shared memory: the certified optimal swizzle's conflicts,
  vector widths and wavefronts;
* ``ttg.local_alloc`` with a value, ``ttg.local_store``, ``ttg.local_load``: vector width,
  instructions, bank conflicts (hardware-exact, Triton's count beside it), ldmatrix/stmatrix;
  for a buffer both stored and loaded from registers: the certified optimal shared layout for
  that pair and the predicted saving in wavefronts;
* ``tt.dot`` / ``ttng.warp_group_dot``: operand encodings consistent with the instruction
  (``dot_op`` of the result's encoding, operand index in its position);
* ``tt.reduce`` / ``tt.scan`` / ``tt.store`` over layouts whose lanes or warps hold copies:
  flagged with the duplicated bits (a value could be counted or written more than once
  unless the lowering skips the copies).

Examples:
    >>> text = '''#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... #c = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    ...   %1 = ttg.convert_layout %0 : tensor<128x64xf16, #b> -> tensor<128x64xf16, #c>
    ... }'''
    >>> report = audit(text)
    >>> f = report.findings[0]
    >>> f.op, str(f.status), f.data["kind"], f.data["swizzle"]["load_conflicts"]
    ('ttg.convert_layout', 'proved', 'shared memory', 0)
"""  # noqa: E501

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from llverify.audit.module import Operation, TTGIRModule, TypeInfo, parse_module
from llverify.bits import check_timeout, counted
from llverify.errors import LLVerifyError
from llverify.verdict import Status

__all__ = ["AuditReport", "Finding", "Severity", "audit", "target_of"]

HANDLED = {
    "ttg.convert_layout",
    "ttg.local_alloc",
    "ttg.local_store",
    "ttg.local_load",
    "tt.dot",
    "ttng.warp_group_dot",
    "tt.reduce",
    "tt.scan",
    "tt.store",
}
#: --target values -> access-analysis targets
TARGETS = {
    "sm80": "nvidia", "sm86": "nvidia", "sm89": "nvidia", "sm90": "nvidia", "sm100": "nvidia",
    "sm120": "nvidia", "gfx942": "gfx942", "gfx950": "gfx950",
}  # fmt: skip


def target_of(module: TTGIRModule, override: str | None = None) -> str:
    """The access-analysis target: ``override`` (sm80/sm90/sm100/gfx942/gfx950) or the
    module's ``ttg.target`` ("cuda:90" -> nvidia, "hip:gfx942" -> gfx942)."""
    if override is not None:
        if override not in TARGETS:
            raise LLVerifyError(f"--target must be one of {sorted(TARGETS)}, not {override!r}.")
        return TARGETS[override]
    target = module.target or ""
    if target.startswith("cuda"):
        return "nvidia"
    if target.startswith("hip:"):
        arch = target.split(":", 1)[1]
        if arch in TARGETS:
            return TARGETS[arch]
        raise LLVerifyError(
            f"the module's target {target!r} has no bank model here; pass --target."
        )
    raise LLVerifyError("the module names no ttg.target; pass --target (e.g. --target sm90).")


class Severity(str, Enum):
    """The status of a finding that has no verdict: an access costed, a hygiene check.

    Beside it a finding's status is a :class:`~llverify.verdict.Status`: PROVED, REFUTED or
    UNKNOWN for a conversion's proofs, ERROR for an operation not analysed or found wrong.

    Examples:
        >>> Severity.WARNING == "warning", str(Severity.OK)
        (True, 'ok')
    """

    OK = "ok"  # nothing to improve
    WARNING = "warning"  # works, but costs (bank conflicts) or may misbehave (copies)

    def __str__(self) -> str:
        return self.value


@dataclass
class Finding:
    """One audited operation: what was checked, its status and cost.

    ``status``: a conversion's verdict (``Status.PROVED``/``REFUTED``/``UNKNOWN``), a
    :class:`Severity` (``OK``/``WARNING``) for the other operations, or ``Status.ERROR`` (not
    analysed, mismatched dot operands, an address Triton computes wrongly).
    """

    op: str
    line: int
    location: str
    status: Status | Severity
    summary: str
    cost: int = 0  # wavefronts (shared memory) or shuffle rounds: the sort key
    conflicts: int = 0  # the largest hardware conflicts per wavefront of its accesses
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "line": self.line,
            "location": self.location,
            "status": self.status,
            "summary": self.summary,
            "cost": self.cost,
            "conflicts": self.conflicts,
            "data": self.data,
        }


@dataclass
class AuditReport:
    target: str
    findings: list[Finding]
    skipped: dict[str, int]
    seconds: float
    lines: int

    def sorted(self) -> list[Finding]:
        """By cost, most expensive first, then by line."""
        return sorted(self.findings, key=lambda f: (-f.cost, f.line))

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "lines": self.lines,
            "seconds": self.seconds,
            "findings": [f.to_dict() for f in self.sorted()],
            "skipped_ops": self.skipped,
        }


class _Auditor:
    def __init__(self, module: TTGIRModule, target: str, timeout_s: float) -> None:
        self.module = module
        self.target = target
        self.timeout_s = timeout_s
        self.layouts: dict[tuple[str, tuple[int, ...]], Any] = {}
        self.shared_layouts: dict[tuple[str, tuple[int, ...]], Any] = {}
        self.memdesc_base: dict[str, str] = {}  # memdesc value -> its allocation
        self.stores: dict[str, list[tuple[Operation, TypeInfo, TypeInfo]]] = {}
        self.loads: dict[str, list[tuple[Operation, TypeInfo, TypeInfo]]] = {}
        self.findings: list[Finding] = []

    # --- helpers --------------------------------------------------------------------

    def layout(self, info: TypeInfo) -> Any:
        key = (info.encoding, info.shape)
        if key not in self.layouts:
            from llverify.encodings import to_linear_layout

            self.layouts[key] = to_linear_layout(info.encoding, list(info.shape))
        return self.layouts[key]

    def shared_layout(self, encoding: str, shape: tuple[int, ...]) -> Any:
        """A memdesc's shared layout on a tensor of ``shape``: a LinearLayout, or a
        PaddedLayout for a padded shared layout."""
        key = (encoding, shape)
        if key not in self.shared_layouts:
            from llverify.arguments import layout_value

            self.shared_layouts[key] = layout_value(encoding, shape, "shared")
        return self.shared_layouts[key]

    def finding(self, op: Operation, status: Status | Severity, summary: str, **kw: Any) -> Finding:
        f = Finding(op.name, op.line, op.location, status, summary, **kw)
        self.findings.append(f)
        return f

    def base(self, value: str) -> str:
        seen = set()
        while value in self.memdesc_base and value not in seen:
            seen.add(value)
            value = self.memdesc_base[value]
        return value

    # --- operations -----------------------------------------------------------------

    def run(self) -> None:
        for op in self.module.ops:
            try:
                self.visit(op)
            except LLVerifyError as error:
                self.finding(op, Status.ERROR, f"not analysed: {error}")
        self.pair_buffers()

    def visit(self, op: Operation) -> None:
        tensors = [t for t in op.types if t.kind == "tensor"]
        memdescs = [t for t in op.types if t.kind == "memdesc"]
        if op.name not in HANDLED:
            if op.results and memdescs and op.operands and op.name.startswith("ttg.memdesc"):
                self.memdesc_base[op.results[0]] = op.operands[0]  # views of a buffer
            return
        if op.name == "ttg.convert_layout" and len(tensors) >= 2:
            self.convert(op, tensors[0], tensors[-1])
        elif op.name in ("ttg.local_alloc", "ttg.local_store") and tensors and memdescs:
            buffer = op.results[0] if op.name == "ttg.local_alloc" else op.operands[-1]
            self.access(op, tensors[0], memdescs[0], "store", self.base(buffer))
        elif op.name == "ttg.local_load" and tensors and memdescs:
            self.access(op, tensors[-1], memdescs[0], "load", self.base(op.operands[0]))
        elif op.name in ("tt.dot", "ttng.warp_group_dot"):
            self.dot(op)
        elif op.name in ("tt.reduce", "tt.scan", "tt.store") and tensors:
            self.duplicates(op, tensors[0] if op.name != "tt.store" else tensors[-1])

    def convert(self, op: Operation, src: TypeInfo, dst: TypeInfo) -> None:
        from llverify.conversion import Conversion

        conv = Conversion(self.layout(src), self.layout(dst))
        verify, coverage = conv.verify(), conv.coverage()
        status = Status.weakest([verify.status, coverage.status])
        data: dict[str, Any] = {"kind": conv.kind, "verify": str(verify), "coverage": str(coverage)}
        cost = conflicts = 0
        summary = f"{conv.kind}; correct and complete: {status}"
        failed = [v for v in (verify, coverage) if not v.proved]
        if failed:  # why: the claim and its counterexample (or the solver's answer)
            summary += f" ({failed[0].claim}: {failed[0]})"
        bits = src.bits
        if conv.kind == "shared memory" and status is Status.PROVED and bits:
            from llverify.swizzle import synthesize_swizzle

            result = synthesize_swizzle(
                conv.src, conv.dst, list(src.shape), bits, self.target, timeout_s=self.timeout_s
            )
            c = result.cost
            cost = c.total_wavefronts
            data["swizzle"] = {
                "store_vector_bits": c.vector_bits[0],
                "load_vector_bits": c.vector_bits[1],
                "store_conflicts": c.store_conflicts,
                "load_conflicts": c.load_conflicts,
                "wavefronts": c.total_wavefronts,
                "certificate": result.certificate.status,
                "offset_bases": result.offset_bases,
            }
            summary += (
                f"; optimal swizzle: {c.vector_bits[0]}/{c.vector_bits[1]}-bit vectors, "
                f"{c.store_conflicts}/{c.load_conflicts} conflicts, {cost} wavefronts "
                f"(certificate {result.certificate.status})"
            )
            if result.certificate.status == Status.UNKNOWN:
                status = Status.UNKNOWN
        elif conv.kind == "warp shuffle" and bits:
            plan = conv.shuffle_plan(bits)
            cost = len(plan.rounds)
            data["shuffle_rounds"] = cost
            summary += f"; {cost} shuffle rounds"
        self.finding(op, status, summary, cost=cost, conflicts=conflicts, data=data)

    def access(
        self, op: Operation, tensor: TypeInfo, memdesc: TypeInfo, direction: str, buffer: str
    ) -> None:
        from llverify.access import access_analysis

        if not tensor.bits:
            raise LLVerifyError(f"unknown element type {tensor.element!r}")
        shape = list(tensor.shape)
        shared = self.shared_layout(memdesc.encoding, tensor.shape)
        a = access_analysis(self.layout(tensor), shared, shape, tensor.bits, self.target)
        bank = a.bank_conflicts
        wavefronts = a.store_wavefronts
        data = {
            "direction": direction,
            "buffer": buffer,
            "access_bits": a.access_bits,
            "instructions": a.instructions,
            "conflicts": bank.conflicts,
            "triton_conflicts": bank.triton,
            "differs_from_triton": bank.differs,
            "wavefronts": wavefronts,
            "ldmatrix": a.ldmatrix,
            "ldmatrix_trans": a.ldmatrix_trans,
        }
        summary = (
            f"{direction} {a.access_bits}-bit x {a.instructions}, "
            f"{counted(bank.conflicts, 'conflict')} "
            f"(Triton {bank.triton}), {wavefronts} wavefronts"
        )
        if bank.differs:
            summary += f"; hardware differs from Triton: {bank.reason}"
        status: Status | Severity = Severity.WARNING if bank.conflicts else Severity.OK
        if a.triton_miscompile is not None:
            data["triton_miscompile"] = a.triton_miscompile
            summary += (
                f"; Triton's ld/st lowering computes a wrong address here (inputs "
                f"{a.triton_miscompile}: an added register stride carries into an XOR-applied "
                "one; llverify.lowering)"
            )
            status = Status.ERROR
        if direction == "load" and (a.ldmatrix or a.ldmatrix_trans) and self.target == "nvidia":
            summary += "; ldmatrix" + (".trans" if not a.ldmatrix else "") + " applies"
        self.finding(op, status, summary, cost=wavefronts, conflicts=bank.conflicts, data=data)
        book = self.stores if direction == "store" else self.loads
        book.setdefault(buffer, []).append((op, tensor, memdesc))

    def pair_buffers(self) -> None:
        """A buffer stored from and loaded to registers: the certified optimal layout for
        that pair, and the saving against the current one."""
        from llverify.swizzle import synthesize_swizzle

        for buffer, stores in self.stores.items():
            loads = self.loads.get(buffer)
            if not loads:
                continue  # read by an MMA instruction from shared memory: its layout is fixed
            if any(t.encoding.startswith("#ttg.dot_op") for _, t, _ in loads):
                continue  # a dot operand: Triton loads it with ldmatrix or MMA-specific code
            (store_op, s_tensor, _), (load_op, l_tensor, _) = stores[0], loads[0]
            if s_tensor.shape != l_tensor.shape or not s_tensor.bits:
                continue
            current = sum(
                f.cost
                for f in self.findings
                if f.data.get("buffer") == buffer and f.line in (store_op.line, load_op.line)
            )
            result = synthesize_swizzle(
                self.layout(s_tensor),
                self.layout(l_tensor),
                list(s_tensor.shape),
                s_tensor.bits,
                self.target,
                timeout_s=self.timeout_s,
            )
            best = result.cost.total_wavefronts
            for f in self.findings:
                if f.data.get("buffer") == buffer and f.line in (store_op.line, load_op.line):
                    f.data["better_layout"] = {
                        "current_wavefronts": current,
                        "optimal_wavefronts": best,
                        "saving": max(0, current - best),
                        "certificate": result.certificate.status,
                        "offset_bases": result.offset_bases,
                        "store_vector_bits": result.cost.vector_bits[0],
                        "load_vector_bits": result.cost.vector_bits[1],
                    }
                    if best < current:
                        f.summary += (
                            f"; a certified better shared layout saves {current - best} of "
                            f"{current} wavefronts (store+load)"
                        )

    def dot(self, op: Operation) -> None:
        tensors = [t for t in op.types if t.kind in ("tensor", "memdesc")]
        if len(tensors) < 3:
            raise LLVerifyError("could not read the operand and result types")
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
            self.layout(operand)  # the encoding must build for its shape
        status = Status.ERROR if problems else Severity.OK
        summary = "; ".join(problems) or "operand encodings match the instruction's fragments"
        self.finding(op, status, summary, data={"problems": problems})

    def duplicates(self, op: Operation, tensor: TypeInfo) -> None:
        if not tensor.encoding:
            return
        layout = self.layout(tensor)
        masks = {
            d: m for d, m in layout.get_free_variable_masks().items() if m and d in ("lane", "warp")
        }
        if not masks:
            self.finding(op, Severity.OK, "no lane or warp holds a copy of another's elements")
            return
        what = "written" if op.name == "tt.store" else "counted"
        text = ", ".join(f"{d} bits 0b{m:b}" for d, m in masks.items())
        self.finding(
            op,
            Severity.WARNING,
            f"{text} hold copies: each element could be {what} more than once unless the "
            "lowering skips the copies",
            data={"duplicated": masks},
        )


def audit(
    text: str, target: str | None = None, timeout_s: float = 30.0, module: Any = None
) -> AuditReport:
    """Audit a TTGIR module's text (``module``: an already parsed :class:`TTGIRModule`)."""
    start = time.perf_counter()
    check_timeout(timeout_s, "timeout_s")
    parsed = module if module is not None else parse_module(text)
    auditor = _Auditor(parsed, target_of(parsed, target), timeout_s)
    auditor.run()
    return AuditReport(
        target=auditor.target,
        findings=auditor.findings,
        skipped=parsed.skipped(HANDLED),
        seconds=time.perf_counter() - start,
        lines=parsed.lines,
    )
