"""The kernel suite: Triton-style kernels with NumPy references, shared by every back end's tests.

Each Case makes its inputs, launches the kernel through a `launch(kernel, grid, *args, **constexprs)`
callback (the interpreter, the CPU target, a GPU...), and checks the outputs against NumPy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

import tilec
import tilec.language as tl

BF16 = np.dtype(ml_dtypes.bfloat16)

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@tilec.jit
def inside(offs, bound, CLAMP: tl.constexpr):
    """Offsets past `bound` wrapped (Triton's matmul tutorial: `offs % M`) or, with CLAMP, clamped to
    0 with tl.where (its newer tutorials); kernels of test_cpu_dot and test_pointer_tensor_copies."""
    if CLAMP:
        return tl.where(offs < bound, offs, 0)
    return offs % bound


@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@tilec.jit
def axpy_kernel(x_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, alpha * x + 1.0, mask=offs < n)


@tilec.jit
def transpose_kernel(
    in_ptr, out_ptr, M, N, stride_im, stride_in, stride_om, stride_on, BM: tl.constexpr, BN: tl.constexpr
):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile_ = tl.load(in_ptr + rm[:, None] * stride_im + rn[None, :] * stride_in, mask=mask)
    tl.store(out_ptr + rn[None, :] * stride_om + rm[:, None] * stride_on, tile_, mask=mask)


@tilec.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + offs, num / den, mask=mask)


@tilec.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(out_ptr + row * stride + cols, diff * rstd * w + b, mask=mask)


@tilec.jit
def gelu(x):
    return 0.5 * x * (1 + tl.erf(x * 0.7071067811865476))


@tilec.jit
def layernorm_gelu_kernel(x_ptr, w_ptr, b_ptr, out_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / N
    diff = tl.where(mask, x - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(diff * diff, axis=0) / N + eps)
    y = diff * rstd * tl.load(w_ptr + cols, mask=mask) + tl.load(b_ptr + cols, mask=mask)
    tl.store(out_ptr + row * stride + cols, gelu(y), mask=mask)


@tilec.jit
def reduce_axis_kernel(
    x_ptr, sum_ptr, max_ptr, min_ptr, M, N, AXIS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr
):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    s = tl.sum(x, axis=AXIS)
    mx = tl.max(tl.where(mask, x, -float("inf")), axis=AXIS)
    mn = tl.min(tl.where(mask, x, float("inf")), axis=AXIS)
    if AXIS == 0:
        out_offs = rn
        out_mask = rn < N
    else:
        out_offs = rm
        out_mask = rm < M
    tl.store(sum_ptr + out_offs, s, mask=out_mask)
    tl.store(max_ptr + out_offs, mx, mask=out_mask)
    tl.store(min_ptr + out_offs, mn, mask=out_mask)


@tilec.jit
def argmax_kernel(x_ptr, amax_ptr, amin_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + offs, mask=offs < N, other=-float("inf"))
    tl.store(amax_ptr + row, tl.argmax(x, axis=0))
    y = tl.load(x_ptr + row * N + offs, mask=offs < N, other=float("inf"))
    tl.store(amin_ptr + row, tl.argmin(y, axis=0))


@tilec.jit
def cumsum_kernel(x_ptr, out_ptr, rev_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < N, other=0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=offs < N)
    tl.store(rev_ptr + offs, tl.cumsum(x, axis=0, reverse=True), mask=offs < N)


@tilec.jit
def scan_rows_kernel(x_ptr, sum_ptr, prod_ptr, cube_ptr, M: tl.constexpr, N: tl.constexpr):
    """Scans along the last axis of 2-D and 3-D blocks (each column of the result is its own slice)."""
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(sum_ptr + offs, tl.cumsum(x, axis=1, reverse=True))
    tl.store(prod_ptr + offs, tl.cumprod(x, axis=1))
    cube = tl.reshape(x, (2, M // 2, N))
    offs3 = tl.reshape(offs, (2, M // 2, N))
    tl.store(cube_ptr + offs3, tl.associative_scan(cube, 2, running_max))


@tilec.jit
def where_pointers_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """tl.where choosing between two tensors of pointers (and between two scalar pointers)."""
    offs = tl.arange(0, BLOCK)
    src = tl.where(offs % 3 == 0, x_ptr + offs, y_ptr + (BLOCK - 1 - offs))
    base = tl.where(n > 0, out_ptr, x_ptr)
    tl.store(base + offs, tl.load(src, mask=offs < n, other=-1.0), mask=offs < BLOCK)


@tilec.jit
def or_combine(x, y):
    return x | y


@tilec.jit
def bool_logic_kernel(x_ptr, y_ptr, pair_ptr, red_ptr, sum_ptr, any_ptr, N: tl.constexpr):
    """Booleans as Triton has them (true is 1, compared and ordered unsigned): comparisons, min/max,
    reductions and scans of boolean blocks."""
    offs = tl.arange(0, N)
    a = tl.load(x_ptr + offs) > 0.5
    b = tl.load(y_ptr + offs) > 0.5
    pair = (a < b).to(tl.int32) + 2 * (a > b).to(tl.int32) + 4 * tl.maximum(a, b).to(tl.int32)
    tl.store(pair_ptr + offs, pair + 8 * tl.minimum(a, b).to(tl.int32))
    tl.store(red_ptr, tl.max(a, axis=0).to(tl.int32) + 2 * tl.min(a, axis=0).to(tl.int32))
    tl.store(sum_ptr + offs, tl.cumsum(a.to(tl.int32), axis=0))
    tl.store(any_ptr + offs, tl.associative_scan(a, 0, or_combine).to(tl.int32))


@tilec.jit
def float_remainder_kernel(x_ptr, y_ptr, out_ptr, half_ptr, n, BLOCK: tl.constexpr):
    """`%` on floats (C's fmod: the sign of x); GPUs compute it by exact reduction steps
    (tile-exact-float-remainder)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, x % y, mask=mask)
    tl.store(half_ptr + offs, x.to(tl.float16) % y.to(tl.float16), mask=mask)


@tilec.jit
def dot_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr
):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(
            a_ptr + rm[:, None] * K + (k + rk)[None, :],
            mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + (k + rk)[:, None] * N + rn[None, :],
            mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc, input_precision=PREC)
    tl.store(
        c_ptr + rm[:, None] * N + rn[None, :],
        acc.to(c_ptr.dtype.element_ty),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


@tilec.jit
def histogram_kernel(x_ptr, hist_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + (x % BINS), 1, mask=mask)


@tilec.jit
def atomic_minmax_kernel(x_ptr, max_ptr, min_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_max(max_ptr + tl.zeros([BLOCK], dtype=tl.int32), x, mask=mask)
    tl.atomic_min(min_ptr + tl.zeros([BLOCK], dtype=tl.int32), x, mask=mask)


@tilec.jit
def atomic_cas_kernel(flags_ptr, out_ptr):
    pid = tl.program_id(0)
    old = tl.atomic_cas(flags_ptr + pid, 0, pid + 1)
    tl.store(out_ptr + pid, old)


@tilec.jit
def atomic_cas_float_kernel(values_ptr, old_ptr, half_ptr, double_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_cas(
        values_ptr + offs, tl.full([BLOCK], 0.0, tl.float32), tl.full([BLOCK], 2.5, tl.float32)
    )
    tl.store(old_ptr + offs, old)
    tl.atomic_cas(half_ptr, 1.5, 3.0)
    tl.atomic_cas(double_ptr + offs, tl.load(double_ptr + offs), -tl.load(double_ptr + offs))


@tilec.jit
def unit_dims_reduce_kernel(x_ptr, out_ptr, B: tl.constexpr, C: tl.constexpr):
    # a 1 x B x C block: a unit dimension besides the reduced one (the CPU lowering's rank-reducing
    # slices picked the wrong unit dimension to drop there)
    i = (
        tl.arange(0, 1)[:, None, None] * B * C
        + tl.arange(0, B)[None, :, None] * C
        + tl.arange(0, C)[None, None, :]
    )
    x = tl.load(x_ptr + i)
    rows = tl.arange(0, B)
    tl.store(out_ptr + rows, tl.reshape(tl.max(x, axis=2), (B,)))
    tl.store(out_ptr + B + rows, tl.reshape(tl.sum(x, axis=2, keep_dims=True), (B,)))
    tl.store(out_ptr + 2 * B + i, tl.cumsum(x, axis=2))
    tl.store(out_ptr + 2 * B + B * C + i, tl.cumsum(x, axis=0))


@tilec.jit
def int_ops_kernel(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(out_ptr + 0 * BLOCK + offs, a // b)
    tl.store(out_ptr + 1 * BLOCK + offs, a % b)
    tl.store(out_ptr + 2 * BLOCK + offs, a << (b & 7))
    tl.store(out_ptr + 3 * BLOCK + offs, a >> (b & 7))
    tl.store(out_ptr + 4 * BLOCK + offs, a & b)
    tl.store(out_ptr + 5 * BLOCK + offs, a | b)
    tl.store(out_ptr + 6 * BLOCK + offs, a ^ b)
    tl.store(out_ptr + 7 * BLOCK + offs, ~a)
    tl.store(out_ptr + 8 * BLOCK + offs, -a)
    tl.store(out_ptr + 9 * BLOCK + offs, tl.maximum(a, b) - tl.minimum(a, b))
    tl.store(out_ptr + 10 * BLOCK + offs, tl.where(a < b, a, b) + tl.abs(a))


@tilec.jit
def uint_ops_kernel(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(out_ptr + 0 * BLOCK + offs, a // b)
    tl.store(out_ptr + 1 * BLOCK + offs, a % b)
    tl.store(out_ptr + 2 * BLOCK + offs, a >> 3)
    tl.store(out_ptr + 3 * BLOCK + offs, tl.where(a > b, a, b))
    tl.store(out_ptr + 4 * BLOCK + offs, tl.maximum(a, b))


@tilec.jit
def nan_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + 0 * BLOCK + offs, tl.maximum(x, 0.0))
    tl.store(out_ptr + 1 * BLOCK + offs, tl.maximum(x, 0.0, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 2 * BLOCK + offs, tl.clamp(x, -1.0, 1.0))
    tl.store(out_ptr + 3 * BLOCK + offs, tl.where(x != x, 123.0, x))
    tl.store(out_ptr + 4 * BLOCK + offs, tl.where(x > 0.5, x, -x))


@tilec.jit
def cast_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty), mask=offs < n)


@tilec.jit
def collatz_kernel(x_ptr, steps_ptr, n):
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid)
    steps = 0
    while v != 1:
        if v % 2 == 0:
            v = v // 2
        else:
            v = 3 * v + 1
        steps += 1
    tl.store(steps_ptr + pid, steps)


@tilec.jit
def scaled(x, factor: tl.constexpr):
    return x * factor, x + factor


@tilec.jit
def helper_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    a, b = scaled(x, 3)
    tl.store(out_ptr + offs, a - b)


@tilec.jit
def max_with_index(a, ia, b, ib):
    pick = a >= b
    return tl.where(pick, a, b), tl.where(pick, ia, ib)


@tilec.jit
def user_reduce_kernel(x_ptr, val_ptr, idx_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    v, i = tl.reduce((x, offs), 0, max_with_index)
    tl.store(val_ptr, v)
    tl.store(idx_ptr, i)


@tilec.jit
def running_max(a, b):
    return tl.maximum(a, b)


@tilec.jit
def scan_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.associative_scan(x, 0, running_max))


@tilec.jit
def shapes_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    t = tl.trans(x)
    r = tl.reshape(t, (N * M,))
    e = tl.expand_dims(r, 0)
    b = tl.broadcast_to(e, (2, N * M))
    s = tl.sum(b, axis=0)
    tl.store(out_ptr + tl.arange(0, N * M), s)


@tilec.jit
def math_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + 0 * BLOCK + offs, tl.exp(x))
    tl.store(out_ptr + 1 * BLOCK + offs, tl.log(x))
    tl.store(out_ptr + 2 * BLOCK + offs, tl.sqrt(x))
    tl.store(out_ptr + 3 * BLOCK + offs, tl.sin(x))
    tl.store(out_ptr + 4 * BLOCK + offs, tl.cos(x))
    tl.store(out_ptr + 5 * BLOCK + offs, tl.erf(x))
    tl.store(out_ptr + 6 * BLOCK + offs, tl.sigmoid(x))
    tl.store(out_ptr + 7 * BLOCK + offs, tl.exp2(x) + tl.log2(x))
    tl.store(out_ptr + 8 * BLOCK + offs, tl.fma(x, x, 1.0))
    tl.store(out_ptr + 9 * BLOCK + offs, tl.rsqrt(x))


@tilec.jit
def grid2d_kernel(out_ptr):
    x, y = tl.program_id(0), tl.program_id(1)
    nx, ny = tl.num_programs(0), tl.num_programs(1)
    tl.store(out_ptr + y * nx + x, x * 100 + y + nx * ny * 1000)


@tilec.jit
def static_loop_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, REPS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in tl.static_range(REPS):
        acc += tl.load(x_ptr + i * BLOCK + offs) * (i + 1)
    tl.store(out_ptr + offs, acc)


@tilec.jit
def branch_kernel(x_ptr, out_ptr, threshold, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    total = tl.sum(x, axis=0)
    if total > threshold:
        y = x * 2.0
        flag = 1
    elif total > 0:
        y = x
        flag = 2
    else:
        y = -x
        flag = 3
    tl.store(out_ptr + offs, y + flag)


@tilec.jit
def bf16_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, (x * y + x).to(tl.bfloat16))


@tilec.jit
def int64_offsets_kernel(x_ptr, out_ptr, base, BLOCK: tl.constexpr):
    offs = base + tl.arange(0, BLOCK).to(tl.int64)
    offs = tl.multiple_of(offs, 16)
    x = tl.load(x_ptr + (offs - base))
    tl.store(out_ptr + tl.arange(0, BLOCK), x + (offs - base).to(tl.float32))


@tilec.jit
def full_kernel(out_ptr, n, BLOCK: tl.constexpr):
    nblocks = tl.cdiv(n, BLOCK)
    offs = tl.arange(0, BLOCK)
    for b in range(nblocks):
        v = tl.full([BLOCK], 7, tl.int32) + tl.zeros_like(offs) + b
        tl.store(out_ptr + b * BLOCK + offs, v, mask=b * BLOCK + offs < n)


@tilec.jit
def reverse_loop_kernel(out_ptr, n):
    acc = 0
    for i in range(n, 0, -2):
        acc = acc * 10 + i
    tl.store(out_ptr, acc)


@tilec.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@tilec.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    ACTIVATION: tl.constexpr,
):
    # Triton's matmul tutorial: grouped program order, pointers advanced in the loop, masked K tail.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@tilec.jit
def boundary_masks_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Masks that change at n's own element (<=, ==, >, !=): with n divisible by 16 they are not
    constant over aligned groups, unlike `offs < n`, so no access may be vectorized under one bit."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    size = tl.num_programs(0) * BLOCK
    le = offs <= n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=le, other=-1.0), mask=le)
    tl.store(out_ptr + size + offs, tl.load(x_ptr + offs, mask=offs == n, other=-1.0), mask=offs == n)
    gt = offs > n
    tl.store(out_ptr + 2 * size + offs, tl.load(x_ptr + offs, mask=gt, other=-1.0), mask=gt)
    tl.store(out_ptr + 3 * size + offs, tl.load(x_ptr + offs, mask=n != offs, other=-1.0), mask=n != offs)
    # and those that are constant over the groups, mirrored: n > offs, n <= offs
    tl.store(out_ptr + 4 * size + offs, tl.load(x_ptr + offs, mask=n > offs, other=-1.0), mask=n > offs)
    tl.store(out_ptr + 5 * size + offs, tl.load(x_ptr + offs, mask=n <= offs, other=-1.0), mask=n <= offs)


