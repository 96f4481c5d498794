"""LayerNorm followed by GELU in one kernel: the normalized row never leaves registers.

python examples/layernorm_gelu.py
"""

import math

import numpy as np
from _device import Device, describe

import tilec
import tilec.language as tl


@tilec.jit
def layernorm_gelu_kernel(x_ptr, w_ptr, b_ptr, out_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    centered = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(centered * centered, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
    y = centered * rstd * w + b  # the normalized value stays in registers...
    y = 0.5 * y * (1 + tl.erf(y * 0.7071067811865476))  # ...and goes straight through GELU
    tl.store(out_ptr + row * stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def reference(x, w, b, eps):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps) * w + b
    erf = np.vectorize(math.erf)
    return 0.5 * y * (1 + erf(y / math.sqrt(2)))


def main(rows: int = 512, cols: int = 1000, eps: float = 1e-5) -> None:
    device = Device()
    rng = np.random.default_rng(0)
    x_host = rng.standard_normal((rows, cols), dtype=np.float32)
    w_host = rng.standard_normal(cols, dtype=np.float32)
    b_host = rng.standard_normal(cols, dtype=np.float32)
    x, w, b = device.put(x_host), device.put(w_host), device.put(b_host)
    out = device.empty((rows, cols), np.float32)
    block = tilec.next_power_of_2(cols)
    layernorm_gelu_kernel[(rows,)](x, w, b, out, cols, cols, eps, BLOCK=block)
    np.testing.assert_allclose(device.get(out), reference(x_host, w_host, b_host, eps), rtol=1e-4, atol=1e-4)
    compiled = layernorm_gelu_kernel.warmup(x, w, b, out, cols, cols, eps, BLOCK=block)
    print(describe("layernorm_gelu", compiled, device) + f": {rows}x{cols} matches NumPy")


if __name__ == "__main__":
    main()
