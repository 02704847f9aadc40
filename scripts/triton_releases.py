"""Create one virtualenv per Triton release, for ``llverify.triton.compile`` to compile with.

Run: python scripts/triton_releases.py DIR VERSION... [--link VERSION=VENV]
e.g. python scripts/triton_releases.py ~/.cache/llverify/triton-releases 2.1.0 3.2.0 \
         --link 3.9.0=/path/to/venv
llverify looks for the releases (``llverify.triton.releases.releases_folder``) in
``$LLVERIFY_TRITON_RELEASES``, else in the per-user cache folder
``$XDG_CACHE_HOME/llverify/triton-releases`` (``~/.cache/llverify/triton-releases`` without
``XDG_CACHE_HOME``): make them there, or set ``LLVERIFY_TRITON_RELEASES=DIR``.
Then: PYTHONPATH=. python scripts/triton_releases.py DIR --matrix
compiles tests/data/emitted/{cvt,red}.ttgir (compile_ttgir) and :data:`KERNEL` (compile_python)
with every release in DIR for each target of :data:`MATRIX`, and prints the release x target
table of docs/validation.md ("Compiling with Triton releases"); each failure's full message
follows it.

Each release goes in ``DIR/VERSION`` (``python3 -m venv``, then ``pip install triton==VERSION``).
The 2.x releases also get ``numpy<2`` and a ``torch`` stub module in their site-packages: their
compile path imports torch only for ``torch.version.hip`` and the device capability, which the
stub answers (``LLVERIFY_TORCH_HIP`` set to an architecture makes ``torch.version.hip`` non-None).
``--link VERSION=VENV`` makes ``DIR/VERSION`` a symlink to an existing virtualenv instead.
The script is idempotent: a release whose venv already imports ``triton`` at that version is
left alone.  It prints one progress line per step and a size/time line per release.
``llverify.triton.releases.release_pythons`` finds the venvs.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

TORCH_STUB = '''"""A torch stub for Triton 2.x on a machine without torch (written by llverify)."""
import os
import types

__version__ = "0.0.0+llverify.stub"
version = types.SimpleNamespace(hip=os.environ.get("LLVERIFY_TORCH_HIP") or None, cuda="12.1")


class _Cuda:
    @staticmethod
    def is_available():
        return False

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def get_device_capability(device=None):
        cap = int(os.environ.get("LLVERIFY_TORCH_CAPABILITY", "90"))
        return (cap // 10, cap % 10)


cuda = _Cuda()
'''


#: the Python kernel of --matrix: a row sum (reduce and convert_layout), valid in 2.1 to 3.9
KERNEL = """import triton
import triton.language as tl


