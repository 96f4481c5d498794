"""libdevice's special functions on float64 operands, from float64 arithmetic alone: the same code on
every target (GPUs have no float64 instructions for any of them), so the host tests check what the
GPUs run. libdevice.py sends float64 operands here; float32 ones keep their float32 algorithms.

Methods (constants derived with mpmath by tools/float64_constants.py):
- atan: |x| > 1 by pi/2 - atan(1/|x|); then k = round(8 a), atan(k/8) (double-double) + atan(u), u =
  (a - k/8) / (1 + a k/8), |u| <= 1/16, by its Taylor series. atan2 / asin / acos: that core on a
  quotient in [0, 1] (asin x = atan(x / sqrt((1 - x)(1 + x)))), the quadrant added with pi in two parts.
- tan: one reduction by pi/2 (float64_math's, accurate for |x| < 2^20 pi/2), sin r / cos r or
  -cos r / sin r by quadrant. sinpi / cospi: x = n/2 + r exactly, pi r as a double-double.
- sinh, cosh: expm1 / exp; from |x| = 22 on (e^(|x|/2) / 2) e^(|x|/2), finite up to the largest results.
  asinh, acosh, atanh: log1p forms (no cancellation near 0), log(2x) for huge arguments.
- cbrt: 2^(log2|x| / 3), then a Newton step (quadratic: 1e-13 -> below an ulp).
- hypot, norm3d, norm4d (and their reciprocals): scaled by a power of two (exact) so that no square
  over- or underflows, a sum of squares by fmas, one square root.
- exp10: x log2(10) as an exact product plus a correction (fma), 2^frac by float64_math's series.
- erfinv, erfcinv, normcdfinv: the float32 estimate, then Newton's method on erf (centre) or on
  log erfc (tails, no underflow down to the smallest subnormal), with float64_math's erf / erfcx.
- lgamma, tgamma: lgamma's Taylor series around 2 (coefficients zeta(k) - 1) on [1.5, 2.5), shifted
  there by Gamma(x + 1) = x Gamma(x) (a product of at most 8 factors); Stirling's series from 10 on,
  for tgamma with (x - 1/2) log x - x as a double-double (so e^that keeps its precision up to 171);
  the reflection formula below -1/2.
- ilogb, logb, nextafter, ldexp: bit manipulation, exact.
Accuracy against mpmath (test_float64_special.py): within 2-4 ulp for most; see the tests' table.
"""

from __future__ import annotations

import math as _math

from tilec._lazy import lazy_module

from . import core, float64_math, semantic
from . import float64_constants as _k

_math_d = lazy_module("mlir.dialects.math")

_INF = float("inf")
_HALF_PI = (_k.PI[0] / 2, _k.PI[1] / 2)


def _full(value, like):
    return semantic.broadcast_to(semantic.to_tensor(value, core.float64), like.shape)


def _div(a, b):
    return semantic.truediv(a, b, precise=True)


def _sqrt(x):
    return core.tensor(_math_d.sqrt(x.handle), core.float64, x.shape)


def _copysign(magnitude, sign_of):
    return core.tensor(_math_d.copysign(magnitude.handle, sign_of.handle), core.float64, magnitude.shape)


def _is_nan(x):
    return semantic.compare("ne", x, x)


def _nan_if_nan(x, r):
    return semantic.where(_is_nan(x), float("nan"), r)


def _horner(x, coefficients):
    return float64_math._horner(x, coefficients)


def _negative(x):
    """x's sign bit (so -0.0 too)."""
    return semantic.compare("lt", semantic.cast(x, core.int64, bitcast=True), 0)


# -- inverse trigonometric functions -------------------------------------------------------------------

_ATAN_SERIES = [(-1.0) ** n / (2 * n + 1) for n in range(1, 9)]  # |u| <= 1/16: u^17 / 17 < 1e-21 u


