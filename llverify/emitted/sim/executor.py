"""Run an emitted LLVM IR kernel over every thread of one CTA at once, on tagged values.

The executor walks the kernel's control flow once for all threads (SIMT): a branch every
active thread takes the same way is followed; a divergent branch runs each side under its
thread mask and the two meet again at the branch's immediate post-dominator (phis pick each
thread's incoming value by the block it came from).  Loops with uniform trip counts run as
they are.  Values are :class:`~llverify.emitted.sim.symbolic.Val` (concrete indices, or byte
symbols of tagged data); memory is :mod:`llverify.emitted.sim.memory`.  Intrinsics and inline
assembly go to :mod:`llverify.emitted.sim.intrinsics` and :mod:`llverify.emitted.sim.ptx`.  Anything
not modelled raises :class:`~llverify.emitted.sim.symbolic.Unmodelled` with the instruction: the
caller's verdict becomes unknown, never a pass.

Examples:
    >>> from llverify.emitted.sim.llvm_ir import parse_llvm_ir
    >>> text = '''define void @k(ptr addrspace(1) %0, ptr addrspace(1) %1) {
    ...   %3 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
    ...   %4 = xor i32 %3, 1
    ...   %5 = getelementptr float, ptr addrspace(1) %0, i32 %4
    ...   %6 = load float, ptr addrspace(1) %5, align 4
    ...   %7 = getelementptr float, ptr addrspace(1) %1, i32 %3
    ...   store float %6, ptr addrspace(1) %7, align 4
    ...   ret void
    ... }'''
    >>> run = Execution(parse_llvm_ir(text), "k", threads=4, warp_size=4, shared_bytes=0)
    >>> inp = run.add_input(0, "x", element_bytes=4, count=4)
    >>> out = run.add_output(1, "y", element_bytes=4, count=4)
    >>> run.run()
    >>> [run.dag.describe(n) for n in run.output_nodes(out, 4)]
    ['x[1]', 'x[0]', 'x[3]', 'x[2]']
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from llverify.emitted.sim import instructions, intrinsics, ptx
from llverify.emitted.sim.instructions import SHARED_WINDOW, bits_of, merge, nbytes_of
from llverify.emitted.sim.llvm_ir import Block, Function, Instruction, LLVMModule, Type, Value
from llverify.emitted.sim.memory import GlobalMemory, OpenRegion, Region, SharedMemory, Violation
from llverify.emitted.sim.symbolic import UNDEFINED, Dag, Unmodelled, Val, canonical_op

__all__ = ["Execution", "MAX_STEPS", "UnmodelledAt"]

MAX_STEPS = 5_000_000  # instructions executed before the run is declared non-terminating
GLOBAL_STRIDE = 1 << 40  # buffer k lives at (k + 1) * GLOBAL_STRIDE


@dataclass
class UnmodelledAt(Exception):  # noqa: N818 - the verdict is unknown, not an error
    """An :class:`Unmodelled` construct, with the instruction it came from."""

    reason: str
    instruction: Instruction | None

    def __str__(self) -> str:
        where = ""
        if self.instruction is not None:
            where = f" (LLVM IR line {self.instruction.text_line}"
            if self.instruction.line is not None:
                where += f", source line {self.instruction.line}"
            where += ")"
        return self.reason + where


@dataclass
class _Frame:
    mask: np.ndarray
    stop: str | None


@dataclass(repr=False)
class Execution:
    """One run of ``kernel`` of ``module`` by ``threads`` threads in each of ``ctas`` CTAs (a
    cluster: the CTAs run one after the other, each with its own shared memory, all sharing
    global memory; ``%ctaid.x`` and ``%cluster_ctarank`` are the CTA's index)."""

    module: LLVMModule
    kernel: str
    threads: int
    warp_size: int
    shared_bytes: int
    dag: Dag = field(default_factory=Dag)
    steps: int = 0
    executed: dict[str, int] = field(default_factory=dict)
    # when a list: (kind, space, bytes per thread, threads, byte addresses, where) per access
    trace: list[tuple[str, int, int, np.ndarray, np.ndarray, str]] | None = None
    ctas: int = 1

    def __post_init__(self) -> None:
        if self.kernel not in self.module.functions:
            raise ValueError(
                f"kernel: {self.kernel!r} is not a function of the module "
                f"(it has {sorted(self.module.functions)})"
            )
        self.function: Function = self.module.functions[self.kernel]
        self.tid = np.arange(self.threads, dtype=np.uint64)
        self.env: dict[str, Val] = {}
        self.shared = SharedMemory(
            max(self.shared_bytes, 0), threads=self.threads, warp_size=self.warp_size
        )
        self.memory = GlobalMemory()
        self.cta = 0
        self._finished_shared: list[SharedMemory] = []
        self.memory.undefined_origin = lambda: self.uninitialised[0] if self.uninitialised else None
        self.came_from = np.full(self.threads, -1, dtype=np.int64)
        self.block_ids = {block.label: k for k, block in enumerate(self.function.blocks)}
        self.finished = np.zeros(self.threads, dtype=bool)
        self.async_groups: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, str]]] = [[]]
        for k, (_, name) in enumerate(self.function.arguments):
            self.env[name] = Val.concrete((k + 1) * GLOBAL_STRIDE, 64, self.threads)
        self._ipdom = _post_dominators(self.function)

    # -- buffers ---------------------------------------------------------------------------
    def _base(self, arg: int) -> int:
        return (arg + 1) * GLOBAL_STRIDE

    def add_input(self, arg: int, name: str, *, element_bytes: int, count: int) -> Region:
        """Pointer argument ``arg`` points at ``count`` tagged elements (leaves of the DAG)."""
        buffer = len(self.memory.regions)
        self.dag.buffer_names[buffer] = name
        first = len(self.dag.nodes)
        nodes = np.array(
            [self.dag.leaf(buffer, i, element_bytes) for i in range(count)], dtype=np.int64
        )
        assert nodes[0] == first or count == 0
        data = (nodes[:, None] * 16 + np.arange(element_bytes)[None, :]).reshape(-1)
        return self.memory.add(name, self._base(arg), data, "input")

    def add_values(self, arg: int, name: str, values: np.ndarray, *, element_bytes: int) -> Region:
        """Pointer argument ``arg`` points at concrete integers ``values``."""
        raw = np.asarray(values, dtype=np.int64).astype(np.uint64)
        shifts = (np.arange(element_bytes, dtype=np.uint64) * np.uint64(8))[None, :]
        data = -1 - ((raw[:, None] >> shifts) & np.uint64(0xFF)).astype(np.int64)
        return self.memory.add(name, self._base(arg), data.reshape(-1), "values")

    def add_output(self, arg: int, name: str, *, element_bytes: int, count: int) -> Region:
        data = np.full(count * element_bytes, UNDEFINED, dtype=np.int64)
        return self.memory.add(name, self._base(arg), data, "output")

    def set_argument(self, arg: int, value: int | None, name: str = "") -> None:
        """Give scalar argument ``arg`` a concrete ``value`` (None: a tagged, unknown value)."""
        ty, ssa = self.function.arguments[arg]
        bits = bits_of(ty)
        if value is not None:
            self.env[ssa] = Val.concrete(value & ((1 << bits) - 1), bits, self.threads)
            return
        buffer = len(self.memory.regions) + 1000 + arg
        self.dag.buffer_names[buffer] = f"argument {name or ssa}"
        node = self.dag.leaf(buffer, 0, max(1, bits // 8))
        syms = np.broadcast_to(
            node * 16 + np.arange(max(1, bits // 8)), (self.threads, max(1, bits // 8))
        )
        self.env[ssa] = Val(bits, syms=syms.copy())

    def add_open(self, arg: int, name: str) -> OpenRegion:
        """Pointer argument ``arg`` points at a buffer of unknown size and contents: every byte
        read before it is written is a tagged leaf (``name[byte offset]``)."""
        buffer = len(self.memory.regions)
        self.dag.buffer_names[buffer] = name

        def fresh(offsets: np.ndarray) -> np.ndarray:
            nodes = [self.dag.leaf(buffer, int(offset), 1) for offset in offsets]
            return np.asarray(nodes, dtype=np.int64) * 16

        return self.memory.add_open(name, self._base(arg), GLOBAL_STRIDE // 2, fresh)

    def add_scratch(self, arg: int, name: str, size: int) -> Region:
        return self.memory.add(
            name, self._base(arg), np.full(size, UNDEFINED, dtype=np.int64), "scratch"
        )

    def output_nodes(self, region: Region, element_bytes: int) -> list[int]:
        """The DAG node each element of output ``region`` holds (``bytes`` nodes for partial)."""
        rows = region.data.reshape(-1, element_bytes)
        return [self.dag.from_symbols(tuple(int(s) for s in row)) for row in rows]

    @property
    def violations(self) -> list[Violation]:
        earlier = [v for shared in self._finished_shared for v in shared.violations]
        return earlier + self.shared.violations + self.memory.violations

    @property
    def uninitialised(self) -> list[Violation]:
        """Every read of a shared byte no thread wrote, in every CTA run so far."""
        earlier = [v for shared in self._finished_shared for v in shared.uninitialised]
        return earlier + self.shared.uninitialised

    def __repr__(self) -> str:
        return f"Execution({self.kernel!r}, threads={self.threads}, steps={self.steps})"

    def complete_async_copies(self, keep: int = 0) -> None:
        """``cp.async.wait_group keep``: land every committed group but the newest ``keep``."""
        committed = self.async_groups[:-1]
        landing = committed[: max(0, len(committed) - keep)]
        for group in landing:
            for addresses, data, mask, where in group:
                threads = np.flatnonzero(mask)
                grid = (addresses[threads] & np.uint64(0xFFFFFFFF)).astype(np.int64)[
                    :, None
                ] + np.arange(data.shape[1])[None, :]
                self.shared.write(grid, data[threads], threads, where)
        self.async_groups = committed[len(landing) :] + [self.async_groups[-1]]

    # -- control flow ----------------------------------------------------------------------
    def run(self) -> None:
        """Execute the kernel; raises :class:`UnmodelledAt` on anything not modelled."""
        if self.ctas < 1:
            raise ValueError(f"ctas: expected at least 1 CTA, got {self.ctas}")
        for cta in range(self.ctas):
            if cta:
                self._start_cta(cta)
            self._run_from(self.function.blocks[0].label, np.ones(self.threads, dtype=bool), None)
        self.memory.check_shadows()

    def _start_cta(self, cta: int) -> None:
        """The next CTA of the cluster: fresh shared memory and registers, same arguments."""
        self.cta = cta
        arguments = {name for _, name in self.function.arguments}
        self.env = {name: value for name, value in self.env.items() if name in arguments}
        self._finished_shared.append(self.shared)
        self.shared = SharedMemory(
            max(self.shared_bytes, 0), threads=self.threads, warp_size=self.warp_size
        )
        self.came_from[:] = -1
        self.finished[:] = False
        self.async_groups = [[]]

    def _run_from(self, label: str | None, mask: np.ndarray, stop: str | None) -> None:
        while label is not None and label != stop:
            mask = mask & ~self.finished
            if not mask.any():
                return
            block = self.function.block(label)
            label = self._run_block(block, mask, stop)

    def _run_block(self, block: Block, mask: np.ndarray, stop: str | None) -> str | None:
        for instruction in block.instructions:
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise UnmodelledAt(
                    f"more than {MAX_STEPS} instructions executed (a non-uniform or "
                    "unbounded loop?)",
                    instruction,
                )
            opcode = instruction.opcode
            if opcode == "br":
                return self._branch(block, instruction, mask, stop)
            if opcode == "ret":
                self.finished |= mask
                return None
            if opcode == "unreachable":
                raise UnmodelledAt("the kernel reaches 'unreachable'", instruction)
            try:
                self._execute(instruction, mask)
            except Unmodelled as exc:
                raise UnmodelledAt(str(exc), instruction) from None
        raise UnmodelledAt(f"block {block.label} has no terminator", None)

    def _branch(
        self, block: Block, instruction: Instruction, mask: np.ndarray, stop: str | None
    ) -> str | None:
        targets = instruction.extra["targets"]
        assert isinstance(targets, tuple)
        here = self.block_ids[block.label]
        if len(targets) == 1:
            self.came_from[mask] = here
            return str(targets[0])
        try:
            cond = (
                self.value(instruction.operands[0]).integers(mask, "branch condition").astype(bool)
            )
        except Unmodelled as exc:
            raise UnmodelledAt(str(exc), instruction) from None
        taken = mask & cond
        not_taken = mask & ~cond
        self.came_from[mask] = here
        if not not_taken.any():
            return str(targets[0])
        if not taken.any():
            return str(targets[1])
        join = self._ipdom.get(block.label)
        self._run_from(str(targets[0]), taken, join)
        self._run_from(str(targets[1]), not_taken, join)
        return join

    # -- values ----------------------------------------------------------------------------
    def value(self, operand: Value) -> Val:
        if operand.is_local:
            try:
                return self.env[operand.text]
            except KeyError:
                raise Unmodelled(f"{operand.text} is used before it is defined") from None
        return self.constant(operand)

    def constant(self, operand: Value) -> Val:
        ty = operand.type
        text = operand.text
        if text.startswith("@"):
            if (
                text == "@global_smem"
                or self.module.globals.get(text, Type("void")).kind == "array"
            ):
                return Val.concrete(0, 32, self.threads)
            raise Unmodelled(f"global {text}")
        if text in ("poison", "undef"):
            return Val(
                bits_of(ty), syms=np.full((self.threads, nbytes_of(ty)), UNDEFINED, dtype=np.int64)
            )
        if text in ("zeroinitializer", "null", "false"):
            return Val(
                bits_of(ty), syms=np.full((self.threads, nbytes_of(ty)), -1, dtype=np.int64)
            ).normalised()
        if text == "gep":
            source = operand.elements[0].type
            fake = Instruction(
                None, "getelementptr", ty, list(operand.elements[1:]), {"source": source}
            )
            address = instructions.HANDLERS["getelementptr"](
                self, fake, np.ones(self.threads, dtype=bool)
            )
            assert address is not None
            return address
        if text in ("bitcast", "addrspacecast", "ptrtoint", "inttoptr"):
            inner = operand.elements[0]
            fake = Instruction(None, text, ty, [inner], {})
            cast = instructions.HANDLERS[text](self, fake, np.ones(self.threads, dtype=bool))
            assert cast is not None
            return cast
        if text == "true":
            return Val.concrete(1, 1, self.threads)
        if text == "const":
            parts = [self.constant(e).byte_symbols() for e in operand.elements]
            return Val(bits_of(ty), syms=np.concatenate(parts, axis=1)).normalised()
        if ty.kind == "int":
            return Val.concrete(int(text) & ((1 << ty.bits) - 1), ty.bits, self.threads)
        if ty.kind == "float":
            return Val.concrete(_float_bits(text, ty), ty.bits, self.threads)
        raise Unmodelled(f"constant {text!r} of type {ty}")

    def set(self, instruction: Instruction, value: Val, mask: np.ndarray) -> None:
        name = instruction.result
        if name is None:
            return
        old = self.env.get(name)
        if old is None or mask.all():
            self.env[name] = value
            return
        self.env[name] = merge(mask, value, old)

    # -- instructions ----------------------------------------------------------------------
    def _execute(self, instruction: Instruction, mask: np.ndarray) -> None:
        opcode = instruction.opcode
        self.executed[opcode] = self.executed.get(opcode, 0) + 1
        handler = _HANDLERS.get(opcode)
        if handler is None:
            raise Unmodelled(f"instruction {opcode!r}")
        result = handler(self, instruction, mask)
        if result is not None:
            self.set(instruction, result, mask)

    def where(self, instruction: Instruction) -> str:
        line = (
            f"source line {instruction.line}" if instruction.line is not None else "no source line"
        )
        return f"{instruction.opcode} at LLVM IR line {instruction.text_line} ({line})"

    # memory access by address space
    def load_bytes(
        self,
        space: int,
        addresses: np.ndarray,
        nbytes: int,
        mask: np.ndarray,
        instruction: Instruction,
    ) -> np.ndarray:
        """Byte symbols (T, nbytes) read at ``addresses`` (uint64, shape (T,)) by active threads."""
        out = np.full((self.threads, nbytes), UNDEFINED, dtype=np.int64)
        threads = np.flatnonzero(mask)
        if threads.size == 0:
            return out
        space, base = self._space(space, addresses[threads])
        grid = base[:, None] + np.arange(nbytes, dtype=np.int64)[None, :]
        where = self.where(instruction)
        if self.trace is not None:
            self.trace.append(("load", space, nbytes, threads, base, where))
        if space == 3:
            out[threads] = self.shared.read(grid, threads, where)
        else:
            out[threads] = self.memory.read(grid, threads, where)
        return out

    def store_bytes(
        self,
        space: int,
        addresses: np.ndarray,
        values: np.ndarray,
        mask: np.ndarray,
        instruction: Instruction,
    ) -> None:
        threads = np.flatnonzero(mask)
        if threads.size == 0:
            return
        space, base = self._space(space, addresses[threads])
        grid = base[:, None] + np.arange(values.shape[1], dtype=np.int64)[None, :]
        where = self.where(instruction)
        if self.trace is not None:
            self.trace.append(("store", space, values.shape[1], threads, base, where))
        if space == 3:
            self.shared.write(grid, values[threads], threads, where)
        else:
            self.memory.write(grid, values[threads], threads, where)

    def shadow_store(
        self, addresses: np.ndarray, values: np.ndarray, mask: np.ndarray, instruction: Instruction
    ) -> None:
        """A global store the threads of ``mask`` would have made (their predicate was off)."""
        threads = np.flatnonzero(mask)
        base = addresses[threads].astype(np.int64)
        grid = base[:, None] + np.arange(values.shape[1], dtype=np.int64)[None, :]
        self.memory.shadow(grid, values[threads], threads, self.where(instruction))

    def _space(self, space: int, addresses: np.ndarray) -> tuple[int, np.ndarray]:
        if space == 3:
            return 3, (addresses & np.uint64(0xFFFFFFFF)).astype(np.int64)
        if space in (1, 0):
            if space == 0 and (addresses >= np.uint64(SHARED_WINDOW)).any():
                if not (addresses >= np.uint64(SHARED_WINDOW)).all():
                    raise Unmodelled("a generic access mixing shared and global addresses")
                return 3, (addresses - np.uint64(SHARED_WINDOW)).astype(np.int64)
            return 1, addresses.astype(np.int64)
        raise Unmodelled(f"memory in address space {space}")

    def data_op(self, name: str, operands: list[Val], out_bytes: int) -> Val:
        """A data-computing op: one DAG node per thread over the operands' nodes."""
        name = canonical_op(name)
        columns = [self.nodes_of(v) for v in operands]
        stacked = np.stack(columns, axis=1)
        unique, inverse = np.unique(stacked, axis=0, return_inverse=True)
        made = np.array(
            [self.dag.op(name, tuple(int(x) for x in row), out_bytes) for row in unique],
            dtype=np.int64,
        )
        nodes = made[inverse.reshape(-1)]
        syms = nodes[:, None] * 16 + np.arange(out_bytes, dtype=np.int64)[None, :]
        folded = [k for k, n in enumerate(made) if self.dag.nodes[n][0] == "const"]
        for k in folded:  # a thread whose operands were constants holds constant bytes
            number = int(self.dag.nodes[int(made[k])][1])
            constant = -1 - np.array([(number >> (8 * b)) & 0xFF for b in range(out_bytes)])
            syms[nodes == made[k]] = constant
        result = Val(out_bytes * 8, syms=syms)
        return result.normalised() if folded else result

    def nodes_of(self, value: Val) -> np.ndarray:
        rows = value.byte_symbols()
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        made = np.array(
            [self.dag.from_symbols(tuple(int(s) for s in row)) for row in unique], dtype=np.int64
        )
        return made[inverse.reshape(-1)]


_MANTISSA = {"half": 10, "bfloat": 7, "float": 23, "double": 52}
_SPECIAL = re.compile(r"([-+])(inf|[qs]?nan)(?:\(0x([\da-fA-F]+)\))?$")


def _float_bits(text: str, ty: Type) -> int:
    """The bits of the float constant ``text`` of type ``ty``: decimal, ``0x`` hex (doubles for
    ``float``), or the special forms ``+inf``, ``-nan``, ``+nan(0xP)`` (a quiet NaN with payload
    P below the quiet bit: bfloat ``+nan(0x3F)`` is 0x7FFF) and ``+snan(0xP)``.

    >>> from llverify.emitted.sim.llvm_ir import Type
    >>> hex(_float_bits("+nan(0x3F)", Type("float", bits=16, name="bfloat")))
    '0x7fff'
    >>> hex(_float_bits("-inf", Type("float", bits=32, name="float")))
    '0xff800000'
    >>> hex(_float_bits("1.000000e+00", Type("float", bits=16, name="bfloat")))
    '0x3f80'
    """
    if text.startswith("f0x"):  # the type's own IEEE bits (LLVM 20+ spelling)
        return int(text[3:], 16)
    special = _SPECIAL.match(text)
    if special is not None and ty.name in _MANTISSA:
        sign, kind, payload = special.groups()
        mantissa = _MANTISSA[ty.name]
        exponent = ((1 << (ty.bits - 1 - mantissa)) - 1) << mantissa
        fraction = int(payload or "0", 16)
        if kind in ("nan", "qnan"):
            fraction |= 1 << (mantissa - 1)
        if fraction >> mantissa or (kind == "snan" and fraction == 0):
            raise Unmodelled(f"float constant {text} of type {ty}")
        return (1 << (ty.bits - 1) if sign == "-" else 0) | exponent | fraction
    if text.startswith("0x"):
        digits = text[2:]
        if digits[:1] in ("K", "L", "M", "H", "R"):  # x87/fp128/half/bfloat hex forms
            return int(digits[1:], 16)
        value = int(digits, 16)
        if ty.bits == 32:  # LLVM writes float constants as doubles
            return int(
                np.array(
                    [np.frombuffer(value.to_bytes(8, "little"), np.float64)[0]], dtype=np.float32
                ).view(np.uint32)[0]
            )
        return value
    try:
        as_float = float(text)
    except ValueError:
        raise Unmodelled(f"float constant {text!r}") from None
    if ty.bits == 64:
        return int(np.array([as_float], dtype=np.float64).view(np.uint64)[0])
    if ty.bits == 32:
        return int(np.array([as_float], dtype=np.float32).view(np.uint32)[0])
    if ty.bits == 16 and ty.name == "half":
        return int(np.array([as_float], dtype=np.float16).view(np.uint16)[0])
    if ty.name == "bfloat":  # LLVM writes a bfloat in decimal only when it is exact
        single = np.array([as_float], dtype=np.float32)
        bits = int(single.view(np.uint32)[0])
        if bits & 0xFFFF == 0 and float(single[0]) == as_float:
            return bits >> 16
    raise Unmodelled(f"float constant {text} of type {ty}")


def _post_dominators(function: Function) -> dict[str, str | None]:
    """Immediate post-dominator of each block (None: the exit)."""
    labels = [b.label for b in function.blocks]
    successors: dict[str, list[str]] = {}
    for block in function.blocks:
        last = block.instructions[-1]
        targets = last.extra.get("targets", ()) if last.opcode == "br" else ()
        assert isinstance(targets, tuple)
        successors[block.label] = [str(t) for t in targets]
    exit_label = "<exit>"
    everything = set(labels) | {exit_label}
    post: dict[str, set[str]] = {label: set(everything) for label in labels}
    post[exit_label] = {exit_label}
    changed = True
    while changed:
        changed = False
        for label in reversed(labels):
            succ = successors[label] or [exit_label]
            new = set.intersection(*(post[s] for s in succ)) | {label}
            if new != post[label]:
                post[label] = new
                changed = True
    ipdom: dict[str, str | None] = {}
    for label in labels:
        strict = post[label] - {label}
        # the immediate one is the strict post-dominator that every other strict one post-dominates
        best = None
        for candidate in strict:
            if all(other in post[candidate] for other in strict):
                best = candidate
        ipdom[label] = None if best in (None, exit_label) else best
    return ipdom


def _call(run: Execution, instruction: Instruction, mask: np.ndarray) -> Val | None:
    if instruction.extra.get("callee") == "asm":
        return ptx.run_inline_asm(run, instruction, mask)
    return intrinsics.call(run, instruction, mask)


_Handler = Callable[[Execution, Instruction, np.ndarray], "Val | None"]
_HANDLERS: dict[str, _Handler] = {**instructions.HANDLERS, "call": _call}
