"""Audit a TTGIR module: every layout-carrying operation checked by the rules that apply.

The rules, each a module of this package with a name (see :data:`RULES`):

* ``module-consistency`` (:mod:`~llverify.audit.consistency`): every encoding's warps,
  threads per warp and CTAs equal the module's, and its rank and shape fit the type.  It runs
  first; a module that breaks it is refused (only its errors are reported);
* ``convert-layout`` (:mod:`~llverify.audit.conversions`): conversions proved correct and
  complete, their lowering kind and cost;
* ``shared-access`` (:mod:`~llverify.audit.shared_access`): every register <-> shared
  access costed, the certified optimal layout of a stored-and-loaded buffer;
* ``dot-operand-encoding`` and ``dot-operand-fragment`` (:mod:`~llverify.audit.dot_operands`):
  dot operands are ``dot_op`` encodings of the result's layout with the right ``opIdx``, and
  each register operand's layout is proved equal to the fragment layout of the instruction
  Triton selects (mma.sync, wgmma, MFMA, WMMA); copies along K and kWidth mismatches are errors;
* ``view-layout`` (:mod:`~llverify.audit.memdesc_views`): memdesc index/subslice/trans/reshape
  and AMD extract_slice/concat results are the source's layout restricted, transposed,
  reshaped or tiled; Triton's subslice offset rule;
* ``gather-warp-local`` (:mod:`~llverify.audit.gather`): the path Triton's gather lowering
  takes (warp shuffles or shared memory), the shuffle count, the basis that breaks it;
* ``store-writer`` (:mod:`~llverify.audit.stores`): the representative writer of every
  stored or atomically updated address, i.e. the predicate the lowering must emit;
* ``copies`` (:mod:`~llverify.audit.copies`): the register, lane and warp copies of reduce,
  scan and histogram operands and results, and what the consumers that follow see;
* ``shape-ops`` (:mod:`~llverify.audit.shape_ops`): trans, reshape, join, split, expand_dims
  and broadcast results need no data movement from the operand's layout;
* ``async-copy`` (:mod:`~llverify.audit.async_copy`): the width Triton picks for
  ``ttg.async_copy_global_to_local`` (cp.async, direct-to-LDS loads), its refusals, and the
  cost of the shared writes;
* ``global-coalescing`` (:mod:`~llverify.audit.global_access`): the sectors, lines, vector
  width and efficiency of ``tt.load`` / ``tt.store`` whose addresses the module's pointer
  arithmetic fixes (:mod:`~llverify.audit.pointers`); poorly coalesced ones are warnings.

The report's coverage (:meth:`AuditReport.coverage`) says how many layout-sensitive operations
were checked, by which rules, and lists the others with the reason.

Examples:
    >>> text = '''#b = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    ... #c = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
    ... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    ...   %1 = ttg.convert_layout %0 : tensor<128x64xf16, #b> -> tensor<128x64xf16, #c>
    ...   %2 = arith.addf %1, %1 : tensor<128x64xf16, #c>
    ... }'''
    >>> report = audit(text)
    >>> f = report.findings[0]
    >>> f.op, f.rule, str(f.status), f.data["kind"]
    ('ttg.convert_layout', 'convert-layout', 'proved', 'shared memory')
    >>> report.coverage()["checked"], report.coverage()["layout_ops"]
    (1, 1)
    >>> report.coverage()["by_rule"]
    {'convert-layout': 1, 'module-consistency': 2}
"""  # noqa: E501

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from llverify.audit import (
    async_copy,
    consistency,
    conversions,
    copies,
    dot_operands,
    gather,
    global_access,
    memdesc_views,
    shape_ops,
    shared_access,
    stores,
)
from llverify.audit.context import (
    AuditContext,
    Finding,
    Rule,
    Severity,
    Skip,
    carries_layout,
    layout_sensitive,
)
from llverify.bits import check_timeout, counted
from llverify.errors import LayoutError, LLVerifyError
from llverify.hardware import TARGETS, target_of_triton
from llverify.proof.verdict import Status
from llverify.ttgir import TTGIRModule, parse_module

__all__ = [
    "RULES",
    "AuditReport",
    "Finding",
    "Severity",
    "audit",
    "run_rules",
    "select_rules",
    "target_of",
]

