"""What every audit rule works with: the parsed module, cached layouts, and the findings.

A rule (:class:`Rule`) is a named check of the operations it applies to.  It reads layouts
through :class:`AuditContext` (cached per encoding and shape) and records one
:class:`Finding` per checked operation with :meth:`AuditContext.finding`, or says why it
could not check one with :meth:`AuditContext.skip`; the coverage report is built from both.

Examples:
    >>> from llverify.ttgir import parse_module
    >>> module = parse_module('''#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... module attributes {"ttg.num-warps" = 4 : i32} {
    ...   %1 = ttg.convert_layout %0 : tensor<64x64xf16, #b> -> tensor<64x64xf16, #b>
    ... }''')
    >>> ctx = AuditContext(module, "nvidia", timeout_s=10.0)
    >>> op = module.ops[0]
    >>> ctx.layout(op.types[0]).get_in_dim_size("warp")
    4
    >>> f = ctx.finding(op, Severity.OK, "looked at it", rule="example")
    >>> f.rule, f.to_dict()["status"]
    ('example', <Severity.OK: 'ok'>)
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from llverify.proof.verdict import Status
from llverify.ttgir import Operation, TTGIRModule, Type

__all__ = [
    "AuditContext",
    "Finding",
    "Rule",
    "Severity",
    "Skip",
    "carries_layout",
    "layout_sensitive",
]


class Severity(str, Enum):
    """The status of a finding that has no verdict: an access costed, a hygiene check.

    Beside it a finding's status is a :class:`~llverify.proof.verdict.Status`: PROVED, REFUTED or
    UNKNOWN for a proof, ERROR for an operation not analysed or found wrong.

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
    """One check of one operation by one rule: its status, summary and cost.

    ``status``: a proof's verdict (``Status.PROVED``/``REFUTED``/``UNKNOWN``), a
    :class:`Severity` (``OK``/``WARNING``), or ``Status.ERROR`` (not analysed, or found wrong:
    the summary says why, ``data`` holds the counterexample).
    """

    op: str
    line: int
    location: str
    status: Status | Severity
    summary: str
    rule: str = ""
    cost: int = 0  # wavefronts (shared memory) or shuffle rounds: the sort key
    conflicts: int = 0  # the largest hardware conflicts per wavefront of its accesses
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "line": self.line,
            "location": self.location,
            "rule": self.rule,
            "status": self.status,
            "summary": self.summary,
            "cost": self.cost,
            "conflicts": self.conflicts,
            "data": self.data,
        }


@dataclass(frozen=True)
class Skip:
    """An operation a rule applies to but could not check, and why."""

    op: str
    line: int
    location: str
    rule: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "line": self.line,
            "location": self.location,
            "rule": self.rule,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Rule:
    """A named audit check: ``check(ctx, op)`` runs on every operation named in ``ops`` (in
    module order) and records findings (or skips) through ``ctx``; ``finish(ctx)``, when
    given, runs once afterwards (checks that pair operations); ``summary`` says what it
    proves."""

    name: str
    ops: frozenset[str]
    check: Callable[[AuditContext, Operation], None]
    summary: str
    finish: Callable[[AuditContext], None] | None = None


def carries_layout(op: Operation) -> bool:
    """Whether ``op`` mentions a distributed tensor (a ``tensor<...>`` with an encoding) or a
    shared-memory descriptor: the operations module-consistency checks."""
    for t in op.types:
        if t.kind == "memdesc" or (t.encoding and t.kind == "tensor"):
            return True
    return False


#: operations whose meaning depends on no layout although they carry one: control flow, and
#: freeing a buffer
_NEUTRAL_PREFIXES = (
    "scf.",
    "cf.",
    "tt.return",
    "ttg.local_dealloc",
    "ttg.async_wait",
    "ttng.warp_group_dot_wait",  # waits for wgmma results: passes its operands through
)