def _atan_unit(a):
    """atan(a) for a in [0, 1] as (hi, lo): atan(k/8) + atan(u), u = (a - k/8) / (1 + a k/8), k = round(8a);
    a - k/8 is exact (Sterbenz), |u| <= 1/16."""
    k = float64_math._floor(semantic.add(semantic.mul(a, 8.0), 0.5))
    c = semantic.mul(k, 0.125)
    u = _div(semantic.sub(a, c), semantic.add(semantic.mul(a, c), 1.0))
    u2 = semantic.mul(u, u)
    series = semantic.add(u, semantic.mul(semantic.mul(u, u2), _horner(u2, _ATAN_SERIES)))
    hi, lo = _full(0.0, a), _full(0.0, a)
    for j, (h, low) in enumerate(_k.ATAN_EIGHTHS[1:], start=1):
        at = semantic.compare("eq", k, float(j))
        hi, lo = semantic.where(at, h, hi), semantic.where(at, low, lo)
    return hi, semantic.add(lo, series)


def _angle(num, den):
    """atan(num / den) in [0, pi/2] for num, den >= 0 (not both 0 or inf: callers settle those)."""
    steep = semantic.compare("gt", num, den)
    ratio = _div(semantic.where(steep, den, num), semantic.where(steep, num, den))
    hi, lo = _atan_unit(ratio)
    flat = semantic.add(hi, lo)
    upright = semantic.add(semantic.sub(_HALF_PI[0], hi), semantic.sub(_HALF_PI[1], lo))
    return semantic.where(steep, upright, flat)


def _supplement(angle):
    """pi - angle, pi taken in two parts."""
    return semantic.add(semantic.sub(_k.PI[0], angle), _k.PI[1])


def atan(x):
    a = semantic.abs_(x)
    r = _angle(
        semantic.where(semantic.compare("eq", a, _INF), 1.0, a),
        semantic.where(semantic.compare("eq", a, _INF), 0.0, 1.0),
    )
    return _nan_if_nan(x, _copysign(r, x))


def atan2(y, x):
    """C's atan2, signed zeros and infinities included."""
    ax, ay = semantic.abs_(x), semantic.abs_(y)
    both_zero = semantic.logical_and(semantic.compare("eq", ax, 0.0), semantic.compare("eq", ay, 0.0))
    both_inf = semantic.logical_and(semantic.compare("eq", ax, _INF), semantic.compare("eq", ay, _INF))
    same = semantic.logical_or(both_zero, both_inf)
    num = semantic.where(both_zero, 0.0, semantic.where(both_inf, 1.0, ay))
    den = semantic.where(same, 1.0, ax)
    angle = _angle(num, den)  # both infinite: pi/4
    angle = semantic.where(_negative(x), _supplement(angle), angle)
    return _nan_if_nan(semantic.add(x, y), _copysign(angle, y))


def _cosine_of_asin(a):
    """sqrt(1 - a^2) for a in [0, 1] (NaN beyond): 1 - a^2 by an fma below 1/2, (1 - a)(1 + a) above,
    where 1 - a is exact."""
    small = semantic.fma(semantic.neg(a), a, _full(1.0, a))
    large = semantic.mul(semantic.sub(1.0, a), semantic.add(a, 1.0))
    return _sqrt(semantic.where(semantic.compare("lt", a, 0.5), small, large))


def asin(x):
    a = semantic.abs_(x)
    return _nan_if_nan(x, _copysign(_angle(a, _cosine_of_asin(a)), x))


def acos(x):
    a = semantic.abs_(x)
    angle = _angle(_cosine_of_asin(a), a)
    return _nan_if_nan(x, semantic.where(semantic.compare("lt", x, 0.0), _supplement(angle), angle))


# -- tan, sinpi, cospi ---------------------------------------------------------------------------------


def tan(x):
    finite = semantic.compare("lt", semantic.abs_(x), _INF)
    s, c, q = float64_math._sin_cos_reduced(semantic.where(finite, x, 0.0))
    odd = semantic.compare("ne", semantic.and_(q, 1), 0)
    r = semantic.where(odd, semantic.neg(_div(c, s)), _div(s, c))
    return semantic.where(finite, r, float("nan"))


_SIN_SERIES = [(-1.0) ** k / _math.factorial(2 * k + 1) for k in range(1, 12)]
_COS_SERIES = [(-1.0) ** k / _math.factorial(2 * k) for k in range(12)]


