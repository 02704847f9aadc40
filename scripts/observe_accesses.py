"""The shared-memory accesses emitted code executes, per op, against llverify's predictions.

Issue 19 part 6: :mod:`llverify.shared_memory.predict` predicts which instruction Triton's NVIDIA lowering
picks for a ``local_store`` / ``local_load`` / ``convert_layout`` through shared memory
(``ld/st.shared`` and its vector width, or ``ldmatrix`` / ``stmatrix`` ``.xN`` ``.trans``), how
many warp instructions and how many wavefronts; :mod:`llverify.shared_memory.lowering` predicts the byte
address every register of every thread accesses (Triton's ``(L ^ X) + A`` arithmetic).  This
module runs a compiled harness (:mod:`~llverify.emitted.validate`'s steps) with the executor's
trace on, takes each op's shared-memory instructions by their debug location (stores and loads
apart), and computes from the observed addresses the instruction kinds, the warp instructions,
the wavefronts (the bank model of :mod:`llverify.shared_memory.wavefronts`: passes of ``32 / words``
lanes, the most distinct 32-bit words in one bank; for ldmatrix/stmatrix the most distinct
16-byte rows in one group of four banks per 8x8 matrix) and the bytes each thread touches.
:func:`compare_module` sets them against the predictions for the same register layout, shared
layout, shape and element type.

Examples:
    >>> from cases.emitted_sweep import sweep_cases
    >>> case = next(c for c in sweep_cases() if c.name == "blocked-local_load-f16-w2x4-cuda90-v7")
    >>> rows = compare_module(case.text)
    >>> [(r.direction, r.observed.instruction, r.observed.wavefronts, r.agree) for r in rows]
    [('store', 'st.shared (16 bits per lane)', 256, True), ('load', 'ld.shared (16 bits per lane)', 64, True)]
"""  # noqa: E501

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llverify.emitted.harness import Case, Harness, build_harness
from llverify.emitted.sim import Execution, UnmodelledAt
from llverify.emitted.validate import _execute, _Sources
from llverify.errors import LLVerifyError
from llverify.shared_memory.wavefronts import (
    bank_words,
    matrix_wavefronts,
    pass_conflicts,
    word_bounds,
)
from llverify.triton.compile import compile_ttgir
from llverify.ttgir import Operation, TTGIRModule, Type, parse_module

__all__ = [
    "Comparison",
    "SharedAccess",
    "compare_module",
    "observe_records",
    "predict_access",
    "ptx_shared_instructions",
    "traced_run",
]

BANKS = 32
SHARED_OPS = ("ttg.local_alloc", "ttg.local_load", "ttg.local_store", "ttg.convert_layout")
Record = tuple[str, int, int, np.ndarray, np.ndarray, str]  # Execution.trace entries
_MOVED = "{} accesses at the location of the harness op that uses the value (moved by LLVM)"


@dataclass(frozen=True)
class SharedAccess:
    """One direction (``"store"`` or ``"load"``) of one op's shared-memory access: the
    instruction kind (e.g. ``"ld.shared (128 bits per lane)"``, ``"ldmatrix.x4.trans"``;
    several kinds joined with ``" + "``), warp instructions over all warps, wavefronts, and
    the byte offsets each thread touches (from the lowest byte the access touches)."""

    direction: str
    instruction: str
    instructions: int
    wavefronts: int
    addresses: tuple[frozenset[int], ...]  # per thread
    rule: str = ""  # for a prediction: the rule that produced the count


@dataclass(frozen=True)
class Comparison:
    """Observed against predicted for one direction of one op; ``disagreements`` says what
    differs (empty: they agree); ``predicted`` is None when llverify makes no prediction
    (``note`` says why)."""

    case: str
    op_line: int
    direction: str
    observed: SharedAccess
    predicted: SharedAccess | None
    disagreements: tuple[str, ...]
    note: str = ""

    @property
    def agree(self) -> bool:
        return self.predicted is not None and not self.disagreements

    def to_dict(self) -> dict[str, Any]:
        def side(access: SharedAccess | None) -> dict[str, Any] | None:
            if access is None:
                return None
            return {
                "instruction": access.instruction,
                "instructions": access.instructions,
                "wavefronts": access.wavefronts,
            }

        return {
            "case": self.case,
            "op_line": self.op_line,
            "direction": self.direction,
            "observed": side(self.observed),
            "predicted": side(self.predicted),
            "agree": self.agree,
            "disagreements": list(self.disagreements),
            "note": self.note,
        }


