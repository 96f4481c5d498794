"""`tilec.language.extra.libdevice` (Triton's `triton.language.extra[.cuda].libdevice` names): each
function against NumPy on the CPU target and the interpreter, special values included, and on a GPU;
a function tilec does not provide is a compile error naming it."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl
from tilec.language import semantic
from tilec.language.builtins import builtin
from tilec.language.extra import libdevice
from tilec.language.extra.cuda import libdevice as cuda_libdevice
from tilec.language.extra.libdevice import fast_dividef as renamed_fast_dividef  # as Triton's test does


@tilec.jit
def functions(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + 0 * N + i, libdevice.trunc(x))
    tl.store(out_ptr + 1 * N + i, libdevice.round(x))
    tl.store(out_ptr + 2 * N + i, libdevice.rint(x))
    tl.store(out_ptr + 3 * N + i, libdevice.isnan(x).to(tl.float32))
    tl.store(out_ptr + 4 * N + i, libdevice.isinf(x).to(tl.float32))
    tl.store(out_ptr + 5 * N + i, libdevice.signbit(x).to(tl.float32))
    tl.store(out_ptr + 6 * N + i, libdevice.log1p(x))
    tl.store(out_ptr + 7 * N + i, libdevice.expm1(x))
    tl.store(out_ptr + 8 * N + i, libdevice.log10(tl.abs(x)))
    tl.store(out_ptr + 9 * N + i, cuda_libdevice.copysign(2.0, x))
    tl.store(out_ptr + 10 * N + i, tl.extra.libdevice.finitef(x).to(tl.float32))
    tl.store(out_ptr + 11 * N + i, libdevice.tanh(x))
    tl.store(out_ptr + 12 * N + i, libdevice.fmax(x, 0.25))


X = np.array(
    [
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        0.49999997,
        1e-8,
        -1e-8,
        np.nan,
        np.inf,
        -np.inf,
        -0.0,
        3.7,
        -3.7,
        1e-3,
        20.0,
    ],
    np.float32,
)


def _expected(x):
    x64 = x.astype(np.float64)
    t = np.trunc(x)
    with np.errstate(all="ignore"):
        return [
            t, np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t), np.rint(x), np.isnan(x), np.isinf(x),
            np.signbit(x), np.log1p(x64), np.expm1(x64), np.log10(np.abs(x64)), np.copysign(2.0, x),
            np.isfinite(x), np.tanh(x64), np.fmax(x, 0.25),
        ]  # fmt: skip


NAMES = "trunc round rint isnan isinf signbit log1p expm1 log10 copysign finitef tanh fmax".split()


def _check(out):
    for name, got, want in zip(NAMES, out.reshape(len(NAMES), -1), _expected(X)):
        # exact ones exactly; the approximate units' a few ulp (log1p / expm1 near 0 included)
        rtol = 0 if name in ("trunc", "round", "rint", "copysign", "fmax") else 4e-6
        np.testing.assert_allclose(
            got, want.astype(np.float32), rtol=rtol, atol=0, equal_nan=True, err_msg=name
        )


def test_functions(target):
    out = np.zeros(len(NAMES) * 16, np.float32)
    functions[(1,)](X, out, N=16)
    _check(out)


@tilec.jit
def unknown_function(x_ptr, N: tl.constexpr):
    libdevice.frexp(tl.load(x_ptr + tl.arange(0, N)))


def test_missing_function_is_named():
    with pytest.raises(tilec.CompilationError, match=r"libdevice.frexp is not available in tilec") as info:
        unknown_function[(1,)](np.zeros(8, np.float32), N=8)
    assert "test_libdevice.py" in str(info.value)


@pytest.mark.parametrize(
    "kernel,signature",
    [
        ("functions", "*fp32,*fp32"),
        ("powers", "*fp32,*fp32,*fp32,*i32,*fp32"),
        ("more_functions", "*fp32,*fp32,*fp32"),
        ("special_functions", "*fp32,*fp32"),
        ("bessel_functions", "*fp32,*fp32"),
        ("inverse_erfc", "*fp32,*fp32"),
        ("integer_bits", "*i32,*i32,*i64,*i32,*i64"),
        ("conversions", "*fp32,*fp64,*i32,*i64,*fp32"),
        ("float_helpers", "*fp32,*fp32,*i32,*fp32,*i32"),
        ("float_remainder", "*fp32,*fp32,*fp32"),
        ("ieee_remainder", "*fp32,*fp32,*fp32"),
        ("ieee_remainder", "*fp64,*fp64,*fp64"),
    ],
)
def test_gpu_code_calls_no_vendor_library(kernel, signature):
    for target in ("sm_90a", "gfx942"):
        compiled = tilec.compile(globals()[kernel], signature=signature, constexprs={"N": 64}, target=target)
        code = compiled.asm.get("ptx", "") + compiled.asm.get("llir", "")
        assert "__nv_" not in code and "__ocml_" not in code and "call" not in compiled.asm.get("ptx", "")


@pytest.mark.gpu
@needs_gpu
def test_functions_on_gpu():
    import torch

    out = torch.zeros(len(NAMES) * 16, device="cuda")
    functions[(1,)](torch.from_numpy(X).cuda(), out, N=16)
    _check(out.cpu().numpy())


# -- pow ---------------------------------------------------------------------------------------


@tilec.jit
def powers(x_ptr, y_ptr, out_ptr, n_ptr, int_out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + i, libdevice.pow(x, tl.load(y_ptr + i)))
    tl.store(int_out_ptr + i, libdevice.powi(x, tl.load(n_ptr + i)))


_SPECIAL = np.array(
    [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1e-30, 1e30, 1e-45],
    np.float32,
)


def _pow_inputs(dtype, n=1024):
    """Every pair of special values (C's rules), then random bases / exponents, negative bases with
    integer exponents, and exponents that overflow and underflow."""
    rng = np.random.default_rng(7)
    sx, sy = (a.ravel() for a in np.meshgrid(_SPECIAL, _SPECIAL))
    x = np.concatenate([sx, rng.uniform(0, 10, n), rng.uniform(-5, 5, n // 4), rng.uniform(0.5, 2, n // 4)])
    y = np.concatenate(
        [sy, rng.uniform(-20, 20, n), np.round(rng.uniform(-9, 9, n // 4)), rng.uniform(-400, 400, n // 4)]
    )
    size = 1 << int(np.ceil(np.log2(len(x))))
    return np.resize(x, size).astype(dtype), np.resize(y, size).astype(dtype)


def _check_pow(x, y, got, ints, got_int, rtol):
    with np.errstate(all="ignore"):
        want = np.power(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)
        want_int = np.power(x.astype(np.float64), ints.astype(np.float64)).astype(x.dtype)
    for g, w in ((got, want), (got_int, want_int)):
        # float32: within an ulp of the float64 result rounded (all the special cases exactly)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=0, equal_nan=True)
        assert np.array_equal(np.signbit(g[w == 0]), np.signbit(w[w == 0]))  # -0.0 where C says


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1.2e-7), (np.float64, 1e-13)])
def test_pow(target, dtype, rtol):
    x, y = _pow_inputs(dtype)
    ints = np.round(np.resize(np.linspace(-12, 12, 97), len(x))).astype(np.int32)
    out, int_out = np.zeros_like(x), np.zeros_like(x)
    powers[(1,)](x, y, out, ints, int_out, N=len(x))
    _check_pow(x, y, out, ints, int_out, rtol)


@tilec.jit
def integer_pow(x_ptr, N: tl.constexpr):
    libdevice.pow(tl.load(x_ptr + tl.arange(0, N)), 2)


def test_pow_of_integers_is_an_error():
    with pytest.raises(
        tilec.CompilationError, match="libdevice.pow needs a floating-point operand, got int32"
    ):
        integer_pow[(1,)](np.zeros(8, np.int32), N=8)


@pytest.mark.gpu
@needs_gpu
def test_pow_on_gpu():
    import torch

    x, y = _pow_inputs(np.float32)
    ints = np.round(np.resize(np.linspace(-12, 12, 97), len(x))).astype(np.int32)
    out, int_out = torch.zeros(len(x), device="cuda"), torch.zeros(len(x), device="cuda")
    cuda = [torch.from_numpy(a).cuda() for a in (x, y, ints)]
    powers[(1,)](cuda[0], cuda[1], out, cuda[2], int_out, N=len(x))
    _check_pow(x, y, out.cpu().numpy(), ints, int_out.cpu().numpy(), 1.2e-7)


# -- inverse trigonometric and hyperbolic functions, cbrt, hypot, exp10 ---------------------------

UNARY = "asin acos atan sinh cosh asinh acosh atanh cbrt exp10 tan erfinv".split()


def _erfinv(x):
    """float64 inverse error function by Newton's method on math.erf (NumPy has none)."""
    erf = np.vectorize(math.erf)
    inside = np.abs(x) < 1
    y = np.zeros_like(x)
    for _ in range(60):
        with np.errstate(all="ignore"):
            y = np.where(inside, y - (erf(y) - x) / (2 / np.sqrt(np.pi) * np.exp(-y * y)), 0.0)
    return np.where(inside, np.copysign(y, x), np.where(np.abs(x) == 1, np.sign(x) * np.inf, np.nan))


_NUMPY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
          "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "cbrt": np.cbrt,
          "exp10": lambda x: np.power(10.0, x), "tan": np.tan, "erfinv": _erfinv}  # fmt: skip


