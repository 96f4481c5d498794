"""Pointer tiles a loop advances by one scalar (tile-cpu-pointer-increments on the CPU target): loads
through them, a run-time step, masks, and the pointers' value after the loop, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def column_sums(x_ptr, out_ptr, tail_ptr, rows, stride, BLOCK: tl.constexpr):
    """Sums BLOCK columns of x over `rows` rows, advancing the pointers by the run-time stride; then
    stores the row the pointers reached after the loop (row `rows`, when it exists)."""
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ptrs = x_ptr + cols
    other = x_ptr + cols  # advanced by a constant: two rows at a time
    acc = tl.zeros((BLOCK,), tl.float32)
    for r in range(0, rows, 2):
        acc += tl.load(ptrs, mask=cols < stride, other=0.0)
        acc += tl.load(other + stride, mask=(cols < stride) & (r + 1 < rows), other=0.0)
        ptrs += 2 * stride
        other += 64
    tl.store(out_ptr + cols, acc, mask=cols < stride)
    tl.store(tail_ptr + cols, tl.load(ptrs, mask=cols < stride, other=-1.0), mask=cols < stride)


@pytest.mark.parametrize("rows", [0, 1, 6, 7])
def test_advanced_pointers(target, rows):
    width = 32  # the stride, so that `other += 64` walks two rows, as ptrs does
    x = np.random.default_rng(rows).standard_normal((rows + 3, width)).astype(np.float32)
    out = np.full(width, np.nan, np.float32)
    tail = np.full(width, np.nan, np.float32)
    column_sums[(2,)](x, out, tail, rows, width, BLOCK=16)
    np.testing.assert_allclose(out, x[:rows].sum(0), rtol=1e-5, atol=1e-5)
    reached = 2 * -(-rows // 2)  # the loop's steps of two rows
    np.testing.assert_array_equal(tail, x[reached])


@tilec.jit
def shifted_sums(x_ptr, out_ptr, steps, BLOCK: tl.constexpr, SHIFT: tl.constexpr):
    """`offs` is assigned in the loop only under a constexpr branch (Triton's attention backward has
    this shape): with SHIFT off the loop yields it unchanged next to the advanced pointers."""
    offs = tl.arange(0, BLOCK)
    ptrs = x_ptr + offs
    acc = tl.zeros((BLOCK,), tl.float32)
    for _ in range(steps):
        if SHIFT:
            offs = offs + 1
        acc += tl.load(ptrs) + offs.to(tl.float32)
        ptrs += BLOCK
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


@pytest.mark.parametrize("shift", [False, True])
def test_value_carried_unchanged_beside_advanced_pointers(target, shift):
    steps, block = 5, 16
    x = np.random.default_rng(3).standard_normal((steps, block)).astype(np.float32)
    out = np.zeros(block, np.float32)
    shifted_sums[(1,)](x, out, steps, BLOCK=block, SHIFT=shift)
    offsets = np.arange(block)[None, :] + (np.arange(1, steps + 1)[:, None] if shift else 0)
    np.testing.assert_allclose(out, (x + offsets).sum(0), rtol=1e-5, atol=1e-5)
