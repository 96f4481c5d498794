"""float64 exp, exp2, log, log2, rsqrt, sin, cos, tanh and erf from float64 arithmetic alone, for the GPU targets (neither
NVPTX nor AMDGPU has instructions for them; Triton calls the vendors' device libraries, which tilec
does not link). tile-expand-float64-math puts them in place of the math ops.

exp: n = round(x / ln 2), r = x - n ln2_hi - n ln2_lo (ln2_hi has 32 significant bits, so n ln2_hi is
exact), e^r by its Taylor series on |r| <= ln 2 / 2 (degree 13: below 1e-17), times 2^n as two exact
powers of two (gradual underflow included). exp2: the same with r = (x - round(x)) ln 2. log and log2:
x = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172 (series
to s^21); log x = e ln2_hi + (e ln2_lo + log m). sin, cos: x = n pi/2 + r by a three-part pi/2 (exact
for |x| < 2^20 pi/2, less accurate beyond), series on |r| <= pi/4, the quadrant picks. tanh:
e / (e + 2) with e = expm1(2|x|), expm1 by the same reduction without cancellation. erf: its Taylor
series below |x| = 0.84375, 1 - e^(-x^2) erfcx(|x|) beyond, with x^2 exact as hi + lo (an fma) and x
erfcx(x) a Chebyshev series in (x - 5) / (x + 4) (tilec.language.float64_constants; erfc and erfcx
for libdevice come from the same pieces). Checked: 1 ulp (exp, exp2, log, log2, rsqrt), 2 (sin, cos,
|x| < 1e6; erf), 3 (tanh); C's special values.
"""

from __future__ import annotations

import math as _math

from tilec._lazy import lazy_module

from . import core, semantic
from . import float64_constants as _k

_math_d = lazy_module("mlir.dialects.math")

# ln 2 = _LN2_HI + _LN2_LO to about 2^-85 (fdlibm's split): _LN2_HI has 32 significant bits
# (0x3FE62E42FEE00000); _LN2_LO carries what a double rounding of ln 2 would lose (computing it
# as log(2.0) - _LN2_HI cost exp 200 ulp near its range's ends).
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10


def _floor(x):
    return core.tensor(_math_d.floor(x.handle), x.dtype, x.shape)


def _sqrt(x):
    return core.tensor(_math_d.sqrt(x.handle), x.dtype, x.shape)


def _horner(x, coefficients):
    result = semantic.broadcast_to(semantic.to_tensor(coefficients[-1], core.float64), x.shape)
    for c in reversed(coefficients[:-1]):
        result = semantic.add(semantic.mul(result, x), c)
    return result


def _times_power_of_two(v, n):
    """v 2^n for int64 n in [-2200, 2200]: two exact scalings, each a normal power of two."""
    low = semantic.shr(n, 1)
    for part in (low, semantic.sub(n, low)):
        v = semantic.mul(
            v, semantic.cast(semantic.shl(semantic.add(part, 1023), 52), core.float64, bitcast=True)
        )
    return v


def _exp_reduced(r, n):
    """e^r 2^n for |r| <= ln 2 / 2."""
    series = _horner(r, [1.0 / _math.factorial(k) for k in range(14)])
    return _times_power_of_two(series, semantic.cast(n, core.int64))


def _nan_where_nan(x, r):
    return semantic.where(semantic.compare("ne", x, x), float("nan"), r)


def exp(x):
    clamped = semantic.minimum(semantic.maximum(x, -1080.0), 1080.0)  # past these: 0 or inf
    n = _floor(semantic.add(semantic.mul(clamped, 1.0 / _math.log(2.0)), 0.5))
    r = semantic.sub(semantic.sub(clamped, semantic.mul(n, _LN2_HI)), semantic.mul(n, _LN2_LO))
    return _nan_where_nan(x, _exp_reduced(r, n))


