"""Derives the constants of tilec's float64 special functions with mpmath (40 digits) and writes them
as tilec/language/float64_constants.py; test_float64_special.py checks that file is what this prints.

    python tools/float64_constants.py > tilec/language/float64_constants.py

- ERFCX_CHEBYSHEV: x erfcx(x) for x >= ERFCX_LOW as a Chebyshev series in u, where t = (x - K) /
  (x + K) maps [ERFCX_LOW, inf) onto [T_LOW, 1) and u maps that onto [-1, 1). x erfcx(x) tends to
  1 / sqrt(pi), smoothly in t, so the coefficients fall geometrically (the last below 1e-19).
- ATAN_EIGHTHS: atan(k / 8) for k = 0..8 as (hi, lo) pairs, hi the nearest float64, lo the rest.
- ZETA_MINUS_ONE: zeta(k) - 1 for k = 2.., the Taylor coefficients of lgamma around 2.
- PI, LOG2_10: (hi, lo) pairs; EULER_GAMMA.
"""

from __future__ import annotations

import mpmath as mp

mp.mp.dps = 40

ERFCX_LOW, ERFCX_K, ERFCX_TERMS = 0.5, 4.0, 26
ZETA_TERMS = 30


def _chebyshev(f, n: int) -> list:
    """Coefficients c_j of f(u) ~ sum c_j T_j(u) on [-1, 1], interpolating at 2n Chebyshev nodes
    (the aliasing error of the first n is that of the rest of the series, far below float64)."""
    m = 2 * n
    nodes = [(k + mp.mpf(1) / 2) * mp.pi / m for k in range(m)]
    values = [f(mp.cos(a)) for a in nodes]
    coefficients = [2 * mp.fsum(v * mp.cos(j * a) for v, a in zip(values, nodes)) / m for j in range(n)]
    coefficients[0] /= 2
    return coefficients


def _erfcx_series() -> tuple[float, list]:
    k, low = mp.mpf(ERFCX_K), mp.mpf(ERFCX_LOW)
    t_low = (low - k) / (low + k)

    def scaled(u):
        t = t_low + (u + 1) * (1 - t_low) / 2
        if t == 1:
            return 1 / mp.sqrt(mp.pi)
        x = k * (1 + t) / (1 - t)
        return x * mp.exp(x * x) * mp.erfc(x)

    return float(t_low), [float(c) for c in _chebyshev(scaled, ERFCX_TERMS)]


def _pair(v) -> tuple[float, float]:
    hi = float(v)
    return hi, float(v - mp.mpf(hi))


def render() -> str:
    t_low, erfcx = _erfcx_series()
    atan = [_pair(mp.atan(mp.mpf(k) / 8)) for k in range(9)]
    zeta = [float(mp.zeta(k) - 1) for k in range(2, 2 + ZETA_TERMS)]
    lines = [
        '"""Constants of the float64 special functions, derived with mpmath by tools/float64_constants.py',
        '(which documents them); generated, do not edit."""',
        "",
        f"ERFCX_LOW = {ERFCX_LOW!r}",
        f"ERFCX_K = {ERFCX_K!r}",
        f"ERFCX_T_LOW = {t_low!r}",
        "ERFCX_CHEBYSHEV = (",
        *[f"    {c!r}," for c in erfcx],
        ")",
        "ATAN_EIGHTHS = (",
        *[f"    ({hi!r}, {lo!r})," for hi, lo in atan],
        ")",
        "ZETA_MINUS_ONE = (",
        *[f"    {z!r},  # k = {k}" for k, z in enumerate(zeta, start=2)],
        ")",
        f"PI = {_pair(mp.pi)!r}",
        f"LOG2_10 = {_pair(mp.log(10, 2))!r}",
        f"EULER_GAMMA = {float(mp.euler)!r}",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(render(), end="")
