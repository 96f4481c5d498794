"""Typing rules and IR construction behind tile-language operators (Triton's semantics).

Every function builds at the ambient MLIR insertion point and location, which the code generator sets
for the statement it is visiting. Python numbers are "weak" operands: `x_fp16 * 2.0` stays fp16.
"""

from __future__ import annotations

import numbers

from tilec._lazy import lazy_module

from . import core
from .core import dtype, tensor

ir = lazy_module("mlir.ir")
arith = lazy_module("mlir.dialects.arith")
math = lazy_module("mlir.dialects.math")
tile = lazy_module("tilec.dialects.tile")


class SemanticError(Exception):
    """A type or shape error in user code; the code generator adds the file and line."""


# ----------------------------------------------------------------------------------------------
# Constants and conversion of Python values
# ----------------------------------------------------------------------------------------------


def python_scalar_dtype(v) -> dtype:
    if isinstance(v, bool):
        return core.int1
    if isinstance(v, numbers.Integral):
        v = int(v)
        if -(2**31) <= v < 2**31:
            return core.int32
        if 2**31 <= v < 2**32:
            return core.uint32
        if -(2**63) <= v < 2**63:
            return core.int64
        if 2**63 <= v < 2**64:
            return core.uint64
        raise SemanticError(f"integer constant {v} does not fit in 64 bits")
    if isinstance(v, numbers.Real):
        # as Triton: fp32 unless the magnitude is outside fp32's normal range (then fp64, so that
        # `val = 1e50` is not silently inf and `1e-300` not 0)
        magnitude = _py_abs(float(v))
        if magnitude in (0.0, float("inf")) or magnitude != magnitude or _F32_MIN <= magnitude <= _F32_MAX:
            return core.float32
        return core.float64
    raise SemanticError(f"cannot use a value of type {type(v).__name__} in tile code: {v!r}")


_F32_MIN = 2.0**-126  # the smallest normal fp32
_F32_MAX = (2 - 2**-23) * 2.0**127
_py_abs = abs


def _attr(value, t: dtype) -> ir.Attribute:
    ir_t = t.to_ir()
    if t.is_floating():
        return ir.FloatAttr.get(ir_t, float(value))
    if t.is_bool():
        return ir.IntegerAttr.get(ir_t, 1 if value else 0)
    bits = t.primitive_bitwidth
    v = int(value) & ((1 << bits) - 1)
    if v >= 1 << (bits - 1):  # IntegerAttr wants the signed reading of the bits
        v -= 1 << bits
    return ir.IntegerAttr.get(ir_t, v)


def constant(value, t: dtype, shape=()) -> tensor:
    if t.is_ptr():
        raise SemanticError("pointer constants are not supported")
    attr = _attr(value, t)
    if shape:
        ty = ir.RankedTensorType.get(list(shape), t.to_ir())
        attr = ir.DenseElementsAttr.get_splat(ty, attr)
        return tensor(arith.ConstantOp(ty, attr).result, t, shape)
    return tensor(arith.ConstantOp(t.to_ir(), attr).result, t, ())


def to_tensor(v, t: dtype | None = None) -> tensor:
    """A tensor from a tensor or a Python number (with its default dtype unless `t` is given)."""
    if isinstance(v, tensor):
        return v
    if isinstance(v, core.dtype):
        raise SemanticError(f"a dtype ({v!r}) is not a value")
    if t is None:
        t = python_scalar_dtype(v)
    if not isinstance(v, numbers.Number):
        raise SemanticError(f"cannot use a value of type {type(v).__name__} in tile code: {v!r}")
    if t.is_int() and not float(v).is_integer():
        raise SemanticError(f"constant {v} is not an integer")
    return constant(v, t)


def _is_py_scalar(v) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, tensor)


# ----------------------------------------------------------------------------------------------
# Type promotion (Triton's rules)
# ----------------------------------------------------------------------------------------------


def _kind(t: dtype) -> int:
    """Triton's ordering bool < integer < float: a Python int meeting an unsigned tensor takes the
    tensor's type, as with a signed one."""
    if t.is_bool():
        return 0
    if t.is_int():
        return 1
    return 2


def _signed(t: dtype) -> bool:
    """Signedness as Triton's division check sees it: booleans are unsigned there."""
    return t.is_int_signed() and not t.is_bool()


def integer_promote(a: dtype, b: dtype) -> dtype:
    ra, rb = a.primitive_bitwidth, b.primitive_bitwidth
    if a.is_int_signed() == b.is_int_signed():
        return a if ra > rb else b
    if a.is_int_signed():
        return a if ra > rb else b
    return b if rb > ra else a


