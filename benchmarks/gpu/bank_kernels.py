# ruff: noqa: N803 - Gluon constexpr arguments are upper case
"""The Gluon kernels of ``bank_check.py`` (imported only where Triton is installed).

``through_shared`` stores a tile to shared memory with an explicit shared layout and loads it
back in the destination layout; ``triton_default`` lets Triton convert (``convert_layout``).
Both end with :func:`keep_alive`, which hands every loaded register to a global store that
runs only when ``flag == 12345`` (every launch passes 7: a runtime value, neither
0 nor 1, so Triton cannot specialise it into a constant).  Without it ptxas may sink the
shared loads of broadcast copies (threads whose output store Triton masks off) behind an early
``EXIT``, so those warps never issue them and Nsight Compute counts fewer wavefronts than the
conversion costs (seen on the H100: 253 of 256 load instructions in one kernel).
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as ttgl


@gluon.jit
def keep_alive(y, sink, flag, BITS: ttgl.constexpr):
    """Use every register of ``y`` in every thread: ``if flag == 12345: *sink = y``."""
    if BITS == 64:
        ttgl.inline_asm_elementwise(
            "{ .reg .pred p; setp.eq.s32 p, $2, 12345; @p st.global.b64 [$3], $1; mov.b32 $0, 0; }",
            "=r,l,r,l", [y.to(ttgl.int64, bitcast=True), flag, sink],
            dtype=ttgl.int32, is_pure=False, pack=1,
        )  # fmt: skip
    else:
        if BITS == 32:
            word = y.to(ttgl.int32, bitcast=True)
        elif BITS == 16:
            word = y.to(ttgl.int16, bitcast=True).to(ttgl.int32)
        else:
            word = y.to(ttgl.int32)
        ttgl.inline_asm_elementwise(
            "{ .reg .pred p; setp.eq.s32 p, $2, 12345; @p st.global.b32 [$3], $1; mov.b32 $0, 0; }",
            "=r,r,r,l", [word, flag, sink], dtype=ttgl.int32, is_pure=False, pack=1,
        )  # fmt: skip


@gluon.jit
def through_shared(inp, out, sink, flag, N: ttgl.constexpr, BITS: ttgl.constexpr,
                   SRC: ttgl.constexpr, DST: ttgl.constexpr, SH: ttgl.constexpr):  # fmt: skip
    x = ttgl.load(inp + ttgl.arange(0, N, layout=SRC))
    smem = ttgl.allocate_shared_memory(inp.dtype.element_ty, [N], SH, x)
    y = smem.load(DST)
    ttgl.store(out + ttgl.arange(0, N, layout=DST), y)
    keep_alive(y, sink, flag, BITS)


@gluon.jit
def triton_default(inp, out, sink, flag, N: ttgl.constexpr, BITS: ttgl.constexpr,
                   SRC: ttgl.constexpr, DST: ttgl.constexpr):  # fmt: skip
    x = ttgl.load(inp + ttgl.arange(0, N, layout=SRC))
    y = ttgl.convert_layout(x, DST)
    ttgl.store(out + ttgl.arange(0, N, layout=DST), y)
    keep_alive(y, sink, flag, BITS)


@gluon.jit
def through_shared_loop(inp, sink, flag, reps, N: ttgl.constexpr, BITS: ttgl.constexpr,
                        SRC: ttgl.constexpr, DST: ttgl.constexpr, SH: ttgl.constexpr):  # fmt: skip
    """``reps`` store/load round trips through ``SH`` (timing).  Iteration ``i`` stores
    ``x + ((i * flag) >> 24)``, equal to ``x`` for the launches' ``flag = 7`` but opaque to the
    compiler, so nothing is hoisted out of the loop."""
    x = ttgl.load(inp + ttgl.arange(0, N, layout=SRC))
    smem = ttgl.allocate_shared_memory(inp.dtype.element_ty, [N], SH)
    for i in range(reps):
        smem.store(x + ((i * flag) >> 24).to(x.dtype))
        y = smem.load(DST)
        keep_alive(y, sink, flag, BITS)


@gluon.jit
def triton_default_loop(inp, sink, flag, reps, N: ttgl.constexpr, BITS: ttgl.constexpr,
                        SRC: ttgl.constexpr, DST: ttgl.constexpr):  # fmt: skip
    """``reps`` conversions by ``convert_layout`` (timing), as :func:`through_shared_loop`."""
    x = ttgl.load(inp + ttgl.arange(0, N, layout=SRC))
    for i in range(reps):
        y = ttgl.convert_layout(x + ((i * flag) >> 24).to(x.dtype), DST)
        keep_alive(y, sink, flag, BITS)
