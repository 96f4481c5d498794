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

from tilec.dialects import expansions, tile

from .base import PassError, TilePass, expand, expansions_for, ops_named

_FLOATS = ("f16", "bf16", "f32", "f64")


@dataclass(frozen=True)
class ExactFloatRemainderPass(TilePass):
    """arith.remf %x, %y => fmod(x, y) by exact scaled reduction steps (module doc).

    %r = arith.remf %x, %y : tensor<64xf32>
      =>  12 x (exponents, y 2^k, trunc(x / y 2^k), fma, select); %r = copysign(..., %x)
    """

    name: ClassVar[str] = "tile-exact-float-remainder"
    float64: bool = True

    def run(self, module: ir.Module) -> None:
        table = expansions_for(self, expansions.FLOAT_REMAINDER)
        for op in ops_named(module.operation, "arith.remf"):
            element = str(tile.element_of(op.results[0].type))
            if element == "f64" and not self.float64:
                continue
            if element not in _FLOATS:
                raise PassError(f"a float remainder (%) on {element} is not supported", op)
            expand(op, table[op.name])