@tilec.jit
def more_functions(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.store(out_ptr + 0 * N + i, libdevice.asin(x))
    tl.store(out_ptr + 1 * N + i, libdevice.acos(x))
    tl.store(out_ptr + 2 * N + i, libdevice.atan(x))
    tl.store(out_ptr + 3 * N + i, libdevice.sinh(x))
    tl.store(out_ptr + 4 * N + i, libdevice.cosh(x))
    tl.store(out_ptr + 5 * N + i, libdevice.asinh(x))
    tl.store(out_ptr + 6 * N + i, libdevice.acosh(x))
    tl.store(out_ptr + 7 * N + i, libdevice.atanh(x))
    tl.store(out_ptr + 8 * N + i, libdevice.cbrt(x))
    tl.store(out_ptr + 9 * N + i, libdevice.exp10(x))
    tl.store(out_ptr + 10 * N + i, libdevice.atan2(y, x))
    tl.store(out_ptr + 11 * N + i, libdevice.hypot(x, y))
    tl.store(out_ptr + 12 * N + i, libdevice.tan(x))
    tl.store(out_ptr + 13 * N + i, libdevice.erfinv(x))


def _more_inputs(n=2048):
    rng = np.random.default_rng(11)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.4999, 1e-6, -1e-6, 2.5, -2.5, np.inf, -np.inf, np.nan, 1e4, -1e4,
               30.0, -30.0, 88.0, 1.5, 1.0000001, 0.99999994, 2.414, 0.4142]  # fmt: skip
    sx, sy = (a.ravel() for a in np.meshgrid(special, special))
    x = np.concatenate(
        [sx, rng.uniform(-1, 1, n), rng.standard_normal(n) * 8, np.exp(rng.uniform(-20, 20, n))]
    )
    y = np.concatenate([sy, rng.standard_normal(n), rng.uniform(-3, 3, n), rng.standard_normal(n) * 100])
    size = 1 << int(np.ceil(np.log2(len(x))))
    return np.resize(x, size).astype(np.float32), np.resize(y, size).astype(np.float32)


def _check_more(x, y, out, rtol):
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        wants = [_NUMPY[name](x64) for name in UNARY[:10]] + [np.arctan2(y64, x64), np.hypot(x64, y64)]
        wants += [_NUMPY[name](x64) for name in UNARY[10:]]
    for name, got, want in zip([*UNARY[:10], "atan2", "hypot", *UNARY[10:]], out, wants):
        if name == "tan":  # its float64 argument reduction is documented accurate below 2^20
            got, want = got[np.abs(x) < 2**20], want[np.abs(x) < 2**20]
        with np.errstate(over="ignore"):
            want = want.astype(np.float32)  # what float32 can hold; tiny results compare absolutely
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-37, equal_nan=True, err_msg=name)
        zero = want == 0
        assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero])), name


def test_inverse_and_hyperbolic_functions(target):
    x, y = _more_inputs()
    out = np.zeros((14, len(x)), np.float32)
    more_functions[(1,)](x, y, out, N=len(x))
    _check_more(x, y, out, 4e-6 if target == "cpu" else 4e-6)


@tilec.jit
def rsqrt_rn_of_doubles(x_ptr, N: tl.constexpr):
    libdevice.rsqrt_rn(tl.load(x_ptr + tl.arange(0, N)))


def test_float64_is_refused_where_only_float32_accuracy_exists():
    """libdevice's rsqrt_rn is float32 only (__nv_frsqrt_rn); the float64 special functions are
    test_float64_special.py's."""
    with pytest.raises(
        tilec.CompilationError, match="libdevice.rsqrt_rn on float64 is not available"
    ) as info:
        rsqrt_rn_of_doubles[(1,)](np.zeros(8, np.float64), N=8)
    assert "test_libdevice.py" in str(info.value)


@pytest.mark.gpu
@needs_gpu
def test_inverse_and_hyperbolic_functions_on_gpu():
    import torch

    x, y = _more_inputs()
    out = torch.zeros((14, len(x)), device="cuda")
    more_functions[(1,)](torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda(), out, N=len(x))
    _check_more(x, y, out.cpu().numpy(), 4e-6)


# -- erfc, erfcx, normcdf, lgamma, tgamma --------------------------------------------------------


@tilec.jit
def special_functions(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + 0 * N + i, libdevice.erfc(x))
    tl.store(out_ptr + 1 * N + i, libdevice.erfcx(x))
    tl.store(out_ptr + 2 * N + i, libdevice.normcdf(x))
    tl.store(out_ptr + 3 * N + i, libdevice.lgamma(x))
    tl.store(out_ptr + 4 * N + i, libdevice.tgamma(x))


def _c_gamma(x):
    """C's tgamma on float64: poles and overflow as the C library gives them (math.gamma raises)."""
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == 0:
        return math.copysign(math.inf, x)
    if x < 0 and x == math.floor(x):
        return math.nan
    try:
        return math.gamma(x)
    except OverflowError:
        return math.inf


def _c_lgamma(x):
    if math.isnan(x):
        return math.nan
    if math.isinf(x) or (x <= 0 and x == math.floor(x)):
        return math.inf
    return math.lgamma(x)


def _erfcx(x):
    """float64 e^(x^2) erfc(x) (math.erfc underflows past x ~ 26: the asymptotic series there)."""
    if math.isnan(x):
        return math.nan
    if x > 25:
        return (1 - 1 / (2 * x * x) + 3 / (4 * x**4)) / (x * math.sqrt(math.pi))
    try:
        return math.exp(x * x) * math.erfc(x)
    except OverflowError:
        return math.inf


def _special_inputs(n=1024):
    rng = np.random.default_rng(17)
    special = [0.0, -0.0, 1.0, 2.0, 3.0, -1.0, -2.0, 0.5, -0.5, -1.5, 1e-6, -1e-6, 1e-30, 2.5, 10.0, 26.0, 30.0,
               35.0, 36.0, -3.75, -40.5, 171.5, 1e4, 1e30, -1e30, np.inf, -np.inf, np.nan, 9.0, -9.0, 0.9999999,
               1.0000001, 2.0000002, 1.9999999]  # fmt: skip
    x = np.concatenate(
        [special, rng.uniform(-10, 10, n), rng.standard_normal(n) * 3, np.exp(rng.uniform(-20, 4, n))]
    )
    size = 1 << int(np.ceil(np.log2(len(x))))
    return np.resize(x, size).astype(np.float32)


def _special_references(x64):
    return {
        "erfc": np.vectorize(math.erfc)(np.nan_to_num(x64, nan=0.0)),
        "erfcx": np.vectorize(_erfcx)(x64),
        "normcdf": np.vectorize(lambda v: 0.5 * math.erfc(-v / math.sqrt(2)))(np.nan_to_num(x64, nan=0.0)),
        "lgamma": np.vectorize(_c_lgamma)(x64),
        "tgamma": np.vectorize(_c_gamma)(x64),
    }


def _check_special(x, out):
    x64 = x.astype(np.float64)
    with np.errstate(over="ignore"):
        wants = _special_references(x64)
    wants["erfc"][np.isnan(x64)] = np.nan
    wants["normcdf"][np.isnan(x64)] = np.nan
    # Numerical Recipes' erfc fit: 1.2e-7 relative; lgamma near its zeros at 1 and 2 compares absolutely
    tolerances = {"erfc": (3e-7, 1e-37), "erfcx": (3e-7, 0), "normcdf": (3e-7, 1e-37), "lgamma": (1e-6, 1e-7),
                  "tgamma": (1e-6, 1e-37)}  # fmt: skip
    for (name, want), got in zip(wants.items(), out):
        with np.errstate(over="ignore"):
            want = want.astype(np.float32)
        rtol, atol = tolerances[name]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=name)
        assert np.array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0])), name
        assert np.array_equal(np.signbit(got[np.isinf(want)]), np.signbit(want[np.isinf(want)])), name


def _rows_of(kernel, x: np.ndarray, rows: int, gpu: bool = False) -> np.ndarray:
    """`kernel(x, out, N)` run on the host arrays or on the GPU; out has `rows` rows of len(x), of
    x's type."""
    if not gpu:
        out = np.zeros((rows, len(x)), x.dtype)
        kernel[(1,)](x, out, N=len(x))
        return out
    import torch

    out = torch.zeros((rows, len(x)), device="cuda", dtype=torch.from_numpy(x).dtype)
    kernel[(1,)](torch.from_numpy(x).cuda(), out, N=len(x))
    return out.cpu().numpy()


def test_erfc_and_gamma_functions(target):
    x = _special_inputs()
    _check_special(x, _rows_of(special_functions, x, 5))


@pytest.mark.gpu
@needs_gpu
def test_erfc_and_gamma_functions_on_gpu():
    x = _special_inputs()
    _check_special(x, _rows_of(special_functions, x, 5, gpu=True))


# -- Bessel functions ------------------------------------------------------------------------------

BESSEL = ["j0", "j1", "y0", "y1", "cyl_bessel_i0", "cyl_bessel_i1"]