#: every rule, in the order they run (module-consistency first: it can refuse the module)
RULES: tuple[Rule, ...] = (
    *consistency.RULES,
    *conversions.RULES,
    *shared_access.RULES,
    *dot_operands.RULES,
    *copies.RULES,
    *memdesc_views.RULES,
    *gather.RULES,
    *stores.RULES,
    *shape_ops.RULES,
    *async_copy.RULES,
    *global_access.RULES,
)
#: a module of this many lines or more is a long audit: progress lines for each step
LONG_LINES = 20_000
#: the operations some rule other than module-consistency applies to
HANDLED = frozenset(name for rule in RULES for name in rule.ops)


def target_of(module: TTGIRModule, override: str | None = None) -> str:
    """The access-analysis target (a bank model of :data:`llverify.hardware.BANK_MODELS`):
    that of ``override`` (a name in :data:`llverify.hardware.TARGETS`: sm80, sm90, gfx942, ...)
    or of the module's ``ttg.target`` ("cuda:90" -> nvidia, "hip:gfx942" -> gfx942)."""
    if override is not None:
        chosen = TARGETS.get(override)
        if chosen is None or chosen.bank_model is None:
            modelled = [name for name, t in TARGETS.items() if t.bank_model is not None]
            why = " (no shared-memory bank model here)" if chosen is not None else ""
            raise LayoutError(f"--target must be one of {modelled}, not {override!r}{why}.")
        return chosen.bank_model.name
    target = module.target or ""
    if target.startswith("cuda"):
        return "nvidia"
    if target.startswith("hip:"):
        found = target_of_triton(target)
        if found is not None and found.bank_model is not None:
            return found.bank_model.name
        raise LLVerifyError(
            f"the module's target {target!r} has no bank model here; pass --target."
        )
    raise LLVerifyError("the module names no ttg.target; pass --target (e.g. --target sm90).")


@dataclass
class AuditReport:
    """The findings of one audit, what was skipped, and how long it took.

    ``refused``: why the module was refused (it breaks ``module-consistency``), or None.
    """

    target: str
    findings: list[Finding]
    skipped: dict[str, int]  # operation names no rule applies to, with counts
    seconds: float
    lines: int
    covered: dict[tuple[int, str], set[str]]
    skips: list[Skip]
    layout_ops: list[tuple[int, str, str]]  # (line, name, location) of layout-sensitive ops
    refused: str | None = None

    def sorted(self) -> list[Finding]:
        """By cost, most expensive first, then by line."""
        return sorted(self.findings, key=lambda f: (-f.cost, f.line))

    def coverage(self) -> dict[str, Any]:
        """How many layout-sensitive operations (:func:`layout_sensitive`) a rule other
        than module-consistency checked, how many each rule checked (module-consistency:
        every operation that carries a layout), and every unchecked one with the reason."""
        by_rule: dict[str, int] = {}
        for rules in self.covered.values():
            for rule in rules:
                by_rule[rule] = by_rule.get(rule, 0) + 1
        reasons: dict[tuple[int, str], list[str]] = {}
        for skip in self.skips:
            reasons.setdefault((skip.line, skip.op), []).append(f"{skip.rule}: {skip.reason}")
        unchecked = []
        for line, name, location in self.layout_ops:
            rules = self.covered.get((line, name), set()) - {consistency.NAME}
            if rules:
                continue
            why = reasons.get((line, name)) or [
                "module refused"
                if self.refused
                else f"no rule checks {name} (beyond module-consistency)"
            ]
            unchecked.append(
                {"op": name, "line": line, "location": location, "reason": "; ".join(why)}
            )
        return {
            "layout_ops": len(self.layout_ops),
            "checked": len(self.layout_ops) - len(unchecked),
            "by_rule": dict(sorted(by_rule.items())),
            "unchecked": unchecked,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "lines": self.lines,
            "seconds": self.seconds,
            "refused": self.refused,
            "findings": [f.to_dict() for f in self.sorted()],
            "coverage": self.coverage(),
            "skipped_ops": self.skipped,
        }


#: seconds between the progress lines of a long audit
PROGRESS_S = 5.0


