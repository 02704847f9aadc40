"""Tagged values of every thread at once: constant bytes or pieces of hash-consed DAG nodes.

A value held by the T threads of a CTA is a :class:`Val`: either concrete integers (one
``uint64`` per thread, the fast path of index arithmetic) or a ``(T, nbytes)`` array of *byte
symbols*.  A byte symbol is a constant byte ``b`` (encoded ``-1 - b``), the uninitialised byte
:data:`UNDEFINED`, or byte ``k`` of DAG node ``n`` (encoded ``n * 16 + k``).  Moving data
(bitcasts, truncation, byte shifts, ``prmt``, packing into vectors, memory) moves byte
symbols, so a value that crosses shared memory or a shuffle keeps its identity exactly.
Computing on data (``fadd``, ``select`` on a compare, ...) makes a new node of the
:class:`Dag`, canonical only under the real commutativity of the primitive op (operands of a
commutative op are sorted; nothing is reassociated), so two association orders of a
non-associative combine are two different nodes.

Examples:
    >>> dag = Dag()
    >>> a, b = dag.leaf(0, 5, 4), dag.leaf(0, 6, 4)
    >>> dag.op("fadd", (a, b), 4) == dag.op("fadd", (b, a), 4)
    True
    >>> dag.op("fsub", (a, b), 4) == dag.op("fsub", (b, a), 4)
    False
    >>> dag.describe(dag.op("fadd", (a, b), 4))
    'fadd(in0[5], in0[6])'
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from typing import cast

import numpy as np

__all__ = [
    "COMMUTATIVE",
    "SWAPPED",
    "canonical_op",
    "UNDEFINED",
    "Dag",
    "Unmodelled",
    "Val",
    "const_bytes",
    "node_and_byte",
    "without_cyclic_collection",
    "symbols_of",
    "unique_rows",
]

UNDEFINED = -1000  # a byte nobody wrote (poison, undef, uninitialised memory)
_SLOTS = 16  # byte slots per node: values up to 128 bits
_ROWS_REMEMBERED = 4096  # rows of byte symbols whose nodes a Dag remembers (about 25 MiB)
_PLACEHOLDERS = -1  # the buffer of a template's placeholder leaves
_PLAIN_ROWS = 1024  # threads up to which Dag.apply dedups operand rows in Python, not numpy
_LEXSORT_ROWS = 1024  # rows up to which unique_rows sorts them by lexsort, not packed (faster)
_NOT_OPERATIONS = frozenset({"leaf", "const", "bytes"})  # the keys that hold no operand nodes

COMMUTATIVE = frozenset(
    {"fadd", "fmul", "add", "mul", "and", "or", "xor", "maxnum", "minnum", "maximum", "minimum",
     "smax", "smin", "umax", "umin", "fcmp.oeq", "fcmp.une", "fcmp.ueq", "fcmp.one", "icmp.eq",
     "icmp.ne", "fcmp.ord", "fcmp.uno"}
)  # fmt: skip


#: Each compare predicate with its operands swapped (``a < b`` is ``b > a``).
SWAPPED = {
    "olt": "ogt",
    "ogt": "olt",
    "ole": "oge",
    "oge": "ole",
    "ult": "ugt",
    "ugt": "ult",
    "ule": "uge",
    "uge": "ule",
    "slt": "sgt",
    "sgt": "slt",
    "sle": "sge",
    "sge": "sle",
}
_ALIASES = {
    "nvvm.fmax": "maxnum",
    "nvvm.fmin": "minnum",
    "nvvm.fmax.nan": "maximum",
    "nvvm.fmin.nan": "minimum",
    "ptx.max": "maxnum",
    "ptx.min": "minnum",
    "ptx.max.NaN": "maximum",
    "ptx.min.NaN": "minimum",
    "ptx.add": "fadd",
    "ptx.mul": "fmul",
}
_TYPE_SUFFIX = re.compile(r"(\.(?:v\d+)?(?:f|i|bf|b|u|s)\d+|\.f|\.ftz|\.rn|\.p\d+)+$")


def canonical_op(name: str) -> str:
    """The DAG name of an operation however it was spelt (``llvm.maxnum.f32`` and
    ``nvvm.fmax.f`` are ``maxnum``; ``fadd`` stays ``fadd``).

    >>> canonical_op("llvm.maxnum.f32"), canonical_op("llvm.nvvm.fmax.f"), canonical_op("fadd")
    ('maxnum', 'maxnum', 'fadd')
    """
    found = _CANONICAL.get(name)
    if found is not None:
        return found
    spelt = name
    if name.startswith("llvm."):
        name = name[len("llvm.") :]
    stem = _TYPE_SUFFIX.sub("", name) if not name.startswith(("fcmp.", "icmp.")) else name
    found = _CANONICAL[spelt] = _ALIASES.get(stem, stem)
    return found


_CANONICAL: dict[str, str] = {}  # canonical_op of each spelling met so far


_ICMP = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "ult": lambda a, b: a < b,
    "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b,
    "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b,
    "sge": lambda a, b: a >= b,
}  # fmt: skip
_INT_OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "udiv": lambda a, b: a // b, "urem": lambda a, b: a % b,
    "sdiv": lambda a, b: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1),
    "srem": lambda a, b: (abs(a) % abs(b)) * (1 if a >= 0 else -1),
}  # fmt: skip
_BITWISE = frozenset({"and", "or", "xor"})
_SIGNED = frozenset({"sdiv", "srem"})  # truncating towards zero, as LLVM's


class Unmodelled(Exception):  # noqa: N818 - the verdict is unknown, not an error
    """An instruction or a use of a value the executor does not model: the verdict is unknown."""


@contextmanager
def without_cyclic_collection() -> Iterator[None]:
    """Python's cyclic garbage collector off inside the block (on again after it, if it was):
    a run's DAG is millions of tuples that no cycle holds, and each collection walked the
    young ones again (a fifth of a template's validation with the thresholds raised, more
    with them as they were).  Reference counting still frees everything that is not in a
    cycle; no run is held in one (``tests/test_emitted_operands_fast.py``), and what is
    waits for the first collection after the block.

    >>> before = gc.isenabled()
    >>> with without_cyclic_collection():
    ...     gc.isenabled()
    False
    >>> gc.isenabled() == before
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def const_bytes(values: np.ndarray, nbytes: int) -> np.ndarray:
    """The byte symbols of concrete little-endian integers ``values`` (shape (T,)).

    >>> const_bytes(np.array([0x0102], dtype=np.uint64), 2).tolist()
    [[-3, -2]]
    """
    values = np.asarray(values, dtype=np.uint64)
    shifts = (np.arange(nbytes, dtype=np.uint64) * np.uint64(8))[None, :]
    out = (values[:, None] >> shifts) & np.uint64(0xFF) if nbytes <= 8 else None
    if out is None:
        out = np.zeros((values.shape[0], nbytes), dtype=np.uint64)
        out[:, :8] = (values[:, None] >> shifts[:, :8]) & np.uint64(0xFF)
    return -1 - out.astype(np.int64)


