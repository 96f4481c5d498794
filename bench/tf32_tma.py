"""fp32 (tf32) matmuls with a row-major B by tensor copies against the same kernels by cp.async
(TILEC_NO_TMA=1) and cuBLAS (not a test; NVIDIA sm_90a GPUs): the tutorial kernel through pointers
and through tensor descriptors at the bench's BK = 32 configs, two rounds of triton.testing.do_bench
medians, each result's largest error against a float64 product printed beside it.

    python -m bench.tf32_tma [size]
"""

from __future__ import annotations

import importlib
import os
import sys

import torch
import triton.testing

from bench import kernels
from bench.matmul import _matmul, _matmul_descriptors

CONFIGS = [(256, 128, 32, 8, 4), (128, 256, 32, 8, 3), (256, 128, 32, 8, 3)]  # BM, BN, BK, warps, stages


def main() -> None:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    torch.backends.cuda.matmul.allow_tf32 = True  # cuBLAS's tf32 as the reference speed
    torch.manual_seed(0)
    a = torch.randn(size, size, device="cuda", dtype=torch.float32)
    b = torch.randn(size, size, device="cuda", dtype=torch.float32)
    ref = a.double() @ b.double()
    flops = 2 * size**3
    for rnd in range(2):
        for cfg in CONFIGS:
            for name, launch in (("pointers", _matmul), ("descriptors", _matmul_descriptors)):
                for how, env in (("tensor copies", {}), ("cp.async", {"TILEC_NO_TMA": "1"})):
                    os.environ.pop("TILEC_NO_TMA", None)
                    os.environ.update(env)  # read when the kernel compiles
                    module = importlib.reload(kernels)  # fresh @jit objects for the new setting
                    c = torch.empty(size, size, device="cuda", dtype=torch.float32)
                    launch(module, a, b, c, *cfg)
                    torch.cuda.synchronize()
                    error = (c.double() - ref).abs().max().item()
                    ms = triton.testing.do_bench(lambda: launch(module, a, b, c, *cfg), warmup=100, rep=500)
                    print(f"r{rnd} {cfg!s:22s} {name:12s} {how:14s} err {error:6.3f} {flops / ms / 1e9:7.1f}")
        ms = triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=100, rep=500)
        print(f"r{rnd} cuBLAS (tf32) {flops / ms / 1e9:7.1f}", flush=True)


if __name__ == "__main__":
    main()
