"""arith and math ops on NumPy values, with the IR's integer and float semantics."""

from __future__ import annotations

import math as _pymath
from fractions import Fraction

import numpy as np
from mlir import ir

from tilec.dialects import tile
from tilec.errors import InterpreterError

from .memory import UNSIGNED_OF_WIDTH, as_array, as_unsigned, bit_width, cast_to, np_dtype, widened
from .translator import HANDLERS, handles, simple_handler


@handles("arith.constant")
def _constant(tr, op):
    out = tr.slot(op.results[0])
    attr = op.attributes["value"]
    t = op.results[0].type
    dtype = np_dtype(t)
    if isinstance(attr, ir.DenseElementsAttr):
        shape = tile.shape_of(t)
        if attr.is_splat:
            value = np.full(shape, _scalar_attr(attr.get_splat_value(), dtype), dtype=dtype)
        else:
            value = np.array([_scalar_attr(attr[i], dtype) for i in range(len(attr))], dtype=dtype).reshape(
                shape
            )
    else:
        value = np.asarray(_scalar_attr(attr, dtype), dtype=dtype)

    def step(env, state):
        env[out] = value

    return step


def _scalar_attr(attr, dtype):
    if isinstance(attr, ir.BoolAttr):
        return bool(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        v = attr.value
        if dtype == np.bool_:
            return bool(v & 1)
        bits = dtype.itemsize * 8
        v &= (1 << bits) - 1
        return (
            np.array(v, dtype=np.uint64).astype(UNSIGNED_OF_WIDTH[bits]).view(dtype)
            if v >= 1 << (bits - 1)
            else v
        )
    if isinstance(attr, ir.FloatAttr):
        return attr.value
    raise InterpreterError(f"unsupported constant {attr}")


def _int_binop(signed_fn, unsigned_fn=None):
    def make(op):
        return signed_fn

    return make


def _ieee_maximum(a, b):
    """IEEE 754-2019 maximum (arith.maximumf): NaN propagates and +0 is above -0 (np.maximum gave
    -0 for max(-0, +0)); the sum of two zeros is +0 unless both are -0."""
    r = np.maximum(a, b)
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, a + b, r) if np.any(both_zero) else r


def _ieee_minimum(a, b):
    """IEEE 754-2019 minimum (arith.minimumf): -0 is below +0."""
    r = np.minimum(a, b)
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, -(-a - b), r) if np.any(both_zero) else r


def _modulo_two(integer_op, bool_op):
    """An i1 add, sub or mul wraps modulo 2 as the compiled targets' do (True + True is False),
    where NumPy's boolean + and - are `or` and xor."""

    def apply(a, b):
        if np.asarray(a).dtype == np.bool_:
            return bool_op(a, b)
        return integer_op(a, b)

    return apply


_simple_ops = {
    "arith.addi": lambda op: _modulo_two(np.add, np.logical_xor),
    "arith.subi": lambda op: _modulo_two(np.subtract, np.logical_xor),
    "arith.muli": lambda op: _modulo_two(np.multiply, np.logical_and),
    "arith.addf": lambda op: np.add,
    "arith.subf": lambda op: np.subtract,
    "arith.mulf": lambda op: np.multiply,
    "arith.divf": lambda op: np.divide,
    "arith.remf": lambda op: np.fmod,
    "arith.negf": lambda op: np.negative,
    "arith.andi": lambda op: np.bitwise_and,
    "arith.ori": lambda op: np.bitwise_or,
    "arith.xori": lambda op: np.bitwise_xor,
    "arith.maxsi": lambda op: np.maximum,
    "arith.minsi": lambda op: np.minimum,
    "arith.maxui": lambda op: lambda a, b: np.maximum(as_unsigned(a), as_unsigned(b)).view(a.dtype),
    "arith.minui": lambda op: lambda a, b: np.minimum(as_unsigned(a), as_unsigned(b)).view(a.dtype),
    "arith.maximumf": lambda op: _ieee_maximum,
    "arith.minimumf": lambda op: _ieee_minimum,
    "arith.maxnumf": lambda op: np.fmax,
    "arith.minnumf": lambda op: np.fmin,
    "arith.select": lambda op: np.where,
    "math.absf": lambda op: np.abs,
    "math.absi": lambda op: np.abs,
    "math.exp": lambda op: np.exp,
    "math.exp2": lambda op: np.exp2,
    "math.log": lambda op: np.log,
    "math.log2": lambda op: np.log2,
    "math.sqrt": lambda op: np.sqrt,
    "math.rsqrt": lambda op: lambda x: 1 / np.sqrt(x),
    "math.sin": lambda op: np.sin,
    "math.cos": lambda op: np.cos,
    "math.tanh": lambda op: np.tanh,
    "math.floor": lambda op: np.floor,
    "math.ceil": lambda op: np.ceil,
    "math.erf": lambda op: _erf,
    "math.fma": lambda op: _fma,
    "math.powf": lambda op: np.power,
    "math.trunc": lambda op: np.trunc,
    "math.roundeven": lambda op: np.rint,
    "math.round": lambda op: _round_half_away,
    "math.copysign": lambda op: np.copysign,
}


