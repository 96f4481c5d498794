"""NVIDIA runtime (cuda-python driver API): load a module per device, launch on the caller's stream.

The per-call path is a precomputed ctypes argument packer and one cuLaunchKernel.
"""

from __future__ import annotations

import ctypes
import functools

from tilec.python import arrays

try:
    from cuda.bindings import driver as cu
except ImportError:  # pragma: no cover - without cuda-python there is no NVIDIA runtime
    try:
        from cuda import cuda as cu
    except ImportError:
        cu = None


class CudaError(RuntimeError):
    pass


def _check(result, what: str):
    err = result[0] if isinstance(result, tuple) else result
    if int(err) != 0:
        _, name = cu.cuGetErrorName(err)
        _, text = cu.cuGetErrorString(err)
        raise CudaError(f"{what} failed: {name.decode() if name else err}: {text.decode() if text else ''}")
    if isinstance(result, tuple):
        return result[1] if len(result) == 2 else result[1:]
    return None


@functools.cache
def available() -> bool:
    if cu is None:
        return False
    try:
        _check(cu.cuInit(0), "cuInit")
        return _check(cu.cuDeviceGetCount(), "cuDeviceGetCount") > 0
    except CudaError:
        return False


@functools.cache
def device_arch(index: int = 0) -> str:
    """'sm_90a' for an H100/H200, 'sm_80' for an A100, ... (the 'a' variant where it exists)."""
    if not available():
        raise RuntimeError("no NVIDIA GPU is available (cuda-python found no device)")
    dev = _check(cu.cuDeviceGet(index), "cuDeviceGet")
    attr = cu.CUdevice_attribute
    major = _check(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "attr")
    minor = _check(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "attr")
    suffix = "a" if (major, minor) in ((9, 0), (10, 0)) else ""
    return f"sm_{major}{minor}{suffix}"


def _ensure_context(index: int):
    ctx = _check(cu.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if ctx is not None and int(ctx) != 0:
        dev = _check(cu.cuCtxGetDevice(), "cuCtxGetDevice")
        if int(dev) == index:
            return
    dev = _check(cu.cuDeviceGet(index), "cuDeviceGet")
    primary = _check(cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    _check(cu.cuCtxSetCurrent(primary), "cuCtxSetCurrent")


def _stream_of(value, index: int) -> int:
    module = type(value).__module__
    if module.startswith("torch"):
        import torch

        return torch._C._cuda_getCurrentRawStream(index)
    if module.startswith("cupy"):
        import cupy

        return cupy.cuda.get_current_stream().ptr
    return 0


def _ctype(t):
    if t.is_ptr():
        return ctypes.c_uint64
    if t.is_floating():
        return ctypes.c_float if t.primitive_bitwidth == 32 else ctypes.c_double
    return {1: ctypes.c_bool, 8: ctypes.c_int8, 16: ctypes.c_int16, 32: ctypes.c_int32, 64: ctypes.c_int64}[
        t.primitive_bitwidth
    ]


class Launcher:
    def __init__(self, kernel):
        self.kernel = kernel
        self.name = kernel.name
        self.image = kernel.asm.get("cubin") or kernel.asm["ptx"].encode() + b"\0"
        self.threads = kernel.options.num_warps * 32
        self.arg_types = kernel.arg_types
        self.ctypes = [_ctype(t) for t in kernel.arg_types]
        self.pointer_slots = [i for i, t in enumerate(kernel.arg_types) if t.is_ptr()]
        self.functions: dict[int, object] = {}  # device index -> CUfunction (module loaded per device)

    def function(self, index: int):
        """The kernel on device `index`; its module is loaded there on first use."""
        loaded = self.functions.get(index)
        if loaded is not None:
            return loaded[1]
        _ensure_context(index)
        module = _check(cu.cuModuleLoadData(self.image), f"loading {self.name}")
        fn = _check(cu.cuModuleGetFunction(module, self.name.encode()), f"cuModuleGetFunction({self.name})")
        self.functions[index] = (module, fn)
        return fn

    def __call__(self, grid, args):
        device, stream_source = 0, None
        values = list(args)
        for i in self.pointer_slots:
            v = values[i]
            if getattr(v, "is_cuda", False):  # torch tensors: the fast, common case
                values[i] = v.data_ptr()
                device, stream_source = v.get_device(), v
                continue
            info = arrays.describe(v)
            if info is None or info.device != "cuda":
                raise TypeError(
                    f"{self.name}: argument {self.kernel.arg_names[i]} must be a GPU array, got {type(v).__name__}"
                )
            values[i] = info.address
            device, stream_source = info.device_index, v
        if grid[0] * grid[1] * grid[2] == 0:
            return
        fn = self.function(device)
        boxes = [ct(v) for ct, v in zip(self.ctypes, values)]
        params = (ctypes.c_void_p * len(boxes))(*[ctypes.addressof(b) for b in boxes])
        stream = _stream_of(stream_source, device) if stream_source is not None else 0
        try:
            _check(
                cu.cuLaunchKernel(
                    fn, grid[0], grid[1], grid[2], self.threads, 1, 1, 0, stream, ctypes.addressof(params), 0
                ),
                f"launching {self.name}",
            )
        except CudaError as e:
            raise CudaError(
                f"{e} (kernel {self.name}, grid {grid}, {self.threads} threads, num_warps={self.kernel.options.num_warps})"
            ) from None
