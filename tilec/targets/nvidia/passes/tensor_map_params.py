"""Tensor-map kernel parameters become 128-byte grid constants (after convert-gpu-to-nvvm).

    llvm.func @k(..., %map: !llvm.ptr) attributes {nvvm.kernel, tilec.tensor_map_params = array<i32: 3>}
      =>  llvm.func @k(..., %map: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64,
                                             nvvm.grid_constant})

In PTX such a parameter is `.param .align 64 .b8 k_param_3[128]`, and %map its generic address
(cvta.param), which the tensor copies take (tma.py). The gpu dialect cannot carry these attributes
(nvvm.grid_constant belongs to an NVVM kernel, and convert-gpu-to-nvvm drops byval), hence a pass
on the lowered function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from tilec.dialects import contract
from tilec.passes.base import PassError, TilePass, ops_named

TENSOR_MAP_BYTES, TENSOR_MAP_ALIGN = 128, 64  # CUtensorMap


@dataclass(frozen=True)
class TensorMapParamsPass(TilePass):
    """Mark the tensor-map parameters of NVVM kernels as 128-byte grid constants."""

    name: ClassVar[str] = "nvvm-tensor-map-params"
    checks_tile_ops: ClassVar[bool] = False  # (runs on IR whose tile ops are lowered)

    def run(self, module: ir.Module) -> None:
        for fn in ops_named(module.operation, "llvm.func"):
            if contract.TENSOR_MAP_PARAMS not in fn.attributes:
                continue
            if "nvvm.kernel" not in fn.attributes:
                raise PassError("tensor-map parameters on a function that is not an NVVM kernel", fn)
            count = len(fn.regions[0].blocks[0].arguments)
            attrs = (
                [ir.DictAttr(a) for a in ir.ArrayAttr(fn.attributes["arg_attrs"])]
                if "arg_attrs" in fn.attributes
                else [ir.DictAttr.get({})] * count
            )
            for index in ir.DenseI32ArrayAttr(fn.attributes[contract.TENSOR_MAP_PARAMS]):
                if str(fn.regions[0].blocks[0].arguments[index].type) != "!llvm.ptr":
                    raise PassError(f"tensor-map parameter {index} is not an !llvm.ptr", fn)
                attrs[index] = ir.DictAttr.get(
                    {
                        "llvm.byval": ir.TypeAttr.get(ir.Type.parse(f"!llvm.array<{TENSOR_MAP_BYTES} x i8>")),
                        "llvm.align": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), TENSOR_MAP_ALIGN),
                        "nvvm.grid_constant": ir.UnitAttr.get(),
                    }
                )
            fn.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
