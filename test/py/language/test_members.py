"""Triton's tensor member functions (`x.exp()`, `x.cumprod(0)`, `ptrs.atomic_add(v)`, `x.sort()`, ...),
`tl.softmax` and `tl.topk`, against NumPy on the CPU target and the interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def members(x_ptr, out_ptr, counter_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    (out_ptr + 0 * N + i).store(x.abs())
    (out_ptr + 1 * N + i).store(x.exp())
    (out_ptr + 2 * N + i).store(x.exp2())
    (out_ptr + 3 * N + i).store(x.abs().log())
    (out_ptr + 4 * N + i).store(x.abs().log2())
    (out_ptr + 5 * N + i).store(x.abs().sqrt())
    (out_ptr + 6 * N + i).store(x.sin())
    (out_ptr + 7 * N + i).store(x.cos())
    (out_ptr + 8 * N + i).store(x.sigmoid())
    (out_ptr + 9 * N + i).store(x.floor())
    (out_ptr + 10 * N + i).store(x.ceil())
    (out_ptr + 11 * N + i).store(x.erf())
    (out_ptr + 12 * N + i).store(x.abs().rsqrt())
    (out_ptr + 13 * N + i).store(x.fma(x, x))
    (out_ptr + 14 * N + i).store(x.flip(0))
    (out_ptr + 15 * N + i).store(x.sort())
    (out_ptr + 16 * N + i).store(x.cumprod(0))
    (out_ptr + 17 * N + i).store(x.cast(tl.int32).to(tl.float32))
    (out_ptr + 18 * N + i).store(x.ravel())
    (out_ptr + 19 * N + i).store(x.softmax())
    (counter_ptr + i % 4).atomic_add(1)


def _expected(x):
    return [
        np.abs(x), np.exp(x), np.exp2(x), np.log(np.abs(x)), np.log2(np.abs(x)), np.sqrt(np.abs(x)),
        np.sin(x), np.cos(x), 1 / (1 + np.exp(-x)), np.floor(x), np.ceil(x), None, 1 / np.sqrt(np.abs(x)),
        x * x + x, x[::-1], np.sort(x), np.cumprod(x), np.trunc(x), x, np.exp(x - x.max()) / np.exp(x - x.max()).sum(),
    ]  # fmt: skip


def test_member_functions(target):
    x = np.linspace(-1.9, 2.3, 16).astype(np.float32)
    out = np.zeros((20, 16), np.float32)
    counter = np.zeros(4, np.int32)
    members[(1,)](x, out, counter, N=16)
    for k, want in enumerate(_expected(x.astype(np.float64))):
        if want is not None:
            np.testing.assert_allclose(out[k], want, rtol=2e-5, atol=1e-6, err_msg=f"row {k}")
    assert list(counter) == [4, 4, 4, 4]


@tilec.jit
def top(x_ptr, out_ptr, R: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, R)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(out_ptr + tl.arange(0, R)[:, None] * K + tl.arange(0, K)[None, :], tl.topk(x, K))


@pytest.mark.parametrize("k", [1, 4, 32])
def test_topk(target, k):
    x = np.random.default_rng(k).standard_normal((4, 32)).astype(np.float32)
    out = np.zeros((4, k), np.float32)
    top[(1,)](x, out, R=4, N=32, K=k)
    np.testing.assert_array_equal(out, -np.sort(-x, axis=1)[:, :k])


@tilec.jit
def softmax_rows(x_ptr, out_ptr, R: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.softmax(x, dim=1, keep_dims=True, ieee_rounding=True))


def test_softmax(target):
    x = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32) * 4
    out = np.zeros_like(x)
    softmax_rows[(1,)](x, out, R=8, N=64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


@tilec.jit
def topk_not_power_of_two(x_ptr, N: tl.constexpr):
    tl.topk(tl.load(x_ptr + tl.arange(0, N)), 3)


def test_topk_misuse_names_the_line():
    with pytest.raises(
        tilec.CompilationError, match="tl.topk: k must be a power of two from 1 to 16, got 3"
    ) as info:
        topk_not_power_of_two[(1,)](np.zeros(16, np.float32), N=16)
    assert "test_members.py" in str(info.value)


@pytest.mark.gpu
@needs_gpu
def test_on_gpu():
    import torch

    x = np.linspace(-1.9, 2.3, 16).astype(np.float32)
    out = torch.zeros((20, 16), device="cuda")
    counter = torch.zeros(4, device="cuda", dtype=torch.int32)
    members[(1,)](torch.from_numpy(x).cuda(), out, counter, N=16)
    rows = np.random.default_rng(5).standard_normal((4, 32)).astype(np.float32)
    best = torch.zeros((4, 4), device="cuda")
    top[(1,)](torch.from_numpy(rows).cuda(), best, R=4, N=32, K=4)
    torch.cuda.synchronize()
    for k, want in enumerate(_expected(x.astype(np.float64))):
        if want is not None:  # the GPUs' approximate exp/log/sin: a few ulp
            np.testing.assert_allclose(out[k].cpu().numpy(), want, rtol=2e-5, atol=2e-6, err_msg=f"row {k}")
    assert counter.tolist() == [4, 4, 4, 4]
    np.testing.assert_array_equal(best.cpu().numpy(), -np.sort(-rows, axis=1)[:, :4])
