import triton
import triton.language as tl


@triton.jit
def chained_dot(a_ptr, b_ptr, c_ptr, o_ptr, M: tl.constexpr):  # noqa: N803
    r = tl.arange(0, M)
    idx = r[:, None] * M + r[None, :]
    a = tl.load(a_ptr + idx)
    b = tl.load(b_ptr + idx)
    c = tl.load(c_ptr + idx)
    ab = tl.dot(a, b)
    o = tl.dot(ab.to(tl.int8), c)
    tl.store(o_ptr + idx, o)


@triton.jit
def scan_rows(x_ptr, y_ptr, M: tl.constexpr):  # noqa: N803
    r = tl.arange(0, M)
    idx = r[:, None] * M + r[None, :]
    x = tl.load(x_ptr + idx)
    tl.store(y_ptr + idx, tl.cumsum(x, axis=0))
