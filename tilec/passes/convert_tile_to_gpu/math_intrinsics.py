"""Math through intrinsics that both NVPTX and AMDGPU lower without device libraries."""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, llvm, scf

from tilec.dialects import tile

from ..base import PassError
from .common import const_i32


def narrows_in_pairs(source: ir.Value, result: ir.Type) -> bool:
    """f32 -> f16/bf16 truncations go two registers at a time (see truncate_in_pairs)."""
    return str(tile.element_of(source.type)) == "f32" and str(result) in ("f16", "bf16")


def truncate_in_pairs(values: list, result: ir.Type) -> list:
    """Registers i and i + 1 (neighbours along the fastest dimension: an accumulator's 2 columns per
    thread) rounded as one vector<2xf32> -> vector<2x(b)f16>: NVPTX emits one packed
    `cvt.rn.(b)f16x2.f32` for it, where two scalar truncations were two `cvt.rn.(b)f16.f32`, and the
    halves stay packed in one 32-bit register for the store (an fp16 matmul epilogue: 64 conversions
    per thread at 128x256x8 warps instead of 128). Other targets split the vector again."""
    wide, narrow = (ir.VectorType.get([2], t) for t in (ir.F32Type.get(), result))
    out = []
    for lo, hi in zip(values[0::2], values[1::2]):
        pair = llvm.UndefOp(wide).result
        for i, v in enumerate((lo, hi)):
            pair = llvm.InsertElementOp(pair, v, const_i32(i)).result
        rounded = arith.truncf(narrow, pair)
        out += [llvm.ExtractElementOp(rounded, const_i32(i)).result for i in (0, 1)]
    return out


def _fastmath():
    return ir.Attribute.parse("#llvm.fastmath<afn>")


def intrinsic(name: str, t: ir.Type, args, approx: bool = True) -> ir.Value:
    """`llvm.<name>.<type>` as a call_intrinsic: the GPU conversions would turn math ops into
    vendor-library calls (__nv_*, __ocml_*), which need device libraries we avoid."""
    suffix = {"f32": "f32", "f64": "f64", "f16": "f16"}[str(t)]
    fastmath = _fastmath() if approx else None
    op = llvm.CallIntrinsicOp(
        t, ir.StringAttr.get(f"llvm.{name}.{suffix}"), list(args), [], [], fastmathFlags=fastmath
    )
    return op.results[0]


def _exact(name):
    """An exactly rounded intrinsic, computed in f32 for f16/bf16 (exact there too)."""

    def lower(vendor, a, t):
        if str(t) in ("f32", "f64"):
            return intrinsic(name, t, a, approx=False)
        f32 = ir.F32Type.get()
        return arith.truncf(t, intrinsic(name, f32, [arith.extf(f32, x) for x in a], approx=False))

    return lower


def _absi(vendor, a, t):
    zero = arith.ConstantOp(t, 0).result
    return arith.select(arith.cmpi(arith.CmpIPredicate.slt, a[0], zero), arith.subi(zero, a[0]), a[0])


def _in_f32(fn):
    """Computes in f32 for f16/bf16 (and rejects f64, which would need a device library)."""

    def wrapped(vendor, operands, t):
        if str(t) == "f32":
            return fn(vendor, operands, t)
        if str(t) in ("f16", "bf16"):
            f32 = ir.F32Type.get()
            r = fn(vendor, [arith.extf(f32, o) for o in operands], f32)
            return arith.truncf(t, r)
        raise PassError(
            f"not supported for {t} on GPUs yet (it would need the vendor's device library); "
            "compute in float32, or run on the CPU target"
        )

    return wrapped


def constant(t, v):
    return arith.ConstantOp(t, v).result


@_in_f32
def _exp(vendor, a, t):
    return vendor.approx_exp2(arith.mulf(a[0], constant(t, 1.4426950408889634)))


@_in_f32
def _exp2(vendor, a, t):
    return vendor.approx_exp2(a[0])


# log, log2, sin and cos as Triton's device library gives them (within an ulp or so), not as the
# hardware's approximate units, whose errors are absolute: lg2.approx left log(1 + 1e-5) 1e7 ulp off
# and sin.approx near pi 2e6 ulp off (measured on an H200 against Triton). Computed in f64, where
# the range reductions below are exact enough with few extra-precision tricks, and rounded to f32.
_LN2 = math.log(2.0)