def computation_type(a: dtype, a_scalar: bool, b: dtype, b_scalar: bool, div_or_mod: bool) -> dtype:
    if a_scalar != b_scalar:
        scalar_t, tensor_t = (a, b) if a_scalar else (b, a)
        if _kind(scalar_t) <= _kind(tensor_t):
            if div_or_mod and (tensor_t in (core.float16, core.bfloat16) or tensor_t.is_fp8()):
                return core.float32
            return tensor_t
    if a.is_fp64() or b.is_fp64():
        return core.float64
    if a.is_fp32() or b.is_fp32():
        return core.float32
    if a.is_fp16() or b.is_fp16():
        # as Triton, fp16 wins over bf16 too (bf16 values beyond 65504 become inf there)
        return core.float32 if div_or_mod else core.float16
    if a.is_bf16() or b.is_bf16():
        # as Triton: bf16 stays bf16 only with bf16; with an integer or fp8 block it computes in fp32
        return core.bfloat16 if a.is_bf16() and b.is_bf16() and not div_or_mod else core.float32
    if a.is_fp8() or b.is_fp8():
        # fp8 arithmetic is computed in fp32 and rounded back (tile-lower-fp8); two fp8 formats
        # meet in fp16, which holds both exactly
        if div_or_mod:
            return core.float32
        if a.is_fp8() and b.is_fp8():
            return a if a == b else core.float16
        return a if a.is_fp8() else b
    if not a.is_int() or not b.is_int():
        raise SemanticError(f"unexpected operand types {a} and {b}")
    if div_or_mod and _signed(a) != _signed(b):
        raise SemanticError(
            f"Cannot use /, // or % with {a} and {b} because they have different signedness; cast them to the same signedness"
        )
    return integer_promote(a, b)


# ----------------------------------------------------------------------------------------------
# Shapes
# ----------------------------------------------------------------------------------------------


def broadcast_shapes(a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    a2 = (1,) * (n - len(a)) + tuple(a)
    b2 = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a2, b2):
        if x != y and x != 1 and y != 1:
            raise SemanticError(f"incompatible shapes {list(a)} and {list(b)} for broadcasting")
        out.append(max(x, y))
    return tuple(out)


def broadcast_to(x: tensor, shape: tuple) -> tensor:
    shape = tuple(shape)
    if x.shape == shape:
        return x
    if not x.shape:
        return tensor(tile.splat(x.handle, list(shape)), x.dtype, shape)
    if len(x.shape) > len(shape):
        raise SemanticError(f"cannot broadcast shape {list(x.shape)} to {list(shape)}")
    while len(x.shape) < len(shape):
        x = expand_dims(x, 0)
    for a, b in zip(x.shape, shape):
        if a != b and a != 1:
            raise SemanticError(f"cannot broadcast shape {list(x.shape)} to {list(shape)}")
    return tensor(tile.broadcast(x.handle, list(shape)), x.dtype, shape)


def expand_dims(x: tensor, axis: int) -> tensor:
    if not x.shape:
        return tensor(tile.splat(x.handle, [1]), x.dtype, (1,))
    rank = len(x.shape)
    if axis < 0:
        axis += rank + 1
    if not 0 <= axis <= rank:
        raise SemanticError(f"axis {axis} is out of range for expand_dims of a rank-{rank} tensor")
    shape = x.shape[:axis] + (1,) + x.shape[axis:]
    return tensor(tile.expand_dims(x.handle, axis), x.dtype, shape)


def binary_broadcast(a: tensor, b: tensor) -> tuple[tensor, tensor]:
    shape = broadcast_shapes(a.shape, b.shape)
    return broadcast_to(a, shape), broadcast_to(b, shape)


# ----------------------------------------------------------------------------------------------
# Casts
# ----------------------------------------------------------------------------------------------


def _result_type(t: dtype, shape: tuple) -> ir.Type:
    return tile.with_shape(t.to_ir(), list(shape))