def _pi_turns(x, quarter_turn: int):
    """sin(pi x) (quarter_turn 0) or cos(pi x) (1): x = n/2 + r with n = roundeven(2x), r exact in
    [-1/4, 1/4]; pi r as hi + lo; the quadrant n + quarter_turn picks +-sin or +-cos of pi r."""
    finite = semantic.compare("lt", semantic.abs_(x), _INF)
    # from 2^53 on every float64 is an even integer: +-0 keeps x's sign for sinpi
    v = semantic.where(semantic.compare("lt", semantic.abs_(x), 2.0**53), x, semantic.mul(x, 0.0))
    v = semantic.where(finite, v, 0.0)
    n = core.tensor(_math_d.roundeven(semantic.mul(v, 2.0).handle), core.float64, x.shape)
    r = semantic.sub(v, semantic.mul(n, 0.5))
    hi, lo = float64_math.two_product(r, _k.PI[0])
    lo = semantic.add(lo, semantic.mul(r, _k.PI[1]))
    h2 = semantic.mul(hi, hi)
    sin_r = semantic.add(hi, semantic.add(lo, semantic.mul(semantic.mul(hi, h2), _horner(h2, _SIN_SERIES))))
    cos_r = _horner(h2, _COS_SERIES)
    quadrant = semantic.and_(semantic.add(semantic.cast(n, core.int64), quarter_turn), 3)
    r = float64_math._select_quadrant(quadrant, [sin_r, cos_r, semantic.neg(sin_r), semantic.neg(cos_r)])
    if quarter_turn == 0:  # sinpi(-0) = -0 (r = -0 - -0 came out +0)
        r = semantic.where(semantic.compare("eq", x, 0.0), x, r)
    return semantic.where(finite, r, float("nan"))


def sinpi(x):
    return _pi_turns(x, 0)


def cospi(x):
    return _pi_turns(x, 1)


# -- hyperbolic functions and their inverses ------------------------------------------------------------


def _half_exp_squared(a):
    """e^a / 2 as (e^(a/2) / 2) e^(a/2): finite wherever the result is (a/2 is exact)."""
    h = float64_math.exp(semantic.mul(a, 0.5))
    return semantic.mul(semantic.mul(h, 0.5), h)


def sinh(x):
    a = semantic.abs_(x)
    near = semantic.compare("lt", a, 22.0)
    e = float64_math._expm1(semantic.minimum(a, 22.0))
    small = semantic.mul(semantic.add(e, _div(e, semantic.add(e, 1.0))), 0.5)
    r = semantic.where(near, small, _half_exp_squared(a))
    return _nan_if_nan(x, _copysign(r, x))


def cosh(x):
    a = semantic.abs_(x)
    e = float64_math.exp(semantic.minimum(a, 22.0))
    small = semantic.mul(semantic.add(e, _div(1.0, e)), 0.5)
    return _nan_if_nan(x, semantic.where(semantic.compare("lt", a, 22.0), small, _half_exp_squared(a)))


_LOG1P_SERIES = [1.0 / (2 * k + 1) for k in range(11)]


def log1p(v):
    """log(1 + v): 2 atanh(v / (2 + v)) by its series for 1 + v in [0.75, 1.33], elsewhere log(u) +
    (v - (u - 1)) / u with u = 1 + v rounded (the quotient restores what the rounding lost)."""
    s = _div(v, semantic.add(v, 2.0))
    series = semantic.mul(semantic.mul(s, 2.0), _horner(semantic.mul(s, s), _LOG1P_SERIES))
    u = semantic.add(v, 1.0)
    lost = _div(semantic.sub(v, semantic.sub(u, 1.0)), u)
    ordinary = semantic.logical_and(semantic.compare("gt", u, 0.0), semantic.compare("lt", u, _INF))
    rest = semantic.add(float64_math.log(u), semantic.where(ordinary, lost, 0.0))  # -inf at -1
    near = semantic.logical_and(semantic.compare("ge", v, -0.25), semantic.compare("le", v, 1 / 3))
    return _nan_if_nan(v, semantic.where(near, series, rest))


_LN2 = _math.log(2.0)
_HUGE = 2.0**28  # from here 1 + x^2 rounds to x^2: log(2x) is exact to an ulp


