"""Matmul and fused-attention benchmark on NVIDIA GPUs (not a test), in TFLOP/s: tilec against
torch.matmul (cuBLAS) and Triton for fp16/bf16 squares and skinny (decode-like) shapes (also as a
persistent kernel, through tensor descriptors, and both), fp8 e4m3
squares against torch._scaled_mm (cuBLAS) and Triton, and the fused attention kernel against torch's
scaled_dot_product_attention and Triton, all from one run. tilec and Triton compile the same kernel
source and each reports its best over the same list of tile configs; then each row's contenders
are timed again in interleaved rounds (ROUNDS), and the medians are reported.

    python -m bench.matmul [--quick] [--winners] [--attention-only] [--json out.json]

--winners searches only WINNERS (the same short lists for both compilers): the configs that won
most fp16/bf16/fp8/attention rows of the full search, for the table in a few minutes of device time.
                                                       (also part of python -m bench --device cuda)
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import pathlib
import time

import torch

from bench.nvidia import bench, load_kernels

# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages): shapes the tensor cores take. tilec and Triton
# both run every config and report their best, so neither is measured at the other's favourite.
CONFIGS = [
    (64, 64, 32, 4, 3),
    (128, 128, 32, 8, 3),
    (128, 128, 64, 4, 3),
    (128, 128, 64, 4, 4),
    (128, 128, 64, 8, 3),
    (128, 256, 64, 8, 3),
    (64, 128, 64, 4, 3),  # decode-like skinny shapes: wgmma's smallest M is 64
    (64, 256, 64, 4, 3),
    (128, 64, 64, 4, 4),
    *[(64, 64, 128, 4, s) for s in (4, 6)],  # skinny: more programs, deep rings of B
]
# Skinny rows (M <= 128) also search these with --winners: at M = 16..128 on an H200 64x64x128 with
# 6 stages was both compilers' best, 0.96-1.0 of cuBLAS, where the square winners reach 0.6-0.7.
SKINNY = [(64, 64, 128, 4, 6), (64, 64, 128, 4, 4), (64, 128, 64, 4, 6)]
# fp32 (tf32: 4-byte values, 32 bytes of K per instruction) wants BK = 32 for rings that fit; the
# same list with and without --winners
FP32_CONFIGS = [
    (128, 256, 32, 8, 3),
    (256, 128, 32, 8, 3),
    (256, 128, 32, 8, 4),
    (128, 128, 32, 8, 3),
    (128, 128, 32, 4, 3),
    (128, 64, 32, 4, 4),
]
FP8_CONFIGS = [(128, 128, 128, 4, 3), (128, 128, 128, 8, 3), (128, 256, 128, 8, 3), (64, 128, 128, 4, 3)]
ATTENTION_CONFIGS = [
    (64, 64, 4, 3),
    (128, 64, 4, 3),
    (128, 64, 8, 3),
    (128, 128, 8, 3),
]  # BM, BN, warps, stages

# Descriptor rows also try 4 stages at 128x256: it wins some descriptor rows for tilec on an H200.
DESCRIPTOR_EXTRA = [(128, 256, 64, 8, 4)]

# For --winners: the configs that win most rows of the full search on an H200 (all but 4 of the 21
# rows for tilec or Triton); fp32 rows search FP32_CONFIGS either way.
WINNERS = {
    "matmul": [(128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 128, 64, 4, 3), (128, 64, 64, 4, 4)],
    "fp8": [(128, 256, 128, 8, 3), (128, 128, 128, 8, 3)],
    "attention": [(128, 64, 8, 3), (128, 64, 4, 3)],
}


def _best(launch, configs, check) -> tuple:
    """(milliseconds, config) of the fastest config: each is run once and checked by `check(cfg)`
    first; a config the compiler cannot fit (shared memory, registers) is skipped."""
    best = (None, None)
    for cfg in configs:
        try:
            launch(cfg)
        except Exception as e:  # noqa: BLE001 - both compilers' out-of-resources errors
            if "resource" in str(e).lower() or "shared memory" in str(e).lower():
                continue
            raise
        check(cfg)
        ms = bench(lambda: launch(cfg))
        if best[0] is None or ms < best[0]:
            best = (ms, cfg)
    return best


# The three contenders of a row are timed again after the config search, in ROUNDS interleaved rounds
# (tilec, the vendor library, Triton, then again): an H200's clocks drift with its temperature over
# a row's seconds, and timing each contender once, one after the other, moved ratios by up to 5%
# between runs of the same code.
ROUNDS = 5


def _final_times(launches: dict) -> tuple[dict, dict]:
    """({name: median ms}, {name: [min, max] ms}) over ROUNDS interleaved rounds of `launches`."""
    samples = {name: [] for name in launches}
    for _ in range(ROUNDS):
        for name, fn in launches.items():
            samples[name].append(bench(fn))
    medians = {name: sorted(s)[len(s) // 2] for name, s in samples.items()}
    spreads = {name: [min(s), max(s)] for name, s in samples.items()}
    return medians, spreads


def _matmul(module, a, b, c, block_m, block_n, block_k, num_warps, num_stages=3, kernel="matmul_kernel"):
    M, K = a.shape
    N = b.shape[1]
    grid = (triton_cdiv(M, block_m) * triton_cdiv(N, block_n),)
    getattr(module, kernel)[grid](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=8, num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip


# the same product through block pointers (matmul_block_ptr_kernel takes the same arguments)
_matmul_block_ptrs = functools.partial(_matmul, kernel="matmul_block_ptr_kernel")


def _matmul_bt(module, a, bt, c, block_m, block_n, block_k, num_warps, num_stages=3):
    M, K = a.shape
    N = bt.shape[0]
    grid = (triton_cdiv(M, block_m) * triton_cdiv(N, block_n),)
    module.matmul_bt_kernel[grid](
        a, bt, c, M, N, K, a.stride(0), bt.stride(0), c.stride(0),
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=8, num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip


def _matmul_persistent(module, a, b, c, sms, block_m, block_n, block_k, num_warps, num_stages=3):
    M, K = a.shape
    N = b.shape[1]
    module.matmul_persistent_kernel[(min(sms, triton_cdiv(M, block_m) * triton_cdiv(N, block_n)),)](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=8, NUM_SMS=sms,
        num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip


def _descriptor_class(module):
    """Each compiler's host TensorDescriptor."""
    if module.__name__.endswith("triton"):
        from triton.tools.tensor_descriptor import TensorDescriptor
    else:
        from tilec import TensorDescriptor
    return TensorDescriptor


