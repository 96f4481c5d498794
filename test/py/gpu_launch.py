"""Runs suite cases on a GPU: NumPy arguments go to the device as torch tensors and come back."""

from __future__ import annotations

import numpy as np
from suite import BF16


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
