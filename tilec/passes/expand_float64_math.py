"""tile-expand-float64-math: float64 exp, exp2, log, log2, rsqrt, sin, cos, tanh, erf as float64 arithmetic (GPUs).

NVPTX and AMDGPU have no instructions for these in float64 (Triton calls the vendors' device
libraries, which tilec does not link): each math op on float64 becomes tilec.language.float64_math's
computation (a few ulp, C's special values), so kernels on float64 compile for GPUs; other float64
math functions stay a compile error at the kernel's line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from tilec.dialects import expansions, tile

from .base import TilePass, expand, expansions_for


@dataclass(frozen=True)
class ExpandFloat64MathPass(TilePass):
    """math.exp/exp2/log/log2/rsqrt/sin/cos/tanh/erf on f64 => float64 arithmetic (range reduction, series).

    %y = math.exp %x : tensor<64xf64>
      =>  n = floor(x / ln2 + 1/2), r = x - n ln2_hi - n ln2_lo, Taylor(r) * 2^n
    """

    name: ClassVar[str] = "tile-expand-float64-math"

    def run(self, module: ir.Module) -> None:
        table = expansions_for(self, expansions.FLOAT64_MATH)
        found = []

        def collect(op):
            op = op.operation if hasattr(op, "operation") else op
            if op.name in table and str(tile.element_of(op.results[0].type)) == "f64":
                found.append(op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(collect)
        for op in found:
            expand(op, table[op.name])