def _fma(a, b, c):
    """a * b + c rounded once. Narrower floats: the float64 product is exact, and the float64 sum is
    rounded to odd (the nearest sum, moved to its odd neighbour where it is inexact and even), so
    that rounding it to the narrower type gives the correctly rounded result, not a double rounding
    (53 bits hold 24 + 2). float64: exactly, through rationals (NumPy has no fused multiply-add),
    one element at a time."""
    if np.result_type(a, b, c) != np.float64:
        product = np.asarray(a, np.float64) * np.asarray(b, np.float64)
        addend = np.asarray(c, np.float64)
        with np.errstate(all="ignore"):
            total = product + addend
            addend_part = total - product  # Knuth's two-sum: the sum's exact rounding error
            error = (product - (total - addend_part)) + (addend - addend_part)
        inexact_even = (error != 0) & np.isfinite(total) & ((total.view(np.int64) & 1) == 0)
        return np.where(inexact_even, np.nextafter(total, np.where(error > 0, np.inf, -np.inf)), total)
    return _fma64(a, b, c).astype(np.float64)


def _fma_one(a: float, b: float, c: float) -> float:
    if not all(_pymath.isfinite(v) for v in (a, b, c)):
        if _pymath.isfinite(a) and _pymath.isfinite(b) and not _pymath.isnan(c):
            return c  # the exact product is finite, even where a * b would overflow
        return a * b + c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    try:
        value = float(exact)
    except OverflowError:
        return _pymath.copysign(_pymath.inf, 1.0 if exact > 0 else -1.0)
    return value if value != 0 or exact != 0 else a * b + c  # the sign of an exact zero, as IEEE's


_fma64 = np.frompyfunc(_fma_one, 3, 1)


def _round_half_away(x):
    x = as_array(x)
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype)


def _erf(x):
    x = as_array(x)
    return np.vectorize(_pymath.erf, otypes=[np.float64])(x.astype(np.float64))


for _name, _make in _simple_ops.items():
    HANDLERS[_name] = simple_handler(_make)


def _divsi(a, b):
    b = np.where(b == 0, 1, b)  # division by zero is undefined; keep NumPy from raising
    r = np.fmod(a, b)
    return (a - r) // b


