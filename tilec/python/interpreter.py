"""The reference interpreter: executes tile IR with NumPy, one program instance at a time.

The IR is translated once into nested Python closures (one per op) over a value table; then the
closures run for every program id of the grid. Pointers are real host addresses, so kernels read and
write the caller's arrays in place; every access is checked against the arrays passed to the kernel,
and an out-of-bounds access is an error naming the user's source line, never a crash.
"""

from __future__ import annotations

import math as _pymath
import sys
from fractions import Fraction

import numpy as np
from mlir import ir

from tilec import diagnostics
from tilec.dialects import tile
from tilec.language import core

from . import arrays
from .errors import InterpreterError

# ----------------------------------------------------------------------------------------------
# Types
# ----------------------------------------------------------------------------------------------

_NP = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "f16": np.dtype(np.float16),
    "bf16": core.bfloat16.to_numpy(),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f8E4M3FN": core.float8e4nv.to_numpy(),
    "f8E5M2": core.float8e5.to_numpy(),
    "f8E4M3FNUZ": core.float8e4b8.to_numpy(),
    "f8E5M2FNUZ": core.float8e5b16.to_numpy(),
}
_FP8 = {_NP[name] for name in ("f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ")}
_UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64, 1: np.bool_}


def np_dtype(t: ir.Type) -> np.dtype:
    e = str(tile.element_of(t))
    if e.startswith("!tile.ptr"):
        return np.dtype(np.int64)
    if e not in _NP:
        raise InterpreterError(f"the interpreter does not support element type {e}")
    return _NP[e]


def _bits(t: ir.Type) -> int:
    return np_dtype(t).itemsize * 8 if str(tile.element_of(t)) != "i1" else 1


