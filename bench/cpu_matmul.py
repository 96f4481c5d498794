"""CPU matmul benchmark (not a test): bench/kernels.py's matmul_kernel on tilec's CPU target against
NumPy's matmul (BLAS), in GFLOP/s, fp32 and fp16 inputs (fp32 accumulation).

python -m bench.cpu_matmul [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform

import numpy as np

import tilec
from bench.cpu import timeit
from bench.kernels import matmul_kernel

# (BLOCK_M, BLOCK_N, BLOCK_K) tried per row, the best reported, as an autotuner would pick (the
# row's "block" says which won)
BLOCKS = [(64, 64, 32), (64, 64, 64), (128, 128, 32), (128, 128, 64)]


def measure(size: int, dtype, blocks=BLOCKS) -> dict:
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((size, size)).astype(dtype) for _ in range(2))
    c = np.empty((size, size), dtype)
    reference = a.astype(np.float32) @ b.astype(np.float32)
    flops = 2 * size**3
    best = None
    for bm, bn, bk in blocks:
        grid = (tilec.cdiv(size, bm) * tilec.cdiv(size, bn),)

        def run():
            matmul_kernel[grid](a, b, c, size, size, size, size, 1, size, 1, size, 1,
                                BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8)  # fmt: skip

        c.fill(np.nan)
        run()
        np.testing.assert_allclose(c.astype(np.float32), reference, rtol=2e-2, atol=0.5)
        gflops = flops / timeit(run, repeat=10) / 1e9
        if best is None or gflops > best[0]:
            best = (gflops, [bm, bn, bk])
    return {
        "kernel": "matmul",
        "size": f"{size}^3",
        "dtype": np.dtype(dtype).name,
        "block": best[1],
        "tilec_gflops": best[0],
        "numpy_gflops": flops / timeit(lambda: a @ b, repeat=5) / 1e9,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    os.environ.pop("TILEC_INTERPRET", None)
    os.environ["TILEC_TARGET"] = "cpu"
    rows = []
    for dtype in (np.float32, np.float16):
        for size in (256, 512, 1024):
            row = measure(size, dtype)
            rows.append(row)
            print(f"{row['kernel']} {row['size']:>7} {row['dtype']:>8}  tilec {row['tilec_gflops']:7.1f} "
                  f"({'x'.join(map(str, row['block']))})  numpy {row['numpy_gflops']:7.1f} GFLOP/s", flush=True)  # fmt: skip
    if args.json:
        meta = {
            "machine": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "blocks": BLOCKS,
        }
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
