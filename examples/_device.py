"""Where the examples run: an NVIDIA GPU when torch sees one, else the CPU target with NumPy arrays.

(AMD GPUs: tilec compiles for them, but has no AMD runtime yet, so the examples fall back to the CPU.)
"""

from __future__ import annotations

import numpy as np


class Device:
    def __init__(self):
        self.torch = None
        try:
            import torch

            if torch.cuda.is_available():
                self.torch = torch
        except ImportError:
            pass
        self.name = f"NVIDIA GPU ({self.torch.cuda.get_device_name()})" if self.torch else "CPU"

    def put(self, array: np.ndarray):
        """The array on the device: a torch CUDA tensor, or the NumPy array itself."""
        if self.torch is None:
            return np.ascontiguousarray(array)
        return self.torch.from_numpy(np.ascontiguousarray(array)).cuda()

    def empty(self, shape, dtype):
        return self.put(np.empty(shape, dtype))

    def get(self, value) -> np.ndarray:
        if self.torch is not None and isinstance(value, self.torch.Tensor):
            return value.cpu().numpy()
        return value


def describe(kernel_name: str, compiled, device: Device) -> str:
    return (
        f"{kernel_name}: ran on {device.name}, target '{compiled.target}' (stages: {', '.join(compiled.asm)})"
    )
