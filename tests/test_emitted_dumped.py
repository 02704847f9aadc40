"""Dumped artifacts (llverify.emitted.dumped, ``llverify validate k.llir|k.ptx``): the emitted
kernel executed whole for memory safety, the TTGIR beside it validated per op.

Oracle: Triton 3.9 on the CPU produces the artifacts (a Triton cache directory's layout:
k.ttgir, k.llir, k.ptx, k.json)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.cli.main import main
from llverify.emitted.dumped import DumpError, validate_artifact, validate_llvm_ir
from llverify.errors import ParseError
from llverify.proof.verdict import Status
from llverify.triton.compile import CompileError, compile_ttgir

DATA = Path(__file__).parent / "data" / "ttgir"
# softmax_kernel(out, in, in_row_stride, out_row_stride, n_cols, ...) as the fixture compiles it
SOFTMAX_ARGS = {"%2": 1024, "%3": 1024, "%4": 1000, "%5": 4}


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Triton-cache-like directory of the softmax fixture compiled for sm80."""
    require_triton()
    text = (DATA / "softmax_fp32_sm80.ttgir").read_text()
    compiled = compile_ttgir(text, "cuda:80")
    folder = tmp_path_factory.mktemp("dump")
    stem = folder / compiled.name
    stem.with_suffix(".llir").write_text(compiled.llir)
    stem.with_suffix(".ttgir").write_text(compiled.ttgir)
    assert compiled.ptx is not None
    stem.with_suffix(".ptx").write_text(compiled.ptx)
    metadata = {"shared": compiled.shared_bytes, "num_warps": compiled.num_warps, "warp_size": 32}
    stem.with_suffix(".json").write_text(json.dumps(metadata))
    return stem


def test_dumped_kernel_is_memory_safe_and_its_ttgir_is_proved(dump: Path) -> None:
    kernel, module = validate_artifact(str(dump.with_suffix(".ptx")), arguments=SOFTMAX_ARGS)
    assert kernel.status is Status.PROVED, kernel.verdicts[0].reason
    assert "memory safety over all 128 threads of CTA 0" in kernel.verdicts[0].claim
    assert module.status is Status.PROVED and module.counts()["proved"] == 2


def test_missing_scalar_arguments_make_the_kernel_unknown_and_are_named(dump: Path) -> None:
    report = validate_llvm_ir(dump.with_suffix(".llir").read_text(), shared_bytes=4096)
    assert report.status is Status.UNKNOWN
    assert "%2 (i32)" in report.verdicts[0].reason and "--arg" in report.verdicts[0].reason


def test_negative_control_barrier_removed_is_a_race(dump: Path) -> None:
    text = dump.with_suffix(".llir").read_text()
    barrier = re.compile(r"^\s*(tail )?call void @llvm\.nvvm\.barrier[\w.]*\(.*$", re.M)
    assert barrier.search(text), "the softmax kernel synchronises through shared memory"
    mutated = barrier.sub("", text)
    report = validate_llvm_ir(mutated, shared_bytes=4096, arguments=SOFTMAX_ARGS)
    assert report.status is Status.REFUTED
    assert report.verdicts[0].violation in ("race", "uninitialised read")


def test_ptx_without_its_llvm_ir_is_refused(tmp_path: Path) -> None:
    ptx = tmp_path / "k.ptx"
    ptx.write_text("// ptx\n")
    with pytest.raises(DumpError, match=r"k\.llir is not beside it"):
        validate_artifact(str(ptx))
    with pytest.raises(DumpError, match="expected a .llir"):
        validate_artifact(str(tmp_path / "k.txt"))


def test_unreadable_llvm_ir_is_a_parse_error_naming_its_line() -> None:
    """The simulator's own parse error comes out as llverify's ParseError (the CLI's exit 2)."""
    with pytest.raises(ParseError, match="LLVM IR line 1: no function definition") as caught:
        validate_llvm_ir("not LLVM IR")
    assert caught.value.line == 1


def test_unknown_argument_names_and_bad_thread_counts_are_refused() -> None:
    text = 'define void @k(i32 %0) #0 {\n  ret void\n}\nattributes #0 = { "nvvm.reqntid"="32" }'
    with pytest.raises(DumpError, match=r"\['%7'\] are not scalar arguments"):
        validate_llvm_ir(text, arguments={"%7": 1})
    with pytest.raises(DumpError, match="threads: expected a positive multiple"):
        validate_llvm_ir(text, threads=33)
    assert validate_llvm_ir(text, arguments={"%0": 5}).status is Status.PROVED