def asinh(x):
    a = semantic.abs_(x)
    huge = semantic.compare("ge", a, _HUGE)
    safe = semantic.where(huge, 1.0, a)
    a2 = semantic.mul(safe, safe)
    small = log1p(semantic.add(safe, _div(a2, semantic.add(_sqrt(semantic.add(a2, 1.0)), 1.0))))
    large = semantic.add(float64_math.log(a), _LN2)
    return _nan_if_nan(x, _copysign(semantic.where(huge, large, small), x))


def acosh(x):
    huge = semantic.compare("ge", x, _HUGE)
    u = semantic.sub(semantic.where(huge, 2.0, x), 1.0)
    small = log1p(semantic.add(u, _sqrt(semantic.fma(u, u, semantic.mul(u, 2.0)))))
    r = semantic.where(huge, semantic.add(float64_math.log(x), _LN2), small)
    return _nan_if_nan(x, semantic.where(semantic.compare("lt", x, 1.0), float("nan"), r))


def atanh(x):
    """log1p(2a + 2a^2 / (1 - a)) / 2 below 1/2, log1p(2a / (1 - a)) / 2 above (1 - a exact there)."""
    a = semantic.abs_(x)
    twice = semantic.mul(a, 2.0)
    below = semantic.add(twice, _div(semantic.mul(twice, a), semantic.sub(1.0, a)))
    above = _div(twice, semantic.sub(1.0, a))
    r = semantic.mul(log1p(semantic.where(semantic.compare("lt", a, 0.5), below, above)), 0.5)
    r = semantic.where(semantic.compare("gt", a, 1.0), float("nan"), r)
    return _nan_if_nan(x, _copysign(r, x))


# -- roots, norms, powers of ten ------------------------------------------------------------------------


def cbrt(x):
    a = semantic.abs_(x)
    ordinary = semantic.logical_and(semantic.compare("gt", a, 0.0), semantic.compare("lt", a, _INF))
    safe = semantic.where(ordinary, a, 1.0)
    e, log_m = float64_math.log_parts(safe)
    y = float64_math.exp2(semantic.mul(semantic.add(e, semantic.mul(log_m, 1.0 / _LN2)), 1.0 / 3.0))
    y = semantic.add(y, semantic.mul(semantic.sub(_div(safe, semantic.mul(y, y)), y), 1.0 / 3.0))
    return _copysign(semantic.where(ordinary, y, a), x)  # 0, inf and NaN themselves


def _exponent_field(m):
    return semantic.and_(semantic.shr(semantic.cast(m, core.int64, bitcast=True), 52), 0x7FF)


def _from_exponent_field(field):
    return semantic.cast(semantic.shl(field, 52), core.float64, bitcast=True)


def norm(values, reciprocal: bool = False):
    """sqrt of the sum of squares (its reciprocal): the largest |value| scaled to [1, 2) by an exact power
    of two (clamped to the normal range), so no square over- or underflows; inf wins over NaN as in C."""
    magnitudes = [semantic.abs_(v) for v in values]
    m = magnitudes[0]
    for v in magnitudes[1:]:
        m = semantic.maximum(m, v)
    field = semantic.minimum(semantic.maximum(_exponent_field(m), 1), 2045)
    down, up = _from_exponent_field(semantic.sub(2046, field)), _from_exponent_field(field)
    total = None
    for v in magnitudes:
        s = semantic.mul(v, down)
        total = semantic.mul(s, s) if total is None else semantic.fma(s, s, total)
    r = semantic.mul(_sqrt(total), up)
    if reciprocal:
        r = _div(1.0, r)
    nan = infinite = None
    for v in magnitudes:
        is_nan, is_inf = _is_nan(v), semantic.compare("eq", v, _INF)
        nan = is_nan if nan is None else semantic.logical_or(nan, is_nan)
        infinite = is_inf if infinite is None else semantic.logical_or(infinite, is_inf)
    r = semantic.where(nan, float("nan"), r)
    return semantic.where(infinite, 0.0 if reciprocal else _INF, r)