# atanh(s) / s = 1 + s^2/3 + s^4/5 + ...: log(m) = 2 atanh((m - 1) / (m + 1)), |s| <= 0.172 for m in
# [sqrt(1/2), sqrt(2)), where seven terms leave 1e-12 relative
_ATANH_SERIES = tuple(1.0 / (2 * n + 1) for n in range(7))


# pi/2 as three f64 values (hi + mid + lo, ~160 bits): |x| - k pi/2 by three fmas is exact far below
# an f32 ulp for every |x| < 2^50 (checked with exact rational arithmetic); larger arguments go
# through 2/pi's bits (_reduce_huge)
_PIO2_PARTS = (1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33)


_HUGE_ARGUMENT = 2.0**50


# 2/pi's first 216 bits in 24-bit chunks, 2/pi = sum d_i 2^(-24 (i + 1)) (test_gpu_math derives them)
TWO_OVER_PI_CHUNKS = (
    0xA2F983,
    0x6E4E44,
    0x1529FC,
    0x2757D1,
    0xF534DD,
    0xC0DB62,
    0x95993C,
    0x439041,
    0xFE5163,
)


# Maclaurin series of sin (odd terms, divided by r) and cos on |r| <= pi/4: 1e-9 relative or better
_SIN_SERIES = tuple((-1) ** n / math.factorial(2 * n + 1) for n in range(7))


_COS_SERIES = tuple((-1) ** n / math.factorial(2 * n) for n in range(8))


def _fma_horner(t: ir.Type):
    """fma(u, v, w) and horner(coefficients from c0, z) = c0 + c1 z + ... by fmas, in type t."""

    def fma(u, v, w):
        return intrinsic("fma", t, [u, v, w], approx=False)

    def horner(coefs, z):
        p = constant(t, coefs[-1])
        for coef in reversed(coefs[:-1]):
            p = fma(p, z, constant(t, coef))
        return p

    return fma, horner


def _f64_helpers():
    f64 = ir.F64Type.get()
    return (f64, *_fma_horner(f64))


def _log_f64(x: ir.Value) -> ir.Value:
    """log(x) in f64 for a finite f32 x > 0 (f32 subnormals are normal in f64): x = m 2^e with m in
    [sqrt(1/2), sqrt(2)), log m by the atanh series."""
    f64, fma, horner = _f64_helpers()
    i64 = ir.IntegerType.get_signless(64)
    bits = arith.bitcast(i64, arith.extf(f64, x))
    exponent = arith.subi(
        arith.andi(arith.shrui(bits, constant(i64, 52)), constant(i64, 0x7FF)), constant(i64, 1023)
    )
    mantissa = arith.bitcast(
        f64, arith.ori(arith.andi(bits, constant(i64, (1 << 52) - 1)), constant(i64, 1023 << 52))
    )
    high = arith.cmpf(arith.CmpFPredicate.OGT, mantissa, constant(f64, math.sqrt(2.0)))
    m = arith.select(high, arith.mulf(mantissa, constant(f64, 0.5)), mantissa)
    e = arith.sitofp(f64, arith.select(high, arith.addi(exponent, constant(i64, 1)), exponent))
    f = arith.subf(m, constant(f64, 1.0))
    s = arith.divf(f, arith.addf(f, constant(f64, 2.0)))
    log_m = arith.mulf(arith.mulf(constant(f64, 2.0), s), horner(_ATANH_SERIES, arith.mulf(s, s)))
    return fma(e, constant(f64, _LN2), log_m)


def _logarithm(x: ir.Value, t: ir.Type, scale: float) -> ir.Value:
    """scale * log(x) rounded to f32, with log's special values: log 0 = -inf, log inf = inf, NaN
    for negative x and NaN."""
    f64 = ir.F64Type.get()
    value = arith.truncf(t, arith.mulf(_log_f64(x), constant(f64, scale)))
    inf = constant(t, math.inf)
    special = arith.select(
        arith.cmpf(arith.CmpFPredicate.OEQ, x, constant(t, 0.0)),
        constant(t, -math.inf),
        arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, x, inf), inf, constant(t, math.nan)),
    )
    ordinary = arith.andi(
        arith.cmpf(arith.CmpFPredicate.OGT, x, constant(t, 0.0)), arith.cmpf(arith.CmpFPredicate.OLT, x, inf)
    )
    return arith.select(ordinary, value, special)


@_in_f32
def _log(vendor, a, t):
    return _logarithm(a[0], t, 1.0)


@_in_f32
def _log2(vendor, a, t):
    return _logarithm(a[0], t, 1.0 / _LN2)