def exp2(x):
    clamped = semantic.minimum(semantic.maximum(x, -1100.0), 1100.0)
    n = _floor(semantic.add(clamped, 0.5))
    r = semantic.mul(semantic.sub(clamped, n), _math.log(2.0))
    return _nan_where_nan(x, _exp_reduced(r, n))


def log_parts(x):
    """(e, log m) of positive finite x = m 2^e, m in [sqrt(1/2), sqrt(2)); e as float64."""
    tiny = semantic.compare("lt", x, 2.0**-1000)  # subnormals: into the normal range first
    x = semantic.where(tiny, semantic.mul(x, 2.0**64), x)
    bits = semantic.cast(x, core.int64, bitcast=True)
    e = semantic.sub(semantic.and_(semantic.shr(bits, 52), 0x7FF), 1023)
    e = semantic.where(tiny, semantic.sub(e, 64), e)
    m = semantic.cast(
        semantic.or_(semantic.and_(bits, (1 << 52) - 1), 1023 << 52), core.float64, bitcast=True
    )
    big = semantic.compare("gt", m, _math.sqrt(2.0))
    m = semantic.where(big, semantic.mul(m, 0.5), m)
    e = semantic.cast(semantic.where(big, semantic.add(e, 1), e), core.float64)
    s = semantic.truediv(semantic.sub(m, 1.0), semantic.add(m, 1.0), precise=True)
    series = _horner(semantic.mul(s, s), [1.0 / (2 * k + 1) for k in range(11)])
    return e, semantic.mul(semantic.mul(s, series), 2.0)


def _log_specials(x, r):
    r = semantic.where(semantic.compare("eq", x, 0.0), float("-inf"), r)
    r = semantic.where(semantic.compare("eq", x, float("inf")), float("inf"), r)
    r = semantic.where(semantic.compare("lt", x, 0.0), float("nan"), r)
    return _nan_where_nan(x, r)


def _positive_finite(x):
    ok = semantic.logical_and(semantic.compare("gt", x, 0.0), semantic.compare("lt", x, float("inf")))
    return semantic.where(ok, x, 1.0)


def log(x):
    e, log_m = log_parts(_positive_finite(x))
    r = semantic.add(semantic.mul(e, _LN2_HI), semantic.add(semantic.mul(e, _LN2_LO), log_m))
    return _log_specials(x, r)


def log2(x):
    e, log_m = log_parts(_positive_finite(x))
    return _log_specials(x, semantic.add(e, semantic.mul(log_m, 1.0 / _math.log(2.0))))


def rsqrt(x):
    return semantic.truediv(1.0, _sqrt(x), precise=True)


# pi / 2 = _PIO2[0] + _PIO2[1] + _PIO2[2] (fdlibm's split): the first two have 33 significant bits,
# so n * each is exact for |n| < 2^20 and the reduction x - n pi/2 loses nothing there.
_PIO2 = (1.57079632673412561417e00, 6.07710050630396597660e-11, 2.02226624879595063154e-21)


def _sin_cos_reduced(x):
    """(sin r, cos r, n mod 4) with x = n pi/2 + r, |r| <= pi/4 (accurate for |x| < 2^20 pi/2)."""
    n = _floor(semantic.add(semantic.mul(x, 2.0 / _math.pi), 0.5))
    r = x
    for part in _PIO2:
        r = semantic.sub(r, semantic.mul(n, part))
    r2 = semantic.mul(r, r)
    sin_r = semantic.mul(r, _horner(r2, [(-1.0) ** k / _math.factorial(2 * k + 1) for k in range(12)]))
    cos_r = _horner(r2, [(-1.0) ** k / _math.factorial(2 * k) for k in range(12)])
    quadrant = semantic.and_(semantic.cast(n, core.int64), 3)
    return sin_r, cos_r, quadrant


def _select_quadrant(quadrant, values):
    result = values[3]
    for q in (2, 1, 0):
        result = semantic.where(semantic.compare("eq", quadrant, q), values[q], result)
    return result


