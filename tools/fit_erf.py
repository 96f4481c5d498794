"""Fits the two polynomials of the GPU lowering's erf (convert_tile_to_gpu/math_intrinsics.py, _erf) and prints them
with their largest error in f32 ulp (fma-evaluated in f32, as on the GPU):

    |x| < 1:  erf(x) = x Q(x^2)                    Q of degree 5, relative to erf itself
    |x| >= 1: erf(x) = 1 - 2^P(min(|x|, 3.92))     P of degree 8 fitted to log2(erfc); past 3.92
                                                   erf rounds to 1 in f32

Least squares on Chebyshev nodes against float64 erf/erfc (accurate far below an f32 ulp).

    python tools/fit_erf.py
"""

from __future__ import annotations

import math

import numpy as np

SPLIT, CLAMP, NEAR_DEGREE, FAR_DEGREE = 1.0, 3.92, 5, 8


def _nodes(lo: float, hi: float, n: int) -> np.ndarray:
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos((2 * k + 1) * np.pi / (2 * n))


def fit() -> tuple[list, list]:
    z = _nodes(0.0, SPLIT * SPLIT, 400)
    x = np.sqrt(z)
    ratio = np.array([math.erf(v) / v if v > 0 else 2 / math.sqrt(math.pi) for v in x])
    vander = np.vander(z, NEAR_DEGREE + 1, increasing=True)
    near, *_ = np.linalg.lstsq(vander / ratio[:, None], np.ones_like(ratio), rcond=None)
    t = _nodes(SPLIT, CLAMP, 600)
    vander = np.vander(t, FAR_DEGREE + 1, increasing=True)
    far, *_ = np.linalg.lstsq(vander, np.log2([math.erfc(v) for v in t]), rcond=None)
    return [float(np.float32(c)) for c in near], [float(np.float32(c)) for c in far]


def erf_f32(x: np.ndarray, near: list, far: list) -> np.ndarray:
    def horner(coefs, v):
        p = np.full_like(v, np.float32(coefs[-1]))
        for c in reversed(coefs[:-1]):
            p = (p.astype(np.float64) * v + c).astype(np.float32)  # one rounding: an fma
        return p

    x = x.astype(np.float32)
    ax = np.abs(x)
    inner = (horner(near, (x * x).astype(np.float32)) * x).astype(np.float32)
    tail = np.exp2(horner(far, np.minimum(ax, np.float32(CLAMP))).astype(np.float64)).astype(np.float32)
    outer = np.copysign((np.float32(1) - tail).astype(np.float32), x)
    return np.where(ax < SPLIT, inner, outer)


def main() -> None:
    near, far = fit()
    x = np.concatenate([np.geomspace(1e-30, 1, 20000), np.linspace(0, 6, 40000)]).astype(np.float32)
    exact = np.array([math.erf(v) for v in x.astype(np.float64)])
    ulp = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    error = np.abs(erf_f32(x, near, far).astype(np.float64) - exact) / ulp
    print("near =", near)
    print("far =", far)
    print(f"largest error: {error.max():.2f} ulp")


if __name__ == "__main__":
    main()
