"""tile-cpu-atomics: defines the atomic helpers that convert-tile-to-linalg calls.

They are declared during the tile lowering and defined only after bufferization, because buffer
deallocation refuses ops with unknown memory effects (llvm.atomicrmw and llvm.cmpxchg).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import func, llvm

from .base import TilePass
from .lowering_common import ordering as lc_ordering
from .lowering_common import rmw_op


@dataclass(frozen=True)
class CpuAtomicsPass(TilePass):
    """Give bodies to the `@__tilec_atomic_*` declarations: llvm.atomicrmw / llvm.cmpxchg on the address.

    func.func private @__tilec_atomic_add_acq_rel_i32(i64, i32) -> i32 attributes {tile.atomic = ...}
      =>  { %p = llvm.inttoptr %a; %old = llvm.atomicrmw add %p, %v acq_rel; return %old }
    """

    name: ClassVar[str] = "tile-cpu-atomics"

    def run(self, module: ir.Module) -> None:
        for op in module.body.operations:
            op = op.operation
            if op.name != "func.func" or "tile.atomic" not in op.attributes or len(op.regions[0].blocks):
                continue
            info = ir.DictAttr(op.attributes["tile.atomic"])
            kind = ir.StringAttr(info["kind"]).value
            sem = ir.StringAttr(info["sem"]).value
            _define(op, kind, sem)


def _define(op: ir.Operation, kind: str, sem: str) -> None:
    ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
    elem = ftype.results[0]
    block = op.regions[0].blocks.append(*ftype.inputs)
    del op.attributes["sym_visibility"]
    op.attributes["sym_visibility"] = ir.StringAttr.get("private")
    ordering = lc_ordering(sem)
    with op.location, ir.InsertionPoint(block):
        ptr = llvm.IntToPtrOp(ir.Type.parse("!llvm.ptr"), block.arguments[0]).result
        if kind == "cas":
            # cmpxchg's failure ordering may not be release-flavoured.
            failure = llvm.AtomicOrdering.monotonic if sem in ("release", "acq_rel", "relaxed") else ordering
            pair = llvm.AtomicCmpXchgOp(ptr, block.arguments[1], block.arguments[2], ordering, failure).result
            old = llvm.ExtractValueOp(elem, pair, [0]).result
        else:
            old = llvm.AtomicRMWOp(rmw_op(kind, elem), ptr, block.arguments[1], ordering).result
        func.ReturnOp([old])