def run_rules(
    ctx: AuditContext, rules: tuple[Rule, ...], progress: Callable[[str], None] | None = None
) -> None:
    """Run ``rules`` (in order) on every operation of ``ctx.module`` they apply to, then
    their ``finish`` steps; an :class:`LLVerifyError` becomes an ERROR finding of the rule.
    :func:`audit` is the entry point; this is for benchmarks timing a subset of rules.
    ``progress`` hears how far the run is every :data:`PROGRESS_S` seconds."""
    said, ops = time.monotonic(), ctx.module.ops
    everywhere = any(not rule.ops for rule in rules)  # rules for every op with a layout
    #: (op name, whether it carries a layout) -> the rules that apply, in their order
    applicable: dict[tuple[str, bool], tuple[Rule, ...]] = {}
    for done, op in enumerate(ops):
        if progress is not None and time.monotonic() - said >= PROGRESS_S:
            said = time.monotonic()
            progress(f"audit: {done} of {len(ops)} ops checked ({counted(len(rules), 'rule')})")
        key = (op.name, everywhere and carries_layout(op))
        chosen = applicable.get(key)
        if chosen is None:
            chosen = applicable[key] = tuple(
                rule for rule in rules if key[0] in rule.ops or (not rule.ops and key[1])
            )
        for rule in chosen:
            try:
                rule.check(ctx, op)
            except LLVerifyError as error:
                ctx.finding(op, Status.ERROR, f"not analysed: {error}", rule=rule.name)
    for rule in rules:
        if rule.finish is not None:
            rule.finish(ctx)


def select_rules(names: Sequence[str] | None) -> tuple[Rule, ...]:
    """The rules of :data:`RULES` named in ``names`` (all when None), in their running order;
    module-consistency always runs.

    >>> [rule.name for rule in select_rules(["convert-layout"])]
    ['module-consistency', 'convert-layout']
    >>> select_rules(["convert"])
    Traceback (most recent call last):
    ...
    ValueError: rules=['convert']: unknown rule 'convert'; the rules are ...
    """
    if names is None:
        return RULES
    if isinstance(names, str):
        raise TypeError(f"rules={names!r}: expected a list of rule names, not a string")
    known = {rule.name for rule in RULES}
    for name in names:
        if name not in known:
            raise ValueError(
                f"rules={list(names)!r}: unknown rule {name!r}; the rules are "
                f"{', '.join(rule.name for rule in RULES)}"
            )
    return tuple(r for r in RULES if r.name in names or r.name == consistency.NAME)


def audit(
    text: str,
    target: str | None = None,
    timeout_s: float = 30.0,
    module: Any = None,
    rules: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
    check: bool = False,
) -> AuditReport:
    """Audit a TTGIR module's text (``module``: an already parsed :class:`TTGIRModule`;
    ``check``: refuse a module that is not well formed, :func:`~llverify.ttgir.wellformed.
    check_wellformed`, with a ``ModuleError``).

    Every rule of :data:`RULES` (or those named in ``rules``) runs on the operations it
    applies to; when ``module-consistency`` finds an error the module is refused and no other
    rule runs.  ``progress`` hears each step of a long audit (a module of
    :data:`LONG_LINES` lines or more) and how far the rules are every :data:`PROGRESS_S` s.
    """
    start = time.perf_counter()
    check_timeout(timeout_s, "timeout_s")
    chosen = select_rules(rules)
    say = progress if progress is not None and text.count("\n") >= LONG_LINES else None
    if say is not None:
        say(f"reading the module ({text.count(chr(10)) + 1} lines)")
    parsed = module if module is not None else parse_module(text, check=check)
    try:
        bank_target: str | None = target_of(parsed, target)
        no_bank_model = ""
    except LLVerifyError as error:
        if target is not None:
            raise  # a --target the user gave must be a known one
        bank_target, no_bank_model = None, str(error)
    ctx = AuditContext(parsed, bank_target, timeout_s)
    ctx.no_bank_model = no_bank_model
    first, rest = chosen[0], chosen[1:]
    if say is not None:
        say(f"checking {len(parsed.ops)} ops with {first.name}")
    run_rules(ctx, (first,), say)
    errors = [f for f in ctx.findings if f.status is Status.ERROR]
    refused = None
    if errors:
        refused = f"{len(errors)} operation(s) break {first.name}: nothing else was checked"
    else:
        if say is not None:
            say(f"checking {len(parsed.ops)} ops with {len(rest)} rules")
        run_rules(ctx, rest, say)
    return AuditReport(
        target=ctx.target or f"none ({no_bank_model})",
        findings=ctx.findings,
        skipped=parsed.skipped(set(HANDLED)),
        seconds=time.perf_counter() - start,
        lines=parsed.lines,
        covered=ctx.covered,
        skips=ctx.skips,
        layout_ops=[
            (op.line, op.name, op.location)
            for op in parsed.ops
            if layout_sensitive(op, frozenset(n for r in chosen for n in r.ops))
        ],
        refused=refused,
    )
