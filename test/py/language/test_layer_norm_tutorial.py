"""Triton's layer-norm tutorial (forward, and backward with its spin-locked partial sums of dW and dB),
ported as users port it: pointer parameters moved with `+=`, a lock taken with `while tl.atomic_cas(...)`,
a first-writer branch on a counter, tl.debug_barrier, against NumPy."""

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def ln_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


@tilec.jit
def ln_bwd_dx(
    DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N, GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.0)
    wdy = tl.where(mask, wdy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@tilec.jit
def ln_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.0)
        db += tl.load(DB + offs, mask=mask, other=0.0)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


def _reference(x, w, b, dy, eps=1e-5):
    mean, var = x.mean(1), x.var(1)
    rstd = 1 / np.sqrt(var + eps)
    xhat = (x - mean[:, None]) * rstd[:, None]
    wdy = w * dy
    c1, c2 = (xhat * wdy).sum(1) / x.shape[1], wdy.sum(1) / x.shape[1]
    dx = (wdy - (xhat * c1[:, None] + c2[:, None])) * rstd[:, None]
    return xhat * w + b, dx, (dy * xhat).sum(0), dy.sum(0)


def _run(x, w, b, dy, empty, zeros, group=8):
    M, N = x.shape
    y, mean, rstd = empty(x.shape), empty((M,)), empty((M,))
    ln_fwd[(M,)](x, y, w, b, mean, rstd, N, N, 1e-5, BLOCK_SIZE=128)
    dx, dw_parts, db_parts = empty(x.shape), zeros((group, N)), zeros((group, N))
    lock = zeros((2 * group,), "int32")
    ln_bwd_dx[(M,)](dx, dy, dw_parts, db_parts, x, w, mean, rstd, lock, N, N, GROUP_SIZE_M=group,
                    BLOCK_SIZE_N=512)  # fmt: skip
    dw, db = empty((N,)), empty((N,))
    ln_bwd_dwdb[(tilec.cdiv(N, 64),)](dw_parts, db_parts, dw, db, group, N, BLOCK_SIZE_M=32, BLOCK_SIZE_N=64)
    return y, dx, dw, db, lock


@pytest.mark.parametrize("M,N", [(37, 300), (8, 512)])
def test_layer_norm_forward_and_backward(target, M, N):
    rng = np.random.default_rng(M)
    x, dy = (rng.standard_normal((M, N)).astype(np.float32) for _ in range(2))
    w, b = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
    y, dx, dw, db, lock = _run(
        x, w, b, dy, lambda s: np.empty(s, np.float32), lambda s, t="float32": np.zeros(s, t)
    )
    ref = _reference(x, w, b, dy)
    np.testing.assert_allclose(y, ref[0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dx, ref[1], rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(dw, ref[2], rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(db, ref[3], rtol=1e-3, atol=1e-3)
    assert list(lock[:8]) == [0] * 8 and list(lock[8:]) == [1] * 8  # released; every group written


@pytest.mark.gpu
@needs_gpu
def test_layer_norm_forward_and_backward_on_gpu():
    import torch

    M, N = 1151, 8192 // 16
    g = torch.Generator(device="cuda").manual_seed(0)
    x, dy = (torch.randn(M, N, device="cuda", generator=g) for _ in range(2))
    w, b = (torch.randn(N, device="cuda", generator=g) for _ in range(2))
    y, dx, dw, db, lock = _run(
        x, w, b, dy,
        lambda s: torch.empty(s, device="cuda"),
        lambda s, t="float32": torch.zeros(s, device="cuda", dtype=getattr(torch, t)),
        group=64,
    )  # fmt: skip
    ref = _reference(*(t.double().cpu().numpy() for t in (x, w, b, dy)))
    for got, want, tol in zip((y, dx, dw, db), ref, (1e-4, 1e-3, 1e-2, 1e-2)):
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=tol, atol=tol)