@tilec.jit
def bessel_functions(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + 0 * N + i, libdevice.j0(x))
    tl.store(out_ptr + 1 * N + i, libdevice.j1(x))
    tl.store(out_ptr + 2 * N + i, libdevice.y0(x))
    tl.store(out_ptr + 3 * N + i, libdevice.y1(x))
    tl.store(out_ptr + 4 * N + i, libdevice.cyl_bessel_i0(x))
    tl.store(out_ptr + 5 * N + i, libdevice.cyl_bessel_i1(x))


def _periodic_mean(f, points=1024):
    """The mean over one period of a smooth periodic function: the trapezoid rule, exact to float64
    rounding for these integrands (their error falls exponentially with the number of points)."""
    theta = (np.arange(points) + 0.5) * 2 * np.pi / points
    return np.mean(f(theta[None, :]), axis=1)


def _hankel(order, x, terms=12):
    """(P, Q) of the large-argument expansion of J and Y (Abramowitz & Stegun 9.2.5-9.2.10), x >= 12."""
    mu = 4.0 * order * order
    p, q, a = np.zeros_like(x), np.zeros_like(x), np.ones_like(x)
    for k in range(2 * terms):
        if k:
            a = a * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if k % 2 == 0:
            p += (-1) ** (k // 2) * a
        else:
            q += (-1) ** (k // 2) * a
    return p, q


def _bessel_y_reference(order, x):
    """float64 Y0 / Y1 for x > 0: the power series (with harmonic numbers) below 12, the Hankel
    expansion above."""
    euler = 0.5772156649015329
    out = np.empty_like(x)
    small = x < 12
    xs, xl = x[small], x[~small]
    j = _periodic_mean(lambda t: np.cos(order * t - xs[:, None] * np.sin(t)))
    h, harmonic, total = xs / 2, 0.0, np.zeros_like(xs)
    for k in range(0, 90):
        if order == 0:
            if k:
                harmonic += 1.0 / k
                total += (-1) ** (k + 1) * harmonic * h ** (2 * k) / math.factorial(k) ** 2
        else:
            nxt = harmonic + 1.0 / (k + 1)
            total += (
                (-1) ** k * (harmonic + nxt) * h ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1))
            )
            harmonic = nxt
    if order == 0:
        out[small] = 2 / np.pi * ((np.log(h) + euler) * j + total)
    else:
        out[small] = 2 / np.pi * (np.log(h) + euler) * j - 2 / (np.pi * xs) - total / np.pi
    p, q = _hankel(order, xl)
    chi = xl - (order / 2 + 0.25) * np.pi
    out[~small] = np.sqrt(2 / (np.pi * xl)) * (p * np.sin(chi) + q * np.cos(chi))
    return out


def _bessel_references(x64):
    finite = np.nan_to_num(x64, nan=0.0, posinf=0.0, neginf=0.0)
    wants = {
        "j0": _periodic_mean(lambda t: np.cos(finite[:, None] * np.sin(t))),
        "j1": _periodic_mean(lambda t: np.cos(t - finite[:, None] * np.sin(t))),
    }
    big = np.abs(finite) >= 60  # the trapezoid rule needs more points there: the expansion instead
    for order, name in ((0, "j0"), (1, "j1")):
        p, q = _hankel(order, np.abs(finite[big]))
        chi = np.abs(finite[big]) - (order / 2 + 0.25) * np.pi
        value = np.sqrt(2 / (np.pi * np.abs(finite[big]))) * (p * np.cos(chi) - q * np.sin(chi))
        wants[name][big] = value * (np.sign(finite[big]) if order else 1)
    positive = np.where(finite > 0, finite, 1.0)
    for order, name in ((0, "y0"), (1, "y1")):
        y = _bessel_y_reference(order, positive)
        y[x64 == 0] = -np.inf
        y[x64 < 0] = np.nan
        wants[name] = y
    # I: e^|x| times the mean of e^(|x| (cos t - 1)) (no overflow inside; float32 overflows past ~92)
    moderate = np.clip(np.abs(finite), 0, 600)
    peak = np.exp(moderate)
    wants["cyl_bessel_i0"] = peak * _periodic_mean(lambda t: np.exp(moderate[:, None] * (np.cos(t) - 1)))
    wants["cyl_bessel_i1"] = (
        np.sign(finite)
        * peak
        * _periodic_mean(lambda t: np.exp(moderate[:, None] * (np.cos(t) - 1)) * np.cos(t))
    )
    for name in BESSEL:
        wants[name][np.isnan(x64)] = np.nan
    for name in ("j0", "j1", "y0", "y1"):
        wants[name][np.isinf(x64) & (x64 > 0)] = 0.0
    wants["j0"][np.isinf(x64)] = 0.0
    wants["j1"][np.isinf(x64)] = 0.0
    wants["y0"][x64 == -np.inf] = np.nan
    wants["y1"][x64 == -np.inf] = np.nan
    wants["cyl_bessel_i0"][np.abs(finite) > 600] = np.inf
    wants["cyl_bessel_i1"][np.abs(finite) > 600] = np.inf * np.sign(finite[np.abs(finite) > 600])
    wants["cyl_bessel_i0"][np.isinf(x64)] = np.inf
    wants["cyl_bessel_i1"][np.isinf(x64)] = np.sign(x64[np.isinf(x64)]) * np.inf
    return wants


def _bessel_inputs(n=1024):
    rng = np.random.default_rng(23)
    special = [0.0, -0.0, 1.0, -1.0, 1e-6, -1e-6, 2.4048255, 3.8317060, 7.99, 8.0, 8.01, 3.75, -3.75, 12.0, 60.0,
               100.0, -100.0, 1234.5, 1e4, -1e4, np.inf, -np.inf, np.nan, 88.0, 90.0, -90.0]  # fmt: skip
    x = np.concatenate(
        [special, rng.uniform(-30, 30, n), np.exp(rng.uniform(-10, 6, n)) * rng.choice([-1, 1], n)]
    )
    size = 1 << int(np.ceil(np.log2(len(x))))
    return np.resize(x, size).astype(np.float32)


def _check_bessel(x, out):
    wants = _bessel_references(x.astype(np.float64))
    for name, got in zip(BESSEL, out):
        want = wants[name]
        with np.errstate(over="ignore"):
            want32 = want.astype(np.float32)
        # J and Y to ~1e-8 absolute (their fits), I to 2e-7 relative; plus float32's rounding
        atol = 0 if name.startswith("cyl") else 5e-8
        np.testing.assert_allclose(got, want32, rtol=4e-7, atol=atol, equal_nan=True, err_msg=name)


def test_bessel_functions(target):
    x = _bessel_inputs()
    _check_bessel(x, _rows_of(bessel_functions, x, 6))


@pytest.mark.gpu
@needs_gpu
def test_bessel_functions_on_gpu():
    x = _bessel_inputs()
    _check_bessel(x, _rows_of(bessel_functions, x, 6, gpu=True))


@tilec.jit
def integer_order_bessel(n_ptr, x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    n = tl.load(n_ptr + i)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + i, libdevice.jn(n, x))
    tl.store(out_ptr + N + i, libdevice.yn(n, x))
    tl.store(out_ptr + 2 * N + i, libdevice.jn(n + 1, x))
    tl.store(out_ptr + 3 * N + i, libdevice.yn(n + 1, x))


def _integer_order_inputs():
    """Orders -12..44 with arguments on both sides of them (forward recurrence where n < |x|,
    Miller's backward one elsewhere), negative arguments, zeros and specials."""
    rng = np.random.default_rng(11)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, 2.404825557695773, 0.5]
    x = np.concatenate(
        [special, rng.uniform(-50, 50, 300), np.exp(rng.uniform(-5, 4, 204)) * rng.choice([-1, 1], 204)]
    )
    n = rng.integers(-12, 45, len(x)).astype(np.int32)
    n[: len(special)] = [0, 3, 2, 5, 4, 1, 0, 40]
    return n, x.astype(np.float64)


# Y_n(x) of scipy.special.yv (AMOS), checked to 15 digits against mpmath's bessely
_YN_REFERENCE = [
    (2, 1.0, -1.6506826068162548),
    (5, 10.0, 0.13540304768936218),
    (3, 2.5, -0.7560554967536711),
    (10, 3.0, -2582.6071294842986),
    (25, 30.0, 0.17532065037407127),
    (40, 12.5, -261924481821416.3),
    (7, 0.75, -224991.73883434045),
    (12, 45.5, 0.08811083842358075),
    (-3, 2.5, 0.7560554967536711),
    (-4, 9.0, 0.09002576282879038),
]


