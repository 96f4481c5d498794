"""CPU benchmark (not a test): tilec's CPU target against NumPy, in GB/s of useful traffic.

python bench/cpu.py [--quick] [--json out.json]     (or: python -m bench --device cpu)
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


def cases(quick: bool):
    """(kernel, size, dtype, run) for each measurement; run() returns (bytes moved, tilec s, NumPy s)."""
    adds = [1 << 14, 1 << 16, 1 << 18] if quick else [1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24]
    rows = [64, 256] if quick else [256, 1024, 4096]
    out = [("vector_add", str(n), "fp32", lambda n=n: bench_add(n)) for n in adds]
    out += [("softmax", f"{m}x1024", "fp32", lambda m=m: bench_softmax(m, 1024)) for m in rows]
    out += [("layernorm", f"{m}x1024", "fp32", lambda m=m: bench_layernorm(m, 1024)) for m in rows]
    return out


def run(quick: bool, on_row=None) -> tuple[list[dict], dict]:
    os.environ.pop("TILEC_INTERPRET", None)
    rows = []
    for name, size, dtype, measure in cases(quick):
        nbytes, t_tilec, t_numpy = measure()
        row = {
            "kernel": name,
            "size": size,
            "dtype": dtype,
            "tilec_gbps": nbytes / t_tilec / 1e9,
            "numpy_gbps": nbytes / t_numpy / 1e9,
        }
        row["tilec_over_numpy"] = row["tilec_gbps"] / row["numpy_gbps"]
        rows.append(row)
        if on_row is not None:
            on_row(row)
    meta = {"machine": platform.processor() or platform.machine(), "cores": os.cpu_count()}
    return rows, meta


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (CI smoke run)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    print(f"{'kernel':<12} {'size':>12} {'tilec GB/s':>11} {'numpy GB/s':>11} {'ratio':>6}")

    def show(row):
        print(
            f"{row['kernel']:<12} {row['size']:>12} {row['tilec_gbps']:>11.2f} {row['numpy_gbps']:>11.2f} "
            f"{row['tilec_over_numpy']:>6.2f}",
            flush=True,
        )

    rows, meta = run(args.quick, show)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