def _finite_or_nan(x, r):
    return semantic.where(semantic.compare("lt", semantic.abs_(x), float("inf")), r, float("nan"))


def sin(x):
    safe = semantic.where(semantic.compare("lt", semantic.abs_(x), float("inf")), x, 0.0)
    s, c, q = _sin_cos_reduced(safe)
    return _finite_or_nan(x, _select_quadrant(q, [s, c, semantic.neg(s), semantic.neg(c)]))


def cos(x):
    safe = semantic.where(semantic.compare("lt", semantic.abs_(x), float("inf")), x, 0.0)
    s, c, q = _sin_cos_reduced(safe)
    return _finite_or_nan(x, _select_quadrant(q, [c, semantic.neg(s), semantic.neg(c), s]))


def _expm1(y):
    """e^y - 1 without cancellation: y = n ln 2 + r, e^r - 1 by its series without the 1 (degree 16),
    then 2^n (e^r - 1) + (2^n - 1)."""
    clamped = semantic.minimum(semantic.maximum(y, -60.0), 710.0)
    n = _floor(semantic.add(semantic.mul(clamped, 1.0 / _math.log(2.0)), 0.5))
    r = semantic.sub(semantic.sub(clamped, semantic.mul(n, _LN2_HI)), semantic.mul(n, _LN2_LO))
    em1 = semantic.mul(r, _horner(r, [1.0 / _math.factorial(k + 1) for k in range(16)]))
    power = _times_power_of_two(
        semantic.broadcast_to(semantic.to_tensor(1.0, core.float64), y.shape), semantic.cast(n, core.int64)
    )
    return semantic.add(semantic.mul(power, em1), semantic.sub(power, 1.0))


def tanh(x):
    """sign(x) e/(e + 2) with e = expm1(2|x|); x itself below 2^-28, +-1 from 22 on."""
    ax = semantic.abs_(x)
    e = _expm1(semantic.mul(semantic.minimum(ax, 22.0), 2.0))
    t = semantic.truediv(e, semantic.add(e, 2.0), precise=True)
    t = semantic.where(semantic.compare("ge", ax, 22.0), 1.0, t)
    signed = core.tensor(_math_d.copysign(t.handle, x.handle), core.float64, t.shape)
    signed = semantic.where(semantic.compare("lt", ax, 2.0**-28), x, signed)
    return _nan_where_nan(x, signed)


# -- erf, erfc, erfcx -------------------------------------------------------------------------------


def two_product(a, b):
    """(hi, lo) with a b = hi + lo exactly (lo from an fma; GPUs never contract float64 arithmetic)."""
    hi = semantic.mul(a, b)
    return hi, semantic.fma(a, b, semantic.neg(hi))


def exp_of_square(x, sign):
    """e^(sign x^2) with x^2 exact as hi + lo: a rounded x^2 alone would cost x^2 2^-53 relative (1e-13
    at x = 26). |x| is clamped to 40, past which the result is 0 or inf either way."""
    x = semantic.minimum(semantic.abs_(x), 40.0)
    hi, lo = two_product(x, x)
    return semantic.mul(exp(semantic.mul(hi, sign)), semantic.add(semantic.mul(lo, sign), 1.0))


def chebyshev(u, coefficients):
    """sum c_j T_j(u) for u in [-1, 1] by Clenshaw's recurrence (stable: errors stay near an ulp of the
    largest partial sum)."""
    two_u = semantic.mul(u, 2.0)
    b1 = semantic.broadcast_to(semantic.to_tensor(coefficients[-1], core.float64), u.shape)
    b2 = None
    for c in reversed(coefficients[1:-1]):
        b = semantic.add(semantic.mul(two_u, b1), c)
        b1, b2 = (b if b2 is None else semantic.sub(b, b2)), b1
    r = semantic.add(semantic.mul(u, b1), coefficients[0])
    return r if b2 is None else semantic.sub(r, b2)


