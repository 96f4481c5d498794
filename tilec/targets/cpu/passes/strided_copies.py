"""tile-cpu-strided-copies: memref.copy between buffers that are not both contiguous becomes linalg.copy.

MLIR's memref-to-LLVM lowering turns a copy whose source or target has a strided layout (bufferized
tensor.insert_slice into a column of a buffer: a scan along the last axis of a 2-D block writes
each column into the result that way) into a call to `memrefCopy`, a function of MLIR's C runner
library, which tilec's kernels are not linked against: the shared object failed to load ("undefined
symbol: memrefCopy"). As linalg.copy it becomes loops in convert-linalg-to-loops; contiguous copies
stay memref.copy (an llvm.memcpy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import linalg

from tilec.passes.base import TilePass


def _contiguous(t: ir.Type) -> bool:
    """An identity layout: the buffer is one dense run of elements (a strided layout may not be)."""
    layout = ir.MemRefType(t).layout
    return isinstance(layout, ir.AffineMapAttr) and layout.value == ir.AffineMap.get_identity(
        ir.MemRefType(t).rank
    )


@dataclass(frozen=True)
class CpuStridedCopiesPass(TilePass):
    """memref.copy %a, %b with a strided %a or %b => linalg.copy ins(%a) outs(%b).

    memref.copy %src, %col : memref<4xf32> to memref<4xf32, strided<[8], offset: ?>>
      =>  linalg.copy ins(%src : memref<4xf32>) outs(%col : memref<4xf32, strided<[8], offset: ?>>)
    """

    name: ClassVar[str] = "tile-cpu-strided-copies"

    def run(self, module: ir.Module) -> None:
        copies = []

        def collect(op):
            if op.name == "memref.copy":
                copies.append(op.operation if hasattr(op, "operation") else op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(collect)
        for op in copies:
            source, target = op.operands[0], op.operands[1]
            if _contiguous(source.type) and _contiguous(target.type):
                continue
            with op.location, ir.InsertionPoint(op):
                linalg.copy(source, outs=[target])
            op.erase()