def _unsigned(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.bool_:
        return a
    return a.view(_UNSIGNED[a.dtype.itemsize * 8])


def _arr(v) -> np.ndarray:
    return v if isinstance(v, np.ndarray) else np.asarray(v)


def _as(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """x in `dtype`; to fp8 as the compiled code rounds: to nearest even, saturating at the largest
    finite value (NaN stays NaN), like NVIDIA's cvt.rn.satfinite."""
    if dtype not in _FP8:
        return x.astype(dtype, copy=False)
    import ml_dtypes

    top = float(ml_dtypes.finfo(dtype).max)
    return np.clip(x.astype(np.float32), -top, top).astype(dtype)


def _wide(x: np.ndarray) -> np.ndarray:
    """fp8 values as fp32 (fp8 arithmetic is computed in fp32 and rounded back), others as they are."""
    return x.astype(np.float32) if x.dtype in _FP8 else x


# ----------------------------------------------------------------------------------------------
# Memory
# ----------------------------------------------------------------------------------------------


def _process_mappings() -> list[tuple[int, int, bool, bool]]:
    """(start, end, readable, writable) of every memory mapping of this process, from Linux's
    /proc/self/maps ([] where there is none)."""
    try:
        with open("/proc/self/maps") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        span, perms = line.split()[:2]
        lo, hi = (int(x, 16) for x in span.split("-"))
        found.append((lo, hi, perms[0] == "r", perms[1] == "w"))
    return found


class Memory:
    """The host buffers a launch may touch, as byte views at their real addresses: the arrays passed
    to the kernel and, once the kernel makes pointers from integers (a table of addresses, as
    Triton's grouped GEMM reads), the process's memory mappings those addresses fall in (`adopt`)."""

    def __init__(self):
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.views: list[np.ndarray] = []
        # mappings adopted for pointers made from integers: (start, end, byte view, writable)
        self.mappings: list[tuple[int, int, np.ndarray, bool]] = []

    def add(self, array: np.ndarray) -> int:
        """Registers the memory an array spans (strides included); returns its data address."""
        address = array.__array_interface__["data"][0]
        if array.size == 0:
            return address
        start, end = arrays.byte_span(array)
        base = array
        while isinstance(base.base, np.ndarray):
            base = base.base
        raw = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint8 * (end - start)).from_address(start))
        order = np.searchsorted(self.starts, start)
        self.starts.insert(order, start)
        self.ends.insert(order, end)
        self.views.insert(order, raw)
        return address

    def adopt(self, addresses: np.ndarray) -> None:
        """Makes the memory mappings of this process that hold `addresses` (pointers a kernel made
        from integers) readable by the launch, and writable where the mapping is. Addresses in no
        readable mapping (0, garbage) stay unknown: an access through them fails with an error, not
        a crash. Linux only (/proc/self/maps); elsewhere such pointers must point into arrays passed
        to the kernel."""
        for address in np.unique(np.asarray(addresses, dtype=np.int64)):
            address = int(address)
            if any(lo <= address < hi for lo, hi, _, _ in self.mappings):
                continue
            for lo, hi, readable, writable in _process_mappings():
                if lo <= address < hi and readable:
                    raw = (np.ctypeslib.ctypes.c_uint8 * (hi - lo)).from_address(lo)
                    self.mappings.append((lo, hi, np.ctypeslib.as_array(raw), writable))
                    break

    def _locate(self, addresses: np.ndarray, size: int, what: str):
        """Per address, the region it lies in: an index into `views`, or len(views) + j for mapping j."""
        starts = np.asarray(self.starts, dtype=np.int64)
        ends = np.asarray(self.ends, dtype=np.int64)
        which = np.searchsorted(starts, addresses, side="right") - 1
        ok = (
            (which >= 0) & (addresses + size <= ends[np.maximum(which, 0)])
            if len(starts)
            else np.zeros_like(addresses, bool)
        )
        for j, (lo, hi, _, writable) in enumerate(self.mappings):
            inside = ~ok & (addresses >= lo) & (addresses + size <= hi)
            if inside.any() and what == "store" and not writable:
                bad = int(addresses[inside].flat[0])
                raise InterpreterError(
                    f"store of {size} byte(s) at address {bad:#x}: the memory is read-only"
                )
            which = np.where(inside, len(self.views) + j, which)
            ok = ok | inside
        if not np.all(ok):
            bad = int(addresses[~ok].flat[0])
            raise InterpreterError(
                f"out-of-bounds {what} of {size} byte(s) at address {bad:#x}: not inside any array passed "
                "to the kernel (is a mask missing? pointers made from integers must point into memory "
                "this process holds)"
            )
        return which

    def _region(self, index: int) -> tuple[int, np.ndarray]:
        """(start address, byte view) of region `index` as _locate numbers them."""
        if index < len(self.views):
            return self.starts[index], self.views[index]
        lo, _, view, _ = self.mappings[index - len(self.views)]
        return lo, view

    def read(self, addresses: np.ndarray, dtype: np.dtype) -> np.ndarray:
        addresses = addresses.astype(np.int64, copy=False)
        out = np.empty(addresses.shape, dtype=dtype)
        if addresses.size == 0:
            return out
        which = self._locate(addresses, dtype.itemsize, "load")
        flat_a, flat_w, flat_o = addresses.ravel(), which.ravel(), out.reshape(-1)
        offsets = np.arange(dtype.itemsize)
        for b in np.unique(flat_w):
            sel = flat_w == b
            start, view = self._region(int(b))
            rel = flat_a[sel] - start
            raw = view[rel[:, None] + offsets]
            flat_o[sel] = np.ascontiguousarray(raw).view(dtype).reshape(-1)
        return out

    def write(self, addresses: np.ndarray, values: np.ndarray) -> None:
        addresses = addresses.astype(np.int64, copy=False).ravel()
        if addresses.size == 0:
            return
        values = np.ascontiguousarray(values).reshape(-1)
        size = values.dtype.itemsize
        which = self._locate(addresses, size, "store")
        offsets = np.arange(size)
        raw_values = values.view(np.uint8).reshape(-1, size)
        for b in np.unique(which):
            sel = which == b
            start, view = self._region(int(b))
            rel = addresses[sel] - start
            view[rel[:, None] + offsets] = raw_values[sel]


# ----------------------------------------------------------------------------------------------
# Translation of ops to closures
# ----------------------------------------------------------------------------------------------


class _State:
    def __init__(self, memory: Memory, grid):
        self.memory = memory
        self.grid = grid
        self.pid = (0, 0, 0)


class _Fail(Exception):
    def __init__(self, op, message):
        self.op, self.message = op, message


def _where(op) -> str:
    file, line, col = diagnostics.file_location(op.location)
    return f"{file}:{line}:{col}" if file else op.name


