"""tile-cpu-widen-bool-buffers: memrefs of i1 become memrefs of i8 before the LLVM lowering.

MLIR's memref-to-LLVM conversion does not handle i1 elements (it asserts, which would end the
process). Tile lowering keeps its own boolean tensors as i8, but buffer deallocation adds i1 buffers
of ownership flags when buffers are returned from loops; this pass widens those.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith

from tilec.passes.base import TilePass


def _widened(t: ir.Type) -> ir.Type | None:
    if isinstance(t, ir.MemRefType) and str(t.element_type) == "i1":
        layout = t.layout if not str(t.layout).startswith("affine_map<(d0) -> (d0)>") else None
        return ir.MemRefType.get(list(t.shape), ir.IntegerType.get_signless(8), layout, t.memory_space)
    return None


@dataclass(frozen=True)
class CpuWidenBoolBuffersPass(TilePass):
    """Widen memref<...xi1> to memref<...xi8> (loads truncate, stores extend).

    %m = memref.alloc() : memref<4xi1>; memref.store %b, %m[%i] : memref<4xi1>
      =>  %m = memref.alloc() : memref<4xi8>; %e = arith.extui %b : i1 to i8; memref.store %e, %m[%i]
    """

    name: ClassVar[str] = "tile-cpu-widen-bool-buffers"

    def run(self, module: ir.Module) -> None:
        ops = []

        def collect(op):
            ops.append(op.operation if hasattr(op, "operation") else op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(collect)
        i1, i8 = ir.IntegerType.get_signless(1), ir.IntegerType.get_signless(8)
        for op in ops:
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.arguments:
                        new = _widened(arg.type)
                        if new is not None:
                            arg.set_type(new)
            if op.name == "func.func":
                ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
                inputs = [_widened(t) or t for t in ftype.inputs]
                results = [_widened(t) or t for t in ftype.results]
                op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
            for res in op.results:
                new = _widened(res.type)
                if new is not None:
                    res.set_type(new)
        for op in ops:
            if op.name == "memref.store" and op.operands[0].type == i1 and _is_i8_memref(op.operands[1].type):
                with op.location, ir.InsertionPoint(op):
                    op.operands[0] = arith.extui(i8, op.operands[0])
            elif op.name == "memref.load" and _is_i8_memref(op.operands[0].type) and op.results[0].type == i1:
                result = op.results[0]
                result.set_type(i8)
                with op.location, _after(op):
                    narrow = arith.trunci(i1, result)
                result.replace_all_uses_except(narrow, narrow.owner.operation)


def _is_i8_memref(t) -> bool:
    return isinstance(t, ir.MemRefType) and str(t.element_type) == "i8"


def _after(op):
    block = op.block
    ops = list(block.operations)
    for i, o in enumerate(ops):
        if o.operation == op:
            return ir.InsertionPoint(ops[i + 1]) if i + 1 < len(ops) else ir.InsertionPoint(block)
    return ir.InsertionPoint(block)
