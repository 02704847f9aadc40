"""Hardware facts: the GPU targets (:data:`TARGETS`: Triton target, lanes, shared-memory bank
model), bank models (lanes, banks, bank width, access phases), the LDS partition models
(:data:`PARTITION_MODELS`: gfx1250), element-bit rules, and the element types
(:data:`DTYPES`).  Every list of targets or dtypes elsewhere derives from these.

Examples:
    >>> TARGETS["sm90"].triton, TARGETS["gfx1100"].lanes, TARGETS["gfx1100"].bank_model is None
    ('cuda:90', 32, True)
    >>> tgt = resolve_target("gfx942")
    >>> tgt.lanes, tgt.banks, tgt.pass_lanes(4)
    (64, 32, [1, 2, 20])
    >>> VECTOR_ELEMENT_BITS.check(16), dtype_bits("bf16"), element_type_bits("f8E5M2")
    (16, 16, 8)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llverify.bits import as_int, is_power_of_2
from llverify.errors import LayoutError, LLVerifyError

__all__ = [
    "ANY_ELEMENT_BITS",
    "BANK_BITS",
    "BANK_MODELS",
    "DTYPES",
    "DTYPE_BITS",
    "DTYPE_NAMES",
    "DTYPE_WIDTHS",
    "GLUON_DTYPE_BITS",
    "LEGACY_ELEMENT_BITS",
    "PARTITION_MODELS",
    "PADDED_ELEMENT_BITS",
    "TARGETS",
    "VECTOR_BITS",
    "VECTOR_ELEMENT_BITS",
    "Dtype",
    "ElementBitsRule",
    "GpuTarget",
    "PartitionModel",
    "Target",
    "dtype_bits",
    "element_type_bits",
    "resolve_target",
    "target_of_triton",
]

#: bits of one shared-memory bank (a 32-bit word), on every target
BANK_BITS = 32
#: the widest shared-memory access of one lane (ld/st.shared.v4.b32, ds_read_b128)
VECTOR_BITS = 128


@dataclass(frozen=True)
class Target:
    """A shared-memory target (a bank model): lanes per warp, banks of :data:`BANK_BITS` bits,
    and whether ds_read_b128 groups lanes by XOR phases (AMD wave64).

    Examples:
        >>> Target("nvidia", 32, 32).pass_lanes(2)
        [1, 2, 4, 8]
        >>> Target("odd", 32, 24)
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'target' must have power-of-2 lanes and banks, at least 4 banks (a 128-bit vector in one bank row), not Target(name='odd', lanes=32, banks=24, amd=False).
    """  # noqa: E501

    name: str
    lanes: int
    banks: int
    amd: bool = False

    def __post_init__(self) -> None:
        if not (is_power_of_2(self.lanes) and is_power_of_2(self.banks) and self.banks >= 4):
            raise LayoutError(
                f"Argument 'target' must have power-of-2 lanes and banks, at least 4 banks (a "
                f"{VECTOR_BITS}-bit vector in one bank row), not {self!r}."
            )

    def pass_lanes(self, words_per_lane: int) -> list[int]:
        """Lane indices spanning one pass (a GF(2) basis; the pass is their span): on NVIDIA
        ``banks / words_per_lane`` consecutive lanes; on AMD wave64 ds_read_b128 the XOR
        phases span(l0, l1, l2^l4) (32 banks) or span(l0, l1, l2^l3, l2^l4) (64 banks).

        Examples:
            >>> BANK_MODELS["gfx950"].pass_lanes(4)
            [1, 2, 12, 20]
        """
        if self.amd and words_per_lane == 4:
            return [1, 2, 4 ^ 16] if self.banks == 32 else [1, 2, 4 ^ 8, 4 ^ 16]
        per_pass = min(self.lanes, self.banks // words_per_lane)
        return [1 << i for i in range(per_pass.bit_length() - 1)]

    def triton_lanes(self, words_per_lane: int) -> list[int]:
        """Triton's lane tile (``getLaneTile`` with an empty ``laneAddr``): the lanes below
        ``log2(phases)`` from the top, sequential.

        Examples:
            >>> BANK_MODELS["nvidia"].triton_lanes(4)
            [1, 2, 4]
        """
        log2_lanes = self.lanes.bit_length() - 1
        log2_phase = max(
            0, (words_per_lane.bit_length() - 1) + log2_lanes - (self.banks.bit_length() - 1)
        )
        return [1 << i for i in range(log2_lanes - log2_phase)]


@dataclass(frozen=True)
class GpuTarget:
    """A GPU target as ``audit --target`` and ``validate --target`` name it (``sm90``,
    ``gfx942``): the Triton target it compiles for (``backend:arch``), its lanes per warp,
    and its shared-memory bank model (None where llverify has none).

    Examples:
        >>> TARGETS["gfx942"]
        GpuTarget(name='gfx942', backend='hip', arch='gfx942', lanes=64, bank_model=Target(name='gfx942', lanes=64, banks=32, amd=True))
        >>> GpuTarget("sm90", "cuda", 90, 64, BANK_MODELS["nvidia"])
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'lanes' of target sm90 must be its bank model's 32 lanes (nvidia), not 64.
    """  # noqa: E501

    name: str
    backend: str  # "cuda" or "hip"
    arch: int | str  # the SM number (90) or the gfx architecture ("gfx942")
    lanes: int  # threads per warp (wavefront)
    bank_model: Target | None

    def __post_init__(self) -> None:
        model = self.bank_model
        if model is not None and model.lanes != self.lanes:
            raise LayoutError(
                f"Argument 'lanes' of target {self.name} must be its bank model's "
                f"{model.lanes} lanes ({model.name}), not {self.lanes}."
            )

    @property
    def triton(self) -> str:
        """The Triton target, as ``ttg.target`` spells it (``"cuda:90"``, ``"hip:gfx942"``)."""
        return f"{self.backend}:{self.arch}"


_NVIDIA = Target("nvidia", 32, 32)

#: The GPU targets (the one target table: everything else derives from it), by name
TARGETS = {
    t.name: t
    for t in (
        GpuTarget("sm80", "cuda", 80, 32, _NVIDIA),
        GpuTarget("sm86", "cuda", 86, 32, _NVIDIA),
        GpuTarget("sm89", "cuda", 89, 32, _NVIDIA),
        GpuTarget("sm90", "cuda", 90, 32, _NVIDIA),
        GpuTarget("sm100", "cuda", 100, 32, _NVIDIA),
        GpuTarget("sm120", "cuda", 120, 32, _NVIDIA),
        GpuTarget("gfx942", "hip", "gfx942", 64, Target("gfx942", 64, 32, amd=True)),
        GpuTarget("gfx950", "hip", "gfx950", 64, Target("gfx950", 64, 64, amd=True)),
        GpuTarget("gfx1100", "hip", "gfx1100", 32, None),  # RDNA3, wave32: no bank model here
    )
}
#: The shared-memory bank models of :data:`TARGETS`, by name (``nvidia``, ``gfx942``, ...)
BANK_MODELS = {t.bank_model.name: t.bank_model for t in TARGETS.values() if t.bank_model}


@dataclass(frozen=True)
class PartitionModel:
    """An LDS cut into partitions: ``lds_bytes`` in partitions of ``partition_bytes``, and
    the warp-id bits whose two waves issue one LDS instruction together (``w`` and
    ``w ^ (1 << bit)``).

    >>> model = PARTITION_MODELS["gfx1250"]  # llverify.shared_memory.partitions has sources
    >>> model.partitions, model.partition_of(65535), model.partition_of(65536)
    (5, 0, 1)
    """

    name: str
    lds_bytes: int
    partition_bytes: int
    paired_warp_bits: tuple[int, ...]

    @property
    def partitions(self) -> int:
        return self.lds_bytes // self.partition_bytes

    def partition_of(self, address: int) -> int:
        """The partition of byte ``address`` (Triton's ``offset / partitionSize``)."""
        return address // self.partition_bytes


#: The targets with LDS partitions (Triton 3.9 partitions the LDS of gfx1250 only): 320 KiB
#: of LDS (LLVM getAddressableLocalMemorySize), 64 KiB partitions (Triton's AMD TargetInfo
#: getSharedMemoryPartitionSize), waves w and w ^ 1 paired (Gluon's CDNA5 GEMM helper).
PARTITION_MODELS = {"gfx1250": PartitionModel("gfx1250", 327_680, 65_536, (0,))}


def target_of_triton(triton: str) -> GpuTarget | None:
    """The target of :data:`TARGETS` that compiles for the Triton target ``triton``, or None.

    Examples:
        >>> target_of_triton("hip:gfx950").name, target_of_triton("cuda:75")
        ('gfx950', None)
    """
    return next((t for t in TARGETS.values() if t.triton == triton), None)


def resolve_target(target: str | Target, error: type[LLVerifyError] = LayoutError) -> Target:
    """The :class:`Target` named by ``target`` (a name in :data:`BANK_MODELS` or a Target).

    ``error`` is the exception class raised for anything else (a subclass of ValueError).

    Examples:
        >>> resolve_target("nvidia").banks
        32
        >>> resolve_target("sm90")
        Traceback (most recent call last):
        ...
        llverify.errors.LayoutError: Argument 'target' must be a Target or one of ['gfx942', 'gfx950', 'nvidia'], not 'sm90'.
    """  # noqa: E501
    if isinstance(target, Target):
        return target
    if not isinstance(target, str) or target not in BANK_MODELS:
        raise error(
            f"Argument 'target' must be a Target or one of {sorted(BANK_MODELS)}, not {target!r}."
        )
    return BANK_MODELS[target]


@dataclass(frozen=True)
class ElementBitsRule:
    """The element widths (bits) an analysis accepts, and why."""

    widths: tuple[int, ...]
    reason: str

    def check(
        self, value: Any, name: str = "element_bits", error: type[LLVerifyError] = LayoutError
    ) -> int:
        """``value`` as an int in :attr:`widths`; a LayoutTypeError for a non-int, ``error``
        (a ValueError) for another width.

        Examples:
            >>> LEGACY_ELEMENT_BITS.check(12)
            Traceback (most recent call last):
            ...
            llverify.errors.LayoutError: Argument 'element_bits' must be one of [8, 16, 32, 64] (the element_bitwidth of Triton's shared encodings), not 12.
        """  # noqa: E501
        bits = as_int(value, name)
        if bits not in self.widths:
            raise error(
                f"Argument '{name}' must be one of {list(self.widths)} ({self.reason}), not {bits}."
            )
        return bits


#: powers of 2 up to 64 bits (bank maps, ``synthesize_swizzle``)
ANY_ELEMENT_BITS = ElementBitsRule((1, 2, 4, 8, 16, 32, 64), "a power of 2 up to 64 bits")
#: widths dividing one 128-bit vector (``constructive_swizzle``, ``convert_layout_swizzle``)
VECTOR_ELEMENT_BITS = ElementBitsRule(
    (1, 2, 4, 8, 16, 32, 64, 128), f"a vector is at most {VECTOR_BITS} bits"
)
#: whole bytes dividing 128 bits (padded shared layouts: Triton asserts)
PADDED_ELEMENT_BITS = ElementBitsRule(
    (8, 16, 32, 64, 128), "padded shared layouts need whole-byte elements dividing 128 bits"
)
#: the legacy shared encodings' ``element_bitwidth`` (the ``best_*`` searches)
LEGACY_ELEMENT_BITS = ElementBitsRule(
    (8, 16, 32, 64), "the element_bitwidth of Triton's shared encodings"
)


@dataclass(frozen=True)
class Dtype:
    """An element type: its bits and its names (lower case) in each spelling: ``names`` are
    dtype names (``--dtype``, spec files, TTGIR), ``ttgir`` TTGIR element types that are no
    dtype name, ``gluon`` Gluon's dtype names (``ttgl.float16``)."""

    bits: int
    names: tuple[str, ...] = ()
    ttgir: tuple[str, ...] = ()
    gluon: tuple[str, ...] = ()


#: The element types (the one dtype table: everything else derives from it)
DTYPES = (
    Dtype(1, gluon=("int1",)),  # Gluon's bit width of a boolean
    Dtype(8, ttgir=("i1",)),  # a TTGIR boolean takes a byte in memory
    Dtype(4, ("i4", "u4")),
    Dtype(4, ("e2m1", "f4")),
    Dtype(8, ("i8",), gluon=("int8",)),
    Dtype(8, ("u8",), gluon=("uint8",)),
    Dtype(8, ("f8", "fp8")),
    Dtype(8, ("e4m3", "f8e4m3fn"), gluon=("float8e4nv",)),
    Dtype(8, ("e5m2", "f8e5m2"), gluon=("float8e5",)),
    Dtype(8, ttgir=("f8e4m3b11fnuz",), gluon=("float8e4b15",)),
    Dtype(8, ttgir=("f8e4m3fnuz",), gluon=("float8e4b8",)),
    Dtype(8, ttgir=("f8e5m2fnuz",), gluon=("float8e5b16",)),
    Dtype(16, ("i16",), gluon=("int16",)),
    Dtype(16, ("u16",), gluon=("uint16",)),
    Dtype(16, ("f16", "fp16", "float16"), gluon=("float16",)),
    Dtype(16, ("bf16", "bfloat16"), gluon=("bfloat16",)),
    Dtype(32, ("i32",), gluon=("int32",)),
    Dtype(32, ("u32",), gluon=("uint32",)),
    Dtype(32, ("f32", "fp32", "float32"), gluon=("float32",)),
    Dtype(32, ("tf32",)),
    Dtype(64, ("i64",), gluon=("int64",)),
    Dtype(64, ("u64",), gluon=("uint64",)),
    Dtype(64, ("f64", "fp64", "float64"), gluon=("float64",)),
)
#: dtype names (lower case) -> bits
DTYPE_BITS = {name: d.bits for d in DTYPES for name in d.names}
#: one name per dtype (the first of its names), for help texts
DTYPE_NAMES = tuple(d.names[0] for d in DTYPES if d.names)
#: the element widths a dtype may be given as directly (a bit count)
DTYPE_WIDTHS = tuple(sorted({d.bits for d in DTYPES if d.names}))
#: Gluon dtype names -> bits
GLUON_DTYPE_BITS = {name: d.bits for d in DTYPES for name in d.gluon}
#: TTGIR element types that are not dtype names -> bits
_TTGIR_ONLY_BITS = {name: d.bits for d in DTYPES for name in d.ttgir}


def dtype_bits(text: str) -> int | None:
    """Bits of a dtype name (``"f16"``, any case) or a bit count (``"16"``); None if neither.

    Examples:
        >>> dtype_bits("BF16"), dtype_bits("e4m3"), dtype_bits("32"), dtype_bits("f12")
        (16, 8, 32, None)
        >>> dtype_bits("²") is None  # a Unicode digit that is no ASCII number
        True
    """
    key = text.strip().lower()
    if key in DTYPE_BITS:
        return DTYPE_BITS[key]
    if key.isascii() and key.isdigit() and int(key) in DTYPE_WIDTHS:
        return int(key)
    return None


def element_type_bits(element: str) -> int | None:
    """Bits of a TTGIR element type (pointers are 64-bit, ``i1`` a byte); None if unknown.

    Examples:
        >>> element_type_bits("bf16"), element_type_bits("!tt.ptr<f16>")
        (16, 64)
        >>> element_type_bits("f8E4M3FNUZ"), element_type_bits("i1"), element_type_bits("x")
        (8, 8, None)
    """
    if element.startswith("!tt.ptr"):
        return 64
    key = element.lower()
    return DTYPE_BITS.get(key, _TTGIR_ONLY_BITS.get(key))
