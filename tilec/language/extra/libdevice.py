"""libdevice: the math functions that kernels import as `from triton.language.extra import libdevice`
(or `extra.cuda` / `extra.hip`), under the same names. Import `from tilec.language.extra import
libdevice` instead.

tilec has no vendor device library: each function is one of tilec's own math operations or is built
from them, and runs on every target (GPU versions compute f16/bf16 in f32). Accuracy: exp, exp2, tanh
and their relatives use the GPUs' approximate units as `tl.exp` does (a few ulp in f32); log, log2,
sin and cos are within an ulp on GPUs as `tl.log` and `tl.sin` are (float64 inside; sin and cos reduce
their argument exactly, however large), log10 (log2 scaled) within two, erf within 2.2; fast_logf and
fast_log2f are those same functions (fast_sinf, fast_cosf, fast_tanf, fast_exp10f and
fast_log10f too); log1p and expm1 stay accurate near zero (series there, computed
with plain arithmetic); trunc, round, rint, fmin, fmax, copysign, fma / fma_rn, div_rn and sqrt_rn
are exact, as are add_rn, sub_rn and mul_rn, which a GPU never fuses into an FMA (plain `*` and `+`
are fused there unless the launch says enable_fp_fusion=False); rsqrt_rn is correctly rounded
(float64 inside), saturatef clamps to [0, 1] (NaN -> 0), fast_dividef divides. isnan / isinf return
int1 (so `~isnan(x)` is a mask) and finitef / signbit int32 0 or 1, as Triton's libdevice does; pow /
powi compute in float64 with tilec's own log2 and exp2 (float32 within an ulp); asin, acos, atan,
atan2, sinh, cosh, asinh, acosh, atanh, cbrt, hypot and exp10 are float32 algorithms (a few ulp),
as are tan, erfinv, erfcinv and normcdfinv (Giles' polynomials, the far tail by
Newton's method on the erfc fit: 3e-7 relative); erfc, erfcx and normcdf (Numerical Recipes' erfc fit,
relative error below 1.2e-7) and lgamma and tgamma (Lanczos, with the reflection formula below 1/2)
compute in float64 with tilec's own log2 and exp2, as do the Bessel functions j0, j1, y0, y1
(Numerical Recipes' fits, ~1e-8 absolute, for |x| < 2^20) and cyl_bessel_i0, cyl_bessel_i1 (2e-7
relative) on float32 operands; on float64 operands the Bessel functions are float64 algorithms
(~1e-15: power series, Miller's backward recurrence with Neumann's series for Y, Hankel's
expansion; see _bessel_f64); jn and yn (integer order n, libdevice's argument order n, x) run the
three-term recurrence from them in float64 (Y forward, J forward where n < |x| and by Miller's
backward recurrence elsewhere: ~1e-15 on float64; _bessel_integer_order.py). Integer bits: popc,
clz, ffs, brev (32 and 64 bits), mulhi, mul24, hadd, rhadd, sad, abs, byte_perm; reinterpretation:
float_as_int, int_as_float, float_as_uint, uint_as_float, double_as_longlong, longlong_as_double,
hiloint2double, double2hiint, double2loint; float -> integer with a rounding mode
({float,double}2{int, uint,ll,ull}_{rn,rz,rd,ru}, saturating as the GPUs' conversions do; NaN -> 0),
llrint, llround, and exact integer -> float conversions (int2double_rn, ...); exact float helpers:
fmod (exact on GPUs by scaled reduction steps, as `%` on floats is there), remainder (IEEE's, from
it), fdim, ldexp / scalbn, ilogb, logb, nextafter (float32), sinpi, cospi (reduced exactly), rhypot,
norm3d, norm4d, rnorm3d, rnorm4d, rcbrt (float64 inside). Directed rounding (rz toward zero, rd
down, ru up), bit-exact on every target: add, sub, mul, div, sqrt, rcp and fma on float32 and
float64 (each the nearest result stepped by an ulp where an exactly computed residual says so; for a
float64 fma, the sign of an error-free expansion of x y + z - r), and {double,int,uint,ll,ull}2float
and {ll,ull}2double conversions; rcp64h, the gross reciprocal of a float64's high word (PTX's
rcp.approx.ftz.f64, within 2^-20). With these, every function of Triton's CUDA libdevice module is
here; others (C's frexp, ...) are not available: using one is a compile error that names it.

float64 operands of the functions with float32 algorithms above (the inverse trigonometric and
hyperbolic ones, tan, sinpi, cospi, cbrt, rcbrt, hypot, rhypot, norm3d/4d, rnorm3d/4d, exp10, erfc,
erfcx, normcdf, erfinv, erfcinv, normcdfinv, lgamma, tgamma, ilogb, logb, ldexp / scalbn, nextafter)
go to float64 algorithms (tilec.language.float64_special: 1-6 ulp against mpmath, lgamma's relative
error larger only near its negative zeros); only rsqrt_rn, float32-only in libdevice too, refuses them.
"""

from __future__ import annotations

import math as _math

from tilec._lazy import lazy_module
from tilec.dialects import contract

from .. import builtins, core, float64_math, float64_special, reductions, semantic
from ..builtins import builtin
from ..core import tensor
from ..semantic import SemanticError

_mlir_math = lazy_module("mlir.dialects.math")
_ir = lazy_module("mlir.ir")

# The same functions as tl.* under libdevice's names
exp = builtins.exp
exp2 = builtins.exp2
log = builtins.log
log2 = builtins.log2
sqrt = builtins.sqrt
rsqrt = builtins.rsqrt
sin = builtins.sin
cos = builtins.cos
tanh = builtins.tanh
erf = builtins.erf
floor = builtins.floor
ceil = builtins.ceil
fabs = builtins.abs
fma = builtins.fma
fmin = builtins.minimum
fmax = builtins.maximum
div_rn = builtins.div_rn
sqrt_rn = builtins.sqrt_rn
fast_expf = builtins.exp
fast_logf = builtins.log
fast_log2f = builtins.log2
fast_exp2f = builtins.exp2
fast_tanhf = builtins.tanh
fma_rn = builtins.fma  # fma rounds once, to nearest


def _float(x, what: str) -> tensor:
    x = semantic.to_tensor(x)
    if not x.dtype.is_floating():
        raise SemanticError(f"libdevice.{what} needs a floating-point operand, got {x.dtype}")
    return x


def _math_op(name: str):
    def fn(x) -> tensor:
        x = _float(x, name)
        return tensor(getattr(_mlir_math, name)(x.handle), x.dtype, x.shape)

    return fn


@builtin
def trunc(x) -> tensor:
    """Rounds toward zero."""
    return _math_op("trunc")(x)


@builtin
def round(x) -> tensor:
    """Rounds to the nearest integer, halves away from zero."""
    return _math_op("round")(x)


@builtin
def rint(x) -> tensor:
    """Rounds to the nearest integer, halves to even."""
    return _math_op("roundeven")(x)


nearbyint = rint


@builtin
def copysign(x, y) -> tensor:
    """The magnitude of x with the sign of y."""
    x, y, t = semantic._operands(_float(x, "copysign"), y)
    return tensor(_mlir_math.copysign(x.handle, y.handle), t, x.shape)


@builtin
def rcp_rn(x) -> tensor:
    """1 / x, correctly rounded."""
    return builtins.div_rn(1.0, _float(x, "rcp_rn"))


def _flag(cond: tensor) -> tensor:
    return semantic.cast(cond, core.int32)


@builtin
def isnan(x) -> tensor:
    """True where x is NaN (int1, as Triton's libdevice.isnan returns: `~isnan(x)` is a mask)."""
    x = _float(x, "isnan")
    return semantic.compare("ne", x, x)


@builtin
def isinf(x) -> tensor:
    """True where x is +-infinity (int1, as Triton's libdevice.isinf returns)."""
    x = _float(x, "isinf")
    return semantic.compare("eq", semantic.abs_(x), float("inf"))


@builtin
def finitef(x) -> tensor:
    """1 where x is neither infinite nor NaN, else 0 (int32)."""
    x = _float(x, "finitef")
    return _flag(semantic.compare("lt", semantic.abs_(x), float("inf")))


isfinited = finitef


@builtin
def signbit(x) -> tensor:
    """1 where x's sign bit is set (negative numbers, -0.0, NaNs with the bit), else 0 (int32)."""
    x = _float(x, "signbit")
    bits = {16: core.int16, 32: core.int32, 64: core.int64}[x.dtype.primitive_bitwidth]
    return _flag(semantic.compare("lt", semantic.cast(x, bits, bitcast=True), 0))


@builtin
def log10(x) -> tensor:
    """Base-10 logarithm."""
    return semantic.mul(builtins.log2(_float(x, "log10")), _math.log10(2.0))


def _horner(x: tensor, coefficients: list[float]) -> tensor:
    """c0 + c1 x + c2 x^2 + ... (coefficients from c0)."""
    result = semantic.to_tensor(coefficients[-1], x.dtype)
    result = semantic.broadcast_to(result, x.shape)
    for c in reversed(coefficients[:-1]):
        result = semantic.add(semantic.mul(result, x), c)
    return result


@builtin
def log1p(x) -> tensor:
    """log(1 + x), accurate for small x: for 1 + x in [0.75, 1.33], 2 atanh(s) with s = x / (2 + x)
    (|s| <= 1/7) as its odd series (float32: five terms, s^11 / 11 < 3e-11 relative; float64: eleven,
    s^23 / 23 < 1e-20), elsewhere log(1 + x) (the GPUs' log is accurate relative to log2 values away
    from 0, not near 1), in float64 plus (x - (u - 1)) / u, what rounding u = 1 + x lost (2 ulp)."""
    x = _float(x, "log1p")
    if x.dtype.is_fp64():
        return float64_special.log1p(x)
    s = semantic.truediv(x, semantic.add(x, 2.0), precise=True)
    s2 = semantic.mul(s, s)
    series = semantic.mul(semantic.mul(s, 2.0), _horner(s2, [1 / (2 * k + 1) for k in range(5)]))
    near = semantic.logical_and(semantic.compare("ge", x, -0.25), semantic.compare("le", x, 1 / 3))
    return semantic.where(near, series, builtins.log(semantic.add(x, 1.0)))


@builtin
def expm1(x) -> tensor:
    """exp(x) - 1, accurate for small x: float32 by its Taylor series for |x| < 0.35 (to x^9 / 9!, the
    rest < 1e-11 relative), elsewhere exp(x) - 1; float64 as 2^n (e^r - 1) + (2^n - 1) with x = n ln 2
    + r, e^r - 1 by its series (1 ulp everywhere)."""
    x = _float(x, "expm1")
    if x.dtype.is_fp64():  # x = n ln 2 + r: 2^n (e^r - 1) + (2^n - 1), no cancellation anywhere
        r = float64_math._expm1(x)
        r = semantic.where(semantic.compare("eq", x, 0.0), x, r)  # expm1(-0) = -0
        return semantic.where(semantic.compare("ne", x, x), x, r)
    factorials = [1.0 / _math.factorial(k) for k in range(1, 10)]
    series = semantic.mul(x, _horner(x, factorials))
    near = semantic.compare("lt", semantic.abs_(x), 0.35)
    return semantic.where(near, series, semantic.sub(builtins.exp(x), 1.0))


# -- powers: exp2(y log2|x|) in float64 with its own log2 and exp2 (no f64 hardware math on GPUs) --


def _log2_f64(ax: tensor) -> tensor:
    """log2 of positive finite float64 values (1 ulp): tilec.language.float64_math's reduction."""
    e, log_m = float64_math.log_parts(ax)
    return semantic.add(e, semantic.mul(log_m, 1.0 / _math.log(2.0)))


def _exp2_f64(t: tensor) -> tensor:
    """2^t for float64 t (1 ulp; past +-1100 inf or 0): tilec.language.float64_math's exp2."""
    return float64_math.exp2(t)


def _pow(x: tensor, y: tensor) -> tensor:
    """x^y with C's special cases (as CUDA's powf/pow): pow(x, +-0) = 1 and pow(1, y) = 1 even for NaN,
    pow(-1, +-inf) = 1, a negative finite x to a finite non-integer y is NaN, an odd integer y keeps
    x's sign; the magnitude is 2^(y log2|x|) computed in float64."""
    x, y, t = semantic._operands(x, y)
    wide_x, wide_y = semantic.cast(x, core.float64), semantic.cast(y, core.float64)
    ax = semantic.abs_(wide_x)
    inf = float("inf")
    finite_ax = semantic.logical_and(semantic.compare("gt", ax, 0.0), semantic.compare("lt", ax, inf))
    safe = semantic.where(finite_ax, ax, 1.0)
    # log2 of 0 is -inf; of inf and NaN themselves
    log = semantic.where(
        finite_ax, _log2_f64(safe), semantic.where(semantic.compare("eq", ax, 0.0), -inf, ax)
    )
    product = semantic.mul(wide_y, log)  # NaN for NaN operands, +-inf for 0 / inf / inf exponents
    clamped = semantic.minimum(semantic.maximum(product, -2000.0), 2000.0)
    magnitude = _exp2_f64(semantic.where(semantic.compare("ne", product, product), 0.0, clamped))
    magnitude = semantic.where(semantic.compare("ne", product, product), float("nan"), magnitude)
    finite_y = semantic.compare("lt", semantic.abs_(wide_y), inf)
    integer_y = semantic.logical_and(finite_y, semantic.compare("eq", builtins.floor(wide_y), wide_y))
    half = semantic.mul(wide_y, 0.5)
    odd_y = semantic.logical_and(integer_y, semantic.compare("ne", builtins.floor(half), half))
    negative_x = semantic.compare("lt", semantic.cast(wide_x, core.int64, bitcast=True), 0)  # -0.0 too
    result = semantic.where(semantic.logical_and(negative_x, odd_y), semantic.neg(magnitude), magnitude)
    finite_negative = semantic.logical_and(
        semantic.compare("lt", wide_x, 0.0), semantic.compare("gt", wide_x, -inf)
    )
    result = semantic.where(
        semantic.logical_and(
            finite_negative, semantic.logical_and(finite_y, semantic.logical_not(integer_y))
        ),
        float("nan"),
        result,
    )
    one = semantic.logical_or(
        semantic.compare("eq", wide_y, 0.0),
        semantic.logical_or(
            semantic.compare("eq", wide_x, 1.0),
            semantic.logical_and(
                semantic.compare("eq", wide_x, -1.0), semantic.compare("eq", semantic.abs_(wide_y), inf)
            ),
        ),
    )
    return semantic.cast(semantic.where(one, 1.0, result), t)


