"""Matrix multiplication as in Triton's tutorial: block tiles, a K loop with masked tails, grouped
program order for L2 reuse, a fused activation epilogue, and @tilec.autotune choosing the block sizes.

    python examples/matmul.py
"""

import numpy as np
from _device import Device, describe

import tilec
import tilec.language as tl


@tilec.autotune(
    configs=[
        tilec.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4),
        tilec.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@tilec.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr, ACTIVATION: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # Grouped order: GROUP_M rows of tiles are walked column by column, so their A and B tiles are
    # reused from L2 while they are still there.
    group = GROUP_M * num_pid_n
    first_m = (pid // group) * GROUP_M
    group_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % group) % group_m)
    pid_n = (pid % group) // group_m

    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if ACTIVATION == "leaky_relu":  # the epilogue runs on the accumulator, before the one store
        acc = tl.where(acc >= 0, acc, 0.01 * acc)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(
        c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn,
        acc.to(c_ptr.dtype.element_ty),
        mask=mask,
    )


def matmul(a, b, c, M, N, K, activation=""):
    def grid(meta):
        return (tilec.cdiv(M, meta["BLOCK_M"]) * tilec.cdiv(N, meta["BLOCK_N"]),)

    matmul_kernel[grid](a, b, c, M, N, K, K, 1, N, 1, N, 1, GROUP_M=8, ACTIVATION=activation)


def main() -> None:
    device = Device()
    on_gpu = device.torch is not None
    M, N, K = (1000, 1100, 1200) if on_gpu else (200, 150, 300)  # none a multiple of the blocks
    dtype = np.float16 if on_gpu else np.float32
    rng = np.random.default_rng(0)
    a_host = rng.standard_normal((M, K)).astype(dtype)
    b_host = rng.standard_normal((K, N)).astype(dtype)
    a, b, c = device.put(a_host), device.put(b_host), device.empty((M, N), dtype)
    matmul(a, b, c, M, N, K, activation="leaky_relu")
    expected = a_host.astype(np.float32) @ b_host.astype(np.float32)
    expected = np.where(expected >= 0, expected, 0.01 * expected)
    tolerance = 2e-2 if dtype == np.float16 else 1e-4
    np.testing.assert_allclose(
        device.get(c).astype(np.float32), expected, rtol=tolerance, atol=tolerance * 10
    )
    best = matmul_kernel.best_config
    compiled = matmul_kernel.fn.warmup(
        a, b, c, M, N, K, K, 1, N, 1, N, 1, GROUP_M=8, ACTIVATION="leaky_relu",
        num_warps=best.num_warps, **best.kwargs,
    )  # fmt: skip
    print(describe("matmul", compiled, device) + f": {M}x{K} @ {K}x{N} matches NumPy; autotuned: {best}")


if __name__ == "__main__":
    main()
