"""Pointer-arithmetic matmul by tensor copies against the same kernel by cp.async (TILEC_NO_TMA=1),
the block-pointer kernel by tensor copies, and cuBLAS (not a test; NVIDIA sm_90a GPUs): Triton's
tutorial kernel (bench/kernels.py) at 128x256x64 on 8 warps, 3 stages, fp16 M = N = K, two rounds
of triton.testing.do_bench medians; each variant is checked against an fp32 product.

    python -m bench.pointer_tma [size]
"""

from __future__ import annotations

import importlib
import os
import sys

import torch
import triton.testing

from bench import kernels
from bench.matmul import _matmul

CONFIG = (128, 256, 64, 8, 3)  # BM, BN, BK, warps, stages


def _variant(name: str, kernel: str, env: dict, a, b, ref) -> None:
    os.environ.pop("TILEC_NO_TMA", None)
    os.environ.update(env)  # read when the kernel compiles
    module = importlib.reload(kernels)  # fresh @jit objects: their in-memory caches kept old builds
    c = torch.empty(a.shape[0], b.shape[1], device="cuda", dtype=a.dtype)

    def launch():
        _matmul(module, a, b, c, *CONFIG[:4], num_stages=CONFIG[4], kernel=kernel)

    launch()
    torch.cuda.synchronize()
    error = (c.float() - ref).abs().max().item()
    ms = triton.testing.do_bench(launch, warmup=100, rep=500)
    flops = 2 * a.shape[0] * a.shape[1] * b.shape[1]
    print(f"{name:28s} err {error:8.3f}  {flops / ms / 1e9:7.1f} TFLOP/s", flush=True)


def main() -> None:
    os.environ["TILEC_CACHE_DIR"] = "off"
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    torch.manual_seed(0)
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    ref = a.float() @ b.float()
    for _ in range(2):
        _variant("pointers, tensor copies", "matmul_kernel", {}, a, b, ref)
        _variant("pointers, cp.async", "matmul_kernel", {"TILEC_NO_TMA": "1"}, a, b, ref)
        _variant("block pointers, tensor copies", "matmul_block_ptr_kernel", {}, a, b, ref)
        ms = triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=100, rep=500)
        print(f"{'cublas':28s}               {2 * size**3 / ms / 1e9:7.1f}", flush=True)


if __name__ == "__main__":
    main()
