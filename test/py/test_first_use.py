"""What a new user meets first: the command-line tools, IR dumps, do_bench without a GPU, and the
messages for what this machine lacks."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as tl

REPO = Path(__file__).resolve().parents[2]


@tilec.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def python(*argv, env=None):
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=environment)


def test_version_report_says_what_runs_here(tmp_path):
    for argv in (["-m", "tilec"], ["-m", "tilec", "--version"]):
        r = python(*argv, env={"TILEC_CACHE_DIR": str(tmp_path)})
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert lines[0].startswith(f"tilec {tilec.__version__} (Python ")
        assert lines[1].startswith("MLIR/LLVM 22.")
        rows = {
            line.split()[0]: line
            for line in lines
            if line.split()[0] in ("interpreter", "cpu", "nvidia", "amd")
        }
        assert set(rows) == {"interpreter", "cpu", "nvidia", "amd"}
        assert "yes" in rows["cpu"]
        # Each target that cannot launch says why, with what to install.
        for family, extra in (("nvidia", "tilec[nvidia]"), ("amd", "tilec[amd]")):
            if " no: " in rows[family] and "not installed" in rows[family]:
                assert extra in rows[family], rows[family]
        assert lines[-1] == f"cache: {tmp_path}"


def test_version_is_written_once():
    from tilec._version import __version__

    assert tilec.__version__ == __version__
    assert "version =" not in (REPO / "pyproject.toml").read_text().split("[tool.setuptools.dynamic]")[0]


def test_help_loads_neither_mlir_nor_the_language():
    """`tilec-opt --help` and `--version` answer before MLIR, NumPy's dtypes or the passes load."""
    probe = """
import sys
for name in ("mlir", "ml_dtypes", "numpy"):
    sys.modules[name] = None  # importing any of them now fails
from tilec.tools.opt import main
for flag in ("--help", "--version"):
    try:
        main([flag])
    except SystemExit as e:
        assert e.code == 0
"""
    r = python("-c", probe)
    assert r.returncode == 0, r.stderr
    assert "usage: tilec-opt" in r.stdout and "tilec-opt (tilec " in r.stdout


def test_dump_ir_prints_every_stage(capfd, monkeypatch, tmp_path):
    monkeypatch.setenv("TILEC_DUMP_IR", "1")
    for target, stages in (
        ("cpu", ["tile", "linalg", "bufferized", "llvm", "llir", "so"]),
        ("sm_90a", ["tile", "gpu", "llvm", "ptx"]),
        ("gfx942", ["tile", "gpu", "llvm", "llir", "amdgcn"]),
    ):
        monkeypatch.setenv("TILEC_NO_PTXAS", "1")
        kernel = tilec.compile(add, "*fp32,*fp32,*fp32,i32", {"BLOCK": 256}, target=target)
        printed = capfd.readouterr().out
        for stage in stages:
            assert f"// -----// tilec add after stage {stage} //----- //" in printed, (target, stage)
            assert stage in kernel.asm
        assert printed.count("after stage") == len([s for s in kernel.asm if not s.startswith("_")])
    monkeypatch.setenv("TILEC_DUMP_IR", "tile,ptx")
    tilec.compile(add, "*fp32,*fp32,*fp32,i32", {"BLOCK": 512}, target="sm_90a")
    printed = capfd.readouterr().out
    assert printed.count("after stage") == 2 and "after stage ptx" in printed and ".visible .entry" in printed


def test_do_bench_without_a_gpu_times_on_the_host():
    from tilec.targets.nvidia import runtime as nvidia

    if nvidia.available():
        pytest.skip("this machine has an NVIDIA GPU")
    x = np.ones(4096, np.float32)
    out = np.empty_like(x)
    ms = tilec.testing.do_bench(lambda: add[(16,)](x, x, out, x.size, BLOCK=256), warmup=1, rep=5)
    assert ms > 0
    np.testing.assert_array_equal(out, 2.0)
    with pytest.raises(
        RuntimeError, match="do_bench\\(device='cuda'\\): no GPU to time on: .*use device='cpu'"
    ):
        tilec.testing.do_bench(lambda: None, device="cuda")
    with pytest.raises(ValueError, match="device must be 'cuda' or 'cpu'"):
        tilec.testing.do_bench(lambda: None, device="tpu")


def test_an_nvidia_kernel_without_cuda_python_says_what_to_install(monkeypatch):
    from tilec.targets.nvidia import runtime as nvidia

    monkeypatch.setattr(nvidia, "cu", None)
    nvidia.unavailable_reason.cache_clear()
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    try:
        kernel = tilec.compile(add, "*fp32,*fp32,*fp32,i32", {"BLOCK": 256}, target="sm_90a")
        x = np.ones(256, np.float32)
        with pytest.raises(
            RuntimeError,
            match=r"cannot launch here: cuda-python is not installed: pip install 'tilec\[nvidia\]'",
        ):
            kernel[(1,)](x, x, x, 256)
    finally:
        nvidia.unavailable_reason.cache_clear()


def test_an_unsupported_array_is_named_at_the_kernel():
    x = np.ones(256, np.complex64)
    out = np.zeros(256, np.float32)
    with pytest.raises(TypeError) as info:
        add[(1,)](x, out, out, 256, BLOCK=256)
    message = str(info.value)
    def_line = (
        Path(__file__)
        .read_text()
        .splitlines()
        .index("def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):")
        + 1
    )
    assert message.startswith(f"{__file__}:{def_line}: add(): argument 'x_ptr': ")
    assert "complex64 are not supported" in message and "x.view(float32)" in message


def test_signature_divisibility_suffixes():
    """tilec.compile: a bare pointer is assumed 16-byte aligned (as launches of fresh allocations),
    ':1' assumes nothing, ':16' on an integer lets the kernel assume a multiple of 16."""
    kernel = tilec.compile(add, "*fp32,*fp32:1,*fp32:16,i32:16", {"BLOCK": 128}, target="cpu")
    assert kernel.metadata["divisibility"] == [16, 1, 16, 16]
    x = np.ones(129, np.float32)[1:]  # 4 bytes past an aligned address
    out = np.zeros(128, np.float32)
    with pytest.raises(ValueError, match="'x_ptr' was compiled assuming divisibility by 16"):
        kernel[(1,)](x, x, out, 128)
    loose = tilec.compile(add, "*fp32:1,*fp32:1,*fp32:16,i32", {"BLOCK": 128}, target="cpu")
    loose[(1,)](x, x, out, 128)
    np.testing.assert_array_equal(out, 2.0)
    for bad, message in (("*fp32:3", "power of two"), ("fp32:16", "only pointers and integers")):
        with pytest.raises(ValueError, match=message):
            tilec.compile(add, f"*fp32,*fp32,{bad},i32", {"BLOCK": 128}, target="cpu")
