// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @atomic_rmw
// CHECK: "tile.atomic_rmw"(%arg0, %arg1, %arg2) {kind = "fadd"
// CHECK: "tile.atomic_rmw"(%arg3, %arg4) {kind = "max"
func.func @atomic_rmw(%p: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf32>, %m: tensor<64xi1>, %q: !tile.ptr<i32>, %w: i32) -> (tensor<64xf32>, i32) {
  %0 = "tile.atomic_rmw"(%p, %v, %m) {kind = "fadd", operandSegmentSizes = array<i32: 1, 1, 1>, scope = "gpu", sem = "relaxed"} : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
  %1 = "tile.atomic_rmw"(%q, %w) {kind = "max", operandSegmentSizes = array<i32: 1, 1, 0>} : (!tile.ptr<i32>, i32) -> i32
  return %0, %1 : tensor<64xf32>, i32
}