# ---------------------------------------------------------------------- running


def traced_run(harness: Harness, *, python: str | None = None) -> tuple[Execution, str]:
    """Compile ``harness`` with the installed Triton (or ``python``'s) and execute it with the
    executor's access trace on: the run and the PTX (empty for AMD); raises
    :class:`~llverify.emitted.sim.UnmodelledAt` when the emitted code uses something the
    executor does not model."""
    compiled = compile_ttgir(harness.text, harness.target, python=python)
    outcome = _execute(harness, compiled, {}, trace=True)
    if isinstance(outcome, UnmodelledAt):
        raise outcome
    return outcome, compiled.ptx or ""


def _directions(module: TTGIRModule, case: Case) -> set[str]:
    """Which ways ``case``'s op itself moves data through shared memory (a ``local_load``
    stores too when the module's ``local_alloc`` of a value feeds it)."""
    op = case.op
    if op.name == "ttg.convert_layout":
        return {"store", "load"}
    if op.name != "ttg.local_load":
        return {"store"}
    alloc = _defining(module, op.operands[0]) if op.operands else None
    if alloc is not None and alloc.name == "ttg.local_alloc" and alloc.operands:
        return {"store", "load"}
    return {"load"}


def _records_by_case(
    module: TTGIRModule, harness: Harness, run: Execution
) -> tuple[dict[int, list[Record]], Counter[tuple[int, str]]]:
    """The shared-memory trace records of each case's own op: those at its location, and
    those at another location of its case (LLVM's optimiser moves a load next to the store
    of its value and gives it the store's location) in a direction the op itself moves data
    (the harness's own read-back of a ``local_store`` is a load: not counted).  The
    backend's merging of adjacent accesses is applied (:func:`_vectorise`); the second
    result counts the moved records per (case, direction)."""
    by_text_line = {i.text_line: i for block in run.function.blocks for i in block.instructions}
    sources = _Sources(harness)
    own = {case.index: sources.own_locations(case) for case in harness.cases}
    ways = {case.index: _directions(module, case) for case in harness.cases}
    out: dict[int, list[tuple[Record, int]]] = {}
    moved: Counter[tuple[int, str]] = Counter()
    for record in run.trace or ():
        if record[1] != 3:
            continue
        match = re.search(r"at LLVM IR line (\d+)", record[5])
        instruction = by_text_line.get(int(match.group(1))) if match else None
        if instruction is None or instruction.line is None:
            continue
        position = (instruction.line, instruction.column or 0)
        align = instruction.extra.get("align")
        for case in sources.cases_of(instruction):
            if position not in own[case.index]:
                if _direction(record) not in ways[case.index]:
                    continue
                moved[case.index, _direction(record)] += 1
            out.setdefault(case.index, []).append((record, align if isinstance(align, int) else 0))
    return {index: _vectorise(records) for index, records in out.items()}, moved


def _vectorise(records: Sequence[tuple[Record, int]]) -> list[Record]:
    """Merge runs of LLVM IR loads (stores) that LLVM's load/store vectoriser turns into one
    PTX vector access: consecutive in the trace, by the same threads, each thread's next
    access starting where its previous one ends, 16 bytes at most, a power of 2 in all and
    aligned to it: by the first access's static alignment, or (as the vectoriser infers
    from the known bits of the address) by every thread's address (e.g. two ``load i32,
    align 8`` at ``p`` and ``p + 4`` become one ``ld.shared.v2.b32``).  The PTX cross-check
    of :func:`compare_module` reports where this differs from the backend."""
    out: list[Record] = []
    k = 0
    while k < len(records):
        (kind, space, nbytes, threads, addresses, where), align = records[k]
        sizes = [nbytes]  # the contiguous run from record k, 16 bytes at most
        while kind in ("load", "store") and k + len(sizes) < len(records):
            nxt = records[k + len(sizes)][0]
            if (
                nxt[0] != kind
                or sizes[-1] + nxt[2] > 16
                or not np.array_equal(nxt[3], threads)
                or not np.array_equal(nxt[4], addresses + sizes[-1])
            ):
                break
            sizes.append(sizes[-1] + nxt[2])
        take = max(
            n
            for n, size in enumerate(sizes, 1)
            if n == 1
            or (size & (size - 1) == 0 and (size <= align or not (addresses % size).any()))
        )
        out.append((kind, space, sizes[take - 1], threads, addresses, where))
        k += take
    return out


