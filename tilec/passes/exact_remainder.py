"""tile-exact-float-remainder: float `%` (arith.remf, C's fmod) computed exactly on GPUs.

The remainder of two floats is exact (representable), but neither GPU back end computes it so: LLVM's
AMDGPU back end calls ROCm's device library (__ocml_fmod_f32), which tilec does not link, so `x % y`
on floats did not compile for AMD; NVPTX computes x - trunc(x / y) y, which is wrong once the
quotient passes 2^24 (1e30 % 3 is not in [0, 3)). This pass reduces |x| by |y| scaled by powers of
two, each step exact:

    k = max(0, e(|x|) - e(|y|) - M)        e: the exponent, M: the mantissa bits (23 or 52)
    y' = |y| 2^k                             exact, and |x| / y' < 2^(M + 1)
    q = trunc(|x| / y')                      correctly rounded division: q is floor or floor + 1
    r = fma(-q, y', |x|)                     exact: a multiple of ulp(y') below y' in magnitude
    |x| <- r < 0 ? r + y' : r                (while |x| >= |y|)

Each step takes M bits off the exponent gap, so 12 steps cover float32 (gaps up to 276, subnormal y)
and 41 float64 (up to 2097). The result has x's sign; NaN for a NaN operand, y = 0 or an infinite x.
float16 and bfloat16 go through float32 (exactly). `float64=0` leaves float64 to the back end
(NVPTX expands an exact loop of its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import math as math_d

from tilec.dialects import tile

from .base import PassError, TilePass, ops_named

_FLOATS = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64"}


@dataclass(frozen=True)
class ExactFloatRemainderPass(TilePass):
    """arith.remf %x, %y => fmod(x, y) by exact scaled reduction steps (module doc).

    %r = arith.remf %x, %y : tensor<64xf32>
      =>  12 x (exponents, y 2^k, trunc(x / y 2^k), fma, select); %r = copysign(..., %x)
    """

    name: ClassVar[str] = "tile-exact-float-remainder"
    float64: bool = True

    def run(self, module: ir.Module) -> None:
        from tilec.language import core, semantic

        for op in ops_named(module.operation, "arith.remf"):
            t = op.results[0].type
            element = str(tile.element_of(t))
            if element == "f64" and not self.float64:
                continue
            if element not in _FLOATS:
                raise PassError(f"a float remainder (%) on {element} is not supported", op)
            dtype = getattr(core, _FLOATS[element])
            wide = core.float64 if element == "f64" else core.float32
            shape = tuple(tile.shape_of(t))
            with op.location, ir.InsertionPoint(op):
                x, y = (core.tensor(v, dtype, shape) for v in op.operands)
                result = exact_fmod(semantic.cast(x, wide), semantic.cast(y, wide))
                result = semantic.cast(result, dtype)
            op.results[0].replace_all_uses_with(result.handle)
            op.erase()


@dataclass(frozen=True)
class _Format:
    bits: object  # the same-width integer type (core.int32 / core.int64)
    mantissa: int  # stored mantissa bits
    bias: int
    steps: int  # reduction steps for the widest exponent gap

    def exponent(self, v):
        """The unbiased exponent of positive finite v, subnormals included (scaled up to normal)."""
        from tilec.language import core, semantic

        small = semantic.compare("lt", v, 2.0 ** (1 - self.bias))
        scaled = semantic.where(small, semantic.mul(v, 2.0 ** (self.mantissa + 1)), v)
        field = semantic.shr(semantic.cast(scaled, self.bits, bitcast=True), self.mantissa)
        shift = semantic.where(small, self.bias + self.mantissa + 1, self.bias)
        return semantic.sub(semantic.cast(field, core.int32), shift)

    def power_of_two(self, k, dtype):
        """2^k for 0 <= k <= bias (built from its exponent field)."""
        from tilec.language import semantic

        field = semantic.shl(semantic.cast(semantic.add(k, self.bias), self.bits), self.mantissa)
        return semantic.cast(field, dtype, bitcast=True)


def exact_fmod(x, y):
    """fmod of float32 or float64 tensors (or scalars) x and y, exactly (module doc)."""
    from tilec.language import core, semantic

    dtype = x.dtype
    f = _Format(core.int64, 52, 1023, 41) if dtype == core.float64 else _Format(core.int32, 23, 127, 12)
    magnitude = semantic.abs_(x)
    ax, ay = magnitude, semantic.abs_(y)
    ey = f.exponent(ay)
    for _ in range(f.steps):
        k = semantic.maximum(semantic.sub(semantic.sub(f.exponent(ax), ey), f.mantissa), 0)
        half = semantic.shr(k, 1)
        scaled = semantic.mul(
            semantic.mul(ay, f.power_of_two(half, dtype)), f.power_of_two(semantic.sub(k, half), dtype)
        )
        q = core.tensor(math_d.trunc(semantic.truediv(ax, scaled, precise=True).handle), dtype, ax.shape)
        r = semantic.fma(semantic.sub(0.0, q), scaled, ax)
        r = semantic.where(semantic.compare("lt", r, 0.0), semantic.add(r, scaled), r)
        ax = semantic.where(semantic.compare("ge", ax, ay), r, ax)
    result = core.tensor(math_d.copysign(ax.handle, x.handle), dtype, ax.shape)
    invalid = semantic.logical_or(
        semantic.logical_or(semantic.compare("ne", x, x), semantic.compare("ne", y, y)),
        semantic.logical_or(semantic.compare("eq", y, 0.0), semantic.compare("eq", magnitude, float("inf"))),
    )
    return semantic.where(invalid, float("nan"), result)