@tilec.jit
def wide_stride_kernel(out_ptr, stride: tl.int64, small, BLOCK: tl.constexpr):
    # `stride: tl.int64`: the product is 64-bit even for a small value (as in Triton)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, stride * (1048576 + offs) + tl.max(small.to(tl.int8) + offs.to(tl.int8)) + 100)


@tilec.jit
def small_dots_kernel(a_ptr, b_ptr, c_ptr, d_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], tl.dot(a, b))
    # a 2 x K by K x 2 product: blocks below the tensor cores' smallest shape
    a2 = tl.load(a_ptr + tl.arange(0, 2)[:, None] * K + tl.arange(0, K)[None, :])
    b2 = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, 2)[None, :])
    tl.store(d_ptr + tl.arange(0, 2)[:, None] * 2 + tl.arange(0, 2)[None, :], tl.dot(a2, b2))


@tilec.jit
def one_side_kernel(x_ptr, out_ptr, n, far):
    pid = tl.program_id(0)
    value = tl.load(x_ptr + pid) if pid < n else tl.load(x_ptr + far)  # only the chosen side runs
    tl.store(out_ptr + pid, value) if pid % 2 == 0 else tl.store(out_ptr + pid, -value)


@tilec.jit
def descriptor_rows_kernel(
    out_ptr, in_ptr, idx_ptr, acc_ptr, X: tl.constexpr, Y: tl.constexpr, BX: tl.constexpr, BY: tl.constexpr
):
    rows = tl.load(idx_ptr + tl.arange(0, BX))
    src = tl.make_tensor_descriptor(in_ptr, [X, Y], [Y, 1], [1, BY])
    dst = tl.make_tensor_descriptor(out_ptr, [X, Y], [Y, 1], [1, BY])
    dst.scatter(src.gather(rows, 8) + 1.0, rows, 8)
    acc = tl.make_tensor_descriptor(acc_ptr, [X, Y], [Y, 1], [BX, BY])
    acc.atomic_add([0, 8], src.gather(rows, 8))