@builtin
def pow(x, y) -> tensor:
    """x raised to y (floats; an integer operand is converted as in x + y). Special values as C's pow.
    Computed in float64 as 2^(y log2|x|) with tilec's own float64 log2/exp2, so float32 results are
    within an ulp; float64 results are within about 1e-13 relative (not correctly rounded)."""
    x, y = semantic.to_tensor(x), semantic.to_tensor(y)
    if not (x.dtype.is_floating() or y.dtype.is_floating()):
        raise SemanticError(f"libdevice.pow needs a floating-point operand, got {x.dtype} and {y.dtype}")
    return _pow(x, y)


@builtin
def powi(x, y) -> tensor:
    """x raised to the integer y (libdevice's powi): pow with y converted to x's type."""
    x = _float(x, "powi")
    y = semantic.to_tensor(y)
    if not y.dtype.is_int():
        raise SemanticError(f"libdevice.powi needs an integer exponent, got {y.dtype}")
    return _pow(x, semantic.cast(y, x.dtype))


powf = pow
fast_powf = pow


# -- inverse trigonometric and hyperbolic functions, cbrt, hypot, exp10 ----------------------------
# float32 algorithms (Cephes' asinf / atanf polynomials, log1p / expm1 forms near 0) with correctly
# rounded square roots and divisions: a few ulp in float32. float16 / bfloat16 compute in float32;
# float64 is refused rather than given float32 accuracy.

_HALF_PI = _math.pi / 2


def _f32(x, name: str) -> tuple[tensor, core.dtype]:
    x = _float(x, name)
    if x.dtype.is_fp64():
        raise SemanticError(
            f"libdevice.{name} on float64 is not available in tilec (it is accurate to float32)"
        )
    return semantic.cast(x, core.float32), x.dtype


def _is_float64(*values) -> bool:
    """Whether any operand is a float64 tensor (the others then convert to float64, as in x + y)."""
    return any(isinstance(v, tensor) and v.dtype.is_fp64() for v in values)


def _sqrt(x: tensor) -> tensor:
    return builtins.sqrt_rn(x)


def _div(a, b) -> tensor:
    return semantic.truediv(a, b, precise=True)


def _with_sign_of(magnitude: tensor, x: tensor) -> tensor:
    return tensor(_mlir_math.copysign(magnitude.handle, x.handle), magnitude.dtype, magnitude.shape)


def _asin_small(s: tensor) -> tensor:
    """asin(s) for |s| <= 0.5 (Cephes asinf's polynomial in s^2)."""
    z = semantic.mul(s, s)
    p = _horner(z, [1.6666752422e-1, 7.4953002686e-2, 4.5470025998e-2, 2.4181311049e-2, 4.2163199048e-2])
    return semantic.add(semantic.mul(semantic.mul(p, z), s), s)


@builtin
def asin(x) -> tensor:
    """Inverse sine (NaN outside [-1, 1])."""
    if _is_float64(x):
        return float64_special.asin(x)
    x, t = _f32(x, "asin")
    a = semantic.abs_(x)
    big = semantic.compare("gt", a, 0.5)
    s = semantic.where(big, _sqrt(semantic.mul(semantic.sub(1.0, a), 0.5)), a)  # NaN past 1
    q = _asin_small(s)
    r = semantic.where(big, semantic.sub(_HALF_PI, semantic.mul(q, 2.0)), q)
    return semantic.cast(_with_sign_of(r, x), t)


@builtin
def acos(x) -> tensor:
    """Inverse cosine (NaN outside [-1, 1])."""
    if _is_float64(x):
        return float64_special.acos(x)
    x, t = _f32(x, "acos")
    a = semantic.abs_(x)
    big = semantic.compare("gt", a, 0.5)
    s = semantic.where(big, _sqrt(semantic.mul(semantic.sub(1.0, a), 0.5)), x)
    q = _asin_small(s)
    twice = semantic.mul(q, 2.0)
    negative = semantic.compare("lt", x, 0.0)
    r = semantic.where(
        big, semantic.where(negative, semantic.sub(_math.pi, twice), twice), semantic.sub(_HALF_PI, q)
    )
    return semantic.cast(r, t)


def _atan_core(x: tensor) -> tensor:
    """atan for every float32 (Cephes atanf: reduced by tan(3 pi / 8) and tan(pi / 8))."""
    a = semantic.abs_(x)
    big = semantic.compare("gt", a, 2.414213562373095)
    mid = semantic.compare("gt", a, 0.4142135623730950)
    reduced = semantic.where(
        big,
        semantic.neg(_div(1.0, a)),
        semantic.where(mid, _div(semantic.sub(a, 1.0), semantic.add(a, 1.0)), a),
    )
    base = semantic.where(big, _HALF_PI, semantic.where(mid, _math.pi / 4, 0.0))
    z = semantic.mul(reduced, reduced)
    p = _horner(z, [-3.33329491539e-1, 1.99777106478e-1, -1.38776856032e-1, 8.05374449538e-2])
    r = semantic.add(base, semantic.add(semantic.mul(semantic.mul(p, z), reduced), reduced))
    return _with_sign_of(r, x)


@builtin
def atan(x) -> tensor:
    """Inverse tangent."""
    if _is_float64(x):
        return float64_special.atan(x)
    x, t = _f32(x, "atan")
    return semantic.cast(_atan_core(x), t)


@builtin
def atan2(y, x) -> tensor:
    """The angle of the point (x, y), in [-pi, pi], with C's signed zeros and infinities."""
    if _is_float64(y, x):
        return float64_special.atan2(*_float_operands("atan2", y, x))
    y, t = _f32(y, "atan2")
    x, _ = _f32(x, "atan2")
    ax, ay = semantic.abs_(x), semantic.abs_(y)
    inf = float("inf")
    both_zero = semantic.logical_and(semantic.compare("eq", ax, 0.0), semantic.compare("eq", ay, 0.0))
    both_inf = semantic.logical_and(semantic.compare("eq", ax, inf), semantic.compare("eq", ay, inf))
    steep = semantic.compare("gt", ay, ax)
    ratio = _div(semantic.where(steep, ax, ay), semantic.where(steep, ay, ax))
    ratio = semantic.where(both_zero, 0.0, semantic.where(both_inf, 1.0, ratio))
    angle = _atan_core(ratio)
    angle = semantic.where(steep, semantic.sub(_HALF_PI, angle), angle)
    x_negative = semantic.compare("lt", semantic.cast(x, core.int32, bitcast=True), 0)  # -0.0 too
    angle = semantic.where(x_negative, semantic.sub(_math.pi, angle), angle)
    nan = semantic.logical_or(semantic.compare("ne", x, x), semantic.compare("ne", y, y))
    return semantic.cast(semantic.where(nan, float("nan"), _with_sign_of(angle, y)), t)


@builtin
def sinh(x) -> tensor:
    """Hyperbolic sine: (E + E / (E + 1)) / 2 with E = expm1(|x|), exp(|x| - ln 2) from |x| = 20."""
    if _is_float64(x):
        return float64_special.sinh(x)
    x, t = _f32(x, "sinh")
    a = semantic.abs_(x)
    e = expm1(semantic.minimum(a, 20.0))
    small = semantic.mul(semantic.add(e, _div(e, semantic.add(e, 1.0))), 0.5)
    large = builtins.exp(semantic.sub(a, _math.log(2.0)))
    return semantic.cast(_with_sign_of(semantic.where(semantic.compare("lt", a, 20.0), small, large), x), t)


@builtin
def cosh(x) -> tensor:
    """Hyperbolic cosine: (e^|x| + e^-|x|) / 2, exp(|x| - ln 2) from |x| = 20."""
    if _is_float64(x):
        return float64_special.cosh(x)
    x, t = _f32(x, "cosh")
    a = semantic.abs_(x)
    e = builtins.exp(semantic.minimum(a, 20.0))
    small = semantic.mul(semantic.add(e, _div(1.0, e)), 0.5)
    large = builtins.exp(semantic.sub(a, _math.log(2.0)))
    return semantic.cast(semantic.where(semantic.compare("lt", a, 20.0), small, large), t)


@builtin
def asinh(x) -> tensor:
    """Inverse hyperbolic sine: log1p(a + a^2 / (1 + sqrt(1 + a^2))), log(a) + ln 2 from a = 2^12."""
    if _is_float64(x):
        return float64_special.asinh(x)
    x, t = _f32(x, "asinh")
    a = semantic.abs_(x)
    huge = semantic.compare("gt", a, 4096.0)
    safe = semantic.where(huge, 1.0, a)
    a2 = semantic.mul(safe, safe)
    small = log1p(semantic.add(safe, _div(a2, semantic.add(_sqrt(semantic.add(a2, 1.0)), 1.0))))
    large = semantic.add(builtins.log(a), _math.log(2.0))
    return semantic.cast(_with_sign_of(semantic.where(huge, large, small), x), t)


@builtin
def acosh(x) -> tensor:
    """Inverse hyperbolic cosine (NaN below 1): log1p(u + sqrt(2u + u^2)) with u = x - 1."""
    if _is_float64(x):
        return float64_special.acosh(x)
    x, t = _f32(x, "acosh")
    huge = semantic.compare("gt", x, 4096.0)
    u = semantic.sub(semantic.where(huge, 2.0, x), 1.0)
    small = log1p(semantic.add(u, _sqrt(semantic.add(semantic.mul(u, 2.0), semantic.mul(u, u)))))
    large = semantic.add(builtins.log(x), _math.log(2.0))
    r = semantic.where(huge, large, small)
    return semantic.cast(semantic.where(semantic.compare("lt", x, 1.0), float("nan"), r), t)


@builtin
def atanh(x) -> tensor:
    """Inverse hyperbolic tangent: log1p(2a / (1 - a)) / 2 (+-inf at +-1, NaN beyond)."""
    if _is_float64(x):
        return float64_special.atanh(x)
    x, t = _f32(x, "atanh")
    a = semantic.abs_(x)
    r = semantic.mul(log1p(_div(semantic.mul(a, 2.0), semantic.sub(1.0, a))), 0.5)
    r = semantic.where(semantic.compare("gt", a, 1.0), float("nan"), r)
    return semantic.cast(_with_sign_of(r, x), t)


@builtin
def tan(x) -> tensor:
    """Tangent (Cephes tanf's polynomial; the argument reduced by pi / 4 in float64, accurate while
    |x| < 2^20)."""
    if _is_float64(x):
        return float64_special.tan(x)
    x, t = _f32(x, "tan")
    a = semantic.cast(semantic.abs_(x), core.float64)
    j = builtins.floor(semantic.mul(a, 4.0 / _math.pi))
    j = semantic.add(j, semantic.cast(semantic.and_(semantic.cast(j, core.int64), 1), core.float64))  # even
    z = semantic.cast(semantic.sub(a, semantic.mul(j, _math.pi / 4)), core.float32)  # |z| <= pi / 4
    zz = semantic.mul(z, z)
    p = _horner(zz, [3.33331568548e-1, 1.33387994085e-1, 5.34112807005e-2, 2.44301354525e-2,
                     3.11992232697e-3, 9.38540185543e-3])  # fmt: skip
    y = semantic.add(semantic.mul(semantic.mul(p, zz), z), z)
    odd_quadrant = semantic.compare("ne", semantic.and_(semantic.cast(j, core.int64), 2), 0)
    y = semantic.where(odd_quadrant, semantic.neg(_div(1.0, y)), y)
    negative = semantic.compare("lt", semantic.cast(x, core.int32, bitcast=True), 0)  # tan is odd
    return semantic.cast(semantic.where(negative, semantic.neg(y), y), t)


@builtin
def erfinv(x) -> tensor:
    """Inverse error function on (-1, 1) (+-inf at +-1, NaN beyond): Giles' single-precision
    polynomials in w = -log(1 - x^2), taken as -log1p(-x^2) to stay accurate near 0."""
    if _is_float64(x):
        return _erfinv_f64(x)
    x, t = _f32(x, "erfinv")
    w = semantic.neg(log1p(semantic.neg(semantic.mul(x, x))))
    r = _giles(w, x)
    a = semantic.abs_(x)
    infinite = semantic.where(semantic.compare("gt", x, 0.0), float("inf"), float("-inf"))
    r = semantic.where(semantic.compare("eq", a, 1.0), infinite, r)
    return semantic.cast(semantic.where(semantic.compare("gt", a, 1.0), float("nan"), r), t)


def _giles(w: tensor, x: tensor) -> tensor:
    """erfinv(x) from w = -log(1 - x^2) and x: Giles' single-precision polynomials in w."""
    central = _horner(
        semantic.sub(w, 2.5),
        [1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087, -4.39150654e-06,
         -3.5233877e-06, 3.43273939e-07, 2.81022636e-08],
    )  # fmt: skip
    tail = _horner(
        semantic.sub(_sqrt(w), 3.0),
        [2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773, -0.00367342844,
         0.00134934322, 0.000100950558, -0.000200214257],
    )  # fmt: skip
    return semantic.mul(semantic.where(semantic.compare("lt", w, 5.0), central, tail), x)