def node_and_byte(symbol: int) -> tuple[int, int] | None:
    """The node a byte symbol is a byte of and which byte; None for a constant or undefined
    byte.

    >>> node_and_byte(5 * 16 + 2), node_and_byte(-1)
    ((5, 2), None)
    """
    return (symbol // _SLOTS, symbol % _SLOTS) if symbol >= 0 else None


def symbols_of(nodes: np.ndarray, nbytes: int) -> np.ndarray:
    """The byte symbols of ``nbytes``-byte nodes ``nodes`` (shape (n,)), shape (n, nbytes).

    >>> symbols_of(np.array([2, 5]), 2).tolist()
    [[32, 33], [80, 81]]
    """
    return nodes[:, None] * _SLOTS + np.arange(nbytes, dtype=np.int64)[None, :]


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of the 2-D integer array ``rows`` (sorted) and, for each row, the
    index of its distinct row (``np.unique(rows, axis=0, return_inverse=True)``, with the
    inverse flat; one column, the common case of one-operand ops and 1-byte values, sorts as
    a plain vector, several times faster; up to a thousand rows, a CTA's threads, they are
    sorted by :func:`numpy.lexsort`, above by packing each row into one integer).

    >>> unique, inverse = unique_rows(np.array([[3], [1], [3]]))
    >>> unique.tolist(), inverse.tolist()
    ([[1], [3]], [1, 0, 1])
    >>> unique, inverse = unique_rows(np.array([[3, 0], [1, 2], [3, 0]]))
    >>> unique.tolist(), inverse.tolist()
    ([[1, 2], [3, 0]], [1, 0, 1])
    """
    if rows.ndim != 2:
        raise ValueError(f"rows: expected a 2-D array, got shape {rows.shape}")
    if rows.shape[0] == 1:
        return rows, np.zeros(1, dtype=np.intp)
    if rows.shape[1] == 1:
        unique, inverse = np.unique(rows[:, 0], return_inverse=True)
        return unique[:, None], inverse.reshape(-1)
    if rows.shape[0] <= _LEXSORT_ROWS:
        return _sorted_unique_rows(rows)
    packed = _packed(rows)
    if packed is not None:  # one integer per row, ordered as the rows: a plain vector sort
        distinct, inverse = np.unique(packed[0], return_inverse=True)
        return _unpacked(distinct, *packed[1:]).astype(rows.dtype), inverse.reshape(-1)
    return _sorted_unique_rows(rows)


def _sorted_unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`unique_rows` of rows whose columns do not pack into one integer: the rows
    sorted by :func:`numpy.lexsort` on their columns (the first most significant; several
    times faster than ``np.unique(rows, axis=0)``, which sorts them as structured records
    compared field by field, the same order), runs of equal rows merged.

    >>> unique, inverse = _sorted_unique_rows(np.array([[2**40, -3], [-1, 7], [2**40, -3]]))
    >>> unique.tolist(), inverse.tolist()
    ([[-1, 7], [1099511627776, -3]], [1, 0, 1])
    """
    order = np.lexsort(rows.T[::-1])
    ordered = rows[order]
    first = np.empty(rows.shape[0], dtype=bool)  # where a run of equal rows starts
    first[:1] = True
    first[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse = np.empty(rows.shape[0], dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def _packed(rows: np.ndarray) -> tuple[np.ndarray, list[int], list[int]] | None:
    """Each row of the 2-D integer array ``rows`` as one int64, the columns as digits of a
    mixed radix (the first most significant), so that the packed rows sort as the rows do,
    with each column's lowest value and span (the radix); None when the digits do not fit in
    62 bits or ``rows`` is empty."""
    if rows.size == 0 or rows.dtype.kind != "i":
        return None
    low, high = rows.min(axis=0).tolist(), rows.max(axis=0).tolist()
    spans = [h - lo + 1 for lo, h in zip(low, high)]
    total = 1
    for span in spans:
        total *= span
    if total >= 1 << 62:
        return None
    packed = np.zeros(rows.shape[0], dtype=np.int64)
    for k, span in enumerate(spans):
        packed = packed * span + (rows[:, k].astype(np.int64) - low[k])
    return packed, low, spans


def _unpacked(packed: np.ndarray, low: list[int], spans: list[int]) -> np.ndarray:
    """The rows :func:`_packed` packed into ``packed`` with columns of lowest values ``low``
    and radices ``spans``.

    >>> rows = np.array([[3, -1], [0, 7]])
    >>> _unpacked(*_packed(rows)).tolist()
    [[3, -1], [0, 7]]
    """
    out = np.empty((packed.shape[0], len(spans)), dtype=np.int64)
    rest = packed
    for k in range(len(spans) - 1, -1, -1):
        rest, digit = np.divmod(rest, spans[k])
        out[:, k] = digit + low[k]
    return out


def _or_rows(raw: np.ndarray) -> np.ndarray:
    """The bitwise or of each row of the uint64 array ``raw`` (zero for no columns)."""
    if raw.shape[1] == 0:
        return np.zeros(raw.shape[0], dtype=np.uint64)
    return np.bitwise_or.reduce(raw, axis=1)


class Dag:
    """The hash-consed expression nodes of one execution.

    A node is ``("leaf", buffer, index)``, ``("const", value)``, ``("bytes", symbols)`` (a value
    assembled from pieces of others) or ``(op, operands...)``; ``width[n]`` is its size in bytes.
    """

    def __init__(self) -> None:
        self.nodes: list[tuple] = []
        self.width: list[int] = []
        #: the node of each key, one table per width in bytes (no pair of key and width
        #: to build and hash per node)
        self._index: dict[int, dict[tuple, int]] = {}
        self._consts_made: list[int] = []  # the constant nodes, in the order made
        self.buffer_names: dict[int, str] = {}
        #: the runs of consecutive leaves made in bulk, by (buffer, nbytes): the first index,
        #: first node and count of each (sorted by index), which the index tables do not hold
        self._leaf_runs: dict[tuple[int, int], _Runs] = {}
        #: the indices of the leaves made one at a time, by (buffer, nbytes)
        self._single_leaves: dict[tuple[int, int], set[int]] = {}
        self._mirrored = 0  # nodes whose width and constness the arrays below hold
        self._widths = np.zeros(0, dtype=np.int64)
        self._consts = np.zeros(0, dtype=bool)
        #: memoised results of functions of nodes (:mod:`~llverify.emitted.sim.rewrite`'s):
        #: a node never changes once made, so neither does what is computed from it
        self.memo: dict[str, dict] = {}
        #: :meth:`nodes_of` of recently seen rows of byte symbols, by their shape and bytes
        #: (the nodes rows stand for never change: a vector's element taken apart again
        #: gives the nodes it gave before)
        self._rows_seen: dict[tuple[tuple[int, ...], bytes], np.ndarray] = {}
        #: whether each node is an operand of some operation node (of the first
        #: ``_operands_scanned`` nodes; :meth:`_scan_operands` brings it up to date): an
        #: operation with an operand that is none yet is a new node, found in no table
        self._is_operand = np.zeros(0, dtype=bool)
        self._operands_scanned = 0
        #: the runs of operation nodes made by :meth:`_fresh_rows` that no index table holds
        #: yet, as (first, end, width): :meth:`_table` enters them before any lookup
        self._unindexed: list[tuple[int, int, int]] = []

    def _mirror(self) -> tuple[np.ndarray, np.ndarray]:
        """Every node's width and whether it is a constant, as arrays (grown as nodes are
        made, so each node is mirrored once)."""
        count = len(self.nodes)
        if self._mirrored < count:
            if count > self._widths.size:
                capacity = max(count, 2 * self._widths.size, 1024)
                widths = np.zeros(capacity, dtype=np.int64)
                consts = np.zeros(capacity, dtype=bool)
                widths[: self._mirrored] = self._widths[: self._mirrored]
                consts[: self._mirrored] = self._consts[: self._mirrored]
                self._widths, self._consts = widths, consts
            start = self._mirrored
            self._widths[start:count] = self.width[start:count]
            self._consts[start:count] = False
            made = self._consts_made
            if made and made[-1] >= start:  # constants are made in order: the new ones last
                first = len(made) - 1
                while first > 0 and made[first - 1] >= start:
                    first -= 1
                self._consts[made[first:]] = True
            self._mirrored = count
        return self._widths[:count], self._consts[:count]

    def _table(self, nbytes: int, operations: bool = True) -> dict[tuple, int]:
        """The index of the ``nbytes``-wide nodes, key to node, for looking up keys of
        operation nodes (the runs :meth:`_fresh_rows` made entered first), or with
        ``operations`` False only of leaves, constants and ``bytes`` nodes (which no
        operation's key equals)."""
        table = self._index.get(nbytes)
        if table is None:
            table = self._index[nbytes] = {}
        if operations and self._unindexed:
            self._enter_unindexed()
        return table

    def _enter_unindexed(self) -> None:
        """Enter the runs of nodes :meth:`_fresh_rows` made into their index tables."""
        nodes = self.nodes
        for first, end, nbytes in self._unindexed:
            table = self._index.get(nbytes)
            if table is None:
                table = self._index[nbytes] = {}
            table.update(zip(nodes[first:end], range(first, end)))
        self._unindexed.clear()

    def _grow_operand_marks(self, count: int) -> None:
        """Room in :attr:`_is_operand` for ``count`` nodes (doubling)."""
        if self._is_operand.size < count:
            grown = np.zeros(max(count, 2 * self._is_operand.size, 1024), dtype=bool)
            grown[: self._is_operand.size] = self._is_operand
            self._is_operand = grown

    def _scan_operands(self) -> np.ndarray:
        """:attr:`_is_operand` of every node made so far (the nodes made since the last
        scan looked at one by one, their operands marked)."""
        count = len(self.nodes)
        self._grow_operand_marks(count)
        if self._operands_scanned < count:
            marked = [
                operand
                for key in self.nodes[self._operands_scanned : count]
                if key[0] not in _NOT_OPERATIONS
                for operand in key[1:]
            ]
            if marked:
                self._is_operand[marked] = True
            self._operands_scanned = count
        return self._is_operand[:count]

    def _intern(self, key: tuple, nbytes: int, operation: bool = True) -> int:
        table = self._table(nbytes, operation)
        found = table.get(key)
        if found is not None:
            return found
        node = len(self.nodes)
        self.nodes.append(key)
        self.width.append(nbytes)
        table[key] = node
        return node

    def leaf(self, buffer: int, index: int, nbytes: int) -> int:
        """Element ``index`` of input buffer ``buffer``."""
        runs = self._leaf_runs.get((buffer, nbytes))
        if runs is not None:
            found = runs.find(index)
            if found >= 0:
                return found
        count = len(self.nodes)
        node = self._intern(("leaf", buffer, index), nbytes, operation=False)
        if node == count:
            self._single_leaves.setdefault((buffer, nbytes), set()).add(index)
        return node

    def new_leaves(self, buffer: int, count: int, nbytes: int) -> np.ndarray:
        """Elements ``0 .. count - 1`` of input buffer ``buffer``, none of which is a node yet:
        the consecutive nodes made for them (what :meth:`leaf` of each would give, made in
        bulk).

        >>> dag = Dag()
        >>> dag.new_leaves(0, 3, 2).tolist(), dag.leaf(0, 2, 2)
        ([0, 1, 2], 2)
        """
        if not self._leaves_free(buffer, 0, count, nbytes):
            raise ValueError(f"buffer {buffer}: expected no leaf of it made yet, found one")
        return self._leaf_run(buffer, 0, count, nbytes)

    def _leaves_free(self, buffer: int, start: int, count: int, nbytes: int) -> bool:
        """Whether no leaf of ``buffer`` (``nbytes`` wide) with an index in ``start .. start +
        count - 1`` is a node yet."""
        runs = self._leaf_runs.get((buffer, nbytes))
        if runs is not None and runs.overlaps(start, count):
            return False
        singles = self._single_leaves.get((buffer, nbytes), ())
        return not any(start <= index < start + count for index in singles)

    def _leaf_run(self, buffer: int, start: int, count: int, nbytes: int) -> np.ndarray:
        """The leaves ``start .. start + count - 1`` of ``buffer``, none made yet, made as
        consecutive nodes in index order (a run: found by :meth:`leaf` and
        :meth:`leaves_of` without an entry per leaf in the index tables)."""
        self._scan_operands()  # up to date, so that the scan can pass over the leaves
        first = len(self.nodes)
        self.nodes.extend(_leaf_keys(buffer, start, count))
        self.width.extend(repeat(nbytes, count))
        self._operands_scanned = first + count
        runs = self._leaf_runs.get((buffer, nbytes))
        if runs is None:
            runs = self._leaf_runs[(buffer, nbytes)] = _Runs()
        runs.add(start, first, count)
        return np.arange(first, first + count, dtype=np.int64)

    def leaves_of(self, buffer: int, indices: np.ndarray, nbytes: int) -> np.ndarray:
        """:meth:`leaf` of each of ``indices``, at array speed where they lie in runs of
        leaves made in bulk; a consecutive ascending range of which none is made yet is made
        as one run (the nodes :meth:`leaf` of each in turn would make); any other missing
        ones are made in order.

        >>> dag = Dag()
        >>> _ = dag.leaf(1, 0, 4); _ = dag.new_leaves(0, 4, 2)
        >>> dag.leaves_of(0, np.array([3, 0]), 2).tolist(), dag.leaves_of(1, np.array([0]), 4)
        ([4, 1], array([0]))
        >>> dag.leaves_of(2, np.arange(8, 11), 1).tolist(), dag.leaf(2, 9, 1)
        ([5, 6, 7], 6)
        """
        indices = np.asarray(indices, dtype=np.int64).reshape(-1)
        runs = self._leaf_runs.get((buffer, nbytes))
        out = runs.find_all(indices) if runs is not None else np.full(indices.size, -1, np.int64)
        missing = out < 0
        if not missing.any():
            return out
        count, start = indices.size, int(indices[0])
        if (
            missing.all()
            and bool((indices == start + np.arange(count, dtype=np.int64)).all())
            and self._leaves_free(buffer, start, count, nbytes)
        ):
            return self._leaf_run(buffer, start, count, nbytes)
        out[missing] = [self.leaf(buffer, index, nbytes) for index in indices[missing].tolist()]
        return out

    def const(self, value: int, nbytes: int) -> int:
        count = len(self.nodes)
        node = self._intern(("const", value), nbytes, operation=False)
        if node == count:  # a new constant
            self._consts_made.append(node)
        return node

    def op(self, name: str, operands: tuple[int, ...], nbytes: int) -> int:
        """``name`` applied to ``operands`` (sorted first when ``name`` is commutative); an
        integer op or compare of constants is folded to its constant and a select on a constant
        condition to the chosen operand (a thread whose operands are concrete while other
        threads' are tagged).

        >>> dag = Dag()
        >>> dag.describe(dag.op("icmp.eq", (dag.const(15, 4), dag.op("and", (dag.const(15, 4),
        ...     dag.const(8, 4)), 4)), 1))
        '0x0'
        """
        if name == "select" and len(operands) == 3 and self.nodes[operands[0]][0] == "const":
            return operands[1] if self.nodes[operands[0]][1] & 1 else operands[2]
        folded = self._fold(name, operands, nbytes)
        if folded is not None:
            return self.const(folded, nbytes)
        if name in COMMUTATIVE:
            operands = tuple(sorted(operands))
        elif name[:5] in ("fcmp.", "icmp.") and len(operands) == 2 and operands[0] > operands[1]:
            predicate = name[5:]
            if predicate in SWAPPED:  # a < b is b > a: one node for both spellings
                name, operands = name[:5] + SWAPPED[predicate], (operands[1], operands[0])
        return self._intern((name, *operands), nbytes)

    def _fold(self, name: str, operands: tuple[int, ...], nbytes: int) -> int | None:
        keys = [self.nodes[o] for o in operands]
        if not keys or any(k[0] != "const" for k in keys):
            return None
        values = [int(k[1]) for k in keys]
        bits = 8 * self.width[operands[0]]
        if len(values) != 2 or nbytes > 8 or bits > 64:
            return None
        a, b = values
        if bits == 8 and (name[:6] == "icmp.s" or name in _INT_OPS and name not in _BITWISE):
            return None  # a byte may hold an i1, whose sign and carries differ from an i8's
        if name.startswith("icmp.") and name[5:] in _ICMP:
            if name[5] == "s":
                a, b = (v - (1 << bits) if v >> (bits - 1) else v for v in (a, b))
            return int(_ICMP[name[5:]](a, b))
        if name in _SIGNED:
            a, b = (v - (1 << bits) if v >> (bits - 1) else v for v in (a, b))
        if name in _INT_OPS and not (name[1:4] in ("div", "rem") and b == 0):
            return _INT_OPS[name](a, b) & ((1 << (8 * nbytes)) - 1)
        return None

    def from_symbols(self, symbols: tuple[int, ...]) -> int:
        """The node whose bytes are ``symbols``: the node itself when they are its bytes in order,
        a constant when all are constant bytes, else a ``bytes`` node."""
        first = symbols[0]
        if first >= 0 and first % _SLOTS == 0:
            node = first // _SLOTS
            if self.width[node] == len(symbols) and all(
                s == first + k for k, s in enumerate(symbols)
            ):
                return node
        if all(-257 <= s <= -1 for s in symbols):
            value = sum((-1 - s) << (8 * k) for k, s in enumerate(symbols))
            return self.const(value, len(symbols))
        return self._intern(("bytes", tuple(symbols)), len(symbols), operation=False)

    def symbols(self, node: int) -> np.ndarray:
        return node * _SLOTS + np.arange(self.width[node], dtype=np.int64)

    # -- reading nodes ---------------------------------------------------------------------
    def kind(self, node: int) -> str:
        """What ``node`` is: ``"leaf"``, ``"const"``, ``"bytes"`` or its operation's name.

        >>> dag = Dag()
        >>> a = dag.leaf(0, 1, 4)
        >>> dag.kind(a), dag.kind(dag.const(3, 4)), dag.kind(dag.op("fadd", (a, a), 4))
        ('leaf', 'const', 'fadd')
        """
        return str(self.nodes[node][0])

    def operands(self, node: int) -> tuple[int, ...]:
        """The operand nodes of an operation node (none for leaves, constants and bytes)."""
        key = self.nodes[node]
        return () if key[0] in ("leaf", "const", "bytes") else tuple(key[1:])

    def leaf_of(self, node: int) -> tuple[int, int] | None:
        """``(buffer, index)`` of a leaf node, None for any other node."""
        key = self.nodes[node]
        return (int(key[1]), int(key[2])) if key[0] == "leaf" else None

    def constant_value(self, node: int) -> int | None:
        """The integer a constant node holds, None for any other node."""
        key = self.nodes[node]
        return int(key[1]) if key[0] == "const" else None

    def pieces(self, node: int) -> tuple[int, ...] | None:
        """The byte symbols a ``bytes`` node is assembled from, None for any other node."""
        key = self.nodes[node]
        return tuple(key[1]) if key[0] == "bytes" else None

    def buffer_name(self, buffer: int) -> str:
        """The name of input buffer ``buffer`` (``in<k>`` when it has none)."""
        return self.buffer_names.get(buffer, f"in{buffer}")

    def placeholder(self, k: int, nbytes: int) -> int:
        """Placeholder ``k`` of a template (a combine region's block argument): a leaf of no
        buffer, bound to an actual node when a template is matched."""
        return self.leaf(_PLACEHOLDERS, k, nbytes)

    def placeholder_index(self, node: int) -> int | None:
        """``k`` of placeholder node ``k``, None for any other node."""
        key = self.nodes[node]
        return int(key[2]) if key[0] == "leaf" and key[1] == _PLACEHOLDERS else None

    # -- values of every thread ------------------------------------------------------------
    def apply(self, name: str, operands: list[Val], out_bytes: int) -> Val:
        """The data-computing op ``name`` in every thread: one node per thread over the
        operands' nodes (a thread whose operands are all constants holds constant bytes).

        >>> dag = Dag()
        >>> x = Val(32, syms=np.array([[0, 1, 2, 3], [-2, -1, -1, -1]]))  # a tag, and 1
        >>> dag.leaf(0, 0, 4)
        0
        >>> total = dag.apply("add", [x, x], 4)
        >>> dag.describe(int(total.syms[0, 0]) // 16), total.syms[1].tolist()
        ('add(in0[0], in0[0])', [-3, -1, -1, -1])
        """
        name = canonical_op(name)
        columns = [self.nodes_of(v) for v in operands]
        nodes = self._fresh_rows(name, columns, out_bytes)
        if nodes is None:
            nodes = self._plain_rows(name, columns, out_bytes)
        if nodes is not None:  # no thread's op folds: each thread's value is its node's bytes
            return self._of_nodes(nodes, out_bytes)
        unique, inverse = unique_rows(np.stack(columns, axis=1))
        made = self.op_rows(name, unique, out_bytes)
        nodes = made[inverse.reshape(-1)]
        syms = nodes[:, None] * _SLOTS + np.arange(out_bytes, dtype=np.int64)[None, :]
        folded = np.flatnonzero(self._mirror()[1][made]).tolist()
        for k in folded:  # a thread whose operands were constants holds constant bytes
            number = int(self.nodes[int(made[k])][1])
            constant = -1 - np.array([(number >> (8 * b)) & 0xFF for b in range(out_bytes)])
            syms[nodes == made[k]] = constant
        result = Val(out_bytes * 8, syms=syms)
        return result.normalised() if folded else result

    def _of_nodes(self, nodes: np.ndarray, nbytes: int) -> Val:
        """The value whose bytes in each thread are its ``nbytes``-wide node of ``nodes``
        (shape (T,)) in order, its nodes known (:meth:`nodes_of` gives ``nodes`` back
        without looking at the bytes).

        >>> dag, other = Dag(), Dag()
        >>> value = dag._of_nodes(dag.new_leaves(0, 2, 2), 2)
        >>> _ = other.new_leaves(0, 2, 4)  # in another DAG, nodes 0 and 1 are 4 bytes wide
        >>> value.syms.tolist(), dag.nodes_of(value).tolist(), other.nodes_of(value).tolist()
        ([[0, 1], [16, 17]], [0, 1], [2, 3])
        """
        syms = nodes[:, None] * _SLOTS + np.arange(nbytes, dtype=np.int64)[None, :]
        syms.flags.writeable = False
        nodes.flags.writeable = False
        value = Val(nbytes * 8, syms=syms)
        value.known_nodes = (self, nodes)
        return value

    def _may_fold(self, name: str, columns: list[np.ndarray]) -> bool:
        """Whether some thread's :meth:`op` ``name`` of its operand nodes (``columns``: one
        array of nodes per operand) may fold: all its operands constants, or a ``select``
        on a constant condition."""
        consts = self._mirror()[1]
        flags = [consts[c] for c in columns]
        slow = np.logical_and.reduce(flags)
        if name == "select" and len(columns) == 3:
            slow = slow | flags[0]
        return bool(slow.any())

    def _fresh_rows(self, name: str, columns: list[np.ndarray], nbytes: int) -> np.ndarray | None:
        """:meth:`op` ``name`` of each thread's operand nodes (``columns``), when every
        thread has an operand that is no operation's operand yet (the accumulator of a
        chain of ``fmuladd``, just made) and no thread's op may fold: then no table holds
        any of the keys, so the distinct rows' nodes are made in sorted row order, as
        :meth:`op_rows` of :func:`unique_rows` makes them, without a lookup (entered into
        the index tables before the next lookup, :meth:`_table`); None otherwise, or when
        two distinct rows are one node (a commutative op's operands in both orders).

        >>> dag = Dag()
        >>> a, b = dag.new_leaves(0, 2, 4).tolist()
        >>> dag._fresh_rows("fsub", [np.array([b, a, a]), np.array([a, b, a])], 4).tolist()
        [4, 3, 2]
        >>> dag.op("fsub", (b, a), 4), dag.op("fsub", (a, a), 4)  # entered into the table
        (4, 2)
        >>> dag._fresh_rows("fsub", [np.array([b]), np.array([a])], 4) is None  # not fresh
        True
        >>> c, d = dag.new_leaves(1, 2, 4).tolist()
        >>> dag._fresh_rows("fadd", [np.array([c, d]), np.array([d, c])], 4) is None  # one node
        True
        """
        if not columns or columns[0].shape[0] == 0:
            return None
        is_operand = self._scan_operands()
        if np.logical_and.reduce([is_operand[c] for c in columns]).any():
            return None  # a thread whose operands are all operands already: look it up
        if self._may_fold(name, columns):
            return None
        unique, inverse = unique_rows(np.stack(columns, axis=1))
        names, canonical = self._canonical(name, unique)
        if canonical is not unique and name in COMMUTATIVE:
            if unique_rows(canonical)[0].shape[0] != unique.shape[0]:
                return None
        first = len(self.nodes)
        self._made_fresh(names, canonical, nbytes, unique)
        return first + inverse.astype(np.int64).reshape(-1)

    def apply_run(
        self,
        name: str,
        columns: list[list[np.ndarray | None]],
        nbytes: int,
        chain: int | None = None,
    ) -> list[Val]:
        """:meth:`apply` of the non-commutative op ``name`` to each of a run of
        instructions' operand nodes (``columns[i]``: instruction ``i``'s, one array of
        nodes per operand), as far as each in turn would be made by :meth:`_fresh_rows`:
        the values of that longest prefix (possibly empty), their nodes made at once,
        instruction by instruction in sorted row order, so the DAG is the one applying
        them one at a time makes.  With ``chain`` None no instruction reads another's
        result; else each after the first reads the one before's as its operand ``chain``
        (given as None: a matmul's ``fmuladd`` s along k, ``acc = fmuladd(a, b, acc)``).

        >>> dag = Dag()
        >>> a, b = dag.new_leaves(0, 2, 4), dag.new_leaves(1, 2, 4)
        >>> run = dag.apply_run("llvm.fmuladd.f32", [[a, a, a], [a, a, b], [b, a, b]], 4)
        >>> [dag.nodes_of(v).tolist() for v in run]  # the third reads no fresh node
        [[4, 5], [6, 7]]
        >>> acc = dag.nodes_of(run[1])
        >>> run = dag.apply_run("llvm.fmuladd.f32", [[b, b, acc], [a, b, None]], 4, chain=2)
        >>> [dag.nodes_of(v).tolist() for v in run], dag.describe(10)
        ([[8, 9], [10, 11]], 'fmuladd(in0[0], in1[0], fmuladd(in1[0], in1[0], ...))')
        """
        name = canonical_op(name)
        if not columns or name in COMMUTATIVE or name in ("select", "bytes") or "cmp." in name:
            return []
        if chain is not None:
            return self._chain_run(name, columns, nbytes, chain)
        given = cast("list[list[np.ndarray]]", columns)  # no None without a chain
        rows = np.stack([np.stack(c, axis=1) for c in given])  # (instruction, thread, operand)
        made = self._fresh_prefix(rows)
        if made == 0:
            return []
        count, threads, arity = made, rows.shape[1], rows.shape[2]
        table = rows[:made].reshape(count * threads, arity)
        which = np.repeat(np.arange(count, dtype=np.int64), threads)
        order = np.lexsort((*table.T[::-1], which))  # by instruction, then row
        ordered = table[order]
        first = np.ones(table.shape[0], dtype=bool)
        first[1:] = (ordered[1:] != ordered[:-1]).any(axis=1) | (which[1:] != which[:-1])
        start = len(self.nodes)
        nodes = np.empty(table.shape[0], dtype=np.int64)
        nodes[order] = start + np.cumsum(first) - 1
        self._made_fresh(repeat(name), ordered[first], nbytes, table)
        return [self._of_nodes(part, nbytes) for part in nodes.reshape(count, threads)]

    def _fresh_prefix(self, rows: np.ndarray) -> int:
        """How many of the instructions whose operand nodes are ``rows`` (instruction,
        thread, operand) :meth:`_fresh_rows` would make in turn: each has, in every
        thread, an operand that is no operation's operand yet, neither before the run
        nor in an earlier instruction of it, and folds in no thread."""
        count, threads, arity = rows.shape
        flat = rows.reshape(-1)
        which = np.repeat(np.arange(count, dtype=np.int64), threads * arity)
        order = np.lexsort((which, flat))  # each node's uses, the first instruction's first
        ordered = flat[order]
        starts = np.ones(flat.size, dtype=bool)
        starts[1:] = ordered[1:] != ordered[:-1]
        first_use = np.empty(flat.size, dtype=np.int64)
        first_use[order] = which[order][np.flatnonzero(starts)[np.cumsum(starts) - 1]]
        used_before = (self._scan_operands()[flat] | (first_use < which)).reshape(rows.shape)
        folds = self._mirror()[1][rows].all(axis=2).any(axis=1)
        ready = (~used_before).any(axis=2).all(axis=1) & ~folds
        return count if ready.all() else int(np.argmin(ready))

    def _chain_run(
        self, name: str, columns: list[list[np.ndarray | None]], nbytes: int, chain: int
    ) -> list[Val]:
        """:meth:`apply_run` of a chain through operand ``chain``: made when the first
        instruction is :meth:`_fresh_rows`' with distinct rows in every thread (then each
        later one reads a distinct fresh node in every thread, so it is one too, with one
        node per thread).  Each instruction's threads are ordered by their rows, the
        operand ``chain`` being the order of the one before's (its nodes are consecutive in
        that order)."""
        first_rows = np.stack(cast("list[np.ndarray]", columns[0]), axis=1)
        threads, arity = first_rows.shape
        if self._fresh_prefix(first_rows[None]) == 0:
            return []
        order = np.lexsort(first_rows.T[::-1])
        ordered = first_rows[order]
        if (ordered[1:] == ordered[:-1]).all(axis=1).any():
            return []  # two threads' first nodes are one: not one node per thread
        count, start = len(columns), len(self.nodes)
        nodes = np.empty((count, threads), dtype=np.int64)
        nodes[0, order] = start + np.arange(threads, dtype=np.int64)
        keys = [ordered]
        others = [k for k in range(arity) if k != chain]
        for i in range(1, count):
            given = [cast("np.ndarray", columns[i][k]) for k in others]
            rank = nodes[i - 1] - (start + (i - 1) * threads)
            operand = [*given[:chain], rank, *given[chain:]]
            order = np.lexsort(operand[::-1])
            nodes[i, order] = start + i * threads + np.arange(threads, dtype=np.int64)
            row = [column[order] for column in given]
            row.insert(chain, nodes[i - 1][order])
            keys.append(np.stack(row, axis=1))
        table = np.concatenate(keys)
        self._made_fresh(repeat(name), table, nbytes, table)
        return [self._of_nodes(part, nbytes) for part in nodes]

    def _made_fresh(
        self, names: Iterable[str], keys: np.ndarray, nbytes: int, operands: np.ndarray
    ) -> None:
        """Make the nodes of ``names`` (one per row) of the operand rows ``keys`` (in order,
        none a node yet), entered into the index tables before the next lookup;
        ``operands`` (every row read) are operands from now on."""
        start, end = len(self.nodes), len(self.nodes) + keys.shape[0]
        self.nodes.extend(zip(names, *keys.T.tolist()))
        self.width.extend(repeat(nbytes, keys.shape[0]))
        self._unindexed.append((start, end, nbytes))
        self._grow_operand_marks(end)
        self._is_operand[operands.reshape(-1)] = True
        self._operands_scanned = end

    @staticmethod
    def _canonical(name: str, rows: np.ndarray) -> tuple[list[str], np.ndarray]:
        """The names and operand rows of :meth:`op` ``name`` of each of ``rows`` (operand
        nodes, shape (n, k)) put in canonical order: a commutative op's operands sorted, a
        compare's swapped into ``a <= b`` under the swapped predicate."""
        if name in COMMUTATIVE:
            return [name] * rows.shape[0], np.sort(rows, axis=1)
        if name[:5] in ("fcmp.", "icmp.") and rows.shape[1] == 2 and name[5:] in SWAPPED:
            swap = rows[:, 0] > rows[:, 1]  # a < b is b > a: one node for both spellings
            other = name[:5] + SWAPPED[name[5:]]
            names = [other if s else name for s in swap.tolist()]
            return names, np.where(swap[:, None], rows[:, ::-1], rows)
        return [name] * rows.shape[0], rows

    def _plain_rows(self, name: str, columns: list[np.ndarray], nbytes: int) -> np.ndarray | None:
        """:meth:`op` ``name`` of each thread's operand nodes (``columns``: one array of
        nodes per operand), in Python for a few hundred threads, when no thread's op may fold
        (no thread's operands all constants, no ``select`` on a constant condition); None
        otherwise, or for more threads.  The nodes are made as :meth:`op_rows` of the
        distinct rows in sorted order (what :func:`unique_rows` gives) makes them, so the DAG
        is the same node for node; a made node is then never a constant (only a fold makes
        one from an op).

        >>> dag = Dag()
        >>> a, b = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
        >>> dag._plain_rows("fadd", [np.array([b, a, a]), np.array([a, b, a])], 4).tolist()
        [3, 3, 2]
        >>> dag._plain_rows("fadd", [np.array([dag.const(1, 4)])] * 2, 4) is None
        True
        """
        count = columns[0].shape[0]
        if not 0 < count <= _PLAIN_ROWS or not columns or self._may_fold(name, columns):
            return None
        rows = list(zip(*[c.tolist() for c in columns]))
        distinct = sorted(set(rows))
        if name in COMMUTATIVE:
            keys = [(name, *sorted(row)) for row in distinct]
        elif name[:5] in ("fcmp.", "icmp.") and len(columns) == 2 and name[5:] in SWAPPED:
            other = name[:5] + SWAPPED[name[5:]]  # a < b is b > a: one node for both spellings
            keys = [(other, b, a) if a > b else (name, a, b) for a, b in distinct]
        else:
            keys = [(name, *row) for row in distinct]
        made = self._intern_all(keys, nbytes, _never_folded).tolist()
        node_of = dict(zip(distinct, made))
        return np.fromiter(map(node_of.__getitem__, rows), dtype=np.int64, count=count)

    def op_rows(self, name: str, rows: np.ndarray, nbytes: int) -> np.ndarray:
        """:meth:`op` ``name`` of each row of operand nodes ``rows`` (distinct, shape (n, k)),
        made in row order: the operands are put in canonical order for all rows at once and
        each row is interned with one lookup; rows that may fold (all operands constant, or
        a ``select`` on a constant condition) go through :meth:`op` itself.

        >>> dag = Dag()
        >>> a, b = dag.leaf(0, 0, 4), dag.leaf(0, 1, 4)
        >>> made = dag.op_rows("fadd", np.array([[a, b], [b, a], [b, b]]), 4)
        >>> made.tolist() == [dag.op("fadd", (a, b), 4)] * 2 + [dag.op("fadd", (b, b), 4)]
        True
        """
        consts = self._mirror()[1]
        slow = consts[rows].all(axis=1)
        if name == "select" and rows.shape[1] == 3:
            slow |= consts[rows[:, 0]]
        names, canonical = self._canonical(name, rows)
        keys: list[tuple | None] = list(zip(names, *canonical.T.tolist()))
        for k in np.flatnonzero(slow).tolist():
            keys[k] = None

        def folded(k: int) -> int:
            return self.op(name, tuple(rows[k].tolist()), nbytes)

        return self._intern_all(keys, nbytes, folded)

    def _intern_all(
        self,
        keys: Sequence[tuple | None],
        nbytes: int,
        other: Callable[[int], int],
        operations: bool = True,
    ) -> np.ndarray:
        """:meth:`_intern` of each of ``keys`` (``nbytes`` wide; with ``operations`` False,
        none an operation's), looked up at once and made in order; the node of a key None
        is ``other(its position)``, made in its turn."""
        table, nodes = self._table(nbytes, operations), self.nodes
        made: list[int | None] = list(map(table.get, keys))  # type: ignore[arg-type]  # None: absent
        missing = made.count(None)
        if not missing:
            return np.array(made, dtype=np.int64)
        first = len(nodes)
        if None not in keys:
            present = cast("Sequence[tuple]", keys)
            if missing == len(present):  # every key new, the common case
                new = dict(zip(present, range(first, first + len(present))))
                if len(new) == len(present):  # and distinct: key k is node first + k
                    nodes.extend(present)
                    self.width.extend(repeat(nbytes, len(present)))
                    table.update(new)
                    return np.arange(first, first + len(present), dtype=np.int64)
            # new nodes in the order of first mention
            fresh = dict.fromkeys(key for key, node in zip(present, made) if node is None)
            new = dict(zip(fresh, range(first, first + len(fresh))))
            nodes.extend(new)
            self.width.extend(repeat(nbytes, len(new)))
            table.update(new)
            return np.array(
                [new[key] if node is None else node for key, node in zip(present, made)],
                dtype=np.int64,
            )
        for k, key in enumerate(keys):
            if made[k] is not None:
                continue
            if key is None:
                made[k] = other(k)
                continue
            found = table.get(key)  # an earlier key of the batch may have made it
            if found is None:
                found = table[key] = len(nodes)
                nodes.append(key)
                self.width.append(nbytes)
            made[k] = found
        return np.array(made, dtype=np.int64)

    def nodes_of(self, value: Val) -> np.ndarray:
        """The node each thread's ``value`` is (``bytes`` or constant nodes where it is not
        one node's bytes in order), shape (T,).  What :meth:`from_symbols` gives each
        distinct row, decided for all rows at once: a row that is one node's bytes in
        order is that node, a row of constant bytes the constant, any other a ``bytes``
        node (made in row order).  The nodes of a value that holds its own byte symbols are
        remembered on it (its bytes made read-only), for the next op that reads it.

        >>> dag = Dag()
        >>> value = Val(32, syms=symbols_of(dag.new_leaves(0, 2, 4), 4))
        >>> nodes = dag.nodes_of(value)
        >>> nodes.tolist(), value.syms.flags.writeable, dag.nodes_of(value) is nodes
        ([0, 1], False, True)
        """
        known = value.known_nodes
        if known is not None and known[0] is self:
            return known[1]
        nodes = self._nodes_of_symbols(value)
        syms = value.syms
        if syms is not None and syms.base is None:  # its own bytes: remember, read-only
            syms.flags.writeable = False
            if nodes.flags.writeable:
                nodes.flags.writeable = False
            value.known_nodes = (self, nodes)
        return nodes

    def nodes_without_making(self, value: Val) -> np.ndarray | None:
        """:meth:`nodes_of` ``value`` when that makes no node (its nodes are known, or each
        thread's bytes are one node's, or the rows were seen before), else None.

        >>> dag = Dag()
        >>> leaves = dag.new_leaves(0, 2, 4)
        >>> dag.nodes_without_making(Val(32, syms=symbols_of(leaves, 4))).tolist()
        [0, 1]
        >>> dag.nodes_without_making(Val(32, syms=symbols_of(leaves, 4)[:, ::-1].copy())) is None
        True
        """
        known = value.known_nodes
        if known is not None and known[0] is self:
            return known[1]
        return self._nodes_found(value.byte_symbols())

    def _nodes_found(self, rows: np.ndarray) -> np.ndarray | None:
        """The nodes of the byte symbol rows ``rows`` when each is one node's bytes in order
        or the rows were made into nodes before, else None."""
        first = rows[:, 0]
        if (first >= 0).all() and (first % _SLOTS == 0).all():  # every thread's one node's bytes
            nodes = first // _SLOTS
            if (self._mirror()[0][nodes] == rows.shape[1]).all() and (
                rows == first[:, None] + np.arange(rows.shape[1], dtype=np.int64)
            ).all():
                return nodes
        return self._rows_seen.get((rows.shape, rows.tobytes()))  # what they were made into

    def _nodes_of_symbols(self, value: Val) -> np.ndarray:
        """:meth:`nodes_of` computed from ``value``'s byte symbols."""
        rows = value.byte_symbols()
        known = self._nodes_found(rows)
        if known is not None:
            return known
        key = (rows.shape, rows.tobytes())
        if len(self._rows_seen) >= _ROWS_REMEMBERED:
            self._rows_seen.clear()
        known = self._rows_seen[key] = self._nodes_of_rows(rows)
        known.flags.writeable = False  # shared by every later call on the same rows
        return known

    def _nodes_of_rows(self, rows: np.ndarray) -> np.ndarray:
        """:meth:`nodes_of` of the byte symbol rows ``rows``."""
        unique, inverse = unique_rows(rows)
        count, nbytes = unique.shape
        widths = self._mirror()[0]
        first = unique[:, 0]
        whole: np.ndarray = (first >= 0) & (first % _SLOTS == 0)
        whole[whole] = widths[first[whole] // _SLOTS] == nbytes
        whole &= (unique == first[:, None] + np.arange(nbytes, dtype=np.int64)).all(axis=1)
        constant = np.asarray(((unique >= -257) & (unique <= -1)).all(axis=1))
        made = np.where(whole, first // _SLOTS, -1)
        values: list[int | None] = [None] * count
        if nbytes <= 8:  # the constants' values at array speed
            plain = constant & (unique >= -256).all(axis=1)
            raw = (-1 - unique[plain]).astype(np.uint64)
            shifts = np.arange(nbytes, dtype=np.uint64) * np.uint64(8)
            for k, v in zip(np.flatnonzero(plain).tolist(), _or_rows(raw << shifts).tolist()):
                values[k] = v
        rest = np.flatnonzero(~whole)
        rows_left = unique[rest].tolist()
        fits = constant[rest].tolist()
        keys = [None if fit else ("bytes", tuple(row)) for row, fit in zip(rows_left, fits)]

        def constant_node(k: int) -> int:
            value = values[int(rest[k])]
            if value is not None:
                return self.const(value, nbytes)
            return self.from_symbols(tuple(rows_left[k]))

        made[rest] = self._intern_all(keys, nbytes, constant_node, operations=False)
        return made[inverse.reshape(-1)]

    def leaves(self, node: int) -> list[int]:
        """The distinct leaf nodes under ``node``, in first-visit order (each node is visited
        once: a DAG that reuses a value, as rounding emulations do, stays linear)."""
        out: list[int] = []
        seen: set[int] = set()
        stack = [node]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            key = self.nodes[n]
            if key[0] == "leaf":
                out.append(n)
            elif key[0] == "bytes":
                parts = sorted({s // _SLOTS for s in key[1] if s >= 0}, reverse=True)
                stack.extend(parts)
            elif key[0] != "const":
                stack.extend(reversed(key[1:]))
        return out

    def describe(self, node: int, depth: int = 6) -> str:
        """A readable formula of ``node`` (cut at ``depth`` levels)."""
        key = self.nodes[node]
        if key[0] == "leaf":
            return f"{self.buffer_name(key[1])}[{key[2]}]"
        if key[0] == "const":
            return hex(key[1])
        if depth == 0:
            return "..."
        if key[0] == "bytes":
            parts = []
            for s in key[1]:
                parts.append(
                    "undef"
                    if s == UNDEFINED
                    else hex(-1 - s)
                    if s < 0
                    else f"{self.describe(s // _SLOTS, depth - 1)}.b{s % _SLOTS}"
                )
            return "bytes(" + ", ".join(parts) + ")"
        return f"{key[0]}(" + ", ".join(self.describe(o, depth - 1) for o in key[1:]) + ")"


@lru_cache(maxsize=128)
def _leaf_keys(buffer: int, start: int, count: int) -> tuple[tuple[str, int, int], ...]:
    """The keys of the leaves ``start .. start + count - 1`` of ``buffer``, shared by every
    DAG of the process (a key never changes): a batch worker's kernels read the same pages
    of the same buffers, whose thousands of keys are then made once (at most 128 runs kept,
    about 50 MB for pages of 4096).

    >>> _leaf_keys(2, 8, 2), _leaf_keys(2, 8, 2) is _leaf_keys(2, 8, 2)
    ((('leaf', 2, 8), ('leaf', 2, 9)), True)
    """
    return tuple(zip(repeat("leaf"), repeat(buffer), range(start, start + count)))


def _never_folded(k: int) -> int:
    """The fold of row ``k`` for :meth:`Dag._plain_rows`, which has none."""
    raise AssertionError(f"row {k}: no row of a plain op folds")


class _Runs:
    """Runs of consecutive leaf nodes of one buffer and width: each a first index, its node
    and a count, sorted by index (for :class:`Dag`).

    >>> runs = _Runs()
    >>> runs.add(8, 100, 4); runs.add(0, 200, 4)
    >>> runs.find(9), runs.find(4), runs.find_all(np.array([3, 11, 12])).tolist()
    (101, -1, [203, 103, -1])
    >>> runs.overlaps(4, 4), runs.overlaps(2, 3)
    (False, True)
    """

    def __init__(self) -> None:
        self._starts = np.zeros(0, dtype=np.int64)
        self._firsts = np.zeros(0, dtype=np.int64)
        self._counts = np.zeros(0, dtype=np.int64)

    def add(self, start: int, first: int, count: int) -> None:
        """A run of ``count`` leaves from index ``start``, nodes from ``first`` on."""
        k = int(np.searchsorted(self._starts, start))
        self._starts = np.insert(self._starts, k, start)
        self._firsts = np.insert(self._firsts, k, first)
        self._counts = np.insert(self._counts, k, count)

    def find(self, index: int) -> int:
        """The node of leaf ``index``, -1 when no run holds it."""
        k = int(np.searchsorted(self._starts, index, side="right")) - 1
        if k >= 0 and index < self._starts[k] + self._counts[k]:
            return int(self._firsts[k] + index - self._starts[k])
        return -1

    def find_all(self, indices: np.ndarray) -> np.ndarray:
        """:meth:`find` of each of ``indices``."""
        if not self._starts.size:
            return np.full(indices.shape, -1, dtype=np.int64)
        k = np.searchsorted(self._starts, indices, side="right") - 1
        inside = k >= 0
        k = np.maximum(k, 0)
        inside &= indices < self._starts[k] + self._counts[k]
        return np.where(inside, self._firsts[k] + indices - self._starts[k], -1)

    def overlaps(self, start: int, count: int) -> bool:
        """Whether a run holds any of the indices ``start .. start + count - 1``."""
        k = int(np.searchsorted(self._starts, start + count)) - 1  # the last run from before
        return bool(k >= 0 and start < self._starts[k] + self._counts[k])


@dataclass
class Val:
    """One SSA value in every thread: ``ints`` (concrete, shape (T,), uint64) or ``syms``
    (byte symbols, shape (T, nbytes)); ``bits`` is the LLVM width (vectors: total bits)."""

    bits: int
    ints: np.ndarray | None = None
    syms: np.ndarray | None = None
    #: :meth:`Dag.nodes_of` of this value and the DAG it was computed in (``syms`` is then
    #: read-only, so the two stay true together)
    known_nodes: tuple[Dag, np.ndarray] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def nbytes(self) -> int:
        return max(1, (self.bits + 7) // 8)

    @staticmethod
    def concrete(values: np.ndarray | int, bits: int, threads: int) -> Val:
        if type(values) is int and 0 <= values < 1 << 64:  # one value for all: no broadcast
            if bits < 64:
                values &= (1 << bits) - 1
            return Val(bits, ints=np.full(threads, values, dtype=np.uint64))
        if type(values) is np.ndarray and values.dtype == np.uint64 and values.shape == (threads,):
            if bits < 64:  # one value per thread already: masked into a new array
                return Val(bits, ints=values & np.uint64((1 << bits) - 1))
            return Val(bits, ints=values.copy())
        arr = np.broadcast_to(np.asarray(values, dtype=np.uint64), (threads,)).copy()
        if bits < 64:
            arr &= np.uint64((1 << bits) - 1)
        return Val(bits, ints=arr)

    def byte_symbols(self) -> np.ndarray:
        """The ``(T, nbytes)`` byte symbols of this value."""
        if self.syms is not None:
            return self.syms
        assert self.ints is not None
        if self.bits > 64:
            raise Unmodelled(f"a concrete {self.bits}-bit value")
        return const_bytes(self.ints, self.nbytes)

    def integers(self, mask: np.ndarray | None = None, what: str = "value") -> np.ndarray:
        """The concrete integers (uint64); threads outside ``mask`` may hold anything.

        Raises :class:`Unmodelled` when an active thread's value depends on tagged data.
        """
        if self.ints is not None:
            return self.ints
        assert self.syms is not None
        rows = self.syms if mask is None else self.syms[mask]
        if rows.size and ((rows >= 0).any() or (rows < -256).any()):
            raise Unmodelled(f"the {what} depends on tagged data (a data-dependent {what})")
        if self.nbytes > 8:
            raise Unmodelled(f"a concrete {self.bits}-bit {what}")
        syms = np.where(self.syms < 0, self.syms, -1)
        syms = np.where(syms < -256, -1, syms)
        raw = (-1 - syms).astype(np.uint64)
        shifts = (np.arange(self.nbytes, dtype=np.uint64) * np.uint64(8))[None, :]
        return np.bitwise_or.reduce(raw << shifts, axis=1)

    def is_concrete(self) -> bool:
        if self.ints is not None:
            return True
        syms = self.syms
        assert syms is not None
        return syms.size == 0 or bool(syms.max() < 0 and syms.min() >= -256)

    def normalised(self) -> Val:
        """The concrete form when every byte of every thread is a constant."""
        if self.ints is None and self.bits <= 64 and self.is_concrete():
            return Val(self.bits, ints=self.integers())
        return self
