"""Triton 3.9 oracle: compile a Gluon kernel whose layout is ``ttgl.CoalescedLayout()`` for
``cuda:90`` (front-end only, no GPU) and print its TTGIR, where Triton's
gluon-infer-coalesced-encodings pass has replaced the placeholder by a concrete layout
(tests/test_encodings_generic_linear.py).  Imports only the standard library and Triton.
"""

import os
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="llverify-coalesced-"))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as ttgl  # noqa: E402


@gluon.jit
def probe(x_ptr, y_ptr):
    offs = ttgl.arange(0, 128, layout=ttgl.CoalescedLayout())
    ttgl.store(y_ptr + offs, ttgl.load(x_ptr + offs))


if __name__ == "__main__":
    source = gluon._runtime.GluonASTSource(probe, {"x_ptr": "*fp32", "y_ptr": "*fp32"}, {})
    sys.stdout.write(triton.compile(source, target=GPUTarget("cuda", 90, 32)).asm["ttgir"])
