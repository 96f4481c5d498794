"""Matmul and fused-attention benchmark on NVIDIA GPUs (not a test), in TFLOP/s: tilec against
torch.matmul (cuBLAS) and Triton for fp16/bf16 squares and skinny (decode-like) shapes, fp8 e4m3
squares against torch._scaled_mm (cuBLAS) and Triton, and the fused attention kernel against torch's
scaled_dot_product_attention and Triton, all from one run.

    python -m bench.matmul [--quick] [--attention-only] [--json out.json]
                                                       (also part of python -m bench --device cuda)
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib

import torch

from bench.nvidia import bench, load_kernels

TILEC_CONFIGS = [  # (BLOCK_M, BLOCK_N, BLOCK_K, num_warps[, num_stages]): shapes the tensor cores take
    (64, 64, 32, 4),
    (128, 128, 32, 8),
    (128, 128, 64, 4),
    (128, 128, 64, 4, 4),  # cp.async three iterations ahead (sm_90a)
    (128, 128, 64, 8),
    (128, 256, 64, 8),
    (64, 128, 64, 4),  # decode-like skinny shapes: wgmma's smallest M is 64
    (64, 256, 64, 4),
]
TRITON_CONFIG = (128, 128, 64, 8, 3)  # Triton's tutorial choice for fp16 on Hopper-class GPUs
FP8_CONFIGS = [(128, 128, 128, 4), (128, 128, 128, 8), (128, 256, 128, 8), (64, 128, 128, 4)]
TRITON_FP8_CONFIG = (128, 256, 128, 8, 3)  # Triton's tutorial choice for fp8


def _matmul(module, a, b, c, block_m, block_n, block_k, num_warps, num_stages=3):
    M, K = a.shape
    N = b.shape[1]
    grid = (triton_cdiv(M, block_m) * triton_cdiv(N, block_n),)
    module.matmul_kernel[grid](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=8, num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip


def _matmul_bt(module, a, bt, c, block_m, block_n, block_k, num_warps, num_stages=3):
    M, K = a.shape
    N = bt.shape[0]
    grid = (triton_cdiv(M, block_m) * triton_cdiv(N, block_n),)
    module.matmul_bt_kernel[grid](
        a, bt, c, M, N, K, a.stride(0), bt.stride(0), c.stride(0),
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=8, num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip


def triton_cdiv(a, b):
    return -(-a // b)


def run(quick: bool = False, on_row=None, attention_only: bool = False) -> list[dict]:
    tk, tr = load_kernels()
    rows = []

    def record(row):
        rows.append(row)
        cells = " ".join(f"{k[:-7]}={v:7.1f}" for k, v in row.items() if k.endswith("_tflops") and v)
        print(f"{row['kernel']:<10} {row['size']:>18} {row['dtype']:>5}  {cells}", flush=True)
        if on_row is not None:
            on_row(row)

    if attention_only:
        _attention(tk, tr, [1024] if quick else [1024, 4096], record)
        return rows
    squares = [1024, 4096] if quick else [1024, 2048, 4096, 8192]
    shapes = [(s, s, s) for s in squares] + ([(16, 4096, 4096), (128, 4096, 4096)] if not quick else [])
    if not quick:
        shapes.insert(len(squares), (64, 4096, 4096))
    # fp32 inputs run on tf32 tensor cores (Triton's and tilec's default input_precision); cuBLAS is
    # allowed tf32 too, so all three do the same arithmetic.
    torch.backends.cuda.matmul.allow_tf32 = True
    cases = [(torch.float16, "fp16", shapes, False), (torch.bfloat16, "bf16", shapes, False)]
    cases.append((torch.float32, "fp32", [(4096, 4096, 4096)], False))
    # B column-major (a transposed view, as x @ W.T with W [N, K]): loads vectorized along K
    cases.append((torch.float16, "fp16 B col-major", [(4096, 4096, 4096)], True))
    for dtype, dname, dtype_shapes, b_column in cases:
        for M, N, K in dtype_shapes:
            a = torch.randn(M, K, device="cuda", dtype=dtype)
            b = (
                torch.randn(N, K, device="cuda", dtype=dtype).T
                if b_column
                else torch.randn(K, N, device="cuda", dtype=dtype)
            )
            c = torch.empty(M, N, device="cuda", dtype=dtype)
            ref = a @ b
            flops = 2 * M * N * K
            best, best_cfg = None, None
            for cfg in TILEC_CONFIGS:
                _matmul(tk, a, b, c, *cfg)
                torch.testing.assert_close(c.float(), ref.float(), atol=0.5, rtol=2e-2)
                ms = bench(lambda: _matmul(tk, a, b, c, *cfg))
                if best is None or ms < best:
                    best, best_cfg = ms, cfg
            times = {"tilec": best, "cublas": bench(lambda: torch.matmul(a, b, out=c))}
            _matmul(tr, a, b, c, *TRITON_CONFIG)
            times["triton"] = bench(lambda: _matmul(tr, a, b, c, *TRITON_CONFIG))
            record(
                {
                    "kernel": "matmul",
                    "size": f"{M}x{N}x{K}",
                    "dtype": dname,
                    "tilec_config": list(best_cfg),
                    **{f"{k}_tflops": flops / (t * 1e-3) / 1e12 for k, t in times.items()},
                }
            )

    # fp8 (e4m3) inputs with B given as Bt [N, K], fp16 output: cuBLAS through torch._scaled_mm
    for size in [4096] if quick else [2048, 4096, 8192]:
        M = N = K = size
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        bt = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        one = torch.ones((), device="cuda")
        ref = a.float() @ bt.float().T
        flops = 2 * M * N * K
        best, best_cfg = None, None
        scale = ref.abs().max().item()
        errors = {}
        for cfg in FP8_CONFIGS:
            _matmul_bt(tk, a, bt, c, *cfg)
            # Hopper's fp8 MMA accumulates in fewer bits than fp32 (Triton's default too): the
            # largest error is recorded next to Triton's, and only gross errors stop the run
            errors[cfg] = (c.float() - ref).abs().max().item()
            assert errors[cfg] < 1e-2 * scale, (cfg, errors[cfg], scale)
            ms = bench(lambda: _matmul_bt(tk, a, bt, c, *cfg))
            if best is None or ms < best:
                best, best_cfg = ms, cfg
        _matmul_bt(tr, a, bt, c, *TRITON_FP8_CONFIG)
        triton_error = (c.float() - ref).abs().max().item()
        times = {
            "tilec": best,
            "cublas": bench(lambda: torch._scaled_mm(a, bt.T, one, one, out_dtype=torch.float16)),
        }
        times["triton"] = bench(lambda: _matmul_bt(tr, a, bt, c, *TRITON_FP8_CONFIG))
        record(
            {
                "kernel": "matmul",
                "size": f"{M}x{N}x{K}",
                "dtype": "fp8e4nv",
                "tilec_config": list(best_cfg),
                "max_abs_error": {"tilec": errors[best_cfg], "triton": triton_error, "output_max": scale},
                **{f"{k}_tflops": flops / (t * 1e-3) / 1e12 for k, t in times.items()},
            }
        )

    _attention(tk, tr, [1024] if quick else [1024, 4096], record)
    return rows


def _attention(tk, tr, seqs, record) -> None:
    """The fused attention forward (bench/kernels.py), tilec and Triton with the same config, against
    torch's scaled_dot_product_attention."""
    for seq in seqs:
        heads, dim = 32, 64
        q, k, v = (torch.randn(heads, seq, dim, device="cuda", dtype=torch.float16) for _ in range(3))
        out = torch.empty_like(q)
        scale = 1 / math.sqrt(dim)
        grid = (triton_cdiv(seq, 64), heads)

        def tilec_attention():
            tk.attention_kernel[grid](
                q, k, v, out, seq, scale, HEAD_DIM=dim, BLOCK_M=64, BLOCK_N=64, num_warps=4
            )

        def triton_attention():
            tr.attention_kernel[grid](
                q, k, v, out, seq, scale, HEAD_DIM=dim, BLOCK_M=64, BLOCK_N=64, num_warps=4
            )

        ref = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None])[0]
        tilec_attention()
        torch.testing.assert_close(out, ref, atol=2e-2, rtol=2e-2)
        flops = 4 * heads * seq * seq * dim
        times = {
            "tilec": bench(tilec_attention),
            "triton": bench(triton_attention),
            "torch_sdpa": bench(
                lambda: torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None])
            ),
        }
        record(
            {
                "kernel": "attention",
                "size": f"{heads}x{seq}x{dim}",
                "dtype": "fp16",
                **{f"{k}_tflops": flops / (t * 1e-3) / 1e12 for k, t in times.items()},
            }
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--attention-only", action="store_true", help="only the fused attention rows")
    args = parser.parse_args()
    rows = run(args.quick, attention_only=args.attention_only)
    if args.json:
        import time

        meta = {
            "device": torch.cuda.get_device_name(),
            "date": time.strftime("%Y-%m-%d"),
            "quick": args.quick,
        }
        pathlib.Path(args.json).write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
