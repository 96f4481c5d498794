// Round trip: prints what it parses, and the printed form parses again.
// RUN: tilec-opt %s | tilec-opt | FileCheck %s

// CHECK-LABEL: func.func @gather
// CHECK: "tile.gather"(%arg0, %arg1) {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
// CHECK: "tile.gather"(%arg0, %arg2) {axis = 0 : i32} : (tensor<4x8xf32>, tensor<16x8xi64>) -> tensor<16x8xf32>
func.func @gather(%x: tensor<4x8xf32>, %i: tensor<4x2xi32>, %j: tensor<16x8xi64>) -> (tensor<4x2xf32>, tensor<16x8xf32>) {
  %0 = "tile.gather"(%x, %i) {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  %1 = "tile.gather"(%x, %j) {axis = 0 : i32} : (tensor<4x8xf32>, tensor<16x8xi64>) -> tensor<16x8xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<16x8xf32>
}
