// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @load
// CHECK: "tile.load"(%arg0, %arg1, %arg2) {cache = "cg", eviction = "evict_first", operandSegmentSizes = array<i32: 1, 1, 1, 0>}
// CHECK: "tile.load"(%arg3) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, volatile} : (!tile.ptr<i64>) -> i64
func.func @load(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>, %s: !tile.ptr<i64>) -> (tensor<128xf32>, i64) {
  %0 = "tile.load"(%p, %m, %o) {cache = "cg", eviction = "evict_first", operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<128x!tile.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
  %1 = "tile.load"(%s) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, volatile} : (!tile.ptr<i64>) -> i64
  return %0, %1 : tensor<128xf32>, i64
}