def _reduce_huge(a: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(r, k) in f64 with a = k pi/2 + r, |r| <= pi/4, for an f32 a in [2^50, inf): a = m 2^e (m an
    integer below 2^24, e >= 27), so a 2/pi = sum m d_i 2^(e - 24 (i + 1)) over 2/pi's chunks; each
    term is exact in f64 and only its value mod 4 matters (the largest are multiples of 4 and vanish).
    Their sum is kept as two f64 (two-sum) for its fraction's low bits; k is its nearest integer."""
    f64, fma, _ = _f64_helpers()
    i32, i64 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64)
    bits = arith.bitcast(i32, a)
    m = arith.sitofp(f64, arith.ori(arith.andi(bits, constant(i32, 0x7FFFFF)), constant(i32, 0x800000)))
    e = arith.subi(arith.shrui(bits, constant(i32, 23)), constant(i32, 127 + 23))
    hi = lo = constant(f64, 0.0)
    for i, chunk in enumerate(TWO_OVER_PI_CHUNKS):
        biased = arith.extsi(i64, arith.addi(e, constant(i32, 1023 - 24 * (i + 1))))
        scale = arith.bitcast(f64, arith.shli(biased, constant(i64, 52)))  # 2^(e - 24 (i + 1))
        term = arith.mulf(arith.mulf(m, constant(f64, float(chunk))), scale)
        quarter = intrinsic("floor", f64, [arith.mulf(term, constant(f64, 0.25))], approx=False)
        term = fma(quarter, constant(f64, -4.0), term)  # term mod 4, exactly
        total = arith.addf(hi, term)  # two-sum: total + error == hi + term exactly
        back = arith.subf(total, hi)
        error = arith.addf(arith.subf(hi, arith.subf(total, back)), arith.subf(term, back))
        hi, lo = total, arith.addf(lo, error)
    k = intrinsic("roundeven", f64, [hi], approx=False)
    fraction = arith.addf(arith.subf(hi, k), lo)
    r = fma(fraction, constant(f64, _PIO2_PARTS[0]), arith.mulf(fraction, constant(f64, _PIO2_PARTS[1])))
    return r, k


def _sine(x: ir.Value, t: ir.Type, cosine: bool) -> ir.Value:
    """sin x (cos x = sin(x + pi/2): one quadrant on) from |x| = k pi/2 + r: by k mod 4 sin r, cos r,
    -sin r or -cos r; sin takes x's sign back (-0 included)."""
    f64, fma, horner = _f64_helpers()
    i32 = ir.IntegerType.get_signless(32)
    a = intrinsic("fabs", t, [x], approx=False)
    huge = arith.andi(
        arith.cmpf(arith.CmpFPredicate.OGE, a, constant(t, _HUGE_ARGUMENT)),
        arith.cmpf(arith.CmpFPredicate.OLT, a, constant(t, math.inf)),
    )
    reduction = scf.IfOp(huge, [f64, f64], has_else=True)
    with ir.InsertionPoint(reduction.then_block):
        scf.YieldOp(list(_reduce_huge(a)))
    with ir.InsertionPoint(reduction.else_block):
        ad = arith.extf(f64, a)
        k = intrinsic("roundeven", f64, [arith.mulf(ad, constant(f64, 2.0 / math.pi))], approx=False)
        r = ad
        for part in _PIO2_PARTS:
            r = fma(arith.negf(k), constant(f64, part), r)
        scf.YieldOp([r, k])
    r, k = reduction.results
    z = arith.mulf(r, r)
    sin_r = arith.mulf(r, horner(_SIN_SERIES, z))
    cos_r = horner(_COS_SERIES, z)
    # k mod 4, exact in f64 (k - 4 floor(k / 4)); NaN (x infinite or NaN) as 0: r is NaN then
    quarter = intrinsic("floor", f64, [arith.mulf(k, constant(f64, 0.25))], approx=False)
    turns = arith.subf(k, arith.mulf(quarter, constant(f64, 4.0)))
    turns = arith.select(arith.cmpf(arith.CmpFPredicate.ORD, turns, turns), turns, constant(f64, 0.0))
    quadrant = arith.fptosi(i32, turns)
    if cosine:
        quadrant = arith.addi(quadrant, constant(i32, 1))
    odd = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(quadrant, constant(i32, 1)), constant(i32, 0))
    negative = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(quadrant, constant(i32, 2)), constant(i32, 0))
    value = arith.select(odd, cos_r, sin_r)
    value = arith.truncf(t, arith.select(negative, arith.negf(value), value))
    if cosine:
        return value
    value = arith.select(arith.cmpf(arith.CmpFPredicate.OLT, x, constant(t, 0.0)), arith.negf(value), value)
    return arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, x, constant(t, 0.0)), x, value)


