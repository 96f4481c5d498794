// RUN: tilec-opt %s -p 'convert-tile-to-gpu{num-warps=2 vendor=amd warp-size=64 mfma=1}' | FileCheck %s
// RUN: tilec-opt %s -p 'convert-tile-to-gpu{num-warps=2 vendor=amd warp-size=64}' | FileCheck %s --check-prefix=FMA
// RUN: tilec-opt %s -p 'convert-tile-to-gpu{num-warps=2 vendor=amd warp-size=64 mfma=1 mfma-i8-k=16}' | FileCheck %s --check-prefix=CDNA2

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

// fp32: v_mfma_f32_16x16x4f32, one fp32 value of A and of B per lane and 4-deep k-step: 8 k-steps
// for each of this wave's two 16x16 blocks (16 rows by 32 columns): 2 x 8 = 16.
// CHECK-LABEL: gpu.func @dot_f32
// CHECK-COUNT-16: llvm.call_intrinsic "llvm.amdgcn.mfma.f32.16x16x4f32"{{.*}} : (f32, f32, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
// CHECK-NOT: llvm.amdgcn.mfma
func.func @dot_f32(%x: f32, %y: f32) attributes {tile.kernel} {
  %a = "tile.splat"(%x) : (f32) -> tensor<32x32xf32>
  %b = "tile.splat"(%y) : (f32) -> tensor<32x32xf32>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = "tile.dot"(%a, %b, %c) {input_precision = "ieee"} : (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return
}

// int8 with an int32 accumulator: CDNA3's v_mfma_i32_16x16x32_i8 takes 8 values of K a lane as one
// i64 (one 8-byte read of A), 2 blocks x 2 k-steps; CDNA2's 16x16x16i8 takes 4 as one i32, 2 x 4.
// CHECK-LABEL: gpu.func @dot_i8
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<8xi8>
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.amdgcn.mfma.i32.16x16x32.i8"{{.*}} : (i64, i64, vector<4xi32>, i32, i32, i32) -> vector<4xi32>
// CHECK-NOT: llvm.amdgcn.mfma
// CDNA2-LABEL: gpu.func @dot_i8
// CDNA2-COUNT-8: llvm.call_intrinsic "llvm.amdgcn.mfma.i32.16x16x16i8"{{.*}} : (i32, i32, vector<4xi32>, i32, i32, i32) -> vector<4xi32>
// CDNA2-NOT: llvm.amdgcn.mfma
func.func @dot_i8(%x: i8, %y: i8) attributes {tile.kernel} {
  %a = "tile.splat"(%x) : (i8) -> tensor<32x64xi8>
  %b = "tile.splat"(%y) : (i8) -> tensor<64x32xi8>
  %c = arith.constant dense<0> : tensor<32x32xi32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<32x64xi8>, tensor<64x32xi8>, tensor<32x32xi32>) -> tensor<32x32xi32>
  return
}