@triton.jit
def rowsum(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(y_ptr + r, tl.sum(x, axis=1))
"""

KERNELS = Path(__file__).resolve().parent.parent / "tests" / "data" / "emitted"
#: the targets of the matrix (names of llverify.hardware.TARGETS): those of docs/validation.md
MATRIX = ("sm80", "sm90", "sm100", "gfx942", "gfx950")


def matrix(root: Path) -> None:
    """Compile the three kernels with each release of ``root`` for each target; print the table."""
    import tempfile

    from llverify.hardware import TARGETS
    from llverify.triton.compile import CompileError, compile_python, compile_ttgir
    from llverify.triton.releases import release_pythons

    targets = [TARGETS[name].triton for name in MATRIX]

    texts = {name: (KERNELS / f"{name}.ttgir").read_text() for name in ("cvt", "red")}
    failures: list[str] = []
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "rowsum.py"
        source.write_text(KERNEL)
        for version, python in release_pythons(str(root)).items():
            cells = []
            for target in targets:
                bad = []
                start = time.time()
                for kernel in ("cvt", "red", "python"):
                    try:
                        if kernel == "python":
                            compile_python(
                                str(source),
                                "rowsum",
                                signature={"x_ptr": "*fp32", "y_ptr": "*fp32"},
                                constexprs={"M": 64, "N": 64},
                                target=target,
                                python=python,
                            )
                        else:
                            compile_ttgir(texts[kernel], target, python=python)
                    except CompileError as error:
                        bad.append(kernel)
                        failures.append(f"{version} {target} {kernel}: {error}")
                cells.append("ok" if not bad else "fails: " + ", ".join(bad))
                print(
                    f"  {version} {target}: {cells[-1]} ({time.time() - start:.1f} s)",
                    file=sys.stderr,
                    flush=True,
                )
            rows.append(f"| {version} | " + " | ".join(cells) + " |")
    print("| release | " + " | ".join(targets) + " |")
    print("|---" * (len(targets) + 1) + "|")
    print("\n".join(rows))
    print()
    print("\n\n".join(failures))


def run(cmd: list[str]) -> None:
    """Run ``cmd``, echoing it; raise on failure."""
    print("  $", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def installed_version(venv: Path) -> str | None:
    """The Triton version the venv imports, or None."""
    python = venv / "bin" / "python"
    if not python.exists():
        return None
    proc = subprocess.run(
        [str(python), "-c", "import triton; print(triton.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def site_packages(venv: Path) -> Path:
    """The venv's site-packages folder."""
    python = venv / "bin" / "python"
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


def size_mb(path: Path) -> float:
    """Disk use of ``path`` in MB (du)."""
    out = subprocess.run(["du", "-sm", str(path)], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[0])


def install(root: Path, version: str) -> None:
    """Create ``root/version`` holding triton==version (and what it needs)."""
    venv = root / version
    if installed_version(venv) == version:
        print(f"{version}: present ({size_mb(venv):.0f} MB), skipped", flush=True)
        return
    start = time.time()
    print(f"{version}: creating {venv}", flush=True)
    if venv.exists() and not venv.is_symlink():
        shutil.rmtree(venv)
    run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    packages = [f"triton=={version}"]
    if version.startswith("2."):
        packages.append("numpy<2")
    run([python, "-m", "pip", "install", "--quiet", "--no-cache-dir", *packages])
    if version.startswith("2."):
        stub = site_packages(venv) / "torch"
        stub.mkdir(exist_ok=True)
        (stub / "__init__.py").write_text(TORCH_STUB)
        print(f"  torch stub written to {stub}", flush=True)
    got = installed_version(venv)
    if got != version:
        raise SystemExit(f"{version}: the venv imports triton {got!r} after install")
    print(f"{version}: ok, {size_mb(venv):.0f} MB in {time.time() - start:.0f} s", flush=True)


def link(root: Path, spec: str) -> None:
    """Make ``root/VERSION`` a symlink to the venv named by ``VERSION=VENV``."""
    version, _, target = spec.partition("=")
    if not target:
        raise SystemExit(f"--link {spec!r}: expected VERSION=VENV")
    dest = root / version
    if dest.is_symlink() and dest.resolve() == Path(target).resolve():
        print(f"{version}: link to {target} present, skipped", flush=True)
    else:
        if dest.is_symlink():
            dest.unlink()
        elif dest.exists():
            raise SystemExit(f"--link {spec!r}: {dest} exists and is not a symlink")
        dest.symlink_to(Path(target).resolve())
        print(f"{version}: linked to {target}", flush=True)
    got = installed_version(dest)
    if got != version:
        raise SystemExit(f"{version}: {target} imports triton {got!r}")


def main() -> None:
    """Parse the command line and install each release in turn."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "root",
        help="folder holding one venv per release (llverify's: $LLVERIFY_TRITON_RELEASES, "
        "else ~/.cache/llverify/triton-releases)",
    )
    parser.add_argument("versions", nargs="*", help="Triton releases, e.g. 2.1.0 3.2.0")
    parser.add_argument(
        "--link",
        action="append",
        default=[],
        metavar="VERSION=VENV",
        help="use an existing venv for VERSION (a symlink)",
    )
    parser.add_argument(
        "--matrix",
        action="store_true",
        help="compile the test kernels with each release for each target",
    )
    args = parser.parse_args()
    root = Path(args.root)
    if args.matrix:
        matrix(root)
        return
    root.mkdir(parents=True, exist_ok=True)
    failed = []
    for spec in args.link:
        link(root, spec)
    for version in args.versions:
        try:
            install(root, version)
        except (subprocess.CalledProcessError, SystemExit) as exc:
            print(f"{version}: FAILED: {exc}", flush=True)
            failed.append(version)
    print("done" + (f"; failed: {' '.join(failed)}" if failed else ""), flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
