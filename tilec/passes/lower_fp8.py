"""tile-lower-fp8: fp8 values become bytes before any back end sees them.

No target we lower to has fp8 as an LLVM type, and only Hopper's tensor cores compute on it, so fp8
(`f8E4M3FN`, `f8E5M2`, and AMD's `f8E4M3FNUZ`, `f8E5M2FNUZ`) is lowered once, at the tile level, the same way for every target:

- conversions are integer code on the bit patterns (`decode`, `encode`): fp8 -> fp32 is exact;
  fp32 -> fp8 rounds to nearest even and saturates at the largest finite value, NaN staying NaN (the
  behaviour of NVIDIA's `cvt.rn.satfinite`, which Triton uses); wider or narrower floats go through fp32;
- arithmetic, comparisons and math on fp8 compute in fp32 and round the result back;
- `tile.dot` on fp8 operands reads them as fp16 (which holds every fp8 value exactly), except dots the
  target's fp8 tensor cores take (`wgmma`: sm_90a warpgroup MMA), whose operands stay fp8;
- then every fp8 type left (loaded and stored tensors, pointers, loop values) becomes i8. The operands
  of a kept dot are the only fp8 values after the pass: `arith.bitcast`s of i8 bytes right before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np
from mlir import ir
from mlir.dialects import arith

from tilec.dialects import tile

from .base import PassError, TilePass, ops_in_order
from .gpu_vendor import vendor_named


class Fp8Format(NamedTuple):
    exp_bits: int
    man_bits: int
    bias: int
    max_code: int  # the largest finite magnitude's bit pattern
    has_inf: bool  # all-ones exponent is inf/NaN (e5m2); else only S.1111.111 is NaN (e4m3 "FN")
    numpy: str  # the ml_dtypes name
    fnuz: bool = False  # AMD's "FNUZ": no inf, no -0, the one NaN is 0x80 (the bit pattern of -0)
    wgmma: bool = True  # sm_90a's warpgroup MMA takes it (OCP formats only)


FORMATS = {
    "f8E4M3FN": Fp8Format(4, 3, 7, 0x7E, False, "float8_e4m3fn"),
    "f8E5M2": Fp8Format(5, 2, 15, 0x7B, True, "float8_e5m2"),
    "f8E4M3FNUZ": Fp8Format(4, 3, 8, 0x7F, False, "float8_e4m3fnuz", fnuz=True, wgmma=False),
    "f8E5M2FNUZ": Fp8Format(5, 2, 16, 0x7F, False, "float8_e5m2fnuz", fnuz=True, wgmma=False),
}

_CONVERSIONS = ("arith.extf", "arith.truncf")
_DATA_MOVEMENT = ("arith.bitcast", "arith.select", "arith.constant")


def fp8_format(t: ir.Type) -> Fp8Format | None:
    return FORMATS.get(str(tile.element_of(t)))


@dataclass(frozen=True)
class LowerFp8Pass(TilePass):
    """Lower fp8 to bytes: conversions as integer code, arithmetic in fp32, dots on fp16 unless kept.

    %y = arith.truncf %x : tensor<128xf32> to tensor<128xf8E4M3FN>; tile.store %p, %y
      =>  %b = <round to nearest even, saturate> : tensor<128xi8>; tile.store %p_i8, %b

    `wgmma=1` keeps fp8 dots that sm_90a's warpgroup MMA takes with `num-warps` warps.
    """

    name: ClassVar[str] = "tile-lower-fp8"
    wgmma: bool = False
    num_warps: int = 4

    def run(self, module: ir.Module) -> None:
        ops = []

        def collect(op):
            ops.append(op.operation if hasattr(op, "operation") else op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(collect, ir.WalkOrder.PRE_ORDER)
        kept = []  # (dot, [(operand index, fp8 type)])
        for op in ops:
            if not any(fp8_format(v.type) for v in [*op.operands, *op.results]):
                continue
            with op.location, ir.InsertionPoint(op):
                if op.name == "tile.dot":
                    keep = self._keeps(op)
                    if keep:
                        kept.append((op, [(i, op.operands[i].type) for i in (0, 1)]))
                    else:
                        for i in (0, 1):
                            if fp8_format(op.operands[i].type):
                                op.operands[i] = decode(op.operands[i], ir.F16Type.get())
                elif op.name in _CONVERSIONS:
                    _replace(op, _convert(op))
                elif op.name == "arith.constant":
                    _replace(op, _constant(op))
                elif op.name in _DATA_MOVEMENT or op.name.startswith(("scf.", "func.")):
                    continue
                elif op.name.startswith(("arith.", "math.")):
                    _replace(op, _in_f32(op))
                elif op.name == "tile.print":
                    for i, v in enumerate(op.operands):
                        if fp8_format(v.type):
                            op.operands[i] = decode(v, ir.F32Type.get())
                elif op.name.startswith("tile.atomic"):
                    raise PassError("atomic operations on fp8 are not supported", op)
        _erase_fp8_types(module.operation)
        for dot, operands in kept:
            with dot.location, ir.InsertionPoint(dot):
                for i, fp8_type in operands:
                    dot.operands[i] = arith.bitcast(fp8_type, dot.operands[i])

    def _keeps(self, dot) -> bool:
        a, b, acc = (v.type for v in dot.operands)
        fa, fb = fp8_format(a), fp8_format(b)
        if not (self.wgmma and fa and fb and fa.wgmma and fb.wgmma) or str(tile.element_of(acc)) != "f32":
            return False
        (m, k), (_, n) = tile.shape_of(a), tile.shape_of(b)
        return vendor_named("nvidia").fp8_dot_fits(m, n, k, self.num_warps)


def _replace(op, value: ir.Value) -> None:
    op.results[0].replace_all_uses_with(value)
    op.erase()


def _splat(value, elem: ir.Type, like: ir.Type) -> ir.Value:
    """A constant of `elem` (scalar or splat tensor shaped like `like`)."""
    shape = tile.shape_of(like)
    attr = (
        ir.IntegerAttr.get(elem, value) if isinstance(elem, ir.IntegerType) else ir.FloatAttr.get(elem, value)
    )
    if not shape:
        return arith.ConstantOp(elem, attr).result
    t = ir.RankedTensorType.get(shape, elem)
    return arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, attr)).result


def _like(elem: ir.Type, like: ir.Type) -> ir.Type:
    return tile.with_shape(elem, tile.shape_of(like))


def _i32(v, like):
    return _splat(v, ir.IntegerType.get_signless(32), like)


def decode(x: ir.Value, to: ir.Type) -> ir.Value:
    """fp8 `x` (any shape) as floats of `to` (exact for f16, bf16, f32, f64)."""
    fmt = fp8_format(x.type)
    t = x.type
    i8, i32 = ir.IntegerType.get_signless(8), ir.IntegerType.get_signless(32)
    f32 = ir.F32Type.get()
    u = arith.extui(_like(i32, t), arith.bitcast(_like(i8, t), x))
    sign = arith.shli(arith.andi(u, _i32(0x80, t)), _i32(24, t))
    exponent = arith.andi(arith.shrui(u, _i32(fmt.man_bits, t)), _i32((1 << fmt.exp_bits) - 1, t))
    mantissa = arith.andi(u, _i32((1 << fmt.man_bits) - 1, t))
    shifted = arith.shli(mantissa, _i32(23 - fmt.man_bits, t))
    normal = arith.ori(arith.shli(arith.addi(exponent, _i32(127 - fmt.bias, t)), _i32(23, t)), shifted)
    if fmt.has_inf:  # all-ones exponent: inf (mantissa 0) or NaN
        top = arith.cmpi(arith.CmpIPredicate.eq, exponent, _i32((1 << fmt.exp_bits) - 1, t))
        normal = arith.select(top, arith.ori(shifted, _i32(0x7F800000, t)), normal)
    elif fmt.fnuz:  # 0x80 is NaN (below, with the sign)
        pass
    else:  # S.1111.111 is NaN
        nan = arith.cmpi(arith.CmpIPredicate.eq, arith.andi(u, _i32(0x7F, t)), _i32(0x7F, t))
        normal = arith.select(nan, _i32(0x7FC00000, t), normal)
    # subnormals: mantissa * 2^(1 - bias - man_bits), exact in fp32
    scale = _splat(2.0 ** (1 - fmt.bias - fmt.man_bits), f32, t)
    small = arith.bitcast(_like(i32, t), arith.mulf(arith.uitofp(_like(f32, t), mantissa), scale))
    zero_exponent = arith.cmpi(arith.CmpIPredicate.eq, exponent, _i32(0, t))
    bits = arith.ori(arith.select(zero_exponent, small, normal), sign)
    if fmt.fnuz:
        bits = arith.select(arith.cmpi(arith.CmpIPredicate.eq, u, _i32(0x80, t)), _i32(0x7FC00000, t), bits)
    value = arith.bitcast(_like(f32, t), bits)
    return _from_f32(value, to)


def encode(x: ir.Value, fmt: Fp8Format) -> ir.Value:
    """f32 `x` as fp8 bytes (i8): round to nearest even, saturate to the largest finite value, NaN -> NaN."""
    t = x.type
    i8, i32 = ir.IntegerType.get_signless(8), ir.IntegerType.get_signless(32)
    c = lambda v: _i32(v, t)  # noqa: E731
    bits = arith.bitcast(_like(i32, t), x)
    sign = arith.andi(arith.shrui(bits, c(24)), c(0x80))
    magnitude = arith.andi(bits, c(0x7FFFFFFF))
    nan = arith.cmpi(arith.CmpIPredicate.ugt, magnitude, c(0x7F800000))
    largest = np.array(_largest(fmt), np.float32).view(np.int32).item()
    magnitude = arith.minui(magnitude, c(largest))  # saturate (inf too)
    exponent = arith.shrui(magnitude, c(23))
    shift = 23 - fmt.man_bits
    # normal results: round the f32 mantissa to man_bits (a carry moves into the exponent), rebias
    lsb = arith.andi(arith.shrui(magnitude, c(shift)), c(1))
    rounded = arith.addi(magnitude, arith.addi(c((1 << (shift - 1)) - 1), lsb))
    normal = arith.subi(arith.shrui(rounded, c(shift)), c((127 - fmt.bias) << fmt.man_bits))
    # subnormal results: the 24-bit mantissa shifted right by s with the same rounding
    full = arith.ori(arith.andi(magnitude, c(0x7FFFFF)), c(0x800000))
    s = arith.subi(c(shift + 128 - fmt.bias), exponent)
    s = arith.minsi(arith.maxsi(s, c(1)), c(31))  # in range for every lane, used or not
    sub_lsb = arith.andi(arith.shrui(full, s), c(1))
    half = arith.subi(arith.shli(c(1), arith.subi(s, c(1))), c(1))
    small = arith.shrui(arith.addi(full, arith.addi(half, sub_lsb)), s)
    is_small = arith.cmpi(arith.CmpIPredicate.ult, exponent, c(128 - fmt.bias))
    code = arith.select(is_small, small, normal)
    if fmt.fnuz:  # no -0: a zero keeps no sign; NaN is 0x80
        sign = arith.select(arith.cmpi(arith.CmpIPredicate.eq, code, c(0)), c(0), sign)
        code = arith.select(nan, c(0x80), code)
    else:
        code = arith.select(nan, c(0x7F), code)
    return arith.trunci(_like(i8, t), arith.ori(code, sign))


def _largest(fmt: Fp8Format) -> float:
    e, m = fmt.max_code >> fmt.man_bits, fmt.max_code & ((1 << fmt.man_bits) - 1)
    return (1 + m / (1 << fmt.man_bits)) * 2.0 ** (e - fmt.bias)


def _to_f32(x: ir.Value) -> ir.Value:
    f32 = ir.F32Type.get()
    if fp8_format(x.type):
        return decode(x, f32)
    width = tile.element_of(x.type).width
    if width == 32:
        return x
    return (arith.extf if width < 32 else arith.truncf)(_like(f32, x.type), x)


def _from_f32(x: ir.Value, to: ir.Type) -> ir.Value:
    width = to.width
    if width == 32:
        return x
    return (arith.extf if width > 32 else arith.truncf)(_like(to, x.type), x)


def _to_fp8(x: ir.Value, fp8_type: ir.Type) -> ir.Value:
    """`x` (any float) rounded to fp8, as a value of `fp8_type` (a bitcast of the bytes)."""
    return arith.bitcast(fp8_type, encode(_to_f32(x), fp8_format(fp8_type)))


def _convert(op) -> ir.Value:
    source, result = op.operands[0], op.results[0]
    if fp8_format(result.type):
        return _to_fp8(source, result.type)
    return decode(source, tile.element_of(result.type))


def _constant(op) -> ir.Value:
    attr, t = op.attributes["value"], op.results[0].type
    fmt = fp8_format(t)
    if isinstance(attr, ir.DenseElementsAttr):
        if not attr.is_splat:
            raise PassError("non-splat fp8 tensor constants are not supported", op)
        attr = attr.get_splat_value()
    import ml_dtypes

    byte = np.array(ir.FloatAttr(attr).value, np.float32).astype(getattr(ml_dtypes, fmt.numpy)).view(np.int8)
    i8 = ir.IntegerType.get_signless(8)
    return arith.bitcast(t, _splat(int(byte), i8, t))


def _in_f32(op) -> ir.Value:
    """An arith/math op on fp8 computed in f32, its fp8 result rounded back."""
    if len(op.results) != 1:
        raise PassError(f"'{op.name}' on fp8 is not supported", op)
    operands = [_to_f32(v) if fp8_format(v.type) else v for v in op.operands]
    result = op.results[0].type
    wide = _like(ir.F32Type.get(), result) if fp8_format(result) else result
    attrs = {name: op.attributes[name] for name in op.attributes}
    value = ir.Operation.create(op.name, results=[wide], operands=operands, attributes=attrs).result
    return _to_fp8(value, result) if fp8_format(result) else value


def _erased(t: ir.Type) -> ir.Type:
    """`t` with every fp8 element (also inside pointers and tensors) replaced by i8."""
    tensor = tile.as_tensor(t)
    if tensor is not None:
        element = _erased(tensor.element_type)
        if element == tensor.element_type:
            return t
        return ir.RankedTensorType.get(list(tensor.shape), element, tensor.encoding)
    if tile.is_ptr(t):
        pointee = tile.pointee_type(t)
        erased = _erased(pointee)
        return t if erased == pointee else tile.ptr_type(erased, tile.address_space(t))
    if str(t) in FORMATS:
        return ir.IntegerType.get_signless(8)
    return t


def _erase_fp8_types(root) -> None:
    """Every fp8 type under `root` becomes i8; bitcasts between fp8 and i8 disappear."""
    live = ops_in_order(root)
    for op in live:
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    arg.set_type(_erased(arg.type))
        if op.name == "func.func":
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            inputs = [_erased(t) for t in ftype.inputs]
            results = [_erased(t) for t in ftype.results]
            op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
        for result in op.results:
            result.set_type(_erased(result.type))
    for op in live:
        if op.name == "arith.bitcast" and op.operands[0].type == op.results[0].type:
            _replace(op, op.operands[0])
