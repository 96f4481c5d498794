"""libdevice's special functions on float64 operands (tilec.language.float64_special; they refused
float64 before, having only float32 algorithms; log1p and expm1 were float64 near 0 only): accuracy in
ulp against mpmath on both host targets, C's special values, the exact bit functions, and that the GPU
code assembles and calls no library."""

from __future__ import annotations

import functools
import math
import shutil
import subprocess

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl
from tilec.language.extra import libdevice

try:
    import mpmath as mp

    mp.mp.dps = 40
except ImportError:  # a GPU machine without tilec's dev extras: its test compares with the interpreter
    mp = None
needs_mpmath = pytest.mark.skipif(mp is None, reason="needs mpmath (in tilec's dev extras)")


@tilec.jit
def unary(x_ptr, out_ptr, N: tl.constexpr, NAME: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, getattr(libdevice, NAME)(tl.load(x_ptr + offs)))


@tilec.jit
def binary(x_ptr, y_ptr, out_ptr, N: tl.constexpr, NAME: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, getattr(libdevice, NAME)(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))


def _erfcinv(v):
    """z with erfc(z) = v, by mpmath's root finder on log erfc (no underflow far in the tail)."""
    v = mp.mpf(v)
    if v > 1:
        return -_erfcinv(2 - v)
    start = mp.erfinv(1 - v) if v > 0.01 else mp.sqrt(-mp.log(v))
    return mp.findroot(lambda z: mp.log(mp.erfc(z)) - mp.log(v), start)


def _log_uniform(rng, lo, hi, n):
    return 10.0 ** rng.uniform(lo, hi, n)


def _signed(rng, v):
    return v * rng.choice([-1.0, 1.0], len(v))


