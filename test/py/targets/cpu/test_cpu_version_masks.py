"""Kernels whose masks are all true in most programs, on the CPU target: loop-free ones
(tile-cpu-version-masks: the unmasked copy where a block lies inside the arrays, the masked body at
the ragged edges, masks the bounds do not cover, offsets that wrap around i32) and kernels with
loops (tile-cpu-version-looped-masks: each access versioned on its own mask), against NumPy; the
interpreter runs the same cases."""

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


@tilec.jit
def looped_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A K loop under `offs_k < K - k * BK` (all true but in a ragged last step) and an epilogue
    under (rows < M) & (cols < N) (tile-cpu-version-looped-masks versions each access)."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(
            a_ptr + rows[:, None] * K + (k * BK + offs_k)[None, :],
            mask=(rows[:, None] < M) & (offs_k[None, :] < K - k * BK), other=0.0,
        )  # fmt: skip
        b = tl.load(b_ptr + (k * BK + offs_k)[:, None] * N + cols[None, :],
                    mask=(offs_k[:, None] < K - k * BK) & (cols[None, :] < N), other=0.0)  # fmt: skip
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (70, 50, 100), (16, 16, 7)])
def test_looped_masks_all_true_and_ragged(target, M, N, K):
    rng = np.random.default_rng(K)
    a, b = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, np.float32)
    looped_matmul[(tilec.cdiv(M, 32), tilec.cdiv(N, 32))](a, b, c, M, N, K, BM=32, BN=32, BK=32)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@tilec.jit
def row_sums_where_flagged(x_ptr, flags_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    """Column sums of a [BLOCK, n_cols] block accumulated over a loop, stored where a loaded flag is
    positive: a mask the bounds do not give (reduced before the store), all true in some programs,
    mixed or all false in others."""
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for c in range(0, n_cols):
        acc += tl.load(x_ptr + rows * n_cols + c)
    keep = tl.load(flags_ptr + rows) > 0
    tl.store(out_ptr + rows, acc, mask=keep)


def test_looped_masks_from_loaded_values(target):
    x = np.random.default_rng(3).standard_normal((96, 5)).astype(np.float32)
    flags = np.random.default_rng(4).standard_normal(96).astype(np.float32)
    flags[:32] = 1.0  # a block all flagged: its store runs unmasked
    flags[32:64] = -1.0  # one with nothing to store
    out = np.full(96, np.nan, np.float32)
    row_sums_where_flagged[(3,)](x, flags, out, 5, BLOCK=32)
    expected = np.where(flags > 0, x.sum(1), np.nan).astype(np.float32)
    np.testing.assert_allclose(out, expected, rtol=1e-5)
