"""convert-tile-to-linalg: tile ops to tensor/linalg/scf/llvm ops for the CPU target.

Pointers become i64 addresses (tensors of pointers become tensors of i64), memory accesses become
`llvm.load`/`llvm.store` through `llvm.inttoptr` inside linalg.generic bodies or loop nests; after
this pass, upstream bufferization and lowering take the module to LLVM.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from tilec.passes.base import PassError, TilePass, ops_named

from .common import (
    BOOLS,
    is_elementwise_on_tensors,
    ops_to_lower,
    record_pointee_sizes,
    replace_op,
    retype_pointers,
)
from .debug import lower_assert
from .elementwise import elementwise_op, f64_to_bf16
from .ops import LOWERINGS

_NO_ASM = (
    "tl.inline_asm_elementwise runs GPU assembly (PTX or AMDGCN), which the CPU target cannot run: "
    "compile the kernel for an NVIDIA target"
)


@dataclass(frozen=True)
class ConvertTileToLinalgPass(TilePass):
    """Lower tile ops to linalg/tensor/scf and LLVM memory ops (pointers become i64 addresses).

    %v = "tile.load"(%p, %m) : (tensor<128x!tile.ptr<f32>>, tensor<128xi1>) -> tensor<128xf32>
      =>  %v = linalg.generic ins(%p, %m : tensor<128xi64>, tensor<128xi1>) {
            scf.if %m { llvm.load (llvm.inttoptr %p) } else { 0 } }
    """

    name: ClassVar[str] = "convert-tile-to-linalg"

    def run(self, module: ir.Module) -> None:
        with module.context:
            BOOLS.clear()
            sizes = record_pointee_sizes(module.operation)
            retype_pointers(module)
            # One sweep in program order: every producer is lowered before its users.
            for op in ops_to_lower(module.operation):
                if op.name.startswith("tile."):
                    lower = LOWERINGS.get(op.name)
                    if op.name == "tile.inline_asm":
                        raise PassError(_NO_ASM, op)
                    if lower is None:
                        raise PassError(f"'{op.name}' has no lowering for the CPU target", op)
                    with op.location, ir.InsertionPoint(op):
                        lower(op, sizes)
                elif is_elementwise_on_tensors(op):
                    with op.location, ir.InsertionPoint(op):
                        elementwise_op(op)
                elif (
                    op.name == "arith.truncf"
                    and str(op.operands[0].type) == "f64"
                    and str(op.results[0].type) == "bf16"
                ):
                    with op.location, ir.InsertionPoint(op):
                        replace_op(op, f64_to_bf16(op.operands[0]))
            # Device assertions inside reduce/scan combiners (a checked combine function) came along
            # when the combiners were cloned: each is now a scalar check where the combiner runs.
            for op in ops_named(module.operation, "tile.assert"):
                with op.location, ir.InsertionPoint(op):
                    lower_assert(op, sizes)
            BOOLS.clear()
