"""float64 exp, exp2, log, log2 and rsqrt from float64 arithmetic alone, for the GPU targets (neither
NVPTX nor AMDGPU has instructions for them; Triton calls the vendors' device libraries, which tilec
does not link). tile-expand-float64-math puts them in place of the math ops.

exp: n = round(x / ln 2), r = x - n ln2_hi - n ln2_lo (ln2_hi has 32 significant bits, so n ln2_hi is
exact), e^r by its Taylor series on |r| <= ln 2 / 2 (degree 13: below 1e-17), times 2^n as two exact
powers of two (gradual underflow included). exp2: the same with r = (x - round(x)) ln 2. log and log2:
x = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172 (series
to s^21); log x = e ln2_hi + (e ln2_lo + log m). A few ulp; C's special values (NaN, +-inf, 0, negatives).
"""

from __future__ import annotations

import math as _math

from . import core, semantic

# ln 2 = _LN2_HI + _LN2_LO to about 2^-85 (fdlibm's split): _LN2_HI has 32 significant bits
# (0x3FE62E42FEE00000); _LN2_LO carries what a double rounding of ln 2 would lose (computing it
# as log(2.0) - _LN2_HI cost exp 200 ulp near its range's ends).
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10


def _floor(x):
    from mlir.dialects import math as math_d

    return core.tensor(math_d.floor(x.handle), x.dtype, x.shape)


def _sqrt(x):
    from mlir.dialects import math as math_d

    return core.tensor(math_d.sqrt(x.handle), x.dtype, x.shape)


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


def _log_parts(x):
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
    e, log_m = _log_parts(_positive_finite(x))
    r = semantic.add(semantic.mul(e, _LN2_HI), semantic.add(semantic.mul(e, _LN2_LO), log_m))
    return _log_specials(x, r)


def log2(x):
    e, log_m = _log_parts(_positive_finite(x))
    return _log_specials(x, semantic.add(e, semantic.mul(log_m, 1.0 / _math.log(2.0))))


def rsqrt(x):
    return semantic.truediv(1.0, _sqrt(x), precise=True)


FUNCTIONS = {"math.exp": exp, "math.exp2": exp2, "math.log": log, "math.log2": log2, "math.rsqrt": rsqrt}
