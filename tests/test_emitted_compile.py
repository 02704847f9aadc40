"""llverify.triton.compile: compiling with an installed Triton (any release), out of process.

The Triton tests use the installed 3.9 (oracle: Triton 3.9 on the CPU, see tests/cases/triton.py);
the tests marked slow use every release virtualenv of ``release_pythons()`` (made by
scripts/triton_releases.py) and skip when there is none.  The translation tests are pure text.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from cases.triton import require_triton
from llverify.triton import protocol
from llverify.triton.compile import (
    TRANSLATIONS,
    WORKER,
    CompiledKernel,
    CompileError,
    compile_python,
    compile_ttgir,
    installed_triton_version,
    parse_target,
    translate_ttgir,
)
from llverify.triton.releases import (
    ReleaseError,
    release_python,
    release_pythons,
    releases_folder,
)

KERNELS = Path(__file__).parent / "data" / "emitted"
TTGIR = {name: (KERNELS / f"{name}.ttgir").read_text() for name in ("cvt", "red")}

ROWSUM = """import triton
import triton.language as tl


@triton.jit
def rowsum(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(y_ptr + r, tl.sum(x, axis=1))
"""


@pytest.fixture(scope="module")
def compiled() -> dict[tuple[str, str], CompiledKernel]:
    """Both kernels compiled by the installed Triton 3.9 for cuda:90 and hip:gfx942 (once)."""
    require_triton()
    return {
        (name, target): compile_ttgir(TTGIR[name], target)
        for name in TTGIR
        for target in ("cuda:90", "hip:gfx942")
    }


@pytest.mark.triton
@pytest.mark.parametrize("name", ["cvt", "red"])
@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_installed_triton_compiles_the_kernels(compiled, name, target):
    kernel = compiled[name, target]
    assert kernel.name == "k" and kernel.target == target
    assert kernel.triton_version.startswith("3.9")
    assert (kernel.num_warps, kernel.threads_per_warp, kernel.num_ctas) == (4, 32, 1)
    assert "define" in kernel.llir and "@k(" in kernel.llir
    assert f'ttg.target = "{target}"' in kernel.ttgir
    if target.startswith("cuda"):
        assert kernel.ptx and ".entry k(" in kernel.ptx and kernel.amdgcn is None
    else:
        assert kernel.amdgcn and "k:" in kernel.amdgcn and kernel.ptx is None
    assert kernel.shared_bytes > 0 and kernel.seconds > 0


@pytest.mark.triton
def test_compile_python_kernel(tmp_path):
    require_triton()
    path = tmp_path / "rowsum.py"
    path.write_text(ROWSUM)
    kernel = compile_python(
        str(path),
        "rowsum",
        signature={"x_ptr": "*fp32", "y_ptr": "*fp32"},
        constexprs={"M": 64, "N": 64},
        target="cuda:80",
        num_warps=2,
    )
    assert kernel.name == "rowsum" and kernel.num_warps == 2
    assert '"tt.reduce"' in kernel.ttgir and "@rowsum(" in kernel.llir and kernel.ptx


@pytest.mark.triton
def test_bad_ttgir_is_a_compile_error_naming_the_target():
    require_triton()
    bad = TTGIR["cvt"].replace("threadsPerWarp = [4, 8]", "threadsPerWarp = [4, 4]")
    with pytest.raises(CompileError) as info:
        compile_ttgir(bad, "cuda:90")
    message = str(info.value)
    assert "cuda:90" in message and "Triton 3.9" in message and "32 threads per warp" in message
    assert "Traceback" not in message and "leaked" not in message


def test_worker_failure_without_triton_is_a_compile_error(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(CompileError, match="cannot import triton"):
        compile_ttgir(TTGIR["cvt"], "cuda:90", python=str(fake))


def test_reverse_scan_is_refused_for_releases_without_it(tmp_path):
    # Triton 2.x parses tt.scan's reverse attribute and compiles a forward scan
    fake = tmp_path / "python"  # a worker that says it holds Triton 2.2.0, then ends
    fake.write_text('#!/bin/sh\necho \'@@ {"ready": true, "version": "2.2.0"}\'\n')
    fake.chmod(0o755)
    scan = (
        '%1 = "tt.scan"(%0) <{axis = 1 : i32, reverse = true}> ({\n^bb0(%a: f32, %b: f32):\n'
        "  tt.scan.return %a : f32\n}) : (tensor<4xf32>) -> tensor<4xf32>"
    )
    with pytest.raises(CompileError, match="Triton 2.2.0 has no reverse scans"):
        compile_ttgir(f"module {{\n{scan}\n}}", "cuda:80", python=str(fake))
    with pytest.raises(CompileError, match=r"Triton 2.2.0: line 2, column \d+: '\(' is never"):
        compile_ttgir(f"module {{\n{scan[:60]}\n}}", "cuda:80", python=str(fake))


def test_translation_to_3_2_renames_the_dialect():
    text = translate_ttgir(TTGIR["cvt"], "3.2.0")
    assert "ttg." not in text.replace("triton_gpu.", "")
    assert "#blocked = #triton_gpu.blocked<{sizePerThread = [1, 4]" in text
    assert "%y = triton_gpu.convert_layout %x : tensor<64x64xf16, #blocked> -> " in text
    shared = (
        "#s = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, "
        "elementBitWidth = 16}>\n#smem = #ttg.shared_memory\n"
        "%a = ttg.local_alloc %x : (tensor<64x32xf16, #b>) -> !ttg.memdesc<64x32xf16, #s, #smem>\n"
        'module attributes {"ttg.num-warps" = 4 : i32, "ttng.two-ctas" = false} {\n'
    )
    assert translate_ttgir(shared, "3.2.0") == (
        "#s = #triton_gpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], "
        "hasLeadingOffset = true}>\n#smem = #triton_gpu.shared_memory\n"
        "%a = triton_gpu.local_alloc %x : (tensor<64x32xf16, #b>) -> "
        "!tt.memdesc<64x32xf16, #s, #smem>\n"
        'module attributes {"triton_gpu.num-warps" = 4 : i32} {\n'
    )
    assert "#smem" not in translate_ttgir(shared, "3.1.0")


def test_translation_to_2_1_rewrites_op_types_and_module_attributes():
    text = translate_ttgir(TTGIR["cvt"].replace('"cuda:90"', '"cuda:80"'), "2.1.0")
    assert text.splitlines()[2] == (
        'module attributes {"triton_gpu.num-warps" = 4 : i32, '
        '"triton_gpu.threads-per-warp" = 32 : i32} {'
    )
    assert (
        "%b0 = tt.broadcast %m : (tensor<64x1xi32, #blocked>) -> tensor<64x64xi32, #blocked>"
        in text
    )
    assert (
        "%x = tt.load %pi {cache = 1 : i32, evict = 1 : i32, isVolatile = false} : "
        "tensor<64x64xf16, #blocked>" in text
    )
    assert (
        "tt.store %po, %y {cache = 1 : i32, evict = 1 : i32} : tensor<64x64xf16, #blocked1>" in text
    )
    assert "CTAsPerCGA" not in text


def test_translation_to_2_2_spells_out_cta_parameters():
    text = translate_ttgir(TTGIR["red"], "2.2.0")
    assert "order = [1, 0], CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>" in text
    assert '"triton_gpu.compute-capability" = 90 : i32' in text


def test_translation_to_3_9_is_the_identity():
    assert all(translate_ttgir(text, "3.9.0") == text for text in TTGIR.values())
    assert all(since <= (3, 9) for since, _, _ in TRANSLATIONS)


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="target='sm90'"):
        parse_target("sm90")
    with pytest.raises(ValueError, match="release='next'"):
        translate_ttgir("", "next")
    with pytest.raises(TypeError, match="text: expected the TTGIR module as str"):
        compile_ttgir(b"module {}", "cuda:90", python=sys.executable)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="constexprs="):
        compile_python("k.py", "k", signature={}, constexprs={"X": object()}, target="cuda:90")


def test_the_worker_answers_by_the_protocol(tmp_path):
    """compile_worker, run as a script without llverify on its path, says it is ready with
    its Triton version, reads the protocol's request and answers it (here a refusal)."""
    require_triton()
    request = {"kind": "ttgir", "text": "not ttgir", "target": parse_target("cuda:90")}
    out = subprocess.run(
        [sys.executable, "-I", str(WORKER)],
        input=protocol.request_text(request),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,  # -I and another folder: protocol.py is found by its path only
    )
    ready, answer = protocol.answers(out.stdout)
    assert ready == {"ready": True, "version": installed_triton_version()}
    assert answer["ok"] is False and answer["version"] == installed_triton_version()
    assert answer["error"], out.stderr[-2000:]


def test_release_pythons_lists_versioned_venvs(tmp_path, monkeypatch):
    for name in ("3.10.0", "2.1.0", "3.2.0", "notes"):
        (tmp_path / name / "bin").mkdir(parents=True)
        (tmp_path / name / "bin" / "python").write_text("")
    monkeypatch.setenv("LLVERIFY_TRITON_RELEASES", str(tmp_path))
    assert list(release_pythons()) == ["2.1.0", "3.2.0", "3.10.0"]
    assert release_pythons(str(tmp_path / "absent")) == {}
    assert release_python("3.2.0") == str(tmp_path / "3.2.0" / "bin" / "python")


def test_the_releases_folder_is_the_env_var_else_the_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("LLVERIFY_TRITON_RELEASES", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert releases_folder() == tmp_path / "home" / ".cache" / "llverify" / "triton-releases"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert releases_folder() == tmp_path / "cache" / "llverify" / "triton-releases"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # the XDG spec ignores relative ones
    assert releases_folder() == tmp_path / "home" / ".cache" / "llverify" / "triton-releases"
    monkeypatch.setenv("LLVERIFY_TRITON_RELEASES", "")  # empty: unset
    assert releases_folder() == tmp_path / "home" / ".cache" / "llverify" / "triton-releases"
    monkeypatch.setenv("LLVERIFY_TRITON_RELEASES", str(tmp_path / "mine"))
    assert releases_folder() == tmp_path / "mine"


def test_no_code_names_a_fixed_releases_folder():
    """The release virtualenvs are found through ``releases_folder`` only: no module, script or
    benchmark names a fixed folder (such as the development machine's ``/work/tritons``)."""
    root = Path(__file__).resolve().parent.parent
    fixed = re.compile(r"/work/tritons|/opt/tritons|tritons/\{")
    offenders = [
        str(path.relative_to(root))
        for folder in ("llverify", "scripts", "benchmarks")
        for path in (root / folder).rglob("*.py")
        if fixed.search(path.read_text())
    ]
    assert offenders == []
    # negative control: the pattern catches the benchmark line this replaced
    assert fixed.search('python=f"/work/tritons/{release}/bin/python"')


def test_a_missing_release_names_the_folder_and_the_env_var(tmp_path, monkeypatch):
    monkeypatch.setenv("LLVERIFY_TRITON_RELEASES", str(tmp_path))
    (tmp_path / "2.1.0" / "bin").mkdir(parents=True)
    (tmp_path / "2.1.0" / "bin" / "python").write_text("")
    with pytest.raises(ReleaseError) as caught:
        release_python("3.2.0")
    message = str(caught.value)
    assert isinstance(caught.value, ValueError) and "\n" not in message
    assert f"no virtualenv in {tmp_path} (found: 2.1.0)" in message
    assert "set LLVERIFY_TRITON_RELEASES" in message and "release='3.2.0'" in message


RELEASES = release_pythons()


@pytest.mark.slow
@pytest.mark.skipif(not RELEASES, reason="no release venvs (scripts/triton_releases.py)")
@pytest.mark.parametrize("version", sorted(RELEASES))
def test_each_release_compiles_both_kernels_for_sm80(version):
    python = RELEASES[version]
    assert installed_triton_version(python) == version
    for name, text in TTGIR.items():
        kernel = compile_ttgir(text, "cuda:80", python=python)
        assert kernel.triton_version == version and kernel.ptx, name
        assert kernel.num_warps == 4 and kernel.threads_per_warp == 32


def test_this_interpreters_triton_version_is_read_without_a_second_interpreter(monkeypatch):
    """The distribution metadata answers for this interpreter (what ``import triton`` gives);
    another interpreter is asked by starting its compile worker, nothing else."""
    triton = pytest.importorskip("triton")
    from llverify.triton import compile as compile_module
    from llverify.triton import workers

    compile_module._triton_version.cache_clear()
    started = []
    real_popen = subprocess.Popen

    def counting_popen(*args, **kwargs):
        started.append(args[0])
        return real_popen(*args, **kwargs)

    monkeypatch.setattr(workers.subprocess, "Popen", counting_popen)
    try:
        assert installed_triton_version() == triton.__version__
        assert started == []
        assert installed_triton_version("/nonexistent/python") is None
        assert started == [["/nonexistent/python", str(WORKER)]]
    finally:
        compile_module._triton_version.cache_clear()
