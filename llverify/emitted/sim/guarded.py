"""Branches on tagged data whose region touches memory or loops: run under a path condition.

A branch on tagged data whose region (the blocks up to its immediate post-dominator) only
computes is if-converted (:meth:`~llverify.emitted.sim.control.ControlFlow._if_convert`).
Any other region is *run under a guard* (:class:`GuardedControl`): the threads walk each way
of the branch with that way's condition as their *guard*, a path condition (an ``i1`` DAG
node per thread).  The walk follows a branch that is concrete as the SIMT walk does (a loop
with a concrete trip count runs, divergent threads meet at the branch's immediate
post-dominator) and splits again at a nested branch on tagged data (each way's guard the
conjunction of the guard and the way's condition; a thread whose condition is built from
constants alone takes its own way, :func:`closed_value`).  Each way that reaches a join
arrives with the values its phis take from it; a phi there is a ``select`` over the ways'
conditions (exactly one holds in each thread that gets there), as if-conversion makes it.

Under a guard, what an instruction does need only be right where the guard holds, and an
access need only be safe there.  Modelled (:class:`~llverify.emitted.sim.access.MemoryAccess`
makes the accesses):

* instructions that only compute (those if-conversion allows) and no-op intrinsics
  (``llvm.lifetime``, ``llvm.assume``...);
* loads of the module's constant tables (read-only and initialised), in bounds;
* private memory (allocas): a store under guard ``g`` over written bytes writes
  ``select(g, new, old)``; bytes it is the first to write are *conditionally written* (under
  ``g``), and only a read where ``g`` is known to hold may read them (:func:`implies`: ``g``
  is a conjunct of the reader's guard, or the bytes were written on both ways of a branch),
  any other read is unmodelled;
* an access at an address that depends on tagged data, decided by the address's range under
  the run's assumptions *and the guard's conjuncts*
  (:meth:`~llverify.emitted.sim.ranges.Ranges.under`); a private load there reads a
  ``select`` over every place the range (and the address's alignment, :func:`low_zero_bits`)
  leaves, each of them in bounds and initialised.

Nothing under a guard is refuted: an access out of bounds or a read of bytes never written
there may lie on a path no input takes, so it is unmodelled instead.  So are stores to global
or shared memory, other loads, barriers, atomics, impure calls, device asserts, a way that
ends the kernel, and a loop whose trip count depends on tagged data (a branch on tagged
data met again while its ways run).

Examples:
    >>> from llverify.emitted.sim import Execution, parse_llvm_ir
    >>> text = '''define void @k(ptr addrspace(1) %0, ptr addrspace(1) %1) {
    ... entry:
    ...   %a = alloca [2 x i32], align 4
    ...   %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
    ...   %p = getelementptr i32, ptr addrspace(1) %0, i32 %t
    ...   %x = load i32, ptr addrspace(1) %p, align 4
    ...   %c = icmp ult i32 %x, 2
    ...   br i1 %c, label %in, label %done
    ... in:
    ...   store i32 7, ptr %a, align 4
    ...   %s = getelementptr i32, ptr %a, i32 1
    ...   store i32 %x, ptr %s, align 4
    ...   %q = getelementptr i32, ptr %a, i32 %x
    ...   %v = load i32, ptr %q, align 4
    ...   br label %done
    ... done:
    ...   %r = phi i32 [ %v, %in ], [ 0, %entry ]
    ...   %o = getelementptr i32, ptr addrspace(1) %1, i32 %t
    ...   store i32 %r, ptr addrspace(1) %o, align 4
    ...   ret void
    ... }'''
    >>> run = Execution(parse_llvm_ir(text), "k", threads=1, warp_size=1, shared_bytes=0)
    >>> _ = run.add_input(0, "x", element_bytes=4, count=1)
    >>> out = run.add_output(1, "y", element_bytes=4, count=1)
    >>> run.run()
    >>> run.dag.describe(run.output_nodes(out, 4)[0], depth=2)  # slot 0 holds 7, slot 1 x[0]
    'select(icmp.ult(x[0], 0x2), select(..., 0x7, x[0]), 0x0)'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llverify.emitted.sim.control import ControlFlow, UnmodelledAt, branch_targets
from llverify.emitted.sim.instructions import merge
from llverify.emitted.sim.llvm_ir import Block, Instruction
from llverify.emitted.sim.replay import NotEvaluable, evaluate
from llverify.emitted.sim.symbolic import Dag, Unmodelled, Val, const_bytes

__all__ = ["GuardedControl", "closed_value", "implies", "low_zero_bits"]

#: calls that do nothing to the values or memory the executor models, allowed under a guard
_NO_OPS = ("llvm.lifetime.", "llvm.assume", "llvm.dbg.", "llvm.experimental.noalias")


#: the operations a value built from constants alone is evaluated through: compares, ``fabs``,
#: casts and bitwise ops, exact in :func:`~llverify.emitted.sim.replay.evaluate` (no float
#: arithmetic, whose flushing of subnormals the replay does not share)
_CLOSED = frozenset({"const", "bytes", "and", "or", "xor", "select", "fabs", "nvvm.fabs"})
_CLOSED_FAMILIES = frozenset({"icmp", "fcmp", "zext", "sext", "trunc"})


def closed_value(dag: Dag, node: int) -> int | None:
    """The value of ``node`` when it is built from constants alone (no input element) by
    compares, ``fabs``, casts and bitwise ops, a float compare of no subnormal: a masked load's
    default, ``0.0``, tested by libdevice's ``fabs(x) < 105615.0``; None otherwise.

    >>> dag = Dag()
    >>> zero = dag.const(0, 4)
    >>> small = dag.op("fcmp.ult", (dag.op("nvvm.fabs", (zero,), 4), dag.const(0x47CE4780, 4)), 1)
    >>> closed_value(dag, small)
    1
    >>> closed_value(dag, dag.op("fcmp.olt", (dag.leaf(0, 0, 4), zero), 1)) is None
    True
    """
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        kind = dag.kind(n)
        if kind not in _CLOSED and kind.split(".")[0] not in _CLOSED_FAMILIES:
            return None
        if kind.startswith("fcmp."):
            for operand in dag.operands(n):
                if _subnormal(dag, operand):
                    return None
        if kind.startswith("icmp.s") and dag.width[dag.operands(n)[0]] == 1:
            return None  # a byte may hold an i1, whose sign bit is its only bit
        pieces = dag.pieces(n)
        stack.extend(dag.operands(n))
        stack.extend(s // 16 for s in pieces or () if s >= 0)
        if pieces is not None and any(s < -256 for s in pieces):
            return None  # an undefined byte
    try:
        return evaluate(dag, node, {})
    except NotEvaluable:
        return None


def _subnormal(dag: Dag, node: int) -> bool:
    """Whether the float ``node`` (built from constants) may be a subnormal: its value is not
    known, a subnormal f32 or f64, or a float of another width (f16 and bf16 share it)."""
    mantissa = {4: 23, 8: 52}.get(dag.width[node])
    try:
        value = evaluate(dag, node, {}) if mantissa is not None else None
    except NotEvaluable:
        value = None
    if value is None or mantissa is None:
        return True
    magnitude = value & ((1 << (8 * dag.width[node] - 1)) - 1)
    return magnitude != 0 and magnitude >> mantissa == 0


def _conjuncts(dag: Dag, node: int) -> set[int]:
    """The ``i1`` nodes whose conjunction ``node`` is (its tree of one-byte ``and`` nodes)."""
    found: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if n in found:
            continue
        found.add(n)
        if dag.kind(n) == "and" and dag.width[n] == 1:
            stack.extend(dag.operands(n))
    return found


def implies(dag: Dag, guard: int, condition: int, memo: dict[tuple[int, int], bool]) -> bool:
    """Whether the ``i1`` node ``condition`` holds wherever the ``i1`` node ``guard`` does
    (``guard`` -1: everywhere), as their forms show: ``condition`` is a conjunct of ``guard``,
    a constant true, a conjunction of such, a disjunction with one, or ``(p and c) or (q and not
    c)`` with ``p`` and ``q`` such (the two ways of a branch on ``c``); False when it is not
    shown (the caller does not rely on it).

    >>> dag = Dag()
    >>> a, b, c = (dag.leaf(0, k, 1) for k in range(3))
    >>> guard = dag.op("and", (dag.op("and", (a, b), 1), c), 1)
    >>> memo = {}
    >>> implies(dag, guard, b, memo), implies(dag, guard, dag.op("or", (b, a), 1), memo)
    (True, True)
    >>> implies(dag, a, guard, memo)
    False
    >>> either = dag.op("or", (c, dag.op("xor", (c, dag.const(1, 1)), 1)), 1)
    >>> implies(dag, -1, either, memo), implies(dag, -1, c, memo)
    (True, False)
    """
    key = (guard, condition)
    if key not in memo:
        conjuncts = _conjuncts(dag, guard) if guard >= 0 else set()
        shown: dict[int, bool] = {}
        stack = [condition]
        while stack:  # each node once, after its operands
            n = stack[-1]
            if n in shown:
                stack.pop()
                continue
            kind = dag.kind(n)
            below = [
                o for o in dag.operands(n) if o not in shown and dag.width[n] == 1
            ] if kind in ("and", "or") and n not in conjuncts else []  # fmt: skip
            if below:
                stack.extend(below)
                continue
            stack.pop()
            operands = [shown.get(o, False) for o in dag.operands(n)]
            constant = dag.constant_value(n)
            shown[n] = (
                n in conjuncts
                or (constant is not None and constant & 1 == 1)
                or (kind == "and" and dag.width[n] == 1 and all(operands))
                or (kind == "or" and dag.width[n] == 1 and any(operands))
                or (kind == "or" and dag.width[n] == 1 and _both_ways(dag, n, shown))
            )
        memo[key] = shown[condition]
    return memo[key]


def _both_ways(dag: Dag, node: int, shown: dict[int, bool]) -> bool:
    """Whether ``node`` is ``or(p and c, q and not c)`` with every conjunct of ``p`` and ``q``
    but ``c`` and ``not c`` in ``shown`` as holding (``not c``: ``xor(c, 1)``)."""
    operands = dag.operands(node)
    if len(operands) != 2:
        return False
    sides = [
        [n for n in _conjuncts(dag, side) if not (dag.kind(n) == "and" and dag.width[n] == 1)]
        for side in operands
    ]
    for first, second in (sides, sides[::-1]):
        for c in first:
            negation = [
                d
                for d in second
                if dag.kind(d) == "xor" and set(dag.operands(d)) == {c, dag.const(1, 1)}
            ]
            for d in negation:
                rest = [n for n in first if n != c] + [n for n in second if n != d]
                if all(shown.get(n, False) for n in rest):
                    return True
    return False


def low_zero_bits(dag: Dag, node: int, memo: dict[int, int] | None = None) -> int:
    """How many low bits of ``node`` are zero on every input, as its operations show
    (constants, ``add``, ``sub``, ``mul``, ``shl`` by a constant, ``and``, ``or``, ``xor``,
    ``select``, casts, values assembled from bytes); 0 when none is shown.

    >>> dag = Dag()
    >>> index = dag.leaf(0, 0, 8)
    >>> offset = dag.op("mul", (index, dag.const(4, 8)), 8)
    >>> low_zero_bits(dag, dag.op("add", (dag.const(1 << 59, 8), offset), 8))
    2
    """
    memo = {} if memo is None else memo
    stack = [node]
    while stack:
        n = stack[-1]
        if n in memo:
            stack.pop()
            continue
        below = _zero_bits_below(dag, n)
        missing = [m for m in below if m not in memo]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        memo[n] = min(_zero_bits(dag, n, memo), 8 * dag.width[n])
    return memo[node]


def _zero_bits_below(dag: Dag, node: int) -> list[int]:
    pieces = dag.pieces(node)
    if pieces is not None:
        return sorted({s // 16 for s in pieces if s >= 0})
    return list(dag.operands(node))


def _zero_bits(dag: Dag, node: int, memo: dict[int, int]) -> int:
    """:func:`low_zero_bits` of ``node`` from those of the nodes below it (in ``memo``)."""
    bits = 8 * dag.width[node]
    value = dag.constant_value(node)
    if value is not None:
        value &= (1 << bits) - 1
        return bits if value == 0 else (value & -value).bit_length() - 1
    pieces = dag.pieces(node)
    if pieces is not None:
        total = 0
        for symbol in pieces:
            if -256 <= symbol < 0:
                byte = -1 - symbol
                if byte:
                    return total + (byte & -byte).bit_length() - 1
            elif symbol < 0:
                return total
            else:
                known = memo[symbol // 16] - 8 * (symbol % 16)
                if known < 8:
                    return total + max(known, 0)
            total += 8
        return total
    kind, operands = dag.kind(node), dag.operands(node)
    zeros = [memo[o] for o in operands]
    if kind in ("add", "sub", "or", "xor") and len(zeros) == 2:
        return min(zeros)
    if kind == "mul" and len(zeros) == 2:
        return sum(zeros)
    if kind == "and" and len(zeros) == 2:
        return max(zeros)
    if kind == "shl" and len(zeros) == 2:
        amount = dag.constant_value(operands[1])
        return zeros[0] + amount if amount is not None and amount < bits else 0
    if kind == "select" and len(zeros) == 3:
        return min(zeros[1], zeros[2])
    if kind.split(".")[0] in ("zext", "sext", "trunc") and len(zeros) == 1:
        return zeros[0]
    return 0


def _concrete_rows(value: Val, bit: int) -> np.ndarray:
    """The threads whose ``i1`` ``value`` is the constant ``bit``."""
    if value.ints is not None:
        return np.asarray((value.ints & np.uint64(1)) == np.uint64(bit), dtype=bool)
    assert value.syms is not None
    first = value.syms[:, 0]
    return np.asarray((first < 0) & (first >= -256) & (((-1 - first) & 1) == bit), dtype=bool)


@dataclass
class _Arrival:
    """A way of a region reaching its join: from block ``source``, by the threads of
    ``mask`` whose path condition since the split that owns the join is ``path``, with the
    values the join's phis take from it (by the phi's result name)."""

    source: str
    mask: np.ndarray
    path: Val
    values: dict[str, Val]


class GuardedControl(ControlFlow):
    """The SIMT walk (a part of the :class:`~llverify.emitted.sim.executor.Execution`) that
    runs a branch on tagged data it cannot if-convert under a guard (see the module).
    ``guard``: the path condition of the threads while a region runs, None outside."""

    guard: Val | None

    def _start_control(self) -> None:
        super()._start_control()
        self.guard = None
        self._splitting: set[str] = set()  # the blocks whose branch on tagged data is running

    def _restart_control(self) -> None:
        super()._restart_control()
        self.guard = None
        self._splitting.clear()

    def _branch_on_data(
        self, block: Block, instruction: Instruction, mask: np.ndarray, why: str
    ) -> str:
        """If-convert the branch when its region only computes, else run its region under
        a guard (:meth:`_run_guarded`); unmodelled, naming why, when neither is possible."""
        try:
            return self._if_convert(block, instruction, mask)
        except Unmodelled as region:  # it touches memory or loops: nothing of it was run
            why = f"{why}; not if-converted: {region}"
        try:
            return self._run_guarded(block, instruction, mask)
        except (Unmodelled, UnmodelledAt) as exc:
            raise UnmodelledAt(f"{why}; not run under a guard: {exc}", instruction) from None
        finally:
            self.guard = None

    def _run_guarded(self, block: Block, instruction: Instruction, mask: np.ndarray) -> str:
        """Run the ways of the branch ``instruction`` ending ``block`` under their conditions
        up to its immediate post-dominator, whose phis become selects; the walk goes on there."""
        join = self._ipdom.get(block.label)
        if join is None:
            raise Unmodelled("the branch has no join (its ways end the kernel)")
        true = Val.concrete(1, 1, self.threads)
        arrivals: list[_Arrival] = []
        self._split(block, instruction, mask, true, true, join, arrivals, frozenset())
        self.guard = None
        self._arrive(join, arrivals)
        self._phis_set(join, mask)
        return join

    def _split(
        self,
        block: Block,
        instruction: Instruction,
        mask: np.ndarray,
        guard: Val,
        path: Val,
        stop: str,
        arrivals: list[_Arrival],
        outer: frozenset[str],
    ) -> str | None:
        """The branch on tagged data ending ``block``, met by the threads of ``mask`` under
        ``guard`` on the way to ``stop``: each of its ways walked under the guard and the way's
        condition up to the branch's join.  When the join is ``stop`` the ways arrive in
        ``arrivals`` (their ``path`` conditions extended) and None is returned; else the join's
        phis are set and the join returned, for the walk to go on from there."""
        label = block.label
        if label in self._splitting:
            raise UnmodelledAt(
                "the ways of a branch on tagged data come back to it (a loop whose trip count "
                "depends on tagged data)",
                instruction,
            )
        join = self._ipdom.get(label)
        if join is None:
            raise UnmodelledAt(
                "a branch on tagged data with no join (its ways end the kernel)", instruction
            )
        owned = join == stop
        ways: list[_Arrival] = arrivals if owned else []
        inner = outer if owned else outer | {stop}
        true = Val.concrete(1, 1, self.threads)
        here = self.block_ids[label]
        decided = self._decided(self.value(instruction.operands[0]))
        self._splitting.add(label)
        try:
            for target, condition in self._edge_conditions(instruction, true, decided):
                way = mask & ~_concrete_rows(condition, 0)
                if not way.any():
                    continue
                way_path = self._conjoin(path, condition) if owned else condition
                self.came_from[way] = here
                self._walk(
                    target, label, join, way, self._conjoin(guard, condition), way_path, ways, inner
                )
        finally:
            self._splitting.discard(label)
        if owned:
            return None
        self._arrive(join, ways)
        return join

    def _walk(
        self,
        label: str,
        source: str,
        stop: str,
        mask: np.ndarray,
        guard: Val,
        path: Val,
        arrivals: list[_Arrival],
        outer: frozenset[str],
    ) -> None:
        """Walk from block ``label`` (entered from ``source``) to ``stop`` by the threads of
        ``mask`` under ``guard``, arriving there in ``arrivals``; a block of ``outer`` (the
        joins of the enclosing splits) may not be reached first."""
        phis_set = False
        while label != stop:
            if label in outer:
                raise Unmodelled(
                    f"a way of a branch on tagged data reaches {label} before the branch's "
                    f"join {stop} (control flow that is not structured)"
                )
            self.guard = guard
            block = self.function.block(label)
            terminator = self._run_body(block, mask, phis_set)
            targets = branch_targets(terminator)
            here = self.block_ids[label]
            phis_set = False
            if (
                len(targets) == 2
                and terminator.opcode == "br"
                and any(self._aborting(t) for t in targets)
            ):
                raise UnmodelledAt("a device assert under a guard on tagged data", terminator)
            if len(targets) == 1:
                self.came_from[mask] = here
                source, label = label, targets[0]
                continue
            try:
                ways = self._ways(terminator, mask)
            except Unmodelled:
                joined = self._split(block, terminator, mask, guard, path, stop, arrivals, outer)
                if joined is None:
                    return
                label, phis_set = joined, True
                continue
            self.came_from[mask] = here
            taken = [(target, way) for target, way in ways if way.any()]
            if len(taken) == 1:
                source, label = label, taken[0][0]
                continue
            join = self._ipdom.get(label)
            if join is None:
                raise UnmodelledAt("divergent ways that end the kernel under a guard", terminator)
            if join == stop:
                for target, way in taken:
                    self._walk(target, label, stop, way, guard, path, arrivals, outer)
                return
            met: list[_Arrival] = []
            for target, way in taken:
                self._walk(target, label, join, way, guard, path, met, outer | {stop})
            self._arrive(join, met)
            label, phis_set = join, True
        arrivals.append(self._arrival(stop, source, mask, path))

    def _run_body(self, block: Block, mask: np.ndarray, phis_set: bool) -> Instruction:
        """Run ``block``'s instructions under the guard (its phis unless ``phis_set``, when
        the ways that met there set them); its terminator, a ``br`` or ``switch``."""
        for instruction in block.instructions:
            self._count(instruction)
            opcode = instruction.opcode
            if opcode in ("br", "switch"):
                return instruction
            if opcode == "phi" and phis_set:
                continue
            if opcode in ("ret", "unreachable"):
                raise UnmodelledAt(
                    f"'{opcode}' under a guard on tagged data (a way ends the kernel)", instruction
                )
            if not self._guardable(instruction):
                raise UnmodelledAt(
                    f"{opcode} under a guard on tagged data (modelled there: computation, the "
                    "module's constant tables, private memory)",
                    instruction,
                )
            try:
                self._execute(instruction, mask)
            except Unmodelled as exc:
                raise UnmodelledAt(str(exc), instruction) from None
        raise UnmodelledAt(f"block {block.label} has no terminator", None)

    def _guardable(self, instruction: Instruction) -> bool:
        """Whether ``instruction`` may run under a guard: a load or store (which the memory
        checks, :class:`~llverify.emitted.sim.access.MemoryAccess`), an instruction that only
        computes, or a call that does nothing the executor models."""
        if instruction.opcode in ("load", "store") or self._pure(instruction):
            return True
        callee = str(instruction.extra.get("callee", "")).lstrip("@")
        return instruction.opcode == "call" and callee.startswith(_NO_OPS)

    def _arrival(self, join: str, source: str, mask: np.ndarray, path: Val) -> _Arrival:
        """The threads of ``mask`` reach ``join`` from ``source`` under ``path``: what each of
        the join's phis takes from ``source`` now."""
        values: dict[str, Val] = {}
        for phi in self.function.block(join).instructions:
            if phi.opcode != "phi":
                break
            blocks = phi.extra["blocks"]
            assert isinstance(blocks, tuple) and phi.result is not None
            for operand, block in zip(phi.operands, blocks):
                if str(block) == source:
                    try:
                        values[phi.result] = self.value(operand)
                    except Unmodelled as exc:
                        raise UnmodelledAt(str(exc), phi) from None
                    break
            else:
                raise UnmodelledAt("a phi reached from a block it does not list", phi)
        return _Arrival(source, mask.copy(), path, values)

    def _arrive(self, join: str, arrivals: list[_Arrival]) -> None:
        """Set the phis of ``join`` from the ways that arrived: in each thread, the value of
        the last way it arrived by when no earlier one's path condition holds (exactly one
        holds where the thread runs), ``select``s over the conditions."""
        if not arrivals:
            return
        reached = np.logical_or.reduce([arrival.mask for arrival in arrivals])
        for phi in self.function.block(join).instructions:
            if phi.opcode != "phi":
                break
            assert phi.result is not None
            result: Val | None = None
            has = np.zeros(self.threads, dtype=bool)
            for arrival in reversed(arrivals):
                value = arrival.values[phi.result]
                if result is None:
                    result, has = value, arrival.mask.copy()
                    continue
                try:
                    result = self._choose(arrival.path, value, result, arrival.mask & has)
                except Unmodelled as exc:
                    raise UnmodelledAt(str(exc), phi) from None
                result = merge(arrival.mask & ~has, value, result)
                has |= arrival.mask
            assert result is not None
            self.assign(phi, result, reached)

    def _choose(self, condition: Val, a: Val, b: Val, where: np.ndarray) -> Val:
        """In the threads of ``where``, ``a`` where the ``i1`` ``condition`` holds, else
        ``b`` (a ``select`` node where it is tagged: unmodelled when ``a`` or ``b`` has
        undefined bytes there, which a node would hide); ``b`` elsewhere."""
        out = merge(where & _concrete_rows(condition, 1), a, b)
        tagged = where & ~_concrete_rows(condition, 1) & ~_concrete_rows(condition, 0)
        if tagged.any():
            if a.nbytes > 16:
                raise Unmodelled(f"a {a.bits}-bit phi after a branch on tagged data")
            undefined = (a.byte_symbols() < -256).any(axis=1) | (b.byte_symbols() < -256).any(
                axis=1
            )
            if (undefined & tagged).any():  # a select would hide which bytes are undefined
                raise Unmodelled("a phi of undefined bytes after a branch on tagged data")
            out = merge(tagged, self._apply("select", [condition, a, b], a.nbytes), out)
        return out

    def _decided(self, value: Val) -> Val:
        """``value`` with each thread's node that is built from constants alone replaced by
        its value (:func:`closed_value`): that thread's way is known."""
        if value.syms is None:
            return value
        nodes = self.dag.nodes_of(value)
        syms = value.syms.copy()
        for node in np.unique(nodes).tolist():
            if self.dag.kind(node) == "const":
                continue
            found = closed_value(self.dag, node)
            if found is not None:
                constant = np.array([found], dtype=np.uint64)
                syms[nodes == node] = const_bytes(constant, syms.shape[1])[0]
        return Val(value.bits, syms=syms).normalised()

    def _conjoin(self, a: Val, b: Val) -> Val:
        """``a and b`` of ``i1`` values, per thread: one of them where the other is true."""
        joined = self._apply("and", [a, b])
        joined = merge(_concrete_rows(a, 1), b, joined)
        return merge(_concrete_rows(b, 1), a, joined)
