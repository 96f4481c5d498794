"""NVIDIA benchmark (not a test): tilec against Triton, torch eager and torch.compile in one run,
in GB/s of useful traffic, with the device-to-device copy bandwidth as the roofline.

    python bench/nvidia.py [--quick] [--no-compile] [--json out.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import sys
import tempfile
import time

import torch

HERE = pathlib.Path(__file__).resolve().parent


def load_kernels():
    """The same kernel source twice: through tilec and through Triton."""
    # appended, not inserted: a tilec already on the path (another checkout being measured) stays the one used
    if str(HERE.parent) not in sys.path:
        sys.path.append(str(HERE.parent))
    spec = importlib.util.spec_from_file_location("bench_kernels_tilec", HERE / "kernels.py")
    tilec_mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tilec_mod)
    source = (HERE / "kernels.py").read_text()
    source = source.replace("import tilec as backend", "import triton as backend")
    source = source.replace("import tilec.language as tl", "import triton.language as tl")
    path = pathlib.Path(tempfile.mkdtemp()) / "bench_kernels_triton.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("bench_kernels_triton", path)
    triton_mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(triton_mod)
    return tilec_mod, triton_mod


def bench(fn) -> float:
    """Milliseconds per call (median), as Triton measures."""
    import triton.testing

    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def num_warps_for(block: int) -> int:
    return 4 if block <= 1024 else 8 if block <= 4096 else 16


def run(quick: bool = False, no_compile: bool = False, on_row=None) -> tuple[list[dict], dict]:
    """Every measurement of this benchmark: (rows, meta). on_row(row) is called as each row is done."""
    tk, tr = load_kernels()
    rows = []
    dev = "cuda"

    def record(kind, size, dtype, nbytes, times):
        row = {"kernel": kind, "size": size, "dtype": dtype}
        for name, ms in times.items():
            row[name + "_gbps"] = None if ms is None else nbytes / (ms * 1e-3) / 1e9
        if row.get("tilec_gbps") and row.get("triton_gbps"):
            row["tilec_over_triton"] = row["tilec_gbps"] / row["triton_gbps"]
        rows.append(row)
        cells = " ".join(
            f"{k[:-5]}={v:8.1f}" for k, v in row.items() if k.endswith("_gbps") and v is not None
        )
        ratio = f" tilec/triton={row['tilec_over_triton']:.2f}" if "tilec_over_triton" in row else ""
        print(f"{kind:<16} {size:>12} {dtype:>5}  {cells}{ratio}", flush=True)
        if on_row is not None:
            on_row(row)

    # host overhead per launch of a tiny kernel (no synchronization between launches)
    a1, b1, o1 = (torch.randn(16, device=dev) for _ in range(3))

    def per_launch_us(fn, n=2000):
        for _ in range(50):
            fn()
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - t
        torch.cuda.synchronize()
        return elapsed / n * 1e6

    overhead = {
        "tilec": per_launch_us(lambda: tk.add_kernel[(1,)](a1, b1, o1, 16, BLOCK=16)),
        "triton": per_launch_us(lambda: tr.add_kernel[(1,)](a1, b1, o1, 16, BLOCK=16)),
        "torch": per_launch_us(lambda: torch.add(a1, b1, out=o1)),
    }
    launch = {"kernel": "launch_overhead_us", **{k + "_us": v for k, v in overhead.items()}}
    rows.append(launch)
    print("launch overhead (us): " + " ".join(f"{k}={v:.1f}" for k, v in overhead.items()), flush=True)

    # copy roofline
    n = 1 << 26
    x = torch.randn(n, device=dev)
    y = torch.empty_like(x)
    record("copy", str(n), "fp32", 2 * n * 4, {"torch": bench(lambda: y.copy_(x))})

    # vector add
    for n in [1 << 20, 1 << 24, 1 << 26] if not quick else [1 << 24]:
        a, b = torch.randn(n, device=dev), torch.randn(n, device=dev)
        out = torch.empty_like(a)
        grid = ((n + 1023) // 1024,)
        tk.add_kernel[grid](a, b, out, n, BLOCK=1024)
        torch.testing.assert_close(out, a + b)
        times = {
            "tilec": bench(lambda: tk.add_kernel[grid](a, b, out, n, BLOCK=1024)),
            "triton": bench(lambda: tr.add_kernel[grid](a, b, out, n, BLOCK=1024)),
            "torch": bench(lambda: torch.add(a, b, out=out)),
        }
        record("vector_add", str(n), "fp32", 3 * n * 4, times)

    compiled_softmax = (
        None if no_compile else torch.compile(lambda t: torch.softmax(t, dim=-1), dynamic=False)
    )
    shapes = [(4096, 1024), (4096, 4096), (8192, 8192), (4096, 16384)]
    for dtype, dname in ((torch.float32, "fp32"), (torch.bfloat16, "bf16")):
        for m, n in shapes if not quick else shapes[:2]:
            x = torch.randn(m, n, device=dev, dtype=dtype)
            out = torch.empty_like(x)
            block = 1 << (n - 1).bit_length()
            nw = num_warps_for(block)
            tk.softmax_kernel[(m,)](out, x, n, n, BLOCK=block, num_warps=nw)
            torch.testing.assert_close(
                out.float(), torch.softmax(x.float(), -1), atol=2e-3 if dname == "bf16" else 1e-5, rtol=1e-2
            )
            times = {
                "tilec": bench(lambda: tk.softmax_kernel[(m,)](out, x, n, n, BLOCK=block, num_warps=nw)),
                "triton": bench(lambda: tr.softmax_kernel[(m,)](out, x, n, n, BLOCK=block, num_warps=nw)),
                "torch": bench(lambda: torch.softmax(x, dim=-1)),
            }
            if compiled_softmax is not None:
                times["torch_compile"] = bench(lambda: compiled_softmax(x))
            if n <= 2048:  # narrow rows: several rows per program
                rows_per = 4
                grid = (m // rows_per,)
                tk.softmax_rows_kernel[grid](out, x, n, m, n, ROWS=rows_per, BLOCK=block, num_warps=4)
                torch.testing.assert_close(
                    out.float(),
                    torch.softmax(x.float(), -1),
                    atol=2e-3 if dname == "bf16" else 1e-5,
                    rtol=1e-2,
                )
                times["tilec_rows"] = bench(
                    lambda: tk.softmax_rows_kernel[grid](
                        out, x, n, m, n, ROWS=rows_per, BLOCK=block, num_warps=4
                    )
                )
                times["triton_rows"] = bench(
                    lambda: tr.softmax_rows_kernel[grid](
                        out, x, n, m, n, ROWS=rows_per, BLOCK=block, num_warps=4
                    )
                )
            record("softmax", f"{m}x{n}", dname, 2 * m * n * x.element_size(), times)

    for gelu in (False, True):
        for dtype, dname in ((torch.float32, "fp32"), (torch.bfloat16, "bf16")):
            for m, n in [(4096, 1024), (4096, 4096), (8192, 8192)] if not quick else [(4096, 1024)]:
                x = torch.randn(m, n, device=dev, dtype=dtype)
                w, b = torch.randn(n, device=dev, dtype=dtype), torch.randn(n, device=dev, dtype=dtype)
                out = torch.empty_like(x)
                block = 1 << (n - 1).bit_length()
                nw = num_warps_for(block)

                def ref():
                    y = torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)
                    return torch.nn.functional.gelu(y) if gelu else y

                tk.layernorm_kernel[(m,)](x, w, b, out, n, n, 1e-5, BLOCK=block, GELU=gelu, num_warps=nw)
                torch.testing.assert_close(
                    out.float(), ref().float(), atol=5e-2 if dname == "bf16" else 2e-4, rtol=1e-2
                )
                times = {
                    "tilec": bench(
                        lambda: tk.layernorm_kernel[(m,)](
                            x, w, b, out, n, n, 1e-5, BLOCK=block, GELU=gelu, num_warps=nw
                        )
                    ),
                    "triton": bench(
                        lambda: tr.layernorm_kernel[(m,)](
                            x, w, b, out, n, n, 1e-5, BLOCK=block, GELU=gelu, num_warps=nw
                        )
                    ),
                    "torch": bench(ref),
                }
                record(
                    "layernorm_gelu" if gelu else "layernorm",
                    f"{m}x{n}",
                    dname,
                    2 * m * n * x.element_size(),
                    times,
                )

    meta = {
        "device": torch.cuda.get_device_name(),
        "date": time.strftime("%Y-%m-%d"),
        "commit": os.environ.get("TILEC_COMMIT", ""),
        "torch": torch.__version__,
    }
    import triton

    meta["triton"] = triton.__version__
    return rows, meta


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("--json")
    args = parser.parse_args()
    rows, meta = run(args.quick, args.no_compile)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