def layout_sensitive(op: Operation, rule_ops: frozenset[str] = frozenset()) -> bool:
    """Whether ``op``'s meaning depends on its layouts: the operations the coverage report
    counts.  Any operation a rule applies to (``rule_ops``), and any other that carries a
    layout unless it is elementwise (all its tensor types share one encoding and shape:
    ``arith.addf``, ``tt.splat``, ``tt.addptr``), control flow, a wait, or an allocation
    without a value.

    >>> from llverify.ttgir import parse_module
    >>> module = parse_module(\'\'\'#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
    ... #c = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
    ... module attributes {"ttg.num-warps" = 4 : i32} {
    ...   %1 = arith.addf %0, %0 : tensor<128xf32, #b>
    ...   %2 = tt.expand_dims %1 {axis = 0 : i32} : tensor<128xf32, #b> -> tensor<1x128xf32, #c>
    ... }\'\'\')
    >>> [layout_sensitive(op) for op in module.ops]
    [False, True]
    """  # noqa: E501
    if op.name == "ttg.local_alloc" and not any(t.kind == "tensor" for t in op.types):
        return False  # an allocation without a value: its layout matters where it is accessed
    if op.name in rule_ops:
        return True
    if not carries_layout(op) or op.name.startswith(_NEUTRAL_PREFIXES):
        return False
    if any(t.kind == "memdesc" for t in op.types):
        return True
    return len({(t.encoding, t.shape) for t in op.types if t.encoding}) > 1


class AuditContext:
    """The module being audited, its layouts (cached), value definitions and the findings."""

    def __init__(self, module: TTGIRModule, target: str | None, timeout_s: float) -> None:
        self.module = module
        #: the bank model's target ("nvidia", "gfx942", "gfx950"), or None when the module's
        #: target has none (the costing rules then skip, saying ``no_bank_model``)
        self.target = target
        self.no_bank_model = ""
        self.timeout_s = timeout_s
        self.findings: list[Finding] = []
        self.skips: list[Skip] = []
        #: (operation line, operation name) -> the rules that checked it
        self.covered: dict[tuple[int, str], set[str]] = {}
        #: per-rule scratch state (keyed by rule name), for rules with a ``finish`` step
        self.state: dict[str, Any] = {}
        self._layouts: dict[tuple[str, tuple[int, ...]], Any] = {}
        self._shared_layouts: dict[tuple[str, tuple[int, ...]], Any] = {}
        #: a memdesc encoding's text -> what it reads as (the text itself when the form
        #: carries a shape, which each shape asked for is checked against)
        self._shared_encodings: dict[str, Any] = {}
        #: SSA value -> the operation that defines it (block arguments have none)
        self.definitions: dict[str, Operation] = {
            result: op for op in module.ops for result in op.results
        }
        #: SSA value -> the operations that use it, in module order
        self.uses: dict[str, list[Operation]] = {}
        for op in module.ops:
            for operand in dict.fromkeys(op.operands):
                self.uses.setdefault(operand, []).append(op)

    def layout(self, info: Type) -> Any:
        """The LinearLayout of a distributed tensor type (cached)."""
        key = (info.encoding, info.shape)
        if key not in self._layouts:
            from llverify.encodings import to_linear_layout

            self._layouts[key] = to_linear_layout(info.encoding, list(info.shape))
        return self._layouts[key]

    def shared_layout(self, encoding: str, shape: tuple[int, ...]) -> Any:
        """A memdesc's shared layout on a tensor of ``shape``: a LinearLayout, or a
        PaddedLayout for a padded shared layout (cached)."""
        key = (encoding, shape)
        if key not in self._shared_layouts:
            from llverify.arguments import layout_object, layout_value

            # the encoding's text is read once per audit, whatever the shapes asked for
            parsed = self._shared_encodings.get(encoding)
            if parsed is None:
                obj, carried = layout_object(encoding, "shared")
                parsed = self._shared_encodings[encoding] = obj if carried is None else encoding
            self._shared_layouts[key] = layout_value(parsed, shape, "shared")
        return self._shared_layouts[key]

    def finding(
        self, op: Operation, status: Status | Severity, summary: str, *, rule: str, **kw: Any
    ) -> Finding:
        """Record that ``rule`` checked ``op`` with this outcome."""
        found = Finding(op.name, op.line, op.location, status, summary, rule=rule, **kw)
        self.findings.append(found)
        self.passed(op, rule)
        return found

    def passed(self, op: Operation, rule: str) -> None:
        """Record that ``rule`` checked ``op`` and found nothing worth a finding of its own
        (the coverage report counts it)."""
        self.covered.setdefault((op.line, op.name), set()).add(rule)

    def skip(self, op: Operation, rule: str, reason: str) -> None:
        """Record that ``rule`` applies to ``op`` but could not check it, and why."""
        self.skips.append(Skip(op.name, op.line, op.location, rule, reason))
