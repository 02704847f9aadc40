"""A program for tests/test_hook.py: compiles one @triton.jit kernel twice on the CPU (two
block sizes: two binaries) and exits with the code given.  Triton cannot launch without a GPU,
so the launch of the first binary (n=1024) is told to the hook by ``record_launch``, as a
launcher of one's own would; the second binary has no launch recorded."""

import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def add_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)


def compile_block(block: int):
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    source = ASTSource(add_one, signature, constexprs={"BLOCK": block})
    return triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})


launched = compile_block(128)
compile_block(256)
if "llverify.hook" in sys.modules:
    sys.modules["llverify.hook"].record_launch(launched, {"n": 1024})
print("compiled", launched.name)
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
