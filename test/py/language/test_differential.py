"""Differential tests: seeded random reductions, scans and broadcasts over 3-D blocks whose
dimensions are often 1 (shapes where lowering bugs hid: a 1x8x4 block reduced along its last axis did
not compile on the CPU target), run on both host targets and compared with NumPy; and signed zeros
in NaN-propagating min / max."""

from __future__ import annotations

import random

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def offsets_3d(A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    """The row-major offsets of an A x B x C block."""
    return (
        tl.arange(0, A)[:, None, None] * B * C
        + tl.arange(0, B)[None, :, None] * C
        + tl.arange(0, C)[None, None, :]
    )


@tilec.jit
def store_3d(out_ptr, r):
    """Stores the 3-D block r row-major (its shape known at compile time)."""
    RA: tl.constexpr = r.shape[0]
    RB: tl.constexpr = r.shape[1]
    RC: tl.constexpr = r.shape[2]
    tl.store(out_ptr + offsets_3d(RA, RB, RC), r)


@tilec.jit
def reduce_3d(
    x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr, OP: tl.constexpr
):
    x = tl.load(x_ptr + offsets_3d(A, B, C))
    if OP == "sum":
        r = tl.sum(x, axis=AXIS, keep_dims=True)
    elif OP == "max":
        r = tl.max(x, axis=AXIS, keep_dims=True)
    elif OP == "argmin":
        r = tl.argmin(x, axis=AXIS, keep_dims=True)
    elif OP == "cumsum":
        r = tl.cumsum(x, axis=AXIS)
    else:
        r = tl.cumsum(x, axis=AXIS, reverse=True)
    store_3d(out_ptr, r.to(tl.float32))


def _reduce_reference(x, op, axis):
    if op == "sum":
        return x.sum(axis=axis, keepdims=True)
    if op == "max":
        return x.max(axis=axis, keepdims=True)
    if op == "argmin":
        return np.argmin(x, axis=axis, keepdims=True)
    if op == "cumsum":
        return np.cumsum(x, axis=axis)
    return np.flip(np.cumsum(np.flip(x, axis), axis=axis), axis)


def _reduce_cases(count=24, seed=11):
    rng = random.Random(seed)
    cases = [((1, 8, 4), "max", 2), ((1, 4, 4), "sum", 2), ((8, 1, 4), "cumsum", 2)]  # the ones that failed
    while len(cases) < count:
        shape = tuple(rng.choice([1, 1, 2, 4, 8]) for _ in range(3))
        cases.append((shape, rng.choice(["sum", "max", "argmin", "cumsum", "rcumsum"]), rng.randint(0, 2)))
    return cases


@pytest.mark.parametrize("shape,op,axis", _reduce_cases())
def test_reductions_and_scans_of_blocks_with_unit_dimensions(target, shape, op, axis):
    x = np.random.default_rng(sum(shape) * 7 + axis).permutation(int(np.prod(shape))).astype(np.float32)
    x = x.reshape(shape) - 5.0  # distinct values: argmin has one answer
    expected = _reduce_reference(x, op, axis).astype(np.float32)
    out = np.zeros(expected.size, np.float32)
    reduce_3d[(1,)](x, out, A=shape[0], B=shape[1], C=shape[2], AXIS=axis, OP=op)
    np.testing.assert_allclose(out, expected.ravel(), rtol=1e-6, atol=1e-6)


@tilec.jit
def broadcast_3d(
    x_ptr, y_ptr, out_ptr,
    XA: tl.constexpr, XB: tl.constexpr, XC: tl.constexpr, YA: tl.constexpr, YB: tl.constexpr, YC: tl.constexpr,
    AXIS: tl.constexpr,
):  # fmt: skip
    x = tl.load(x_ptr + offsets_3d(XA, XB, XC))
    y = tl.load(y_ptr + offsets_3d(YA, YB, YC))
    r = tl.max(x + y, axis=AXIS, keep_dims=True) - tl.where(x > y, x, y) * 2
    store_3d(out_ptr, r)


def _broadcast_cases(count=12, seed=5):
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        full = [rng.choice([1, 2, 4, 8]) for _ in range(3)]
        xs = tuple(d if rng.random() < 0.6 else 1 for d in full)
        ys = tuple(d if (rng.random() < 0.6 or xs[i] == 1) else 1 for i, d in enumerate(full))
        cases.append((xs, ys, rng.randint(0, 2)))
    return cases


@pytest.mark.parametrize("xs,ys,axis", _broadcast_cases())
def test_broadcasts_between_blocks_with_unit_dimensions(target, xs, ys, axis):
    rng = np.random.default_rng(sum(xs) + 10 * sum(ys) + axis)
    x, y = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ys).astype(np.float32)
    expected = (x + y).max(axis=axis, keepdims=True) - np.where(x > y, x, y) * 2
    out = np.zeros(expected.size, np.float32)
    broadcast_3d[(1,)](x, y, out, XA=xs[0], XB=xs[1], XC=xs[2], YA=ys[0], YB=ys[1], YC=ys[2], AXIS=axis)
    np.testing.assert_allclose(out, expected.ravel(), rtol=1e-5, atol=1e-5)


@tilec.jit
def ieee_min_max(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x, y = tl.load(x_ptr + i), tl.load(y_ptr + i)
    tl.store(out_ptr + i, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + N + i, tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL))


def test_nan_propagating_min_max_order_signed_zeros(target):
    """propagate_nan=ALL is IEEE 754-2019 maximum / minimum: NaN wins and -0 < +0 (the interpreter's
    maximum of -0 and +0 was -0; the CPU target's +0)."""
    x = np.array([0.0, -0.0, -0.0, 0.0, np.nan, 1.0, -2.0, np.inf], np.float32)
    y = np.array([-0.0, 0.0, -0.0, 0.0, 1.0, np.nan, 3.0, -np.inf], np.float32)
    out = np.zeros(16, np.float32)
    ieee_min_max[(1,)](x, y, out, N=8)
    expected_max = np.array([0.0, 0.0, -0.0, 0.0, np.nan, np.nan, 3.0, np.inf], np.float32)
    expected_min = np.array([-0.0, -0.0, -0.0, 0.0, np.nan, np.nan, -2.0, -np.inf], np.float32)
    np.testing.assert_array_equal(out[:8], expected_max)
    np.testing.assert_array_equal(out[8:], expected_min)
    assert (np.signbit(out[:4]) == np.signbit(expected_max[:4])).all()
    assert (np.signbit(out[8:12]) == np.signbit(expected_min[:4])).all()
