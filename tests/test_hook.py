"""``python -m llverify.hook``: the kernels a program compiles are recorded and validated at its
end, with the launch arguments seen; the program's output and exit code stay its own.  Triton
3.9 compiles on the CPU here (a launch needs a GPU, so launches are recorded through
``record_launch`` and the launch wrappers are driven with stand-ins)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from llverify import hook

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "tests" / "data" / "hook" / "compile_kernels.py"
RACY = (ROOT / "tests" / "test_validate_dir.py").read_text().split('RACY = """', 1)[1]
RACY = RACY.split('"""', 1)[0]


def run_hook(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "TRITON_CACHE_DIR": str(tmp_path / "cache"),
        "TRITON_DEFAULT_FP_FUSION": "1",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [sys.executable, "-m", "llverify.hook", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )


def test_compiled_kernels_are_validated_and_the_exit_code_is_the_programs(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    run = run_hook(tmp_path, "--report", "r.json", str(PROGRAM), "7")
    assert run.returncode == 7, run.stderr
    assert run.stdout == "compiled add_one\n"  # the table goes to stderr
    assert "2 kernels validated" in run.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["exit_code"] == 0 and report["summary"]["kernels"] == 2
    launched, other = sorted(report["kernels"], key=lambda k: k["whole"]["arguments"] is None)
    assert launched["whole"] == {**launched["whole"], "status": "proved", "arguments": {"n": 1024}}
    # the negative control: the binary with no launch recorded keeps n tagged: its mask is unknown
    assert other["whole"]["status"] == "unknown" and "tagged" in other["whole"]["reason"]
    assert report["launches"] == [
        {
            "kernel": "add_one",
            "scalars": {"n": 1024},
            "cache_hash": Path(launched["path"]).parent.name,
        }
    ]
    # the report is a launches file for `validate DIR` later: the same verdicts
    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "llverify",
            "validate",
            str(tmp_path / "cache"),
            "--whole-only",
            "--launches",
            str(tmp_path / "r.json"),
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    statuses = sorted(k["whole"]["status"] for k in json.loads(again.stdout)["kernels"])
    assert statuses == ["proved", "unknown"]


def test_fail_on_refuted_is_the_only_change_to_the_exit_code(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    kernel = tmp_path / "dump" / "RACY"
    kernel.mkdir(parents=True)
    (kernel / "racy.llir").write_text(RACY)
    (kernel / "racy.json").write_text(json.dumps({"name": "racy", "num_warps": 2, "shared": 256}))
    group = {"racy.llir": str(kernel / "racy.llir"), "racy.json": str(kernel / "racy.json")}
    script = tmp_path / "program.py"
    script.write_text(
        f"from llverify import hook\nhook._RECORDER.add_kernel({group!r})\nprint('done')\n"
    )
    plain = run_hook(tmp_path, "--quiet", str(script))
    assert plain.returncode == 0 and plain.stdout == "done\n"
    assert "RACY/racy.llir (whole)" in plain.stderr  # a refutation is shown even when quiet
    failing = run_hook(tmp_path, "--quiet", "--fail-on-refuted", str(script))
    assert failing.returncode == 1


def test_a_program_that_raises_keeps_its_exit_code(tmp_path: Path) -> None:
    script = tmp_path / "boom.py"
    script.write_text("raise RuntimeError('boom')\n")
    run = run_hook(tmp_path, "--quiet", str(script))
    assert run.returncode == 1 and "RuntimeError: boom" in run.stderr
    assert "Traceback" in run.stderr


def _recorder(monkeypatch: pytest.MonkeyPatch) -> hook.Recorder:
    recorder = hook.Recorder({})
    monkeypatch.setattr(hook, "_RECORDER", recorder)
    return recorder


def _kernel(tmp_path: Path) -> SimpleNamespace:
    group = {
        "k.json": str(tmp_path / "HASH1" / "k.json"),
        "k.llir": str(tmp_path / "HASH1" / "k.llir"),
    }
    return SimpleNamespace(name="k", metadata_group=group)


def test_jit_launches_record_runtime_integers_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = _recorder(monkeypatch)
    kernel = _kernel(tmp_path)

    class JITFunction:
        arg_names = ["x_ptr", "n", "scale", "BLOCK"]
        params = [SimpleNamespace(name=n, is_constexpr=n == "BLOCK") for n in arg_names]

        def run(self, *args, grid, warmup, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            return kernel

    module = SimpleNamespace(JITFunction=JITFunction)
    hook._patch_jit(module)
    hook._patch_jit(module)  # installing twice wraps once
    fn = JITFunction()
    assert fn.run(object(), 4096, 0.5, BLOCK=128, grid=(1,), warmup=False) is kernel
    fn.run(object(), 4096, 0.5, BLOCK=128, grid=(1,), warmup=False)  # the same launch again
    fn.run(object(), 8, 0.5, BLOCK=128, grid=(1,), warmup=True)  # a warmup launches nothing
    assert recorder.launches == [{"kernel": "k", "scalars": {"n": 4096}, "cache_hash": "HASH1"}]
    assert list(recorder.kernels) == [str(tmp_path / "HASH1" / "k.llir")]


def test_inductor_launches_bind_runtime_parameters_and_ignore_grid_extras(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = _recorder(monkeypatch)
    names = ["in_ptr0", "out_ptr0", "xnumel", "XBLOCK"]
    params = [SimpleNamespace(name=n, is_constexpr=n == "XBLOCK") for n in names]
    autotuner = SimpleNamespace(
        fn=SimpleNamespace(params=params, arg_names=names),
        launchers=[SimpleNamespace(bin=_kernel(tmp_path))],
    )
    hook._inductor_launch(autotuner, (object(), object(), 1024, 8, 1, 1))  # grid extras after
    assert recorder.launches[0]["scalars"] == {"xnumel": 1024}
    static = SimpleNamespace(fn=autotuner.fn, launchers=[SimpleNamespace(cache_hash="HASH2")])
    hook._inductor_launch(static, (object(), object(), 64))  # a launcher without a binary
    assert recorder.launches[1] == {"kernel": "", "scalars": {"xnumel": 64}, "cache_hash": "HASH2"}


def test_recording_never_disturbs_the_program(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = _recorder(monkeypatch)
    hook._safely(lambda: 1 / 0)  # swallowed
    recorder.add_kernel(None)
    recorder.add_kernel({"k.json": "/nowhere/k.json"})  # no LLVM IR: nothing to validate
    assert recorder.kernels == {}