def cast(x, dst: dtype, bitcast: bool = False, fp_downcast_rounding: str | None = None) -> tensor:
    if isinstance(dst, str):
        dst = core.dtype_from_signature(dst) if dst[0] in "*iuf" else core.dtype(dst)
    if not isinstance(dst, core.dtype):
        raise SemanticError(f"expected a dtype, got {dst!r}")
    x = to_tensor(x)
    src = x.dtype
    if fp_downcast_rounding is not None:
        return _rounded_downcast(x, dst, fp_downcast_rounding)
    rt = _result_type(dst, x.shape)
    if src == dst:
        return x
    if bitcast:
        if src.is_ptr() or dst.is_ptr() or src.primitive_bitwidth != dst.primitive_bitwidth:
            raise SemanticError(f"cannot bitcast {src} to {dst}: sizes differ or a pointer is involved")
        return tensor(arith.bitcast(rt, x.handle), dst, x.shape)
    if src.is_ptr() or dst.is_ptr():
        return _pointer_cast(x, dst)
    h = x.handle
    if dst.is_bool():
        zero = constant(0, src, x.shape)
        pred = arith.CmpFPredicate.UNE if src.is_floating() else arith.CmpIPredicate.ne
        op = arith.cmpf if src.is_floating() else arith.cmpi
        return tensor(op(pred, h, zero.handle), core.int1, x.shape)
    if src.is_floating() and dst.is_floating():
        if src.primitive_bitwidth < dst.primitive_bitwidth:
            return tensor(arith.extf(rt, h), dst, x.shape)
        if src.primitive_bitwidth > dst.primitive_bitwidth:
            return tensor(arith.truncf(rt, h), dst, x.shape)
        # fp16 <-> bf16: through fp32 (no direct conversion instruction)
        wide = tensor(arith.extf(_result_type(core.float32, x.shape), h), core.float32, x.shape)
        return cast(wide, dst)
    if src.is_int() and dst.is_int():
        sb, db = src.primitive_bitwidth, dst.primitive_bitwidth
        if sb < db:
            signed = src.is_int_signed() and not src.is_bool()
            op = arith.extsi if signed else arith.extui
            return tensor(op(rt, h), dst, x.shape)
        if sb > db:
            return tensor(arith.trunci(rt, h), dst, x.shape)
        return tensor(h, dst, x.shape)  # same width, other signedness: the bits are the value
    if (src.is_fp8() and dst.is_int()) or (src.is_int() and dst.is_fp8()):
        # fp8 has no integer conversion instructions anywhere: through fp32 (exact for fp8 values)
        return cast(cast(x, core.float32), dst)
    if src.is_int() and dst.is_floating():
        signed = src.is_int_signed() and not src.is_bool()
        op = arith.sitofp if signed else arith.uitofp
        return tensor(op(rt, h), dst, x.shape)
    if src.is_floating() and dst.is_int():
        op = arith.fptosi if dst.is_int_signed() else arith.fptoui
        return tensor(op(rt, h), dst, x.shape)
    raise SemanticError(f"cannot cast {src} to {dst}")


def _rounded_downcast(x: tensor, dst: dtype, rounding: str) -> tensor:
    """A float to a narrower float, rounding to nearest even ("rtne", the default) or toward zero
    ("rtz": the nearest-even result, stepped one ulp toward zero where it landed farther from zero)."""
    src = x.dtype
    if not (src.is_floating() and dst.is_floating() and dst.primitive_bitwidth < src.primitive_bitwidth):
        raise SemanticError(
            f"fp_downcast_rounding applies to conversions to a narrower float only, not {src} to {dst}"
        )
    if rounding not in ("rtne", "rtz"):
        raise SemanticError(f"fp_downcast_rounding must be 'rtne' or 'rtz', got {rounding!r}")
    nearest = cast(x, dst)
    if rounding == "rtne":
        return nearest
    bits_type = {8: core.int8, 16: core.int16, 32: core.int32}[dst.primitive_bitwidth]
    bits = cast(nearest, bits_type, bitcast=True)
    toward_zero = cast(sub(bits, 1), dst, bitcast=True)  # one ulp less in magnitude (sign-magnitude)
    farther = compare("gt", abs_(cast(nearest, src)), abs_(x))  # false for NaN
    return where(farther, toward_zero, nearest)


def _pointer_cast(x: tensor, dst: dtype) -> tensor:
    """Pointer to pointer (the same address), pointer to int64 / uint64 (the address) or to int1
    (not null), integer to pointer (the integer as an address), as in Triton."""
    src = x.dtype
    if src.is_ptr() and dst.is_ptr():
        return tensor(tile.ptr_cast(x.handle, _result_type(dst, x.shape)), dst, x.shape)
    if src.is_ptr() and dst.is_int():
        address = tensor(tile.ptr_cast(x.handle, _result_type(core.int64, x.shape)), core.int64, x.shape)
        if dst.is_bool():
            return compare("ne", address, 0)
        if dst.primitive_bitwidth != 64:
            raise SemanticError(f"cannot cast {src} to {dst}: a pointer converts to 64-bit integers only")
        return cast(address, dst)
    if src.is_int() and not src.is_bool() and dst.is_ptr():
        address = cast(x, core.int64 if src.is_int_signed() else core.uint64)
        return tensor(tile.ptr_cast(address.handle, _result_type(dst, x.shape)), dst, x.shape)
    raise SemanticError(f"cannot cast between {src} and {dst}")