def exp10(x):
    """10^x = 2^(x log2 10): x log2_10_hi exactly as hi + lo (fma), n = round(hi), 2^((hi - n) + lo +
    x log2_10_lo) by float64_math's series (the argument stays exact to ~1e-17 even where x log2 10 is
    near 1000, which a rounded product would not), times 2^n exactly."""
    v = semantic.minimum(semantic.maximum(x, -340.0), 320.0)  # past these: 0 and inf
    v = semantic.where(_is_nan(x), 0.0, v)
    hi, lo = float64_math.two_product(v, _k.LOG2_10[0])
    n = float64_math._floor(semantic.add(hi, 0.5))
    frac = semantic.add(semantic.sub(hi, n), semantic.add(lo, semantic.mul(v, _k.LOG2_10[1])))
    r = float64_math._exp_reduced(semantic.mul(frac, _LN2), n)
    return _nan_if_nan(x, r)


def normcdf(x):
    """erfc(-x / sqrt 2) / 2; where -x / sqrt 2 >= 1/2, e^(-x^2 / 2) erfcx(-x / sqrt 2) / 2 with x^2 exact
    (a rounded -x / sqrt 2 squared would cost 1e-13 relative far in the tail)."""
    z = semantic.mul(x, -1.0 / _math.sqrt(2.0))
    tail = semantic.mul(
        float64_math.exp_of_square(x, -0.5), float64_math.erfcx_from_half(semantic.maximum(z, 0.5))
    )
    near = float64_math.erfc(semantic.minimum(z, 0.5))
    return _nan_if_nan(x, semantic.mul(semantic.where(semantic.compare("ge", z, 0.5), tail, near), 0.5))


# -- erfinv, erfcinv, normcdfinv ----------------------------------------------------------------------

_TWO_OVER_SQRT_PI = 2.0 / _math.sqrt(_math.pi)


def _newton_on_erf(z, y):
    """One Newton step for erf(z) = y (|y| <= 1/2): z - (erf(z) - y) e^(z^2) sqrt(pi) / 2."""
    residual = semantic.sub(float64_math.erf(z), y)
    step = semantic.mul(semantic.mul(residual, float64_math.exp_of_square(z, 1.0)), 1.0 / _TWO_OVER_SQRT_PI)
    return semantic.sub(z, step)


def _newton_on_log_erfc(z, log_v):
    """One Newton step for log erfc(z) = log v (z > 0): log erfc(z) = log erfcx(z) - z^2 (no underflow,
    z^2 as an exact hi + lo), d/dz log erfc(z) = -2 / (sqrt(pi) erfcx(z))."""
    scaled = float64_math.erfcx(z)
    hi, lo = float64_math.two_product(z, z)
    residual = semantic.sub(semantic.sub(semantic.sub(float64_math.log(scaled), log_v), hi), lo)
    return semantic.add(z, semantic.mul(semantic.mul(residual, scaled), 1.0 / _TWO_OVER_SQRT_PI))


def inverse_erf(centre, y, tail_v, negative_tail, estimate):
    """z with erf(z) = y where `centre` (|y| <= 1/2), else z with erfc(|z|) = tail_v (0 < tail_v <= 1/2,
    z negative where `negative_tail`), from `estimate` (float32-accurate: 3e-7): two Newton steps on erf
    in the centre, two on log erfc in the tails (quadratic: 3e-7 -> 1e-13 -> an ulp). Callers settle
    the special values."""
    z = semantic.where(centre, estimate, 0.0)
    for _ in range(2):
        z = _newton_on_erf(z, y)
    inside = semantic.logical_and(semantic.compare("gt", tail_v, 0.0), semantic.logical_not(centre))
    log_v = float64_math.log(semantic.where(inside, tail_v, 0.25))
    t = semantic.where(inside, semantic.abs_(estimate), 1.0)
    for _ in range(2):
        t = _newton_on_log_erfc(t, log_v)
    t = semantic.where(negative_tail, semantic.neg(t), t)
    return semantic.where(centre, z, t)


# -- lgamma, tgamma -----------------------------------------------------------------------------------

