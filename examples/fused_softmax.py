"""Fused softmax: one program per row, the row read once and written once (Triton's tutorial kernel).

python examples/fused_softmax.py
"""

import numpy as np
from _device import Device, describe

import tilec
import tilec.language as tl


@tilec.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)  # subtract the row maximum: exp cannot overflow
    numerator = tl.exp(x)
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def main(rows: int = 1823, cols: int = 781) -> None:
    device = Device()
    x_host = np.random.default_rng(0).standard_normal((rows, cols), dtype=np.float32)
    x, out = device.put(x_host), device.empty((rows, cols), np.float32)
    block = tilec.next_power_of_2(cols)
    softmax_kernel[(rows,)](out, x, cols, cols, cols, BLOCK=block, num_warps=4 if block <= 1024 else 8)
    e = np.exp(x_host - x_host.max(axis=1, keepdims=True))
    np.testing.assert_allclose(device.get(out), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    compiled = softmax_kernel.warmup(
        out, x, cols, cols, cols, BLOCK=block, num_warps=4 if block <= 1024 else 8
    )
    print(describe("fused_softmax", compiled, device) + f": {rows}x{cols} matches NumPy")


if __name__ == "__main__":
    main()