class Translator:
    def __init__(self):
        self.slots: dict = {}

    def slot(self, value: ir.Value) -> int:
        idx = self.slots.get(value)
        if idx is None:
            idx = len(self.slots)
            self.slots[value] = idx
        return idx

    def block(self, block: ir.Block):
        """A closure running the block's ops; returns the operands of its terminator."""
        steps = []
        terminator = None
        for op in block.operations:
            op = op.operation
            if op.name in ("scf.yield", "gpu.yield", "scf.condition", "func.return"):
                terminator = [self.slot(v) for v in op.operands]
                continue
            steps.append(self.op(op))
        results = terminator or []

        def run(env, state):
            for step in steps:
                step(env, state)
            return [env[i] for i in results]

        return run

    def op(self, op: ir.Operation):
        handler = _HANDLERS.get(op.name)
        if op.name == "tile.inline_asm":
            raise InterpreterError(
                f"{_where(op)}: tl.inline_asm_elementwise runs GPU assembly, which the interpreter "
                "cannot run (as in Triton's interpreter): run the kernel on an NVIDIA GPU"
            )
        if handler is None:
            raise InterpreterError(f"{_where(op)}: the interpreter does not support '{op.name}'")
        step = handler(self, op)
        # Where the op is, worked out now: the closures outlive the module (it is not kept: one per
        # compiled kernel would pile up), so a run-time error must not read the op.
        where, name = _where(op), op.name

        def guarded(env, state, step=step):
            try:
                step(env, state)
            except InterpreterError as e:
                if getattr(e, "located", False):
                    raise
                err = InterpreterError(f"{where}: {e} (program {state.pid})")
                err.located = True
                raise err from None
            except (ValueError, TypeError, IndexError, OverflowError) as e:
                err = InterpreterError(f"{where}: interpreter failure in '{name}': {e} (program {state.pid})")
                err.located = True
                raise err from None

        return guarded


_HANDLERS: dict = {}


def handles(*names):
    def register(fn):
        for n in names:
            _HANDLERS[n] = fn
        return fn

    return register


def _simple(fn_of_operands):
    """Handler factory: result = fn(op)(*operand values)."""

    def handler(tr: Translator, op):
        ins = [tr.slot(v) for v in op.operands]
        out = tr.slot(op.results[0])
        compute = fn_of_operands(op)
        dtype = np_dtype(op.results[0].type)

        def step(env, state):
            env[out] = _as(_arr(compute(*[_wide(_arr(env[i])) for i in ins])), dtype)

        return step

    return handler


# -- arith ------------------------------------------------------------------------------------


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
        return np.array(v, dtype=np.uint64).astype(_UNSIGNED[bits]).view(dtype) if v >= 1 << (bits - 1) else v
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
    "arith.maxui": lambda op: lambda a, b: np.maximum(_unsigned(a), _unsigned(b)).view(a.dtype),
    "arith.minui": lambda op: lambda a, b: np.minimum(_unsigned(a), _unsigned(b)).view(a.dtype),
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
    x = _arr(x)
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype)


def _erf(x):
    x = _arr(x)
    return np.vectorize(_pymath.erf, otypes=[np.float64])(x.astype(np.float64))