def _matmul_descriptors(module, a, b, c, block_m, block_n, block_k, num_warps, num_stages=3):
    """C = A @ B with each matrix passed as a tensor descriptor (each compiler's host class)."""
    TensorDescriptor = _descriptor_class(module)
    M, K = a.shape
    N = b.shape[1]
    descs = (
        TensorDescriptor.from_tensor(a, [block_m, block_k]),
        TensorDescriptor.from_tensor(b, [block_k, block_n]),
        TensorDescriptor.from_tensor(c, [block_m, block_n]),
    )
    grid = (triton_cdiv(M, block_m) * triton_cdiv(N, block_n),)
    module.matmul_descriptor_kernel[grid](
        *descs, M, N, K, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=8,
        num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip


def _matmul_descriptors_persistent(module, a, b, c, sms, block_m, block_n, block_k, num_warps, num_stages=3):
    """_matmul_descriptors through the persistent kernel: one program per SM (at most one per tile)."""
    TensorDescriptor = _descriptor_class(module)
    M, K = a.shape
    N = b.shape[1]
    descs = (
        TensorDescriptor.from_tensor(a, [block_m, block_k]),
        TensorDescriptor.from_tensor(b, [block_k, block_n]),
        TensorDescriptor.from_tensor(c, [block_m, block_n]),
    )
    grid = (min(sms, triton_cdiv(M, block_m) * triton_cdiv(N, block_n)),)
    module.matmul_descriptor_persistent_kernel[grid](
        *descs, M, N, K, BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=8, NUM_SMS=sms,
        num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip


def _squares(tk, tr, record, dname, dtype, sizes, launch, configs) -> None:
    """A row per size: C = A @ B of random square matrices, `launch(module, a, b, c, *cfg)` at each
    compiler's best of `configs`, against torch.matmul (cuBLAS)."""
    for size in sizes:
        a, b = (torch.randn(size, size, device="cuda", dtype=dtype) for _ in range(2))
        _product_row(tk, tr, record, dname, a, b, launch, configs)


def _product_row(tk, tr, record, dname, a, b, launch, configs) -> None:
    """One row: C = A @ B through `launch(module, a, b, c, *cfg)`, tilec and Triton each at its best
    of `configs` (checked against cuBLAS's product), and torch.matmul, in TFLOP/s."""
    (M, K), N = a.shape, b.shape[1]
    c = torch.empty(M, N, device="cuda", dtype=a.dtype)
    ref = a @ b

    def check(cfg):
        torch.testing.assert_close(c.float(), ref.float(), atol=0.5, rtol=2e-2)

    _, cfg_tilec = _best(lambda cfg: launch(tk, a, b, c, *cfg), configs, check)
    _, cfg_triton = _best(lambda cfg: launch(tr, a, b, c, *cfg), configs, check)
    times, spreads = _final_times(
        {
            "tilec": lambda: launch(tk, a, b, c, *cfg_tilec),
            "cublas": lambda: torch.matmul(a, b, out=c),
            "triton": lambda: launch(tr, a, b, c, *cfg_triton),
        }
    )
    record(
        {
            "kernel": "matmul",
            "size": f"{M}x{N}x{K}",
            "dtype": dname,
            "tilec_config": list(cfg_tilec),
            "triton_config": list(cfg_triton),
            **{f"{k}_tflops": 2 * M * N * K / (t * 1e-3) / 1e12 for k, t in times.items()},
            "spread_ms": spreads,
        }
    )


def triton_cdiv(a, b):
    return -(-a // b)


def run(quick: bool = False, on_row=None, attention_only: bool = False, winners: bool = False) -> list[dict]:
    tk, tr = load_kernels()
    configs = WINNERS["matmul"] if winners else CONFIGS
    fp8_configs = WINNERS["fp8"] if winners else FP8_CONFIGS
    attention_configs = WINNERS["attention"] if winners else ATTENTION_CONFIGS
    rows = []

    def record(row):
        rows.append(row)
        cells = " ".join(f"{k[:-7]}={v:7.1f}" for k, v in row.items() if k.endswith("_tflops") and v)
        print(f"{row['kernel']:<10} {row['size']:>18} {row['dtype']:>5}  {cells}", flush=True)
        if on_row is not None:
            on_row(row)

    if attention_only:
        for descriptors in (False, True):
            _attention(tk, tr, [1024] if quick else [1024, 4096], record, attention_configs, descriptors)
        return rows
    squares = [1024, 4096] if quick else [1024, 2048, 4096, 8192]
    shapes = [(s, s, s) for s in squares] + ([(16, 4096, 4096), (128, 4096, 4096)] if not quick else [])
    if not quick:
        shapes.insert(len(squares), (64, 4096, 4096))
    # fp32 inputs run on tf32 tensor cores (Triton's and tilec's default input_precision); cuBLAS is
    # allowed tf32 too, so all three do the same arithmetic.
    torch.backends.cuda.matmul.allow_tf32 = True
    # (dtype, name, shapes, A column-major, B column-major)
    cases = [(torch.float16, "fp16", shapes, False, False), (torch.bfloat16, "bf16", shapes, False, False)]
    cases.append((torch.float32, "fp32", [(4096, 4096, 4096)], False, False))
    # B column-major (a transposed view, as x @ W.T with W [N, K]): loads vectorized along K
    cases.append((torch.float16, "fp16 B col-major", [(4096, 4096, 4096)], False, True))
    cases.append((torch.float32, "fp32 B col-major", [(4096, 4096, 4096)], False, True))
    # A column-major (x.T @ dy, a weight gradient): loads vectorized along M
    cases.append((torch.float16, "fp16 A col-major", [(4096, 4096, 4096)], True, False))
    cases.append((torch.bfloat16, "bf16 A col-major", [(4096, 4096, 4096)], True, False))
    for dtype, dname, dtype_shapes, a_column, b_column in cases:
        for M, N, K in dtype_shapes:
            case_configs = FP32_CONFIGS if dtype == torch.float32 else configs
            if winners and M <= 128 and dtype != torch.float32:
                case_configs = case_configs + SKINNY
            a = (
                torch.randn(K, M, device="cuda", dtype=dtype).T
                if a_column
                else torch.randn(M, K, device="cuda", dtype=dtype)
            )
            b = (
                torch.randn(N, K, device="cuda", dtype=dtype).T
                if b_column
                else torch.randn(K, N, device="cuda", dtype=dtype)
            )
            _product_row(tk, tr, record, dname, a, b, _matmul, case_configs)

    # Persistent kernels (Triton's tutorial 09): one program per SM walking the tiles; the same
    # products through tensor descriptors (Triton's TensorDescriptor for Triton: on the H200 both
    # compilers copy the tiles with TMA), and both at once
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    sizes = [4096] if quick else [4096, 8192]
    descriptor_configs = configs + DESCRIPTOR_EXTRA

    def persistent(module, a, b, c, *cfg):
        _matmul_persistent(module, a, b, c, sms, *cfg)

    def descriptors_persistent(module, a, b, c, *cfg):
        _matmul_descriptors_persistent(module, a, b, c, sms, *cfg)

    _squares(tk, tr, record, "fp16 persistent", torch.float16, sizes, persistent, configs)
    for dtype, dname in ((torch.float16, "fp16 block pointers"), (torch.bfloat16, "bf16 block pointers")):
        _squares(tk, tr, record, dname, dtype, sizes, _matmul_block_ptrs, descriptor_configs)
    for dtype, dname in ((torch.float16, "fp16 descriptors"), (torch.bfloat16, "bf16 descriptors")):
        _squares(tk, tr, record, dname, dtype, sizes, _matmul_descriptors, descriptor_configs)
    _squares(
        tk, tr, record, "fp16 descriptors persistent", torch.float16, sizes, descriptors_persistent,
        descriptor_configs,
    )  # fmt: skip

    # fp8 (e4m3) inputs with B given as Bt [N, K], fp16 output: cuBLAS through torch._scaled_mm
    for size in [4096] if quick else [2048, 4096, 8192]:
        M = N = K = size
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        bt = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        one = torch.ones((), device="cuda")
        ref = a.float() @ bt.float().T
        flops = 2 * M * N * K
        scale = ref.abs().max().item()
        errors = {}

        def check(cfg, c=c, errors=errors, ref=ref, scale=scale):
            # Hopper's fp8 MMA accumulates in fewer bits than fp32 (Triton's default too): the
            # largest errors are recorded, and only gross ones stop the run
            errors[cfg] = (c.float() - ref).abs().max().item()
            assert errors[cfg] < 1e-2 * scale, (cfg, errors[cfg], scale)

        _, cfg_tilec = _best(lambda cfg: _matmul_bt(tk, a, bt, c, *cfg), fp8_configs, check)
        tilec_error = errors[cfg_tilec]
        _, cfg_triton = _best(lambda cfg: _matmul_bt(tr, a, bt, c, *cfg), fp8_configs, check)
        times, spreads = _final_times(
            {
                "tilec": lambda: _matmul_bt(tk, a, bt, c, *cfg_tilec),
                "cublas": lambda: torch._scaled_mm(a, bt.T, one, one, out_dtype=torch.float16),
                "triton": lambda: _matmul_bt(tr, a, bt, c, *cfg_triton),
            }
        )
        record(
            {
                "kernel": "matmul",
                "size": f"{M}x{N}x{K}",
                "dtype": "fp8e4nv",
                "tilec_config": list(cfg_tilec),
                "triton_config": list(cfg_triton),
                "max_abs_error": {"tilec": tilec_error, "triton": errors[cfg_triton], "output_max": scale},
                **{f"{k}_tflops": flops / (t * 1e-3) / 1e12 for k, t in times.items()},
                "spread_ms": spreads,
            }
        )

    _attention(tk, tr, [1024] if quick else [1024, 4096], record, attention_configs)
    _attention(tk, tr, [1024] if quick else [1024, 4096], record, attention_configs, descriptors=True)
    return rows


def _attention(tk, tr, seqs, record, configs=ATTENTION_CONFIGS, descriptors=False) -> None:
    """The fused attention forward (bench/kernels.py), tilec and Triton each at its best of
    `configs`, against torch's scaled_dot_product_attention; `descriptors`: Q, K and V passed as
    tensor descriptors (attention_descriptor_kernel; on the H200 K and V then go by TMA)."""
    for seq in seqs:
        heads, dim = 32, 64
        q, k, v = (torch.randn(heads, seq, dim, device="cuda", dtype=torch.float16) for _ in range(3))
        out = torch.empty_like(q)
        scale = 1 / math.sqrt(dim)
        ref = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None])[0]

        def launch(module, cfg, q=q, k=k, v=v, out=out, seq=seq, scale=scale):
            bm, bn, warps, stages = cfg
            kernel, inputs = module.attention_kernel, (q, k, v)
            if descriptors:
                kernel = module.attention_descriptor_kernel
                cls = _descriptor_class(module)
                inputs = [
                    cls.from_tensor(x.view(heads * seq, dim), [bm if x is q else bn, dim]) for x in (q, k, v)
                ]
            kernel[(triton_cdiv(seq, bm), heads)](
                *inputs,
                out,
                seq,
                scale,
                HEAD_DIM=dim,
                BLOCK_M=bm,
                BLOCK_N=bn,
                num_warps=warps,
                num_stages=stages,
            )

        def check(cfg, out=out, ref=ref):
            torch.testing.assert_close(out, ref, atol=2e-2, rtol=2e-2)

        flops = 4 * heads * seq * seq * dim
        _, cfg_tilec = _best(lambda cfg: launch(tk, cfg), configs, check)
        _, cfg_triton = _best(lambda cfg: launch(tr, cfg), configs, check)
        times, spreads = _final_times(
            {
                "tilec": lambda: launch(tk, cfg_tilec),
                "triton": lambda: launch(tr, cfg_triton),
                "torch_sdpa": lambda: torch.nn.functional.scaled_dot_product_attention(
                    q[None], k[None], v[None]
                ),
            }
        )
        record(
            {
                "kernel": "attention",
                "size": f"{heads}x{seq}x{dim}",
                "dtype": "fp16 descriptors" if descriptors else "fp16",
                "tilec_config": list(cfg_tilec),
                "triton_config": list(cfg_triton),
                **{f"{k}_tflops": flops / (t * 1e-3) / 1e12 for k, t in times.items()},
                "spread_ms": spreads,
            }
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--attention-only", action="store_true", help="only the fused attention rows")
    parser.add_argument("--winners", action="store_true", help="search only WINNERS' configs")
    args = parser.parse_args()
    meta = {
        "device": torch.cuda.get_device_name(),
        "date": time.strftime("%Y-%m-%d"),
        "quick": args.quick,
        "winners": args.winners,
    }
    done = []

    def save(row):  # after every row, so that an interrupted run keeps what it measured
        done.append(row)
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps({"meta": meta, "rows": done}, indent=1))

    run(args.quick, on_row=save, attention_only=args.attention_only, winners=args.winners)


if __name__ == "__main__":
    main()