# ---------------------------------------------------------------------- observing


_PTX_LOC = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)\s+(\d+)")
_PTX_SHARED = re.compile(
    r"^\s*(?:@!?%\w+\s+)?(?:(ld|st)\.shared(?:::cta)?\.(?:v(\d)\.)?[bfsu](\d+)\s"
    r"|(ld|st)matrix\.sync\.aligned\.m8n8\.x(\d)(\.trans)?)"
)


def ptx_shared_instructions(ptx: str) -> dict[tuple[int, int], Counter[str]]:
    """The shared-memory instructions of PTX text by the ``(line, column)`` of their
    ``.loc``, named as :func:`observe_records` names them (a static count: each instruction
    once, as written).

    Examples:
        >>> text = ".loc 1 4 0 ; ld.shared.v2.b32 {%r1, %r2}, [%r3];".replace(" ; ", chr(10))
        >>> ptx_shared_instructions(text)
        {(4, 0): Counter({'ld.shared (64 bits per lane)': 1})}
    """
    out: dict[tuple[int, int], Counter[str]] = {}
    here = (0, 0)
    for line in ptx.splitlines():
        loc = _PTX_LOC.match(line)
        if loc:
            here = (int(loc.group(1)), int(loc.group(2)))
            continue
        match = _PTX_SHARED.match(line)
        if not match:
            continue
        if match.group(1):
            bits = int(match.group(2) or 1) * int(match.group(3))
            name = f"{match.group(1)}.shared ({bits} bits per lane)"
        else:
            name = f"{match.group(4)}matrix.x{match.group(5)}{match.group(6) or ''}"
        out.setdefault(here, Counter())[name] += 1
    return out


def _instruction_name(record: Record) -> str:
    kind, _, nbytes = record[:3]
    if kind in ("load", "store"):
        return f"{'ld' if kind == 'load' else 'st'}.shared ({8 * nbytes} bits per lane)"
    return kind


