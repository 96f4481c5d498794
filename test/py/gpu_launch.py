"""Runs suite cases on a GPU: NumPy arguments go to the device as torch tensors and come back."""

from __future__ import annotations

import numpy as np
import pytest
from suite import BF16


def has_gpu() -> bool:
    """torch is installed and sees a CUDA GPU."""
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


# The mark every GPU test carries: `-m gpu` selects them, and they skip where there is no GPU.
needs_gpu = pytest.mark.skipif(not has_gpu(), reason="needs an NVIDIA GPU with torch")


def torch_launcher(device="cuda"):
    import torch

    def to_device(a):
        if a.dtype == BF16:
            return torch.from_numpy(a.view(np.int16).copy()).to(device).view(torch.bfloat16)
        return torch.from_numpy(np.ascontiguousarray(a)).to(device)

    def to_host(t, like):
        if like.dtype == BF16:
            return t.view(torch.int16).cpu().numpy().view(BF16)
        return t.cpu().numpy()

    def launch(kernel, grid, *args, **constexprs):
        moved = [to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        kernel[grid](*moved, **constexprs)
        torch.cuda.synchronize()
        for a, t in zip(args, moved):
            if isinstance(a, np.ndarray):
                a[...] = to_host(t, a).reshape(a.shape)

    return launch
