"""Pointer-arithmetic matmuls by tensor copies against the same kernels by cp.async (TILEC_NO_TMA=1)
and cuBLAS (not a test; NVIDIA sm_90a GPUs), fp16 M = N = K at 128x256x64 on 8 warps, 3 stages,
two rounds of triton.testing.do_bench medians, each variant checked against an fp32 product:
Triton's tutorial kernel (bench/kernels.py) with B row-major and column-major (`x @ W.T`), the
block-pointer kernel, and the persistent kernel (tutorial 09: one program per SM).

    python -m bench.pointer_tma [size]
"""

from __future__ import annotations

import importlib
import os
import sys

import torch
import triton.testing

from bench import kernels
from bench.matmul import _matmul, _matmul_persistent

CONFIG = (128, 256, 64, 8, 3)  # BM, BN, BK, warps, stages


def _variant(name: str, launch, env: dict, a, b, ref) -> None:
    """`launch(module, c)` runs the product into c with a fresh build of bench/kernels.py."""
    os.environ.pop("TILEC_NO_TMA", None)
    os.environ.update(env)  # read when the kernel compiles
    module = importlib.reload(kernels)  # fresh @jit objects: their in-memory caches kept old builds
    c = torch.empty(a.shape[0], b.shape[1], device="cuda", dtype=a.dtype)
    launch(module, c)
    torch.cuda.synchronize()
    error = (c.float() - ref).abs().max().item()
    ms = triton.testing.do_bench(lambda: launch(module, c), warmup=100, rep=500)
    flops = 2 * a.shape[0] * a.shape[1] * b.shape[1]
    print(f"{name:36s} err {error:8.3f}  {flops / ms / 1e9:7.1f} TFLOP/s", flush=True)


def main() -> None:
    os.environ["TILEC_CACHE_DIR"] = "off"
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    torch.manual_seed(0)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b_rows = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b_cols = torch.randn(size, size, device="cuda", dtype=torch.float16).T  # x @ W.T
    bm, bn, bk, warps, stages = CONFIG

    def plain(kernel):
        return lambda module, c, a, b: _matmul(module, a, b, c, bm, bn, bk, warps, stages, kernel=kernel)

    def persistent(module, c, a, b):
        _matmul_persistent(module, a, b, c, sms, bm, bn, bk, warps, stages)

    cases = [
        ("pointers", b_rows, plain("matmul_kernel")),
        ("pointers, B column-major", b_cols, plain("matmul_kernel")),
        ("block pointers", b_rows, plain("matmul_block_ptr_kernel")),
        ("persistent pointers", b_rows, persistent),
    ]
    for _ in range(2):
        for name, b, launch in cases:
            ref = a.float() @ b.float()
            for how, env in (("tensor copies", {}), ("cp.async", {"TILEC_NO_TMA": "1"})):
                _variant(f"{name}, {how}", lambda module, c, b=b, launch=launch: launch(module, c, a, b), env,
                         a, b, ref)  # fmt: skip
            ms = triton.testing.do_bench(lambda b=b: torch.matmul(a, b), warmup=100, rep=500)
            print(f"{name + ', cuBLAS':36s}               {2 * size**3 / ms / 1e9:7.1f}", flush=True)


if __name__ == "__main__":
    main()
