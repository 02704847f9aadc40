"""Equality of two emitted values for every input: DAG nodes of the executor as Z3 bit-vectors.

The executor of emitted code (:mod:`llverify.emitted.sim`) builds hash-consed expression
nodes; two different nodes may still hold the same bits on every input (an ``i1`` wrapped in
``trunc``/``zext`` against the bare bit, ``x & 1`` against ``trunc`` to ``i1``).  This module
decides such equalities soundly: integer and bitwise operations are encoded exactly where the
node's byte width fixes their meaning, and everything else (float arithmetic, intrinsics,
operations on one byte whose bit width is unknown, shifts by a variable amount) is an
uninterpreted function of its operands.  An uninterpreted function is still a function, so
"equal" proved here holds for every input on the real operations; "not proved" means nothing.

The DAG is read through three attributes only (``nodes``, ``width``): a node is
``("leaf", buffer, index)``, ``("const", value)``, ``("bytes", symbols)`` or
``(operation, operands...)``; a byte symbol is ``node * 16 + byte``, ``-1 - b`` for the
constant byte ``b``, anything lower for an undefined byte.

Examples:
    >>> class Dag:  # the executor's DAG, reduced to what is read here
    ...     nodes = [("leaf", 0, 0), ("trunc.8.1", 0), ("zext.1.8", 1), ("const", 1),
    ...              ("and", 0, 3), ("const", 2), ("and", 0, 5)]
    ...     width = [1, 1, 1, 1, 1, 1, 1]
    >>> bytes_equal(Dag(), (2, 0), (4, 0))   # zext(trunc x to i1) == x & 1
    True
    >>> bytes_equal(Dag(), (2, 0), (6, 0))   # ... but not x & 2
    False
"""

from __future__ import annotations

from typing import Any

import z3

from llverify.smt.solver import check_answer

__all__ = ["BytesEqual", "bytes_equal"]

_SLOTS = 16  # byte symbols per node, as llverify.emitted.sim.symbolic numbers them
_BITWISE = {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}
_ARITHMETIC = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b}
_COMPARE = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "ult": z3.ULT,
    "ule": z3.ULE,
    "ugt": z3.UGT,
    "uge": z3.UGE,
    "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b,
    "sgt": lambda a, b: a > b,
    "sge": lambda a, b: a >= b,
}


def bytes_equal(
    dag: Any,
    first: tuple[int, int],
    second: tuple[int, int],
    *,
    timeout_ms: int = 2000,
    max_nodes: int = 20000,
) -> bool:
    """Whether byte ``first[1]`` of node ``first[0]`` equals byte ``second[1]`` of node
    ``second[0]`` on every input (proved by Z3; False when not proved: different, too large,
    or out of time)."""
    return BytesEqual(dag, timeout_ms=timeout_ms, max_nodes=max_nodes)(first, second)


class BytesEqual:
    """:func:`bytes_equal` for many pairs of bytes of one DAG: one encoder, in one context of
    its own, so that a node under several pairs is encoded once; each pair is one question to
    a solver of its own, over the pair's nodes only (more than ``max_nodes`` of them: not
    proved).

    >>> class Dag:
    ...     nodes = [("leaf", 0, 0), ("trunc.8.1", 0), ("zext.1.8", 1), ("const", 1),
    ...              ("and", 0, 3), ("const", 3), ("and", 0, 5)]
    ...     width = [1, 1, 1, 1, 1, 1, 1]
    >>> equal = BytesEqual(Dag())
    >>> equal((2, 0), (4, 0)), equal((2, 0), (6, 0)), BytesEqual(Dag(), max_nodes=4)((2, 0), (4, 0))
    (True, False, False)
    """

    def __init__(self, dag: Any, *, timeout_ms: int = 2000, max_nodes: int = 20000) -> None:
        self._dag = dag
        self._timeout_ms = timeout_ms
        self._max_nodes = max_nodes
        self._encoder: _Encoder | None = None

    def __call__(self, first: tuple[int, int], second: tuple[int, int]) -> bool:
        if self._encoder is None:
            self._encoder = _Encoder(self._dag)
        encoder = self._encoder
        if encoder.count((first[0], second[0]), self._max_nodes) > self._max_nodes:
            return False
        a = z3.Extract(8 * first[1] + 7, 8 * first[1], encoder.node(first[0]))
        b = z3.Extract(8 * second[1] + 7, 8 * second[1], encoder.node(second[0]))
        solver = z3.Solver(ctx=encoder.context)
        solver.set("timeout", self._timeout_ms)
        solver.add(a != b)
        return check_answer(solver) == z3.unsat