# ----------------------------------------------------------------------------------------------
# Arithmetic
# ----------------------------------------------------------------------------------------------


def _operands(a, b, div_or_mod=False, allow_ptr=False) -> tuple[tensor, tensor, dtype]:
    a_scalar, b_scalar = _is_py_scalar(a), _is_py_scalar(b)
    if a_scalar and b_scalar:
        raise SemanticError("internal: both operands are Python numbers")
    at = a.dtype if isinstance(a, tensor) else python_scalar_dtype(a)
    bt = b.dtype if isinstance(b, tensor) else python_scalar_dtype(b)
    if at.is_ptr() or bt.is_ptr():
        if not allow_ptr:
            raise SemanticError(f"invalid operands of types {at} and {bt}")
        return None, None, None
    t = computation_type(at, a_scalar, bt, b_scalar, div_or_mod)
    if t.is_int() and not t.is_bool():
        for v in (a,) if a_scalar else (b,) if b_scalar else ():
            _check_scalar_fits(v, t)
    a = cast(to_tensor(a, t if a_scalar else None), t)
    b = cast(to_tensor(b, t if b_scalar else None), t)
    a, b = binary_broadcast(a, b)
    return a, b, t


def _check_scalar_fits(v, t: dtype) -> None:
    """A Python integer operand takes the tensor's integer type (weak typing); one it cannot hold
    is an error rather than a silently wrapped value, as in Triton."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        return
    v = int(v)
    bits = t.primitive_bitwidth
    if t.is_int_unsigned():
        if v < 0:
            raise SemanticError(
                f"Cannot perform a binary operation between an unsigned tensor ({t}) and a negative "
                f"scalar ({v}); cast one of them explicitly"
            )
        lo, hi = 0, (1 << bits) - 1
    else:
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if not lo <= v <= hi:
        raise SemanticError(
            f"Scalar {v} is out of range for type {t} (cast the tensor to a wider type first)"
        )


def _ptr_offset(p: tensor, off, negate=False) -> tensor:
    off = to_tensor(off)
    if not off.dtype.is_int():
        raise SemanticError(f"pointer offsets must be integers, got {off.dtype}")
    if negate:
        off = neg(off)
    p, off = binary_broadcast(p, off)
    return tensor(tile.addptr(p.handle, off.handle), p.dtype, p.shape)


def _is_ptr(v) -> bool:
    return isinstance(v, tensor) and v.dtype.is_ptr()


def add(a, b) -> tensor:
    if _is_ptr(a) and _is_ptr(b):
        raise SemanticError("cannot add two pointers")
    if _is_ptr(a):
        return _ptr_offset(a, b)
    if _is_ptr(b):
        return _ptr_offset(b, a)
    a, b, t = _operands(a, b)
    op = arith.addf if t.is_floating() else arith.addi
    return tensor(op(a.handle, b.handle), t, a.shape)


def sub(a, b) -> tensor:
    if _is_ptr(a) and not _is_ptr(b):
        return _ptr_offset(a, b, negate=True)
    if _is_ptr(b):
        raise SemanticError("cannot subtract a pointer (pointer differences are not supported)")
    a, b, t = _operands(a, b)
    op = arith.subf if t.is_floating() else arith.subi
    return tensor(op(a.handle, b.handle), t, a.shape)


def mul(a, b) -> tensor:
    a, b, t = _operands(a, b)
    op = arith.mulf if t.is_floating() else arith.muli
    return tensor(op(a.handle, b.handle), t, a.shape)


def truediv(a, b, precise: bool = False) -> tensor:
    """`/`. As in Triton, an f32 `/` may be computed to about 2 ulp (the GPUs' fast division, marked
    `afn`); `tl.div_rn` (precise=True) is the correctly rounded division."""
    at = a.dtype if isinstance(a, tensor) else python_scalar_dtype(a)
    bt = b.dtype if isinstance(b, tensor) else python_scalar_dtype(b)
    if at.is_int() and bt.is_int():  # int / int is a float division, as in Python and Triton
        a, b, _ = _operands(a, b, div_or_mod=True)  # Triton's checks first (signedness, scalar range)
        a, b = cast(a, core.float32), cast(b, core.float32)
    a, b, t = _operands(a, b, div_or_mod=True)
    if not t.is_floating():
        a, b, t = cast(a, core.float32), cast(b, core.float32), core.float32
    fast = ir.Attribute.parse("#arith.fastmath<afn>") if t.is_fp32() and not precise else None
    return tensor(arith.divf(a.handle, b.handle, fastmath=fast), t, a.shape)


def _signed(t: dtype) -> bool:
    """Signed integer arithmetic (comparisons, min/max, division, >>): not for booleans, whose true is
    1 (as in Triton, where int1 counts as unsigned): as a signed i1 it is -1, so max(True, False)
    was False and True < False was true."""
    return t.is_int_signed() and not t.is_bool()


def floordiv(a, b) -> tensor:
    a, b, t = _operands(a, b, div_or_mod=True)
    if t.is_floating():
        raise SemanticError(f"'//' needs integer operands, got {t} (use / and tl.floor... or cast)")
    op = arith.divsi if _signed(t) else arith.divui
    return tensor(op(a.handle, b.handle), t, a.shape)


def mod(a, b) -> tensor:
    a, b, t = _operands(a, b, div_or_mod=True)
    if t.is_floating():
        return tensor(arith.remf(a.handle, b.handle), t, a.shape)
    op = arith.remsi if _signed(t) else arith.remui
    return tensor(op(a.handle, b.handle), t, a.shape)


def neg(x) -> tensor:
    x = to_tensor(x)
    if x.dtype.is_ptr():
        raise SemanticError("cannot negate a pointer")
    if x.dtype.is_floating():
        return tensor(arith.negf(x.handle), x.dtype, x.shape)
    return sub(constant(0, x.dtype, x.shape), x)


def _bitwise(a, b, name) -> tuple[tensor, tensor, dtype]:
    at = a.dtype if isinstance(a, tensor) else python_scalar_dtype(a)
    bt = b.dtype if isinstance(b, tensor) else python_scalar_dtype(b)
    if not at.is_int() or not bt.is_int():
        raise SemanticError(
            f"invalid operands of type {at} and {bt} for '{name}': it needs integer (or bool) operands"
        )
    return _operands(a, b)


def and_(a, b) -> tensor:
    a, b, t = _bitwise(a, b, "&")
    return tensor(arith.andi(a.handle, b.handle), t, a.shape)


def or_(a, b) -> tensor:
    a, b, t = _bitwise(a, b, "|")
    return tensor(arith.ori(a.handle, b.handle), t, a.shape)


def xor_(a, b) -> tensor:
    a, b, t = _bitwise(a, b, "^")
    return tensor(arith.xori(a.handle, b.handle), t, a.shape)


def invert(x) -> tensor:
    x = to_tensor(x)
    if not x.dtype.is_int():
        raise SemanticError(f"'~' needs an integer operand, got {x.dtype}")
    ones = constant(-1 if not x.dtype.is_bool() else 1, x.dtype, x.shape)
    return tensor(arith.xori(x.handle, ones.handle), x.dtype, x.shape)


def shl(a, b) -> tensor:
    a, b, t = _bitwise(a, b, "<<")
    return tensor(arith.shli(a.handle, b.handle), t, a.shape)


def shr(a, b, signed: bool | None = None) -> tensor:
    """`a >> b` in their promoted type, arithmetic when `signed` (by default: when that type is
    signed). Triton decides by the tensor operand's own type before promotion (int32 >> uint32
    shifts arithmetically, into a uint32 result): `tensor.__rshift__` passes it."""
    a, b, t = _bitwise(a, b, ">>")
    op = arith.shrsi if (_signed(t) if signed is None else signed) else arith.shrui
    return tensor(op(a.handle, b.handle), t, a.shape)


def rshift_operator(a, b) -> tensor:
    """Python's `a >> b` in a kernel: arithmetic by the signedness of the tensor operand's own type
    (the left one when both are tensors), as Triton's `__rshift__` / `__rrshift__`."""
    decider = a if isinstance(a, tensor) else b
    return shr(a, b, signed=_signed(decider.dtype))


