// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @splat
// CHECK: "tile.splat"(%arg0) : (f32) -> tensor<4x8xf32>
// CHECK: "tile.splat"(%arg1) : (!tile.ptr<bf16>) -> tensor<16x!tile.ptr<bf16>>
func.func @splat(%x: f32, %p: !tile.ptr<bf16>) -> (tensor<4x8xf32>, tensor<16x!tile.ptr<bf16>>) {
  %0 = "tile.splat"(%x) : (f32) -> tensor<4x8xf32>
  %1 = "tile.splat"(%p) : (!tile.ptr<bf16>) -> tensor<16x!tile.ptr<bf16>>
  return %0, %1 : tensor<4x8xf32>, tensor<16x!tile.ptr<bf16>>
}