for _name, _make in _simple_ops.items():
    _HANDLERS[_name] = _simple(_make)


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
    bits = _bits(op.results[0].type)
    dtype = np_dtype(op.results[0].type)
    name = op.name

    def compute(a, b):
        if name == "arith.divsi":
            return _divsi(a, b)
        if name == "arith.remsi":
            return np.fmod(a, np.where(b == 0, 1, b))
        if name == "arith.divui":
            ub = _unsigned(b)
            return (_unsigned(a) // np.where(ub == 0, 1, ub)).view(dtype)
        if name == "arith.remui":
            ub = _unsigned(b)
            return (_unsigned(a) % np.where(ub == 0, 1, ub)).view(dtype)
        shift = _unsigned(b).astype(np.uint64)
        big = shift >= bits  # LLVM calls this poison; hardware gives 0 (or the sign) for it
        shift = np.where(big, 0, shift)
        if name == "arith.shli":
            r = np.left_shift(_unsigned(a), shift.astype(_unsigned(a).dtype)).view(dtype)
            return np.where(big, 0, r)
        if name == "arith.shrui":
            r = np.right_shift(_unsigned(a), shift.astype(_unsigned(a).dtype)).view(dtype)
            return np.where(big, 0, r)
        r = np.right_shift(a, shift.astype(a.dtype))
        return np.where(big, np.where(a < 0, -1, 0), r)

    def step(env, state):
        a, b = _arr(env[a_i]), _arr(env[b_i])
        env[out] = _arr(compute(a, b)).astype(dtype, copy=False)

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
        a, b = _arr(env[a_i]), _arr(env[b_i])
        if unsigned:
            a, b = _unsigned(a), _unsigned(b)
        env[out] = _arr(fn(a, b))

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
        a, b = _wide(_arr(env[a_i])), _wide(_arr(env[b_i]))
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
        env[out] = _arr(r)

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
    dst_bits = _bits(op.results[0].type)
    name = op.name

    def compute(x):
        if name == "arith.extsi" and src_t == "i1":
            return -x.astype(dst)
        if name in ("arith.extui", "arith.uitofp"):
            return _unsigned(x).astype(dst)
        if name == "arith.trunci":
            if dst == np.bool_:
                return (x & 1).astype(np.bool_)
            return _unsigned(x).astype(_UNSIGNED[dst_bits]).view(dst)
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
        return _as(x, dst)

    def step(env, state):
        env[out] = _arr(compute(_arr(env[src_i])))

    return step


# -- scf --------------------------------------------------------------------------------------


@handles("scf.if")
def _if(tr, op):
    cond_i = tr.slot(op.operands[0])
    then_run = tr.block(op.regions[0].blocks[0])
    else_run = tr.block(op.regions[1].blocks[0]) if len(op.regions[1].blocks) else None
    outs = [tr.slot(r) for r in op.results]

    def step(env, state):
        if bool(env[cond_i]):
            values = then_run(env, state)
        elif else_run is not None:
            values = else_run(env, state)
        else:
            values = []
        for o, v in zip(outs, values):
            env[o] = v

    return step


@handles("scf.for")
def _for(tr, op):
    lb_i, ub_i, step_i = (tr.slot(v) for v in list(op.operands)[:3])
    init_is = [tr.slot(v) for v in list(op.operands)[3:]]
    body = op.regions[0].blocks[0]
    iv_i = tr.slot(body.arguments[0])
    arg_is = [tr.slot(a) for a in list(body.arguments)[1:]]
    run_body = tr.block(body)
    outs = [tr.slot(r) for r in op.results]
    iv_dtype = np_dtype(body.arguments[0].type)

    def step(env, state):
        values = [env[i] for i in init_is]
        for i in range(int(env[lb_i]), int(env[ub_i]), int(env[step_i])):
            env[iv_i] = np.asarray(i, dtype=iv_dtype)
            for a, v in zip(arg_is, values):
                env[a] = v
            values = run_body(env, state)
        for o, v in zip(outs, values):
            env[o] = v

    return step


@handles("scf.while")
def _while(tr, op):
    init_is = [tr.slot(v) for v in op.operands]
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    before_args = [tr.slot(a) for a in before.arguments]
    after_args = [tr.slot(a) for a in after.arguments]
    run_before, run_after = tr.block(before), tr.block(after)
    outs = [tr.slot(r) for r in op.results]

    def step(env, state):
        values = [env[i] for i in init_is]
        while True:
            for a, v in zip(before_args, values):
                env[a] = v
            cond, *forwarded = run_before(env, state)
            if not bool(cond):
                break
            for a, v in zip(after_args, forwarded):
                env[a] = v
            values = run_after(env, state)
        for o, v in zip(outs, forwarded):
            env[o] = v

    return step


@handles("scf.execute_region")
def _execute_region(tr, op):
    run = tr.block(op.regions[0].blocks[0])
    outs = [tr.slot(r) for r in op.results]

    def step(env, state):
        for o, v in zip(outs, run(env, state)):
            env[o] = v

    return step


# -- tile -------------------------------------------------------------------------------------


@handles("tile.program_id", "tile.num_programs")
def _program_id(tr, op):
    out = tr.slot(op.results[0])
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    source = "pid" if op.name == "tile.program_id" else "grid"

    def step(env, state):
        env[out] = np.asarray(getattr(state, source)[axis], dtype=np.int32)

    return step


@handles("tile.make_range")
def _make_range(tr, op):
    out = tr.slot(op.results[0])
    value = np.arange(
        ir.IntegerAttr(op.attributes["start"]).value,
        ir.IntegerAttr(op.attributes["end"]).value,
        dtype=np.int32,
    )

    def step(env, state):
        env[out] = value

    return step


def _shape_handler(make):
    def handler(tr, op):
        src = tr.slot(op.operands[0])
        out = tr.slot(op.results[0])
        shape = tuple(tile.shape_of(op.results[0].type))
        fn = make(op, shape)

        def step(env, state):
            env[out] = fn(_arr(env[src]))

        return step

    return handler


_HANDLERS["tile.splat"] = _shape_handler(lambda op, shape: lambda x: np.full(shape, x, dtype=x.dtype))
_HANDLERS["tile.broadcast"] = _shape_handler(lambda op, shape: lambda x: np.broadcast_to(x, shape))
_HANDLERS["tile.expand_dims"] = _shape_handler(lambda op, shape: lambda x: x.reshape(shape))
_HANDLERS["tile.reshape"] = _shape_handler(lambda op, shape: lambda x: x.reshape(shape))
_HANDLERS["tile.convert_layout"] = _shape_handler(lambda op, shape: lambda x: x)


@handles("tile.gather")
def _gather(tr, op):
    src, index, out = tr.slot(op.operands[0]), tr.slot(op.operands[1]), tr.slot(op.results[0])
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    size = tile.shape_of(op.operands[0].type)[axis]

    def step(env, state):
        x, i = _arr(env[src]), _arr(env[index]).astype(np.int64)
        inside = (i >= 0) & (i < size)
        picked = np.take_along_axis(x, np.where(inside, i, 0), axis)
        env[out] = np.where(inside, picked, np.zeros((), x.dtype))

    return step


@handles("tile.histogram")
def _histogram(tr, op):
    seg = _segments(op)
    src, out = tr.slot(seg["src"][0]), tr.slot(op.results[0])
    mask = tr.slot(seg["mask"][0]) if seg.get("mask") else None
    bins = ir.IntegerAttr(op.attributes["num_bins"]).value

    def step(env, state):
        x = _arr(env[src]).astype(np.int64)
        keep = (x >= 0) & (x < bins)
        if mask is not None:
            keep &= _arr(env[mask]).astype(bool)
        env[out] = np.bincount(x[keep], minlength=bins).astype(np.int32)

    return step


@handles("tile.sort")
def _sort(tr, op):
    """The bitonic network's compare-and-swap steps on whole arrays (the CPU target's loop, the GPUs'
    unrolled network): the same swaps, so the same placement of -0.0 / 0.0 and of NaN payloads."""
    src, out = tr.slot(op.operands[0]), tr.slot(op.results[0])
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    descending = "descending" in op.attributes
    unsigned = "unsigned" in op.attributes
    n = tile.shape_of(op.operands[0].type)[axis]
    bits = n.bit_length() - 1
    first_stage = bits if "merge" in op.attributes else 1
    i = np.arange(n)

    def greater(a, b):  # NaN after every number
        if a.dtype.kind in "iub":
            return a > b
        with np.errstate(invalid="ignore"):
            return (a > b) | (np.isnan(a) & ~np.isnan(b))

    def step(env, state):
        x = np.moveaxis(_arr(env[src]), axis, -1)
        keys = _unsigned(x) if unsigned else x
        for stage in range(first_stage, bits + 1):
            falling = (((i >> stage) & 1) == 1) & (stage < bits)
            falling ^= descending
            for bit in range(stage - 1, -1, -1):
                partner = i ^ (1 << bit)
                first = (i & (1 << bit)) == 0
                theirs = keys[..., partner]
                low, high = np.where(first, keys, theirs), np.where(first, theirs, keys)
                out_of_order = np.where(falling, greater(high, low), greater(low, high))
                keys = np.where(out_of_order, theirs, keys)
        result = keys.view(x.dtype) if unsigned else keys
        env[out] = np.ascontiguousarray(np.moveaxis(result, -1, axis))

    return step


@handles("tile.ptr_cast")
def _ptr_cast(tr, op):
    """Pointers are int64 addresses: a cast between pointer types or to or from int64 keeps the
    value. Pointers made from integers make their memory known to the launch (Memory.adopt)."""
    src, out = tr.slot(op.operands[0]), tr.slot(op.results[0])
    from_integers = not tile.is_ptr(tile.element_of(op.operands[0].type))

    def step(env, state):
        addresses = _arr(env[src]).astype(np.int64)
        if from_integers:
            state.memory.adopt(addresses)
        env[out] = addresses

    return step


_HANDLERS["tile.trans"] = _shape_handler(
    lambda op, shape: (lambda order: lambda x: np.transpose(x, order))(
        list(ir.DenseI32ArrayAttr(op.attributes["order"]))
    )
)


@handles("tile.addptr")
def _addptr(tr, op):
    p_i, o_i = (tr.slot(v) for v in op.operands)
    out = tr.slot(op.results[0])
    size = np.dtype(np_dtype(tile.pointee_type(tile.element_of(op.operands[0].type)))).itemsize

    def step(env, state):
        env[out] = _arr(env[p_i]).astype(np.int64) + _arr(env[o_i]).astype(np.int64) * size

    return step


def _segments(op):
    return {k: [v for v in vals] for k, vals in tile._segments(op, tile.SPECS[op.name[5:]]).items()}


@handles("tile.load")
def _load(tr, op):
    seg = _segments(op)
    p_i = tr.slot(seg["ptr"][0])
    m_i = tr.slot(seg["mask"][0]) if seg["mask"] else None
    o_i = tr.slot(seg["other"][0]) if seg["other"] else None
    out = tr.slot(op.results[0])
    dtype = np_dtype(op.results[0].type)

    def step(env, state):
        ptrs = _arr(env[p_i])
        if m_i is None:
            env[out] = state.memory.read(ptrs, dtype)
            return
        mask = np.broadcast_to(_arr(env[m_i]), ptrs.shape)
        result = np.zeros(ptrs.shape, dtype=dtype)
        if o_i is not None:
            result[...] = env[o_i]
        if mask.any():
            result[mask] = state.memory.read(ptrs[mask], dtype)
        env[out] = result

    return step


@handles("tile.store")
def _store(tr, op):
    seg = _segments(op)
    p_i, v_i = tr.slot(seg["ptr"][0]), tr.slot(seg["value"][0])
    m_i = tr.slot(seg["mask"][0]) if seg["mask"] else None

    def step(env, state):
        ptrs, values = _arr(env[p_i]), _arr(env[v_i])
        if m_i is not None:
            mask = np.broadcast_to(_arr(env[m_i]), ptrs.shape)
            ptrs, values = ptrs[mask], np.broadcast_to(values, mask.shape)[mask]
        state.memory.write(ptrs, np.broadcast_to(values, ptrs.shape))

    return step


def _combiner(tr, op):
    block = op.regions[0].blocks[0]
    args = [tr.slot(a) for a in block.arguments]
    run = tr.block(block)
    n = len(args) // 2

    def combine(env, state, lhs, rhs):
        for a, v in zip(args, [*lhs, *rhs]):
            env[a] = v
        return [_arr(v) for v in run(env, state)]

    return combine, n


@handles("tile.map")
def _map(tr, op):
    """The body on whole arrays when it is straight-line code (elementwise NumPy), else element by
    element (its branches and loops decide per element)."""
    block = op.regions[0].blocks[0]
    args = [tr.slot(a) for a in block.arguments]
    ins = [tr.slot(v) for v in op.operands]
    outs = [tr.slot(r) for r in op.results]
    dtypes = [np_dtype(tile.element_of(r.type)) for r in op.results]
    run = tr.block(block)
    straight = not any(len(inner.operation.regions) for inner in block.operations)

    def step(env, state):
        values = [_arr(env[i]) for i in ins]
        shape = values[0].shape
        if straight:
            for a, v in zip(args, values):
                env[a] = v
            results = [np.broadcast_to(_arr(r), shape).astype(d) for r, d in zip(run(env, state), dtypes)]
        else:
            results = [np.empty(shape, d) for d in dtypes]
            for index in np.ndindex(*shape):
                for a, v in zip(args, values):
                    env[a] = v[index]
                for r, value in zip(results, run(env, state)):
                    r[index] = _arr(value)
        for o, r in zip(outs, results):
            env[o] = r

    return step


@handles("tile.reduce")
def _reduce(tr, op):
    ins = [tr.slot(v) for v in op.operands]
    outs = [tr.slot(r) for r in op.results]
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    combine, _ = _combiner(tr, op)
    dtypes = [np_dtype(r.type) for r in op.results]

    def step(env, state):
        xs = [np.moveaxis(_arr(env[i]), axis, -1) for i in ins]
        while xs[0].shape[-1] > 1:
            n = xs[0].shape[-1]
            half = n // 2
            lhs = [x[..., :half] for x in xs]
            rhs = [x[..., half : 2 * half] for x in xs]
            merged = combine(env, state, lhs, rhs)
            merged = [np.broadcast_to(m, lhs[0].shape) for m in merged]
            if n % 2:
                merged = [np.concatenate([m, x[..., -1:]], axis=-1) for m, x in zip(merged, xs)]
            xs = merged
        for o, x, d in zip(outs, xs, dtypes):
            env[o] = np.array(x[..., 0], dtype=d)

    return step


@handles("tile.scan")
def _scan(tr, op):
    ins = [tr.slot(v) for v in op.operands]
    outs = [tr.slot(r) for r in op.results]
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    reverse = "reverse" in op.attributes
    combine, _ = _combiner(tr, op)

    def step(env, state):
        xs = [np.moveaxis(_arr(env[i]), axis, -1) for i in ins]
        n = xs[0].shape[-1]
        results = [np.empty_like(x) for x in xs]
        order = range(n - 1, -1, -1) if reverse else range(n)
        acc = None
        for k in order:
            cur = [x[..., k] for x in xs]
            acc = cur if acc is None else combine(env, state, acc, cur)
            acc = [np.broadcast_to(a, cur[0].shape) for a in acc]
            for r, a in zip(results, acc):
                r[..., k] = a
        for o, r in zip(outs, results):
            env[o] = np.moveaxis(r, -1, axis)

    return step


@handles("tile.dot")
def _dot(tr, op):
    a_i, b_i, c_i = (tr.slot(v) for v in op.operands)
    out = tr.slot(op.results[0])
    dtype = np_dtype(op.results[0].type)

    def step(env, state):
        a, b, c = _arr(env[a_i]), _arr(env[b_i]), _arr(env[c_i])
        if np.issubdtype(dtype, np.integer):
            prod = a.astype(np.int64) @ b.astype(np.int64)
        else:
            work = np.float64 if dtype == np.float64 else np.float32
            prod = a.astype(work) @ b.astype(work)
        env[out] = (prod + c.astype(prod.dtype)).astype(dtype)

    return step


_RMW = {
    "add": lambda old, v: old + v,
    "fadd": lambda old, v: old + v,
    "max": lambda old, v: np.maximum(old, v),
    "min": lambda old, v: np.minimum(old, v),
    "umax": lambda old, v: np.maximum(_unsigned(old), _unsigned(v)).view(old.dtype),
    "umin": lambda old, v: np.minimum(_unsigned(old), _unsigned(v)).view(old.dtype),
    "and": lambda old, v: old & v,
    "or": lambda old, v: old | v,
    "xor": lambda old, v: old ^ v,
    "xchg": lambda old, v: v,
}


@handles("tile.atomic_rmw")
def _atomic_rmw(tr, op):
    seg = _segments(op)
    p_i, v_i = tr.slot(seg["ptr"][0]), tr.slot(seg["value"][0])
    m_i = tr.slot(seg["mask"][0]) if seg["mask"] else None
    out = tr.slot(op.results[0])
    fn = _RMW[ir.StringAttr(op.attributes["kind"]).value]
    dtype = np_dtype(op.results[0].type)

    def step(env, state):
        ptrs = _arr(env[p_i])
        values = np.broadcast_to(_arr(env[v_i]), ptrs.shape)
        mask = np.broadcast_to(_arr(env[m_i]), ptrs.shape) if m_i is not None else np.ones(ptrs.shape, bool)
        old = np.zeros(ptrs.shape, dtype=dtype)
        flat_p, flat_v, flat_m, flat_o = (
            ptrs.reshape(-1),
            values.reshape(-1),
            mask.reshape(-1),
            old.reshape(-1),
        )
        for k in np.nonzero(flat_m)[0]:  # one element at a time: duplicates see each other's updates
            addr = flat_p[k : k + 1]
            current = state.memory.read(addr, dtype)
            flat_o[k] = current[0]
            state.memory.write(addr, _arr(fn(current, flat_v[k : k + 1])).astype(dtype))
        env[out] = old

    return step


@handles("tile.atomic_cas")
def _atomic_cas(tr, op):
    p_i, c_i, v_i = (tr.slot(v) for v in op.operands)
    out = tr.slot(op.results[0])
    dtype = np_dtype(op.results[0].type)

    def step(env, state):
        ptrs = _arr(env[p_i])
        cmp = np.broadcast_to(_arr(env[c_i]), ptrs.shape).reshape(-1)
        val = np.broadcast_to(_arr(env[v_i]), ptrs.shape).reshape(-1)
        old = np.zeros(ptrs.shape, dtype=dtype)
        flat_p, flat_o = ptrs.reshape(-1), old.reshape(-1)
        # compared as bits, as the GPUs' atom.cas and the CPU's cmpxchg do (-0.0 is not 0.0, a NaN
        # matches the same NaN)
        bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
        wanted = np.ascontiguousarray(cmp.astype(dtype)).view(bits)
        for k in range(flat_p.size):
            addr = flat_p[k : k + 1]
            current = state.memory.read(addr, dtype)
            flat_o[k] = current[0]
            if np.ascontiguousarray(current[:1]).view(bits)[0] == wanted[k]:
                state.memory.write(addr, val[k : k + 1].astype(dtype))
        env[out] = old

    return step


@handles("tile.print")
def _print(tr, op):
    arg = tr.slot(op.operands[0]) if len(op.operands) else None
    prefix = ir.StringAttr(op.attributes["prefix"]).value
    as_hex = "hex" in op.attributes and ir.BoolAttr(op.attributes["hex"]).value

    def step(env, state):
        if arg is None:
            print(f"pid ({state.pid[0]}, {state.pid[1]}, {state.pid[2]}) {prefix}")
            return
        value = _arr(env[arg])
        for idx in np.ndindex(value.shape or ()):
            v = value[idx]
            if as_hex and np.issubdtype(value.dtype, np.integer):
                text = hex(int(v))
            elif np.issubdtype(value.dtype, np.floating):
                text = repr(float(v))
            else:
                text = str(int(v))
            px, py, pz = state.pid
            print(f"pid ({px}, {py}, {pz}) idx {tuple(int(i) for i in idx)} {prefix}{text}")
        sys.stdout.flush()

    return step


@handles("tile.assert")
def _assert(tr, op):
    cond = tr.slot(op.operands[0])
    message = ir.StringAttr(op.attributes["message"]).value

    def step(env, state):
        value = _arr(env[cond])
        if not np.all(value):
            first = np.argwhere(~value.astype(bool))
            where = f" at index {tuple(int(i) for i in first[0])}" if value.ndim else ""
            raise InterpreterError(f"device assertion failed{where}: {message}")

    return step


# ----------------------------------------------------------------------------------------------
# Running a kernel
# ----------------------------------------------------------------------------------------------


class Program:
    """A translated kernel: `run(grid, args, arrays)` executes it over the whole grid."""

    def __init__(self, module: ir.Module):
        fn = next(op for op in module.body.operations if op.operation.name == "func.func")
        block = fn.regions[0].blocks[0]
        self.translator = Translator()
        self.arg_slots = [self.translator.slot(a) for a in block.arguments]
        self.arg_types = [a.type for a in block.arguments]
        self.body = self.translator.block(block)
        self.n_slots = len(self.translator.slots)

    def run(self, grid, args: list, memory: Memory) -> None:
        state = _State(memory, grid)
        env = [None] * max(self.n_slots, len(self.translator.slots))
        for slot, t, value in zip(self.arg_slots, self.arg_types, args):
            dt = np_dtype(t)
            if dt.kind == "i" and isinstance(value, int) and not isinstance(value, bool):
                # signless slots hold the bits: a u64 above 2^63 reads as its two's complement
                half = 1 << (dt.itemsize * 8 - 1)
                value = (value + half) % (2 * half) - half
            env[slot] = np.asarray(value, dtype=dt)
        with np.errstate(all="ignore"):
            for z in range(grid[2]):
                for y in range(grid[1]):
                    for x in range(grid[0]):
                        state.pid = (x, y, z)
                        self.body(env, state)