class _Encoder:
    """Nodes of one DAG as Z3 bit-vectors in a context of their own (no shared solver state)."""

    def __init__(self, dag: Any) -> None:
        self.dag = dag
        self.context = z3.Context()
        self.memo: dict[int, z3.BitVecRef] = {}
        self.functions: dict[tuple, z3.FuncDeclRef] = {}
        self.fresh = 0

    def count(self, roots: tuple[int, ...], limit: int) -> int:
        """How many nodes lie under ``roots`` (counted up to ``limit + 1``)."""
        seen: set[int] = set()
        stack = list(roots)
        while stack and len(seen) <= limit:
            n = stack.pop()
            if n not in seen:
                seen.add(n)
                stack.extend(self._children(n))
        return len(seen)

    def node(self, root: int) -> z3.BitVecRef:
        """The bit-vector of node ``root`` (iteratively: DAGs of reductions are deep)."""
        stack = [root]
        while stack:
            n = stack[-1]
            if n in self.memo:
                stack.pop()
                continue
            missing = [m for m in self._children(n) if m not in self.memo]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            self.memo[n] = self._encode(n)
        return self.memo[root]

    def _children(self, n: int) -> list[int]:
        key = self.dag.nodes[n]
        if key[0] in ("leaf", "const"):
            return []
        if key[0] == "bytes":
            return sorted({s // _SLOTS for s in key[1] if s >= 0})
        return list(key[1:])

    def _encode(self, n: int) -> z3.BitVecRef:
        key, bits = self.dag.nodes[n], 8 * self.dag.width[n]
        kind = key[0]
        if kind == "leaf":
            return z3.BitVec(f"leaf{n}", bits, self.context)
        if kind == "const":
            return z3.BitVecVal(int(key[1]) & ((1 << bits) - 1), bits, self.context)
        if kind == "bytes":
            return self._bytes(key[1])
        args = [self.memo[o] for o in key[1:]]
        exact = self._exact(kind, args, bits, key[1:])
        return exact if exact is not None else self._uninterpreted(kind, args, bits)

    def _bytes(self, symbols: tuple[int, ...]) -> z3.BitVecRef:
        parts = []
        for symbol in reversed(symbols):  # Concat takes the most significant byte first
            if symbol >= 0:
                node, byte = divmod(symbol, _SLOTS)
                parts.append(z3.Extract(8 * byte + 7, 8 * byte, self.memo[node]))
            elif symbol >= -256:
                parts.append(z3.BitVecVal(-1 - symbol, 8, self.context))
            else:  # an undefined byte: any value, a new one at each occurrence
                self.fresh += 1
                parts.append(z3.BitVec(f"undefined{self.fresh}", 8, self.context))
        return parts[0] if len(parts) == 1 else z3.Concat(*parts)

    def _exact(
        self, kind: str, args: list[z3.BitVecRef], bits: int, operands: tuple[int, ...]
    ) -> z3.BitVecRef | None:
        """The operation's exact meaning, or None where the node does not fix it."""
        wide = all(a.size() > 8 for a in args)  # a byte may hold an i1 or an i8
        same = len({a.size() for a in args}) == 1 and args and args[0].size() == bits
        if kind in _BITWISE and same and len(args) == 2:
            return _BITWISE[kind](args[0], args[1])
        if kind in _ARITHMETIC and same and wide and len(args) == 2:
            return _ARITHMETIC[kind](args[0], args[1])
        if kind == "select" and len(args) == 3 and args[1].size() == args[2].size() == bits:
            one = z3.BitVecVal(1, args[0].size(), self.context)
            return z3.If(args[0] & one == one, args[1], args[2])
        if kind.startswith("icmp.") and len(args) == 2 and args[0].size() == args[1].size():
            return self._compare(kind[5:], args, bits, wide)
        return self._cast(kind, args, bits)

    def _compare(
        self, predicate: str, args: list[z3.BitVecRef], bits: int, wide: bool
    ) -> z3.BitVecRef | None:
        if predicate not in _COMPARE or not (wide or predicate in ("eq", "ne")):
            return None
        one, zero = (z3.BitVecVal(v, bits, self.context) for v in (1, 0))
        return z3.If(_COMPARE[predicate](args[0], args[1]), one, zero)

    def _cast(self, kind: str, args: list[z3.BitVecRef], bits: int) -> z3.BitVecRef | None:
        """``zext.S.T``/``sext.S.T``/``trunc.S.T`` (bit widths S to T) and ``bit.j``."""
        parts = kind.split(".")
        if len(args) != 1:
            return None
        (value,) = args
        if kind.startswith("bitcast.<") and " x i1>" in kind:  # element k is bit k
            bits_of = [z3.Extract(8 * k, 8 * k, value) for k in reversed(range(value.size() // 8))]
            packed = bits_of[0] if len(bits_of) == 1 else z3.Concat(*bits_of)
            return z3.ZeroExt(bits - packed.size(), packed) if bits > packed.size() else packed
        if parts[0] == "bit" and len(parts) == 2 and parts[1].isdigit():
            j = int(parts[1])
            return z3.ZeroExt(bits - 1, z3.Extract(j, j, value)) if j < value.size() else None
        if parts[0] not in ("zext", "sext", "trunc") or len(parts) != 3:
            return None
        if not (parts[1].isdigit() and parts[2].isdigit()):
            return None
        source, target = int(parts[1]), int(parts[2])
        if source > value.size() or target > bits:
            return None
        low = z3.Extract(min(source, target) - 1, 0, value)
        if parts[0] == "sext" and target > source:
            low = z3.SignExt(target - source, low)
        return z3.ZeroExt(bits - low.size(), low) if bits > low.size() else low

    def _uninterpreted(self, kind: str, args: list[z3.BitVecRef], bits: int) -> z3.BitVecRef:
        signature = (kind, tuple(a.size() for a in args), bits)
        function = self.functions.get(signature)
        if function is None:
            sorts = [z3.BitVecSort(a.size(), self.context) for a in args]
            name = f"{kind}_{len(self.functions)}"
            function = z3.Function(name, *sorts, z3.BitVecSort(bits, self.context))
            self.functions[signature] = function
        if not args:
            return function()
        return function(*args)