@_in_f32
def _sin(vendor, a, t):
    return _sine(a[0], t, cosine=False)


@_in_f32
def _cos(vendor, a, t):
    return _sine(a[0], t, cosine=True)


@_in_f32
def _rsqrt(vendor, a, t):
    return arith.divf(constant(t, 1.0), intrinsic("sqrt", t, [a[0]], approx=False))


@_in_f32
def _tanh(vendor, a, t):
    # tanh(x) = 1 - 2 / (exp(2x) + 1), exact at both infinities; below |x| = 0.625 that cancels (1e-3
    # came out 1e-4 off, relatively), so there an odd polynomial (Cephes' tanhf, ~1e-7 relative)
    x = a[0]
    e = _exp(vendor, [arith.mulf(x, constant(t, 2.0))], t)
    by_exp = arith.subf(constant(t, 1.0), arith.divf(constant(t, 2.0), arith.addf(e, constant(t, 1.0))))
    z = arith.mulf(x, x)
    poly = constant(t, -5.70498872745e-3)
    for coef in (2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1):
        poly = arith.addf(arith.mulf(poly, z), constant(t, coef))
    small = arith.addf(arith.mulf(arith.mulf(poly, z), x), x)
    ax = intrinsic("fabs", t, [x], approx=False)
    return arith.select(arith.cmpf(arith.CmpFPredicate.OLT, ax, constant(t, 0.625)), small, by_exp)


# erf in two polynomials fitted by tools/fit_erf.py (least squares against float64 erf/erfc; within
# 2.2 ulp of erf itself everywhere, fma-evaluated in f32): below |x| = 1, x Q(x^2); from 1 on,
# 1 - 2^P(|x|) with P fitted to log2(erfc) up to 3.92, past which erf rounds to 1 in f32.
_ERF_SPLIT, _ERF_CLAMP = 1.0, 3.92


_ERF_NEAR = (
    1.1283791065216064, -0.37612318992614746, 0.11280130594968796, -0.02670994959771633,
    0.004916023463010788, -0.0005625396152026951,
)  # fmt: skip


_ERF_FAR = (
    0.0004583241534419358, -1.6305724382400513, -0.9115407466888428, -0.15881215035915375,
    0.038122523576021194, -0.0068700965493917465, 0.0008621221059001982, -6.662506348220631e-05,
    2.3731840883556288e-06,
)  # fmt: skip


@_in_f32
def _erf(vendor, a, t):
    # No device library. A single formula of the form 1 - P(t) exp(-x^2) (A&S 7.1.26, used before)
    # cancels near 0: erf(1e-30) came out 0 or ~1e-7. This one also takes fewer instructions.
    x = a[0]
    _, horner = _fma_horner(t)
    ax = intrinsic("fabs", t, [x], approx=False)
    near = arith.mulf(horner(_ERF_NEAR, arith.mulf(x, x)), x)
    clamped = arith.select(
        arith.cmpf(arith.CmpFPredicate.OLT, ax, constant(t, _ERF_CLAMP)), ax, constant(t, _ERF_CLAMP)
    )
    tail = vendor.approx_exp2(horner(_ERF_FAR, clamped))
    far = intrinsic("copysign", t, [arith.subf(constant(t, 1.0), tail), x], approx=False)
    value = arith.select(arith.cmpf(arith.CmpFPredicate.OLT, ax, constant(t, _ERF_SPLIT)), near, far)
    # NaN in, NaN out (the clamp above turned it into 3.92)
    return arith.select(arith.cmpf(arith.CmpFPredicate.ORD, x, x), value, x)


MATH = {
    "math.exp": _exp,
    "math.exp2": _exp2,
    "math.log": _log,
    "math.log2": _log2,
    "math.sin": _sin,
    "math.cos": _cos,
    "math.rsqrt": _rsqrt,
    "math.tanh": _tanh,
    "math.erf": _erf,
    "math.sqrt": _exact("sqrt"),
    "math.absf": _exact("fabs"),
    "math.floor": _exact("floor"),
    "math.ceil": _exact("ceil"),
    "math.fma": _exact("fma"),
    "math.copysign": _exact("copysign"),
    "math.trunc": _exact("trunc"),
    "math.round": _exact("round"),
    "math.roundeven": _exact("roundeven"),
    "math.absi": _absi,
}
