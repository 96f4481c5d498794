"""AMD runtime (hip-python): load a kernel's HSACO per device, launch it on the caller's stream.

Arrays are torch ROCm tensors (torch reports them as "cuda") or objects with the CUDA array interface.
Arguments are packed the way hipModuleLaunchKernel's `extra` buffer expects them (hip-python builds the
buffer from a tuple of ctypes values, with each value's alignment).

No AMD GPU exists where tilec is developed: this runtime is exercised against a recording stand-in for
hip-python in CI (test/py/targets/amd/test_amd_runtime.py), never on hardware yet.
"""

from __future__ import annotations

import ctypes
import functools
import threading

from tilec.targets import arrays, kernel_arg_ctype

try:
    from hip import hip
except Exception:  # noqa: BLE001 - ImportError, or OSError when libamdhip64 is missing: no AMD runtime
    hip = None


class HipError(RuntimeError):
    pass


def _check(result, what: str):
    err = result[0] if isinstance(result, tuple) else result
    if err != hip.hipError_t.hipSuccess:
        raise HipError(f"{what} failed: {getattr(err, 'name', err)}")
    if isinstance(result, tuple):
        return result[1] if len(result) == 2 else (result[1:] or None)
    return None


@functools.cache
def unavailable_reason() -> str | None:
    """Why AMD kernels cannot launch here, with what to install; None when they can."""
    if hip is None:
        return "hip-python is not installed (or finds no libamdhip64): pip install 'tilec[amd]' and ROCm"
    try:
        if _check(hip.hipGetDeviceCount(), "hipGetDeviceCount") == 0:
            return "hip-python found no AMD GPU"
    except Exception as e:  # noqa: BLE001 - no driver, no device, a broken install
        return f"hip-python found no usable ROCm runtime or AMD GPU ({e})"
    return None


def available() -> bool:
    return unavailable_reason() is None


available.cache_clear = unavailable_reason.cache_clear  # the probe is cached; tests start it again


@functools.cache
def device_arch(index: int = 0) -> str:
    """'gfx942' for an MI300X, 'gfx90a' for an MI250, 'gfx1100' for a Radeon 7900, ..."""
    if not available():
        raise RuntimeError("no AMD GPU is available (hip-python found no device)")
    props = hip.hipDeviceProp_t()
    _check(hip.hipGetDeviceProperties(props, index), "hipGetDeviceProperties")
    name = props.gcnArchName
    name = name.decode() if isinstance(name, bytes) else str(name)
    return name.split(":")[0]  # "gfx942:sramecc+:xnack-" -> "gfx942"


def synchronize() -> None:
    _check(hip.hipDeviceSynchronize(), "hipDeviceSynchronize")


def _stream_of(value) -> int:
    """The current stream of torch (ROCm builds use torch.cuda for HIP streams), else the default."""
    if type(value).__module__.startswith("torch"):
        import torch

        return torch.cuda.current_stream(value.device).cuda_stream
    return 0


class Launcher:
    """Launches one compiled kernel: its code object is loaded per device on first use; each launch
    packs the arguments and calls hipModuleLaunchKernel on the current stream of the arrays' library."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.name = kernel.name
        self.image = kernel.asm["hsaco"]
        self.threads = kernel.options.num_warps * int(kernel.metadata.get("wavefront", 64))
        self.shared = 0  # LDS is declared statically in the code object
        self.types = [kernel_arg_ctype(t) for t in kernel.arg_types]
        self.functions: dict[int, object] = {}
        self.lock = threading.Lock()

    def function(self, index: int):
        _check(hip.hipSetDevice(index), "hipSetDevice")
        module = _check(hip.hipModuleLoadData(self.image), f"loading {self.name}")
        fn = _check(
            hip.hipModuleGetFunction(module, self.name.encode()), f"hipModuleGetFunction({self.name})"
        )
        self.functions[index] = fn
        return fn

    def __call__(self, grid, args):
        values, device, source = [], 0, None
        for i, (t, v) in enumerate(zip(self.kernel.arg_types, args)):
            if t.is_ptr():
                info = arrays.describe(v)
                if info is None or info.device != "cuda":
                    raise TypeError(
                        f"{self.name}: argument {self.kernel.arg_names[i]} must be a GPU array, "
                        f"got {type(v).__name__}"
                    )
                values.append(ctypes.c_uint64(info.address))
                source, device = v, info.device_index
            else:
                values.append(self.types[i](v))
        gx, gy, gz = grid
        if gx * gy * gz == 0:
            return
        if gx > 2**31 - 1 or gy > 65535 or gz > 65535:
            raise HipError(
                f"launching {self.name} failed: grid {tuple(grid)} exceeds 2**31 - 1 programs along axis 0 "
                "or 65535 along axes 1 and 2"
            )
        with self.lock:
            fn = self.functions.get(device) or self.function(device)
        stream = _stream_of(source) if source is not None else 0
        result = hip.hipModuleLaunchKernel(
            fn, gx, gy, gz, self.threads, 1, 1, self.shared, stream or None, None, extra=tuple(values)
        )
        err = result[0] if isinstance(result, tuple) else result
        if err != hip.hipError_t.hipSuccess:
            raise HipError(
                f"launching {self.name} failed: {getattr(err, 'name', err)} (grid {tuple(grid)}, "
                f"{self.threads} threads, num_warps={self.kernel.options.num_warps})"
            )