def _erfc_tail_inverse(v: tensor) -> tensor:
    """z > 0 with erfc(z) = v for small float64 v (below 1e-6, where Giles' fit ends): from z0 =
    sqrt(L - log(pi L) / 2), L = -log v (erfc(z) ~ e^(-z^2) / (z sqrt(pi))), three Newton steps on
    log erfc(z) = log t + P(t) - z^2 (the erfc fit's form: no underflow), float64 throughout."""
    big_l = semantic.neg(_log_f64(v))
    z = _sqrt(semantic.sub(big_l, semantic.mul(_log_f64(semantic.mul(big_l, _math.pi)), 0.5)))
    target = semantic.neg(big_l)
    for _ in range(3):
        t = _div(1.0, semantic.add(semantic.mul(z, 0.5), 1.0))
        poly = _horner(t, _ERFCC)
        log_erfc = semantic.sub(semantic.add(_log_f64(t), poly), semantic.mul(z, z))
        # d/dz log erfc(z) = -(2 / sqrt(pi)) e^(-z^2) / erfc(z) = -(2 / sqrt(pi)) / (t e^P(t))
        slope = _div(-2.0 / _math.sqrt(_math.pi), semantic.mul(t, _exp_f64(poly)))
        z = semantic.sub(z, _div(semantic.sub(log_erfc, target), slope))
    return z


def _erfcinv(y: tensor) -> tensor:
    """erfcinv of float32 y in [0, 2]: erfinv(1 - y) with w = -log(y (2 - y)) taken from y itself (in
    float64), so that small y keeps its precision, and below 1e-6 (or above 2 - 1e-6) Newton's method
    on the erfc fit (_erfc_tail_inverse); +inf at 0, -inf at 2, NaN outside."""
    v = semantic.cast(y, core.float64)
    product = semantic.mul(v, semantic.sub(2.0, v))
    inside = semantic.logical_and(semantic.compare("gt", v, 0.0), semantic.compare("lt", v, 2.0))
    w = semantic.cast(semantic.neg(_log_f64(semantic.where(inside, product, 1.0))), core.float32)
    r = _giles(w, semantic.cast(semantic.sub(1.0, v), core.float32))
    near = semantic.minimum(v, semantic.sub(2.0, v))  # erfcinv(2 - y) = -erfcinv(y)
    tail = semantic.compare("lt", near, 1e-6)
    z = _erfc_tail_inverse(semantic.where(semantic.logical_and(tail, inside), near, 1e-7))
    z = semantic.cast(semantic.where(semantic.compare("gt", v, 1.0), semantic.neg(z), z), core.float32)
    r = semantic.where(tail, z, r)
    r = semantic.where(semantic.compare("eq", y, 0.0), float("inf"), r)
    r = semantic.where(semantic.compare("eq", y, 2.0), float("-inf"), r)
    outside = semantic.logical_or(semantic.compare("lt", y, 0.0), semantic.compare("gt", y, 2.0))
    return semantic.where(semantic.logical_or(outside, semantic.compare("ne", y, y)), float("nan"), r)


def _float32_estimate(tail: tensor) -> tensor:
    """erfcinv of float64 tail in (0, 1/2] to float32 accuracy: Giles' polynomials from float32, below
    1e-6 _erfc_tail_inverse in float64 (float32 would underflow)."""
    giles = semantic.cast(_erfcinv(semantic.cast(tail, core.float32)), core.float64)
    deep = semantic.compare("lt", tail, 1e-6)
    return semantic.where(deep, _erfc_tail_inverse(semantic.where(deep, tail, 1e-7)), giles)


def _erfcinv_f64(v: tensor) -> tensor:
    y = semantic.sub(1.0, v)
    centre = semantic.compare("le", semantic.abs_(y), 0.5)
    tail = semantic.minimum(v, semantic.sub(2.0, v))  # exact where it is used: v <= 1/2 or v >= 3/2
    estimate = semantic.where(
        centre, semantic.cast(_erfcinv(semantic.cast(v, core.float32)), core.float64), _float32_estimate(tail)
    )
    r = float64_special.inverse_erf(centre, y, tail, semantic.compare("gt", v, 1.0), estimate)
    r = semantic.where(semantic.compare("eq", v, 0.0), float("inf"), r)
    r = semantic.where(semantic.compare("eq", v, 2.0), float("-inf"), r)
    outside = semantic.logical_or(semantic.compare("lt", v, 0.0), semantic.compare("gt", v, 2.0))
    return semantic.where(semantic.logical_or(outside, semantic.compare("ne", v, v)), float("nan"), r)


def _erfinv_f64(y: tensor) -> tensor:
    a = semantic.abs_(y)
    centre = semantic.compare("le", a, 0.5)
    tail = semantic.sub(1.0, a)  # exact for |y| >= 1/2
    estimate = semantic.where(
        centre, semantic.cast(erfinv(semantic.cast(y, core.float32)), core.float64), _float32_estimate(tail)
    )
    r = float64_special.inverse_erf(centre, y, tail, semantic.compare("lt", y, 0.0), estimate)
    r = semantic.where(
        semantic.compare("eq", a, 1.0), _with_sign_of(semantic.add(semantic.mul(y, 0.0), float("inf")), y), r
    )
    return semantic.where(
        semantic.logical_or(semantic.compare("gt", a, 1.0), semantic.compare("ne", y, y)), float("nan"), r
    )


@builtin
def erfcinv(x) -> tensor:
    """Inverse complementary error function on [0, 2] (Giles' polynomials, accurate in the tail)."""
    if _is_float64(x):
        return _erfcinv_f64(x)
    x, t = _f32(x, "erfcinv")
    return semantic.cast(_erfcinv(x), t)


@builtin
def normcdfinv(x) -> tensor:
    """Inverse of the standard normal distribution function on [0, 1]: -sqrt(2) erfcinv(2 x)."""
    if _is_float64(x):
        return semantic.mul(_erfcinv_f64(semantic.mul(x, 2.0)), -_math.sqrt(2.0))
    x, t = _f32(x, "normcdfinv")
    return semantic.cast(semantic.mul(_erfcinv(semantic.mul(x, 2.0)), -_math.sqrt(2.0)), t)


@builtin
def cbrt(x) -> tensor:
    """Cube root (negative for negative x): 2^(log2|x| / 3) in float64."""
    if _is_float64(x):
        return float64_special.cbrt(x)
    x, t = _f32(x, "cbrt")
    a = semantic.cast(semantic.abs_(x), core.float64)
    finite = semantic.logical_and(semantic.compare("gt", a, 0.0), semantic.compare("lt", a, float("inf")))
    root = _exp2_f64(semantic.mul(_log2_f64(semantic.where(finite, a, 1.0)), 1.0 / 3.0))
    r = semantic.cast(semantic.where(finite, root, a), core.float32)  # 0, inf and NaN themselves
    return semantic.cast(_with_sign_of(r, x), t)


@builtin
def hypot(x, y) -> tensor:
    """sqrt(x^2 + y^2) without intermediate overflow (in float64); infinite if either is."""
    if _is_float64(x, y):
        return float64_special.norm(_float_operands("hypot", x, y))
    x, t = _f32(x, "hypot")
    y, _ = _f32(y, "hypot")
    wx, wy = semantic.cast(x, core.float64), semantic.cast(y, core.float64)
    r = semantic.cast(_sqrt(semantic.add(semantic.mul(wx, wx), semantic.mul(wy, wy))), core.float32)
    inf = semantic.logical_or(
        semantic.compare("eq", semantic.abs_(x), float("inf")),
        semantic.compare("eq", semantic.abs_(y), float("inf")),
    )
    return semantic.cast(semantic.where(inf, float("inf"), r), t)


@builtin
def exp10(x) -> tensor:
    """10^x, as 2^(x log2 10) in float64."""
    if _is_float64(x):
        return float64_special.exp10(x)
    x, t = _f32(x, "exp10")
    w = semantic.mul(semantic.cast(x, core.float64), _math.log2(10.0))
    clamped = semantic.minimum(semantic.maximum(w, -2000.0), 2000.0)
    r = _exp2_f64(semantic.where(semantic.compare("ne", w, w), 0.0, clamped))
    r = semantic.where(semantic.compare("ne", w, w), float("nan"), r)
    return semantic.cast(semantic.cast(r, core.float32), t)


# -- erfc, lgamma, tgamma: float64 arithmetic with tilec's own log2 / exp2, rounded to float32 ---------


def _exp_f64(u: tensor) -> tensor:
    """e^u in float64 (u clamped so that the result over- or underflows to inf or 0)."""
    w = semantic.mul(u, 1.0 / _math.log(2.0))
    return _exp2_f64(semantic.minimum(semantic.maximum(w, -2000.0), 2000.0))


def _log_f64(ax: tensor) -> tensor:
    return semantic.mul(_log2_f64(ax), _math.log(2.0))


def _special(name: str, fn, doc: str, float64=None):
    """A float32 libdevice function computed by `fn` on float64 (NaN in, NaN out); float64 operands
    go to `float64`, an algorithm accurate to float64, where there is one (else an error)."""

    def function(x) -> tensor:
        if float64 is not None and _float(x, name).dtype.is_fp64():
            v = semantic.to_tensor(x)
            return semantic.where(semantic.compare("ne", v, v), float("nan"), float64(v))
        x, t_out = _f32(x, name)
        v = semantic.cast(x, core.float64)
        r = semantic.where(semantic.compare("ne", v, v), float("nan"), fn(v))
        return semantic.cast(semantic.cast(r, core.float32), t_out)

    function.__name__, function.__doc__ = name, doc
    return builtin(function)


def _erfc_f64(v: tensor) -> tensor:
    """erfc of float64 v: t e^(P(t) - v^2) for v >= 0 with t = 1 / (1 + |v| / 2), the Chebyshev fit of
    Numerical Recipes' erfcc (relative error below 1.2e-7 for every v), and 2 - erfc(-v) below 0."""
    z = semantic.abs_(v)
    t = _div(1.0, semantic.add(semantic.mul(z, 0.5), 1.0))
    poly = _horner(t, _ERFCC)
    tail = semantic.mul(t, _exp_f64(semantic.sub(poly, semantic.mul(z, z))))
    r = semantic.where(semantic.compare("lt", v, 0.0), semantic.sub(2.0, tail), tail)
    return semantic.where(semantic.compare("ne", v, v), float("nan"), r)


_ERFCC = [-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398,
          1.48851587, -0.82215223, 0.17087277]  # fmt: skip


def _erfcx_f64(v: tensor) -> tensor:
    """e^(v^2) erfc(v) in float64: t e^(P(t)) for v >= 0 (no underflow), 2 e^(v^2) - that below 0."""
    z = semantic.abs_(v)
    t = _div(1.0, semantic.add(semantic.mul(z, 0.5), 1.0))
    scaled = semantic.mul(t, _exp_f64(_horner(t, _ERFCC)))  # e^(x^2) erfc(|x|)
    negative = semantic.sub(semantic.mul(_exp_f64(semantic.mul(z, z)), 2.0), scaled)
    below = semantic.compare("lt", v, 0.0)
    r = semantic.where(below, negative, scaled)
    return semantic.where(
        semantic.compare("eq", z, float("inf")), semantic.where(below, float("inf"), 0.0), r
    )


erfc = _special(
    "erfc",
    _erfc_f64,
    float64=float64_math.erfc,
    doc="1 - erf(x) without the cancellation for large x (relative error below 1.2e-7, down to float32's\n"
    "subnormals); 2 at -inf, 0 at +inf.",
)
erfcx = _special(
    "erfcx",
    _erfcx_f64,
    float64=float64_math.erfcx,
    doc="Scaled complementary error function e^(x^2) erfc(x): no underflow for large x (~1 / (x sqrt(pi)));\n"
    "overflows to inf for large negative x.",
)
normcdf = _special(
    "normcdf",
    lambda v: semantic.mul(_erfc_f64(semantic.mul(v, -1.0 / _math.sqrt(2.0))), 0.5),
    float64=float64_special.normcdf,
    doc="The standard normal distribution function, erfc(-x / sqrt(2)) / 2 (in float64).",
)

_LANCZOS_G = 7.0
_LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7]  # fmt: skip


def _lgamma_positive(x: tensor) -> tensor:
    """log Gamma(x) for float64 x >= 0.5 (Lanczos, g = 7, 9 terms: ~1e-15 relative in Gamma)."""
    y = semantic.sub(x, 1.0)
    series = semantic.add(semantic.mul(y, 0.0), _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], start=1):
        series = semantic.add(series, _div(c, semantic.add(y, float(i))))
    t = semantic.add(y, _LANCZOS_G + 0.5)
    r = semantic.sub(semantic.mul(semantic.add(y, 0.5), _log_f64(t)), t)
    return semantic.add(semantic.add(r, 0.5 * _math.log(2 * _math.pi)), _log_f64(series))


def _sin_pi(x: tensor) -> tensor:
    """sin(pi x) in float64 for finite x: x - round(x) is exact, then a Taylor series on
    [-pi/2, pi/2] (degree 23: below 1e-16) and the sign of round(x)'s parity."""
    n = builtins.floor(semantic.add(x, 0.5))
    r = semantic.mul(semantic.sub(x, n), _math.pi)
    r2 = semantic.mul(r, r)
    series = _horner(r2, [(-1.0) ** k / _math.factorial(2 * k + 1) for k in range(12)])
    s = semantic.mul(r, series)
    odd = semantic.compare(
        "ne", semantic.sub(n, semantic.mul(builtins.floor(semantic.mul(n, 0.5)), 2.0)), 0.0
    )
    return semantic.where(odd, semantic.neg(s), s)


def _lgamma_and_sign(x32: tensor) -> tuple[tensor, tensor, tensor]:
    """(log|Gamma(x)|, sin(pi x) for the sign of negative x, pole) in float64 for float32 x."""
    x = semantic.cast(x32, core.float64)
    small = semantic.compare("lt", x, 0.5)
    finite = semantic.compare("lt", semantic.abs_(x), float("inf"))
    safe = semantic.where(finite, x, 1.0)
    # reflection for x < 0.5: log|Gamma(x)| = log(pi / |sin(pi x)|) - log Gamma(1 - x)
    sin_pi = _sin_pi(safe)
    mirrored = _lgamma_positive(semantic.where(small, semantic.sub(1.0, safe), safe))
    pole = semantic.logical_and(small, semantic.compare("eq", sin_pi, 0.0))
    sin_abs = semantic.where(pole, 1.0, semantic.abs_(sin_pi))
    reflected = semantic.sub(_log_f64(_div(_math.pi, sin_abs)), mirrored)
    r = semantic.where(small, reflected, mirrored)
    exact_zero = semantic.logical_or(semantic.compare("eq", x, 1.0), semantic.compare("eq", x, 2.0))
    return semantic.where(exact_zero, 0.0, r), sin_pi, pole


