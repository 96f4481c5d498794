"""An fp8 linear layer: activations quantized to fp8 (e4m3) with a per-tensor scale, then
y = (x_q @ W_q^T) * scale_x * scale_w + bias with W [N, K] as torch.nn.Linear stores it. On an H200
(sm_90a) the product runs on the fp8 warpgroup tensor cores; elsewhere fp8 is read as fp16.

    python examples/fp8_linear.py
"""

import ml_dtypes
import numpy as np
from _device import Device, describe

import tilec
import tilec.language as tl

FP8_MAX = 448.0  # the largest finite e4m3 value


@tilec.jit
def quantize_kernel(x_ptr, q_ptr, inv_scale, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    # rounds to nearest even and saturates at +-448, as NVIDIA's cvt.rn.satfinite
    tl.store(q_ptr + offs, (x * inv_scale).to(tl.float8e4nv), mask=offs < n)


@tilec.jit
def fp8_linear_kernel(
    x_ptr, w_ptr, bias_ptr, y_ptr, M, N, K, scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):  # fmt: skip
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + rm[:, None] * K + rk[None, :]
    w_ptrs = w_ptr + rn[:, None] * K + rk[None, :]  # rows of W: K contiguous, as fp8 GEMMs want
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        x = tl.load(x_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BLOCK_K), other=0.0)
        w = tl.load(w_ptrs, mask=(rn[:, None] < N) & (rk[None, :] < K - k * BLOCK_K), other=0.0)
        acc = tl.dot(x, tl.trans(w), acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0)
    y = acc * scale + bias[None, :]
    tl.store(
        y_ptr + rm[:, None] * N + rn[None, :],
        y.to(y_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


def quantize(device, x_host):
    """fp8 values and the scale that maps the largest |x| to 448."""
    scale = float(np.abs(x_host).max()) / FP8_MAX
    q = device.put(np.zeros(x_host.shape, ml_dtypes.float8_e4m3fn))
    n = x_host.size
    quantize_kernel[(tilec.cdiv(n, 1024),)](device.put(x_host), q, 1.0 / scale, n, BLOCK=1024)
    return q, scale


def main() -> None:
    device = Device()
    on_gpu = device.torch is not None
    M, N, K = (1000, 1100, 1200) if on_gpu else (100, 70, 150)  # none a multiple of the blocks
    rng = np.random.default_rng(0)
    x_host = rng.standard_normal((M, K)).astype(np.float32)
    w_host = (rng.standard_normal((N, K)) / np.sqrt(K)).astype(np.float32)
    bias_host = rng.standard_normal(N).astype(np.float32)
    xq, sx = quantize(device, x_host)
    wq, sw = quantize(device, w_host)
    bias, y = device.put(bias_host), device.empty((M, N), np.float16)
    config = (
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
        if on_gpu
        else {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}
    )
    grid = (tilec.cdiv(M, config["BLOCK_M"]), tilec.cdiv(N, config["BLOCK_N"]))
    fp8_linear_kernel[grid](xq, wq, bias, y, M, N, K, sx * sw, **config)

    # the quantization is bit-exact against ml_dtypes (round to nearest even, saturating)
    expected_q = np.clip(x_host / sx, -FP8_MAX, FP8_MAX).astype(ml_dtypes.float8_e4m3fn)
    assert (device.get(xq).view(np.uint8) == expected_q.view(np.uint8)).all()
    x_dq = device.get(xq).astype(np.float64) * sx
    w_dq = device.get(wq).astype(np.float64) * sw
    expected = x_dq @ w_dq.T + bias_host
    np.testing.assert_allclose(device.get(y).astype(np.float64), expected, rtol=1e-2, atol=2e-2)
    error = np.abs(expected - x_host.astype(np.float64) @ w_host.T - bias_host).mean()
    compiled = fp8_linear_kernel.warmup(xq, wq, bias, y, M, N, K, sx * sw, grid=grid, **config)
    print(
        describe("fp8_linear", compiled, device)
        + f": {M}x{K} @ ({N}x{K})^T in fp8 matches NumPy on the quantized values"
        + f" (mean quantization error {error:.3f})"
    )


if __name__ == "__main__":
    main()
