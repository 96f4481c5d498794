"""Vector addition with tilec: one kernel source, run on an NVIDIA GPU when one is present, else
compiled for the CPU. Checks the result and says what ran where.

    python examples/vector_add.py
"""

import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n  # the last block may be partial
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def gpu_arrays(n):
    """torch tensors on the GPU when torch sees a CUDA device, else None."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    return x, y, torch.empty_like(x), lambda t: t.cpu().numpy()


def main(n: int = 1_000_003, block: int = 1024) -> None:
    arrays = gpu_arrays(n)
    if arrays is None:
        rng = np.random.default_rng(0)
        x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        arrays = (x, y, np.empty_like(x), lambda a: a)
    x, y, out, to_host = arrays
    kernel = add_kernel.warmup(x, y, out, n, BLOCK=block, grid=(1,))
    add_kernel[(tilec.cdiv(n, block),)](x, y, out, n, BLOCK=block)
    expected = to_host(x) + to_host(y)
    np.testing.assert_allclose(to_host(out), expected, rtol=0, atol=0)
    stages = ", ".join(kernel.asm)
    print(f"vector_add: {n} elements on target '{kernel.target}' ({stages}): result matches NumPy")


if __name__ == "__main__":
    main()