def _ldst_wavefronts(record: Record, direction: str, warp_size: int) -> int:
    """Wavefronts of one ld/st.shared execution: per warp, passes of ``32 / words``
    consecutive lanes (twice that for a 64/128-bit load whose lanes ``l`` and ``l ^ 1``, or
    ``l`` and ``l ^ 2``, read one address: the measured exception of
    :mod:`llverify.shared_memory.predict`), each costing its most distinct 32-bit words in one
    bank."""
    _, _, nbytes, threads, addresses, _ = record
    words = max(1, nbytes // 4)
    total = 0
    for warp in np.unique(threads // warp_size):
        here = threads // warp_size == warp
        lanes = threads[here] % warp_size
        start = addresses[here]
        per_pass = warp_size // words
        if direction == "load" and words >= 2 and lanes.size == warp_size:
            by_lane = start[np.argsort(lanes)]
            lane_ids = np.arange(warp_size)
            if any((by_lane == by_lane[lane_ids ^ bit]).all() for bit in (1, 2)):
                per_pass *= 2
        first, _ = word_bounds(start, 8)
        _, last = word_bounds(start + nbytes - 1, 8)
        for group in np.unique(lanes // per_pass):
            chosen = lanes // per_pass == group
            touched = [w for a, b in zip(first[chosen], last[chosen]) for w in range(a, b + 1)]
            total += 1 + pass_conflicts(bank_words(touched, BANKS))
    return total


def _matrix_wavefronts(record: Record, warp_size: int) -> int:
    """ldmatrix/stmatrix: matrix ``i`` of a warp is the 8 rows at lanes ``8 i .. 8 i + 7``'s
    addresses; :func:`llverify.shared_memory.wavefronts.matrix_wavefronts` counts its cost."""
    kind, _, nbytes, threads, addresses, _ = record
    count = nbytes // 4
    by_thread = np.zeros(int(threads.max()) + 1, dtype=np.int64)
    by_thread[threads] = addresses
    warps = by_thread.size // warp_size
    rows = by_thread.reshape(warps, warp_size)[:, : 8 * count].reshape(warps, count, 8)
    return matrix_wavefronts(rows.transpose(0, 2, 1), 8, 1)


def _matrix_bytes(record: Record, warp_size: int) -> dict[int, list[int]]:
    """The bytes each thread's registers hold in an ldmatrix/stmatrix (PTX ISA fragments:
    register ``i`` of lane ``l`` is row ``l / 4`` of matrix ``i``, bytes ``4 (l % 4)`` to
    ``+3``; transposed, the 16-bit elements ``(2 (l % 4), l / 4)`` and ``(2 (l % 4) + 1,
    l / 4)`` of the matrix)."""
    kind, _, nbytes, threads, addresses, _ = record
    by_thread = np.zeros(int(threads.max()) + 1, dtype=np.int64)
    by_thread[threads] = addresses
    out: dict[int, list[int]] = {}
    for tid in threads.tolist():
        lane, base = tid % warp_size, tid - tid % warp_size
        for i in range(nbytes // 4):
            if ".trans" not in kind:
                row = int(by_thread[base + 8 * i + lane // 4]) + 4 * (lane % 4)
                out.setdefault(tid, []).extend(range(row, row + 4))
            else:
                column = 2 * (lane // 4)
                for r in (0, 1):
                    row = int(by_thread[base + 8 * i + 2 * (lane % 4) + r]) + column
                    out.setdefault(tid, []).extend((row, row + 1))
    return out


def observe_records(
    records: Sequence[Record], direction: str, threads: int, warp_size: int
) -> SharedAccess:
    """What trace ``records`` (one direction of one op) did: instruction kinds, warp
    instructions, wavefronts and the bytes each thread touched, from the lowest one.

    Examples:
        >>> tid = np.arange(32)
        >>> record = ("store", 3, 4, tid, 128 + 4 * tid, "st")  # 32 lanes, 32 consecutive words
        >>> access = observe_records([record], "store", 32, 32)
        >>> access.instruction, access.instructions, access.wavefronts, sorted(access.addresses[1])
        ('st.shared (32 bits per lane)', 1, 1, [4, 5, 6, 7])
    """
    names: list[str] = []
    instructions = wavefronts = 0
    touched: dict[int, list[int]] = {}
    for record in records:
        name = _instruction_name(record)
        if name not in names:
            names.append(name)
        kind, _, nbytes, active, addresses, _ = record
        instructions += int(np.unique(active // warp_size).size)
        if kind in ("load", "store"):
            wavefronts += _ldst_wavefronts(record, direction, warp_size)
            for tid, start in zip(active.tolist(), addresses.tolist()):
                touched.setdefault(tid, []).extend(range(start, start + nbytes))
        else:
            wavefronts += _matrix_wavefronts(record, warp_size)
            for tid, data in _matrix_bytes(record, warp_size).items():
                touched.setdefault(tid, []).extend(data)
    low = min((min(b) for b in touched.values() if b), default=0)
    per_thread = tuple(frozenset(b - low for b in touched.get(tid, ())) for tid in range(threads))
    name = " + ".join(names) or "none"
    return SharedAccess(direction, name, instructions, wavefronts, per_thread)


# ---------------------------------------------------------------------- predicting


def predict_access(
    register_layout: Any,
    shared_layout: Any,
    shape: Sequence[int],
    element_bits: int,
    direction: str,
    *,
    instruction: str = "auto",
    reps: int = 1,
) -> SharedAccess:
    """What :mod:`llverify.shared_memory.predict` and :mod:`llverify.shared_memory.lowering`
    predict for moving a tensor of ``shape`` in ``register_layout`` to (``"store"``) or from
    (``"load"``) shared memory laid out as ``shared_layout`` (anything
    :func:`llverify.arguments.layout_value` takes): the instruction, warp instructions,
    wavefronts, and the bytes each thread touches (ld/st.shared: the lowering model's emitted
    addresses; ldmatrix/stmatrix: the layout's), from the lowest.  ``instruction`` and
    ``reps`` as in :func:`llverify.shared_memory.predict.predict_wavefronts` (``reps`` tiles
    share one buffer).

    Examples:
        >>> blocked = ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], "
        ...     "warpsPerCTA = [1, 1], order = [1, 0]}>")
        >>> plain = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
        >>> p = predict_access(blocked, plain, [32, 32], 32, "store")
        >>> p.instruction, p.instructions, p.wavefronts, sorted(p.addresses[1])[:4]
        ('st.shared (128 bits per lane)', 8, 32, [16, 17, 18, 19])
    """
    from llverify.arguments import layout_value
    from llverify.shared_memory.lowering import lowering_of
    from llverify.shared_memory.predict import predict_wavefronts
    from llverify.shared_memory.register_to_offset import conversion_layout
    from llverify.shared_memory.wavefronts import access_addresses

    reg = layout_value(register_layout, list(shape), "register_layout")
    shared = layout_value(shared_layout, list(shape), "shared_layout")
    p = predict_wavefronts(
        reg, shared, shape, element_bits, direction, instruction=instruction, reps=reps
    )
    cvt, elems = conversion_layout(reg, shared, shape, element_bits)
    element_bytes = element_bits // 8
    size = cvt.get_out_dim_size("offset") * element_bytes // reps
    offsets = access_addresses(cvt) * element_bytes  # [warp, lane, register]
    warps, lanes, registers = offsets.shape
    if not p.instruction.startswith(("ldmatrix", "stmatrix")):
        model = lowering_of(cvt, elems, element_bits)
        offsets = np.array(
            [
                [[model.emitted(r, lane, w) for r in range(registers)] for lane in range(lanes)]
                for w in range(warps)
            ],
            dtype=np.int64,
        )
    starts = (offsets % size).reshape(warps * lanes, registers)
    starts -= starts.min()
    within = np.arange(element_bytes)
    per_thread = tuple(
        frozenset((row[:, None] + within[None, :]).ravel().tolist()) for row in starts
    )
    return SharedAccess(direction, p.instruction, p.instructions, p.wavefronts, per_thread, p.rule)


def _defining(module: TTGIRModule, value: str) -> Operation | None:
    return next((op for op in module.ops if value in op.results), None)


def _predictions(
    module: TTGIRModule, case: Case, threads: int
) -> tuple[dict[str, SharedAccess], str]:
    """The predicted store and load of ``case``'s op (what it moves through shared memory),
    or a note saying why there is none."""
    from llverify.conversion import Conversion
    from llverify.encodings import to_linear_layout
    from llverify.shared_memory.swizzle.constructive import convert_layout_swizzle

    op = case.op
    tensors = [t for t in op.types if t.kind == "tensor"]
    memdescs = [t for t in op.types if t.kind == "memdesc"]
    if not (module.target or "").startswith("cuda"):
        return {}, "llverify.shared_memory.predict models NVIDIA only"
    pairs: dict[str, tuple[Type, Any]] = {}
    choice: Any = None
    if op.name == "ttg.convert_layout":
        src, dst = tensors[0], tensors[-1]
        shape = list(src.shape)
        src_ll, dst_ll = (
            to_linear_layout(src.encoding, shape),
            to_linear_layout(dst.encoding, shape),
        )
        kind = Conversion(src_ll, dst_ll).kind
        if kind != "shared memory":
            empty = SharedAccess("", "none", 0, 0, tuple(frozenset() for _ in range(threads)))
            note = f"convert_layout lowered as {kind}: no shared memory"
            return {d: _replace_direction(empty, d) for d in ("store", "load")}, note
        choice = convert_layout_swizzle(src_ll, dst_ll, shape, src.bits or 0)
        pairs = {"store": (src, choice.layout), "load": (dst, choice.layout)}
    elif op.name == "ttg.local_load" and tensors and memdescs:
        pairs["load"] = (tensors[-1], memdescs[0])
        alloc = _defining(module, op.operands[0]) if op.operands else None
        if alloc is not None and alloc.name == "ttg.local_alloc":
            alloc_tensors = [t for t in alloc.types if t.kind == "tensor"]
            if alloc_tensors:
                pairs["store"] = (alloc_tensors[0], memdescs[0])
    elif op.name in ("ttg.local_store", "ttg.local_alloc") and tensors and memdescs:
        pairs["store"] = (tensors[0], memdescs[0])
    out: dict[str, SharedAccess] = {}
    notes = []
    for direction, (tensor, memory) in pairs.items():
        shared = memory.encoding if isinstance(memory, Type) else memory
        extra: dict[str, Any] = {}
        if choice is not None:
            extra = {
                "instruction": choice.store if direction == "store" else choice.load,
                "reps": choice.reps,
            }
        try:
            out[direction] = predict_access(
                tensor.encoding, shared, tensor.shape, tensor.bits or 0, direction, **extra
            )
        except (LLVerifyError, ValueError, TypeError) as error:
            notes.append(f"{direction}: no prediction ({error})")
    return out, "; ".join(notes)


def _replace_direction(access: SharedAccess, direction: str) -> SharedAccess:
    return SharedAccess(
        direction, access.instruction, access.instructions, access.wavefronts, access.addresses
    )


# ---------------------------------------------------------------------- comparing


def _differences(observed: SharedAccess, predicted: SharedAccess) -> tuple[str, ...]:
    out = []
    if observed.instruction != predicted.instruction:
        out.append(f"instruction {observed.instruction} (predicted {predicted.instruction})")
    if observed.instructions != predicted.instructions:
        out.append(
            f"{observed.instructions} warp instructions (predicted {predicted.instructions})"
        )
    if observed.wavefronts != predicted.wavefronts:
        out.append(f"{observed.wavefronts} wavefronts (predicted {predicted.wavefronts})")
    wrong = [t for t, (a, b) in enumerate(zip(observed.addresses, predicted.addresses)) if a != b]
    if wrong:
        t = wrong[0]
        got, want = sorted(observed.addresses[t]), sorted(predicted.addresses[t])
        out.append(
            f"bytes touched differ in {len(wrong)} threads (thread {t}: {_span(got)}, "
            f"predicted {_span(want)})"
        )
    return tuple(out)


def _span(values: list[int]) -> str:
    if not values:
        return "none"
    shown = values if len(values) <= 8 else values[:8]
    return "[" + ", ".join(map(str, shown)) + (", ...]" if len(values) > 8 else "]")


def _direction(record: Record) -> str:
    return "load" if record[0].startswith(("load", "ldmatrix")) else "store"


def compare_module(
    text: str, *, target: str | None = None, python: str | None = None
) -> list[Comparison]:
    """Compile and run the TTGIR module ``text`` (with the installed Triton, or ``python``'s)
    and compare, for every op that moves data through shared memory (``local_alloc`` of a
    value, ``local_load``, ``local_store``, ``convert_layout``), each direction's observed
    access with llverify's prediction.  Raises
    :class:`~llverify.emitted.sim.UnmodelledAt` when the code cannot be executed."""
    module = parse_module(text)
    if target is not None:
        module.target = target
    harness = build_harness(module)
    run, ptx = traced_run(harness, python=python)
    threads = harness.num_warps * harness.threads_per_warp
    records, moved = _records_by_case(module, harness, run)
    static = ptx_shared_instructions(ptx)
    sources = _Sources(harness)
    rows = []
    for case in harness.cases:
        if case.op.name not in SHARED_OPS:
            continue
        mine = records.get(case.index, [])
        predicted, note = _predictions(module, case, threads)
        own = sources.own_locations(case)
        first, last = case.harness_lines
        around = [p for p in static if p not in own and first <= p[0] <= last]
        for direction in ("store", "load"):
            chosen = [r for r in mine if _direction(r) == direction]
            expected = predicted.get(direction)
            if not chosen and expected is None:
                continue
            observed = observe_records(chosen, direction, threads, harness.threads_per_warp)
            differences = () if expected is None else _differences(observed, expected)
            said = note
            positions = list(own)
            if moved[case.index, direction]:
                said = "; ".join(filter(None, [note, _MOVED.format(moved[case.index, direction])]))
            if direction in _directions(module, case):  # the backend moves code too
                positions += around
            in_ptx: Counter[str] = Counter()
            for position in positions:
                for name, count in static.get(position, Counter()).items():
                    if name[0] == direction[0]:
                        in_ptx[name] += count
            traced = Counter(_instruction_name(r) for r in chosen)
            if ptx and traced != in_ptx:  # the trace is the LLVM IR; the PTX is what runs
                differences += (
                    f"observation: the traced LLVM IR has {dict(traced)}, the PTX {dict(in_ptx)}",
                )
            rows.append(
                Comparison(
                    case.description,
                    case.op_line,
                    direction,
                    observed,
                    expected,
                    differences,
                    said,
                )  # fmt: skip
            )
    return rows
