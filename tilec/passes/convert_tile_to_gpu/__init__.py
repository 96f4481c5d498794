"""convert-tile-to-gpu: tile IR to per-thread code in a gpu.module (shared by NVIDIA and AMD).

One program instance is one workgroup of `num_warps * warp_size` threads. Every tensor value lives in
a layout (tilec/passes/layouts.py): each thread holds some of its elements as scalar SSA values.

Layouts are chosen on demand. Memory ops, reductions and loop-carried values are computed once, in a
coalesced blocked layout for their shape; cheap values (ranges, splats, constants, elementwise math,
pointer arithmetic, broadcasts) are rebuilt in whatever layout their user asks for, at their original
place in the program — which makes e.g. `x - tl.max(x, 1)[:, None]` free of data movement. Where an
expensive value is needed in another layout it moves through shared memory (a layout conversion).

Memory accesses are vectorized up to 16 bytes when the axis analysis proves contiguity, alignment and
one mask bit per vector; reductions go in-thread, then `gpu.shuffle xor` across lanes, then across
warps through shared memory; `exp` goes through `exp2` (ex2.approx on NVIDIA, v_exp_f32 on AMD).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import gpu

from tilec.dialects import contract

from ..base import PassError, TilePass
from ..gpu_vendor import vendor_named
from .lowering import KernelLowering


@dataclass(frozen=True)
class ConvertTileToGpuPass(TilePass):
    """Lower tile kernels to per-thread gpu/llvm code with blocked layouts (one workgroup per program).

    func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} { ... tensor<1024xf32> ... }
      =>  gpu.module @tilec { gpu.func @k(%p: !llvm.ptr<1>) kernel
            attributes {known_block_size = array<i32: 128, 1, 1>} { ... vector<4xf32> loads ... } }
    """

    name: ClassVar[str] = "convert-tile-to-gpu"
    checks_tile_ops: ClassVar[bool] = False  # (it leaves no tile op to check)
    num_warps: int = 4
    warp_size: int = 32
    vendor: str = "nvidia"  # which hardware math intrinsics to use: nvidia | amd
    mma: bool = False  # tl.dot on tensor cores (mma.sync, NVIDIA sm_80 and newer)
    wgmma: bool = False  # tl.dot on warpgroup tensor cores (wgmma.mma_async, NVIDIA sm_90a)
    mfma: bool = False  # tl.dot on matrix cores (v_mfma, AMD CDNA with wave64)
    mfma_i8_k: int = 32  # K of the int8 matrix instruction: 32 on CDNA3 (gfx94x, gfx950), 16 on gfx90a
    tma: bool = False  # descriptor tiles into warpgroup-MMA rings by tensor copies (tma.py; sm_90a)
    fp_fusion: bool = True  # fp32 a * b + c may fuse into one FMA (Triton's enable_fp_fusion)

    def run(self, module: ir.Module) -> None:
        vendor = vendor_named(self.vendor)
        if self.mfma_i8_k not in (16, 32):
            raise PassError(f"mfma-i8-k must be 16 or 32, got {self.mfma_i8_k}")
        kernels = contract.kernels(module)
        if not kernels:
            raise PassError("no function marked tile.kernel in the module")
        module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
        with ir.InsertionPoint(module.body), module.operation.location:
            gmod = gpu.GPUModuleOp("tilec_kernels")
            gmod.regions[0].blocks.append()
        for k in kernels:
            lowering = KernelLowering(k, gmod, self.num_warps, self.warp_size, vendor)
            vendor.configure(lowering, self)
            lowering.fp_fusion = self.fp_fusion
            lowering.run()
            k.erase()
