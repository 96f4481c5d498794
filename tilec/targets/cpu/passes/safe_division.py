"""tile-cpu-safe-division: integer divisions that cannot trap on the host.

x86 raises SIGFPE for an integer division by zero and for MIN / -1, which would kill the user's
process. On GPUs both give an unspecified value and the kernel goes on, and kernels rely on that: a
masked-off lane commonly divides by a zero it never uses (`tl.swizzle2d` past the grid, `offs // n`
with n = 0). So on the CPU target every integer division and remainder divides by 1 instead where
the divisor is 0 or (signed) where it is -1 and the dividend MIN: the lanes that matter get the
exact quotient (x / 1 = x is also the wrapped MIN / -1), the others some value, as on a GPU.

    %q = arith.divsi %a, %b : tensor<64xi32>
      =>  %zero = arith.cmpi eq, %b, 0 ; %ovf = (%a == MIN) & (%b == -1)
          %d = arith.select (%zero | %ovf), 1, %b ; %q = arith.divsi %a, %d
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith

from tilec.dialects import tile
from tilec.passes.base import TilePass, ops_named

SIGNED = ("arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.floordivsi")
UNSIGNED = ("arith.divui", "arith.remui", "arith.ceildivui")


@dataclass(frozen=True)
class CpuSafeDivisionPass(TilePass):
    """Guard the divisor of every integer division and remainder (see the module doc)."""

    name: ClassVar[str] = "tile-cpu-safe-division"

    def run(self, module: ir.Module) -> None:
        for name in SIGNED + UNSIGNED:
            for op in ops_named(module.operation, name):
                _guard(op, signed=name in SIGNED)


def _constant(t: ir.Type, value: int) -> ir.Value:
    attr = ir.IntegerAttr.get(tile.element_of(t), value)
    if tile.as_tensor(t) is not None:
        attr = ir.DenseElementsAttr.get_splat(t, attr)
    return arith.ConstantOp(t, attr).result


def _guard(op: ir.Operation, signed: bool) -> None:
    dividend, divisor = op.operands[0], op.operands[1]
    t = divisor.type
    width = ir.IntegerType(tile.element_of(t)).width
    with op.location, ir.InsertionPoint(op):
        bad = arith.cmpi(arith.CmpIPredicate.eq, divisor, _constant(t, 0))
        if signed and width > 1:
            smallest = arith.cmpi(arith.CmpIPredicate.eq, dividend, _constant(t, -(1 << (width - 1))))
            minus_one = arith.cmpi(arith.CmpIPredicate.eq, divisor, _constant(t, -1))
            bad = arith.ori(bad, arith.andi(smallest, minus_one))
        op.operands[1] = arith.select(bad, _constant(t, 1), divisor)
