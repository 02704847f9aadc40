import triton
import triton.language as tl


@triton.jit
def row_ops(x_ptr, s_ptr, c_ptr, BLOCK: tl.constexpr):  # noqa: N803
    rows = tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + rows[:, None] * BLOCK + cols[None, :])
    s = tl.sum(x, axis=1)
    c = tl.cumsum(x, axis=1)
    tl.store(s_ptr + rows, s)
    tl.store(c_ptr + rows[:, None] * BLOCK + cols[None, :], c)
