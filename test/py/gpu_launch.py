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


def run_script(tmp_path, name: str, text: str, *args: str):
    """Runs `text` as a Python script in a fresh process with a disk cache of its own under tmp_path."""
    import os
    import subprocess
    import sys

    script = tmp_path / name
    script.write_text(text)
    env = {**os.environ, "TILEC_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, env=env, timeout=300
    )


_SYNCHRONIZE = """
try:
    torch.cuda.synchronize()
    print("no error")
except Exception as e:  # the context is unusable now, as after any device-side assert
    print("raised:", type(e).__name__)
"""


def device_assertion_output(tmp_path, name: str, script: str) -> str:
    """The output of `script` (which imports torch and ends with a launch that must fail a device
    assertion), run in a process of its own, as a failed assertion leaves the CUDA context unusable,
    followed by a synchronization that must raise."""
    r = run_script(tmp_path, name, script + _SYNCHRONIZE)
    out = r.stdout + r.stderr
    assert "no error" not in out, out[-3000:]
    return out
