"""CPU benchmark (not a test): tilec's CPU target against NumPy, in GB/s of useful traffic.

python bench/cpu.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "py"))

from suite import add_kernel, layernorm_kernel, softmax_kernel  # noqa: E402

import tilec  # noqa: E402


def timeit(fn, repeat=5):
    fn()  # warm up (and compile)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def bench_add(n):
    x, y = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
    out = np.empty_like(x)
    block = 4096
    t_tilec = timeit(lambda: add_kernel[(tilec.cdiv(n, block),)](x, y, out, n, BLOCK=block))
    t_numpy = timeit(lambda: np.add(x, y, out=out))
    return 3 * n * 4, t_tilec, t_numpy


def bench_softmax(m, n):
    x = np.random.randn(m, n).astype(np.float32)
    out = np.empty_like(x)
    block = tilec.next_power_of_2(n)

    def numpy_softmax():
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    t_tilec = timeit(lambda: softmax_kernel[(m,)](out, x, n, n, n, BLOCK=block))
    t_numpy = timeit(numpy_softmax)
    return 2 * m * n * 4, t_tilec, t_numpy


def bench_layernorm(m, n):
    x = np.random.randn(m, n).astype(np.float32)
    w, b = np.random.randn(n).astype(np.float32), np.random.randn(n).astype(np.float32)
    out = np.empty_like(x)
    block = tilec.next_power_of_2(n)

    def numpy_layernorm():
        mean = x.mean(axis=1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-5) * w + b

    t_tilec = timeit(lambda: layernorm_kernel[(m,)](x, w, b, out, n, n, 1e-5, BLOCK=block))
    t_numpy = timeit(numpy_layernorm)
    return 2 * m * n * 4, t_tilec, t_numpy


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (CI smoke run)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    os.environ.pop("TILEC_INTERPRET", None)
    scale = 16 if args.quick else 1
    cases = [
        ("vector_add", f"{(1 << 24) // scale}", lambda: bench_add((1 << 24) // scale)),
        ("softmax", f"{4096 // scale}x1024", lambda: bench_softmax(4096 // scale, 1024)),
        ("layernorm", f"{4096 // scale}x1024", lambda: bench_layernorm(4096 // scale, 1024)),
    ]
    rows = []
    print(f"{'kernel':<12} {'size':>12} {'tilec GB/s':>11} {'numpy GB/s':>11} {'ratio':>6}")
    for name, size, run in cases:
        nbytes, t_tilec, t_numpy = run()
        row = {
            "kernel": name,
            "size": size,
            "tilec_gbps": nbytes / t_tilec / 1e9,
            "numpy_gbps": nbytes / t_numpy / 1e9,
        }
        rows.append(row)
        ratio = row["tilec_gbps"] / row["numpy_gbps"]
        print(f"{name:<12} {size:>12} {row['tilec_gbps']:>11.2f} {row['numpy_gbps']:>11.2f} {ratio:>6.2f}")
    if args.json:
        meta = {"machine": platform.processor() or platform.machine(), "cores": os.cpu_count()}
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
