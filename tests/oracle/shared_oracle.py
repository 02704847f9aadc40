"""Triton 3.9 oracle worker for shared-memory encodings (run in a subprocess: Triton aborts
the process on invalid input).

stdin: a JSON list of cases, each one of

* ``{"kind": "gluon", "layout": "<Python expression building a Gluon layout>", "shape":
  [..]}``: the expression is evaluated with ``ttgl`` (gluon.language) and
  ``PartitionedSharedLayout`` (gluon.language.amd.cdna5) in scope; the answer is
  ``{"bases": {"offset": .., "block": ..}, "ttgir": "<attribute text>"}`` where the bases
  come from ``builder.to_linear_layout(attr, shape)`` and the text from the
  ``!ttg.memdesc<shape x f16, ATTR, ...>`` type Triton prints (``"ttgir_error"`` instead
  when Triton refuses that memdesc type);
* ``{"kind": "parse", "text": "<attribute text>", "shape": [..]}``: a module with a
  function argument of type ``!ttg.memdesc<shape x f16, TEXT, #ttg.shared_memory,
  mutable>`` is parsed (and verified) by Triton's MLIR parser; the answer is ``{"ttgir":
  "<the attribute as Triton prints it back>"}`` or ``{"error": "<Triton's diagnostics>"}``.
  This is the only way to reach ``#ttg.amd_rotating_shared`` (it has no Gluon class).

stdout: one JSON line per case, flushed at once (a Triton abort ends the output early; the
caller resumes after the case that crashed).  The test code controls every expression.
"""

import json
import os
import sys
import tempfile
from typing import Any


def _attribute_of(memdesc: str) -> str:
    """``#ttg...`` out of ``!ttg.memdesc<64x64xf16, #ttg..., #ttg.shared_memory, mutable>``."""
    start = memdesc.index(", ") + 2
    return memdesc[start : memdesc.rindex(", #ttg.shared_memory")]


def _captured_stderr(action: Any) -> tuple[Any, Exception | None, str]:
    """Run ``action()`` with the C++ diagnostics (fd 2) captured: (result, error, text)."""
    sys.stderr.flush()
    saved = os.dup(2)
    result: Any = None
    failure: Exception | None = None
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            result = action()
        except Exception as exc:  # a parse or verifier failure
            failure = exc
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        sink.seek(0)
        text = sink.read().decode(errors="replace")
    return result, failure, text


def main() -> None:
    from triton._C.libtriton import gluon_ir, ir
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language.amd.cdna5 import PartitionedSharedLayout

    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    scope = {"ttgl": ttgl, "PartitionedSharedLayout": PartitionedSharedLayout}
    workdir = tempfile.mkdtemp(prefix="llverify_shared_oracle_")
    for number, case in enumerate(json.loads(sys.stdin.read())):
        record: dict[str, Any] = {}
        try:
            if case["kind"] == "gluon":
                layout = eval(case["layout"], scope)  # noqa: S307 - test-controlled text
                attr = layout._to_ir(builder)
                try:
                    memdesc = builder.get_shared_mem_desc_ty(
                        builder.get_half_ty(), case["shape"], attr, case["shape"]
                    )
                    record["ttgir"] = _attribute_of(str(memdesc))
                except Exception as error:  # e.g. a SharedLinear shape mismatch
                    record["ttgir_error"] = f"{type(error).__name__}: {error}"
                linear = builder.to_linear_layout(attr, case["shape"])
                record["bases"] = {"offset": linear.offset_bases, "block": linear.block_bases}
            else:
                shape = "x".join(str(d) for d in case["shape"])
                source = (
                    'module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, '
                    '"ttg.threads-per-warp" = 32 : i32} {\n'
                    f"  tt.func @f(%arg0: !ttg.memdesc<{shape}xf16, {case['text']}, "
                    "#ttg.shared_memory, mutable>) {\n    tt.return\n  }\n}\n"
                )
                path = os.path.join(workdir, f"case{number}.mlir")
                with open(path, "w") as handle:
                    handle.write(source)
                module, failure, diagnostics = _captured_stderr(
                    lambda path=path: ir.parse_mlir_module(path, ctx)
                )
                if failure is not None:
                    record["error"] = diagnostics.strip() or f"{type(failure).__name__}: {failure}"
                else:
                    argument = module.get_function("f").args(0)
                    record["ttgir"] = _attribute_of(str(argument.get_type()))
        except Exception as error:  # a Python-level refusal, reported per case
            record = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
