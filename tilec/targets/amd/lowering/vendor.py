"""AMD as convert-tile-to-gpu's vendor (tilec.passes.gpu_vendor): AMDGPU's approximate units, a
static LDS array, the grid size read from the HSA dispatch packet, and MFMA matrix cores on CDNA."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.passes.base import PassError
from tilec.passes.gpu_vendor import Vendor

from . import mfma


class AmdVendor(Vendor):
    name = "amd"

    def approx_exp2(self, x):
        return llvm.CallIntrinsicOp(x.type, ir.StringAttr.get("llvm.amdgcn.exp2.f32"), [x], [], []).results[0]

    def fast_divide(self, a, b):
        # a * rcp(b), as Triton's `/` on AMD (about 2 ulp)
        rcp = llvm.CallIntrinsicOp(a.type, ir.StringAttr.get("llvm.amdgcn.rcp.f32"), [b], [], []).results[0]
        return arith.mulf(a, rcp)

    def num_programs(self, lowering, axis: int):
        # ROCDL lowers gpu.grid_dim to __ockl_get_num_groups (a device library we do not have); read
        # the HSA dispatch packet instead: grid_size_{x,y,z} are u32 at bytes 12, 16, 20, in threads.
        i32 = ir.IntegerType.get_signless(32)
        packet = llvm.CallIntrinsicOp(
            ir.Type.parse("!llvm.ptr<4>"), ir.StringAttr.get("llvm.amdgcn.dispatch.ptr"), [], [], []
        ).results[0]
        i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
        field = llvm.GEPOp(ir.Type.parse("!llvm.ptr<4>"), packet, [], [12 + 4 * axis], i8, 0).result
        size = llvm.LoadOp(i32, field, alignment=4, invariant=True).result
        return arith.divui(size, arith.ConstantOp(i32, lowering.threads).result) if axis == 0 else size

    def check_print(self, op) -> None:
        raise PassError("tl.device_print is not supported by the AMD lowering (it needs ROCm's hostcall)", op)

    def check_assert(self, op) -> None:
        raise PassError("tl.device_assert is not supported by the AMD lowering yet", op)

    def configure(self, lowering, options) -> None:
        lowering.mfma = options.mfma and options.warp_size == 64
        lowering.mfma_i8_k = options.mfma_i8_k

    def uses_tensor_cores(self, lowering) -> bool:
        return lowering.mfma

    def tensor_core_lowering(self, lowering, dot):
        if lowering.mfma:
            kind = mfma.mfma_kind(dot, lowering.num_warps, lowering.mfma_i8_k)
            if kind is not None:
                return mfma, kind
        return None