def test_bessel_functions_of_integer_order(target):
    """libdevice.jn / yn (float64): J_n against its integral (1 / 2 pi) ∫ cos(n t - x sin t) dt;
    Y_n against reference values and through the Wronskian J_{n+1} Y_n - J_n Y_{n+1} = 2 / (pi x)."""
    n, x = _integer_order_inputs()
    out = np.zeros((4, len(x)))
    integer_order_bessel[(1,)](n, x, out, N=len(x))
    jn, yn, jn_next, yn_next = out
    finite = np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)
    want = _periodic_mean(lambda t: np.cos(n[:, None] * t - finite[:, None] * np.sin(t)))
    want[np.isinf(x)] = 0.0
    want[np.isnan(x)] = np.nan
    np.testing.assert_allclose(jn, want, rtol=1e-13, atol=2e-15, equal_nan=True)
    # Y: -inf at 0 (-0 too), NaN below 0 and for NaN, 0 at +inf
    assert np.all(yn[x == 0] == np.where(n[x == 0] % 2 & (n[x == 0] < 0), np.inf, -np.inf))
    assert np.all(np.isnan(yn[(x < 0) | np.isnan(x)])) and np.all(yn[x == np.inf] == 0)
    ordinary = (x > 1e-3) & np.isfinite(x) & (np.abs(yn) < 1e250) & (np.abs(yn_next) < 1e250)
    # (with tilec's J: the reference's absolute error, ~1e-17, would swamp products with a huge Y)
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 outside `ordinary`
        wronskian = jn_next * yn - jn * yn_next
        scale = np.abs(jn_next * yn) + np.abs(jn * yn_next)  # the products' size: the cancellation's
    expected = 2 / (np.pi * np.where(ordinary, x, 1.0))
    assert np.all(np.abs(wronskian - expected)[ordinary] <= 1e-13 * np.maximum(scale, expected)[ordinary])
    orders = np.resize(np.array([r[0] for r in _YN_REFERENCE], np.int32), 16)
    points = np.resize(np.array([r[1] for r in _YN_REFERENCE]), 16)
    values = np.zeros((4, 16))
    integer_order_bessel[(1,)](orders, points, values, N=16)
    np.testing.assert_allclose(values[1], np.resize([r[2] for r in _YN_REFERENCE], 16), rtol=2e-14)


def _host_reference(kernel, *args, **constexprs):
    """One program of `kernel` on the host, the reference a GPU run is compared with: through the
    interpreter, whose results the host tests check exactly (a GPU machine may lack the CPU target's
    LLVM tools)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TILEC_INTERPRET", "1")
        kernel[(1,)](*args, **constexprs)


@pytest.mark.gpu
@needs_gpu
def test_bessel_functions_of_integer_order_on_gpu():
    import torch

    n, x = _integer_order_inputs()
    out = torch.zeros((4, len(x)), device="cuda", dtype=torch.float64)
    integer_order_bessel[(1,)](torch.from_numpy(n).cuda(), torch.from_numpy(x).cuda(), out, N=len(x))
    host = np.zeros((4, len(x)))
    _host_reference(integer_order_bessel, n, x, host, N=len(x))
    np.testing.assert_allclose(out.cpu().numpy(), host, rtol=1e-13, atol=1e-300, equal_nan=True)


@tilec.jit
def bessel_of_float_order(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    libdevice.jn(x, x)


def test_bessel_order_must_be_an_integer():
    with pytest.raises(
        tilec.CompilationError, match="libdevice.jn: the order n must be an integer, got fp32"
    ) as info:
        bessel_of_float_order[(1,)](np.zeros(8, np.float32), N=8)
    assert "test_libdevice.py" in str(info.value)


@tilec.jit
def integer_order_bessel_scalars(x_ptr, out_ptr, N: tl.constexpr, ORDER: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + i, libdevice.jn(ORDER, x) + libdevice.yn(3, 2.5))


def test_bessel_functions_of_integer_order_in_float32(target):
    """float32 operands (libdevice's jnf/ynf) and constant orders and arguments."""
    x = np.linspace(0.1, 30, 64).astype(np.float32)
    out = np.zeros_like(x)
    integer_order_bessel_scalars[(1,)](x, out, N=64, ORDER=5)
    x64 = x.astype(np.float64)
    want = _periodic_mean(lambda t: np.cos(5 * t - x64[:, None] * np.sin(t))) - 0.7560554967536711
    np.testing.assert_allclose(out, want, rtol=2e-7, atol=1e-7)


def _float64_bessel_inputs():
    """Doubles in each range of the float64 algorithms (series < 0.5 <= Miller <= 25 < Hankel; I's
    series < 20 <= asymptotic), their borders, zeros of J0 and J1, subnormals and specials."""
    rng = np.random.default_rng(5)
    special = [0.0, -0.0, 5e-324, 1e-300, 0.5, np.nextafter(0.5, 0), 25.0, np.nextafter(25.0, 30), 20.0,
               np.nextafter(20.0, 0), 2.404825557695773, 5.520078110286311, 3.831705970207512, 700.0, 709.5,
               713.0, 1e5, -1e5, np.inf, -np.inf, np.nan]  # fmt: skip
    x = np.concatenate(
        [special, rng.uniform(-40, 40, 1500), np.exp(rng.uniform(-20, 7, 500)) * rng.choice([-1, 1], 500)]
    )
    return np.resize(x, 2048).astype(np.float64)


def test_float64_bessel_functions_have_float64_accuracy(target):
    """Triton's libdevice has float64 Bessel functions (its test_bessel checks them against
    torch.special at torch's float64 tolerance, 1e-7): tilec's are accurate to ~1e-15."""
    x = _float64_bessel_inputs()
    out = _rows_of(bessel_functions, x, 6)
    with np.errstate(all="ignore"):
        wants = _bessel_references(x)
    least = x == 5e-324  # the reference's log(x / 2) is log(0) there
    wants["y0"][least] = 2 / np.pi * (np.log(5e-324) - np.log(2.0) + 0.5772156649015329)
    wants["y1"][least] = -np.inf  # -2 / (pi x) overflows
    finite = np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)
    # the references' own limits: J's trapezoid rule ~1e-15, Y's series ~1e-12 near 12 (cancellation),
    # I to rounding up to e^600 (I1 to 1e-16 absolute near 0; past 600, true values up to 713.9 are
    # still finite: set apart)
    tolerances = {
        "j0": 2e-14,
        "j1": 2e-14,
        "y0": 5e-12,
        "y1": 5e-12,
        "cyl_bessel_i0": 0,
        "cyl_bessel_i1": 2e-16,
    }
    for name, got in zip(BESSEL, out):
        want = wants[name]
        beyond = name.startswith("cyl") & (np.abs(finite) > 600) & np.isfinite(x)
        np.testing.assert_allclose(
            got[~beyond], want[~beyond], rtol=2e-14, atol=tolerances[name], equal_nan=True, err_msg=name
        )
        if name.startswith("cyl"):  # e^x / sqrt(2 pi x) (1 + ...): finite until x ~ 713.98
            big = got[beyond]
            assert np.all(np.isinf(big) == (np.abs(x[beyond]) > 713.98)), name
    # the Wronskian J1 Y0 - J0 Y1 = 2 / (pi x) ties the four together across every range
    positive = (x > 1e-200) & (x < 1e4)  # (Y1 overflows below ~1e-308)
    j0, j1, y0, y1 = (row[positive] for row in out[:4])
    wronskian = j1 * y0 - j0 * y1
    np.testing.assert_allclose(wronskian * x[positive] * np.pi / 2, 1.0, rtol=1e-13)


@pytest.mark.gpu
@needs_gpu
def test_float64_bessel_functions_on_gpu():
    x = _float64_bessel_inputs()
    out = _rows_of(bessel_functions, x, 6, gpu=True)
    host = np.zeros_like(out)
    _host_reference(bessel_functions, x, host, N=len(x))
    np.testing.assert_allclose(out, host, rtol=1e-13, atol=1e-15, equal_nan=True)


# -- erfcinv, normcdfinv ---------------------------------------------------------------------------


@tilec.jit
def inverse_erfc(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + i, libdevice.erfcinv(x))
    tl.store(out_ptr + N + i, libdevice.normcdfinv(x * 0.5))


def _erfcinv_reference(y: float) -> float:
    """float64 erfcinv by bisection on math.erfc (decreasing); the C library's values at 0, 2, outside."""
    if math.isnan(y) or not 0 <= y <= 2:
        return math.nan
    if y in (0.0, 2.0):
        return math.inf if y == 0 else -math.inf
    lo, hi = -30.0, 30.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erfc(mid) > y else (lo, mid)
    return (lo + hi) / 2


def test_erfcinv_and_normcdfinv(target):
    """Relative error below 3e-7 on [0, 2], the far tail included (down to float32's subnormals),
    where y (2 - y) is formed in float64 and Newton's method on the erfc fit takes over below 1e-6."""
    rng = np.random.default_rng(29)
    special = [0.0, 2.0, 1.0, 1e-45, 1e-38, 1e-30, 1e-7, 1e-6, 0.5, 1.5, 1.9999999, -0.5, 2.5, np.nan, np.inf]
    y = np.concatenate([special, np.exp(rng.uniform(-100, 0.69, 1500)), rng.uniform(0, 2, 1500)])
    y = np.resize(y, 4096).astype(np.float32)
    out = _rows_of(inverse_erfc, y, 2).ravel()
    want = np.array([_erfcinv_reference(float(v)) for v in y])
    want[y == 1.0] = 0.0  # the bisection's 1e-16
    half = (y.astype(np.float32) * np.float32(0.5)).astype(np.float64)
    want_normal = np.array([-math.sqrt(2) * _erfcinv_reference(2 * float(p)) for p in half])
    want_normal[half == 0.5] = 0.0
    for got, expected, name in ((out[: len(y)], want, "erfcinv"), (out[len(y) :], want_normal, "normcdfinv")):
        np.testing.assert_allclose(
            got, expected.astype(np.float32), rtol=3e-7, atol=0, equal_nan=True, err_msg=name
        )


