"""`tilec.runtime.driver.active`: the parts of Triton's `triton.runtime.driver.active` that ported
scripts use to size their launches (Triton's fused-softmax tutorial: the SM count, registers and
shared memory per SM, the warp size) and to pick a device.

    from tilec.runtime import driver
    target = driver.active.get_current_target()          # .backend "cuda" | "hip" | "cpu", .arch, .warp_size
    props = driver.active.utils.get_device_properties(0)  # multiprocessor_count, max_shared_mem, ...
    device = driver.active.get_active_torch_device()      # torch.device("cuda", i) or "cpu" (needs torch)

The active driver is the one launches default to: an NVIDIA GPU if cuda-python finds one, else an
AMD GPU through hip-python, else the host (the CPU target), whose "SMs" are its cores.
"""

from __future__ import annotations

import functools
from typing import NamedTuple


class GPUTarget(NamedTuple):
    """What get_current_target() returns, as Triton's: the backend, its architecture, the warp size."""

    backend: str
    arch: object
    warp_size: int


def target_of(name: str) -> GPUTarget:
    """The GPUTarget of a tilec target name: "sm_90a" -> ("cuda", 90, 32), "gfx942" -> ("hip",
    "gfx942", 64), "gfx1100" -> ("hip", "gfx1100", 32); "cpu" and "interpreter" -> (name, "host", 1)."""
    from tilec.targets import wavefront_size

    if name.startswith("sm_"):  # compute capability as Triton writes it: sm_100a -> 100
        return GPUTarget("cuda", int(name[3:].rstrip("abf")), 32)
    if name.startswith("gfx"):
        return GPUTarget("hip", name, wavefront_size(name))
    return GPUTarget(name, "host", 1)


class _Utils:
    def __init__(self, backend: str):
        self.backend = backend

    @functools.cache  # noqa: B019 - one driver object per process, devices do not change
    def get_device_properties(self, device: int | None = 0) -> dict:
        """Triton's keys: multiprocessor_count, max_num_regs (per SM), max_shared_mem (per block,
        opt-in), warpSize, sm_clock_rate and mem_clock_rate (kHz), mem_bus_width (bits); on the host
        its cores, vector register lanes and L2 cache. `device` None (a CPU torch.device's index)
        means the current one."""
        device = 0 if device is None else device
        if self.backend == "cuda":
            from tilec.targets.nvidia import runtime as nv

            cu = nv.cu
            nv._check(cu.cuInit(0), "cuInit")
            dev = nv._check(cu.cuDeviceGet(device), "cuDeviceGet")
            a = cu.CUdevice_attribute

            def attr(name):
                return nv._check(cu.cuDeviceGetAttribute(getattr(a, name), dev), "cuDeviceGetAttribute")

            return {
                "multiprocessor_count": attr("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"),
                "max_num_regs": attr("CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR"),
                "max_shared_mem": attr("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
                "warpSize": attr("CU_DEVICE_ATTRIBUTE_WARP_SIZE"),
                "sm_clock_rate": attr("CU_DEVICE_ATTRIBUTE_CLOCK_RATE"),
                "mem_clock_rate": attr("CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE"),
                "mem_bus_width": attr("CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH"),
                "max_threads_per_sm": attr("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR"),
            }
        if self.backend == "hip":
            from tilec.targets.amd import runtime as amd

            props = amd.hip.hipDeviceProp_t()
            amd._check(amd.hip.hipGetDeviceProperties(props, device), "hipGetDeviceProperties")
            return {
                "multiprocessor_count": props.multiProcessorCount,
                "max_num_regs": props.regsPerMultiprocessor,
                "max_shared_mem": props.sharedMemPerBlock,
                "warpSize": props.warpSize,
                "sm_clock_rate": props.clockRate,
                "mem_clock_rate": props.memoryClockRate,
                "mem_bus_width": props.memoryBusWidth,
                "max_threads_per_sm": props.maxThreadsPerMultiProcessor,
            }
        # The host: its cores, vector registers and L2 cache (see tilec/targets/cpu/properties.py)
        from tilec.targets.cpu.properties import host_properties

        return dict(host_properties())


class _ActiveDriver:
    @functools.cached_property
    def backend(self) -> str:
        from tilec.targets.amd import runtime as amd
        from tilec.targets.nvidia import runtime as nv

        if nv.available():
            return "cuda"
        if amd.available():
            return "hip"
        return "cpu"

    @functools.cached_property
    def utils(self) -> _Utils:
        return _Utils(self.backend)

    def get_current_target(self) -> GPUTarget:
        if self.backend == "cuda":
            from tilec.targets.nvidia import runtime as nv

            return target_of(nv.device_arch(self.get_current_device()))
        if self.backend == "hip":
            from tilec.targets.amd import runtime as amd

            return target_of(amd.device_arch(self.get_current_device()))
        return target_of("cpu")

    def get_current_device(self) -> int:
        try:
            import torch

            if self.backend in ("cuda", "hip") and torch.cuda.is_available():
                return torch.cuda.current_device()
        except ImportError:
            pass
        return 0

    def get_active_torch_device(self):
        """torch.device of the active backend (torch's "cuda" also names ROCm devices)."""
        try:
            import torch
        except ImportError:
            raise RuntimeError(
                "get_active_torch_device needs torch; tilec itself takes NumPy arrays"
            ) from None
        if self.backend in ("cuda", "hip"):
            return torch.device("cuda", self.get_current_device())
        return torch.device("cpu")

    def get_device_interface(self):
        """torch.cuda for a GPU backend (as Triton's), None on the host."""
        if self.backend == "cpu":
            return None
        import torch

        return torch.cuda


class _Driver:
    @functools.cached_property
    def active(self) -> _ActiveDriver:
        return _ActiveDriver()


driver = _Driver()