@builtin
def lgamma(x) -> tensor:
    """log |Gamma(x)|: +inf at 0, at the negative integers and at +-inf, 0 at 1 and 2."""
    if _is_float64(x):
        return float64_special.lgamma(x)
    x, t_out = _f32(x, "lgamma")
    r, _, pole = _lgamma_and_sign(x)
    infinite = semantic.logical_or(pole, semantic.compare("eq", semantic.abs_(x), float("inf")))
    r = semantic.where(infinite, float("inf"), r)
    r = semantic.where(semantic.compare("ne", x, x), float("nan"), r)
    return semantic.cast(semantic.cast(r, core.float32), t_out)


@builtin
def tgamma(x) -> tensor:
    """Gamma(x): +-inf at +-0 (C's tgamma), NaN at the negative integers and -inf, +inf at +inf;
    e^(log|Gamma|) in float64 with the sign of sin(pi x) for negative x."""
    if _is_float64(x):
        return float64_special.tgamma(x)
    x, t_out = _f32(x, "tgamma")
    log_abs, sin_pi, pole = _lgamma_and_sign(x)
    magnitude = _exp_f64(semantic.where(pole, 0.0, log_abs))
    negative = semantic.logical_and(semantic.compare("lt", x, 0.0), semantic.compare("lt", sin_pi, 0.0))
    r = semantic.cast(semantic.where(negative, semantic.neg(magnitude), magnitude), core.float32)
    infinite = semantic.compare("eq", semantic.abs_(x), float("inf"))
    zero = semantic.compare("eq", x, 0.0)
    undefined = semantic.logical_or(
        semantic.logical_and(pole, semantic.logical_not(zero)),
        semantic.logical_and(infinite, semantic.compare("lt", x, 0.0)),
    )
    r = semantic.where(infinite, float("inf"), r)
    r = semantic.where(zero, _with_sign_of(semantic.add(semantic.mul(x, 0.0), float("inf")), x), r)
    r = semantic.where(semantic.logical_or(undefined, semantic.compare("ne", x, x)), float("nan"), r)
    return semantic.cast(r, t_out)


# -- Bessel functions: Numerical Recipes' rational and asymptotic fits, evaluated in float64 ----------

_J0_NUM = [57568490574.0, -13362590354.0, 651619640.7, -11214424.18, 77392.33017, -184.9052456]
_J0_DEN = [57568490411.0, 1029532985.0, 9494680.718, 59272.64853, 267.8532712, 1.0]
_J1_NUM = [72362614232.0, -7895059235.0, 242396853.1, -2972611.439, 15704.48260, -30.16036606]
_J1_DEN = [144725228442.0, 2300535178.0, 18583304.74, 99447.43394, 376.9991397, 1.0]
_Y0_NUM = [-2957821389.0, 7062834065.0, -512359803.6, 10879881.29, -86327.92757, 228.4622733]
_Y0_DEN = [40076544269.0, 745249964.8, 7189466.438, 47447.26470, 226.1030244, 1.0]
_Y1_NUM = [
    -0.4900604943e13,
    0.1275274390e13,
    -0.5153438139e11,
    0.7349264551e9,
    -0.4237922726e7,
    0.8511937935e4,
]
_Y1_DEN = [0.2499580570e14, 0.4244419664e12, 0.3733650367e10, 0.2245904002e8, 0.1020426050e6, 0.3549632885e3,
           1.0]  # fmt: skip
# amplitude terms of the large-argument forms: order 0 (j0, y0) and order 1 (j1, y1), in (8 / x)^2
_P0 = [1.0, -0.1098628627e-2, 0.2734510407e-4, -0.2073370639e-5, 0.2093887211e-6]
_Q0 = [-0.1562499995e-1, 0.1430488765e-3, -0.6911147651e-5, 0.7621095161e-6, -0.934935152e-7]
_P1 = [1.0, 0.183105e-2, -0.3516396496e-4, 0.2457520174e-5, -0.240337019e-6]
_Q1 = [0.04687499995, -0.2002690873e-3, 0.8449199096e-5, -0.88228987e-6, 0.105787412e-6]
_I0_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_LARGE = [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1, 0.2635537e-1,
             -0.1647633e-1, 0.392377e-2]  # fmt: skip
_I1_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3]
_I1_LARGE = [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1, -0.2895312e-1,
             0.1787654e-1, -0.420059e-2]  # fmt: skip


def _ratio(y: tensor, num: list, den: list) -> tensor:
    return _div(_horner(y, num), _horner(y, den))


def _oscillating(ax: tensor, order: int, second_kind: bool) -> tensor:
    """J or Y of order 0 or 1 for float64 ax >= 8: sqrt(2 / (pi ax)) (P cos(phase) - z Q sin(phase)) for
    J, (P sin(phase) + z Q cos(phase)) for Y, phase = ax - (2 order + 1) pi / 4, z = 8 / ax. The phase
    is reduced in float64 (sin_pi): accurate while |x| < 2^20."""
    z = _div(8.0, ax)
    y = semantic.mul(z, z)
    p, q = (_P0, _Q0) if order == 0 else (_P1, _Q1)
    amplitude, correction = _horner(y, p), semantic.mul(z, _horner(y, q))
    turns = semantic.sub(semantic.mul(ax, 1.0 / _math.pi), (2 * order + 1) / 4.0)
    sin, cos = _sin_pi(turns), _sin_pi(semantic.add(turns, 0.5))
    if second_kind:
        wave = semantic.add(semantic.mul(sin, amplitude), semantic.mul(cos, correction))
    else:
        wave = semantic.sub(semantic.mul(cos, amplitude), semantic.mul(sin, correction))
    return semantic.mul(_sqrt(_div(2.0 / _math.pi, ax)), wave)


def _bessel_j(x: tensor, order: int) -> tensor:
    """J0 or J1 of float64 x (absolute error ~1e-8)."""
    ax = semantic.abs_(x)
    large = semantic.compare("ge", ax, 8.0)
    finite = semantic.compare("lt", ax, float("inf"))
    safe = semantic.where(semantic.logical_and(large, finite), ax, 8.0)
    near = semantic.where(large, 1.0, ax)
    y = semantic.mul(near, near)
    if order == 0:
        small = _ratio(y, _J0_NUM, _J0_DEN)
    else:
        small = semantic.mul(near, _ratio(y, _J1_NUM, _J1_DEN))
    r = semantic.where(large, _oscillating(safe, order, second_kind=False), small)
    r = semantic.where(finite, r, 0.0)
    if order == 1:  # odd
        r = semantic.where(semantic.compare("lt", x, 0.0), semantic.neg(r), r)
    return r


def _bessel_y(x: tensor, order: int) -> tensor:
    """Y0 or Y1 of float64 x >= 0 (absolute error ~2e-8; -inf at 0, NaN below)."""
    large = semantic.compare("ge", x, 8.0)
    finite = semantic.compare("lt", x, float("inf"))
    safe = semantic.where(semantic.logical_and(large, finite), x, 8.0)
    near = semantic.where(semantic.logical_or(large, semantic.compare("le", x, 0.0)), 1.0, x)
    y = semantic.mul(near, near)
    log = _log_f64(near)
    if order == 0:
        small = semantic.add(
            _ratio(y, _Y0_NUM, _Y0_DEN), semantic.mul(semantic.mul(_bessel_j(near, 0), log), 2.0 / _math.pi)
        )
    else:
        singular = semantic.sub(semantic.mul(_bessel_j(near, 1), log), _div(1.0, near))
        small = semantic.add(
            semantic.mul(near, _ratio(y, _Y1_NUM, _Y1_DEN)), semantic.mul(singular, 2.0 / _math.pi)
        )
    r = semantic.where(large, _oscillating(safe, order, second_kind=True), small)
    r = semantic.where(finite, r, 0.0)
    r = semantic.where(semantic.compare("eq", x, 0.0), float("-inf"), r)
    return semantic.where(semantic.compare("lt", x, 0.0), float("nan"), r)


def _bessel_i(x: tensor, order: int) -> tensor:
    """I0 or I1 of float64 x (relative error below 2e-7; overflows to inf past |x| ~ 92 in float32)."""
    ax = semantic.abs_(x)
    large = semantic.compare("ge", ax, 3.75)
    t = _div(semantic.where(large, 3.75, ax), 3.75)
    t = semantic.mul(t, t)
    small = (
        _horner(t, _I0_SMALL)
        if order == 0
        else semantic.mul(semantic.where(large, 1.0, ax), _horner(t, _I1_SMALL))
    )
    far = semantic.where(large, ax, 3.75)
    scale = _div(_exp_f64(far), _sqrt(far))
    fit = _horner(_div(3.75, far), _I0_LARGE if order == 0 else _I1_LARGE)
    # Past 15 the fit's error grows (5e-7 near 90): the asymptotic series e^x / sqrt(2 pi x) sum_k
    # (-1)^k a_k / x^k, a_k = prod_{j<=k} (4 order^2 - (2j - 1)^2) / (k! 8^k), to 12 terms (< 1e-10).
    terms, a = [1.0], 1.0
    for k in range(1, 12):
        a *= (4.0 * order * order - (2 * k - 1) ** 2) / (k * 8.0)
        terms.append((-1) ** k * a)
    series = semantic.mul(_horner(_div(1.0, far), terms), 1.0 / _math.sqrt(2 * _math.pi))
    fit = semantic.where(semantic.compare("ge", far, 15.0), series, fit)
    r = semantic.where(large, semantic.mul(scale, fit), small)
    r = semantic.where(semantic.compare("eq", ax, float("inf")), float("inf"), r)
    if order == 1:
        r = semantic.where(semantic.compare("lt", x, 0.0), semantic.neg(r), r)
    return r


# -- Bessel functions on float64 operands, to float64 accuracy (about 1e-15 absolute, checked
# against SciPy): power series below 0.5, Miller's backward recurrence up to 25, Hankel's asymptotic
# expansion beyond; I0 and I1 by their series below 20 and their asymptotic expansion beyond.

_EULER_GAMMA = 0.57721566490153286061
_MILLER_START = 64  # even; J_64(25) / J_0(25) ~ 1e-19, and 1e-30 * growth stays finite down to x = 0.5


def _full(x: tensor, value: float) -> tensor:
    return semantic.broadcast_to(semantic.to_tensor(value, x.dtype), x.shape)


def _bessel_series_f64(x: tensor, order: int, second_kind: bool) -> tensor:
    """J or Y of order 0 or 1 for 0 < x < 0.5 (x float64): the power series in q = x^2 / 4, 12
    terms; Y adds (2 / pi) log(x / 2) J and the digamma-weighted series (Abramowitz & Stegun 9.1.11)."""
    q = semantic.mul(semantic.mul(x, x), 0.25)
    fact = _math.factorial
    if order == 0:
        j = _horner(q, [(-1) ** k / fact(k) ** 2 for k in range(12)])
    else:
        j = semantic.mul(x, _horner(q, [0.5 * (-1) ** k / (fact(k) * fact(k + 1)) for k in range(12)]))
    if not second_kind:
        return j
    harmonic = [sum(1.0 / i for i in range(1, k + 1)) for k in range(13)]
    log_half = semantic.sub(_log_f64(x), _math.log(2.0))  # x / 2 underflows for the least x
    if order == 0:  # (2/pi) (log(x/2) + gamma) J0 + (2/pi) sum_k>=1 (-1)^(k+1) H_k q^k / (k!)^2
        tail = _horner(q, [0.0] + [(-1) ** (k + 1) * harmonic[k] / fact(k) ** 2 for k in range(1, 12)])
        return semantic.mul(
            semantic.add(semantic.mul(semantic.add(log_half, _EULER_GAMMA), j), tail), 2.0 / _math.pi
        )
    # -2 / (pi x) + (2/pi) log(x/2) J1 - (1/pi) (x/2) sum_k (psi(k+1) + psi(k+2)) (-1)^k q^k / (k! (k+1)!)
    digammas = [harmonic[k] + harmonic[k + 1] - 2 * _EULER_GAMMA for k in range(12)]
    tail = _horner(q, [digammas[k] * (-1) ** k / (fact(k) * fact(k + 1)) for k in range(12)])
    r = semantic.sub(semantic.mul(log_half, j), semantic.mul(x, semantic.mul(tail, 0.25)))
    return semantic.sub(semantic.mul(r, 2.0 / _math.pi), _div(2.0 / _math.pi, x))


