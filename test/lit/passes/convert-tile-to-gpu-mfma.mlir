// RUN: tilec-opt %s -p 'convert-tile-to-gpu{num-warps=2 vendor=amd warp-size=64 mfma=1}' | FileCheck %s
// RUN: tilec-opt %s -p 'convert-tile-to-gpu{num-warps=2 vendor=amd warp-size=64}' | FileCheck %s --check-prefix=FMA

// fp16 [32x32] @ [32x32] + fp32 on two wave64s: each wave owns one 16-row block, two 16-column blocks,
// two 16-deep k-steps: four v_mfma_f32_16x16x16f16, each reading A as one 8-byte vector.
// CHECK-LABEL: gpu.func @dot_f16
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<4xf16>
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.amdgcn.mfma.f32.16x16x16f16"
// CHECK-NOT: llvm.amdgcn.mfma
// FMA-LABEL: gpu.func @dot_f16
// FMA-NOT: mfma
// FMA: llvm.call_intrinsic "llvm.fma.f32"
func.func @dot_f16(%x: f16, %y: f16) attributes {tile.kernel} {
  %a = "tile.splat"(%x) : (f16) -> tensor<32x32xf16>
  %b = "tile.splat"(%y) : (f16) -> tensor<32x32xf16>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<32x32xf16>, tensor<32x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return
}
