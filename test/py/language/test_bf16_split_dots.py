"""tl.dot of fp32 operands with input_precision "bf16x3" / "bf16x6" (Triton's; they were refused): the
operands split into bfloat16 parts and three / six bf16 products summed in fp32, on every target
(bf16 tensor cores on GPUs)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def split_dot(
    a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, PRECISION: tl.constexpr
):
    a = tl.load(a_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    acc = tl.full((M, N), 0.5, tl.float32)
    c = tl.dot(a, b, acc=acc, input_precision=PRECISION)
    tl.store(c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


@tilec.jit
def batched_split_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    i = tl.arange(0, 2)[:, None, None]
    a = tl.load(a_ptr + i * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :])
    b = tl.load(b_ptr + i * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    c = tl.dot(a, b, input_precision="bf16x6")
    tl.store(c_ptr + i * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :], c)


def _operands(m=32, n=32, k=64, batch=None):
    rng = np.random.default_rng(4)
    shape_a, shape_b = ((batch, m, k), (batch, k, n)) if batch else ((m, k), (k, n))
    return rng.standard_normal(shape_a).astype(np.float32), rng.standard_normal(shape_b).astype(np.float32)


def _relative_error(c, a, b, acc=0.5):
    exact = np.matmul(a.astype(np.float64), b.astype(np.float64)) + acc
    return np.abs(c - exact).max() / np.abs(exact).max()


@pytest.mark.parametrize("precision,low,high", [("bf16x3", 1e-7, 3e-5), ("bf16x6", 0.0, 5e-7)])
def test_split_precisions_reach_their_accuracy(target, precision, low, high):
    """bf16x3 keeps about 16 bits of each product (well above fp32's error, far below one bf16 dot's),
    bf16x6 about 24: fp32 accuracy."""
    a, b = _operands()
    c = np.zeros((32, 32), np.float32)
    split_dot[(1,)](a, b, c, M=32, N=32, K=64, PRECISION=precision)
    assert low <= _relative_error(c, a, b) <= high
    exact = np.zeros_like(c)
    split_dot[(1,)](a, b, exact, M=32, N=32, K=64, PRECISION="ieee")
    assert _relative_error(exact, a, b) < 1e-6  # the fp32 dot, for scale


def test_batched_split_dot(target):
    a, b = _operands(16, 16, 32, batch=2)
    c = np.zeros((2, 16, 16), np.float32)
    batched_split_dot[(1,)](a, b, c, M=16, N=16, K=32)
    assert _relative_error(c, a, b, acc=0.0) < 5e-7


@pytest.mark.parametrize("arch,pattern", [
    ("sm_90a", r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.bf16\.bf16"),
    ("sm_80", r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16"),
    ("gfx942", r"v_mfma_f32_\w+bf16"),
])  # fmt: skip
def test_split_dots_run_on_bf16_tensor_cores(arch, pattern):
    """bf16x3 is three times the bf16 matrix instructions of one product, bf16x6 six times."""
    counts = {}
    for precision in ("bf16x3", "bf16x6"):
        compiled = tilec.compile(
            split_dot, signature="*fp32,*fp32,*fp32", constexprs=dict(M=64, N=64, K=64, PRECISION=precision),
            target=arch, num_warps=4,
        )  # fmt: skip
        code = compiled.asm.get("ptx") or compiled.asm["amdgcn"]
        counts[precision] = len(re.findall(pattern, code))
    assert counts["bf16x3"] > 0 and counts["bf16x6"] == 2 * counts["bf16x3"]


@tilec.jit
def unknown_precision(a_ptr, N: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(
        a_ptr + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :],
        tl.dot(a, a, input_precision="bf16x9"),
    )


def test_unknown_precision_lists_the_known_ones():
    with pytest.raises(tilec.CompilationError, match="not one of ieee, tf32, tf32x3, bf16x3, bf16x6"):
        unknown_precision[(1,)](np.zeros((16, 16), np.float32), N=16)


@pytest.mark.gpu
@needs_gpu
def test_split_dots_on_gpu():
    import torch

    a, b = _operands()
    for precision, high in (("bf16x3", 3e-5), ("bf16x6", 5e-7)):
        c = torch.zeros(32, 32, device="cuda")
        split_dot[(1,)](
            torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), c, M=32, N=32, K=64, PRECISION=precision
        )
        assert _relative_error(c.cpu().numpy(), a, b) <= high
