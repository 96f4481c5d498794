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
    from tilec.targets import target_for

    return GPUTarget(*target_for(name).gpu_target(name))


class _Utils:
    def __init__(self, target):
        self.target = target  # the active one (tilec.targets.base.Target)
        self.backend = target.backend

    @functools.cache  # noqa: B019 - one driver object per process, devices do not change
    def get_device_properties(self, device: int | None = 0) -> dict:
        """Triton's keys: multiprocessor_count, max_num_regs (per SM), max_shared_mem (per block,
        opt-in), warpSize, sm_clock_rate and mem_clock_rate (kHz), mem_bus_width (bits); on the host
        its cores, vector register lanes and L2 cache. `device` None (a CPU torch.device's index)
        means the current one."""
        return self.target.device_properties(0 if device is None else device)


class _ActiveDriver:
    @functools.cached_property
    def target(self):
        """The target launches default to: the first with a GPU present, else the host's."""
        from tilec.targets import TARGETS, target_for

        gpus = (t for t in TARGETS if t.device != "cpu" and t.stored)
        return next((t for t in gpus if t.available()), None) or target_for("cpu")

    @functools.cached_property
    def backend(self) -> str:
        return self.utils.backend

    @functools.cached_property
    def utils(self) -> _Utils:
        return _Utils(self.target)

    def get_current_target(self) -> GPUTarget:
        if self.target.device == "cpu":
            return target_of("cpu")
        return target_of(self.target.device_arch(self.get_current_device()))

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