@handles(
    "arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.shli", "arith.shrsi", "arith.shrui"
)
def _int_div_shift(tr, op):
    a_i, b_i = (tr.slot(v) for v in op.operands)
    out = tr.slot(op.results[0])
    bits = bit_width(op.results[0].type)
    dtype = np_dtype(op.results[0].type)
    name = op.name

    def compute(a, b):
        if name == "arith.divsi":
            return _divsi(a, b)
        if name == "arith.remsi":
            return np.fmod(a, np.where(b == 0, 1, b))
        if name == "arith.divui":
            ub = as_unsigned(b)
            return (as_unsigned(a) // np.where(ub == 0, 1, ub)).view(dtype)
        if name == "arith.remui":
            ub = as_unsigned(b)
            return (as_unsigned(a) % np.where(ub == 0, 1, ub)).view(dtype)
        shift = as_unsigned(b).astype(np.uint64)
        big = shift >= bits  # LLVM calls this poison; hardware gives 0 (or the sign) for it
        shift = np.where(big, 0, shift)
        if name == "arith.shli":
            r = np.left_shift(as_unsigned(a), shift.astype(as_unsigned(a).dtype)).view(dtype)
            return np.where(big, 0, r)
        if name == "arith.shrui":
            r = np.right_shift(as_unsigned(a), shift.astype(as_unsigned(a).dtype)).view(dtype)
            return np.where(big, 0, r)
        r = np.right_shift(a, shift.astype(a.dtype))
        return np.where(big, np.where(a < 0, -1, 0), r)

    def step(env, state):
        a, b = as_array(env[a_i]), as_array(env[b_i])
        env[out] = as_array(compute(a, b)).astype(dtype, copy=False)

    return step


_IPRED = {
    0: ("eq", False),
    1: ("ne", False),
    2: ("lt", False),
    3: ("le", False),
    4: ("gt", False),
    5: ("ge", False),
    6: ("lt", True),
    7: ("le", True),
    8: ("gt", True),
    9: ("ge", True),
}


_CMP = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


@handles("arith.cmpi")
def _cmpi(tr, op):
    a_i, b_i = (tr.slot(v) for v in op.operands)
    out = tr.slot(op.results[0])
    pred, unsigned = _IPRED[ir.IntegerAttr(op.attributes["predicate"]).value]
    fn = _CMP[pred]

    def step(env, state):
        a, b = as_array(env[a_i]), as_array(env[b_i])
        if unsigned:
            a, b = as_unsigned(a), as_unsigned(b)
        env[out] = as_array(fn(a, b))

    return step


# CmpFPredicate: false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno, true
_FPRED = [
    "false",
    "eq",
    "gt",
    "ge",
    "lt",
    "le",
    "ne",
    "ord",
    "eq",
    "gt",
    "ge",
    "lt",
    "le",
    "ne",
    "uno",
    "true",
]


@handles("arith.cmpf")
def _cmpf(tr, op):
    a_i, b_i = (tr.slot(v) for v in op.operands)
    out = tr.slot(op.results[0])
    code = ir.IntegerAttr(op.attributes["predicate"]).value
    name = _FPRED[code]
    unordered = 8 <= code <= 14

    def step(env, state):
        a, b = widened(as_array(env[a_i])), widened(as_array(env[b_i]))
        nan = np.isnan(a) | np.isnan(b)
        if name == "false":
            r = np.zeros(np.broadcast(a, b).shape, bool)
        elif name == "true":
            r = np.ones(np.broadcast(a, b).shape, bool)
        elif name == "ord":
            r = ~nan
        elif name == "uno":
            r = nan
        else:
            r = _CMP[name](a, b)
            r = (r | nan) if unordered else (r & ~nan)
        env[out] = as_array(r)

    return step


def _saturating_to_int(x, dst, dst_bits: int, signed: bool, from_f64: bool = False):
    """A float -> integer conversion as NVIDIA's cvt.rzi (and the CPU target's
    tile-cpu-saturating-conversions): truncated toward zero, clamped to the range of the result (16
    bits for 8-bit results, then wrapped); NaN gives 0, except from float64 or into 64 bits, where
    it gives the pattern 1 << (bits - 1) (what an H200 answered)."""
    bits = max(dst_bits, 16)
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    v = np.asarray(x, np.float64)
    nan = np.isnan(v)
    with np.errstate(invalid="ignore"):
        truncated = np.trunc(np.where(nan, 0.0, v))
        # clamp in Python integers' terms: 2^63 - 1 and 2^64 - 1 are not float64 values
        wide = np.where(truncated >= float(high) + 1, np.nan, truncated)
        wide = np.where(truncated < float(low), np.nan, wide)
        as_int = np.where(np.isnan(wide), 0, wide).astype(np.int64 if signed else np.uint64)
    as_int = np.where(truncated >= float(high) + 1, np.array(high).astype(as_int.dtype), as_int)
    as_int = np.where(truncated < float(low), np.array(low).astype(as_int.dtype), as_int)
    if from_f64 or bits == 64:
        pattern = np.array(-(2 ** (bits - 1)) if signed else 2 ** (bits - 1)).astype(as_int.dtype)
        as_int = np.where(nan, pattern, as_int)
    bits_t = np.dtype(f"{'i' if signed else 'u'}{max(dst_bits, 8) // 8}")
    return as_int.astype(bits_t).view(dst) if as_int.ndim else np.asarray(as_int).astype(bits_t).view(dst)


@handles(
    "arith.extsi",
    "arith.extui",
    "arith.trunci",
    "arith.sitofp",
    "arith.uitofp",
    "arith.fptosi",
    "arith.fptoui",
    "arith.extf",
    "arith.truncf",
    "arith.bitcast",
    "arith.index_cast",
)
def _cast(tr, op):
    src_i = tr.slot(op.operands[0])
    out = tr.slot(op.results[0])
    dst = np_dtype(op.results[0].type)
    src_t = str(tile.element_of(op.operands[0].type))
    dst_bits = bit_width(op.results[0].type)
    name = op.name

    def compute(x):
        if name == "arith.extsi" and src_t == "i1":
            return -x.astype(dst)
        if name in ("arith.extui", "arith.uitofp"):
            return as_unsigned(x).astype(dst)
        if name == "arith.trunci":
            if dst == np.bool_:
                return (x & 1).astype(np.bool_)
            return as_unsigned(x).astype(UNSIGNED_OF_WIDTH[dst_bits]).view(dst)
        if name in ("arith.fptoui", "arith.fptosi") and dst_bits > 1:
            return _saturating_to_int(
                x, dst, dst_bits, signed=name == "arith.fptosi", from_f64=src_t == "f64"
            )
        if name == "arith.fptoui":
            return x.astype(np.float64).astype(np.bool_).view(dst)
        if name == "arith.bitcast":
            return x.view(dst) if x.ndim else np.asarray(x).reshape(1).view(dst).reshape(())
        if name == "arith.fptosi":
            return x.astype(np.float64).astype(dst)
        return cast_to(x, dst)

    def step(env, state):
        env[out] = as_array(compute(as_array(env[src_i])))

    return step
