"""tile-cpu-pointer-offsets: addresses `base + offset` become a GEP from the base pointer.

On the CPU target a pointer tensor is a tensor of i64 addresses, and a load or store goes through
`llvm.inttoptr` of one (convert-tile-to-linalg). After elementwise fusion the address of element i is
computed in the loop body as `base + sext(offs[i]) * 4`, and LLVM cannot see through inttoptr: its
loop vectorizer found no consecutive access and left masked loads (`x = tl.load(p + offs, mask)`)
as a scalar loop with a branch per element. Written as `getelementptr i8, inttoptr(base), offset`,
with the base defined outside the loop, the address is an affine function of the loop's index that
LLVM recognizes: consecutive masked loads become vector masked loads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import llvm

from .base import TilePass, ops_named
from .lowering_common import DYNAMIC_INDEX

_LOOPS = ("linalg.generic", "scf.for", "scf.parallel", "scf.forall")


def _loop_of(op: ir.Operation):
    """The innermost loop (a linalg.generic body or an scf loop) around `op`, else None."""
    parent = op.parent
    while parent is not None and parent.name not in _LOOPS:
        parent = parent.parent
    return parent


def _defined_outside(value: ir.Value, loop) -> bool:
    """`value` does not change from one iteration of `loop` to the next: defined outside it."""
    owner = value.owner
    defining = owner.owner if isinstance(owner, ir.Block) else owner
    defining = defining.operation if hasattr(defining, "operation") else defining
    while defining is not None:
        if defining == loop:
            return False
        defining = defining.parent
    return True


@dataclass(frozen=True)
class CpuPointerOffsetsPass(TilePass):
    """llvm.inttoptr (arith.addi %base, %offset), %base defined outside the enclosing loop and %offset
    in it => llvm.getelementptr (llvm.inttoptr %base)[%offset] : i8.

    %a = arith.addi %base, %off : i64        (in a linalg.generic body; %base a function argument)
    %p = llvm.inttoptr %a : i64 to !llvm.ptr
      =>  %b = llvm.inttoptr %base : i64 to !llvm.ptr
          %p = llvm.getelementptr %b[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    """

    name: ClassVar[str] = "tile-cpu-pointer-offsets"

    def run(self, module: ir.Module) -> None:
        i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
        for op in ops_named(module.operation, "llvm.inttoptr"):
            address = op.operands[0]
            add = address.owner
            if isinstance(add, ir.Block) or add.name != "arith.addi":
                continue
            add = add.operation if hasattr(add, "operation") else add
            loop = _loop_of(op)
            a, b = add.operands
            if loop is None:
                continue
            if _defined_outside(b, loop) and not _defined_outside(a, loop):
                a, b = b, a
            if not _defined_outside(a, loop) or _defined_outside(b, loop):
                continue
            with op.location, ir.InsertionPoint(op):
                base = llvm.IntToPtrOp(op.results[0].type, a).result
                pointer = llvm.GEPOp(op.results[0].type, base, [b], [DYNAMIC_INDEX], i8, 0).result
            op.results[0].replace_all_uses_with(pointer)
            op.erase()
