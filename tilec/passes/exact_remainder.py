"""tile-exact-float-remainder: float `%` (arith.remf, C's fmod) as exact integer arithmetic.

LLVM's AMDGPU back end has no instruction for frem: it calls ROCm's device library (__ocml_fmod_f32),
which tilec does not link, so `x % y` on floats could not be compiled for AMD at all. The remainder
of two float32 values is exact and computable with integers: with |x| = mx 2^ex and |y| = my 2^ey
(24-bit integer mantissas, subnormals included), for ex >= ey

    |x| mod |y| = ((mx 2^(ex - ey)) mod my) 2^ey = (mx ((2^(ex - ey)) mod my) mod my) 2^ey

where 2^d mod my takes eight square-and-multiply steps (d < 256) on int64 values below 2^48. The
result has x's sign; |x| < |y| (ex < ey) gives x; NaN for a NaN operand, y = 0 or an infinite x.
float16 and bfloat16 go through float32 (exactly); float64 is refused with a clear error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import math as math_d

from tilec.dialects import tile

from .base import PassError, TilePass

_FLOATS = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}


@dataclass(frozen=True)
class ExactFloatRemainderPass(TilePass):
    """arith.remf %x, %y => the integer computation of fmod(x, y) (module doc).

    %r = arith.remf %x, %y : tensor<64xf32>
      =>  bitcasts, shifts, eight int64 multiply-modulo steps, %r = copysign(... , %x)
    """

    name: ClassVar[str] = "tile-exact-float-remainder"

    def run(self, module: ir.Module) -> None:
        from tilec.language import core, semantic

        found = []

        def collect(op):
            op = op.operation if hasattr(op, "operation") else op
            if op.name == "arith.remf":
                found.append(op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(collect)
        for op in found:
            t = op.results[0].type
            element = str(tile.element_of(t))
            if element not in _FLOATS:
                raise PassError(
                    f"a float remainder (%) on {element} is not supported here: AMD GPUs have no "
                    "instruction for it and tilec computes it exactly only up to float32",
                    op,
                )
            dtype = getattr(core, _FLOATS[element])
            shape = tuple(tile.shape_of(t))
            with op.location, ir.InsertionPoint(op):
                x, y = (core.tensor(v, dtype, shape) for v in op.operands)
                result = fmod_f32(semantic.cast(x, core.float32), semantic.cast(y, core.float32))
                result = semantic.cast(result, dtype)
            op.results[0].replace_all_uses_with(result.handle)
            op.erase()


def fmod_f32(x, y):
    """fmod of float32 tensors (or scalars) x and y, exactly, from integer operations alone."""
    from tilec.language import core, semantic

    int32, int64 = core.int32, core.int64

    def magnitude(v):
        bits = semantic.and_(semantic.cast(v, int32, bitcast=True), 0x7FFFFFFF)
        biased = semantic.shr(bits, 23)
        mantissa = semantic.where(
            semantic.compare("eq", biased, 0), bits, semantic.or_(semantic.and_(bits, 0x7FFFFF), 0x800000)
        )
        return semantic.cast(mantissa, int64), semantic.maximum(biased, 1), biased

    mx, ex, _ = magnitude(x)
    my, ey, _ = magnitude(y)
    d = semantic.sub(ex, ey)
    smaller = semantic.compare("lt", d, 0)  # |x| < |y|: x itself
    d = semantic.maximum(d, 0)
    modulus = semantic.maximum(my, 1)  # y = 0 is NaN below; no division by zero meanwhile
    power = semantic.broadcast_to(semantic.cast(semantic.to_tensor(1), int64), modulus.shape)
    base = semantic.mod(
        semantic.broadcast_to(semantic.cast(semantic.to_tensor(2), int64), modulus.shape), modulus
    )
    for bit in range(8):  # 2^d mod my by square and multiply, d < 256
        taken = semantic.compare("ne", semantic.and_(semantic.shr(d, bit), 1), 0)
        power = semantic.where(taken, semantic.mod(semantic.mul(power, base), modulus), power)
        base = semantic.mod(semantic.mul(base, base), modulus)
    remainder = semantic.mod(semantic.mul(mx, power), modulus)
    # remainder 2^(ey - 150), exact in float64 (a power of two built from its exponent bits)
    scale = semantic.cast(
        semantic.shl(semantic.cast(semantic.add(ey, 1023 - 150), int64), 52), core.float64, bitcast=True
    )
    value = semantic.cast(semantic.mul(semantic.cast(remainder, core.float64), scale), core.float32)
    signed = core.tensor(math_d.copysign(value.handle, x.handle), core.float32, value.shape)
    result = semantic.where(smaller, x, signed)
    invalid = semantic.logical_or(
        semantic.logical_or(semantic.compare("ne", x, x), semantic.compare("ne", y, y)),
        semantic.logical_or(
            semantic.compare("eq", y, 0.0), semantic.compare("eq", semantic.abs_(x), float("inf"))
        ),
    )
    return semantic.where(invalid, float("nan"), result)
