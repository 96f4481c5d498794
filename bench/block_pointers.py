"""Block-pointer matmul rows on NVIDIA GPUs (not a test): tilec against torch.matmul (cuBLAS) and
Triton for fp16/bf16 4096^3 and 8192^3 through block pointers, with the pointer-arithmetic and
tensor-descriptor rows of the same products as references, in one run (bench.matmul's rows:
WINNERS' matmul configs plus DESCRIPTOR_EXTRA searched for both compilers, then interleaved
medians). TILEC_NO_TMA=1 measures tilec's cp.async path instead of tensor copies.

    python -m bench.block_pointers out.json [bp,desc,ptr]
"""

from __future__ import annotations

import json
import os
import sys

import torch

from bench import matmul as bm
from bench.nvidia import load_kernels


def main() -> None:
    out = sys.argv[1]
    which = sys.argv[2].split(",") if len(sys.argv) > 2 else ["bp", "desc", "ptr"]
    tk, tr = load_kernels()
    rows = []

    def record(row):
        row["no_tma"] = os.environ.get("TILEC_NO_TMA", "")
        rows.append(row)
        print(
            f"{row['dtype']:22s} {row['size']:16s} tilec {row['tilec_tflops']:6.1f}  "
            f"cublas {row['cublas_tflops']:6.1f}  triton {row['triton_tflops']:6.1f}  "
            f"/cublas {row['tilec_tflops'] / row['cublas_tflops']:.2f}  "
            f"/triton {row['tilec_tflops'] / row['triton_tflops']:.2f}  cfg {row['tilec_config']}",
            flush=True,
        )
        with open(out, "w") as f:  # after every row: an interrupted run keeps what it measured
            json.dump(rows, f, indent=1)

    configs = bm.WINNERS["matmul"] + bm.DESCRIPTOR_EXTRA
    sizes = [4096, 8192]
    for dtype, name in ((torch.float16, "fp16"), (torch.bfloat16, "bf16")):
        if "bp" in which:
            bm._squares(
                tk, tr, record, name + " block pointers", dtype, sizes, bm._matmul_block_ptrs, configs
            )
        if "desc" in which:
            bm._squares(tk, tr, record, name + " descriptors", dtype, sizes, bm._matmul_descriptors, configs)
        if "ptr" in which:
            bm._squares(tk, tr, record, name, dtype, sizes, bm._matmul, configs)


if __name__ == "__main__":
    main()