def logical_and(a, b) -> tensor:
    return and_(cast(to_tensor(a), core.int1), cast(to_tensor(b), core.int1))


def logical_or(a, b) -> tensor:
    return or_(cast(to_tensor(a), core.int1), cast(to_tensor(b), core.int1))


def logical_not(x) -> tensor:
    return compare("eq", cast(to_tensor(x), core.int1), False)


_FPRED = {"lt": "OLT", "le": "OLE", "gt": "OGT", "ge": "OGE", "eq": "OEQ", "ne": "UNE"}
_SPRED = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq", "ne": "ne"}
_UPRED = {"lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge", "eq": "eq", "ne": "ne"}


def compare(pred: str, a, b) -> tensor:
    if _is_ptr(a) or _is_ptr(b):
        raise SemanticError("comparing pointers is not supported; compare offsets instead")
    a, b, t = _operands(a, b)
    if t.is_floating():
        h = arith.cmpf(getattr(arith.CmpFPredicate, _FPRED[pred]), a.handle, b.handle)
    else:
        table = _SPRED if _signed(t) else _UPRED
        h = arith.cmpi(getattr(arith.CmpIPredicate, table[pred]), a.handle, b.handle)
    return tensor(h, core.int1, a.shape)


def where(cond, x, y) -> tensor:
    cond = cast(to_tensor(cond), core.int1)
    if _is_py_scalar(x) and _is_py_scalar(y):
        t = computation_type(python_scalar_dtype(x), False, python_scalar_dtype(y), False, False)
        x, y = to_tensor(x, t), to_tensor(y, t)
    elif _is_ptr(x) or _is_ptr(y):
        x, y = to_tensor(x), to_tensor(y)
        if x.dtype != y.dtype:
            raise SemanticError(f"tl.where operands differ: {x.dtype} vs {y.dtype}")
    else:
        x, y, _ = _operands(x, y)
    shape = broadcast_shapes(broadcast_shapes(cond.shape, x.shape), y.shape)
    cond, x, y = broadcast_to(cond, shape), broadcast_to(x, shape), broadcast_to(y, shape)
    return tensor(arith.select(cond.handle, x.handle, y.handle), x.dtype, shape)


