"""Where the examples run: an NVIDIA GPU when torch sees one, else the CPU target with NumPy arrays.

(AMD GPUs: the examples use torch CUDA tensors or NumPy, so on an AMD machine they run on the CPU.)
"""

from __future__ import annotations

import numpy as np

_FP8 = {"float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2"}  # ml_dtypes -> torch names


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
        fp8 = _FP8.get(array.dtype.name)  # ml_dtypes' fp8 arrays: torch takes their bytes
        if fp8 is not None:
            raw = self.torch.from_numpy(np.ascontiguousarray(array).view(np.uint8)).cuda()
            return raw.view(getattr(self.torch, fp8))
        return self.torch.from_numpy(np.ascontiguousarray(array)).cuda()

    def empty(self, shape, dtype):
        return self.put(np.empty(shape, dtype))

    def get(self, value) -> np.ndarray:
        if self.torch is not None and isinstance(value, self.torch.Tensor):
            name = str(value.dtype).removeprefix("torch.")
            if name in _FP8.values():
                import ml_dtypes

                return value.cpu().view(self.torch.uint8).numpy().view(getattr(ml_dtypes, name))
            return value.cpu().numpy()
        return value


def describe(kernel_name: str, compiled, device: Device) -> str:
    return (
        f"{kernel_name}: ran on {device.name}, target '{compiled.target}' (stages: {', '.join(compiled.asm)})"
    )
