"""Loop-free kernels whose masks are all true in most programs (tile-cpu-version-masks on the CPU
target): the unmasked copy where a block lies inside the arrays, the masked body at the ragged
edges, masks the bounds do not cover, and offsets that wrap around i32, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def scaled_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, 2 * x + tl.load(y_ptr + offs, mask=mask), mask=mask)


@pytest.mark.parametrize("n", [1, 64, 1000, 4096, 4097])
def test_vector_blocks(target, n):
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.full(n + 8, np.nan, np.float32)  # past n: untouched
    scaled_add[(tilec.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    np.testing.assert_allclose(out[:n], 2 * x + y, rtol=1e-6)
    assert np.isnan(out[n:]).all()


@tilec.jit
def tile_copy(x_ptr, out_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    """A 2-D block with (rows < M) & (cols < N), rows counted from the top right corner as
    `M - 1 - r` (a multiplication by a constant and a subtraction the bounds do not follow)."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=-1.0)
    flipped = (M - 1 - rows)[:, None] * stride + cols[None, :]
    tl.store(out_ptr + flipped, x, mask=mask & ((M - 1 - rows)[:, None] >= 0))


@pytest.mark.parametrize("M,N", [(32, 48), (33, 47), (5, 70)])
def test_two_dimensional_masks(target, M, N):
    x = np.random.default_rng(M).standard_normal((M, N)).astype(np.float32)
    out = np.full((M, N), np.nan, np.float32)
    tile_copy[(tilec.cdiv(M, 16), tilec.cdiv(N, 16))](x, out, M, N, N, BM=16, BN=16)
    np.testing.assert_array_equal(out, x[::-1])


@tilec.jit
def wrapped_offsets(out_ptr, start, BLOCK: tl.constexpr):
    """A mask whose offsets wrap around i32: `start + i > 0` turns false where start + i passes
    2**31 - 1 (the unmasked copy must not run)."""
    i = tl.arange(0, BLOCK)
    keep = (start + i) > 0
    tl.store(out_ptr + i, i, mask=keep)


def test_offsets_that_wrap_keep_their_masks(target):
    out = np.full(64, -1, np.int32)
    start = 2**31 - 10  # start + 10 wraps to -2**31
    wrapped_offsets[(1,)](out, start, BLOCK=64)
    expected = np.where(np.arange(64) < 10, np.arange(64), -1)
    np.testing.assert_array_equal(out, expected)


@tilec.jit
def every_other(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """A mask the bounds do not cover (`offs % 2 == 0`): reduced at run time; a mask from loaded
    values (`x > 0`) keeps its branch in both copies."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=(offs % 2 == 0) | (offs < n), other=0.0)
    tl.store(out_ptr + offs, x, mask=x > 0)


@pytest.mark.parametrize("n", [0, 64])
def test_masks_reduced_at_run_time(target, n):
    x = np.random.default_rng(n).standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    every_other[(1,)](x, out, n, BLOCK=64)
    loaded = np.where((np.arange(64) % 2 == 0) | (np.arange(64) < n), x, 0)
    np.testing.assert_array_equal(out, np.where(loaded > 0, loaded, 0))
