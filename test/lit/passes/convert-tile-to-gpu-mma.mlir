// RUN: tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=4 mma=1}' | FileCheck %s
// RUN: tilec-opt %s --split-input-file -p 'convert-tile-to-gpu{num-warps=4}' | FileCheck %s --check-prefix=FMA

// fp16 [32x16] @ [16x32] + fp32: eight 16x8 tensor-core tiles, two per warp, one mma each.
// CHECK-LABEL: gpu.func @dot_f16
// CHECK-COUNT-2: llvm.inline_asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: mma.sync
// FMA-LABEL: gpu.func @dot_f16
// FMA-NOT: mma.sync
// FMA: llvm.call_intrinsic "llvm.fma.f32"
func.func @dot_f16(%x: f16, %y: f16) attributes {tile.kernel} {
  %a = "tile.splat"(%x) : (f16) -> tensor<32x16xf16>
  %b = "tile.splat"(%y) : (f16) -> tensor<16x32xf16>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<32x16xf16>, tensor<16x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return
}

// -----

// bf16 with K = 32: two k-steps per tile.
// CHECK-LABEL: gpu.func @dot_bf16
// CHECK-COUNT-4: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @dot_bf16(%x: bf16, %y: bf16) attributes {tile.kernel} {
  %a = "tile.splat"(%x) : (bf16) -> tensor<32x32xbf16>
  %b = "tile.splat"(%y) : (bf16) -> tensor<32x32xbf16>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return
}

// -----

// fp32 operands (and shapes the instruction does not cover) keep the FMA lowering.
// CHECK-LABEL: gpu.func @dot_f32
// CHECK-NOT: mma.sync
// CHECK: llvm.call_intrinsic "llvm.fma.f32"
func.func @dot_f32(%x: f32, %y: f32) attributes {tile.kernel} {
  %a = "tile.splat"(%x) : (f32) -> tensor<32x16xf32>
  %b = "tile.splat"(%y) : (f32) -> tensor<16x32xf32>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = "tile.dot"(%a, %b, %c) : (tensor<32x16xf32>, tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return
}
