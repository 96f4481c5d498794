"""tl.dot: on the vendor's tensor cores where it takes the dot, else as per-thread FMAs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir
from mlir.dialects import arith, llvm, scf

from tilec.dialects import tile

from .. import lower_fp8
from ..base import PassError
from ..lowering_common import DYNAMIC_INDEX
from .common import const_i32, is_float, scalar_type, sptr
from .debug import widen
from .math_intrinsics import intrinsic
from .shared_memory import stage_in_smem

if TYPE_CHECKING:
    from .lowering import KernelLowering


def lower_dot(self: KernelLowering, op):
    """a @ b + acc: on tensor cores where the option allows and the shapes and types fit (mma.py),
    else through shared memory with FMAs (correct for every type and shape)."""
    chosen = self.tensor_core_lowering(op)
    if chosen is not None:
        lowering, kind = chosen
        lowering.lower_dot(self, op, kind, sptr(), DYNAMIC_INDEX)
        return
    a, b, acc = op.operands
    if lower_fp8.fp8_format(a.type) or lower_fp8.fp8_format(b.type):
        raise PassError(
            "this tl.dot on fp8 fits no fp8 tensor-core instruction: run tile-lower-fp8 first", op
        )
    (m, k), (_, n) = tile.shape_of(a.type), tile.shape_of(b.type)
    a_layout = self.layout_for([m, k], tile.element_of(a.type))
    b_layout = self.layout_for([k, n], tile.element_of(b.type))
    out_layout = self.layout_for([m, n], tile.element_of(acc.type))
    acc_regs = self.regs(acc, out_layout)
    elems = [scalar_type(a.type), scalar_type(b.type)]
    (ra, rb), (sa, sb) = stage_in_smem(
        self, [self.regs(a, a_layout), self.regs(b, b_layout)], [a_layout, b_layout], [[m, k], [k, n]], elems
    )
    out_t = scalar_type(acc.type)
    result = []
    for coord, init in zip(self.coords(out_layout), acc_regs):
        row, col = coord
        loop = scf.ForOp(const_i32(0), const_i32(k), const_i32(1), [init])
        with ir.InsertionPoint(loop.body):
            kk = loop.induction_variable
            x = llvm.LoadOp(sa, self.smem_at(ra, arith.addi(arith.muli(row, const_i32(k)), kk), sa)).result
            y = llvm.LoadOp(sb, self.smem_at(rb, arith.addi(arith.muli(kk, const_i32(n)), col), sb)).result
            x, y = widen(x, out_t), widen(y, out_t)
            total = loop.inner_iter_args[0]
            if is_float(out_t):
                new = intrinsic("fma", out_t, [x, y, total], approx=False)
            else:
                new = arith.addi(total, arith.muli(x, y))
            scf.YieldOp([new])
        result.append(loop.results[0])
    self.smem_dirty = True
    self.set_natural(op.results[0], out_layout, result)
