"""Lambdas in kernels, as in Triton: combine functions for tl.reduce and tl.associative_scan, and
local helpers; they capture compile-time values only (a combiner runs in a region of its own, where
the kernel's run-time values do not exist), and capturing one is an error at the lambda's line."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def combined(x_ptr, scan_ptr, out_ptr, n, SCALE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(scan_ptr + offs, tl.associative_scan(x, axis=0, combine_fn=lambda a, b: a + b), mask=mask)
    tl.store(scan_ptr + BLOCK + offs, tl.associative_scan(x, 0, lambda a, b: tl.maximum(a, b)), mask=mask)
    ones = tl.where(mask, x, 1.0)
    tl.store(out_ptr, tl.reduce(ones, axis=0, combine_fn=lambda a, b: a * b))
    # a constexpr captured: each combine adds SCALE (n - 1 combines for n elements)
    tl.store(out_ptr + 1, tl.reduce(tl.where(mask, x, -SCALE), 0, lambda a, b: a + b + SCALE))
    # a local helper with a default argument, called directly on a tensor
    cube = lambda v, p=3: v * v * v if p == 3 else v  # noqa: E731
    tl.store(out_ptr + 2, tl.sum(cube(x)))


def test_lambdas_as_combine_functions_and_helpers(target):
    x = np.array([1.0, 3.0, 2.0, 5.0, 4.0], np.float32)
    scans, out = np.zeros(16, np.float32), np.zeros(3, np.float32)
    combined[(1,)](x, scans, out, len(x), SCALE=2.0, BLOCK=8)
    np.testing.assert_array_equal(scans[:5], np.cumsum(x))
    np.testing.assert_array_equal(scans[8:13], np.maximum.accumulate(x))
    assert out[0] == np.prod(x)
    assert out[1] == x.sum() + 2.0 * (8 - 1) - 2.0 * 3  # the 3 masked lanes hold -SCALE
    assert out[2] == np.sum(x**3)


@tilec.jit
def running_argmax(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    _, best = tl.associative_scan(
        (x, tl.arange(0, N)), 0, lambda a, i, b, j: (tl.maximum(a, b), tl.where(b > a, j, i))
    )
    tl.store(out_ptr + tl.arange(0, N), best)


def test_lambda_combining_two_operands(target):
    x = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32)
    out = np.zeros(8, np.int32)
    running_argmax[(1,)](x, out, N=8)
    assert list(out) == [0, 0, 2, 2, 4, 5, 5, 5]


@tilec.jit
def captures_a_tensor(x_ptr, y_ptr, BLOCK: tl.constexpr):
    val = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.associative_scan(val, 0, lambda a, b: a + b + val))


@tilec.jit
def captures_a_runtime_scalar(x_ptr, y_ptr, scale, BLOCK: tl.constexpr):
    val = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.associative_scan(val, 0, lambda a, b: a + b + scale))


@tilec.jit
def wrong_arity(x_ptr, BLOCK: tl.constexpr):
    val = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr, tl.reduce(val, 0, lambda a: a))


@pytest.mark.parametrize(
    "kernel, args, message",
    [
        (captures_a_tensor, (np.zeros(4, np.float32),), r"lambda can only capture constexpr values: 'val'"),
        (captures_a_runtime_scalar, (np.zeros(4, np.float32), 2.0), r"capture constexpr values: 'scale'"),
        (wrong_arity, (), r"bad call of a lambda: too many positional arguments"),
    ],
)
def test_lambda_misuse_names_the_line(target, kernel, args, message):
    with pytest.raises(tilec.CompilationError, match=message) as info:
        kernel[(1,)](np.zeros(4, np.float32), *args, BLOCK=4)
    assert "test_lambdas.py" in str(info.value)


@pytest.mark.gpu
@needs_gpu
def test_lambdas_on_gpu():
    import torch

    x = torch.tensor([1.0, 3.0, 2.0, 5.0, 4.0], device="cuda")
    scans, out = torch.zeros(16, device="cuda"), torch.zeros(3, device="cuda")
    combined[(1,)](x, scans, out, 5, SCALE=2.0, BLOCK=8)
    assert torch.equal(scans[:5], torch.cumsum(x, 0))
    assert out.tolist() == [120.0, 15.0 + 14.0 - 6.0, float((x**3).sum())]
