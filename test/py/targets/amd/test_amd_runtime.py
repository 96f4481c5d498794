"""The AMD runtime's logic (argument packing, module loading per device, stream, grid checks, errors)
against a recording stand-in for hip-python: no AMD GPU exists here. A real launch is tested where
hip-python finds a device (skipped otherwise)."""

from __future__ import annotations

import ctypes
import enum
import types

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.targets.amd import runtime


@tilec.jit
def axpy(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(
        y_ptr + offs, alpha * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask
    )


class _Error(enum.Enum):
    hipSuccess = 0
    hipErrorInvalidValue = 1


class FakeHip:
    """Records the calls tilec makes; answers like a machine with one gfx942."""

    hipError_t = _Error

    def __init__(self, launch_result=_Error.hipSuccess):
        self.calls = []
        self.launch_result = launch_result

    def hipGetDeviceCount(self):
        return (_Error.hipSuccess, 1)

    def hipDeviceProp_t(self):
        return types.SimpleNamespace(gcnArchName=b"")

    def hipGetDeviceProperties(self, props, index):
        props.gcnArchName = b"gfx942:sramecc+:xnack-"
        return (_Error.hipSuccess,)

    def hipSetDevice(self, index):
        self.calls.append(("hipSetDevice", index))
        return (_Error.hipSuccess,)

    def hipModuleLoadData(self, image):
        self.calls.append(("hipModuleLoadData", image[:4]))
        return (_Error.hipSuccess, "module")

    def hipModuleGetFunction(self, module, name):
        self.calls.append(("hipModuleGetFunction", module, name))
        return (_Error.hipSuccess, "function")

    def hipModuleLaunchKernel(self, fn, gx, gy, gz, bx, by, bz, shared, stream, params, extra=None):
        self.calls.append(
            ("hipModuleLaunchKernel", fn, (gx, gy, gz), (bx, by, bz), shared, stream, params, extra)
        )
        return (self.launch_result,)


class DeviceArray:
    """A GPU array as seen through the CUDA array interface (what torch ROCm and CuPy provide)."""

    def __init__(self, address, typestr="<f4"):
        self.__cuda_array_interface__ = {"data": (address, False), "typestr": typestr, "shape": (4096,)}


@pytest.fixture
def fake_hip(monkeypatch):
    pytest.importorskip("llvmlite")
    from tilec.targets.tools import ToolError, find_lld

    try:
        find_lld()
    except ToolError:
        pytest.skip("needs ld.lld (Debian lld-19 or ROCm)")
    fake = FakeHip()
    monkeypatch.setattr(runtime, "hip", fake)
    runtime.available.cache_clear()
    runtime.device_arch.cache_clear()
    yield fake
    runtime.available.cache_clear()
    runtime.device_arch.cache_clear()


def test_arch_and_launch_through_hip(fake_hip):
    assert runtime.available() and runtime.device_arch() == "gfx942"
    k = tilec.compile(axpy, signature="*fp32,*fp32,i32,fp32", constexprs={"BLOCK": 256}, target="gfx942")
    assert k.asm["hsaco"][:4] == b"\x7fELF"
    x, y = DeviceArray(0x7000_0000), DeviceArray(0x7100_0000)
    k[(16,)](x, y, 4096, 2.5)
    k[(3, 2)](x, y, 4096, 2.5)
    loads = [c for c in fake_hip.calls if c[0] == "hipModuleLoadData"]
    assert loads == [("hipModuleLoadData", b"\x7fELF")]  # once per device, not per launch
    assert ("hipModuleGetFunction", "module", b"axpy") in fake_hip.calls
    launches = [c for c in fake_hip.calls if c[0] == "hipModuleLaunchKernel"]
    assert [c[2] for c in launches] == [(16, 1, 1), (3, 2, 1)]
    _, fn, _, block, shared, stream, params, extra = launches[0]
    assert fn == "function" and block == (4 * 64, 1, 1) and params is None and stream is None
    kinds = [type(v) for v in extra]
    assert kinds == [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int32, ctypes.c_float]
    assert [v.value for v in extra[:3]] == [0x7000_0000, 0x7100_0000, 4096]
    assert extra[3].value == pytest.approx(2.5)


def test_gpu_arrays_select_the_amd_gpu_when_there_is_no_nvidia_one(fake_hip, monkeypatch):
    from tilec.compiler import select_target
    from tilec.targets.nvidia import runtime as nvidia

    monkeypatch.setattr(nvidia, "available", lambda: False)
    assert select_target([DeviceArray(0x7000_0000), 3]) == "gfx942"


def test_launch_errors_are_explained(fake_hip):
    k = tilec.compile(axpy, signature="*fp32,*fp32,i32,fp32", constexprs={"BLOCK": 256}, target="gfx942")
    x, y = DeviceArray(0x7000_0000), DeviceArray(0x7100_0000)
    with pytest.raises(TypeError, match="argument x_ptr must be a GPU array, got ndarray"):
        k[(1,)](np.zeros(4, np.float32), y, 4096, 1.0)
    with pytest.raises(runtime.HipError, match=r"grid \(1, 70000, 1\) exceeds"):
        k[(1, 70000)](x, y, 4096, 1.0)
    fake_hip.launch_result = _Error.hipErrorInvalidValue
    with pytest.raises(
        runtime.HipError, match=r"launching axpy failed: hipErrorInvalidValue \(grid \(2, 1, 1\)"
    ):
        k[(2,)](x, y, 4096, 1.0)


def test_without_hip_kernels_compile_but_say_why_they_cannot_launch(monkeypatch):
    pytest.importorskip("llvmlite")
    from tilec.targets.tools import ToolError, find_lld

    try:
        find_lld()
    except ToolError:
        pytest.skip("needs ld.lld (Debian lld-19 or ROCm)")
    monkeypatch.setattr(runtime, "hip", None)
    runtime.available.cache_clear()
    k = tilec.compile(axpy, signature="*fp32,*fp32,i32,fp32", constexprs={"BLOCK": 256}, target="gfx942")
    message = r"compiled for gfx942, which cannot launch here: hip-python is not installed .*pip install 'tilec\[amd\]'"
    with pytest.raises(RuntimeError, match=message):
        k[(1,)](DeviceArray(0x7000_0000), DeviceArray(0x7100_0000), 4096, 1.0)
    runtime.available.cache_clear()


def _real_amd_gpu():
    try:
        import torch

        return bool(getattr(torch.version, "hip", None)) and torch.cuda.is_available() and runtime.available()
    except ImportError:
        return False


@pytest.mark.gpu
@pytest.mark.skipif(not _real_amd_gpu(), reason="needs an AMD GPU with torch (ROCm) and hip-python")
def test_axpy_on_an_amd_gpu():
    import torch

    x = torch.arange(5000, device="cuda", dtype=torch.float32)
    y = torch.ones_like(x)
    axpy[(tilec.cdiv(5000, 256),)](x, y, 5000, 2.0, BLOCK=256)
    torch.testing.assert_close(y, 2.0 * x + 1)