# -- integer bits, reinterpretation, conversions with rounding modes, float helpers ---------------


@tilec.jit
def integer_bits(x_ptr, y_ptr, w_ptr, out_ptr, wide_out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)  # int32
    y = tl.load(y_ptr + offs)
    w = tl.load(w_ptr + offs)  # int64
    results = [
        libdevice.popc(x), libdevice.clz(x), libdevice.ffs(x), libdevice.brev(x), libdevice.mulhi(x, y),
        libdevice.mul24(x, y), libdevice.hadd(x, y), libdevice.rhadd(x, y), libdevice.abs(x),
        libdevice.sad(x, y, 7).to(tl.int32, bitcast=True), libdevice.popc(w), libdevice.clz(w), libdevice.ffs(w),
    ]  # fmt: skip
    for i in tl.static_range(len(results)):
        tl.store(out_ptr + i * N + offs, results[i])
    tl.store(wide_out_ptr + offs, libdevice.brev(w))


def _brev(v, width):
    return int(format(v & ((1 << width) - 1), f"0{width}b")[::-1], 2)


def test_integer_bit_functions(target):
    rng = np.random.default_rng(7)
    x = rng.integers(-(2**31), 2**31, 64).astype(np.int32)
    y = rng.integers(-(2**31), 2**31, 64).astype(np.int32)
    w = rng.integers(-(2**63), 2**63, 64, dtype=np.int64)
    x[:6] = [0, 1, -1, 2**31 - 1, -(2**31), 1 << 20]
    y[:6] = [5, -1, -1, 2**31 - 1, -(2**31), 3]
    w[:3] = [0, -1, 1 << 40]
    out, wide = np.zeros(13 * 64, np.int32), np.zeros(64, np.int64)
    integer_bits[(1,)](x, y, w, out, wide, N=64)
    got = out.reshape(13, 64)

    def low24(v):
        v = v & 0xFFFFFF
        return v - (1 << 24) if v & 0x800000 else v

    for i, (a, b, c) in enumerate(zip(x.tolist(), y.tolist(), w.tolist())):
        ua, uc = a & 0xFFFFFFFF, c & (2**64 - 1)
        expected = [
            bin(ua).count("1"), 32 - ua.bit_length(), (ua & -ua).bit_length(), _brev(a, 32),
            (a * b) >> 32, low24(a) * low24(b), (a + b) >> 1, (a + b + 1) >> 1, abs(a),
            abs(a - b) + 7, bin(uc).count("1"), 64 - uc.bit_length(), (uc & -uc).bit_length(),
        ]  # fmt: skip
        wrapped = [
            np.int64(v).astype(np.int32) if -(2**63) <= v < 2**63 else np.int32(v & 0xFFFFFFFF)
            for v in expected
        ]
        wrapped = [np.array(v & 0xFFFFFFFF, np.uint32).view(np.int32) for v in expected]
        assert [int(g) for g in got[:, i]] == [int(v) for v in wrapped], (i, a, b, c)
        assert int(wide[i]) == np.array(_brev(c, 64), np.uint64).view(np.int64), (i, c)


@tilec.jit
def conversions(f_ptr, d_ptr, i_out_ptr, l_out_ptr, bits_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    f = tl.load(f_ptr + offs)
    d = tl.load(d_ptr + offs)
    ints = [libdevice.float2int_rn(f), libdevice.float2int_rz(f), libdevice.float2int_rd(f),
            libdevice.float2int_ru(f), libdevice.double2int_rn(d),
            libdevice.float2uint_rz(f).to(tl.int32, bitcast=True), libdevice.float_as_int(f)]  # fmt: skip
    for i in tl.static_range(len(ints)):
        tl.store(i_out_ptr + i * N + offs, ints[i])
    longs = [libdevice.double2ll_rd(d), libdevice.float2ll_ru(f), libdevice.llrint(f), libdevice.llround(f),
             libdevice.double_as_longlong(d)]  # fmt: skip
    for i in tl.static_range(len(longs)):
        tl.store(l_out_ptr + i * N + offs, longs[i])
    tl.store(bits_ptr + offs, libdevice.int_as_float(libdevice.float_as_int(f)))
    tl.store(
        bits_ptr + N + offs, libdevice.longlong_as_double(libdevice.double_as_longlong(d)).to(tl.float32)
    )


def _saturated(values, dtype):
    info = np.iinfo(dtype)
    values = np.where(np.isnan(values), 0, values)
    return np.clip(values, info.min, info.max).astype(np.float64)


def test_conversions_with_rounding_modes(target):
    f = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.7, 3.2, 1e10, -1e10, np.nan, np.inf, -np.inf, 7.0, -0.0,
                  2147483520.0, -2147483648.0], np.float32)  # fmt: skip
    d = f.astype(np.float64) * 3.3
    ints, longs = np.zeros(7 * 16, np.int32), np.zeros(5 * 16, np.int64)
    bits = np.zeros(32, np.float32)
    conversions[(1,)](f, d, ints, longs, bits, N=16)
    ints, longs = ints.reshape(7, 16), longs.reshape(5, 16)
    f64 = f.astype(np.float64)
    for row, expected in zip(
        ints[:5], [np.rint(f64), np.trunc(f64), np.floor(f64), np.ceil(f64), np.rint(d)]
    ):
        np.testing.assert_array_equal(row, _saturated(expected, np.int32))
    np.testing.assert_array_equal(ints[5].view(np.uint32), _saturated(np.trunc(f64), np.uint32))
    np.testing.assert_array_equal(ints[6], f.view(np.int32))
    np.testing.assert_array_equal(longs[0], _saturated(np.floor(d), np.int64))
    np.testing.assert_array_equal(longs[1], _saturated(np.ceil(f64), np.int64))
    finite = np.isfinite(f)
    np.testing.assert_array_equal(longs[2][finite], np.rint(f64)[finite])
    np.testing.assert_array_equal(
        longs[3][finite], np.sign(f64[finite]) * np.floor(np.abs(f64[finite]) + 0.5)
    )
    np.testing.assert_array_equal(longs[4], d.view(np.int64))
    np.testing.assert_array_equal(bits[:16].view(np.int32), f.view(np.int32))
    np.testing.assert_array_equal(bits[16:], d.astype(np.float32))


@tilec.jit
def float_helpers(x_ptr, y_ptr, n_ptr, out_ptr, int_out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    n = tl.load(n_ptr + offs)
    results = [x * 0, libdevice.fdim(x, y), libdevice.sinpi(x), libdevice.cospi(x),
               libdevice.rhypot(x, y), libdevice.norm3d(x, y, n.to(tl.float32)),
               libdevice.rnorm4d(x, y, x, y), libdevice.rcbrt(x), libdevice.ldexp(x, n),
               libdevice.logb(x), libdevice.nextafter(x, y), libdevice.abs(x)]  # fmt: skip
    for i in tl.static_range(len(results)):
        tl.store(out_ptr + i * N + offs, results[i])
    tl.store(int_out_ptr + offs, libdevice.ilogb(x))


@tilec.jit
def float_remainder(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, libdevice.fmod(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))


def test_float_helpers(target):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(256) * 10.0 ** rng.integers(-40, 38, 256)).astype(np.float32)
    y = (rng.standard_normal(256) * 10.0 ** rng.integers(-3, 4, 256)).astype(np.float32)
    n = rng.integers(-300, 300, 256).astype(np.int32)
    x[:12] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -3e-39, 1.0, 2.5, -7.25, 3.0, 0.5]
    y[:12] = [1.0, -2.0, 3.0, 1.0, 2.0, 0.0, 1.0, 1.0, 2.5, np.nan, -np.inf, 0.0]
    n[:12] = [0, 5, 3, -2, 1, 149, 10, -150, 127, 3, -1, 200]
    out, ints = np.zeros(12 * 256, np.float32), np.zeros(256, np.int32)
    float_helpers[(1,)](x, y, n, out, ints, N=256)
    got = out.reshape(12, 256)
    x64, y64, n64 = x.astype(np.float64), y.astype(np.float64), n.astype(np.float64)
    with np.errstate(all="ignore"):
        finite = np.isfinite(x64)
        references = [
            x * 0, np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x64 > y64, x64 - y64, 0.0)),
            np.where(finite, np.sin(np.pi * np.where(finite, x64 % 2.0, 0)), np.nan),
            np.where(finite, np.cos(np.pi * np.where(finite, x64 % 2.0, 0)), np.nan),
            1 / np.hypot(x64, y64), np.sqrt(x64**2 + y64**2 + n64**2), 1 / np.sqrt(2 * x64**2 + 2 * y64**2),
            1 / np.cbrt(x64), np.ldexp(x64, n), np.where(x == 0, -np.inf, np.where(finite, np.frexp(x64)[1] - 1.0, np.abs(x64))),
            np.nextafter(x, y), np.abs(x),
        ]  # fmt: skip
    for i, (row, ref) in enumerate(zip(got, references)):
        with np.errstate(over="ignore"):  # references past float32's range round to inf, as the kernel's do
            ref = np.asarray(ref, np.float64).astype(np.float32)
        if i in (2, 3):  # sin/cos of pi x: absolute error against a float64 reference
            np.testing.assert_allclose(row, ref, atol=2e-7, rtol=0, err_msg=f"row {i}")
        elif i in (4, 5, 6, 7):
            np.testing.assert_allclose(row, ref, rtol=2e-7, atol=0, err_msg=f"row {i}")
        else:
            np.testing.assert_array_equal(row, ref, err_msg=f"row {i}")
    with np.errstate(all="ignore"):
        expected = np.where(
            np.isfinite(x64) & (x != 0), np.frexp(x64)[1] - 1, np.where(np.isinf(x), 2**31 - 1, -(2**31))
        )
    np.testing.assert_array_equal(ints, expected.astype(np.int32))
    remainders = np.zeros(256, np.float32)
    float_remainder[(1,)](x, y, remainders, N=256)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(remainders, np.fmod(x, y))