_ERF_SERIES = [2 / _math.sqrt(_math.pi) * (-1) ** n / (_math.factorial(n) * (2 * n + 1)) for n in range(18)]
_ERF_SERIES_END = 0.84375  # erf = 0.77 here: beyond, 1 - erfc loses less than the series would


def _erf_near_zero(x):
    """erf for |x| < 0.84375: its Taylor series (18 terms; the rest below 1e-17 relative)."""
    return semantic.mul(x, _horner(semantic.mul(x, x), _ERF_SERIES))


def erfcx_from_half(x):
    """e^(x^2) erfc(x) for x >= 1/2 (inf included): x erfcx(x) as a Chebyshev series in t = (x - K) /
    (x + K) (tilec.language.float64_constants; t -> 1 as x -> inf, where it tends to 1 / sqrt(pi))."""
    clamped = semantic.minimum(x, 1e300)
    # u = scale t + shift (-1 at ERFCX_LOW, 1 at infinity) as one quotient: (p x - q) / (x + K)
    scale = 2.0 / (1.0 - _k.ERFCX_T_LOW)
    shift = -_k.ERFCX_T_LOW * scale - 1.0
    p, q = scale + shift, _k.ERFCX_K * (scale - shift)
    u = semantic.truediv(
        semantic.sub(semantic.mul(clamped, p), q), semantic.add(clamped, _k.ERFCX_K), precise=True
    )
    return semantic.truediv(chebyshev(u, _k.ERFCX_CHEBYSHEV), x, precise=True)


def erf(x):
    """The series below |x| = 0.84375, 1 - e^(-x^2) erfcx(|x|) from there (2 ulp)."""
    a = semantic.abs_(x)
    near_zero = semantic.compare("lt", a, _ERF_SERIES_END)
    tail = semantic.mul(exp_of_square(a, -1.0), erfcx_from_half(semantic.maximum(a, _ERF_SERIES_END)))
    far = core.tensor(_math_d.copysign(semantic.sub(1.0, tail).handle, x.handle), core.float64, x.shape)
    near = _erf_near_zero(semantic.where(near_zero, x, 0.0))
    return _nan_where_nan(x, semantic.where(near_zero, near, far))


def erfc(x):
    """1 - erf below 1/2 (no cancellation there: erf < 0.53), e^(-x^2) erfcx(x) from 1/2 on (relative
    accuracy down to the subnormals), 2 - that below -1/2."""
    a = semantic.abs_(x)
    tail = semantic.mul(exp_of_square(a, -1.0), erfcx_from_half(semantic.maximum(a, 0.5)))
    near = semantic.sub(1.0, _erf_near_zero(semantic.where(semantic.compare("lt", a, 0.5), x, 0.0)))
    r = semantic.where(semantic.compare("lt", x, 0.0), semantic.sub(2.0, tail), tail)
    return _nan_where_nan(x, semantic.where(semantic.compare("lt", a, 0.5), near, r))


def erfcx(x):
    """e^(x^2) erfc(x): the series below |x| = 1/2, the Chebyshev fit from 1/2 on (no underflow), and
    2 e^(x^2) - erfcx(-x) below -1/2 (overflowing to inf from about -26.6)."""
    a = semantic.abs_(x)
    fit = erfcx_from_half(semantic.maximum(a, 0.5))
    growth = exp_of_square(a, 1.0)
    near = semantic.mul(
        growth, semantic.sub(1.0, _erf_near_zero(semantic.where(semantic.compare("lt", a, 0.5), x, 0.0)))
    )
    r = semantic.where(semantic.compare("lt", x, 0.0), semantic.sub(semantic.mul(growth, 2.0), fit), fit)
    return _nan_where_nan(x, semantic.where(semantic.compare("lt", a, 0.5), near, r))


FUNCTIONS = {
    "math.exp": exp,
    "math.exp2": exp2,
    "math.log": log,
    "math.log2": log2,
    "math.rsqrt": rsqrt,
    "math.sin": sin,
    "math.cos": cos,
    "math.tanh": tanh,
    "math.erf": erf,
}