def test_cli_on_a_dump(dump: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [f"--arg={name}={value}" for name, value in SOFTMAX_ARGS.items()]
    assert main(["validate", str(dump.with_suffix(".llir")), *args, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "memory safety over all 128 threads" in out and "2 proved" in out
    assert main(["validate", str(dump.with_suffix(".llir")), "--arg", "x"]) == 2
    assert "--arg: expected NAME=INTEGER" in capsys.readouterr().err


_DUPLICATE_STORE = """define ptx_kernel void @k(ptr addrspace(1) %0) #0 {
  %2 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = and i32 %2, 1
  %4 = VALUE
  %5 = icmp eq i32 %3, 0
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", STORE_OPERANDS
  ret void
}
attributes #0 = { "nvvm.reqntid"="32" }""".replace(
    "STORE_OPERANDS", '"r,l,b"(i32 %4, ptr addrspace(1) %0, i1 %5)'
)


def test_predicated_off_duplicate_copies_must_hold_the_stored_value() -> None:
    """Triton stores one copy of a duplicated element and masks the others: a masked copy that
    differs (here lane 1 holds its own lane id) is found and replayed, but a dumped kernel
    alone cannot tell a duplicate-copy mask from its own bounds mask, and a masked store
    writes nothing: memory safety is proved, and the report says what was seen and points at
    the per-op check (which refutes it); identical copies are plainly proved."""
    differing = validate_llvm_ir(_DUPLICATE_STORE.replace("VALUE", "add i32 %3, 7"))
    assert differing.status is Status.PROVED
    (reason,) = [v.reason for v in differing.verdicts]
    assert "inconsistent copies" in reason and "duplicate-copy mask" in reason
    assert "memory safety holds" in reason and "replayed" in reason
    same = validate_llvm_ir(_DUPLICATE_STORE.replace("VALUE", "add i32 0, 7"))
    assert same.status is Status.PROVED and same.verdicts[0].reason == ""


def test_a_line_that_is_no_instruction_stays_a_parse_error() -> None:
    """An unknown opcode is unmodelled (unknown), but a line with no opcode is not LLVM IR."""
    text = "define void @k() {\n  %1 = 42\n  ret void\n}\n"
    with pytest.raises(ParseError, match="LLVM IR line 2: expected an instruction, found '42'"):
        validate_llvm_ir(text, threads=32)


_PROVED_KERNEL = 'define void @k() #0 {\n  ret void\n}\nattributes #0 = { "nvvm.reqntid"="32" }\n'


def test_a_ttgir_beside_the_dump_that_does_not_parse_is_unknown_and_the_dump_still_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "k.llir").write_text(_PROVED_KERNEL)
    (tmp_path / "k.ttgir").write_text("this is not ttgir\n")
    kernel, module = validate_artifact(str(tmp_path / "k.llir"))
    assert kernel.status is Status.PROVED
    assert module.status is Status.UNKNOWN
    reason = module.verdicts[0].reason
    assert "ModuleError: line 1:" in reason and "\n" not in reason
    assert main(["validate", str(tmp_path / "k.llir")]) == 0  # unknown: not refuted
    captured = capsys.readouterr()
    assert "proved    kernel" in captured.out and "unknown   module" in captured.out
    assert "Traceback" not in captured.out + captured.err
    assert main(["validate", str(tmp_path / "k.llir"), "--require-proofs"]) == 3


def test_a_ttgir_beside_the_dump_that_fails_to_compile_is_unknown_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compile failure (or any error of the per-op part) leaves that part unknown, its
    reason on one line, and the dump's own refutation still decides."""

    def failing(*args: object, **kwargs: object) -> None:
        raise CompileError("cuda:80: Triton failed\n  error: op not legal\n  (two lines)")

    monkeypatch.setattr("llverify.emitted.dumped.validate_module", failing)
    racy = _DUPLICATE_STORE.replace("VALUE", "add i32 %2, 7").replace("i1 %5)", "i1 true)")
    (tmp_path / "k.llir").write_text(racy)  # every lane stores its own value to one word
    (tmp_path / "k.ttgir").write_text("module {}\n")
    kernel, module = validate_artifact(str(tmp_path / "k.llir"))
    assert kernel.status is Status.REFUTED and module.status is Status.UNKNOWN
    assert module.verdicts[0].reason.endswith(
        "CompileError: cuda:80: Triton failed error: op not legal (two lines)"
    )
    assert main(["validate", str(tmp_path / "k.llir"), "--quiet"]) == 1  # the dump's refutation
