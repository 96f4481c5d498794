"""float64 exp, exp2, log, log2, rsqrt, sin, cos, tanh and erf on GPUs (tile-expand-float64-math): the float64
arithmetic they become is checked on the host (1 ulp for exp/log over the whole range, 2 for sin/cos
with |x| < 1e6, 3 for tanh) with C's special values, and the GPU code is checked to call no vendor
library. Also tl.fma's single rounding (float64 and float32) on the host targets."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl
from tilec.language import float64_math, semantic
from tilec.language.builtins import builtin
from tilec.language.extra import libdevice


@builtin
def _expanded(x, which):
    return float64_math.FUNCTIONS["math." + getattr(which, "value", which)](semantic.to_tensor(x))


@tilec.jit
def expanded(x_ptr, out_ptr, N: tl.constexpr, WHICH: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, _expanded(tl.load(x_ptr + offs), WHICH))


def _inputs(which, n=4096):
    rng = np.random.default_rng(1)
    if which in ("sin", "cos"):
        x = rng.uniform(-1e6, 1e6, n) * 10.0 ** rng.integers(-8, 1, n)
    elif which == "erf":
        x = rng.uniform(-6.0, 6.0, n) * 10.0 ** rng.integers(-12, 1, n)
    elif which == "tanh":
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-12, 2, n)
    elif which == "exp":
        x = rng.uniform(-745.0, 709.7, n)
    elif which == "exp2":
        x = rng.uniform(-1074.0, 1023.9, n)
    else:
        x = np.abs(rng.standard_normal(n)) * 10.0 ** rng.integers(-320, 308, n)
    x[:10] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 5e-324, 1e-310, 0.5]
    return x


REFERENCES = {
    "exp": np.exp,
    "exp2": np.exp2,
    "log": np.log,
    "log2": np.log2,
    "rsqrt": lambda v: 1 / np.sqrt(v),
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "erf": np.vectorize(math.erf),
}
ULPS = {"sin": 2.0, "cos": 2.0, "tanh": 3.0, "erf": 2.0}


def _check(which, x, got):
    with np.errstate(all="ignore"):
        expected = REFERENCES[which](x)
    finite = np.isfinite(expected) & (expected != 0)
    special = ~finite
    assert np.array_equal(got[special], expected[special], equal_nan=True), (x[special], got[special])
    ulps = np.abs(got[finite] - expected[finite]) / np.spacing(np.abs(expected[finite]))
    assert ulps.max() <= ULPS.get(which, 1.0), (which, ulps.max(), x[finite][ulps.argmax()])


@pytest.mark.parametrize("which", sorted(REFERENCES))
def test_float64_math_to_a_few_ulp(target, which):
    x = _inputs(which)
    out = np.zeros_like(x)
    expanded[(1,)](x, out, N=len(x), WHICH=which)
    _check(which, x, out)


@tilec.jit
def float64_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.exp(x) + tl.log(x) + tl.exp2(x) + tl.log2(x) + tl.rsqrt(x) + tl.sigmoid(x)
    y += tl.sin(x) + tl.cos(x) + tl.math.tanh(x) + tl.erf(x)
    tl.store(out_ptr + offs, y)


@pytest.mark.parametrize("arch", ["sm_90a", "gfx942"])
def test_float64_math_compiles_for_gpus_without_vendor_libraries(arch):
    compiled = tilec.compile(float64_kernel, signature="*fp64,*fp64", constexprs={"N": 128}, target=arch)
    code = compiled.asm.get("ptx", "") + compiled.asm.get("llir", "")
    assert "__nv_" not in code and "__ocml_" not in code
    assert "call" not in compiled.asm.get("ptx", "")


@pytest.mark.gpu
@needs_gpu
def test_float64_math_on_gpu():
    import torch

    for which in sorted(REFERENCES):
        x = _inputs(which, 1024)
        out = torch.zeros(len(x), dtype=torch.float64, device="cuda")
        expanded[(1,)](torch.from_numpy(x).cuda(), out, N=len(x), WHICH=which)
        _check(which, x, out.cpu().numpy())


@tilec.jit
def fused(x_ptr, y_ptr, z_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.fma(tl.load(x_ptr + i), tl.load(y_ptr + i), tl.load(z_ptr + i)))


def test_float64_fma_with_a_product_beyond_the_largest_float(target):
    """fma rounds x * y + z once, the product exact even where it exceeds the largest float64: an
    infinite z stays, a z that brings the sum back gives a finite result (the interpreter raised an
    OverflowError there, and returned NaN for inf - inf)."""
    big = np.float64(2.0**1000)
    x = np.array([big, big, big, -big], np.float64)
    y = np.array([2.0**30, 2.0**24, 2.0**24, 2.0**24], np.float64)
    z = np.array([-np.inf, -np.finfo(np.float64).max, 0.0, np.finfo(np.float64).max], np.float64)
    out = np.zeros(4, np.float64)
    fused[(1,)](x, y, z, out, N=4)
    exact = Fraction(2) ** 1024 - Fraction(np.finfo(np.float64).max)
    assert out[0] == -np.inf and out[1] == float(exact) and out[2] == np.inf and out[3] == -float(exact)


def _nearest_float32(v: Fraction) -> np.float32:
    """v rounded to the nearest float32, ties to even, exactly (float(v) alone would round twice)."""
    near = np.float32(float(v))
    candidates = [np.nextafter(near, np.float32(-np.inf)), near, np.nextafter(near, np.float32(np.inf))]
    return min(
        candidates, key=lambda t: (abs(Fraction(float(t)) - v), int(np.float32(t).view(np.uint32)) & 1)
    )


def test_float32_fma_rounds_once(target):
    """A float32 fma is one rounding of the exact a * b + c, also where the float64 sum lands on a
    float32 midpoint (the interpreter rounded twice there: (1 + 2^-12)^2 + 2^-60 went to the even
    neighbour below)."""
    rng = np.random.default_rng(2)
    a = (1 + rng.integers(1, 2**12, 256) * 2.0**-12).astype(np.float32)  # products on midpoints ...
    b = a.copy()
    c = (rng.choice([-1, 1], 256) * 2.0 ** rng.integers(-70, -40, 256)).astype(np.float32)  # ... nudged
    a[128:] = rng.standard_normal(128).astype(np.float32)
    b[128:] = rng.standard_normal(128).astype(np.float32)
    c[128:] = rng.standard_normal(128).astype(np.float32) * np.float32(2.0**-20)
    out = np.zeros(256, np.float32)
    fused[(1,)](a, b, c, out, N=256)
    want = [
        _nearest_float32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
        for x, y, z in zip(a, b, c)
    ]
    np.testing.assert_array_equal(out, np.array(want, np.float32))


@tilec.jit
def log1p_expm1(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, libdevice.log1p(x))
    tl.store(out_ptr + N + offs, libdevice.expm1(x))


def test_float64_log1p_and_expm1_to_a_few_ulp(target):
    """float64 operands get float64 series (they had float32's, 1e-10 relative off near 0)."""
    rng = np.random.default_rng(4)
    x = np.concatenate([
        rng.uniform(-0.25, 1 / 3, 100), rng.uniform(-0.35, 0.35, 100), [1e-300, -3e-17, 2.0**-30, 0.34, 5.0, -0.9],
        rng.uniform(-0.99, 20.0, 50),
    ])  # fmt: skip
    x = np.resize(x, 256)
    out = np.zeros(512)
    log1p_expm1[(1,)](x, out, N=256)
    np.testing.assert_allclose(out[:256], np.log1p(x), rtol=1e-15, atol=0)
    np.testing.assert_allclose(out[256:], np.expm1(x), rtol=1e-15, atol=0)