# lgamma(2 + y) = (1 - gamma) y + sum_k (-1)^k (zeta(k) - 1) / k y^k: |y| <= 1/2, the k-th term below 4^-k / k
_LGAMMA_AT_2 = [0.0, 1.0 - _k.EULER_GAMMA] + [
    (-1.0) ** k * z / k for k, z in enumerate(_k.ZETA_MINUS_ONE, start=2)
]
# Stirling: lgamma(x) = (x - 1/2) log x - x + log(2 pi) / 2 + sum B_2k / (2k (2k - 1) x^(2k - 1))
_STIRLING = [1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400]
_HALF_LOG_2PI = 0.5 * _math.log(2 * _math.pi)
_STIRLING_FROM = 10.0


def _near_two(y):
    """lgamma(2 + y) for |y| <= 1/2."""
    return _horner(y, _LGAMMA_AT_2)


def _shifted(x):
    """(y, the product P) for x in [1.5, 10): x - n = 2 + y with y in [-1/2, 1/2), P = (x - 1) ...
    (x - n) = Gamma(x) / Gamma(2 + y) (n <= 8; each x - i exact)."""
    n = float64_math._floor(semantic.sub(x, 1.5))
    product = _full(1.0, x)
    for i in range(1, 9):
        factor = semantic.where(semantic.compare("ge", n, float(i)), semantic.sub(x, float(i)), 1.0)
        product = semantic.mul(product, factor)
    return semantic.sub(semantic.sub(x, n), 2.0), product


def _stirling_tail(x):
    inverse = _div(1.0, x)
    return semantic.mul(inverse, _horner(semantic.mul(inverse, inverse), _STIRLING))


def _log_double(x):
    """log x (x > 0 finite) as hi + lo, to ~1e-19 relative: x = m 2^e, log m = 2 atanh(s), s = (m - 1) /
    (m + 1) carried as a double-double (its leading term 2s is most of log m; the series' rest is
    small enough for one rounding)."""
    e, _ = float64_math.log_parts(x)
    m = semantic.mul(x, _from_exponent_field(semantic.sub(1023, semantic.cast(e, core.int64))))
    f = semantic.sub(m, 1.0)  # exact: m in [sqrt(1/2), sqrt(2))
    d = semantic.add(m, 1.0)
    d_lo = semantic.sub(m, semantic.sub(d, 1.0))  # m + 1 = d + d_lo exactly (d - 1: Sterbenz)
    s = _div(f, d)
    s_lo = _div(semantic.sub(semantic.fma(semantic.neg(s), d, f), semantic.mul(s, d_lo)), d)
    s2 = semantic.mul(s, s)
    rest = semantic.mul(semantic.mul(s, s2), _horner(s2, [2.0 / (2 * k + 3) for k in range(10)]))
    two_s = semantic.mul(s, 2.0)
    e_hi = semantic.mul(e, float64_math._LN2_HI)  # exact: _LN2_HI has 32 bits, |e| < 1100
    hi = semantic.add(e_hi, two_s)
    lo = semantic.add(
        semantic.sub(two_s, semantic.sub(hi, e_hi)),
        semantic.add(semantic.add(semantic.mul(s_lo, 2.0), rest), semantic.mul(e, float64_math._LN2_LO)),
    )
    return hi, lo


def _stirling_exponent(x):
    """(x - 1/2) log x - x for x >= 10 as hi + lo (absolute error ~1e-16 at 171, where it is 709)."""
    log_hi, log_lo = _log_double(x)
    w = semantic.sub(x, 0.5)  # exact
    p_hi, p_lo = float64_math.two_product(w, log_hi)
    p_lo = semantic.add(p_lo, semantic.mul(w, log_lo))
    hi = semantic.sub(p_hi, x)
    lo = semantic.add(semantic.sub(semantic.sub(p_hi, hi), x), p_lo)  # two-sum (|p_hi| > |x|)
    return hi, lo