def minimum(a, b, propagate_nan=False) -> tensor:
    a, b, t = _operands(a, b)
    if t.is_floating():
        op = arith.minimumf if propagate_nan else arith.minnumf
    else:
        op = arith.minsi if _signed(t) else arith.minui
    return tensor(op(a.handle, b.handle), t, a.shape)


def maximum(a, b, propagate_nan=False) -> tensor:
    a, b, t = _operands(a, b)
    if t.is_floating():
        op = arith.maximumf if propagate_nan else arith.maxnumf
    else:
        op = arith.maxsi if _signed(t) else arith.maxui
    return tensor(op(a.handle, b.handle), t, a.shape)


def float_unary(name: str, x) -> tensor:
    x = to_tensor(x)
    if not x.dtype.is_floating():
        raise SemanticError(f"tl.{name} needs a floating-point operand, got {x.dtype}")
    op = getattr(math, name)
    return tensor(op(x.handle), x.dtype, x.shape)


def abs_(x) -> tensor:
    x = to_tensor(x)
    if x.dtype.is_floating():
        return tensor(math.absf(x.handle), x.dtype, x.shape)
    if x.dtype.is_int_unsigned() or x.dtype.is_bool():
        return x
    if x.dtype.is_int():
        return tensor(math.absi(x.handle), x.dtype, x.shape)
    raise SemanticError(f"tl.abs needs a number, got {x.dtype}")


def fma(a, b, c) -> tensor:
    a, b, t = _operands(a, b)
    a, c, t = _operands(a, c)
    b = broadcast_to(b, a.shape)
    if not t.is_floating():
        return add(mul(a, b), c)
    return tensor(math.fma(a.handle, b.handle, c.handle), t, a.shape)


# ----------------------------------------------------------------------------------------------
# Indexing
# ----------------------------------------------------------------------------------------------


def subscript(x: tensor, index) -> tensor:
    """`x[None, :]`, `x[:, None]`: only full slices and new axes, as in Triton."""
    if not isinstance(index, tuple):
        index = (index,)
    out, dim = x, 0
    for item in index:
        if item is None:
            out = expand_dims(out, dim)
            dim += 1
        elif isinstance(item, slice) and item == slice(None, None, None):
            dim += 1
        else:
            raise SemanticError(
                f"unsupported tensor index {item!r}: only ':' and None are allowed (tensors are immutable)"
            )
    if dim - sum(i is None for i in index) > len(x.shape):
        raise SemanticError(f"too many indices for a tensor of rank {len(x.shape)}")
    return out