def _bessel_miller_f64(x: tensor, order: int, second_kind: bool) -> tensor:
    """J or Y of order 0 or 1 for 0.5 <= x <= 25 (x float64): J_n by the recurrence J_(n-1) = (2n / x)
    J_n - J_(n+1) from n = 64 down (stable downward), normalized by J_0 + 2 (J_2 + J_4 + ...) = 1;
    Y from the same J_n by Neumann's series: Y0 = (2/pi)(log(x/2) + gamma) J0 - (4/pi) sum_k>=1
    (-1)^k J_2k / k, and Y1 = -Y0' = -(2/(pi x)) J0 + (2/pi)(log(x/2) + gamma - 1) J1 - (2/pi)
    sum_k>=1 (-1)^k (2k + 1) / (k (k + 1)) J_(2k+1)."""
    two_over_x = _div(2.0, x)
    above, current = _full(x, 0.0), _full(x, 1e-30)  # J_(n+1), J_n unnormalized, n = 64
    n_top = _MILLER_START
    evens = current
    y0_sum = semantic.mul(current, (-1) ** (n_top // 2) / (n_top // 2))
    y1_sum = _full(x, 0.0)
    j1 = None
    for n in range(n_top, 0, -1):
        below = semantic.sub(semantic.mul(semantic.mul(two_over_x, float(n)), current), above)
        m = n - 1  # `below` is J_m
        if m > 0 and m % 2 == 0:
            evens = semantic.add(evens, below)
            if second_kind and order == 0:
                y0_sum = semantic.add(y0_sum, semantic.mul(below, (-1) ** (m // 2) / (m // 2)))
        elif m >= 3 and second_kind and order == 1:
            k = (m - 1) // 2
            y1_sum = semantic.add(y1_sum, semantic.mul(below, (-1) ** k * (2 * k + 1) / (k * (k + 1))))
        if m == 1:
            j1 = below
        above, current = current, below
    norm = semantic.add(current, semantic.mul(evens, 2.0))
    j0, j1 = _div(current, norm), _div(j1, norm)
    if not second_kind:
        return j0 if order == 0 else j1
    log_term = semantic.add(_log_f64(semantic.mul(x, 0.5)), _EULER_GAMMA)
    if order == 0:
        return semantic.sub(
            semantic.mul(semantic.mul(log_term, j0), 2.0 / _math.pi),
            semantic.mul(_div(y0_sum, norm), 4.0 / _math.pi),
        )
    r = semantic.sub(semantic.mul(semantic.sub(log_term, 1.0), j1), _div(y1_sum, norm))
    return semantic.sub(semantic.mul(r, 2.0 / _math.pi), semantic.mul(_div(j0, x), 2.0 / _math.pi))


def _bessel_hankel_f64(x: tensor, order: int, second_kind: bool) -> tensor:
    """J or Y of order 0 or 1 for finite x >= 25 (float64): sqrt(2 / (pi x)) (P cos w - Q sin w) for J,
    (P sin w + Q cos w) for Y, w = x - (2 order + 1) pi / 4, with P and Q Hankel's series to x^-15
    (terms below 1e-17 there); cos w and sin w from sin x and cos x, so that no rounded pi / 4
    enters the phase."""
    mu = 4.0 * order * order
    a = [1.0]
    for k in range(1, 16):
        a.append(a[-1] * (mu - (2 * k - 1) ** 2) / (k * 8.0))
    inv = _div(1.0, x)
    w = semantic.mul(inv, inv)
    p = _horner(w, [(-1) ** k * a[2 * k] for k in range(8)])
    q = semantic.mul(inv, _horner(w, [(-1) ** k * a[2 * k + 1] for k in range(8)]))
    sin, cos = builtins.sin(x), builtins.cos(x)
    half = _math.sqrt(0.5)
    if order == 0:  # w = x - pi/4
        cos_w, sin_w = semantic.mul(semantic.add(cos, sin), half), semantic.mul(semantic.sub(sin, cos), half)
    else:  # w = x - 3 pi/4
        cos_w, sin_w = semantic.mul(semantic.sub(sin, cos), half), semantic.mul(semantic.add(sin, cos), -half)
    if second_kind:
        wave = semantic.add(semantic.mul(p, sin_w), semantic.mul(q, cos_w))
    else:
        wave = semantic.sub(semantic.mul(p, cos_w), semantic.mul(q, sin_w))
    return semantic.mul(_sqrt(_div(2.0 / _math.pi, x)), wave)


def _bessel_f64(x: tensor, order: int, second_kind: bool) -> tensor:
    """J0, J1, Y0 or Y1 of a float64 tensor: each range's algorithm on a clamped copy, then selected."""
    ax = semantic.abs_(x)
    finite = semantic.compare("lt", ax, float("inf"))
    small = semantic.compare("lt", ax, 0.5)
    large = semantic.compare("gt", ax, 25.0)
    r = semantic.where(
        small,
        _bessel_series_f64(semantic.where(small, ax, 0.25), order, second_kind),
        _bessel_miller_f64(semantic.minimum(semantic.maximum(ax, 0.5), 25.0), order, second_kind),
    )
    far = semantic.where(semantic.logical_and(large, finite), ax, 25.0)
    r = semantic.where(large, _bessel_hankel_f64(far, order, second_kind), r)
    r = semantic.where(finite, r, 0.0)
    if second_kind:
        r = semantic.where(semantic.compare("eq", x, 0.0), float("-inf"), r)
        return semantic.where(semantic.compare("lt", x, 0.0), float("nan"), r)
    if order == 0:
        return semantic.where(semantic.compare("eq", x, 0.0), 1.0, r)
    r = semantic.where(semantic.compare("eq", x, 0.0), 0.0, r)
    return semantic.where(semantic.compare("lt", x, 0.0), semantic.neg(r), r)


def _bessel_i_f64(x: tensor, order: int) -> tensor:
    """I0 or I1 of a float64 tensor: the series sum_k q^k / (k! (k + order)!) (q = x^2 / 4, 40
    terms, all positive) below 20; beyond, e^x / sqrt(2 pi x) sum_k (-1)^k a_k / x^k (20 terms),
    e^x applied as two halves so that the result overflows only where I itself does."""
    ax = semantic.abs_(x)
    large = semantic.compare("ge", ax, 20.0)
    near = semantic.where(large, 1.0, ax)
    q = semantic.mul(semantic.mul(near, near), 0.25)
    fact = _math.factorial
    series = _horner(q, [0.5**order / (fact(k) * fact(k + order)) for k in range(40)])
    if order == 1:
        series = semantic.mul(series, near)  # (x / 2) sum ..., the half in the coefficients
    far = semantic.minimum(semantic.where(large, ax, 20.0), 1500.0)
    mu, a, terms = 4.0 * order * order, 1.0, [1.0]
    for k in range(1, 20):
        a *= (mu - (2 * k - 1) ** 2) / (k * 8.0)
        terms.append((-1) ** k * a)
    half = builtins.exp(semantic.mul(far, 0.5))  # tl.exp: float64 exp to an ulp (_exp_f64 goes by exp2)
    scaled = semantic.mul(_horner(_div(1.0, far), terms), _math.sqrt(0.5 / _math.pi))
    asymptotic = semantic.mul(semantic.mul(half, _div(scaled, _sqrt(far))), half)
    r = semantic.where(large, asymptotic, series)
    if order == 1:
        r = semantic.where(semantic.compare("lt", x, 0.0), semantic.neg(r), r)
    return r


j0 = _special(
    "j0",
    lambda v: _bessel_j(v, 0),
    "Bessel function of the first kind of order 0 (float32: ~1e-8 absolute, |x| < 2^20; float64: ~1e-15).",
    float64=lambda v: _bessel_f64(v, 0, second_kind=False),
)
j1 = _special(
    "j1",
    lambda v: _bessel_j(v, 1),
    "Bessel function of the first kind of order 1 (float32: ~1e-8 absolute, |x| < 2^20; float64: ~1e-15).",
    float64=lambda v: _bessel_f64(v, 1, second_kind=False),
)
y0 = _special(
    "y0",
    lambda v: _bessel_y(v, 0),
    "Bessel function of the second kind of order 0 (-inf at 0, NaN below; float32 for |x| < 2^20).",
    float64=lambda v: _bessel_f64(v, 0, second_kind=True),
)
y1 = _special(
    "y1",
    lambda v: _bessel_y(v, 1),
    "Bessel function of the second kind of order 1 (-inf at 0, NaN below; float32 for |x| < 2^20).",
    float64=lambda v: _bessel_f64(v, 1, second_kind=True),
)
cyl_bessel_i0 = _special(
    "cyl_bessel_i0",
    lambda v: _bessel_i(v, 0),
    "Modified Bessel function of the first kind of order 0 (float32: relative error < 2e-7; float64: ~1e-15).",
    float64=lambda v: _bessel_i_f64(v, 0),
)
cyl_bessel_i1 = _special(
    "cyl_bessel_i1",
    lambda v: _bessel_i(v, 1),
    "Modified Bessel function of the first kind of order 1 (float32: relative error < 2e-7; float64: ~1e-15).",
    float64=lambda v: _bessel_i_f64(v, 1),
)


def _integer_order(name: str, n, x) -> tensor:
    """jn / yn: the recurrences of _bessel_integer_order.py, a @jit function inlined here, on int32
    orders and float64 values broadcast to one shape (at least one dimension: the loops run to the
    block's largest order); the result in x's type."""
    n, x = semantic.to_tensor(n), _float(x, name)
    if not n.dtype.is_int():
        raise SemanticError(f"libdevice.{name}: the order n must be an integer, got {n.dtype}")
    shape = semantic.broadcast_shapes(tuple(n.shape), tuple(x.shape)) or (1,)
    orders = semantic.broadcast_to(semantic.cast(n, core.int32), shape)
    values = semantic.broadcast_to(semantic.cast(x, core.float64), shape)
    from . import _bessel_integer_order as recurrences

    fn = recurrences.bessel_j if name == "jn" else recurrences.bessel_y
    r = builtins.state.call_jit(fn, [orders, values], {})
    if not x.shape and not n.shape:  # back to a scalar: the one element, summed exactly
        r = reductions.reduce_tensors([r], 0, lambda a, b: semantic.add(a[0], b[0]))[0]
    return semantic.cast(r, x.dtype)


@builtin
def jn(n, x) -> tensor:
    """Bessel function of the first kind of integer order n (libdevice's argument order: n, then x):
    forward recurrence from j0/j1 where n < |x|, Miller's backward recurrence elsewhere (float64:
    ~1e-15 relative to the largest of J_0..J_n; float32 computed in float64)."""
    return _integer_order("jn", n, x)


@builtin
def yn(n, x) -> tensor:
    """Bessel function of the second kind of integer order n: forward recurrence from y0/y1
    (-inf at 0, NaN below; float32 computed in float64)."""
    return _integer_order("yn", n, x)


# -- integer bit functions: shifts and masks on the unsigned bits, every target ---------------------

_UNSIGNED_OF = {32: core.uint32, 64: core.uint64}
_SIGNED_OF = {32: core.int32, 64: core.int64}


def _int(x, name: str) -> tensor:
    x = semantic.to_tensor(x)
    if not x.dtype.is_int() or x.dtype.is_bool() or x.dtype.primitive_bitwidth not in (32, 64):
        raise SemanticError(f"libdevice.{name} needs a 32- or 64-bit integer, got {x.dtype}")
    return x


def _bits(x: tensor) -> tensor:
    """x's bits as the unsigned type of its width (logical shifts from here on)."""
    return semantic.cast(x, _UNSIGNED_OF[x.dtype.primitive_bitwidth], bitcast=True)


def _popcount(u: tensor) -> tensor:
    """Set bits of unsigned u (SWAR: pairs, nibbles, bytes, then a multiply sums the bytes)."""
    width = u.dtype.primitive_bitwidth
    m1, m2, m4 = (int(pattern * (width // 8), 16) for pattern in ("55", "33", "0f"))
    ones = int("01" * (width // 8), 16)
    u = semantic.sub(u, semantic.and_(semantic.shr(u, 1), m1))
    u = semantic.add(semantic.and_(u, m2), semantic.and_(semantic.shr(u, 2), m2))
    u = semantic.and_(semantic.add(u, semantic.shr(u, 4)), m4)
    return semantic.cast(semantic.shr(semantic.mul(u, ones), width - 8), core.int32)


@builtin
def popc(x) -> tensor:
    """The number of bits set in x (int32)."""
    return _popcount(_bits(_int(x, "popc")))


@builtin
def clz(x) -> tensor:
    """The number of leading zero bits of x (its width for 0; int32)."""
    u = _bits(_int(x, "clz"))
    width = u.dtype.primitive_bitwidth
    shift = 1
    while shift < width:  # smear the highest set bit into every lower one
        u = semantic.or_(u, semantic.shr(u, shift))
        shift *= 2
    return semantic.sub(width, _popcount(u))


@builtin
def ffs(x) -> tensor:
    """The 1-based position of the least significant set bit of x, 0 for x = 0 (int32)."""
    u = _bits(_int(x, "ffs"))
    lowest = semantic.and_(u, semantic.sub(semantic.xor_(u, u), u))  # u & -u
    position = semantic.add(_popcount(semantic.sub(lowest, 1)), 1)
    return semantic.where(semantic.compare("eq", u, 0), 0, position)


@builtin
def brev(x) -> tensor:
    """x with its bits in reverse order (same type)."""
    x = _int(x, "brev")
    u = _bits(x)
    width = u.dtype.primitive_bitwidth
    for shift, pattern in ((1, "55"), (2, "33"), (4, "0f")):
        mask = int(pattern * (width // 8), 16)
        u = semantic.or_(
            semantic.and_(semantic.shr(u, shift), mask), semantic.shl(semantic.and_(u, mask), shift)
        )
    shift = 8
    while shift < width:  # bytes, then halves, then words
        mask = int(("00" * (shift // 8) + "ff" * (shift // 8)) * (width // (2 * shift)), 16)
        u = semantic.or_(
            semantic.and_(semantic.shr(u, shift), mask), semantic.shl(semantic.and_(u, mask), shift)
        )
        shift *= 2
    return semantic.cast(u, x.dtype, bitcast=True)


@builtin
def mulhi(x, y) -> tensor:
    """The high 32 bits of the 64-bit product of two 32-bit integers (signed or unsigned)."""
    x, y, t = semantic._operands(_int(x, "mulhi"), _int(y, "mulhi"))
    if t.primitive_bitwidth != 32:
        raise SemanticError(f"libdevice.mulhi on {t} is not available in tilec (32-bit integers only)")
    wide = core.int64 if t.is_int_signed() else core.uint64
    return semantic.cast(semantic.shr(semantic.mul(semantic.cast(x, wide), semantic.cast(y, wide)), 32), t)


@builtin
def mul24(x, y) -> tensor:
    """The low 32 bits of the product of the (sign-extended) low 24 bits of two int32."""
    x, y, t = semantic._operands(_int(x, "mul24"), _int(y, "mul24"))

    def low24(v):
        return semantic.shr(semantic.shl(semantic.cast(v, core.int32), 8), 8)

    return semantic.cast(semantic.mul(low24(x), low24(y)), t)


@builtin
def hadd(x, y) -> tensor:
    """(x + y) >> 1 without overflow (rounded down)."""
    x, y, t = semantic._operands(_int(x, "hadd"), _int(y, "hadd"))
    return semantic.add(semantic.and_(x, y), semantic.shr(semantic.xor_(x, y), 1))


@builtin
def rhadd(x, y) -> tensor:
    """(x + y + 1) >> 1 without overflow."""
    x, y, t = semantic._operands(_int(x, "rhadd"), _int(y, "rhadd"))
    return semantic.sub(semantic.or_(x, y), semantic.shr(semantic.xor_(x, y), 1))


@builtin
def sad(x, y, z) -> tensor:
    """|x - y| + z for 32-bit integers (the difference taken without overflow; uint32 result)."""
    x, y, _ = semantic._operands(_int(x, "sad"), _int(y, "sad"))
    wide = core.int64 if x.dtype.is_int_signed() else core.uint64
    a, b = semantic.cast(x, wide), semantic.cast(y, wide)
    difference = semantic.where(semantic.compare("gt", a, b), semantic.sub(a, b), semantic.sub(b, a))
    return semantic.add(semantic.cast(difference, core.uint32), semantic.cast(_int(z, "sad"), core.uint32))


@builtin
def abs(x) -> tensor:
    """|x| for integers and floats."""
    return semantic.abs_(semantic.to_tensor(x))


# -- bit reinterpretation and conversions with a rounding mode ------------------------------------


def _typed_cast(name: str, src: core.dtype, dst: core.dtype, bitcast: bool):
    """libdevice's one-type conversions: `src` only, to `dst` by value (exact, or rounded to nearest
    even) or, with `bitcast`, reading the same bits."""

    def function(x) -> tensor:
        x = semantic.to_tensor(x)
        if x.dtype != src:
            raise SemanticError(f"libdevice.{name} takes {src}, got {x.dtype}")
        return semantic.cast(x, dst, bitcast=bitcast)

    function.__name__ = name
    function.__doc__ = (
        f"The bits of a {src} read as {dst}."
        if bitcast
        else f"{src} -> {dst} (exact, or rounded to nearest even)."
    )
    return builtin(function)


def _bitcast(name: str, src: core.dtype, dst: core.dtype):
    return _typed_cast(name, src, dst, bitcast=True)


float_as_int = _bitcast("float_as_int", core.float32, core.int32)
int_as_float = _bitcast("int_as_float", core.int32, core.float32)
float_as_uint = _bitcast("float_as_uint", core.float32, core.uint32)
uint_as_float = _bitcast("uint_as_float", core.uint32, core.float32)
double_as_longlong = _bitcast("double_as_longlong", core.float64, core.int64)
longlong_as_double = _bitcast("longlong_as_double", core.int64, core.float64)

_ROUNDINGS = {"rn": "roundeven", "rz": "trunc", "rd": "floor", "ru": "ceil"}


def _to_integer(name: str, src: core.dtype, dst: core.dtype, mode: str):
    """float -> integer rounded per `mode`, saturating as the GPUs' cvt does: NaN -> 0, out of range
    -> the type's least or greatest value (LLVM's own conversion leaves those undefined)."""

    def function(x) -> tensor:
        x = semantic.to_tensor(x)
        if x.dtype != src:
            raise SemanticError(f"libdevice.{name} takes {src}, got {x.dtype}")
        rounded = semantic.cast(_math_op(_ROUNDINGS[mode])(x), core.float64)
        bits = dst.primitive_bitwidth
        low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1)) if dst.is_int_signed() else (0, 2**bits)
        too_low = semantic.compare("lt", rounded, float(low))
        too_high = semantic.compare("ge", rounded, float(high))
        nan = semantic.compare("ne", rounded, rounded)
        safe = semantic.where(semantic.logical_or(semantic.logical_or(too_low, too_high), nan), 0.0, rounded)
        value = semantic.cast(safe, dst)
        value = semantic.where(too_low, semantic.to_tensor(low, dst), value)
        return semantic.where(too_high, semantic.to_tensor(high - 1, dst), value)

    function.__name__ = name
    function.__doc__ = (
        f"{src} -> {dst}, rounded {dict(rn='to nearest even', rz='toward zero', rd='down', ru='up')[mode]}; "
        "NaN gives 0 and out-of-range values saturate."
    )
    return builtin(function)


for _src_name, _src in (("float", core.float32), ("double", core.float64)):
    for _dst_name, _dst in (
        ("int", core.int32),
        ("uint", core.uint32),
        ("ll", core.int64),
        ("ull", core.uint64),
    ):
        for _mode in _ROUNDINGS:
            _name = f"{_src_name}2{_dst_name}_{_mode}"
            globals()[_name] = _to_integer(_name, _src, _dst, _mode)


def _exact_to(name: str, src: core.dtype, dst: core.dtype):
    return _typed_cast(name, src, dst, bitcast=False)


int2double_rn = _exact_to("int2double_rn", core.int32, core.float64)
uint2double_rn = _exact_to("uint2double_rn", core.uint32, core.float64)
int2float_rn = _exact_to("int2float_rn", core.int32, core.float32)
uint2float_rn = _exact_to("uint2float_rn", core.uint32, core.float32)
ll2float_rn = _exact_to("ll2float_rn", core.int64, core.float32)
ull2float_rn = _exact_to("ull2float_rn", core.uint64, core.float32)
ll2double_rn = _exact_to("ll2double_rn", core.int64, core.float64)
ull2double_rn = _exact_to("ull2double_rn", core.uint64, core.float64)
double2float_rn = _exact_to("double2float_rn", core.float64, core.float32)


@builtin
def llrint(x) -> tensor:
    """x rounded to the nearest integer (halves to even), as int64."""
    return semantic.cast(rint(x), core.int64)


@builtin
def llround(x) -> tensor:
    """x rounded to the nearest integer (halves away from zero), as int64."""
    return semantic.cast(round(x), core.int64)


# -- float functions built from exact float64 steps -------------------------------------------


@builtin
def fmod(x, y) -> tensor:
    """C's fmod: x - trunc(x / y) y, exact (the sign of x), as `%` on floats (on GPUs computed by
    tile-exact-float-remainder's exact reduction steps)."""
    x, y, t = semantic._operands(_float(x, "fmod"), y)
    return semantic.mod(x, y)


@builtin
def remainder(x, y) -> tensor:
    """IEEE's remainder: x - n y with n the integer nearest x / y (ties to even), exact, |result| <=
    |y| / 2; a zero result has x's sign. From the exact fmod of |x| by 2|y|: one more |y| off gives
    n's parity, and a remainder past |y| / 2 (or at it, n odd) goes to the nearer multiple."""
    x, y, t = semantic._operands(_float(x, "remainder"), y)
    ax, ay = semantic.abs_(x), semantic.abs_(y)
    twice = semantic.mul(ay, 2.0)  # infinite only when |y| > max / 2, so |x| < 2|y| already
    a = semantic.where(semantic.compare("eq", twice, float("inf")), ax, semantic.mod(ax, twice))
    odd = semantic.compare("ge", a, ay)
    a = semantic.where(odd, semantic.sub(a, ay), a)  # exact: |y| <= a < 2|y|
    doubled = semantic.mul(a, 2.0)  # compared with |y| rather than a with |y| / 2, inexact below normals
    up = semantic.logical_or(
        semantic.compare("gt", doubled, ay),
        semantic.logical_and(semantic.compare("eq", doubled, ay), odd),
    )
    a = semantic.where(up, semantic.sub(a, ay), a)  # exact: |y| / 2 <= a < |y|
    positive = semantic.add(ay, 1.0)  # nonzero: copysign of it reads x's sign bit (-0 included)
    negative = semantic.compare("lt", tensor(_mlir_math.copysign(positive.handle, x.handle), t, x.shape), 0.0)
    result = semantic.where(negative, semantic.neg(a), a)
    invalid = semantic.logical_or(
        semantic.logical_or(semantic.compare("ne", x, x), semantic.compare("ne", y, y)),
        semantic.logical_or(semantic.compare("eq", y, 0.0), semantic.compare("eq", ax, float("inf"))),
    )
    result = semantic.where(semantic.compare("eq", ay, float("inf")), x, result)
    return semantic.where(invalid, float("nan"), result)


@builtin
def fdim(x, y) -> tensor:
    """x - y where x > y, else +0 (NaN if either is)."""
    x, y, t = semantic._operands(_float(x, "fdim"), y)
    nan = semantic.logical_or(semantic.compare("ne", x, x), semantic.compare("ne", y, y))
    r = semantic.where(semantic.compare("gt", x, y), semantic.sub(x, y), 0.0)
    return semantic.where(nan, float("nan"), r)


def _pi_function(name: str, quarter_turns: float):
    def function(x) -> tensor:
        if _is_float64(x):
            return float64_special.cospi(x) if quarter_turns else float64_special.sinpi(x)
        x, t = _f32(x, name)
        v = semantic.cast(x, core.float64)
        finite = semantic.compare("lt", semantic.abs_(v), float("inf"))
        # x mod 2 first, as x - 2 floor(x / 2) (exact for float32 x): past 2^52 the quarter turn
        # would be lost in rounding. (Not with a float remainder: AMD has none without ROCm's library.)
        v = semantic.where(finite, v, 0.0)
        turns = semantic.sub(v, semantic.mul(builtins.floor(semantic.mul(v, 0.5)), 2.0))
        r = _sin_pi(semantic.add(turns, quarter_turns))
        r = semantic.where(finite, r, float("nan"))
        return semantic.cast(semantic.cast(r, core.float32), t)

    function.__name__ = name
    function.__doc__ = f"{'sin' if not quarter_turns else 'cos'}(pi x), reduced exactly (NaN for inf)."
    return builtin(function)


sinpi = _pi_function("sinpi", 0.0)
cospi = _pi_function("cospi", 0.5)


def _norm(name: str, arity: int, reciprocal: bool):
    def function(*args) -> tensor:
        if len(args) != arity:
            raise SemanticError(f"libdevice.{name} takes {arity} arguments, got {len(args)}")
        if _is_float64(*args):
            return float64_special.norm(_float_operands(name, *args), reciprocal)
        values = [semantic.cast(_f32(a, name)[0], core.float64) for a in args]
        t = _f32(args[0], name)[1]
        total = values[0]
        total = semantic.mul(total, total)
        for v in values[1:]:
            total = semantic.add(total, semantic.mul(v, v))
        r = _sqrt(total)
        if reciprocal:
            r = _div(1.0, r)
        infinite = values[0]
        inf = semantic.compare("eq", semantic.abs_(infinite), float("inf"))
        for v in values[1:]:
            inf = semantic.logical_or(inf, semantic.compare("eq", semantic.abs_(v), float("inf")))
        r = semantic.where(inf, 0.0 if reciprocal else float("inf"), r)  # inf wins over NaN, as in C
        return semantic.cast(semantic.cast(r, core.float32), t)

    function.__name__ = name
    kind = "1 / sqrt" if reciprocal else "sqrt"
    function.__doc__ = f"{kind} of the sum of the squares of its {arity} arguments (in float64)."
    return builtin(function)


rhypot = _norm("rhypot", 2, True)
norm3d = _norm("norm3d", 3, False)
rnorm3d = _norm("rnorm3d", 3, True)
norm4d = _norm("norm4d", 4, False)
rnorm4d = _norm("rnorm4d", 4, True)


@builtin
def rcbrt(x) -> tensor:
    """1 / cbrt(x)."""
    if _is_float64(x):
        return _div(1.0, float64_special.cbrt(x))
    x, t = _f32(x, "rcbrt")
    return semantic.cast(semantic.cast(_div(1.0, semantic.cast(cbrt(x), core.float64)), core.float32), t)


def _power_of_two(n: tensor) -> tensor:
    """2^n as float64 for int32 n in [-1022, 1023], built from its exponent bits."""
    biased = semantic.shl(semantic.add(semantic.cast(n, core.int64), 1023), 52)
    return semantic.cast(biased, core.float64, bitcast=True)


@builtin
def ldexp(x, n) -> tensor:
    """x 2^n, correctly rounded (subnormal results included): two exact float64 scalings of x."""
    if _is_float64(x):
        n = semantic.to_tensor(n)
        if not n.dtype.is_int():
            raise SemanticError(f"libdevice.ldexp needs an integer exponent, got {n.dtype}")
        shape = semantic.broadcast_shapes(x.shape, n.shape)
        return float64_special.ldexp(semantic.broadcast_to(x, shape), semantic.broadcast_to(n, shape))
    x, t = _f32(x, "ldexp")
    n = semantic.cast(semantic.to_tensor(n), core.int32)
    n = semantic.minimum(semantic.maximum(n, -400), 400)  # beyond this every float32 is 0 or inf
    half = semantic.floordiv(n, 2)
    v = semantic.mul(semantic.cast(x, core.float64), _power_of_two(half))
    v = semantic.mul(v, _power_of_two(semantic.sub(n, half)))
    return semantic.cast(semantic.cast(v, core.float32), t)


scalbn = ldexp


def _exponent(x: tensor) -> tensor:
    """The unbiased exponent of finite, nonzero float32 x (subnormals normalized first), int32."""
    subnormal = semantic.compare("lt", semantic.abs_(x), 2.0**-126)
    scaled = semantic.where(subnormal, semantic.mul(x, 2.0**23), x)
    bits = semantic.cast(scaled, core.int32, bitcast=True)
    e = semantic.sub(semantic.and_(semantic.shr(bits, 23), 0xFF), 127)
    return semantic.where(subnormal, semantic.sub(e, 23), e)


@builtin
def ilogb(x) -> tensor:
    """The exponent of x as int32: floor(log2 |x|); INT_MIN for 0 and NaN, INT_MAX for inf."""
    if _is_float64(x):
        return float64_special.ilogb(x)
    x, _ = _f32(x, "ilogb")
    e = _exponent(x)
    e = semantic.where(semantic.compare("eq", semantic.abs_(x), float("inf")), 2**31 - 1, e)
    return semantic.where(
        semantic.logical_or(semantic.compare("eq", x, 0.0), semantic.compare("ne", x, x)), -(2**31), e
    )


@builtin
def logb(x) -> tensor:
    """The exponent of x as a float: floor(log2 |x|); -inf for 0, +inf for inf, NaN for NaN."""
    if _is_float64(x):
        return float64_special.logb(x)
    x, t = _f32(x, "logb")
    r = semantic.cast(_exponent(x), core.float32)
    r = semantic.where(semantic.compare("eq", x, 0.0), float("-inf"), r)
    r = semantic.where(semantic.compare("eq", semantic.abs_(x), float("inf")), float("inf"), r)
    return semantic.cast(semantic.where(semantic.compare("ne", x, x), float("nan"), r), t)


@builtin
def nextafter(x, y) -> tensor:
    """The float32 next to x in the direction of y (y when equal; NaN if either is)."""
    if _is_float64(x, y):
        return float64_special.nextafter(*_float_operands("nextafter", x, y))
    x, t = _f32(x, "nextafter")
    y, _ = _f32(y, "nextafter")
    return semantic.cast(float64_special.nextafter(x, y), t)


# -- arithmetic rounded on its own, fast variants, bit assembly ---------------------------------------


def _unfused(name: str, combine):
    """x `combine` y rounded to nearest on its own: never contracted with a neighbouring multiply or
    add into an FMA, which GPUs otherwise do (enable_fp_fusion), as libdevice's __nv_fadd_rn does."""

    def function(x, y) -> tensor:
        x, y, _ = semantic._operands(_float(x, name), y)
        r = combine(x, y)
        r.handle.owner.attributes[contract.NO_FP_FUSION] = _ir.UnitAttr.get()
        return r

    function.__name__ = name
    function.__doc__ = (
        f"x {dict(add_rn='+', sub_rn='-', mul_rn='*')[name]} y, correctly rounded, never fused into an FMA."
    )
    return builtin(function)


add_rn = _unfused("add_rn", semantic.add)
sub_rn = _unfused("sub_rn", semantic.sub)
mul_rn = _unfused("mul_rn", semantic.mul)


@builtin
def rsqrt_rn(x) -> tensor:
    """1 / sqrt(x) correctly rounded (float32; computed in float64)."""
    x, t_out = _f32(x, "rsqrt_rn")
    v = semantic.cast(x, core.float64)
    return semantic.cast(semantic.cast(_div(1.0, _sqrt(v)), core.float32), t_out)


@builtin
def fast_dividef(x, y) -> tensor:
    """x / y (float32; libdevice's fast division, here the ordinary one)."""
    x, y, _ = semantic._operands(_float(x, "fast_dividef"), y)
    return semantic.truediv(x, y)


@builtin
def saturatef(x) -> tensor:
    """x clamped to [0, 1]; NaN gives 0."""
    x = _float(x, "saturatef")
    return semantic.where(semantic.compare("gt", x, 0.0), semantic.minimum(x, 1.0), 0.0)


@builtin
def byte_perm(x, y, selector) -> tensor:
    """CUDA's __byte_perm: byte i of the result is byte (selector >> 4 i) & 7 of the eight bytes
    y:x (x's bytes 0-3, y's 4-7), int32."""
    x, y, selector = (_int(v, "byte_perm") for v in (x, y, selector))
    if any(v.dtype.primitive_bitwidth != 32 for v in (x, y, selector)):
        raise SemanticError("libdevice.byte_perm needs 32-bit integers")
    wide = [semantic.cast(_bits(v), core.uint64) for v in (x, y, selector)]
    both = semantic.or_(wide[0], semantic.shl(wide[1], 32))
    result = None
    for i in range(4):
        pick = semantic.and_(semantic.shr(wide[2], 4 * i), 7)
        byte = semantic.and_(semantic.shr(both, semantic.mul(pick, 8)), 0xFF)
        placed = semantic.shl(byte, 8 * i)
        result = placed if result is None else semantic.or_(result, placed)
    return semantic.cast(semantic.cast(result, core.uint32), core.int32, bitcast=True)


@builtin
def hiloint2double(hi, lo) -> tensor:
    """The float64 whose high 32 bits are hi and low 32 bits lo (int32s)."""
    hi, lo = _int(hi, "hiloint2double"), _int(lo, "hiloint2double")
    high = semantic.shl(semantic.cast(_bits(hi), core.uint64), 32)
    bits = semantic.or_(high, semantic.cast(_bits(lo), core.uint64))
    return semantic.cast(bits, core.float64, bitcast=True)


def _double_half(x, name: str, high: bool) -> tensor:
    x = _float(x, name)
    if not x.dtype.is_fp64():
        raise SemanticError(f"libdevice.{name} needs a float64 operand, got {x.dtype}")
    bits = semantic.cast(x, core.uint64, bitcast=True)
    if high:
        bits = semantic.shr(bits, 32)
    return semantic.cast(semantic.cast(bits, core.uint32), core.int32, bitcast=True)


@builtin
def double2loint(x) -> tensor:
    """The low 32 bits of a float64, as int32."""
    return _double_half(x, "double2loint", high=False)


@builtin
def double2hiint(x) -> tensor:
    """The high 32 bits of a float64 (sign, exponent, top of the significand), as int32."""
    return _double_half(x, "double2hiint", high=True)


_HIGH_WORD = 0xFFFFFFFF00000000


def _high_word_only(v: tensor) -> tensor:
    bits = semantic.cast(v, core.uint64, bitcast=True)
    return semantic.cast(semantic.and_(bits, _HIGH_WORD), core.float64, bitcast=True)


@builtin
def rcp64h(x) -> tensor:
    """1 / x from the high 32 bits of a float64 (its low 32 bits taken as zero), the result's low 32
    bits zero: PTX's `rcp.approx.ftz.f64` gross approximation (relative error below 2^-20; here the
    correctly rounded reciprocal of the truncated x, truncated). Subnormal operands and results
    flush to zero of their sign (ftz): 1 / +-0 is +-inf."""
    x = _float(x, "rcp64h")
    if not x.dtype.is_fp64():
        raise SemanticError(f"libdevice.rcp64h needs a float64 operand, got {x.dtype}")
    least_normal = 2.0**-1022

    def flush(v):
        return semantic.where(
            semantic.compare("lt", semantic.abs_(v), least_normal), _with_sign_of(_full(v, 0.0), v), v
        )

    r = flush(_high_word_only(builtins.div_rn(_full(x, 1.0), _high_word_only(flush(x)))))
    return semantic.where(semantic.compare("ne", x, x), x, r)


# -- arithmetic and conversions rounded toward zero, down or up (rz, rd, ru) --------------------------
# Each is the correctly rounded (to nearest) result r, stepped one ulp where the exact value lies on
# the other side of r than the mode allows. Where r's error is: float32 operations compute it
# exactly in float64 (products of two floats and their sums with a third are exact or two-sum exact
# there); float64 sums by Knuth's two-sum, products, quotients and square roots by an FMA residual,
# scaled by powers of two where it could fall below the subnormals (_float64_residual).

_STEP_MODES = {"rz": "toward zero", "rd": "down", "ru": "up"}
_INT_OF_WIDTH = {32: core.int32, 64: core.int64}


def _step(r: tensor, up: tensor) -> tensor:
    """The next float after r toward +inf where `up`, toward -inf elsewhere (from zero: the least
    subnormal of that sign); NaN stays."""
    bits_t = _INT_OF_WIDTH[r.dtype.primitive_bitwidth]
    bits = semantic.cast(r, bits_t, bitcast=True)
    positive = semantic.compare("gt", r, 0.0)
    # up from a positive value or down from a negative one adds one to the magnitude's bits
    grow = semantic.compare("eq", up, positive)
    stepped = semantic.cast(
        semantic.where(grow, semantic.add(bits, 1), semantic.sub(bits, 1)), r.dtype, bitcast=True
    )
    least = semantic.cast(semantic.to_tensor(1, bits_t), r.dtype, bitcast=True)
    from_zero = semantic.where(up, least, semantic.neg(least))
    stepped = semantic.where(
        semantic.compare("eq", r, 0.0), semantic.broadcast_to(from_zero, r.shape), stepped
    )
    return semantic.where(semantic.compare("ne", r, r), r, stepped)


def _round_directed(r: tensor, above: tensor, below: tensor, mode: str) -> tensor:
    """r adjusted for `mode`, given where the exact value is above r and where below."""
    if mode == "ru":
        return semantic.where(above, _step(r, semantic.to_tensor(True)), r)
    if mode == "rd":
        return semantic.where(below, _step(r, semantic.to_tensor(False)), r)
    toward_zero_down = semantic.logical_and(below, semantic.compare("gt", r, 0.0))
    toward_zero_up = semantic.logical_and(above, semantic.compare("lt", r, 0.0))
    r = semantic.where(toward_zero_down, _step(r, semantic.to_tensor(False)), r)
    return semantic.where(toward_zero_up, _step(r, semantic.to_tensor(True)), r)


def _sign_split(difference: tensor) -> tuple[tensor, tensor]:
    return semantic.compare("gt", difference, 0.0), semantic.compare("lt", difference, 0.0)


def _two_sum(a: tensor, b: tensor) -> tuple[tensor, tensor]:
    """(s, e): s = a + b rounded, e = a + b - s exactly (Knuth; no multiplies, so nothing to fuse)."""
    s = semantic.add(a, b)
    b_virtual = semantic.sub(s, a)
    a_virtual = semantic.sub(s, b_virtual)
    return s, semantic.add(semantic.sub(a, a_virtual), semantic.sub(b, b_virtual))


def _float_operands(name: str, *values) -> list[tensor]:
    """float32 or float64 operands of one type and shape (Python numbers taking the tensors' type)."""
    if len(values) == 1:
        xs = [_float(values[0], name)]
    else:
        first, rest = values[0], []
        for v in values[1:]:
            first, v, _ = semantic._operands(first, v)
            rest.append(v)
        xs = [first] + [semantic.broadcast_to(v, first.shape) for v in rest]
        xs = [semantic.cast(v, first.dtype) for v in xs]
    t = xs[0].dtype
    if not (t.is_fp32() or t.is_fp64()):
        raise SemanticError(f"libdevice.{name} takes float32 or float64 operands, got {t}")
    return xs


def _unfused(r: tensor) -> tensor:
    """r's operation rounds on its own (no FMA with the operation producing an operand)."""
    r.handle.owner.attributes[contract.NO_FP_FUSION] = _ir.UnitAttr.get()
    return r


def _exact_side(exact_minus_r_parts: list[tensor]) -> tuple[tensor, tensor]:
    """(above, below) from an exact difference given as parts d0 + d1 with |d1| smaller than any
    nonzero |d0| (d0 decides unless it is 0)."""
    d0, d1 = exact_minus_r_parts
    above0, below0 = _sign_split(d0)
    above1, below1 = _sign_split(d1)
    zero0 = semantic.compare("eq", d0, 0.0)
    return (
        semantic.logical_or(above0, semantic.logical_and(zero0, above1)),
        semantic.logical_or(below0, semantic.logical_and(zero0, below1)),
    )


def _directed_add(name: str, mode: str, negate: bool):
    def function(x, y) -> tensor:
        x, y = _float_operands(name, x, y)
        if negate:
            y = semantic.neg(y)
        r = _unfused(semantic.add(x, y))
        if x.dtype.is_fp32():
            s, e = _two_sum(semantic.cast(x, core.float64), semantic.cast(y, core.float64))
            above, below = _exact_side([semantic.sub(s, semantic.cast(r, core.float64)), e])
        else:
            s, e = _two_sum(x, y)
            # an overflow to +-inf from finite operands: the exact sum is finite, on the inner side
            overflow = semantic.logical_and(
                semantic.compare("eq", semantic.abs_(r), float("inf")),
                semantic.logical_and(
                    semantic.compare("lt", semantic.abs_(x), float("inf")),
                    semantic.compare("lt", semantic.abs_(y), float("inf")),
                ),
            )
            above, below = _sign_split(semantic.where(overflow, semantic.neg(r), e))
        result = _round_directed(r, above, below, mode)
        if mode == "rd":
            both_positive_zero = semantic.logical_and(_is_positive_zero(x), _is_positive_zero(y))
            result = _negative_exact_zero(result, above, below, both_positive_zero)
        return result

    function.__name__ = name
    function.__doc__ = f"x {'-' if negate else '+'} y rounded {_STEP_MODES[mode]} (float32, float64)."
    return builtin(function)


def _signbit(x: tensor) -> tensor:
    bits_t = _INT_OF_WIDTH[x.dtype.primitive_bitwidth]
    return semantic.compare("lt", semantic.cast(x, bits_t, bitcast=True), 0)


def _is_positive_zero(x: tensor) -> tensor:
    return semantic.logical_and(semantic.compare("eq", x, 0.0), semantic.logical_not(_signbit(x)))


def _negative_exact_zero(result: tensor, above: tensor, below: tensor, both_positive_zero: tensor) -> tensor:
    """IEEE's rounding down of an exact zero sum: -0, unless both terms are +0."""
    exact_zero = semantic.logical_and(
        semantic.compare("eq", result, 0.0), semantic.logical_not(semantic.logical_or(above, below))
    )
    minus = semantic.logical_and(exact_zero, semantic.logical_not(both_positive_zero))
    return semantic.where(minus, semantic.neg(semantic.abs_(result)), result)


def _residual_rounding(name: str, mode: str, kind: str):
    """mul, div, sqrt and rcp rounded toward zero, down or up: the nearest result r, and the sign of
    the exact value minus r from a residual computed exactly (in float64 for float32; by an FMA for
    float64, with the operands scaled by powers of two where r is tiny, so that the residual does
    not fall below the subnormals)."""

    def function(*args) -> tensor:
        xs = _float_operands(name, *args)
        x = xs[0]
        if kind == "mul":
            r = _unfused(semantic.mul(xs[0], xs[1]))
        elif kind == "sqrt":
            r = builtins.sqrt_rn(x)
        else:  # div, rcp
            a, b = (xs[0], xs[1]) if kind == "div" else (_full(x, 1.0), x)
            r = builtins.div_rn(a, b)
        if x.dtype.is_fp32():  # float64 holds the float32 residual exactly
            r64 = semantic.cast(r, core.float64)
            v = [semantic.cast(t, core.float64) for t in xs]
            if kind == "mul":
                difference = semantic.sub(semantic.mul(v[0], v[1]), r64)
            elif kind == "sqrt":
                difference = semantic.sub(v[0], semantic.mul(r64, r64))
            elif kind == "div":
                difference = semantic.mul(semantic.sub(v[0], semantic.mul(r64, v[1])), _sign_of(v[1]))
            else:
                difference = semantic.mul(semantic.sub(1.0, semantic.mul(r64, v[0])), _sign_of(v[0]))
            overflow = None  # r64 = inf gives an infinite difference of the right sign
        else:
            difference = _float64_residual(kind, xs, r)
            finite_in = semantic.compare("lt", semantic.abs_(xs[0]), float("inf"))
            for t in xs[1:]:
                finite_in = semantic.logical_and(
                    finite_in, semantic.compare("lt", semantic.abs_(t), float("inf"))
                )
            if kind in ("div", "rcp"):  # x / 0 is an exact infinity, not an overflow
                finite_in = semantic.logical_and(finite_in, semantic.compare("ne", xs[-1], 0.0))
            overflow = semantic.logical_and(finite_in, semantic.compare("eq", semantic.abs_(r), float("inf")))
            # an overflow of finite operands: the exact value is finite, inside r
            difference = semantic.where(overflow, semantic.neg(r), difference)
        # NaN residuals (NaN, infinite or zero operands, where r is exact) change nothing
        difference = semantic.where(semantic.compare("ne", difference, difference), 0.0, difference)
        above, below = _sign_split(difference)
        return _round_directed(r, above, below, mode)

    function.__name__ = name
    what = {"mul": "x * y", "div": "x / y", "sqrt": "sqrt(x)", "rcp": "1 / x"}[kind]
    function.__doc__ = f"{what} rounded {_STEP_MODES[mode]} (float32, float64)."
    return builtin(function)


_TINY = 2.0**-900  # below it a float64 residual may fall under the subnormals: scale by 2^200
_UP = 2.0**200


def _float64_residual(kind: str, xs: list, r: tensor) -> tensor:
    """The sign-carrying residual of a float64 mul, div, sqrt or rcp: x * y - r, (x - r y) sign(y),
    x - r^2, (1 - r x) sign(x), each exact by one FMA, its operands scaled where r (or sqrt's x)
    is tiny."""
    x = xs[0]
    if kind == "rcp":  # |1 - r x| is never tiny: no scaling
        return semantic.mul(builtins.fma(semantic.neg(r), x, 1.0), _sign_of(x))
    if kind == "sqrt":  # sqrt(x 2^200) = sqrt(x) 2^100: compare r 2^100 with it
        tiny = semantic.compare("lt", x, _TINY)
        scaled_x = semantic.where(tiny, semantic.mul(x, _UP), x)
        scaled_r = semantic.where(tiny, semantic.mul(r, 2.0**100), r)
        return builtins.fma(semantic.neg(scaled_r), scaled_r, scaled_x)
    tiny = semantic.compare("lt", semantic.abs_(r), _TINY)
    up_r = semantic.where(tiny, semantic.mul(r, _UP), r)
    if kind == "mul":  # the smaller operand is below 2^-450 when the product is tiny: scale it
        first_smaller = semantic.compare("le", semantic.abs_(x), semantic.abs_(xs[1]))
        a = semantic.where(semantic.logical_and(tiny, first_smaller), semantic.mul(x, _UP), x)
        b = semantic.where(
            semantic.logical_and(tiny, semantic.logical_not(first_smaller)), semantic.mul(xs[1], _UP), xs[1]
        )
        residual = builtins.fma(a, b, semantic.neg(up_r))
        # a product far below the subnormals rounds to 0 even scaled: its sign is the operands'
        nonzero = semantic.logical_and(semantic.compare("ne", x, 0.0), semantic.compare("ne", xs[1], 0.0))
        vanished = semantic.logical_and(nonzero, semantic.compare("eq", r, 0.0))
        return semantic.where(vanished, semantic.mul(_sign_of(x), _sign_of(xs[1])), residual)
    # div: a tiny quotient has |x| < 2^124 (|y| <= 2^1024), so x 2^200 stays finite; a tiny x with
    # a quotient that is not has |y| < 1: x and y scale together, r stays
    y = xs[1]
    tiny_x = semantic.logical_and(semantic.logical_not(tiny), semantic.compare("lt", semantic.abs_(x), _TINY))
    up_x = semantic.where(semantic.logical_or(tiny, tiny_x), semantic.mul(x, _UP), x)
    up_y = semantic.where(tiny_x, semantic.mul(y, _UP), y)
    return semantic.mul(builtins.fma(semantic.neg(up_r), up_y, up_x), _sign_of(y))


def _sign_of(x: tensor) -> tensor:
    return semantic.where(semantic.compare("lt", x, 0.0), -1.0, 1.0)


def _directed_fma(name: str, mode: str):
    def function(x, y, z) -> tensor:
        x, y, z = _float_operands(name, x, y, z)
        r = builtins.fma(x, y, z)
        if x.dtype.is_fp32():
            v = [semantic.cast(t, core.float64) for t in (x, y, z)]
            s, e = _two_sum(semantic.mul(v[0], v[1]), v[2])  # x * y is exact in float64
            difference = [semantic.sub(s, semantic.cast(r, core.float64)), e]
            nan = semantic.compare("ne", difference[0], difference[0])
            difference = [semantic.where(nan, 0.0, d) for d in difference]
            above, below = _exact_side(difference)
        else:
            above, below = _float64_fma_side(x, y, z, r)
        result = _round_directed(r, above, below, mode)
        if mode == "rd":
            product_zero = semantic.logical_or(semantic.compare("eq", x, 0.0), semantic.compare("eq", y, 0.0))
            positive_product_zero = semantic.logical_and(
                product_zero, semantic.logical_not(semantic.xor_(_signbit(x), _signbit(y)))
            )
            both_positive_zero = semantic.logical_and(positive_product_zero, _is_positive_zero(z))
            result = _negative_exact_zero(result, above, below, both_positive_zero)
        return result

    function.__name__ = name
    function.__doc__ = f"x * y + z rounded once, {_STEP_MODES[mode]} (float32, float64)."
    return builtin(function)


def _expansion_side(terms: list) -> tuple[tensor, tensor]:
    """(above, below): where the exact sum of `terms` is positive and where negative. Shewchuk's
    grow-expansion turns the terms into components of increasing magnitude that do not overlap
    (each step a two-sum, exact while nothing overflows), so the largest nonzero one has the sum's
    sign."""
    components = [terms[0]]
    for term in terms[1:]:
        carry, grown = term, []
        for component in components:
            carry, error = _two_sum(carry, component)
            grown.append(error)
        components = grown + [carry]
    above = below = semantic.compare("ne", terms[0], terms[0])  # false (the callers mask NaNs)
    for component in components:  # smallest first: a larger nonzero component overrides
        nonzero = semantic.compare("ne", component, 0.0)
        above = semantic.where(nonzero, semantic.compare("gt", component, 0.0), above)
        below = semantic.where(nonzero, semantic.compare("lt", component, 0.0), below)
    return above, below


_PRODUCT_EXACT = 2.0**-960  # from here up, x * y - RN(x * y) is a float64 (one FMA gives it)


def _float64_fma_side(x: tensor, y: tensor, z: tensor, r: tensor) -> tuple[tensor, tensor]:
    """(above, below) of the exact x * y + z against r = fma(x, y, z), all float64: the exact sum
    RN(x y) + (x y - RN(x y)) + z - r, its sign by _expansion_side. Where the product's residual
    would fall below the subnormals, the smaller factor and z, r are scaled by 2^400 (or, where r
    is z, as with z far above the product, the product alone decides); where the product
    overflows while r does not, x and y are halved and z, r quartered; an overflowing r of finite
    operands has its exact value inside it."""

    def side(a, b, c, rr):
        product = _unfused(semantic.mul(a, b))
        residual = builtins.fma(a, b, semantic.neg(product))
        return _expansion_side([product, residual, c, semantic.neg(rr)]), product

    def sign_split_of_product():
        negative = semantic.xor_(_signbit(x), _signbit(y))
        nonzero = semantic.logical_and(semantic.compare("ne", x, 0.0), semantic.compare("ne", y, 0.0))
        return (
            semantic.logical_and(nonzero, semantic.logical_not(negative)),
            semantic.logical_and(nonzero, negative),
        )

    (plain_above, plain_below), product = side(x, y, z, r)
    magnitude = semantic.abs_(product)
    # the product overflows (r finite): everything scaled down, exactly
    (down_above, down_below), _ = side(
        semantic.mul(x, 0.5), semantic.mul(y, 0.5), semantic.mul(z, 0.25), semantic.mul(r, 0.25)
    )
    # the product is tiny: its smaller factor, z and r scaled up
    first_smaller = semantic.compare("le", semantic.abs_(x), semantic.abs_(y))
    up = 2.0**400
    far_z = semantic.compare("ge", semantic.abs_(z), 2.0**-700)  # then r = z
    safe_z = semantic.where(far_z, 0.0, z)
    safe_r = semantic.where(far_z, 0.0, r)
    (up_above, up_below), up_product = side(
        semantic.where(first_smaller, semantic.mul(x, up), x),
        semantic.where(first_smaller, y, semantic.mul(y, up)),
        semantic.mul(safe_z, up),
        semantic.mul(safe_r, up),
    )
    # with z far above the product, or the product below 2^-1360 even scaled (under half the least
    # subnormal: it cannot move z), r is z and the exact value differs from it by the product
    product_above, product_below = sign_split_of_product()
    r_is_z = semantic.logical_or(far_z, semantic.compare("lt", semantic.abs_(up_product), _PRODUCT_EXACT))
    tiny_above = semantic.where(r_is_z, product_above, up_above)
    tiny_below = semantic.where(r_is_z, product_below, up_below)

    infinite_product = semantic.compare("eq", magnitude, float("inf"))
    tiny = semantic.compare("lt", magnitude, _PRODUCT_EXACT)
    above = semantic.where(infinite_product, down_above, semantic.where(tiny, tiny_above, plain_above))
    below = semantic.where(infinite_product, down_below, semantic.where(tiny, tiny_below, plain_below))
    finite_in = semantic.logical_and(
        semantic.logical_and(
            semantic.compare("lt", semantic.abs_(x), float("inf")),
            semantic.compare("lt", semantic.abs_(y), float("inf")),
        ),
        semantic.compare("lt", semantic.abs_(z), float("inf")),
    )
    overflow = semantic.logical_and(finite_in, semantic.compare("eq", semantic.abs_(r), float("inf")))
    above = semantic.where(overflow, semantic.compare("lt", r, 0.0), above)
    below = semantic.where(overflow, semantic.compare("gt", r, 0.0), below)
    # NaN, infinite operands: r is IEEE's exact result
    exact = semantic.logical_or(semantic.logical_not(finite_in), semantic.compare("ne", r, r))
    return (
        semantic.logical_and(above, semantic.logical_not(exact)),
        semantic.logical_and(below, semantic.logical_not(exact)),
    )


def _directed_conversion(name: str, src: core.dtype, dst: core.dtype, mode: str):
    """integer or float64 -> float rounded per `mode`: the nearest conversion, compared back."""

    def function(x) -> tensor:
        x = semantic.to_tensor(x)
        if x.dtype != src:
            raise SemanticError(f"libdevice.{name} takes {src}, got {x.dtype}")
        r = semantic.cast(x, dst)
        if src.is_floating():  # float64 -> float32: the difference is exact in float64
            difference = semantic.sub(x, semantic.cast(r, core.float64))
            difference = semantic.where(semantic.compare("ne", difference, difference), 0.0, difference)
            above, below = _sign_split(difference)
        else:
            # compare back as integers; r can be exactly 2^(bits - 1) (signed) or 2^bits (unsigned),
            # one past the type's range, which is above every value of it
            bits = src.primitive_bitwidth
            limit = float(2 ** (bits - 1) if src.is_int_signed() else 2**bits)
            wide = core.int64 if bits == 32 or src.is_int_signed() else core.uint64
            past = semantic.compare("ge", r, limit)
            back = semantic.cast(semantic.where(past, 0.0, r), wide)
            value = semantic.cast(x, wide)
            above = semantic.logical_and(semantic.logical_not(past), semantic.compare("gt", value, back))
            below = semantic.logical_or(past, semantic.compare("lt", value, back))
        return _round_directed(r, above, below, mode)

    function.__name__ = name
    function.__doc__ = f"{src} -> {dst} rounded {_STEP_MODES[mode]}."
    return builtin(function)


for _mode in _STEP_MODES:
    globals()[f"add_{_mode}"] = _directed_add(f"add_{_mode}", _mode, negate=False)
    globals()[f"sub_{_mode}"] = _directed_add(f"sub_{_mode}", _mode, negate=True)
    for _kind in ("mul", "div", "sqrt", "rcp"):
        globals()[f"{_kind}_{_mode}"] = _residual_rounding(f"{_kind}_{_mode}", _mode, _kind)
    globals()[f"fma_{_mode}"] = _directed_fma(f"fma_{_mode}", _mode)
    for _src_name, _src, _dst_name, _dst in (
        ("double", core.float64, "float", core.float32),
        ("int", core.int32, "float", core.float32),
        ("uint", core.uint32, "float", core.float32),
        ("ll", core.int64, "float", core.float32),
        ("ull", core.uint64, "float", core.float32),
        ("ll", core.int64, "double", core.float64),
        ("ull", core.uint64, "double", core.float64),
    ):
        _name = f"{_src_name}2{_dst_name}_{_mode}"
        globals()[_name] = _directed_conversion(_name, _src, _dst, _mode)


# libdevice's fast variants: the same functions (already at the GPUs' approximate-unit accuracy or better)
fast_sinf, fast_cosf, fast_tanf, fast_exp10f, fast_log10f = sin, cos, tan, exp10, log10


def __getattr__(name):
    raise AttributeError(
        f"libdevice.{name} is not available in tilec (it has no vendor device library); see "
        "tilec/language/extra/libdevice.py for the functions it provides"
    )