def _lgamma_positive(x):
    """lgamma for finite x >= 1/2."""
    mid = semantic.minimum(semantic.maximum(x, 1.5), _STIRLING_FROM)
    y, product = _shifted(mid)
    shifted = semantic.add(_near_two(y), float64_math.log(product))
    y1 = semantic.sub(x, 1.0)  # exact for x in [0.5, 1.5): lgamma(x) = lgamma(2 + y1) - log(1 + y1)
    low = semantic.sub(_near_two(semantic.where(semantic.compare("lt", x, 1.5), y1, 0.0)), log1p(y1))
    big = semantic.maximum(x, _STIRLING_FROM)
    hi, lo = _stirling_exponent(big)
    stirling = semantic.add(hi, semantic.add(lo, semantic.add(_stirling_tail(big), _HALF_LOG_2PI)))
    r = semantic.where(semantic.compare("lt", x, 1.5), low, shifted)
    return semantic.where(semantic.compare("ge", x, _STIRLING_FROM), stirling, r)


def _gamma_positive(x):
    """Gamma for finite x >= 1/2: e^(lgamma(2 + y)) times the product below 10; from 10 Stirling's
    sqrt(2 pi) e^hi e^(lo + series), the exponent hi + lo a double-double (inf past 171.62)."""
    mid = semantic.minimum(semantic.maximum(x, 1.5), _STIRLING_FROM)
    y, product = _shifted(mid)
    shifted = semantic.mul(float64_math.exp(_near_two(y)), product)
    y1 = semantic.sub(x, 1.0)
    low = _div(float64_math.exp(_near_two(semantic.where(semantic.compare("lt", x, 1.5), y1, 0.0))), x)
    big = semantic.minimum(semantic.maximum(x, _STIRLING_FROM), 180.0)
    hi, lo = _stirling_exponent(big)
    correction = float64_math.exp(semantic.add(lo, _stirling_tail(big)))
    stirling = semantic.mul(semantic.mul(float64_math.exp(hi), _math.sqrt(2 * _math.pi)), correction)
    r = semantic.where(semantic.compare("lt", x, 1.5), low, shifted)
    return semantic.where(semantic.compare("ge", x, _STIRLING_FROM), stirling, r)


def _near_zero(x):
    """(lgamma(2 + x), log1p(x)) for |x| < 1/2: Gamma(x) = Gamma(2 + x) / (x (1 + x))."""
    small = semantic.where(semantic.compare("lt", semantic.abs_(x), 0.5), x, 0.0)
    return _near_two(small), log1p(small)


def _gamma_regions(x):
    """What lgamma and tgamma share: (finite, x where x >= 1/2 else 1, reflect = finite x <= -1/2,
    safe = x there else -0.75, sin(pi safe), pole = a reflected x that is an integer)."""
    finite = semantic.compare("lt", semantic.abs_(x), _INF)
    positive_x = semantic.where(semantic.logical_and(finite, semantic.compare("ge", x, 0.5)), x, 1.0)
    reflect = semantic.logical_and(finite, semantic.compare("le", x, -0.5))
    safe = semantic.where(reflect, x, -0.75)
    sine = sinpi(safe)
    pole = semantic.logical_and(reflect, semantic.compare("eq", sine, 0.0))
    return finite, positive_x, reflect, safe, sine, pole


def lgamma(x):
    """log |Gamma(x)|; +inf at the poles (0 and the negative integers) and at +-inf."""
    a = semantic.abs_(x)
    finite, positive_x, reflect, safe, sine, pole = _gamma_regions(x)
    positive = _lgamma_positive(positive_x)
    at_two, log_one_plus = _near_zero(x)
    near_zero = semantic.sub(semantic.sub(at_two, log_one_plus), float64_math.log(a))
    # reflection below -1/2: log pi - log |x sin(pi x)| - lgamma(-x)
    product = semantic.abs_(semantic.mul(semantic.where(pole, 1.0, sine), safe))
    mirrored = _lgamma_positive(semantic.neg(safe))
    reflected = semantic.sub(semantic.sub(_math.log(_math.pi), float64_math.log(product)), mirrored)
    r = semantic.where(
        semantic.compare("ge", x, 0.5), positive, semantic.where(reflect, reflected, near_zero)
    )
    r = semantic.where(semantic.logical_or(pole, semantic.logical_not(finite)), _INF, r)
    return _nan_if_nan(x, r)