def _parts(*makers):
    """Inputs in equal parts, each part made by one of `makers` (rng, n) -> array."""

    def make_all(rng, n):
        sizes = [n // len(makers)] * (len(makers) - 1)
        return np.concatenate([make(rng, size) for make, size in zip(makers, [*sizes, n - sum(sizes)])])

    return make_all


def _uniform(lo, hi):
    return lambda rng, n: rng.uniform(lo, hi, n)


def _logs(lo, hi, shift=0.0, sign=1.0):
    return lambda rng, n: shift + sign * _log_uniform(rng, lo, hi, n)


def _either_sign(make):
    return lambda rng, n: _signed(rng, make(rng, n))


# name: (reference, inputs (seeded), largest error in ulp)
CASES = {
    "atan": (lambda v: mp.atan(v), _either_sign(_logs(-20, 20)), 2),
    "asin": (lambda v: mp.asin(v), _uniform(-1, 1), 3),
    "acos": (lambda v: mp.acos(v), _uniform(-1, 1), 3),
    "tan": (lambda v: mp.tan(v), _either_sign(_parts(_uniform(0, 10), _logs(-10, 6))), 4),
    "sinh": (lambda v: mp.sinh(v), _either_sign(_parts(_uniform(0, 710), _logs(-10, 1.5))), 4),
    "cosh": (lambda v: mp.cosh(v), _either_sign(_parts(_uniform(0, 710), _logs(-10, 1.5))), 3),
    "asinh": (lambda v: mp.asinh(v), _either_sign(_logs(-20, 300)), 3),
    "acosh": (lambda v: mp.acosh(v), _logs(-15, 300, shift=1.0), 3),
    "atanh": (
        lambda v: mp.atanh(v),
        _either_sign(_parts(_uniform(0, 1), _logs(-15, -1, 1.0, -1.0), _logs(-20, -1))),
        4,
    ),
    "cbrt": (lambda v: mp.sign(v) * mp.cbrt(abs(v)), _either_sign(_logs(-320, 308)), 2),
    "rcbrt": (lambda v: mp.sign(v) / mp.cbrt(abs(v)), _either_sign(_logs(-300, 300)), 2),
    "log1p": (
        lambda v: mp.log1p(v),
        _parts(_uniform(-0.999, 5), _logs(-300, 300), _logs(-300, -0.01, sign=-1.0)),
        2,
    ),
    "expm1": (
        lambda v: mp.expm1(v),
        _parts(_uniform(-40, 709), _logs(-300, 0), _logs(-300, 0, sign=-1.0)),
        2,
    ),
    "exp10": (lambda v: mp.power(10, v), _uniform(-323, 308), 2),
    "erfc": (lambda v: mp.erfc(v), _uniform(-6, 27), 5),
    "erfcx": (lambda v: mp.exp(v * v) * mp.erfc(v), _parts(_uniform(-26, 30), _logs(-3, 100)), 4),
    "normcdf": (lambda v: mp.ncdf(v), _uniform(-38, 9), 6),
    "erfinv": (lambda v: mp.erfinv(v), _either_sign(_parts(_uniform(0, 1), _logs(-16, -1, 1.0, -1.0))), 5),
    "erfcinv": (_erfcinv, _parts(_uniform(0, 2), _logs(-320, -1), _logs(-16, -1, 2.0, -1.0)), 5),
    "normcdfinv": (lambda p: -mp.sqrt(2) * _erfcinv(2 * p), _parts(_uniform(0, 1), _logs(-320, -1)), 6),
    # lgamma loses relative accuracy near its negative zeros (-2.457..., -2.747..., ...), as C's does
    "lgamma": (
        lambda v: mp.log(abs(mp.gamma(v))),
        _parts(_uniform(0, 12), _logs(-300, 300), _uniform(-30, 0), _uniform(0.9, 2.1)),
        16,
    ),
    "tgamma": (
        lambda v: mp.gamma(v),
        _parts(_uniform(0, 12), _uniform(10, 171.6), _uniform(-170, 0), _logs(-300, 0)),
        6,
    ),
    "sinpi": (lambda v: mp.sinpi(v), _either_sign(_parts(_uniform(0, 10), _logs(-300, 17))), 2),
    "cospi": (lambda v: mp.cospi(v), _either_sign(_parts(_uniform(0, 10), _logs(-300, 17))), 2),
}


N = 512


@functools.cache
def _case(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, mpmath's values rounded to float64), computed once for both targets."""
    reference, make, _ = CASES[name]
    x = make(np.random.default_rng(sum(map(ord, name))), N)
    return x, np.array([float(reference(mp.mpf(float(v)))) for v in x])


def _ulps(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """|got - expected| in ulps of expected (results below 1e-300, where ulps are subnormal, excluded)."""
    normal = np.isfinite(expected) & (np.abs(expected) > 1e-300)
    assert np.isfinite(got[normal]).all()
    return np.abs(got[normal] - expected[normal]) / np.spacing(np.abs(expected[normal]))


@needs_mpmath
@pytest.mark.parametrize("name", sorted(CASES))
def test_float64_special_functions_to_a_few_ulp(target, name):
    x, expected = _case(name)
    out = np.zeros_like(x)
    unary[(1,)](x, out, N=N, NAME=name)
    ulps = _ulps(out, expected)
    assert ulps.max() <= CASES[name][2], (name, ulps.max(), x[np.isfinite(expected)][ulps.argmax()])


inf, nan = math.inf, math.nan
# C's values (CUDA's where C has none: erfcinv, normcdfinv)
SPECIAL = {
    "atan": [(0.0, 0.0), (-0.0, -0.0), (inf, math.pi / 2), (-inf, -math.pi / 2), (nan, nan)],
    "asin": [(-0.0, -0.0), (1.0, math.pi / 2), (-1.0, -math.pi / 2), (1.5, nan), (nan, nan)],
    "acos": [(1.0, 0.0), (-1.0, math.pi), (0.0, math.pi / 2), (-1.5, nan)],
    "tan": [(-0.0, -0.0), (inf, nan), (nan, nan)],
    "sinh": [(-0.0, -0.0), (inf, inf), (-inf, -inf), (710.0, math.sinh(710.0)), (711.0, inf)],
    "cosh": [(0.0, 1.0), (-inf, inf), (-710.0, math.cosh(710.0)), (711.0, inf), (nan, nan)],
    "asinh": [(-0.0, -0.0), (inf, inf), (-inf, -inf), (1e300, math.asinh(1e300))],
    "acosh": [(1.0, 0.0), (0.5, nan), (inf, inf), (1e300, math.acosh(1e300))],
    "atanh": [(-0.0, -0.0), (1.0, inf), (-1.0, -inf), (1.5, nan)],
    "cbrt": [(-0.0, -0.0), (-27.0, -3.0), (64.0, 4.0), (inf, inf), (-inf, -inf), (5e-324, 1.7031839360032603e-108), (nan, nan)],
    "rcbrt": [(0.0, inf), (-0.0, -inf), (inf, 0.0), (-8.0, -0.5)],
    "log1p": [(-0.0, -0.0), (-1.0, -inf), (-2.0, nan), (inf, inf), (nan, nan)],
    "expm1": [(-0.0, -0.0), (-inf, -1.0), (inf, inf), (710.0, inf), (nan, nan)],
    "exp10": [(0.0, 1.0), (-inf, 0.0), (inf, inf), (308.5, inf), (-324.0, 0.0), (-323.5, 5e-324), (nan, nan)],
    "erfc": [(-inf, 2.0), (inf, 0.0), (0.0, 1.0), (27.5, 0.0), (nan, nan)],
    "erfcx": [(inf, 0.0), (-inf, inf), (0.0, 1.0), (1e300, 1 / (1e300 * math.sqrt(math.pi))), (-27.0, inf)],
    "normcdf": [(-inf, 0.0), (inf, 1.0), (0.0, 0.5), (nan, nan)],
    "erfinv": [(1.0, inf), (-1.0, -inf), (-0.0, -0.0), (1.5, nan), (5e-324, 5e-324), (nan, nan)],
    "erfcinv": [(0.0, inf), (2.0, -inf), (1.0, 0.0), (-1.0, nan), (2.5, nan)],
    "normcdfinv": [(0.0, -inf), (1.0, inf), (0.5, 0.0), (1.5, nan)],
    "lgamma": [(0.0, inf), (-0.0, inf), (-1.0, inf), (-1e20, inf), (1.0, 0.0), (2.0, 0.0), (inf, inf),
               (-inf, inf), (3.0, math.log(2.0)), (nan, nan)],
    "tgamma": [(0.0, inf), (-0.0, -inf), (-1.0, nan), (-inf, nan), (inf, inf), (172.0, inf), (5.0, 24.0),
               (0.5, math.sqrt(math.pi)), (nan, nan)],
    "sinpi": [(-0.0, -0.0), (1e17, 0.0), (inf, nan), (0.5, 1.0), (-1.5, 1.0), (nan, nan)],
    "cospi": [(0.0, 1.0), (2.0**53, 1.0), (2.0**52 + 1, -1.0), (0.5, 0.0), (-inf, nan)],
    "logb": [(0.0, -inf), (inf, inf), (-inf, inf), (5e-324, -1074.0), (-1e300, 996.0), (nan, nan)],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_float64_special_values(target, name):
    x = np.array([v for v, _ in SPECIAL[name]], np.float64)
    out = np.zeros_like(x)
    unary[(1,)](x, out, N=len(x), NAME=name) if len(x) & (len(x) - 1) == 0 else _padded(x, out, name)
    expected = np.array([v for _, v in SPECIAL[name]])
    close = np.isclose(out, expected, rtol=4e-16, atol=0) | (np.isnan(out) & np.isnan(expected))
    assert close.all(), (name, x[~close], out[~close], expected[~close])
    zeros = expected == 0  # the sign of a zero result matters where the operand was +-0
    signed = zeros & (x == 0)
    assert (np.signbit(out[signed]) == np.signbit(expected[signed])).all(), (name, x[signed], out[signed])


def _padded(x, out, name):
    size = 1 << (len(x) - 1).bit_length()
    padded, result = np.resize(x, size), np.zeros(size)
    unary[(1,)](padded, result, N=size, NAME=name)
    out[:] = result[: len(x)]


def _pairs(n=256):
    rng = np.random.default_rng(9)
    x = _signed(rng, _log_uniform(rng, -310, 308, n))
    y = _signed(rng, _log_uniform(rng, -310, 308, n))
    y[: n // 2] = x[: n // 2] * _log_uniform(rng, -3, 3, n // 2)  # comparable magnitudes
    return x, y


@needs_mpmath
def test_float64_atan2_and_hypot(target):
    x, y = _pairs()
    out = np.zeros_like(x)
    binary[(1,)](y, x, out, N=len(x), NAME="atan2")
    expected = np.array([float(mp.atan2(mp.mpf(float(b)), mp.mpf(float(a)))) for a, b in zip(x, y)])
    assert _ulps(out, expected).max() <= 2
    binary[(1,)](x, y, out, N=len(x), NAME="hypot")
    expected = np.array([float(mp.hypot(mp.mpf(float(a)), mp.mpf(float(b)))) for a, b in zip(x, y)])
    assert _ulps(out, expected).max() <= 2
    binary[(1,)](x, y, out, N=len(x), NAME="rhypot")
    expected = np.array([float(1 / mp.hypot(mp.mpf(float(a)), mp.mpf(float(b)))) for a, b in zip(x, y)])
    assert _ulps(out, expected).max() <= 2


def test_float64_atan2_and_hypot_special_values(target):
    zero_signs = [(0.0, 0.0), (0.0, -0.0), (-0.0, 0.0), (-0.0, -0.0)]
    cases = zero_signs + [
        (1.0, inf),
        (1.0, -inf),
        (inf, inf),
        (-inf, -inf),
        (inf, 1.0),
        (0.0, -1.0),
        (nan, 1.0),
    ]
    cases += [(inf, nan), (nan, -inf), (1e308, 1e308), (5e-324, 5e-324), (-3.0, 4.0)]
    y = np.array([c[0] for c in cases])
    x = np.array([c[1] for c in cases])
    out = np.zeros(16)
    binary[(1,)](y, x, out, N=16, NAME="atan2")
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(out, np.arctan2(y, x), rtol=4e-16, atol=0)
    assert (np.signbit(out[:4]) == np.signbit(np.arctan2(y, x)[:4])).all()
    binary[(1,)](y, x, out, N=16, NAME="hypot")
    np.testing.assert_allclose(out, np.hypot(y, x), rtol=4e-16, atol=0)  # inf beats NaN


@tilec.jit
def norms(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(x_ptr + offs)
    b = tl.load(x_ptr + N + offs)
    c = tl.load(x_ptr + 2 * N + offs)
    d = tl.load(x_ptr + 3 * N + offs)
    tl.store(out_ptr + offs, libdevice.norm3d(a, b, c))
    tl.store(out_ptr + N + offs, libdevice.norm4d(a, b, c, d))
    tl.store(out_ptr + 2 * N + offs, libdevice.rnorm3d(a, b, c))
    tl.store(out_ptr + 3 * N + offs, libdevice.rnorm4d(a, b, c, d))


@needs_mpmath
def test_float64_norms_without_overflow_or_underflow(target):
    rng = np.random.default_rng(5)
    n = 128
    scale = 10.0 ** rng.choice([-300, -160, 0, 160, 300], n)
    x = (rng.standard_normal((4, n)) * scale).ravel()
    x[[0, n + 1, 2 * n + 2]] = [inf, nan, 0.0]
    out = np.zeros(4 * n)
    norms[(1,)](x, out, N=n)
    v = [[mp.mpf(float(t)) for t in row] for row in x.reshape(4, n)]
    for k, (count, reciprocal) in enumerate([(3, False), (4, False), (3, True), (4, True)]):
        exact = [mp.sqrt(mp.fsum(v[i][j] ** 2 for i in range(count))) for j in range(n)]
        expected = np.array([float(1 / e if reciprocal else e) if mp.isfinite(e) else 0.0 for e in exact])
        got = out[k * n : (k + 1) * n]
        assert got[0] == (0.0 if reciprocal else inf)  # inf wins over NaN
        assert np.isnan(got[1]) and (count == 3 or not reciprocal or np.isnan(got[1]))
        assert _ulps(got[3:], expected[3:]).max() <= 2


@tilec.jit
def exponent_bits(x_ptr, y_ptr, n_ptr, out_ptr, ints_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, libdevice.nextafter(x, tl.load(y_ptr + offs)))
    tl.store(out_ptr + N + offs, libdevice.ldexp(x, tl.load(n_ptr + offs)))
    tl.store(ints_ptr + offs, libdevice.ilogb(x))


def test_float64_nextafter_ldexp_ilogb_exactly(target):
    rng = np.random.default_rng(6)
    n = 256
    x = _signed(rng, _log_uniform(rng, -323, 308, n))
    x[:8] = [0.0, -0.0, 5e-324, -5e-324, 1.0, inf, -inf, nan]
    y = _signed(rng, _log_uniform(rng, -323, 308, n))
    y[:8] = [-1.0, 0.0, 0.0, -inf, 1.0, 0.0, inf, 1.0]
    e = rng.integers(-2300, 2300, n).astype(np.int32)
    e[8:40] = rng.integers(-1100, -1000, 32)  # results in the subnormals
    out, ints = np.zeros(2 * n), np.zeros(n, np.int32)
    exponent_bits[(1,)](x, y, e, out, ints, N=n)
    np.testing.assert_array_equal(out[:n], np.nextafter(x, y))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out[n:], np.ldexp(x, e))
    finite = np.isfinite(x) & (x != 0)
    np.testing.assert_array_equal(ints[finite], np.frexp(x[finite])[1] - 1)
    assert list(ints[[0, 5, 6, 7]]) == [-(2**31), 2**31 - 1, 2**31 - 1, -(2**31)]


@needs_mpmath
def test_float64_constants_are_what_the_tool_derives():
    """tilec/language/float64_constants.py is tools/float64_constants.py's output (mpmath)."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    spec = importlib.util.spec_from_file_location(
        "float64_constants_tool", root / "tools" / "float64_constants.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert (root / "tilec" / "language" / "float64_constants.py").read_text() == tool.render()


@tilec.jit
def every_function(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = libdevice.atan(x) + libdevice.atan2(x, x) + libdevice.asin(x) + libdevice.acos(x) + libdevice.tan(x)
    y += libdevice.sinh(x) + libdevice.cosh(x) + libdevice.asinh(x) + libdevice.acosh(x) + libdevice.atanh(x)
    y += libdevice.cbrt(x) + libdevice.rcbrt(x) + libdevice.hypot(x, x) + libdevice.norm3d(x, x, x)
    y += libdevice.exp10(x) + libdevice.erfc(x) + libdevice.erfcx(x) + libdevice.normcdf(x)
    y += libdevice.erfinv(x) + libdevice.erfcinv(x) + libdevice.normcdfinv(x) + tl.erf(x)
    y += libdevice.lgamma(x) + libdevice.tgamma(x) + libdevice.sinpi(x) + libdevice.cospi(x)
    y += libdevice.logb(x) + libdevice.nextafter(x, x) + libdevice.ldexp(x, libdevice.ilogb(x))
    tl.store(out_ptr + offs, y)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80", "gfx942"])
def test_float64_functions_compile_for_gpus_without_vendor_libraries(arch, tmp_path):
    compiled = tilec.compile(every_function, signature="*fp64,*fp64", constexprs={"N": 128}, target=arch)
    code = compiled.asm.get("ptx", "") + compiled.asm.get("llir", "")
    assert "__nv_" not in code and "__ocml_" not in code
    ptx = compiled.asm.get("ptx")
    if ptx is not None:
        assert "call" not in ptx
        if shutil.which("ptxas"):
            (tmp_path / "k.ptx").write_text(ptx)
            subprocess.run(
                ["ptxas", f"-arch={arch}", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.o")], check=True
            )


@pytest.mark.gpu
@needs_gpu
@needs_mpmath
def test_float64_special_functions_on_gpu():
    """The GPU's results against mpmath, with the host's bounds; NaN where the interpreter's are. (Not
    the interpreter's values to an ulp: where a float32 estimate starts Newton's iteration, erfcinv,
    the GPU's float32 arithmetic may end it an ulp or two elsewhere, as measured on an H200.)"""
    import torch

    for name in sorted(CASES):
        x, expected = _case(name)
        out = torch.zeros(N, dtype=torch.float64, device="cuda")
        unary[(1,)](torch.from_numpy(x).cuda(), out, N=N, NAME=name)
        host = np.zeros_like(x)
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("TILEC_INTERPRET", "1")
            unary[(1,)](x, host, N=N, NAME=name)
        got = out.cpu().numpy()
        assert np.array_equal(np.isnan(got), np.isnan(host)), name
        assert _ulps(got, expected).max() <= CASES[name][2], (name, _ulps(got, expected).max())