def _wide_pairs(rng, n: int, dtype):
    """n pairs (x, y) over the whole range of dtype (subnormals included), the first ones every pair
    of special values; returns x, y and how many pairs are special."""
    top = 38 if dtype == np.float32 else 307
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-top - 7, top + 1, n)).astype(dtype)
    y = (rng.standard_normal(n) * 10.0 ** rng.integers(-top - 7, top + 1, n)).astype(dtype)
    info = np.finfo(dtype)
    tiny = np.array(info.smallest_subnormal, dtype)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -tiny, info.max, -info.max, 1.0, 5.5, -5.5]
    pairs = [(a, b) for a in specials for b in specials]
    x[: len(pairs)], y[: len(pairs)] = zip(*pairs)
    return x, y, len(pairs)


def _assert_same_bits(x, y, out, expected):
    """out equals expected bit for bit (any NaN matching any NaN)."""
    ints = np.int32 if out.dtype == np.float32 else np.int64
    same = (out.view(ints) == expected.view(ints)) | (np.isnan(out) & np.isnan(expected))
    assert same.all(), list(zip(x[~same][:5], y[~same][:5], out[~same][:5], expected[~same][:5]))


@tilec.jit
def ieee_remainder(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, libdevice.remainder(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ieee_remainder(target, dtype):
    """libdevice.remainder is IEEE's (C's remainder, Python's math.remainder): the quotient rounded
    to the nearest integer, ties to even, bit-exact, over the whole range, at ties (x an odd or even
    multiple of y / 2) and for every pair of special values."""
    import math

    rng = np.random.default_rng(5)
    n = 1024
    x, y, pairs = _wide_pairs(rng, n, dtype)
    ties = slice(pairs, pairs + 200)  # x = k y / 2: odd k are ties
    y[ties] = rng.standard_normal(200).astype(dtype)
    x[ties] = (rng.integers(-40, 40, 200).astype(dtype) * y[ties] / dtype(2)).astype(dtype)
    out = np.zeros(n, dtype)
    ieee_remainder[(1,)](x, y, out, N=n)
    expected = np.array(
        [
            math.remainder(a, b)
            if not (math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0)
            else math.nan
            for a, b in zip(x.astype(float), y.astype(float))
        ],
        dtype,
    )
    _assert_same_bits(x, y, out, expected)


@builtin
def _exact_fmod(x, y):
    from tilec.language.float_remainder import exact_fmod

    return exact_fmod(semantic.to_tensor(x), semantic.to_tensor(y))


@tilec.jit
def exact_remainder(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, _exact_fmod(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exact_float_remainder(target, dtype):
    """The computation of fmod that GPU code uses (tile-exact-float-remainder), run on the host:
    bit-exact against C's fmod over the whole range (quotients up to 2^276 and 2^2097, subnormals),
    next to exact multiples (quotients a hair below and above an integer) and every pair of special
    values."""
    rng = np.random.default_rng(0)
    n = 2048
    x, y, pairs = _wide_pairs(rng, n, dtype)
    # multiples of y and their neighbours: the division rounds up to the next integer
    m = slice(pairs, pairs + 600)
    base = (rng.standard_normal(600) * 10.0 ** rng.integers(-20, 20, 600)).astype(dtype)
    mult = rng.integers(1, 2**20, 600).astype(dtype) * dtype(2.0) ** rng.integers(0, 60, 600).astype(dtype)
    side = np.where(np.arange(600) % 3 == 1, 0, np.inf)  # every third exact, then below, above
    with np.errstate(all="ignore"):
        exact = (base * mult).astype(dtype)
        x[m] = np.where(np.arange(600) % 3 == 0, exact, np.nextafter(exact, side.astype(dtype)))
    y[m] = base
    out = np.zeros(n, dtype)
    exact_remainder[(1,)](x, y, out, N=n)
    with np.errstate(all="ignore"):
        expected = np.fmod(x, y)
    _assert_same_bits(x, y, out, expected)


@tilec.jit
def fused_multiply_add(a_ptr, b_ptr, c_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.fma(tl.load(a_ptr + offs), tl.load(b_ptr + offs), tl.load(c_ptr + offs)))


def test_float64_fma_rounds_once(target):
    """tl.fma on float64 is a fused multiply-add on every target: a * b + c rounded once (the
    interpreter's was a NumPy product and sum, rounded twice). Checked against exact rationals on
    products whose low half cancels against c."""
    from fractions import Fraction

    rng = np.random.default_rng(1)
    n = 256
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)
    b = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)
    c = -(a * b) * np.where(np.arange(n) % 2 == 0, 1.0, 1 + 2.0**-40)  # the product's rounding error shows
    out = np.zeros(n)
    fused_multiply_add[(1,)](a, b, c, out, N=n)
    expected = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    np.testing.assert_array_equal(out, expected)
    assert (out[::2] != 0).any()  # a*b + c of the rounded product would be 0 there


# -- arithmetic that rounds on its own, saturation, bit assembly -------------------------------------


@tilec.jit
def rounded_and_bits(x_ptr, y_ptr, s_ptr, out_f, out_i, out_d, N: tl.constexpr):
    i = tl.arange(0, N)
    x, y, s = tl.load(x_ptr + i), tl.load(y_ptr + i), tl.load(s_ptr + i)
    tl.store(out_f + i, libdevice.add_rn(libdevice.mul_rn(x, y), 1.0))
    tl.store(out_f + N + i, libdevice.sub_rn(x, libdevice.fma_rn(x, y, 0.5)))
    tl.store(out_f + 2 * N + i, libdevice.saturatef(x))
    tl.store(out_f + 3 * N + i, renamed_fast_dividef(x, y))
    tl.store(out_f + 4 * N + i, libdevice.rsqrt_rn(tl.abs(x)))
    tl.store(out_f + 5 * N + i, tl.where(~libdevice.isnan(x / y) & ~libdevice.isinf(x / y), 1.0, 0.0))
    xi, yi = x.to(tl.int32, bitcast=True), y.to(tl.int32, bitcast=True)
    tl.store(out_i + i, libdevice.byte_perm(xi, yi, s))
    d = libdevice.hiloint2double(yi, xi)
    tl.store(out_d + i, d)
    tl.store(out_i + N + i, libdevice.double2hiint(d))
    tl.store(out_i + 2 * N + i, libdevice.double2loint(d))


def test_rounded_arithmetic_and_bit_assembly(target):
    """add_rn / sub_rn / mul_rn / fma_rn round once each, rsqrt_rn correctly, saturatef clamps (NaN to
    0), isnan / isinf are masks (`~` negates them, as in Triton, where they return int1), byte_perm
    is CUDA's __byte_perm, hiloint2double / double2hiint / double2loint assemble and split doubles."""
    n = 64
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    x[:4], y[:4] = [np.nan, 0.0, 2.5, 1e30], [1.0, 0.0, -0.0, 1e-30]
    s = rng.integers(0, 2**16, n).astype(np.int32)
    of, oi, od = np.zeros(6 * n, np.float32), np.zeros(3 * n, np.int32), np.zeros(n, np.float64)
    rounded_and_bits[(1,)](x, y, s, of, oi, od, N=n)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        fma = (x64 * y64 + 0.5).astype(np.float32)  # x * y is exact in float64: one rounding
        want = [
            (x * y) + np.float32(1.0), x - fma, np.where(x > 0, np.minimum(x, 1), 0), x / y,
            (1 / np.sqrt(np.abs(x64))).astype(np.float32), np.isfinite(x / y),
        ]  # fmt: skip
    for name, got, expected in zip(
        "add_rn sub_rn saturatef fast_dividef rsqrt_rn masks".split(), of.reshape(6, n), want
    ):
        np.testing.assert_array_equal(got, np.asarray(expected, np.float32), err_msg=name)
    both = np.stack([x.view(np.uint32), y.view(np.uint32)], 1).view(np.uint8).reshape(n, 8)
    bytes_ = [[int(both[j][(int(s[j]) >> (4 * b)) & 7]) << (8 * b) for b in range(4)] for j in range(n)]
    np.testing.assert_array_equal(oi[:n], np.array([sum(b) for b in bytes_], np.uint32).view(np.int32))
    joined = (y.view(np.uint32).astype(np.uint64) << np.uint64(32)) | x.view(np.uint32).astype(np.uint64)
    np.testing.assert_array_equal(od.view(np.uint64), joined)
    np.testing.assert_array_equal(oi[n : 2 * n], y.view(np.int32))
    np.testing.assert_array_equal(oi[2 * n :], x.view(np.int32))


@pytest.mark.parametrize("arch", ["sm_90a", "gfx942"])
def test_rounded_arithmetic_is_never_fused(arch):
    """GPUs fuse fp32 a * b + c into an FMA by default (enable_fp_fusion); add_rn(mul_rn(x, y), 1)
    must stay a multiply and an add, each rounded."""
    compiled = tilec.compile(
        rounded_and_bits, signature="*fp32,*fp32,*i32,*fp32,*i32,*fp64", constexprs={"N": 64}, target=arch
    )
    code = compiled.asm.get("ptx") or compiled.asm["amdgcn"]
    fused = re.findall(r"\b(fma\.rn\.f32|v_fmac_f32|v_fma_f32)", code)
    # the one FMA is fma_rn's own (x * y + 0.5): the add_rn / mul_rn pair is not a second one
    assert len(fused) == 1, fused


@pytest.mark.gpu
@needs_gpu
def test_rounded_arithmetic_on_gpu():
    import torch

    n = 64
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    s = rng.integers(0, 2**16, n).astype(np.int32)
    host = [np.zeros(6 * n, np.float32), np.zeros(3 * n, np.int32), np.zeros(n, np.float64)]
    _host_reference(rounded_and_bits, x, y, s, *host, N=n)
    device = [torch.zeros(len(h), dtype=torch.from_numpy(h).dtype, device="cuda") for h in host]
    rounded_and_bits[(1,)](*(torch.from_numpy(v).cuda() for v in (x, y, s)), *device, N=n)
    got = [d.cpu().numpy() for d in device]
    rows, host_rows = got[0].reshape(6, n), host[0].reshape(6, n)
    np.testing.assert_allclose(rows[3], host_rows[3], rtol=1e-6)  # fast_dividef: the GPU's may be approximate
    for row in (0, 1, 2, 4, 5):  # exactly rounded on every target
        np.testing.assert_array_equal(rows[row], host_rows[row], err_msg=str(row))
    np.testing.assert_array_equal(got[1], host[1])
    np.testing.assert_array_equal(got[2], host[2])


# -- directed rounding: arithmetic and conversions rounded toward zero, down and up ------------------


@tilec.jit
def directed(x_ptr, y_ptr, z_ptr, out_ptr, OP: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, N)
    x, y, z = tl.load(x_ptr + i), tl.load(y_ptr + i), tl.load(z_ptr + i)
    if OP == "add":
        r = (libdevice.add_rz(x, y), libdevice.add_rd(x, y), libdevice.add_ru(x, y))
    elif OP == "sub":
        r = (libdevice.sub_rz(x, y), libdevice.sub_rd(x, y), libdevice.sub_ru(x, y))
    elif OP == "mul":
        r = (libdevice.mul_rz(x, y), libdevice.mul_rd(x, y), libdevice.mul_ru(x, y))
    elif OP == "div":
        r = (libdevice.div_rz(x, y), libdevice.div_rd(x, y), libdevice.div_ru(x, y))
    elif OP == "sqrt":
        r = (libdevice.sqrt_rz(x), libdevice.sqrt_rd(x), libdevice.sqrt_ru(x))
    elif OP == "rcp":
        r = (libdevice.rcp_rz(x), libdevice.rcp_rd(x), libdevice.rcp_ru(x))
    else:
        r = (libdevice.fma_rz(x, y, z), libdevice.fma_rd(x, y, z), libdevice.fma_ru(x, y, z))
    for j in tl.static_range(3):
        tl.store(out_ptr + j * N + i, r[j])


def _floor_in(v: Fraction, dtype):
    """The greatest value of `dtype` <= v (-inf below the finite range)."""
    top = Fraction(float(np.finfo(dtype).max))
    if v >= top:
        return dtype(np.finfo(dtype).max)
    if v < -top:
        return dtype(-np.inf)
    c = dtype(float(v))
    while Fraction(float(c)) > v:
        c = np.nextafter(c, dtype(-np.inf))
    while Fraction(float(np.nextafter(c, dtype(np.inf)))) <= v:
        c = np.nextafter(c, dtype(np.inf))
    return c


def _rounded(v: Fraction, dtype, mode: str, zero_sign: float):
    """The exact value v rounded per mode (an exact zero gets zero_sign's sign)."""
    if v == 0:
        return dtype(math.copysign(0.0, zero_sign))
    low = _floor_in(v, dtype)
    exact = np.isfinite(low) and Fraction(float(low)) == v
    with np.errstate(over="ignore"):  # the step above the largest finite value is inf
        high = low if exact else np.nextafter(low, dtype(np.inf))
    result = {"rd": low, "ru": high, "rz": low if v > 0 else high}[mode]
    return result if result != 0 else dtype(math.copysign(0.0, float(v)))


def _sum_zero_sign(terms: list, mode: str) -> float:
    """IEEE's sign of an exact zero sum: -0 only from -0 + -0, except rounding down, where only
    +0 + +0 gives +0."""
    negative = [math.copysign(1.0, t) < 0 for t in terms]
    if mode == "rd":
        return 1.0 if all(t == 0 for t in terms) and not any(negative) else -1.0
    return -1.0 if all(t == 0 for t in terms) and all(negative) else 1.0


def _directed_expected(op: str, x, y, z, mode: str):
    dtype = type(x)
    used = {"sqrt": (x,), "rcp": (x,), "fma": (x, y, z)}.get(op, (x, y))
    finite = all(np.isfinite(v) for v in used)
    with np.errstate(all="ignore"):
        if (
            not finite
            or (op in ("div", "rcp") and (y if op == "div" else x) == 0)
            or (op == "sqrt" and x < 0)
        ):
            # infinities, NaN, division by zero, negative roots: IEEE's results are exact
            if op == "fma" and np.isfinite(x) and np.isfinite(y) and np.isinf(z):
                return z  # the exact product is finite (x * y may overflow)
            return {"add": x + y, "sub": x - y, "mul": x * y, "div": x / y, "sqrt": np.sqrt(x),
                    "rcp": dtype(1) / x, "fma": dtype(float(x) * float(y) + float(z))}[op]  # fmt: skip
    fx, fy, fz = (Fraction(float(v)) if np.isfinite(v) else None for v in (x, y, z))
    if op in ("add", "sub"):
        fy, y = (fy, y) if op == "add" else (-fy, -y)
        return _rounded(fx + fy, dtype, mode, _sum_zero_sign([x, y], mode))
    if op == "mul":
        return _rounded(fx * fy, dtype, mode, math.copysign(1.0, x) * math.copysign(1.0, y))
    if op == "div":
        return _rounded(fx / fy, dtype, mode, math.copysign(1.0, x) * math.copysign(1.0, y))
    if op == "rcp":
        return _rounded(1 / fx, dtype, mode, 1.0)
    if op == "fma":
        product_sign = math.copysign(1.0, x) * math.copysign(1.0, y)
        return _rounded(
            fx * fy + fz,
            dtype,
            mode,
            _sum_zero_sign([math.copysign(0.0, product_sign) if fx * fy == 0 else 1.0, z], mode),
        )
    # sqrt: floor / ceiling of the root by the square's exact comparisons
    if x == 0:
        return x
    root = _rounded(Fraction(math.isqrt(int(fx * 2**2300)), 2**1150), dtype, "rd", 1.0)
    while Fraction(float(np.nextafter(root, dtype(np.inf)))) ** 2 <= fx:
        root = np.nextafter(root, dtype(np.inf))
    while Fraction(float(root)) ** 2 > fx:
        root = np.nextafter(root, dtype(-np.inf))
    exact = Fraction(float(root)) ** 2 == fx
    return root if exact or mode in ("rd", "rz") else np.nextafter(root, dtype(np.inf))


def _directed_inputs(dtype, n: int, rng):
    """Values over the whole exponent range (subnormals included), exact and cancelling pairs,
    overflowing ones, zeros of both signs, infinities and NaN."""
    info = np.finfo(dtype)
    low, high = int(np.log2(info.smallest_subnormal)), int(np.log2(info.max))

    def spread(k):
        return (rng.uniform(1, 2, k) * 2.0 ** rng.integers(low, high, k) * rng.choice([-1, 1], k)).astype(
            dtype
        )

    x, y, z = spread(n), spread(n), spread(n)
    near = rng.uniform(0.5, 2, n // 4).astype(dtype)  # similar scales: cancellation, no extremes
    x[: n // 4] = near
    y[: n // 4] = (near * rng.uniform(-2, 2, n // 4)).astype(dtype)
    z[: n // 4] = (near * rng.uniform(-2, 2, n // 4)).astype(dtype)
    special = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        3.0,
        0.1,
        info.max,
        -info.max,
        info.smallest_subnormal,
        -info.smallest_subnormal,
        np.inf,
        -np.inf,
        np.nan,
        2.0,
    ]
    k = len(special)
    x[-k:], y[-k:], z[-k:] = special, special[::-1], special[3:] + special[:3]
    y[n // 4 : n // 4 + 8] = -x[n // 4 : n // 4 + 8]  # exact zero sums
    y[n // 4 + 8 : n // 4 + 16] = x[n // 4 + 8 : n // 4 + 16]
    return x, y, z


def _fma_cases(x, y, z, dtype, rng, at: int) -> None:
    """Cases of x * y + z from index `at` on: z cancelling the product (the exact result its
    rounding error), a product beyond the largest float that z brings back, products among the
    subnormals and below them (by far too) with zero or subnormal z, and z far above a tiny product."""
    info = np.finfo(dtype)

    def put(xs, ys, zs):
        nonlocal at
        k = len(xs)
        x[at : at + k], y[at : at + k], z[at : at + k] = xs, ys, zs
        at += k

    a, b = rng.uniform(1, 2, 16).astype(dtype), rng.uniform(-2, 2, 16).astype(dtype)
    put(a, b, -(a * b))
    near_one = (1 + rng.uniform(0, 1e-3, 8)).astype(dtype)
    top = info.maxexp - 24
    put(near_one * dtype(2.0**top), near_one * dtype(2.0**24), np.full(8, -info.max, dtype))
    emin = int(np.log2(info.smallest_subnormal))
    for lo, hi in (
        (emin // 2, emin // 2 + 25),
        (emin // 2 - 60, emin // 2 - 20),
        (emin // 2 - 180, emin // 2 - 140),
    ):
        put(
            rng.uniform(1, 2, 12) * 2.0 ** rng.integers(lo, hi, 12),
            rng.uniform(-2, 2, 12) * 2.0 ** rng.integers(lo, hi, 12),
            np.where(np.arange(12) % 3 == 0, 0.0, rng.integers(-8, 9, 12) * float(info.smallest_subnormal)),
        )
    put(
        rng.uniform(1, 2, 8) * 2.0 ** (emin // 2 + 30),
        rng.uniform(-2, 2, 8) * 2.0 ** (emin // 2 + 30),
        rng.uniform(-2, 2, 8) * 2.0 ** rng.integers(emin // 4, 0, 8),
    )


@pytest.mark.parametrize(
    "op, dtype",
    [(op, np.float32) for op in ("add", "sub", "mul", "div", "sqrt", "rcp", "fma")]
    + [(op, np.float64) for op in ("add", "sub", "mul", "div", "sqrt", "rcp", "fma")],
)
def test_directed_rounding(target, op, dtype):
    """add/sub/mul/div/sqrt/rcp/fma rounded toward zero (rz), down (rd) and up (ru), bit for bit
    against exact rational arithmetic, subnormal results and operands included."""
    rng = np.random.default_rng([ord(c) for c in op + dtype.__name__])
    n = 256
    x, y, z = _directed_inputs(dtype, n, rng)
    # results and operands near the subnormals, where residuals could underflow
    emin = int(np.log2(np.finfo(dtype).smallest_subnormal))
    tiny = slice(n // 2, n // 2 + 48)
    x[tiny] = rng.uniform(1, 2, 48) * 2.0 ** rng.integers(emin // 2 - 4, emin // 2 + 30, 48)
    y[tiny] = rng.uniform(-2, 2, 48) * 2.0 ** rng.integers(emin // 2 - 4, emin // 2 + 30, 48)
    if op in ("div", "sqrt", "rcp"):
        x[tiny] = rng.uniform(1, 2, 48) * 2.0 ** rng.integers(emin, emin + 60, 48)
        y[tiny] = rng.uniform(-8, 8, 48) * 2.0 ** rng.integers(-3, 3, 48)
    if op == "sqrt":
        x = np.abs(x)
        x[-3] = -1.0
    if op == "fma":
        _fma_cases(x, y, z, dtype, rng, n // 2 + 48)
    out = np.zeros((3, n), dtype)
    directed[(1,)](x, y, z, out, OP=op, N=n)
    for m, mode in enumerate(("rz", "rd", "ru")):
        with np.errstate(all="ignore"):
            want = np.array([_directed_expected(op, x[i], y[i], z[i], mode) for i in range(n)], dtype)
        keep = np.ones(n, bool)
        got_bits, want_bits = (
            out[m].view(np.uint64 if dtype == np.float64 else np.uint32),
            want.view(np.uint64 if dtype == np.float64 else np.uint32),
        )
        nan = np.isnan(out[m]) & np.isnan(want)
        bad = np.nonzero(keep & ~nan & (got_bits != want_bits))[0]
        assert not len(bad), (
            f"{op}_{mode}: x={x[bad[:3]]} y={y[bad[:3]]} z={z[bad[:3]]} got={out[m][bad[:3]]} want={want[bad[:3]]}"
        )


@tilec.jit
def converted_directed(x_ptr, out_ptr, OP: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    r = (
        getattr(libdevice, OP + "_rz")(x),
        getattr(libdevice, OP + "_rd")(x),
        getattr(libdevice, OP + "_ru")(x),
    )
    for j in tl.static_range(3):
        tl.store(out_ptr + j * N + i, r[j])


@pytest.mark.parametrize(
    "name, src, dst",
    [("double2float", np.float64, np.float32), ("int2float", np.int32, np.float32),
     ("uint2float", np.uint32, np.float32), ("ll2float", np.int64, np.float32),
     ("ull2float", np.uint64, np.float32), ("ll2double", np.int64, np.float64),
     ("ull2double", np.uint64, np.float64)],
)  # fmt: skip
def test_directed_conversions(target, name, src, dst):
    rng = np.random.default_rng(7)
    n = 128
    if src == np.float64:
        x = (rng.uniform(1, 2, n) * 2.0 ** rng.integers(-160, 140, n) * rng.choice([-1, 1], n)).astype(src)
        x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0]
    else:
        info = np.iinfo(src)
        x = np.array(
            [
                int(rng.integers(info.min, info.max, dtype=src, endpoint=True)) >> int(s)
                for s in rng.integers(0, info.bits, n)
            ],
            src,
        )
        x[:4] = [info.max, info.min, info.max - 1, 0]
    out = np.zeros((3, n), dst)
    converted_directed[(1,)](x, out, OP=name, N=n)
    for m, mode in enumerate(("rz", "rd", "ru")):
        want = []
        for v in x:
            if src == np.float64 and not np.isfinite(v):
                want.append(dst(v))
            else:
                want.append(
                    _rounded(
                        Fraction(int(v)) if src != np.float64 else Fraction(float(v)),
                        dst,
                        mode,
                        math.copysign(1.0, float(v)),
                    )
                )
        want = np.array(want, dst)
        np.testing.assert_array_equal(out[m], want, err_msg=f"{name}_{mode}")
        assert np.array_equal(np.signbit(out[m]), np.signbit(want)), f"{name}_{mode}: zero signs"


@pytest.mark.gpu
@needs_gpu
def test_directed_rounding_on_gpu():
    """The GPU's results bit for bit the interpreter's (which the tests above check exactly)."""
    import torch

    for dtype, ops in ((np.float32, ("add", "sub", "mul", "div", "sqrt", "rcp", "fma")),
                       (np.float64, ("add", "sub", "mul", "div", "sqrt", "rcp", "fma"))):  # fmt: skip
        rng = np.random.default_rng(11)
        x, y, z = _directed_inputs(dtype, 256, rng)
        _fma_cases(x, y, z, dtype, rng, 128)
        for op in ops:
            host = np.zeros((3, 256), dtype)
            _host_reference(directed, x, y, z, host, OP=op, N=256)
            device = torch.zeros((3, 256), dtype=torch.from_numpy(host).dtype, device="cuda")
            directed[(1,)](*(torch.from_numpy(v).cuda() for v in (x, y, z)), device, OP=op, N=256)
            np.testing.assert_array_equal(device.cpu().numpy(), host, err_msg=f"{op} {dtype.__name__}")


@tilec.jit
def reciprocal_high(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, libdevice.rcp64h(tl.load(x_ptr + i)))


def test_rcp64h_is_a_gross_reciprocal_of_the_high_word(target):
    """rcp64h (PTX's rcp.approx.ftz.f64): the low 32 bits of the operand ignored and of the result
    zero, within 2^-20 of 1 / x; subnormals flush to zero (1 / +-0 is +-inf)."""
    rng = np.random.default_rng(3)
    x = rng.uniform(1, 2, 256) * 2.0 ** rng.integers(-1020, 1020, 256) * rng.choice([-1, 1], 256)
    special = [0.0, -0.0, 1e-310, -1e-310, np.inf, -np.inf, np.nan, 1e308, 2.0**-1022, 1.0]
    x[: len(special)] = special
    out = np.zeros_like(x)
    reciprocal_high[(1,)](x, out, N=256)
    assert not np.any(out.view(np.uint64) & 0xFFFFFFFF)
    ordinary = np.isfinite(x) & (np.abs(x) >= 2.0**-1022) & (np.abs(x) < 2.0**1022)
    assert np.all(np.abs(out[ordinary] * x[ordinary] - 1) < 2.0**-20)
    assert list(out[:4]) == [np.inf, -np.inf, np.inf, -np.inf] and np.signbit(out[5]) and np.signbit(out[3])
    assert out[4] == 0 and not np.signbit(out[4]) and out[5] == 0 and np.isnan(out[6])
    assert out[7] == 0 and out[8] == 2.0**1022 and out[9] == 1.0  # 1 / 1e308 is subnormal: flushed