# ----------------------------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    run: object  # (launch, rng) -> list of (actual, expected, rtol, atol)
    tags: set = field(default_factory=set)


CASES: list[Case] = []


def case(name, *tags):
    def register(fn):
        CASES.append(Case(name, fn, set(tags)))
        return fn

    return register


def _cdiv(a, b):
    return -(-a // b)


@case("vector_add_masked_tail")
def _(launch, rng):
    n = 1000
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    launch(add_kernel, (_cdiv(n, 256),), x, y, out, n, BLOCK=256)
    return [(out, x + y, 0, 0)]


@case("boundary_masks")
def _(launch, rng):
    block, grid = 1024, 2  # several elements per GPU thread: accesses could be vectorized
    size = block * grid
    x = rng.random(size, dtype=np.float32) + 1
    results = []
    for n in (1280, 200):  # divisible by 16 (specialized so on GPUs) and not
        out = np.zeros(6 * size, np.float32)
        launch(boundary_masks_kernel, (grid,), x, out, n, BLOCK=block)
        offs = np.arange(size)
        masks = [offs <= n, offs == n, offs > n, offs != n, n > offs, n <= offs]
        expected = np.concatenate([np.where(m, x, 0) for m in masks]).astype(np.float32)
        results.append((out, expected, 0, 0))
    return results


@case("vector_add_int64")
def _(launch, rng):
    n = 300
    x, y = rng.integers(-(2**40), 2**40, n), rng.integers(-(2**40), 2**40, n)
    out = np.zeros(n, np.int64)
    launch(add_kernel, (_cdiv(n, 128),), x, y, out, n, BLOCK=128)
    return [(out, x + y, 0, 0)]


@case("axpy_scalar_float_arg")
def _(launch, rng):
    n = 777
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    launch(axpy_kernel, (_cdiv(n, 128),), x, out, 2.5, n, BLOCK=128)
    return [(out, 2.5 * x + 1.0, 1e-6, 1e-6)]


@case("transpose_2d_strided")
def _(launch, rng):
    M, N = 50, 70
    a = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((N, M), np.float32)
    launch(transpose_kernel, (_cdiv(M, 16), _cdiv(N, 32)), a, out, M, N, N, 1, M, 1, BM=16, BN=32)
    return [(out, a.T, 0, 0)]


def softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@case("softmax", "transcendental")
def _(launch, rng):
    M, N = 17, 300
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros_like(x)
    launch(softmax_kernel, (M,), out, x, N, N, N, BLOCK=512)
    return [(out, softmax_ref(x), 1e-5, 1e-6)]


def layernorm_ref(x, w, b, eps):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


@case("layernorm", "transcendental")
def _(launch, rng):
    M, N = 9, 200
    x = rng.standard_normal((M, N)).astype(np.float32)
    w, b = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    out = np.zeros_like(x)
    launch(layernorm_kernel, (M,), x, w, b, out, N, N, 1e-5, BLOCK=256)
    return [(out, layernorm_ref(x, w, b, 1e-5), 1e-4, 1e-5)]


@case("layernorm_gelu_fused", "transcendental")
def _(launch, rng):
    M, N = 8, 130
    x = rng.standard_normal((M, N)).astype(np.float32)
    w, b = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    out = np.zeros_like(x)
    launch(layernorm_gelu_kernel, (M,), x, w, b, out, N, N, 1e-5, BLOCK=256)
    y = layernorm_ref(x, w, b, 1e-5).astype(np.float64)
    erf = np.vectorize(math.erf)
    return [(out, 0.5 * y * (1 + erf(y / math.sqrt(2))), 1e-4, 1e-5)]


for _axis in (0, 1):

    @case(f"reductions_axis{_axis}")
    def _(launch, rng, axis=_axis):
        M, N = 12, 20
        x = rng.standard_normal((M, N)).astype(np.float32)
        n_out = N if axis == 0 else M
        s, mx, mn = (np.zeros(n_out, np.float32) for _ in range(3))
        launch(reduce_axis_kernel, (1,), x, s, mx, mn, M, N, AXIS=axis, BM=16, BN=32)
        return [(s, x.sum(axis), 1e-5, 1e-5), (mx, x.max(axis), 0, 0), (mn, x.min(axis), 0, 0)]


@case("argmax_argmin")
def _(launch, rng):
    M, N = 6, 100
    x = rng.integers(0, 10, (M, N)).astype(np.float32)  # many ties: the first index must win
    amax, amin = np.zeros(M, np.int32), np.zeros(M, np.int32)
    launch(argmax_kernel, (M,), x, amax, amin, N, BLOCK=128)
    return [(amax, x.argmax(1), 0, 0), (amin, x.argmin(1), 0, 0)]


@case("cumsum_int")
def _(launch, rng):
    N = 100
    x = rng.integers(-50, 50, N).astype(np.int32)
    out, rev = np.zeros(N, np.int32), np.zeros(N, np.int32)
    launch(cumsum_kernel, (1,), x, out, rev, N, BLOCK=128)
    return [(out, np.cumsum(x), 0, 0), (rev, np.cumsum(x[::-1])[::-1], 0, 0)]


@case("scan_last_axis_2d_3d")
def _(launch, rng):
    M, N = 8, 16
    x = (rng.random((M, N)) + 0.5).astype(np.float32)
    sums, prods, cube = (np.zeros((M, N), np.float32) for _ in range(3))
    launch(scan_rows_kernel, (1,), x, sums, prods, cube, M=M, N=N)
    return [
        (sums, np.cumsum(x[:, ::-1], 1)[:, ::-1], 1e-5, 0),
        (prods, np.cumprod(x, 1), 1e-5, 0),
        (cube, np.maximum.accumulate(x, 1), 0, 0),
    ]


@case("where_on_pointers")
def _(launch, rng):
    B, n = 64, 50
    x, y = rng.random(B, dtype=np.float32), rng.random(B, dtype=np.float32)
    out = np.zeros(B, np.float32)
    launch(where_pointers_kernel, (1,), x, y, out, n, BLOCK=B)
    offs = np.arange(B)
    expected = np.where(offs % 3 == 0, x, y[::-1])
    return [(out, np.where(offs < n, expected, -1.0).astype(np.float32), 0, 0)]


@case("bool_compare_minmax_reduce_scan")
def _(launch, rng):
    N = 64
    x, y = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    x[:5] = 0.0  # the or-scan starts false
    pair, red, sums, anys = (np.zeros(n, np.int32) for n in (N, 1, N, N))
    launch(bool_logic_kernel, (1,), x, y, pair, red, sums, anys, N=N)
    a, b = x > 0.5, y > 0.5
    expected = (a < b) + 2 * (a > b) + 4 * np.maximum(a, b) + 8 * np.minimum(a, b)
    return [
        (pair, expected.astype(np.int32), 0, 0),
        (red, np.array([int(a.max()) + 2 * int(a.min())], np.int32), 0, 0),
        (sums, np.cumsum(a).astype(np.int32), 0, 0),
        (anys, np.logical_or.accumulate(a).astype(np.int32), 0, 0),
    ]


@case("float_remainder")
def _(launch, rng):
    n = 1000
    x = (rng.standard_normal(n) * 1000).astype(np.float32)
    y = (rng.standard_normal(n) * 10 + np.sign(rng.standard_normal(n)) * 0.5).astype(np.float32)
    # every fourth pair far apart: quotients up to 2^250, where x - trunc(x / y) y is wrong
    x[::4] = (rng.standard_normal(n // 4) * 10.0 ** rng.integers(8, 38, n // 4)).astype(np.float32)
    y[::4] = (rng.standard_normal(n // 4) * 10.0 ** rng.integers(-38, 3, n // 4)).astype(np.float32)
    out, half = np.zeros(n, np.float32), np.zeros(n, np.float16)
    launch(float_remainder_kernel, (_cdiv(n, 256),), x, y, out, half, n, BLOCK=256)
    with np.errstate(all="ignore"):  # far pairs overflow float16: inf % y and x % 0 are NaN
        x16, y16 = x.astype(np.float16), y.astype(np.float16)
        expected16 = np.fmod(x16, y16)
    near = np.arange(n) % 4 != 0
    return [(out, np.fmod(x, y), 0, 0), (half[near], expected16[near], 0, 0)]


@case("dot_fp32_masked_k_tail", "dot")
def _(launch, rng):
    M, N, K = 40, 36, 50
    a, b = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
    c = np.zeros((M, N), np.float32)
    launch(dot_kernel, (_cdiv(M, 32), _cdiv(N, 32)), a, b, c, M, N, K, BM=32, BN=32, BK=16, PREC="ieee")
    return [(c, a @ b, 1e-4, 1e-4)]


@case("dot_fp16", "dot")
def _(launch, rng):
    M, N, K = 32, 32, 64
    a, b = rng.standard_normal((M, K)).astype(np.float16), rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    launch(dot_kernel, (1, 1), a, b, c, M, N, K, BM=32, BN=32, BK=32, PREC="ieee")
    ref = a.astype(np.float32) @ b.astype(np.float32)
    return [(c.astype(np.float32), ref, 1e-2, 1e-2)]


@case("dot_bf16_many_tiles", "dot")
def _(launch, rng):
    # 64x64 output: 32 tensor-core tiles over 4 warps, a K loop of 2 x 64 with a masked tail.
    M, N, K = 64, 60, 120
    a = rng.standard_normal((M, K)).astype(BF16)
    b = rng.standard_normal((K, N)).astype(BF16)
    c = np.zeros((M, N), np.float32)
    launch(dot_kernel, (1, 1), a, b, c, M, N, K, BM=64, BN=64, BK=64, PREC="ieee")
    ref = a.astype(np.float32) @ b.astype(np.float32)
    return [(c, ref, 1e-3, 1e-3)]


@case("atomic_histogram")
def _(launch, rng):
    n, bins = 2000, 16
    x = rng.integers(0, 1000, n).astype(np.int32)
    hist = np.zeros(bins, np.int32)
    launch(histogram_kernel, (_cdiv(n, 256),), x, hist, n, BINS=bins, BLOCK=256)
    return [(hist, np.bincount(x % bins, minlength=bins), 0, 0)]


@case("atomic_max_min")
def _(launch, rng):
    n = 500
    x = rng.integers(-(10**6), 10**6, n).astype(np.int32)
    mx, mn = np.full(1, -(2**31), np.int32), np.full(1, 2**31 - 1, np.int32)
    launch(atomic_minmax_kernel, (_cdiv(n, 128),), x, mx, mn, n, BLOCK=128)
    return [(mx, x.max(keepdims=True), 0, 0), (mn, x.min(keepdims=True), 0, 0)]


@case("atomic_cas")
def _(launch, rng):
    flags = np.zeros(8, np.int32)
    flags[3] = 42
    out = np.zeros(8, np.int32)
    expected_flags = np.arange(1, 9, dtype=np.int32)
    expected_flags[3] = 42
    launch(atomic_cas_kernel, (8,), flags, out)
    return [(out, np.where(np.arange(8) == 3, 42, 0), 0, 0), (flags, expected_flags, 0, 0)]


@case("reduce_with_unit_dims")
def _(launch, rng):
    x = rng.standard_normal((1, 8, 4)).astype(np.float32)
    out = np.zeros(2 * 8 + 2 * 32, np.float32)
    launch(unit_dims_reduce_kernel, (1,), x, out, B=8, C=4)
    expected = np.concatenate(
        [x.max(axis=2).ravel(), x.sum(axis=2).ravel(), np.cumsum(x, axis=2).ravel(), x.ravel()]
    )
    return [(out, expected, 1e-6, 1e-6)]


@case("atomic_cas_floats")
def _(launch, rng):
    """A float CAS compares bits, as atom.cas and cmpxchg do: -0.0 does not match 0.0, a NaN matches the
    same NaN (so each float64 element, NaN and -0.0 included, is swapped for its negation). Compared
    as bits (uint32 halves: exact in check's float64)."""
    before = np.array([0.0, -0.0, 1.0, 0.0, np.nan, 0.0, -1.0, 0.0], np.float32)
    values, old = before.copy(), np.zeros(8, np.float32)
    half = np.array([1.5], np.float16)
    doubles = np.array([1.0, -0.0, np.nan, 2.0, np.inf, -3.0, 0.0, 5e-324], np.float64)
    expected_doubles = -doubles
    launch(atomic_cas_float_kernel, (1,), values, old, half, doubles, BLOCK=8)
    swapped = np.where(before.view(np.uint32) == 0, np.float32(2.5), before)
    return [(values.view(np.uint32), swapped.view(np.uint32), 0, 0), (old.view(np.uint32), before.view(np.uint32), 0, 0),
            (half, np.array([3.0], np.float16), 0, 0), (doubles.view(np.uint32), expected_doubles.view(np.uint32), 0, 0)]  # fmt: skip


def _c_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


@case("int_ops_c_semantics")
def _(launch, rng):
    B = 64
    a = rng.integers(-1000, 1000, B).astype(np.int32)
    b = rng.integers(1, 50, B).astype(np.int32) * rng.choice([-1, 1], B).astype(np.int32)
    out = np.zeros(11 * B, np.int32)
    launch(int_ops_kernel, (1,), a, b, out, BLOCK=B)
    q = _c_div(a, b)
    exp = [
        q,
        a - b * q,
        a << (b & 7),
        a >> (b & 7),
        a & b,
        a | b,
        a ^ b,
        ~a,
        -a,
        np.abs(a - b),
        np.minimum(a, b) + np.abs(a),
    ]
    return [(out.reshape(11, B), np.stack(exp).astype(np.int32), 0, 0)]


@case("uint_ops")
def _(launch, rng):
    B = 32
    a = rng.integers(0, 2**32, B, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(1, 2**32, B, dtype=np.uint64).astype(np.uint32)
    out = np.zeros(5 * B, np.uint32)
    launch(uint_ops_kernel, (1,), a, b, out, BLOCK=B)
    exp = [a // b, a % b, a >> 3, np.maximum(a, b), np.maximum(a, b)]
    return [(out.reshape(5, B), np.stack(exp), 0, 0)]


@case("where_clamp_nan")
def _(launch, rng):
    B = 16
    x = np.array(
        [np.nan, -np.inf, np.inf, 0.0, -0.5, 0.5, 0.75, 2.0, -3.0, np.nan, 1.0, -1.0, 0.25, 0.6, -2.0, 5.0],
        np.float32,
    )
    out = np.zeros(5 * B, np.float32)
    launch(nan_kernel, (1,), x, out, BLOCK=B)
    exp = [
        np.fmax(x, 0),
        np.maximum(x, 0),
        np.fmin(np.fmax(x, -1), 1),
        np.where(np.isnan(x), 123.0, x),
        np.where(x > 0.5, x, -x),
    ]
    return [(out.reshape(5, B), np.stack(exp).astype(np.float32), 0, 0)]


_CAST_TYPES = [
    np.int8,
    np.uint8,
    np.int16,
    np.int32,
    np.int64,
    np.uint32,
    np.float16,
    BF16,
    np.float32,
    np.float64,
]


@case("casts_all_pairs")
def _(launch, rng):
    n = 64
    values = np.concatenate(
        [
            np.arange(-20, 20),
            [0, 1, 2, 100, 127, 3, 7, 64, 90, 120, 15, 33, 55, 77, 99, 111, 126, 8, 16, 32, 5, 9, 11, 13],
        ]
    )
    checks = []
    for src in _CAST_TYPES:
        for dst in _CAST_TYPES:
            src_vals = values.copy()
            if (
                not np.issubdtype(src, np.signedinteger)
                and np.dtype(src) != BF16
                and not np.issubdtype(src, np.floating)
            ):
                src_vals = np.abs(src_vals)
            if (
                not np.issubdtype(dst, np.signedinteger)
                and np.dtype(dst) != BF16
                and not np.issubdtype(dst, np.floating)
            ):
                src_vals = np.abs(src_vals)
            x = src_vals.astype(src)
            out = np.zeros(n, dst)
            launch(cast_kernel, (1,), x, out, n, BLOCK=64)
            checks.append((out.astype(np.float64), x.astype(np.float64).astype(dst).astype(np.float64), 0, 0))
    return checks


@case("while_loop_collatz")
def _(launch, rng):
    x = np.array([1, 2, 3, 6, 7, 27, 97, 871], np.int32)
    steps = np.zeros(8, np.int32)
    launch(collatz_kernel, (8,), x, steps, 8)

    def collatz(v):
        s = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            s += 1
        return s

    return [(steps, np.array([collatz(int(v)) for v in x], np.int32), 0, 0)]


@case("jit_helper_call")
def _(launch, rng):
    x = rng.standard_normal(32).astype(np.float32)
    out = np.zeros(32, np.float32)
    launch(helper_kernel, (1,), x, out, BLOCK=32)
    return [(out, x * 3 - (x + 3), 1e-6, 1e-6)]


@case("user_reduce_argmax")
def _(launch, rng):
    x = rng.permutation(64).astype(np.float32)
    v, i = np.zeros(1, np.float32), np.zeros(1, np.int32)
    launch(user_reduce_kernel, (1,), x, v, i, BLOCK=64)
    return [(v, [x.max()], 0, 0), (i, [x.argmax()], 0, 0)]


@case("associative_scan_max")
def _(launch, rng):
    x = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    launch(scan_kernel, (1,), x, out, BLOCK=64)
    return [(out, np.maximum.accumulate(x), 0, 0)]


@case("shape_ops")
def _(launch, rng):
    M, N = 4, 8
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros(M * N, np.float32)
    launch(shapes_kernel, (1,), x, out, M=M, N=N)
    return [(out, 2 * x.T.reshape(-1), 1e-6, 0)]


@case("math_functions", "transcendental")
def _(launch, rng):
    B = 64
    x = rng.uniform(0.1, 3.0, B).astype(np.float32)
    out = np.zeros(10 * B, np.float32)
    launch(math_kernel, (1,), x, out, BLOCK=B)
    xd = x.astype(np.float64)
    erf = np.vectorize(math.erf)
    exp = [
        np.exp(xd),
        np.log(xd),
        np.sqrt(xd),
        np.sin(xd),
        np.cos(xd),
        erf(xd),
        1 / (1 + np.exp(-xd)),
        np.exp2(xd) + np.log2(xd),
        xd * xd + 1,
        1 / np.sqrt(xd),
    ]
    return [(out.reshape(10, B), np.stack(exp), 2e-5, 2e-6)]


@tilec.jit
def erf_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.erf(tl.load(x_ptr + offs)))


@case("erf_relative_accuracy", "transcendental")
def _(launch, rng):
    """erf from 1e-30 to 6, both signs, within a few ulp of erf itself (near 0 a formula of the form
    1 - P(t) exp(-x^2) cancels: the GPU lowering's first erf returned 0 or ~1e-7 for 1e-30), and at
    the infinities and NaN."""
    B = 256
    x = np.geomspace(1e-30, 6.0, B).astype(np.float32)
    x[::2] *= -1
    x[-4:] = [np.inf, -np.inf, np.nan, 0.0]
    out = np.zeros(B, np.float32)
    launch(erf_kernel, (1,), x, out, BLOCK=B)
    expected = np.vectorize(math.erf)(x.astype(np.float64))
    return [(out, expected, 1e-6, 0.0)]


@tilec.jit
def precise_math_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.log(x))
    tl.store(out_ptr + BLOCK + offs, tl.log2(x))
    tl.store(out_ptr + 2 * BLOCK + offs, tl.sin(x))
    tl.store(out_ptr + 3 * BLOCK + offs, tl.cos(x))


@case("log_sin_cos_relative_accuracy", "transcendental")
def _(launch, rng):
    """log, log2, sin and cos within a few ulp of the result itself where the hardware's approximate
    units are off by far more: log right next to 1, sin and cos next to multiples of pi/2 and at
    rotary-embedding angles up to 1e6 and up to 1e30; log's special values."""
    near_one = 1 + np.geomspace(1e-7, 0.4, 96)
    wide = np.geomspace(1e-30, 1e30, 64)
    pi_multiples = np.arange(1, 97) * np.pi / 2 * np.where(np.arange(96) % 2, 1, -1)
    angles = rng.uniform(-1e6, 1e6, 96)
    special = [0.0, -0.0, np.inf, -1.0, np.nan, -np.inf, 1.0, 2.0]
    x = np.concatenate([near_one, 1 / near_one, wide, pi_multiples, angles, special]).astype(np.float32)
    x = np.concatenate([x, np.linspace(-7, 7, 512 - x.size, dtype=np.float32)])
    out = np.zeros(4 * 512, np.float32)
    with np.errstate(all="ignore"):
        xd = x.astype(np.float64)
        expected = np.stack([np.log(xd), np.log2(xd), np.sin(xd), np.cos(xd)])
    launch(precise_math_kernel, (1,), x, out, BLOCK=512)
    return [(out.reshape(4, 512), expected, 4e-7, 0.0)]


@case("grid_2d_num_programs")
def _(launch, rng):
    out = np.zeros(3 * 5, np.int32)
    launch(grid2d_kernel, (5, 3), out)
    x, y = np.meshgrid(np.arange(5), np.arange(3))
    return [(out.reshape(3, 5), x * 100 + y + 15000, 0, 0)]


@case("static_range_unrolled")
def _(launch, rng):
    x = rng.standard_normal((3, 32)).astype(np.float32)
    out = np.zeros(32, np.float32)
    launch(static_loop_kernel, (1,), x, out, BLOCK=32, REPS=3)
    return [(out, x[0] + 2 * x[1] + 3 * x[2], 1e-6, 1e-6)]


@case("dynamic_if_elif")
def _(launch, rng):
    x = np.concatenate([np.full(16, 2.0), np.full(16, 0.1), np.full(16, -1.0)]).astype(np.float32)
    out = np.zeros(48, np.float32)
    launch(branch_kernel, (3,), x, out, 10.0, BLOCK=16)
    exp = np.concatenate([x[:16] * 2 + 1, x[16:32] + 2, -x[32:] + 3])
    return [(out, exp, 0, 0)]


@case("bf16_elementwise")
def _(launch, rng):
    x = rng.standard_normal(32).astype(BF16)
    y = rng.standard_normal(32).astype(BF16)
    out = np.zeros(32, BF16)
    launch(bf16_kernel, (1,), x, y, out, BLOCK=32)
    exp = (x * y + x).astype(BF16)  # bf16 * bf16 stays bf16, rounded after each op
    return [(out.astype(np.float32), exp.astype(np.float32), 0, 0)]


@case("int64_offsets_and_hints")
def _(launch, rng):
    x = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    launch(int64_offsets_kernel, (1,), x, out, 2**40, BLOCK=64)
    return [(out, x + np.arange(64, dtype=np.float32), 0, 0)]


@case("full_zeros_like_cdiv_loop")
def _(launch, rng):
    n = 70
    out = np.zeros(n, np.int32)
    launch(full_kernel, (1,), out, n, BLOCK=16)
    return [(out, 7 + np.arange(n) // 16, 0, 0)]


@case("negative_step_range")
def _(launch, rng):
    out = np.zeros(1, np.int32)
    launch(reverse_loop_kernel, (1,), out, 9)
    acc = 0
    for i in range(9, 0, -2):
        acc = acc * 10 + i
    return [(out, [acc], 0, 0)]


@case("matmul_tutorial_grouped", "dot")
def _(launch, rng):
    M, N, K = 100, 70, 90
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    grid = (_cdiv(M, 32) * _cdiv(N, 32),)
    launch(
        matmul_kernel,
        grid,
        a,
        b,
        c,
        M,
        N,
        K,
        K,
        1,
        N,
        1,
        N,
        1,
        BLOCK_M=32,
        BLOCK_N=32,
        BLOCK_K=32,
        GROUP_M=4,
        ACTIVATION="leaky_relu",
    )
    ref = a.astype(np.float32) @ b.astype(np.float32)
    return [(c.astype(np.float32), np.where(ref >= 0, ref, 0.01 * ref), 1e-2, 2e-2)]


@case("annotated_int64_scalar_and_narrow_max")
def _(launch, rng):
    out = np.zeros(8, np.int64)
    launch(wide_stride_kernel, (1,), out, 4096, 120, BLOCK=8)
    offs = np.arange(8)
    return [(out, 4096 * (1048576 + offs) + (120 + 7) + 100, 0, 0)]  # max(int8) is int32: no wrap


@case("dots_below_tensor_core_shapes")
def _(launch, rng):
    a = rng.standard_normal((16, 8)).astype(np.float32)
    b = rng.standard_normal((8, 16)).astype(np.float32)
    c, d = np.zeros((16, 16), np.float32), np.zeros((2, 2), np.float32)
    launch(small_dots_kernel, (1,), a, b, c, d, M=16, N=16, K=8)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    return [(c, ref, 2e-2, 2e-2), (d, ref[:2, :2], 2e-2, 2e-2)]  # (tf32 on tensor cores)


@case("conditional_expression_runs_one_side")
def _(launch, rng):
    x = rng.random(4, dtype=np.float32) + 1
    out = np.zeros(4, np.float32)
    # the else side reads x_ptr + far, far outside any array: a fault if it ran for these programs
    launch(one_side_kernel, (4,), x, out, 4, 1 << 40)
    return [(out, x * np.array([1, -1, 1, -1]), 0, 0)]


@case("descriptor_gather_scatter_atomic_add")
def _(launch, rng):
    x = rng.random((32, 64), dtype=np.float32)
    rows = rng.permutation(32)[:16].astype(np.int32)
    out = np.zeros((32, 64), np.float32)
    acc = np.ones((32, 64), np.float32)
    launch(descriptor_rows_kernel, (1,), out, x, rows, acc, X=32, Y=64, BX=16, BY=32)
    expected_out = np.zeros_like(out)
    expected_out[rows, 8:40] = x[rows, 8:40] + 1
    expected_acc = np.ones_like(acc)
    expected_acc[:16, 8:40] += x[rows, 8:40]
    return [(out, expected_out, 1e-6, 0), (acc, expected_acc, 1e-6, 1e-6)]


def check(results, name):
    for k, (actual, expected, rtol, atol) in enumerate(results):
        np.testing.assert_allclose(
            np.asarray(actual, dtype=np.float64),
            np.asarray(expected, dtype=np.float64),
            rtol=rtol,
            atol=atol,
            err_msg=f"{name}: output {k}",
        )