def tgamma(x):
    """Gamma(x): +-inf at +-0, NaN at the negative integers and -inf, +inf at +inf (C's tgamma)."""
    _, positive_x, reflect, safe, sine, pole = _gamma_regions(x)
    positive = _gamma_positive(positive_x)
    at_two, _ = _near_zero(x)
    near_zero = _div(float64_math.exp(at_two), semantic.mul(x, semantic.add(x, 1.0)))
    # reflection below -1/2: Gamma(x) = -pi / (x sin(pi x) Gamma(-x))
    mirrored = _gamma_positive(semantic.neg(safe))
    reflected = _div(_div(-_math.pi, semantic.mul(safe, semantic.where(pole, 1.0, sine))), mirrored)
    r = semantic.where(
        semantic.compare("ge", x, 0.5), positive, semantic.where(reflect, reflected, near_zero)
    )
    r = semantic.where(pole, float("nan"), r)
    r = semantic.where(semantic.compare("eq", x, _INF), _INF, r)
    r = semantic.where(semantic.compare("eq", x, -_INF), float("nan"), r)
    return _nan_if_nan(x, r)


# -- exponent bits: ilogb, logb, ldexp, nextafter ------------------------------------------------------


def _unbiased_exponent(x):
    """floor(log2 |x|) of finite, nonzero x as int64 (subnormals normalized first)."""
    subnormal = semantic.compare("lt", semantic.abs_(x), 2.0**-1022)
    scaled = semantic.where(subnormal, semantic.mul(x, 2.0**64), x)
    e = semantic.sub(_exponent_field(scaled), 1023)
    return semantic.where(subnormal, semantic.sub(e, 64), e)


def ilogb(x):
    """int32: INT_MIN for 0 and NaN, INT_MAX for +-inf."""
    e = semantic.cast(_unbiased_exponent(x), core.int32)
    e = semantic.where(semantic.compare("eq", semantic.abs_(x), _INF), 2**31 - 1, e)
    return semantic.where(semantic.logical_or(semantic.compare("eq", x, 0.0), _is_nan(x)), -(2**31), e)


def logb(x):
    r = semantic.cast(_unbiased_exponent(x), core.float64)
    r = semantic.where(semantic.compare("eq", x, 0.0), -_INF, r)
    r = semantic.where(semantic.compare("eq", semantic.abs_(x), _INF), _INF, r)
    return _nan_if_nan(x, r)


def ldexp(x, n):
    """x 2^n correctly rounded (subnormal results included): three exact scalings, n clamped to
    +-2200 (beyond, every float64 is 0 or inf)."""
    n = semantic.minimum(semantic.maximum(semantic.cast(n, core.int64), -2200), 2200)
    # n / 3 truncated, so that all three parts have n's sign (no rounding on the way to a normal result)
    third = semantic.floordiv(semantic.abs_(n), 3)
    third = semantic.where(semantic.compare("lt", n, 0), semantic.neg(third), third)
    v = x
    for part in (third, third, semantic.sub(n, semantic.mul(third, 2))):
        v = semantic.mul(v, _from_exponent_field(semantic.add(part, 1023)))
    return v


def nextafter(x, y):
    """The float next to x toward y (y itself when equal; NaN if either is), float32 or float64 (the
    integer of the same width steps the bits: away from zero adds one, toward zero takes one)."""
    float_t = x.dtype
    int_t = core.int64 if float_t.is_fp64() else core.int32
    bits = semantic.cast(x, int_t, bitcast=True)
    away = semantic.compare("eq", semantic.compare("gt", y, x), semantic.compare("gt", x, 0.0))
    stepped = semantic.cast(
        semantic.where(away, semantic.add(bits, 1), semantic.sub(bits, 1)), float_t, bitcast=True
    )
    smallest = semantic.broadcast_to(
        semantic.cast(semantic.to_tensor(1, int_t), float_t, bitcast=True), x.shape
    )
    toward = semantic.sub(y, x)
    from_zero = core.tensor(_math_d.copysign(smallest.handle, toward.handle), float_t, x.shape)
    r = semantic.where(semantic.compare("eq", x, 0.0), from_zero, stepped)
    r = semantic.where(semantic.compare("eq", x, y), y, r)
    return semantic.where(semantic.logical_or(_is_nan(x), _is_nan(y)), float("nan"), r)
