"""libdevice: the math functions that kernels import as `from triton.language.extra import libdevice`
(or `extra.cuda` / `extra.hip`), under the same names. Import `from tilec.language.extra import
libdevice` instead.

tilec has no vendor device library: each function is one of tilec's own math operations or is built
from them, and runs on every target (GPU versions compute f16/bf16 in f32). Accuracy: exp, log, sin,
cos, tanh and their relatives use the GPUs' approximate units as `tl.exp` does (a few ulp in f32);
log1p and expm1 stay accurate near zero (series there, computed with plain arithmetic); trunc, round, rint,
fmin, fmax, copysign, fma, div_rn and sqrt_rn are exact. isnan / isinf / finitef / signbit return
int32 0 or 1, as libdevice's do. Functions not listed here (pow, the inverse trigonometric and
hyperbolic functions, Bessel functions, ...) are not available: using one is a compile error that
names it.
"""

from __future__ import annotations

import math as _math

from tilec._lazy import lazy_module

from .. import builtins, core, semantic
from ..builtins import builtin
from ..core import tensor
from ..semantic import SemanticError

_mlir_math = lazy_module("mlir.dialects.math")

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
    """1 where x is NaN, else 0 (int32)."""
    x = _float(x, "isnan")
    return _flag(semantic.compare("ne", x, x))


@builtin
def isinf(x) -> tensor:
    """1 where x is +-infinity, else 0 (int32)."""
    x = _float(x, "isinf")
    return _flag(semantic.compare("eq", semantic.abs_(x), float("inf")))


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
    as its odd series (five terms: s^11 / 11 < 3e-11 relative), elsewhere log(1 + x) (the GPUs' log
    is accurate relative to log2 values away from 0, not near 1)."""
    x = _float(x, "log1p")
    s = semantic.truediv(x, semantic.add(x, 2.0), precise=True)
    s2 = semantic.mul(s, s)
    series = semantic.mul(semantic.mul(s, 2.0), _horner(s2, [1.0, 1 / 3, 1 / 5, 1 / 7, 1 / 9]))
    near = semantic.logical_and(semantic.compare("ge", x, -0.25), semantic.compare("le", x, 1 / 3))
    return semantic.where(near, series, builtins.log(semantic.add(x, 1.0)))


@builtin
def expm1(x) -> tensor:
    """exp(x) - 1, accurate for small x: for |x| < 0.35 its Taylor series (to x^9 / 9!: < 1e-11
    relative), elsewhere exp(x) - 1."""
    x = _float(x, "expm1")
    factorials = [1.0 / _math.factorial(k) for k in range(1, 10)]
    series = semantic.mul(x, _horner(x, factorials))
    near = semantic.compare("lt", semantic.abs_(x), 0.35)
    return semantic.where(near, series, semantic.sub(builtins.exp(x), 1.0))


def __getattr__(name):
    raise AttributeError(
        f"libdevice.{name} is not available in tilec (it has no vendor device library); see "
        "tilec/language/extra/libdevice.py for the functions it provides"
    )
