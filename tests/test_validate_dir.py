"""``llverify validate DIR``: every kernel of a Triton/Inductor cache validated, with the launch
arguments recorded (a launches file, Inductor's output code), a summary, JSON, JUnit XML,
--jobs, --kernel-timeout and --shard; on five real torch.compile kernels
(tests/data/inductor_small) and a synthetic racy kernel as the refuted control."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from llverify.emitted.batch import (
    BatchOptions,
    NoKernelsError,
    Progress,
    find_kernels,
    load_launches,
    longest_first,
    normalise_reason,
    run_batch,
    select_shard,
    summarize,
)
from llverify.emitted.launches import LaunchTable, bind_scalars, read_output_code

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "tests" / "data" / "inductor_small"
DYNAMIC = SMALL / "gpt2_dynamic"
ARANGE = "NGTYUZVKA3BHIUIRAURPPTJMUWTSZV2ZTA3MZNUOQIPAWFFOHHCA"
SUM = SMALL / "norms/triton/5UQDBCNE3F7R6E4E4OHZHNKT44C5N7E2HBB7PFETJR6ABF7XCOXA"
OUTPUT_CODE = (
    SMALL / "mm_autotune/inductor/yv/cyv746t7x52tensbim2dn5hqwrs3pxlpyjkmwmponjpcnbs6cfxi.py"
)

RACY = """define ptx_kernel void @racy(ptr addrspace(1) %0) #0 {
  %2 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = getelementptr float, ptr addrspace(1) %0, i32 %2
  %4 = load float, ptr addrspace(1) %3, align 4
  %5 = getelementptr float, ptr addrspace(3) @global_smem, i32 %2
  store float %4, ptr addrspace(3) %5, align 4
  %6 = xor i32 %2, 32
  %7 = getelementptr float, ptr addrspace(3) @global_smem, i32 %6
  %8 = load float, ptr addrspace(3) %7, align 4
  store float %8, ptr addrspace(1) %3, align 4
  ret void
}
attributes #0 = { "nvvm.reqntid"="64" }
"""


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "llverify", "validate", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def racy_cache(base: Path) -> Path:
    """A cache directory holding one kernel whose warps race on shared memory."""
    kernel = base / "RACYHASH"
    kernel.mkdir(parents=True)
    (kernel / "racy.llir").write_text(RACY)
    (kernel / "racy.json").write_text(json.dumps({"name": "racy", "num_warps": 2, "shared": 256}))
    return base


def by_kernel(report: dict) -> dict[str, dict]:
    return {Path(k["path"]).parent.name: k for k in report["kernels"]}


# discovery and sharding


def test_find_kernels_takes_llir_with_json_and_skips_groups(tmp_path: Path) -> None:
    kernels = find_kernels(SMALL)
    assert len(kernels) == 5
    assert all(p.suffix == ".llir" and p.with_suffix(".json").is_file() for p in kernels)
    assert (SUM / "__grp__triton_per_fused__to_copy_add_sum_1.json").is_file()  # there, skipped
    (tmp_path / "H").mkdir()
    (tmp_path / "H" / "k.llir").write_text(RACY)  # no Triton .json beside it: not a kernel
    (tmp_path / "H" / "__grp__k.json").write_text("{}")
    with pytest.raises(NoKernelsError, match="no kernel found"):
        find_kernels(tmp_path)
    with pytest.raises(NotADirectoryError):
        find_kernels(tmp_path / "H" / "k.llir")


def test_shards_partition_the_kernels_deterministically() -> None:
    kernels = find_kernels(SMALL)
    shards = [select_shard(kernels, SMALL, (k, 3)) for k in (1, 2, 3)]
    assert sorted(p for shard in shards for p in shard) == kernels  # each kernel exactly once
    assert shards == [select_shard(kernels, SMALL, (k, 3)) for k in (1, 2, 3)]
    assert select_shard(kernels, SMALL, None) == kernels


def test_no_kernel_and_bad_options_exit_2(tmp_path: Path) -> None:
    empty = cli(str(tmp_path))
    assert empty.returncode == 2 and "no kernel found" in empty.stderr
    assert cli(str(SMALL), "--shard", "3/2").returncode == 2
    assert cli(str(SMALL), "--jobs", "0").returncode == 2
    withargs = cli(str(SMALL), "--arg", "%2=4")
    assert withargs.returncode == 2 and "--launches" in withargs.stderr
    bad = tmp_path / "launches.json"
    bad.write_text("{not json")
    broken = cli(str(SMALL), "--launches", str(bad))
    assert broken.returncode == 2 and "launches.json" in broken.stderr


# launch arguments


def test_bind_scalars_by_name_through_the_tt_func_signature() -> None:
    ttir = next(SUM.glob("*.ttir")).read_text()
    llir = next(SUM.glob("*.llir")).read_text()
    # (in_ptr0, out_ptr0, r0_numel) in the TTIR: xnumel was specialised away as the constant 1
    assert bind_scalars({"xnumel": 1, "r0_numel": 64}, ttir, llir) == ({"2": 64}, None)
    refusals = [
        {"xnumel": 2, "r0_numel": 64},  # xnumel is the constant 1 in this binary
        {"xnumel": 1, "r0_numel": 72},  # r0_numel has tt.divisibility = 16
        {"r0_numel": 1 << 33},  # past the i32 parameter
    ]
    for scalars in refusals:
        bound, reason = bind_scalars(scalars, ttir, llir)
        assert bound == {} and reason, scalars
    # a TTIR whose arguments do not line up with the LLVM parameters binds nothing
    assert bind_scalars({"r0_numel": 64}, ttir, llir.replace("i32 %2", "float %2"))[0] == {}


def test_output_code_links_launches_by_kernel_path() -> None:
    table = LaunchTable()
    assert read_output_code(OUTPUT_CODE, table) == 2  # two .run calls
    # the pointwise kernel's literal xnumel; the template's grid extras (128, 1, 1) bound to
    # nothing, as its runtime parameters are three pointers
    assert table.by_source["cs44zcullavjs5st7n62nfq26jeok4cfjwhq2zzje5m46fsogcgj.py"] == [
        {"xnumel": 131072}
    ]
    assert table.by_source["cepjqncjdcbriuc4yb5djit6g2rsfk27t46y3dbf2bbxsyaqrzwq.py"] == [{}]
    kernel_py = next(SUM.glob("*.ttir"))  # a file that is not output code adds nothing
    assert read_output_code(kernel_py, table) == 0


def test_launch_arguments_decide_masks_and_without_them_unknown() -> None:
    with_args = json.loads(cli(str(DYNAMIC), "--whole-only", "--json", "--quiet").stdout)
    without = json.loads(
        cli(str(DYNAMIC), "--whole-only", "--json", "--quiet", "--no-launches").stdout
    )
    arange = by_kernel(with_args)[ARANGE]
    assert arange["whole"]["status"] == "proved"
    assert [r["arguments"] for r in arange["whole"]["runs"]] == [
        {"xnumel": 96},
        {"xnumel": 128},
        {"xnumel": 200},
    ]
    assert arange["launches"] == {
        "source": "launches file",
        "distinct": 3,
        "not_used": [],
        "used": 3,
    }
    assert with_args["summary"]["whole"] == {"proved": 2, "refuted": 0, "unknown": 0}
    # the negative control: the same kernels with their scalars tagged stay unknown
    tagged = by_kernel(without)[ARANGE]["whole"]
    assert tagged["status"] == "unknown" and "tagged" in tagged["reason"]
    assert without["summary"]["whole"]["unknown"] == 2


def test_a_launch_set_the_binary_was_not_compiled_for_is_not_used(tmp_path: Path) -> None:
    copy = tmp_path / "cache"
    shutil.copytree(SUM, copy / SUM.name)
    launches = tmp_path / "mine.json"  # r0_numel = 72 breaks the divisibility by 16 of r0_numel
    entries = [{"cache_hash": SUM.name, "scalars": {"xnumel": 1, "r0_numel": 72}}]
    launches.write_text(json.dumps(entries))
    out = json.loads(
        cli(str(copy), "--whole-only", "--json", "--quiet", "--launches", str(launches)).stdout
    )
    record = by_kernel(out)[SUM.name]
    assert record["launches"]["used"] == 0 and "divisibility" in record["launches"]["not_used"][0]
    assert record["whole"]["arguments"] is None  # run with r0_numel tagged, not with 72


# verdicts, outputs, exit codes


def test_table_json_and_exit_codes_on_real_kernels(tmp_path: Path) -> None:
    table = cli(str(SMALL), "--whole-only", "--quiet")
    assert table.returncode == 0, table.stderr
    assert "5 kernels validated" in table.stdout and "whole kernel" in table.stdout
    report = json.loads(cli(str(SMALL), "--whole-only", "--json", "--quiet").stdout)
    assert report["exit_code"] == 0 and report["summary"]["kernels"] == 5
    assert report["summary"]["launch_arguments"] == {
        "Inductor output code": 1,
        "launches file": 4,
    }
    relu = by_kernel(report)["A5YJ5TEXU3X452BIL6CFGSYKFD3KVMCVP7UXE3BHOMD7VSRZOM5A"]
    assert relu["whole"]["arguments"] == {"xnumel": 131072}
    strict = cli(str(DYNAMIC), "--whole-only", "--no-launches", "--require-proofs", "--quiet")
    assert strict.returncode == 3
    assert "top reasons for unknown (whole):" in strict.stdout


def test_a_refuted_kernel_fails_with_its_reason_in_table_json_and_junit(tmp_path: Path) -> None:
    cache = racy_cache(tmp_path / "cache")
    shutil.copytree(SUM, cache / SUM.name)  # a proved kernel beside it
    junit = tmp_path / "out" / "k.xml"
    (tmp_path / "out").mkdir()
    run = cli(str(cache), "--whole-only", "--junit", str(junit), "--quiet")
    assert run.returncode == 1
    assert "refuted:\n  RACYHASH/racy.llir (whole): " in run.stdout
    assert "race" in run.stdout.split("refuted:", 1)[1]
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    failed = [c for c in suite if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["RACYHASH/racy.llir"]
    assert not list(junit.parent.glob(".k.xml.*"))  # written atomically, no leftover


def test_junit_unknown_is_skipped_unless_proofs_are_required(tmp_path: Path) -> None:
    for strict, tag in ((False, "skipped"), (True, "failure")):
        junit = tmp_path / f"{strict}.xml"
        args = ["--whole-only", "--no-launches", "--junit", str(junit), "--quiet"]
        cli(str(DYNAMIC), *args, *(["--require-proofs"] if strict else []))
        cases = ET.parse(junit).getroot().iter("testcase")
        assert all(case.find(tag) is not None for case in cases)


def test_kernel_timeout_is_unknown_never_lost() -> None:
    kernels = find_kernels(SMALL)
    records = run_batch(kernels, SMALL, LaunchTable(), BatchOptions(True, kernel_timeout=1e-4))
    assert len(records) == 5
    timed_out = [r for r in records if r["whole"]["reason"] == "timed out after 0.0001 s"]
    assert timed_out and all(r["status"] == "unknown" for r in timed_out)


def test_jobs_give_the_records_of_one_process() -> None:
    kernels = find_kernels(SMALL)
    table = load_launches(SMALL)
    one = run_batch(kernels, SMALL, table, BatchOptions(whole_only=True), jobs=1)
    two = run_batch(kernels, SMALL, table, BatchOptions(whole_only=True), jobs=2)
    strip = [(r["path"], r["status"], r["whole"].get("arguments")) for r in one]
    assert strip == [(r["path"], r["status"], r["whole"].get("arguments")) for r in two]
    summary = summarize(two, 1.0, 2)
    assert summary["whole"]["proved"] == 5 and summary["kernels_per_minute"] == 300.0


def test_workers_start_the_largest_kernels_first_and_lose_none(tmp_path: Path) -> None:
    kernels = find_kernels(SMALL)
    tasks = [(path, [], "") for path in kernels] + [(tmp_path / "gone.llir", [], "")]
    ordered = longest_first(tasks)
    sizes = [p.stat().st_size for p, _, _ in ordered[:-1]]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) > 1
    assert ordered[-1][0].name == "gone.llir"  # one that cannot be read: last, not lost
    assert sorted(p for p, _, _ in ordered) == sorted(p for p, _, _ in tasks)


# summary pieces


def test_reasons_are_normalised_so_like_reasons_group() -> None:
    one = normalise_reason("call to __nvvm_reflect (LLVM IR line 532, source line 75)")
    two = normalise_reason("call to __nvvm_reflect (LLVM IR line 80, source line 33)")
    assert one == two == "call to __nvvm_reflect (LLVM IR line N, source line N)"
    assert normalise_reason("a branch on %13 of @triton_poi_x") == "a branch on %_ of @_"
    other = normalise_reason("a bitcast from <4 x i1> to i4 (LLVM IR line 1, source line 2)")
    assert other != one


def test_progress_in_place_on_a_terminal_and_lines_otherwise() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    record = {"status": "proved", "kernel": "k", "path": "H/k.llir"}
    lines, terminal = io.StringIO(), Terminal()
    for stream in (lines, terminal):
        progress = Progress(20, stream=stream)
        for _ in range(20):
            progress.update(record)
        progress.close()
    assert lines.getvalue().count("\n") == 10 and "\r" not in lines.getvalue()
    assert terminal.getvalue().count("\r") == 20 and terminal.getvalue().count("\n") == 1
    quiet = io.StringIO()
    Progress(3, stream=quiet, enabled=False).update(record)
    assert quiet.getvalue() == ""


def test_per_op_part_runs_unless_whole_only() -> None:
    report = json.loads(cli(str(SMALL / "norms"), "--json", "--quiet", "--jobs", "2").stdout)
    records = by_kernel(report)
    assert records[SUM.name]["per_op"]["status"] == "proved"
    assert records[SUM.name]["per_op"]["counts"]["proved"] >= 1
    poi = records["D2XN3YJU2AK6HTCXMJCQPFEXXAKIF7XFTUT5EOMITC532E2GLOCQ"]["per_op"]
    assert poi["status"] == "none"  # no layout op: counted apart, not unknown
    assert report["summary"]["per_op"]["none"] == 1 and report["exit_code"] == 0
    whole_only = json.loads(cli(str(SMALL / "norms"), "--json", "--quiet", "--whole-only").stdout)
    assert all(k["per_op"] is None for k in whole_only["kernels"])


def test_whole_only_on_one_dumped_kernel_skips_its_ttgir() -> None:
    """``--whole-only`` on one ``.llir`` runs the LLVM IR only (one report, no per-op part
    though the ``.ttgir`` lies beside it); on a ``.ttgir`` there is nothing to run whole: a
    one-line error, exit 2."""
    (llir,) = SUM.glob("*.llir")
    assert llir.with_suffix(".ttgir").is_file()
    run = cli(str(llir), "--whole-only", "--json")
    report = json.loads(run.stdout)
    assert "reports" not in report and report["source"] == str(llir), report
    refused = cli(str(llir.with_suffix(".ttgir")), "--whole-only")
    assert refused.returncode == 2 and "--whole-only" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr


def test_a_time_out_that_surfaces_as_another_exception_is_still_a_time_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """numpy turns an exception raised inside a comparison (the timer's) into a TypeError;
    the record must say "timed out", not "not validated: TypeError" (seen on a real
    max-autotune matmul)."""
    import time

    import llverify.emitted.dumped as dumped
    from llverify.emitted.batch import KernelTimeout, validate_kernel_dir

    def slow(*args: object, **kwargs: object) -> object:
        try:
            time.sleep(5)
        except KernelTimeout as error:
            raise TypeError("Cannot compare structured arrays") from error
        raise AssertionError("the time limit did not fire")

    monkeypatch.setattr(dumped, "validate_artifact", slow)
    (kernel,) = SUM.glob("*.llir")
    options = BatchOptions(whole_only=True, kernel_timeout=0.2)
    record = validate_kernel_dir(kernel, SMALL, [], "none", options)
    assert record["whole"]["reason"] == "timed out after 0.2 s", record
    assert record["status"] == "unknown"
